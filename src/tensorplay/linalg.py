"""``tensorplay.linalg``: PyTorch's ``torch.linalg`` functions that tensorplay
has.  Each works on the last two dimensions (matrices) or on the given ones,
with any leading batch dimensions, and is differentiable (twice and more).

The decompositions (ops/decompositions.py): ``cholesky`` and ``cholesky_ex``,
``eigh`` and ``eigvalsh``, ``svd`` and ``svdvals``, ``qr``, ``solve_triangular``
and ``pinv``; built on them, the matrix norms of singular values (``ord`` 2, -2,
``'nuc'``), ``cond`` and ``matrix_rank``.  Eigenvectors and singular vectors
are defined up to sign (phase): a loss that depends on the phase of complex
ones is refused in backward, as PyTorch does.

More (ops/linalg_more.py): ``matrix_exp`` (also ``tp.matrix_exp`` and
``Tensor.matrix_exp``); the LU family, ``lu_factor``/``lu_factor_ex`` (LAPACK's
getrf pivots), ``lu``, ``lu_solve`` (and ``tp.lu_unpack``); ``eig`` and
``eigvals`` (complex, for real input too, as PyTorch); ``inv_ex`` and
``solve_ex``; ``lstsq`` with PyTorch's CPU drivers; and ``householder_product``
(written in tensorplay ops here).
"""
import math as _math

import numpy as _np

from .ops import matrices as _m
from .ops import decompositions as _dec
from .ops import linalg_more as _lm
from .ops import factorizations as _fz
from .ops.linalg import cross as _cross
from .ops._registry import autocast_inputs as _autocast_inputs
from .ops.reduction import _vector_norm, norm as _norm, _return_type
from .ops.core import matmul as _matmul
from .ops.shape import diagonal as _diagonal
from ._tensor import Tensor as _Tensor, _wrap
from ._creation import eye as _eye, full as _full
from .ops.pointwise import maximum as _maximum
from .ops._util import _tname
from .ops.pointwise import where as _where
from . import _dtype as _tp

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals",
           "eigvalsh", "householder_product", "inv", "inv_ex", "lstsq", "lu", "lu_factor", "lu_factor_ex",
           "lu_solve", "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm",
           "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "vecdot",
           "vector_norm", "ldl_factor", "ldl_factor_ex", "ldl_solve", "tensorinv", "tensorsolve"]

LinAlgError = _m.LinAlgError
_slogdet_rt = _return_type("linalg_slogdet", ("sign", "logabsdet"))
_eigh_rt = _return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
_svd_rt = _return_type("linalg_svd", ("U", "S", "Vh"))
_qr_rt = _return_type("linalg_qr", ("Q", "R"))
_cholesky_ex_rt = _return_type("linalg_cholesky_ex", ("L", "info"))
_lu_factor_rt = _return_type("linalg_lu_factor", ("LU", "pivots"))
_lu_factor_ex_rt = _return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_lu_rt = _return_type("linalg_lu", ("P", "L", "U"))
_eig_rt = _return_type("linalg_eig", ("eigenvalues", "eigenvectors"))
_lstsq_rt = _return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
_inv_ex_rt = _return_type("linalg_inv_ex", ("inverse", "info"))
_solve_ex_rt = _return_type("linalg_solve_ex", ("result", "info"))


# ---- out=: PyTorch's forms, names and dtype rules for torch.linalg (the writing: _out.py)
_EXPECTED = "Expected out tensor to have dtype {rc}, but got {oc} instead"
_OUT_RTS = {}


