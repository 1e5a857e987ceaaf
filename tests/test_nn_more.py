"""The nn layers added after the first set (3-d convolutions and pooling, ...)
against ``torch.nn``: the same weights in both (state dict keys and shapes must
agree), values and gradients of the input and every parameter, PyTorch's repr;
gradcheck/gradgradcheck in float64 without torch.  (The registry ops these
layers call have their rows in tests/opdb: conv.py and nn_more.py.)
"""
import numpy as np
import pytest

import tensorplay as tp
import tensorplay.nn as nn

from conftest import torch
from test_nn_layers import DTYPES, compare, pair, randn

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")
pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning:torch"),
              pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")]


def _perm(seed, shape):
    """Distinct values (no ties in a max window)."""
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n).reshape(shape) / n).astype("float64")


def _POS(*shape):
    """Positive inputs (for fractional powers)."""
    return np.abs(np.random.default_rng(sum(shape)).standard_normal(shape)) + 0.5


def _indices(out, size, seed):
    """Flat indices a 2x...x2 max pool (stride 2) could give: one random position
    per window of a ``size`` plane, for an (2, 3, *out) input."""
    g = np.random.default_rng(seed)
    nd = len(out)
    idx = np.zeros((2, 3) + tuple(out), np.int64)
    for j in range(nd):
        shape = [1] * (nd + 2)
        shape[2 + j] = out[j]
        at = np.arange(out[j]).reshape(shape) * 2 + g.integers(0, 2, (2, 3) + tuple(out))
        idx += at * int(np.prod(size[j + 1:]))
    return idx


_BAG_I = np.array([1, 2, 4, 5, 4, 3, 2, 9])
_BAG_O = np.array([0, 3, 3, 6])
_IDX2 = _indices((2, 3), (4, 6), 0)
_IDX1 = _indices((4,), (8,), 1)

