"""tensorplay.linalg's matrix_exp, LU family, eig, inv_ex/solve_ex and lstsq
(ops/linalg_more.py): what the op table (tests/opdb/linalg_more.py) cannot
check.  Values through identities (exp of nilpotent and diagonalizable
matrices, ``P L U = A``, ``A V = V diag(L)``, the normal equations), LAPACK's
pivots and PyTorch's values where they are defined (the eigenvectors' phase
and gelsy's rank-deficient answers are not), singular inputs, the outputs a
driver leaves empty, PyTorch's refusals, and the function transforms through
them."""
import numpy as np
import pytest

import tensorplay as tp
from tensorplay.func import jacfwd, jacrev, vmap

from conftest import torch

DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": 1e-4, "complex64": 1e-4, "float64": 1e-10, "complex128": 1e-10}


def _rand(shape, dtype, seed=0):
    g = np.random.default_rng(seed)
    a = g.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * g.standard_normal(shape)
    return a.astype(dtype)


def _mh(a):
    return np.conj(np.swapaxes(a, -1, -2))


# ----------------------------------------------------------------- matrix_exp
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scale", [1e-3, 0.5, 3.0, 40.0])
def test_matrix_exp_of_hermitian_matches_eigh(dtype, scale):
    a = _rand((3, 4, 4), dtype, seed=1) * scale / 4
    h = (a + _mh(a)).astype(dtype)
    w, v = np.linalg.eigh(h.astype(np.complex128))
    want = (v * np.exp(w)[..., None, :]) @ _mh(v)
    r = tp.linalg.matrix_exp(tp.tensor(h))
    assert r.dtype == getattr(tp, dtype) and tuple(r.shape) == (3, 4, 4)
    np.testing.assert_allclose(r.numpy(), want if dtype.startswith("complex") else want.real,
                               rtol=TOL[dtype] * 10, atol=TOL[dtype] * np.abs(want).max())


def test_matrix_exp_identities():
    n = np.diag(np.ones(3), 1)                       # nilpotent: the series stops
    want = np.eye(4) + n + n @ n / 2 + n @ n @ n / 6
    np.testing.assert_allclose(tp.linalg.matrix_exp(tp.tensor(n)).numpy(), want, atol=1e-15)
    a = tp.tensor(_rand((2, 5, 5), "float64", seed=2) * 3)
    prod = tp.linalg.matrix_exp(a) @ tp.linalg.matrix_exp(-a)
    np.testing.assert_allclose(prod.numpy(), np.broadcast_to(np.eye(5), (2, 5, 5)), atol=1e-9)
    # each matrix of a batch is scaled on its own: a tiny one next to a large one
    b = np.stack([np.eye(2) * 1e-6, np.array([[0.0, 30.0], [-30.0, 0.0]])])
    r = tp.linalg.matrix_exp(tp.tensor(b)).numpy()
    np.testing.assert_allclose(r[0], np.eye(2) * np.exp(1e-6), rtol=1e-15)
    np.testing.assert_allclose(r[1], [[np.cos(30), np.sin(30)], [-np.sin(30), np.cos(30)]], atol=1e-12)
    assert tp.matrix_exp(a).grad_fn is None and a.matrix_exp().shape == a.shape


def test_matrix_exp_zero_size_and_half():
    assert tuple(tp.linalg.matrix_exp(tp.zeros(0, 3, 3)).shape) == (0, 3, 3)
    assert tuple(tp.linalg.matrix_exp(tp.zeros(2, 0, 0)).shape) == (2, 0, 0)
    r = tp.linalg.matrix_exp(tp.ones(2, 2, dtype=tp.float16))     # (computed in float32)
    assert r.dtype == tp.float16
    np.testing.assert_allclose(r.float().numpy(), (np.exp(2) + 1) / 2 * np.eye(2) +
                               (np.exp(2) - 1) / 2 * (1 - np.eye(2)), rtol=1e-3)


