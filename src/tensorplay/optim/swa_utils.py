"""Stochastic weight averaging and exponential moving averages of a model
(PyTorch's ``torch.optim.swa_utils``).

``AveragedModel`` keeps a copy of a model whose parameters (and, with
``use_buffers=True``, buffers) are a running average of the model's, updated
by ``update_parameters(model)``: by default the equal-weight (SWA) average,
or any rule given as ``avg_fn`` (one tensor at a time) or ``multi_avg_fn``
(lists of tensors); ``get_ema_*``/``get_swa_*`` make the two usual rules.
``SWALR`` anneals each group's learning rate to a constant ``swa_lr``;
``update_bn`` recomputes the batch norms' running statistics of a model
(the averaged one) over a data loader.

The arithmetic is PyTorch's on the CPU, in the same order: the default SWA
update is ``avg + (p - avg) / (n + 1)``; the ``multi_avg_fn`` rules are its
``lerp`` (``base + coeff * (p - avg)``, one rounding as in its fused
multiply-add).
"""
import itertools as _itertools
import math as _math
import warnings as _warnings
from copy import deepcopy as _deepcopy

import numpy as _np

from .. import _creation
from .. import _dtype as _D
from .._autograd.grad_mode import no_grad as _no_grad
from .._tensor import Tensor as _Tensor, _wrap
from ..nn.modules.module import Module as _Module
from ..nn.modules.normalization import _BatchNorm
from .lr_scheduler import LRScheduler, _per_group

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn", "LRScheduler"]   # (LRScheduler: importable here, as in PyTorch)


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def _zip_strict(a, b):
    """``zip(a, b, strict=True)`` (Python 3.10's), on Python 3.9 too."""
    a, b = list(a), list(b)
    if len(a) != len(b):
        raise ValueError(f"zip() argument 2 is {'shorter' if len(b) < len(a) else 'longer'} than "
                         f"argument 1")
    return zip(a, b)


def _is_float(t):
    return t.is_floating_point() or t.is_complex()


def _split(x):
    """Veltkamp's split of float64 ``x`` into two halves of 26 bits each (``hi + lo == x``)."""
    t = 134217729.0 * x                 # 2**27 + 1
    hi = t - (t - x)
    return hi, x - hi


