"""tensorplay.utils: ``data`` (datasets and the DataLoader), ``checkpoint``
(activation checkpointing), ``dlpack`` and ``benchmark``, as PyTorch's ``torch.utils``."""
from . import benchmark, checkpoint, data, dlpack  # noqa: F401

__all__ = ["benchmark", "checkpoint", "data", "dlpack"]
