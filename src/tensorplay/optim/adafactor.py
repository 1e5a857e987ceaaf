"""Adafactor: PyTorch's ``torch.optim.Adafactor``."""
import numpy as np

from .. import _dtype as _D

from .._tensor import Tensor, _wrap
from .optimizer import (_algorithm_step,
                        Optimizer, _bump_step, _closure_loss, _numbers, _real, _scalar, _step_tensor)

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Adam-like steps with a factored second moment: for a matrix (or a batch
    of them) only its row and column mean squares are kept, their outer product
    over the mean row estimate standing in for the full one; a vector keeps its
    own.  The second-moment rate is ``1 - step ** beta2_decay``, the step size
    ``max(eps2, rms(param)) * min(lr, 1 / sqrt(step))``, and an update whose
    RMS exceeds ``d`` is scaled down to it.  Weight decay is decoupled."""

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= _scalar(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)

    def _init_state(self, p, g):
        state = self.state[p]
        state["step"] = _step_tensor()
        if g.ndim > 1:
            state["row_var"] = _wrap(np.zeros(g.shape[:-1] + (1,), g.dtype))
            state["col_var"] = _wrap(np.zeros(g.shape[:-2] + (1,) + g.shape[-1:], g.dtype))
        else:
            state["variance"] = _wrap(np.zeros_like(g))

    @_algorithm_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in map(_numbers, self.param_groups):
            lr, beta2_decay, d_clip, wd = group["lr"], group["beta2_decay"], group["d"], group["weight_decay"]
            eps1, eps2 = group["eps"]
            for p, g in self._with_grad(group):
                if p.is_complex():
                    raise RuntimeError("Adafactor does not support complex parameters")
                state = self.state[p]
                if len(state) == 0:
                    self._init_state(p, g)
                data = _real(p._data)
                if group["maximize"]:
                    g = np.negative(g)
                e1 = _D.float_eps(data.dtype) if eps1 is None else eps1
                step = _bump_step(state)
                rate = step ** beta2_decay                 # (1 - beta2 at this step)
                rho = min(lr, 1 / step ** 0.5)
                alpha = max(eps2, float(np.linalg.norm(data.ravel())) / data.size ** 0.5) * rho
                if wd != 0:
                    data *= 1 - lr * wd
                if g.ndim > 1:
                    row, col = state["row_var"]._data, state["col_var"]._data
                    row += (np.mean(g * g, axis=-1, keepdims=True) - row) * rate
                    col += (np.mean(g * g, axis=-2, keepdims=True) - col) * rate
                    var = np.matmul(row, col)
                    var /= np.maximum(np.mean(row, axis=-2, keepdims=True), e1)
                else:
                    v = state["variance"]._data
                    v += (g * g - v) * rate
                    var = v.copy()
                update = 1 / np.sqrt(np.maximum(var, e1 * e1))
                update *= g
                denom = max(1.0, float(np.linalg.norm(update.ravel())) / (update.size ** 0.5 * d_clip))
                data += update * (-alpha / denom)
                p._bump()
        return loss
