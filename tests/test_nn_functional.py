"""``nn.functional`` against ``torch.nn.functional``: the losses (every option),
the activations (at their kinks too), attention, and the helpers (one_hot,
normalize, dropout, distances, ...), values and gradients in float64 and
float32; gradcheck in float64 for the compositions (runs without torch)."""
import math
import re

import numpy as np
import pytest

import tensorplay as tp

from conftest import assert_close, torch
from test_nn_layers import DTYPES, TOL, randn, rng

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def _tensors(T, arrays, grad):
    out = []
    for i, a in enumerate(arrays):
        t = T.tensor(a)
        if i in grad and a.dtype.kind == "f":
            t.requires_grad_(True)
        out.append(t)
    return out


def fcompare(fn, arrays, grad=(0,), dtype="float64", seed=0, tol=None):
    """``fn(T, *tensors)`` on both libraries: values, then the gradients of a
    random weighting of the outputs w.r.t. the inputs listed in ``grad``."""
    atol, rtol = tol or TOL[dtype]
    arrays = [a.astype(dtype) if a.dtype.kind == "f" else a for a in arrays]
    xs, txs = _tensors(tp, arrays, grad), _tensors(torch, arrays, grad)
    out, tout = fn(tp, *xs), fn(torch, *txs)
    outs = list(out) if isinstance(out, tuple) else [out]
    touts = list(tout) if isinstance(tout, tuple) else [tout]
    assert [o is None for o in outs] == [o is None for o in touts]
    outs, touts = [o for o in outs if o is not None], [o for o in touts if o is not None]
    for a, b in zip(outs, touts):
        assert tuple(a.shape) == tuple(b.shape) and a.dtype.name == str(b.dtype).split(".")[-1]
        assert_close(a.detach().numpy(), b.detach().numpy(), atol, rtol)
    pairs = [(a, b) for a, b in zip(outs, touts) if b.requires_grad]
    assert all(a.requires_grad for a, _ in pairs)
    if not pairs:
        return
    g = rng(seed + 7)
    ws = [g.standard_normal(tuple(b.shape)).astype(dtype) for _, b in pairs]
    ins = [x for x in xs if x.requires_grad]
    tins = [x for x in txs if x.requires_grad]
    gs = tp.autograd.grad([a for a, _ in pairs], ins, [tp.tensor(w) for w in ws], allow_unused=True)
    tgs = torch.autograd.grad([b for _, b in pairs], tins, [torch.tensor(w) for w in ws], allow_unused=True)
    for a, b in zip(gs, tgs):
        if b is None:
            assert a is None or not a.numpy().any()
        else:
            assert_close(a.numpy(), b.numpy(), atol, rtol, msg="grad")


def F(T):
    return T.nn.functional


X = randn(1, 4, 5)
Y = randn(2, 4, 5)
W45 = rng(3).uniform(0.2, 2, (4, 5))
P = rng(4).uniform(0.05, 0.95, (4, 5))
T01 = rng(5).uniform(0, 1, (4, 5))
SIGNS = np.where(rng(6).random(4) > 0.5, 1.0, -1.0)
MM_TARGET = [4, 0, 2, 2]                    # classes of X's 4 rows (5 classes)
ML_TARGET = [[3, 0, -1, 1, 2], [1, 1, -1, 0, 0], [2, 4, 3, 0, 1], [-1, 2, 0, 0, 0]]   # up to the first -1


