"""In-place ops on views, and keeping views' histories true.

A view remembers the chain of view ops that makes it from its root base.  An
in-place op on a view while gradients are recorded becomes, for autograd:

1. ``new_view = f(view)``: the op, out of place, on the view's current history;
2. ``new_base = copy_slices(base, new_view, chain)``: the base with the view's
   region replaced (PyTorch's CopySlices);
3. the base takes over ``new_base``'s history.

Every live view of the base (the written one included) now has a stale
history: the shared version counter has moved past the version its history
was made at (``_view_version``).  A view's history is remade from the base
through its chain when it is next needed (``refresh_view``, reached from the
readers of ``_gfn``), as PyTorch regenerates a view's ``grad_fn``: a
write costs the same however many views the base has.

The memory written is only the view's region, as with any in-place op.
"""
import re

import numpy as np

from .._autograd.grad_mode import enable_grad
from .._tensor import Tensor
from ._families import OTHER
from ._registry import TRANSFORMS, defop, dispatch
from .inplace import (FN_VIEW_MSG, MULTI_VIEW_MSG, _standin, _own_saved_copy, write_into, adopt,
                      inplace_tangents, move_retain_grad, _writable, copy_overlapping)


def apply_chain(t, chain):
    """Remake a view from ``t`` (a tensor shaped like the root base) with tensorplay ops."""
    for op, params, k in chain:
        r = dispatch(op, [t, *params])
        t = r if k is None else r[k]
    return t


def _apply_chain_np(a, chain):
    """The same chain on a NumPy array: the result is a NumPy view into ``a``."""
    for op, params, k in chain:
        r = op.kernel(a, *params)
        a = r if k is None else r[k]
    return a


def _copy_slices_k(base, src, chain, layout=None):
    out = base.copy(order="K")          # (base's layout: the chain may read strides, as_strided)
    region = _apply_chain_np(out, chain)
    if region.size and not np.shares_memory(region, out):
        raise RuntimeError("internal error: a view chain did not produce a view")
    if not region.flags.writeable:      # distinct elements of an expand (checked before)
        region = _writable(region)
    copy_overlapping(region, src)
    return out


def _layout(d):
    """How the memory of a base is laid out, for remaking a gradient like it: None
    when C-contiguous, else its dims from the largest stride to the smallest."""
    if d.flags.c_contiguous:
        return None
    st = d.strides
    return tuple(sorted(range(d.ndim), key=lambda i: -st[i]))


def _laid_out(g, layout):
    """``g`` (shaped like a base) laid out in memory as the base was, which is what
    its view chain was made on: a chain may hold a ``view`` that only that layout
    allows (an incoming gradient may be an expand) or an ``as_strided`` that reads
    the strides themselves (PyTorch's CopySlices restrides its gradient likewise).
    A base whose memory has gaps gets the same order of strides without the gaps."""
    if layout is None:
        return g.contiguous()
    inverse = sorted(range(len(layout)), key=layout.__getitem__)
    return g.permute(layout).contiguous().permute(inverse)


_copy_slices = defop(
    "copy_slices", _copy_slices_k,
    {"base": lambda g, chain, layout: _copy_slices(_laid_out(g, layout), 0, chain, layout),
     "src": lambda g, chain, layout: apply_chain(_laid_out(g, layout), chain)},
    n_in=2, upcast=False, node_name="CopySlices", family=OTHER, linear=True)
# PyTorch's CopySlices lets go of the node it wraps after a backward: a second pass
# through an in-place write on a view raises without retain_graph, as there
_copy_slices.op.saves_arrays = True


def copy_slices(base, src, chain):
    """``base`` with the region its view ``chain`` selects replaced by ``src``
    (the region was overwritten: the region's gradient goes to ``src`` only)."""
    return _copy_slices(base, src, chain, _layout(base._data))


