"""PyTorch's older linear-algebra spellings and the factorizations that go with
them: ``cholesky``, ``cholesky_inverse``, ``cholesky_solve``, ``qr``,
``triangular_solve`` (``(solution, cloned_coefficient)``), LAPACK's ``geqrf``,
``orgqr`` and ``ormqr``, ``addbmm``, ``chain_matmul``, ``nuclear_norm``,
``frobenius_norm``, the randomized ``svd_lowrank`` and ``pca_lowrank``, and
the functions PyTorch removed but still names (``lstsq``, ``solve``, ``eig``,
``symeig``, ``matrix_rank``), which raise its error.  The kernels of
``tensorplay.linalg``'s ``ldl_factor_ex`` and ``ldl_solve`` (LAPACK's
Bunch-Kaufman ``sytrf``/``hetrf`` and ``sytrs``/``hetrs``, written out in
NumPy) live here too.

Most are composites of registry ops, so their gradients (of every order),
forward-mode and batching rules come from those ops (``cholesky`` and ``addbmm``
record ``linalg.cholesky``'s and ``addmm``'s op under PyTorch's node names).
Five are registry ops of their own:

* ``cholesky_inverse`` and ``cholesky_solve`` read only the factor's triangle,
  but PyTorch differentiates them as functions of the whole factor ``L``
  (``A = L L^H``): with ``X`` the result, ``gL = -X (G + G^H) X L`` and, for
  ``cholesky_solve``, ``gB = A^-1 G``, ``gL = -(C + C^H) L`` with
  ``C = gB X^H`` (``upper=True``: ``A = U^H U``, ``gU = U (...)``).  A
  composite of triangular solves would give the triangle only, and one of
  general solves would refuse a singular factor, where PyTorch answers
  inf/NaN.  (The factor's diagonal is taken as it is; a Cholesky factor's is
  real and positive, and LAPACK's potri, hence PyTorch's ``cholesky_inverse``,
  gives no function of the matrix for a complex one.)
* ``geqrf``, ``linalg_ldl_factor_ex`` and ``linalg_ldl_solve``, which PyTorch
  does not differentiate: their nodes raise its error in backward.
"""
import math

import numpy as np

from .. import _dtype as D
from .._creation import eye, randn
from .._out import call_with_out
from .._warn import warn_once
from ._families import LINALG
from ._registry import autocast_inputs, defop, dispatch, not_implemented, op_spelled, overload_node, public
from ._util import LinAlgError, _tname, tensor_arg
from .core import matmul
from .decompositions import _bool, _qr, _svd, _solve_triangular_k, _batch_shape, solve_triangular
from .decompositions import cholesky as _linalg_cholesky
from .linalg import _addmm, _cname, _mm
from .linalg_more import _batch_cores
from .reduction import _return_type, _vector_norm
from .shape import tril

__all__ = ["cholesky", "cholesky_inverse", "cholesky_solve", "qr", "triangular_solve", "geqrf", "orgqr",
           "ormqr", "addbmm", "chain_matmul", "nuclear_norm", "frobenius_norm", "svd_lowrank", "pca_lowrank",
           "lstsq", "solve", "eig", "symeig", "matrix_rank"]

_FLOATS = ("float32", "float64", "complex64", "complex128")


def _no_kernel(kernel, a):
    """PyTorch's refusal of a dtype its LAPACK kernel is not built for."""
    if a.dtype.name not in _FLOATS:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_tname(a.dtype)}'")


def _square(name, a, what="A"):
    """PyTorch's ``squareCheckInputs``."""
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {what} must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")


def _linear_solve_checks(b, a, name):
    """PyTorch's ``linearSolveCheckInputs(b, A, name)``."""
    if b.dtype != a.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_tname(b.dtype)} "
                           f"and A of type {_tname(a.dtype)} instead.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")
    if b.ndim < 2:                          # (b.size(-2) of a vector)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(b.ndim, 1)}, "
                         f"{max(b.ndim, 1) - 1}], but got -2)")
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {a.shape[-1]} by "
                           f"{a.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}")


def _mH(a):
    return np.conj(np.swapaxes(a, -1, -2))


def _no_forward(name):
    def jvp(op, args, tangents, result):
        raise NotImplementedError(f"Trying to use forward AD with {name} that does not support it.")
    return jvp


def _spelled(name, fn, qualname):
    """``fn`` named as PyTorch's method (``Tensor.solve() missing 1 required positional
    argument``; Python 3.9 words that error with the code's name)."""
    fn.__name__, fn.__qualname__ = name, qualname
    fn.__code__ = fn.__code__.replace(co_name=qualname)
    return fn


# ------------------------------------------------------------------ cholesky
_CHOLESKY_DEPRECATED = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch "
    "release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\n"
    "U = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
    "This transform will produce equivalent results for all valid (symmetric positive definite) inputs.")


# linalg.cholesky's op, its node named as PyTorch's torch.cholesky records it
_CHOLESKY = op_spelled(_linalg_cholesky.op, overload_node(_linalg_cholesky.op, "CholeskyBackward0"))


@public()
def cholesky(input, upper=False, *, out=None):
    """``torch.cholesky`` (deprecated there for ``linalg.cholesky``): ``L`` with
    ``A = L L^H``, or ``U = L^H`` with ``upper=True``."""
    _bool("cholesky", "upper", upper)
    if out is not None:
        return call_with_out("cholesky", cholesky, (input,), {"upper": upper}, out)
    warn_once(_CHOLESKY_DEPRECATED)
    a = input._data
    _square("cholesky", a)
    _no_kernel("cholesky_cpu", a)
    try:
        return dispatch(_CHOLESKY, [input, bool(upper)])
    except LinAlgError as e:
        msg = str(e)
        raise LinAlgError(msg[len("linalg."):] if msg.startswith("linalg.") else msg) from None


