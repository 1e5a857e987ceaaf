"""Pointwise ops.  Each entry: name, NumPy kernel, one vjp per input.

vjps follow PyTorch's complex convention: the gradient is the conjugate
Wirtinger derivative, ``grad_in = g * conj(df/dz)`` for holomorphic ``f``; for
real tensors ``conj`` is free.  Broadcasting and dtype are fixed up by the
engine (``validate_grad`` in _tensor.py), so a vjp returns the gradient in the
output's shape.
"""
import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _ndarray, _new
from ..autograd.grad_mode import state
from ._registry import Op, REGISTRY, dispatch, record, defop, record_pointwise, _NO_ARG

_asarray = np.asarray
_FAST = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))
_FAST_REAL = frozenset(np.dtype(t) for t in (np.float32, np.float64))
LN2, LN10 = math.log(2.0), math.log(10.0)

try:                                   # optional: SciPy's erf, erfc, erfinv (faster)
    from scipy.special import erf as _erf, erfc as _erfc, erfinv as _erfinv
except ImportError:                    # NumPy-only kernels (ops/_special.py)
    from ._special import erf as _erf, erfc as _erfc, erfinv as _erfinv


def conj(x):
    """Complex conjugate; free for real tensors and Python reals."""
    if type(x) is float:
        return x
    if isinstance(x, Tensor):
        return _conj(x) if x._data.dtype.kind == "c" else x
    return x.conjugate() if type(x) is complex else x


# The fast paths below (unary fn, binary fast/rfast) repeat the same dozen lines
# that wrap the result and record the node: on purpose, since a shared helper
# would cost one more Python call on every op, the overhead this path exists to cut.
def unary(name, kernel, vjp, *, float_only=True, **kw):
    """A one-input pointwise op with a fast path for float/complex inputs."""
    op = Op(name, kernel, vjp, n_in=1, float_only=float_only, **kw)
    REGISTRY[name] = op
    diff = op.differentiable

    def fn(input):
        try:
            d = input._data
        except AttributeError:
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, "
                            f"not {type(input).__name__}") from None
        if d.dtype not in _FAST:
            return dispatch(op, [input])
        r = kernel(d)
        if type(r) is not _ndarray:
            r = _asarray(r)
        out = _new(Tensor)
        out._data = r
        out._rg = False
        out._grad_fn = None
        if state.enabled:
            if input._rg and diff:
                record_pointwise(op, input, _NO_ARG, out)
        elif state.inference:
            out._inference = True
        return out
    fn.__name__ = fn.__qualname__ = name
    fn.op = op
    fn.ufunc = kernel if isinstance(kernel, np.ufunc) and op.out_dtype is None else None
    return fn


def binary(name, kernel, vjp, fast_kernel=None, **kw):
    """A two-input pointwise op (tensor or Python number on either side) with
    PyTorch's type promotion.  Returns the public function; its ``.fast`` is the
    two-argument spelling used by operators, with a fast path for same-dtype
    float inputs.  Extra kernel parameters (``alpha=``) go the general way."""
    kw.setdefault("promote", True)
    op = Op(name, kernel, vjp, n_in=2, **kw)
    REGISTRY[name] = op
    fast_ok = op.out_dtype is None
    kernel = fast_kernel or kernel
    diff = op.differentiable

    def fast(input, other):
        try:
            xd = input._data
        except AttributeError:
            return dispatch(op, [input, other])
        to = type(other)
        if to is float or to is int:
            if not fast_ok or xd.dtype not in _FAST:
                return dispatch(op, [input, other])
            r = kernel(xd, other)
            grad = input._rg
        else:
            try:
                yd = other._data
            except AttributeError:
                return dispatch(op, [input, other])
            if xd.dtype is not yd.dtype or not fast_ok or xd.dtype not in _FAST:
                return dispatch(op, [input, other])
            try:
                r = kernel(xd, yd)
            except ValueError:
                raise broadcast_error(xd.shape, yd.shape) from None
            grad = input._rg or other._rg
        if type(r) is not _ndarray:
            r = _asarray(r)
        out = _new(Tensor)
        out._data = r
        out._rg = False
        out._grad_fn = None
        if state.enabled:
            if grad and diff:
                record_pointwise(op, input, other, out)
        elif state.inference:
            out._inference = True
        return out

    def rfast(input, other):
        """``other (op) input`` for a Python number ``other`` (reflected operators)."""
        to = type(other)
        if (to is not float and to is not int) or not fast_ok:
            return dispatch(op, [other, input])
        xd = input._data
        if xd.dtype not in _FAST:
            return dispatch(op, [other, input])
        r = kernel(other, xd)
        if type(r) is not _ndarray:
            r = _asarray(r)
        out = _new(Tensor)
        out._data = r
        out._rg = False
        out._grad_fn = None
        if state.enabled:
            if input._rg and diff:
                record_pointwise(op, other, input, out)
        elif state.inference:
            out._inference = True
        return out

    if len(op.names) == 2:
        fn = fast
    else:
        def fn(input, other, *args, **kwargs):
            if not args and not kwargs:
                return fast(input, other)
            return dispatch(op, op.bind((input, other) + args, kwargs, name))
    fast.__name__ = fast.__qualname__ = fn.__name__ = fn.__qualname__ = name
    fn.op = fast.op = op
    fn.fast = fast
    fn.rfast = rfast
    # for in-place ops outside autograd: compute straight into the tensor's memory
    fn.ufunc = fast.ufunc = kernel if isinstance(kernel, np.ufunc) and op.out_dtype is None else None
    return fn


