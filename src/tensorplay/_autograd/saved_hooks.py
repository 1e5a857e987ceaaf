"""Saved-tensor hook state, and the error for a saved value changed in place.

``saved_tensors_hooks(pack, unpack)`` makes every tensor saved for backward
inside it go through ``pack`` when saved and ``unpack`` when used.  Here is
only the state those hooks live in; the places that save (op nodes, custom
Functions) read it.
"""
import re
import threading

from .grad_mode import state


class _HookState(threading.local):
    stack = ()              # active (pack, unpack) pairs, innermost last
    disabled = None         # error message while disable_saved_tensors_hooks is active


hook_state = _HookState()
# Called with a tensor just before an in-place op writes into it (while
# ``autograd.graph.allow_mutation_on_saved_tensors`` is active): one list read per
# in-place op otherwise.
BEFORE_WRITE = []
ACTIVE = [0]   # saved_tensors_hooks contexts open in any thread: 0 lets ops skip the thread-local


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


_PACK_MODIFIED = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack "
    "hook cannot be modified by in-place operations as this can lead to unexpected side-effects. "
    "Please open an issue if you need to perform in-place operations on the input to a pack hook.")


def run_pack_hook(pack, t):
    """``pack(t)`` as PyTorch runs it: with grad mode off, and refused if it
    wrote into ``t`` (its version moved)."""
    before = t._version
    prev = state.enabled
    state.enabled = False
    try:
        packed = pack(t)
    finally:
        state.enabled = prev
    if t._version != before:
        raise RuntimeError(_PACK_MODIFIED)
    return packed


DETACHED_MSG = ("Trying to use a saved tensor that has been detached in-place, i.e. with "
                ".detach_().This is not supported, please use out-of-place `.detach()` instead")


HOOKED = object()      # check_register_hooks' value for a saved tensor that has hooks


def check_register_hooks(pack_hook, unpack_hook, freed, value):
    """PyTorch's checks of ``SavedTensor.register_hooks`` (on a node's
    ``_raw_saved_<name>`` or a Function's ``_raw_saved_tensors``): two callables,
    a saved tensor not yet freed, not None, without hooks already (``value`` is
    ``HOOKED`` then)."""
    if not callable(pack_hook) or not callable(unpack_hook):
        raise TypeError("register_hooks(): incompatible function arguments. Expected two "
                        "callables (pack_hook, unpack_hook)")
    if freed:
        raise RuntimeError(
            "Calling register_hooks on a saved tensor after it has been freed. Saved "
            "intermediate values of the graph are freed when you call .backward() or "
            "autograd.grad(). Specify retain_graph=True if you need to backward through the "
            "graph a second time or if you need to access saved variables after calling "
            "backward.")
    if value is None:
        raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")
    if value is HOOKED:
        raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already "
                           "been set. Hint: only one pair of hooks is allowed at a time.")


def _short_name(node):
    """How PyTorch's in-place error names a node: ``ExpBackward0`` -> ``Exp``."""
    return re.sub(r"Backward\d*$", "", node.name())


def _owner_desc(t):
    """"output k of Op" for a value recorded as an output of a node, else None."""
    fn = getattr(t, "_gfn", None)
    if fn is None:
        return None
    return f"output {getattr(t, '_out_nr', 0)} of {_short_name(fn)}"


def version_error(tname, owner, current, expected):
    """PyTorch's error for a saved tensor that was modified in place."""
    which = "" if owner is None else f", which is {owner},"
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{tname}]{which} is at version {current}; expected "
        f"version {expected} instead. Hint: enable anomaly detection to find the "
        "operation that failed to compute its gradient, with "
        "tensorplay.autograd.set_detect_anomaly(True, check_nan=False).")
