"""The ops behind ``tensorplay.nn.functional`` that are kernels of their own
(PyTorch has them as single ATen ops too): ``linear`` (one GEMM, the bias added
in place), ``native_normalize`` (the statistics shared by layer, group,
instance and batch norm), ``embedding``, the fused softmax-cross-entropy for
class indices, ``nll_loss``, ``binary_cross_entropy``, ``attention`` (scaled
dot-product attention with the softmax done in place and one joint
backward), the activations that are not plain compositions (``leaky_relu``,
``elu``/``selu``/``celu``, ``hardtanh``, ``hardswish``, ``mish``), and two
backward kernels made ops so that their callers' vjps stay cheap and
differentiable (``softmax_backward``, ``normalize_backward``).

Everything else in ``nn.functional`` is a composition of registry ops.  Each
entry here has a NumPy forward, vjps written in tensorplay ops (so double
backward works), a forward-mode rule (its family's or its own) and, where
vmap benefits, a batching rule.  None of them is a Tensor method or a
top-level name: ``nn.functional`` is where they are spelled (with PyTorch's
argument checks, done there before the op runs).

Conventions for the losses: the class dimension is 1 (0 for an unbatched
input); ``reduction`` is one of "none", "mean", "sum"; a target equal to
``ignore_index`` contributes nothing, not even to the mean's denominator.
"""
import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _wrap
from ._families import BILINEAR, ELEMENTWISE, INDEXING, OTHER
from ._registry import defop, derivatives_recorded, dispatch, flat_kernel, public, real_float_kernel
from ._util import NOT_FLOAT, number_arg, refuse
from .core import matmul as _matmul
from .indexing import index_add as _index_add
from .linalg import mm as _mm
from .pointwise import _CLAMP_COMPLEX, conj as _conj, softplus as _softplus, where as _where
from .reduction import _softmax
from .shape import stack as _stack

__all__ = ["hardshrink"]     # (the one that is a Tensor method and a top-level name)


def _const(a):
    """A constant tensor (no history) holding ``a``."""
    return _wrap(np.asarray(a))


# vmap batching rules (``rule(op, args, bdims) -> (result, out_bdim)``) take the
# physical arguments with their batch dimension at ``bdims[i]`` (None: unbatched)
# and call the op once on the whole batch.  Ops without a rule (the class losses)
# are run once per sample by vmap.
def _front(t, b, rank=None):
    """``t`` with its batch dimension first and, if ``rank`` is given, size-1
    dimensions after it up to that logical rank (so broadcasting lines up)."""
    if b != 0:
        t = t.movedim(b, 0)
    if rank is not None and t.ndim - 1 < rank:
        t = t.reshape((t.shape[0],) + (1,) * (rank - t.ndim + 1) + tuple(t.shape[1:]))
    return t


def _shifted(dims):
    return tuple(d + 1 for d in dims)


# ------------------------------------------------------------------ linear
def _linear_k(x, weight, bias):
    if x.ndim == 1:
        out = np.matmul(weight, x)
    elif x.ndim == 2:
        out = np.matmul(x, weight.T)        # weight.T is Fortran-ordered: BLAS reads it as is
    else:                                   # one GEMM over all leading dimensions
        out = np.matmul(x.reshape(-1, x.shape[-1]), weight.T).reshape(x.shape[:-1] + weight.shape[:1])
    if bias is not None:
        out += bias                         # a fresh array: no copy for the bias
    return out


def _flat2(t):
    return t if t.ndim == 2 else t.reshape(-1, t.shape[-1])


def _linear_vjp_x(g, weight):
    w = _conj(weight)
    if g.ndim <= 2:
        return _matmul(g, w)
    return _mm(_flat2(g), w).reshape(tuple(g.shape[:-1]) + (w.shape[1],))


def _linear_vjp_w(g, x):
    if x.ndim == 1:
        return g.unsqueeze(1) * _conj(x).unsqueeze(0)
    return _mm(_flat2(g).mT, _conj(_flat2(x)))


def _linear_vjp_b(g):
    return g.sum(tuple(range(g.ndim - 1))) if g.ndim > 1 else g


def _linear_jvp(op, args, tangents, result):
    x, w = args[0], args[1]
    xt, wt, bt = tangents
    t = None
    if xt is not None:
        t = linear(xt, w, bt)
    elif bt is not None:
        t = bt.expand(result.shape)
    if wt is not None:
        u = linear(x, wt, None)
        t = u if t is None else t + u
    return t


def _linear_batch(op, args, bdims):
    x, w, b = args[0], args[1], args[2]
    bx, bw, bb = bdims[0], bdims[1], bdims[2]
    if bw is None and bb is None:               # a batch of inputs: more leading dimensions
        return linear(_front(x, bx), w, b), 0
    # per-sample weights: one broadcasting matmul over the batch
    xl = x.ndim - (bx is not None)              # logical rank of the input
    xb = _front(x, bx) if bx is not None else x.unsqueeze(0)
    lead = tuple(xb.shape[1:-1])
    x3 = xb.reshape(xb.shape[0], -1, xb.shape[-1])
    w3 = _front(w, bw) if bw is not None else w.unsqueeze(0)
    out = _matmul(x3, w3.mT)
    if b is not None:
        b3 = _front(b, bb) if bb is not None else b.unsqueeze(0)
        out = out + b3.unsqueeze(1)
    return out.reshape((out.shape[0],) + lead + (out.shape[-1],)) if xl > 1 else \
        out.reshape(out.shape[0], out.shape[-1]), 0


