"""Every nn layer against PyTorch's: the same weights copied into both (which
also checks that the state dicts have the same keys and shapes), values and
gradients (of the input and of every parameter) in float64 and float32, in
train() and eval() where they differ.  Without torch: gradcheck in float64.
"""
import math
import zlib

import numpy as np
import pytest

import tensorplay as tp
import tensorplay.nn as nn

from conftest import assert_close, torch

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:torch")     # (torch's own notes)
DTYPES = [pytest.param("float64", id="f64"), pytest.param("float32", id="f32")]
TOL = {"float64": (1e-10, 1e-8), "float32": (2e-5, 2e-4)}


# ----------------------------------------------------------------- helpers (the other nn tests use them)
def rng(seed):
    return np.random.default_rng(seed)


def randn(seed, *shape, dtype="float64"):
    return rng(seed).standard_normal(shape).astype(dtype)


def sync(m, tm):
    """Copy ``m``'s state into torch module ``tm``: same keys in the same order,
    same shapes."""
    sd, tsd = m.state_dict(), tm.state_dict()
    assert list(sd) == list(tsd), f"state dict keys differ: {list(sd)} vs {list(tsd)}"
    with torch.no_grad():
        for k, v in sd.items():
            assert tuple(v.shape) == tuple(tsd[k].shape), k
            tsd[k].copy_(torch.from_numpy(v.numpy().copy()))


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [] if out is None else [out]


def _to(T, a, grad):
    t = T.tensor(a)
    if grad and a.dtype.kind == "f":
        t.requires_grad_(True)
    return t


def compare(m, tm, inputs, dtype="float64", kwargs=None, tkwargs=None, grad_inputs=True, seed=0,
            tol=None):
    """Run both modules on the same inputs (NumPy arrays, or tensors-to-be built
    per library by a callable ``T -> value``), compare every output, then the
    gradients of a random weighting of the outputs with respect to the floating
    inputs and every parameter (by name)."""
    atol, rtol = tol or TOL[dtype]
    xs = [a(tp) if callable(a) else _to(tp, a, grad_inputs) for a in inputs]
    txs = [a(torch) if callable(a) else _to(torch, a, grad_inputs) for a in inputs]
    kw = {k: (v(tp) if callable(v) else v) for k, v in (kwargs or {}).items()}
    tkw = {k: (v(torch) if callable(v) else v) for k, v in (tkwargs or kwargs or {}).items()}
    outs, touts = _flat(m(*xs, **kw)), _flat(tm(*txs, **tkw))
    assert len(outs) == len(touts)
    for a, b in zip(outs, touts):
        assert tuple(a.shape) == tuple(b.shape)
        assert a.dtype.name == str(b.dtype).split(".")[-1]
        assert_close(a.detach().numpy(), b.detach().numpy(), atol=atol, rtol=rtol)
    diff = [(a, b) for a, b in zip(outs, touts) if b.requires_grad]
    assert [a.requires_grad for a, _ in diff] == [True] * len(diff)
    if not diff:
        return outs
    g = rng(seed + 100)
    ws = [g.standard_normal(tuple(b.shape)).astype(dtype) for _, b in diff]
    sum(((a * tp.tensor(w)).sum() for (a, _), w in zip(diff, ws)), tp.tensor(0.0, dtype=getattr(tp, dtype))).backward()
    sum(((b * torch.tensor(w)).sum() for (_, b), w in zip(diff, ws))).backward()
    for x, tx in zip(xs, txs):
        if isinstance(x, tp.Tensor) and x.requires_grad:
            assert (x.grad is None) == (tx.grad is None)
            if x.grad is not None:
                assert_close(x.grad.numpy(), tx.grad.numpy(), atol=atol, rtol=rtol, msg="input grad")
    tparams = dict(tm.named_parameters())
    for name, p in m.named_parameters():
        tg = tparams[name].grad
        assert (p.grad is None) == (tg is None), name
        if tg is not None:
            assert_close(p.grad.numpy(), tg.numpy(), atol=atol, rtol=rtol, msg=name)
    return outs


