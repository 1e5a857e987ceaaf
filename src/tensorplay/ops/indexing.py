"""Indexing: ``Tensor.__getitem__`` / ``__setitem__`` and the gather/scatter family.

``x[key]`` follows PyTorch: the basic parts of the key (ints, slices, None,
Ellipsis) are applied one by one as views (``select``, ``slice``,
``unsqueeze``), then the tensor parts (int and bool index tensors) as one
advanced ``index`` (a copy), whose gradient scatters back with accumulation.

Keys that reach the kernels are pairs ``(basic, adv)``: ``basic`` a NumPy
basic index (ints, slices, None), ``adv`` None or a tuple of ``slice(None)``
and int64 arrays applied to ``x[basic]``.  Staging the two keeps PyTorch's
placement of the advanced dims (ints never take part in it, unlike NumPy).

``x[key] = v`` goes through the in-place machinery with the out-of-place
``index_put`` op on such a key, so it is differentiable w.r.t. ``v`` and the
tensor's old value.
"""

import operator

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _wrap, _wrap_dim, int_index
from .._autograd.grad_mode import state as _state, no_grad as _no_grad
from ._families import ELEMENTWISE, INDEXING, OTHER, SHAPE, VIEW, batch_size, materialize
from ._registry import REGISTRY, TRANSFORMS, broadcast_error, defop, dispatch, dispatch_view, public
from ._util import F32 as _F32, tensor_arg
from .core import expand, unsqueeze
from .inplace import apply_inplace, may_self_overlap, _self_overlapping, _SELF_OVERLAP
from .._out import call_with_out, write_out
from .._warn import warn as _warn_user, warn_once as _warn_once

__all__ = ["select", "index_put", "gather", "scatter", "scatter_add", "take_along_dim", "take",
           "index_select", "index_add", "index_fill", "index_copy", "masked_fill", "masked_select",
           "nonzero", "argwhere", "put"]

_LOWP = D.LOW_PRECISION
_FULL = slice(None)


# ----------------------------------------------------------------------------- helpers
def _zeros(shape, dtype):
    """A constant zero tensor (no history)."""
    return _wrap(np.zeros(shape, dtype))


def _zero0(g):
    return _wrap(np.zeros((), g._data.dtype))


def _title(npdt):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
            "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}.get(
        D._FROM_NP[npdt].name, str(npdt))


def _ctype(npdt):
    """dtype names as PyTorch's C++ messages spell them (``float``, ``unsigned char``)."""
    return D.CPP_NAMES.get(D._FROM_NP[npdt].name, str(npdt))


def _arr(t):
    return t._data if isinstance(t, Tensor) else np.asarray(t)


def _check_index_tensor(index, name, kinds=("int64",), msg=None, exc=RuntimeError):
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index._data.dtype.name not in kinds:
        raise exc(msg.format(t=_title(index._data.dtype)) if msg else
                  f"{name}(): Expected dtype int64 for index")
    return index._data


def _oob(v, dim, size, exc=IndexError, prefix=""):
    raise exc(f"{prefix}index {v} is out of bounds for dimension {dim} with size {size}")


def _wrap_indices(a, size, dim, exc=IndexError, prefix=""):
    """Bounds-check an int index array against ``size``; negative ones wrap."""
    a = np.asarray(a, dtype=np.int64)
    if a.size:
        bad = (a < -size) | (a >= size)
        if bad.any():
            _oob(int(a[bad].flat[0]), dim, size, exc, prefix)
        if (a < 0).any():
            a = np.where(a < 0, a + size, a)
    return a


def _check_range(a, size, dim, exc=RuntimeError, prefix=""):
    """Indices must lie in [0, size) (gather, scatter, index_add, index_copy)."""
    a = np.asarray(a, dtype=np.int64)
    if a.size:
        bad = (a < 0) | (a >= size)
        if bad.any():
            _oob(int(a[bad].flat[0]), dim, size, exc, prefix)
    return a


def _acc(a):
    """Accumulation dtype: half/bfloat16 add in float32."""
    return a.astype(_F32) if a.dtype in _LOWP else a


def _strip1(shape, ndim):
    """``shape`` without its leading size-1 dims beyond ``ndim`` (PyTorch's
    setitem drops them from the value)."""
    shape = tuple(shape)
    while len(shape) > ndim and shape[0] == 1:
        shape = shape[1:]
    return shape


def _fit_grad(gv, vshape):
    """Gradient for a value of shape ``vshape`` broadcast into ``gv``'s shape."""
    if tuple(gv.shape) == tuple(vshape):
        return gv
    stripped = tuple(vshape)
    while len(stripped) > gv.ndim and stripped[0] == 1:
        stripped = stripped[1:]
    if tuple(gv.shape) != stripped:
        gv = gv.sum_to_size(stripped)
    return gv.reshape(vshape) if stripped != tuple(vshape) else gv


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _exact_out(name, fn, args, kwargs, out, msg=None, composite=False):
    """``out=`` for an op whose ``out`` must have exactly its result's dtype, in
    PyTorch's words (``msg``, default "Expected out tensor to have dtype float, ..."),
    checked after its refusal of autograd, as PyTorch's order is (index_add,
    index_copy, scatter, scatter_add, take).  ``composite``: PyTorch's out= form of
    the op is a composite that computes without autograd, so inputs that require grad
    are fine and only an ``out`` that does is refused, in the name of the ATen op
    (``aten::scatter()``: scatter with ``reduce=``, slice_scatter)."""
    if composite:
        if isinstance(out, Tensor) and out._rg and _state.enabled:
            raise RuntimeError(f"aten::{name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires grad.")
        with _no_grad():
            r = fn(*args, **kwargs)
    else:
        r = fn(*args, **kwargs)
    if isinstance(out, Tensor) and isinstance(r, Tensor) and out._data.dtype != r._data.dtype \
            and not (_state.enabled and (r._rg or out._rg)):
        rn, on = _dt_name(r), _dt_name(out)
        raise RuntimeError(
            msg.format(r=_title(r._data.dtype), o=_title(out._data.dtype)) if msg else
            f"Expected out tensor to have dtype {D.CPP_NAMES[rn]}, but got {D.CPP_NAMES[on]} instead")
    return write_out(name, r, out, args)


def _dt_name(t):
    return D._FROM_NP[t._data.dtype].name


# ----------------------------------------------------------------------------- the view ops
def _select_k(x, dim, index):
    if type(dim) is not int:
        dim = int_index(dim, "dim")
    if type(index) is not int:
        index = int_index(index, "index")
    if dim == 0 and x.ndim and -x.shape[0] <= index < x.shape[0]:     # the commonest (x[i])
        return x[index, ...]            # (a 0-d view, not a NumPy scalar, for a 1-d x)
    if x.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(x.shape)} at dimension {dim}")
    return x[(_FULL,) * d + (index, Ellipsis)]


