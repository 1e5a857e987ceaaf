"""The rest of ``torch.special``: Bessel functions of the first and second kinds
(J0, J1, Y0, Y1), the modified Bessel functions I0, I1, K0, K1 and the
exponentially scaled K0, K1, the spherical Bessel function j0, Airy's Ai, and
the orthogonal polynomials (Chebyshev T, U, V, W and their shifted forms,
Hermite H and He, Laguerre L, Legendre P).

None of these is differentiable in PyTorch: their outputs carry no ``grad_fn``
(and no forward-mode tangent) even when the input requires grad, so here they
are entries without derivatives, with their output marked non-differentiable.
PyTorch has them only in ``torch.special`` (no top-level name, no Tensor
method): they are registered under their ATen names (``special_bessel_j0``...)
and ``tensorplay.special`` gives them their public names.

The kernels are NumPy only.  The Bessel functions and Ai compute in float64 and
round to the input's dtype (as ``ops/_special.py`` does), with the published Cephes
approximations over PyTorch's ranges: rational and Chebyshev fits, and asymptotic
forms.  Where PyTorch's kernels drop the leading 1 of Cephes' monic denominators
(its J0, J1, Y0, Y1 and Ai for x < -2.09 are off by up to 2e-6 relative, near
5 < x < 7.3 and -2.75 < x < -2.09) these keep it; the phase of the large-argument
forms is taken from cos and sin of x itself (not of x - pi/4, whose rounding is
the whole answer by x ~ 1e16), and Ai's zeta = (2/3)|x|^(3/2) is carried in double
double precision (its rounding would otherwise be the result's: 1e-10 relative by
x = -1e4).  So they agree with mpmath to a few ulp over the whole float64 range
where an answer is defined, and PyTorch's special values (0, infinities, NaN,
negative arguments of Y and K) are kept.  Half and bfloat16 are refused, as
PyTorch has no kernel for them; integer and bool inputs compute in the default
float dtype.

Polynomials take ``(x, n)``: tensors or one of them a number, broadcast, with
PyTorch's promotion.  The degree is the common dtype's value of ``n`` truncated
toward zero as a C cast does (2.9 is 2, -0.5 is 0); a negative degree, NaN,
infinity or a value past int64's range gives 0.  Like PyTorch, the Chebyshev
families use the trigonometric forms inside ``(-1, 1)`` above a small degree
and the three-term recurrence elsewhere (stopping at NaN), and the Hermite
polynomials are NaN above degree 128 (float32) or 512 (float64).  These compute in
the dtype itself, as PyTorch does (a float32 recurrence overflows, and then gives
NaN, where PyTorch's does); cos, sin and acos there are float64's rounded, as C's
correctly rounded float functions give.  For NaN x PyTorch's recurrences return an
uninitialized value; these give NaN.
"""
import numpy as np

from .._tensor import Tensor as _Tensor
from ._families import ELEMENTWISE
from ._registry import _result_dtype
from ._util import dtype_error
from .._out import call_with_out as _call_with_out
from .pointwise import binary as _binary, unary as _unary

__all__ = []


# ------------------------------------------------------------------ helpers
def _flat(f):
    """Wrap a kernel of 1-d float64 arrays: any shape and float dtype in, computed in
    float64, the same shape and dtype out."""
    def kernel(x):
        x = np.asarray(x)
        with np.errstate(all="ignore"):
            r = f(x.astype(np.float64).reshape(-1))
        return r.reshape(x.shape).astype(x.dtype, copy=False)
    kernel.__name__ = f.__name__
    return kernel


def _fill(out, mask, fn, *arrays):
    """``out[mask] = fn(*(a[mask] for a in arrays))`` (nothing computed for an empty mask)."""
    if mask.any():
        out[mask] = fn(*(a[mask] for a in arrays))


def _horner(coeffs, z):
    """sum coeffs[i] z^(k-i), from the highest coefficient down, starting from 0."""
    r = np.zeros_like(z)
    for c in coeffs:
        r = r * z + c
    return r


def _clenshaw(coeffs, t):
    """Cephes' ``chbevl``: the Chebyshev series sum' c_i T_i(t/2), coefficients
    highest first; returns 0.5 * (b0 - b2)."""
    b0 = np.full_like(t, coeffs[0])
    b1 = np.zeros_like(t)
    b2 = b1
    for c in coeffs[1:]:
        b2 = b1
        b1 = b0
        b0 = t * b1 - b2 + c
    return 0.5 * (b0 - b2)


def _table(values):
    return tuple(float(v) for v in values)


def _c(value, dt):
    """A constant in the dtype a polynomial computes in."""
    return dt.type(value)


# ------------------------------------------------------------------ J0, J1, Y0, Y1
_PP0 = _table([7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e+00,
               5.44725003058768775090e+00, 8.74716500199817011941e+00, 5.30324038235394892183e+00,
               9.99999999999999997821e-01])
_PQ0 = _table([9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e+00,
               5.47097740330417105182e+00, 8.76190883237069594232e+00, 5.30605288235394617618e+00,
               1.00000000000000000218e+00])
_QP0 = _table([-1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01,
               -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02,
               -5.14105326766599330220e+01, -6.05014350600728481186e+00])
_QQ0 = _table([1.0,
              6.43178256118178023184e+01, 8.56430025976980587198e+02, 3.88240183605401609683e+03,
               7.24046774195652478189e+03, 5.93072701187316984827e+03, 2.06209331660327847417e+03,
               2.42005740240291393179e+02])
