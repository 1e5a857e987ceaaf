"""tensorplay.utils: ``data`` (datasets and the DataLoader) and ``checkpoint``
(activation checkpointing), as PyTorch's ``torch.utils``."""
from . import checkpoint, data  # noqa: F401

__all__ = ["checkpoint", "data"]
