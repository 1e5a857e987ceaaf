"""``nn.utils``'s fusion helpers, ``skip_init`` and the conv-weight memory-format
converters, and ``utils.data.StackDataset``: against PyTorch where it is
installed (values, gradients, errors), and on their own terms without it."""
import numpy as np
import pytest

import tensorplay as tp

from conftest import assert_close, torch

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def _params(mod, lib, seed):
    """Give ``mod`` (a tensorplay or torch module) seeded parameters and running stats."""
    rng = np.random.default_rng(seed)
    for name, t in list(mod.named_parameters()) + list(mod.named_buffers()):
        if t.dtype in (lib.int64,):
            continue
        a = rng.uniform(0.5, 2.0, tuple(t.shape)) if "var" in name else rng.normal(size=tuple(t.shape))
        with lib.no_grad():
            t.copy_(lib.tensor(a))


def _conv_bn(lib, kind, bias, affine, seed=0):
    if kind == "conv2d":
        conv, bn = lib.nn.Conv2d(3, 4, 3, bias=bias), lib.nn.BatchNorm2d(4, affine=affine)
    elif kind == "convT2d":
        conv, bn = lib.nn.ConvTranspose2d(3, 4, 2, bias=bias), lib.nn.BatchNorm2d(4, affine=affine)
    elif kind == "conv1d":
        conv, bn = lib.nn.Conv1d(3, 4, 2, bias=bias), lib.nn.BatchNorm1d(4, affine=affine)
    else:
        conv, bn = lib.nn.Conv3d(2, 3, 2, bias=bias), lib.nn.BatchNorm3d(3, affine=affine)
    conv, bn = conv.double(), bn.double()
    _params(conv, lib, seed)
    _params(bn, lib, seed + 1)
    return conv.eval(), bn.eval()


_X = {"conv2d": (2, 3, 5, 5), "convT2d": (2, 3, 4, 4), "conv1d": (2, 3, 6), "conv3d": (2, 2, 4, 4, 4)}


@needs_torch
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("kind", sorted(_X))
def test_fuse_conv_bn_eval_matches_torch(kind, bias, affine):
    x = np.random.default_rng(7).normal(size=_X[kind])
    transpose = kind == "convT2d"
    outs, grads = [], []
    for lib in (tp, torch):
        conv, bn = _conv_bn(lib, kind, bias, affine)
        fused = lib.nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
        assert fused is not conv and type(fused) is type(conv)
        assert fused.weight.is_leaf and fused.weight.requires_grad and fused.bias.requires_grad == bias
        assert conv.bias is None if not bias else conv.bias is not fused.bias
        xt = lib.tensor(x, requires_grad=True)
        y = fused(xt)
        ref = bn(conv(lib.tensor(x)))
        assert_close(y.detach().numpy(), ref.detach().numpy(), atol=1e-10, rtol=1e-10)
        (y * y).sum().backward()
        outs.append([fused.weight.detach().numpy(), fused.bias.detach().numpy(), y.detach().numpy()])
        grads.append([xt.grad.numpy(), fused.weight.grad.numpy(),
                      fused.bias.grad.numpy() if bias else np.zeros(1)])
    for a, b in zip(outs[0] + grads[0], outs[1] + grads[1]):
        assert_close(a, b, atol=1e-10, rtol=1e-10)


def test_fuse_conv_bn_weights_formula_and_transpose():
    """Without torch: the fold written out, on dimension 0 or (transpose) 1."""
    w = tp.ones(2, 3, 1, 1)
    rm, rv = tp.tensor([1.0, -1.0]), tp.tensor([3.0, 0.0])
    bn_w, bn_b = tp.tensor([2.0, 4.0]), tp.tensor([0.5, 0.0])
    fw, fb = tp.nn.utils.fuse_conv_bn_weights(w, tp.tensor([1.0, 1.0]), rm, rv, 1.0, bn_w, bn_b)
    assert fw[:, 0, 0, 0].tolist() == [1.0, 4.0] and fb.tolist() == [0.5, 8.0]
    assert type(fw) is tp.nn.Parameter and fw.requires_grad is False and fb.requires_grad is False
    fw, _ = tp.nn.utils.fuse_conv_bn_weights(tp.ones(3, 2, 1, 1), None, rm, rv, 1.0, bn_w, bn_b,
                                             transpose=True)
    assert fw[0, :, 0, 0].tolist() == [1.0, 4.0]
    _, fb = tp.nn.utils.fuse_conv_bn_weights(w, None, rm, rv, 1.0, None, None)
    assert fb.tolist() == [-0.5, 1.0] and fb.requires_grad is False


