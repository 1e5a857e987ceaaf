"""tensorplay.nn.functional: the functions behind the layers, with PyTorch's
signatures, argument checks and messages.

The kernels live in the op registry: the activations of ``ops/pointwise.py``,
softmax and log_softmax of ``ops/reduction.py``, and the fused ops of
``ops/nn_ops.py`` (``linear``, normalisation statistics, ``embedding``,
softmax-cross-entropy, ``nll_loss``, ``binary_cross_entropy``, ``attention``, ``elu``, ...).
Everything else here is a composition of registry ops, so it differentiates,
double-differentiates and runs under forward mode like any other code.
"""
import itertools as _itertools
import math as _math
import sys as _sys
import warnings as _warnings

import numpy as _np

from .. import _dtype as _D
from .._autograd.grad_mode import no_grad as _no_grad, state as _grad_state
from .._random import default_generator as _default_generator, sampling as _sampling, uniform01 as _uniform01
from .._tensor import Tensor as _Tensor, _wrap, like_hook as _like_hook
from .._creation import arange as _arange, zeros as _zeros, ones_like as _ones_like
from ..ops import nn_ops as _nn
from ..ops import pointwise as _pw
from ..ops.core import matmul as _matmul, broadcast_tensors as _broadcast_tensors
from ..ops.inplace import apply_inplace as _apply_inplace
from ..ops.linalg import _cname
from ..ops._util import tensor_arg as _tensor_arg, refuse as _refuse, NOT_FLOAT as _NOT_FLOAT
from ..ops._util import number_arg as _number_arg, int_list_arg as _int_list_arg
from ..ops._util import _tname as _dtype_name
from ..ops._registry import broadcast_error as _broadcast_error, autocast_inputs as _autocast_inputs
from ..ops.pointwise_more import xlogy as _xlogy
from ..ops.reduction import (_functional_log_softmax as log_softmax,  # noqa: F401
                             _functional_softmax as _softmax_fn)
from ..ops.shape import cat as _cat
# convolution, pooling, padding, resampling: registry ops, re-exported as PyTorch spells them here
from ..ops.conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,  # noqa: F401
                        conv_transpose3d, fold, unfold)
from ..ops.pooling import (adaptive_avg_pool1d, adaptive_avg_pool2d, avg_pool1d,  # noqa: F401
                           avg_pool2d, max_pool1d, max_pool1d_with_indices, max_pool2d,
                           max_pool2d_with_indices, adaptive_max_pool2d,
                           adaptive_max_pool2d_with_indices, adaptive_max_pool1d_with_indices)
from ..ops.pooling import functional_adaptive_max_pool1d as adaptive_max_pool1d  # noqa: F401
from ..ops.pooling import (max_pool3d, max_pool3d_with_indices, avg_pool3d, adaptive_avg_pool3d,  # noqa: F401
                           adaptive_max_pool3d, adaptive_max_pool3d_with_indices)
from ..ops.resample import interpolate, pad  # noqa: F401
from ..ops.nn_more import channel_shuffle, max_unpool2d_checked as _max_unpool2d  # noqa: F401
from ..ops.fractional_pool import (fractional_max_pool2d, fractional_max_pool2d_with_indices,  # noqa: F401
                                   fractional_max_pool3d, fractional_max_pool3d_with_indices, max_unpool3d)
from ..ops.reduction import pdist  # noqa: F401
from ..ops.nn_ops import hardshrink  # noqa: F401
from ..ops.ctc import functional_ctc_loss as _ctc_loss

__all__ = [
    # activations
    "relu", "relu_", "relu6", "elu", "elu_", "selu", "selu_", "celu", "celu_", "leaky_relu",
    "leaky_relu_", "prelu", "rrelu", "rrelu_", "glu", "gelu", "logsigmoid", "hardshrink",
    "tanhshrink", "softsign", "softplus", "softmin", "softmax", "softshrink", "gumbel_softmax",
    "log_softmax", "tanh", "sigmoid", "hardsigmoid", "silu", "mish", "hardswish", "hardtanh",
    "hardtanh_", "threshold", "threshold_",
    # normalisation
    "batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm", "normalize",
    # linear, dropout, sparse, distances
    "linear", "bilinear", "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
    "feature_alpha_dropout", "embedding", "one_hot", "pairwise_distance", "cosine_similarity", "pdist",
    # losses
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "poisson_nll_loss",
    "gaussian_nll_loss", "cosine_embedding_loss", "cross_entropy", "hinge_embedding_loss",
    "kl_div", "l1_loss", "mse_loss", "margin_ranking_loss", "multilabel_soft_margin_loss",
    "multi_margin_loss", "multilabel_margin_loss", "ctc_loss", "linear_cross_entropy",
    "nll_loss", "huber_loss", "smooth_l1_loss", "soft_margin_loss", "triplet_margin_loss",
    # attention
    "scaled_dot_product_attention", "multi_head_attention_forward",
    # convolution, pooling, padding, resampling
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "unfold", "fold",
    "max_pool1d",
    "max_pool2d", "max_pool1d_with_indices", "max_pool2d_with_indices", "avg_pool1d", "avg_pool2d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices", "max_pool3d",
    "max_pool3d_with_indices", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_unpool1d", "max_unpool2d",
    "max_unpool3d", "fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
    "local_response_norm", "channel_shuffle", "triplet_margin_with_distance_loss", "embedding_bag",
    "affine_grid", "grid_sample", "pad", "interpolate",
    "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle", "pixel_unshuffle",
]


# ------------------------------------------------------------------ helpers
def _inplace(input, f, args, name):
    """``input`` updated in place with ``f(input, *args)`` (PyTorch's ``relu_``
    and friends: autograd records it like any in-place op)."""
    return _apply_inplace(input, f, args, {}, name)


def _legacy_reduction(size_average, reduce, emit_warning=True):
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    if emit_warning:
        _warnings.warn(f"size_average and reduce args will be deprecated, please use "
                       f"reduction='{ret}' instead.", UserWarning, stacklevel=3)
    return ret


def _reduction(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _size_warning(input, target):
    if target.shape != input.shape:
        _warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                       f"({input.shape}). This will likely lead to incorrect results due to "
                       f"broadcasting. Please ensure they have the same size.", UserWarning, stacklevel=3)


def _weighted(loss, weight, reduction, input, mean_by_weight=True):
    """PyTorch 2.13's optional ``weight`` of l1/mse/huber: same size as the input;
    'mean' divides by the sum of the weights (huber: by the element count)."""
    if weight is None:
        return _reduce(loss, reduction)
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "mean" and mean_by_weight:
        return loss.sum() / weight.sum()
    return _reduce(loss, reduction)


def _rng(generator=None):
    return (_default_generator if generator is None else generator)._rng


def _uniform_like(shape, dtype):
    """Uniform [0, 1) samples of ``shape`` in ``dtype`` from the default generator."""
    npdt = dtype.np
    if npdt in (_np.float32, _np.float64):
        return _rng().random(shape, dtype=npdt)
    return _uniform01(_rng(), shape, npdt)     # (half, bfloat16: never rounded up to 1)


# ------------------------------------------------------------------ activations
def relu(input, inplace=False):
    return input.relu_() if inplace else _pw.relu(input)


def relu_(input):
    return input.relu_()


def _hardtanh(x, min_val, max_val):
    return _nn.hardtanh(x, min_val, max_val)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _inplace(input, _hardtanh, (min_val, max_val), "hardtanh")
    return _nn.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def _elu(x, alpha, scale, input_scale):
    return _nn.elu(x, alpha, scale, input_scale)


def elu(input, alpha=1.0, inplace=False):
    if inplace:
        return _inplace(input, _elu, (alpha, 1.0, 1.0), "elu")
    return _nn.elu(input, alpha, 1.0, 1.0)


def elu_(input, alpha=1.0):
    return elu(input, alpha, True)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    if inplace:
        return _inplace(input, _elu, (_SELU_ALPHA, _SELU_SCALE, 1.0), "selu")
    return _nn.elu(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


def selu_(input):
    return selu(input, True)


def celu(input, alpha=1.0, inplace=False):
    alpha = _number_arg("celu", "alpha", alpha, 2)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    if inplace:
        return _inplace(input, _elu, (alpha, 1.0, 1.0 / alpha), "celu")
    return _nn.elu(input, alpha, 1.0, 1.0 / alpha)


def celu_(input, alpha=1.0):
    return celu(input, alpha, True)


def _leaky(x, slope):
    return _nn.leaky_relu(x, slope)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:
        return _inplace(input, _leaky, (negative_slope,), "leaky_relu")
    return _nn.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, True)


def prelu(input, weight):
    """``max(0, x) + weight * min(0, x)``, ``weight`` of one value or one per
    channel (dimension 1; an input of fewer dimensions has one channel)."""
    input, weight = _autocast_inputs("prelu", input, weight)
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {_tname(input)} and {_tname(weight)}")
    _refuse("prelu_cpu", _NOT_FLOAT, input)
    if weight.ndim > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = "
                           f"{weight.ndim}")
    n = weight.numel()
    if n != 1:
        channels = input.shape[1] if input.ndim >= 2 else 1      # (dim 1; PyTorch's 1 below that)
        if channels != n:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter "
                               f"numbers = {n} and channel size = {channels}.")
        weight = weight.reshape((n,) + (1,) * (input.ndim - 2))
    elif weight.ndim:
        weight = weight.reshape(())     # (one value: the output keeps input's shape, 0-d too)
    mask = input > 0
    if _grad_state.enabled and input.requires_grad:
        input = _nn._linked_input(input)    # (PyTorch's backward reads the input: a first gradient
    return _pw.where(mask, input, weight * input)   # with create_graph is in its graph, zeros next)


@_sampling(batch="elementwise", inplace_param="inplace")
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU with a random slope in [lower, upper) per element when
    training, their mean otherwise."""
    lower = _number_arg("rrelu", "lower", lower, 2)
    upper = _number_arg("rrelu", "upper", upper, 3)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    _refuse("rrelu_with_noise_out_cpu", _NOT_FLOAT, input)
    if input._data.dtype == _np.float16:        # (its kernel: float, double and bfloat16)
        raise NotImplementedError("\"rrelu_with_noise_out_cpu\" not implemented for 'Half'")
    slopes = lower + (upper - lower) * _uniform_like(tuple(input.shape), input.dtype)
    # (PyTorch's kernel: the sampled slope where x <= 0, so also at 0; 1 elsewhere, NaN included)
    with _np.errstate(invalid="ignore"):
        noise = _wrap(_np.where(input._data <= 0, slopes, _np.ones((), slopes.dtype)))
    if inplace:
        return input.mul_(noise)
    return input * noise


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, True)


def glu(input, dim=-1):
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.ndim
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{input.shape[d]}")
    _refuse("glu_cpu", _NOT_FLOAT, input)
    a, b = input.chunk(2, d)
    return a * b.sigmoid()


def gelu(input, approximate="none"):
    return _pw.gelu(input, approximate)


def logsigmoid(input):
    return _pw.logsigmoid(input)


def tanhshrink(input):
    return input - input.tanh()


def softsign(input):
    return input / (input.abs() + 1)


def softplus(input, beta=1.0, threshold=20.0):
    return _pw.softplus(input, beta, threshold)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _softmax_fn(input, dim, _stacklevel + 1, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return _softmax_fn(-input, dim, _stacklevel + 1, dtype)


def softshrink(input, lambd=0.5):
    _refuse("softshrink_check", _NOT_FLOAT, input)
    lambd = _number_arg("softshrink", "lambd", lambd, 2)
    dt = input._data.dtype
    top = _D.float_max(dt)
    if not 0 <= lambd <= top:       # (NaN and inf too)
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype "
                           f"{_dtype_name(dt)}, but found {float(lambd):g}")
    return _nn.softshrink(input, lambd)


@_sampling()
def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """Softmax of (logits + Gumbel noise) / tau; ``hard``: the one-hot of its
    argmax in the forward pass, the soft sample's gradient (straight-through)."""
    if not logits.is_floating_point():
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype "
                           f"must be a floating point but you specified {_dtype_name(logits._data.dtype)}")
    e = _rng().standard_exponential(tuple(logits.shape))
    gumbels = _wrap(-_np.log(e).astype(logits._data.dtype))
    y = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y
    index = y._data.argmax(axis=dim)
    hot = _np.zeros(y._data.shape, y._data.dtype)
    _np.put_along_axis(hot, _np.expand_dims(index, dim), 1, dim)
    return _wrap(hot) - y.detach() + y


