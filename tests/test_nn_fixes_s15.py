"""tensorplay.nn against PyTorch 2.13, third review: the missing layers and
functions (AdaptiveLogSoftmaxWithLoss, SyncBatchNorm, CrossMapLRN2d, NLLLoss2d,
LinearCrossEntropyLoss and F.linear_cross_entropy, nn.attention.bias, the
deprecated nn.init.dirac/eye, Module.to_empty and Module.compile, the global
module registration hooks), and fixes: what cross_entropy, attention and
ctc_loss save for the backward (an in-place change of the logits, of the
query/key or of the length tensors after the forward leaves the gradient
right), attention with head_dim 0 and mixed dtypes, and PyTorch's checks and
messages of the margin losses, BCE-with-logits, the RNNs and the RNN cells.

Tests that take the ``T`` fixture run the same code on tensorplay and on torch
(when installed) against expectations; ``needs_torch`` tests compare with torch
directly.  Gradients are also checked with float64 finite differences.
"""
import importlib
import sys
import warnings

import numpy as np
import pytest

import tensorplay as tp

from conftest import torch, detached_np as _np, error_of as _err

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")
pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning:torch"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:torch")]




def _gradcheck(fn, arrays):
    ts = [tp.tensor(a, requires_grad=True) for a in arrays]
    assert tp.autograd.gradcheck(lambda *xs: fn(tp, *xs), ts, eps=1e-6, atol=1e-6, rtol=1e-5)


@pytest.fixture
def bias_module():
    """``nn.attention.bias``, imported on demand as in PyTorch; afterwards the
    package attribute the import made is dropped again (``nn.attention``'s
    public names are PyTorch's, which lists no ``bias`` until it is imported)."""
    import tensorplay.nn.attention as pkg
    had = "bias" in vars(pkg)
    mod = importlib.import_module("tensorplay.nn.attention.bias")
    yield mod
    if not had and "bias" in vars(pkg):
        delattr(pkg, "bias")


# ------------------------------------------------------------------ AdaptiveLogSoftmaxWithLoss
def _asm_pair(head_bias=True):
    torch.manual_seed(3)
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 10, 15], div_value=2.0, head_bias=head_bias).double()
    pm = tp.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 10, 15], div_value=2.0, head_bias=head_bias,
                                          dtype=tp.float64)
    assert list(tm.state_dict()) == list(pm.state_dict())
    result = pm.load_state_dict({k: tp.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    assert not result.missing_keys and not result.unexpected_keys
    return tm, pm


@needs_torch
@pytest.mark.parametrize("head_bias", [False, True])
def test_adaptive_log_softmax_matches_torch_after_loading_its_state_dict(head_bias):
    tm, pm = _asm_pair(head_bias)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((9, 16))
    t = np.array([0, 3, 5, 9, 12, 19, 4, 15, 14])
    tx, px = torch.tensor(x, requires_grad=True), tp.tensor(x, requires_grad=True)
    to, po = tm(tx, torch.tensor(t)), pm(px, tp.tensor(t))
    assert type(po).__name__ == "_ASMoutput" and po._fields == ("output", "loss")
    np.testing.assert_allclose(_np(po.output), _np(to.output), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(po.loss.item(), to.loss.item(), rtol=1e-12)
    (to.output.sum() * 0.5 + to.loss).backward()
    (po.output.sum() * 0.5 + po.loss).backward()
    np.testing.assert_allclose(_np(px.grad), _np(tx.grad), rtol=1e-10, atol=1e-12)
    for (k, a), (k2, b) in zip(tm.named_parameters(), pm.named_parameters()):
        assert k == k2
        np.testing.assert_allclose(_np(b.grad), _np(a.grad), rtol=1e-10, atol=1e-12, err_msg=k)
    np.testing.assert_allclose(_np(pm.log_prob(px)), _np(tm.log_prob(tx)), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(_np(pm.predict(px)), _np(tm.predict(tx)))
    # unbatched: a 0-d target and a 1-d input
    to1, po1 = tm(tx[2], torch.tensor(9)), pm(px[2], tp.tensor(9))
    assert tuple(po1.output.shape) == () and tuple(to1.output.shape) == ()
    np.testing.assert_allclose(po1.output.item(), to1.output.item(), rtol=1e-12)


def test_adaptive_log_softmax_structure_and_torch_free_values():
    m = tp.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, dtype=tp.float64)
    assert m.cutoffs == [3, 6, 10] and m.shortlist_size == 3 and m.n_clusters == 2 and m.head_size == 5
    assert [k for k, _ in m.named_parameters()] == ["head.weight", "tail.0.0.weight", "tail.0.1.weight",
                                                   "tail.1.0.weight", "tail.1.1.weight"]
    assert tuple(m.tail[0][0].weight.shape) == (4, 8) and tuple(m.tail[1][0].weight.shape) == (2, 8)
    x = tp.tensor(np.random.default_rng(1).standard_normal((6, 8)))
    lp = m.log_prob(x)
    np.testing.assert_allclose(_np(lp.exp().sum(1)), np.ones(6), rtol=1e-12)     # a distribution
    t = tp.tensor([0, 2, 3, 5, 6, 9])
    out, loss = m(x, t)
    np.testing.assert_allclose(_np(out), _np(lp)[np.arange(6), _np(t)], rtol=1e-12)
    np.testing.assert_allclose(loss.item(), -_np(out).mean(), rtol=1e-12)
    np.testing.assert_array_equal(_np(m.predict(x)), _np(lp).argmax(1))
    _gradcheck(lambda M, a: m(a, t).loss, [_np(x)])


def test_adaptive_log_softmax_errors(T):
    m = T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0)
    assert _err(lambda: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [])) == (
        "ValueError", "cutoffs should be a sequence of length larger than 0")
    assert _err(lambda: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3]))[0] == "ValueError"
    assert _err(lambda: m(T.zeros(3, 8), T.tensor([0, 1]))) == (
        "RuntimeError", "Input and target should have the same size in the batch dimension.")
    assert _err(lambda: m(T.zeros(2, 8), T.tensor([0, 10]))) == (
        "RuntimeError", "Target values should be in [0, 9], but values in range [0, 10] were found. ")
    assert _err(lambda: m(T.zeros(2, 8), T.zeros(2, 1, dtype=T.long))) == (
        "RuntimeError", "0D or 1D target tensor expected, multi-target not supported")


