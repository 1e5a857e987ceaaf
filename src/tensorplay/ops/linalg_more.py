"""More of ``torch.linalg`` over any leading batch dimensions: ``matrix_exp``,
the LU family (``lu_factor``/``lu_factor_ex``, ``lu``, ``lu_solve`` and
``torch.lu_unpack``), ``eig`` (``eigvals``) and ``lstsq`` (tensorplay/linalg.py
spells them there, with ``inv_ex``/``solve_ex`` built on them).

Kernels are NumPy, written here where NumPy has none:

* ``matrix_exp``: scaling and squaring with a diagonal Padé approximant
  (degree 3, 5, 7, 9 or 13 as the 1-norm allows, Higham's bounds, in double
  precision whatever the input's precision), each matrix of a batch scaled by
  its own power of two.  Its vjp is the upper right block of
  ``exp([[A^H, G], [0, A^H]])`` (the Fréchet derivative of ``exp`` at ``A^H``
  in the direction ``G``), and its jvp that of ``exp([[A, dA], [0, A]])``: both
  are ``matrix_exp`` again, so every order exists.
* ``lu_factor``: LU with partial pivoting, column by column over the whole
  batch, picking each pivot as LAPACK's ``getrf`` does (the first largest
  ``|re| + |im|`` in the column), so that pivots and factors are the ones
  PyTorch returns; pivots are 1-based, int32, and a zero pivot leaves its
  column unscaled (``info`` is the first such column, 1-based).
* ``eig``: NumPy's (LAPACK's geev), as complex tensors; unit eigenvectors with
  their largest component real, in LAPACK's order (the sign of a pair of
  complex eigenvectors of a real matrix may differ from PyTorch's build of
  LAPACK: eigenvectors are defined up to phase).
* ``lstsq``: ``'gelsy'`` (the default) is a Householder QR with column pivoting
  (the largest remaining column first); the rank is the largest leading block
  of ``R`` whose condition number stays below ``1 / rcond``, and the solution
  the minimum-norm one with the rest of ``R`` taken as zero.  ``'gelsd'`` and
  ``'gelss'`` truncate the SVD at ``rcond`` times the largest singular value;
  ``'gels'`` assumes full rank.

Gradients (PyTorch's ``linalg_lu_backward`` and its kin, derived from
``dA = P (dL U + L dU)``), written in tensorplay ops:

* square ``A = P L U``: ``gA = P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H``;
  a wide one (``U = [U1 | U2]``) and a tall one (``L = [L1; L2]``) reduce to it
  with the extra block's gradient added on;
* ``lu_factor``'s packed ``LU`` is ``tril(L, -1) + U``: its gradient is the
  above with ``gL`` its strictly lower part and ``gU`` its upper part;
* ``lu_solve``: ``X = A^-1 B`` gives ``gB = A^-H gX``, ``gA = -gB X^H`` (and
  the transposed forms for ``left=False``/``adjoint=True``), taken back to
  ``LU`` through ``A = P L U``;
* ``eig`` (``A V = V diag(L)``, unit columns): ``gA = V^-H (diag(gL) +
  offdiag(V^H gV - V^H V diag(Re(V^H gV))) / conj(E)) V^H`` with
  ``E_ij = L_j - L_i``; a loss that depends on the eigenvectors' phases (an
  imaginary ``diag(V^H gV)``) is refused with PyTorch's error;
* ``lstsq``: the solution's as ``pinv(A) @ B`` (at constant rank: right for
  full-rank ``A``, as PyTorch's), the residuals' (given only at a full-rank
  optimum) ``2 (A X - B) gR``.
"""
import math

import numpy as np

from .._creation import eye
from .._tensor import Tensor
from ._families import LINALG, batch_same, materialize
from ._registry import defop, dispatch, filled_zeros, public
from ._util import _tname
from .reduction import _return_type
from .shape import cat, diag_embed, tril, triu
from .matrices import _getrf, solve
from .decompositions import _batch_shape, _bool, _pinv_jvp, _pinv_vjp, _solve_triangular_k, pinv, solve_triangular

__all__ = ["matrix_exp", "lu_unpack"]