linear = defop("linear", _linear_k, {"x": _linear_vjp_x, "weight": _linear_vjp_w, "bias": _linear_vjp_b},
               no_bool="addmm_impl_cpu_",
               n_in=3, node_name="AddmmBackward0", family=BILINEAR, jvp=_linear_jvp, batch=_linear_batch,
               method=False)


# ------------------------------------------------------------------ normalisation statistics
def _normalize_k(x, dims, eps):
    """(x - mean) / sqrt(var + eps) over ``dims``, with the mean and the biased
    variance (kept dimensions): what layer, group, instance and batch norm share."""
    if not x.flags.c_contiguous:
        x = np.ascontiguousarray(x)     # (the result contiguous, as PyTorch's)
    n = math.prod(x.shape[d] for d in dims)
    k = len(dims)
    if n and dims == tuple(range(x.ndim - k, x.ndim)) and x.flags.c_contiguous:
        # the last dimensions: a matrix-vector product for the mean, a row-wise dot
        # product for the variance (no temporary for the squares)
        x2 = x.reshape(-1, n)
        mean = (x2 @ np.full(n, 1 / n, x.dtype)).reshape(x.shape[:x.ndim - k] + (1,) * k)
        d = x - mean
        d2 = d.reshape(-1, n)
        var = (np.einsum("ij,ij->i", d2, d2) / n).reshape(mean.shape)
    else:
        mean = np.add.reduce(x, axis=dims, keepdims=True) / max(n, 1)
        d = x - mean
        var = np.add.reduce(d * d, axis=dims, keepdims=True) / max(n, 1)
    d *= 1 / np.sqrt(var + eps)
    return d, mean.astype(x.dtype, copy=False), var.astype(x.dtype, copy=False)


def _count(t, dims):
    return math.prod(t.shape[d] for d in dims)


def _live(g):
    """Whether an output's gradient can matter: it has history, or a nonzero value
    (a zero filled in for an unused output contributes nothing).  A tensor of a
    transform (a vmap batch) whose value cannot be read here counts as live."""
    if g.requires_grad:
        return True
    d = g._data
    return bool(d.any()) if type(d) is np.ndarray else True


def _normalize_vjp(g, result, dims, eps):
    """All three outputs are differentiable, so the rule is exact when the mean
    or the variance are used too (and so double backward, which reaches them
    through the rebuilt outputs, is exact)."""
    xhat, mean, var = result
    g0, g1, g2 = g
    n = max(_count(xhat, dims), 1)
    rstd = (var + eps).rsqrt()
    gx = normalize_backward(g0, xhat, rstd, dims)
    if _live(g1):
        gx = gx + g1 / n
    if _live(g2):
        gx = gx + g2 * (2.0 / n) * xhat / rstd
    return gx


def _normalize_backward_k(g, xhat, rstd, dims):
    """``rstd * (g - mean(g) - xhat * mean(g * xhat))`` over ``dims``: the
    gradient through ``xhat = (x - mean(x)) * rstd``, with one temporary."""
    n = max(math.prod(g.shape[d] for d in dims), 1)
    m1 = np.add.reduce(g, axis=dims, keepdims=True) / n
    m2 = np.add.reduce(g * xhat, axis=dims, keepdims=True) / n
    out = xhat * -m2
    out += g
    out -= m1
    out *= rstd
    return out


def _normalize_backward_vjp_xhat(gg, g, xhat, rstd, dims):
    return -rstd * (gg * (g * xhat).mean(dims, keepdim=True) + g * (gg * xhat).mean(dims, keepdim=True))


def _normalize_backward_vjp_rstd(gg, g, xhat, dims):
    centred = g - g.mean(dims, keepdim=True) - xhat * (g * xhat).mean(dims, keepdim=True)
    return (gg * centred).sum(dims, keepdim=True)


def _normalize_backward_jvp(op, args, tangents, result):
    g, xhat, rstd, dims = args
    gt, xt, rt = tangents
    t = None if gt is None else normalize_backward(gt, xhat, rstd, dims)
    if xt is not None:
        u = -rstd * (xt * (g * xhat).mean(dims, keepdim=True) + xhat * (g * xt).mean(dims, keepdim=True))
        t = u if t is None else t + u
    if rt is not None:
        u = result * (rt / rstd)
        t = u if t is None else t + u
    return t


def _normalize_backward_batch(op, args, bdims):
    g, xhat, rstd, dims = args
    rank = max(t.ndim - (b is not None) for t, b in zip((g, xhat, rstd), bdims[:3]))
    ts = [t.unsqueeze(0) if b is None else _front(t, b, rank) for t, b in zip((g, xhat, rstd), bdims[:3])]
    return normalize_backward(ts[0], ts[1], ts[2], _shifted(dims)), 0


# the projection g -> g - mean(g) - xhat mean(g xhat) is symmetric: the vjp in g is the op itself
normalize_backward = defop(
    "normalize_backward", _normalize_backward_k,
    {"g": lambda gg, xhat, rstd, dims: normalize_backward(gg, xhat, rstd, dims),
     "xhat": _normalize_backward_vjp_xhat, "rstd": _normalize_backward_vjp_rstd},
    n_in=3, node_name="NativeNormBackwardBackward0", family=OTHER, jvp=_normalize_backward_jvp,
    batch=_normalize_backward_batch, method=False)


