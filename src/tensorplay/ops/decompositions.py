"""Matrix decompositions over any leading batch dimensions: ``torch.linalg``'s
``cholesky`` (and ``cholesky_ex``), ``eigh`` (and ``eigvalsh``), ``svd`` (and
``svdvals``), ``qr``, ``pinv`` and ``solve_triangular`` (tensorplay/linalg.py
spells them there, with ``cond``, ``matrix_rank`` and the singular-value
norms built on them; ``tp.svd`` and ``tp.pinverse`` are the older
``torch.svd`` and ``torch.pinverse``).

Kernels are NumPy's stacked ``linalg`` (LAPACK); the vjps follow PyTorch's
convention (``g * conj(df/dz)``) and are written in tensorplay ops, so that
they differentiate again:

* ``cholesky`` (``A = L L^H``): ``gA = L^-H P L^-1`` with ``P`` the Hermitian
  matrix whose lower triangle is ``tril(L^H gL)`` with its diagonal halved;
  ``upper=True`` works on ``U = L^H``.
* ``eigh`` (``A = V diag(L) V^H``): ``gA = V (diag(gL) + skew(V^H gV) / E) V^H``
  with ``skew(X) = (X - X^H) / 2`` and ``E_ij = L_j - L_i``.  Eigenvectors are
  defined up to a sign (a phase, for complex ones): a loss that depends on
  the phase is refused, as PyTorch does; repeated eigenvalues give inf/NaN when
  the eigenvectors get a gradient (their derivative does not exist), and the
  eigenvalues alone differentiate anywhere.
* ``svd`` (``A = U diag(S) V^H``, ``k = min(m, n)``):
  ``gA = U [(skew(U^H gU) S + S skew(V^H gV)) / E + diag(gS) + i Im diag(U^H gU) / S] V^H
  + (I - U U^H) gU S^-1 V^H + U S^-1 gV^H (I - V V^H)`` with ``skew(X) = X - X^H``
  and ``E_ij = S_j^2 - S_i^2``; with ``full_matrices`` only the first ``k``
  columns of ``U`` and rows of ``Vh`` (their gradients too) take part, as in
  PyTorch (the others are any orthonormal completion).
* ``qr`` (``A = Q R``, ``m >= n``): with ``X = Q^H dA R^-1``, ``Q^H dQ = C =
  tril(X, -1) - tril(X, -1)^H + i Im diag(X)`` and ``dR = (X - C) R``, whose adjoint
  gives ``gA = [Q (M1 + phi*(M2 - M1) - M2) + gQ] R^-H`` for ``M1 = gR R^H``,
  ``M2 = Q^H gQ``, ``phi*(N) = tril(N - N^H, -1) + i Im diag(N)``; a wide ``A``
  is ``Q [R1 | R2]`` with ``(Q, R1)`` the QR of its square part and
  ``R2 = Q^H A2``.  ``mode='r'`` and a tall ``mode='complete'`` are not
  differentiable (PyTorch's errors).
* ``pinv``: the derivative at constant rank (Golub and Pereyra), as PyTorch's,
  ``gA = -P^H g P^H + (I - A P) g^H P P^H + P^H P g^H (I - P A)``.
* ``solve_triangular`` (``X = A^-1 B``): ``gB = A^-H g``, ``gA = -gB X^H`` on
  ``A``'s triangle (without its diagonal when ``unitriangular``).

An output that gets no gradient reaches a vjp as zeros (``MultiOutputNode``)
marked as filled in (``filled_zeros``); their terms are left out, so that, as
in PyTorch, ``eigh(A).eigenvalues.sum()`` differentiates at repeated
eigenvalues (zeros given as a gradient count, as in PyTorch: NaN there).
"""
import numpy as np

from .._creation import eye
from .._tensor import Tensor
from ._families import LINALG
from ._registry import defop, filled_zeros, public
from ._util import LinAlgError, _tname
from .pointwise import where
from .reduction import _return_type
from .shape import cat, diag_embed, tril, triu

