"""Regressions for results that were wrong without an error (session 15)."""
import numpy as np
import pytest

import tensorplay as tp


def test_float16_logsumexp_jvp_weights_from_the_maximum():
    # weights exp(x - r) with r the float16-rounded result were 5% off near 300
    x = np.array([300.0, 299.5, 298.0], np.float16)
    t = np.array([1.0, 0.5, -0.25], np.float16)
    _, jt = tp.func.jvp(lambda a: tp.logsumexp(a, 0), (tp.tensor(x),), (tp.tensor(t),))
    x64 = x.astype(np.float64)
    w = np.exp(x64 - x64.max())
    expect = (w * t).sum() / w.sum()
    assert jt.dtype == tp.float16
    assert abs(float(jt) - expect) < 2e-3


@pytest.mark.parametrize("dim,keepdim", [(0, False), (1, True), ((0, 1), False), (-1, False)])
def test_logsumexp_jvp_matches_finite_differences_with_minus_inf(dim, keepdim):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4)) * 3
    x[1, 2] = -np.inf
    t = rng.standard_normal((3, 4))
    f = lambda a: tp.logsumexp(a, dim, keepdim)      # noqa: E731
    _, jt = tp.func.jvp(f, (tp.tensor(x),), (tp.tensor(t),))
    eps = 1e-6
    fd = (f(tp.tensor(x + eps * t)).numpy() - f(tp.tensor(x - eps * t)).numpy()) / (2 * eps)
    np.testing.assert_allclose(jt.numpy(), fd, rtol=1e-6, atol=1e-8)


def _bag_max_reference(W, idx, offs, pad):
    """PyTorch's CPU kernel, one bag at a time: keep an entry when it is the bag's
    first or greater than the kept one (so a NaN is kept only when first)."""
    bounds = list(offs) + [len(idx)]
    out = np.zeros((len(offs), W.shape[1]))
    grad = np.zeros_like(W)
    for b in range(len(offs)):
        for c in range(W.shape[1]):
            kept = None
            for i in idx[bounds[b]:bounds[b + 1]]:
                if i == pad:
                    continue
                if kept is None or W[i, c] > W[kept, c]:
                    kept = i
            if kept is not None:
                out[b, c] = W[kept, c]
                grad[kept, c] += 1
    return out, grad


def test_embedding_bag_max_with_nan_and_inf_follows_the_kernels_walk():
    rng = np.random.default_rng(0)
    vals = [1.0, 2.0, np.nan, -np.inf, np.inf, 0.5, 2.0]
    for trial in range(150):
        W = rng.choice(vals, size=(5, 2))
        n = int(rng.integers(1, 7))
        idx = rng.integers(0, 5, n)
        offs = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
        offs[0] = 0
        pad = None if trial % 3 else int(rng.integers(0, 5))
        w = tp.tensor(W, requires_grad=True)
        o = tp.nn.functional.embedding_bag(tp.tensor(idx), w, tp.tensor(offs), mode="max", padding_idx=pad)
        o.sum().backward()
        out, grad = _bag_max_reference(W, idx, offs, pad)
        np.testing.assert_array_equal(o.detach().numpy(), out)
        np.testing.assert_array_equal(w.grad.numpy(), grad)
