"""Discrete Fourier transforms: the three registry ops PyTorch builds its
``torch.fft`` functions on, and those functions (``tensorplay.fft`` exports
them).

- ``_fft_c2c(x, dim, normalization, forward)``: complex to complex over the
  dimensions ``dim``, forward (``exp(-2 pi i jk / n)``) or backward
  (``exp(+...)``);
- ``_fft_r2c(x, dim, normalization, onesided)``: a real input's forward
  transform, all of it or (``onesided``) the first ``n // 2 + 1`` entries of
  the last dimension in ``dim`` (the rest follow by Hermitian symmetry);
- ``_fft_c2r(x, dim, normalization, last_dim_size)``: the backward transform
  of a one-sided Hermitian spectrum to a real signal whose last transformed
  dimension has ``last_dim_size`` entries.  The imaginary parts of the
  entries that a real signal's spectrum has real (the first, and for an even
  size the last, along that dimension) are ignored, as PyTorch's and NumPy's
  kernels ignore them.

``normalization`` is PyTorch's: 0 none, 1 ``1/sqrt(n)``, 2 ``1/n``, with ``n``
the number of points of the signal (for c2r, the output's), independent of the
direction.

Every transform is linear over the reals, so each forward-mode tangent is the
op applied to the tangent (``linear=True``) and each vjp is the adjoint
transform: c2c's is c2c in the other direction with the same scaling; r2c's
is the real part of the backward c2c of the gradient, zero-padded back to the
full length first when onesided (the entries it dropped had no part in the
output); c2r's is the onesided r2c of the gradient with the entries whose
mirror images were filled in by symmetry counted twice (those from 1 to
``n - (n // 2 + 1)``), which also makes the gradient of the ignored imaginary
parts zero.  All are transforms again, so double backward works.

The public functions do what PyTorch's composites do around them: check the
arguments (with PyTorch's messages), promote integers to the default dtype
and refuse half precision (PyTorch's CPU kernels do), crop or zero-pad each
transformed dimension to the requested size (``slice``, ``constant_pad_nd``),
and conjugate for ``hfft``/``ihfft``.
"""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _wrap
from .._out import write_out
from ._families import OTHER, batch_dims
from ._registry import autocast_inputs, defop
from ._util import _tname
from .core import real as _real
from .indexing import _slice
from .pointwise import conj as _conj
from .resample import constant_pad_nd as _pad
from .shape import roll as _roll

__all__ = []        # (tensorplay.fft exports the functions; nothing at the top level)

# the ``norm`` NumPy takes for a transform of each direction scaled by PyTorch's mode
_NP_FORWARD = ("backward", "ortho", "forward")
_NP_BACKWARD = ("forward", "ortho", "backward")


def _complex_of(dt):
    return np.dtype(np.complex64) if dt in (np.float32, np.complex64) else np.dtype(np.complex128)


def _real_of(dt):
    return np.dtype(np.float32) if dt in (np.float32, np.complex64) else np.dtype(np.float64)


def _fit(r, dt):
    """NumPy's result in the op's dtype (NumPy < 2 computes in double), C-contiguous."""
    return np.ascontiguousarray(r, dtype=dt)


# ---------------------------------------------------------------- the registry ops
def _c2c_k(x, dim, normalization, forward):
    dim = tuple(dim)
    ct = _complex_of(x.dtype)       # (a real gradient reaching the vjp: complex all the same)
    if not dim:
        return x.astype(ct)
    if x.size == 0:
        return np.zeros(x.shape, ct)
    f = np.fft.fftn if forward else np.fft.ifftn
    norm = (_NP_FORWARD if forward else _NP_BACKWARD)[normalization]
    return _fit(f(x, axes=dim, norm=norm), ct)


def _r2c_k(x, dim, normalization, onesided):
    dim = tuple(dim)
    ct = _complex_of(x.dtype)
    if x.size == 0:
        shape = list(x.shape)
        if onesided:
            shape[dim[-1]] = shape[dim[-1]] // 2 + 1
        return np.zeros(shape, ct)
    f = np.fft.rfftn if onesided else np.fft.fftn
    return _fit(f(x, axes=dim, norm=_NP_FORWARD[normalization]), ct)


