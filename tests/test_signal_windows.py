"""tensorplay.signal.windows: values against NumPy's windows and closed forms
(every window, symmetric and periodic, float32 and float64), PyTorch's
argument errors, dtypes and requires_grad, and (when torch is installed) the
same calls in torch."""
import importlib
import math

import numpy as np
import pytest

import tensorplay
from conftest import torch


def W(T):
    return importlib.import_module(T.__name__ + ".signal.windows")


def _cos_sum(M, a, sym):
    N = M - 1 if sym else M
    n = np.arange(M)
    return sum((-1) ** i * c * np.cos(2 * np.pi * i * n / N) for i, c in enumerate(a))


def _reference(name, M, sym, **kw):
    """The window in float64 from NumPy / the closed forms (SciPy's definitions)."""
    if M == 0:
        return np.zeros(0)
    if M == 1:
        return np.ones(1)
    if not sym:                     # periodic: the symmetric window of M + 1 without its end
        if name in ("cosine",):
            pass
        elif name in ("exponential",) and kw.get("center") is not None:
            pass
        else:
            return _reference(name, M + 1, True, **kw)[:-1]
    n = np.arange(M)
    if name == "hann":
        return np.hanning(M)
    if name == "hamming":
        return np.hamming(M)
    if name == "blackman":
        return np.blackman(M)
    if name == "bartlett":
        return np.bartlett(M)
    if name == "kaiser":
        return np.kaiser(M, kw.get("beta", 12.0))
    if name == "general_hamming":
        alpha = kw.get("alpha", 0.54)
        return _cos_sum(M, [alpha, 1 - alpha], True)
    if name == "general_cosine":
        return _cos_sum(M, kw["a"], True)
    if name == "nuttall":
        return _cos_sum(M, [0.3635819, 0.4891775, 0.1365995, 0.0106411], True)
    if name == "gaussian":
        std = kw.get("std", 1.0)
        return np.exp(-0.5 * ((n - (M - 1) / 2) / std) ** 2)
    if name == "exponential":
        tau = kw.get("tau", 1.0)
        center = kw.get("center")
        if center is None:
            center = (M - 1) / 2
        return np.exp(-np.abs(n - center) / tau)
    if name == "cosine":
        L = M if sym else M + 1
        return np.sin(np.pi * (n + 0.5) / L)
    raise AssertionError(name)


CASES = [("hann", {}), ("hamming", {}), ("blackman", {}), ("bartlett", {}), ("kaiser", {}),
         ("kaiser", {"beta": 0.0}), ("kaiser", {"beta": 3.5}), ("general_hamming", {}),
         ("general_hamming", {"alpha": 0.6}), ("general_cosine", {"a": [0.5, 0.3, 0.2]}),
         ("general_cosine", {"a": (1.0,)}), ("nuttall", {}), ("gaussian", {}),
         ("gaussian", {"std": 2.5}), ("exponential", {}), ("exponential", {"tau": 0.5}),
         ("cosine", {})]


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}{i}" for i, (n, _) in enumerate(CASES)])
def test_values(T, name, kw):
    fn = getattr(W(T), name)
    for M in (0, 1, 2, 3, 7, 10):
        for sym in (True, False):
            for dt, tol in ((T.float32, 2e-6), (T.float64, 1e-12)):
                w = fn(M, sym=sym, dtype=dt, **kw)
                assert w.dtype == dt and tuple(w.shape) == (M,)
                want = _reference(name, M, sym, **kw)
                np.testing.assert_allclose(np.array(w.tolist(), dtype=np.float64), want,
                                           rtol=tol, atol=tol, err_msg=f"{name} {M} {sym} {dt}")


def test_exponential_center_and_defaults(T):
    w = W(T).exponential(7, center=1.5, sym=False, tau=2.0, dtype=T.float64)
    np.testing.assert_allclose(w.tolist(), np.exp(-np.abs(np.arange(7) - 1.5) / 2.0), rtol=1e-12)
    assert W(T).hann(4).dtype == T.get_default_dtype()
    old = T.get_default_dtype()
    T.set_default_dtype(T.float64)
    try:
        assert W(T).kaiser(4).dtype == T.float64
    finally:
        T.set_default_dtype(old)


def test_requires_grad_makes_a_graph_output(T):
    for fn in ("hann", "kaiser", "gaussian", "bartlett", "cosine", "exponential"):
        w = getattr(W(T), fn)(5, requires_grad=True)
        assert w.requires_grad and not w.is_leaf, fn
    for M in (0, 1):
        w = W(T).hann(M, requires_grad=True)
        assert w.requires_grad and w.is_leaf
    assert not W(T).hann(5).requires_grad


def _err(f):
    with pytest.raises(Exception) as info:
        f()
    return type(info.value).__name__, str(info.value).replace("torch.", "LIB.").replace(
        "tensorplay.", "LIB.")


def test_errors(T):
    w = W(T)
    assert _err(lambda: w.hann(-1)) == ("ValueError",
                                        "general_cosine requires non-negative window length, got M=-1")
    assert _err(lambda: w.kaiser(-2, beta=-1)) == (
        "ValueError", "kaiser requires non-negative window length, got M=-2")
    assert _err(lambda: w.hann(3, dtype=T.float16)) == (
        "ValueError", "general_cosine expects float32 or float64 dtypes, got: LIB.float16")
    assert _err(lambda: w.blackman(3, dtype=T.int64)) == (
        "ValueError", "blackman expects float32 or float64 dtypes, got: LIB.int64")
    assert _err(lambda: w.kaiser(3, beta=-1)) == (
        "ValueError", "beta must be non-negative, got: -1 instead.")
    assert _err(lambda: w.gaussian(3, std=0)) == (
        "ValueError", "Standard deviation must be positive, got: 0 instead.")
    assert _err(lambda: w.exponential(3, tau=0)) == ("ValueError", "Tau must be positive, got: 0 instead.")
    assert _err(lambda: w.exponential(3, center=1.0)) == (
        "ValueError", "Center must be None for symmetric windows")
    assert _err(lambda: w.general_cosine(3, a=[])) == ("ValueError", "Coefficients cannot be empty")
    assert _err(lambda: w.general_cosine(3, a=3)) == ("TypeError", "Coefficients must be a list/tuple")
    assert w.general_cosine(1, a=3).tolist() == [1.0]       # (M <= 1 returns before the check)


def test_against_torch():
    if torch is None:
        pytest.skip("torch not installed")
    for name, kw in CASES + [("exponential", {"center": 2.0, "sym": False})]:
        for M in (0, 1, 2, 5, 8):
            for sym in (True, False):
                k = dict(kw)
                k.setdefault("sym", sym)
                for dt in ("float32", "float64"):
                    a = getattr(torch.signal.windows, name)(M, dtype=getattr(torch, dt), **k)
                    b = getattr(tensorplay.signal.windows, name)(M, dtype=getattr(tensorplay, dt), **k)
                    tol = 1e-6 if dt == "float32" else 1e-13
                    np.testing.assert_allclose(b.tolist(), a.tolist(), rtol=tol, atol=tol)
    for name in ("bartlett", "blackman", "cosine", "exponential", "gaussian", "hamming", "hann",
                 "kaiser", "nuttall"):
        assert math.isclose(getattr(tensorplay.signal.windows, name)(6).sum().item(),
                            getattr(torch.signal.windows, name)(6).sum().item(), rel_tol=1e-6)
    assert sorted(tensorplay.signal.windows.__all__) == sorted(torch.signal.windows.__all__)
