"""The multivariate normal distribution (``torch.distributions.MultivariateNormal``)."""
import math

from . import _tp
from . import constraints
from .distribution import Distribution
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Matrix-vector products over broadcast batch dimensions."""
    return _tp.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """``|L^{-1} x|^2`` for lower-triangular ``L`` (batch ``bL.shape[:-2]``) and vectors
    ``x`` whose batch shape ends with (a broadcast of) ``L``'s."""
    n = bx.shape[-1]
    batch = _tp.broadcast_shapes(tuple(bL.shape[:-2]), tuple(bx.shape[:-1]))
    L = bL.expand(tuple(batch) + (n, n))
    x = bx.expand(tuple(batch) + (n,))
    z = _tp.linalg.solve_triangular(L, x.unsqueeze(-1), upper=False).squeeze(-1)
    return z.pow(2).sum(-1)


def _cholesky_inverse(L):
    """``(L L^T)^{-1}`` from the lower Cholesky factor ``L``."""
    eye = _tp.eye(L.shape[-1], dtype=L.dtype).expand(tuple(L.shape))
    Linv = _tp.linalg.solve_triangular(L, eye, upper=False)
    return Linv.mT @ Linv


def _precision_to_scale_tril(P):
    """Lower Cholesky factor of ``P^{-1}`` without inverting ``P``: with the flip ``J``,
    ``J P J = Lf Lf^T`` gives ``P = U U^T`` with ``U = J Lf J`` upper triangular, so
    ``P^{-1} = (U^{-T})(U^{-T})^T`` and ``U^{-T}`` is lower triangular."""
    Lf = _tp.linalg.cholesky(_tp.flip(P, (-2, -1)))
    Linv = _tp.flip(Lf, (-2, -1)).mT          # = U^T, lower triangular
    eye = _tp.eye(P.shape[-1], dtype=P.dtype).expand(tuple(Linv.shape))
    return _tp.linalg.solve_triangular(Linv, eye, upper=False)


class MultivariateNormal(Distribution):
    """Normal distribution over vectors, parameterized by a mean ``loc`` and exactly one
    of ``covariance_matrix``, ``precision_matrix`` or ``scale_tril`` (the lower Cholesky
    factor of the covariance)."""
    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril "
                             "may be specified.")
        lead = tuple(loc.shape[:-1])
        if scale_tril is not None:
            if scale_tril.dim() < 2:
                raise ValueError("scale_tril matrix must be at least two-dimensional, with "
                                 "optional leading batch dimensions")
            batch_shape = _tp.broadcast_shapes(tuple(scale_tril.shape[:-2]), lead)
            self.scale_tril = scale_tril.expand(tuple(batch_shape) + (-1, -1))
        elif covariance_matrix is not None:
            if covariance_matrix.dim() < 2:
                raise ValueError("covariance_matrix must be at least two-dimensional, with "
                                 "optional leading batch dimensions")
            batch_shape = _tp.broadcast_shapes(tuple(covariance_matrix.shape[:-2]), lead)
            self.covariance_matrix = covariance_matrix.expand(tuple(batch_shape) + (-1, -1))
        else:
            if precision_matrix.dim() < 2:
                raise ValueError("precision_matrix must be at least two-dimensional, with "
                                 "optional leading batch dimensions")
            batch_shape = _tp.broadcast_shapes(tuple(precision_matrix.shape[:-2]), lead)
            self.precision_matrix = precision_matrix.expand(tuple(batch_shape) + (-1, -1))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, tuple(self.loc.shape[-1:]), validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = _tp.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = _tp.Size(batch_shape)
        vec = tuple(batch_shape) + tuple(self.event_shape)
        mat = vec + tuple(self.event_shape)
        new.loc = self.loc.expand(vec)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(mat))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _mat_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._mat_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return _tp.matmul(L, L.mT).expand(self._mat_shape())

    @lazy_property
    def precision_matrix(self):
        return _cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._mat_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        m = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) - self._half_log_det()

    def entropy(self):
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        if len(self._batch_shape) == 0:
            return h
        return h.expand(self._batch_shape)
