"""Pooling: ``max_pool1d``/``max_pool2d`` (with indices), ``avg_pool1d``/``avg_pool2d``,
``adaptive_avg_pool1d``/``adaptive_avg_pool2d``, and their 3-d forms (at the end:
``max_pool3d``, ``avg_pool3d``, ``adaptive_avg_pool3d``, ``adaptive_max_pool3d``,
each its own op with PyTorch's node, kernels written for any number of dimensions).

Each pool is a registry op over the last two dimensions of an (N, C, H, W)
or (C, H, W) input (the 1-d forms add a unit height, as PyTorch's do), and
its gradient is a second registry op, the first one's adjoint, whose own
gradient is the first op again (or a gather, for max pooling), so double
backward works:

- ``max_pool2d_with_indices`` picks, per window, the first largest element
  (the last NaN if the window holds one; padding is never picked) and
  returns its flat index into the H*W plane, as PyTorch does;
  ``max_pool2d_with_indices_backward`` adds the gradient back at those
  indices, and its own gradient gathers at them.
- ``avg_pool2d`` sums the windows and divides by PyTorch's divisor (the window
  clipped to the padded input, or to the input for
  ``count_include_pad=False``, or ``divisor_override``), which is a product
  of one factor per dimension; ``avg_pool2d_backward`` spreads the gradient
  back over the windows.
- ``adaptive_avg_pool2d`` averages windows ``[floor(i*H/OH), ceil((i+1)*H/OH))``
  one dimension at a time (an average over a rectangle is the average of the
  row averages).

Windows are strided views of the (padded) input, one per kernel offset: the
kernels loop over the kh*kw offsets, never over batch elements or output
positions.
"""
import numpy as np

from .._tensor import Tensor
from ._families import OTHER
from ._registry import autocast_inputs, defop, dispatch, public
from ._util import _tname, is_int as _is_int

__all__ = ["max_pool1d", "max_pool1d_with_indices", "max_pool2d", "avg_pool1d", "adaptive_avg_pool1d",
           "adaptive_max_pool1d", "max_pool3d"]


# ---------------------------------------------------------------- batching (vmap)
def _front(t, b, size):
    """``t`` with its batch dimension ``b`` first (``None``: expanded to ``size``)."""
    if b is None:
        return t.expand((size,) + tuple(t.shape))
    return t if b == 0 else t.movedim(b, 0)


