"""Custom differentiable operations: subclass ``Function``.

    class Exp(Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            result, = ctx.saved_tensors
            return grad_output * result

    y = Exp.apply(x)          # or, in the legacy style, Exp()(x)

The ``ctx`` that ``forward`` and ``backward`` see is the backward node itself
(``y.grad_fn``), as in PyTorch: a node of class ``ExpBackward``.
"""
import functools
import inspect
import warnings

import numpy as np

from .._autograd.anomaly_mode import anomaly, note_creation
from .._autograd.engine import FREED_MSG
from .._autograd.grad_mode import no_grad, state
from .._autograd.graph import ErrorNode, Node
from .._tensor import Tensor, _wrap, validate_grad
from ..ops.inplace import _standin, adopt, move_retain_grad
from ..ops.views import copy_slices, views_follow_requires_grad, refresh_view
from ..ops._registry import TRANSFORMS, intercept_function
from .saved import RawSavedTensor, SavedTensor


class FunctionCtx:
    """What ``forward`` may tell ``backward`` through ``ctx``."""

    def save_for_backward(self, *tensors):
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)

    def mark_shared_storage(self, *pairs):
        raise RuntimeError("mark_shared_storage is deprecated. Tensors with shared storages are "
                           "automatically tracked. Note that calls to `set_()` are not tracked")


class BackwardCFunction(Node, FunctionCtx):
    """The node of one ``Function.apply`` call, and the ``ctx`` of that call."""
    _forward_cls = None
    materialize_grads = True
    to_save = ()
    dirty_tensors = ()
    non_differentiable = ()
    _saved = None          # list of SavedTensor after forward; None once freed
    _had_saved = False
    _materialize_non_diff_grads = True      # (PyTorch's private switch, which some code sets)
    _nondiff_outs = ()     # indices of the outputs marked non-differentiable

    def validate(self, g, i):
        """Fit gradient ``g`` to input ``i`` as op nodes do, except that a complex
        gradient for a real input is PyTorch's error here (a registered op's
        derivatives take the real part on purpose; a user's backward that
        returns a complex gradient for a real input has a bug)."""
        if getattr(g, "_data", None) is not None and g._data.dtype.kind == "c" and \
                self.input_meta[2 * i + 1].kind != "c":
            raise RuntimeError("Expected isFloatingType(grad.scalar_type()) || (input_is_complex == "
                               "grad_is_complex) to be true, but got false.  (Could this error message "
                               "be improved?  If so, please report an enhancement request to PyTorch.)")
        return validate_grad(self, g, i)

    # -- what backward reads
    _fw_saved = None       # while jvp runs: what forward saved with save_for_forward

    @property
    def saved_tensors(self):
        if self._fw_saved is not None:
            return tuple(self._fw_saved)
        if self._saved is None:
            if self._had_saved:
                raise RuntimeError(FREED_MSG)
            return ()
        return tuple(None if s is None else s.unpack(self) for s in self._saved)

    @property
    def _raw_saved_tensors(self):
        """The saved tensors as ``SavedTensor`` records, whose ``register_hooks(pack,
        unpack)`` sets saved-tensor hooks for one of them (PyTorch's attribute)."""
        if self._saved is None:
            if self._had_saved:
                raise RuntimeError(FREED_MSG)
            return ()
        return tuple(RawSavedTensor(self, i) for i in range(len(self._saved)))

    @property
    def saved_variables(self):
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning,
                      stacklevel=2)
        return self.saved_tensors

    @property
    def requires_grad(self):
        return any(self.needs_input_grad)

    def release(self):
        if self._saved is not None:
            self._had_saved = True
            self._saved = None

    def apply(self, grads):
        # (a second pass without retain_graph fails only if backward reads saved_tensors)
        if self.materialize_grads and any(g is None for g in grads):
            # zeros for the tensor outputs without a gradient; a non-tensor output's
            # stays None, and a non-differentiable one's too if the Function says so
            keep = () if self._materialize_non_diff_grads else self._nondiff_outs
            grads = [_wrap(np.zeros(shape, dt)) if g is None and dt is not None and i not in keep
                     else g for i, (g, (shape, dt)) in enumerate(zip(grads, self._out_meta))]
        res = _user_backward(self._forward_cls)(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        n = self.num_inputs
        if len(res) != n:
            if len(res) > n and all(r is None for r in res[n:]):
                res = res[:n]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                                   f"gradients (expected {n}, got {len(res)})")
        is_tensor = self._is_tensor_input
        for i, r in enumerate(res):
            if r is not None and not is_tensor[i]:
                raise RuntimeError(f"function {self.name()} returned a gradient different than None "
                                   f"at position {i + 1}, but the corresponding forward input was "
                                   "not a Variable")
            if r is not None and not isinstance(r, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(r).__name__})")
        if len(res) == len(self.next_edges):
            return res
        # as in PyTorch, the node's edges are those of its tensor inputs only
        return tuple(r for r, t in zip(res, is_tensor) if t)


