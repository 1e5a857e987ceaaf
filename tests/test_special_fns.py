"""tensorplay.special and the gamma family: accuracy (against the standard
library, identities, and torch's float64 values where installed), values at poles
and infinities, derivatives of every order, spellings, and the module's surface
against ``dir(torch.special)``."""
import math

import numpy as np
import pytest

import tensorplay as tp
from tensorplay.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:             # the comparisons with PyTorch are skipped
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")
S = tp.special
RNG = np.random.default_rng(1234)
EDGES = np.array([0.0, -0.0, -1.0, -2.0, -2.5, 1.0, 2.0, np.inf, -np.inf, np.nan, 1e-300, -1e-300,
                  1e308, -1e20, 0.5, 3.0, 171.5, -170.5])


def _t(a):
    return tp.from_numpy(np.asarray(a, np.float64))


def _wide(n=400):
    """Positive values from 1e-8 to 1e6, negative non-integers, and [0, 3] densely."""
    return np.concatenate([np.exp(RNG.uniform(math.log(1e-8), math.log(1e6), n)),
                           RNG.uniform(0.0, 3.0, n), RNG.uniform(-60.0, 0.0, n)])


def _close(got, want, rtol, atol=0.0):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape
    both = np.isfinite(want)
    # inf and nan where the reference has them, with the same sign
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[np.isinf(want)], want[np.isinf(want)])
    np.testing.assert_allclose(got[both], want[both], rtol=rtol, atol=atol)


# ----------------------------------------------------------------- without torch
def test_lgamma_against_math():
    x = _wide()
    x = x[x != np.floor(x)]
    want = np.array([math.lgamma(v) for v in x])
    got = tp.lgamma(_t(x)).numpy()
    # relative where lgamma is away from its zeros (where it is ill-conditioned)
    far = np.abs(want) > 0.5
    np.testing.assert_allclose(got[far], want[far], rtol=1e-13)
    np.testing.assert_allclose(got[~far], want[~far], atol=5e-14)
    # the zeros at 1 and 2 keep their relative accuracy: lgamma(1 + e) ~ -gamma e
    # (math.lgamma loses digits there: the Taylor series is the reference)
    t = (1.0 + np.array([1e-6, -1e-6, 1e-10, -3e-9])) - 1.0
    g1 = tp.lgamma(_t(1.0 + t)).numpy()
    zeta3 = 1.2020569031595942
    np.testing.assert_allclose(g1, -0.5772156649015329 * t + math.pi ** 2 / 12 * t ** 2 - zeta3 / 3 * t ** 3,
                               rtol=1e-14)
    t = (2.0 + t) - 2.0
    g2 = tp.lgamma(_t(2.0 + t)).numpy()
    np.testing.assert_allclose(g2, (1 - 0.5772156649015329) * t + (math.pi ** 2 / 12 - 0.5) * t ** 2, rtol=1e-12)
    np.testing.assert_allclose(tp.lgamma(_t([1.0, 2.0, 3.0, 10.0])).numpy(),
                               [0.0, 0.0, math.log(2.0), math.log(362880.0)], rtol=1e-15, atol=0)


def test_gamma_family_identities():
    x = np.exp(RNG.uniform(-5, 5, 300))
    psi = tp.digamma(_t(x)).numpy()
    np.testing.assert_allclose(tp.digamma(_t(x + 1)).numpy(), psi + 1 / x, rtol=1e-13, atol=1e-14)
    x = x[x > 0.3]                  # (trigamma(x) - 1/x^2 cancels for small x)
    tri = tp.polygamma(1, _t(x)).numpy()
    np.testing.assert_allclose(tp.polygamma(1, _t(x + 1)).numpy(), tri - 1 / x ** 2, rtol=1e-12)
    pi2 = math.pi ** 2
    np.testing.assert_allclose(tp.polygamma(1, _t([1.0, 0.5])).numpy(), [pi2 / 6, pi2 / 2], rtol=1e-15)
    np.testing.assert_allclose(tp.digamma(_t([1.0, 0.5])).numpy(),
                               [-0.5772156649015329, -0.5772156649015329 - 2 * math.log(2)], rtol=1e-15)
    zeta3 = 1.2020569031595942
    np.testing.assert_allclose(tp.polygamma(2, _t([1.0])).numpy(), [-2 * zeta3], rtol=1e-15)
    np.testing.assert_allclose(S.zeta(_t([2.0, 4.0, 3.0]), _t([1.0, 1.0, 1.0])).numpy(),
                               [pi2 / 6, pi2 ** 2 / 90, zeta3], rtol=1e-15)
    # mvlgamma(x, p) = p(p-1)/4 log(pi) + sum_j lgamma(x - j/2)
    xs = np.array([2.5, 3.25, 7.0])
    for p in (1, 2, 5):
        want = [p * (p - 1) / 4 * math.log(math.pi) + sum(math.lgamma(v - j / 2) for j in range(p)) for v in xs]
        np.testing.assert_allclose(tp.mvlgamma(_t(xs), p).numpy(), want, rtol=1e-14)


