"""The Fisher-Snedecor F distribution (``torch.distributions.FisherSnedecor``)."""
import math
import numbers

from . import _tp
from . import constraints
from .constraints import _finfo
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """``(X1 / df1) / (X2 / df2)`` for independent chi-squared ``X1``, ``X2``."""
    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        scalar = isinstance(df1, numbers.Number) and isinstance(df2, numbers.Number)
        super().__init__(_tp.Size() if scalar else self.df1.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(FisherSnedecor, _instance)
        batch_shape = _tp.Size(batch_shape)
        new.df1 = self.df1.expand(batch_shape)
        new.df2 = self.df2.expand(batch_shape)
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        super(FisherSnedecor, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        df2 = _tp.where(self.df2 <= 2, math.nan, self.df2)
        return df2 / (df2 - 2)

    @property
    def mode(self):
        m = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return _tp.where(self.df1 <= 2, math.nan, m)

    @property
    def variance(self):
        df2 = _tp.where(self.df2 <= 4, math.nan, self.df2)
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        # Gamma(df/2, rate=df) is chi2(df) / (2 df); the factors of 2 cancel in the ratio
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = float(_finfo(x2.dtype).tiny)
        return (x1 / x2.clamp(min=tiny)).clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a = self.df1 * 0.5
        b = self.df2 * 0.5
        r = self.df1 / self.df2
        t1 = (a + b).lgamma() - a.lgamma() - b.lgamma()
        t2 = a * r.log() + (a - 1) * _tp.log(value)
        t3 = (a + b) * _tp.log1p(r * value)
        return t1 + t2 - t3
