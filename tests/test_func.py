"""tensorplay.func: grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd,
hessian.  Tests taking the ``T`` fixture run the same code on tensorplay and
on torch (when installed): PyTorch's behaviour and messages are the oracle.
Values are also checked against central finite differences in float64.
"""
import re

import numpy as np
import pytest

import tensorplay as tp
from tensorplay.func import (grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize,
                             vjp)
from tensorplay.func._pytree import tree_flatten, tree_map, tree_unflatten

from conftest import exact, torch


def npy(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(npy(a), npy(b), rtol=tol, atol=tol)


def randn(T, *shape, seed=0):
    return T.tensor(np.random.default_rng(seed).standard_normal(shape))


# ------------------------------------------------------------------ seed 003, as written
def test_seed_grad_sin(T):
    x = randn(T)
    cos_x = T.func.grad(lambda x: T.sin(x))(x)
    assert T.allclose(cos_x, x.cos())
    neg_sin_x = T.func.grad(T.func.grad(lambda x: T.sin(x)))(x)     # second-order gradients
    assert T.allclose(neg_sin_x, -x.sin())


# seed 003's per-sample-gradient example composes grad with vmap: vmap is a
# later part of issue 7, so that example is not run here.


def test_seed_has_aux_and_argnums(T):
    def my_loss_func(y, y_pred):
        loss_per_sample = (0.5 * y_pred - y) ** 2
        loss = loss_per_sample.mean()
        return loss, (y_pred, loss_per_sample)

    fn = T.func.grad(my_loss_func, argnums=(0, 1), has_aux=True)
    y_true = T.tensor(np.random.default_rng(1).random(4))
    y_preds = T.tensor(np.random.default_rng(2).random(4), requires_grad=True)
    (g_true, g_pred), (aux_pred, aux_loss) = fn(y_true, y_preds)
    r = 0.5 * npy(y_preds) - npy(y_true)
    close(g_true, -2 * r / 4)
    close(g_pred, r / 4)
    close(aux_pred, y_preds)
    close(aux_loss, r ** 2)
    # y_preds requires grad outside the transform: what depends on it keeps its history
    assert g_pred.requires_grad and aux_pred.requires_grad
    (g_pred.sum() + aux_loss.sum()).backward()
    close(y_preds.grad, 0.5 / 4 + 2 * r * 0.5)


def _f_no_grad_inside(T):
    def f(x):
        with T.no_grad():
            c = x ** 2
        return (x - c).sum()
    return f


def test_seed_no_grad_inside_is_honoured(T):
    x = randn(T, 3)
    close(T.func.grad(_f_no_grad_inside(T))(x), np.ones(3))


def test_seed_no_grad_outside_is_ignored(T):
    x = randn(T, 3)
    with T.no_grad():
        g = T.func.grad(_f_no_grad_inside(T))(x)
        g2 = T.func.grad(lambda x: (x ** 3).sum())(x)
    close(g, np.ones(3))
    close(g2, 3 * npy(x) ** 2)


# ------------------------------------------------------------------ what results carry
def test_results_are_plain_unless_something_outside_asks(T):
    x = randn(T, 3)
    g = T.func.grad(lambda x: x.sin().sum())(x)
    assert not g.requires_grad and g.grad_fn is None
    g, v = T.func.grad_and_value(lambda x: x.sin().sum())(x)
    assert not v.requires_grad and not g.requires_grad
    xr = randn(T, 3).requires_grad_()
    g = T.func.grad(lambda x: x.sin().sum())(xr)
    assert g.requires_grad
    (d,) = T.autograd.grad(g.sum(), xr)
    close(d, -npy(xr.sin()))
    w = randn(T, 3, seed=3).requires_grad_()
    g = T.func.grad(lambda x: (x * w).sum())(x)                   # closes over w
    assert g.requires_grad
    with T.no_grad():
        g = T.func.grad(lambda x: x.sin().sum())(xr)
    assert not g.requires_grad
    out, fn = T.func.vjp(lambda x: x.sin(), x)
    assert not out.requires_grad and not fn(T.ones(3))[0].requires_grad


def test_grad_of_constant_output_is_zero(T):
    x = randn(T, 3)
    close(T.func.grad(lambda x: T.tensor(3.0))(x), np.zeros(3))
    close(T.func.grad(lambda x, y: (x * y).sum(), argnums=1)(x, x), npy(x))


def test_pytree_inputs(T):
    x = randn(T, 3)
    g = T.func.grad(lambda d: d["a"].sum() + (d["b"][1] ** 2).sum())({"a": x, "b": [x, x]})
    assert set(g) == {"a", "b"} and isinstance(g["b"], list)
    close(g["a"], np.ones(3))
    close(g["b"][0], np.zeros(3))
    close(g["b"][1], 2 * npy(x))


def test_kwargs_are_passed_not_differentiated(T):
    x = randn(T, 3)
    close(T.func.grad(lambda x, *, s: (s * x).sum())(x, s=2.0), 2 * np.ones(3))


# ------------------------------------------------------------------ errors, as PyTorch words them
def _raises(fn, exc, msg):
    with pytest.raises(exc, match=exact(msg)):
        fn()


def test_argnums_errors(T):
    x = randn(T, 3)
    f = lambda x, y=None: x.sum()           # noqa: E731
    G = T.func.grad
    _raises(lambda: G(f, argnums=3)(x), RuntimeError, "Got argnum=3, but only 1 positional inputs")
    _raises(lambda: G(f, argnums=-2)(x), RuntimeError, "Got argnum=-2, but only 1 positional inputs")
    _raises(lambda: G(f, argnums=[0])(x), RuntimeError,
            "argnums must be int or Tuple[int, ...], got: <class 'list'>")
    _raises(lambda: G(f, argnums=())(x, x), RuntimeError, "argnums must be non-empty")
    _raises(lambda: G(f, argnums=(0, -2))(x, x), RuntimeError,
            "argnums elements must be unique, got (0, 0)")
    _raises(lambda: G(f, argnums=(0, 1.0))(x, x), RuntimeError,
            "argnum must be int, got: <class 'float'>")
    close(G(lambda x, y: (x * y).sum(), argnums=-1)(x, 2 * x), npy(x))


def test_output_errors(T):
    x = randn(T, 3)
    G = T.func.grad
    pre = "grad_and_value(f)(*args): "
    _raises(lambda: G(lambda x: x)(x), RuntimeError,
            pre + "Expected f(*args) to return a scalar Tensor, got tensor with 1 dims. Maybe you "
            "wanted to use the vjp or jacrev APIs instead?")
    _raises(lambda: G(lambda x: x.sum().reshape(1))(x), RuntimeError,
            pre + "Expected f(*args) to return a scalar Tensor, got tensor with 1 dims. Maybe you "
            "wanted to use the vjp or jacrev APIs instead?")
    _raises(lambda: G(lambda x: (x.sum(), 1))(x), RuntimeError,
            pre + "Expected f(*args) to return a Tensor, got <class 'tuple'>")
    _raises(lambda: G(lambda x: 3.0)(x), RuntimeError,
            pre + "Expected f(*args) to return a Tensor, got <class 'float'>")
    _raises(lambda: G(lambda x: x.sum(), has_aux=True)(x), RuntimeError,
            pre + "output of function f should be a tuple: (output, aux) if has_aux is True")
    _raises(lambda: G(lambda x: (x.sum(), 1), has_aux=True)(x), RuntimeError,
            "Expected tensors, got unsupported type <class 'int'>")
    _raises(lambda: G(lambda x: x.sum())(3.0), ValueError,
            "Thing passed to transform API must be Tensor, got <class 'float'>")
    _raises(lambda: G(lambda x: x.sum())(T.tensor(1)), RuntimeError,
            "only Tensors of floating point dtype can require gradients")
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for real scalar "
                                           "outputs but got"):
        G(lambda x: (x * 1j).sum())(x)