# ------------------------------------------------------------------ SyncBatchNorm
def test_sync_batch_norm_is_batch_norm_in_one_process(T):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3, 5))
    s, b = T.nn.SyncBatchNorm(3).double(), T.nn.BatchNorm1d(3).double()
    np.testing.assert_allclose(_np(s(T.tensor(x))), _np(b(T.tensor(x))), rtol=1e-12)
    np.testing.assert_allclose(_np(s.running_var), _np(b.running_var), rtol=1e-12)
    assert int(s.num_batches_tracked) == 1
    x4 = rng.standard_normal((2, 3, 2, 2))        # any rank from 2
    assert tuple(s(T.tensor(x4)).shape) == (2, 3, 2, 2)
    s.eval()
    assert tuple(s(T.tensor(x[:, :, 0])).shape) == (4, 3)
    assert _err(lambda: s(T.zeros(3))) == ("ValueError", "expected at least 2D input (got 1D input)")
    assert _err(lambda: T.nn.SyncBatchNorm(0)(T.zeros(2, 0))) == (
        "ValueError", "SyncBatchNorm number of input channels should be non-zero")
    assert list(s.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]


def test_convert_sync_batchnorm(T):
    net = T.nn.Sequential(T.nn.Linear(3, 3), T.nn.BatchNorm1d(3, momentum=0.3), T.nn.Sequential(T.nn.BatchNorm2d(3)))
    bn = net[1]
    out = T.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert out is net
    assert type(net[1]) is T.nn.SyncBatchNorm and type(net[2][0]) is T.nn.SyncBatchNorm
    assert net[1].weight is bn.weight and net[1].running_mean is bn.running_mean
    assert net[1].momentum == 0.3
    single = T.nn.BatchNorm2d(4, affine=False)
    conv = T.nn.SyncBatchNorm.convert_sync_batchnorm(single)
    assert type(conv) is T.nn.SyncBatchNorm and conv is not single and conv.weight is None


# ------------------------------------------------------------------ CrossMapLRN2d
@needs_torch
def test_cross_map_lrn2d_values_match_torch():
    rng = np.random.default_rng(3)
    for size, c in ((3, 6), (4, 5), (5, 2), (1, 3)):
        x = rng.standard_normal((2, c, 3, 2))
        a = tp.nn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=1.5)(tp.tensor(x))
        b = torch.nn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=1.5)(torch.tensor(x))
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12, atol=1e-14)
    assert repr(tp.nn.CrossMapLRN2d(3)) == repr(torch.nn.CrossMapLRN2d(3))


def test_cross_map_lrn2d_by_hand_and_gradcheck(T):
    x = np.random.default_rng(4).standard_normal((1, 5, 2, 2))
    m = T.nn.CrossMapLRN2d(3, alpha=0.3, beta=0.5, k=2.0)
    sq = x ** 2
    # PyTorch's running sum: channels c-1..c+1, and channel 0 always (never taken out)
    windows = [{0, 1}, {0, 1, 2}, {0, 1, 2, 3}, {0, 2, 3, 4}, {0, 3, 4}]
    want = np.stack([x[:, c] * (2.0 + 0.1 * sum(sq[:, j] for j in w)) ** -0.5 for c, w in enumerate(windows)], 1)
    np.testing.assert_allclose(_np(m(T.tensor(x))), want, rtol=1e-12)
    assert _err(lambda: m(T.zeros(2, 3, 4))) == ("ValueError", "CrossMapLRN2d: Expected input to be 4D, got 3D instead.")
    if T is tp:
        _gradcheck(lambda M, a: M.nn.CrossMapLRN2d(3, alpha=0.3, beta=0.5, k=2.0)(a), [x])


