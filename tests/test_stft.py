"""``tensorplay.stft``/``istft`` (and ``Tensor.stft``/``Tensor.istft``), compositions
of differentiable ops (``src/tensorplay/_stft.py``):

- values against a NumPy oracle written from the definition (runs without
  torch) and against PyTorch: 1-D and 2-D signals, real and complex, every
  pad_mode, centre-padded short windows, ``align_to_window``, ``normalized``,
  ``onesided``, ``return_complex=False``; istft's ``length`` trimming and
  padding; round trips ``istft(stft(x)) == x``;
- first gradients (signal and window) against PyTorch's, gradcheck and
  gradgradcheck in float64/complex128, forward mode against finite
  differences, ``jacfwd == jacrev``, ``vmap`` over signals, spectra and windows;
- PyTorch's warnings (each once per process, as its ``TORCH_WARN_ONCE``) and
  its exception types and messages, word for word.
"""
import warnings

import numpy as np
import pytest

import tensorplay as tp
from tensorplay import _stft, _warn
from tensorplay.autograd import gradcheck, gradgradcheck
from tensorplay.func import jacfwd, jacrev, jvp, vmap
from tensorplay.func import _vmap

from conftest import assert_close, exact, torch

PAD_MODES = ("reflect", "constant", "replicate", "circular")


@pytest.fixture(autouse=True)
def _fresh_warnings():
    """Each test sees stft's once-per-process warnings afresh."""
    mine = (_stft._NO_WINDOW_STFT, _stft._NO_WINDOW_ISTFT, _stft._REAL_OUTPUT, _stft._LENGTH_PAD)
    _warn._WARNED.difference_update(mine)
    yield
    _warn._WARNED.difference_update(mine)


def _quiet(f, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **k)


def _signal(shape, dtype, seed=0):
    g = np.random.default_rng(seed)
    a = g.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * g.standard_normal(shape)
    return a.astype(dtype)


def _hann(n):
    return 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)      # periodic, as torch.hann_window


