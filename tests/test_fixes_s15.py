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
