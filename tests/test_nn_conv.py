"""The convolution, pooling, padding and resampling layers of ``tensorplay.nn``
against ``torch.nn``: the same weights copied into both (state dict keys and
shapes must agree), values and gradients of the input and every parameter in
float64 and float32, PyTorch's repr; PyTorch's default initialisation; the
``nn.functional`` spellings; gradcheck in float64 without torch; PyTorch's
errors for bad configurations; a small CNN that learns.
"""
import math

import numpy as np
import pytest

import tensorplay as tp
import tensorplay.nn as nn
import tensorplay.nn.functional as F

from conftest import assert_close, torch
from test_nn_layers import DTYPES, check_gradcheck, compare, pair, randn, sync

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")
pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning:torch"),
              pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")]


# ----------------------------------------------------------------- layers against torch.nn
# (id, constructor given the nn module, input shapes, forward kwargs)
LAYERS = [
    ("Conv1d", lambda nn: nn.Conv1d(4, 6, 3), [(2, 4, 11)], {}),
    ("Conv1d_full", lambda nn: nn.Conv1d(4, 6, 3, stride=2, padding=2, dilation=2, groups=2, bias=False),
     [(2, 4, 13)], {}),
    ("Conv1d_same", lambda nn: nn.Conv1d(4, 6, 4, padding="same", dilation=1), [(2, 4, 9)], {}),
    ("Conv1d_valid_reflect", lambda nn: nn.Conv1d(3, 2, 3, padding=2, padding_mode="reflect"),
     [(2, 3, 7)], {}),
    ("Conv1d_unbatched", lambda nn: nn.Conv1d(3, 2, 3, padding=1, padding_mode="circular"), [(3, 7)], {}),
    ("Conv2d", lambda nn: nn.Conv2d(3, 5, 3), [(2, 3, 8, 9)], {}),
    ("Conv2d_full", lambda nn: nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2),
                                         groups=2), [(2, 4, 9, 8)], {}),
    ("Conv2d_same_even", lambda nn: nn.Conv2d(3, 4, (2, 4), padding="same", dilation=(3, 1)),
     [(2, 3, 7, 8)], {}),
    ("Conv2d_valid", lambda nn: nn.Conv2d(3, 4, 3, padding="valid", bias=False), [(2, 3, 6, 6)], {}),
    ("Conv2d_depthwise", lambda nn: nn.Conv2d(4, 8, 3, padding=1, groups=4), [(2, 4, 5, 6)], {}),
    ("Conv2d_reflect", lambda nn: nn.Conv2d(3, 4, 3, padding=(1, 2), padding_mode="reflect"),
     [(2, 3, 6, 7)], {}),
    ("Conv2d_replicate_same", lambda nn: nn.Conv2d(3, 4, (3, 2), padding="same", padding_mode="replicate"),
     [(2, 3, 6, 7)], {}),
    ("Conv2d_circular", lambda nn: nn.Conv2d(3, 3, 3, padding=2, padding_mode="circular", groups=3),
     [(2, 3, 5, 6)], {}),
    ("Conv2d_unbatched", lambda nn: nn.Conv2d(3, 4, 3, stride=2), [(3, 7, 7)], {}),
    ("ConvTranspose1d", lambda nn: nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1,
                                                      groups=2, dilation=1), [(2, 4, 7)], {}),
    ("ConvTranspose1d_size", lambda nn: nn.ConvTranspose1d(3, 2, 3, stride=3, bias=False), [(2, 3, 5)],
     {"output_size": [17]}),
    ("ConvTranspose2d", lambda nn: nn.ConvTranspose2d(3, 4, 3), [(2, 3, 5, 6)], {}),
    ("ConvTranspose2d_full", lambda nn: nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 3), padding=(1, 0),
                                                           output_padding=(1, 2), groups=2, dilation=(2, 1)),
     [(2, 4, 5, 4)], {}),
    ("ConvTranspose2d_size", lambda nn: nn.ConvTranspose2d(3, 3, 3, stride=2, padding=1),
     [(2, 3, 4, 5)], {"output_size": (2, 3, 8, 10)}),
    ("ConvTranspose2d_unbatched", lambda nn: nn.ConvTranspose2d(3, 2, 2, stride=2), [(3, 4, 4)],
     {"output_size": [9, 8]}),
    ("MaxPool1d", lambda nn: nn.MaxPool1d(3), [(2, 3, 10)], {}),
    ("MaxPool1d_full", lambda nn: nn.MaxPool1d(3, 2, 1, dilation=2, ceil_mode=True, return_indices=True),
     [(2, 3, 12)], {}),
    ("MaxPool2d", lambda nn: nn.MaxPool2d(2), [(2, 3, 8, 9)], {}),
    ("MaxPool2d_full", lambda nn: nn.MaxPool2d((3, 2), stride=(2, 1), padding=1, dilation=(1, 2),
                                               ceil_mode=True, return_indices=True), [(2, 3, 9, 8)], {}),
    ("MaxPool2d_unbatched", lambda nn: nn.MaxPool2d(3, 2, return_indices=True), [(3, 7, 7)], {}),
    ("AvgPool1d", lambda nn: nn.AvgPool1d(3, 2, 1, ceil_mode=True, count_include_pad=False),
     [(2, 3, 10)], {}),
    ("AvgPool2d", lambda nn: nn.AvgPool2d(2), [(2, 3, 8, 9)], {}),
    ("AvgPool2d_full", lambda nn: nn.AvgPool2d((3, 2), stride=(2, 1), padding=(1, 1), ceil_mode=True,
                                               count_include_pad=False), [(2, 3, 9, 8)], {}),
    ("AvgPool2d_divisor", lambda nn: nn.AvgPool2d(3, 1, divisor_override=4), [(3, 6, 6)], {}),
    ("AdaptiveAvgPool1d", lambda nn: nn.AdaptiveAvgPool1d(4), [(2, 3, 10)], {}),
    ("AdaptiveAvgPool2d", lambda nn: nn.AdaptiveAvgPool2d((3, None)), [(2, 3, 7, 5)], {}),
    ("AdaptiveAvgPool2d_1", lambda nn: nn.AdaptiveAvgPool2d(1), [(2, 3, 7, 5)], {}),
    ("AdaptiveAvgPool2d_up", lambda nn: nn.AdaptiveAvgPool2d((5, 4)), [(3, 3, 2)], {}),
    ("AdaptiveMaxPool1d", lambda nn: nn.AdaptiveMaxPool1d(4, return_indices=True), [(2, 3, 10)], {}),
    ("AdaptiveMaxPool2d", lambda nn: nn.AdaptiveMaxPool2d((3, None)), [(2, 3, 7, 5)], {}),
    ("AdaptiveMaxPool2d_up", lambda nn: nn.AdaptiveMaxPool2d((5, 4), return_indices=True), [(3, 3, 2)], {}),
    ("Upsample_nearest", lambda nn: nn.Upsample(scale_factor=2), [(2, 3, 4, 5)], {}),
    ("Upsample_nearest_size", lambda nn: nn.Upsample(size=(7, 3)), [(2, 3, 4, 5)], {}),
    ("Upsample_nearest_exact", lambda nn: nn.Upsample(scale_factor=(1.5, 2.5), mode="nearest-exact"),
     [(2, 3, 4, 5)], {}),
    ("Upsample_linear", lambda nn: nn.Upsample(size=9, mode="linear"), [(2, 3, 4)], {}),
    ("Upsample_bilinear", lambda nn: nn.Upsample(scale_factor=(2, 1.5), mode="bilinear"), [(2, 3, 4, 5)], {}),
    ("Upsample_bilinear_corners", lambda nn: nn.Upsample(size=(6, 7), mode="bilinear", align_corners=True),
     [(2, 3, 4, 5)], {}),
    ("Upsample_area", lambda nn: nn.Upsample(size=(3, 2), mode="area"), [(2, 3, 7, 5)], {}),
    ("UpsamplingNearest2d", lambda nn: nn.UpsamplingNearest2d(scale_factor=3), [(2, 3, 2, 3)], {}),
    ("UpsamplingBilinear2d", lambda nn: nn.UpsamplingBilinear2d(size=(5, 4)), [(2, 3, 3, 3)], {}),
    ("Unfold", lambda nn: nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), [(2, 3, 6, 7)], {}),
    ("Fold", lambda nn: nn.Fold((5, 6), 2, stride=(1, 2)), [(2, 8, 12)], {}),
    ("Fold_overlap", lambda nn: nn.Fold(4, (2, 2), padding=1), [(12, 25)], {}),
    ("ZeroPad1d", lambda nn: nn.ZeroPad1d((2, 1)), [(2, 3, 4)], {}),
    ("ZeroPad2d", lambda nn: nn.ZeroPad2d((1, 0, 2, -1)), [(2, 3, 4, 5)], {}),
    ("ZeroPad3d", lambda nn: nn.ZeroPad3d(1), [(2, 3, 3, 4)], {}),
    ("ConstantPad1d", lambda nn: nn.ConstantPad1d(2, 1.5), [(3, 4)], {}),
    ("ConstantPad2d", lambda nn: nn.ConstantPad2d((1, 2, 0, 3), -2.0), [(2, 3, 4, 5)], {}),
    ("ConstantPad3d", lambda nn: nn.ConstantPad3d((1, 0, 0, 1, 2, 0), 0.5), [(2, 2, 3, 4)], {}),
    ("ReflectionPad1d", lambda nn: nn.ReflectionPad1d((3, 1)), [(2, 3, 5)], {}),
    ("ReflectionPad2d", lambda nn: nn.ReflectionPad2d((1, 2, 3, 0)), [(2, 3, 4, 5)], {}),
    ("ReflectionPad3d", lambda nn: nn.ReflectionPad3d(1), [(1, 2, 3, 3, 4)], {}),
    ("ReplicationPad1d", lambda nn: nn.ReplicationPad1d(3), [(3, 4)], {}),
    ("ReplicationPad2d", lambda nn: nn.ReplicationPad2d((2, 0, 1, 3)), [(2, 3, 4, 5)], {}),
    ("ReplicationPad3d", lambda nn: nn.ReplicationPad3d((1, 2, 0, 1, 1, 0)), [(2, 2, 3, 4)], {}),
    ("CircularPad1d", lambda nn: nn.CircularPad1d((2, 1)), [(2, 3, 4)], {}),
    ("CircularPad2d", lambda nn: nn.CircularPad2d((1, 2, 3, 0)), [(2, 3, 4, 5)], {}),
    ("CircularPad3d", lambda nn: nn.CircularPad3d(1), [(2, 2, 3, 4)], {}),
    ("PixelShuffle", lambda nn: nn.PixelShuffle(2), [(2, 12, 3, 4)], {}),
    ("PixelShuffle_5d", lambda nn: nn.PixelShuffle(3), [(2, 2, 9, 2, 1)], {}),
    ("PixelUnshuffle", lambda nn: nn.PixelUnshuffle(2), [(2, 3, 4, 6)], {}),
    ("PixelUnshuffle_3d", lambda nn: nn.PixelUnshuffle(3), [(2, 6, 3)], {}),
    ("Dropout2d_eval", lambda nn: nn.Dropout2d(0.5).eval(), [(2, 3, 4, 5)], {}),
]


