"""vmap of the indexing writes and lookups whose per-sample semantics a plain
gather cannot carry: ``x[idx] = v`` / ``index_put`` with batched index
tensors (one write on the whole batch, a batch index in front) and
``embedding`` with a batched weight and ``padding_idx`` or
``scale_grad_by_freq`` (the samples' tables stacked into one).  Each result,
gradient and tangent is compared with the same function run once per sample
(and with torch.func.vmap where torch is installed); none may run through the
per-sample fallback."""
import warnings

import numpy as np
import pytest

import tensorplay as tp
import tensorplay.nn.functional as F
from tensorplay.func import _vmap as _vmap_mod, grad, jacrev, jvp, vmap

from conftest import assert_close


def _loop(f, *xs, in_dims=None):
    n = next(x.shape[0] for x, d in zip(xs, in_dims or [0] * len(xs)) if d is not None)
    dims = in_dims or [0] * len(xs)
    outs = [f(*[x[k] if d is not None else x for x, d in zip(xs, dims)]) for k in range(n)]
    if isinstance(outs[0], tuple):
        return tuple(tp.stack([o[j] for o in outs]) for j in range(len(outs[0])))
    return tp.stack(outs)


def _no_fallback(f, *xs, in_dims=0):
    """``vmap(f)(*xs)``, failing if any op ran once per sample."""
    del _vmap_mod.FELL_BACK[:]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = vmap(f, in_dims=in_dims)(*xs)
    assert _vmap_mod.FELL_BACK == []
    return out


def _close(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape)
        assert_close(g, w, atol=1e-12, rtol=1e-12)


# ------------------------------------------------------------------ embedding
RNG = np.random.default_rng(7)
W = tp.tensor(RNG.standard_normal((3, 5, 2)))
WT = tp.tensor(RNG.standard_normal((3, 5, 2)))
IDX = tp.tensor(np.array([[0, 1, 1, 4], [2, 2, 2, 0], [4, 3, 1, 1]]))
COEF = tp.tensor(RNG.standard_normal((4, 2)))


@pytest.mark.parametrize("kw", [{"padding_idx": 1}, {"scale_grad_by_freq": True},
                                {"padding_idx": -4, "scale_grad_by_freq": True}])
@pytest.mark.parametrize("in_dims", [(0, 0), (0, None), (None, 0)])
def test_embedding_padding_and_counts_per_sample(kw, in_dims):
    def loss(w, i):
        return (F.embedding(i, w, **kw) * COEF).sum()

    w = W if in_dims[0] == 0 else W[0]
    i = IDX if in_dims[1] == 0 else IDX[1]
    _close(_no_fallback(lambda w, i: F.embedding(i, w, **kw), w, i, in_dims=in_dims),
           _loop(lambda w, i: F.embedding(i, w, **kw), w, i, in_dims=in_dims))
    _close(_no_fallback(grad(loss), w, i, in_dims=in_dims), _loop(grad(loss), w, i, in_dims=in_dims))
    # the padding row gets nothing from any sample, the counts are each sample's own
    g = vmap(grad(loss), in_dims=in_dims)(w, i)
    if "padding_idx" in kw:
        assert_close(g[:, kw["padding_idx"]], tp.zeros(3, 2), atol=0)
    # forward mode: the lookup's tangent is the tangent weight's rows (the padding row's too)
    t = WT if in_dims[0] == 0 else WT[0]
    got = vmap(lambda w, t, i: jvp(lambda w: F.embedding(i, w, **kw), (w,), (t,))[1],
               in_dims=(in_dims[0], in_dims[0], in_dims[1]))(w, t, i)
    want = _loop(lambda w, t, i: jvp(lambda w: F.embedding(i, w, **kw), (w,), (t,))[1], w, t, i,
                 in_dims=(in_dims[0], in_dims[0], in_dims[1]))
    _close(got, want)


def test_embedding_counts_reach_a_shared_weight_through_vmap():
    """``grad(vmap(...))`` of a shared weight: the samples' own scaled gradients, summed."""
    def loss(w, i):
        return (F.embedding(i, w, padding_idx=0, scale_grad_by_freq=True) * COEF).sum()
    got = grad(lambda w: vmap(loss, in_dims=(None, 0))(w, IDX).sum())(W[0])
    want = sum(grad(loss)(W[0], IDX[k]) for k in range(3))
    assert_close(got, want, atol=1e-12)


