"""tensorplay.nn: ``Parameter`` and ``functional`` (more of nn arrives with later issues)."""
from .parameter import Parameter  # noqa: F401
from . import functional  # noqa: F401

__all__ = ["Parameter"]