_absent = filled_zeros      # (an output that got no gradient: its terms are left out)


def _square(name, a):
    if a.ndim < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.{name}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


def _float_or_complex(name, a):
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.{name}: Expected a floating point or complex tensor as input. "
                           f"Got {_tname(a.dtype)}")


# ------------------------------------------------------------------ matrix_exp
def _pade_coefficients(m):
    """The coefficients c_0..c_m of the numerator of the [m/m] Padé approximant of
    exp (the denominator's are the same with alternating signs), scaled so that
    c_m = 1."""
    c = [math.factorial(2 * m - j) * math.factorial(m) /
         (math.factorial(2 * m) * math.factorial(j) * math.factorial(m - j)) for j in range(m + 1)]
    return [x / c[m] for x in c]


_PADE = {m: _pade_coefficients(m) for m in (3, 5, 7, 9, 13)}
# the largest 1-norm each degree takes at double precision (Higham 2005, table 2.3)
_THETA = ((3, 1.495585217958292e-2), (5, 2.539398330063230e-1), (7, 9.504178996162932e-1),
          (9, 2.097847961257068), (13, 5.371920351148152))


def _pade(a, m):
    """The [m/m] Padé approximant of exp at each matrix of ``a``: ``(V - U)^-1 (V + U)``
    with ``U`` the odd part and ``V`` the even part of the numerator."""
    c = _PADE[m]
    n = a.shape[-1]
    eye = np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape)
    a2 = a @ a
    power = eye
    odd = c[1] * eye
    even = c[0] * eye
    for k in range(1, m // 2 + 1):
        power = a2 if k == 1 else power @ a2
        even = even + c[2 * k] * power
        odd = odd + c[2 * k + 1] * power
    u = a @ odd
    return np.linalg.solve(even - u, even + u)


def _matrix_exp_k(x):
    _square("matrix_exp", x)
    _float_or_complex("matrix_exp", x)
    if x.size == 0:
        return x.copy()
    work = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    n = x.shape[-1]
    if n == 1:
        return np.exp(work).astype(x.dtype, copy=False)
    flat = work.reshape((-1, n, n))
    norm = np.abs(flat).sum(-2).max(-1)         # the 1-norm of each matrix
    finite = np.isfinite(norm)
    top = norm[finite].max() if finite.any() else 0.0
    for m, theta in _THETA[:-1]:
        if top <= theta:
            return _pade(work, m).astype(x.dtype, copy=False)
    theta = _THETA[-1][1]
    with np.errstate(divide="ignore"):
        s = np.where(finite & (norm > theta), np.ceil(np.log2(np.where(finite, norm, 1) / theta)), 0)
    s = s.astype(np.int64)
    r = _pade(flat * np.ldexp(1.0, -s)[:, None, None], 13)
    for k in range(int(s.max())):
        sel = s > k
        r[sel] = r[sel] @ r[sel]
    return r.reshape(x.shape).astype(x.dtype, copy=False)


def _upper_right_exp(a, b):
    """The upper right block of ``exp([[a, b], [0, a]])``: the derivative of exp at
    ``a`` in the direction ``b``."""
    n = a.shape[-1]
    z = a.new_zeros(tuple(a.shape))
    big = cat([cat([a, b], -1), cat([z, a], -1)], -2)
    return matrix_exp(big).narrow(-2, 0, n).narrow(-1, n, n)


def _matrix_exp_vjp(g, x):
    xh = x.mH
    if tuple(g.shape) != tuple(xh.shape):
        xh = xh.expand(tuple(g.shape))
    return _upper_right_exp(xh, g)


def _matrix_exp_jvp(x_t, x):
    if tuple(x_t.shape) != tuple(x.shape):
        x = x.expand(tuple(x_t.shape))
    return _upper_right_exp(x, x_t)


matrix_exp = defop("linalg_matrix_exp", _matrix_exp_k, {"x": _matrix_exp_vjp}, jvp=_matrix_exp_jvp,
                   node_name="LinalgMatrixExpBackward0", family=LINALG)


# ------------------------------------------------------------------ LU: kernels
def _lu_checks(fname, prefix, x, pivot):
    """PyTorch's checks of an LU factorization's input (``prefix`` names the function
    in the dimension error, as PyTorch's do: ``torch.lu_factor``, ``linalg.lu``)."""
    _bool(fname, "pivot", pivot)
    if x.ndim < 2:
        raise RuntimeError(f"{prefix}: Expected tensor with 2 or more dimensions. Got size: "
                           f"[{', '.join(str(d) for d in x.shape)}] instead")
    if x.dtype.kind not in "fc" or x.dtype.name in ("float16", "bfloat16"):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_tname(x.dtype)}'")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _permutation(piv, m):
    """The row order ``perm`` that getrf's pivots apply: ``(P^T A)[i] = A[perm[i]]``."""
    batch = piv.shape[:-1]
    nb = int(np.prod(batch, dtype=np.int64))
    flat = piv.reshape((nb, piv.shape[-1])).astype(np.int64) - 1
    perm = np.broadcast_to(np.arange(m), (nb, m)).copy()
    rows = np.arange(nb)
    for i in range(flat.shape[1]):
        q = flat[:, i]
        top = perm[:, i].copy()
        perm[:, i] = perm[rows, q]
        perm[rows, q] = top
    return perm.reshape(batch + (m,))


