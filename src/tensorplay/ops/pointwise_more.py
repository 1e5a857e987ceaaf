"""Pointwise ops beyond arithmetic and elementary functions: comparisons with
a tolerance (isclose, allclose, equal, heaviside), xlogy, hypot, logaddexp(2),
logit, deg2rad/rad2deg, copysign, sinc, nan_to_num and the fused
addcmul/addcdiv.
"""
import math

import ml_dtypes
import numpy as np

from .. import _dtype as _D
from .._tensor import Tensor as _Tensor
from ._families import ELEMENTWISE
from ._registry import by_tensor_arg, defop as _defop, overload_node, public as _public, real_float_kernel
from ._util import (_key, _tname, is_scalar, method_of_function, number_arg, scalar_pair_check, overload_check,
                    tensor_arg, TT, TN,
                    no_complex_autodiff as _no_complex_autodiff)
from .pointwise import conj as _conj, where as _where, binary as _binary, unary as _unary, _zl
from .._out import call_with_out

__all__ = ["isclose", "allclose", "equal", "heaviside", "xlogy", "hypot", "logaddexp", "logaddexp2",
           "logit", "deg2rad", "rad2deg", "addcmul", "addcdiv", "copysign", "sinc", "nan_to_num"]


def _check_same_dtype(x, y):
    if x.dtype != y.dtype:
        raise RuntimeError(f"{_tname(x.dtype)} did not match {_tname(y.dtype)}")


