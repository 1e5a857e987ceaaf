"""Table entries for ops/pointwise.py."""
import numpy as np

from . import E, OpCase, Sample, arr, pos, unit

S = (3, 4)

# NumPy references of the elementwise ops (values, and shapes without torch)
NP = {
    "add": lambda x, y, alpha=1: x + alpha * y, "sub": lambda x, y, alpha=1: x - alpha * y,
    "rsub": lambda x, y, alpha=1: y - alpha * x,
    "mul": np.multiply, "div": lambda x, y, rounding_mode=None: np.true_divide(x, y), "floor_divide": np.floor_divide,
    "remainder": np.remainder, "fmod": np.fmod, "pow": np.power, "neg": np.negative,
    "positive": np.positive, "abs": np.abs, "sgn": np.sign, "sign": np.sign, "square": np.square,
    "reciprocal": np.reciprocal, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "exp": np.exp,
    "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10,
    "log1p": np.log1p, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin,
    "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "atan2": np.arctan2,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "relu": lambda x: np.maximum(x, 0.0),
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "frac": lambda x: x - np.trunc(x),
    "round": np.round, "conj_physical": np.conj, "maximum": np.maximum, "minimum": np.minimum,
    "fmax": np.fmax, "fmin": np.fmin, "lt": np.less, "le": np.less_equal, "gt": np.greater,
    "ge": np.greater_equal, "eq": np.equal, "ne": np.not_equal, "logical_and": np.logical_and,
    "logical_or": np.logical_or, "logical_xor": np.logical_xor, "logical_not": np.logical_not,
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "isposinf": np.isposinf,
    "isneginf": np.isneginf, "signbit": np.signbit, "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor, "bitwise_not": np.invert,
}


def unary(name, sample=None, *, extra=(), **kw):
    """A plain row ``T.<name>(x)``: a 3x4 sample, its 0-d corner, and ``extra`` samples."""
    sample = sample if sample is not None else arr(*S, seed=1)
    kw.setdefault("ref", NP.get(name))
    return OpCase(name, samples=[Sample([sample]), Sample([sample[0, 0].reshape(())], desc="0-d"), *extra],
                  **kw)


def binary(name, *, a=None, b=None, extra=(), **kw):
    """A plain row ``T.<name>(x, y)``: same shapes, ``y`` broadcast, ``x`` broadcast."""
    a = a if a is not None else arr(*S, seed=1)
    b = b if b is not None else arr(*S, seed=2)
    kw.setdefault("ref", NP.get(name))
    return OpCase(name, samples=[Sample([a, b]), Sample([a, b[0]], desc="broadcast"),
                                 Sample([a[:1], b], desc="broadcast left"), *extra], **kw)


away0 = np.sign(arr(*S, seed=3)) * pos(*S, seed=3)     # nonzero, both signs
ties = arr(*S, seed=1)
ties_b = arr(*S, seed=2)
ties_b[0, :2] = ties[0, :2] + 0.3                       # keep clear of the kink for finite differences

X, Y = arr(*S, seed=1), arr(*S, seed=2)
BX, BY = X > 0, Y > 0                                   # the masks the comparisons row made
INTS = (np.array([1, 2, 3, 12]), np.array([3, 6, 5, 10]))
SPECIAL = np.array([1.0, np.nan, np.inf, -np.inf, -0.0, 2.0])


C1 = np.array([1 + 1j], np.complex64)
I2 = np.array([2, 3])
B1 = np.array([True])
_NEG_POW = "Integers to negative integer powers are not allowed."
ACCEPTS = "tensorplay computes a result for the input torch refuses"


def _no_complex(kernel, *arrays, msg=None, xfail=None, exc=NotImplementedError, **kw):
    return E(exc, msg or f"\"{kernel}\" not implemented for 'ComplexFloat'", *arrays, desc="complex", xfail=xfail,
             **kw)


def _no_int(kernel):
    return E(NotImplementedError, f"\"{kernel}\" not implemented for 'Long'", I2, desc="integer")


def _zero_division(*arrays):
    return E(RuntimeError, "ZeroDivisionError", *arrays, desc="integer division by zero")


def _mismatch(a, b):
    return (f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton "
            f"dimension 1")


