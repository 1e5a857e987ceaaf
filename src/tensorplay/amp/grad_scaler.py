"""``GradScaler``: dynamic loss scaling, PyTorch 2.13's ``torch.amp.GradScaler``.

The loss is multiplied by the scale before ``backward``; ``unscale_`` divides
the gradients by it again (in float32, the reciprocal taken in float64) and
notes whether any is inf or NaN; ``step`` skips the optimizer's step when one
was; ``update`` backs the scale off after such a step and grows it after
``growth_interval`` good ones in a row.
"""
import warnings
from collections import defaultdict
from enum import Enum

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from .._creation import full
from .._autograd.grad_mode import no_grad

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """``GradScaler(device="cuda", init_scale=2.**16, growth_factor=2.0,
    backoff_factor=0.5, growth_interval=2000, enabled=True)``.  "cuda" is
    disabled with PyTorch's warning (this library runs on the CPU)."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) earlier "
               "in the iteration.")
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self):
        if self._growth_tracker is not None:
            raise AssertionError("_growth_tracker initialized before _scale")
        self._scale = full((), self._init_scale, dtype=D.float32)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=D.int32)

    def scale(self, outputs):
        """``outputs`` (a tensor, or an iterable of them) times the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker()
            return outputs * self._scale

        def apply_scale(val):
            if isinstance(val, Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker()
                return val * self._scale
            if isinstance(val, (list, tuple)):
                return type(val)(apply_scale(v) for v in val)
            if hasattr(val, "__iter__") and not isinstance(val, (str, bytes)):
                return (apply_scale(v) for v in val)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        inv = np.float32(inv_scale._data)
        bad = False
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if not isinstance(param, Tensor):
                        raise AssertionError(
                            f"expected param to be torch.Tensor, got {type(param).__name__}")
                    g = param.grad
                    if g is None:
                        continue
                    if (not allow_fp16) and g.dtype == D.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    d = g._data
                    if not bad and not np.isfinite(d.astype(np.float32, copy=False)).all():
                        bad = True
                    # (PyTorch's _amp_foreach_non_finite_check_and_unscale_: grads *= inv_scale,
                    # in the grad's dtype with the multiplication done in float32)
                    g._data[...] = (d.astype(np.float32) * inv).astype(d.dtype)
                    g._bump()
            if bad:
                found_inf._data[...] = 1.0
        return {"cpu": found_inf}

    def unscale_(self, optimizer):
        """Divide the gradients of ``optimizer``'s parameters by the scale, in place."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = full((), np.float32(1.0 / np.float64(self._scale._data)), dtype=D.float32)
        found_inf = full((), 0.0, dtype=D.float32)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    def _maybe_opt_step(self, optimizer, optimizer_state, *args, **kwargs):
        retval = None
        if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        return retval

    def step(self, optimizer, *args, **kwargs):
        """``unscale_(optimizer)`` if not done yet, then ``optimizer.step()`` unless a
        gradient was inf or NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = self._maybe_opt_step(optimizer, state, *args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Update the scale: ``new_scale`` if given, else back off after an inf/NaN
        step and grow after ``growth_interval`` good steps in a row."""
        if not self._enabled:
            return
        _scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                _scale._data[...] = new_scale
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if not isinstance(new_scale, Tensor) or new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1:
                    raise AssertionError(reason)
                if new_scale.requires_grad is True:
                    raise AssertionError(reason)
                _scale._data[...] = new_scale._data.reshape(())
            _scale._bump()
        else:
            found = [f for s in self._per_optimizer_states.values()
                     for f in s["found_inf_per_device"].values()]
            if len(found) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            total = sum(float(f._data) for f in found)
            # PyTorch's _amp_update_scale_ (in float32)
            if total:
                _scale._data[...] = np.float32(_scale._data) * np.float32(self._backoff_factor)
                tracker._data[...] = 0
            else:
                successful = int(tracker._data) + 1
                if successful == self._growth_interval:
                    new = np.float32(_scale._data) * np.float32(self._growth_factor)
                    if np.isfinite(new):
                        _scale._data[...] = new
                    tracker._data[...] = 0
                else:
                    tracker._data[...] = successful
            _scale._bump()
            tracker._bump()
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled)."""
        if self._enabled:
            return self._init_scale if self._scale is None else self._scale.item()
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None \
                else int(self._growth_tracker.item())
        return 0

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """``scale``, ``growth_factor``, ``backoff_factor``, ``growth_interval`` and
        ``_growth_tracker`` (empty when disabled)."""
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor,
                    "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale._data[...] = state_dict["scale"]
            self._scale._bump()
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker._data[...] = state_dict["_growth_tracker"]
            self._growth_tracker._bump()

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning "
                                     "of an iteration, or at the end after scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