# ------------------------------------------------------------------ cholesky_inverse
def _tri_of(a, upper):
    return np.triu(a) if upper else np.tril(a)


def _zero_diagonal(name, t):
    """PyTorch's error for a triangular factor with a zero on its diagonal."""
    d = np.diagonal(t, 0, -2, -1)
    flat = d.reshape((-1, d.shape[-1]))
    for i, row in enumerate(flat):
        zero = np.flatnonzero(row == 0)
        if zero.size:
            where_ = f"(Batch element {i}): " if t.ndim > 2 else ""
            raise LinAlgError(f"{name}: {where_}The diagonal element {int(zero[0]) + 1} is zero, the "
                              f"inversion could not be completed because the input matrix is singular.")


def _cholesky_inverse_k(x, upper=False):
    _bool("cholesky_inverse", "upper", upper)
    _square("cholesky_inverse", x)
    _no_kernel("cholesky_inverse_out_cpu", x)
    n = x.shape[-1]
    if x.size == 0:
        return x.copy()
    t = _tri_of(x, upper)
    _zero_diagonal("cholesky_inverse", t)
    ident = np.broadcast_to(np.eye(n, dtype=x.dtype), x.shape)
    # A = L L^H: A^-1 = L^-H L^-1 (upper: A = U^H U, A^-1 = U^-1 U^-H)
    with np.errstate(all="ignore"):
        tinv = _solve_triangular_k(t, ident, bool(upper))
        r = tinv @ _mH(tinv) if upper else _mH(tinv) @ tinv
    low = np.tril(r, -1)                    # (exactly Hermitian, as LAPACK's potri fills it)
    d = np.diagonal(r, 0, -2, -1)
    r = low + _mH(low) + d.real[..., None] * np.eye(n, dtype=x.dtype)
    return r.astype(x.dtype, copy=False)


def _factor_grad(c, x, upper):
    """The gradient of the factor from the Hermitian part's ``c + c^H``."""
    h = c + c.mH
    return x @ h if upper else h @ x


def _factor_tangent(x_t, x, upper):
    """dA for A = L L^H (upper: U^H U) and the tangent of the factor."""
    return x_t.mH @ x + x.mH @ x_t if upper else x_t @ x.mH + x @ x_t.mH


_cholesky_inverse = defop(
    "cholesky_inverse", _cholesky_inverse_k,
    {"x": lambda g, result, x, upper: -_factor_grad(result @ g @ result, x, upper)},
    jvp=lambda x_t, result, x, upper: -(result @ _factor_tangent(x_t, x, upper) @ result),
    node_name="CholeskyInverseBackward0", family=LINALG, method=False, upcast=False)


@public()
def cholesky_inverse(input, upper=False, *, out=None):
    """The inverse of ``A = L L^H`` from its Cholesky factor ``L`` (``A = U^H U``
    from ``U`` with ``upper=True``); only that triangle of ``input`` is read,
    and, as in PyTorch, the gradient is that of ``(L L^H)^-1`` as a function of
    the whole matrix."""
    if out is not None:
        return call_with_out("cholesky_inverse", cholesky_inverse, (input,), {"upper": upper}, out)
    return _cholesky_inverse(input, upper)


# ------------------------------------------------------------------ cholesky_solve
def _cholesky_solve_k(b, u, upper=False):
    _bool("cholesky_solve", "upper", upper)
    if b.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {b.ndim} dimensions instead")
    if u.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {u.ndim} dimensions instead")
    _linear_solve_checks(b, u, "cholesky_solve")
    shape = _batch_shape(b.shape[:-2], u.shape[:-2])
    _no_kernel("cholesky_solve_cpu", u)
    if 0 in shape or 0 in b.shape[-2:]:
        return np.zeros(shape + b.shape[-2:], b.dtype)
    uh = _mH(u)
    with np.errstate(all="ignore"):
        if upper:           # A = U^H U
            y = _solve_triangular_k(uh, b, False)
            x = _solve_triangular_k(u, y, True)
        else:               # A = L L^H
            y = _solve_triangular_k(u, b, False)
            x = _solve_triangular_k(uh, y, True)
    return np.broadcast_to(x, shape + b.shape[-2:]).astype(b.dtype, copy=True)


def _cs_vjp_b(g, u, upper):
    return _cholesky_solve(g, u, upper)


def _cs_vjp_u(g, result, u, upper):
    gb = _cholesky_solve(g, u, upper)
    return -_factor_grad(gb @ result.mH, u, upper)


_cholesky_solve = defop(
    "cholesky_solve", _cholesky_solve_k, {"b": _cs_vjp_b, "u": _cs_vjp_u}, n_in=2,
    jvp=lambda b_t, u_t, result, u, upper: _cholesky_solve(b_t - _factor_tangent(u_t, u, upper) @ result,
                                                           u, upper),
    node_name="CholeskySolveBackward0", family=LINALG, method=False, upcast=False)


@public()
def cholesky_solve(input, input2, upper=False, *, out=None):
    """``X`` with ``A X = B`` for ``B = input`` and ``A = L L^H`` given by its
    Cholesky factor ``L = input2`` (``A = U^H U`` with ``upper=True``); batch
    dimensions broadcast.  The gradient is PyTorch's, of the whole factor."""
    if out is not None:
        return call_with_out("cholesky_solve", cholesky_solve, (input, input2), {"upper": upper}, out)
    return _cholesky_solve(input, input2, upper)


