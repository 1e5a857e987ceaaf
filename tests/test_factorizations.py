"""ops/factorizations.py and tensorplay.linalg's ldl_factor(_ex), ldl_solve,
tensorinv and tensorsolve: values, gradients (first and second order, complex
where PyTorch takes complex), batching, warnings and PyTorch's errors.  The
registry ops (cholesky_inverse, cholesky_solve, geqrf, the LDL pair) have rows
in tests/opdb/factorizations.py as well; this file covers the composites and
what the table cannot say (the gradient of a whole, untriangular factor,
singular inputs, LAPACK's pivots, the randomized low-rank SVD)."""
import warnings

import numpy as np
import pytest

import tensorplay as tp
from tensorplay import _warn
from tensorplay.autograd import gradcheck, gradgradcheck

from conftest import assert_close, exact, torch

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def _rand(shape, dtype="float64", seed=0):
    g = np.random.default_rng(seed)
    a = g.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * g.standard_normal(shape)
    return a.astype(dtype)


def _mh(a):
    return np.conj(np.swapaxes(a, -1, -2))


def _factor(shape, dtype="float64", seed=0, upper=False):
    """A triangular factor with a real positive diagonal (as every Cholesky factor)."""
    a = _rand(shape, dtype, seed)
    n = shape[-1]
    t = np.triu(a, 1) if upper else np.tril(a, -1)
    return (t + (2 + np.abs(np.diagonal(a, 0, -2, -1)))[..., None] * np.eye(n)).astype(dtype)


