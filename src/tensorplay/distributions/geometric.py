"""The geometric distribution (failures before the first success)."""
from numbers import Number

from . import _tp
from . import constraints
from .constraints import _finfo
from .distribution import Distribution, _is_all_true
from .utils import _expand_probs_or_logits, broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Geometric"]


class Geometric(Distribution):
    """Geometric distribution: the number of failures before the first success
    in Bernoulli trials of success ``probs`` (or ``logits``, not both)."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        probs_or_logits = probs if probs is not None else logits
        if isinstance(probs_or_logits, Number):
            batch_shape = _tp.Size()
        else:
            batch_shape = probs_or_logits.size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            # add an extra check beyond unit_interval
            value = self.probs
            valid = value > 0
            if not _is_all_true(valid):
                invalid_value = value.data[~valid]
                raise ValueError(
                    "Expected parameter probs "
                    f"({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {repr(self)} "
                    f"to be positive but found invalid values:\n{invalid_value}")

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = _tp.Size(batch_shape)
        _expand_probs_or_logits(self, new, batch_shape)
        super(Geometric, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return _tp.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        tiny = float(_finfo(self.probs.dtype).tiny)
        with _tp.no_grad():
            u = _tp.empty(shape, dtype=self.probs.dtype).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # (a where, not a masked assignment: the same under vmap and jacfwd)
        probs = _tp.where((probs == 1) & (value == 0), probs.new_zeros(()), probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return _tp.functional.binary_cross_entropy_with_logits(
            self.logits, self.probs, reduction="none") / self.probs
