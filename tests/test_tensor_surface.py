"""Tensor surface that real PyTorch code uses: as_strided, set_, resize_, new,
storage/untyped_storage and data_ptr, scatter_reduce/index_reduce (values; their
derivatives are rows of the op table), constants, legacy constructors and
Tensor.type(), memory formats, indexing with a range, and ``out=``.  Run on
tensorplay and torch alike (the ``T`` fixture)."""
import math
import warnings

import pytest

from conftest import exact, lst


# ------------------------------------------------------------------ as_strided, storage
def test_as_strided(T):
    x = T.arange(6.0)
    y = x.as_strided((2, 2), (1, 2))
    assert lst(y) == [[0.0, 2.0], [1.0, 3.0]] and y.stride() == (1, 2)
    assert lst(T.as_strided(x, (2,), (3,), 1)) == [1.0, 4.0]
    assert lst(x[1:].as_strided((2,), (2,))) == [1.0, 3.0]          # offset: where x[1:] starts
    assert lst(x[1:].as_strided((2,), (2,), 0)) == [0.0, 2.0]       # offsets count from storage
    assert lst(T.as_strided(x, (3,), (0,))) == [0.0, 0.0, 0.0]
    y[0, 0] = 10.0                                                  # a view: writes show
    assert x[0].item() == 10.0
    with pytest.raises(RuntimeError, match="^setStorage: sizes \\[2, 2\\], strides \\[1, 2\\], storage "
                                           "offset 100, and itemsize 4 requiring a storage size of "
                                           "416 are out of bounds for storage of size 24$"):
        T.arange(6.0).as_strided((2, 2), (1, 2), 100)
    with pytest.raises(RuntimeError, match="Negative strides are not supported"):
        x.as_strided((2,), (-1,))
    with pytest.raises(RuntimeError, match=exact("mismatch in length of strides and shape")):
        x.as_strided((2, 2), (1,))


def test_as_strided_gradient(T):
    x = T.arange(6.0, dtype=T.float64, requires_grad=True)
    y = x.as_strided((2, 2), (1, 2), 1)                 # reads positions 1, 3, 2, 4
    (y * T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float64)).sum().backward()
    assert lst(x.grad) == [0.0, 1.0, 3.0, 2.0, 4.0, 0.0]
    z = T.arange(4.0, dtype=T.float64, requires_grad=True)
    w = z.as_strided((3, 2), (1, 1))                    # overlapping output: gradients add
    w.sum().backward()
    assert lst(z.grad) == [1.0, 2.0, 2.0, 1.0]


def test_storage_sharing(T):
    x = T.arange(6.0).reshape(2, 3)
    v = x[1]
    assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert v.storage_offset() == 3 and x.storage_offset() == 0
    assert v.data_ptr() - x.data_ptr() == 3 * x.element_size()
    assert x.untyped_storage().nbytes() == 24 and len(x.untyped_storage()) == 24
    assert x.clone().untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = x.storage()
        assert s.size() == 6 and s.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and s[4] == 4.0
        assert s.data_ptr() == x.data_ptr()


def test_set_and_resize(T):
    x = T.arange(6.0).reshape(2, 3)
    y = T.zeros(2).set_(x)
    assert lst(y) == lst(x) and y.data_ptr() == x.data_ptr()
    z = T.zeros(1).set_(x.untyped_storage(), 1, (2,), (2,))
    assert lst(z) == [1.0, 3.0]
    assert tuple(T.ones(3).set_().shape) == (0,)
    r = T.arange(6.0).resize_(2, 2)
    assert lst(r) == [[0.0, 1.0], [2.0, 3.0]]
    g = T.arange(2.0).resize_(3)
    assert tuple(g.shape) == (3,) and lst(g)[:2] == [0.0, 1.0]
    assert tuple(T.ones(4).resize_as_(T.ones(2, 2)).shape) == (2, 2)
    with pytest.raises(RuntimeError, match=exact("cannot resize variables that require grad")):
        T.ones(2, requires_grad=True).resize_(3)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        T.ones(2, requires_grad=True).set_(x)


def test_new(T):
    x = T.ones(2, dtype=T.float64)
    assert tuple(x.new(2, 3).shape) == (2, 3) and x.new(2, 3).dtype == T.float64
    assert tuple(x.new(T.Size([4])).shape) == (4,)
    assert lst(x.new([1, 2])) == [1.0, 2.0] and x.new([1, 2]).dtype == T.float64
    assert tuple(x.new().shape) == (0,)
    shared = x.new(x)
    assert shared.data_ptr() == x.data_ptr()


