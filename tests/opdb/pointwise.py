"""Table entries for ops/pointwise.py."""
import numpy as np

from . import OpCase, Sample, arr, pos, unit

S = (3, 4)


def unary(name, sample=None, *, method=None, complex=True, covers=None, **kw):
    sample = sample if sample is not None else arr(*S, seed=1)
    call = (lambda T, x: getattr(x, method)()) if method else (lambda T, x: getattr(T, name)(x))
    return OpCase(name, call, [Sample([sample]), Sample([sample[0, 0].reshape(())], desc="0-d")],
                  complex=complex, covers=covers or (name,), **kw)


def binary(name, *, a=None, b=None, complex=True, covers=None, **kw):
    a = a if a is not None else arr(*S, seed=1)
    b = b if b is not None else arr(*S, seed=2)
    return OpCase(name, lambda T, x, y: getattr(T, name)(x, y),
                  [Sample([a, b]), Sample([a, b[0]], desc="broadcast"),
                   Sample([a[:1], b], desc="broadcast left")],
                  complex=complex, covers=covers or (name,), **kw)


away0 = np.sign(arr(*S, seed=3)) * pos(*S, seed=3)     # nonzero, both signs
ties = arr(*S, seed=1)
ties_b = arr(*S, seed=2)
ties_b[0, :2] = ties[0, :2] + 0.3                       # keep clear of the kink for finite differences

