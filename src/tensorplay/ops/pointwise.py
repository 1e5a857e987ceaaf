"""Pointwise ops.  Each entry: name, NumPy kernel, the vjp of each differentiable
input keyed by the input's name (its parameters name what it reads: ``result``
or the op's own parameters; ufunc kernels' inputs are ``x`` and ``y``), and its
family (ELEMENTWISE for all of these).

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
from .._autograd.grad_mode import INFERENCE_THREADS, state
from ._registry import (Op, REGISTRY, TRANSFORMS, dispatch, intercept, record, defop, public,
                        record_pointwise, by_tensor_arg, op_spelled, overload_node, _NO_ARG,
                        _result_dtype, broadcast_error, real_float_kernel, _PLAIN, not_implemented)
from .._out import call_with_out
from ._families import ELEMENTWISE
from ._util import is_scalar, _tname, number_arg, no_complex_autodiff, overload_check, TT, NT, TN
from .._tensor import _wrap
from .._creation import full_like as _full_like

__all__ = ["conj", "conj_physical", "add", "sub", "subtract", "rsub", "mul", "div", "true_divide",
           "divide", "floor_divide", "remainder", "fmod", "pow", "float_power", "neg", "negative",
           "positive", "abs", "absolute", "sgn", "sign", "square", "reciprocal", "sqrt", "rsqrt",
           "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin",
           "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "arcsin", "arccos",
           "arctan", "arcsinh", "arccosh", "arctanh", "atan2", "arctan2", "sigmoid", "relu", "erf",
           "erfc", "erfinv", "floor", "ceil", "trunc", "fix", "frac", "round", "clamp", "clip",
           "clamp_min", "clamp_max", "maximum", "minimum", "fmax", "fmin", "where", "lerp", "eq",
           "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal",
           "not_equal", "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and",
           "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift",
           "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "isreal"]

_asarray = np.asarray
_FAST = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))
# per fast dtype: Python number -> that number as a 0-d array of the dtype (_scalar)
_SCALARS = {dt: {} for dt in _FAST}
# PyTorch's words for clamp and the ops it runs through clamp (relu, hardtanh)
_CLAMP_COMPLEX = NotImplementedError("clamp is not supported for complex types")


def _scalar(cache, v, dt):
    """``v`` as a 0-d array of ``dt``, for a ufunc kernel on an array of ``dt``.
    NumPy converts a Python number to the array's dtype anyway (NEP 50), so the
    result is the same bit for bit, and an array argument costs ~0.3 us less per
    call than a number.  Zeros (0.0 and -0.0 are one key), NaN and a value that
    ``dt`` cannot hold stay numbers (NumPy then warns or raises as before)."""
    if not v or v != v:
        return v
    try:
        with np.errstate(over="raise"):
            a = np.array(v, dt)
    except (OverflowError, FloatingPointError):
        return v
    a.flags.writeable = False
    if len(cache) >= 512:       # (a changing scalar, a learning rate schedule: keep it small)
        cache.clear()
    cache[v] = a
    return a

_FAST_REAL = frozenset(np.dtype(t) for t in (np.float32, np.float64))
LN2, LN10 = math.log(2.0), math.log(10.0)

try:                                   # optional: SciPy's erf, erfc, erfinv (faster)
    from scipy.special import erf as _erf, erfc as _erfc, erfinv as _erfinv
except ImportError:                    # NumPy-only kernels (ops/_special.py)
    from ._special import erf as _erf, erfc as _erfc, erfinv as _erfinv


@public()
def conj(x):
    """Complex conjugate; free for real tensors and Python reals."""
    if type(x) is float:
        return x
    if isinstance(x, Tensor):
        if x._data.dtype.kind != "c":
            return x
        r = _conj(x)
        # a copy, where PyTorch's is a lazy view of x: marked, so that a write into it
        # (which would not reach x here) is refused, and is_conj() says True
        r._conj_copy = True
        return r
    return x.conjugate() if type(x) is complex else x


# The fast paths below (unary fn, binary fast/rfast) repeat the same dozen lines
# that wrap the result and record the node: on purpose, since a shared helper
# would cost one more Python call on every op, the overhead this path exists to cut.
def unary(name, kernel, derivatives=None, *, float_only=True, fast_kernel=None, **kw):
    """A one-input pointwise op with a fast path for float/complex inputs
    (``fast_kernel``, if given, computes those: a ufunc where ``kernel`` wraps
    it for other dtypes).  A ufunc kernel's input is called ``x``."""
    if isinstance(kernel, np.ufunc):
        kw.setdefault("args", ("x",))
    op = Op(name, kernel, derivatives, n_in=1, float_only=float_only, **kw)
    kernel = fast_kernel or kernel
    REGISTRY[name] = op
    diff = op.differentiable
    fast_dtypes = _FAST if op.plain_dtypes is _PLAIN else _FAST_REAL    # (no_complex)

    def fn(input, *, out=None):
        if out is not None:
            return call_with_out(name, fn, (input,), {}, out)
        if TRANSFORMS:
            return intercept(op, [input])
        try:
            d = input._data
        except AttributeError:
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, "
                            f"not {type(input).__name__}") from None
        if d.dtype not in fast_dtypes:
            return dispatch(op, [input])
        r = kernel(d)
        if type(r) is not _ndarray:
            r = _asarray(r)
        out = _new(Tensor)
        out._data = r
        out._rg = False
        out._gfn = None
        out._vc = out._base = None
        if state.enabled:
            if input._rg and diff:
                record_pointwise(op, input, _NO_ARG, out)
        elif INFERENCE_THREADS[0] and state.inference:
            out._make_inference()
        return out
    fn.__name__ = fn.__qualname__ = name
    fn.op = op
    fn.spelling = op.spelling
    fn.ufunc = kernel if isinstance(kernel, np.ufunc) and op.out_dtype is None else None
    fn.ufunc_dtypes = fast_dtypes
    return fn