def _select_backward_k(g, shape, dim, index):
    out = np.zeros(shape, g.dtype)
    region = out[(_FULL,) * _wrap_dim(dim, len(shape)) + (int_index(index, "index"), Ellipsis)]
    try:
        region[...] = g
    except ValueError:
        raise broadcast_error(region.shape, g.shape) from None
    return out


# PyTorch's select_backward: the gradient of a select, zeros around it (its own
# gradient is the same select of the incoming one)
_select_backward = defop("select_backward", _select_backward_k,
                         {"g": lambda gg, dim, index: select(gg, dim, index)},
                         upcast=False, node_name="SelectBackwardBackward0", family=SHAPE,
                         dims=("dim",), linear=True, method=False)


def _select_vjp(g, x, dim, index):
    return _select_backward(g, tuple(x.shape), dim, index)


select = defop("select", _select_k, {"x": _select_vjp}, meta=("x",), upcast=False, view=True,
               node_name="SelectBackward0", family=VIEW, dims=("dim",), linear=True)


def _slice_k(x, dim=0, start=None, end=None, step=1):
    if x.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if step <= 0:
        raise ValueError("step must be greater than zero")
    if dim == 0:
        return x[start:end:step]
    d = _wrap_dim(dim, x.ndim)
    return x[(_FULL,) * d + (slice(start, end, step),)]


def _slice_backward_k(g, shape, dim, start, end, step):
    out = np.zeros(shape, g.dtype)
    region = out[start:end:step] if dim == 0 else \
        out[(_FULL,) * _wrap_dim(dim, len(shape)) + (slice(start, end, step),)]
    try:
        region[...] = g
    except ValueError:
        raise broadcast_error(region.shape, g.shape) from None
    return out


# PyTorch's slice_backward: the gradient of a slice, zeros around it (its own
# gradient is the same slice of the incoming one)
_slice_backward = defop("slice_backward", _slice_backward_k,
                        {"g": lambda gg, dim, start, end, step: _slice(gg, dim, start, end, step)},
                        upcast=False, node_name="SliceBackwardBackward0", family=SHAPE,
                        dims=("dim",), linear=True, method=False)


def _slice_vjp(g, x, dim, start, end, step):
    return _slice_backward(g, tuple(x.shape), dim, start, end, step)


_slice = defop("slice", _slice_k, {"x": _slice_vjp}, meta=("x",), upcast=False, view=True,
               node_name="SliceBackward0", family=VIEW, dims=("dim",), linear=True)
_alias = defop("alias", lambda x: x.view(), {"x": "grad"}, upcast=False, view=True,
               node_name="AliasBackward0", family=VIEW, linear=True)
Tensor._alias = _alias      # the legacy constructors' Tensor(other) (_tensor.py)


# ----------------------------------------------------------------------------- gather by key / put by key
def _key_get(x, key):
    basic, adv = key
    r = x[basic + (Ellipsis,)] if basic else x
    if adv is not None:
        return r[adv]
    return r.copy()


def _index_vjp(g, x, key):
    return _index_put_op(_zeros(x.shape, g._data.dtype), g, key, True)


_index = defop("index", _key_get, {"x": _index_vjp}, meta=("x",), upcast=False,
               node_name="IndexBackward0", family=INDEXING, linear=True)
_index.op.saves_arrays = True   # its key's index arrays: freed after a backward, as in PyTorch


def _value_mismatch(v, shape):
    raise RuntimeError(f"shape mismatch: value tensor of shape {list(v.shape)} cannot be broadcast "
                       f"to indexing result of shape {list(shape)}")


def _index_put_k(x, values, key, accumulate=False):
    basic, adv = key
    basic = basic + (Ellipsis,) if basic else basic
    out = x.copy()
    tgt = out[basic] if basic else out
    shape = tgt[adv].shape if adv is not None else tgt.shape
    v = np.asarray(values)
    if v.dtype.kind == "c" and out.dtype.kind != "c":
        v = v.real
    try:
        np.broadcast_shapes(v.shape, shape)
        if np.broadcast_shapes(v.shape, shape) != tuple(shape):
            raise ValueError
    except ValueError:
        _value_mismatch(v, shape)
    if accumulate:
        if out.dtype in _LOWP:
            acc = out.astype(_F32)
            t2 = acc[basic] if basic else acc
            _add_at(t2, adv, np.broadcast_to(v.astype(_F32), shape))
            return acc.astype(out.dtype)
        _add_at(tgt, adv, np.broadcast_to(v.astype(out.dtype, copy=False), shape))
    elif adv is not None:
        tgt[adv] = v
    else:
        tgt[...] = v
    return out


def _add_at(t, adv, v):
    if adv is None:
        t += v
    else:
        np.add.at(t, adv, v)


def _index_put_vjp_x(g, key, accumulate):
    if accumulate:
        return g
    return _index_put_op(g, _zero0(g), key, False)


def _index_put_vjp_v(g, values, key):
    return _fit_grad(_index(g, key), values.shape)


_index_put_op = defop("index_put", _index_put_k, {"x": _index_put_vjp_x, "values": _index_put_vjp_v},
                      n_in=2, meta=("x", "values"), upcast=False, node_name="IndexPutBackward0",
                      family=INDEXING, linear=True)
# freed after a backward, as PyTorch frees its saved indices (an index array in the key)
# or the CopySlices of its in-place copy into a view (a key of slices and integers)
_index_put_op.op.saves_arrays = True


# ----------------------------------------------------------------------------- parsing keys
_MASK_KINDS = ("bool", "uint8")
_INDEX_KINDS = ("int64", "int32", "int16", "int8", "uint8", "bool")
_TENSOR_INDEX_KINDS = ("int64", "int32", "uint8", "bool")   # (an int8/int16 tensor is refused)


def _as_index_tuple(key):
    if isinstance(key, tuple):
        return key
    if isinstance(key, list) and len(key) < 32:
        for k in key:
            if k is None or k is Ellipsis or isinstance(k, (slice, Tensor, list, tuple, np.ndarray)):
                _warn_user("Using a non-tuple sequence for multidimensional indexing is "
                           "deprecated and will be changed in pytorch 2.9; use x[tuple(seq)] "
                           "instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor "
                           "index, x[torch.tensor(seq)], which will result either in an error or "
                           "a different result")
                return tuple(key)
    return (key,)


