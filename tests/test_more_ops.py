"""API checks for sorting, new_*, pointwise extras, nan-reductions and the shape helpers
(ops/sorting.py, factories.py, pointwise_more.py, ...), run on tensorplay and torch alike (the
ops' error inputs are rows' ``errors`` in tests/opdb)."""
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


# ------------------------------------------------------------------ comparisons and pointwise extras
def test_isclose_allclose_equal(T):
    a, b = T.tensor([1.0, float("nan"), 2.0]), T.tensor([1.0 + 1e-9, float("nan"), 2.5])
    assert lst(T.isclose(a, b)) == [True, False, False]
    assert lst(a.isclose(b, equal_nan=True, rtol=0.3)) == [True, True, True]
    assert T.allclose(a, a, equal_nan=True) is True and a.allclose(b) is False
    assert T.equal(a[::2], a[::2]) is True and T.equal(a, a) is False
    assert T.equal(T.tensor([1.0]), T.tensor([1])) is True
    assert T.equal(T.ones(2), T.ones(3)) is False and T.ones(2).equal(T.ones(2))
    with pytest.raises(RuntimeError, match=exact("Float did not match Long")):
        T.allclose(T.tensor([1.0]), T.tensor([1]))


def test_heaviside(T):
    x = T.tensor([-1.0, 0.0, 2.0])
    assert lst(T.heaviside(x, T.tensor([0.5]))) == [0.0, 0.5, 1.0]


def test_pointwise_extras_api(T):
    x = T.tensor([0.0, 1.0, 2.0], requires_grad=True)
    y = T.tensor([float("nan"), 2.0, 3.0])
    r = T.xlogy(x, y)
    assert lst(r)[0] != lst(r)[0] and type(r.grad_fn).__name__ == "XlogyBackward0"
    assert lst(T.xlogy(x, 0.0))[0] == 0.0
    assert type(T.xlogy(x, 2.0).grad_fn).__name__ == "XlogyBackward2"
    assert type(T.xlogy(2.0, x).grad_fn).__name__ == "XlogyBackward1"
    assert T.xlogy(T.tensor([1, 2]), T.tensor([1, 2])).dtype == T.float32
    assert T.deg2rad(T.tensor([180])).dtype == T.float32
    assert T.logit(T.tensor([1, 0])).dtype == T.float32
    assert lst(T.addcmul(x, x, x, value=2)) == [0.0, 3.0, 10.0]
    assert lst(x.addcdiv(x, x + 1, value=-1))[:2] == [0.0, 0.5]
    assert type(T.addcmul(x, x, x).grad_fn).__name__ == "AddcmulBackward0"
    assert type(T.logit(x, eps=0.1).grad_fn).__name__ == "LogitBackward0"
    assert type(T.rad2deg(x).grad_fn).__name__ == "Rad2DegBackward0"



def test_nansum_nanmean(T):
    x = T.tensor([[1.0, float("nan")], [float("nan"), float("nan")]], requires_grad=True)
    assert lst(T.nansum(x)) == 1.0 and lst(x.nansum(1)) == [1.0, 0.0]
    assert T.nansum(T.tensor([True, True])).dtype == T.int64
    m = T.nanmean(x, 0)
    assert lst(m)[0] == 1.0 and lst(m)[1] != lst(m)[1]
    assert type(T.nanmean(x).grad_fn).__name__ == "DivBackward0"
    T.nansum(x).backward()
    assert lst(x.grad) == [[1.0, 0.0], [0.0, 0.0]]


