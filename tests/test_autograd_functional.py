"""tensorplay.autograd.functional against torch.autograd.functional."""
import numpy as np
import pytest

import tensorplay as tp
from conftest import assert_close, torch

pytestmark = pytest.mark.skipif(torch is None, reason="torch not installed")

A = np.random.default_rng(0).standard_normal(4)
B = np.random.default_rng(1).standard_normal((4, 3))


def f_scalar(T, x, w):
    return ((x @ w).tanh() ** 2).sum() + (x * x).sum() * x[0]


def f_vec(T, x, w):
    return (x @ w).sin() * x[1]


def _np(x):
    if isinstance(x, (tuple, list)):
        return [_np(v) for v in x]
    return x.detach().numpy()


def _same(a, b):
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b)
        for u, v in zip(a, b):
            _same(u, v)
    else:
        assert tuple(a.shape) == tuple(b.shape)
        assert_close(_np(a), _np(b), atol=1e-10, rtol=1e-8)


def _call(T, name, fn, **kw):
    x, w = T.tensor(A), T.tensor(B)
    return getattr(T.autograd.functional, name)(lambda x, w: fn(T, x, w), (x, w), **kw)


@pytest.mark.parametrize("name", ["jacobian", "hessian"])
def test_jacobian_hessian(name):
    fn = f_vec if name == "jacobian" else f_scalar
    _same(_call(tp, name, fn), _call(torch, name, fn))


@pytest.mark.parametrize("name", ["vhp", "hvp"])
def test_vhp_hvp(name):
    vs = lambda T: (T.tensor(A[::-1].copy()), T.tensor(B * 0.5))  # noqa: E731
    _same(_call(tp, name, f_scalar, v=vs(tp)), _call(torch, name, f_scalar, v=vs(torch)))


def test_vjp_jvp():
    v_out = lambda T: T.tensor(np.arange(3.0))  # noqa: E731
    _same(_call(tp, "vjp", f_vec, v=v_out(tp)), _call(torch, "vjp", f_vec, v=v_out(torch)))
    v_in = lambda T: (T.tensor(A * 2), T.tensor(B[::-1].copy()))  # noqa: E731
    _same(_call(tp, "jvp", f_vec, v=v_in(tp)), _call(torch, "jvp", f_vec, v=v_in(torch)))


def test_single_tensor_input_keeps_structure():
    for T in (tp, torch):
        x = T.tensor(A)
        j = T.autograd.functional.jacobian(lambda x: x.exp(), x)
        assert tuple(j.shape) == (4, 4)
        h = T.autograd.functional.hessian(lambda x: (x ** 3).sum(), x)
        assert tuple(h.shape) == (4, 4)


def test_unused_input_zero_or_strict_error():
    for T in (tp, torch):
        x, y = T.tensor(A), T.tensor(A)
        j = T.autograd.functional.jacobian(lambda x, y: x * 2, (x, y))
        assert not np.any(j[1].numpy())
        with pytest.raises(RuntimeError, match="independent of input 1"):
            T.autograd.functional.jacobian(lambda x, y: x * 2, (x, y), strict=True)


def test_create_graph_lets_you_differentiate_again():
    for T in (tp, torch):
        x = T.tensor(A, requires_grad=True)
        _, hv = T.autograd.functional.hvp(lambda x: (x ** 4).sum(), x, T.ones(4, dtype=T.float64),
                                          create_graph=True)
        (g,) = T.autograd.grad(hv.sum(), x)
        assert_close(g.numpy(), 24 * A, atol=1e-10)


def test_bad_inputs():
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        tp.autograd.functional.jacobian(lambda x: x, [1.0])
    with pytest.raises(RuntimeError, match="v can only be None"):
        tp.autograd.functional.vjp(lambda x: x * 2, tp.tensor(A))


# ------------------------------------------------------------------ vectorize, strategies
@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
@pytest.mark.parametrize("fn", [f_vec, lambda T, x, w: ((x @ w).sin(), x.exp(), (w * 2).sum())],
                         ids=["one output", "three outputs"])