def tanh(input):
    return input.tanh()


def sigmoid(input):
    return input.sigmoid()


def _hardsigmoid(x):
    return _nn.hardtanh(x + 3, 0.0, 6.0) / 6


def hardsigmoid(input, inplace=False):
    _refuse("hardsigmoid_cpu", _NOT_FLOAT, input)
    if inplace:
        return _inplace(input, _hardsigmoid, (), "hardsigmoid")
    return _hardsigmoid(input)


def silu(input, inplace=False):
    if inplace:
        return _inplace(input, lambda x: _pw.silu(x), (), "silu")
    return _pw.silu(input)


def mish(input, inplace=False):
    if inplace:
        return _inplace(input, lambda x: _nn.mish(x), (), "mish")
    return _nn.mish(input)


def hardswish(input, inplace=False):
    if inplace:
        return _inplace(input, lambda x: _nn.hardswish(x), (), "hardswish")
    return _nn.hardswish(input)


def _threshold(x, threshold, value):
    return _nn.threshold(x, threshold, value)


def _threshold_numbers(input, threshold, value):
    """PyTorch's conversions of the Scalars: the threshold to the computation's
    dtype (float32 for half and bfloat16), the value to the input's."""
    threshold = _number_arg("threshold", "threshold", threshold, 2)
    value = _number_arg("threshold", "value", value, 3)
    dt = input._data.dtype
    _D.check_fits(threshold, _np.dtype(_np.float32) if dt in _D.LOW_PRECISION else dt)
    _D.check_fits(value, dt)
    return threshold, value


def threshold(input, threshold, value, inplace=False):
    _refuse("threshold_cpu", "bc", input)
    threshold, value = _threshold_numbers(input, threshold, value)
    if inplace:
        return _inplace(input, _threshold, (threshold, value), "threshold")
    return _threshold(input, threshold, value)


def threshold_(input, threshold, value):
    _refuse("threshold_cpu", "bc", input)
    threshold, value = _threshold_numbers(input, threshold, value)
    return _inplace(input, _threshold, (threshold, value), "threshold")


# ------------------------------------------------------------------ normalisation
def _affine(x, weight, bias, shape=None):
    """``x * weight + bias`` with the parameters reshaped to ``shape`` (None: as they are).
    ``x`` is a normalisation's output, which its node saves for the derivative: without
    weight and bias it is returned as a copy, so that an in-place op after the norm
    (``InstanceNorm2d`` then ``ReLU(inplace=True)``) writes the copy, not the saved values
    (PyTorch's norms save their input and statistics instead)."""
    if weight is None and bias is None:
        return x.clone() if x.requires_grad else x
    if weight is not None:
        x = x * (weight if shape is None else weight.reshape(shape))
    if bias is not None:
        x = x + (bias if shape is None else bias.reshape(shape))
    return x


def _channel_shape(input):
    return (1, input.shape[1]) + (1,) * (input.ndim - 2)


def _check_param_dtypes(input, *params):
    """PyTorch's CPU dtype rules for a normalisation's parameters (in its order:
    weight, bias, then the running statistics): if the first one given has the
    input's dtype, all must have it; otherwise ("mixed") all must be float32,
    and only for a half or bfloat16 input."""
    given = [p for p in params if p is not None]
    if not given:
        return
    dt = input._data.dtype
    if given[0]._data.dtype != dt:
        if any(p._data.dtype != _np.float32 for p in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if dt not in _D.LOW_PRECISION:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        return
    for p in given:
        if p._data.dtype != dt:
            raise RuntimeError(f"expected scalar type {_tname(input)} but found {_tname(p)}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch statistics over every dimension but 1 when ``training`` (updating
    ``running_mean``/``running_var`` in place, the variance unbiased); the
    running statistics otherwise."""
    if input.ndim < 2:
        raise ValueError(f"Expected 2D or more input (got {input.ndim}D input)")
    _refuse("batch_norm", _NOT_FLOAT, input)
    if _grad_state.enabled:             # (the statistics are data, never differentiated)
        _not_differentiable(running_mean, "native_batch_norm", "running_mean")
        _not_differentiable(running_var, "native_batch_norm", "running_var")
    c = input.shape[1]
    if not input.numel():       # (PyTorch: a copy, unchecked, the statistics left alone)
        out = input.clone()
        if weight is not None and weight.numel():
            out = out * weight[0]
        if bias is not None and bias.numel():
            out = out + bias[0]
        return out
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is None:
            if not training and name.startswith("running"):
                raise RuntimeError(f"{name} must be defined in evaluation mode")
        elif t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    _check_param_dtypes(input, weight, bias, running_mean, running_var)
    if training:
        size = input.numel() // c
        if size == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{input.shape}")
        dims = (0,) + tuple(range(2, input.ndim))
        xhat, mean, var = _nn.native_normalize(input, dims, eps)
        if running_mean is not None or running_var is not None:
            with _no_grad():
                if running_mean is not None:
                    # (the statistics are float32 for half input: the update is computed so,
                    # then rounded, as PyTorch's; a variance past 65504 stays finite)
                    running_mean.mul_(1 - momentum).add_(mean.reshape(c), alpha=momentum)
                if running_var is not None:
                    unbiased = var.reshape(c) * (size / max(size - 1, 1))
                    running_var.mul_(1 - momentum).add_(unbiased, alpha=momentum)
        return _affine(xhat, weight, bias, _channel_shape(input))
    shape = _channel_shape(input)
    if _grad_state.enabled and input.requires_grad:
        input = _nn._unlinked_input(input)      # (a recorded first gradient requires grad, as
    scale = (running_var.to(input.dtype) + eps).rsqrt()     # PyTorch's; by the input: none)
    if weight is not None:
        scale = scale * weight
    shift = -running_mean.to(input.dtype) * scale
    if bias is not None:
        shift = shift + bias
    return input * scale.reshape(shape) + shift.reshape(shape)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Statistics per sample and channel, over the spatial dimensions."""
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or more input (got {input.ndim}D input)")
    _refuse("batch_norm", _NOT_FLOAT, input)
    n, c = input.shape[0], input.shape[1]
    shape = _channel_shape(input)
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    dims = tuple(range(2, input.ndim))
    size = _math.prod(input.shape[2:])
    if size == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{input.shape}")
    xhat, mean, var = _nn.native_normalize(input, dims, eps)
    if running_mean is not None or running_var is not None:
        with _no_grad():
            if running_mean is not None:
                running_mean.mul_(1 - momentum).add_(mean.reshape(n, c).mean(0), alpha=momentum)
            if running_var is not None:
                unbiased = var.reshape(n, c).mean(0) * (size / max(size - 1, 1))
                running_var.mul_(1 - momentum).add_(unbiased, alpha=momentum)
    return _affine(xhat, weight, bias, shape)


def _normalized_dims(input, normalized_shape, name="normalized_shape", fname=None):
    if fname is not None:       # (layer_norm's int[] parameter: an int is refused, a Size taken)
        _int_list_arg(fname, name, 2, normalized_shape)
    elif isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if k == 0 or tuple(input.shape[input.ndim - k:]) != normalized_shape or input.ndim < k:
        shape = ", ".join(str(s) for s in normalized_shape)
        raise RuntimeError(f"Given normalized_shape=[{shape}], expected input with shape "
                           f"[*, {shape}], but got input of size{list(input.shape)}")
    return normalized_shape, tuple(range(input.ndim - k, input.ndim))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    normalized_shape, dims = _normalized_dims(input, normalized_shape, fname="layer_norm")
    for t, what in ((weight, "weight"), (bias, "bias")):
        if t is not None and tuple(t.shape) != normalized_shape:
            raise RuntimeError(f"Expected {what} to be of same shape as normalized_shape, but got "
                               f"{what} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(normalized_shape)}")
    _refuse("LayerNormKernelImpl", _NOT_FLOAT, input)
    _check_param_dtypes(input, weight, bias)
    xhat = _nn.native_normalize(input, dims, eps)[0]
    return _affine(xhat, weight, bias)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    n, c = input.shape[0], input.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(input.shape)} and num_groups={num_groups}")
    _refuse("GroupNormKernelImpl", _NOT_FLOAT, input)
    _check_param_dtypes(input, weight, bias)
    grouped = input.reshape(n, num_groups, (c // num_groups) * _math.prod(input.shape[2:]))
    xhat = _nn.native_normalize(grouped, (2,), eps)[0].reshape(input.shape)
    return _affine(xhat, weight, bias, _channel_shape(input))


def rms_norm(input, normalized_shape, weight=None, eps=None):
    normalized_shape, dims = _normalized_dims(input, normalized_shape, fname="rms_norm")
    _refuse("rms_norm", "biu", input)
    if eps is None:
        eps = float(_np.finfo(_np.float32 if input._data.dtype in _D.LOW_PRECISION
                              else input._data.dtype).eps)
    low = input._data.dtype in _D.LOW_PRECISION     # (x * x in half overflows from 256: float32,
    x = input.float() if low else input             # the weight applied there too, rounded once)
    out = x * ((x * x).mean(dims, keepdim=True) + eps).rsqrt()
    if weight is not None:
        out = out * (weight.float() if low else weight)
    return out.to(input.dtype) if low else out


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return out.copy_(input / denom)


# ------------------------------------------------------------------ linear
def linear(input, weight, bias=None):
    """``input @ weight.T + bias``: one fused op (one GEMM over all leading
    dimensions, the bias added in place)."""
    try:                                        # the common case, checked in one expression
        xd, wd = input._data, weight._data
        if wd.ndim == 2 and xd.ndim and xd.shape[-1] == wd.shape[1] and xd.dtype is wd.dtype and \
                (bias is None or bias._data.dtype is xd.dtype and bias._data.shape == wd.shape[:1]):
            return _nn.linear(input, weight, bias)
    except AttributeError:
        pass
    _tensor_arg("linear", "input", 1, input)
    _tensor_arg("linear", "weight", 2, weight)
    xs, ws = input._data.shape, weight._data.shape
    if len(ws) != 2 or not xs or xs[-1] != ws[1]:
        if len(ws) == 2 and xs:
            lead = _math.prod(xs[:-1]) if len(xs) > 1 else 1
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({lead}x{xs[-1]} and "
                               f"{ws[1]}x{ws[0]})")
        return _matmul(input, weight.t()) + (0 if bias is None else bias)
    input, weight, bias = _autocast_inputs("linear", input, weight, bias)
    if bias is not None:                # (PyTorch's addmm(bias, input, weight.t()): self, then mat1)
        if bias._data.dtype != weight._data.dtype:
            raise RuntimeError(f"self and mat2 must have the same dtype, but got {_tname(bias)} and "
                               f"{_tname(weight)}")
        if input._data.dtype != weight._data.dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_tname(input)} and "
                               f"{_tname(weight)}")
    elif input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cname(input)} != "
                           f"{_cname(weight)}")
    if bias is not None:
        out_shape = xs[:-1] + ws[:1]
        if bias.ndim == 1:              # (addmm's bias expanded to the folded [rows, out_features])
            out_shape = (_math.prod(xs[:-1]) if len(xs) > 1 else 1,) + ws[:1]
        try:
            _np.broadcast_shapes(bias._data.shape, out_shape)
            ok = len(bias._data.shape) <= len(out_shape)
        except ValueError:
            ok = False
        if not ok:
            bs, d = tuple(bias._data.shape), len(out_shape) - 1
            for i in range(1, min(len(bs), len(out_shape)) + 1):    # (expand's first clash, from the right)
                if bs[-i] not in (1, out_shape[-i]):
                    d = len(out_shape) - i
                    break
            k = d - len(out_shape) + len(bs)
            raise RuntimeError(f"The expanded size of the tensor ({out_shape[d]}) must match the "
                               f"existing size ({bs[k] if 0 <= k < len(bs) else 1}) at "
                               f"non-singleton dimension {d}.  Target sizes: "
                               f"{list(out_shape)}.  Tensor sizes: {list(bs)}")
    return _nn.linear(input, weight, bias)


