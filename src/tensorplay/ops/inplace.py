"""In-place spellings (``x.add_(y)``, ``x += y``, ``x.copy_(y)``, ...).

An in-place op is its out-of-place op applied to a stand-in for the tensor's
current value, with the result written back into the tensor's memory.  The
tensor then takes over the result's history, and its version counter moves
on, so a node that saved the old value raises instead of computing a wrong
gradient.
"""

import re

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _wrap, _as_elements, storage_geometry
from .._tensor import _RETAIN_KEY
from .core import copy_from, fill_for_fill_, fill_for_zero_, view
from .._autograd.grad_mode import state
from ._registry import TRANSFORMS, broadcast_error, public, saved_is
from .._autograd.saved_hooks import BEFORE_WRITE
from .._warn import warn as _warn_user

_CONJ_COPY_MSG = (
    "In-place write into the result of conj() of a complex tensor: in tensorplay it is a copy, "
    "not a view of the original as in PyTorch, so the write would not reach the original. "
    "Write into the original (for example x.copy_(value.conj())), or call resolve_conj() first "
    "to have an independent tensor.")


def check_inplace(self, args):
    """PyTorch's checks before writing into ``self``."""
    if self._conj_copy or self._base is not None and self._base._conj_copy:
        raise RuntimeError(_CONJ_COPY_MSG)
    if self._inference and not state.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not "
                           "allowed.You can make a clone to get a normal tensor before doing "
                           "inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
                           "details.")
    if state.enabled:
        fv = self._fn_view
        if fv is not None:
            if self._rg:
                raise RuntimeError(f"Output {fv[0]} of {fv[1]} is a view and is being modified "
                                   "inplace. " +
                                   (MULTI_VIEW_MSG if fv[2:] == (True,) else FN_VIEW_MSG))
            if any(isinstance(a, Tensor) and a._rg for a in args):
                # the Function's call was not recorded: PyTorch's words for a view without history
                raise RuntimeError("A view was created in no_grad mode and is being modified inplace "
                                   "with grad mode enabled. " + FN_VIEW_MSG)
        # (a view whose history is stale is no leaf: its history is remade from the base,
        # after the checks on the view itself)
        if self._rg and self._gfn is None and (
                self._base is None or self._view_version == self._vc[0]):
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        base = getattr(self, "_base", None)
        if base is not None and base._gfn is None and (
                base._rg or self._rg and base.__dict__.get("_detached_inplace")):
            # (a base detached in place since: PyTorch refuses too, rather than give it back
            # the history it was cut from)
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        if base is not None and getattr(self, "_nograd_view", None) and (
                base._rg or self._rg or any(isinstance(a, Tensor) and a._rg for a in args)):
            # (made under no_grad, or a view of such a view: PyTorch names the latter's op)
            head = "A view was created in no_grad mode"
            if self._gfn is not None:
                name = re.sub(r"Backward\d*$", "", self._gfn.name())
                head = f"Output {self._out_nr} of {name} is a view of a view which was created in no_grad mode"
            raise RuntimeError(
                f"{head} and is being modified inplace with grad mode "
                "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. "
                "You can clarify your code by moving both the view and the inplace either both "
                "inside the no_grad block (if you don't want the inplace to be tracked) or both "
                "outside (if you want the inplace to be tracked).")


MULTI_VIEW_MSG = (
    "This view is the output of a function that returns multiple views. Such functions do not "
    "allow the output views to be modified inplace. You should replace the inplace operation by "
    "an out-of-place one.")
FN_VIEW_MSG = (
    "This view was created inside a custom Function (or because an input was returned as-is) and "
    "the autograd logic to handle view+inplace would override the custom backward associated with "
    "the custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix "
    "this by cloning the output of the custom Function.")