def _isclose_k(x, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    _check_same_dtype(x, other)
    # (a tolerance beyond half's range is inf there, as in PyTorch; NumPy's overflow
    # warning would come from its own module, which tensorplay's filter does not cover)
    with np.errstate(over="ignore"):
        return np.isclose(_key(x), _key(other), rtol=rtol, atol=atol, equal_nan=equal_nan)


def _tensor_pair(fname, second):
    """PyTorch's refusal of a non-tensor on either side (its signature: two Tensors)."""
    def check(x, y, *rest):
        tensor_arg(fname, "input", 1, x)
        tensor_arg(fname, second, 2, y)
    return check


isclose = _defop("isclose", _isclose_k, None, n_in=2, upcast=False, family=ELEMENTWISE,
                 check=_tensor_pair("isclose", "other"))


@_public()
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


@_public()
def equal(input, other):
    """True when both have the same shape and the same elements."""
    for i, t in enumerate((input, other)):
        if not isinstance(t, _Tensor):
            raise TypeError(f"equal(): argument '{('input', 'other')[i]}' (position {i + 1}) must be "
                            f"Tensor, not {type(t).__name__}")
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(np.array_equal(_key(input._data), _key(other._data)))


def _heaviside_k(x, values):
    if x.dtype.kind == "c" or values.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if x.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    kx, kv = _key(x), _key(values)
    return np.where(kx == 0, kv, (kx > 0)).astype(x.dtype)


heaviside = _defop("heaviside", _heaviside_k, None, n_in=2, upcast=False, family=ELEMENTWISE,
                   inplace=True, check=_tensor_pair("heaviside", "values"))


def _lg(y):
    return y.log() if isinstance(y, _Tensor) else float(np.log(y))


def _xlogy_k(x, y):
    dt = x.dtype if isinstance(x, np.ndarray) else y.dtype
    if dt.kind == "c":
        raise NotImplementedError(f"\"xlogy_cpu\" not implemented for '{_tname(dt)}'")
    with np.errstate(divide="ignore", invalid="ignore"):
        x, y = np.asarray(x, dt), np.asarray(y, dt)
        r = x * np.log(y)
        return np.where((x == 0) & ~np.isnan(y), np.zeros((), r.dtype), r).astype(r.dtype)


def _xlogy_vjp_x(g, x, y):             # PyTorch: xlogy(g, y), 0 where x == 0 and y <= 0
    if isinstance(y, _Tensor) and y.dtype != g.dtype:
        y = y.to(g.dtype)                   # (the log in the result's precision)
    r = g * _lg(y)
    if isinstance(y, _Tensor):
        return _where((x == 0) & (y <= 0), 0.0, r)
    return _where(x == 0, 0.0, r) if y <= 0 else r


xlogy = _binary("xlogy", _xlogy_k, {"x": _xlogy_vjp_x,
                                    "y": lambda g, x, y: g * x / y},
                float_only=True, family=ELEMENTWISE, inplace=True, check=scalar_pair_check("xlogy"))
_XLOGY_ST = overload_node(xlogy.op, "XlogyBackward1", hidden=(0,))
_XLOGY_TS = overload_node(xlogy.op, "XlogyBackward2", hidden=(1,))
xlogy.op.variants = lambda a: (_XLOGY_TS if is_scalar(a[1]) else
                               _XLOGY_ST if is_scalar(a[0]) else xlogy.op.node_cls)


hypot = _binary("hypot", np.hypot, {"x": lambda g, result, x: g * x / result,
                                   "y": lambda g, result, y: g * y / result},
                family=ELEMENTWISE, inplace=True, tensors_only=True, **real_float_kernel("hypot_cpu"))


def _logaddexp_k(x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype.kind == "c" or y.dtype.kind == "c":
        with np.errstate(all="ignore"):
            m = np.maximum(x.real, y.real)
            m = np.where(np.isinf(m), 0, m)
            return (m + np.log(np.exp(x - m) + np.exp(y - m))).astype(np.result_type(x, y))
    return np.logaddexp(x, y)


logaddexp = _binary("logaddexp", _logaddexp_k,
                    {"x": lambda g, x, y: g * _conj((x - y).sigmoid()),
                     "y": lambda g, x, y: g * _conj((y - x).sigmoid())},
                    family=ELEMENTWISE, tensors_only=True, no_int="logaddexp_cpu",
                    no_bool="logaddexp_cpu")


# d/dx log2(2^x + 2^y) = 2^x / (2^x + 2^y) = sigmoid((x - y) ln 2)
logaddexp2 = _binary("logaddexp2", np.logaddexp2,
                     {"x": lambda g, x, y: g * ((x - y) * math.log(2.0)).sigmoid(),
                      "y": lambda g, x, y: g * ((y - x) * math.log(2.0)).sigmoid()},
                     family=ELEMENTWISE, tensors_only=True, **real_float_kernel("logaddexp2_cpu"))


def _copysign_vjp_x(g, result, x):      # PyTorch: result / x, and 0 where x is 0
    return g * _where(x == 0, 0.0, result / _where(x == 0, 1.0, x))


copysign = _binary("copysign", np.copysign, {"x": _copysign_vjp_x, "y": lambda g: _zl(g)},
                   float_only=True, family=ELEMENTWISE, inplace=True, no_complex="copysign_cpu",
                   check=overload_check("copysign", (TT, TN)))
copysign.op.variants = by_tensor_arg(1, copysign.op.node_cls,
                                     overload_node(copysign.op, "CopysignBackward1", hidden=(1,)))


# (z cos z - sin z) / z^2 = sum_{n>=1} (-1)^n 2n z^(2n-1) / (2n+1)!: its terms up to z^15,
# enough for float64 precision for |z| < 1 (the closed form loses ~1/z^2 of it to cancellation
# there, and z*z underflows for tiny z)
_SINC_D1 = tuple((-1) ** n * 2 * n / math.factorial(2 * n + 1) for n in range(1, 9))


def _sinc_vjp(g, x):
    # d/dx sin(pi x) / (pi x) = pi (cos z - sin(z) / z) / z with z = pi x, and near 0 its
    # series (odd in z, so 0 at 0 and its own derivative -pi^2 / 3 there, for double
    # backward; PyTorch's is NaN at 0).  Each branch sees only its own inputs, so the
    # other's derivative cannot turn into NaN.
    z = x * math.pi
    small = z.abs() < 1.0
    zs = _where(small, z, 0.0)
    w = zs * zs
    p = _SINC_D1[-1]
    for c in _SINC_D1[-2::-1]:
        p = w * p + c
    ze = _where(small, 1.0, z)
    d = _where(small, p * zs, (ze.cos() - ze.sin() / ze) / ze)
    return g * _conj(d * math.pi)


sinc = _unary("sinc", np.sinc, {"x": _sinc_vjp}, family=ELEMENTWISE, inplace=True)


def _finite_range(dt):
    f = ml_dtypes.finfo(dt) if dt.name == "bfloat16" else np.finfo(dt)
    return f.max, f.min


def _nan_to_num_k(x, nan=0.0, posinf=None, neginf=None):
    if x.dtype.kind in "biu":
        return x.copy()
    if x.dtype.kind == "c":
        return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)
    big, small = _finite_range(x.dtype)     # (in x's own dtype: half's largest for half)
    r = x.copy()
    r[x != x] = nan
    r[x == np.inf] = big if posinf is None else posinf
    r[x == -np.inf] = small if neginf is None else neginf
    return r


nan_to_num = _defop("nan_to_num", _nan_to_num_k, {"x": lambda g, x: _where(x.isfinite(), g, 0.0)},
                    upcast=False, node_name="NanToNumBackward0", family=ELEMENTWISE, inplace=True,
                    no_complex=_no_complex_autodiff("nan_to_num"),
                    numbers=("nan:float", "posinf:float", "neginf:float"))
nan_to_num.as_method = method_of_function(nan_to_num)


def _logit_k(x, eps=None):
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"logit_cpu\" not implemented for '{_tname(x.dtype)}'")
    dt = x.dtype
    with np.errstate(divide="ignore", invalid="ignore"):
        if eps is not None and eps >= 0:
            # PyTorch's clamp: below lo is lo, else above hi is hi (so with eps > 0.5,
            # lo > hi, everything below lo is lo and the rest hi); NaN stays NaN.  lo and
            # hi are in x's own dtype (half's 0.6 for a half x)
            lo = np.asarray(eps).astype(dt)
            hi = np.asarray(1, dt) - lo
            x = np.where(x < lo, lo, np.where(x > hi, hi, x))
        if dt.itemsize == 2:                # half/bfloat16: each step rounded to it, as PyTorch
            f = np.float32
            q = (x.astype(f) / (1 - x.astype(f)).astype(dt).astype(f)).astype(dt)
            return np.log(q.astype(f)).astype(dt)
        return np.log(x / (1 - x))