def broadcast_error(a, b):
    """PyTorch's error for shapes that do not broadcast."""
    n = max(len(a), len(b))
    a1, b1 = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    for i in range(n - 1, -1, -1):
        if a1[i] != b1[i] and a1[i] != 1 and b1[i] != 1:
            return RuntimeError(f"The size of tensor a ({a1[i]}) must match the size of tensor b "
                                f"({b1[i]}) at non-singleton dimension {i}")
    return RuntimeError(f"shapes {list(a)} and {list(b)} cannot be broadcast together")


def _zl(g):
    """Zeros shaped like ``g``, outside any graph (the derivative of a constant)."""
    from .._tensor import _wrap
    return _wrap(np.zeros(g._data.shape, g._data.dtype))


def _k_with_alpha(f):
    def k(x, y, alpha=1):
        return f(x, y) if alpha == 1 else f(x, np.multiply(y, alpha))
    return k


# --------------------------------------------------------------------- arithmetic
conj_physical = _conj = unary("conj_physical", np.conjugate, lambda g, out, x: g.conj(), float_only=False)
add = binary("add", _k_with_alpha(np.add), (lambda g, out, x, y, alpha=1: g,
                                            lambda g, out, x, y, alpha=1:
                                            g if alpha == 1 else g * conj(alpha)),
             fast_kernel=np.add)
sub = binary("sub", _k_with_alpha(np.subtract), (lambda g, out, x, y, alpha=1: g,
                                                 lambda g, out, x, y, alpha=1: -g * conj(alpha)),
             fast_kernel=np.subtract)
subtract = sub
mul = binary("mul", np.multiply, (lambda g, out, x, y: g * conj(y), lambda g, out, x, y: g * conj(x)))


def _div_kernel(x, y, rounding_mode=None):
    if rounding_mode is None:
        return np.true_divide(x, y)
    if rounding_mode == "trunc":
        r = np.true_divide(x, y) if x.dtype.kind == "f" else _int_div(x, y)
        return np.trunc(r).astype(r.dtype) if r.dtype.kind == "f" else r
    if rounding_mode == "floor":
        return np.floor_divide(x, y)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                       f"found '{rounding_mode}'")


def _int_div(x, y):
    if np.any(np.asarray(y) == 0):
        raise RuntimeError("ZeroDivisionError")
    q = np.floor_divide(x, y)
    return q + ((np.remainder(x, y) != 0) & ((np.asarray(x) < 0) != (np.asarray(y) < 0)))


def _div_vjp_x(g, out, x, y, rounding_mode=None):
    return g / conj(y) if rounding_mode is None else _zl(g)


def _div_vjp_y(g, out, x, y, rounding_mode=None):
    return -g * conj(x / (y * y)) if rounding_mode is None else _zl(g)


_div_rounding = binary("div_rounding", _div_kernel, (_div_vjp_x, _div_vjp_y),
                       node_name="DivBackward1")