_RP0 = _table([-4.79443220978201773821e+09, 1.95617491946556577543e+12, -2.49248344360967716204e+14,
               9.70862251047306323952e+15])
_RQ0 = _table([1.0,
              4.99563147152651017219e+02, 1.73785401676374683123e+05, 4.84409658339962045305e+07,
               1.11855537045356834862e+10, 2.11277520115489217587e+12, 3.10518229857422583814e+14,
               3.18121955943204943306e+16, 1.71086294081043136091e+18])
_YP0 = _table([1.55924367855235737965e+04, -1.46639295903971606143e+07, 5.43526477051876500413e+09,
               -9.82136065717911466409e+11, 8.75906394395366999549e+13, -3.46628303384729719441e+15,
               4.42733268572569800351e+16, -1.84950800436986690637e+16])
_YQ0 = _table([1.0,
              1.04128353664259848412e+03, 6.26107330137134956842e+05, 2.68919633393814121987e+08,
               8.64002487103935000337e+10, 2.02979612750105546709e+13, 3.17157752842975028269e+15,
               2.50596256172653059228e+17])
_PP1 = _table([7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e+00,
               5.11207951146807644818e+00, 8.42404590141772420927e+00, 5.21451598682361504063e+00,
               1.00000000000000000254e+00])
_PQ1 = _table([5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e+00,
               5.07386386128601488557e+00, 8.39985554327604159757e+00, 5.20982848682361821619e+00,
               9.99999999999999997461e-01])
_QP1 = _table([5.10862594750176621635e-02, 4.98213872951233449420e+00, 7.58238284132545283818e+01,
               3.66779609360150777800e+02, 7.10856304998926107277e+02, 5.97489612400613639965e+02,
               2.11688757100572135698e+02, 2.52070205858023719784e+01])
_QQ1 = _table([1.0,
              7.42373277035675149943e+01, 1.05644886038262816351e+03, 4.98641058337653607651e+03,
               9.56231892404756170795e+03, 7.99704160447350683650e+03, 2.82619278517639096600e+03,
               3.36093607810698293419e+02])
_RP1 = _table([-8.99971225705559398224e+08, 4.52228297998194034323e+11, -7.27494245221818276015e+13,
               3.68295732863852883286e+15])
_RQ1 = _table([1.0,
              6.20836478118054335476e+02, 2.56987256757748830383e+05, 8.35146791431949253037e+07,
               2.21511595479792499675e+10, 4.74914122079991414898e+12, 7.84369607876235854894e+14,
               8.95222336184627338078e+16, 5.32278620332680085395e+18])
_YP1 = _table([1.26320474790178026440e+09, -6.47355876379160291031e+11, 1.14509511541823727583e+14,
               -8.12770255501325109621e+15, 2.02439475713594898196e+17, -7.78877196265950026825e+17])
_YQ1 = _table([1.0,
              5.94301592346128195359e+02, 2.35564092943068577943e+05, 7.34811944459721705660e+07,
               1.87601316108706159478e+10, 3.88231277496238566008e+12, 6.20557727146953693363e+14,
               6.87141087355300489866e+16, 3.97270608116560655612e+18])
_J0_Z1, _J0_Z2 = 5.78318596294678452118e+00, 3.04712623436620863991e+01     # squares of J0's first zeros
_J1_Z1, _J1_Z2 = 1.46819706421238932572e+01, 4.92184563216946036703e+01     # and J1's
_SQ2OPI = 0.797884560802865355879892119868763737     # sqrt(2 / pi)
_TWOOPI = 0.636619772367581343075535053490057448     # 2 / pi


_SQRT_HALF = 0.7071067811865475244


def _hankel(x, w, P, Q, PQ, QQ, order, second):
    """The asymptotic form for x > 5: sqrt(2/(pi x)) (P cos(x - phase) - 5/x Q sin(x - phase)),
    phase = (2 order + 1) pi/4, with P = PP(w)/PQ(w), Q = QP(w)/QQ(w); the second kind
    swaps cos and sin.  cos and sin of x - phase are combined from those of x itself
    (x - pi/4 in float64 would lose the phase's low bits once x is large)."""
    p = _horner(P, w) / _horner(PQ, w)
    q = _horner(Q, w) / _horner(QQ, w)
    c, s = np.cos(x), np.sin(x)
    if order == 0:      # cos(x - pi/4), sin(x - pi/4)
        cp, sp = (c + s) * _SQRT_HALF, (s - c) * _SQRT_HALF
    else:               # cos(x - 3pi/4), sin(x - 3pi/4)
        cp, sp = (s - c) * _SQRT_HALF, -(s + c) * _SQRT_HALF
    if second:
        r = p * sp + 5.0 / x * q * cp
    else:
        r = p * cp - 5.0 / x * q * sp
    return r * _SQ2OPI / np.sqrt(x)


def _j0_small(x):
    z = x * x
    r = (z - _J0_Z1) * (z - _J0_Z2) * _horner(_RP0, z) / _horner(_RQ0, z)
    tiny = x < 1e-5
    if tiny.any():
        r[tiny] = 1.0 - z[tiny] / 4.0
    return r


def _j0_big(x):
    return _hankel(x, 25.0 / (x * x), _PP0, _QP0, _PQ0, _QQ0, 0, False)


