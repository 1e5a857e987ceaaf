"""``tensorplay.fft`` beyond the op table (tests/opdb/fft.py runs gradcheck,
gradgradcheck, forward mode, vmap and the error inputs of every transform):

- values and dtypes against NumPy (runs without torch), NumPy < 2's double
  precision results cast back;
- every transform's Jacobian, built column by column from NumPy's transform of
  basis vectors (real and imaginary ones: the maps are linear over the reals
  only), against the vector-Jacobian products and the forward-mode tangents:
  an oracle independent of both tensorplay and torch;
- gradients against PyTorch's for odd and even sizes, cropping and padding,
  every norm, real and complex inputs;
- empty batches, ``out=``, node names, ``fftfreq``/``rfftfreq`` (bit for bit
  against PyTorch) and the shifts.
"""
import warnings

import numpy as np
import pytest

import tensorplay as tp
import tensorplay.autograd.forward_ad as fwAD
from tensorplay.func import vmap, jacfwd, jacrev
from tensorplay.func import _vmap

from conftest import assert_close, exact, torch

NORMS = (None, "backward", "ortho", "forward")
ONE_D = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
N_D = ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn",
       "hfftn", "ihfftn")
REAL_ONLY = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}


def _rng(seed):
    return np.random.default_rng(seed)


def _input(name, shape, seed=0, complex_=None):
    g = _rng(seed)
    a = g.standard_normal(shape)
    if complex_ if complex_ is not None else name not in REAL_ONLY:
        a = a + 1j * g.standard_normal(shape)
    return a


def _np_ref(name, a, **kw):
    """NumPy's transform, with NumPy's keyword names (``axis``/``axes``)."""
    kw = dict(kw)
    if "dim" in kw:
        d = kw.pop("dim")
        kw["axes" if name[-1] in "2n" else "axis"] = d
    if kw.get("s") is not None and kw.get("axes") is None:      # (NumPy 2 wants them spelled out)
        kw["axes"] = tuple(range(-len(kw["s"]), 0))
    if name in ("hfft2", "hfftn", "ihfft2", "ihfftn"):        # (not in NumPy): by definition
        s, axes, norm = kw.get("s"), kw.get("axes", (-2, -1) if name.endswith("2") else None), kw.get("norm")
        if name.startswith("hfft"):
            return np.fft.irfftn(np.conj(a), s=s, axes=axes, norm=_flip(norm))
        return np.conj(np.fft.rfftn(a, s=s, axes=axes, norm=_flip(norm)))
    return getattr(np.fft, name)(a, **kw)


def _flip(norm):
    return {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]


# ---------------------------------------------------------------- values and dtypes
@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("norm", NORMS)
def test_one_d_values_against_numpy(name, norm):
    for shape, kw in [((4, 6), {}), ((4, 5), {"n": 3}), ((4, 5), {"n": 9}), ((3, 7), {"dim": 0}),
                      ((2, 3, 5), {"dim": 1, "n": 4}), ((6,), {"n": 1})]:
        a = _input(name, shape)
        got = getattr(tp.fft, name)(tp.tensor(a), norm=norm, **kw)
        want = _np_ref(name, a, norm=norm, **kw)
        assert got.shape == want.shape and got.dtype == (tp.complex128 if np.iscomplexobj(want) else tp.float64)
        assert_close(got.numpy(), want, atol=1e-12, rtol=1e-10, msg=f"{name} {kw}")


@pytest.mark.parametrize("name", N_D)
def test_n_d_values_against_numpy(name):
    for shape, kw in [((4, 6), {}), ((4, 5), {"s": (3, 7)}), ((2, 3, 5), {"dim": (2, 0), "norm": "ortho"}),
                      ((2, 3, 5), {"s": (4, 4), "norm": "forward"})]:
        if name.endswith("2") and "dim" not in kw and "s" not in kw and len(shape) != 2:
            continue
        a = _input(name, shape)
        got = getattr(tp.fft, name)(tp.tensor(a), **kw)
        ref_kw = dict(kw)
        if name.endswith("2") and "dim" not in ref_kw:
            ref_kw["dim"] = (-2, -1)
        want = _np_ref(name, a, **ref_kw)
        assert got.shape == want.shape
        assert_close(got.numpy(), want, atol=1e-12, rtol=1e-10, msg=f"{name} {kw}")


