"""Fractional max pooling (``fractional_max_pool2d``/``3d``) and 3-d max
unpooling (``max_unpool3d``): registry ops with PyTorch's nodes, and the
``nn.functional`` functions over them (argument checks in PyTorch's words).

- ``fractional_max_pool{2,3}d(x, random_samples, kernel_size, output_size)``:
  along each spatial dimension the windows start at a pseudo-random, increasing
  sequence derived from one sample ``u`` in [0, 1) per (batch, channel,
  dimension): with ``alpha = (n - k) / (out - 1)``, the start of window ``i <
  out - 1`` is ``trunc((i + u) * alpha) - trunc(u * alpha)`` and the last starts
  at ``n - k``.  The arithmetic is done in the input's dtype, rounding after
  every operation as PyTorch's CPU kernel does (half and bfloat16 included), so
  that given samples give PyTorch's windows exactly.  Each window gives its
  first largest element (the last NaN if it holds one) and its flat index into
  the plane or volume, as ``max_pool`` does.  The 2-d samples are (width,
  height), the 3-d ones (time, height, width), PyTorch's order.
- ``fractional_max_pool{2,3}d_backward(grad, x, indices)`` adds the gradient
  back at the indices; it takes ``x`` as PyTorch's node does (its derivative
  there is ``"zero"``), so that a first gradient taken with ``create_graph``
  depends on the input and a second one is zeros.  Its own gradient in
  ``grad`` gathers at the indices.
- ``max_unpool3d(x, indices, output_size)`` writes each value at its flat index
  into a zero volume; linear, with the gather at the indices as its adjoint.

Without ``_random_samples`` the functions draw them from tensorplay's generator
(``rand``, as PyTorch's Python layer calls ``torch.rand``): seeded runs repeat,
the numbers are not PyTorch's.
"""
import numpy as np

from .. import _dtype as D
from .._autograd.grad_mode import state as _grad_state
from .._creation import rand as _rand
from .._tensor import Tensor
from ._families import OTHER
from ._registry import defop, dispatch
from ._util import _tname, is_int as _is_int
from .pooling import _front, _pool_gather, _vol_strides, batch_merge_leading, scatter_backward_op

__all__ = []

_FLOATS = frozenset({np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64), D.bfloat16.np})


# ---------------------------------------------------------------- the pseudo-random windows
def _intervals(u, n, out, k):
    """The window starts along one dimension of size ``n`` for each sample of
    ``u`` (one per plane): an (planes, out) int64 array, computed in ``u``'s
    dtype with a rounding after each operation, as PyTorch's kernel does."""
    starts = np.empty((u.shape[0], max(out, 0)), np.int64)
    if out <= 0:
        return starts
    dt = u.dtype
    ct = np.float64 if dt == np.float64 else np.float32

    def rnd(a):                     # a value of the format, held in ct
        return np.asarray(a, ct).astype(dt).astype(ct)

    if out > 1:
        uc = u.astype(ct)[:, None]
        alpha = rnd(rnd(n - k) / rnd(out - 1))
        i = rnd(np.arange(out - 1))[None, :]
        with np.errstate(invalid="ignore", over="ignore"):     # (samples far outside [0, 1))
            a = np.trunc(rnd(rnd(i + uc) * alpha)).astype(np.int64)
            b = np.trunc(rnd(uc * alpha)).astype(np.int64)
        starts[:, :out - 1] = a - b
    starts[:, out - 1] = n - k
    return starts