def batch_merge_leading(op, args, bdims):
    """The batching rule of the ops that treat their first dimension as independent
    items (batch or channels: pools, pads, resampling, unfold/fold and their
    backwards): the vmap batch merged into that dimension, one call."""
    n = len(bdims)
    size = next(a.shape[b] for a, b in zip(args, bdims) if b is not None)
    new = list(args)
    for i in range(n):
        if isinstance(args[i], Tensor):
            t = _front(args[i], bdims[i], size)
            new[i] = t.reshape((size * t.shape[1],) + tuple(t.shape[2:]))
    out = dispatch(op, new)

    def split(o):
        return o.reshape((size, o.shape[0] // size) + tuple(o.shape[1:]))
    return (tuple(split(o) for o in out) if type(out) is tuple else split(out)), 0


# ---------------------------------------------------------------- shapes
def _pool_len(n, k, s, p, d, ceil_mode):
    """PyTorch's ``pooling_output_shape``: with ``ceil_mode`` the last window may
    run past the end, but must start inside the input or its left padding."""
    span = n + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def _pad_to_windows(x, out, k, s, p, d, fill):
    """``x`` (N, C, H, W) padded with ``fill`` so that every window of the
    ``out`` grid lies inside it (the input itself when no padding is needed)."""
    n, c, h, w = x.shape
    need = [(o - 1) * s_ + d_ * (k_ - 1) + 1 for o, k_, s_, d_ in zip(out, k, s, d)]
    if p == (0, 0) and need[0] <= h and need[1] <= w:
        return x
    hb, wb = max(need[0], p[0] + h), max(need[1], p[1] + w)
    xp = np.full((n, c, hb, wb), fill, x.dtype)
    xp[:, :, p[0]:p[0] + h, p[1]:p[1] + w] = x
    return xp


def _windows(xp, out, k, s, d):
    """One strided (N, C, OH, OW) view of ``xp`` per kernel offset, row by row."""
    hspan, wspan = (out[0] - 1) * s[0] + 1, (out[1] - 1) * s[1] + 1
    return [xp[:, :, i * d[0]:i * d[0] + hspan:s[0], j * d[1]:j * d[1] + wspan:s[1]]
            for i in range(k[0]) for j in range(k[1])]


def _batched(x):
    """An (N, C, H, W) view of a 3-d or 4-d array."""
    return x if x.ndim == 4 else x[None]


# ---------------------------------------------------------------- max pooling
def _max_pool_k(x, kernel_size, stride, padding, dilation, ceil_mode):
    if x.dtype.kind == "c" or x.dtype == np.bool_:
        raise NotImplementedError(f"\"max_pool2d\" not implemented for '{_tname(x.dtype)}'")
    xb = _batched(x)
    h, w = xb.shape[2:]
    k, s, p, d = kernel_size, stride, padding, dilation
    out = (_pool_len(h, k[0], s[0], p[0], d[0], ceil_mode), _pool_len(w, k[1], s[1], p[1], d[1], ceil_mode))
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    views = _windows(_pad_to_windows(xb, out, k, s, p, d, low), out, k, s, d)
    m = views[0].copy()
    for v in views[1:]:
        np.maximum(m, v, out=m)             # NaN propagates, as in PyTorch
    # the first offset holding the maximum: code = ne0 * (1 + ne1 * (1 + ...)),
    # ne_i = (window i != max); offset K-1 when none before it does
    nk = len(views)
    ct = np.uint8 if nk < 256 else np.int32
    code = np.zeros(m.shape, ct)
    for v in reversed(views[:-1]):
        code += 1
        code *= np.not_equal(v, m)
    offsets = np.array([i * d[0] * w + j * d[1] for i in range(k[0]) for j in range(k[1])], np.int64)
    base = (np.arange(out[0]) * s[0] - p[0])[:, None] * w + (np.arange(out[1]) * s[1] - p[1])
    idx = offsets[code] + base
    # windows whose maximum is the fill value (all lowest; a window may then
    # match in the padding) or NaN (PyTorch takes the last NaN): decided one
    # offset at a time, in PyTorch's order, on the valid positions only
    special = m == low
    if m.dtype.kind == "f":
        special |= np.isnan(m)
    if special.any():
        rows = np.arange(out[0])[:, None] * s[0] - p[0]
        cols = np.arange(out[1]) * s[1] - p[1]
        best = np.full(m.shape, -1, np.int64)
        for (i, j), v in zip([(i, j) for i in range(k[0]) for j in range(k[1])], views):
            r, c = rows + i * d[0], cols + j * d[1]
            valid = (r >= 0) & (r < h) & (c >= 0) & (c < w)
            take = valid & special & ((best < 0) | (np.isnan(v) if v.dtype.kind == "f" else False))
            best = np.where(take, r * w + c, best)
        idx = np.where(special, best, idx)
    if x.ndim == 3:
        m, idx = m[0], idx[0]
    return m, idx


def _max_pool_bwd_k(grad, indices, size):
    """Adds each gradient at its flat index into a volume of ``size`` (the last
    ``len(size)`` dimensions: an H*W plane, a D*H*W volume)."""
    nd = len(size)
    lead = grad.shape[:-nd]
    planes = int(np.prod(lead))
    vol = int(np.prod(size))
    gx = np.zeros(planes * vol, grad.dtype)
    if not planes or not indices.size:
        return gx.reshape(lead + tuple(size))
    flat = indices.reshape(planes, -1) + (np.arange(planes, dtype=np.int64) * vol)[:, None]
    keep = indices.reshape(planes, -1) >= 0     # (-1: a window with no input in it sends nothing)
    np.add.at(gx, flat[keep], grad.reshape(planes, -1)[keep])
    return gx.reshape(lead + tuple(size))


def _pool_gather(t, indices, nd=2):
    """``t``'s elements at ``indices`` (flat into the last ``nd`` dimensions): the
    adjoint of the max-pool backward, written with ``gather`` so that it is
    differentiable again."""
    flat = t.flatten(-nd)
    idx = indices.flatten(-nd)
    none = idx < 0                              # (a window with no input in it: a constant)
    got = flat.gather(-1, idx.clamp_min(0)).view(indices.shape)
    return got.masked_fill(none.view(indices.shape), 0) if bool(none.any()) else got


# The pools' backward ops take the forward input, as PyTorch's do, for its shape
# only: their derivative for it is "zero" (see ``Op``), so that the first gradient
# of a pool taken with create_graph depends on the input and a second derivative
# is zeros, not "does not require grad".  (The input is saved as PyTorch saves it.)
def _max_pool_vjp(g, result, x):
    return _max_pool_bwd(g[0], x, result[1].detach())


def scatter_backward_op(name, node_name, nd, **kw):
    """The backward op of a pool that picks input elements by flat index over its
    last ``nd`` dimensions (max, adaptive max, fractional max pooling): the
    gradient added back at the indices into a volume of ``x``'s shape; linear in
    the gradient (its derivative the gather at the indices), ``"zero"`` in ``x``."""
    def kernel(grad, x, indices):
        return _max_pool_bwd_k(grad, indices, tuple(x.shape[-nd:]))
    return defop(name, kernel, {"grad": lambda h, indices: _pool_gather(h, indices, nd), "x": "zero"},
                 n_in=3, family=OTHER, linear=True, node_name=node_name, method=False,
                 batch=batch_merge_leading, **kw)


_max_pool = defop(
    "max_pool2d_with_indices", _max_pool_k, {"x": _max_pool_vjp}, nondiff_out=(1,),
    out_saved=(1,), family=OTHER, node_name="MaxPool2DWithIndicesBackward0", method=False,
    batch=batch_merge_leading,
    jvp=lambda op, args, tangents, result: (_pool_gather(tangents[0], result[1]), None))

_max_pool_bwd = scatter_backward_op("max_pool2d_with_indices_backward",
                                    "MaxPool2DWithIndicesBackwardBackward0", 2)


# ---------------------------------------------------------------- average pooling
def _avg_divisor(n, out, k, s, p, count_include_pad):
    """Per output position of one dimension, PyTorch's divisor: the window
    clipped to the padded input (``count_include_pad``) or to the input."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, n + p)
    if count_include_pad:
        return end - start
    return np.minimum(end, n) - np.maximum(start, 0)


def _divisor(shape, out, k, s, p, count_include_pad, divisor_override):
    if divisor_override:
        return divisor_override
    return (_avg_divisor(shape[0], out[0], k[0], s[0], p[0], count_include_pad)[:, None]
            * _avg_divisor(shape[1], out[1], k[1], s[1], p[1], count_include_pad))


def _avg_pool_k(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    if x.dtype.kind == "c" or x.dtype == np.bool_:
        raise NotImplementedError(f"\"avg_pool2d\" not implemented for '{_tname(x.dtype)}'")
    xb = _batched(x)
    h, w = xb.shape[2:]
    k, s, p, one = kernel_size, stride, padding, (1, 1)
    out = (_pool_len(h, k[0], s[0], p[0], 1, ceil_mode), _pool_len(w, k[1], s[1], p[1], 1, ceil_mode))
    views = _windows(_pad_to_windows(xb, out, k, s, p, one, 0), out, k, s, one)
    total = views[0].copy()
    for v in views[1:]:
        total += v
    div = _divisor((h, w), out, k, s, p, count_include_pad, divisor_override)
    if x.dtype.kind in "iu":                # PyTorch divides integers towards zero
        q = np.abs(total) // np.asarray(div, total.dtype)
        r = np.where(total < 0, -q, q)
    else:
        r = np.divide(total, np.asarray(div, total.dtype), out=total)
    return r if x.ndim == 4 else r[0]


def _avg_pool_bwd_k(grad, x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                    divisor_override):
    """The adjoint of ``_avg_pool_k``: each window's share of its gradient added
    back over the window (``x``: the input, for its size)."""
    size = x.shape[-2:]
    gb = _batched(grad)
    k, s, p = kernel_size, stride, padding
    out = gb.shape[2:]
    want = tuple(_pool_len(n, k_, s_, p_, 1, ceil_mode) for n, k_, s_, p_ in zip(size, k, s, p))
    if want != tuple(out):                  # (PyTorch's check of the gradient's size)
        raise RuntimeError(f"avg_pool2d_backward: expected a gradient of spatial size {list(want)}, but got "
                           f"{list(out)}")
    share = gb / np.asarray(_divisor(size, out, k, s, p, count_include_pad, divisor_override), gb.dtype)
    n, c = gb.shape[:2]
    hb = max((out[0] - 1) * s[0] + k[0], size[0] + p[0])
    wb = max((out[1] - 1) * s[1] + k[1], size[1] + p[1])
    buf = np.zeros((n, c, hb, wb), share.dtype)
    for v in _windows(buf, out, k, s, (1, 1)):
        v += share
    r = buf[:, :, p[0]:p[0] + size[0], p[1]:p[1] + size[1]]
    r = np.ascontiguousarray(r) if (hb, wb) != tuple(size) else r
    return r if grad.ndim == 4 else r[0]


_avg_pool = defop(
    "avg_pool2d", _avg_pool_k,
    {"x": lambda g, x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override:
     _avg_pool_bwd(g, x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)},
    family=OTHER, linear=True, node_name="AvgPool2DBackward0", method=False,
    batch=batch_merge_leading, no_bool="avg_pool2d", no_complex="avg_pool2d",
    no_int=lambda x, *params: None if x._data.dtype == np.int64 else "avg_pool2d")  # (int64 pools)

_avg_pool_bwd = defop(
    "avg_pool2d_backward", _avg_pool_bwd_k,
    {"grad": lambda h, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override:
     _avg_pool(h, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override),
     "x": "zero"},
    n_in=2, family=OTHER, linear=True, node_name="AvgPool2DBackwardBackward0", method=False,
    batch=batch_merge_leading)


# ---------------------------------------------------------------- adaptive average pooling
def _adaptive_bounds(n, out):
    i = np.arange(out)
    start = i * n // out
    end = -(-(i + 1) * n // out)            # ceil
    return start, end - start


def _adaptive_mean_axis(x, axis, out):
    """Window means along ``axis``: windows ``[floor(i*n/out), ceil((i+1)*n/out))``."""
    n = x.shape[axis]
    if out and n % out == 0:                # equal, disjoint windows: a reshape
        k = n // out
        shape = x.shape[:axis] + (out, k) + x.shape[axis + 1:]
        return np.add.reduce(x.reshape(shape), axis=axis + 1) / k
    start, length = _adaptive_bounds(n, out)
    bshape = (-1,) + (1,) * (x.ndim - axis - 1)
    total = np.zeros(x.shape[:axis] + (out,) + x.shape[axis + 1:], x.dtype)
    for j in range(int(length.max(initial=0))):        # one take per window position
        part = np.take(x, np.minimum(start + j, n - 1), axis=axis)
        total += np.where((j < length).reshape(bshape), part, 0)
    return total / length.reshape(bshape).astype(x.dtype)


def _adaptive_mean_axis_t(g, axis, n):
    """The adjoint of ``_adaptive_mean_axis`` (``n`` the input length)."""
    out = g.shape[axis]
    if out and n % out == 0:
        return np.repeat(g / (n // out), n // out, axis=axis)
    start, length = _adaptive_bounds(n, out)
    bshape = (-1,) + (1,) * (g.ndim - axis - 1)
    share = np.moveaxis(g / length.reshape(bshape).astype(g.dtype), axis, -1)
    gx = np.zeros(share.shape[:-1] + (n,), g.dtype)
    for j in range(int(length.max(initial=0))):
        keep = j < length
        np.add.at(gx, (Ellipsis, (start + j)[keep]), share[..., keep])
    return np.moveaxis(gx, -1, axis)


def _adaptive_k(x, output_size):
    if x.dtype.kind not in "f":
        raise NotImplementedError(f"\"adaptive_avg_pool2d\" not implemented for '{_tname(x.dtype)}'")
    y = _adaptive_mean_axis(x, x.ndim - 1, output_size[1])
    return _adaptive_mean_axis(y, x.ndim - 2, output_size[0])


def _adaptive_bwd_k(grad, x):
    size = x.shape[-2:]
    g = _adaptive_mean_axis_t(grad, grad.ndim - 2, size[0])
    return _adaptive_mean_axis_t(g, grad.ndim - 1, size[1])


_adaptive = defop(
    "adaptive_avg_pool2d", _adaptive_k,
    {"x": lambda g, x: _adaptive_bwd(g, x)},
    family=OTHER, linear=True, node_name="AdaptiveAvgPool2DBackward0", method=False,
    batch=batch_merge_leading)

_adaptive_bwd = defop(
    "adaptive_avg_pool2d_backward", _adaptive_bwd_k,
    {"grad": lambda h, grad: _adaptive(h, tuple(grad.shape[-2:])), "x": "zero"},
    meta=("grad",), n_in=2, family=OTHER, linear=True, node_name="AdaptiveAvgPool2DBackwardBackward0",
    method=False, batch=batch_merge_leading)


# ---------------------------------------------------------------- adaptive max pooling
def _adaptive_max_k(x, output_size):
    return _adaptive_max_nd(x, output_size, "adaptive_max_pool2d")


_adaptive_max = defop(
    "adaptive_max_pool2d", _adaptive_max_k,
    {"x": lambda g, result, x: _adaptive_max_bwd(g[0], x, result[1].detach())}, nondiff_out=(1,),
    out_saved=(1,), family=OTHER, node_name="AdaptiveMaxPool2DBackward0", method=False,
    batch=batch_merge_leading,
    jvp=lambda op, args, tangents, result: (_pool_gather(tangents[0], result[1]), None))


_adaptive_max_bwd = scatter_backward_op("adaptive_max_pool2d_backward",
                                        "AdaptiveMaxPool2DBackwardBackward0", 2)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-d adaptive max pooling to ``output_size`` (an int, or a pair whose None
    entries keep the input's size); with ``return_indices``, also each maximum's
    flat index into its H*W plane."""
    r = adaptive_max_pool2d_with_indices(input, output_size)
    return r if return_indices else r[0]


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """``torch.nn.functional.adaptive_max_pool2d_with_indices``: always ``(values, indices)``."""
    _tensor("adaptive_max_pool2d", input)
    if isinstance(output_size, (tuple, list)):
        if input.ndim <= len(output_size):      # (PyTorch's Python layer, filling the Nones)
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
        if len(output_size) != 2:
            raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
        size = tuple(input.shape[-2 + i] if v is None else v for i, v in enumerate(output_size))
    else:
        size = (output_size, output_size)
    size = _ints("adaptive_max_pool2d", "output_size", list(size), 2)
    shape = list(input.shape)
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {shape}")
    if any(v < 0 for v in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: "
                           f"{shape[:-2] + list(size)}")
    for i in range(input.ndim - 2, input.ndim):
        if shape[i] == 0:
            raise RuntimeError(f"adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {shape} with dimension {i} being empty")
    return _adaptive_max(input, size)


def _adaptive_max_pool1d(input, output_size):
    _tensor("adaptive_max_pool1d", input)
    size = _ints("adaptive_max_pool1d", "output_size", output_size, 2)
    if len(size) != 1:
        raise RuntimeError(f"adaptive_max_pool1d() argument 'output_size' should contain one int (got "
                           f"{len(size)})")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for "
                           f"argument #1 'self' (while checking arguments for adaptive_max_pool1d)")
    out, idx = adaptive_max_pool2d_with_indices(input.unsqueeze(-2), (1, size[0]))
    return out.squeeze(-2), idx.squeeze(-2)


@public(method=False)
def adaptive_max_pool1d(input, output_size, return_indices=False):
    """1-d adaptive max pooling over an (N, C, L) or (C, L) input.  ``torch.
    adaptive_max_pool1d`` returns ``(values, indices)``; ``nn.functional``'s only
    the values unless ``return_indices``."""
    return _adaptive_max_pool1d(input, output_size)


def functional_adaptive_max_pool1d(input, output_size, return_indices=False):
    """``torch.nn.functional.adaptive_max_pool1d``."""
    r = _adaptive_max_pool1d(input, output_size)
    return r if return_indices else r[0]


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """``torch.nn.functional.adaptive_max_pool1d_with_indices``: always ``(values, indices)``."""
    return _adaptive_max_pool1d(input, output_size)


# ---------------------------------------------------------------- arguments (PyTorch's checks and words)
def _ints(fname, argname, v, pos):
    """A "tuple of ints" argument: an int, or a sequence of ints."""
    if _is_int(v):
        return (int(v),)
    if isinstance(v, (tuple, list)) and all(_is_int(e) for e in v):
        return tuple(int(e) for e in v)
    raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be tuple of ints, not "
                    f"{type(v).__name__}")