def binary(name, kernel, derivatives=None, fast_kernel=None, commutative=False, tensors_only=False,
           **kw):
    """A two-input pointwise op (tensor or Python number on either side) with
    PyTorch's type promotion.  Returns the public function; its ``.fast`` is the
    two-argument spelling used by operators, with a fast path for same-dtype
    float inputs.  Extra kernel parameters (``alpha=``) go the general way.
    A ``commutative`` op's reflected operator (``2 * x``) is ``x * 2``, as in
    PyTorch: the tensor's edge comes first in the node.  ``reflected_node``: the
    name of the node the reflected operator with a number records, when PyTorch
    runs another op there (``2 - x`` is its rsub: RsubBackward1, one slot).
    ``tensors_only``: PyTorch's signature takes two tensors (maximum, atan2...):
    a number on either side is refused with its TypeError (the method's
    ``other`` is its argument 1)."""
    kw.setdefault("promote", True)
    check = kw.pop("check", None)
    if tensors_only:                    # (numbers then leave the fast path for this check)
        check = _tensors_only_check(name, check)
    reflected_node = kw.pop("reflected_node", None)
    if isinstance(kernel, np.ufunc):
        kw.setdefault("args", ("x", "y"))
    op = Op(name, kernel, derivatives, n_in=2, **kw)
    REGISTRY[name] = op
    fast_ok = op.out_dtype is None
    fast_dtypes = _FAST if op.plain_dtypes is _PLAIN else _FAST_REAL    # (no_complex)
    rop = op        # the op the reflected operator records (number - tensor: PyTorch's rsub)
    if reflected_node is not None:
        rop = op_spelled(op, overload_node(op, reflected_node, hidden=(0,)))
    kernel = fast_kernel or kernel
    diff = op.differentiable
    scalars = _SCALARS if isinstance(kernel, np.ufunc) else {}     # (see _scalar)
    if check is None:
        slow = dispatch
    else:
        # a check of the arguments as given (before promotion makes a Python -1 a
        # uint8 255, or False a 0.0), on the general path only: the fast paths take
        # same-dtype float tensors, or a float tensor and a number, which it passes
        def slow(op, args):
            check(*args)
            return dispatch(op, args)

    def fast(input, other):
        if TRANSFORMS:
            if check is not None:
                check(input, other)
            return intercept(op, [input, other])
        try:
            xd = input._data
        except AttributeError:
            return slow(op, [input, other])
        to = type(other)
        if to is float or to is int:
            if not fast_ok or xd.dtype not in fast_dtypes or tensors_only:
                return slow(op, [input, other])
            cache = scalars.get(xd.dtype)
            if cache is not None:
                s = cache.get(other)
                r = kernel(xd, _scalar(cache, other, xd.dtype) if s is None else s)
            else:
                r = kernel(xd, other)
            grad = input._rg
        else:
            try:
                yd = other._data
                ydt = yd.dtype
            except AttributeError:
                if other is None or to in _NOT_OPERANDS or (
                        hasattr(other, "_data") and not isinstance(other, Tensor)):
                    return NotImplemented       # (t == None is False, t + [1] a TypeError; a
                return slow(op, [input, other])  # text Variable holds no array in its _data)
            if xd.dtype is not ydt or not fast_ok or xd.dtype not in fast_dtypes:
                return slow(op, [input, other])
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
        out._gfn = None
        out._vc = out._base = None
        if state.enabled:
            if grad and diff:
                record_pointwise(op, input, other, out)
        elif INFERENCE_THREADS[0] and state.inference:
            out._make_inference()
        return out

    def rfast(input, other):
        """``other (op) input`` for a Python number ``other`` (reflected operators)."""
        if TRANSFORMS:
            if check is not None:
                check(other, input)
            return intercept(rop, [other, input])
        to = type(other)
        if (to is not float and to is not int) or not fast_ok:
            if other is None or to in _NOT_OPERANDS:
                return NotImplemented
            return slow(rop, [other, input])
        xd = input._data
        if xd.dtype not in fast_dtypes:
            return slow(rop, [other, input])
        cache = scalars.get(xd.dtype)
        if cache is not None:
            s = cache.get(other)
            r = kernel(_scalar(cache, other, xd.dtype) if s is None else s, xd)
        else:
            r = kernel(other, xd)
        if type(r) is not _ndarray:
            r = _asarray(r)
        out = _new(Tensor)
        out._data = r
        out._rg = False
        out._gfn = None
        out._vc = out._base = None
        if state.enabled:
            if input._rg and diff:
                record_pointwise(rop, other, input, out)
        elif INFERENCE_THREADS[0] and state.inference:
            out._make_inference()
        return out

    second = op.names[1] if op.names[1] not in ("y", "other") else None
    if len(op.names) == 2 and second is None:
        def fn(input, other, *, out=None):
            if out is not None:         # (the operators call ``fast``: no cost for them)
                return call_with_out(name, fast, (input, other), {}, out)
            r = fast(input, other)
            if r is NotImplemented:
                raise _not_operand(name, other)
            return r
    elif len(op.names) == 2:
        def fn(input, *args, out=None, **kwargs):
            # (the second parameter has a name of its own in PyTorch: pow's exponent)
            if kwargs:
                if args or list(kwargs) != [second]:
                    op.bind((input,) + args, kwargs, name)      # (its TypeError)
                args = (kwargs[second],)
            if len(args) != 1:
                op.bind((input,) + args, {}, name)
            if out is not None:
                return call_with_out(name, fast, (input, args[0]), {}, out)
            r = fast(input, args[0])
            if r is NotImplemented:
                raise _not_operand(name, args[0])
            return r
    else:
        def fn(input, other, *args, **kwargs):
            if not args and not kwargs:
                r = fast(input, other)
                if r is NotImplemented:
                    raise _not_operand(name, other)
                return r
            out = kwargs.pop("out", None)
            if out is not None:
                return call_with_out(name, fn, (input, other) + args, kwargs, out)
            return slow(op, op.bind((input, other) + args, kwargs, name))
    fast.__name__ = fast.__qualname__ = fn.__name__ = fn.__qualname__ = name
    fn.op = fast.op = op
    fn.spelling = op.spelling
    fn.fast = fast
    fn.rfast = fast if commutative else rfast
    # for in-place ops outside autograd: compute straight into the tensor's memory
    fn.ufunc = fast.ufunc = kernel if isinstance(kernel, np.ufunc) and op.out_dtype is None else None
    fn.ufunc_dtypes = fast.ufunc_dtypes = fast_dtypes
    if tensors_only:
        fn.as_method = _tensors_only_method(fn, name)
        fn.ufunc = fast.ufunc = None    # (the in-place shortcut would take a number)
    return fn


# what an operator leaves to Python (NotImplemented): comparisons with them are
# False (or True for !=), arithmetic a TypeError, as PyTorch's operators do
_NOT_OPERANDS = frozenset((str, bytes, list, tuple, dict, set, type(None)))


def _not_operand(name, other):
    return TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                     f"{type(other).__name__}")


def _not_tensor(name, arg, pos, v):
    return TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
                     f"{type(v).__name__}")


def _tensors_only_check(name, check=None):
    """binary's ``tensors_only``: PyTorch's refusal of a number on either side,
    then the op's own ``check``."""
    def c(input, other, *args):
        if not isinstance(input, Tensor):
            raise _not_tensor(name, "input", 1, input)
        if not isinstance(other, Tensor):
            raise _not_tensor(name, "other", 2, other)
        if check is not None:
            check(input, other, *args)
    return c