# ------------------------------------------------------------------ qr
_QR_DEPRECATED = (
    "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\n"
    "The boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)\n"
    "should be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')")
_qr_rt = _return_type("qr", ("Q", "R"))


@public()
def qr(input, some=True, *, out=None):
    """``torch.qr`` (deprecated there): ``linalg.qr`` with ``mode='reduced'``
    (``some=True``) or ``'complete'``."""
    _bool("qr", "some", some)
    if out is not None:
        return call_with_out("qr", qr, (input,), {"some": some}, out)
    warn_once(_QR_DEPRECATED)
    return _qr_rt(*_qr(input, "reduced" if some else "complete"))


# ------------------------------------------------------------------ triangular_solve
_TRIANGULAR_SOLVE_DEPRECATED = (
    "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a "
    "future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return a "
    "copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
    "X = torch.linalg.solve_triangular(A, B).")
_triangular_solve_rt = _return_type("triangular_solve", ("solution", "cloned_coefficient"))


@public()
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """``(solution, cloned_coefficient)``: ``X`` with ``op(A) X = B`` for ``B = input``,
    ``A`` upper (or lower) triangular (only that triangle is read; its diagonal
    taken as ones with ``unitriangular``) and ``op(A) = A^T`` with ``transpose``;
    and a copy of ``A`` broadcast to the batch shape."""
    for pname, v in (("upper", upper), ("transpose", transpose), ("unitriangular", unitriangular)):
        _bool("triangular_solve", pname, v)
    if out is not None:
        return call_with_out("triangular_solve", triangular_solve, (input, A),
                             {"upper": upper, "transpose": transpose, "unitriangular": unitriangular}, out)
    warn_once(_TRIANGULAR_SOLVE_DEPRECATED)
    b, a = input._data, A._data
    for what, t in (("b", b), ("A", a)):
        if t.ndim < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected {what} to have at least 2 dimensions, but it "
                               f"has {t.ndim} dimensions instead")
    _linear_solve_checks(b, a, "triangular_solve")
    shape = _batch_shape(b.shape[:-2], a.shape[:-2])
    _no_kernel("triangular_solve_cpu", a)
    coef = A.mT if transpose else A
    x = solve_triangular(coef, input, upper=bool(upper) != bool(transpose), unitriangular=bool(unitriangular))
    if tuple(x.shape[:-2]) != shape:        # (an empty batch)
        x = x.expand(shape + tuple(x.shape[-2:]))
    return _triangular_solve_rt(x, A.expand(shape + tuple(a.shape[-2:])).clone())


# ------------------------------------------------------------------ geqrf / orgqr / ormqr
def _geqrf_k(x):
    if x.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _no_kernel("geqrf_cpu", x)
    m, n = x.shape[-2:]
    k = min(m, n)
    if x.size == 0:
        return x.copy(), np.zeros(x.shape[:-2] + (k,), x.dtype)
    flat = x.reshape((-1, m, n))
    a = np.empty_like(flat)
    tau = np.empty((len(flat), k), x.dtype)
    for i, mat in enumerate(flat):           # (NumPy's raw QR is LAPACK's geqrf, transposed)
        h, t = np.linalg.qr(mat, mode="raw")
        a[i] = h.T
        tau[i] = t
    return a.reshape(x.shape), tau.reshape(x.shape[:-2] + (k,))


_geqrf_nd = not_implemented(NotImplementedError, "the derivative for 'geqrf' is not implemented.")


def _geqrf_no_forward(op, args, tangents, result):
    raise NotImplementedError(
        "Trying to use forward AD with geqrf that does not support it because it has not been implemented "
        "yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?template="
        "feature-request.yml so that we can prioritize its implementation or submit a PR adding the "
        "implementation to derivatives.yaml")


_geqrf_rt = _return_type("geqrf", ("a", "tau"))
_geqrf = defop("geqrf", _geqrf_k, {"x": _geqrf_nd}, jvp=_geqrf_no_forward, node_name="GeqrfBackward0",
               family=LINALG, method=False, upcast=False)


@public()
def geqrf(input, *, out=None):
    """``(a, tau)``: LAPACK's geqrf QR of each matrix, ``R`` on and above the
    diagonal of ``a``, the Householder vectors below it (their leading 1
    implied) and their scalars in ``tau`` (``orgqr`` makes ``Q``, ``ormqr``
    multiplies by it).  Not differentiable (PyTorch's error in backward)."""
    if out is not None:
        return call_with_out("geqrf", geqrf, (input,), {}, out)
    return _geqrf_rt(*_geqrf(input))


def _householder(A, tau, name, kernel):
    """PyTorch's checks of ``orgqr``'s ``(input, tau)``."""
    a, t = A._data, tau._data
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    m, n = a.shape[-2:]
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if t.ndim < 1 or n < t.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if t.ndim != a.ndim - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got tau.ndim "
                           f"equal to {t.ndim} and input.ndim is equal to {a.ndim}")
    if t.shape[:-1] != a.shape[:-2]:
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but "
                           f"got {list(t.shape[:-1])}")
    if a.dtype != t.dtype:
        raise RuntimeError(f"{name}: tau dtype {_tname(t.dtype)} does not match input dtype {_tname(a.dtype)}")
    _no_kernel(kernel, a)


def _reflector(below, unit, i):
    """Column ``i``'s Householder vector: 0 above the diagonal, 1 on it, ``A``'s
    entries below (``below``: ``A``'s strictly lower triangle)."""
    return below.narrow(-1, i, 1) + unit.narrow(-1, i, 1)


def _tau(tau, i):
    return tau.narrow(-1, i, 1).unsqueeze(-1)


