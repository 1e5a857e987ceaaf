"""More shape ops: the scatter forms of the view ops (``diagonal_scatter``,
``select_scatter``, ``slice_scatter``: a copy of ``input`` with the view's
elements replaced by ``src``), ``masked_scatter``, ``fill_diagonal_``,
``diagflat``, ``hsplit``/``vsplit``/``dsplit``, ``block_diag``,
``tril_indices``/``triu_indices`` and ``vander``.

The scatter ops are entries of their own (PyTorch's node names), linear in
``input`` and ``src`` together: ``input``'s gradient is ``g`` with the
view's elements zeroed, ``src``'s is that view of ``g``.  Their batching rules
give every tensor input the batch dimension in front and shift the dimension
parameters past it.  The others are composites of existing ops, whose
gradients they inherit.
"""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _wrap, _wrap_dim
from .._warn import warn as _warn_user
from ._families import SHAPE, INDEXING, batch_size, materialize, pad_rank, shift_dim
from ._registry import defop, dispatch, public
from ._util import _tname, no_complex_autodiff
from .indexing import _zeros, _bshape, masked_fill, masked_select, _check_mask, _exact_out
from .shape import cat, tensor_split, diag_embed

__all__ = ["diagonal_scatter", "select_scatter", "slice_scatter", "masked_scatter", "diagflat",
           "hsplit", "vsplit", "dsplit", "block_diag", "tril_indices", "triu_indices", "vander",
           "hann_window", "hamming_window", "bartlett_window", "blackman_window", "kaiser_window"]


def _size_mismatch(src_shape, view_shape):
    return RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                        f"{list(src_shape)}, slice size = {list(view_shape)}")


def _src_as(src, dtype):
    """``src`` in ``input``'s dtype (PyTorch copies it in as ``copy_`` does)."""
    if src.dtype == dtype:
        return src
    if src.dtype.kind == "c" and dtype.kind != "c":
        _warn_user("Casting complex values to real discards the imaginary part")   # (as copy_)
        src = src.real
    return src.astype(dtype)


def _scatter_batch(dim_names):
    """The batching rule of a scatter op: ``input`` and ``src`` batch first (an
    unbatched one expanded to the batch), the dimension parameters shifted past
    the batch dimension."""
    def rule(op, args, bdims):
        size = batch_size(args, bdims)
        new = list(args)
        new[0] = materialize(args[0], bdims[0], size)
        new[1] = materialize(args[1], bdims[1], size)
        rank = new[0].ndim - 1
        for name in dim_names:
            i = op.names.index(name)
            new[i] = shift_dim(new[i], rank)
        return dispatch(op, new), 0
    return rule


# ------------------------------------------------------------------ diagonal_scatter
def _diag_dims(x, dim1, dim2):
    n = x.ndim
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def _diagonal_scatter_k(x, src, offset=0, dim1=0, dim2=1):
    d1, d2 = _diag_dims(x, dim1, dim2)
    want = np.diagonal(x, offset, d1, d2).shape
    if tuple(src.shape) != want:
        raise _size_mismatch(src.shape, want)
    out = x.copy()
    t = np.moveaxis(out, (d1, d2), (-2, -1))        # (a writable view of out)
    m = want[-1]
    i = np.arange(m)
    r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
    t[..., r, c] = _src_as(src, x.dtype)
    return out


def _diagonal_scatter_vjp_x(g, offset, dim1, dim2):
    z = _zeros(g.diagonal(offset, dim1, dim2).shape, g._data.dtype)
    return _diagonal_scatter(g, z, offset, dim1, dim2)


_diagonal_scatter = defop(
    "diagonal_scatter", _diagonal_scatter_k,
    {"x": _diagonal_scatter_vjp_x,
     "src": lambda g, offset, dim1, dim2: g.diagonal(offset, dim1, dim2)},
    n_in=2, upcast=False, family=SHAPE, linear=True, node_name="DiagonalScatterBackward0",
    batch=_scatter_batch(("dim1", "dim2")), numbers=("offset:int", "dim1:int", "dim2:int"))


@public()
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    return _diagonal_scatter(input, src, offset, dim1, dim2)


