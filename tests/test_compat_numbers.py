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


# The pointwise fast paths hand a ufunc a Python number as a cached 0-d array of
# the tensor's dtype (NumPy takes an array faster); the results must be NumPy's
# own for the number, bit for bit, on every call (cache hits included).
_VALUES = [1.0001, 1e-4, 3, -7, 1 / 3, 0.1, 1e-45, 3.4e38, float("inf"), float("-inf"),
           0.0, -0.0, 0, float("nan"), 2 ** 60, 1.0001, 3, -0.0, 0.0]


def _torch_remainder(a, b):
    """PyTorch's remainder of floats: fmod moved by the divisor where the signs
    differ, so that a zero keeps the dividend's sign (NumPy's takes the divisor's)."""
    r = np.fmod(a, b)
    return np.where((r != 0) & ((r < 0) != (np.asarray(b) < 0)), r + b, r)


@pytest.mark.parametrize("dtype, op", [(d, o) for d in ("float32", "float64", "complex64", "complex128")
                                       for o in ("add", "sub", "mul", "div", "remainder", "floordiv")
                                       if d.startswith("float") or o in ("add", "sub", "mul", "div")])
def test_fast_path_numbers_are_numpys_bit_for_bit(dtype, op):
    import tensorplay as tp
    rng = np.random.default_rng(5)
    a = (rng.standard_normal(64) * 10).astype(dtype)
    if dtype.startswith("complex"):
        a = a + 1j * a[::-1]
    x = tp.tensor(a)
    ufunc = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
             "remainder": _torch_remainder, "floordiv": np.floor_divide}[op]
    f = {"add": lambda x, v: x + v, "sub": lambda x, v: x - v, "mul": lambda x, v: x * v,
         "div": lambda x, v: x / v, "remainder": lambda x, v: x % v, "floordiv": lambda x, v: x // v}[op]
    rf = {"add": lambda v, x: v + x, "sub": lambda v, x: v - x, "mul": lambda v, x: v * x,
          "div": lambda v, x: v / x, "remainder": lambda v, x: v % x, "floordiv": lambda v, x: v // x}[op]
    for v in _VALUES:
        with np.errstate(all="ignore"):
            want = ufunc(a, v)
            got = f(x, v).numpy()
            assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True), v
            assert np.array_equal(np.signbit(got.real), np.signbit(want.real)), v   # -0.0 kept
            # (number / tensor is PyTorch's reciprocal(tensor) * number: its rounding)
            got = rf(v, x).numpy()
            want = np.multiply(np.reciprocal(a), v) if op == "div" else ufunc(v, a)
            assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True), v
            assert np.array_equal(np.signbit(got.real), np.signbit(want.real)), v


def test_fast_path_numbers_keep_numpys_overflow_behaviour():
    """A number the dtype cannot hold is not cached: NumPy's warning comes every
    time, and a Python int too large for a float raises as it did."""
    import warnings
    import tensorplay as tp
    x = tp.ones(3)
    for _ in range(2):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = x * 1e39
        assert np.isinf(r.numpy()).all() and any("overflow" in str(m.message) for m in w)
    with pytest.raises(OverflowError):
        x * 10 ** 400


NUMPY_BOOL_CALLS = {
    "tensor - np.bool_": lambda T, x: x - np.bool_(True),
    "np.bool_ - tensor": lambda T, x: np.bool_(True) - x if T.__name__ == "tensorplay"
    else T.tensor(1.0) - x,         # (a NumPy scalar on the left of a torch tensor is NumPy's)
    "sub": lambda T, x: T.sub(x, np.bool_(True), alpha=2),
    "sub_": lambda T, x: x.clone().sub_(np.bool_(False)),
}


@pytest.mark.parametrize("name", list(NUMPY_BOOL_CALLS))
def test_numpy_bool_is_a_number_in_subtraction(T, name):
    """PyTorch refuses Python bools and bool tensors in a subtraction, but takes a
    NumPy bool as a number."""
    r = NUMPY_BOOL_CALLS[name](T, T.tensor([1.0, 2.0]))
    assert r.dtype == T.float32
    want = {"tensor - np.bool_": [0.0, 1.0], "np.bool_ - tensor": [0.0, -1.0],
            "sub": [-1.0, 0.0], "sub_": [1.0, 2.0]}[name]
    assert r.tolist() == want