def test_vjp_errors(T):
    x = randn(T, 3)
    out, fn = T.func.vjp(lambda x: x.sin(), x)
    _raises(lambda: fn((T.ones(3),)), RuntimeError,
            "Expected pytree structure of cotangents to be the same as pytree structure of outputs "
            "to the function. cotangents: (*,), primal output: *")
    with pytest.raises(RuntimeError, match=re.escape("Mismatch in shape: grad_output[0] has a shape of")):
        fn(T.ones(2))
    _raises(lambda: T.func.vjp(lambda x: x.long(), x), RuntimeError,
            f"vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor "
            f"with dtype {T.int64}")
    _raises(lambda: T.func.vjp(lambda x: 1, x), RuntimeError,
            "vjp(f, *primals): expected f(*primals) to return only tensors, got unsupported type "
            "<class 'int'>")
    _raises(lambda: T.func.vjp(lambda x: x, x, has_aux=True), RuntimeError,
            "vjp(f, *primals): output of function f should be a tuple: (output, aux) if has_aux "
            "is True")


def test_jvp_errors(T):
    x = randn(T, 3)
    J = T.func.jvp
    pre = "jvp(f, primals, tangents): "
    _raises(lambda: J(T.sin, x, x), RuntimeError,
            pre + "Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    with pytest.raises(RuntimeError, match=re.escape(pre + "Expected primals and tangents to have "
                                                     "the same python structure.")):
        J(T.sin, (x,), (x, x))
    with pytest.raises(RuntimeError, match=re.escape(pre + "Expected primals and tangents")):
        J(T.sin, (x,), [x])
    _raises(lambda: J(lambda: x, (), ()), RuntimeError,
            pre + "Expected primals to contain at least one Tensor.")
    _raises(lambda: J(T.sin, (x,), (T.ones(2),)), RuntimeError,
            "Trying to set a forward gradient that has a different size than that of the original "
            "Tensor, this is not supported. Tensor is of size [3] while the given forward gradient "
            "is of size [2].")
    _raises(lambda: J(lambda x: 1, (x,), (x,)), RuntimeError,
            pre + "expected f(*primals) to return only tensors, got unsupported type <class 'int'>")
    _raises(lambda: J(lambda x: T.ones(2), (x,), (x,), strict=True), RuntimeError,
            "jvp(f, primals, tangents, strict=True): The output of f is independent of the inputs. "
            "This is not allowed with strict=True.")
    _raises(lambda: J(lambda x: x, (x,), (x,), has_aux=True), RuntimeError,
            pre + "output of function f should be a tuple: (output, aux) if has_aux is True")


