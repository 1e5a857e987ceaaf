"""Table entries for ops/indexing.py (__getitem__/__setitem__, index_put, gather/scatter,
index_*, masks, take, nonzero)."""
import numpy as np

from . import E, OpCase, Sample, arr

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


XI = np.arange(12.0).reshape(3, 4)       # the tensor test_indexing's error cases used
F32 = np.ones((1, 1), np.float32)
GI = I([0, 0, 3], [1, 2, 1], [3, 0, 0])
SI = I([0, 3], [1, 2], [3, 0])
SRC = arr(3, 2, seed=5)


def _set(T, x, key, value):
    y = x.clone()
    y[key] = value
    return y


def _get(key):
    return lambda T, x: x[key]


def _get_t(key):
    """``x[key]`` with the tensors in ``key`` made by the library under test."""
    return lambda T, x: x[key(T)]


def _shape(a, b):
    return (f"The shape of the mask {a} at index {b[1]} does not match the shape of the indexed tensor {b[0]} "
            f"at index {b[1]}")


OOB = "index {} is out of bounds for dimension {} with size {}"
IDX = ("x", "dim", "index")

def _slice_backward(T, g):
    """The gradient of ``x[:, 1:4:2]`` for x of shape (3, 6): the slice op's backward
    (``torch.ops.aten.slice_backward``), differentiable again."""
    f = T.ops.aten.slice_backward if T.__name__ == "torch" else T.ops.indexing._slice_backward
    return f(g, [3, 6], 1, 1, 4, 2)


def _select_backward(T, g):
    """The gradient of ``x[:, -2]`` for x of shape (3, 6) (``torch.ops.aten.select_backward``)."""
    f = T.ops.aten.select_backward if T.__name__ == "torch" else T.ops.indexing._select_backward
    return f(g, [3, 6], 1, -2)


def _put_ref(x, i, s, accumulate=False):
    out = np.array(x, order="C")
    flat = out.reshape(-1)
    i = np.asarray(i).reshape(-1) % flat.size
    if accumulate:
        np.add.at(flat, i, np.asarray(s).reshape(-1))
    else:
        flat[i] = np.asarray(s).reshape(-1)
    return out


