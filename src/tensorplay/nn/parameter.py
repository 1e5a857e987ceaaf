import sys

import numpy as np

from .. import _creation
from .. import _dtype as D
from .._tensor import Tensor, _differentiable_dtype, _wrap, check_device


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


# ---------------------------------------------------------------- uninitialised (lazy) tensors
# The slot that holds a tensor's array: an uninitialised tensor keeps its (empty) array
# there, but reading ``_data`` through the class, as every op does, raises.
_DATA = Tensor.__dict__["_data"]

_SHAPE_MSG = ("Can't access the shape of an uninitialized parameter or buffer. This error usually "
              "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
              "initialized one. Call `forward` to initialize the parameters before accessing their "
              "attributes.")
_SHARE_MSG = ("Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
              "initialize the parameters before calling `module.share_memory()`.")

# Tensor methods an uninitialised tensor still answers (PyTorch's list), besides those the
# mixin defines itself
_ALLOWED = frozenset({"cpu", "cuda", "get_device"})


def _use_error(cls, what):
    return ValueError(
        f"Attempted to use an uninitialized parameter in {what}. This error happens when you are "
        f"using a `LazyModule` or explicitly manipulating `tensorplay.nn.parameter.{cls.__name__}` "
        f"objects. When using LazyModules Call `forward` with a dummy batch to initialize the "
        f"parameters before calling tensorplay functions")


class UninitializedTensorMixin:
    """What ``UninitializedParameter`` and ``UninitializedBuffer`` share: a
    tensor with no shape yet (a lazy module's, until its first forward).  It
    keeps its dtype and ``requires_grad``; anything else (an op, a method
    reading its values, ``.shape``) raises, until ``materialize(shape)`` gives
    it storage and makes it a ``cls_to_become`` (a Parameter, a plain tensor),
    the same object."""
    __slots__ = ()
    cls_to_become = None

    # ---- the refusals
    @property
    def _data(self):
        f = sys._getframe(1)
        if f.f_code is _GETATTRIBUTE_CODE:      # (read through __getattribute__)
            f = f.f_back
        raise _use_error(type(self), f"<function {f.f_code.co_name}>")

    @_data.setter
    def _data(self, value):
        _DATA.__set__(self, value)

    def __getattribute__(self, name):
        # a Tensor method (not a property, not this class's own) other than the allowed
        # ones raises; a property that reads the values raises through ``_data``
        if name[:1] != "_":
            for klass in type(self).__mro__:
                if name in klass.__dict__:
                    if not issubclass(klass, UninitializedTensorMixin) and name not in _ALLOWED:
                        v = klass.__dict__[name]
                        if isinstance(v, (staticmethod, classmethod)) or \
                                (callable(v) and not isinstance(v, type)):
                            raise _use_error(type(self), f"<method '{name}' of 'Tensor' objects>")
                    break
        return object.__getattribute__(self, name)

    @property
    def shape(self):
        raise RuntimeError(_SHAPE_MSG)

    def share_memory_(self):
        raise RuntimeError(_SHARE_MSG)

    # ---- what still works: the metadata, dtype conversion, copy_ (of nothing)
    def _alias(self):
        return _wrap(_DATA.__get__(self))

    def __init__(self, *args, **kwargs):
        pass

    @property
    def data(self):
        return self._alias()

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        _DATA.__set__(self, _DATA.__get__(value))

    @property
    def dtype(self):
        return D._FROM_NP[_DATA.__get__(self).dtype]

    @property
    def ndim(self):
        return _DATA.__get__(self).ndim

    @property
    def nbytes(self):
        return _DATA.__get__(self).nbytes

    @property
    def itemsize(self):
        return _DATA.__get__(self).itemsize

    def size(self, dim=None):
        return self._alias().size(dim)

    def is_floating_point(self):
        return self._alias().is_floating_point()

    def is_complex(self):
        return self._alias().is_complex()

    def _set_requires_grad(self, flag, dtype_msg):
        if flag and not _differentiable_dtype(_DATA.__get__(self).dtype):
            raise RuntimeError(dtype_msg)
        self._rg = flag

    def copy_(self, src, non_blocking=False):
        # (copies into the empty array: only an empty source fits, as PyTorch's)
        if isinstance(src, UninitializedTensorMixin):
            src = src._alias()
        _wrap(_DATA.__get__(self), self._rg).copy_(src, non_blocking)
        return self

    def _converted(self, t):
        """What a conversion to another dtype gives: a plain tensor (PyTorch's for a
        parameter); ``UninitializedBuffer`` makes a new uninitialised buffer."""
        return t

    def to(self, *args, **kwargs):
        alias = self._alias()
        r = alias.to(*args, **kwargs)
        return self if r is alias else self._converted(r)

    def half(self):
        return self.to(D.float16)

    def float(self):
        return self.to(D.float32)

    def double(self):
        return self.to(D.float64)

    def char(self):
        return self.to(D.int8)

    def short(self):
        return self.to(D.int16)

    def int(self):
        return self.to(D.int32)

    def long(self):
        return self.to(D.int64)

    def materialize(self, shape, device=None, dtype=None):
        """Give the tensor storage of ``shape`` (values unset: the module's
        ``reset_parameters`` fills them) and make it a ``cls_to_become``."""
        check_device(device)
        dt = self.dtype if dtype is None else D.to_dtype(dtype)
        _DATA.__set__(self, _creation.empty(shape, dtype=dt)._data)
        object.__setattr__(self, "__class__", type(self).cls_to_become)

    def _remade(self):
        """A new uninitialised tensor like this one."""
        return type(self)(self._rg, None, self.dtype)

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __format__(self, spec):
        return format(repr(self), spec)

    def __reduce_ex__(self, proto):
        return (type(self), (self._rg,))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = self._remade()
        return memo[id(self)]


_GETATTRIBUTE_CODE = UninitializedTensorMixin.__getattribute__.__code__


def is_lazy(param):
    """Whether ``param`` is an uninitialised parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)


def _uninitialized(cls, requires_grad, device, dtype):
    check_device(device)
    dt = D.get_default_dtype() if dtype is None else D.to_dtype(dtype)
    t = object.__new__(cls)
    _DATA.__set__(t, np.empty((0,), dt.np))
    t._rg = False
    t._gfn = None
    t._vc = t._base = None
    if requires_grad:
        t._set_requires_grad(True, "Only Tensors of floating point and complex dtype can require "
                             "gradients")
    return t


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet (a lazy module's): it becomes a
    ``Parameter`` when ``materialize`` gives it one."""
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _uninitialized(cls, requires_grad, device, dtype)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (a lazy module's): it becomes a
    plain tensor when ``materialize`` gives it one."""
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = _uninitialized(cls, requires_grad, device, dtype)
        t.__dict__["_is_buffer"] = True
        t.__dict__["persistent"] = persistent
        return t

    def _converted(self, t):
        return type(self)(self._rg, None, t.dtype, self.__dict__.get("persistent", True))

    def _remade(self):
        return type(self)(self._rg, None, self.dtype, self.__dict__.get("persistent", True))
