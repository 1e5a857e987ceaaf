"""``tensorplay.linalg``: PyTorch's ``torch.linalg`` functions that tensorplay
has.  Each works on the last two dimensions (matrices) or on the given ones,
with any leading batch dimensions, and is differentiable (twice and more).

Not here yet (each an AttributeError): the decompositions (``svd``, ``qr``,
``eigh``, ``eig``, ``cholesky``, ``lu`` and their kin), so also the matrix norms
that need singular values (``ord`` 2, -2, ``'nuc'``), ``pinv``, ``lstsq``,
``matrix_rank``, ``cond`` and ``matrix_exp``.
"""
import math

from .ops import matrices as _m
from .ops.linalg import cross as _cross
from .ops.reduction import _vector_norm, norm as _norm, _return_type
from .ops.core import matmul as _matmul
from .ops.shape import diagonal as _diagonal
from ._tensor import Tensor as _Tensor

__all__ = ["LinAlgError", "cross", "det", "diagonal", "inv", "matmul", "matrix_norm", "matrix_power",
           "multi_dot", "norm", "slogdet", "solve", "vecdot", "vector_norm"]

LinAlgError = _m.LinAlgError
det = _m.det
matrix_power = _m.matrix_power
_slogdet_rt = _return_type("linalg_slogdet", ("sign", "logabsdet"))


def inv(A, *, out=None):
    """The inverse of each square matrix; ``LinAlgError`` for a singular one."""
    return _m.inverse(A, out=out)


def slogdet(A):
    """``(sign, logabsdet)`` of each square matrix."""
    return _slogdet_rt(*_m._slogdet_op(A))


def solve(A, B, *, left=True):
    """``X`` with ``A X = B`` (``X A = B`` when ``left=False``).  ``B`` is a batch of
    vectors when it has one dimension fewer than ``A`` and ``A``'s shape without
    its last dimension (or is 1-d)."""
    if A.dtype != B.dtype:
        from .ops._util import _tname
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of "
                           f"type {_tname(A._data.dtype)} and B of type {_tname(B._data.dtype)} instead")
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if not left:
        if vector:                  # (a vector is a column: X A = B has no such B)
            n = A.shape[-1]
            raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                               f"XA = B ({n}x{n} and {B.shape[-1]}x1)")
        return solve(A.mT, B.mT).mT
    if vector:
        return _m.solve(A, B.unsqueeze(-1)).squeeze(-1)
    return _m.solve(A, B)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The ``ord``-norm of ``x`` flattened, or over ``dim``."""
    if not (x.is_floating_point() or x.is_complex()):
        from .ops._util import _tname
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_tname(x._data.dtype)}")
    if dtype is not None:
        x = x.to(dtype)
    return _vector_norm(x, float(ord), dim, keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """``'fro'``, or the largest (``ord`` 1, inf) or smallest (-1, -inf) absolute
    column (1) or row (inf) sum of each matrix over ``dim``."""
    if dtype is not None:
        A = A.to(dtype)
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if ord == "fro":
        return _vector_norm(A, 2.0, dim, keepdim)
    if ord in (1, -1, math.inf, -math.inf):
        rows, cols = dim
        summed = A.abs().sum(rows if abs(ord) == 1 else cols, keepdim=True)
        r = summed.amax((rows, cols), keepdim=True) if ord > 0 else summed.amin((rows, cols), keepdim=True)
        return r if keepdim else r.squeeze((rows, cols))
    if ord in (2, -2, "nuc"):
        raise NotImplementedError(f"linalg.matrix_norm: ord={ord!r} needs singular values, which "
                                  f"tensorplay does not compute yet (no linalg.svd)")
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """``vector_norm`` or ``matrix_norm`` as PyTorch picks: by ``dim`` (an int:
    vector, a pair: matrix), else by the input's dimensions (2-norm of all
    elements without ``ord``)."""
    if dim is not None:
        if isinstance(dim, int) or len(dim) == 1:
            return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if A.dim() == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    if A.dim() == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or "
                       f"2D. Got {A.dim()}D.")


def vecdot(x, y, *, dim=-1):
    """``sum(conj(x) * y)`` over ``dim``."""
    return (x.conj() * y).sum(dim)


def multi_dot(tensors):
    """The product of matrices (the first and last may be vectors), left to right."""
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    r = tensors[0]
    for t in tensors[1:]:
        r = r @ t
    return r


def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along ``dim`` (broadcasting the rest)."""
    return _cross(input, other, dim)


def matmul(input, other):
    return _matmul(input, other)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return _diagonal(A, offset, dim1, dim2)