def test_alpha_takes_the_result_dtype(T):
    """``alpha`` is cast to the result's dtype (a bool result stays bool) and
    checked against it; a NumPy bool is a float there, a NumPy int an int."""
    b = T.tensor([True, False])
    i = T.tensor([1, 2])
    x = T.tensor([1., 2.])
    r = b.add(b, alpha=2)
    assert r.dtype == T.bool and r.tolist() == [True, False]
    r = b.add(b, alpha=0)
    assert r.dtype == T.bool and r.tolist() == [True, False]
    r = i.sub(i, alpha=np.int64(2))
    assert r.dtype == T.int64 and r.tolist() == [-1, -2]
    r = x.add(x, alpha=np.True_)
    assert r.dtype == T.float32 and r.tolist() == [2., 4.]
    with pytest.raises(RuntimeError, match="For integral input tensors, argument alpha must not be "
                                           "a floating point number"):
        b.add(b, alpha=np.True_)
    with pytest.raises(RuntimeError, match="For integral input tensors"):
        i.clone().add_(i, alpha=np.float64(2.0))
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        x.clone().sub_(x, alpha=True)
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors"):
        b.sub(b, alpha=1.5)          # the bool operands are refused first


@pytest.mark.parametrize("name,f", [
    ("int - np.True_", lambda T, i, b: i - np.True_),
    ("np.True_ - int", lambda T, i, b: np.True_ - i),
    ("int * np.True_", lambda T, i, b: i * np.True_),
    ("bool + np.True_", lambda T, i, b: b + np.True_),
    ("bool * np.False_", lambda T, i, b: b * np.False_),
    ("add(int, np.True_)", lambda T, i, b: T.add(i, np.True_)),
    ("int ** np.True_", lambda T, i, b: i ** np.True_),
    ("where(int, np.True_)", lambda T, i, b: T.where(i > 1, i, np.True_)),
    ("full(np.True_)", lambda T, i, b: T.full((2,), np.True_)),
    ("int == np.True_", lambda T, i, b: i == np.True_),
    ("int + np.int64", lambda T, i, b: i + np.int64(2)),
    ("bool + np.int64", lambda T, i, b: b + np.int64(2)),
    ("int fill_ np.True_", lambda T, i, b: i.clone().fill_(np.True_)),
    ("int fill_ np.int64", lambda T, i, b: i.clone().fill_(np.int64(3))),
    ("int fill_ np.float64", lambda T, i, b: i.clone().fill_(np.float64(2.7))),
    ("bool fill_ np.int64", lambda T, i, b: b.clone().fill_(np.int64(0))),
])
def test_numpy_scalar_operands(T, name, f):
    """A NumPy scalar in a tensor's place is a number of its kind; a NumPy bool
    is a float there (PyTorch's reading: ``int_tensor - np.True_`` is float32)."""
    r = f(T, T.tensor([1, 2]), T.tensor([True, False]))
    expected = {"int - np.True_": ("float32", [0., 1.]), "np.True_ - int": ("float32", [0., -1.]),
                "int * np.True_": ("float32", [1., 2.]), "bool + np.True_": ("float32", [2., 1.]),
                "bool * np.False_": ("float32", [0., 0.]), "add(int, np.True_)": ("float32", [2., 3.]),
                "int ** np.True_": ("float32", [1., 2.]), "where(int, np.True_)": ("float32", [1., 2.]),
                "full(np.True_)": ("float32", [1., 1.]), "int == np.True_": ("bool", [True, False]),
                "int + np.int64": ("int64", [3, 4]), "bool + np.int64": ("int64", [3, 2]),
                "int fill_ np.True_": ("int64", [1, 1]), "int fill_ np.int64": ("int64", [3, 3]),
                "int fill_ np.float64": ("int64", [2, 2]), "bool fill_ np.int64": ("bool", [False, False])}
    dt, values = expected[name]
    assert str(r.dtype).split(".")[-1] == dt and r.tolist() == values