def _pd(shape, dtype="float64", seed=0):
    a = _rand(shape, dtype, seed)
    return (a @ _mh(a) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def _np(t):
    if not hasattr(t, "detach"):
        return np.asarray(t)
    t = t.detach()
    return (t.resolve_conj() if hasattr(t, "resolve_conj") else t).numpy()


def _grads(T, f, arrays, rg, seed=7):
    """``f``'s outputs and the gradients of ``sum(real(conj(W) * out))`` (random
    weights ``W``) with respect to the arrays listed in ``rg``."""
    xs = [T.tensor(a, requires_grad=(i in rg)) for i, a in enumerate(arrays)]
    outs = _quiet(f, T, *xs)
    outs = list(outs) if isinstance(outs, tuple) else [outs]
    g = np.random.default_rng(seed)
    loss = 0
    for o in outs:
        w = g.standard_normal(tuple(o.shape))
        if o.is_complex():
            w = w + 1j * g.standard_normal(tuple(o.shape))
        loss = loss + (o * T.tensor(w.astype(_np(o).dtype)).conj()).real.sum()
    gs = T.autograd.grad(loss, [xs[i] for i in rg])
    return [_np(o) for o in outs], [_np(x) for x in gs]


def _against_torch(f, arrays, rg=(), atol=1e-9, rtol=1e-7):
    """Values and (for ``rg``) gradients of ``f(T, *tensors)`` against PyTorch's."""
    if rg:
        o1, g1 = _grads(tp, f, arrays, rg)
        o2, g2 = _grads(torch, f, arrays, rg)
    else:
        o1 = _quiet(f, tp, *[tp.tensor(a) for a in arrays])
        o2 = _quiet(f, torch, *[torch.tensor(a) for a in arrays])
        o1 = [_np(o) for o in (o1 if isinstance(o1, tuple) else [o1])]
        o2 = [_np(o) for o in (o2 if isinstance(o2, tuple) else [o2])]
        g1 = g2 = []
    assert len(o1) == len(o2)
    for a, b in zip(o1, o2):
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
        assert_close(a, b, atol=atol, rtol=rtol)
    for a, b in zip(g1, g2):
        assert_close(a, b, atol=atol, rtol=rtol, msg="gradient")


def _raises(T, exc, msg, f, *args, **kwargs):
    name = exc if isinstance(exc, str) else exc.__name__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as info:
            f(*args, **kwargs)
    assert type(info.value).__name__ == name or (name == "LinAlgError" and
                                                 type(info.value).__name__ == "_LinAlgError"), info.value
    assert str(info.value) == msg


def _both_raise(exc, msg, f, *arrays, **kwargs):
    """``f(T, *tensors)`` raises ``exc(msg)`` in tensorplay, and in PyTorch when installed."""
    for T in (tp, torch):
        if T is None:
            continue
        _raises(T, exc, msg, lambda: f(T, *[T.tensor(a) for a in arrays], **kwargs))


def _fresh_warning(message):
    _warn._WARNED.discard(message)


# ----------------------------------------------------------------- the surface
TOP = ("cholesky cholesky_inverse cholesky_solve qr triangular_solve geqrf orgqr ormqr addbmm chain_matmul "
       "nuclear_norm frobenius_norm lstsq solve eig symeig matrix_rank svd_lowrank pca_lowrank").split()
METHODS = "cholesky cholesky_inverse cholesky_solve qr triangular_solve geqrf orgqr ormqr addbmm addbmm_ " \
          "lstsq solve eig symeig".split()
NOT_METHODS = "chain_matmul nuclear_norm frobenius_norm matrix_rank svd_lowrank pca_lowrank".split()
LINALG = "ldl_factor ldl_factor_ex ldl_solve tensorinv tensorsolve".split()


def test_surface():
    for n in TOP:
        assert callable(getattr(tp, n)) and n in tp.__all__, n
    for n in METHODS:
        assert callable(getattr(tp.Tensor, n)), n
    for n in NOT_METHODS:
        assert not hasattr(tp.Tensor, n), n
    for n in LINALG:
        assert callable(getattr(tp.linalg, n)) and n in tp.linalg.__all__, n
    if torch is not None:
        for n in TOP:
            assert hasattr(torch, n)
        for n in METHODS:
            assert hasattr(torch.Tensor, n)
        for n in NOT_METHODS:
            assert not hasattr(torch.Tensor, n)


# ----------------------------------------------------------------- cholesky
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_values_and_gradients(dtype, upper):
    a = _pd((2, 3, 3), dtype, seed=1)
    r = _quiet(tp.cholesky, tp.tensor(a), upper)
    want = np.linalg.cholesky(a)
    assert_close(r.numpy(), _mh(want) if upper else want, atol=1e-12)
    x = tp.tensor(_rand((3, 3), dtype, seed=2), requires_grad=True)

    def f(m):
        return _quiet(tp.cholesky, m @ m.mH + 3 * tp.eye(3, dtype=m.dtype), upper=upper)
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
    assert _quiet(tp.Tensor.cholesky, tp.tensor(a), upper=upper).shape == (2, 3, 3)
    if torch is not None:
        _against_torch(lambda T, m: T.cholesky(m @ m.mH + 3 * T.eye(3, dtype=m.dtype), upper=upper),
                       [_rand((2, 3, 3), dtype, seed=3)], rg=(0,))


def test_cholesky_warns_once():
    _fresh_warning(tp.ops.factorizations._CHOLESKY_DEPRECATED)
    a = tp.tensor(_pd((3, 3)))
    with pytest.warns(UserWarning, match="torch.cholesky is deprecated in favor of torch.linalg.cholesky"):
        tp.cholesky(a)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tp.cholesky(a)                      # (once a process, as PyTorch's TORCH_WARN_ONCE)


def test_cholesky_errors():
    npd = -np.eye(3)
    _both_raise("LinAlgError", "cholesky: The factorization could not be completed because the input is not "
                "positive-definite (the leading minor of order 1 is not positive-definite).",
                lambda T, a: T.cholesky(a), npd)
    _both_raise("LinAlgError", "cholesky: (Batch element 1): The factorization could not be completed because "
                "the input is not positive-definite (the leading minor of order 2 is not positive-definite).",
                lambda T, a: T.cholesky(a), np.stack([np.eye(2), np.diag([1.0, -1.0])]))
    _both_raise(RuntimeError, "cholesky: A must be batches of square matrices, but they are 2 by 3 matrices",
                lambda T, a: T.cholesky(a), np.ones((2, 3)))
    _both_raise(RuntimeError, "cholesky: The input tensor A must have at least 2 dimensions.",
                lambda T, a: T.cholesky(a), np.ones(3))
    _both_raise(NotImplementedError, "\"cholesky_cpu\" not implemented for 'Int'",
                lambda T, a: T.cholesky(a), np.eye(2, dtype=np.int32))
    _both_raise(TypeError, "cholesky(): argument 'upper' must be bool, not int",
                lambda T, a: T.cholesky(a, upper=1), np.eye(2))


# ----------------------------------------------------------------- cholesky_inverse / cholesky_solve
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_inverts(dtype, upper):
    F = _factor((2, 4, 4), dtype, seed=4, upper=upper)
    A = _mh(F) @ F if upper else F @ _mh(F)
    garbage = F + (np.tril(_rand((4, 4), dtype, 5), -1) if upper else np.triu(_rand((4, 4), dtype, 5), 1))
    r = tp.cholesky_inverse(tp.tensor(garbage), upper=upper)      # (only the factor's triangle is read)
    assert r.dtype == tp.tensor(F).dtype
    tol = 1e-4 if dtype == "float32" else 1e-11
    assert_close(r.numpy(), np.linalg.inv(A), atol=tol, rtol=tol)
    assert_close(r.numpy(), _mh(r.numpy()), atol=0, rtol=0)        # exactly Hermitian
    assert_close(tp.Tensor.cholesky_inverse(tp.tensor(F), upper).numpy(), r.numpy(), atol=0, rtol=0)
    out = tp.empty(0, dtype=r.dtype)
    assert tp.cholesky_inverse(tp.tensor(F), upper, out=out) is out
    assert_close(out.numpy(), r.numpy(), atol=0, rtol=0)


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_gradient_of_the_whole_factor(dtype, upper):
    """PyTorch differentiates (L L^H)^-1 as a function of every entry of the input,
    though the value reads only its triangle: so does tensorplay (values,
    gradients and second derivatives)."""
    F = _factor((2, 3, 3), dtype, seed=6, upper=upper)
    F = F + 0.3 * (np.tril(_rand((3, 3), dtype, 7), -1) if upper else np.triu(_rand((3, 3), dtype, 7), 1))
    _against_torch(lambda T, f: T.cholesky_inverse(f, upper), [F], rg=(0,))
    off = np.tril(np.ones((3, 3)), -1) if upper else np.triu(np.ones((3, 3)), 1)
    _, (g,) = _grads(tp, lambda T, f: T.cholesky_inverse(f, upper), [F], (0,))
    assert np.abs(g * off).max() > 1e-3             # the other triangle gets a gradient, as in PyTorch

    def second(T, f):
        y = T.cholesky_inverse(f, upper)
        (g,) = T.autograd.grad((y * y.conj()).real.sum(), f, create_graph=True)
        return g
    _against_torch(second, [F], rg=(0,))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_cholesky_inverse_gradcheck_triangular(dtype):
    x = tp.tensor(_factor((2, 3, 3), dtype, seed=8))
    x.requires_grad_(True)
    for upper in (False, True):
        def f(m):
            d = m.diagonal(0, -2, -1)
            t = m.triu(1) if upper else m.tril(-1)
            return tp.cholesky_inverse(t + tp.diag_embed(d.real if d.is_complex() else d), upper)
        assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


def test_cholesky_inverse_singular_and_empty():
    _both_raise("LinAlgError", "cholesky_inverse: The diagonal element 2 is zero, the inversion could not be "
                "completed because the input matrix is singular.", lambda T, a: T.cholesky_inverse(a),
                np.array([[1.0, 0, 0], [2, 0, 0], [1, 1, 1]]))
    _both_raise("LinAlgError", "cholesky_inverse: (Batch element 1): The diagonal element 1 is zero, the "
                "inversion could not be completed because the input matrix is singular.",
                lambda T, a: T.cholesky_inverse(a, upper=True), np.stack([np.eye(3), np.zeros((3, 3))]))
    with pytest.raises(tp.linalg.LinAlgError):
        tp.cholesky_inverse(tp.zeros(2, 2))
    r = tp.cholesky_inverse(tp.tensor([[1.0, 0.0], [0.0, float("nan")]], dtype=tp.float64))
    assert np.isnan(r.numpy()).all()                # (PyTorch's too)
    assert tp.cholesky_inverse(tp.zeros(2, 0, 0)).shape == (2, 0, 0)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_solves_and_broadcasts(dtype, upper):
    F = _factor((3, 1, 4, 4), dtype, seed=9, upper=upper)
    A = _mh(F) @ F if upper else F @ _mh(F)
    B = _rand((2, 4, 3), dtype, seed=10)
    x = tp.cholesky_solve(tp.tensor(B), tp.tensor(F), upper)
    assert x.shape == (3, 2, 4, 3) and x.dtype == tp.tensor(B).dtype
    tol = 1e-4 if dtype == "float32" else 1e-10
    assert_close(x.numpy(), np.linalg.solve(A, B), atol=tol, rtol=tol)
    assert_close(tp.tensor(B).cholesky_solve(tp.tensor(F), upper).numpy(), x.numpy(), atol=0, rtol=0)


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_against_torch(dtype, upper):
    F = _factor((2, 3, 3), dtype, seed=11, upper=upper)
    F = F + 0.3 * (np.tril(_rand((3, 3), dtype, 12), -1) if upper else np.triu(_rand((3, 3), dtype, 12), 1))
    B = _rand((4, 1, 3, 2), dtype, seed=13)
    _against_torch(lambda T, b, f: T.cholesky_solve(b, f, upper), [B, F], rg=(0, 1))

    def second(T, b, f):
        y = T.cholesky_solve(b, f, upper)
        return T.autograd.grad((y * y.conj()).real.sum(), [b, f], create_graph=True)
    _against_torch(second, [B, F], rg=(0, 1))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_cholesky_solve_gradcheck(dtype):
    b = tp.tensor(_rand((2, 3, 2), dtype, 14), requires_grad=True)
    m = tp.tensor(_rand((3, 3), dtype, 15), requires_grad=True)

    def f(b, m):            # (a triangular factor: the value reads only the triangle)
        d = m.diagonal(0, -2, -1)
        return tp.cholesky_solve(b, m.tril(-1) + tp.diag_embed((d.real if d.is_complex() else d) + 3))
    assert gradcheck(f, (b, m)) and gradgradcheck(f, (b, m))


@needs_torch
def test_cholesky_solve_zero_factor_is_nan_as_in_torch():
    _against_torch(lambda T, b, f: T.cholesky_solve(b, f), [_rand((3, 2)), np.zeros((3, 3))])


# ----------------------------------------------------------------- qr
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
@pytest.mark.parametrize("some", [True, False])
def test_qr(shape, some):
    a = _rand(shape, seed=16)
    Q, R = _quiet(tp.qr, tp.tensor(a), some)
    r = _quiet(tp.qr, tp.tensor(a), some=some)
    assert type(r).__name__ == "qr" and r._fields == ("Q", "R")
    assert_close((Q @ R).numpy(), a, atol=1e-12)
    m, n = shape[-2:]
    k = min(m, n) if some else m
    assert Q.shape[-1] == k and R.shape[-2] == k
    if torch is not None:
        _against_torch(lambda T, x: T.qr(x, some), [a])
        if some or m <= n:
            _against_torch(lambda T, x: tuple(T.qr(x, some)), [a], rg=(0,))


def test_qr_warning_and_errors():
    _fresh_warning(tp.ops.factorizations._QR_DEPRECATED)
    with pytest.warns(UserWarning, match="torch.qr is deprecated in favor of torch.linalg.qr"):
        tp.qr(tp.eye(2))
    _both_raise(TypeError, "qr(): argument 'some' must be bool, not int", lambda T, a: T.qr(a, some=1), np.eye(2))
    _both_raise(RuntimeError, "linalg.qr: The input tensor A must have at least 2 dimensions.",
                lambda T, a: T.qr(a), np.ones(3))
    _both_raise(RuntimeError, "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.",
                lambda T, a: T.qr(a.requires_grad_(), some=False)[0].sum().backward(), _rand((4, 3)))


# ----------------------------------------------------------------- triangular_solve
FLAGS = [dict(), dict(upper=False), dict(transpose=True), dict(upper=False, transpose=True),
         dict(unitriangular=True), dict(upper=False, transpose=True, unitriangular=True)]


@pytest.mark.parametrize("kw", FLAGS, ids=lambda kw: "-".join(kw) or "default")
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_triangular_solve(kw, dtype):
    A = _rand((2, 3, 3), dtype, 17) + 4 * np.eye(3)
    b = _rand((3, 2), dtype, 18)
    x, M = _quiet(tp.triangular_solve, tp.tensor(b), tp.tensor(A), **kw)
    upper, tr = kw.get("upper", True), kw.get("transpose", False)
    T = np.triu(A) if upper else np.tril(A)
    if kw.get("unitriangular"):
        T = T - np.diagonal(T, 0, -2, -1)[..., None] * np.eye(3) + np.eye(3)
    if tr:
        T = np.swapaxes(T, -1, -2)
    assert_close(x.numpy(), np.linalg.solve(T, b), atol=1e-12)
    assert_close(M.numpy(), A, atol=0, rtol=0)
    assert M.shape == (2, 3, 3) and x.shape == (2, 3, 2)
    r = _quiet(tp.Tensor.triangular_solve, tp.tensor(b), tp.tensor(A), **kw)
    assert type(r).__name__ == "triangular_solve" and r._fields == ("solution", "cloned_coefficient")
    xs = [tp.tensor(b, requires_grad=True), tp.tensor(A, requires_grad=True)]
    f = lambda b, a: _quiet(tp.triangular_solve, b, a, **kw)   # noqa: E731
    assert gradcheck(f, xs) and gradgradcheck(f, xs)
    if torch is not None:
        _against_torch(lambda T, b, a: tuple(T.triangular_solve(b, a, **kw)), [b, A], rg=(0, 1))


def test_triangular_solve_copies_and_broadcasts():
    A = np.triu(_rand((3, 3), seed=19)) + 3 * np.eye(3)
    a = tp.tensor(A)
    x, M = _quiet(tp.triangular_solve, tp.tensor(_rand((5, 3, 2), seed=20)), a)
    assert x.shape == (5, 3, 2) and M.shape == (5, 3, 3)
    M[0, 0, 0] = 100.0
    assert a[0, 0].item() == A[0, 0]                # a copy, not a view
    x, M = _quiet(tp.triangular_solve, tp.tensor(_rand((2, 1, 3, 2), seed=21)), tp.tensor(_rand((4, 3, 3))))
    assert x.shape == (2, 4, 3, 2) and M.shape == (2, 4, 3, 3)
    if torch is not None:
        _against_torch(lambda T, b, a: tuple(T.triangular_solve(b, a)), [_rand((5, 3, 2)), A], rg=(0, 1))
        _against_torch(lambda T, b, a: tuple(T.triangular_solve(b, a)), [_rand((3, 2)), np.zeros((3, 3))])


def test_triangular_solve_warning_and_errors():
    _fresh_warning(tp.ops.factorizations._TRIANGULAR_SOLVE_DEPRECATED)
    with pytest.warns(UserWarning, match="torch.triangular_solve is deprecated in favor of "
                                         "torch.linalg.solve_triangularand will be removed"):
        tp.triangular_solve(tp.ones(2, 1), tp.eye(2))
    ts = lambda T, b, a, **kw: T.triangular_solve(b, a, **kw)   # noqa: E731
    _both_raise(RuntimeError, "torch.triangular_solve: Expected b to have at least 2 dimensions, but it has 1 "
                "dimensions instead", ts, np.ones(3), np.eye(3))
    _both_raise(RuntimeError, "torch.triangular_solve: Expected A to have at least 2 dimensions, but it has 1 "
                "dimensions instead", ts, np.ones((3, 2)), np.ones(3))
    _both_raise(RuntimeError, "A must be batches of square matrices, but they are 3 by 2 matrices", ts,
                np.ones((3, 2)), np.ones((3, 2)))
    _both_raise(RuntimeError, "Incompatible matrix sizes for triangular_solve: each A matrix is 3 by 3 but each "
                "b matrix is 4 by 2", ts, np.ones((4, 2)), np.eye(3))
    _both_raise(RuntimeError, "Expected b and A to have the same dtype, but found b of type Float and A of type "
                "Double instead.", ts, np.ones((3, 2), np.float32), np.eye(3))
    _both_raise(NotImplementedError, "\"triangular_solve_cpu\" not implemented for 'Int'", ts,
                np.ones((3, 2), np.int32), np.eye(3, dtype=np.int32))
    _both_raise(TypeError, "triangular_solve(): argument 'upper' must be bool, not int", ts,
                np.ones((3, 2)), np.eye(3), upper=1)
    _both_raise(RuntimeError, "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
                "dimension 0", ts, np.ones((2, 3, 2)), np.ones((3, 3, 3)))


# ----------------------------------------------------------------- geqrf / orgqr / ormqr
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_geqrf_reconstructs(dtype, shape):
    a = _rand(shape, dtype, seed=22)
    r = tp.geqrf(tp.tensor(a))
    assert type(r).__name__ == "geqrf" and r._fields == ("a", "tau")
    k = min(shape[-2:])
    assert r.a.dtype == r.tau.dtype == tp.tensor(a).dtype and r.tau.shape == shape[:-2] + (k,)
    m = shape[-2]
    Q = tp.ormqr(r.a, r.tau, tp.eye(m, dtype=r.a.dtype).expand(shape[:-2] + (m, m)))
    tol = 1e-4 if dtype in ("float32", "complex64") else 1e-12
    assert_close((Q @ r.a.triu()).numpy(), a, atol=tol, rtol=tol)
    if torch is not None:
        _against_torch(lambda T, x: tuple(T.geqrf(x)), [a], atol=tol, rtol=tol)


def test_geqrf_is_not_differentiable():
    x = tp.tensor(_rand((3, 3)), requires_grad=True)
    a, tau = tp.geqrf(x)
    assert a.requires_grad and type(a.grad_fn).__name__ == "GeqrfBackward0"
    _both_raise(NotImplementedError, "the derivative for 'geqrf' is not implemented.",
                lambda T, x: T.geqrf(x.requires_grad_())[0].sum().backward(), _rand((3, 3)))
    with tp.autograd.forward_ad.dual_level():
        d = tp.autograd.forward_ad.make_dual(tp.tensor(_rand((3, 3))), tp.tensor(_rand((3, 3), seed=1)))
        with pytest.raises(NotImplementedError, match="^Trying to use forward AD with geqrf that does not support"):
            tp.geqrf(d)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_orgqr(dtype):
    a = _rand((2, 5, 3), dtype, seed=23)
    h, tau = tp.geqrf(tp.tensor(a))
    Q = tp.orgqr(h, tau)
    assert_close((Q @ h.triu()[..., :3, :]).numpy(), a, atol=1e-12)
    assert_close(h.orgqr(tau).numpy(), Q.numpy(), atol=0, rtol=0)
    assert_close(h.orgqr(input2=tau).numpy(), Q.numpy(), atol=0, rtol=0)
    xs = [tp.tensor(h.numpy(), requires_grad=True), tp.tensor(tau.numpy(), requires_grad=True)]
    assert gradcheck(tp.orgqr, xs) and gradgradcheck(tp.orgqr, xs)
    if torch is not None:
        _against_torch(lambda T, x, t: T.orgqr(x, t), [h.numpy(), tau.numpy()], rg=(0, 1))


def test_orgqr_errors():
    name = "torch.linalg.householder_product"
    _both_raise(RuntimeError, f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]",
                lambda T, a, t: T.orgqr(a, t), np.ones((3, 4)), np.ones(3))
    _both_raise(RuntimeError, f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]",
                lambda T, a, t: T.orgqr(a, t), np.ones((4, 3)), np.ones(5))
    _both_raise(RuntimeError, f"{name}: tau dtype Float does not match input dtype Double",
                lambda T, a, t: T.orgqr(a, t), np.ones((4, 3)), np.ones(3, np.float32))
    _both_raise(RuntimeError, f"{name}: input must have at least 2 dimensions.",
                lambda T, a, t: T.orgqr(a, t), np.ones(3), np.ones(3))
    _both_raise(NotImplementedError, "\"orgqr_cpu\" not implemented for 'Int'",
                lambda T, a, t: T.orgqr(a, t), np.ones((4, 3), np.int32), np.ones(3, np.int32))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("shape", [(5, 3), (3, 4)])
