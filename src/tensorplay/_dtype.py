"""dtypes and PyTorch's type-promotion rules.

A ``tensorplay.dtype`` names a NumPy dtype (bfloat16 comes from ml_dtypes) and
knows its category.  Promotion follows PyTorch, which differs from NumPy in
two ways that matter: a category beats a size (int16 + float16 -> float16),
and operands are ranked dimensioned tensor > zero-dim tensor > Python scalar,
so ``float32_tensor + float64_scalar_tensor`` stays float32.
"""
import threading

import ml_dtypes
import numpy as np

_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3


class dtype:
    __slots__ = ("name", "np", "category", "itemsize", "is_signed", "_complex", "_real")

    def __init__(self, name, npdt, category):
        self.name = name
        self.np = np.dtype(npdt)
        self.category = category
        self.itemsize = self.np.itemsize
        self.is_signed = category != _BOOL and not (name.startswith("uint"))
        self._complex = self._real = None

    @property
    def is_floating_point(self):
        return self.category == _FLOAT

    @property
    def is_complex(self):
        return self.category == _COMPLEX

    def to_complex(self):
        return self._complex

    def to_real(self):
        return self._real

    def __repr__(self):
        return "tensorplay." + self.name

    def __reduce__(self):
        return self.name


bool_ = dtype("bool", np.bool_, _BOOL)
uint8 = dtype("uint8", np.uint8, _INT)
int8 = dtype("int8", np.int8, _INT)
int16 = dtype("int16", np.int16, _INT)
int32 = dtype("int32", np.int32, _INT)
int64 = dtype("int64", np.int64, _INT)
uint16 = dtype("uint16", np.uint16, _INT)
uint32 = dtype("uint32", np.uint32, _INT)
uint64 = dtype("uint64", np.uint64, _INT)
float16 = dtype("float16", np.float16, _FLOAT)
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, _FLOAT)
float32 = dtype("float32", np.float32, _FLOAT)
float64 = dtype("float64", np.float64, _FLOAT)
complex64 = dtype("complex64", np.complex64, _COMPLEX)
complex128 = dtype("complex128", np.complex128, _COMPLEX)

for _r, _c in ((float16, complex64), (bfloat16, complex64), (float32, complex64), (float64, complex128)):
    _r._complex = _c
for _c, _r in ((complex64, float32), (complex128, float64)):
    _c._real, _c._complex = _r, _c
for _r in (float16, bfloat16, float32, float64):
    _r._real = _r

ALL = (bool_, uint8, int8, int16, int32, int64, uint16, uint32, uint64,
       float16, bfloat16, float32, float64, complex64, complex128)
# NumPy dtype -> tensorplay dtype (``np.dtype`` objects hash by value).
_FROM_NP = {d.np: d for d in ALL}
ALIASES = {"half": float16, "float": float32, "double": float64, "cfloat": complex64,
           "cdouble": complex128, "short": int16, "int": int32, "long": int64, "bool": bool_}
LOW_PRECISION = frozenset({float16.np, bfloat16.np})


def from_numpy_dtype(npdt):
    try:
        return _FROM_NP[npdt]
    except KeyError:
        t = np.dtype(npdt).type
        raise TypeError(f"can't convert np.ndarray of type {t.__module__}.{t.__name__}. The only "
                        "supported types are: float64, float32, float16, complex64, complex128, "
                        "int64, int32, int16, int8, uint64, uint32, uint16, uint8, and bool.") from None


def to_dtype(d):
    """Accept a tensorplay dtype, a NumPy dtype, a Python type or a name."""
    if isinstance(d, dtype):
        return d
    if d is float:                      # (Python's float is a double: PyTorch's float64,
        return float64                  # whatever the default dtype)
    if d is int:
        return int64
    if d is bool:
        return bool_
    if d is complex:
        return complex128
    if isinstance(d, str) and d in ALIASES:
        return ALIASES[d]
    try:
        return from_numpy_dtype(np.dtype(d))
    except TypeError:
        raise TypeError(f"expected a tensorplay.dtype, got {d!r}") from None


class _Defaults(threading.local):
    pass


_default = [float32]          # process-wide, like torch.set_default_dtype


def get_default_dtype():
    return _default[0]