@pytest.mark.parametrize("name", ONE_D + N_D)
def test_dtypes(name):
    """float32 in single precision, float64 in double; integers and bools in the
    default dtype (complex64 when complex)."""
    real_out = name.startswith(("irfft", "hfft"))
    for src, want in [(np.float32, tp.float32), (np.float64, tp.float64), (np.int64, tp.float32),
                      (np.bool_, tp.float32)]:
        a = (np.arange(12).reshape(3, 4) % 3).astype(src)
        r = getattr(tp.fft, name)(tp.tensor(a))
        assert r.dtype == (want if real_out else want.to_complex()), (name, src)
    if name not in REAL_ONLY:
        for src, want in [(np.complex64, tp.float32), (np.complex128, tp.float64)]:
            r = getattr(tp.fft, name)(tp.tensor(np.ones((3, 4), src)))
            assert r.dtype == (want if real_out else want.to_complex())
    prev = tp.get_default_dtype()
    tp.set_default_dtype(tp.float64)
    try:
        assert getattr(tp.fft, name)(tp.tensor(np.ones((3, 4), np.int32))).dtype == \
            (tp.float64 if real_out else tp.complex128)
    finally:
        tp.set_default_dtype(prev)


def test_numpy_computing_in_double_is_cast_back(monkeypatch):
    """NumPy 1.x computes every transform in double precision: the results are
    cast to the input's precision."""
    for fname in ("fftn", "ifftn", "rfftn", "irfftn"):
        f = getattr(np.fft, fname)
        monkeypatch.setattr(np.fft, fname, lambda *a, _f=f, _n=fname, **k: _f(*a, **k).astype(
            np.complex128 if _n != "irfftn" else np.float64))
    x = tp.tensor(_input("fft", (3, 4)).astype(np.complex64))
    assert tp.fft.fft(x).dtype == tp.complex64
    assert tp.fft.rfft(x.real.contiguous()).dtype == tp.complex64
    assert tp.fft.irfft(x).dtype == tp.float32
    assert tp.fft.fftn(x).numpy().flags.c_contiguous


def test_node_names():
    x = tp.randn(4, 5, dtype=tp.float64, requires_grad=True)
    c = tp.randn(4, 5, dtype=tp.complex128, requires_grad=True)
    assert type(tp.fft.fft(x).grad_fn).__name__ == "FftR2CBackward0"
    assert type(tp.fft.fft(c).grad_fn).__name__ == "FftC2CBackward0"
    assert type(tp.fft.rfft(x).grad_fn).__name__ == "FftR2CBackward0"
    assert type(tp.fft.irfft(c).grad_fn).__name__ == "FftC2RBackward0"
    assert type(tp.fft.fft(x, n=8).grad_fn.next_functions[0][0]).__name__ == "ConstantPadNdBackward0"
    assert type(tp.fft.fft(x, n=3).grad_fn.next_functions[0][0]).__name__ == "SliceBackward0"
    assert type(tp.fft.fftshift(x).grad_fn).__name__ == "RollBackward0"


# ---------------------------------------------------------------- the Jacobian, from NumPy
def _jacobian_from_numpy(f, shape, complex_in):
    """The real Jacobian of ``f`` (NumPy) at any point: f is linear over the reals,
    so its columns are f of the basis vectors (real and, for a complex input,
    imaginary), each output laid out as (real, imag) parts."""
    n = int(np.prod(shape))
    basis = [np.eye(n)[k].reshape(shape) for k in range(n)]
    if complex_in:
        basis += [1j * b for b in basis]

    def flat(y):
        y = np.asarray(y)
        return np.concatenate([y.real.ravel(), y.imag.ravel()]) if np.iscomplexobj(y) else y.ravel()
    return np.stack([flat(f(b)) for b in basis], axis=1)


CASES_1D = [(name, shape, kw) for name in ONE_D for shape, kw in [
    ((5,), {}), ((6,), {}), ((5,), {"n": 3}), ((5,), {"n": 8}), ((4,), {"n": 7, "norm": "ortho"}),
    ((3, 4), {"dim": 0, "norm": "forward"}), ((4,), {"n": 1})]]
CASES_ND = [(name, shape, kw) for name in ("fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn")
            for shape, kw in [((3, 4), {}), ((3, 4), {"s": (2, 5), "norm": "ortho"}),
                              ((2, 3, 3), {"dim": (2, 0), "norm": "forward"}), ((3, 5), {"s": (-1, 4)})]]




@pytest.mark.parametrize("name,shape,kw", CASES_1D + CASES_ND,
                         ids=[f"{n}-{s}-{k}" for n, s, k in CASES_1D + CASES_ND])
