"""The Dirichlet distribution."""
from . import _tp
from . import constraints
from .constraints import _finfo
from .exp_family import ExponentialFamily
from ..ops.dist_ops import _standard_gamma

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """Dirichlet distribution over the simplex, with ``concentration`` of shape
    ``batch_shape + (k,)``.  ``rsample`` normalizes independent Gamma draws,
    each reparameterized implicitly, so it is differentiable in the
    concentration (PyTorch differentiates its draw with a Dirichlet-specific
    implicit gradient instead: both are unbiased, per-draw values differ)."""
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = _tp.Size(batch_shape)
        new.concentration = self.concentration.expand(tuple(batch_shape) + tuple(self.event_shape))
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        c = self.concentration
        # drawn and normalized in float64, as PyTorch's _sample_dirichlet: float32 draws of
        # small concentrations underflow (both of Beta(0.01, 0.01)'s gave exactly 0.5, 18%)
        g = _standard_gamma(c.double().expand(shape))
        x = (g / g.sum(-1, True)).to(c.dtype)
        # inside (0, 1) as PyTorch's: small concentrations round draws to exactly 0 or 1
        # (Beta(0.1, 0.1) in float32: 9%), where log_prob is infinite and its gradient nan
        info = _finfo(x.dtype)
        x.detach().clamp_(min=float(info.tiny), max=1.0 - float(info.eps) / 2)
        return x

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return (_tp.xlogy(c - 1.0, value).sum(-1) + _tp.lgamma(c.sum(-1))
                - _tp.lgamma(c).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, True)
        mask = (self.concentration < 1).all(-1)
        if bool(mask.any()):
            k = cm1.shape[-1]
            hot = _tp.functional.one_hot(mode[mask].argmax(-1), k).to(mode.dtype)
            mode = mode.clone()
            mode[mask] = hot
        return mode

    @property
    def variance(self):
        c = self.concentration
        con0 = c.sum(-1, True)
        return c * (con0 - c) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        c = self.concentration
        k = c.size(-1)
        a0 = c.sum(-1)
        return (_tp.lgamma(c).sum(-1) - _tp.lgamma(a0) - (k - a0) * _tp.digamma(a0)
                - ((c - 1.0) * _tp.digamma(c)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - _tp.lgamma(x.sum(-1))
