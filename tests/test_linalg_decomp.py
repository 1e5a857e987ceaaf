"""tensorplay.linalg's decompositions (ops/decompositions.py): what the op table
(tests/opdb/decompositions.py) cannot check.  Values up to sign/phase through
reconstructions, gradients of gauge-invariant losses against gradcheck and
PyTorch, PyTorch's refusals (not positive-definite, a loss that depends on the
eigenvectors' phase), repeated eigenvalues, ``full_matrices`` backward, and the
function transforms (jacrev/jacfwd/hessian/vmap) through them."""
import numpy as np
import pytest

import tensorplay as tp
from tensorplay.func import grad, hessian, jacfwd, jacrev, vmap

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


def _pd(a):
    return a @ _mh(a) + 3 * np.eye(a.shape[-1])


# ----------------------------------------------------------------- values (reconstructions)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_reconstructs(dtype, upper):
    a = _pd(_rand((2, 4, 4), dtype)).astype(dtype)
    r = tp.linalg.cholesky(tp.tensor(a), upper=upper)
    assert r.dtype == getattr(tp, dtype) and tuple(r.shape) == (2, 4, 4)
    f = r.numpy()
    tri = np.triu(f) if upper else np.tril(f)
    np.testing.assert_array_equal(f, tri)
    back = _mh(f) @ f if upper else f @ _mh(f)
    np.testing.assert_allclose(back, a, atol=TOL[dtype] * 10, rtol=TOL[dtype])
    assert np.all(np.diagonal(f, 0, -2, -1).real > 0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_eigh_reconstructs(dtype):
    a = _rand((3, 4, 4), dtype)
    h = a + _mh(a)
    L, V = tp.linalg.eigh(tp.tensor(h))
    real = "float32" if dtype in ("float32", "complex64") else "float64"
    assert L.dtype == getattr(tp, real) and V.dtype == getattr(tp, dtype)
    lv, vv = L.numpy(), V.numpy()
    assert np.all(np.diff(lv, axis=-1) >= 0)
    np.testing.assert_allclose((vv * lv[..., None, :]) @ _mh(vv), h, atol=TOL[dtype] * 10)
    np.testing.assert_allclose(_mh(vv) @ vv, np.broadcast_to(np.eye(4), vv.shape), atol=TOL[dtype] * 10)
    np.testing.assert_allclose(tp.linalg.eigvalsh(tp.tensor(h)).numpy(), lv, atol=TOL[dtype])


def test_eigh_reads_one_triangle():
    a = _rand((4, 4), "float64", 1)
    low = np.tril(a) + np.tril(a, -1).T
    up = np.triu(a) + np.triu(a, 1).T
    np.testing.assert_allclose(tp.linalg.eigvalsh(tp.tensor(a)).numpy(), np.linalg.eigvalsh(low))
    np.testing.assert_allclose(tp.linalg.eigvalsh(tp.tensor(a), UPLO="U").numpy(), np.linalg.eigvalsh(up))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (2, 3, 5)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_reconstructs(dtype, shape, full):
    a = _rand(shape, dtype, 2)
    U, S, Vh = tp.linalg.svd(tp.tensor(a), full_matrices=full)
    m, n = shape[-2:]
    k = min(m, n)
    assert tuple(U.shape[-2:]) == ((m, m) if full else (m, k))
    assert tuple(Vh.shape[-2:]) == ((n, n) if full else (k, n))
    u, s, vh = U.numpy(), S.numpy(), Vh.numpy()
    assert s.dtype == np.dtype("float32" if dtype in ("float32", "complex64") else "float64")
    np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, atol=TOL[dtype] * 10)
    np.testing.assert_allclose(_mh(u) @ u, np.broadcast_to(np.eye(u.shape[-1]), u.shape[:-2] + (u.shape[-1],) * 2),
                               atol=TOL[dtype] * 10)
    np.testing.assert_allclose(tp.linalg.svdvals(tp.tensor(a)).numpy(), s, atol=TOL[dtype])
    assert np.all(np.diff(s, axis=-1) <= 0)


def test_legacy_svd():
    a = _rand((4, 3), "float64", 3)
    U, S, V = tp.svd(tp.tensor(a))
    assert tuple(U.shape) == (4, 3) and tuple(V.shape) == (3, 3)
    np.testing.assert_allclose((U.numpy() * S.numpy()) @ V.numpy().T, a, atol=1e-12)
    U, S, V = tp.tensor(a).svd(some=False)
    assert tuple(U.shape) == (4, 4)
    U, S, V = tp.svd(tp.tensor(a), compute_uv=False)
    assert not U.numpy().any() and tuple(U.shape) == (4, 4) and tuple(V.shape) == (3, 3)
    np.testing.assert_allclose(S.numpy(), np.linalg.svd(a, compute_uv=False))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper,left,unit", [(True, True, False), (False, True, True), (True, False, True),
                                             (False, False, False)])