def _out_form(name, out, n, pos=1):
    """PyTorch's TypeError for an ``out`` of the wrong kind: a Tensor for one result,
    a tuple (or list) of ``n`` Tensors for ``n``; ``pos``: out's position in the
    signature (for the element error)."""
    if n == 1:
        if not isinstance(out, _Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
        return
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
    if len(out) != n:
        raise TypeError(f"expected tuple of {n} elements but got {len(out)}")
    for i, o in enumerate(out):
        if not isinstance(o, _Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {pos}, but got {type(o).__name__}")


def _castable(rd, od):
    return _tp._FROM_NP[rd].category <= _tp._FROM_NP[od].category


def _dtype_msg(rule, rd, od):
    """The message when ``out``'s dtype breaks ``rule`` (None if it does not):
    ``None``: any dtype the result casts to; ``"exact"`` or a format string: the
    result's dtype (PyTorch's words); ``("cast", fname, what)``: a dtype the result
    casts to safely."""
    from ._out import _title
    if isinstance(rule, tuple):
        if _castable(rd, od):
            return None
        return (f"{rule[1]}: Expected {rule[2]} to be safely castable from {_title(rd)} dtype, but got "
                f"{rule[2]} with dtype {_title(od)}")
    if rule is None or rd == od:
        return None
    fmt = _EXPECTED if rule == "exact" else rule
    return fmt.format(rc=_tp.CPP_NAMES[rd.name], oc=_tp.CPP_NAMES[od.name], r=_title(rd), o=_title(od))


def _write(name, result, out, grad_name, rules, args=()):
    """``result`` (a Tensor or a named tuple) written into ``out`` as PyTorch's
    ``torch.linalg`` does: refused when anything requires grad (PyTorch names the
    op that refuses: ``grad_name``), or when an ``out``'s dtype breaks its rule
    (``_dtype_msg``); the named tuple of ``out``s for several results."""
    from ._autograd.grad_mode import state
    from ._out import write_out
    results = tuple(result) if isinstance(result, tuple) else (result,)
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if state.enabled and (any(r._rg for r in results) or any(o._rg for o in outs)):
        raise RuntimeError(f"{grad_name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    if isinstance(rules, (str, type(None))) or (isinstance(rules, tuple) and rules and rules[0] == "cast"):
        rules = (rules,) * len(results)
    for r, o, rule in zip(results, outs, rules):
        msg = _dtype_msg(rule, r._data.dtype, o._data.dtype)
        if msg is not None:
            raise RuntimeError(msg)
    write_out(name, results if len(results) > 1 else results[0], outs if len(outs) > 1 else outs[0], args)
    if len(results) == 1:
        return out
    kind = type(result)
    rt = _OUT_RTS.get(kind)
    if rt is None:
        rt = _OUT_RTS[kind] = _return_type(kind.__name__ + "_out", kind._fields)
    return rt(*outs)


def _copy_into(name, result, out, rule):
    """``out.copy_(result)``, resized first: PyTorch's composite functions (``norm``,
    ``cond``, ...) write so, and ``out`` then has ``result``'s gradient."""
    from ._autograd.grad_mode import state
    from ._out import write_out
    if state.enabled and out._rg and out.is_leaf:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    msg = _dtype_msg(rule, result._data.dtype, out._data.dtype)
    if msg is not None:
        raise RuntimeError(msg)
    write_out(name, result.detach(), out)
    if state.enabled and result._rg:
        out.copy_(result)
    return out


def matrix_exp(input):
    """The exponential of each square matrix (``torch.linalg.matrix_exp`` takes no ``out``)."""
    return _lm.matrix_exp(input)


def det(A, *, out=None):
    """The determinant of each square matrix."""
    if out is not None:
        _out_form("linalg_det", out, 1)
        return _write("linalg_det", _m.det(A), out, "_linalg_det", "exact", (A,))
    return _m.det(A)


def matrix_power(input, n, *, out=None):
    """The ``n``-th power of each square matrix (its inverse's for negative ``n``); the
    identity for ``n = 0``."""
    if out is not None:
        _out_form("linalg_matrix_power", out, 1)
        r = _m.matrix_power(input, n)
        n = int(n.item() if isinstance(n, _Tensor) else n)
        if n in (0, 1):                 # (PyTorch copies: n = 1 with a gradient, n = 0 without)
            return _copy_into("linalg_matrix_power", r.detach() if n == 0 else r, out,
                              ("cast", "matrix_power", "result"))
        return _write("linalg_matrix_power", r, out, "linalg_inv_ex" if n < 0 else "matmul", "exact", (input,))
    return _m.matrix_power(input, n)


def inv(A, *, out=None):
    """The inverse of each square matrix; ``LinAlgError`` for a singular one."""
    if out is not None:
        _out_form("linalg_inv", out, 1)
        return _write("linalg_inv", _m.inverse(A), out, "linalg_inv_ex", "exact", (A,))
    return _m.inverse(A)


def slogdet(A, *, out=None):
    """``(sign, logabsdet)`` of each square matrix."""
    if out is not None:
        _out_form("linalg_slogdet", out, 2)
        return _write("linalg_slogdet", slogdet(A), out, "_linalg_slogdet", "exact", (A,))
    return _slogdet_rt(*_m._slogdet_op(A))


def solve(A, B, *, left=True, out=None):
    """``X`` with ``A X = B`` (``X A = B`` when ``left=False``).  ``B`` is a batch of
    vectors when it has one dimension fewer than ``A`` and ``A``'s shape without
    its last dimension (or is 1-d)."""
    if out is not None:
        _out_form("linalg_solve", out, 1)
        return _write("linalg_solve", solve(A, B, left=left), out, "_linalg_solve_ex", "exact", (A, B))
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


def _norm_dtype(fname, x, dtype):
    """``x`` in ``dtype`` as the norms take it (PyTorch's checks and words)."""
    if dtype is None:
        return x
    from ._out import _title
    dt = _tp.to_dtype(dtype)
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"{fname}: dtype should be floating point or complex, but got {_title(dt)}")
    if x.is_complex() and not dt.is_complex:
        raise RuntimeError(f"{fname}: dtype should be complex for complex inputs, but got {_title(dt)}")
    if not x.is_complex() and dt.is_complex:
        raise RuntimeError(f"{fname}: dtype should be real for real inputs, but got {_title(dt)}")
    if _tp.promote_types(x.dtype, dt) != dt:
        raise RuntimeError(f"{fname}: the dtype of the input ({_title(x.dtype)}) should be convertible "
                           f"without narrowing to the specified dtype ({_title(dt)})")
    return x.to(dt)


def _float_input(fname, x):
    if not (x.is_floating_point() or x.is_complex()):
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got "
                           f"{_tname(x._data.dtype)}")


def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The ``ord``-norm of ``input`` flattened, or over ``dim``."""
    if isinstance(ord, _Tensor):
        ord = ord.item()
    if isinstance(ord, (str, type(None))) or not isinstance(ord, (int, float, complex, _np.number)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not {type(ord).__name__}")
    if isinstance(ord, (complex, _np.complexfloating)):
        raise RuntimeError("linalg.vector_norm: Expected a non-complex scalar as the order of norm.")
    if out is not None:
        _out_form("linalg_vector_norm", out, 1)
        r = vector_norm(input, ord, dim, keepdim, dtype=dtype)
        return _write("linalg_vector_norm", r, out, "linalg_vector_norm", "exact", (input,))
    _float_input("linalg.vector_norm", input)
    x = _norm_dtype("linalg.vector_norm", input, dtype)
    return _vector_norm(x, float(ord), dim, keepdim)


def _matrix_dims(A, dim):
    """``dim`` as two different dimensions of ``A`` (PyTorch's checks)."""
    if isinstance(dim, (int, _np.integer)):
        raise TypeError(f"linalg_matrix_norm(): argument 'dim' must be tuple of ints, not {type(dim).__name__}")
    dim = tuple(dim)
    if len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got " + " ".join(str(d) for d in dim))
    nd = A.dim()
    for d in dim:
        if not -nd <= d < nd:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {d})")
    rows, cols = (d % nd for d in dim)
    if rows == cols:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({rows}, {cols})")
    return rows, cols


def matrix_norm(input, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """``'fro'``, or the largest (``ord`` 1, inf) or smallest (-1, -inf) absolute
    column (1) or row (inf) sum of each matrix over ``dim``."""
    if out is not None:
        _out_form("linalg_matrix_norm", out, 1)
        r = matrix_norm(input, ord, dim, keepdim, dtype=dtype)
        return _copy_into("linalg_matrix_norm", r, out, "linalg.matrix_norm expected out tensor dtype {r} but got: {o}")
    A = input
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    _float_input("linalg.matrix_norm", A)
    dim = _matrix_dims(A, dim)
    A = _norm_dtype("linalg.matrix_norm", A, dtype)
    if ord == "fro":
        return _vector_norm(A, 2.0, dim, keepdim)
    if ord in (1, -1, _math.inf, -_math.inf):
        rows, cols = dim
        summed = A.abs().sum(rows if abs(ord) == 1 else cols, keepdim=True)
        r = summed.amax((rows, cols), keepdim=True) if ord > 0 else summed.amin((rows, cols), keepdim=True)
        return r if keepdim else r.squeeze((rows, cols))
    if ord in (2, -2, "nuc"):
        return _svd_norm(A, ord, dim, keepdim)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def _svd_norm(A, ord, dim, keepdim):
    """The largest (``ord`` 2) or smallest (-2) singular value, or their sum
    (``'nuc'``), of each matrix over ``dim``."""
    if A.dtype in (_tp.float16, _tp.bfloat16):
        raise RuntimeError(f"linalg.matrix_norm: Low precision dtypes not supported. Got "
                           f"{_tname(A._data.dtype)}")
    if not (A.is_floating_point() or A.is_complex()):
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. "
                           f"Got {_tname(A._data.dtype)}")
    nd = A.dim()
    rows, cols = (d % nd for d in dim)
    s = svdvals(A.movedim((rows, cols), (-2, -1)))
    if ord == "nuc":
        r = s.sum(-1)
    elif s.shape[-1] == 0:                  # (an empty matrix: 0 for ord 2, as PyTorch)
        if ord == -2:
            raise IndexError("amin(): Expected reduction dim -1 to have non-zero size.")
        r = s.new_zeros(tuple(s.shape[:-1]))
    else:
        r = s.amax(-1) if ord == 2 else s.amin(-1)
    if keepdim:
        for d in sorted((rows, cols)):
            r = r.unsqueeze(d)
    return r


def norm(input, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """``vector_norm`` or ``matrix_norm`` as PyTorch picks: by ``dim`` (an int:
    vector, a pair: matrix), else by the input's dimensions (2-norm of all
    elements without ``ord``); a string ``ord`` is a matrix norm's."""
    if out is not None:
        _out_form("linalg_norm", out, 1)
        r = norm(input, ord, dim, keepdim, dtype=dtype)
        return _copy_into("linalg_norm", r, out, "linalg.norm expected out tensor dtype {r} but got: {o}")
    A = input
    if dim is not None:
        dims = (dim,) if isinstance(dim, (int, _np.integer)) else tuple(dim)
        if len(dims) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dims)}")
        if isinstance(ord, str) or len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if A.dim() > 2:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or "
                           f"2D. Got {A.dim()}D.")
    if A.dim() == 1 and not isinstance(ord, str):
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)


