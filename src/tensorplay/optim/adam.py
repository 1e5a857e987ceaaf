"""Adam and AdamW (with AMSGrad): PyTorch's ``torch.optim.Adam`` / ``AdamW``."""
import numpy as np

from .._tensor import Tensor, _wrap
from .optimizer import (_algorithm_step,
                        _numbers, Optimizer, _bump_step, _check_lr, _check_nonneg, _closure_loss,
                        _grad_for_update, _lerp_, _no_differentiable, _real, _scalar,
                        _step_tensor)

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam: running averages ``m`` of the gradient and ``v`` of its square,
    bias-corrected, and ``p -= lr * m_hat / (sqrt(v_hat) + eps)``.
    ``weight_decay`` is L2 (added to the gradient) unless
    ``decoupled_weight_decay`` (then it is AdamW's ``p *= 1 - lr * wd``);
    ``amsgrad`` divides by the running maximum of ``v`` instead."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_lr(lr)
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        _check_nonneg(eps, "epsilon")
        if not 0.0 <= _scalar(betas[0]) < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= _scalar(betas[1]) < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        _check_nonneg(weight_decay, "weight_decay")
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)
                or isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor)):
            raise ValueError("betas must be either both floats or both Tensors")
        _no_differentiable(differentiable)
        defaults = dict(lr=lr, betas=tuple(_scalar(b) for b in betas), eps=eps,
                        weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable,
                        fused=fused, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for k in ("amsgrad", "maximize", "decoupled_weight_decay"):
                group.setdefault(k, False)

    @_algorithm_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in map(_numbers, self.param_groups):
            lr = group["lr"]
            beta1, beta2 = group["betas"]
            eps, wd, amsgrad = group["eps"], group["weight_decay"], group["amsgrad"]
            decoupled = group["decoupled_weight_decay"]
            for p, g in self._with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["exp_avg"] = _wrap(np.zeros_like(p._data))
                    state["exp_avg_sq"] = _wrap(np.zeros_like(p._data))
                    if amsgrad:
                        state["max_exp_avg_sq"] = _wrap(np.zeros_like(p._data))
                step = _bump_step(state)
                d = p._data
                if wd != 0 and decoupled:
                    d *= 1 - lr * wd
                    g = _grad_for_update(g, d, group["maximize"], 0)
                else:
                    g = _grad_for_update(g, d, group["maximize"], wd)
                d, g = _real(d), _real(g)
                m, v = _real(state["exp_avg"]._data), _real(state["exp_avg_sq"]._data)
                _lerp_(m, g, 1 - beta1)
                v *= beta2
                t = g * (1 - beta2)
                t *= g
                v += t
                step_size = lr / (1 - beta1 ** step)
                bc2_sqrt = (1 - beta2 ** step) ** 0.5
                if amsgrad:
                    vmax = _real(state["max_exp_avg_sq"]._data)
                    np.maximum(vmax, v, out=vmax)
                    v = vmax
                denom = np.sqrt(v)
                denom /= bc2_sqrt
                denom += eps
                np.multiply(m, -step_size, out=t)
                t /= denom
                d += t
                p._bump()
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay (``p *= 1 - lr * weight_decay`` before
    the update), ``weight_decay=1e-2`` by default."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