_div = binary("div", np.true_divide, (lambda g, out, x, y: g / conj(y),
                                      lambda g, out, x, y: -g * conj(x / (y * y))), float_only=True)


def div(input, other, *, rounding_mode=None):
    if rounding_mode is None:
        return _div(input, other)
    return _div_rounding(input, other, rounding_mode)


div.fast, div.rfast = _div.fast, _div.rfast
true_divide = divide = _div

def _no_derivative(name):
    def vjp(g, out, x, y):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return vjp


floor_divide = binary("floor_divide", np.floor_divide,
                      (_no_derivative("floor_divide"), _no_derivative("floor_divide")))
remainder = binary("remainder", np.remainder,
                   (lambda g, out, x, y: g, lambda g, out, x, y: -g * (x / y).floor()))
fmod = binary("fmod", np.fmod, (lambda g, out, x, y: g, lambda g, out, x, y: -g * (x / y).trunc()))


def _pow_vjp_x(g, out, x, e):
    if isinstance(e, Tensor):
        return where(e == 0, 0.0, g * conj(e * x ** (e - 1)))
    if e == 0:
        return _zl(g)
    return g * conj(e * x ** (e - 1))


def _pow_vjp_e(g, out, x, e):
    if isinstance(x, Tensor):
        ge = g * conj(out * x.log())
        nonneg = (e.real if e.is_complex() else e) >= 0
        return where((x == 0) & nonneg, 0.0, ge)       # 0**e has slope 0 in e for e >= 0
    if type(x) is complex or e.is_complex():
        logx = complex(np.log(complex(x)))
    else:                       # a real exponent: log of a negative base is nan, as in torch
        logx = math.log(x) if x > 0 else -math.inf if x == 0 else math.nan
    ge = g * conj(out * logx)
    return where(e >= 0, 0.0, ge) if x == 0 else ge


def _pow_kernel(x, e):
    if isinstance(x, np.ndarray) and x.dtype.kind in "iu":
        ea = np.asarray(e)
        if ea.dtype.kind in "iu" and np.any(ea < 0):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
    return np.power(x, e)


pow = binary("pow", _pow_kernel, (_pow_vjp_x, _pow_vjp_e), node_name="PowBackward1")
# PyTorch's overloads: tensor ** number is PowBackward0, number ** tensor PowBackward2,
# each with the one edge of its tensor argument
_POW_TS = type("PowBackward0", (pow.op.node_cls,), {"__slots__": (), "_scalar_args_hidden": True})
_POW_ST = type("PowBackward2", (pow.op.node_cls,), {"__slots__": (), "_scalar_args_hidden": True})
pow.op.variants = lambda x, y: (_POW_TS if type(y) in (int, float) else
                                _POW_ST if type(x) in (int, float) else pow.op.node_cls)


def float_power(input, exponent):
    """``pow`` computed in double precision (complex128 if either side is complex)."""
    def up(v):
        if isinstance(v, Tensor):
            return v.to(D.complex128 if v.is_complex() else D.float64)
        return v
    return pow(up(input), up(exponent))


neg = unary("neg", np.negative, lambda g, out, x: -g, float_only=False)
negative = neg
positive = unary("positive", np.positive, lambda g, out, x: g, float_only=False)


def _abs_vjp(g, out, x):
    return g * x.sgn()


abs = unary("abs", np.abs, _abs_vjp, float_only=False)
absolute = abs


def _sgn_kernel(x):
    if x.dtype.kind == "c":
        a = np.abs(x)
        return np.where(a == 0, 0, x / np.where(a == 0, 1, a)).astype(x.dtype)
    return np.sign(x)


def _sgn_vjp(g, out, x):
    if not x.is_complex():
        return _zl(g)
    a = x.abs()
    return where(a == 0, 0.0, (g - (out.conj() * g).real * out) / where(a == 0, 1.0, a))