def _random_params(m, dtype, seed=11):
    """Non-default values in every parameter (a zero bias would hide a missing one)."""
    with tp.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(tp.tensor(randn(seed + i, *p.shape, dtype=dtype)))


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,make,shapes,kw", LAYERS, ids=[c[0] for c in LAYERS])
def test_layer_matches_torch(name, make, shapes, kw, dtype):
    m, tm = pair(lambda: make(nn), lambda: make(torch.nn), dtype)
    _random_params(m, dtype)
    sync(m, tm)
    inputs = [randn(i + 1, *s, dtype=dtype) for i, s in enumerate(shapes)]
    outs = compare(m, tm, inputs, dtype, kwargs=kw)
    assert repr(m) == repr(tm)
    if getattr(m, "return_indices", False):     # the indices themselves, not only the values
        tout = tm(torch.tensor(inputs[0]))
        assert outs[1].dtype == tp.int64
        assert np.array_equal(outs[1].numpy(), tout[1].numpy())


@pytest.mark.parametrize("name,make,shapes,kw", LAYERS, ids=[c[0] for c in LAYERS])
def test_layer_gradcheck(name, make, shapes, kw):
    tp.manual_seed(3)
    m = make(nn)
    if isinstance(m, (nn.MaxPool1d, nn.MaxPool2d)):     # distinct values: no ties in a window
        inputs = [rng_perm(i, s) for i, s in enumerate(shapes)]
    else:
        inputs = [randn(i + 1, *s) for i, s in enumerate(shapes)]
    if kw:
        m.forward = (lambda f: lambda x: f(x, **kw))(m.forward)
    check_gradcheck(m, inputs)
    # and the parameters' gradients
    ps = list(m.parameters())
    if ps:
        x = tp.tensor(inputs[0])

        def f(*params):
            return tp.func.functional_call(m, dict(zip([n for n, _ in m.named_parameters()], params)), (x,))
        assert tp.autograd.gradcheck(f, [p.detach().clone().requires_grad_(True) for p in ps])


