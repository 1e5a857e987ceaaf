"""``as_strided``: a view of a tensor's storage with any sizes and strides.

Storage here is the NumPy buffer a tensor's array lives in (``Tensor.untyped_storage``);
offsets and strides count elements from its start, as in PyTorch.  The
derivative goes through storage positions: the output's gradient is added
into a zero storage at the positions the output reads, and the input takes
what lies at its own positions (divided by how often the input itself reads
each one, when it overlaps itself, as PyTorch's ``as_strided_backward``).
"""
import numpy as np

from .._tensor import Tensor, TensorMeta, _wrap, _as_elements, storage_geometry, storage_root
from ._families import VIEW
from ._registry import defop, dispatch, public
from .indexing import index_add, take

__all__ = ["as_strided"]


def _positions(shape, strides, offset):
    """Storage position of every element of a view (an int64 array of ``shape``)."""
    pos = np.full(tuple(shape), offset, np.int64)
    for k, (n, st) in enumerate(zip(shape, strides)):
        view = [1] * len(shape)
        view[k] = n
        pos = pos + (np.arange(n, dtype=np.int64) * st).reshape(view)
    return pos


def _check(size, stride, offset, itemsize, storage_size):
    size, stride = tuple(map(int, size)), tuple(map(int, stride))
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if stride and min(stride) < 0:
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    if size and min(size) < 0:
        raise RuntimeError(f"as_strided: negative size: {list(size)}")
    need = 0
    if 0 not in size:
        need = offset + 1
        for n, st in zip(size, stride):
            need += (n - 1) * st
    if need > storage_size:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                           f"{offset}, and itemsize {itemsize} requiring a storage size of "
                           f"{need * itemsize} are out of bounds for storage of size "
                           f"{storage_size * itemsize}")
    return size, stride


def _as_strided_k(x, size, stride, storage_offset):
    itemsize = x.dtype.itemsize
    base = _as_elements(storage_root(x), x.dtype)      # the whole storage, flat, in x's dtype
    size, stride = _check(size, stride, storage_offset, itemsize, base.size)
    # (the ndarray constructor over the flat storage: what stride_tricks.as_strided
    # does, without its Python layers, ~5 us; writable exactly when the storage is)
    return np.ndarray(size, x.dtype, base, min(storage_offset, base.size) * itemsize,
                      tuple([s * itemsize for s in stride]))


def _index_tensor(a):
    return _wrap(np.ascontiguousarray(a, np.int64).reshape(-1))


def _geometry(x):
    """(offset, strides) of ``x`` in its storage, in elements."""
    if not isinstance(x, Tensor):
        return x.geometry
    if type(x._data) is np.ndarray:
        return storage_geometry(x._data)[1:]
    return x.storage_offset(), tuple(x.stride())    # batched: where each sample lies


def _maps(shape, strides0, offset0, size, stride, storage_offset):
    p_in = _positions(shape, strides0, offset0)
    p_out = _positions(size, stride, storage_offset)
    n = int(max(p_in.max(initial=-1), p_out.max(initial=-1))) + 1
    counts = np.bincount(p_in.reshape(-1), minlength=n)
    return p_in, p_out, n, (counts if (counts > 1).any() else None)


def _storage_maps(x, size, stride, storage_offset):
    """(positions the input reads, positions the output reads, storage length,
    how often the input reads each position or None when it never repeats one)."""
    offset0, strides0 = _geometry(x)
    return _maps(x.shape, strides0, offset0, size, stride, storage_offset)


def _as_strided_vjp(g, x, size, stride, storage_offset):
    p_in, p_out, n, counts = _storage_maps(x, size, stride, storage_offset)
    store = index_add(g.new_zeros((n,)), 0, _index_tensor(p_out), g.reshape(-1))
    if counts is not None:
        store = store / _wrap(np.maximum(counts, 1).astype(g._data.dtype.type(0).real.dtype))
    return take(store, _index_tensor(p_in)).reshape(x.shape)