def _tensors_only_method(f, name):
    """The Tensor method of a ``tensors_only`` op: PyTorch counts ``other`` as
    its argument 1."""
    def method(self, other, *args, **kwargs):
        if not isinstance(other, Tensor):
            raise _not_tensor(name, "other", 1, other)
        return f(self, other, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    return method


def _zl(g):
    """Zeros shaped like ``g``, outside any graph (the derivative of a constant)."""
    return _wrap(np.zeros(g._data.shape, g._data.dtype))


def _k_with_alpha(f):
    def k(x, y, alpha=1):
        if isinstance(alpha, Tensor):
            alpha = alpha.item()        # (a Scalar in PyTorch: no part in the promotion)
        if alpha == 1:
            return f(x, y)
        if type(x) is _ndarray and x.dtype == np.bool_:
            alpha = bool(alpha)         # a bool result takes alpha as a bool, as in PyTorch
        elif type(alpha) is int and type(y) is _ndarray and y.dtype.kind in "iu":
            alpha = D.check_fits(alpha, y.dtype)    # (-1 into uint8 is 255; 300 does not fit)
        # a number times a number stays a (weak) Python number: np.multiply would make
        # a float64 NumPy scalar, and x.add(1.0, alpha=2.0) a float64 result
        return f(x, np.multiply(y, alpha) if type(y) is _ndarray else y * alpha)
    return k


# --------------------------------------------------------------------- arithmetic
def _conj_physical_k(x):
    """A copy (conjugated if complex) in ``x``'s dtype: NumPy's conjugate of a bool is int8."""
    return np.conjugate(x) if x.dtype.kind == "c" else x.copy()


conj_physical = _conj = unary("conj_physical", _conj_physical_k, {"x": lambda g: g.conj()},
                             float_only=False, family=ELEMENTWISE, inplace=True, fast_kernel=np.conjugate)


def _is_bool(v):
    """A bool tensor or a Python bool (PyTorch takes a NumPy bool as a float)."""
    return type(v) is bool or (isinstance(v, Tensor) and v._data.dtype == np.bool_)


def _alpha_check(x, y, alpha=1, name="add"):
    """PyTorch's checks of ``alpha`` against the result's dtype (``add``'s check;
    ``sub``'s after its own), on ``alpha`` as given (PyTorch takes a NumPy bool
    there as a float)."""
    alpha = number_arg(name, "alpha", alpha)
    t = type(alpha)
    if t is int:
        return
    rdt = _result_dtype((x, y), 2)
    if rdt is None:
        return                          # (two numbers: dispatch says what is wrong)
    if t is bool and rdt.category != D._BOOL:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if rdt.category <= D._INT and isinstance(alpha, (float, complex, np.inexact, np.bool_)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if rdt.category != D._COMPLEX and isinstance(alpha, (complex, np.complexfloating)):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex "
                           "number.")


def _sub_check(x, y, alpha=1):
    """PyTorch refuses bool operands to a subtraction (a Python bool included),
    before it checks ``alpha``."""
    bx, by = _is_bool(x), _is_bool(y)
    if bx and by:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if bx or by:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    _alpha_check(x, y, alpha, "sub")


add = binary("add", _k_with_alpha(np.add),
             {"x": "grad",
              "y": lambda g, alpha: g if alpha == 1 else g * conj(alpha)},
             fast_kernel=np.add, family=ELEMENTWISE, linear=True, inplace=True, commutative=True,
             check=_alpha_check, operators=("__add__", "__radd__", "__iadd__"), fits=("alpha",))
_sub_k = _k_with_alpha(np.subtract)
sub = binary("sub", _sub_k,
             {"x": "grad",
              "y": lambda g, alpha: -g * conj(alpha)},
             fast_kernel=np.subtract, family=ELEMENTWISE, linear=True, inplace=True,
             check=_sub_check, operators=("__sub__", "__rsub__", "__isub__"), fits=("alpha",),
             reflected_node="RsubBackward1")    # (sub(number, tensor): SubBackward0, two slots)
subtract = sub
# rsub(x, y) = y - alpha * x: torch.rsub (RsubBackward1 when y is a number, as ``y - x``)
rsub = binary("rsub", lambda x, y, alpha=1: _sub_k(y, x, alpha),
              {"x": lambda g, alpha: -g * conj(alpha),
               "y": "grad"},
              fast_kernel=lambda x, y: y - x, family=ELEMENTWISE, linear=True, method=False,
              check=lambda x, y, alpha=1: _sub_check(y, x, alpha), node_name="RsubBackward0",
              fits=("alpha",))
rsub.op.variants = by_tensor_arg(1, rsub.op.node_cls,
                                 overload_node(rsub.op, "RsubBackward1", hidden=(1,)))
mul = binary("mul", np.multiply, {"x": lambda g, y: g * conj(y),
                                  "y": lambda g, x: g * conj(x)}, family=ELEMENTWISE, inplace=True,
             commutative=True, operators=("__mul__", "__rmul__", "__imul__"), opmath=(1,))


def _div_kernel(x, y, rounding_mode=None):
    if rounding_mode is None:
        return np.true_divide(x, y)
    if rounding_mode == "trunc":
        r = np.true_divide(x, y) if np.result_type(x, y).kind in "fV" else _int_div(x, y)
        return np.trunc(r).astype(r.dtype) if r.dtype.kind == "f" else r
    if rounding_mode == "floor":
        return _int_safe(np.floor_divide)(x, y)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                       f"found '{rounding_mode}'")


def _int_div(x, y):
    if np.any(np.asarray(y) == 0):
        raise RuntimeError("ZeroDivisionError")
    q = np.floor_divide(x, y)
    return q + ((np.remainder(x, y) != 0) & ((np.asarray(x) < 0) != (np.asarray(y) < 0)))


def _div_rounding_kernel_name(x, y, rounding_mode=None):
    return f"div_{rounding_mode}_cpu"


# rounded division is piecewise constant: its derivative is zero (``div`` sends
# rounding_mode=None to the plain quotient below)
_div_rounding = binary("div_rounding", _div_kernel, {"x": lambda g: _zl(g), "y": lambda g: _zl(g)},
                       node_name="DivBackward2", family=ELEMENTWISE, opmath=(1,),
                       no_complex=_div_rounding_kernel_name, no_bool=_div_rounding_kernel_name)
_div = binary("div", np.true_divide, {"x": lambda g, y: g / conj(y),
                                      "y": lambda g, x, y: -g * conj(x / y / y)},
              float_only=True, family=ELEMENTWISE, inplace=True, opmath=(1,))


@public(inplace=True, operators=("__truediv__", "__rtruediv__", "__itruediv__"))
def div(input, other, *, rounding_mode=None, out=None):
    if out is not None:
        return call_with_out('div', div, (input, other), {'rounding_mode': rounding_mode}, out)
    if rounding_mode is None:
        return _div(input, other)
    return _div_rounding(input, other, rounding_mode)


def _rdiv(input, other):
    """``other / input`` for a number ``other``: PyTorch's ``__rtruediv__`` is
    ``reciprocal(input) * other``, with that rounding (one ulp from a true
    division in float32 most of the time; in half the number is not rounded
    first, so ``70000 / h`` is finite) and that graph (MulBackward0 over
    ReciprocalBackward0)."""
    return mul(reciprocal(input), other)


div.fast, div.rfast = _div.fast, _rdiv
true_divide = divide = _div

def _no_derivative(name):
    return not_implemented(RuntimeError, f"derivative for aten::{name} is not implemented")


def _int_safe(f):
    """``f`` (floor_divide, remainder, fmod) refusing an integer division by zero
    with PyTorch's error (NumPy gives 0 there).  Float tensors of one dtype take the
    ufunc itself (``fast_kernel``)."""
    def k(x, y):
        if np.result_type(x, y).kind in "biu" and np.any(np.asarray(y) == 0):
            raise RuntimeError("ZeroDivisionError")
        return f(x, y)
    return k


floor_divide = binary("floor_divide", _int_safe(np.floor_divide),
                      {"x": _no_derivative("floor_divide"), "y": _no_derivative("floor_divide")},
                      fast_kernel=np.floor_divide, family=ELEMENTWISE, inplace=True,
                      operators=("__floordiv__", "__rfloordiv__", "__ifloordiv__"),
                      no_complex="div_floor_cpu", no_bool="div_floor_cpu", opmath=(1,))
def _remainder_k(x, y):
    """PyTorch's remainder: for integers Python's ``%`` (NumPy's remainder); for
    floats ``fmod`` moved by ``y`` where its sign differs from ``y``'s, so that a
    zero keeps the sign of ``x`` (NumPy's takes ``y``'s: ``-0.0 % 2`` is 0.0 there,
    -0.0 in PyTorch)."""
    if np.result_type(x, y).kind in "biu":
        return np.remainder(x, y)
    r = np.fmod(x, y)
    with np.errstate(invalid="ignore"):
        move = (r != 0) & ((r < 0) != (np.asarray(y) < 0))
    return np.where(move, r + y, r)