def _j1_small(x):
    z = x * x
    return _horner(_RP1, z) / _horner(_RQ1, z) * x * (z - _J1_Z1) * (z - _J1_Z2)


def _w5(x):
    return (5.0 / x) * (5.0 / x)


def _j1_big(x):
    return _hankel(x, _w5(x), _PP1, _QP1, _PQ1, _QQ1, 1, False)


@_flat
def _j0_k(x):
    a = np.abs(x)
    out = np.empty_like(a)
    small = a <= 5.0
    _fill(out, small, _j0_small, a)
    _fill(out, ~small, _j0_big, a)
    return out


@_flat
def _j1_k(x):
    a = np.where(x < 0, -x, x)              # (-0.0 kept, as PyTorch's x < 0 test keeps it)
    out = np.empty_like(a)
    small = a <= 5.0
    _fill(out, small, _j1_small, a)
    _fill(out, ~small, _j1_big, a)
    return np.where(x < 0, -out, out)       # odd


def _y0_small(x):
    z = x * x
    return _horner(_YP0, z) / _horner(_YQ0, z) + _TWOOPI * np.log(x) * _j0_small(x)


def _y1_small(x):
    z = x * x
    return x * (_horner(_YP1, z) / _horner(_YQ1, z)) + \
        _TWOOPI * (_j1_small(x) * np.log(x) - 1.0 / x)


def _second_kind(x, small_fn, big_fn):
    out = np.empty_like(x)
    small = x <= 5.0
    out[small & (x == 0)] = -np.inf
    out[small & (x < 0)] = np.nan
    _fill(out, small & (x > 0), small_fn, x)
    _fill(out, ~small, big_fn, x)
    return out


@_flat
def _y0_k(x):
    return _second_kind(x, _y0_small, lambda v: _hankel(v, 25.0 / (v * v), _PP0, _QP0, _PQ0, _QQ0, 0, True))


@_flat
def _y1_k(x):
    return _second_kind(x, _y1_small, lambda v: _hankel(v, _w5(v), _PP1, _QP1, _PQ1, _QQ1, 1, True))


# ------------------------------------------------------------------ I0, I1, K0, K1 (Chebyshev fits)
_I0A = _table([-4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
               1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
               -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
               9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-09,
               -1.30002500998624804212e-08, 6.04699502254191894932e-08, -2.67079385394061173391e-07,
               1.11738753912010371815e-06, -4.41673835845875056359e-06, 1.64484480707288970893e-05,
               -5.75419501008210370398e-05, 1.88502885095841655729e-04, -5.76375574538582365885e-04,
               1.63947561694133579842e-03, -4.32430999505057594430e-03, 1.05464603945949983183e-02,
               -2.37374148058994688156e-02, 4.93052842396707084878e-02, -9.49010970480476444210e-02,
               1.71620901522208775349e-01, -3.04682672343198398683e-01, 6.76795274409476084995e-01])
_I0B = _table([-7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
               3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
               1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
               -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
               7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
               -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
               3.39623202570838634515e-09, 2.26666899049817806459e-08, 2.04891858946906374183e-07,
               2.89137052083475648297e-06, 6.88975834691682398426e-05, 3.36911647825569408990e-03,
               8.04490411014108831608e-01])
_I1A = _table([2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16,
               -1.10559694773538630805e-15, 7.60068429473540693410e-15, -5.04218550472791168711e-14,
               3.22379336594557470981e-13, -1.98397439776494371520e-12, 1.17361862988909016308e-11,
               -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-09,
               9.38153738649577178388e-09, -4.44505912879632808065e-08, 2.00329475355213526229e-07,
               -8.56872026469545474066e-07, 3.47025130813767847674e-06, -1.32731636560394358279e-05,
               4.78156510755005422638e-05, -1.61760815825896745588e-04, 5.12285956168575772895e-04,
               -1.51357245063125314899e-03, 4.15642294431288815669e-03, -1.05640848946261981558e-02,
               2.47264490306265168283e-02, -5.29459812080949914269e-02, 1.02643658689847095384e-01,
               -1.76416518357834055153e-01, 2.52587186443633654823e-01])
_I1B = _table([7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17,
               -3.20952592199342395980e-17, 2.96262899764595013876e-16, 3.30820231092092828324e-16,
               -1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
               4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
               -7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11,
               3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10,
               -3.83538038596423702205e-09, -2.63146884688951950684e-08, -2.51223623787020892529e-07,
               -3.88256480887769039346e-06, -1.10588938762623716291e-04, -9.76109749136146840777e-03,
               7.78576235018280120474e-01])
_K0A = _table([1.37446543561352307156e-16, 4.25981614279661018399e-14, 1.03496952576338420167e-11,
               1.90451637722020886025e-09, 2.53479107902614945675e-07, 2.28621210311945178607e-05,
               1.26461541144692592338e-03, 3.59799365153615016266e-02, 3.44289899924628486886e-01,
               -5.35327393233902768720e-01])
_K0B = _table([5.30043377268626276149e-18, -1.64758043015242134646e-17, 5.21039150503902756861e-17,
               -1.67823109680541210385e-16, 5.51205597852431940784e-16, -1.84859337734377901440e-15,
               6.34007647740507060557e-15, -2.22751332699166985548e-14, 8.03289077536357521100e-14,
               -2.98009692317273043925e-13, 1.14034058820847496303e-12, -4.51459788337394416547e-12,
               1.85594911495471785253e-11, -7.95748924447710747776e-11, 3.57739728140030116597e-10,
               -1.69753450938905987466e-09, 8.57403401741422608519e-09, -4.66048989768794782956e-08,
               2.76681363944501510342e-07, -1.83175552271911948767e-06, 1.39498137188764993662e-05,
               -1.28495495816278026384e-04, 1.56988388573005337491e-03, -3.14481013119645005427e-02,
               2.44030308206595545468e+00])
