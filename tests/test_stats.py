"""quantile/nanquantile, nanmedian, cov/corrcoef, isin, and the number-theory and
integration functions of ops/stats.py: the cases the op table cannot hold (the
gradient at ties and NaN, which no finite difference checks; warnings), against
values PyTorch gives (and against torch itself when it is installed)."""
import warnings

import numpy as np
import pytest

import tensorplay as tp


def _grad(f, a):
    x = tp.tensor(a, requires_grad=True)
    f(x).sum().backward()
    return x.grad.numpy()


def test_quantile_gradient_at_ties_goes_to_the_sorted_ranks():
    a = np.array([1.0, 2.0, 2.0, 2.0, 3.0])
    # PyTorch: the stable sort's ranks 0.4, 2, 3.6 -> lerp weights
    np.testing.assert_allclose(_grad(lambda x: tp.quantile(x, tp.tensor([0.1, 0.5, 0.9], dtype=tp.float64)), a),
                               [0.6, 0.4, 1.0, 0.4, 0.6])
    np.testing.assert_allclose(_grad(lambda x: tp.quantile(x, 0.5), a), [0, 0, 1, 0, 0])


def test_quantile_nan_and_nanquantile_gradients():
    a = np.array([1.0, np.nan, 2.0, 2.0, 3.0])
    q = tp.tensor([0.1, 0.5, 0.9], dtype=tp.float64)
    np.testing.assert_allclose(_grad(lambda x: tp.quantile(x, q), a), [0, 3, 0, 0, 0])
    np.testing.assert_allclose(_grad(lambda x: tp.nanquantile(x, q), a), [0.7, 0, 0.8, 0.8, 0.7])
    assert np.isnan(tp.quantile(tp.tensor(a), 0.5).item())
    assert tp.nanquantile(tp.tensor(a), 0.5).item() == 2.0
    assert np.isnan(tp.nanquantile(tp.tensor([np.nan, np.nan]), 0.5).item())


def test_quantile_modes_and_shapes():
    x = tp.tensor([0.0, 1.0, 2.0, 3.0])
    q = tp.tensor([0.5, 1 / 6, 0.25, 0.75])
    assert tp.quantile(x, q, interpolation="nearest").tolist() == [2.0, 0.0, 1.0, 2.0]  # (half to even)
    assert tp.quantile(x, q, interpolation="midpoint").tolist() == [1.5, 0.5, 0.5, 2.5]
    assert tp.quantile(x, 0.5, interpolation="lower").item() == 1.0
    assert tp.quantile(x, 0.5, interpolation="higher").item() == 2.0
    y = tp.ones(3, 4, dtype=tp.float64)
    q2 = tp.tensor([0.3, 0.4], dtype=tp.float64)
    assert tuple(tp.quantile(y, q2, dim=1, keepdim=True).shape) == (2, 3, 1)
    assert tuple(tp.quantile(y, q2, keepdim=True).shape) == (2, 1, 1)
    assert tuple(y.quantile(0.3, 1, True).shape) == (3, 1)
    assert tuple(y.nanquantile(q2, 0).shape) == (2, 4)


def test_nanmedian():
    b = tp.tensor([[1.0, 2, 2, np.nan, 2, 3], [np.nan, 1, 2, np.nan, np.nan, np.nan]])
    r = tp.nanmedian(b, 1)
    assert r.values.tolist() == [2.0, 1.0] and r.indices.tolist() == [2, 1]
    assert tp.nanmedian(tp.tensor([1.0, np.nan, np.nan])).item() == 1.0
    assert np.isnan(tp.nanmedian(tp.tensor([np.nan, np.nan])).item())
    np.testing.assert_allclose(_grad(tp.nanmedian, np.array([1.0, 2, 2, 2, 3])), [0, 1 / 3, 1 / 3, 1 / 3, 0])
    np.testing.assert_allclose(_grad(tp.nanmedian, np.array([np.nan] * 3)), [1 / 3] * 3)
    np.testing.assert_allclose(_grad(lambda x: x.nanmedian(0).values, b.numpy()),
                               [[1, 0, 1, 1, 1, 1], [0, 1, 0, 0, 0, 0]])   # (all NaN: the first)
    assert repr(r).startswith("tensorplay.return_types.nanmedian(")