def test_jac_errors(T):
    x = randn(T, 3)
    _raises(lambda: T.func.jacrev(T.sin, chunk_size=0), ValueError,
            "jacrev: `chunk_size` should be greater than 0.")
    _raises(lambda: T.func.jacrev(T.sin)(x * 1j), RuntimeError,
            "jacrev: Expected all inputs to be real but received complex tensor at flattened input "
            "idx: 0")
    _raises(lambda: T.func.jacrev(lambda x: x * 1j)(x), RuntimeError,
            "jacrev: Expected all outputs to be real but received complex tensor at flattened "
            "input idx: 0")
    _raises(lambda: T.func.jacfwd(lambda x: x * 1j)(x), RuntimeError,
            "jacfwd: Expected all outputs to be real but received complex tensor at flattened "
            "input idx: 0")


def test_linearize_errors(T):
    x = randn(T, 3)
    _, jvp_fn = T.func.linearize(T.sin, x)
    with pytest.raises(RuntimeError, match=re.escape("tangent:0 with shape ")):
        jvp_fn(T.ones(2, dtype=x.dtype))
    with pytest.raises(RuntimeError, match=re.escape("tangent:0 with dtype ")):
        jvp_fn(T.ones(3, dtype=T.float32))
    with pytest.raises(RuntimeError, match="(?s)Expected the tangents .* to have the same argspec"):
        jvp_fn(T.ones(3, dtype=x.dtype), T.ones(3, dtype=x.dtype))


# ------------------------------------------------------------------ jvp, vjp, linearize values
def test_jvp_vjp_values(T):
    x, y = randn(T, 3), randn(T, 3, seed=1)
    v, u = randn(T, 3, seed=2), randn(T, 3, seed=3)
    f = lambda x, y: (x.sin() * y, (x * y).sum())          # noqa: E731
    out, (t1, t2) = T.func.jvp(f, (x, y), (v, u))
    close(out[0], npy(x.sin() * y))
    close(t1, npy(x.cos() * v * y + x.sin() * u))
    close(t2, npy((v * y + x * u).sum()))
    out, fn = T.func.vjp(f, x, y)
    gx, gy = fn((v, T.tensor(2.0, dtype=x.dtype)))
    close(gx, npy(x.cos() * y * v + 2 * y))
    close(gy, npy(x.sin() * v + 2 * x))
    out, t, aux = T.func.jvp(lambda x: (x.exp(), {"a": x}), (x,), (v,), has_aux=True)
    close(t, npy(x.exp() * v))
    close(aux["a"], x)
    o, t = T.func.jvp(lambda x: T.ones(2), (x,), (v,))
    close(t, np.zeros(2))


def test_vjp_fn_reusable_and_has_aux(T):
    x = randn(T, 3)
    out, fn, aux = T.func.vjp(lambda x: (x ** 2, x.sum()), x, has_aux=True)
    close(fn(T.ones(3, dtype=x.dtype))[0], 2 * npy(x))
    close(fn(2 * T.ones(3, dtype=x.dtype))[0], 4 * npy(x))
    close(aux, npy(x).sum())


