"""The ops the engine itself leans on: broadcasting back (``sum_to_size``,
``expand``), casts, copies and the basic reshapes, plus ``sum``/``mean`` and
``matmul``.  The rest of the op set lives in the sibling modules."""
import math
import operator

import ml_dtypes
import numpy as np

from .. import _dtype as D
from .._compat import view_shape
from .._tensor import Tensor, _expandable
from ._families import batch_dims, jvp_linear, ELEMENTWISE, REDUCTION, VIEW, BILINEAR, OTHER
from .._tensor import (Size, _wrap_dim, check_device, device as _device, _layout_copy, contiguous_format,
                       preserve_format, _SCALAR_NAMES, storage_offset_in, storage_root)
from ._registry import (Untracked, autocast_inputs, broadcast_error, by_tensor_arg, defop, dispatch, dispatch_view,
                        op_spelled, overload_node, public)
from ._util import (dims_arg, no_bool_product, size_arg, star_by_keyword, tensor_arg, _tname, int_list_arg,
                    star_ints_error, function_of_method, method_of_function, _int_like)
from .pointwise import conj
from .._out import call_with_out
from .._warn import warn as _warn_user

__all__ = ["sum", "mean", "broadcast_to", "broadcast_tensors", "broadcast_shapes", "reshape",
           "transpose", "swapaxes", "swapdims", "permute", "t", "unsqueeze", "squeeze", "flatten",
           "clone", "real", "imag", "resolve_conj", "resolve_neg", "is_conj", "matmul", "fill",
           "ravel"]


# ---------------------------------------------------------------- reductions that undo broadcasting
def _sum_dtype(x):
    """The dtype PyTorch sums ``x`` in when none is asked for: int64 for integers
    and bool (NumPy would give unsigned ones uint64), else ``x``'s (None)."""
    return np.int64 if x.dtype.kind in "biu" else None


_LOW = frozenset(np.dtype(t) for t in (np.float16, ml_dtypes.bfloat16))


def _low_sum(x, axes, keepdim, n=1):
    """A sum (over ``n``: a mean) of half/bfloat16 elements accumulated in float32,
    as PyTorch's (in their own precision a long sum stalls: 4096 x 3.0 gave 1024
    in bfloat16), rounded once at the end."""
    return (np.add.reduce(x, axis=axes, dtype=np.float32, keepdims=keepdim) / n).astype(x.dtype)


def _sum_k(x, dim=None, keepdim=False, dtype=None):
    # (not upcast by dispatch: a requested dtype is the result's, half input included)
    axes = dims_arg(dim, x.ndim) if x.ndim else (dims_arg(dim, 0) and None)
    if dtype is not None:                   # PyTorch casts the input to dtype first
        x = x.astype(D.to_dtype(dtype).np, copy=False)
    elif x.dtype.kind in "biu":
        return np.add.reduce(x, axis=axes, dtype=np.int64, keepdims=keepdim)
    if x.dtype in _LOW:
        return _low_sum(x, axes, keepdim)
    return np.add.reduce(x, axis=axes, dtype=x.dtype, keepdims=keepdim)     # (np.sum minus its wrapper)


def _unreduce(g, shape, dim, keepdim):
    """Gradient of a reduction over ``dim``: put the reduced axes back, then broadcast."""
    if not shape:                       # a 0-d input: dim 0/-1 names the tensor itself
        return g
    if not keepdim and dim is not None:
        axes = dims_arg(dim, len(shape))
        if axes is not None:
            for a in axes:
                g = g.unsqueeze(a)
    return g.expand(shape)      # a 0-d g (full reduction) broadcasts as it is


sum = defop("sum", _sum_k,
            {"x": lambda g, x, dim, keepdim: _unreduce(g, x.shape, dim, keepdim)},
            meta=("x",), family=REDUCTION, dims=("dim",), linear=True, kwonly=("dtype",), upcast=False)
_SUM_DIM = overload_node(sum.op, "SumBackward1")      # sum(x, dim): PyTorch's overload
sum.op.variants = lambda a: sum.op.node_cls if a[1] is None else _SUM_DIM


def _mean_dtype_error(which, dt):
    from .inplace import _title
    return RuntimeError(f"mean(): could not infer output dtype. {which} dtype must be either a "
                        f"floating point or complex dtype. Got: {_title(dt)}")