# ----------------------------------------------------------------- regression losses
REG = [
    ("mse", lambda T, x, y, **k: F(T).mse_loss(x, y, **k), {}),
    ("mse_sum", lambda T, x, y, **k: F(T).mse_loss(x, y, reduction="sum"), {}),
    ("mse_none", lambda T, x, y, **k: F(T).mse_loss(x, y, reduction="none"), {}),
    ("mse_weight", lambda T, x, y: F(T).mse_loss(x, y, weight=T.tensor(W45).to(x.dtype)), {}),
    ("l1", lambda T, x, y: F(T).l1_loss(x, y), {}),
    ("l1_weight_sum", lambda T, x, y: F(T).l1_loss(x, y, reduction="sum", weight=T.tensor(W45).to(x.dtype)),
     {}),
    ("smooth_l1", lambda T, x, y: F(T).smooth_l1_loss(x, y), {}),
    ("smooth_l1_beta", lambda T, x, y: F(T).smooth_l1_loss(x, y, reduction="none", beta=0.3), {}),
    ("smooth_l1_beta0", lambda T, x, y: F(T).smooth_l1_loss(x, y, beta=0.0), {}),
    ("huber", lambda T, x, y: F(T).huber_loss(x, y), {}),
    ("huber_delta", lambda T, x, y: F(T).huber_loss(x, y, reduction="sum", delta=0.4), {}),
    ("huber_weight", lambda T, x, y: F(T).huber_loss(x, y, weight=T.tensor(W45).to(x.dtype)), {}),
]


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,fn,kw", REG, ids=[r[0] for r in REG])
def test_regression_losses_match_torch(name, fn, kw, dtype):
    fcompare(fn, [X, Y], grad=(0, 1), dtype=dtype)


@pytest.mark.parametrize("name,fn,kw", REG, ids=[r[0] for r in REG])
def test_regression_losses_gradcheck(name, fn, kw):
    xs = [tp.tensor(X, requires_grad=True), tp.tensor(Y, requires_grad=True)]
    assert tp.autograd.gradcheck(lambda x, y: fn(tp, x, y), xs)
    assert tp.autograd.gradgradcheck(lambda x, y: fn(tp, x, y), xs)


# ----------------------------------------------------------------- classification losses
CLS = [
    ("ce_probs", lambda T, x, t: F(T).cross_entropy(x, t.softmax(1)), [X, Y], (0, 1)),
    ("ce_probs_smooth_weight", lambda T, x, t: F(T).cross_entropy(
        x, t.softmax(1), weight=T.tensor(W45[0]).to(x.dtype), label_smoothing=0.2, reduction="none"),
     [X, Y], (0, 1)),
    ("ce_probs_sum", lambda T, x, t: F(T).cross_entropy(x, t.softmax(1), reduction="sum"), [X, Y], (0, 1)),
    ("ce_module", lambda T, x: T.nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=2)(
        x, T.tensor([0, 2, 4, 1])), [X], (0,)),
    ("nll_module", lambda T, x: T.nn.NLLLoss(weight=T.tensor(W45[1]).to(x.dtype), reduction="sum")(
        x.log_softmax(1), T.tensor([0, 2, 4, 1])), [X], (0,)),
    ("bce", lambda T, x, y: F(T).binary_cross_entropy(x, y), [P, T01], (0, 1)),
    ("bce_module", lambda T, x, y: T.nn.BCELoss(weight=T.tensor(W45).to(x.dtype), reduction="none")(x, y),
     [P, T01], (0, 1)),
    ("bce_logits", lambda T, x, y: F(T).binary_cross_entropy_with_logits(x, y), [X, T01], (0, 1)),
    ("bce_logits_pos_weight", lambda T, x, y, pw: F(T).binary_cross_entropy_with_logits(
        x, y, pos_weight=pw, reduction="sum"), [X, T01, W45[0]], (0, 1)),
    ("bce_logits_module", lambda T, x, y: T.nn.BCEWithLogitsLoss(
        weight=T.tensor(W45).to(x.dtype), pos_weight=T.tensor(W45[2]).to(x.dtype))(x, y), [X * 30, T01], (0, 1)),
    ("kl_div_batchmean", lambda T, x, t: F(T).kl_div(x.log_softmax(1), t.softmax(1), reduction="batchmean"),
     [X, Y], (0, 1)),
    ("kl_div_log_target", lambda T, x, t: F(T).kl_div(x, t, reduction="sum", log_target=True), [X, Y], (0, 1)),
    ("kl_div_module_none", lambda T, x, t: T.nn.KLDivLoss(reduction="none")(x, t), [X, T01], (0, 1)),
    ("poisson_nll", lambda T, x, t: F(T).poisson_nll_loss(x, t), [X, T01 * 3], (0, 1)),
    ("poisson_nll_full", lambda T, x, t: F(T).poisson_nll_loss(x, t, log_input=False, full=True),
     [P, T01 * 3], (0,)),
    ("gaussian_nll", lambda T, x, t, v: F(T).gaussian_nll_loss(x, t, v, full=True), [X, Y, W45], (0, 1, 2)),
    ("hinge", lambda T, x: F(T).hinge_embedding_loss(x, T.tensor(np.sign(Y)).to(x.dtype), margin=0.5),
     [X], (0,)),
    ("margin_ranking", lambda T, a, b: F(T).margin_ranking_loss(a, b, T.tensor(SIGNS).to(a.dtype), 0.2),
     [X[:, 0], Y[:, 0]], (0, 1)),
    ("soft_margin", lambda T, x: F(T).soft_margin_loss(x, T.tensor(np.sign(Y)).to(x.dtype)), [X], (0,)),
    ("multilabel_soft_margin", lambda T, x, y: F(T).multilabel_soft_margin_loss(x, y), [X, T01], (0,)),
    ("cosine_embedding", lambda T, a, b: F(T).cosine_embedding_loss(a, b, T.tensor(SIGNS).to(a.dtype), 0.1),
     [X, Y], (0, 1)),
    ("triplet", lambda T, a, p, n: F(T).triplet_margin_loss(a, p, n, swap=True), [X, Y, randn(9, 4, 5)],
     (0, 1, 2)),
    ("multi_margin", lambda T, x: F(T).multi_margin_loss(x, T.tensor(MM_TARGET)), [X], (0,)),
    ("multi_margin_p2_weight_sum", lambda T, x, w: F(T).multi_margin_loss(
        x, T.tensor(MM_TARGET), p=2, margin=0.7, weight=w, reduction="sum"), [X, W45[0]], (0,)),
    ("multi_margin_module_none", lambda T, x: T.nn.MultiMarginLoss(margin=2.0, reduction="none")(
        x, T.tensor(MM_TARGET)), [X], (0,)),
    ("multi_margin_vector", lambda T, x: F(T).multi_margin_loss(x[1], T.tensor(2)), [X], (0,)),
    ("multilabel_margin", lambda T, x: F(T).multilabel_margin_loss(x, T.tensor(ML_TARGET)), [X], (0,)),
    ("multilabel_margin_module_none", lambda T, x: T.nn.MultiLabelMarginLoss(reduction="none")(
        x * 0.3, T.tensor(ML_TARGET)), [X], (0,)),
]


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,fn,arrays,grad", CLS, ids=[c[0] for c in CLS])
def test_classification_losses_match_torch(name, fn, arrays, grad, dtype):
    fcompare(fn, arrays, grad, dtype)


