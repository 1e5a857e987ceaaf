"""Table entries for ops/indexing.py (__getitem__/__setitem__, index_put, gather/scatter,
index_*, masks, take, nonzero)."""
import numpy as np

from . import OpCase, Sample, arr

A = arr(3, 4, seed=1)
B = arr(2, 3, 4, seed=2)
Z = np.array(0.7)


def I(*v):
    return np.array(v, dtype=np.int64)


MASK = np.array([[True, False, True, True], [False, False, True, False], [True, True, False, False]])


def _basic(T, x):
    return x[1], x[-1, 1:3], x[:, ::2], x[None, ..., 2], x[1:, None, -1], x[:], x[0:10:3]


def _adv(T, x):
    return (x[[0, 0], :, [1, 2]], x[:, [2, 0, 2]], x[1:, [0, 1], 2], x[0, :, [1, 3]],
            x[[[0], [1]], [[1, 2]]], x[..., [-1, 0, -1]], x[[1, 0], None, [2, 2]],
            x[T.tensor([[0, 1], [1, 1]])], x[1, 2, T.tensor([3, 0])])


def _setitem(T, x, v):
    y = x * 1
    y[0, 1:3] = v[:2]
    y[[2, 1], -1] = v[2]
    y[1, ..., 0] = 2.5
    y[:, [0, 3]] = v[None, 2:, None]
    return y


def _setitem_mask(T, x, v, m):
    y = x * 1
    y[m] = v[: int(m.sum())] if v.dim() else v
    y[~m] = y[~m] * 2
    return y


def _setitem_tensor_idx(T, x, v, i):
    y = x.clone()
    y[i] = v
    y[T.tensor([True, False, True])] = y[T.tensor([True, False, True])] * 3
    return y