# (id, constructor given the nn module, inputs (shapes, or arrays), forward kwargs)
LAYERS = [
    ("Conv3d", lambda nn: nn.Conv3d(3, 4, 2), [(2, 3, 4, 5, 4)], {}),
    ("Conv3d_full", lambda nn: nn.Conv3d(4, 6, (3, 2, 2), stride=(2, 1, 2), padding=(1, 2, 0), dilation=(1, 2, 1),
                                         groups=2, bias=False), [(2, 4, 5, 4, 5)], {}),
    ("Conv3d_same", lambda nn: nn.Conv3d(2, 3, (2, 3, 2), padding="same"), [(2, 2, 4, 3, 4)], {}),
    ("Conv3d_valid", lambda nn: nn.Conv3d(2, 3, 2, padding="valid"), [(1, 2, 3, 3, 3)], {}),
    ("Conv3d_reflect", lambda nn: nn.Conv3d(2, 2, 3, padding=1, padding_mode="reflect"), [(1, 2, 4, 3, 4)], {}),
    ("Conv3d_replicate", lambda nn: nn.Conv3d(2, 2, 2, padding=(1, 0, 1), padding_mode="replicate"),
     [(1, 2, 3, 3, 3)], {}),
    ("Conv3d_circular", lambda nn: nn.Conv3d(2, 2, 3, padding=1, padding_mode="circular"), [(1, 2, 3, 4, 3)], {}),
    ("Conv3d_unbatched", lambda nn: nn.Conv3d(2, 3, 2, stride=2), [(2, 4, 5, 4)], {}),
    ("ConvTranspose3d", lambda nn: nn.ConvTranspose3d(3, 2, 2), [(2, 3, 3, 2, 3)], {}),
    ("ConvTranspose3d_full", lambda nn: nn.ConvTranspose3d(4, 6, (2, 3, 2), stride=(2, 1, 3), padding=(1, 0, 1),
                                                           output_padding=(1, 0, 2), groups=2, dilation=(1, 2, 1)),
     [(2, 4, 3, 2, 3)], {}),
    ("ConvTranspose3d_size", lambda nn: nn.ConvTranspose3d(2, 2, 3, stride=2, padding=1, bias=False),
     [(1, 2, 2, 3, 2)], {"output_size": (4, 6, 4)}),
    ("ConvTranspose3d_unbatched", lambda nn: nn.ConvTranspose3d(2, 3, 2, stride=2), [(2, 2, 2, 3)], {}),
    ("MaxPool3d", lambda nn: nn.MaxPool3d(2), [(2, 3, 4, 5, 4)], {}),
    ("MaxPool3d_full", lambda nn: nn.MaxPool3d((3, 2, 2), stride=(2, 1, 2), padding=1, dilation=(1, 2, 1),
                                               ceil_mode=True, return_indices=True), [(2, 2, 5, 5, 4)], {}),
    ("MaxPool3d_unbatched", lambda nn: nn.MaxPool3d(2, 1, return_indices=True), [(2, 3, 3, 4)], {}),
    ("AvgPool3d", lambda nn: nn.AvgPool3d(2), [(2, 3, 4, 5, 4)], {}),
    ("AvgPool3d_full", lambda nn: nn.AvgPool3d((3, 2, 2), stride=(2, 1, 2), padding=1, ceil_mode=True,
                                               count_include_pad=False), [(2, 2, 5, 5, 4)], {}),
    ("AvgPool3d_divisor", lambda nn: nn.AvgPool3d(2, 1, divisor_override=3), [(2, 3, 3, 4)], {}),
    ("AdaptiveAvgPool3d", lambda nn: nn.AdaptiveAvgPool3d((2, None, 3)), [(2, 3, 5, 4, 5)], {}),
    ("AdaptiveAvgPool3d_1", lambda nn: nn.AdaptiveAvgPool3d(1), [(2, 3, 5, 4, 5)], {}),
    ("AdaptiveAvgPool3d_up", lambda nn: nn.AdaptiveAvgPool3d((4, 3, 5)), [(2, 3, 2, 3)], {}),
    ("AdaptiveMaxPool3d", lambda nn: nn.AdaptiveMaxPool3d((2, None, 3)), [(2, 3, 5, 4, 5)], {}),
    ("AdaptiveMaxPool3d_up", lambda nn: nn.AdaptiveMaxPool3d((4, 3, 5), return_indices=True), [(2, 3, 2, 3)], {}),
    ("LPPool1d", lambda nn: nn.LPPool1d(2, 3, stride=2), [_POS(2, 3, 9)], {}),
    ("LPPool2d", lambda nn: nn.LPPool2d(1.5, (2, 3), ceil_mode=True), [_POS(2, 3, 5, 7)], {}),
    ("LPPool3d", lambda nn: nn.LPPool3d(3, 2, stride=1), [_POS(1, 2, 3, 4, 3)], {}),
    ("LocalResponseNorm", lambda nn: nn.LocalResponseNorm(3), [(2, 5, 4, 3)], {}),
    ("LocalResponseNorm_3d", lambda nn: nn.LocalResponseNorm(2, alpha=0.5, beta=0.5, k=2.0), [(2, 5, 6)], {}),
    ("ChannelShuffle", lambda nn: nn.ChannelShuffle(3), [(2, 6, 3, 2)], {}),
    ("MaxUnpool2d", lambda nn: nn.MaxUnpool2d(2), [(2, 3, 2, 3), _IDX2], {}),
    ("MaxUnpool2d_size", lambda nn: nn.MaxUnpool2d(2, stride=2), [(2, 3, 2, 3), _IDX2], {"output_size": [5, 7]}),
    ("MaxUnpool1d", lambda nn: nn.MaxUnpool1d(2), [(2, 3, 4), _IDX1], {}),
    ("EmbeddingBag", lambda nn: nn.EmbeddingBag(10, 3), [_BAG_I, _BAG_O], {}),
    ("EmbeddingBag_max_pad", lambda nn: nn.EmbeddingBag(10, 3, mode="max", padding_idx=2), [_BAG_I, _BAG_O], {}),
    ("EmbeddingBag_sum_2d", lambda nn: nn.EmbeddingBag(10, 3, mode="sum", padding_idx=-1),
     [_BAG_I.reshape(2, 4)], {}),
    ("EmbeddingBag_last", lambda nn: nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True),
     [_BAG_I, np.array([0, 3, 3, 8])], {}),
    ("TripletMarginWithDistanceLoss", lambda nn: nn.TripletMarginWithDistanceLoss(), [(4, 5), (4, 5), (4, 5)], {}),
    ("TripletMarginWithDistanceLoss_swap",
     lambda nn: nn.TripletMarginWithDistanceLoss(distance_function=nn.PairwiseDistance(p=1.0), margin=0.5, swap=True,
                                                 reduction="none"), [(4, 5), (4, 5), (4, 5)], {}),
]

