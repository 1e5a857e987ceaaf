"""DLPack exchange (``torch.utils.dlpack``): share memory, without copying, with
any library that speaks DLPack (NumPy, PyTorch, JAX, CuPy on the CPU, ...).

    >>> import numpy
    >>> a = numpy.arange(3.0)
    >>> t = tensorplay.from_dlpack(a)          # t and a share memory
    >>> numpy.from_dlpack(t) is not None       # and back, still sharing
    True

``Tensor.__dlpack__`` / ``__dlpack_device__`` are the protocol; ``to_dlpack``
gives the legacy capsule, which ``from_dlpack`` also accepts.  NumPy holds
tensorplay's memory, so dtypes NumPy cannot describe (bfloat16) do not cross.
"""
import numpy as np

from .._creation import _leaf
from .._tensor import Tensor

__all__ = ["from_dlpack", "to_dlpack"]


def to_dlpack(tensor):
    """A DLPack capsule of ``tensor``'s memory (no copy); usable once."""
    return tensor.__dlpack__()


class _Capsule:
    """A bare DLPack capsule dressed in the protocol, for ``numpy.from_dlpack``."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


class _Writable:
    """The array interface of a read-only array, marked writable: NumPy before 2.1
    imports every DLPack tensor read-only (the old protocol has no flag to say),
    while the memory is the producer's to write, as PyTorch's from_dlpack assumes."""

    def __init__(self, a):
        self.base = a
        iface = dict(a.__array_interface__)
        iface["data"] = (iface["data"][0], False)
        self.__array_interface__ = iface


_OLD_NUMPY = tuple(int(v) for v in np.__version__.split(".")[:2]) < (2, 1)


def from_dlpack(ext_tensor):
    """A tensor sharing memory with ``ext_tensor``: an object with
    ``__dlpack__`` (a NumPy array, a torch tensor, ...) or a DLPack capsule."""
    if isinstance(ext_tensor, Tensor):
        return ext_tensor.detach()
    if isinstance(ext_tensor, np.ndarray):
        return _leaf(np.from_dlpack(ext_tensor) if not _OLD_NUMPY else ext_tensor, False)
    if not hasattr(ext_tensor, "__dlpack__"):
        if type(ext_tensor).__name__ != "PyCapsule":
            raise TypeError(f"from_dlpack(): expected an object with __dlpack__ or a DLPack capsule, "
                            f"got {type(ext_tensor).__name__}")
        ext_tensor = _Capsule(ext_tensor)
    else:
        dev = ext_tensor.__dlpack_device__()
        if int(dev[0]) not in (1, 3):               # kDLCPU, kDLCUDAHost (CPU-readable)
            raise RuntimeError(f"tensorplay runs on the CPU only: from_dlpack() cannot take memory "
                               f"on DLPack device {tuple(int(d) for d in dev)}")
    try:
        a = np.from_dlpack(ext_tensor)
    except RuntimeError as e:
        if "dtype" not in str(e):
            raise
        raise RuntimeError(f"from_dlpack(): tensorplay's memory is held by NumPy, which cannot "
                           f"describe this tensor's dtype ({e}); bfloat16 and other dtypes NumPy "
                           f"lacks do not cross: convert first (e.g. .float())") from None
    if _OLD_NUMPY and not a.flags.writeable and a.size:
        a = np.asarray(_Writable(a))
    return _leaf(a, False)
