"""Special functions: the gamma family (lgamma, digamma, polygamma, mvlgamma, the
Hurwitz zeta and the regularized incomplete gamma functions), the modified Bessel
functions I0 and I1 (and their exponentially scaled forms), erfcx, the normal
distribution's ndtr/ndtri/log_ndtr, entr and xlog1py.

The kernels are NumPy only (``ops/_special.py``); each computes in float64 and
rounds to the input's dtype.  Derivatives are PyTorch's (``derivatives.yaml``):
lgamma's is digamma, digamma's polygamma(1, x), polygamma(n)'s polygamma(n + 1),
so every order differentiates again.  Where PyTorch has no derivative (zeta in its
first argument, igamma/igammac in theirs) the backward raises its
NotImplementedError.

The ops PyTorch has only in ``torch.special`` are registered under their ATen
names (``special_i0e``...) with no Tensor method and no top-level name: the
public module ``tensorplay.special`` gives them their names.
"""
import math

import ml_dtypes as _ml_dtypes
import numpy as np

from .. import _dtype as _D
from .._tensor import Tensor as _Tensor
from ._families import ELEMENTWISE
from ._registry import Spelling, defop as _defop, dispatch as _dispatch, overload_node, \
    public as _public, not_implemented
from ._util import dtype_error, is_scalar, scalar_pair_check
from . import _special as K
from .inplace import inplace_method as _inplace_method
from .pointwise import binary as _binary, unary as _unary, where as _where, erf as _erf
from .._out import call_with_out

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "i0", "igamma", "igammac"]

_SQRT_2PI = math.sqrt(2.0 * math.pi)
_2_SQRTPI = 2.0 / math.sqrt(math.pi)


# ------------------------------------------------------------------ the gamma family
lgamma = _unary("lgamma", K.lgamma, {"x": lambda g, x: g * digamma(x)},
                family=ELEMENTWISE, inplace=True, no_complex="lgamma_vml_cpu")
digamma = _unary("digamma", K.digamma, {"x": lambda g, x: g * polygamma(1, x)},
                 family=ELEMENTWISE, inplace=True, no_complex="digamma")


def _polygamma_k(x, n):
    return K.polygamma(x, n)


def _polygamma_refusal(x, n):
    return "digamma" if n == 0 else "trigamma" if n == 1 else "polygamma"


_polygamma = _defop("polygamma", _polygamma_k, {"x": lambda g, x, n: g * polygamma(n + 1, x)},
                    float_only=True, family=ELEMENTWISE, method=False,
                    no_complex=_polygamma_refusal)


def _order(n):
    """polygamma's ``n`` as PyTorch reads it: an int (a 0-d integer tensor too), >= 0."""
    if isinstance(n, _Tensor) and n.ndim == 0 and n._data.dtype.kind in "iu":
        n = int(n.item())
    if isinstance(n, np.integer):
        n = int(n)
    if type(n) is not int:
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return n


@_public(method=True)
def polygamma(n, input, *, out=None):
    """The n-th derivative of digamma (``polygamma(0, x)`` is ``digamma(x)``)."""
    if out is not None:
        return call_with_out("polygamma", polygamma, (n, input), {}, out)
    n = _order(n)
    if not isinstance(input, _Tensor):
        raise TypeError(f"polygamma(): argument 'input' (position 2) must be Tensor, not "
                        f"{type(input).__name__}")
    return _dispatch(_polygamma.op, [input, n])


def _polygamma_method(self, n):
    return polygamma(n, self)


_polygamma_method.__name__ = _polygamma_method.__qualname__ = "polygamma"
polygamma.as_method = _polygamma_method
polygamma.op = _polygamma.op
# (Tensor.polygamma_(n) takes the tensor first, unlike the function: made here, as
# ops/__init__ would make it from a function whose first parameter is the tensor)
_Tensor.polygamma_ = _inplace_method(_polygamma_method, "polygamma")