def _two(v, msg):
    if len(v) == 1:
        return v * 2
    if len(v) != 2:
        raise RuntimeError(msg)
    return v


def _pool2d_args(fname, kernel_size, stride, padding, dilation=1):
    k = _two(_ints(fname, "kernel_size", kernel_size, 2),
             f"{fname}: kernel_size must either be a single int, or a tuple of two ints")
    if stride is None or (isinstance(stride, (tuple, list)) and not stride):
        s = k
    else:
        s = _two(_ints(fname, "stride", stride, 3),
                 f"{fname}: stride must either be omitted, a single int, or a tuple of two ints")
    p = _two(_ints(fname, "padding", padding, 4),
             f"{fname}: padding must either be a single int, or a tuple of two ints")
    d = _two(_ints(fname, "dilation", dilation, 5),
             f"{fname}: dilation must be either a single int, or a tuple of two ints")
    return k, s, p, d


def _pool2d_shape_check(x, k, s, p, d, ceil_mode):
    """PyTorch's ``pooling_output_shape`` and ``pool2d_shape_check``, in order."""
    for kk, ss, pp, dd in zip(k, s, p, d):
        if ss == 0:
            raise RuntimeError("stride should not be zero")
        if pp < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {pp}")
        if pp > int(((kk - 1) * dd + 1) / 2):         # (C++'s division, towards zero)
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pp}, "
                               f"kernel_size={kk} and dilation={dd}")
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}")
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    if min(d) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {d[0]} "
                           f"dilationW: {d[1]}")
    shape = list(x.shape)
    if x.ndim not in (3, 4) or any(n == 0 for n in shape[-3:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{shape}")
    if k[1] // 2 < p[1] or k[0] // 2 < p[0]:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {p[1]}, padH = {p[0]}, kW = {k[1]}, kH = {k[0]}")
    c, h, w = shape[-3:]
    oh, ow = (_pool_len(n, kk, ss, pp, dd, ceil_mode) for n, kk, ss, pp, dd in zip((h, w), k, s, p, d))
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). "
                           f"Output size is too small")


