"""The Wishart distribution over positive-definite matrices (``torch.distributions.Wishart``)."""
import math
import numbers
import warnings

from . import _tp
from . import constraints
from .chi2 import Chi2
from .constraints import _finfo
from .exp_family import ExponentialFamily
from .multivariate_normal import _precision_to_scale_tril
from .utils import lazy_property, vec_to_tril_matrix

__all__ = ["Wishart"]

_log_2 = math.log(2)


def _mvdigamma(x, p):
    """The multivariate digamma function: sum_{i<p} digamma(x - i/2)."""
    if not bool(x.gt((p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    half = _tp.arange(p, dtype=x.dtype).div(2)
    return _tp.digamma(x.unsqueeze(-1) - half.expand(tuple(x.shape) + (-1,))).sum(-1)


def _clamp_above_eps(x):
    return x.clamp(min=float(_finfo(x.dtype).eps))


def _cholesky_solve(b, L):
    """``(L L^T)^{-1} b`` for lower-triangular ``L``."""
    z = _tp.linalg.solve_triangular(L, b, upper=False)
    return _tp.linalg.solve_triangular(L.mT, z, upper=True)


class Wishart(ExponentialFamily):
    """Wishart distribution with ``df`` degrees of freedom and scale matrix given by
    exactly one of ``covariance_matrix``, ``precision_matrix`` or ``scale_tril``."""
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        param = next(p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None)
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading "
                             "batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = _tp.Size(tuple(param.shape[:-2]))
            self.df = _tp.tensor(df, dtype=param.dtype)
        else:
            batch_shape = _tp.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape))
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        p = event_shape[-1]
        if bool(self.df.le(p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        full = tuple(batch_shape) + (-1, -1)
        if scale_tril is not None:
            self.scale_tril = param.expand(full)
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(full)
        else:
            self.precision_matrix = param.expand(full)
        if bool(self.df.lt(p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur "
                          "for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(i + 1) for i in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = _tp.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        # the i-th diagonal entry of the Bartlett factor is sqrt(chi2(df - i))
        steps = _tp.arange(p, dtype=self._unbroadcasted_scale_tril.dtype)
        self._dist_chi2 = Chi2(df=self.df.unsqueeze(-1) - steps.expand(tuple(batch_shape) + (-1,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = _tp.Size(batch_shape)
        cov_shape = tuple(batch_shape) + tuple(self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(i + 1) for i in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        steps = _tp.arange(self.event_shape[-1], dtype=new._unbroadcasted_scale_tril.dtype)
        new._dist_chi2 = Chi2(df=new.df.unsqueeze(-1) - steps.expand(tuple(batch_shape) + (-1,)))
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _full(self):
        return tuple(self._batch_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._full())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(self._full())

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        eye = _tp.eye(self._event_shape[-1], dtype=L.dtype).expand(tuple(L.shape))
        return _cholesky_solve(eye, L).expand(self._full())

    @property
    def mean(self):
        return self.df.view(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = _tp.where(factor <= 0, math.nan, factor)
        return factor.view(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        d = V.diagonal(dim1=-2, dim2=-1)
        # Var(S_ij) = df (V_ij^2 + V_ii V_jj)
        return self.df.view(tuple(self._batch_shape) + (1, 1)) * (V.pow(2)
                                                                   + d.unsqueeze(-1) * d.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape=()):
        """``L A A^T L^T`` with ``A`` lower triangular: sqrt(chi2) on the diagonal,
        standard normals below."""
        p = self._event_shape[-1]
        sample_shape = tuple(sample_shape)
        diag = _clamp_above_eps(self._dist_chi2.rsample(sample_shape).sqrt())
        lead = sample_shape + tuple(self._batch_shape)
        normals = _tp.randn(lead + (p * (p - 1) // 2,), dtype=diag.dtype)
        A = vec_to_tril_matrix(normals, diag=-1) + diag.diag_embed(dim1=-2, dim2=-1)
        chol = self._unbroadcasted_scale_tril @ A
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=(), max_try_correction=None):
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = tuple(sample_shape)
        sample = self._bartlett_sampling(sample_shape)

        def singular(s):
            bad = ~self.support.check(s)
            if self._batch_shape:
                bad = bad.amax(self._batch_dims)
            return bad
        bad = singular(sample)
        if bool(bad.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                fresh = self._bartlett_sampling(sample_shape)
                mask = bad.reshape(tuple(bad.shape) + (1,) * (sample.dim() - bad.dim()))
                sample = _tp.where(mask, fresh, sample)
                bad = singular(sample)
                if not bool(bad.any()):
                    break
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        half_log_det = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = _cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(dim=-1)
        return (-nu * (p * _log_2 / 2 + half_log_det) - _tp.mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * _tp.linalg.slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * _log_2 / 2 + half_log_det) + _tp.mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2)

    @property
    def _natural_params(self):
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return ((y + (p + 1) / 2) * (-_tp.linalg.slogdet(-2 * x).logabsdet + _log_2 * p)
                + _tp.mvlgamma(y + (p + 1) / 2, p=p))
