"""Derivative formulas written in PyTorch's order of operations where another
order over- or underflows."""
import numpy as np

import tensorplay as tp


def test_quotient_gradient_wrt_the_divisor_does_not_overflow():
    # -g (x / y) / y, PyTorch's order: x / (y * y) overflows (or underflows) in y * y
    a = tp.tensor([1e30, 3e-30], requires_grad=True)
    b = tp.tensor([1e20, 1e-25], requires_grad=True)
    (gb,) = tp.autograd.grad((a / b).sum(), b)
    np.testing.assert_allclose(gb.numpy(), [-1e-10, -3e20], rtol=1e-6)
    a = tp.tensor([1e300], dtype=tp.float64, requires_grad=True)
    b = tp.tensor([1e200], dtype=tp.float64, requires_grad=True)
    (gb,) = tp.autograd.grad((a / b).sum(), b)
    np.testing.assert_allclose(gb.numpy(), [-1e-100], rtol=1e-12)
