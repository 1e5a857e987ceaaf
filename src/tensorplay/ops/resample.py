"""Padding and interpolation: ``pad`` (modes constant, reflect, replicate,
circular) and ``interpolate`` (modes nearest, nearest-exact, linear,
bilinear, bicubic, trilinear, area), as ``torch.nn.functional`` spells them, plus
``constant_pad_nd``.

All are linear maps along each spatial dimension separately, so each is a
registry op built from per-axis index maps: output position ``i`` of an axis
reads input position ``idx[i]`` (padding, nearest) or blends ``idx0[i]`` and
``idx1[i]`` with weights (linear).  Each op's gradient is a second registry
op, its adjoint, which adds every output's gradient back at the positions it
read (``_index_adjoint``: a stable sort of the index map and one
``add.reduceat``, exact and without Python loops over elements), and whose
own gradient is the first op again.  ``constant_pad_nd`` is its own adjoint
with the pads negated (a negative pad crops).
"""
import functools

import numpy as np

from .._tensor import Tensor
from ._families import OTHER
from ._registry import defop, dispatch, overload_node
from ._util import _tname, is_int as _is_int
from .pooling import batch_merge_leading
from .nn_ops import grad_link as _grad_link

__all__ = ["constant_pad_nd"]


# ---------------------------------------------------------------- per-axis index maps
def _index_adjoint(g, idx, n, axis):
    """The adjoint of ``np.take(x, idx, axis)`` for an ``x`` of length ``n``
    there: every entry of ``g`` added at the position it was taken from."""
    shape = list(g.shape)
    shape[axis] = n
    out = np.zeros(shape, g.dtype)
    if idx.size == 0 or g.size == 0:
        return out
    if np.array_equal(idx, np.arange(n)):
        return g.copy()
    order = np.argsort(idx, kind="stable")
    sidx = idx[order]
    starts = np.flatnonzero(np.r_[True, sidx[1:] != sidx[:-1]])
    sums = np.add.reduceat(np.take(g, order, axis=axis), starts, axis=axis)
    where = [slice(None)] * g.ndim
    where[axis] = sidx[starts]
    out[tuple(where)] = sums
    return out


def _fresh(x):
    """``x``, or a copy if it may be an op's input (an op returns new memory)."""
    return x if x.flags.owndata else x.copy()


