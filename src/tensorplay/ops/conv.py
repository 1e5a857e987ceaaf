"""Convolution: ``conv1d``/``conv2d``/``conv3d``, ``conv_transpose1d/2d/3d`` and
``convolution`` (PyTorch's ``aten::convolution``), plus ``unfold``/``fold``
(im2col / col2im) as ``torch.nn.functional`` spells them.

Three bilinear maps, each the others' derivative, so that gradients of any
order stay convolutions (and BLAS):

- ``conv(x, w)``: the forward convolution (cross-correlation);
- ``T(g, w)``: its adjoint in ``x``, the transposed convolution (what
  ``conv_transpose2d`` computes, and the input gradient of ``conv``);
- ``W(x, g)``: its adjoint in ``w`` (the weight gradient).

``conv`` and ``T`` are one registry op, ``convolution`` (``transposed`` says
which; node ``ConvolutionBackward0`` as in PyTorch), ``W`` is
``convolution_backward_weight``.  Their vjps (``g`` the incoming gradient,
complex factors conjugated as PyTorch does)::

    conv(x, w):  x <- T(g, w*)        w <- W(x*, g)
    T(g, w):     g <- conv(h, w*)     w <- W(h, g*)
    W(x, g):     x <- T(g*, h)        g <- conv(x*, h)

The kernels lower 1-d and 2-d convolutions to two spatial dimensions (a 1-d
input gets a unit height; 3-d ones take the same route, written for any number
of spatial dimensions in ``_conv_nd_k`` and its kin, without the flat-row
layout) and to one matrix product per group: ``conv`` copies the input's
windows once into a (C*KH*KW, N*OH*OW) column matrix (im2col through a
strided view) and multiplies the weight by it; ``T`` multiplies the
transposed weight by the gradient and adds the columns back into place
(col2im: one strided add per kernel offset); ``W`` multiplies the output
gradient by the column matrix.  Channels first and the batch inside the
columns make each product one large BLAS call (one call per batch element
costs 3-4x more with two BLAS threads).
"""

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._tensor import Tensor
from ._families import BILINEAR, OTHER
from ._registry import autocast_inputs, defop, dispatch, public
from ._util import _tname, is_int as _is_int
from .pointwise import conj
from .pooling import _front, batch_merge_leading
from .._warn import warn as _warn_user