def _mean_k(x, dim=None, keepdim=False, dtype=None):
    if dtype is None:
        if x.dtype.kind in "biu":
            raise _mean_dtype_error("Input", D._FROM_NP[x.dtype])
    else:
        dtype = D.to_dtype(dtype)
        if not (dtype.is_floating_point or dtype.is_complex):
            raise _mean_dtype_error("Optional", dtype)
        x = x.astype(dtype.np, copy=False)
    axes = dims_arg(dim, x.ndim) if x.ndim else (dims_arg(dim, 0) and None)
    n = x.size if axes is None else math.prod([x.shape[a] for a in axes])
    if x.dtype in _LOW:
        return _low_sum(x, axes, keepdim, n)
    total = np.add.reduce(x, axis=axes, keepdims=keepdim)     # (np.mean: ~5 us more)
    if n == 0:
        with np.errstate(invalid="ignore"):
            return total / n
    return total / n            # (a NumPy scalar or array over a Python int keeps its dtype)


def _mean_vjp(g, x, dim, keepdim):
    axes = dims_arg(dim, x.ndim) if x.ndim else (dims_arg(dim, 0) and None)
    n = x.numel() if axes is None else int(np.prod([x.shape[a] for a in axes]))
    return _unreduce(g / n, x.shape, dim, keepdim)


mean = defop("mean", _mean_k, {"x": _mean_vjp}, meta=("x",), family=REDUCTION, dims=("dim",),
             linear=True, kwonly=("dtype",), upcast=False)
_MEAN_DIM = overload_node(mean.op, "MeanBackward1")
mean.op.variants = lambda a: mean.op.node_cls if a[1] is None else _MEAN_DIM


def _sum_to_size_k(x, *size):
    if not size:                        # (sum_to_size(()) is the full sum; no argument is an error)
        raise TypeError('sum_to_size() missing 1 required positional arguments: "size"')
    size = size_arg(size)
    shape = x.shape
    lead = len(shape) - len(size)
    dt = _sum_dtype(x)
    if lead > 0 and shape[lead:] == size:   # only leading dimensions (a broadcast bias's gradient)
        return np.add.reduce(x, axis=0 if lead == 1 else tuple(range(lead)), dtype=dt)
    if not _expandable(size, shape):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and shape[lead + i] != 1)
    r = np.add.reduce(x, axis=axes, keepdims=True, dtype=dt) if axes else x  # (np.sum minus its wrapper)
    return r.reshape(size)


# (its reduced dimensions follow from ``size``, there is no dimension parameter: OTHER)
sum_to_size = defop("sum_to_size", _sum_to_size_k, {"x": lambda g, x: g.expand(x.shape)},
                    meta=("x",), family=OTHER, linear=True, exact=True)


_LEGACY_TYPES = {"Float", "Double", "Half", "Long", "Int", "Short", "Char", "Byte"}


def _expand_k(x, *size):
    if not size:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    size = size_arg(size)
    shape = x.shape
    if size == shape:                   # nothing broadcast: a plain (writable) view
        return x.view()
    lead = len(size) - len(shape)
    if lead > 0 and size[lead:] == shape and x.flags.c_contiguous:
        # the commonest, over contiguous memory: new leading dims only (a reduction's
        # gradient), stride 0 there
        for s in size[:lead]:
            if s < 1:
                break                   # (the general path below says what is wrong)
        else:
            r = np.ndarray(size, x.dtype, x, 0, (0,) * lead + x.strides)
            if x.size and r.size != x.size:     # elements repeat (see below)
                r.setflags(write=False)
            return r
    if lead >= 0 and x.flags.c_contiguous and (not lead or min(size[:lead]) >= 0):
        # any other sizes that fit, over contiguous memory, in one pass
        full, strides = list(size[:lead]), [0] * lead
        for s, n, st in zip(size[lead:], shape, x.strides):
            if s == n or s == -1:
                full.append(n)
                strides.append(st)
            elif n == 1 and s >= 0:
                full.append(s)
                strides.append(0)
            else:
                break                   # (the checks below say what does not fit)
        else:
            r = np.ndarray(tuple(full), x.dtype, x, 0, tuple(strides))  # (positional: ~0.2 us less)
            if math.prod(full) != x.size:   # elements repeat: read-only, as PyTorch refuses to
                r.setflags(write=False)     # write there (~0.2 us less than through r.flags)
            return r
    if len(size) < x.ndim:
        name = _tname(x.dtype)          # PyTorch's legacy type name, or its backend type's
        name = f"torch.{name}Tensor" if name in _LEGACY_TYPES else f"CPU{name}Type"
        raise RuntimeError(f"expand({name}{{{list(x.shape)}}}, size={list(size)}): the "
                           f"number of sizes provided ({len(size)}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({x.ndim})")
    for i in range(lead):
        if size[i] == -1:
            raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                               f"non-existing dimension {i}")
        if size[i] < 0:
            raise RuntimeError("numel: integer multiplication overflow")     # (PyTorch's words)
    full = tuple(x.shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(size))
    for i in reversed(range(x.ndim)):   # (PyTorch names the last that does not fit)
        if x.shape[i] != full[lead + i] and (x.shape[i] != 1 or full[lead + i] < 0):
            raise RuntimeError(f"The expanded size of the tensor ({full[lead + i]}) must match the "
                               f"existing size ({x.shape[i]}) at non-singleton dimension {lead + i}.  "
                               f"Target sizes: {list(size)}.  Tensor sizes: {list(x.shape)}")
    if math.prod(full) == x.size:
        # only size-1 dims added or kept: no element repeats, so a writable view, as
        # PyTorch allows writing into such an expand
        return x.reshape(full)
    return np.broadcast_to(x, full)     # (read-only: elements repeat)


