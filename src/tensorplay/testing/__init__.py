"""tensorplay.testing (``torch.testing``): ``assert_close``, ``make_tensor`` and
the deprecated ``assert_allclose``.

``assert_close(actual, expected)`` compares tensors, Python and NumPy numbers,
booleans, ``None``, NumPy arrays and (nested) sequences and mappings of them,
with PyTorch's default tolerances per dtype and its failure reports, e.g.::

    Tensor-likes are not close!

    Mismatched elements: 2 / 3 (66.7%)
    Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)
    Greatest relative difference: 1.0 at index (1,) (up to 1.3e-06 allowed)

tensorplay tensors are strided, unquantized and on the CPU, so the layout,
sparse and quantized branches of PyTorch's comparison have nothing to do here
(``check_layout`` is accepted).
"""
import cmath as _cmath
import collections.abc as _abc
import contextlib as _contextlib
import math as _math
import warnings as _warnings

import ml_dtypes as _ml_dtypes
import numpy as _np

from .. import _dtype as _D
from .._creation import (as_tensor as _as_tensor, empty as _empty, randint as _randint,
                         tensor as _tensor)
from .._tensor import Tensor as _Tensor
from ..ops.complex_ops import view_as_real as _view_as_real
from ..ops.pointwise_more import isclose as _isclose

__all__ = ["assert_close", "make_tensor", "assert_allclose"]


# ------------------------------------------------------------------ errors
class _ErrorMeta(Exception):
    """A comparison failure on its way out: the exception type, the message and
    the path of the failing item inside nested inputs."""

    def __init__(self, type_, msg, *, id=()):      # noqa: A002
        super().__init__(msg)
        self.type, self.msg, self.id = type_, msg, id

    def to_error(self, msg=None):
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += "\n\nThe failure occurred for item " + "".join(str([i]) for i in self.id)
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


class _Unsupported(Exception):
    """A pair type that cannot take these inputs: the next one is tried."""


# {dtype: (rtol, atol)}; other dtypes compare exactly
_PRECISIONS = {_D.float16: (0.001, 1e-5), _D.bfloat16: (0.016, 1e-5), _D.float32: (1.3e-6, 1e-5),
               _D.float64: (1e-7, 1e-7), _D.complex64: (1.3e-6, 1e-5), _D.complex128: (1e-7, 1e-7)}