@pytest.mark.parametrize("name,fn,arrays,grad", CLS, ids=[c[0] for c in CLS])
def test_classification_losses_gradcheck(name, fn, arrays, grad):
    xs = _tensors(tp, arrays, grad)
    assert tp.autograd.gradcheck(lambda *a: fn(tp, *a), xs)


def test_class_losses_refuse_input_dtypes_first(T):
    # PyTorch's kernels refuse the input's dtype before looking at the target
    # (cross_entropy of an int32 3-d or a complex input computed before)
    for x, t, ce, nll in ((T.tensor([[1, 2], [3, 4]]), T.tensor([0, 5]), "log_softmax_lastdim_kernel_impl\" "
                           "not implemented for 'Long'", "nll_loss_out_frame\" not implemented for 'Long'"),
                          (T.ones(2, 3, 2, dtype=T.int32), T.zeros(2, 2, dtype=T.long),
                           "log_softmax_kernel_impl\" not implemented for 'Int'",
                           "nll_loss2d_forward_out_frame\" not implemented for 'Int'"),
                          (T.tensor([[True, False]]), T.tensor([0]),
                           "log_softmax_lastdim_kernel_impl\" not implemented for 'Bool'",
                           "nll_loss_out_frame\" not implemented for 'Bool'"),
                          (T.ones(2, 3, dtype=T.complex64), T.zeros(2, dtype=T.long),
                           "log_softmax_lastdim_kernel_impl\" not implemented for 'ComplexFloat'",
                           "nll_loss_out_frame\" not implemented for 'ComplexFloat'")):
        with pytest.raises(NotImplementedError, match='^"' + ce + "$"):
            F(T).cross_entropy(x, t)
        with pytest.raises(NotImplementedError, match='^"' + nll + "$"):
            F(T).nll_loss(x, t)
    # an ignored target's loss is +0 (not -x * 0)
    loss = F(T).nll_loss(T.tensor([[0.5, 1.0], [2.0, 3.0]]), T.tensor([-100, 1]), reduction="none")
    assert not np.signbit(loss.detach().numpy()[0]) and loss[1].item() == -3.0