remainder = binary("remainder", _int_safe(_remainder_k),
                   # (the quotient as floor division computes it, which agrees with the
                   # remainder: floor(6 / 1.2f) is 5 in float32 but 6 % 1.2f leaves 1.2 of a 5th)
                   {"x": "grad", "y": lambda g, x, y: -g * div(x, y, rounding_mode="floor")},
                   fast_kernel=_remainder_k, family=ELEMENTWISE,
                   inplace=True, node_name="RemainderBackward1",
                   operators=("__mod__", "__rmod__", "__imod__"), no_complex="remainder_cpu",
                   no_bool="remainder_cpu",
                   check=overload_check("remainder", (TT, NT, TN), marked=(1,)))
fmod = binary("fmod", _int_safe(np.fmod), {"x": "grad", "y": lambda g, x, y: -g * (x / y).trunc()},
              fast_kernel=np.fmod, family=ELEMENTWISE, inplace=True, node_name="FmodBackward1",
              no_complex="fmod_cpu", no_bool="fmod_cpu", check=overload_check("fmod", (TT, TN)))
def _by_scalar(op):
    """``op``'s node, or by a number as its second argument PyTorch's Scalar
    overload (``...Backward0``, one slot)."""
    number_node = overload_node(op, op.node_cls.__name__[:-1] + "0", hidden=(1,))
    return lambda a: number_node if is_scalar(a[1]) else op.node_cls


remainder.op.variants = _by_scalar(remainder.op)
fmod.op.variants = _by_scalar(fmod.op)


def _pow_vjp_x(g, x, exponent):
    if isinstance(exponent, Tensor):
        return where(exponent == 0, 0.0, g * conj(exponent * x ** (exponent - 1)))
    if exponent == 0:
        return _zl(g)
    if exponent == 2 and not state.enabled:
        # a square's: x ** 1 is x, so one op fewer and PyTorch's values bit for bit ((g * 2) * x
        # would overflow 2g where g (2x) does not).  Recorded (create_graph), it keeps PyTorch's
        # x ** 1: the second derivative 2 * x ** 0 stays in the graph, a third is zeros (a
        # forward level takes a missing tangent as zeros: the shortcut is right there)
        return g * conj(x * 2)
    return g * conj(exponent * x ** (exponent - 1))


def _square_vjp(g, x):
    return _pow_vjp_x(g, x, 2)


def _pow_vjp_e(g, result, x, exponent):
    if isinstance(x, Tensor):
        if x.dtype != result.dtype:     # log in the result's precision (not a half base's), and
            x = x.to(result.dtype)      # a real negative base with a complex result: a complex log
        ge = g * conj(result * x.log())
        # 0**e has slope 0 in e for a real e >= 0 (PyTorch: a complex e counts when it is real)
        nonneg = ((exponent.imag == 0) & (exponent.real >= 0)) if exponent.is_complex() else exponent >= 0
        return where((x == 0) & nonneg, 0.0, ge)
    if type(x) is complex or exponent.is_complex():
        logx = complex(np.log(complex(x)))
    else:                       # a real exponent: log of a negative base is nan, as in torch
        logx = math.log(x) if x > 0 else -math.inf if x == 0 else math.nan
    ge = g * conj(result * logx)
    return where(exponent >= 0, 0.0, ge) if x == 0 else ge


def _pow_kernel(x, exponent):
    if type(x) is _ndarray and x.dtype.kind == "b":     # (to a bool power: NumPy answers in int8)
        return np.power(x, exponent).astype(np.bool_)
    try:
        return np.power(x, exponent)
    except ValueError:
        if np.result_type(x, exponent).kind not in "iu":
            raise
    # NumPy refuses integers to negative integer powers; PyTorch computes them
    # (tensor exponents): 1 ** -n == 1, (-1) ** -n == +-1, any other base gives 0
    neg = exponent < 0
    r = np.power(x, np.where(neg, 0, exponent))
    sign = 1 - 2 * (exponent & 1)
    return np.where(neg, np.where(x == 1, 1, np.where(x == -1, sign, 0)), r).astype(r.dtype, copy=False)


def _pow_check(x, exponent):
    """PyTorch refuses an integer tensor to a negative *number* (not tensor) power."""
    if (type(exponent) is int or isinstance(exponent, np.integer)) and exponent < 0 and \
            isinstance(x, Tensor) and x._data.dtype.kind in "biu":
        raise RuntimeError("Integers to negative integer powers are not allowed.")


_POW_SIGNATURES = ("(Tensor input, Tensor exponent, *, Tensor out = None)",
                   "(Number self, Tensor exponent, *, Tensor out = None)",
                   "(Tensor input, Number exponent, *, Tensor out = None)")
_pow_numbers = overload_check("pow", _POW_SIGNATURES)


def _pow_checks(x, exponent):
    _pow_numbers(x, exponent)
    _pow_check(x, exponent)


pow = binary("pow", _pow_kernel, {"x": _pow_vjp_x, "exponent": _pow_vjp_e}, node_name="PowBackward1",
             family=ELEMENTWISE, inplace=True, check=_pow_checks,
             # (an exponent number must fit an integer, half or bfloat16 base's dtype)
             fits=("exponent",), fits_skip=_FAST,
             operators=("__pow__", "__rpow__", "__ipow__"),
             # (a bool tensor to a number power computes: PyTorch short-cuts 0 and 1)
             no_bool=lambda x, exponent: "pow" if isinstance(exponent, Tensor) else None)
# PyTorch's overloads: tensor ** number is PowBackward0, number ** tensor PowBackward2,
# each with the one edge of its tensor argument
_POW_TS = overload_node(pow.op, "PowBackward0", hidden=(1,))
_POW_ST = overload_node(pow.op, "PowBackward2", hidden=(0,))
pow.op.variants = lambda a: (_POW_TS if is_scalar(a[1]) else
                             _POW_ST if is_scalar(a[0]) else pow.op.node_cls)


def _float_power_inplace_check(self, exponent):
    """float_power_ writes a double (or complex double) result: into such a tensor only."""
    cplx = self.is_complex() or type(exponent) is complex or \
        isinstance(exponent, Tensor) and exponent.is_complex()
    want = D.complex128 if cplx else D.float64
    if self.dtype is not want:
        raise RuntimeError(f"the base given to float_power_ has dtype {_tname(self._data.dtype)} but "
                           f"the operation's result requires dtype {_tname(want.np)}")


_float_power_numbers = overload_check("float_power", _POW_SIGNATURES)


@public(inplace=_float_power_inplace_check)
def float_power(input, exponent, *, out=None):
    """``pow`` computed in double precision (complex128 if either side is complex)."""
    if out is not None:
        return call_with_out('float_power', float_power, (input, exponent), {}, out)
    _float_power_numbers(input, exponent)

    def up(v):
        if isinstance(v, Tensor):
            return v.to(D.complex128 if v.is_complex() else D.float64)
        return v
    return pow(up(input), up(exponent))


neg = unary("neg", np.negative, {"x": lambda g: -g}, float_only=False, family=ELEMENTWISE,
            linear=True, inplace=True,
            operators=("__neg__",), no_bool=RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                "invert a mask, use the `~` or `logical_not()` operator instead."))
negative = neg
positive = unary("positive", np.positive, {"x": "grad"}, float_only=False, family=ELEMENTWISE,
                 linear=True, no_bool=RuntimeError("The `+` operator, on a bool tensor is not supported."),
                 operators=("__pos__",))


def _abs_vjp(g, x):
    return g * x.sgn()


def _abs_jvp(x_t, x):
    # not holomorphic: d|z| = Re(conj(sgn z) dz)
    return (x.sgn().conj() * x_t).real if x.is_complex() else x_t * x.sgn()


def _abs_inplace_check(self):
    if self.is_complex():
        raise RuntimeError("In-place abs is not supported for complex tensors.")