_MAX = ("MaxPool", "AdaptiveMaxPool")


def _inputs(name, shapes, dtype="float64"):
    def one(i, s):
        if isinstance(s, np.ndarray):
            return s.astype(dtype) if s.dtype.kind == "f" else s
        if name.startswith(_MAX):
            return _perm(i, s).astype(dtype)
        return randn(i + 1, *s, dtype=dtype)
    return [one(i, s) for i, s in enumerate(shapes)]


def _random_params(m, dtype, seed=11):
    with tp.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(tp.tensor(randn(seed + i, *p.shape, dtype=dtype)))


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,make,shapes,kw", LAYERS, ids=[c[0] for c in LAYERS])
def test_layer_matches_torch(name, make, shapes, kw, dtype):
    m, tm = pair(lambda: make(nn), lambda: make(torch.nn), dtype)
    _random_params(m, dtype)
    from test_nn_layers import sync
    sync(m, tm)
    inputs = _inputs(name, shapes, dtype)
    outs = compare(m, tm, inputs, dtype, kwargs=kw)
    assert repr(m) == repr(tm)
    if getattr(m, "return_indices", False):
        tout = tm(torch.tensor(inputs[0]))
        assert outs[1].dtype == tp.int64
        assert np.array_equal(outs[1].numpy(), tout[1].numpy())


@pytest.mark.parametrize("name,make,shapes,kw", LAYERS, ids=[c[0] for c in LAYERS])
def test_layer_gradcheck(name, make, shapes, kw):
    tp.manual_seed(3)
    m = make(nn)
    inputs = _inputs(name, shapes)
    floats = [i for i, a in enumerate(inputs) if a.dtype.kind == "f"]
    m = m.double()

    def g(*xs):
        args = list(inputs)
        for i, x in zip(floats, xs):
            args[i] = x
        out = m(*[tp.tensor(a) if isinstance(a, np.ndarray) else a for a in args],
                **{k: (v(tp) if callable(v) else v) for k, v in kw.items()})
        return out[0] if isinstance(out, tuple) else out
    if floats:
        assert tp.autograd.gradcheck(g, [tp.tensor(inputs[i], requires_grad=True) for i in floats])
    ps = list(m.parameters())
    if ps:
        xs = tuple(tp.tensor(a) for a in inputs)
        names = [n for n, _ in m.named_parameters()]
        fkw = {k: (v(tp) if callable(v) else v) for k, v in kw.items()}

        def f(*params):
            return tp.func.functional_call(m, dict(zip(names, params)), xs, fkw)
        assert tp.autograd.gradcheck(f, [p.detach().clone().requires_grad_(True) for p in ps])


@pytest.mark.parametrize("make,shape", [
    (lambda: nn.Conv3d(2, 2, 2, stride=(2, 1, 1), padding=1, groups=2), (1, 2, 3, 3, 3)),
    (lambda: nn.ConvTranspose3d(2, 2, 2, stride=2, output_padding=1), (1, 2, 2, 2, 2)),
    (lambda: nn.AvgPool3d(2, 1, 1, count_include_pad=False), (1, 2, 3, 3, 3)),
    (lambda: nn.MaxPool3d(2, 1), None),
    (lambda: nn.AdaptiveAvgPool3d((2, 3, 2)), (1, 2, 3, 4, 3)),
    (lambda: nn.AdaptiveMaxPool3d((2, 3, 2)), None),
])
def test_second_derivatives(make, shape):
    """gradgradcheck through the layer, in its input and its parameters together."""
    tp.manual_seed(4)
    m = make().double()
    x = tp.tensor(_perm(0, (1, 2, 3, 4, 3)) if shape is None else randn(5, *shape), requires_grad=True)
    names = [n for n, _ in m.named_parameters()]
    params = [p.detach().clone().requires_grad_(True) for p in m.parameters()]

    def f(x, *ps):
        return tp.func.functional_call(m, dict(zip(names, ps)), (x,))
    assert tp.autograd.gradgradcheck(f, [x] + params)