def _user_backward(cls):
    """The Function's backward: ``backward`` or, as PyTorch allows, ``vjp``
    (not both)."""
    backward, vjp = cls.backward, cls.vjp
    if getattr(vjp, "__func__", vjp) is Function.vjp.__func__:
        return backward
    if backward is not Function.backward:
        raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not "
                           "allowed. You should only implement one of them.")
    return vjp


class FunctionMeta(type):
    """Gives every Function subclass its own node class, ``<Name>Backward``,
    and notes whether it uses the ``setup_context`` style."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        # how many positional arguments apply passes on unbound (until the first
        # call has read forward's signature: none)
        cls._bind_ok = frozenset()
        cls._bind_known = False
        super().__init__(name, bases, attrs)
        base = globals().get("Function")
        cls._new_style = base is not None and cls.setup_context is not base.setup_context


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class of custom autograd operations (see the module docstring).

    Subclasses define ``forward(ctx, *args, **kwargs)`` (or ``forward(*args)``
    plus ``setup_context(ctx, inputs, output)``) and ``backward(ctx,
    *grad_outputs)``, which returns one gradient (or None) per forward input.
    """

    generate_vmap_rule = False      # True: vmap runs forward/backward on the whole batch

    def __call__(self, *args, **kwargs):
        """Legacy spelling: ``Exp()(x)`` is ``Exp.apply(x)`` (the 001 document's
        form; PyTorch 2.x has dropped it).  The older style still, a ``forward``
        that is not a staticmethod, is refused with PyTorch's message."""
        for klass in type(self).__mro__:
            if "forward" in vars(klass):
                if not isinstance(vars(klass)["forward"], staticmethod):
                    raise RuntimeError(
                        "Legacy autograd function with non-static forward method is deprecated. "
                        "Please use new-style autograd function with static forward method. "
                        "(Example: https://pytorch.org/docs/stable/autograd.html"
                        "#torch.autograd.Function)")
                break
        return type(self).apply(*args, **kwargs)

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    @classmethod
    def vjp(cls, ctx, *grad_outputs):
        return cls.backward(ctx, *grad_outputs)

    @staticmethod
    def vmap(info, in_dims, *args):
        """Override to give vmap a rule: return ``(output, out_dims)``."""
        raise NotImplementedError("To use autograd.Function with vmap, you must either override "
                                  "the vmap staticmethod or set generate_vmap_rule=True.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function "
                                  "to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        if kwargs or len(args) not in cls._bind_ok:
            args = _bind(cls, args, kwargs)
            kwargs = {}
        if TRANSFORMS:
            return intercept_function(cls, args, kwargs)
        return _apply_with_ctx(cls, args, kwargs)[0]


_MANY = 64         # (a call with more positional arguments than this is bound: slower, not wrong)


def _forward_params(cls):
    """forward's parameters, without ``ctx`` for the old style; None if
    forward has no signature to read."""
    try:
        params = list(inspect.signature(cls.forward).parameters.values())
    except (TypeError, ValueError):
        return None
    if not cls._new_style and params and params[0].kind in (
            inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
        params = params[1:]
    return params


def _bind_ok(cls):
    """How many positional arguments ``apply`` may get and pass on as they are:
    PyTorch binds a new-style call to forward's signature (defaults applied),
    and an old-style one only when keywords are given."""
    params = _forward_params(cls)
    if params is None or not cls._new_style:
        return frozenset(range(_MANY))
    P = inspect.Parameter
    if any(p.kind is P.KEYWORD_ONLY for p in params):
        return frozenset()          # always bound (and then refused, as PyTorch does)
    npos = sum(p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD) for p in params)
    if any(p.kind is P.VAR_POSITIONAL for p in params):
        return frozenset(range(npos, max(npos + 1, _MANY)))
    return frozenset((npos,))


def _bind(cls, args, kwargs):
    """``apply``'s arguments as one positional tuple, as PyTorch binds them,
    so that keyword arguments are inputs like the others (in ``inputs``,
    ``needs_input_grad`` and the node's edges)."""
    if not cls.__dict__.get("_bind_known"):
        cls._bind_ok = _bind_ok(cls)
        cls._bind_known = True
        if not kwargs and len(args) in cls._bind_ok:
            return args
    params = _forward_params(cls)
    if params is None:
        if kwargs:
            raise TypeError(f"forward() got an unexpected keyword argument '{next(iter(kwargs))}'")
        return args
    if cls._new_style:
        # inspect's own errors ("missing a required argument: 'x'"), as PyTorch's
        bound = inspect.Signature(params).bind(*args, **kwargs)
        bound.apply_defaults()
        if bound.kwargs:
            raise TypeError(f"forward() got an unexpected keyword argument "
                            f"'{next(iter(bound.kwargs))}'")
        return tuple(bound.args)
    # old style (PyTorch's C++ binding): keywords fill the positional parameters
    # after the given ones, in order, without defaults
    if not kwargs:
        return args
    P = inspect.Parameter
    pos = [p.name for p in params if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    for k in kwargs:
        if k not in pos:
            raise TypeError(f"forward() got an unexpected keyword argument '{k}'")
        if pos.index(k) < len(args):
            raise TypeError(f"forward() got multiple values for argument '{k}'")
    last = max(pos.index(k) for k in kwargs)
    out = list(args)
    for i in range(len(args), last + 1):
        if pos[i] not in kwargs:
            raise TypeError(f"forward() missing required argument: '{pos[i]}' (position {i})")
        out.append(kwargs[pos[i]])
    return tuple(out)


def _apply(cls, args, kwargs):
    return _apply_with_ctx(cls, args, kwargs)[0]


def _apply_with_ctx(cls, args, kwargs):
    """``apply`` below the transforms: the outputs, and the ctx (the node) that
    forward filled, which a forward-mode level hands to ``jvp``."""
    T = Tensor
    node = cls._backward_cls()
    if anomaly.enabled:
        note_creation(node)
    is_tensor = tuple(isinstance(a, T) for a in args)
    needs = tuple(t and a._rg for t, a in zip(is_tensor, args))
    node._is_tensor_input = is_tensor
    node.needs_input_grad = needs
    node.num_inputs = len(args)
    recording = state.enabled and True in needs
    prev = state.enabled
    state.enabled = False
    try:
        if cls._new_style:
            outputs = cls.forward(*args, **kwargs)
            cls.setup_context(node, args, outputs)
        else:
            outputs = cls.forward(node, *args, **kwargs)
    finally:
        state.enabled = prev
    single = type(outputs) is not tuple
    outs = (outputs,) if single else outputs
    node.num_outputs = len(outs)
    if not recording:
        dirty = node.dirty_tensors
        if dirty:
            # PyTorch runs mark_dirty's checks and bumps the versions whether or not
            # the call is recorded: a saved tensor written in place is then caught
            _check_dirty(dirty, outs, prev)
            for d in dirty:
                d._bump()
        return _unrecorded_outputs(cls, args, outputs, outs, single, dirty), node
    # edges and metadata per tensor input (PyTorch gives non-tensor arguments no edge)
    edges, meta = [], []
    for a, t, rg in zip(args, is_tensor, needs):
        if not t:
            continue
        if rg:
            edges.append(a._edge())
            d = a._data
            meta += (d.shape, d.dtype)
        else:
            edges.append(None)
            meta += (None, None)
    node.next_edges = tuple(edges)
    node.input_meta = tuple(meta)
    dirty = node.dirty_tensors
    nondiff = node.non_differentiable
    if dirty:
        _check_dirty(dirty, outs, True)
    dirty_views = None
    new_outs, out_meta, originals = [], [], {}
    for i, o in enumerate(outs):
        if not isinstance(o, T):
            new_outs.append(o)
            out_meta.append(((), None))
            continue
        if dirty and any(o is d for d in dirty):
            o._bump()
            t = o
            if getattr(o, "_base", None) is not None:
                dirty_views = (dirty_views or []) + [o]
        elif any(o is a for a in args):
            # an input returned unchanged: the output is a new tensor sharing its memory
            t = _wrap(o._data)
            t._vc = o._shared_version()
            t._fn_view = (i, cls.__name__, _multi_tensor(outs))
        else:
            t = o
            if getattr(o, "_base", None) is not None:      # a view made inside forward
                o._nograd_view = False
                o._fn_view = (i, cls.__name__, _multi_tensor(outs))
                o._view_version = o._vc[0]      # its history is this node, whatever forward wrote
        # (a saved tensor that is this output is saved as the output; an input returned
        # unchanged stays, when saved, the input it is)
        originals[id(t)] = i
        if (nondiff and any(o is d for d in nondiff)) or not _differentiable(o._data.dtype):
            t._rg = False
            t._gfn = None
            node._nondiff_outs += (i,)
        else:
            if t is o and o._gfn is not None and o.__dict__.get("_retains_grad"):
                move_retain_grad(o, node, i)     # (a dirty input: its new value retains it)
            t._gfn, t._rg, t._out_nr = node, True, i
        new_outs.append(t)
        d = o._data
        out_meta.append((d.shape, d.dtype))
    node._out_meta = out_meta
    node.n_out = len(outs)
    if node.to_save:
        for i, t in enumerate(node.to_save):
            # (checked only when the call is recorded, as in PyTorch)
            if t is not None and not isinstance(t, T):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is "
                                f"of type {type(t).__name__}")
        node._saved = [None if s is None else SavedTensor(s, originals.get(id(s)))
                       for s in node.to_save]
        node._had_saved = True
        node.to_save = ()
    if dirty_views:
        if sum(isinstance(o, T) for o in outs) > 1:
            raise RuntimeError(_DIRTY_VIEW_MSG)
        for v in dirty_views:
            _rebase_dirty_view(v)
    return (new_outs[0] if single else tuple(new_outs)), node


_DIRTY_VIEW_MSG = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
    "cannot return more than one Tensor. This is not supported by the current autograd engine. "
    "You should either make sure the input is not a view (using .clone() for example) or make "
    "your Function only return one Tensor (potentially splitting it into two Functions: one doing "
    "the inplace that returns a single Tensor and a second one that does the other operations). "
    "You can ask on the forum https://discuss.pytorch.org/ if you need help to do this change.")


