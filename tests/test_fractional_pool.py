"""Fractional max pooling (``fractional_max_pool2d``/``3d``) and ``max_unpool3d``:
the windows PyTorch derives from ``_random_samples`` (against a loop written
from PyTorch's kernel, and against torch itself in every floating dtype), the
gradients and their second derivatives, drawing samples without them, the
layers, and the refusals the op table does not spell."""
import numpy as np
import pytest

import tensorplay as tp
from tensorplay.func import vmap

from conftest import torch

F = tp.nn.functional
DTYPES = ["float64", "float32", "float16", "bfloat16"]


def _ref(x, samples, k, out):
    """PyTorch's CPU kernel as a plain loop, for float64 (Python floats are doubles):
    per plane, window starts trunc((i + u) * alpha) - trunc(u * alpha), the last at
    n - k; the first largest element of each window, the last NaN if any."""
    nd = len(k)
    batched = x.ndim == nd + 2
    xb = x if batched else x[None]
    n, c, sp = xb.shape[0], xb.shape[1], xb.shape[2:]
    cols = (1, 0) if nd == 2 else (0, 1, 2)
    vals = np.zeros((n, c) + tuple(out))
    idx = np.zeros((n, c) + tuple(out), np.int64)
    for b in range(n):
        for ch in range(c):
            starts = []
            for j in range(nd):
                u = float(samples[b, ch, cols[j]])
                alpha = (sp[j] - k[j]) / (out[j] - 1) if out[j] > 1 else 0.0
                seq = [int((i + u) * alpha) - int(u * alpha) for i in range(out[j] - 1)] + [sp[j] - k[j]]
                starts.append(seq)
            plane = xb[b, ch].reshape(-1)
            strides = [int(np.prod(sp[j + 1:])) for j in range(nd)]
            for o in np.ndindex(*out):
                first = [starts[j][o[j]] for j in range(nd)]
                best, at = -np.inf, sum(f * s for f, s in zip(first, strides))
                for off in np.ndindex(*k):
                    p = sum((f + a) * s for f, a, s in zip(first, off, strides))
                    v = plane[p]
                    if v > best or v != v:
                        best, at = v, p
                vals[(b, ch) + o], idx[(b, ch) + o] = best, at
    return (vals, idx) if batched else (vals[0], idx[0])


def _case(nd, seed):
    g = np.random.default_rng(seed)
    sp = tuple(int(v) for v in g.integers(4, 11, nd))
    k = tuple(int(v) for v in g.integers(1, 4, nd))
    out = tuple(int(g.integers(1, s - kk + (2 if nd == 2 else 1))) for s, kk in zip(sp, k))
    x = g.standard_normal((2, 3) + sp)
    x[g.random(x.shape) < 0.05] = np.nan
    x[g.random(x.shape) < 0.1] = 0.5        # ties
    return x, g.random((3, 3, nd)), k, out


@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("seed", range(4))
def test_windows_match_the_kernels_loop(nd, seed):
    x, s, k, out = _case(nd, seed)
    f = F.fractional_max_pool2d if nd == 2 else F.fractional_max_pool3d
    v, i = f(tp.tensor(x), k, output_size=out, _random_samples=tp.tensor(s), return_indices=True)
    rv, ri = _ref(x, s, k, out)
    assert i.dtype == tp.int64 and tuple(v.shape) == rv.shape
    np.testing.assert_array_equal(i.numpy(), ri)
    np.testing.assert_array_equal(v.numpy(), rv)
    v1, i1 = f(tp.tensor(x[1]), k, output_size=out, _random_samples=tp.tensor(s[1:]), return_indices=True)
    rv1, ri1 = _ref(x[1], s[1:], k, out)          # unbatched: the first row of the samples
    np.testing.assert_array_equal(i1.numpy(), ri1)