def _tname(t):
    """PyTorch's name of a tensor's dtype (``Float``, ``Long``, ...)."""
    return _dtype_name(t._data.dtype)


def bilinear(input1, input2, weight, bias=None):
    """``y_k = x1 @ W_k @ x2 + b_k`` over the leading dimensions."""
    if weight.ndim < 3:                 # (PyTorch reads weight.size(2) first)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(weight.ndim, 1)}, "
                         f"{max(weight.ndim, 1) - 1}], but got 2)")
    if weight.shape[1] != input1.shape[-1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if weight.shape[2] != input2.shape[-1]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for d in range(input1.ndim - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: got "
                               f"{input1.shape[d]} and {input2.shape[d]}")
    lead = tuple(input1.shape[:-1])
    a = input1.reshape(-1, input1.shape[-1])
    b = input2.reshape(-1, input2.shape[-1])
    o, i, j = weight.shape
    # (n, i) @ (i, o*j) -> (n, o, j), then contract j with x2
    t = (a @ weight.permute(1, 0, 2).reshape(i, o * j)).reshape(-1, o, j)
    y = (t * b.unsqueeze(1)).sum(-1)
    if bias is not None:
        y = y + bias
    return y.reshape(lead + (o,))


# ------------------------------------------------------------------ dropout
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout_mask(shape, dtype, p):
    keep = _uniform_like(shape, dtype) >= p
    return _wrap((keep * (1.0 / (1.0 - p))).astype(dtype.np)) if p < 1 else \
        _wrap(_np.zeros(shape, dtype.np))


@_sampling(batch="elementwise", inplace_param="inplace")
def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the others by
    ``1 / (1 - p)`` (only when ``training``); the mask comes from the default
    generator, so ``manual_seed`` reproduces it."""
    _check_p(p)
    if not training or p == 0:
        return input
    _dropout_dtype(input, p)
    mask = _dropout_mask(tuple(input.shape), input.dtype, p)
    return input.mul_(mask) if inplace else input * mask


def _dropout_dtype(input, p):
    """PyTorch's errors for dropout of a tensor that is not real floating point
    (its mask is a float Bernoulli sample; p == 1 zeroes without one)."""
    if p < 1:
        _refuse("bernoulli_scalar_cpu_", "c", input)
        if not input.is_floating_point():
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{_dtype_name(input._data.dtype)}")


def _feature_dropout(input, p, training, inplace, batched_ndim, name):
    _check_p(p)
    nd, k = input.ndim, batched_ndim - 2
    if nd not in (batched_ndim - 1, batched_ndim):
        _warnings.warn(f"{name}: Received a {nd}-D input to {name}, which is deprecated and "
                       f"will result in an error in a future release. To retain the behavior and "
                       f"silence this warning, please use dropout instead. Note that {name} exists "
                       f"to provide channel-wise dropout on inputs with {k} spatial dimensions, a "
                       f"channel dimension, and an optional batch dimension (i.e. {k + 1}D or "
                       f"{k + 2}D inputs).", UserWarning, stacklevel=3)
    if name == "dropout2d" and nd == 3:
        _warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                       "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where "
                       "C is the channel dim. This behavior will change in a future release to interpret "
                       "the input as one without a batch dimension, i.e. shape (C, H, W). To maintain the "
                       "1D channel-wise dropout behavior, please switch to using dropout1d instead.",
                       UserWarning, stacklevel=3)
    if not training or p == 0 or input.numel() == 0:
        return input
    _dropout_dtype(input, p)
    shape = tuple(input.shape)
    # PyTorch 2.13's dropout2d masks per (dim 0, dim 1) whatever the rank (a 3-D input is taken
    # as (N, C, L)); dropout1d and dropout3d first give an unbatched input a batch dimension
    lead = 2 if name == "dropout2d" or nd == batched_ndim else 1
    if (nd if lead == 2 else nd + 1) < 2 and p < 1:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    mshape = shape[:lead] + (1,) * (nd - lead)
    mask = _dropout_mask(mshape, input.dtype, p)
    return input.mul_(mask) if inplace else input * mask


@_sampling(inplace_param="inplace")
def dropout1d(input, p=0.5, training=True, inplace=False):
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D "
                           f"input. Note that dropout1d exists to provide channel-wise dropout on "
                           f"inputs with 1 spatial dimension, a channel dimension, and an optional "
                           f"batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, inplace, 3, "dropout1d")


@_sampling(inplace_param="inplace")
def dropout2d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 4, "dropout2d")


@_sampling(inplace_param="inplace")
def dropout3d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 5, "dropout3d")


_ALPHA_P = -_SELU_ALPHA * _SELU_SCALE


def _alpha_dropout(input, p, training, mask_shape):
    _check_p(p)
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0
    keep = _uniform_like(mask_shape, input.dtype) >= p
    a = 1.0 / _math.sqrt((_ALPHA_P ** 2 * p + 1) * (1 - p))
    b = -a * _ALPHA_P * p
    mult = _wrap((keep * a).astype(input._data.dtype))
    add = _wrap(((~keep) * (a * _ALPHA_P) + b).astype(input._data.dtype))
    return input * mult + add


@_sampling(batch="elementwise", inplace_param="inplace")
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    out = _alpha_dropout(input, p, training, tuple(input.shape))
    return input.copy_(out) if inplace and out is not input else out


@_sampling(inplace_param="inplace")
def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    out = _alpha_dropout(input, p, training, shape)
    return input.copy_(out) if inplace and out is not input else out


# ------------------------------------------------------------------ sparse
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Rows of ``weight`` picked by ``input``; the row ``padding_idx`` gets no
    gradient; with ``max_norm`` the rows picked are first renormalised in place
    (as PyTorch does)."""
    if not isinstance(input, _Tensor) or input._data.dtype.name not in ("int64", "int32"):
        got = "torch." + type(input).__name__ if not isinstance(input, _Tensor) else \
            f"torch.{_tname(input)}Tensor"
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following "
                           f"scalar types: Long, Int; but got {got} instead (while checking "
                           f"arguments for embedding)")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.shape[0] + padding_idx
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    return _nn.embedding(weight, input, padding_idx, bool(scale_grad_by_freq))


def _renorm_rows(weight, indices, max_norm, norm_type):
    """``embedding_renorm_``: rows named in ``indices`` whose norm exceeds
    ``max_norm`` are scaled down to it, in place, unrecorded."""
    w = weight._data
    idx = _np.unique(indices._data.reshape(-1))
    if idx.size == 0:
        return
    if idx.min() < 0 or idx.max() >= w.shape[0]:
        raise IndexError("index out of range in self")
    rows = w[idx]
    norms = _np.linalg.norm(rows.astype(_np.float64), ord=norm_type, axis=1)
    big = norms > max_norm
    if big.any():
        scale = (max_norm / (norms[big] + 1e-7)).astype(w.dtype)
        w[idx[big]] = rows[big] * scale[:, None]
        weight._bump()


def one_hot(tensor, num_classes=-1):
    if not isinstance(tensor, _Tensor) or tensor._data.dtype != _np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if _like_hook(tensor) is not None:
        # a batched tensor inside vmap: its values are not at hand; a scatter of ones
        # does the same, its bounds checked by scatter (PyTorch's gives zero rows)
        if num_classes < 1:
            raise RuntimeError("When vmap-ing torch.nn.functional.one_hot, please provide an explicit "
                               "positive num_classes argument.")
        return tensor.new_zeros(tuple(tensor.shape) + (num_classes,)).scatter_(
            -1, tensor.unsqueeze(-1), 1)
    a = tensor._data
    if a.size == 0 and num_classes <= 0:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    if num_classes == -1:
        num_classes = int(a.max()) + 1
    if a.size:
        if a.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if a.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    out = _np.zeros(a.shape + (num_classes,), _np.int64)
    _np.put_along_axis(out, a[..., None], 1, -1)
    return _wrap(out)