@pytest.mark.parametrize("make,shape", [
    (lambda: nn.Conv2d(2, 3, (2, 3), stride=(2, 1), padding=1, groups=1), (2, 2, 5, 5)),
    (lambda: nn.Conv1d(4, 2, 3, padding="same", groups=2, padding_mode="reflect"), (2, 4, 6)),
    (lambda: nn.ConvTranspose2d(2, 4, 3, stride=2, output_padding=1, groups=2), (1, 2, 3, 3)),
    (lambda: nn.AvgPool2d(3, 2, 1, count_include_pad=False), (2, 2, 5, 5)),
    (lambda: nn.MaxPool2d(2), None),
    (lambda: nn.Upsample(scale_factor=2, mode="bilinear"), (1, 2, 3, 3)),
    (lambda: nn.PixelShuffle(2), (1, 8, 2, 3)),
])
def test_second_derivatives(make, shape):
    """gradgradcheck through the layer, in its input and its parameters together."""
    tp.manual_seed(4)
    m = make().double()
    x = tp.tensor(rng_perm(0, (2, 2, 4, 4)) if shape is None else randn(5, *shape), requires_grad=True)
    names = [n for n, _ in m.named_parameters()]
    params = [p.detach().clone().requires_grad_(True) for p in m.parameters()]

    def f(x, *ps):
        return tp.func.functional_call(m, dict(zip(names, ps)), (x,))
    assert tp.autograd.gradgradcheck(f, [x] + params)