@needs_torch
@pytest.mark.parametrize("features,bias", [(4, True), (4, False), (1, True)])
def test_fuse_linear_bn_eval_matches_torch(features, bias):
    x = np.random.default_rng(3).normal(size=(5, 3))
    res = []
    for lib in (tp, torch):
        lin, bn = lib.nn.Linear(3, 4, bias=bias).double(), lib.nn.BatchNorm1d(features).double()
        _params(lin, lib, 0)
        _params(bn, lib, 1)
        lin.eval(), bn.eval()
        fused = lib.nn.utils.fuse_linear_bn_eval(lin, bn)
        xt = lib.tensor(x, requires_grad=True)
        y = fused(xt)
        if features == 4:
            assert_close(y.detach().numpy(), bn(lin(lib.tensor(x))).detach().numpy(), atol=1e-10)
        y.pow(2).sum().backward()
        res.append([y.detach().numpy(), xt.grad.numpy(), fused.weight.grad.numpy(),
                    fused.bias.grad.numpy() if bias else np.zeros(1), fused.bias.requires_grad])
    for a, b in zip(*res):
        assert_close(a, b, atol=1e-10, rtol=1e-10)


def _fusion_errors(lib):
    u = lib.nn.utils
    conv, bn = lib.nn.Conv2d(2, 3, 1), lib.nn.BatchNorm2d(3)
    lin = lib.nn.Linear(2, 3).eval()
    return [
        lambda: u.fuse_conv_bn_eval(conv, bn.eval()),                     # conv training
        lambda: u.fuse_conv_bn_eval(conv.eval(), lib.nn.BatchNorm2d(3)),   # bn training
        lambda: u.fuse_conv_bn_eval(conv.eval(), lib.nn.BatchNorm2d(3, track_running_stats=False).eval()),
        lambda: u.fuse_linear_bn_eval(lin, lib.nn.BatchNorm1d(3)),
        lambda: u.fuse_linear_bn_eval(lin.train(), lib.nn.BatchNorm1d(3).eval()),
        lambda: u.fuse_linear_bn_eval(lin.eval(), lib.nn.BatchNorm1d(2).eval()),
        lambda: u.fuse_linear_bn_eval(lin.eval(), lib.nn.BatchNorm1d(3, track_running_stats=False).eval()),
        lambda: u.fuse_linear_bn_weights(lib.ones(3, 2), None, lib.zeros(3), lib.ones(3), 1e-5, None, None),
    ]


@pytest.mark.parametrize("k", range(8))
def test_fusion_errors(k):
    """PyTorch's AssertionErrors (and its TypeError for an affine-less bn in the
    linear fold), with its words where torch is installed."""
    with pytest.raises((AssertionError, TypeError)) as ours:
        _fusion_errors(tp)[k]()
    if torch is not None:
        with pytest.raises(Exception) as theirs:
            _fusion_errors(torch)[k]()
        assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))


# ------------------------------------------------------------------ skip_init
def test_skip_init_leaves_parameters_uninitialized_and_draws_nothing():
    tp.manual_seed(5)
    expected = tp.rand(3)
    tp.manual_seed(5)
    m = tp.nn.utils.skip_init(tp.nn.Linear, 5, 2, dtype=tp.float64)
    assert tp.rand(3).tolist() == expected.tolist()        # the generator did not move
    assert type(m) is tp.nn.Linear and m.weight.dtype == tp.float64
    assert tuple(m.weight.shape) == (2, 5) and tuple(m.bias.shape) == (2,)
    assert m.weight.requires_grad and isinstance(m.weight, tp.nn.Parameter)
    m2 = tp.nn.utils.skip_init(tp.nn.Linear, in_features=6, out_features=1, bias=False, device="cpu")
    assert m2.bias is None and tuple(m2.weight.shape) == (1, 6)
    bn = tp.nn.utils.skip_init(tp.nn.BatchNorm1d, 3)
    assert tuple(bn.running_var.shape) == (3,) and bn.num_batches_tracked.dtype == tp.int64


def _skip_errors(lib):
    return [lambda: lib.nn.utils.skip_init(int), lambda: lib.nn.utils.skip_init(lib.nn.ReLU),
            lambda: lib.nn.utils.skip_init(3)]


@pytest.mark.parametrize("k", range(3))
def test_skip_init_errors(k):
    with pytest.raises((RuntimeError, TypeError)) as ours:
        _skip_errors(tp)[k]()
    if torch is not None:
        with pytest.raises(Exception) as theirs:
            _skip_errors(torch)[k]()
        assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))


