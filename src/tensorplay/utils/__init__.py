"""``tensorplay.utils``: helpers that mirror ``torch.utils``."""
from . import dlpack  # noqa: F401