def test_matrix_exp_gradients_and_transforms():
    a = tp.tensor(_rand((2, 3, 3), "complex128", seed=3), requires_grad=True)
    assert tp.autograd.gradcheck(tp.linalg.matrix_exp, (a,))
    assert tp.autograd.gradgradcheck(tp.linalg.matrix_exp, (a,))
    x = tp.tensor(_rand((3, 3), "float64", seed=4))
    jr = jacrev(tp.linalg.matrix_exp)(x)
    jf = jacfwd(tp.linalg.matrix_exp)(x)
    np.testing.assert_allclose(jr.numpy(), jf.numpy(), atol=1e-10)
    xs = tp.tensor(_rand((4, 3, 3), "float64", seed=5))
    np.testing.assert_allclose(vmap(tp.linalg.matrix_exp)(xs).numpy(), tp.linalg.matrix_exp(xs).numpy(),
                               atol=1e-14)


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_matrix_exp_against_torch():
    a = _rand((2, 4, 4), "complex128", seed=6) * 2
    g = _rand((2, 4, 4), "complex128", seed=7)
    x = tp.tensor(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    r, tr = tp.linalg.matrix_exp(x), torch.linalg.matrix_exp(tx)
    np.testing.assert_allclose(r.detach().numpy(), tr.detach().numpy(), rtol=1e-12, atol=1e-12)
    (gx,) = tp.autograd.grad(r, x, tp.tensor(g))
    (tgx,) = torch.autograd.grad(tr, tx, torch.tensor(g))
    np.testing.assert_allclose(gx.numpy(), tgx.numpy(), rtol=1e-10, atol=1e-10)
    assert type(r.grad_fn).__name__ == type(tr.grad_fn).__name__ == "LinalgMatrixExpBackward0"


# ----------------------------------------------------------------- LU
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 4, 4), (3, 5), (5, 3), (2, 1, 3, 6)])
def test_lu_reconstructs(dtype, shape):
    a = _rand(shape, dtype, seed=8)
    P, L, U = tp.linalg.lu(tp.tensor(a))
    m, n = shape[-2:]
    k = min(m, n)
    assert (tuple(P.shape[-2:]), tuple(L.shape[-2:]), tuple(U.shape[-2:])) == ((m, m), (m, k), (k, n))
    assert P.dtype == L.dtype == U.dtype == getattr(tp, dtype)
    p, lo, up = P.numpy(), L.numpy(), U.numpy()
    np.testing.assert_array_equal(lo, np.tril(lo))
    np.testing.assert_array_equal(up, np.triu(up))
    np.testing.assert_array_equal(np.diagonal(lo, 0, -2, -1), 1)
    # partial pivoting, the pivot the largest |re| + |im| (LAPACK's): |L| <= 1, or sqrt(2) if complex
    assert np.all(np.abs(lo) <= (np.sqrt(2) if dtype.startswith("complex") else 1) + 1e-6)
    np.testing.assert_allclose(p @ lo @ up, a, atol=TOL[dtype] * 10)
    LU, piv = tp.linalg.lu_factor(tp.tensor(a))
    assert piv.dtype == tp.int32 and tuple(piv.shape) == shape[:-2] + (k,)
    P2, L2, U2 = tp.lu_unpack(LU, piv)
    for x, y in ((P2, P), (L2, L), (U2, U)):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


@pytest.mark.skipif(torch is None, reason="torch not installed")
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_lu_factor_pivots_match_lapack(dtype):
    a = _rand((3, 6, 6), dtype, seed=9)
    a[1, :, 2] = 0                                   # a zero column: info, as getrf
    a[2] = np.round(a[2])                            # ties between |values|
    r = tp.linalg.lu_factor_ex(tp.tensor(a))
    t = torch.linalg.lu_factor_ex(torch.tensor(a))
    np.testing.assert_array_equal(r.pivots.numpy(), t.pivots.numpy())
    np.testing.assert_array_equal(r.info.numpy(), t.info.numpy())
    np.testing.assert_allclose(r.LU.numpy(), t.LU.numpy(), atol=1e-12)
    assert r.info.numpy().tolist() == [0, 3, 0]


