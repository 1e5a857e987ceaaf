"""Ops for the distributions: Gamma sampling with its implicit
reparameterization gradient, and Poisson/binomial sampling.

``_standard_gamma(alpha)`` draws ``x ~ Gamma(alpha, 1)`` and hands it to the
registry op ``_standard_gamma_reparam(alpha, x)``, whose value is ``x`` and whose
derivative in ``alpha`` is the implicit reparameterization gradient
``dx/dalpha = -(dP(alpha, x)/dalpha) / (dP(alpha, x)/dx)`` (``P`` the regularized
lower incomplete gamma function: the derivative of the draw with its CDF level
held fixed), computed by ``_standard_gamma_grad(alpha, x)`` as PyTorch's op of
that name; that op has no derivative (PyTorch's NotImplementedError).

The gradient is a series: with ``r_0 = 1/alpha``, ``r_n = r_{n-1} x / (alpha + n)``,
``dx/dalpha = -x sum_n r_n (log x - digamma(alpha + n + 1))``, from
``P(alpha, x) = x^alpha e^-x sum_n x^n / Gamma(alpha + n + 1)``.  The terms peak near
``n = x - alpha``; only a window of them around the peak (widths in units of
``sqrt(x)``) is summed, in float64, scaled by the largest.
"""
import numpy as np

from .._random import default_generator, sampling
from .._tensor import Tensor, _wrap
from ._families import ELEMENTWISE
from ._registry import defop, not_implemented, public
from ._special import digamma as _digamma, lgamma as _lgamma
from .special_fns import _not_implemented
from ._util import _tname, dtype_error
from .pointwise import binary as _binary

# (``_standard_gamma`` and ``_standard_gamma_grad`` are PyTorch's private names: they
# stay in this module, for the distributions)
__all__ = ["poisson", "binomial"]


