"""``scatter_reduce`` and ``index_reduce``: reduce ``src`` into ``input`` at the
positions ``index`` names (sum, prod, mean, amax, amin), optionally counting
``input``'s own value.

Both derivatives come from one place: each output element is a reduction of
some inputs, so its partial derivative with respect to each of them is a
weight (``_weights``): 1 for a sum, 1/count for a mean, the product of the
other factors for a prod (with zeros handled), a share of the ties for
amax/amin.  The vjp multiplies the incoming gradient by those weights; the
jvp sums the weighted tangents into the output's positions.
"""

import numpy as np

from .. import _dtype as D
from .._out import write_out
from .._tensor import Tensor, _wrap_dim
from ._families import INDEXING
from ._registry import defop, public
from .indexing import (_check_index_tensor, _title, _pad_to, _scatter_add, _scatter_prep, _scatter_value,
                       _src_part, gather, take)
from .pointwise import conj, where
from .shape import cat, stack
from ._util import F32 as _F32
from .._warn import warn as _warn_user

_LOWP = D.LOW_PRECISION

__all__ = ["scatter_reduce", "index_reduce"]

_SCATTER_REDUCES = ("sum", "prod", "mean", "amax", "amin")
_UFUNC = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
          "amin": np.minimum}


def _identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind in "iub":
        info = np.iinfo(dtype) if dtype.kind != "b" else None
        if info is None:
            return reduce == "amin"
        return info.min if reduce == "amax" else info.max
    return -np.inf if reduce == "amax" else np.inf


def _reduce_into(x, d, key, idx, v, reduce, include_self, acc=True):
    """``x`` with ``v`` reduced in at ``key`` (NumPy; ``x`` at least 1-d).  Half and
    bfloat16 sums, means and products accumulate in float32 and round once, as
    PyTorch's scatter_reduce does (``acc=False``: in ``x``'s own dtype, counts too,
    as its index_reduce does)."""
    out = x.copy()
    if not idx.size:
        return out
    low = x.dtype in _LOWP and reduce in ("sum", "mean", "prod")
    if low and acc:
        out = out.astype(_F32)
        v = v.astype(_F32)
    if not include_self:
        out[key] = _identity(reduce, x.dtype)
    _UFUNC[reduce].at(out, key, v)
    if reduce == "mean":
        # the sum and the count are each rounded to a half/bfloat16 ``x``'s dtype before
        # the division (PyTorch counts in a tensor of that dtype, with scatter_add)
        count = np.ones(x.shape, x.dtype if low and not acc else out.dtype if low else np.int64)
        if not include_self:
            count[key] = 0
        np.add.at(count, key, count.dtype.type(1))
        if low and acc:
            out = out.astype(x.dtype).astype(_F32)
            count = count.astype(x.dtype).astype(_F32)
        out = out // count if x.dtype.kind in "iu" else out / count
    return out.astype(x.dtype, copy=False)


_ALIASES = {"max": "amax", "min": "amin"}     # PyTorch takes these too


def _scatter_reduce_k(x, dim, index, src, reduce, include_self=True):
    return _scatter_reduce_np(x, dim, index, src, reduce, include_self, True)


def _scatter_reduce_np(x, dim, index, src, reduce, include_self, acc):
    """The kernel, with ``acc`` (see ``_reduce_into``)."""
    reduce = _ALIASES.get(reduce, reduce)
    if reduce not in _SCATTER_REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if src.dtype != x.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if x.ndim == 0:
        return _scatter_reduce_np(x.reshape(1), 0, index.reshape(-1), src.reshape(-1), reduce,
                                  include_self, acc).reshape(())
    d, key, idx = _scatter_prep(x, dim, index, src, "scatter_reduce")
    return _reduce_into(x, d, key, idx, _src_part(src, idx.shape) if idx.size else src, reduce,
                        include_self, acc)