def _index_array(k):
    """An index tensor/list/array as a NumPy array of an allowed dtype."""
    if isinstance(k, Tensor):
        a = k._data
        if a.dtype.name not in _TENSOR_INDEX_KINDS:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    elif isinstance(k, np.ndarray):
        a = k
    else:                                           # a (nested) list or tuple
        try:
            a = np.array([v._data if isinstance(v, Tensor) else v for v in k]) \
                if isinstance(k, (list, tuple)) else np.asarray(k)
        except (ValueError, TypeError):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors") from None
        if a.size == 0 and a.dtype.kind == "f":
            a = a.astype(np.int64)
    if a.dtype.name not in _INDEX_KINDS:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if a.dtype == np.uint8:
        _warn_user("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                   "torch.bool instead.")
        a = a.astype(bool)
    return a


_HEAPTYPE = 1 << 9          # Py_TPFLAGS_HEAPTYPE: a class defined in Python


def _parse(key, ndim):
    """Normalise ``key`` into a list of items: ("int", i), slice, None, Ellipsis,
    ("arr", int array), ("mask", bool array).  Checks the number of dims."""
    if ndim == 0 and not isinstance(key, tuple):     # (PyTorch's select on a 0-d tensor)
        if _is_int(key):
            if key == 0:
                raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                 "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
            raise IndexError(f"index {key} is out of bounds for dimension 0 with size 0")
        if isinstance(key, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    keys = _as_index_tuple(key)
    # PyTorch counts the dimensions a key names before it reads its items: every item but
    # None, Ellipsis, True and False counts one, a bool or uint8 tensor its dimensions
    count = 0
    for k in keys:
        if isinstance(k, Tensor):
            count += k._data.ndim if k._data.dtype.kind == "b" or k._data.dtype == np.uint8 else 1
        elif not (k is None or k is Ellipsis or k is True or k is False):
            count += 1
    if count > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    items = []
    consumed = 0
    for k in keys:
        if k is None or k is Ellipsis:
            items.append(k)
        elif isinstance(k, slice):
            for v in (k.start, k.stop, k.step):
                if v is not None and not _is_int(v) and not isinstance(v, (bool, np.bool_, Tensor)):
                    raise TypeError("slice indices must be integers or None or have an __index__ method")
            # (a bool is an int here; a tensor must be an integer one of one element)
            start, stop, step = (None if v is None else operator.index(v)
                                 for v in (k.start, k.stop, k.step))
            if step is not None and step == 0:
                raise ValueError("slice step cannot be zero")
            if step is not None and step < 0:
                raise ValueError("step must be greater than zero")
            items.append(slice(start, stop, step))
            consumed += 1
        elif isinstance(k, bool):
            items.append(("mask", np.array(k)))
        elif isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype.kind in "iufc" \
                and k.dtype != np.uint8:
            # a 0-d NumPy number is an integer, as PyTorch reads it (a float one truncated,
            # a complex one its real part): a select, not an advanced index
            if k.dtype.kind == "c":
                _warn_user("Casting complex values to real discards the imaginary part")
                k = k.real
            v = int(k.astype(np.int64)) if k.dtype.kind == "f" else int(k)
            items.append(("int", v))
            consumed += 1
        elif _is_int(k):
            items.append(("int", int(k)))
            consumed += 1
        elif isinstance(k, Tensor) and k.dim() == 0 and k._data.dtype.kind in "iu" \
                and k._data.dtype != np.uint8:
            items.append(("int", int(k._data)))
            consumed += 1
        elif isinstance(k, (Tensor, np.ndarray, list, tuple, range)):
            # a private copy: the backward keeps the index, and the caller's tensor may
            # be changed in place afterwards (a range is a sequence of ints, as in PyTorch)
            a = np.array(_index_array(list(k) if isinstance(k, range) else k), copy=True)
            if a.dtype == np.bool_:
                items.append(("mask", a))
                consumed += a.ndim
            else:
                items.append(("arr", a.astype(np.int64, copy=False)))
                consumed += 1
        elif isinstance(k, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{'str' if isinstance(k, str) else 'bytes'}'")
        else:       # (a NumPy bool scalar too, as in PyTorch; named as CPython's tp_name)
            t = type(k)
            name = t.__name__ if t.__flags__ & _HEAPTYPE or t.__module__ == "builtins" else \
                f"{t.__module__}.{t.__name__}"
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                             f"Variables are valid indices (got {name})")
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    return items, ndim - consumed


def _adv_key(shape, adv):
    """Advanced parts [(dim, kind, array)] -> a NumPy key on a tensor of ``shape``."""
    key = [_FULL] * len(shape)
    arrays = []
    for d, kind, a, real in adv:
        if kind == "mask":
            for j in range(a.ndim):
                if a.shape[j] != shape[d + j]:
                    raise IndexError(f"The shape of the mask {list(a.shape)} at index {j} does not "
                                     f"match the shape of the indexed tensor {list(shape)} at index "
                                     f"{d + j}")
            for j, nz in enumerate(np.nonzero(a)):
                key[d + j] = nz
                arrays.append(nz)
        else:
            a = _wrap_indices(a, shape[d], real)
            key[d] = a
            arrays.append(a)
    try:
        np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                         f"shapes {', '.join(str(list(a.shape)) for a in arrays)}") from None
    return tuple(key)


_FULL = slice(None)


_I64 = np.dtype(np.int64)
_INTS = frozenset((int, np.int64, np.int32, np.intp))


def _basic_steps(key, shape):
    """The ops of ``x[key]`` for a tuple of ints in range, slices of ints, None and
    one Ellipsis, as (op, params) in order (what the general parse below gives for
    such a key, without it); None for any other key, or one that applies no op."""
    steps = []
    dim = real = 0
    ndim = len(shape)
    for k in key:
        t = type(k)
        if t is slice:
            start, stop, step = k.start, k.stop, k.step
            if start is not None or stop is not None or step is not None:
                if not ((start is None or type(start) is int) and (stop is None or type(stop) is int)
                        and (step is None or type(step) is int and step > 0)):
                    return None
                steps.append((_slice.op, (dim, start, stop, 1 if step is None else step)))
            dim += 1        # (a full ``:`` applies no op)
            real += 1
        elif t is int:
            if real >= ndim or not -shape[real] <= k < shape[real]:
                return None
            steps.append((select.op, (dim, k)))
            real += 1
        elif k is None:
            steps.append((unsqueeze.op, (dim,)))
            dim += 1
        elif k is Ellipsis:
            free = ndim - sum(1 for j in key if type(j) is int or type(j) is slice)
            if free < 0 or sum(1 for j in key if j is Ellipsis) > 1:
                return None
            dim += free
            real += free
        else:
            return None
    return steps if real <= ndim else None


def _getitem(self, key):
    # the three commonest keys, straight to their op (the general parse below
    # gives the same ops and PyTorch's errors; it runs whenever these decline)
    tk = type(key)
    d = self._data
    if TRANSFORMS:
        for t in reversed(TRANSFORMS):      # vmap: an index tensor that is batched
            h = getattr(t, "getitem", None)
            if h is not None and t.takes_key(self, key := t.shared_key(key)):
                return h(self, key)
    if d.ndim:
        if tk is slice:
            step = key.step
            if step is None or type(step) is int and step > 0:
                start, stop = key.start, key.stop
                if (start is None or type(start) in _INTS) and (stop is None or type(stop) in _INTS):
                    return dispatch_view(_slice.op, (self, 0, None if start is None else int(start),
                                                     None if stop is None else int(stop),
                                                     1 if step is None else step))
        elif tk is int:
            if -d.shape[0] <= key < d.shape[0]:
                return dispatch_view(select.op, (self, 0, key))
        elif key is None:
            return dispatch_view(unsqueeze.op, (self, 0))
        elif tk is Tensor and key._data.dtype is _I64 and key._data.ndim:
            try:        # NumPy checks the bounds; an index out of them takes the general way
                return _index(self, ((), (key._data.copy(),)))
            except IndexError:
                pass
        elif tk is tuple:
            steps = _basic_steps(key, d.shape)
            if steps:
                r = self
                for op, params in steps:
                    r = dispatch_view(op, (r,) + params)
                return r
    items, free = _parse(key, d.ndim)
    r = self
    dim = real = 0
    adv = []
    seen_ellipsis = applied = False
    for it in items:
        if it is None:
            r = r.unsqueeze(dim)
            dim += 1
            applied = True
        elif it is Ellipsis:
            if not seen_ellipsis:
                dim += free
                real += free
                seen_ellipsis = True
        elif isinstance(it, slice):
            # a full ``:`` inside a longer key is no op at all (PyTorch records none);
            # a key that is just ``x[:]`` still records a slice
            if not (it == _FULL and not isinstance(key, slice)):
                r = _slice(r, dim, it.start, it.stop, 1 if it.step is None else it.step)
                applied = True
            dim += 1
            real += 1
        elif it[0] == "int":
            n = r.shape[dim]
            if not -n <= it[1] < n:
                _oob(it[1], real, n)
            r = select(r, dim, it[1])
            real += 1
            applied = True
        elif it[0] == "mask" and it[1].ndim == 0:
            r = r.unsqueeze(dim)
            adv.append((dim, "arr", np.zeros(1 if it[1] else 0, np.int64), real))
            dim += 1
        else:
            adv.append((dim, it[0], it[1], real))
            k = it[1].ndim if it[0] == "mask" else 1
            dim += k
            real += k
    if adv:
        return _index(r, ((), _adv_key(r.shape, adv)))
    if not applied:
        return _alias(r)
    return r


def _setitem_key(shape, items, free):
    """Items -> a (basic, adv) key on a tensor of ``shape``, PyTorch semantics."""
    basic = []
    cur = []                 # shape after the basic part so far
    dim = real = 0
    adv = []
    seen = False
    for it in items:
        if it is None:
            basic.append(None)
            cur.append(1)
            dim += 1
        elif it is Ellipsis:
            if not seen:
                basic.extend([_FULL] * free)
                cur.extend(shape[real:real + free])
                dim += free
                real += free
                seen = True
        elif isinstance(it, slice):
            basic.append(it)
            cur.append(len(range(*it.indices(shape[real]))))
            dim += 1
            real += 1
        elif it[0] == "int":
            n = shape[real]
            if not -n <= it[1] < n:
                _oob(it[1], real, n)
            basic.append(it[1])
            real += 1
        elif it[0] == "mask" and it[1].ndim == 0:
            basic.append(None)
            cur.append(1)
            adv.append((dim, "arr", np.zeros(1 if it[1] else 0, np.int64), real))
            dim += 1
        else:
            k = it[1].ndim if it[0] == "mask" else 1
            basic.extend([_FULL] * k)
            cur.extend(shape[real:real + k])
            adv.append((dim, it[0], it[1], real))
            dim += k
            real += k
    cur.extend(shape[real:])
    return tuple(basic), (_adv_key(tuple(cur), adv) if adv else None)


def _setitem_f(src, key, value):
    return _index_put_op(src, value, key, False)


def _masked_fill_key(items, value):
    """Whether PyTorch's index_put_ writes ``value`` as a masked_fill (which casts it):
    one element, and the key's only index tensor a bool mask of one or more dims (a
    bool scalar is an index of 0 or 1 there, not a mask)."""
    if value._data.size != 1:
        return False
    adv = [it for it in items if isinstance(it, tuple) and it[0] != "int"]
    return len(adv) == 1 and adv[0][0] == "mask" and adv[0][1].ndim > 0


def _setitem(self, key, value):
    d = self._data
    cast_from = None
    if isinstance(value, Tensor):
        if value._data.dtype != d.dtype:
            cast_from = value._data.dtype       # (cast below, once the key allows it)
    elif isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
        value = D.check_fits(value, d.dtype, floats=d.dtype.itemsize > 2)  # (half: may become inf)
    else:
        t = type(value)             # (a NumPy array is "numpy.ndarray" there, as in PyTorch)
        name = t.__name__ if t.__module__ == "builtins" else f"{t.__module__.split('.')[0]}.{t.__name__}"
        raise TypeError(f"can't assign a {name} to a tensorplay.{_title(d.dtype)}Tensor")
    if TRANSFORMS:
        if cast_from is not None:
            value, cast_from = value.to(D._FROM_NP[d.dtype]), None
        for t in reversed(TRANSFORMS):      # vmap: an index tensor that is batched
            h = getattr(t, "setitem", None)
            if h is not None and t.takes_key(self, key := t.shared_key(key), value):
                return h(self, key, value)
    items, free = _parse(key, d.ndim)
    skey = _setitem_key(d.shape, items, free)
    if isinstance(value, Tensor):
        tshape = np.broadcast_to(np.empty((), np.bool_), d.shape)[skey[0] + (Ellipsis,)]
        tshape = tshape[skey[1]].shape if skey[1] is not None else tshape.shape
        if value._data.ndim > len(tshape):
            v = _strip1(value._data.shape, len(tshape))
            if v != value._data.shape:
                value = value.reshape(v)
    if _state.enabled and self._rg and self._gfn is None:
        if any(it is None or isinstance(it, slice) or (isinstance(it, tuple) and it[0] == "int")
               for it in items):
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
    if cast_from is not None:
        # an advanced key writes through index_put_, which takes no other dtype (a shape
        # that does not fit is its earlier error, from the kernel), unless it is a
        # masked_fill there; a bare True is a copy into x.unsqueeze(0) in PyTorch
        if skey[1] is not None and type(key) is not bool and not _masked_fill_key(items, value) \
                and _bcastable(value._data.shape, tshape) \
                and np.broadcast_shapes(value._data.shape, tshape) == tuple(tshape):
            raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                               f"{_title(d.dtype)} for the destination and {_title(cast_from)} for "
                               f"the source.")
        value = value.to(D._FROM_NP[d.dtype])
    if skey[1] is None and type(d) is np.ndarray and d.size > 1 and (
            not d.flags.writeable or may_self_overlap(d)):
        # an expanded tensor, or one whose elements share memory (unfold, as_strided):
        # write only the region, through its view, as PyTorch's select/slice + copy_
        # does (as a write of the whole tensor, the region's gradient would also flow
        # through the other elements that alias it; an expand's is refused: they overlap)
        region = self[key]
        if isinstance(value, Tensor):
            region.copy_(value)
        else:           # (a copy of the number: shared elements refused, where fill_ allows them)
            if _self_overlapping(region._data):
                raise RuntimeError(_SELF_OVERLAP)
            region.fill_(value)
        return
    if skey[1] is None and isinstance(value, Tensor):          # basic key: a view's copy_
        tgt = tshape
        v = value._data
        if not _bcastable(v.shape, tgt) or np.broadcast_shapes(v.shape, tgt) != tgt:
            expand(_wrap(v), tgt)                          # raises PyTorch's expand message
    apply_inplace(self, _setitem_f, (skey, value), {}, "index_put")