def _orgqr_impl(input, tau):
    m, n = input.shape[-2:]
    k = tau.shape[-1]
    q = eye(m, n, dtype=input.dtype).expand(tuple(input.shape))
    below, unit = tril(input, -1), eye(m, dtype=input.dtype)
    for i in range(k - 1, -1, -1):              # Q = H_1 (H_2 (... (H_k I)))
        v = _reflector(below, unit, i)
        q = q - (_tau(tau, i) * v) @ (v.mH @ q)
    if k == 0:      # no reflector: PyTorch's output still has a node (exact zeros added)
        q = q + input.narrow(-1, 0, 0).sum(-1, keepdim=True) + tau.sum(-1, keepdim=True).unsqueeze(-1)
    return q


@public()
def orgqr(input, input2):
    """The first ``n`` columns of ``Q = H_1 ... H_k`` for each ``m x n`` matrix of
    Householder vectors and their scalars (``geqrf``'s ``a``, ``tau = input2``):
    ``linalg.householder_product``."""
    _householder(input, input2, "torch.linalg.householder_product", "orgqr_cpu")
    return _orgqr_impl(input, input2)


def _orgqr_method(self, input2):
    return orgqr(self, input2)


orgqr.as_method = _spelled("orgqr", _orgqr_method, "Tensor.orgqr")


def _ormqr_checks(a, t, c, left):
    name = "torch.ormqr"
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if c.ndim < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if c.shape[side] != a.shape[-2]:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    if t.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if min(c.shape[side], a.shape[-1]) != t.shape[-1]:
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    if a.ndim - t.ndim != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got tau.ndim "
                           f"equal to {t.ndim} and input.ndim is equal to {a.ndim}")
    if a.ndim != c.ndim:
        raise RuntimeError(f"{name}: Expected other to have the same number of dimensions as input, but got "
                           f"other.ndim equal to {c.ndim} and input.ndim is equal to {a.ndim}")
    if a.ndim > 2:
        if t.shape[:-1] != a.shape[:-2]:
            raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], "
                               f"but got {list(t.shape[:-1])}")
        if c.shape[:-2] != a.shape[:-2]:
            raise RuntimeError(f"{name}: Expected batch dimensions of other to be equal to input.shape[:-2], "
                               f"but got {list(c.shape[:-2])}")
    if a.dtype != t.dtype:
        raise RuntimeError(f"{name}: Expected input and tau to have the same dtype, but input has dtype"
                           f"{_tname(a.dtype)} and tau has dtype {_tname(t.dtype)}")
    if a.dtype != c.dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but input has dtype"
                           f"{_tname(a.dtype)} and other has dtype {_tname(c.dtype)}")
    _no_kernel("ormqr_cpu", a)


@public()
def ormqr(input, input2, input3, left=True, transpose=False, *, out=None):
    """``Q C`` (``C Q`` with ``left=False``; ``Q^H`` for ``Q`` with ``transpose``)
    for ``C = input3`` and ``Q = H_1 ... H_k`` the (square) product of the
    Householder reflectors in ``(input, tau = input2)`` (``geqrf``'s output),
    without forming ``Q``."""
    tau, other = input2, input3
    _bool("ormqr", "left", left)
    _bool("ormqr", "transpose", transpose)
    if out is not None:
        return call_with_out("ormqr", ormqr, (input, input2, input3), {"left": left, "transpose": transpose},
                             out)
    _ormqr_checks(input._data, tau._data, other._data, left)
    k = tau.shape[-1]
    below, unit = tril(input, -1), eye(input.shape[-2], dtype=input.dtype)
    c = other
    # H_i = I - tau_i v v^H, H_i^H = I - conj(tau_i) v v^H; Q = H_1 ... H_k
    forward = left == bool(transpose)           # Q^H C and C Q apply H_1 first
    for i in (range(k) if forward else range(k - 1, -1, -1)):
        v = _reflector(below, unit, i)
        t = _tau(tau, i)
        if transpose:
            t = t.conj()
        c = c - (t * v) @ (v.mH @ c) if left else c - ((c @ v) * t) @ v.mH
    return c if c is not other else other.clone()


# ------------------------------------------------------------------ addbmm
def _size(t, d):
    n = t.ndim
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(n, 1)}, {max(n, 1) - 1}], "
                         f"but got {d})")
    return t.shape[d]


def _expand_size(t, shape):
    """PyTorch's ``expand_size`` of ``input`` to the result's shape, with its errors."""
    s = tuple(t.shape)
    lead = len(shape) - len(s)
    if lead < 0:
        raise RuntimeError(f"expand(torch.{_tname(t._data.dtype)}Tensor"
                           f"{{{list(s)}}}, size={list(shape)}): the number of sizes provided ({len(shape)}) "
                           f"must be greater or equal to the number of dimensions in the tensor ({len(s)})")
    for i, d in enumerate(s):
        if d != 1 and d != shape[lead + i]:
            raise RuntimeError(f"The expanded size of the tensor ({shape[lead + i]}) must match the existing "
                               f"size ({d}) at non-singleton dimension {lead + i}.  Target sizes: "
                               f"{list(shape)}.  Tensor sizes: {list(s)}")


# addmm's op (the sum of the batch's products is one product), its node named as PyTorch's
_ADDBMM = op_spelled(_addmm.op, overload_node(_addmm.op, "AddbmmBackward0"))