expand = defop("expand", _expand_k, {"x": lambda g, x: g.sum_to_size(x.shape)},
               meta=("x",), upcast=False, view=True, family=VIEW, linear=True)


@public()
def broadcast_to(input, size):
    int_list_arg("broadcast_to", "size", 2, size)
    return expand(input, size)


_broadcast_to_as_method = method_of_function(broadcast_to)


def _broadcast_to_method(self, *size, **kwargs):
    """``x.broadcast_to(2, 3)`` as well as ``x.broadcast_to((2, 3))``: PyTorch's method
    takes the sizes spread too (its function takes one sequence)."""
    if len(size) > 1 or (len(size) == 1 and _int_like(size[0]) and not isinstance(size[0], Tensor)):
        if not all(_int_like(s) for s in size):
            raise TypeError(f"broadcast_to() takes 1 positional argument but {len(size)} were given")
        size = (tuple(size),)
    return _broadcast_to_as_method(self, *size, **kwargs)


broadcast_to.as_method = _broadcast_to_method


def _other_shape(fname, other):
    """The shape of ``other`` in ``<fname>(input, other)``, or PyTorch's TypeError."""
    try:
        return other._data.shape
    except AttributeError:
        tensor_arg(fname, "other", 1, other)
        raise


@public()
def expand_as(input, other):
    return dispatch_view(expand.op, (input, _other_shape("expand_as", other)))


@public(method=False)
def broadcast_tensors(*tensors):
    shape = ()
    for t in tensors:                   # (PyTorch's infer_size, pairwise: its error)
        try:
            shape = np.broadcast_shapes(shape, t.shape)
        except ValueError:
            raise broadcast_error(shape, tuple(t.shape)) from None
    return tuple(expand(t, shape) for t in tensors)


@public(method=False)
def broadcast_shapes(*shapes):
    """The shape the ``shapes`` (each a sequence of ints, or an int) broadcast to,
    with PyTorch's errors."""
    given = [(s,) if isinstance(s, (int, np.integer)) else s for s in shapes]   # (the message's)
    shapes = [tuple(s) for s in given]
    result = [1] * max((len(s) for s in shapes), default=0)
    for k, shape in enumerate(shapes):
        for i in range(-1, -1 - len(shape), -1):
            n = shape[i]
            if n < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension ({n}): ({n})")
            if n == 1 or n == result[i]:
                continue
            if result[i] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {n} at {i}! Mismatching "
                                   f"argument at index {k} had {given[k]!r}; but expected shape should be "
                                   f"broadcastable to {result}")
            result[i] = n
    return Size(result)


# ---------------------------------------------------------------- reshapes
def _infer_shape(size, numel):
    size = list(size)
    neg = [i for i, s in enumerate(size) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for i, s in enumerate(size):
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {size}")
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(size)}' is invalid for input of size {numel}")
        size[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(size)}' is invalid for input of size {numel}")
    return tuple(size)


def _reshape_k(x, *shape):
    return x.reshape(_infer_shape(size_arg(shape), x.size))


def _view_k(x, *shape):
    if x.flags.c_contiguous:        # NumPy's reshape is a view; it checks the sizes (our words below)
        try:
            r = x.reshape(*shape)       # (NumPy takes the sizes listed or as one sequence)
        except (TypeError, ValueError):
            pass
        else:
            if r.shape == shape:        # the commonest: sizes listed, none inferred
                return r
            s = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
            if r.shape == s or not s or min(s) >= -1:  # (NumPy reads any negative size as
                return r                # "infer", PyTorch only -1; NumPy refuses two of them)
    if len(shape) == 1 and isinstance(shape[0], (D.dtype,)):
        return Untracked(_view_dtype(x, shape[0]))
    new = _infer_shape(size_arg(shape), x.size)
    try:
        return view_shape(x, new)
    except ValueError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.") from None