# ------------------------------------------------------------------ NLLLoss2d, init.dirac/eye
def test_nll_loss2d_is_deprecated_nll_loss(T):
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead"):
        m = T.nn.NLLLoss2d(ignore_index=1)
    assert isinstance(m, T.nn.NLLLoss) and m.ignore_index == 1
    x = np.log(np.random.default_rng(5).dirichlet(np.ones(3), (2, 2, 2))).transpose(0, 3, 1, 2)
    t = np.array([[[0, 2], [1, 2]], [[2, 0], [0, 1]]])
    got = m(T.tensor(x), T.tensor(t)).item()
    keep = t != 1
    want = -np.take_along_axis(x, t[:, None], 1)[:, 0][keep].mean()
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("old,new,shape", [("eye", "eye_", (3, 4)), ("dirac", "dirac_", (4, 2, 3))])
def test_init_dirac_and_eye_are_deprecated_aliases(T, old, new, shape):
    with pytest.warns(FutureWarning, match=f"^`nn.init.{old}` is now deprecated in favor of `nn.init.{new}`.$"):
        a = getattr(T.nn.init, old)(T.empty(*shape))
    b = getattr(T.nn.init, new)(T.empty(*shape))
    np.testing.assert_array_equal(_np(a), _np(b))
    assert getattr(T.nn.init, old).__name__ == old


# ------------------------------------------------------------------ linear_cross_entropy
_LCE_CASES = [dict(), dict(reduction="sum"), dict(reduction="none"), dict(label_smoothing=0.2),
              dict(ignore_index=2), dict(weight=True), dict(weight=True, label_smoothing=0.1, ignore_index=0)]


def _lce_args(M, case, bias, kdim):
    rng = np.random.default_rng(6)
    x = M.tensor(rng.standard_normal((5, 4)), requires_grad=True)
    wshape = (3, 2, 4) if kdim else (3, 4)
    w = M.tensor(rng.standard_normal(wshape), requires_grad=True)
    b = M.tensor(rng.standard_normal(wshape[:-1]), requires_grad=True) if bias else None
    t = M.tensor(rng.integers(0, 3, (5, 2) if kdim else (5,)))
    kw = dict(case)
    if kw.get("weight"):
        kw["weight"] = M.tensor([0.5, 2.0, 1.5], dtype=M.float64)
    return x, w, b, t, kw


@needs_torch
@pytest.mark.parametrize("case", _LCE_CASES)
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("kdim", [False, True])
def test_linear_cross_entropy_matches_torch(case, bias, kdim):
    res = []
    for M in (tp, torch):
        x, w, b, t, kw = _lce_args(M, case, bias, kdim)
        out = M.nn.functional.linear_cross_entropy(x, w, t, linear_bias=b, **kw)
        g = M.autograd.grad(out.sum(), [x, w] + ([b] if bias else []))
        res.append([_np(out)] + [_np(v) for v in g])
    for a, b_ in zip(*res):
        np.testing.assert_allclose(a, b_, rtol=1e-10, atol=1e-12)


def test_linear_cross_entropy_is_linear_then_cross_entropy():
    for case in _LCE_CASES:
        x, w, b, t, kw = _lce_args(tp, case, True, False)
        got = tp.nn.functional.linear_cross_entropy(x, w, t, linear_bias=b, **kw)
        if kw.get("ignore_index") is None:
            kw["ignore_index"] = -100
        want = tp.nn.functional.cross_entropy(x @ w.T + b, t, **kw)
        np.testing.assert_allclose(_np(got), _np(want), rtol=1e-13)
    x, w, b, t, kw = _lce_args(tp, dict(label_smoothing=0.3), True, True)
    _gradcheck(lambda M, a, c, d: M.nn.functional.linear_cross_entropy(a, c, t, linear_bias=d, **kw),
               [_np(x), _np(w), _np(b)])


