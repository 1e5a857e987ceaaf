"""Muon: PyTorch's ``torch.optim.Muon`` (momentum, then the update orthogonalized
by a Newton-Schulz iteration, for the 2-d parameters of hidden layers).

The step follows PyTorch's single-tensor implementation operation by
operation: the momentum buffer ``lerp``\\ s towards the gradient, the Nesterov
update ``grad.lerp(buf, momentum)``, the quintic Newton-Schulz iteration in
bfloat16 (each product accumulated in float32 and rounded to bfloat16 once,
``addmm``'s ``beta * C + alpha * A @ B`` likewise), decoupled weight decay and
the learning rate scaled for the matrix's shape.  On small matrices the
orthogonalized update is PyTorch's bit for bit; on large ones the two differ
by a bfloat16 rounding where their float32 sums run in another order.
"""
import math

import numpy as np
from ml_dtypes import bfloat16 as _bf16

from .._tensor import Tensor, _wrap
from .optimizer import _algorithm_step, Optimizer, _closure_loss, _numbers, _scalar
from .swa_utils import _fma

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5

_f32 = np.float32


def _zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """The quintic Newton-Schulz iteration towards ``U V^T`` (``grad = U S V^T``),
    on a NumPy matrix, in bfloat16 as PyTorch runs it; returns a bfloat16 array.
    Its coefficients maximize the slope at zero, so the singular values land
    near 1 (roughly in [0.5, 1.5]) rather than on it."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = (_f32(v) for v in ns_coefficients)
    tall = grad.shape[0] > grad.shape[1]
    x = grad.astype(_bf16)
    if tall:
        x = x.T
    x32 = x.astype(_f32)
    norm = np.sqrt(np.add.reduce(x32 * x32, axis=None, dtype=_f32)).astype(_bf16)
    norm = np.maximum(norm.astype(_f32), _f32(eps)).astype(_bf16)       # clamp(min=eps)
    x = (x32 / norm.astype(_f32)).astype(_bf16)
    for _ in range(ns_steps):
        x32 = x.astype(_f32)
        gram = (x32 @ x32.T).astype(_bf16).astype(_f32)
        gram_update = (b * gram + c * (gram @ gram)).astype(_bf16).astype(_f32)
        x = (a * x32 + gram_update @ x32).astype(_bf16)
    return x.T if tall else x


def _lerp_(a, b, w):
    """``a.lerp_(b, w)`` in place as PyTorch's CPU kernel computes it: ``a + w * (b - a)``
    for ``|w| < 0.5``, else ``b + (w - 1) * (b - a)``, with a fused multiply-add
    (float32 through float64, whose product is exact; float64 by ``_fma``)."""
    ct = np.result_type(a.dtype, np.float32)
    wc = ct.type(w)
    diff = b.astype(ct) - a.astype(ct)
    base, coeff = (a.astype(ct), wc) if abs(wc) < 0.5 else (b.astype(ct), wc - ct.type(1))
    if ct == np.float32:
        out = (base.astype(np.float64) + np.float64(coeff) * diff.astype(np.float64)).astype(ct)
    elif ct == np.float64:
        out = _fma(np.float64(coeff), diff, base)
    else:
        out = base + coeff * diff
    a[...] = out


def _adjust_lr(lr, adjust_lr_fn, param_shape):
    """The learning rate scaled so that updates of any shape have a like RMS:
    ``sqrt(max(1, A / B))`` ("original", Keller Jordan's) or ``0.2 * sqrt(max(A, B))``
    ("match_rms_adamw", Moonshot's, to reuse AdamW's learning rate)."""
    A, B = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        adjusted_ratio = math.sqrt(max(1, A / B))
    elif adjust_lr_fn == "match_rms_adamw":
        adjusted_ratio = 0.2 * math.sqrt(max(A, B))
    else:
        adjusted_ratio = 1.0
    return lr * adjusted_ratio


class Muon(Optimizer):
    """Muon for 2-d parameters (the weights of hidden layers; give biases,
    embeddings and the rest to AdamW or the like).  Per step, with gradient
    ``g`` and momentum buffer ``B`` (zeros at first):

    - ``B <- momentum * B + (1 - momentum) * g`` (``B.lerp_(g, 1 - momentum)``);
    - the update ``g.lerp(B, momentum)`` with ``nesterov``, else ``B``,
      orthogonalized by ``ns_steps`` Newton-Schulz iterations (coefficients
      ``ns_coefficients``, the matrix first divided by its norm, at least ``eps``);
    - ``p <- p * (1 - lr * weight_decay) - lr' * update``, ``lr'`` the learning
      rate adjusted for the shape ``(A, B)`` by ``adjust_lr_fn``.

        >>> import tensorplay as tp
        >>> w = tp.nn.Parameter(tp.eye(2))
        >>> opt = tp.optim.Muon([w], lr=0.1, weight_decay=0.0)
        >>> (w * tp.tensor([[1.0, 0.0], [0.0, -1.0]])).sum().backward()
        >>> opt.step()
        >>> w.detach().diagonal()
        tensor([0.8875, 1.1125])
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS, ns_steps=DEFAULT_NS_STEPS,
                 adjust_lr_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= _scalar(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum, "nesterov": nesterov,
                    "ns_coefficients": ns_coefficients, "eps": eps, "ns_steps": ns_steps,
                    "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter "
                                     f"with size: {p.size()}")

    @_algorithm_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in map(_numbers, self.param_groups):
            lr, weight_decay, momentum = group["lr"], group["weight_decay"], group["momentum"]
            work = []
            for p, g in self._with_grad(group):          # (PyTorch's _init_group)
                if p.is_complex():
                    raise RuntimeError("Muon does not support complex parameters")
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = _wrap(np.zeros_like(g))
                work.append((p, g, state["momentum_buffer"]))
            for p, g, buf in work:
                if g.ndim != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
                b = buf._data
                _lerp_(b, g, 1 - momentum)
                buf._bump()
                if group["nesterov"]:
                    update = np.array(g, copy=True)
                    _lerp_(update, b, momentum)
                else:
                    update = b
                update = _zeropower_via_newtonschulz(update, group["ns_coefficients"], group["ns_steps"],
                                                     group["eps"])
                adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], p.shape)
                d = p._data
                ct = np.result_type(d.dtype, np.float32)     # (a half parameter: in float32)
                new = d.astype(ct) * ct.type(1 - lr * weight_decay)
                # add_(update, alpha=-lr'): self + alpha * other with one rounding (an fma)
                if ct == np.float32:
                    new = (new.astype(np.float64) + np.float64(_f32(-adjusted_lr))
                           * update.astype(np.float64)).astype(ct)
                elif ct == np.float64:
                    new = _fma(np.float64(-adjusted_lr), update.astype(ct), new)
                else:
                    new += ct.type(-adjusted_lr) * update.astype(ct)
                d[...] = new
                p._bump()
        return loss