def pair(make_tp, make_torch, dtype):
    tp.manual_seed(0)
    m = make_tp().to(getattr(tp, dtype))
    tm = make_torch().to(getattr(torch, dtype))
    sync(m, tm)
    return m, tm


def check_gradcheck(m, inputs):
    """gradcheck of the module's first output w.r.t. its float inputs (float64)."""
    m = m.double()
    xs = [tp.tensor(a, requires_grad=True) for a in inputs]

    def f(*xs):
        return _flat(m(*xs))[0]
    assert tp.autograd.gradcheck(f, xs)


# ----------------------------------------------------------------- simple layers
SIMPLE = [
    ("Linear", lambda nn: nn.Linear(4, 3), [(2, 5, 4)]),
    ("Linear_nobias", lambda nn: nn.Linear(4, 3, bias=False), [(6, 4)]),
    ("Linear_1d", lambda nn: nn.Linear(4, 3), [(4,)]),
    ("Bilinear", lambda nn: nn.Bilinear(3, 4, 2), [(5, 3), (5, 4)]),
    ("Identity", lambda nn: nn.Identity(7, k=1), [(2, 3)]),
    ("Flatten", lambda nn: nn.Flatten(), [(2, 3, 4)]),
    ("Flatten_range", lambda nn: nn.Flatten(0, 1), [(2, 3, 4)]),
    ("Unflatten", lambda nn: nn.Unflatten(1, (2, 3)), [(4, 6)]),
    ("LayerNorm", lambda nn: nn.LayerNorm(5), [(3, 4, 5)]),
    ("LayerNorm_2d", lambda nn: nn.LayerNorm((4, 5), eps=1e-3), [(3, 4, 5)]),
    ("LayerNorm_noaffine", lambda nn: nn.LayerNorm(5, elementwise_affine=False), [(3, 5)]),
    ("LayerNorm_nobias", lambda nn: nn.LayerNorm(5, bias=False), [(3, 5)]),
    ("GroupNorm", lambda nn: nn.GroupNorm(2, 6), [(3, 6, 4)]),
    ("GroupNorm_4d", lambda nn: nn.GroupNorm(3, 6, affine=False), [(2, 6, 2, 3)]),
    ("RMSNorm", lambda nn: nn.RMSNorm(5), [(3, 4, 5)]),
    ("RMSNorm_eps", lambda nn: nn.RMSNorm((4, 5), eps=1e-2), [(3, 4, 5)]),
    ("InstanceNorm1d", lambda nn: nn.InstanceNorm1d(3, affine=True), [(2, 3, 5)]),
    ("InstanceNorm2d", lambda nn: nn.InstanceNorm2d(3), [(2, 3, 4, 4)]),
    ("PReLU", lambda nn: nn.PReLU(3), [(2, 3, 4)]),
]


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,make,shapes", SIMPLE, ids=[s[0] for s in SIMPLE])
def test_simple_layer_matches_torch(name, make, shapes, dtype):
    m, tm = pair(lambda: make(nn), lambda: make(torch.nn), dtype)
    # non-default parameter values, so an affine part that did nothing would show
    with tp.no_grad():
        for k, p in m.named_parameters():
            p.copy_(tp.tensor(randn(zlib.crc32(k.encode()), *p.shape, dtype=dtype)))
    sync(m, tm)
    inputs = [randn(i + 1, *s, dtype=dtype) for i, s in enumerate(shapes)]
    compare(m, tm, inputs, dtype)
    assert repr(m) == repr(tm)


@pytest.mark.parametrize("name,make,shapes", [s for s in SIMPLE if s[0] not in
                                              ("Identity", "Flatten", "Flatten_range", "Unflatten")],
                         ids=[s[0] for s in SIMPLE if s[0] not in
                              ("Identity", "Flatten", "Flatten_range", "Unflatten")])
def test_simple_layer_gradcheck(name, make, shapes):
    tp.manual_seed(1)
    check_gradcheck(make(nn), [randn(i + 1, *s) for i, s in enumerate(shapes)])


@pytest.mark.parametrize("make,fan_in", [(lambda: nn.Linear(50, 40), 50),
                                         (lambda: nn.Bilinear(30, 20, 40), 30)])