def _tensor(fname, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")


def _max_pool2d_impl(fname, input, kernel_size, stride, padding, dilation, ceil_mode):
    _tensor(fname, input)
    k, s, p, d = _pool2d_args(fname, kernel_size, stride, padding, dilation)
    _pool2d_shape_check(input, k, s, p, d, ceil_mode)
    return _max_pool(input, k, s, p, d, bool(ceil_mode))


@public(method=False)
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-d max pooling over an (N, C, H, W) or (C, H, W) input; with
    ``return_indices``, also each maximum's flat index into its H*W plane."""
    if isinstance(input, Tensor) and input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    out, idx = _max_pool2d_impl("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """``torch.nn.functional.max_pool2d_with_indices``: always ``(values, indices)``."""
    return _max_pool2d_impl("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode)


def _pool1d_args(fname, kernel_size, stride, padding, dilation):
    """The 1-d pools' own argument checks (PyTorch words them per function)."""
    k = _ints(fname, "kernel_size", kernel_size, 2)
    s = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) else \
        _ints(fname, "stride", stride, 3)
    p = _ints(fname, "padding", padding, 4)
    d = _ints(fname, "dilation", dilation, 5)
    for name, v in (("kernel_size", k), ("stride", s), ("padding", p), ("dilation", d)):
        if len(v) != 1:
            raise RuntimeError(f"{fname}() {name} must be an int, list of ints or tuple of ints of size 1 "
                               f"but got size {len(v)}")
    return k[0], s[0], p[0], d[0]


def _max_pool1d_checks(input, kernel_size, stride, padding, dilation, ceil_mode):
    """``max_pool1d``'s own checks (its path without indices)."""
    _tensor("max_pool1d", input)
    k, s, p, d = _pool1d_args("max_pool1d", kernel_size, stride, padding, dilation)
    shape = list(input.shape)
    if input.ndim not in (2, 3) or any(n == 0 for n in shape[-2:]):
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{shape}")
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = _pool_len(shape[-1], k, s, p, d, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    return (1, k), (1, s), (0, p), (1, d)


def _pool1d_as_2d(fname, input, params):
    """The 1-d pools that run as their 2-d form (``avg_pool1d``,
    ``max_pool1d_with_indices``): their rank and argument checks, then the 2-d
    checks on the input with a unit height.  ``params``: (name, value) pairs."""
    _tensor(fname, input)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for "
                           f"argument #1 'self' (while checking arguments for {fname})")
    vals = []
    for i, (name, v) in enumerate(params):
        if name == "stride" and (v is None or (isinstance(v, (tuple, list)) and not v)):
            vals.append(vals[0])
            continue
        t = _ints(fname, name, v, i + 2)
        if len(t) != 1:
            raise RuntimeError(f"{fname}() argument '{name}' should contain one int (got {len(t)})")
        vals.append(t[0])
    return input.unsqueeze(-2), [(1, v) if n != "padding" else (0, v) for (n, _), v in zip(params, vals)]


def _max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode):
    x, (k, s, p, d) = _pool1d_as_2d("max_pool1d", input, (("kernel_size", kernel_size), ("stride", stride),
                                                          ("padding", padding), ("dilation", dilation)))
    _pool2d_shape_check(x, k, s, p, d, ceil_mode)
    v, i = _max_pool(x, k, s, p, d, bool(ceil_mode))
    return v.squeeze(-2), i.squeeze(-2)