def _logit_vjp(g, x, eps):
    # PyTorch's logit_backward: with no eps (or a negative one) NaN outside [0, 1] and
    # g / (x (1 - x)) inside (+inf for g > 0 at both ends, -0.0 included: the "+ 0.0"
    # makes the denominator's -0.0 a +0.0); with eps, 0 outside [eps, 1 - eps]
    d = g / (x * (1 - x) + 0.0)
    if eps is None or eps < 0:
        return _where((x < 0) | (x > 1), math.nan, d)
    return _where((x < eps) | (x > 1 - eps), 0.0, d)


logit = _defop("logit", _logit_k, {"x": _logit_vjp}, float_only=True, upcast=False,
               node_name="LogitBackward0",
               family=ELEMENTWISE, inplace=True, numbers=("eps:float",))
logit.as_method = method_of_function(logit)

_D2R = np.pi / 180.0


def _angle_k(factor, name):
    def k(x):
        if x.dtype.kind == "c":
            raise RuntimeError(f"{name} is not supported for complex tensors.")
        return x * np.asarray(factor, x.dtype)
    return k


deg2rad = _unary("deg2rad", _angle_k(_D2R, "deg2rad"), {"x": lambda g: g * _D2R},
                 node_name="Deg2RadBackward0", family=ELEMENTWISE, linear=True, inplace=True)
rad2deg = _unary("rad2deg", _angle_k(1 / _D2R, "rad2deg"), {"x": lambda g: g * (1 / _D2R)},
                 node_name="Rad2DegBackward0", family=ELEMENTWISE, linear=True, inplace=True)


def _addcmul_k(x, tensor1, tensor2, value=1):
    value = number_arg("addcmul", "value", value)   # (a Scalar: no part in the promotion)
    if x.dtype.kind in "iu" and type(value) in (int, float):
        # PyTorch's Scalar in the integer dtype: 2.5 is 2, -1 wraps into uint8, 300 does not fit
        value = int(_D.check_fits(value, x.dtype))
    return x + value * tensor1 * tensor2


addcmul = _defop("addcmul", _addcmul_k,
                 {"x": "grad",
                  "tensor1": lambda g, tensor2, value: g * _conj(tensor2 * value),
                  "tensor2": lambda g, tensor1, value: g * _conj(tensor1 * value)},
                 n_in=3, promote=True, node_name="AddcmulBackward0", family=ELEMENTWISE,
                 inplace=True, kwonly=("value",))


def _addcdiv_k(x, a, b, value=1):
    value = number_arg("addcdiv", "value", value)
    return x + value * a / b


_addcdiv = _defop("addcdiv", _addcdiv_k,
                  {"x": "grad",
                   "a": lambda g, b, value: g * _conj(value / b),
                   "b": lambda g, a, b, value: -g * _conj(value * a / (b * b))},
                  n_in=3, promote=True, node_name="AddcdivBackward0", family=ELEMENTWISE, kwonly=("value",))


@_public(inplace=True)
def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    if out is not None:
        return call_with_out('addcdiv', addcdiv, (input, tensor1, tensor2), {'value': value}, out)
    if all(isinstance(t, _Tensor) and t._data.dtype.kind in "biu" for t in (tensor1, tensor2)):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
            "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
            "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
            "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
            "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
            "for all dtypes.")
    return _addcdiv(input, tensor1, tensor2, value=value)