def vecdot(x, y, *, dim=-1, out=None):
    """``sum(conj(x) * y)`` over ``dim``."""
    if out is not None:
        _out_form("linalg_vecdot", out, 1)
        return _write("linalg_vecdot", vecdot(x, y, dim=dim), out, "sum",
                      "linalg.vecdot: Expected out of dtype{r} but found {o}", (x, y))
    x, y = _autocast_inputs("linalg_vecdot", x, y)
    _float_input("linalg.vecdot", x)
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_tname(x._data.dtype)} and y of type {_tname(y._data.dtype)} instead")
    return (x.conj() * y).sum(dim)


def multi_dot(tensors, *, out=None):
    """The product of matrices (the first and last may be vectors), left to right."""
    if out is not None:
        _out_form("linalg_multi_dot", out, 1)
        return _write("linalg_multi_dot", multi_dot(tensors), out, "mm",
                      "multi_dot(): expected out tensor to have dtype {rc} but got {oc}", tuple(tensors))
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for t, which in ((tensors[0], "first"), (tensors[-1], "last")):
        if t.dim() not in (1, 2):
            raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got {t.dim()}D")
    for i in range(1, n - 1):
        if tensors[i].dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].dim()}D")
    dt = tensors[0]._data.dtype
    shapes = [tuple(t.shape) for t in tensors]
    rows = [(1,) + shapes[0] if len(shapes[0]) == 1 else shapes[0]] + shapes[1:-1] + \
        [shapes[-1] + (1,) if len(shapes[-1]) == 1 and n > 1 else shapes[-1]]
    for i in range(1, n):
        if tensors[i]._data.dtype != dt:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_tp.CPP_NAMES[dt.name]} and tensor {i} {_tp.CPP_NAMES[tensors[i]._data.dtype.name]}")
        if rows[i - 1][-1] != rows[i][0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes {list(shapes[i - 1])} and "
                               f"{list(shapes[i])} cannot be multiplied")
    r = tensors[0]
    for t in tensors[1:]:
        r = r @ t
    return r