@public(method=False)
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-d max pooling over an (N, C, L) or (C, L) input."""
    if return_indices:
        return _max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    k, s, p, d = _max_pool1d_checks(input, kernel_size, stride, padding, dilation, ceil_mode)
    if not input.is_floating_point() and not input.requires_grad:
        raise NotImplementedError(f"\"max_pool1d_impl\" not implemented for '{_tname(input._data.dtype)}'")
    return _max_pool(input.unsqueeze(-2), k, s, p, d, bool(ceil_mode))[0].squeeze(-2)


@public(method=False)
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """``(values, indices)`` of 1-d max pooling."""
    return _max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """2-d average pooling over an (N, C, H, W) or (C, H, W) input."""
    _tensor("avg_pool2d", input)
    k, s, p, d = _pool2d_args("avg_pool2d", kernel_size, stride, padding)
    if input.ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(input.ndim, 1)}, "
                         f"{max(input.ndim, 1) - 1}], but got -3)")
    _pool2d_shape_check(input, k, s, p, d, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return _avg_pool(input, k, s, p, bool(ceil_mode), bool(count_include_pad), divisor_override)


@public(method=False)
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-d average pooling over an (N, C, L) or (C, L) input."""
    x, (k2, s2, p2) = _pool1d_as_2d("avg_pool1d", input, (("kernel_size", kernel_size), ("stride", stride),
                                                          ("padding", padding)))
    d2 = (1, 1)
    _pool2d_shape_check(x, k2, s2, p2, d2, ceil_mode)
    return _avg_pool(x, k2, s2, p2, bool(ceil_mode), bool(count_include_pad), None).squeeze(-2)


def adaptive_avg_pool2d(input, output_size):
    """2-d adaptive average pooling to ``output_size`` (an int, or a pair whose
    None entries keep the input's size)."""
    _tensor("adaptive_avg_pool2d", input)
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 2:
            raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
        size = tuple(input.shape[-2 + i] if v is None else v for i, v in enumerate(output_size))
    else:
        size = (output_size, output_size)
    size = _ints("adaptive_avg_pool2d", "output_size", list(size), 2)
    if any(v < 0 for v in size):
        raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than or equal "
                           f"to 0 but received {{{size[0]}, {size[1]}}}")
    if size == (1, 1) and input.ndim >= 2:
        # PyTorch's shortcut, ahead of its checks: a mean over the last two dimensions
        # (MeanBackward1) for any rank and dtype mean takes (complex too; integers
        # are refused in mean's words)
        return input.mean((-1, -2), keepdim=True)
    shape = list(input.shape)
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {shape}")
    for i in range(input.ndim - 2, input.ndim):
        if shape[i] == 0:
            raise RuntimeError(f"adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {shape} with dimension {i} being empty")
    return _adaptive(input, size)


@public(method=False)
def adaptive_avg_pool1d(input, output_size):
    """1-d adaptive average pooling over an (N, C, L) or (C, L) input."""
    _tensor("adaptive_avg_pool1d", input)
    size = _ints("adaptive_avg_pool1d", "output_size", output_size, 2)
    if len(size) != 1:
        raise RuntimeError(f"adaptive_avg_pool1d() argument 'output_size' should contain one int (got "
                           f"{len(size)})")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for "
                           f"argument #1 'self' (while checking arguments for adaptive_avg_pool1d)")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size[0])).squeeze(-2)


# ================================================================ 3-d pooling
# ``max_pool3d`` (with indices), ``avg_pool3d``, ``adaptive_avg_pool3d`` and
# ``adaptive_max_pool3d``: their own registry ops (PyTorch's names and nodes),
# with kernels written for any number of spatial dimensions (the last
# ``len(kernel_size)`` of the input), each an adjoint pair as the 2-d ones.
def _vol_strides(size):
    """The flat-index strides of a C-ordered volume of ``size``."""
    return tuple(int(np.prod(size[i + 1:], dtype=np.int64)) for i in range(len(size)))