def _bcastable(a, b):
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False


Tensor.__getitem__ = _getitem
Tensor.__setitem__ = _setitem


# ----------------------------------------------------------------------------- index_put
@public(inplace=True)
def index_put(input, indices, values, accumulate=False):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' (position 1) must be tuple of Tensors, "
                        f"not {type(indices).__name__}")
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' (position 2) must be Tensor, not "
                        f"{type(values).__name__}")
    if values._data.dtype != input._data.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_title(input._data.dtype)} for the destination and "
                           f"{_title(values._data.dtype)} for the source.")
    if TRANSFORMS:
        for t in reversed(TRANSFORMS):      # vmap: an index tensor that is batched
            h = getattr(t, "index_put", None)
            if h is not None and t.takes_key(input, indices := t.shared_key(tuple(indices)), values):
                return h(input, indices, values, accumulate)
    items, free = _parse(tuple(indices), input._data.ndim)
    return _index_put_op(input, values, _setitem_key(input._data.shape, items, free), accumulate)


# ----------------------------------------------------------------------------- gather / scatter
def _scatter_key(index, dim):
    """Open mesh addressing: position p of ``index`` -> (p_0, .., index[p], .., p_n)."""
    nd = index.ndim
    key = []
    for d in range(nd):
        if d == dim:
            key.append(index)
        else:
            shp = [1] * nd
            shp[d] = index.shape[d]
            key.append(np.arange(index.shape[d]).reshape(shp))
    return tuple(key)