def cross(input, other, *, dim=-1, out=None):
    """The cross product of 3-vectors along ``dim`` (broadcasting the rest)."""
    if out is not None:
        _out_form("linalg_cross", out, 1)
        return _write("linalg_cross", _cross(input, other, dim), out, "linalg_cross", "exact", (input, other))
    return _cross(input, other, dim)


def matmul(input, other, *, out=None):
    """The matrix product (``tensorplay.matmul``)."""
    if out is not None:
        _out_form("linalg_matmul", out, 1)
        return _write("linalg_matmul", _matmul(input, other), out, "matmul", "exact", (input, other))
    return _matmul(input, other)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return _diagonal(A, offset, dim1, dim2)


def cholesky(input, *, upper=False, out=None):
    """``L`` (lower triangular, ``A = L L^H``) of each Hermitian positive-definite
    matrix, or ``U = L^H`` with ``upper=True``; only that triangle of ``A`` is read.
    ``LinAlgError`` for a matrix that is not positive-definite."""
    if out is not None:
        _out_form("linalg_cholesky", out, 1)
        r = cholesky(input, upper=upper)
        return _write("linalg_cholesky", r, out, "linalg_cholesky_ex", "exact", (input,))
    return _dec.cholesky(input, upper=upper)


def cholesky_ex(input, *, upper=False, check_errors=False, out=None):
    """``(L, info)``: ``cholesky`` without the error (``info``, int32 per matrix, is
    the order of the first leading minor that is not positive-definite, 0 if
    none; ``L`` then holds LAPACK's partial factorization).  ``check_errors``
    raises instead."""
    if out is not None:
        _out_form("linalg_cholesky_ex", out, 2, 3)
        r = cholesky_ex(input, upper=upper, check_errors=check_errors)
        return _write("linalg_cholesky_ex", r, out, "linalg_cholesky_ex", "exact", (input,))
    return _cholesky_ex_rt(*_dec.cholesky_ex(input, upper=upper, check_errors=check_errors))


def eigh(input, UPLO="L", *, out=None):
    """``(eigenvalues, eigenvectors)`` of each Hermitian matrix (ascending
    eigenvalues; only the ``UPLO`` triangle of ``input`` is read)."""
    if out is not None:
        _out_form("linalg_eigh", out, 2, 2)
        return _write("linalg_eigh", eigh(input, UPLO), out, "_linalg_eigh", "exact", (input,))
    return _eigh_rt(*_dec._eigh(input, UPLO))


def eigvalsh(input, UPLO="L", *, out=None):
    """The eigenvalues of each Hermitian matrix, ascending."""
    if out is not None:
        _out_form("linalg_eigvalsh", out, 1)
        return _write("linalg_eigvalsh", eigvalsh(input, UPLO), out, "_linalg_eigh", "exact", (input,))
    return _dec._eigh(input, UPLO)[0]


def _no_driver(driver):
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs "
                           "with cuSOLVER backend.")