def test_default_init_is_uniform_in_one_over_sqrt_fan_in(make, fan_in):
    tp.manual_seed(0)
    m = make()
    bound = 1 / math.sqrt(fan_in)
    w = m.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound
    b = m.bias.detach().numpy()
    assert np.abs(b).max() <= bound and np.abs(b).max() > 0.5 * bound


def test_default_init_of_norms_embedding_and_recurrent_layers():
    tp.manual_seed(0)
    ln = nn.LayerNorm(4)
    assert ln.weight.tolist() == [1.0] * 4 and ln.bias.tolist() == [0.0] * 4
    bn = nn.BatchNorm1d(3)
    assert bn.running_var.tolist() == [1.0] * 3 and bn.num_batches_tracked.item() == 0
    assert bn.num_batches_tracked.dtype == tp.int64
    emb = nn.Embedding(400, 30, padding_idx=2)
    w = emb.weight.detach().numpy()
    assert not w[2].any() and abs(w.std() - 1) < 0.05 and abs(w.mean()) < 0.05
    lstm = nn.LSTM(5, 16)
    for p in lstm.parameters():
        assert np.abs(p.detach().numpy()).max() <= 0.25
    mha = nn.MultiheadAttention(8, 2)
    assert not mha.in_proj_bias.detach().numpy().any() and not mha.out_proj.bias.detach().numpy().any()
    a = math.sqrt(6 / (8 + 24))          # xavier_uniform_ on (24, 8)
    assert np.abs(mha.in_proj_weight.detach().numpy()).max() <= a
    assert nn.PReLU().weight.tolist() == [0.25]


# ----------------------------------------------------------------- batch norm: train/eval, running stats
@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind,shape,kw", [("BatchNorm1d", (6, 3), {}), ("BatchNorm1d", (4, 3, 5), {}),
                                           ("BatchNorm2d", (3, 3, 2, 4), {"momentum": 0.3}),
                                           ("BatchNorm2d", (3, 3, 2, 2), {"momentum": None}),
                                           ("BatchNorm1d", (5, 3), {"affine": False}),
                                           ("BatchNorm1d", (5, 3), {"track_running_stats": False}),
                                           ("InstanceNorm1d", (4, 3, 5), {"track_running_stats": True}),
                                           ("InstanceNorm2d", (2, 3, 2, 3), {"affine": True,
                                                                             "track_running_stats": True})])
def test_batch_and_instance_norm_train_and_eval_match_torch(kind, shape, kw, dtype):
    m, tm = pair(lambda: getattr(nn, kind)(3, **kw), lambda: getattr(torch.nn, kind)(3, **kw), dtype)
    for step in range(3):                      # running statistics accumulate
        compare(m, tm, [randn(step, *shape, dtype=dtype) * 2 + 1], dtype, seed=step)
        for k, v in m.state_dict().items():
            assert_close(v.numpy(), tm.state_dict()[k].numpy(), *TOL[dtype], msg=k)
    m.eval(), tm.eval()
    compare(m, tm, [randn(9, *shape, dtype=dtype)], dtype)
    assert repr(m) == repr(tm)


def test_batchnorm_errors_and_eval_gradcheck():
    with pytest.raises(ValueError, match=r"^expected 4D input \(got 3D input\)$"):
        nn.BatchNorm2d(3)(tp.zeros(2, 3, 4))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        nn.BatchNorm1d(3)(tp.zeros(1, 3))
    bn = nn.BatchNorm1d(3).double()
    bn(tp.tensor(randn(0, 8, 3)))
    bn.eval()
    check_gradcheck(bn, [randn(1, 4, 3)])
    bn.train()
    check_gradcheck(bn, [randn(2, 4, 3)])


