"""vmap itself: in_dims/out_dims, errors in PyTorch's words, randomness,
in-place ops, nesting, chunking, and its composition with grad, jvp and
autograd (per-sample gradients, gradients reaching closed-over tensors)."""
import numpy as np
import pytest

import tensorplay as tp
from tensorplay.func import _vmap as _vmap_mod, grad, jacrev, jvp, vmap

from conftest import assert_close


@pytest.fixture(autouse=True)
def _seed():
    tp.manual_seed(0)


def _loop(f, *xs):
    return tp.stack([f(*[x[i] for x in xs]) for i in range(xs[0].shape[0])])


def test_in_dims_and_out_dims():
    x, y = tp.randn(3, 4), tp.randn(4, 3)
    got = vmap(lambda a, b: a * b, in_dims=(0, 1))(x, y)
    assert_close(got, x * y.t(), atol=1e-12)
    got = vmap(lambda a, b: a * b, in_dims=(0, None))(x, y[:, 0])
    assert_close(got, x * y[:, 0], atol=1e-12)
    got = vmap(tp.sin, out_dims=1)(x)
    assert tuple(got.shape) == (4, 3)
    assert_close(got, x.sin().t(), atol=1e-12)


def test_pytree_inputs_and_outputs():
    d = {"a": tp.randn(3, 2), "b": tp.randn(2)}
    out = vmap(lambda p: {"s": p["a"] + p["b"], "t": (p["a"].sum(), p["b"])},
               in_dims=({"a": 0, "b": None},))(d)
    assert_close(out["s"], d["a"] + d["b"], atol=1e-12)
    assert_close(out["t"][0], d["a"].sum(1), atol=1e-12)
    assert tuple(out["t"][1].shape) == (3, 2)          # unbatched output: expanded


def test_matmul_batched_and_unbatched():
    x, w = tp.randn(5, 3), tp.randn(3, 2)
    assert_close(vmap(lambda a: a @ w)(x), x @ w, atol=1e-12)
    m = tp.randn(5, 2, 3)
    assert_close(vmap(tp.mv)(m, x), _loop(tp.mv, m, x), atol=1e-12)


def test_nested_vmap():
    x = tp.randn(2, 3, 4)
    got = vmap(vmap(lambda a: a.softmax(0)))(x)
    assert_close(got, x.softmax(-1), atol=1e-12)


def test_chunk_size_gives_the_same_result():
    x = tp.randn(7, 3)
    assert_close(vmap(lambda a: a.cumsum(0), chunk_size=3)(x), x.cumsum(1), atol=1e-12)


@pytest.mark.parametrize("call,exc,msg", [
    (lambda x: vmap(tp.sin, in_dims=(0, 0))(x), ValueError, "in_dims is not compatible"),
    (lambda x: vmap(lambda a, b: a, in_dims=(0, 0))(x, 3), ValueError,
     "Got in_dim=0 for an input but the input is of type <class 'int'>"),
    (lambda x: vmap(tp.sin, in_dims=5)(x), ValueError,
     "expected in_dim to satisfy -2 <= in_dim < 2"),
    (lambda x: vmap(tp.add)(x, tp.randn(4)), ValueError,
     "Expected all tensors to have the same size in the mapped dimension, got sizes [3, 4]"),
    (lambda x: vmap(tp.sin, in_dims=None)(x), ValueError, "expected `in_dims` to be int"),
    (lambda x: vmap(tp.sin)(), ValueError, "got no inputs"),
    (lambda x: vmap(tp.add)(x, tp.tensor(1.0)), ValueError,
     "input is a Tensor of dimensionality 0 so expected in_dim to satisfy 0 <= in_dim < 0"),
    (lambda x: vmap(lambda a: a.sum().item())(x), RuntimeError, "calling .item() on a Tensor"),
    (lambda x: vmap(lambda a: bool(a.sum()))(x), RuntimeError, "data-dependent control flow"),
    (lambda x: vmap(lambda a: tp.rand(2))(x), RuntimeError, "randomness error mode"),
    (lambda x: vmap(lambda a: 3)(x), ValueError, "must only return Tensors"),
    (lambda x: vmap(tp.sin, randomness="x")(x), RuntimeError,
     "Only allowed values for randomness are"),
    (lambda x: vmap(tp.sin, chunk_size=0)(x), ValueError, "chunk_size should be None or greater"),
    (lambda x: vmap(lambda a: a.backward())(x), RuntimeError, "backward() called inside"),
    (lambda x: vmap(tp.nonzero)(x), RuntimeError, "dynamic shape"),
    (lambda x: vmap(lambda a: tp.zeros(4).add_(a))(x), RuntimeError,
     "output with shape [4] doesn't match the broadcast shape [3, 4]"),
])
def test_errors_in_pytorch_words(call, exc, msg):
    x = tp.randn(3, 4)
    with pytest.raises(exc) as e:
        call(x)
    assert msg in str(e.value)