def test_linear_cross_entropy_signature_and_errors(T):
    import inspect
    sig = inspect.signature(T.nn.functional.linear_cross_entropy)
    assert list(sig.parameters) == ["input", "linear_weight", "target", "linear_bias", "weight", "reduction",
                                    "ignore_index", "label_smoothing", "options"]
    assert all(sig.parameters[n].kind is inspect.Parameter.KEYWORD_ONLY for n in list(sig.parameters)[3:])
    F = T.nn.functional
    assert _err(lambda: F.linear_cross_entropy(T.zeros(2, 2, 3), T.zeros(4, 3), T.zeros(2, dtype=T.long))) == (
        "RuntimeError", "expected input with dimensionality 1 or 2, got 3")
    assert _err(lambda: F.linear_cross_entropy(T.zeros(2, 3), T.zeros(4, 2), T.zeros(2, dtype=T.long))) == (
        "RuntimeError", "expected equal input and linear_weight last dimensions (in_features), got 3 and 2, "
                        "respectively")
    assert _err(lambda: F.linear_cross_entropy(T.zeros(2, 3), T.zeros(4, 3), T.zeros(2, 4),
                                               ignore_index=1)) == (
        "RuntimeError", "ignore_index cannot be specified when target contains probabilities")
    assert _err(lambda: F.linear_cross_entropy(T.zeros(3), T.zeros(4, 2, 3), T.zeros((), dtype=T.long))) == (
        "RuntimeError", "K-dimensional loss defined by linear_weight shape (4, 2, 3) requires batched input, "
                        "(N, 3), got unbatched input with shape (3,)")


def test_linear_cross_entropy_loss_module(T):
    m = T.nn.LinearCrossEntropyLoss(4, 3, out_features=(2,), bias=True, label_smoothing=0.1)
    assert list(m.state_dict()) == ["linear.weight", "linear.bias"]
    assert tuple(m.linear.weight.shape) == (6, 4) and tuple(m.linear.bias.shape) == (6,)
    x = T.tensor(np.random.default_rng(7).standard_normal((5, 4)))
    m = m.double()
    t = T.tensor(np.random.default_rng(8).integers(0, 3, (5, 2)))
    want = T.nn.functional.cross_entropy(m.linear(x).reshape(5, 3, 2), t, label_smoothing=0.1)
    np.testing.assert_allclose(m(x, t).item(), want.item(), rtol=1e-12)
    assert _err(lambda: T.nn.LinearCrossEntropyLoss(4, 3, weight=T.ones(2))) == (
        "RuntimeError", "expected weight shape to be (3,), got (2,)")
    assert _err(lambda: T.nn.LinearCrossEntropyLoss(4, 3, label_smoothing=1.5)) == (
        "RuntimeError", "expected label_smoothing to be in range [0, 1], got 1.5")


# ------------------------------------------------------------------ nn.attention.bias
@pytest.mark.parametrize("L,S", [(3, 5), (4, 4), (2, 6)])
def test_causal_biases_as_sdpa_masks(T, L, S):
    bias = importlib.import_module(T.__name__ + ".nn.attention.bias")
    try:
        rng = np.random.default_rng(9)
        q, k, v = rng.standard_normal((2, L, 4)), rng.standard_normal((2, S, 4)), rng.standard_normal((2, S, 3))
        F = T.nn.functional
        ul, lr = bias.causal_upper_left(L, S), bias.causal_lower_right(L, S)
        assert isinstance(ul, T.Tensor) and isinstance(ul, bias.CausalBias)
        assert ul.variant is bias.CausalVariant.UPPER_LEFT and lr.variant is bias.CausalVariant.LOWER_RIGHT
        assert (ul.seq_len_q, ul.seq_len_kv) == (L, S)
        m_ul = np.tril(np.ones((L, S), bool))
        m_lr = np.tril(np.ones((L, S), bool), S - L)
        np.testing.assert_array_equal(_np(ul._materialize()), m_ul)
        np.testing.assert_array_equal(_np(lr._materialize()), m_lr)
        for b, m in ((ul, m_ul), (lr, m_lr)):
            got = F.scaled_dot_product_attention(T.tensor(q), T.tensor(k), T.tensor(v), b)
            want = F.scaled_dot_product_attention(T.tensor(q), T.tensor(k), T.tensor(v), attn_mask=T.tensor(m))
            np.testing.assert_allclose(_np(got), _np(want), rtol=1e-12, atol=1e-14)
        assert _err(lambda: F.scaled_dot_product_attention(T.tensor(q), T.tensor(k), T.tensor(v), ul,
                                                           is_causal=True)) == (
            "ValueError", "CausalBias should not be used with causal=True")
        assert _err(lambda: bias.causal_lower_right(2, 3, 4)) == (
            "AssertionError", "causal_lower_right only supports 2D tensors")
        assert repr(ul) == repr(T.tensor(m_ul))
    finally:
        if T is tp and "bias" in vars(tp.nn.attention):
            delattr(tp.nn.attention, "bias")


