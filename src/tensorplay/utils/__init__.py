"""tensorplay.utils: ``data`` (datasets and the DataLoader), ``checkpoint``
(activation checkpointing) and ``dlpack``, as PyTorch's ``torch.utils``."""
from . import checkpoint, data, dlpack  # noqa: F401

__all__ = ["checkpoint", "data", "dlpack"]