def _p_matrix(perm, dtype):
    m = perm.shape[-1]
    p = np.zeros(perm.shape + (m,), dtype)
    np.put_along_axis(p, perm[..., :, None], 1, -1)       # P^T[i, perm[i]] = 1
    return np.swapaxes(p, -1, -2).copy()


def _unpack_lu(lu):
    m, n = lu.shape[-2:]
    k = min(m, n)
    L = np.tril(lu[..., :, :k], -1)
    L[..., range(k), range(k)] = 1
    return L, np.triu(lu[..., :k, :])


def _lu_factor_ex_k(x, pivot=True, check_errors=False):
    _bool("linalg_lu_factor_ex", "check_errors", check_errors)
    _lu_checks("linalg_lu_factor_ex", "torch.lu_factor", x, pivot)
    lu, piv, info = _getrf(x)
    if check_errors:
        _lu_raise("lu_factor_ex", info)
    return lu, piv, info


def _lu_raise(name, info):
    bad = np.flatnonzero(info.reshape(-1) > 0)
    if bad.size:
        i = int(bad[0])
        j = int(info.reshape(-1)[i])
        where_ = f"(Batch element {i}): " if info.ndim else ""
        raise RuntimeError(f"torch.linalg.{name}: {where_}U[{j},{j}] is zero and using it on lu_solve would "
                           f"result in a division by zero. If you still want to perform the factorization, "
                           f"consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def _lu_k(x, pivot=True):
    _lu_checks("linalg_lu", "linalg.lu", x, pivot)
    lu, piv, _ = _getrf(x)
    L, U = _unpack_lu(lu)
    return _p_matrix(_permutation(piv, x.shape[-2]), x.dtype), L, U


def _lu_unpack_k(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    _bool("lu_unpack", "unpack_data", unpack_data)
    _bool("lu_unpack", "unpack_pivots", unpack_pivots)
    if LU_pivots.dtype != np.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
                           "dtype.\nNote: this function is intended to be used with the output produced by "
                           "torch.linalg.lu_factor")
    if LU_data.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"[{', '.join(str(d) for d in LU_data.shape)}] instead")
    m = LU_data.shape[-2]
    empty = np.zeros((0,), LU_data.dtype)
    if unpack_pivots:
        if LU_pivots.size and (LU_pivots.min() < 1 or LU_pivots.max() > m):
            raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive."
                               "Did you properly pass the result of lu_factor?")
        piv = np.broadcast_to(LU_pivots, LU_data.shape[:-2] + LU_pivots.shape[-1:])
        P = _p_matrix(_permutation(piv, m), LU_data.dtype)
    else:
        P = empty
    L, U = _unpack_lu(LU_data) if unpack_data else (empty, empty.copy())
    return P, L, U


