"""The backward graph as users see it (``torch.autograd.graph``).

``Node``, ``GradientEdge`` and the hook handles are the autograd core's
(``tensorplay/_autograd/graph.py``), as is the saved-tensor hook state; here
are the functions over tensors built on them, and drawing the graph.
"""
from .._autograd.engine import current_pass, queue_callback
from .._autograd.graph import AccumulateGrad, GradientEdge, Node, RemovableHandle  # noqa: F401
from .._autograd.saved_hooks import (disable_saved_tensors_hooks, save_on_cpu,  # noqa: F401
                                     saved_tensors_hooks, BEFORE_WRITE)
from .._tensor import _wrap
from .graphviz import render, to_dot  # noqa: F401  (seeing the graph)


def get_gradient_edge(tensor):
    """The edge a gradient for ``tensor`` flows into (its grad_fn's output, or
    its AccumulateGrad if it is a leaf)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    node, nr = tensor._edge()
    return GradientEdge(node, nr, tensor)


def increment_version(tensor):
    """Mark ``tensor`` (or each of a sequence) as modified in place, for code that
    writes into its memory behind autograd's back."""
    for t in (tensor if isinstance(tensor, (list, tuple)) else (tensor,)):
        t._bump()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call ``fn`` once per backward pass with the gradients of ``tensors``.

    ``mode="all"``: ``fn(grads)`` after the pass, with None for the tensors whose
    gradient was not computed in it.  ``mode="any"``: ``fn(grad)`` with the first
    of their gradients computed in the pass.  Returns a handle with ``remove()``.
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    state = {"run": None, "grads": None}

    def current():
        run = current_pass()
        if state["run"] != run:
            state["run"], state["grads"] = run, [None] * len(tensors)
            if mode == "all":
                def finish(grads=state["grads"]):
                    fn(tuple(grads))
                queue_callback(finish)
            return True
        return False

    def make(i):
        def hook(g):
            first = current()
            if mode == "all":
                state["grads"][i] = g
            elif first:
                fn(g)
        return hook

    handles = [t.register_hook(make(i)) for i, t in enumerate(tensors) if t.requires_grad]

    class _Handle:
        def remove(self):
            for h in handles:
                h.remove()
    return _Handle()


# ------------------------------------------------------------------ allow_mutation_on_saved_tensors
class _Handle:
    """What the pack hook of ``allow_mutation_on_saved_tensors`` keeps for one
    saved tensor: the tensor, and its clone once something writes into its memory."""
    __slots__ = ("original", "cloned", "__weakref__")

    def __init__(self, original):
        self.original, self.cloned = original, None


def _memory_root(a):
    while a.base is not None and hasattr(a.base, "base"):
        a = a.base
    return id(a)


class _AllowMutationOnSavedContext:
    """The state of one ``allow_mutation_on_saved_tensors`` block: the saved
    tensors by the memory they live in (cleared when the block exits)."""

    def __init__(self):
        self.by_memory = {}         # id of the root array -> [_Handle]

    def clear(self):
        self.by_memory.clear()


_mutation_enabled = [False]
_OUTSIDE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
            "in which the graph was originally recorded.")


class allow_mutation_on_saved_tensors:
    """Context manager under which mutating tensors saved for backward is allowed:
    a saved tensor is cloned just before something writes into its memory, and the
    backward uses the clone.  Run forward and backward inside the same block.

        >>> with tensorplay.autograd.graph.allow_mutation_on_saved_tensors():
        ...     a = tensorplay.ones(2, 3, requires_grad=True)
        ...     b = a.clone()
        ...     out = (b ** 2).sum()
        ...     _ = b.sin_()
        ...     out.sum().backward()
        >>> a.grad
        tensor([[2., 2., 2.],
                [2., 2., 2.]])
    """

    def __enter__(self):
        if _mutation_enabled[0]:
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        ctx = self.ctx = _AllowMutationOnSavedContext()

        def pack(t):
            h = _Handle(t)
            ctx.by_memory.setdefault(_memory_root(t._data), []).append(h)
            return h

        def unpack(h):
            if not _mutation_enabled[0]:
                raise AssertionError(_OUTSIDE)
            return h.cloned if h.cloned is not None else h.original

        def before_write(t):
            for h in ctx.by_memory.get(_memory_root(t._data), ()):
                if h.cloned is None:
                    o = h.original
                    c = _wrap(o._data.copy())
                    c._rg, c._gfn = o._rg, o._gfn
                    if o._gfn is not None:
                        c._out_nr = o._out_nr
                    h.cloned = c

        self.hooks = saved_tensors_hooks(pack, unpack)
        self.hooks.__enter__()
        self.before_write = before_write
        BEFORE_WRITE.append(before_write)
        _mutation_enabled[0] = True
        return ctx

    def __exit__(self, *exc):
        _mutation_enabled[0] = False
        BEFORE_WRITE.remove(self.before_write)
        self.hooks.__exit__(*exc)
        self.ctx.clear()
        return False