def test_conv3d_is_the_sum_of_its_2d_slices():
    """A reference without torch: a 3-d convolution is the sum over the depth
    offsets of 2-d convolutions of depth slices."""
    g = np.random.default_rng(0)
    x, w = g.standard_normal((2, 3, 5, 4, 6)), g.standard_normal((4, 3, 2, 3, 2))
    y = tp.conv3d(tp.tensor(x), tp.tensor(w), stride=(2, 1, 1), padding=(1, 1, 0)).numpy()
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (0, 0), (0, 0)))
    ref = np.stack([sum(tp.conv2d(tp.tensor(xp[:, :, 2 * od + i]), tp.tensor(w[:, :, i]), padding=(1, 0)).numpy()
                        for i in range(2)) for od in range(y.shape[2])], axis=2)
    np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-12)


def test_conv_transpose3d_is_the_adjoint_of_conv3d():
    """<conv3d(x, w), g> == <x, conv_transpose3d(g, w)> with the output padding
    that restores x's size."""
    g = np.random.default_rng(1)
    x, w = g.standard_normal((2, 4, 5, 6, 5)), g.standard_normal((6, 2, 2, 3, 2))
    y = tp.conv3d(tp.tensor(x), tp.tensor(w), stride=(2, 2, 1), padding=(1, 0, 1), groups=2)
    gy = g.standard_normal(tuple(y.shape))
    xt = tp.conv_transpose3d(tp.tensor(gy), tp.tensor(w), stride=(2, 2, 1), padding=(1, 0, 1),
                             output_padding=(1, 1, 0), groups=2)
    assert tuple(xt.shape) == x.shape
    np.testing.assert_allclose(float((y.numpy() * gy).sum()), float((x * xt.numpy()).sum()), rtol=1e-10)


def test_pool3d_reference_values():
    """max/avg 3-d pooling of a known volume, by hand."""
    x = tp.arange(64.0).reshape(1, 1, 4, 4, 4)
    m, i = nn.functional.max_pool3d(x, 2, return_indices=True)
    assert m.flatten().tolist() == [21.0, 23.0, 29.0, 31.0, 53.0, 55.0, 61.0, 63.0]
    assert i.flatten().tolist() == [21, 23, 29, 31, 53, 55, 61, 63]
    a = nn.functional.avg_pool3d(x, 2)
    assert a.flatten().tolist() == [10.5, 12.5, 18.5, 20.5, 42.5, 44.5, 50.5, 52.5]
    assert nn.functional.adaptive_avg_pool3d(x, 2).flatten().tolist() == a.flatten().tolist()
    assert nn.functional.adaptive_max_pool3d(x, 2).flatten().tolist() == m.flatten().tolist()


def test_module_configuration_errors():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv3d(3, 4, 2, groups=2)
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for ConvTranspose3d'):
        nn.ConvTranspose3d(2, 2, 2, padding_mode="reflect")
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv3d(2, 2, 2, stride=2, padding="same")


def test_more_configuration_errors():
    with pytest.raises(ValueError, match="TripletMarginWithDistanceLoss: expected margin to be greater than 0, got 0 "
                                         "instead"):
        nn.TripletMarginWithDistanceLoss(margin=0)
    x = tp.ones(2, 6, 3)
    with pytest.raises(RuntimeError, match="Number of channels must be divisible by groups"):
        nn.ChannelShuffle(4)(x)


def test_max_unpool_inverts_max_pool():
    """unpool(pool(x)) keeps each window's maximum in place and zeros the rest;
    the gradient of the round trip reaches exactly the maxima."""
    x = tp.tensor(_perm(3, (2, 3, 4, 6)), requires_grad=True)
    v, i = nn.functional.max_pool2d(x, 2, return_indices=True)
    u = nn.functional.max_unpool2d(v, i, 2)
    xd = x.detach().numpy()
    keep = (u.detach().numpy() != 0)
    assert keep.sum() == v.numel()
    np.testing.assert_array_equal(u.detach().numpy()[keep], xd[keep])
    u.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), keep.astype(float))


def test_channel_shuffle_is_a_permutation_and_its_inverse():
    x = tp.arange(12.0).reshape(1, 12, 1)
    y = tp.channel_shuffle(x, 3)
    assert y.flatten().tolist() == [0.0, 4.0, 8.0, 1.0, 5.0, 9.0, 2.0, 6.0, 10.0, 3.0, 7.0, 11.0]
    assert tp.channel_shuffle(y, 4).flatten().tolist() == x.flatten().tolist()