__all__ = ["convolution", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d"]


# ---------------------------------------------------------------- kernels (NumPy, 2 spatial dims)
def _out_len(n, k, s, p, d):
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def _padded(x, p):
    """``x`` with ``p = (ph, pw)`` zeros around its last two dimensions."""
    ph, pw = p
    if not ph and not pw:
        return x
    n, c, h, w = x.shape
    out = np.zeros((n, c, h + 2 * ph, w + 2 * pw), x.dtype)
    out[:, :, ph:ph + h, pw:pw + w] = x
    return out


def _im2col(x, k, out, s, p, d):
    """The windows of ``x`` (N, C, H, W), as a contiguous (C, KH, KW, N, OH, OW)
    array: ``cols[c, i, j, n, a, b] = x_padded[n, c, a*sh + i*dh, b*sw + j*dw]``.
    (Channels first, then the batch: each product below is one large matrix
    product, rather than one per batch element.)"""
    xp = _padded(x, p)
    sn, sc, sh, sw = xp.strides
    view = as_strided(xp, (xp.shape[1], k[0], k[1], xp.shape[0], out[0], out[1]),
                      (sc, d[0] * sh, d[1] * sw, sn, s[0] * sh, s[1] * sw), writeable=False)
    return np.ascontiguousarray(view)


def _col2im(cols, size, s, p, d):
    """The adjoint of ``_im2col``: each entry of (C, KH, KW, N, OH, OW) columns
    added back at its window position of an (N, C, H, W) array of spatial ``size``."""
    c, kh, kw, n, oh, ow = cols.shape
    h, w = size
    hb = max(h + 2 * p[0], (oh - 1) * s[0] + (kh - 1) * d[0] + 1)
    wb = max(w + 2 * p[1], (ow - 1) * s[1] + (kw - 1) * d[1] + 1)
    buf = np.zeros((c, n, hb, wb), cols.dtype)
    hspan, wspan = (oh - 1) * s[0] + 1, (ow - 1) * s[1] + 1
    for i in range(kh):             # one strided add per kernel offset
        for j in range(kw):
            buf[:, :, i * d[0]:i * d[0] + hspan:s[0], j * d[1]:j * d[1] + wspan:s[1]] += cols[:, i, j]
    return np.ascontiguousarray(buf[:, :, p[0]:p[0] + h, p[1]:p[1] + w].transpose(1, 0, 2, 3))


def _channels_first(t, groups):
    """(N, C, H, W) -> (groups, C/groups, N*H*W), contiguous."""
    n, c, h, w = t.shape
    return np.ascontiguousarray(t.transpose(1, 0, 2, 3)).reshape(groups, c // groups, n * h * w)


def _pointwise_kernel(k, s, p, d):
    return k == (1, 1) and s == (1, 1) and p == (0, 0)


# Stride-1 convolutions use "flat rows": the output grid laid out WB wide (the
# padded input's width) instead of OW, so that a kernel offset (i, j) is one
# shift by i*dh*WB + j*dw of a flattened plane.  im2col then copies runs of
# about OH*WB contiguous elements (not OW), and col2im adds such runs (one
# strided add per offset either way, but over long rows).  The WB - OW extra
# columns per row are junk in the forward (cropped) and must meet zeros in the
# products that sum over them: the gradient is zero-padded there, and junk
# times zero is exactly zero when the junk is finite (checked; else the
# plain layout).  Used when the extra columns cost less than they save.
def _flat_rows(s, ow, wb):
    return s == (1, 1) and 2 * wb <= 3 * ow


def _flat_im2col(x, k, out, p, d):
    """(C, KH, KW, N, OH*WB) windows of stride 1: ``cols[c, i, j, n, a*WB + b] =
    x_padded[n, c, a + i*dh, b + j*dw]`` for ``b < OW``; the other columns hold
    other entries of the plane, or zeros at the very end."""
    xp = np.ascontiguousarray(_padded(x, p))
    n, c, hp, wb = xp.shape
    oh, ow = out
    length = (oh - 1) * wb + ow            # (the last window ends at the plane's last element)
    sn, sc, sh, sw = xp.strides
    view = as_strided(xp, (c, k[0], k[1], n, length), (sc, d[0] * sh, d[1] * sw, sn, sw), writeable=False)
    cols = np.empty((c, k[0], k[1], n, oh * wb), x.dtype)
    cols[..., :length] = view
    cols[..., length:] = 0
    return cols


def _flat_grad(g, groups, wb):
    """(N, O, OH, OW) -> (groups, O/groups, N*OH*WB), zero in the columns b >= OW."""
    n, o, oh, ow = g.shape
    gp = np.zeros((o, n, oh, wb), g.dtype)
    gp[..., :ow] = g.transpose(1, 0, 2, 3)
    return gp.reshape(groups, o // groups, n * oh * wb)


def _all_finite(a):
    return a.dtype.kind not in "fc" or bool(np.isfinite(a).all())


def _conv_k(x, w, s, p, d, groups):
    """conv(x, w): (N, C, H, W) * (O, C/groups, KH, KW) -> (N, O, OH, OW)."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh, ow = _out_len(h, kh, s[0], p[0], d[0]), _out_len(wd, kw, s[1], p[1], d[1])
    wb = wd + 2 * p[1]
    if _pointwise_kernel((kh, kw), s, p, d):
        cols, wb = _channels_first(x, groups), ow
    elif _flat_rows(s, ow, wb):
        cols = _flat_im2col(x, (kh, kw), (oh, ow), p, d).reshape(groups, cg * kh * kw, n * oh * wb)
    else:
        cols, wb = _im2col(x, (kh, kw), (oh, ow), s, p, d).reshape(groups, cg * kh * kw, n * oh * ow), ow
    y = np.matmul(w.reshape(groups, o // groups, cg * kh * kw), cols)      # (groups, O/groups, N*OH*WB)
    y = y.reshape(o, n, oh, wb)
    return np.ascontiguousarray((y[..., :ow] if wb != ow else y).transpose(1, 0, 2, 3))


def _flat_col2im(cols, size, p, d):
    """The adjoint of ``_flat_im2col`` (given zeros in the junk columns): (C, KH,
    KW, N, OH*WB) columns added back into an (N, C, *size) array."""
    c, kh, kw, n, length = cols.shape
    h, w = size
    wb = w + 2 * p[1]
    oh = length // wb
    hb = max(h + 2 * p[0], oh + (kh - 1) * d[0])
    buf = np.zeros((c, n, hb * wb), cols.dtype)
    for i in range(kh):                 # one contiguous-run add per kernel offset
        for j in range(kw):
            off = i * d[0] * wb + j * d[1]
            m = min(length, hb * wb - off)       # (what is cut is junk: zeros)
            buf[:, :, off:off + m] += cols[:, i, j, :, :m]
    buf = buf.reshape(c, n, hb, wb)
    return np.ascontiguousarray(buf[:, :, p[0]:p[0] + h, p[1]:p[1] + w].transpose(1, 0, 2, 3))


def _conv_t_k(g, w, s, p, d, groups, size):
    """T(g, w): the transposed convolution, (N, O, OH, OW) -> (N, C, *size)."""
    n, o, oh, ow = g.shape
    _, cg, kh, kw = w.shape
    wm = w.reshape(groups, o // groups, cg * kh * kw).transpose(0, 2, 1)
    wb = size[1] + 2 * p[1]
    if _pointwise_kernel((kh, kw), s, p, d) and tuple(size) == (oh, ow):
        cols = np.matmul(wm, _channels_first(g, groups))
        return np.ascontiguousarray(cols.reshape(groups * cg, n, oh, ow).transpose(1, 0, 2, 3))
    if _flat_rows(s, ow, wb) and wb >= ow + (kw - 1) * d[1] and _all_finite(w):
        cols = np.matmul(wm, _flat_grad(g, groups, wb))                # (groups, Cg*KH*KW, N*OH*WB)
        return _flat_col2im(cols.reshape(groups * cg, kh, kw, n, oh * wb), size, p, d)
    cols = np.matmul(wm, _channels_first(g, groups))        # (groups, C/groups*KH*KW, N*OH*OW)
    return _col2im(cols.reshape(groups * cg, kh, kw, n, oh, ow), size, s, p, d)


def _conv_w_k(x, g, k, s, p, d, groups):
    """W(x, g): the weight gradient, (O, C/groups, KH, KW)."""
    n, c, h, wd = x.shape
    _, o, oh, ow = g.shape
    cg = c // groups
    wb = wd + 2 * p[1]
    if _pointwise_kernel(k, s, p, d) and (h, wd) == (oh, ow):
        cols, gm = _channels_first(x, groups), _channels_first(g, groups)
    elif _flat_rows(s, ow, wb) and _all_finite(x):
        cols = _flat_im2col(x, k, (oh, ow), p, d).reshape(groups, cg * k[0] * k[1], n * oh * wb)
        gm = _flat_grad(g, groups, wb)
    else:
        cols = _im2col(x, k, (oh, ow), s, p, d).reshape(groups, cg * k[0] * k[1], n * oh * ow)
        gm = _channels_first(g, groups)
    gw = np.matmul(gm, cols.transpose(0, 2, 1))    # (groups, O/groups, Cg*KH*KW)
    return gw.reshape(o, cg, k[0], k[1])


# ---------------------------------------------------------------- kernels (NumPy, 3 spatial dims)
# The same three maps over (N, C, D, H, W), with the windows of every spatial
# dimension taken by one strided view (no flat-row layout): written for any
# number of spatial dimensions, used for three.
def _padded_nd(x, p):
    """``x`` with ``p[i]`` zeros on both sides of spatial dimension ``i``."""
    if not any(p):
        return x
    out = np.zeros(x.shape[:2] + tuple(n + 2 * q for n, q in zip(x.shape[2:], p)), x.dtype)
    out[(slice(None), slice(None)) + tuple(slice(q, q + n) for n, q in zip(x.shape[2:], p))] = x
    return out


def _im2col_nd(x, k, out, s, p, d):
    """(C, *k, N, *out) windows: ``cols[c, *i, n, *a] = x_padded[n, c, *(a*s + i*d)]``."""
    xp = _padded_nd(x, p)
    sn, sc, *ss = xp.strides
    shape = (xp.shape[1],) + tuple(k) + (xp.shape[0],) + tuple(out)
    strides = (sc,) + tuple(d_ * st for d_, st in zip(d, ss)) + (sn,) + tuple(s_ * st for s_, st in zip(s, ss))
    return np.ascontiguousarray(as_strided(xp, shape, strides, writeable=False))


def _col2im_nd(cols, size, s, p, d):
    """The adjoint of ``_im2col_nd``: (C, *k, N, *out) columns added back into an
    (N, C, *size) array (one strided add per kernel offset)."""
    nd = len(size)
    c, k, n, out = cols.shape[0], cols.shape[1:1 + nd], cols.shape[1 + nd], cols.shape[2 + nd:]
    big = tuple(max(m + 2 * q, (o - 1) * s_ + (kk - 1) * d_ + 1)
                for m, q, o, s_, kk, d_ in zip(size, p, out, s, k, d))
    buf = np.zeros((c, n) + big, cols.dtype)
    for idx in np.ndindex(*k):
        sl = tuple(slice(i * d_, i * d_ + (o - 1) * s_ + 1, s_) for i, d_, o, s_ in zip(idx, d, out, s))
        buf[(slice(None), slice(None)) + sl] += cols[(slice(None),) + idx]
    buf = buf[(slice(None), slice(None)) + tuple(slice(q, q + m) for m, q in zip(size, p))]
    return np.ascontiguousarray(np.swapaxes(buf, 0, 1))


def _channels_first_nd(t, groups):
    """(N, C, *spatial) -> (groups, C/groups, N*prod(spatial)), contiguous."""
    c = t.shape[1]
    return np.ascontiguousarray(np.swapaxes(t, 0, 1)).reshape(groups, c // groups, -1)


def _conv_nd_k(x, w, s, p, d, groups):
    n = x.shape[0]
    o, cg, *k = w.shape
    out = tuple(_out_len(m, kk, s_, q, d_) for m, kk, s_, q, d_ in zip(x.shape[2:], k, s, p, d))
    kk = int(np.prod(k))
    cols = _im2col_nd(x, k, out, s, p, d).reshape(groups, cg * kk, -1)
    y = np.matmul(w.reshape(groups, o // groups, cg * kk), cols).reshape((o, n) + out)
    return np.ascontiguousarray(np.swapaxes(y, 0, 1))


def _conv_t_nd_k(g, w, s, p, d, groups, size):
    n, o, *gout = g.shape
    _, cg, *k = w.shape
    kk = int(np.prod(k))
    wm = w.reshape(groups, o // groups, cg * kk).transpose(0, 2, 1)
    cols = np.matmul(wm, _channels_first_nd(g, groups))
    return _col2im_nd(cols.reshape((groups * cg,) + tuple(k) + (n,) + tuple(gout)), tuple(size), s, p, d)


def _conv_w_nd_k(x, g, k, s, p, d, groups):
    o, out = g.shape[1], tuple(g.shape[2:])
    cg = x.shape[1] // groups
    kk = int(np.prod(k))
    cols = _im2col_nd(x, k, out, s, p, d).reshape(groups, cg * kk, -1)
    gw = np.matmul(_channels_first_nd(g, groups), cols.transpose(0, 2, 1))
    return gw.reshape((o, cg) + tuple(k))


def _two_d(t, nd):
    """An (N, C, L) array as (N, C, 1, L) (a view): the kernels are 2-d."""
    return t if nd == 2 else t[:, :, None, :]


def _transposed_size(size, k, s, p, d, op):
    return tuple((n - 1) * s_ - 2 * p_ + d_ * (k_ - 1) + op_ + 1
                 for n, k_, s_, p_, d_, op_ in zip(size, k, s, p, d, op))


def _convolution_k(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                   groups):
    nd = weight.ndim - 2
    if nd == 3:
        s, p, d = tuple(stride), tuple(padding), tuple(dilation)
        if transposed:
            y = _conv_t_nd_k(input, weight, s, p, d, groups,
                             _transposed_size(input.shape[2:], weight.shape[2:], s, p, d, output_padding))
        else:
            y = _conv_nd_k(input, weight, s, p, d, groups)
        if bias is not None:
            y += bias.reshape(1, -1, 1, 1, 1)
        return y
    x, w = _two_d(input, nd), _two_d(weight, nd)
    s, d = (1,) * (2 - nd) + tuple(stride), (1,) * (2 - nd) + tuple(dilation)
    p = (0,) * (2 - nd) + tuple(padding)
    if transposed:
        op = (0,) * (2 - nd) + tuple(output_padding)
        y = _conv_t_k(x, w, s, p, d, groups, _transposed_size(x.shape[2:], w.shape[2:], s, p, d, op))
    else:
        y = _conv_k(x, w, s, p, d, groups)
    if bias is not None:
        y += bias.reshape(1, -1, 1, 1)
    return y if nd == 2 else y[:, :, 0, :]


def _convolution_w_k(input, grad, kernel_size, stride, padding, dilation, groups):
    nd = len(kernel_size)
    if nd == 3:
        return _conv_w_nd_k(input, grad, tuple(kernel_size), tuple(stride), tuple(padding), tuple(dilation),
                            groups)
    pre = (1,) * (2 - nd)
    gw = _conv_w_k(_two_d(input, nd), _two_d(grad, nd), pre + tuple(kernel_size), pre + tuple(stride),
                   (0,) * (2 - nd) + tuple(padding), pre + tuple(dilation), groups)
    return gw if nd == 2 else gw[:, :, 0, :]


# ---------------------------------------------------------------- the ops and their derivatives
def _output_padding(in_size, out_size, k, s, p, d):
    """The ``output_padding`` that makes the transposed convolution of an
    ``out_size`` gradient come back at ``in_size`` (the rows a stride skipped)."""
    return tuple(n - ((m - 1) * s_ - 2 * p_ + d_ * (k_ - 1) + 1)
                 for n, m, k_, s_, p_, d_ in zip(in_size, out_size, k, s, p, d))


def _fit(t, shape):
    """``t`` cut down to ``shape`` along its spatial dimensions (a transposed
    convolution with ``output_padding >= stride`` maps to more positions than
    its input had; those extra ones correspond to nothing)."""
    for i in range(2, t.ndim):
        if t.shape[i] != shape[i]:
            t = t.narrow(i, 0, shape[i])
    return t


def _zeros_like_pad(padding):
    return (0,) * len(padding)


def _conv_input_vjp(g, input, weight, stride, padding, dilation, transposed, groups):
    w = conj(weight)
    k = tuple(weight.shape[2:])
    if not transposed:          # conv's adjoint in x is T, sized back to the input
        op = _output_padding(input.shape[2:], g.shape[2:], k, stride, padding, dilation)
        return _convolution(g, w, None, stride, padding, dilation, True, op, groups)
    return _fit(_convolution(g, w, None, stride, padding, dilation, False, _zeros_like_pad(padding),
                             groups), input.shape)


def _conv_weight_vjp(g, input, weight, stride, padding, dilation, transposed, groups):
    k = tuple(weight.shape[2:])
    if not transposed:
        return _convolution_w(conj(input), g, k, stride, padding, dilation, groups)
    return _convolution_w(g, conj(input), k, stride, padding, dilation, groups)


def _bias_vjp(g):
    return g.sum([0] + list(range(2, g.ndim)))


def _conv_jvp(op, args, tangents, result):
    """Bilinear in (input, weight), plus the bias."""
    x, w, _, *rest = args
    tx, tw, tb = tangents
    out = None
    if tx is not None:
        out = _convolution(tx, w, None, *rest)
    if tw is not None:
        t = _convolution(x, tw, None, *rest)
        out = t if out is None else out + t
    if tb is not None:
        tb = tb.reshape((1, -1) + (1,) * (result.ndim - 2))
        out = tb.expand(result.shape) if out is None else out + tb
    return out


# ---------------------------------------------------------------- batching (vmap)
def _batch_groups(x, bx, size):
    """(B, N, C, ...) -> (N, B*C, ...): the vmap batch folded into the channels."""
    x = _front(x, bx, size).movedim(0, 1)
    return x.reshape((x.shape[0], size * x.shape[2]) + tuple(x.shape[3:]))


def _batch_weight(w, bw, size):
    w = _front(w, bw, size)
    return w.reshape((size * w.shape[1],) + tuple(w.shape[2:]))


def _batch_conv(op, args, bdims):
    """Only the input batched: the batch merged into N.  A batched weight or
    bias: a grouped convolution with ``groups * B`` groups, sample ``b``'s
    channels in group block ``b`` (an unbatched side is repeated)."""
    x, w, b, stride, padding, dilation, transposed, output_padding, groups = args
    bx, bw, bb = bdims[:3]
    size = next(a.shape[d] for a, d in zip((x, w, b), bdims) if d is not None)
    if bw is None and bb is None:
        x = _front(x, bx, size)
        out = dispatch(op, [x.reshape((size * x.shape[1],) + tuple(x.shape[2:]))] + list(args[1:]))
        return out.reshape((size, x.shape[1]) + tuple(out.shape[1:])), 0
    xs = _batch_groups(x, bx, size)
    ws = _batch_weight(w, bw, size)
    bs = None if b is None else _batch_weight(b, bb, size)
    out = dispatch(op, [xs, ws, bs, stride, padding, dilation, transposed, output_padding, groups * size])
    return out.reshape((out.shape[0], size, out.shape[1] // size) + tuple(out.shape[2:])), 1


def _batch_conv_w(op, args, bdims):
    """The weight gradient of the grouped convolution that batches ``_batch_conv``."""
    x, g, kernel_size, stride, padding, dilation, groups = args
    size = next(a.shape[d] for a, d in zip((x, g), bdims) if d is not None)
    out = dispatch(op, [_batch_groups(x, bdims[0], size), _batch_groups(g, bdims[1], size), kernel_size, stride,
                        padding, dilation, groups * size])
    return out.reshape((size, out.shape[0] // size) + tuple(out.shape[1:])), 0


_convolution = defop(
    "convolution", _convolution_k,
    {"input": _conv_input_vjp, "weight": _conv_weight_vjp, "bias": _bias_vjp},
    n_in=3, family=OTHER, jvp=_conv_jvp, batch=_batch_conv, node_name="ConvolutionBackward0", method=False)


def _w_input_vjp(h, input, grad, stride, padding, dilation, groups):
    k = tuple(h.shape[2:])
    op = _output_padding(input.shape[2:], grad.shape[2:], k, stride, padding, dilation)
    return _convolution(conj(grad), h, None, stride, padding, dilation, True, op, groups)


def _w_grad_vjp(h, input, grad, stride, padding, dilation, groups):
    return _fit(_convolution(conj(input), h, None, stride, padding, dilation, False,
                             _zeros_like_pad(padding), groups), grad.shape)


_convolution_w = defop(
    "convolution_backward_weight", _convolution_w_k,
    {"input": _w_input_vjp, "grad": _w_grad_vjp},
    n_in=2, family=BILINEAR, batch=_batch_conv_w, node_name="ConvolutionBackwardBackward0", method=False)


# ---------------------------------------------------------------- argument checks (PyTorch's words)
_SIG = {
    "conv": " * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of "
            "ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor "
            "weight, Tensor bias = None, tuple of ints stride = 1, str padding = \"valid\", tuple of "
            "ints dilation = 1, int groups = 1)\n",
    "conv_transpose": " * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, "
                      "tuple of ints padding = 0, tuple of ints output_padding = 0, int groups = 1, "
                      "tuple of ints dilation = 1)\n",
}


def _invalid_args(fname, sig, args, kwargs):
    def tname(v):
        return "Tensor" if isinstance(v, Tensor) else type(v).__name__
    got = ", ".join([tname(a) for a in args] + [f"{k}={tname(v)}" for k, v in kwargs.items()])
    return TypeError(f"{fname}() received an invalid combination of arguments - got ({got}), but "
                     f"expected one of:\n{_SIG[sig]}")


def _int_list(v, n):
    """A "tuple of ints" argument as PyTorch's parser takes it: an int stands for
    ``n`` copies, a one-element sequence too; None if it is not one."""
    if _is_int(v):
        return (int(v),) * n
    if isinstance(v, (tuple, list)) and all(_is_int(e) for e in v):
        v = tuple(int(e) for e in v)
        return v * n if len(v) == 1 else v
    return None


def _expand_param(v, name, k):
    if len(v) == 1:
        return v * k
    if len(v) != k:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {k} values to "
                           f"match the convolution dimensions, but got {name}={list(v)}")
    return v


def _torch_type(t):
    return f"torch.{_tname(t._data.dtype)}Tensor"


def _ctype(t):
    return {"float32": "float", "float64": "double", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>", "int64": "long int", "int32": "int"}.get(
        str(t._data.dtype), str(t._data.dtype))


def _check(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """PyTorch's ``convolution`` checks, in its order; returns the expanded params."""
    k = weight.ndim
    nd = k - 2
    stride = _expand_param(stride, "stride", nd)
    padding = _expand_param(padding, "padding", nd)
    dilation = _expand_param(dilation, "dilation", nd)
    output_padding = _expand_param(output_padding, "output_padding", nd) if transposed else (0,) * nd
    if any(v <= 0 for v in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(v < 0 for v in padding):
        raise RuntimeError("negative padding is not supported")
    if any(v < 0 for v in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(v <= 0 for v in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    xs, ws = list(input.shape), list(weight.shape)
    if input.ndim != k:
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight {ws}, but got "
                           f"{input.ndim}-dimensional input of size {xs} instead")
    if nd not in (1, 2, 3):
        raise NotImplementedError(f"tensorplay: convolutions over {nd} spatial dimensions are not "
                                  f"implemented (1, 2 or 3 are)")
    if ws[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {ws} instead")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at "
                           f"dimension 0, but got weight of size [{ws}] instead")
    if not transposed:
        if xs[1] != ws[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input{xs} to have "
                               f"{ws[1] * groups} channels, but got {xs[1]} channels instead")
        padded = [n + 2 * p for n, p in zip(xs[2:], padding)]
        kern = [d * (n - 1) + 1 for n, d in zip(ws[2:], dilation)]
        if any(a < b for a, b in zip(padded, kern)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}"
                               f"). Kernel size: ({' x '.join(map(str, kern))}). Kernel size can't be "
                               f"greater than actual input size")
        if bias is not None and (bias.ndim != 1 or bias.shape[0] != ws[0]):
            raise RuntimeError(f"Given weight of size {ws}, expected bias to be 1-dimensional with "
                               f"{ws[0]} elements, but got bias of size {list(bias.shape)} instead")
    else:
        if xs[1] != ws[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input{xs} to have "
                               f"{ws[0]} channels, but got {xs[1]} channels instead")
        if bias is not None and (bias.ndim != 1 or bias.shape[0] != ws[1] * groups):
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected bias to be "
                               f"1-dimensional with {ws[1] * groups} elements, but got bias of size "
                               f"{list(bias.shape)} instead")
        if any(o >= s and o >= d for o, s, d in zip(output_padding, stride, dilation)) and nd == 3:
            dims = ("depth", "height", "width")
            raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(
                f"{what}_{dim}: {v}" for what, vals in (("output_padding", output_padding), ("stride", stride),
                                                         ("dilation", dilation)) for dim, v in zip(dims, vals)))
        if any(o >= s and o >= d for o, s, d in zip(output_padding, stride, dilation)):
            pre = (0,) * (2 - nd)
            oh, ow = pre + output_padding
            sh, sw = (1,) * (2 - nd) + stride
            dh, dw = (1,) * (2 - nd) + dilation
            raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got "
                               f"output_padding_height: {oh} output_padding_width: {ow} stride_height: "
                               f"{sh} stride_width: {sw} dilation_height: {dh} dilation_width: {dw}")
        out = _transposed_size(xs[2:], ws[2:], stride, padding, dilation, output_padding)
        if any(n <= 0 for n in out):
            pre = [1] * (2 - nd)
            raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, pre + xs[2:]))}). "
                               f"Calculated output size per channel: "
                               f"({' x '.join(map(str, pre + list(out)))}). Output size is too small")
    wt, xt = weight._data.dtype, input._data.dtype
    if wt != xt:
        if xt == np.float32:
            raise RuntimeError(f"Input type ({_torch_type(input)}) and weight type "
                               f"({_torch_type(weight)}) should be the same or input should be a MKLDNN "
                               f"tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {_tname(xt)} but found {_tname(wt)}")
    if bias is not None and bias._data.dtype != xt:
        raise RuntimeError(f"Input type ({_ctype(input)}) and bias type ({_ctype(bias)}) should be the "
                           f"same")
    if xt == np.bool_:
        kernel = ("slow_conv_transpose3d_out_cpu" if transposed else "compute_columns3d") if nd == 3 else \
            "slow_conv2d_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    return stride, padding, dilation, output_padding