# ------------------------------------------------------------------ scatter_reduce / index_reduce
@pytest.mark.parametrize("reduce, include_self, want", [
    ("sum", True, [4.0, 1.0, 5.0]), ("sum", False, [3.0, 1.0, 3.0]),
    ("prod", True, [2.0, 1.0, 6.0]), ("mean", True, [4 / 3, 1.0, 2.5]),
    ("mean", False, [1.5, 1.0, 3.0]), ("amax", True, [2.0, 1.0, 3.0]),
    ("amin", False, [1.0, 1.0, 3.0]), ("max", True, [2.0, 1.0, 3.0]),
])
def test_scatter_reduce_values(T, reduce, include_self, want):
    x = T.tensor([1.0, 1.0, 2.0])
    r = x.scatter_reduce(0, T.tensor([0, 0, 2]), T.tensor([1.0, 2.0, 3.0]), reduce=reduce,
                         include_self=include_self)
    assert lst(r) == pytest.approx(want)
    y = x.clone()
    y.scatter_reduce_(0, T.tensor([0, 0, 2]), T.tensor([1.0, 2.0, 3.0]), reduce,
                      include_self=include_self)
    assert lst(y) == pytest.approx(want)


def test_scatter_reduce_errors(T):
    x = T.ones(3)
    with pytest.raises(RuntimeError, match=exact("reduce argument must be either sum, prod, mean, "
                                                 "amax or amin, got add")):
        x.scatter_reduce(0, T.tensor([0]), T.ones(1), "add")
    with pytest.raises(RuntimeError, match=exact("scatter(): Expected self.dtype to be equal to "
                                                 "src.dtype")):
        x.scatter_reduce(0, T.tensor([0]), T.ones(1, dtype=T.float64), "sum")
    with pytest.raises(RuntimeError, match=exact("scatter(): Expected dtype int32/int64 for index")):
        x.scatter_reduce(0, T.tensor([0.0]), T.ones(1), "sum")


def test_index_reduce(T):
    x = T.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        r = x.index_reduce(0, T.tensor([0, 0, 2]), T.tensor([2.0, 3.0, 4.0]), "prod")
        assert lst(r) == [6.0, 1.0, 4.0]
        r = x.index_reduce(0, T.tensor([0, 0, 2]), T.tensor([2.0, 3.0, 4.0]), "amax",
                           include_self=False)
        assert lst(r) == [3.0, 1.0, 4.0]
        with pytest.raises(RuntimeError, match=exact("index_reduce(): Expected reduce to be one of "
                                                     "prod, mean, amax or amin but got sum.")):
            x.index_reduce(0, T.tensor([0]), T.ones(1), "sum")
        with pytest.raises(RuntimeError, match=exact(
                "index_reduce_(): Number of indices (2) should be equal to source.size(dim): (3), "
                "for dim: 0")):
            x.index_reduce(0, T.tensor([0, 1]), T.ones(3), "prod")
        with pytest.raises(IndexError, match=exact("index out of range in self")):
            x.index_reduce(0, T.tensor([0, 5]), T.ones(2), "prod")


# ------------------------------------------------------------------ constants, legacy types
def test_constants(T):
    assert T.inf == math.inf and math.isnan(T.nan) and T.pi == math.pi and T.e == math.e


def test_legacy_constructors_and_type(T):
    f = T.FloatTensor([1, 2])
    assert f.dtype == T.float32 and lst(f) == [1.0, 2.0]
    assert tuple(T.FloatTensor(2, 3).shape) == (2, 3)
    assert T.DoubleTensor([1]).dtype == T.float64 and T.LongTensor([1, 2]).dtype == T.int64
    assert T.BoolTensor([True]).dtype == T.bool and T.IntTensor([1]).dtype == T.int32
    assert isinstance(T.ones(2), T.FloatTensor) and not isinstance(T.ones(2), T.DoubleTensor)
    assert T.ones(2).type().endswith(".FloatTensor")
    assert T.ones(2).type(T.DoubleTensor).dtype == T.float64
    assert T.ones(2).type(T.__name__ + ".LongTensor").dtype == T.int64
    assert T.ones(2).type(T.int32).dtype == T.int32


# ------------------------------------------------------------------ memory formats
def test_memory_formats(T):
    x = T.arange(24.0).reshape(1, 2, 3, 4)
    c = x.contiguous(memory_format=T.channels_last)
    assert lst(c) == lst(x) and c.stride() == (24, 1, 8, 2)
    assert c.is_contiguous(memory_format=T.channels_last) and not c.is_contiguous()
    assert not x.is_contiguous(memory_format=T.channels_last) and x.is_contiguous()
    assert x.contiguous(memory_format=T.contiguous_format) is x
    assert c.contiguous().is_contiguous()
    assert x.to(memory_format=T.channels_last).stride() == (24, 1, 8, 2)
    t = x.reshape(6, 4).t()
    assert t.clone().stride() == t.stride()                         # preserve_format
    assert t.clone(memory_format=T.contiguous_format).is_contiguous()
    assert T.empty_like(x, memory_format=T.preserve_format).shape == x.shape
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        T.ones(2, 3).contiguous(memory_format=T.channels_last)


def test_range_indexing(T):
    x = T.arange(6.0).reshape(2, 3)
    assert lst(x[range(2)]) == lst(x)
    assert lst(x[:, range(1, 3)]) == [[1.0, 2.0], [4.0, 5.0]]
    y = T.arange(4.0)
    y[range(2)] = 0.0
    assert lst(y) == [0.0, 0.0, 2.0, 3.0]


