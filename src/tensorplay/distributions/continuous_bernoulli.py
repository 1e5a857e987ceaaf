"""The continuous Bernoulli distribution on [0, 1] (``torch.distributions.ContinuousBernoulli``)."""
import math
import numbers

from . import _tp
from . import constraints
from .exp_family import ExponentialFamily
from .utils import (_expand_probs_or_logits, broadcast_all, clamp_probs, lazy_property, logits_to_probs,
                    probs_to_logits)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """Density ``C(p) p^x (1-p)^(1-x)`` on [0, 1].  Near ``p = 1/2`` (inside ``lims``) the
    normalizer and moments use Taylor expansions, where the closed forms lose precision."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
            if validate_args is not None:
                if not self.arg_constraints["probs"].check(self.probs).all():
                    raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(_tp.Size() if scalar else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = _tp.Size(batch_shape)
        _expand_probs_or_logits(self, new, batch_shape)
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        return _tp.where(self._outside_unstable_region(), self.probs,
                         self._lims[0] * _tp.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """log C(p) = log(|log(1-p) - log p| / |1 - 2p|); Taylor series near p = 1/2."""
        p = self._cut_probs()
        low = _tp.where(p <= 0.5, p, _tp.zeros_like(p))
        high = _tp.where(p >= 0.5, p, _tp.ones_like(p))
        closed = (_tp.log(_tp.abs(_tp.log1p(-p) - _tp.log(p)))
                  - _tp.where(p <= 0.5, _tp.log1p(-2.0 * low), _tp.log(2.0 * high - 1.0)))
        x = _tp.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return _tp.where(self._outside_unstable_region(), closed, taylor)

    @property
    def mean(self):
        p = self._cut_probs()
        closed = p / (2.0 * p - 1.0) + 1.0 / (_tp.log1p(-p) - _tp.log(p))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * _tp.pow(x, 2)) * x
        return _tp.where(self._outside_unstable_region(), closed, taylor)

    @property
    def stddev(self):
        return _tp.sqrt(self.variance)

    @property
    def variance(self):
        p = self._cut_probs()
        closed = (p * (p - 1.0) / _tp.pow(1.0 - 2.0 * p, 2)
                  + 1.0 / _tp.pow(_tp.log1p(-p) - _tp.log(p), 2))
        x = _tp.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return _tp.where(self._outside_unstable_region(), closed, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _tp.rand(tuple(shape), dtype=self.probs.dtype)
        with _tp.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return self.icdf(_tp.rand(tuple(shape), dtype=self.probs.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-_tp.functional.binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        closed = (_tp.pow(p, value) * _tp.pow(1.0 - p, 1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inner = _tp.where(self._outside_unstable_region(), closed, value)
        return _tp.where(value <= 0.0, _tp.zeros_like(value),
                         _tp.where(value >= 1.0, _tp.ones_like(value), inner))

    def icdf(self, value):
        p = self._cut_probs()
        closed = ((_tp.log1p(-p + value * (2.0 * p - 1.0)) - _tp.log1p(-p))
                  / (_tp.log(p) - _tp.log1p(-p)))
        return _tp.where(self._outside_unstable_region(), closed, value)

    def entropy(self):
        lp0 = _tp.log1p(-self.probs)
        lp1 = _tp.log(self.probs)
        return self.mean * (lp0 - lp1) - self._cont_bern_log_norm() - lp0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = _tp.where(outside, x, (self._lims[0] - 0.5) * _tp.ones_like(x))
        closed = _tp.log(_tp.abs(_tp.expm1(cut))) - _tp.log(_tp.abs(cut))
        taylor = 0.5 * x + _tp.pow(x, 2) / 24.0 - _tp.pow(x, 4) / 2880.0
        return _tp.where(outside, closed, taylor)