def test_bessel_erfcx_normal_incomplete_gamma_identities():
    # I0(1), I1(1), I0(30) (power series / asymptotic branch)
    np.testing.assert_allclose(tp.i0(_t([1.0, 30.0, -30.0])).numpy(),
                               [1.2660658777520082, 781672297823.9775, 781672297823.9775], rtol=1e-14)
    np.testing.assert_allclose(S.i1(_t([1.0, -1.0])).numpy(), [0.5651591039924851, -0.5651591039924851],
                               rtol=1e-14)
    x = RNG.uniform(-40, 40, 200)
    np.testing.assert_allclose(S.i0e(_t(x)).numpy(), tp.i0(_t(x)).numpy() * np.exp(-np.abs(x)), rtol=1e-14)
    np.testing.assert_allclose(S.i1e(_t(x)).numpy(), S.i1(_t(x)).numpy() * np.exp(-np.abs(x)), rtol=1e-14)
    x = RNG.uniform(-5, 5, 200)
    np.testing.assert_allclose(S.erfcx(_t(x)).numpy(), [math.exp(v * v) * math.erfc(v) for v in x], rtol=1e-13)
    np.testing.assert_allclose(S.ndtr(_t(x)).numpy(), [0.5 * math.erfc(-v / math.sqrt(2)) for v in x],
                               rtol=1e-13, atol=1e-16)
    np.testing.assert_allclose(S.log_ndtr(_t(x)).numpy(),
                               [math.log(0.5 * math.erfc(-v / math.sqrt(2))) if v < 0 else
                                math.log1p(-0.5 * math.erfc(v / math.sqrt(2))) for v in x], rtol=1e-13)
    p = np.concatenate([RNG.uniform(0, 1, 200), np.exp(RNG.uniform(-700, -1, 100))])
    y = S.ndtri(_t(p)).numpy()
    # (one ulp of y is |y| ulp of p deep in the tail: y ~ -36 at 1e-281)
    np.testing.assert_allclose([0.5 * math.erfc(-v / math.sqrt(2)) for v in y], p, rtol=1e-12)
    xs = np.exp(RNG.uniform(-4, 4, 100))
    np.testing.assert_allclose(S.gammainc(_t(np.ones(100)), _t(xs)).numpy(), -np.expm1(-xs), rtol=1e-13)
    np.testing.assert_allclose(S.gammainc(_t(np.full(100, 0.5)), _t(xs)).numpy(),
                               [math.erf(math.sqrt(v)) for v in xs], rtol=1e-13)
    np.testing.assert_allclose(S.gammaincc(_t(np.full(100, 0.5)), _t(xs)).numpy(),
                               [math.erfc(math.sqrt(v)) for v in xs], rtol=1e-12)
    np.testing.assert_allclose(S.entr(_t([0.0, 0.5, 2.0, -1.0])).numpy(),
                               [0.0, 0.5 * math.log(2), -2 * math.log(2), -np.inf])