_K1A = _table([-7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13,
               -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06,
               -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
               -3.53155960776544875667e-01, 1.52530022733894777053e+00])
_K1B = _table([-5.75674448366501715755e-18, 1.79405087314755922667e-17, -5.68946255844285935196e-17,
               1.83809354436663880070e-16, -6.05704724837331885336e-16, 2.03870316562433424052e-15,
               -7.01983709041831346144e-15, 2.47715442448130437068e-14, -8.97670518232499435011e-14,
               3.34841966607842919884e-13, -1.28917396095102890680e-12, 5.13963967348173025100e-12,
               -2.12996783842756842877e-11, 9.21831518760500529508e-11, -4.19035475934189648750e-10,
               2.01504975519703286596e-09, -1.03457624656780970260e-08, 5.74108412545004946722e-08,
               -3.50196060308781257119e-07, 2.40648494783721712015e-06, -1.93619797416608296024e-05,
               1.95215518471351631108e-04, -2.85781685962277938680e-03, 1.03923736576817238437e-01,
               2.72062619048444266945e+00])


def _i0_pos(a):
    """I0(a) for a = |x| >= 0 (and NaN)."""
    out = np.empty_like(a)
    small = a <= 8.0
    _fill(out, small, lambda v: np.exp(v) * _clenshaw(_I0A, v / 2.0 - 2.0), a)
    _fill(out, ~small, lambda v: np.exp(v) * _clenshaw(_I0B, 32.0 / v - 2.0) / np.sqrt(v),
          a)
    return out


def _i1_pos(a):
    """I1(a) for a = |x| >= 0 (and NaN)."""
    out = np.empty_like(a)
    small = a <= 8.0
    _fill(out, small, lambda v: _clenshaw(_I1A, v / 2.0 - 2.0) * v * np.exp(v), a)
    _fill(out, ~small, lambda v: np.exp(v) * _clenshaw(_I1B, 32.0 / v - 2.0) / np.sqrt(v),
          a)
    return out


@_flat
def _i0_k(x):
    return _i0_pos(np.abs(x))


@_flat
def _i1_k(x):
    r = _i1_pos(np.abs(x))
    return np.where(x < 0, -r, r)


def _k_pieces(x, small_fn, big_fn):
    """K0/K1 (scaled or not): inf at 0, NaN below, the two fits either side of 2."""
    out = np.empty_like(x)
    out[x == 0] = np.inf
    out[x < 0] = np.nan
    small = (x > 0) & (x <= 2.0)
    _fill(out, small, small_fn, x)
    _fill(out, ~(x <= 2.0), big_fn, x)         # (NaN too)
    return out


def _k_big(B, scaled):
    def f(v):
        s = _clenshaw(B, 8.0 / v - 2.0)
        return s / np.sqrt(v) if scaled else np.exp(-v) * s / np.sqrt(v)
    return f


def _k0_small(v):
    return _clenshaw(_K0A, v * v - 2.0) - np.log(0.5 * v) * _i0_pos(v)


def _k0e_small(v):
    return (_clenshaw(_K0A, v * v - 2.0) - np.log(0.5 * v) * _i0_pos(v)) * np.exp(v)


def _k1_small(v, scaled=False):
    r = np.log(0.5 * v) * _i1_pos(v) + _clenshaw(_K1A, v * v - 2.0) / v
    return r * np.exp(v) if scaled else r


@_flat
def _k0_k(x):
    return _k_pieces(x, _k0_small, _k_big(_K0B, False))


@_flat
def _k1_k(x):
    return _k_pieces(x, _k1_small, _k_big(_K1B, False))


@_flat
def _k0e_k(x):
    return _k_pieces(x, _k0e_small, _k_big(_K0B, True))


@_flat
def _k1e_k(x):
    return _k_pieces(x, lambda v: _k1_small(v, True), _k_big(_K1B, True))


# ------------------------------------------------------------------ spherical j0, Airy Ai
_SPH_SERIES = (-1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0, 1.0 / 362880.0, -1.0 / 39916800.0,
               1.0 / 6227020800.0)              # sin(x)/x = 1 + sum c_k x^2k, k = 1..6


def _sph_small(x):
    """|x| < 0.5: the Maclaurin series of sin(x)/x to x^12."""
    z = x * x
    return 1.0 + z * _horner(_SPH_SERIES[::-1], z)


@_flat
def _sph_j0_k(x):
    out = np.empty_like(x)
    small = np.abs(x) < 0.5
    _fill(out, small, _sph_small, x)
    big = ~small
    _fill(out, big, lambda v: np.sin(v) / v, x)
    out[np.isinf(x)] = 0.0
    return out


_AN = _table([3.46538101525629032477e-01, 1.20075952739645805542e+01, 7.62796053615234516538e+01,
              1.68089224934630576269e+02, 1.59756391350164413639e+02, 7.05360906840444183113e+01,
              1.40264691163389668864e+01, 9.99999999999999995305e-01])