def _fractional_k(x, random_samples, kernel_size, output_size):
    """Fractional max pooling over the last ``len(kernel_size)`` dimensions of an
    (N, C, *spatial) or (C, *spatial) array: the maxima and their flat indices."""
    nd = len(kernel_size)
    batched = x.ndim == nd + 2
    xb = x if batched else x[None]
    n, c = xb.shape[:2]
    sp = xb.shape[2:]
    out = tuple(output_size)
    planes = n * c
    vals = np.empty((planes,) + out, x.dtype)
    idx = np.empty((planes,) + out, np.int64)
    if vals.size == 0:
        shape = (xb.shape[:2] if batched else (c,)) + out
        return vals.reshape(shape), idx.reshape(shape)
    s = np.ascontiguousarray(random_samples[:n]).reshape(planes, nd)
    cols = (1, 0) if nd == 2 else (0, 1, 2)          # 2-d samples are (W, H); 3-d (T, H, W)
    vst = _vol_strides(sp)
    base = np.zeros((planes,) + out, np.int64)
    for j in range(nd):
        st = _intervals(s[:, cols[j]], sp[j], out[j], kernel_size[j])
        if kernel_size[j] > 0 and ((st < 0) | (st + kernel_size[j] > sp[j])).any():
            # (samples outside [0, 1), or half precision over a long dimension: PyTorch's
            # kernel stops at its assertion; which dimension it names first may differ)
            v = ("h", "w")[j] if nd == 2 else ("t", "h", "w")[j]
            raise RuntimeError(f"{v}2 >= 0 && {v}2 < input{v.upper()} INTERNAL ASSERT FAILED: a window of "
                               f"fractional_max_pool{nd}d runs outside the input")
        shape = [planes] + [1] * nd
        shape[1 + j] = out[j]
        base = base + st.reshape(shape) * vst[j]
    ct = np.float64 if x.dtype == np.float64 else np.float32
    xf = np.ascontiguousarray(xb).reshape(planes, -1)
    if xf.dtype != ct:
        xf = xf.astype(ct)
    m = np.full(base.shape, -np.inf, ct)
    best = base.copy()
    flat_base = base.reshape(planes, -1)
    # PyTorch's loop: offsets in row-major order; a larger value or a NaN takes over
    for off in np.ndindex(*[max(k, 0) for k in kernel_size]):
        o = sum(a * st for a, st in zip(off, vst))
        pos = flat_base + o
        v = np.take_along_axis(xf, pos, axis=1).reshape(base.shape)
        take = (v > m) | (v != v)
        np.copyto(m, v, where=take)
        np.copyto(best, pos.reshape(base.shape), where=take)
    vals = m.astype(x.dtype)
    shape = (xb.shape[:2] if batched else (c,)) + out
    return vals.reshape(shape), best.reshape(shape)


def _fractional_batch(op, args, bdims):
    """vmap: the batch merged into the input's batch dimension (an unbatched
    input becomes a batch), each sample with its own random samples."""
    x, s = args[0], args[1]
    nd = len(args[2])
    size = next(a.shape[b] for a, b in zip(args, bdims) if b is not None)
    x = _front(x, bdims[0], size)
    s = _front(s, bdims[1], size)                    # (B, N', C, nd)
    if x.ndim == nd + 2:                             # each sample an unbatched (C, *spatial)
        return dispatch(op, [x, s[:, 0], args[2], args[3]]), 0
    n = x.shape[1]
    xm = x.reshape((size * n,) + tuple(x.shape[2:]))
    sm = s[:, :n].reshape((size * n,) + tuple(s.shape[2:]))
    out = dispatch(op, [xm, sm, args[2], args[3]])
    return tuple(o.reshape((size, n) + tuple(o.shape[1:])) for o in out), 0


def _fractional_ops(nd):
    name = f"fractional_max_pool{nd}d"
    node = f"FractionalMaxPool{nd}D"

    def vjp(g, result, x):
        return bwd(g[0], x, result[1].detach())

    def jvp(op, args, tangents, result):
        return _pool_gather(tangents[0], result[1], nd), None

    fwd = defop(name, _fractional_k, {"x": vjp}, n_in=2, nondiff_out=(1,), out_saved=(1,), family=OTHER,
                upcast=False, node_name=node + "Backward0", method=False, batch=_fractional_batch, jvp=jvp)
    bwd = scatter_backward_op(name + "_backward", node + "BackwardBackward0", nd, upcast=False)
    return fwd, bwd


_fractional2, _fractional2_bwd = _fractional_ops(2)
_fractional3, _fractional3_bwd = _fractional_ops(3)


# ---------------------------------------------------------------- max_unpool3d
def _max_unpool3d_k(x, indices, output_size):
    ot, oh, ow = output_size
    lead = x.shape[:-3]
    planes = int(np.prod(lead, dtype=np.int64))
    vol = ot * oh * ow
    out = np.zeros(planes * vol, x.dtype)
    if not planes or not vol or not x.size:
        return out.reshape(lead + (ot, oh, ow))
    idx = indices.reshape(planes, -1)
    bad = (idx < 0) | (idx >= vol)
    if bad.any():
        raise RuntimeError(f"Found an invalid max index: {int(idx[bad][0])} (output volumes are of size "
                           f"{ot}x{oh}x{ow})")
    out[(idx + (np.arange(planes, dtype=np.int64) * vol)[:, None]).ravel()] = x.reshape(-1)
    return out.reshape(lead + (ot, oh, ow))


