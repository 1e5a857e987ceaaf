"""Shape ops: moving, repeating, flipping, rolling, joining and splitting tensors,
``narrow``/``diagonal`` views and ``tril``/``triu``.

All are data movement: ``upcast=False`` (no float32 round trip for half and
bfloat16) and gradients just move ``g`` back.  ``split``/``chunk``/``unbind``
return tuples of views of their input; ``cat``/``stack`` are variadic ops
(``kernel(*tensors, dim=)``) behind wrappers that take a sequence.
"""
import math

import numpy as np

from .._tensor import Tensor, _wrap, _wrap_dim, int_index, _as_elements, storage_geometry
from ._families import VIEW, SHAPE, batch_dims, batch_size, materialize, NoBatchRule
from ._registry import defop, dispatch, dispatch_view, flat_kernel, public
from ._util import (size_arg, star_by_keyword, tensor_arg, _tname, int_list_arg, int_arg,
                    star_ints_error, function_of_method, method_of_function)
from .indexing import _slice, _zeros, _index_put_op, take
from .inplace import _SELF_OVERLAP
from .strided import _check as _strided_check, _positions
from .._out import call_with_out, write_out
from .._warn import warn as _warn_user

__all__ = ["movedim", "moveaxis", "tile", "flip", "fliplr", "flipud", "roll", "cat", "concat",
           "concatenate", "stack", "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack",
           "row_stack", "dstack", "column_stack", "split_with_sizes", "split", "chunk", "tensor_split",
           "unbind", "unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk", "as_strided_scatter",
           "narrow", "diagonal", "tril", "triu", "diag", "diag_embed", "repeat_interleave",
           "unflatten", "rot90", "meshgrid"]


# ----------------------------------------------------------------------------- movedim
def _describe(v):
    """How PyTorch's argument parser names a value's type in its messages."""
    if isinstance(v, tuple):
        names = [type(e).__name__ for e in v]
        return "tuple of (" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
    if isinstance(v, list):
        return "list of [" + ", ".join(type(e).__name__ for e in v) + "]"
    return type(v).__name__


def _movedim_mixed(source, destination):
    """PyTorch's TypeError for one int and one sequence: neither overload fits."""
    got = [type(source).__name__, type(destination).__name__]
    one = [d if isinstance(v, int) else f"!{d}!" for v, d in ((source, _describe(source)),
                                                             (destination, _describe(destination)))]
    both = [f"!{_describe(v)}!" for v in (source, destination)]
    return TypeError(f"movedim() received an invalid combination of arguments - got (Tensor, {', '.join(got)}), "
                     f"but expected one of:\n * (Tensor input, int source, int destination)\n      didn't match "
                     f"because some of the arguments have invalid types: (Tensor, {', '.join(one)})\n * (Tensor "
                     f"input, tuple of ints source, tuple of ints destination)\n      didn't match because some "
                     f"of the arguments have invalid types: (Tensor, {', '.join(both)})\n")


@public()
def movedim(input, source, destination):
    if type(source) is not int and not isinstance(source, (list, tuple)):
        source = int_index(source, "source")                # (a NumPy int, a 0-d int tensor)
    if type(destination) is not int and not isinstance(destination, (list, tuple)):
        destination = int_index(destination, "destination")
    if type(source) is int and type(destination) is int:    # the commonest, in short
        try:
            n = input._data.ndim
        except AttributeError:
            n = 0
        if n and -n <= source < n and -n <= destination < n:
            perm = list(range(n))
            perm.insert(destination % n, perm.pop(source % n))
            return dispatch_view(_movedim.op, (input, tuple(perm)))
    if isinstance(source, int) != isinstance(destination, int):
        raise _movedim_mixed(source, destination)
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    n = input.dim()
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")
    s = [_wrap_dim(d, n) for d in src]
    t = [_wrap_dim(d, n) for d in dst]
    if len(set(s)) != len(s):
        raise RuntimeError(f"movedim: repeated dim in `source` ({src})")
    if len(set(t)) != len(t):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({dst})")
    if n == 0:                  # a 0-d tensor: dims 0 and -1 name it, nothing moves (an
        return input._alias()   # alias, AliasBackward0, as PyTorch returns)
    perm = [-1] * n
    for a, b in zip(s, t):
        perm[b] = a
    rest = iter(d for d in range(n) if d not in s)
    perm = [p if p != -1 else next(rest) for p in perm]
    return _movedim(input, tuple(perm))


def _movedim_vjp(g, perm):
    return _movedim(g, tuple(int(i) for i in np.argsort(perm)))


_movedim = defop("movedim", lambda x, perm: np.transpose(x, perm), {"x": _movedim_vjp},
                 upcast=False, view=True, node_name="PermuteBackward0", family=VIEW,
                 dims=("perm",), linear=True)
moveaxis = movedim


# ----------------------------------------------------------------------------- repeat / tile
def _repeat_k(x, reps):
    if len(reps) < x.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                           "dimensions of tensor")
    shape = (1,) * (len(reps) - x.ndim) + x.shape
    out = [a * b for a, b in zip(shape, reps)]
    for v in out:
        if v < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {v}: {out}")
    return np.tile(x.reshape(shape), reps)