def _view_dtype(x, dtype):
    """``view(dtype)``: the same memory read as ``dtype`` (PyTorch's checks and words);
    with another element size the last dimension (stride 1) shrinks or grows."""
    new = dtype.np
    old_size, new_size = x.dtype.itemsize, new.itemsize
    if old_size != new_size:
        what = f"to view {_SCALAR_NAMES[D._FROM_NP[x.dtype].name]} as {_SCALAR_NAMES[dtype.name]} " \
            "(different element sizes)"
        if x.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if x.size:
            strides = [s // old_size for s in x.strides]
        else:                           # (PyTorch's strides of an empty tensor: contiguous)
            strides = [math.prod(max(n, 1) for n in x.shape[i + 1:]) for i in range(x.ndim)]
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        if new_size > old_size:
            ratio = new_size // old_size
            if x.shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got "
                                   f"{x.shape[-1]}")
            offset = storage_offset_in(x, storage_root(x))
            if offset % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but "
                                   f"got {offset}")
            for i, s in enumerate(strides[:-1]):
                if s % ratio:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, but got {s}")
    return x.view(new)


def _view_jvp(op, args, tangents, result):
    if len(args) == 2 and isinstance(args[1], D.dtype):    # view(dtype): no derivative
        return None
    return jvp_linear(op, args, tangents, result)


_reshape_vjp = lambda g, x: g.reshape(x.shape)   # noqa: E731
view = defop("view", _view_k, {"x": _reshape_vjp}, meta=("x",), upcast=False, view=True,
             family=VIEW, linear=True, star_name="size", jvp=_view_jvp)
_unsafe_view = defop("_unsafe_view", lambda x, shape: x.reshape(shape),
                     {"x": _reshape_vjp}, meta=("x",), upcast=False,
                     node_name="UnsafeViewBackward0", family=VIEW, linear=True)


@public()
def _reshape_method(*args, **kwargs):
    """A view when the memory layout allows one, else a copy (recorded as PyTorch
    does: ``clone`` then ``_unsafe_view``).  ``x.reshape(2, 3)`` or
    ``x.reshape((2, 3))``; the function takes one sequence (``reshape``)."""
    if kwargs or len(args) < 2:
        args = star_by_keyword("reshape", args, kwargs, "shape")
    try:
        return dispatch_view(view.op, args)
    except RuntimeError as e:           # the layout needs a copy: view() said so
        if not str(e).startswith("view size is not compatible"):
            raise
    except TypeError:
        tensor_arg("reshape", "input", 1, args[0])      # (view() would name itself)
        err = star_ints_error("reshape", "shape", args[1:])
        if err is not None:
            raise err from None
        raise
    input, shape = args[0], args[1:]
    return _unsafe_view(clone(input), _infer_shape(size_arg(shape), input._data.size))


reshape = function_of_method(_reshape_method, "reshape", "shape")


@public()
def view_as(input, other):
    return dispatch_view(view.op, (input, *_other_shape("view_as", other)))  # (sizes listed)


@public()
def reshape_as(input, other):
    return reshape(input, _other_shape("reshape_as", other))


def _transpose_k(x, dim0, dim1):
    nd = x.ndim
    if not nd:
        return x
    if not (-nd <= dim0 < nd and -nd <= dim1 < nd):     # (NumPy wraps negative dims)
        dim0, dim1 = _wrap_dim(dim0, nd), _wrap_dim(dim1, nd)
    return x.swapaxes(dim0, dim1)


transpose = defop("transpose", _transpose_k, {"x": lambda g, dim0, dim1: g.transpose(dim0, dim1)},
                  upcast=False, view=True, family=VIEW, dims=("dim0", "dim1"), linear=True,
                  batch=batch_dims, inplace=True)
swapaxes = swapdims = transpose


def _permute_k(x, *dims):
    d = dims[0] if len(dims) == 1 and type(dims[0]) in (tuple, list) else dims
    if dims and len(d) == x.ndim:
        try:                # NumPy checks the range and repeats (and wraps negative dims)
            return x.transpose(d)
        except (TypeError, ValueError):
            pass            # (in our words below)
    if not dims:            # x.permute(): PyTorch's parser wants the argument (x.permute(()) is fine)
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    dims = size_arg(dims)
    if len(dims) != x.ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not "
                           f"match the length of the desired ordering of dimensions i.e. input.dim() "
                           f"= {x.ndim} is not equal to len(dims) = {len(dims)}".replace("(sparse_coo)", ""))
    axes = tuple(_wrap_dim(d, x.ndim) for d in dims)
    if len(set(axes)) != len(axes):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return np.transpose(x, axes)