def svd(A, full_matrices=True, *, driver=None, out=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh`` (singular values descending)."""
    if out is not None:
        _out_form("linalg_svd", out, 3, 3)
        return _write("linalg_svd", svd(A, full_matrices, driver=driver), out, "_linalg_svd", "exact", (A,))
    _no_driver(driver)
    return _svd_rt(*_dec._svd(A, full_matrices))


def svdvals(A, *, driver=None, out=None):
    """The singular values of each matrix, descending."""
    if out is not None:
        _out_form("linalg_svdvals", out, 1)
        return _write("linalg_svdvals", svdvals(A, driver=driver), out, "_linalg_svd", "exact", (A,))
    _no_driver(driver)
    return _dec._svd(A, False)[1]


def solve_triangular(input, B, *, upper=None, left=True, unitriangular=False, out=None):
    """``X`` with ``A X = B`` (``X A = B`` when ``left=False``) for triangular ``A``
    (only its ``upper`` or lower triangle is read; a diagonal of ones with
    ``unitriangular``).  The result has ``A``'s dtype (``B`` is converted to
    it, as PyTorch does)."""
    if upper is None:
        raise TypeError('linalg_solve_triangular() missing 1 required positional arguments: "upper"')
    if out is not None:
        _out_form("linalg_solve_triangular", out, 1)
        r = solve_triangular(input, B, upper=upper, left=left, unitriangular=unitriangular)
        return _write("linalg_solve_triangular", r, out, "linalg_solve_triangular",
                      "expected scalar type {r} but found {o}", (input, B))
    A = input
    if isinstance(B, _Tensor) and isinstance(A, _Tensor) and B.dtype != A.dtype and \
            A.dtype.is_floating_point | A.dtype.is_complex:
        B = B.to(A.dtype)
    return _dec.solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)


def qr(A, mode="reduced", *, out=None):
    """``(Q, R)`` with ``A = Q R``, ``Q`` with orthonormal columns and ``R`` upper
    triangular: ``mode='reduced'`` (``k = min(m, n)`` columns of ``Q``),
    ``'complete'`` (square ``Q``) or ``'r'`` (``R`` only; ``Q`` empty)."""
    if out is not None:
        _out_form("linalg_qr", out, 2, 2)
        return _write("linalg_qr", qr(A, mode), out, "linalg_qr", "exact", (A,))
    return _qr_rt(*_dec._qr(A, mode))


def cond(input, p=None, *, out=None):
    """The condition number of each matrix in the ``p`` norm: ``S_max / S_min``
    for ``p`` None or 2 (``S_min / S_max`` for -2, any shape), else
    ``norm(A, p) * norm(inv(A), p)`` of square matrices (``inf`` for a singular
    one, as PyTorch)."""
    if out is not None:
        _out_form("linalg_cond", out, 1)
        return _copy_into("linalg_cond", cond(input, p), out, ("cast", "linalg.cond", "result"))
    A = input
    if p not in (None, 2, -2, "fro", "nuc", 1, -1, _math.inf, -_math.inf):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p in (None, 2, -2):
        if A.numel() == 0:
            return _no_matrices(A)
        s = svdvals(A)
        big, small = s.narrow(-1, 0, 1), s.narrow(-1, s.shape[-1] - 1, 1)
        return (small / big if p == -2 else big / small).squeeze(-1)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if A.numel() == 0:
        return _no_matrices(A)
    try:
        return matrix_norm(A, p) * matrix_norm(inv(A), p)
    except LinAlgError:
        if type(A) is not _Tensor:          # (a vmap stand-in: no values to look at)
            raise
    singular = _singular_mask(A)
    # a singular matrix's condition number is inf: invert the others (the singular ones
    # replaced by the identity, which gets no gradient)
    safe = _where(singular.unsqueeze(-1).unsqueeze(-1), _eye(A.shape[-1], dtype=A.dtype), A)
    r = matrix_norm(safe, p) * matrix_norm(inv(safe), p)
    return _where(singular, _math.inf, r)


def _no_matrices(A):
    """cond of empty matrices (or none): zeros, without a gradient, as PyTorch."""
    d = A.detach()
    return (d.abs() if d.is_complex() else d).new_zeros(tuple(A.shape[:-2]))


def _singular_mask(A):
    """Which matrices of ``A`` LAPACK's LU finds singular."""
    d = A.detach()._data
    flat = d.reshape((-1,) + d.shape[-2:])
    bad = _np.zeros(len(flat), bool)
    for i, m in enumerate(flat):
        try:
            _np.linalg.inv(m)
        except _np.linalg.LinAlgError:
            bad[i] = True
    return _wrap(bad.reshape(d.shape[:-2]))


def matrix_rank(input, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """The number of singular values (absolute eigenvalues with ``hermitian``)
    above ``max(atol, rtol * largest)`` (the defaults as ``pinv``'s); ``tol`` is
    the older spelling of ``atol`` (with ``rtol`` 0)."""
    if out is not None:
        _out_form("linalg_matrix_rank", out, 1)
        r = matrix_rank(input, tol, hermitian, atol=atol, rtol=rtol)
        return _copy_into("linalg_matrix_rank", r, out, ("cast", "torch.linalg.matrix_rank", "result"))
    A = input
    if A.dtype not in (_tp.float32, _tp.float64, _tp.complex64, _tp.complex128):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 "
                           "dimensions.")
    if tol is not None:
        atol, rtol = tol, 0.0
    d = A.detach()
    s = eigvalsh(d).abs() if hermitian else svdvals(d)
    if s.shape[-1] == 0:
        return s.new_zeros(tuple(s.shape[:-1])).long()
    s_max = s.amax(-1, keepdim=True)
    eps = float(_np.finfo(s._data.dtype).eps) * max(A.shape[-2], A.shape[-1])
    if isinstance(atol, _Tensor) and atol.dim():
        atol = atol.unsqueeze(-1)
    if isinstance(rtol, _Tensor) and rtol.dim():
        rtol = rtol.unsqueeze(-1)
    if rtol is None:        # (PyTorch's default: eps * max(m, n), or 0 where atol > 0)
        rtol = eps if atol is None else _where(_as_tensor(atol, s) > 0, 0.0, eps)
    t = _as_tensor(rtol, s) * s_max
    if atol is not None:
        t = _maximum(t, _as_tensor(atol, s))
    return (s > t).sum(-1)


def _as_tensor(v, like):
    return v.to(like.dtype) if isinstance(v, _Tensor) else _full((), float(v), dtype=like.dtype)


