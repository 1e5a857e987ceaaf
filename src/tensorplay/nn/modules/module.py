"""``Module``: the base class of every layer, as ``torch.nn.Module``.

A module keeps its parameters, buffers and submodules in three ordered dicts
(``_parameters``, ``_buffers``, ``_modules``); attribute assignment files a
value into the right one, attribute reads look there after the instance
dict.  Everything else (``parameters()``, ``state_dict()``, ``to()``,
``train()``, the repr, the hooks) walks those dicts.

Hooks run in ``__call__``: forward pre-hooks, ``forward``, forward hooks;
with full backward (pre-)hooks, the positional tensor inputs and the output
tensors pass through identity ``autograd.Function``s whose backward runs the
hooks (PyTorch's ``BackwardHook``), so a hook sees the gradients with respect
to the module's inputs and outputs and may replace them.
"""
import functools
import itertools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ... import _dtype as D
from ..._autograd.grad_mode import no_grad
from ..._creation import empty_like as _empty_like, zeros
from ..._tensor import Size, Tensor, check_device, device as _device
from ...autograd.function import Function
from ...ops.core import parse_to
from ..parameter import Buffer, Parameter

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_buffer_registration_hook", "register_module_module_registration_hook",
           "register_module_parameter_registration_hook", "Module"]


# ------------------------------------------------------------------ handles
class RemovableHandle:
    """What ``register_*_hook`` returns: ``remove()`` takes the hook out (also
    as a context manager)."""
    _next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._next_id)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in (
            extra_dict if isinstance(extra_dict, (list, tuple)) else
            [] if extra_dict is None else [extra_dict]))

    def remove(self):
        d = self.hooks_dict_ref()
        if d is not None and self.id in d:
            del d[self.id]
        for ref in self.extra_dict_ref:
            e = ref()
            if e is not None and self.id in e:
                del e[self.id]

    # a copy (deepcopy, pickle) of a module with a handle among its attributes: the
    # copied handle refers to the copied dicts (a weak reference would still name the
    # original's, and removing the copy's hook would remove the original's)
    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(r() for r in self.extra_dict_ref))

    def __setstate__(self, state):
        hooks, self.id, extras = state
        self.hooks_dict_ref = weakref.ref(hooks) if hooks is not None else _gone
        self.extra_dict_ref = tuple(weakref.ref(e) if e is not None else _gone for e in extras)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _gone():
    return None


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, " \
               f"unexpected_keys={self.unexpected_keys})"

    __str__ = __repr__


def _addindent(s, n):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


def _type_name(v):
    if isinstance(v, Tensor):
        names = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                 "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor",
                 "bool": "BoolTensor", "uint8": "ByteTensor"}
        return "tensorplay." + names.get(v.dtype.name, "Tensor")
    t = type(v)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


# ------------------------------------------------------------------ backward hooks
class _HookState:
    """One call's backward hooks (those registered when it ran, as PyTorch
    takes them): the module, which positional inputs were tensors that require
    grad (``input_index``) or not (``zero_inputs``: their gradient is zeros),
    which outputs were tensors, and the output gradients once they arrive (None
    again once the input hooks used them)."""
    __slots__ = ("module", "hooks", "pre_hooks", "n_inputs", "input_index", "input_meta",
                 "grad_outputs", "inputs_hooked", "zero_inputs", "n_outputs", "output_index")

    def __init__(self, module, hooks, pre_hooks):
        self.module, self.hooks, self.pre_hooks = module, OrderedDict(hooks), OrderedDict(pre_hooks)
        self.grad_outputs = None
        self.n_inputs, self.input_index, self.inputs_hooked = 0, (), False
        self.input_meta, self.zero_inputs = (), {}
        self.n_outputs, self.output_index = 1, (0,)

    def run_hooks(self, grad_inputs, no_inputs=False):
        for hook in tuple(self.hooks.values()):
            res = hook(self.module, grad_inputs, self.grad_outputs)
            if res is None:
                continue
            if no_inputs:
                if any(r is not None for r in (res if isinstance(res, (tuple, list)) else (res,))):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient "
                                       "should always return None or None for all gradients.")
                continue
            if not isinstance(res, tuple):
                res = (res,) if isinstance(res, Tensor) else tuple(res)
            if len(res) != len(grad_inputs):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got "
                                   f"{len(res)}, but expected {len(grad_inputs)}")
            grad_inputs = res
        return grad_inputs