def _permute_vjp(g, dims):
    from .._tensor import _wrap_dim
    axes = [_wrap_dim(d, g.ndim) for d in size_arg(dims)]
    return g.permute(tuple(np.argsort(axes).tolist()))


_permute = defop("permute", _permute_k, {"x": _permute_vjp}, upcast=False, view=True,
                 family=VIEW, dims=("dims",), linear=True)
_permute_op = _permute.op


def _permute_method(*args, **kwargs):
    """``x.permute(1, 0)``, ``x.permute((1, 0))`` or ``x.permute(dims=(1, 0))``;
    the function takes one sequence (``permute``)."""
    if kwargs:
        args = star_by_keyword("permute", args, kwargs)
    try:
        return dispatch_view(_permute_op, args)
    except TypeError:
        err = star_ints_error("permute", "dims", args[1:]) if not kwargs else None
        if err is not None:
            raise err from None
        raise


_permute_method.op, _permute_method.spelling = _permute_op, _permute.spelling
permute = function_of_method(_permute_method, "permute", "dims")


def _t_k(x):
    if x.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    return x.T


t = defop("t", _t_k, {"x": lambda g: g.t()}, upcast=False, view=True, family=VIEW, linear=True,
          inplace=True)


def _unsqueeze_k(x, dim):
    n = x.ndim
    if type(dim) is not int or not -n - 1 <= dim <= n:
        dim = _wrap_dim(dim, n + 1)
    elif dim < 0:
        dim += n + 1
    s = x.shape     # (np.expand_dims reshapes too, through ~1 us of Python)
    return x.reshape(s[:dim] + (1,) + s[dim:])


unsqueeze = defop("unsqueeze", _unsqueeze_k, {"x": lambda g, dim: g.squeeze(dim)},
                  upcast=False, view=True, family=VIEW, dims=("dim",), linear=True, inplace=True)


def _squeeze_k(x, dim=None):
    if dim is None:
        return x.squeeze()
    if type(dim) is int and -x.ndim <= dim < x.ndim:     # the commonest, without dims_arg
        return x.squeeze(dim) if x.shape[dim] == 1 else x
    axes = dims_arg(dim, x.ndim) or ()
    axes = tuple(a for a in axes if x.ndim and x.shape[a] == 1)
    return np.squeeze(x, axis=axes) if axes else x


squeeze = defop("squeeze", _squeeze_k, {"x": lambda g, x: g.reshape(x.shape)},
                meta=("x",), upcast=False, view=True, family=VIEW, dims=("dim",), linear=True,
                inplace=True)
_SQUEEZE_DIM = overload_node(squeeze.op, "SqueezeBackward1")      # squeeze(x, 0)
_SQUEEZE_DIMS = overload_node(squeeze.op, "SqueezeBackward2")     # squeeze(x, (0, 1))
squeeze.op.variants = lambda a: (squeeze.op.node_cls if len(a) < 2 or a[1] is None else
                                 _SQUEEZE_DIMS if isinstance(a[1], (tuple, list)) else _SQUEEZE_DIM)


def _flatten_k(x, start_dim=0, end_dim=-1):
    if x.ndim == 0:
        return x.reshape(1)
    s, e = _wrap_dim(start_dim, x.ndim), _wrap_dim(end_dim, x.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = x.shape
    return x.reshape(shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])


_flatten = defop("flatten", _flatten_k, {"x": lambda g, x: g.reshape(x.shape)},
                 meta=("x",), upcast=False, view="maybe", node_name="ViewBackward0",
                 family=VIEW, dims=("start_dim", "end_dim"), linear=True)


def flatten(input, start_dim=0, end_dim=-1):
    """``input`` itself when there is nothing to flatten (``start_dim`` and
    ``end_dim`` name one dimension), as PyTorch returns it: no view, no node;
    else PyTorch's ``reshape``: a view (``ViewBackward0``) where the memory
    allows one, else a copy (``CloneBackward0``, ``UnsafeViewBackward0``)."""
    if type(start_dim) is not int or type(end_dim) is not int:
        start_dim, end_dim = (_int_arg("flatten", name, pos, v) for pos, (name, v) in
                              enumerate((("start_dim", start_dim), ("end_dim", end_dim)), 1))
    try:
        shape = input._data.shape
    except AttributeError:
        shape = ()
    n = len(shape)
    if n and -n <= start_dim < n and -n <= end_dim < n:
        s, e = start_dim % n, end_dim % n
        if s == e:
            return input
        if s < e:               # (sizes listed: view's commonest call)
            if s == 0 and e == n - 1:
                return _reshape_method(input, input._data.size)
            return _reshape_method(input, *shape[:s], math.prod(shape[s:e + 1]), *shape[e + 1:])
    return _flatten(input, start_dim, end_dim)     # (0-d, and the errors)