def rebase_inplace_view(self, f, args, kwargs, name):
    base = self._base
    chain = self._view_chain
    check_view_inplace(self, chain)
    v_src = _standin(self)
    node = v_src._gfn
    if node is not None and node._hooked:
        # PyTorch's CopySlices sends the region's gradient to the base without
        # passing the view's node, so hooks on it (the view's tensor hooks, the
        # node's own) do not fire: the pre-op value takes a history of its own
        with enable_grad():
            fresh = apply_chain(_standin(base), chain)
        v_src._gfn, v_src._out_nr = fresh._gfn, fresh._out_nr
    new_v = f(v_src, *args, **kwargs)
    _own_saved_copy(v_src, new_v)
    new_b = copy_slices(_standin(base), new_v, chain)
    write_into(self, new_v, name)
    was = base._rg
    adopt(base, new_b)
    if base._rg is not was:
        views_follow_requires_grad(base)
    refresh_view(self)          # the written view's history now, as PyTorch (its siblings' later)
    if TRANSFORMS:
        inplace_tangents(self, new_v)
    return self


def _refuse_multi_output(chain, what, history):
    """PyTorch's refusal for a view that is one of several views an op returned:
    ``what`` says how it was written ("is being", or through its base);
    ``history``, whether the view had one (else PyTorch words it as a view made
    without grad: its base did not require grad when it was made)."""
    for op, params, k in chain:
        if k is not None:
            if history:
                name = re.sub(r"Backward\d*$", "", op.node_cls.__name__)
                head = f"Output {k} of {name} is a view and {what} modified inplace."
            else:
                head = f"A view was created in no_grad mode and {what} modified inplace with grad " \
                       "mode enabled."
            raise RuntimeError(
                f"{head} This view is the output of a function that returns multiple views. Such "
                "functions do not allow the output views to be modified inplace. You should "
                "replace the inplace operation by an out-of-place one.")


def check_view_inplace(self, chain):
    """PyTorch's refusals before an in-place op on a view is differentiated."""
    _refuse_multi_output(chain, "is being", self._gfn is not None)
    if not self._data.flags.writeable:
        _writable(self._data)           # (raises unless its elements are distinct memory)


def views_follow_requires_grad(base):
    """``base`` started (or stopped) requiring grad through an in-place op: so do
    its views (their histories are remade when next needed)."""
    views = base._views
    if views:
        rg = base._rg
        for v in views:
            v._rg = rg


def refresh_view(v):
    """Remake the history of view ``v`` from its base's current history through
    its chain (its memory was written in place since its history was made).
    PyTorch's refusals come first: a view made under no_grad, or one of several
    views an op returned, cannot take a history through the write.  A retained
    grad moves to the new history."""
    base = v._base
    version = v._vc[0]
    if v._gfn is None and not base._rg:
        v._view_version = version         # nothing to differentiate: nothing to remake
        return
    chain = v._view_chain
    fv = v._fn_view
    if fv is not None:
        raise RuntimeError(f"Output {fv[0]} of {fv[1]} is a view and its base or another view of "
                           "its base has been modified inplace. " +
                           (MULTI_VIEW_MSG if fv[2:] == (True,) else FN_VIEW_MSG))
    if getattr(v, "_nograd_view", False):
        raise RuntimeError(
            "A view was created in no_grad mode and its base or another view of its base has been "
            "modified inplace with grad mode enabled. Given that this use case is ambiguous and "
            "error-prone, it is forbidden. You can clarify your code by moving both the view and "
            "the inplace either both inside the no_grad block (if you don't want the inplace to be "
            "tracked) or both outside (if you want the inplace to be tracked).")
    _refuse_multi_output(chain, "its base or another view of its base has been", v._gfn is not None)
    with enable_grad():
        r = apply_chain(base, chain)
    if v.__dict__.get("_retains_grad"):
        # a retained grad follows the view's new history
        move_retain_grad(v, r._gfn, getattr(r, "_out_nr", 0))
    v._gfn, v._rg = r._gfn, r._rg
    if r._gfn is not None:
        v._out_nr = r._out_nr
    v._view_version = version


Tensor._refresh_history = refresh_view