def _mvlgamma_k(x, p):
    if type(p) is not int:
        raise TypeError(f"mvlgamma(): argument 'p' must be int, not {type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    # PyTorch's sum: lgamma(x + a) over a = -(p-1)/2, ..., -1/2, 0, then p(p-1)/4 log(pi)
    a = np.arange(-p * 0.5 + 0.5, 0.5, 0.5)
    r = K.lgamma(x.astype(np.float64)[..., None] + a).sum(-1) + p * (p - 1) * math.log(math.pi) / 4
    return np.asarray(r).astype(x.dtype)


def _mvlgamma_vjp(g, x, p):
    d = digamma(x)
    for j in range(1, p):
        d = d + digamma(x - j * 0.5)
    return g * d


mvlgamma = _defop("mvlgamma", _mvlgamma_k, {"x": _mvlgamma_vjp}, float_only=True, family=ELEMENTWISE,
                  inplace=True, no_complex="arange_cpu")


def _not_implemented(what):
    return not_implemented(NotImplementedError, f"the derivative for '{what}' is not implemented.")


def _zeta_k(input, other):
    dt = input.dtype if isinstance(input, np.ndarray) else other.dtype
    return K.zeta(np.asarray(input, dt), np.asarray(other, dt))


def _zeta_check(input, other):
    """PyTorch has no half/bfloat16 zeta kernel, nor a zeta of two numbers."""
    if not isinstance(input, _Tensor) and not isinstance(other, _Tensor):
        raise TypeError(f"special_zeta() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__}), but expected one of:\n"
                        f" * (Tensor input, Tensor other, *, Tensor out = None)\n"
                        f" * (Number self, Tensor other, *, Tensor out = None)\n"
                        f" * (Tensor input, Number other, *, Tensor out = None)\n")
    dt = None
    for v in (input, other):
        if isinstance(v, _Tensor):
            dt = v.dtype if dt is None else _D.promote_types(dt, v.dtype)
    if dt is not None and dt.name in ("float16", "bfloat16"):
        raise dtype_error("zeta_cpu", dt.np)


# (PyTorch's keywords: special.zeta(input=, other=))
special_zeta = _binary("special_zeta", _zeta_k,
                       {"input": _not_implemented("zeta"),
                        "other": lambda g, input, other: g * (-input * special_zeta(input + 1.0, other))},
                       float_only=True, family=ELEMENTWISE, method=False, node_name="SpecialZetaBackward0",
                       no_complex="zeta_cpu", check=_zeta_check)
special_zeta.op.variants = lambda a: (
    _ZETA_TS if is_scalar(a[1]) else _ZETA_ST if is_scalar(a[0]) else special_zeta.op.node_cls)
_ZETA_ST = overload_node(special_zeta.op, "SpecialZetaBackward1", hidden=(0,))
_ZETA_TS = overload_node(special_zeta.op, "SpecialZetaBackward2", hidden=(1,))


def _igamma_density(a, x):
    """x^(a-1) e^-x / Gamma(a): d/dx of P(a, x)."""
    return ((a - 1.0) * x.log() - x - lgamma(a)).exp()


igamma = _binary("igamma", lambda input, other: K.igamma(input, other),
                 {"input": _not_implemented("igamma: input"),
                  "other": lambda g, input, other: g * _igamma_density(input, other)},
                 float_only=True, family=ELEMENTWISE, inplace=True, tensors_only=True,
                 no_complex="igamma_cpu", no_int="igamma_cpu", no_bool="igamma_cpu")
igammac = _binary("igammac", lambda input, other: K.igammac(input, other),
                  {"input": _not_implemented("igammac: input"),
                   "other": lambda g, input, other: -g * _igamma_density(input, other)},
                  float_only=True, family=ELEMENTWISE, inplace=True, tensors_only=True,
                  no_complex="igammac_cpu", no_int="igammac_cpu", no_bool="igammac_cpu")


# ------------------------------------------------------------------ Bessel I0, I1
i0 = _unary("i0", K.i0, {"x": lambda g, x: g * special_i1(x)}, family=ELEMENTWISE, inplace=True,
            no_complex="i0_vml_cpu")
special_i0e = _unary("special_i0e", K.i0e,
                     {"x": lambda g, x, result: g * (special_i1e(x) - x.sgn() * result)},
                     family=ELEMENTWISE, method=False, node_name="SpecialI0EBackward0",
                     no_complex="i0e_cpu")
# i1'(x) = i0(x) - i1(x)/x; i1e'(x) = i0e(x) - i1e(x) (sgn(x) + 1/x).  PyTorch's i1_backward and
# i1e_backward take 1/2 (the limit at 0) wherever |x| <= the dtype's epsilon (and at NaN), and
# compute the formula at x clamped away from 0, so the second derivative there is 0, not the
# cancellation of i0(x) - i1(x)/x
def _tiny_split(x):
    eps = float(_ml_dtypes.finfo(x._data.dtype).eps)     # (NumPy's finfo knows no bfloat16)
    big = x.abs() > eps
    return big, _where(big, x, eps)


def _i1_vjp(g, x, result):
    big, safe = _tiny_split(x)
    return g * _where(big, i0(safe) - result / safe, 0.5)


def _i1e_vjp(g, x, result):
    big, safe = _tiny_split(x)
    return g * _where(big, special_i0e(safe) - result * (safe.sgn() + 1.0 / safe), 0.5)


special_i1 = _unary("special_i1", K.i1, {"x": _i1_vjp},
                    family=ELEMENTWISE, method=False, node_name="SpecialI1Backward0", no_complex="i1_cpu")
special_i1e = _unary("special_i1e", K.i1e, {"x": _i1e_vjp},
                     family=ELEMENTWISE, method=False, node_name="SpecialI1EBackward0",
                     no_complex="i1e_cpu")


# ------------------------------------------------------------------ erfcx and the normal distribution
special_erfcx = _unary("special_erfcx", K.erfcx,
                       {"x": lambda g, x, result: g * (2.0 * x * result - _2_SQRTPI)},
                       family=ELEMENTWISE, method=False, node_name="SpecialErfcxBackward0",
                       no_complex="erfcx_cpu")
special_ndtri = _unary("special_ndtri", K.ndtri,
                       {"x": lambda g, result: g * (_SQRT_2PI * (result * result * 0.5).exp())},
                       family=ELEMENTWISE, method=False, node_name="SpecialNdtriBackward0",
                       no_complex="ndtri_cpu")
special_log_ndtr = _unary("special_log_ndtr", K.log_ndtr,
                          {"x": lambda g, x, result: g / _SQRT_2PI * (-(result + x * x * 0.5)).exp()},
                          family=ELEMENTWISE, method=False, node_name="SpecialLogNdtrBackward0",
                          no_complex="log_ndtr_cpu")


def special_ndtr(input, *, out=None):
    """The standard normal distribution function, as PyTorch composes it:
    ``(1 + erf(x / sqrt 2)) * 0.5``."""
    if out is not None:
        return call_with_out("special_ndtr", special_ndtr, (input,), {}, out)
    return (1 + _erf(input * math.sqrt(0.5))) * 0.5


special_ndtr.spelling = Spelling(False, False, ())


# ------------------------------------------------------------------ entr, xlog1py
def _entr_k(x):
    with np.errstate(all="ignore"):
        r = -x * np.log(x)
        r = np.where(x == 0, np.zeros((), r.dtype), r)
        return np.where(x < 0, np.asarray(-np.inf, r.dtype), r).astype(x.dtype)


special_entr = _unary("special_entr", _entr_k, {"x": lambda g, x: g * (-(1.0 + x.log()))},
                      family=ELEMENTWISE, method=False, node_name="SpecialEntrBackward0",
                      no_complex="entr_cpu")


def _xlog1py_k(x, y):
    dt = x.dtype if isinstance(x, np.ndarray) else y.dtype
    with np.errstate(divide="ignore", invalid="ignore"):
        x, y = np.asarray(x, dt), np.asarray(y, dt)
        r = x * np.log1p(y)
        return np.where((x == 0) & ~np.isnan(y), np.zeros((), r.dtype), r).astype(r.dtype)


def _xlog1py_vjp_x(g, x, y):            # PyTorch: xlog1py(g, y), 0 where x == 0 and y <= -1
    if isinstance(y, _Tensor):
        if y.dtype != g.dtype:
            y = y.to(g.dtype)
        return _where((x == 0) & (y <= -1), 0.0, special_xlog1py(g, y))
    r = special_xlog1py(g, y)
    return _where(x == 0, 0.0, r) if y <= -1 else r


special_xlog1py = _binary("special_xlog1py", _xlog1py_k,
                          {"x": _xlog1py_vjp_x, "y": lambda g, x, y: g * x / (y + 1.0)},
                          float_only=True, family=ELEMENTWISE, method=False,
                          node_name="SpecialXlog1PyBackward0", no_complex="xlog1py_cpu",
                          check=scalar_pair_check("special_xlog1py"))
special_xlog1py.op.variants = lambda a: (
    _XLOG1PY_TS if is_scalar(a[1]) else _XLOG1PY_ST if is_scalar(a[0]) else special_xlog1py.op.node_cls)
_XLOG1PY_ST = overload_node(special_xlog1py.op, "SpecialXlog1PyBackward1", hidden=(0,))
_XLOG1PY_TS = overload_node(special_xlog1py.op, "SpecialXlog1PyBackward2", hidden=(1,))