# ------------------------------------------------------------------ distances
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    _tensor_arg("pairwise_distance", "x1", 1, x1)
    _tensor_arg("pairwise_distance", "x2", 2, x2)
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``(x1 / max(|x1|, eps)) . (x2 / max(|x2|, eps))``, as PyTorch computes it:
    each norm is clamped in place under no_grad, so the clamp is not
    differentiated (the norm's own gradient flows through it unchanged, also
    where it is below ``eps``)."""
    _tensor_arg("cosine_similarity", "x1", 1, x1)
    _tensor_arg("cosine_similarity", "x2", 2, x2)
    dt = _D.promote_types(x1.dtype, x2.dtype)
    if not dt.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{_dtype_name(dt.np)}")
    # (an integer or bool operand in the common dtype: the norm takes floating point only)
    x1, x2 = (x if x.is_floating_point() or x.is_complex() else x.to(dt) for x in (x1, x2))
    if tuple(x1.shape) != tuple(x2.shape):     # (broadcast first, as PyTorch: the norms along
        x1, x2 = _broadcast_tensors(x1, x2)      #  ``dim`` are over the broadcast operands)

    def norm(x):        # (in half precision computed in float32, as PyTorch's norm: x * x
        #                 overflows from 256, then rounded to half like PyTorch's result)
        w = x.float() if x._data.dtype in _D.LOW_PRECISION else x
        n = w.norm(2, dim, keepdim=True)
        n = n.to(x.dtype) if w is not x else n.clone()     # (a copy: the norm's backward saves its result)
        with _no_grad():
            n.clamp_min_(eps)
        return n
    return ((x1 / norm(x1)) * (x2 / norm(x2))).sum(dim)


# ------------------------------------------------------------------ losses
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    input, target = _autocast_inputs("l1_loss", input, target)
    _size_warning(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    return _weighted((input - target).abs(), weight, reduction, input)


def _bool_in_common_dtype(input, target):
    """PyTorch's loss kernels take a bool operand as a number of the common dtype
    (the subtraction they are written with here refuses bool)."""
    dt = _D.promote_types(input.dtype, target.dtype)
    return tuple(t.to(dt) if t.dtype is _D.bool_ else t for t in (input, target))


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    input, target = _autocast_inputs("mse_loss", input, target)
    _refuse("mse_cpu", _NOT_FLOAT, input, target)     # (complex: a negative MSE, without a word)
    _size_warning(input, target)
    input, target = _bool_in_common_dtype(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    d = input - target
    return _weighted(d * d, weight, reduction, input)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    input, target = _autocast_inputs("smooth_l1_loss", input, target)
    _refuse("smooth_l1_cpu", _NOT_FLOAT, input, target)
    _size_warning(input, target)
    input, target = _bool_in_common_dtype(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    d = input - target
    ad = d.abs()
    if beta == 0:
        return _reduce(ad, reduction)
    # PyTorch's branches: |d| >= beta is linear, anything else (NaN too) quadratic; the
    # quadratic side sees 0 where it is not taken (d itself would make 0 * inf = NaN in
    # the gradient at an infinite d)
    big = ad >= beta
    dq = _pw.where(big, 0.0, d)
    loss = _pw.where(big, ad - 0.5 * beta, (0.5 / beta) * dq * dq)
    return _reduce(loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    input, target = _autocast_inputs("huber_loss", input, target)
    _refuse("huber_cpu", _NOT_FLOAT, input, target)
    if not input.is_floating_point():   # (its loss is made like the input: a float one can't go there)
        raise RuntimeError(f"result type {_dtype_name(_D.promote_types(input.dtype, target.dtype).np)} "
                           f"can't be cast to the desired output type {_dtype_name(input._data.dtype)}")
    _size_warning(input, target)
    input, target = _bool_in_common_dtype(input, target)
    reduction = _reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    d = input - target
    ad = d.abs()
    big = ad >= delta               # (as in smooth_l1_loss)
    dq = _pw.where(big, 0.0, d)
    loss = _pw.where(big, delta * (ad - 0.5 * delta), 0.5 * dq * dq)
    if input.is_floating_point() and loss.dtype != input.dtype:
        loss = loss.to(input.dtype)     # (PyTorch's loss has the input's dtype, computed in the common one)
    return _weighted(loss, weight, reduction, input, mean_by_weight=False)


def _not_differentiable(t, fname, arg):
    """PyTorch refuses a requires-grad tensor where its kernel has no derivative."""
    if t is not None and t.requires_grad:
        raise RuntimeError(f"The function '{fname}' is not differentiable with respect to argument "
                           f"'{arg}'. This input cannot have requires_grad True.")


def _check_class_weight(input, weight, c, composite=False):
    if weight is None:
        return
    if not composite:
        _not_differentiable(weight, "nll_loss_forward", "weight")
    if weight.numel() != c:
        raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no "
                           f"classes but got weight tensor of shape: {list(weight.shape)}")
    if weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {_tname(input)} but found {_tname(weight)}")


def _check_target_dtype(target):
    if target._data.dtype.name not in ("int64", "uint8"):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_tname(target)}")


def _check_class_target(input, target):
    """PyTorch's checks of a class-index target against the input, in its order:
    the shapes first (the batch size, then the kernel's own shape checks), then
    the target's dtype."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1 and (target.ndim == 0 or target.shape[0] != input.shape[0]):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0] if target.ndim else 0}).")
    if input.ndim <= 2:
        if target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif input.ndim == 4:                   # (nll_loss2d's checks)
        if target.ndim != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets "
                               f"of dimension: {target.ndim}")
        _check_target_dtype(target)
        if tuple(target.shape[1:]) != tuple(input.shape[2:]):
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: "
                               f"{list(target.shape)}")
    else:
        want = (input.shape[0],) + tuple(input.shape[2:])
        if tuple(target.shape) != want:
            raise RuntimeError(f"Expected target size {list(want)}, got {list(target.shape)}")
    _check_target_dtype(target)
    if input.ndim == 1 and target.ndim == 1 and target.shape[0] != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                         f"{target.shape[0]}")


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """The Connectionist Temporal Classification loss of ``log_probs`` (``(T, N, C)``,
    or ``(T, C)`` unbatched) against ``targets`` (padded ``(N, S)`` or concatenated
    ``(sum(target_lengths),)``), lengths as integer tensors or int lists.  The
    lengths are read at the call, as PyTorch reads them into lists: changing
    the tensors afterwards does not touch the backward."""
    if isinstance(input_lengths, _Tensor) and isinstance(target_lengths, _Tensor):
        input_lengths, target_lengths = input_lengths.detach().clone(), target_lengths.detach().clone()
    return _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    reduction = _reduction(reduction, size_average, reduce)
    if isinstance(input, _Tensor):      # (PyTorch's kernel refuses the dtype first)
        _refuse("nll_loss_out_frame" if input.ndim <= 2 else "nll_loss2d_forward_out_frame", _NOT_FLOAT,
                input)
    _check_class_target(input, target)
    _check_class_weight(input, weight, input.shape[0 if input.ndim == 1 else 1])
    if input.ndim == 1 and target.ndim == 1:
        target = target.reshape(())
    return _nn.nll_loss(input, target.long(), weight, reduction, ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Softmax cross-entropy over dimension 1 (0 for an unbatched input), for a
    target of class indices (``log_softmax``, then the fused loss of the
    log-probabilities, ``softmax - one_hot`` as its gradient) or of class
    probabilities (same shape as the input)."""
    _tensor_arg("cross_entropy_loss", "target", 2, target)     # (PyTorch's kernel's name)
    input, target, weight = _autocast_inputs("cross_entropy", input, target, weight)   # (float32, before
    reduction = _reduction(reduction, size_average, reduce)                           # log_softmax)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    if target.shape == input.shape:            # class probabilities (PyTorch's rule: same shape)
        if not target.is_floating_point():
            raise RuntimeError(f"Expected floating point type for target with class probabilities, "
                               f"got {_tname(target)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        cdim = 0 if input.ndim == 1 else 1
        if input.ndim == 0:
            raise IndexError("Dimension specified as 1 but tensor has no dimensions")
        c = input.shape[cdim]
        _check_class_weight(input, weight, c, composite=True)   # (differentiable in weight here)
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / c
        logp = input.log_softmax(cdim)
        if weight is not None:
            logp = logp * weight.reshape((c,) + (1,) * (input.ndim - cdim - 1))
        loss = -(logp * target).sum(cdim)
        if reduction == "mean":
            return loss.sum() / (input.numel() // c) if input.numel() else loss.sum() / 0.0
        return _reduce(loss, reduction)
    if input.ndim and input._data.dtype.kind in _NOT_FLOAT:
        input.log_softmax(0 if input.ndim == 1 else 1)  # (refuses it first, in PyTorch's words)
    _check_class_target(input, target)
    _check_class_weight(input, weight, input.shape[0 if input.ndim == 1 else 1])
    if input.ndim == 1 and target.ndim == 1:
        target = target.reshape(())
    # the fused loss of log_softmax's output (log_softmax leaves log-probabilities as they
    # are, and its backward passes the fused gradient, which sums to 0 over the classes,
    # through unchanged): as PyTorch's backward, it reads log_softmax's output, not the
    # logits, which may then change in place
    logp = input.log_softmax(0 if input.ndim == 1 else 1)
    return _nn.cross_entropy(logp, target.long(), weight, reduction, ignore_index, float(label_smoothing))


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``:
    ``input`` ``(N, in)`` or ``(in,)``; ``linear_weight`` ``(C, in)``, or ``(C, d1, ...,
    dK, in)`` for a K-dimensional loss (logits ``(N, C, d1, ..., dK)``).
    ``ignore_index=None`` is -100 for class indices and refused with class
    probabilities.  PyTorch's ``options`` picks a chunked kernel; the value is
    the same, and here the reference computation always runs."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    num_batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions (in_features), got "
                           f"{input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if len(out_features) > 0 and len(num_batches) == 0:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
                           f"requires batched input, (N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = ignore_index if ignore_index is not None else -100
    if out_features:
        n = _math.prod((num_classes,) + out_features)
        linear_weight = linear_weight.reshape((n, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(n)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if target._data.dtype != input._data.dtype:
        raise RuntimeError(f"Found dtype {_tname(target)} but expected {_tname(input)}")
    _refuse("binary_cross_entropy", _NOT_FLOAT, input)
    _not_differentiable(weight, "binary_cross_entropy", "weight")
    loss = _nn.binary_cross_entropy(input, target)
    if weight is not None:
        weight = _same_dtype(weight, loss)
        loss = loss * weight.expand_as(loss) if weight.shape != loss.shape else loss * weight
    return _reduce(loss, reduction)


def _same_dtype(w, like):
    """A loss's weight in the loss's dtype: PyTorch applies it in place (a float64
    weight leaves a half loss half; a complex one does not fit a real loss)."""
    if w.dtype is like.dtype:
        return w
    if w.is_complex() and not like.is_complex():
        raise RuntimeError(f"result type {_tname(w)} can't be cast to the desired output type "
                           f"{_tname(like)}")
    return w.to(like.dtype)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """``-(pos_weight * y * log sigmoid(x) + (1 - y) * log(1 - sigmoid(x)))``,
    as ``-(1 - y) logsigmoid(-x) - pos_weight y logsigmoid(x)``: exact for every x,
    and so is its gradient ``(1 - y) sigmoid(x) - pos_weight y sigmoid(-x)`` (the
    usual ``(1 - y) x + softplus(-x)`` cancels: below x = -20 softplus's threshold
    made the loss 0, and its two gradient terms lose ~6 digits there)."""
    input, target, weight, pos_weight = _autocast_inputs(
        "binary_cross_entropy_with_logits", input, target, weight, pos_weight)
    reduction = _reduction(reduction, size_average, reduce)
    _refuse("log_sigmoid_cpu", _NOT_FLOAT, input)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    if target._data.dtype.kind in "iu" and input.is_floating_point():
        # (PyTorch's kernel computes the loss in place in a tensor of the target's dtype)
        raise RuntimeError(f"result type {_tname(input)} can't be cast to the desired output type "
                           f"{_tname(target)}")
    _not_differentiable(weight, "binary_cross_entropy_with_logits", "weight")
    _not_differentiable(pos_weight, "binary_cross_entropy_with_logits", "pos_weight")
    neg = -_pw.logsigmoid(-input)         # softplus(x)
    pos = -_pw.logsigmoid(input)          # softplus(-x)
    if pos_weight is not None:
        loss = (1 - target) * neg + _same_dtype(pos_weight * target, pos) * pos
    else:
        loss = (1 - target) * neg + target * pos
    if weight is not None:
        loss = loss * _same_dtype(weight, loss)
    return _reduce(loss, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    input, target = _autocast_inputs("kl_div", input, target)
    _tensor_arg("kl_div", "target", 2, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        _warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                       "support size.'batchmean' divides only by the batch size, and aligns with the "
                       "KL div math definition.'mean' will be changed to behave the same as "
                       "'batchmean' in the next major release.", UserWarning, stacklevel=2)
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if input.is_complex() or target.is_complex():
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not (input.is_floating_point() and target.is_floating_point()):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim else loss.sum()
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    input, target = _autocast_inputs("poisson_nll_loss", input, target)
    _tensor_arg("poisson_nll_loss", "target", 2, target)
    reduction = _reduction(reduction, size_average, reduce)
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        t = target
        stirling = t * t.log() - t + 0.5 * (2 * _math.pi * t).log()
        loss = loss + _pw.where(t > 1, stirling, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """``0.5 * (log(var) + (input - target)**2 / var)`` with ``var`` clamped at
    ``eps`` in place under no_grad (the clamp is not differentiated), and
    PyTorch's checks in its order: negative entries, then the size of ``var``
    (the input's size, that without its last dim, or the input's with
    mismatched dims only where ``var``'s sizes add up to 1), then ``reduction``."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _ones_like(input)
    elif not isinstance(var, _Tensor):
        raise TypeError(f"any() received an invalid combination of arguments - got ({type(var < 0).__name__}), "
                        f"but expected one of:\n * (Tensor input, *, Tensor out = None)\n"
                        f" * (Tensor input, tuple of ints dim = None, bool keepdim = False, *, Tensor out = None)\n"
                        f" * (Tensor input, int dim, bool keepdim = False, *, Tensor out = None)\n")
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim
                  and sum(b for a, b in zip(input.shape, var.shape) if a != b) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with _no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * _math.log(2 * _math.pi)
    return _reduce(loss, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    input, target = _autocast_inputs("hinge_embedding_loss", input, target)
    _tensor_arg("hinge_embedding_loss", "target", 2, target)
    reduction = _reduction(reduction, size_average, reduce)
    if input._data.dtype.kind in "iu" and target._data.dtype.kind in "iu" and reduction == "mean":
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating "
                           f"point or complex dtype. Got: {_dtype_name(input._data.dtype)}")
    zeros = input * 0
    margin_clamp = (margin - input).clamp_min(0)
    loss = _pw.where(target != 1, margin_clamp, zeros) + _pw.where(target != -1, input, zeros)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    input1, input2, target = _autocast_inputs("margin_ranking_loss", input1, input2, target)
    reduction = _reduction(reduction, size_average, reduce)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got "
                           f"sizes: input1: {input1.size()}, input2: {input2.size()}, target: "
                           f"{target.size()} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    input, target = _autocast_inputs("soft_margin_loss", input, target)
    _tensor_arg("soft_margin_loss", "target", 2, target)
    _not_differentiable(target, "soft_margin_loss", "target")
    reduction = _reduction(reduction, size_average, reduce)
    z = -(target * input)       # (-target would refuse a bool target)
    if not (z.is_floating_point() or z.is_complex()):
        raise RuntimeError(f"result type Float can't be cast to the desired output type {_tname(z)}")
    if input.is_floating_point() and z.dtype != input.dtype:
        z = z.to(input.dtype)       # (PyTorch's loss has the input's dtype: the product rounded to it)
    # log(1 + exp(z)) as PyTorch's loss computes it, exp then log1p in the input's dtype (an
    # exp that overflows gives inf and a NaN gradient, as there); complex: log(exp(z) + 1)
    return _reduce((z.exp() + 1).log() if z.is_complex() else _pw.log1p(z.exp()), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    reduction = _reduction(reduction, size_average, reduce)
    _refuse("log_sigmoid_cpu", _NOT_FLOAT, input)
    loss = -(target * _pw.logsigmoid(input) + (1 - target) * _pw.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(-1) / input.shape[-1]
    return _reduce(loss, reduction)


def _margin_input(input, name, kernel):
    """A margin loss's input as a batch (N, C): a vector is one sample."""
    if not isinstance(input, _Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.dim() > 2 or (input.dim() == 2 and input.shape[1] == 0) or \
            (input.dim() <= 1 and input.numel() == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    _refuse(kernel, _NOT_FLOAT, input)
    if input._data.dtype in _D.LOW_PRECISION:      # (PyTorch's CPU kernels: float and double only)
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype_name(input._data.dtype)}'")
    return input.reshape(1, -1) if input.dim() <= 1 else input


def _long_target(target):
    if target._data.dtype != _np.int64:
        raise RuntimeError(f"expected scalar type Long but found {_dtype_name(target._data.dtype)}")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """Per sample, sum over the classes i other than the target y of
    ``weight[y] * max(0, margin - x[y] + x[i]) ** p``, divided by the number of
    classes (a hinge at exactly 0 passes no gradient, as PyTorch's kernel)."""
    reduction = _reduction(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x = _margin_input(input, "multi_margin_loss", "multi_margin_loss_cpu_kernel")
    _long_target(target)
    n, c = x.shape
    t = target.reshape(-1)
    if t.numel() != n:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of "
                           f"input samples (batch size). Expected target size [{n}], but got "
                           f"{list(target.shape)}. Input has shape {list(input.shape)}.")
    if weight is not None and (weight.dim() > 1 or weight.numel() != c):
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight.shape)}")
    td = t._data
    if isinstance(td, _np.ndarray) and td.size and (td.min() < 0 or td.max() >= c):   # (not inside vmap)
        raise RuntimeError("target out of range")
    col = t.unsqueeze(1)
    h = _pw.relu(margin - x.gather(1, col) + x)
    if p == 2:
        h = h * h
    if weight is not None:
        h = h * weight.gather(0, t).unsqueeze(1)
    others = _arange(c) != col                      # (every class but the target)
    loss = _pw.where(others, h, 0.0).sum(1) / c
    if input.dim() <= 1 and target.dim() == 0:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Per sample: the targets are ``target``'s class indices up to its first
    negative one; the sum, over each target j and each class i that is no
    target, of ``max(0, 1 - (x[j] - x[i]))``, divided by the number of classes."""
    reduction = _reduction(reduction, size_average, reduce)
    x = _margin_input(input, "multilabel_margin_loss", "multilabel_margin_loss_forward_out_frame")
    _long_target(target)
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    n, c = x.shape
    t = target.reshape(n, c)
    td = t._data
    if isinstance(td, _np.ndarray) and td.size and (td.min() < -1 or td.max() >= c):  # (after a -1 too)
        raise RuntimeError("argument #2 'target' is out of range")
    valid = (t >= 0).long().cumprod(1) > 0          # (the indices before the first -1)
    ti = _pw.where(valid, t, 0)
    is_target = _zeros(n, c, dtype=_D.int64).scatter_add(1, ti, valid.long()) > 0    # (any default dtype)
    h = _pw.relu(1 - x.gather(1, ti).unsqueeze(2) + x.unsqueeze(1))      # (n, target k, class i)
    counted = valid.unsqueeze(2) & ~is_target.unsqueeze(1)
    loss = _pw.where(counted, h, 0.0).sum((1, 2)) / c
    if input.dim() <= 1:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    reduction = _reduction(reduction, size_average, reduce)
    eps = 1e-12
    prod = (input1 * input2).sum(-1)
    m1 = (input1 * input1).sum(-1) + eps
    m2 = (input2 * input2).sum(-1) + eps
    cos = prod / (m1 * m2).sqrt()
    zeros = cos * 0
    loss = _pw.where(target == 1, 1 - cos, zeros) + \
        _pw.where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    for pos, (name, t) in enumerate((("anchor", anchor), ("positive", positive), ("negative", negative)), 1):
        _tensor_arg("triplet_margin_loss", name, pos, t)
    dims = (anchor.ndim, positive.ndim, negative.ndim)
    if len(set(dims)) != 1:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative "
                           f"{dims[2]}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _pw.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((d_pos - d_neg + margin).clamp_min(0), reduction)


# ------------------------------------------------------------------ attention
def _bias_from_mask(mask, dtype):
    """A boolean mask (True: attend) as an additive bias (0 / -inf), a float mask as it is."""
    if mask._data.dtype == _np.bool_:       # (tensor ops: the mask may be batched under vmap)
        return _pw.where(mask, _wrap(_np.zeros((), dtype.np)), _wrap(_np.full((), -_np.inf, dtype.np)))
    return mask


def _matmul_shape(a, b):
    """The shape of ``A @ B`` for shapes of at least 2 dims, with the errors
    PyTorch's matmul raises (batch dims broadcast first, then the inner sizes:
    mm's message for matrices, bmm's, with the batch flattened, otherwise)."""
    if len(a) == 2 and len(b) == 2:
        if a[1] != b[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a[0]}x{a[1]} and {b[0]}x{b[1]})")
        return (a[0], b[1])
    try:
        batch = tuple(_np.broadcast_shapes(a[:-2], b[:-2]))
    except ValueError:
        raise _broadcast_error(a[:-2], b[:-2]) from None
    if a[-1] != b[-2]:
        n = int(_np.prod(batch, dtype=_np.int64))
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {a[-1]}] "
                           f"but got: [{n}, {b[-2]}].")
    return batch + (a[-2], b[-1])


def _check_attention_shapes(query, key, value, attn_mask):
    """PyTorch's errors for query, key, value and mask shapes that do not fit
    (those of its math kernel: the products and the mask's in-place addition)."""
    qs, ks, vs = tuple(query.shape), tuple(key.shape), tuple(value.shape)
    if min(len(qs), len(ks), len(vs)) < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got "
                           f"query.dim: {len(qs)} key.dim: {len(ks)} and value.dim: {len(vs)} instead.")
    scores = _matmul_shape(qs, ks[:-2] + (ks[-1], ks[-2]))
    if attn_mask is not None:
        ms = tuple(attn_mask.shape)
        try:
            full = tuple(_np.broadcast_shapes(scores, ms))
        except ValueError:
            raise _broadcast_error(scores, ms) from None
        if full != scores:
            raise RuntimeError(f"output with shape {list(scores)} doesn't match the broadcast shape {list(full)}")
    _matmul_shape(scores, vs)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                 scale=None, enable_gqa=False):
    """``softmax(q k^T * scale + bias) v``, one fused op (the scores softmaxed in
    place; one backward for q, k, v and the mask).  A query row that every key
    is masked from gets zeros (and zero gradients), as PyTorch's math kernel.
    A ``nn.attention.bias.CausalBias`` as ``attn_mask`` runs as it does there."""
    if attn_mask is not None and type(attn_mask) is not _Tensor:
        # (a CausalBias exists only once nn.attention.bias is imported: not imported here)
        bias_module = _sys.modules.get(__name__.rpartition(".")[0] + ".attention.bias")
        if bias_module is not None and isinstance(attn_mask, bias_module.CausalBias):
            # (PyTorch's __torch_function__ of it)
            return bias_module.CausalBias._dispatch(query, key, value, attn_mask, dropout_p, is_causal,
                                                    scale, enable_gqa)
    dt = query._data.dtype
    if dt.kind in "biu":                # (PyTorch's math path: its scale is a float tensor)
        raise RuntimeError(f"expected scalar type Float but found {_dtype_name(dt)}")
    if not (dt == key._data.dtype == value._data.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_cname(query)} key.dtype: {_cname(key)} and value.dtype: {_cname(value)} "
                           f"instead.")
    _refuse("softmax_lastdim_kernel_impl", "c", query)
    if scale is None:       # (head_dim 0: PyTorch's 1/sqrt(0) is inf; the scores are all 0)
        scale = 1.0 / _math.sqrt(query.shape[-1]) if query.shape[-1] else _math.inf
    bias = None
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                               "when is_causal=True")
    elif attn_mask is not None:
        md = attn_mask._data.dtype
        if md != _np.bool_ and md != _np.float32 and md != query._data.dtype:     # (float: float32)
            raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, "
                               f"but got attn_mask.dtype: {_cname(attn_mask)} and  query.dtype: "
                               f"{_cname(query)} instead.")
        bias = _bias_from_mask(attn_mask, query.dtype)
    if enable_gqa:                      # (PyTorch's words, cut short as they are)
        hq, hk, hv = query.size(-3), key.size(-3), value.size(-3)
        if not hk or not hv or hq % hk or hq % hv:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
        if hk != hq:
            key = key.repeat_interleave(hq // hk, -3)
        if hv != hq:
            value = value.repeat_interleave(hq // hv, -3)
    _check_attention_shapes(query, key, value, attn_mask)
    # PyTorch's math kernel: q and k each scaled by sqrt(|scale|) (q's factor carrying the
    # sign), so that the attention saves those products, not q and k themselves (changing
    # them in place after the forward leaves the backward right, as there)
    root = _math.sqrt(abs(scale))
    query = query * (-root if scale < 0 else root)
    key = key * root
    if bias is not None and bias is attn_mask:
        bias = bias * 1     # (PyTorch adds the mask to the scores: the mask is not saved)
    return _attention(query, key, value, bias, dropout_p, 1.0, is_causal, True)[0]


def _attention(q, k, v, bias, dropout_p, scale, causal, safe):
    """The fused op, with a dropout mask on the probabilities when ``dropout_p``:
    (output, probabilities, the mask or None)."""
    keep = None
    if dropout_p > 0.0:
        _check_p(dropout_p)
        shape = tuple(_np.broadcast_shapes(tuple(q.shape[:-2]), tuple(k.shape[:-2]))) + \
            (q.shape[-2], k.shape[-2])
        keep = _dropout_mask(shape, q.dtype, dropout_p)
    out, p = _nn.attention(q, k, v, bias, keep, scale=scale, causal=bool(causal), safe=safe)
    return out, p, keep


def _merge_masks(attn_mask, key_padding_mask, dtype, bsz, num_heads, src_len):
    """The attention mask and the key padding mask as one additive bias,
    broadcastable to (batch, heads, target, source); None if neither is given.
    (Here, unlike in ``scaled_dot_product_attention``, True in a boolean mask
    means "masked", as ``MultiheadAttention`` has it.)"""
    def masked_bias(mask):      # (tensor ops: a mask may be batched under vmap)
        if mask.dtype is _D.bool_:
            return _pw.where(mask, _wrap(_np.full((), -_np.inf, dtype.np)), _wrap(_np.zeros((), dtype.np)))
        return mask
    bias = None
    if attn_mask is not None:
        bias = masked_bias(attn_mask)
        if bias.ndim == 3:
            bias = bias.reshape(bsz, num_heads, bias.shape[1], bias.shape[2])
    if key_padding_mask is not None:
        kpm = masked_bias(key_padding_mask).reshape(bsz, 1, 1, src_len)
        bias = kpm if bias is None else bias + kpm
    return bias


def _check_mha_inputs(query, key, value, in_proj_weight, in_proj_bias, q_proj_weight, k_proj_weight,
                      v_proj_weight, batch_first):
    """PyTorch's assertions on key and value (shapes named as (L, N, E) even
    with ``batch_first``, as PyTorch transposes before it checks) and, with
    separate projections, on the projection weights and biases."""
    size = type(key.shape)

    def seq_first(t):
        sh = tuple(t.shape)
        return size((sh[1], sh[0]) + sh[2:]) if batch_first else size(sh)
    ks, vs = seq_first(key), seq_first(value)
    if in_proj_weight is not None:
        if ks != vs:
            raise AssertionError(f"key shape {ks} does not match value shape {vs}")
        return
    if ks[:2] != vs[:2]:
        raise AssertionError(f"key's sequence and batch dims {size(ks[:2])} do not match value's {size(vs[:2])}")
    for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
        if w is None:
            raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
    eq, ek, ev = query.shape[-1], key.shape[-1], value.shape[-1]
    for name, w, want in (("query", q_proj_weight, (eq, eq)), ("key", k_proj_weight, (eq, ek)),
                          ("value", v_proj_weight, (eq, ev))):
        if tuple(w.shape) != want:
            raise AssertionError(f"expecting {name} weights shape of {want}, but got {w.shape}")
    if in_proj_bias is not None:
        for name, b in zip(("query", "key", "value"), in_proj_bias.chunk(3)):
            if tuple(b.shape) != (eq,):
                raise AssertionError(f"expecting {name} bias shape of {(eq,)}, but got {b.shape}")


def _check_mha_dtypes(query, key, value, in_proj_weight, in_proj_bias, q_proj_weight, k_proj_weight,
                      v_proj_weight, batch_first):
    """PyTorch's errors of the input projections (its F.linear) for an input of
    another dtype than the weights: addmm's when the (L, N, E) input it
    projects is contiguous and there is a bias, else matmul's."""
    ws = (in_proj_weight,) * 3 if in_proj_weight is not None else (q_proj_weight, k_proj_weight,
                                                                  v_proj_weight)
    for t, w in zip((query, key, value), ws):
        if w is None or t._data.dtype == w._data.dtype:
            continue
        contiguous = (t.transpose(0, 1) if batch_first else t).is_contiguous()
        if in_proj_bias is not None and contiguous:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_tname(t)} and "
                               f"{_tname(w)}")
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cname(t)} != "
                           f"{_cname(w)}")