def test_embedding_bag_max_norm_renormalises_the_rows_used():
    g = np.random.default_rng(2)
    w = g.standard_normal((6, 3)) * 3
    m = nn.EmbeddingBag(6, 3, max_norm=1.0, mode="sum", _weight=tp.tensor(w))
    m(tp.tensor([0, 2, 2, 5]), tp.tensor([0, 2]))
    norms = np.linalg.norm(m.weight.detach().numpy(), axis=1)
    assert np.all(norms[[0, 2, 5]] <= 1.0 + 1e-6)
    np.testing.assert_array_equal(m.weight.detach().numpy()[[1, 3, 4]], w[[1, 3, 4]])


def test_embedding_bag_scale_grad_by_freq_is_embeddings():
    """Each row's gradient divided by how often its index occurs in the input,
    as ``embedding`` does.  (PyTorch 2.x's embedding_bag divides some rows by
    another index's count: see the report; not compared against it.)"""
    w = tp.tensor(np.arange(30.0).reshape(10, 3), requires_grad=True)
    i = tp.tensor([1, 2, 4, 5, 4, 3, 2, 9])
    nn.functional.embedding_bag(i, w, tp.tensor([0, 4]), mode="sum", scale_grad_by_freq=True).sum().backward()
    assert w.grad[:, 0].tolist() == [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0]


def test_spatial_transformer_warnings_and_identity():
    """affine_grid/grid_sample warn of the align_corners default as PyTorch does,
    and the identity transform samples the input back (align_corners either way)."""
    x = tp.tensor(np.random.default_rng(6).standard_normal((2, 3, 4, 5)))
    theta = tp.tensor(np.tile(np.array([[1.0, 0, 0], [0, 1.0, 0]]), (2, 1, 1)))
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed"):
        grid = nn.functional.affine_grid(theta, (2, 3, 4, 5))
    for ac in (False, True):
        grid = nn.functional.affine_grid(theta, (2, 3, 4, 5), align_corners=ac)
        for mode in ("bilinear", "nearest"):
            y = nn.functional.grid_sample(x, grid, mode=mode, align_corners=ac)
            np.testing.assert_allclose(y.numpy(), x.numpy(), atol=1e-12)
    with pytest.warns(UserWarning, match="affine_grid behavior has changed for unit-size grids"):
        nn.functional.affine_grid(theta, (2, 3, 1, 5), align_corners=True)


def test_grid_sample_gradgradcheck():
    g = np.random.default_rng(7)
    x = tp.tensor(g.standard_normal((1, 2, 3, 4)), requires_grad=True)
    grid = tp.tensor(g.uniform(-1.1, 1.1, (1, 2, 3, 2)), requires_grad=True)
    for pm in ("zeros", "border", "reflection"):
        assert tp.autograd.gradgradcheck(
            lambda a, b: nn.functional.grid_sample(a, b, padding_mode=pm, align_corners=False), [x, grid])


# ----------------------------------------------------------------- optim.lr_scheduler.CyclicLR
def _opt(T, opt):
    ps = [T.nn.Parameter(T.zeros(2)) for _ in range(2)]
    groups = [{"params": [p], "lr": lr} for p, lr in zip(ps, (0.1, 0.05))]
    return T.optim.SGD(groups, momentum=0.9) if opt == "SGD" else getattr(T.optim, opt)(groups)


class _Halving:
    """A picklable custom scale function (its state goes in the state dict)."""

    def __init__(self):
        self.base = 0.5

    def __call__(self, x):
        return self.base ** x


CYCLIC = [
    (dict(base_lr=0.01, max_lr=0.1, step_size_up=4), "SGD"),
    (dict(base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], step_size_up=3, step_size_down=5, mode="triangular2"), "SGD"),
    (dict(base_lr=0.01, max_lr=0.1, step_size_up=2, mode="exp_range", gamma=0.9, base_momentum=0.7,
          max_momentum=0.95), "Adam"),
    (dict(base_lr=0.01, max_lr=0.1, step_size_up=3, scale_fn=lambda x: 1 / (x + 1), scale_mode="iterations"),
     "SGD"),
    (dict(base_lr=0.01, max_lr=0.1, step_size_up=3, cycle_momentum=False), "Adagrad"),
]


def _cyclic(T, kw, opt, steps=22):
    o = _opt(T, opt)
    s = T.optim.lr_scheduler.CyclicLR(o, **kw)
    out = [s.get_last_lr()]
    for _ in range(steps):
        o.step()
        s.step()
        out.append((s.get_last_lr(), [g.get("momentum", g.get("betas")) for g in o.param_groups]))
    return out


