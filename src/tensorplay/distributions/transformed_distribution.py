"""A base distribution pushed through a sequence of transforms
(``torch.distributions.TransformedDistribution``)."""
from . import _tp

from . import constraints
from .distribution import Distribution
from .independent import Independent
from .transforms import ComposeTransform, Transform
from .utils import _sum_rightmost

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """The distribution of ``transforms[-1](...transforms[0](x))`` for ``x`` drawn from
    ``base_distribution``; ``log_prob`` adds the change of variables."""
    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = _tp.Size(tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape))
        base_event_dim = len(base_distribution.event_shape)
        chain = ComposeTransform(self.transforms)
        if len(base_shape) < chain.domain.event_dim:
            raise ValueError("base_distribution needs to have shape with size at least "
                             f"{chain.domain.event_dim}, but got {base_shape}.")
        out_shape = chain.forward_shape(base_shape)
        back_shape = chain.inverse_shape(out_shape)
        if tuple(base_shape) != tuple(back_shape):
            # the transforms' parameters broadcast the base's batch shape
            base_distribution = base_distribution.expand(
                _tp.Size(tuple(back_shape)[:len(back_shape) - base_event_dim]))
        extra = chain.domain.event_dim - base_event_dim
        if extra > 0:
            base_distribution = Independent(base_distribution, extra)
        self.base_dist = base_distribution
        event_dim = max(chain.codomain.event_dim,
                        base_event_dim + chain.codomain.event_dim - chain.domain.event_dim)
        if len(out_shape) < event_dim:
            raise AssertionError(f"forward_shape length {len(out_shape)} must be >= event_dim {event_dim}")
        cut = len(out_shape) - event_dim
        super().__init__(_tp.Size(tuple(out_shape)[:cut]), _tp.Size(tuple(out_shape)[cut:]),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = _tp.Size(batch_shape)
        shape = _tp.Size(tuple(batch_shape) + tuple(self.event_shape))
        for t in self.transforms[::-1]:
            shape = t.inverse_shape(shape)
        new.base_dist = self.base_dist.expand(
            _tp.Size(tuple(shape)[:len(shape) - len(self.base_dist.event_shape)]))
        new.transforms = self.transforms
        super(TransformedDistribution, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        sup = self.transforms[-1].codomain
        if len(self.event_shape) > sup.event_dim:
            sup = constraints.independent(sup, len(self.event_shape) - sup.event_dim)
        return sup

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    def sample(self, sample_shape=()):
        with _tp.no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape=()):
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value):
        """Base log-density of the pulled-back value minus each transform's log-Jacobian."""
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        lp = 0.0
        y = value
        for t in self.transforms[::-1]:
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            lp = lp - _sum_rightmost(t.log_abs_det_jacobian(x, y), event_dim - t.domain.event_dim)
            y = x
        return lp + _sum_rightmost(self.base_dist.log_prob(y),
                                   event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        """For a decreasing chain, the CDF of the transformed variable is 1 - base CDF."""
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        for t in self.transforms[::-1]:
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for t in self.transforms:
            value = t(value)
        return value