def _part(src, index):
    """The part of ``src`` that ``index`` reaches (its leading block)."""
    if tuple(src.shape) == tuple(index.shape) or src.dim() == 0:
        return src
    return src[tuple(slice(0, s) for s in index.shape)]


def _weights(x, dim, index, src, reduce, include_self, result):
    """(d result / d x, d result[index] / d src-part), as tensors shaped like ``x``
    and like ``index``: the local derivatives of each reduction."""
    reduce = _ALIASES.get(reduce, reduce)
    s = _part(src, index)
    ones_x = x.new_ones(x.shape)
    touched = _scatter_value(x.new_zeros(x.shape), dim, index, 1.0)     # 1 where src lands
    untouched = 1 - touched
    own = ones_x if include_self else untouched     # whether x's own value takes part
    if reduce == "sum":
        return own, s.new_ones(s.shape)
    if reduce == "mean":
        count = _scatter_add(own, dim, index, s.new_ones(s.shape))
        return own / count, gather(1 / count, dim, index)
    if reduce in ("amax", "amin"):
        at = gather(result, dim, index)
        m_src = (s == at).to(s.dtype)
        hit_x = (x == result).to(x.dtype)
        # how many inputs reach the extreme: PyTorch counts x's own value when it equals
        # the result even when include_self=False leaves it out (its gradient is then 0
        # and the others' shares do not add up to 1)
        n = _scatter_add(hit_x, dim, index, m_src)
        return own * hit_x / n, m_src / gather(n, dim, index)
    # prod: the derivative by one factor is the product of the others (zeros counted apart)
    x_eff = where(own > 0, x, 1.0)
    x_zero = x_eff == 0
    s_zero = s == 0
    zeros = _scatter_add(x_zero.to(x.dtype), dim, index, s_zero.to(s.dtype))
    if bool((zeros._data >= 2).any()):
        # two zeros or more reach one position: its weights are 0 but their own derivatives
        # (products of the factors other than two) are not, so build them as products
        return _prod_others(x_eff, own, dim, index, s)
    x_nz, s_nz = where(x_zero, 1.0, x_eff), where(s_zero, 1.0, s)
    prod_nz = _scatter_reduce(x_nz, dim, index, s_nz, "prod", True)
    other_nz = where(zeros == 1, prod_nz, 0.0)
    w_x = own * where(x_zero, other_nz, result / x_nz)
    w_s = where(s_zero, gather(other_nz, dim, index), gather(result, dim, index) / s_nz)
    return w_x, w_s


def _segments(shape, d, index):
    """The factors of a prod reduction laid out by output position.  The factors are
    x's elements (flat, first) then the src part's (flat, in index's shape); returns
    ``(P, Q, width)``: ``P[p, j]`` the j-th factor reaching flat position p (``N``, one
    past the last factor, where p has fewer than ``width``), and ``Q[f]`` factor f's
    place in ``P`` (flat)."""
    nx = int(np.prod(shape, dtype=np.int64))
    idx = np.asarray(index, np.int64)
    coords = list(np.indices(idx.shape, dtype=np.int64))
    coords[d] = idx
    tgt = np.concatenate([np.arange(nx, dtype=np.int64),
                          np.ravel_multi_index(coords, shape).reshape(-1)])
    order = np.argsort(tgt, kind="stable")
    counts = np.bincount(tgt, minlength=nx)
    width = int(counts.max()) if nx else 1
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    t_sorted = tgt[order]
    pos = np.arange(tgt.size) - start[t_sorted]
    p = np.full((nx, width), tgt.size, np.int64)
    p[t_sorted, pos] = order
    q = np.empty(tgt.size, np.int64)
    q[order] = t_sorted * width + pos
    return p, q, width