def test_ormqr(dtype, left, transpose, shape):
    m = shape[0]
    h, tau = tp.geqrf(tp.tensor(_rand((2,) + shape, dtype, seed=24)))
    k = min(shape)
    C = _rand((2, m, 2) if left else (2, 2, m), dtype, seed=25)
    Qf = np.eye(m, dtype=dtype)
    hh, tt = h.numpy(), tau.numpy()
    Q = []
    for b in range(2):                      # Q = H_1 ... H_k, H_i = I - tau_i v_i v_i^H
        q = Qf.copy()
        for i in range(k):
            v = np.zeros(m, dtype)
            v[i], v[i + 1:] = 1, hh[b, i + 1:, i]
            q = q @ (np.eye(m) - tt[b, i] * np.outer(v, v.conj()))
        Q.append(q)
    Q = np.stack(Q)
    op = _mh(Q) if transpose else Q
    want = op @ C if left else C @ op
    got = tp.ormqr(h, tau, tp.tensor(C), left, transpose)
    assert_close(got.numpy(), want, atol=1e-12)
    assert_close(h.ormqr(tau, tp.tensor(C), left=left, transpose=transpose).numpy(), want, atol=1e-12)
    xs = [tp.tensor(hh, requires_grad=True), tp.tensor(tt, requires_grad=True), tp.tensor(C, requires_grad=True)]
    f = lambda a, t, c: tp.ormqr(a, t, c, left, transpose)      # noqa: E731
    assert gradcheck(f, xs) and gradgradcheck(f, xs)
    if torch is not None:
        _against_torch(lambda T, a, t, c: T.ormqr(a, t, c, left, transpose), [hh, tt, C], rg=(0, 1, 2))


