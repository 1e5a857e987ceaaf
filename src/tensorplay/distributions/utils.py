"""Helpers shared by the distributions (``torch.distributions.utils``)."""
import functools
from numbers import Number

from . import _tp
from .constraints import _finfo

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix", "euler_constant", "is_tensor_like"]

euler_constant = 0.57721566490153286060   # Euler-Mascheroni constant


def is_tensor_like(value):
    return isinstance(value, _tp.Tensor)


def broadcast_all(*values):
    """Broadcast numbers and tensors to one shape: numbers become tensors of the
    first tensor's dtype (the default dtype if there is none)."""
    if not all(isinstance(v, (_tp.Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, _tp.Tensor) for v in values):
        dtype = _tp.get_default_dtype()
        for v in values:
            if isinstance(v, _tp.Tensor):
                dtype = v.dtype
                break
        values = [v if isinstance(v, _tp.Tensor) else _tp.tensor(v, dtype=dtype) for v in values]
    return _tp.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device=None):
    """Standard normal draws of ``shape`` from the default generator."""
    return _tp.randn(tuple(shape), dtype=dtype)


def _sum_rightmost(value, dim):
    """Sum out the ``dim`` rightmost dimensions of ``value``."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: the sigmoid for a binary variable, else the
    softmax over the last dimension."""
    if is_binary:
        return _tp.sigmoid(logits)
    return _tp.functional.softmax(logits, dim=-1)


def clamp_probs(probs):
    """``probs`` clamped into ``[eps, 1 - eps]`` (the dtype's machine epsilon)."""
    eps = float(_finfo(probs.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities (clamped first): log-odds for a binary variable,
    else the logs (normalized later by the distribution)."""
    ps = clamp_probs(probs)
    if is_binary:
        return _tp.log(ps) - _tp.log1p(-ps)
    return _tp.log(ps)


class lazy_property:
    """A property computed (with grad enabled) on first access and then stored
    on the instance, so that it is computed once."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with _tp.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a lazy property is on the class: also a ``property``, for tools."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_mask(n, diag):
    ar = _tp.arange(n)
    return ar < ar.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangle (below diagonal ``diag``) of each matrix, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of ``tril_matrix_to_vec``: square matrices with zeros above
    diagonal ``diag``."""
    m = vec.shape[-1]
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = float(_finfo(vec.dtype).eps)
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {m} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    mat[..., _tril_mask(n, diag)] = vec
    return mat


def _expand_probs_or_logits(src, new, shape):
    """``expand``'s part for a distribution given by ``probs`` or ``logits``: each
    of the two that ``src`` holds (both, once the other was computed), expanded
    to ``shape``; ``_param`` is the last."""
    if "probs" in src.__dict__:
        new.probs = src.probs.expand(shape)
        new._param = new.probs
    if "logits" in src.__dict__:
        new.logits = src.logits.expand(shape)
        new._param = new.logits
