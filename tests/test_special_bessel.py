"""tensorplay.special's Bessel functions, Airy's Ai and orthogonal polynomials
(ops/special_bessel.py): values against references of known accuracy (mpmath,
NumPy's polynomial modules, a table of mpmath values), PyTorch's semantics (degree
handling, promotion, refusals, no gradient) and, with torch installed, PyTorch's
values."""
import math
import warnings

import numpy as np
import pytest

import tensorplay as tp
import tensorplay.special as S

try:
    import torch
except ImportError:             # pragma: no cover - the suite runs without torch too
    torch = None

BESSEL = ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
          "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
          "spherical_bessel_j0", "airy_ai")
POLYS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
         "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
         "laguerre_polynomial_l", "legendre_polynomial_p")

# mpmath at 40 digits, rounded to float64
_REFERENCE = {
    "bessel_j0": [(0.25, 0.9844359292958527), (3.0, -0.26005195490193345), (5.5, -0.006843869417819197),
                  (6.1, 0.1772914222427434), (12.0, 0.047689310796833535), (-40.0, 0.00736689058423729),
                  (100000.0, -0.0017192011162359723)],
    "bessel_j1": [(-0.25, -0.12402597732272692), (3.0, 0.3390589585259365), (5.8, -0.3110277443039424),
                  (7.0, -0.004682823482345833), (12.0, -0.2234471044906276), (100000.0, 0.0018467575628825677)],
    "bessel_y0": [(0.25, -0.9315730249300587), (3.0, 0.3768500100127904), (5.1, -0.3216024491248594),
                  (12.0, -0.22523731263436145), (100000.0, 0.001846766158865064)],
    "bessel_y1": [(0.25, -2.7041052293152825), (3.0, 0.3246744247918), (5.6, -0.05680561439947985),
                  (12.0, -0.05709921826089652), (100000.0, 0.0017192103500882562)],
    "modified_bessel_i0": [(-0.5, 1.0634833707413236), (3.0, 4.8807925858650245), (9.0, 1093.5883545113747),
                           (50.0, 2.9325537838493362e+20)],
    "modified_bessel_i1": [(-0.5, -0.2578943053908963), (3.0, 3.9533702174026093), (9.0, 1030.9147225169565),
                           (50.0, 2.903078590103557e+20)],
    "modified_bessel_k0": [(0.01, 4.721244730161095), (1.5, 0.21380556264752573), (2.5, 0.06234755320036619),
                           (50.0, 3.4101677497894956e-23)],
    "modified_bessel_k1": [(0.01, 99.97389411829624), (1.5, 0.2773878004568438), (2.5, 0.07389081634774707),
                           (50.0, 3.4441022267175555e-23)],
    "scaled_modified_bessel_k0": [(0.01, 4.768694028544462), (1.5, 0.9582100532948965),
                                  (2.5, 0.7595486903280996), (500.0, 0.056035915417234516)],
    "scaled_modified_bessel_k1": [(0.01, 100.97864845824004), (1.5, 1.243165873552553), (2.5, 0.900174423907878),
                                  (500.0, 0.05609192337055557)],
    "spherical_bessel_j0": [(0.1, 0.9983341664682815), (0.49, 0.9604609962676695), (3.0, 0.04704000268662241),
                            (-20.0, 0.045647262536381385)],
    "airy_ai": [(-100.0, 0.1767533932395529), (-2.5, -0.11232506769296609), (-1.0, 0.5355608832923521),
                (0.5, 0.23169360648083348), (3.0, 0.006591139357460719), (20.0, 1.6916728686705404e-27)],
}


def _f(name):
    return getattr(S, name)


def _rel(a, b):
    return np.abs(a - b) / np.abs(b)


# ------------------------------------------------------------------ Bessel values
@pytest.mark.parametrize("name", BESSEL)
def test_reference_values(name):
    """float64 to a few ulp of mpmath, including where PyTorch's kernels are off by
    ~1e-6 (J0 at 5.5, Ai at -2.5) and large arguments (the phase of x - pi/4)."""
    xs, want = map(np.array, zip(*_REFERENCE[name]))
    got = _f(name)(tp.tensor(xs)).numpy()
    assert got.dtype == np.float64
    assert np.all(_rel(got, want) < 5e-15), (xs, got, want)


@pytest.mark.parametrize("name", BESSEL)
def test_float32_is_the_float64_value_rounded(name):
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(-30, 30, 200), rng.uniform(0, 3, 50)]).astype(np.float32)
    got = _f(name)(tp.tensor(x))
    assert got.dtype == tp.float32
    want = _f(name)(tp.tensor(x.astype(np.float64))).numpy().astype(np.float32)
    np.testing.assert_array_equal(got.numpy(), want)