@public(inplace=True)
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]`` (``input`` broadcast;
    ignored, even NaN, when ``beta`` is 0)."""
    if out is not None:
        return call_with_out("addbmm", addbmm, (input, batch1, batch2), {"beta": beta, "alpha": alpha}, out)
    for i, (nm, v) in enumerate((("input", input), ("batch1", batch1), ("batch2", batch2))):
        tensor_arg("addbmm", nm, i + 1, v)
    _expand_size(input, (_size(batch1, 1), _size(batch2, 2)))
    if batch1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, n, k = batch1.shape
    if batch2.shape[0] != b:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b} and {batch2.shape[0]}")
    if batch2.shape[1] != k:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{k} and {batch2.shape[1]}x{batch2.shape[2]})")
    input, batch1, batch2 = autocast_inputs("addbmm", input, batch1, batch2)
    if input.dtype != batch2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_tname(input._data.dtype)} and "
                           f"{_tname(batch2._data.dtype)}")
    if batch1.dtype != batch2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_tname(batch1._data.dtype)} and "
                           f"{_tname(batch2._data.dtype)}")
    # the sum over the batch of the products is one product: [b_1 ... b_B] @ [c_1; ...; c_B]
    m1 = batch1.permute(1, 0, 2).reshape(n, b * k)
    m2 = batch2.reshape(b * k, batch2.shape[2])
    return dispatch(_ADDBMM, [input, m1, m2, beta, alpha])


# ------------------------------------------------------------------ chain_matmul
_CHAIN_MATMUL_DEPRECATED = (
    "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
    "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
    "parameters.")


def _chain_order(dims):
    """The split points of the cheapest parenthesization of a matrix chain (the
    classic dynamic program; ``dims[i], dims[i+1]`` is matrix ``i``'s shape)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(ms, split, i, j):
    if i == j:
        return ms[i]
    k = split[i][j]
    return _mm(_chain(ms, split, i, k), _chain(ms, split, k + 1, j))


@public(method=False)
def chain_matmul(*matrices, out=None):
    """``torch.chain_matmul`` (deprecated there for ``linalg.multi_dot``): the
    product of 2-D matrices, multiplied in the cheapest order."""
    if out is not None:
        return call_with_out("chain_matmul", chain_matmul, matrices, {}, out)
    warn_once(_CHAIN_MATMUL_DEPRECATED)
    for m in matrices:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        return matrices[0].clone()
    for i, m in enumerate(matrices[1:], 1):
        if m.dtype != matrices[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_cname(matrices[0])} and tensor {i} {_cname(m)}")
    for i in range(len(matrices) - 1):
        a, b = matrices[i], matrices[i + 1]
        if a.shape[1] != b.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(a.shape)} and "
                               f"{list(b.shape)} cannot be multiplied")
    dims = [matrices[0].shape[0]] + [m.shape[1] for m in matrices]
    return _chain(matrices, _chain_order(dims), 0, len(matrices) - 1)


# ------------------------------------------------------------------ nuclear_norm / frobenius_norm
_NUCLEAR_DEPRECATED = (
    "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a future "
    "PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
_FROBENIUS_DEPRECATED = (
    "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
    "future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead")


def _wrap_dim(d, n):
    if not -max(n, 1) <= d < max(n, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(n, 1)}, {max(n, 1) - 1}], "
                         f"but got {d})")
    return d % max(n, 1)


def _dims(name, dim):
    if isinstance(dim, (int, np.integer)) and not isinstance(dim, bool):
        return (int(dim),)
    if isinstance(dim, (tuple, list)) and all(isinstance(d, (int, np.integer)) for d in dim):
        return tuple(int(d) for d in dim)
    raise TypeError(f"{name}(): argument 'dim' must be tuple of ints, not {type(dim).__name__}")


@public(method=False)
def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """The sum of the singular values of each matrix over ``dim`` (default the last
    two dimensions): ``linalg.matrix_norm(input, 'nuc', dim, keepdim)``.
    ``nuclear_norm(input, keepdim)`` is PyTorch's other overload."""
    if isinstance(dim, bool):                   # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    if out is not None:
        return call_with_out("nuclear_norm", nuclear_norm, (input,), {"dim": dim, "keepdim": keepdim}, out)
    warn_once(_NUCLEAR_DEPRECATED)
    if dim is None:
        dims = (-2, -1)
    else:
        dims = _dims("nuclear_norm", dim)
        if len(dims) == 1:                      # (an int fills PyTorch's int[2])
            dims = dims * 2
    a = input._data
    if a.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
    rows, cols = (_wrap_dim(d, a.ndim) for d in dims)
    if rows == cols:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({rows}, {cols})")
    if a.dtype.name in ("float16", "bfloat16"):
        raise RuntimeError(f"linalg.matrix_norm: Low precision dtypes not supported. Got {_tname(a.dtype)}")
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. "
                           f"Got {_tname(a.dtype)}")
    r = _svd(input.movedim((rows, cols), (-2, -1)), False)[1].sum(-1)
    if keepdim:
        for d in sorted((rows, cols)):
            r = r.unsqueeze(d)
    return r


_NO_DIM = object()


@public(method=False)
def frobenius_norm(input, dim=_NO_DIM, keepdim=False, *, out=None):
    """The 2-norm of the elements over ``dim`` (at most two dimensions; ``()``:
    all): ``linalg.vector_norm(input, 2, dim, keepdim)``."""
    if dim is _NO_DIM:
        raise TypeError('frobenius_norm() missing 1 required positional arguments: "dim"')
    dims = _dims("frobenius_norm", dim)
    if out is not None:
        return call_with_out("frobenius_norm", frobenius_norm, (input,), {"dim": dim, "keepdim": keepdim}, out)
    warn_once(_FROBENIUS_DEPRECATED)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    a = input._data
    if a.dtype.kind not in "fc" and a.dtype.name != "bfloat16":
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{_tname(a.dtype)} instead.")
    wrapped = [_wrap_dim(d, a.ndim) for d in dims]
    if len(set(wrapped)) < len(wrapped):
        raise RuntimeError(f"dim {wrapped[0]} appears multiple times in the list of dims")
    return _vector_norm(input, 2.0, dims if dims else None, keepdim)


