"""tensorplay.text.autodiff: backward over text graphs, and the grad modes.

``backward`` makes the seeds and edges and runs tensorplay's one engine
(``tensorplay/_autograd/engine.py``), exactly as ``tensorplay.autograd.backward``
does for tensors; only the seeds and the checks on them are the text module's.
The grad modes are the very objects tensors use: one thread-local switch
turns recording off for both.

Unlike tensors, and on purpose (afnio's contract), every Variable in
``inputs=`` must be a leaf; that rule lives only here.
"""
from .._autograd.engine import run_backward
from .._autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .._tensor import Tensor
from ._variable import Variable

__all__ = ["backward", "enable_grad", "is_grad_enabled", "no_grad", "set_grad_enabled"]


def _as_tuple(x):
    """``x`` as a tuple: a Variable (or a GradientEdge) alone, any other iterable its
    items (a generator or a set, as tensors' backward takes them)."""
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        return tuple(x)
    if isinstance(x, (Variable, Tensor, str, bytes)) or hasattr(x, "_gradient_edge") or not hasattr(x, "__iter__"):
        return (x,)
    return tuple(x)


def _check_feedback(i, g, out):
    if not isinstance(g, Variable):
        raise TypeError(f"grad_variables can be either Variables or None, but got "
                        f"{type(g).__name__}")
    if not _fits(g._data, out._data):
        raise ValueError(f"Mismatch in shape: grad_variables[{i}] must be text, or a batch of "
                         f"text (None for no feedback on a sample) shaped like variables[{i}]'s "
                         f"data, got {g._data!r} for {out._data!r}")
    return (g,)


def _fits(fb, data):
    """Feedback is text; on a batch it may also be a batch of the same shape."""
    if type(fb) is not list:
        return isinstance(fb, str)
    if type(data) is not list or len(fb) != len(data):
        return False
    return all(f is None or _fits(f, d) for f, d in zip(fb, data))


def _seed(i, v, g):
    if not isinstance(v, Variable):
        raise TypeError(f"variables must be Variables, got {type(v).__name__}")
    if not v._rg:
        raise RuntimeError(f"element {i} of variables does not require grad and does not have a "
                           f"grad_fn")
    if v._gfn is None:
        raise RuntimeError(f"element {i} of variables is a leaf: backward() starts from a "
                           f"Variable computed by an op, and sends its feedback to the leaves")
    if g is not None:
        return _check_feedback(i, g, v)
    implicit = getattr(v._gfn, "implicit_grad", None)
    seed = None if implicit is None else implicit(v._out_nr)
    if seed is None:
        raise RuntimeError(f"feedback can be implicitly created only for the outputs of "
                           f"evaluators; pass a feedback Variable for element {i} of variables "
                           f"(grad_variables=, or gradient= of Variable.backward)")
    return seed


def backward(variables, grad_variables=None, retain_graph=None, create_graph=False, inputs=None):
    """Send feedback from ``variables`` back through the graph; each leaf that
    requires grad appends what reaches it to its ``.grad``.

    ``grad_variables``: the feedback on each of ``variables`` (a feedback Variable
    whose data is text, or a batch of text shaped like the variable's data), or
    None for an evaluator's output, whose feedback is its explanation.
    ``retain_graph`` keeps the graph for another backward (default:
    ``create_graph``).  ``inputs``: only these leaves (or their GradientEdges)
    receive feedback (each must be a leaf, else ``RuntimeError``), and only
    what leads to them runs.

        >>> import tensorplay.text as tt
        >>> a = tt.Variable("Hi", role="greeting", requires_grad=True)
        >>> b = a + tt.Variable("!")
        >>> tt.autodiff.backward(b, tt.Variable("Too short."))
        >>> print(a.grad[0].data)
        Feedback on the result of an addition in which the greeting was the left operand:
        Too short.
    """
    if create_graph:
        raise NotImplementedError("create_graph=True: feedback Variables record no graph of "
                                  "their own, so there is nothing to differentiate again")
    variables = _as_tuple(variables)
    if not variables:
        raise RuntimeError("backward() expects at least one Variable")
    grads = _as_tuple(grad_variables)
    if grads is None:
        grads = (None,) * len(variables)
    if len(grads) != len(variables):
        raise RuntimeError(f"got {len(variables)} variables and {len(grads)} gradients")
    seeds = [_seed(i, v, g) for i, (v, g) in enumerate(zip(variables, grads))]
    roots = [v._edge() for v in variables]
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is None:
        run_backward(roots, seeds, retain_graph, False)
        return
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    # a GradientEdge stands for the Variable it was taken from (a hand-made one of a
    # leaf's accumulator: that leaf)
    inputs_given = inputs
    inputs = tuple(_edge_variable(v) if hasattr(v, "_gradient_edge") else v for v in inputs)
    for i, v in enumerate(inputs):
        if not isinstance(v, Variable):
            raise TypeError(f"inputs must be Variables or GradientEdges taken from them "
                            f"(get_gradient_edge), got {type(inputs_given[i]).__name__}")
        if v._gfn is not None:
            raise RuntimeError(f"element {i} of inputs is not a leaf Variable: with inputs=, "
                               f"feedback is accumulated only into leaves")
        if not v._rg:
            raise RuntimeError("One of the differentiated Variables does not require grad")
    # the inputs' own accumulators run (their node hooks fire, as for tensors'
    # backward(inputs=)), each once however often it is listed
    run_backward(roots, seeds, retain_graph, False, [v._edge() for v in dict.fromkeys(inputs)],
                 run_targets=True)


def _edge_variable(edge):
    v = getattr(edge, "_variable", None)
    if v is None:
        v = getattr(edge.node, "variable", None)       # (an AccumulateGrad's leaf)
    return v


def _variable_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """``variable.backward(...)`` is ``autodiff.backward(variable, ...)``."""
    backward(self, gradient, retain_graph, create_graph, inputs)


_variable_backward.__name__, _variable_backward.__qualname__ = "backward", "Variable.backward"
Variable.backward = _variable_backward
