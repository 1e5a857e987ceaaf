"""Factory functions.  They take ``dtype=`` and ``requires_grad=`` and are not
affected by grad mode: what they make is a leaf."""
import math
import warnings

import numpy as np

from . import _dtype as D
from ._autograd.grad_mode import state
from ._random import default_generator, sampling, uniform01
from ._tensor import Tensor, _SCALAR_NAMES, _as_array, _wrap, check_device, size_arg, number_arg, int_arg
from ._tensor import like_hook as _like_hook, _check_format, contiguous_format, preserve_format
from ._out import call_with_out
from ._warn import warn_once


def _out_dtype(dtype, out):
    """A factory called with ``out=`` makes ``out``'s dtype unless told otherwise."""
    return out.dtype if dtype is None and isinstance(out, Tensor) else dtype


def _leaf(a, requires_grad):
    t = _wrap(a)
    if state.inference:
        t._make_inference()
    if requires_grad:
        if not (a.dtype.kind in "fc" or a.dtype in D.LOW_PRECISION):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t._rg = True
    return t


def _dt(dtype, default=None):
    if dtype is None:
        return (default or D.get_default_dtype()).np
    return D.to_dtype(dtype).np


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor holding a copy of ``data``."""
    check_device(device)
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    a = np.array(_as_array(data, dtype), copy=True)
    return _leaf(a, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Share memory with ``data`` when it already is an array (or tensor) of the right dtype."""
    check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None or D.to_dtype(dtype) == data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or D.to_dtype(dtype).np == data.dtype):
        D.from_numpy_dtype(data.dtype)
        return _wrap(data)
    return _wrap(_as_array(data, dtype))