def _normalize_jvp(op, args, tangents, result):
    xt = tangents[0]
    dims, eps = args[1], args[2]
    xhat, mean, var = result
    rstd = (var + eps).rsqrt()
    mean_t = xt.mean(dims, keepdim=True)
    c = (xhat * xt).mean(dims, keepdim=True)
    return (xt - mean_t - xhat * c) * rstd, mean_t, 2 * c / rstd


def _normalize_batch(op, args, bdims):
    x, dims, eps = args
    return native_normalize(_front(x, bdims[0]), _shifted(dims), eps), 0


native_normalize = defop("native_normalize", _normalize_k, {"x": _normalize_vjp},
                         node_name="NativeNormBackward0", family=OTHER, jvp=_normalize_jvp,
                         batch=_normalize_batch, method=False, opmath_out=(1, 2))


# ------------------------------------------------------------------ embedding
def _embedding_k(weight, indices, padding_idx, scale_grad_by_freq):
    n = weight.shape[0]
    if indices.size and n == 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        raise IndexError("index out of range in self")
    return np.take(weight, indices, axis=0)


def _embedding_vjp(g, weight, indices, padding_idx, scale_grad_by_freq):
    idx = indices._data.reshape(-1)
    g2 = g.reshape((idx.size,) + tuple(weight.shape[1:]))
    scale = None
    if type(padding_idx) is tuple:      # vmap's tables stacked: a padding row in each
        row, period = padding_idx
        scale = (idx % period != row).astype(g.dtype.np)
    elif padding_idx is not None and padding_idx >= 0:
        scale = (idx != padding_idx).astype(g.dtype.np)
    if scale_grad_by_freq:
        counts = np.bincount(idx, minlength=weight.shape[0])[idx].astype(g.dtype.np)
        scale = 1 / counts if scale is None else scale / counts
    if scale is not None:
        g2 = g2 * _const(scale.reshape((-1,) + (1,) * (g2.ndim - 1)))
    zeros = _wrap(np.zeros(tuple(weight.shape), g.dtype.np))
    return _index_add(zeros, 0, _wrap(idx), g2)


def _embedding_batch(op, args, bdims):
    """Shared weight: the op on the batch of indices (each element picks its
    row; the padding row's zero gradient holds per element).  A batched weight:
    each sample's rows gathered from its own table (bounds checked by the
    gather).  Counting by frequency, or a padding row of a batched weight, is
    per sample: the samples' tables stacked into one (an unbatched weight
    expanded), each sample's indices moved to its own table, and the op once
    on that, its padding row repeated in every table (``_stacked_tables``)."""
    weight, indices, padding_idx, by_freq = args[:4]
    if bdims[0] is None and not by_freq:
        return dispatch(op, [weight, _front(indices, bdims[1]), padding_idx, by_freq]), 0
    if by_freq or padding_idx is not None:
        return _stacked_tables(op, args, bdims), 0
    w = _front(weight, bdims[0])
    b, rest = w.shape[0], tuple(w.shape[2:])
    i = _front(indices, bdims[1]) if bdims[1] is not None else \
        indices.unsqueeze(0).expand((b,) + tuple(indices.shape))
    k = i.reshape((b, -1))
    full = k.reshape(tuple(k.shape) + (1,) * len(rest)).expand(tuple(k.shape) + rest)
    return w.gather(1, full).reshape((b,) + tuple(i.shape[1:]) + rest), 0


def _stacked_tables(op, args, bdims):
    """``embedding`` of each sample as one call: the ``b`` tables of ``n`` rows
    as one of ``b * n`` rows, sample ``k``'s index ``j`` as row ``k * n + j``
    (an index out of its table as -1, so that the op raises its own error),
    ``padding_idx`` as ``(row, n)`` (the row of every table; the op's
    derivative reads it so).  The counts of ``scale_grad_by_freq`` are then
    each sample's own: the samples' rows are distinct."""
    weight, indices, padding_idx, by_freq = args[:4]
    b = weight.shape[bdims[0]] if bdims[0] is not None else indices.shape[bdims[1]]
    w = _front(weight, bdims[0]) if bdims[0] is not None else \
        weight.unsqueeze(0).expand((b,) + tuple(weight.shape))
    n = w.shape[1]
    i = _front(indices, bdims[1]) if bdims[1] is not None else indices.unsqueeze(0)
    shift = _wrap(np.arange(0, b * n, n, dtype=np.int64).reshape((b,) + (1,) * (i.ndim - 1)))
    i = _where((i >= 0) & (i < n), i + shift, -1)
    if bdims[1] is None:
        i = i.expand((b,) + tuple(indices.shape))
    if type(padding_idx) is tuple:      # already stacked tables (an inner vmap): their rows
        pad = padding_idx               # keep their period, which divides n
    else:
        pad = None if padding_idx is None or padding_idx < 0 else (padding_idx, n)
    return dispatch(op, [w.reshape((b * n,) + tuple(w.shape[2:])), i, pad, by_freq])


embedding = defop("embedding", _embedding_k, {"weight": _embedding_vjp}, n_in=2, meta=("weight",),
                  upcast=False, family=INDEXING, linear=True, method=False, batch=_embedding_batch)