# PyTorch's Scalar overloads: a number (Python bool, int, float, complex, or a
# NumPy scalar of those kinds) in an op's place gives the overload's node, with no
# slot for the number; a tensor gives the tensor overload's.  ``sub(number, x)``
# takes the number as a tensor, while the operator ``number - x`` is ``rsub``.
OVERLOADS = {
    "x ** True": lambda T, x, y: x ** True,
    "x ** np.float64": lambda T, x, y: x ** np.float64(2.),
    "x ** np.int64": lambda T, x, y: x ** np.int64(2),
    "x ** y": lambda T, x, y: x ** y,
    "np.float64 ** x": lambda T, x, y: np.float64(2.) ** x,
    "pow(True, x)": lambda T, x, y: T.pow(True, x),
    "xlogy(x, True)": lambda T, x, y: T.xlogy(x, True),
    "xlogy(True, x)": lambda T, x, y: T.xlogy(True, x),
    "xlogy(x, np.float32)": lambda T, x, y: T.xlogy(x, np.float32(2)),
    "remainder(x, np.int64)": lambda T, x, y: T.remainder(x, np.int64(2)),
    "x % np.float64": lambda T, x, y: x % np.float64(2),
    "fmod(x, np.float64)": lambda T, x, y: T.fmod(x, np.float64(2)),
    "fmod(x, True)": lambda T, x, y: T.fmod(x, True),
    "3 - x": lambda T, x, y: 3 - x,
    "np.float64 - x": lambda T, x, y: np.float64(3) - x,
    "(1+1j) - x": lambda T, x, y: (1 + 1j) - x,
    "sub(3., x)": lambda T, x, y: T.sub(3., x),
    "sub(np.float64, x)": lambda T, x, y: T.sub(np.float64(3), x),
    "rsub(x, y, alpha)": lambda T, x, y: T.rsub(x, y, alpha=2),
    "rsub(x, 3)": lambda T, x, y: T.rsub(x, 3),
}


@pytest.mark.parametrize("name", list(OVERLOADS))
def test_scalar_overload_nodes_match_torch(name):
    from conftest import torch
    if torch is None:
        pytest.skip("torch not installed")
    import tensorplay as tp
    seen = []
    for T in (torch, tp):
        x = T.tensor([1.5, 2.5], requires_grad=True)
        y = T.tensor([0.5, 2.], requires_grad=True)
        r = OVERLOADS[name](T, x, y)
        fn = r.grad_fn
        seen.append((fn.name(), len(fn.next_functions), str(r.dtype).split(".")[-1],
                     [round(v, 5) if isinstance(v, float) else v for v in r.tolist()]))
    assert seen[1] == seen[0]


# numbers where PyTorch's signatures want a Tensor: its "invalid combination" TypeError (two
# numbers; a number first where no signature takes Number self), or its computation
NUMBER_CALLS = [("eq", (1.0, 2)), ("eq", (1.0, "t")), ("gt", (True, "t")), ("remainder", (7.0, 2)),
                ("remainder", (7.0, "t")), ("fmod", (7.0, 2)), ("fmod", (7.0, "t")), ("pow", (2.0, 3)),
                ("pow", (2, "t")), ("float_power", (2.0, 3)), ("float_power", (2, "t")),
                ("copysign", (1.0, 2.0)), ("copysign", (1.0, "t")), ("bitwise_and", (1, 2)),
                ("bitwise_and", (1, "l")), ("bitwise_left_shift", (1, 2)), ("heaviside", (1.0, "t")),
                ("heaviside", ("t", 1.0)), ("isclose", (1.0, "t")), ("isclose", ("t", 1.0)),
                ("xlogy", (1.0, 2.0))]


def _outcome(T, name, args):
    sub = {"t": T.ones(2), "l": T.ones(2, dtype=T.long)}
    try:
        return ("ok", getattr(T, name)(*[sub.get(a, a) if isinstance(a, str) else a for a in args]).tolist())
    except Exception as e:
        return (type(e).__name__, str(e))


@pytest.mark.parametrize("name,args", NUMBER_CALLS)
def test_numbers_where_pytorch_wants_a_tensor(T, name, args):
    import tensorplay as tp
    if T is tp:
        got = _outcome(tp, name, args)
        if all(not isinstance(a, str) for a in args):      # two numbers: refused by every one
            assert got[0] == "TypeError"
        return
    assert _outcome(tp, name, args) == _outcome(T, name, args)


def test_two_numbers_to_eq_is_pytorchs_type_error():
    import tensorplay as tp
    with pytest.raises(TypeError) as e:
        tp.eq(1.0, 2)
    assert str(e.value) == (
        "eq() received an invalid combination of arguments - got (float, int), but expected one of:\n"
        " * (Tensor input, Tensor other, *, Tensor out = None)\n"
        " * (Tensor input, Number other, *, Tensor out = None)\n")
    with pytest.raises(TypeError, match=r"remainder\(\) .*\n .*\n \* \(Number self, Tensor other\)\n      "
                                        r"didn't match because some of the arguments have invalid types: "
                                        r"\(!float!, !int!\)\n"):
        tp.remainder(7.0, 2)