def _unrecorded_outputs(cls, args, outputs, outs, single, dirty=()):
    """Outputs of an unrecorded call are still a custom Function's views, as in
    PyTorch: an input returned as-is comes back as a new tensor sharing its
    memory, and a view made inside forward may not be written in place where
    the write would need a gradient.  An input marked dirty comes back itself,
    or, if it (or its base) requires grad, as a detached alias of itself."""
    if not any(isinstance(o, Tensor) and (o._base is not None or any(o is a for a in args))
               for o in outs):
        return outputs
    res = []
    for i, o in enumerate(outs):
        if isinstance(o, Tensor):
            if dirty and any(o is d for d in dirty):
                base = o._base
                if o._rg or (base is not None and base._rg):
                    t = _wrap(o._data)
                    t._vc = o._shared_version()
                    o = t
                res.append(o)
                continue
            returned = any(o is a for a in args)
            if returned:
                t = _wrap(o._data)
                t._vc = o._shared_version()
                o = t
            if returned or o._base is not None:
                o._fn_view = (i, cls.__name__, _multi_tensor(outs))
        res.append(o)
    return res[0] if single else tuple(res)


def _multi_tensor(outs):
    """Whether a Function returned more than one tensor: its view outputs are then
    PyTorch's "output of a function that returns multiple views" (``_fn_view[2]``,
    for the in-place refusal's words)."""
    n = 0
    for o in outs:
        if isinstance(o, Tensor):
            n += 1
    return n > 1