def test_vjp_and_jvp_are_numpys_jacobian(name, shape, kw):
    """For real and (where taken) complex inputs: J from NumPy; the vjp of each
    output basis vector is the matching row of J (PyTorch's convention: the
    gradient of a real function is dL/dRe + i dL/dIm), and the jvp of each
    input basis vector is the matching column."""
    for complex_in in ((False,) if name in REAL_ONLY else (False, True)):
        ref_kw = dict(kw)
        J = _jacobian_from_numpy(lambda a: _np_ref(name, a, **ref_kw), shape, complex_in)
        a = _input(name, shape, seed=3, complex_=complex_in)
        x = tp.tensor(a, requires_grad=True)
        y = getattr(tp.fft, name)(x, **kw)
        m = int(np.prod(y.shape))
        ny = 2 * m if y.is_complex() else m
        assert J.shape[0] == ny
        rows = []
        for k in range(ny):
            e = np.zeros(m, complex if y.is_complex() else float)
            e[k % m] = 1 if k < m else 1j
            g, = tp.autograd.grad(y, x, tp.tensor(e.reshape(tuple(y.shape))), retain_graph=True)
            g = g.numpy().ravel()
            rows.append(np.concatenate([g.real, g.imag]) if complex_in else g.real)
        assert_close(np.array(rows), J, atol=1e-12, rtol=1e-10, msg=f"{name} vjp")
        cols = []
        n = int(np.prod(shape))
        for k in range(J.shape[1]):
            t = np.zeros(n, complex if complex_in else float)
            t[k % n] = 1 if k < n else 1j
            with fwAD.dual_level():
                d = fwAD.make_dual(tp.tensor(a), tp.tensor(t.reshape(shape)))
                tan = fwAD.unpack_dual(getattr(tp.fft, name)(d, **kw)).tangent.numpy().ravel()
            cols.append(np.concatenate([tan.real, tan.imag]) if np.iscomplexobj(tan) else tan)
        assert_close(np.stack(cols, axis=1), J, atol=1e-12, rtol=1e-10, msg=f"{name} jvp")


# ---------------------------------------------------------------- against PyTorch
def _torch_grads(name, a, w, kw):
    xt = torch.tensor(a, requires_grad=True)
    yt = getattr(torch.fft, name)(xt, **kw)
    gt, = torch.autograd.grad(yt, xt, torch.tensor(w))
    return yt.detach().resolve_conj().numpy(), gt.resolve_conj().numpy()


@pytest.mark.skipif(torch is None, reason="torch not installed")
@pytest.mark.parametrize("name", ONE_D)
def test_one_d_grads_against_torch(name):
    g = _rng(11)
    for complex_in in ((False,) if name in REAL_ONLY else (False, True)):
        for size in (5, 6):
            for n in (None, 1, 2, 3, 4, 7, 8, 11):
                for norm in NORMS:
                    a = _input(name, (3, size), seed=size, complex_=complex_in)
                    x = tp.tensor(a, requires_grad=True)
                    y = getattr(tp.fft, name)(x, n=n, norm=norm)
                    w = g.standard_normal(tuple(y.shape))
                    if y.is_complex():
                        w = w + 1j * g.standard_normal(w.shape)
                    gx, = tp.autograd.grad(y, x, tp.tensor(w))
                    yt, gt = _torch_grads(name, a, w, dict(n=n, norm=norm))
                    msg = f"{name} complex={complex_in} size={size} n={n} norm={norm}"
                    assert_close(y.detach().numpy(), yt, atol=1e-12, rtol=1e-10, msg=msg)
                    assert gx.dtype == x.dtype
                    assert_close(gx.numpy(), gt, atol=1e-12, rtol=1e-10, msg=msg + " grad")


@pytest.mark.skipif(torch is None, reason="torch not installed")
@pytest.mark.parametrize("name", N_D)
def test_n_d_grads_against_torch(name):
    g = _rng(12)
    for complex_in in ((False,) if name in REAL_ONLY else (False, True)):
        for shape in ((4, 5), (3, 2, 6)):
            for kw in ({}, {"s": (3, 7)}, {"s": (4, 4), "norm": "ortho"}, {"s": (-1, 5), "norm": "forward"},
                       {"dim": (-1, 0)}, {"dim": (0, -1), "s": (5, 3)}):
                a = _input(name, shape, seed=len(shape), complex_=complex_in)
                x = tp.tensor(a, requires_grad=True)
                y = getattr(tp.fft, name)(x, **kw)
                w = g.standard_normal(tuple(y.shape))
                if y.is_complex():
                    w = w + 1j * g.standard_normal(w.shape)
                gx, = tp.autograd.grad(y, x, tp.tensor(w))
                yt, gt = _torch_grads(name, a, w, kw)
                msg = f"{name} complex={complex_in} {shape} {kw}"
                assert_close(y.detach().numpy(), yt, atol=1e-12, rtol=1e-10, msg=msg)
                assert_close(gx.numpy(), gt, atol=1e-12, rtol=1e-10, msg=msg + " grad")