def rng_perm(seed, shape):
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n).reshape(shape) / n).astype("float64")


# ----------------------------------------------------------------- default initialisation
@pytest.mark.parametrize("make,fan_in", [
    (lambda: nn.Conv2d(16, 32, 3), 16 * 9),
    (lambda: nn.Conv2d(16, 32, (3, 5), groups=4), 4 * 15),
    (lambda: nn.Conv1d(20, 30, 5), 100),
    (lambda: nn.ConvTranspose2d(16, 24, 3, groups=2), 12 * 9),   # fan_in: weight.shape[1] * k
    (lambda: nn.ConvTranspose1d(10, 40, 4), 160),
])
def test_default_init_is_kaiming_uniform_sqrt5(make, fan_in):
    tp.manual_seed(0)
    m = make()
    bound = 1 / math.sqrt(fan_in)       # kaiming_uniform_(a=sqrt(5)): gain sqrt(1/3), bound sqrt(3)*gain/sqrt(fan_in)
    w = m.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.05 * bound
    assert abs(w.mean()) < 0.05 * bound
    b = m.bias.detach().numpy()
    assert np.abs(b).max() <= bound and np.abs(b).max() > 0.5 * bound
    assert m.weight.dtype == tp.float32 and m.weight.requires_grad


def test_layer_dtype_and_device_arguments():
    m = nn.Conv2d(2, 3, 3, dtype=tp.float64)
    assert m.weight.dtype == tp.float64 and m.bias.dtype == tp.float64
    assert nn.Conv2d(2, 3, 3, bias=False).bias is None
    assert "bias" not in nn.Conv2d(2, 3, 3, bias=False).state_dict()
    with pytest.raises(RuntimeError, match="CPU only"):
        nn.Conv1d(2, 3, 3, device="cuda")