def _lu_solve_k(LU, pivots, B, left=True, adjoint=False):
    _bool("linalg_lu_solve", "left", left)
    _bool("linalg_lu_solve", "adjoint", adjoint)
    if LU.ndim < 2:
        raise RuntimeError("torch.linalg.lu_solve: The input tensor A must have at least 2 dimensions.")
    if LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(f"torch.linalg.lu_solve: A must be batches of square matrices, but they are "
                           f"{LU.shape[-2]} by {LU.shape[-1]} matrices")
    if B.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if pivots.shape[-1:] != (n,):
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the dimension of "
                           "the matrix")
    if pivots.dtype != np.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    if pivots.shape[:-1] != LU.shape[:-2]:
        raise RuntimeError(f"linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got "
                           f"pivots with shape {list(pivots.shape)} instead")
    if LU.dtype != B.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{_tname(LU.dtype)} and B of type {_tname(B.dtype)} instead")
    if LU.dtype.kind not in "fc":
        raise RuntimeError(f"torch.linalg.lu_solve: Expected a floating point or complex tensor as input. "
                           f"Got {_tname(LU.dtype)}")
    if LU.dtype.name in ("float16", "bfloat16"):
        raise NotImplementedError(f"\"linalg.lu_solve_cpu\" not implemented for '{_tname(LU.dtype)}'")
    shape = _batch_shape(B.shape[:-2], LU.shape[:-2])
    if not left:                    # X A = B  <=>  A^H X^H = B^H
        B = np.conj(np.swapaxes(B, -1, -2))
        adjoint = not adjoint
    LU = np.broadcast_to(LU, shape + LU.shape[-2:])
    perm = np.broadcast_to(_permutation(pivots, n), shape + (n,))
    B = np.broadcast_to(B, shape + B.shape[-2:])
    if B.size == 0 or n == 0:
        x = np.zeros(B.shape, LU.dtype)
    elif not adjoint:               # U^-1 L^-1 P^T B
        y = np.take_along_axis(B, perm[..., :, None], -2)
        y = _solve_triangular_k(LU, y, False, True, True)
        x = _solve_triangular_k(LU, y, True, True, False)
    else:                           # P L^-H U^-H B
        LUh = np.conj(np.swapaxes(LU, -1, -2))
        y = _solve_triangular_k(LUh, B, False, True, False)
        y = _solve_triangular_k(LUh, y, True, True, True)
        x = np.empty_like(y)
        np.put_along_axis(x, perm[..., :, None], y, -2)
    if not left:
        x = np.conj(np.swapaxes(x, -1, -2))
    return np.ascontiguousarray(x)


# ------------------------------------------------------------------ LU: derivatives
def _lu_vjp_core(gL, gU, P, L, U):
    """``gA`` for ``A = P L U`` (PyTorch's linalg_lu_backward; see the module's docstring)."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    Lh = L.mH
    if m == n:
        M = tril(Lh @ gL, -1) + triu(gU @ U.mH)
        gA = solve_triangular(U.mH, M, upper=False, left=False)
        gA = solve_triangular(Lh, gA, upper=True, unitriangular=True)
    elif m < n:                     # U = [U1 | U2]
        U1, U2 = U.narrow(-1, 0, k), U.narrow(-1, k, n - k)
        gU1, gU2 = gU.narrow(-1, 0, k), gU.narrow(-1, k, n - k)
        M = tril(Lh @ gL - gU2 @ U2.mH, -1) + triu(gU1 @ U1.mH)
        gA1 = solve_triangular(U1.mH, M, upper=False, left=False)
        gA = solve_triangular(Lh, cat([gA1, gU2], -1), upper=True, unitriangular=True)
    else:                           # L = [L1; L2]
        L1, L2 = L.narrow(-2, 0, k), L.narrow(-2, k, m - k)
        gL1, gL2 = gL.narrow(-2, 0, k), gL.narrow(-2, k, m - k)
        M = tril(L1.mH @ gL1, -1) + triu(gU @ U.mH - L2.mH @ gL2)
        gA1 = solve_triangular(L1.mH, M, upper=True, unitriangular=True)
        gA = solve_triangular(U.mH, cat([gA1, gL2], -2), upper=False, left=False)
    return P @ gA


def _lu_jvp_core(dA, P, L, U):
    """``(dL, dU)`` for ``A = P L U`` moving by ``dA``."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    dA = P.mT @ dA
    if m == n:
        L1, U1, dA1 = L, U, dA
    elif m < n:
        L1, U1, dA1 = L, U.narrow(-1, 0, k), dA.narrow(-1, 0, k)
    else:
        L1, U1, dA1 = L.narrow(-2, 0, k), U, dA.narrow(-2, 0, k)
    X = solve_triangular(L1, dA1, upper=False, unitriangular=True)
    X = solve_triangular(U1, X, upper=True, left=False)
    dL = L1 @ tril(X, -1)
    dU = triu(X) @ U1
    if m < n:
        dU2 = solve_triangular(L, dA.narrow(-1, k, n - k) - dL @ U.narrow(-1, k, n - k), upper=False,
                               unitriangular=True)
        dU = cat([dU, dU2], -1)
    elif m > k:
        dL2 = solve_triangular(U, dA.narrow(-2, k, m - k) - L.narrow(-2, k, m - k) @ dU, upper=True,
                               left=False)
        dL = cat([dL, dL2], -2)
    return dL, dU