def _gamma_grad_f64(a, x):
    """dx/dalpha for float64 arrays of one shape (flat)."""
    out = np.zeros(a.shape, np.float64)
    ok = (x > 0) & np.isfinite(x) & (a > 0) & np.isfinite(a)
    bad = ~((x >= 0) & (a > 0)) | np.isnan(x) | np.isnan(a)
    out[bad] = np.nan
    if not ok.any():
        return out
    a_, x_ = a[ok], x[ok]
    lx = np.log(x_)
    width = 12.0 * np.sqrt(np.maximum(x_, a_)) + 40.0
    peak = np.maximum(x_ - a_, 0.0)
    n0 = np.floor(np.maximum(peak - width, 0.0))
    n1 = np.ceil(peak + width)
    length = int((n1 - n0).max()) + 1
    res = np.empty(a_.shape, np.float64)
    lga = _lgamma(a_)
    chunk = max(1, (1 << 20) // length)
    for s in range(0, a_.size, chunk):
        sl = slice(s, s + chunk)
        n = n0[sl, None] + np.arange(length, dtype=np.float64)
        ap = a_[sl, None] + n + 1.0
        logr = n * lx[sl, None] + lga[sl, None] - _lgamma(ap)
        live = n <= n1[sl, None]
        logr = np.where(live, logr, -np.inf)
        m = logr.max(axis=1, keepdims=True)
        terms = np.exp(logr - m) * (lx[sl, None] - _digamma(ap))
        res[sl] = -x_[sl] * np.exp(m[:, 0]) * terms.sum(axis=1)
    out[ok] = res
    return out


def _gamma_grad_k(self, output):
    alpha = self
    if alpha.dtype != output.dtype:
        raise RuntimeError(f"Found dtype {_tname(output.dtype)} but expected {_tname(alpha.dtype)}")
    a, x = np.broadcast_arrays(alpha, output)
    r = _gamma_grad_f64(a.astype(np.float64).ravel(), x.astype(np.float64).ravel())
    return r.reshape(a.shape).astype(alpha.dtype, copy=False)


def _same_dtype(self, output):
    """PyTorch's kernel takes both in one dtype (no promotion)."""
    if isinstance(self, Tensor) and isinstance(output, Tensor) and self.dtype != output.dtype:
        raise RuntimeError(f"Found dtype {_tname(output._data.dtype)} but expected "
                           f"{_tname(self._data.dtype)}")


_standard_gamma_grad = _binary(
    "_standard_gamma_grad", _gamma_grad_k,
    {"self": _not_implemented("_standard_gamma_grad"),
     "output": _not_implemented("_standard_gamma_grad")},
    float_only=True, family=ELEMENTWISE, method=False, tensors_only=True,
    no_complex="_standard_gamma_grad_cpu", no_int="_standard_gamma_grad_cpu",
    no_bool="_standard_gamma_grad_cpu", check=_same_dtype)


def _reparam_k(alpha, sample):
    return _broadcast_sample(sample, alpha).astype(alpha.dtype, copy=False)


_standard_gamma_reparam = _binary(
    "_standard_gamma_reparam", _reparam_k,
    {"alpha": lambda g, alpha, result: g * _standard_gamma_grad(alpha, result)},
    float_only=True, family=ELEMENTWISE, method=False, tensors_only=True,
    node_name="StandardGammaBackward0",
    no_complex="gamma_cpu", no_int="gamma_cpu", no_bool="gamma_cpu")


def _broadcast_sample(sample, *params):
    shape = np.broadcast_shapes(np.shape(sample), *(np.shape(p) for p in params))
    return np.array(np.broadcast_to(sample, shape))


def _poisson_draws_k(input, sample):
    return _broadcast_sample(sample, input)


def _binomial_draws_k(count, prob, sample):
    return _broadcast_sample(sample, count, prob)


# the draws of poisson and binomial as ops of their parameters, as PyTorch records
# them: the Poisson rate gets a zero gradient (PoissonBackward0), binomial's
# parameters none ("not implemented", raised only where that gradient is needed)
_poisson_draws = defop("_poisson_draws", _poisson_draws_k, {"input": "zero"}, n_in=2,
                       family=ELEMENTWISE, method=False, node_name="PoissonBackward0")


_BINOMIAL_GRAD = not_implemented(RuntimeError, "derivative for aten::binomial is not implemented")
_binomial_draws = defop("_binomial_draws", _binomial_draws_k,
                        {"count": _BINOMIAL_GRAD, "prob": _BINOMIAL_GRAD}, n_in=3,
                        family=ELEMENTWISE, method=False, node_name="NotImplemented")


def _float_input(name, kernel, t):
    if not isinstance(t, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(t).__name__}")
    if t._data.dtype.kind not in "fV" and str(t._data.dtype) != "bfloat16":
        raise dtype_error(kernel, t._data.dtype)


def _rng(generator):
    return (generator if generator is not None else default_generator)._rng


@public(method=False)
@sampling(batch="elementwise", same_batched=False)
def _standard_gamma(input, generator=None):
    """Draws of Gamma(input, 1); differentiable in ``input`` (implicit
    reparameterization).  Draws below the dtype's smallest normal number are
    raised to it, as PyTorch's are."""
    _float_input("_standard_gamma", "gamma_cpu", input)
    d = input._data
    a = d.astype(np.float64)
    with np.errstate(invalid="ignore"):
        x = _rng(generator).standard_gamma(np.where(a > 0, a, 1.0))
    x = np.where(a > 0, x, 0.0)
    tiny = float(np.finfo(d.dtype).tiny) if d.dtype.kind == "f" else 1.1754943508222875e-38
    x = np.where(np.isnan(a), np.nan, np.maximum(x, tiny)).astype(d.dtype)
    return _standard_gamma_reparam(input, _wrap(x))


@public(method=False)
@sampling(batch="elementwise", same_batched=False)
def poisson(input, generator=None):
    """Poisson draws with rates ``input`` (no gradient flows to the rates)."""
    _float_input("poisson", "poisson_cpu", input)
    d = input._data
    lam = d.astype(np.float64)
    if lam.size and not (lam >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return _poisson_draws(input, _wrap(_rng(generator).poisson(lam).astype(d.dtype)))


@public(method=False)
@sampling(batch="elementwise", same_batched=False)
def binomial(count, prob, generator=None):
    """Binomial draws with ``count`` trials of success probability ``prob``."""
    for name, t in (("count", count), ("prob", prob)):
        if not isinstance(t, Tensor):
            raise TypeError(f"binomial(): argument '{name}' must be Tensor, not {type(t).__name__}")
        if t._data.dtype.kind not in "fV" and str(t._data.dtype) != "bfloat16":
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: "
                             f"{_tname(t._data.dtype)}")
    n, p = np.broadcast_arrays(count._data.astype(np.float64), prob._data.astype(np.float64))
    n = np.maximum(np.floor(n), 0)                      # (PyTorch draws 0 for a negative count)
    p = np.clip(p, 0.0, 1.0)
    rng = _rng(generator)
    huge = n >= 2.0 ** 62                               # beyond NumPy's int64 counts
    if huge.any():
        # the normal limit, exact to far below float64's resolution of such counts
        mean, sd = n * p, np.sqrt(n * p * (1 - p))
        r = np.clip(np.round(mean + sd * rng.standard_normal(n.shape)), 0, n)
        small = ~huge
        r[small] = rng.binomial(n[small].astype(np.int64), p[small])
    else:
        r = rng.binomial(n.astype(np.int64), p)
    return _binomial_draws(count, prob, _wrap(r.astype(count._data.dtype)))