@pytest.mark.parametrize("name", ["irfft", "hfft", "irfftn", "ihfft", "rfft2"])
def test_second_order_in_complex128(name):
    a = _input(name, (3, 4), seed=5)
    x = tp.tensor(a, requires_grad=True)
    f = lambda t: getattr(tp.fft, name)(t, norm="ortho")       # noqa: E731
    assert tp.autograd.gradcheck(f, (x,))
    assert tp.autograd.gradgradcheck(f, (x,))


# ---------------------------------------------------------------- vmap and function transforms
@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "hfftn", "ihfft2"])
def test_vmap_over_a_middle_dimension(name):
    """The batch rule shifts the transformed dimensions past the batch dimension
    (no per-sample fallback), wherever the batch dimension is."""
    a = _input(name, (4, 3, 6), seed=2)
    kw = {"dim": 0} if name in ONE_D else {"dim": (0, -1)}
    del _vmap.FELL_BACK[:]
    got = vmap(lambda t: getattr(tp.fft, name)(t, **kw), in_dims=1)(tp.tensor(a))
    assert not _vmap.FELL_BACK
    want = tp.stack([getattr(tp.fft, name)(tp.tensor(a[:, k]), **kw) for k in range(3)])
    assert_close(got.numpy(), want.numpy(), atol=1e-12, rtol=1e-12)


def test_per_sample_gradients_through_complex_spectra():
    """vmap(grad) of a real loss of each transform's (complex) output: the vjps run
    batched (the batch rule shifts their dims too) and equal the loop's."""
    from tensorplay.func import grad
    a = _input("rfft", (3, 4, 6), seed=8)

    def loss(x):
        s = tp.fft.rfft(x, n=7, dim=0, norm="ortho")
        y = tp.fft.irfftn(s * s, s=(5, 4))
        return (y * y.cos()).sum() + (tp.fft.fft2(x).abs() ** 2).sum()
    del _vmap.FELL_BACK[:]
    got = vmap(grad(loss))(tp.tensor(a))
    assert not _vmap.FELL_BACK
    want = tp.stack([grad(loss)(tp.tensor(a[k])) for k in range(3)])
    assert_close(got.numpy(), want.numpy(), atol=1e-10, rtol=1e-10)


def test_jacfwd_equals_jacrev():
    """Real in, real out through r2c and c2r (jacfwd batches the forward rules,
    jacrev the vjps)."""
    x = tp.tensor(_input("rfft", (6,), seed=4))
    w = tp.tensor(_input("fft", (5,), seed=5))

    def f(t):
        return tp.fft.irfft(tp.fft.rfft(t, n=9) * w, n=7, norm="ortho")
    jf, jr = jacfwd(f)(x), jacrev(f)(x)
    assert tuple(jf.shape) == (7, 6)
    assert_close(jf.numpy(), jr.numpy(), atol=1e-12, rtol=1e-12)


# ---------------------------------------------------------------- special sizes, out=
@pytest.mark.parametrize("name", ONE_D)
def test_empty_batch(name):
    """An empty dimension that is not transformed: an empty result, and backward
    runs (PyTorch's MKL backend refuses this, its other backends compute it)."""
    a = _input(name, (0, 6))
    x = tp.tensor(a, requires_grad=True)
    y = getattr(tp.fft, name)(x)
    want = _np_ref(name, np.zeros((1, 6), a.dtype)).shape[1:]
    assert tuple(y.shape) == (0,) + want
    g, = tp.autograd.grad(y, x, tp.zeros_like(y))
    assert tuple(g.shape) == (0, 6)


