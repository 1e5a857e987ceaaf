"""``backward`` and ``grad``: the user's entry points to the engine.

``backward`` accumulates gradients into leaves' ``.grad``; ``grad`` returns
them without touching ``.grad``.  Both make the seed gradients and the edges
to start from and to capture at, and run the one engine
(``tensorplay/_autograd/engine.py``).  ``Tensor.backward`` is attached here.
"""
import warnings
from collections.abc import Mapping

import numpy as np

from .. import _creation
from .._autograd.engine import run_backward
from .._tensor import Tensor, _wrap
from ..ops._registry import TRANSFORMS


def _as_tuple(x):
    """One tensor (or GradientEdge), or a sequence of them, as a tuple; a number
    is refused as PyTorch refuses it (``'float' object is not iterable``)."""
    if x is None:
        return None
    if isinstance(x, Tensor) or getattr(x, "_gradient_edge", None) is not None:
        return (x,)
    try:
        return tuple(x)
    except TypeError:
        if hasattr(x, "_edge"):         # (a text Variable: not a tensor, not a sequence)
            raise TypeError(f"expected Tensors, got a {type(x).__name__}: text Variables are "
                            f"differentiated by tensorplay.text.autodiff.backward (or "
                            f"Variable.backward)") from None
        raise


def _inputs_tuple(inputs, fn):
    """``inputs=`` as a tuple: a dict (PyTorch 2.10+) gives its values, and
    ``grad`` then answers with a dict of the same keys; other mappings are refused."""
    if type(inputs) is dict:
        return tuple(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `{fn}()` must be a dict, not {type(inputs).__name__}. "
                        "Other Mapping types are not supported.")
    return _as_tuple(inputs)


def _stochastic_node(t):
    """Legacy reinforce: the sampling node ``t`` is the output of, if it supports
    ``reinforce`` (see ``ops/random_ops.py``; multinomial indices keep theirs
    out of sight in ``__dict__``)."""
    fn = t._gfn
    if fn is None:
        fn = t.__dict__.get("_stochastic")
        if fn is None:
            return None
    return fn if fn.stochastic else None


def _edge_of(t, i, what="tensors"):
    edge = getattr(t, "_gradient_edge", None)
    if edge is not None:
        return edge()
    if not t._rg:
        node = _stochastic_node(t)
        if node is not None:        # legacy: backward from a reinforced multinomial sample
            return (node, 0)
        raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    return t._edge()


_ONE_0D = {np.dtype(t): np.ones((), t) for t in (np.float32, np.float64)}   # the usual seed


