"""Convolution, pooling, padding and interpolation beyond the op table: option
combinations and realistic (speed-related) shapes against PyTorch in float32
and float64, backward node names, double backward against PyTorch, and the
behaviour the table cannot express (warnings, which backward ops run)."""
import itertools
import warnings

import numpy as np
import pytest

import tensorplay as tp
from tensorplay.ops import conv as C, pooling as P, resample as R

from conftest import assert_close, record_ops, torch

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")
TOL = {np.float32: dict(atol=2e-4, rtol=2e-4), np.float64: dict(atol=1e-9, rtol=1e-7)}


def _F(T, name):
    if T is tp:
        return getattr(C, name, None) or getattr(P, name, None) or getattr(R, name)
    return getattr(torch.nn.functional, name)


def _arrays(seed, *shapes, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def _both(fn, arrays, dtype, seed=0, grad=True):
    """``fn(T, *tensors)`` in tensorplay and torch: values and the gradients of a
    random weighting of the (first) output, compared."""
    outs, grads = [], []
    for T in (tp, torch):
        xs = [T.tensor(a, requires_grad=grad) for a in arrays]
        y = fn(T, *xs)
        y = y[0] if isinstance(y, tuple) else y
        outs.append(y.detach().numpy())
        if grad:
            rng = np.random.default_rng(seed + 1)
            w = rng.standard_normal(tuple(y.shape))
            if np.iscomplexobj(arrays[0]):
                w = w + 1j * rng.standard_normal(tuple(y.shape))
            w = w.astype(arrays[0].dtype)
            grads.append([g.numpy() for g in T.autograd.grad(y, xs, T.tensor(w))])
    tol = TOL[dtype]
    assert_close(outs[0], outs[1], **tol)
    for a, b in zip(*grads):
        assert_close(a, b, **tol)
    return outs[0]


# ---------------------------------------------------------------- convolutions against torch
CONV2D_OPTIONS = list(itertools.product((1, 2, (2, 1)), (0, 1, (2, 0)), (1, 2), (1, 2), (True, False)))


@needs_torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("stride,padding,dilation,groups,bias", CONV2D_OPTIONS)
def test_conv2d_options_against_torch(stride, padding, dilation, groups, bias, dtype):
    x, w, b = _arrays(1, (2, 4, 9, 8), (6, 4 // groups, 3, 2), (6,), dtype=dtype)
    arrays = [x, w, b] if bias else [x, w]
    _both(lambda T, *a: T.conv2d(*a, stride=stride, padding=padding, dilation=dilation, groups=groups),
          arrays, dtype)


CONV_T_OPTIONS = [(s, p, op, d, g) for s, p, op, d, g in
                  itertools.product((1, 2, 3), (0, 1), (0, 1, 2), (1, 2), (1, 2)) if op < max(s, d)]


@needs_torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("stride,padding,output_padding,dilation,groups", CONV_T_OPTIONS)
def test_conv_transpose2d_options_against_torch(stride, padding, output_padding, dilation, groups, dtype):
    x, w, b = _arrays(2, (2, 4, 5, 4), (4, 6 // groups, 3, 2), (6,), dtype=dtype)
    _both(lambda T, *a: T.conv_transpose2d(*a, stride=stride, padding=padding, output_padding=output_padding,
                                           dilation=dilation, groups=groups), [x, w, b], dtype)


@needs_torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("stride,padding,dilation,groups", list(itertools.product((1, 3), (0, 2), (1, 2), (1, 2))))
def test_conv1d_and_transpose_against_torch(stride, padding, dilation, groups, dtype):
    x, w, b = _arrays(3, (3, 4, 11), (6, 4 // groups, 3), (6,), dtype=dtype)
    _both(lambda T, *a: T.conv1d(*a, stride=stride, padding=padding, dilation=dilation, groups=groups),
          [x, w, b], dtype)
    x, w = _arrays(4, (3, 4, 6), (4, 6 // groups, 3), dtype=dtype)
    _both(lambda T, *a: T.conv_transpose1d(*a, stride=stride, padding=padding, dilation=dilation, groups=groups),
          [x, w], dtype)


# shapes of real networks (the speed-relevant paths: im2col + batched matmul, 1x1, depthwise)
NETWORK_SHAPES = {
    "lenet1": ((16, 1, 28, 28), (6, 1, 5, 5), dict(padding=2)),
    "lenet2": ((16, 6, 14, 14), (16, 6, 5, 5), {}),
    "resnet_stem": ((2, 3, 64, 64), (8, 3, 7, 7), dict(stride=2, padding=3)),
    "conv3x3": ((8, 16, 28, 28), (32, 16, 3, 3), dict(padding=1)),
    "downsample": ((4, 16, 16, 16), (32, 16, 3, 3), dict(stride=2, padding=1)),
    "pointwise": ((4, 32, 14, 14), (64, 32, 1, 1), {}),
    "pointwise_stride": ((4, 32, 14, 14), (64, 32, 1, 1), dict(stride=2)),
    "depthwise": ((4, 32, 14, 14), (32, 1, 3, 3), dict(padding=1, groups=32)),
    "same_5x5": ((4, 8, 20, 20), (8, 8, 5, 5), dict(padding="same")),
}


@needs_torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", NETWORK_SHAPES)
def test_conv2d_network_shapes_against_torch(name, dtype):
    xs, ws, kw = NETWORK_SHAPES[name]
    x, w, b = _arrays(5, xs, ws, (ws[0],), dtype=dtype)
    w *= 0.2
    _both(lambda T, *a: T.conv2d(*a, **kw), [x, w, b], dtype)


@needs_torch
def test_conv_non_contiguous_weight_and_input():
    x, w = _arrays(6, (2, 5, 4, 3), (6, 3, 2, 4))
    x = np.transpose(x, (0, 3, 2, 1))                # (2, 3, 4, 5), not contiguous
    w = np.transpose(w, (1, 0, 3, 2))                # (3, 6, 4, 2) as a transposed-conv weight
    _both(lambda T, a, b: T.conv_transpose2d(a, b, stride=2), [x, w], np.float64)
    _both(lambda T, a, b: T.conv2d(a, b.transpose(0, 1)[:, :3, :, :]), [x, w], np.float64)


@needs_torch
def test_conv_complex_against_torch():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 5, 5)) + 1j * rng.standard_normal((2, 3, 5, 5))
    w = rng.standard_normal((4, 3, 3, 3)) + 1j * rng.standard_normal((4, 3, 3, 3))
    _both(lambda T, a, b: T.conv2d(a, b, padding=1, stride=2), [x, w], np.float64)


@needs_torch
def test_conv_integer_inputs_against_torch():
    x = np.arange(2 * 3 * 5 * 4).reshape(2, 3, 5, 4) % 7
    w = np.arange(4 * 3 * 2 * 2).reshape(4, 3, 2, 2) % 5 - 2
    a = tp.conv2d(tp.tensor(x), tp.tensor(w), padding=1)
    b = torch.conv2d(torch.tensor(x), torch.tensor(w), padding=1)
    assert a.dtype == tp.int64 and np.array_equal(a.numpy(), b.numpy())


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_conv_low_precision(dtype):
    x, w = _arrays(8, (2, 3, 6, 6), (4, 3, 3, 3), dtype=np.float32)
    a = tp.conv2d(tp.tensor(x).to(getattr(tp, dtype)), tp.tensor(w).to(getattr(tp, dtype)), padding=1)
    b = torch.conv2d(torch.tensor(x).to(getattr(torch, dtype)), torch.tensor(w).to(getattr(torch, dtype)),
                     padding=1)
    assert str(a.dtype) == str(b.dtype).replace("torch", "tensorplay")
    assert_close(a.float().numpy(), b.float().numpy(), atol=0.1, rtol=0.02)


# ---------------------------------------------------------------- double backward against torch
def _double_backward(T, fn, arrays):
    xs = [T.tensor(a, requires_grad=True) for a in arrays]
    y = fn(T, *xs)
    gs = T.autograd.grad((y * y).sum(), xs, create_graph=True)
    total = sum((g * g).sum() for g in gs)
    return [g.numpy() for g in T.autograd.grad(total, xs)]


@needs_torch
@pytest.mark.parametrize("case", ["conv2d", "conv_transpose2d", "conv1d_groups", "max_pool2d", "avg_pool2d",
                                  "adaptive", "bilinear", "reflect"])
def test_double_backward_against_torch(case):
    fns = {
        "conv2d": (lambda T, x, w: T.conv2d(x, w, stride=2, padding=1, dilation=(1, 2)),
                   [(2, 3, 7, 8), (4, 3, 3, 2)]),
        "conv_transpose2d": (lambda T, x, w: T.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1),
                             [(2, 3, 4, 3), (3, 4, 3, 3)]),
        "conv1d_groups": (lambda T, x, w: T.conv1d(x, w, groups=2, padding=1), [(2, 4, 7), (6, 2, 3)]),
        "max_pool2d": (lambda T, x: _F(T, "max_pool2d")(x.tanh(), 3, 2, 1), [(2, 3, 7, 6)]),
        "avg_pool2d": (lambda T, x: _F(T, "avg_pool2d")(x.tanh(), 3, 2, 1, ceil_mode=True,
                                                        count_include_pad=False), [(2, 3, 7, 6)]),
        "adaptive": (lambda T, x: _F(T, "adaptive_avg_pool2d")(x.tanh(), (4, 5)), [(2, 3, 7, 6)]),
        "bilinear": (lambda T, x: _F(T, "interpolate")(x.tanh(), scale_factor=1.5, mode="bilinear"),
                     [(2, 3, 4, 5)]),
        "reflect": (lambda T, x: _F(T, "pad")(x.tanh(), (2, 1, 1, 2), mode="reflect"), [(2, 3, 4, 5)]),
    }
    fn, shapes = fns[case]
    arrays = _arrays(9, *shapes)
    for a, b in zip(_double_backward(tp, fn, arrays), _double_backward(torch, fn, arrays)):
        assert_close(a, b, atol=1e-9, rtol=1e-7)


# ---------------------------------------------------------------- pooling against torch
POOL_OPTIONS = list(itertools.product((2, 3, (3, 2)), (None, 1, 2), (0, 1), (False, True)))


@needs_torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("kernel,stride,padding,ceil_mode", POOL_OPTIONS)
def test_pools_against_torch(kernel, stride, padding, ceil_mode, dtype):
    (x,) = _arrays(10, (2, 3, 9, 8), dtype=dtype)
    kw = dict(kernel_size=kernel, stride=stride, padding=padding, ceil_mode=ceil_mode)
    for dil in (1, 2):
        _both(lambda T, a: _F(T, "max_pool2d")(a, dilation=dil, **kw), [x], dtype)
        ia = tp.max_pool2d(tp.tensor(x), dilation=dil, return_indices=True, **kw)[1]
        ib = torch.nn.functional.max_pool2d(torch.tensor(x), dilation=dil, return_indices=True, **kw)[1]
        assert np.array_equal(ia.numpy(), ib.numpy())
    for include, divisor in ((True, None), (False, None), (True, 5)):
        _both(lambda T, a: _F(T, "avg_pool2d")(a, count_include_pad=include, divisor_override=divisor, **kw),
              [x], dtype)


@needs_torch
@pytest.mark.parametrize("size", [(1, 1), (3, 4), (9, 8), (4, 2), (13, 17), (2, None)])
def test_adaptive_avg_pool2d_against_torch(size):
    for dtype in (np.float32, np.float64):
        (x,) = _arrays(11, (2, 3, 9, 8), dtype=dtype)
        _both(lambda T, a: _F(T, "adaptive_avg_pool2d")(a, size), [x], dtype)


@needs_torch
def test_pool_network_shapes_against_torch():
    (x,) = _arrays(12, (32, 32, 28, 28), dtype=np.float32)
    _both(lambda T, a: _F(T, "max_pool2d")(a, 2), [x], np.float32)
    _both(lambda T, a: _F(T, "max_pool2d")(a, 3, 2, 1), [x], np.float32)       # ResNet's
    _both(lambda T, a: _F(T, "avg_pool2d")(a, 2), [x], np.float32)
    _both(lambda T, a: _F(T, "adaptive_avg_pool2d")(a, 7), [x], np.float32)


@needs_torch
def test_max_pool_ties_nan_and_infinity_pick_torchs_index():
    x = np.array([[[[1.0, 5.0, 5.0, 0.0], [5.0, np.nan, 7.0, np.nan], [-np.inf, -np.inf, 2.0, 2.0],
                    [-np.inf, -np.inf, 2.0, 2.0]]]])
    for kw in (dict(kernel_size=2), dict(kernel_size=2, stride=1, padding=1), dict(kernel_size=3, stride=1,
                                                                                     padding=1)):
        a, ia = tp.max_pool2d(tp.tensor(x), return_indices=True, **kw)
        b, ib = torch.nn.functional.max_pool2d(torch.tensor(x), return_indices=True, **kw)
        assert_close(a.numpy(), b.numpy(), atol=0)
        assert np.array_equal(ia.numpy(), ib.numpy()), kw


@needs_torch
def test_integer_pools_against_torch():
    x = (np.arange(2 * 3 * 5 * 6).reshape(2, 3, 5, 6) * 7919 % 23 - 11).astype(np.int64)
    for f, kw in ((lambda T, a, **k: _F(T, "max_pool2d")(a, **k), dict(kernel_size=3, stride=2, padding=1)),
                  (lambda T, a, **k: _F(T, "avg_pool2d")(a, **k), dict(kernel_size=3, stride=2, padding=1)),
                  (lambda T, a, **k: _F(T, "avg_pool2d")(a, **k), dict(kernel_size=2, count_include_pad=False,
                                                                       padding=1))):
        a, b = f(tp, tp.tensor(x), **kw), f(torch, torch.tensor(x), **kw)
        assert a.dtype == tp.int64 and np.array_equal(a.numpy(), b.numpy())


# ---------------------------------------------------------------- padding, interpolation, unfold/fold
@needs_torch
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("pad", [(1, 2), (2, 0, 1, 3), (-1, 2, 2, -2), (1, 1, 2, 0, 1, 1)])
def test_pad_against_torch(mode, pad):
    (x,) = _arrays(13, {1: (2, 3, 5), 2: (2, 3, 4, 5), 3: (1, 2, 3, 4, 5)}[len(pad) // 2])
    _both(lambda T, a: _F(T, "pad")(a, pad, mode=mode), [x], np.float64)


@needs_torch
@pytest.mark.parametrize("mode,align", [("nearest", None), ("nearest-exact", None), ("bilinear", False),
                                        ("bilinear", True), ("area", None)])
@pytest.mark.parametrize("kw", [dict(scale_factor=2), dict(scale_factor=0.5), dict(scale_factor=(1.5, 2.3)),
                                dict(size=(7, 3)), dict(size=(16, 16)), dict(scale_factor=1.3,
                                                                              recompute_scale_factor=True)])
def test_interpolate_against_torch(mode, align, kw):
    for dtype in (np.float32, np.float64):
        (x,) = _arrays(14, (2, 3, 8, 6), dtype=dtype)
        _both(lambda T, a: _F(T, "interpolate")(a, mode=mode, align_corners=align, **kw), [x], dtype)


@needs_torch
@pytest.mark.parametrize("kw", [dict(kernel_size=3), dict(kernel_size=(2, 3), stride=(2, 1), padding=1,
                                                            dilation=(2, 1))])
def test_unfold_fold_against_torch(kw):
    (x,) = _arrays(15, (4, 3, 10, 9), dtype=np.float32)
    cols = _both(lambda T, a: _F(T, "unfold")(a, **kw), [x], np.float32)
    _both(lambda T, a: _F(T, "fold")(a, (10, 9), **kw), [cols], np.float32)


@needs_torch
@pytest.mark.parametrize("make", [
    lambda T: T.conv2d(T.ones(1, 2, 5, 5, requires_grad=True), T.ones(3, 2, 3, 3), padding=1),
    lambda T: T.conv2d(T.ones(2, 5, 5, requires_grad=True), T.ones(3, 2, 3, 3)),
    lambda T: T.conv1d(T.ones(1, 2, 5, requires_grad=True), T.ones(3, 2, 3)),
    lambda T: T.conv_transpose2d(T.ones(1, 2, 5, 5, requires_grad=True), T.ones(2, 3, 3, 3)),
    lambda T: _F(T, "max_pool2d")(T.ones(1, 2, 5, 5, requires_grad=True), 2),
    lambda T: _F(T, "avg_pool2d")(T.ones(1, 2, 5, 5, requires_grad=True), 2),
    lambda T: _F(T, "adaptive_avg_pool2d")(T.ones(1, 2, 5, 5, requires_grad=True), 3),
    lambda T: _F(T, "adaptive_avg_pool2d")(T.ones(1, 2, 5, 5, requires_grad=True), 1),
    lambda T: _F(T, "unfold")(T.ones(1, 2, 5, 5, requires_grad=True), 2),
    lambda T: _F(T, "fold")(T.ones(1, 8, 16, requires_grad=True), (5, 5), 2),
    lambda T: _F(T, "pad")(T.ones(1, 2, 5, 5, requires_grad=True), (1, 1)),
    lambda T: _F(T, "pad")(T.ones(1, 2, 5, 5, requires_grad=True), (1, 1, 1, 1), mode="reflect"),
    lambda T: _F(T, "pad")(T.ones(2, 5, 5, requires_grad=True), (1, 1), mode="replicate"),
    lambda T: _F(T, "interpolate")(T.ones(1, 2, 5, 5, requires_grad=True), scale_factor=2),
    lambda T: _F(T, "interpolate")(T.ones(1, 2, 5, requires_grad=True), scale_factor=2),
    lambda T: _F(T, "interpolate")(T.ones(1, 2, 5, 5, requires_grad=True), scale_factor=2, mode="bilinear"),
    lambda T: _F(T, "interpolate")(T.ones(1, 2, 5, requires_grad=True), scale_factor=2, mode="linear"),
    lambda T: _F(T, "interpolate")(T.ones(1, 2, 5, 5, requires_grad=True), scale_factor=2, mode="nearest-exact"),
], ids=["conv2d", "conv2d_unbatched", "conv1d", "conv_transpose2d", "max_pool2d", "avg_pool2d", "adaptive",
        "adaptive_global", "unfold", "fold", "pad", "reflect", "replicate", "nearest", "nearest1d", "bilinear",
        "linear", "nearest_exact"])
def test_backward_node_names_are_torchs(make):
    name = type(make(tp).grad_fn).__name__
    want = type(make(torch).grad_fn).__name__
    # (tensorplay's squeeze(dim) and mean(dims) nodes are named SqueezeBackward0 and MeanBackward0
    # whatever their overload; PyTorch's say 1: that naming belongs to those ops, not to these)
    assert name == want or name[:-1] == want[:-1] and name[:-1] in ("SqueezeBackward", "MeanBackward")


# ---------------------------------------------------------------- behaviour (no torch needed)
def test_same_padding_with_even_kernel_warns_and_pads_the_far_side():
    x = tp.tensor(np.arange(16.0).reshape(1, 1, 4, 4))
    w = tp.ones(1, 1, 2, 2, dtype=tp.float64)
    with pytest.warns(UserWarning, match="padding='same' with even kernel lengths"):
        y = tp.conv2d(x, w, padding="same")
    assert tuple(y.shape) == (1, 1, 4, 4)
    xp = np.pad(np.arange(16.0).reshape(4, 4), ((0, 1), (0, 1)))
    want = xp[:-1, :-1] + xp[1:, :-1] + xp[:-1, 1:] + xp[1:, 1:]
    assert_close(y.numpy()[0, 0], want, atol=0)


def test_same_padding_with_odd_kernel_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = tp.conv2d(tp.ones(1, 2, 5, 5), tp.ones(3, 2, 3, 3), padding="same")
    assert tuple(y.shape) == (1, 3, 5, 5)


def test_first_layer_backward_computes_no_input_gradient():
    """An input that does not require grad gets no transposed convolution in backward."""
    x = tp.ones(2, 1, 8, 8)
    w = tp.ones(3, 1, 3, 3, requires_grad=True)
    y = tp.conv2d(x, w, padding=1)
    ran = record_ops(lambda: y.sum().backward()).seen
    assert "convolution_backward_weight" in ran and "convolution" not in ran


def test_conv_gradients_numerically_float64():
    x, w, b = (tp.tensor(a, requires_grad=True) for a in _arrays(16, (2, 4, 6, 5), (6, 2, 3, 3), (6,)))

    def f(x, w, b):
        return tp.conv2d(x, w, b, stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)
    assert tp.autograd.gradcheck(f, (x, w, b))
    assert tp.autograd.gradgradcheck(f, (x, w, b))


def test_conv_transpose_is_the_adjoint_of_conv():
    """<conv(x, w), y> == <x, conv_transpose(y, w)> for every option combination."""
    for s, p, d, g in itertools.product((1, 2, 3), (0, 1), (1, 2), (1, 2)):
        x, w = _arrays(17, (2, 4, 9, 8), (6, 4 // g, 3, 2))
        y = tp.conv2d(tp.tensor(x), tp.tensor(w), stride=s, padding=p, dilation=d, groups=g)
        (u,) = _arrays(18, tuple(y.shape))
        op = ((9 + 2 * p - d * 2 - 1) % s, (8 + 2 * p - d - 1) % s)     # the rows the stride skipped
        xt = tp.conv_transpose2d(tp.tensor(u), tp.tensor(w), stride=s, padding=p, output_padding=op,
                                 dilation=d, groups=g)
        assert tuple(xt.shape) == x.shape
        assert np.vdot(y.numpy(), u) == pytest.approx(np.vdot(x, xt.numpy()), rel=1e-10)


def test_pool_and_pad_unbatched_inputs_match_batched():
    (x,) = _arrays(19, (3, 7, 6))
    t = tp.tensor(x)
    for f in (lambda a: P.max_pool2d(a, 3, 2, 1), lambda a: P.avg_pool2d(a, 2, ceil_mode=True),
              lambda a: P.adaptive_avg_pool2d(a, (3, 4)), lambda a: R.pad(a, (1, 2, 2, 1), mode="reflect"),
              lambda a: tp.conv2d(a, tp.ones(2, 3, 2, 2, dtype=tp.float64)), lambda a: C.unfold(a, 2)):
        assert_close(f(t).numpy(), f(t.unsqueeze(0))[0].numpy(), atol=0)


def test_forward_mode_through_a_small_cnn():
    """jvp of conv -> relu -> max_pool -> avg over a direction equals the finite difference."""
    import tensorplay.autograd.forward_ad as fwAD
    x, w, v = _arrays(20, (2, 3, 8, 8), (4, 3, 3, 3), (2, 3, 8, 8))

    def f(a):
        return P.avg_pool2d(P.max_pool2d(tp.conv2d(a, tp.tensor(w), padding=1).tanh(), 2), 2)
    with fwAD.dual_level():
        t = fwAD.unpack_dual(f(fwAD.make_dual(tp.tensor(x), tp.tensor(v)))).tangent.numpy()
    eps = 1e-6
    fd = (f(tp.tensor(x + eps * v)).numpy() - f(tp.tensor(x - eps * v)).numpy()) / (2 * eps)
    assert_close(t, fd, atol=1e-6, rtol=1e-5)


# ---------------------------------------------------------------- batching rules (vmap's slot)
def _t(rng, shape):
    return tp.tensor(rng.standard_normal(shape))


BATCHED = {      # op name -> per-sample arguments (tensors drawn fresh per sample)
    "convolution": lambda r: [_t(r, (2, 4, 6, 5)), _t(r, (6, 2, 3, 2)), _t(r, (6,)), (2, 1), (1, 0), (1, 2),
                              False, (0, 0), 2],
    "convolution_transposed": lambda r: [_t(r, (2, 4, 3, 4)), _t(r, (4, 3, 3, 2)), _t(r, (6,)), (2, 1), (1, 0),
                                         (1, 1), True, (1, 0), 2],
    "convolution_backward_weight": lambda r: [_t(r, (2, 4, 6, 5)), _t(r, (2, 6, 3, 4)), (3, 2), (2, 1), (1, 0),
                                              (1, 1), 2],
    "max_pool2d_with_indices": lambda r: [_t(r, (2, 3, 7, 6)), (3, 3), (2, 2), (1, 1), (1, 1), True],
    "avg_pool2d": lambda r: [_t(r, (3, 7, 6)), (3, 2), (2, 2), (1, 1), True, False, None],
    "adaptive_avg_pool2d": lambda r: [_t(r, (2, 3, 7, 6)), (3, 4)],
    "im2col": lambda r: [_t(r, (2, 3, 7, 6)), (2, 3), (1, 1), (1, 0), (2, 1)],
    "col2im": lambda r: [_t(r, (12, 20)), (5, 6), (2, 2), (1, 1), (0, 0), (1, 1)],
    "constant_pad_nd": lambda r: [_t(r, (3, 4)), (1, 2, -1, 1), 0.5],
    "reflection_pad": lambda r: [_t(r, (2, 3, 4, 5)), (1, 2, 3, 0)],
    "upsample_linear": lambda r: [_t(r, (2, 3, 4, 5)), (7, 3), (None, None), False],
}


@pytest.mark.parametrize("name", BATCHED)
def test_batch_rule_matches_a_loop(name):
    from tensorplay.ops import REGISTRY
    from tensorplay.ops._registry import dispatch
    op = REGISTRY[name.replace("_transposed", "")]
    make = BATCHED[name]
    n_t = sum(isinstance(a, tp.Tensor) for a in make(np.random.default_rng(0)))
    rng = np.random.default_rng(21)
    B = 3
    patterns = [[0] * n_t] + [[None] * i + [d] + [None] * (n_t - i - 1) for i in range(n_t) for d in (0, 1)]
    for bdims in patterns:
        per = [make(rng) for _ in range(B)]
        batched = list(per[0])
        for i, b in enumerate(bdims):
            if b is None:
                for p in per:
                    p[i] = per[0][i]            # the same for every sample
            else:
                batched[i] = tp.stack([p[i] for p in per], dim=b)
        out, bd = op.batch(op, batched, list(bdims) + [None] * (op.n_in - n_t))
        outs = out if isinstance(out, tuple) else (out,)
        want = [dispatch(op, p) for p in per]
        want = [w if isinstance(w, tuple) else (w,) for w in want]
        for k, o in enumerate(outs):
            expected = np.stack([w[k].numpy() for w in want])
            assert_close(o.movedim(bd, 0).numpy(), expected, atol=1e-12, rtol=1e-10, msg=f"{name} {bdims}")