def test_causal_bias_module_surface(bias_module):
    assert bias_module.__all__ == ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]
    assert int(bias_module.CausalVariant.UPPER_LEFT) == 1 and int(bias_module.CausalVariant.LOWER_RIGHT) == 2
    with pytest.warns(UserWarning, match="Lower right causal bias will produce NaNs"):
        bias_module.causal_lower_right(5, 3)
    with pytest.raises(AssertionError, match="variant must be a CausalVariant, got int"):
        bias_module.CausalBias(1, 2, 2)
    # a causal bias with a gradient: the same as is_causal=True
    rng = np.random.default_rng(10)
    q, k, v = (rng.standard_normal((2, 4, 3)) for _ in range(3))
    _gradcheck(lambda M, a, b, c: M.nn.functional.scaled_dot_product_attention(
        a, b, c, bias_module.causal_lower_right(4, 4)), [q, k, v])


# ------------------------------------------------------------------ Module.to_empty, compile
def test_module_to_empty(T):
    m = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.BatchNorm1d(3))
    w = m[0].weight
    assert m.to_empty(device="cpu") is m
    assert m[0].weight is w and tuple(w.shape) == (3, 2) and w.requires_grad
    assert m[1].num_batches_tracked.dtype == T.int64 and tuple(m[1].running_mean.shape) == (3,)
    sub = T.nn.Sequential(T.nn.Linear(2, 2))
    sub.to_empty(device=T.device("cpu"), recurse=False)
    with pytest.raises(TypeError):
        m.to_empty("cpu")                               # device is keyword-only (and required)


def test_module_compile_runs_in_place_and_returns_none(T):
    m = T.nn.Linear(3, 2).double()
    x = T.tensor(np.random.default_rng(11).standard_normal((4, 3)))
    before = _np(m(x))
    assert m.compile(backend="eager") is None
    np.testing.assert_array_equal(_np(m(x)), before)
    assert list(m.state_dict()) == ["weight", "bias"]
    assert _err(lambda: m.compile(mode="fastest")) == (
        "RuntimeError", "Unrecognized mode=fastest, should be one of: default, lite, reduce-overhead, "
                        "max-autotune-no-cudagraphs, max-autotune")
    if T is tp:         # (torch's compile would compile and run the module here)
        assert _err(lambda: m.compile(mode="default", options={})) == (
            "RuntimeError", "Either mode or options can be specified, but both can't be specified at the same time.")


# ------------------------------------------------------------------ registration hooks
def test_module_registration_hooks(T):
    M = importlib.import_module(T.__name__ + ".nn.modules.module")
    calls = []

    def on_param(mod, name, p):
        calls.append(("p", type(mod).__name__, name, tuple(p.shape)))

    def on_buffer(mod, name, b):
        calls.append(("b", type(mod).__name__, name, None if b is None else tuple(b.shape)))
        if name == "extra":
            return T.ones(2)                      # replaces the value

    def on_module(mod, name, sub):
        calls.append(("m", type(mod).__name__, name, type(sub).__name__))

    hs = [M.register_module_parameter_registration_hook(on_param),
          M.register_module_buffer_registration_hook(on_buffer),
          M.register_module_module_registration_hook(on_module)]
    try:
        lin = T.nn.Linear(2, 1)
        assert calls == [("p", "Linear", "weight", (1, 2)), ("p", "Linear", "bias", (1,))]
        del calls[:]
        lin.register_buffer("extra", T.zeros(5))
        assert tuple(lin.extra.shape) == (2,) and float(lin.extra.sum()) == 2.0
        seq = T.nn.Sequential()
        seq.add_module("a", lin)
        seq.b = T.nn.ReLU()
        lin.register_parameter("none", None)      # (None: no parameter hook)
        assert calls == [("b", "Linear", "extra", (5,)), ("m", "Sequential", "a", "Linear"),
                         ("m", "Sequential", "b", "ReLU")]
    finally:
        for h in hs:
            h.remove()
    del calls[:]
    T.nn.Linear(2, 1)
    assert calls == []


# ------------------------------------------------------------------ saved tensors vs in-place changes
def test_cross_entropy_saves_log_softmax_not_the_logits():
    x = np.random.default_rng(12).standard_normal((3, 4))
    t = tp.tensor([0, 1, 2])
    for ls in (0.0, 0.2):
        ref = tp.tensor(x, requires_grad=True)
        tp.nn.functional.cross_entropy(ref * 1.0, t, label_smoothing=ls).backward()
        a = tp.tensor(x, requires_grad=True)
        z = a * 1.0
        loss = tp.nn.functional.cross_entropy(z, t, label_smoothing=ls)
        with tp.no_grad():
            z.mul_(2)
        loss.backward()
        np.testing.assert_allclose(_np(a.grad), _np(ref.grad), rtol=1e-12)
        _gradcheck(lambda M, v: M.nn.functional.cross_entropy(v, t, label_smoothing=ls), [x])
    a = tp.tensor(x, requires_grad=True)
    node = tp.nn.functional.cross_entropy(a, t).grad_fn
    assert type(node.next_functions[0][0]).__name__ == "LogSoftmaxBackward0"