# ------------------------------------------------------------------ svd_lowrank / pca_lowrank
def _floating(t):
    """``get_floating_dtype``: a half, float or double tensor's dtype, float32 for any other."""
    return t.dtype if t.dtype in (D.float16, D.float32, D.float64) else D.float32


def _approximate_basis(A, q, niter, M):
    """An orthonormal basis ``Q`` (``n x q``) of ``A - M``'s range, by ``niter``
    subspace iterations from a Gaussian start (Halko et al., PyTorch's
    ``get_approximate_basis``), drawing from tensorplay's generator."""
    niter = 2 if niter is None else niter
    R = randn(A.shape[-1], q, dtype=A.dtype if A.is_complex() else _floating(A))
    X = matmul(A, R)
    if M is not None:
        X = X - matmul(M, R)
    Q = _qr(X, "reduced")[0]
    for _ in range(niter):
        X = matmul(A.mH, Q)
        if M is not None:
            X = X - matmul(M.mH, Q)
        Q = _qr(X, "reduced")[0]
        X = matmul(A, Q)
        if M is not None:
            X = X - matmul(M, Q)
        Q = _qr(X, "reduced")[0]
    return Q


def _svd_lowrank(A, q=6, niter=2, M=None):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(tuple(A.shape))
    if m < n:
        A = A.mH
        if M is not None:
            M = M.mH
    Q = _approximate_basis(A, q, niter, M)
    B = matmul(Q.mH, A)
    if M is not None:
        B = B - matmul(Q.mH, M)
    U, S, Vh = _svd(B, False)
    V = Vh.mH
    U = matmul(Q, U)
    if m < n:
        U, V = V, U
    return U, S, V


@public(method=False)
def svd_lowrank(A, q=6, niter=2, M=None):
    """``(U, S, V)`` with ``A - M ~ U diag(S) V^H`` of rank ``q``, by the randomized
    range finder (``niter`` subspace iterations; PyTorch's algorithm, drawing
    from tensorplay's generator): exact, up to rounding, when ``A - M`` has rank
    at most ``q``.  Differentiable through the ops it is made of."""
    return _svd_lowrank(A, q=q, niter=niter, M=M)


@public(method=False)
def pca_lowrank(A, q=None, center=True, niter=2):
    """``(U, S, V)``, ``svd_lowrank`` of ``A`` with each column's mean taken out
    (``center``); ``q`` defaults to ``min(6, m, n)``."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    C = A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A - C, q, niter=niter, M=None)


# ------------------------------------------------------------------ removed functions
def _removed(message):
    def raise_(*args, **kwargs):
        raise RuntimeError(message)
    return raise_


_MATRIX_RANK_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed.\nPlease use the "
    "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
    "`torch.linalg.matrix_rank()` to 'hermitian'.")
_SOLVE_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. `torch.solve` is deprecated in favor "
    "of `torch.linalg.solve`. `torch.linalg.solve` has its arguments reversed and does not return the LU "
    "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used with `torch.lu_solve` or "
    "`torch.lu_unpack`.\nX = torch.solve(B, A).solution should be replaced with:\nX = torch.linalg.solve(A, B)")
_LSTSQ_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. `torch.lstsq` is deprecated in favor "
    "of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed arguments and does not return the QR "
    "decomposition in the returned tuple (although it returns other information about the problem).\n\n"
    "To get the QR decomposition consider using `torch.linalg.qr`.\n\nThe returned solution in `torch.lstsq` "
    "stored the residuals of the solution in the last m - n columns of the returned value whenever m > n. In "
    "torch.linalg.lstsq, the residuals are in the field 'residuals' of the returned named tuple.\n\n"
    "The unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced "
    "with:\nX = torch.linalg.lstsq(A, B).solution")
_SYMEIG_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. The default behavior has changed from "
    "using the upper triangular portion of the matrix by default to using the lower triangular portion.\n\n"
    "L, _ = torch.symeig(A, upper=upper) should be replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if "
    "upper else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True) should be replaced with:\n"
    "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")
_EIG_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. `torch.linalg.eig` returns complex "
    "tensors of dtype `cfloat` or `cdouble` rather than real tensors mimicking complex tensors.\n\n"
    "L, _ = torch.eig(A) should be replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\n"
    "L, V = torch.eig(A, eigenvectors=True) should be replaced with:\nL_complex, V_complex = torch.linalg.eig(A)")


@public(method=False)
def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """Removed from PyTorch (``linalg.matrix_rank``): raises its error."""
    raise RuntimeError(_MATRIX_RANK_REMOVED)


@public()
def solve(input, A, *, out=None):
    """Removed from PyTorch (``linalg.solve``, arguments reversed): raises its error."""
    raise RuntimeError(_SOLVE_REMOVED)


@public()
def lstsq(input, A, *, out=None):
    """Removed from PyTorch (``linalg.lstsq``, arguments reversed): raises its error."""
    raise RuntimeError(_LSTSQ_REMOVED)


@public()
def symeig(input, eigenvectors=False, upper=True, *, out=None):
    """Removed from PyTorch (``linalg.eigh``/``eigvalsh``): raises its error."""
    raise RuntimeError(_SYMEIG_REMOVED)


@public()
def eig(self, eigenvectors=False, *, e=None, v=None):
    """Removed from PyTorch (``linalg.eig``/``eigvals``): raises its error."""
    raise RuntimeError(_EIG_REMOVED)


def _solve_method(self, other):
    raise RuntimeError(_SOLVE_REMOVED)


def _lstsq_method(self, other):
    raise RuntimeError(_LSTSQ_REMOVED)


def _eig_method(self, eigenvectors=False):
    raise RuntimeError(_EIG_REMOVED)


def _symeig_method(self, eigenvectors=False):
    raise RuntimeError(_SYMEIG_REMOVED)


solve.as_method = _spelled("solve", _solve_method, "Tensor.solve")
lstsq.as_method = _spelled("lstsq", _lstsq_method, "Tensor.lstsq")
eig.as_method = _spelled("eig", _eig_method, "Tensor.eig")
symeig.as_method = _spelled("symeig", _symeig_method, "Tensor.symeig")


# ------------------------------------------------------------------ LDL (tensorplay.linalg's kernels)
_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0      # Bunch-Kaufman's pivot threshold


def _cabs1(z):
    """LAPACK's ``cabs1``: ``|re| + |im|`` (the absolute value of a real)."""
    return np.abs(z.real) + np.abs(z.imag) if np.iscomplexobj(z) else np.abs(z)