def pinv(input, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """The Moore-Penrose pseudo-inverse of each matrix, from its SVD (its
    eigendecomposition with ``hermitian``): singular values at most
    ``max(atol, rtol * largest)`` count as zero (``rtol`` defaults to
    ``eps * max(m, n)``, or 0 with a positive ``atol``).  ``rcond`` is the older
    spelling of ``rtol``.  Its gradient is the constant-rank one, as PyTorch's."""
    if out is not None:
        _out_form("linalg_pinv", out, 1)
        r = pinv(input, rcond, hermitian, atol=atol, rtol=rtol)
        return _write("linalg_pinv", r, out, "linalg_pinv", ("cast", "linalg.pinv", "result"), (input,))
    if rcond is not None:
        rtol = rcond
    return _dec.pinv(input, atol=_tol_array(atol), rtol=_tol_array(rtol), hermitian=bool(hermitian))


def _tol_array(t):
    """A tolerance as the kernel takes it: a number, or a tensor's values (one per
    matrix of the batch, broadcast)."""
    return t.detach().numpy() if isinstance(t, _Tensor) else t

def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """``(LU, pivots, info)``: the LU factorization with partial pivoting of each
    matrix, packed as LAPACK's getrf (``L``'s unit diagonal implied), its 1-based
    row interchanges (int32) and ``info`` (int32 per matrix: the first column,
    1-based, whose pivot is zero, 0 if none); ``check_errors`` raises instead."""
    if out is not None:
        _out_form("linalg_lu_factor_ex", out, 3, 3)
        r = lu_factor_ex(A, pivot=pivot, check_errors=check_errors)
        return _write("linalg_lu_factor_ex", r, out, "linalg_lu_factor_ex", "exact", (A,))
    return _lu_factor_ex_rt(*_lm.lu_factor_ex(A, pivot=pivot, check_errors=check_errors))


def lu_factor(A, *, pivot=True, out=None):
    """``(LU, pivots)`` as ``lu_factor_ex``; a matrix with a zero pivot is refused."""
    if out is not None:
        _out_form("linalg_lu_factor", out, 2, 2)
        return _write("linalg_lu_factor", lu_factor(A, pivot=pivot), out, "linalg_lu_factor_ex", "exact", (A,))
    if not isinstance(pivot, (bool, _np.bool_)):
        raise TypeError(f"linalg_lu_factor(): argument 'pivot' must be bool, not {type(pivot).__name__}")
    LU, piv, info = _lm.lu_factor_ex(A, pivot=pivot)
    if type(info) is _Tensor:               # (a vmap stand-in has no values to look at)
        _lm._lu_raise("lu_factor", info._data)
    return _lu_factor_rt(LU, piv)


def lu(A, *, pivot=True, out=None):
    """``(P, L, U)`` with ``A = P L U``: ``P`` a permutation matrix, ``L`` (m x k) unit
    lower triangular, ``U`` (k x n) upper triangular, ``k = min(m, n)``."""
    if out is not None:
        _out_form("linalg_lu", out, 3, 2)
        return _write("linalg_lu", lu(A, pivot=pivot), out, "linalg_lu", "exact", (A,))
    return _lu_rt(*_lm.lu(A, pivot=pivot))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """``X`` with ``A X = B`` from ``lu_factor``'s ``(LU, pivots)`` of ``A`` (``X A = B``
    when ``left=False``; ``A^H`` for ``A`` with ``adjoint=True``)."""
    if out is not None:
        _out_form("linalg_lu_solve", out, 1)
        r = lu_solve(LU, pivots, B, left=left, adjoint=adjoint)
        return _write("linalg_lu_solve", r, out, "linalg_lu_solve", "exact", (LU, pivots, B))
    return _lm.lu_solve(LU, pivots, B, left=left, adjoint=adjoint)


def _ex_info(A):
    """``lu_factor_ex``'s ``(LU, pivots, info)`` of ``A``, and whether every matrix
    is known to be invertible (False for a vmap stand-in, whose values cannot be
    read: the LU path is then taken, which is right either way)."""
    LU, piv, info = _lm.lu_factor_ex(A)
    plain = type(info) is _Tensor
    return LU, piv, info, plain and not bool((info._data != 0).any())


def inv_ex(A, *, check_errors=False, out=None):
    """``(inverse, info)``: ``inv`` without the error (``info``, int32 per matrix, is
    the first zero pivot of its LU factorization, 1-based, 0 if none; a singular
    matrix's inverse holds inf/NaN); ``check_errors`` raises instead."""
    if not isinstance(check_errors, (bool, _np.bool_)):
        raise TypeError(f"linalg_inv_ex(): argument 'check_errors' must be bool, not "
                        f"{type(check_errors).__name__}")
    if out is not None:
        _out_form("linalg_inv_ex", out, 2, 2)
        return _write("linalg_inv_ex", inv_ex(A, check_errors=check_errors), out, "linalg_inv_ex", "exact", (A,))
    _m._square("inv", A._data)
    LU, piv, info, regular = _ex_info(A)
    if regular:
        return _inv_ex_rt(inv(A), info)
    if check_errors and type(info) is _Tensor:
        flat = info._data.reshape(-1)
        i = int(_np.flatnonzero(flat)[0])
        where_ = f"(Batch element {i}): " if info.dim() else ""
        raise LinAlgError(f"linalg.inv_ex: {where_}The diagonal element {int(flat[i])} is zero, the inversion "
                          f"could not be completed because the input matrix is singular.")
    n = A.shape[-1]
    return _inv_ex_rt(_lm.lu_solve(LU, piv, _eye(n, dtype=A.dtype).expand(tuple(A.shape))), info)


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """``(result, info)``: ``solve`` without the error (``info`` as ``inv_ex``'s; a
    singular matrix's solution holds inf/NaN); ``check_errors`` raises instead."""
    if not isinstance(check_errors, (bool, _np.bool_)):
        raise TypeError(f"linalg_solve_ex(): argument 'check_errors' must be bool, not "
                        f"{type(check_errors).__name__}")
    if out is not None:
        _out_form("linalg_solve_ex", out, 2, 4)
        r = solve_ex(A, B, left=left, check_errors=check_errors)
        return _write("linalg_solve_ex", r, out, "_linalg_solve_ex", "exact", (A, B))
    if A.dtype != B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of "
                           f"type {_tname(A._data.dtype)} and B of type {_tname(B._data.dtype)} instead")
    LU, piv, info, regular = _ex_info(A)
    if regular:
        return _solve_ex_rt(solve(A, B, left=left), info)
    if check_errors and type(info) is _Tensor:
        raise LinAlgError("torch.linalg.solve_ex: The solver failed because the input matrix is singular.")
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if vector:
        if not left:
            solve(A, B, left=left)              # (its error)
        return _solve_ex_rt(_lm.lu_solve(LU, piv, B.unsqueeze(-1)).squeeze(-1), info)
    return _solve_ex_rt(_lm.lu_solve(LU, piv, B, left=left), info)


