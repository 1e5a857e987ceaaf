"""Python and NumPy numbers as weak scalars where a kernel combines two of them
(``alpha=``): the result keeps the tensor's dtype, as in PyTorch."""
import numpy as np
import pytest

FLOAT_CALLS = {
    "method floats": lambda T, x: x.add(1.0, alpha=2.0),
    "function": lambda T, x: T.add(x, 1.5, alpha=-2),
    "numpy both": lambda T, x: T.sub(x, np.float64(1), alpha=np.float64(2)),
    "numpy other": lambda T, x: x.add(np.float32(1), alpha=3),
    "number first": lambda T, x: T.add(2.0, x, alpha=3),
}
INT_CALLS = {
    "method ints": lambda T, x: x.add(1, alpha=2),
    "sub ints": lambda T, x: T.sub(x * 3, 1, alpha=2),
    "numpy ints": lambda T, x: T.add(x, np.int64(2), alpha=np.int64(3)),
}


@pytest.mark.parametrize("name", list(FLOAT_CALLS))
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_alpha_with_a_number_keeps_a_float_dtype(T, name, dtype):
    r = FLOAT_CALLS[name](T, T.arange(3).to(getattr(T, dtype)))
    assert r.dtype == getattr(T, dtype)
    want = FLOAT_CALLS[name](T, T.arange(3.0, dtype=T.float64))
    assert r.double().tolist() == pytest.approx(want.tolist(), rel=1e-2, abs=1e-6)


@pytest.mark.parametrize("name", list(INT_CALLS))
@pytest.mark.parametrize("dtype", ["int32", "int16", "uint8", "float32"])
def test_alpha_with_an_integer_keeps_the_dtype(T, name, dtype):
    r = INT_CALLS[name](T, T.arange(3).to(getattr(T, dtype)) + 1)
    assert r.dtype == getattr(T, dtype)
    want = INT_CALLS[name](T, T.arange(3) + 1)
    assert r.long().tolist() == want.tolist()