def test_lu_singular():
    z = tp.zeros(3, 3)
    P, L, U = tp.linalg.lu(z)                        # P = L = I, U = 0 (as LAPACK)
    np.testing.assert_array_equal(P.numpy(), np.eye(3))
    np.testing.assert_array_equal(L.numpy(), np.eye(3))
    np.testing.assert_array_equal(U.numpy(), 0)
    with pytest.raises(RuntimeError, match=r"^torch.linalg.lu_factor: U\[1,1\] is zero"):
        tp.linalg.lu_factor(z)
    LU, piv, info = tp.linalg.lu_factor_ex(tp.stack([tp.eye(3), z]))
    assert info.numpy().tolist() == [0, 1]
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\): U\[1,1\] is zero"):
        tp.linalg.lu_factor_ex(tp.stack([tp.eye(3), z]), check_errors=True)


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_lu_unpack_flags_against_torch():
    a = _rand((2, 4, 3), "float64", seed=10)
    LU, piv = tp.linalg.lu_factor(tp.tensor(a))
    tLU, tpiv = torch.linalg.lu_factor(torch.tensor(a))
    for kw in (dict(unpack_data=False), dict(unpack_pivots=False), dict(unpack_data=False, unpack_pivots=False)):
        r, t = tp.lu_unpack(LU, piv, **kw), torch.lu_unpack(tLU, tpiv, **kw)
        for x, y in zip(r, t):
            assert tuple(x.shape) == tuple(y.shape), kw
            np.testing.assert_allclose(x.numpy(), y.numpy())
    assert type(tp.lu_unpack(LU, piv)).__name__ == "lu_unpack"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_solves(dtype, left, adjoint):
    a = _rand((2, 4, 4), dtype, seed=11) + 3 * np.eye(4, dtype=dtype)
    b = _rand((3, 1, 4, 2) if left else (2, 2, 4), dtype, seed=12)
    LU, piv = tp.linalg.lu_factor(tp.tensor(a))
    x = tp.linalg.lu_solve(LU, piv, tp.tensor(b), left=left, adjoint=adjoint).numpy()
    op = _mh(a) if adjoint else a
    back = op @ x if left else x @ op
    np.testing.assert_allclose(back, np.broadcast_to(b, back.shape), atol=TOL[dtype] * 100)


def test_lu_gradients_and_transforms():
    a = tp.tensor(_rand((2, 3, 3), "complex128", seed=13), requires_grad=True)
    b = tp.tensor(_rand((2, 3, 2), "complex128", seed=14), requires_grad=True)

    def f(a, b):
        LU, piv = tp.linalg.lu_factor(a)
        return tp.linalg.lu_solve(LU, piv, b, adjoint=True)
    assert tp.autograd.gradcheck(f, (a, b))
    assert tp.autograd.gradgradcheck(f, (a, b))
    x = tp.tensor(_rand((4, 3), "float64", seed=15))
    lu_l = lambda x: tp.linalg.lu(x).L                      # noqa: E731
    np.testing.assert_allclose(jacrev(lu_l)(x).numpy(), jacfwd(lu_l)(x).numpy(), atol=1e-10)
    xs = tp.tensor(_rand((5, 3, 3), "float64", seed=16))
    bs = tp.tensor(_rand((3, 2), "float64", seed=17))
    g = vmap(lambda m: tp.linalg.lu_solve(*tp.linalg.lu_factor(m), bs))(xs)
    np.testing.assert_allclose(g.numpy(), np.linalg.solve(xs.numpy(), bs.numpy()), atol=1e-12)


@pytest.mark.skipif(torch is None, reason="torch not installed")
@pytest.mark.parametrize("shape", [(3, 3), (3, 5), (5, 3)])
def test_lu_grads_against_torch(shape):
    a = _rand((2,) + shape, "float64", seed=18)
    g = [_rand((2,) + s, "float64", seed=19 + i) for i, s in enumerate(
        [(shape[0], min(shape)), (min(shape), shape[1]), shape])]
    x, tx = tp.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    _, L, U = tp.linalg.lu(x)
    _, tL, tU = torch.linalg.lu(tx)
    loss = (L * tp.tensor(g[0])).sum() + (U * tp.tensor(g[1])).sum() + \
        (tp.linalg.lu_factor(x).LU * tp.tensor(g[2])).sum()
    tloss = (tL * torch.tensor(g[0])).sum() + (tU * torch.tensor(g[1])).sum() + \
        (torch.linalg.lu_factor(tx).LU * torch.tensor(g[2])).sum()
    (gx,), (tgx,) = tp.autograd.grad(loss, x), torch.autograd.grad(tloss, tx)
    np.testing.assert_allclose(gx.numpy(), tgx.numpy(), rtol=1e-9, atol=1e-9)


