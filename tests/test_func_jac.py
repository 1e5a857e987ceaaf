"""Jacobians through vmap (jacrev = vmap of the vjp over the identity's rows,
jacfwd = vmap of the jvp over the inputs' basis), and the compositions that
puts in play: forward mode inside vmap with reverse mode inside that
(``vmap(jvp(grad(f)))``, ``vmap(hessian(f))``, ``jacfwd(jacrev(f))``), and
custom Functions under these.  Values are checked against per-sample loops,
central finite differences in float64, and torch.func when installed."""

import numpy as np
import pytest

import tensorplay as tp
from tensorplay.autograd import _backward
from tensorplay.func import _vmap, grad, hessian, jacfwd, jacrev, jvp, vmap

from conftest import torch


def npy(t):
    return t.detach().numpy()


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(npy(a) if hasattr(a, "detach") else a,
                               npy(b) if hasattr(b, "detach") else b, rtol=tol, atol=tol)


def randn(*shape, seed=0):
    return tp.tensor(np.random.default_rng(seed).standard_normal(shape))


def fd_jacobian(f, x, eps=1e-6):
    """Central differences of ``f`` (numpy in, numpy out) at ``x``."""
    x = np.asarray(x, np.float64)
    cols = []
    for i in range(x.size):
        d = np.zeros(x.size)
        d[i] = eps
        d = d.reshape(x.shape)
        cols.append((f(x + d) - f(x - d)) / (2 * eps))
    return np.stack(cols, -1).reshape(np.shape(f(x)) + x.shape)


def two_outputs(x, y):
    """Outputs of 2 and 3 elements from inputs of 3 and (2, 2): chunks of the
    identity that straddle the outputs' boundary."""
    return (x[:2] * y.sum(), {"b": (x.sin() * y[0].prod()).reshape(3, 1)})


# ------------------------------------------------------------------ jacrev through vmap
@pytest.mark.parametrize("chunk_size", [None, 1, 2, 3, 4, 5, 100])
def test_jacrev_chunks_agree_with_finite_differences(chunk_size):
    x, y = randn(3, seed=1), randn(2, 2, seed=2)
    J = jacrev(two_outputs, argnums=(0, 1), chunk_size=chunk_size)(x, y)
    for k, pick in enumerate((lambda o: o[0], lambda o: o[1]["b"])):
        for m, arg in enumerate((x, y)):
            def f(a):
                args = [x, y]
                args[m] = tp.tensor(a)
                return npy(pick(two_outputs(*args)))
            got = pick(J)[m]
            assert tuple(got.shape) == tuple(pick(two_outputs(x, y)).shape) + tuple(arg.shape)
            close(got, fd_jacobian(f, npy(arg)), tol=1e-7)


@pytest.mark.parametrize("chunk_size,passes", [(None, 1), (100, 1), (2, 3), (1, 5)])
def test_jacrev_runs_one_backward_pass_per_chunk(monkeypatch, chunk_size, passes):
    calls = []
    real = _backward.grad

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)
    monkeypatch.setattr(_backward, "grad", counting)
    x, y = randn(3, seed=1), randn(2, 2, seed=2)
    jacrev(two_outputs, argnums=(0, 1), chunk_size=chunk_size)(x, y)
    assert len(calls) == passes


def test_jacobians_of_an_mlp_use_batching_rules_only():
    """No op falls back to a per-sample loop in the benchmark's workload."""
    W1, W2, b1, b2 = randn(8, 8, seed=3), randn(8, 8, seed=4), randn(8, seed=5), randn(8, seed=6)
    f = lambda x: (W2 @ (W1 @ x + b1).tanh() + b2).tanh()      # noqa: E731
    x = randn(8, seed=7)
    before = len(_vmap.FELL_BACK)
    Jr, Jf = jacrev(f)(x), jacfwd(f)(x)
    assert len(_vmap.FELL_BACK) == before
    want = fd_jacobian(lambda a: npy(f(tp.tensor(a))), npy(x))
    close(Jr, want, tol=1e-7)
    close(Jf, want, tol=1e-7)


def test_empty_outputs_and_inputs():
    x = randn(3)
    J = jacrev(lambda x: x[:0])(x)
    assert tuple(J.shape) == (0, 3)
    J = jacfwd(lambda x: x.sum() * 2)(x[:0])
    assert tuple(J.shape) == (0,)
    J = jacrev(lambda x: x.sum() * 2)(x[:0])
    assert tuple(J.shape) == (0,)