@pytest.mark.skipif(torch is None, reason="torch not installed")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("nd", [2, 3])
def test_values_indices_and_gradients_equal_torchs(nd, dtype):
    """Windows computed in the dtype's own arithmetic (half and bfloat16 round after
    every operation), so every dtype gives torch's windows, values and gradients."""
    name = f"fractional_max_pool{nd}d"
    for seed in range(6):
        x, s, k, out = _case(nd, 10 * seed + nd)
        x = np.nan_to_num(x)
        if seed % 2:                                # a long dimension: rounding matters
            x = np.random.default_rng(seed).standard_normal((1, 2, 150) + (5,) * (nd - 1))
            s, k, out = s[:1, :2], (2,) + (1,) * (nd - 1), (113,) + (3,) * (nd - 1)
        xt = torch.tensor(x).to(getattr(torch, dtype)).requires_grad_()
        xp = tp.tensor(x).to(getattr(tp, dtype)).requires_grad_()
        vt, it = getattr(torch.nn.functional, name)(xt, k, output_size=out, return_indices=True,
                                                      _random_samples=torch.tensor(s).to(xt.dtype))
        vp, ip = getattr(F, name)(xp, k, output_size=out, return_indices=True,
                                  _random_samples=tp.tensor(s).to(xp.dtype))
        assert str(vp.dtype) == str(vt.dtype).replace("torch", "tensorplay")
        np.testing.assert_array_equal(ip.numpy(), it.numpy())
        np.testing.assert_array_equal(vp.detach().float().numpy(), vt.detach().float().numpy())
        w = np.random.default_rng(seed).standard_normal(tuple(vt.shape))
        gt, = torch.autograd.grad(vt, xt, torch.tensor(w).to(xt.dtype))
        gp, = tp.autograd.grad(vp, xp, tp.tensor(w).to(xp.dtype))
        assert gp.dtype == xp.dtype
        np.testing.assert_array_equal(gp.float().numpy(), gt.float().numpy())


def test_nodes_and_second_derivatives():
    g = np.random.default_rng(1)
    x = tp.tensor(g.standard_normal((2, 3, 9, 8)), requires_grad=True)
    s = tp.tensor(g.random((2, 3, 2)))
    v, i = F.fractional_max_pool2d(x, 2, output_size=(4, 5), _random_samples=s, return_indices=True)
    assert type(v.grad_fn).__name__ == "FractionalMaxPool2DBackward0"
    assert not i.requires_grad
    assert [type(n).__name__ for n, _ in v.grad_fn.next_functions] == ["AccumulateGrad"]
    w = tp.tensor(g.standard_normal(tuple(v.shape)), requires_grad=True)
    gx, = tp.autograd.grad(v, x, w, create_graph=True)
    node = gx.grad_fn
    assert type(node).__name__ == "FractionalMaxPool2DBackwardBackward0"
    # (grad_output, self): the input's slot as in PyTorch
    assert [type(n).__name__ for n, _ in node.next_functions] == ["AccumulateGrad", "AccumulateGrad"]
    # the gradient scatters w at the indices; its derivative in x is zeros, in w a gather
    hx, hw = tp.autograd.grad((gx * gx).sum(), [x, w])
    assert not np.any(hx.numpy())
    np.testing.assert_allclose(hw.numpy(), 2 * np.take_along_axis(
        gx.detach().numpy().reshape(2, 3, -1), i.numpy().reshape(2, 3, -1), -1).reshape(i.shape))
    x3 = tp.tensor(g.standard_normal((2, 5, 6, 7)), requires_grad=True)      # unbatched 3-d
    v3 = F.fractional_max_pool3d(x3, 2, output_size=3, _random_samples=tp.tensor(g.random((1, 2, 3))))
    assert type(v3.grad_fn).__name__ == "FractionalMaxPool3DBackward0"
    g3, = tp.autograd.grad(v3.sum(), x3, create_graph=True)
    assert type(g3.grad_fn).__name__ == "FractionalMaxPool3DBackwardBackward0"
    assert not np.any(tp.autograd.grad(g3.sum(), x3)[0].numpy())
    s3 = tp.tensor(g.random((1, 2, 3)))
    assert tp.autograd.gradgradcheck(
        lambda a: F.fractional_max_pool3d(a, (2, 1, 2), output_size=(3, 4, 3), _random_samples=s3), [x3])