def test_linearize_values(T):
    x = randn(T, 3)
    out, jvp_fn = T.func.linearize(lambda x: x.sin() * x, x)
    close(out, npy(x.sin() * x))
    v = randn(T, 3, seed=5)
    close(jvp_fn(v), npy((x.cos() * x + x.sin()) * v))


# ------------------------------------------------------------------ levels: perturbation confusion
def test_perturbation_confusion_reverse(T):
    # d/dx [x * d/dy (x + y)]_{y=x} = d/dx [x * 1] = 1 (2 if the inner grad took x as its variable)
    G = T.func.grad
    x = T.tensor(1.5, dtype=T.float64)
    close(G(lambda x: x * G(lambda y: x + y)(x))(x), 1.0)
    # the closed-over x is a constant for the inner level, a variable for the outer:
    # d/dx [d/dy (x y^2)]_{y=x} = d/dx 2x^2 = 4x
    close(G(lambda x: G(lambda y: x * y ** 2)(x))(x), 4 * 1.5)
    close(G(lambda x: G(lambda y: (x * y).sin())(x))(x),
          np.cos(1.5 ** 2) - 1.5 ** 2 * 2 * np.sin(1.5 ** 2))


def test_inner_level_leaves_do_not_keep_outer_results_alive():
    """An inner grad over an input the outer grad does not differentiate makes a
    fresh leaf of its own; once that level has closed nothing can differentiate
    with respect to it, so the outer result must come back without history."""
    def inner(a, b):
        return (a * b).pow(2).sum()
    x, w = tp.tensor([0.5, -1.0, 2.0], dtype=tp.float64), tp.tensor([1.5, 0.25, -0.5], dtype=tp.float64)

    def outer(x, w):
        return grad(inner, argnums=(0, 1))(x, w)[1].sum()
    g = grad(outer)(x, w)
    assert not g.requires_grad and g.grad_fn is None
    # d/dx sum(2 (x w) x) = 4 x w
    np.testing.assert_allclose(g.numpy(), 4 * x.numpy() * w.numpy(), rtol=1e-12)
    # asked for by an outer tensor that requires grad, the history stays
    xr = x.clone().requires_grad_()
    assert grad(outer)(xr, w).requires_grad


def test_perturbation_confusion_forward_and_mixed(T):
    x = T.tensor(1.5, dtype=T.float64)
    one = T.tensor(1.0, dtype=T.float64)
    J = lambda f, x: T.func.jvp(f, (x,), (one,))[1]         # noqa: E731
    G = T.func.grad
    close(J(lambda x: x * J(lambda y: x + y, x), x), 1.0)
    close(G(lambda x: x * J(lambda y: x + y, x))(x), 1.0)
    close(J(lambda x: x * G(lambda y: x + y)(x), x), 1.0)
    close(J(lambda x: J(lambda y: x * y ** 2, x), x), 4 * 1.5)
    close(G(lambda x: J(lambda y: x * y ** 2, x))(x), 4 * 1.5)
    close(J(lambda x: G(lambda y: x * y ** 2)(x), x), 4 * 1.5)


def test_deep_nesting(T):
    x = randn(T)
    f = T.sin
    for k in range(1, 5):
        f = T.func.grad(f)
        close(f(x), [np.cos, lambda a: -np.sin(a), lambda a: -np.cos(a), np.sin][k - 1](npy(x)))


# ------------------------------------------------------------------ compositions
def _scalar_fn(T):
    A = randn(T, 3, 3, seed=7)
    return lambda x: ((A @ x).tanh() * x.exp()).sum() + (x ** 3).prod()


def _fd_jacobian(f, x, eps=1e-6):
    """Central differences of ``f`` (numpy in, numpy out) at ``x``."""
    x = np.asarray(x, np.float64)
    cols = []
    for i in range(x.size):
        d = np.zeros(x.size)
        d[i] = eps
        cols.append((f(x + d.reshape(x.shape)) - f(x - d.reshape(x.shape))) / (2 * eps))
    return np.stack(cols, -1).reshape(np.shape(f(x)) + x.shape)


