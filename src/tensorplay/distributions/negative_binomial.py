"""The negative binomial distribution."""
from . import _tp
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import _expand_probs_or_logits, broadcast_all, lazy_property, logits_to_probs, probs_to_logits
from ..ops.dist_ops import poisson as _poisson

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    """Negative binomial distribution: the number of successes before
    ``total_count`` failures, in Bernoulli trials of success ``probs`` (or
    ``logits``, not both)."""
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = _tp.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        _expand_probs_or_logits(self, new, batch_shape)
        super(NegativeBinomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @property
    def mean(self):
        return self.total_count * _tp.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / _tp.sigmoid(-self.logits)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    @lazy_property
    def _gamma(self):
        # Note: the rate is the inverse scale exp(-logits)
        return Gamma(concentration=self.total_count, rate=_tp.exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape=()):
        with _tp.no_grad():
            rate = self._gamma.sample(sample_shape)
            return _poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logsig = _tp.functional.logsigmoid
        log_unnormalized_prob = (self.total_count * logsig(-self.logits)
                                 + value * logsig(self.logits))
        log_normalization = (-_tp.lgamma(self.total_count + value) + _tp.lgamma(1.0 + value)
                             + _tp.lgamma(self.total_count))
        # the probability of 0 is 1 when total_count == 0 (and value == 0)
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
