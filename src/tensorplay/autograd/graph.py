"""The backward graph as users see it (``torch.autograd.graph``).

``Node``, ``GradientEdge`` and the hook handles are the autograd core's
(``tensorplay/_autograd/graph.py``), as is the saved-tensor hook state; here
are the functions over tensors built on them, and drawing the graph.
"""
from .._autograd.engine import current_pass, queue_callback
from .._autograd.graph import AccumulateGrad, GradientEdge, Node, RemovableHandle  # noqa: F401
from .._autograd.saved_hooks import (disable_saved_tensors_hooks, save_on_cpu,  # noqa: F401
                                     saved_tensors_hooks)
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