def test_ormqr_errors():
    o = lambda T, a, t, c, **kw: T.ormqr(a, t, c, **kw)        # noqa: E731
    a, t, c = np.ones((4, 3)), np.ones(3), np.ones((4, 2))
    _both_raise(RuntimeError, "torch.ormqr: other.shape[-1] must be equal to input.shape[-2]", o, a, t, c,
                left=False)
    _both_raise(RuntimeError, "torch.ormqr: other.shape[-2] must be equal to input.shape[-2]", o, a, t,
                np.ones((3, 2)))
    _both_raise(RuntimeError, "torch.ormqr: Expected input and other to have the same dtype, but input has "
                "dtypeDouble and other has dtype Float", o, a, t, c.astype(np.float32))
    _both_raise(RuntimeError, "torch.ormqr: Expected input and tau to have the same dtype, but input has "
                "dtypeDouble and tau has dtype Float", o, a, t.astype(np.float32), c)
    _both_raise(RuntimeError, "torch.ormqr: tau.shape[-1] must be equal to min(other.shape[-2], "
                "input.shape[-1])", o, a, np.ones(4), c)
    _both_raise(RuntimeError, "torch.ormqr: input must have at least 2 dimensions.", o, np.ones(3), t, c)
    _both_raise(RuntimeError, "torch.ormqr: other must have at least 2 dimensions.", o, a, t, np.ones(4))
    _both_raise(RuntimeError, "torch.ormqr: Expected other to have the same number of dimensions as input, but "
                "got other.ndim equal to 2 and input.ndim is equal to 3", o, np.ones((2, 4, 3)),
                np.ones((2, 3)), c)
    _both_raise(RuntimeError, "torch.ormqr: Expected batch dimensions of tau to be equal to input.shape[:-2], "
                "but got [3]", o, np.ones((2, 4, 3)), np.ones((3, 3)), np.ones((2, 4, 2)))
    _both_raise(NotImplementedError, "\"ormqr_cpu\" not implemented for 'Int'", o, a.astype(np.int32),
                t.astype(np.int32), c.astype(np.int32))
    _both_raise(TypeError, "ormqr(): argument 'left' must be bool, not int", o, a, t, c, left=1)


# ----------------------------------------------------------------- addbmm
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_addbmm(dtype):
    M, b1, b2 = _rand((3, 5), dtype, 26), _rand((4, 3, 2), dtype, 27), _rand((4, 2, 5), dtype, 28)
    want = M + np.einsum("bij,bjk->ik", b1, b2)
    got = tp.addbmm(tp.tensor(M), tp.tensor(b1), tp.tensor(b2))
    assert_close(got.numpy(), want, atol=1e-12)
    got = tp.addbmm(tp.tensor(M[0]), tp.tensor(b1), tp.tensor(b2), beta=0.5, alpha=2)
    assert_close(got.numpy(), 0.5 * M[0] + 2 * (want - M), atol=1e-12)
    assert_close(tp.tensor(M).addbmm(tp.tensor(b1), tp.tensor(b2)).numpy(), M + (want - M), atol=1e-12)
    x = tp.tensor(M.copy())
    assert x.addbmm_(tp.tensor(b1), tp.tensor(b2), alpha=3) is x
    assert_close(x.numpy(), M + 3 * (want - M), atol=1e-12)
    out = tp.empty(0, dtype=x.dtype)
    assert tp.addbmm(tp.tensor(M), tp.tensor(b1), tp.tensor(b2), out=out) is out
    xs = [tp.tensor(a, requires_grad=True) for a in (M[:1], b1, b2)]
    f = lambda m, p, q: tp.addbmm(m, p, q, beta=0.7, alpha=-1.5)   # noqa: E731
    assert gradcheck(f, xs) and gradgradcheck(f, xs)
    if torch is not None:
        _against_torch(lambda T, m, p, q: T.addbmm(m, p, q, beta=0.7, alpha=-1.5), [M[:1], b1, b2], rg=(0, 1, 2))


def test_addbmm_special_values():
    nan = tp.full((3, 5), float("nan"), dtype=tp.float64)
    r = tp.addbmm(nan, tp.ones(4, 3, 2, dtype=tp.float64), tp.ones(4, 2, 5, dtype=tp.float64), beta=0)
    assert (r.numpy() == 8).all()                  # beta=0 ignores input, even NaN
    i = tp.addbmm(tp.ones(3, 5, dtype=tp.int64), tp.ones(4, 3, 2, dtype=tp.int64), tp.ones(4, 2, 5, dtype=tp.int64),
                  alpha=1.5, beta=2.7)
    assert i.dtype == tp.int64 and (i.numpy() == 10).all()      # (PyTorch truncates them to int)
    e = tp.addbmm(tp.ones(3, 5), tp.zeros(0, 3, 2), tp.zeros(0, 2, 5), beta=2)
    assert (e.numpy() == 2).all()


def test_addbmm_errors():
    f = lambda T, m, p, q, **kw: T.addbmm(m, p, q, **kw)       # noqa: E731
    M, b1, b2 = np.ones((3, 5)), np.ones((4, 3, 2)), np.ones((4, 2, 5))
    _both_raise(RuntimeError, "The expanded size of the tensor (3) must match the existing size (2) at "
                "non-singleton dimension 0.  Target sizes: [3, 5].  Tensor sizes: [2, 5]", f, np.ones((2, 5)), b1, b2)
    _both_raise(IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)", f, M, b1,
                b2[0])
    _both_raise(RuntimeError, "batch1 must be a 3D tensor", f, M, np.ones((4, 3, 2, 1)), b2)
    _both_raise(RuntimeError, "batch2 must be a 3D tensor", f, M, b1, np.ones((4, 2, 5, 1)))
    _both_raise(RuntimeError, "batch1 and batch2 must have same number of batches, got 4 and 3", f, M, b1, b2[:3])
    _both_raise(RuntimeError, "Incompatible matrix sizes for bmm (3x2 and 3x5)", f, M, b1, np.ones((4, 3, 5)))
    _both_raise(RuntimeError, "self and mat2 must have the same dtype, but got Float and Double", f,
                M.astype(np.float32), b1, b2)
    _both_raise(RuntimeError, "mat1 and mat2 must have the same dtype, but got Float and Double", f, M,
                b1.astype(np.float32), b2)
    _both_raise(NotImplementedError, "\"addmm_impl_cpu_\" not implemented for 'Bool'", f, M.astype(bool),
                b1.astype(bool), b2.astype(bool))
    _both_raise(RuntimeError, "self and mat2 must have the same dtype, but got Float and Double",
                lambda T, m, p, q: m.addbmm_(p, q), M.astype(np.float32), b1, b2)