# ------------------------------------------------------------------ losses over classes
def _class_layout(shape, target, weight, ignore_index, dtype):
    """For an input of ``shape`` (classes along dimension 1, or 0 if unbatched):
    the class dimension, the class count, the valid-target mask, the targets
    with ignored ones set to 0, and each target's weight (0 where ignored),
    the last three in the target's shape."""
    cdim = 0 if len(shape) == 1 else 1
    c = shape[cdim]
    valid = target != ignore_index
    tc = np.where(valid, target, 0).astype(np.int64, copy=False)
    if tc.size:
        bad = (tc < 0) | (tc >= c)
        if bad.any():
            raise IndexError(f"Target {int(target[bad].reshape(-1)[0])} is out of bounds.")
    if weight is None:
        wt = valid.astype(dtype)
    else:
        wt = np.where(valid, weight[tc], 0).astype(dtype, copy=False)
    return cdim, c, valid, tc, wt


def _reduce_np(loss, wt, reduction, dtype):
    if reduction == "none":
        return loss.astype(dtype, copy=False)
    total = np.add.reduce(loss, axis=None)
    if reduction == "sum":
        return np.asarray(total, dtype)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(total / np.add.reduce(wt, axis=None), dtype)


def _grad_scale(g, wt, valid, reduction, cdim, dtype):
    """The incoming gradient as a factor of the input's shape (the class
    dimension broadcast), with the mean's denominator.  With every target
    ignored the mean is NaN but its gradient is zero, as in PyTorch."""
    if reduction == "none":
        return g.unsqueeze(cdim) if g.ndim else g
    if reduction == "sum":
        return g
    if not valid.any():
        return g * 0.0
    total = np.add.reduce(wt, axis=None)
    if total == 0:      # (targets that count, all of weight 0: PyTorch's 0 * (g / 0), NaN in
        #                 their rows, and 0 in the ignored ones)
        return g * _const(np.expand_dims(np.where(valid, np.nan, 0).astype(dtype), cdim))
    return g / _const(np.asarray(total, dtype))