# ----------------------------------------------------------------- eig
@pytest.mark.parametrize("dtype", DTYPES)
def test_eig_reconstructs(dtype):
    a = _rand((2, 4, 4), dtype, seed=20)
    L, V = tp.linalg.eig(tp.tensor(a))
    cdt = "complex64" if dtype in ("float32", "complex64") else "complex128"
    assert L.dtype == V.dtype == getattr(tp, cdt)
    lv, vv = L.numpy(), V.numpy()
    np.testing.assert_allclose(a @ vv, vv * lv[..., None, :], atol=TOL[dtype] * 100)
    np.testing.assert_allclose(np.linalg.norm(vv, axis=-2), 1, rtol=TOL[dtype] * 10)
    np.testing.assert_array_equal(tp.linalg.eigvals(tp.tensor(a)).numpy(), lv)


def test_eig_phase_error_and_gradients():
    a = tp.tensor(_rand((3, 3), "complex128", seed=21), requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^linalg_eig_backward: The eigenvectors in the complex case are "
                                           r"specified up to multiplication by e\^\{i phi\}"):
        tp.autograd.grad(tp.linalg.eig(a).eigenvectors[0, 0].imag, a)
    # a loss that does not depend on the phase differentiates
    (g,) = tp.autograd.grad(tp.linalg.eig(a).eigenvectors.abs().sum(), a)
    assert np.isfinite(g.numpy()).all()

    def f(a):
        L, V = tp.linalg.eig(a)
        return (V * L.sin().unsqueeze(-2)) @ tp.linalg.inv(V)
    r = tp.tensor(_rand((2, 3, 3), "float64", seed=22), requires_grad=True)
    assert tp.autograd.gradcheck(f, (r,)) and tp.autograd.gradgradcheck(f, (r,))
    assert tp.autograd.gradcheck(lambda a: tp.linalg.eigvals(a), (r,))


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_eig_grads_against_torch():
    a = _rand((2, 4, 4), "complex128", seed=23)
    x, tx = tp.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    L, V = tp.linalg.eig(x)
    tL, tV = torch.linalg.eig(tx)
    w = np.arange(4.0)
    loss = (V.abs() ** 2 * tp.tensor(w)).sum() + (L * L).real.sum()
    tloss = (tV.abs() ** 2 * torch.tensor(w)).sum() + (tL * tL).real.sum()
    np.testing.assert_allclose(tp.autograd.grad(loss, x)[0].numpy(), torch.autograd.grad(tloss, tx)[0].numpy(),
                               atol=1e-9)
    np.testing.assert_allclose(L.detach().numpy(), tL.detach().numpy(), atol=1e-12)


# ----------------------------------------------------------------- inv_ex, solve_ex
@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_ex_variants_of_singular_matrices_match_torch():
    for m in (np.zeros((2, 2)), np.array([[1.0, 2.0], [2.0, 4.0]]), np.eye(2)):
        r, t = tp.linalg.inv_ex(tp.tensor(m)), torch.linalg.inv_ex(torch.tensor(m))
        np.testing.assert_array_equal(r.inverse.numpy(), t.inverse.numpy())
        assert r.info.item() == t.info.item()
        b = np.ones((2, 1))
        r, t = tp.linalg.solve_ex(tp.tensor(m), tp.tensor(b)), torch.linalg.solve_ex(torch.tensor(m),
                                                                                     torch.tensor(b))
        np.testing.assert_array_equal(r.result.numpy(), t.result.numpy())
        assert r.info.item() == t.info.item()


def test_ex_check_errors():
    batch = tp.stack([tp.eye(2), tp.zeros(2, 2)])
    with pytest.raises(tp.linalg.LinAlgError, match=r"^linalg.inv_ex: \(Batch element 1\): The diagonal element 1 "
                                                    r"is zero, the inversion could not be completed"):
        tp.linalg.inv_ex(batch, check_errors=True)
    with pytest.raises(tp.linalg.LinAlgError, match=r"^torch.linalg.solve_ex: The solver failed because the "
                                                    r"input matrix is singular.$"):
        tp.linalg.solve_ex(tp.zeros(2, 2), tp.ones(2, 1), check_errors=True)
    inv, info = tp.linalg.inv_ex(tp.eye(3) * 2)
    assert info.dtype == tp.int32 and info.item() == 0
    np.testing.assert_allclose(inv.numpy(), np.eye(3) / 2)


