"""The Tensor: creation functions, conversions, attributes, autograd
attributes, repr (compared with torch's text)."""
import math
import pickle
import threading
import warnings

import numpy as np
import pytest

import tensorplay as tp
from conftest import torch, exact as _exact


def _ver(t):
    """The version counter as an int (``_version``, as in torch)."""
    return t._version


# ------------------------------------------------------------------ repr vs torch
NAN, INF = float("nan"), float("inf")
REPR_CASES = {
    "f0d": lambda T: T.tensor(3.),
    "f0d_frac": lambda T: T.tensor(3.25),
    "i0d": lambda T: T.tensor(3),
    "b0d": lambda T: T.tensor(True),
    "f1": lambda T: T.tensor([1.5, 2.25]),
    "fint": lambda T: T.tensor([1., 2., -3.]),
    "i1": lambda T: T.tensor([1, -20, 300]),
    "b1": lambda T: T.tensor([True, False]),
    "f16": lambda T: T.tensor([1.5, 2.], dtype=T.float16),
    "f16_frac": lambda T: T.tensor([1.1, 2.], dtype=T.float16),
    "bf16": lambda T: T.tensor([1.5, 2.1], dtype=T.bfloat16),
    "bf16_0d": lambda T: T.tensor(2.1, dtype=T.bfloat16),
    "f64": lambda T: T.tensor([1.123456789, 2.], dtype=T.float64),
    "f64_0d": lambda T: T.tensor(2.5, dtype=T.float64),
    "c64": lambda T: T.tensor([1 + 2j, -3.5 - 0.5j]),
    "c128": lambda T: T.tensor([1 + 2j, 0.25j], dtype=T.complex128),
    "c0d": lambda T: T.tensor(1 - 1j),
    "c_sci": lambda T: T.tensor([1e10 + 1j, 1.]),
    "c_nan": lambda T: T.tensor([complex(NAN, 1), 1 + 0j]),
    "c_int": lambda T: T.tensor([1 + 0j, -2j]),
    "c_negzero_imag": lambda T: T.tensor([complex(1, -0.0)]),
    "big": lambda T: T.tensor([1e10, 1.]),
    "big2": lambda T: T.tensor([123456789., 1.5]),
    "big_0d": lambda T: T.tensor(1e20),
    "large_int_f": lambda T: T.tensor([1e9, 2.]),
    "small": lambda T: T.tensor([1e-5, 1.]),
    "small2": lambda T: T.tensor([1e-5, 2e-5]),
    "small_0d": lambda T: T.tensor(1e-7),
    "ratio": lambda T: T.tensor([0.001, 2.]),
    "ratio2": lambda T: T.tensor([0.0005, 1.]),
    "ratio_int": lambda T: T.tensor([1., 1001.]),
    "negzero": lambda T: T.tensor([-0., 1.]),
    "negzero_f": lambda T: T.tensor([-0., 1.5]),
    "negzero0d": lambda T: T.tensor(-0.),
    "zeros": lambda T: T.zeros(3),
    "nonfinite": lambda T: T.tensor([NAN, INF, -INF, 1.5]),
    "nonfinite_int": lambda T: T.tensor([NAN, 1., 2.]),
    "nonfinite_sci": lambda T: T.tensor([NAN, 1e-6, 2.]),
    "allnan": lambda T: T.tensor([NAN]),
    "nan0d": lambda T: T.tensor(NAN),
    "inf0d": lambda T: T.tensor(-INF),
    "d2": lambda T: T.tensor([[1., 2.], [3., 4.5]]),
    "col": lambda T: T.tensor([[1.], [2.]]),
    "d3": lambda T: T.tensor(np.arange(24.).reshape(2, 3, 4).astype(np.float32)),
    "d3i": lambda T: T.tensor(np.arange(24).reshape(2, 3, 4)),
    "d4": lambda T: T.tensor(np.arange(16.).reshape(2, 2, 2, 2).astype(np.float32)),
    "ineg": lambda T: T.tensor([[-1, 2], [30, -400]]),
    "bools2d": lambda T: T.tensor([[True, False], [False, True]]),
    "rg": lambda T: T.tensor([1., 2.], requires_grad=True),
    "rg0d": lambda T: T.tensor(1., requires_grad=True),
    "rg64": lambda T: T.tensor([1., 2.], dtype=T.float64, requires_grad=True),
    "gradfn_mul": lambda T: T.tensor([1., 2.], requires_grad=True) * 2,
    "gradfn_add": lambda T: T.tensor([1., 2.], requires_grad=True) + 2,
    "gradfn_sum": lambda T: T.tensor([1., 2.], requires_grad=True).sum(),
    "gradfn_64": lambda T: T.tensor([1., 2.], dtype=T.float64, requires_grad=True) * 2,
    "detached": lambda T: (T.tensor([1., 2.], requires_grad=True) * 2).detach(),
    "summ1d": lambda T: T.tensor(np.arange(1001.).astype(np.float32)),
    "exact1000": lambda T: T.tensor(np.arange(1000.).astype(np.float32)),
    "summ2d": lambda T: T.tensor(np.arange(1200.).reshape(40, 30).astype(np.float32)),
    "summ3d_int": lambda T: T.tensor(np.arange(2000).reshape(10, 10, 20)),
    "summ_int1d": lambda T: T.tensor(np.arange(1001)),
    "summ_frac": lambda T: T.tensor((np.arange(1500.) / 7).astype(np.float32)),
    "summ_rg": lambda T: T.tensor(np.arange(1001.).astype(np.float32), requires_grad=True),
    "summ_c": lambda T: T.tensor((np.arange(1001.) * (1 + 0.5j)).astype(np.complex64)),
    "summ_bool": lambda T: T.tensor(np.arange(1001) % 3 == 0),
    "empty": lambda T: T.zeros(0),
    "empty2": lambda T: T.zeros(2, 0),
    "emptyi": lambda T: T.zeros(0, dtype=T.int64),
    "empty64": lambda T: T.zeros(0, dtype=T.float64),
    "emptyc": lambda T: T.zeros(0, 3, dtype=T.complex64),
    "empty_rg": lambda T: T.zeros(0, requires_grad=True),
    "u8": lambda T: T.tensor([1, 2], dtype=T.uint8),
    "i32": lambda T: T.tensor([1, 2], dtype=T.int32),
    "i8_0d": lambda T: T.tensor(5, dtype=T.int8),
    "i16": lambda T: T.tensor([-5, 7], dtype=T.int16),
    "u16": lambda T: T.tensor([1, 2], dtype=T.uint16),
    "neg": lambda T: T.tensor([-1.5, 2.]),
    "tenths": lambda T: T.tensor([0.1, 0.2, 0.3]),
    "prec": lambda T: T.tensor([1.23456, 100.5]),
    "wide": lambda T: T.tensor(np.linspace(0, 1, 30).astype(np.float32)),
    "wide2d": lambda T: T.tensor(np.linspace(-5, 5, 60).reshape(3, 20).astype(np.float32)),
    "wide_int": lambda T: T.tensor(np.arange(100) * 1000),
    "wide_c": lambda T: T.tensor((np.arange(20.) * (1 - 0.5j)).astype(np.complex64)),
    "wide_rg": lambda T: T.tensor(np.linspace(0, 1, 16).astype(np.float32), requires_grad=True),
    "long_suffix": lambda T: T.tensor(np.linspace(0, 1, 7), dtype=T.float64, requires_grad=True) * 2,
    "f16_big": lambda T: T.tensor([60000., 0.001], dtype=T.float16),
}