def test_randomness_same_draws_once():
    x = tp.zeros(3, 4)
    r = vmap(lambda a: a + tp.rand(4), randomness="same")(x)
    assert_close(r[0], r[1], atol=0)


def test_inplace_on_a_batched_tensor():
    x = tp.randn(3, 4)

    def f(a):
        b = a.clone()
        b.mul_(2)
        b[1:].add_(1)
        return b
    assert_close(vmap(f)(x), _loop(f, x), atol=1e-12)


def test_per_sample_gradients():
    w, xb, yb = tp.randn(3), tp.randn(8, 3), tp.randn(8)

    def loss(w, x, y):
        return ((x * w).sum().tanh() - y) ** 2
    got = vmap(grad(loss), in_dims=(None, 0, 0))(w, xb, yb)
    want = tp.stack([grad(loss)(w, xb[i], yb[i]) for i in range(8)])
    assert_close(got, want, atol=1e-12)


def test_grad_of_vmap_and_closures_reach_leaves():
    w = tp.randn(3, 2, requires_grad=True)
    x = tp.randn(5, 3)
    out = vmap(lambda a: (a @ w).tanh())(x)
    out.sum().backward()
    w2 = w.detach().requires_grad_()
    (x @ w2).tanh().sum().backward()
    assert_close(w.grad, w2.grad, atol=1e-12)
    g = grad(lambda x: vmap(tp.sin)(x).sum())(x)
    assert_close(g, x.cos(), atol=1e-12)


def test_vmap_of_jvp_and_jvp_of_vmap():
    x, v = tp.randn(4, 3), tp.randn(4, 3)
    got = vmap(lambda a, b: jvp(tp.sin, (a,), (b,))[1])(x, v)
    assert_close(got, x.cos() * v, atol=1e-12)
    got = jvp(vmap(tp.sin), (x,), (v,))[1]
    assert_close(got, x.cos() * v, atol=1e-12)


def test_jacobians_under_vmap():
    x = tp.randn(4, 3, dtype=tp.float64)
    f = lambda a: a.sin() * a.sum()                 # noqa: E731
    got = vmap(jacrev(f))(x)
    want = tp.stack([jacrev(f)(x[i]) for i in range(4)])
    assert_close(got, want, atol=1e-12)


def test_seed_003_examples():
    x = tp.randn(3)
    assert_close(vmap(grad(tp.sin))(x), x.cos(), atol=1e-12)
    assert_close(vmap(grad(grad(tp.sin)))(x), -x.sin(), atol=1e-12)
    batch, feat = 4, 3
    weights = tp.randn(feat)
    examples, targets = tp.randn(batch, feat), tp.randn(batch)

    def compute_loss(weights, example, target):
        y = example @ weights
        return ((y - target) ** 2).mean()
    got = vmap(grad(compute_loss), in_dims=(None, 0, 0))(weights, examples, targets)
    want = np.stack([2 * (examples[i] @ weights - targets[i]).item() * examples[i].numpy()
                     for i in range(batch)])
    assert_close(got, tp.tensor(want), atol=1e-6)