def test_poles_and_infinities():
    inf, nan = np.inf, np.nan
    _close(tp.lgamma(_t([0.0, -0.0, -3.0, inf, -inf, nan])).numpy(), [inf, inf, inf, inf, inf, nan], 0)
    _close(tp.digamma(_t([0.0, -0.0, -3.0, inf, -inf])).numpy(), [-inf, inf, nan, inf, nan], 0)
    _close(tp.polygamma(2, _t([0.0, -2.0, inf, -inf])).numpy(), [-inf, -inf, nan, -inf], 0)
    _close(tp.polygamma(3, _t([0.0, -2.0, -inf])).numpy(), [inf, inf, inf], 0)
    # trigamma at the negative integers: PyTorch's reflection with sin(pi x) in floating point
    _close(tp.polygamma(1, _t([0.0, -1.0, inf, -inf])).numpy(), [inf, 6.580790147320947e+32, 0.0, nan], 1e-12)
    _close(S.zeta(_t([1.0, 0.5, 2.0, 2.0, 2.0]), _t([1.0, 1.0, -1.0, -1.5, inf])).numpy(),
           [inf, nan, inf, 9.379246644989124, nan], 1e-14)
    _close(tp.i0(_t([inf, -inf, 1e308])).numpy(), [nan, nan, inf], 0)
    _close(S.i1e(_t([inf, -inf])).numpy(), [0.0, 0.0], 0)
    _close(S.erfcx(_t([inf, -inf, 1e308])).numpy(), [0.0, inf, 5.641895835477563e-309], 1e-14)
    _close(S.ndtri(_t([0.0, 1.0, -0.1, 1.5])).numpy(), [-inf, inf, nan, nan], 0)
    _close(S.gammainc(_t([0.0, 1.0, -1.0, 0.0]), _t([1.0, 0.0, 1.0, 0.0])).numpy(), [1.0, 0.0, nan, nan], 0)


def test_dtypes():
    assert tp.lgamma(tp.tensor([1, 2, 5])).dtype == tp.float32
    assert tp.mvlgamma(tp.tensor([3, 4]), 2).dtype == tp.float32
    assert tp.polygamma(2, tp.tensor([3, 4])).dtype == tp.float32
    assert S.i0e(tp.tensor([True, False])).dtype == tp.float32
    h = tp.lgamma(tp.tensor([3.3], dtype=tp.float16))
    assert h.dtype == tp.float16
    np.testing.assert_allclose(h.float().numpy(), [0.9878], atol=1e-3)
    b = tp.digamma(tp.tensor([3.3], dtype=tp.bfloat16))
    assert b.dtype == tp.bfloat16
    f = tp.lgamma(tp.tensor([3.3], dtype=tp.float32))
    assert f.dtype == tp.float32 and abs(f.item() - math.lgamma(3.3)) < 1e-6
    for fn in (tp.lgamma, tp.digamma, tp.i0, S.i1, S.erfcx, S.ndtri, S.entr):
        with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
            fn(tp.ones(2, dtype=tp.complex64))


def test_derivatives_every_order():
    x = tp.tensor([0.7, 1.9, 3.4, -1.3], dtype=tp.float64, requires_grad=True)
    for f in (tp.lgamma, tp.digamma, lambda v: tp.polygamma(3, v), lambda v: v.polygamma(1),
              tp.i0, S.i0e, S.i1, S.i1e, S.erfcx, S.log_ndtr, S.ndtr):
        assert gradcheck(f, (x,))
        assert gradgradcheck(f, (x,))
    y = tp.tensor([2.7, 3.1, 5.0], dtype=tp.float64, requires_grad=True)
    assert gradcheck(lambda v: tp.mvlgamma(v, 3), (y,))
    assert gradgradcheck(lambda v: tp.mvlgamma(v, 3), (y,))
    # the third derivative of lgamma is polygamma(2): through three backward passes
    z = tp.tensor([1.5, 2.5], dtype=tp.float64, requires_grad=True)
    (g1,) = tp.autograd.grad(tp.lgamma(z).sum(), z, create_graph=True)
    (g2,) = tp.autograd.grad(g1.sum(), z, create_graph=True)
    (g3,) = tp.autograd.grad(g2.sum(), z)
    np.testing.assert_allclose(g3.numpy(), tp.polygamma(2, z.detach()).numpy(), rtol=1e-14)
    # i1's derivative at 0 is 1/2; i1e's too
    zero = tp.zeros(1, dtype=tp.float64, requires_grad=True)
    for f in (S.i1, S.i1e):
        (g,) = tp.autograd.grad(f(zero).sum(), zero)
        assert g.item() == 0.5
    q = tp.tensor([0.6, 2.0], dtype=tp.float64, requires_grad=True)
    s = tp.tensor([2.5, 3.0], dtype=tp.float64)
    assert gradcheck(lambda v: S.zeta(s, v), (q,))
    assert gradgradcheck(lambda v: S.zeta(s, v), (q,))
    a = tp.tensor([0.6, 2.0, 7.5], dtype=tp.float64)
    xx = tp.tensor([0.3, 2.5, 6.0], dtype=tp.float64, requires_grad=True)
    assert gradcheck(lambda v: S.gammainc(a, v), (xx,))
    assert gradcheck(lambda v: S.gammaincc(a, v), (xx,))