# ----------------------------------------------------------------- configuration errors (PyTorch's)
BAD = [
    (lambda nn: nn.Conv2d(4, 6, 3, stride=2, padding="same"), ValueError,
     "padding='same' is not supported for strided convolutions"),
    (lambda nn: nn.Conv1d(4, 6, 3, stride=(2,), padding="same"), ValueError,
     "padding='same' is not supported for strided convolutions"),
    (lambda nn: nn.Conv2d(4, 6, 3, groups=3), ValueError, "in_channels must be divisible by groups"),
    (lambda nn: nn.Conv2d(4, 6, 3, groups=4), ValueError, "out_channels must be divisible by groups"),
    (lambda nn: nn.Conv2d(4, 6, 3, groups=0), ValueError, "groups must be a positive integer"),
    (lambda nn: nn.ConvTranspose2d(4, 6, 3, groups=3), ValueError, "in_channels must be divisible by groups"),
    (lambda nn: nn.Conv2d(4, 6, 3, padding="full"), ValueError, "Invalid padding string 'full', should be one of"),
    (lambda nn: nn.Conv2d(4, 6, 3, padding_mode="mirror"), ValueError,
     "padding_mode must be one of .* but got padding_mode='mirror'"),
    (lambda nn: nn.ConvTranspose2d(4, 6, 3, padding_mode="reflect"), ValueError,
     'Only "zeros" padding mode is supported for ConvTranspose2d'),
    (lambda nn: nn.ConvTranspose1d(4, 6, 3, padding_mode="circular"), ValueError,
     'Only "zeros" padding mode is supported for ConvTranspose1d'),
]


@pytest.mark.parametrize("make,exc,msg", BAD)
def test_bad_configuration_raises_like_torch(make, exc, msg):
    with pytest.raises(exc, match=msg):
        make(nn)
    if torch is not None:
        with pytest.raises(exc, match=msg):
            make(torch.nn)


def _call_errors(nn, T):
    """(callable, ...) that fail at call time, built against one library."""
    x = T.ones(1, 4, 6, 6)
    return [
        lambda: nn.Conv2d(3, 6, 3)(x),                                  # channels mismatch
        lambda: nn.Conv2d(4, 6, 7)(x),                                  # kernel larger than input
        lambda: nn.Conv2d(4, 6, 3)(T.ones(4, 6)),                       # wrong rank
        lambda: nn.ConvTranspose2d(4, 2, 3, stride=2)(x, output_size=[20, 20]),
        lambda: nn.ConvTranspose2d(4, 2, 3, stride=2)(x, output_size=[13]),
        lambda: nn.MaxPool2d(2, padding=2)(x),                          # pad > half the kernel
        lambda: nn.AvgPool2d(7)(x),                                     # output too small
    ]


@needs_torch
@pytest.mark.parametrize("i", range(7))
def test_call_errors_match_torch(i):
    with pytest.raises(Exception) as ours:
        _call_errors(nn, tp)[i]()
    with pytest.raises(Exception) as theirs:
        _call_errors(torch.nn, torch)[i]()
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value).replace("tensorplay", "torch") == str(theirs.value)


def _shuffle_pad_errors(nn, F, T):
    return [
        lambda: F.pixel_shuffle(T.ones(4, 2), 2),
        lambda: F.pixel_shuffle(T.ones(3, 2, 2), 0),
        lambda: F.pixel_shuffle(T.ones(3, 2, 2), 2),
        lambda: F.pixel_shuffle(T.ones(4, 2, 2), 2.0),
        lambda: F.pixel_unshuffle(T.ones(4, 3, 2), 2),
        lambda: F.pixel_unshuffle(T.ones(4, 2, 3), 2),
        lambda: F.pixel_unshuffle(T.ones(4, 2, 2), True),
        lambda: nn.CircularPad1d(1)(T.ones(2)),
        lambda: nn.CircularPad2d(1)(T.ones(2, 2)),
        lambda: nn.CircularPad3d(1)(T.ones(2, 2, 2, 2, 2, 2)),
        lambda: nn.ReflectionPad1d(3)(T.ones(1, 2, 3)),
        lambda: nn.Upsample(scale_factor=2, mode="bilinear")(T.ones(1, 2, 3)),
    ]


