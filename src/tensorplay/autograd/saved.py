"""Saved tensors of custom Functions, and hooks on saving them.

``saved_tensors_hooks(pack, unpack)`` makes every tensor saved for backward
inside it go through ``pack`` when saved and ``unpack`` when used.
"""
import threading

from .engine import FREED_MSG  # noqa: F401


class _HookState(threading.local):
    stack = ()              # active (pack, unpack) pairs, innermost last
    disabled = None         # error message while disable_saved_tensors_hooks is active


hook_state = _HookState()


class SavedTensor:
    """One tensor saved by ``ctx.save_for_backward``: the tensor (or, for an
    output of the same node, only its data, to avoid a reference cycle), the
    version it had, and the pack hook's result if hooks were active."""
    __slots__ = ("tensor", "data", "out_nr", "version", "expected", "packed", "unpack_fn")

    def __init__(self, t, out_nr):
        self.version = t._shared_version()
        self.expected = self.version[0]
        self.out_nr = out_nr
        self.packed = self.unpack_fn = None
        if out_nr is None:
            self.tensor, self.data = t, None
        else:
            self.tensor, self.data = None, t._data
        if hook_state.stack:
            pack, unpack = hook_state.stack[-1]
            self.packed = pack(t if out_nr is None else _plain(t._data))
            self.unpack_fn = unpack
            self.tensor = self.data = None

    def unpack(self, node):
        from ..ops._registry import _tensor_type_name
        if self.version[0] != self.expected:
            src = self.tensor if self.tensor is not None else self.data
            what = (f"output {self.out_nr} of {node.name()}" if self.out_nr is not None else
                    "a leaf Variable" if getattr(src, "_grad_fn", None) is None else
                    f"output {getattr(src, '_out_nr', 0)} of {src._grad_fn.name()}")
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{_tensor_type_name(src) if src is not None else 'tensor'}], "
                f"which is {what}, is at version {self.version[0]}; expected version "
                f"{self.expected} instead. Hint: enable anomaly detection to find the operation "
                "that failed to compute its gradient, with "
                "tensorplay.autograd.set_detect_anomaly(True).")
        if self.unpack_fn is not None:
            t = self.unpack_fn(self.packed)
            if self.out_nr is not None:
                t = _as_output(t._data, node, self.out_nr)
            return t
        if self.out_nr is None:
            return self.tensor
        return _as_output(self.data, node, self.out_nr)


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
        return self

    def __exit__(self, *exc):
        hook_state.stack = hook_state.stack[:-1]


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
        self.prev = hook_state.disabled
        hook_state.disabled = self.error_message
        if hook_state.stack:
            raise RuntimeError(self.error_message)

    def __exit__(self, *exc):
        hook_state.disabled = self.prev