def set_default_dtype(d):
    d = to_dtype(d)
    if d not in (float16, bfloat16, float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d
    _RESULT_CACHE.clear()


# ---------------------------------------------------------------- promotion
_BARE_UINTS = (uint16, uint32, uint64)
_SCALAR_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
                      "int64": "Long", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
                      "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
                      "float64": "Double", "complex64": "ComplexFloat",
                      "complex128": "ComplexDouble"}


def promote_types(a, b):
    """``torch.promote_types`` for two tensorplay dtypes."""
    if a is b:
        return a
    if a in _BARE_UINTS or b in _BARE_UINTS:
        # PyTorch promotes these only with floating types; the names are its ScalarType names
        if a.category == _FLOAT or b.category == _FLOAT:
            return a if a.category == _FLOAT else b
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, attempted "
                           f"to promote {_SCALAR_TYPE_NAMES[a.name]} and {_SCALAR_TYPE_NAMES[b.name]}")
    ca, cb = a.category, b.category
    if ca < cb:
        a, b, ca, cb = b, a, cb, ca          # a is now the higher category
    if ca != cb:
        if cb == _BOOL:
            return a
        if ca == _COMPLEX and cb == _FLOAT:
            return complex128 if b is float64 else a
        return a
    if ca == _FLOAT:
        if {a, b} == {float16, bfloat16}:
            return float32
        if bfloat16 in (a, b):
            return a if b is bfloat16 else b
    return _FROM_NP[np.promote_types(a.np, b.np)]


def _combine(higher, lower):
    """c10's combine_categories: ``higher`` wins unless ``lower`` has a higher category."""
    if higher is None:
        return lower
    if lower is None or higher.category == _COMPLEX:
        return higher
    if lower.category == _COMPLEX:
        return higher.to_complex() if higher.category == _FLOAT else lower
    if higher.category == _FLOAT:
        return higher
    if higher.category == _BOOL or lower.category == _FLOAT:
        return promote_types(higher, lower)
    return higher


_RESULT_CACHE = {}


def scalar_dtype(v):
    """The dtype a Python number takes part in promotion with (a "wrapped number").
    A NumPy scalar counts as the Python number of its kind, as in PyTorch
    (``float32_tensor + np.float64(1)`` stays float32)."""
    t = type(v)
    if t is bool:
        return bool_
    if t is int:
        return int64
    if t is float:
        return _default[0]
    if t is complex:
        return _default[0].to_complex()
    if isinstance(v, np.generic):
        return scalar_dtype(operand_scalar(v))
    return None


def operand_scalar(v):
    """A NumPy scalar in a tensor's place (an operand): the Python number of its
    kind, except that PyTorch takes a NumPy bool there as a float
    (``int_tensor + np.True_`` is float32)."""
    if isinstance(v, np.bool_):
        return float(v)
    return python_scalar(v)


def python_scalar(v):
    """A NumPy scalar as the Python number of its kind (others unchanged)."""
    if isinstance(v, np.generic):
        k = v.dtype.kind
        if k in "fcbiu":
            return v.item()
        if v.dtype in LOW_PRECISION:
            return float(v)
    return v


def result_type3(dim, zero, wrapped):
    """Result dtype from the promoted dtypes of the three operand ranks (None = absent)."""
    key = (dim, zero, wrapped)
    r = _RESULT_CACHE.get(key)
    if r is None:
        r = _RESULT_CACHE[key] = _combine(dim, _combine(zero, wrapped))
    return r