def _as_strided_jvp(x_t, x, size, stride, storage_offset):
    offset0, strides0 = _geometry(x)
    shape, size = tuple(x.shape), tuple(size)
    # leading dimensions of stride 0 in both the input and the view, of the same
    # length, are samples each with a tangent of its own (vmap's batch dimension
    # over a primal expanded along it: jacfwd): the view reads the same
    # positions in each, and each keeps its own tangent
    k = 0
    while k < min(len(shape), len(size)) and strides0[k] == 0 and stride[k] == 0 \
            and shape[k] == size[k]:
        k += 1
    p_in, p_out, n, counts = _maps(shape[k:], strides0[k:], offset0, size[k:], stride[k:],
                                   storage_offset)
    nb = int(np.prod(shape[:k], dtype=np.int64))
    store = index_add(x_t.new_zeros((nb, n)), 1, _index_tensor(p_in),
                      x_t.reshape((nb, p_in.size)))
    if counts is not None:          # an overlapping input holds one value per position
        store = store / _wrap(np.maximum(counts, 1).astype(x_t._data.dtype.type(0).real.dtype))
    return store.index_select(1, _index_tensor(p_out)).reshape(size)


def _as_strided_batch(op, args, bdims):
    """Under vmap, as PyTorch's rule: sample ``i`` is the same view of its own
    memory, i.e. ``storage_offset`` is the first sample's and each next one starts
    a batch stride further.  That needs the batch dimension outermost in memory
    and each sample's view inside its own sample's memory.  Samples that share
    their memory (batch stride 0: an input expanded along the batch, as the
    primal under ``jacfwd``) all give the same view of it, with batch stride 0."""
    x, size, stride, offset = args
    x = x if bdims[0] == 0 else x.movedim(bdims[0], 0)
    bstride = x.stride(0)
    inner = sorted((st, n) for st, n in zip(x.stride()[1:], x.shape[1:]) if n > 1)
    span = sum((n - 1) * st for st, n in inner) + 1
    if x.shape[0] > 1 and bstride != 0 and (any(st >= bstride for st, _ in inner)
                                            or bstride < span):
        raise RuntimeError("vmap: Calling Tensor.as_strided is not supported unless the batch dims being "
                           "vmapped over are at the front of the tensor (in memory layout).")
    first = x.storage_offset()
    reach = offset - first + (0 if 0 in size else sum((n - 1) * st for n, st in zip(size, stride)))
    if offset < first or reach >= span:
        raise RuntimeError(f"vmap: as_strided(size={list(size)}, stride={list(stride)}, "
                           f"storage_offset={offset}) reaches outside the memory of each sample; "
                           f"this is not supported inside vmap")
    return dispatch(op, [x, (x.shape[0],) + tuple(size), (bstride,) + tuple(stride), offset]), 0


class _GeometryMeta(TensorMeta):
    """What AsStridedBackward0 keeps of its input: its shape and dtype and where it
    lies in its storage (offset and strides, in elements), not the tensor, as
    PyTorch keeps its geometry alone: the input may be written in place later."""
    __slots__ = ("geometry",)

    def __init__(self, data):
        TensorMeta.__init__(self, data)
        self.geometry = storage_geometry(data)[1:]


_as_strided = defop("as_strided", _as_strided_k, {"x": _as_strided_vjp}, meta=("x",), upcast=False,
                    view=True, node_name="AsStridedBackward0", family=VIEW, jvp=_as_strided_jvp,
                    linear=True, batch=_as_strided_batch)
_as_strided.op.meta_type = _GeometryMeta


@public(inplace=True)
def as_strided(input, size, stride, storage_offset=None):
    """A view of ``input``'s storage with the given sizes and strides (in elements),
    starting ``storage_offset`` elements in (default: where ``input`` starts)."""
    if storage_offset is None:
        storage_offset = input.storage_offset()
    return _as_strided(input, tuple(size), tuple(stride), int(storage_offset))