def _mpmath_fns(mp):
    return {"bessel_j0": lambda x: mp.besselj(0, x), "bessel_j1": lambda x: mp.besselj(1, x),
            "bessel_y0": lambda x: mp.bessely(0, x), "bessel_y1": lambda x: mp.bessely(1, x),
            "modified_bessel_i0": lambda x: mp.besseli(0, x), "modified_bessel_i1": lambda x: mp.besseli(1, x),
            "modified_bessel_k0": lambda x: mp.besselk(0, x), "modified_bessel_k1": lambda x: mp.besselk(1, x),
            "scaled_modified_bessel_k0": lambda x: mp.besselk(0, x) * mp.exp(x),
            "scaled_modified_bessel_k1": lambda x: mp.besselk(1, x) * mp.exp(x),
            "spherical_bessel_j0": lambda x: mp.sin(x) / x, "airy_ai": lambda x: mp.airyai(x)}


@pytest.mark.parametrize("name", BESSEL)
def test_against_mpmath(name):
    """Random points over each function's ranges: absolute error within a few ulp of
    the function's local scale (relative, away from its zeros)."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 30
    rng = np.random.default_rng(11)
    pos = name.endswith(("y0", "y1", "k0", "k1"))
    x = np.concatenate([rng.uniform(0 if pos else -25, 25, 40), rng.uniform(0.01, 8, 20), [1e3, 3e4]])
    if name == "airy_ai":
        x = np.concatenate([rng.uniform(-60, 40, 50), [-1e4, -123456.789, -3.3e12]])
    got = _f(name)(tp.tensor(x)).numpy()
    f = _mpmath_fns(mp)[name]
    want = np.array([float(f(mp.mpf(float(v)))) for v in x])
    # the scale: |f| itself, or for the oscillating ones their envelope (near a zero
    # only absolute accuracy is meaningful)
    scale = np.abs(want)
    if name.startswith("bessel") or name == "spherical_bessel_j0":
        scale = np.maximum(scale, 0.5 / np.maximum(np.abs(x), 1.0))
    if name == "airy_ai":
        scale = np.maximum(scale, np.where(x < 0, 0.5 * np.abs(np.minimum(x, -1.0)) ** -0.25, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        err = np.where(got == want, 0.0, np.abs(got - want) / scale)   # (equal infinities, zeros: 0)
    assert err.max() < 1e-14, (x[err.argmax()], got[err.argmax()], want[err.argmax()])


@pytest.mark.parametrize("name", BESSEL)
def test_special_values_match_pytorch(name):
    """0, -0, +-inf, NaN, negatives, huge and tiny: the values PyTorch gives."""
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.5, 1e-300, 1e300, -1e300, 720.0, 103.9])
    nan, inf = np.nan, np.inf
    want = {"bessel_j0": [1, 1, nan, nan, nan, None, 1, None, None, None, None],
            "bessel_y0": [-inf, -inf, nan, nan, nan, nan, None, None, nan, None, None],
            "modified_bessel_i0": [1, 1, nan, nan, nan, None, 1, inf, inf, inf, None],
            "modified_bessel_k0": [inf, inf, 0, nan, nan, nan, None, 0, nan, None, None],
            "scaled_modified_bessel_k1": [inf, inf, 0, nan, nan, nan, None, None, nan, None, None],
            "spherical_bessel_j0": [1, 1, 0, 0, nan, None, 1, None, None, None, None],
            "airy_ai": [None, None, nan, nan, nan, None, None, 0, nan, 0, 0]}
    got = _f(name)(tp.tensor(x)).numpy()
    for g, w in zip(got, want.get(name, [])):
        if w is not None:
            assert (np.isnan(g) and np.isnan(w)) or g == w, (name, got, want[name])
    if torch is not None:
        t = getattr(torch.special, name)(torch.from_numpy(x)).numpy()
        ok = np.isfinite(t) & (np.abs(x) < 1e200)           # (PyTorch's huge-x phases are wrong)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(t))
        np.testing.assert_array_equal(got[~np.isfinite(t)], t[~np.isfinite(t)])
        np.testing.assert_allclose(got[ok], t[ok], rtol=1e-12, atol=1e-300)


def test_odd_and_even():
    x = tp.tensor([0.3, 2.5, 7.0, 30.0], dtype=tp.float64)
    for name, sign in (("bessel_j0", 1), ("bessel_j1", -1), ("modified_bessel_i0", 1),
                       ("modified_bessel_i1", -1), ("spherical_bessel_j0", 1)):
        np.testing.assert_array_equal(_f(name)(-x).numpy(), sign * _f(name)(x).numpy())


@pytest.mark.skipif(torch is None, reason="torch not installed")
@pytest.mark.parametrize("name", BESSEL)
def test_against_pytorch(name):
    """Where PyTorch's kernels are accurate, the same values: I, K, j0 to ~1e-14, and
    J, Y, Ai outside the ranges where PyTorch's are off (J, Y: 5 < x < 7.3;
    Ai: -2.75 < x < -2.09) to its accuracy there."""
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.uniform(-4.8, 4.8, 100), rng.uniform(7.5, 60, 100), -rng.uniform(7.5, 60, 50)])
    if name == "airy_ai":
        x = np.concatenate([rng.uniform(-2.05, 30, 100), rng.uniform(-40, -2.8, 100)])
    for dt, rtol in ((np.float64, 1e-7), (np.float32, 3e-6)):
        xs = x.astype(dt)
        got = _f(name)(tp.tensor(xs)).numpy()
        want = getattr(torch.special, name)(torch.from_numpy(xs)).numpy()
        tight = not name.startswith(("bessel", "airy")) and dt == np.float64
        # (PyTorch's float32 Ai for x < 0 rounds its phase to float32: ~zeta * 6e-8 off)
        atol = 1e-300 if tight else 2e-5 if name == "airy_ai" and dt == np.float32 else 1e-6
        np.testing.assert_allclose(got, want, rtol=1e-13 if tight else rtol, atol=atol,
                                   err_msg=f"{name} {np.dtype(dt).name}")


# ------------------------------------------------------------------ the polynomials
def _ref_poly(name, x, n):
    """float64 references from NumPy's polynomial modules (V_n = U_n - U_{n-1},
    W_n = U_n + U_{n-1}; U from its recurrence in exact-ish float64 sums)."""
    P = np.polynomial
    e = [0.0] * n + [1.0]
    shifted = name.startswith("shifted")
    y = 2 * x - 1 if shifted else x
    kind = name.split("_")[-1]
    if name.startswith(("chebyshev", "shifted")):
        if kind == "t":
            return P.chebyshev.chebval(y, e)

        def u(m):
            # U_m = sum over T: U_m = 2 sum_{j odd/even} T_j - (1 if m even)
            c = [0.0] * (m + 1)
            for j in range(m % 2, m + 1, 2):
                c[j] = 2.0
            if m % 2 == 0:
                c[0] = 1.0
            return P.chebyshev.chebval(y, c)
        um = u(n)
        up = u(n - 1) if n >= 1 else 0.0
        return {"u": um, "v": um - up, "w": um + up}[kind]
    return {"h": P.hermite.hermval, "he": P.hermite_e.hermeval, "l": P.laguerre.lagval,
            "p": P.legendre.legval}[kind](x, e)


@pytest.mark.parametrize("name", POLYS)
def test_polynomial_values(name):
    rng = np.random.default_rng(9)
    lo, hi = (-0.1, 1.1) if name.startswith("shifted") else (-1.2, 1.2)
    x = rng.uniform(lo, hi, 40)
    for n in (0, 1, 2, 3, 5, 7, 8, 9, 12, 20):
        got = _f(name)(tp.tensor(x), n).numpy()
        want = _ref_poly(name, x, n)
        # rounding grows with the degree (the trigonometric forms: n times acos's)
        err = np.abs(got - want) / np.maximum(np.abs(want), 1.0)
        assert err.max() <= 1e-15 * (n + 1) ** 2, (n, got, want)


@pytest.mark.parametrize("name", POLYS)
def test_degree_semantics(name):
    """The degree in the common dtype, cast as C does: 2.9 is 2, -0.5 is 0, negative,
    NaN, infinite or past int64's range give 0."""
    f = _f(name)
    x = tp.tensor([0.3, 0.7], dtype=tp.float64)
    two = f(x, 2).numpy()
    np.testing.assert_array_equal(f(x, 2.9).numpy(), two)
    np.testing.assert_array_equal(f(x, tp.tensor([2.5, 2.99], dtype=tp.float64)).numpy(), two)
    np.testing.assert_array_equal(f(x, -0.5).numpy(), [1.0, 1.0])
    for bad in (-1, -3.5, math.nan, math.inf, -math.inf, 1e30):
        np.testing.assert_array_equal(f(x, bad).numpy(), [0.0, 0.0])


