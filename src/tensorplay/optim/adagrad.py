"""Adagrad: PyTorch's ``torch.optim.Adagrad``."""
import numpy as np

from .._tensor import _wrap
from .optimizer import (_algorithm_step,
                        _numbers, Optimizer, _bump_step, _check_lr, _check_nonneg, _closure_loss,
                        _grad_for_update, _no_differentiable, _real, _scalar, _step_tensor)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Divide the gradient by the root of the sum of all its squares so far
    (``sqrt(sum) + eps``), with the learning rate decayed as
    ``lr / (1 + (step - 1) * lr_decay)``.  The state is made at construction."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_lr(lr)
        _check_nonneg(lr_decay, "lr_decay")
        _check_nonneg(weight_decay, "weight_decay")
        _check_nonneg(initial_accumulator_value, "initial_accumulator_value")
        _check_nonneg(eps, "epsilon")
        _no_differentiable(differentiable)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group)

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = _step_tensor()
        v = _scalar(group["initial_accumulator_value"])
        state["sum"] = _wrap(np.full_like(p._data, complex(v, v) if p.is_complex() else v))

    @_algorithm_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in map(_numbers, self.param_groups):
            lr = group["lr"]
            lr_decay, eps = group["lr_decay"], group["eps"]
            for p, g in self._with_grad(group):
                state = self.state[p]
                if len(state) == 0:          # a parameter of a group added later
                    self._init_state(p, group)
                step = _bump_step(state)
                d = p._data
                g = _real(_grad_for_update(g, d, group["maximize"], group["weight_decay"]))
                d = _real(d)
                clr = lr / (1 + (step - 1) * lr_decay)
                s = _real(state["sum"]._data)
                t = g * g
                s += t
                std = np.sqrt(s, out=t)
                std += eps
                u = np.multiply(g, -clr)
                u /= std
                d += u
                p._bump()
        return loss