# ----------------------------------------------------------------- chain_matmul
def test_chain_matmul():
    ms = [_rand(s, seed=i) for i, s in enumerate([(3, 5), (5, 2), (2, 6), (6, 4)])]
    want = ms[0] @ ms[1] @ ms[2] @ ms[3]
    _fresh_warning(tp.ops.factorizations._CHAIN_MATMUL_DEPRECATED)
    with pytest.warns(UserWarning, match="torch.chain_matmul is deprecated and will be removed"):
        r = tp.chain_matmul(*[tp.tensor(m) for m in ms])
    assert_close(r.numpy(), want, atol=1e-12)
    one = tp.tensor(ms[0])
    c = tp.chain_matmul(one)
    assert c is not one and not np.shares_memory(c.numpy(), one.numpy())     # a copy, as PyTorch's
    assert_close(c.numpy(), ms[0], atol=0, rtol=0)
    xs = [tp.tensor(m, requires_grad=True) for m in ms[:3]]
    assert gradcheck(tp.chain_matmul, xs) and gradgradcheck(tp.chain_matmul, xs)
    if torch is not None:
        _against_torch(lambda T, *m: T.chain_matmul(*m), ms, rg=(0, 1, 2, 3))
        _against_torch(lambda T, m: T.chain_matmul(m), ms[:1], rg=(0,))


def test_chain_matmul_errors():
    cm = lambda T, *m: T.chain_matmul(*m)                      # noqa: E731
    _both_raise(RuntimeError, "chain_matmul(): Expected one or more matrices", cm)
    _both_raise(RuntimeError, "Tensor dimension is 1, expected 2 instead.", cm, np.ones((3, 5)), np.ones(5))
    _both_raise(RuntimeError, "Tensor dimension is 3, expected 2 instead.", cm, np.ones((3, 5)), np.ones((5, 2)),
                np.ones((2, 2, 2)))
    _both_raise(RuntimeError, "multi_dot(): tensors 0 and 1 with shapes [3, 5] and [4, 2] cannot be multiplied",
                cm, np.ones((3, 5)), np.ones((4, 2)))
    _both_raise(RuntimeError, "multi_dot(): all tensors must have be the same dtype but tensor 0 is double and "
                "tensor 1 float", cm, np.ones((3, 5)), np.ones((5, 2), np.float32))


# ----------------------------------------------------------------- nuclear_norm / frobenius_norm
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_norms(dtype):
    X = _rand((2, 3, 4), dtype, 30)
    s = np.linalg.svd(X, compute_uv=False)
    assert_close(_quiet(tp.nuclear_norm, tp.tensor(X)).numpy(), s.sum(-1), atol=1e-12)
    assert _quiet(tp.nuclear_norm, tp.tensor(X), True).shape == (2, 1, 1)
    assert _quiet(tp.nuclear_norm, tp.tensor(X), keepdim=True).shape == (2, 1, 1)
    r = _quiet(tp.nuclear_norm, tp.tensor(X), (0, 2), True)
    assert r.shape == (1, 3, 1)
    assert_close(r.numpy()[0, :, 0], np.linalg.svd(np.moveaxis(X, 1, 0), compute_uv=False).sum(-1), atol=1e-12)
    f = _quiet(tp.frobenius_norm, tp.tensor(X), (0, 2))
    assert_close(f.numpy(), np.sqrt((np.abs(X) ** 2).sum((0, 2))), atol=1e-12)
    assert f.dtype == tp.float64
    assert _quiet(tp.frobenius_norm, tp.tensor(X), 1).shape == (2, 4)
    assert _quiet(tp.frobenius_norm, tp.tensor(X), ()).shape == ()
    assert _quiet(tp.frobenius_norm, tp.tensor(X), (0, 1), keepdim=True).shape == (1, 1, 4)
    x = tp.tensor(X, requires_grad=True)
    for fn in (lambda t: tp.nuclear_norm(t), lambda t: tp.nuclear_norm(t, (0, 2)),
               lambda t: tp.frobenius_norm(t, (0, 1))):
        assert _quiet(gradcheck, fn, (x,)) and _quiet(gradgradcheck, fn, (x,))
    if torch is not None:
        for fn in (lambda T, t: T.nuclear_norm(t), lambda T, t: T.nuclear_norm(t, (2, 0), True),
                   lambda T, t: T.frobenius_norm(t, (0, 1)), lambda T, t: T.frobenius_norm(t, (-1,), True),
                   lambda T, t: T.frobenius_norm(t, ())):
            _against_torch(fn, [X], rg=(0,))


def test_norm_warnings_and_errors():
    for msg, call in ((tp.ops.factorizations._NUCLEAR_DEPRECATED, lambda: tp.nuclear_norm(tp.eye(2))),
                      (tp.ops.factorizations._FROBENIUS_DEPRECATED, lambda: tp.frobenius_norm(tp.eye(2), (0,)))):
        _fresh_warning(msg)
        with pytest.warns(UserWarning, match="is deprecated and it is just left for JIT compatibility"):
            call()
    X = np.ones((2, 3, 4))
    nn_, fn_ = (lambda T, x, **k: T.nuclear_norm(x, **k)), (lambda T, x, **k: T.frobenius_norm(x, **k))
    _both_raise(RuntimeError, "linalg.matrix_norm: dims must be different. Got (1, 1)", nn_, X, dim=1)
    _both_raise(RuntimeError, "linalg.matrix_norm: dims must be different. Got (1, 1)", nn_, X, dim=(1, -2))
    _both_raise(RuntimeError, "linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2", nn_, X, dim=(0, 1, 2))
    _both_raise(IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 5)", nn_, X,
                dim=(1, 5))
    _both_raise(RuntimeError, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.", nn_,
                np.ones(3))
    _both_raise(RuntimeError, "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got Int",
                nn_, np.ones((2, 2), np.int32))
    _both_raise(RuntimeError, "linalg.matrix_norm: Low precision dtypes not supported. Got Half", nn_,
                np.ones((2, 2), np.float16))
    _both_raise(RuntimeError, "Expected at most 2 dimensions, but got 3 dimensions instead.", fn_, X, dim=(0, 1, 2))
    _both_raise(RuntimeError, "norm(): input dtype should be either floating point or complex. Got Int instead.",
                fn_, X.astype(np.int32), dim=(0, 1))
    _both_raise(RuntimeError, "dim 2 appears multiple times in the list of dims", fn_, X, dim=(-1, 2))
    _both_raise(IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 5)", fn_, X,
                dim=(1, 5))
    _both_raise(TypeError, "frobenius_norm(): argument 'dim' must be tuple of ints, not NoneType", fn_, X, dim=None)
    _raises(tp, TypeError, 'frobenius_norm() missing 1 required positional arguments: "dim"',
            lambda: tp.frobenius_norm(tp.tensor(X)))
    if torch is not None:
        _raises(torch, TypeError, 'frobenius_norm() missing 1 required positional arguments: "dim"',
                lambda: torch.frobenius_norm(torch.tensor(X)))


# ----------------------------------------------------------------- removed functions
REMOVED = [("lstsq", 2), ("solve", 2), ("eig", 1), ("symeig", 1), ("matrix_rank", 1)]


@pytest.mark.parametrize("name,nargs", REMOVED)
def test_removed_functions_raise_pytorchs_error(name, nargs):
    msg = getattr(tp.ops.factorizations, f"_{name.upper()}_REMOVED")
    a = np.eye(2)
    for T in (tp, torch):
        if T is None:
            continue
        _raises(T, RuntimeError, msg, lambda: getattr(T, name)(*[T.tensor(a)] * nargs))
        if name != "matrix_rank":
            _raises(T, RuntimeError, msg, lambda: getattr(T.tensor(a), name)(*[T.tensor(a)] * (nargs - 1)))
    assert torch is None or msg == _quiet(_message, lambda: getattr(torch, name)(*[torch.tensor(a)] * nargs))


def _message(f):
    try:
        f()
    except RuntimeError as e:
        return str(e)


