"""API and error checks for ops/more.py, run on tensorplay and torch alike."""
import pytest

from conftest import exact, lst


# ------------------------------------------------------------------ new_* / type_as
def test_new_factories(T):
    x = T.zeros(2, 3, dtype=T.float64)
    assert x.new_zeros(2, 3).dtype == T.float64 and tuple(x.new_zeros((2, 3)).shape) == (2, 3)
    assert lst(x.new_ones([2])) == [1.0, 1.0] and x.new_ones(2).dtype == T.float64
    assert tuple(x.new_empty(4).shape) == (4,) and x.new_empty(4).dtype == T.float64
    f = x.new_full((2,), 3)
    assert f.dtype == T.float64 and lst(f) == [3.0, 3.0]
    assert x.new_zeros(2, dtype=T.int32).dtype == T.int32
    assert x.new_tensor([1, 2]).dtype == T.float64
    assert x.new_tensor([1, 2], dtype=T.int64).dtype == T.int64
    assert x.new_ones(2, requires_grad=True).requires_grad
    assert not x.new_zeros(2).requires_grad
    i = T.tensor([1, 2])
    assert i.type_as(x).dtype == T.float64 and lst(i.type_as(x)) == [1.0, 2.0]
    assert i.new_full((1,), 2).dtype == T.int64


def test_new_tensor_from_tensor_warns_and_detaches(T):
    x = T.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        y = x.new_tensor(x)
    assert not y.requires_grad and y.grad_fn is None


# ------------------------------------------------------------------ sorting and selection
def test_sort_api(T):
    x = T.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], requires_grad=True)
    r = T.sort(x, dim=1, descending=True)
    assert lst(r.values) == [[3.0, 2.0, 1.0], [5.0, 4.0, 0.0]]
    assert lst(r.indices) == [[0, 2, 1], [1, 2, 0]] and r.indices.dtype == T.int64
    v, i = x.sort()
    assert lst(i) == [[1, 2, 0], [0, 2, 1]]
    assert type(r).__name__ == "sort" and type(v.grad_fn).__name__ == "SortBackward0"
    assert type(T.sort(x, stable=True).values.grad_fn).__name__ == "SortBackward1"
    assert lst(T.argsort(x, dim=0)) == [[1, 0, 0], [0, 1, 1]]
    assert lst(x.argsort(descending=True)) == [[0, 2, 1], [1, 2, 0]]
    v.sum().backward()
    assert lst(x.grad) == [[1.0] * 3] * 2


def test_sort_stable_ties_and_nan(T):
    x = T.tensor([2.0, float("nan"), 1.0, 2.0, 1.0])
    assert lst(T.sort(x, stable=True).indices) == [2, 4, 0, 3, 1]
    assert lst(T.sort(x, stable=True, descending=True).indices) == [1, 0, 3, 2, 4]


def test_topk_kthvalue_median(T):
    x = T.tensor([[3.0, 1.0, 2.0, 7.0], [0.0, 5.0, 4.0, -1.0]], requires_grad=True)
    t = T.topk(x, 2)
    assert type(t).__name__ == "topk" and lst(t.values) == [[7.0, 3.0], [5.0, 4.0]]
    assert lst(t.indices) == [[3, 0], [1, 2]]
    assert lst(x.topk(1, dim=0, largest=False).indices) == [[1, 0, 0, 1]]
    assert type(t.values.grad_fn).__name__ == "TopkBackward0"
    k = T.kthvalue(x, 2)
    assert type(k).__name__ == "kthvalue" and lst(k.values) == [2.0, 0.0] and lst(k.indices) == [2, 0]
    assert tuple(x.kthvalue(1, 0, True).values.shape) == (1, 4)
    m = T.median(x)
    assert lst(m) == 2.0 and type(m.grad_fn).__name__ == "MedianBackward0"
    md = x.median(1)
    assert type(md).__name__ == "median" and lst(md.values) == [2.0, 0.0] and lst(md.indices) == [2, 0]
    assert type(md.values.grad_fn).__name__ == "MedianBackward1"
    md.values.sum().backward()
    assert lst(x.grad) == [[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0]]


def test_selection_errors(T):
    x = T.zeros(3, 4)
    with pytest.raises(RuntimeError, match=exact("selected index k out of range")):
        T.topk(x, 5)
    with pytest.raises(RuntimeError, match=exact("selected index k out of range")):
        x.topk(-1)
    with pytest.raises(RuntimeError, match=exact("kthvalue(): selected number k out of range for dimension 1")):
        T.kthvalue(x, 5)
    with pytest.raises(RuntimeError, match=exact("kthvalue(): selected number k out of range for dimension 1")):
        T.kthvalue(x, 0)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        T.sort(x, dim=2)
    with pytest.raises(RuntimeError, match="Sort does not support complex dtypes on CPU"):
        T.sort(T.zeros(2, dtype=T.complex64))
    with pytest.raises(NotImplementedError, match=exact("\"median_cpu\" not implemented for 'ComplexFloat'")):
        T.median(T.zeros(2, dtype=T.complex64))
    with pytest.raises(NotImplementedError, match=exact("\"cummax_cpu\" not implemented for 'ComplexFloat'")):
        T.cummax(T.zeros(2, dtype=T.complex64), 0)


def test_median_empty_and_nan(T):
    assert lst(T.median(T.zeros(0))) != lst(T.median(T.zeros(0)))            # nan
    r = T.median(T.tensor([3.0, 1.0, 2.0, float("nan")]), 0)
    assert lst(r.indices) == 3
    assert lst(T.median(T.tensor([3.0, 1.0, 2.0, 4.0]))) == 2.0


def test_cummax_cummin(T):
    x = T.tensor([1.0, 3.0, 3.0, 2.0, float("nan"), 5.0], requires_grad=True)
    r = T.cummax(x, 0)
    assert type(r).__name__ == "cummax" and lst(r.indices) == [0, 1, 2, 2, 4, 4]
    assert type(r.values.grad_fn).__name__ == "CummaxBackward0"
    r.values.sum().backward()
    assert lst(x.grad) == [1.0, 1.0, 2.0, 0.0, 2.0, 0.0]
    c = x.cummin(0)
    assert type(c).__name__ == "cummin" and lst(c.indices) == [0, 0, 0, 0, 4, 4]
