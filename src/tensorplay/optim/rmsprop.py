"""RMSprop (optionally centered, with momentum): PyTorch's ``torch.optim.RMSprop``."""
import numpy as np

from .._tensor import _wrap
from .optimizer import (_algorithm_step,
                        _numbers, Optimizer, _bump_step, _check_lr, _check_nonneg, _closure_loss,
                        _grad_for_update, _lerp_, _no_differentiable, _real,
                        _step_tensor)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Divide the gradient by a running root mean square ``sqrt(v) + eps``, with
    ``v = alpha * v + (1 - alpha) * g**2`` (minus the squared running mean of
    ``g`` when ``centered``), through a momentum buffer when ``momentum > 0``."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_lr(lr)
        _check_nonneg(eps, "epsilon")
        _check_nonneg(momentum, "momentum")
        _check_nonneg(weight_decay, "weight_decay")
        _check_nonneg(alpha, "alpha")
        _no_differentiable(differentiable)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    @_algorithm_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in map(_numbers, self.param_groups):
            lr = group["lr"]
            alpha, eps, momentum = group["alpha"], group["eps"], group["momentum"]
            centered = group["centered"]
            for p, g in self._with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["square_avg"] = _wrap(np.zeros_like(p._data))
                    if momentum > 0:
                        state["momentum_buffer"] = _wrap(np.zeros_like(p._data))
                    if centered:
                        state["grad_avg"] = _wrap(np.zeros_like(p._data))
                _bump_step(state)
                d = p._data
                g = _real(_grad_for_update(g, d, group["maximize"], group["weight_decay"]))
                d = _real(d)
                v = _real(state["square_avg"]._data)
                v *= alpha
                t = g * (1 - alpha)
                t *= g
                v += t
                if centered:
                    ga = _real(state["grad_avg"]._data)
                    _lerp_(ga, g, 1 - alpha)
                    np.multiply(ga, -1.0, out=t)
                    t *= ga
                    avg = np.add(v, t, out=t)
                    np.sqrt(avg, out=avg)
                else:
                    avg = np.sqrt(v, out=t)
                avg += eps
                if momentum > 0:
                    b = _real(state["momentum_buffer"]._data)
                    b *= momentum
                    b += np.divide(g, avg, out=avg)
                    d -= lr * b
                else:
                    u = np.multiply(g, -lr)
                    u /= avg
                    d += u
                p._bump()
        return loss