def _c2r_k(x, dim, normalization, last_dim_size):
    dim = tuple(dim)
    rt = _real_of(x.dtype)
    shape = list(x.shape)
    shape[dim[-1]] = last_dim_size
    if x.size == 0:
        return np.zeros(shape, rt)
    s = [x.shape[d] for d in dim[:-1]] + [last_dim_size]
    return _fit(np.fft.irfftn(x, s=s, axes=dim, norm=_NP_BACKWARD[normalization]), rt)


def _c2c_vjp(g, dim, normalization, forward):
    return _fft_c2c(g, dim, normalization, not forward)


def _r2c_vjp(g, x, dim, normalization, onesided):
    if onesided:
        last = dim[-1]
        missing = x.shape[last] - g.shape[last]
        if missing > 0:         # the dropped half of the spectrum: no part in the output
            pads = [0] * (2 * g.ndim)
            pads[2 * (g.ndim - 1 - last) + 1] = missing
            g = _pad(g, pads)
    if not g.is_complex():
        g = g.to(D.from_numpy_dtype(_complex_of(g._data.dtype)))
    return _real(_fft_c2c(g, dim, normalization, False))


def _c2r_vjp(g, dim, normalization):
    gi = _fft_r2c(g, dim, normalization, True)
    last = dim[-1]
    m = gi.shape[last]
    twice = g.shape[last] - m       # entries 1..twice stand for themselves and their mirror images
    if twice > 0:
        w = np.ones(m, _real_of(gi._data.dtype))
        w[1:1 + twice] = 2
        gi = gi * _wrap(w.reshape((m,) + (1,) * (gi.ndim - 1 - last)))
    return gi


_fft_c2c = defop("_fft_c2c", _c2c_k, {"x": _c2c_vjp}, family=OTHER, batch=batch_dims, dims=("dim",),
                 linear=True, upcast=False, method=False, node_name="FftC2CBackward0")
_fft_r2c = defop("_fft_r2c", _r2c_k, {"x": _r2c_vjp}, meta=("x",), family=OTHER, batch=batch_dims,
                 dims=("dim",), linear=True, upcast=False, method=False, node_name="FftR2CBackward0")
_fft_c2r = defop("_fft_c2r", _c2r_k, {"x": _c2r_vjp}, family=OTHER, batch=batch_dims, dims=("dim",),
                 linear=True, upcast=False, method=False, node_name="FftC2RBackward0")


# ---------------------------------------------------------------- argument handling
def _norm_mode(norm, forward):
    """PyTorch's normalization mode for ``norm`` on a transform of this direction."""
    if norm is None or norm == "backward":
        return 0 if forward else 2
    if norm == "forward":
        return 2 if forward else 0
    if norm == "ortho":
        return 1
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _input(fname, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"fft_{fname}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


def _int_arg(fname, name, v, optional=True):
    if isinstance(v, Tensor) and v._data.size == 1 and v._data.dtype.kind in "iu":
        return int(v._data.reshape(()))     # (an integer tensor of one element: PyTorch's parse)
    if (v is None and optional) or (isinstance(v, (int, np.integer)) and not isinstance(v, bool)):
        return None if v is None else int(v)
    raise TypeError(f"fft_{fname}(): argument '{name}' must be int, not {type(v).__name__}")


def _ints_arg(fname, name, v):
    """``s``/``dim`` of the n-d functions: None, an int or a sequence of ints."""
    if v is None:
        return None
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return [int(v)]
    if isinstance(v, (list, tuple)) and all(isinstance(k, (int, np.integer)) and not isinstance(k, bool)
                                            for k in v):
        return [int(k) for k in v]
    raise TypeError(f"fft_{fname}(): argument '{name}' must be tuple of ints, not {type(v).__name__}")


def _wrap_fft_dim(d, ndim):
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -ndim <= d < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                         f"but got {d})")
    return d + ndim if d < 0 else d


def _points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _promote(x, require_complex):
    """PyTorch's dtype for a transform's input: integers and bools in the default
    dtype, float32/float64 (half precision has no CPU kernel), complex as it is;
    as complex when ``require_complex``."""
    x, = autocast_inputs("_fft_r2c", x)           # (every FFT is a float32 op of autocast)
    dt = D._FROM_NP[x._data.dtype]
    if dt.is_complex:
        return x
    if not dt.is_floating_point:
        dt = D.get_default_dtype()
    if dt not in (D.float32, D.float64):
        raise RuntimeError(f"Unsupported dtype {_tname(dt.np)}")
    if require_complex:
        dt = dt.to_complex()
    return x if x._data.dtype == dt.np else x.to(dt)