def test_out():
    x = tp.tensor(_input("fft", (3, 4)).astype(np.complex64))
    o = tp.empty(3, 4, dtype=tp.complex128)
    r = tp.fft.fft(x, out=o)
    assert r is o and o.dtype == tp.complex128
    assert_close(o.numpy(), np.fft.fft(x.numpy()), atol=1e-5, rtol=1e-5)
    o = tp.empty(3, 6)
    tp.fft.irfft(x, out=o)
    assert_close(o.numpy(), np.fft.irfft(x.numpy()), atol=1e-5, rtol=1e-5)
    with pytest.raises(RuntimeError, match=exact("fft expects a complex output tensor, but got Float")):
        tp.fft.fft(x, out=tp.empty(3, 4))
    with pytest.raises(RuntimeError, match=exact("irfftn expects a floating point output tensor, but got "
                                                 "ComplexFloat")):
        tp.fft.irfftn(x, out=tp.empty(3, 6, dtype=tp.complex64))
    with pytest.raises(RuntimeError, match=exact("_fft_r2c(): functions with out=... arguments don't support "
                                                 "automatic differentiation, but one of the arguments "
                                                 "requires grad.")):
        tp.fft.rfft(tp.ones(4, requires_grad=True), out=tp.empty(3, dtype=tp.complex64))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        o = tp.empty(0, dtype=tp.complex64)
        tp.fft.rfft(tp.ones(4), out=o)          # an empty out is resized without a word
    assert tuple(o.shape) == (3,)


def test_argument_types():
    x = tp.ones(4)
    with pytest.raises(TypeError, match=exact("fft_fft(): argument 'n' must be int, not float")):
        tp.fft.fft(x, n=3.0)
    with pytest.raises(TypeError, match=exact("fft_fft(): argument 'dim' must be int, not tuple")):
        tp.fft.fft(x, dim=(0,))
    assert tp.fft.fftn(tp.ones(2, 3), dim=0).shape == (2, 3)           # an int for a list of ints
    assert tp.fft.fftn(tp.ones(2, 3), s=4).shape == (2, 4)


# ---------------------------------------------------------------- frequencies and shifts
def test_fftfreq_values():
    for n in (1, 2, 5, 8, 77):
        for d in (1.0, 0.1, 1 / 3, 2):
            assert_close(tp.fft.fftfreq(n, d, dtype=tp.float64).numpy(), np.fft.fftfreq(n, d),
                         atol=0, rtol=1e-15)
            assert_close(tp.fft.rfftfreq(n, d, dtype=tp.float64).numpy(), np.fft.rfftfreq(n, d),
                         atol=0, rtol=1e-15)
    assert tp.fft.fftfreq(0).shape == (0,)
    assert np.isnan(tp.fft.rfftfreq(0).numpy()).all()       # 0 * (1 / 0), as PyTorch has it
    f = tp.fft.fftfreq(5)
    assert f.dtype == tp.float32 and not f.requires_grad
    assert tp.fft.fftfreq(5, requires_grad=True).requires_grad
    assert tp.fft.rfftfreq(5, dtype=tp.float16).dtype == tp.float16


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_fftfreq_bits_against_torch():
    for n in (1, 2, 5, 7, 11, 100):
        for d in (1.0, 0.1, 0.3, 1 / 3):
            for dt in ("float32", "float64", "float16", "bfloat16"):
                for f in ("fftfreq", "rfftfreq"):
                    a = getattr(torch.fft, f)(n, d, dtype=getattr(torch, dt)).float().numpy()
                    b = getattr(tp.fft, f)(n, d, dtype=getattr(tp, dt)).float().numpy()
                    assert np.array_equal(a, b), (f, n, d, dt)


def test_fftfreq_errors():
    with pytest.raises(RuntimeError, match=exact("fftfreq requires a floating point or complex dtype")):
        tp.fft.fftfreq(5, dtype=tp.int64)
    with pytest.raises(RuntimeError, match=exact("rfftfreq requires a floating point or complex dtype")):
        tp.fft.rfftfreq(5, dtype=tp.int32)
    with pytest.raises(NotImplementedError, match=exact("\"arange_cpu\" not implemented for 'ComplexFloat'")):
        tp.fft.fftfreq(5, dtype=tp.complex64)
    with pytest.raises(RuntimeError, match=exact("Trying to create tensor with negative dimension -1: [-1]")):
        tp.fft.fftfreq(-1)
    with pytest.raises(TypeError, match=exact("fft_fftfreq(): argument 'n' (position 1) must be int, not float")):
        tp.fft.fftfreq(5.0)
    assert tp.fft.rfftfreq(-1).shape == (1,)         # PyTorch's n / 2 + 1, rounding to zero


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts(name):
    for shape, dim in [((6,), None), ((7,), None), ((4, 5), None), ((4, 5), 1), ((3, 4, 5), (0, 2))]:
        a = np.arange(np.prod(shape)).reshape(shape)
        got = getattr(tp.fft, name)(tp.tensor(a), dim=dim)
        assert got.dtype == tp.int64
        assert np.array_equal(got.numpy(), getattr(np.fft, name)(a, axes=dim))
    x = tp.arange(7.0)
    assert np.array_equal(tp.fft.ifftshift(tp.fft.fftshift(x)).numpy(), x.numpy())
