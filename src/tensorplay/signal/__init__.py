"""tensorplay.signal (``torch.signal``): ``windows``, the window functions of
``scipy.signal.windows`` as PyTorch has them."""
from . import windows  # noqa: F401

__all__ = ["windows"]
