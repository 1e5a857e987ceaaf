"""``Optimizer``: parameter groups, per-parameter state, hooks and state dicts,
as PyTorch's ``torch.optim.Optimizer``.

The algorithms (``sgd.py``, ``adam.py``, ...) update each parameter's NumPy
array in place with a few whole-array NumPy operations, in the order of
PyTorch's single-tensor implementation so that the results agree to float32
rounding.  Nothing is recorded: the arrays are written directly, and each
parameter's version counter moves on as for any in-place write.
"""
import functools
import inspect
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

import numpy as np

from .._autograd.grad_mode import enable_grad, state as _grad_state
from .._autograd.graph import RemovableHandle
from .._dtype import get_default_dtype
from .._tensor import Tensor, _wrap

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Marks a hyper-parameter every parameter group must give (PyTorch's ``required``)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj):
    if isinstance(obj, Tensor):
        return "tensorplay." + obj.type().split(".")[-1]
    t = type(obj)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _algorithm_step(step):
    """A built-in optimizer's ``step``: its update runs with grad recording off
    (a closure turns it back on for itself), as PyTorch's built-in optimizers'
    do.  The step of a user's subclass runs in the caller's grad mode, as there
    (a step that calls its closure, or builds a differentiable update)."""
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        prev = _grad_state.enabled
        _grad_state.enabled = False
        try:
            with np.errstate(all="ignore"):     # (a NaN or inf gradient: PyTorch does not warn)
                return step(self, *args, **kwargs)
        finally:
            _grad_state.enabled = prev
    return wrapper


_GLOBAL_STEP_PRE_HOOKS = OrderedDict()
_GLOBAL_STEP_POST_HOOKS = OrderedDict()


def register_optimizer_step_pre_hook(hook):
    """A hook run before every optimizer's ``step``: ``hook(optimizer, args, kwargs)``
    returning None or new ``(args, kwargs)``; ``args`` starts with the optimizer."""
    return RemovableHandle(_GLOBAL_STEP_PRE_HOOKS, hook)


def register_optimizer_step_post_hook(hook):
    """A hook run after every optimizer's ``step``: ``hook(optimizer, args, kwargs)``."""
    return RemovableHandle(_GLOBAL_STEP_POST_HOOKS, hook)


def _hooked(step):
    """``step`` with the step pre/post hooks around it (the global ones first before,
    last after, as PyTorch runs them).  The hooks see ``args`` with the optimizer
    first, PyTorch's ``(self, *args)``."""
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        args = (self,) + args
        for hook in (*_GLOBAL_STEP_PRE_HOOKS.values(), *self._optimizer_step_pre_hooks.values()):
            r = hook(self, args, kwargs)
            if r is not None:
                if isinstance(r, tuple) and len(r) == 2:
                    args, kwargs = r
                else:
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {r}.")
        if self.__dict__.get("_lr_sched_tracks"):    # (a scheduler's order check reads it)
            self._opt_called = True
        out = step(*args, **kwargs)
        for hook in (*self._optimizer_step_post_hooks.values(), *_GLOBAL_STEP_POST_HOOKS.values()):
            hook(self, args, kwargs)
        return out
    wrapper.hooked = True
    return wrapper


class Optimizer:
    """Base class of all optimizers.

    ``params`` is an iterable of tensors, of ``(name, tensor)`` pairs, or of
    dicts (parameter groups: ``{"params": [...], "lr": ...}``, each key not
    given taking its value from ``defaults``).

        >>> import tensorplay as tp
        >>> w = tp.nn.Parameter(tp.tensor([1.0, -2.0]))
        >>> opt = tp.optim.SGD([w], lr=0.5)
        >>> (w ** 2).sum().backward()
        >>> opt.step()
        >>> w
        Parameter containing:
        tensor([0., 0.], requires_grad=True)
    """

    def __init__(self, params, defaults):
        if defaults.get("fused") and defaults.get("foreach"):
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def _patch_step_function(self):
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _hooked(cls.step)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            self.__dict__.setdefault(name, OrderedDict())
        # a group from an older or hand-made state dict: the options it lacks take the
        # constructor's defaults (PyTorch's per-class __setstate__ fills the same keys)
        defaults = _constructor_defaults(type(self))
        for group in self.__dict__.get("param_groups", ()):
            for k, v in defaults.items():
                group.setdefault(k, v)
        self._patch_step_function()

    def __repr__(self):
        s = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    # ------------------------------------------------------------ groups
    def add_param_group(self, param_group):
        """Add a parameter group (a dict with ``"params"``; other keys default
        to the optimizer's ``defaults``), e.g. for layers unfrozen mid-training."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. Please "
                            "use a list instead.")
        else:
            params = list(params)
        tensors, names = [], []
        for p in params:
            if isinstance(p, tuple):
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization "
                                 f"parameter {name}")
            param_group.setdefault(name, default)
        ids = {id(p) for p in tensors}
        if len(ids) != len(tensors):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(f"all optimizer param groups should be with/without names. cannot "
                                 f"add param group {which} to the optimizer")
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------ gradients
    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all optimized tensors: to None (the default),
        or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                g = getattr(p, "_grad", None)
                if g is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    if g._gfn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g._data[...] = 0
                    g._bump()

    def step(self, closure=None):
        """Perform one optimization step (``closure`` re-evaluates the loss and returns it)."""
        raise NotImplementedError

    @staticmethod
    def _with_grad(group):
        """``[(param, grad data)]`` for the parameters of ``group`` that have a gradient."""
        out = []
        for p in group["params"]:
            g = getattr(p, "_grad", None)
            if g is not None:                  # (.grad's setter checked its shape)
                out.append((p, g._data))
        return out

    # ------------------------------------------------------------ state dicts
    def state_dict(self):
        """``{"state": {index: per-parameter state}, "param_groups": [...]}``, with
        parameters replaced by their index in the order of the groups (PyTorch's
        layout, so it can be saved and loaded into an optimizer over other
        parameter objects of the same shapes)."""
        for hook in tuple(self._optimizer_state_dict_pre_hooks.values()):
            hook(self)
        index = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index.setdefault(id(p), i)
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        sd = {"state": state, "param_groups": groups}
        for hook in tuple(self._optimizer_state_dict_post_hooks.values()):
            r = hook(self, sd)
            if r is not None:
                sd = r
        return sd

    def load_state_dict(self, state_dict):
        """Load a ``state_dict()`` (of this optimizer class, over parameters of the
        same shapes in the same group layout).  Floating state takes the dtype of
        its parameter (except ``step``); tensors are copied, never aliased."""
        state_dict = dict(state_dict)
        for hook in tuple(self._optimizer_load_state_dict_pre_hooks.values()):
            r = hook(self, state_dict)
            if r is not None:
                state_dict = r
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the "
                             "size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                p = id_map[k]
                state[p] = _cast_state(p, v)
            else:
                state[k] = v
        new_groups = []
        for g, s in zip(groups, saved_groups):
            s["params"] = g["params"]
            if "param_names" in g and "param_names" not in s:
                s["param_names"] = g["param_names"]
            new_groups.append(s)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for hook in tuple(self._optimizer_load_state_dict_post_hooks.values()):
            hook(self)

    # ------------------------------------------------------------ hooks
    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs before each ``step``; it may
        return new ``(args, kwargs)``."""
        return RemovableHandle(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` runs after each ``step``."""
        return RemovableHandle(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)


def _register(hooks, hook, prepend):
    handle = RemovableHandle(hooks, hook)
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


@functools.lru_cache(maxsize=None)
def _constructor_defaults(cls):
    """The keyword defaults of ``cls.__init__`` (an optimizer's group options)."""
    try:
        params = inspect.signature(cls.__init__).parameters.values()
    except (TypeError, ValueError):
        return {}
    return {p.name: p.default for p in params if p.default is not p.empty and p.name != "params"
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


# the scalar state PyTorch keeps as 0-d tensors (an older state dict may hold numbers)
_SCALAR_STATE = frozenset({"step", "eta", "mu", "mu_product"})


def _cast_state(param, value, key=None):
    """A loaded state value made to fit ``param``: tensors copied (floating ones
    cast to the parameter's dtype, except the step count), containers walked."""
    if isinstance(value, Tensor):
        a = value._data
        if key != "step" and param.is_floating_point() and a.dtype.kind in "fV" and \
                a.dtype != param._data.dtype:
            return _wrap(a.astype(param._data.dtype))
        return _wrap(np.array(a, copy=True))
    if key in _SCALAR_STATE and isinstance(value, (int, float)) and not isinstance(value, bool):
        # an older or hand-made state dict's number: a tensor, as PyTorch's __setstate__
        # makes it
        return _wrap(np.asarray(float(value), _scalar_dtype()))
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v) for v in value)
    return value


# ---------------------------------------------------------------- shared by the algorithms
def _closure_loss(closure):
    """The loss ``closure()`` returns, computed with grad recording on (``step``
    runs with it off); None without a closure."""
    if closure is None:
        return None
    with enable_grad():
        return closure()


def _scalar(x):
    """A hyper-parameter as a Python number (a one-element tensor allowed)."""
    return x.item() if isinstance(x, Tensor) else x


def _numbers(group):
    """A parameter group's options as a step computes with them: a one-element
    tensor (PyTorch accepts one for any hyper-parameter) as a Python number, also
    inside a tuple (``betas``).  The steps compute on NumPy arrays in place, where
    a tensor would not mix: ``d -= wd * g`` with a tensor ``wd`` rebinds ``d``
    instead of writing the parameter."""
    out = dict(group)
    for k, v in group.items():
        if k == "params":
            continue
        if isinstance(v, Tensor):
            out[k] = v.item()
        elif type(v) in (tuple, list) and any(isinstance(b, Tensor) for b in v):
            out[k] = tuple(_scalar(b) for b in v)
    return out


def _check_lr(lr, nan_ok=False):
    """PyTorch's check of ``lr`` (SGD's, ``lr < 0``, lets NaN through: ``nan_ok``)."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if (_scalar(lr) < 0.0) if nan_ok else not 0.0 <= _scalar(lr):
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_nonneg(value, what):
    if not 0.0 <= value:
        raise ValueError(f"Invalid {what} value: {value}")


def _no_differentiable(differentiable):
    if differentiable:
        raise NotImplementedError("tensorplay's optimizers update parameters in place without "
                                  "recording them; differentiable=True is not supported")


def _scalar_dtype():
    """The dtype of an optimizer's scalar state (``step``, NAdam's ``mu_product``,
    ASGD's ``eta``/``mu``): float64 when that is the default dtype, else float32,
    as PyTorch's ``_get_scalar_dtype``."""
    return np.float64 if get_default_dtype().np == np.float64 else np.float32


def _step_tensor():
    """A fresh ``step`` count: a scalar tensor, as PyTorch keeps it."""
    return _wrap(np.zeros((), _scalar_dtype()))


def _bump_step(state):
    """Count one more step in ``state["step"]``; return the new count."""
    s = state["step"]._data
    s += 1
    return float(s)


def _grad_for_update(g, d, maximize, weight_decay):
    """The gradient an update uses: negated when maximizing, plus the L2 term
    ``weight_decay * param`` (a new array whenever it differs from ``.grad``)."""
    if maximize:
        g = np.negative(g)
        if weight_decay != 0:
            g += weight_decay * d
    elif weight_decay != 0:
        g = g + weight_decay * d
    return g


def _real(a):
    """A complex array seen as real pairs (PyTorch's ``view_as_real``), a 0-d one as
    one element (so that results can be written with ``out=``): views, never copies.
    (A NumPy scalar, what arithmetic on 0-d arrays gives, becomes an array.)"""
    if type(a) is not np.ndarray:
        a = np.asarray(a)
    if a.dtype.kind == "c":
        r = a.real                  # a view with a's strides; the imaginary part follows each real
        return np.lib.stride_tricks.as_strided(r, a.shape + (2,), r.strides + (r.itemsize,),
                                               writeable=a.flags.writeable)
    return a[None] if a.ndim == 0 else a


def _in_dtype(x, dtype):
    """``x`` rounded to the precision the update runs in for ``dtype`` (PyTorch
    computes float16/bfloat16 updates in float32)."""
    if dtype.itemsize >= 4 and dtype.kind == "f":
        return float(dtype.type(x))
    return float(np.float32(x))


def _lerp_(a, b, w):
    """``a.lerp_(b, w)`` in place, with PyTorch's two formulas (exact at both ends)."""
    t = b - a
    if w < 0.5:
        t *= w
        a += t
    else:
        t *= _in_dtype(1 - _in_dtype(w, a.dtype), a.dtype)
        np.subtract(b, t, out=a)
