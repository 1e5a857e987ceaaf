"""Tensors made from a tensor: ``x.new_zeros(...)``, ``new_ones``, ``new_empty``,
``new_full``, ``new_tensor`` (the dtype defaults to ``x``'s) and ``x.type_as(y)``.
Tensor methods only, as in PyTorch.
"""
import warnings

from .._tensor import Tensor as _Tensor, check_device as _check_device, like_hook as _like_hook
from ._registry import public as _public, spell as _spell
from .._warn import warn as _warn_user

__all__ = []


def _creation():
    from .. import _creation as c
    return c


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    if len(size) == 1 and hasattr(size[0], "__iter__") and not isinstance(size[0], _Tensor):
        return tuple(size[0])
    return tuple(size)


def _new_factory(name):
    def method(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False, **kwargs):
        if "size" in kwargs and not size:   # (x.new_zeros(size=(2, 3)), PyTorch's keyword)
            size = (kwargs.pop("size"),)
        if kwargs:
            raise TypeError(f"new_{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if not size:                    # (x.new_zeros() is no 0-d tensor: PyTorch's TypeError)
            raise TypeError(f'new_{name}() missing 1 required positional arguments: "size"')
        _check_device(device)
        hook = _like_hook(self)         # (inside vmap: batched)
        if hook is not None:
            return hook(lambda v: method(v, v.shape[0], *_size(size), dtype=dtype,
                                         requires_grad=requires_grad))
        c = _creation()
        shape = c.new_shape(_size(size))        # (PyTorch's words for a negative size: not zeros')
        return getattr(c, name)(*shape, dtype=self.dtype if dtype is None else dtype,
                                requires_grad=requires_grad)
    method.__name__ = method.__qualname__ = f"new_{name}"
    return method


@_public()
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
              layout=None, pin_memory=False):
    _check_device(device)
    hook = _like_hook(self)             # (inside vmap: batched)
    if hook is not None:
        return hook(lambda v: new_full(v, (v.shape[0],) + tuple(size), fill_value, dtype=dtype,
                                       requires_grad=requires_grad))
    return _creation().full(size, fill_value, dtype=self.dtype if dtype is None else dtype,
                            requires_grad=requires_grad)


@_public()
def new_tensor(self, data, dtype=None, device=None, requires_grad=False, layout=None,
                pin_memory=False):
    _check_device(device)
    c = _creation()
    if isinstance(data, _Tensor):
        _warn_user("To copy construct from a tensor, it is recommended to use "
                   "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                   "requires_grad_(True), rather than tensor.new_tensor(sourceTensor).")
        data = data.detach()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return c.tensor(data, dtype=self.dtype if dtype is None else dtype,
                            requires_grad=requires_grad)
    return c.tensor(data, dtype=self.dtype if dtype is None else dtype, requires_grad=requires_grad)


@_public()
def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False,
                      layout=None, pin_memory=False):
    return _creation().empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                                     device=device, requires_grad=requires_grad)


@_public()
def type_as(self, other):
    return self.to(other.dtype)


new_zeros = _spell(_new_factory("zeros"))
new_ones = _spell(_new_factory("ones"))
new_empty = _spell(_new_factory("empty"))