def _take(x, idx, axis):
    n = x.shape[axis]
    if len(idx) == n and np.array_equal(idx, np.arange(n)):
        return x
    m = len(idx)
    if n and m % n == 0 and np.array_equal(idx, np.arange(m) // (m // n)):
        return np.repeat(x, m // n, axis=axis)       # an integer upscale: faster than take
    return np.take(x, idx, axis=axis)


# ---------------------------------------------------------------- constant padding
def _pad_slices(shape, pad):
    """For ``pad`` in PyTorch's order (last dimension first), the output shape
    and the matching regions of the output and of the input (negative pads crop)."""
    out_shape, dst, src = list(shape), [slice(None)] * len(shape), [slice(None)] * len(shape)
    for k in range(len(pad) // 2):
        ax = len(shape) - 1 - k
        lo, hi, n = pad[2 * k], pad[2 * k + 1], shape[ax]
        out_shape[ax] = n + lo + hi
        dst[ax] = slice(max(lo, 0), max(lo, 0) + max(n + min(lo, 0) + min(hi, 0), 0))
        src[ax] = slice(max(-lo, 0), max(-lo, 0) + max(n + min(lo, 0) + min(hi, 0), 0))
    return out_shape, tuple(dst), tuple(src)


def _constant_pad_k(x, pad, value=0):
    shape, dst, src = _pad_slices(x.shape, pad)
    if any(n < 0 for n in shape):
        raise RuntimeError("narrow(): length must be non-negative.")
    out = np.empty(shape, x.dtype)
    out.fill(value)
    out[dst] = x[src]
    return out


def _batch_constant_pad(op, args, bdims):
    """The pads name trailing dimensions only: the batch dimension first is untouched."""
    x = args[0] if bdims[0] == 0 else args[0].movedim(bdims[0], 0)
    return dispatch(op, [x] + list(args[1:])), 0


constant_pad_nd = defop(
    "constant_pad_nd", _constant_pad_k,
    {"x": lambda g, pad: _constant_pad(g, tuple(-p for p in pad), 0)},
    family=OTHER, node_name="ConstantPadNdBackward0", method=False, batch=_batch_constant_pad,
    jvp=lambda x_t, pad: _constant_pad(x_t, pad, 0))
_constant_pad = constant_pad_nd


# ---------------------------------------------------------------- reflect / replicate / circular
def _pad_index(mode, n, lo, hi):
    j = np.arange(-lo, n + hi)
    if mode == "reflect":
        j = np.abs(j)
        return np.where(j > n - 1, 2 * (n - 1) - j, j)
    if mode == "replicate":
        return np.clip(j, 0, n - 1)
    a, b = max(-lo, 0), max(-hi, 0)     # circular: PyTorch crops first, then wraps what is left
    return np.arange(-max(lo, 0), n - a - b + max(hi, 0)) % (n - a - b) + a


def _index_pad_k(mode):
    def k(x, pad):
        for i in range(len(pad) // 2):
            ax = x.ndim - 1 - i
            x = _take(x, _pad_index(mode, x.shape[ax], pad[2 * i], pad[2 * i + 1]), ax)
        return _fresh(x)
    return k


def _index_pad_bwd_k(mode):
    def k(grad, size, pad):
        g = grad
        for i in reversed(range(len(pad) // 2)):
            ax = g.ndim - 1 - i
            n = size[len(size) - 1 - i]
            g = _index_adjoint(g, _pad_index(mode, n, pad[2 * i], pad[2 * i + 1]), n, ax)
        return g
    return k


def _by_rank(op, names):
    """Node classes per number of padded / resampled dimensions (PyTorch's
    ``ReflectionPad2DBackward0`` ...), chosen from the op's second argument."""
    return {k: overload_node(op, name) for k, name in names.items()}


def _pad_vjp(mode, g, x, pad):
    gx = _PAD_OPS[mode][1](g, tuple(x.shape[-(len(pad) // 2):]), pad)
    return gx if mode == "circular" else _grad_link(gx, x)


_PAD_NODE = {"reflect": "ReflectionPad", "replicate": "ReplicationPad", "circular": "CircularPad"}
_PAD_OPS = {}
for _mode in ("reflect", "replicate", "circular"):
    _name = {"reflect": "reflection_pad", "replicate": "replication_pad", "circular": "circular_pad"}[_mode]
    _fwd = defop(_name, _index_pad_k(_mode),
                 {"x": (lambda m: lambda g, x, pad: _pad_vjp(m, g, x, pad))(_mode)},
                 # (reflect/replicate: PyTorch's backward kernels take the input, so a recorded
                 # first gradient is in its graph, zeros at the next order; circular's is not)
                 meta=("x",) if _mode == "circular" else (), family=OTHER, linear=True,
                 node_name=f"{_PAD_NODE[_mode]}1DBackward0", method=False, batch=batch_merge_leading,
                 # (PyTorch's kernels of the rank padded: reflection_pad2d, ...; circular
                 # padding is copies, any dtype)
                 no_bool=None if _mode == "circular" else
                 (lambda n: lambda x, pad: f"{n}{len(pad) // 2}d")(_name))
    _bwd = defop(f"{_name}_backward", _index_pad_bwd_k(_mode),
                 {"grad": (lambda m: lambda h, pad: _PAD_OPS[m][0](h, pad))(_mode)},
                 family=OTHER, linear=True, node_name=f"{_PAD_NODE[_mode]}1DBackwardBackward0",
                 method=False, batch=batch_merge_leading)
    _cls = _by_rank(_fwd.op, {k: f"{_PAD_NODE[_mode]}{k}DBackward0" for k in (1, 2, 3)})
    _fwd.op.variants = (lambda c: lambda a: c[len(a[1]) // 2])(_cls)
    _cls = _by_rank(_bwd.op, {k: f"{_PAD_NODE[_mode]}{k}DBackwardBackward0" for k in (1, 2, 3)})
    _bwd.op.variants = (lambda c: lambda a: c[len(a[1])])(_cls)
    _PAD_OPS[_mode] = (_fwd, _bwd)
del _mode, _name, _fwd, _bwd, _cls


_SUPPORTED = ("Supported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def pad(input, pad, mode="constant", value=None):
    """Pads the last ``len(pad) // 2`` dimensions of ``input``; ``pad`` is
    ``(left, right, top, bottom, front, back)`` from the last dimension on
    (negative entries crop).  Modes: constant (with ``value``), reflect,
    replicate, circular."""
    if not isinstance(input, Tensor):
        raise TypeError(f"pad(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not isinstance(pad, (tuple, list)):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not {type(pad).__name__}")
    for i, v in enumerate(pad):
        if not _is_int(v):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element "
                            f"of type {type(v).__name__} at pos {i}")
    pad = tuple(int(v) for v in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension "
                           f"but got padding length {len(pad)} and input of dimension {input.ndim}")
    if mode == "constant":
        return constant_pad_nd(input, pad, 0 if value is None else value)
    if mode not in _PAD_OPS:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    k = len(pad) // 2
    if k not in (1, 2, 3) or input.ndim not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.ndim}D input "
                                  f"tensor.\n{_SUPPORTED}")
    shape = list(input.shape)
    if any(n == 0 for n in shape[-(k + 1) if input.ndim == k + 2 else 0:]) and mode != "circular":
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: {shape}")
    for i in range(k):
        ax = input.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if mode == "reflect" and (lo >= shape[ax] or hi >= shape[ax]):
            raise RuntimeError(f"Argument #{2 * k + 2}: Padding size should be less than the corresponding "
                               f"input dimension, but got: padding ({lo}, {hi}) at dimension {ax} of input "
                               f"{shape}")
        # (PyTorch checks against the size before cropping, and then copies between
        # overlapping memory when a pad wraps past what the crop left: refused here)
        if mode == "circular" and max(lo, hi) > shape[ax] - max(-lo, 0) - max(-hi, 0):
            raise RuntimeError("Padding value causes wrapping around more than once.")
    if mode != "circular":              # (a crop to nothing: PyTorch's kernels' checks and words)
        ins = shape[input.ndim - k:]
        outs = [n + pad[2 * (k - 1 - j)] + pad[2 * (k - 1 - j) + 1] for j, n in enumerate(ins)]
        if all(o < 1 for o in outs):
            if k == 1:
                msg = f"input (W: {ins[0]}) is too small. Calculated output W: {outs[0]}"
            elif k == 2:
                msg = (f"input (H: {ins[0]}, W: {ins[1]}{' ' if mode == 'replicate' else ''}) is too small. "
                       f"Calculated output H: {outs[0]} W: {outs[1]}")
            else:
                msg = (f"input (D: {ins[0]} H: {ins[1]}, W: {ins[2]}) is too small. Calculated output "
                       f"D: {outs[0]} H: {outs[1]} W: {outs[2]}")
            raise RuntimeError(msg)
        neg = [o for o in outs if o < 0]
        if neg:
            if mode == "reflect" and k == 2:
                raise RuntimeError("numel: integer multiplication overflow")
            raise RuntimeError(f"Trying to create tensor with negative dimension {neg[0]}: "
                               f"{shape[:input.ndim - k] + outs}")
    return _PAD_OPS[mode][0](input, pad)


# ---------------------------------------------------------------- interpolation
def _scale(n, out, scale, align_corners=False, linear=False):
    """PyTorch's ``area_pixel_compute_scale`` / ``compute_scales_value``: a
    given scale factor is used as ``1/scale`` (not recomputed from the sizes)."""
    if linear and align_corners:
        return (n - 1) / (out - 1) if out > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else n / out


@functools.lru_cache(maxsize=256)
def _nearest_index(n, out, scale, exact, spatial=1):
    # a scale_factor that keeps a size still maps by 1/scale in PyTorch's 1-d and 3-d
    # nearest kernels; its 2-d ones (and the linear ones) copy such a dimension
    if out == n and (spatial == 2 or scale is None):
        return np.arange(n)
    if out == 2 * n and spatial == 2 and not exact:     # (and its 2-d nearest kernels, forward and
        return np.arange(out) // 2                      #  backward, take a doubled size as j >> 1)
    s = np.float32(_scale(n, out, scale))          # PyTorch computes these in float
    i = np.arange(out, dtype=np.float32)
    src = np.floor((i + np.float32(0.5)) * s) if exact else np.floor(i * s)
    return np.minimum(src.astype(np.int64), n - 1)


@functools.lru_cache(maxsize=256)
def _linear_weights(n, out, scale, align_corners, dtype):
    """The two source positions of each output position and their weights."""
    dt = np.dtype(dtype)
    if out == n:                # PyTorch's linear kernels copy a dimension that keeps its size,
        i = np.arange(n)        # whatever the scale_factor
        return i, i, np.ones(n, dt), np.zeros(n, dt)
    s = dt.type(_scale(n, out, scale, align_corners, linear=True))
    i = np.arange(out, dtype=dt)
    if align_corners:
        src = s * i
    else:
        src = np.maximum(s * (i + dt.type(0.5)) - dt.type(0.5), dt.type(0))
    i0 = src.astype(np.int64)
    i1 = i0 + (i0 < n - 1)
    w1 = src - i0.astype(dt)
    return i0, i1, dt.type(1) - w1, w1


def _axis_shape(ndim, axis, v):
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


def _check_dtype(x, mode, k):
    """Float inputs, and uint8 images for the nearest modes (copies), as PyTorch;
    any other dtype is refused in the words of PyTorch's kernel for the rank."""
    nearest = mode.startswith("nearest")
    if x.dtype.kind == "f" or (nearest and x.dtype == np.uint8):
        return
    kernel = ("compute_indices_weights_cubic" if mode == "cubic" else
              f"upsample_{'nearest' if nearest else mode}2d_channels_last" if k == 2 else
              f"compute_indices_weights_{'nearest' if nearest else 'linear'}")
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{_tname(x.dtype)}'")


def _nearest_k(exact):
    def k(x, output_size, scales):
        _check_dtype(x, "nearest_exact" if exact else "nearest", len(output_size))
        nd = len(output_size)
        for i in range(nd):
            ax = x.ndim - nd + i
            x = _take(x, _nearest_index(x.shape[ax], output_size[i], scales[i], exact, nd), ax)
        return _fresh(x)
    return k


def _nearest_bwd_k(exact):
    def k(grad, input_size, scales):
        nd = len(input_size)
        for i in range(nd):
            ax = grad.ndim - nd + i
            grad = _index_adjoint(grad, _nearest_index(input_size[i], grad.shape[ax], scales[i], exact,
                                                       nd), input_size[i], ax)
        return grad
    return k


def _linear_k(x, output_size, scales, align_corners):
    nd = len(output_size)
    _check_dtype(x, ("linear", "bilinear", "trilinear")[nd - 1], nd)
    for i in reversed(range(nd)):       # last dimension first, as PyTorch's sums group
        ax = x.ndim - nd + i
        i0, i1, w0, w1 = _linear_weights(x.shape[ax], output_size[i], scales[i], align_corners,
                                         x.dtype.str)
        x = np.take(x, i0, axis=ax) * _axis_shape(x.ndim, ax, w0) + \
            np.take(x, i1, axis=ax) * _axis_shape(x.ndim, ax, w1)
    return x


def _linear_bwd_k(grad, input_size, scales, align_corners):
    nd = len(input_size)
    for i in range(nd):
        ax = grad.ndim - nd + i
        n = input_size[i]
        i0, i1, w0, w1 = _linear_weights(n, grad.shape[ax], scales[i], align_corners, grad.dtype.str)
        grad = _index_adjoint(grad * _axis_shape(grad.ndim, ax, w0), i0, n, ax) + \
            _index_adjoint(grad * _axis_shape(grad.ndim, ax, w1), i1, n, ax)
    return grad


_CUBIC_A = -0.75         # PyTorch's (and OpenCV's) bicubic convolution constant


@functools.lru_cache(maxsize=256)
def _cubic_weights(n, out, scale, align_corners, dtype):
    """The four source positions of each output position (clamped to the input:
    its edge values repeat) and their cubic-convolution weights."""
    dt = np.dtype(dtype)
    s = dt.type(_scale(n, out, scale, align_corners, linear=True))
    i = np.arange(out, dtype=dt)
    src = s * i if align_corners else s * (i + dt.type(0.5)) - dt.type(0.5)     # (not clamped at 0)
    base = np.floor(src)
    t = src - base
    a = dt.type(_CUBIC_A)

    def near(x):            # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):             # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    one = dt.type(1)
    weights = (far(t + one), near(t), near(one - t), far(one - t + one))
    b = base.astype(np.int64)
    idx = tuple(np.clip(b - 1 + k, 0, n - 1) for k in range(4))
    return idx, tuple(w.astype(dt) for w in weights)


def _cubic_k(x, output_size, scales, align_corners):
    _check_dtype(x, "cubic", 0)
    for i in reversed(range(2)):            # the width first, as PyTorch's sums group
        ax = x.ndim - 2 + i
        idx, w = _cubic_weights(x.shape[ax], output_size[i], scales[i], align_corners, x.dtype.str)
        acc = np.take(x, idx[0], axis=ax) * _axis_shape(x.ndim, ax, w[0])
        for k in range(1, 4):
            acc = acc + np.take(x, idx[k], axis=ax) * _axis_shape(x.ndim, ax, w[k])
        x = acc
    return x


def _cubic_bwd_k(grad, input_size, scales, align_corners):
    for i in range(2):
        ax = grad.ndim - 2 + i
        n = input_size[i]
        idx, w = _cubic_weights(n, grad.shape[ax], scales[i], align_corners, grad.dtype.str)
        acc = None
        for k in range(4):
            part = _index_adjoint(grad * _axis_shape(grad.ndim, ax, w[k]), idx[k], n, ax)
            acc = part if acc is None else acc + part
        grad = acc
    return grad


@functools.lru_cache(maxsize=256)
def _aa_weights(n, out, scale, align_corners, kind, dtype):
    """The (out, n) matrix of antialiased resampling along one dimension, as
    PyTorch's (PIL's) filter: a triangle (bilinear), a cubic with a = -0.5
    (bicubic) or Lanczos-3, stretched over the source pixels one output pixel
    covers when shrinking, each row normalized to sum 1."""
    s = _scale(n, out, scale, align_corners, linear=True)
    half = _AA_SUPPORT[kind]                            # the filter's support at scale 1
    support = half * s if s >= 1 else half
    inv = 1.0 / s if s >= 1 else 1.0
    w = np.zeros((out, n))
    for i in range(out):
        center = s * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), n)
        x = np.abs((np.arange(lo, hi) - center + 0.5) * inv)
        if kind == "lanczos":
            f = np.where(x < 3, np.sinc(x) * np.sinc(x / 3), 0.0)
        elif kind == "bicubic":
            a = -0.5
            f = np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                         np.where(x < 2, (((x - 5) * x + 8) * x - 4) * a, 0.0))
        else:
            f = np.maximum(1 - x, 0.0)
        total = f.sum()
        w[i, lo:hi] = f / total if total != 0 else f
    return w.astype(dtype)


_AA_SUPPORT = {"bilinear": 1.0, "bicubic": 2.0, "lanczos": 3.0}


def _aa_k(kind):
    def k(x, output_size, scales, align_corners):
        if x.dtype.kind != "f":
            if x.dtype == np.uint8:
                raise NotImplementedError("tensorplay: interpolate(antialias=True) of uint8 images is "
                                          "not implemented")
            raise NotImplementedError(f"\"compute_index_ranges_weights\" not implemented for "
                                      f"'{_tname(x.dtype)}'")
        x0 = x
        for i in reversed(range(2)):            # the width first
            ax = x.ndim - 2 + i
            if output_size[i] == x.shape[ax]:   # (PyTorch skips a dimension that keeps its size,
                continue                        #  whatever the scale_factor)
            w = _aa_weights(x.shape[ax], output_size[i], scales[i], align_corners, kind, x.dtype.str)
            x = np.moveaxis(np.matmul(np.moveaxis(x, ax, -1), w.T), -1, ax)
        return np.array(x, order="C") if x is x0 else np.ascontiguousarray(x)
    return k


def _aa_bwd_k(kind):
    def k(grad, input_size, scales, align_corners):
        grad0 = grad
        for i in range(2):
            ax = grad.ndim - 2 + i
            if input_size[i] == grad.shape[ax]:     # (the forward's copy; PyTorch's backward kernel
                continue                            #  resamples it, inconsistent with its forward)
            w = _aa_weights(input_size[i], grad.shape[ax], scales[i], align_corners, kind,
                            grad.dtype.str)
            grad = np.moveaxis(np.matmul(np.moveaxis(grad, ax, -1), w), -1, ax)
        return np.array(grad, order="C") if grad is grad0 else np.ascontiguousarray(grad)
    return k


def _resample_ops(name, fwd, bwd, nodes, extra):
    """The op ``name`` and its adjoint ``name_backward``, each the other's vjp.
    ``extra`` names the parameters after the sizes and scales both take."""
    ops = {}

    if extra:
        def vjp(g, x, scales, align_corners):
            return ops["bwd"](g, tuple(x.shape[-len(scales):]), scales, align_corners)

        def vjp_bwd(h, grad, scales, align_corners):
            return ops["fwd"](h, tuple(grad.shape[-len(scales):]), scales, align_corners)
    else:
        def vjp(g, x, scales):
            return ops["bwd"](g, tuple(x.shape[-len(scales):]), scales)

        def vjp_bwd(h, grad, scales):
            return ops["fwd"](h, tuple(grad.shape[-len(scales):]), scales)
    f = defop(name, fwd, {"x": vjp}, meta=("x",), family=OTHER, linear=True,
              node_name=nodes[min(nodes)] + "Backward0", method=False, batch=batch_merge_leading)
    b = defop(name + "_backward", bwd, {"grad": vjp_bwd}, meta=("grad",), family=OTHER, linear=True,
              node_name=nodes[min(nodes)] + "BackwardBackward0", method=False, batch=batch_merge_leading)
    for op, suffix in ((f, "Backward0"), (b, "BackwardBackward0")):
        cls = _by_rank(op.op, {k: v + suffix for k, v in nodes.items()})
        op.op.variants = (lambda c: lambda a: c[len(a[1])])(cls)
    ops["fwd"], ops["bwd"] = f, b
    return f


_upsample_nearest = _resample_ops("upsample_nearest", _nearest_k(False), _nearest_bwd_k(False),
                                  {k: f"UpsampleNearest{k}D" for k in (1, 2, 3)}, False)
_upsample_nearest_exact = _resample_ops("upsample_nearest_exact", _nearest_k(True), _nearest_bwd_k(True),
                                        {k: f"UpsampleNearestExact{k}D" for k in (1, 2, 3)}, False)
_upsample_linear = _resample_ops("upsample_linear", _linear_k, _linear_bwd_k,
                                 {1: "UpsampleLinear1D", 2: "UpsampleBilinear2D",
                                  3: "UpsampleTrilinear3D"}, True)

_upsample_bicubic = _resample_ops("upsample_bicubic2d", _cubic_k, _cubic_bwd_k,
                                  {2: "UpsampleBicubic2D"}, True)

_UPSAMPLE_AA = {kind: _resample_ops(f"_upsample_{kind}2d_aa", _aa_k(kind), _aa_bwd_k(kind),
                                    {2: f"Upsample{kind.capitalize()}2DAa"}, True)
                for kind in ("bilinear", "bicubic", "lanczos")}

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_LINEAR = {"linear": 1, "bilinear": 2, "trilinear": 3}


def _size_list(v, nd, what, dims):
    """``size`` or ``scale_factor``: one value per spatial dimension."""
    if isinstance(v, (tuple, list)):
        if len(v) != nd:
            if what == "size":
                raise ValueError(f"Input and output must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {dims} and output size of {v!r}. Please "
                                 f"provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 f"(o1, o2, ...,oK) format.")
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got "
                             f"input with spatial dimensions of {dims} and scale_factor of shape {v!r}. Please "
                             f"provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                             f"(s1, s2, ...,sK) format.")
        return list(v)
    return [v] * nd


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resamples the spatial dimensions of an (N, C, d1, ...) input to ``size``
    or by ``scale_factor``, as ``torch.nn.functional.interpolate``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"interpolate(): argument 'input' must be Tensor, not {type(input).__name__}")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | "
                             "bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    nd = input.ndim - 2
    dims = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        out = _size_list(size, nd, "size", dims)
        if not all(_is_int(v) for v in out):
            raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                            f"Tuple[int, int, int], but got size with types {[type(v) for v in out]}")
        scales = [None] * nd
    else:
        factors = [float(v) for v in _size_list(scale_factor, nd, "scale_factor", dims)]
        out = [int(np.floor(n * f)) for n, f in zip(dims, factors)]
        scales = [None] * nd if recompute_scale_factor else factors
    if antialias and (mode not in ("bilinear", "bicubic", "lanczos") or input.ndim != 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
                         "requires a 4-D tensor as input")
    if mode == "lanczos" and input.ndim == 4:
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
    if nd != 2 and mode in ("bicubic", "lanczos") or nd not in (1, 2, 3) or \
            mode not in ("nearest", "nearest-exact", "area", "bicubic", "lanczos", *_LINEAR):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                                  f"{input.ndim}D) for the modes: {_MODES} (got {mode})")
    if mode in _LINEAR and _LINEAR[mode] != nd:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_LINEAR[mode] + 2}D input")
    if any(n <= 0 for n in dims + out) and mode != "area":    # (area: adaptive average pooling,
        #                                                         with its own checks and empty results)
        names = "DHW"[3 - nd:]
        raise RuntimeError("Input and output sizes should be greater than 0, but got input ("
                           + ", ".join(f"{c}: {n}" for c, n in zip(names, dims)) + ") output ("
                           + ", ".join(f"{c}: {n}" for c, n in zip(names, out)) + ")")
    out = tuple(out)
    if mode == "area":
        from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[nd - 1](input, out)
    if mode == "nearest":
        return _upsample_nearest(input, out, tuple(scales))
    if mode == "nearest-exact":
        return _upsample_nearest_exact(input, out, tuple(scales))
    if antialias:
        d = input._data.dtype
        if d.kind == "f" and d.itemsize < 4 or d.name == "bfloat16":
            raise NotImplementedError(f"\"compute_index_ranges_weights\" not implemented for '{_tname(d)}'")
        return _UPSAMPLE_AA[mode](input, out, tuple(scales), bool(align_corners))
    if mode == "bicubic":
        return _upsample_bicubic(input, out, tuple(scales), bool(align_corners))
    return _upsample_linear(input, out, tuple(scales), bool(align_corners))
