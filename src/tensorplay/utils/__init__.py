"""tensorplay.utils: ``data`` (datasets and the DataLoader) and ``checkpoint``
(activation checkpointing), as PyTorch's ``torch.utils``."""
from . import data  # noqa: F401