@pytest.mark.parametrize("f", [
    lambda a: a.mean(), lambda a: a.sum(), lambda a: a.sum(0), lambda a: a.mean(-1, keepdim=True),
    lambda a: a.max(0)[0], lambda a: a.argmax(), lambda a: a.softmax(0), lambda a: a.cumsum(0),
    lambda a: a.amax(()), lambda a: a.logsumexp(0)])
def test_reductions_of_0d_samples_never_reach_the_batch(f):
    """A 0-d sample reduced over "all" its dimensions: the batch must stay out."""
    x = tp.randn(4)
    assert_close(vmap(f)(x), tp.stack([f(x[i]) for i in range(4)]), atol=1e-12)
    if f(x[0]).is_floating_point():
        assert_close(vmap(grad(f))(x), tp.stack([grad(f)(x[i]) for i in range(4)]), atol=1e-12)


def test_as_strided_under_vmap_views_each_sample_memory():
    """PyTorch's rule: each sample is the same strided view of its own memory (a
    per-sample loop over slices of one storage would read sample 0 every time)."""
    x = tp.arange(12.0, dtype=tp.float64).reshape(3, 4)
    got = vmap(lambda a: a.as_strided((2, 2), (1, 1)))(x)
    want = tp.stack([x[i].clone().as_strided((2, 2), (1, 1)) for i in range(3)])
    assert_close(got, want, atol=0)
    g = vmap(grad(lambda a: a.as_strided((2, 2), (1, 1)).pow(2).sum()))(x)
    assert_close(g, tp.stack([grad(lambda a: a.as_strided((2, 2), (1, 1)).pow(2).sum())(x[i].clone())
                              for i in range(3)]), atol=1e-12)
    with pytest.raises(RuntimeError, match="batch dims being vmapped over are at the front"):
        vmap(lambda a: a.as_strided((2,), (1,)), in_dims=1)(x)
    with pytest.raises(RuntimeError, match="reaches outside the memory of each sample"):
        vmap(lambda a: a.as_strided((2,), (4,)))(x)


# ------------------------------------------------------------------ randomness
F = tp.nn.functional


def _seeded(f):
    tp.manual_seed(7)
    r = f()
    return r, tp.rand(1).item()         # the value, and where the generator stood after it


@pytest.mark.parametrize("name,inside,outside", [
    ("rand", lambda x: tp.rand(4), lambda X: tp.rand(3, 4)),
    ("randn", lambda x: tp.randn(2, 2, dtype=tp.float64), lambda X: tp.randn(3, 2, 2,
                                                                             dtype=tp.float64)),
    ("rand_like", lambda x: tp.rand_like(x), lambda X: tp.rand_like(X)),
    ("randn_like", lambda x: tp.randn_like(x), lambda X: tp.randn_like(X)),
    ("bernoulli", lambda x: tp.bernoulli(x), lambda X: tp.bernoulli(X)),
    ("normal", lambda x: tp.normal(x, 2.0), lambda X: tp.normal(X, 2.0)),
    ("normal_", lambda x: x.clone().normal_(), lambda X: X.clone().normal_()),
    ("uniform_", lambda x: x.clone().uniform_(-1, 1), lambda X: X.clone().uniform_(-1, 1)),
    ("bernoulli_", lambda x: x.clone().bernoulli_(0.3), lambda X: X.clone().bernoulli_(0.3)),
    ("exponential_", lambda x: x.clone().exponential_(), lambda X: X.clone().exponential_()),
    ("dropout", lambda x: F.dropout(x, 0.4), lambda X: F.dropout(X, 0.4)),
    ("alpha_dropout", lambda x: F.alpha_dropout(x, 0.4, True), lambda X: F.alpha_dropout(X, 0.4,
                                                                                        True)),
])
def test_randomness_different_is_one_draw_for_the_batch(name, inside, outside):
    """Each sample its own numbers, of its own shape, and the generator advanced
    once for the batch: exactly the draw of the batched computation."""
    X = tp.rand(3, 4) * 0.8 + 0.1
    got, after = _seeded(lambda: vmap(inside, randomness="different")(X))
    want, want_after = _seeded(lambda: outside(X))
    assert_close(got, want, atol=0)
    assert after == want_after
    assert not tp.equal(got[0], got[1])