# ----------------------------------------------------------------- lstsq
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("driver", [None, "gels", "gelsd", "gelss"])
def test_lstsq_normal_equations(dtype, driver):
    a = _rand((2, 6, 3), dtype, seed=24)
    b = _rand((2, 6, 2), dtype, seed=25)
    X, res, rank, sv = tp.linalg.lstsq(tp.tensor(a), tp.tensor(b), driver=driver)
    x = X.numpy()
    assert X.dtype == getattr(tp, dtype)
    np.testing.assert_allclose(_mh(a) @ (a @ x - b), 0, atol=TOL[dtype] * 100)
    if driver is None:                              # gelsy: rank, no residuals
        assert res.numel() == 0 and rank.numpy().tolist() == [3, 3] and sv.numel() == 0
    else:
        np.testing.assert_allclose(res.numpy(), (np.abs(a @ x - b) ** 2).sum(-2), rtol=TOL[dtype] * 100)
    if driver in ("gelsd", "gelss"):
        np.testing.assert_allclose(sv.numpy(), np.linalg.svd(a, compute_uv=False), rtol=TOL[dtype] * 10)
    if driver == "gels":
        assert rank.numel() == 0


def test_lstsq_rank_deficient_and_wide():
    a = np.zeros((4, 3))
    a[:, 0], a[:, 1] = 1.0, 2.0
    for driver in (None, "gelsd"):
        X, res, rank, _ = tp.linalg.lstsq(tp.tensor(a), tp.ones(4, 1, dtype=tp.float64), driver=driver)
        np.testing.assert_allclose(X.numpy(), [[0.2], [0.4], [0.0]], atol=1e-12)     # minimum norm
        assert rank.item() == 1 and res.numel() == 0
    w = _rand((3, 5), "float64", seed=26)
    bw = _rand((3, 2), "float64", seed=27)
    X = tp.linalg.lstsq(tp.tensor(w), tp.tensor(bw)).solution.numpy()
    np.testing.assert_allclose(X, np.linalg.pinv(w) @ bw, atol=1e-12)


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_lstsq_against_torch():
    a = _rand((2, 5, 3), "float64", seed=28)
    b = _rand((2, 5), "float64", seed=29)
    for driver in (None, "gelsd", "gelss", "gels"):
        r = tp.linalg.lstsq(tp.tensor(a), tp.tensor(b), driver=driver)
        t = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
        for x, y in zip(r, t):
            assert tuple(x.shape) == tuple(y.shape) and str(x.dtype)[-5:] == str(y.dtype)[-5:], driver
            np.testing.assert_allclose(x.numpy(), y.numpy(), atol=1e-12)
    x, tx = tp.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    y, ty = tp.tensor(b, requires_grad=True), torch.tensor(b, requires_grad=True)
    g = tp.autograd.grad(tp.linalg.lstsq(x, y, driver="gelsd").residuals.sum() +
                         tp.linalg.lstsq(x, y).solution.sin().sum(), (x, y))
    tg = torch.autograd.grad(torch.linalg.lstsq(tx, ty, driver="gelsd").residuals.sum() +
                             torch.linalg.lstsq(tx, ty).solution.sin().sum(), (tx, ty))
    for u, v in zip(g, tg):
        np.testing.assert_allclose(u.numpy(), v.numpy(), atol=1e-10)


# ----------------------------------------------------------------- householder_product
@pytest.mark.parametrize("dtype", DTYPES)
def test_householder_product_of_geqrf_is_q(dtype):
    a = _rand((5, 3), dtype, seed=30)
    h, tau = np.linalg.qr(a.astype(np.complex128 if dtype.startswith("complex") else np.float64), mode="raw")
    q = tp.linalg.householder_product(tp.tensor(h.T.astype(dtype)), tp.tensor(tau.astype(dtype)))
    assert q.dtype == getattr(tp, dtype) and tuple(q.shape) == (5, 3)
    np.testing.assert_allclose(q.numpy(), np.linalg.qr(a.astype(np.complex128))[0], atol=TOL[dtype] * 10)
    x = tp.tensor(h.T.astype("complex128"), requires_grad=True)
    t = tp.tensor(tau.astype("complex128"), requires_grad=True)
    if dtype == "complex128":
        assert tp.autograd.gradcheck(tp.linalg.householder_product, (x, t))