@needs_torch
@pytest.mark.parametrize("ls", [0.0, 0.3])
@pytest.mark.parametrize("weight", [False, True])
def test_cross_entropy_values_and_grads_match_torch(ls, weight):
    rng = np.random.default_rng(13)
    x = rng.standard_normal((4, 5, 2))
    t = rng.integers(0, 5, (4, 2))
    t[0, 0] = 1
    res = []
    for M in (tp, torch):
        a = M.tensor(x, requires_grad=True)
        w = M.tensor([1.0, 2.0, 0.5, 1.5, 3.0], dtype=M.float64) if weight else None
        out = M.nn.functional.cross_entropy(a, M.tensor(t), weight=w, label_smoothing=ls, ignore_index=1)
        g, = M.autograd.grad(out, a, create_graph=True)
        gg, = M.autograd.grad((g * g).sum(), a)
        res.append((out.item(), _np(g), _np(gg)))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("which", ["q", "k", "mask"])
def test_attention_keeps_its_gradient_when_query_key_or_mask_change(T, which):
    rng = np.random.default_rng(14)
    arrays = [rng.standard_normal((2, 3, 4)) for _ in range(3)] + [rng.standard_normal((3, 3))]

    def run(change):
        ts = [T.tensor(a, requires_grad=True) for a in arrays]
        q, k, v, m = (t * 1.0 for t in ts)
        out = T.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m)
        if change:
            with T.no_grad():
                {"q": q, "k": k, "mask": m}[which].mul_(2)
        (out * T.tensor(arrays[0])).sum().backward()
        return [_np(t.grad) for t in ts]
    for a, b in zip(run(True), run(False)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_attention_value_change_is_still_an_error(T):
    """(v is read by the gradient of the probabilities, so of q and k: saved, as in PyTorch)"""
    q, v = T.randn(2, 3, 4, requires_grad=True), T.randn(2, 3, 4, requires_grad=True)
    vv = v * 1.0
    out = T.nn.functional.scaled_dot_product_attention(q, T.randn(2, 3, 4), vv)
    with T.no_grad():
        vv.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


@pytest.mark.parametrize("scale", [None, 0.7, -0.4, 0.0])
def test_attention_scale_gradcheck(scale):
    rng = np.random.default_rng(15)
    arrays = [rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4)), rng.standard_normal((2, 5, 2))]
    _gradcheck(lambda M, q, k, v: M.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale), arrays)
    q, k, v = (tp.tensor(a) for a in arrays)
    s = 0.5 if scale is None else scale
    scores = np.einsum("bld,bsd->bls", arrays[0], arrays[1]) * s
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    np.testing.assert_allclose(_np(tp.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale)),
                               p @ arrays[2], rtol=1e-12)


def test_attention_with_head_dim_0_is_the_mean_of_v(T):
    rng = np.random.default_rng(16)
    v = rng.standard_normal((2, 5, 2))
    q = T.zeros(2, 3, 0, requires_grad=True, dtype=T.float64)
    k = T.zeros(2, 5, 0, requires_grad=True, dtype=T.float64)
    vt = T.tensor(v, requires_grad=True)
    out = T.nn.functional.scaled_dot_product_attention(q, k, vt)
    np.testing.assert_allclose(_np(out), np.broadcast_to(v.mean(1, keepdims=True), (2, 3, 2)), rtol=1e-12)
    out.sum().backward()
    np.testing.assert_allclose(_np(vt.grad), np.full((2, 5, 2), 0.6), rtol=1e-12)
    assert tuple(q.grad.shape) == (2, 3, 0)


def test_attention_mixed_dtypes(T):
    F = T.nn.functional
    assert _err(lambda: F.scaled_dot_product_attention(T.randn(1, 2, 3), T.randn(1, 2, 3, dtype=T.float64),
                                                       T.randn(1, 2, 3, dtype=T.float64))) == (
        "RuntimeError", "Expected query, key, and value to have the same dtype, but got query.dtype: float "
                        "key.dtype: double and value.dtype: double instead.")
    assert _err(lambda: F.scaled_dot_product_attention(T.randn(1, 2, 3), T.randn(1, 2, 3),
                                                       T.randn(1, 2, 3, dtype=T.float64)))[1].endswith(
        "key.dtype: float and value.dtype: double instead.")


