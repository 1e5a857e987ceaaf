"""Saved tensors of custom Functions, and hooks on saving them.

``saved_tensors_hooks(pack, unpack)`` makes every tensor saved for backward
inside it go through ``pack`` when saved and ``unpack`` when used.
"""
import re
import threading
import weakref

import numpy as np



class _HookState(threading.local):
    stack = ()              # active (pack, unpack) pairs, innermost last
    disabled = None         # error message while disable_saved_tensors_hooks is active


hook_state = _HookState()
ACTIVE = [0]   # saved_tensors_hooks contexts open in any thread: 0 lets ops skip the thread-local


class SavedTensor:
    """One tensor saved by ``ctx.save_for_backward``: the tensor (or, for an
    output of the same node, only its data, to avoid a reference cycle), the
    version it had, and the pack hook's result if hooks were active.

    With hooks, a later in-place change of the saved tensor is harmless if the
    hook kept its own copy; if what the hooks hand back still shares memory
    with the original, the change is an error as without hooks."""
    __slots__ = ("tensor", "data", "out_nr", "version", "expected", "packed", "unpack_fn",
                 "orig", "desc")

    def __init__(self, t, out_nr):
        self.version = t._shared_version()
        self.expected = self.version[0]
        self.out_nr = out_nr
        self.packed = self.unpack_fn = self.orig = self.desc = None
        if out_nr is None:
            self.tensor, self.data = t, None
        else:
            self.tensor, self.data = None, t._data
        if hook_state.stack:
            pack, unpack = hook_state.stack[-1]
            self.desc = (_tensor_desc(t), None if out_nr is not None else _owner_desc(t))
            try:
                self.orig = weakref.ref(t._data)
            except TypeError:
                self.orig = None
            self.packed = pack(t if out_nr is None else _plain(t._data))
            self.unpack_fn = unpack
            self.tensor = self.data = None

    def _version_error(self, node):
        if self.desc is not None:
            tname, owner = self.desc
        else:
            src = self.tensor if self.tensor is not None else self.data
            tname = _tensor_desc(src) if self.tensor is not None else _tensor_desc(_plain(src))
            owner = None if self.out_nr is not None else _owner_desc(src)
        if self.out_nr is not None:
            owner = f"output {self.out_nr} of {_short_name(node)}"
        return version_error(tname, owner, self.version[0], self.expected)


    def unpack(self, node):
        changed = self.version[0] != self.expected
        if self.unpack_fn is not None:
            if changed and _aliases(self.packed, self.orig):
                raise self._version_error(node)
            t = self.unpack_fn(self.packed)
            if changed and _aliases(t, self.orig):
                raise self._version_error(node)
            if self.out_nr is not None:
                t = _as_output(t._data, node, self.out_nr)
            return t
        if changed:
            raise self._version_error(node)
        if self.out_nr is None:
            return self.tensor
        return _as_output(self.data, node, self.out_nr)


def _short_name(node):
    """How PyTorch's in-place error names a node: ``ExpBackward0`` -> ``Exp``."""
    return re.sub(r"Backward\d*$", "", node.name())


def _tensor_desc(t):
    from ..ops._registry import _tensor_type_name
    return _tensor_type_name(t)


def _owner_desc(t):
    fn = getattr(t, "_grad_fn", None)
    if fn is None:
        return None
    return f"output {getattr(t, '_out_nr', 0)} of {_short_name(fn)}"


def _aliases(obj, orig, depth=2):
    """True if ``obj`` (a tensor, or a tuple/list/dict holding some) may share
    memory with the array ``orig()``."""
    from .._tensor import Tensor
    a = orig() if orig is not None else None
    if a is None:
        return False
    if isinstance(obj, Tensor):
        return np.may_share_memory(obj._data, a)
    if depth and isinstance(obj, (tuple, list)):
        return any(_aliases(o, orig, depth - 1) for o in obj)
    if depth and isinstance(obj, dict):
        return any(_aliases(o, orig, depth - 1) for o in obj.values())
    return False


def _plain(data):
    from .._tensor import _wrap
    return _wrap(data)


def _as_output(data, node, nr):
    from .._tensor import _wrap
    from .grad_mode import state
    t = _wrap(data)
    if state.enabled:
        t._grad_fn, t._rg, t._out_nr = node, True, nr
    return t


class saved_tensors_hooks:
    """``with saved_tensors_hooks(pack, unpack):`` every tensor saved for backward
    inside is stored as ``pack(tensor)`` and given back as ``unpack(packed)``."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if hook_state.disabled is not None:
            raise RuntimeError(hook_state.disabled)
        hook_state.stack = hook_state.stack + ((self.pack_hook, self.unpack_hook),)
        ACTIVE[0] += 1
        return self

    def __exit__(self, *exc):
        hook_state.stack = hook_state.stack[:-1]
        ACTIVE[0] -= 1


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU (where tensorplay keeps everything):
    packing makes a private copy, unpacking hands it back."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            return t.detach().clone()

        def unpack(t):
            return t
        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Inside, registering saved-tensor hooks raises ``RuntimeError(error_message)``."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        if hook_state.stack:        # raise before changing anything: __exit__ won't run
            raise RuntimeError(self.error_message)
        self.prev = hook_state.disabled
        hook_state.disabled = self.error_message

    def __exit__(self, *exc):
        hook_state.disabled = self.prev


def version_error(tname, owner, current, expected):
    """PyTorch's error for a saved tensor that was modified in place."""
    which = "" if owner is None else f", which is {owner},"
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{tname}]{which} is at version {current}; expected "
        f"version {expected} instead. Hint: enable anomaly detection to find the "
        "operation that failed to compute its gradient, with "
        "tensorplay.autograd.set_detect_anomaly(True, check_nan=False).")