def test_drawn_samples_are_seeded_and_per_sample_under_vmap():
    x = tp.randn(2, 3, 10, 9)
    tp.manual_seed(5)
    a, ia = F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5), return_indices=True)
    tp.manual_seed(5)
    b, ib = F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5), return_indices=True)
    assert tuple(a.shape) == (2, 3, 5, 4)
    assert bool((ia == ib).all()) and bool((a == b).all())
    tp.manual_seed(5)                           # the same draws, as rand(N, C, 2) in the input's dtype
    s = tp.rand(2, 3, 2)
    np.testing.assert_array_equal(F.fractional_max_pool2d_with_indices(x, 2, (5, 4), _random_samples=s)[1],
                                  ia.numpy())
    half = F.fractional_max_pool3d(tp.randn(3, 6, 6, 6).half(), 2, output_size=3)
    assert half.dtype == tp.float16 and tuple(half.shape) == (3, 3, 3, 3)
    xs = tp.randn(4, 3, 10, 9)      # (steps of 8/3 and 7/3, which the samples move)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        vmap(lambda t: F.fractional_max_pool2d(t, 2, output_size=4))(xs)
    same = xs[:1].expand(4, 3, 10, 9).contiguous()
    r = vmap(lambda t: F.fractional_max_pool2d(t, 2, output_size=4, return_indices=True),
             randomness="different")(same)[1]
    assert tuple(r.shape) == (4, 3, 4, 4) and len({r[b].numpy().tobytes() for b in range(4)}) > 1
    r = vmap(lambda t: F.fractional_max_pool2d(t, 2, output_size=4, return_indices=True),
             randomness="same")(same)[1]
    assert len({r[b].numpy().tobytes() for b in range(4)}) == 1


def test_max_unpool3d_inverts_max_pool3d():
    g = np.random.default_rng(2)
    x = tp.tensor(g.standard_normal((2, 3, 4, 6, 6)))
    v, i = F.max_pool3d(x, 2, return_indices=True)
    v.requires_grad_()
    u = F.max_unpool3d(v, i, 2)
    assert type(u.grad_fn).__name__ == "MaxUnpool3DBackward0" and tuple(u.shape) == (2, 3, 4, 6, 6)
    back = F.max_pool3d(u, 2)
    np.testing.assert_array_equal(back.detach().numpy(), v.detach().numpy())
    w = tp.tensor(g.standard_normal((2, 3, 4, 6, 6)))
    gv, = tp.autograd.grad(u, v, w)
    np.testing.assert_array_equal(gv.numpy(), np.take_along_axis(
        w.numpy().reshape(2, 3, -1), i.numpy().reshape(2, 3, -1), -1).reshape(i.shape))
    big = F.max_unpool3d(v, i, 2, output_size=(5, 7, 7))     # the same flat indices, a larger volume
    assert tuple(big.shape) == (2, 3, 5, 7, 7)
    unb = F.max_unpool3d(v[0], i[0], (2, 2, 2), stride=2)
    np.testing.assert_array_equal(unb.detach().numpy(), u[0].detach().numpy())
    h = F.max_unpool3d(v.detach().half(), i, 2)
    assert h.dtype == tp.float16