def apply_inplace(self, f, args, kwargs, name):
    if TRANSFORMS:
        for t in reversed(TRANSFORMS):      # vmap: the batch is written, or PyTorch's error
            h = getattr(t, "process_inplace", None)
            if h is not None:
                r = h(self, f, args, kwargs, name)
                if r is not NotImplemented:
                    return r
    check_inplace(self, args)
    if BEFORE_WRITE:
        for hook in BEFORE_WRITE:
            hook(self)
    recording = state.enabled and (self._rg or any(isinstance(a, Tensor) and a._rg for a in args)
                                   or any(isinstance(a, Tensor) and a._rg for a in kwargs.values()))
    if not recording and not kwargs and not TRANSFORMS and getattr(f, "ufunc", None) is not None \
            and _ufunc_inplace(self, f.ufunc, args, f.ufunc_dtypes):
        return self
    src = self
    if recording:
        if getattr(self, "_base", None) is not None:
            from .views import rebase_inplace_view
            return rebase_inplace_view(self, f, args, kwargs, name)
        src = _standin(self)
    try:
        out = f(src, *args, **kwargs)
    except NotImplementedError:
        _check_cast_first(self, f, args, kwargs)
        raise
    if recording:
        _own_saved_copy(src, out)
    write_into(self, out, name)
    if recording:
        was = self._rg
        adopt(self, out)
        if self._rg is not was and self._views:
            from .views import views_follow_requires_grad
            views_follow_requires_grad(self)
    if TRANSFORMS:
        inplace_tangents(self, out)
    return self


_CAST_CHECKED = frozenset({"div", "divide", "true_divide"})      # (elementwise ops without .op)


def _check_cast_first(self, f, args, kwargs):
    """An elementwise op refused the operands' dtype (``f32.atan2_(c64)``,
    ``i64.bitwise_and_(f32)``): PyTorch checks first that the result's type
    can be written into ``self`` and raises that error."""
    op = getattr(f, "op", None)
    if not (getattr(getattr(op, "family", None), "name", None) == "elementwise"
            or getattr(f, "__name__", None) in _CAST_CHECKED):
        return
    from ._registry import _result_dtype
    vals = [self] + [a for a in (*args, *kwargs.values())
                     if isinstance(a, Tensor) or type(a) in (bool, int, float, complex)]
    rk, dk = _result_dtype(vals, len(vals)), D._FROM_NP[self._data.dtype]
    if rk.category > dk.category:
        raise RuntimeError(f"result type {_title(rk.np)} can't be cast to the desired output type "
                           f"{_title(dk.np)}") from None


def inplace_tangents(self, out):
    """``self`` now holds ``out``'s value: each open forward-mode level gives it
    (or its base, for a view) the matching tangent."""
    for t in list(TRANSFORMS):
        if getattr(t, "forward_level", False):
            t.update_inplace(self, out)


def _ufunc_inplace(self, ufunc, args, dtypes):
    """Outside autograd, a float pointwise op writes straight into the tensor
    (no temporary, no copy): the optimizer's ``p -= lr * p.grad``.  ``dtypes``:
    those the op's fast paths take (real floats only for a ``no_complex`` op)."""
    d = self._data
    if d.dtype not in dtypes or not d.flags.writeable or len(args) != ufunc.nin - 1:
        return False
    if args:
        o = args[0]
        to = type(o)
        if to is not float and to is not int:
            if not isinstance(o, Tensor) or o._data.dtype is not d.dtype:
                return False
            o = o._data
            if o.ndim > d.ndim or np.may_share_memory(o, d) and o.shape != d.shape:
                return False
        try:
            ufunc(d, o, out=d)
        except ValueError:          # shapes that do not broadcast into d: the general path
            return False            # reports it (d was not written: numpy checks first)
    else:
        ufunc(d, out=d)
    self._bump()
    return True


def _standin(self):
    """A second Tensor object for the pre-op value: same memory, history and version."""
    if self._base is not None and self._view_version != self._vc[0]:
        self._refresh_history()
    src = _wrap(self._data)
    src.__dict__["_pre_write"] = True       # (its memory is about to be written: see OpNode._pack)
    src._rg, src._gfn = self._rg, self._gfn
    if self._gfn is not None:
        src._out_nr = getattr(self, "_out_nr", 0)
    src._vc = self._shared_version()
    fw = self.__dict__.get("_fw_grads")
    if fw:                                  # and the same tangents (forward mode)
        src.__dict__["_fw_grads"] = dict(fw)
    return src


def _own_saved_copy(src, out):
    """If the new node saved the pre-op value, give it a private copy before the
    memory is overwritten: that overwrite is part of this op, not a user's later
    in-place on a saved tensor."""
    node = out._gfn
    args = getattr(node, "args", None) if node is not None else None
    if args is None:
        return
    for a in args:
        if a is src:
            src._data = src._data.copy()
            src._vc = [0]
            node.versions = [(src._vc, 0, t, k) if saved_is(t, src) else (vl, v, t, k)
                             for vl, v, t, k in node.versions]
            return