_UNSET = object()


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=_UNSET):
    """``obj`` as a tensor, sharing its memory when it can (a tensor or array of
    the dtype asked for: the same tensor, or a tensor over the same memory);
    ``copy=True`` always copies, ``copy=False`` refuses to.  Objects with the
    buffer protocol (bytes, bytearray, memoryview, array.array) are read as
    ``frombuffer`` reads them, in ``dtype`` or the default dtype.  Unless
    ``requires_grad`` is given, the result requires grad as ``obj`` does."""
    check_device(device)
    want = None if dtype is None else D.to_dtype(dtype)
    if isinstance(obj, Tensor):
        if requires_grad is _UNSET:
            requires_grad = obj.requires_grad
            if requires_grad:
                warn_once("torch.asarray: unspecified requires_grad now defaults to "
                          "obj.requires_grad instead of False. Pass requires_grad=False "
                          "explicitly to get the old behavior and silence this warning.")
        if want is not None and want is not obj.dtype:
            if copy is False:
                raise ValueError(f"can't alias tensor with dtype '{_SCALAR_NAMES[obj.dtype.name]}' "
                                 f"into dtype '{_SCALAR_NAMES[want.name]}'.")
            r = obj.to(want)
        elif copy:
            r = obj.clone()
        else:                           # the same tensor: its requires_grad is what is asked
            if requires_grad != obj.requires_grad:
                if requires_grad:
                    _leaf(obj._data, True)      # (PyTorch's words for a dtype that cannot)
                if requires_grad or obj.is_leaf:
                    obj.requires_grad_(requires_grad)
                else:
                    return obj.detach()
            return obj
        if not requires_grad and r.requires_grad:
            r = r.detach()
        elif requires_grad and not r.requires_grad:
            _leaf(r._data, True)            # (PyTorch's words for a dtype that cannot)
            r.requires_grad_()
        return r
    requires_grad = bool(requires_grad) if requires_grad is not _UNSET else False
    if isinstance(obj, np.ndarray) or hasattr(obj, "__array_interface__"):
        a = np.asarray(obj)
        D.from_numpy_dtype(a.dtype)
        if want is not None and want.np != a.dtype:
            if copy is False:
                raise ValueError(f"can't alias tensor with dtype "
                                 f"'{_SCALAR_NAMES[D.from_numpy_dtype(a.dtype).name]}' into dtype "
                                 f"'{_SCALAR_NAMES[want.name]}'.")
            a = a.astype(want.np)
        elif copy:
            a = a.copy()
        return _leaf(a, requires_grad)
    if isinstance(obj, (bytes, bytearray, memoryview)) or type(obj).__name__ == "array":
        r = frombuffer(obj, dtype=want or D.get_default_dtype())
        if copy:
            r = r.clone()
        return _leaf(r._data, requires_grad)
    if copy is False:
        raise ValueError("can't alias arbitrary sequence into a tensor.")
    if obj is None:
        raise RuntimeError("Could not infer dtype of NoneType")
    return _leaf(np.array(_as_array(obj, want), copy=True), requires_grad)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-d tensor over the memory of an object with the buffer protocol (no copy):
    ``count`` elements of ``dtype`` from byte ``offset`` (-1: all that follow)."""
    dt = D.to_dtype(dtype)
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length, size = view.nbytes, dt.np.itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer "
                         f"length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % size:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) "
                             f"must be a multiple of element size ({size})")
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset ({offset} "
                         f"bytes) must not be greater than actual buffer length ({length} bytes)")
    if view.readonly:
        warn_once("The given buffer is not writable, and PyTorch does not support non-writable "
                  "tensors. This means you can write to the underlying (supposedly non-writable) "
                  "buffer using the tensor. You may want to copy the buffer to protect its data or "
                  "make it writable before converting it to a tensor. This type of warning will be "
                  "suppressed for the rest of this program.")
    a = np.frombuffer(view.cast("B") if view.ndim != 1 or view.format != "B" else view,
                      dtype=dt.np, count=count, offset=offset)
    return _leaf(a, requires_grad)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """An uninitialized (here: zeroed) tensor with these sizes and strides."""
    check_device(device)
    size, stride = size_arg((size,)), size_arg((stride,))
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of "
                           f"strides ({len(stride)})")
    shape = new_shape(size)
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    npdt = _dt(dtype)
    n = 0 if 0 in shape else 1 + sum((k - 1) * s for k, s in zip(shape, stride))
    flat = np.zeros(n, npdt)
    a = np.lib.stride_tricks.as_strided(flat, shape, tuple(s * flat.itemsize for s in stride))
    return _leaf(a, requires_grad)


def from_numpy(ndarray):
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    D.from_numpy_dtype(ndarray.dtype)
    return _wrap(ndarray)


def new_shape(size, name=None):
    """``size`` (a factory's ``*size``) as the shape of a new tensor, a negative
    size refused in PyTorch's words (``zeros`` has words of its own)."""
    shape = size_arg(size)
    for d in shape:
        if d < 0:
            if name == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: {list(shape)}")
    return shape


def _size_kw(size, kw, name):
    """``size`` given by keyword (``zeros(size=(2, 3))``), as PyTorch takes it."""
    if kw:
        if size or list(kw) != ["size"]:
            bad = next(k for k in kw if k != "size") if list(kw) != ["size"] else "size"
            raise TypeError(f"{name}() got an unexpected keyword argument '{bad}'" if bad != "size"
                            else f"{name}() got multiple values for argument 'size'")
        return (kw["size"],)
    return size


def _factory(fill, name):
    def f(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, **kw):
        size = _size_kw(size, kw, name)
        if out is not None:
            return call_with_out(name, f, size, {"dtype": _out_dtype(dtype, out),
                                                 "requires_grad": requires_grad}, out)
        check_device(device)
        a = fill(new_shape(size, name), _dt(dtype))
        if memory_format is not None:       # (channels_last: the same values, NHWC in memory)
            a = _laid_out(a, a, memory_format)
        return _leaf(a, requires_grad)
    return f


zeros = _factory(np.zeros, "zeros")
ones = _factory(np.ones, "ones")
empty = _factory(np.zeros, "empty")     # zero-filled: uninitialised memory is never worth the surprise


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None):
    if out is not None:
        return call_with_out('full', full, (size, fill_value),
                             {'dtype': _out_dtype(dtype, out), 'device': device,
                              'requires_grad': requires_grad}, out)
    check_device(device)
    fill_value = number_arg("full", "fill_value", fill_value, 2)    # (its kind gives the dtype)
    if dtype is None:
        dt = D.scalar_dtype(fill_value) or D.get_default_dtype()
    else:
        dt = D.to_dtype(dtype)
    return _leaf(np.full(new_shape((size,)), D.check_fits(fill_value, dt.np), dt.np), requires_grad)


