"""The LKJ distribution over Cholesky factors of correlation matrices
(``torch.distributions.LKJCholesky``)."""
import math

from . import _tp
from . import constraints
from .beta import Beta
from .constraints import _finfo
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJ(concentration) over the lower Cholesky factors of ``dim x dim`` correlation
    matrices; sampled by the onion method (a Beta-distributed squared norm per row and a
    uniform direction)."""
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        marginal = self.concentration + 0.5 * (dim - 2)
        offset = _tp.arange(dim - 1, dtype=self.concentration.dtype)
        offset = _tp.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(batch_shape, _tp.Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = _tp.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(_tp.Size(tuple(batch_shape) + (self.dim,)))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        with _tp.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u = _tp.randn(tuple(self._extended_shape(sample_shape)), dtype=y.dtype).tril(-1)
            u = u / u.norm(dim=-1, keepdim=True)
            # the first row is (1, 0, ..., 0): its direction is not used
            first = _tp.arange(self.dim).view(-1, 1) == 0
            u = _tp.where(first, 0.0, u)
            w = _tp.sqrt(y) * u
            diag = _tp.clamp(1 - _tp.sum(w ** 2, dim=-1), min=float(_finfo(w.dtype).tiny)).sqrt()
            return w + _tp.diag_embed(diag)

    def log_prob(self, value):
        """Unnormalized: sum_i (dim - i + 2 (eta - 1)) log L_ii over i = 2..dim; minus the
        log normalizer from the multivariate gamma function."""
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = _tp.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnorm = _tp.sum(order * diag.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        norm = 0.5 * dm1 * math.log(math.pi) + _tp.mvlgamma(alpha - 0.5, dm1) - _tp.lgamma(alpha) * dm1
        return unnorm - norm