abs = unary("abs", np.abs, {"x": _abs_vjp}, float_only=False, family=ELEMENTWISE,
            inplace=_abs_inplace_check, jvp=_abs_jvp,
            operators=("__abs__",), no_bool="abs_cpu")
absolute = abs


def _sgn_kernel(x):
    if x.dtype.kind == "c":
        a = np.abs(x)
        return np.where(a == 0, 0, x / np.where(a == 0, 1, a)).astype(x.dtype)
    return _sign_k(x)


def _sign_k(x):
    """PyTorch's sign: ``(0 < x) - (x < 0)``, so 0 for NaN (and +0 for -0); a bool is its own."""
    if x.dtype.kind == "b":
        return x.copy()
    s = np.sign(x)
    if x.dtype.kind == "f":
        s = np.asarray(s)
        nan = s != s
        if nan.any():
            s[nan] = 0                  # (np.sign's result is fresh: ours to write)
    return s


def _sgn_vjp(g, result, x):
    if not x.is_complex():
        return _zl(g)
    a = x.abs()
    return where(a == 0, 0.0, (g - (result.conj() * g).real * result) / where(a == 0, 1.0, a))


# d sgn(z) = (dz - Re(conj(sgn z) dz) sgn z) / |z|: a real-symmetric map, its own adjoint
sgn = unary("sgn", _sgn_kernel, {"x": _sgn_vjp}, float_only=False, family=ELEMENTWISE, inplace=True,
            jvp=lambda x_t, result, x: _sgn_vjp(x_t, result, x))
sign = unary("sign", _sign_k, {"x": lambda g: _zl(g)}, float_only=False, family=ELEMENTWISE,
             inplace=True, no_complex=NotImplementedError(
                 "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
                 "torch.sgn instead."))
def _square_k(x):
    return np.square(x.astype(np.int64) if x.dtype.kind == "b" else x)     # (bool ** 2: int64)


square = unary("square", _square_k, {"x": _square_vjp}, float_only=False,
               fast_kernel=np.square, family=ELEMENTWISE, inplace=True,
               node_name="PowBackward0")   # (PyTorch: x ** 2)
reciprocal = unary("reciprocal", np.reciprocal, {"x": lambda g, result: -g * conj(result * result)},
                   family=ELEMENTWISE, inplace=True)
sqrt = unary("sqrt", np.sqrt, {"x": lambda g, result: g / (2 * conj(result))}, family=ELEMENTWISE,
             inplace=True)
rsqrt = unary("rsqrt", lambda x: 1 / np.sqrt(x),
              {"x": lambda g, result: -0.5 * g * conj(result * result * result)},
              family=ELEMENTWISE, inplace=True)
exp = unary("exp", np.exp, {"x": lambda g, result: g * conj(result)}, family=ELEMENTWISE,
            inplace=True)
exp2 = unary("exp2", np.exp2, {"x": lambda g, result: g * conj(result * LN2)}, family=ELEMENTWISE,
             inplace=True)
expm1 = unary("expm1", np.expm1, {"x": lambda g, result: g * conj(result + 1)}, family=ELEMENTWISE,
              inplace=True)
log = unary("log", np.log, {"x": lambda g, x: g / conj(x)}, family=ELEMENTWISE, inplace=True)
log2 = unary("log2", np.log2, {"x": lambda g, x: g / conj(x * LN2)}, family=ELEMENTWISE,
             inplace=True)
log10 = unary("log10", np.log10, {"x": lambda g, x: g / conj(x * LN10)}, family=ELEMENTWISE,
              inplace=True)
log1p = unary("log1p", np.log1p, {"x": lambda g, x: g / conj(x + 1)}, family=ELEMENTWISE,
              inplace=True)
sin = unary("sin", np.sin, {"x": lambda g, x: g * conj(x.cos())}, family=ELEMENTWISE, inplace=True)
cos = unary("cos", np.cos, {"x": lambda g, x: -g * conj(x.sin())}, family=ELEMENTWISE, inplace=True)
tan = unary("tan", np.tan, {"x": lambda g, result: g * conj(1 + result * result)},
            family=ELEMENTWISE, inplace=True)
asin = unary("asin", np.arcsin, {"x": lambda g, x: g * conj((1 - x * x).rsqrt())},
             family=ELEMENTWISE, inplace=True)
acos = unary("acos", np.arccos, {"x": lambda g, x: -g * conj((1 - x * x).rsqrt())},
             family=ELEMENTWISE, inplace=True)
atan = unary("atan", np.arctan, {"x": lambda g, x: g / conj(1 + x * x)}, family=ELEMENTWISE,
             inplace=True)
sinh = unary("sinh", np.sinh, {"x": lambda g, x: g * conj(x.cosh())}, family=ELEMENTWISE,
             inplace=True)
cosh = unary("cosh", np.cosh, {"x": lambda g, x: g * conj(x.sinh())}, family=ELEMENTWISE,
             inplace=True)
# backward kernels as ops of their own (as PyTorch has them): one dispatch instead
# of three in the common backward pass, and still differentiable
def _tanh_bw_k(g, y):
    if y.dtype.kind == "c":
        return g * np.conjugate(1 - y * y)
    return g - g * y * y        # array-array ops only: NumPy's Python-scalar path is slower


tanh_backward = binary("tanh_backward", _tanh_bw_k,
                       {"g": lambda gg, y: tanh_backward(gg, conj(y)),
                        "y": lambda gg, g, y: conj(gg) * g * (-2 * conj(y))}, family=ELEMENTWISE,
                       method=False,      # conj(y) in the kernel: not holomorphic in y
                       jvp=lambda g_t, y_t, g, y: tanh_backward(g_t, y) - 2 * g * conj(y * y_t))
tanh = unary("tanh", np.tanh, {"x": lambda g, result: tanh_backward(g, result)}, family=ELEMENTWISE,
             inplace=True)


def _sigmoid_bw_k(g, y):
    if y.dtype.kind == "c":
        return g * np.conjugate(y * (1 - y))
    return g * (y - y * y)


sigmoid_backward = binary("sigmoid_backward", _sigmoid_bw_k,
                          {"g": lambda gg, y: sigmoid_backward(gg, conj(y)),
                           "y": lambda gg, g, y: conj(gg * conj(g) * (1 - 2 * y))},
                          family=ELEMENTWISE, method=False,
                          jvp=lambda g_t, y_t, g, y: sigmoid_backward(g_t, y)
                          + g * conj((1 - 2 * y) * y_t))
asinh = unary("asinh", np.arcsinh, {"x": lambda g, x: g * conj((x * x + 1).rsqrt())},
              family=ELEMENTWISE, inplace=True)
acosh = unary("acosh", np.arccosh,
              {"x": lambda g, x: g * conj(((x - 1).sqrt() * (x + 1).sqrt()).reciprocal())},
              family=ELEMENTWISE, inplace=True)
atanh = unary("atanh", np.arctanh, {"x": lambda g, x: g / conj(1 - x * x)}, family=ELEMENTWISE,
              inplace=True)
arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh
def _atan2_recip(x, y):
    """1 / (x^2 + y^2), and 0 where x^2 + y^2 is 0 (the origin, or squares that
    underflow): PyTorch's rule, a zero gradient there rather than NaN."""
    d = y * y + x * x
    return where(d == 0, 0.0, d.reciprocal())


# atan2(x, y) is the angle of the point (y, x): the first input is the ordinate
atan2 = binary("atan2", np.arctan2, {"x": lambda g, x, y: g * y * _atan2_recip(x, y),
                                     "y": lambda g, x, y: -g * x * _atan2_recip(x, y)},
               float_only=True, family=ELEMENTWISE, inplace=True, no_complex="atan2_cpu",
               tensors_only=True)