CASES = [
    binary("add", extra=[Sample([X, arr(4, seed=2)], {"alpha": 2.5}, desc="alpha")],
           errors=[E(RuntimeError, _mismatch(4, 3), X, arr(3, seed=2), desc="broadcast mismatch"),
                   E(RuntimeError, _mismatch(4, 2), X, arr(2, 2, seed=2), desc="broadcast mismatch 2-d"),
                   E(RuntimeError, "For integral input tensors, argument alpha must not be a floating point number.",
                     I2, I2, alpha=1.5, desc="float alpha, int tensors"),
                   E(RuntimeError, "Boolean alpha only supported for Boolean results.",
                     X, arr(4, seed=2), alpha=True, desc="bool alpha, float tensors"),
                   E(RuntimeError, "For non-complex input tensors, argument alpha must not be a complex number.",
                     X, arr(4, seed=2), alpha=1j, desc="complex alpha, float tensors")]),
    binary("sub", extra=[Sample([X, arr(4, seed=2)], {"alpha": -0.5}, desc="alpha")],
           errors=[E(RuntimeError, _mismatch(4, 5), X, arr(3, 5, seed=2), desc="broadcast mismatch"),
                   E(RuntimeError, "Boolean alpha only supported for Boolean results.",
                     X, arr(4, seed=2), alpha=True, desc="bool alpha, float tensors"),
                   E(RuntimeError, "For integral input tensors, argument alpha must not be a floating point number.",
                     I2, I2, alpha=0.5, desc="float alpha, int tensors"),
                   E(RuntimeError, "Subtraction, the `-` operator, with two bool tensors is not supported. "
                     "Use the `^` or `logical_xor()` operator instead.", BX, BY, desc="bool"),
                   E(RuntimeError, "Subtraction, the `-` operator, with two bool tensors is not supported. "
                     "Use the `^` or `logical_xor()` operator instead.", BX,
                     fn=lambda T, b: b - True, desc="bool - True"),
                   *[E(RuntimeError, "Subtraction, the `-` operator, with a bool tensor is not supported. "
                       "If you are trying to invert a mask, use the `~` or `logical_not()` operator "
                       "instead.", *arrays, fn=f, desc=d)
                     for arrays, f, d in (((X, BX), None, "float - bool"),
                                          ((BX, X), None, "bool - float"),
                                          ((X,), lambda T, x: x - False, "float - False"),
                                          ((BX,), lambda T, b: 1 - b, "1 - bool"),
                                          ((BX,), lambda T, b: b - 1, "bool - 1"),
                                          ((X, BX), lambda T, x, b: T.sub(x, b, alpha=2),
                                           "alpha"),
                                          ((X,), lambda T, x: x.clone().sub_(True), "sub_"))]]),
    binary("rsub", extra=[Sample([X, arr(4, seed=2)], {"alpha": -0.5}, desc="alpha")],
           errors=[E(RuntimeError, "Subtraction, the `-` operator, with a bool tensor is not supported. "
                     "If you are trying to invert a mask, use the `~` or `logical_not()` operator "
                     "instead.", X, BX, desc="float, bool")]),
    OpCase("rsub_scalar", lambda T, x: T.rsub(x, 2.5) * T.rsub(x, 1.5, alpha=-2), [Sample([X])],
           covers=("rsub", "mul")),
    binary("mul", errors=[E(RuntimeError, _mismatch(4, 3), X, arr(3, 3, seed=2), desc="broadcast mismatch")]),
    binary("div", b=away0,
           extra=[Sample([X * 3, away0], {"rounding_mode": None}, desc="rounding None")],
           errors=[E(RuntimeError, _mismatch(4, 2), X, arr(2, seed=2), desc="broadcast mismatch")]),
    OpCase("div_rounding", func="div",
           samples=[Sample([X * 3, away0], {"rounding_mode": "floor"}, desc="floor"),
                    Sample([X * 3, away0], {"rounding_mode": "trunc"}, desc="trunc")],
           complex=False, gradgrad=False,
           errors=[E(RuntimeError, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                     "'round'", X, away0, rounding_mode="round", desc="bad mode")]),
    OpCase("mul_scalar", lambda T, x: x * 2.5 + 1.5 - 0.25 / (x * x + 1), [Sample([X])],
           covers=("mul", "add", "sub", "reciprocal")),     # (number / x: reciprocal(x) * number)
    OpCase("rsub_rdiv", lambda T, x: (2.0 - x) * (3.0 / (x + 5.0)), [Sample([X])],
           covers=("sub", "mul", "add", "reciprocal")),
    binary("floor_divide", a=X * 3, b=away0, complex=False, differentiable=False,
           errors=[_zero_division(I2, np.array([0, 1]))]),
    binary("remainder", a=X * 3 + 0.05, b=away0, complex=False,
           errors=[_zero_division(I2, np.array([0, 1])),
                   _no_complex("remainder_cpu", C1, C1)]),
    binary("fmod", a=X * 3 + 0.05, b=away0, complex=False, errors=[_zero_division(I2, np.array([0, 1]))]),
    binary("pow", a=pos(*S, seed=1), b=Y),
    # integers to negative integer powers: a tensor exponent is computed (2 ** -1 == 0,
    # (-1) ** -3 == -1, 1 ** -2 == 1); a Python number exponent is refused, even when promotion
    # would wrap it into an unsigned dtype
    OpCase("pow_int_negative_exponent", func="pow", op="pow",
           samples=[Sample([I2, np.array([-1, 2])]),
                    Sample([np.array([-1, -1, 0, 1, 5, -2], np.int32), np.array([-3, -4, -1, -7, -1, -2], np.int32)],
                           desc="every base"),
                    Sample([np.array([2, -1, 1], np.int8), np.array(-1, np.int8)], desc="0-d exponent")],
           differentiable=False, zero_size=False,
           errors=[E(RuntimeError, _NEG_POW, I2, fn=lambda T, x: x ** -1, desc="number exponent"),
                   E(RuntimeError, _NEG_POW, I2, fn=lambda T, x: T.pow(x, -2), desc="function"),
                   E(RuntimeError, _NEG_POW, I2, fn=lambda T, x: x.pow_(-1), desc="in place"),
                   E(RuntimeError, _NEG_POW, np.array([2, 0], np.uint8), fn=lambda T, x: x ** -1, desc="uint8"),
                   E(RuntimeError, _NEG_POW, B1, fn=lambda T, x: x ** -1, desc="bool"),
                   E(RuntimeError, _NEG_POW, np.zeros(0, np.int64), fn=lambda T, x: x ** -1,
                     desc="empty")]),
    OpCase("pow_scalar_exp", lambda T, x: x ** 3 + x ** 2 + x.abs() ** -1.5 + x.abs() ** 2.5,
           [Sample([away0])], covers=("pow", "abs", "add")),
    OpCase("pow_scalar_base", lambda T, x: 2.0 ** x, [Sample([X])], covers=("pow",)),
    # a real (negative) base to a complex exponent: the exponent's gradient uses the complex
    # log of the base (once nan here, finite in torch); and a negative Python base the same way
    OpCase("pow_real_base_complex_exp", lambda T, x, y: T.pow(x, T.complex(y, y * 0.5 + 0.25)),
           [Sample([away0, Y]), Sample([-pos(*S, seed=1), Y[0]], desc="negative base, broadcast")],
           covers=("pow", "complex", "mul", "add"), complex=False, low_precision=False),
    OpCase("pow_negative_scalar_base_complex_exp", lambda T, y: (-1.5) ** T.complex(y, y - 0.5),
           [Sample([Y])], covers=("pow", "complex", "sub"), complex=False, low_precision=False),
    OpCase("float_power", op="pow", func="float_power", samples=[Sample([pos(*S, seed=1), Y])],
           low_precision=False, preserves_dtype=False, ref=np.power),
    unary("neg", errors=[E(RuntimeError, "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.", B1, desc="bool")]),
    unary("positive"),
    unary("abs", away0, errors=[E(NotImplementedError, "\"abs_cpu\" not implemented for 'Bool'", B1, desc="bool")]),
    unary("sgn", away0),
    unary("sign", away0, complex=False, gradgrad=False,
          errors=[_no_complex("sign", C1, msg="Unlike NumPy, torch.sign is not intended to support complex numbers. "
                              "Please use torch.sgn instead.")]),
    unary("square"),
    unary("reciprocal", away0), unary("sqrt", pos(*S)), unary("rsqrt", pos(*S)),
    unary("exp"), unary("exp2"), unary("expm1"), unary("log", pos(*S)), unary("log2", pos(*S)),
    unary("log10", pos(*S)), unary("log1p", pos(*S)),
    unary("sin"), unary("cos"), unary("tan", unit(*S)), unary("asin", unit(*S)),
    unary("acos", unit(*S)), unary("atan"), unary("sinh"), unary("cosh"), unary("tanh"),
    unary("asinh"), unary("acosh", pos(*S) + 1.0), unary("atanh", unit(*S)),
    binary("atan2", complex=False, errors=[_no_complex("atan2_cpu", C1, C1)]),
    unary("sigmoid"),
    OpCase("tanh_backward", lambda T, g, y: T.ops.pointwise.tanh_backward(g, y) if T.__name__ == "tensorplay"
           else T.ops.aten.tanh_backward(g, y), [Sample([X, unit(*S, seed=2)])],
           torch_complex=False),  # torch's double-backward formula for this internal op differs;
                                  # ours is verified by the complex gradcheck
    OpCase("sigmoid_backward", lambda T, g, y: T.ops.pointwise.sigmoid_backward(g, y)
           if T.__name__ == "tensorplay" else T.ops.aten.sigmoid_backward(g, y),
           [Sample([X, unit(*S, seed=2)])], torch_complex=False),
    OpCase("logsigmoid", op="log_sigmoid", func="nn.functional.logsigmoid", samples=[Sample([X * 5])],
           complex=False, float_only=False, errors=[_no_int("log_sigmoid_cpu")]),
    unary("relu", away0, complex=False,
          errors=[E(RuntimeError, "Boolean inputs not supported for relu", B1, desc="bool")]),
    OpCase("relu_backward", lambda T, g, y: T.ops.pointwise.relu_backward(g, y)
           if T.__name__ == "tensorplay" else T.ops.aten.threshold_backward(g, y, 0),
           [Sample([X, away0])], complex=False),
    OpCase("relu_double_backward", lambda T, x: T.autograd.grad(x.relu().sum() * 1.0, x,
                                                                create_graph=True)[0] * x,
           [Sample([away0])], complex=False, covers=("relu", "relu_backward", "mul"), low_precision=False),
    OpCase("gelu", func="nn.functional.gelu",
           samples=[Sample([X]), Sample([X], {"approximate": "tanh"}, desc="tanh")], complex=False,
           float_only=False,
           errors=[E(RuntimeError, "approximate argument must be either none or tanh.", X,
                     approximate="erf"), _no_int("GeluKernelImpl")]),
    OpCase("silu", func="nn.functional.silu", samples=[Sample([X])], complex=False, float_only=False,
           errors=[_no_int("silu_cpu")]),
    OpCase("softplus", func="nn.functional.softplus",
           samples=[Sample([X * 3], {"beta": 2.0, "threshold": 3.0})], complex=False, float_only=False,
           errors=[_no_int("softplus_cpu")]),
    unary("erf", complex=False, errors=[_no_complex("erf_vml_cpu", C1)]), unary("erfc", complex=False),
    unary("erfinv", unit(*S), complex=False),
    unary("floor", complex=False, gradgrad=False,
          errors=[_no_complex("", C1, msg="floor is not supported for complex inputs")]),
    unary("ceil", complex=False, gradgrad=False),
    unary("trunc", complex=False, gradgrad=False,
          errors=[_no_complex("", C1, msg="trunc is not supported for complex inputs")]),
    unary("frac", arr(*S, seed=4) * 3 + 0.05, complex=False, float_only=False,
          errors=[_no_complex("frac_cpu", C1), _no_int("frac_cpu")]),
    unary("round", arr(*S, seed=4) * 3 + 0.05, complex=False, gradgrad=False),
    unary("conj_physical"),
    OpCase("clamp", samples=[Sample([X], {"min": -0.5, "max": 0.7}),
                             Sample([X], {"min": -0.5}, desc="min only"),
                             Sample([X, arr(4, seed=2) - 1.0, arr(4, seed=3) + 1.0], desc="tensor bounds"),
                             # min > max in columns 0 and 2: the result is max there, and
                             # so is the gradient (it once went to max only where x > max)
                             Sample([X, np.array([0.3, -0.2, 1.1, -1.4]), np.array([-0.3, 0.9, 0.2, -0.6])],
                                    desc="crossed bounds")],
           complex=False,
           ref=lambda x, lo=None, hi=None, min=None, max=None: np.clip(
               x, lo if lo is not None else min, hi if hi is not None else max),
           errors=[E(RuntimeError, "torch.clamp: At least one of 'min' or 'max' must not be None", X,
                     desc="no bounds"),
                   _no_complex("", C1, msg="clamp is not supported for complex types", min=0, max=1)]),
    *[binary(n, a=ties, b=ties_b, complex=False,
             errors=[_no_complex("", C1, C1, msg=f"{n} not implemented for complex tensors.", exc=RuntimeError)]
             if n in ("maximum", "minimum") else [])
      for n in ("maximum", "minimum", "fmax", "fmin")],
    OpCase("where", samples=[Sample([arr(*S, seed=5) > 0, X, arr(4, seed=2)]),
                             Sample([arr(4, seed=5) > 0, X, Y[:1]], desc="broadcast condition")],
           method=False,    # x.where(condition, y) puts the condition second
           ref=np.where,
           errors=[E(RuntimeError, "where expected condition to be a boolean tensor, but got a tensor with "
                     "dtype Double", arr(*S, seed=5), X, Y, desc="float condition"),
                   E(RuntimeError, "The size of tensor a (4) must match the size of tensor b (3) at "
                     "non-singleton dimension 1", X > 0, X, arr(3, seed=2), desc="shapes")]),
    OpCase("where_gt", lambda T, c, x, y: T.where(c > 0, x, y),
           [Sample([arr(*S, seed=5), X, arr(4, seed=2)], grad=(1, 2))], covers=("where", "gt")),
    OpCase("lerp", errors=[E(RuntimeError, "expected dtype double for `end` but got dtype float", X,
                             Y.astype(np.float32), X, desc="dtypes"),
                           E(RuntimeError, "expected dtype double for `weight` but got dtype float", X, Y,
                             X.astype(np.float32), desc="weight dtype"),
                           E(NotImplementedError, "\"lerp_kernel_scalar\" not implemented for 'Long'",
                             X.astype(np.int64), Y.astype(np.int64), weight=0.5, desc="integers")],
           samples=[Sample([X, Y, arr(*S, seed=3)]),
                            Sample([X, arr(4, seed=2), arr(1, seed=3)], desc="broadcast")],
           ref=lambda a, b, w: a + w * (b - a)),
    # comparisons and logical ops (the masks are those of the former combined row)
    binary("lt", a=X, b=Y, errors=[_no_complex("lt_cpu", C1, C1)]),
    binary("le", a=X, b=Y), binary("gt", a=X, b=Y), binary("ge", a=X, b=Y),
    binary("eq", a=X, b=np.where(X > 0, X, Y)), binary("ne", a=X, b=np.where(X > 0, X, Y)),
    binary("logical_and", a=BX, b=BY), binary("logical_or", a=BX, b=BY), binary("logical_xor", a=BX, b=BY),
    unary("logical_not", BX, extra=[Sample([X], desc="float")]),
    OpCase("comparison_operators", lambda T, x, y: (x < y, x <= y, x > y, x >= y, x == y, x != y),
           [Sample([X, Y]), Sample([X, 0.5 * np.ones(())], desc="0-d")],
           covers=("lt", "le", "gt", "ge", "eq", "ne")),
    *[OpCase(n, samples=[Sample([SPECIAL]), Sample([SPECIAL.reshape(2, 3)], desc="2-d")], ref=NP[n],
             errors=[E(RuntimeError, f"{n} does not support complex inputs.", C1, desc="complex")]
             if n in ("isposinf", "isneginf")
             else [_no_complex("", C1, msg="signbit is not implemented for complex tensors.")]
             if n == "signbit" else [])
      for n in ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit")],
    *[binary(n, a=INTS[0], b=INTS[1], extra=[Sample([INTS[0] > 2, INTS[1] > 5], desc="bool")],
             errors=[E(NotImplementedError, f"\"{n}_cpu\" not implemented for 'Double'", X, X, desc="float"),
                     _no_complex(f"{n}_cpu", C1, C1)])
      for n in ("bitwise_and", "bitwise_or", "bitwise_xor")],
    *[binary(n, a=INTS[0] * np.array([1, -1, 1, -1]), b=np.array([1, 0, 3, 70]), ref=f,
             errors=[E(NotImplementedError, f"\"{k}_cpu\" not implemented for 'Double'", X, X,
                       desc="float")])
      for n, k, f in (("bitwise_left_shift", "lshift", lambda x, y: np.where(y < 64, np.left_shift(x, y % 64), 0)),
                      ("bitwise_right_shift", "rshift",
                       lambda x, y: np.where(y < 64, np.right_shift(x, y % 64), np.where(x < 0, -1, 0))))],
    OpCase("bitwise_not", samples=[Sample([INTS[0]]), Sample([INTS[0] > 2], desc="bool")], ref=np.invert,
           errors=[E(NotImplementedError, "\"bitwise_not_cpu\" not implemented for 'Double'", X),
                   E(TypeError, "~ (operator.invert) is only implemented on integer and Boolean-type tensors", X,
                     fn=lambda T, x: ~x, desc="operator")]),
]
