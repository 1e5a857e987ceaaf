"""Folding an eval-mode BatchNorm into the convolution or linear layer before it
(PyTorch's ``torch.nn.utils.fusion``): the fused layer computes what the pair
computes, ``bn(conv(x)) == fused(x)`` up to rounding, with one layer's work.

With ``s = bn_w / sqrt(running_var + eps)`` per output channel, the fused weight
is the layer's weight scaled by ``s`` along its output-channel dimension
(dimension 0, or 1 for a transposed convolution's ``(in, out, ...)`` weight) and
the fused bias ``(b - running_mean) * s + bn_b``.  The new weight and bias are
written in tensorplay ops, so they are differentiable in every input; they come
back as new ``Parameter``\\ s that require grad as the layer's weight and bias
did (a missing bias counts as the ``zeros_like(running_mean)`` that stands in
for it, which does not).
"""
import copy

from ... import _creation
from ...ops import pointwise as _pw
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A new convolution (a deep copy of ``conv``) whose weight and bias fold in
    ``bn``'s running statistics and affine parameters; both modules must be in
    eval mode.  ``transpose=True`` for a transposed convolution."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_conv = copy.deepcopy(conv)

    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(
        fused_conv.weight, fused_conv.bias, bn.running_mean, bn.running_var, bn.eps,
        bn.weight, bn.bias, transpose)
    return fused_conv


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """``(weight, bias)`` of the convolution that computes ``bn(conv(x))`` in eval
    mode, as two new Parameters (in the dtypes of ``conv_w`` and ``conv_b``)."""
    conv_weight_dtype = conv_w.dtype
    conv_bias_dtype = conv_b.dtype if conv_b is not None else conv_weight_dtype
    if conv_b is None:
        conv_b = _creation.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = _creation.ones_like(bn_rm)
    if bn_b is None:
        bn_b = _creation.zeros_like(bn_rm)
    bn_var_rsqrt = _pw.rsqrt(bn_rv + bn_eps)

    if transpose:
        shape = [1, -1] + [1] * (len(conv_w.shape) - 2)
    else:
        shape = [-1, 1] + [1] * (len(conv_w.shape) - 2)

    fused_conv_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype=conv_weight_dtype)
    fused_conv_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(dtype=conv_bias_dtype)

    return (Parameter(fused_conv_w, conv_w.requires_grad),
            Parameter(fused_conv_b, conv_b.requires_grad))


def fuse_linear_bn_eval(linear, bn):
    """A new Linear (a deep copy of ``linear``) that computes ``bn(linear(x))``
    in eval mode; ``bn.num_features`` must be ``linear.out_features`` or 1."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused_linear = copy.deepcopy(linear)

    # bn acts on the channel dimension, linear on the last one: they line up when the
    # feature counts agree or bn has one feature (broadcast)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            f"To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
            f"got linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")

    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused_linear.weight, fused_linear.bias = fuse_linear_bn_weights(
        fused_linear.weight, fused_linear.bias, bn.running_mean, bn.running_var, bn.eps,
        bn.weight, bn.bias)
    return fused_linear


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """``(weight, bias)`` of the Linear that computes ``bn(linear(x))`` in eval
    mode, as two new Parameters.  (``bn_w`` and ``bn_b`` are required here, as
    in PyTorch: an affine-less BatchNorm's ``None`` fails in the arithmetic.)"""
    linear_weight_dtype = linear_w.dtype
    linear_bias_dtype = linear_b.dtype if linear_b is not None else linear_weight_dtype
    if linear_b is None:
        linear_b = _creation.zeros_like(bn_rm)
    bn_scale = bn_w * _pw.rsqrt(bn_rv + bn_eps)

    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=linear_weight_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=linear_bias_dtype)

    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