def _pack(dL, dU):
    """The packed ``LU`` form of ``(dL, dU)`` (m x k and k x n): ``tril(dL, -1) + triu(dU)``."""
    m, k, n = dL.shape[-2], dL.shape[-1], dU.shape[-1]
    lower, upper = tril(dL, -1), triu(dU)
    if n > k:
        lower = cat([lower, lower.new_zeros(tuple(lower.shape[:-1]) + (n - k,))], -1)
    if m > k:
        upper = cat([upper, upper.new_zeros(tuple(upper.shape[:-2]) + (m - k, n))], -2)
    return lower + upper


def _lu_factor_ex_vjp(g, result):
    LU, piv = result[0], result[1].detach()     # (rebuilt with create_graph: no gradient)
    P, L, U = _lu_unpack_op(LU, piv)
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    gLU = g[0]
    return _lu_vjp_core(gLU.narrow(-1, 0, k), gLU.narrow(-2, 0, k), P, L, U)


def _lu_factor_ex_jvp(x_t, result):
    P, L, U = _lu_unpack_op(result[0], result[1].detach())
    return _pack(*_lu_jvp_core(x_t, P, L, U)), None, None


def _lu_vjp(g, result):
    _, gL, gU = g
    P, L, U = result
    return _lu_vjp_core(gL, gU, P.detach(), L, U)


def _lu_jvp(x_t, result):
    P, L, U = result
    dL, dU = _lu_jvp_core(x_t, P, L, U)
    return None, dL, dU


def _lu_unpack_vjp(g, unpack_data):
    _, gL, gU = g
    if not unpack_data:             # (empty L and U: nothing flows back)
        return None
    return _pack(gL, gU)


def _lu_unpack_jvp(LU_data_t, LU_data, unpack_data):
    if not unpack_data:
        return None, None, None
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    return None, tril(LU_data_t.narrow(-1, 0, k), -1), triu(LU_data_t.narrow(-2, 0, k))


def _lu_solve_grads(g, result, LU, pivots, left, adjoint):
    """``(gLU, gB)`` of ``lu_solve``."""
    X = result
    gB = lu_solve(LU, pivots, g, left=left, adjoint=not adjoint)
    if left:
        gA = -(X @ gB.mH) if adjoint else -(gB @ X.mH)
    else:
        gA = -(gB.mH @ X) if adjoint else -(X.mH @ gB)
    P, L, U = _lu_unpack_op(LU, pivots)
    gA = P.mT @ gA                  # A = P L U: gL = P^T gA U^H, gU = L^H P^T gA
    return tril(gA @ U.mH, -1) + triu(L.mH @ gA), gB


def _lu_solve_vjp_lu(g, result, LU, pivots, left, adjoint):
    return _lu_solve_grads(g, result, LU, pivots, left, adjoint)[0]