def _repeat_vjp(g, x, reps):
    shape = (1,) * (len(reps) - len(x.shape)) + tuple(x.shape)
    inter = []
    for r, s in zip(reps, shape):
        inter += [r, s]
    if 0 in inter:
        return _zeros(x.shape, g._data.dtype)
    return g.reshape(inter).sum(tuple(range(0, 2 * len(reps), 2))).reshape(x.shape) \
        if reps else g.reshape(x.shape)


_repeat = defop("repeat", _repeat_k, {"x": _repeat_vjp}, meta=("x",), upcast=False,
                node_name="RepeatBackward0", family=SHAPE, linear=True)


@public()
def repeat(*args, **kwargs):
    if kwargs or len(args) < 2:
        args = star_by_keyword("repeat", args, kwargs, "repeats")
    return _repeat(args[0], size_arg(args[1:]))


@public()
def _tile_method(*args, **kwargs):
    """``x.tile(2, 3)``, ``x.tile((2, 3))`` or ``x.tile(dims=(2, 3))``: the sizes
    ``repeat`` takes, padded with 1s in front to ``x``'s rank."""
    if kwargs or len(args) < 2:
        args = star_by_keyword("tile", args, kwargs)
    elif len(args) != 2 or type(args[1]) is not int:
        err = star_ints_error("tile", "dims", args[1:])
        if err is not None:
            raise err
    input, dims = args[0], size_arg(args[1:])
    if len(dims) < input.dim():
        dims = (1,) * (input.dim() - len(dims)) + tuple(dims)
    return repeat(input, dims)


tile = function_of_method(_tile_method, "tile", "dims")


# ----------------------------------------------------------------------------- flip / roll
def _flip_dims(dims, ndim):
    dims = [dims] if isinstance(dims, int) else list(dims)
    axes = [_wrap_dim(d, ndim) for d in dims]
    seen = set()
    for a in axes:
        if a in seen:
            raise RuntimeError(f"dim {a} appears multiple times in the list of dims")
        seen.add(a)
    return tuple(axes)


def _flip_k(x, dims):
    axes = _flip_dims(dims, x.ndim)
    if x.ndim == 0 or not axes:
        return x.copy()
    return np.flip(x, axes).copy()


_flip = defop("flip", _flip_k, {"x": lambda g, dims: _flip(g, dims)}, upcast=False,
              node_name="FlipBackward0", family=SHAPE, dims=("dims",), linear=True)


@public()
def _flip_method(*args, **kwargs):
    """``x.flip(0, 1)``, ``x.flip((0, 1))`` or ``x.flip(dims=(0, 1))``."""
    if kwargs or len(args) < 2:
        input, dims = star_by_keyword("flip", args, kwargs)
    else:
        input, dims = args[0], args[1:]
        if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
            dims = dims[0]
    for d in dims:
        if type(d) is not int:
            err = star_ints_error("flip", "dims", args[1:]) if not kwargs else None
            if err is not None:
                raise err
    return _flip(input, tuple(dims))


flip = function_of_method(_flip_method, "flip", "dims")     # flip(x, (0, 1)): the dims as one sequence


@public()
def fliplr(input):
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


@public()
def flipud(input):
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def _roll_ints(v, name, pos):
    """``shifts``/``dims``: an int (a NumPy int, an integer tensor of one element)
    or a sequence of them; anything else is PyTorch's TypeError."""
    if isinstance(v, (list, tuple)):
        return list(int_list_arg("roll", name, pos, v))
    v = int_index(v, name)
    if type(v) is not int:
        raise TypeError(f"roll(): argument '{name}' (position {pos}) must be tuple of ints, not "
                        f"{type(v).__name__}")
    return [v]


def _roll_args(shifts, dims):
    shifts = _roll_ints(shifts, "shifts", 2)
    dims = [] if dims is None else _roll_ints(dims, "dims", 3)
    if not dims and len(shifts) == 1:
        return shifts, None
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    return shifts, dims


def _roll_k(x, shifts, dims=None):
    sh, dm = _roll_args(shifts, dims)
    if dm is None:
        return np.roll(x, sh[0])
    axes = tuple(_wrap_dim(d, x.ndim) for d in dm)
    return np.ascontiguousarray(np.roll(x, sh, axes))     # (contiguous, as PyTorch's)


def _roll_vjp(g, shifts, dims):
    sh, dm = _roll_args(shifts, dims)
    return roll(g, [-s for s in sh], dm)


roll = defop("roll", _roll_k, {"x": _roll_vjp}, upcast=False, node_name="RollBackward0",
              family=SHAPE, dims=("dims",), linear=True)


# ----------------------------------------------------------------------------- cat / stack
def _check_list(tensors, name):
    if type(tensors) is not list and (isinstance(tensors, Tensor) or
                                      not isinstance(tensors, (list, tuple))):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    for t in tensors:
        if not isinstance(t, Tensor):
            i = next(i for i, t in enumerate(tensors) if not isinstance(t, Tensor))
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(tensors[i]).__name__}")
    return tensors


def _legacy_empty(a):
    return a.ndim == 1 and a.shape[0] == 0