# ------------------------------------------------------------------ select_scatter
def _select_key(x, dim, index):
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(x.shape)} "
                         f"at dimension {dim}")
    return (slice(None),) * d + (index,)


def _select_scatter_k(x, src, dim, index):
    key = _select_key(x, dim, index)
    want = x[key].shape
    if tuple(src.shape) != want:
        raise _size_mismatch(src.shape, want)
    out = x.copy()
    out[key] = _src_as(src, x.dtype)
    return out


def _select_scatter_vjp_x(g, dim, index):
    z = _zeros(g.select(dim, index).shape, g._data.dtype)
    return _select_scatter(g, z, dim, index)


_select_scatter = defop(
    "select_scatter", _select_scatter_k,
    {"x": _select_scatter_vjp_x, "src": lambda g, dim, index: g.select(dim, index)},
    n_in=2, upcast=False, family=SHAPE, linear=True, node_name="SelectScatterBackward0",
    batch=_scatter_batch(("dim",)), numbers=("dim:int", "index:int"),
    no_complex=no_complex_autodiff("select_scatter"))       # (PyTorch's refusal)


@public()
def select_scatter(input, src, dim, index):
    return _select_scatter(input, src, dim, index)


# ------------------------------------------------------------------ slice_scatter
def _slice_key(ndim, dim, start, end, step):
    d = _wrap_dim(dim, ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return (slice(None),) * d + (slice(start, end, step),)


def _slice_scatter_k(x, src, dim=0, start=None, end=None, step=1):
    key = _slice_key(x.ndim, dim, start, end, step)
    want = x[key].shape
    if tuple(src.shape) != want:
        raise _size_mismatch(src.shape, want)
    out = x.copy()
    out[key] = _src_as(src, x.dtype)
    return out


def _slice_scatter_vjp_x(g, dim, start, end, step):
    key = _slice_key(g.ndim, dim, start, end, step)
    z = _zeros(g[key].shape, g._data.dtype)       # (g may be batched: its shape, not its data's)
    return _slice_scatter(g, z, dim, start, end, step)


def _slice_scatter_vjp_src(g, dim, start, end, step):
    return g[_slice_key(g.ndim, dim, start, end, step)]


_slice_scatter = defop(
    "slice_scatter", _slice_scatter_k,
    {"x": _slice_scatter_vjp_x, "src": _slice_scatter_vjp_src},
    n_in=2, upcast=False, family=SHAPE, linear=True, node_name="SliceScatterBackward0",
    batch=_scatter_batch(("dim",)), no_complex=no_complex_autodiff("slice_scatter"))


@public()
def slice_scatter(input, src, dim=0, start=None, end=None, step=1, *, out=None):
    if out is not None:     # (PyTorch's out= form computes without autograd)
        return _exact_out("slice_scatter", slice_scatter, (input, src, dim, start, end, step), {},
                          out, composite=True)
    for name, v in (("start", start), ("end", end)):
        if v is not None and not isinstance(v, (int, np.integer)):
            raise TypeError(f"slice_scatter(): argument '{name}' must be int, not {type(v).__name__}")
    return _slice_scatter(input, src, dim, start, end, step)


# ------------------------------------------------------------------ masked_scatter
def _masked_scatter_k(x, mask, source):
    shape = _bshape(mask.shape, x.shape)
    m = np.broadcast_to(mask, shape)
    out = np.array(np.broadcast_to(x, shape), order="C")
    n = int(np.count_nonzero(m))
    if source.size < n:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out[m] = source.reshape(-1)[:n]
    return out


def _masked_scatter_vjp_source(g, mask, source):
    shape = tuple(_bshape(tuple(mask.shape), tuple(g.shape)))
    sel = masked_select(g, mask.expand(shape) if tuple(mask.shape) != shape else mask)
    k = source.numel()
    if sel.numel() < k:
        sel = cat([sel, _zeros((k - sel.numel(),), g._data.dtype)])
    return sel.reshape(source.shape)


def _masked_scatter_batch(op, args, bdims):
    """Each sample's ``k``-th selected element takes its own source's ``k``-th
    element: a running count of the mask picks it (``gather``), ``where`` puts
    it in place."""
    from .pointwise import where
    size = batch_size(args, bdims)
    x, mask, source = (materialize(a, b, size) for a, b in zip(args, bdims))
    rank = max(x.ndim, mask.ndim) - 1
    x, mask = pad_rank(x, rank), pad_rank(mask, rank)
    shape = (size,) + tuple(_bshape(tuple(mask.shape[1:]), tuple(x.shape[1:])))
    m = np.broadcast_to(mask._data, shape).reshape(size, -1)
    src = source.reshape(size, -1)
    k = src.shape[1]
    counts = m.sum(1)
    if (counts > k).any():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    src = cat([src, _zeros((size, 1), src._data.dtype)], 1)     # (a slot for unselected places)
    idx = np.where(m, np.cumsum(m, 1) - 1, k).astype(np.int64)
    vals = src.gather(1, _wrap(idx)).reshape(shape)
    return where(_wrap(np.ascontiguousarray(np.broadcast_to(mask._data, shape))), vals, x), 0


def _masked_scatter_check(x, mask, source):
    if x.dtype != source.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{_tname(x._data.dtype)} and {_tname(source._data.dtype)}")


_masked_scatter = defop(
    "masked_scatter", _masked_scatter_k,
    {"x": lambda g, mask: masked_fill(g, mask, 0), "source": _masked_scatter_vjp_source},
    n_in=3, upcast=False, family=INDEXING, linear=True, node_name="MaskedScatterBackward0",
    meta=("source",), batch=_masked_scatter_batch)


@public(inplace=True)
def masked_scatter(input, mask, source):
    if isinstance(mask, Tensor) and mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_tname(mask._data.dtype)}")
    _check_mask(mask, "masked_scatter")
    if isinstance(input, Tensor) and isinstance(source, Tensor):
        _masked_scatter_check(input, mask, source)
    return _masked_scatter(input, mask, source)