def _laid_out(a, values, fmt):
    """``values`` (shaped like array ``a``) in the memory layout PyTorch's ``*_like``
    gives for ``memory_format`` ``fmt``: by default (preserve_format) ``a``'s own
    order of strides, dense."""
    if fmt is contiguous_format or a.ndim < 2:
        return values
    if fmt is None or fmt is preserve_format:
        if a.flags.c_contiguous:
            return values
        out = np.empty_like(a, dtype=values.dtype, order="K")
    else:
        _check_format(a, fmt)
        inv = np.argsort(fmt.perm)
        out = np.empty(tuple(a.shape[p] for p in fmt.perm), values.dtype).transpose(inv)
    out[...] = values
    return out


def _like(fill):
    def f(input, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None):
        check_device(device)
        hook = _like_hook(input)         # (inside vmap: batched)
        if hook is not None:
            return hook(lambda v: f(v, dtype=dtype, requires_grad=requires_grad))
        dt = input._data.dtype if dtype is None else D.to_dtype(dtype).np
        return _leaf(_laid_out(input._data, fill(input._data.shape, dt), memory_format), requires_grad)
    return f


zeros_like = _like(np.zeros)
ones_like = _like(np.ones)
empty_like = _like(np.zeros)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None,
              layout=None):
    check_device(device)
    hook = _like_hook(input)             # (inside vmap: batched)
    if hook is not None:
        return hook(lambda v: full_like(v, fill_value, dtype=dtype, requires_grad=requires_grad))
    fill_value = number_arg("full_like", "fill_value", fill_value, 2)
    dt = input._data.dtype if dtype is None else D.to_dtype(dtype).np
    return _leaf(_laid_out(input._data, np.full(input._data.shape, D.check_fits(fill_value, dt), dt),
                           memory_format), requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None):
    if out is not None:
        return call_with_out('arange', arange, (start, end, step),
                             {'dtype': _out_dtype(dtype, out), 'device': device,
                              'requires_grad': requires_grad}, out)
    check_device(device)
    if end is None:
        start, end = 0, start
    # (a NumPy scalar as the Python number it holds: np.float32 is no float instance)
    vals = [v.item() if isinstance(v, (Tensor, np.generic)) else v for v in (start, end, step)]
    if dtype is not None and D.to_dtype(dtype).np.kind in "iu":
        return _int_arange(vals, D.to_dtype(dtype).np, requires_grad)
    if vals[2] == 0:
        raise RuntimeError("step must be nonzero")
    if (vals[1] - vals[0]) * vals[2] < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dt = D.get_default_dtype().np if any(isinstance(v, float) for v in vals) else np.int64
    else:
        dt = D.to_dtype(dtype).np
    n = int(np.ceil((vals[1] - vals[0]) / vals[2]))
    a = (vals[0] + np.arange(n, dtype=np.float64 if np.dtype(dt).kind in "fcV" else np.int64) * vals[2])
    return _leaf(a.astype(dt), requires_grad)


def _int_arange(vals, dt, requires_grad):
    """arange into an integer dtype with PyTorch's two rules: for int64 the three
    numbers are cast (truncated) first; for the others the length comes from the
    numbers as given and the values from the truncated start and step
    (``arange(0, 5, 1.5, dtype=int32)`` is [0, 1, 2, 3])."""
    start, end, step = vals
    if (end - start) * step < 0:            # (the numbers as given, before any truncation)
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    istart, istep = int(start), int(step)
    if dt == np.int64:
        end = int(end)
        if istep == 0 and step != 0:        # (a fraction that truncates to 0: PyTorch's int64
            raise ValueError("step must be nonzero")        # path refuses it as a ValueError)
        start, step = istart, istep
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = int(np.ceil((end - start) / step))
    return _leaf((istart + np.arange(n, dtype=np.int64) * istep).astype(dt), requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None):
    if out is not None:
        return call_with_out('linspace', linspace, (start, end, steps),
                             {'dtype': _out_dtype(dtype, out), 'device': device,
                              'requires_grad': requires_grad}, out)
    check_device(device)
    if isinstance(steps, int) and steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    npdt = _space_dtype("linspace", start, end, dtype)
    start, end = _space_ends(start, end, npdt)
    if npdt.kind == "c":
        return _leaf(np.linspace(start, end, steps).astype(npdt), requires_grad)
    return _leaf(_space_points(start, end, steps, npdt).astype(npdt), requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False,
             out=None):
    if out is not None:
        return call_with_out('logspace', logspace, (start, end, steps, base),
                             {'dtype': _out_dtype(dtype, out), 'device': device,
                              'requires_grad': requires_grad}, out)
    check_device(device)
    if isinstance(steps, int) and steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    npdt = _space_dtype("logspace", start, end, dtype)
    start, end = _space_ends(start, end, npdt)
    if npdt.kind == "c":
        return _leaf(np.logspace(start, end, steps, base=base).astype(npdt), requires_grad)
    points = _space_points(start, end, steps, npdt, fused=False) if steps != 1 else \
        np.array([float(start.item() if isinstance(start, Tensor) else start)])   # (not converted)
    # (math.pow is the C library's pow, which PyTorch's kernel calls; NumPy's own
    # differs from it in the last bit now and then)
    return _leaf(np.array([math.pow(float(base), v) for v in points.tolist()], np.float64)
                 .astype(npdt), requires_grad)


