"""The Kumaraswamy distribution on (0, 1) (``torch.distributions.Kumaraswamy``)."""
import math

from . import _tp

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    """E[X^n] = b * B(1 + n/a, b)."""
    s = 1 + n / a
    return b * _tp.exp(_tp.lgamma(s) + _tp.lgamma(b) - _tp.lgamma(s + b))


class Kumaraswamy(TransformedDistribution):
    """``(1 - U ** (1/concentration0)) ** (1/concentration1)`` with ``U ~ Uniform(0, 1)``."""
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(_tp.full_like(self.concentration0, 0), _tp.full_like(self.concentration0, 1),
                       validate_args=validate_args)
        chain = [PowerTransform(exponent=self.concentration0.reciprocal()),
                 AffineTransform(loc=1.0, scale=-1.0),
                 PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, chain, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        return _tp.where((b < 1) | (a < 1), math.nan, log_mode).exp()

    @property
    def variance(self):
        return _moments(self.concentration1, self.concentration0, 2) - _tp.pow(self.mean, 2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = _tp.digamma(self.concentration0 + 1) + euler_constant
        return t0 + t1 * h0 - _tp.log(self.concentration1) - _tp.log(self.concentration0)