def _mha(query, key, value, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
         dropout_p, out_proj_weight, out_proj_bias, training, key_padding_mask, need_weights,
         attn_mask, q_proj_weight, k_proj_weight, v_proj_weight, average_attn_weights, is_causal,
         batch_first, static_k=None, static_v=None):
    """Multi-head attention on batched inputs, (L, N, E) or, with
    ``batch_first``, (N, L, E).  The projections run in the input's own layout
    and the heads are strided views of them (no copies before the attention
    products; one before the output projection)."""
    for mask, name in ((attn_mask, "attn_mask"), (key_padding_mask, "key_padding_mask")):
        if mask is not None and not (mask.dtype == _D.bool_ or mask.is_floating_point()):
            raise AssertionError(f"only bool and floating types of {name} are supported")
    _check_mha_inputs(query, key, value, in_proj_weight, in_proj_bias, q_proj_weight, k_proj_weight,
                      v_proj_weight, batch_first)
    _check_mha_dtypes(query, key, value, in_proj_weight, in_proj_bias, q_proj_weight, k_proj_weight,
                      v_proj_weight, batch_first)
    if batch_first:
        bsz, tgt_len, embed_dim = query.shape
        src_len = key.shape[1]
    else:
        tgt_len, bsz, embed_dim = query.shape
        src_len = key.shape[0]
    head_dim = embed_dim // num_heads

    def heads(t, n):
        """(..., n*H*hd) projection in the input layout -> n tensors (N, H, len, hd)."""
        length = t.shape[1] if batch_first else t.shape[0]
        if batch_first:
            v = t.reshape(bsz, length, n, num_heads, head_dim).permute(2, 0, 3, 1, 4)
        else:
            v = t.reshape(length, bsz, n, num_heads, head_dim).permute(2, 1, 3, 0, 4)
        return v.unbind(0) if n > 1 else (v[0],)

    if in_proj_weight is not None:
        e = embed_dim
        if query is key and key is value:
            q, k, v = heads(_nn.linear(query, in_proj_weight, in_proj_bias), 3)
        else:
            b = in_proj_bias
            q, = heads(linear(query, in_proj_weight[:e], None if b is None else b[:e]), 1)
            if key is value:
                k, v = heads(linear(key, in_proj_weight[e:], None if b is None else b[e:]), 2)
            else:
                k, = heads(linear(key, in_proj_weight[e:2 * e], None if b is None else b[e:2 * e]), 1)
                v, = heads(linear(value, in_proj_weight[2 * e:], None if b is None else b[2 * e:]), 1)
    else:
        b = in_proj_bias
        e = embed_dim
        q, = heads(linear(query, q_proj_weight, None if b is None else b[:e]), 1)
        k, = heads(linear(key, k_proj_weight, None if b is None else b[e:2 * e]), 1)
        v, = heads(linear(value, v_proj_weight, None if b is None else b[2 * e:]), 1)
    if static_k is not None:
        k = static_k.reshape(bsz, num_heads, -1, head_dim)
    if static_v is not None:
        v = static_v.reshape(bsz, num_heads, -1, head_dim)
    if attn_mask is not None and attn_mask.ndim == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                               f"{(tgt_len, src_len)}.")
    elif attn_mask is not None and attn_mask.ndim == 3:
        if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                               f"{(bsz * num_heads, tgt_len, src_len)}.")
    elif attn_mask is not None:
        raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
    if bias_k is not None and bias_v is not None:
        k = _cat([k, bias_k.reshape(1, num_heads, 1, head_dim).expand(bsz, num_heads, 1, head_dim)], 2)
        v = _cat([v, bias_v.reshape(1, num_heads, 1, head_dim).expand(bsz, num_heads, 1, head_dim)], 2)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    if add_zero_attn:
        z = k.new_zeros((bsz, num_heads, 1, head_dim))
        k = _cat([k, z], 2)
        v = _cat([v, z], 2)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.shape[2]
    if key_padding_mask is not None and tuple(key_padding_mask.shape) != (bsz, src_len):
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                             f"{key_padding_mask.shape[1]}")
    if not training:
        dropout_p = 0.0
    if is_causal and attn_mask is None and key_padding_mask is None:
        causal = True
        bias = None
    else:
        causal = False
        bias = _merge_masks(attn_mask, key_padding_mask, query.dtype, bsz, num_heads, src_len)
    # need_weights: the probabilities are returned (a fully masked row gives NaNs, as
    # PyTorch's explicit softmax does); else the row gives zeros, as its SDPA kernel does
    out, weights, keep = _attention(q, k, v, bias, dropout_p, 1.0 / _math.sqrt(head_dim), causal,
                                    not need_weights)
    if not need_weights:
        weights = None
    elif keep is not None:
        weights = weights * keep            # (PyTorch returns the weights after dropout)
    # (N, H, L, hd) -> the input's layout, heads joined
    out = out.permute(0, 2, 1, 3) if batch_first else out.permute(2, 0, 1, 3)
    out = linear(out.reshape(out.shape[0], out.shape[1], embed_dim), out_proj_weight, out_proj_bias)
    if weights is not None and average_attn_weights:
        weights = weights.mean(1)
    return out, weights