# ------------------------------------------------------------------ fill_diagonal_
def fill_diagonal_(self, fill_value, wrap=False):
    """The main diagonal of ``self`` (every dimension's index equal) set to
    ``fill_value``; ``wrap``: a tall matrix's diagonal starts again below the
    first square, one row further down, as PyTorch's does."""
    n = self.ndim
    if n < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = tuple(self.shape)
    if n > 2 and any(s != shape[0] for s in shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    numel = int(np.prod(shape))
    # positions in the row-major flattening: step over one element of every dimension
    step = sum(int(np.prod(shape[k + 1:])) for k in range(n))
    end = numel if n == 2 and wrap and shape[0] > shape[1] else min(shape) * step
    end = min(end, numel)
    if self.is_contiguous():        # a view of self: the write is recorded as PyTorch's (CopySlices)
        self.view(-1)[0:end:step].fill_(fill_value)
        return self
    flat = np.arange(0, end, step)
    idx = tuple(_wrap(i.astype(np.int64)) for i in np.unravel_index(flat, shape))
    self[idx] = fill_value
    return self


Tensor.fill_diagonal_ = fill_diagonal_


# ------------------------------------------------------------------ composites
@public()
def diagflat(input, offset=0):
    return diag_embed(input.reshape(-1), offset)


def _nsplit(name, input, indices_or_sections, min_dim, dim):
    if isinstance(indices_or_sections, Tensor):     # PyTorch's overloads: an int or a tuple of ints
        if indices_or_sections.ndim or indices_or_sections._data.dtype.kind not in "iu":
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got (Tensor, Tensor), but expected "
                f"one of:\n * (Tensor input, int sections)\n      didn't match because some of the arguments "
                f"have invalid types: (Tensor, !Tensor!)\n * (Tensor input, tuple of ints indices)\n      "
                f"didn't match because some of the arguments have invalid types: (Tensor, !Tensor!)\n")
        indices_or_sections = int(indices_or_sections._data)
    if input.ndim < min_dim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} dimension, but "
                           f"got a tensor with {input.ndim} dimensions!")
    if isinstance(indices_or_sections, (int, np.integer)) and not isinstance(indices_or_sections, bool):
        s, size = int(indices_or_sections), input.shape[dim]
        if s == 0 or size % s:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of "
                               f"the dimension {size} is not divisible by the split_size {s}!")
    return tensor_split(input, indices_or_sections, dim)


