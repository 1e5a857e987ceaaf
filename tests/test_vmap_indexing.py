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
from tensorplay.func import _vmap as _vmap_mod, grad, jvp, vmap

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