__all__ = ["pinverse", "svd"]


def _matrices(name, a, kernel=None, square=True, int_kernel=False):
    """PyTorch's checks of a batch of matrices: at least two dimensions, square
    (``square``), a LAPACK dtype (half/bfloat16: ``"<kernel>" not implemented``;
    integers: that too with ``int_kernel``, else linalg's RuntimeError)."""
    if a.ndim < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if square and a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.{name}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if a.dtype.name in ("float16", "bfloat16") or (int_kernel and a.dtype.kind not in "fc"):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_tname(a.dtype)}'")
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.{name}: Expected a floating point or complex tensor as input. "
                           f"Got {_tname(a.dtype)}")


def _bool(fname, pname, v):
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{fname}(): argument '{pname}' must be bool, not {type(v).__name__}")


_absent = filled_zeros      # (an output that got no gradient: its terms are left out)


def _plain(t):
    """A tensor whose values may be read (not a vmap stand-in)."""
    return type(t) is Tensor


def _eye_like(n, t):
    return eye(n, dtype=t.dtype)


# ------------------------------------------------------------------ solve_triangular
try:                                    # optional: SciPy's LAPACK trtrs (faster for large n)
    from scipy.linalg import solve_triangular as _scipy_trsolve
except ImportError:                     # NumPy substitution (below)
    _scipy_trsolve = None

_BLOCK = 32         # rows per block of the substitution (the rest is one matmul per block)


def _substitute(a, b, upper):
    """``A^-1 B`` for triangular ``A`` by substitution (forward for lower, back for
    upper), over the broadcast batch and all right-hand sides at once: blocks of
    ``_BLOCK`` rows, each updated with one matmul from the blocks solved before
    and solved row by row.  Backward stable, as LAPACK's trsm; a zero on the
    diagonal gives inf/NaN (trsm's answer, where an LU solve would refuse)."""
    n = a.shape[-1]
    x = np.empty(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:], np.result_type(a, b))
    starts = range(0, n, _BLOCK)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for j0 in (reversed(starts) if upper else starts):
            j1 = min(j0 + _BLOCK, n)
            if upper:
                rhs = b[..., j0:j1, :] - a[..., j0:j1, j1:] @ x[..., j1:, :]
            else:
                rhs = b[..., j0:j1, :] - a[..., j0:j1, :j0] @ x[..., :j0, :]
            for i in (range(j1 - 1, j0 - 1, -1) if upper else range(j0, j1)):
                lo, hi = (i + 1, j1) if upper else (j0, i)
                acc = rhs[..., i - j0, :]
                if hi > lo:
                    acc = acc - (a[..., i, lo:hi, None] * x[..., lo:hi, :]).sum(-2)
                x[..., i, :] = acc / a[..., i, i, None]
    return x