@needs_torch
@pytest.mark.parametrize("kw,opt", CYCLIC, ids=[f"{i}-{c[1]}" for i, c in enumerate(CYCLIC)])
def test_cyclic_lr_matches_torch(kw, opt):
    assert _cyclic(tp, kw, opt) == _cyclic(torch, kw, opt)


def test_cyclic_lr_triangle_and_state_dict():
    o = _opt(tp, "SGD")
    s = tp.optim.lr_scheduler.CyclicLR(o, base_lr=0.0, max_lr=1.0, step_size_up=2, step_size_down=2)
    seq = [s.get_last_lr()[0]]
    for _ in range(8):
        o.step()
        s.step()
        seq.append(s.get_last_lr()[0])
    assert seq == [0.0, 0.5, 1.0, 0.5, 0.0, 0.5, 1.0, 0.5, 0.0]
    assert [g["momentum"] for g in o.param_groups] == [0.9, 0.9]
    f = _Halving()
    s2 = tp.optim.lr_scheduler.CyclicLR(_opt(tp, "SGD"), 0.01, 0.1, scale_fn=f)
    sd = s2.state_dict()
    assert sd["_scale_fn_custom"] == {"base": 0.5} and "_scale_fn_ref" not in sd
    f.base = 0.25
    s2.load_state_dict(sd)
    assert f.base == 0.5
    with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
        tp.optim.lr_scheduler.CyclicLR(_opt(tp, "SGD"), 0.01, 0.1, mode="foo")
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        tp.optim.lr_scheduler.CyclicLR(_opt(tp, "Adagrad"), 0.01, 0.1)


# ----------------------------------------------------------------- optim.Adafactor
def _adafactor_run(T, kw, shapes=((3, 4), (5,), (2, 3, 4), ()), steps=10):
    g = np.random.default_rng(0)
    ps = [T.nn.Parameter(T.tensor(g.standard_normal(s))) for s in shapes]
    o = T.optim.Adafactor(ps, **kw)
    out = []
    for _ in range(steps):
        o.zero_grad()
        loss = sum((p * p * p).sum() + (p * T.tensor(g.standard_normal(p.shape))).sum() for p in ps)
        loss.backward()
        o.step()
        out.append([p.detach().numpy().copy() for p in ps])
    return out, o


@needs_torch
@pytest.mark.parametrize("kw", [{}, {"lr": 0.05, "weight_decay": 0.1},
                                {"eps": (1e-30, 1e-3), "d": 1.5, "beta2_decay": -0.5, "maximize": True}])
def test_adafactor_matches_torch(kw):
    a, oa = _adafactor_run(tp, kw)
    b, ob = _adafactor_run(torch, kw)
    for sa, sb in zip(a, b):
        for x, y in zip(sa, sb):
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-14)
    sa, sb = oa.state_dict(), ob.state_dict()
    assert [sorted(v) for v in sa["state"].values()] == [sorted(v) for v in sb["state"].values()]
    assert list(sa["param_groups"][0]) == list(sb["param_groups"][0])


def test_adafactor_factored_state_and_errors():
    p = tp.nn.Parameter(tp.ones(3, 4))
    o = tp.optim.Adafactor([p])
    p.grad = tp.ones(3, 4)
    o.step()
    st = o.state[p]
    assert tuple(st["row_var"].shape) == (3, 1) and tuple(st["col_var"].shape) == (1, 4)
    assert float(st["step"]) == 1.0
    # step 1: rate 1, so the estimates are the mean squares (1); update = g / 1, rms 1 <= d;
    # alpha = max(1e-3, rms(p) = 1) * min(lr, 1) = 0.01
    np.testing.assert_allclose(p.detach().numpy(), np.full((3, 4), 0.99), rtol=1e-6)
    for kw, msg in [({"lr": -1.0}, "Learning rate should be >= 0 but is: -1.0"),
                    ({"beta2_decay": 0.5}, "beta2_decay should be <= 0 but is: 0.5"),
                    ({"d": 0.5}, "Clipping threshold d should be >= 1 but is: 0.5"),
                    ({"eps": (None, -1.0)}, "epsilon2 should be >= 0 but is: -1.0"),
                    ({"weight_decay": -1.0}, "weight_decay should be >= 0 but is: -1.0")]:
        with pytest.raises(ValueError, match=msg.replace("(", r"\(")):
            tp.optim.Adafactor([p], **kw)
