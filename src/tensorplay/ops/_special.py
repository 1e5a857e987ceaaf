"""erf, erfc and erfinv in NumPy alone: the kernels used when SciPy is absent.

All three compute in float64 and round to the input's floating dtype at the
end (integers and bools give float64, as SciPy's do); 0-d arrays give 0-d
arrays.

erf / erfc
    ``|x| < 0.75``: the Maclaurin series of erf (17 terms; with ``x*x < 0.57``
    the alternating sum cancels less than one digit), and erfc = 1 - erf, which
    is at least 0.28 there, so no digits are lost either.

    ``|x| >= 0.75``: erfc(x) = exp(-x*x) / (x*sqrt(pi)) * g(x), where
    ``g(x) = x*sqrt(pi)*exp(x*x)*erfc(x)`` rises smoothly from 0.64 at 0.6875
    to 1 at infinity.  g is a polynomial in ``u = (x - 4.375)/(x + 3)``, which
    maps ``[0.6875, inf]`` onto ``[-1, 1]``: g's Chebyshev expansion in u cut
    where its terms drop below 5e-19, computed with mpmath by ``_regen()``.
    exp(-x*x) is evaluated as ``exp(-h*h) * exp(-(x - h)*(x + h))`` with ``h``
    = x truncated to a multiple of 1/16, so that the rounding of x*x (up to
    7e-14 relative near x = 26) never reaches the result: erfc keeps its
    relative accuracy deep into the tail.  erf is then
    ``sign(x) * (1 - erfc(|x|))``, and erfc(-x) = 2 - erfc(x).

erfinv
    A starting value (the Maclaurin series of erfinv for ``|x| < 0.7``,
    Winitzki's closed form, relative error below 2e-3, elsewhere), then Halley
    steps on ``erf(y) = x``.  For ``|x| >= 0.7`` (``y >= 0.73``, inside g's
    range) the residual is computed as ``(1 - |x|) - erfc(y)``: ``1 - |x|`` is
    exact there, so near ``+-1`` the accuracy is erfc's rather than what is
    left of ``erf(y) - x`` after cancellation.  ``erfinv(+-1) = +-inf``;
    ``|x| > 1`` and nan give nan.
"""
import math

import numpy as np

from ._util import F64 as _F64

__all__ = ["erf", "erfc", "erfinv"]

_SQRT_PI = math.sqrt(math.pi)
_2_SQRTPI = 2.0 / _SQRT_PI
_SWITCH = 0.75               # erf/erfc: the series below, g above

# erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1)); highest power first, for Horner in x*x
_ERF_SERIES = tuple(_2_SQRTPI * (-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(16, -1, -1))

# g(x) = x*sqrt(pi)*exp(x*x)*erfc(x) on [_G_LO, inf] as a polynomial in
# u = (x - (2*_G_LO + _G_K)) / (x + _G_K), lowest power first.  Printed by _regen() below.
_G_LO, _G_K = 0.6875, 3.0    # exact in binary, as is 2*_G_LO + _G_K
_G_POLY = (
    0.9756972025104343, 0.07645681230477225, -0.10030504258587117, 0.07924575981712643,
    -0.046023998098751934, 0.020035939048407683, -0.006095413269123851, 0.0009242141361637813,
    0.00016759087746065629, -0.00012144390267786568, 1.1531023540076472e-05, 9.926037301066146e-06,
    -2.6672145855702293e-06, -8.23304563747849e-07, 3.850922470002566e-07, 8.370575579105486e-08,
    -5.2709735326990424e-08, -1.1474600582718856e-08, 7.212877703562651e-09, 1.908385345293678e-09,
    -9.473353855387605e-10, -2.916290148132029e-10, 1.0499412427586664e-10, 2.6473910439763518e-11,
    -7.065753832832844e-12,
)
_G_C = 2 * _G_LO + _G_K
_G_HORNER = tuple(reversed(_G_POLY))
_ERFC_ZERO = 28.0            # erfc(x) has underflowed to 0 in float64 well before this


def _horner(coeffs, z):
    """sum(c * z**k) with ``coeffs`` highest power first, as a new array."""
    p = np.full_like(z, coeffs[0])
    for c in coeffs[1:]:
        p *= z
        p += c
    return p


def _erf_small(x):
    """erf for |x| < 0.75 (accurate a little beyond)."""
    p = _horner(_ERF_SERIES, x * x)
    p *= x
    return p


def _erfc_big(a):
    """erfc for _G_LO <= a <= inf or nan, to a few ulp relative."""
    a = np.minimum(a, _ERFC_ZERO)                 # inf -> a value whose erfc is 0; nan stays nan
    g = _horner(_G_HORNER, (a - _G_C) / (a + _G_K))
    h = np.trunc(a * 16.0)
    h *= 1.0 / 16.0                               # h*h is exact
    e = np.exp(-(h * h))
    e *= np.exp(-((a - h) * (a + h)))
    g *= e
    g /= a * _SQRT_PI
    return g


def _split(x, small_fn, big_fn):
    """``small_fn(x)`` where |x| < _SWITCH, ``big_fn(x, |x|)`` elsewhere (nan included)."""
    a = np.abs(x)
    small = a < _SWITCH
    n_small = np.count_nonzero(small)
    if n_small == x.size:
        return small_fn(x)
    if n_small == 0:
        return big_fn(x, a)
    r = np.empty_like(x)
    r[small] = small_fn(x[small])
    big = ~small
    r[big] = big_fn(x[big], a[big])
    return r


def _erfc_tail(x, a):
    c = _erfc_big(a)
    neg = x < 0
    if neg.any():
        c[neg] = 2.0 - c[neg]
    return c


def _erfc_f64(x):
    return _split(x, lambda s: 1.0 - _erf_small(s), _erfc_tail)


def _erf_f64(x):
    return _split(x, _erf_small, lambda b, a: np.copysign(1.0 - _erfc_big(a), b))


def _as_f64(x):
    """(x as float64, dtype of the result)"""
    x = np.asarray(x)
    if x.dtype.kind == "c":
        raise TypeError(f"erf, erfc and erfinv without SciPy take real input, not {x.dtype}")
    return x.astype(_F64, copy=False), (x.dtype if x.dtype.kind == "f" else _F64)


def _apply(f, x):
    x, dtype = _as_f64(x)
    with np.errstate(all="ignore"):
        r = f(x.reshape(-1)).reshape(x.shape)
    return r.astype(dtype, copy=False)


def erf(x):
    """The error function, elementwise."""
    return _apply(_erf_f64, x)


def erfc(x):
    """The complementary error function 1 - erf(x), accurate where it is tiny."""
    return _apply(_erfc_f64, x)


_INV_SWITCH = 0.7            # erfinv(0.7) = 0.733 > _G_LO, with room for the first iterates
_WINITZKI_A = 0.147
_WINITZKI_B = 2.0 / (math.pi * _WINITZKI_A)
_HALLEY_STEPS = 3            # cubic convergence from 2e-3; the third step settles the last ulps near +-1


def _halley(y, resid):
    """Solve erf(y) = target from y, ``resid(y)`` being erf(y) - target."""
    for _ in range(_HALLEY_STEPS):
        r = resid(y)
        d = np.exp(-(y * y))
        d *= _2_SQRTPI                            # erf'(y); erf''(y) = -2y erf'(y)
        d += y * r
        y = y - r / d
    return y


def _erfinv_small(a):
    """erfinv for 0 <= a < _INV_SWITCH."""
    z = a * a
    y = (0.5 * _SQRT_PI) * a * (1.0 + z * (math.pi / 12 + z * (7 * math.pi ** 2 / 480
                                                                 + z * (127 * math.pi ** 3 / 40320))))
    return _halley(y, lambda y: _erf_small(y) - a)


def _erfinv_big(a):
    """erfinv for _INV_SWITCH <= a < 1."""
    q = 1.0 - a                                   # exact
    lg = np.log(q * (1.0 + a))                    # log(1 - a*a)
    t = _WINITZKI_B + 0.5 * lg
    y = np.sqrt(np.sqrt(t * t - lg / _WINITZKI_A) - t)
    return _halley(y, lambda y: q - _erfc_big(y))


def _erfinv_f64(x):
    a = np.abs(x)
    small = a < _INV_SWITCH
    if small.all():
        y = _erfinv_small(a)
    else:
        y = np.where(a == 1.0, np.inf, np.nan)    # |x| > 1 and nan stay nan
        if small.any():
            y[small] = _erfinv_small(a[small])
        big = (a >= _INV_SWITCH) & (a < 1.0)
        if big.any():
            y[big] = _erfinv_big(a[big])
    return np.copysign(y, x)


def erfinv(x):
    """The inverse error function on [-1, 1]: erf(erfinv(x)) == x."""
    return _apply(_erfinv_f64, x)


def _regen(lo=_G_LO, K=_G_K, n=96, tol="5e-19"):  # pragma: no cover - maintenance tool, needs mpmath
    """Print ``_G_POLY`` afresh: ``python -c "from tensorplay.ops._special import _regen; _regen()"``.

    g's Chebyshev coefficients from ``n`` Chebyshev nodes at 50 digits, the
    terms above ``tol`` kept, then turned into powers of u in mpmath (so the
    change of basis adds no rounding) and rounded once to float64.
    """
    import mpmath
    mpmath.mp.dps = 50
    K, lo = mpmath.mpf(K), mpmath.mpf(lo)

    def g(u):                       # u = 1 - 2(lo + K)/(x + K)  <=>  x = 2(lo + K)/(1 - u) - K
        if u == 1:
            return mpmath.mpf(1)
        x = 2 * (lo + K) / (1 - u) - K
        return x * mpmath.sqrt(mpmath.pi) * mpmath.exp(x * x) * mpmath.erfc(x)

    th = [mpmath.pi * (k + mpmath.mpf(1) / 2) / n for k in range(n)]
    vals = [g(mpmath.cos(h)) for h in th]
    cheb = [2 * mpmath.fsum(v * mpmath.cos(j * h) for v, h in zip(vals, th)) / n for j in range(n)]
    cheb[0] /= 2
    m = max(j for j in range(n) if abs(cheb[j]) > mpmath.mpf(tol)) + 1
    poly = [mpmath.mpf(0)] * m
    t_prev, t = [mpmath.mpf(1)], [mpmath.mpf(0), mpmath.mpf(1)]      # T_0, T_1 as powers of u
    for k in range(m):
        if k >= 2:                                                  # T_k = 2u T_(k-1) - T_(k-2)
            t_prev, t = t, [2 * a - b for a, b in zip([mpmath.mpf(0)] + t, t_prev + [0, 0])]
        for i, v in enumerate(t_prev if k == 0 else t):
            poly[i] += cheb[k] * v
    print(",\n".join(repr(float(v)) for v in poly))