CASES = [
    OpCase("getitem_basic", _basic, [Sample([A]), Sample([B], desc="3-d")], covers=("select", "slice", "unsqueeze")),
    OpCase("getitem_alias", lambda T, x: (x[...], x[()], x[None]), [Sample([A]), Sample([Z], desc="0-d")],
           covers=("alias", "unsqueeze")),
    OpCase("getitem_index", lambda T, x, i: (x[i], x[i, 1:], x[:, i[:2]]),
           [Sample([A, I(0, 2, 0, -1)], desc="dup"), Sample([B, I(1, 1, 0)], desc="3-d")],
           covers=("index", "slice")),
    OpCase("getitem_index2d", lambda T, x, i, j: (x[i, :, j], x[:, j % 3], x[i.int(), j % 3]),
           [Sample([B, I([0, 1], [1, 1]), I([3, 0], [-1, 3])])], covers=("index",)),
    OpCase("getitem_adv_mixed", _adv, [Sample([B])], covers=("index", "select", "slice")),
    OpCase("getitem_mask", lambda T, x, m: (x[m], x[:, m[0]], x[m[:, 2]], x[None, m], x[m, None], x[1:, m[1]]),
           [Sample([A, MASK])], covers=("index",)),
    OpCase("getitem_mask3d", lambda T, x, m: (x[:, m], x[1, m], x[m[:2, 0]], x[..., m[0]]),
           [Sample([B, MASK])], covers=("index", "select")),
    OpCase("getitem_bool_scalar", lambda T, x: (x[True], x[None, True], x[False, 1]),
           [Sample([A])], covers=("index", "unsqueeze", "select")),
    OpCase("getitem_0d", lambda T, x: (x[True], x[None], x[..., None], x[False]),
           [Sample([Z], desc="0-d")], covers=("index", "unsqueeze")),
    OpCase("setitem", _setitem, [Sample([A, arr(3, seed=3)])], covers=("index_put", "mul")),
    OpCase("setitem_mask", _setitem_mask,
           [Sample([A, arr(6, seed=3), MASK]), Sample([A, Z, MASK], desc="0-d value")],
           covers=("index_put", "index")),
    OpCase("setitem_tensor_idx", _setitem_tensor_idx,
           [Sample([A, arr(2, 4, seed=4), I(2, 0)]), Sample([A, arr(4, seed=4), I(1)], desc="broadcast")],
           covers=("index_put", "index")),
    OpCase("index_put", lambda T, x, v, i, j: (T.index_put(x, (i, j), v), x.index_put((j % 3,), v[:1, None]),
                                               (x * 1).index_put_((i,), v[0])),
           [Sample([A, arr(2, seed=5), I(2, 0), I(1, 3)])]),
    OpCase("index_put_accumulate", lambda T, x, v, i: (x.index_put((i,), v, accumulate=True),
                                                       T.index_put(x, (i, i), v[:, 0], True)),
           [Sample([A, arr(4, 4, seed=5), I(0, 2, 0, 0)], desc="dup")], covers=("index_put",)),
    OpCase("index_put_mask", lambda T, x, v, m: x.index_put((m,), v), [Sample([A, arr(6, seed=3), MASK])],
           covers=("index_put",)),
    OpCase("gather", lambda T, x, i: (T.gather(x, 1, i), x.gather(-1, i[:, :2]), T.gather(x, 0, i[:2] % 3)),
           [Sample([A, I([0, 0, 3], [1, 2, 1], [3, 0, 0])], desc="dup")]),
    OpCase("gather_3d", lambda T, x, i: (T.gather(x, 1, i), x.gather(-1, i.int())),
           [Sample([B, I([[0, 1], [2, 2]], [[1, 1], [0, 2]])])], covers=("gather",)),
    OpCase("gather_0d", lambda T, x, i: T.gather(x, 0, i), [Sample([Z, I(0, 0)]), Sample([Z, np.array(0)], desc="0-d index")],
           covers=("gather",)),
    OpCase("take_along_dim", lambda T, x, i: (T.take_along_dim(x, i, 1), x.take_along_dim(i[:1, :1], 0),
                                              T.take_along_dim(x, i % 3), T.take_along_dim(x, i[:, :1], -1)),
           [Sample([A, I([0, 3], [1, 1], [2, 0])])], covers=("gather", "expand"),
           # torch's take_along_dim without dim flattens with view() and so refuses
           # non-contiguous inputs (a PyTorch limitation, not a contract)
           noncontig=False),
    OpCase("scatter", lambda T, x, s, i: (T.scatter(x, 1, i, s), x.scatter(0, i[:1] % 3, s[:1])),
           [Sample([A, arr(3, 2, seed=5), I([0, 3], [1, 2], [3, 0])])]),
    OpCase("scatter_value", lambda T, x, i: (T.scatter(x, 1, i, 2.5), x.scatter(-1, i, value=-1.0)),
           [Sample([A, I([0, 3], [1, 2], [3, 0])])]),
    OpCase("scatter_inplace", lambda T, x, s, i: (x * 1).scatter_(1, i, s) + (x * 1).scatter_add_(0, i % 3, s),
           [Sample([A, arr(3, 2, seed=5), I([0, 3], [1, 2], [3, 0])])], covers=("scatter", "scatter_add", "mul")),
    OpCase("scatter_add", lambda T, x, s, i: (T.scatter_add(x, 1, i, s), x.scatter_add(0, i % 3, s), T.scatter_add(x, 0, i[:2] % 3, s[:2])),
           [Sample([A, arr(3, 3, seed=5), I([0, 0, 3], [1, 2, 1], [3, 3, 3])], desc="dup")]),
    OpCase("take", lambda T, x, i: (T.take(x, i), x.take(i[0])),
           [Sample([A, I([0, 11, 11], [-1, 3, 0])], desc="dup"), Sample([Z, I(0, -1)], desc="0-d")]),
    OpCase("index_select", lambda T, x, i: (T.index_select(x, 1, i), x.index_select(-2, i[:2] % 3),
                                            x.index_select(0, i[0])),
           [Sample([A, I(0, 3, 0)], desc="dup"), Sample([B, I(1, 1, 0)], desc="3-d")]),
    OpCase("index_select_0d", lambda T, x, i: (T.index_select(x, 0, i), T.index_select(x, 0, i[0])),
           [Sample([Z, I(0)])], covers=("index_select",)),
    OpCase("index_add", lambda T, x, s, i: (T.index_add(x, 1, i, s), x.index_add(-1, i, s, alpha=2.5),
                                            (x * 1).index_add_(0, i[:2] % 3, x[:2] * 2)),
           [Sample([A, arr(3, 3, seed=5), I(0, 3, 0)], desc="dup")]),
    # zero_size=False: the second call fills along the emptied dim 0 at indices 0 and 1; torch then
    # fails inside (setStorage ... out of bounds) rather than in its index check
    OpCase("index_fill", lambda T, x, i: (T.index_fill(x, 1, i, 2.5), x.index_fill(0, i[:2] % 2, -1),
                                          (x * 1).index_fill_(-1, i, 0.5)),
           [Sample([A, I(0, 3, 0)], desc="dup"), Sample([B, I(-1, 1)], desc="3-d")], zero_size=False),
    OpCase("index_fill_tensor", lambda T, x, v, i: (T.index_fill(x, 1, i, v), x.index_fill(-2, i % 3, v)),
           [Sample([A, Z, I(0, 3, 0)])], covers=("index_fill_tensor",),
           zero_size=False),     # as index_fill: its second call indexes the emptied dim
    OpCase("index_copy", lambda T, x, s, i: (T.index_copy(x, 1, i, s), x.index_copy(0, i[:2] % 3, x[1:] * 2),
                                             (x * 1).index_copy_(-1, i, s)),
           [Sample([A, arr(3, 3, seed=5), I(2, 0, 3)])]),
    OpCase("masked_fill", lambda T, x, m: (T.masked_fill(x, m, 2.5), x.masked_fill(m[0], -1),
                                           (x * 1).masked_fill_(~m, 0.0)),
           [Sample([A, MASK]), Sample([B, MASK], desc="3-d")]),
    OpCase("masked_fill_0d", lambda T, x, m: (T.masked_fill(x, m, 2.5), x.masked_fill(~m, 1)),
           [Sample([Z, np.array(True)], desc="0-d"), Sample([A, np.array(True)], desc="0-d mask")],
           covers=("masked_fill",)),
    OpCase("masked_fill_broadcast", lambda T, x, m: T.masked_fill(x, m, 2.5),
           [Sample([A[0], MASK]), Sample([A, MASK[:, :1]], desc="mask broadcast")], covers=("masked_fill",)),
    OpCase("masked_fill_tensor", lambda T, x, v, m: (T.masked_fill(x, m, v), x.masked_fill(m[1], v)),
           [Sample([A, Z, MASK]), Sample([B, Z, MASK], desc="3-d")]),
    OpCase("masked_select", lambda T, x, m: (T.masked_select(x, m), x.masked_select(m[0])),
           [Sample([A, MASK]), Sample([B, MASK], desc="broadcast"), Sample([A[0], MASK], desc="broadcast x")]),
    OpCase("nonzero", lambda T, x: (T.nonzero(x),) + T.nonzero(x, as_tuple=True) + (x.nonzero(),),
           [Sample([np.where(MASK, A, 0.0)]), Sample([B], desc="3-d"), Sample([Z], desc="0-d"),
            Sample([np.zeros(3)], desc="zeros")], differentiable=False),
    OpCase("where_one_arg", lambda T, x: T.where(x > 0), [Sample([A])], covers=("nonzero", "gt"),
           differentiable=False),
]