sgn = unary("sgn", _sgn_kernel, _sgn_vjp, float_only=False)
sign = unary("sign", np.sign, lambda g, out, x: _zl(g), float_only=False)
square = unary("square", np.square, lambda g, out, x: g * conj(2 * x), float_only=False)
reciprocal = unary("reciprocal", np.reciprocal, lambda g, out, x: -g * conj(out * out))
sqrt = unary("sqrt", np.sqrt, lambda g, out, x: g / (2 * conj(out)))
rsqrt = unary("rsqrt", lambda x: 1 / np.sqrt(x), lambda g, out, x: -0.5 * g * conj(out * out * out))
exp = unary("exp", np.exp, lambda g, out, x: g * conj(out))
exp2 = unary("exp2", np.exp2, lambda g, out, x: g * conj(out * LN2))
expm1 = unary("expm1", np.expm1, lambda g, out, x: g * conj(out + 1))
log = unary("log", np.log, lambda g, out, x: g / conj(x))
log2 = unary("log2", np.log2, lambda g, out, x: g / conj(x * LN2))
log10 = unary("log10", np.log10, lambda g, out, x: g / conj(x * LN10))
log1p = unary("log1p", np.log1p, lambda g, out, x: g / conj(x + 1))
sin = unary("sin", np.sin, lambda g, out, x: g * conj(x.cos()))
cos = unary("cos", np.cos, lambda g, out, x: -g * conj(x.sin()))
tan = unary("tan", np.tan, lambda g, out, x: g * conj(1 + out * out))
asin = unary("asin", np.arcsin, lambda g, out, x: g * conj((1 - x * x).rsqrt()))
acos = unary("acos", np.arccos, lambda g, out, x: -g * conj((1 - x * x).rsqrt()))
atan = unary("atan", np.arctan, lambda g, out, x: g / conj(1 + x * x))
sinh = unary("sinh", np.sinh, lambda g, out, x: g * conj(x.cosh()))
cosh = unary("cosh", np.cosh, lambda g, out, x: g * conj(x.sinh()))
# backward kernels as ops of their own (as PyTorch has them): one dispatch instead
# of three in the common backward pass, and still differentiable
def _tanh_bw_k(g, y):
    if y.dtype.kind == "c":
        return g * np.conjugate(1 - y * y)
    return g - g * y * y        # array-array ops only: NumPy's Python-scalar path is slower


tanh_backward = binary("tanh_backward", _tanh_bw_k,
                       (lambda gg, out, g, y: tanh_backward(gg, conj(y)),
                        lambda gg, out, g, y: conj(gg) * g * (-2 * conj(y))))
tanh = unary("tanh", np.tanh, lambda g, out, x: tanh_backward(g, out))


def _sigmoid_bw_k(g, y):
    if y.dtype.kind == "c":
        return g * np.conjugate(y * (1 - y))
    return g * (y - y * y)


sigmoid_backward = binary("sigmoid_backward", _sigmoid_bw_k,
                          (lambda gg, out, g, y: sigmoid_backward(gg, conj(y)),
                           lambda gg, out, g, y: conj(gg * conj(g) * (1 - 2 * y))))
asinh = unary("asinh", np.arcsinh, lambda g, out, x: g * conj((x * x + 1).rsqrt()))
acosh = unary("acosh", np.arccosh, lambda g, out, x: g * conj(((x - 1).sqrt() * (x + 1).sqrt()).reciprocal()))
atanh = unary("atanh", np.arctanh, lambda g, out, x: g / conj(1 - x * x))
arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh
atan2 = binary("atan2", np.arctan2, (lambda g, out, y, x: g * x / (x * x + y * y),
                                     lambda g, out, y, x: -g * y / (x * x + y * y)), float_only=True)
arctan2 = atan2


def _sigmoid_k(x):
    if x.dtype.kind == "c":
        return 1 / (1 + np.exp(-x))
    # split by sign so that exp never overflows
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)


sigmoid = unary("sigmoid", _sigmoid_k, lambda g, out, x: sigmoid_backward(g, out))


def _logsigmoid_k(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


logsigmoid = unary("log_sigmoid", _logsigmoid_k, lambda g, out, x: g * (-x).sigmoid(),
                   node_name="LogSigmoidBackward0")
def _relu_bw_k(g, y):
    return _np_where(y > 0, g, np.zeros((), g.dtype))


# PyTorch's threshold_backward: the output is an input of this node, so a second
# derivative through relu exists (and is zero) instead of "does not require grad"
relu_backward = binary("relu_backward", _relu_bw_k,
                       (lambda gg, out, g, y: relu_backward(gg, y),
                        lambda gg, out, g, y: _zl(gg)), node_name="ThresholdBackwardBackward0")
relu = unary("relu", lambda x: np.maximum(x, 0).astype(x.dtype, copy=False),
             lambda g, out, x: relu_backward(g, out), float_only=False)
_SQRT1_2, _2_SQRTPI = 1 / math.sqrt(2.0), 2 / math.sqrt(math.pi)
_SQRT_2_PI = math.sqrt(2.0 / math.pi)


def _gelu_k(x, approximate="none"):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(_SQRT_2_PI * (x + 0.044715 * x ** 3)))
    if approximate != "none":
        raise RuntimeError("approximate argument must be either none or tanh.")
    return (0.5 * x * (1 + _erf(x * _SQRT1_2))).astype(x.dtype)