@pytest.mark.parametrize("name,f", [
    ("randperm", lambda x: tp.randperm(5)),
    ("randint", lambda x: tp.randint(0, 100, (4,))),
    ("multinomial", lambda x: tp.multinomial(x, 2)),
    ("normal sized", lambda x: tp.normal(0.0, 1.0, (3,))),
    ("dropout2d", lambda x: F.dropout2d(x.reshape(1, 2, 2, 1) + 1)),
    ("gumbel_softmax", lambda x: F.gumbel_softmax(x, tau=0.5)),
])
def test_randomness_different_per_sample(name, f):
    """Ops whose draws do not line up with an element of the output draw once
    per sample, in order: the same as a loop over the samples."""
    X = tp.rand(3, 4) + 0.1
    got, after = _seeded(lambda: vmap(f, randomness="different")(X))
    want, want_after = _seeded(lambda: tp.stack([f(X[i]) for i in range(3)]))
    assert_close(got, want, atol=0)
    assert after == want_after


@pytest.mark.parametrize("f", [
    lambda x: tp.rand(4), lambda x: tp.rand_like(x), lambda x: x.clone().normal_(),
    lambda x: tp.bernoulli(tp.full((4,), 0.5)), lambda x: F.dropout(x + 1, 0.5) == 0,
    lambda x: tp.randperm(4)])
def test_randomness_same_is_one_draw_shared(f):
    X = tp.rand(3, 4)
    got, after = _seeded(lambda: vmap(f, randomness="same")(X))
    one, want_after = _seeded(lambda: f(X[0]))
    for i in range(3):
        assert_close(got[i], one, atol=0)
    assert after == want_after


@pytest.mark.parametrize("f,rnd,msg", [
    (lambda x: tp.bernoulli(x), "same", "same randomness with a batched tensor input"),
    (lambda x: tp.normal(x, 1.0), "same", "same randomness with a batched tensor input"),
    (lambda x: tp.multinomial(x, 1), "same", "same randomness with a batched tensor input"),
    (lambda x: tp.ones(4).bernoulli_(x), "same", "same randomness with a batched tensor input"),
    (lambda x: tp.ones(4).normal_() + x, "different",
     "Cannot ask for different inplace randomness on an unbatched tensor"),
    (lambda x: F.dropout(tp.ones(4), 0.5, inplace=True) + x, "different",
     "Cannot ask for different inplace randomness on an unbatched tensor"),
    (lambda x: tp.rand(4, out=tp.empty(4)), "different", "out variants of random operations"),
    (lambda x: F.dropout(x, 0.5), "error", "randomness error mode"),
    (lambda x: x.clone().uniform_(), "error", "randomness error mode"),
])
def test_randomness_errors(f, rnd, msg):
    with pytest.raises(RuntimeError, match=msg):
        vmap(f, randomness=rnd)(tp.rand(3, 4))


def test_sampling_that_does_not_draw_is_fine_in_error_mode():
    X = tp.rand(3, 4)
    assert_close(vmap(lambda x: F.dropout(x, 0.5, training=False))(X), X, atol=0)
    assert_close(vmap(lambda x: F.dropout(x, 0.0))(X), X, atol=0)


def test_nested_randomness_levels():
    """Inner 'different', outer 'same': each inner sample its own, the same for
    every outer one (and the other way round)."""
    X = tp.rand(2, 3, 4)
    r = vmap(vmap(lambda x: tp.rand(4), randomness="different"), randomness="same")(X)
    assert tp.equal(r[0], r[1]) and not tp.equal(r[0, 0], r[0, 1])
    r = vmap(vmap(lambda x: tp.rand(4), randomness="same"), randomness="different")(X)
    assert tp.equal(r[0, 0], r[0, 1]) and not tp.equal(r[0, 0], r[1, 0])