# ----------------------------------------------------------------- a norm followed by an in-place op
# The norms' op saves its normalised output for the derivative: without weight and bias that
# output was the layer's result, so ReLU(inplace=True) after it broke the backward (PyTorch's
# norms save the input and the statistics, and the pair works there).
NORM_THEN_INPLACE = [
    ("InstanceNorm2d", lambda nn: nn.InstanceNorm2d(4), (2, 4, 3, 3)),
    ("InstanceNorm2d_affine", lambda nn: nn.InstanceNorm2d(4, affine=True), (2, 4, 3, 3)),
    ("InstanceNorm1d_tracked", lambda nn: nn.InstanceNorm1d(4, track_running_stats=True), (2, 4, 5)),
    ("BatchNorm2d_noaffine", lambda nn: nn.BatchNorm2d(4, affine=False), (3, 4, 2, 2)),
    ("BatchNorm1d", lambda nn: nn.BatchNorm1d(4), (5, 4)),
    ("GroupNorm_noaffine", lambda nn: nn.GroupNorm(2, 4, affine=False), (2, 4, 3)),
    ("GroupNorm", lambda nn: nn.GroupNorm(2, 4), (2, 4, 3)),
    ("LayerNorm_noaffine", lambda nn: nn.LayerNorm([3, 3], elementwise_affine=False), (2, 4, 3, 3)),
    ("LayerNorm_nobias", lambda nn: nn.LayerNorm(3, bias=False), (2, 4, 3)),
    ("RMSNorm_noaffine", lambda nn: nn.RMSNorm(3, elementwise_affine=False), (2, 4, 3)),
    ("RMSNorm", lambda nn: nn.RMSNorm(3), (2, 4, 3)),
]


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,make,shape", NORM_THEN_INPLACE, ids=[c[0] for c in NORM_THEN_INPLACE])
def test_norm_then_inplace_relu_matches_torch(name, make, shape, dtype):
    m, tm = pair(lambda: nn.Sequential(make(nn), nn.ReLU(inplace=True)),
                 lambda: torch.nn.Sequential(make(torch.nn), torch.nn.ReLU(inplace=True)), dtype)
    with tp.no_grad():                      # weights away from 1 and 0, as the simple layers do
        for k, p in m.named_parameters():
            p.copy_(tp.tensor(randn(zlib.crc32(k.encode()), *p.shape, dtype=dtype)))
    sync(m, tm)
    compare(m, tm, [randn(7, *shape, dtype=dtype)], dtype)


@pytest.mark.parametrize("name,make,shape", NORM_THEN_INPLACE, ids=[c[0] for c in NORM_THEN_INPLACE])
def test_norm_then_inplace_ops_gradcheck(name, make, shape):
    tp.manual_seed(1)
    norm = make(nn).double()

    def f(x):                               # in-place ops of every kind on the norm's result
        y = norm(x)
        y.mul_(1.5).add_(0.25)
        return nn.functional.relu(y, inplace=True)
    x = tp.tensor(randn(3, *shape), requires_grad=True)
    assert tp.autograd.gradcheck(f, (x,))
    assert tp.autograd.gradgradcheck(f, (x,))


def test_norm_without_grad_returns_its_output_uncopied():
    """The copy is for the saved output: outside autograd there is none to protect."""
    x = tp.tensor(randn(0, 2, 3, 4))
    with tp.no_grad():
        y = nn.functional.layer_norm(x, (4,))
    assert y.grad_fn is None
    y2 = nn.functional.layer_norm(x.requires_grad_(), (4,))
    assert type(y2.grad_fn).__name__ == "CloneBackward0"
    assert_close(y.numpy(), y2.detach().numpy(), atol=0, rtol=0)


# ----------------------------------------------------------------- dropout
def test_dropout_train_eval_and_scaling():
    tp.manual_seed(0)
    d = nn.Dropout(0.3)
    x = tp.ones(200, 100, requires_grad=True)
    y = d(x)
    a = y.detach().numpy()
    kept = a != 0
    assert abs(kept.mean() - 0.7) < 0.02
    assert np.allclose(a[kept], 1 / 0.7)
    y.sum().backward()
    assert np.array_equal(x.grad.numpy() != 0, kept)           # gradient through the same mask
    d.eval()
    assert d(x) is x
    assert nn.Dropout(0.0)(x) is x
    assert not nn.Dropout(1.0)(x).detach().numpy().any()
    tp.manual_seed(5)
    a1 = nn.Dropout()(tp.ones(10)).numpy()
    tp.manual_seed(5)
    assert np.array_equal(a1, nn.Dropout()(tp.ones(10)).numpy())     # the generator's seed decides
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)


