"""Argument helpers shared by op kernels (the factories below the ops use them
too, so they live with the Tensor)."""
from .._tensor import _wrap_dim, dims_arg, size_arg  # noqa: F401
