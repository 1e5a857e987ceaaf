"""Adam's variants: PyTorch's ``torch.optim.Adamax`` (infinity norm), ``NAdam``
(Nesterov momentum with a decaying schedule) and ``RAdam`` (rectified
variance).  Each follows PyTorch's single-tensor algorithm step by step, in
the same order of operations, so that float64 runs agree to rounding."""
import numpy as np

from .._tensor import _wrap
from .optimizer import (_algorithm_step,
                        _numbers, Optimizer, _bump_step, _check_lr, _check_nonneg, _closure_loss,
                        _grad_for_update, _lerp_, _no_differentiable, _real, _scalar,
                        _scalar_dtype, _step_tensor)

__all__ = ["Adamax", "NAdam", "RAdam"]


def _check_betas(betas):
    for i in (0, 1):
        if not 0.0 <= _scalar(betas[i]) < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")


def _decayed_grad(g, d, group):
    """The gradient a step uses, after weight decay: decoupled (the parameter
    shrinks by ``1 - lr * wd`` first) or L2 (``wd * p`` added to the gradient)."""
    wd = group["weight_decay"]
    if wd != 0 and group.get("decoupled_weight_decay"):
        d *= 1 - group["lr"] * wd
        return _grad_for_update(g, d, group["maximize"], 0)
    return _grad_for_update(g, d, group["maximize"], wd)


class _AdamLike(Optimizer):
    """What the three share: the checks of ``lr``, ``betas``, ``eps`` and
    ``weight_decay``, and a step that keeps a ``step`` count and the zeroed
    buffers ``_buffers`` per parameter, applies weight decay and ``maximize``,
    sees complex tensors as real pairs and leaves the rest to ``_update``."""
    _buffers = ("exp_avg", "exp_avg_sq")

    def __init__(self, params, lr, betas, eps, weight_decay, differentiable, **defaults):
        _check_lr(lr)
        _check_nonneg(eps, "epsilon")
        _check_betas(betas)
        _check_nonneg(weight_decay, "weight_decay")
        _no_differentiable(differentiable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      differentiable=differentiable, **defaults))

    def _init_state(self, state):
        """Per-parameter state besides ``step`` and the buffers."""

    @_algorithm_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in map(_numbers, self.param_groups):
            for p, g in self._with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    self._init_state(state)
                    for k in self._buffers:
                        state[k] = _wrap(np.zeros_like(p._data))
                step = _bump_step(state)
                d = p._data
                g = _decayed_grad(g, d, group)
                self._update(group, state, step, _real(d), _real(g),
                             *(_real(state[k]._data) for k in self._buffers))
                p._bump()
        return loss


class Adamax(_AdamLike):
    """Adam with the infinity norm: ``u = max(beta2 * u, |g| + eps)`` and
    ``p -= lr / (1 - beta1^t) * m / u``."""
    _buffers = ("exp_avg", "exp_inf")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None,
                 *, maximize=False, differentiable=False, capturable=False):
        super().__init__(params, lr, betas, eps, weight_decay, differentiable, foreach=foreach,
                         maximize=maximize, capturable=capturable)

    @staticmethod
    def _update(group, state, step, d, g, m, u):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        _lerp_(m, g, 1 - beta1)
        u *= beta2
        np.maximum(u, np.abs(g) + eps, out=u)
        d += (m * (-lr / (1 - beta1 ** step))) / u      # (addcdiv's order: value * m, then / u)


class NAdam(_AdamLike):
    """Adam with Nesterov momentum whose coefficient follows the schedule
    ``mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay))``."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_nonneg(momentum_decay, "momentum_decay")
        super().__init__(params, lr, betas, eps, weight_decay, differentiable,
                         momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                         maximize=maximize, foreach=foreach, capturable=capturable)

    def _init_state(self, state):
        state["mu_product"] = _wrap(np.ones((), _scalar_dtype()))   # (as PyTorch's)

    @staticmethod
    def _update(group, state, step, d, g, m, v):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        decay = group["momentum_decay"]
        bias_correction2 = 1 - beta2 ** step
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * decay)))
        mp = state["mu_product"]._data
        mp *= mp.dtype.type(mu)
        mu_product = float(mp)
        _lerp_(m, g, 1 - beta1)
        v *= beta2
        v += g * g * (1 - beta2)
        denom = np.sqrt(v / bias_correction2)
        denom += eps
        d += (g * (-lr * (1.0 - mu) / (1.0 - mu_product))) / denom
        d += (m * ((-lr * mu_next) / (1.0 - mu_product * mu_next))) / denom


class RAdam(_AdamLike):
    """Adam whose adaptive step is switched on (and scaled) only once the
    variance of its estimate is tractable (``rho_t > 5``); plain momentum SGD
    with bias correction before."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        super().__init__(params, lr, betas, eps, weight_decay, differentiable, maximize=maximize,
                         foreach=foreach, capturable=capturable,
                         decoupled_weight_decay=decoupled_weight_decay)

    @staticmethod
    def _update(group, state, step, d, g, m, v):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        _lerp_(m, g, 1 - beta1)
        v *= beta2
        v += g * g * (1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        corrected = m / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            d -= corrected * lr * ((bias_correction2 ** 0.5) / (np.sqrt(v) + eps)) * rect
        else:
            d -= corrected * lr