def _resize(x, dims, sizes):
    """``x`` cropped (a slice) or zero-padded at the end (``constant_pad_nd``) to
    ``sizes`` along ``dims``."""
    pads, grow = [0] * (2 * x.ndim), False
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if have > n:
            x = _slice(x, d, 0, n, 1)
        elif have < n:
            pads[2 * (x.ndim - 1 - d) + 1] = n - have
            grow = True
    return _pad(x, pads) if grow else x


def _canonical(x, s, dim):
    """The transformed dimensions and their sizes for ``s`` and ``dim``, as PyTorch
    reads them: ``dim`` wrapped and unique; ``s`` alone transforms the last
    ``len(s)`` dimensions, -1 in it keeps a dimension's size; neither: all."""
    nd = x.ndim
    dims = None
    if dim is not None:
        dims = [_wrap_fft_dim(d, nd) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > nd:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {nd} "
                               f"dimensions.")
        if dims is None:
            dims = list(range(nd - len(s), nd))
        shape = [x.shape[d] if n == -1 else n for n, d in zip(s, dims)]
    elif dims is None:
        dims, shape = list(range(nd)), list(x.shape)
    else:
        shape = [x.shape[d] for d in dims]
    for n in shape:
        _points(n)
    return shape, dims


def _out_kind(fname, out, want_complex):
    if out is None:
        return
    if not isinstance(out, Tensor):
        raise TypeError(f"fft_{fname}(): argument 'out' must be Tensor, not {type(out).__name__}")
    kind = out._data.dtype.kind
    if want_complex and kind != "c":
        raise RuntimeError(f"{fname} expects a complex output tensor, but got {_tname(out._data.dtype)}")
    if not want_complex and kind != "f" and out._data.dtype.name != "bfloat16":
        raise RuntimeError(f"{fname} expects a floating point output tensor, but got "
                           f"{_tname(out._data.dtype)}")


def _done(r, out, opname, args):
    return r if out is None else write_out(opname, r, out, args)


# ---------------------------------------------------------------- one dimension
def _c2c_1d(fname, x, n, dim, norm, forward, out):
    _out_kind(fname, out, True)
    d = _wrap_fft_dim(dim, x.ndim)
    size = x.shape[d] if n is None else n
    _points(size)
    if n is not None:
        x = _resize(x, (d,), (n,))
    return _done(_fft_c2c(x, (d,), _norm_mode(norm, forward), forward), out, "_fft_c2c", (x,))


def _r2c_1d(fname, x, n, dim, norm, forward, onesided, out):
    if x.is_complex():
        raise RuntimeError(f"{fname} expects a real input tensor, but got {_tname(x._data.dtype)}")
    _out_kind(fname, out, True)
    x = _promote(x, False)
    d = _wrap_fft_dim(dim, x.ndim)
    size = x.shape[d] if n is None else n
    _points(size)
    if n is not None:
        x = _resize(x, (d,), (n,))
    r = _fft_r2c(x, (d,), _norm_mode(norm, forward), onesided)
    return _done(r if forward else _conj(r), out, "_fft_r2c", (x,))