@pytest.mark.parametrize("name", list(REPR_CASES))
def test_repr_matches_torch(torch_or_skip, name):
    make = REPR_CASES[name]
    want = repr(make(torch_or_skip)).replace("torch.", "tensorplay.")
    got = repr(make(tp))
    assert got == want
    assert str(make(tp)) == want


@pytest.mark.parametrize("name", ["f1", "c64", "c128", "f64", "empty", "empty64", "i1"])
def test_repr_with_default_float64(torch_or_skip, name):
    make = REPR_CASES[name]
    prev_t, prev_p = torch_or_skip.get_default_dtype(), tp.get_default_dtype()
    torch_or_skip.set_default_dtype(torch_or_skip.float64)
    tp.set_default_dtype(tp.float64)
    try:
        want = repr(make(torch_or_skip)).replace("torch.", "tensorplay.")
        got = repr(make(tp))
    finally:
        torch_or_skip.set_default_dtype(prev_t)
        tp.set_default_dtype(prev_p)
    assert got == want


def test_repr_parameter(torch_or_skip):
    want = repr(torch_or_skip.nn.Parameter(torch_or_skip.ones(2))).replace("torch.", "tensorplay.")
    assert repr(tp.nn.Parameter(tp.ones(2))) == want


def test_format_0d():
    assert f"{tp.tensor(3.5):.2f}" == "3.50"
    assert f"{tp.tensor(3):d}" == "3"
    with pytest.raises(TypeError):
        f"{tp.ones(2):.2f}"


# ------------------------------------------------------------------ creation
def test_tensor_copies_and_infers_dtype(T):
    a = np.array([1., 2.])
    t = T.tensor(a)
    a[0] = 9
    assert t.tolist() == [1., 2.]
    assert t.dtype == T.float64
    assert T.tensor([1, 2]).dtype == T.int64
    assert T.tensor([1, 2.5]).dtype == T.float32
    assert T.tensor([True, False]).dtype == T.bool
    assert T.tensor([True, 1]).dtype == T.int64
    assert T.tensor([1, 2j]).dtype == T.complex64
    assert T.tensor(1.5).dtype == T.float32
    assert T.tensor(np.float64(1.5)).dtype == T.float64
    assert T.tensor([np.float64(1.5)]).dtype == T.float64
    assert T.tensor(np.int32(3)).dtype == T.int32
    assert T.tensor([]).dtype == T.float32 and T.tensor([]).shape == (0,)
    assert T.tensor([[], []]).shape == (2, 0)
    assert T.tensor([1, 2], dtype=T.float64).dtype == T.float64
    assert T.tensor(np.ones(2, np.float16)).dtype == T.float16


def test_tensor_from_tensors():
    t = tp.tensor([tp.tensor(1.), tp.tensor(2.)])
    assert t.tolist() == [1., 2.] and t.dtype == tp.float32
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        c = tp.tensor(tp.ones(2))
    assert c.tolist() == [1., 1.]