_AD = _table([5.67594532638770212846e-01, 1.47562562584847203173e+01, 8.45138970141474626562e+01,
              1.77318088145400459522e+02, 1.64234692871529701831e+02, 7.14778400825575695274e+01,
              1.40959135607834029598e+01, 1.00000000000000000470e+00])
_AFN = _table([-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
               -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
               -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08])
_AFD = _table([1.0,
              1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01,
               9.18707402907259625840e+00, 1.47529146771666414581e+00, 1.15687173795188044134e-01,
               4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07])
_AGN = _table([1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00,
               9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
               5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
               8.11789239554389293311e-08, 3.41551784765923618484e-10])
_AGD = _table([1.0,
              9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01,
               5.47686069422975497931e+00, 9.54293611618961883998e-01, 8.64580826352392193095e-02,
               4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06,
               4.91834570062930015649e-09])
_SQPII = 5.64189583547756286948e-01          # 1 / sqrt(pi)
_AI_C1, _AI_C2 = 0.355028053887817239260, 0.258819403792806798405    # Ai(0), -Ai'(0)


_SPLIT = 134217729.0                        # 2^27 + 1 (Veltkamp's split of a float64)
_TWO_THIRDS_HI = 2.0 / 3.0
_TWO_THIRDS_LO = 3.700743415417188e-17      # 2/3 - _TWO_THIRDS_HI


def _two_prod(a, b):
    """a * b = hi + lo exactly (Dekker), for a, b below ~1e290."""
    hi = a * b
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    lo = ((ah * bh - hi) + ah * bl + al * bh) + al * bl
    return hi, lo


def _airy_phase(a):
    """zeta = (2/3) a^(3/2) as hi + lo (a > 0): for large a the phase of Ai's
    oscillation must keep the bits that a float64 zeta rounds away.  Computed for
    the mantissa m (a = m 4^k, 1/2 <= m < 2) and scaled by 8^k, exactly."""
    m, e = np.frexp(a)
    odd = (e % 2) != 0
    m = np.where(odd, m * 2.0, m)
    k = (e - odd) // 2
    s = np.sqrt(m)
    sh, sl = _two_prod(s, s)
    s_lo = ((m - sh) - sl) / (s + s)            # sqrt(m) = s + s_lo
    ph, pl = _two_prod(m, s)
    pl = pl + m * s_lo                          # m^(3/2) = ph + pl
    zh, zl = _two_prod(_TWO_THIRDS_HI, ph)
    zl = zl + (_TWO_THIRDS_HI * pl + _TWO_THIRDS_LO * ph)
    hi = zh + zl
    lo = zl - (hi - zh)
    return np.ldexp(hi, 3 * k), np.ldexp(lo, 3 * k)


def _airy_neg(x):
    """x < -2.09: the oscillating asymptotic form,
    Ai(x) = (sin(zeta + pi/4) (1 + f) - cos(zeta + pi/4) g) / (sqrt(pi) (-x)^(1/4))."""
    a = -x
    zeta, zeta_lo = _airy_phase(a)
    z = 1.0 / zeta
    zz = z * z
    f = zz * _horner(_AFN, zz) / _horner(_AFD, zz)
    g = z * _horner(_AGN, zz) / _horner(_AGD, zz)
    sh, ch = np.sin(zeta), np.cos(zeta)
    sl, cl = np.sin(zeta_lo), np.cos(zeta_lo)
    sz, cz = sh * cl + ch * sl, ch * cl - sh * sl
    st, ct = (sz + cz) * _SQRT_HALF, (cz - sz) * _SQRT_HALF
    r = _SQPII / np.sqrt(np.sqrt(a)) * (st * (1.0 + f) - ct * g)
    # (PyTorch's -2 x sqrt(-x) / 3 overflows to a NaN result: so does this, at the same x)
    return np.where(np.isfinite(2.0 * a * np.sqrt(a)), r, np.nan)


def _airy_pos(x):
    """x >= 2.09: the decaying asymptotic form,
    Ai(x) = AN(1/zeta) / AD(1/zeta) / (2 sqrt(pi) x^(1/4) e^zeta); e^zeta of the
    double-double zeta (a float64 zeta's rounding, up to 1e-14 relative by x = 30,
    would be the result's)."""
    zeta, zeta_lo = _airy_phase(x)
    r = 1.0 / zeta
    q = _horner(_AN, r) / _horner(_AD, r)
    return _SQPII * q / (2.0 * np.sqrt(np.sqrt(x)) * (np.exp(zeta) * (1.0 + zeta_lo)))


def _airy_series(x):
    """|x| < 2.09 (and NaN): Ai = c1 f - c2 g, the Maclaurin series of f and g summed
    term by term until a term of f is below float64's epsilon relative to f."""
    eps = np.finfo(np.float64).eps
    one = 1.0
    f = np.ones_like(x)
    g = x.copy()
    m = np.ones_like(x)
    n = x.copy()
    z = x * x * x
    k = one
    live = np.arange(x.size)
    while live.size:
        zl = z[live]
        ml = m[live] * zl
        k = k + one
        ml = ml / k
        nl = n[live] * zl
        k = k + one
        nl = nl / k
        ml = ml / k
        fl = f[live] + ml
        k = k + one
        nl = nl / k
        g[live] = g[live] + nl
        f[live] = fl
        m[live] = ml
        n[live] = nl
        live = live[np.abs(ml / fl) > eps]       # (NaN stops too)
    return _AI_C1 * f - _AI_C2 * g