def test_hermite_limits():
    """NaN above degree 128 in float32, 512 in float64 (PyTorch's cut-off), even where
    the recurrence would give a number (x = NaN: the recurrence is never run for
    degrees 0 and 1)."""
    for name in ("hermite_polynomial_h", "hermite_polynomial_he"):
        f = _f(name)
        for dt, limit in ((tp.float32, 128), (tp.float64, 512)):
            x = tp.tensor([0.25, 3.0], dtype=dt)
            assert np.isnan(f(x, limit + 1).numpy()).all()
            assert np.isnan(f(x, 10 ** 6).numpy()).all()
            assert np.isfinite(f(x, 20).numpy()).all()
        if torch is not None:
            for dt in (np.float32, np.float64):
                x = np.array([0.01, 0.5, -2.0], dt)
                for n in (100, 127, 128, 129, 300, 511, 512, 513):
                    g = f(tp.tensor(x), n).numpy()
                    w = getattr(torch.special, name)(torch.from_numpy(x), n).numpy()
                    np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
                    np.testing.assert_array_equal(np.isinf(g), np.isinf(w))


def test_ends_and_trigonometric_branch():
    x = tp.tensor([1.0, -1.0], dtype=tp.float64)
    for n in (4, 5, 11, 12):
        s = 1 if n % 2 == 0 else -1
        assert S.chebyshev_polynomial_t(x, n).tolist() == [1.0, s]
        assert S.chebyshev_polynomial_u(x, n).tolist() == [n + 1, s * (n + 1)]
        assert S.chebyshev_polynomial_v(x, n).tolist() == [1.0, s * (2 * n + 1)]
        assert S.chebyshev_polynomial_w(x, n).tolist() == [2 * n + 1, s]
        assert S.legendre_polynomial_p(x, n).tolist() == [1.0, s]
        assert S.shifted_chebyshev_polynomial_u(tp.tensor([1.0, 0.0], dtype=tp.float64), n).tolist() == \
            [n + 1, s * (n + 1)]
    assert S.laguerre_polynomial_l(tp.tensor([0.0, -0.0]), 7).tolist() == [1.0, 1.0]
    # the trigonometric form above degree 6 (T) agrees with the recurrence
    y = tp.tensor([0.3, -0.8], dtype=tp.float64)
    np.testing.assert_allclose(S.chebyshev_polynomial_t(y, 40).numpy(),
                               np.cos(40 * np.arccos(y.numpy())), rtol=1e-12)