def _check_gather_shapes(x, dim, index, name, src=None):
    if index.ndim != max(x.ndim, 0) and not (x.ndim == 0 and index.ndim <= 1):
        raise RuntimeError(f"Index tensor must have the same number of dimensions as "
                           f"{'input' if name == 'gather' else 'self'} tensor")
    if x.ndim == 0:
        return
    for d in range(x.ndim):
        if d != dim and index.shape[d] > x.shape[d] or (src is not None and index.shape[d] > src.shape[d]):
            if src is None:
                raise RuntimeError(f"Size does not match at dimension {d} expected index "
                                   f"{list(index.shape)} to be no larger than self {list(x.shape)} "
                                   f"apart from dimension {dim}")
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self "
                               f"{list(x.shape)} apart from dimension {dim} and to be no larger "
                               f"size than src {list(src.shape)}")


def _gather_k(x, dim, index, sparse_grad=False):
    d = _wrap_dim(dim, x.ndim)
    _check_gather_shapes(x, d, index, "gather")
    if x.ndim == 0:
        _check_range(index, 1, 0)
        return np.broadcast_to(x, index.shape).copy()
    idx = _check_range(index, x.shape[d], d)
    if idx.size == 0:
        return np.zeros(index.shape, x.dtype)
    return x[_scatter_key(idx, d)]


def _gather_vjp(g, x, dim, index):
    return _scatter_add(_zeros(x.shape, g._data.dtype), dim, index, g)


_gather = defop("gather", _gather_k, {"x": _gather_vjp}, n_in=1, meta=("x",), upcast=False,
                node_name="GatherBackward0", family=INDEXING, dims=("dim",), linear=True,
                kwonly=("sparse_grad",))


@public()
def gather(input, dim, index, *, sparse_grad=False, out=None):
    if out is not None:
        return call_with_out('gather', gather, (input, dim, index),
                             {'sparse_grad': sparse_grad}, out)
    _check_index_tensor(index, "gather", ("int64", "int32"), "gather(): Expected dtype int32/int64 for index")
    return _gather(input, dim, index, sparse_grad=sparse_grad)