flatten.op, flatten.spelling = _flatten.op, _flatten.spelling


def _int_arg(fname, name, pos, v):
    """``v`` as the int PyTorch's parser takes for argument ``name`` (anything
    with ``__index__`` but a bool), or its TypeError."""
    if type(v) is bool or not hasattr(type(v), "__index__"):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be int, not "
                        f"{type(v).__name__}")
    return operator.index(v)


@public()
def ravel(input):
    """``input`` as one dimension: a view of contiguous memory, else of a
    contiguous copy (PyTorch's ``contiguous().view(-1)``, nodes included)."""
    tensor_arg("ravel", "input", 1, input)
    return input.contiguous().view(-1)


# ---------------------------------------------------------------- casts and copies
def _to_k(x, dtype):
    npdt = dtype.np
    if x.dtype.kind == "c" and npdt.kind == "b":
        return x != 0                   # (both parts count, as in PyTorch)
    if x.dtype.kind == "c" and npdt.kind != "c":
        _warn_user("Casting complex values to real discards the imaginary part")
        x = x.real
    return x.astype(npdt)


_to = defop("_to_copy", _to_k, {"x": "grad"}, meta=("x",), upcast=False,
            node_name="ToCopyBackward0", family=ELEMENTWISE)


_TO_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = "
    "False, *, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format "
    "memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format "
    "memory_format = None)\n")


_TO_FORMS = (("device", "dtype", "non_blocking", "copy"), ("dtype", "non_blocking", "copy"),
             ("tensor", "non_blocking", "copy"))
_PY_DTYPES = (float, int, bool, complex)


def _to_fits(name, v):
    if name == "device":
        return v is None or type(v) is not bool and isinstance(v, (str, _device, int))
    if name == "dtype":
        return v is None or isinstance(v, D.dtype) or any(v is t for t in _PY_DTYPES)
    if name == "tensor":
        return isinstance(v, Tensor)
    return type(v) is bool                  # non_blocking, copy


def _to_type_name(v):
    if isinstance(v, D.dtype):
        return "torch.dtype"
    if isinstance(v, _device):
        return "torch.device"
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def parse_to(args, kwargs):
    """PyTorch's three forms of ``to``: ``(device=None, dtype=None, non_blocking=False,
    copy=False)``, ``(dtype, non_blocking=False, copy=False)`` and ``(tensor,
    non_blocking=False, copy=False)``, each with a keyword ``memory_format``.
    Returns ``(device, dtype, non_blocking, copy, memory_format)`` (a tensor's
    dtype for the third; ``copy`` None when not given), or raises PyTorch's TypeError."""
    kw = dict(kwargs)
    fmt = kw.pop("memory_format", None)
    for form in _TO_FORMS:
        if len(args) > len(form) or any(k not in form or k in form[:len(args)] for k in kw):
            continue
        bound = dict(zip(form, args))
        bound.update(kw)
        if form[0] != "device" and bound.get(form[0]) is None:     # (the dtype or tensor is required)
            continue
        if all(_to_fits(k, v) for k, v in bound.items()):
            dtype = bound["tensor"].dtype if "tensor" in bound else bound.get("dtype")
            if any(dtype is t for t in _PY_DTYPES):
                dtype = D.to_dtype(dtype)
            return (bound.get("device"), dtype, bound.get("non_blocking", False), bound.get("copy"), fmt)
    got = [_to_type_name(a) for a in args] + [f"{k}={_to_type_name(v)}" for k, v in kwargs.items()]
    raise TypeError(f"to() received an invalid combination of arguments - got ({', '.join(got)}), "
                    f"but expected one of:\n" + _TO_SIGNATURES)


@public()
def to(input, *args, **kwargs):
    """``to(dtype)``, ``to(tensor)``, ``to(device)``, ``to(device, dtype)``, each
    optionally followed by ``non_blocking`` and ``copy`` (by position or keyword)."""
    if kwargs or len(args) != 1 or not isinstance(args[0], D.dtype):
        dev, dtype, _, copy, fmt = parse_to(args, kwargs)
        check_device(dev)
    else:                                   # x.to(dtype), the commonest
        dtype, copy, fmt = args[0], False, None
    if dtype is None or dtype.np == input._data.dtype:
        r = clone(input) if copy else input
    else:
        r = _to(input, dtype)
    if fmt is not None and fmt is not preserve_format:
        r = contiguous(r, memory_format=fmt)
    return r


