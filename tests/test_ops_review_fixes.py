"""Fixes from a review of tensor ops against PyTorch: scatter_reduce/index_reduce
(prod's second derivatives with several zeros, amax/amin's tie count without self),
sinc's derivatives near 0, std/var's float32 precision, logit's gradient outside
[0, 1] and its eps clamp, einsum's size-1 broadcasting backward and dtype promotion.

Expected values are closed forms or PyTorch 2.13's own results; the tests marked
"against torch" also ask torch when it is installed.
"""
import math
import warnings

import numpy as np
import pytest

import tensorplay as tp
from tensorplay.autograd import gradcheck, gradgradcheck


def _t(v, dtype=tp.float64, grad=True):
    return tp.tensor(v, dtype=dtype, requires_grad=grad)


def _torch():
    try:
        import torch
    except ImportError:
        pytest.skip("torch is not installed")
    return torch


# ------------------------------------------------------------------ scatter_reduce / index_reduce
def test_scatter_prod_second_derivative_two_zeros_with_self():
    s, t = _t([0.0, 1.0]), _t([0.0, 3.0])
    y = tp.scatter_reduce(s, 0, tp.tensor([0, 0]), t, "prod")        # y0 = s0 t0 t1
    gs, = tp.autograd.grad(y[0], s, create_graph=True)               # t0 t1
    assert gs.tolist() == [0.0, 0.0]
    h, = tp.autograd.grad(gs[0], t)                                   # (t1, t0)
    assert h.tolist() == [3.0, 0.0]