def test_solve_triangular_values(dtype, upper, left, unit):
    a = _rand((2, 3, 3), dtype, 4) + 3 * np.eye(3, dtype=dtype)
    b = _rand((2, 3, 4) if left else (2, 4, 3), dtype, 5)
    x = tp.linalg.solve_triangular(tp.tensor(a), tp.tensor(b), upper=upper, left=left,
                                   unitriangular=unit).numpy()
    t = np.triu(a) if upper else np.tril(a)
    if unit:
        t[..., range(3), range(3)] = 1
    np.testing.assert_allclose(t @ x if left else x @ t, b, atol=TOL[dtype] * 10)


def test_solve_triangular_singular_is_inf_nan():
    """LAPACK's triangular solve divides by the zero on the diagonal (no error)."""
    x = tp.linalg.solve_triangular(tp.zeros(3, 3), tp.ones(3, 2), upper=True).numpy()
    assert np.isinf(x[2]).all() and np.isnan(x[:2]).all()


def test_zero_sizes():
    assert tuple(tp.linalg.cholesky(tp.zeros(2, 0, 0)).shape) == (2, 0, 0)
    L, V = tp.linalg.eigh(tp.zeros(0, 3, 3))
    assert tuple(L.shape) == (0, 3) and tuple(V.shape) == (0, 3, 3)
    U, S, Vh = tp.linalg.svd(tp.zeros(2, 0, 3))
    assert (tuple(U.shape), tuple(S.shape), tuple(Vh.shape)) == ((2, 0, 0), (2, 0), (2, 3, 3))
    np.testing.assert_array_equal(Vh.numpy(), np.broadcast_to(np.eye(3), (2, 3, 3)))
    U, S, Vh = tp.linalg.svd(tp.zeros(0, 3), full_matrices=False)
    assert (tuple(U.shape), tuple(S.shape), tuple(Vh.shape)) == ((0, 0), (0,), (0, 3))