@flat_kernel(lambda *xs, dim=0: None)
def _cat_k(*xs_dim):
    r = _cat_arrays(*xs_dim)
    return r if r.flags.c_contiguous else np.ascontiguousarray(r)   # (PyTorch's cat is contiguous)


def _cat_arrays(*xs_dim):
    xs, dim = xs_dim[:-1], xs_dim[-1]
    n = xs[0].ndim if xs else 0
    if n > 1 or n == 1 and xs[0].shape[0]:     # (not 0-d, not a legacy empty tensor)
        try:                            # legacy empty tensors elsewhere make NumPy refuse
            return np.concatenate(xs, dim if type(dim) is int and 0 <= dim < n else
                                  _wrap_dim(dim, n))
        except ValueError:
            pass
    full = [a for a in xs if not _legacy_empty(a)]
    if not full:
        return np.concatenate(xs) if xs else np.zeros(0)
    return np.concatenate(full, axis=_wrap_dim(dim, full[0].ndim))


def _cat_vjp(g, xs, dim):
    full = [x for x in xs if not (len(x.shape) == 1 and x.shape[0] == 0)]
    if not full:
        return [g for _ in xs]
    d = _wrap_dim(dim, len(full[0].shape))
    grads, off = [], 0
    for x in xs:
        if len(x.shape) == 1 and x.shape[0] == 0 and len(full[0].shape) != 1:
            grads.append(_zeros((0,), g._data.dtype))
            continue
        n = x.shape[d]
        grads.append(_slice(g, d, off, off + n, 1))
        off += n
    return grads


_cat = defop("cat", _cat_k, {"xs": _cat_vjp}, n_in=-1, meta=("xs",), promote=True,
             upcast=False, node_name="CatBackward0", family=SHAPE, dims=("dim",), linear=True)


def _cat_explain(ts, dim):
    """PyTorch's error for tensors that cannot be concatenated (NumPy refused them)."""
    full = [(i, t) for i, t in enumerate(ts) if not _legacy_empty(t._data)]
    if not full:
        return
    i0, t0 = full[0]
    if t0.dim() == 0:
        raise RuntimeError(f"zero-dimensional tensor (at position {i0}) cannot be concatenated")
    d = _wrap_dim(dim, t0.dim())
    for i, t in full[1:]:
        if t.dim() == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        if t.dim() != t0.dim():
            raise RuntimeError(f"Tensors must have same number of dimensions: got {t0.dim()} "
                               f"and {t.dim()}")
        for k in range(t0.dim()):
            if k != d and t.shape[k] != t0.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {t0.shape[k]} but got size {t.shape[k]} "
                                   f"for tensor number {i} in the list.")


@public(method=False)
def cat(tensors, dim=0, *, out=None):
    ts = _check_list(tensors, "cat")
    if not ts:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    try:
        r = dispatch(_cat.op, [*ts, dim])
    except ValueError:                  # NumPy's refusal, in PyTorch's words
        _cat_explain(ts, dim)
        raise
    if out is not None:
        return write_out("cat", r, out, (ts,))
    return r


concat = concatenate = cat


@flat_kernel(lambda *xs, dim=0: None)
def _stack_k(*xs_dim):
    xs, dim = xs_dim[:-1], xs_dim[-1]
    if dim == 0:        # (the tensors have one shape and one dtype by now: 0.8 us, not 2.6)
        return np.array(xs)
    d = _wrap_dim(dim, xs[0].ndim + 1)
    shape = xs[0].shape
    shape = shape[:d] + (1,) + shape[d:]
    return np.concatenate([x.reshape(shape) for x in xs], axis=d)   # (np.stack: 3 us more)


def _stack_vjp(g, xs, dim):
    d = _wrap_dim(dim, len(xs[0].shape) + 1)
    return list(g.unbind(d))


_stack = defop("stack", _stack_k, {"xs": _stack_vjp}, n_in=-1, meta=("xs",), promote=True,
               upcast=False, node_name="StackBackward0", family=SHAPE, dims=("dim",), linear=True)


@public(method=False)
def stack(tensors, dim=0, *, out=None):
    ts = _check_list(tensors, "stack")
    if not ts:
        raise RuntimeError("stack expects a non-empty TensorList")
    _wrap_dim(dim, ts[0]._data.ndim + 1)
    shape = ts[0]._data.shape
    for t in ts:
        if t._data.shape != shape:
            i = next(i for i, t in enumerate(ts) if t._data.shape != shape)
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(ts[0].shape)} at entry 0 and {list(ts[i].shape)} at entry {i}")
    r = dispatch(_stack.op, [*ts, dim])
    if out is not None:
        return write_out("stack", r, out, (ts,))
    return r


def _atleast(one, tensors):
    """``atleast_*d(t)``: one tensor; ``(t1, t2, ...)`` or one list or tuple of
    them: a tuple, each given at least that many dimensions (PyTorch's)."""
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return one(tensors[0])
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    for i, t in enumerate(ts):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return tuple(one(t) for t in ts)


def _atleast_1d(input):
    return input.reshape(1) if input.dim() == 0 else input