def test_embedding_nested_vmap():
    w = tp.tensor(RNG.standard_normal((2, 3, 5, 2)))
    i = tp.stack([IDX, IDX.flip(1)])

    def loss(w, i):
        return (F.embedding(i, w, padding_idx=2, scale_grad_by_freq=True) * COEF).sum()
    got = vmap(vmap(grad(loss)))(w, i)
    want = tp.stack([_loop(grad(loss), w[a], i[a]) for a in range(2)])
    _close(got, want)
    assert_close(got[..., 2, :], tp.zeros(2, 3, 2), atol=0)


@pytest.mark.parametrize("bad", [-1, 5])
def test_embedding_index_out_of_its_own_table(bad):
    """Sample 1's index out of range must not read another sample's table."""
    idx = tp.tensor(np.array([[0, 1], [bad, 2], [0, 0]]))
    with pytest.raises(IndexError, match="index out of range in self"):
        vmap(lambda w, i: F.embedding(i, w, padding_idx=1))(W, idx)
    with pytest.raises(IndexError, match="index out of range in self"):
        vmap(lambda w, i: F.embedding(i, w, scale_grad_by_freq=True), in_dims=(None, 0))(W[0], idx)


def test_embedding_against_torch():
    torch = pytest.importorskip("torch")

    def run(T, F_, w, i):
        def loss(w, i):
            return (F_.embedding(i, w, padding_idx=3, scale_grad_by_freq=True) *
                    T.tensor(COEF.numpy())).sum()
        return T.func.vmap(T.func.grad(loss))(w, i)
    got = run(tp, F, W, IDX)
    want = run(torch, torch.nn.functional, torch.tensor(W.numpy()), torch.tensor(IDX.numpy()))
    assert_close(got, tp.tensor(want.numpy()), atol=1e-12)


# ------------------------------------------------------------------ x[idx] = v, index_put
X = RNG.standard_normal((3, 4, 5, 6))
I = np.array([[1, 2], [0, 3], [2, 2]])            # sample 2 writes one place twice
J = np.array([[0, 4], [1, 1], [3, 0]])
TWO = np.array([True, False, False, True])


def _set(x, key, v):
    y = x * 1
    y[key] = v
    return y


# (key of the sample given its i, j; the value's shape per sample, None: a number)
SETITEM = {
    "tensor first": (lambda i, j: (i,), (2, 5, 6)),
    "after a slice": (lambda i, j: (slice(None), i), (4, 2, 6)),
    "int then slice": (lambda i, j: (1, slice(None), i), (5, 2)),
    "apart": (lambda i, j: (i, slice(None), j), (2, 5)),
    "adjacent pair": (lambda i, j: (slice(None), i, j), (4, 2)),
    "ellipsis": (lambda i, j: (Ellipsis, i), (4, 5, 2)),
    "None and a range": (lambda i, j: (None, slice(1, 3), i), (1, 2, 2, 6)),
    "shared 0-d int": (lambda i, j: (tp.tensor(1), slice(None), i), (5, 2)),
    "shared mask": (lambda i, j: (tp.tensor(TWO), i), (2, 6)),
    "shared list": (lambda i, j: ([0, 3], i), (2, 6)),
    "shared 2-d mask list": (lambda i, j: ([[True, False, False, False, False],
                                           [False, False, False, False, True],
                                           [False] * 5, [False] * 5], i), (2,)),
    "number": (lambda i, j: (slice(None), i), None),
    "leading 1 dims": (lambda i, j: (slice(None), i), (1, 1, 4, 2, 6)),
    "broadcast value": (lambda i, j: (slice(None), i), (4, 1, 6)),
}


