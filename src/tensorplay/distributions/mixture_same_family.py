"""A mixture of components of one family (``torch.distributions.MixtureSameFamily``)."""
from . import _tp
from . import constraints
from .categorical import Categorical
from .constraints import MixtureSameFamilyConstraint
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """Mixture whose weights come from a Categorical over the rightmost batch
    dimension of ``component_distribution``."""
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "torch.distributions.Distribution")
        mdbs = mixture_distribution.batch_shape
        cdbs = _tp.Size(tuple(component_distribution.batch_shape[:-1]))
        for a, b in zip(reversed(tuple(mdbs)), reversed(tuple(cdbs))):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not compatible with "
                                 f"`component_distribution.batch_shape`({cdbs})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km is not None and kc is not None and km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(batch_shape=cdbs, event_shape=event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = _tp.Size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(
            _tp.Size(tuple(batch_shape) + (self._num_component,)))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        super(MixtureSameFamily, new).__init__(batch_shape=batch_shape,
                                               event_shape=new._component_distribution.event_shape,
                                               validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        return MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def mean(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return _tp.sum(probs * self.component_distribution.mean, dim=-1 - self._event_ndims)

    @property
    def variance(self):
        # law of total variance
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        d = -1 - self._event_ndims
        within = _tp.sum(probs * self.component_distribution.variance, dim=d)
        between = _tp.sum(probs * (self.component_distribution.mean - self._pad(self.mean)).pow(2.0), dim=d)
        return within + between

    def cdf(self, x):
        c = self.component_distribution.cdf(self._pad(x))
        return _tp.sum(c * self.mixture_distribution.probs, dim=-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        lp = self.component_distribution.log_prob(self._pad(x))
        log_w = _tp.log_softmax(self.mixture_distribution.logits, dim=-1)
        return _tp.logsumexp(lp + log_w, dim=-1)

    def sample(self, sample_shape=()):
        with _tp.no_grad():
            sample_shape = tuple(sample_shape)
            gather_dim = len(sample_shape) + len(self.batch_shape)
            es = tuple(self.event_shape)
            idx = self.mixture_distribution.sample(sample_shape)
            comps = self.component_distribution.sample(sample_shape)
            # (a mixture batch shorter than the components' broadcasts over the rest)
            full = sample_shape + tuple(self.batch_shape)
            idx = idx.reshape(sample_shape + (1,) * (len(full) - idx.dim())
                              + tuple(idx.shape[len(sample_shape):])).expand(full)
            idx = idx.reshape(full + (1,) * (len(es) + 1)).expand(full + (1,) + es)
            return _tp.gather(comps, gather_dim, idx).squeeze(gather_dim)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        n_dist = len(self.batch_shape)
        n_cat = len(self.mixture_distribution.batch_shape)
        pad = 0 if n_cat == 1 else n_dist - n_cat
        s = tuple(x.shape)
        return x.reshape(s[:-1] + (1,) * pad + s[-1:] + (1,) * self._event_ndims)

    def __repr__(self):
        return ("MixtureSameFamily" + "(" + f"\n  {self.mixture_distribution},\n  "
                f"{self.component_distribution}" + ")")