def test_removed_functions_signatures():
    for T in (tp, torch):
        if T is None:
            continue
        _raises(T, TypeError, "lstsq() missing 1 required positional argument: 'A'", lambda: T.lstsq(T.eye(2)))
        _raises(T, TypeError, "solve() missing 1 required positional argument: 'A'", lambda: T.solve(T.eye(2)))
        _raises(T, TypeError, "Tensor.lstsq() missing 1 required positional argument: 'other'",
                lambda: T.eye(2).lstsq())
        _raises(T, TypeError, "Tensor.solve() missing 1 required positional argument: 'other'",
                lambda: T.eye(2).solve())
        _raises(T, RuntimeError, _message(lambda: tp.eig(tp.eye(2))), lambda: T.eye(2).eig(eigenvectors=True))
        _raises(T, RuntimeError, _message(lambda: tp.symeig(tp.eye(2))), lambda: T.symeig(T.eye(2), upper=False))
        _raises(T, RuntimeError, _message(lambda: tp.matrix_rank(tp.eye(2))),
                lambda: T.matrix_rank(T.eye(2), tol=1e-3, symmetric=True))


# ----------------------------------------------------------------- LDL
def _sym(shape, dtype, seed, hermitian=False):
    a = _rand(shape, dtype, seed)
    s = a + (_mh(a) if hermitian else np.swapaxes(a, -1, -2))
    return s + np.triu(_rand(shape, dtype, seed + 1), 1) * 5       # (the upper triangle is never read)


CASES_LDL = [("float64", False), ("float32", False), ("complex128", False), ("complex128", True),
             ("float64", True)]


@pytest.mark.parametrize("dtype,hermitian", CASES_LDL)
@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_ldl_factor_solves(dtype, hermitian, n):
    A = _sym((4, n, n), dtype, seed=40 + n, hermitian=hermitian)
    full = np.tril(A) + np.swapaxes(np.tril(A, -1), -1, -2).conj() if hermitian else \
        np.tril(A) + np.swapaxes(np.tril(A, -1), -1, -2)
    LD, piv, info = tp.linalg.ldl_factor_ex(tp.tensor(A), hermitian=hermitian)
    assert type(tp.linalg.ldl_factor_ex(tp.tensor(A))).__name__ == "linalg_ldl_factor_ex"
    assert piv.dtype == info.dtype == tp.int32 and LD.dtype == tp.tensor(A).dtype
    assert (info.numpy() == 0).all() and (np.triu(LD.numpy(), 1) == 0).all()
    B = _rand((4, n, 3), dtype, seed=50)
    X = tp.linalg.ldl_solve(LD, piv, tp.tensor(B), hermitian=hermitian)
    tol = 1e-3 if dtype == "float32" else 1e-9
    assert_close(X.numpy(), np.linalg.solve(full, B), atol=tol, rtol=tol)
    LD2, piv2 = tp.linalg.ldl_factor(tp.tensor(A), hermitian=hermitian)
    assert (LD2.numpy() == LD.numpy()).all() and (piv2.numpy() == piv.numpy()).all()
    if torch is not None:
        t = _quiet(torch.linalg.ldl_factor_ex, torch.tensor(A), hermitian=hermitian)
        assert (t.pivots.numpy() == piv.numpy()).all()          # LAPACK's pivots
        assert_close(LD.numpy(), t.LD.numpy(), atol=tol, rtol=tol)
        tx = torch.linalg.ldl_solve(t.LD, t.pivots, torch.tensor(B), hermitian=hermitian)
        assert_close(X.numpy(), tx.numpy(), atol=tol, rtol=tol)


def test_ldl_pivots_of_every_kind():
    """Matrices that take 2x2 blocks and row interchanges, against LAPACK's answer (PyTorch's)."""
    g = np.random.default_rng(60)
    mats = [np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([[1e-3, 2.0, 0.5], [2.0, 1e-3, 1.0], [0.5, 1.0, 3.0]]),
            np.array([[1.0, 5.0, 0.0], [5.0, 2.0, 7.0], [0.0, 7.0, 0.5]])]
    for _ in range(30):
        n = int(g.integers(2, 8))
        a = g.standard_normal((n, n))
        mats.append(a + a.T)
    kinds = set()
    for a in mats:
        LD, piv = tp.linalg.ldl_factor(tp.tensor(a))
        p = piv.numpy()
        kinds |= {"2x2" if (p < 0).any() else "1x1", "swap" if (np.abs(p) != np.arange(1, len(p) + 1)).any() else ""}
        X = tp.linalg.ldl_solve(LD, piv, tp.eye(len(a), dtype=tp.float64))
        assert_close((tp.tensor(a) @ X).numpy(), np.eye(len(a)), atol=1e-8)
        if torch is not None:
            t = torch.linalg.ldl_factor(torch.tensor(a))
            assert (t.pivots.numpy() == p).all()
            assert_close(LD.numpy(), t.LD.numpy(), atol=1e-12, rtol=1e-10)
    assert {"2x2", "swap"} <= kinds


def test_ldl_singular():
    LD, piv, info = tp.linalg.ldl_factor_ex(tp.stack([tp.eye(3, dtype=tp.float64), tp.zeros(3, 3, dtype=tp.float64)]))
    assert info.tolist() == [0, 1] and piv.tolist()[1] == [1, 2, 3] and (LD.numpy()[1] == 0).all()
    assert tp.linalg.ldl_factor_ex(tp.tensor(np.diag([1.0, 1.0, 0.0]))).info.item() == 3
    if torch is not None:
        for a in (np.zeros((3, 3)), np.diag([1.0, 0.0, 2.0]), np.array([[0.0, 0, 1], [0, 0, 0], [1, 0, 0]])):
            r, t = tp.linalg.ldl_factor_ex(tp.tensor(a)), torch.linalg.ldl_factor_ex(torch.tensor(a))
            assert r.info.item() == t.info.item() and r.pivots.tolist() == t.pivots.tolist()
            assert_close(r.LD.numpy(), t.LD.numpy(), atol=0, rtol=0)


def test_ldl_is_not_differentiable():
    a = _sym((3, 3), "float64", 61)
    for T in (tp, torch):
        if T is None:
            continue
        x = T.tensor(a, requires_grad=True)
        LD, piv = T.linalg.ldl_factor(x)
        assert LD.requires_grad and not piv.requires_grad
        assert type(LD.grad_fn).__name__ == "NotImplemented"
        _raises(T, RuntimeError, "derivative for aten::linalg_ldl_factor_ex is not implemented",
                lambda: LD.sum().backward())
        b = T.tensor(_rand((3, 2), seed=62), requires_grad=True)
        X = T.linalg.ldl_solve(LD.detach(), piv, b)
        assert type(X.grad_fn).__name__ == "NotImplemented"
        _raises(T, RuntimeError, "derivative for aten::linalg_ldl_solve is not implemented",
                lambda: X.sum().backward())
    with tp.autograd.forward_ad.dual_level():
        d = tp.autograd.forward_ad.make_dual(tp.tensor(a), tp.tensor(a))
        with pytest.raises(NotImplementedError, match=exact("Trying to use forward AD with "
                                                            "aten::linalg_ldl_factor_ex that does not support it.")):
            tp.linalg.ldl_factor_ex(d)


def test_ldl_solve_broadcasts_and_vmaps():
    A = _sym((3, 4, 4), "float64", 63)
    LD, piv = tp.linalg.ldl_factor(tp.tensor(A))
    B = _rand((2, 1, 4, 2), seed=64)
    X = tp.linalg.ldl_solve(LD, piv, tp.tensor(B))
    assert X.shape == (2, 3, 4, 2)
    for i in range(3):
        assert_close(X.numpy()[:, i], tp.linalg.ldl_solve(LD[i], piv[i], tp.tensor(B[:, 0])).numpy(), atol=1e-12)
    v = tp.func.vmap(tp.linalg.ldl_solve, in_dims=(0, 0, None))(LD, piv, tp.tensor(B[0, 0]))
    assert_close(v.numpy(), X.numpy()[0], atol=1e-12)
    if torch is not None:
        _raises(torch, RuntimeError, "torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the "
                "same, but got pivots with shape [4] instead",
                lambda: torch.linalg.ldl_solve(torch.tensor(A), torch.ones(4, dtype=torch.int32), torch.ones(4, 2,
                                                                                            dtype=torch.float64)))
    _raises(tp, RuntimeError, "torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the same, but "
            "got pivots with shape [4] instead",
            lambda: tp.linalg.ldl_solve(tp.tensor(A), tp.ones(4, dtype=tp.int32), tp.ones(4, 2, dtype=tp.float64)))


