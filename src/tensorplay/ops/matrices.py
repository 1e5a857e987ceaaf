"""Functions of square matrices: inverse, determinant (with its sign and log),
and linear solve, over any leading batch dimensions (NumPy's stacked
``linalg``).  They are ``torch.linalg``'s ``inv``, ``det``, ``slogdet`` and
``solve`` (tensorplay/linalg.py spells them there, and as ``tp.inverse``,
``tp.det``, ``tp.logdet``, ``tp.slogdet``).

vjps follow PyTorch's convention (``g * conj(df/dz)``), written in tensorplay
ops so that they differentiate again:

* ``inv``:  ``-Y^H g Y^H`` for ``Y = A^-1``;
* ``det``:  ``g conj(det A) A^-H``, the conjugate of the cofactor matrix (the
  adjugate's transpose).  A singular ``A`` has no inverse: its cofactors come
  from an SVD ``A = U S V^H`` as ``det(U) det(V^H) U diag(prod_(j!=i) S_j) V^H``
  (as PyTorch's), written in ops, so higher orders and the forward rule there
  exist too (PyTorch's forward rule answers 0 at a singular matrix);
* ``slogdet``: ``w A^-H`` with ``w = g_logabsdet - i Im(conj(g_sign) sign)``
  (the sign of a complex determinant moves with ``A``; a real one does not);
* ``solve``: ``X = A^-1 B`` gives ``gB = A^-H g`` and ``gA = -gB X^H``.
"""
import numpy as np

from .._autograd.grad_mode import state
from .._creation import eye, ones
from .._tensor import _wrap, int_index
from ._families import LINALG
from ._registry import defop, public
from .pointwise import where
from ._util import LinAlgError, _tname
from .decompositions import _svd
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


def _inv_k(x):
    _square("inv", x)
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise _singular("inv") from None


inv = defop("linalg_inv", _inv_k, {"x": lambda g, result: -(result.mH @ g @ result.mH)},
            jvp=lambda x_t, result: -(result @ x_t @ result),
            node_name="LinalgInvExBackward0", family=LINALG, method=False, upcast=False)


def _trace_of_inv_times(x, x_t):
    """tr(A^-1 dA) for each matrix: how a determinant's log moves."""
    return (inv(x) * x_t.mT).sum(-1).sum(-1)


def _det_k(x):
    _square("det", x)
    return np.asarray(np.linalg.det(x))


def _det_vjp(g, result, x):
    try:
        x_inv = inv(x)
    except LinAlgError:
        return _det_vjp_singular(g, x)
    return (g * result.conj()).unsqueeze(-1).unsqueeze(-1) * x_inv.mH


def _cofactors(x):
    """The cofactor matrix of each matrix of ``x`` (``adj(A)^T``, ``det(A) A^-T``
    where ``A`` is invertible), from an SVD ``A = U S V^H`` as
    ``det(U) det(V^H) conj(U diag(prod_(j!=i) S_j) V^H)``: defined at singular matrices
    too, and written in registry ops, so it differentiates again (where the
    singular values are distinct: a repeated one makes the SVD's derivative,
    and PyTorch's, infinite)."""
    u, s, vh = _svd(x, False)
    others = _prod_others(s, -1)            # (no division: the singular values may be zero)
    return (det(u) * det(vh)).unsqueeze(-1).unsqueeze(-1) * ((u * others.unsqueeze(-2)) @ vh).conj()


def _det_vjp_singular(g, x):
    """det's vjp where some matrix of ``x`` is singular: ``g`` times the
    conjugate cofactors."""
    return g.unsqueeze(-1).unsqueeze(-1) * _cofactors(x).conj()


def _det_jvp(x_t, result, x):
    """``tr(adj(A) dA)``: ``det(A) tr(A^-1 dA)``, or at a singular matrix the sum
    of the cofactors times ``dA`` (PyTorch's forward rule answers 0 there)."""
    try:
        return result * _trace_of_inv_times(x, x_t)
    except LinAlgError:
        return (_cofactors(x) * x_t).sum(-1).sum(-1)


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


_slogdet_op = defop("linalg_slogdet", _slogdet_k, {"x": _slogdet_vjp}, jvp=_slogdet_jvp,
                    node_name="LinalgSlogdetBackward0", family=LINALG, method=False, upcast=False)


def _solve_k(a, b):
    _square("solve", a)
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({a.shape[-2]}x{a.shape[-1]} and {b.shape[-2]}x{b.shape[-1]})")
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise LinAlgError("linalg.solve: The solver failed because the input matrix is singular.") \
            from None


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
