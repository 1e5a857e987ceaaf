"""Legacy ``Variable`` (``torch.autograd.variable``): since PyTorch 0.4 every
tensor is one."""
import warnings

import numpy as np

from .. import _dtype
from .._autograd.engine import queue_callback, runs_everything
from .._tensor import Tensor, _wrap
from ._backward import backward, grad


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, Tensor)


class Variable(metaclass=_VariableMeta):
    """Legacy (PyTorch <= 0.3): ``Variable(tensor, requires_grad=False, volatile=False)``
    returns a Tensor, a new leaf sharing ``tensor``'s data (its history is not
    kept).  ``volatile`` has no effect and warns, as in PyTorch 2.x; every Tensor
    is an instance of ``Variable``."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                          "instead.", UserWarning, stacklevel=2)
        if data is None:
            return _wrap(np.zeros((0,), _dtype.get_default_dtype().np))
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        t = _wrap(data._data)
        t._vc = data._shared_version()
        if requires_grad:
            t._set_requires_grad(True, "Only Tensors of floating point and complex dtype can "
                                       "require gradients")
        return t


class _ExecutionEngine:
    """``Variable._execution_engine``: the engine as PyTorch's Python code calls it."""

    def run_backward(self, tensors, grad_tensors, keep_graph, create_graph, inputs=(),
                     allow_unreachable=True, accumulate_grad=True):
        """``accumulate_grad=True``: ``autograd.backward`` (into ``.grad``, restricted
        to ``inputs`` if given); else ``autograd.grad`` of ``tensors`` w.r.t. ``inputs``."""
        tensors = tuple(tensors)
        grad_tensors = tuple(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
        inputs = tuple(inputs) if inputs else ()
        if accumulate_grad:
            backward(tensors, grad_tensors, retain_graph=keep_graph, create_graph=create_graph,
                     inputs=inputs or None)
            return ()
        return grad(tensors, inputs, grad_tensors, retain_graph=keep_graph,
                    create_graph=create_graph, allow_unused=allow_unreachable)

    def queue_callback(self, callback):
        """Run ``callback()`` when the backward pass running now finishes."""
        queue_callback(callback)

    def is_checkpoint_valid(self):
        """False inside a backward pass that runs only towards some inputs."""
        return runs_everything()


Variable._execution_engine = _ExecutionEngine()
