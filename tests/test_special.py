"""erf, erfc, erfinv: the NumPy-only kernels (ops/_special.py) and the ops built on
whichever kernels are in use (SciPy's when it is installed)."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import tensorplay as tp
from tensorplay.ops import _special as S
from tensorplay.ops import pointwise

try:
    import scipy.special as sps
except ImportError:
    sps = None

EPS = np.finfo(np.float64).eps


def rel_err(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    with np.errstate(all="ignore"):
        r = np.abs(got - want) / np.abs(want)
    r[got == want] = 0.0                          # 0 == 0, inf == inf
    return r


def grid():
    """Both signs, from subnormal-free tiny values through the switch points to the underflow of erfc."""
    pos = np.concatenate([np.geomspace(1e-300, 1e-3, 200), np.linspace(0, 8, 8001),
                          np.linspace(8, 26.5, 1851), [0.5, 0.6875, 0.7, 0.75, np.nextafter(0.75, 0)]])
    return np.concatenate([pos, -pos])


# -------------------------------------------------------------- kernels alone
def test_erf_erfc_kernels_match_libm_to_a_few_ulp():
    x = grid()
    want_erf = np.array([math.erf(v) for v in x])
    want_erfc = np.array([math.erfc(v) for v in x])
    assert rel_err(S.erf(x), want_erf).max() < 4 * EPS
    normal = want_erfc > 1e-300                   # relative accuracy ends where erfc goes subnormal
    assert rel_err(S.erfc(x), want_erfc)[normal].max() < 8 * EPS
    deep = (x > 20) & normal                      # the tail: no loss from rounding x*x
    assert deep.sum() > 100 and rel_err(S.erfc(x[deep]), want_erfc[deep]).max() < 8 * EPS


def test_erfinv_kernel_inverts_erf():
    p = np.concatenate([np.linspace(-1, 1, 20001)[1:-1], np.geomspace(1e-300, 0.5, 300)])
    y = S.erfinv(p)
    # forward: erf(erfinv(p)) gives p back to rounding
    back = np.array([math.erf(v) for v in y])
    assert rel_err(back, p).max() < 4 * EPS
    # backward: erfinv(erf(x)) gives x back to within what rounding erf(x) hides
    x = np.linspace(-5.5, 5.5, 4001)
    e = np.array([math.erf(v) for v in x])
    slope = 2 / math.sqrt(math.pi) * np.exp(-x * x)
    tol = 2 * EPS * np.abs(x) + 2 * EPS * np.maximum(np.abs(e), 1e-300) / slope
    assert np.all(np.abs(S.erfinv(e) - x) <= tol)


def test_erfinv_kernel_near_plus_minus_one_follows_erfc():
    # 1 - p is exact for these p, so erfc(erfinv(p)) must give it back (relative to 1 - p)
    q = 2.0 ** -np.arange(1, 53)
    for sign in (1, -1):
        y = S.erfinv(sign * (1 - q))
        assert np.all(np.sign(y) == sign)
        back = np.array([math.erfc(v) for v in np.abs(y)])
        assert rel_err(back, q).max() < 1e-13      # erfc's condition number 2y^2 < 70 here
    assert S.erfinv(np.nextafter(1.0, 0)) == pytest.approx(5.863584748755167, rel=4 * EPS)


def test_kernel_edge_values():
    inf, nan = np.inf, np.nan
    x = np.array([inf, -inf, nan, 0.0, -0.0, 30.0, -30.0, 1e-310])
    r = S.erf(x)
    np.testing.assert_array_equal(r[:2], [1.0, -1.0])
    assert np.isnan(r[2]) and r[3] == 0 and not np.signbit(r[3]) and r[4] == 0 and np.signbit(r[4])
    np.testing.assert_array_equal(r[5:7], [1.0, -1.0])
    assert r[7] > 0
    c = S.erfc(x)
    np.testing.assert_array_equal(c[[0, 1, 3, 4, 5, 6]], [0.0, 2.0, 1.0, 1.0, 0.0, 2.0])
    assert np.isnan(c[2])
    i = S.erfinv(np.array([1.0, -1.0, 1.5, -1.0000001, inf, -inf, nan, 0.0, -0.0, 1e-310]))
    np.testing.assert_array_equal(i[:2], [inf, -inf])
    assert np.isnan(i[2:7]).all()
    assert i[7] == 0 and not np.signbit(i[7]) and i[8] == 0 and np.signbit(i[8])
    assert i[9] == pytest.approx(math.sqrt(math.pi) / 2 * 1e-310, rel=1e-6)   # subnormal: few digits


def test_kernels_zero_dim_and_empty():
    for f in (S.erf, S.erfc, S.erfinv):
        r = f(np.array(0.25))
        assert isinstance(r, np.ndarray) and r.shape == () and r.dtype == np.float64
        assert f(np.zeros((2, 0, 3))).shape == (2, 0, 3)
        assert f(0.25) == r                        # Python scalars are fine too
    assert S.erf(np.array(0.25)) == pytest.approx(math.erf(0.25), rel=2 * EPS)
    assert S.erfinv(np.array(-0.9)) == pytest.approx(-1.1630871536766743, rel=4 * EPS)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_kernels_keep_the_floating_dtype(dtype):
    x = np.linspace(-0.99, 0.99, 41).astype(dtype)
    x64 = x.astype(np.float64)
    tol = {np.float16: 1e-3, np.float32: 1e-7, np.float64: 1e-15}[dtype]
    for f, ref in ((S.erf, math.erf), (S.erfc, math.erfc)):
        r = f(x)
        assert r.dtype == dtype
        np.testing.assert_allclose(r.astype(np.float64), [ref(v) for v in x64], rtol=tol)
    r = S.erfinv(x)
    assert r.dtype == dtype
    np.testing.assert_allclose(r.astype(np.float64), S.erfinv(x64), rtol=tol)
    assert S.erf(np.arange(3)).dtype == np.float64     # integers compute in float64, as SciPy's do


def test_kernels_refuse_complex():
    with pytest.raises(TypeError, match="real input"):
        S.erf(np.array([1 + 1j]))


@pytest.mark.skipif(sps is None, reason="scipy not installed")
def test_kernels_agree_with_scipy():
    x = grid()
    assert rel_err(S.erf(x), sps.erf(x)).max() < 4 * EPS
    c = sps.erfc(x)
    normal = c > 1e-300
    near = np.abs(x) < 1
    assert rel_err(S.erfc(x), c)[near].max() < 8 * EPS
    # beyond, SciPy's erfc carries the rounding of x*x (about 1e-16 * x*x relative): ours is the closer
    assert rel_err(S.erfc(x), c)[normal].max() < 1e-13
    p = np.concatenate([np.linspace(-1, 1, 20001), 1 - 2.0 ** -np.arange(1, 53), np.geomspace(1e-300, 0.5, 200)])
    assert rel_err(S.erfinv(p), sps.erfinv(p)).max() < 8 * EPS


def test_kernel_coefficients_are_what_regen_prints():
    pytest.importorskip("mpmath")
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        S._regen()
    assert tuple(float(v) for v in out.getvalue().split(",\n")) == S._G_POLY


# -------------------------------------------------------------- the ops
def test_ops_use_scipy_when_installed_else_numpy_kernels():
    if sps is not None:
        assert pointwise._erf is sps.erf and pointwise._erfinv is sps.erfinv
    else:
        assert pointwise._erf is S.erf and pointwise._erfinv is S.erfinv


_NO_SCIPY = """
import sys
sys.modules["scipy"] = None          # any 'import scipy...' now raises ImportError
import numpy as np
import tensorplay as tp
from tensorplay.ops import _special, pointwise
assert pointwise._erf is _special.erf and pointwise._erfc is _special.erfc
assert pointwise._erfinv is _special.erfinv
x = tp.tensor(np.linspace(-0.999, 0.999, 201), requires_grad=True)
y = tp.erfinv(x)
y.sum().backward()
assert tp.autograd.gradcheck(tp.erfinv, (x[::20].detach().requires_grad_(),))
z = tp.tensor(0.3, dtype=tp.float64)
print(repr(tp.erf(z).item()), repr(tp.erfc(z).item()), repr(tp.erfinv(z).item()))
print(" ".join(repr(v) for v in y.tolist()))
print(" ".join(repr(v) for v in x.grad.tolist()))
"""


def test_ops_without_scipy_in_a_fresh_interpreter():
    env = dict(os.environ)
    src = os.path.dirname(os.path.dirname(os.path.abspath(tp.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([src] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    out = subprocess.run([sys.executable, "-c", _NO_SCIPY], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    scalars, ys, grads = out.stdout.strip().splitlines()
    e, c, i = (float(v) for v in scalars.split())
    assert e == pytest.approx(math.erf(0.3), rel=2 * EPS) and c == pytest.approx(math.erfc(0.3), rel=2 * EPS)
    assert math.erf(i) == pytest.approx(0.3, rel=2 * EPS)
    p = np.linspace(-0.999, 0.999, 201)
    y = np.array([float(v) for v in ys.split()])
    np.testing.assert_allclose([math.erf(v) for v in y], p, rtol=4 * EPS)
    np.testing.assert_allclose([float(v) for v in grads.split()],
                               math.sqrt(math.pi) / 2 * np.exp(y * y), rtol=1e-14)
    if sps is not None:
        np.testing.assert_allclose(y, sps.erfinv(p), rtol=8 * EPS)


@pytest.mark.parametrize("name", ["erf", "erfc", "erfinv"])
def test_ops_zero_dim(name):
    x = tp.tensor(0.4, requires_grad=True)
    y = getattr(tp, name)(x)
    assert y.shape == () and y.dtype == tp.float32
    y.backward()
    assert x.grad.shape == ()
    ref = {"erf": math.erf, "erfc": math.erfc, "erfinv": lambda v: S.erfinv(np.float64(v))}[name]
    assert y.item() == pytest.approx(ref(0.4), rel=1e-6)
    assert getattr(x, name)().item() == y.item()              # the method spelling


@pytest.mark.parametrize("dtype", [tp.float16, tp.bfloat16, tp.float32, tp.float64])
def test_ops_keep_dtype(dtype):
    x = tp.tensor([-0.9, -0.3, 0.0, 0.5, 0.95], dtype=dtype)
    for name in ("erf", "erfc", "erfinv"):
        y = getattr(tp, name)(x)
        assert y.dtype == dtype
    assert tp.erf(tp.tensor([1, 2])).dtype == tp.float32     # integers promote like other float ops


def test_ops_against_libm_over_the_grid():
    x = grid()
    t = tp.tensor(x, dtype=tp.float64)
    np.testing.assert_allclose(tp.erf(t).numpy(), [math.erf(v) for v in x], rtol=4 * EPS, atol=0)
    want = np.array([math.erfc(v) for v in x])
    normal = want > 1e-300
    assert rel_err(tp.erfc(t).numpy(), want)[normal].max() < 1e-13     # SciPy's tail or ours


def test_erfinv_inplace_and_edges():
    x = tp.tensor([0.5, 1.0, -1.0, 2.0], dtype=tp.float64)
    x.erfinv_()
    r = x.numpy()
    assert r[0] == pytest.approx(0.4769362762044699, rel=4 * EPS)
    assert r[1] == np.inf and r[2] == -np.inf and np.isnan(r[3])


def test_erfinv_gradcheck_and_gradgradcheck():
    x = tp.tensor([-0.95, -0.5, -0.1, 0.0, 0.3, 0.8, 0.97], dtype=tp.float64, requires_grad=True)
    assert tp.autograd.gradcheck(tp.erfinv, (x,))
    assert tp.autograd.gradgradcheck(tp.erfinv, (x,))
    y = tp.erfinv(x)
    g, = tp.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(g.numpy(), math.sqrt(math.pi) / 2 * np.exp(y.detach().numpy() ** 2), rtol=1e-14)


def test_erf_erfinv_compose_to_identity_with_unit_gradient():
    x = tp.tensor(np.linspace(-2, 2, 9), dtype=tp.float64, requires_grad=True)
    y = tp.erfinv(tp.erf(x))
    np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy(), rtol=1e-14, atol=1e-15)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones(9), rtol=1e-13)
