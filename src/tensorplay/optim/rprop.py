"""Rprop (resilient backpropagation): PyTorch's ``torch.optim.Rprop``."""
import numpy as np

from .._tensor import _wrap
from .optimizer import (_algorithm_step,
                        _numbers, Optimizer, _bump_step, _check_lr, _closure_loss, _no_differentiable,
                        _real, _scalar, _step_tensor)

__all__ = ["Rprop"]


def _sign(a):
    """PyTorch's sign: 0 for NaN (NumPy's is NaN), so a NaN gradient moves
    nothing and leaves the step sizes as they are."""
    s = np.sign(a)
    s[np.isnan(s)] = 0
    return s


class Rprop(Optimizer):
    """Each element moves by its own step size against the sign of its gradient;
    the step size grows by ``etas[1]`` while the gradient keeps its sign, shrinks
    by ``etas[0]`` when it flips (and that step is skipped), within
    ``step_sizes``.  Complex parameters: the real and imaginary parts apart."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False,
                 foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _no_differentiable(differentiable)
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    @_algorithm_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in map(_numbers, self.param_groups):
            etaminus, etaplus = group["etas"]
            lo, hi = group["step_sizes"]
            for p, g in self._with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    lr = _scalar(group["lr"])
                    state["step"] = _step_tensor()
                    state["prev"] = _wrap(np.zeros_like(p._data))
                    state["step_size"] = _wrap(np.full_like(g, complex(lr, lr) if p.is_complex() else lr))
                _bump_step(state)
                g = _real(np.negative(g) if group["maximize"] else g.copy())
                prev = _real(state["prev"]._data)
                size = _real(state["step_size"]._data)
                s = _sign(g * prev)
                factor = s.copy()
                factor[s > 0] = etaplus
                factor[s < 0] = etaminus
                factor[s == 0] = 1
                size *= factor
                np.clip(size, lo, hi, out=size)
                g[factor == etaminus] = 0       # a flipped sign: no step this time
                d = _real(p._data)
                d -= _sign(g) * size
                prev[...] = g
                p._bump()
        return loss