def test_ctc_loss_reads_the_lengths_at_the_call(T):
    rng = np.random.default_rng(17)
    x = rng.standard_normal((5, 2, 4))

    def run(change):
        a = T.tensor(x, requires_grad=True)
        il, tl = T.tensor([5, 4]), T.tensor([2, 2])
        loss = T.nn.functional.ctc_loss(a.log_softmax(-1), T.tensor([[1, 2], [3, 3]]), il, tl)
        if change:
            with T.no_grad():
                il.zero_()
                tl.fill_(1)
        loss.backward()
        return loss.item(), _np(a.grad)
    (l1, g1), (l2, g2) = run(True), run(False)
    assert l1 == l2
    np.testing.assert_allclose(g1, g2, rtol=1e-12)


# ------------------------------------------------------------------ checks and messages
def test_margin_ranking_loss_dimensions(T):
    F = T.nn.functional
    for shapes in (((3, 4), (4,), (4,)), ((4,), (3, 4), (4,)), ((4,), (4,), (3, 4))):
        a, b, t = (T.ones(*s) for s in shapes)
        sizes = ", ".join(f"{n}: torch.Size({list(s)})" for n, s in zip(("input1", "input2", "target"), shapes))
        assert _err(lambda: F.margin_ranking_loss(a, b, t)) == (
            "RuntimeError", f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                            f"{sizes} ")
    x1, x2, y = np.array([0.5, -1.0, 2.0]), np.array([1.0, 0.0, 1.5]), np.array([1.0, -1.0, -1.0])
    got = F.margin_ranking_loss(T.tensor(x1), T.tensor(x2), T.tensor(y), margin=0.2).item()
    np.testing.assert_allclose(got, np.maximum(0, -y * (x1 - x2) + 0.2).mean(), rtol=1e-12)


def test_triplet_margin_loss_checks(T):
    F = T.nn.functional
    a, p = T.randn(3, 4), T.randn(3, 4)
    assert _err(lambda: F.triplet_margin_loss(a, p, T.randn(4))) == (
        "RuntimeError", "The anchor, positive, and negative tensors are expected to have the same number of "
                        "dimensions, but got: anchor 2D, positive 2D, and negative 1D inputs")
    for m in (0.0, -1.0):
        assert _err(lambda: F.triplet_margin_loss(a, p, T.randn(3, 4), margin=m)) == (
            "ValueError", f"margin must be greater than 0, got {m}")
    assert _err(lambda: T.nn.TripletMarginLoss(margin=0.0)) == (
        "ValueError", "TripletMarginLoss: expected margin to be greater than 0, got 0.0 instead")
    assert F.triplet_margin_loss(a, p, T.randn(3, 4), margin=0.5).ndim == 0


def test_bce_with_logits_refuses_an_integer_target(T):
    F = T.nn.functional
    for it, name in ((T.float32, "Float"), (T.float64, "Double")):
        for tt, tname in ((T.int64, "Long"), (T.uint8, "Byte")):
            assert _err(lambda: F.binary_cross_entropy_with_logits(T.tensor([0.3, 0.6], dtype=it),
                                                                   T.tensor([0, 1], dtype=tt))) == (
                "RuntimeError", f"result type {name} can't be cast to the desired output type {tname}")
    out = F.binary_cross_entropy_with_logits(T.tensor([0.3, 0.6]), T.tensor([0.0, 1.0], dtype=T.float64))
    assert out.dtype == T.float64
    x = np.array([0.3, 0.6])
    np.testing.assert_allclose(out.item(), np.mean([np.log1p(np.exp(0.3)), np.log1p(np.exp(-0.6))]), rtol=1e-6)
    assert x.size == 2


def test_rnn_constructor_checks(T):
    assert _err(lambda: T.nn.RNN(0, 4)) == ("ValueError", "input_size must be greater than zero")
    assert _err(lambda: T.nn.LSTM(-1, 4)) == ("ValueError", "input_size must be greater than zero")
    assert _err(lambda: T.nn.GRU(3.0, 4)) == ("TypeError", "input_size should be of type int, got: float")
    for cls in (T.nn.GRU, T.nn.RNN):
        for ps in (2, 0):
            assert _err(lambda: cls(3, 4, proj_size=ps)) == (
                "ValueError", "proj_size argument is only supported for LSTM, not RNN or GRU")
    assert T.nn.LSTM(3, 4, proj_size=2).proj_size == 2


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
def test_rnn_sequence_length_0(T, cls):
    m = getattr(T.nn, cls)(3, 4)
    for x in (T.zeros(0, 2, 3), T.zeros(0, 3)):
        assert _err(lambda: m(x)) == ("RuntimeError", "Expected sequence length to be larger than 0 in RNN")
    mb = getattr(T.nn, cls)(3, 4, batch_first=True)
    assert _err(lambda: mb(T.zeros(2, 0, 3))) == ("RuntimeError", "Expected sequence length to be larger than 0 in RNN")
    assert tuple(mb(T.zeros(2, 1, 3))[0].shape) == (2, 1, 4)


