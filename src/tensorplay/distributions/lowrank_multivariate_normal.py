"""The normal distribution with a low-rank-plus-diagonal covariance
(``torch.distributions.LowRankMultivariateNormal``)."""
import math

from . import _tp
from . import constraints
from .distribution import Distribution
from .multivariate_normal import _batch_mahalanobis, _batch_mv
from .utils import _standard_normal, lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _plus_identity(K):
    return K + _tp.eye(K.shape[-1], dtype=K.dtype)


def _batch_capacitance_tril(W, D):
    """Cholesky factor of the capacitance ``I + W^T D^{-1} W`` (m x m)."""
    return _tp.linalg.cholesky(_plus_identity(_tp.matmul(W.mT / D.unsqueeze(-2), W)))


def _batch_lowrank_logdet(W, D, capacitance_tril):
    """``log det(W W^T + D)`` by the matrix determinant lemma."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    """``x^T (W W^T + D)^{-1} x`` by the Woodbury identity."""
    WtDinv_x = _batch_mv(W.mT / D.unsqueeze(-2), x)
    return (x.pow(2) / D).sum(-1) - _batch_mahalanobis(capacitance_tril, WtDinv_x)


class LowRankMultivariateNormal(Distribution):
    """Multivariate normal with covariance ``cov_factor @ cov_factor.mT + diag(cov_diag)``."""
    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = _tp.Size(tuple(loc.shape[-1:]))
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading "
                             "batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != tuple(event_shape):
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != tuple(event_shape):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, diag_ = _tp.broadcast_tensors(loc.unsqueeze(-1), cov_factor,
                                                                 cov_diag.unsqueeze(-1))
        except (RuntimeError, ValueError) as e:     # (tensorplay's broadcast_tensors: ValueError)
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from e
        self.loc = loc_[..., 0]
        self.cov_diag = diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = _tp.Size(batch_shape)
        vec = tuple(batch_shape) + tuple(self.event_shape)
        new.loc = self.loc.expand(vec)
        new.cov_diag = self.cov_diag.expand(vec)
        new.cov_factor = self.cov_factor.expand(vec + tuple(self.cov_factor.shape[-1:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        super(LowRankMultivariateNormal, new).__init__(batch_shape, self.event_shape,
                                                       validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _mat_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def scale_tril(self):
        # W W^T + D = D^{1/2} (I + D^{-1/2} W W^T D^{-1/2}) D^{1/2}
        sd = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        A = self._unbroadcasted_cov_factor / sd
        return (sd * _tp.linalg.cholesky(_plus_identity(_tp.matmul(A, A.mT)))).expand(self._mat_shape())

    @lazy_property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        return (_tp.matmul(W, W.mT) + _tp.diag_embed(self._unbroadcasted_cov_diag)).expand(
            self._mat_shape())

    @lazy_property
    def precision_matrix(self):
        # Woodbury: D^{-1} - D^{-1} W C^{-1} W^T D^{-1}
        WtDinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = _tp.linalg.solve_triangular(self._capacitance_tril, WtDinv, upper=False)
        return (_tp.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.mT @ A).expand(
            self._mat_shape())

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        eps_w = _standard_normal(shape[:-1] + tuple(self.cov_factor.shape[-1:]), dtype=self.loc.dtype)
        eps_d = _standard_normal(shape, dtype=self.loc.dtype)
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_w)
                + self._unbroadcasted_cov_diag.sqrt() * eps_d)

    def _log_det(self):
        return _batch_lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                     self._capacitance_tril)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        m = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                       value - self.loc, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det() + m)

    def entropy(self):
        h = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        if len(self._batch_shape) == 0:
            return h
        return h.expand(self._batch_shape)