def _atleast_2d(input):
    if input.dim() == 0:
        return input.reshape(1, 1)
    return input.unsqueeze(0) if input.dim() == 1 else input


def _atleast_3d(input):
    if input.dim() == 0:
        return input.reshape(1, 1, 1)
    if input.dim() == 1:
        return input.reshape(1, -1, 1)
    return input.unsqueeze(-1) if input.dim() == 2 else input


@public(method=False)
def atleast_1d(*tensors):
    return _atleast(_atleast_1d, tensors)


@public(method=False)
def atleast_2d(*tensors):
    return _atleast(_atleast_2d, tensors)


@public(method=False)
def atleast_3d(*tensors):
    return _atleast(_atleast_3d, tensors)


@public(method=False)
def hstack(tensors, *, out=None):
    if out is not None:
        return call_with_out('hstack', hstack, (tensors,), {}, out)
    ts = [atleast_1d(t) for t in _check_list(tensors, "hstack")]
    if not ts:
        raise RuntimeError("hstack expects a non-empty TensorList")
    return cat(ts, 0 if ts[0].dim() == 1 else 1)


@public(method=False)
def vstack(tensors, *, out=None):
    if out is not None:
        return call_with_out('vstack', vstack, (tensors,), {}, out)
    ts = [atleast_2d(t) for t in _check_list(tensors, "vstack")]
    if not ts:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return cat(ts, 0)


row_stack = vstack


@public(method=False)
def dstack(tensors, *, out=None):
    if out is not None:
        return call_with_out('dstack', dstack, (tensors,), {}, out)
    ts = [atleast_3d(t) for t in _check_list(tensors, "dstack")]
    if not ts:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return cat(ts, 2)


@public(method=False)
def column_stack(tensors, *, out=None):
    """Side by side as columns: a 0-d or 1-d tensor of n elements is a column
    (n, 1), a tensor of more dimensions is taken as it is (``hstack``'s dim 1)."""
    if out is not None:
        return call_with_out('column_stack', column_stack, (tensors,), {}, out)
    ts = [t.reshape(-1, 1) if t.dim() <= 1 else t for t in _check_list(tensors, "column_stack")]
    if not ts:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    return cat(ts, 1)


# ----------------------------------------------------------------------------- split / chunk / unbind
def _split_k(x, split_size, dim=0):
    if x.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d]
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    if split_size == 0:
        if n != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {n}")
        return (x,)
    if d == 0:                          # (slicing stops at the end by itself)
        return tuple([x[s:s + split_size] for s in range(0, max(n, 1), split_size)])
    pre = (slice(None),) * d
    return tuple([x[pre + (slice(s, s + split_size),)] for s in range(0, max(n, 1), split_size)])


def _split_with_sizes_k(x, split_sizes, dim=0):
    if x.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d]
    sizes = list(split_sizes)
    for s in sizes:
        if s < 0:
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={sizes}")
    if sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                           f"tensor's size at dimension {d}), but got split_sizes={sizes}")
    pre = (slice(None),) * d
    out, off = [], 0
    for s in sizes:
        out.append(x[pre + (slice(off, off + s),)])
        off += s
    return tuple(out)


def _gs(g):
    """The output gradients of a multi-output node (one output comes as a bare tensor)."""
    return list(g) if isinstance(g, tuple) else [g]


def _split_vjp(g, dim):
    return cat(_gs(g), dim)


_split_op = defop("split", _split_k, {"x": _split_vjp}, upcast=False, view=True,
                  node_name="SplitBackward0", family=VIEW, dims=("dim",), linear=True)
split_with_sizes = defop("split_with_sizes", _split_with_sizes_k, {"x": _split_vjp}, upcast=False,
                         view=True, node_name="SplitWithSizesBackward0", family=VIEW,
                         dims=("dim",), linear=True)


@public()
def split(tensor, split_size_or_sections, dim=0):
    s = split_size_or_sections
    if type(s) is not int and not isinstance(s, Tensor):
        int_list_arg("split_with_sizes", "split_sizes", 2, s)
    if isinstance(s, (list, tuple)):
        return split_with_sizes(tensor, [int(v) for v in s], dim)
    return _split_op(tensor, int(s), dim)


@public()
def chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    try:
        shape = input._data.shape
    except AttributeError:
        tensor_arg("chunk", "input", 1, input)
        raise
    if not shape:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    n = shape[_wrap_dim(dim, len(shape))]
    size = (n + chunks - 1) // chunks
    if size == 0 and n == 0:
        return split_with_sizes(input, [0] * chunks, dim)
    return dispatch_view(_split_op.op, (input, size, dim))


# unsafe_split/unsafe_chunk: split's pieces, in the input's memory, but not views for
# autograd (PyTorch's: no base, a version counter of their own, so they may be
# written in place; writing both them and the input is the caller's risk)
_unsafe_split_op = defop("unsafe_split", _split_k, {"x": _split_vjp}, upcast=False,
                         node_name="UnsafeSplitBackward0", family=SHAPE, dims=("dim",), linear=True,
                         batch=batch_dims)
_unsafe_split_with_sizes_op = defop("unsafe_split_with_sizes", _split_with_sizes_k, {"x": _split_vjp},
                                    upcast=False, node_name="UnsafeSplitWithSizesBackward0",
                                    family=SHAPE, dims=("dim",), linear=True, batch=batch_dims)