def test_dropout2d_masks_whole_channels():
    tp.manual_seed(0)
    y = nn.Dropout2d(0.5)(tp.ones(8, 16, 3, 3)).numpy()
    per_channel = y.reshape(8, 16, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2).all(-1))
    assert 0.3 < (per_channel[..., 0] == 0).mean() < 0.7
    z = nn.AlphaDropout(0.2).eval()(tp.ones(3))
    assert z.tolist() == [1.0, 1.0, 1.0]


# ----------------------------------------------------------------- embedding
@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [{}, {"padding_idx": 1}, {"padding_idx": -1, "scale_grad_by_freq": True}],
                         ids=["plain", "padding", "scaled"])
def test_embedding_matches_torch(kw, dtype):
    m, tm = pair(lambda: nn.Embedding(6, 3, **kw), lambda: torch.nn.Embedding(6, 3, **kw), dtype)
    idx = np.array([[1, 2, 5, 1], [0, 1, 1, 3]])
    compare(m, tm, [lambda T: T.tensor(idx)], dtype)
    assert repr(m) == repr(tm)


@needs_torch
def test_embedding_max_norm_renormalises_rows_in_place():
    m, tm = pair(lambda: nn.Embedding(5, 4, max_norm=1.0), lambda: torch.nn.Embedding(5, 4, max_norm=1.0),
                 "float64")
    idx = np.array([0, 2, 2])
    compare(m, tm, [lambda T: T.tensor(idx)], "float64")
    assert_close(m.weight.detach().numpy(), tm.weight.detach().numpy(), 1e-12, 1e-10)
    norms = np.linalg.norm(m.weight.detach().numpy(), axis=1)
    assert norms[0] <= 1 + 1e-6 and norms[2] <= 1 + 1e-6


def test_embedding_from_pretrained_and_errors():
    w = tp.tensor(randn(0, 4, 2))
    e = nn.Embedding.from_pretrained(w)
    assert not e.weight.requires_grad and e(tp.tensor([3])).tolist() == [w[3].tolist()]
    with pytest.raises(IndexError, match="^index out of range in self$"):
        e(tp.tensor([4]))
    with pytest.raises(RuntimeError, match="'indices' to have one of the following scalar types"):
        e(tp.tensor([1.0]))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(3, 2, padding_idx=3)


# ----------------------------------------------------------------- recurrent layers
RNNS = [
    ("RNN", {}, None), ("RNN", {"nonlinearity": "relu", "num_layers": 2}, None),
    ("RNN", {"bidirectional": True, "batch_first": True}, "h"),
    ("LSTM", {}, None), ("LSTM", {"num_layers": 2, "bidirectional": True}, "hc"),
    ("LSTM", {"batch_first": True, "proj_size": 2}, "hc"), ("LSTM", {"bias": False}, None),
    ("GRU", {}, "h"), ("GRU", {"num_layers": 2, "bidirectional": True, "batch_first": True}, None),
]


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind,kw,state", RNNS, ids=[f"{k}-{'-'.join(kw) or 'plain'}-{s}" for k, kw, s in RNNS])
def test_recurrent_layers_match_torch(kind, kw, state, dtype):
    m, tm = pair(lambda: getattr(nn, kind)(3, 4, **kw), lambda: getattr(torch.nn, kind)(3, 4, **kw), dtype)
    dirs = 2 if kw.get("bidirectional") else 1
    layers = kw.get("num_layers", 1)
    x = randn(1, 2, 5, 3, dtype=dtype) if kw.get("batch_first") else randn(1, 5, 2, 3, dtype=dtype)
    inputs = [x]
    out_size = kw.get("proj_size") or 4
    if state == "h":
        inputs.append(randn(2, layers * dirs, 2, out_size, dtype=dtype))
    if state == "hc":
        h, c = randn(2, layers * dirs, 2, out_size, dtype=dtype), randn(3, layers * dirs, 2, 4, dtype=dtype)
        inputs.append(lambda T: (_to(T, h, True), _to(T, c, True)))
    compare(m, tm, inputs, dtype)
    assert repr(m) == repr(tm)