class _IdentityHook(Function):
    """Identity on some tensors, whose backward runs a module's hooks (``state``);
    missing gradients stay None."""

    @staticmethod
    def forward(ctx, state, *tensors):
        ctx.state = state
        ctx.set_materialize_grads(False)
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tensors

    # under forward mode and vmap the hooks have nothing to do: the identity
    @staticmethod
    def jvp(ctx, state_t, *tangents):
        return tangents

    @staticmethod
    def vmap(info, in_dims, state, *tensors):
        return tensors, tuple(in_dims[1:])


class _InputHook(_IdentityHook):
    """On the module's tensor inputs: the backward runs the full backward hooks
    on the gradients with respect to them."""

    @staticmethod
    def backward(ctx, *grads):
        st = ctx.state
        if st.grad_outputs is None:
            # the gradient reached the inputs without passing through the outputs
            # (a double backward): PyTorch's hooks do not run then
            return (None,) + grads
        full = [None] * st.n_inputs
        for i, g, (shape, dtype) in zip(st.input_index, grads, st.input_meta):
            full[i] = g if g is not None else zeros(shape, dtype=dtype)   # (PyTorch: zeros, not None)
        for i, (shape, dtype) in st.zero_inputs.items():   # (a tensor input needing no gradient)
            full[i] = zeros(shape, dtype=dtype)
        full = st.run_hooks(tuple(full))
        st.grad_outputs = None
        return (None,) + tuple(full[i] for i in st.input_index)


class _OutputHook(_IdentityHook):
    """On the module's tensor outputs: the backward runs the backward pre-hooks
    and keeps the output gradients for the full hooks."""

    @staticmethod
    def backward(ctx, *grads):
        st = ctx.state
        full = [None] * st.n_outputs       # (None where an output is not a tensor, as PyTorch)
        for i, g in zip(st.output_index, grads):
            full[i] = g
        grads = tuple(full)
        for hook in tuple(st.pre_hooks.values()):
            res = hook(st.module, grads)
            if res is None:
                continue
            if not isinstance(res, tuple):
                res = (res,) if isinstance(res, Tensor) else tuple(res)
            if len(res) != len(grads):
                raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(res)}, but expected {len(grads)}")
            grads = res
        st.grad_outputs = grads
        if not st.inputs_hooked and st.hooks:      # no input needs a gradient: run them now
            warnings.warn("Full backward hook is firing when gradients are computed with respect to "
                          "module outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=2)
            st.run_hooks((None,) * st.n_inputs, no_inputs=True)
            st.grad_outputs = None
        return (None,) + tuple(grads[i] for i in st.output_index)


def _through(fn, state, values):
    """``values`` (a tensor or a tuple) with its top-level tensors passed
    through ``fn`` (PyTorch hooks no tensors nested deeper, nor other containers)."""
    single = isinstance(values, Tensor)
    items = (values,) if single else values
    if not isinstance(items, tuple):
        return values
    idx = [i for i, v in enumerate(items) if isinstance(v, Tensor)]
    if not idx:
        return values
    state.n_outputs, state.output_index = len(items), tuple(idx)
    outs = fn.apply(state, *[items[i] for i in idx])
    new = list(items)
    for i, o in zip(idx, outs):
        new[i] = o
    return new[0] if single else tuple(new) if type(items) is tuple else type(items)(*new)


# ------------------------------------------------------------------ Module
def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" '
                              f'function')


