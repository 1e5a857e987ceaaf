"""CTC loss (``nn.functional.ctc_loss``, ``nn.CTCLoss``): values and gradients
against a brute-force sum over every alignment (runs without torch) and
against PyTorch for random cases; PyTorch's gradient convention, its
reductions' graphs, its errors, vmap and the missing higher derivatives."""
import itertools

import numpy as np
import pytest

import tensorplay as tp
import tensorplay.autograd.forward_ad as fwAD
from tensorplay.func import _vmap, jacrev, vmap

from conftest import assert_close, torch

F = tp.nn.functional


def _log_softmax(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def _collapse(path, blank):
    out, prev = [], None
    for c in path:
        if c != prev and c != blank:
            out.append(c)
        prev = c
    return out


def _brute(lp, target, blank):
    """The loss and the frame occupancies of one sample (``lp``: (T, C)) by
    summing over all C ** T label paths."""
    t_max, c = lp.shape
    prob = np.exp(lp)
    total, occ = 0.0, np.zeros_like(lp)
    for path in itertools.product(range(c), repeat=t_max):
        if _collapse(path, blank) != list(target):
            continue
        p = np.prod(prob[np.arange(t_max), path])
        total += p
        occ[np.arange(t_max), path] += p
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.log(total), occ / total


def _case(seed, t_max=5, n=3, c=3, s=3, blank=0):
    gen = np.random.default_rng(seed)
    lp = _log_softmax(gen.standard_normal((t_max, n, c)))
    labels = [k for k in range(c) if k != blank]
    tl = gen.integers(0, s + 1, n)
    tg = gen.choice(labels, (n, s))
    il = gen.integers(0, t_max + 1, n)
    return lp, tg, il, tl


@pytest.mark.parametrize("seed,blank", [(0, 0), (1, 2), (2, 1), (3, 0)])
def test_against_brute_force(seed, blank):
    """Loss and its derivative, -occupancy for t < input length,
    against the sum over every alignment (repeated labels, empty targets,
    short inputs and impossible alignments included)."""
    lp, tg, il, tl = _case(seed, blank=blank)
    x = tp.tensor(lp, requires_grad=True)
    loss = F.ctc_loss(x, tp.tensor(tg), tp.tensor(il), tp.tensor(tl), blank=blank, reduction="none")
    g = np.array([0.5, -1.0, 2.0])
    grad, = tp.autograd.grad(loss, x, tp.tensor(g))
    for k in range(3):
        want, occ = _brute(lp[:il[k], k], tg[k, :tl[k]], blank)
        assert_close(loss[k].item(), want, atol=1e-12, rtol=1e-12)
        if np.isfinite(want):
            assert_close(grad[:il[k], k].numpy(), -occ * g[k], atol=1e-12, rtol=1e-10)
        else:
            assert np.isnan(grad[:il[k], k].numpy()).all()
        assert not grad[il[k]:, k].numpy().any()


def test_concatenated_targets_and_lists_agree():
    lp, tg, il, tl = _case(7, t_max=6, n=3, c=4, s=3)
    cat = np.concatenate([tg[k, :tl[k]] for k in range(3)])
    a = F.ctc_loss(tp.tensor(lp), tp.tensor(tg), tp.tensor(il), tp.tensor(tl), reduction="none")
    b = F.ctc_loss(tp.tensor(lp), tp.tensor(cat), list(il), tuple(tl), reduction="none")
    c = F.ctc_loss(tp.tensor(lp), tp.tensor(tg.astype(np.int32)), tp.tensor(il.astype(np.int32)),
                   tp.tensor(tl.astype(np.uint8)), reduction="none")
    assert_close(a.numpy(), b.numpy(), atol=0, rtol=0)
    assert_close(a.numpy(), c.numpy(), atol=0, rtol=0)


def test_reductions():
    """mean: each loss over its target length clamped to 1, then the batch mean."""
    lp, tg, il, tl = _case(4, t_max=6, n=4, c=4, s=3)
    tl[0] = 0
    args = (tp.tensor(lp), tp.tensor(tg), tp.tensor(il), tp.tensor(tl))
    per = F.ctc_loss(*args, reduction="none").numpy()
    assert_close(F.ctc_loss(*args, reduction="sum").item(), per.sum(), atol=1e-12, rtol=1e-12)
    assert_close(F.ctc_loss(*args).item(), (per / np.maximum(tl, 1)).mean(), atol=1e-12, rtol=1e-12)
    assert_close(tp.nn.CTCLoss(reduction="sum")(*args).item(), per.sum(), atol=1e-12, rtol=1e-12)


def test_zero_infinity():
    lp = _log_softmax(np.random.default_rng(5).standard_normal((4, 2, 3)))
    tg, il, tl = np.array([[1, 1, 1], [2, 1, 0]]), np.array([4, 4]), np.array([3, 2])    # [1, 1, 1]: 5 frames
    for zi in (False, True):
        x = tp.tensor(lp, requires_grad=True)
        loss = F.ctc_loss(x, tp.tensor(tg), tp.tensor(il), tp.tensor(tl), reduction="none", zero_infinity=zi)
        assert loss[0].item() == (0.0 if zi else np.inf) and np.isfinite(loss[1].item())
        grad, = tp.autograd.grad(loss.sum(), x)
        if zi:
            assert not grad[:, 0].numpy().any()
        else:
            assert np.isnan(grad[:, 0].numpy()).all()
        assert np.isfinite(grad[:, 1].numpy()).all()
        m = tp.nn.CTCLoss(zero_infinity=zi)(x, tp.tensor(tg), tp.tensor(il), tp.tensor(tl))
        assert np.isfinite(m.item()) == zi


@pytest.mark.parametrize("seed", [0, 1])
def test_gradcheck_through_log_softmax(seed):
    gen = np.random.default_rng(seed)
    x = tp.tensor(gen.standard_normal((6, 2, 4)), requires_grad=True)
    tg, il, tl = tp.tensor([[1, 3, 3], [2, 1, 0]]), tp.tensor([6, 5]), tp.tensor([3, 1])
    for red in ("none", "mean"):
        assert tp.autograd.gradcheck(lambda v: F.ctc_loss(v.log_softmax(-1), tg, il, tl, blank=0, reduction=red),
                                     (x,))
    assert tp.autograd.gradcheck(lambda v: F.ctc_loss(v.log_softmax(-1), tg, il, tl, blank=2, reduction="sum"),
                                 (x,))


def test_blank_inside_targets_is_differentiated_consistently():
    """A target equal to the blank (PyTorch documents it as not allowed; its last
    frame's gradient then drops a term): the gradient is that of the loss."""
    x = tp.tensor(np.random.default_rng(3).standard_normal((5, 2, 3)), requires_grad=True)
    tg, il, tl = tp.tensor([[0, 0], [1, 0]]), tp.tensor([5, 4]), tp.tensor([2, 2])
    assert tp.autograd.gradcheck(lambda v: F.ctc_loss(v.log_softmax(-1), tg, il, tl, reduction="sum"), (x,))


def test_graph_and_missing_derivatives():
    lp = tp.tensor(_log_softmax(np.random.default_rng(6).standard_normal((5, 2, 4))), requires_grad=True)
    tg, il, tl = tp.tensor([[1, 2, 2], [3, 1, 0]]), tp.tensor([5, 4]), tp.tensor([3, 2])
    loss = F.ctc_loss(lp, tg, il, tl, reduction="none")
    assert type(loss.grad_fn).__name__ == "CtcLossBackward0"
    assert type(F.ctc_loss(lp, tg, il, tl).grad_fn).__name__ == "MeanBackward0"
    assert type(F.ctc_loss(lp, tg, il, tl, reduction="sum").grad_fn).__name__ == "SumBackward0"
    assert type(F.ctc_loss(lp, tg, il, tl, reduction="none", zero_infinity=True).grad_fn).__name__ == \
        "WhereBackward0"
    assert type(F.ctc_loss(lp[:, 0], tg[0], il[0], tl[0], reduction="none").grad_fn).__name__ == \
        "SqueezeBackward1"
    g, = tp.autograd.grad(loss.sum(), lp, create_graph=True)
    assert type(g.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="^derivative for aten::_ctc_loss_backward is not implemented$"):
        tp.autograd.grad(g.sum(), lp)
    # forward mode (PyTorch has none): the derivative dotted with the tangent
    v = tp.tensor(np.random.default_rng(9).standard_normal(tuple(lp.shape)))
    with fwAD.dual_level():
        d = fwAD.make_dual(lp.detach(), v)
        t = fwAD.unpack_dual(F.ctc_loss(d, tg, il, tl, reduction="none")).tangent
    g1, = tp.autograd.grad(F.ctc_loss(lp, tg, il, tl, reduction="none").sum(), lp)
    assert_close(t.numpy(), (g1 * v).sum((0, 2)).numpy(), atol=1e-12, rtol=1e-12)


def test_vmap_and_jacrev_use_the_batching_rules():
    gen = np.random.default_rng(8)
    xs = tp.tensor(gen.standard_normal((3, 5, 2, 4)))
    tg, il, tl = tp.tensor([[1, 2, 2], [3, 1, 0]]), tp.tensor([5, 4]), tp.tensor([3, 2])
    del _vmap.FELL_BACK[:]
    got = vmap(lambda x: F.ctc_loss(x.log_softmax(-1), tg, il, tl, reduction="none"))(xs)
    want = tp.stack([F.ctc_loss(x.log_softmax(-1), tg, il, tl, reduction="none") for x in xs])
    assert_close(got.numpy(), want.numpy(), atol=1e-12, rtol=1e-12)
    lp = xs[0].log_softmax(-1)
    jac = jacrev(lambda v: F.ctc_loss(v, tg, il, tl, reduction="none"))(lp)          # batched cotangents
    rows = [tp.autograd.grad(F.ctc_loss(v, tg, il, tl, reduction="none")[k], v)[0]
            for k, v in ((k, lp.detach().requires_grad_()) for k in range(2))]
    assert_close(jac.numpy(), tp.stack(rows).numpy(), atol=1e-12, rtol=1e-12)
    assert not _vmap.FELL_BACK


def test_float32():
    lp, tg, il, tl = _case(9, t_max=6, n=3, c=4, s=3)
    a = F.ctc_loss(tp.tensor(lp.astype(np.float32)), tp.tensor(tg), tp.tensor(il), tp.tensor(tl), reduction="none")
    b = F.ctc_loss(tp.tensor(lp), tp.tensor(tg), tp.tensor(il), tp.tensor(tl), reduction="none")
    assert a.dtype == tp.float32
    assert_close(a.numpy(), b.numpy(), atol=1e-5, rtol=1e-5)


# ----------------------------------------------------------------- against PyTorch
def _random_call(gen):
    t_max, n, c = int(gen.integers(1, 9)), int(gen.integers(1, 4)), int(gen.integers(2, 6))
    s = int(gen.integers(0, 5))
    blank = int(gen.integers(0, c))
    tg = gen.integers(0, c, (n, s))
    tg = np.where(tg == blank, (blank + 1) % c, tg)
    if gen.random() < 0.3:
        tg[:, 1:] = tg[:, :1]                                   # repeats
    tl, il = gen.integers(0, s + 1, n), gen.integers(0, t_max + 1, n)
    if gen.random() < 0.5:
        tg = np.concatenate([tg[k, :tl[k]] for k in range(n)])
    return gen.standard_normal((t_max, n, c)), tg, il, tl, blank


@pytest.mark.parametrize("seed", range(6))
def test_against_torch_random(seed):
    if torch is None:
        pytest.skip("torch not installed")
    gen = np.random.default_rng(100 + seed)
    for _ in range(5):
        x, tg, il, tl, blank = _random_call(gen)
        for red, zi in itertools.product(("none", "sum", "mean"), (False, True)):
            outs = []
            for T in (tp, torch):       # (the logits' gradient: there tensorplay's is PyTorch's)
                v = T.tensor(x, requires_grad=True)
                loss = T.nn.functional.ctc_loss(v.log_softmax(-1), T.tensor(tg), T.tensor(il), T.tensor(tl),
                                                blank=blank,
                                                reduction=red, zero_infinity=zi)
                w = T.tensor(np.linspace(-1, 2, loss.numel()).reshape(tuple(loss.shape)))
                grad, = T.autograd.grad(loss, v, w)
                outs.append((loss.detach().numpy(), grad.numpy()))
            (a, ga), (b, gb) = outs
            assert a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(ga, gb, rtol=1e-9, atol=1e-12)     # (NaN where torch's is)


def test_against_torch_float32_and_module():
    if torch is None:
        pytest.skip("torch not installed")
    x, tg, il, tl, _ = _random_call(np.random.default_rng(42))
    outs = []
    for T in (tp, torch):
        v = T.tensor(x.astype(np.float32), requires_grad=True)
        loss = T.nn.CTCLoss(blank=0)(v.log_softmax(-1), T.tensor(tg), T.tensor(il), T.tensor(tl))
        grad, = T.autograd.grad(loss, v)
        assert str(loss.dtype).endswith("float32") and str(grad.dtype).endswith("float32")
        outs.append((loss.item(), grad.numpy()))
    assert_close(outs[0][0], outs[1][0], atol=1e-5, rtol=1e-5)
    assert_close(outs[0][1], outs[1][1], atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("call", [
    lambda T, lp, tg: T.nn.functional.ctc_loss(lp, tg, [5.0, 4.0], [3, 2]),
    lambda T, lp, tg: T.nn.functional.ctc_loss(lp, tg, T.tensor([5, 4]), [3, 2]),
    lambda T, lp, tg: T.nn.functional.ctc_loss(lp, tg, 5, T.tensor([3, 2])),
    lambda T, lp, tg: T.nn.functional.ctc_loss(lp, tg, (5, 4), (3, 2), blank=True),
    lambda T, lp, tg: T.nn.functional.ctc_loss(lp, tg, [5, 4], [3, 2], zero_infinity=1),
    lambda T, lp, tg: T.nn.functional.ctc_loss(lp, tg.tolist(), [5, 4], [3, 2]),
], ids=["float list", "mixed", "int", "bool blank", "int flag", "list targets"])
def test_signature_errors_as_torch(call):
    if torch is None:
        pytest.skip("torch not installed")
    msgs = []
    for T in (tp, torch):
        lp = T.tensor(_log_softmax(np.zeros((5, 2, 4))))
        with pytest.raises(TypeError) as e:
            call(T, lp, T.tensor([[1, 2, 2], [3, 1, 0]]))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_toplevel_spelling():
    """``torch.ctc_loss``: an int reduction, 1 the mean, 2 the sum, any other (and
    the default) the losses themselves."""
    from tensorplay.ops.ctc import toplevel_ctc_loss
    lp, tg, il, tl = _case(11, t_max=6, n=3, c=4, s=3)
    args = (tp.tensor(lp), tp.tensor(tg), list(il), list(tl))
    per = F.ctc_loss(*args, reduction="none").numpy()
    assert_close(toplevel_ctc_loss(*args).numpy(), per, atol=0, rtol=0)
    assert_close(toplevel_ctc_loss(*args, 0, 3).numpy(), per, atol=0, rtol=0)
    assert_close(toplevel_ctc_loss(*args, reduction=2).item(), per.sum(), atol=1e-12, rtol=1e-12)
    assert_close(toplevel_ctc_loss(*args, 0, 1).item(), F.ctc_loss(*args).item(), atol=0, rtol=0)
    with pytest.raises(TypeError, match=r"^ctc_loss\(\) received an invalid combination of arguments - got "
                                        r"\(Tensor, Tensor, list, list, reduction=str\), but expected one of:\n"):
        toplevel_ctc_loss(*args, reduction="mean")
    if torch is not None:
        targs = (torch.tensor(lp), torch.tensor(tg), list(il), list(tl))
        for kw in ({}, {"reduction": 1}, {"reduction": 2, "zero_infinity": True}):
            assert_close(toplevel_ctc_loss(*args, **kw).numpy(), torch.ctc_loss(*targs, **kw).numpy(),
                         atol=1e-12, rtol=1e-12)