def test_tensor_bad_data(T):
    with pytest.raises(TypeError, match=_exact("new(): invalid data type 'str'")):
        T.tensor("a")
    with pytest.raises(TypeError, match=_exact("new(): invalid data type 'str'")):
        T.tensor([1, "a"])
    with pytest.raises(ValueError, match=_exact("expected sequence of length 2 at dim 1 (got 1)")):
        T.tensor([[1, 2], [3]])


def test_as_tensor_shares_memory(T):
    a = np.ones(3)
    t = T.as_tensor(a)
    a[1] = 7
    assert t.tolist() == [1., 7., 1.]
    t32 = T.as_tensor(a, dtype=T.float32)       # a conversion copies
    a[2] = 9
    assert t32.tolist() == [1., 7., 1.]
    x = T.ones(2)
    assert T.as_tensor(x) is x
    assert T.as_tensor([1, 2]).dtype == T.int64
    assert T.as_tensor([1., 2.]).dtype == T.float32


def test_from_numpy_shares_memory(T):
    a = np.arange(4.)
    t = T.from_numpy(a)
    a[0] = 10.
    assert t.tolist() == [10., 1., 2., 3.]
    t.numpy()[1] = 20.
    assert a[1] == 20.
    assert t.dtype == T.float64
    assert T.from_numpy(np.ones(2, np.float16)).dtype == T.float16
    assert T.from_numpy(np.ones(2, np.int32)).dtype == T.int32
    assert T.from_numpy(np.ones(2, np.uint8)).dtype == T.uint8
    assert T.from_numpy(np.ones(2, np.bool_)).dtype == T.bool
    assert np.shares_memory(T.from_numpy(a).numpy(), a)


def test_from_numpy_errors(T):
    with pytest.raises(TypeError, match=_exact("expected np.ndarray (got list)")):
        T.from_numpy([1])
    with pytest.raises(TypeError, match=_exact(
            "can't convert np.ndarray of type numpy.str_. The only supported types are: float64, "
            "float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, "
            "uint16, uint8, and bool.")):
        T.from_numpy(np.array(["a"]))
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.object_"):
        T.from_numpy(np.array([object()]))


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty"])
def test_size_forms(T, fn):
    f = getattr(T, fn)
    for args in [(2, 3), ((2, 3),), ([2, 3],), (T.Size([2, 3]),)]:
        t = f(*args)
        assert t.shape == (2, 3) and t.dtype == T.float32 and not t.requires_grad
    assert f(()).shape == () and f([]).shape == ()
    assert f(0).shape == (0,)
    assert f(2, dtype=T.int64).dtype == T.int64
    assert f(2, dtype=T.float64, requires_grad=True).requires_grad


def test_zeros_ones_values(T):
    assert T.zeros(2, 2).tolist() == [[0., 0.], [0., 0.]]
    assert T.ones(3, dtype=T.int32).tolist() == [1, 1, 1]
    assert T.ones(2, dtype=T.bool).tolist() == [True, True]


def test_full(T):
    assert T.full((2,), 3).dtype == T.int64
    assert T.full((2,), True).dtype == T.bool
    assert T.full((2,), 1.5).dtype == T.float32
    assert T.full((2,), 1j).dtype == T.complex64
    assert T.full((2,), 1.5, dtype=T.int64).tolist() == [1, 1]
    assert T.full((2, 1), 2.5).tolist() == [[2.5], [2.5]]
    assert T.full([], 2.).shape == ()
    assert T.full((2,), 1., requires_grad=True).requires_grad


def test_like_forms(T):
    base = T.ones(2, 3, dtype=T.float64)
    for name in ("zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"):
        t = getattr(T, name)(base)
        assert t.shape == (2, 3) and t.dtype == T.float64 and not t.requires_grad
        t = getattr(T, name)(base, dtype=T.float32, requires_grad=True)
        assert t.dtype == T.float32 and t.requires_grad and t.is_leaf
    assert T.full_like(T.ones(2, dtype=T.int64), 2.7).tolist() == [2, 2]
    assert T.full_like(base, 2.5).dtype == T.float64
    assert T.zeros_like(T.ones(2, dtype=T.int64), dtype=T.float64).dtype == T.float64
    r = T.randint_like(base, 5)
    assert r.dtype == T.float64 and r.shape == (2, 3)
    assert all(0 <= v < 5 and v == int(v) for v in r.reshape(-1).tolist())
    r = T.randint_like(T.ones(4, dtype=T.int64), 3, 6)
    assert r.dtype == T.int64 and all(3 <= v < 6 for v in r.tolist())
    x = T.ones(2, requires_grad=True)
    assert not T.zeros_like(x).requires_grad


def test_like_keeps_dtype_not_grad_fn(T):
    x = T.ones(2, requires_grad=True) * 2
    z = T.ones_like(x)
    assert z.grad_fn is None and not z.requires_grad


