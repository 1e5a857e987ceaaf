"""The generalized Pareto distribution (``torch.distributions.GeneralizedPareto``)."""
import math
from numbers import Number, Real

from . import _tp
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]

_INF, _NAN = float("inf"), float("nan")


class GeneralizedPareto(Distribution):
    """Location ``loc``, scale ``scale`` and shape ``concentration`` (xi):
    ``P(X > x) = (1 + xi z)^(-1/xi)`` with ``z = (x - loc) / scale``
    (``exp(-z)`` at ``xi = 0``, the exponential distribution).  The support is
    ``[loc, inf)``, or ``[loc, loc - scale / xi]`` for ``xi < 0`` (``xi = -1``
    is uniform).  ``rsample`` is the inverse CDF of uniform draws, so
    differentiable in all three parameters.

    As in PyTorch, a concentration within ``isclose`` of 0 takes the ``xi = 0``
    formulas (and no gradient for the concentration there).  Unlike PyTorch
    2.13, whose ``log_prob`` compares the concentration with a float32 zero and
    so fails for float64 parameters ("Double did not match Float"), float64
    parameters work.

        >>> import tensorplay as tp
        >>> d = tp.distributions.GeneralizedPareto(0.0, 2.0, 0.0)
        >>> d.cdf(tp.tensor(2.0)), d.mean
        (tensor(0.6321), tensor(2.))
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if isinstance(loc, Number) and isinstance(scale, Number) and isinstance(concentration, Number):
            batch_shape = _tp.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = _tp.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(GeneralizedPareto, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        u = _tp.rand(shape, dtype=self.loc.dtype)
        return self.icdf(u)

    def _safe_concentration(self):
        """(``concentration`` is close to 0, the concentration with 1 there)."""
        conc = self.concentration
        eq_zero = _tp.isclose(conc, _tp.zeros_like(conc))
        return eq_zero, _tp.where(eq_zero, _tp.ones_like(conc), conc)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration()
        y = 1 / safe_conc + _tp.ones_like(z)
        where_nonzero = _tp.where(y == 0, y, y * _tp.log1p(safe_conc * z))
        log_scale = math.log(self.scale) if isinstance(self.scale, Real) else self.scale.log()
        return -log_scale - _tp.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration()
        where_nonzero = -_tp.log1p(safe_conc * z) / safe_conc
        return _tp.where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        return _tp.log1p(-_tp.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return _tp.exp(self.log_cdf(value))

    def icdf(self, value):
        loc, scale = self.loc, self.scale
        eq_zero, safe_conc = self._safe_concentration()
        logu = _tp.log1p(-value)
        where_nonzero = loc + scale / safe_conc * _tp.expm1(-safe_conc * logu)
        where_zero = loc - scale * logu
        return _tp.where(eq_zero, where_zero, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        concentration = self.concentration
        valid = concentration < 1
        safe_conc = _tp.where(valid, concentration, 0.5)
        result = self.loc + self.scale / (1 - safe_conc)
        return _tp.where(valid, result, _NAN)

    @property
    def variance(self):
        concentration = self.concentration
        valid = concentration < 0.5
        safe_conc = _tp.where(valid, concentration, 0.25)
        result = self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return _tp.where(valid, result, _NAN)

    def entropy(self):
        ans = _tp.log(self.scale) + self.concentration + 1
        return _tp.broadcast_to(ans, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        bounded = self.concentration < 0
        # (the bound divided by a negative concentration only: no division by zero)
        safe_conc = _tp.where(bounded, self.concentration, -1.0)
        upper = _tp.where(bounded, lower - self.scale / safe_conc, _INF)
        return constraints.interval(lower, upper)