def test_margin_losses_under_vmap(T):
    # (the range checks read values: skipped on a batched target, as they must be)
    x = T.tensor([[0.1, 0.5, -0.3], [1.0, 0.2, 0.4], [0.3, 0.3, 0.9], [-1.0, 0.0, 1.0]])
    mm = T.func.vmap(lambda a, t: F(T).multi_margin_loss(a, t))(x, T.tensor([0, 1, 2, 0]))
    assert_close(mm.numpy(), np.array([2 / 3, 1.0, 0.8 / 3, 5 / 3]), atol=1e-6)
    ml = T.func.vmap(lambda a, t: F(T).multilabel_margin_loss(a, t))(
        x, T.tensor([[0, -1, 1], [2, 1, -1], [0, 0, 0], [-1, 0, 0]]))
    assert_close(ml.numpy(), np.array([2 / 3, 3.4 / 3, 7.8 / 3, 0.0]), atol=1e-6)


def test_margin_loss_argument_checks(T):
    x = T.zeros(3, 4)
    for f, exc, msg in (
            (lambda: F(T).multi_margin_loss(x, T.tensor([3, 4, 0])), RuntimeError, "target out of range"),
            (lambda: F(T).multi_margin_loss(x, T.tensor([0, 1, 2]), p=3), ValueError,
             "only p == 1 and p == 2 supported"),
            (lambda: F(T).multi_margin_loss(x, T.tensor([0.0, 1.0, 2.0])), RuntimeError,
             "expected scalar type Long but found Float"),
            (lambda: F(T).multi_margin_loss(x, T.tensor([0])), RuntimeError,
             r"multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples "
             r"\(batch size\)\. Expected target size \[3\], but got \[1\]\. Input has shape \[3, 4\]\."),
            (lambda: F(T).multi_margin_loss(x, T.tensor([0, 1, 2]), weight=T.ones(3)), RuntimeError,
             r"inconsistent weight size, expected 4 but got \[3\]"),
            (lambda: F(T).multi_margin_loss(x.int(), T.tensor([0, 1, 2])), NotImplementedError,
             "\"multi_margin_loss_cpu_kernel\" not implemented for 'Int'"),
            (lambda: F(T).multi_margin_loss(T.zeros(2, 3, 4), T.tensor([0, 1])), RuntimeError,
             r"Expected non-empty vector or matrix with optional 0-dim batch size, but got: \[2, 3, 4\]"),
            (lambda: F(T).multilabel_margin_loss(x, T.tensor([[3, 5, -1, 0]] * 3)), RuntimeError,
             "argument #2 'target' is out of range"),
            (lambda: F(T).multilabel_margin_loss(x, T.tensor([[3, -1, 9, 0]] * 3)), RuntimeError,
             "argument #2 'target' is out of range"),
            (lambda: F(T).multilabel_margin_loss(x, T.tensor([[3, -2, 1, 0]] * 3)), RuntimeError,
             "argument #2 'target' is out of range"),
            (lambda: F(T).multilabel_margin_loss(x, T.tensor([[3], [0], [1]])), RuntimeError,
             r"inconsistent target size: \[3, 1\] for input of size: \[3, 4\]")):
        with pytest.raises(exc, match="^" + msg + "$"):
            f()
    # (an index after the first -1 is no target)
    assert F(T).multilabel_margin_loss(x, T.tensor([[0, -1, 3, 3]] * 3)).item() == 0.75