def test_cov_dof_warning_and_int_input():
    x = tp.tensor([[1.0, 2.0, 4.0]])
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        r = tp.cov(x, correction=3)
    assert np.isinf(r.item())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = tp.cov(tp.tensor([[0, 1, 2], [2, 1, 0]]))
    assert c.dtype == tp.float32 and c.tolist() == [[1.0, -1.0], [-1.0, 1.0]]
    assert tp.corrcoef(tp.tensor([[0.0, 1, 3], [3, 1, 0]])).tolist()[0][0] == 1.0


def test_isin_forms():
    t = tp.tensor([1, 2, 3])
    assert tp.isin(t, 2).tolist() == [False, True, False]
    assert tp.isin(2, t).item() is True and tp.isin(2.5, t).item() is False
    assert tp.isin(t, tp.tensor([2.0, 2.5])).tolist() == [False, True, False]
    assert tp.isin(tp.tensor([1.0, np.nan]), tp.tensor([np.nan])).tolist() == [False, False]
    assert tp.isin(t, tp.tensor([1]), invert=True).tolist() == [False, True, True]
    with pytest.raises(TypeError, match="isin\\(\\) received an invalid combination of arguments"):
        tp.isin(2, 3)
    assert not hasattr(tp.Tensor, "isin")


def test_against_torch_ties_and_nan():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    # (ties: PyTorch's CPU sort is stable up to 16 elements a slice, as tensorplay's always is;
    # past that its order among equal values is its own introsort's)
    a = rng.integers(0, 4, (3, 5)).astype(np.float64)
    a[1, 2] = np.nan
    for name in ("quantile", "nanquantile"):
        for mode in ("linear", "lower", "higher", "midpoint", "nearest"):
            for dim in (None, 0, 1):
                q = [0.0, 0.3, 0.5, 0.77, 1.0]
                ta = torch.tensor(a, requires_grad=True)
                xa = tp.tensor(a, requires_grad=True)
                r1 = getattr(torch, name)(ta, torch.tensor(q, dtype=torch.float64), dim, interpolation=mode)
                r2 = getattr(tp, name)(xa, tp.tensor(q, dtype=tp.float64), dim, interpolation=mode)
                np.testing.assert_allclose(r2.detach().numpy(), r1.detach().numpy(), equal_nan=True)
                w = rng.standard_normal(tuple(r1.shape))
                (r1 * torch.tensor(w)).nansum().backward()
                (r2 * tp.tensor(w)).nansum().backward()
                np.testing.assert_allclose(xa.grad.numpy(), ta.grad.numpy(), atol=1e-12,
                                           err_msg=f"{name} {mode} {dim}")
    ta, xa = torch.tensor(a, requires_grad=True), tp.tensor(a, requires_grad=True)
    torch.nanmedian(ta).backward()
    tp.nanmedian(xa).backward()
    np.testing.assert_allclose(xa.grad.numpy(), ta.grad.numpy())


def test_ldexp_gradient_at_negative_integer_exponents_is_the_derivative():
    # PyTorch 2.x gives 0 there (its backward raises 2 to the power in integers); tensorplay's is
    # d/dx x * 2**e = 2**e
    x = tp.tensor([1.0, 2.0, -3.0], dtype=tp.float64, requires_grad=True)
    e = tp.tensor([-2, 1, -1])
    r = tp.ldexp(x, e)
    r.sum().backward()
    assert r.tolist() == [0.25, 4.0, -1.5] and x.grad.tolist() == [0.25, 2.0, 0.5]
    assert tp.ldexp(tp.tensor([1, 2]), tp.tensor([1, 2])).dtype == tp.float32
    assert tp.ldexp(tp.tensor([1.0]).half(), tp.tensor([3])).dtype == tp.float16
    with pytest.raises(RuntimeError, match="ldexp can't be cast to the desired output type Long"):
        tp.tensor([1, 2]).ldexp_(tp.tensor([1, 2]))