def _cross_entropy_k(x, target, weight, reduction, ignore_index, label_smoothing):
    cdim, c, valid, tc, wt = _class_layout(x.shape, target, weight, ignore_index, x.dtype)
    xm = np.moveaxis(x, cdim, -1)
    m = np.maximum.reduce(xm, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    s = xm - m
    lse = np.log(np.add.reduce(np.exp(s), axis=-1))
    nll = lse - np.take_along_axis(s, tc[..., None], -1)[..., 0]
    loss = nll * wt
    if label_smoothing > 0:
        if weight is None:
            logp_sum = np.add.reduce(s, axis=-1) - c * lse
        else:
            logp_sum = np.add.reduce((s - lse[..., None]) * weight, axis=-1)
        loss = (1 - label_smoothing) * loss - np.where(valid, logp_sum, 0) * (label_smoothing / c)
        if reduction == "mean" and not np.add.reduce(wt, axis=None):
            return np.asarray(np.nan, x.dtype)     # (PyTorch's (1 - eps) * 0/0 + eps/c * s/0)
    return _reduce_np(loss, wt, reduction, x.dtype)


def _cross_entropy_parts(x, target, weight, ignore_index, label_smoothing):
    """The gradient of the (unreduced) loss is ``softmax(x) * a - b``: ``a`` in
    the target's shape, ``b`` in the input's; both constants."""
    xd, td = x._data, target._data
    wd = None if weight is None else weight._data
    cdim, c, valid, tc, wt = _class_layout(xd.shape, td, wd, ignore_index, xd.dtype)
    eps = label_smoothing
    b = np.zeros(tc.shape + (c,), xd.dtype)
    np.put_along_axis(b, tc[..., None], ((1 - eps) * wt)[..., None], -1)
    if eps > 0:
        wsum = c if wd is None else float(np.add.reduce(wd, axis=None))
        a = (1 - eps) * wt + np.where(valid, eps * wsum / c, 0)
        b += valid[..., None] * ((eps / c) * (1 if wd is None else wd))
    else:
        a = wt
    return cdim, wt, valid, _const(np.expand_dims(a, cdim).astype(xd.dtype, copy=False)), \
        _const(np.moveaxis(b, -1, cdim))


def _cross_entropy_grad(g, x, target, weight, reduction, ignore_index, label_smoothing):
    cdim, wt, valid, a, b = _cross_entropy_parts(x, target, weight, ignore_index, label_smoothing)
    p = _softmax(x, cdim)
    return (p * a - b) * _grad_scale(g, wt, valid, reduction, cdim, x._data.dtype)


def _cross_entropy_jvp(op, args, tangents, result):
    x, target, weight, reduction, ignore_index, label_smoothing = args
    one = result.new_ones(result.shape)
    d = _cross_entropy_grad(one, x, target, weight, reduction, ignore_index, label_smoothing) * tangents[0]
    return d.sum(0 if x.ndim == 1 else 1) if reduction == "none" else d.sum()


def _per_sample(op, args, bdims):
    """The op once per sample, stacked (for the argument patterns a rule does not cover)."""
    size = next(a.shape[b] for a, b in zip(args, bdims) if b is not None)
    outs = [dispatch(op, [a if b is None else a.select(b, i) for a, b in zip(args, bdims)])
            for i in range(size)]
    return _stack(outs, 0), 0


def _class_loss_batch(op, args, bdims):
    """Per-sample class losses: every sample's positions in one call with
    reduction "none", then each sample's own reduction (its mean divided by its
    own total target weight; NaN with a zero gradient where that is 0)."""
    x, target, weight, reduction, ignore_index = args[:5]
    bx, bt = bdims[0], bdims[1]
    if bdims[2] is not None:                    # per-sample class weights
        return _per_sample(op, args, bdims)
    size = x.shape[bx] if bx is not None else target.shape[bt]
    x = _front(x, bx) if bx is not None else x.expand((size,) + tuple(x.shape))
    target = _front(target, bt) if bt is not None else target.expand((size,) + tuple(target.shape))
    if x.ndim == 2:                             # unbatched samples: (C,) each
        flat_x, flat_t = x, target
    else:
        flat_x = x.reshape((-1,) + tuple(x.shape[2:]))
        flat_t = target.reshape((-1,) + tuple(target.shape[2:]))
    loss = dispatch(op, [flat_x, flat_t, weight, "none", ignore_index, *args[5:]])
    loss = loss.reshape(tuple(target.shape))
    if reduction == "none":
        return loss, 0
    per = loss.reshape(size, -1).sum(1)
    if reduction == "sum":
        return per, 0
    _, _, _, _, wt = _class_layout(tuple(flat_x.shape), flat_t._data, None if weight is None else
                                   weight._data, ignore_index, x._data.dtype)
    denom = np.add.reduce(wt.reshape(size, -1), axis=1)
    dead = denom == 0
    safe = _const(np.where(dead, 1, denom).astype(x._data.dtype))
    return _where(_const(dead), float("nan"), per / safe), 0


cross_entropy = defop("cross_entropy", _cross_entropy_k, {"x": _cross_entropy_grad}, n_in=3,
                      node_name="CrossEntropyBackward0", family=OTHER, jvp=_cross_entropy_jvp,
                      batch=_class_loss_batch, method=False)


# A gradient that PyTorch's backward kernel computes from the forward input too
# (nll_loss_backward(grad, self, ...), reflection_pad1d_backward(grad, self, ...),
# _prelu_kernel_backward) without depending on its values: with create_graph the
# first gradient is in the graph of that input (its derivative there zeros), not
# "does not require grad".  ``grad_link(g, x)`` is ``g``, with that edge to ``x``,
# when the derivative is recorded; else ``g`` itself (no node, no copy).
def _grad_link_k(g, x):
    return np.broadcast_to(g, np.broadcast_shapes(g.shape, x.shape)).copy()


_grad_link = defop("_grad_link", _grad_link_k, {"g": "grad", "x": "zero"}, n_in=2,
                   family=ELEMENTWISE, method=False)


def grad_link(g, x):
    """``g``, kept in ``x``'s graph (a zero derivative) when derivatives are recorded."""
    if x.shape == g.shape and isinstance(x, Tensor) and derivatives_recorded():
        return _grad_link(g, x)
    return g


# ``x`` itself, its gradient ``grad_link``-ed to it: a composite whose backward
# would not otherwise read its input (prelu) starts from this
_linked_input = defop("_linked_input", lambda x: x.copy(), {"x": lambda g, x: grad_link(g, x)},
                      family=ELEMENTWISE, method=False)


# PyTorch's eval-mode batch_norm: its backward node (NativeBatchNormBackwardBackward0)
# keeps an edge to the input that gives it no gradient at all (undefined): a first
# gradient taken with create_graph requires grad, and differentiating it by the input
# is "appears to not have been used in the graph" (None with allow_unused)
_grad_unlinked = defop("_grad_unlinked", _grad_link_k, {"g": "grad", "x": lambda gg: None}, n_in=2,
                       family=ELEMENTWISE, method=False, meta=("x",), jvp=lambda g_t: g_t)
_unlinked_input = defop("_unlinked_input", lambda x: x.copy(),
                        {"x": lambda g, x: _grad_unlinked(g, x) if g.shape == x.shape and
                         derivatives_recorded() else g},
                        family=ELEMENTWISE, method=False)


def _nll_loss_k(x, target, weight, reduction, ignore_index):
    cdim, c, valid, tc, wt = _class_layout(x.shape, target, weight, ignore_index, x.dtype)
    loss = -np.take_along_axis(np.moveaxis(x, cdim, -1), tc[..., None], -1)[..., 0] * wt
    loss = np.where(valid, loss, np.zeros((), loss.dtype))     # (an ignored target's is +0, not -x * 0)
    return _reduce_np(loss, wt, reduction, x.dtype)


def _nll_loss_vjp(g, x, target, weight, reduction, ignore_index):
    """The gradient is a constant pick (``x`` read for its shape, and kept in
    the graph of a recorded gradient: ``grad_link``)."""
    return grad_link(_nll_loss_pick(g, x, target, weight, reduction, ignore_index), x)


def _nll_loss_pick(g, x, target, weight, reduction, ignore_index):
    dt = g.dtype.np
    cdim, c, valid, tc, wt = _class_layout(tuple(x.shape), target._data, None if weight is None
                                           else weight._data, ignore_index, dt)
    pick = np.zeros(tc.shape + (c,), dt)
    np.put_along_axis(pick, tc[..., None], -wt[..., None], -1)
    if reduction == "mean" and valid.any() and not np.add.reduce(wt, axis=None):
        np.put_along_axis(pick, tc[..., None], np.where(valid, np.nan, 0)[..., None], -1)
        return _const(np.moveaxis(pick, -1, cdim)) * g     # (NaN at the counted targets only, as PyTorch)
    return _const(np.moveaxis(pick, -1, cdim)) * _grad_scale(g, wt, valid, reduction, cdim, dt)


nll_loss = defop("nll_loss", _nll_loss_k, {"x": _nll_loss_vjp}, n_in=3,
                 node_name="NllLossBackward0", family=OTHER, linear=True, batch=_class_loss_batch,
                 method=False)


# ------------------------------------------------------------------ binary cross-entropy
def _bce_k(x, y):
    if x.size:          # (PyTorch's kernel checks each element's input, then its target; NaN fails)
        with np.errstate(invalid="ignore"):
            bad_x = ~((x >= 0) & (x <= 1))
            bad_y = ~((y >= 0) & (y <= 1))
        bad_x, bad_y = np.broadcast_arrays(bad_x, bad_y)
        either = (bad_x | bad_y).reshape(-1)
        if either.any():
            first = int(np.argmax(either))
            which = "input" if bad_x.reshape(-1)[first] else "target"
            raise RuntimeError(f"all elements of {which} should be between 0 and 1")
    with np.errstate(divide="ignore"):
        lx = np.maximum(np.log(x), -100)
        l1x = np.maximum(np.log1p(-x), -100)
    return ((y - 1) * l1x - y * lx).astype(x.dtype, copy=False)


binary_cross_entropy = defop(
    "binary_cross_entropy", _bce_k,
    {"x": lambda g, x, y: g * (x - y) / (x * (1 - x)).clamp_min(1e-12),
     "y": lambda g, x: g * ((-x).log1p().clamp_min(-100) - x.log().clamp_min(-100))},
    n_in=2, family=ELEMENTWISE, method=False)


# ------------------------------------------------------------------ activations
def _leaky_relu_k(x, negative_slope=0.01):
    return np.where(x > 0, x, x * negative_slope).astype(x.dtype, copy=False)


# The piecewise-linear activations' backward kernels are ops of their own that take
# the forward input, as PyTorch's (leaky_relu_backward, hardtanh_backward, ...):
# linear in the gradient, and "zero" in the input, which they read only for its
# mask.  So a first gradient taken with create_graph depends on the input, and a
# second derivative is zeros where a mask applied to a constant gradient would
# have no history ("does not require grad").  Masks are computed in float32 for
# half and bfloat16 (PyTorch's opmath); a NaN input gets the gradient PyTorch's
# vectorized kernels give it.
def _opmath(x):
    return x.astype(np.float32) if x.dtype in D.LOW_PRECISION else x


def _leaky_relu_backward_k(g, x, negative_slope):
    return np.where(_opmath(x) > 0, g, g * np.asarray(negative_slope, g.dtype))


leaky_relu_backward = defop(
    "leaky_relu_backward", _leaky_relu_backward_k,
    {"g": lambda gg, x, negative_slope: leaky_relu_backward(gg, x, negative_slope), "x": "zero"},
    n_in=2, family=ELEMENTWISE, method=False, numbers=("negative_slope",),
    node_name="LeakyReluBackwardBackward0")

leaky_relu = defop("leaky_relu", _leaky_relu_k,
                   {"x": lambda g, x, negative_slope: leaky_relu_backward(g, x, negative_slope)},
                   family=ELEMENTWISE, method=False, numbers=("negative_slope",),
                   **real_float_kernel("leaky_relu_cpu"))


def _threshold_k(x, threshold, value):
    if x.dtype.kind in "iu":        # PyTorch's conversions of the Scalars to the integer type
        threshold = int(threshold)  # (towards zero; the value wraps, as a C cast)
    return np.where(_opmath(x) <= threshold, np.asarray(value).astype(x.dtype), x)


def _threshold_backward_k(g, x, threshold):
    return np.where(_opmath(x) <= threshold, np.zeros((), g.dtype), g)


threshold_backward = defop(
    "threshold_backward", _threshold_backward_k,
    {"g": lambda gg, x, threshold: threshold_backward(gg, x, threshold), "x": "zero"},
    n_in=2, family=ELEMENTWISE, method=False, numbers=("threshold",),
    node_name="ThresholdBackwardBackward0")

threshold = defop("threshold", _threshold_k,
                  {"x": lambda g, x, threshold: threshold_backward(g, x, threshold)},
                  family=ELEMENTWISE, method=False, numbers=("threshold", "value"),
                  node_name="ThresholdBackward0")


def _shrink_mask(x, lambd):
    xo = _opmath(x)
    return (xo > lambd) | (xo < -lambd)         # (a NaN: False)


def _hardshrink_k(x, lambd):
    xo = _opmath(x)
    return np.where((xo >= -lambd) & (xo <= lambd), np.zeros((), x.dtype), x)    # (a NaN stays)


def _softshrink_k(x, lambd):
    xo = _opmath(x)
    r = np.where(xo > lambd, xo - lambd, np.where(xo < -lambd, xo + lambd, np.zeros((), xo.dtype)))
    return np.where(np.isnan(xo), xo, r).astype(x.dtype, copy=False)


def _shrink_backward_k(g, x, lambd):
    return np.where(_shrink_mask(x, lambd), g, np.zeros((), g.dtype))


hardshrink_backward = defop(
    "hardshrink_backward", _shrink_backward_k,
    {"g": lambda gg, x, lambd: hardshrink_backward(gg, x, lambd), "x": "zero"},
    n_in=2, family=ELEMENTWISE, method=False, numbers=("lambd",),
    node_name="HardshrinkBackwardBackward0")

softshrink_backward = defop(
    "softshrink_backward", _shrink_backward_k,
    {"g": lambda gg, x, lambd: softshrink_backward(gg, x, lambd), "x": "zero"},
    n_in=2, family=ELEMENTWISE, method=False, numbers=("lambd",),
    node_name="SoftshrinkBackwardBackward0")

hardshrink_op = defop("hardshrink", _hardshrink_k,
                      {"x": lambda g, x, lambd: hardshrink_backward(g, x, lambd)},
                      family=ELEMENTWISE, method=False, numbers=("lambd",),
                      node_name="HardshrinkBackward0")

softshrink = defop("softshrink", _softshrink_k,
                   {"x": lambda g, x, lambd: softshrink_backward(g, x, lambd)},
                   family=ELEMENTWISE, method=False, numbers=("lambd",),
                   node_name="SoftshrinkBackward0")


@public()
def hardshrink(input, lambd=0.5):
    """``x`` where ``|x| > lambd``, else 0 (a NaN stays NaN, its gradient 0)."""
    refuse("hardshrink_cpu", NOT_FLOAT, input)
    lambd = number_arg("hardshrink", "lambd", lambd, 2)
    D.check_fits(lambd, input._data.dtype)      # (PyTorch's conversion of the Scalar)
    return hardshrink_op(input, lambd)


def _elu_k(x, alpha=1.0, scale=1.0, input_scale=1.0):
    neg = (scale * alpha) * np.expm1(np.minimum(x, 0) * input_scale)
    return np.where(x > 0, x * scale, neg).astype(x.dtype, copy=False)


def _elu_vjp(g, x, alpha, scale, input_scale):
    # exp of the input clamped at 0: the unused branch never overflows (no inf * 0
    # later); clamped by x < 0, so that at exactly 0 the second derivative is 0, as
    # PyTorch's elu_double_backward masks it (x * 0 keeps a NaN a NaN)
    neg = (_where(x < 0, x, x * 0) * input_scale).exp() * (scale * alpha * input_scale)
    return _where(x > 0, g * scale, g * neg)  # (a NaN gets NaN, as PyTorch's vectorized kernel)


elu = defop("elu", _elu_k, {"x": _elu_vjp}, family=ELEMENTWISE, method=False,
            numbers=("alpha", "scale", "input_scale"), **real_float_kernel("elu_cpu"))


def _hardtanh_k(x, min_val=-1.0, max_val=1.0):
    return np.clip(x, min_val, max_val).astype(x.dtype, copy=False)


def _hardtanh_backward_k(g, x, min_val, max_val):
    xo = _opmath(x)         # (a NaN gets 0, as PyTorch's vectorized kernel; its scalar tail differs)
    return np.where((xo > min_val) & (xo < max_val), g, np.zeros((), g.dtype))


hardtanh_backward = defop(
    "hardtanh_backward", _hardtanh_backward_k,
    {"g": lambda gg, x, min_val, max_val: hardtanh_backward(gg, x, min_val, max_val), "x": "zero"},
    n_in=2, family=ELEMENTWISE, method=False, numbers=("min_val", "max_val"),
    node_name="HardtanhBackwardBackward0")

hardtanh = defop("hardtanh", _hardtanh_k,
                 {"x": lambda g, x, min_val, max_val: hardtanh_backward(g, x, min_val, max_val)},
                 family=ELEMENTWISE, method=False, no_complex=_CLAMP_COMPLEX, fits=("min_val", "max_val"),
                 numbers=("min_val", "max_val"),
                 no_bool=RuntimeError("Bool inputs not supported for hardtanh"))


def _hardswish_k(x):
    return (x * np.clip(x + 3, 0, 6) / 6).astype(x.dtype, copy=False)


hardswish = defop("hardswish", _hardswish_k,
                  {"x": lambda g, x: _where(x <= -3, 0.0, _where(x < 3, g * (x / 3 + 0.5), g))},
                  family=ELEMENTWISE, method=False, **real_float_kernel("hardswish_cpu"))


def _mish_k(x):
    return (x * np.tanh(np.logaddexp(0, x))).astype(x.dtype, copy=False)


def _mish_vjp(g, x):
    t = _softplus(x).tanh()
    return g * (t + x * x.sigmoid() * (1 - t * t))


mish = defop("mish", _mish_k, {"x": _mish_vjp}, family=ELEMENTWISE, method=False, **real_float_kernel("mish_cpu"))


# ------------------------------------------------------------------ attention
def _softmax_backward_k(g, p):
    """``p * (g - sum(g * p))`` along the last dimension (the softmax vjp, PyTorch's
    ``_softmax_backward_data``): the sum without a temporary, the rest in place."""
    s = np.einsum("...i,...i->...", g, p)[..., None]
    out = np.subtract(g, s)
    out *= p
    return out


def _softmax_backward_jvp(op, args, tangents, result):
    g, p = args
    gt, pt = tangents
    t = None if gt is None else softmax_backward(gt, p)
    if pt is not None:
        u = pt * (g - (g * p).sum(-1, keepdim=True)) - p * (g * pt).sum(-1, keepdim=True)
        t = u if t is None else t + u
    return t


def _softmax_backward_batch(op, args, bdims):
    rank = max(t.ndim - (b is not None) for t, b in zip(args, bdims))
    ts = [t if b is None else _front(t, b, rank) for t, b in zip(args, bdims)]
    return softmax_backward(*ts), 0


# the vjp in g is the op itself (the softmax Jacobian is symmetric); in p it is
# gg * (g - sum(g p)) - g * sum(gg p)
softmax_backward = defop(
    "softmax_backward", _softmax_backward_k,
    {"g": lambda gg, p: softmax_backward(gg, p),
     "p": lambda gg, g, p: gg * (g - (g * p).sum(-1, keepdim=True)) - g * (gg * p).sum(-1, keepdim=True)},
    n_in=2, node_name="SoftmaxBackwardDataBackward0", family=OTHER, jvp=_softmax_backward_jvp,
    batch=_softmax_backward_batch, method=False)


@flat_kernel(lambda *ts, scale, causal, safe: None)
def _attention_k(*args):
    """``softmax(q k^T * scale + bias) (* keep) @ v``: returns the output and the
    attention probabilities.  The tensors are (q, k, v, bias, keep), the last two
    possibly None (``keep``: a dropout mask already scaled by 1/(1-p)).  The
    scores buffer is scaled, biased, exponentiated and normalised in place.
    With ``safe``, a query row that no key may attend gets zeros (PyTorch's
    math kernel); otherwise NaNs, as a plain softmax gives."""
    q, k, v, bias, keep, scale, causal, safe = args
    s = np.matmul(q, np.swapaxes(k, -1, -2))
    s *= scale
    if causal:
        L, S = s.shape[-2:]
        s += np.where(np.tri(L, S, dtype=bool), 0, -np.inf).astype(s.dtype)
    if bias is not None:
        if np.broadcast_shapes(s.shape, bias.shape) == s.shape:
            s += bias
        else:               # (a bias with more leading dims, e.g. a mask batched alone under vmap)
            s = s + bias
    m = np.maximum.reduce(s, axis=-1, keepdims=True) if s.shape[-1] else \
        np.full(s.shape[:-1] + (1,), -np.inf, s.dtype)      # (no keys: every row is dead)
    dead = None
    if not np.isfinite(m).all():
        dead = np.isneginf(m)
        m = np.where(np.isfinite(m), m, 0).astype(s.dtype)
    s -= m
    np.exp(s, out=s)
    z = np.add.reduce(s, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        s /= z
    if dead is not None and dead.any():
        s[np.broadcast_to(dead, s.shape)] = 0 if safe else np.nan
    return np.matmul(s if keep is None else s * keep, v), s


def _attention_vjp(g, result, ts, scale):
    """The gradients of q, k, v and the bias, from the output's gradient and
    (exactly, for double backward) the probabilities' own gradient."""
    q, k, v, bias, keep = ts
    g_out, g_p = g
    p = result[1]
    pk = p if keep is None else p * keep
    dv = _matmul(pk.mT, g_out)
    dp = _matmul(g_out, v.mT)
    if keep is not None:
        dp = dp * keep
    if _live(g_p):
        dp = dp + g_p
    ds = softmax_backward(dp, p)
    dq = _matmul(ds, k) * scale
    dk = _matmul(ds.mT, q) * scale
    return [dq, dk, dv, None if bias is None else ds, None]


def _attention_jvp(op, args, tangents, result):
    q, k, v, bias, keep, scale, causal, safe = args
    qt, kt, vt, bt, _ = tangents
    out, p = result
    st = None
    if qt is not None:
        st = _matmul(qt, k.mT) * scale
    if kt is not None:
        u = _matmul(q, kt.mT) * scale
        st = u if st is None else st + u
    if bt is not None:
        st = bt if st is None else st + bt
    pt = None if st is None else softmax_backward(st, p)
    out_t = None
    if pt is not None:
        out_t = _matmul(pt if keep is None else pt * keep, v)
    if vt is not None:
        u = _matmul(p if keep is None else p * keep, vt)
        out_t = u if out_t is None else out_t + u
    if pt is None:
        pt = p.new_zeros(tuple(p.shape))
    return out_t, pt


def _attention_batch(op, args, bdims):
    q, k, v, bias, keep = args[:5]
    scale, causal, safe = args[5:]
    rank = max(t.ndim - (b is not None) for t, b in zip((q, k, v), bdims[:3]))
    ts = []
    for t, b in zip((q, k, v, bias, keep), bdims[:5]):
        if t is None or b is None:
            ts.append(t)
        else:
            ts.append(_front(t, b, rank))
    if all(b is None for b in bdims[:3]):       # only the mask is batched: give q a batch dim
        ts[0] = q.unsqueeze(0)
    return attention(*ts, scale=scale, causal=causal, safe=safe), 0


attention = defop("attention", _attention_k, {"ts": _attention_vjp}, n_in=-1, out_saved=(1,),
                  node_name="ScaledDotProductAttentionBackward0", family=OTHER, jvp=_attention_jvp,
                  batch=_attention_batch, method=False)
