"""tensorplay.nn: ``Parameter`` (more of nn arrives with later issues)."""
from .parameter import Parameter  # noqa: F401
