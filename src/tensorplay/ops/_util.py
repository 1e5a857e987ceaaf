"""Argument helpers shared by op kernels."""
from .._tensor import _wrap_dim


def dims_arg(dim, ndim):
    """Normalise ``dim`` (None, int, or sequence) to a sorted tuple of
    non-negative axes, or None for "all"."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        axes = tuple(sorted(_wrap_dim(d, ndim) for d in dim))
        if len(set(axes)) != len(axes):
            raise RuntimeError(f"dim {axes[0]} appears multiple times in the list of dims")
        return axes
    return (_wrap_dim(dim, ndim),)


def size_arg(size):
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean shape (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    out = []
    for s in size:
        try:
            out.append(int(s.__index__()))
        except (AttributeError, TypeError):
            raise TypeError(f"expected a sequence of integers as size, but got element of type "
                            f"{type(s).__name__}") from None
    return tuple(out)