def test_vectorized_jacobian_both_strategies(strategy, fn):
    want = _call(torch, "jacobian", fn)
    got = _call(tp, "jacobian", fn, vectorize=True, strategy=strategy)
    _same(got, want)
    if strategy == "forward-mode":
        # PyTorch builds these containers as lists (its own forward-mode jacobian fails on a
        # matmul of dual tensors under its legacy vmap, so compare on elementwise functions)
        ew = lambda T, x, w: (x.sin(), w.exp()) if fn is not f_vec else x.sin()   # noqa: E731
        want = _call(torch, "jacobian", ew, vectorize=True, strategy=strategy)
        got = _call(tp, "jacobian", ew, vectorize=True, strategy=strategy)
        _same(got, want)
        assert type(got) is type(want)
        assert isinstance(got[0], list) == isinstance(want[0], list)
    for T in (tp, torch):                  # single input, single output
        j = T.autograd.functional.jacobian(lambda x: x.exp(), T.tensor(A), vectorize=True,
                                           strategy=strategy)
        assert tuple(j.shape) == (4, 4)


def test_vectorized_jacobian_with_create_graph_and_unused_input():
    for T in (tp, torch):
        x = T.tensor(A, requires_grad=True)
        y = T.tensor(A[:2].copy(), requires_grad=True)
        jx, jy = T.autograd.functional.jacobian(lambda x, y: x ** 3, (x, y), create_graph=True,
                                                vectorize=True)
        assert tuple(jy.shape) == (4, 2) and not jy.detach().numpy().any()
        (g,) = T.autograd.grad(jx.sum(), x)
        assert_close(g.numpy(), 6 * A, atol=1e-10)


@pytest.mark.parametrize("outer", ["reverse-mode", "forward-mode"])
def test_vectorized_hessian(outer):
    got = _call(tp, "hessian", f_scalar, vectorize=True, outer_jacobian_strategy=outer)
    # (PyTorch's forward-mode outer jacobian fails on this function's matmul)
    _same(got, _call(torch, "hessian", f_scalar, vectorize=True))
    x = tp.tensor(A)
    h = tp.autograd.functional.hessian(lambda x: (x ** 3).sum(), x, vectorize=True,
                                       outer_jacobian_strategy=outer)
    assert_close(h.detach().numpy(), np.diag(6 * A), atol=1e-10)
    assert not x.requires_grad                 # the caller's tensor is left alone


@pytest.mark.parametrize("call,exc,msg", [
    (lambda T, x: T.autograd.functional.jacobian(T.sin, x, strategy="bad"), AssertionError,
     'Expected strategy to be either "forward-mode" or "reverse-mode". Hint:'),
    (lambda T, x: T.autograd.functional.hessian(lambda x: x.sum(), x,
                                                outer_jacobian_strategy="bad"), AssertionError,
     'Expected strategy to be either "forward-mode" or "reverse-mode".'),
    (lambda T, x: T.autograd.functional.jacobian(T.sin, x, strategy="forward-mode"),
     NotImplementedError, "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"),
    (lambda T, x: T.autograd.functional.jacobian(T.sin, x, strategy="forward-mode",
                                                 vectorize=True, create_graph=True),
     NotImplementedError, '`create_graph=True` and `strategy="forward-mode"` are not supported'),
    (lambda T, x: T.autograd.functional.jacobian(T.sin, x, strategy="forward-mode",
                                                 vectorize=True, strict=True),
     RuntimeError, '`strict=True` and `strategy="forward-mode"` are not supported together'),
    (lambda T, x: T.autograd.functional.jacobian(T.sin, x, vectorize=True, strict=True),
     RuntimeError, "`strict=True` and `vectorized=True` are not supported together"),
])
def test_strategy_errors_as_torch(call, exc, msg):
    for T in (tp, torch):
        with pytest.raises(exc) as e:
            call(T, T.tensor(A))
        assert msg in str(e.value)