def test_ldl_out():
    a = tp.tensor(_sym((3, 3), "float64", 65))
    LD, piv = tp.empty(0, dtype=tp.float64), tp.empty(0, dtype=tp.int32)
    r = tp.linalg.ldl_factor(a, out=(LD, piv))
    assert r[0] is LD and r[1] is piv
    assert (LD.numpy() == tp.linalg.ldl_factor(a).LD.numpy()).all()


# ----------------------------------------------------------------- tensorinv / tensorsolve
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_tensorinv(dtype):
    A = _rand((4, 6, 8, 3), dtype, 70)
    r = tp.linalg.tensorinv(tp.tensor(A), ind=2)
    assert r.shape == (8, 3, 4, 6)
    assert_close(np.tensordot(A, r.numpy(), 2), np.eye(24).reshape(4, 6, 4, 6), atol=1e-10)
    assert tp.linalg.tensorinv(tp.tensor(_rand((6, 2, 3), dtype, 71)), ind=1).shape == (2, 3, 6)
    x = tp.tensor(_rand((2, 3, 6), dtype, 72), requires_grad=True)
    f = lambda t: tp.linalg.tensorinv(t, ind=2)                  # noqa: E731
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
    if torch is not None:
        _against_torch(lambda T, t: T.linalg.tensorinv(t, ind=2), [_rand((2, 3, 6), dtype, 72)], rg=(0,))
        _against_torch(lambda T, t: T.linalg.tensorinv(t, ind=1), [_rand((6, 2, 3), dtype, 73)], rg=(0,))