@public()
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """``split_with_sizes``, as pieces that are not views (see above)."""
    int_list_arg("unsafe_split_with_sizes", "split_sizes", 2, split_sizes)
    return _unsafe_split_with_sizes_op(input, [int(v) for v in split_sizes], dim)


@public()
def unsafe_split(tensor, split_size, dim=0):
    """``split`` by one size, as pieces that are not views (see above)."""
    if type(split_size) is not int:
        split_size = int_arg("unsafe_split", "split_size", 2, split_size)
    return _unsafe_split_op(tensor, split_size, dim)


@public()
def unsafe_chunk(input, chunks, dim=0):
    """``chunk``, as pieces that are not views (see above)."""
    if type(chunks) is not int:
        chunks = int_arg("unsafe_chunk", "chunks", 2, chunks)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    tensor_arg("unsafe_chunk", "input", 1, input)
    shape = input._data.shape
    if not shape:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    n = shape[_wrap_dim(dim, len(shape))]
    size = (n + chunks - 1) // chunks
    if size == 0 and n == 0:
        return unsafe_split_with_sizes(input, [0] * chunks, dim)
    return _unsafe_split_op(input, size, dim)


@public()
def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None):
    """Sections: pieces of near-equal size.  Indices: ``input[i_(k-1):i_k]``
    along ``dim``, each with Python's slice rules (a negative index counts from
    the end; pieces may be empty, or overlap when the indices go down)."""
    s = next((v for v in (indices_or_sections, sections, indices, tensor_indices_or_sections)
              if v is not None), None)
    if s is None:
        raise TypeError("tensor_split() missing required argument 'indices_or_sections'")
    d = _wrap_dim(dim, input.dim())
    n = input.shape[d]
    if isinstance(s, Tensor):
        if s._data.dtype != np.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, "
                               f"but got {_tname(s._data.dtype)}")
        s = s.item() if s.dim() == 0 else s.tolist()
    elif not isinstance(s, (list, tuple)):
        s = int_index(s, "indices_or_sections")     # (a NumPy int)
    if isinstance(s, int):
        if s <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {s}")
        q, r = divmod(n, s)         # (slices, as PyTorch's: each may be written in place)
        pieces, start = [], 0
        for k in range(s):
            stop = start + q + (k < r)
            pieces.append(_slice(input, d, start, stop, 1))
            start = stop
        return tuple(pieces)
    pieces, prev = [], 0
    for b in list(s) + [None]:
        start, stop, _ = slice(prev, b).indices(n)
        pieces.append(_slice(input, d, start, max(start, stop), 1))
        prev = b
    return tuple(pieces)


def _unbind_k(x, dim=0):
    if x.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, x.ndim)
    if d == 0 and x.ndim > 1:
        return tuple(x)     # (NumPy's own iteration: views of the rows)
    pre = (slice(None),) * d
    return tuple([x[pre + (i, Ellipsis)] for i in range(x.shape[d])])


def _unbind_vjp(g, dim):
    return stack(_gs(g), dim)


unbind = defop("unbind", _unbind_k, {"x": _unbind_vjp}, upcast=False, view=True,
               node_name="UnbindBackward0", family=VIEW, dims=("dim",), linear=True)