class Module:
    """Base class for all neural network modules (``torch.nn.Module``)."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and (args or kwargs):
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'" if kwargs else
                            f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        s = super().__setattr__
        s("training", True)
        s("_parameters", {})
        s("_buffers", {})
        s("_non_persistent_buffers_set", set())
        s("_modules", {})
        s("_forward_pre_hooks", OrderedDict())
        s("_forward_pre_hooks_with_kwargs", OrderedDict())
        s("_forward_hooks", OrderedDict())
        s("_forward_hooks_with_kwargs", OrderedDict())
        s("_forward_hooks_always_called", OrderedDict())
        s("_backward_hooks", OrderedDict())
        s("_backward_pre_hooks", OrderedDict())
        s("_state_dict_hooks", OrderedDict())
        s("_state_dict_pre_hooks", OrderedDict())
        s("_load_state_dict_pre_hooks", OrderedDict())
        s("_load_state_dict_post_hooks", OrderedDict())
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # -------------------------------------------------------------- registration
    def _check_name(self, kind, store, name):
        """PyTorch's checks of a new buffer's or parameter's name."""
        if store not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_type_name(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[store]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name, tensor, persistent=True):
        self._check_name("buffer", "_buffers", name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                            f"(torch Tensor or None required)")
        for hook in tuple(_GLOBAL_BUFFER_REG.values()):
            output = hook(self, name, tensor)
            if output is not None:
                tensor = output
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        self._check_name("parameter", "_parameters", name)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                            f"(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters "
                             f"must be created explicitly. To express '{name}' as a function of "
                             f"another Tensor, compute the value in the forward() method.")
        for hook in tuple(_GLOBAL_PARAMETER_REG.values()):
            output = hook(self, name, param)
            if output is not None:
                param = output
        self._parameters[name] = param

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_type_name(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = _registered_module(self, name, module)

    register_module = add_module

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        *path, name = target.split(".")
        parent = self.get_submodule(".".join(path))
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        setattr(parent, name, module)

    def get_parameter(self, target):
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(mod, name)

    def get_extra_state(self):
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be "
                           "called.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be "
                           "called.")

    # -------------------------------------------------------------- attributes
    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            s = d.get(store)
            if s is not None and name in s:
                return s[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")

        def remove_from(*dicts):
            for dd in dicts:
                if name in dd:
                    if dd is d["_buffers"]:
                        d["_non_persistent_buffers_set"].discard(name)
                    del dd[name]

        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, d["_buffers"], d["_modules"])
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                                f"(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, params, d["_buffers"])
            modules[name] = _registered_module(self, name, value)
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as child module '{name}' "
                                f"(torch.nn.Module or None expected)")
            modules[name] = _registered_module(self, name, value)
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) and buffers is None:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                                f"(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in d["_non_persistent_buffers_set"]
            if isinstance(value, Buffer):
                remove_from(d, params, modules)
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        d = self.__dict__
        if name in d.get("_parameters", ()):
            del d["_parameters"][name]
        elif name in d.get("_buffers", ()):
            del d["_buffers"][name]
            d["_non_persistent_buffers_set"].discard(name)
        elif name in d.get("_modules", ()):
            del d["_modules"][name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = set(dir(type(self))) | set(self.__dict__) | set(self._parameters) | \
            set(self._modules) | set(self._buffers)
        return sorted(k for k in keys if not k[:1].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)
        for k, v in (("_forward_pre_hooks_with_kwargs", OrderedDict()),
                     ("_forward_hooks_with_kwargs", OrderedDict()),
                     ("_forward_hooks_always_called", OrderedDict()), ("_state_dict_pre_hooks", OrderedDict()),
                     ("_load_state_dict_post_hooks", OrderedDict()),
                     ("_non_persistent_buffers_set", set()), ("_backward_pre_hooks", OrderedDict())):
            self.__dict__.setdefault(k, v)

    # -------------------------------------------------------------- traversal
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k), v

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_children(self):
        memo = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in memo:
                memo.add(id(m))
                yield name, m

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Pre-order, each module once (unless ``remove_duplicate=False``); an
        explicit stack, so deep nesting never hits the recursion limit."""
        if memo is None:
            memo = set()
        stack = [(prefix, self)]
        while stack:
            pre, mod = stack.pop()
            if remove_duplicate:
                if id(mod) in memo:
                    continue
                memo.add(id(mod))
            yield pre, mod
            kids = [(pre + ("." if pre else "") + name, m) for name, m in mod._modules.items()
                    if m is not None]
            stack.extend(reversed(kids))

    # -------------------------------------------------------------- modes
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        object.__setattr__(self, "training", mode)
        for m in self.children():           # (through their own train, which may be overridden)
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    # -------------------------------------------------------------- conversion
    def _apply(self, fn, recurse=True):
        """``fn`` on every parameter, its gradient and every buffer, in place:
        a parameter stays the same object (its data changes), as PyTorch does
        by default."""
        if recurse:
            for m in self.children():
                m._apply(fn)
        with no_grad():
            for key, p in self._parameters.items():
                if p is None:
                    continue
                p.data = fn(p)
                g = p.grad
                if g is not None:
                    p.grad = fn(g)
            for key, b in self._buffers.items():
                if b is not None:
                    self._buffers[key] = fn(b)
        return self

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs):
        dev, dtype, _, copy, fmt = parse_to(args, kwargs)    # (PyTorch's forms and TypeError)
        if copy is not None:
            raise RuntimeError(".to() does not accept copy argument")
        check_device(dev)
        if dtype is not None:
            dtype = D.to_dtype(dtype)
            if dtype.category not in (D._FLOAT, D._COMPLEX):
                raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got "
                                f"desired dtype={dtype}")
        if dtype is None and fmt is None:
            return self

        def convert(t):
            if fmt is not None and t.ndim in (4, 5):     # (PyTorch lays out only 4-d and 5-d tensors)
                t = t.contiguous(memory_format=fmt)
            return t.to(dtype) if dtype is not None and (t.is_floating_point() or t.is_complex()) else t
        return self._apply(convert)

    def to_empty(self, *, device, recurse=True):
        """Every parameter and buffer replaced by an uninitialised tensor of its
        shape and dtype on ``device`` (the CPU here), e.g. to fill a module built
        on the meta device; with ``recurse``, the submodules' too.  Returns self."""
        check_device(device)
        return self._apply(lambda t: _empty_like(t), recurse=recurse)

    def compile(self, *args, **kwargs):
        """PyTorch compiles the module's call in place (``torch.compile(self._call_impl,
        *args, **kwargs)``) and returns None.  tensorplay has no compiler: the
        arguments are checked as ``tensorplay.compile`` checks them and the module
        runs unchanged, eagerly, as PyTorch's ``backend="eager"`` runs it."""
        mode, options = kwargs.get("mode"), kwargs.get("options")
        if mode is not None and options is not None:
            raise RuntimeError("Either mode or options can be specified, but both can't be specified at "
                               "the same time.")
        if mode is not None and mode not in _COMPILE_MODES:
            raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_COMPILE_MODES)}")
        return None

    def _cast(self, dtype):
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self):
        return self._cast(D.float32)

    def double(self):
        return self._cast(D.float64)

    def half(self):
        return self._cast(D.float16)

    def bfloat16(self):
        return self._cast(D.bfloat16)

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self):
        return self

    def cuda(self, device=None):
        raise RuntimeError("tensorplay runs on the CPU only: there is no CUDA device")

    def share_memory(self):
        return self

    # -------------------------------------------------------------- calling
    def _call_impl(self, *args, **kwargs):
        d = self.__dict__
        if not (d["_forward_pre_hooks"] or d["_forward_hooks"] or d["_backward_hooks"]
                or d["_backward_pre_hooks"] or _GLOBAL_HOOKS):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    __call__ = _call_impl

    def _call_with_hooks(self, args, kwargs):
        called = set()          # the always_call forward hooks that have run
        seen = {"args": args, "result": None}   # the arguments after the pre-hooks, forward's output
        try:
            return self._call_hooked(args, kwargs, called, seen)
        except Exception:
            # as PyTorch: whatever raised (a pre-hook, forward, a forward hook), the
            # always_call forward hooks that have not run yet run, with the output
            # forward gave (None if it did not finish), and the error goes on
            args, result = seen["args"], seen["result"]
            for hook_id, hook in tuple(itertools.chain(_GLOBAL_FWD.items(), self._forward_hooks.items())):
                if (self._forward_hooks_always_called.get(hook_id) or hook_id in _GLOBAL_FWD_ALWAYS) \
                        and hook_id not in called:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs or hook_id in _GLOBAL_FWD_KWARGS:
                            res = hook(self, args, kwargs, result)
                        else:
                            res = hook(self, args, result)
                        if res is not None:
                            result = res
                    except Exception as e:  # noqa: BLE001  (PyTorch warns and re-raises the first)
                        warnings.warn(f"module forward hook with ``always_call=True`` raised an "
                                      f"exception that was silenced as another error was "
                                      f"raised in forward: {e}")
            raise

    def _call_hooked(self, args, kwargs, called, seen):
        for hook_id, hook in tuple(itertools.chain(_GLOBAL_PRE.items(), self._forward_pre_hooks.items())):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    if not (isinstance(res, tuple) and len(res) == 2):
                        raise RuntimeError(f"forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {res}.")
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        state = None
        hooks, pre_hooks = self._backward_hooks, self._backward_pre_hooks
        if _GLOBAL_BWD or _GLOBAL_BWD_PRE:      # the global ones first, as in PyTorch
            hooks = OrderedDict(itertools.chain(_GLOBAL_BWD.items(), hooks.items()))
            pre_hooks = OrderedDict(itertools.chain(_GLOBAL_BWD_PRE.items(), pre_hooks.items()))
        if hooks or pre_hooks:
            state = _HookState(self, hooks, pre_hooks)
            state.n_inputs = len(args)
            state.input_index = tuple(i for i, a in enumerate(args)
                                      if isinstance(a, Tensor) and a.requires_grad)
            state.zero_inputs = {i: (a.shape, a.dtype) for i, a in enumerate(args)
                                 if isinstance(a, Tensor) and not a.requires_grad}
            state.input_meta = tuple((args[i].shape, args[i].dtype) for i in state.input_index)
            if state.input_index and hooks:
                ins = tuple(args[i] for i in state.input_index)
                outs = _InputHook.apply(state, *ins)
                args = list(args)
                for i, o in zip(state.input_index, outs):
                    args[i] = o
                args = tuple(args)
                state.inputs_hooked = True
        seen["args"] = args
        result = seen["result"] = self.forward(*args, **kwargs)
        for hook_id, hook in tuple(itertools.chain(_GLOBAL_FWD.items(), self._forward_hooks.items())):
            if self._forward_hooks_always_called.get(hook_id) or hook_id in _GLOBAL_FWD_ALWAYS:
                called.add(hook_id)
            if hook_id in self._forward_hooks_with_kwargs or hook_id in _GLOBAL_FWD_KWARGS:
                res = hook(self, args, kwargs, result)
            else:
                res = hook(self, args, result)
            if res is not None:
                result = seen["result"] = res
        if state is not None:
            if state.hooks and not isinstance(result, (Tensor, tuple)):
                warnings.warn(f"For backward hooks to be called, module output should be a Tensor or a "
                              f"tuple of Tensors but received {type(result)}")
            result = _through(_OutputHook, state, result)
        return result

    # -------------------------------------------------------------- hook registration
    def _register(self, store, hook, prepend, extra=None):
        handle = RemovableHandle(store, extra_dict=extra)
        store[handle.id] = hook
        if prepend:
            store.move_to_end(handle.id, last=False)
        return handle

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        handle = self._register(self._forward_pre_hooks, hook, prepend,
                                self._forward_pre_hooks_with_kwargs)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        handle = self._register(self._forward_hooks, hook, prepend,
                                [self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        if getattr(self, "_is_full_backward_hook", None) is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                               "single Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", True)
        return self._register(self._backward_hooks, hook, prepend)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        return self._register(self._backward_pre_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """Deprecated in PyTorch in favour of ``register_full_backward_hook``;
        here it is the full hook (PyTorch's legacy hook saw the gradients of the
        module's last op, which often were not the module's)."""
        if getattr(self, "_is_full_backward_hook", None) is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                               "single Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", False)
        warnings.warn("Using a non-full backward hook when the forward contains multiple autograd "
                      "Nodes is deprecated and will be removed in future versions. This hook will "
                      "be missing some grad_input. Please use register_full_backward_hook to get "
                      "the documented behavior.", FutureWarning, stacklevel=2)
        return self._register(self._backward_hooks, hook, False)

    def _register_state_dict_hook(self, hook):
        return self._register(self._state_dict_hooks, hook, False)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` after ``state_dict``; it
        may change the dict in place and must return None (the private
        ``_register_state_dict_hook``'s hooks may return a new dict)."""
        def checked(*args):
            if hook(*args) is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return self._register(self._state_dict_hooks, checked, False)

    def register_state_dict_pre_hook(self, hook):
        return self._register(self._state_dict_pre_hooks, hook, False)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        fn = functools.partial(hook, self) if with_module else hook
        return self._register(self._load_state_dict_pre_hooks, fn, False)

    def register_load_state_dict_pre_hook(self, hook):
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        return self._register(self._load_state_dict_post_hooks, hook, False)

    # -------------------------------------------------------------- state dict
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning, stacklevel=2)
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}    # (the hooks may add to it: it is saved)
        meta = getattr(destination, "_metadata", None)
        if meta is not None:
            meta[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            res = hook(self, destination, prefix, local_metadata)
            if res is not None:
                destination = res
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent = {k: v for k, v in self._buffers.items()
                      if k not in self._non_persistent_buffers_set}
        local = {k: v for k, v in itertools.chain(self._parameters.items(), persistent.items())
                 if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor '
                                  f'or Tensor-like object from checkpoint but received {type(value)}')
                continue
            if param.ndim == 0 and value.ndim == 1 and value.shape[0] == 1:
                value = value[0]        # (PyTorch's compatibility with old checkpoints' 1-element params)
            if value.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{_size_repr(value.shape)} from checkpoint, the shape in current "
                                  f"model is {_size_repr(param.shape)}.")
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            if isinstance(value, Parameter):    # (the model's flag wins, as in PyTorch)
                                new = value.requires_grad_(param.requires_grad)
                            else:
                                new = Parameter(value, requires_grad=param.requires_grad)
                            setattr(self, name, new)
                        else:
                            setattr(self, name, value)
                    else:
                        param.copy_(value)
            except Exception as ex:  # noqa: BLE001  (collected, reported with the others)
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in '
                                  f'the model are {_size_repr(param.shape)} and whose dimensions in '
                                  f'the checkpoint are {_size_repr(value.shape)}, an exception '
                                  f'occurred : {ex.args}.')
        extra = prefix + "_extra_state"
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra in state_dict:
                self.set_extra_state(state_dict[extra])
            elif strict:
                missing_keys.append(extra)
        elif strict and extra in state_dict:
            unexpected_keys.append(extra)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra:
                    name = key[len(prefix):].split(".", 1)
                    # a dotted name must go to a submodule, a plain one to this module's own
                    if (name[0] not in self._modules) if len(name) > 1 else (name[0] not in local):
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata
        incompatible = _IncompatibleKeys(missing, unexpected)

        def load(module, local, prefix):
            # as PyTorch: a module's pre-hooks see (and may rename keys in) the dict
            # its children's are then taken from; its post-hooks run after its subtree
            local_meta = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_meta["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local, prefix, local_meta, True, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    pre = prefix + name + "."
                    load(child, {k: v for k, v in local.items() if k.startswith(pre)}, pre)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` "
                                         "are not expected to return new values, if incompatible_keys "
                                         "need to be modified, it should be done inplace.")
        load(self, state_dict, "")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self._get_name(), "\n\t".join(errors)))
        return incompatible

    # -------------------------------------------------------------- repr
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for key, module in self._modules.items():
            lines.append("(" + key + "): " + _addindent(repr(module), 2))
        main = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


