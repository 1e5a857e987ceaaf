"""KL divergences for the distributions built on transforms and the matrix ones
(the pairs ``torch.distributions.kl`` registers for them), added to ``kl.py``'s
registry with ``register_kl``."""
import math

from . import _tp
from .beta import Beta
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .lowrank_multivariate_normal import (LowRankMultivariateNormal, _batch_lowrank_logdet,
                                          _batch_lowrank_mahalanobis)
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .pareto import Pareto
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _sum_rightmost, euler_constant as _euler_gamma

__all__ = []


def _inf_like(t):
    return _tp.full_like(t, math.inf)


def _where_inf(t, mask):
    return _tp.where(mask, _tp.full_like(t, math.inf), t)


def _batch_trace_XXT(m):
    """trace(M M^T) over the batch: the sum of squares of each matrix."""
    return m.pow(2).sum((-2, -1))


def _log_diag_sum(L):
    return L.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def _check_events(p, q, what):
    if tuple(p.event_shape) != tuple(q.event_shape):
        raise ValueError(f"KL-divergence between two {what} with                          "
                         "different event shapes cannot be computed")


# ---------------------------------------------------------------- same family

@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_cb_cb(p, q):
    return (p.mean * (p.logits - q.logits) + p._cont_bern_log_norm() + _tp.log1p(-p.probs)
            - q._cont_bern_log_norm() - _tp.log1p(-q.probs))


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    r = p.scale / q.scale
    a = q.loc / q.scale
    b = p.loc / q.scale
    return (-r.log() - a + b + r * _euler_gamma + _tp.exp(a + (1 + r).lgamma() - b)
            - (1 + _euler_gamma))


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p, q):
    _check_events(p, q, "Low Rank Multivariate Normals")
    logdet = (_batch_lowrank_logdet(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                    q._capacitance_tril)
              - _batch_lowrank_logdet(p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag,
                                      p._capacitance_tril))
    maha = _batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                      q.loc - p.loc, q._capacitance_tril)
    # trace(Sigma_q^{-1} Sigma_p) with Sigma_q^{-1} = D^{-1} - A^T A (Woodbury)
    A = _tp.linalg.solve_triangular(
        q._capacitance_tril, q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2),
        upper=False)
    tr = ((p._unbroadcasted_cov_diag / q._unbroadcasted_cov_diag).sum(-1)
          + _batch_trace_XXT(p._unbroadcasted_cov_factor * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
          - _batch_trace_XXT(A * p._unbroadcasted_cov_diag.sqrt().unsqueeze(-2))
          - _batch_trace_XXT(A.matmul(p._unbroadcasted_cov_factor)))
    return 0.5 * (logdet + tr + maha - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p, q):
    _check_events(p, q, "(Low Rank) Multivariate Normals")
    logdet = (_batch_lowrank_logdet(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                    q._capacitance_tril)
              - 2 * _log_diag_sum(p._unbroadcasted_scale_tril))
    maha = _batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                      q.loc - p.loc, q._capacitance_tril)
    A = _tp.linalg.solve_triangular(
        q._capacitance_tril, q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2),
        upper=False)
    tr = (_batch_trace_XXT(p._unbroadcasted_scale_tril * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
          - _batch_trace_XXT(A.matmul(p._unbroadcasted_scale_tril)))
    return 0.5 * (logdet + tr + maha - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p, q):
    _check_events(p, q, "(Low Rank) Multivariate Normals")
    logdet = (2 * _log_diag_sum(q._unbroadcasted_scale_tril)
              - _batch_lowrank_logdet(p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag,
                                      p._capacitance_tril))
    maha = _batch_mahalanobis(q._unbroadcasted_scale_tril, q.loc - p.loc)
    n = p.event_shape[0]
    batch = tuple(_tp.broadcast_shapes(tuple(q._unbroadcasted_scale_tril.shape[:-2]),
                                       tuple(p._unbroadcasted_cov_factor.shape[:-2])))
    Lq = q._unbroadcasted_scale_tril.expand(batch + (n, n))
    W = p._unbroadcasted_cov_factor.expand(batch + (n, p.cov_factor.size(-1)))
    Dh = _tp.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(batch + (n, n))
    tr = (_batch_trace_XXT(_tp.linalg.solve_triangular(Lq, W, upper=False))
          + _batch_trace_XXT(_tp.linalg.solve_triangular(Lq, Dh, upper=False)))
    return 0.5 * (logdet + tr + maha - n)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    _check_events(p, q, "Multivariate Normals")
    half_logdet = _log_diag_sum(q._unbroadcasted_scale_tril) - _log_diag_sum(p._unbroadcasted_scale_tril)
    n = p.event_shape[0]
    batch = tuple(_tp.broadcast_shapes(tuple(q._unbroadcasted_scale_tril.shape[:-2]),
                                       tuple(p._unbroadcasted_scale_tril.shape[:-2])))
    Lq = q._unbroadcasted_scale_tril.expand(batch + (n, n))
    Lp = p._unbroadcasted_scale_tril.expand(batch + (n, n))
    tr = _batch_trace_XXT(_tp.linalg.solve_triangular(Lq, Lp, upper=False))
    maha = _batch_mahalanobis(q._unbroadcasted_scale_tril, q.loc - p.loc)
    return half_logdet + 0.5 * (tr + maha - n)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    ar = q.alpha / p.alpha
    out = q.alpha * (p.scale / q.scale).log() - ar.log() + ar - 1
    return _where_inf(out, p.support.lower_bound < q.support.lower_bound)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError
    if tuple(p.event_shape) != tuple(q.event_shape):
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


# ---------------------------------------------------------------- across families

@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_cb(p, q):
    return -p.entropy() - p.mean * q.logits - _tp.log1p(-q.probs) - q._cont_bern_log_norm()


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_cb(p, q):
    out = -p.entropy() - p.mean * q.logits - _tp.log1p(-q.probs) - q._cont_bern_log_norm()
    return _where_inf(out, (p.high >= q.support.upper_bound) | (p.low <= q.support.lower_bound))


@register_kl(ContinuousBernoulli, Exponential)
def _kl_cb_exponential(p, q):
    return -p.entropy() - _tp.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_cb_normal(p, q):
    t2 = 0.5 * (math.log(2.0 * math.pi) + _tp.square(q.loc / q.scale)) + _tp.log(q.scale)
    t3 = (p.variance + _tp.square(p.mean) - 2.0 * q.loc * p.mean) / (2.0 * _tp.square(q.scale))
    return -p.entropy() + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_cb_uniform(p, q):
    out = -p.entropy() + (q.high - q.low).log()
    return _where_inf(out, (q.low >= p.support.lower_bound) | (q.high <= p.support.upper_bound))


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    s = p.rate * q.scale
    r = q.loc / q.scale
    return s.log() - 1 - r + _tp.exp(r) * s / (s + 1) + s.reciprocal()


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    s = p.rate * q.scale
    r = q.loc / q.scale
    k = p.concentration
    t1 = (k - 1) * k.digamma() - k.lgamma() - k
    t2 = s.log() + k / s
    t3 = _tp.exp(r) * (1 + s.reciprocal()).pow(-k) - r
    return t1 + t2 + t3


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    r = p.scale / q.scale
    t1 = (r / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * r * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * _euler_gamma - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (_euler_gamma + 1)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    m = p.loc / q.scale
    v = (p.scale / q.scale).pow(2)
    r = q.loc / q.scale
    return -v.log() * 0.5 + m - r + _tp.exp(-m + 0.5 * v + r) - 0.5 * (1 + math.log(2 * math.pi))


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    c = q.scale / (p.high - p.low)
    hi = (p.high - q.loc) / q.scale
    lo = (p.low - q.loc) / q.scale
    return c.log() + 0.5 * (hi + lo) - c * (_tp.exp(-hi) - _tp.exp(-lo))


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    s = p.scale * q.rate
    out = (p.alpha / s).log() - p.alpha.reciprocal() + p.alpha * s / (p.alpha - 1) - 1
    return _where_inf(out, p.alpha <= 1)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    c = p.scale.log() + p.alpha.reciprocal()
    out = (p.alpha.log() - c + q.concentration.lgamma() - q.concentration * q.rate.log()
           + (1 - q.concentration) * c + q.rate * p.alpha * p.scale / (p.alpha - 1) - 1)
    return _where_inf(out, p.alpha <= 1)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    var2 = 2 * q.scale.pow(2)
    c = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * c.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * c - q.loc).pow(2)
    out = t1 - p.alpha.reciprocal() + (t3 + t4) / var2 - 1
    return _where_inf(out, p.alpha <= 2)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    t2 = (_tp.xlogy(p.high, p.high) - _tp.xlogy(p.low, p.low) - width) / width
    return _where_inf(t2 * (q.alpha + 1) - t1, p.low < q.support.lower_bound)


# pairs with disjoint or nested supports: infinite
def _kl_infinite_by(attr):
    def f(p, q):
        return _inf_like(getattr(p, attr))
    return f


for _p, _qs, _attr in (
        (Beta, (Pareto,), "concentration1"),
        (ContinuousBernoulli, (Pareto,), "probs"),
        (Exponential, (ContinuousBernoulli, Pareto), "rate"),
        (Gamma, (ContinuousBernoulli, Pareto), "concentration"),
        (Gumbel, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform), "loc"),
        (Laplace, (ContinuousBernoulli, Pareto), "loc"),
        (Normal, (ContinuousBernoulli, Pareto), "loc"),
        (Pareto, (Beta, ContinuousBernoulli, Uniform), "scale")):
    _f = _kl_infinite_by(_attr)
    for _q in _qs:
        register_kl(_p, _q)(_f)
del _p, _qs, _attr, _f, _q
