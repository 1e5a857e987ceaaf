"""Regression tests for reductions, statistics and sorting found against PyTorch 2.13
(session 15): histogram's bin edges, lerp next to infinities (and so quantile),
mode/searchsorted/nanmedian/unique with NaN, out= and errors of the reductions.
Expected values are PyTorch's, written out so that the tests run without torch;
where torch is installed they are compared with it too."""
import math

import numpy as np
import pytest

import tensorplay as tp

from conftest import torch

nan, inf = float("nan"), float("inf")


def _same(a, b):
    """Lists equal, NaN equal to NaN."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


def _raises(f):
    try:
        f()
    except Exception as e:      # noqa: BLE001
        return type(e).__name__, str(e)
    return None


def _same_error(make, lib_pairs=None):
    """tensorplay raises what torch raises (type and first line of the message)."""
    a = _raises(lambda: make(tp))
    assert a is not None
    if torch is not None:
        b = _raises(lambda: make(torch))
        assert b is not None
        assert a[0] == b[0] and a[1].split("\n")[0] == b[1].split("\n")[0], (a, b)
    return a


# ------------------------------------------------------------------ 1. histogram edges
def test_histogram_float64_edges_are_linspace():
    v = -0.49999999999999994                  # PyTorch's edge 4 exactly
    h, e = tp.histogram(tp.tensor([v], dtype=tp.float64), 7, range=(-1.7, 0.4))
    assert h.tolist() == [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    assert e[4].item() == v
    grid = np.round(np.arange(-3.0, 0.6 + 1e-9, 0.1), 1)
    assert tp.histogram(tp.tensor(grid), 6, range=(-3.0, 0.6))[0].tolist() == [6.0, 6.0, 6.0, 6.0, 6.0, 7.0]
    # an edge a long double sum would round twice (PyTorch rounds its multiply-add once)
    e = tp.histogram(tp.tensor([0.0], dtype=tp.float64), 12, range=(1328.3564823670263, 1329.208470808484))[1]
    assert e[3].item() == 1328.5694794773906 and e[9].item() == 1328.9954736981197


def test_histogram_range_overflow_and_infinite_step():
    for dt, name in (("float32", "float"), ("float16", "c10::Half")):
        err = _same_error(lambda L: L.histogram(L.tensor([0.0], dtype=getattr(L, dt)), 3, range=(-1e300, 1e300)))
        assert err == ("RuntimeError", f"value cannot be converted to type {name} without overflow")
    e = tp.histogram(tp.tensor([0.0], dtype=tp.float64), 5, range=(-1e308, 1e308))[1]
    assert _same(e.tolist(), [nan, inf, inf, -inf, -inf, nan])        # (PyTorch's: the step overflows)


@pytest.mark.skipif(torch is None, reason="torch not installed")
@pytest.mark.parametrize("dt", ["float64", "float32"])
def test_histogram_edges_match_torch_linspace(dt):
    rng = np.random.default_rng(5)
    for _ in range(300):
        lo = float(rng.standard_normal() * rng.choice([1, 10, 1e3]))
        hi = lo + float(rng.random() * rng.choice([1, 10, 100])) + 1e-3
        n = int(rng.integers(1, 80))
        x = rng.uniform(lo, hi, 40)
        a = torch.histogram(torch.tensor(x, dtype=getattr(torch, dt)), n, range=(lo, hi))
        b = tp.histogram(tp.tensor(x, dtype=getattr(tp, dt)), n, range=(lo, hi))
        assert b[1].tolist() == a[1].tolist() == torch.linspace(lo, hi, n + 1, dtype=getattr(torch, dt)).tolist()
        assert b[0].tolist() == a[0].tolist()


# ------------------------------------------------------------------ 2. lerp next to infinities
@pytest.mark.parametrize("dt", ["float64", "float32"])
def test_lerp_two_formulas_as_torch(dt):
    d = getattr(tp, dt)
    cases = [(-inf, 2.0, 0.5, -inf), (-inf, 2.0, 0.25, nan), (1.0, inf, 0.75, nan), (1.0, inf, 0.25, inf),
             (-inf, 2.0, 0.75, -inf), (1.0, inf, -0.75, nan), (-inf, 2.0, -0.25, -inf), (1.0, 3.0, 1.0, 3.0),
             (1.0, 3.0, -1.0, -1.0), (2.0, inf, 1.5, inf)]
    for s, e, w, want in cases:
        for weight in (w, tp.tensor(w, dtype=d)):
            got = tp.lerp(tp.tensor(s, dtype=d), tp.tensor(e, dtype=d), weight).item()
            assert _same(got, want), (s, e, w, got)
            if torch is not None:
                tw = w if not isinstance(weight, tp.Tensor) else torch.tensor(w, dtype=getattr(torch, dt))
                ref = torch.lerp(torch.tensor(s, dtype=getattr(torch, dt)), torch.tensor(e, dtype=getattr(torch, dt)), tw)
                assert _same(got, ref.item())


def test_lerp_inplace_and_gradients_unchanged():
    s = tp.tensor([-inf, 1.0, 0.5])
    s.lerp_(tp.tensor([2.0, inf, 1.5]), 0.75)
    assert _same(s.tolist(), [-inf, nan, 1.25])
    rng = np.random.default_rng(0)
    a, b, w = (tp.tensor(rng.standard_normal(5), dtype=tp.float64, requires_grad=True) for _ in range(3))
    assert tp.autograd.gradcheck(tp.lerp, (a, b, w))
    assert tp.autograd.gradgradcheck(tp.lerp, (a, b, w))


def test_quantile_next_to_infinities():
    t = tp.tensor([2.0, -inf, inf, -inf], dtype=tp.float64)
    assert tp.quantile(t, 0.5).item() == -inf
    assert tp.quantile(t, 0.5, interpolation="midpoint").item() == -inf
    assert tp.nanquantile(tp.tensor([1.0, inf, nan]), 0.25).item() == inf
    assert math.isnan(tp.quantile(tp.tensor([1.0, inf]), 0.75).item())


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_quantile_with_infinities_matches_torch():
    rng = np.random.default_rng(1)
    pool = np.array([-inf, inf, nan, 0.0, 1.0, 2.0, -3.0])
    for _ in range(300):
        x = rng.choice(pool, int(rng.integers(1, 7)))
        q = float(rng.choice([0.0, 0.1, 0.25, 0.5, 0.6, 0.75, 1.0]))
        for interp in ("linear", "midpoint", "nearest"):
            for f in ("quantile", "nanquantile"):
                a = getattr(torch, f)(torch.tensor(x), q, interpolation=interp).item()
                b = getattr(tp, f)(tp.tensor(x), q, interpolation=interp).item()
                assert _same(a, b), (x, q, interp, f)


# ------------------------------------------------------------------ 3. mode with NaN
def test_mode_each_nan_distinct():
    r = tp.mode(tp.tensor([nan, nan, nan, 0.0, 0.0, 1.0]))
    assert r.values.item() == 0.0 and r.indices.item() == 4
    r = tp.mode(tp.tensor([nan, 0.0, -1.0, nan]))
    assert math.isnan(r.values.item()) and r.indices.item() == 0
    r = tp.mode(tp.tensor([[1.0, nan, 1.0, nan], [nan, nan, 2.0, 3.0]]), 1)
    assert _same(r.values.tolist(), [1.0, nan]) and r.indices.tolist() == [0, 0]
    # a row longer than 16: the index where PyTorch's (unstable) std::sort leaves the last of the run
    x = [3.0, 2.0, 3.0, 0.0, 0.0, 3.0, 2.0, 2.0, 1.0, 0.0, 2.0, 3.0, 3.0, 0.0, 2.0, 1.0, 2.0]
    r = tp.mode(tp.tensor(x))
    assert r.values.item() == 2.0 and r.indices.item() == 1


@pytest.mark.skipif(torch is None, reason="torch not installed")
@pytest.mark.parametrize("dt", ["float64", "float32", "float16", "bfloat16", "int64"])
def test_mode_matches_torch(dt):
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 16, 17, 40, 300):
        for _ in range(10):
            x = rng.integers(0, 4, (3, n)).astype(float)
            if dt != "int64":
                x[rng.random((3, n)) < 0.2] = nan
            for d in (1, 0):
                a = torch.mode(torch.tensor(x).to(getattr(torch, dt)), d)
                b = tp.mode(tp.tensor(x).to(getattr(tp, dt)), d)
                assert b.indices.tolist() == a.indices.tolist()
                assert _same(b.values.float().tolist(), a.values.float().tolist())


# ------------------------------------------------------------------ 4. searchsorted/bucketize with NaN
def test_searchsorted_nan_boundaries_plain_comparisons():
    s = tp.tensor([1.0, 2.0, nan])
    assert tp.searchsorted(s, tp.tensor([nan, 3.0, 1.5])).tolist() == [3, 3, 1]
    assert tp.searchsorted(s, tp.tensor([nan, 3.0]), right=True).tolist() == [3, 3]
    assert tp.bucketize(tp.tensor([nan, 3.0, 1.5]), s).tolist() == [3, 3, 1]
    s2 = tp.tensor([[1.0, nan, nan], [0.0, 1.0, 2.0]])
    assert tp.searchsorted(s2, tp.tensor([[1.0], [1.0]])).tolist() == [[3], [1]]
    assert tp.searchsorted(s2, tp.tensor([[5.0], [5.0]]), right=True).tolist() == [[3], [3]]
    # with a sorter
    sh = tp.tensor([nan, 2.0, 1.0])
    assert tp.searchsorted(sh, tp.tensor([1.5, nan]), sorter=tp.tensor([2, 1, 0])).tolist() == [1, 3]


def test_searchsorted_sorter_errors():
    t4 = lambda L: L.tensor([1.0, 2.0, 3.0, 4.0])      # noqa: E731
    err = _same_error(lambda L: L.searchsorted(t4(L), t4(L), sorter=L.tensor([0, 1])))
    assert err == ("RuntimeError", "torch.searchsorted(): boundary and sorter must have the same size, "
                                   "but got boundary tensor [4]and got sorter tensor [2]")
    err = _same_error(lambda L: L.searchsorted(t4(L), t4(L), sorter=L.tensor([0, 1, 2, 3], dtype=L.int32)))
    assert err[0] == "RuntimeError" and "sorter must be a tensor of long dtype but got dtype Int" in err[1]
    err = _same_error(lambda L: L.searchsorted(t4(L), t4(L), sorter=L.tensor([0, 1, 2, 7])))
    assert err == ("RuntimeError", "torch.searchsorted(): sorter index out of range")


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_searchsorted_nan_matches_torch():
    rng = np.random.default_rng(0)
    pool = np.array([nan, -inf, inf, 0.0, 1.0, 2.0, 3.0])
    for _ in range(300):
        n, m, nd = int(rng.integers(0, 8)), int(rng.integers(1, 6)), bool(rng.integers(2))
        b = np.sort(rng.choice(pool, (2, n) if nd else n), axis=-1)       # NaN last, as torch.sort
        v = rng.choice(pool, (2, m) if nd else m)
        right = bool(rng.integers(2))
        for dt in ("float64", "float32", "bfloat16"):
            a = torch.searchsorted(torch.tensor(b).to(getattr(torch, dt)), torch.tensor(v).to(getattr(torch, dt)),
                                   right=right)
            c = tp.searchsorted(tp.tensor(b).to(getattr(tp, dt)), tp.tensor(v).to(getattr(tp, dt)), right=right)
            assert c.tolist() == a.tolist()


# ------------------------------------------------------------------ 5. nanmedian of an all-NaN slice
def test_nanmedian_all_nan_slice_index():
    want = {1: 0, 2: 0, 3: 0, 4: 2, 5: 2, 6: 3, 7: 5, 8: 6, 9: 7, 10: 8, 17: 10, 39: 27, 299: 197}
    for n, i in want.items():
        r = tp.nanmedian(tp.full((2, n), nan), 1)
        assert r.indices.tolist() == [i, i] and all(math.isnan(v) for v in r.values.tolist())
    x = tp.tensor([[nan, nan, nan, nan], [1.0, nan, 3.0, 2.0]])
    r = tp.nanmedian(x, 1)
    assert r.indices.tolist() == [2, 3] and _same(r.values.tolist(), [nan, 2.0])
    r = tp.nanmedian(x.t(), 0, keepdim=True)
    assert r.indices.tolist() == [[2, 3]]


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_nanmedian_indices_match_torch():
    rng = np.random.default_rng(2)
    for n in (1, 2, 3, 4, 5, 8, 17, 40):
        for p in (0.3, 0.8, 1.0):
            x = rng.integers(0, 4, (4, n)).astype(float)
            x[rng.random((4, n)) < p] = nan
            for dt in ("float64", "float32", "bfloat16"):
                a = torch.nanmedian(torch.tensor(x).to(getattr(torch, dt)), 1)
                b = tp.nanmedian(tp.tensor(x).to(getattr(tp, dt)), 1)
                assert b.indices.tolist() == a.indices.tolist()
                assert _same(b.values.float().tolist(), a.values.float().tolist())


# ------------------------------------------------------------------ 6. unique along a dimension
def test_unique_dim_rows_with_nan_order():
    x = tp.tensor([[0.0, 1.0], [nan, -1.0], [1.0, nan]])
    v, inv, cnt = tp.unique(x, dim=0, return_inverse=True, return_counts=True)
    assert _same(v.tolist(), [[nan, -1.0], [0.0, 1.0], [1.0, nan]])
    assert inv.tolist() == [1, 0, 2] and cnt.tolist() == [1, 1, 1]
    # equal rows holding NaN stay apart; equal rows without NaN merge
    x = tp.tensor([[1.0, nan], [0.0, 2.0], [1.0, nan], [0.0, 2.0]])
    v, inv, cnt = tp.unique(x, dim=0, return_inverse=True, return_counts=True)
    assert _same(v.tolist(), [[0.0, 2.0], [1.0, nan], [1.0, nan]])
    assert inv.tolist() == [1, 0, 2, 0] and cnt.tolist() == [2, 1, 1]
    v = tp.unique(x.t(), dim=1)
    assert _same(v.tolist(), [[0.0, 1.0, 1.0], [2.0, nan, nan]])


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_unique_dim_nan_matches_torch():
    rng = np.random.default_rng(0)
    for _ in range(200):
        x = rng.choice(np.array([nan, 0.0, 1.0, -1.0]), (int(rng.integers(1, 20)), int(rng.integers(1, 4))))
        d = int(rng.integers(0, 2))
        a = torch.unique(torch.tensor(x), dim=d, return_inverse=True, return_counts=True)
        b = tp.unique(tp.tensor(x), dim=d, return_inverse=True, return_counts=True)
        assert _same(b[0].tolist(), a[0].tolist()) and b[1].tolist() == a[1].tolist()
        assert b[2].tolist() == a[2].tolist()


@pytest.mark.parametrize("name", ["unique", "unique_consecutive"])
def test_unique_dim_errors(name):
    err = _same_error(lambda L: getattr(L, name)(L.tensor(1.0), dim=0))
    assert err == ("IndexError", "Dimension specified as 0 but tensor has no dimensions")
    err = _same_error(lambda L: getattr(L, name)(L.tensor(1.0), dim=-1))
    assert err == ("IndexError", "Dimension specified as -1 but tensor has no dimensions")
    err = _same_error(lambda L: getattr(L, name)(L.zeros(2, 0), dim=0))
    assert err == ("RuntimeError", "There are 0 sized dimensions, and they aren't selected, so unique cannot "
                                   "be applied")
    v, inv, cnt = getattr(tp, name)(tp.zeros(2, 0), dim=1, return_inverse=True, return_counts=True)
    assert v.shape == (2, 0) and inv.shape == (0,) and cnt.shape == (0,)
    v = getattr(tp, name)(tp.zeros(0, 2), dim=0)
    assert v.shape == (0, 2)


# ------------------------------------------------------------------ 7. out=, errors
def test_prod_nansum_mode_take_out():
    x = tp.tensor([[1.0, 2.0], [3.0, 4.0]])
    o = tp.empty(2)
    assert tp.prod(x, 0, out=o) is o and o.tolist() == [3.0, 8.0]
    o = tp.empty(2, dtype=tp.float64)
    assert tp.prod(x, 1, out=o).tolist() == [2.0, 12.0] and o.dtype == tp.float64
    o = tp.empty(2, 1)
    assert tp.prod(x, 1, True, out=o).tolist() == [[2.0], [12.0]]
    o = tp.empty(2)
    assert tp.nansum(tp.tensor([[1.0, nan], [3.0, 4.0]]), 0, out=o) is o and o.tolist() == [4.0, 4.0]
    o = tp.empty(())
    assert tp.nansum(tp.tensor([1.0, nan]), out=o).item() == 1.0
    v, i = tp.empty(2), tp.empty(2, dtype=tp.int64)
    r = tp.mode(tp.tensor([[1.0, 1.0], [2.0, 1.0]]), 1, out=(v, i))
    assert r[0] is v and r[1] is i and v.tolist() == [1.0, 1.0] and i.tolist() == [1, 1]
    v, i = tp.empty(2, 1), tp.empty(2, 1, dtype=tp.int64)
    tp.mode(tp.tensor([[1.0, 1.0], [2.0, 1.0]]), 1, True, out=[v, i])
    assert v.tolist() == [[1.0], [1.0]] and i.tolist() == [[1], [1]]


def test_out_errors_as_torch():
    x = lambda L: L.tensor([[1.0, 2.0], [3.0, 4.0]])       # noqa: E731
    err = _same_error(lambda L: L.prod(x(L), 0, dtype=L.float64, out=L.empty(2)))
    assert err == ("RuntimeError", "Expected out tensor to have dtype double, but got float instead")
    err = _same_error(lambda L: L.nansum(x(L), 0, dtype=L.float64, out=L.empty(2)))
    assert err == ("RuntimeError", "nansum: provided dtype must match dtype of result. Got Float and Double.")
    err = _same_error(lambda L: L.mode(x(L), 0, out=(L.empty(2, dtype=L.float64), L.empty(2, dtype=L.long))))
    assert err == ("RuntimeError", "expected scalar type 'Float' but got 'Double' for values output")
    err = _same_error(lambda L: L.mode(x(L), 0, out=(L.empty(2), L.empty(2, dtype=L.int32))))
    assert err == ("RuntimeError", "expected scalar type 'Long' but got 'Int' for indices output")
    err = _same_error(lambda L: L.mode(x(L), 0, out=L.empty(2)))
    assert err == ("TypeError", "mode(): argument 'out' must be tuple of Tensors, not Tensor")
    err = _same_error(lambda L: L.prod(x(L).requires_grad_(), 0, out=L.empty(2)))
    assert err[0] == "RuntimeError" and "don't support automatic differentiation" in err[1]


_PROD_SIGS = (" * (Tensor input, *, torch.dtype dtype = None)\n"
              " * (Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)\n")


def test_keepdim_or_out_without_dim_refused():
    x = lambda L: L.tensor([[1.0, 2.0], [3.0, 4.0]])       # noqa: E731
    for kw, got in ((dict(keepdim=True), "keepdim=bool"), (dict(keepdim=False), "keepdim=bool"),
                    (dict(out=None), None)):
        if got is None:
            continue
        err = _same_error(lambda L: L.prod(x(L), **kw))
        assert err == ("TypeError", "prod() received an invalid combination of arguments - got (Tensor, "
                                    f"{got}), but expected one of:\n" + _PROD_SIGS)
    err = _same_error(lambda L: L.prod(x(L), out=L.empty(())))
    assert err == ("TypeError", "prod() received an invalid combination of arguments - got (Tensor, "
                                "out=Tensor), but expected one of:\n" + _PROD_SIGS)
    err = _same_error(lambda L: L.prod(x(L), (0, 1)))
    assert err == ("TypeError", "prod() received an invalid combination of arguments - got (Tensor, "
                                "tuple), but expected one of:\n" + _PROD_SIGS)
    err = _same_error(lambda L: L.prod(x(L), keepdim=True, dtype=L.float64))
    assert err == ("TypeError", 'prod() missing 1 required positional arguments: "dim"')
    for name in ("median", "nanmedian"):
        for kd in (True, False):
            err = _same_error(lambda L: getattr(L, name)(x(L), keepdim=kd))
            assert err == ("TypeError", f'{name}() missing 1 required positional arguments: "dim"')
    # the forms that stay
    assert tp.prod(x(tp)).item() == 24.0 and tp.prod(x(tp), 1, keepdim=True).tolist() == [[2.0], [12.0]]
    assert tp.median(x(tp)).item() == 2.0 and tp.median(x(tp), 0, keepdim=True).values.tolist() == [[1.0, 2.0]]
    assert x(tp).prod(0).tolist() == [3.0, 8.0] and tp.nanmedian(x(tp), 1).values.tolist() == [1.0, 3.0]


def test_cdist_no_columns_is_zeros():
    for p in (0.0, 1.0, 2.0, 3.0, inf):
        a = tp.zeros(2, 3, 0, dtype=tp.float64, requires_grad=True)
        b = tp.zeros(1, 4, 0, dtype=tp.float64, requires_grad=True)
        r = tp.cdist(a, b, p=p)
        assert r.shape == (2, 3, 4) and r.abs().sum().item() == 0.0
        r.sum().backward()
        assert a.grad.shape == (2, 3, 0) and b.grad.shape == (1, 4, 0)


def test_norm_nuclear():
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((2, 3, 4))
    want = float(np.linalg.svd(xs[0], compute_uv=False).sum())
    assert abs(tp.norm(tp.tensor(xs[0]), "nuc").item() - want) < 1e-12
    r = tp.norm(tp.tensor(xs), p="nuc", dim=(1, 2))
    assert np.allclose(r.numpy(), np.linalg.svd(xs, compute_uv=False).sum(-1))
    assert tp.norm(tp.tensor(xs), "nuc", dim=(0, 2), keepdim=True).shape == (1, 3, 1)
    for kw in (dict(), dict(dim=(0, 1)), dict(dim=(1, 0), keepdim=True)):
        t = tp.tensor(xs[0], requires_grad=True)
        assert tp.autograd.gradcheck(lambda a: tp.norm(a, "nuc", **kw), (t,))
        assert tp.autograd.gradgradcheck(lambda a: tp.norm(a, "nuc", **kw), (t,))
    t = tp.tensor(xs[0], requires_grad=True)
    tp.norm(t, "nuc").backward()
    u, _, vh = np.linalg.svd(xs[0], full_matrices=False)
    assert np.allclose(t.grad.numpy(), u @ vh)          # d||A||_* = U V^H
    for make, msg in ((lambda L: L.norm(L.ones(2, 3, 4), "nuc"), "linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2"),
                      (lambda L: L.norm(L.ones(2, 3), "nuc", dim=1), "linalg.matrix_norm: dim must be a 2-tuple. Got 1"),
                      (lambda L: L.norm(L.ones(3), "nuc"), "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."),
                      (lambda L: L.norm(L.ones(2, 3), "abc"), "linalg.matrix_norm: Order abc not supported.")):
        assert _same_error(make) == ("RuntimeError", msg)


def test_norm_nuclear_dtype_and_out():
    x = lambda L: L.tensor([[3.0, 0.0], [0.0, -4.0]])       # noqa: E731
    assert tp.norm(x(tp), "nuc", dtype=tp.float64).dtype == tp.float64
    o = tp.empty(())
    assert tp.norm(x(tp), "nuc", out=o) is o and o.item() == 7.0
    a = x(tp).requires_grad_()
    o = tp.empty(())
    tp.norm(a, "nuc", out=o)
    assert type(o.grad_fn).__name__ == "CopyBackwards"
    o.backward()
    assert a.grad.tolist() == [[1.0, 0.0], [0.0, -1.0]]
    for make, msg in (
            (lambda L: L.norm(x(L), "nuc", out=L.empty((), dtype=L.float64)),
             "linalg.matrix_norm expected out tensor dtype Float but got: Double"),
            (lambda L: L.norm(x(L), "nuc", dtype=L.float16),
             "linalg.matrix_norm: the dtype of the input (Float) should be convertible without narrowing to the "
             "specified dtype (Half)"),
            (lambda L: L.norm(x(L).half(), "nuc"), "linalg.matrix_norm: Low precision dtypes not supported. Got Half"),
            (lambda L: L.norm(x(L).long(), "nuc", dim=(0, 0)),
             "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got Long"),
            (lambda L: L.norm(x(L), "nuc", dim=(0, 0)), "linalg.matrix_norm: dims must be different. Got (0, 0)"),
            (lambda L: L.norm(x(L), "nuc", dtype=L.complex64),
             "linalg.matrix_norm: dtype should be real for real inputs, but got ComplexFloat")):
        assert _same_error(make) == ("RuntimeError", msg)


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_norm_nuclear_matches_torch():
    rng = np.random.default_rng(2)
    xs = rng.standard_normal((2, 3, 4))
    for kw in (dict(), dict(dim=(1, 2)), dict(dim=(0, 2), keepdim=True), dict(dim=(2, 1))):
        xx = xs if kw else xs[0]
        a, b = torch.tensor(xx, requires_grad=True), tp.tensor(xx, requires_grad=True)
        ra, rb = torch.norm(a, "nuc", **kw), tp.norm(b, "nuc", **kw)
        assert np.allclose(ra.detach().numpy(), rb.detach().numpy()) and ra.shape == rb.shape
        ra.sum().backward()
        rb.sum().backward()
        assert np.allclose(a.grad.numpy(), b.grad.numpy())


def test_vector_norm_negative_ord_over_empty():
    for ord_, name in ((-1, "-1"), (-0.5, "-0.5"), (-2.0, "-2"), (-inf, "-inf"), (-1e-5, "-1e-05")):
        err = _same_error(lambda L: L.linalg.vector_norm(L.zeros(2, 0), ord_, dim=1))
        assert err == ("RuntimeError", f"linalg.vector_norm cannot compute the {name} norm on the dimension "
                                       f"1because this dimension is empty and the operation does not have an "
                                       f"identity")
        err = _same_error(lambda L: L.linalg.vector_norm(L.zeros(2, 0), ord_))
        assert err == ("RuntimeError", f"linalg.vector_norm cannot compute the {name} norm on an empty tensor "
                                       f"because the operation does not have an identity")
    err = _same_error(lambda L: L.norm(L.zeros(2, 0), p=-1, dim=-1))
    assert "cannot compute the -1 norm on the dimension -1because" in err[1]
    # a reduced dimension that is not empty: fine
    assert tp.linalg.vector_norm(tp.zeros(2, 0, 3), -1, dim=(0, 2)).shape == (0,)
    assert tp.linalg.vector_norm(tp.ones(2, 3, dtype=tp.float64), -1, dim=1).tolist() == [1 / 3, 1 / 3]


def test_kthvalue_and_logcumsumexp_errors():
    err = _same_error(lambda L: L.kthvalue(L.zeros(2, 0), 1))
    assert err == ("IndexError", "kthvalue(): Expected reduction dim 1 to have non-zero size.")
    err = _same_error(lambda L: L.kthvalue(L.zeros(0), 0))
    assert err == ("IndexError", "kthvalue(): Expected reduction dim 0 to have non-zero size.")
    err = _same_error(lambda L: L.kthvalue(L.zeros(2, 0), 3, 0))
    assert err == ("RuntimeError", "kthvalue(): selected number k out of range for dimension 0")
    r = tp.kthvalue(tp.zeros(2, 0), 1, 0)
    assert r.values.shape == (0,) and r.indices.shape == (0,)
    for d in (1, -2):
        err = _same_error(lambda L: L.logcumsumexp(L.tensor(1.5), d))
        assert err == ("IndexError", f"Dimension out of range (expected to be in range of [-1, 0], but got {d})")
    err = _same_error(lambda L: L.logcumsumexp(L.tensor(1), 3))
    assert err[0] == "IndexError"
    assert tp.logcumsumexp(tp.tensor(1.5), 0).item() == 1.5 and tp.logcumsumexp(tp.tensor(1.5), -1).item() == 1.5