def _grid(out, nd, j, v):
    """``v`` (one value per output position along dimension ``j``) shaped to
    broadcast over an ``out`` grid."""
    return v.reshape((-1,) + (1,) * (nd - 1 - j))


def _pad_to_windows_nd(x, out, k, s, p, d, fill):
    """``x`` (N, C, *spatial) padded with ``fill`` so that every window lies inside it."""
    sp = x.shape[2:]
    need = [(o - 1) * s_ + d_ * (k_ - 1) + 1 for o, k_, s_, d_ in zip(out, k, s, d)]
    if not any(p) and all(a <= n for a, n in zip(need, sp)):
        return x
    big = tuple(max(a, q + n) for a, q, n in zip(need, p, sp))
    xp = np.full(x.shape[:2] + big, fill, x.dtype)
    xp[(slice(None), slice(None)) + tuple(slice(q, q + n) for q, n in zip(p, sp))] = x
    return xp


def _windows_nd(xp, out, k, s, d):
    """One strided (N, C, *out) view of ``xp`` per kernel offset, in row-major order."""
    return [xp[(slice(None), slice(None)) + tuple(slice(i * d_, i * d_ + (o - 1) * s_ + 1, s_)
                                                  for i, d_, o, s_ in zip(idx, d, out, s))]
            for idx in np.ndindex(*k)]


def _max_pool_nd_k(x, kernel_size, stride, padding, dilation, ceil_mode):
    k, s, p, d = kernel_size, stride, padding, dilation
    nd = len(k)
    if x.dtype.kind == "c" or x.dtype == np.bool_:
        raise NotImplementedError(f"\"max_pool{nd}d\" not implemented for '{_tname(x.dtype)}'")
    xb = x if x.ndim == nd + 2 else x[None]
    sp = xb.shape[2:]
    out = tuple(_pool_len(n, k_, s_, p_, d_, ceil_mode) for n, k_, s_, p_, d_ in zip(sp, k, s, p, d))
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    views = _windows_nd(_pad_to_windows_nd(xb, out, k, s, p, d, low), out, k, s, d)
    m = views[0].copy()
    for v in views[1:]:
        np.maximum(m, v, out=m)             # NaN propagates, as in PyTorch
    # the first offset holding the maximum (see _max_pool_k)
    ct = np.uint8 if len(views) < 256 else np.int32
    code = np.zeros(m.shape, ct)
    for v in reversed(views[:-1]):
        code += 1
        code *= np.not_equal(v, m)
    vst = _vol_strides(sp)
    offs = list(np.ndindex(*k))
    offsets = np.array([sum(i * d_ * st for i, d_, st in zip(o, d, vst)) for o in offs], np.int64)
    starts = [_grid(out, nd, j, np.arange(out[j]) * s[j] - p[j]) for j in range(nd)]
    base = sum(st * a for st, a in zip(vst, starts))
    idx = offsets[code] + base
    special = m == low
    if m.dtype.kind == "f":
        special |= np.isnan(m)
    if special.any():       # all-lowest or NaN windows: the first valid position, or the last NaN
        best = np.full(m.shape, -1, np.int64)
        for o, v in zip(offs, views):
            cs = [a + i * d_ for a, i, d_ in zip(starts, o, d)]
            valid = np.ones((1,) * nd, bool)
            for c, n in zip(cs, sp):
                valid = valid & (c >= 0) & (c < n)
            take = valid & special & ((best < 0) | (np.isnan(v) if v.dtype.kind == "f" else False))
            best = np.where(take, sum(c * st for c, st in zip(cs, vst)), best)
        idx = np.where(special, best, idx)
    if x.ndim == nd + 1:
        m, idx = m[0], idx[0]
    return m, idx


def _max_pool3_vjp(g, result, x):
    return _max_pool3_bwd(g[0], x, result[1].detach())


_max_pool3 = defop(
    "max_pool3d_with_indices", _max_pool_nd_k, {"x": _max_pool3_vjp}, nondiff_out=(1,),
    out_saved=(1,), family=OTHER, node_name="MaxPool3DWithIndicesBackward0", method=False,
    batch=batch_merge_leading,
    jvp=lambda op, args, tangents, result: (_pool_gather(tangents[0], result[1], 3), None))

_max_pool3_bwd = scatter_backward_op("max_pool3d_with_indices_backward",
                                     "MaxPool3DWithIndicesBackwardBackward0", 3)


def _divisor_nd(shape, out, k, s, p, count_include_pad, divisor_override):
    if divisor_override:
        return divisor_override
    nd = len(k)
    div = 1
    for j in range(nd):
        div = div * _grid(out, nd, j, _avg_divisor(shape[j], out[j], k[j], s[j], p[j], count_include_pad))
    return div


