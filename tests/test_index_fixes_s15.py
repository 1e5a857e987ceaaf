"""Indexing, scatter and split fixes (session 15): half/bfloat16 scatter_reduce
accumulation, 0-d NumPy keys, tensor_split's pieces as slices, ``out=`` of the
scatter/index family, unsafe_split/unsafe_chunk, as_strided_scatter,
Tensor.is_set_to, and the dtype rule of ``x[adv] = v``."""
import warnings

import numpy as np
import pytest

import tensorplay as tp
from conftest import exact, lst

H, BF = ("float16", "bfloat16")


def _i(T, a):
    return T.tensor(np.array(a, dtype=np.int64))


# ----------------------------------------------------------------------------- 1. scatter_reduce
@pytest.mark.parametrize("dt,sum_,mean", [(H, 300.0, 0.0999755859375), (BF, 300.0, 0.099609375)])
def test_low_precision_scatter_reduce_sums_in_float32(T, dt, sum_, mean):
    # 3000 x 0.1 into one slot: half summed in its own dtype stops at 256 (bfloat16 at 32)
    d = getattr(T, dt)
    x = T.zeros(2, dtype=d)
    v = T.full((3000,), 0.1, dtype=d)
    i = T.zeros(3000, dtype=T.long)
    assert float(x.scatter_reduce(0, i, v, "sum")[0]) == sum_
    assert float(x.scatter_reduce(0, i, v, "sum", include_self=False)[0]) == sum_
    assert float(x.scatter_reduce(0, i, v, "mean")[0]) == mean
    y = T.zeros(2, dtype=d)
    y.scatter_reduce_(0, i, v, "sum")
    assert lst(y.float()) == [sum_, 0.0]
    assert x.scatter_reduce(0, i, v, "sum").dtype == d


@pytest.mark.parametrize("dt,want", [(H, 0.1016845703125), (BF, 0.1015625)])
def test_low_precision_scatter_reduce_mean_counts_in_the_dtype(T, dt, want):
    # the sum and the count (3001: 3000 in half, 3008 in bfloat16) are each rounded first
    d = getattr(T, dt)
    x = T.full((2,), 5.0, dtype=d)
    r = x.scatter_reduce(0, T.zeros(3000, dtype=T.long), T.full((3000,), 0.1, dtype=d), "mean")
    assert float(r[0]) == want


def test_half_scatter_reduce_prod_in_float32(T):
    x = T.ones(2, dtype=T.float16)
    v = T.full((3000,), 1.001, dtype=T.float16)         # 1.0009765625 in half
    i = T.zeros(3000, dtype=T.long)
    assert float(x.scatter_reduce(0, i, v, "prod")[0]) == 18.6875
    assert float(x.scatter_reduce(0, i, v, "prod", include_self=False)[0]) == 18.6875