def _gelu_vjp(g, out, x, approximate="none"):
    if approximate == "tanh":
        inner = _SQRT_2_PI * (x + 0.044715 * x * x * x)
        t = inner.tanh()
        d_inner = _SQRT_2_PI * (1 + 3 * 0.044715 * x * x)
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * d_inner)
    cdf = 0.5 * (1 + (x * _SQRT1_2).erf())
    pdf = (-0.5 * x * x).exp() * (_2_SQRTPI * _SQRT1_2 * 0.5)
    return g * (cdf + x * pdf)


gelu = defop("gelu", _gelu_k, _gelu_vjp, float_only=True)


def _silu_vjp(g, out, x):
    s = x.sigmoid()
    return g * conj(s * (1 + x * (1 - s)))


silu = unary("silu", lambda x: x * _sigmoid_k(x), _silu_vjp)


def _softplus_k(x, beta=1.0, threshold=20.0):
    bx = x * beta
    return np.where(bx > threshold, x, np.logaddexp(0, bx) / beta).astype(x.dtype)


softplus = defop("softplus", _softplus_k,
                 lambda g, out, x, beta=1.0, threshold=20.0:
                 where(x * beta > threshold, g, g * (x * beta).sigmoid()), float_only=True)
erf = unary("erf", lambda x: _erf(x), lambda g, out, x: g * (_2_SQRTPI * (-x * x).exp()))
erfc = unary("erfc", lambda x: _erfc(x), lambda g, out, x: -g * (_2_SQRTPI * (-x * x).exp()))
erfinv = unary("erfinv", _erfinv, lambda g, out, x: g * (0.5 * math.sqrt(math.pi) * (out * out).exp()))

_zero_vjp = lambda g, out, x: _zl(g)   # noqa: E731  piecewise-constant ops
floor = unary("floor", np.floor, _zero_vjp, float_only=False)
ceil = unary("ceil", np.ceil, _zero_vjp, float_only=False)
trunc = unary("trunc", np.trunc, _zero_vjp, float_only=False)
fix = trunc
frac = unary("frac", lambda x: x - np.trunc(x), lambda g, out, x: g)


def _round_k(x, decimals=0):
    return np.round(x, decimals)


round = defop("round", _round_k, lambda g, out, x, decimals=0: _zl(g))


