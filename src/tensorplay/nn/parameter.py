import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _wrap


class Parameter(Tensor):
    """A leaf tensor meant to be optimised: ``requires_grad=True`` by default,
    whatever the grad mode (it is a factory)."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            arr = np.zeros((0,), D.get_default_dtype().np)
        else:
            arr = data._data
        p = object.__new__(cls)
        p._data = arr
        p._rg = False
        p._gfn = None
        p._vc = p._base = None
        if data is not None:
            p._vc = data._shared_version()
        if requires_grad:               # (PyTorch's words for a Parameter, as for a factory's)
            p._set_requires_grad(True, "Only Tensors of floating point and complex dtype can require "
                                 "gradients")
        return p

    def __init__(self, *args, **kwargs):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        return (Parameter, (_wrap(self._data), self._rg))

    def __deepcopy__(self, memo):
        p = Parameter(_wrap(self._data.copy()), self._rg)
        memo[id(self)] = p
        return p


class _BufferMeta(type):
    # a Buffer is a plain tensor marked as one: isinstance asks the mark
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and instance.__dict__.get("_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor that a module registers as a buffer when assigned as an
    attribute (``persistent=False``: left out of the state dict)."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _wrap(np.zeros((0,), D.get_default_dtype().np))
        t = data.detach().requires_grad_(data.requires_grad)
        t.__dict__["_is_buffer"] = True
        t.__dict__["persistent"] = persistent
        return t