def test_tensorinv_errors():
    ti = lambda T, a, **kw: T.linalg.tensorinv(a, **kw)        # noqa: E731
    _both_raise(RuntimeError, "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                "prod(self.shape[:ind]), but got 144 != 4", ti, np.ones((4, 6, 8, 3)), ind=1)
    _both_raise(RuntimeError, "Expected a strictly positive integer for 'ind', but got 0", ti, np.eye(2), ind=0)
    _both_raise(RuntimeError, "ArrayRef: invalid slice, N = 3; size = 2", ti, np.eye(4), ind=3)
    _both_raise(TypeError, "linalg_tensorinv(): argument 'ind' must be int, not float", ti, np.eye(4), ind=1.0)
    _both_raise("LinAlgError", "inv: The diagonal element 1 is zero, the inversion could not be completed because "
                "the input matrix is singular.", ti, np.zeros((2, 2, 2, 2)))
    _both_raise(RuntimeError, "linalg.inv: Expected a floating point or complex tensor as input. Got Int", ti,
                np.eye(4, dtype=np.int32).reshape(2, 2, 2, 2))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_tensorsolve(dtype):
    A, B = _rand((2, 3, 6), dtype, 74), _rand((2, 3), dtype, 75)
    x = tp.linalg.tensorsolve(tp.tensor(A), tp.tensor(B))
    assert x.shape == (6,)
    assert_close(np.tensordot(A, x.numpy(), 1), B, atol=1e-10)
    y = tp.linalg.tensorsolve(tp.tensor(np.moveaxis(A, 2, 0)), tp.tensor(B), dims=(0,))
    assert_close(y.numpy(), x.numpy(), atol=1e-12)
    xs = [tp.tensor(A, requires_grad=True), tp.tensor(B, requires_grad=True)]
    assert gradcheck(tp.linalg.tensorsolve, xs) and gradgradcheck(tp.linalg.tensorsolve, xs)
    if torch is not None:
        _against_torch(lambda T, a, b: T.linalg.tensorsolve(a, b), [A, B], rg=(0, 1))
        _against_torch(lambda T, a, b: T.linalg.tensorsolve(a, b, dims=(0,)), [np.moveaxis(A, 2, 0), B], rg=(0, 1))
        A4 = _rand((2, 3, 2, 3), dtype, 76)
        _against_torch(lambda T, a, b: T.linalg.tensorsolve(a, b, dims=(1, 0)), [A4, B], rg=(0, 1))


def test_tensorsolve_errors():
    ts = lambda T, a, b, **kw: T.linalg.tensorsolve(a, b, **kw)     # noqa: E731
    A, B = np.ones((2, 3, 6)), np.ones((2, 3))
    _both_raise(TypeError, "linalg_tensorsolve(): argument 'dims' must be tuple of ints, not int", ts, A, B, dims=0)
    _both_raise(RuntimeError, "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                "prod(self.shape[:other.ndim]), but got 18 != 6", ts, A, np.ones(6))
    _both_raise(RuntimeError, "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                "prod(self.shape[:other.ndim]), but got 6 != 4", ts, A, np.ones((2, 2)))
    _both_raise(RuntimeError, "linalg.solve: Expected A and B to have the same dtype, but found A of type Double "
                "and B of type Float instead", ts, A, B.astype(np.float32))
    _both_raise(RuntimeError, "linalg.solve: Expected a floating point or complex tensor as input. Got Int", ts,
                A.astype(np.int32), B.astype(np.int32))
    _both_raise("LinAlgError", "torch.linalg.solve: The solver failed because the input matrix is singular.", ts,
                np.zeros((2, 3, 6)), B)
    _both_raise(IndexError, "Dimension out of range (expected to be in range of [-4, 3], but got 5)", ts,
                np.ones((2, 3, 2, 3)), B, dims=(5,))


# ----------------------------------------------------------------- svd_lowrank / pca_lowrank
def _low_rank(shape, r, dtype="float64", seed=0):
    g = np.random.default_rng(seed)
    m, n = shape[-2:]
    u, v = g.standard_normal(shape[:-2] + (m, r)), g.standard_normal(shape[:-2] + (r, n))
    if dtype.startswith("complex"):
        u, v = u + 1j * g.standard_normal(u.shape), v + 1j * g.standard_normal(v.shape)
    return (u @ v).astype(dtype)


def _reconstruct(U, S, V):
    U, S, V = _np(U), _np(S), _np(V)
    return (U * S[..., None, :]) @ _mh(V)


@pytest.mark.parametrize("dtype", ["float64", "complex128", "float32"])
@pytest.mark.parametrize("shape", [(8, 5), (5, 9), (2, 7, 6)])
def test_svd_lowrank_is_exact_for_low_rank(dtype, shape):
    A = _low_rank(shape, 3, dtype, seed=80)
    tp.manual_seed(1)
    U, S, V = tp.svd_lowrank(tp.tensor(A), q=4)
    k = 4
    m, n = shape[-2:]
    assert U.shape == shape[:-2] + (m, k) and S.shape == shape[:-2] + (k,) and V.shape == shape[:-2] + (n, k)
    assert U.dtype == tp.tensor(A).dtype and S.dtype == (tp.float32 if dtype == "float32" else tp.float64)
    tol = 1e-3 if dtype == "float32" else 1e-9
    assert_close(_reconstruct(U, S, V), A, atol=tol, rtol=tol)
    assert_close(_np(U.mH @ U), np.broadcast_to(np.eye(k), shape[:-2] + (k, k)), atol=tol)
    assert_close(_np(S)[..., :3], np.linalg.svd(A, compute_uv=False)[..., :3], atol=tol, rtol=tol)
    if torch is not None:                   # PyTorch's draws differ; its reconstruction is the same matrix
        torch.manual_seed(1)
        tU, tS, tV = torch.svd_lowrank(torch.tensor(A), q=4)
        assert tU.shape == U.shape and str(tS.dtype).split(".")[-1] == str(S.dtype).split(".")[-1]
        assert_close(_reconstruct(U, S, V), _reconstruct(tU, tS, tV), atol=tol, rtol=tol)
        assert_close(_np(S)[..., :3], tS.numpy()[..., :3], atol=tol, rtol=tol)


def test_svd_lowrank_with_M_and_seeds():
    A = _low_rank((6, 10), 2, seed=81)
    M = _rand((1, 10), seed=82)                      # broadcast to A's shape
    U, S, V = tp.svd_lowrank(tp.tensor(A + M), q=3, niter=1, M=tp.tensor(M))
    assert_close(_reconstruct(U, S, V), A, atol=1e-9)
    tp.manual_seed(5)
    r1 = tp.svd_lowrank(tp.tensor(_rand((9, 7), seed=83)), q=3)
    tp.manual_seed(5)
    r2 = tp.svd_lowrank(tp.tensor(_rand((9, 7), seed=83)), q=3)
    r3 = tp.svd_lowrank(tp.tensor(_rand((9, 7), seed=83)), q=3)
    assert all((a.numpy() == b.numpy()).all() for a, b in zip(r1, r2))         # tensorplay's generator
    assert not (r1[0].numpy() == r3[0].numpy()).all()
    U, S, V = tp.svd_lowrank(tp.tensor(_rand((6, 5), seed=84)), q=None, niter=None)
    assert S.shape == (5,)                           # q=None is 6, niter=None is 2 (capped by the size)
    if torch is not None:
        tU, tS, tV = torch.svd_lowrank(torch.tensor(A + M), q=3, niter=1, M=torch.tensor(M))
        assert_close(_reconstruct(tU, tS, tV), A, atol=1e-9)


@pytest.mark.parametrize("center", [True, False])
def test_pca_lowrank(center):
    g = np.random.default_rng(85)
    A = _low_rank((2, 10, 6), 2, seed=86) + (g.standard_normal((2, 1, 6)) if center else 0)
    U, S, V = tp.pca_lowrank(tp.tensor(A), q=3, center=center)
    C = A - A.mean(-2, keepdims=True) if center else A
    assert_close(_reconstruct(U, S, V), C, atol=1e-9)
    assert tp.pca_lowrank(tp.tensor(A))[1].shape == (2, 6)        # q defaults to min(6, m, n)
    if torch is not None:
        tU, tS, tV = torch.pca_lowrank(torch.tensor(A), q=3, center=center)
        assert_close(_reconstruct(U, S, V), _reconstruct(tU, tS, tV), atol=1e-9)
    for T in (tp, torch):
        if T is None:
            continue
        _raises(T, ValueError, "q(=7) must be non-negative integer and not greater than min(m, n)=6",
                lambda: T.pca_lowrank(T.tensor(A), q=7))
        _raises(T, ValueError, "niter(=-1) must be non-negative integer", lambda: T.pca_lowrank(T.tensor(A), niter=-1))


def test_lowrank_gradients():
    """The randomized algorithm is a composite: with the generator reseeded on each
    call it is a function, and its derivatives check (q = min(m, n): the exact SVD)."""
    x = tp.tensor(_rand((5, 3), seed=87), requires_grad=True)

    def f(a):
        tp.manual_seed(3)
        U, S, V = tp.svd_lowrank(a, q=3)
        return (U * S.unsqueeze(-2)) @ V.mH, S
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
    (g,) = tp.autograd.grad(f(x)[0].sum(), x)
    assert_close(g.numpy(), np.ones((5, 3)), atol=1e-9)        # the reconstruction is A itself

    def p(a):
        tp.manual_seed(3)
        return tp.pca_lowrank(a, q=3)[1]
    assert gradcheck(p, (x,))


# ----------------------------------------------------------------- transforms through the composites
def test_composites_under_vmap_and_forward_mode():
    from tensorplay.func import jacfwd, jacrev, vmap
    A = tp.tensor(np.triu(_rand((3, 3), seed=90)) + 3 * np.eye(3))
    bs = tp.tensor(_rand((4, 3, 2), seed=91))
    ts = _quiet(vmap(lambda b: tp.triangular_solve(b, A).solution), bs)
    assert_close(ts.numpy(), _quiet(tp.triangular_solve, bs, A).solution.numpy(), atol=1e-12)
    L = tp.tensor(_factor((3, 3), seed=92))
    cs = vmap(lambda b: tp.cholesky_solve(b, L))(bs)
    assert_close(cs.numpy(), tp.cholesky_solve(bs, L).numpy(), atol=1e-12)
    b1, b2 = tp.tensor(_rand((2, 3, 2), seed=93)), tp.tensor(_rand((2, 2, 4), seed=94))
    M = tp.tensor(_rand((3, 4), seed=95))
    # (addmm, which addbmm records, has no batching rule yet: vmap runs it per sample, and warns)
    jf = _quiet(jacfwd(lambda m: tp.addbmm(m, b1, b2, beta=2.0)), M)
    jr = _quiet(jacrev(lambda m: tp.addbmm(m, b1, b2, beta=2.0)), M)
    assert_close(jf.numpy(), jr.numpy(), atol=1e-12)
    assert_close(jf.numpy(), 2 * np.eye(12).reshape(3, 4, 3, 4), atol=1e-12)
    jf = jacfwd(lambda l: tp.cholesky_inverse(l))(L)
    jr = jacrev(lambda l: tp.cholesky_inverse(l))(L)
    assert_close(jf.numpy(), jr.numpy(), atol=1e-10)
    h, tau = tp.geqrf(tp.tensor(_rand((4, 3), seed=96)))
    C = tp.tensor(_rand((4, 2), seed=97))
    jf = jacfwd(lambda c: tp.ormqr(h, tau, c, transpose=True))(C)
    jr = jacrev(lambda c: tp.ormqr(h, tau, c, transpose=True))(C)
    assert_close(jf.numpy(), jr.numpy(), atol=1e-12)


def test_keyword_names_as_pytorch():
    """PyTorch's parameter names (its native signatures', not its docs')."""
    A = tp.tensor(_rand((4, 3), seed=98))
    a, tau = tp.geqrf(input=A)
    C = tp.tensor(_rand((4, 2), seed=99))
    want = tp.ormqr(a, tau, C)
    for T in (tp, torch):
        if T is None:
            continue
        a_, tau_, C_ = (T.tensor(_np(t)) for t in (a, tau, C))
        assert_close(_np(T.ormqr(a_, input2=tau_, input3=C_, left=True)), _np(want), atol=1e-12)
        assert_close(_np(a_.ormqr(input2=tau_, input3=C_)), _np(want), atol=1e-12)
        assert_close(_np(T.orgqr(a_, input2=tau_)), _np(tp.orgqr(a, tau)), atol=1e-12)
        L = T.tensor(_factor((3, 3), seed=100))
        B = T.tensor(_rand((3, 2), seed=101))
        assert T.cholesky_solve(input=B, input2=L, upper=False).shape == (3, 2)
        assert B.cholesky_solve(input2=L).shape == (3, 2)
        assert _quiet(T.triangular_solve, input=B, A=L.mT).solution.shape == (3, 2)
        assert T.cholesky_inverse(input=L, upper=False).shape == (3, 3)
        assert T.linalg.tensorinv(input=T.eye(4, dtype=T.float64).reshape(2, 2, 2, 2), ind=2).shape == (2, 2, 2, 2)
        assert T.linalg.tensorsolve(input=T.eye(4, dtype=T.float64).reshape(2, 2, 4), other=T.ones(2, 2,
                                    dtype=T.float64)).shape == (4,)
        S = T.tensor(_sym((3, 3), "float64", 102))
        LD, piv = T.linalg.ldl_factor(input=S, hermitian=False)
        assert T.linalg.ldl_factor_ex(input=S).info.item() == 0
        assert T.linalg.ldl_solve(LD=LD, pivots=piv, B=B, hermitian=False).shape == (3, 2)
        assert _quiet(T.addbmm, input=T.zeros(3, 5), batch1=T.ones(2, 3, 2), batch2=T.ones(2, 2, 5),
                      beta=1, alpha=1).shape == (3, 5)
        assert len(T.svd_lowrank(A=T.tensor(_rand((5, 4), seed=103)), q=2, niter=1, M=None)) == 3
        assert len(T.pca_lowrank(A=T.tensor(_rand((5, 4), seed=103)), q=2, center=False, niter=1)) == 3


def test_node_names_as_pytorch():
    L = _factor((3, 3), seed=104)
    B = _rand((3, 2), seed=105)
    for T in (tp, torch):
        if T is None:
            continue
        x = T.tensor(L, requires_grad=True)
        b = T.tensor(B, requires_grad=True)
        names = [type(r.grad_fn).__name__ for r in (
            _quiet(T.cholesky, x @ x.mT), T.cholesky_inverse(x), T.cholesky_solve(b, x), T.geqrf(x)[0],
            T.addbmm(x, x.unsqueeze(0), x.unsqueeze(0)), T.qr(x)[0])]
        assert names == ["CholeskyBackward0", "CholeskyInverseBackward0", "CholeskySolveBackward0",
                         "GeqrfBackward0", "AddbmmBackward0", "LinalgQrBackward0"], T.__name__