def _sytf2(a, hermitian):
    """LAPACK's unblocked Bunch-Kaufman factorization (``sytf2``/``hetf2``, lower)
    of one matrix, in place: returns ``(ipiv, info)`` with LAPACK's 1-based
    pivots (negative for a 2x2 block)."""
    n = a.shape[0]
    herm = hermitian and np.iscomplexobj(a)
    cj = np.conj if herm else (lambda z: z)
    ipiv = np.zeros(n, np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = abs(a[k, k].real) if herm else float(_cabs1(a[k, k]))
        if k < n - 1:
            imax = k + 1 + int(np.argmax(_cabs1(a[k + 1:, k])))
            colmax = float(_cabs1(a[imax, k]))
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or absakk != absakk:
            if info == 0:
                info = k + 1
            kp = k
            if herm:
                a[k, k] = a[k, k].real
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                # the largest off-diagonal entry in row/column imax
                jmax = k + int(np.argmax(_cabs1(a[imax, k:imax])))
                rowmax = float(_cabs1(a[imax, jmax]))
                if imax < n - 1:
                    jmax = imax + 1 + int(np.argmax(_cabs1(a[imax + 1:, imax])))
                    rowmax = max(rowmax, float(_cabs1(a[jmax, imax])))
                diag = abs(a[imax, imax].real) if herm else float(_cabs1(a[imax, imax]))
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif diag >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:            # swap rows and columns kk and kp of the trailing matrix
                if kp < n - 1:
                    t = a[kp + 1:, kk].copy()
                    a[kp + 1:, kk] = a[kp + 1:, kp]
                    a[kp + 1:, kp] = t
                t = cj(a[kk + 1:kp, kk].copy())
                a[kk + 1:kp, kk] = cj(a[kp, kk + 1:kp])
                a[kp, kk + 1:kp] = t
                if herm:
                    a[kp, kk] = np.conj(a[kp, kk])
                t = a[kk, kk].copy()
                a[kk, kk] = a[kp, kp]
                a[kp, kp] = t
                if herm:
                    a[kk, kk], a[kp, kp] = a[kk, kk].real, a[kp, kp].real
                if kstep == 2:
                    if herm:
                        a[k, k] = a[k, k].real
                    t = a[k + 1, k].copy()
                    a[k + 1, k] = a[kp, k]
                    a[kp, k] = t
            elif herm:
                a[k, k] = a[k, k].real
                if kstep == 2:
                    a[k + 1, k + 1] = a[k + 1, k + 1].real
            if kstep == 1:          # D(k) = A(k,k): a rank-1 update of the trailing matrix
                if k < n - 1:
                    x = a[k + 1:, k].copy()
                    if herm:
                        r1 = 1.0 / a[k, k].real
                        a[k + 1:, k + 1:] -= r1 * np.tril(np.outer(x, np.conj(x)))
                        idx = np.arange(k + 1, n)
                        a[idx, idx] = a[idx, idx].real
                    else:
                        r1 = 1.0 / a[k, k]
                        a[k + 1:, k + 1:] -= r1 * np.tril(np.outer(x, x))
                    a[k + 1:, k] = x * r1
            else:                   # a 2x2 block D(k:k+2): a rank-2 update
                if k < n - 2:
                    if herm:
                        d = abs(a[k + 1, k])
                        d11 = a[k + 1, k + 1].real / d
                        d22 = a[k, k].real / d
                        tt = 1.0 / (d11 * d22 - 1.0)
                        d21 = a[k + 1, k] / d
                        d = tt / d
                        ck, ck1 = a[k + 2:, k].copy(), a[k + 2:, k + 1].copy()
                        wk = d * (d11 * ck - d21 * ck1)
                        wkp1 = d * (d22 * ck1 - np.conj(d21) * ck)
                        a[k + 2:, k + 2:] -= np.tril(np.outer(ck, np.conj(wk)) + np.outer(ck1, np.conj(wkp1)))
                        idx = np.arange(k + 2, n)
                        a[idx, idx] = a[idx, idx].real
                    else:
                        d21 = a[k + 1, k]
                        d11 = a[k + 1, k + 1] / d21
                        d22 = a[k, k] / d21
                        t = 1.0 / (d11 * d22 - 1.0)
                        d21 = t / d21
                        ck, ck1 = a[k + 2:, k].copy(), a[k + 2:, k + 1].copy()
                        wk = d21 * (d11 * ck - ck1)
                        wkp1 = d21 * (d22 * ck1 - ck)
                        a[k + 2:, k + 2:] -= np.tril(np.outer(ck, wk) + np.outer(ck1, wkp1))
                    a[k + 2:, k] = wk
                    a[k + 2:, k + 1] = wkp1
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return ipiv, info


def _ldl_factor_ex_k(x, hermitian=False, check_errors=False):
    _bool("linalg_ldl_factor_ex", "hermitian", hermitian)
    _bool("linalg_ldl_factor_ex", "check_errors", check_errors)
    name = "torch.linalg.ldl_factor_ex"
    _square(name, x)
    if x.dtype.name in ("float16", "bfloat16"):
        raise NotImplementedError(f"\"ldl_factor_kernel_cpu\" not implemented for '{_tname(x.dtype)}'")
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {_tname(x.dtype)}")
    n = x.shape[-1]
    flat = np.tril(x).reshape((-1, n, n)).copy()
    piv = np.empty((len(flat), n), np.int32)
    info = np.zeros(len(flat), np.int32)
    with np.errstate(all="ignore"):
        for i in range(len(flat)):
            piv[i], info[i] = _sytf2(flat[i], bool(hermitian))
    return (np.tril(flat).reshape(x.shape), piv.reshape(x.shape[:-1]), info.reshape(x.shape[:-2]))


_ldl_factor_nd = not_implemented(RuntimeError, "derivative for aten::linalg_ldl_factor_ex is not implemented")
ldl_factor_ex_op = defop("linalg_ldl_factor_ex", _ldl_factor_ex_k, {"x": _ldl_factor_nd},
                         jvp=_no_forward("aten::linalg_ldl_factor_ex"), kwonly=("hermitian", "check_errors"),
                         nondiff_out=(1, 2), node_name="NotImplemented", family=LINALG, method=False,
                         upcast=False)


def ldl_raise(name, info):
    """``ldl_factor``'s error for a singular matrix (PyTorch's, an internal assert
    that names no batch element)."""
    bad = np.flatnonzero(info.reshape(-1))
    if bad.size:
        code = int(info.reshape(-1)[bad[0]])
        raise RuntimeError(f"false INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/ATen/native/"
                           f"BatchLinearAlgebra.cpp\":1642, please report a bug to PyTorch. {name}: Unknown "
                           f"error code: {code}.")


def _sytrs(a, ipiv, b, hermitian):
    """LAPACK's ``sytrs``/``hetrs`` (lower): ``X`` with ``A X = B`` from ``sytf2``'s
    factorization ``(a, ipiv)`` of one matrix; ``b`` is overwritten."""
    n = a.shape[0]
    herm = hermitian and np.iscomplexobj(a)
    cj = np.conj if herm else (lambda z: z)
    k = 0
    while k < n:                            # L D X = B
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            if k < n - 1:
                b[k + 1:] -= np.outer(a[k + 1:, k], b[k])
            b[k] /= a[k, k].real if herm else a[k, k]
            k += 1
        else:
            kp = -ipiv[k] - 1
            if kp != k + 1:
                b[[k + 1, kp]] = b[[kp, k + 1]]
            if k < n - 2:
                b[k + 2:] -= np.outer(a[k + 2:, k], b[k])
                b[k + 2:] -= np.outer(a[k + 2:, k + 1], b[k + 1])
            akm1k = a[k + 1, k]
            akm1 = a[k, k] / cj(akm1k)
            ak = a[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1.0
            bkm1 = b[k] / cj(akm1k)
            bk = b[k + 1] / akm1k
            b[k] = (ak * bkm1 - bk) / denom
            b[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:                           # L^T X = B (L^H, Hermitian)
        if ipiv[k] > 0:
            if k < n - 1:
                b[k] -= cj(a[k + 1:, k]) @ b[k + 1:]
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            if k < n - 1:
                b[k] -= cj(a[k + 1:, k]) @ b[k + 1:]
                b[k - 1] -= cj(a[k + 1:, k - 1]) @ b[k + 1:]
            kp = -ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


def _ldl_solve_k(LD, pivots, B, hermitian=False):
    _bool("linalg_ldl_solve", "hermitian", hermitian)
    name = "torch.linalg.ldl_solve"
    _square(name, LD)
    if LD.dtype.kind not in "fc" or LD.dtype.name == "float16":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_tname(LD.dtype)}")
    _linear_solve_checks(B, LD, name)
    if pivots.shape != LD.shape[:-1]:
        raise RuntimeError(f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots "
                           f"with shape {list(pivots.shape)} instead")
    if pivots.dtype.kind not in "iu":
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {_tname(pivots.dtype)}")
    n = LD.shape[-1]
    shape = _batch_shape(B.shape[:-2], LD.shape[:-2])
    ld = np.broadcast_to(LD, shape + (n, n)).reshape((-1, n, n))
    pv = np.broadcast_to(pivots, shape + (n,)).reshape((-1, n))
    out = np.broadcast_to(B, shape + B.shape[-2:]).reshape((-1,) + B.shape[-2:]).astype(B.dtype, copy=True)
    with np.errstate(all="ignore"):
        for i in range(len(out)):
            _sytrs(ld[i], pv[i], out[i], bool(hermitian))
    return out.reshape(shape + B.shape[-2:])


_ldl_solve_nd = not_implemented(RuntimeError, "derivative for aten::linalg_ldl_solve is not implemented")
ldl_solve_op = defop("linalg_ldl_solve", _ldl_solve_k, {"LD": _ldl_solve_nd, "B": _ldl_solve_nd}, n_in=3,
                     jvp=_no_forward("aten::linalg_ldl_solve"), kwonly=("hermitian",), node_name="NotImplemented",
                     family=LINALG, method=False, upcast=False, batch=_batch_cores((2, 1, 2)))