@needs_torch
@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_recurrent_unbatched_input_and_dropout_between_layers(kind):
    m, tm = pair(lambda: getattr(nn, kind)(3, 4, num_layers=2), lambda: getattr(torch.nn, kind)(3, 4, num_layers=2),
                 "float64")
    compare(m, tm, [randn(0, 5, 3)], "float64")
    tp.manual_seed(0)
    d = getattr(nn, kind)(3, 4, num_layers=2, dropout=0.5).double()
    x = tp.tensor(randn(1, 5, 2, 3))
    d.eval()
    a = d(x)[0].detach().numpy()
    assert np.array_equal(a, d(x)[0].detach().numpy())
    d.train()
    assert not np.allclose(d(x)[0].detach().numpy(), a)        # dropout between the layers


@needs_torch
@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched", [True, False])
def test_cells_match_torch(kind, batched):
    m, tm = pair(lambda: getattr(nn, kind)(3, 4), lambda: getattr(torch.nn, kind)(3, 4), "float64")
    shape = (2,) if batched else ()
    x = randn(0, *shape, 3)
    h = randn(1, *shape, 4)
    if kind == "LSTMCell":
        c = randn(2, *shape, 4)
        compare(m, tm, [x, lambda T: (_to(T, h, True), _to(T, c, True))], "float64")
    else:
        compare(m, tm, [x, h], "float64")
    compare(m, tm, [x], "float64")                 # zero initial state
    assert repr(m) == repr(tm)


def test_recurrent_gradcheck_and_errors():
    tp.manual_seed(0)
    lstm = nn.LSTM(2, 3, bidirectional=True).double()
    check_gradcheck(lstm, [randn(0, 3, 2, 2)])
    gru = nn.GRU(2, 3).double()
    check_gradcheck(gru, [randn(1, 3, 1, 2)])
    with pytest.raises(RuntimeError, match=r"^input.size\(-1\) must be equal to input_size. Expected 2, got 5$"):
        gru(tp.zeros(3, 1, 5, dtype=tp.float64))
    with pytest.raises(RuntimeError, match=r"^Expected hidden size \(1, 1, 3\), got \[2, 1, 3\]$"):
        gru(tp.zeros(3, 1, 2, dtype=tp.float64), tp.zeros(2, 1, 3, dtype=tp.float64))
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D tensor instead"):
        lstm(tp.zeros(1, 1, 1, 2))


# ----------------------------------------------------------------- attention and transformers
MHA = [({}, {}), ({"batch_first": True}, {"need_weights": False}),
       ({"bias": False, "add_bias_kv": True, "add_zero_attn": True}, {}),
       ({"kdim": 5, "vdim": 3}, {"average_attn_weights": False}),
       ({}, {"mask": "causal"}), ({"batch_first": True}, {"mask": "padding", "need_weights": False}),
       ({}, {"mask": "float3d"})]


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw,call", MHA, ids=[f"{'-'.join(k) or 'plain'}-{'-'.join(str(v) for v in c.values()) or 'w'}"
                                              for k, c in MHA])
def test_multihead_attention_matches_torch(kw, call, dtype):
    m, tm = pair(lambda: nn.MultiheadAttention(8, 2, **kw), lambda: torch.nn.MultiheadAttention(8, 2, **kw), dtype)
    bf = kw.get("batch_first", False)
    L, S, N = 3, 4, 2
    q = randn(1, N, L, 8, dtype=dtype) if bf else randn(1, L, N, 8, dtype=dtype)
    k = randn(2, *((N, S) if bf else (S, N)), kw.get("kdim", 8), dtype=dtype)
    v = randn(3, *((N, S) if bf else (S, N)), kw.get("vdim", 8), dtype=dtype)
    call = dict(call)
    mask = call.pop("mask", None)
    if mask == "causal":
        k, v, S = k[:L], v[:L], L
        tri = np.triu(np.ones((L, L), bool), 1)
        call["attn_mask"] = lambda T: T.tensor(tri)
    elif mask == "padding":
        kpm = np.array([[False, False, True, False], [False, True, True, False]])
        call["key_padding_mask"] = lambda T: T.tensor(kpm)
    elif mask == "float3d":
        fm = randn(7, N * 2, L, S, dtype=dtype)
        call["attn_mask"] = lambda T: T.tensor(fm)
    compare(m, tm, [q, k, v], dtype, kwargs=call)
    assert repr(m) == repr(tm)


