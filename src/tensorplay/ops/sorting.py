"""Sorting and selection: sort, argsort, topk, kthvalue, median, cummax/cummin,
and searching sorted values: searchsorted, bucketize, unique, unique_consecutive.

Selection ops send the gradient to the indices they return (PyTorch's
``value_selecting_reduction_backward``); ``median()`` without ``dim`` shares
it evenly among ties, as PyTorch does.
"""
import numpy as np

from .._tensor import Tensor as _Tensor, _SCALAR_NAMES, _wrap, _wrap_dim
from ._families import REDUCTION, ALONG_DIM, NoBatchRule, _batch_first, jvp_select_along
from ._registry import defop as _defop, public as _public
from ._util import _key, _isfloat, _tname, bool_arg, int_arg
from .pointwise import where as _where
from .reduction import _return_type, _std_sort
from .._out import call_with_out

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "cummax", "cummin", "searchsorted",
           "bucketize", "unique", "unique_consecutive"]


_sort_rt = _return_type("sort", ("values", "indices"))
_topk_rt = _return_type("topk", ("values", "indices"))
_kthvalue_rt = _return_type("kthvalue", ("values", "indices"))
_median_rt = _return_type("median", ("values", "indices"))
_cummax_rt = _return_type("cummax", ("values", "indices"))
_cummin_rt = _return_type("cummin", ("values", "indices"))


def _argsort_np(x, d, descending):
    """Stable argsort along ``d``, NaN largest (as PyTorch)."""
    x = _key(x)
    if not descending:
        return np.argsort(x, axis=d, kind="stable")
    n = x.shape[d]
    r = np.flip(x, d)
    idx = np.flip(np.argsort(r, axis=d, kind="stable"), d)
    return (n - 1) - idx


def _sort_k(x, dim=-1, descending=False):
    if x.dtype.kind == "c":
        raise RuntimeError(" Sort does not support complex dtypes on CPU")
    d = _wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    idx = _argsort_np(x, d, descending)
    return np.take_along_axis(x, idx, d), idx.astype(np.int64)


def _scatter_back(g, idx, shape, d, keepdim=True):
    """zeros(shape).scatter(d, idx, g): the gradient of a value-selecting op."""
    if len(shape) == 0:
        return g.reshape(())
    if not keepdim:
        g, idx = g.unsqueeze(d), idx.unsqueeze(d)
    z = _wrap(np.zeros(shape, g._data.dtype))
    return z.scatter(d, idx, g)


def _sort_vjp(g, result, x, dim):
    return _scatter_back(g[0], result[1].detach(), x.shape,
                         _wrap_dim(dim, max(x.ndim, 1)) if x.ndim else 0)


# (values, indices) ops whose gradient goes where the indices say: the indices are
# no differentiable output, and the vjps read only them, so the values may be
# changed in place before backward (PyTorch saves only the indices)
_BY_INDEX = dict(nondiff_out=(1,), out_saved=(1,))


_sort = _defop("sort", _sort_k, {"x": _sort_vjp}, meta=("x",), **_BY_INDEX, upcast=False,
               node_name="SortBackward0", family=ALONG_DIM, dims=("dim",), jvp=jvp_select_along)
_sort_stable = _defop("sort_stable", _sort_k, {"x": _sort_vjp}, meta=("x",), **_BY_INDEX,
                      upcast=False, node_name="SortBackward1", family=ALONG_DIM, dims=("dim",),
                      jvp=jvp_select_along)


@_public()
def sort(input, dim=-1, descending=False, *, stable=None, out=None):
    if out is not None:
        return call_with_out('sort', sort, (input, dim, descending), {'stable': stable}, out)
    if isinstance(dim, bool):
        raise TypeError("sort() received an invalid combination of arguments")
    if stable is None:
        return _sort_rt(*_sort(input, dim, descending))
    return _sort_rt(*_sort_stable(input, dim, descending))


@_public()
def argsort(input, dim=-1, descending=False, *, stable=False):
    return _sort(input, dim, descending)[1].detach()


@_public()
def msort(input, *, out=None):
    """The values of ``sort`` along the first dimension."""
    if out is not None:
        return call_with_out('msort', msort, (input,), {}, out)
    return _sort(input, 0, False)[0]