def _unpool3_gather(g, indices):
    """``g``'s elements at ``indices`` (flat into its last three dimensions)."""
    return g.flatten(-3).gather(-1, indices.flatten(-3)).view(indices.shape)


_max_unpool3d = defop(
    "max_unpool3d", _max_unpool3d_k, {"x": lambda g, indices: _unpool3_gather(g, indices)},
    n_in=2, family=OTHER, linear=True, upcast=False, node_name="MaxUnpool3DBackward0", method=False,
    batch=batch_merge_leading)


# ---------------------------------------------------------------- arguments (PyTorch's checks and words)
def _int_list(fname, argname, pos, v):
    """An ``int[]`` argument as PyTorch's argument parser reads it: an int, or a
    sequence of ints (after the first element, bools pass as ints)."""
    if _is_int(v):
        return (int(v),)
    if isinstance(v, (tuple, list)):
        out = []
        for i, e in enumerate(v):
            if _is_int(e) or (i > 0 and isinstance(e, (bool, np.bool_))):
                out.append(int(e))
            elif i == 0:
                raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be tuple of ints, but "
                                f"found element of type {type(e).__name__} at pos 0")
            else:
                raise TypeError(f"{fname}(): argument '{argname}' failed to unpack the object at pos {i + 1} "
                                f"with error \"type must be tuple of ints,but got {type(e).__name__}\"")
        return tuple(out)
    raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be tuple of ints, not "
                    f"{type(v).__name__}")


def _expand(v, n):
    """PyTorch's ``_pair``/``_triple``: a sequence as a tuple, anything else ``n`` times."""
    if isinstance(v, (tuple, list)):
        return tuple(v)
    if isinstance(v, Tensor) and v.ndim > 0:
        return tuple(v)
    return (v,) * n


def _fractional(nd, input, kernel_size, output_size, output_ratio, random_samples):
    """``nn.functional.fractional_max_pool{nd}d_with_indices``'s body."""
    fname = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fname} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if nd == 2:
            if len(output_ratio) > 2:
                raise ValueError(f"{fname} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = _expand(output_ratio, nd)
        output_size = [int(input.size(j - nd) * ratio[j]) for j in range(nd)]
    if random_samples is None:
        n_batch = 1 if input.dim() == nd + 1 else input.size(0)
        random_samples = _rand(n_batch, input.size(-nd - 1), nd, dtype=input.dtype)
    # (the ATen op's own checks, in its order)
    if not isinstance(input, Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    k = _int_list(fname, "kernel_size", 2, kernel_size)
    o = _int_list(fname, "output_size", 3, output_size)
    if not isinstance(random_samples, Tensor):
        raise TypeError(f"{fname}(): argument 'random_samples' (position 4) must be Tensor, not "
                        f"{type(random_samples).__name__}")
    if random_samples.requires_grad and _grad_state.enabled:
        raise RuntimeError(f"The function '{fname}' is not differentiable with respect to argument "
                           f"'random_samples'. This input cannot have requires_grad True.")
    k = k * nd if len(k) == 1 else k
    o = o * nd if len(o) == 1 else o
    what = "Ints" if nd == 2 else "three Ints"
    if len(k) != nd:
        raise RuntimeError(f"{fname}: kernel_size must either be a single Int or tuple of {what}")
    if len(o) != nd:
        raise RuntimeError(f"{fname}: output_size must either be a single Int or tuple of {what}")
    shape = list(input.shape)
    where = fname if nd == 2 else fname + "_out"
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{where}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {shape}")
    for i in range(1, input.ndim):
        if shape[i] <= 0:
            raise RuntimeError(f"{where}(): Expected input to have non-zero size for non-batch dimensions, but "
                               f"got{shape} with dimension {i} being empty.")
    sp = shape[-nd:]
    if nd == 2:
        for j, word in ((0, "height"), (1, "width")):
            if o[j] + k[j] - 1 > sp[j]:
                raise RuntimeError(f"{fname}(): pool {word} {k[j]} too large relative to input {word} {sp[j]}")
    else:
        for j, word in ((0, "time"), (2, "width"), (1, "height")):
            if not (k[j] <= sp[j] and o[j] + k[j] - 1 < sp[j]):
                raise RuntimeError(f"{where}(): pool {word} {k[j]} too large relative to input {word} {sp[j]}")
    out_shape = shape[:-nd] + list(o)
    if min(o) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(o)}: {out_shape}")
    rs = random_samples
    if rs._data.dtype != input._data.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if rs.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {rs.ndim}")
    batch, channels = (1, shape[0]) if input.ndim == nd + 1 else (shape[0], shape[1])
    if rs.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if rs.shape[1] != channels:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if rs.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {rs.shape[2]}.")
    dt = input._data.dtype
    if int(np.prod(out_shape)) and dt not in _FLOATS:
        raise NotImplementedError(f"\"{fname}_out_frame\" not implemented for '{_tname(dt)}'")
    op = _fractional2 if nd == 2 else _fractional3
    return op(input, rs, k, o)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """``nn.functional.fractional_max_pool2d_with_indices``: always ``(values, indices)``."""
    return _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """2-d fractional max pooling (Graham, 2014) of an (N, C, H, W) or (C, H, W)
    input: ``kernel_size`` windows at pseudo-random steps giving ``output_size``
    (or ``output_ratio`` times the input's size); with ``return_indices``, also
    each maximum's flat index into its H*W plane."""
    r = _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)
    return r if return_indices else r[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """``nn.functional.fractional_max_pool3d_with_indices``: always ``(values, indices)``."""
    return _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """3-d fractional max pooling of an (N, C, T, H, W) or (C, T, H, W) input;
    with ``return_indices``, also each maximum's flat index into its T*H*W volume."""
    r = _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)
    return r if return_indices else r[0]