@needs_torch
def test_self_attention_shares_the_projection_and_unbatched_input():
    m, tm = pair(lambda: nn.MultiheadAttention(6, 3), lambda: torch.nn.MultiheadAttention(6, 3), "float64")

    class SelfAttn:
        """Query, key and value the same tensor: the packed projection path."""

        def __init__(self, mod):
            self.mod = mod
            self.named_parameters = mod.named_parameters

        def __call__(self, x):
            return self.mod(x, x, x)
    compare(SelfAttn(m), SelfAttn(tm), [randn(0, 4, 2, 6)], "float64")
    compare(SelfAttn(m), SelfAttn(tm), [randn(1, 4, 6)], "float64")        # unbatched (L, E)


def _transformer_pair(kind, dtype, **kw):
    return pair(lambda: getattr(nn, kind)(8, 2, 16, dropout=0.0, **kw),
                lambda: getattr(torch.nn, kind)(8, 2, 16, dropout=0.0, **kw), dtype)


TF = [{}, {"norm_first": True}, {"activation": "gelu", "batch_first": True}, {"bias": False}]


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", TF, ids=["-".join(k) or "plain" for k in TF])
def test_transformer_encoder_layer_matches_torch(kw, dtype):
    m, tm = _transformer_pair("TransformerEncoderLayer", dtype, **kw)
    shape = (2, 5, 8) if kw.get("batch_first") else (5, 2, 8)
    compare(m, tm, [randn(1, *shape, dtype=dtype)], dtype)
    kpm = np.array([[False] * 5, [False, False, False, True, True]])
    mask = np.triu(np.full((5, 5), -np.inf), 1).astype(dtype)
    compare(m, tm, [randn(2, *shape, dtype=dtype)], dtype,
            kwargs={"src_mask": lambda T: T.tensor(mask), "src_key_padding_mask": lambda T: T.tensor(kpm)})
    assert repr(m) == repr(tm)


@needs_torch
@pytest.mark.parametrize("kw", [{}, {"norm_first": True, "activation": "gelu"}], ids=["post", "pre"])
def test_transformer_decoder_layer_matches_torch(kw):
    m, tm = _transformer_pair("TransformerDecoderLayer", "float64", **kw)
    mask = np.triu(np.full((4, 4), -np.inf), 1)
    compare(m, tm, [randn(1, 4, 2, 8), randn(2, 6, 2, 8)], "float64",
            kwargs={"tgt_mask": lambda T: T.tensor(mask)})


@needs_torch
def test_transformer_encoder_decoder_stacks_match_torch():
    tp.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8)).double()
    tenc = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2,
                                       norm=torch.nn.LayerNorm(8), enable_nested_tensor=False).double()
    assert enc.layers[0].linear1.weight is not enc.layers[1].linear1.weight     # deep copies
    sync(enc, tenc)
    causal = nn.Transformer.generate_square_subsequent_mask(5, dtype=tp.float64)
    assert_close(causal.numpy(), torch.nn.Transformer.generate_square_subsequent_mask(5).numpy())
    compare(enc, tenc, [randn(0, 5, 2, 8)], "float64",
            kwargs={"mask": lambda T: T.tensor(np.triu(np.full((5, 5), -np.inf), 1))})
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2).double()
    tdec = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2).double()
    sync(dec, tdec)
    compare(dec, tdec, [randn(1, 3, 2, 8), randn(2, 5, 2, 8)], "float64")
    full, tfull = pair(lambda: nn.Transformer(8, 2, 1, 1, 16, dropout=0.0),
                       lambda: torch.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0), "float64")
    compare(full, tfull, [randn(3, 5, 2, 8), randn(4, 3, 2, 8)], "float64")