@pytest.mark.parametrize("name", list(SETITEM))
def test_setitem_batched_index(name):
    """Each sample's ``x[key] = v``; torch.func.vmap refuses several of these
    layouts ('shape mismatch'), the loop is the reference."""
    key, vshape = SETITEM[name]
    v = tp.tensor(RNG.standard_normal((3,) + vshape)) if vshape else 2.5

    def f(x, i, j, *v_):
        return _set(x, key(i, j), v_[0] if v_ else v)
    args = [tp.tensor(X), tp.tensor(I), tp.tensor(J)] + ([v] if vshape else [])
    _close(_no_fallback(f, *args), _loop(f, *args))
    if vshape:                  # the value shared by the samples
        _close(_no_fallback(f, *args[:3], v[1], in_dims=(0, 0, 0, None)),
               _loop(f, *args[:3], v[1], in_dims=(0, 0, 0, None)))

        def loss(x, i, j, v):
            return (f(x, i, j, v) * tp.tensor(X[0]).cos()).sum()
        for argnums in (0, 3):      # x's untouched part and the value's (later writes win)
            _close(_no_fallback(grad(loss, argnums), *args), _loop(grad(loss, argnums), *args))


def test_setitem_batched_index_and_batch_last():
    f = lambda x, i, v: _set(x, (slice(None), i), v)                       # noqa: E731
    x, i = tp.tensor(np.moveaxis(X, 0, -1).copy()), tp.tensor(I.T.copy())
    v = tp.tensor(RNG.standard_normal((4, 2, 6, 3)))
    got = _no_fallback(f, x, i, v, in_dims=-1)
    want = _loop(f, x.movedim(-1, 0), i.movedim(-1, 0), v.movedim(-1, 0))
    _close(got, want)


def test_setitem_into_a_view_of_the_batch():
    """A write through a view (``y[0][i] = v``) reaches the base, and its gradient too."""
    def f(x, i, v):
        y = x * 1
        y[0][:, i] = v
        return y

    def loss(x, i, v):
        return (f(x, i, v) * tp.tensor(X[1])).sum()
    args = tp.tensor(X), tp.tensor(I), tp.tensor(RNG.standard_normal((3, 5, 2)))
    _close(_no_fallback(f, *args), _loop(f, *args))
    for argnums in (0, 2):
        _close(_no_fallback(grad(loss, argnums), *args), _loop(grad(loss, argnums), *args))


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_batched_index(accumulate):
    """Out of place and in place, with duplicates (summed within their own sample
    when accumulating), a shared ``x`` (out of place only: an in-place write into
    it raises) and a shared or batched value."""
    def f(x, i, j, v):
        return tp.index_put(x, (i, j), v, accumulate)

    def g(x, i, j, v):
        return f(x, i, j, v), (x * 1).index_put_((i,), v[:1, None], accumulate=accumulate)
    v = tp.tensor(RNG.standard_normal((3, 2, 6)))
    args = [tp.tensor(X), tp.tensor(I), tp.tensor(J), v]
    for dims in [(0, 0, 0, 0), (None, 0, 0, 0), (0, 0, 0, None), (None, 0, None, None)]:
        xs = [a if d == 0 else a[1] for a, d in zip(args, dims)]
        h = g if dims[0] == 0 else f
        _close(_no_fallback(h, *xs, in_dims=dims), _loop(h, *xs, in_dims=dims))

    def loss(x, i, j, v):
        a, b = g(x, i, j, v)
        return (a * a.detach().cos()).sum() + (b * b.detach().sin()).sum()
    for argnums in (0, 3):
        _close(_no_fallback(grad(loss, argnums), *args), _loop(grad(loss, argnums), *args))


def test_index_put_nested_levels():
    """Index tensors batched at either level, ``x`` at both or the other one."""
    x = tp.tensor(RNG.standard_normal((2, 3, 4, 6)))
    i = tp.tensor(np.array([[0, 3], [2, 2], [1, 0]]))
    v = tp.tensor(RNG.standard_normal((2, 6)))

    def f(x, i):
        return tp.index_put(x, (i,), v, True)

    def g(x, i):
        return f(x, i), _set(x, (slice(None), i[:1]), 7.0), x[:, i]
    # i over the inner level, x over both
    got = _no_fallback(lambda x: vmap(g, in_dims=(0, 0))(x, i), x)
    want = tuple(tp.stack(t) for t in zip(*[_loop(g, x[a], i) for a in range(2)]))
    _close(got, want)
    # i over the outer level, x over the inner one only: out of place and reading
    h = lambda x, i: (f(x, i), x[:, i])                                    # noqa: E731
    got = _no_fallback(lambda i: vmap(h, in_dims=(0, None))(x[0], i), i)
    want = tuple(tp.stack(t) for t in zip(*[_loop(h, x[0], i[a], in_dims=(0, None))
                                            for a in range(3)]))
    _close(got, want)
    # writing there: y is the same for every sample of the outer level (PyTorch refuses too)
    with pytest.raises(RuntimeError, match=r"^vmap: index_put_\(self"):
        vmap(lambda i: vmap(lambda x: _set(x, (slice(None), i), 7.0))(x[0]))(i)


