"""Stochastic gradient descent, with momentum (optionally Nesterov's), dampening,
L2 weight decay and maximization: PyTorch's ``torch.optim.SGD``."""
import numpy as np

from .._tensor import _wrap
from .optimizer import (_algorithm_step,
                        _numbers, Optimizer, _check_lr, _closure_loss, _check_nonneg, _grad_for_update,
                        _no_differentiable)

__all__ = ["SGD"]


class SGD(Optimizer):
    """``p -= lr * g`` where ``g`` is the gradient (plus ``weight_decay * p``),
    through a momentum buffer ``b = momentum * b + (1 - dampening) * g`` when
    ``momentum`` is set (``g + momentum * b`` with ``nesterov``).

        >>> import tensorplay as tp
        >>> w = tp.nn.Parameter(tp.tensor([1.0]))
        >>> opt = tp.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (w ** 2).sum().backward()
        ...     opt.step()
        >>> round(w.item(), 4)
        0.46
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        _check_lr(lr, nan_ok=True)
        _check_nonneg(momentum, "momentum")
        _check_nonneg(weight_decay, "weight_decay")
        _no_differentiable(differentiable)
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach,
                        differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)

    @_algorithm_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in map(_numbers, self.param_groups):
            lr = group["lr"]
            momentum, dampening = group["momentum"], group["dampening"]
            nesterov, wd, maximize = group["nesterov"], group["weight_decay"], group["maximize"]
            for p, g in self._with_grad(group):
                d = p._data
                g = _grad_for_update(g, d, maximize, wd)
                if momentum != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        state["momentum_buffer"] = buf = _wrap(np.array(g, copy=True))
                        b = buf._data
                    else:
                        b = buf._data
                        b *= momentum
                        b += (1 - dampening) * g if dampening else g
                    g = g + momentum * b if nesterov else b
                d -= lr * g
                p._bump()
        return loss