def test_arange(T):
    assert T.arange(5).dtype == T.int64
    assert T.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert T.arange(1, 4).tolist() == [1, 2, 3]
    assert T.arange(0, 1, 0.25).tolist() == [0., 0.25, 0.5, 0.75]
    assert T.arange(0, 1, 0.25).dtype == T.float32
    assert T.arange(5.).dtype == T.float32
    assert T.arange(5, dtype=T.float64).dtype == T.float64
    assert T.arange(10, 0, -3).tolist() == [10, 7, 4, 1]
    assert T.arange(T.tensor(3)).tolist() == [0, 1, 2]
    assert T.arange(0).tolist() == []
    assert T.arange(0, 1, 0.1).shape == (10,)
    assert T.arange(3., requires_grad=True).requires_grad


def test_arange_errors(T):
    with pytest.raises(RuntimeError, match=_exact("upper bound and lower bound inconsistent with step sign")):
        T.arange(0, 5, -1)
    with pytest.raises(RuntimeError, match=_exact("step must be nonzero")):
        T.arange(0, 5, 0)


def test_linspace(T):
    assert T.linspace(0, 1, 5).tolist() == [0., 0.25, 0.5, 0.75, 1.]
    assert T.linspace(0, 1, 5).dtype == T.float32
    assert T.linspace(0, 10, 5, dtype=T.int64).tolist() == [0, 2, 5, 7, 10]
    assert T.linspace(0, 1, 1).tolist() == [0.]
    assert T.linspace(0, 1, 0).tolist() == []
    assert T.linspace(-1, 1, 3, dtype=T.float64).dtype == T.float64


def test_eye(T):
    assert T.eye(2).tolist() == [[1., 0.], [0., 1.]]
    assert T.eye(2, 3).tolist() == [[1., 0., 0.], [0., 1., 0.]]
    assert T.eye(2, dtype=T.bool).tolist() == [[True, False], [False, True]]
    assert T.eye(3, dtype=T.int64).dtype == T.int64


def test_rand_randn(T):
    r = T.rand(100)
    assert r.dtype == T.float32 and r.shape == (100,)
    assert all(0 <= v < 1 for v in r.tolist())
    n = T.randn(2, 3, dtype=T.float64)
    assert n.dtype == T.float64 and n.shape == (2, 3)
    assert T.rand((2, 2)).shape == (2, 2)
    assert T.rand(2, dtype=T.complex64).dtype == T.complex64
    assert T.randn(2, dtype=T.float16).dtype == T.float16
    assert T.rand(2, requires_grad=True).requires_grad


def test_rand_int_dtype_errors(T):
    with pytest.raises(NotImplementedError, match=_exact(
            "\"check_uniform_bounds\" not implemented for 'Long'")):
        T.rand(2, dtype=T.int64)
    with pytest.raises(NotImplementedError, match=_exact(
            "\"normal_kernel_cpu\" not implemented for 'Long'")):
        T.randn(2, dtype=T.int64)


def test_randint(T):
    r = T.randint(5, (100,))
    assert r.dtype == T.int64 and r.shape == (100,)
    assert set(r.tolist()) <= set(range(5))
    r = T.randint(3, 6, (2, 50))
    assert r.shape == (2, 50) and set(r.reshape(-1).tolist()) <= {3, 4, 5}
    assert T.randint(0, 5, (3,), dtype=T.float32).dtype == T.float32
    # every spelling PyTorch takes: positional or keyword, with and without low
    for r in (T.randint(high=5, size=(40,)), T.randint(5, size=(40,)), T.randint(2, 5, size=(40,)),
              T.randint(low=2, high=5, size=(40,)), T.randint(2, high=5, size=(40,))):
        assert r.shape == (40,) and set(r.tolist()) <= set(range(5))
    assert set(T.randint(low=2, high=5, size=(40,)).tolist()) <= {2, 3, 4}
    with pytest.raises(RuntimeError, match=_exact(
            "random_ expects 'from' to be less than 'to', but got from=5 >= to=2")):
        T.randint(5, 2, (3,))
    with pytest.raises(TypeError, match="argument 'high' \\(position 1\\) must be int, not float"):
        T.randint(2.5, (2,))
    for args, kw in (((5,), {}), ((1, 2, (3,), 4), {}), ((), {"size": (2,)})):
        with pytest.raises(TypeError, match="randint\\(\\) received an invalid combination of arguments"):
            T.randint(*args, **kw)


def test_manual_seed_reproducible(T):
    for f in (lambda: T.rand(5), lambda: T.randn(2, 3), lambda: T.randint(0, 100, (6,)),
              lambda: T.randperm(7)):
        T.manual_seed(1234)
        a = f()
        T.manual_seed(1234)
        b = f()
        assert a.tolist() == b.tolist()
    T.manual_seed(1)
    a = T.rand(5)
    T.manual_seed(2)
    b = T.rand(5)
    assert a.tolist() != b.tolist()
    assert T.initial_seed() == 2


def test_rng_state_roundtrip(T):
    T.manual_seed(5)
    s = T.get_rng_state()
    a = T.rand(4)
    T.set_rng_state(s)
    assert T.rand(4).tolist() == a.tolist()