def test_transformer_layer_gradcheck_and_dropout_in_training():
    tp.manual_seed(0)
    layer = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0).double()
    check_gradcheck(layer, [randn(0, 3, 1, 4)])
    drop = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.5).double()
    x = tp.tensor(randn(1, 3, 2, 4))
    drop.eval()
    a = drop(x).detach().numpy()
    assert np.array_equal(a, drop(x).detach().numpy())
    drop.train()
    assert not np.allclose(a, drop(x).detach().numpy())


# ----------------------------------------------------------------- activation modules
ACTS = [("ReLU", {}), ("ReLU", {"inplace": True}), ("ReLU6", {}), ("ELU", {"alpha": 0.5}), ("SELU", {}),
        ("CELU", {"alpha": 1.5}), ("LeakyReLU", {"negative_slope": 0.2}), ("GELU", {}),
        ("GELU", {"approximate": "tanh"}), ("SiLU", {}), ("Mish", {}), ("Tanh", {}), ("Sigmoid", {}),
        ("Softplus", {"beta": 2.0}), ("Hardtanh", {"min_val": -0.5, "max_val": 2.0}), ("Hardswish", {}),
        ("Hardsigmoid", {}), ("LogSigmoid", {}), ("Softsign", {}), ("Tanhshrink", {}),
        ("Softshrink", {"lambd": 0.3}), ("Hardshrink", {}), ("Threshold", {"threshold": 0.1, "value": -2.0}),
        ("Softmax", {"dim": 1}), ("LogSoftmax", {"dim": -1}), ("Softmin", {"dim": 0}), ("GLU", {}),
        ("Softmax2d", {})]


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind,kw", ACTS, ids=[f"{k}-{'-'.join(f'{a}{b}' for a, b in kw.items())}" for k, kw in ACTS])
def test_activation_modules_match_torch(kind, kw, dtype):
    m, tm = getattr(nn, kind)(**kw), getattr(torch.nn, kind)(**kw)
    x = randn(3, 2, 3, 4, dtype=dtype) * 3
    if kw.get("inplace"):
        x1 = tp.tensor(x, requires_grad=True)
        y = x1 * 1
        out = m(y)
        assert out is y
        ty = torch.tensor(x, requires_grad=True) * 1
        tm(ty)
        assert_close(out.detach().numpy(), ty.detach().numpy())
        return
    # (torch's float64 hardsigmoid backward multiplies by 1/6 rounded to single precision)
    tol = (1e-10, 1e-7) if kind == "Hardsigmoid" and dtype == "float64" else None
    compare(m, tm, [x], dtype, tol=tol)
    assert repr(m) == repr(tm)


@needs_torch
def test_rrelu_eval_matches_torch_and_train_slopes_lie_in_range():
    x = randn(0, 50, 40)
    m, tm = nn.RReLU(0.1, 0.3).eval(), torch.nn.RReLU(0.1, 0.3).eval()
    compare(m, tm, [x], "float64")
    tp.manual_seed(0)
    y = nn.RReLU(0.1, 0.3)(tp.tensor(x)).numpy()
    neg = x < 0
    ratio = y[neg] / x[neg]
    assert ratio.min() >= 0.1 and ratio.max() < 0.3 and ratio.std() > 0.03
    assert np.array_equal(y[~neg], x[~neg])


def test_instance_norm_names_the_feature_dimension_of_the_input_as_given():
    """Unbatched input: its dimension 0 (PyTorch's words); without affine a
    mismatch only warns (num_features is not used)."""
    import warnings
    m = tp.nn.InstanceNorm1d(3, affine=True)
    with pytest.raises(ValueError, match=r"expected input's size at dim=0 to match num_features \(3\), "
                                         r"but got: 4\."):
        m(tp.ones(4, 5))
    with pytest.raises(ValueError, match=r"at dim=1 to match num_features \(3\), but got: 4\."):
        m(tp.ones(2, 4, 5))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tp.nn.InstanceNorm1d(3)(tp.ones(4, 5))
    assert [str(x.message) for x in w] == [
        "input's size at dim=0 does not match num_features. You can silence this warning by not passing "
        "in num_features, which is not used because affine=False"]