def test_nextafter_gradient_where_equal_is_zero_as_pytorch():
    x = tp.tensor([1.0, 2.0], dtype=tp.float64, requires_grad=True)
    y = tp.tensor([1.0, 1.0], dtype=tp.float64, requires_grad=True)
    tp.nextafter(x, y).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0] and y.grad.tolist() == [0.0, 0.0]
    for dt in (tp.float16, tp.bfloat16):
        r = tp.nextafter(tp.tensor([1.0, 0.0, -1.0]).to(dt), tp.tensor([2.0, -1.0, -2.0]).to(dt))
        up, tiny, down = r.float().tolist()
        assert up > 1.0 and tiny < 0 and down < -1.0 and r.dtype == dt


def test_frexp_specials_gcd_lcm():
    m, e = tp.frexp(tp.tensor([0.0, 1.0, -3.5, 8.0, np.inf, np.nan, 1e-310], dtype=tp.float64))
    assert e.dtype == tp.int32 and e.tolist() == [0, 1, 2, 4, 0, 0, -1029]
    np.testing.assert_array_equal(m.numpy()[:5], [0.0, 0.5, -0.875, 0.5, np.inf])
    a, b = tp.tensor([12, -18, 0, 7]), tp.tensor([8, 12, 0, -21])
    assert tp.gcd(a, b).tolist() == [4, 6, 0, 7] and tp.lcm(a, b).tolist() == [24, 36, 0, 21]
    c = a.to(tp.int32)
    c.lcm_(b)
    assert c.dtype == tp.int32 and c.tolist() == [24, 36, 0, 21]


def test_histogram_unravel_index_trapezoid_gradient_values():
    h, edges = tp.histogram(tp.tensor([1.0, 2, 2, 3, 7, 0.5]), 3, range=(0.0, 4.0))
    assert h.tolist() == [2.0, 2.0, 1.0] and len(edges) == 4
    with pytest.raises(TypeError, match="histogram\\(\\) received an invalid combination of arguments"):
        tp.histogram(tp.tensor([1.0]), tp.tensor([0.0, 1.0]), range=(0.0, 1.0))
    h, _ = tp.histogram(tp.tensor([1.0, 1.0]), 2)
    assert h.tolist() == [0.0, 2.0]
    r, c = tp.unravel_index(tp.tensor([4, -1, 12, -13]), (3, 4))
    assert r.tolist() == [1, 2, 0, 2] and c.tolist() == [0, 3, 0, 3]
    y = tp.tensor([[1.0, 2, 4], [0, 3, 5]])
    assert tp.trapezoid(y).tolist() == [4.5, 5.5] and tp.trapz(y, dx=2).tolist() == [9.0, 11.0]
    assert tp.cumulative_trapezoid(y, tp.tensor([1.0, 2, 4])).tolist() == [[1.5, 7.5], [1.5, 9.5]]
    g0, g1 = tp.gradient(tp.tensor([[1.0, 2, 4, 8], [0, 3, 5, 9], [2, 2, 2, 2]]),
                         spacing=(tp.tensor([0.0, 1, 3]), tp.tensor([0.0, 1, 1.5, 4])), edge_order=2)
    np.testing.assert_allclose(g0.numpy()[0], [-5 / 3, 1.5, 11 / 6, 2.5], rtol=1e-6)
    np.testing.assert_allclose(g1.numpy()[0], [-1.0, 3.0, 3.6, -0.4], rtol=1e-5)
    assert tp.combinations(tp.tensor([1.0, 2, 3]), 0).shape == (0,)
    assert tuple(tp.combinations(tp.tensor([1.0, 2]), 3).shape) == (0, 3)
    assert tp.cartesian_prod(tp.tensor([1, 2]), tp.tensor([3, 4])).tolist() == [[1, 3], [1, 4], [2, 3], [2, 4]]