def _size_repr(shape):
    return repr(Size(shape))


# global hooks (nn.modules.module.register_module_forward_(pre_)hook,
# register_module_full_backward_(pre_)hook): every module's call runs them before its own
_GLOBAL_PRE, _GLOBAL_FWD = OrderedDict(), OrderedDict()
_GLOBAL_BWD, _GLOBAL_BWD_PRE = OrderedDict(), OrderedDict()
_GLOBAL_HOOKS = []          # non-empty while any global hook is registered
_GLOBAL_FWD_KWARGS, _GLOBAL_FWD_ALWAYS = OrderedDict(), OrderedDict()   # ids of such global hooks


# global registration hooks (nn.modules.module.register_module_{buffer,module,parameter}_
# registration_hook): hook(module, name, value) as a module registers a value; a result
# that is not None replaces the value
_GLOBAL_BUFFER_REG, _GLOBAL_MODULE_REG, _GLOBAL_PARAMETER_REG = OrderedDict(), OrderedDict(), OrderedDict()
_COMPILE_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def _registered_module(parent, name, module):
    for hook in tuple(_GLOBAL_MODULE_REG.values()):
        output = hook(parent, name, module)
        if output is not None:
            module = output
    return module


def _registration_hook(store, hook):
    handle = RemovableHandle(store)
    store[handle.id] = hook
    return handle


