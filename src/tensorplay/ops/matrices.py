"""Functions of square matrices: inverse, determinant (with its sign and log),
and linear solve, over any leading batch dimensions (NumPy's stacked
``linalg``).  They are ``torch.linalg``'s ``inv``, ``det``, ``slogdet`` and
``solve`` (tensorplay/linalg.py spells them there, and as ``tp.inverse``,
``tp.det``, ``tp.logdet``, ``tp.slogdet``).

vjps follow PyTorch's convention (``g * conj(df/dz)``), written in tensorplay
ops so that they differentiate again:

* ``inv``:  ``-Y^H g Y^H`` for ``Y = A^-1``;
* ``det``:  ``g conj(det A) A^-H``, the conjugate of the cofactor matrix (the
  adjugate's transpose).  A singular or ill-conditioned ``A`` (1-norm condition
  number above ``eps^(-1/3)``) takes its cofactors from an SVD ``A = U S V^H``
  instead, ``det(U) det(V^H) conj(U diag(prod_(j!=i) S_j) V^H)`` (the op
  ``_det_cofactors``): the product ``det(A) A^-1`` is right to first order
  there, but its derivative loses ``eps * cond`` relatively, all of it at a
  numerically singular matrix.  The cofactors' own derivative is exact and has
  no division: with ``M = U^H dA V``, ``d adj(A) = det(U) det(V^H) V D U^H`` for
  ``D = diag(Q diag(M)) - Q * M``, ``Q_ij = prod_(k not in {i, j}) S_k``
  (repeated or zero singular values included; PyTorch differentiates its SVD
  there, which fails at repeated ones and at a singular complex matrix);
* ``slogdet``: ``w A^-H`` with ``w = g_logabsdet - i Im(conj(g_sign) sign)``
  (the sign of a complex determinant moves with ``A``; a real one does not);
* ``solve``: ``X = A^-1 B`` gives ``gB = A^-H g`` and ``gA = -gB X^H``.
"""
import numpy as np

from .._autograd.grad_mode import state
from .._creation import eye, ones
from .._tensor import Tensor, _wrap, int_index
from ._families import LINALG
from ._registry import defop, public
from .pointwise import where
from ._util import LinAlgError, _tname
from .decompositions import _svd
from .shape import diag_embed
from .reduction import _return_type, _prod_others

__all__ = ["inverse", "det", "logdet", "slogdet", "matrix_power"]


def _square(name, a, what="A"):
    if a.ndim < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor {what} must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.{name}: {what} must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if a.dtype.name in ("float16", "bfloat16"):          # (no LAPACK for them)
        if name in ("det", "solve"):                    # (PyTorch's LU kernel says it first)
            raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_tname(a.dtype)}'")
        raise RuntimeError(f"linalg.{name}: Low precision dtypes not supported. Got {_tname(a.dtype)}")
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.{name}: Expected a floating point or complex tensor as input. "
                           f"Got {_tname(a.dtype)}")


def _singular(name):
    return LinAlgError(f"linalg.{name}: The input matrix is singular, the inversion could not be "
                       "completed.")


def _getrf(x):
    """LU with partial pivoting of each matrix of ``x`` (m x n): ``(LU, pivots, info)``
    as LAPACK's getrf returns them (``L``'s unit diagonal implied, pivots 1-based)."""
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = x.shape[:-2]
    nb = int(np.prod(batch, dtype=np.int64))
    a = np.array(x.reshape((nb, m, n)), copy=True)
    piv = np.empty((nb, k), np.int32)
    info = np.zeros(nb, np.int32)
    rows = np.arange(nb)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for j in range(k):
            col = a[:, j:, j]
            mag = np.abs(col.real) + np.abs(col.imag) if a.dtype.kind == "c" else np.abs(col)
            p = np.argmax(mag, axis=1) + j
            piv[:, j] = p + 1
            swap = p != j
            if swap.any():
                r, q = rows[swap], p[swap]
                top = a[r, j].copy()
                a[r, j] = a[r, q]
                a[r, q] = top
            d = a[:, j, j]
            zero = d == 0
            info[(info == 0) & zero] = j + 1
            if j + 1 < m:
                scale = np.where(zero, 1, d)[:, None]
                a[:, j + 1:, j] = a[:, j + 1:, j] / scale
                if j + 1 < n:
                    a[:, j + 1:, j + 1:] -= a[:, j + 1:, j, None] * a[:, None, j, j + 1:]
    return a.reshape(x.shape), piv.reshape(batch + (k,)), info.reshape(batch)


def _first_zero_pivot(x):
    """``(batch element, 1-based index)`` of the first exact zero pivot of getrf's LU
    among the matrices of ``x`` (the batch element None for one matrix), or None."""
    info = _getrf(x)[2].reshape(-1)
    bad = np.flatnonzero(info > 0)
    if not bad.size:
        return None
    return (int(bad[0]) if x.ndim > 2 else None), int(info[bad[0]])


def _batch_prefix(i):
    return "" if i is None else f"(Batch element {i}): "