def _pad_last(mask):
    """A mask with one more (unmasked) column."""
    if mask is None:
        return None
    z = _np.zeros(mask.shape[:-1] + (1,), mask._data.dtype)
    return _cat([mask, _wrap(z)], -1)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p,
                                 out_proj_weight, out_proj_bias, training=True, key_padding_mask=None,
                                 need_weights=True, attn_mask=None, use_separate_proj_weight=False,
                                 q_proj_weight=None, k_proj_weight=None, v_proj_weight=None,
                                 static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """PyTorch's functional multi-head attention: inputs (L, N, E) or
    unbatched (L, E)."""
    batched = query.ndim == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    embed_dim = query.shape[2]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got "
                             f"{embed_dim}")
    if embed_dim % num_heads:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to create "
                           "this mask.")
    if is_causal and (key_padding_mask is not None or need_weights):
        is_causal = False           # the mask itself is used
    if is_causal:
        attn_mask = None
    if not use_separate_proj_weight:
        q_proj_weight = k_proj_weight = v_proj_weight = None
    else:
        in_proj_weight = None
    out, weights = _mha(query, key, value, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
                        add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training,
                        key_padding_mask, need_weights, attn_mask, q_proj_weight, k_proj_weight,
                        v_proj_weight, average_attn_weights, is_causal, False, static_k, static_v)
    if not batched:
        out = out.squeeze(1)
        if weights is not None:
            weights = weights.squeeze(0)
    return out, weights