def eig(input, *, out=None):
    """``(eigenvalues, eigenvectors)`` of each square matrix, complex (also for a
    real input), in LAPACK's order; each eigenvector has norm 1 and its largest
    component real.  A loss that depends on the eigenvectors' phases is refused
    in backward (PyTorch's error)."""
    if out is not None:
        _out_form("linalg_eig", out, 2, 1)
        return _write("linalg_eig", eig(input), out, "linalg_eig",
                      (("cast", "torch.linalg.eig", "eigenvalues"), ("cast", "torch.linalg.eig", "eigenvectors")),
                      (input,))
    return _eig_rt(*_lm.eig(input))


def eigvals(input, *, out=None):
    """The eigenvalues of each square matrix, complex, in ``eig``'s order."""
    if out is not None:
        from ._autograd.grad_mode import state
        _out_form("linalg_eigvals", out, 1)
        r = eigvals(input)
        if state.enabled and out._rg:
            raise RuntimeError("aten::linalg_eigvals(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires grad.")
        return _copy_into("linalg_eigvals", r, out, ("cast", "torch.linalg.eigvals", "eigenvalues"))
    A = input
    d = A._data
    if d.ndim < 2:
        raise RuntimeError("linalg.eigvals: The input tensor A must have at least 2 dimensions.")
    if d.shape[-1] != d.shape[-2]:
        raise RuntimeError(f"linalg.eigvals: A must be batches of square matrices, but they are "
                           f"{d.shape[-2]} by {d.shape[-1]} matrices")
    return _lm.eig(A)[0]


def lstsq(input, b, rcond=None, *, driver=None, out=None):
    """``(solution, residuals, rank, singular_values)`` of the least-squares problem
    ``min ||A X - B||`` for each matrix (the minimum-norm solution when ``A`` is
    rank-deficient), as PyTorch's CPU drivers: ``'gelsy'`` (default: a pivoted
    QR whose leading block's condition number stays below ``1 / rcond``; rank
    only), ``'gelsd'``/``'gelss'`` (singular values above ``rcond`` times the
    largest; rank and singular values), ``'gels'`` (full rank assumed).
    ``residuals``, the squared residuals, are given for tall full-rank ``A``
    by every driver but ``'gelsy'``, and are empty otherwise.  ``rcond``
    defaults to ``eps * max(m, n)``.  Differentiable as ``pinv(A) @ B`` (right
    for full-rank ``A``, as PyTorch's)."""
    if out is not None:
        _out_form("linalg_lstsq", out, 4, 4)
        r = lstsq(input, b, rcond, driver=driver)
        return _write("linalg_lstsq", r, out, "linalg_lstsq", None, (input, b))
    A, B = input, b
    a, b = A._data, B._data
    if a.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if a.dtype != b.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                           f"input's dtype {_tname(a.dtype)} and other's dtype {_tname(b.dtype)}")
    if a.dtype.name not in ("float32", "float64", "complex64", "complex128"):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if not (a.ndim >= b.ndim and a.ndim - b.ndim <= 1):
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    if driver is not None and driver not in _lm._DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    vector = b.ndim == a.ndim - 1
    if vector:
        B = B.unsqueeze(-1)
    from .ops.decompositions import _batch_shape
    _batch_shape(tuple(A.shape[:-2]), tuple(B.shape[:-2]))
    if B.shape[-2] != A.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    if isinstance(rcond, _Tensor):
        rcond = rcond.item()
    X, res, rank, sv = _lm.lstsq(A, B, rcond, driver=driver)
    if vector:
        X = X.squeeze(-1)
    return _lstsq_rt(X, res, rank, sv)


def householder_product(input, tau, *, out=None):
    """The first ``n`` columns of ``H_1 H_2 ... H_k`` for each ``m x n`` matrix
    (``m >= n``), ``H_i = I - tau_i v_i v_i^H`` with ``v_i`` column ``i`` of ``A``
    below the diagonal, 1 on it and 0 above (LAPACK's orgqr; ``geqrf``'s output
    gives ``Q``).  Written in tensorplay ops, so every order of derivative exists."""
    if out is not None:
        from ._out import call_with_out
        _out_form("linalg_householder_product", out, 1)
        return call_with_out("linalg_householder_product", householder_product, (input, tau), {}, out)
    A = input
    _fz._householder(A, tau, "torch.linalg.householder_product", "orgqr_cpu")   # (PyTorch's checks)
    return _fz._orgqr_impl(A, tau)


# ---- LDL, tensorinv, tensorsolve (the LDL kernels: ops/factorizations.py)
_ldl_factor_ex_rt = _return_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
_ldl_factor_rt = _return_type("linalg_ldl_factor", ("LD", "pivots"))