CASES = [
    OpCase("slice_backward", _slice_backward, [Sample([arr(3, 2, seed=7)])], covers=("slice_backward",)),
    OpCase("select_backward", _select_backward, [Sample([arr(3, seed=8)])], covers=("select_backward",)),
    OpCase("getitem_basic", _basic, [Sample([A]), Sample([B], desc="3-d")], covers=("select", "slice", "unsqueeze"),
           errors=[E(IndexError, OOB.format(5, 0, 3), XI, fn=_get(5), desc="int oob"),
                   E(IndexError, OOB.format(5, 1, 4), XI, fn=_get((0, 5)), desc="int oob dim 1"),
                   E(IndexError, OOB.format(-4, 0, 3), XI, fn=_get(-4), desc="negative oob"),
                   E(IndexError, "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                     "are valid indices (got float)", XI, fn=_get(1.5), desc="float"),
                   E(ValueError, "step must be greater than zero", XI, fn=_get(slice(None, None, -1)),
                     desc="negative step"),
                   E(ValueError, "slice step cannot be zero", XI, fn=_get(slice(None, None, 0)), desc="zero step"),
                   E(IndexError, "too many indices for tensor of dimension 2", XI, fn=_get((1, 2, 3)),
                     desc="too many")]),
    OpCase("getitem_alias", lambda T, x: (x[...], x[()], x[None]), [Sample([A]), Sample([Z], desc="0-d")],
           covers=("alias", "unsqueeze"),
           errors=[E(IndexError, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                     "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number", Z, fn=_get(0), desc="0-d int"),
                   E(IndexError, "too many indices for tensor of dimension 0", Z, fn=_get((0, None)),
                     desc="0-d int None"),
                   E(IndexError, "slice() cannot be applied to a 0-dim tensor.", Z, fn=_get(slice(0, 1)),
                     desc="0-d slice")]),
    OpCase("getitem_index", lambda T, x, i: (x[i], x[i, 1:], x[:, i[:2]]),
           [Sample([A, I(0, 2, 0, -1)], desc="dup"), Sample([B, I(1, 1, 0)], desc="3-d")],
           covers=("index", "slice"),
           errors=[E(IndexError, OOB.format(5, 0, 3), XI, I(1, 5), fn=lambda T, x, i: x[i], desc="oob"),
                   E(IndexError, "tensors used as indices must be long, int, byte or bool tensors", XI,
                     np.array([1.0, 2.0]), fn=lambda T, x, i: x[i], desc="float index")]),
    OpCase("getitem_index2d", lambda T, x, i, j: (x[i, :, j], x[:, j % 3], x[i.int(), j % 3]),
           [Sample([B, I([0, 1], [1, 1]), I([3, 0], [-1, 3])])], covers=("index",),
           errors=[E(IndexError, "shape mismatch: indexing tensors could not be broadcast together with shapes "
                     "[2], [3]", XI, fn=_get(([0, 1], [1, 2, 3])), desc="broadcast")]),
    OpCase("getitem_adv_mixed", _adv, [Sample([B])], covers=("index", "select", "slice")),
    OpCase("getitem_mask", lambda T, x, m: (x[m], x[:, m[0]], x[m[:, 2]], x[None, m], x[m, None], x[1:, m[1]]),
           [Sample([A, MASK])], covers=("index",),
           errors=[E(IndexError, _shape("[2]", ("[3, 4]", 0)), XI, np.array([True, False]),
                     fn=lambda T, x, m: x[m], desc="mask length"),
                   E(IndexError, _shape("[3, 3]", ("[3, 4]", 1)), XI, np.ones((3, 3), bool),
                     fn=lambda T, x, m: x[m], desc="mask shape")]),
    OpCase("getitem_mask3d", lambda T, x, m: (x[:, m], x[1, m], x[m[:2, 0]], x[..., m[0]]),
           [Sample([B, MASK])], covers=("index", "select")),
    OpCase("getitem_bool_scalar", lambda T, x: (x[True], x[None, True], x[False, 1]),
           [Sample([A])], covers=("index", "unsqueeze", "select")),
    OpCase("getitem_0d", lambda T, x: (x[True], x[None], x[..., None], x[False]),
           [Sample([Z], desc="0-d")], covers=("index", "unsqueeze")),
    OpCase("setitem", _setitem, [Sample([A, arr(3, seed=3)])], covers=("index_put", "mul"),
           errors=[E(RuntimeError, "The expanded size of the tensor (4) must match the existing size (3) at "
                     "non-singleton dimension 0.  Target sizes: [4].  Tensor sizes: [3]", XI, np.ones(3),
                     fn=lambda T, x, v: _set(T, x, 0, v), desc="shape"),
                   E(RuntimeError, "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing "
                     "result of shape [2, 4]", XI, I(0, 1), np.ones(3),
                     fn=lambda T, x, i, v: _set(T, x, i, v), desc="shape advanced"),
                   E(RuntimeError, "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing "
                     "result of shape [8]", XI, np.ones(3), fn=lambda T, x, v: _set(T, x, x > 3, v), desc="mask"),
                   E(IndexError, OOB.format(5, 0, 3), XI, fn=lambda T, x: _set(T, x, 5, 1.0), desc="oob"),
                   E(ValueError, "step must be greater than zero", XI,
                     fn=lambda T, x: _set(T, x, slice(None, None, -1), 1.0), desc="negative step"),
                   E(TypeError, r"^can't assign a list to a (torch|tensorplay)\.DoubleTensor$", XI, regex=True,
                     fn=lambda T, x: _set(T, x, 0, [1.0]), desc="list value"),
                   E(RuntimeError, "value cannot be converted to type double without overflow", XI,
                     fn=lambda T, x: _set(T, x, 0, 1j), desc="complex value"),
                   E(IndexError, "too many indices for tensor of dimension 2", XI,
                     fn=lambda T, x: _set(T, x, (0, 0, 0), 1.0), desc="too many")]),
    OpCase("setitem_mask", _setitem_mask,
           [Sample([A, arr(6, seed=3), MASK]), Sample([A, Z, MASK], desc="0-d value")],
           covers=("index_put", "index")),
    OpCase("setitem_tensor_idx", _setitem_tensor_idx,
           [Sample([A, arr(2, 4, seed=4), I(2, 0)]), Sample([A, arr(4, seed=4), I(1)], desc="broadcast")],
           covers=("index_put", "index")),
    OpCase("index_put", lambda T, x, v, i, j: (T.index_put(x, (i, j), v), x.index_put((j % 3,), v[:1, None]),
                                               (x * 1).index_put_((i,), v[0])),
           [Sample([A, arr(2, seed=5), I(2, 0), I(1, 3)])],
           errors=[E(RuntimeError, "Index put requires the source and destination dtypes match, got Double for "
                     "the destination and Float for the source.", XI, I(0), np.array(1.0, np.float32),
                     fn=lambda T, x, i, v: x.index_put((i,), v), desc="dtype"),
                   E(RuntimeError, "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing "
                     "result of shape [2, 4]", XI, I(0, 0), np.ones(3),
                     fn=lambda T, x, i, v: x.index_put((i,), v), desc="shape"),
                   E(TypeError, "expected Tensor as element 1 in argument 0, but got NoneType", XI, I(0),
                     np.array(1.0), fn=lambda T, x, i, v: x.index_put((i, None), v), desc="None index")]),
    OpCase("index_put_accumulate", lambda T, x, v, i: (x.index_put((i,), v, accumulate=True),
                                                       T.index_put(x, (i, i), v[:, 0], True)),
           [Sample([A, arr(4, 4, seed=5), I(0, 2, 0, 0)], desc="dup")], covers=("index_put",)),
    OpCase("index_put_mask", lambda T, x, v, m: x.index_put((m,), v), [Sample([A, arr(6, seed=3), MASK])],
           covers=("index_put",)),
    OpCase("gather", args=IDX,
           samples=[Sample([A, GI], {"dim": 1}, desc="dup"), Sample([A, GI[:, :2]], {"dim": -1}, desc="neg dim"),
                    Sample([A, GI[:2] % 3], {"dim": 0}, desc="dim 0")],
           ref=lambda x, i, dim: np.take_along_axis(                 # gather reads the leading block
               x[tuple(slice(None) if d == dim % x.ndim else slice(0, n) for d, n in enumerate(i.shape))], i, dim),
           errors=[E(RuntimeError, "gather(): Expected dtype int32/int64 for index", XI, np.array([[0.0]]), dim=1,
                     desc="float index"),
                   E(RuntimeError, "Index tensor must have the same number of dimensions as input tensor", XI, I(0),
                     dim=1, desc="index rank"),
                   E(RuntimeError, "Size does not match at dimension 0 expected index [4, 2] to be no larger than "
                     "self [3, 4] apart from dimension 1", XI, np.zeros((4, 2), np.int64), dim=1, desc="index size"),
                   E(RuntimeError, OOB.format(5, 1, 4), XI, I([5]), dim=1, desc="oob"),
                   E(RuntimeError, OOB.format(-1, 1, 4), XI, I([-1]), dim=1, desc="negative")]),
    OpCase("gather_3d", func="gather", args=IDX,
           samples=[Sample([B, I([[0, 1], [2, 2]], [[1, 1], [0, 2]])], {"dim": 1}),
                    Sample([B, I([[0, 1], [2, 2]], [[1, 1], [0, 2]]).astype(np.int32)], {"dim": -1}, desc="int32")]),
    OpCase("gather_0d", func="gather", args=IDX,
           samples=[Sample([Z, I(0, 0)], {"dim": 0}), Sample([Z, np.array(0)], {"dim": 0}, desc="0-d index")]),
    OpCase("take_along_dim", op="gather",
           samples=[Sample([A, I([0, 3], [1, 1], [2, 0])], {"dim": 1}),
                    Sample([A, I([0, 3], [1, 1], [2, 0])[:1, :1]], {"dim": 0}, desc="broadcast"),
                    Sample([A, I([0, 3], [1, 1], [2, 0]) % 3], desc="flat"),
                    Sample([A, I([0, 3], [1, 1], [2, 0])[:, :1]], {"dim": -1}, desc="neg dim")],
           covers=("gather", "expand"),
           errors=[E(RuntimeError, r"^(torch|tensorplay)\.take_along_dim\(\): input and indices should have the "
                     r"same number of dimensions, but got 2 dimensions for input, and 1 dimensions for indices$",
                     XI, I(0), dim=1, regex=True)]),
    OpCase("scatter", args=("x", "dim", "index", "src"),
           samples=[Sample([A, SI, SRC], {"dim": 1}), Sample([A, SI[:1] % 3, SRC[:1]], {"dim": 0}, desc="dim 0")],
           errors=[E(RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype", XI, I([0]), F32, dim=1,
                     desc="src dtype"),
                   E(RuntimeError, "Expected index [2, 3] to be no larger than self [3, 4] apart from dimension 1 and "
                     "to be no larger size than src [2, 2]", XI, np.zeros((2, 3), np.int64), np.ones((2, 2)), dim=1,
                     desc="index size")]),
    OpCase("scatter_value", func="scatter", args=("x", "dim", "index", "value"),
           samples=[Sample([A, SI], {"dim": 1, "value": 2.5}),
                    Sample([A, SI], {"dim": -1, "value": -1.0}, desc="neg dim")],
           errors=[E(RuntimeError, "scatter(): Expected dtype int32/int64 for index", XI, np.array([[0.0]]), dim=1,
                     value=1.0, desc="float index"),
                   E(RuntimeError, "Index tensor must have the same number of dimensions as self tensor", XI, I(0),
                     dim=1, value=1.0, desc="index rank"),
                   E(RuntimeError, OOB.format(4, 1, 4), XI, I([4]), dim=1, value=1.0, desc="oob")]),
    OpCase("scatter_inplace", lambda T, x, s, i: (x * 1).scatter_(1, i, s) + (x * 1).scatter_add_(0, i % 3, s),
           [Sample([A, SRC, SI])], covers=("scatter", "scatter_add", "mul", "add")),
    OpCase("scatter_add", args=("x", "dim", "index", "src"),
           samples=[Sample([A, I([0, 0, 3], [1, 2, 1], [3, 3, 3]), arr(3, 3, seed=5)], {"dim": 1}, desc="dup"),
                    Sample([A, I([0, 0, 3], [1, 2, 1], [3, 3, 3]) % 3, arr(3, 3, seed=5)], {"dim": 0}, desc="dim 0"),
                    Sample([A, I([0, 0, 3], [1, 2, 1])[:2] % 3, arr(3, 3, seed=5)[:2]], {"dim": 0}, desc="2 rows")],
           errors=[E(RuntimeError, OOB.format(4, 1, 4), XI, I([4]), np.ones((1, 1)), dim=1, desc="oob")]),
    OpCase("take", samples=[Sample([A, I([0, 11, 11], [-1, 3, 0])], desc="dup"),
                            Sample([A, I([0, 11, 11], [-1, 3, 0])[0]], desc="1-d index"),
                            Sample([Z, I(0, -1)], desc="0-d"), Sample([Z, I(0, -1)[0]], desc="0-d 0-d index")],
           ref=lambda x, i: np.take(x, i),
           errors=[E(IndexError, "out of range: tried to access index 12 on a tensor of 12 elements.", XI, I(12),
                     desc="oob"),
                   E(RuntimeError, "take(): Expected a long tensor for index, but got Float",
                     XI, np.array([1.0], np.float32), desc="float index")]),
    OpCase("put", samples=[Sample([A, I([0, 5, 11]), arr(3, seed=71)], desc="distinct"),
                           Sample([A, I([[-1, 2], [4, 7]]), arr(2, 2, seed=72)], desc="negative, 2-d index"),
                           Sample([A, I([3, 3, 0]), arr(3, seed=73)], {"accumulate": True}, desc="accumulate"),
                           Sample([Z, I(0), arr(seed=74)], desc="0-d")],
           ref=lambda x, i, s, accumulate=False: _put_ref(x, i, s, accumulate),
           errors=[E(IndexError, "out of range: tried to access index 12 on a tensor of 12 elements.", XI, I([12]),
                     np.ones(1), desc="oob"),
                   E(RuntimeError, "put_(): Expected a long tensor for index, but got Float",
                     XI, np.array([1.0], np.float32), np.ones(1), desc="float index")]),
    OpCase("index_select", args=IDX,
           samples=[Sample([A, I(0, 3, 0)], {"dim": 1}, desc="dup"), Sample([A, I(0, 3) % 3], {"dim": -2}, desc="neg"),
                    Sample([A, np.array(0)], {"dim": 0}, desc="0-d index"),
                    Sample([B, I(1, 1, 0)], {"dim": 1}, desc="3-d"),
                    Sample([B, I(1, 1) % 3], {"dim": -2}, desc="3-d neg"),
                    Sample([B, np.array(1)], {"dim": 0}, desc="3-d 0-d index")],
           ref=lambda x, i, dim: np.take(x, np.reshape(i, -1), dim),
           # x[:, ..., idx] is index_select along dim for a 1-d index
           operator=lambda x, i, dim: x[(slice(None),) * (dim % x.dim()) + (i.reshape(-1),)],
           errors=[E(IndexError, "index_select(): Index is supposed to be a vector", XI, I([0]), dim=1,
                     desc="2-d index"),
                   E(RuntimeError, "index_select(): Expected dtype int32 or int64 for index", XI, np.array([0.0]),
                     dim=1, desc="float index"),
                   E(RuntimeError, "INDICES element is out of DATA bounds, id=4 axis_dim=4", XI, I(0, 4), dim=1,
                     desc="oob"),
                   E(IndexError, "index out of range in self", XI, I(0, 4), dim=0, desc="oob dim 0"),
                   E(IndexError, "index out of range in self", XI, I(-1), dim=0, desc="oob negative")]),
    OpCase("index_select_0d", func="index_select", args=IDX, operator=False,
           samples=[Sample([Z, I(0)], {"dim": 0}), Sample([Z, np.array(0)], {"dim": 0}, desc="0-d index")]),
    OpCase("index_add", args=("x", "dim", "index", "source"),
           samples=[Sample([A, I(0, 3, 0), arr(3, 3, seed=5)], {"dim": 1}, desc="dup"),
                    Sample([A, I(0, 3, 0), arr(3, 3, seed=5)], {"dim": -1, "alpha": 2.5}, desc="alpha"),
                    Sample([A, I(0, 3) % 3, A[:2] * 2], {"dim": 0}, desc="dim 0")],
           errors=[E(RuntimeError, "index_add_(): Number of indices (2) should be equal to source.size(dim): (3), for "
                     "dim: 1", XI, I(0, 0), np.ones((3, 3)), dim=1, desc="source size"),
                   E(RuntimeError, OOB.format(4, 1, 4), XI, I(0, 4), np.ones((3, 2)), dim=1, desc="oob")]),
    OpCase("index_fill", args=("x", "dim", "index", "value"),
           samples=[Sample([A, I(0, 3, 0)], {"dim": 1, "value": 2.5}, desc="dup"),
                    Sample([A, I(0, 3) % 2], {"dim": 0, "value": -1}, desc="dim 0"),
                    Sample([A, I(0, 3, 0)], {"dim": -1, "value": 0.5}, desc="neg dim"),
                    Sample([B, I(-1, 1)], {"dim": 1, "value": 2.5}, desc="3-d"),
                    Sample([B, I(-1, 1) % 2], {"dim": 0, "value": -1}, desc="3-d dim 0"),
                    Sample([B, I(-1, 1)], {"dim": -1, "value": 0.5}, desc="3-d neg dim")],
           errors=[E(IndexError, OOB.format(4, 1, 4), XI, I(4), dim=1, value=1.0, desc="oob")]),
    OpCase("index_fill_tensor", func="index_fill", args=("x", "dim", "index", "value"),
           samples=[Sample([A, I(0, 3, 0), Z], {"dim": 1}),
                    Sample([A, I(0, 3, 0) % 3, Z], {"dim": -2}, desc="neg dim")],
           errors=[E(RuntimeError, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
                     "dimension(s).", XI, I(0), np.array([1.0]), dim=1, desc="1-d value")]),
    OpCase("index_copy", args=("x", "dim", "index", "source"),
           samples=[Sample([A, I(2, 0, 3), arr(3, 3, seed=5)], {"dim": 1}),
                    Sample([A, I(2, 0) % 3, A[1:] * 2], {"dim": 0}, desc="dim 0"),
                    Sample([A, I(2, 0, 3), arr(3, 3, seed=5)], {"dim": -1}, desc="neg dim")],
           errors=[E(IndexError, "index_copy_(): index 4 is out of bounds for dimension 1 with size 4", XI, I(0, 4),
                     np.ones((3, 2)), dim=1, desc="oob"),
                   E(IndexError, "index_copy_(): Number of indices (2) should be equal to source.size(dim) (3)", XI,
                     I(0, 1), np.ones((3, 3)), dim=1, desc="source size")]),
    OpCase("masked_fill",
           samples=[Sample([A, MASK], {"value": 2.5}), Sample([A, MASK[0]], {"value": -1}, desc="row mask"),
                    Sample([A, ~MASK], {"value": 0.0}, desc="negated"),
                    Sample([B, MASK], {"value": 2.5}, desc="3-d"),
                    Sample([B, MASK[0]], {"value": -1}, desc="3-d row mask"),
                    Sample([B, ~MASK], {"value": 0.0}, desc="3-d negated"),
                    Sample([Z, np.array(True)], {"value": 2.5}, desc="0-d"),
                    Sample([Z, np.array(False)], {"value": 1}, desc="0-d false"),
                    Sample([A, np.array(True)], {"value": 2.5}, desc="0-d mask"),
                    Sample([A, np.array(False)], {"value": 1}, desc="0-d mask false"),
                    Sample([A[0], MASK], {"value": 2.5}, desc="x broadcast"),
                    Sample([A, MASK[:, :1]], {"value": 2.5}, desc="mask broadcast")],
           ref=lambda x, m, value: np.where(m, value, x),
           errors=[E(RuntimeError, "masked_fill_ only supports boolean masks, but got mask with dtype float",
                     XI, np.ones((3, 4), np.float32), value=1.0, desc="float mask"),
                   E(RuntimeError, "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                     "dimension 1", XI, np.ones(3, bool), value=1.0, desc="mask shape")]),
    OpCase("masked_fill_tensor", func="masked_fill",
           samples=[Sample([A, MASK, Z]), Sample([A, MASK[1], Z], desc="row mask"), Sample([B, MASK, Z], desc="3-d"),
                    Sample([B, MASK[1], Z], desc="3-d row mask")],
           errors=[E(RuntimeError, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
                     "dimension(s).", XI, np.ones((3, 4), bool), np.array([1.0]), desc="1-d value")]),
    OpCase("masked_select",
           samples=[Sample([A, MASK]), Sample([A, MASK[0]], desc="row mask"), Sample([B, MASK], desc="broadcast"),
                    Sample([B, MASK[0]], desc="broadcast row mask"), Sample([A[0], MASK], desc="broadcast x"),
                    Sample([A[0], MASK[0]], desc="1-d")],
           ref=lambda x, m: np.broadcast_to(x, np.broadcast_shapes(x.shape, m.shape))[
               np.broadcast_to(m, np.broadcast_shapes(x.shape, m.shape))],
           errors=[E(RuntimeError, "masked_select: expected BoolTensor for mask", XI, np.ones((3, 4), np.float32),
                     desc="float mask"),
                   E(RuntimeError, "The size of tensor a (5) must match the size of tensor b (4) at non-singleton "
                     "dimension 1", XI, np.ones(5, bool), desc="mask shape")]),
    OpCase("nonzero", samples=[Sample([np.where(MASK, A, 0.0)]), Sample([np.where(MASK, A, 0.0)], {"as_tuple": True},
                                                                          desc="tuple"),
                               Sample([B], desc="3-d"), Sample([B], {"as_tuple": True}, desc="3-d tuple"),
                               Sample([Z], desc="0-d"), Sample([Z], {"as_tuple": True}, desc="0-d tuple"),
                               Sample([np.zeros(3)], desc="zeros"), Sample([np.zeros(3)], {"as_tuple": True},
                                                                           desc="zeros tuple")],
           ref=lambda x, as_tuple=False: np.nonzero(np.atleast_1d(x)) if as_tuple else np.argwhere(x)),
    OpCase("where_one_arg", lambda T, x: T.where(x > 0), [Sample([A])], covers=("nonzero", "gt"),
           differentiable=False),
]