def test_hessian_compositions_agree_with_finite_differences():
    f = _scalar_fn(tp)
    x = randn(tp, 3, seed=8)
    g = lambda a: grad(f)(tp.tensor(a)).numpy()            # noqa: E731
    expected = _fd_jacobian(g, x.numpy())
    for name, h in [("hessian", hessian(f)), ("jacfwd(jacrev)", jacfwd(jacrev(f))),
                    ("jacrev(jacfwd)", jacrev(jacfwd(f))), ("jacrev(jacrev)", jacrev(jacrev(f))),
                    ("jacfwd(jacfwd)", jacfwd(jacfwd(f))), ("jacrev(grad)", jacrev(grad(f)))]:
        np.testing.assert_allclose(h(x).numpy(), expected, rtol=1e-6, atol=1e-6, err_msg=name)


def test_jacobians_agree_with_finite_differences():
    A = randn(tp, 4, 3, seed=9)
    f = lambda x: (A @ x).sin() * x.sum()                  # noqa: E731
    x = randn(tp, 3, seed=10)
    expected = _fd_jacobian(lambda a: f(tp.tensor(a)).numpy(), x.numpy())
    np.testing.assert_allclose(jacrev(f)(x).numpy(), expected, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(jacfwd(f)(x).numpy(), expected, rtol=1e-7, atol=1e-8)


def test_grad_of_jvp_and_jvp_of_grad():
    f = _scalar_fn(tp)
    x, v = randn(tp, 3, seed=11), randn(tp, 3, seed=12)
    H = hessian(f)(x).numpy()
    close(jvp(grad(f), (x,), (v,))[1], H @ v.numpy())                       # forward over reverse
    close(grad(lambda x: jvp(f, (x,), (v,))[1])(x), H @ v.numpy())          # reverse over forward
    _, fn = vjp(grad(f), x)
    close(fn(v)[0], H.T @ v.numpy())                                        # reverse over reverse


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "sqrt", "rsqrt", "reciprocal",
                                  "expm1", "softmax", "log_softmax"])
def test_forward_over_reverse_through_ops_reading_their_result(name):
    # these derivatives read the op's output, which the backward rebuilds from
    # its saved data: the rebuilt output must carry its tangent (a term was
    # silently dropped before)
    op = (lambda x: getattr(x, name)(0)) if "softmax" in name else (lambda x: getattr(x, name)())
    f = lambda x: (op(x) * x).sum()                        # noqa: E731
    x, v = tp.tensor([0.3, 0.8, 1.7]), tp.tensor([1.0, -2.0, 0.5])
    H = _fd_jacobian(lambda a: grad(f)(tp.tensor(a)).numpy(), x.numpy())
    close(jvp(grad(f), (x,), (v,))[1], H @ v.numpy(), tol=1e-6)
    close(hessian(f)(x), H, tol=1e-6)


def test_third_order_mixed():
    f = lambda x: (x ** 4).sum()                           # noqa: E731
    x = randn(tp, 2, seed=13)
    third = jacfwd(jacrev(jacrev(f)))(x).numpy()
    expected = np.zeros((2, 2, 2))
    for i in range(2):
        expected[i, i, i] = 24 * x.numpy()[i]
    close(third, expected)


def test_jacobian_structures(T):
    x, y = randn(T, 3), randn(T, 2, seed=1)
    f = lambda x, y: {"a": (x * y.sum()).sum(), "b": (x[:2] * y,)}     # noqa: E731
    for jac in (T.func.jacrev, T.func.jacfwd):
        J = jac(f, argnums=(0, 1))(x, y)
        assert set(J) == {"a", "b"} and isinstance(J["b"], tuple)
        assert tuple(J["a"][0].shape) == (3,) and tuple(J["a"][1].shape) == (2,)
        assert tuple(J["b"][0][0].shape) == (2, 3) and tuple(J["b"][0][1].shape) == (2, 2)
        close(J["a"][1], np.full(2, npy(x).sum()))
        close(J["b"][0][1], np.diag(npy(x)[:2]))
        J = jac(lambda x: x.sum())(T.tensor(2.0, dtype=T.float64))
        assert tuple(J.shape) == ()
        J, aux = jac(lambda x: (x ** 2, x.sum()), has_aux=True)(x)
        close(J, np.diag(2 * npy(x)))
        close(aux, npy(x).sum())


def test_jacfwd_randomness():
    x = randn(tp, 3)
    f = lambda x: x * tp.rand(3, dtype=x.dtype)           # noqa: E731
    with pytest.raises(RuntimeError, match="called random operation while in randomness error"):
        jacfwd(f)(x)
    tp.manual_seed(0)
    J = jacfwd(f, randomness="same")(x).numpy()
    tp.manual_seed(0)
    close(J, np.diag(tp.rand(3, dtype=x.dtype).numpy()))
    J = jacfwd(f, randomness="different")(x).numpy()
    assert np.count_nonzero(J - np.diag(np.diag(J))) == 0
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        jacfwd(f, randomness="bad")