def fma64(a, b, c):
    """``a + b * c`` rounded once (a fused multiply-add) in float64, elementwise:
    the exact sum as a double-double (error-free product and sums); the rare
    element whose rounding the last error term could change is done in
    rationals.  (NumPy has no fma, and a long double sum rounds twice.)"""
    a, b, c = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, c)))
    with np.errstate(all="ignore"):
        def split(x):                                   # Veltkamp: x = hi + lo, 26 bits each
            t = 134217729.0 * x
            h = t - (t - x)
            return h, x - h

        def two_sum(x, y):
            s = x + y
            z = s - x
            return s, (x - (s - z)) + (y - z)
        p = b * c
        bh, bl = split(b)
        ch, cl = split(c)
        pe = ((bh * ch - p) + bh * cl + bl * ch) + bl * cl   # b*c == p + pe exactly
        s, t = two_sum(a, p)
        u, e2 = two_sum(t, pe)
        r, lo = two_sum(s, u)                           # a + b*c == r + lo + e2 exactly
        sp = np.spacing(np.abs(r))
        alo, ae2 = np.abs(lo), np.abs(e2)
        unsure = (ae2 > 0) & ((np.abs(alo - sp / 2) <= ae2) | (np.abs(alo - sp / 4) <= ae2))
        unsure |= ~np.isfinite(pe) & np.isfinite(p)
    r = np.array(np.where(np.isfinite(p), r, a + p), np.float64)     # (an infinite product: as is)
    if unsure.any():
        from fractions import Fraction
        for k in zip(*np.nonzero(unsure)):
            r[k] = float(Fraction(float(a[k])) + Fraction(float(b[k])) * Fraction(float(c[k])))
    return r