def _scatter_prep(x, dim, index, src, name):
    d = _wrap_dim(dim, x.ndim)
    if index.ndim != x.ndim and not (x.ndim == 0 and index.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src is not None and src.ndim != index.ndim and not (src.ndim == 0 and index.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if x.ndim:
        for k in range(x.ndim):
            if (k != d and index.shape[k] > x.shape[k]) or (src is not None and src.ndim
                                                             and index.shape[k] > src.shape[k]):
                raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self "
                                   f"{list(x.shape)} apart from dimension {d}"
                                   + (f" and to be no larger size than src {list(src.shape)}"
                                      if src is not None else ""))
    size = x.shape[d] if x.ndim else 1
    idx = _check_range(index, size, d)
    if x.ndim == 0:
        return d, (idx.reshape(-1)[:0] if idx.size == 0 else ()), idx
    return d, _scatter_key(idx, d), idx


def _src_part(src, index_shape):
    if src.ndim == 0:
        return np.broadcast_to(src, index_shape)
    return src[tuple(slice(0, s) for s in index_shape)]


def _scatter_k(x, dim, index, src):
    if isinstance(src, np.ndarray) and src.dtype != x.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    d, key, idx = _scatter_prep(x, dim, index, src if isinstance(src, np.ndarray) else None, "scatter")
    out = x.copy()
    if idx.size == 0:
        return out
    if isinstance(src, np.ndarray):
        v = _src_part(src, idx.shape)
    else:
        v = np.asarray(src).astype(x.dtype) if not (np.iscomplexobj(src) and x.dtype.kind != "c") \
            else np.asarray(src).real.astype(x.dtype)
    if x.ndim == 0:
        out[...] = np.asarray(v).reshape(-1)[-1]
    else:
        out[key] = v
    return out


def _pad_to(gs, shape):
    """``gs`` (the index-shaped part) placed at the start of a zero tensor of ``shape``."""
    if tuple(gs.shape) == tuple(shape) or len(shape) == 0:
        return gs.reshape(shape) if len(shape) == 0 else gs
    return _index_put_op(_zeros(shape, gs._data.dtype), gs,
                         (tuple(slice(0, s) for s in gs.shape), None), False)


def _scatter_vjp_x(g, dim, index):
    return _scatter(g, dim, index, 0)


def _scatter_vjp_src(g, dim, index, src):
    return _pad_to(gather(g, dim, index), src.shape)


_scatter = defop("scatter", _scatter_k, {"x": _scatter_vjp_x, "src": _scatter_vjp_src}, n_in=4,
                 meta=("x", "src"), upcast=False, node_name="ScatterBackward0",
                 family=INDEXING, dims=("dim",), linear=True)
# the value is a Python number: affine in x, not linear
_scatter_value = defop("scatter_value", _scatter_k, {"x": _scatter_vjp_x}, n_in=1, meta=("x",),
                       upcast=False, node_name="ScatterBackward1", family=INDEXING, dims=("dim",),
                       fits=("src",), jvp=lambda x_t, dim, index, src: _scatter_value(x_t, dim, index, 0))


@public(inplace=True)
def scatter(input, dim, index, src=None, *, value=None, reduce=None, out=None):
    """``scatter(input, dim, index, src)``, the 4th argument a tensor or a number
    (PyTorch's overloads), or ``value=`` by keyword; ``reduce`` by keyword only."""
    if out is not None:
        return _exact_out("scatter", scatter, (input, dim, index, src),
                          {"value": value, "reduce": reduce}, out, composite=reduce is not None)
    if src is None:
        src = value
    elif value is not None:
        raise TypeError("scatter() received an invalid combination of arguments: give either 'src' "
                        "or 'value', not both")
    if src is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    _check_index_tensor(index, "scatter", ("int64", "int32"),
                        "scatter(): Expected dtype int32/int64 for index")
    if reduce is not None:
        return _scatter_legacy_reduce(input, dim, index, src, reduce)
    if isinstance(src, Tensor):
        return _scatter(input, dim, index, src)
    return _scatter_value(input, dim, index, src)


def _scatter_legacy_reduce(input, dim, index, src, reduce):
    """``scatter(..., reduce='add' | 'multiply')``, PyTorch's older form of
    ``scatter_reduce`` (sum or prod, the input included), which it computes;
    its derivatives are scatter_reduce's (PyTorch has none for this form)."""
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if isinstance(src, Tensor):
        _warn_once("The reduce argument of torch.scatter with Tensor src is deprecated and will be "
                   "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
                   "reduction options.")
    else:
        src = _wrap(np.full(np.shape(index._data), src, input._data.dtype))
    return dispatch(REGISTRY["scatter_reduce"],
                    [input, dim, index, src, "sum" if reduce == "add" else "prod", True])


def _scatter_add_k(x, dim, index, src):
    if src.dtype != x.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    d, key, idx = _scatter_prep(x, dim, index, src, "scatter_add")
    out = _acc(x).copy()
    if idx.size:
        if x.ndim == 0:
            out += _acc(np.asarray(_src_part(src, idx.shape))).sum()
        else:
            np.add.at(out, key, _acc(_src_part(src, idx.shape)))
    return out.astype(x.dtype, copy=False)


_scatter_add = defop("scatter_add", _scatter_add_k,
                     {"x": "grad",
                      "src": lambda g, dim, index, src: _pad_to(gather(g, dim, index), src.shape)},
                     n_in=4, meta=("x", "src"), upcast=False, node_name="ScatterAddBackward0",
                     family=INDEXING, dims=("dim",), linear=True)


@public(inplace=True)
def scatter_add(input, dim, index, src, *, out=None):
    if out is not None:
        return _exact_out("scatter_add", scatter_add, (input, dim, index, src), {}, out)
    _check_index_tensor(index, "scatter_add", ("int64", "int32"),
                        "scatter(): Expected dtype int32/int64 for index")
    return _scatter_add(input, dim, index, src)


@public()
def take_along_dim(input, indices, dim=None, *, out=None):
    if out is not None:
        return call_with_out('take_along_dim', take_along_dim, (input, indices, dim), {}, out)
    tensor_arg("take_along_dim", "indices", 2, indices)
    if dim is None:         # (gather's rule: int32 indices too)
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if indices._data.dtype != np.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_title(indices._data.dtype)}")
    if input.dim() != indices.dim():
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number "
                           f"of dimensions, but got {input.dim()} dimensions for input, and "
                           f"{indices.dim()} dimensions for indices")
    d = _wrap_dim(dim, input.dim())
    idata = indices._data                   # (negative indices count from the end, as PyTorch's)
    if type(idata) is not np.ndarray or (idata.size and idata.min() < 0):
        indices = (indices + input.shape[d]).where(indices < 0, indices)
    si, sx = list(indices.shape), list(input.shape)
    si[d] = sx[d] = 1
    b = list(_bshape(tuple(sx), tuple(si)))
    bi, bx = list(b), list(b)
    bi[d], bx[d] = indices.shape[d], input.shape[d]
    if list(input.shape) != bx:
        input = input.expand(bx)
    if list(indices.shape) != bi:
        indices = indices.expand(bi)
    return gather(input, d, indices)


def _take_k(x, index):
    idx = _wrap_take(index, x.size)
    return x.reshape(-1)[idx]


def _wrap_take(index, n):
    idx = np.asarray(index, np.int64)
    if idx.size:
        bad = (idx < -n) | (idx >= n)
        if bad.any():
            raise IndexError(f"out of range: tried to access index {int(idx[bad].flat[0])} on a "
                             f"tensor of {n} elements.")
    return np.where(idx < 0, idx + n, idx)


def _take_vjp(g, x, index):
    flat = _index_put_op(_zeros((x.numel(),), g._data.dtype), g.reshape(-1),
                         ((), (_wrap_take(index._data, x.numel()).reshape(-1),)), True)
    return flat.reshape(x.shape)


_take = defop("take", _take_k, {"x": _take_vjp}, n_in=2, meta=("x",), upcast=False,
              node_name="TakeBackward0", family=INDEXING, linear=True)


@public()
def take(input, index, *, out=None):
    if out is not None:     # (its overlap refusal: _out.py's NO_OVERLAP)
        return _exact_out("take", take, (input, index), {}, out,
                          "take(): self and out expected to have the same dtype, but got "
                          "self.dtype = {r} and out.dtype = {o}")
    _check_index_tensor(index, "take", msg="take(): Expected a long tensor for index, but got {t}")
    return _take(input, index)


def _put_k(x, index, source, accumulate=False):
    """``x`` (a copy) with the elements at flat positions ``index`` (row-major, a
    negative one from the end) set to, or with ``accumulate`` added, ``source``."""
    if source.size != index.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, "
                         f"but got source.numel() = {source.size}, index.numel() = {index.size}")
    if source.dtype != x.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_title(x.dtype)} and source.dtype = {_title(source.dtype)}")
    idx = _wrap_take(index, x.size).reshape(-1)
    out = np.array(x, order="C")                # (a copy: its flat view is row-major)
    flat = out.reshape(-1)
    if accumulate:
        np.add.at(flat, idx, source.reshape(-1))
    else:
        flat[idx] = source.reshape(-1)
    return out


def _put_batch(op, args, bdims):
    """Under vmap: each sample's flat positions moved to its own part of the
    batch-first physical tensor (checked against the sample's size first)."""
    size = batch_size(args, bdims)
    x, index, source = (materialize(a, b, size) for a, b in zip(args[:3], list(bdims) + [None] * 3))
    n = x[0].numel()
    idx = _wrap_take(index._data.reshape(size, -1), n) + (np.arange(size) * n)[:, None]
    return dispatch(op, [x, _wrap(idx.reshape(-1)), source.reshape(-1)] + list(args[3:])), 0