def _topk_k(x, k, dim=-1, largest=True, sorted=True):
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"topk_cpu\" not implemented for '{_tname(x.dtype)}'")
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d] if x.ndim else 1
    if not (0 <= k <= n):
        raise RuntimeError("selected index k out of range")
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    idx = np.take(_argsort_np(x, d, largest), np.arange(k), axis=d)
    return np.take_along_axis(x, idx, d), idx.astype(np.int64)


def _topk_vjp(g, result, x, dim):
    return _scatter_back(g[0], result[1].detach(), x.shape, _wrap_dim(dim, x.ndim) if x.ndim else 0)


_topk = _defop("topk", _topk_k, {"x": _topk_vjp}, meta=("x",), **_BY_INDEX, upcast=False,
               node_name="TopkBackward0", family=ALONG_DIM, dims=("dim",), jvp=jvp_select_along,
               no_bool=RuntimeError("topk does not support bool dtypes on CPU"),
               no_complex=RuntimeError(" topk does not support complex dtypes on CPU"))


@_public()
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    if out is not None:
        return call_with_out('topk', topk, (input, k, dim, largest, sorted), {}, out)
    return _topk_rt(*_topk(input, k, dim, largest, sorted))


def _kthvalue_k(x, k, dim=-1, keepdim=False):
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"kthvalue_cpu\" not implemented for '{_tname(x.dtype)}'")
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d] if x.ndim else 1
    if n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not (1 <= k <= n):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    idx = np.take(_argsort_np(x, d, False), [k - 1], axis=d)
    vals = np.take_along_axis(x, idx, d)
    if not keepdim:
        idx, vals = idx.squeeze(d), vals.squeeze(d)
    return vals, idx.astype(np.int64)


def _kthvalue_vjp(g, result, x, dim, keepdim):
    if x.ndim == 0:
        return g[0]
    return _scatter_back(g[0], result[1].detach(), x.shape, _wrap_dim(dim, x.ndim), keepdim)


_kthvalue = _defop("kthvalue", _kthvalue_k, {"x": _kthvalue_vjp}, meta=("x",), **_BY_INDEX,
                   upcast=False, node_name="KthvalueBackward0", family=REDUCTION, dims=("dim",),
                   no_bool="kthvalue_cpu", no_complex="kthvalue_cpu")


@_public()
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    if out is not None:
        return call_with_out('kthvalue', kthvalue, (input, k, dim, keepdim), {}, out)
    return _kthvalue_rt(*_kthvalue(input, int_arg("kthvalue", "k", 2, k), dim, keepdim))


