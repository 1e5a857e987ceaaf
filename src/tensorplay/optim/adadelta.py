"""Adadelta: PyTorch's ``torch.optim.Adadelta``."""
import numpy as np

from .._tensor import _wrap
from .optimizer import (_algorithm_step,
                        _numbers, Optimizer, _bump_step, _check_lr, _check_nonneg, _closure_loss,
                        _grad_for_update, _no_differentiable, _real, _step_tensor)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Scale each step by the ratio of running RMS values of past updates and of
    gradients: ``delta = sqrt(u + eps) / sqrt(v + eps) * g``, ``p -= lr * delta``."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_nonneg(eps, "epsilon")
        _check_nonneg(weight_decay, "weight_decay")
        _no_differentiable(differentiable)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    @_algorithm_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in map(_numbers, self.param_groups):
            lr = group["lr"]
            rho, eps = group["rho"], group["eps"]
            for p, g in self._with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["square_avg"] = _wrap(np.zeros_like(p._data))
                    state["acc_delta"] = _wrap(np.zeros_like(p._data))
                _bump_step(state)
                d = p._data
                g = _real(_grad_for_update(g, d, group["maximize"], group["weight_decay"]))
                d = _real(d)
                v, u = _real(state["square_avg"]._data), _real(state["acc_delta"]._data)
                v *= rho
                t = g * (1 - rho)
                t *= g
                v += t
                std = np.add(v, eps)
                np.sqrt(std, out=std)
                delta = np.add(u, eps, out=t)
                np.sqrt(delta, out=delta)
                delta /= std
                delta *= g
                u *= rho
                np.multiply(delta, 1 - rho, out=std)
                std *= delta
                u += std
                d -= lr * delta
                p._bump()
        return loss