def test_loss_argument_checks(T):
    x = T.zeros(3, 4)
    with pytest.raises(ValueError, match="^foo is not a valid value for reduction$"):
        F(T).mse_loss(x, x, reduction="foo")
    with pytest.raises(ValueError, match="^Using a target size"):
        F(T).binary_cross_entropy(T.rand(3), T.rand(3, 1))
    with pytest.raises(ValueError, match=r"^Target size \((torch|tensorplay)\.Size\(\[3\]\)\) must be the same"):
        F(T).binary_cross_entropy_with_logits(T.rand(3, 1), T.rand(3))
    with pytest.raises(RuntimeError, match="^ignore_index is not supported for floating point target$"):
        F(T).cross_entropy(x, T.rand(3, 4), ignore_index=1)
    with pytest.raises(RuntimeError, match="^Expected floating point type for target with class "
                                           "probabilities, got Long$"):
        F(T).cross_entropy(T.tensor(1.0), T.tensor(0))
    with pytest.raises(RuntimeError, match="^The function 'nll_loss_forward' is not differentiable"):
        F(T).cross_entropy(x, T.tensor([0, 1, 2]), weight=T.ones(4, requires_grad=True))
    with pytest.warns(UserWarning, match="that is different to the input size"):
        F(T).mse_loss(x, T.zeros(3, 1))
    with pytest.warns(UserWarning, match="^size_average and reduce args will be deprecated, please use "
                                         "reduction='sum' instead.$"):
        F(T).l1_loss(x, x, size_average=False)
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        F(T).kl_div(x, x)


@needs_torch
def test_cross_entropy_nan_and_zero_cases():
    """All targets ignored: NaN for the mean, 0 for the sum, as PyTorch; the
    gradient is then zero (sum) or NaN-free for rows not ignored."""
    x = randn(0, 3, 4)
    for red in ("mean", "sum", "none"):
        fcompare(lambda T, x: F(T).cross_entropy(x, T.tensor([-100, -100, -100]), reduction=red), [x], (0,))
    fcompare(lambda T, x: F(T).cross_entropy(x, T.tensor([1, -100, 3]), label_smoothing=0.5), [x], (0,))
    big = randn(1, 3, 4) * 1e3                                  # no overflow in the log-sum-exp
    fcompare(lambda T, x: F(T).cross_entropy(x, T.tensor([0, 1, 2])), [big], (0,), dtype="float32")


# ----------------------------------------------------------------- activations, at the kinks too
KINKS = np.array([[-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0], [-6.0, -0.1, 0.1, 2.0, -2.5, 0.3, 5.9, 7.0]])
ACT = [
    ("relu", lambda T, x: F(T).relu(x)), ("relu6", lambda T, x: F(T).relu6(x)),
    ("leaky_relu", lambda T, x: F(T).leaky_relu(x, 0.1)), ("elu", lambda T, x: F(T).elu(x, 0.7)),
    ("selu", lambda T, x: F(T).selu(x)), ("celu", lambda T, x: F(T).celu(x, 1.3)),
    ("hardtanh", lambda T, x: F(T).hardtanh(x, -1.0, 1.0)), ("hardswish", lambda T, x: F(T).hardswish(x)),
    ("hardsigmoid", lambda T, x: F(T).hardsigmoid(x)), ("threshold", lambda T, x: F(T).threshold(x, 0.5, -1.0)),
    ("softshrink", lambda T, x: F(T).softshrink(x, 0.5)), ("hardshrink", lambda T, x: F(T).hardshrink(x, 0.5)),
    ("gelu", lambda T, x: F(T).gelu(x)), ("gelu_tanh", lambda T, x: F(T).gelu(x, approximate="tanh")),
    ("silu", lambda T, x: F(T).silu(x)), ("mish", lambda T, x: F(T).mish(x)),
    ("softplus", lambda T, x: F(T).softplus(x, 2.0, 3.0)), ("logsigmoid", lambda T, x: F(T).logsigmoid(x)),
    ("softsign", lambda T, x: F(T).softsign(x)), ("tanhshrink", lambda T, x: F(T).tanhshrink(x)),
    ("softmin", lambda T, x: F(T).softmin(x, 1)), ("glu", lambda T, x: F(T).glu(x, 1)),
    ("prelu", lambda T, x: F(T).prelu(x, T.linspace(-0.3, 0.4, x.shape[1], dtype=x.dtype))),
    ("prelu_shared", lambda T, x: F(T).prelu(x, T.tensor([0.3], dtype=x.dtype))),
    ("sigmoid", lambda T, x: F(T).sigmoid(x)), ("tanh", lambda T, x: F(T).tanh(x)),
]


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,fn", ACT, ids=[a[0] for a in ACT])
def test_activations_match_torch_including_kinks(name, fn, dtype):
    # torch's float64 backward rounds 1/6 (hardsigmoid) and 1/alpha (celu) to single precision
    tol = (1e-10, 1e-6) if name in ("hardsigmoid", "celu") and dtype == "float64" else None
    fcompare(fn, [KINKS], (0,), dtype, tol=tol)
    fcompare(fn, [randn(5, 3, 4, 6)], (0,), dtype, tol=tol)