def test_lstm_hidden_state_forms(T):
    m = T.nn.LSTM(3, 4)
    x = T.zeros(2, 2, 3)
    assert _err(lambda: m(x, T.zeros(1, 2, 4))) == ("IndexError", "index 1 is out of bounds for dimension 0 with size 1")
    assert _err(lambda: m(x, T.zeros(2, 2, 4))) == (
        "RuntimeError", "For batched 3-D input, hx and cx should also be 3-D but got (2-D, 2-D) tensors")
    assert _err(lambda: m(x, (T.zeros(1, 4), T.zeros(1, 4)))) == (
        "RuntimeError", "For batched 3-D input, hx and cx should also be 3-D but got (2-D, 2-D) tensors")
    assert _err(lambda: m(x, (T.zeros(1, 2, 4), T.zeros(1, 4)))) == (
        "RuntimeError", "For batched 3-D input, hx and cx should also be 3-D but got (3-D, 2-D) tensors")
    assert _err(lambda: m(T.zeros(2, 3), (T.zeros(1, 4), T.zeros(1, 2, 4)))) == (
        "RuntimeError", "For unbatched 2-D input, hx and cx should also be 2-D but got (2-D, 3-D) tensors")
    assert _err(lambda: m(x, [T.zeros(1, 2, 4)]))[0] == "IndexError"
    # a stacked (2, 1, 2, 4) tensor passes the checks (h and c are its [0] and [1]), then
    # PyTorch's kernel refuses a tensor for its tuple
    h = T.zeros(2, 1, 2, 4)
    err = _err(lambda: m(x, h))
    assert err[0] == "TypeError" and err[1].startswith("lstm() received an invalid combination of arguments")
    assert tuple(m(x, (h[0], h[1]))[0].shape) == (2, 2, 4)
    hu = T.tensor(np.random.default_rng(18).standard_normal((2, 1, 4)), dtype=T.float32)
    xu = T.tensor(np.random.default_rng(19).standard_normal((2, 3)), dtype=T.float32)
    out, (hn, cn) = m(xu, hu)          # unbatched: the pair is hu[0], hu[1]
    np.testing.assert_array_equal(_np(out), _np(m(xu, (hu[0], hu[1]))[0]))
    assert tuple(hn.shape) == (1, 4)


def test_rnn_cells_with_unbatched_input_and_2d_state(T):
    def msg(k, got):
        return ("RuntimeError", f"hidden{k} has inconsistent hidden_size: got {got}, expected 4")
    assert _err(lambda: T.nn.GRUCell(3, 4)(T.zeros(3), T.zeros(1, 4))) == msg(0, 1)
    assert _err(lambda: T.nn.RNNCell(3, 4)(T.zeros(3), T.zeros(1, 4))) == msg(0, 1)
    assert _err(lambda: T.nn.GRUCell(3, 4)(T.zeros(3), T.zeros(2, 4))) == msg(0, 2)
    assert _err(lambda: T.nn.LSTMCell(3, 4)(T.zeros(3), (T.zeros(1, 4), T.zeros(1, 4)))) == msg(0, 1)
    assert _err(lambda: T.nn.LSTMCell(3, 4)(T.zeros(3), (T.zeros(4), T.zeros(2, 4)))) == msg(1, 2)
    assert _err(lambda: T.nn.GRUCell(3, 4)(T.zeros(2, 3), T.zeros(3, 5))) == (
        "RuntimeError", "Input batch size 2 doesn't match hidden0 batch size 3")
    assert _err(lambda: T.nn.LSTMCell(3, 4)(T.zeros(2, 3), (T.zeros(2, 4), T.zeros(4)))) == (
        "RuntimeError", "Input batch size 2 doesn't match hidden1 batch size 4")
    assert tuple(T.nn.GRUCell(3, 4)(T.zeros(3), T.zeros(4)).shape) == (4,)
    assert tuple(T.nn.GRUCell(3, 4)(T.zeros(3)).shape) == (4,)


def test_new_names_are_in_all():
    for name in ("AdaptiveLogSoftmaxWithLoss", "SyncBatchNorm", "CrossMapLRN2d", "NLLLoss2d",
                 "LinearCrossEntropyLoss"):
        assert name in tp.nn.__all__ and name in tp.nn.modules.__all__
    assert "linear_cross_entropy" in tp.nn.functional.__all__
    assert {"eye", "dirac"} <= set(tp.nn.init.__all__)
    mm = sys.modules["tensorplay.nn.modules.module"]
    for n in ("register_module_buffer_registration_hook", "register_module_module_registration_hook",
              "register_module_parameter_registration_hook"):
        assert n in mm.__all__ and callable(getattr(mm, n))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tp.nn.SyncBatchNorm(2)