# ----------------------------------------------------------------------------- unfold (windows)
def _unfold_k(x, dimension, size, step):
    """Every window of ``size`` elements along ``dimension``, ``step`` apart, as a
    new last dimension: a strided view of ``x`` (windows may share elements)."""
    d = _wrap_dim(dimension, x.ndim)
    length = x.shape[d] if x.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if not x.ndim:
        return x.reshape(1)[:size]
    st = x.strides
    return np.lib.stride_tricks.as_strided(
        x, x.shape[:d] + ((length - size) // step + 1,) + x.shape[d + 1:] + (size,),
        st[:d] + (st[d] * step,) + st[d + 1:] + (st[d],), writeable=x.flags.writeable)


def _unfold_backward_k(g, input_sizes, dimension, size, step):
    """The sum, into an input of ``input_sizes``, of the windows' gradients ``g``."""
    if not input_sizes:                 # a 0-d input: its one window, or none
        return np.array(g.reshape(-1)[:1].sum(), dtype=g.dtype)
    out = np.zeros(input_sizes, g.dtype)
    d = _wrap_dim(dimension, len(input_sizes))
    m = g.shape[d]
    pre = (slice(None),) * d
    for k in range(size):       # the k-th element of every window
        out[pre + (slice(k, k + step * (m - 1) + 1, step),)] += g[..., k]
    return out


def _unfold_batch(op, args, bdims):
    """Under vmap: the batch dimension first, ``dimension`` shifted past it; a
    0-d sample's windows are its first ``size`` (0 or 1) elements."""
    x, dimension, size, step = args
    if bdims[0] != 0:
        x = x.movedim(bdims[0], 0)
    if x.ndim == 1:
        _unfold_k(np.zeros(()), dimension, size, step)      # (a 0-d sample's errors)
        return x.unsqueeze(1)[:, :size], 0
    return dispatch(op, [x, _wrap_dim(dimension, x.ndim - 1) + 1, size, step]), 0


_unfold_backward = defop("unfold_backward", _unfold_backward_k,
                         {"g": lambda gg, dimension, size, step: unfold(gg, dimension, size, step)},
                         upcast=False, node_name="UnfoldBackwardBackward0", family=SHAPE,
                         dims=("dimension",), linear=True, method=False)
# Tensor.unfold only (torch.nn.functional.unfold is the im2col of ops/conv.py)
unfold = defop("unfold", _unfold_k,
               {"x": lambda g, x, dimension, size, step:
                _unfold_backward(g, tuple(x.shape), dimension, size, step)},
               meta=("x",), upcast=False, view=True, node_name="UnfoldBackward0", family=VIEW,
               dims=("dimension",), linear=True, batch=_unfold_batch)


# ----------------------------------------------------------------------------- as_strided_scatter
# A copy of ``input`` whose elements that ``input.as_strided(size, stride, offset)``
# would read are ``src``'s, as PyTorch computes it: the whole storage is copied (a
# fresh contiguous one for an input with a zero stride), the strided window of the
# copy is written, and the result has the input's geometry in the copy.  The entry
# takes the offset relative to the input's own (``rel``: 0 for None), so that the
# derivatives, which PyTorch writes for a contiguous input (it refuses another that
# requires grad), read positions of ``g`` in row-major order.
def _as_strided_scatter_k(x, src, size, stride, rel):
    itemsize = x.dtype.itemsize
    if any(st == 0 and n > 1 for st, n in zip(x.strides, x.shape)):      # (internal overlap)
        flat = np.array(x, order="C").reshape(-1)
        off0, strides0 = 0, tuple(st // itemsize for st in flat.reshape(x.shape).strides)
    else:
        root, off0, strides0 = storage_geometry(x)
        flat = _as_elements(root, x.dtype).copy()
    size, stride = tuple(map(int, size)), tuple(map(int, stride))
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if stride and min(stride) < 0:
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    offset = off0 + rel
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if size and min(size) < 0:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    _strided_check(size, stride, offset, itemsize, flat.size)
    out = np.ndarray(x.shape, x.dtype, flat, off0 * itemsize, tuple(st * itemsize for st in strides0))
    window = np.ndarray(size, x.dtype, flat, min(offset, flat.size) * itemsize,
                        tuple(st * itemsize for st in stride))
    if window.shape != src.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(window.shape)}")
    if any(st == 0 and n > 1 for st, n in zip(stride, size)):
        raise RuntimeError(_SELF_OVERLAP)
    if src.dtype.kind == "c" and x.dtype.kind != "c":       # (copied in as copy_ does)
        _warn_user("Casting complex values to real discards the imaginary part")
        src = src.real
    window[...] = src
    return out


def _window(size, stride, rel):
    """The row-major positions of the written window (an int64 array of ``size``)."""
    return _positions(tuple(size), tuple(stride), rel)


def _ass_vjp_x(g, size, stride, rel):
    mask = np.ones(int(np.prod(g.shape, dtype=np.int64)), g._data.dtype.type(0).real.dtype)
    mask[_window(size, stride, rel).reshape(-1)] = 0
    return g * _wrap(mask.reshape(tuple(g.shape)))


def _ass_vjp_src(g, size, stride, rel):
    return take(g, _wrap(_window(size, stride, rel)))


def _ass_jvp(x_t, src_t, x, size, stride, rel):
    idx = _window(size, stride, rel).reshape(-1)
    kept = _ass_vjp_x(x_t, size, stride, rel)
    placed = _index_put_op(kept.new_zeros((kept.numel(),)), src_t.reshape(-1), ((), (idx,)), False)
    return kept + placed.reshape(tuple(x.shape))


def _ass_batch(op, args, bdims):
    """Under vmap each sample is its own contiguous tensor: the batch is made
    contiguous, batch first, and the window repeats a sample's size further on."""
    x, src, size, stride, rel = args
    b = batch_size(args[:2], bdims[:2])
    x = materialize(x, bdims[0], b).contiguous()
    src = materialize(src, bdims[1], b)
    n = int(np.prod(x.shape[1:], dtype=np.int64))
    reach = rel + (0 if 0 in tuple(size) else sum((k - 1) * st for k, st in zip(size, stride)))
    if rel < 0 or reach >= max(n, 1) or any(k < 0 for k in size) or any(st < 0 for st in stride):
        raise NoBatchRule(op.name)          # (outside a sample, or refused: per sample)
    return dispatch(op, [x, src, (b,) + tuple(size), (n,) + tuple(stride), rel]), 0


_as_strided_scatter = defop(
    "as_strided_scatter", _as_strided_scatter_k,
    {"x": _ass_vjp_x, "src": _ass_vjp_src}, n_in=2, upcast=False, family=SHAPE,
    node_name="AsStridedScatterBackward0", jvp=_ass_jvp, batch=_ass_batch)


@public()
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """``input`` with the elements ``input.as_strided(size, stride, storage_offset)``
    reads replaced by ``src`` (a copy)."""
    tensor_arg("as_strided_scatter", "input", 1, input)
    tensor_arg("as_strided_scatter", "src", 2, src)
    if input.requires_grad and not input.is_contiguous():
        raise RuntimeError('!self.requires_grad() || self.is_contiguous() INTERNAL ASSERT FAILED at '
                           '"/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp":4754, please '
                           'report a bug to PyTorch. as_strided_scatter is currently only supported '
                           'for contiguous inputs')
    rel = 0 if storage_offset is None else int(storage_offset) - input.storage_offset()
    return _as_strided_scatter(input, src, tuple(size), tuple(stride), rel)


def _is_set_to(self, tensor):
    """Whether ``self`` and ``tensor`` are the same window of the same memory: one
    storage, the same offset in it, sizes and strides (PyTorch's ``Tensor.is_set_to``)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    a, b = self._data, tensor._data
    ra, oa, sa = storage_geometry(a)
    rb, ob, sb = storage_geometry(b)
    same = ra is rb or (ra.nbytes and ra.nbytes == rb.nbytes and
                        ra.__array_interface__["data"][0] == rb.__array_interface__["data"][0])
    return bool(same) and oa == ob and a.shape == b.shape and sa == sb


Tensor.is_set_to = _is_set_to


# ----------------------------------------------------------------------------- narrow / diagonal
@public()
def narrow(input, dim, start, length):
    if input.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(start, Tensor):
        if start.dim() != 0 or start._data.dtype.kind not in "iu":
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start._data)
    d = _wrap_dim(dim, input.dim())
    n = input.shape[d]
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got "
                         f"{start})")
    if start < 0:
        start += n
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return _slice(input, d, start, start + length, 1)


def _diag_view(x, offset, d1, d2):
    """A diagonal as a view that is writable where ``x`` is (NumPy makes its own
    read-only, and lets the flag be set back)."""
    dv = x.diagonal(offset, d1, d2)
    if x.flags.writeable:
        dv.setflags(write=True)         # (~0.1 us less than through dv.flags)
    return dv


def _diag_dims(ndim, dim1, dim2):
    if ndim < 2:
        raise RuntimeError(f"diagonal dimensions requires ndim larger than 1, but got {ndim}")
    d1, d2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def _diagonal_k(x, offset=0, dim1=0, dim2=1):
    if dim1 == 0 and dim2 == 1 and x.ndim > 1:     # the default dims: nothing to wrap
        return _diag_view(x, offset, 0, 1)
    d1, d2 = _diag_dims(x.ndim, dim1, dim2)
    return _diag_view(x, offset, d1, d2)


def _diagonal_backward_k(g, shape, offset=0, dim1=0, dim2=1):
    z = np.zeros(shape, g.dtype)
    d1, d2 = _diag_dims(len(shape), dim1, dim2)
    v = _diag_view(z, offset, d1, d2)
    if v.size:
        v[...] = g
    return z


_diagonal_backward = defop("diagonal_backward", _diagonal_backward_k,
                           {"g": lambda gg, offset, dim1, dim2: diagonal(gg, offset, dim1, dim2)},
                           upcast=False, node_name="DiagonalBackwardBackward0", family=SHAPE,
                           dims=("dim1", "dim2"), linear=True)
diagonal = defop("diagonal", _diagonal_k,
                 {"x": lambda g, x, offset, dim1, dim2:
                  _diagonal_backward(g, tuple(x.shape), offset, dim1, dim2)},
                 meta=("x",), upcast=False, view=True, node_name="DiagonalBackward0",
                 family=VIEW, dims=("dim1", "dim2"), linear=True)


# ----------------------------------------------------------------------------- tril / triu
def _tri_check(x, name):
    if x.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


def _tril_k(x, diagonal=0):
    _tri_check(x, "tril")
    return np.tril(x, diagonal)


def _triu_k(x, diagonal=0):
    _tri_check(x, "triu")
    return np.triu(x, diagonal)


tril = defop("tril", _tril_k, {"x": lambda g, diagonal: tril(g, diagonal)}, upcast=False,
             meta=("x",), node_name="TrilBackward0", family=SHAPE, linear=True, inplace=True,
             numbers=("diagonal:int",))
tril.as_method = method_of_function(tril)
triu = defop("triu", _triu_k, {"x": lambda g, diagonal: triu(g, diagonal)}, upcast=False,
             meta=("x",), node_name="TriuBackward0", family=SHAPE, linear=True, inplace=True,
             numbers=("diagonal:int",))
triu.as_method = method_of_function(triu)


# ------------------------------------------------------------------ diagonals, repeats, rotation
def _diag_embed_k(x, offset=0, dim1=-2, dim2=-1):
    nd = x.ndim + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = x.shape[-1] + abs(offset) if x.ndim else abs(offset) + 1
    batch = x.shape[:-1]
    out = np.zeros(batch + (n, n), x.dtype)
    m = x.shape[-1] if x.ndim else 1
    i = np.arange(m)
    r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
    out[..., r, c] = x
    # out is (..., n, n) with the diagonal in the last two dims: move them to d1, d2
    src = list(range(len(batch))) + [nd - 2, nd - 1]
    rest = [k for k in range(nd) if k not in (d1, d2)]
    perm = [0] * nd
    for k, a in zip(rest, range(len(batch))):
        perm[k] = a
    perm[d1], perm[d2] = nd - 2, nd - 1
    del src
    return np.ascontiguousarray(np.transpose(out, perm))


diag_embed = defop("diag_embed", _diag_embed_k,
                    {"x": lambda g, offset, dim1, dim2: g.diagonal(offset, dim1, dim2)},
                    meta=("x",), upcast=False, node_name="DiagEmbedBackward0",
                    family=SHAPE, dims=("dim1", "dim2"), linear=True)


@public()
def diag(input, diagonal=0, *, out=None):
    if out is not None:
        return call_with_out('diag', diag, (input, diagonal), {}, out)
    if input.ndim == 1:
        return diag_embed(input, diagonal)
    if input.ndim == 2:
        return input.diagonal(diagonal)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


@public()
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    if repeats is None:                       # repeat_interleave(repeats): the index form
        r = input
        if r.ndim != 1 and r.ndim != 0:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if r._data.dtype.name not in ("int32", "int64"):
            raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for "
                                      f"'{_tname(r._data.dtype)}'")
        rd = r._data.reshape(-1)
        if (rd < 0).any():
            raise RuntimeError("repeats can not be negative")
        if output_size is not None and int(rd.sum()) != output_size:
            raise RuntimeError("allocated size does not match required size")
        return _wrap(np.repeat(np.arange(rd.size, dtype=rd.dtype), rd))     # (in repeats' dtype)
    if dim is None:
        input, d = input.reshape(-1), 0
    else:
        d = _wrap_dim(dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if isinstance(repeats, Tensor):
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats._data.dtype.kind not in "iu":
            raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for "
                                      f"'{_tname(repeats._data.dtype)}'")
        rd = repeats._data.reshape(-1)
        if rd.size == 1:
            rd = np.repeat(rd, n)
        elif rd.size != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {rd.size} and input.size({d}) = {n}")
        if (rd < 0).any():
            raise RuntimeError("repeats can not be negative")
    else:
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        rd = np.full(n, int(repeats))
    if output_size is not None and int(rd.sum()) != output_size:
        if isinstance(repeats, Tensor):     # (PyTorch's index form's words, which it runs then)
            raise RuntimeError("allocated size does not match required size")
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {int(rd.sum())} but got "
                           f"{output_size}")
    idx = _wrap(np.repeat(np.arange(n, dtype=np.int64), rd))
    if input.ndim == 0:
        input = input.reshape(1)
    return input.index_select(d, idx)


def _unflatten_sizes_error(sizes):
    if not isinstance(sizes, (list, tuple)) or not all(type(v) is int for v in sizes):
        int_list_arg("unflatten", "sizes", 3, sizes)


@public()
def unflatten(input, dim, sizes):
    try:
        shape = input._data.shape
    except AttributeError:
        shape = None
    if shape and type(dim) is int and -len(shape) <= dim < len(shape) and type(sizes) is tuple \
            and sizes and all(type(s) is int and s >= 0 for s in sizes):   # the commonest, in short
        d = dim % len(shape)
        if math.prod(sizes) == shape[d]:
            return input.reshape(*shape[:d], *sizes, *shape[d + 1:])     # (sizes listed: faster)
    _unflatten_sizes_error(sizes)
    d = _wrap_dim(dim, input.ndim)
    sizes = [int(s) for s in sizes]
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    n = input.shape[d]
    known = math.prod(s for s in sizes if s != -1)
    if -1 in sizes:
        if known == 0 or n % known:
            raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of "
                               f"dim {dim} ({n}) in the input tensor")
        sizes[sizes.index(-1)] = n // known
    elif known != n:
        raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of "
                           f"dim {dim} ({n}) in the input tensor")
    shape = list(input.shape)
    return input.reshape(*(shape[:d] + sizes + shape[d + 1:]))


unflatten.as_method = method_of_function(unflatten)


@public()
def rot90(input, k=1, dims=(0, 1)):
    k = int_arg("rot90", "k", 2, k)
    dims = list(int_list_arg("rot90", "dims", 3, dims))
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = _wrap_dim(dims[0], input.ndim), _wrap_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return input.flip(d1).transpose(d0, d1)
    if k == 2:
        return input.flip((d0, d1))
    if k == 3:
        return input.flip(d0).transpose(d0, d1)
    return input.clone()


rot90.as_method = method_of_function(rot90)


@public(method=False)
def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 0-d/1-d tensors: output ``k`` holds ``tensors[k]``
    along dim ``k`` (``indexing="ij"``), or with the first two dims swapped
    (``"xy"``, NumPy's default); views (expands) of the inputs."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing is None:
        _warn_user("torch.meshgrid: in an upcoming release, it will be required to pass the "
                   "indexing argument.")
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f'{indexing}')
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.numel() for t in ts)
    n = len(ts)
    outs = [t.reshape([-1 if i == k else 1 for i in range(n)]).expand(shape) for k, t in enumerate(ts)]
    if swap:
        outs[0], outs[1] = outs[1], outs[0]
    return tuple(outs)
