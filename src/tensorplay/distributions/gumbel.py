"""The Gumbel (type-I extreme value) distribution (``torch.distributions.Gumbel``)."""
import math
import numbers

from . import _tp

from . import constraints
from .constraints import _finfo
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """``loc - scale * log(-log(U))`` with ``U ~ Uniform(tiny, 1 - eps)``."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        fi = _finfo(self.loc.dtype)
        lo, hi = float(fi.tiny), 1 - float(fi.eps)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            base = Uniform(lo, hi, validate_args=validate_args)
        else:
            base = Uniform(_tp.full_like(self.loc, lo), _tp.full_like(self.loc, hi),
                           validate_args=validate_args)
        chain = [ExpTransform().inv, AffineTransform(loc=0, scale=-_tp.ones_like(self.scale)),
                 ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base, chain, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (self.loc - value) / self.scale
        return z - z.exp() - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return math.pi / math.sqrt(6) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + euler_constant)