# ------------------------------------------------------------------ shape helpers and scans
def test_group4_api(T):
    x = T.arange(12.0).reshape(3, 4)
    assert lst(T.diff(T.tensor([1.0, 4.0, 9.0, 16.0]), 2)) == [2.0, 2.0]
    assert lst(T.diff(T.tensor([1, 3]), prepend=T.tensor([0]), append=T.tensor([5]))) == [1, 2, 2]
    assert lst(T.diff(T.tensor([True, False, False]))) == [True, False]
    assert tuple(T.diff(x, n=5).shape) == (3, 0)
    assert lst(T.diag(T.tensor([1.0, 2.0]), 1)) == [[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]
    assert lst(x.diag(-1)) == [4.0, 9.0] and tuple(T.diag(x, 5).shape) == (0,)
    assert tuple(T.diag_embed(T.zeros(2, 3), 1, 0, 2).shape) == (4, 2, 4)
    assert lst(T.repeat_interleave(T.tensor([1, 2, 0]))) == [0, 1, 1]
    # the index form runs no registered op (NumPy directly), so it is not an op-table row
    assert lst(T.repeat_interleave(T.tensor([1, 0, 2, 3, 1]))) == [0, 2, 2, 3, 3, 3, 4]
    assert lst(T.tensor([[1, 2], [3, 4]]).repeat_interleave(2)) == [1, 1, 2, 2, 3, 3, 4, 4]
    assert lst(T.repeat_interleave(T.tensor([[1, 2], [3, 4]]), T.tensor([1, 2]), dim=0)) == [[1, 2], [3, 4], [3, 4]]
    assert tuple(T.unflatten(x, 1, (-1, 2)).shape) == (3, 2, 2) and tuple(x.unflatten(0, (3, 1)).shape) == (3, 1, 4)
    assert lst(T.rot90(T.arange(6).reshape(2, 3))) == [[2, 5], [1, 4], [0, 3]]
    assert lst(T.rot90(T.arange(6).reshape(2, 3), -1, (1, 0))) == [[2, 5], [1, 4], [0, 3]]
    a = T.tensor([[1.0, 0.0, 0.0]], requires_grad=True)
    c = T.cross(a, T.tensor([[0.0, 1.0, 0.0]]), dim=1)
    assert lst(c) == [[0.0, 0.0, 1.0]] and type(c.grad_fn).__name__ == "LinalgCrossBackward0"
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"):
        assert tuple(T.cross(T.zeros(4, 3), T.zeros(4, 3)).shape) == (4, 3)
    r = T.logcumsumexp(a, 1)
    assert type(r.grad_fn).__name__ == "LogcumsumexpBackward0"
    assert type(T.diag_embed(a).grad_fn).__name__ == "DiagEmbedBackward0"


# ------------------------------------------------------------------ pdist, histc
def test_pdist_zero_size_and_repeated_rows():
    """A zero-size input gives no distances and a zero-size gradient (PyTorch's own
    backward crashes there, so the op table leaves the check out); a repeated row
    is at distance 0, where the gradient is 0, as PyTorch's."""
    import tensorplay as tp
    x = tp.zeros(0, 3, requires_grad=True)
    d = tp.pdist(x)
    assert tuple(d.shape) == (0,) and d.grad_fn.name() == "PdistBackward0"
    d.sum().backward()
    assert tuple(x.grad.shape) == (0, 3)
    x = tp.tensor([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]], requires_grad=True)
    d = tp.pdist(x)
    assert lst(d)[0] == 0.0
    d.sum().backward()
    s = 2 ** -0.5
    assert lst(x.grad.flatten()) == pytest.approx([s, s, s, s, -2 * s, -2 * s])


def test_histc_counts_the_range_ends_and_skips_nan(T):
    x = T.tensor([0.0, 1.0, 2.0, 3.0, 3.5, -0.5, float("nan")])
    assert lst(T.histc(x, bins=3, min=0, max=3)) == [1.0, 1.0, 2.0]
    assert lst(x[:4].histc(bins=2)) == [2.0, 2.0]
    with pytest.raises(RuntimeError, match=exact("torch.histc: range of [-nan, -nan] is not finite")):
        T.histc(x, bins=2)


def test_histc_bins_values_on_edges_in_the_inputs_dtype(T):
    """(x - min) * bins / (max - min) in float32 for a float32 input: 0.7 lands in bin 7
    (in float64 it was 6.99999988 and bin 6)."""
    x = T.tensor([0.3, 0.7, 0.9])
    assert [i for i, v in enumerate(T.histc(x, bins=10, min=0, max=1).tolist()) if v] == [3, 7, 9]


def test_histc_under_forward_mode_carries_no_tangent():
    import tensorplay as tp
    import tensorplay.autograd.forward_ad as fwad
    x = tp.tensor([0.1, 0.5, 0.9])
    assert tp.func.jvp(lambda v: tp.histc(v, bins=3), (x,), (tp.ones(3),))[1].tolist() == [0.0, 0.0, 0.0]
    with fwad.dual_level():
        assert fwad.unpack_dual(tp.histc(fwad.make_dual(x, tp.ones(3)), bins=3)).tangent is None


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_histc_on_bin_edges_as_pytorch(torch_or_skip, dtype):
    import numpy as np
    import tensorplay as tp
    rng = np.random.default_rng(5)
    for _ in range(50):
        bins = int(rng.integers(1, 20))
        lo = float(rng.integers(-3, 2))
        hi = lo + float(rng.integers(1, 5))
        x = np.concatenate([np.linspace(lo, hi, bins + 1), rng.uniform(lo - 1, hi + 1, 20)])
        for kw in ({"min": lo, "max": hi}, {}):
            a = tp.histc(tp.tensor(x).to(getattr(tp, dtype)), bins=bins, **kw).float().tolist()
            b = torch_or_skip.histc(torch_or_skip.tensor(x).to(getattr(torch_or_skip, dtype)), bins=bins,
                                    **kw).float().tolist()
            assert a == b, (bins, lo, hi, kw)


def test_out_of_another_dtype_is_refused_by_the_new_ops(T):
    b, m, v = T.ones(3, dtype=T.float64), T.ones(3, 2, dtype=T.float64), T.ones(2, dtype=T.float64)
    with pytest.raises(RuntimeError, match=exact("Expected out tensor to have dtype double, but got float "
                                                 "instead")):
        T.addmv(b, m, v, out=T.empty(3))
    with pytest.raises(RuntimeError, match=exact("Expected out tensor to have dtype double, but got float "
                                                 "instead")):
        T.renorm(m, 2, 0, 1.0, out=T.empty(3, 2))
    with pytest.raises(RuntimeError, match=exact("torch.histogram: input tensor and hist tensor should have "
                                                 "the same dtype, but got input double and hist float")):
        T.histc(b, bins=3, out=T.empty(3))
    assert T.addr(m, b, v, out=T.empty(3, 2)).dtype == T.float32     # (addr casts, as PyTorch)
