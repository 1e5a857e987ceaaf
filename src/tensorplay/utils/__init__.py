"""``tensorplay.utils``: helpers that mirror ``torch.utils``."""
from . import dlpack  # noqa: F401
from . import benchmark  # noqa: F401