def _cast(name):
    dt = getattr(D, name if name != "bool" else "bool_")
    return lambda self: to(self, dt)


def _clone_k(x, memory_format=None):
    """A copy; by default laid out as ``x`` is (PyTorch's ``preserve_format``)."""
    return _layout_copy(x, memory_format or preserve_format)


clone = defop("clone", _clone_k, {"x": "grad"}, upcast=False, family=ELEMENTWISE, linear=True,
              kwonly=("memory_format",))


@public()
def contiguous(input, memory_format=None):
    if memory_format is None or memory_format is contiguous_format:
        return input if input._data.flags.c_contiguous else \
            clone(input, memory_format=contiguous_format)
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return input if input.is_contiguous(memory_format=memory_format) else \
        clone(input, memory_format=memory_format)


def _real_k(x):
    return x.real


# real and imag are only real-linear (as conj is), so not ``linear``
real_ = defop("real", _real_k, {"x": "grad"}, upcast=False, view=True, family=VIEW, method=False)
imag_ = defop("imag", lambda x: x.imag, {"x": lambda g: g * 1j}, upcast=False, view=True,
              family=VIEW, method=False)


@public(method=False)
def real(input):
    return real_(input) if input.is_complex() else input


@public(method=False)
def imag(input):
    if not input.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return imag_(input)


def conj_op(input):
    return conj(input)


@public()
def resolve_conj(input):
    """``input`` with its conjugation materialized, as PyTorch's: a new tensor for
    a conj result (here already a copy, so one that is no longer marked), else
    ``input`` itself."""
    return clone(input) if input._conj_copy else input


@public()
def resolve_neg(input):
    return input


@public()
def is_conj(input):
    """Whether ``input`` is the result of ``conj()`` of a complex tensor (a copy
    here, where PyTorch's is a view with its conjugate bit set)."""
    return input._conj_copy


# ---------------------------------------------------------------- matmul
def _mixed_matmul(a, b):
    names = [D.CPP_NAMES[D._FROM_NP[d].name] for d in (a, b)]
    return RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {names[0]} != {names[1]}")


def _matmul_k(x, y):
    if x.ndim == 0 or y.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{x.ndim}D and {y.ndim}D")
    kx, ky = x.shape[-1], y.shape[-2] if y.ndim > 1 else y.shape[0]
    if kx != ky:
        if x.ndim == 1 and y.ndim == 1:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{x.shape[0]}] and src "
                               f"[{y.shape[0]}] to have the same number of elements, but got "
                               f"{x.shape[0]} and {y.shape[0]} elements respectively")
        xs = "x".join(map(str, x.shape if x.ndim > 1 else (1,) + x.shape))
        ys = "x".join(map(str, y.shape if y.ndim > 1 else y.shape + (1,)))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({xs} and {ys})")
    if x.dtype != y.dtype:
        raise _mixed_matmul(x.dtype, y.dtype)
    if x.dtype.kind == "b":     # (named by the CPU kernel PyTorch's matmul reaches)
        no_bool_product("bmm" if y.ndim > 2 else "addmv_impl_cpu" if y.ndim == 1 else
                        "addmm_impl_cpu_", x, y)
    return np.matmul(x, y)


def _matmul_vjp_x(g, x, y):
    if x.ndim == 1 and y.ndim == 1:
        return g * conj(y)
    if y.ndim == 1:                                   # (..., n, k) @ (k,) -> (..., n)
        return g.unsqueeze(-1) * conj(y)
    if x.ndim == 1:                                   # (k,) @ (..., k, m) -> (..., m)
        return (g.unsqueeze(-2) @ conj(y).mT).squeeze(-2)
    return g @ conj(y).mT


def _matmul_vjp_y(g, x, y):
    if x.ndim == 1 and y.ndim == 1:
        return g * conj(x)
    if y.ndim == 1:
        return (conj(x).mT @ g.unsqueeze(-1)).squeeze(-1)
    if x.ndim == 1:
        return conj(x).unsqueeze(-1) * g.unsqueeze(-2)
    return conj(x).mT @ g


_matmul = defop("matmul", _matmul_k, {"x": _matmul_vjp_x, "y": _matmul_vjp_y}, n_in=2,
                node_name="MmBackward0", family=BILINEAR)