def test_derivatives_torch_does_not_have():
    s = tp.tensor([2.5, 3.0], dtype=tp.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match=r"^the derivative for 'zeta' is not implemented\.$"):
        S.zeta(s, 2.0).sum().backward()
    a = tp.tensor([2.5, 3.0], dtype=tp.float64, requires_grad=True)
    for f, what in ((S.gammainc, "igamma: input"), (S.gammaincc, "igammac: input")):
        with pytest.raises(NotImplementedError, match=f"^the derivative for '{what}' is not implemented"):
            f(a, a.detach()).sum().backward()


def test_spellings():
    x = tp.tensor([1.5, 2.5, 4.0], dtype=tp.float64)
    np.testing.assert_array_equal(x.polygamma(2).numpy(), tp.polygamma(2, x).numpy())
    np.testing.assert_array_equal(tp.polygamma(n=2, input=x).numpy(), tp.polygamma(2, x).numpy())
    y = x.clone()
    assert y.polygamma_(1) is y
    np.testing.assert_array_equal(y.numpy(), tp.polygamma(1, x).numpy())
    y = x.clone()
    assert y.mvlgamma_(p=2) is y
    np.testing.assert_array_equal(y.numpy(), x.mvlgamma(2).numpy())
    for name in ("lgamma", "digamma", "i0"):
        y = x.clone()
        assert getattr(y, name + "_")() is y
        np.testing.assert_array_equal(y.numpy(), getattr(tp, name)(x).numpy())
    y = x.clone()
    assert y.igamma_(x) is y
    np.testing.assert_array_equal(y.numpy(), tp.igamma(x, x).numpy())
    # in-place on a leaf that requires grad: refused as any in-place op
    z = x.clone().requires_grad_()
    w = z * 1.0
    w.polygamma_(1)
    (g,) = tp.autograd.grad(w.sum(), z)
    np.testing.assert_allclose(g.numpy(), tp.polygamma(2, x).numpy(), rtol=1e-15)
    with pytest.raises(TypeError, match=r"^polygamma\(\): argument 'n' \(position 1\) must be int, not bool$"):
        tp.polygamma(True, x)
    with pytest.raises(RuntimeError, match=r"^polygamma\(n, x\) does not support negative n\.$"):
        x.polygamma(-1)
    # the aliases are the same functions
    assert S.gammaln is tp.lgamma and S.psi is S.digamma is tp.digamma and S.multigammaln is tp.mvlgamma
    assert S.expit is tp.sigmoid and S.polygamma is tp.polygamma and S.i0 is tp.i0
    assert not hasattr(tp, "i0e") and not hasattr(tp.Tensor, "i0e")


def test_xlog1py_and_entr_values():
    x = _t([0.0, 0.0, 1.0, 0.0, 2.0])
    y = _t([-1.0, np.nan, -1.0, -2.0, 0.5])
    _close(S.xlog1py(x, y).numpy(), [0.0, np.nan, -np.inf, 0.0, 2 * math.log1p(0.5)], 1e-15)
    assert S.xlog1py(x, y).dtype == tp.float64
    _close(S.entr(_t([0.0, -1.0, np.inf, np.nan])).numpy(), [0.0, -np.inf, -np.inf, np.nan], 0)


