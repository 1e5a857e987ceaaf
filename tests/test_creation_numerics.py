"""Creation functions' values as PyTorch computes them: linspace/logspace
point by point (the ends converted to the dtype first, the step in the dtype,
half of the points counted from each end), and Python types as dtypes."""
import numpy as np
import pytest

import tensorplay as tp
from conftest import torch

DTYPES = ("int64", "int16", "uint8", "float32", "float64", "float16", "bfloat16")


def test_integer_linspace_truncates_the_ends_first():
    # PyTorch converts the ends to the integer dtype, then steps in double
    assert tp.linspace(-1.5, 2.5, 9, dtype=tp.int64).tolist() == [-1, 0, 0, 0, 0, 0, 1, 1, 2]
    assert tp.linspace(0.5, 3.7, 5, dtype=tp.int64).tolist() == [0, 0, 1, 2, 3]
    # (logspace: the exponents from the truncated ends, the powers truncated)
    assert tp.logspace(-1.5, 2.5, 9, dtype=tp.int64).tolist()[-4:] == [7, 17, 42, 100]
    assert tp.linspace(3.0, 7.0, 1, dtype=tp.int64).tolist() == [3]
    assert tp.linspace(0.0, 1.0, 0).shape == (0,)


def test_python_types_as_dtypes():
    # Python's float is a double and its complex a pair of them, whatever the default
    assert tp.tensor([1, 2]).to(float).dtype == tp.float64
    assert tp.zeros(2, dtype=float).dtype == tp.float64
    assert tp.tensor([1], dtype=complex).dtype == tp.complex128
    assert tp.tensor([1, 2]).sum(dtype=float).dtype == tp.float64
    assert tp.tensor([1.5]).to(int).dtype == tp.int64 and tp.tensor([1.5]).to(bool).dtype == tp.bool


@pytest.mark.skipif(torch is None, reason="needs torch")
@pytest.mark.parametrize("dtype", DTYPES)
def test_linspace_bit_for_bit(dtype):
    rng = np.random.default_rng(5)
    for _ in range(300):
        s, e = rng.uniform(-20, 20, 2).round(rng.integers(0, 4))
        n = int(rng.integers(1, 120))
        if dtype == "uint8" and min(s, e) < 0:
            continue
        want = torch.linspace(float(s), float(e), n, dtype=getattr(torch, dtype)).double().numpy()
        got = tp.linspace(float(s), float(e), n, dtype=getattr(tp, dtype)).double().numpy()
        np.testing.assert_array_equal(got, want, err_msg=f"{s}, {e}, {n}")


@pytest.mark.skipif(torch is None, reason="needs torch")
@pytest.mark.parametrize("dtype", ["int64", "int16", "float64", "float32"])
def test_logspace(dtype):
    rng = np.random.default_rng(6)
    for k in range(200):
        s, e = rng.uniform(-3, 3, 2).round(rng.integers(0, 4))
        n = int(rng.integers(1, 60))
        base = (10.0, 2.0, 3.5)[k % 3]
        want = torch.logspace(float(s), float(e), n, base=base, dtype=getattr(torch, dtype)).double().numpy()
        got = tp.logspace(float(s), float(e), n, base=base, dtype=getattr(tp, dtype)).double().numpy()
        if dtype == "float32":      # (a few ulps: PyTorch's float kernel rounds its exponents its own way)
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{s}, {e}, {n}, {base}")


def test_a_range_is_a_sequence():
    assert tp.tensor(range(3)).tolist() == [0, 1, 2] and tp.tensor(range(3)).dtype == tp.int64
    assert tp.as_tensor(range(2, 5)).tolist() == [2, 3, 4]
    assert tp.tensor([range(2), range(2)]).tolist() == [[0, 1], [0, 1]]
    assert tp.tensor(range(0)).shape == (0,) and tp.tensor(range(0)).dtype == tp.float32
    assert tp.tensor(range(3), dtype=tp.float64).tolist() == [0.0, 1.0, 2.0]
