"""tensorplay.nn.init: in-place initialisers, as ``torch.nn.init``.

Each fills a tensor under ``no_grad`` and returns it.  Random ones draw from
the default generator (or ``generator=``), so ``tensorplay.manual_seed``
reproduces them; the numbers differ from PyTorch's (another generator), the
distributions are the same.
"""
import math as _math
import warnings as _warnings

import numpy as _np

from .._autograd.grad_mode import no_grad as _no_grad
from .._random import default_generator as _default_generator
from .._tensor import _wrap

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_",
           "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "sparse_", "uniform", "normal", "constant",
           "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal",
           "sparse", "eye", "dirac"]


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (PyTorch's table)."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return _math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return _math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _rng(generator):
    return (_default_generator if generator is None else generator)._rng


def _fill(tensor, values):
    """Write ``values`` (a NumPy array of the tensor's shape) into the tensor, unrecorded."""
    with _no_grad():
        tensor.copy_(_wrap(_np.asarray(values).astype(tensor._data.dtype if tensor._data.dtype.kind
                                                      in "fc" else _np.float32)))
    return tensor


def _shape(tensor):
    return tuple(tensor.shape)


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    # (the tensor's own draw: its dtype's [a, b) without b, complex parts each
    # uniform, integer tensors refused, as PyTorch's init draws)
    with _no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    with _no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Normal(mean, std) restricted to [a, b], by the inverse CDF of uniform draws
    (PyTorch's steps, in place in the tensor's dtype)."""
    def cdf(x):
        return (1.0 + _math.erf(x / _math.sqrt(2.0))) / 2.0
    if mean < a - 2 * std or mean > b + 2 * std:
        _warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    lo, hi = cdf((a - mean) / std), cdf((b - mean) / std)
    with _no_grad():
        tensor.uniform_(2 * lo - 1, 2 * hi - 1, generator=generator)
        tensor.erfinv_()
        tensor.mul_(std * _math.sqrt(2.0))
        tensor.add_(mean)
        tensor.clamp_(min=a, max=b)
    return tensor


def constant_(tensor, val):
    with _no_grad():
        tensor.fill_(val)
    return tensor


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    return constant_(tensor, 0.0)


def eye_(tensor):
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, _np.eye(*_shape(tensor)))


def dirac_(tensor, groups=1):
    dims = tensor.ndim
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = _shape(tensor)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per = sizes[0] // groups
    v = _np.zeros(sizes)
    for g in range(groups):
        for d in range(min(out_per, sizes[1])):
            idx = (g * out_per + d, d) + tuple(s // 2 for s in sizes[2:])
            v[idx] = 1
    return _fill(tensor, v)


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = _math.prod(_shape(tensor)[2:]) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = _math.sqrt(3.0) * gain * _math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * _math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    if 0 in _shape(tensor):
        _warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / _math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = _math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix from the QR decomposition of a normal one
    (signs fixed by R's diagonal, so the distribution is uniform)."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    if tensor.is_complex():             # (PyTorch's sign of R's diagonal refuses it)
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex "
                                  "numbers. Please use torch.sgn instead.")
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with _no_grad():
        flat = tensor.new_empty((rows, cols)).normal_(0.0, 1.0, generator=generator)
    flat = flat._data.astype(_np.float64)
    if rows < cols:
        flat = flat.T
    q, r = _np.linalg.qr(flat)
    q = q * _np.sign(_np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, (gain * q).reshape(_shape(tensor)))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = _shape(tensor)
    num_zeros = int(_math.ceil(sparsity * rows))
    with _no_grad():
        tensor.normal_(0, std, generator=generator)
        rng = _rng(generator)
        for c in range(cols):
            tensor[rng.permutation(rows)[:num_zeros].tolist(), c] = 0
    return tensor


def _deprecated(new):
    name = new.__name__[:-1]

    def old(*args, **kwargs):
        _warnings.warn(f"`nn.init.{name}` is now deprecated in favor of `nn.init.{new.__name__}`.",
                      FutureWarning, stacklevel=2)
        return new(*args, **kwargs)
    old.__name__ = old.__qualname__ = name
    return old


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)