@_flat
def _airy_k(x):
    out = np.empty_like(x)
    neg = x < -2.09
    pos = x >= 2.09
    mid = ~(neg | pos)
    _fill(out, neg, _airy_neg, x)
    _fill(out, pos, _airy_pos, x)
    _fill(out, mid, _airy_series, x)
    out[x > 103.892] = 0.0
    out[np.isinf(x)] = np.nan
    return out


# ------------------------------------------------------------------ the polynomials
_HERMITE_LIMIT = {np.dtype(np.float32): 128, np.dtype(np.float64): 512}
_I64_BOUND = 2.0 ** 63


def _degree(n):
    """PyTorch's static_cast<int64_t> of the degree (given in the common dtype): toward
    zero; NaN, infinities and values past int64's range are negative (x86's
    INT64_MIN), so they give 0 as any negative degree does."""
    ok = np.isfinite(n) & (np.abs(n) < _I64_BOUND)
    return np.where(ok, n, -1.0).astype(np.int64)


def _poly_args(x, n):
    """x and n as 1-d arrays of one float dtype (the tensors' dtype; a number takes
    the other's), broadcast; the integer degree; the shape."""
    dt = x.dtype if isinstance(x, (np.ndarray, np.generic)) else n.dtype
    with np.errstate(over="ignore"):
        x = np.asarray(x, dt)
        n = np.asarray(n, dt)
    shape = np.broadcast_shapes(x.shape, n.shape)
    xf = np.broadcast_to(x, shape).reshape(-1)
    nf = np.broadcast_to(n, shape).reshape(-1)
    return xf, _degree(nf), shape


def _recur(x, n, q0, q1, step):
    """Run ``q_{k+1} = step(j, x, q_j, q_{j-1})`` (j = 1, 2, ...) from (q0, q1) up to
    each element's degree n (>= 2), returning q_n; an element stops early at NaN
    (its value stays NaN)."""
    order = np.argsort(-n, kind="stable")
    xs, ns = x[order], n[order]
    p, q = q0[order].copy(), q1[order].copy()
    asc = ns[::-1]
    top = int(ns[0]) if ns.size else 0
    # step j runs for the first m (highest degree first): those with n >= j + 1
    j = 1
    while j < top:
        m = ns.size - int(np.searchsorted(asc, j + 1, side="left"))
        xm = xs[:m]
        r = step(j, xm, q[:m], p[:m])
        p[:m] = q[:m]
        q[:m] = r
        j += 1
        if j % 64 == 0 and np.isnan(q[:m]).all():
            break
    out = np.empty_like(q)
    out[order] = q
    return out


def _ival(v, dt):
    """An int64 array's values in the float dtype (C's conversion)."""
    return v.astype(dt)


def _polynomial(body):
    """The kernel ``(x, n) -> values`` of a polynomial family from ``body(x, n, out)``,
    which fills ``out`` (1-d, x's dtype) given 1-d x and int64 degrees n."""
    def kernel(x, n):
        xf, nf, shape = _poly_args(x, n)
        out = np.empty_like(xf)
        with np.errstate(all="ignore"):
            body(xf, nf, out)
        return out.reshape(shape)
    kernel.__name__ = body.__name__
    return kernel


def _f32(fn):
    """``fn`` of a float32 array rounded from float64 (C's acosf, cosf, sinf are
    within an ulp of the correctly rounded value; NumPy's float32 loops are not
    always), ``fn`` itself for float64."""
    def g(v):
        if v.dtype == np.float32:
            return fn(v.astype(np.float64)).astype(np.float32)
        return fn(v)
    return g


_acos, _cos, _sin = _f32(np.arccos), _f32(np.cos), _f32(np.sin)


def _cheb_step(j, x, q, p):
    return (x + x) * q - p


def _sign_by_parity(n, even, odd):
    return np.where(n % 2 == 0, even, odd)


def _finish(y, n, out, todo, first, trig_from, trig):
    """The shared tail of the Chebyshev kernels (``y`` the argument of the unshifted
    polynomial: 2x - 1 for the shifted ones), where ``todo``: the trigonometric
    form for n > trig_from inside (-1, 1), n == 0 -> 1, n == 1 -> first(y), else
    the recurrence (2y) from (1, first(y))."""
    inside = todo & (n > trig_from) & (np.abs(y) < 1.0)
    _fill(out, inside, trig, y, n)
    rest = todo & ~inside
    _fill(out, rest & (n == 0), lambda v: np.ones_like(v), y)
    _fill(out, rest & (n == 1), first, y)
    many = rest & (n >= 2)
    if many.any():
        ym, nm = y[many], n[many]
        f = first(ym)
        out[many] = _recur(ym, nm, np.ones_like(ym), f, _cheb_step)


def _t_trig(y, n):
    return _cos(_ival(n, y.dtype) * _acos(y))


def _u_trig(y, n):
    dt = y.dtype
    a = _acos(y)
    s = _sin(a)
    n1 = _ival(n + 1, dt)
    return np.where(s != 0, _sin(n1 * a) / s, n1 * _cos(n1 * a) / y)


def _v_trig(y, n):
    dt = y.dtype
    a = _acos(y)
    half = a / _c(2.0, dt)
    odd = _ival(n + n + 1, dt)
    return np.where(_sin(half) != 1, _cos((_ival(n, dt) + _c(0.5, dt)) * a) / _cos(half),
                    _sign_by_parity(n, odd, -odd))