def _make_seeds(outputs, grad_outputs, is_grads_batched=False):
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    seeds = []
    for i, (o, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(o, Tensor):
            if getattr(o, "_gradient_edge", None) is None:
                raise TypeError(f"outputs must be Tensors, got {type(o).__name__}")
            # a GradientEdge: the seed has the shape of the tensor it was taken from
            if o._variable is None:
                if g is None:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                seeds.append(g)
                continue
            o = o._variable
        if g is None:
            if _stochastic_node(o) is not None:
                # legacy: ``sample.backward()`` after ``sample.reinforce(reward)``; the
                # reward, not this seed, is what the sampling node differentiates
                if _stochastic_node(o).reward is None:
                    raise RuntimeError("differentiating stochastic functions requires providing "
                                       "a reward")
                seeds.append(_creation.zeros_like(o))
                continue
            if o._rg:
                if o._data.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if o._data.dtype.kind == "c":
                    raise RuntimeError("grad can be implicitly created only for real scalar outputs "
                                       f"but got {o.dtype}")
            d = o._data
            seeds.append(_wrap(_ONE_0D[d.dtype].copy() if d.ndim == 0 and d.dtype in _ONE_0D
                               else np.ones(d.shape, d.dtype)))
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        if (g.shape[1:] if is_grads_batched else g.shape) != o.shape:
            if is_grads_batched:
                raise RuntimeError(f"If `is_grads_batched=True`, we interpret the first dimension "
                                   f"of each grad_output as the batch dimension. The sizes of the "
                                   f"remaining dimensions are expected to match the shape of "
                                   f"corresponding output, but a mismatch was detected: "
                                   f"grad_output[{i}] has a shape of {g.shape} and output[{i}] has "
                                   f"a shape of {o.shape}. If you only want some tensors in "
                                   f"`grad_output` to be considered batched, consider using vmap.")
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {o.shape}.")
        if g.is_complex() != o.is_complex():
            raise RuntimeError(f"For complex Tensors, both grad_output and output are required to "
                               f"have the same dtype. Mismatch in dtype: grad_output[{i}] has a dtype "
                               f"of {g.dtype} and output[{i}] has a dtype of {o.dtype}.")
        if g.dtype != o.dtype:
            g = g.to(o.dtype)
        seeds.append(g)
    if len(grad_outputs) != len(outputs):       # (after the pairs, as PyTorch checks them)
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients")
    return seeds


def backward(tensors=None, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None, retain_variables=None, variables=None):
    """Sum the gradients of ``tensors`` w.r.t. the graph leaves into their ``.grad``.

    ``grad_tensors`` is the "vector" of the vector-Jacobian product (needed for
    non-scalar outputs).  ``retain_graph`` keeps saved tensors for another
    backward (default: ``create_graph``).  ``create_graph`` records the
    backward itself so that it can be differentiated again.  ``inputs``
    restricts accumulation to those tensors (non-leaves accumulate into their
    own ``.grad``).

        >>> x = tensorplay.tensor([1., 2.], requires_grad=True)
        >>> tensorplay.autograd.backward((x * x).sum())
        >>> x.grad
        tensor([2., 4.])
    """
    if variables is not None:           # legacy name of ``tensors`` (PyTorch <= 0.3)
        warnings.warn("'variables' is deprecated. Use 'tensors' instead.", FutureWarning,
                      stacklevel=2)
        if tensors is not None:
            raise RuntimeError("'tensors' and 'variables' (deprecated) arguments both passed to "
                               "backward(). Please only use 'tensors'.")
        tensors = variables
    if tensors is None:
        raise TypeError("backward() missing required argument 'tensors'")
    if grad_variables is not None:
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.", FutureWarning,
                      stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments both "
                               "passed to `backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    if retain_variables is not None:
        warnings.warn("'retain_variables' is deprecated. Use 'retain_graph' instead.", FutureWarning,
                      stacklevel=2)
        if retain_graph is None:
            retain_graph = retain_variables
    if inputs is not None:
        inputs = _inputs_tuple(inputs, "backward")
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    tensors = _as_tuple(tensors)
    if not tensors:
        raise RuntimeError("backward() expects at least one tensor")
    grad_tensors = _as_tuple(grad_tensors)
    seeds = _make_seeds(tensors, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    roots = [_edge_of(t, i) for i, t in enumerate(tensors)]
    if create_graph and inputs is None:
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the "
            "parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this "
            "function, make sure to reset the .grad fields of your parameters to None after use "
            "to break the cycle and avoid the leak.", UserWarning, stacklevel=3)
    if inputs is None:
        run_backward(roots, seeds, retain_graph, create_graph)
        return
    for t in inputs:
        # as in PyTorch: a non-leaf input gets its .grad through retain_grad (the
        # hook fills it during the pass), a leaf (or a leaf's GradientEdge) through its
        # accumulator, which runs as the inputs' own nodes do (run_targets)
        if isinstance(t, Tensor):
            t.retain_grad()
    run_backward(roots, seeds, retain_graph, create_graph, [_input_edge(t) for t in inputs],
                 run_targets=True)


def _input_edge(t):
    edge = getattr(t, "_gradient_edge", None)
    if edge is not None:
        return edge()
    if not isinstance(t, Tensor):
        raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
    if not t._rg:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return t._edge()


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return the sum of gradients of ``outputs`` w.r.t. each of ``inputs``;
    ``.grad`` is not touched.

        >>> x = tensorplay.tensor(3., requires_grad=True)
        >>> g, = tensorplay.autograd.grad(x ** 3, x, create_graph=True)
        >>> g
        tensor(27., grad_fn=<MulBackward0>)
        >>> tensorplay.autograd.grad(g, x)
        (tensor(18.),)
    """
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). "
                      "To accumulate gradient for other parts of the graph, please use "
                      "torch.autograd.backward.", FutureWarning)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    keys = tuple(inputs) if type(inputs) is dict else None
    inputs = _inputs_tuple(inputs, "grad")
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if TRANSFORMS and _batched(outputs + inputs):
        return _grad_of_batched(outputs, inputs, grad_outputs, retain_graph, create_graph,
                                allow_unused, is_grads_batched, materialize_grads)
    seeds = _make_seeds(outputs, _as_tuple(grad_outputs), is_grads_batched)
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        result = _batched_grad(outputs, inputs, seeds, retain_graph, create_graph, allow_unused, False)
    else:
        roots = [_edge_of(o, i) for i, o in enumerate(outputs)]
        targets = [_input_edge(t) for t in inputs]
        result = run_backward(roots, seeds, retain_graph, create_graph, targets)
        if not allow_unused:
            for i, g in enumerate(result):
                if g is None:
                    raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                       "been used in the graph. Set allow_unused=True if this is "
                                       "the desired behavior.")
    if materialize_grads:
        # PyTorch's zeros: shaped as the input (also under is_grads_batched), a leaf that
        # requires grad when the result is to be differentiated again
        if any(g is None and not isinstance(t, Tensor) for g, t in zip(result, inputs)):
            raise RuntimeError("materialize_grads cannot be used when the given input is a "
                               "GradientEdge")
        result = [_creation.zeros_like(t, requires_grad=create_graph) if g is None else g
                  for g, t in zip(result, inputs)]
    if keys is not None:
        return dict(zip(keys, result))
    return tuple(result)


def _batched(tensors):
    from ..func._vmap import BatchedTensor      # the transforms sit above autograd
    return any(type(t) is BatchedTensor for t in tensors)


def _grad_of_batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                     is_grads_batched, materialize_grads):
    """``grad`` inside ``vmap`` of outputs or inputs batched there: the graph was
    recorded on their physical tensors, whose samples are independent, so the
    gradients of the physical tensors are, sample by sample, those asked for."""
    from ..func import _vmap
    if is_grads_batched:
        return _batched_grad(outputs, inputs, _make_seeds(outputs, _as_tuple(grad_outputs), True),
                             retain_graph, create_graph, allow_unused, materialize_grads)
    for i, o in enumerate(outputs):
        if isinstance(o, Tensor) and not o.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a "
                               f"grad_fn")
    seeds = _make_seeds(outputs, _as_tuple(grad_outputs))
    outs, cts, phys, back, levels = _vmap.autograd_pairs(list(outputs), list(seeds), list(inputs))
    with _vmap.physical_backward(cts, levels):
        got = grad(outs, phys, cts, retain_graph=retain_graph, create_graph=create_graph,
                   allow_unused=True) if outs else (None,) * len(phys)
    got = [_unused(i, p, materialize_grads, allow_unused) if g is None else g
           for i, (p, g) in enumerate(zip(phys, got))]
    return tuple(None if g is None else back(i, g) for i, g in enumerate(got))


def _unused(i, t, materialize_grads, allow_unused):
    """What ``grad`` gives for input ``i`` that nothing reached: zeros like
    ``t``, None, or PyTorch's error."""
    if materialize_grads:
        return _creation.zeros_like(getattr(t, "_variable", t))
    if not allow_unused:
        raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used "
                           "in the graph. Set allow_unused=True if this is the desired behavior.")
    return None


def _batched_grad(outputs, inputs, seeds, retain_graph, create_graph, allow_unused,
                  materialize_grads):
    """``grad(..., is_grads_batched=True)``: ``vmap`` of the vector-Jacobian
    product over the seeds' first dimension: one backward pass whose
    derivatives run on the whole batch of seeds (each op's batching rule)."""
    from ..func._vmap import vmap       # the transforms sit above autograd
    used = []

    def vjp(*batch):
        got = grad(outputs, inputs, list(batch), retain_graph=retain_graph,
                   create_graph=create_graph, allow_unused=True)
        used[:] = [g is not None for g in got]
        return tuple(g for g in got if g is not None)
    got = iter(vmap(vjp)(*seeds))
    # (materialized: PyTorch's zeros of the input, without the batch)
    return tuple(next(got) if used[i] else _unused(i, t, materialize_grads, allow_unused)
                 for i, t in enumerate(inputs))


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None, **kw):
    """``tensor.backward(...)`` is ``autograd.backward(tensor, ...)``."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs, **kw)


# made here, above the ops, as the op methods are made by tensorplay.ops
_tensor_backward.__name__, _tensor_backward.__qualname__ = "backward", "Tensor.backward"
Tensor.backward = _tensor_backward