def _avg_pool_nd_k(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    k, s, p = kernel_size, stride, padding
    nd = len(k)
    xb = x if x.ndim == nd + 2 else x[None]
    sp = xb.shape[2:]
    one = (1,) * nd
    out = tuple(_pool_len(n, k_, s_, p_, 1, ceil_mode) for n, k_, s_, p_ in zip(sp, k, s, p))
    views = _windows_nd(_pad_to_windows_nd(xb, out, k, s, p, one, 0), out, k, s, one)
    total = views[0].copy()
    for v in views[1:]:
        total += v
    div = _divisor_nd(sp, out, k, s, p, count_include_pad, divisor_override)
    if x.dtype.kind in "iu":                # PyTorch divides integers towards zero
        q = np.abs(total) // np.asarray(div, total.dtype)
        r = np.where(total < 0, -q, q)
    else:
        r = np.divide(total, np.asarray(div, total.dtype), out=total)
    return r if x.ndim == nd + 2 else r[0]


def _avg_pool_bwd_nd_k(grad, x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override):
    k, s, p = kernel_size, stride, padding
    nd = len(k)
    size = x.shape[-nd:]
    gb = grad if grad.ndim == nd + 2 else grad[None]
    out = gb.shape[2:]
    want = tuple(_pool_len(n, k_, s_, p_, 1, ceil_mode) for n, k_, s_, p_ in zip(size, k, s, p))
    if want != tuple(out):                  # (PyTorch's check of the gradient's size)
        raise RuntimeError(f"avg_pool{nd}d_backward: expected a gradient of spatial size {list(want)}, but got "
                           f"{list(out)}")
    share = gb / np.asarray(_divisor_nd(size, out, k, s, p, count_include_pad, divisor_override), gb.dtype)
    big = tuple(max((o - 1) * s_ + k_, n + p_) for o, s_, k_, n, p_ in zip(out, s, k, size, p))
    buf = np.zeros(gb.shape[:2] + big, share.dtype)
    for v in _windows_nd(buf, out, k, s, (1,) * nd):
        v += share
    r = np.ascontiguousarray(buf[(slice(None), slice(None)) + tuple(slice(q, q + n) for q, n in zip(p, size))])
    return r if grad.ndim == nd + 2 else r[0]


_avg_pool3 = defop(
    "avg_pool3d", _avg_pool_nd_k,
    {"x": lambda g, x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override:
     _avg_pool3_bwd(g, x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)},
    family=OTHER, linear=True, node_name="AvgPool3DBackward0", method=False,
    batch=batch_merge_leading, no_bool="avg_pool3d_out_frame", no_complex="avg_pool3d_out_frame",
    no_int=lambda x, *params: None if x._data.dtype == np.int64 else "avg_pool3d_out_frame")

_avg_pool3_bwd = defop(
    "avg_pool3d_backward", _avg_pool_bwd_nd_k,
    {"grad": lambda h, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override:
     _avg_pool3(h, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override),
     "x": "zero"},
    n_in=2, family=OTHER, linear=True, node_name="AvgPool3DBackwardBackward0", method=False,
    batch=batch_merge_leading)


def _adaptive3_k(x, output_size):
    if x.dtype.kind not in "f":
        raise NotImplementedError(f"\"adaptive_avg_pool3d_cpu\" not implemented for '{_tname(x.dtype)}'")
    for j in range(3):
        x = _adaptive_mean_axis(x, x.ndim - 3 + j, output_size[j])
    return x


def _adaptive3_bwd_k(grad, x):
    size = x.shape[-3:]
    for j in range(3):
        grad = _adaptive_mean_axis_t(grad, grad.ndim - 3 + j, size[j])
    return grad


_adaptive3 = defop(
    "adaptive_avg_pool3d", _adaptive3_k,
    {"x": lambda g, x: _adaptive3_bwd(g, x)},
    family=OTHER, linear=True, node_name="AdaptiveAvgPool3DBackward0", method=False,
    batch=batch_merge_leading)

_adaptive3_bwd = defop(
    "adaptive_avg_pool3d_backward", _adaptive3_bwd_k,
    {"grad": lambda h, grad: _adaptive3(h, tuple(grad.shape[-3:])), "x": "zero"},
    meta=("grad",), n_in=2, family=OTHER, linear=True, node_name="AdaptiveAvgPool3DBackwardBackward0",
    method=False, batch=batch_merge_leading)


def _adaptive_max3_k(x, output_size):
    return _adaptive_max_nd(x, output_size, "adaptive_max_pool3d_cpu")


def _adaptive_max_nd(x, output_size, kernel):
    """Adaptive max pooling over the last ``len(output_size)`` dimensions: the
    maxima and their flat indices into those dimensions."""
    if x.dtype.kind != "f" and x.dtype.name != "bfloat16":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_tname(x.dtype)}'")
    nd = len(output_size)
    sp = x.shape[-nd:]
    lead = x.shape[:-nd]
    vst = _vol_strides(sp)
    bounds = [_adaptive_bounds(n, o) for n, o in zip(sp, output_size)]
    out = tuple(output_size)
    m = np.full(lead + out, -np.inf, x.dtype)
    # the window's first element until a larger value (or a NaN: the last NaN wins)
    # replaces it, offsets in row-major order, as PyTorch's kernel
    idx = np.broadcast_to(sum(_grid(out, nd, j, bounds[j][0]) * vst[j] for j in range(nd)),
                          lead + out).astype(np.int64)
    for off in np.ndindex(*[int(b[1].max(initial=0)) for b in bounds]):
        v = x
        inside = np.ones((1,) * nd, bool)
        flat = 0
        for j, (a, (st, ln)) in enumerate(zip(off, bounds)):
            c = np.minimum(st + a, sp[j] - 1)
            v = np.take(v, c, axis=len(lead) + j)
            inside = inside & _grid(out, nd, j, a < ln)
            flat = flat + _grid(out, nd, j, c) * vst[j]
        take = inside & ((v > m) | (v != v))
        m = np.where(take, v, m)
        idx = np.where(take, flat, idx)
    return m, idx


_adaptive_max3 = defop(
    "adaptive_max_pool3d", _adaptive_max3_k,
    {"x": lambda g, result, x: _adaptive_max3_bwd(g[0], x, result[1].detach())}, nondiff_out=(1,),
    out_saved=(1,), family=OTHER, node_name="AdaptiveMaxPool3DBackward0", method=False,
    batch=batch_merge_leading,
    jvp=lambda op, args, tangents, result: (_pool_gather(tangents[0], result[1], 3), None))


_adaptive_max3_bwd = scatter_backward_op("adaptive_max_pool3d_backward",
                                         "AdaptiveMaxPool3DBackwardBackward0", 3)


# ---------------------------------------------------------------- 3-d: arguments (PyTorch's checks and words)
def _three(fname, name, v, pos, msg, default=None):
    if default is not None and (v is None or (isinstance(v, (tuple, list)) and not v)):
        return default
    t = _ints(fname, name, v, pos)
    if len(t) == 1:
        return t * 3
    if len(t) != 3:
        raise RuntimeError(msg)
    return t