def _fma(a, b, c):
    """``a * b + c`` in float64 with (all but always) one rounding, as a fused
    multiply-add: the product's rounding error (Dekker's) and the sum's
    (Knuth's) are added back before the last rounding."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    v = s - p
    err = (p - (s - v)) + (c - v)
    with _np.errstate(invalid="ignore", over="ignore"):
        out = s + (err + e)
    # (inf or nan operands: the plain result, as the error terms mean nothing there)
    return _np.where(_np.isfinite(out), out, p + c)


def _lerp_(start, end, weight):
    """``start.lerp_(end, weight)`` as PyTorch's CPU kernel computes it: with
    ``base, coeff = start, w`` if ``|w| < 0.5`` else ``end, w - 1``, the
    result is ``base + coeff * (end - start)``, for real tensors rounded once
    (its vectorised kernel's fused multiply-add: float32, and float16 and
    bfloat16 which it computes in float32, through float64; float64 by
    ``_fma``); complex ones are computed as written."""
    dt = start._data.dtype
    ctype = _np.dtype(_np.float32) if dt.itemsize <= 2 else dt   # (half, bfloat16: in float)
    w = ctype.type(weight)
    a = start._data.astype(ctype, copy=False)
    e = end._data.astype(ctype, copy=False)
    diff = e - a
    base, coeff = (a, w) if abs(w) < 0.5 else (e, w - ctype.type(1))
    if ctype == _np.float32:         # (the float64 product is exact: one rounding of the sum)
        out = (base.astype(_np.float64) + _np.float64(coeff) * diff.astype(_np.float64)).astype(ctype)
    elif ctype == _np.float64:
        out = _fma(_np.float64(coeff), diff, base)
    else:
        out = base + coeff * diff
    start.copy_(_wrap(_np.asarray(out).astype(dt, copy=False)))


def get_ema_multi_avg_fn(decay=0.999):
    """The exponential moving average as a ``multi_avg_fn``:
    ``ema = decay * ema + (1 - decay) * p`` for lists of tensors."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _):
        with _no_grad():
            if _is_float(ema_param_list[0]):
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    _lerp_(p_ema, p_model, 1 - decay)
            else:
                for p_ema, p_model in _zip_strict(ema_param_list, current_param_list):
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """The equal-weight (SWA) running average as a ``multi_avg_fn``: after
    ``n`` models, ``avg += (p - avg) / (n + 1)`` for lists of tensors."""

    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with _no_grad():
            if _is_float(averaged_param_list[0]):
                w = 1 / (num_averaged + 1)
                w = w.item() if isinstance(w, _Tensor) else w
                for p_avg, p_model in zip(averaged_param_list, current_param_list):
                    _lerp_(p_avg, p_model, w)
            else:
                diffs = [p - a for a, p in zip(averaged_param_list, current_param_list)]
                if isinstance(num_averaged, _Tensor):
                    for a, d in zip(averaged_param_list, diffs):
                        a.addcdiv_(d, num_averaged + 1)
                else:
                    for a, d in zip(averaged_param_list, diffs):
                        a.add_(d, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """The exponential moving average as an ``avg_fn`` (one tensor at a time)."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with _no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """The equal-weight (SWA) running average as an ``avg_fn``."""

    def swa_update(averaged_param, current_param, num_averaged):
        with _no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(_Module):
    """A copy of ``model`` (``deepcopy``) whose parameters are the average of
    the models passed to ``update_parameters``; calling it runs the copy.

    ``n_averaged`` (a buffer) counts the models averaged.  The first update
    copies the model's values; later ones apply ``multi_avg_fn`` to the
    tensors grouped by dtype, or ``avg_fn`` to each, or by default the SWA
    average.  Buffers are averaged too with ``use_buffers=True``; otherwise
    they are copied from the model at each update."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = _deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _creation.tensor(0, dtype=_D.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Fold ``model``'s parameters (and buffers, with ``use_buffers``) into the average."""
        if self.use_buffers:
            mine = _itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = _itertools.chain(model.parameters(), model.buffers())
        else:
            mine, theirs = self.parameters(), model.parameters()
        averaged, current = [], []
        first = bool(self.n_averaged == 0)
        for p_avg, p_model in zip(mine, theirs):
            p_model_ = p_model.detach().to(p_avg.device)
            averaged.append(p_avg.detach())
            current.append(p_model_)
            if first:
                p_avg.detach().copy_(p_model_)
        if self.n_averaged > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                groups = {}         # by dtype, in order of first appearance (PyTorch's grouping)
                for a, p in zip(averaged, current):
                    pair = groups.setdefault(a.dtype, ([], []))
                    pair[0].append(a)
                    pair[1].append(p)
                for avgs, models in groups.values():
                    if self.multi_avg_fn:
                        self.multi_avg_fn(avgs, models, self.n_averaged)
                    else:
                        # (PyTorch's CPU path: the one-tensor SWA rule, not the lerp of its
                        # multi-tensor kernels)
                        avg_fn = get_swa_avg_fn()
                        for a, p in _zip_strict(avgs, models):
                            a.copy_(avg_fn(a, p, self.n_averaged))
            else:
                for a, p in _zip_strict(averaged, current):
                    a.detach().copy_(self.avg_fn(a.detach(), p, self.n_averaged))
        if not self.use_buffers:
            # the buffers (batch norms' statistics) follow the model's; update_bn recomputes them
            for b_swa, b_model in _zip_strict(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1


def update_bn(loader, model, device=None):
    """Recompute the running statistics of ``model``'s batch norms by one pass
    over ``loader`` (in train mode, ``momentum=None``: the plain average over
    the batches); a batch that is a list or tuple gives its first item."""
    with _no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's learning rate from its current value to ``swa_lr``
    over ``anneal_epochs`` steps (``'cos'`` or ``'linear'``), then keeps it
    there."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        swa_lrs = _per_group("swa_lr", optimizer, swa_lr)
        for lr, group in _zip_strict(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - _math.cos(_math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        # the rate of the previous step is undone to the rate annealing started from, then
        # moved on to this step's point (so a rate changed by hand in between is followed)
        if not self._get_lr_called_within_step:
            _warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        groups = self.optimizer.param_groups
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in _zip_strict(groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self):
        """Every attribute but the optimizer and the annealing function (restored from its name)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