def _median_all_k(x):
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"median_cpu\" not implemented for '{_tname(x.dtype)}'")
    f = x.reshape(-1)
    if f.size == 0:
        return np.array(np.nan, x.dtype) if _isfloat(x) else np.zeros((), x.dtype)
    s = f[np.argsort(_key(f), kind="stable")]
    if _isfloat(x) and np.isnan(_key(s[-1:]))[0]:
        return np.array(np.nan, x.dtype)
    return np.asarray(s[(f.size - 1) // 2])


def evenly_distributed(g, result, x, dim=None):
    """PyTorch's ``evenly_distribute_backward``: the gradient of a reduction's
    value shared equally among the elements equal to it (among the NaNs, for a
    NaN), over all of ``x`` or, with ``dim``, over each slice along it.  Tensor
    operations only, so that it holds under vmap too."""
    if dim is not None:
        result, g = result.unsqueeze(dim), g.unsqueeze(dim)
    mask = _where(result.isnan(), x.isnan(), x == result)
    return _where(mask, g / (mask.sum() if dim is None else mask.sum(dim, keepdim=True)), 0.0)


def _median_all_vjp(g, result, x):
    return evenly_distributed(g, result, x)


def along_flattened(op):
    """The batching rule of a full reduction whose gradient is shared among
    ties (median, nanmedian): ``op`` (its ``_along`` form) over each flattened
    sample.  Reducing along a dimension with the op's ``dim`` form would give
    the whole gradient to one index."""
    def rule(_, args, bdims):
        x = _batch_first(args[0], bdims[0])
        x = x.reshape((x.shape[0], -1))
        if x.shape[1] == 0:
            raise NoBatchRule(op.name)
        return op(x, 1), 0
    return rule


def _median_dim_k(x, dim, keepdim=False):
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"median_out\" not implemented for '{_tname(x.dtype)}'")
    d = _wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    n = x.shape[d]
    if n == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    order = _argsort_np(x, d, False)
    idx = np.take(order, [(n - 1) // 2], axis=d)
    if _isfloat(x):                    # a NaN in the slice: the first NaN is the median
        nan = np.isnan(_key(x))
        has = nan.any(axis=d, keepdims=True)
        first = np.argmax(nan, axis=d, keepdims=True)
        idx = np.where(has, first, idx)
    vals = np.take_along_axis(x, idx, d)
    if not keepdim:
        idx, vals = idx.squeeze(d), vals.squeeze(d)
    return vals, idx.astype(np.int64)


def _median_dim_vjp(g, result, x, dim, keepdim):
    if x.ndim == 0:
        return g[0]
    return _scatter_back(g[0], result[1].detach(), x.shape, _wrap_dim(dim, x.ndim), keepdim)


def _median_along_k(x, dim):
    return _median_dim_k(x, dim)[0]


_median_along = _defop("_median_along", _median_along_k, {"x": evenly_distributed}, upcast=False,
                       node_name="MedianBackward0", family=REDUCTION, dims=("dim",), method=False)
_median_all = _defop("median", _median_all_k, {"x": _median_all_vjp}, upcast=False,
                     node_name="MedianBackward0", family=REDUCTION, batch=along_flattened(_median_along),
                     no_bool=lambda x: "median_cpu" if x.numel() else None)
_median_dim = _defop("median_dim", _median_dim_k, {"x": _median_dim_vjp}, meta=("x",),
                     **_BY_INDEX, upcast=False, node_name="MedianBackward1",
                     family=REDUCTION, dims=("dim",), no_bool="median_out")


@_public()
def median(input, dim=None, keepdim=None, *, out=None):
    if dim is None and (out is not None or keepdim is not None):
        # (median() of everything takes neither keepdim nor out=)
        raise TypeError('median() missing 1 required positional arguments: "dim"')
    keepdim = bool(keepdim)
    if out is not None:
        return call_with_out('median', median, (input, dim, keepdim), {}, out)
    if dim is None:
        return _median_all(input)
    return _median_rt(*_median_dim(input, dim, keepdim))


def _make_cum(name, better):
    def k(x, dim):
        if x.dtype.kind == "c":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_tname(x.dtype)}'")
        d = _wrap_dim(dim, x.ndim)
        if x.ndim == 0:
            return x.copy(), np.zeros((), np.int64)
        xm = np.moveaxis(_key(x), d, -1)
        vals = np.empty_like(xm)
        idx = np.zeros(xm.shape, np.int64)
        n = xm.shape[-1]
        if n:
            cur, ci = xm[..., 0].copy(), np.zeros(xm.shape[:-1], np.int64)
            vals[..., 0], idx[..., 0] = cur, ci
            for i in range(1, n):
                v = xm[..., i]
                take = better(v, cur)
                if _isfloat(x):         # a NaN is taken, and each later one (PyTorch's index)
                    take = take | np.isnan(v)
                cur = np.where(take, v, cur)
                ci = np.where(take, i, ci)
                vals[..., i], idx[..., i] = cur, ci
        return (np.moveaxis(vals, -1, d).astype(x.dtype, order="C"),
                np.ascontiguousarray(np.moveaxis(idx, -1, d)))

    def vjp(g, result, x, dim):           # PyTorch's cummaxmin_backward: scatter_add
        g, idx = g[0], result[1].detach()
        if x.ndim == 0:
            return g
        z = _wrap(np.zeros(x.shape, g._data.dtype))
        return z.scatter_add(_wrap_dim(dim, x.ndim), idx, g)

    op = _defop(name, k, {"x": vjp}, meta=("x",), **_BY_INDEX, upcast=False,
                node_name=f"{name.capitalize()}Backward0", family=ALONG_DIM, dims=("dim",),
                jvp=jvp_select_along)
    rt = _cummax_rt if name == "cummax" else _cummin_rt

    @_public()
    def fn(input, dim, *, out=None):
        if out is not None:
            return call_with_out(name, fn, (input, dim), {}, out)
        return rt(*op(input, dim))
    fn.__name__ = fn.__qualname__ = name
    return fn


cummax = _make_cum("cummax", np.greater_equal)
cummin = _make_cum("cummin", np.less_equal)


# ------------------------------------------------------------------ searching sorted values
def _search_nan(rows, vals, right, srt):
    """PyTorch's binary search, row by row (``rows`` (lead, n), ``vals`` (lead, m)):
    by plain ``>=`` (``>`` on the right), so that a NaN among the boundaries, and a
    NaN value, send the search to the right as its kernel does."""
    lead, n = rows.shape
    start = np.zeros(vals.shape, np.int64)
    end = np.full(vals.shape, n, np.int64)
    r = np.arange(lead)[:, None]
    with np.errstate(invalid="ignore"):
        while True:
            live = start < end
            if not live.any():
                return start
            mid = np.minimum(start + ((end - start) >> 1), max(n - 1, 0))
            at = mid if srt is None else srt[r, mid]
            mv = rows[r, at]
            go_right = ~(mv > vals) if right else ~(mv >= vals)
            start = np.where(live & go_right, mid + 1, start)
            end = np.where(live & ~go_right, mid, end)


def _check_sorter(seq, sorter):
    if sorter.shape != seq.shape:
        raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but "
                           f"got boundary tensor {list(seq.shape)}and got sorter tensor "
                           f"{list(sorter.shape)}")
    if sorter.dtype != np.int64:
        raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got "
                           f"dtype {_SCALAR_NAMES.get(sorter.dtype.name, sorter.dtype.name)}")
    if sorter.size and (sorter.min() < 0 or sorter.max() >= seq.shape[-1]):
        raise RuntimeError("torch.searchsorted(): sorter index out of range")