def test_generator(T):
    g1 = T.Generator().manual_seed(7)
    g2 = T.Generator()
    assert g2.manual_seed(7) is g2
    assert g1.initial_seed() == 7
    assert T.rand(4, generator=g1).tolist() == T.rand(4, generator=g2).tolist()
    assert T.randn(4, generator=g1).tolist() == T.randn(4, generator=g2).tolist()
    assert (T.randint(0, 9, (4,), generator=g1).tolist()
            == T.randint(0, 9, (4,), generator=g2).tolist())
    # a generator's stream is independent of the global one
    g3 = T.Generator().manual_seed(7)
    T.manual_seed(0)
    T.rand(10)
    g4 = T.Generator().manual_seed(7)
    assert T.rand(3, generator=g3).tolist() == T.rand(3, generator=g4).tolist()
    assert g1.device == T.device("cpu")
    st = g1.get_state()
    a = T.rand(3, generator=g1)
    g1.set_state(st)
    assert T.rand(3, generator=g1).tolist() == a.tolist()


def test_manual_seed_returns_generator(T):
    assert isinstance(T.manual_seed(0), T.Generator)


def test_factories_in_no_grad(T):
    with T.no_grad():
        assert T.zeros(2, requires_grad=True).requires_grad
        assert T.tensor([1.], requires_grad=True).requires_grad


def test_factory_requires_grad_int_error(T):
    msg = "Only Tensors of floating point and complex dtype can require gradients"
    for make in (lambda: T.zeros(2, dtype=T.int32, requires_grad=True),
                 lambda: T.tensor([1], requires_grad=True),
                 lambda: T.arange(3, requires_grad=True),
                 lambda: T.full((2,), 1, requires_grad=True)):
        with pytest.raises(RuntimeError, match=_exact(msg)):
            make()


# ------------------------------------------------------------------ conversions
def test_numpy_and_requires_grad(T):
    x = T.ones(2, requires_grad=True)
    msg = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
    with pytest.raises(RuntimeError, match=_exact(msg)):
        x.numpy()
    with pytest.raises(RuntimeError, match=_exact(msg)):
        (x * 2).numpy()
    with pytest.raises(RuntimeError, match=_exact(msg)):
        np.asarray(x)
    a = x.detach().numpy()
    assert isinstance(a, np.ndarray) and a.dtype == np.float32
    a[0] = 5.
    assert x.tolist() == [5., 1.]               # numpy() shares memory


def test_numpy_force(T):
    x = T.ones(2, requires_grad=True)
    assert x.numpy(force=True).tolist() == [1., 1.]


def test_item(T):
    assert T.tensor(2.5).item() == 2.5 and isinstance(T.tensor(2.5).item(), float)
    assert T.tensor([3]).item() == 3 and isinstance(T.tensor([3]).item(), int)
    assert T.tensor([[True]]).item() is True
    assert T.tensor(1 + 2j).item() == 1 + 2j
    assert T.tensor([1.5], dtype=T.float16).item() == 1.5
    assert isinstance(T.tensor([1.5], dtype=T.bfloat16).item(), float)
    assert T.tensor(0.1).item() == float(np.float32(0.1))
    assert T.tensor(1., requires_grad=True).item() == 1.
    with pytest.raises(RuntimeError, match=_exact("a Tensor with 2 elements cannot be converted to Scalar")):
        T.ones(2).item()
    with pytest.raises(RuntimeError, match=_exact("a Tensor with 0 elements cannot be converted to Scalar")):
        T.ones(0).item()


def test_tolist(T):
    assert T.tensor(3).tolist() == 3
    assert T.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert T.tensor([[1.5, 2]], dtype=T.bfloat16).tolist() == [[1.5, 2.0]]
    assert T.tensor([0.5], dtype=T.float16).tolist() == [0.5]
    assert T.tensor([True]).tolist() == [True]
    assert T.tensor([1j]).tolist() == [1j]
    assert T.ones(2, requires_grad=True).tolist() == [1., 1.]
    v = T.tensor([1.5], dtype=T.bfloat16).tolist()[0]
    assert type(v) is float
    v = T.tensor([1], dtype=T.int32).tolist()[0]
    assert type(v) is int


def test_array_protocol(T):
    t = T.tensor([1, 2], dtype=T.int32)
    assert np.asarray(t).dtype == np.int32
    assert t.__array__(np.float64).dtype == np.float64
    assert np.asarray(T.tensor([1., 2.])).tolist() == [1., 2.]
    x = T.ones(2)
    np.asarray(x)[0] = 3.
    assert x.tolist() == [3., 1.]
    assert (np.ones(2) + T.ones(2).numpy()).tolist() == [2., 2.]


def test_python_scalars(T):
    assert float(T.tensor([2.5])) == 2.5
    assert int(T.tensor(3.7)) == 3
    assert complex(T.tensor(1 + 1j)) == 1 + 1j
    assert bool(T.tensor([1]))
    assert [10, 20, 30][T.tensor(1)] == 20
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        bool(T.ones(2))
    with pytest.raises(TypeError, match=_exact("len() of a 0-d tensor")):
        len(T.tensor(1.))
    assert len(T.ones(3, 2)) == 3