CPP_NAMES = {   # dtype names as PyTorch's C++ messages spell them
              "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
              "int32": "int", "int64": "long int", "uint16": "short unsigned int",
              "uint32": "unsigned int", "uint64": "long unsigned int", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
              "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}
# (the overflow check names the fixed-width integer types, as PyTorch's does)
_CPP_NAMES = dict(CPP_NAMES, int64="int64_t", int16="int16_t", int8="int8_t", uint8="uint8_t")


_RANGES = {}      # NumPy dtype -> (lowest, highest, unsigned) for a number written into it


def float_eps(npdt):
    """The machine epsilon of a float dtype, bfloat16 included (PyTorch's finfo.eps)."""
    return float(ml_dtypes.finfo(npdt).eps)


def float_max(npdt):
    """The largest finite value of a floating dtype (bfloat16 and half included)."""
    return float(ml_dtypes.finfo(npdt).max)


def _range(npdt):
    npdt = np.dtype(npdt)
    if npdt.kind in "iu":
        info = np.iinfo(npdt)
        # (an unsigned type takes negative integers down to -max, wrapping, as PyTorch does)
        r = (-int(info.max) if npdt.kind == "u" else int(info.min), int(info.max), npdt.kind == "u")
    elif npdt.itemsize == 8 and npdt.kind == "f" or npdt.itemsize == 16 and npdt.kind == "c" \
            or npdt.kind == "b":
        r = (None, None, False)
    else:                       # float16, bfloat16, float32, complex64: finite values only
        hi = float_max(np.float32 if npdt.kind == "c" else npdt)
        r = (-hi, hi, False)
    _RANGES[npdt] = r
    return r


def check_fits(value, npdt, floats=True):
    """``value`` as a number a tensor of ``npdt`` can hold, with PyTorch's refusals
    (NumPy would wrap, drop or warn): a complex number with an imaginary part
    into a real or integer tensor, a number out of an integer type's range (an
    integer may wrap into an unsigned type down to -max, a float may not), a
    finite number beyond a float type's largest (not checked with ``floats``
    False: PyTorch's item assignment lets it become inf in half precision)."""
    r = _RANGES.get(npdt) or _range(npdt)
    t = type(value)
    if t is int or t is float:          # (the common case, in range: at once)
        lo = r[0]
        if lo is None or lo <= value <= r[1] and (value >= 0 or not r[2]):
            return value
    elif t is bool or t is np.bool_ or \
            not isinstance(value, (int, float, complex, np.integer, np.floating, np.complexfloating)):
        return value
    npdt = np.dtype(npdt)
    if isinstance(value, (complex, np.complexfloating)):
        if npdt.kind == "c":
            return value
        if npdt.kind == "b":
            return bool(value)
        if value.imag != 0:
            raise _overflow(npdt)
        value = value.real
    lo, hi, unsigned = r
    if lo is None:
        return value
    if npdt.kind in "iu":
        if isinstance(value, (int, np.integer)):
            if not lo <= value <= hi:
                raise _overflow(npdt)
            return int(value) % (hi + 1) if value < 0 and unsigned else value
        if not (0 if unsigned else lo) <= value <= hi:      # (NaN and inf too)
            raise _overflow(npdt)
        return value
    if not floats or value != value or abs(value) == float("inf") or lo <= value <= hi:
        return value
    raise _overflow(npdt)


def _overflow(npdt):
    return RuntimeError(f"value cannot be converted to type {_CPP_NAMES.get(npdt.name, npdt.name)} "
                        f"without overflow")


# ------------------------------------------------------------------ finfo / iinfo
def _short(v):
    return f"{v:.6g}"


class finfo:
    """The numerical properties of a floating dtype (PyTorch's ``torch.finfo``):
    ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``),
    ``resolution`` and ``dtype`` (its name); a complex dtype gives its real
    part's, no argument the default dtype's."""

    def __init__(self, type=None):
        d = get_default_dtype() if type is None else to_dtype(type)
        if d.is_complex:
            d = float64 if d is complex128 else float32
        if not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to "
                            "handle 'torch.finfo'")
        info = ml_dtypes.finfo(d.np)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = d.name

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={_short(self.resolution)}, min={_short(self.min)}, "
                f"max={_short(self.max)}, eps={_short(self.eps)}, "
                f"smallest_normal={_short(self.smallest_normal)}, tiny={_short(self.tiny)}, "
                f"dtype={self.dtype})")


class iinfo:
    """The range of an integer dtype (PyTorch's ``torch.iinfo``): ``bits``,
    ``max``, ``min`` and ``dtype`` (its name)."""

    def __init__(self, type):
        d = to_dtype(type)
        if d is bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d.np.kind not in "iu":
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        info = np.iinfo(d.np)
        self.bits, self.max, self.min, self.dtype = int(info.bits), int(info.max), int(info.min), d.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={_short(self.min)}, max={_short(self.max)}, dtype={self.dtype})"