def test_per_sample_gradients_through_dropout():
    """The per-sample masks are those of a loop over the samples, and the
    gradient of each sample goes through its own mask."""
    w, X = tp.randn(4, dtype=tp.float64), tp.randn(3, 4, dtype=tp.float64)
    loss = lambda w, x: (F.dropout(x * w, 0.5) ** 2).sum()       # noqa: E731
    got, _ = _seeded(lambda: vmap(grad(loss), in_dims=(None, 0), randomness="different")(w, X))
    want, _ = _seeded(lambda: tp.stack([grad(loss)(w, X[i]) for i in range(3)]))
    assert_close(got, want, atol=1e-12)
    assert not tp.equal(got[0] == 0, got[1] == 0)


# ------------------------------------------------------------------ autograd.grad(is_grads_batched=True)
def _both():
    from conftest import torch
    return [tp] + ([torch] if torch is not None else [])


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("create_graph", [False, True])
def test_is_grads_batched_is_one_vjp_per_row(create_graph):
    X = np.random.default_rng(3).standard_normal((3, 4))
    V = np.random.default_rng(4).standard_normal((5, 3, 2))
    res = []
    for L in _both():
        x = L.tensor(X, requires_grad=True)
        w = L.tensor(X[:, :2].copy(), requires_grad=True)
        out = (x @ x.t()).sin() @ w                    # (3, 2)
        gx, gw = L.autograd.grad(out, (x, w), L.tensor(V), retain_graph=True,
                                 create_graph=create_graph, is_grads_batched=True)
        loop = [L.autograd.grad(out, (x, w), L.tensor(V[i]), retain_graph=True) for i in range(5)]
        assert_close(_np(gx), np.stack([_np(g[0]) for g in loop]), atol=1e-12)
        assert_close(_np(gw), np.stack([_np(g[1]) for g in loop]), atol=1e-12)
        assert (gx.grad_fn is not None) == create_graph
        if create_graph:        # the batched gradient is differentiable again
            res.append(_np(L.autograd.grad(gx.sum(), x)[0]))
        res.append(_np(gx))
    if len(res) > 2:
        half = len(res) // 2
        for a, b in zip(res[:half], res[half:]):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_is_grads_batched_errors_and_unused_inputs():
    for L in _both():
        x, y = L.randn(3, requires_grad=True, dtype=L.float64), L.randn(2, requires_grad=True)
        out = x * 2
        with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
            L.autograd.grad(out, (x, y), L.eye(3, dtype=L.float64), retain_graph=True,
                            is_grads_batched=True)
        gx, gy = L.autograd.grad(out, (x, y), L.eye(3, dtype=L.float64), retain_graph=True,
                                 is_grads_batched=True, allow_unused=True)
        assert gy is None
        assert_close(_np(gx), 2 * np.eye(3), atol=0)
        gx, gy = L.autograd.grad(out, (x, y), L.eye(3, dtype=L.float64), retain_graph=True,
                                 is_grads_batched=True, materialize_grads=True)
        assert tuple(gy.shape) == (2,) and not gy.any()     # PyTorch's: without the batch
        with pytest.raises(RuntimeError, match="we interpret the first dimension of each "
                                               "grad_output as the batch dimension"):
            L.autograd.grad(out, x, L.ones(2, 4, dtype=L.float64), retain_graph=True,
                            is_grads_batched=True)
        with pytest.raises(ValueError, match="Expected all tensors to have the same size in the "
                                             "mapped dimension, got sizes \\[2, 4\\]"):
            L.autograd.grad([out, out], x, [L.ones(2, 3, dtype=L.float64),
                                            L.ones(4, 3, dtype=L.float64)],
                            retain_graph=True, is_grads_batched=True)
        with pytest.raises(ValueError, match="dimensionality 0 so expected in_dim to satisfy "
                                             "0 <= in_dim < 0"):
            L.autograd.grad(out.sum(), x, None, retain_graph=True, is_grads_batched=True)