@pytest.mark.skipif(torch is None, reason="torch not installed")
@pytest.mark.parametrize("chunk_size", [None, 1, 2])
def test_values_and_aux_match_torch_func(chunk_size):
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(3), rng.standard_normal((2, 2))
    res = {}
    for L in (tp, torch):
        x, y = L.tensor(a), L.tensor(b)

        def f(x, y):
            out = two_outputs(x, y)
            return out, {"aux": x.sum() * y}
        Jr, auxr = L.func.jacrev(f, argnums=(0, 1), has_aux=True, chunk_size=chunk_size)(x, y)
        Jf, auxf = L.func.jacfwd(f, argnums=(0, 1), has_aux=True)(x, y)
        H = L.func.hessian(lambda x, y: (two_outputs(x, y)[1]["b"] ** 2).sum(),
                           argnums=(0, 1))(x, y)
        leaves = []
        for tree in (Jr, auxr, Jf, auxf, H):
            stack = [tree]
            while stack:
                t = stack.pop()
                if isinstance(t, dict):
                    stack.extend(t[k] for k in sorted(t))
                elif isinstance(t, (tuple, list)):
                    stack.extend(t)
                else:
                    leaves.append(t.detach().numpy())
        res[L.__name__] = leaves
    assert len(res["tensorplay"]) == len(res["torch"])
    for k, (r, t) in enumerate(zip(res["tensorplay"], res["torch"])):
        np.testing.assert_allclose(r, t, rtol=1e-10, atol=1e-12, err_msg=str(k))


# ------------------------------------------------------------------ forward over reverse, through vmap
def scalar_fn():
    A = randn(3, 3, seed=7)
    return lambda x: ((A @ x).tanh() * x.exp()).sum() + (x ** 3).prod()


def test_vmap_of_jvp_of_grad_is_per_sample_hvp():
    # before forward levels were kept below vmap levels, the tangents sat on the
    # batched wrappers, out of the physical backward's sight: silently zero
    f = scalar_fn()
    X, V = randn(4, 3, seed=1), randn(4, 3, seed=2)
    got = vmap(lambda x, v: jvp(grad(f), (x,), (v,))[1])(X, V)
    for i in range(4):
        H = fd_jacobian(lambda a: npy(grad(f)(tp.tensor(a))), npy(X[i]))
        close(got[i], H @ npy(V[i]), tol=1e-6)
    # an unbatched primal with batched tangents: the rows of the Hessian
    x = X[0]
    got = vmap(lambda v: jvp(grad(f), (x,), (v,))[1])(tp.eye(3, dtype=x.dtype))
    close(got, fd_jacobian(lambda a: npy(grad(f)(tp.tensor(a))), npy(x)).T, tol=1e-6)


@pytest.mark.parametrize("name", ["hessian", "jacfwd(jacrev)", "jacrev(jacfwd)", "jacfwd(jacfwd)",
                                  "jacrev(jacrev)", "jacfwd(grad)"])
def test_second_derivatives_under_vmap(name):
    f = scalar_fn()
    make = {"hessian": hessian, "jacfwd(jacrev)": lambda f: jacfwd(jacrev(f)),
            "jacrev(jacfwd)": lambda f: jacrev(jacfwd(f)),
            "jacfwd(jacfwd)": lambda f: jacfwd(jacfwd(f)),
            "jacrev(jacrev)": lambda f: jacrev(jacrev(f)),
            "jacfwd(grad)": lambda f: jacfwd(grad(f))}[name]
    X = randn(3, 3, seed=4)
    got = vmap(make(f))(X)
    for i in range(3):
        want = fd_jacobian(lambda a: npy(grad(f)(tp.tensor(a))), npy(X[i]))
        close(got[i], want, tol=1e-6)


# ops with several outputs whose derivatives read those outputs (the norms' statistics op reads
# its normalised output, mean and variance; attention its probabilities): the backward rebuilds
# them from saved data, and forward-over-reverse lost their tangents, silently (wrong Hessians)
_F = tp.nn.functional
MULTI_OUTPUT_READERS = {
    "layer_norm": lambda F, x: F.layer_norm(x, (3,)),
    "layer_norm_inplace": lambda F, x: F.layer_norm(x, (3,)).mul_(2),
    "group_norm": lambda F, x: F.group_norm(x.reshape(1, 4, 3), 2),
    "instance_norm": lambda F, x: F.instance_norm(x.reshape(1, 4, 3)),
    "batch_norm": lambda F, x: F.batch_norm(x, None, None, training=True),
    "attention": lambda F, x: F.scaled_dot_product_attention(x, x.flip(0) * 0.5, x.cos()),
}