@needs_torch
@pytest.mark.parametrize("name,args", [("relu_", ()), ("elu_", (0.5,)), ("leaky_relu_", (0.2,)),
                                       ("hardtanh_", (-0.5, 0.5)), ("threshold_", (0.1, 2.0)),
                                       ("celu_", (1.5,)), ("selu_", ()), ("rrelu_", ())])
def test_inplace_functional_forms_match_torch(name, args):
    def f(T, x):
        y = x * 1
        out = getattr(F(T), name)(y, *args)
        assert out is y
        return out
    fcompare(f, [KINKS], (0,))


@needs_torch
@pytest.mark.parametrize("name", ["hardsigmoid", "hardswish", "silu", "mish", "relu6", "elu", "selu", "celu",
                                  "leaky_relu", "hardtanh", "relu"])
def test_inplace_flag_matches_torch(name):
    def f(T, x):
        y = x * 1
        out = getattr(F(T), name)(y, inplace=True)
        assert out is y
        return out
    tol = (1e-10, 1e-6) if name in ("hardsigmoid", "celu") else None
    fcompare(f, [KINKS], (0,), tol=tol)


@pytest.mark.parametrize("name,fn", ACT, ids=[a[0] for a in ACT])
def test_activations_gradcheck(name, fn):
    x = tp.tensor(randn(6, 3, 4, 6), requires_grad=True)
    assert tp.autograd.gradcheck(lambda x: fn(tp, x), [x])
    assert tp.autograd.gradgradcheck(lambda x: fn(tp, x), [x])


# ----------------------------------------------------------------- attention
def _sdpa(mask=None, **kw):
    def f(T, q, k, v):
        m = None if mask is None else T.tensor(mask)
        if m is not None and m.is_floating_point():
            m = m.to(q.dtype)
        return F(T).scaled_dot_product_attention(q, k, v, attn_mask=m, **kw)
    return f


BOOL = rng(8).random((3, 5)) > 0.3
BOOL_DEAD = BOOL.copy()
BOOL_DEAD[1] = False
SDPA = [("plain", _sdpa()), ("scale", _sdpa(scale=0.3)), ("bool", _sdpa(BOOL)),
        ("bool_dead_row", _sdpa(BOOL_DEAD)), ("float", _sdpa(randn(9, 2, 1, 3, 5))),
        ("causal", _sdpa(is_causal=True))]


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,fn", SDPA, ids=[s[0] for s in SDPA])
def test_scaled_dot_product_attention_matches_torch(name, fn, dtype):
    q, k, v = randn(1, 2, 2, 3, 4), randn(2, 2, 2, 5, 4), randn(3, 2, 2, 5, 6)
    fcompare(fn, [q, k, v], (0, 1, 2), dtype)


@needs_torch
def test_sdpa_grouped_query_attention_matches_torch():
    q, k, v = randn(1, 2, 4, 3, 4), randn(2, 2, 2, 5, 4), randn(3, 2, 2, 5, 4)
    fcompare(lambda T, q, k, v: F(T).scaled_dot_product_attention(q, k, v, enable_gqa=True), [q, k, v],
             (0, 1, 2))