def _differentiable(npdt):
    return npdt.kind in "fc" or npdt.name == "bfloat16"


def _check_dirty(dirty, outs, grad_mode):
    """PyTorch's checks on ``mark_dirty``: every dirty tensor is returned, and
    (in grad mode) none is a leaf (or a view of a leaf) that requires grad, nor
    a view made under no_grad of a tensor that requires grad."""
    for d in dirty:
        if not any(d is o for o in outs):
            raise RuntimeError("Some elements marked as dirty during the forward method were not "
                               "returned as output. The inputs that are modified inplace must all "
                               "be outputs of the Function.")
    if not grad_mode:
        return
    for d in dirty:
        base = getattr(d, "_base", None)
        if (d._rg and d._gfn is None) or (
                base is not None and base._rg and getattr(d, "_nograd_view", None)):
            # (PyTorch's words for the no_grad view too)
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                               "operation.")
        base = getattr(d, "_base", None)
        if base is not None and base._rg and base._gfn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                               "in-place operation.")


def _rebase_dirty_view(v):
    """A view modified in place by the Function: its base's value changed too,
    so the base takes a CopySlices history (as for any in-place op on a view)
    and every live view of it (this one too) remakes its own when next needed."""
    base = v._base
    v._view_version = v._vc[0]          # its history is the Function's node, for copy_slices
    prev = state.enabled
    state.enabled = True
    try:
        new_b = copy_slices(_standin(base), v, v._view_chain)
    finally:
        state.enabled = prev
    was = base._rg
    adopt(base, new_b)
    if base._rg is not was:
        views_follow_requires_grad(base)
    refresh_view(v)


class DelayedErrorNode(ErrorNode):
    """Stands after a ``once_differentiable`` backward: raises if reached."""


def once_differentiable(fn):
    """Decorate a ``backward`` that is not itself differentiable: a second
    differentiation through it raises instead of returning a wrong result."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not state.enabled:
            return outputs
        grads_in = [a for a in args if isinstance(a, Tensor) and a._rg]
        if not grads_in:
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        node = DelayedErrorNode("trying to differentiate twice a function that was marked with "
                                "@once_differentiable", grads_in)
        res = []
        for o in outs:
            if isinstance(o, Tensor):
                t = _wrap(o._data)
                t._gfn, t._rg, t._out_nr = node, True, 0
                res.append(t)
            else:
                res.append(o)
        return res[0] if single else tuple(res)
    return wrapper


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    pass