def _pool3d_shape_check(fname, x, k, s, p, d, ceil_mode, check_input_size=False):
    """PyTorch's ``pooling_output_shape`` and ``pool3d_shape_check``, in order."""
    for kk, ss, pp, dd in zip(k, s, p, d):
        if ss == 0:
            raise RuntimeError("stride should not be zero")
        if pp < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {pp}")
        if pp > int(((kk - 1) * dd + 1) / 2):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pp}, "
                               f"kernel_size={kk} and dilation={dd}")
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {k[0]} kH: {k[1]} kW: {k[2]}")
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {s[0]} dH: {s[1]} dW: {s[2]}")
    if min(d) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {d[0]} dilationH: {d[1]} "
                           f"dilationW: {d[2]}")
    shape = list(x.shape)
    if any(n == 0 for n in shape[-4:]):     # (PyTorch names dimension 0 whichever it is)
        raise RuntimeError(f"{fname}(): Expected input's non-batch dimensions to have positive length, but "
                           f"input has a shape of {shape} and non-batch dimension 0 has length zero!")
    c, t, h, w = shape[-4:]
    if check_input_size and (t < k[0] or h < k[1] or w < k[2]):
        raise RuntimeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size (kT: {k[0]} kH: {k[1]} "
                           f"kW: {k[2]})")
    if k[0] // 2 < p[0] or k[2] // 2 < p[2] or k[1] // 2 < p[1]:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got kT: {k[0]} "
                           f"kW: {k[2]} kH: {k[1]} padT: {p[0]} padW: {p[2]} padH: {p[1]}")
    ot, oh, ow = (_pool_len(n, kk, ss, pp, dd, ceil_mode) for n, kk, ss, pp, dd in zip((t, h, w), k, s, p, d))
    if ot < 1 or oh < 1 or ow < 1:
        raise RuntimeError(f"Given input size: ({c}x{t}x{h}x{w}). Calculated output size: ({c}x{ot}x{oh}x{ow}). "
                           f"Output size is too small")


def _max_pool3d_impl(input, kernel_size, stride, padding, dilation, ceil_mode):
    fname = "max_pool3d"
    _tensor(fname, input)
    k = _three(fname, "kernel_size", kernel_size, 2,
               "max_pool3d: kernel_size must either be a single int, or a tuple of three ints")
    s = _three(fname, "stride", stride, 3,
               "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints", default=k)
    p = _three(fname, "padding", padding, 4, "max_pool3d: padding must either be a single int, or a tuple of "
               "three ints")
    d = _three(fname, "dilation", dilation, 5, "max_pool3d: dilation must be either a single int, or a tuple of "
               "three ints")
    if input.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    _pool3d_shape_check("max_pool3d_with_indices_out_cpu_template", input, k, s, p, d, ceil_mode)
    return _max_pool3(input, k, s, p, d, bool(ceil_mode))


@public(method=False)
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """3-d max pooling over an (N, C, D, H, W) or (C, D, H, W) input; with
    ``return_indices``, also each maximum's flat index into its D*H*W volume."""
    out, idx = _max_pool3d_impl(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """``torch.nn.functional.max_pool3d_with_indices``: always ``(values, indices)``."""
    return _max_pool3d_impl(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """3-d average pooling over an (N, C, D, H, W) or (C, D, H, W) input."""
    fname = "avg_pool3d"
    _tensor(fname, input)
    k = _three(fname, "kernel_size", kernel_size, 2, "avg_pool3d: kernel_size must be a single int, or a tuple "
               "of three ints")
    s = _three(fname, "stride", stride, 3, "avg_pool3d: stride must be omitted, a single int, or a tuple of "
               "three ints", default=k)
    p = _three(fname, "padding", padding, 4, "avg_pool3d: padding must be a single int, or a tuple of three "
               "ints")
    if input.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _pool3d_shape_check("avg_pool3d", input, k, s, p, (1, 1, 1), ceil_mode, check_input_size=True)
    input, = autocast_inputs("avg_pool3d", input)
    dt = input._data.dtype
    if dt == np.float16 or dt.name == "bfloat16":
        raise NotImplementedError(f"\"avg_pool3d_out_frame\" not implemented for '{_tname(dt)}'")
    return _avg_pool3(input, k, s, p, bool(ceil_mode), bool(count_include_pad), divisor_override)


def _adaptive3_size(fname, input, output_size, msg):
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 3:
            raise RuntimeError(msg)
        size = tuple(input.shape[-3 + i] if v is None else v for i, v in enumerate(output_size))
    else:
        size = (output_size,) * 3
    return _ints(fname, "output_size", list(size), 2)


def adaptive_avg_pool3d(input, output_size):
    """3-d adaptive average pooling to ``output_size`` (an int, or a triple whose
    None entries keep the input's size)."""
    _tensor("adaptive_avg_pool3d", input)
    size = _adaptive3_size("adaptive_avg_pool3d", input, output_size, "adaptive_avg_pool3d: output_size must be 3")
    if any(v < 0 for v in size):
        raise RuntimeError(f"adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{size[0]}, {size[1]},{size[2]}}}")
    if size == (1, 1, 1) and input.ndim >= 3:
        # PyTorch's shortcut: a mean over the last three dimensions (MeanBackward1)
        return input.mean((-1, -2, -3), keepdim=True)
    shape = list(input.shape)
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {shape}")
    for i in range(input.ndim - 3, input.ndim):
        if shape[i] == 0:
            raise RuntimeError(f"adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {shape} with dimension {i} being empty")
    return _adaptive3(input, size)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """``torch.nn.functional.adaptive_max_pool3d_with_indices``: always ``(values, indices)``."""
    _tensor("adaptive_max_pool3d", input)
    if isinstance(output_size, (tuple, list)) and input.ndim <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    size = _adaptive3_size("adaptive_max_pool3d", input, output_size,
                           "adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    shape = list(input.shape)
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {shape}")
    if any(v < 0 for v in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: "
                           f"{shape[:-3] + list(size)}")
    for i in range(input.ndim - 3, input.ndim):
        if shape[i] == 0:
            raise RuntimeError(f"adaptive_max_pool3d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {shape} with dimension {i} being empty")
    return _adaptive_max3(input, size)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-d adaptive max pooling to ``output_size``; with ``return_indices``, also
    each maximum's flat index into its D*H*W volume.  (``torch.adaptive_max_pool3d``
    does not exist: ``nn.functional``'s form.)"""
    r = adaptive_max_pool3d_with_indices(input, output_size)
    return r if return_indices else r[0]