def test_sdpa_gradcheck_and_dropout():
    q, k, v = (tp.tensor(randn(i, 2, 3, 4), requires_grad=True) for i in range(3))
    mask = tp.tensor(BOOL_DEAD[:, :3])
    f = lambda q, k, v: tp.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # noqa: E731
    assert tp.autograd.gradcheck(f, [q, k, v])
    assert not f(q, k, v)[:, 1].detach().numpy().any()         # the fully masked row gives zeros
    tp.manual_seed(0)
    a = tp.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.5).detach().numpy()
    assert not np.allclose(a, f(q, k, v).detach().numpy())


@needs_torch
@pytest.mark.parametrize("kw", [{}, {"need_weights": False}, {"mask": True}])
def test_multi_head_attention_forward_matches_torch(kw):
    E, H = 6, 3
    w_in, b_in, w_out, b_out = randn(1, 3 * E, E), randn(2, 3 * E), randn(3, E, E), randn(4, E)
    mask = np.triu(np.ones((4, 5), bool), 2) if kw.get("mask") else None

    def f(T, q, k, v, wi, bi, wo, bo):
        return F(T).multi_head_attention_forward(
            q, k, v, E, H, wi, bi, None, None, False, 0.0, wo, bo,
            need_weights=kw.get("need_weights", True), attn_mask=None if mask is None else T.tensor(mask))
    fcompare(f, [randn(5, 4, 2, E), randn(6, 5, 2, E), randn(7, 5, 2, E), w_in, b_in, w_out, b_out],
             tuple(range(7)))


# ----------------------------------------------------------------- helpers
@needs_torch
def test_one_hot_normalize_distances_embedding_match_torch():
    idx = np.array([[0, 3], [2, 2]])
    assert F(tp).one_hot(tp.tensor(idx)).tolist() == F(torch).one_hot(torch.tensor(idx)).tolist()
    assert F(tp).one_hot(tp.tensor(idx), 6).dtype == tp.int64
    for p, dim in ((2.0, 1), (1.0, 0), (3.0, -1)):
        fcompare(lambda T, x: F(T).normalize(x, p, dim), [X], (0,))
    fcompare(lambda T, x: F(T).normalize(x * 0), [X], (0,))             # eps keeps zeros finite
    fcompare(lambda T, a, b: F(T).cosine_similarity(a, b), [X, Y], (0, 1))
    fcompare(lambda T, a, b: F(T).pairwise_distance(a, b, 1.5, keepdim=True), [X, Y], (0, 1))
    fcompare(lambda T, w: F(T).embedding(T.tensor(idx), w, padding_idx=2), [randn(3, 4, 3)], (0,))
    fcompare(lambda T, x, w, b: F(T).layer_norm(x, (5,), w, b, 1e-3), [X, W45[0], Y[0]], (0, 1, 2))
    fcompare(lambda T, x: F(T).rms_norm(x, [5]), [X], (0,))
    fcompare(lambda T, a, b, w, bias: F(T).bilinear(a, b, w, bias), [X, Y[:, :3], randn(4, 2, 5, 3), randn(5, 2)],
             (0, 1, 2, 3))


def test_one_hot_errors(T):
    with pytest.raises(RuntimeError, match="^Class values must be smaller than num_classes.$"):
        F(T).one_hot(T.tensor([0, 3]), 3)
    with pytest.raises(RuntimeError, match="^one_hot is only applicable to index tensor"):
        F(T).one_hot(T.tensor([0.0]))
    q = T.zeros(2, 3, 4)
    with pytest.raises(RuntimeError, match=r"^Expected attn_mask dtype to be bool or float or to match "
                                           r"query dtype, but got attn_mask.dtype: double and  query.dtype: "
                                           r"float instead.$"):
        F(T).scaled_dot_product_attention(q, q, q, attn_mask=T.zeros(3, 3, dtype=T.float64))


@needs_torch
def test_functional_batch_norm_updates_running_stats_in_place():
    x = randn(0, 6, 3, 2)
    rm, rv = np.zeros(3), np.ones(3)
    a = [tp.tensor(rm), tp.tensor(rv)]
    b = [torch.tensor(rm), torch.tensor(rv)]
    fcompare(lambda T, x: F(T).batch_norm(x, *(a if T is tp else b), training=True, momentum=0.2), [x], (0,))
    for u, w in zip(a, b):
        assert_close(u.numpy(), w.numpy(), 1e-12, 1e-10)
    fcompare(lambda T, x, w, bias: F(T).batch_norm(x, *(a if T is tp else b), w, bias), [x, W45[0, :3],
                                                                                          Y[0, :3]], (0, 1, 2))