@public()
def hsplit(input, indices_or_sections):
    return _nsplit("hsplit", input, indices_or_sections, 1, 1 if input.ndim > 1 else 0)


@public()
def vsplit(input, indices_or_sections):
    return _nsplit("vsplit", input, indices_or_sections, 2, 0)


@public()
def dsplit(input, indices_or_sections):
    return _nsplit("dsplit", input, indices_or_sections, 3, 2)


@public(method=False)
def block_diag(*tensors):
    """The tensors (each 0-, 1- or 2-d, a matrix of one row or one element
    below two dimensions) along the diagonal of a matrix of zeros, in their
    promoted dtype."""
    mats = []
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t.ndim} dimensions")
        mats.append(t.reshape(1, -1) if t.ndim == 1 else t.reshape(1, 1) if t.ndim == 0 else t)
    if not mats:
        return _wrap(np.zeros((1, 0), D.get_default_dtype().np))
    dt = mats[0].dtype
    for m in mats[1:]:
        dt = D.promote_types(dt, m.dtype)
    cols = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        m = m if m.dtype == dt else m.to(dt)
        r, c = m.shape
        parts = [m]
        if left:
            parts.insert(0, _zeros((r, left), dt.np))
        if cols - left - c:
            parts.append(_zeros((r, cols - left - c), dt.np))
        rows.append(cat(parts, 1) if len(parts) > 1 else m)
        left += c
    return cat(rows, 0)


def _tri_indices(name, np_fn, row, col, offset, dtype):
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dt = D.int64 if dtype is None else D.to_dtype(dtype)
    if dt.np.kind not in "iu":
        raise NotImplementedError(f"\"{name}\" not implemented for '{_tname(dt.np)}'")
    r, c = np_fn(row, offset, col)
    return _wrap(np.stack([r, c]).astype(dt.np).reshape(2, -1))


@public(method=False)
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices("tril_indices", np.tril_indices, row, col, offset, dtype)


@public(method=False)
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices("triu_indices", np.triu_indices, row, col, offset, dtype)


def _powers(x, n):
    """``(..., len) -> (..., len, n)``: ``x**0 ... x**(n-1)`` by running products
    (PyTorch's order of multiplication; integers and bools as int64)."""
    if x._data.dtype.kind in "biu":
        x = x.to(D.int64)
    col = x.unsqueeze(-1)
    ones = _wrap(np.ones(tuple(col.shape), x._data.dtype))
    if n == 1:
        return ones
    return cat([ones, col.expand(*col.shape[:-1], n - 1).cumprod(-1)], -1)


@public(method=False)
def vander(x, N=None, increasing=False):
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if n == 0:
        dt = x._data.dtype if x._data.dtype.kind in "fc" or x._data.dtype in D.LOW_PRECISION \
            else np.dtype(np.int64)
        return _wrap(np.zeros((x.shape[0], 0), dt))
    r = _powers(x, n)
    return r if increasing else r.flip(-1)


def linalg_vander(x, *, N=None):
    """``torch.linalg.vander``: powers ``0 .. N-1`` of the last dimension's elements."""
    if x.ndim < 1:
        raise RuntimeError("N must be greater than 1.")
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    return _powers(x, n)


# ------------------------------------------------------------------ window functions
# PyTorch's recipes, step by step in the window's dtype (half and bfloat16: each step computed
# in float32 and rounded, each number rounded to the dtype first, as PyTorch's window functions
# do), so that the values agree with PyTorch's to the bit, or where a cosine differs by its last
# bit (NumPy's and PyTorch's vectorized cosines are both faithful, not always the same) to that
# bit's effect.
class _Steps:
    def __init__(self, dt):
        self.dt = dt
        self.ct = np.dtype(np.float32) if dt in D.LOW_PRECISION else dt

    def _c(self, a):
        return a.astype(self.ct)

    def mul(self, a, s):
        return (self._c(a) * self.ct.type(self.dt.type(s))).astype(self.dt)

    def add(self, a, s):
        return (self._c(a) + self.ct.type(self.dt.type(s))).astype(self.dt)

    def cos(self, a):
        return np.cos(self._c(a)).astype(self.dt)

    def sub(self, a, b):
        return (self._c(a) - self._c(b)).astype(self.dt)