# ------------------------------------------------------------------ resampling: deprecated spellings, pixel shuffle
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated spelling of ``interpolate``."""
    _warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
                   stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(mode='nearest')``."""
    _warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` "
                   "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(mode='bilinear', align_corners=True)``."""
    _warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` "
                   "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def _shuffle_args(fname, input, factor, argname):
    if not isinstance(input, _Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not isinstance(factor, (int, _np.integer)) or isinstance(factor, bool):
        raise TypeError(f"{fname}(): argument '{argname}' (position 2) must be int, not {type(factor).__name__}")
    if input.ndim < 3:
        raise RuntimeError(f"{fname} expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{fname} expects a positive {argname}, but got {factor}")
    return int(factor), tuple(input.shape[:-3]), tuple(input.shape[-3:])


def pixel_shuffle(input, upscale_factor):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r): each channel block of r*r becomes an
    r x r tile (a reshape, a permutation, a reshape)."""
    r, lead, (c, h, w) = _shuffle_args("pixel_shuffle", input, upscale_factor, "upscale_factor")
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
                           f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    n = len(lead)
    x = input.reshape(lead + (c // (r * r), r, r, h, w)).permute(*range(n + 1), n + 3, n + 1, n + 4, n + 2)
    return x.reshape(lead + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W): the inverse of ``pixel_shuffle``."""
    r, lead, (c, h, w) = _shuffle_args("pixel_unshuffle", input, downscale_factor, "downscale_factor")
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but "
                           f"input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but "
                           f"input.size(-1)={w} is not divisible by {r}")
    n = len(lead)
    x = input.reshape(lead + (c, h // r, r, w // r, r)).permute(*range(n + 1), n + 2, n + 4, n + 1, n + 3)
    return x.reshape(lead + (c * r * r, h // r, w // r))


# ------------------------------------------------------------------ power-average pooling, unpooling
def _lp_pool(nd, input, norm_type, kernel_size, stride, ceil_mode):
    """``(sum over the window of x**p) ** (1/p)``: the average of the powers times
    the window's size.  (The sign-times-relu of the average is PyTorch's: it is
    the average, but its gradient at an all-zero window is zero.)"""
    k = tuple(kernel_size) if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * nd
    pool = {1: avg_pool1d, 2: avg_pool2d, 3: avg_pool3d}[nd]
    powered = input.pow(norm_type)
    if stride is not None:
        out = pool(powered, kernel_size, stride, 0, ceil_mode)
    else:
        out = pool(powered, kernel_size, padding=0, ceil_mode=ceil_mode)
    return (_pw.sign(out) * relu(_pw.abs(out))).mul(int(_np.prod(k))).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """1-d power-average pooling: ``(sum over the window of x**p) ** (1/p)``."""
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """2-d power-average pooling: ``(sum over the window of x**p) ** (1/p)``."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """3-d power-average pooling: ``(sum over the window of x**p) ** (1/p)``."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


def _tuple_n(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _unpool_output_size(input, k, s, p, output_size):
    """The output size of max unpooling: the pooled input's size by default, else
    ``output_size`` (its spatial part), which must be within a stride of it."""
    nd = len(k)
    default = [(input.shape[input.ndim - nd + d] - 1) * s[d] + k[d] - 2 * p[d] for d in range(nd)]
    if output_size is None:
        return default
    if len(output_size) == nd + 2:
        output_size = output_size[2:]
    if len(output_size) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has a "
                         f"length of '{len(output_size)}'")
    for d in range(nd):
        lo, hi = default[d] - s[d], default[d] + s[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
    return list(output_size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool1d`` with its indices: each value written at its
    index, zeros elsewhere."""
    k = _tuple_n(kernel_size, 1)
    s = _tuple_n(stride, 1) if stride is not None else k
    size = _unpool_output_size(input, k, s, _tuple_n(padding, 1), output_size)
    return _max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), list(size) + [1]).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool2d`` with its indices: each value written at its
    flat index into its H*W plane, zeros elsewhere."""
    k = _tuple_n(kernel_size, 2)
    s = _tuple_n(stride, 2) if stride is not None else k
    size = _unpool_output_size(input, k, s, _tuple_n(padding, 2), output_size)
    return _max_unpool2d(input, indices, size)


# ------------------------------------------------------------------ local response normalisation
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """``x / (k + alpha * mean of x**2 over ``size`` neighbouring channels) ** beta``
    (the window zero-padded, ``size // 2`` channels before and ``(size - 1) // 2``
    after, and always divided by ``size``)."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} "
                         f"dimensions)")
    if input.numel() == 0:
        return input
    sq = input.mul(input)
    before, after = size // 2, (size - 1) // 2
    if dim == 3:            # (N, C, L) -> (N, 1, C, L): the window runs over C
        win = avg_pool2d(pad(sq.unsqueeze(1), (0, 0, before, after)), (size, 1), stride=1).squeeze(1)
    else:                   # (N, 1, C, D, rest) with the window over C
        shape = input.shape
        sq = sq.view(shape[0], 1, shape[1], shape[2], -1)
        win = avg_pool3d(pad(sq, (0, 0, 0, 0, before, after)), (size, 1, 1), stride=1).squeeze(1).view(shape)
    return input / win.mul(alpha).add(k).pow(beta)


# ------------------------------------------------------------------ triplet loss with any distance
def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    """``max(d(a, p) - d(a, n) + margin, 0)``, ``d`` any function of two tensors
    (``pairwise_distance`` by default); with ``swap``, ``d(a, n)`` is replaced by
    ``d(p, n)`` where that is smaller."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.ndim, positive.ndim, negative.ndim)
    if len(set(dims)) != 1:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative "
                           f"{dims[2]}D inputs")
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = _pw.minimum(d_neg, dist(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), reduction)


# ------------------------------------------------------------------ embedding bags
def _index_type_error(t, what):
    return RuntimeError(f"Expected tensor for argument #1 '{what}' to have one of the following scalar types: "
                        f"Long, Int; but got torch.{_tname(t)}Tensor instead (while checking arguments for "
                        f"embedding_bag)")


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """Sums, means or maxima of bags of rows of ``weight``: a 2-d ``input`` is one
    bag per row; a 1-d one is cut into bags at ``offsets`` (with
    ``include_last_offset``, its last entry is no bag's start; the last bag still
    runs to the input's end, as in PyTorch).  Entries equal to
    ``padding_idx`` are left out of their bag (an empty bag gives zeros);
    ``per_sample_weights`` (mode 'sum') weights each entry.

    Written with ``embedding`` (so ``scale_grad_by_freq`` and the padding row's
    zero gradient are its), ``index_add`` (sum, mean) and ``gather`` at each
    bag's first maximum per column (max, which PyTorch's gradient reaches)."""
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({_torch_size(per_sample_weights)}) is not None, "
                         f"then it must have the same shape as the input ({_torch_size(input)})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError(f"if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {_type_str(offsets)}")
        n = input.shape[1]
        offs = _np.arange(0, input.numel(), n, dtype=_np.int64) if n else _np.zeros(input.shape[0], _np.int64)
        include_last_offset = False
        flat = input.reshape(-1)
        psw = None if per_sample_weights is None else per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        offs, flat, psw = None, input, per_sample_weights
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if scale_grad_by_freq and mode == "max":
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                  f"on GitHub.")
    if flat._data.dtype.name not in ("int64", "int32"):
        raise _index_type_error(flat, "indices")
    if offs is None:
        if offsets._data.dtype.name not in ("int64", "int32"):
            raise _index_type_error(offsets, "indices")
        offs_t = offsets.long()
    else:
        offs_t = _wrap(offs)
    wdt = weight._data.dtype
    if wdt.kind != "f" and wdt.name != "bfloat16":
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have one of the following scalar types: "
                           f"Half, BFloat16, Float, Double; but got CPU{_cpu_type(wdt)}Type instead (while checking "
                           f"arguments for embedding_bag)")
    if psw is not None and psw._data.dtype != wdt:
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
                           f"'per_sample_weights'; but type torch.{_tname(weight)}Tensor does not equal "
                           f"torch.{_tname(psw)}Tensor (while checking arguments for embedding_bag)")
    rows, dim = weight.shape
    if padding_idx is not None:
        if not -rows <= padding_idx < rows:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, {-rows} through {rows - 1}, "
                               f"but got {padding_idx}")
        padding_idx = padding_idx + rows if padding_idx < 0 else padding_idx
    length = flat.shape[0]
    if _like_hook(offs_t) is None:      # (values at hand: not batched inside vmap)
        o = offs_t._data
        if o.size and o[0] != 0:
            raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                               f"from position 0. However, got {int(o[0])}\n[ torch.{_tname(offsets)}Tensor{{}} ]")
        if o.size and o[-1] > length:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {length} but got offsets[-1] "
                               f"of {int(o[-1])}")
    if _like_hook(flat) is None:
        idx = flat._data
        bad = _np.nonzero((idx < 0) | (idx >= rows))[0]
        if bad.size:
            raise RuntimeError(f"Index {int(bad[0])} of input takes value {int(idx[bad[0]])} which is not in the "
                               f"valid range [0, {rows})")
        if max_norm is not None:
            _renorm_rows(weight, flat, max_norm, norm_type)
    # each position's bag (how many bag starts lie at or before it, less one), and
    # whether it counts: inside a bag, not padding.  Tensor ops throughout, so
    # that batched indices and offsets work inside vmap.
    bags = offs_t.shape[0] - 1 if include_last_offset else offs_t.shape[0]
    if bags <= 0 or length == 0:        # (nothing to pick: zeros, still on the graph)
        return (weight[:0].sum(0) * 0).expand(max(bags, 0), dim).contiguous()
    at = _arange(length)
    starts = offs_t[:bags]
    bag = (starts.unsqueeze(0) <= at.unsqueeze(1)).sum(1) - 1
    valid = bag >= 0
    # (with include_last_offset, the last bag still runs to the input's end, as in PyTorch's
    #  kernels: offsets[-1] is only checked, not used to cut)
    if padding_idx is not None:
        valid = valid & (flat != padding_idx)
    bag = bag.clamp_min(0)
    emb = _nn.embedding(weight, flat, padding_idx, bool(scale_grad_by_freq))
    if mode == "max":
        e = emb.detach()
        bag_d = bag.unsqueeze(1).expand(length, dim)
        keep = valid.unsqueeze(1).expand(length, dim)
        # PyTorch's kernel walks each bag keeping an entry when it is the first or
        # greater than the kept one: a NaN is kept only when first, else skipped
        lowest = _zeros(bags, dim, dtype=weight.dtype) - _math.inf
        top = lowest.scatter_reduce(0, bag_d, e.masked_fill(~keep | e.isnan(), -_math.inf), "amax")
        pos = at.unsqueeze(1).expand(length, dim)
        none = _zeros(bags, dim, dtype=at.dtype) + length
        hit = keep & (e == top.gather(0, bag_d))
        first = none.scatter_reduce(0, bag_d, _pw.where(hit, pos, length), "amin")   # the first maximum
        head = none.scatter_reduce(0, bag_d, _pw.where(keep, pos, length), "amin")   # the first entry
        head_nan = e.gather(0, head.clamp_max(length - 1)).isnan() & (head < length)
        first = _pw.where(head_nan, head, first)
        return emb.gather(0, first.clamp_max(length - 1)).masked_fill(first == length, 0)
    w = valid.to(weight.dtype)
    if psw is not None:
        w = w * psw
    out = _zeros(bags, dim, dtype=weight.dtype).index_add(0, bag, emb * w.unsqueeze(1))
    if mode == "mean":
        count = _zeros(bags, dtype=weight.dtype).index_add(0, bag, valid.to(weight.dtype))
        out = out / count.clamp_min(1).unsqueeze(1)
    return out