def test_getitem_shared_0d_int_is_an_int():
    """A 0-d integer tensor the same for every sample selects, as an int does
    (it takes no part in placing the index tensors' dimensions)."""
    f = lambda x, i: x[tp.tensor(1), :, i]                                 # noqa: E731
    _close(_no_fallback(f, tp.tensor(X), tp.tensor(I)), _loop(f, tp.tensor(X), tp.tensor(I)))


def test_writes_into_an_unbatched_tensor_raise_pytorchs_errors():
    y = tp.zeros(4, dtype=tp.float64)
    i, v = tp.tensor(np.array([0, 1, 2])), tp.tensor(np.array([1.0, 2.0, 3.0]))

    def setitem(y, k, v):
        y[k] = v
        return y
    msg = "vmap: {}(self, *extra_args) is not possible because there exists a Tensor `other`"
    cases = [(lambda i, v: setitem(y, i, 1.0), "index_put_"),
             (lambda i, v: y.index_put_((i,), tp.tensor(1.0, dtype=tp.float64)), "index_put_"),
             (lambda i, v: setitem(y, tp.tensor([1]), v), "index_put_"),
             (lambda i, v: y.index_put_((tp.tensor([1]),), v, accumulate=True), "index_put_"),
             (lambda i, v: setitem(y, 0, v), "inplace arithmetic"),
             (lambda i, v: y.copy_(v.expand(4)), "inplace arithmetic")]
    for f, name in cases:
        with pytest.raises(RuntimeError) as e:
            vmap(f)(i, v)
        assert str(e.value).startswith(msg.format(name))
    assert_close(y, tp.zeros(4, dtype=tp.float64), atol=0)
    # out of place into a shared tensor is fine
    _close(vmap(lambda i: tp.index_put(y, (i,), tp.tensor(1.0, dtype=tp.float64)))(i),
           tp.eye(4, dtype=tp.float64)[:3])


def test_index_put_against_torch():
    torch = pytest.importorskip("torch")

    def run(T, x, i, j, v):
        def loss(x, i, j, v):
            y = T.index_put(x, (i, j), v, True)
            y[i, 0] = v.flip(0)
            return (y * y.detach().cos()).sum()
        return T.func.vmap(T.func.grad(loss, argnums=(0, 3)))(x, i, j, v)
    v = RNG.standard_normal((3, 2, 6))
    got = run(tp, *[tp.tensor(a) for a in (X, I, J, v)])
    want = run(torch, *[torch.tensor(a) for a in (X, I, J, v)])
    for g, w in zip(got, want):
        assert_close(g, tp.tensor(w.numpy()), atol=1e-12)
    with pytest.raises(RuntimeError, match="Attempting to batch over indexing with a boolean mask"):
        vmap(lambda x, m: x.index_put((m,), tp.tensor(1.0, dtype=tp.float64)))(tp.tensor(X), tp.tensor(X > 0))


def test_jacrev_through_writes_per_sample():
    """The derivative of a write (an ``index`` of the cotangent with basic items
    and index arrays) runs batched over jacrev's cotangents, with no fallback."""
    v = tp.tensor(RNG.standard_normal((3, 2, 6)))

    def f(x, v, i):
        y = x * 1
        y[i] = v[:, None]
        y[[0, 2], 1:3] = v[:, None]
        y[1, :, [0, 2]] = 1.5
        return tp.index_put(y, (i,), v[:, None] * 2, True)
    x, i = tp.tensor(X), tp.tensor(I)
    got = _no_fallback(lambda x, v, i: jacrev(lambda v: f(x, v, i))(v), x, v, i)
    _close(got, _loop(lambda x, v, i: jacrev(lambda v: f(x, v, i))(v), x, v, i))