def test_functional_dropout_training_flag():
    x = tp.ones(1000)
    assert F(tp).dropout(x, 0.5, training=False) is x
    tp.manual_seed(0)
    kept = (F(tp).dropout(x, 0.25).numpy() != 0).mean()
    assert abs(kept - 0.75) < 0.05
    with pytest.raises(ValueError, match="^dropout probability has to be between 0 and 1, but got -0.1$"):
        F(tp).dropout(x, -0.1)
    z = F(tp).alpha_dropout(tp.randn(20000), 0.2, training=True).numpy()    # keeps mean 0, variance 1
    assert math.isclose(z.mean(), 0.0, abs_tol=0.05) and math.isclose(z.std(), 1.0, abs_tol=0.05)


@pytest.mark.parametrize("case", range(7))
def test_class_target_checks(T, case):
    x = T.randn(3, 4)
    calls = [
        (lambda: F(T).nll_loss(T.tensor(1.0), T.tensor(0)), ValueError, "Expected 1 or more dimensions (got 0)"),
        (lambda: F(T).nll_loss(T.randn(4), T.tensor([1, 2])), ValueError,
         "For 1D input, 1D target must have size 1, but got target size: 2"),
        (lambda: F(T).nll_loss(x, T.tensor(1)), ValueError,
         "Expected input batch_size (3) to match target batch_size (0)."),
        (lambda: F(T).cross_entropy(x, T.zeros(3, 5, dtype=T.int64)), RuntimeError,
         "0D or 1D target tensor expected, multi-target not supported"),
        (lambda: F(T).cross_entropy(x, T.ones(3, 4, dtype=T.uint8)), RuntimeError,
         "Expected floating point type for target with class probabilities, got Byte"),
        (lambda: F(T).cross_entropy(x, T.rand(3, 4), label_smoothing=1.5), RuntimeError,
         "label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
        (lambda: F(T).nll_loss(x, T.tensor([0.0, 1.0, 2.0])), RuntimeError,
         "expected target dtype to be Long or Byte, but got Float"),
    ]
    f, exc, text = calls[case]
    with pytest.raises(exc, match="^" + re.escape(text) + "$"):
        f()
    if case == 1:
        assert F(T).nll_loss(T.tensor([0.5, -1.0]), T.tensor([1])).item() == 1.0


def test_bce_with_logits_is_exact_for_large_logits():
    """Below x = -20 the loss is exp(x) (not 0: softplus's threshold cancelled it),
    and the gradient (1 - y) sigmoid(x) - pos_weight y sigmoid(-x) keeps its digits
    at both ends (the two-term form lost ~6 there)."""
    import math
    import tensorplay as tp
    x = tp.tensor([-25.0, -21.0, 30.0], dtype=tp.float64, requires_grad=True)
    t = tp.tensor([0.0, 0.0, 1.0], dtype=tp.float64)
    loss = tp.nn.functional.binary_cross_entropy_with_logits(x, t, reduction="none")
    want = [math.log1p(math.exp(-25.0)), math.log1p(math.exp(-21.0)), math.log1p(math.exp(-30.0))]
    np.testing.assert_allclose(loss.detach().numpy(), want, rtol=1e-14)
    (g,) = tp.autograd.grad(loss.sum(), x)
    sig = lambda v: 1 / (1 + math.exp(-v))      # noqa: E731
    np.testing.assert_allclose(g.numpy(), [sig(-25.0), sig(-21.0), -sig(-30.0)], rtol=1e-14)
    geo = tp.distributions.Geometric(logits=tp.tensor(-25.0, dtype=tp.float64))
    p = sig(-25.0)
    exact = (-(1 - p) * math.log1p(-p) - p * math.log(p)) / p
    assert abs(geo.entropy().item() - exact) < 1e-9
