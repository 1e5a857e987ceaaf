"""``tensorplay.backends``: the flags and queries PyTorch code sets and reads
(``backends.cudnn.deterministic = True``, ``backends.mps.is_available()``).
tensorplay runs on NumPy on the CPU: no accelerator backend is available, and
the cuDNN flags are accepted and have no effect."""
from . import cudnn, mps  # noqa: F401

__all__ = ["cudnn", "mps"]