_put = defop("put", _put_k,
             {"x": lambda g, index, accumulate: g if accumulate else
              _put(g, index, g.new_zeros(index.shape), False),
              "source": lambda g, index, source: _take(g, index).reshape(source.shape)},
             n_in=3, meta=("source",), upcast=False, node_name="PutBackward0", family=INDEXING,
             linear=True, batch=_put_batch)


@public(inplace=True)
def put(input, index, source, accumulate=False):
    """``input`` with its elements at flat positions ``index`` set to (or, with
    ``accumulate``, increased by) ``source``'s."""
    tensor_arg("put", "index", 1, index)
    tensor_arg("put", "source", 2, source)
    _check_index_tensor(index, "put", msg="put_(): Expected a long tensor for index, but got {t}")
    return _put(input, index, source, accumulate)


put.op = _put.op


# ----------------------------------------------------------------------------- index_* along a dim
def _vec_index(index, name, kinds=("int64", "int32"), msg=None, exc=IndexError):
    a = _check_index_tensor(index, name, kinds, msg)
    if a.ndim > 1:
        raise exc(f"{name}(): Index is supposed to be a vector, but got dim: {a.ndim} with type: "
                  f"{_title(a.dtype)} and size: {list(a.shape)}")
    return a.reshape(-1)


def _along(dim, ndim):
    return (_FULL,) * dim


def _index_select_k(x, dim, index):
    d = _wrap_dim(dim, x.ndim)
    idx = index
    if x.ndim == 0:
        if idx.size != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                               f"{idx.size} value(s)")
        if idx.reshape(-1)[0] != 0:
            raise IndexError("index out of range in self")
        return x.copy()
    n = x.shape[d]
    bad = (idx < 0) | (idx >= n)
    if bad.any():
        if d != 1:
            raise IndexError("index out of range in self")
        # (PyTorch's kernel for dim 1 of a tensor of 2 or more dimensions says it its way)
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(idx[bad][0])} "
                           f"axis_dim={n}")
    return np.take(x, idx.reshape(-1), axis=d)


def _index_select_vjp(g, x, dim, index):
    if len(x.shape) == 0:
        return g.sum().reshape(())
    return index_add(_zeros(x.shape, g._data.dtype), dim, index, g)


_index_select = defop("index_select", _index_select_k, {"x": _index_select_vjp}, n_in=3,
                      meta=("x",), upcast=False, node_name="IndexSelectBackward0",
                      family=INDEXING, dims=("dim",), linear=True)


@public()
def index_select(input, dim, index, *, out=None):
    if out is not None:
        return call_with_out('index_select', index_select, (input, dim, index), {}, out)
    a = _check_index_tensor(index, "index_select", ("int64", "int32"),
                            "index_select(): Expected dtype int32 or int64 for index")
    if a.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    return _index_select(input, dim, index)


def _index_add_k(x, dim, index, source, alpha=1):
    d = _wrap_dim(dim, x.ndim)
    idx = index.reshape(-1)
    if source.dtype != x.dtype:
        raise RuntimeError(f"index_add_(): self ({_title(x.dtype)}) and source "
                           f"({_title(source.dtype)}) must have the same scalar type")
    src = source if source.ndim else source.reshape(1)
    xs = x.shape if x.ndim else (1,)
    if src.ndim != len(xs) or any(src.shape[k] != xs[k] for k in range(len(xs)) if k != d):
        if src.ndim == len(xs) or source.ndim:
            raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                               f"specified dimension. Got self.shape = {list(x.shape)} "
                               f"source.shape = {list(source.shape)}")
    if src.shape[d] != idx.size:
        raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal to "
                           f"source.size(dim): ({src.shape[d]}), for dim: {dim}")
    idx = _check_range(idx, xs[d], d)
    out = _acc(x).reshape(xs).copy()
    v = _acc(src)
    if alpha != 1:
        v = v * alpha
    np.add.at(out, _along(d, out.ndim) + (idx,), v)
    return out.reshape(x.shape).astype(x.dtype, copy=False)


def _index_add_vjp_src(g, dim, index, source, alpha):
    r = _index_select(g, dim, index.reshape(-1) if index.dim() == 0 else index)
    if alpha != 1:
        r = r * (alpha.conjugate() if isinstance(alpha, complex) else alpha)
    return r.reshape(source.shape)


_index_add = defop("index_add", _index_add_k, {"x": "grad", "source": _index_add_vjp_src},
                   n_in=4, meta=("x", "source"), upcast=False, node_name="IndexAddBackward0",
                   family=INDEXING, dims=("dim",), linear=True, kwonly=("alpha",))


@public(inplace=True)
def index_add(input, dim, index, source, *, alpha=1, out=None):
    if out is not None:
        return _exact_out("index_add", index_add, (input, dim, index, source), {"alpha": alpha}, out)
    a = _check_index_tensor(index, "index_add_", ("int64", "int32"),
                            "index_add_(): Expected dtype int32/int64 for index but got: {t}")
    if a.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {a.ndim} "
                         f"with type: {_title(a.dtype)} and size: {list(a.shape)}")
    return _index_add(input, dim, index, source, alpha=alpha)


def _fill_value(v, dtype):
    """A fill value (number or 0-d array) in ``dtype``: a complex one with an
    imaginary part is refused for a real ``dtype``, as in PyTorch."""
    if type(v) is np.ndarray:
        v = v[()]
    return np.asarray(D.check_fits(v, dtype)).astype(dtype)


_INDEX_FILL_COMPLEX = "index_fill_(): Converting complex Scalar to non-complex type is not supported"


def _index_fill_k(x, dim, index, value):
    d = _wrap_dim(dim, x.ndim)
    xs = x.shape if x.ndim else (1,)
    idx = _wrap_indices(index.reshape(-1), xs[d], d, IndexError)
    out = x.reshape(xs).copy()
    if np.iscomplexobj(value) and x.dtype.kind != "c":     # (any complex value, as PyTorch)
        raise RuntimeError(_INDEX_FILL_COMPLEX)
    out[_along(d, out.ndim) + (idx,)] = _fill_value(value, x.dtype)
    return out.reshape(x.shape)


def _index_fill_vjp_x(g, dim, index):
    return _index_fill(g, dim, index, 0)


def _index_fill_vjp_v(g, x, dim, index):
    if len(x.shape) == 0:
        return g.sum() if index.numel() else g.sum() * 0
    n = x.shape[_wrap_dim(dim, len(x.shape))]
    idx = np.unique(_wrap_indices(index._data.reshape(-1), n, dim))     # each filled slot once
    return _index_select(g, dim, _wrap(idx)).sum()


# a Python-number value: affine in x, not linear; a 0-dim tensor value: linear in (x, value)
_index_fill = defop("index_fill", _index_fill_k, {"x": _index_fill_vjp_x}, n_in=3,
                    meta=("x",), upcast=False, node_name="IndexFillBackward0",
                    family=INDEXING, dims=("dim",),
                    jvp=lambda x_t, dim, index: _index_fill(x_t, dim, index, 0))