def _c2r_1d(fname, x, n, dim, norm, forward, out):
    _out_kind(fname, out, False)
    x = _promote(x, True)
    d = _wrap_fft_dim(dim, x.ndim)
    size = 2 * (x.shape[d] - 1) if n is None else n
    _points(size)
    if n is not None:
        x = _resize(x, (d,), (n // 2 + 1,))
    if forward:
        x = _conj(x)
    return _done(_fft_c2r(x, (d,), _norm_mode(norm, forward), size), out, "_fft_c2r", (x,))


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The one-dimensional discrete Fourier transform of ``input`` along ``dim``
    (cropped or zero-padded to ``n`` points first)."""
    _input("fft", input)
    n, dim = _int_arg("fft", "n", n), _int_arg("fft", "dim", dim, False)
    if input.is_complex():
        return _c2c_1d("fft", input, n, dim, norm, True, out)
    return _r2c_1d("fft", input, n, dim, norm, True, False, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of ``fft``."""
    _input("ifft", input)
    n, dim = _int_arg("ifft", "n", n), _int_arg("ifft", "dim", dim, False)
    if input.is_complex():
        return _c2c_1d("ifft", input, n, dim, norm, False, out)
    return _r2c_1d("ifft", input, n, dim, norm, False, False, out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The Fourier transform of a real ``input``: the ``n // 2 + 1`` non-negative
    frequencies (the others are their complex conjugates)."""
    _input("rfft", input)
    n, dim = _int_arg("rfft", "n", n), _int_arg("rfft", "dim", dim, False)
    return _r2c_1d("rfft", input, n, dim, norm, True, True, out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of ``rfft``: a real signal of ``n`` points (default
    ``2 * (input.size(dim) - 1)``) from its non-negative frequencies."""
    _input("irfft", input)
    n, dim = _int_arg("irfft", "n", n), _int_arg("irfft", "dim", dim, False)
    return _c2r_1d("irfft", input, n, dim, norm, False, out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The Fourier transform of a Hermitian-symmetric signal given by its first
    half: real, of ``n`` points (default ``2 * (input.size(dim) - 1)``)."""
    _input("hfft", input)
    n, dim = _int_arg("hfft", "n", n), _int_arg("hfft", "dim", dim, False)
    return _c2r_1d("hfft", input, n, dim, norm, True, out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of ``hfft``: the first half of the inverse transform of a real
    signal."""
    _input("ihfft", input)
    n, dim = _int_arg("ihfft", "n", n), _int_arg("ihfft", "dim", dim, False)
    return _r2c_1d("ihfft", input, n, dim, norm, False, True, out)


# ---------------------------------------------------------------- n dimensions
def _c2c_nd(fname, x, s, dim, norm, forward, out):
    s, dim = _ints_arg(fname, "s", s), _ints_arg(fname, "dim", dim)
    shape, dims = _canonical(x, s, dim)
    _out_kind(fname, out, True)
    x = _resize(_promote(x, True), dims, shape)
    return _done(_fft_c2c(x, tuple(dims), _norm_mode(norm, forward), forward), out, "_fft_c2c", (x,))


def _r2c_nd(fname, x, s, dim, norm, forward, out):
    s, dim = _ints_arg(fname, "s", s), _ints_arg(fname, "dim", dim)
    if forward and x.is_complex():
        raise RuntimeError(f"{fname} expects a real-valued input tensor, but got "
                           f"{_tname(x._data.dtype)}")
    shape, dims = _canonical(x, s, dim)
    if not shape:
        raise RuntimeError(f"{fname} must transform at least one axis")
    _out_kind(fname, out, True)
    x = _resize(_promote(x, False), dims, shape)
    if x.is_complex():
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {_tname(x._data.dtype)}")
    r = _fft_r2c(x, tuple(dims), _norm_mode(norm, forward), True)
    # (PyTorch's ihfftn ends with a c2c over the other dimensions: its name in out='s refusal)
    return _done(r if forward else _conj(r), out, "_fft_c2c" if len(dims) > 1 and not forward
                 else "_fft_r2c", (x,))


def _c2r_nd(fname, x, s, dim, norm, forward, out):
    s, dim = _ints_arg(fname, "s", s), _ints_arg(fname, "dim", dim)
    shape, dims = _canonical(x, s, dim)
    if not shape:
        raise RuntimeError(f"{fname} must transform at least one axis")
    last = 2 * (x.shape[dims[-1]] - 1) if s is None or s[-1] == -1 else shape[-1]
    _points(last)
    shape[-1] = last // 2 + 1
    _out_kind(fname, out, False)
    x = _resize(_promote(x, True), dims, shape)
    if forward:
        x = _conj(x)
    return _done(_fft_c2r(x, tuple(dims), _norm_mode(norm, forward), last), out, "_fft_c2r", (x,))


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """``fftn`` over two dimensions (the last two by default)."""
    _input("fft2", input)
    return _c2c_nd("fft2", input, s, dim, norm, True, out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    _input("ifft2", input)
    return _c2c_nd("ifft2", input, s, dim, norm, False, out)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional Fourier transform over ``dim`` (default: the last
    ``len(s)`` dimensions, or all), each cropped or zero-padded to ``s``."""
    _input("fftn", input)
    return _c2c_nd("fftn", input, s, dim, norm, True, out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    _input("ifftn", input)
    return _c2c_nd("ifftn", input, s, dim, norm, False, out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    _input("rfft2", input)
    return _r2c_nd("rfftn", input, s, dim, norm, True, out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional transform of a real input, halved along the last
    dimension transformed."""
    _input("rfftn", input)
    return _r2c_nd("rfftn", input, s, dim, norm, True, out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    _input("irfft2", input)
    return _c2r_nd("irfftn", input, s, dim, norm, False, out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of ``rfftn``; the last dimension transformed has ``s[-1]`` points
    (default ``2 * (input.size(dim[-1]) - 1)``)."""
    _input("irfftn", input)
    return _c2r_nd("irfftn", input, s, dim, norm, False, out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    _input("hfft2", input)
    return _c2r_nd("hfftn", input, s, dim, norm, True, out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional ``hfft``: a real output, Hermitian symmetry along the last
    dimension transformed."""
    _input("hfftn", input)
    return _c2r_nd("hfftn", input, s, dim, norm, True, out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    _input("ihfft2", input)
    return _r2c_nd("ihfftn", input, s, dim, norm, False, out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of ``hfftn``."""
    _input("ihfftn", input)
    return _r2c_nd("ihfftn", input, s, dim, norm, False, out)


# ---------------------------------------------------------------- frequencies and shifts
def _freq(fname, k, n, d, out, dtype, requires_grad):
    dt = D.get_default_dtype() if dtype is None else D.to_dtype(dtype)
    if out is not None and dtype is None:
        dt = D._FROM_NP[out._data.dtype]
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"{fname} requires a floating point or complex dtype")
    if dt.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{_tname(dt.np)}'")
    with np.errstate(divide="ignore"):
        scale = np.float64(1.0) / np.float64(n * float(d))
    # as PyTorch computes it: the integers in the dtype times the scale rounded to the
    # dtype (half precision: multiplied in float32, the product rounded)
    wk = np.float32 if dt.np.itemsize < 4 else dt.np
    with np.errstate(over="ignore", invalid="ignore"):
        r = (k.astype(dt.np).astype(wk) * np.asarray(scale).astype(dt.np).astype(wk)).astype(dt.np)
    t = _wrap(r)
    if out is not None:
        return write_out(f"fft_{fname}", t, out)
    if requires_grad:
        t.requires_grad_(True)
    return t


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an ``n``-point transform, for samples ``d`` apart:
    ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)``."""
    n = _freq_n("fftfreq", n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    k = np.arange(n, dtype=np.int64)
    k[(n + 1) // 2:] -= n
    return _freq("fftfreq", k, n, d, out, dtype, requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The non-negative sample frequencies of an ``n``-point real transform:
    ``[0, 1, ..., n // 2] / (d * n)``."""
    n = _freq_n("rfftfreq", n)
    m = (n // 2 if n >= 0 else -(-n // 2)) + 1         # (C's division, rounding to zero)
    if m < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {m}: [{m}]")
    return _freq("rfftfreq", np.arange(m, dtype=np.int64), n, d, out, dtype, requires_grad)


def _freq_n(fname, n):
    if isinstance(n, (int, np.integer)) and not isinstance(n, bool):
        return int(n)
    raise TypeError(f"fft_{fname}(): argument 'n' (position 1) must be int, not {type(n).__name__}")


def _shift(x, dim, inverse):
    if dim is None:
        dims = list(range(x.ndim))
    elif isinstance(dim, (int, np.integer)):
        dims = [int(dim)]
    else:
        dims = [int(k) for k in dim]
    if not dims:
        raise RuntimeError("`shifts` required")
    shifts = [(x.shape[_wrap_fft_dim(k, x.ndim)] + inverse) // 2 for k in dims]
    return _roll(x, shifts, dims)


def fftshift(input, dim=None):
    """``input`` rolled so that the zero frequency is in the middle of each
    dimension in ``dim`` (default: all)."""
    _input("fftshift", input)
    return _shift(input, dim, 0)


def ifftshift(input, dim=None):
    """The inverse of ``fftshift``."""
    _input("ifftshift", input)
    return _shift(input, dim, 1)