def _w_trig_of(unshifted):
    def trig(y, n):
        dt = y.dtype
        a = _acos(y)
        half = a / _c(2.0, dt)
        one = np.ones_like(y)
        # where cos(a/2) rounds to 1 (y within an ulp or so of 1), PyTorch gives
        # W_n(1) = 2n + 1 unshifted and +-1 by parity shifted
        edge = _sign_by_parity(n, one, -one)
        if unshifted:
            edge = np.where(y > 0, _ival(n + n + 1, dt), edge)
        return np.where(_cos(half) != 1, _sin((_ival(n, dt) + _c(0.5, dt)) * a) / _sin(half), edge)
    return trig


def _cheb_kernel(kind, shifted):
    """Chebyshev T/U/V/W (shifted: of 2x - 1), PyTorch's branches."""
    first = {"t": lambda y: y, "u": lambda y: y + y,
             "v": lambda y: y + y - _c(1.0, y.dtype), "w": lambda y: y + y + _c(1.0, y.dtype)}[kind]
    trig = {"t": _t_trig, "u": _u_trig, "v": _v_trig, "w": _w_trig_of(not shifted)}[kind]
    trig_from = ({"t": 6, "u": 6, "v": 6, "w": 4} if shifted else {"t": 6, "u": 8, "v": 8, "w": 8})[kind]

    def body(x, n, out):
        dt = x.dtype
        one = np.ones_like(x)
        nn = _ival(n + 1, dt)
        odd = _ival(n + n + 1, dt)
        out[n < 0] = 0.0
        todo = n >= 0
        if shifted:
            hi, lo = todo & (x == 1.0), todo & (x == 0.0)
            # the values at y = 1 and y = -1 (x = 1 and x = 0)
            at_hi = {"t": one, "u": nn, "v": one, "w": odd}[kind]
            at_lo = {"t": _sign_by_parity(n, one, -one), "u": _sign_by_parity(n, nn, -nn),
                     "v": _sign_by_parity(n, odd, -odd), "w": _sign_by_parity(n, one, -one)}[kind]
            y = x + x - _c(1.0, dt)
        else:
            ends = todo & (np.abs(x) == 1.0)
            hi, lo = ends & (x > 0), ends & ~(x > 0)
            at_hi = {"t": one, "u": nn, "v": one, "w": odd}[kind]
            at_lo = {"t": _sign_by_parity(n, one, -one), "u": _sign_by_parity(n, nn, -nn),
                     "v": _sign_by_parity(n, odd, -odd), "w": _sign_by_parity(n, one, -one)}[kind]
            y = x
        out[hi] = at_hi[hi]
        out[lo] = at_lo[lo]
        _finish(y, n, out, todo & ~hi & ~lo, first, trig_from, trig)
    body.__name__ = f"_{'shifted_' if shifted else ''}chebyshev_{kind}"
    return _polynomial(body)


def _hermite_kernel(physicists):
    def body(x, n, out):
        dt = x.dtype
        limit = _HERMITE_LIMIT[dt]
        out[n < 0] = 0.0
        out[n == 0] = 1.0
        one = n == 1
        out[one] = (x + x)[one] if physicists else x[one]
        out[n > limit] = np.nan
        many = (n >= 2) & (n <= limit)
        if many.any():
            xm, nm = x[many], n[many]
            if physicists:           # H_{j+1} = 2x H_j - 2j H_{j-1}
                out[many] = _recur(xm, nm, np.ones_like(xm), xm + xm,
                                   lambda j, v, q, p: (v + v) * q - _c(2 * j, dt) * p)
            else:                    # He_{j+1} = x He_j - j He_{j-1}
                out[many] = _recur(xm, nm, np.ones_like(xm), xm.copy(),
                                   lambda j, v, q, p: v * q - _c(j, dt) * p)
    body.__name__ = "_hermite_" + ("h" if physicists else "he")
    return _polynomial(body)


def _laguerre_body(x, n, out):
    dt = x.dtype
    out[n < 0] = 0.0
    todo = n >= 0
    zero = todo & (np.abs(x) == 0)
    out[zero] = 1.0
    todo &= ~zero
    out[todo & (n == 0)] = 1.0
    one = todo & (n == 1)
    out[one] = _c(1.0, dt) - x[one]
    many = todo & (n >= 2)
    if many.any():
        xm, nm = x[many], n[many]
        # (j + 1) L_{j+1} = (2j + 1 - x) L_j - j L_{j-1}
        out[many] = _recur(xm, nm, np.ones_like(xm), _c(1.0, dt) - xm,
                           lambda j, v, q, p: ((_c(2 * j, dt) + (_c(1.0, dt) - v)) * q - _c(j, dt) * p)
                           / _c(j + 1, dt))


def _legendre_body(x, n, out):
    dt = x.dtype
    one = np.ones_like(x)
    out[n < 0] = 0.0
    todo = n >= 0
    ends = todo & (np.abs(x) == 1.0)
    out[ends] = np.where(x > 0, one, _sign_by_parity(n, one, -one))[ends]
    todo &= ~ends
    out[todo & (n == 0)] = 1.0
    first = todo & (n == 1)
    out[first] = x[first]
    many = todo & (n >= 2)
    if many.any():
        xm, nm = x[many], n[many]
        # (j + 1) P_{j+1} = (2j + 1) x P_j - j P_{j-1}
        out[many] = _recur(xm, nm, np.ones_like(xm), xm.copy(),
                           lambda j, v, q, p: (_c(2 * j + 1, dt) * v * q - _c(j, dt) * p) / _c(j + 1, dt))