def _window(name, n, periodic, dtype, requires_grad, body):
    from .._creation import _leaf
    dt = D.get_default_dtype() if dtype is None else D.to_dtype(dtype)
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(n).__name__}")
    if not (dt.np.kind == "f" or dt.np in D.LOW_PRECISION):
        if dt.np.kind == "c":
            raise NotImplementedError(f"\"arange_cpu\" not implemented for '{_tname(dt.np)}'")
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{D.CPP_NAMES[dt.name]}, device=cpu, layout=Strided (default), requires_grad="
                           f"{'true' if requires_grad else 'false (default)'}, pinned_memory=false "
                           f"(default), memory_format=(nullopt))")
    if n < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={n}")
    if n <= 1:
        return _leaf(np.ones(n, dt.np), requires_grad)
    m = n + 1 if periodic else n
    w = body(_Steps(dt.np), np.arange(m).astype(dt.np), m)
    return _leaf(np.ascontiguousarray(w[:n]), requires_grad)


@public(method=False)
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None,
                   device=None, pin_memory=False, requires_grad=False):
    def body(s, w, m):
        return s.add(s.mul(s.cos(s.mul(w, np.pi * 2.0 / (m - 1))), -beta), alpha)
    return _window("hamming_window", window_length, periodic, dtype, requires_grad, body)


@public(method=False)
def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    def body(s, w, m):
        return s.add(s.mul(s.cos(s.mul(w, np.pi * 2.0 / (m - 1))), -0.5), 0.5)
    return _window("hann_window", window_length, periodic, dtype, requires_grad, body)


@public(method=False)
def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    def body(s, w, m):
        w = s.mul(w, 2.0 / (m - 1))
        half = ((m - 1) >> 1) + 1
        w[half:] = s.add(s.mul(w[half:], -1), 2)
        return w
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, body)


@public(method=False)
def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    def body(s, w, m):
        w = s.mul(w, np.pi / (m - 1))
        a = s.mul(s.cos(s.mul(w, 4)), 0.08)
        b = s.mul(s.cos(s.mul(w, 2)), 0.5)
        return s.add(s.sub(a, b), 0.42)
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, body)


@public(method=False)
def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    def body(s, w, m):
        # i0(beta * sqrt(1 - ((k - a) / a)^2)) / i0(beta), a = (m - 1) / 2: computed in double
        a = (m - 1) / 2.0
        k = w.astype(np.float64)
        r = np.i0(beta * np.sqrt(np.abs(1 - ((k - a) / a) ** 2))) / np.i0(beta)
        return r.astype(s.dt)
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, body)


# ------------------------------------------------------------------ Tensor attributes, aliases
# (no Tensor.chalf: NumPy has no complex half, and complex64 in its place would be another dtype)
from .pointwise import mul as multiply      # noqa: E402  (torch.multiply, Tensor.multiply(_): mul)
from .core import _cast                     # noqa: E402

Tensor.char = _cast("int8")
Tensor.itemsize = property(lambda self: self._data.dtype.itemsize)
Tensor.nbytes = property(lambda self: self._data.size * self._data.dtype.itemsize)


@public()
def is_nonzero(input):
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(()))


@public()
def is_signed(input):
    d = input._data.dtype
    return d.kind in "ifc" or d in D.LOW_PRECISION


@public()
def is_same_size(input, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"is_same_size(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    return tuple(input.shape) == tuple(other.shape)


@public()
def adjoint(input):
    """The conjugate transpose of the last two dimensions (a view for real tensors)."""
    if input.ndim == 0:
        from .._warn import warn
        warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj().")
        return input.conj()
    if input.ndim < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of matrices. "
                           f"Got {input.ndim}-D tensor.")
    t = input.transpose(-2, -1)
    return t.conj() if t.is_complex() else t


def detach(input):
    return input.detach()


def get_device(input):
    return input.get_device()


__all__ += ["multiply", "is_nonzero", "is_signed", "is_same_size", "adjoint", "detach", "get_device"]