def _prod_others(x_eff, own, dim, index, s):
    """(w_x, w_s) of a prod reduction as products of all the other factors, built from
    running products from both ends of each position's factors: exact with any number of
    zeros, to every order of derivative (each step is a product)."""
    shape = tuple(x_eff.shape)
    if not shape:                                       # 0-d: as 1-d
        w_x, w_s = _prod_others(x_eff.reshape(1), own.reshape(1), 0, index.reshape(-1),
                                s.reshape(-1))
        return w_x.reshape(()), w_s.reshape(tuple(s.shape))
    d = _wrap_dim(dim, len(shape))
    p, q, width = _segments(shape, d, index._data)
    factors = cat([x_eff.reshape(-1), s.reshape(-1), x_eff.new_ones((1,))])
    m = take(factors, index.new_tensor(p))              # (positions, width), padded with 1
    cols = [m[:, j] for j in range(width)]
    before = [None] * width                             # product of the factors before j
    after = [None] * width                              # and of those after it
    acc = None
    for j in range(width):
        before[j] = acc
        acc = cols[j] if acc is None else acc * cols[j]
    acc = None
    for j in range(width - 1, -1, -1):
        after[j] = acc
        acc = cols[j] if acc is None else acc * cols[j]
    ones = x_eff.new_ones((m.shape[0],))
    w = stack([ones if b is None and a is None else b if a is None else a if b is None else b * a
               for b, a in zip(before, after)], 1)
    w = take(w, index.new_tensor(q))
    nx = x_eff.numel()
    return own * w[:nx].reshape(shape), w[nx:].reshape(tuple(s.shape))


def _sr_vjp_x(g, x, dim, index, src, reduce, include_self, result):
    w_x, _ = _weights(x, dim, index, src, reduce, include_self, result)
    return g * conj(w_x)


def _sr_vjp_src(g, x, dim, index, src, reduce, include_self, result):
    _, w_s = _weights(x, dim, index, src, reduce, include_self, result)
    return _pad_to(gather(g, dim, index) * conj(w_s), src.shape)


def _sr_jvp(x_t, src_t, x, dim, index, src, reduce, include_self, result):
    w_x, w_s = _weights(x, dim, index, src, reduce, include_self, result)
    return _scatter_add(w_x * x_t, dim, index, w_s * _part(src_t, index))


_scatter_reduce = defop("scatter_reduce", _scatter_reduce_k,
                        {"x": _sr_vjp_x, "src": _sr_vjp_src}, n_in=4, upcast=False,
                        node_name="ScatterReduceBackward0", family=INDEXING, dims=("dim",),
                        jvp=_sr_jvp)


@public(inplace=True)
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """Reduce ``src`` into a copy of ``input`` at ``index`` along ``dim``
    (``out[index[i][j]][j] = reduce(out[...], src[i][j])`` for ``dim=0``)."""
    _check_index_tensor(index, "scatter_reduce", ("int64", "int32"),
                        "scatter(): Expected dtype int32/int64 for index")
    r = _scatter_reduce(input, dim, index, src, reduce, include_self)
    if out is not None:
        return write_out("scatter_reduce", r, out)
    return r


# ------------------------------------------------------------------ index_reduce
_INDEX_REDUCES = ("prod", "mean", "amax", "amin")
_warned = [False]


def _full_index(index, d, shape):
    """A 1-d ``index`` along dim ``d``, as the scatter index for a source of ``shape``."""
    view = [1] * len(shape)
    if shape:
        view[d] = -1
    return np.broadcast_to(index.reshape(view), shape) if shape else index.reshape(())


def _index_checks(x, dim, index, source, reduce):
    if reduce not in _INDEX_REDUCES:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin "
                           f"but got {reduce}.")
    if index.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: "
                         f"{index.ndim} with type: {_title(index.dtype)} and size: "
                         f"{list(index.shape)}")
    d = _wrap_dim(dim, max(x.ndim, 1))
    if x.ndim != source.ndim and not (x.ndim <= 1 and source.ndim <= 1):
        raise IndexError("index_reduce_(): Self and source should have same number of dimensions.")
    n = source.shape[d] if source.ndim else 1
    if index.size != n:
        raise RuntimeError(f"index_reduce_(): Number of indices ({index.size}) should be equal to "
                           f"source.size(dim): ({n}), for dim: {d}")
    if source.dtype != x.dtype:
        raise RuntimeError(f"index_reduce_(): self ({_title(x.dtype)}) and source "
                           f"({_title(source.dtype)}) must have the same scalar type")
    size = x.shape[d] if x.ndim else 1
    if index.size and (index.min() < -size or index.max() >= size):
        raise IndexError("index out of range in self")
    return d, np.where(index < 0, index + size, index)