def test_polynomial_promotion_and_numbers():
    f32 = tp.tensor([0.5, 0.25])
    f64 = tp.tensor([3.0, 2.0], dtype=tp.float64)
    i64 = tp.tensor([3, 2])
    f = S.chebyshev_polynomial_t
    assert f(f32, 3).dtype == tp.float32
    assert f(f32, f64).dtype == tp.float64
    assert f(f32, tp.tensor(3.0, dtype=tp.float64)).dtype == tp.float32       # (a 0-d n does not promote)
    assert f(i64, i64).dtype == tp.float32
    assert f(0.5, i64).dtype == tp.float32
    assert f(0.5, f64).dtype == tp.float64
    assert f(tp.tensor([True, False]), 2).tolist() == [1.0, -1.0]
    np.testing.assert_allclose(f(0.5, f64).numpy(), [-1.0, -0.5])
    assert f(tp.tensor([[0.5], [0.2]]), tp.tensor([1, 2, 3])).shape == (2, 3)
    assert f(x=f32, n=3).tolist() == f(f32, 3).tolist()
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match the size of tensor b \(3\)"):
        f(f32, tp.tensor([1, 2, 3]))


def test_errors():
    msg = ("special_legendre_polynomial_p() received an invalid combination of arguments - got (float, int), "
           "but expected one of:\n * (Tensor x, Tensor n, *, Tensor out = None)\n"
           " * (Number x, Tensor n, *, Tensor out = None)\n * (Tensor x, Number n, *, Tensor out = None)\n")
    with pytest.raises(TypeError) as e:
        S.legendre_polynomial_p(0.5, 3)
    assert str(e.value) == msg
    h = tp.tensor([0.5], dtype=tp.float16)
    with pytest.raises(NotImplementedError, match="^\"legendre_polynomial_p_cpu\" not implemented for 'Half'$"):
        S.legendre_polynomial_p(h, 3)
    # a float32 operand promotes a half one: computed
    assert S.hermite_polynomial_h(h, tp.tensor([2.0])).dtype == tp.float32
    with pytest.raises(NotImplementedError, match="^\"bessel_j0_cpu\" not implemented for 'BFloat16'$"):
        S.bessel_j0(tp.tensor([0.5], dtype=tp.bfloat16))
    with pytest.raises(NotImplementedError, match="^\"airy_ai_cpu\" not implemented for 'ComplexFloat'$"):
        S.airy_ai(tp.tensor([0.5 + 1j], dtype=tp.complex64))
    with pytest.raises(TypeError, match=r"^special_bessel_y1\(\): argument 'input' \(position 1\) must be "
                                        r"Tensor, not float$"):
        S.bessel_y1(0.5)
    with pytest.raises(TypeError, match=r"^special_airy_ai\(\): argument 'x' \(position 1\) must be "
                                        r"Tensor, not int$"):
        S.airy_ai(1)