# ------------------------------------------------------------------ out=
@pytest.mark.parametrize("call, want", [
    (lambda T, x, o: T.add(x, 1, out=o), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
    (lambda T, x, o: T.mul(x, x, out=o), [[0.0, 1.0, 4.0], [9.0, 16.0, 25.0]]),
    (lambda T, x, o: T.neg(x, out=o), [[-0.0, -1.0, -2.0], [-3.0, -4.0, -5.0]]),
    (lambda T, x, o: T.clamp(x, 0, 2, out=o), [[0.0, 1.0, 2.0], [2.0, 2.0, 2.0]]),
    (lambda T, x, o: T.pow(x, 2, out=o), [[0.0, 1.0, 4.0], [9.0, 16.0, 25.0]]),
    (lambda T, x, o: T.where(x > 2, x, T.zeros(()), out=o), [[0.0, 0.0, 0.0], [3.0, 4.0, 5.0]]),
])
def test_out_elementwise(T, call, want):
    x = T.arange(6.0).reshape(2, 3)
    o = T.empty(2, 3)
    r = call(T, x, o)
    assert r is o and lst(o) == want


def test_out_other_functions(T):
    x = T.arange(6.0).reshape(2, 3)
    o = T.empty(2)
    assert T.sum(x, 1, out=o) is o and lst(o) == [3.0, 12.0]
    o = T.empty(2, 2)
    T.matmul(x, x.t(), out=o)
    assert lst(o) == [[5.0, 14.0], [14.0, 50.0]]
    T.mm(x, x.t(), out=o)
    assert lst(o) == [[5.0, 14.0], [14.0, 50.0]]
    v, i = T.empty(2), T.empty(2, dtype=T.int64)
    T.max(x, 1, out=(v, i))
    assert lst(v) == [2.0, 5.0] and lst(i) == [2, 2]
    o = T.empty(3)
    T.arange(3, out=o)
    assert lst(o) == [0.0, 1.0, 2.0] and o.dtype == T.float32
    o = T.empty(3, dtype=T.int64)
    T.zeros(3, out=o)
    assert lst(o) == [0, 0, 0] and o.dtype == T.int64
    o = T.empty(4, 3)
    T.cat([x, x], out=o)
    assert tuple(o.shape) == (4, 3)


def test_out_writes_in_place_and_resizes(T):
    x = T.arange(6.0).reshape(2, 3)
    o = T.empty(2, 3)
    ptr, version = o.data_ptr(), o._version
    T.exp(x, out=o)
    assert o.data_ptr() == ptr and o._version > version
    e = T.empty(0)
    T.add(x, 1, out=e)                  # an empty out is resized without a word
    assert tuple(e.shape) == (2, 3)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        T.add(x, 1, out=T.empty(3))


def test_out_refusals(T):
    x = T.arange(6.0).reshape(2, 3)
    with pytest.raises(RuntimeError, match=exact("result type Float can't be cast to the desired "
                                                 "output type Long")):
        T.add(x, 1, out=T.empty(2, 3, dtype=T.int64))
    with pytest.raises(RuntimeError, match=exact("add(): functions with out=... arguments don't "
                                                 "support automatic differentiation, but one of the "
                                                 "arguments requires grad.")):
        T.add(T.ones(2, requires_grad=True), 1, out=T.empty(2))
    with pytest.raises(TypeError, match=exact("add(): argument 'out' must be Tensor, not list")):
        T.add(x, 1, out=[1])
    with T.no_grad():
        o = T.empty(2)
        T.mul(T.ones(2, requires_grad=True), 3, out=o)      # fine without grad mode
        assert lst(o) == [3.0, 3.0]


def test_a_slice_or_sum_of_a_size_is_a_size():
    import tensorplay
    s = tensorplay.Size([2, 3, 4])
    assert type(s[1:]) is tensorplay.Size and s[1:] == (3, 4) and type(s[0]) is int
    assert type(s[1:] + (5,)) is tensorplay.Size and repr(s[:1] + s[2:]) == "tensorplay.Size([2, 4])"


def test_broadcast_errors_are_pytorchs():
    import re

    import tensorplay
    with pytest.raises(RuntimeError, match=re.escape(
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0")):
        tensorplay.broadcast_tensors(tensorplay.ones(3, 2), tensorplay.ones(2, 2))
    with pytest.raises(RuntimeError, match=re.escape(
            "Attempting to broadcast a dimension of length 2 at -1! Mismatching argument at index 1 had "
            "(4, 1, 2); but expected shape should be broadcastable to [1, 2, 3]")):
        tensorplay.broadcast_shapes((2, 3), (4, 1, 2))
    assert tensorplay.broadcast_shapes(2, (3, 1)) == (3, 2) and tensorplay.broadcast_shapes() == ()


def test_size_arithmetic_gives_a_size():
    import tensorplay
    s = tensorplay.Size([2, 3])
    for r in ((1,) + s, s * 2, 2 * s, s + s):
        assert type(r) is tensorplay.Size
    assert (1,) + s == (1, 2, 3) and s * 2 == (2, 3, 2, 3)