def ldl_factor_ex(input, *, hermitian=False, check_errors=False, out=None):
    """``(LD, pivots, info)``: the Bunch-Kaufman LDL factorization ``P A P^T = L D L^T``
    (``L D L^H`` with ``hermitian``) of each symmetric matrix, packed as LAPACK's
    sytrf/hetrf leave it (``L`` below the diagonal with its unit diagonal implied,
    the 1x1 and 2x2 blocks of ``D`` on and next to it), LAPACK's 1-based pivots
    (negative for a 2x2 block), and ``info`` (int32 per matrix: the first zero
    pivot, 1-based, 0 if none).  Only the lower triangle of ``input`` is read.  Not
    differentiable (PyTorch's error in backward)."""
    if out is not None:
        from ._out import call_with_out
        return call_with_out("linalg_ldl_factor_ex", ldl_factor_ex, (input,),
                             {"hermitian": hermitian, "check_errors": check_errors}, out)
    LD, piv, info = _fz.ldl_factor_ex_op(input, hermitian=hermitian, check_errors=check_errors)
    if check_errors and type(info) is _Tensor:
        _fz.ldl_raise("torch.linalg.ldl_factor_ex", info._data)
    return _ldl_factor_ex_rt(LD, piv, info)


def ldl_factor(input, *, hermitian=False, out=None):
    """``(LD, pivots)`` as ``ldl_factor_ex``; a matrix with a zero pivot is refused."""
    if out is not None:
        from ._out import call_with_out
        return call_with_out("linalg_ldl_factor", ldl_factor, (input,), {"hermitian": hermitian}, out)
    _fz._bool("linalg_ldl_factor", "hermitian", hermitian)
    LD, piv, info = _fz.ldl_factor_ex_op(input, hermitian=hermitian)
    if type(info) is _Tensor:
        _fz.ldl_raise("torch.linalg.ldl_factor", info._data)
    return _ldl_factor_rt(LD, piv)


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """``X`` with ``A X = B`` from ``ldl_factor``'s ``(LD, pivots)`` of ``A`` (made with
    the same ``hermitian``); ``B``'s batch dimensions broadcast with ``LD``'s.  Not
    differentiable (PyTorch's error in backward)."""
    if out is not None:
        from ._out import call_with_out
        return call_with_out("linalg_ldl_solve", ldl_solve, (LD, pivots, B), {"hermitian": hermitian}, out)
    return _fz.ldl_solve_op(LD, pivots, B, hermitian=hermitian)


def _int_arg(fname, pname, v):
    if isinstance(v, bool) or not isinstance(v, (int, _np.integer)):
        raise TypeError(f"{fname}(): argument '{pname}' must be int, not {type(v).__name__}")


def tensorinv(input, ind=2, *, out=None):
    """The inverse of ``A = input`` for ``tensordot(A, X, ind)``: ``A`` read as a square
    matrix, its first ``ind`` dimensions the rows; the result has shape
    ``A.shape[ind:] + A.shape[:ind]``."""
    _int_arg("linalg_tensorinv", "ind", ind)
    if out is not None:
        from ._out import call_with_out
        return call_with_out("linalg_tensorinv", tensorinv, (input,), {"ind": ind}, out)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(input.shape)
    if ind > len(shape):
        raise RuntimeError(f"ArrayRef: invalid slice, N = {ind}; size = {len(shape)}")
    rows, cols = shape[:ind], shape[ind:]
    p, q = _math.prod(rows), _math.prod(cols)
    if p != q:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {q} != {p}")
    M = input.reshape(p, q)
    try:
        r = inv(M)
    except LinAlgError:
        info = _lm.lu_factor_ex(M.detach())[2]
        raise LinAlgError(f"inv: The diagonal element {int(info.item())} is zero, the inversion could not "
                          f"be completed because the input matrix is singular.") from None
    return r.reshape(cols + rows)


def tensorsolve(input, other, dims=None, *, out=None):
    """``X`` with ``tensordot(A, X, X.ndim) = B`` (``A = input``, ``B = other``): ``A`` read
    as a square matrix
    whose rows are its first ``B.ndim`` dimensions (after moving the dimensions
    ``dims`` of ``A`` to the end); ``X`` has shape ``A.shape[B.ndim:]``."""
    if dims is not None and not (isinstance(dims, (tuple, list)) and
                                 all(isinstance(d, (int, _np.integer)) and not isinstance(d, bool) for d in dims)):
        raise TypeError(f"linalg_tensorsolve(): argument 'dims' must be tuple of ints, not {type(dims).__name__}")
    if out is not None:
        from ._out import call_with_out
        return call_with_out("linalg_tensorsolve", tensorsolve, (input, other), {"dims": dims}, out)
    A, B = input, other
    nd = A.dim()
    if dims:
        for d in dims:
            if not -max(nd, 1) <= d < max(nd, 1):
                raise IndexError(f"Dimension out of range (expected to be in range of [{-max(nd, 1)}, "
                                 f"{max(nd, 1) - 1}], but got {d})")
        A = A.movedim(tuple(dims), tuple(range(nd - len(dims), nd)))
    rest = tuple(A.shape[B.dim():])
    n, numel = _math.prod(rest), B.numel()
    if n != numel:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {n} != {numel}")
    try:
        x = solve(A.reshape(numel, n), B.reshape(numel))
    except LinAlgError:
        raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.") from None
    return x.reshape(rest)