def _inv_k(x):
    _square("inv", x)
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError:
        zero = _first_zero_pivot(x)
    if zero is None:
        raise _singular("inv")
    raise LinAlgError(f"linalg.inv: {_batch_prefix(zero[0])}The diagonal element {zero[1]} is zero, the "
                      f"inversion could not be completed because the input matrix is singular.")


inv = defop("linalg_inv", _inv_k, {"x": lambda g, result: -(result.mH @ g @ result.mH)},
            jvp=lambda x_t, result: -(result @ x_t @ result),
            node_name="LinalgInvExBackward0", family=LINALG, method=False, upcast=False)


def _trace_of_inv_times(x, x_t):
    """tr(A^-1 dA) for each matrix: how a determinant's log moves."""
    return (inv(x) * x_t.mT).sum(-1).sum(-1)


def _det_k(x):
    _square("det", x)
    return np.asarray(np.linalg.det(x))


def _ill_conditioned(x, x_inv):
    """Whether ``det(A) A^-1`` is a poor way to the cofactors of some matrix of
    ``x``: its 1-norm condition number (from the inverse already computed)
    above ``eps^(-1/3)``, or not finite.  The product is right to first order
    there, but its derivative (det's second) loses ``eps * cond`` relatively,
    catastrophically at a numerically singular matrix."""
    a, ai = x._data, x_inv._data
    if a.size == 0:
        return False
    with np.errstate(all="ignore"):
        cond = np.abs(a).sum(-2).max(-1) * np.abs(ai).sum(-2).max(-1)
    return not bool(np.all(cond < np.finfo(a.dtype).eps ** (-1 / 3)))


def _inv_if_well_conditioned(x):
    """``inv(x)``, or None where the cofactors should come from the SVD (a
    singular or ill-conditioned matrix; a vmap stand-in whose values cannot be
    read uses the inverse unless it is exactly singular)."""
    try:
        x_inv = inv(x)
    except LinAlgError:
        return None
    if type(x) is Tensor and type(x_inv) is Tensor and _ill_conditioned(x, x_inv):
        return None
    return x_inv


def _det_vjp(g, result, x):
    x_inv = _inv_if_well_conditioned(x)
    if x_inv is None:
        return _det_vjp_singular(g, x)
    return (g * result.conj()).unsqueeze(-1).unsqueeze(-1) * x_inv.mH


def _prod_others_np(s):
    """For each element of the last dimension, the product of the others (no division)."""
    one = np.ones(s.shape[:-1] + (1,), s.dtype)
    front = np.cumprod(np.concatenate([one, s[..., :-1]], -1), -1)
    back = np.cumprod(np.concatenate([one, s[..., :0:-1]], -1), -1)[..., ::-1]
    return front * back


def _cofactors_k(x):
    n = x.shape[-1]
    if x.size == 0 or n == 0:
        return np.zeros(x.shape, x.dtype)
    u, s, vh = np.linalg.svd(x)
    c = np.linalg.det(u) * np.linalg.det(vh)
    out = c[..., None, None] * np.conj((u * _prod_others_np(s)[..., None, :]) @ vh)
    return out.astype(x.dtype, copy=False)


def _pair_others(s):
    """``Q_ij = prod_(k not in {i, j}) S_k`` off the diagonal, 0 on it (products
    only: the singular values may be zero)."""
    n = s.shape[-1]
    I = eye(n, dtype=bool)
    w = where(I, 1.0, s.unsqueeze(-2))          # row i: S with S_i replaced by 1
    return where(I, 0.0, _prod_others(w, -1))


def _cofactor_map(m, q):
    """The derivative of ``adj`` at a diagonal ``S`` in the direction ``M``:
    ``diag(Q diag(M)) - Q * M`` (``Q`` from ``_pair_others``, zero diagonal).
    The map is its own adjoint (``Q`` is real and symmetric)."""
    d = (q * m.diagonal(0, -2, -1).unsqueeze(-2)).sum(-1)
    return diag_embed(d) - q * m


def _cofactor_parts(x):
    u, s, vh = _svd(x, False)
    return u, _pair_others(s), vh, (det(u) * det(vh)).unsqueeze(-1).unsqueeze(-1)


def _cofactors_vjp(g, x):
    # with A = U S V^H, adj(A + dA) = c V adj(S + U^H dA V) U^H for c = det(U) det(V^H)
    # (adj(XY) = adj(Y) adj(X), adj(U) = det(U) U^H), so
    # d cof = (c V L(U^H dA V) U^H)^T, whose adjoint is U L(conj(c) V^H G^T U) V^H
    u, q, vh, c = _cofactor_parts(x)
    return u @ _cofactor_map(c.conj() * (vh @ g.mT @ u), q) @ vh


def _cofactors_jvp(x_t, x):
    u, q, vh, c = _cofactor_parts(x)
    return (c * (vh.mH @ _cofactor_map(u.mH @ x_t @ vh.mH, q) @ u.mH)).mT


# the cofactor matrix (adj(A)^T) of each matrix, from an SVD: defined at singular
# matrices, with derivatives free of divisions (det's second derivative there)
_cofactors = defop("_det_cofactors", _cofactors_k, {"x": _cofactors_vjp}, jvp=_cofactors_jvp,
                   family=LINALG, method=False, upcast=False)


