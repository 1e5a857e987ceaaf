"""erf, erfc and erfinv in NumPy alone: the kernels used when SciPy is absent.
(Below them, the kernels of ops/special_fns.py, always used: the gamma family,
Bessel I0/I1, erfcx, ndtri, log_ndtr, the Hurwitz zeta and the incomplete gamma
functions, each described where it is defined.)

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
import functools
import math

import numpy as np

from ._util import F64 as _F64

__all__ = ["erf", "erfc", "erfinv", "lgamma", "digamma", "polygamma", "zeta", "i0", "i0e", "i1", "i1e",
           "erfcx", "ndtri", "log_ndtr", "igamma", "igammac"]

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


# ============================================================================ the gamma family,
# Bessel I0/I1, erfcx and the normal distribution's functions (no SciPy alternative: these
# kernels are the only ones).  Each ``*_f64`` takes and returns a 1-d float64 array; the
# public kernels below (``lgamma`` ...) take any real array and return the input's
# floating dtype (float64 for integers), as erf does above.
#
# lgamma
#     x < 0: the reflection lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x), with
#     sin(pi x) computed from x reduced exactly to [-1/2, 1/2]; 0 and the negative
#     integers are poles (inf).  0 < x < 2.5: the Taylor series of lgamma about 2,
#     lgamma(2 + t) = (1 - gamma) t + sum_k>=2 (-1)^k (zeta(k) - 1) t^k / k, |t| <= 1/2,
#     minus log(x) and log(x + 1) to step up to [1.5, 2.5]; so the zeros at 1 and 2 keep
#     their relative accuracy.  2.5 <= x < 13: the recurrence down to [1.5, 2.5] (one
#     product of at most 11 exact factors).  x >= 13: Stirling's series, 8 terms.
# digamma
#     PyTorch's formulation: 0 gives -inf (-0.0: +inf), a negative integer nan, x < 0 the
#     reflection psi(1 - x) - pi / tan(pi frac(x)); x > 0 steps up to >= 10 with
#     -1/x, then the asymptotic series (8 Bernoulli terms).
# zeta(s, q) (Hurwitz) and polygamma(n >= 1, x) = (-1)^(n+1) n! zeta(n + 1, x)
#     The terms (q + k)^-s summed directly until q + k >= max(10, s + 24), then the
#     Euler-Maclaurin tail with 12 Bernoulli terms (each smaller than the one before by
#     (s + 2j)^2 / (2 pi a)^2 <= 1/39).  Cephes' (and PyTorch's) edge cases: s == 1 is
#     inf, s < 1 nan, q a non-positive integer inf, q < 0 with s not an integer nan,
#     q = inf nan.  polygamma(1, x) at 0 and the negative integers is what PyTorch's
#     trigamma gives there: pi^2 / sin(pi x)^2 - trigamma(1 - x), sin(pi x) in floating
#     point (inf at 0, about 6.6e32 at -1).
# i0, i0e, i1, i1e
#     |x| <= 20: the power series (positive terms); beyond, the asymptotic expansion
#     e^|x| / sqrt(2 pi |x|) sum_k (-1)^k a_k(nu) / |x|^k with 30 terms (its smallest term
#     is near k = 2|x|, far below 1e-17 there).  i0(+-inf) and i1(+-inf) are nan, as in
#     PyTorch; i0e/i1e there are 0.
# erfcx, ndtri, log_ndtr
#     erfcx(x) = g(x) / (x sqrt(pi)) for x >= 0.6875 with erfc's g above (no exp at all),
#     exp(x^2) erfc(x) below, and 2 exp(x^2) - erfcx(-x) for x < 0.  ndtri: Abramowitz
#     and Stegun's 26.2.23 start, then Halley steps on ndtr(y) = p with ndtr from erfc
#     (relative accuracy in both tails; p > 1/2 by symmetry, 1 - p exact).  log_ndtr:
#     log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 for x < -1, log1p(-ndtr(-x)) above.
# igamma, igammac (regularized incomplete gamma P(a, x), Q(a, x))
#     The power series of P for x < a + 1, Lentz's continued fraction of Q elsewhere,
#     each iterated (vectorized over the elements not yet converged) until the last
#     term is below 1e-17 of the sum; about sqrt(a) steps where x is near a.  The
#     prefactor x^a e^-x / Gamma(a) for a >= 10 is exp(a (log1p(d) - d) + ...) with
#     d = (x - a) / a and Stirling's series for Gamma, so that it does not lose the
#     digits a difference of terms of size a log a would.
# ============================================================================

_EULER = 0.57721566490153286061
_EPS64 = float(np.finfo(np.float64).eps)
_LOG_PI = math.log(math.pi)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
# B_2k, k = 1..13
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798,
              -174611 / 330, 854513 / 138, -236364091 / 2730, 8553103 / 6)
_EM_TERMS = 12
_EM = tuple(_BERNOULLI[j] / math.factorial(2 * j + 2) for j in range(_EM_TERMS))     # B_2j / (2j)!
_STIRLING = tuple(_BERNOULLI[k] / ((2 * k + 2) * (2 * k + 1)) for k in range(8))     # B_2k / (2k (2k-1))
_PSI_ASYM = tuple(_BERNOULLI[k] / (2 * k + 2) for k in range(8))                      # B_2k / 2k


def _where_fill(out, mask, fn, *arrays):
    """out[mask] = fn(*(a[mask] for a in arrays)), skipping an empty mask."""
    if mask.any():
        out[mask] = fn(*(a[mask] for a in arrays))


def _sinpi(x):
    """sin(pi x) for finite x, with x reduced exactly (to [-1/2, 1/2]) first."""
    r = x - 2.0 * np.round(x * 0.5)             # [-1, 1], exact
    r = np.where(r > 0.5, 1.0 - r, np.where(r < -0.5, -1.0 - r, r))
    return np.sin(np.pi * r)


def _zeta_f64(s, q):
    """Hurwitz zeta(s, q) elementwise (1-d arrays of one shape)."""
    out = np.full(s.shape, np.nan)
    qint = q == np.floor(q)                     # (also +-inf)
    sint = s == np.floor(s)
    out[(s == 1.0) | (~(s <= 1.0) & (q <= 0) & qint)] = np.inf     # (s = nan too, as Cephes)
    ok = (s > 1.0) & np.isfinite(q) & ((q > 0) | (~qint & sint))
    with np.errstate(all="ignore"):
        # Cephes' early stop: the first term alone where the next is below eps of it
        # (zeta(inf, 1) = 1, zeta(inf, q < 1) = inf; zeta(inf, q > 1), 0 / 0, stays nan)
        first, second = np.power(q, -s), np.power(q + 1.0, -s)
        early = ok & (q > 0) & (first > 0) & (second / first < _EPS64)
        out[early] = first[early]
        # q < 0 (not an integer): the terms of the q + k in (-1, 0) and (0, 1) may overflow
        # (s = inf), to a sum of -inf and inf for an odd s (nan, as in Cephes)
        k = np.ceil(-q)                         # (q + k - 1 in (-1, 0), q + k in (0, 1))
        big = np.power(q + (k - 1.0), -s) + np.power(q + k, -s)
        neg = ok & (q < 0) & ~np.isfinite(big)
        out[neg] = big[neg]
        ok &= ~(early | neg)
        if ok.any():
            out[ok] = _zeta_main(s[ok], q[ok])
    return out


def _zeta_main(s, q):
    target = np.minimum(np.maximum(10.0, s + 2 * _EM_TERMS), 1e4)
    total = np.zeros_like(q)
    a = q.copy()
    low = a < target
    while low.any():                            # the direct terms, until every a >= target
        idx = np.flatnonzero(low)
        total[idx] += np.power(a[idx], -s[idx])
        a[idx] += 1.0
        low[idx] = a[idx] < target[idx]
    t = np.power(a, -s)
    total += np.power(a, 1.0 - s) / (s - 1.0) + 0.5 * t
    w = s * t / a
    a2 = a * a
    for j in range(_EM_TERMS):
        total += _EM[j] * w
        w = w * ((s + (2 * j + 1)) * (s + (2 * j + 2)) / a2)
    return total


# lgamma(2 + t) = sum_k c_k t^k (c_1 = 1 - gamma, c_k = (-1)^k (zeta(k) - 1) / k), |t| <= 1/2
_LG_N = 30
_LG_SERIES = (1.0 - _EULER,) + tuple(
    (-1) ** k * float(v) / k for k, v in zip(range(2, _LG_N + 1), _zeta_main(
        np.arange(2.0, _LG_N + 1), np.full(_LG_N - 1, 2.0))))
_LG_HORNER = tuple(reversed(_LG_SERIES)) + (0.0,)


def _lgamma_near2(t):
    """lgamma(2 + t) for |t| <= 1/2."""
    return _horner(_LG_HORNER, t)


def _stirling(x):
    """lgamma(x) for x >= 13."""
    z = 1.0 / (x * x)
    s = _horner(tuple(reversed(_STIRLING)), z) / x
    lx = np.log(x)
    return (x - 0.5) * lx - x + _HALF_LOG_2PI + s


def _lgamma_pos(x):
    """lgamma(x) for finite x > 0."""
    out = np.empty_like(x)
    _where_fill(out, x < 0.5, lambda v: _lgamma_near2(v) - np.log1p(v) - np.log(v), x)
    _where_fill(out, (x >= 0.5) & (x < 1.5), lambda v: _lgamma_near2(v - 1.0) - np.log(v), x)
    _where_fill(out, (x >= 1.5) & (x < 2.5), lambda v: _lgamma_near2(v - 2.0), x)

    def mid(v):                                 # 2.5 <= v < 13: down to [1.5, 2.5]
        n = np.floor(v - 1.5)
        t = v - n                               # exact, in [1.5, 2.5)
        p = np.ones_like(v)
        for k in range(1, 12):
            p = np.where(k <= n, p * (v - k), p)
        return _lgamma_near2(t - 2.0) + np.log(p)
    _where_fill(out, (x >= 2.5) & (x < 13.0), mid, x)
    _where_fill(out, x >= 13.0, _stirling, x)
    return out


def _lgamma_f64(x):
    out = np.full_like(x, np.nan)
    out[np.isinf(x) | ((x <= 0) & (x == np.floor(x)))] = np.inf
    _where_fill(out, np.isfinite(x) & (x > 0), _lgamma_pos, x)
    _where_fill(out, np.isfinite(x) & (x < 0) & (x != np.floor(x)),
                lambda v: (_LOG_PI - np.log(np.abs(_sinpi(v)))) - _lgamma_pos(1.0 - v), x)
    return out


def _digamma_pos(x):
    """digamma(x) for finite x > 0 (and +inf)."""
    res = np.zeros_like(x)
    x = x.copy()
    low = x < 10.0
    while low.any():
        idx = np.flatnonzero(low)
        res[idx] -= 1.0 / x[idx]
        x[idx] += 1.0
        low[idx] = x[idx] < 10.0
    z = 1.0 / (x * x)
    return res + np.log(x) - 0.5 / x - z * _horner(tuple(reversed(_PSI_ASYM)), z)


def _digamma_f64(x):
    out = np.full_like(x, np.nan)               # negative integers, -inf, nan
    zero = x == 0
    out[zero] = np.copysign(np.inf, -x[zero])
    _where_fill(out, x > 0, _digamma_pos, x)
    neg = (x < 0) & (x != np.floor(x))

    def refl(v):
        r = v - np.trunc(v)
        return _digamma_pos(1.0 - v) - np.pi / np.tan(np.pi * r)
    _where_fill(out, neg, refl, x)
    return out


def _trigamma_f64(x):
    out = _zeta_f64(np.full_like(x, 2.0), x)
    out[x == np.inf] = 0.0
    out[x == -np.inf] = np.nan
    pole = (x <= 0) & (x == np.floor(x)) & np.isfinite(x)

    def torch_pole(v):                          # PyTorch's reflection, sin(pi x) in floating point
        s = np.sin(np.pi * v)
        with np.errstate(divide="ignore"):
            return np.pi ** 2 / (s * s) - _zeta_f64(np.full_like(v, 2.0), 1.0 - v)
    _where_fill(out, pole, torch_pole, x)
    return out


def _polygamma_f64(x, n):
    if n == 0:
        return _digamma_f64(x)
    far = (x < -_REFLECT_BELOW) & (x != np.floor(x))
    out = np.empty_like(x)
    _where_fill(out, far, lambda v: _polygamma_reflected(v, n), x)
    _where_fill(out, ~far, lambda v: _trigamma_f64(v) if n == 1 else _polygamma_series(v, n), x)
    return out


def _polygamma_series(x, n):
    """(-1)^(n+1) n! zeta(n + 1, x), n >= 2."""
    return _zeta_f64(np.full_like(x, n + 1.0), x) * (
        math.exp(math.lgamma(n + 1.0)) * (1.0 if n % 2 else -1.0))


# polygamma of a negative non-integer x far from 0: the zeta series would add |x| terms
# one by one (seconds at -1e6); the reflection of psi(1 - x) - psi(x) = pi cot(pi x),
# differentiated n times, moves it to 1 - x > 0:
#   psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) cot^(n)(pi x)
# with cot^(n)(y) = P_n(cot y), P_0(c) = c, P_(k+1)(c) = -(1 + c^2) P_k'(c).  Its two terms
# cancel where the result is small (~1e-14 absolute), so the series keeps the nearer
# negatives (1,000 terms at most, ~10 ms)
_REFLECT_BELOW = 1000.0


@functools.lru_cache(maxsize=64)
def _cot_derivative_poly(n):
    p = np.polynomial.Polynomial([0.0, 1.0])
    for _ in range(n):
        p = -np.polynomial.Polynomial([1.0, 0.0, 1.0]) * p.deriv()
    return p


def _polygamma_reflected(x, n):
    c = 1.0 / np.tan(np.pi * (x - np.round(x)))     # (cot has period pi: reduced exactly first)
    pos = _trigamma_f64(1.0 - x) if n == 1 else _polygamma_series(1.0 - x, n)
    return (-1.0) ** n * pos - math.pi ** (n + 1) * _cot_derivative_poly(n)(c)


# ---------------------------------------------------------------- Bessel I0, I1
_BESSEL_SWITCH = 20.0
_BESSEL_SERIES_TERMS = 60
_BESSEL_ASYM_TERMS = 30


def _bessel_series(a, nu):
    """I_nu(a) for 0 <= a <= 20 (nu 0 or 1): sum (a/2)^(2k+nu) / (k! (k+nu)!)."""
    z = 0.25 * a * a
    term = np.ones_like(a) if nu == 0 else 0.5 * a
    total = term.copy()
    for k in range(1, _BESSEL_SERIES_TERMS):
        term = term * z / (k * (k + nu))
        total += term
    return total


def _bessel_asym_scaled(a, nu):
    """I_nu(a) e^-a for a > 20: sqrt(1/(2 pi a)) sum_k (-1)^k a_k(nu) / a^k."""
    mu = 4.0 * nu * nu
    term = np.ones_like(a)
    total = term.copy()
    for k in range(1, _BESSEL_ASYM_TERMS):
        term = term * (-(mu - (2 * k - 1) ** 2) / (8.0 * k)) / a
        total += term
    return total / (np.sqrt(2.0 * np.pi) * np.sqrt(a))


def _bessel_f64(x, nu, scaled):
    a = np.abs(x)
    out = np.full_like(x, np.nan)
    small = a <= _BESSEL_SWITCH
    if scaled:
        _where_fill(out, small, lambda v: _bessel_series(v, nu) * np.exp(-v), a)
        _where_fill(out, (a > _BESSEL_SWITCH) & np.isfinite(a), lambda v: _bessel_asym_scaled(v, nu), a)
        out[a == np.inf] = 0.0
    else:
        _where_fill(out, small, lambda v: _bessel_series(v, nu), a)

        def big(v):                             # e^v overflows first past ~713: split it
            h = np.exp(0.5 * v)
            return (_bessel_asym_scaled(v, nu) * h) * h
        _where_fill(out, (a > _BESSEL_SWITCH) & np.isfinite(a), big, a)
    if nu == 1:
        out = np.where(x < 0, -out, out)        # odd (-0.0 gives 0.0, as in PyTorch)
    return out


# ---------------------------------------------------------------- erfcx, ndtr's inverse, log_ndtr
_SQRT_2 = math.sqrt(2.0)
_SQRT_2PI = math.sqrt(2.0 * math.pi)


def _erfcx_pos(a):
    """erfcx for a >= _G_LO (inf included: 0)."""
    with np.errstate(invalid="ignore"):
        g = _horner(_G_HORNER, (a - _G_C) / (a + _G_K))
    g[a == np.inf] = 1.0
    return g / (a * _SQRT_PI)


def _erfcx_f64(x):
    out = np.empty_like(x)
    mid = np.abs(x) < _SWITCH
    _where_fill(out, mid, lambda v: np.exp(v * v) * (1.0 - _erf_small(v)), x)
    _where_fill(out, x >= _SWITCH, _erfcx_pos, x)

    def neg(v):                                 # 2 exp(v^2) - erfcx(-v); exp(v^2) split as erfc's
        h = np.trunc(v * 16.0) * (1.0 / 16.0)
        e = np.exp(h * h) * np.exp((v - h) * (v + h))
        return 2.0 * e - _erfcx_pos(-v)
    _where_fill(out, x <= -_SWITCH, neg, x)
    out[np.isnan(x)] = np.nan
    out[x == -np.inf] = np.inf
    return out


def _ndtr_tail(y):
    """ndtr(y) for y <= 0, relative accuracy: erfc(-y / sqrt 2) / 2."""
    return 0.5 * _erfc_f64(-y / _SQRT_2)


def _ndtri_low(p):
    """ndtri(p) for 0 < p <= 1/2."""
    t = np.sqrt(-2.0 * np.log(p))
    y = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) /
          (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
    for _ in range(3):                          # Halley on ndtr(y) = p
        d = np.exp(-0.5 * y * y) / _SQRT_2PI
        r = (_ndtr_tail(np.minimum(y, 0.0)) - p) / d
        y = y - r / (1.0 + 0.5 * y * r)
    return np.minimum(y, 0.0)


def _ndtri_f64(p):
    out = np.full_like(p, np.nan)
    out[p == 0] = -np.inf
    out[p == 1] = np.inf
    mid = (p >= 0.25) & (p <= 0.75)             # 2p - 1 exact: erfinv's relative accuracy near 0
    _where_fill(out, mid, lambda v: _SQRT_2 * _erfinv_f64(2.0 * v - 1.0), p)
    _where_fill(out, (p > 0) & (p < 0.25), _ndtri_low, p)
    _where_fill(out, (p > 0.75) & (p < 1), lambda v: -_ndtri_low(1.0 - v), p)
    return out


def _log_ndtr_f64(x):
    out = np.empty_like(x)
    low = x < -1.0
    _where_fill(out, low, lambda v: np.log(0.5 * _erfcx_f64(-v / _SQRT_2)) - 0.5 * v * v, x)
    _where_fill(out, ~low, lambda v: np.log1p(-0.5 * _erfc_f64(v / _SQRT_2)), x)
    return out


# ---------------------------------------------------------------- incomplete gamma
_IG_MAX_ITER = 100000
_IG_EPS = 1e-17
_TINY = 1e-300
_LOG1PMX_SERIES = tuple((-1) ** (k + 1) / k for k in range(64, 1, -1))     # d^k, k = 64 .. 2


def _log1pmx(d):
    """log(1 + d) - d, without the cancellation for small |d|."""
    out = np.empty_like(d)
    small = np.abs(d) < 0.5
    _where_fill(out, small, lambda v: _horner(_LOG1PMX_SERIES, v) * v * v, d)
    _where_fill(out, ~small, lambda v: np.log1p(v) - v, d)
    return out


def _ig_prefactor(a, x):
    """x^a e^-x / Gamma(a).  For a >= 10 its log is written as
    a (log(1 + d) - d) + log(a / 2 pi) / 2 - stirling(a), d = (x - a) / a, which
    keeps it accurate where x^a and Gamma(a) are each far beyond float64."""
    out = np.empty_like(x)
    big = a >= 10.0

    def stirling_form(a, x):
        z = 1.0 / (a * a)
        corr = _horner(tuple(reversed(_STIRLING)), z) / a
        return np.exp(a * _log1pmx((x - a) / a) + 0.5 * np.log(a / (2.0 * np.pi)) - corr)
    _where_fill(out, big, stirling_form, a, x)
    _where_fill(out, ~big, lambda a, x: np.exp(a * np.log(x) - x - _lgamma_f64(a)), a, x)
    return out


def _ig_series(a, x):
    """P(a, x) by its power series: x^a e^-x / Gamma(a+1) * sum x^n / ((a+1)...(a+n))."""
    total = np.ones_like(x)
    idx = np.arange(x.size)                     # the elements still converging
    term, ap, xs = np.ones_like(x), a.copy(), x
    for _ in range(_IG_MAX_ITER):
        ap = ap + 1.0
        term = term * (xs / ap)
        total[idx] += term
        keep = np.abs(term) > _IG_EPS * np.abs(total[idx])
        if not keep.all():
            idx, term, ap, xs = idx[keep], term[keep], ap[keep], xs[keep]
            if idx.size == 0:
                break
    return total * _ig_prefactor(a, x) / a


def _ig_cfrac(a, x):
    """Q(a, x) by its continued fraction (modified Lentz)."""
    b = x + 1.0 - a
    h = 1.0 / b
    idx = np.arange(x.size)
    c, d, aa, bb = np.full_like(x, 1.0 / _TINY), h.copy(), a, b
    for i in range(1, _IG_MAX_ITER):
        an = -i * (i - aa)
        bb = bb + 2.0
        d = an * d + bb
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = bb + an / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1.0 / d
        delta = d * c
        h[idx] *= delta
        keep = np.abs(delta - 1.0) > _IG_EPS
        if not keep.all():
            idx, c, d, aa, bb = idx[keep], c[keep], d[keep], aa[keep], bb[keep]
            if idx.size == 0:
                break
    return _ig_prefactor(a, x) * h


def _igamma_pair(a, x):
    """(P, Q) with PyTorch's edge cases: a < 0 or x < 0 or both 0 nan; a == 0: P = 1;
    x == 0: P = 0; x == inf: P = 1; a == inf (x finite): P = 0."""
    p = np.full_like(x, np.nan)
    q = np.full_like(x, np.nan)
    bad = (a < 0) | (x < 0) | np.isnan(a) | np.isnan(x) | ((a == 0) & (x == 0)) | \
        ((a == np.inf) & (x == np.inf))
    one = ~bad & ((a == 0) | (x == np.inf))
    zero = ~bad & ~one & ((x == 0) | (a == np.inf))
    p[one], q[one] = 1.0, 0.0
    p[zero], q[zero] = 0.0, 1.0
    rest = ~bad & ~one & ~zero
    ser = rest & (x < a + 1.0)
    cf = rest & ~ser
    if ser.any():
        p[ser] = _ig_series(a[ser], x[ser])
        q[ser] = 1.0 - p[ser]
    if cf.any():
        q[cf] = _ig_cfrac(a[cf], x[cf])
        p[cf] = 1.0 - q[cf]
    return p, q


# ---------------------------------------------------------------- the kernels
def _real(name, *xs):
    for x in xs:
        if x.dtype.kind == "c":
            raise TypeError(f"{name} takes real input, not {x.dtype}")


def _apply_n(f, *xs):
    """f on float64 1-d arrays of the broadcast inputs; the result in their common
    floating dtype (float64 for integers), of their broadcast shape."""
    xs = [np.asarray(x) for x in xs]
    dt = np.result_type(*xs)
    dt = dt if dt.kind == "f" else _F64
    shape = np.broadcast_shapes(*(x.shape for x in xs))
    flat = [np.broadcast_to(x.astype(_F64, copy=False), shape).reshape(-1) for x in xs]
    with np.errstate(all="ignore"):
        r = f(*flat).reshape(shape)
    return r.astype(dt, copy=False)


def lgamma(x):
    """log |Gamma(x)|."""
    return _apply_n(_lgamma_f64, x)


def digamma(x):
    return _apply_n(_digamma_f64, x)


def polygamma(x, n):
    """The n-th derivative of digamma (n >= 0)."""
    return _apply_n(lambda v: _polygamma_f64(v, n), x)


def zeta(s, q):
    """The Hurwitz zeta function sum_k (q + k)^-s."""
    return _apply_n(_zeta_f64, s, q)


def i0(x):
    return _apply_n(lambda v: _bessel_f64(v, 0, False), x)


def i0e(x):
    return _apply_n(lambda v: _bessel_f64(v, 0, True), x)


def i1(x):
    return _apply_n(lambda v: _bessel_f64(v, 1, False), x)


def i1e(x):
    return _apply_n(lambda v: _bessel_f64(v, 1, True), x)


def erfcx(x):
    """exp(x^2) erfc(x)."""
    return _apply_n(_erfcx_f64, x)


def ndtri(x):
    """The inverse of the standard normal distribution function."""
    return _apply_n(_ndtri_f64, x)


def log_ndtr(x):
    """log of the standard normal distribution function."""
    return _apply_n(_log_ndtr_f64, x)


def igamma(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    return _apply_n(lambda a, x: _igamma_pair(a, x)[0], a, x)


def igammac(a, x):
    """The regularized upper incomplete gamma function Q(a, x)."""
    return _apply_n(lambda a, x: _igamma_pair(a, x)[1], a, x)