def register_module_buffer_registration_hook(hook):
    """A hook ``hook(module, name, buffer)`` run whenever any module registers a
    buffer; a result that is not None is registered instead.  Returns a handle
    whose ``remove()`` takes the hook out."""
    return _registration_hook(_GLOBAL_BUFFER_REG, hook)


def register_module_module_registration_hook(hook):
    """A hook ``hook(module, name, submodule)`` run whenever any module registers
    a submodule; a result that is not None is registered instead."""
    return _registration_hook(_GLOBAL_MODULE_REG, hook)


def register_module_parameter_registration_hook(hook):
    """A hook ``hook(module, name, param)`` run whenever any module registers a
    parameter (not None); a result that is not None is registered instead."""
    return _registration_hook(_GLOBAL_PARAMETER_REG, hook)


def _any_global():
    _GLOBAL_HOOKS[:] = [1] if (_GLOBAL_PRE or _GLOBAL_FWD or _GLOBAL_BWD or _GLOBAL_BWD_PRE) else []


def _global(store, hook, extra=None):
    handle = RemovableHandle(store, extra_dict=extra)
    store[handle.id] = hook
    _any_global()
    orig = handle.remove

    def remove():
        orig()
        _any_global()
    handle.remove = remove
    return handle


def register_module_forward_pre_hook(hook):
    return _global(_GLOBAL_PRE, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """A forward hook (``Module.register_forward_hook``) of every module."""
    handle = _global(_GLOBAL_FWD, hook, [_GLOBAL_FWD_KWARGS, _GLOBAL_FWD_ALWAYS])
    if with_kwargs:
        _GLOBAL_FWD_KWARGS[handle.id] = True
    if always_call:
        _GLOBAL_FWD_ALWAYS[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook):
    """A backward pre-hook (``Module.register_full_backward_pre_hook``) of every module."""
    return _global(_GLOBAL_BWD_PRE, hook)


def register_module_full_backward_hook(hook):
    """A full backward hook (``Module.register_full_backward_hook``) of every module."""
    return _global(_GLOBAL_BWD, hook)