def test_legacy_scatter_reduce_add_sums_half_in_float32(T):
    x = T.full((2,), 5.0, dtype=T.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = x.scatter(0, T.zeros(3000, dtype=T.long), T.full((3000,), 0.1, dtype=T.float16), reduce="add")
    assert lst(r.float()) == [305.0, 5.0]


def test_index_reduce_keeps_its_own_dtype_accumulation(T):
    # PyTorch's index_reduce sums and counts half in half: 256 / 2048 (bfloat16: 32 / 256)
    for dt in (T.float16, T.bfloat16):
        x = T.zeros(1, dtype=dt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = x.index_reduce(0, T.zeros(3000, dtype=T.long), T.full((3000,), 0.1, dtype=dt), "mean",
                               include_self=False)
        assert float(r[0]) == 0.125


@pytest.mark.parametrize("dt", [H, BF])
def test_low_precision_scatter_reduce_matches_torch(torch_or_skip, dt):
    torch = torch_or_skip
    rng = np.random.default_rng(5)
    for red in ("sum", "mean", "prod", "amax", "amin"):
        for inc in (True, False):
            n = int(rng.integers(50, 400))
            x = rng.uniform(0.5, 1.5, (3, 4)).astype(np.float32)
            src = (rng.uniform(0.9, 1.1, (n, 4)) if red == "prod" else rng.uniform(-2, 2, (n, 4)))
            src = src.astype(np.float32)
            idx = rng.integers(0, 3, (n, 4))
            got = []
            for L in (tp, torch):
                d = getattr(L, dt)
                r = L.tensor(x).to(d).scatter_reduce(0, L.tensor(idx), L.tensor(src).to(d), red,
                                                     include_self=inc)
                got.append(np.array(r.float().tolist()))
            np.testing.assert_array_equal(got[0], got[1], err_msg=f"{dt} {red} {inc}")


def test_half_scatter_reduce_mean_gradients_as_torch(T):
    x = T.zeros(2, dtype=T.float16, requires_grad=True)
    v = T.full((5,), 0.1, dtype=T.float16, requires_grad=True)
    x.scatter_reduce(0, T.zeros(5, dtype=T.long), v, "mean").sum().backward()
    assert lst(x.grad.float()) == [0.1666259765625, 1.0]
    assert lst(v.grad.float()) == [0.1666259765625] * 5


@pytest.mark.parametrize("red", ["sum", "mean", "prod", "amax", "amin"])
def test_scatter_reduce_float64_gradcheck(red):
    rng = np.random.default_rng(2)
    x = tp.tensor(rng.uniform(0.5, 1.5, (3, 4)), requires_grad=True)
    s = tp.tensor(rng.uniform(0.5, 1.5, (5, 4)), requires_grad=True)
    i = tp.tensor(rng.integers(0, 3, (5, 4)))
    for inc in (True, False):
        assert tp.autograd.gradcheck(lambda a, b: a.scatter_reduce(0, i, b, red, include_self=inc), (x, s))


# ----------------------------------------------------------------------------- 2. 0-d NumPy keys
@pytest.mark.parametrize("k", [np.array(1), np.array(1, np.int32), np.array(1, np.int8),
                               np.array(1, np.uint16), np.array(-2)])
def test_numpy_0d_integer_key_is_a_select_view(T, k):
    x = T.zeros(3, 2)
    y = x[k]
    assert tuple(y.shape) == (2,) and y._is_view()
    y.fill_(7.0)
    assert lst(x) == [[0.0, 0.0], [7.0, 7.0], [0.0, 0.0]]
    xr = T.zeros(3, 2, requires_grad=True) * 1
    assert type(xr[k].grad_fn).__name__ == "SelectBackward0"
    x = T.zeros(3, 2)
    x[k] = 5.0
    assert lst(x) == [[0.0, 0.0], [5.0, 5.0], [0.0, 0.0]]


def test_numpy_0d_keys_inside_tuples(T):
    x = T.arange(6.0).reshape(3, 2)
    assert x[np.array(1), np.array(0)].item() == 2.0
    assert lst(x[:, np.array(1)]) == [1.0, 3.0, 5.0]
    assert lst(x[np.array(-1.7)]) == [4.0, 5.0]           # (a float one is truncated, as PyTorch)
    with pytest.raises(IndexError, match=exact("index 5 is out of bounds for dimension 0 with size 3")):
        x[np.array(5)]


def test_numpy_bool_keys(T):
    x = T.arange(6.0).reshape(3, 2)
    assert tuple(x[np.array(True)].shape) == (1, 3, 2)
    assert tuple(x[np.array(False)].shape) == (0, 3, 2)
    assert not x[np.array(True)]._is_view()
    msg = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
           "indices (got numpy.bool)")
    for k in (np.bool_(True), (0, np.bool_(False))):
        with pytest.raises(IndexError, match=exact(msg)):
            x[k]
    with pytest.raises(IndexError, match=exact(msg)):
        x[np.True_] = 1.0
    with pytest.raises(IndexError, match=exact(msg.replace("numpy.bool", "numpy.float64"))):
        x[np.float64(1.0)]


def test_key_dimensions_are_counted_before_the_items(T):
    z = T.tensor(5.0)
    for k in (np.array(0), np.array(True), (0,), 1.5, (None, np.array(0)), T.tensor(0)):
        with pytest.raises(IndexError, match=exact("too many indices for tensor of dimension 0")):
            z[k]
    with pytest.raises(IndexError, match=exact("index 1 is out of bounds for dimension 0 with size 0")):
        z[1]
    with pytest.raises(IndexError, match="^invalid index of a 0-dim tensor"):
        z[0]
    with pytest.raises(IndexError, match=exact("too many indices for tensor of dimension 2")):
        T.zeros(2, 2)[0, 0, 1.5]
    assert tuple(z[True].shape) == (1,)


# ----------------------------------------------------------------------------- 3. tensor_split slices
@pytest.mark.parametrize("name,f,idx", [
    ("hsplit", lambda x: x.hsplit(3), 0), ("vsplit", lambda x: x.vsplit(2), 1),
    ("dsplit", lambda x: x.dsplit(2), 1), ("tensor_split", lambda x: x.tensor_split(3), 0),
    ("tensor_split dim", lambda x: x.tensor_split(4, 1), 2),
    ("tensor_split tensor", lambda x: x.tensor_split(tp.tensor(2) if isinstance(x, tp.Tensor) else
                                                     __import__("torch").tensor(2), 1), 1)])
def test_tensor_split_sections_are_slices_writable_in_place(T, name, f, idx):
    x0 = T.ones(4, 6, 4, requires_grad=True)
    x = x0 * 1
    pieces = f(x)
    assert all(type(p.grad_fn).__name__ == "SliceBackward0" for p in pieces), name
    assert all(p._base is x for p in pieces)
    p = pieces[idx]
    p.mul_(3)
    x.sum().backward()
    g = x0.grad
    assert float(g.sum()) == 96 + 2 * p.numel()
    assert float(g.max()) == 3.0


def test_tensor_split_sections_sizes_unchanged(T):
    x = T.arange(7.0)
    assert [lst(p) for p in x.tensor_split(3)] == [[0.0, 1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert [lst(p) for p in x.tensor_split(9)] == [[0.0], [1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [], []]


# ----------------------------------------------------------------------------- 4. out=
def _outs(T):
    x = T.arange(12.0).reshape(3, 4)
    return {
        "take": (lambda o: T.take(x, _i(T, [0, 5]), out=o), (2,), [0.0, 5.0]),
        "index_add": (lambda o: T.index_add(x, 0, _i(T, [0]), T.ones(1, 4), alpha=2, out=o), (3, 4),
                      [2.0, 3.0, 4.0, 5.0]),
        "index_copy": (lambda o: T.index_copy(x, 0, _i(T, [0]), T.ones(1, 4), out=o), (3, 4), [1.0] * 4),
        "scatter": (lambda o: T.scatter(x, 0, _i(T, [[0]]), T.full((1, 1), -1.0), out=o), (3, 4),
                    [-1.0, 1.0, 2.0, 3.0]),
        "scatter_value": (lambda o: T.scatter(x, 0, _i(T, [[0]]), -2.0, out=o), (3, 4),
                          [-2.0, 1.0, 2.0, 3.0]),
        "scatter_add": (lambda o: T.scatter_add(x, 0, _i(T, [[0]]), T.ones(1, 1), out=o), (3, 4),
                        [1.0, 1.0, 2.0, 3.0]),
    }


@pytest.mark.parametrize("name", ["take", "index_add", "index_copy", "scatter", "scatter_value",
                                  "scatter_add"])
def test_out_of_the_scatter_and_index_family(T, name):
    f, shape, first = _outs(T)[name]
    o = T.empty(shape)
    v = o._version
    r = f(o)
    assert r is o and o._version > v
    assert lst(o.reshape(-1))[:len(first)] == first
    o = T.empty(0)                          # (an empty out is resized silently)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(o)
    assert tuple(o.shape) == shape


@pytest.mark.parametrize("name", ["index_add", "index_copy", "scatter", "scatter_value", "scatter_add"])
def test_out_dtype_must_be_the_results(T, name):
    f, shape, _ = _outs(T)[name]
    with pytest.raises(RuntimeError, match=exact("Expected out tensor to have dtype float, but got double instead")):
        f(T.empty(shape, dtype=T.float64))
    with pytest.raises(RuntimeError, match=exact("Expected out tensor to have dtype float, but got long int instead")):
        f(T.empty(shape, dtype=T.long))


def test_take_out_dtype_and_overlap(T):
    x = T.arange(12.0).reshape(3, 4)
    with pytest.raises(RuntimeError, match=exact("take(): self and out expected to have the same dtype, but "
                                                 "got self.dtype = Float and out.dtype = Long")):
        T.take(x, _i(T, [0]), out=T.empty(1, dtype=T.long))
    with pytest.raises(RuntimeError, match="^unsupported operation: some elements of the input tensor"):
        T.take(x, _i(T, [0, 1]), out=x[0, :2])


def test_out_refuses_autograd_but_scatter_reduce_form_takes_grad_inputs(T):
    x = T.ones(3, 4, requires_grad=True)
    for name, call in (("index_add", lambda o: T.index_add(x, 0, _i(T, [0]), T.ones(1, 4), out=o)),
                       ("scatter_add", lambda o: T.scatter_add(x, 0, _i(T, [[0]]), T.ones(1, 1), out=o)),
                       ("take", lambda o: T.take(x, _i(T, [0]), out=o))):
        with pytest.raises(RuntimeError, match=f"^{name}\\(\\): functions with out=... arguments don't support"):
            call(T.empty(3, 4, dtype=T.float64))            # (before the dtype check)
    o = T.empty(3, 4)
    T.scatter(x, 0, _i(T, [[0]]), T.ones(1, 1), reduce="add", out=o)     # (PyTorch's composite)
    assert lst(o[0]) == [2.0, 1.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match=r"^aten::scatter\(\): functions with out="):
        T.scatter(x.detach(), 0, _i(T, [[0]]), T.ones(1, 1), reduce="add", out=T.empty(3, 4, requires_grad=True))


def test_out_may_be_the_input_itself(T):
    x = T.ones(3, 4)
    T.index_add(x, 0, _i(T, [0]), T.ones(1, 4), out=x)
    assert lst(x[0]) == [2.0] * 4
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of the written-to"):
        T.scatter_add(T.ones(3, 4), 0, _i(T, [[0]]), T.ones(1, 1), out=T.empty(1, 4).expand(3, 4))


# ----------------------------------------------------------------------------- 5. new API
def test_unsafe_split_pieces_share_memory_but_are_not_views(T):
    x0 = T.arange(12.0).reshape(6, 2).requires_grad_()
    x = x0 * 1
    for pieces, node in ((T.unsafe_split(x, 2), "UnsafeSplitBackward0"),
                         (x.unsafe_split(4, 0), "UnsafeSplitBackward0"),
                         (T.unsafe_split_with_sizes(x, [1, 5]), "UnsafeSplitWithSizesBackward0"),
                         (x.unsafe_split_with_sizes([1, 1], 1), "UnsafeSplitWithSizesBackward0"),
                         (T.unsafe_chunk(x, 3), "UnsafeSplitBackward0"),
                         (x.unsafe_chunk(2, 1), "UnsafeSplitBackward0")):
        assert isinstance(pieces, tuple)
        assert all(type(p.grad_fn).__name__ == node for p in pieces)
        assert all(not p._is_view() and p._base is None for p in pieces)
        assert pieces[0].data_ptr() == x.data_ptr()
    y = T.arange(6.0)
    p = T.unsafe_split(y, 2)
    p[0].fill_(9.0)                             # (allowed: not a view; the input's counter stays)
    assert lst(y) == [9.0, 9.0, 2.0, 3.0, 4.0, 5.0] and y._version == 0 and p[0]._version == 1


def test_unsafe_split_gradients_are_splits(T):
    x = T.arange(12.0, dtype=T.float64).reshape(6, 2).requires_grad_()
    a, b, c = T.unsafe_chunk(x, 3)
    (a * 1 + b * 2 + c * 3).sum().backward()
    assert lst(x.grad[:, 0]) == [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]
    assert tp.autograd.gradcheck(lambda t: T.unsafe_split_with_sizes(t, [2, 4])[1] * 2,
                                 (tp.tensor(np.arange(12.0).reshape(6, 2), requires_grad=True),)) \
        if T is tp else True


def test_unsafe_split_errors(T):
    with pytest.raises(TypeError, match=exact("unsafe_split(): argument 'split_size' (position 2) must be "
                                              "int, not list")):
        T.unsafe_split(T.ones(4), [1, 3])
    with pytest.raises(TypeError, match=exact("unsafe_chunk(): argument 'chunks' (position 2) must be int, "
                                              "not float")):
        T.unsafe_chunk(T.ones(4), 2.0)
    with pytest.raises(RuntimeError, match=exact("chunk expects at least a 1-dimensional tensor")):
        T.unsafe_chunk(T.tensor(1.0), 1)


def test_as_strided_scatter_values(T):
    x = T.arange(12.0).reshape(3, 4)
    assert lst(T.as_strided_scatter(x, T.zeros(2, 2), (2, 2), (4, 1), 1)) == \
        [[0.0, 0.0, 0.0, 3.0], [4.0, 0.0, 0.0, 7.0], [8.0, 9.0, 10.0, 11.0]]
    assert lst(x.as_strided_scatter(T.ones(2), (2,), (5,))) == \
        [[1.0, 1.0, 2.0, 3.0], [4.0, 1.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]
    # the input's storage, copied: a transposed input keeps its layout
    r = T.as_strided_scatter(x.t(), T.zeros(2, 2), (2, 2), (4, 1), 1)
    assert lst(r) == [[0.0, 4.0, 8.0], [0.0, 0.0, 9.0], [0.0, 0.0, 10.0], [3.0, 7.0, 11.0]]
    assert r.stride() == (1, 4)
    # a slice: offsets count in the whole storage; the result has the slice's geometry
    xs = x[:, 1:]
    r = T.as_strided_scatter(xs, -T.ones(2, 2), (2, 2), (3, 1), 1)
    assert lst(r) == [[-1.0, -1.0, 3.0], [-1.0, 6.0, 7.0], [9.0, 10.0, 11.0]]
    assert lst(xs) == [[1.0, 2.0, 3.0], [5.0, 6.0, 7.0], [9.0, 10.0, 11.0]]
    # an input with a zero stride is copied contiguous first
    xe = T.arange(4.0).expand(3, 4)
    assert lst(T.as_strided_scatter(xe, -T.ones(2, 2), (2, 2), (4, 1), 1)) == \
        [[0.0, -1.0, -1.0, 3.0], [0.0, -1.0, -1.0, 3.0], [0.0, 1.0, 2.0, 3.0]]
    v = T.arange(24.0).reshape(2, 3, 4)[1]
    r = T.as_strided_scatter(v, -T.ones(2), (2,), (1,))
    assert lst(r[0]) == [-1.0, -1.0, 14.0, 15.0] and r.storage_offset() == 12
    assert lst(T.as_strided_scatter(T.tensor(3.0), T.tensor(5.0), (), ())) == 5.0


def test_as_strided_scatter_errors(T):
    x = T.arange(12.0).reshape(3, 4)
    with pytest.raises(RuntimeError, match=exact("Tensor: invalid storage offset -1")):
        T.as_strided_scatter(x, T.zeros(2, 2), (2, 2), (4, 1), -1)
    with pytest.raises(RuntimeError, match=exact("unsupported operation: more than one element of the "
                                                 "written-to tensor refers to a single memory location. "
                                                 "Please clone() the tensor before performing the operation.")):
        T.as_strided_scatter(x, T.zeros(2, 2), (2, 2), (0, 1))
    with pytest.raises(RuntimeError, match="as_strided_scatter is currently only supported for contiguous inputs$"):
        T.as_strided_scatter(T.ones(3, 4, requires_grad=True).t(), T.zeros(2, 2), (2, 2), (4, 1))


def test_as_strided_scatter_gradients():
    # (torch 2.13 gives the input the gradient of the window instead of the rest, and its
    # own gradcheck fails; these are the derivatives of the values above)
    rng = np.random.default_rng(4)
    x = tp.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    for size, stride, off in (((2, 2), (4, 1), 1), ((2, 2), (4, 1), None), ((3,), (5,), 0),
                              ((2, 2), (1, 2), 3)):
        s = tp.tensor(rng.standard_normal(size), requires_grad=True)
        f = lambda a, b: tp.as_strided_scatter(a, b, size, stride, off)     # noqa: E731
        assert tp.autograd.gradcheck(f, (x, s), check_forward_ad=True)
        assert tp.autograd.gradgradcheck(f, (x, s))
    r = tp.as_strided_scatter(x, s, (2, 2), (1, 2), 3)
    assert type(r.grad_fn).__name__ == "AsStridedScatterBackward0"
    g = tp.arange(12.0, dtype=tp.float64).reshape(3, 4)
    gx, gs = tp.autograd.grad(tp.as_strided_scatter(x, s, (2, 2), (4, 1), 1), (x, s), g)
    assert lst(gx) == [[0.0, 0.0, 0.0, 3.0], [4.0, 0.0, 0.0, 7.0], [8.0, 9.0, 10.0, 11.0]]
    assert lst(gs) == [[1.0, 2.0], [5.0, 6.0]]


def test_as_strided_scatter_src_gradient_as_torch(torch_or_skip):
    torch = torch_or_skip
    got = []
    for L in (tp, torch):
        x = L.zeros(3, 4, dtype=L.float64, requires_grad=True)
        s = L.ones(2, 2, dtype=L.float64, requires_grad=True)
        r = L.as_strided_scatter(x, s, (2, 2), (4, 1), 1)
        (gs,) = L.autograd.grad(r, (s,), L.arange(12.0, dtype=L.float64).reshape(3, 4))
        got.append((type(r.grad_fn).__name__, lst(gs)))
    assert got[0] == got[1]


def test_as_strided_scatter_under_vmap():
    rng = np.random.default_rng(6)
    xb = tp.tensor(rng.standard_normal((5, 3, 4)))
    sb = tp.tensor(rng.standard_normal((5, 2, 2)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # (its own batching rule: no per-sample fallback)
        v = tp.func.vmap(lambda a, b: tp.as_strided_scatter(a, b, (2, 2), (4, 1), 1))(xb, sb)
    loop = tp.stack([tp.as_strided_scatter(xb[i].clone(), sb[i], (2, 2), (4, 1), 1) for i in range(5)])
    np.testing.assert_array_equal(v.numpy(), loop.numpy())


def test_is_set_to(T):
    x = T.arange(12.0).reshape(3, 4)
    assert x.is_set_to(x) and x.is_set_to(x.view(3, 4)) and x.is_set_to(x[:]) and x.is_set_to(x.detach())
    assert not x.is_set_to(x.view(12)) and not x.is_set_to(x.clone()) and not x[1].is_set_to(x[0])
    assert x.is_set_to(x.view(T.int32)) and x.t().is_set_to(x.t()) and x.is_set_to(x.t().t())
    y, z = T.empty(0), T.empty(0)
    assert y.is_set_to(y) and not y.is_set_to(z)
    assert x.is_set_to(tensor=x)
    with pytest.raises(TypeError, match=exact("is_set_to(): argument 'tensor' (position 1) must be Tensor, not int")):
        x.is_set_to(1)


def test_new_names_are_public():
    for name in ("unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk", "as_strided_scatter"):
        assert name in tp.__all__ and callable(getattr(tp, name)) and hasattr(tp.Tensor, name)


# ----------------------------------------------------------------------------- 6. x[adv] = v dtypes
def _msg(dst, src):
    return exact(f"Index put requires the source and destination dtypes match, got {dst} for the destination "
                 f"and {src} for the source.")


def test_setitem_with_an_advanced_key_takes_the_same_dtype_only(T):
    i = _i(T, [0, 1])
    x = T.zeros(3, 4)
    for key, v, src in ((i, T.ones(2, 4, dtype=T.float64), "Double"), (i, T.tensor(1), "Long"),
                        ((0, i), T.ones(2, dtype=T.float64), "Double"), ([0, 1], T.ones(2, 4, dtype=T.float16), "Half"),
                        (x > -1, T.ones(12, dtype=T.float64), "Double"),
                        ((True, i), T.tensor(2.0, dtype=T.float64), "Double"),
                        (i, T.ones(2, 4, dtype=T.complex64), "ComplexFloat")):
        with warnings.catch_warnings():
            warnings.simplefilter("error")      # (no cast warning before the refusal)
            with pytest.raises(RuntimeError, match=_msg("Float", src)):
                x[key] = v
    assert lst(x.sum()) == 0.0
    with pytest.raises(RuntimeError, match=_msg("Long", "Float")):
        T.zeros(3, dtype=T.long)[_i(T, [0])] = T.ones(1)
    with pytest.raises(RuntimeError, match="^shape mismatch: value tensor of shape"):
        x[i] = T.ones(3, 4, dtype=T.float64)          # (the shape is checked first)


def test_setitem_casts_where_pytorch_copies_or_masked_fills(T):
    x = T.zeros(3, 4)
    x[0] = T.ones(4, dtype=T.float64)
    x[1:2] = T.full((1, 4), 2, dtype=T.long)
    x[x > 1.5] = T.tensor(3.0, dtype=T.float64)           # a mask and one element: masked_fill
    x[T.tensor([False, False, True])] = T.ones(1, dtype=T.float64)
    x[np.array(2)] += T.ones(4, dtype=T.float64)
    y = T.zeros(3, 4)
    y[True] = T.ones(3, 4, dtype=T.float64)
    assert lst(x) == [[1.0] * 4, [3.0] * 4, [2.0] * 4] and lst(y.sum()) == 12.0