# filled in by ops/linalg.py: (ndim, ndim) -> mm / mv / dot, so that the node is
# the one PyTorch's matmul records for those shapes (MmBackward0, MvBackward0, DotBackward0)
MATMUL_CASES = {}


@public(operators=("__matmul__", "__rmatmul__"))
def matmul(input, other, *, out=None):
    """Matrix product with NumPy/PyTorch broadcasting; 2-D @ 2-D is ``mm``,
    2-D @ 1-D ``mv``, 1-D @ 1-D ``dot``."""
    if out is not None:
        return call_with_out('matmul', matmul, (input, other), {}, out)
    try:
        f = MATMUL_CASES.get((input._data.ndim, other._data.ndim))
        if input._data.dtype == other._data.dtype:
            if f is not None:
                return f(input, other)
        elif input._data.ndim and other._data.ndim:
            input, other = autocast_inputs("matmul", input, other)
            if input._data.dtype == other._data.dtype:      # (autocast cast them)
                return matmul(input, other)
            # (before the half-precision upcast would make them agree)
            raise _mixed_matmul(input._data.dtype, other._data.dtype)
    except AttributeError:
        for pos, (name, v) in enumerate((("input", input), ("other", other)), 1):
            if not isinstance(v, Tensor):
                raise TypeError(f"matmul(): argument '{name}' (position {pos}) must be Tensor, "
                                f"not {type(v).__name__}") from None
    return _matmul(input, other)


matmul.op = _matmul.op


# ---------------------------------------------------------------- the out-of-place halves of copy_ / fill_
def _copy_from_k(dst, src):
    if not _expandable(src.shape, dst.shape):
        raise RuntimeError(f"output with shape {list(dst.shape)} doesn't match the broadcast shape "
                           f"{list(np.broadcast_shapes(dst.shape, src.shape))}")
    if src.dtype.kind == "c" and dst.dtype.kind != "c":
        src = src != 0 if dst.dtype.kind == "b" else src.real     # (bool: either part, as .bool())
    return np.broadcast_to(src.astype(dst.dtype, copy=False), dst.shape).copy()


def _zeros_vjp(g):
    from .pointwise import _zl
    return _zl(g)


copy_from = defop("copy_from", _copy_from_k, {"dst": _zeros_vjp, "src": "grad"}, n_in=2,
                  upcast=False, node_name="CopyBackwards", family=ELEMENTWISE, method=False)


def _fill_k(dst, value):
    shape = dst.shape
    if type(value) is np.ndarray:       # a 0-d tensor's: PyTorch drops an imaginary part here
        if value.dtype.kind == "c" and dst.dtype.kind not in "cb":
            _warn_user("Casting complex values to real discards the imaginary part")
            value = value.real
        if value.ndim:                  # vmap's batch of values (the public fill refuses more)
            shape = np.broadcast_shapes(shape, value.shape)
    else:
        value = D.check_fits(value, dst.dtype)
    return np.full(shape, value, dst.dtype)


# value's gradient is g summed to value's shape by the engine (a vjp that summed
# everything would, on a vmap batch recorded as one call, sum over the samples too)
_fill = defop("fill", _fill_k, {"dst": _zeros_vjp, "value": "grad"}, n_in=2,
              upcast=False, family=ELEMENTWISE, method=False, node_name="FillBackward1")


@public(method=False)
def fill(input, value):
    """A tensor of ``input``'s shape and dtype holding ``value``: a number or a
    0-d tensor (a tensor of more dimensions is refused, as in PyTorch, checked
    here on the logical tensor so that vmap's batched value passes)."""
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.dim()} dimensions.")
    return _fill(input, value)


fill.op = _fill.op
# PyTorch's overloads: fill(x, number) and fill(x, tensor); fill_ and zero_ record through
# copies of the op that name their nodes as PyTorch's in-place overloads
_FILL_SCALAR = overload_node(fill.op, "FillBackward0", hidden=(1,))
fill.op.variants = by_tensor_arg(1, fill.op.node_cls, _FILL_SCALAR)


def _fill_named(pick):
    """``fill`` with ``pick`` (args -> node class, or one class) naming its node."""
    op = op_spelled(fill.op, pick)
    return lambda dst, value: dispatch(op, [dst, value])


fill_for_fill_ = _fill_named(by_tensor_arg(1, overload_node(fill.op, "FillBackward3"),
                                           overload_node(fill.op, "FillBackward2", hidden=(1,))))
fill_for_zero_ = _fill_named(overload_node(fill.op, "ZeroBackward0", hidden=(1,)))
