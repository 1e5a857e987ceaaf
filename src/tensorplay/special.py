"""``tensorplay.special``: PyTorch's ``torch.special`` functions that tensorplay
has, differentiable where PyTorch's are (zeta in its first argument and
gammainc/gammaincc in theirs are not, as in PyTorch: their backward raises).

Most names are the top-level functions under another name (``gammaln`` is
``lgamma``, ``psi`` and ``digamma`` are ``digamma``, ``expit`` is ``sigmoid``,
``multigammaln`` is ``mvlgamma``, ``gammainc``/``gammaincc`` are
``igamma``/``igammac``); ``i0e``, ``i1``, ``i1e``, ``erfcx``, ``ndtr``,
``ndtri``, ``log_ndtr``, ``entr``, ``xlog1py`` and ``zeta`` exist only here.
The kernels are NumPy only (``ops/_special.py``).

The Bessel functions (``bessel_j0``, ``bessel_j1``, ``bessel_y0``, ``bessel_y1``,
``modified_bessel_i0/i1/k0/k1``, ``scaled_modified_bessel_k0/k1``,
``spherical_bessel_j0``), ``airy_ai`` and the orthogonal polynomials
(``chebyshev_polynomial_t/u/v/w``, ``shifted_chebyshev_polynomial_t/u/v/w``,
``hermite_polynomial_h/he``, ``laguerre_polynomial_l``, ``legendre_polynomial_p``)
are ``ops/special_bessel.py``'s; as in PyTorch they are not differentiable (no
``grad_fn``).
"""
from ._tensor import Tensor as _Tensor
from .ops import pointwise as _pw, pointwise_more as _pm, special_fns as _sf
from .ops import special_bessel as _sb
from .ops import reduction as _red
from ._out import call_with_out as _call_with_out

__all__ = ["digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc",
           "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax",
           "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
           "sinc", "softmax", "xlog1py", "xlogy", "zeta",
           "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
           "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
           "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
           "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "spherical_bessel_j0"]

erf = _pw.erf
erfc = _pw.erfc
erfinv = _pw.erfinv
exp2 = _pw.exp2
expm1 = _pw.expm1
log1p = _pw.log1p
expit = _pw.sigmoid
round = _pw.round                   # noqa: A001  (PyTorch's name)
softmax = _red.softmax
log_softmax = _red.log_softmax
logsumexp = _red.logsumexp
logit = _pm.logit
sinc = _pm.sinc
xlogy = _pm.xlogy

gammaln = _sf.lgamma
digamma = psi = _sf.digamma
polygamma = _sf.polygamma
multigammaln = _sf.mvlgamma
i0 = _sf.i0
i0e = _sf.special_i0e
i1 = _sf.special_i1
i1e = _sf.special_i1e
erfcx = _sf.special_erfcx
ndtr = _sf.special_ndtr
ndtri = _sf.special_ndtri
log_ndtr = _sf.special_log_ndtr
entr = _sf.special_entr
xlog1py = _sf.special_xlog1py
zeta = _sf.special_zeta

airy_ai = _sb.special_airy_ai
bessel_j0 = _sb.special_bessel_j0
bessel_j1 = _sb.special_bessel_j1
bessel_y0 = _sb.special_bessel_y0
bessel_y1 = _sb.special_bessel_y1
chebyshev_polynomial_t = _sb.special_chebyshev_polynomial_t
chebyshev_polynomial_u = _sb.special_chebyshev_polynomial_u
chebyshev_polynomial_v = _sb.special_chebyshev_polynomial_v
chebyshev_polynomial_w = _sb.special_chebyshev_polynomial_w
hermite_polynomial_h = _sb.special_hermite_polynomial_h
hermite_polynomial_he = _sb.special_hermite_polynomial_he
laguerre_polynomial_l = _sb.special_laguerre_polynomial_l
legendre_polynomial_p = _sb.special_legendre_polynomial_p
modified_bessel_i0 = _sb.special_modified_bessel_i0
modified_bessel_i1 = _sb.special_modified_bessel_i1
modified_bessel_k0 = _sb.special_modified_bessel_k0
modified_bessel_k1 = _sb.special_modified_bessel_k1
scaled_modified_bessel_k0 = _sb.special_scaled_modified_bessel_k0
scaled_modified_bessel_k1 = _sb.special_scaled_modified_bessel_k1
shifted_chebyshev_polynomial_t = _sb.special_shifted_chebyshev_polynomial_t
shifted_chebyshev_polynomial_u = _sb.special_shifted_chebyshev_polynomial_u
shifted_chebyshev_polynomial_v = _sb.special_shifted_chebyshev_polynomial_v
shifted_chebyshev_polynomial_w = _sb.special_shifted_chebyshev_polynomial_w
spherical_bessel_j0 = _sb.special_spherical_bessel_j0


def _incomplete_gamma(name, f):
    def fn(input, other, *, out=None):
        if out is not None:
            return _call_with_out(name, fn, (input, other), {}, out)
        for i, (arg, v) in enumerate((("input", input), ("other", other))):
            if not isinstance(v, _Tensor):
                raise TypeError(f"special_{name}(): argument '{arg}' (position {i + 1}) must be Tensor, "
                                f"not {type(v).__name__}")
        return f(input, other)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"The regularized {'lower' if name == 'gammainc' else 'upper'} incomplete gamma function."
    return fn


gammainc = _incomplete_gamma("gammainc", _sf.igamma)
gammaincc = _incomplete_gamma("gammaincc", _sf.igammac)
