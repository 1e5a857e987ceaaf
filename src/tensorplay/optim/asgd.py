"""ASGD (averaged stochastic gradient descent): PyTorch's ``torch.optim.ASGD``."""
import numpy as np

from .._tensor import _wrap
from .optimizer import (_algorithm_step,
                        _numbers, Optimizer, _bump_step, _check_lr, _check_nonneg, _closure_loss,
                        _grad_for_update, _no_differentiable, _real, _scalar, _scalar_dtype,
                        _step_tensor)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """SGD with a decaying step ``eta = lr / (1 + lambd * lr * step) ** alpha`` and
    a shrink of the parameter by ``1 - lambd * eta`` each step, keeping in
    ``state["ax"]`` the running average of the parameters from step ``t0`` on
    (weight ``mu = 1 / max(1, step - t0)``).  ``eta`` and ``mu`` are float32
    scalar tensors, as PyTorch keeps them."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        _check_nonneg(weight_decay, "weight_decay")
        _no_differentiable(differentiable)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    @_algorithm_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in map(_numbers, self.param_groups):
            lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
            for p, g in self._with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["eta"] = _wrap(np.asarray(_scalar(group["lr"]), _scalar_dtype()))
                    state["mu"] = _wrap(np.ones((), _scalar_dtype()))
                    state["ax"] = _wrap(np.zeros_like(p._data))
                step = _bump_step(state)
                d = p._data
                g = _real(_grad_for_update(g, d, group["maximize"], group["weight_decay"]))
                d = _real(d)
                eta = float(state["eta"]._data)
                d *= 1 - lambd * eta                    # the decay term
                d += g * -eta
                ax = _real(state["ax"]._data)
                mu = float(state["mu"]._data)
                if mu != 1:
                    ax += (d - ax) * mu
                else:
                    ax[...] = d
                state["eta"]._data[...] = lr / ((1 + lambd * lr * step) ** alpha)
                state["mu"]._data[...] = 1 / max(1, step - t0)
                p._bump()
        return loss
