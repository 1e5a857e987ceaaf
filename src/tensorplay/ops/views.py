"""In-place ops on views, and keeping views' histories true.

A view remembers the chain of view ops that makes it from its root base.  An
in-place op on a view while gradients are recorded becomes, for autograd:

1. ``new_view = f(view)``: the op, out of place, on the view's current history;
2. ``new_base = copy_slices(base, new_view, chain)``: the base with the view's
   region replaced (PyTorch's CopySlices);
3. the base takes over ``new_base``'s history, and every live view of the base
   remakes its own from the base through its chain.

The memory written is only the view's region, as with any in-place op.
"""
import re

import numpy as np

from .._autograd.grad_mode import enable_grad
from ._families import OTHER
from ._registry import TRANSFORMS, defop, dispatch
from .inplace import _standin, _own_saved_copy, write_into, adopt, inplace_tangents


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


def _copy_slices_k(base, src, chain):
    out = base.copy()
    region = _apply_chain_np(out, chain)
    if region.size and not np.shares_memory(region, out):
        raise RuntimeError("internal error: a view chain did not produce a view")
    region[...] = src
    return out


copy_slices = defop(
    "copy_slices", _copy_slices_k,
    {"base": lambda g, chain: copy_slices(g, 0, chain),     # the region was overwritten
     "src": lambda g, chain: apply_chain(g, chain)},
    n_in=2, upcast=False, node_name="CopySlices", family=OTHER, linear=True)


def rebase_inplace_view(self, f, args, kwargs, name):
    base = self._base
    chain = self._view_chain
    check_view_inplace(self, chain)
    v_src = _standin(self)
    new_v = f(v_src, *args, **kwargs)
    _own_saved_copy(v_src, new_v)
    new_b = copy_slices(_standin(base), new_v, chain)
    write_into(self, new_v, name)
    adopt(base, new_b)
    regenerate_views(base)
    if TRANSFORMS:
        inplace_tangents(self, new_v)
    return self


def check_view_inplace(self, chain):
    """PyTorch's refusals before an in-place op on a view is differentiated."""
    for op, params, k in chain:
        if k is not None:
            name = re.sub(r"Backward\d*$", "", op.node_cls.__name__)
            raise RuntimeError(
                f"Output {k} of {name} is a view and is being modified inplace. This view is the "
                "output of a function that returns multiple views. Such functions do not allow "
                "the output views to be modified inplace. You should replace the inplace "
                "operation by an out-of-place one.")
    if not self._data.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor "
                           "refers to a single memory location. Please clone() the tensor before "
                           "performing the operation.")


def regenerate_views(base):
    """After ``base``'s history changed in place, give each of its live views the
    history "view of the new base"."""
    views = base.__dict__.get("_views")
    if not views:
        return
    with enable_grad():
        for v in list(views):
            chain = getattr(v, "_view_chain", None)
            if chain is None:
                continue
            r = apply_chain(base, chain)
            v._grad_fn, v._rg = r._grad_fn, r._rg
            if r._grad_fn is not None:
                v._out_nr = getattr(r, "_out_nr", 0)
            v._view_version = v._vc[0]