arctan2 = atan2


def _sigmoid_k(x):
    if x.dtype.kind == "c":
        return 1 / (1 + np.exp(-x))
    # split by sign so that exp never overflows
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)


sigmoid = unary("sigmoid", _sigmoid_k, {"x": lambda g, result: sigmoid_backward(g, result)},
                family=ELEMENTWISE, inplace=True)


def _logsigmoid_k(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


logsigmoid = unary("log_sigmoid", _logsigmoid_k, {"x": lambda g, x: g * (-x).sigmoid()},
                   node_name="LogSigmoidBackward0", family=ELEMENTWISE, method=False,
                   **real_float_kernel("log_sigmoid_cpu"))
def _relu_bw_k(g, y):     # (y <= 0, not y > 0: a NaN passes the gradient, as in PyTorch)
    return _np_where(y <= 0, np.zeros((), g.dtype), g)


# PyTorch's threshold_backward: the output is an input of this node ("zero": read for
# its mask), so a second derivative through relu is zeros, not "does not require grad"
relu_backward = binary("relu_backward", _relu_bw_k,
                       {"g": lambda gg, y: relu_backward(gg, y),
                        "y": "zero"}, node_name="ThresholdBackwardBackward0",
                       family=ELEMENTWISE, method=False)
relu = unary("relu", lambda x: np.maximum(x, 0).astype(x.dtype, copy=False),
             {"x": lambda g, result: relu_backward(g, result)}, float_only=False,
             family=ELEMENTWISE, inplace=True, no_complex=_CLAMP_COMPLEX,
             no_bool=RuntimeError("Boolean inputs not supported for relu"))
_SQRT1_2, _2_SQRTPI = 1 / math.sqrt(2.0), 2 / math.sqrt(math.pi)
_SQRT_2_PI = math.sqrt(2.0 / math.pi)


def _gelu_k(x, approximate="none"):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(_SQRT_2_PI * (x + 0.044715 * x ** 3)))
    if approximate != "none":
        raise RuntimeError("approximate argument must be either none or tanh.")
    return (0.5 * x * (1 + _erf(x * _SQRT1_2))).astype(x.dtype)


def _gelu_vjp(g, x, approximate):
    if approximate == "tanh" and x._data.dtype in D.LOW_PRECISION:
        # in float32, as PyTorch's opmath: 0.044715 * x**3 overflows float16 from |x| ~ 700
        # (and (1 - t*t) * d_inner is then 0 * inf)
        r = _gelu_vjp(g.float() if g._data.dtype in D.LOW_PRECISION else g, x.float(), approximate)
        return r.to(g.dtype) if g._data.dtype in D.LOW_PRECISION else r
    if approximate == "tanh":
        inner = _SQRT_2_PI * (x + 0.044715 * x * x * x)
        t = inner.tanh()
        d_inner = _SQRT_2_PI * (1 + 3 * 0.044715 * x * x)
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * d_inner)
    cdf = 0.5 * (1 + (x * _SQRT1_2).erf())
    pdf = (-0.5 * x * x).exp() * (_2_SQRTPI * _SQRT1_2 * 0.5)
    return g * (cdf + x * pdf)


gelu = defop("gelu", _gelu_k, {"x": _gelu_vjp}, float_only=True, family=ELEMENTWISE, method=False,
             **real_float_kernel("GeluKernelImpl"))


def _silu_vjp(g, x):
    s = x.sigmoid()
    return g * conj(s * (1 + x * (1 - s)))


silu = unary("silu", lambda x: x * _sigmoid_k(x), {"x": _silu_vjp}, family=ELEMENTWISE,
             method=False, no_int="silu_cpu", no_bool="silu_cpu", no_complex=no_complex_autodiff("silu"))


def _softplus_k(x, beta=1.0, threshold=20.0):
    bx = x * beta
    return np.where(bx > threshold, x, np.logaddexp(0, bx) / beta).astype(x.dtype)


softplus = defop("softplus", _softplus_k,
                 {"x": lambda g, x, beta, threshold:
                  where(x * beta > threshold, g, g * (x * beta).sigmoid())},
                 float_only=True, family=ELEMENTWISE, method=False, numbers=("beta", "threshold"),
                 **real_float_kernel("softplus_cpu"))
erf = unary("erf", lambda x: _erf(x), {"x": lambda g, x: g * (_2_SQRTPI * (-x * x).exp())},
            family=ELEMENTWISE, inplace=True, no_complex="erf_vml_cpu")
erfc = unary("erfc", lambda x: _erfc(x), {"x": lambda g, x: -g * (_2_SQRTPI * (-x * x).exp())},
             family=ELEMENTWISE, inplace=True, no_complex="erfc_vml_cpu")
erfinv = unary("erfinv", _erfinv,
               {"x": lambda g, result: g * (0.5 * math.sqrt(math.pi) * (result * result).exp())},
               family=ELEMENTWISE, inplace=True, no_complex="erfinv_vml_cpu")