# ----------------------------------------------------------------- refusals
def test_not_positive_definite():
    a = tp.tensor([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(tp.linalg.LinAlgError, match=r"^linalg\.cholesky: The factorization could not be "
                       r"completed because the input is not positive-definite \(the leading minor of "
                       r"order 2 is not positive-definite\)\.$"):
        tp.linalg.cholesky(a)
    b = tp.stack([tp.eye(2), tp.eye(2), tp.tensor([[1.0, 0.0], [0.0, 1.0]]) - 2 * tp.eye(2)])
    with pytest.raises(RuntimeError, match=r"^linalg\.cholesky: \(Batch element 2\): .*leading minor of "
                       r"order 1 is not"):
        tp.linalg.cholesky(b)
    assert issubclass(tp.linalg.LinAlgError, RuntimeError)


@pytest.mark.skipif(torch is None, reason="torch not installed")
@pytest.mark.parametrize("upper", [False, True])
def test_not_positive_definite_as_torch(upper):
    a = np.array([[[4.0, 1.0, 0.0], [1.0, 4.0, 0.0], [0.0, 0.0, 1.0]],
                  [[4.0, 1.0, 0.0], [1.0, 4.0, 9.0], [0.0, 9.0, 1.0]]])
    msgs = []
    for T in (tp, torch):
        with pytest.raises(RuntimeError) as e:
            T.linalg.cholesky(T.tensor(a), upper=upper)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex(upper):
    """``info`` is the order of the first leading minor that is not positive-definite;
    ``L`` holds LAPACK's partial factorization: the columns done, the failing pivot's
    value, and the input's triangle after it."""
    a = np.array([[4.0, 2, 1, 0.5], [2, 5, 3, 1], [1, 3, 1, 0], [0.5, 1, 0, 3]])
    want = np.array([[2.0, 0, 0, 0], [1, 2, 0, 0], [0.5, 1.25, -0.8125, 0], [0.25, 0.375, 0, 3]])
    b = np.stack([a, np.eye(4)])
    L, info = tp.linalg.cholesky_ex(tp.tensor(b), upper=upper)
    assert info.dtype == tp.int32 and info.tolist() == [3, 0]
    np.testing.assert_allclose(L.numpy()[0], want.T if upper else want, atol=1e-12)
    np.testing.assert_allclose(L.numpy()[1], np.eye(4))
    with pytest.raises(tp.linalg.LinAlgError, match=r"^linalg\.cholesky_ex: \(Batch element 0\): .* order 3 "):
        tp.linalg.cholesky_ex(tp.tensor(b), upper=upper, check_errors=True)


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_cholesky_ex_as_torch():
    g = np.random.default_rng(17)
    c = g.standard_normal((3, 4, 4)) + 1j * g.standard_normal((3, 4, 4))
    c = c + _mh(c)                          # Hermitian, indefinite: fails somewhere
    for a in (c, c.real + np.triu(g.standard_normal((4, 4)), 1)):
        for upper in (False, True):
            r = [T.linalg.cholesky_ex(T.tensor(a), upper=upper) for T in (tp, torch)]
            np.testing.assert_array_equal(r[0].info.numpy(), r[1].info.numpy())
            np.testing.assert_allclose(r[0].L.numpy(), r[1].L.numpy(), atol=1e-12)


def _hermitian(seed=0):
    c = _rand((3, 3), "complex128", seed)
    return tp.tensor(c + _mh(c), requires_grad=True)


def test_phase_dependent_loss_refused():
    a = _hermitian()
    with pytest.raises(RuntimeError, match=r"^linalg_eigh_backward: The eigenvectors in the complex case "
                       r"are specified up to multiplication by e\^\{i phi\}\. The specified loss function "
                       r"depends on this quantity, so it is ill-defined\.$"):
        tp.linalg.eigh(a).eigenvectors.real.sum().backward()
    with pytest.raises(RuntimeError, match=r"^svd_backward: The singular vectors in the complex case are "
                       r"specified up to multiplication by e\^\{i phi\}\. The specified loss function depends "
                       r"on this phase term, making it ill-defined\.$"):
        tp.linalg.svd(a).U.real.sum().backward()
    # gauge-invariant losses of complex vectors differentiate
    V = tp.linalg.eigh(a).eigenvectors
    V.abs().sum().backward()
    U, S, Vh = tp.linalg.svd(a)
    (U @ Vh).real.sum().backward()


# ----------------------------------------------------------------- repeated eigenvalues
def test_repeated_eigenvalues():
    """The eigenvalues alone differentiate anywhere (gradient V V^H); the
    eigenvectors' derivative does not exist there (NaN, as in PyTorch)."""
    eye = tp.eye(3, dtype=tp.float64, requires_grad=True)
    (g,) = tp.autograd.grad(tp.linalg.eigvalsh(eye).sum(), eye)
    np.testing.assert_allclose(g.numpy(), np.eye(3), atol=1e-12)
    (g,) = tp.autograd.grad(tp.linalg.svdvals(eye).sum(), eye)
    np.testing.assert_allclose(g.numpy(), np.eye(3), atol=1e-12)
    L, V = tp.linalg.eigh(eye)
    (g,) = tp.autograd.grad(V.sum() + L.sum(), eye)
    assert np.isnan(g.numpy()).all()
    L, V = tp.linalg.eigh(eye)          # zeros given as V's gradient count as one (PyTorch: NaN)
    (g,) = tp.autograd.grad((V * 0).sum() + L.sum(), eye)
    assert np.isnan(g.numpy()).all()
    # second derivatives of the eigenvalues alone, at repeated eigenvalues
    (g,) = tp.autograd.grad(tp.linalg.eigvalsh(eye).pow(2).sum(), eye, create_graph=True)
    (gg,) = tp.autograd.grad(g.sum(), eye)
    np.testing.assert_allclose(g.detach().numpy(), 2 * np.eye(3), atol=1e-12)
    assert np.isnan(gg.numpy()).all()       # (through the eigenvectors: NaN, as PyTorch's)


# ----------------------------------------------------------------- gradients
def _check(f, *xs):
    assert tp.autograd.gradcheck(f, xs)
    assert tp.autograd.gradgradcheck(f, xs)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradchecks(dtype):
    a = tp.tensor(_rand((2, 3, 3), dtype, 6), requires_grad=True)
    w = tp.tensor(_rand((4, 3), dtype, 7), requires_grad=True)
    eye = tp.eye(3, dtype=a.dtype)
    _check(lambda x: tp.linalg.cholesky(x @ x.mH + 3 * eye, upper=True), a)
    _check(lambda x: (lambda r: (r[0], r[1] @ tp.diag_embed(r[0].exp().to(x.dtype)) @ r[1].mH))(
        tp.linalg.eigh(x + x.mH)), a)
    _check(lambda x: (lambda r: (r.S, r.U @ r.Vh, r.U.abs()))(tp.linalg.svd(x, full_matrices=False)), w)
    _check(lambda x: (lambda r: (r.S, r.U @ r.Vh))(tp.linalg.svd(x.mT, full_matrices=False)), w)
    _check(lambda x, b: tp.linalg.solve_triangular(x + 3 * eye, b, upper=False, left=False), a, w)


def _torch_grads(f, arrays, seed=3):
    out = []
    for T in (tp, torch):
        xs = [T.tensor(a, requires_grad=True) for a in arrays]
        ys = f(T, *xs)
        gen = np.random.default_rng(seed)
        ws = [T.tensor(gen.standard_normal(tuple(y.shape)).astype(y.detach().numpy().dtype)) for y in ys]
        out.append([g.numpy() for g in T.autograd.grad(ys, xs, ws)])
    return out


@pytest.mark.skipif(torch is None, reason="torch not installed")
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradients_against_torch(dtype):
    a = _rand((2, 3, 3), dtype, 8)
    tall = _rand((5, 3), dtype, 9)

    def chol_nonsym(T, x):     # PyTorch's gradient is the Hermitian one, whatever the other triangle holds
        return (T.linalg.cholesky(x @ x.mH + 3 * T.eye(3, dtype=x.dtype) + T.triu(x, 1)),)

    def eigh_u(T, x):
        L, V = T.linalg.eigh(x, UPLO="U")
        return L, V.abs()

    def svd_full(T, x):       # full_matrices: the completion's columns take no part in backward
        U, S, Vh = T.linalg.svd(x)
        return S, U.abs(), Vh.abs(), U[..., :3] @ Vh[..., :3, :]

    for f, x in ((chol_nonsym, a), (eigh_u, a), (svd_full, tall), (svd_full, _mh(tall))):
        ga, gb = _torch_grads(f, [x])
        np.testing.assert_allclose(ga[0], gb[0], atol=1e-9, rtol=1e-7)


# ----------------------------------------------------------------- transforms
def _fns():
    eye = tp.eye(3, dtype=tp.float64)
    return {
        "cholesky": lambda x: tp.linalg.cholesky(x @ x.mT + 3 * eye),
        "eigvalsh": lambda x: tp.linalg.eigvalsh(x + x.mT),
        "eigh": lambda x: (lambda r: (r[1] * r[0].sin().unsqueeze(-2)) @ r[1].mT)(tp.linalg.eigh(x + x.mT)),
        "svdvals": lambda x: tp.linalg.svdvals(x),
        "svd": lambda x: (lambda r: r.U @ r.Vh)(tp.linalg.svd(x)),
        "solve_triangular": lambda x: tp.linalg.solve_triangular(x + 3 * eye, x, upper=True),
    }


@pytest.mark.parametrize("name", list(_fns()))
def test_transforms(name):
    f = _fns()[name]
    a = tp.tensor(_rand((3, 3), "float64", 10))
    np.testing.assert_allclose(jacrev(f)(a).numpy(), jacfwd(f)(a).numpy(), atol=1e-9)
    h = hessian(lambda x: f(x).sin().sum())(a).numpy()
    np.testing.assert_allclose(h, h.transpose(2, 3, 0, 1), atol=1e-8)
    batch = tp.stack([a, 2 * a])
    loss = grad(lambda x: f(x).sin().sum())
    np.testing.assert_allclose(vmap(loss)(batch).numpy(), tp.stack([loss(a), loss(2 * a)]).numpy(), atol=1e-12)


# ----------------------------------------------------------------- qr
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_reconstructs(dtype, shape, mode):
    a = _rand(shape, dtype, 11)
    Q, R = tp.linalg.qr(tp.tensor(a), mode=mode)
    m, n = shape[-2:]
    k = min(m, n)
    r = R.numpy()
    np.testing.assert_array_equal(r, np.triu(r))
    if mode == "r":
        assert tuple(Q.shape) == (0,)
        np.testing.assert_allclose(np.abs(r), np.abs(np.linalg.qr(a).R), atol=TOL[dtype] * 10)
        return
    q = Q.numpy()
    assert tuple(q.shape[-2:]) == ((m, m) if mode == "complete" else (m, k))
    np.testing.assert_allclose(q @ r, a, atol=TOL[dtype] * 10)
    np.testing.assert_allclose(_mh(q) @ q, np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2),
                               atol=TOL[dtype] * 10)


def test_qr_not_differentiable():
    a = tp.tensor(_rand((4, 3), "float64", 12), requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^The derivative of linalg\.qr depends on Q, which is not computed "
                       r"when mode='r'\. Please use linalg\.qr\(A, mode='reduced'\) if you are going to "
                       r"differentiate through linalg\.qr\.$"):
        tp.linalg.qr(a, mode="r").R.sum().backward()
    with pytest.raises(RuntimeError, match=r"^The QR decomposition is not differentiable when mode='complete' "
                       r"and nrows > ncols\.$"):
        tp.linalg.qr(a, mode="complete").R.sum().backward()
    import tensorplay.autograd.forward_ad as fw
    with fw.dual_level(), pytest.raises(RuntimeError, match="mode='complete' and nrows > ncols"):
        tp.linalg.qr(fw.make_dual(a.detach(), tp.ones(4, 3, dtype=tp.float64)), mode="complete")
    # a wide (or square) complete QR is the reduced one: differentiable
    b = tp.tensor(_rand((3, 4), "float64", 13), requires_grad=True)
    _check(lambda x: tuple(tp.linalg.qr(x, mode="complete")), b)


# ----------------------------------------------------------------- norms, cond, rank, pinv
def test_svd_norms_values():
    a = _rand((2, 3, 4), "complex128", 14)
    s = np.linalg.svd(a, compute_uv=False)
    A = tp.tensor(a)
    np.testing.assert_allclose(tp.linalg.matrix_norm(A, 2).numpy(), s[..., 0])
    np.testing.assert_allclose(tp.linalg.matrix_norm(A, -2).numpy(), s[..., -1])
    np.testing.assert_allclose(tp.linalg.matrix_norm(A, "nuc").numpy(), s.sum(-1))
    r = tp.linalg.matrix_norm(A, "nuc", dim=(2, 0), keepdim=True)
    assert tuple(r.shape) == (1, 3, 1)
    np.testing.assert_allclose(r.numpy().ravel(), np.linalg.svd(a.transpose(1, 2, 0), compute_uv=False).sum(-1))
    np.testing.assert_allclose(tp.linalg.norm(A[0], 2).numpy(), s[0, 0])
    np.testing.assert_allclose(tp.linalg.cond(A).numpy(), s[..., 0] / s[..., -1])
    assert tp.linalg.matrix_norm(A, 2).dtype == tp.float64


def test_cond_of_singular_matrices_is_inf():
    a = np.stack([np.ones((3, 3)), np.diag([1.0, 2.0, 4.0])])
    for p in ("fro", "nuc", 1, -1, float("inf"), -float("inf")):
        r = tp.linalg.cond(tp.tensor(a), p).numpy()
        assert np.isinf(r[0]) and np.isfinite(r[1])
    np.testing.assert_allclose(tp.linalg.cond(tp.tensor(a[1]), 1).numpy(), 4.0)
    A = tp.tensor(a, requires_grad=True)
    (g,) = tp.autograd.grad(tp.linalg.cond(A, "fro").sum(), A, allow_unused=True)
    assert not g.numpy()[0].any() and g.numpy()[1].any()


def test_matrix_rank_values():
    g = np.random.default_rng(15)
    a = g.standard_normal((3, 5, 2)) @ g.standard_normal((3, 2, 4))
    assert tp.linalg.matrix_rank(tp.tensor(a)).tolist() == [2, 2, 2]
    assert tp.linalg.matrix_rank(tp.tensor(a)).dtype == tp.int64
    d = np.diag([4.0, 2.0, 1.0, 0.5])
    assert tp.linalg.matrix_rank(tp.tensor(d), atol=1.5).item() == 2
    assert tp.linalg.matrix_rank(tp.tensor(d), rtol=0.2).item() == 3
    assert tp.linalg.matrix_rank(tp.tensor(d), 0.75).item() == 3
    assert tp.linalg.matrix_rank(tp.tensor(-d), hermitian=True, atol=1.5).item() == 2
    assert tp.linalg.matrix_rank(tp.tensor(np.stack([d, d])), atol=tp.tensor([1.5, 3.0])).tolist() == [2, 1]


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_pinv_against_torch():
    """The pseudo-inverse's gradient is the constant-rank one, as PyTorch's: also
    for a rank-deficient matrix and with singular values cut off."""
    g = np.random.default_rng(16)
    deficient = g.standard_normal((2, 4, 2)) @ g.standard_normal((2, 2, 3))
    full = g.standard_normal((2, 3, 4))
    for a, kw in ((deficient, {}), (full, dict(atol=1.0)), (full, dict(rtol=0.5)),
                  (full + 1j * g.standard_normal((2, 3, 4)), dict(atol=1.0)),
                  (deficient[:, :3] + _mh(deficient[:, :3]), dict(hermitian=True))):
        ga, gb = _torch_grads(lambda T, x: (T.linalg.pinv(x, **kw),), [a])
        assert np.isfinite(ga[0]).all()
        np.testing.assert_allclose(ga[0], gb[0], atol=1e-9, rtol=1e-7)