# ------------------------------------------------------------------ memory formats
def _layouts(lib):
    u = lib.nn.utils
    nested = lib.nn.Sequential(lib.nn.Conv2d(2, 3, (2, 1)), lib.nn.ReLU(),
                               lib.nn.Sequential(lib.nn.ConvTranspose2d(3, 2, (1, 2)), lib.nn.Conv3d(2, 2, 1)))
    out = u.convert_conv2d_weight_memory_format(nested, lib.channels_last)
    assert out is nested
    strides = [nested[0].weight.stride(), nested[2][0].weight.stride(), nested[2][1].weight.stride()]
    c3 = u.convert_conv3d_weight_memory_format(lib.nn.Sequential(lib.nn.Conv3d(2, 3, 2)), lib.channels_last_3d)
    strides.append(c3[0].weight.stride())
    strides.append(u.convert_conv2d_weight_memory_format(lib.nn.Conv2d(2, 3, 2), lib.contiguous_format)
                   .weight.stride())
    for m in (lib.nn.Conv2d(3, 4, 1), lib.nn.ConvTranspose2d(1, 4, (1, 2)), lib.nn.Conv2d(1, 1, 1)):
        strides.append(u.convert_conv2d_weight_memory_format(m, lib.channels_last).weight.stride())
    strides.append(u.convert_conv3d_weight_memory_format(lib.nn.Conv3d(3, 2, 1), lib.channels_last_3d)
                   .weight.stride())
    return strides


def test_convert_weight_memory_format():
    strides = _layouts(tp)
    assert strides[0] == (4, 1, 2, 2)               # channels_last: C innermost
    assert strides[2] == (2, 1, 1, 1, 1)            # a Conv3d is left alone by the 2d converter
    assert strides[3] == (16, 1, 8, 4, 2)
    if torch is not None:
        assert strides == _layouts(torch)


def test_convert_keeps_values_parameter_and_gradients():
    conv = tp.nn.Conv2d(2, 3, 2)
    w0, p = conv.weight.detach().clone(), conv.weight
    x = tp.randn(1, 2, 4, 4)
    y0 = conv(x)
    tp.nn.utils.convert_conv2d_weight_memory_format(conv, tp.channels_last)
    assert conv.weight is p and conv.weight.is_contiguous(memory_format=tp.channels_last)
    assert not conv.weight.is_contiguous() and tp.equal(conv.weight.detach(), w0)
    conv(x).sum().backward()
    assert tp.allclose(conv(x), y0) and tuple(conv.weight.grad.shape) == (3, 2, 2, 2)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        tp.nn.utils.convert_conv3d_weight_memory_format(tp.nn.Conv3d(1, 1, 1), tp.channels_last)


# ------------------------------------------------------------------ StackDataset
class _Batched:
    """A dataset with ``__getitems__`` that counts its calls."""

    def __init__(self, n, short=False):
        self.n, self.calls, self.short = n, [], short

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return ("item", i)

    def __getitems__(self, idx):
        self.calls.append(list(idx))
        out = [("batched", i) for i in idx]
        return out[:-1] if self.short else out


def test_stack_dataset_tuple_and_dict():
    from tensorplay.utils.data import StackDataset, TensorDataset
    a, b = tp.arange(4), TensorDataset(tp.arange(8).reshape(4, 2))
    ds = StackDataset(a, b)
    assert len(ds) == 4 and ds.datasets == (a, b)
    x, (y,) = ds[2]
    assert x.item() == 2 and y.tolist() == [4, 5]
    d = StackDataset(num=[10, 11, 12], ch="xyz")
    assert d[1] == {"num": 11, "ch": "y"} and isinstance(d.datasets, dict)
    assert isinstance(ds, tp.utils.data.Dataset)


def test_stack_dataset_getitems_uses_nested_getitems():
    from tensorplay.utils.data import StackDataset
    nested = _Batched(3)
    ds = StackDataset(nested, [5, 6, 7])
    assert ds.__getitems__([2, 0]) == [(("batched", 2), 7), (("batched", 0), 5)]
    assert nested.calls == [[2, 0]]
    d = StackDataset(a=nested, b="pqr")
    assert d.__getitems__([1]) == [{"a": ("batched", 1), "b": "q"}]
    batch = list(tp.utils.data.DataLoader(StackDataset([1.0, 2.0], [3.0, 4.0]), batch_size=2))
    assert [t.tolist() for t in batch[0]] == [[1.0, 2.0], [3.0, 4.0]]


def _stack_errors(lib):
    S = lib.utils.data.StackDataset
    return [lambda: S([1], y=[2]), lambda: S([1, 2], [3]), lambda: S(a=[1, 2], b=[3]), lambda: S(),
            lambda: S(_Batched(3, short=True), [1, 2, 3]).__getitems__([0, 1]),
            lambda: S(a=_Batched(3, short=True)).__getitems__([0, 1, 2]),
            lambda: S(5)]


@pytest.mark.parametrize("k", range(7))
def test_stack_dataset_errors(k):
    with pytest.raises((ValueError, TypeError)) as ours:
        _stack_errors(tp)[k]()
    if torch is not None:
        with pytest.raises(Exception) as theirs:
            _stack_errors(torch)[k]()
        assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))