# ------------------------------------------------------------------ the entries
_LOW = ("float16", "bfloat16")


def _refuse_low(kname, n_in):
    """PyTorch has no half/bfloat16 kernel for these (a float32 tensor operand
    promotes a half one, so the common dtype decides)."""
    def check(*args):
        if n_in == 2 and not isinstance(args[0], _Tensor) and not isinstance(args[1], _Tensor):
            raise _pair_error(kname, args[0], args[1])
        dt = _result_dtype(args, n_in)
        if dt is not None and dt.np.name in _LOW:
            raise dtype_error(kname, dt.np)
    return check


def _pair_error(kname, x, n):
    name = "special_" + kname[:-4]
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({type(x).__name__}, "
        f"{type(n).__name__}), but expected one of:\n * (Tensor x, Tensor n, *, Tensor out = None)\n"
        f" * (Number x, Tensor n, *, Tensor out = None)\n * (Tensor x, Number n, *, Tensor out = None)\n")


def _unary_entry(name, kernel, param="input"):
    """The op; ``param``: the name PyTorch's signature gives the tensor (``x`` for a
    few of these: ``airy_ai(x, *, out=None)``)."""
    kname = name + "_cpu"
    f = _unary("special_" + name, kernel, None, family=ELEMENTWISE, method=False, nondiff_out=(0,),
               no_complex=kname, check=_refuse_low(kname, 1))
    if param == "input":
        return f

    def fn(x, *, out=None):
        if not isinstance(x, _Tensor):
            raise TypeError(f"special_{name}(): argument 'x' (position 1) must be Tensor, not {type(x).__name__}")
        return f(x, out=out)
    fn.__name__ = fn.__qualname__ = "special_" + name
    fn.op, fn.spelling, fn.ufunc, fn.ufunc_dtypes = f.op, f.spelling, f.ufunc, f.ufunc_dtypes
    return fn


def _poly_entry(name, kernel):
    """The op, and its public function with PyTorch's parameter names ``(x, n, *, out)``."""
    kname = name + "_cpu"
    kernel.__name__ = name
    f = _binary("special_" + name, kernel, None, float_only=True, family=ELEMENTWISE, method=False,
                nondiff_out=(0,), no_complex=kname, check=_refuse_low(kname, 2))
    fast = f.fast

    def fn(x, n, *, out=None):
        if out is not None:
            return _call_with_out("special_" + name, fast, (x, n), {}, out)
        return fast(x, n)
    fn.__name__ = fn.__qualname__ = "special_" + name
    for a in ("op", "spelling", "fast", "rfast", "ufunc", "ufunc_dtypes"):
        setattr(fn, a, getattr(f, a))
    return fn


special_bessel_j0 = _unary_entry("bessel_j0", _j0_k)
special_bessel_j1 = _unary_entry("bessel_j1", _j1_k)
special_bessel_y0 = _unary_entry("bessel_y0", _y0_k)
special_bessel_y1 = _unary_entry("bessel_y1", _y1_k)
special_modified_bessel_i0 = _unary_entry("modified_bessel_i0", _i0_k)
special_modified_bessel_i1 = _unary_entry("modified_bessel_i1", _i1_k)
special_modified_bessel_k0 = _unary_entry("modified_bessel_k0", _k0_k)
special_modified_bessel_k1 = _unary_entry("modified_bessel_k1", _k1_k)
special_scaled_modified_bessel_k0 = _unary_entry("scaled_modified_bessel_k0", _k0e_k, "x")
special_scaled_modified_bessel_k1 = _unary_entry("scaled_modified_bessel_k1", _k1e_k, "x")
special_spherical_bessel_j0 = _unary_entry("spherical_bessel_j0", _sph_j0_k, "x")
special_airy_ai = _unary_entry("airy_ai", _airy_k, "x")

special_chebyshev_polynomial_t = _poly_entry("chebyshev_polynomial_t", _cheb_kernel("t", False))
special_chebyshev_polynomial_u = _poly_entry("chebyshev_polynomial_u", _cheb_kernel("u", False))
special_chebyshev_polynomial_v = _poly_entry("chebyshev_polynomial_v", _cheb_kernel("v", False))
special_chebyshev_polynomial_w = _poly_entry("chebyshev_polynomial_w", _cheb_kernel("w", False))
special_shifted_chebyshev_polynomial_t = _poly_entry("shifted_chebyshev_polynomial_t", _cheb_kernel("t", True))
special_shifted_chebyshev_polynomial_u = _poly_entry("shifted_chebyshev_polynomial_u", _cheb_kernel("u", True))
special_shifted_chebyshev_polynomial_v = _poly_entry("shifted_chebyshev_polynomial_v", _cheb_kernel("v", True))
special_shifted_chebyshev_polynomial_w = _poly_entry("shifted_chebyshev_polynomial_w", _cheb_kernel("w", True))
special_hermite_polynomial_h = _poly_entry("hermite_polynomial_h", _hermite_kernel(True))
special_hermite_polynomial_he = _poly_entry("hermite_polynomial_he", _hermite_kernel(False))
special_laguerre_polynomial_l = _poly_entry("laguerre_polynomial_l", _polynomial(_laguerre_body))
special_legendre_polynomial_p = _poly_entry("legendre_polynomial_p", _polynomial(_legendre_body))
