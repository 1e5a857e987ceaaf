"""Second derivatives of piecewise-linear ops are zeros, not "does not require grad".

PyTorch's backward ops of relu, threshold, the shrinks, hardtanh, leaky_relu and
the pools take the forward input (for its mask or shape), so the first gradient
taken with ``create_graph=True`` depends on the input even when the incoming
gradient is a constant, and differentiating it again gives zeros.  Here those
backward ops are registry ops whose derivative for the input is ``"zero"``.
"""
import numpy as np
import pytest

import tensorplay as tp
from tensorplay.ops._registry import REGISTRY

F = tp.nn.functional

CASES = {
    "relu": lambda F, x: F.relu(x),
    "threshold": lambda F, x: F.threshold(x, 0.1, 2.0),
    "hardshrink": lambda F, x: F.hardshrink(x, 0.3),
    "softshrink": lambda F, x: F.softshrink(x, 0.3),
    "hardtanh": lambda F, x: F.hardtanh(x, -0.5, 0.5),
    "relu6": lambda F, x: F.relu6(x * 4),
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.1),
    "rrelu_eval": lambda F, x: F.rrelu(x, training=False),
    "max_pool1d": lambda F, x: F.max_pool1d(x, 2),
    "max_pool2d": lambda F, x: F.max_pool2d(x, 2),
    "max_pool3d": lambda F, x: F.max_pool3d(x, (1, 2, 2)),
    "avg_pool2d": lambda F, x: F.avg_pool2d(x, 2),
    "avg_pool3d": lambda F, x: F.avg_pool3d(x, (1, 2, 2)),
    "adaptive_avg_pool2d": lambda F, x: F.adaptive_avg_pool2d(x, 3),
    "adaptive_avg_pool3d": lambda F, x: F.adaptive_avg_pool3d(x, 2),
    "adaptive_max_pool1d": lambda F, x: F.adaptive_max_pool1d(x, 3),
    "adaptive_max_pool2d": lambda F, x: F.adaptive_max_pool2d(x, 3),
    "adaptive_max_pool3d": lambda F, x: F.adaptive_max_pool3d(x, 2),
    "max_unpool2d": lambda F, x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2),
    "fractional_max_pool2d": lambda F, x: F.fractional_max_pool2d(
        x, 2, output_size=2, _random_samples=x.new_tensor(np.full((1, 2, 2), 0.3))),
    "fractional_max_pool3d": lambda F, x: F.fractional_max_pool3d(
        x, (1, 2, 2), output_size=(1, 2, 2), _random_samples=x.new_tensor(np.full((1, 1, 3), 0.6))),
}


SHAPES = {"max_pool1d": (2, 4, 4), "adaptive_max_pool1d": (2, 4, 4), "max_pool3d": (1, 1, 2, 4, 4),
          "avg_pool3d": (1, 1, 2, 4, 4), "adaptive_avg_pool3d": (1, 1, 2, 4, 4),
          "adaptive_max_pool3d": (1, 1, 2, 4, 4), "fractional_max_pool3d": (1, 1, 2, 4, 4)}
# first-order node names that differ from PyTorch's (rrelu in eval mode is leaky_relu here)
NAMES_DIFFER = {"rrelu_eval"}


def _x(T, name="relu"):
    shape = SHAPES.get(name, (1, 2, 4, 4))
    return T.tensor(np.random.default_rng(0).standard_normal(shape), requires_grad=True)


def _first(T, name):
    x = _x(T, name)
    y = CASES[name](T.nn.functional, x)
    (g,) = T.autograd.grad(y.sum(), x, create_graph=True)
    return x, y, g


@pytest.mark.parametrize("name", CASES)
def test_second_derivative_is_zeros(name):
    x, y, g = _first(tp, name)
    assert g.requires_grad and g.grad_fn is not None
    (h,) = tp.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), np.zeros(x.shape), atol=0)
    # and through a non-constant incoming gradient, the second derivative is that
    # gradient's (the op is linear in it): d/dx sum(grad(y * w)) for w = x is grad(y)
    x2 = _x(tp, name)
    y2 = CASES[name](F, x2)
    (g2,) = tp.autograd.grad((y2 * y2.detach()).sum(), x2, create_graph=True)
    (h2,) = tp.autograd.grad(g2.sum(), x2)
    np.testing.assert_allclose(h2.numpy(), np.zeros(x2.shape), atol=0)


@pytest.mark.parametrize("name", CASES)
def test_against_torch(name):
    torch = pytest.importorskip("torch")
    x, y, g = _first(tp, name)
    tx, ty, tg = _first(torch, name)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-12, atol=1e-12)
    if name in NAMES_DIFFER:
        return
    assert type(y.grad_fn).__name__ == ty.grad_fn.name()
    assert type(g.grad_fn).__name__ == tg.grad_fn.name()


def test_only_the_shape_is_kept_for_a_zero_derivative():
    """A node whose only running derivative is "zero" keeps a TensorMeta of that
    input, not the tensor; one whose other derivative reads it keeps the tensor."""
    from tensorplay._tensor import TensorMeta
    relu_backward = tp.ops.pointwise.relu_backward
    g = tp.ones(3, dtype=tp.float64)
    y = tp.tensor([1.0, -2.0, 3.0], dtype=tp.float64, requires_grad=True)
    out = relu_backward(g, y)
    assert isinstance(out.grad_fn.args[1], TensorMeta)
    g2 = tp.ones(3, dtype=tp.float64, requires_grad=True)
    out2 = relu_backward(g2, y)
    assert isinstance(out2.grad_fn.args[1], tp.Tensor)
    gy, gg = tp.autograd.grad(out2.sum(), (y, g2))
    np.testing.assert_allclose(gy.numpy(), np.zeros(3), atol=0)
    np.testing.assert_allclose(gg.numpy(), [1.0, 0.0, 1.0])


def test_a_zero_derivative_gives_no_tangent_and_says_so_in_the_entry():
    op = REGISTRY["threshold_backward"]
    assert op.zero == frozenset({1})
    assert "x: zero" in op.where_defined()
    g = tp.tensor([1.0, 2.0, 3.0], dtype=tp.float64)
    x = tp.tensor([0.5, -1.0, 2.0], dtype=tp.float64)
    import tensorplay.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        gd = fwAD.make_dual(g, tp.tensor([1.0, 1.0, 1.0], dtype=tp.float64))
        xd = fwAD.make_dual(x, tp.tensor([5.0, 5.0, 5.0], dtype=tp.float64))
        out = tp.ops.nn_ops.threshold_backward(gd, xd, 0.1)
        t = fwAD.unpack_dual(out).tangent
    np.testing.assert_allclose(t.numpy(), [1.0, 0.0, 1.0])


def test_half_masks_compare_in_float32():
    """PyTorch compares half and bfloat16 with the threshold in float32."""
    x = tp.tensor([0.1, 0.09997, 0.3], dtype=tp.float16)
    y = F.threshold(x, 0.1, 5.0)
    # half(0.1) = 0.0999755859375 <= 0.1 (float32): replaced; as half, 0.1 would round to it
    np.testing.assert_array_equal(y.numpy(), np.array([5.0, 5.0, 0.3], np.float16))
    s = F.softshrink(tp.tensor([0.3, -0.3], dtype=tp.float16), 0.3)
    # half(0.3) = 0.30004883 exceeds 0.3 (float32) by 4.88e-05, kept in the result
    assert s.numpy()[0] > 0 and s.numpy()[1] < 0