# --------------------------------------------------------------------- clamp, min/max, where, lerp
def _clamp_k(x, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    r = x
    if min is not None:
        r = np.maximum(r, min)
    if max is not None:
        r = np.minimum(r, max)
    return r.astype(np.result_type(x, *(v for v in (min, max) if v is not None)), copy=False)


def _clamp_vjp_x(g, out, x, min=None, max=None):
    mask = None
    if min is not None:
        mask = x >= min
    if max is not None:
        m2 = x <= max
        mask = m2 if mask is None else mask & m2
    return where(mask, g, 0.0)


def _clamp_vjp_min(g, out, x, min=None, max=None):
    m = x < min
    if max is not None:
        m = m & (min <= max)
    return where(m, g, 0.0)


def _clamp_vjp_max(g, out, x, min=None, max=None):
    return where(x > max, g, 0.0)


clamp = defop("clamp", _clamp_k, (_clamp_vjp_x, _clamp_vjp_min, _clamp_vjp_max), n_in=3,
              promote=True)
clip = clamp


def clamp_min(input, min):
    return clamp(input, min=min)


def clamp_max(input, max):
    return clamp(input, max=max)


maximum = binary("maximum", np.maximum,
                 (lambda g, out, x, y: where(x == y, g / 2, where(x > y, g, 0.0)),
                  lambda g, out, x, y: where(x == y, g / 2, where(y > x, g, 0.0))))
minimum = binary("minimum", np.minimum,
                 (lambda g, out, x, y: where(x == y, g / 2, where(x < y, g, 0.0)),
                  lambda g, out, x, y: where(x == y, g / 2, where(y < x, g, 0.0))))
fmax = binary("fmax", np.fmax, maximum.op.vjp)
fmin = binary("fmin", np.fmin, minimum.op.vjp)


def _where_k(condition, input, other):
    return np.where(condition, input, other)


def _where_vjp_x(g, out, condition, input, other):
    return _where(condition, g, 0.0)


def _where_vjp_y(g, out, condition, input, other):
    return _where(condition, 0.0, g)


_where_op = Op("where", _where_k, (None, _where_vjp_x, _where_vjp_y), n_in=3, upcast=False)
REGISTRY["where"] = _where_op


def _where(condition, input, other):
    c = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if c.dtype != np.bool_:
        if c.dtype == np.uint8:
            c = c.astype(np.bool_)
        else:
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                               f"with dtype {D._FROM_NP[c.dtype].name.capitalize()}")
    from .._tensor import _wrap
    cond_t = condition if isinstance(condition, Tensor) else _wrap(c)
    rdt = _where_dtype(input, other)
    xd = input._data.astype(rdt.np, copy=False) if isinstance(input, Tensor) else np.asarray(input, rdt.np)
    yd = other._data.astype(rdt.np, copy=False) if isinstance(other, Tensor) else np.asarray(other, rdt.np)
    out = _wrap(_np_where(c, xd, yd))
    if state.enabled and ((isinstance(input, Tensor) and input._rg) or
                          (isinstance(other, Tensor) and other._rg)):
        record(_where_op, [cond_t, input, other], out)
    return out


def _np_where(c, x, y):
    """``np.where``, with a fast path for "x or zero" (a masked gradient): a
    multiply by the mask is ~10x faster than np.where, and exact unless x holds
    inf/nan at masked-out places, which is checked."""
    if y.ndim == 0 and x.shape == c.shape and x.dtype.kind in "fc" and not y.any() \
            and np.isfinite(x).all():
        return np.asarray(x * c)       # (a 0-d product is a NumPy scalar)
    return np.asarray(np.where(c, x, y))


def _where_dtype(x, y):
    from ._registry import _result_dtype
    return _result_dtype([x, y], 2)


def where(condition, input=None, other=None):
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    return _where(condition, input, other)


lerp = defop("lerp", lambda start, end, weight: start + weight * (end - start),
             (lambda g, out, start, end, weight: g * conj(1 - weight),
              lambda g, out, start, end, weight: g * conj(weight),
              lambda g, out, start, end, weight: g * conj(end - start)), n_in=3, promote=True)


# --------------------------------------------------------------------- non-differentiable
def _cmp(name, k):
    return binary(name, k, None, out_dtype=D.bool_)


eq, ne, lt, le, gt, ge = (_cmp(n, k) for n, k in (("eq", np.equal), ("ne", np.not_equal),
                                                  ("lt", np.less), ("le", np.less_equal),
                                                  ("gt", np.greater), ("ge", np.greater_equal)))
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
logical_and = _cmp("logical_and", np.logical_and)
logical_or = _cmp("logical_or", np.logical_or)
logical_xor = _cmp("logical_xor", np.logical_xor)
logical_not = unary("logical_not", np.logical_not, None, float_only=False, upcast=False)
bitwise_and = binary("bitwise_and", np.bitwise_and, None)
bitwise_or = binary("bitwise_or", np.bitwise_or, None)
bitwise_xor = binary("bitwise_xor", np.bitwise_xor, None)
bitwise_not = unary("bitwise_not", np.invert, None, float_only=False, upcast=False)
isnan = unary("isnan", np.isnan, None, float_only=False, upcast=False)
isinf = unary("isinf", np.isinf, None, float_only=False, upcast=False)
isfinite = unary("isfinite", np.isfinite, None, float_only=False, upcast=False)
isposinf = unary("isposinf", np.isposinf, None, float_only=False, upcast=False)
isneginf = unary("isneginf", np.isneginf, None, float_only=False, upcast=False)
signbit = unary("signbit", np.signbit, None, float_only=False, upcast=False)