@needs_torch
@pytest.mark.parametrize("i", range(12))
def test_shuffle_pad_upsample_errors_match_torch(i):
    with pytest.raises(Exception) as ours:
        _shuffle_pad_errors(nn, F, tp)[i]()
    with pytest.raises(Exception) as theirs:
        _shuffle_pad_errors(torch.nn, torch.nn.functional, torch)[i]()
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


def test_pixel_shuffle_round_trip_and_values():
    x = tp.arange(2 * 8 * 2 * 3, dtype=tp.float64).reshape(2, 8, 2, 3)
    y = F.pixel_shuffle(x, 2)
    assert tuple(y.shape) == (2, 2, 4, 6)
    # out[n, c, h*r + i, w*r + j] = in[n, c*r*r + i*r + j, h, w]
    xn, yn = x.numpy(), y.numpy()
    assert yn[1, 1, 3, 4] == xn[1, 4 + 1 * 2 + 0, 1, 2]
    assert np.array_equal(F.pixel_unshuffle(y, 2).numpy(), xn)
    assert nn.PixelShuffle(1)(x).numpy().tolist() == xn.tolist()


@pytest.mark.parametrize("name", ["upsample", "upsample_nearest", "upsample_bilinear"])
def test_deprecated_upsample_spellings_warn_and_interpolate(name):
    x = tp.tensor(randn(0, 1, 2, 3, 3))
    with pytest.warns(UserWarning, match=f"`nn.functional.{name}` is deprecated"):
        y = getattr(F, name)(x, scale_factor=2)
    mode = {"upsample_bilinear": "bilinear"}.get(name, "nearest")
    expect = F.interpolate(x, scale_factor=2, mode=mode, align_corners=True if mode == "bilinear" else None)
    assert np.array_equal(y.numpy(), expect.numpy())


# ----------------------------------------------------------------- nn.functional spellings
FUNCTIONAL = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "max_pool1d", "max_pool2d",
              "max_pool1d_with_indices", "max_pool2d_with_indices", "avg_pool1d", "avg_pool2d",
              "adaptive_avg_pool1d", "adaptive_avg_pool2d", "pad", "interpolate", "unfold", "fold",
              "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle", "pixel_unshuffle"]


@pytest.mark.parametrize("name", FUNCTIONAL)
def test_functional_spellings_exist(name):
    assert callable(getattr(F, name)) and name in F.__all__


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
def test_functional_matches_torch(dtype):
    TF = torch.nn.functional
    x4, x3 = randn(1, 2, 4, 7, 8, dtype=dtype), randn(2, 2, 4, 9, dtype=dtype)
    w4, w3 = randn(3, 6, 2, 3, 3, dtype=dtype), randn(4, 6, 4, 3, dtype=dtype)
    wt4 = randn(5, 4, 3, 3, 3, dtype=dtype)
    cases = [
        ("conv2d", (x4, w4), dict(stride=2, padding=1, groups=2)),
        ("conv2d", (x4, w4), dict(padding="same", groups=2)),
        ("conv1d", (x3, w3), dict(padding=1, dilation=2)),
        ("conv_transpose2d", (x4, wt4), dict(stride=2, output_padding=1)),
        ("conv_transpose1d", (x3, w3.transpose(1, 0, 2).copy()[:4, :4]), dict(stride=3)),
        ("max_pool2d", (x4,), dict(kernel_size=3, stride=2, padding=1, return_indices=True)),
        ("max_pool2d_with_indices", (x4,), dict(kernel_size=2)),
        ("max_pool1d", (x3,), dict(kernel_size=2, return_indices=True)),
        ("max_pool1d_with_indices", (x3,), dict(kernel_size=3, stride=1)),
        ("avg_pool2d", (x4,), dict(kernel_size=3, padding=1, count_include_pad=False)),
        ("avg_pool1d", (x3,), dict(kernel_size=3, ceil_mode=True)),
        ("adaptive_avg_pool2d", (x4,), dict(output_size=(3, 5))),
        ("adaptive_avg_pool1d", (x3,), dict(output_size=4)),
        ("pad", (x4,), dict(pad=(1, 2, 3, 0), mode="reflect")),
        ("pad", (x3,), dict(pad=(2, 1), value=1.5)),
        ("interpolate", (x4,), dict(scale_factor=2, mode="bilinear", align_corners=False)),
        ("interpolate", (x3,), dict(size=13, mode="nearest")),
        ("unfold", (x4,), dict(kernel_size=(2, 3), stride=2)),
        ("fold", (randn(4, 2, 12, 8, dtype=dtype),), dict(output_size=(4, 5), kernel_size=2, stride=(2, 1))),
    ]
    for name, args, kw in cases:
        ours = getattr(F, name)(*[tp.tensor(a) for a in args], **kw)
        theirs = getattr(TF, name)(*[torch.tensor(a) for a in args], **kw)
        ours, theirs = (ours, theirs) if isinstance(ours, tuple) else ((ours,), (theirs,))
        for a, b in zip(ours, theirs):
            assert_close(a.numpy(), b.numpy(), atol=1e-5, rtol=1e-5, msg=name)


