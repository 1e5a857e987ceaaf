"""The vmap batching rules of the nn ops (``op.batch(op, args, bdims)``), each
against the op run once per sample and stacked: batch dimensions in several
places, batched and unbatched arguments mixed."""
import numpy as np
import pytest

import tensorplay as tp
from tensorplay.ops import REGISTRY

from conftest import assert_close
from test_nn_layers import randn

B = 3


def _loop(op, args, bdims, kwargs_tail=0):
    """The op per sample: each batched argument indexed along its batch dim."""
    outs = []
    for i in range(B):
        a = [x if b is None else tp.tensor(np.take(x.numpy(), i, axis=b)) for x, b in zip(args, bdims)]
        outs.append(tp.ops._registry.dispatch(op, a))
    if isinstance(outs[0], tuple):
        return tuple(np.stack([o[k].detach().numpy() for o in outs]) for k in range(len(outs[0])))
    return np.stack([o.detach().numpy() for o in outs])


def _check(name, args, bdims):
    op = REGISTRY[name]
    args = [tp.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    bdims = list(bdims) + [None] * (len(args) - len(bdims))
    got, out_bdim = op.batch(op, list(args), bdims)
    want = _loop(op, args, bdims)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        g = np.moveaxis(g.detach().numpy(), out_bdim, 0)
        assert_close(g, w, 1e-12, 1e-10)


def _put(a, axis):
    """A (B, ...) array with its batch dimension moved to ``axis``."""
    return np.moveaxis(a, 0, axis)


@pytest.mark.parametrize("bx,bw,bb", [(0, None, None), (1, None, None), (None, 0, None), (0, 0, 0),
                                      (None, None, 0), (2, 1, None)])
def test_linear_batch_rule(bx, bw, bb):
    x, w, b = randn(0, B, 4, 5), randn(1, B, 3, 5), randn(2, B, 3)
    args = [_put(x, bx) if bx is not None else x[0], _put(w, bw) if bw is not None else w[0],
            _put(b, bb) if bb is not None else b[0]]
    _check("linear", args, (bx, bw, bb))
    if (bx is None or bx < 2) and (bx is not None or bw is not None):      # a 1-d (logical) input
        x1 = randn(3, B, 5)
        _check("linear", [_put(x1, bx) if bx is not None else x1[0], args[1], None], (bx, bw, None))


@pytest.mark.parametrize("bx", [0, 2])
def test_normalize_batch_rule(bx):
    _check("native_normalize", [_put(randn(0, B, 2, 5), bx), (1,), 1e-5], (bx,))


@pytest.mark.parametrize("bdims", [(0, 0, 0), (1, None, None), (None, 0, 1)])
def test_normalize_backward_and_softmax_backward_batch_rules(bdims):
    g, xh, r = randn(0, B, 2, 5), randn(1, B, 2, 5), np.abs(randn(2, B, 2, 1)) + 0.5
    args = [_put(a, b) if b is not None else a[0] for a, b in zip((g, xh, r), bdims)]
    _check("normalize_backward", args + [(1,)], bdims)
    _check("softmax_backward", args[:2], bdims[:2])


@pytest.mark.parametrize("bdims", [(0, 0, 0, None), (None, 0, 0, None), (1, None, None, 0), (0, 0, 0, 0)])
def test_attention_batch_rule(bdims):
    q, k, v, m = randn(0, B, 2, 3, 4), randn(1, B, 2, 5, 4), randn(2, B, 2, 5, 6), randn(3, B, 3, 5)
    args = [_put(a, b) if b is not None else a[0] for a, b in zip((q, k, v, m), bdims)]
    args += [None]
    op = REGISTRY["attention"]
    got, out_bdim = op.batch(op, [tp.tensor(a) if isinstance(a, np.ndarray) else a for a in args] +
                             [0.4, False, True], list(bdims) + [None] * 4)
    for i in range(B):
        a = [x if b is None else np.take(x, i, axis=b) for x, b in zip(args[:4], bdims)]
        want = tp.ops.nn_ops.attention(*[tp.tensor(x) for x in a], None, scale=0.4, causal=False, safe=True)
        for g, w in zip(got, want):
            assert_close(g.numpy()[i], w.numpy(), 1e-12, 1e-10)


@pytest.mark.parametrize("name", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("bx,bt,reduction,extra", [
    (0, 0, "mean", {}), (1, None, "sum", {}), (None, 0, "none", {}), (0, 0, "mean", {"weight": True}),
    (0, 1, "mean", {"ignore": True}), (0, 0, "mean", {"smoothing": 0.2}), (0, 0, "mean", {"unbatched": True}),
    (0, 0, "mean", {"all_ignored": True})])
def test_class_loss_batch_rule(name, bx, bt, reduction, extra):
    if name == "nll_loss" and "smoothing" in extra:
        pytest.skip("nll_loss has no label smoothing")
    shape = (B, 6) if extra.get("unbatched") else (B, 4, 6)
    x = randn(0, *shape)
    t = np.random.default_rng(1).integers(0, 6, shape[:-1])
    if extra.get("ignore"):
        t[0, :2] = -100
        t[1, :] = -100
    if extra.get("all_ignored"):
        t[:] = -100
    args = [_put(x, bx) if bx is not None else x[0], _put(t, bt) if bt is not None else t[0],
            randn(2, 6) ** 2 if extra.get("weight") else None, reduction, -100]
    if name == "cross_entropy":
        args.append(extra.get("smoothing", 0.0))
    _check(name, args, (bx, bt))


def test_class_loss_batch_rule_gradient():
    """The batched call's gradient equals the per-sample losses' gradients (a
    sample whose every target is ignored: NaN loss, zero gradient)."""
    op = REGISTRY["cross_entropy"]
    x = tp.tensor(randn(0, B, 4, 6), requires_grad=True)
    t = np.random.default_rng(1).integers(0, 6, (B, 4))
    t[1] = -100
    out, _ = op.batch(op, [x, tp.tensor(t), None, "mean", -100, 0.1], [0, 0, None])
    assert np.isnan(out[1].item()) and not np.isnan(out[0].item())
    (out[0] + out[2]).backward()
    for i in (0, 2):
        xi = tp.tensor(x.detach().numpy()[i], requires_grad=True)
        tp.nn.functional.cross_entropy(xi, tp.tensor(t[i]), label_smoothing=0.1).backward()
        assert_close(x.grad.numpy()[i], xi.grad.numpy(), 1e-12, 1e-10)
    assert not x.grad.numpy()[1].any()


def test_per_sample_class_weights_run_per_sample():
    x, t, w = randn(0, B, 4, 6), np.random.default_rng(1).integers(0, 6, (B, 4)), randn(2, B, 6) ** 2
    _check("nll_loss", [x, t, w, "mean", -100], (0, 0, 0))
