"""Tensors saved by custom Functions (``ctx.save_for_backward``).

Each is stored with its version, and through the active saved-tensor hooks
(their state lives in the autograd core, ``_autograd/saved_hooks.py``).
"""
import weakref

import numpy as np

from .._autograd.engine import FREED_MSG
from .._autograd.grad_mode import state
from .._autograd.saved_hooks import hook_state, version_error, _owner_desc, _short_name
from .._autograd.saved_hooks import HOOKED, check_register_hooks, run_pack_hook
from .._autograd.saved_hooks import (disable_saved_tensors_hooks, save_on_cpu,  # noqa: F401
                                     saved_tensors_hooks)     # (were defined here)
from .._tensor import Tensor, _wrap
from ..ops._registry import _tensor_type_name, reattached


class SavedTensor:
    """One tensor saved by ``ctx.save_for_backward``: the tensor (or, for an
    output of the same node, only its data, to avoid a reference cycle), the
    version it had, and the pack hook's result if hooks were active.

    With hooks, a later in-place change of the saved tensor is harmless if the
    hook kept its own copy; if what the hooks hand back still shares memory
    with the original, the change is an error as without hooks."""
    __slots__ = ("tensor", "data", "out_nr", "version", "expected", "packed", "unpack_fn",
                 "orig", "desc", "edge")

    def __init__(self, t, out_nr):
        self.version = t._shared_version()
        self.expected = self.version[0]
        self.out_nr = out_nr
        self.packed = self.unpack_fn = self.orig = self.desc = self.edge = None
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
            self._keep_edge(t)
            self.packed = run_pack_hook(pack, t if out_nr is None else _plain(t._data))
            self.unpack_fn = unpack
            self.tensor = self.data = None

    def _keep_edge(self, t):
        """Where the saved input's gradient flows: the unpacked value is put back
        there (``reattached``), as without hooks the saved tensor itself is."""
        if self.out_nr is None and t._rg:
            self.edge = t._edge()

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
                return _as_output(t._data, node, self.out_nr)
            if not isinstance(t, Tensor):
                raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but "
                                f"got result of type {type(t).__name__}")
            return reattached(t, self.edge)
        if changed:
            raise self._version_error(node)
        if self.out_nr is None:
            return self.tensor
        return _as_output(self.data, node, self.out_nr)


class RawSavedTensor:
    """One entry of a custom Function node's ``_raw_saved_tensors``."""
    __slots__ = ("node", "index")

    def __init__(self, node, index):
        self.node, self.index = node, index

    def _record(self, reading=True):
        saved = self.node._saved
        if saved is None:
            if reading:
                raise RuntimeError(FREED_MSG)
            return None
        return saved[self.index]

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack this saved tensor now with ``pack_hook``; backward gets it back
        through ``unpack_hook``."""
        s = self._record(reading=False)
        check_register_hooks(pack_hook, unpack_hook, self.node._saved is None,
                             HOOKED if s is not None and s.unpack_fn is not None else s)
        t = s.tensor if s.out_nr is None else _plain(s.data)
        try:
            s.orig = weakref.ref(t._data)
        except TypeError:
            s.orig = None
        s.desc = (_tensor_desc(t), None if s.out_nr is not None else _owner_desc(t))
        s._keep_edge(t)
        s.packed = run_pack_hook(pack_hook, t)
        s.unpack_fn = unpack_hook
        s.tensor = s.data = None

    @property
    def data(self):
        s = self._record()
        if s is None:
            return None
        if s.unpack_fn is not None:
            return s.packed
        return s.tensor if s.out_nr is None else _plain(s.data)

    @property
    def unpack_hook(self):
        s = self._record()
        return None if s is None else s.unpack_fn


def _tensor_desc(t):
    return _tensor_type_name(t)


def _aliases(obj, orig, depth=2):
    """True if ``obj`` (a tensor, or a tuple/list/dict holding some) may share
    memory with the array ``orig()``."""
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
    return _wrap(data)


def _as_output(data, node, nr):
    t = _wrap(data)
    if state.enabled:
        t._gfn, t._rg, t._out_nr = node, True, nr
    fw = node._fw_out
    if fw is not None:              # forward-over-reverse: the output's tangents (forward_ad)
        fw(t, nr)
    return t