def _searchsorted_k(seq, values, right=False, out_int32=False, sorter=None):
    side = "right" if right else "left"
    dt = np.int32 if out_int32 else np.int64
    v = np.asarray(values)
    if sorter is not None:
        _check_sorter(seq, sorter)
    seq, v = _key(seq), _key(v)         # (NumPy does not order bfloat16's NaN)
    nan_edges = seq.dtype.kind == "f" and bool(np.isnan(seq).any())
    if seq.ndim <= 1:
        if nan_edges:
            return _search_nan(seq.reshape(1, -1), v.reshape(1, -1), right,
                               None if sorter is None else sorter.reshape(1, -1)).reshape(v.shape).astype(dt)
        return np.asarray(np.searchsorted(seq, v, side=side, sorter=sorter), dt)
    if v.ndim != seq.ndim or v.shape[:-1] != seq.shape[:-1]:
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the "
                           f"first N-1 dimensions of boundaries tensor and input value tensor must "
                           f"match, but we got boundaries tensor {list(seq.shape)} and input value "
                           f"tensor {list(v.shape)}")
    lead = int(np.prod(seq.shape[:-1]))               # (explicit: a last dimension may be 0)
    rows, vals = seq.reshape(lead, seq.shape[-1]), v.reshape(lead, v.shape[-1])
    srt = None if sorter is None else sorter.reshape(lead, seq.shape[-1])
    if nan_edges:
        return _search_nan(rows, vals, right, srt).astype(dt).reshape(v.shape)
    out = np.empty(vals.shape, dt)
    for i in range(rows.shape[0]):                   # (one search per row of boundaries)
        out[i] = np.searchsorted(rows[i], vals[i], side=side, sorter=None if srt is None else srt[i])
    return out.reshape(v.shape)


_searchsorted = _defop("searchsorted", _searchsorted_k, None, n_in=2, upcast=False, method=False,
                       no_complex="searchsorted_out_cpu", no_bool="searchsorted_out_cpu")


@_public(method=False)
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None,
                 out=None):
    """Where ``input``'s values would go in the last dimension of ``sorted_sequence``
    to keep it sorted: the first such index, or the last with ``right``/``side="right"``."""
    if out is not None:
        return call_with_out("searchsorted", searchsorted, (sorted_sequence, input),
                             {"out_int32": out_int32, "right": right, "side": side, "sorter": sorter},
                             out)
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got "
                               f"{side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got "
                               "side of left while right was True")
        right = side == "right"
    if sorter is not None:
        sorter = sorter._data if isinstance(sorter, _Tensor) else np.asarray(sorter)
    return _searchsorted(sorted_sequence, input, right, out_int32, sorter)