# ------------------------------------------------------------------ attributes
def test_shape_size_dim_numel(T):
    t = T.ones(2, 3, 4)
    assert t.shape == (2, 3, 4) and isinstance(t.shape, T.Size) and isinstance(t.shape, tuple)
    assert t.size() == (2, 3, 4) and t.size(1) == 3 and t.size(-1) == 4
    assert t.dim() == 3 and t.ndim == 3 and t.ndimension() == 3
    assert t.numel() == 24 and t.nelement() == 24 and T.numel(t) == 24
    assert T.tensor(1.).dim() == 0 and T.tensor(1.).numel() == 1 and T.tensor(1.).shape == ()
    assert t.shape.numel() == 24
    assert repr(T.Size([2, 3])) == f"{T.__name__}.Size([2, 3])"
    assert t.element_size() == 4


def test_size_dim_errors(T):
    with pytest.raises(IndexError, match=_exact(
            "Dimension out of range (expected to be in range of [-2, 1], but got 5)")):
        T.ones(2, 3).size(5)
    with pytest.raises(IndexError, match=_exact("Dimension specified as 0 but tensor has no dimensions")):
        T.tensor(1.).size(0)
    with pytest.raises(IndexError, match=_exact("Dimension specified as -1 but tensor has no dimensions")):
        T.tensor(1.).size(-1)


def test_dtype_and_device(T):
    t = T.ones(2)
    assert t.dtype == T.float32 and t.dtype is T.float32
    assert t.device == T.device("cpu") and str(t.device) == "cpu"
    assert repr(t.device) == "device(type='cpu')"
    assert t.device.type == "cpu"
    assert t.is_floating_point() and not t.is_complex()
    assert T.ones(2, dtype=T.complex64).is_complex()
    assert T.ones(2, dtype=T.bfloat16).is_floating_point()
    assert not T.ones(2, dtype=T.int64).is_floating_point()
    assert T.is_tensor(t) and not T.is_tensor(np.ones(2))


def test_T_and_mT(T):
    m = T.tensor([[1., 2., 3.], [4., 5., 6.]])
    assert m.T.shape == (3, 2) and m.T.tolist() == [[1., 4.], [2., 5.], [3., 6.]]
    b = T.ones(2, 3, 4)
    assert b.mT.shape == (2, 4, 3)
    assert m.mT.tolist() == m.T.tolist()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert T.ones(3).T.shape == (3,)
    if T is tp:                 # (torch says it once per process)
        assert any("The use of `x.T` on tensors of dimension other than 2" in str(w.message)
                   for w in seen)
    x = T.ones(2, 3, requires_grad=True)
    x.T.sum().backward()
    assert x.grad.shape == (2, 3)


def test_T_on_other_than_2d_warns():
    T = tp                  # torch warns only once per process: check tensorplay alone
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        assert T.ones(2, 3, 4).T.shape == (4, 3, 2)


def test_mT_on_1d_raises(T):
    with pytest.raises(RuntimeError, match=_exact(
            "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")):
        T.ones(3).mT


def test_type_names(T):
    pre = T.__name__
    assert T.ones(1).type() == f"{pre}.FloatTensor"
    assert T.ones(1, dtype=T.float64).type() == f"{pre}.DoubleTensor"
    assert T.ones(1, dtype=T.int64).type() == f"{pre}.LongTensor"
    assert T.ones(1, dtype=T.bfloat16).type() == f"{pre}.BFloat16Tensor"
    assert T.ones(1, dtype=T.complex64).type() == f"{pre}.ComplexFloatTensor"
    assert T.ones(1, dtype=T.uint8).type() == f"{pre}.ByteTensor"
    assert T.ones(1).type(T.float64).dtype == T.float64


# ------------------------------------------------------------------ requires_grad rules
def test_requires_grad_setter_errors(T):
    with pytest.raises(RuntimeError, match=_exact(
            "only Tensors of floating point and complex dtype can require gradients")):
        T.ones(2, dtype=T.int64).requires_grad = True
    with pytest.raises(RuntimeError, match=_exact(
            "only Tensors of floating point and complex dtype can require gradients")):
        T.ones(2, dtype=T.bool).requires_grad = True
    with pytest.raises(RuntimeError, match=_exact(
            "only Tensors of floating point dtype can require gradients")):
        T.ones(2, dtype=T.int64).requires_grad_()
    t = T.ones(2, dtype=T.int64)
    t.requires_grad = False
    assert t.requires_grad_(False) is t


def test_requires_grad_non_leaf(T):
    y = T.ones(2, requires_grad=True) * 2
    long = ("you can only change requires_grad flags of leaf variables. If you want to use a "
            "computed variable in a subgraph that doesn't require differentiation use "
            "var_no_grad = var.detach().")
    with pytest.raises(RuntimeError, match=_exact(long)):
        y.requires_grad = False
    with pytest.raises(RuntimeError, match=_exact(long)):
        y.requires_grad_(False)
    with pytest.raises(RuntimeError, match=_exact("you can only change requires_grad flags of leaf variables.")):
        y.requires_grad = True
    assert y.requires_grad_(True) is y and y.requires_grad


def test_requires_grad_toggle_leaf(T):
    x = T.ones(2)
    assert not x.requires_grad
    assert x.requires_grad_() is x and x.requires_grad and x.is_leaf
    x.requires_grad = False
    assert not x.requires_grad
    for dt in (T.float16, T.bfloat16, T.float64, T.complex64, T.complex128):
        assert T.ones(1, dtype=dt).requires_grad_().requires_grad


