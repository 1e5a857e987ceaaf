"""Differences from PyTorch found by differential fuzzing (the same programs run
against both libraries), one test each.  Every test runs on tensorplay and, when
it is installed, on torch (the ``T`` fixture): the expected values are
PyTorch's, written out, so the test is its own oracle without torch too."""
import pytest

from conftest import lst


def test_atan2_gradient_at_the_origin_is_zero(T):
    # 1 / (x^2 + y^2) is 1/0 there (also where the squares underflow): PyTorch
    # gives a zero gradient, not NaN
    y = T.tensor([0.0, 0.0, 1e-200, 0.5], dtype=T.float64, requires_grad=True)
    x = T.tensor([0.0, 1.0, 0.0, -2.0], dtype=T.float64, requires_grad=True)
    T.atan2(y, x).sum().backward()
    assert lst(y.grad)[:3] == [0.0, 1.0, 0.0]
    assert lst(x.grad)[:3] == [0.0, 0.0, 0.0]
    assert y.grad[3].item() == pytest.approx(-2.0 / 4.25)
    assert x.grad[3].item() == pytest.approx(-0.5 / 4.25)


nan, inf = float("nan"), float("inf")

# (name, f(T, a), a, f's value, gradient of (f * [1, 2, 3...]).sum()): PyTorch's
# masks at NaN and at the ends of each piece.  A NaN is in no range, so in the
# piecewise activations it stays NaN and passes the gradient on; sign(NaN) is 0;
# a max/min reduction whose result is NaN sends NaN to all of its slice; where a
# loss is infinite its gradient is that of the linear piece (not 0 * inf = NaN)
SPECIAL_POINTS = [
    ("sign", lambda T, a: T.sign(a), [nan, -0.0, 2.0], [0.0, 0.0, 1.0], None),
    ("relu", lambda T, a: a.relu(), [nan, 0.0, 2.0], [nan, 0.0, 2.0], [1.0, 0.0, 3.0]),
    ("relu6", lambda T, a: T.nn.functional.relu6(a), [nan, 6.0, 2.0], [nan, 6.0, 2.0], [1.0, 0.0, 3.0]),
    ("hardtanh", lambda T, a: T.nn.functional.hardtanh(a), [nan, 1.0, 0.5], [nan, 1.0, 0.5],
     [1.0, 0.0, 3.0]),
    ("elu", lambda T, a: T.nn.functional.elu(a), [nan, -1.0, 2.0], [nan, -0.6321205588285577, 2.0],
     [1.0, 0.7357588823428847, 3.0]),
    ("threshold", lambda T, a: T.nn.functional.threshold(a, 0.5, -1.0), [nan, 0.5, 2.0],
     [nan, -1.0, 2.0], [1.0, 0.0, 3.0]),
    ("softshrink", lambda T, a: T.nn.functional.softshrink(a), [nan, 0.5, -2.0], [nan, 0.0, -1.5],
     [1.0, 0.0, 3.0]),
    ("hardshrink", lambda T, a: T.nn.functional.hardshrink(a), [nan, -0.5, 2.0], [nan, 0.0, 2.0],
     [1.0, 0.0, 3.0]),
    ("abs", lambda T, a: a.abs(), [nan, -1.0, 2.0], [nan, 1.0, 2.0], [0.0, -2.0, 3.0]),
    ("amax", lambda T, a: a.amax(), [nan, 1.0, 2.0], [nan], [nan, nan, nan]),
    ("amin_dim", lambda T, a: T.stack([T.tensor([nan, 1.0, 2.0], dtype=a.dtype), a]).amin(1),
     [3.0, 1.0, 1.0], [nan, 1.0], [0.0, 1.0, 1.0]),
    ("maximum", lambda T, a: T.maximum(a, T.tensor([1.0, 1.0, 5.0], dtype=a.dtype)), [nan, 1.0, 2.0],
     [nan, 1.0, 5.0], [1.0, 1.0, 0.0]),
    ("minimum", lambda T, a: T.minimum(T.tensor([1.0, 1.0, 5.0], dtype=a.dtype), a), [nan, 1.0, 2.0],
     [nan, 1.0, 2.0], [1.0, 1.0, 3.0]),
    ("fmax", lambda T, a: T.fmax(a, T.tensor([1.0, nan, 2.0], dtype=a.dtype)), [nan, 1.0, 2.0],
     [1.0, 1.0, 2.0], [0.0, 2.0, 3.0]),
    ("fmin_other", lambda T, a: T.fmin(T.tensor([1.0, nan, 2.0], dtype=a.dtype), a), [nan, 1.0, 2.0],
     [1.0, 1.0, 2.0], [0.0, 2.0, 0.0]),
    ("smooth_l1", lambda T, a: T.nn.functional.smooth_l1_loss(a, T.zeros(3, dtype=a.dtype), reduction="none"),
     [nan, inf, -inf], [nan, inf, inf], [nan, 2.0, -3.0]),
    ("huber", lambda T, a: T.nn.functional.huber_loss(a, T.zeros(3, dtype=a.dtype), reduction="none"),
     [nan, -inf, 0.5], [nan, inf, 0.125], [nan, -2.0, 1.5]),
    ("l1", lambda T, a: T.nn.functional.l1_loss(a, T.zeros(3, dtype=a.dtype), reduction="none"),
     [nan, -2.0, 0.5], [nan, 2.0, 0.5], [0.0, -2.0, 3.0]),
    ("norm_inf", lambda T, a: a.norm(inf), [nan, 1.0, -2.0], [nan], [0.0, 0.0, 0.0]),
]


@pytest.mark.parametrize("name,f,a,value,grad", SPECIAL_POINTS, ids=[c[0] for c in SPECIAL_POINTS])
def test_values_and_gradients_at_nan_inf_and_piece_ends(T, name, f, a, value, grad):
    import numpy as np
    a = T.tensor(a, dtype=T.float64, requires_grad=grad is not None)
    y = f(T, a)
    np.testing.assert_array_equal(np.ravel(lst(y)), value)
    if grad is not None:
        (y * T.arange(1, y.numel() + 1, dtype=y.dtype).reshape(y.shape)).sum().backward()
        np.testing.assert_array_equal(lst(a.grad), grad)