def _unpool3d_output_size(input, k, s, p, output_size):
    """The output size of 3-d max unpooling (PyTorch's ``_unpool_output_size``)."""
    default = [(input.shape[input.ndim - 3 + d] - 1) * s[d] + k[d] - 2 * p[d] for d in range(len(k))]
    if output_size is None:
        ret = default
    else:
        if len(output_size) == len(k) + 2:
            output_size = output_size[2:]
        if len(output_size) != len(k):
            raise ValueError(f"output_size should be a sequence containing {len(k)} or {len(k) + 2} elements, but "
                             f"it has a length of '{len(output_size)}'")
        for d in range(len(k)):
            lo, hi = default[d] - s[d], default[d] + s[d]
            if not lo < output_size[d] < hi:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
        ret = output_size
    for d in range(len(k)):
        if ret[d] < 0:
            raise ValueError(f"max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={ret[d]}")
    return ret


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool3d`` with its indices: each value written at its
    flat index into its D*H*W volume, zeros elsewhere."""
    k = _expand(kernel_size, 3)
    s = _expand(stride, 3) if stride is not None else k
    p = _expand(padding, 3)
    size = _unpool3d_output_size(input, k, s, p, output_size)
    # (the ATen op's checks, in its order)
    fname = "max_unpool3d"
    if not isinstance(input, Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not isinstance(indices, Tensor):
        raise TypeError(f"{fname}(): argument 'indices' (position 2) must be Tensor, not {type(indices).__name__}")
    size = _int_list(fname, "output_size", 3, list(size))
    s = _int_list(fname, "stride", 4, list(s))
    p = _int_list(fname, "padding", 5, list(p))
    if indices._data.dtype != np.int64:
        raise RuntimeError("elements in indices should be type int64")
    if input.ndim not in (4, 5):
        raise RuntimeError(f"Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with "
                           f"{input.ndim} dimensions.")
    if len(size) != 3:
        raise RuntimeError(f"There should be exactly three elements (depth, height, width) in output_size, but got "
                           f"{len(size)} elements.")
    if len(s) != 3:
        raise RuntimeError(f"There should be exactly three elements (depth, height, width) in stride, but got: "
                           f"{len(s)} elements.")
    if len(p) != 3:
        raise RuntimeError(f"There should be exactly three elements (depth, height, width) in padding, but got: "
                           f"{len(p)} elements.")
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}")
    for i in range(1, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(f"max_unpooling3d_forward_out_cpu(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but got {list(input.shape)} with dimension {i} being empty.")
    if min(s) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(s)}")
    if min(size) < 0:
        raise RuntimeError(f"max_unpooling3d(): output_size must contain non-negative spatial dimensions, but got "
                           f"output_size=({size[0]}, {size[1]}, {size[2]})")
    dt = input._data.dtype
    if input.numel() and int(np.prod(size)) and dt not in _FLOATS:
        raise NotImplementedError(f"\"max_unpool3d\" not implemented for '{_tname(dt)}'")
    return _max_unpool3d(input, indices, tuple(size))