def test_is_leaf(T):
    x = T.ones(2, requires_grad=True)
    assert x.is_leaf
    assert not (x * 2).is_leaf
    assert (T.ones(2) * 2).is_leaf                 # no grad needed: a leaf
    assert x.detach().is_leaf
    with T.no_grad():
        assert (x * 2).is_leaf


# ------------------------------------------------------------------ grad setter
def test_grad_setter(T):
    x = T.ones(2, requires_grad=True)
    g = T.tensor([1., 2.])
    x.grad = g
    assert x.grad is g
    x.grad = None
    assert x.grad is None
    x.grad = g
    del x.grad
    assert x.grad is None


def test_grad_setter_errors(T):
    x = T.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match=_exact(
            "assigned grad expected to be a Tensor or None but got grad of type int")):
        x.grad = 1
    with pytest.raises(TypeError, match=_exact(
            "assigned grad expected to be a Tensor or None but got grad of type numpy.ndarray")):
        x.grad = np.ones(2)
    with pytest.raises(RuntimeError, match=_exact(
            "attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. Please "
            "ensure that the gradient and the tensor are the same size")):
        x.grad = T.ones(3)
    tail = (". The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). "
            "You can set the tensor's grad_dtype attribute with a specific dtype, or None to allow "
            "any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
            "gradient may break downstream systems that assume they match.")
    for dt, name in ((T.float64, "double"), (T.float16, "c10::Half"), (T.bfloat16, "c10::BFloat16"),
                     (T.complex64, "c10::complex<float>"), (T.int64, "long int"), (T.bool, "bool")):
        with pytest.raises(RuntimeError, match=_exact(
                f"attempting to assign a gradient with dtype '{name}' to a tensor with grad_dtype "
                f"'Float'" + tail)):
            x.grad = T.ones(2, dtype=dt)
    y = T.ones(2, dtype=T.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match=_exact(
            "attempting to assign a gradient with dtype 'float' to a tensor with grad_dtype 'Double'" + tail)):
        y.grad = T.ones(2)
    assert x.grad is None