@pytest.mark.filterwarnings("ignore::DeprecationWarning:torch")     # (torch.func's own)
@pytest.mark.parametrize("name", list(MULTI_OUTPUT_READERS))
def test_forward_over_reverse_through_ops_reading_several_outputs(name):
    op = MULTI_OUTPUT_READERS[name]
    w = randn(4, 3, seed=8)

    def f(x, F=_F, w=w):
        return (op(F, x) ** 3 * w).sum()
    x = randn(4, 3, seed=7)
    want = tp.autograd.functional.hessian(f, x)             # reverse over reverse
    close(want.reshape(12, 12), fd_jacobian(lambda a: npy(grad(f)(tp.tensor(a.reshape(4, 3)))).ravel(),
                                            npy(x).ravel()), tol=1e-6)
    close(hessian(f)(x), want)                               # jacfwd(jacrev(f))
    v = randn(4, 3, seed=9)
    close(jvp(grad(f), (x,), (v,))[1], (want.reshape(12, 12) @ v.reshape(12)).reshape(4, 3))
    if torch is not None:
        tx, tw = torch.tensor(npy(x)), torch.tensor(npy(w))
        close(torch.func.hessian(lambda x: f(x, torch.nn.functional, tw))(tx).numpy(), want)


def test_forward_over_reverse_with_a_closed_over_tangent_carrier():
    """``s`` has a primal shared by the samples and a tangent per sample; the
    backward inside reads it."""
    def h(x):
        s = x.sin()
        return grad(lambda y: (y * s * y).sum())(x)
    x, V = randn(3, seed=5), randn(4, 3, seed=6)
    got = vmap(lambda v: jvp(h, (x,), (v,))[1])(V)
    J = fd_jacobian(lambda a: npy(h(tp.tensor(a))), npy(x))
    close(got, npy(V) @ J.T, tol=1e-6)


def test_third_order_through_vmap():
    f = lambda x: (x ** 4).sum()                          # noqa: E731
    x = randn(2, seed=13)
    third = jacfwd(jacfwd(jacrev(f)))(x)
    want = np.zeros((2, 2, 2))
    for i in range(2):
        want[i, i, i] = 24 * npy(x)[i]
    close(third, want)


def test_nested_jvp_through_a_view():
    # two forward levels saw the same view op and tracked the view twice (a
    # crash in forward_ad's view bookkeeping)
    x, v = tp.tensor([0.3, 0.8], dtype=tp.float64), tp.tensor([1.0, -2.0], dtype=tp.float64)
    inner = lambda x: jvp(lambda y: (y.view(2) * y).sum(), (x,), (v,))[1]    # noqa: E731
    close(jvp(inner, (x,), (v,))[1], 2 * (npy(v) @ npy(v)))