def _space_points(start, end, steps, npdt, fused=True):
    """The points of PyTorch's CPU linspace kernel, bit for bit: the ends
    converted to the result's dtype first (an integer dtype truncates them),
    the step in that dtype (double for integers; half and bfloat16 round every
    operation), the first half counted up from ``start`` and the rest down from
    ``end``, by fused multiply-adds where its vectorized loop uses them
    (``fused``: linspace; logspace's loop is plain), as float64 values."""
    start, end = (float(v.item()) if isinstance(v, Tensor) else float(v) for v in (start, end))
    i = np.arange(steps)
    if npdt.kind in "iu":
        start, end = float(np.trunc(start)), float(np.trunc(end))
        t, wide = np.float64, np.longdouble
    elif npdt.itemsize <= 2:                        # half, bfloat16: each operation rounded
        def h(x):
            return np.asarray(x, np.float32).astype(npdt).astype(np.float32)
        s0, e0 = h(start), h(end)
        if steps == 1:
            return s0.reshape(1)
        step = h(h(e0 - s0) / h(np.float32(steps - 1)))
        fi = i.astype(np.float32)
        return np.where(i < steps // 2, h(s0 + h(step * h(fi))), h(e0 - h(step * h(steps - 1 - fi))))
    else:
        t = npdt.type
        wide = np.float64 if t is np.float32 else np.longdouble
    s0, e0 = t(start), t(end)
    if steps == 1:
        return np.array([s0], np.float64)
    step = (e0 - s0) / t(steps - 1)
    if fused and t is np.float64:                   # one rounding (a long double sum rounds twice)
        lo, hi = fma64(s0, step, i), fma64(e0, -step, steps - 1 - i)
    elif fused:                                     # one rounding: a product exact in the wider type
        lo = (wide(s0) + wide(step) * i).astype(t)
        hi = (wide(e0) - wide(step) * (steps - 1 - i)).astype(t)
    else:
        lo = s0 + step * i.astype(t)
        hi = e0 - step * (steps - 1 - i).astype(t)
    return np.where(i < steps // 2, lo, hi).astype(np.float64)


def _space_ends(start, end, npdt):
    """The ends as PyTorch converts them (numbers) to the result's dtype: with its
    range check, a negative int wrapping into an unsigned type (-1 is 255)."""
    return tuple(v if isinstance(v, Tensor) else D.check_fits(v, npdt) for v in (start, end))


def _space_dtype(name, start, end, dtype):
    """linspace/logspace: complex endpoints give a complex result (the default
    dtype's complex kin), which a real ``dtype`` cannot hold."""
    if not any(isinstance(v, complex) or (isinstance(v, Tensor) and v._data.dtype.kind == "c")
               for v in (start, end)):
        return _dt(dtype)
    inferred = D.complex128 if D.get_default_dtype() is D.float64 else D.complex64
    if dtype is None:
        return inferred.np
    if not D.to_dtype(dtype).is_complex:
        raise RuntimeError(f"torch.{name}(): inferred dtype c10::complex<"
                           f"{'double' if inferred is D.complex128 else 'float'}> can't be safely "
                           f"cast to passed dtype {_SCALAR_NAMES[D.to_dtype(dtype).name]}")
    return D.to_dtype(dtype).np


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, out=None):
    if out is not None:
        return call_with_out('eye', eye, (n, m),
                             {'dtype': _out_dtype(dtype, out), 'device': device,
                              'requires_grad': requires_grad}, out)
    check_device(device)
    for name, v in (("n", n), ("m", m)):
        if v is not None and v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    return _leaf(np.eye(n, m, dtype=_dt(dtype)), requires_grad)


def _rand_factory(kind):
    def f(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None, **kw):
        size = _size_kw(size, kw, "rand" if kind == "uniform" else "randn")
        if out is not None:
            return call_with_out("rand" if kind == "uniform" else "randn", f, size,
                                 {"generator": generator, "dtype": _out_dtype(dtype, out),
                                  "requires_grad": requires_grad}, out)
        check_device(device)
        g = generator or default_generator
        shape = new_shape(size)
        dt = _dt(dtype)
        if np.dtype(dt).kind not in "fcV":
            kernel = "check_uniform_bounds" if kind == "uniform" else "normal_kernel_cpu"
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{_SCALAR_NAMES[D._FROM_NP[np.dtype(dt)].name]}'")
        if kind == "uniform":
            return _leaf(uniform01(g._rng, shape, dt), requires_grad)
        a = g._rng.standard_normal(shape)
        if np.dtype(dt).kind == "c":
            a = (a + 1j * g._rng.standard_normal(shape)) / np.sqrt(2)
        return _leaf(a.astype(dt), requires_grad)
    # under vmap(randomness='different'): one draw with the batch size in front
    return sampling(batch=lambda n, args, kwargs: f((n,) + size_arg(args), **kwargs))(f)


rand = _rand_factory("uniform")
randn = _rand_factory("normal")


@sampling(batch="elementwise")
def rand_like(input, *, dtype=None, requires_grad=False, device=None, memory_format=None, layout=None):
    check_device(device)
    return _relaid(input, rand(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad),
                   memory_format)


def _relaid(input, t, fmt):
    """A fresh leaf ``t`` laid out as ``_laid_out`` says (its values kept)."""
    a = _laid_out(input._data, t._data, fmt)
    if a is not t._data:
        t._data = a
    return t


@sampling(batch="elementwise")
def randn_like(input, *, dtype=None, requires_grad=False, device=None, memory_format=None, layout=None):
    check_device(device)
    return _relaid(input, randn(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad),
                   memory_format)


_RANDINT_FORMS = ("randint() received an invalid combination of arguments - expected one of:\n"
                  " * (int high, tuple of ints size, *, Generator generator, Tensor out, dtype dtype, "
                  "device device, bool requires_grad)\n"
                  " * (int low, int high, tuple of ints size, *, Generator generator, Tensor out, "
                  "dtype dtype, device device, bool requires_grad)")


def _randint_args(args, kw):
    """PyTorch's two forms, ``(high, size)`` and ``(low, high, size)``, each
    argument positional or by keyword."""
    given = len(args) + len(set(kw) & {"low", "high", "size"})
    names = ("low", "high", "size") if given >= 3 or "low" in kw else ("high", "size")
    if len(args) > len(names):
        raise TypeError(_RANDINT_FORMS)
    got = dict(zip(names, args))
    for k, v in kw.items():
        if k not in names or k in got:
            raise TypeError(_RANDINT_FORMS)
        got[k] = v
    if "high" not in got or "size" not in got:
        raise TypeError(_RANDINT_FORMS)
    for pos, k in enumerate(names[:-1]):
        v = got[k]
        got[k] = int_arg("randint", k, pos + 1, v)
    return got.get("low", 0), got["high"], got["size"]


@sampling()
def randint(*args, generator=None, dtype=None, device=None, requires_grad=False, out=None, **kw):
    """Integers drawn uniformly from ``[low, high)`` (``low`` 0 by default):
    ``randint(high, size)`` or ``randint(low, high, size)``."""
    low, high, size = _randint_args(args, kw)
    if out is not None:
        return call_with_out('randint', randint, (low, high, size),
                             {'generator': generator, 'dtype': _out_dtype(dtype, out),
                              'device': device,
                              'requires_grad': requires_grad}, out)
    check_device(device)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    npdt = _dt(dtype, D.int64)
    _randint_bounds(low, high, npdt)
    g = generator or default_generator
    a = g._rng.integers(low, high, new_shape((size,)))
    return _leaf(a.astype(npdt), requires_grad)


def _randint_bounds(low, high, npdt):
    """PyTorch's check of randint's bounds against the range of an integer, bool,
    half or bfloat16 result (float and double: only a warning about precision)."""
    if npdt.kind not in "biu" and npdt not in D.LOW_PRECISION:
        return
    name = D.CPP_NAMES[npdt.name]
    if npdt.kind == "b":
        lo, hi = 0, 1
    elif npdt.kind in "iu":
        info = np.iinfo(npdt)
        lo, hi = int(info.min), int(info.max)
    else:
        hi = D.float_max(npdt)
        lo = -hi
    if not lo <= low <= hi:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not lo <= high - 1 <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {name}")


@sampling(batch="elementwise")
def randint_like(input, low, high=None, *, dtype=None, requires_grad=False):
    if high is None:
        low, high = 0, low
    if (dtype or input.dtype).is_complex:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    return randint(low, high, input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


@sampling()
def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False, out=None):
    if out is not None:
        return call_with_out('randperm', randperm, (n,),
                             {'generator': generator, 'dtype': _out_dtype(dtype, out),
                              'device': device,
                              'requires_grad': requires_grad}, out)
    check_device(device)
    n = int_arg("randperm", "n", 1, n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = _dt(dtype, D.int64)
    _check_randperm_range(n, np.dtype(dt))
    g = generator or default_generator
    return _leaf(g._rng.permutation(n).astype(dt), requires_grad)


_PERM_FLOAT_LIMIT = {"float16": (2049, "2049", "Half"), "float32": (2 ** 24 + 1, "2^24+1", "Float"),
                     "float64": (2 ** 53 + 1, "2^53+1", "Double")}      # (PyTorch lets bfloat16 by)


def _check_randperm_range(n, dt):
    """PyTorch refuses a permutation its dtype cannot hold exactly (the cast would
    repeat values: no permutation at all)."""
    if dt.kind in "iu" and n - 1 > np.iinfo(dt).max:
        raise RuntimeError(f"value cannot be converted to type {dt.name}_t without overflow")
    lim = _PERM_FLOAT_LIMIT.get(dt.name)
    if lim is not None and n > lim[0]:
        raise RuntimeError(f"n cannot be greater than {lim[1]} for {lim[2]} type.")


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    check_device(device)
    return _leaf(np.asarray(s, _dt(dtype)), requires_grad)