def test_out_and_keywords():
    x = tp.tensor([0.5, 2.0])
    out = tp.empty(2)
    r = S.bessel_j0(x, out=out)
    assert r is out
    np.testing.assert_array_equal(out.numpy(), S.bessel_j0(x).numpy())
    out = tp.empty(2)
    S.chebyshev_polynomial_u(x, 3, out=out)
    np.testing.assert_array_equal(out.numpy(), S.chebyshev_polynomial_u(x, 3).numpy())
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        S.bessel_j0(x, out=tp.empty(2, dtype=tp.int64))
    np.testing.assert_array_equal(S.bessel_j0(input=x).numpy(), S.bessel_j0(x).numpy())
    np.testing.assert_array_equal(S.airy_ai(x=x).numpy(), S.airy_ai(x).numpy())


def test_not_differentiable():
    """As in PyTorch: no grad_fn, no tangent, even when the input requires grad."""
    from tensorplay.autograd import forward_ad as fwAD
    x = tp.tensor([0.5, 1.5], dtype=tp.float64, requires_grad=True)
    for name in BESSEL:
        y = _f(name)(x)
        assert y.grad_fn is None and not y.requires_grad
    for name in POLYS:
        y = _f(name)(x, 3)
        assert y.grad_fn is None and not y.requires_grad
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        S.bessel_j0(x).sum().backward()
    # (torch.func.grad gives zeros through a function without a derivative)
    np.testing.assert_array_equal(tp.func.grad(lambda v: S.bessel_j0(v).sum())(x.detach()).numpy(), [0.0, 0.0])
    with fwAD.dual_level():
        d = fwAD.make_dual(x.detach(), tp.ones(2, dtype=tp.float64))
        assert fwAD.unpack_dual(S.bessel_j1(d)).tangent is None
        assert fwAD.unpack_dual(S.legendre_polynomial_p(d, 4)).tangent is None


def test_vmap():
    x = tp.tensor([[0.3, 1.2], [2.0, 7.5]], dtype=tp.float64)
    n = tp.tensor([2, 5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = tp.func.vmap(S.modified_bessel_k1)(x)
        b = tp.func.vmap(S.hermite_polynomial_he)(x, n)
    np.testing.assert_array_equal(a.numpy(), S.modified_bessel_k1(x).numpy())
    np.testing.assert_array_equal(b.numpy(), S.hermite_polynomial_he(x, n[:, None]).numpy())


@pytest.mark.skipif(torch is None, reason="torch not installed")
@pytest.mark.parametrize("name", POLYS)
def test_polynomials_against_pytorch(name):
    """A grid of x (not NaN: PyTorch returns an uninitialized value for NaN x in the
    recurrences) and degrees, with the ends, the trigonometric branches, negative,
    fractional and huge degrees."""
    xs = np.concatenate([np.linspace(-1.5, 1.5, 31), [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.0, np.inf, -np.inf]])
    ns = np.array([-2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 20, 31, 2.5, -0.5, np.nan, np.inf, 1e30])
    X, N = np.meshgrid(xs, ns)
    for dt, rtol, atol in ((np.float64, 1e-11, 1e-12), (np.float32, 2e-4, 2e-5)):
        x, n = X.astype(dt), N.astype(dt)
        got = _f(name)(tp.tensor(x), tp.tensor(n)).numpy()
        want = getattr(torch.special, name)(torch.from_numpy(x), torch.from_numpy(n)).numpy()
        scale = np.where(np.isinf(want), 1.0, np.maximum(np.abs(want), 1.0))
        np.testing.assert_allclose(got / scale, want / scale, rtol=rtol, atol=atol,
                                   err_msg=f"{name} {np.dtype(dt).name}")
        # numbers on either side, and the dtype PyTorch gives
        for a, b in ((tp.tensor(x[0]), 3), (0.25, tp.tensor(n[3]))):
            ta = torch.from_numpy(a.numpy()) if isinstance(a, tp.Tensor) else a
            tb = torch.from_numpy(b.numpy()) if isinstance(b, tp.Tensor) else b
            g, w = _f(name)(a, b), getattr(torch.special, name)(ta, tb)
            assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1]
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=rtol, atol=atol)