# ------------------------------------------------------------------ custom Functions
class Cube(tp.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.save_for_forward(inputs[0])     # (jvp sees only these, as in PyTorch)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 3 * x ** 2 * g

    @staticmethod
    def jvp(ctx, t):
        x, = ctx.saved_tensors
        return 3 * x ** 2 * t


class Square(tp.autograd.Function):
    calls = 0

    @staticmethod
    def forward(x):
        return x ** 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g

    @staticmethod
    def vmap(info, in_dims, x):
        Square.calls += 1
        assert info.batch_size == 4
        return Square.apply(x), in_dims[0]


class OldStyle(tp.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g * y


def test_functions_under_vmap_and_jacobians():
    X = randn(4, 3, seed=8)
    close(vmap(Cube.apply)(X), X ** 3)
    close(vmap(grad(lambda x: Cube.apply(x).sum()))(X), 3 * X ** 2)
    for jac in (jacrev, jacfwd):
        close(jac(Cube.apply)(X[0]), tp.diag(3 * X[0] ** 2))
    Square.calls = 0
    close(vmap(Square.apply)(X), X ** 2)
    close(vmap(grad(lambda x: Square.apply(x).sum()))(X), 2 * X)
    assert Square.calls == 2
    # neither a vmap staticmethod nor generate_vmap_rule: refused, as PyTorch does
    msg = "You tried to vmap over OldStyle, but it does not have vmap support"
    with pytest.raises(RuntimeError, match=msg):
        vmap(OldStyle.apply)(X)
    # jacrev batches only the backward (g * y), which needs no rule
    close(jacrev(OldStyle.apply)(X[0]), tp.diag(X[0].exp()))


# ---------------------------------------------------------------- code that reads the primal
# jacfwd/hessian map the forward pass over the tangents only: the primal is one
# value, so code may branch on it, read it as a number and take shapes from it,
# as under torch.func (each case's Jacobian is checked against jacrev's, which
# runs the function on the plain primal, and against torch.func when installed)
def _branch(T):
    def f(x):
        return x.sin() if x.sum() > 0 else x.cos()
    return f


def _cases(T):
    return {
        "branch": _branch(T),
        "mask_index": lambda x: x[x > 0].sum() * x,
        "item": lambda x: x * x.sum().item(),
        "float": lambda x: x * float(x.max()),
        "int_index": lambda x: x[int(x.argmax())] * x,
        "tensor_index": lambda x: x[x.argmax()] * x,
        "nonzero": lambda x: x[(x > 0).nonzero().squeeze(1)] * 2,
        "masked_select": lambda x: x.masked_select(x > 0) ** 2,
        "any": lambda x: (x * 3 if (x > 2).any() else x).exp(),
        "masked_write": lambda x: T.zeros_like(x).index_put((x > 0,), x[x > 0] ** 2),
        "unique": lambda x: T.unique(x.detach().round()).sum() * x,
        "tolist": lambda x: x * x.tolist()[0],
    }


_X = [1.5, -2., 3., 0.5]


@pytest.mark.parametrize("name", sorted(_cases(tp)))
def test_jacfwd_reads_the_primal(name):
    f = _cases(tp)[name]
    x = tp.tensor(_X, dtype=tp.float64)
    close(jacfwd(f)(x), jacrev(f)(x))
    close(hessian(lambda x: f(x).sum())(x), jacrev(jacrev(lambda x: f(x).sum()))(x))
    if torch is not None:
        g = _cases(torch)[name]
        xt = torch.tensor(_X, dtype=torch.float64)
        close(jacfwd(f)(x), torch.func.jacfwd(g)(xt).numpy())
        close(hessian(lambda x: f(x).sum())(x),
              torch.func.hessian(lambda x: g(x).sum())(xt).numpy())


def test_vmap_still_refuses_data_dependent_code():
    # a batch of different values: no sample stands for the others
    x = tp.tensor([[1., -2.], [3., 4.]])
    with pytest.raises(RuntimeError, match="data-dependent control flow"):
        vmap(lambda r: r.sin() if r.sum() > 0 else r)(x)
    with pytest.raises(RuntimeError, match="calling .item"):
        vmap(lambda r: r.sum().item())(x)
    with pytest.raises(RuntimeError, match="dynamic shape"):
        vmap(lambda r: r[r > 0])(x)
    with pytest.raises(RuntimeError, match="Attempted to vmap over `mask`"):
        vmap(lambda r: r.masked_select(r > 0))(x)


def test_jacfwd_forgets_one_value_after_a_write_that_differs():
    # random draws of their own per direction written into a copy of the primal
    # (or into a view of it): its samples differ from then on
    def into(view):
        def f(x):
            y = x * 1
            assert bool(y.sum() > 0)            # one value: readable
            target = y[1:] if view else y
            target.add_(tp.rand_like(target))
            with pytest.raises(RuntimeError, match="data-dependent control flow"):
                bool(y.sum() > 0)
            return y
        return f
    tp.manual_seed(0)
    for view in (False, True):
        jacfwd(into(view), randomness="different")(tp.tensor(_X))


def test_masked_select_with_a_shared_mask_under_vmap():
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((3, 2, 4))
    for mask in (xs[0, 0] > 0, (xs[0] > 0), (xs[0, :, :1] > 0)):
        got = vmap(lambda r: r.masked_select(tp.tensor(mask)))(tp.tensor(xs))
        want = np.stack([np.broadcast_to(x, np.broadcast_shapes(x.shape, mask.shape))[
            np.broadcast_to(mask, np.broadcast_shapes(x.shape, mask.shape))] for x in xs])
        close(got, want)


# ---------------------------------------------------------------- shortcuts right to first order only
# prod and cumprod have O(n) derivatives that hold only to first order at zeros;
# forward over reverse differentiates the backward's values although grad mode
# is off there, so the exact forms run (the Hessian used to miss terms, not
# even symmetric: [[0, 1], [0, 0]] for cumprod at [0, 2])
@pytest.mark.parametrize("f,x", [
    (lambda v: v.cumprod(0).sum(), [0.0, 2.0]),
    (lambda v: v.cumprod(1).sum(), [[1.0, 0.0, 2.0, 3.0], [0.0, 4.0, 0.0, 5.0]]),
    (lambda v: v.cumprod(0).sum(), [[1.0, 0.0, 2.0, 3.0], [0.0, 4.0, 0.0, 5.0]]),
    (lambda v: v.prod(), [0.0, 0.0, 5.0]),
    (lambda v: (v.prod() * v).sum(), [0.0, 3.0, 0.0, 2.0]),
])
def test_forward_over_reverse_at_zeros_of_products(f, x):
    x = tp.tensor(x, dtype=tp.float64)
    want = jacrev(jacrev(f))(x)
    close(hessian(f)(x), want)
    v = randn(*x.shape, seed=3)
    close(jvp(grad(f), (x,), (v,))[1], (want.reshape(x.numel(), x.numel()) @ v.reshape(-1)).reshape(x.shape))