def _det_vjp_singular(g, x):
    """det's vjp where some matrix of ``x`` is singular or ill-conditioned: ``g``
    times the conjugate cofactors."""
    return g.unsqueeze(-1).unsqueeze(-1) * _cofactors(x).conj()


def _det_jvp(x_t, result, x):
    """``tr(adj(A) dA)``: ``det(A) tr(A^-1 dA)``, or at a singular or
    ill-conditioned matrix the sum of the cofactors times ``dA`` (PyTorch's
    forward rule answers 0 at a singular matrix)."""
    x_inv = _inv_if_well_conditioned(x)
    if x_inv is None:
        return (_cofactors(x) * x_t).sum(-1).sum(-1)
    return result * (x_inv * x_t.mT).sum(-1).sum(-1)


det = defop("linalg_det", _det_k, {"x": _det_vjp}, jvp=_det_jvp,
            node_name="LinalgDetBackward0", family=LINALG, upcast=False)


def _slogdet_k(x):
    _square("slogdet", x)
    sign, logabs = np.linalg.slogdet(x)
    return np.asarray(sign), np.asarray(logabs)


def _slogdet_vjp(g, result, x):
    g_sign, g_log = g
    w = g_log
    if x.is_complex():
        w = w - 1j * (g_sign.conj() * result[0]).imag
    return w.unsqueeze(-1).unsqueeze(-1) * inv(x).mH


# a real matrix's sign does not move with it: no differentiable output (as in PyTorch)
def _slogdet_jvp(x_t, result, x):
    t = _trace_of_inv_times(x, x_t)
    if not x.is_complex():
        return result[0].new_zeros(result[0].shape), t
    return result[0] * (1j * t.imag), t.real


# (the vjp reads the sign only: logabsdet may be changed in place, as in PyTorch)
_slogdet_op = defop("linalg_slogdet", _slogdet_k, {"x": _slogdet_vjp}, jvp=_slogdet_jvp, out_saved=(0,),
                    node_name="LinalgSlogdetBackward0", family=LINALG, method=False, upcast=False)


def _solve_k(a, b):
    _square("solve", a)
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({a.shape[-2]}x{a.shape[-1]} and {b.shape[-2]}x{b.shape[-1]})")
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        zero = _first_zero_pivot(a)
    where_ = _batch_prefix(zero[0] if zero is not None else None)
    raise LinAlgError(f"torch.linalg.solve: {where_}The solver failed because the input matrix is singular.")


def _solve_vjp_b(g, a):
    return solve(a.mH, g)


def _solve_vjp_a(g, result, a):
    return -(solve(a.mH, g) @ result.mH)


solve = defop("linalg_solve", _solve_k, {"a": _solve_vjp_a, "b": _solve_vjp_b}, n_in=2, promote=True,
              jvp=lambda a_t, b_t, result, a: solve(a, b_t - a_t @ result),
              node_name="LinalgSolveExBackward0", family=LINALG, method=False, upcast=False)


_slogdet_rt = _return_type("slogdet", ("sign", "logabsdet"))


@public()
def inverse(input, *, out=None):
    """The inverse of each square matrix in the last two dimensions (``linalg.inv``)."""
    if out is not None:
        from .._out import call_with_out
        return call_with_out("inverse", inverse, (input,), {}, out)
    return inv(input)


@public(method=True)
def slogdet(input):
    """``(sign, logabsdet)`` of each square matrix: ``det = sign * exp(logabsdet)``."""
    return _slogdet_rt(*_slogdet_op(input))


@public()
def logdet(input):
    """log(det): NaN for a real matrix with a negative determinant, -inf for a singular one."""
    if isinstance(input, Tensor):
        try:
            _square("slogdet", input._data)
        except RuntimeError as e:           # (PyTorch's checks, in logdet's name)
            raise RuntimeError("logdet:" + str(e).split(":", 1)[1]) from None
    sign, logabs = _slogdet_op(input)
    if input.is_complex():
        return logabs + sign.log()
    return where(sign < 0, float("nan"), logabs)    # (PyTorch's: no gradient where it is NaN)


@public()
def matrix_power(input, n):
    """The ``n``-th power of each square matrix (its inverse's for negative ``n``) by
    repeated squaring; the identity for ``n = 0``."""
    if not isinstance(n, int) or isinstance(n, bool):
        try:                        # (a NumPy int, an integer tensor of one element)
            n = int_index(n, "n")
        except TypeError:
            pass
        if type(n) is not int:
            raise TypeError(f"matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}")
    if input.dim() < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{input.shape[-2] if input.dim() > 1 else 1} by {input.shape[-1]} matrices")
    if n == 0:                  # (the identity, with a zero gradient towards input, as PyTorch)
        n = input.shape[-1]
        return where(ones(input.shape, dtype=bool), eye(n, dtype=input.dtype), input)
    a = inv(input) if n < 0 else input
    n = abs(n)
    result = None
    while n:
        if n & 1:
            result = a if result is None else result @ a
        n >>= 1
        if n:
            a = a @ a
    return result