# ------------------------------------------------------------------ detach, data, clone
def test_detach_shares_memory_and_version(T):
    x = T.ones(2, requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    assert _ver(d) == _ver(x) == 0
    d.add_(1)
    assert x.tolist() == [2., 2.]
    assert _ver(d) == 1 and _ver(x) == 1
    y = x * 3
    dy = y.detach()
    dy.mul_(0)
    assert y.tolist() == [0., 0.]


def test_detach_then_inplace_breaks_backward(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * x           # saves x
    x.detach().add_(1)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation "
                                           "has been modified by an inplace operation"):
        y.sum().backward()


def test_detach_(T):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    assert y.detach_() is y
    assert not y.requires_grad and y.is_leaf and y.grad_fn is None
    x.detach_()
    assert not x.requires_grad


def test_data(T):
    x = T.ones(2, requires_grad=True)
    d = x.data
    assert not d.requires_grad and d.is_leaf
    d[0] = 5.
    assert x.tolist() == [5., 1.]
    x.data = T.zeros(3)
    assert x.shape == (3,) and x.requires_grad and x.tolist() == [0., 0., 0.]
    with pytest.raises(TypeError, match=_exact("Variable data has to be a tensor, but got int")):
        x.data = 5


def test_data_changes_not_tracked(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    x.data.mul_(10)
    assert _ver(x) == 0


def test_clone(T):
    x = T.ones(2, requires_grad=True)
    c = x.clone()
    assert c.requires_grad and not c.is_leaf and c.grad_fn is not None
    assert c.grad_fn.name() == "CloneBackward0"
    c2 = x.detach().clone()
    c2.add_(1)
    assert x.tolist() == [1., 1.]
    (c * 3).sum().backward()
    assert x.grad.tolist() == [3., 3.]
    i = T.tensor([1, 2]).clone()
    assert i.dtype == T.int64 and not i.requires_grad


def test_contiguous(T):
    m = T.ones(2, 3)
    assert m.is_contiguous()
    t = m.t()
    assert not t.is_contiguous()
    c = t.contiguous()
    assert c.is_contiguous() and c.shape == (3, 2)
    assert m.contiguous() is m
    x = T.ones(2, 3, requires_grad=True)
    x.t().contiguous().sum().backward()
    assert x.grad.shape == (2, 3)


def test_pickle_roundtrip():
    x = tp.tensor([1., 2.], requires_grad=True)
    y = pickle.loads(pickle.dumps(x))
    assert y.tolist() == [1., 2.] and y.requires_grad and y.is_leaf


def test_deepcopy():
    import copy
    x = tp.tensor([1., 2.], requires_grad=True)
    x.grad = tp.ones(2)
    y = copy.deepcopy(x)
    assert y.tolist() == [1., 2.] and y.requires_grad and y.grad.tolist() == [1., 1.]
    y.detach().add_(1)
    assert x.tolist() == [1., 2.]
    with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
        copy.deepcopy(x * 2)


def test_parameter():
    p = tp.nn.Parameter(tp.ones(2))
    assert p.requires_grad and p.is_leaf and isinstance(p, tp.Tensor)
    assert isinstance(p, tp.nn.Parameter)
    q = tp.nn.Parameter(tp.ones(2), requires_grad=False)
    assert not q.requires_grad
    (p * 2).sum().backward()
    assert p.grad.tolist() == [2., 2.]
    e = tp.nn.Parameter()
    assert e.shape == (0,) and e.requires_grad


def test_parameter_matches_torch(torch_or_skip):
    for T in (tp, torch_or_skip):
        with T.no_grad():
            p = T.nn.Parameter(T.rand(3))
        assert p.requires_grad
        src = T.ones(2)
        p = T.nn.Parameter(src)
        p.detach().add_(1)
        assert src.tolist() == [2., 2.]          # shares memory with its data
        with pytest.raises(RuntimeError):
            T.nn.Parameter(T.ones(2, dtype=T.int64))


def test_tensor_attribute_writes_stay_on_the_c_slot():
    # a Python-level __setattr__ or __delattr__ on Tensor (or Parameter) puts every
    # attribute write of every op through Python: ~30% more per small op
    from tensorplay.nn import Parameter
    for cls in (tp.Tensor, Parameter):
        assert "__setattr__" not in vars(cls) and "__delattr__" not in vars(cls), cls


@pytest.mark.parametrize("call", [lambda T, x: x.view(2, size=(-1,)),
                                  lambda T, x: x.view(shape=(-1,)),
                                  lambda T, x: x.view(size=3),
                                  lambda T, x: x.reshape(bad=(-1,)),
                                  lambda T, x: T.reshape(x, (4,), shape=(4,)),
                                  lambda T, x: x.repeat(repeats=2),
                                  lambda T, x: x.expand(2, 2, size=(2, 2)),
                                  lambda T, x: x.reshape(), lambda T, x: x.repeat()])
def test_size_keywords_refused_as_pytorch_refuses(call):
    # PyTorch's names for the *size parameters (view(size=), reshape(shape=),
    # repeat(repeats=)...) are accepted; a mix, another name or a bare int is a TypeError
    for T in (tp, torch) if torch is not None else (tp,):
        with pytest.raises(TypeError):
            call(T, T.ones(2, 2))


def test_scalars_membership_and_tensors_in_lists(T):
    with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
        float(T.zeros(2))
    with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
        int(T.zeros(0))
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with no values is ambiguous"):
        bool(T.zeros(0))
    t = T.tensor([[1, 2], [3, 4]])
    assert 2 in t and 5 not in t and T.tensor(2) in t and T.tensor([3, 4]) in t
    with pytest.raises(RuntimeError, match="Tensor.__contains__ only supports Tensor or scalar"):
        "a" in t
    # a one-element tensor in a list is a scalar (its shape was kept: [2, 1] for [2])
    assert tuple(T.tensor([T.tensor([1.0]), T.tensor([2.0])]).shape) == (2,)
    assert T.tensor([T.tensor(1), 2]).tolist() == [1, 2]
    assert T.tensor([T.tensor(1, dtype=T.int32), T.tensor(2.0, dtype=T.float64)]).dtype == T.float64
    with pytest.raises(ValueError, match="only one element tensors"):
        T.tensor([T.tensor([1.0, 2.0]), T.tensor([3.0, 4.0])])


def test_results_pytorch_makes_contiguous_are_contiguous(T):
    # (cat, softmax, log_softmax, roll, masked_scatter and layer_norm kept a transposed
    # input's order, so a .view(-1) that works in PyTorch failed here)
    x = T.arange(6.0).reshape(2, 3).t()
    m = T.tensor([[True, False], [False, True], [True, True]])
    for r in (T.cat([x, x], 0), T.cat([x, x], 1), x.softmax(0), x.softmax(1), x.log_softmax(1),
              x.roll(1, 0), x.masked_scatter(m, T.ones(6)), T.nn.functional.layer_norm(x, (2,))):
        assert r.is_contiguous()
        r.view(-1)


def test_factories_take_size_by_keyword_and_refuse_complex_into_real(T):
    assert tuple(T.zeros(size=(2, 3)).shape) == (2, 3)
    assert tuple(T.ones(size=[2]).shape) == (2,)
    assert tuple(T.rand(size=(2,)).shape) == (2,) and tuple(T.randn(size=(1, 2)).shape) == (1, 2)
    with pytest.raises(TypeError, match="must be real number, not complex"):
        T.tensor(1 + 1j, dtype=T.float32)
    with pytest.raises(TypeError, match="must be real number, not complex"):
        T.tensor([1 + 1j, 2], dtype=T.float64)
    assert str(T.nn.Parameter(T.ones(2))).startswith("Parameter containing:")


def test_operators_with_things_that_are_not_operands(T):
    # PyTorch's operators give these to Python: == is False, != True, arithmetic and
    # ordering a TypeError (they computed elementwise, so 't in [None, t]' crashed)
    t = T.tensor([1.0, 2.0])
    assert (t == None) is False and (t != None) is True     # noqa: E711
    assert (t == [1.0, 2.0]) is False and (t == "x") is False
    assert t in [None, t]
    with pytest.raises(TypeError):
        t + [1, 1]
    with pytest.raises(TypeError):
        t < [2, 2]
    with pytest.raises(TypeError):
        T.add(t, [1, 1])
    with pytest.raises(TypeError):
        T.mul(t, "a")