def _default_tolerances(*dtypes, precisions=None):
    precisions = precisions or _PRECISIONS
    rtols, atols = zip(*[precisions.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def _tolerances(*dtypes, rtol, atol, id=()):       # noqa: A002
    if (rtol is None) ^ (atol is None):
        raise _ErrorMeta(ValueError, f"Both 'rtol' and 'atol' must be either specified or omitted, "
                                     f"but got no {'rtol' if rtol is None else 'atol'}.", id=id)
    if rtol is not None:
        return rtol, atol
    return _default_tolerances(*dtypes)


def _mismatch_msg(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0

    def line(kind, diff, idx, tol):
        s = (f"{kind.title()} difference: {diff}" if idx is None
             else f"Greatest {kind} difference: {diff} at index {idx}")
        return s + ("" if equality else f" (up to {tol} allowed)") + "\n"

    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += extra.strip() + "\n"
    msg += line("absolute", abs_diff, abs_idx, atol) + line("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, atol,
                         rel_diff, None, rtol)


def _tensor_mismatch_msg(a, e, matches, rtol, atol):
    """The report for arrays ``a``, ``e`` (same shape and dtype) where
    ``matches`` is False: the count, and the greatest absolute and relative
    differences among the mismatches with their (first) index."""
    n = matches.size
    bad = n - int(matches.sum())
    extra = f"Mismatched elements: {bad} / {n} ({bad / n:.1%})"
    if a.dtype.kind not in "fcV" and a.dtype != _ml_dtypes.bfloat16:       # bool/ints: as int64
        a, e = a.astype(_np.int64), e.astype(_np.int64)
    a, e, m = a.reshape(-1), e.reshape(-1), matches.reshape(-1)
    with _np.errstate(all="ignore"):
        abs_diff = _np.abs(a - e)
        abs_diff[m] = 0
        i_abs = int(_np.argmax(abs_diff))    # (the first NaN, else the first greatest)
        den = _np.abs(e)
        if abs_diff.dtype.kind in "iu":     # integer true division: in the default dtype
            dt = _D.get_default_dtype().np
            rel_diff = abs_diff.astype(dt) / den.astype(dt)
        else:
            rel_diff = abs_diff / den
        rel_diff[m] = 0
        i_rel = int(_np.argmax(rel_diff))

    def unravel(i):
        return tuple(int(k) for k in _np.unravel_index(i, matches.shape)) if matches.shape else ()

    return _mismatch_msg("Tensor-likes", extra, abs_diff[i_abs].item(), unravel(i_abs), atol,
                         rel_diff[i_rel].item(), unravel(i_rel), rtol)


# ------------------------------------------------------------------ pairs
class _Pair:
    def __init__(self, actual, expected, *, id=(), **unused):     # noqa: A002
        self.actual, self.expected, self.id = actual, expected, id

    def _fail(self, type_, msg):
        raise _ErrorMeta(type_, msg, id=self.id)

    def __repr__(self):
        body = [f"    {k}={v!s}," for k, v in [("id", self.id), ("actual", self.actual),
                                               ("expected", self.expected)]]
        return "\n".join([f"{type(self).__name__}(", *body, ")"])


class _NonePair(_Pair):
    def __init__(self, actual, expected, **kw):
        if not (actual is None or expected is None):
            raise _Unsupported
        super().__init__(actual, expected, **kw)

    def compare(self):
        if not (self.actual is None and self.expected is None):
            self._fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class _BooleanPair(_Pair):
    def __init__(self, actual, expected, **kw):
        if not all(isinstance(v, (bool, _np.bool_)) for v in (actual, expected)):
            raise _Unsupported
        super().__init__(*(bool(v) for v in (actual, expected)), **kw)

    def compare(self):
        if self.actual is not self.expected:
            self._fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class _NumberPair(_Pair):
    _DTYPES = {int: _D.int64, float: _D.float64, complex: _D.complex128}

    def __init__(self, actual, expected, *, id=(), rtol=None, atol=None, equal_nan=False,     # noqa: A002
                 check_dtype=False, **kw):
        if not all(isinstance(v, (int, float, complex, _np.number)) for v in (actual, expected)):
            raise _Unsupported
        actual, expected = (v.item() if isinstance(v, _np.number) else v for v in (actual, expected))
        super().__init__(actual, expected, id=id)
        self.rtol, self.atol = _tolerances(*[self._DTYPES[type(v)] for v in (actual, expected)],
                                           rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def compare(self):
        a, e = self.actual, self.expected
        if self.check_dtype and type(a) is not type(e):
            self._fail(AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.")
        if a == e:
            return
        if self.equal_nan and _cmath.isnan(a) and _cmath.isnan(e):
            return
        diff = abs(a - e)
        if _cmath.isfinite(diff) and diff <= self.atol + self.rtol * abs(e):
            return
        self._fail(AssertionError, _scalar_mismatch_msg(a, e, self.rtol, self.atol))


class _TensorLikePair(_Pair):
    def __init__(self, actual, expected, *, id=(), allow_subclasses=True, rtol=None, atol=None,     # noqa: A002
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, **kw):
        if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
            raise _Unsupported
        if not allow_subclasses and type(actual) is not type(expected):
            raise _Unsupported
        actual, expected = self._to_tensor(actual), self._to_tensor(expected)
        super().__init__(actual, expected, id=id)
        self.rtol, self.atol = _tolerances(actual.dtype, expected.dtype, rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_device, self.check_dtype = equal_nan, check_device, check_dtype
        self.check_stride = check_stride

    @staticmethod
    def _to_tensor(x):
        if isinstance(x, _Tensor):
            return x
        try:
            return _as_tensor(x)
        except Exception:
            raise _Unsupported from None

    def compare(self):
        a, e = self.actual.detach(), self.expected.detach()

        def mismatch(name, av, ev):
            self._fail(AssertionError, f"The values for attribute '{name}' do not match: {av} != {ev}.")

        if a.shape != e.shape:
            mismatch("shape", a.shape, e.shape)
        if self.check_stride and a.stride() != e.stride():
            mismatch("stride()", a.stride(), e.stride())
        if self.check_device and a.device != e.device:
            mismatch("device", a.device, e.device)
        if self.check_dtype and a.dtype != e.dtype:
            mismatch("dtype", a.dtype, e.dtype)
        if a.dtype != e.dtype:
            # (uint16/32/64 compare as int64: PyTorch's promotion has no rule for them)
            wide = (_D.uint16, _D.uint32, _D.uint64)
            dt = _D.promote_types(_D.int64 if a.dtype in wide else a.dtype,
                                 _D.int64 if e.dtype in wide else e.dtype)
            a, e = a.to(dt), e.to(dt)
        self._compare_values(a, e)

    def _compare_values(self, a, e):
        matches = _isclose(a, e, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan)._data
        if matches.all():
            return
        if a.dim() == 0:
            msg = _scalar_mismatch_msg(a.item(), e.item(), self.rtol, self.atol)
        else:
            msg = _tensor_mismatch_msg(a._data, e._data, _np.asarray(matches), self.rtol, self.atol)
        self._fail(AssertionError, msg)


_PAIRS = (_NonePair, _BooleanPair, _NumberPair, _TensorLikePair)


def _originate(actual, expected, *, id=(), **options):      # noqa: A002
    """The pairs to compare: nested sequences (not strings) and mappings are
    walked, everything else goes to the first pair type that takes it."""
    seq = _abc.Sequence
    if (isinstance(actual, seq) and not isinstance(actual, str)
            and isinstance(expected, seq) and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise _ErrorMeta(AssertionError, f"The length of the sequences mismatch: {len(actual)} != "
                                             f"{len(expected)}", id=id)
        return [p for i in range(len(actual))
                for p in _originate(actual[i], expected[i], id=(*id, i), **options)]
    if isinstance(actual, _abc.Mapping) and isinstance(expected, _abc.Mapping):
        ak, ek = set(actual.keys()), set(expected.keys())
        if ak != ek:
            raise _ErrorMeta(AssertionError, f"The keys of the mappings do not match:\n"
                                             f"Missing keys in the actual mapping: {sorted(ek - ak)}\n"
                                             f"Additional keys in the actual mapping: "
                                             f"{sorted(ak - ek)}", id=id)
        keys = ak
        with _contextlib.suppress(Exception):
            keys = sorted(keys)
        return [p for k in keys for p in _originate(actual[k], expected[k], id=(*id, k), **options)]
    for pair_type in _PAIRS:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except _Unsupported:
            continue
        except _ErrorMeta:
            raise
        except Exception as error:
            name = pair_type.__name__.lstrip("_")
            raise RuntimeError(
                f"Originating a {name}() at item {''.join(str([i]) for i in id)} with\n\n"
                f"{type(actual).__name__}(): {actual}\n\nand\n\n{type(expected).__name__}(): "
                f"{expected}\n\nresulted in the unexpected exception above. If you are a user and "
                f"see this message during normal operation please file an issue at "
                f"https://github.com/pytorch/pytorch/issues. If you are a developer and working on "
                f"the comparison functions, please except the previous error and raise an "
                f"expressive `ErrorMeta` instead.") from error
    raise _ErrorMeta(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} "
                                f"and {type(expected)}.", id=id)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False,
                 msg=None):
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close:
    ``|actual - expected| <= atol + rtol * |expected|`` elementwise (infinities
    only equal to themselves, NaNs equal only with ``equal_nan``), with the
    same shape, device and dtype (unless ``check_device``/``check_dtype`` is
    False; then the values are compared in the promoted dtype) and stride
    (with ``check_stride``).  ``rtol`` and ``atol`` are given together or not
    at all; the defaults depend on the dtypes (the loosest of the two):
    float16 (1e-3, 1e-5), bfloat16 (1.6e-2, 1e-5), float32 and complex64
    (1.3e-6, 1e-5), float64 and complex128 (1e-7, 1e-7), otherwise exact.

    Tensors are compared with tensors (a subclass with its base unless
    ``allow_subclasses=False``), NumPy arrays with NumPy arrays, Python and
    NumPy numbers with numbers (their Python types must match when
    ``check_dtype``), and sequences and mappings element by element.  ``msg``
    replaces the report, or (a callable) is given it and returns the message.
    """
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                   check_stride=check_stride)
    try:
        pairs = _originate(actual, expected, **options)
    except _ErrorMeta as meta:
        raise meta.to_error(msg) from None
    for pair in pairs:
        try:
            pair.compare()
        except _ErrorMeta as meta:
            raise meta.to_error(msg) from None
        except Exception as error:
            raise RuntimeError(
                f"Comparing\n\n{pair}\n\nresulted in the unexpected exception above. If you are a "
                f"user and see this message during normal operation please file an issue at "
                f"https://github.com/pytorch/pytorch/issues. If you are a developer and working on "
                f"the comparison functions, please except the previous error and raise an "
                f"expressive `ErrorMeta` instead.") from error


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated (as in PyTorch): ``assert_close`` with NaNs equal, dtypes not
    checked and the older default tolerances (float16 1e-3/1e-3, float32
    1e-4/1e-5, float64 1e-5/1e-8)."""
    _warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed "
                  "in a future release. Please use `torch.testing.assert_close()` instead. You can "
                  "find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, _Tensor):
        actual = _tensor(actual)
    if not isinstance(expected, _Tensor):
        expected = _tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _default_tolerances(
            actual.dtype, expected.dtype,
            precisions={_D.float16: (1e-3, 1e-3), _D.float32: (1e-4, 1e-5), _D.float64: (1e-5, 1e-8)})
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)


# ------------------------------------------------------------------ make_tensor
_INTS = (_D.uint8, _D.int8, _D.int16, _D.int32, _D.int64, _D.uint16, _D.uint32, _D.uint64)
_FLOATS = (_D.float16, _D.bfloat16, _D.float32, _D.float64)
_COMPLEX = (_D.complex64, _D.complex128)


def _finfo(dtype):
    return _ml_dtypes.finfo(dtype.np) if dtype is _D.bfloat16 else _np.finfo(dtype.np)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of ``shape`` (sizes, or one sequence of them) and ``dtype``
    with values drawn uniformly from ``[low, high)`` by tensorplay's default
    generator.  The defaults are PyTorch's: bool [0, 2), unsigned ints [0, 10),
    signed ints [-9, 10), floating and complex types [-9, 9) (each part); a
    bound beyond the dtype's finite range is clamped to it.  ``noncontiguous``
    makes a strided view (of twice the last size, every other element),
    ``memory_format`` a copy in that layout, ``exclude_zero`` replaces zeros
    by 1 (bool and ints) or the dtype's smallest normal number."""
    dtype = _D.to_dtype(dtype)
    bool_or_int = dtype is _D.bool_ or dtype in _INTS

    def modify_low_high(low, high, lowest_inclusive, highest_exclusive, default_low, default_high):
        low = default_low if low is None else low
        high = default_high if high is None else high
        if any(isinstance(v, float) and _math.isnan(v) for v in (low, high)):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={low!r} and high={high!r}")
        elif low == high and dtype in _FLOATS + _COMPLEX:
            _warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or "
                          "complex types is deprecated since 2.1 and will be removed in 2.3. Use "
                          "`torch.full(...)` instead.", FutureWarning, stacklevel=3)
        elif low >= high:
            raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
        elif high < lowest_inclusive or low >= highest_exclusive:
            raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                             f"but {dtype} only supports [{lowest_inclusive}, {highest_exclusive})")
        low = min(max(low, lowest_inclusive), highest_exclusive)
        high = min(max(high, lowest_inclusive), highest_exclusive)
        if bool_or_int:
            return _math.ceil(low), _math.ceil(high)
        return low, high

    if len(shape) == 1 and isinstance(shape[0], _abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous!r} and "
                         f"memory_format={memory_format!r}")
    if requires_grad and bool_or_int:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, "
                         f"but got dtype={dtype!r}")
    noncontiguous = noncontiguous and _math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])

    if dtype is _D.bool_:
        low, high = modify_low_high(low, high, 0, 2, 0, 2)
        result = _randint(low, high, shape, dtype=dtype, device=device)
    elif dtype in _INTS:
        info = _np.iinfo(dtype.np)
        low, high = modify_low_high(low, high, int(info.min),
                                    int(info.max) + (1 if dtype is not _D.int64 else 0), -9, 10)
        result = _randint(low, high, shape, dtype=dtype, device=device)
    elif dtype in _FLOATS + _COMPLEX:
        fi = _finfo(dtype.to_real())
        low, high = modify_low_high(low, high, float(fi.min), float(fi.max), -9, 9)
        result = _empty(shape, dtype=dtype, device=device)
        target = result
        if dtype in _COMPLEX:
            target = _view_as_real(result)
        if high - low >= float(fi.max):
            target.uniform_(low / 2, high / 2).mul_(2)
        else:
            target.uniform_(low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        f"torch.testing.make_tensor(). To request support, file an issue at: "
                        f"https://github.com/pytorch/pytorch/issues")

    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if bool_or_int else float(_finfo(dtype.to_real()).tiny)
    if dtype in _FLOATS + _COMPLEX:
        result.requires_grad_(requires_grad)
    return result