def _index_reduce_k(x, dim, index, source, reduce, include_self=True):
    d, idx = _index_checks(x, dim, index, source, reduce)
    if x.ndim == 0:
        x1, s1 = x.reshape(1), source.reshape(1)
        return _scatter_reduce_np(x1, 0, idx.reshape(-1), s1, reduce, include_self,
                                  False).reshape(())
    # (PyTorch's index_reduce accumulates half and bfloat16 in their own dtype)
    return _scatter_reduce_np(x, d, _full_index(idx, d, source.shape), source, reduce, include_self,
                              False)


def _scatter_index(x, dim, index, source):
    """index_reduce's index as a scatter_reduce index tensor (shaped like ``source``)."""
    d = _wrap_dim(dim, max(x.dim(), 1))
    size = x.shape[d] if x.dim() else 1
    idx = index._data
    idx = np.where(idx < 0, idx + size, idx).astype(np.int64)
    if x.dim() == 0:
        return d, index.new_tensor(idx.reshape(-1)), True
    return d, index.new_tensor(np.ascontiguousarray(_full_index(idx, d, tuple(source.shape)))), False


def _ir_weights(x, dim, index, source, reduce, include_self, result):
    d, full, scalar = _scatter_index(x, dim, index, source)
    if scalar:
        w_x, w_s = _weights(x.reshape(1), 0, full, source.reshape(1), reduce, include_self,
                            result.reshape(1))
        return w_x.reshape(()), w_s.reshape(()), d, full, True
    w_x, w_s = _weights(x, d, full, source, reduce, include_self, result)
    return w_x, w_s, d, full, False


def _ir_vjp_x(g, x, dim, index, source, reduce, include_self, result):
    w_x = _ir_weights(x, dim, index, source, reduce, include_self, result)[0]
    return g * conj(w_x)


def _ir_vjp_source(g, x, dim, index, source, reduce, include_self, result):
    _, w_s, d, full, scalar = _ir_weights(x, dim, index, source, reduce, include_self, result)
    if scalar:
        return g * conj(w_s)
    return gather(g, d, full) * conj(w_s)


def _ir_jvp(x_t, source_t, x, dim, index, source, reduce, include_self, result):
    w_x, w_s, d, full, scalar = _ir_weights(x, dim, index, source, reduce, include_self, result)
    if scalar:
        return w_x * x_t + w_s * source_t
    return _scatter_add(w_x * x_t, d, full, w_s * source_t)


_index_reduce = defop("index_reduce", _index_reduce_k,
                      {"x": _ir_vjp_x, "source": _ir_vjp_source}, n_in=4, upcast=False,
                      node_name="IndexReduceBackward0", family=INDEXING, dims=("dim",),
                      jvp=_ir_jvp, no_bool="index_func_", no_complex="index_func_")


@public(inplace=True)
def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """Reduce the slices of ``source`` into a copy of ``input`` at the positions
    ``index`` (a vector) names along ``dim``: prod, mean, amax or amin."""
    if not _warned[0]:
        _warned[0] = True
        _warn_user("index_reduce() is in beta and the API may change at any time.")
    _check_index_tensor(index, "index_reduce", ("int64", "int32"),
                        "index_reduce_(): Expected dtype int32/int64 for index but got: {t}")
    if not isinstance(source, Tensor):
        raise TypeError(f"index_reduce(): argument 'source' (position 3) must be Tensor, not "
                        f"{type(source).__name__}")
    r = _index_reduce(input, dim, index, source, reduce, include_self)
    if out is not None:
        return write_out("index_reduce", r, out)
    return r