# ------------------------------------------------------------------ a NumPy oracle
def _np_stft(x, n_fft, hop, win_length, window, center, pad_mode, normalized, onesided,
             align=False):
    x = np.atleast_2d(x)
    if center:
        p = n_fft // 2
        mode = {"reflect": "reflect", "constant": "constant", "replicate": "edge",
                "circular": "wrap"}[pad_mode]
        x = np.pad(x, ((0, 0), (p, p)), mode=mode)
    w = np.ones(win_length) if window is None else window
    left = (n_fft - win_length) // 2
    wfull = np.zeros(n_fft, dtype=np.result_type(w, np.float32))
    wfull[left:left + win_length] = w
    out = []
    if align:
        n_frames = 1 + (x.shape[-1] - win_length) // hop
        for t in range(n_frames):
            buf = np.zeros(x.shape[:1] + (n_fft,), dtype=np.result_type(x, w))
            buf[:, left:left + win_length] = x[:, t * hop:t * hop + win_length] * w
            out.append(buf)
    else:
        n_frames = 1 + (x.shape[-1] - n_fft) // hop
        out = [x[:, t * hop:t * hop + n_fft] * wfull for t in range(n_frames)]
    frames = np.stack(out, axis=1)                  # (batch, frames, n_fft)
    spec = np.fft.fft(frames, axis=-1, norm="ortho" if normalized else "backward")
    if onesided:
        spec = spec[..., :n_fft // 2 + 1]
    return spec.transpose(0, 2, 1)


def _np_istft(spec, n_fft, hop, window, center, length=None):
    """Two-sided complex spectra (batch, n_fft, frames) -> complex signals."""
    frames = np.fft.ifft(spec.transpose(0, 2, 1), axis=-1) * window
    n = frames.shape[1]
    total = n_fft + hop * (n - 1)
    y = np.zeros((spec.shape[0], total), dtype=frames.dtype)
    env = np.zeros(total)
    for t in range(n):
        y[:, t * hop:t * hop + n_fft] += frames[:, t]
        env[t * hop:t * hop + n_fft] += window ** 2
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (total - n_fft // 2 if center else total)
    y = y[:, start:end] / env[start:end]
    if length is not None and y.shape[1] < length:
        y = np.pad(y, ((0, 0), (0, length - y.shape[1])))
    return y


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("pad_mode", PAD_MODES)
def test_stft_values_against_numpy(dtype, pad_mode):
    x = _signal((2, 23), dtype, seed=1)
    w = np.random.default_rng(2).random(6).astype(np.float64 if dtype in ("float64", "complex128")
                                                  else np.float32)
    cplx = np.dtype(dtype).kind == "c"
    for batched in (False, True):
        xi = x if batched else x[0]
        for center in (True, False):
            for hop, win, window, normalized in ((None, None, None, False), (3, 6, w, True),
                                                 (1, 6, None, False), (5, 8, _hann(8), False)):
                for onesided in ((False,) if cplx else (True, False)):
                    got = _quiet(tp.stft, tp.tensor(xi), 8, hop, win,
                                 None if window is None else tp.tensor(window), center=center,
                                 pad_mode=pad_mode, normalized=normalized, onesided=onesided,
                                 return_complex=True)
                    want = _np_stft(xi, 8, 2 if hop is None else hop, 8 if win is None else win,
                                    window, center, pad_mode, normalized, onesided)
                    want = want if batched else want[0]
                    tol = 1e-5 if dtype in ("float32", "complex64") else 1e-12
                    assert_close(got.numpy(), want, atol=tol, rtol=tol)
                    single = dtype in ("float32", "complex64") and (
                        window is None or window.dtype == np.float32)
                    assert got.dtype == (tp.complex64 if single else tp.complex128)


def test_stft_align_to_window_against_numpy():
    # frames of win_length samples from t * hop_length, windowed, zero-padded to n_fft.  (Where
    # such frames would read past the signal's storage, PyTorch 2.13 fails with a setStorage
    # error; here the frames that fit are the result.)
    x = _signal((2, 21), "float64", seed=3)
    w = np.random.default_rng(4).random(5)
    for hop in (1, 2, 3):
        for wl, win in ((5, w), (8, None), (3, None)):
            got = tp.stft(tp.tensor(x), 8, hop, wl, None if win is None else tp.tensor(win),
                          center=False, align_to_window=True, return_complex=True) \
                if win is not None else _quiet(tp.stft, tp.tensor(x), 8, hop, wl, center=False,
                                               align_to_window=True, return_complex=True)
            assert_close(got.numpy(), _np_stft(x, 8, hop, wl, win, False, None, False, True,
                                               align=True), atol=1e-12)


def test_return_complex_false_is_view_as_real_and_warns_once():
    x = tp.tensor(_signal(20, "float32"))
    w = tp.tensor(_hann(8).astype(np.float32))
    with pytest.warns(UserWarning) as rec:
        r = tp.stft(x, 8, window=w, return_complex=False)
    assert [str(m.message) for m in rec] == [_stft._REAL_OUTPUT]
    assert str(_stft._REAL_OUTPUT).startswith("stft with return_complex=False is deprecated. In a "
                                              "future pytorch release")
    c = tp.stft(x, 8, window=w, return_complex=True)
    assert r.shape == (5, 11, 2) and r.dtype == tp.float32
    assert_close(r.numpy(), np.stack([c.numpy().real, c.numpy().imag], -1), atol=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tp.stft(x, 8, window=w, return_complex=False)            # once per process


def test_window_warnings_once():
    x = tp.tensor(_signal(20, "float32"))
    with pytest.warns(UserWarning) as rec:
        s = tp.stft(x, 8, return_complex=True)
        tp.stft(x, 8, return_complex=True)
        tp.istft(s, 8)
        tp.istft(s, 8)
    assert [str(m.message) for m in rec] == [_stft._NO_WINDOW_STFT, _stft._NO_WINDOW_ISTFT]
    assert _stft._NO_WINDOW_STFT.startswith("A window was not provided. A rectangular window will "
                                            "be applied,which is known")


def test_defaults_onesided_and_dtypes():
    w = tp.ones(8)
    real = tp.tensor(_signal(20, "float32"))
    assert tp.stft(real, 8, window=w, return_complex=True).shape == (5, 11)       # onesided
    assert tp.stft(real, 8, window=w, return_complex=True, onesided=False).shape == (8, 11)
    cplx = tp.tensor(_signal(20, "complex64"))
    s = tp.stft(cplx, 8, window=w)                       # complex: return_complex defaults True
    assert s.shape == (8, 11) and s.dtype == tp.complex64
    # a complex window makes the transform complex (two-sided, complex result)
    s = tp.stft(real, 8, window=tp.ones(8, dtype=tp.complex128))
    assert s.shape == (8, 11) and s.dtype == tp.complex128
    # the window's dtype promotes; an integer window is a float32 one here
    assert tp.stft(real, 8, window=tp.ones(8, dtype=tp.float64), return_complex=True).dtype == \
        tp.complex128
    assert tp.stft(real, 8, window=tp.arange(8), return_complex=True).dtype == tp.complex64
    # istft: onesided unless the frequencies are n_fft
    S = tp.tensor(_signal((5, 6), "complex128"))
    assert tp.istft(S, 8, window=tp.ones(8, dtype=tp.float64)).dtype == tp.float64
    S2 = tp.tensor(_signal((8, 6), "complex64"))
    assert tp.istft(S2, 8, window=tp.ones(8), return_complex=True).dtype == tp.complex64
    assert tp.istft(S2, 8, window=tp.ones(8)).dtype == tp.float32


# ------------------------------------------------------------------ istft
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_istft_values_against_numpy(dtype):
    spec = _signal((2, 8, 7), dtype, seed=5)
    w = _hann(8) + 0.1
    for center in (True, False):
        for length in (None, 9, 16, 40):
            for batched in (True, False):
                s = spec if batched else spec[0]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    got = tp.istft(tp.tensor(s), 8, 2, window=tp.tensor(w), center=center,
                                   length=length, return_complex=True)
                want = _np_istft(spec, 8, 2, w, center, length)
                tol = 1e-5 if dtype == "complex64" else 1e-12
                assert_close(got.numpy(), want if batched else want[0], atol=tol, rtol=tol)


def test_istft_length_pads_with_a_warning_once():
    x = _signal(20, "float64")
    S = tp.stft(tp.tensor(x), 8, window=tp.tensor(_hann(8)), return_complex=True)
    with pytest.warns(UserWarning) as rec:
        y = tp.istft(S, 8, window=tp.tensor(_hann(8)), length=30)
        tp.istft(S, 8, window=tp.tensor(_hann(8)), length=30)
    assert [str(m.message) for m in rec] == [_stft._LENGTH_PAD]
    # the frames cover 24 samples from the start (the last 4 the reflection padding's)
    assert y.shape == (30,) and np.all(y.numpy()[24:] == 0) and np.all(y.numpy()[20:24] != 0)
    assert_close(y.numpy()[:20], x, atol=1e-12)
    assert _stft._LENGTH_PAD.startswith("The length of signal is shorter than the length "
                                        "parameter.")


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_round_trip(dtype):
    x = _signal((3, 37), dtype, seed=6)
    cplx = np.dtype(dtype).kind == "c"
    for n_fft, hop, wl in ((8, 2, None), (16, 4, 12), (9, 3, 7)):
        w = tp.tensor(_hann(n_fft if wl is None else wl))
        for mode in PAD_MODES:
            for normalized in (False, True):
                for onesided in ((False,) if cplx else (True, False)):
                    S = tp.stft(tp.tensor(x), n_fft, hop, wl, w, pad_mode=mode,
                                normalized=normalized, onesided=onesided, return_complex=True)
                    y = tp.istft(S, n_fft, hop, wl, w, normalized=normalized, onesided=onesided,
                                 length=37, return_complex=cplx)
                    assert y.shape == x.shape
                    tol = 1e-5 if dtype in ("float32", "complex64") else 1e-12
                    assert_close(y.numpy(), x, atol=tol)
                    y1 = tp.istft(S[0], n_fft, hop, wl, w, normalized=normalized,
                                  onesided=onesided, length=37, return_complex=cplx)
                    assert_close(y1.numpy(), x[0], atol=tol)


# ------------------------------------------------------------------ against PyTorch
def _both(f):
    """f(lib, to_tensor) on torch and tensorplay: (result or exception) each."""
    out = []
    for lib, conv in ((torch, lambda a: torch.from_numpy(np.asarray(a))), (tp, tp.tensor)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out.append(f(lib, conv))
        except Exception as e:          # noqa: BLE001  (compared below)
            out.append(e)
    return out


def _same(f, atol=1e-5):
    want, got = _both(f)
    if isinstance(want, Exception) or isinstance(got, Exception):
        assert type(got) is type(want), (want, got)
        assert str(got) == str(want).replace("torch.", "tensorplay."), (str(want), str(got))
        return
    w = want.detach().numpy()
    g = got.detach().numpy()
    assert g.shape == w.shape and str(g.dtype) == str(w.dtype)
    assert_close(g, w, atol=atol, rtol=atol)


@pytest.mark.skipif(torch is None, reason="torch not installed")
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_stft_against_torch(dtype):
    x1 = _signal(20, dtype, seed=7)
    x2 = _signal((3, 21), dtype, seed=8)
    w8 = np.random.default_rng(9).random(8).astype(np.float32)
    w5 = np.random.default_rng(10).random(5)
    for x in (x1, x2):
        for mode in PAD_MODES:
            for center in (True, False):
                for kw in ({}, {"hop_length": 3}, {"win_length": 5, "hop_length": 1},
                           {"normalized": True}, {"onesided": False}):
                    for win in ((None, w8) if "win_length" not in kw else (None, w5)):
                        for rc in (True, False):
                            _same(lambda m, c: m.stft(
                                c(x), 8, window=None if win is None else c(win), center=center,
                                pad_mode=mode, return_complex=rc, **kw))
    # align_to_window where PyTorch's frames stay inside the signal
    for al in (None, True, False):
        _same(lambda m, c: m.stft(c(x1), 8, 2, 4, c(w8[:4]), center=False, return_complex=True,
                                  align_to_window=al))
    _same(lambda m, c: c(x2).stft(8, hop_length=3, window=c(w8.astype(np.float64)),
                                  return_complex=True))
    # pad_mode is not read without center
    _same(lambda m, c: m.stft(c(x1), 8, window=c(w8), pad_mode=None, center=False,
                              return_complex=True))
    # a non-contiguous batch of signals
    for mode in PAD_MODES:
        _same(lambda m, c: m.stft(c(np.ascontiguousarray(x2.T)).t(), 8, 3, window=c(w8),
                                  pad_mode=mode, return_complex=True))


@pytest.mark.skipif(torch is None, reason="torch not installed")
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_istft_against_torch(dtype):
    hann8, hann5 = _hann(8), _hann(5)
    for shape in ((5, 11), (2, 5, 11), (8, 11), (2, 8, 11)):
        S = _signal(shape, dtype, seed=11)
        for center in (True, False):
            for kw in ({}, {"hop_length": 3}, {"win_length": 5}, {"normalized": True},
                       {"onesided": False}, {"length": 12}, {"length": 40}):
                for W in (None, hann8, np.ones(8, np.float32), hann8 + 0.3j):
                    if W is not None and "win_length" in kw:
                        W = hann5
                    for rc in (True, False):
                        _same(lambda m, c: m.istft(c(S), 8, window=None if W is None else c(W),
                                                   center=center, return_complex=rc, **kw))
    S = _signal((5, 11), dtype, seed=12)
    _same(lambda m, c: c(S).istft(8, 2, window=c(hann8), length=17))
    _same(lambda m, c: m.istft(c(S).conj(), 8, window=c(hann8)))
    _same(lambda m, c: m.istft(c(S), 8, window=c(np.arange(1, 9))))


def _torch_grads(f, inputs, seed):
    """Gradients of sum(view_as_real-ish(f(*inputs)) * G) in torch and tensorplay."""
    res = []
    for lib in (torch, tp):
        ts = [lib.tensor(a, requires_grad=True) for a in inputs]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = f(lib, *ts)
        o = lib.view_as_real(out) if out.is_complex() else out
        G = lib.tensor(np.random.default_rng(seed).standard_normal(tuple(o.shape)))
        (o * G).sum().backward()
        res.append([t.grad.numpy() for t in ts])
    return res


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_first_gradients_against_torch():
    x = _signal((2, 19), "float64", seed=13)
    xc = _signal(19, "complex128", seed=14)
    w = np.random.default_rng(15).random(6) + 0.5
    cases = []
    for mode in PAD_MODES:
        cases.append((lambda m, x, w, mode=mode: m.stft(x, 8, 3, 6, w, pad_mode=mode,
                                                        return_complex=True), (x, w)))
    cases += [
        (lambda m, x, w: m.stft(x, 8, 2, 6, w, center=False, normalized=True, onesided=False,
                                return_complex=True), (x, w)),
        (lambda m, x, w: m.stft(x, 8, 2, 6, w, return_complex=False), (xc, w)),
        (lambda m, x, w: m.stft(x, 8, 2, 6, w, center=False, align_to_window=True,
                                return_complex=True), (x[:, :9], w)),
    ]
    S = _signal((2, 5, 7), "complex128", seed=16)
    S2 = _signal((8, 7), "complex128", seed=17)
    w8 = np.random.default_rng(18).random(8) + 0.5
    cases += [
        (lambda m, s, w: m.istft(s, 8, 2, window=w), (S, w8)),
        (lambda m, s, w: m.istft(s, 8, 2, 6, w, normalized=True, length=11), (S, w)),
        (lambda m, s, w: m.istft(s, 8, 3, window=w, center=False, length=30), (S, w8)),
        (lambda m, s, w: m.istft(s, 8, 2, window=w, onesided=False), (S2, w8)),
        (lambda m, s, w: m.istft(s, 8, 2, window=w, return_complex=True), (S2, w8)),
        (lambda m, s, w: m.istft(s, 8, 2, window=w, return_complex=True),
         (S2, w8 + 0.5j * w8[::-1])),
    ]
    for i, (f, inputs) in enumerate(cases):
        want, got = _torch_grads(f, inputs, seed=100 + i)
        for a, b in zip(got, want):
            assert_close(a, b, atol=1e-9, rtol=1e-7, msg=f"case {i}")
    # float32: gradients in single precision, PyTorch's to float32 accuracy
    f, inputs = cases[0]
    want, got = _torch_grads(f, [a.astype(np.float32) for a in inputs], seed=7)
    for a, b in zip(got, want):
        assert a.dtype == np.float32
        assert_close(a, b, atol=1e-4, rtol=1e-4)


# ------------------------------------------------------------------ gradcheck, forward mode, vmap
def _req(a):
    return tp.tensor(a, requires_grad=True)


def test_gradcheck_and_gradgradcheck():
    x = _req(_signal(13, "float64", seed=20))
    x2 = _req(_signal((2, 11), "float64", seed=21))
    xc = _req(_signal(13, "complex128", seed=22))
    w = _req(np.random.default_rng(23).random(6) + 0.5)
    wc = _req(np.random.default_rng(24).random(8) + 0.5 + 0.3j)
    checks = [(lambda x, w, m=m: tp.stft(x, 8, 3, 6, w, pad_mode=m, return_complex=True), (x, w))
              for m in PAD_MODES]
    checks += [
        (lambda x, w: tp.stft(x, 8, 2, 6, w, center=False, normalized=True, onesided=False,
                              return_complex=True), (x2, w)),
        (lambda x, w: tp.stft(x, 8, 3, 6, w, return_complex=True), (xc, w)),
        (lambda x, w: tp.stft(x, 8, 3, window=w, return_complex=True), (x, wc)),
        (lambda x, w: tp.stft(x, 8, 2, 6, w, center=False, align_to_window=True,
                              return_complex=True), (x, w)),
    ]
    S = _req(_signal((5, 6), "complex128", seed=25))
    S2 = _req(_signal((2, 8, 6), "complex128", seed=26))
    w8 = _req(np.random.default_rng(27).random(8) + 0.5)
    checks += [
        (lambda s, w: tp.istft(s, 8, 2, window=w), (S, w8)),
        (lambda s, w: tp.istft(s, 8, 2, 6, w, normalized=True, length=9), (S, w)),
        (lambda s, w: tp.istft(s, 8, 3, window=w, center=False), (S, w8)),
        (lambda s, w: tp.istft(s, 8, 2, window=w, onesided=False), (S2, w8)),
        (lambda s, w: tp.istft(s, 8, 2, window=w, return_complex=True), (S2, wc)),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for f, inputs in checks:
            assert gradcheck(f, inputs)
            assert gradgradcheck(f, inputs)


def test_forward_mode_against_finite_differences():
    rng = np.random.default_rng(30)
    x = tp.tensor(_signal((2, 15), "float64", seed=31))
    w = tp.tensor(rng.random(6) + 0.5)
    S = tp.tensor(_signal((5, 7), "complex128", seed=32))
    w8 = tp.tensor(rng.random(8) + 0.5)
    cases = [
        (lambda x, w: tp.stft(x, 8, 3, 6, w, pad_mode="reflect", return_complex=True), (x, w)),
        (lambda x, w: tp.stft(x, 8, 2, 6, w, center=False, normalized=True, onesided=False,
                              return_complex=True), (x, w)),
        (lambda s, w: tp.istft(s, 8, 2, window=w, length=13), (S, w8)),
        (lambda s, w: tp.istft(s, 8, 2, 8, w, center=False), (S, w8)),
    ]
    eps = 1e-6
    for f, primals in cases:
        tangents = tuple(tp.tensor(_signal(tuple(p.shape), p.dtype.name, seed=33)) for p in primals)
        out, tan = jvp(f, primals, tangents)
        assert_close(out.numpy(), f(*primals).numpy(), atol=0)
        hi = f(*(p + eps * t for p, t in zip(primals, tangents)))
        lo = f(*(p - eps * t for p, t in zip(primals, tangents)))
        assert_close(tan.numpy(), (hi.numpy() - lo.numpy()) / (2 * eps), atol=1e-7, rtol=1e-6)


def test_jacfwd_equals_jacrev():
    x = tp.tensor(_signal(13, "float64", seed=40))
    w = tp.tensor(np.random.default_rng(41).random(6) + 0.5)
    S = tp.tensor(_signal((5, 6), "complex128", seed=42))
    w8 = tp.tensor(np.random.default_rng(43).random(8) + 0.5)
    fs = [(lambda x: tp.view_as_real(tp.stft(x, 8, 3, 6, w, return_complex=True)), x),
          (lambda w: tp.view_as_real(tp.stft(x, 8, 3, 6, w, return_complex=True)), w),
          (lambda w: tp.istft(S, 8, 2, window=w), w8)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # (no op falls back to a per-sample loop)
        for f, a in fs:
            assert_close(jacfwd(f)(a).numpy(), jacrev(f)(a).numpy(), atol=1e-12)


def test_vmap():
    rng = np.random.default_rng(50)
    X = tp.tensor(_signal((4, 2, 15), "float64", seed=51))
    w = tp.tensor(rng.random(6) + 0.5)
    W = tp.tensor(rng.random((3, 6)) + 0.5)
    SB = tp.tensor(_signal((3, 5, 6), "complex128", seed=52))
    W8 = tp.tensor(rng.random((3, 8)) + 0.5)
    del _vmap.FELL_BACK[:]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vmap(lambda x: tp.stft(x, 8, 3, 6, w, return_complex=True))(X)
        want = tp.stack([tp.stft(X[i], 8, 3, 6, w, return_complex=True) for i in range(4)])
        assert_close(got.numpy(), want.numpy(), atol=0)
        got = vmap(lambda w: tp.stft(X[0, 0], 8, 3, 6, w, return_complex=True))(W)
        want = tp.stack([tp.stft(X[0, 0], 8, 3, 6, W[i], return_complex=True) for i in range(3)])
        assert_close(got.numpy(), want.numpy(), atol=0)
        got = vmap(lambda s: tp.istft(s, 8, 2, window=W8[0]))(SB)
        want = tp.istft(SB, 8, 2, window=W8[0])
        assert_close(got.numpy(), want.numpy(), atol=1e-15)
        got = vmap(lambda s, w: tp.istft(s, 8, 2, window=w))(SB, W8)
        want = tp.stack([tp.istft(SB[i], 8, 2, window=W8[i]) for i in range(3)])
        assert_close(got.numpy(), want.numpy(), atol=1e-15)
    assert not _vmap.FELL_BACK
    # the NOLA check reads every sample's envelope
    bad = tp.stack([W8[0], tp.zeros(8, dtype=tp.float64)])
    with pytest.raises(RuntimeError, match="window overlap add min: 1"):
        vmap(lambda w: tp.istft(SB[0], 8, 2, window=w))(bad)


# ------------------------------------------------------------------ errors
_X = _signal(20, "float32", seed=60)
_S = _signal((5, 11), "complex64", seed=61)


@pytest.mark.parametrize("case", [
    lambda m, c: m.stft(c(_X), 8),                                    # return_complex required
    lambda m, c: m.stft(c(_X).long(), 8, return_complex=True, window=c(np.ones(8, np.float32))),
    lambda m, c: m.stft(c(_X > 0), 8, center=False, return_complex=True),
    lambda m, c: m.stft(c(_X > 0), 8, return_complex=True),
    lambda m, c: m.stft(c(_X).reshape(2, 2, 5), 4, return_complex=True),
    lambda m, c: m.stft(c(_X).reshape(1, 2, 2, 5), 4, return_complex=True),
    lambda m, c: m.stft(c(_X)[0], 4, center=False, return_complex=True),
    lambda m, c: m.stft(c(_X)[0], 4, return_complex=True),
    lambda m, c: m.stft(c(_X), 40, center=False, win_length=10, return_complex=True),
    lambda m, c: m.stft(c(_X), 0, center=False, return_complex=True),
    lambda m, c: m.stft(c(_X), 8, hop_length=0, return_complex=True),
    lambda m, c: m.stft(c(_X), 8, win_length=9, return_complex=True),
    lambda m, c: m.stft(c(_X), 8, win_length=5, window=c(np.ones(8)), return_complex=True),
    lambda m, c: m.stft(c(_X), 8, window=c(np.ones((2, 4))), return_complex=True),
    lambda m, c: m.stft(c(_X).to(m.complex64), 8, onesided=True, window=c(np.ones(8))),
    lambda m, c: m.stft(c(_X), 8, window=c(np.ones(8, np.complex128)), onesided=True),
    lambda m, c: m.stft(c(_X), 8, pad_mode="foo", return_complex=True),
    lambda m, c: m.stft(c(_X), 8, pad_mode=None, return_complex=True),
    lambda m, c: m.stft(c(_X)[:4], 8, return_complex=True),
    lambda m, c: m.stft(c(_X).half(), 8, return_complex=True, window=c(np.ones(8, np.float16))),
    lambda m, c: m.stft(c(_X), 8, return_complex=True, align_to_window=True),
    lambda m, c: m.stft(c(_X), 8.0, return_complex=True),
    lambda m, c: m.stft(c(_X), 8, 2.0, return_complex=True),
    lambda m, c: m.stft(c(_X), 8, window=[1.0] * 8, return_complex=True),
    lambda m, c: m.stft(c(_X), 8, return_complex=1),
    lambda m, c: m.stft(c(_X), 8, normalized=None, return_complex=True),
    lambda m, c: m.stft(c(_X), True, center=False, return_complex=True),
    lambda m, c: m.stft(c(_X), 8, foo=1),
    lambda m, c: m.stft(c(_X)),
    lambda m, c: m.stft(c(_X), 8, 2, 8, None, True, "reflect", False, None, True, None, 5),
    lambda m, c: m.stft(c(np.zeros((0, 20))), 8, return_complex=True),
    lambda m, c: m.istft(c(_S).real.contiguous(), 8),
    lambda m, c: m.istft(c(_S)[0], 8),
    lambda m, c: m.istft(c(_S)[0, 0], 8),
    lambda m, c: m.istft(c(_S).reshape(1, 1, 5, 11), 8),
    lambda m, c: m.istft(c(_S)[:, :0], 8),
    lambda m, c: m.istft(c(_S), 10),
    lambda m, c: m.istft(c(_S), 8, onesided=False),
    lambda m, c: m.istft(c(_S), 8, hop_length=9),
    lambda m, c: m.istft(c(_S), 8, hop_length=0),
    lambda m, c: m.istft(c(_S), 8, win_length=9),
    lambda m, c: m.istft(c(_S), 8, win_length=6, window=c(np.ones(8))),
    lambda m, c: m.istft(c(_S), 8, window=c(_hann(8).astype(np.float32)), center=False),
    lambda m, c: m.istft(c(_S).to(m.complex128), 8, window=c(np.zeros(8))),
    lambda m, c: m.istft(c(_S), 8, window=c(np.ones(8)), return_complex=True),
    lambda m, c: m.istft(c(_signal((8, 11), "complex64")), 8, window=c(np.ones(8, np.complex64))),
    lambda m, c: m.istft(c(_S), 8, length=0),
    lambda m, c: m.istft(c(_S), 8, 2.0),
    lambda m, c: m.istft(c(_S), 8, None, 8, [1.0] * 8),
    lambda m, c: m.istft(c(_S), 8, window=[1.0] * 8),
    lambda m, c: m.istft(c(_S), 8, center=1),
    lambda m, c: m.istft(c(_S), 8, normalized=None),
    lambda m, c: m.istft(c(_S), 8, length=3.0),
    lambda m, c: m.istft(c(_S), True),
    lambda m, c: m.istft([1j], 8),
    lambda m, c: m.istft(c(_S), 8, foo=1),
    lambda m, c: m.istft(c(_S)),
    lambda m, c: m.istft(),
    lambda m, c: m.istft(c(_S), 8, n_fft=8),
    lambda m, c: m.istft(c(_S), 8, 2, 8, None, True, False, None, None, False, 5),
    lambda m, c: c(_S).istft(8, hop_length=2.0),
])
@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_errors_against_torch(case):
    want, got = _both(case)
    assert isinstance(want, Exception), want
    assert type(got) is type(want) and str(got) == str(want).replace("torch.", "tensorplay."), \
        (str(want), str(got))


def test_error_messages():
    # (without torch: a few of PyTorch 2.13's messages, spelled out)
    x = tp.tensor(_X)
    with pytest.raises(RuntimeError, match=exact(
            "stft requires the return_complex parameter be given for real inputs, and will further "
            "require that return_complex=True in a future PyTorch release.")):
        tp.stft(x, 8, window=tp.ones(8))
    with pytest.raises(RuntimeError, match=exact(
            "stft(tensorplay.FloatTensor[28], n_fft=8, hop_length=0, win_length=8, window="
            "tensorplay.FloatTensor{[8]}, normalized=0, onesided=None, return_complex=1, "
            "align_to_window=None) : expected hop_length > 0, but got hop_length=0")):
        tp.stft(x, 8, 0, window=tp.ones(8), return_complex=True)
    with pytest.raises(RuntimeError, match=exact(
            "istft(CPUComplexFloatType[5, 11], n_fft=8, hop_length=2, win_length=8, window="
            "tensorplay.FloatTensor{[8]}, center=0, normalized=0, onesided=None, length=None, "
            "return_complex=0) window overlap add min: 1\n[ CPUBoolType{} ]")):
        tp.istft(tp.tensor(_S), 8, window=tp.tensor(_hann(8).astype(np.float32)), center=False)
    with pytest.raises(RuntimeError, match=exact("stft align_to_window should only be set when "
                                                 "center = false")):
        tp.stft(x, 8, window=tp.ones(8), return_complex=True, align_to_window=False)
    with pytest.raises(TypeError, match=exact("istft(): argument 'hop_length' (position 3) must be "
                                              "int, not float")):
        tp.tensor(_S).istft(8, hop_length=2.0)


def test_tensor_methods_and_exports():
    assert "stft" in tp.__all__ and "istft" in tp.__all__
    x = tp.tensor(_signal((2, 20), "float64", seed=70))
    w = tp.tensor(_hann(8))
    s = x.stft(8, 2, window=w, return_complex=True)
    assert_close(s.numpy(), tp.stft(x, 8, 2, window=w, return_complex=True).numpy(), atol=0)
    y = s.istft(8, 2, window=w, length=20)
    assert_close(y.numpy(), x.numpy(), atol=1e-12)
    # the window and the signal both get gradients through the round trip
    xr, wr = x.clone().requires_grad_(), w.clone().requires_grad_()
    tp.istft(tp.stft(xr, 8, 2, window=wr, return_complex=True), 8, 2, window=wr,
             length=20).sum().backward()
    assert_close(xr.grad.numpy(), np.ones((2, 20)), atol=1e-12)       # the identity map
    assert_close(wr.grad.numpy(), np.zeros(8), atol=1e-9)             # (x does not depend on w)