@_public(method=False)
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each of ``input``'s values among the 1-d ``boundaries``:
    ``boundaries[i-1] < x <= boundaries[i]`` (``<=`` on the left with ``right``)."""
    if out is not None:
        return call_with_out("bucketize", bucketize, (input, boundaries),
                             {"out_int32": out_int32, "right": right}, out)
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return _searchsorted(boundaries, input, right, out_int32, None)


def _unique_k(x, sorted=True, return_inverse=False, return_counts=False, dim=None):
    if x.dtype.name == "bfloat16":      # NumPy does not order bfloat16's NaN: as float32 (exact)
        vals, inv, counts = _unique_k(x.astype(np.float32), sorted, return_inverse, return_counts, dim)
        return vals.astype(x.dtype), inv, counts
    if dim is None:
        vals, inv, counts = np.unique(x.reshape(-1), return_inverse=True, return_counts=True,
                                      equal_nan=False)       # (each NaN is its own value)
        inv = inv.reshape(x.shape)
    else:
        d = _unique_dim_check(x, dim)
        if x.size == 0:         # (the selected dimension is the empty one)
            return x.copy(), np.zeros(0, np.int64), np.zeros(0, np.int64)
        if x.dtype.kind == "f" and np.isnan(x).any():
            return _unique_dim_nan(x, d)
        vals, inv, counts = np.unique(x, return_inverse=True, return_counts=True, axis=d)
        inv = inv.reshape(-1)
    return vals, inv.astype(np.int64), counts.astype(np.int64)


def _unique_dim_check(x, dim):
    """PyTorch's refusals of unique along ``dim``: of a 0-d tensor, and of an empty
    tensor whose empty dimension is not ``dim``."""
    if x.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, x.ndim)
    if x.size == 0 and any(n == 0 for i, n in enumerate(x.shape) if i != d):
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                           "applied")
    return d


def _unique_dim_nan(x, d):
    """unique along ``d`` of slices holding NaN, as PyTorch's CPU kernel: the slices
    sorted by std::sort comparing them element by element with < and > (a NaN
    decides nothing: the next element does), then runs of equal slices merged
    (a slice holding NaN equals no other)."""
    m = np.moveaxis(x, d, 0)
    rows = m.reshape(m.shape[0], -1).tolist()

    def lt(a, b):
        for p, q in zip(rows[a], rows[b]):
            if p < q:
                return True
            if p > q:
                return False
        return False
    order = list(range(len(rows)))
    _std_sort(order, lt)
    inv = np.empty(len(rows), np.int64)
    keep, counts = [order[0]], [1]
    inv[order[0]] = 0
    for k in order[1:]:
        if rows[k] == rows[keep[-1]] and not any(v != v for v in rows[k]):
            counts[-1] += 1
        else:
            keep.append(k)
            counts.append(1)
        inv[k] = len(keep) - 1
    vals = np.moveaxis(m[keep], 0, d)
    return np.ascontiguousarray(vals), inv, np.asarray(counts, np.int64)


_unique = _defop("unique", _unique_k, None, upcast=False, no_complex="unique")


@_public()
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values of ``input`` (or its distinct slices along ``dim``),
    sorted; with ``return_inverse`` where each element went, with
    ``return_counts`` how often each value occurs.  Not differentiable."""
    for name, v in (("sorted", sorted), ("return_inverse", return_inverse), ("return_counts", return_counts)):
        bool_arg("_unique2" if dim is None else "unique_dim", name, v)
    vals, inv, counts = _unique(input, sorted, return_inverse, return_counts, dim)
    out = (vals,) + ((inv,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return out[0] if len(out) == 1 else out


def _unique_consecutive_k(x, return_inverse=False, return_counts=False, dim=None):
    if dim is None:
        flat = x.reshape(-1)
        starts = np.ones(flat.shape, bool)
        starts[1:] = flat[1:] != flat[:-1]
        vals = flat[starts]
        inv = (np.cumsum(starts) - 1).reshape(x.shape)
    else:
        d = _unique_dim_check(x, dim)
        m = np.moveaxis(x, d, 0)
        starts = np.ones(m.shape[0], bool)
        if m.shape[0] > 1:
            starts[1:] = (m[1:] != m[:-1]).reshape(m.shape[0] - 1, -1).any(axis=1)
        vals = np.moveaxis(m[starts], 0, d)
        inv = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.flatnonzero(starts), starts.size))
    return (np.ascontiguousarray(vals), inv.astype(np.int64), counts.astype(np.int64))


_unique_consecutive = _defop("unique_consecutive", _unique_consecutive_k, None, upcast=False,
                             no_complex="unique")


@_public()
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """``unique`` of each run of equal consecutive values (or slices along ``dim``)."""
    vals, inv, counts = _unique_consecutive(input, return_inverse, return_counts, dim)
    out = (vals,) + ((inv,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return out[0] if len(out) == 1 else out
