"""The gamma distribution."""
from numbers import Number

from . import _tp
from . import constraints
from .constraints import _finfo
from .exp_family import ExponentialFamily
from .utils import broadcast_all
from ..ops.dist_ops import _standard_gamma

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Gamma distribution with shape ``concentration`` and ``rate`` (inverse
    scale).  ``rsample`` is differentiable in both (implicit reparameterization
    in the concentration)."""
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, Number) and isinstance(rate, Number):
            batch_shape = _tp.Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = _tp.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=float(_finfo(value.dtype).tiny))
        return value

    def log_prob(self, value):
        value = _tp.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (_tp.xlogy(self.concentration, self.rate)
                + _tp.xlogy(self.concentration - 1, value)
                - self.rate * value - _tp.lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - _tp.log(self.rate) + _tp.lgamma(self.concentration)
                + (1.0 - self.concentration) * _tp.digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return _tp.lgamma(x + 1) + (x + 1) * _tp.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _tp.special.gammainc(self.concentration, self.rate * value)
