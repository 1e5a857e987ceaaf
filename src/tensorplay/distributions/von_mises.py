"""The von Mises (circular normal) distribution."""
import math

from . import _tp
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]


def _log_i0(x):
    """log I0(x) for x > 0, from the exponentially scaled Bessel function."""
    return _tp.log(_tp.special.i0e(x)) + x


def _rejection_sample(loc, concentration, proposal_r, shape):
    """Best & Fisher's wrapped-Cauchy-envelope rejection sampler (in loc's dtype)."""
    x = _tp.zeros(shape, dtype=loc.dtype)
    done = _tp.zeros(shape, dtype=_tp.bool)
    while not bool(done.all()):
        u1, u2, u3 = _tp.rand((3,) + tuple(shape), dtype=loc.dtype).unbind()
        z = _tp.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = (c * (2 - c) - u2 > 0) | ((c / u2).log() + 1 - c >= 0)
        accept = accept & ~done
        x = _tp.where(accept, (u3 - 0.5).sign() * f.acos(), x)
        done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """Von Mises distribution on the circle, with mean direction ``loc`` (radians)
    and ``concentration``.  Samples (not reparameterized) lie in ``[-pi, pi)``."""
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        batch_shape = self.loc.shape
        super().__init__(batch_shape, _tp.Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * _tp.cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_i0(self.concentration)

    @lazy_property
    def _loc(self):
        return self.loc.to(_tp.float64)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(_tp.float64)

    @lazy_property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        r = (1 + rho ** 2) / (2 * rho)
        r_taylor = 1 / kappa + kappa        # for small kappa, where r's formula cancels
        return _tp.where(kappa < 1e-5, r_taylor, r)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with _tp.no_grad():
            x = _rejection_sample(self._loc.detach(), self._concentration.detach(),
                                  self._proposal_r.detach(), shape)
            return x.to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        try:
            return super().expand(batch_shape)
        except NotImplementedError:
            validate_args = self.__dict__.get("_validate_args")
            loc = self.loc.expand(batch_shape)
            concentration = self.concentration.expand(batch_shape)
            return type(self)(loc, concentration, validate_args=validate_args)

    @property
    def mean(self):
        """The circular mean (``loc``)."""
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        """The circular variance ``1 - I1(k) / I0(k)``."""
        return 1 - _tp.special.i1e(self.concentration) / _tp.special.i0e(self.concentration)