def test_scatter_prod_hessian_two_zeros_in_src():
    s, t = _t([2.0]), _t([0.0, 0.0, 5.0])
    y = tp.scatter_reduce(s, 0, tp.tensor([0, 0, 0]), t, "prod")     # 2 t0 t1 t2
    g, = tp.autograd.grad(y[0], t, create_graph=True)
    assert g.tolist() == [0.0, 0.0, 0.0]
    rows = [tp.autograd.grad(g[i], t, retain_graph=True)[0].tolist() for i in range(3)]
    assert rows == [[0.0, 10.0, 0.0], [10.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    # and the mixed derivative with self: d2/(ds dt2) = t0 t1 = 0, d2/(ds dt0) = t1 t2 = 0
    gs, = tp.autograd.grad(y[0], s, create_graph=True)
    assert tp.autograd.grad(gs[0], t)[0].tolist() == [0.0, 0.0, 0.0]


def test_scatter_prod_third_derivative_three_zeros():
    t = _t([0.0, 0.0, 0.0, 2.0])
    y = tp.scatter_reduce(_t([1.0], grad=False), 0, tp.tensor([0, 0, 0, 0]), t, "prod")
    g, = tp.autograd.grad(y[0], t, create_graph=True)
    h, = tp.autograd.grad(g[0], t, create_graph=True)
    k, = tp.autograd.grad(h[1], t)
    assert k.tolist() == [0.0, 0.0, 2.0, 0.0]                         # d3/(dt0 dt1 dt2) = t3


@pytest.mark.parametrize("include_self", [True, False])
def test_prod_gradgradcheck_with_zeros(include_self):
    rs = np.random.RandomState(0)
    x = rs.randn(3, 4)
    x[0, 1] = x[2, 2] = 0.0
    src = rs.randn(3, 4)
    src[0, 1] = src[1, 1] = src[2, 2] = src[0, 0] = src[1, 0] = 0.0
    X, S = _t(x), _t(src)
    idx = tp.tensor([[0, 0, 2, 1], [2, 0, 2, 1], [1, 2, 2, 0]])

    def f(a, b):
        return tp.scatter_reduce(a, 0, idx, b, "prod", include_self=include_self)

    assert gradcheck(f, (X, S))
    assert gradgradcheck(f, (X, S))

    def g(a, b):
        return tp.index_reduce(a, 1, tp.tensor([0, 0, 3, 3]), b, "prod", include_self=include_self)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)      # (index_reduce is "in beta")
        assert gradcheck(g, (X, S))
        assert gradgradcheck(g, (X, S))


@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_amax_amin_without_self_count_self_ties(reduce):
    s, t = _t([3.0, 1.0]), _t([3.0])
    y = tp.scatter_reduce(s, 0, tp.tensor([0]), t, reduce, include_self=False)
    gs, gt = tp.autograd.grad(y.sum(), (s, t))
    assert y.tolist() == [3.0, 1.0]
    assert gs.tolist() == [0.0, 1.0] and gt.tolist() == [0.5]        # PyTorch's shares
    # not equal to the result: self does not count
    s2 = _t([2.0 if reduce == "amax" else 4.0, 1.0])
    y = tp.scatter_reduce(s2, 0, tp.tensor([0]), t, reduce, include_self=False)
    gs, gt = tp.autograd.grad(y.sum(), (s2, t))
    assert gs.tolist() == [0.0, 1.0] and gt.tolist() == [1.0]


def test_index_reduce_amax_without_self_counts_self():
    s = _t([[3.0, 1.0], [2.0, 2.0]])
    t = _t([[3.0, 1.0], [2.0, 2.0], [3.0, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        y = tp.index_reduce(s, 0, tp.tensor([0, 1, 0]), t, "amax", include_self=False)
    gs, gt = tp.autograd.grad(y.sum(), (s, t))
    assert gs.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    third = 1 / 3
    assert np.allclose(gt.numpy(), [[third, third], [0.5, 0.5], [third, third]], rtol=0, atol=1e-15)


# ------------------------------------------------------------------ sinc
def _sinc_d1_d2(x):
    """sinc' and sinc'' in float64: their Taylor series summed to convergence for
    |pi x| < 2, the closed forms beyond."""
    z = math.pi * x
    if abs(z) < 2:
        d1 = sum((-1) ** n * 2 * n * z ** (2 * n - 1) / math.factorial(2 * n + 1)
                 for n in range(1, 25))
        d2 = sum((-1) ** n * 2 * n * (2 * n - 1) * z ** (2 * n - 2) / math.factorial(2 * n + 1)
                 for n in range(1, 25))
        return math.pi * d1, math.pi ** 2 * d2
    d1 = math.pi * (z * math.cos(z) - math.sin(z)) / z ** 2
    d2 = math.pi ** 2 * ((2 - z * z) * math.sin(z) - 2 * z * math.cos(z)) / z ** 3
    return d1, d2


@pytest.mark.parametrize("dtype", [tp.float64, tp.float32, tp.complex128])
def test_sinc_derivatives_near_zero(dtype):
    vals = [0.0, 1e-300, 1e-200, 1e-160, 1e-100, 1e-40, 1e-20, 1e-10, 1e-5, 1e-3, 0.1, 0.3,
            1 / math.pi - 1e-9, 1 / math.pi + 1e-9, 0.5, 1.0, 2.5]
    if dtype == tp.float32:
        vals = [v for v in vals if v == 0 or v > 1e-38]
    x = tp.tensor(vals + [-v for v in vals], dtype=dtype, requires_grad=True)
    g, = tp.autograd.grad(tp.sinc(x).real.sum() if dtype.is_complex else tp.sinc(x).sum(), x,
                          create_graph=True)
    gg, = tp.autograd.grad(g.real.sum() if dtype.is_complex else g.sum(), x)
    # (float32: at the float32 inputs, computed in float32 arithmetic)
    xs = x.detach().numpy().real.astype(np.float64).tolist()
    want = np.array([_sinc_d1_d2(v) for v in xs])
    tol = 1e-13 if dtype != tp.float32 else 2e-5
    got1, got2 = g.detach().numpy().real.astype(np.float64), gg.numpy().real.astype(np.float64)
    assert np.all(np.isfinite(got1)) and np.all(np.isfinite(got2))
    assert np.allclose(got1, want[:, 0], rtol=tol, atol=0)
    assert np.allclose(got2, want[:, 1], rtol=tol, atol=0)
    assert gg.numpy().real[0] == pytest.approx(-math.pi ** 2 / 3, rel=tol)   # at 0 (torch: NaN)


def test_sinc_gradgradcheck_across_the_branch():
    x = _t([0.0, 1e-200, 1e-12, 0.2, 0.3183, 0.3184, -0.31831, 0.7, 3.3])
    assert gradcheck(tp.sinc, (x,))
    assert gradgradcheck(tp.sinc, (x,))
    z = tp.tensor([0.1 + 0.2j, 1e-150 - 1e-150j, 0.3 + 0.05j, 1.5 - 0.5j], dtype=tp.complex128,
                  requires_grad=True)
    assert gradcheck(tp.sinc, (z,))
    assert gradgradcheck(tp.sinc, (z,))


# ------------------------------------------------------------------ std / var
def test_std_float32_range_and_precision():
    x = _t([3e19, -3e19, 1e19], tp.float32)
    r = tp.std(x)
    assert r.dtype == tp.float32
    assert float(r) == pytest.approx(np.std(np.array([3e19, -3e19, 1e19], np.float32)
                                            .astype(np.float64), ddof=1), rel=1e-7)
    g, = tp.autograd.grad(r, x)
    assert np.all(np.isfinite(g.numpy()))
    rs = np.random.RandomState(0)
    tiny = (rs.randn(50) * 1e-25).astype(np.float32)
    xt = _t(tiny, tp.float32)
    r = tp.std(xt)
    ref = np.std(tiny.astype(np.float64), ddof=1)
    assert float(r) == pytest.approx(ref, rel=1e-6)
    g, = tp.autograd.grad(r, xt)
    d = tiny.astype(np.float64) - tiny.astype(np.float64).mean()
    assert np.allclose(g.numpy(), d / (49 * ref), rtol=1e-5, atol=0)
    big = (rs.randn(100000) + 1e6).astype(np.float32)
    b64 = big.astype(np.float64)
    for f, ref in ((tp.std, np.std(b64, ddof=1)), (tp.var, np.var(b64, ddof=1))):
        v = float(f(tp.tensor(big)))
        assert abs(v - ref) / ref < 1e-6                    # float32 rounding of the exact value


def test_std_var_mean_float32_in_double():
    rs = np.random.RandomState(1)
    big = (rs.randn(1000, 3) + 1e6).astype(np.float32)
    b64 = big.astype(np.float64)
    s, m = tp.std_mean(tp.tensor(big), dim=0)
    v, m2 = tp.var_mean(tp.tensor(big), 0, keepdim=True)
    assert s.dtype == m.dtype == v.dtype == tp.float32
    assert np.array_equal(m.numpy(), b64.mean(0).astype(np.float32))
    assert np.array_equal(m2.numpy(), b64.mean(0, keepdims=True).astype(np.float32))
    assert np.allclose(s.numpy(), b64.std(0, ddof=1), rtol=1e-6, atol=0)
    assert np.allclose(v.numpy(), b64.var(0, ddof=1, keepdims=True), rtol=1e-6, atol=0)
    h = tp.tensor(rs.randn(300) * 100 + 3000, dtype=tp.float16)
    sh, mh = tp.std_mean(h)
    h64 = h.numpy().astype(np.float64)
    assert sh.dtype == mh.dtype == tp.float16
    assert float(mh) == float(np.float16(h64.mean()))
    assert float(sh) == float(np.float16(h64.std(ddof=1)))
    c = tp.tensor(rs.randn(200) + 1j * rs.randn(200) + 1e4, dtype=tp.complex64)
    vc = tp.var(c)
    assert vc.dtype == tp.float32
    c64 = c.numpy().astype(np.complex128)
    assert float(vc) == pytest.approx(np.var(c64, ddof=1), rel=1e-6)


@pytest.mark.parametrize("fn", ["std", "var"])
def test_std_var_float64_grads_unchanged(fn):
    rs = np.random.RandomState(2)
    x = _t(rs.randn(3, 4))
    f = lambda a: getattr(tp, fn)(a, 1, correction=0)     # noqa: E731
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
    f2 = lambda a: tp.std_mean(a, 0)                       # noqa: E731
    assert gradcheck(f2, (x,)) and gradgradcheck(f2, (x,))


# ------------------------------------------------------------------ logit
def test_logit_gradient_outside_unit_interval_is_nan():
    x = _t([-0.5, 1.5, 0.5, float("nan")])
    g, = tp.autograd.grad(tp.logit(x).sum(), x)
    out = g.tolist()
    assert math.isnan(out[0]) and math.isnan(out[1]) and out[2] == 4.0 and math.isnan(out[3])
    x = _t([0.0, -0.0, 1.0], tp.float32)
    g, = tp.autograd.grad(tp.logit(x).sum(), x)
    assert g.tolist() == [math.inf, math.inf, math.inf]


def test_logit_eps_clamp():
    x = _t([0.0, 1.0, 0.5, -0.5, 1.5])
    y = tp.logit(x, 0.6)                    # lo 0.6 > hi 0.4: below lo is lo, else hi
    l6 = math.log(0.6 / 0.4)
    assert np.allclose(y.tolist(), [l6, -l6, l6, l6, -l6], rtol=1e-15, atol=0)
    g, = tp.autograd.grad(y.sum(), x)
    assert g.tolist() == [0.0] * 5
    y = tp.logit(x, 0.2)
    l2 = math.log(0.2 / 0.8)
    assert np.allclose(y.tolist(), [l2, -l2, 0.0, l2, -l2], rtol=1e-15, atol=1e-15)
    g, = tp.autograd.grad(y.sum(), x)
    assert g.tolist() == [0.0, 0.0, 4.0, 0.0, 0.0]
    # half/bfloat16: eps in the input's dtype, each step rounded to it (PyTorch's values)
    assert tp.logit(tp.tensor([0.0], dtype=tp.float16), 0.6).tolist() == [0.406005859375]
    assert tp.logit(tp.tensor([0.0], dtype=tp.bfloat16), 0.1).tolist() == [-2.1875]


def test_logit_gradgradcheck():
    x = _t([0.1, 0.3, 0.55, 0.9])
    assert gradcheck(tp.logit, (x,)) and gradgradcheck(tp.logit, (x,))
    f = lambda a: tp.logit(a, 0.2)          # noqa: E731
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


# ------------------------------------------------------------------ einsum
def test_einsum_size_one_broadcast_against_contracted_label():
    A = _t(np.arange(9.0).reshape(3, 3))
    v = _t([2.0])
    y = tp.einsum("ij,j->i", A, v)
    assert y.tolist() == [6.0, 24.0, 42.0]
    gA, gv = tp.autograd.grad(y.sum(), (A, v))
    assert tuple(gA.shape) == (3, 3) and gA.tolist() == [[2.0] * 3] * 3
    assert gv.tolist() == [36.0]
    B = _t(np.arange(6.0).reshape(3, 2, 1))
    C = _t(np.arange(8.0).reshape(1, 2, 4))
    assert gradcheck(lambda a, b: tp.einsum("bij,bjk->bik", a, b), (B, C))
    assert gradgradcheck(lambda a, b: tp.einsum("bij,bjk->bik", a, b), (B, C))
    D = _t(np.arange(6.0).reshape(3, 2))
    E = _t(np.arange(3.0).reshape(3, 1))
    assert gradcheck(lambda a, b: tp.einsum("ij,ij->i", a, b), (D, E))
    assert gradgradcheck(lambda a, b: tp.einsum("ij,ij->i", a, b), (D, E))


@pytest.mark.parametrize("eq,dts,want", [
    ("i,i->i", (tp.int64, tp.float64), tp.float64),
    ("i,i->i", (tp.float32, tp.float64), tp.float64),
    ("i,i->i", (tp.float16, tp.float32), tp.float32),
    ("i,i->i", (tp.bfloat16, tp.float16), tp.float32),
    ("i,i->i", (tp.complex64, tp.complex128), tp.complex128),
    ("i,i->i", (tp.float32, tp.complex64), tp.complex64),
    ("i,i->i", (tp.int32, tp.int64), tp.int64),
    ("i,j->ij", (tp.int64, tp.float64), tp.float64),
    ("ii,i->i", (tp.float32, tp.float64), tp.float64),
    ("i,i,i->i", (tp.float32, tp.float32, tp.float64), tp.float64),
    ("j,j,i->i", (tp.float32, tp.float32, tp.float64), tp.float64),
])
def test_einsum_promotes_without_contraction(eq, dts, want):
    ops = []
    for k, (term, dt) in enumerate(zip(eq.split("->")[0].split(","), dts)):
        n = 2 ** len(term)
        a = np.arange(1, n + 1).reshape((2,) * len(term)) + k
        ops.append(tp.tensor(a).to(dt))
    r = tp.einsum(eq, *ops)
    assert r.dtype == want
    ref = np.einsum(eq, *[o.to(tp.complex128).numpy() for o in ops])
    assert np.allclose(r.to(tp.complex128).numpy(), ref)


@pytest.mark.parametrize("eq,dts,msg", [
    ("i,i->", (tp.int64, tp.float64), "expected scalar type Long but found Double"),
    ("ij,jk->ik", (tp.float32, tp.float64), "expected scalar type Float but found Double"),
    ("i,j,j->i", (tp.float64, tp.float32, tp.float32), "expected scalar type Double but found Float"),
    ("j,j,i->i", (tp.float32, tp.float64, tp.float64), "expected scalar type Float but found Double"),
])
def test_einsum_contraction_wants_one_dtype(eq, dts, msg):
    ops = [tp.ones((2,) * len(term)).to(dt) for term, dt in zip(eq.split("->")[0].split(","), dts)]
    with pytest.raises(RuntimeError, match=msg):
        tp.einsum(eq, *ops)


def test_einsum_mixed_dtype_gradients():
    a = _t([1.0, 2.0], tp.float32)
    b = _t([1.5, 2.5])
    y = tp.einsum("i,i->i", a, b)
    assert y.dtype == tp.float64
    ga, gb = tp.autograd.grad(y.sum(), (a, b))
    assert ga.dtype == tp.float32 and ga.tolist() == [1.5, 2.5]
    assert gb.dtype == tp.float64 and gb.tolist() == [1.0, 2.0]


# ------------------------------------------------------------------ against torch
def test_against_torch():
    torch = _torch()
    # scatter_reduce amax without self, and prod's second derivative
    res = []
    for lib in (tp, torch):
        s = lib.tensor([3.0, 1.0], dtype=lib.float64, requires_grad=True)
        t = lib.tensor([3.0, 3.0, 0.5], dtype=lib.float64, requires_grad=True)
        y = lib.scatter_reduce(s, 0, lib.tensor([0, 0, 1]), t, "amax", include_self=False)
        res.append([g.tolist() for g in lib.autograd.grad(y.sum(), (s, t))])
        s = lib.tensor([0.0, 1.0], dtype=lib.float64, requires_grad=True)
        t = lib.tensor([0.0, 3.0], dtype=lib.float64, requires_grad=True)
        y = lib.scatter_reduce(s, 0, lib.tensor([0, 0]), t, "prod")
        gs, = lib.autograd.grad(y[0], s, create_graph=True)
        res[-1].append(lib.autograd.grad(gs[0], t)[0].tolist())
    assert res[0] == res[1]
    # logit
    x = [-0.5, 1.5, 0.5, 0.0, 1.0, 0.25]
    for eps in (None, 0.6, 0.2):
        res = []
        for lib in (tp, torch):
            xt = lib.tensor(x, dtype=lib.float64, requires_grad=True)
            y = lib.logit(xt, eps)
            res.append((y.tolist(), lib.autograd.grad(y.sum(), xt)[0].tolist()))
        np.testing.assert_allclose(np.array(res[0]), np.array(res[1]), rtol=1e-15, atol=0)
    # std/var float32
    rs = np.random.RandomState(3)
    for v in ([3e19, -3e19, 1e19], rs.randn(40) * 1e-25, rs.randn(1000) + 1e6):
        a = np.asarray(v, np.float32)
        for name in ("std", "var"):
            r_tp = getattr(tp, name)(tp.tensor(a), correction=1)
            r_t = getattr(torch, name)(torch.tensor(a, dtype=torch.float64), correction=1).float()
            assert float(r_tp) == pytest.approx(float(r_t), rel=2e-7)
        m_tp = tp.std_mean(tp.tensor(a))[1]
        m_t = torch.std_mean(torch.tensor(a))[1]
        assert float(m_tp) == float(m_t)
    # einsum
    A = torch.arange(9.0).reshape(3, 3).requires_grad_()
    v = torch.tensor([2.0], requires_grad=True)
    gA, gv = torch.autograd.grad(torch.einsum("ij,j->i", A, v).sum(), (A, v))
    At, vt = _t(np.arange(9.0).reshape(3, 3), tp.float32), _t([2.0], tp.float32)
    hA, hv = tp.autograd.grad(tp.einsum("ij,j->i", At, vt).sum(), (At, vt))
    assert hA.tolist() == gA.tolist() and hv.tolist() == gv.tolist()
    r_t = torch.einsum("i,i->i", torch.tensor([1, 2]), torch.tensor([1.5, 2.5], dtype=torch.float64))
    r_tp = tp.einsum("i,i->i", tp.tensor([1, 2]), tp.tensor([1.5, 2.5], dtype=tp.float64))
    assert r_tp.tolist() == r_t.tolist() and str(r_tp.dtype).split(".")[-1] == str(r_t.dtype).split(".")[-1]