def test_layers():
    s = tp.rand(1, 2, 2)
    m = tp.nn.FractionalMaxPool2d(2, output_size=3, return_indices=True, _random_samples=s)
    assert list(m.state_dict()) == ["_random_samples"] and m.kernel_size == (2, 2) and m.output_size == (3, 3)
    x = tp.randn(2, 8, 7)
    out, idx = m(x)
    np.testing.assert_array_equal(idx.numpy(), F.fractional_max_pool2d_with_indices(
        x, 2, 3, _random_samples=s)[1].numpy())
    m3 = tp.nn.FractionalMaxPool3d(2, output_ratio=0.5)
    assert m3.output_ratio == (0.5, 0.5, 0.5) and tuple(m3(tp.randn(1, 2, 6, 8, 4)).shape) == (1, 2, 3, 4, 2)
    assert not list(m3.state_dict())
    for cls, kw, msg in [
            (tp.nn.FractionalMaxPool2d, {"kernel_size": 2}, "FractionalMaxPool2d requires specifying either an "
                                                            "output size, or a pooling ratio"),
            (tp.nn.FractionalMaxPool2d, {"kernel_size": 2, "output_size": 3, "output_ratio": 0.5},
             "only one of output_size and output_ratio may be specified"),
            (tp.nn.FractionalMaxPool2d, {"kernel_size": 2, "output_ratio": (0.5, 1.0)},
             r"output_ratio must be between 0 and 1 \(got \(0.5, 1.0\)\)"),
            (tp.nn.FractionalMaxPool3d, {"kernel_size": (2, 0, 2), "output_size": 3},
             r"kernel_size must be greater than 0, but got \(2, 0, 2\)")]:
        with pytest.raises(ValueError, match=msg):
            cls(**kw)
    u = tp.nn.MaxUnpool3d((2, 1, 2), stride=1, padding=(0, 1, 0))
    assert repr(u) == "MaxUnpool3d(kernel_size=(2, 1, 2), stride=(1, 1, 1), padding=(0, 1, 0))"
    v, i = F.max_pool3d(tp.randn(1, 2, 4, 4, 4), 2, return_indices=True)
    np.testing.assert_array_equal(tp.nn.MaxUnpool3d(2)(v, i).numpy(), F.max_unpool3d(v, i, 2).numpy())


def _refusals(T):
    f2 = T.nn.functional.fractional_max_pool2d
    x = T.zeros(2, 3, 9, 8)
    s = T.rand(2, 3, 2)
    return [
        (TypeError, "object of type 'float' has no len()", lambda: f2(x, 2, output_ratio=0.5)),
        (RuntimeError, "The function 'fractional_max_pool2d' is not differentiable with respect to argument "
                       "'random_samples'. This input cannot have requires_grad True.",
         lambda: f2(x, 2, 3, _random_samples=T.rand(2, 3, 2, requires_grad=True))),
        (TypeError, "fractional_max_pool2d(): argument 'random_samples' (position 4) must be Tensor, not list",
         lambda: f2(x, 2, 3, _random_samples=[0.5])),
        (TypeError, "fractional_max_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, but "
                    "found element of type float at pos 0", lambda: f2(x, (2.0, 2), 3, _random_samples=s)),
        (NotImplementedError, "\"check_uniform_bounds\" not implemented for 'Long'",
         lambda: f2(x.long(), 2, 3)),
        (NotImplementedError, "\"fractional_max_pool2d_out_frame\" not implemented for 'ComplexFloat'",
         lambda: f2(x.to(T.complex64), 2, 3)),
        (RuntimeError, "fractional_max_pool2d(): Expected 3D or 4D tensor, but got: [2, 3, 9, 8, 1]",
         lambda: f2(x[..., None], 2, 3, _random_samples=s)),
        (IndexError, "tuple index out of range",
         lambda: T.nn.functional.max_unpool3d(T.zeros(2, 3, 2, 2, 2), T.zeros(2, 3, 2, 2, 2).long(), 2,
                                              stride=(1, 2))),
        (TypeError, "max_unpool3d(): argument 'output_size' (position 3) must be tuple of ints, but found "
                    "element of type float at pos 0",
         lambda: T.nn.functional.max_unpool3d(T.zeros(2, 3, 2, 2, 2), T.zeros(2, 3, 2, 2, 2).long(), 2.0)),
    ]


def test_refusals():
    with tp.no_grad():      # (under no_grad, PyTorch takes samples that require grad)
        assert tuple(F.fractional_max_pool2d(tp.zeros(2, 3, 9, 8), 2, 3,
                                             _random_samples=tp.rand(2, 3, 2, requires_grad=True)).shape) == \
            (2, 3, 3, 3)
    for exc, msg, call in _refusals(tp):
        with pytest.raises(exc) as info:
            call()
        assert str(info.value) == msg


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_refusals_are_torchs():
    for (exc, msg, call), (_, _, tcall) in zip(_refusals(tp), _refusals(torch)):
        with pytest.raises(exc) as info:
            tcall()
        assert str(info.value) == msg
