"""Gradient clipping (``torch.nn.utils.clip_grad_*``): in place, unrecorded."""
import functools
import math
import warnings

import numpy as np

from ... import _dtype
from ..._autograd.grad_mode import no_grad
from ..._tensor import Tensor, _wrap

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _as_list(parameters):
    if isinstance(parameters, Tensor):
        return [parameters]
    return list(parameters)


def _grads(parameters):
    return [p.grad for p in _as_list(parameters) if p.grad is not None]


def _norm(a, p):
    with np.errstate(all="ignore"):         # (inf or NaN gradients: PyTorch does not warn)
        return _norm_of(a, p)


def _norm_of(a, p):
    a = a.astype(np.float32) if a.dtype.itemsize < 4 and a.dtype.kind == "f" or \
        a.dtype.name == "bfloat16" else a
    a = np.abs(a.reshape(-1))
    if a.size == 0:
        return 0.0 if p != -math.inf else math.inf
    if p == math.inf:
        return float(a.max())
    if p == -math.inf:
        return float(a.min())
    if p == 2:
        return float(math.sqrt(np.dot(a, a)))
    if p == 1:
        return float(a.sum())
    if p == 0:
        return float((a != 0).sum())
    return float((a ** p).sum() ** (1.0 / p))


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of all the tensors together (the norm of their norms)."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _wrap(np.asarray(0.0, np.float32))
    norms = np.array([_norm(t._data, norm_type) for t in tensors])
    total = _norm(norms, norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is "
                           f"non-finite, so it cannot be clipped. To disable this error and scale the "
                           f"gradients by the non-finite norm anyway, set "
                           f"`error_if_nonfinite=False`")
    # the dtype PyTorch's stack of the norms has: all the tensors' dtypes promoted
    dt = functools.reduce(_dtype.promote_types, (_dtype._FROM_NP[t._data.dtype] for t in tensors))
    return _wrap(np.asarray(total, dt.np if dt.is_floating_point else np.float32))


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients by ``min(1, max_norm / (total_norm + 1e-6))``."""
    grads = _grads(parameters)
    if not grads:
        return
    coef = float(max_norm) / (float(total_norm) + 1e-6)
    coef = min(coef, 1.0)
    with no_grad():
        for g in grads:
            g.mul_(coef)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Rescale the gradients so that their total norm is at most ``max_norm``;
    returns the total norm before clipping."""
    parameters = _as_list(parameters)
    grads = _grads(parameters)
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element into [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)