def _torch_size(t):
    return f"torch.Size({list(t.shape)})"


def _type_str(v):
    return "<class 'torch.Tensor'>" if isinstance(v, _Tensor) else str(type(v))


def _cpu_type(npdt):
    return {"complex64": "ComplexFloat", "complex128": "ComplexDouble", "int64": "Long", "int32": "Int",
            "bool": "Bool"}.get(npdt.name, _dtype_name(npdt))


# ------------------------------------------------------------------ spatial transformers (2-d)
_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


def _neg_one_to_one(steps, align_corners, dtype):
    """``steps`` points across [-1, 1]: the ends (align_corners) or the pixel
    centres (scaled by (steps - 1) / steps); one point is 0."""
    if steps <= 1:
        return _zeros(max(steps, 0), dtype=dtype)
    r = _np.linspace(-1.0, 1.0, steps)
    if not align_corners:
        r = r * (steps - 1) / steps
    return _wrap(r.astype(dtype.np))


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of a batch of affine maps ``theta``: (N, 2, 3) for an
    output of ``size`` (N, C, H, W), giving (N, H, W, 2) points ``theta @ (x, y, 1)``
    over the normalised output coordinates; (N, 3, 4) for (N, C, D, H, W),
    giving (N, D, H, W, 3) points ``theta @ (x, y, z, 1)``."""
    if align_corners is None:
        _warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(size)
    if len(size) in (4, 5):
        nd = len(size) - 2
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (nd, nd + 1):
            raise ValueError(f"Expected a batch of {nd}D affine matrices of shape Nx{nd}x{nd + 1} for size {size}. "
                             f"Got {_torch_size(theta)}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if align_corners and min(size[2:]) == 1:
        _warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                       "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                       "of affine_grid for details.", UserWarning, stacklevel=2)
    n, spatial = size[0], size[2:]
    if theta.shape[0] != n:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {nd + 1}] but got: "
                           f"[{theta.shape[0]}, {nd + 1}].")
    dt = theta.dtype
    base = _np.empty(spatial + (nd + 1,), dt.np)
    for k in range(nd):                 # coordinate k (x, y, z) runs along spatial axis nd - 1 - k
        axis = nd - 1 - k
        shape = [1] * nd
        shape[axis] = spatial[axis]
        base[..., k] = _neg_one_to_one(spatial[axis], align_corners, dt).numpy().reshape(shape)
    base[..., nd] = 1
    m = _math.prod(spatial)
    return _matmul(_wrap(base.reshape(1, m, nd + 1)), theta.transpose(1, 2)).view(n, *spatial, nd)


def _reflect(x, lo2, hi2):
    """Coordinates reflected into [lo2/2, hi2/2] (PyTorch's reflect_coordinates)."""
    if lo2 == hi2:
        return x * 0
    low, span = lo2 / 2, (hi2 - lo2) / 2
    d = (x - low).abs()
    flips = _pw.floor(d / span)
    extra = d - flips * span
    return _pw.where(_pw.remainder(flips, 2) == 0, extra + low, span - extra + low)


def _clip_coord(x, size, nan_high=False):
    """``x`` clipped to [0, size - 1] as PyTorch's grid sampler clips it: the
    bounds themselves count as outside, so the gradient is 0 there (``clamp``'s
    passes it), and NaN becomes 0 (PyTorch's 2-d CPU kernel) or, ``nan_high``,
    size - 1 (its 3-d kernel), with gradient 0."""
    if nan_high:
        return _pw.where(x < size - 1, _pw.where(x > 0, x, 0.0), float(size - 1))
    return _pw.where(x > 0, _pw.where(x < size - 1, x, float(size - 1)), 0.0)


def _unnormalize(g, size, align_corners):
    """Normalised grid coordinates [-1, 1] to pixel coordinates of an axis of ``size``."""
    return (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2


def _pad_coord(x, size, padding_mode, align_corners, nan_high=False):
    """Pixel coordinates brought inside per ``padding_mode`` (PyTorch's compute_coordinates)."""
    if padding_mode == "border":
        x = _clip_coord(x, size, nan_high)
    elif padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        x = _clip_coord(x, size, nan_high)
    return x


def _source_coord(g, size, padding_mode, align_corners):
    return _pad_coord(_unnormalize(g, size, align_corners), size, padding_mode, align_corners)


_CUBIC_A = -0.75                        # PyTorch's (and OpenCV's) bicubic convolution constant


def _cubic_weights(t):
    """The four cubic-convolution weights of the points at -1, 0, 1, 2 for a fraction ``t``."""
    a = _CUBIC_A

    def near(d):                        # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):                         # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return far(t + 1), near(t), near(1 - t), far(2 - t)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples ``input`` (N, C, H, W) at the normalised points ``grid`` (N, Ho, Wo, 2)
    (x then y, in [-1, 1]), or (N, C, D, H, W) at (N, Do, Ho, Wo, 3) (x, y, z):
    bilinear (trilinear), nearest, or bicubic (4-d only, as in PyTorch), outside
    points per ``padding_mode``.  Written with ``gather``, so the gradients reach
    both the input and the grid (the grid's through the interpolation weights;
    nearest gives it zeros)."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        _warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if input.ndim != grid.ndim or input.ndim not in (4, 5):
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
                           f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, but got "
                           f"grid with sizes {list(grid.shape)}")
    nd = input.ndim - 2
    if mode == "bicubic" and nd == 3:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not input.is_floating_point() or not grid.is_floating_point():
        raise NotImplementedError(f"\"grid_sampler{'_2d_cpu_kernel_impl' if nd == 2 else '3d_cpu'}\" not "
                                  f"implemented for '{_tname(input)}'")
    if input._data.dtype != grid._data.dtype:
        raise RuntimeError(f"expected scalar type {_tname(input)} but found {_tname(grid)}")
    n, c = input.shape[:2]
    sizes = tuple(input.shape[2:])      # (D,) H, W
    out = tuple(grid.shape[1:-1])
    m = _math.prod(out)
    flat = input.reshape(n, c, _math.prod(sizes))
    # the pixel coordinate along each input axis (D, H, W order; the grid lists x, y, z)
    pix = [_unnormalize(grid[..., nd - 1 - j], sizes[j], align_corners) for j in range(nd)]

    def pick(idx, weight):
        """input at integer points ``idx`` (one (N, *out) tensor per axis) times
        ``weight``, zero outside.  (PyTorch's 3-d kernel skips the points outside,
        so that a NaN or infinite weight there adds nothing; its 2-d one adds
        0 * weight.)"""
        inside = lin = None
        for j, (i, size) in enumerate(zip(idx, sizes)):
            ok = (i >= 0) & (i <= size - 1)                 # (NaN: outside)
            inside = ok if inside is None else inside & ok
            lin = i if lin is None else lin * size + i
        at = _pw.where(inside, lin, 0.0).long().reshape(n, 1, m).expand(n, c, m)
        v = flat.gather(2, at).view(n, c, *out)
        inside = inside.unsqueeze(1)
        if nd == 3:
            return _pw.where(inside, v * weight.unsqueeze(1), 0.0)
        return _pw.where(inside, v, 0.0) * weight.unsqueeze(1)

    if mode == "bicubic":               # 4x4 points around, each brought inside by the padding
        y, x = pix
        y0, x0 = _pw.floor(y.detach()), _pw.floor(x.detach())
        wy, wx = _cubic_weights(y - y0), _cubic_weights(x - x0)
        total = None
        for a in range(4):
            yi = _pad_coord(y0 + (a - 1), sizes[0], padding_mode, align_corners)
            row = None
            for b in range(4):
                xi = _pad_coord(x0 + (b - 1), sizes[1], padding_mode, align_corners)
                term = pick((yi, xi), wx[b])
                row = term if row is None else row + term
            term = row * wy[a].unsqueeze(1)
            total = term if total is None else total + term
        return total
    pix = [_pad_coord(p, size, padding_mode, align_corners, nd == 3) for p, size in zip(pix, sizes)]
    if mode == "nearest":       # (the grid on the graph, with a zero gradient, as in PyTorch)
        none = _pw.where(_zeros(1, dtype=_D.bool_), pix[0] + pix[-1], 0.0)
        return pick([_pw.round(p.detach()) for p in pix], none + 1)
    lows = [_pw.floor(p.detach()) for p in pix]
    fracs = [p - lo for p, lo in zip(pix, lows)]
    if nd == 3:                 # (a NaN or infinite point is outside: no weight, and no gradient, there)
        fracs = [_pw.where(lo.isfinite(), f, 0.0) for f, lo in zip(fracs, lows)]
    total = None
    for corner in _itertools.product((0, 1), repeat=nd):     # (0 = the floor, 1 = the next point)
        w = None
        for f, k in zip(fracs, corner):
            wk = f if k else 1 - f
            w = wk if w is None else w * wk
        term = pick([lo + k for lo, k in zip(lows, corner)], w)
        total = term if total is None else total + term
    return total
