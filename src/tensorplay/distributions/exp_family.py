"""``ExponentialFamily``: distributions of the form
``p(x; theta) = exp(<t(x), theta> - F(theta) + k(x))``."""
from ..autograd import grad as _grad
from . import _tp
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """An exponential-family distribution: with its natural parameters
    (``_natural_params``), log normalizer ``F`` (``_log_normalizer``) and carrier
    measure ``k`` (``_mean_carrier_measure``, its expectation), the entropy is
    the Bregman divergence of ``F`` computed with autograd."""

    @property
    def _natural_params(self):
        """The natural parameters, a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """The log normalizer ``F`` as a function of the natural parameters."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """The expected carrier measure ``E[k(x)]``."""
        raise NotImplementedError

    def entropy(self):
        """``F(theta) - <theta, grad F(theta)> - E[k(x)]``, with ``grad F`` from
        autograd (differentiable again)."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        with _tp.enable_grad():
            lg_normal = self._log_normalizer(*nparams)
            gradients = _grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np_, g in zip(nparams, gradients):
            result = result - (np_ * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