_index_fill_t = defop("index_fill_tensor", _index_fill_k,
                      {"x": _index_fill_vjp_x, "value": _index_fill_vjp_v}, n_in=4,
                      meta=("x", "value"), upcast=False, node_name="IndexFillBackward1",
                      family=INDEXING, dims=("dim",), linear=True)


@public(inplace=True)
def index_fill(input, dim, index, value):
    _check_index_tensor(index, "index_fill_", msg="index_fill_(): Expected dtype int64 for index.",
                        exc=IndexError)
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.dim()} dimension(s).")
        return _index_fill_t(input, dim, index, value)
    return _index_fill(input, dim, index, value)


def _index_copy_k(x, dim, index, source):
    d = _wrap_dim(dim, x.ndim)
    idx = index.reshape(-1)
    if source.dtype != x.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but "
                           f"got (self) {_title(x.dtype)} and (source) {_title(source.dtype)}")
    xs = x.shape if x.ndim else (1,)
    src = source.reshape(source.shape if source.ndim else (1,))
    if src.ndim != len(xs) or any(src.shape[k] != xs[k] for k in range(len(xs)) if k != d):
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. "
                           f"Destination slice shape: {' '.join(map(str, xs[:d] + xs[d + 1:]))} at "
                           f"dimension {d} and source slice shape: "
                           f"{' '.join(map(str, src.shape[:d] + src.shape[d + 1:]))} at dimension 0.")
    if src.shape[d] != idx.size:
        raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to "
                         f"source.size(dim) ({src.shape[d]})")
    idx = _check_range(idx, xs[d], d, IndexError, "index_copy_(): ")
    out = x.reshape(xs).copy()
    out[_along(d, out.ndim) + (idx,)] = src
    return out.reshape(x.shape)


_index_copy = defop("index_copy", _index_copy_k,
                    {"x": lambda g, dim, index: _index_fill(g, dim, index, 0),
                     "source": lambda g, dim, index, source:
                     _index_select(g, dim, index.reshape(-1)).reshape(source.shape)},
                    n_in=4, meta=("x", "source"), upcast=False, node_name="IndexCopyBackward0",
                    family=INDEXING, dims=("dim",), linear=True)


@public(inplace=True)
def index_copy(input, dim, index, source, *, out=None):
    if out is not None:
        return _exact_out("index_copy", index_copy, (input, dim, index, source), {}, out)
    a = _check_index_tensor(index, "index_copy_", ("int64",),
                            "index_copy_(): Expected a long tensor for index, but got {t}")
    if a.ndim > 1:
        raise IndexError("index_copy_(): Index should have dimension 1 or 0 (got "
                         f"{a.ndim})")
    return _index_copy(input, dim, index, source)


# ----------------------------------------------------------------------------- masks
def _check_mask(mask, name):
    if not isinstance(mask, Tensor):
        raise TypeError(f"{name}(): argument 'mask' (position 1) must be Tensor, not "
                        f"{type(mask).__name__}")
    if mask._data.dtype != np.bool_:
        if name == "masked_select":
            raise RuntimeError("masked_select: expected BoolTensor for mask")
        raise RuntimeError(f"{name}_ only supports boolean masks, but got mask with dtype "
                           f"{_ctype(mask._data.dtype)}")


def _bshape(a, b):
    try:
        return np.broadcast_shapes(a, b)
    except ValueError:
        for k in range(1, max(len(a), len(b)) + 1):
            sa = a[-k] if k <= len(a) else 1
            sb = b[-k] if k <= len(b) else 1
            if sa != sb and sa != 1 and sb != 1:
                raise RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b "
                                   f"({sb}) at non-singleton dimension {max(len(a), len(b)) - k}") from None
        raise


def _masked_fill_k(x, mask, value):
    shape = _bshape(mask.shape, x.shape)
    return np.where(mask, _fill_value(value, x.dtype), x) if shape == x.shape else \
        np.where(np.broadcast_to(mask, shape), _fill_value(value, x.dtype), np.broadcast_to(x, shape))


def _masked_fill_vjp_v(g, mask):
    # (summed to value's shape by the engine: see fill in ops/core.py)
    from .pointwise import where
    return where(mask, g, _zero0(g))


# where(mask, value, x): a Python-number value is affine in x, a 0-dim tensor one linear
_masked_fill = defop("masked_fill", _masked_fill_k,
                     {"x": lambda g, mask: _masked_fill(g, mask, 0)}, n_in=2,
                     meta=("x",), upcast=False, node_name="MaskedFillBackward0",
                     family=ELEMENTWISE)
_masked_fill_t = defop("masked_fill_tensor", _masked_fill_k,
                       {"x": lambda g, mask: _masked_fill(g, mask, 0),
                        "value": _masked_fill_vjp_v}, n_in=3, meta=("x", "value"), upcast=False,
                       node_name="MaskedFillBackward1", family=ELEMENTWISE, linear=True)


@public(inplace=True)
def masked_fill(input, mask, value):
    _check_mask(mask, "masked_fill")
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.dim()} dimension(s).")
        return _masked_fill_t(input, mask, value)
    return _masked_fill(input, mask, value)


def _masked_select_k(x, mask):
    shape = _bshape(mask.shape, x.shape)
    return np.broadcast_to(x, shape)[np.broadcast_to(mask, shape)]


def _masked_select_vjp(g, x, mask):
    shape = np.broadcast_shapes(tuple(x.shape), mask.shape)
    flat = shape or (1,)                # (NumPy has no nonzero of a 0-d array)
    key = ((), np.nonzero(np.broadcast_to(mask._data, shape).reshape(flat)))
    r = _index_put_op(_zeros(flat, g._data.dtype), g, key, False)
    return r if shape else r.reshape(())


_masked_select = defop("masked_select", _masked_select_k, {"x": _masked_select_vjp}, n_in=2,
                       meta=("x",), upcast=False, node_name="MaskedSelectBackward0",
                       family=INDEXING, linear=True)


@public()
def masked_select(input, mask, *, out=None):
    if out is not None:
        return call_with_out('masked_select', masked_select, (input, mask), {}, out)
    _check_mask(mask, "masked_select")
    return _masked_select(input, mask)


def _nonzero_k(x):
    if x.ndim == 0:
        return np.zeros((1 if x else 0, 0), np.int64)
    return np.argwhere(x).astype(np.int64)


_nonzero = defop("nonzero", _nonzero_k, None, upcast=False, family=OTHER)


@public()
def nonzero(input, *, out=None, as_tuple=False):
    if out is not None and not as_tuple:
        return call_with_out('nonzero', nonzero, (input,), {}, out)
    r = _nonzero(input)
    if not as_tuple:
        return r
    d = r._data
    if input.dim() == 0:
        return (_wrap(np.zeros(d.shape[0], np.int64)),)
    return tuple(_wrap(np.ascontiguousarray(d[:, k])) for k in range(d.shape[1]))


@public()
def argwhere(input):
    return _nonzero(input)