def _trsolve(a, b, upper):
    """``A^-1 B`` for a batch of triangular ``A`` (the other triangle already zero):
    SciPy's trtrs matrix by matrix where SciPy is installed and the batch is
    small next to the order, else the NumPy substitution."""
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    count = int(np.prod(shape)) if shape else 1
    if _scipy_trsolve is None or count == 0 or count > max(1, a.shape[-1] // 8) or a.shape[-1] == 0:
        return _substitute(a, b, upper)
    a3 = np.broadcast_to(a, shape + a.shape[-2:]).reshape((-1,) + a.shape[-2:])
    b3 = np.broadcast_to(b, shape + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    try:
        x = np.stack([_scipy_trsolve(m, r, lower=not upper, check_finite=False) for m, r in zip(a3, b3)])
    except np.linalg.LinAlgError:       # (a zero on the diagonal: trtrs refuses, trsm gives inf/NaN)
        return _substitute(a, b, upper)
    return x.reshape(shape + b.shape[-2:])


def _solve_triangular_k(a, b, upper, left=True, unitriangular=False):
    for pname, v in (("upper", upper), ("left", left), ("unitriangular", unitriangular)):
        _bool("linalg_solve_triangular", pname, v)
    _matrices("solve_triangular", a, "triangular_solve_cpu", int_kernel=True)
    if b.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")
    _matrices("solve_triangular", b, "triangular_solve_cpu", square=False, int_kernel=True)
    n = a.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                           f"{eq} ({n}x{n} and {b.shape[-2]}x{b.shape[-1]})")
    if not left:                # X A = B  <=>  A^T X^T = B^T
        a, b, upper = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not upper
    a = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        a = a.copy()
        a[..., range(n), range(n)] = 1
    _batch_shape(b.shape[:-2], a.shape[:-2])      # (PyTorch's message, B named first)
    dt = np.result_type(a, b)
    x = _trsolve(a.astype(dt, copy=False), b.astype(dt, copy=False), upper).astype(dt, copy=False)
    return np.swapaxes(x, -1, -2) if not left else x


def _batch_shape(sa, sb):
    """The broadcast of two batch shapes, refused in PyTorch's words (dimensions
    counted in the batch shape)."""
    n = max(len(sa), len(sb))
    sa, sb = (1,) * (n - len(sa)) + tuple(sa), (1,) * (n - len(sb)) + tuple(sb)
    for i, (x, y) in enumerate(zip(sa, sb)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {i}")
    return tuple(max(x, y) if min(x, y) != 0 else 0 for x, y in zip(sa, sb))


def _tri(a, upper, unitriangular):
    """The part of ``a`` a triangular solve reads (and so its gradient's support)."""
    k = 1 if unitriangular else 0
    return triu(a, k) if upper else tril(a, -k)


def _st_vjp_b(g, a, upper, left, unitriangular):
    return solve_triangular(a.mH, g, upper=not upper, left=left, unitriangular=unitriangular)


def _st_vjp_a(g, result, a, upper, left, unitriangular):
    gb = solve_triangular(a.mH, g, upper=not upper, left=left, unitriangular=unitriangular)
    ga = -(gb @ result.mH) if left else -(result.mH @ gb)
    return _tri(ga, upper, unitriangular)


def _st_jvp(a_t, b_t, result, a, upper, left, unitriangular):
    a_t = _tri(a_t, upper, unitriangular)
    rhs = b_t - (a_t @ result if left else result @ a_t)
    return solve_triangular(a, rhs, upper=upper, left=left, unitriangular=unitriangular)


solve_triangular = defop("linalg_solve_triangular", _solve_triangular_k,
                         {"a": _st_vjp_a, "b": _st_vjp_b}, n_in=2, promote=True, jvp=_st_jvp,
                         kwonly=("upper", "left", "unitriangular"),
                         node_name="LinalgSolveTriangularBackward0", family=LINALG, method=False,
                         upcast=False)


# ------------------------------------------------------------------ cholesky
def _leading_minor(m, upper):
    """The order of the first leading minor of ``m`` that is not positive-definite."""
    for k in range(1, m.shape[-1] + 1):
        try:
            np.linalg.cholesky(m[:k, :k], upper=upper)
        except np.linalg.LinAlgError:
            return k
    return m.shape[-1]


def _not_pd(name, x, upper):
    flat = x.reshape((-1,) + x.shape[-2:])
    for i, m in enumerate(flat):
        try:
            np.linalg.cholesky(m, upper=upper)
        except np.linalg.LinAlgError:
            where_ = f"(Batch element {i}): " if x.ndim > 2 else ""
            return LinAlgError(f"linalg.{name}: {where_}The factorization could not be completed because "
                               f"the input is not positive-definite (the leading minor of order "
                               f"{_leading_minor(m, upper)} is not positive-definite).")
    return LinAlgError(f"linalg.{name}: The factorization could not be completed because the input is "
                       f"not positive-definite.")


def _cholesky_k(x, upper=False):
    _bool("linalg_cholesky", "upper", upper)
    _matrices("cholesky", x, "cholesky_cpu")
    try:
        return np.linalg.cholesky(x, upper=bool(upper))
    except np.linalg.LinAlgError:
        raise _not_pd("cholesky", x, upper) from None


def _cholesky_vjp(g, result, upper):
    L, gL = (result.mH, g.mH) if upper else (result, g)
    p = tril(L.mH @ gL)
    p = 0.5 * (p + tril(p, -1).mH)          # Hermitian, its diagonal halved
    p = solve_triangular(L.mH, p, upper=True)
    return solve_triangular(L, p, upper=False, left=False)


def _cholesky_jvp(x_t, result, upper):
    L = result.mH if upper else result
    # L^-1 dA L^-H, then its lower triangle with the diagonal halved
    m = solve_triangular(L, x_t, upper=False)
    m = solve_triangular(L.mH, m, upper=True, left=False)
    phi = tril(m, -1) + 0.5 * diag_embed(m.diagonal(0, -2, -1))
    dL = L @ phi
    return dL.mH if upper else dL


cholesky = defop("linalg_cholesky", _cholesky_k, {"x": _cholesky_vjp}, jvp=_cholesky_jvp,
                 kwonly=("upper",), node_name="LinalgCholeskyExBackward0", family=LINALG,
                 method=False, upcast=False)


def _partial_cholesky(m):
    """LAPACK's unblocked lower Cholesky (potf2) of one matrix, stopped at the first
    leading minor that is not positive-definite: ``(L, order)``, ``L`` holding the
    columns done, the offending pivot's value on the diagonal and ``m``'s lower
    triangle after it (what PyTorch's ``cholesky_ex`` returns), ``order`` 0 when
    all went through."""
    a = np.tril(m).astype(m.dtype, copy=True)
    n = a.shape[-1]
    for j in range(n):
        row = a[j, :j]
        ajj = (a[j, j] - np.vdot(row, row)).real
        if not ajj > 0:
            a[j, j] = ajj
            return a, j + 1
        ljj = np.sqrt(ajj)
        a[j, j] = ljj
        a[j + 1:, j] = (a[j + 1:, j] - a[j + 1:, :j] @ np.conj(row)) / ljj
    return a, 0


def _cholesky_ex_k(x, upper=False, check_errors=False):
    _bool("linalg_cholesky_ex", "upper", upper)
    _bool("linalg_cholesky_ex", "check_errors", check_errors)
    _matrices("cholesky_ex", x, "cholesky_cpu")
    info = np.zeros(x.shape[:-2], np.int32)
    try:
        return np.linalg.cholesky(x, upper=bool(upper)), info
    except np.linalg.LinAlgError:
        if check_errors:
            raise _not_pd("cholesky_ex", x, upper) from None
    # the upper factor of A is the conjugate transpose of the lower one of A^H
    flat = x.reshape((-1,) + x.shape[-2:])
    out = np.empty_like(flat)
    for i, m in enumerate(flat):
        lo, info.flat[i] = _partial_cholesky(np.conj(m.T) if upper else m)
        out[i] = np.conj(lo.T) if upper else lo
    return out.reshape(x.shape), info


cholesky_ex = defop("linalg_cholesky_ex", _cholesky_ex_k, {"x": lambda g, result, upper: _cholesky_vjp(
                        g[0], result[0], upper)},
                    jvp=lambda x_t, result, upper: (_cholesky_jvp(x_t, result[0], upper), None),
                    kwonly=("upper", "check_errors"), nondiff_out=(1,), node_name="LinalgCholeskyExBackward0",
                    family=LINALG, method=False, upcast=False)


# ------------------------------------------------------------------ eigh
def _eigh_k(x, UPLO="L"):
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _matrices("eigh", x, "linalg_eigh_cpu", int_kernel=True)
    w, v = np.linalg.eigh(x, UPLO=UPLO.upper())
    return w, v


def _eigh_vjp(g, result):
    gL, gV = g
    L, V = result
    if _absent(gV):                         # the eigenvalues alone: V diag(gL) V^H
        return (V * gL.unsqueeze(-2)) @ V.mH
    VhgV = V.mH @ gV
    if V.is_complex() and _plain(VhgV):
        if np.any(np.abs(VhgV.diagonal(0, -2, -1).imag._data) > 1e-2):
            raise RuntimeError("linalg_eigh_backward: The eigenvectors in the complex case are specified "
                               "up to multiplication by e^{i phi}. The specified loss function depends "
                               "on this quantity, so it is ill-defined.")
    VhgV = 0.5 * (VhgV - VhgV.mH)
    n = L.shape[-1]
    I = _eye_like(n, L)
    E = L.unsqueeze(-2) - L.unsqueeze(-1) + I        # (1 on the diagonal, replaced below)
    inner = where(I.bool(), diag_embed(gL).to(VhgV.dtype), VhgV / E)
    return V @ inner @ V.mH


def _eigh_jvp(x_t, result):
    L, V = result
    m = V.mH @ x_t @ V
    dL = m.diagonal(0, -2, -1)
    dL = dL.real if dL.is_complex() else dL
    n = L.shape[-1]
    I = _eye_like(n, L)
    E = L.unsqueeze(-2) - L.unsqueeze(-1) + I
    dV = V @ where(I.bool(), 0.0, m / E)
    return dL, dV


_eigh = defop("linalg_eigh", _eigh_k, {"x": _eigh_vjp}, jvp=_eigh_jvp,
              node_name="LinalgEighBackward0", family=LINALG, method=False, upcast=False)


# ------------------------------------------------------------------ svd
def _np_svd(x, full_matrices):
    """NumPy's SVD, its failure in PyTorch's words (non-finite input: the first
    matrix with a NaN or an infinity)."""
    try:
        return np.linalg.svd(x, full_matrices=full_matrices)
    except np.linalg.LinAlgError:
        flat = x.reshape((-1,) + x.shape[-2:])
        bad = np.flatnonzero(~np.isfinite(flat).all((-2, -1)))
        if not bad.size:
            raise LinAlgError("linalg.svd: The algorithm failed to converge because the input matrix is "
                              "ill-conditioned or has too many repeated singular values.") from None
        where_ = f"(Batch element {int(bad[0])}): " if x.ndim > 2 else ""
        raise LinAlgError(f"linalg.svd: {where_}The algorithm failed to converge because the input matrix "
                          f"contained non-finite values.") from None


def _svd_k(x, full_matrices=True):
    _bool("linalg_svd", "full_matrices", full_matrices)
    _matrices("svd", x, "linalg_svd_cpu", square=False)
    u, s, vh = _np_svd(x, bool(full_matrices))
    return u, s.astype(x.real.dtype, copy=False), vh


def _svd_narrow(t, k, dim):
    return t.narrow(dim, 0, k) if t.shape[dim] != k else t


def _svd_vjp(g, result, full_matrices):
    gU, gS, gVh = g
    U, S, Vh = result
    k = S.shape[-1]
    if full_matrices:
        U, gU = _svd_narrow(U, k, -1), _svd_narrow(gU, k, -1)
        Vh, gVh = _svd_narrow(Vh, k, -2), _svd_narrow(gVh, k, -2)
    m, n = U.shape[-2], Vh.shape[-1]
    no_u, no_v = _absent(gU), _absent(gVh)
    if no_u and no_v:                       # the singular values alone: U diag(gS) V^H
        return (U * gS.unsqueeze(-2)) @ Vh
    V = Vh.mH
    UhgU = None if no_u else U.mH @ gU
    VhgV = None if no_v else Vh @ gVh.mH
    cplx = U.is_complex()
    if cplx and (UhgU is None or _plain(UhgU)) and (VhgV is None or _plain(VhgV)):
        iu = 0 if UhgU is None else 2 * UhgU.diagonal(0, -2, -1).imag._data
        iv = 0 if VhgV is None else 2 * VhgV.diagonal(0, -2, -1).imag._data
        if not np.allclose(iu, -iv, rtol=1e-2, atol=1e-2):
            raise RuntimeError("svd_backward: The singular vectors in the complex case are specified up to "
                               "multiplication by e^{i phi}. The specified loss function depends on this "
                               "phase term, making it ill-defined.")
    S2 = S * S
    I = _eye_like(k, S)
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + I     # (1 on the diagonal: 0 / 1 there)
    inner = None
    if UhgU is not None:
        inner = (UhgU - UhgU.mH) * S.unsqueeze(-2)
    if VhgV is not None:
        t = S.unsqueeze(-1) * (VhgV - VhgV.mH)
        inner = t if inner is None else inner + t
    inner = inner / E + diag_embed(gS)
    if cplx and UhgU is not None:
        inner = inner + diag_embed(1j * UhgU.diagonal(0, -2, -1).imag / S)
    gA = U @ inner @ Vh
    if m > k and UhgU is not None:
        gA = gA + ((gU - U @ UhgU) / S.unsqueeze(-2)) @ Vh
    if n > k and VhgV is not None:
        gA = gA + U @ ((gVh - (gVh @ V) @ Vh) / S.unsqueeze(-1))
    return gA


def _svd_jvp(x_t, result, full_matrices):
    U, S, Vh = result
    k = S.shape[-1]
    Uk, Vhk = _svd_narrow(U, k, -1), _svd_narrow(Vh, k, -2)
    V = Vhk.mH
    m, n = Uk.shape[-2], Vhk.shape[-1]
    dP = Uk.mH @ x_t @ V
    d = dP.diagonal(0, -2, -1)
    dS = d.real if d.is_complex() else d
    S2 = S * S
    I = _eye_like(k, S)
    F = where(I.bool(), 0.0, 1.0 / (S2.unsqueeze(-2) - S2.unsqueeze(-1) + I))
    Sr, Sc = S.unsqueeze(-2), S.unsqueeze(-1)
    om_u = F * (dP * Sr + Sc * dP.mH)
    om_v = F * (Sc * dP + dP.mH * Sr)
    if dP.is_complex():         # the phase: half on each side (PyTorch's gauge)
        half = diag_embed(1j * d.imag / (2 * S))
        om_u, om_v = om_u + half, om_v - half
    dU = Uk @ om_u
    dV = V @ om_v
    if m > k:
        dU = dU + (x_t @ V - Uk @ (Uk.mH @ x_t @ V)) / Sr
    if n > k:
        xh = x_t.mH @ Uk
        dV = dV + (xh - V @ (V.mH @ xh)) / Sr
    if full_matrices and (m > k or n > k):
        # the completion's columns: PyTorch's full_matrices tangents are those of the
        # reduced factors with zeros for the extra columns
        if m > k:
            dU = _pad_cols(dU, m)
        if n > k:
            dV = _pad_cols(dV, n)
    return dU, dS, dV.mH


def _pad_cols(t, total):
    k = t.shape[-1]
    return cat([t, t.new_zeros(tuple(t.shape[:-1]) + (total - k,))], -1)


_svd = defop("linalg_svd", _svd_k, {"x": _svd_vjp}, jvp=_svd_jvp,
             node_name="LinalgSvdBackward0", family=LINALG, method=False, upcast=False)


# ------------------------------------------------------------------ qr
_QR_R_MSG = ("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
             "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
_QR_COMPLETE_MSG = "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."


def _qr_k(x, mode="reduced"):
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' "
                           f"(default), 'r', or 'complete'")
    _matrices("qr", x, "geqrf_cpu", square=False)
    if mode == "r":
        return np.zeros((0,), x.dtype), np.linalg.qr(x, mode="r").astype(x.dtype, copy=False)
    q, r = np.linalg.qr(x, mode=mode)
    return q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)


def _qr_differentiable(Q, R, mode):
    if mode == "r":
        raise RuntimeError(_QR_R_MSG)
    if mode == "complete" and Q.shape[-2] > R.shape[-1]:
        raise RuntimeError(_QR_COMPLETE_MSG)


def _qr_phi_adjoint(N):
    """The adjoint of ``X -> tril(X, -1) - tril(X, -1)^H + i Im diag(X)`` (how
    ``Q^H dQ`` follows from ``X = Q^H dA R^-1``)."""
    t = tril(N - N.mH, -1)
    if N.is_complex():
        t = t + diag_embed(1j * N.diagonal(0, -2, -1).imag)
    return t


def _qr_vjp_tall(gQ, gR, Q, R):
    """``A = Q R`` with ``R`` square (``m >= n``)."""
    M1 = gR @ R.mH
    M2 = Q.mH @ gQ
    W = Q @ (M1 + _qr_phi_adjoint(M2 - M1) - M2) + gQ
    return solve_triangular(R.mH, W, upper=False, left=False)         # W R^-H


def _qr_vjp(g, result, mode):
    gQ, gR = g
    Q, R = result
    _qr_differentiable(Q, R, mode)
    m, n = Q.shape[-2], R.shape[-1]
    if m >= n:
        return _qr_vjp_tall(gQ, gR, Q, R)
    # A = Q [R1 | R2]: (Q, R1) is the QR of A's first m columns, R2 = Q^H A2 with A2 = Q R2
    R1, R2 = R.narrow(-1, 0, m), R.narrow(-1, m, n - m)
    gR1, gR2 = gR.narrow(-1, 0, m), gR.narrow(-1, m, n - m)
    g1 = _qr_vjp_tall(gQ + (Q @ R2) @ gR2.mH, gR1, Q, R1)
    return cat([g1, Q @ gR2], -1)


def _qr_jvp_tall(dA, Q, R):
    X = solve_triangular(R, Q.mH @ dA, upper=True, left=False)       # Q^H dA R^-1
    C = tril(X, -1)
    C = C - C.mH
    if X.is_complex():
        C = C + diag_embed(1j * X.diagonal(0, -2, -1).imag)
    dR = (X - C) @ R
    dQ = solve_triangular(R, dA, upper=True, left=False) - Q @ X + Q @ C
    return dQ, dR


def _qr_jvp(x_t, result, mode):
    Q, R = result
    _qr_differentiable(Q, R, mode)
    m, n = Q.shape[-2], R.shape[-1]
    if m >= n:
        return _qr_jvp_tall(x_t, Q, R)
    R1, R2 = R.narrow(-1, 0, m), R.narrow(-1, m, n - m)
    dQ, dR1 = _qr_jvp_tall(x_t.narrow(-1, 0, m), Q, R1)
    dR2 = dQ.mH @ (Q @ R2) + Q.mH @ x_t.narrow(-1, m, n - m)
    return dQ, cat([dR1, dR2], -1)


_qr = defop("linalg_qr", _qr_k, {"x": _qr_vjp}, jvp=_qr_jvp, node_name="LinalgQrBackward0",
            family=LINALG, method=False, upcast=False)


# ------------------------------------------------------------------ pinv
def _pinv_tolerance(s_max, m, n, atol, rtol, real):
    """PyTorch's threshold ``max(atol, rtol * S_max)`` per matrix: ``rtol``
    defaults to ``eps * max(m, n)``, or to 0 where a positive ``atol`` is given."""
    eps = np.finfo(real).eps * max(m, n)
    a = np.zeros((), real) if atol is None else np.asarray(atol, real)
    if rtol is None:
        r = np.full((), eps, real) if atol is None else np.where(a > 0, 0, eps).astype(real)
    else:
        r = np.asarray(rtol, real)
    return np.maximum(a, r * s_max)


def _pinv_k(x, atol=None, rtol=None, hermitian=False):
    if x.ndim < 2 or x.dtype.name not in ("float32", "float64", "complex64", "complex128"):
        shape = ", ".join(str(d) for d in x.shape)
        raise RuntimeError(f"linalg.pinv({_tname(x.dtype)}{{[{shape}]}}): expected a tensor with 2 or more "
                           f"dimensions of float, double, cfloat or cdouble types")
    if hermitian:
        _matrices("eigh", x, "linalg_eigh_cpu")
    m, n = x.shape[-2:]
    real = x.real.dtype
    if x.size == 0:
        return np.zeros(x.shape[:-2] + (n, m), x.dtype)
    if hermitian:
        w, v = np.linalg.eigh(x)
        s = np.abs(w)
    else:
        u, s, vh = _np_svd(x, False)
        w = s
    tol = _pinv_tolerance(s.max(-1), m, n, atol, rtol, real)[..., None]
    keep = s > tol
    inv = np.where(keep, 1 / np.where(keep, w, 1), 0).astype(real)
    if hermitian:
        return ((v * inv[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2))).astype(x.dtype, copy=False)
    return ((np.conj(np.swapaxes(vh, -1, -2)) * inv[..., None, :]) @
            np.conj(np.swapaxes(u, -1, -2))).astype(x.dtype, copy=False)


def _pinv_vjp(g, result, x):
    """The derivative of the pseudo-inverse at constant rank (Golub and Pereyra):
    ``dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P``, transposed."""
    P, Ph, gh = result, result.mH, g.mH
    return -(Ph @ g @ Ph) + (gh - x @ (P @ gh)) @ (P @ Ph) + (Ph @ P) @ (gh - (gh @ P) @ x)


def _pinv_jvp(x_t, result, x):
    P, Ph, th = result, result.mH, x_t.mH
    return -(P @ x_t @ P) + (P @ Ph) @ (th - (th @ x) @ P) + (th - P @ (x @ th)) @ (Ph @ P)


pinv = defop("linalg_pinv", _pinv_k, {"x": _pinv_vjp}, jvp=_pinv_jvp, kwonly=("atol", "rtol", "hermitian"),
             node_name="LinalgPinvBackward0", family=LINALG, method=False, upcast=False)


@public(method=True)
def pinverse(input, rcond=1e-15):
    """The pseudo-inverse with singular values up to ``rcond`` times the largest
    counted as zero (``linalg.pinv(input, rtol=rcond)``)."""
    return pinv(input, rtol=rcond)


_svd_rt = _return_type("svd", ("U", "S", "V"))


@public(method=True)
def svd(input, some=True, compute_uv=True, *, out=None):
    """``(U, S, V)`` with ``input = U diag(S) V^H`` (``torch.svd``: ``V``, not ``Vh``;
    ``some=False`` gives square ``U`` and ``V``; ``compute_uv=False``, zero ``U``, ``V``)."""
    if out is not None:
        from .._out import call_with_out
        return call_with_out("svd", svd, (input,), {"some": some, "compute_uv": compute_uv}, out)
    if not compute_uv:          # (PyTorch's zeros are square, whatever ``some`` says)
        s = _svd(input, False)[1]
        m, n = input.shape[-2], input.shape[-1]
        lead = tuple(input.shape[:-2])
        return _svd_rt(input.new_zeros(lead + (m, m)), s, input.new_zeros(lead + (n, n)))
    U, S, Vh = _svd(input, not some)
    return _svd_rt(U, S, Vh.mH)