def adopt(self, out):
    """``self`` now holds ``out``'s value: it takes over ``out``'s history."""
    node = out._gfn
    if node is not None and self.__dict__.get("_retains_grad"):
        move_retain_grad(self, node, getattr(out, "_out_nr", 0))
    self._gfn = node
    self._rg = node is not None
    if node is not None:
        self._out_nr = getattr(out, "_out_nr", 0)


def move_retain_grad(self, node, nr):
    """As in PyTorch, a tensor that retains its grad keeps doing so for its
    new value: the retaining hook moves from the old history to output ``nr``
    of ``node``."""
    old = self._gfn
    if old is not None:
        hooks = (old.__dict__.get("_pre_hooks") or {}).get(getattr(self, "_out_nr", 0))
        retain = hooks.pop(_RETAIN_KEY, None) if hooks else None
    else:
        retain = None
    if retain is not None and node is not None:
        node.tensor_pre_hooks(nr)[_RETAIN_KEY] = retain


def write_into(self, out, name):
    d = self._data
    r = out._data
    if r.shape != d.shape:
        raise RuntimeError(f"output with shape {list(d.shape)} doesn't match the broadcast shape "
                           f"{list(np.broadcast_shapes(d.shape, r.shape))}")
    if r.dtype != d.dtype:
        rk, dk = D._FROM_NP[r.dtype], D._FROM_NP[d.dtype]
        if rk.category > dk.category:
            raise RuntimeError(f"result type {_title(rk)} can't be cast to the desired output type "
                               f"{_title(dk)}")
    if not d.flags.writeable:
        d = _writable(d, name == "fill")   # (one value everywhere: shared elements agree)
    if r is not d:
        copy_overlapping(d, r)
    self._bump()


def may_self_overlap(d):
    """Whether elements of ``d`` may share memory (``unfold`` with a step below its
    size, ``as_strided``): False when its strides prove them distinct."""
    if d.flags.c_contiguous or d.flags.f_contiguous:
        return False
    extent = d.itemsize                 # (bytes the smaller-stride dimensions span)
    for s, n in sorted((abs(s), n) for s, n in zip(d.strides, d.shape) if n > 1):
        if s < extent:
            return True
        extent += s * (n - 1)
    return False


def copy_overlapping(d, r):
    """``d[...] = r``; where elements of ``d`` share memory, only the elements that
    change are written (as PyTorch's kernels write only what an index selects): a
    full copy would write the old value of one alias over the new value of another."""
    if not may_self_overlap(d):
        np.copyto(d, r, casting="unsafe")
        return
    r = np.broadcast_to(np.asarray(r).astype(d.dtype, copy=False), d.shape)
    with np.errstate(invalid="ignore"):
        same = r == d
        if d.dtype.kind in "fc" or d.dtype == D.bfloat16.np:
            same |= (r != r) & (d != d)     # (NaN stays NaN: no change)
    np.copyto(d, r, where=~same)


_SELF_OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to "
                 "a single memory location. Please clone() the tensor before performing the "
                 "operation.")


def _writable(d, shared_ok=False):
    """A writable handle on ``d``'s memory.  NumPy marks views of an expanded
    tensor read-only; a region of one whose elements are distinct (``x[0]`` of
    ``ones(1).expand(3)``) may be written, as in PyTorch.  Refused: elements that
    share memory (unless ``shared_ok``: ``fill_``/``zero_`` with a number write
    one value, and PyTorch lets them), and memory that is itself read-only."""
    if not shared_ok and _self_overlapping(d):
        raise RuntimeError(_SELF_OVERLAP)
    root, offset, _ = storage_geometry(d)
    flat = _as_elements(root, d.dtype) if root.flags.writeable else None
    if flat is None or not np.shares_memory(flat, root):
        raise RuntimeError(_SELF_OVERLAP)
    return np.lib.stride_tricks.as_strided(flat[offset:], d.shape, d.strides)


def _self_overlapping(d):
    return any(s == 0 and n > 1 for s, n in zip(d.strides, d.shape))


def _title(dt):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
            "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}.get(dt.name, dt.name)


# in-place ops that change the tensor's shape/strides, not its values
_RESHAPING = frozenset("squeeze unsqueeze transpose t swapaxes swapdims as_strided".split())