@public(method=False)
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """PyTorch's ``torch.convolution``: every convolution, forward or transposed."""
    names = ("stride", "padding", "dilation", "output_padding")
    params = []
    for pos, (name, v) in enumerate(zip(names, (stride, padding, dilation, output_padding))):
        t = _int_list(v, 1) if isinstance(v, (list, tuple)) else None
        if t is None:
            raise TypeError(f"convolution(): argument '{name}' (position {pos + 4 if pos < 3 else 8}) "
                            f"must be tuple of ints, not {type(v).__name__}")
        params.append(t)
    for i, (nm, v) in enumerate((("input", input), ("weight", weight))):
        if not isinstance(v, Tensor):
            raise TypeError(f"convolution(): argument '{nm}' (position {i + 1}) must be Tensor, not "
                            f"{type(v).__name__}")
    input, weight, bias = autocast_inputs("convolution", input, weight, bias)
    s, p, d, op = _check(input, weight, bias, *params[:3], bool(transposed), params[3], int(groups))
    return _convolution(input, weight, bias, s, p, d, bool(transposed), op, int(groups))


def _same_padding(fname, k, dilation, stride):
    """``padding='same'``: the total ``d*(k-1)`` per dimension, split with the
    extra one (if odd) on the far side, as PyTorch does."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = [d * (n - 1) for n, d in zip(k, dilation)]
    if any(t % 2 for t in total):
        _warn_user("Using padding='same' with even kernel lengths and odd dilation may require a "
                   "zero-padded copy of the input be created")
    return tuple(t // 2 for t in total), [t % 2 for t in total]


def _batched_input(fname, nd, input):
    """An (N, C, *spatial) input, and whether it came without N."""
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {fname}, but "
                           f"got input of size: {list(input.shape)}")
    unbatched = input.ndim == nd + 1
    return (input.unsqueeze(0) if unbatched else input), unbatched


def _conv_nd(fname, nd, input, weight, bias, stride, padding, dilation, groups):
    def invalid():
        return _invalid_args(fname, "conv", (input, weight), _nondefault(
            bias=bias, stride=stride, padding=padding, dilation=dilation, groups=groups))
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor) or \
            (bias is not None and not isinstance(bias, Tensor)):
        raise invalid()
    s, d = _int_list(stride, nd), _int_list(dilation, nd)
    p = padding if isinstance(padding, str) else _int_list(padding, nd)
    if s is None or d is None or p is None or not _is_int(groups):
        raise invalid()
    input, unbatched = _batched_input(fname, nd, input)
    extra = None
    if isinstance(p, str):
        if p == "valid":
            p = (0,) * nd
        elif p == "same":
            if weight.ndim != nd + 2:   # (let convolution's checks word the mismatch)
                p = (0,) * nd
            else:
                p, extra = _same_padding(fname, tuple(weight.shape[2:]), _expand_param(d, "dilation", nd),
                                         _expand_param(s, "stride", nd))
        else:
            raise RuntimeError(f"Invalid padding string: '{p}'")
    if extra is not None and any(extra):
        from .resample import constant_pad_nd
        pads = []
        for e in reversed(extra):       # the odd one out goes on the far side
            pads += [0, e]
        input = constant_pad_nd(input, pads)
    input, weight, bias = autocast_inputs("convolution", input, weight, bias)
    s, p, d, op = _check(input, weight, bias, s, p, d, False, (0,), groups)
    out = _convolution(input, weight, bias, s, p, d, False, op, groups)
    return out.squeeze(0) if unbatched else out


def _conv_transpose_nd(fname, nd, input, weight, bias, stride, padding, output_padding, groups, dilation):
    def invalid():
        return _invalid_args(fname, "conv_transpose", (input, weight), _nondefault(
            bias=bias, stride=stride, padding=padding, output_padding=output_padding, groups=groups,
            dilation=dilation))
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor) or \
            (bias is not None and not isinstance(bias, Tensor)):
        raise invalid()
    if isinstance(padding, str):
        raise TypeError(f"{fname}(): argument 'padding' must be tuple of ints, not str")
    params = [_int_list(v, nd) for v in (stride, padding, output_padding, dilation)]
    if any(v is None for v in params) or not _is_int(groups):
        raise invalid()
    s, p, op, d = params
    input, unbatched = _batched_input(fname, nd, input)
    input, weight, bias = autocast_inputs("convolution", input, weight, bias)
    s, p, d, op = _check(input, weight, bias, s, p, d, True, op, groups)
    out = _convolution(input, weight, bias, s, p, d, True, op, groups)
    return out.squeeze(0) if unbatched else out


@public(method=False)
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution (cross-correlation) over an (N, C, L) or (C, L) input."""
    return _conv_nd("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


@public(method=False)
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d convolution (cross-correlation) over an (N, C, H, W) or (C, H, W) input.

    >>> import tensorplay as tp
    >>> x = tp.ones(1, 1, 4, 4); w = tp.ones(1, 1, 3, 3)
    >>> tp.conv2d(x, w, padding=1)[0, 0, 0]
    tensor([4., 6., 6., 4.])
    """
    return _conv_nd("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


@public(method=False)
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d convolution (cross-correlation) over an (N, C, D, H, W) or (C, D, H, W) input."""
    return _conv_nd("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


@public(method=False)
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """1-d transposed convolution (the adjoint of ``conv1d`` in its input)."""
    return _conv_transpose_nd("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


@public(method=False)
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """2-d transposed convolution (the adjoint of ``conv2d`` in its input)."""
    return _conv_transpose_nd("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


@public(method=False)
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """3-d transposed convolution (the adjoint of ``conv3d`` in its input)."""
    return _conv_transpose_nd("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


_DEFAULTS = {"bias": None, "stride": 1, "padding": 0, "dilation": 1, "groups": 1, "output_padding": 0}


def _nondefault(**kw):
    """The arguments a call gave other than their defaults (for the TypeError's "got (...)")."""
    return {k: v for k, v in kw.items() if v is not _DEFAULTS[k] and not (
        type(v) is int and type(_DEFAULTS[k]) is int and v == _DEFAULTS[k])}


# ---------------------------------------------------------------- unfold / fold (im2col / col2im)
def _unfold_k(x, kernel_size, dilation, padding, stride):
    if x.dtype.kind in "iu":
        raise NotImplementedError(f"\"im2col_out_cpu\" not implemented for '{_tname(x.dtype)}'")
    xb = x if x.ndim == 4 else x[None]
    n, c, h, w = xb.shape
    out = tuple(_out_len(m, k, s, p, d) for m, k, s, p, d in zip((h, w), kernel_size, stride, padding,
                                                                   dilation))
    cols = _im2col(xb, kernel_size, out, stride, padding, dilation)       # (C, KH, KW, N, OH, OW)
    cols = np.ascontiguousarray(np.moveaxis(cols.reshape(c * kernel_size[0] * kernel_size[1], n,
                                                         out[0] * out[1]), 1, 0))
    return cols if x.ndim == 4 else cols[0]


def _fold_k(x, output_size, kernel_size, dilation, padding, stride):
    if x.dtype.kind in "iu":
        raise NotImplementedError(f"\"col2im_out_cpu\" not implemented for '{_tname(x.dtype)}'")
    xb = x if x.ndim == 3 else x[None]
    n, ckk, _ = xb.shape
    kh, kw = kernel_size
    out = tuple(_out_len(m, k, s, p, d) for m, k, s, p, d in zip(output_size, kernel_size, stride, padding,
                                                                   dilation))
    cols = np.moveaxis(xb.reshape(n, ckk, out[0], out[1]), 0, 1).reshape(ckk // (kh * kw), kh, kw, n,
                                                                            out[0], out[1])
    r = _col2im(cols, output_size, stride, padding, dilation)
    return r if x.ndim == 3 else r[0]


_unfold = defop(
    "im2col", _unfold_k,
    {"x": lambda g, x, kernel_size, dilation, padding, stride:
     _fold(g, tuple(x.shape[-2:]), kernel_size, dilation, padding, stride)},
    meta=("x",), family=OTHER, linear=True, node_name="Im2ColBackward0", method=False,
    batch=batch_merge_leading)

_fold = defop(
    "col2im", _fold_k,
    {"x": lambda g, kernel_size, dilation, padding, stride: _unfold(g, kernel_size, dilation, padding, stride)},
    family=OTHER, linear=True, node_name="Col2ImBackward0", method=False, batch=batch_merge_leading)


def _fold_args(fname, kernel_size, dilation, padding, stride):
    out = []
    for name, pos, v in (("kernel_size", 2, kernel_size), ("dilation", 3, dilation), ("padding", 4, padding),
                         ("stride", 5, stride)):
        t = _int_list(v, 2)
        if t is None:
            bad = v if not isinstance(v, (tuple, list)) else next(e for e in v if not _is_int(e))
            at = 0 if not isinstance(v, (tuple, list)) else list(v).index(bad)
            raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be tuple of ints, but found "
                            f"element of type {type(bad).__name__} at pos {at}")
        n = len(v) if isinstance(v, (tuple, list)) else len(t)     # (a one-element list is not spread)
        if n != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {n}")
        out.append(t)
    k, d, p, s = out
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {k[0]} "
                           f"kernel_width: {k[1]}")
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {s[0]} "
                           f"stride_width: {s[1]}")
    if min(p) < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {p[0]} pad_width: {p[1]}")
    if min(d) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {d[0]} "
                           f"dilation_width: {d[1]}")
    return k, d, p, s


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extracts sliding local blocks (im2col): (N, C, H, W) -> (N, C*kh*kw, L)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"unfold(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    k, d, p, s = _fold_args("im2col", kernel_size, dilation, padding, stride)
    shape = list(input.shape)
    if input.ndim == 2 or input.ndim == 1:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-input.ndim}, "
                         f"{input.ndim - 1}], but got 2)")
    if input.ndim not in (3, 4) or any(m == 0 for m in shape[-3:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {shape}")
    blocks = [_out_len(m, kk, ss, pp, dd) for m, kk, ss, pp, dd in zip(shape[-2:], k, s, p, d)]
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size ({shape[-2]}, {shape[-1]}), kernel_size=({k[0]}, "
                           f"{k[1]}), dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), calculated shape "
                           f"of the array of sliding blocks as ({blocks[0]}, {blocks[1]}), but its components "
                           f"must be at least one.")
    return _unfold(input, k, d, p, s)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Combines sliding local blocks into a tensor (col2im), summing overlaps:
    (N, C*kh*kw, L) -> (N, C, *output_size)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"fold(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    size = _int_list(output_size, 2)
    if size is None:
        raise TypeError(f"col2im(): argument 'output_size' (position 2) must be tuple of ints, not "
                        f"{type(output_size).__name__}")
    n = len(output_size) if isinstance(output_size, (tuple, list)) else len(size)
    if n != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size {n}")
    k, d, p, s = _fold_args("col2im", kernel_size, dilation, padding, stride)
    shape = list(input.shape)
    if input.ndim not in (2, 3) or any(m == 0 for m in shape[-2:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                           f"non-zero dimensions for input, but got: {shape}")
    if shape[-2] % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of "
                           f"kernel_size, but got input.size(1)={shape[-2]} and kernel_size=({k[0]}, {k[1]}).")
    blocks = [_out_len(m, kk, ss, pp, dd) for m, kk, ss, pp, dd in zip(size, k, s, p, d)]
    if shape[-1] != blocks[0] * blocks[1] or min(blocks) < 1:
        raise RuntimeError(f"Given output_size=({size[0]}, {size[1]}), kernel_size=({k[0]}, {k[1]}), "
                           f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), "
                           f"expected size of input's dimension 2 to match the calculated number of sliding "
                           f"blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={shape[-1]}.")
    return _fold(input, size, k, d, p, s)