# ------------------------------------------------------------------ against torch.func
@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_values_match_torch_func():
    rng = np.random.default_rng(42)
    a, b, M = rng.standard_normal(4), rng.standard_normal(4), rng.standard_normal((4, 4))

    def f(L, x, y):
        return ((L.tensor(M) @ x).sigmoid() * y.cos() + x * y.exp()).log1p().sum() / (1 + y @ y)

    def vec(L, x, y):
        return (L.tensor(M) @ x).tanh() * y

    for L in (tp, torch):
        L.res = []
    for L in (tp, torch):
        x, y = L.tensor(a), L.tensor(b)
        F = lambda x, y: f(L, x, y)                        # noqa: E731
        V = lambda x, y: vec(L, x, y)                      # noqa: E731
        L.res += list(L.func.grad(F, argnums=(0, 1))(x, y))
        L.res += list(L.func.jacrev(V, argnums=(0, 1))(x, y))
        L.res += list(L.func.jacfwd(V, argnums=(0, 1))(x, y))
        L.res.append(L.func.hessian(F)(x, y))
        L.res += list(L.func.hessian(F, argnums=(0, 1))(x, y)[1])
        L.res += list(L.func.jvp(V, (x, y), (y, x))[1:])
        L.res += list(L.func.vjp(V, x, y)[1](x))
        L.res.append(L.func.grad(lambda x: L.func.grad(F, argnums=1)(x, x).sum())(y))
    assert len(tp.res) == len(torch.res)
    for k, (r, t) in enumerate(zip(tp.res, torch.res)):
        np.testing.assert_allclose(r.numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=str(k))
    del tp.res, torch.res


# ------------------------------------------------------------------ pytree utility
def test_pytree_round_trip():
    from collections import namedtuple
    P = namedtuple("P", "a b")
    tree = (1, [2, {"z": 3, "a": None}], P(4, (5,)))
    leaves, spec = tree_flatten(tree)
    assert leaves == [1, 2, 3, None, 4, 5]
    assert tree_unflatten(leaves, spec) == tree
    assert tree_map(lambda v: v, tree) == tree
    assert tree_flatten((1, (2,)))[1].pprint() == "(*, (*,))"
    assert repr(tree_flatten((1,))[1]) == "TreeSpec(tuple, None, [*])"
    assert tree_flatten([1, 2])[1] != tree_flatten((1, 2))[1]
    assert tree_flatten({"a": 1, "b": 2})[1] != tree_flatten({"b": 1, "a": 2})[1]


def test_forward_over_reverse_through_a_function_saving_its_output():
    class Exp(tp.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            ctx.save_for_forward(y)         # (jvp sees only these, as in PyTorch)
            return y

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y

        @staticmethod
        def jvp(ctx, t):
            y, = ctx.saved_tensors
            return t * y

    x = tp.tensor([0.3, -0.5, 0.9], dtype=tp.float64)
    want = np.diag(np.exp(x.numpy()) * (x.numpy() + 2))
    # forward over reverse one direction at a time (no vmap: this Function has no vmap rule)
    f = lambda x: (Exp.apply(x) * x).sum()                  # noqa: E731
    rows = [jvp(grad(f), (x,), (e,))[1] for e in tp.eye(3, dtype=tp.float64)]
    close(tp.stack(rows), want)

    class ExpVmap(tp.autograd.Function):                    # the same, usable under vmap
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)
            ctx.save_for_forward(output)

        backward, jvp = Exp.backward, Exp.jvp
    close(hessian(lambda x: (ExpVmap.apply(x) * x).sum())(x), want)
    with pytest.raises(RuntimeError, match="You tried to vmap over Exp, but it does not have vmap"):
        hessian(f)(x)


def test_forward_over_reverse_through_multi_output_ops():
    x = tp.tensor([0.3, -0.5, 0.9], dtype=tp.float64)
    f = lambda x: x.sort().values.pow(3).sum() * x.sum() + x.reshape(3, 1).max(1).values.sum()  # noqa
    H = _fd_jacobian(lambda a: grad(f)(tp.tensor(a)).numpy(), x.numpy())
    close(hessian(f)(x), H, tol=1e-6)
