"""Reverse-mode levels: how ``grad``/``vjp`` keep their perturbations apart.

tensorplay has one tape (the autograd graph) for every reverse level.  A level
is kept apart from the others by *which tensors it differentiates with
respect to*, not by a separate graph:

- entering, the level gives each differentiated input a fresh tensor of its
  own (``lift``): an alias recorded on the tape if the input already requires
  grad (so outer levels still see through it), else a new leaf;
- the level's derivatives are ``autograd.grad(outputs, <those fresh tensors>)``:
  the engine captures the gradient flowing into exactly those tensors, so a
  tensor of an outer level that ``func`` closes over (or the very tensor the
  input was lifted from) is a constant here.  The classic perturbation
  confusion, ``d/dx [x * d/dy (x + y)](y=x)`` giving 2 instead of 1, would
  need the inner level to differentiate with respect to the outer ``x``
  itself; it differentiates with respect to its alias of it;
- with ``create_graph=True`` the backward pass is itself recorded, so the
  gradient stays a differentiable function of everything outer levels
  differentiate (the closed-over ``x`` included);
- leaving, results are lowered (``Level.lower``): a result whose history
  reaches only the fresh leaves of this level and of the levels nested in it
  (all closed: nothing can differentiate with respect to them any more) loses
  it (so ``grad(f)(x)`` returns plain tensors), one that reaches anything
  else keeps it.

The grad mode a level was entered under decides what lies outside it: a
level entered under ``no_grad`` records nothing for the outside (PyTorch's
NOTE [grad and vjp interaction with no_grad]), while ``func`` runs with grad
enabled and its own ``no_grad`` blocks hold at every level.

Forward-mode levels are ``autograd.forward_ad``'s ``DualLevel``; tangents are
per level, so lifting and lowering carry every open forward level's tangent
over to the new tensor.
"""
from .._autograd.graph import AccumulateGrad
from .._autograd.grad_mode import state
from .._tensor import Tensor
from ..autograd import forward_ad
from ..ops._registry import REGISTRY, dispatch
from . import _vmap

# the open reverse levels, outermost first (what is open, for the curious and
# for the tests; the levels themselves need only their own fresh tensors)
LEVELS = []


class Level:
    """One ``grad``/``vjp`` call and the grad mode outside it.  Its fresh leaves
    carry it as ``_lifted_by``."""
    __slots__ = ("outer_grad", "_prev", "__weakref__")

    def __init__(self):
        self.outer_grad = state.enabled

    def __enter__(self):
        LEVELS.append(self)
        self._prev = state.enabled
        state.enabled = True
        return self

    def __exit__(self, *exc):
        state.enabled = self._prev
        LEVELS.pop()

    # -- in
    def lift(self, t):
        """This level's own tensor for the differentiated input ``t`` (inside
        vmap: batched at every open vmap level, see ``_vmap.lift_batched``)."""
        if not isinstance(t, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
        if _vmap.active_levels():
            return _vmap.lift_batched(t, self._lift_plain)
        return self._lift_plain(t)

    def _lift_plain(self, t):
        if t._rg:
            # recorded: outer levels differentiate through it; a fresh node, so
            # this level's targets are never an outer level's tensor
            a = dispatch(REGISTRY["alias"], [t])
        else:
            a = _carry_tangents(t, t.detach())
            a.requires_grad_()
            a.__dict__["_lifted_by"] = self
        return a

    # -- out
    def _outside(self, leaf):
        """Whether something outside this level can differentiate with respect to
        ``leaf``: a user's leaf, or the fresh leaf of a level around this one
        (not this level's own, nor those of levels nested in it, all closed)."""
        by = leaf.__dict__.get("_lifted_by")
        return by is None or (by is not self and by in LEVELS)

    def reaches_outside(self, tensors):
        """Whether the history of any of ``tensors`` reaches a leaf that
        requires grad and that something outside this level can differentiate."""
        stack = []
        for t in tensors:
            t = _vmap.physical(t)[0] if isinstance(t, Tensor) else t
            if isinstance(t, Tensor) and t._rg:
                if t._gfn is None:
                    if self._outside(t):
                        return True
                else:
                    stack.append(t._gfn)
        seen = set()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if type(node) is AccumulateGrad:
                if self._outside(node.variable):
                    return True
                continue
            for e in node.next_edges:
                if e is not None:
                    stack.append(e[0])
        return False

    def lower(self, t, keep_graph):
        """``t`` as the outside sees it: without history if ``keep_graph`` is
        false or its history stays inside this level; open forward levels'
        tangents are kept (lowered too)."""
        if type(t) is _vmap.BatchedTensor:
            p, rewrap = _vmap.physical(t)
            return rewrap(self.lower(p, keep_graph))
        if not isinstance(t, Tensor) or not _has_history(t):
            return t
        if keep_graph and self.reaches_outside((t,)):
            return t
        d = t.detach()
        for lv in forward_ad._levels:
            tg = lv.tangent(t)
            if tg is not None:
                lv.set_tangent(d, self.lower(tg, keep_graph))
        return d


def _has_history(t):
    if t._rg:
        return True
    d = t.__dict__.get("_fw_grads")
    return bool(d) and any(_has_history(g) for g in d.values())


def _carry_tangents(src, dst):
    """Give ``dst`` the tangents ``src`` has at the open forward levels."""
    d = src.__dict__.get("_fw_grads")
    if d:
        for lv in forward_ad._levels:
            tg = d.get(lv)
            if tg is not None:
                lv.set_tangent(dst, tg)
    return dst