# ----------------------------------------------------------------- a small CNN: state dict, training
def small_cnn(nn):
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(4 * 4 * 4, 3))


def test_small_cnn_state_dict_keys_and_shapes():
    tp.manual_seed(0)
    sd = small_cnn(nn).state_dict()
    expect = [("0.weight", (4, 1, 3, 3)), ("0.bias", (4,)), ("1.weight", (4,)), ("1.bias", (4,)),
              ("1.running_mean", (4,)), ("1.running_var", (4,)), ("1.num_batches_tracked", ()),
              ("5.weight", (3, 64)), ("5.bias", (3,))]
    assert [(k, tuple(v.shape)) for k, v in sd.items()] == expect
    if torch is not None:
        tsd = small_cnn(torch.nn).state_dict()
        assert [(k, tuple(v.shape)) for k, v in tsd.items()] == expect
        assert [str(v.dtype) for v in tsd.values()] == [str(v.dtype).replace("tensorplay", "torch")
                                                        for v in sd.values()]


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
def test_small_cnn_matches_torch_in_train_and_eval(dtype):
    m, tm = pair(lambda: small_cnn(nn), lambda: small_cnn(torch.nn), dtype)
    x = randn(5, 6, 1, 8, 8, dtype=dtype)
    compare(m, tm, [x], dtype)                              # train: batch statistics
    assert_close(m[1].running_mean.numpy(), tm[1].running_mean.numpy(), atol=1e-6, rtol=1e-5)
    m.eval()
    tm.eval()
    compare(m, tm, [x], dtype, seed=1)                      # eval: running statistics
    tm2 = small_cnn(torch.nn).to(getattr(torch, dtype))
    tm2.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in m.state_dict().items()})


def test_small_cnn_trains():
    tp.manual_seed(0)
    g = np.random.default_rng(0)
    # three classes: a bright blob top-left, bottom-right, or none
    x = g.standard_normal((48, 1, 8, 8)).astype("float32") * 0.3
    y = np.arange(48) % 3
    x[y == 0, 0, :4, :4] += 1.0
    x[y == 1, 0, 4:, 4:] += 1.0
    model = small_cnn(nn)
    opt = tp.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    xt, yt = tp.tensor(x), tp.tensor(y)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = F.cross_entropy(model(xt), yt)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.3 * losses[0]
    model.eval()
    with tp.no_grad():
        acc = (model(xt).argmax(1) == yt).float().mean().item()
    assert acc > 0.9