def _lu_solve_vjp_b(g, LU, pivots, left, adjoint):
    return lu_solve(LU, pivots, g, left=left, adjoint=not adjoint)


def _lu_solve_jvp(LU_t, B_t, result, LU, pivots, left, adjoint):
    P, L, U = _lu_unpack_op(LU, pivots)
    dA = P @ (tril(LU_t, -1) @ U + L @ triu(LU_t))
    X = result
    if adjoint:
        dA = dA.mH
    rhs = B_t - (dA @ X if left else X @ dA)
    return lu_solve(LU, pivots, rhs, left=left, adjoint=adjoint)


def _batch_cores(cores):
    """A batching rule for an op whose tensor inputs have ``cores`` trailing
    dimensions each (the rest a batch, broadcast): the vmap dimension first,
    unbatched inputs expanded to it, batch ranks padded to line up."""
    def rule(op, args, bdims):
        size = next(a.shape[b] for a, b in zip(args, bdims) if b is not None)
        new = list(args)
        ranks = [args[i].ndim - (bdims[i] is not None) - c for i, c in enumerate(cores)]
        top = max(ranks)
        for i, c in enumerate(cores):
            t = materialize(args[i], bdims[i], size)
            if ranks[i] < top:
                t = t.reshape((size,) + (1,) * (top - ranks[i]) + tuple(t.shape[1:]))
            new[i] = t
        return dispatch(op, new), 0
    return rule


lu_factor_ex = defop("linalg_lu_factor_ex", _lu_factor_ex_k, {"x": _lu_factor_ex_vjp}, jvp=_lu_factor_ex_jvp,
                     kwonly=("pivot", "check_errors"), nondiff_out=(1, 2), node_name="LinalgLuFactorExBackward0",
                     family=LINALG, method=False, upcast=False)
lu = defop("linalg_lu", _lu_k, {"x": _lu_vjp}, jvp=_lu_jvp, kwonly=("pivot",), nondiff_out=(0,),
           node_name="LinalgLuBackward0", family=LINALG, method=False, upcast=False)
_lu_unpack_op = defop("lu_unpack", _lu_unpack_k, {"LU_data": _lu_unpack_vjp}, n_in=2, jvp=_lu_unpack_jvp,
                  nondiff_out=(0,), node_name="LuUnpackBackward0", family=LINALG, method=False, upcast=False,
                  batch=_batch_cores((2, 1)))
lu_solve = defop("linalg_lu_solve", _lu_solve_k, {"LU": _lu_solve_vjp_lu, "B": _lu_solve_vjp_b}, n_in=3,
                 jvp=_lu_solve_jvp, kwonly=("left", "adjoint"), node_name="LinalgLuSolveBackward0",
                 family=LINALG, method=False, upcast=False, batch=_batch_cores((2, 1, 2)))


_lu_unpack_rt = _return_type("lu_unpack", ("P", "L", "U"))