_zero_vjp = lambda g: _zl(g)   # noqa: E731  piecewise-constant ops
floor, ceil, trunc = (
    unary(n, k, {"x": _zero_vjp}, float_only=False, family=ELEMENTWISE, inplace=True,
          no_complex=NotImplementedError(f"{n} is not supported for complex inputs"),
          no_bool=f"{n}_vml_cpu")
    for n, k in (("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc)))
fix = trunc
frac = unary("frac", lambda x: x - np.trunc(x), {"x": "grad"}, family=ELEMENTWISE, inplace=True,
             **real_float_kernel("frac_cpu"))


def _round_k(x, decimals=0):
    return np.round(x, decimals)


def _round_kernel_name(x, decimals=0, integers=False):
    """PyTorch's two kernels: with ``decimals``, round_cpu (floating point only),
    else round_vml_cpu (integers too)."""
    return "round_cpu" if decimals else None if integers else "round_vml_cpu"


round = defop("round", _round_k, {"x": lambda g: _zl(g)}, family=ELEMENTWISE, inplace=True, kwonly=("decimals",),
              no_complex=_round_kernel_name, no_bool=_round_kernel_name,
              no_int=lambda x, decimals=0: _round_kernel_name(x, decimals, integers=True))


# --------------------------------------------------------------------- clamp, min/max, where, lerp
def _no_complex_order(name):
    return RuntimeError(f"{name} not implemented for complex tensors.")


def _clamp_k(x, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    r = x
    if min is not None:
        r = np.maximum(r, min)
    if max is not None:
        r = np.minimum(r, max)
    return r.astype(np.result_type(x, *(v for v in (min, max) if v is not None)), copy=False)


def _clamp_vjp_x(g, x, min, max):
    mask = None
    if min is not None:
        mask = x >= min
    if max is not None:
        m2 = x <= max
        mask = m2 if mask is None else mask & m2
    return where(mask, g, 0.0)


# where min > max the result is max everywhere (the maximum is taken first), so the
# gradient goes to max whatever x is; where min == max, to neither (PyTorch's rule)
def _clamp_vjp_min(g, x, min, max):
    m = x < min
    if max is not None:
        m = m & (min < max)
    return where(m, g, 0.0)


def _clamp_vjp_max(g, x, min, max):
    m = x > max
    if min is not None:
        m = m | (max < min)
    return where(m, g, 0.0)


clamp = defop("clamp", _clamp_k, {"x": _clamp_vjp_x, "min": _clamp_vjp_min, "max": _clamp_vjp_max},
              n_in=3, promote=True, family=ELEMENTWISE, inplace=True, fits=("min", "max"),
              # (without bounds the kernel's own error comes first, as in PyTorch)
              no_complex=lambda x, min=None, max=None: None if min is None and max is None
              else _CLAMP_COMPLEX)
_CLAMP_SCALARS = overload_node(clamp.op, "ClampBackward1", hidden=(1, 2))   # clamp(x, 0, 1)
clamp.op.variants = lambda a: (clamp.op.node_cls if isinstance(a[1], Tensor) or isinstance(a[2], Tensor)
                               else _CLAMP_SCALARS)
clip = clamp


@public(inplace=True)
def clamp_min(input, min):
    return dispatch(_CLAMP_MIN, [input, min, None])


@public(inplace=True)
def clamp_max(input, max):
    return dispatch(_CLAMP_MAX, [input, None, max])


# clamp under the names of PyTorch's clamp_min/clamp_max overloads (one bound: the
# other is no input of the node; a number bound is none either)
_CLAMP_MIN = op_spelled(clamp.op, by_tensor_arg(1, overload_node(clamp.op, "ClampMinBackward1", hidden=(2,)),
                                                overload_node(clamp.op, "ClampMinBackward0", hidden=(1, 2))))
_CLAMP_MAX = op_spelled(clamp.op, by_tensor_arg(2, overload_node(clamp.op, "ClampMaxBackward1", hidden=(1,)),
                                                overload_node(clamp.op, "ClampMaxBackward0", hidden=(1, 2))))


# PyTorch's masks, NaN included: maximum/minimum split a tie evenly and give a NaN
# (which both comparisons reject) the whole gradient on both sides; fmax/fmin send
# it to the input they return, x on a tie or where y is NaN
def _unless(mask, g):
    return where(mask, 0.0, g)


maximum = binary("maximum", np.maximum,
                 {"x": lambda g, x, y: _unless(x < y, where(x == y, g / 2, g)),
                  "y": lambda g, x, y: _unless(x > y, where(x == y, g / 2, g))},
                 family=ELEMENTWISE, no_complex=_no_complex_order("maximum"), tensors_only=True)
minimum = binary("minimum", np.minimum,
                 {"x": lambda g, x, y: _unless(x > y, where(x == y, g / 2, g)),
                  "y": lambda g, x, y: _unless(x < y, where(x == y, g / 2, g))},
                 family=ELEMENTWISE, no_complex=_no_complex_order("minimum"), tensors_only=True)


def _fmax_takes_x(x, y):
    return (x >= y) | (y.isnan() if isinstance(y, Tensor) else y != y)


def _fmin_takes_x(x, y):
    return (x <= y) | (y.isnan() if isinstance(y, Tensor) else y != y)


fmax = binary("fmax", np.fmax, {"x": lambda g, x, y: where(_fmax_takes_x(x, y), g, 0.0),
                                "y": lambda g, x, y: _unless(_fmax_takes_x(x, y), g)},
              family=ELEMENTWISE, no_complex=_no_complex_order("fmax"), tensors_only=True)
fmin = binary("fmin", np.fmin, {"x": lambda g, x, y: where(_fmin_takes_x(x, y), g, 0.0),
                                "y": lambda g, x, y: _unless(_fmin_takes_x(x, y), g)},
              family=ELEMENTWISE, no_complex=_no_complex_order("fmin"), tensors_only=True)


def _where_k(condition, input, other):
    return np.where(condition, input, other)


def _where_vjp_x(g, condition):
    return _where(condition, g, 0.0)


def _where_vjp_y(g, condition):
    return _where(condition, 0.0, g)


_where_op = Op("where", _where_k, {"input": _where_vjp_x, "other": _where_vjp_y}, n_in=3,
               upcast=False, family=ELEMENTWISE)
REGISTRY["where"] = _where_op


def _where_number(v, npdt):
    """A number operand of where in the result's dtype, with PyTorch's range check
    (under which -1 in a uint8 result is 255; a half or bfloat16 result takes a
    large float as inf)."""
    return np.asarray(D.check_fits(v, npdt, floats=npdt.itemsize > 2), npdt)


def _where_condition_error(c):
    return RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with "
                        f"dtype {_tname(c.dtype)}")


def _where_transformed(condition, input, other):
    """``where`` under a transform (vmap, a dual level): PyTorch's checks and
    promotion here, before the innermost transform gets the op (NumPy's own
    promotion of the operands would otherwise decide the result's dtype)."""
    if not isinstance(condition, Tensor):
        condition = _wrap(np.asarray(condition))
    c = condition._data
    if c.dtype != np.bool_:
        if c.dtype != np.uint8:
            raise _where_condition_error(c)
        condition = condition.to(D.bool_)
    rdt = _where_dtype(input, other)
    input = input.to(rdt) if isinstance(input, Tensor) else _wrap(_where_number(input, rdt.np))
    other = other.to(rdt) if isinstance(other, Tensor) else _wrap(_where_number(other, rdt.np))
    return intercept(_where_op, [condition, input, other])


def _where(condition, input, other):
    if TRANSFORMS:
        return _where_transformed(condition, input, other)
    c = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if c.dtype != np.bool_:
        if c.dtype == np.uint8:
            c = c.astype(np.bool_)
        else:
            raise _where_condition_error(c)
    cond_t = condition if isinstance(condition, Tensor) else _wrap(c)
    rdt = _where_dtype(input, other)
    xd = input._data.astype(rdt.np, copy=False) if isinstance(input, Tensor) else \
        _where_number(input, rdt.np)
    yd = other._data.astype(rdt.np, copy=False) if isinstance(other, Tensor) else \
        _where_number(other, rdt.np)
    try:
        out = _wrap(_np_where(c, xd, yd))
    except ValueError:
        raise _where_shapes_error(c.shape, xd.shape, yd.shape) from None
    if state.enabled and ((isinstance(input, Tensor) and input._rg) or
                          (isinstance(other, Tensor) and other._rg)):
        record(_where_op, [cond_t, input, other], out)
    return out


def _where_shapes_error(*shapes):
    """PyTorch's words for operands of where that do not broadcast: the first
    that does not fit the shape of those before it."""
    acc = shapes[0]
    for s in shapes[1:]:
        try:
            acc = np.broadcast_shapes(acc, s)
        except ValueError:
            return broadcast_error(acc, s)
    return broadcast_error(*shapes[:2])


def _np_where(c, x, y):
    """``np.where``, with a fast path for "x or zero" (a masked gradient): a
    multiply by the mask is ~10x faster than np.where, and exact unless x holds
    inf/nan at masked-out places, which is checked."""
    if y.ndim == 0 and x.shape == c.shape and x.dtype.kind in "fc" and not y.any() \
            and np.isfinite(x).all():
        return np.asarray(x * c)       # (a 0-d product is a NumPy scalar)
    return np.asarray(np.where(c, x, y))


def _where_dtype(x, y):
    return _result_dtype([x, y], 2)


@public()
def where(condition, input=None, other=None, *, out=None):
    if input is None and other is None:
        if out is not None:
            raise TypeError(f"where() received an invalid combination of arguments - got "
                            f"(Tensor, out={type(out).__name__}), but expected one of:\n"
                            " * (Tensor condition)\n"
                            " * (Tensor condition, Tensor input, Tensor other, *, "
                            "Tensor out = None)\n")
        return condition.nonzero(as_tuple=True)
    if input is None or other is None:      # (two of the three: no such signature)
        got = ", ".join(type(a).__name__ for a in (condition, input, other) if a is not None)
        raise TypeError(f"where() received an invalid combination of arguments - got ({got}), but "
                        f"expected one of:\n * (Tensor condition)\n * (Tensor condition, Tensor input, "
                        f"Tensor other, *, Tensor out = None)\n")
    if out is not None:
        return call_with_out('where', where, (condition, input, other), {}, out)
    return _where(condition, input, other)


_LERP_KERNELS = {False: "lerp_kernel_scalar", True: "lerp_kernel_tensor"}     # (by its weight)


def _lerp_check(start, end, weight):
    """PyTorch's lerp takes ``end`` (and a weight tensor of one or more dimensions)
    in ``start``'s dtype only: no promotion between them."""
    if isinstance(start, Tensor):
        dt = start._data.dtype
        for name, t in (("end", end), ("weight", weight)):
            if isinstance(t, Tensor) and t._data.dtype != dt and (name == "end" or t._data.ndim):
                raise RuntimeError(f"expected dtype {D.CPP_NAMES[dt.name]} for `{name}` but got "
                                   f"dtype {D.CPP_NAMES[t._data.dtype.name]}")



def _lerp_k(start, end, weight):
    """PyTorch's two formulas: from ``start`` for a weight of modulus under 1/2,
    from ``end`` otherwise (so lerp(-inf, 2, .5) is -inf and lerp(1, inf, .75) nan)."""
    d = end - start
    return np.where(np.abs(weight) < 0.5, start + weight * d, end - d * (1 - weight))


lerp = defop("lerp", _lerp_k,
             {"start": lambda g, weight: g * conj(1 - weight),
              "end": lambda g, weight: g * conj(weight),
              "weight": lambda g, start, end: g * conj(end - start)},
             n_in=3, promote=True, family=ELEMENTWISE, inplace=True, node_name="LerpBackward1",
             opmath=(2,), opmath_0d=False, check=_lerp_check,
             # (a half or bfloat16 lerp reads its weight in float: 1e6 is no overflow there)
             fits=("weight",), fits_skip=D.LOW_PRECISION,
             no_int=lambda start, end, weight: _LERP_KERNELS[isinstance(weight, Tensor)],
             no_bool=lambda start, end, weight: _LERP_KERNELS[isinstance(weight, Tensor)])
lerp.op.variants = by_tensor_arg(2, lerp.op.node_cls,        # a number weight: LerpBackward0
                                 overload_node(lerp.op, "LerpBackward0", hidden=(2,)))
lerp.op.wraps_numbers = False   # a number weight is a Scalar in PyTorch: a second backward runs


# --------------------------------------------------------------------- non-differentiable
def _cmp(name, k, operators=()):
    logical = name.startswith("logical")
    return binary(name, k, None, out_dtype=D.bool_, family=ELEMENTWISE, inplace=True,
                  operators=operators, tensors_only=logical,
                  check=None if logical else overload_check(name, (TT, TN)),
                  no_complex=f"{name}_cpu" if name in ("lt", "le", "gt", "ge") else None)


# each comparison is also its operator: eq is __eq__, ...
eq, ne, lt, le, gt, ge = (_cmp(n, k, (f"__{n}__",))
                          for n, k in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
                                       ("le", np.less_equal), ("gt", np.greater),
                                       ("ge", np.greater_equal)))
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
logical_and = _cmp("logical_and", np.logical_and)
logical_or = _cmp("logical_or", np.logical_or)
logical_xor = _cmp("logical_xor", np.logical_xor)
logical_not = unary("logical_not", np.logical_not, None, float_only=False, upcast=False,
                    family=ELEMENTWISE, inplace=True)
def _int_kernel(name, f):
    """Bitwise ``f`` on integer and bool arrays only, with PyTorch's refusal of any
    other dtype (NumPy's TypeError otherwise)."""
    def k(*args):
        for a in args:
            dt = getattr(a, "dtype", None)
            if dt is not None and dt.kind not in "biu":
                raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_tname(dt)}'")
        return f(*args)
    k.__wrapped__ = f
    return k


# (upcast=False: a half tensor reaches the kernel as it is, to be refused by its name)
bitwise_and, bitwise_or, bitwise_xor = (
    binary(n, _int_kernel(n, k), None, family=ELEMENTWISE, inplace=True, upcast=False,
           operators=(f"__{o}__", f"__r{o}__", f"__i{o}__"), args=("x", "y"),
           check=overload_check(n, (TT, NT, TN), marked=(1,)))
    for n, k, o in (("bitwise_and", np.bitwise_and, "and"), ("bitwise_or", np.bitwise_or, "or"),
                    ("bitwise_xor", np.bitwise_xor, "xor")))
bitwise_not = unary("bitwise_not", _int_kernel("bitwise_not", np.invert), None, float_only=False,
                    upcast=False, family=ELEMENTWISE, inplace=True, args=("x",))


def _shift_kernel(name, f):
    def k(x, y):
        if type(y) is bool:             # (a Python bool: a shift by 0 or 1, in x's dtype)
            y = np.asarray(int(y), x.dtype)
        if type(x) is bool:             # (True << t: 1 in t's dtype)
            x = np.asarray(int(x), y.dtype)
        for a in (x, y):
            if a.dtype.kind not in "iu":
                raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_tname(a.dtype)}'")
        # PyTorch: a shift by the width or more (or by a negative amount) gives 0, or
        # -1 for a negative number shifted right; NumPy's is undefined there
        bits = 8 * np.result_type(x, y).itemsize
        big = (y < 0) | (y >= bits)
        r = f(x, np.where(big, 0, y))
        if big.any():
            fill = np.where(x < 0, -1, 0) if f is np.right_shift else 0
            r = np.where(big, fill, r).astype(r.dtype)
        return r
    return k