CASES = [
    binary("add"), binary("sub"), binary("mul"),
    binary("div", b=away0, covers=("div",)),
    OpCase("div_rounding", lambda T, x, y: T.div(x, y, rounding_mode="floor"),
           [Sample([arr(*S, seed=1) * 3, away0])], complex=False, gradgrad=False),
    OpCase("add_alpha", lambda T, x, y: T.add(x, y, alpha=2.5), [Sample([arr(*S, seed=1), arr(4, seed=2)])],
           covers=("add",)),
    OpCase("sub_alpha", lambda T, x, y: T.sub(x, y, alpha=-0.5), [Sample([arr(*S, seed=1), arr(4, seed=2)])],
           covers=("sub",)),
    OpCase("mul_scalar", lambda T, x: x * 2.5 + 1.5 - 0.25 / (x * x + 1), [Sample([arr(*S, seed=1)])],
           covers=("mul", "add", "sub", "div")),
    OpCase("rsub_rdiv", lambda T, x: (2.0 - x) * (3.0 / (x + 5.0)), [Sample([arr(*S, seed=1)])],
           covers=("sub", "div")),
    binary("floor_divide", a=arr(*S, seed=1) * 3, b=away0, complex=False, differentiable=False),
    binary("remainder", a=arr(*S, seed=1) * 3 + 0.05, b=away0, complex=False),
    binary("fmod", a=arr(*S, seed=1) * 3 + 0.05, b=away0, complex=False),
    binary("pow", a=pos(*S, seed=1), b=arr(*S, seed=2)),
    OpCase("pow_scalar_exp", lambda T, x: x ** 3 + x.abs() ** -1.5 + x.abs() ** 2.5,
           [Sample([away0])], covers=("pow", "abs")),
    OpCase("pow_scalar_base", lambda T, x: 2.0 ** x, [Sample([arr(*S, seed=1)])], covers=("pow",)),
    OpCase("float_power", lambda T, x, y: T.float_power(x, y), [Sample([pos(*S, seed=1), arr(*S, seed=2)])],
           covers=("pow",), low_precision=False, preserves_dtype=False),
    unary("neg"), unary("positive"), unary("abs", away0), unary("sgn", away0),
    unary("sign", away0, complex=False, gradgrad=False), unary("square"),
    unary("reciprocal", away0), unary("sqrt", pos(*S)), unary("rsqrt", pos(*S)),
    unary("exp"), unary("exp2"), unary("expm1"), unary("log", pos(*S)), unary("log2", pos(*S)),
    unary("log10", pos(*S)), unary("log1p", pos(*S)),
    unary("sin"), unary("cos"), unary("tan", unit(*S)), unary("asin", unit(*S)),
    unary("acos", unit(*S)), unary("atan"), unary("sinh"), unary("cosh"), unary("tanh"),
    unary("asinh"), unary("acosh", pos(*S) + 1.0), unary("atanh", unit(*S)),
    binary("atan2", complex=False),
    unary("sigmoid"),
    OpCase("tanh_backward", lambda T, g, y: T.ops.pointwise.tanh_backward(g, y) if T.__name__ == "tensorplay"
           else T.ops.aten.tanh_backward(g, y), [Sample([arr(*S, seed=1), unit(*S, seed=2)])],
           torch_complex=False),  # torch's double-backward formula for this internal op differs;
                                  # ours is verified by the complex gradcheck
    OpCase("sigmoid_backward", lambda T, g, y: T.ops.pointwise.sigmoid_backward(g, y)
           if T.__name__ == "tensorplay" else T.ops.aten.sigmoid_backward(g, y),
           [Sample([arr(*S, seed=1), unit(*S, seed=2)])], torch_complex=False), OpCase("logsigmoid", lambda T, x: T.nn.functional.logsigmoid(x),
                             [Sample([arr(*S, seed=1) * 5])], complex=False, covers=("log_sigmoid",)),
    unary("relu", away0, complex=False),
    OpCase("relu_backward", lambda T, g, y: T.ops.pointwise.relu_backward(g, y)
           if T.__name__ == "tensorplay" else T.ops.aten.threshold_backward(g, y, 0),
           [Sample([arr(*S, seed=1), away0])], complex=False),
    OpCase("relu_double_backward", lambda T, x: T.autograd.grad(x.relu().sum() * 1.0, x,
                                                                create_graph=True)[0] * x,
           [Sample([away0])], complex=False, covers=("relu",), low_precision=False),
    OpCase("gelu", lambda T, x: T.nn.functional.gelu(x), [Sample([arr(*S, seed=1)])], complex=False),
    OpCase("gelu_tanh", lambda T, x: T.nn.functional.gelu(x, approximate="tanh"),
           [Sample([arr(*S, seed=1)])], complex=False, covers=("gelu",)),
    OpCase("silu", lambda T, x: T.nn.functional.silu(x), [Sample([arr(*S, seed=1)])], complex=False),
    OpCase("softplus", lambda T, x: T.nn.functional.softplus(x, beta=2.0, threshold=3.0),
           [Sample([arr(*S, seed=1) * 3])], complex=False),
    unary("erf", complex=False), unary("erfc", complex=False),
    unary("erfinv", unit(*S), complex=False),
    unary("floor", complex=False, gradgrad=False), unary("ceil", complex=False, gradgrad=False),
    unary("trunc", complex=False, gradgrad=False), unary("frac", arr(*S, seed=4) * 3 + 0.05, complex=False),
    unary("round", arr(*S, seed=4) * 3 + 0.05, complex=False, gradgrad=False),
    unary("conj_physical"),
    OpCase("clamp", lambda T, x: T.clamp(x, min=-0.5, max=0.7), [Sample([arr(*S, seed=1)])],
           complex=False),
    OpCase("clamp_min_only", lambda T, x: T.clamp(x, min=-0.5), [Sample([arr(*S, seed=1)])],
           complex=False, covers=("clamp",)),
    OpCase("clamp_tensor", lambda T, x, lo, hi: T.clamp(x, lo, hi),
           [Sample([arr(*S, seed=1), arr(4, seed=2) - 1.0, arr(4, seed=3) + 1.0])],
           complex=False, covers=("clamp",)),
    binary("maximum", a=ties, b=ties_b, complex=False), binary("minimum", a=ties, b=ties_b, complex=False),
    binary("fmax", a=ties, b=ties_b, complex=False), binary("fmin", a=ties, b=ties_b, complex=False),
    OpCase("where", lambda T, c, x, y: T.where(c > 0, x, y),
           [Sample([arr(*S, seed=5), arr(*S, seed=1), arr(4, seed=2)], grad=(1, 2))]),
    OpCase("lerp", lambda T, a, b, w: T.lerp(a, b, w),
           [Sample([arr(*S, seed=1), arr(*S, seed=2), arr(*S, seed=3)]),
            Sample([arr(*S, seed=1), arr(4, seed=2), arr(1, seed=3)], desc="broadcast")]),
    OpCase("comparisons", lambda T, x, y: (x < y, x <= y, x > y, x >= y, x == y, x != y,
                                           T.logical_and(x > 0, y > 0), T.logical_or(x > 0, y > 0),
                                           T.logical_xor(x > 0, y > 0), T.logical_not(x > 0)),
           [Sample([arr(*S, seed=1), arr(*S, seed=2)])], differentiable=False,
           covers=("lt", "le", "gt", "ge", "eq", "ne", "logical_and", "logical_or", "logical_xor",
                   "logical_not")),
    OpCase("float_checks", lambda T, x: (T.isnan(x), T.isinf(x), T.isfinite(x), T.isposinf(x),
                                         T.isneginf(x), T.signbit(x)),
           [Sample([np.array([1.0, np.nan, np.inf, -np.inf, -0.0, 2.0])])], differentiable=False,
           covers=("isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit")),
    OpCase("bitwise", lambda T, x, y: (x & y, x | y, x ^ y, ~x),
           [Sample([np.array([1, 2, 3, 12]), np.array([3, 6, 5, 10])])], differentiable=False,
           covers=("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not")),
]