# ----------------------------------------------------------------- against torch
_UNARY = {
    "lgamma": (lambda T, x: T.lgamma(x), 1e-13),
    "digamma": (lambda T, x: T.digamma(x), 1e-12),
    "trigamma": (lambda T, x: T.polygamma(1, x), 1e-8),     # (torch's trigamma: ~5e-10 relative)
    "polygamma2": (lambda T, x: T.polygamma(2, x), 1e-12),
    "polygamma5": (lambda T, x: T.polygamma(5, x), 1e-12),
    "mvlgamma3": (lambda T, x: T.mvlgamma(x, 3), 1e-12),
    "i0": (lambda T, x: T.special.i0(x), 1e-13),
    "i0e": (lambda T, x: T.special.i0e(x), 1e-13),
    "i1": (lambda T, x: T.special.i1(x), 1e-13),
    "i1e": (lambda T, x: T.special.i1e(x), 1e-13),
    "erfcx": (lambda T, x: T.special.erfcx(x), 1e-12),
    "ndtr": (lambda T, x: T.special.ndtr(x), 1e-12),
    "ndtri": (lambda T, x: T.special.ndtri(x), 1e-13),
    # (in the tails both lose ~x^2 ulp to the rounding of x / sqrt 2)
    "log_ndtr": (lambda T, x: T.special.log_ndtr(x), 1e-12),
    "entr": (lambda T, x: T.special.entr(x), 1e-14),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(_UNARY))
def test_against_torch_float64(name):
    f, rtol = _UNARY[name]
    x = np.concatenate([_wide(300), EDGES, RNG.uniform(-700, 700, 100), RNG.uniform(0, 1, 100)])
    if name == "digamma" or name.startswith("polygamma") or name == "trigamma":
        x = x[(x > -50) | (x != np.floor(x))]
    want = f(torch, torch.from_numpy(x)).numpy()
    got = f(tp, _t(x)).numpy()
    # (relative, and absolute near the zeros of digamma and lgamma, which are ill-conditioned)
    _close(got, want, rtol, atol=1e-13 if name in ("digamma", "lgamma", "mvlgamma3") else 0.0)


@needs_torch
def test_against_torch_binary():
    s = np.concatenate([RNG.uniform(1.0, 12.0, 300), [1.0, 0.5, 2.0, 2.0, 2.0, 3.0, np.nan]])
    q = np.concatenate([np.exp(RNG.uniform(-4, 6, 300)), [1.0, 1.0, -1.0, -1.5, np.inf, -2.5, 1.0]])
    _close(S.zeta(_t(s), _t(q)).numpy(), torch.special.zeta(torch.from_numpy(s), torch.from_numpy(q)).numpy(),
           1e-13)
    a = np.concatenate([np.exp(RNG.uniform(-3, 5, 300)), [0.0, 1.0, -1.0, 2.0, np.inf, np.nan, 0.5, 0.0]])
    x = np.concatenate([a[:300] * np.exp(RNG.uniform(-1, 1, 300)), [1.0, 0.0, 1.0, -1.0, 2.0, 1.0, np.inf, 0.0]])
    for mine, theirs in ((S.gammainc, torch.special.gammainc), (S.gammaincc, torch.special.gammaincc)):
        # (torch's are good to ~2e-9 here: the identities above check ours to 1e-13)
        _close(mine(_t(a), _t(x)).numpy(), theirs(torch.from_numpy(a), torch.from_numpy(x)).numpy(), 2e-8,
               atol=1e-15)
    y = np.concatenate([RNG.uniform(-1, 3, 50), [-1.0, np.nan, -2.0]])
    xv = np.concatenate([RNG.uniform(-2, 2, 50), [0.0, 0.0, 0.0]])
    _close(S.xlog1py(_t(xv), _t(y)).numpy(),
           torch.special.xlog1py(torch.from_numpy(xv), torch.from_numpy(y)).numpy(), 1e-15)