def test_is_grads_batched_uses_batching_rules():
    x = tp.randn(6, 5, dtype=tp.float64, requires_grad=True)
    out = (x.softmax(-1) @ x.t()).logsumexp(0)
    del _vmap_mod.FELL_BACK[:]
    g, = tp.autograd.grad(out, x, tp.eye(6, dtype=tp.float64), is_grads_batched=True)
    assert _vmap_mod.FELL_BACK == []
    assert_close(_np(g), _np(jacrev(lambda x: (x.softmax(-1) @ x.t()).logsumexp(0))(x)), atol=1e-12)


def test_autograd_grad_inside_vmap_differentiates_each_sample():
    X = tp.randn(4, 3, dtype=tp.float64)

    def f(x):
        y = x.clone().requires_grad_()
        return tp.autograd.grad((y ** 3).sum(), y)[0]
    assert_close(vmap(f)(X), 3 * X ** 2, atol=1e-12)


# ------------------------------------------------------------------ indexing with batched index tensors
@pytest.mark.parametrize("key", [
    lambda i, j: (i,), lambda i, j: (i, slice(1, None)), lambda i, j: (slice(None), i),
    lambda i, j: (1, i), lambda i, j: (Ellipsis, i), lambda i, j: (None, i), lambda i, j: (i, None, j),
    lambda i, j: (i, slice(None), j), lambda i, j: (slice(None), i, j), lambda i, j: (i, 0, j),
    lambda i, j: (slice(0, 2), i, Ellipsis),
], ids=["i", "i,1:", ":,i", "1,i", "...,i", "None,i", "i,None,j", "i,:,j", ":,i,j", "i,0,j",
        ":2,i,..."])
def test_getitem_with_batched_index_tensors_matches_the_loop(key):
    x = tp.randn(4, 3, 4, 3, dtype=tp.float64)
    i = tp.tensor([[0, 2], [1, 1], [2, 0], [-1, 1]])
    j = tp.tensor([[1], [0], [2], [1]])
    f = lambda x, i, j: x[key(i, j)]                                # noqa: E731
    del _vmap_mod.FELL_BACK[:]
    got = vmap(f)(x, i, j)
    assert _vmap_mod.FELL_BACK == []
    assert_close(got, _loop(f, x, i, j), atol=0)
    g = vmap(grad(lambda x, i, j: (f(x, i, j) ** 2).sum()))(x, i, j)
    assert_close(g, _loop(grad(lambda x, i, j: (f(x, i, j) ** 2).sum()), x, i, j), atol=1e-12)
    # a shared x, batched indices
    assert_close(vmap(f, in_dims=(None, 0, 0))(x[0], i, j),
                 tp.stack([f(x[0], i[k], j[k]) for k in range(4)]), atol=0)


def test_batched_boolean_mask_is_refused_as_pytorch_does():
    x, m = tp.randn(3, 4), tp.ones(3, 4, dtype=tp.bool)
    with pytest.raises(RuntimeError, match="Attempting to batch over indexing with a boolean mask"):
        vmap(lambda a, b: a[b])(x, m)
    # a shared mask with a batched index: its positions, the same for every sample
    y, i = tp.randn(3, 4, 5), tp.tensor([[0], [1], [2]])
    mask = tp.tensor([True, False, True, True])
    f = lambda a, k: a[mask, k]                                      # noqa: E731
    assert_close(vmap(f, in_dims=(None, 0))(y[0], i), tp.stack([f(y[0], i[k]) for k in range(3)]),
                 atol=0)


@pytest.mark.parametrize("lib", ["tensorplay", "torch"])
def test_out_dims_none_refuses_a_batched_output_in_pytorchs_words(lib):
    L = tp if lib == "tensorplay" else pytest.importorskip("torch")

    def double(x):
        return x * 2
    with pytest.raises(ValueError, match="^vmap\\(double, ...\\): `double` can not return a "
                                         "BatchedTensor when out_dim is None$"):
        L.func.vmap(double, out_dims=None)(L.ones(3))