@public(method=False)
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``(P, L, U)`` from ``linalg.lu_factor``'s packed ``LU`` and pivots (empty
    ``L``, ``U`` without ``unpack_data``, empty ``P`` without ``unpack_pivots``)."""
    if out is not None:
        from .._out import call_with_out
        return call_with_out("lu_unpack", lu_unpack, (LU_data, LU_pivots),
                             {"unpack_data": unpack_data, "unpack_pivots": unpack_pivots}, out)
    return _lu_unpack_rt(*_lu_unpack_op(LU_data, LU_pivots, unpack_data, unpack_pivots))



# ------------------------------------------------------------------ eig
_EIG_PHASE_MSG = ("linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication "
                  "by e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.")


def _eig_k(x):
    _square("eig", x)
    if x.dtype.name in ("float16", "bfloat16"):
        raise NotImplementedError(f"\"linalg_eig_out_cpu\" not implemented for '{_tname(x.dtype)}'")
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"Unknown Complex ScalarType for {_tname(x.dtype)}")
    cdt = np.complex64 if x.dtype in (np.float32, np.complex64) else np.complex128
    n = x.shape[-1]
    if x.size == 0:
        return np.zeros(x.shape[:-1], cdt), np.zeros(x.shape, cdt)
    if not np.isfinite(x).all():
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    w, v = np.linalg.eig(x)
    return w.astype(cdt, copy=False), v.astype(cdt, copy=False).reshape(x.shape[:-2] + (n, n))


def _eig_vjp(g, result):
    gL, gV = g
    L, V = result
    Vh = V.mH
    if _absent(gV):                         # the eigenvalues alone: V^-H diag(gL) V^H
        return solve(Vh, diag_embed(gL.to(V.dtype)) @ Vh)
    VhgV = Vh @ gV
    d = VhgV.diagonal(0, -2, -1)
    if type(VhgV) is Tensor and np.any(np.abs(d.imag._data) > 1e-2):
        raise RuntimeError(_EIG_PHASE_MSG)
    VhgV = VhgV - Vh @ (V * d.real.unsqueeze(-2))
    n = L.shape[-1]
    Lc = L.conj()
    I = eye(n, dtype=V.dtype)
    E = Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + I      # conj(L_j - L_i), 1 on the diagonal
    inner = VhgV / E
    inner = inner - diag_embed(inner.diagonal(0, -2, -1))
    if not _absent(gL):
        inner = inner + diag_embed(gL.to(V.dtype))
    return solve(Vh, inner @ Vh)


def _eig_jvp(x_t, result):
    L, V = result
    X = solve(V, x_t.to(V.dtype) @ V)               # V^-1 dA V
    dL = X.diagonal(0, -2, -1)
    n = L.shape[-1]
    I = eye(n, dtype=V.dtype)
    E = L.unsqueeze(-2) - L.unsqueeze(-1) + I
    off = X / E
    dV = V @ (off - diag_embed(off.diagonal(0, -2, -1)))
    # keep each column's norm: take out its real component along itself
    dV = dV - V * (V.mH @ dV).diagonal(0, -2, -1).real.unsqueeze(-2)
    return dL, dV


eig = defop("linalg_eig", _eig_k, {"x": _eig_vjp}, jvp=_eig_jvp, node_name="LinalgEigBackward0",
            family=LINALG, method=False, upcast=False)



# ------------------------------------------------------------------ lstsq
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _householder_qrp(a, b):
    """QR with column pivoting of ``a`` (m x n), the largest remaining column first
    (LAPACK's geqp3): ``(R, perm, c)`` with ``a[:, perm] = Q R`` and ``c = Q^H b``."""
    a, b = a.copy(), b.copy()
    m, n = a.shape
    perm = np.arange(n)
    for j in range(min(m, n)):
        norms = np.linalg.norm(a[j:, j:], axis=0)
        p = j + int(np.argmax(norms))
        if p != j:
            a[:, [j, p]] = a[:, [p, j]]
            perm[[j, p]] = perm[[p, j]]
        x = a[j:, j]
        alpha = np.linalg.norm(x)
        if alpha == 0:
            continue
        phase = x[0] / abs(x[0]) if x[0] != 0 else 1
        v = x.copy()
        v[0] += phase * alpha
        v /= np.linalg.norm(v)
        a[j:, j:] -= 2 * np.outer(v, np.conj(v) @ a[j:, j:])
        b[j:] -= 2 * np.outer(v, np.conj(v) @ b[j:])
    return np.triu(a[:min(m, n)]), perm, b


def _gelsy(a, b, rcond):
    """gelsy's answer for one matrix: the rank ``r`` of the leading block of the
    pivoted QR whose condition number stays below ``1 / rcond``, and the
    minimum-norm solution with the rest of ``R`` taken as zero."""
    m, n = a.shape
    x = np.zeros((n, b.shape[-1]), np.result_type(a, b))
    if m == 0 or n == 0:
        return x, 0
    R, perm, c = _householder_qrp(a, b)
    k = min(m, n)
    rank = 0
    if abs(R[0, 0]) != 0:
        rank = 1
        for r in range(2, k + 1):
            s = np.linalg.svd(R[:r, :r], compute_uv=False)
            if s[-1] * (1 / rcond) <= s[0] if rcond > 0 else s[-1] == 0:
                break
            rank = r
    y = np.linalg.lstsq(R[:rank], c[:rank], rcond=None)[0]
    x[perm] = y
    return x, rank


def _lstsq_k(a, b, rcond=None, driver=None):
    if driver is None:
        driver = "gelsy"
    m, n = a.shape[-2:]
    real = a.real.dtype
    batch = _batch_shape(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    k = b.shape[-1]
    if rcond is None:
        rcond = float(np.finfo(real).eps) * max(m, n)
    rcond = float(rcond)
    nb = int(np.prod(batch, dtype=np.int64))
    fa, fb = a.reshape((nb, m, n)), b.reshape((nb, m, k))
    x = np.zeros((nb, n, k), a.dtype)
    rank = np.zeros(nb, np.int64)
    sv = np.zeros((nb, min(m, n)), real)
    for i in range(nb):
        if driver == "gelsy":
            x[i], rank[i] = _gelsy(fa[i], fb[i], rcond)
        elif m and n:
            if driver == "gels":
                x[i] = np.linalg.lstsq(fa[i], fb[i], rcond=None)[0]
            else:
                u, s, vh = np.linalg.svd(fa[i], full_matrices=False)
                keep = s > rcond * s[0] if rcond >= 0 else s > 0
                inv = np.where(keep, 1 / np.where(keep, s, 1), 0)
                x[i] = np.conj(vh.T) @ (inv[:, None] * (np.conj(u.T) @ fb[i]))
                rank[i], sv[i] = keep.sum(), s
    full = driver != "gelsy" and m > n and (driver == "gels" or bool((rank == n).all()))
    if full and nb:
        res = (np.abs(np.einsum("bij,bjk->bik", fa, x) - fb) ** 2).sum(-2).reshape(batch + (k,))
    else:
        res = np.zeros((0,), real)
    x = x.reshape(batch + (n, k))
    rank = rank.reshape(batch) if driver != "gels" else np.zeros((0,), np.int64)
    sv = sv.reshape(batch + (min(m, n),)) if driver in ("gelsd", "gelss") else np.zeros((0,), real)
    return x, res.astype(real, copy=False), rank, sv


def _lstsq_grads(g, result, a, b):
    """PyTorch's: the solution's through ``pinv(A) B`` (at constant rank), the
    residuals' (computed only at a full-rank optimum) ``2 (A X - B) gR``."""
    gX, gR = g[0], g[1]
    X = result[0]
    P = pinv(a)
    gA = _pinv_vjp(gX @ b.mH, P, a)
    gB = P.mH @ gX
    if result[1].numel() and not _absent(gR):
        r = (a @ X - b) * (2 * gR.unsqueeze(-2))
        gA = gA + r @ X.mH
        gB = gB - r
    return gA, gB


def _lstsq_jvp(a_t, b_t, result, a, b, rcond, driver):
    P = pinv(a)
    dX = _pinv_jvp(a_t, P, a) @ b + P @ b_t
    X = result[0]
    dR = None
    if result[1].numel():
        r = a @ X - b
        d = a_t @ X + a @ dX - b_t
        dR = 2 * (r.conj() * d).real.sum(-2)
    return dX, dR, None, None


def _lstsq_batch(op, args, bdims):
    """``batch_same``, with the empty outputs (residuals, rank, singular values a
    driver does not compute) given the batch dimension too."""
    size = next(a.shape[b] for a, b in zip(args, bdims) if b is not None)
    out, _ = batch_same(op, args, bdims)
    return tuple(t if t.dim() > 1 or t.numel() else t.new_zeros((size, 0)) for t in out), 0


lstsq = defop("linalg_lstsq", _lstsq_k,
              {"a": lambda g, result, a, b: _lstsq_grads(g, result, a, b)[0],
               "b": lambda g, result, a, b: _lstsq_grads(g, result, a, b)[1]},
              n_in=2, jvp=_lstsq_jvp, kwonly=("driver",), nondiff_out=(2, 3), node_name="LinalgLstsqBackward0",
              family=LINALG, method=False, upcast=False, batch=_lstsq_batch)