def _reshape_inplace(self, f, args, kwargs, name=None):
    """``x.t_()``, ``x.unsqueeze_(0)``...: ``self`` becomes the view ``f(self)``
    of its own memory, with that view's history.  View chains stay true: a view
    ``self`` grows its chain by this op; the live views of a base ``self`` get
    the inverse op put in front of theirs (they were made from the old shape)."""
    if TRANSFORMS:
        for t in reversed(TRANSFORMS):      # vmap: the batched tensor takes the new view
            h = getattr(t, "process_reshape_inplace", None)
            if h is not None:
                r = h(self, f, args, kwargs)
                if r is not NotImplemented:
                    return r
    recording = state.enabled and self._rg
    if recording:
        check_inplace(self, args)
    if BEFORE_WRITE:                        # (allow_mutation_on_saved_tensors: the version moves)
        for hook in BEFORE_WRITE:
            hook(self)
    src = _standin(self) if recording else _wrap(self._data)
    old_shape = self._data.shape
    if name == "as_strided":
        old_strides, old_offset = tuple(s // self._data.itemsize for s in self._data.strides), \
            self.storage_offset()
    out = f(src, *args, **kwargs)
    self._data = out._data
    if recording:
        # the history moves on; a retained grad stays with the value it was retained
        # for (PyTorch keeps it there for these shape-only ops)
        node = out._gfn
        self._gfn, self._rg = node, node is not None
        if node is not None:
            self._out_nr = getattr(out, "_out_nr", 0)
    step = getattr(out, "_view_chain", ())
    chain = getattr(self, "_view_chain", None)
    if chain is not None:                   # a view: its chain grows by this op
        self._view_chain = chain + step
    views = self._views
    if views and step:
        op, params, _ = step[-1]
        if op.name in ("t", "transpose"):   # their own inverse
            undo = (op, params, None)
        elif op.name == "as_strided":       # back to the old geometry over the same storage
            undo = (op, (old_shape, old_strides, old_offset), None)
        else:                               # squeeze/unsqueeze: back to the old shape
            undo = (view.op, (old_shape,), None)
        for v in views:
            v._view_chain = (undo,) + getattr(v, "_view_chain", ())
    self._bump()
    if recording and node is not None and getattr(node, "versions", None):
        # the values are as they were: this op's own node (as_strided's saves its input,
        # for the geometry) still reads them
        node.versions = [(vl, vl[0] if saved_is(t, src) else e, t, k) for vl, e, t, k in node.versions]
    if chain is not None:                   # the view's own history is current (the base's
        self._view_version = self._vc[0]    # other views are remade when next needed)
    if TRANSFORMS:
        for t in list(TRANSFORMS):
            if getattr(t, "forward_level", False):
                t.update_reshape(self, f, args, kwargs)
    return self


def inplace_method(f, name, check=None):
    """``Tensor.<name>_`` from the out-of-place function ``f`` (``check(self, *args,
    **kwargs)`` first, if given: the entry's refusals of the in-place form only)."""
    if check is not None:
        def method(self, *args, **kwargs):
            check(self, *args, **kwargs)
            return apply_inplace(self, f, args, kwargs, name)
        method.__name__ = method.__qualname__ = name + "_"
        return method
    if name in _RESHAPING:
        def method(self, *args, **kwargs):
            return _reshape_inplace(self, f, args, kwargs, name)
        method.__name__ = method.__qualname__ = name + "_"
        return method

    def method(self, *args, **kwargs):
        return apply_inplace(self, f, args, kwargs, name)
    method.__name__ = method.__qualname__ = name + "_"
    return method


@public()
def copy_(self, src, non_blocking=False):
    """Copy ``src`` (broadcast and cast to ``self``) into ``self``; differentiable
    w.r.t. ``src``; the old value of ``self`` gets a zero gradient."""
    if type(src) in (bool, int, float, complex):    # (a number fills, as PyTorch's copy_ does)
        if type(src) is complex and not self.is_complex():
            _warn_user("Casting complex values to real discards the imaginary part")
            src = src.real
        return fill_(self, src)
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}")
    a, b = getattr(self, "shape", None), src.shape
    if a is not None and a != b:
        try:
            np.broadcast_shapes(tuple(a), tuple(b))
        except ValueError:
            raise broadcast_error(a, b) from None
    return apply_inplace(self, copy_from, (src,), {}, "copy")


@public()
def zero_(self):
    return apply_inplace(self, fill_for_zero_, (0,), {}, "fill")


@public()
def fill_(self, value):
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.dim()} dimensions.")
    d = getattr(self, "_data", None)
    if isinstance(value, Tensor) and type(d) is np.ndarray and d.size > 1 and _self_overlapping(d):
        raise RuntimeError(_SELF_OVERLAP)   # (a number may fill shared elements: write_into)
    return apply_inplace(self, fill_for_fill_, (value,), {}, "fill")