# ----------------------------------------------------------------- the stride-1 kernels' layouts
# (ops/conv.py lays stride-1 columns out in the padded input's width when that is
# cheaper: these sweep both layouts, odd paddings, dilations, groups and sizes)
STRIDE1 = [
    # (N, C, H, W), (O, C/g, KH, KW), padding, dilation, groups
    ((2, 3, 9, 10), (4, 3, 3, 3), (1, 1), (1, 1), 1),
    ((2, 4, 8, 7), (6, 2, 2, 3), (0, 2), (2, 1), 2),
    ((1, 2, 6, 12), (3, 2, 5, 1), (2, 0), (1, 1), 1),
    ((3, 1, 5, 5), (2, 1, 5, 5), (0, 0), (1, 1), 1),        # 1x1 output: the plain layout
    ((2, 3, 7, 30), (2, 3, 3, 4), (1, 3), (2, 3), 1),
    ((1, 6, 4, 4), (6, 1, 3, 3), (2, 2), (1, 1), 6),
]


@needs_torch
@pytest.mark.parametrize("xs,ws,p,d,g", STRIDE1)
def test_stride1_convolutions_match_torch(xs, ws, p, d, g):
    x, w = randn(1, *xs), randn(2, *ws)
    xo, wo = tp.tensor(x, requires_grad=True), tp.tensor(w, requires_grad=True)
    ours = F.conv2d(xo, wo, padding=p, dilation=d, groups=g)
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    theirs = torch.nn.functional.conv2d(xt, wt, padding=p, dilation=d, groups=g)
    assert_close(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-10, rtol=1e-10)
    gy = randn(3, *theirs.shape)
    gx, gw = tp.autograd.grad(ours, (xo, wo), tp.tensor(gy))
    tgx, tgw = torch.autograd.grad(theirs, (xt, wt), torch.tensor(gy))
    assert_close(gx.numpy(), tgx.numpy(), atol=1e-10, rtol=1e-10)
    assert_close(gw.numpy(), tgw.numpy(), atol=1e-10, rtol=1e-10)
    # the transposed convolution of stride 1 (its forward is the input gradient's kernel)
    op = (1, 1) if d[0] > 1 and d[1] > 1 else (0, 0)
    y = randn(4, xs[0], ws[0], 5, 6)
    ours = F.conv_transpose2d(tp.tensor(y), tp.tensor(w), padding=(0, 1), dilation=d, groups=g, output_padding=op)
    theirs = torch.nn.functional.conv_transpose2d(torch.tensor(y), torch.tensor(w), padding=(0, 1), dilation=d,
                                                  groups=g, output_padding=op)
    assert_close(ours.numpy(), theirs.numpy(), atol=1e-10, rtol=1e-10)


@needs_torch
@pytest.mark.filterwarnings("ignore:.*encountered in matmul:RuntimeWarning")    # (NumPy's, on inf * 0)
@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_stride1_convolution_with_nonfinite_values_matches_torch(bad):
    """A non-finite input or weight entry reaches exactly the gradient entries it
    reaches in PyTorch (the wide layout's spare columns must not spread it)."""
    x, w = randn(1, 2, 3, 6, 9), randn(2, 4, 3, 3, 3)
    x[1, 2, 0, 8] = bad
    w[3, 1, 2, 0] = bad
    for which in ("x", "w"):
        xx, ww = (x, np.where(np.isfinite(w), w, 0)) if which == "x" else (np.where(np.isfinite(x), x, 0), w)
        xo, wo = tp.tensor(xx, requires_grad=True), tp.tensor(ww, requires_grad=True)
        xt, wt = torch.tensor(xx, requires_grad=True), torch.tensor(ww, requires_grad=True)
        gy = randn(5, 2, 4, 6, 9)
        gx, gw = tp.autograd.grad(F.conv2d(xo, wo, padding=1), (xo, wo), tp.tensor(gy))
        tgx, tgw = torch.autograd.grad(torch.nn.functional.conv2d(xt, wt, padding=1), (xt, wt), torch.tensor(gy))
        for a, b in ((gx, tgx), (gw, tgw)):
            a, b = a.numpy(), b.numpy()
            assert np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(np.isinf(a), np.isinf(b))
            fin = np.isfinite(b)
            assert_close(a[fin], b[fin], atol=1e-10, rtol=1e-10)