@needs_torch
def test_gradients_against_torch():
    x = np.array([0.3, 1.7, 4.2, -1.4, 12.0])
    for f in (lambda T, v: T.lgamma(v), lambda T, v: T.digamma(v), lambda T, v: T.polygamma(3, v),
              lambda T, v: T.mvlgamma(v + 3, 2), lambda T, v: T.i0(v), lambda T, v: T.special.i0e(v),
              lambda T, v: T.special.i1(v), lambda T, v: T.special.i1e(v), lambda T, v: T.special.erfcx(v),
              lambda T, v: T.special.log_ndtr(v), lambda T, v: T.special.ndtri(v.sigmoid()),
              lambda T, v: T.special.entr(v.abs()), lambda T, v: T.special.zeta(3.0, v.abs()),
              lambda T, v: T.special.gammainc(v.abs().detach() + 1, v.abs())):
        a, b = _t(x).requires_grad_(), torch.from_numpy(x).requires_grad_()
        ya, yb = f(tp, a), f(torch, b)
        assert ya.grad_fn.name() == yb.grad_fn.name() or yb.grad_fn.name().startswith("Mul")
        (ga,) = tp.autograd.grad(ya.sum(), a)
        (gb,) = torch.autograd.grad(yb.sum(), b)
        rtol = 1e-8 if "polygamma" in str(ya.grad_fn.name()) or "Digamma" in ya.grad_fn.name() else 1e-11
        np.testing.assert_allclose(ga.numpy(), gb.numpy(), rtol=rtol)


# ----------------------------------------------------------------- the module's surface
NOT_YET = set()     # (every name of torch.special is here)


def test_module_all_is_callable():
    for name in S.__all__:
        assert callable(getattr(S, name)), name
    assert not NOT_YET & set(dir(S))


@needs_torch
def test_module_surface_against_torch():
    theirs = {n for n in dir(torch.special) if not n.startswith("_") and callable(getattr(torch.special, n))
              and n != "Tensor"}
    mine = set(S.__all__)
    assert mine <= theirs, sorted(mine - theirs)
    assert theirs - mine == NOT_YET, sorted((theirs - mine) ^ NOT_YET)


def test_i1_derivatives_near_zero_as_pytorch():
    """PyTorch's i1/i1e backward: 1/2 where |x| <= eps (and at NaN), the formula at x
    clamped away from 0 elsewhere: the second derivative at 1e-300 is 0 (the
    cancellation of i0(x) - i1(x)/x gave inf)."""
    for f in (tp.special.i1, tp.special.i1e):
        for v in (1e-300, 0.0, float("nan")):
            x = tp.tensor(v, dtype=tp.float64, requires_grad=True)
            (g,) = tp.autograd.grad(f(x), x, create_graph=True)
            (h,) = tp.autograd.grad(g, x)
            assert g.item() == 0.5 and h.item() == 0.0


def test_polygamma_far_below_zero_is_fast_and_right():
    """Negative non-integers below -1000 go through the reflection (the zeta series
    added |x| terms one at a time: seconds at -1e6, hours at -1e15)."""
    x = tp.tensor([-1e6 - 0.5, -1e15 - 0.5, -1234.7], dtype=tp.float64)
    r = [tp.polygamma(n, x).tolist() for n in (1, 2, 3)]
    # psi'(x) at a half-integer: pi^2 / sin^2(pi x) - psi'(1 - x), psi'(a) ~ 1/a + 1/(2 a^2)
    a = 1e6 + 1.5
    assert r[0][0] == pytest.approx(np.pi ** 2 - 1 / a - 1 / (2 * a * a), rel=1e-12)
    # -1234.7 (reflected) against -999.7 (the series), joined by the recurrence
    # psi^(n)(x) = psi^(n)(x + 1) - (-1)^n n! / x^(n+1), 235 times
    for n, vals in zip((1, 2, 3), r):
        expect = tp.polygamma(n, tp.tensor([-999.7], dtype=tp.float64)).item()
        for k in range(1, 236):
            expect -= (-1) ** n * math.factorial(n) / (-999.7 - k) ** (n + 1)
        assert vals[2] == pytest.approx(expect, rel=1e-9)