bitwise_left_shift = binary("bitwise_left_shift", _shift_kernel("lshift", np.left_shift), None,
                            family=ELEMENTWISE, inplace=True,
                            operators=("__lshift__", "__rlshift__", "__ilshift__"),
                            check=overload_check("bitwise_left_shift", (TT, NT, TN), marked=(1,)))
bitwise_right_shift = binary("bitwise_right_shift", _shift_kernel("rshift", np.right_shift), None,
                             family=ELEMENTWISE, inplace=True,
                             operators=("__rshift__", "__rrshift__", "__irshift__"),
                             check=overload_check("bitwise_right_shift", (TT, NT, TN), marked=(1,)))


@public(method=False, operators=("__invert__",))
def _invert(input):
    """``~x``: logical not of a bool tensor, bitwise not of an integer one."""
    if input.dtype.name == "bool":
        return logical_not(input)
    if input.dtype.is_floating_point or input.dtype.is_complex:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(input)


isnan = unary("isnan", np.isnan, None, float_only=False, upcast=False, family=ELEMENTWISE)
isinf = unary("isinf", np.isinf, None, float_only=False, upcast=False, family=ELEMENTWISE)
isfinite = unary("isfinite", np.isfinite, None, float_only=False, upcast=False, family=ELEMENTWISE)
isposinf, isneginf = (unary(n, k, None, float_only=False, upcast=False, family=ELEMENTWISE,
                             no_complex=RuntimeError(f"{n} does not support complex inputs."))
                       for n, k in (("isposinf", np.isposinf), ("isneginf", np.isneginf)))
signbit = unary("signbit", np.signbit, None, float_only=False, upcast=False, family=ELEMENTWISE,
                no_complex=NotImplementedError("signbit is not implemented for complex tensors."))


@public()
def isreal(input):
    """Where an element is real: all of a tensor that is not complex; of a complex
    one, where its imaginary part is zero."""
    if not isinstance(input, Tensor):
        raise TypeError(f"isreal(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input._data.dtype.kind == "c":
        return input.imag == 0
    return _full_like(input, True, dtype=D.bool_)
