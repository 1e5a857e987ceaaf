"""Sampling ops: bernoulli, multinomial, normal and the in-place fills.

Values cannot match PyTorch's (different bit generators); shapes, dtypes,
autograd records, seeding and errors are checked, the errors against PyTorch's
own (type and message) when torch is installed."""
import re
import warnings

import numpy as np
import pytest

import tensorplay as tp
from conftest import torch


def _err(f):
    try:
        f()
    except Exception as e:       # noqa: BLE001
        return type(e), str(e)
    return None, None


def same_error(case):
    """``case(T)`` raises the same exception type and message in both libraries."""
    tp_err = _err(lambda: case(tp))
    assert tp_err[0] is not None, "tensorplay did not raise"
    if torch is None:
        return tp_err
    th_err = _err(lambda: case(torch))
    assert th_err[0] is not None, "torch did not raise"
    assert tp_err[0].__name__ == th_err[0].__name__, (tp_err, th_err)
    assert tp_err[1] == th_err[1], (tp_err, th_err)
    return tp_err


# ------------------------------------------------------------------ shapes, dtypes, records
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_bernoulli_shape_dtype_values(T, dtype):
    p = T.full((3, 4), 0.5, dtype=getattr(T, dtype))
    y = T.bernoulli(p)
    assert y.shape == (3, 4) and y.dtype == p.dtype
    assert set(y.float().flatten().tolist()) <= {0., 1.}
    assert T.bernoulli(T.zeros(5)).tolist() == [0.] * 5
    assert T.bernoulli(T.ones(5)).tolist() == [1.] * 5
    assert p.bernoulli().shape == (3, 4)


def test_bernoulli_float_p_keeps_input_dtype(T):
    y = T.bernoulli(T.zeros(4, dtype=T.int64), 0.5)
    assert y.dtype == T.int64 and set(y.tolist()) <= {0, 1}
    assert T.zeros(2, 3).bernoulli(p=1.0).tolist() == [[1.] * 3] * 2
    assert T.bernoulli(T.zeros(3), 0.0).tolist() == [0.] * 3


def test_bernoulli_inplace(T):
    x = T.zeros(2, 3)
    assert x.bernoulli_(1.0) is x and x.tolist() == [[1.] * 3] * 2
    x.bernoulli_(T.tensor([0., 1., 1.]))           # p broadcast to x
    assert x.tolist() == [[0., 1., 1.]] * 2
    i = T.zeros(3, dtype=T.int64).bernoulli_(T.tensor([0., 1., 1.]))
    assert i.dtype == T.int64 and i.tolist() == [0, 1, 1]


def test_bernoulli_frequency():
    tp.manual_seed(3)
    y = tp.bernoulli(tp.full((100000,), 0.3))
    assert abs(y.mean().item() - 0.3) < 0.01


def test_bernoulli_autograd_record_like_torch(T):
    p = T.tensor([0.3, 0.7], requires_grad=True)
    y = T.bernoulli(p)
    assert y.requires_grad and type(y.grad_fn).__name__ == "BernoulliBackward0"
    (y * T.tensor([1., 2.])).sum().backward()       # no reward: zero gradient, as torch 2.x
    assert p.grad.tolist() == [0., 0.]
    with T.no_grad():
        assert not T.bernoulli(p).requires_grad
    assert T.bernoulli(p.detach()).grad_fn is None
    assert type(T.bernoulli(p, 0.5).grad_fn).__name__ == "NotImplemented"
    x = T.zeros(2, requires_grad=True).clone()
    assert type(x.bernoulli_(0.5).grad_fn).__name__ == "BernoulliBackward2"
    x = T.zeros(2, requires_grad=True).clone()
    x.bernoulli_(p)
    assert type(x.grad_fn).__name__ == "BernoulliBackward1"
    x.sum().backward()
    assert p.grad.tolist() == [0., 0.]


def test_bernoulli_float_p_derivative_not_implemented():
    same_error(lambda T: T.bernoulli(T.tensor([0.5], requires_grad=True), 0.5).sum().backward())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_multinomial_shapes_dtypes(T, dtype):
    w = T.tensor([0.1, 0.2, 0.7], dtype=getattr(T, dtype))
    m = T.multinomial(w, 2)
    assert m.shape == (2,) and m.dtype == T.int64 and len(set(m.tolist())) == 2
    m = T.multinomial(w.unsqueeze(0).repeat(4, 1), 5, True)
    assert m.shape == (4, 5) and m.dtype == T.int64
    assert w.multinomial(1).shape == (1,)
    assert T.multinomial(T.zeros(0, 3), 1).shape == (0, 1)


def test_multinomial_no_grad_fn(T):
    w = T.tensor([0.2, 0.8], requires_grad=True)
    m = T.multinomial(w, 1)
    assert not m.requires_grad and m.grad_fn is None and m.is_leaf


def test_multinomial_zero_weights_come_last_without_replacement(T):
    assert T.multinomial(T.tensor([1., 0, 0]), 3).tolist() == [0, 1, 2]
    assert T.multinomial(T.tensor([[1., 0, 0], [0, 1, 0]]), 2).tolist() == [[0, 1], [1, 0]]
    assert T.multinomial(T.tensor([0., 0, 5.]), 4, True).tolist() == [2] * 4


def test_multinomial_frequencies():
    tp.manual_seed(0)
    w = tp.tensor([1., 2., 7.])
    m = tp.multinomial(w, 50000, True)
    freq = np.bincount(m.numpy(), minlength=3) / 50000
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.01)
    # without replacement: first draws follow the weights
    firsts = tp.multinomial(w.unsqueeze(0).repeat(20000, 1), 2)[:, 0].numpy()
    np.testing.assert_allclose(np.bincount(firsts, minlength=3) / 20000, [0.1, 0.2, 0.7],
                               atol=0.015)


def test_normal_forms(T):
    mean = T.zeros(2, 3)
    assert T.normal(mean, T.ones(2, 3)).shape == (2, 3)
    assert T.normal(mean, T.ones(3)).shape == (2, 3)          # broadcast
    assert T.normal(T.zeros(2, 1), T.ones(3)).shape == (2, 3)
    assert T.normal(mean).shape == (2, 3)
    assert T.normal(mean=mean, std=2.).shape == (2, 3)
    assert T.normal(0., T.ones(4)).shape == (4,)
    assert T.normal(0., 1., (2, 5)).shape == (2, 5)
    assert T.normal(0, 1, size=(3,)).dtype == T.float32
    assert T.normal(0., 1., (2,), dtype=T.float64).dtype == T.float64
    r = T.normal(0., 1., size=(2,), requires_grad=True)
    assert r.requires_grad and r.is_leaf
    assert T.normal(T.zeros(2, dtype=T.float64), T.ones(2)).dtype == T.float64
    assert T.normal(T.zeros(2), T.ones(2, dtype=T.float64)).dtype == T.float32
    assert T.normal(0., T.ones(2, dtype=T.float64)).dtype == T.float64
    assert T.normal(T.tensor(0.), T.tensor(1.)).shape == ()
    assert T.normal(T.tensor([5.]), 0.).tolist() == [5.]


def test_normal_moments():
    tp.manual_seed(1)
    x = tp.normal(tp.full((200000,), 2.), tp.full((200000,), 3.))
    assert abs(x.mean().item() - 2) < 0.05 and abs(x.std().item() - 3) < 0.05
    x = tp.zeros(200000).normal_(-1., 0.5)
    assert abs(x.mean().item() + 1) < 0.01 and abs(x.std().item() - 0.5) < 0.01


def test_normal_autograd_record_like_torch(T):
    mu = T.zeros(2, requires_grad=True)
    sd = T.ones(2, requires_grad=True)
    assert type(T.normal(mu, sd).grad_fn).__name__ == "NormalBackward3"
    assert type(T.normal(mu, 2.).grad_fn).__name__ == "NormalBackward1"
    assert type(T.normal(0., sd).grad_fn).__name__ == "NormalBackward2"
    assert T.normal(mu.detach(), sd.detach()).grad_fn is None
    # PyTorch 2.13: not reparameterised, the gradients are zero
    T.normal(mu, sd).sum().backward()
    assert mu.grad.tolist() == [0., 0.] and sd.grad.tolist() == [0., 0.]


@pytest.mark.parametrize("method,node", [("normal_", "NormalBackward0"),
                                         ("uniform_", "UniformBackward0"),
                                         ("exponential_", "ExponentialBackward0"),
                                         ("random_", "RandomBackward2")])
def test_inplace_fills_record_and_check_leaves(T, method, node):
    x = T.zeros(3, requires_grad=True)
    y = x.clone()
    assert getattr(y, method)() is y
    assert type(y.grad_fn).__name__ == node
    y.sum().backward()
    assert x.grad.tolist() == [0., 0., 0.]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an "
                                           "in-place operation."):
        getattr(x, method)()
    with T.no_grad():
        getattr(x, method)()
    assert x.requires_grad and x.is_leaf


def test_random_node_names(T):
    x = T.zeros(2, requires_grad=True).clone()
    assert type(x.clone().random_(3).grad_fn).__name__ == "RandomBackward1"
    assert type(x.clone().random_(1, 3).grad_fn).__name__ == "RandomBackward0"


def test_inplace_fill_ranges(T):
    x = T.zeros(1000, dtype=T.float64)
    u = x.uniform_(2, 3)
    assert u.min().item() >= 2 and u.max().item() < 3
    u = T.zeros(1000).uniform_(**{"from": -1, "to": 1})
    assert u.min().item() >= -1 and u.max().item() < 1
    e = T.zeros(1000).exponential_(lambd=2.)
    assert e.min().item() >= 0
    r = T.zeros(1000).random_(5)
    assert set(r.tolist()) <= {0., 1., 2., 3., 4.}
    r = T.zeros(1000, dtype=T.int64).random_(-3, 3)
    assert set(r.tolist()) <= set(range(-3, 3)) and r.dtype == T.int64
    r = T.zeros(1000).random_(to=3)
    assert set(r.tolist()) <= {0., 1., 2.}
    b = T.zeros(200, dtype=T.bool).random_()
    assert b.dtype == T.bool and set(b.tolist()) == {False, True}
    i8 = T.zeros(100, dtype=T.int8).random_()
    assert i8.dtype == T.int8 and i8.min().item() >= 0
    c = T.zeros(3, dtype=T.complex64).normal_()
    assert c.dtype == T.complex64


def test_random_default_range_float():
    r = tp.zeros(10000).random_()
    assert r.min().item() >= 0 and r.max().item() <= 2 ** 24
    assert (r == r.round()).all().item()


def test_random_float_precision_warning():
    for T in [tp] + ([torch] if torch is not None else []):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            T.zeros(2).random_(1 << 25)
        assert any(str(x.message).startswith("to - 1 is out of bounds [-(2^24), 2^24]. Due to "
                                             "precision limitations float can support discrete "
                                             "uniform distribution only within this range.")
                   for x in w)


# ------------------------------------------------------------------ seeds
def test_manual_seed_reproduces_every_op():
    def draw():
        p = tp.full((5,), 0.5)
        return (tp.bernoulli(p).tolist(), tp.multinomial(tp.ones(6), 3).tolist(),
                tp.multinomial(tp.ones(6), 4, True).tolist(), tp.normal(tp.zeros(3), 1.).tolist(),
                tp.normal(0., 1., (2,)).tolist(), tp.zeros(3).uniform_().tolist(),
                tp.zeros(3).exponential_().tolist(), tp.zeros(3).random_(100).tolist(),
                tp.zeros(3).bernoulli_(0.5).tolist(), tp.zeros(3).normal_().tolist())
    tp.manual_seed(123)
    a = draw()
    tp.manual_seed(123)
    assert draw() == a
    tp.manual_seed(124)
    assert draw() != a


def test_generator_argument_is_independent_of_the_default():
    g1 = tp.Generator().manual_seed(7)
    g2 = tp.Generator().manual_seed(7)
    tp.manual_seed(0)
    a = tp.normal(tp.zeros(4), 1., generator=g1).tolist()
    tp.randn(10)                                   # moves only the default generator
    b = tp.normal(tp.zeros(4), 1., generator=g2).tolist()
    assert a == b
    assert (tp.bernoulli(tp.full((8,), .5), generator=g1).tolist()
            == tp.bernoulli(tp.full((8,), .5), generator=g2).tolist())
    assert (tp.multinomial(tp.ones(9), 4, generator=g1).tolist()
            == tp.multinomial(tp.ones(9), 4, generator=g2).tolist())
    assert (tp.zeros(3).uniform_(generator=g1).tolist()
            == tp.zeros(3).uniform_(generator=g2).tolist())


def test_rng_state_round_trip():
    s = tp.get_rng_state()
    a = tp.multinomial(tp.ones(10), 5).tolist()
    tp.set_rng_state(s)
    assert tp.multinomial(tp.ones(10), 5).tolist() == a


# ------------------------------------------------------------------ errors, as PyTorch's
ERRORS = {
    "bernoulli_p_above_1": lambda T: T.bernoulli(T.tensor([1.5])),
    "bernoulli_p_negative": lambda T: T.bernoulli(T.tensor([0.5, -0.1])),
    "bernoulli_p_nan": lambda T: T.bernoulli(T.tensor([float("nan")])),
    "bernoulli_int_input": lambda T: T.bernoulli(T.tensor([0, 1])),
    "bernoulli_bool_input": lambda T: T.bernoulli(T.tensor([True])),
    "bernoulli_float_p_outside": lambda T: T.bernoulli(T.tensor([0.2, 0.3]), 1.5),
    "bernoulli_tensor_tensor": lambda T: T.bernoulli(T.zeros(3), T.tensor([.5, .5, .5])),
    "bernoulli__p_outside": lambda T: T.zeros(3).bernoulli_(1.5),
    "bernoulli__tensor_p_outside": lambda T: T.zeros(3).bernoulli_(T.tensor([0., 1., 1.5])),
    "bernoulli__p_not_expandable": lambda T: T.zeros(3).bernoulli_(T.tensor([0., 1.])),
    "multinomial_negative": lambda T: T.multinomial(T.tensor([-0.1, 0.5]), 1),
    "multinomial_inf": lambda T: T.multinomial(T.tensor([float("inf"), 1.]), 1),
    "multinomial_nan": lambda T: T.multinomial(T.tensor([float("nan"), 1.]), 1),
    "multinomial_too_many_without_replacement": lambda T: T.multinomial(T.tensor([0.1, 0.5]), 3),
    "multinomial_all_zero": lambda T: T.multinomial(T.tensor([0., 0.]), 1),
    "multinomial_zero_row": lambda T: T.multinomial(T.tensor([[1., 0, 0], [0, 0, 0]]), 1),
    "multinomial_zero_samples": lambda T: T.multinomial(T.tensor([0.1, 0.5]), 0),
    "multinomial_negative_samples": lambda T: T.multinomial(T.tensor([0.1, 0.5]), -1, True),
    "multinomial_0d": lambda T: T.multinomial(T.tensor(0.5), 1),
    "multinomial_3d": lambda T: T.multinomial(T.ones(2, 2, 2), 1),
    "multinomial_int": lambda T: T.multinomial(T.tensor([1, 2]), 1),
    "multinomial_no_categories": lambda T: T.multinomial(T.zeros(2, 0), 1),
    "normal_shapes": lambda T: T.normal(T.zeros(2), T.ones(3)),
    "normal_shapes_2d": lambda T: T.normal(T.zeros(6), T.ones(2, 3)),
    "normal_negative_std_float": lambda T: T.normal(T.zeros(2), -1.),
    "normal_negative_std_tensor": lambda T: T.normal(0., T.tensor([-1., 1.])),
    "normal_negative_std_size": lambda T: T.normal(0., -1., (2,)),
    "normal_int_mean": lambda T: T.normal(T.zeros(2, dtype=T.int64), T.ones(2)),
    "normal_int_mean_float_std": lambda T: T.normal(T.zeros(2, dtype=T.int64), 1.),
    "normal__negative_std": lambda T: T.zeros(2).normal_(0, -1),
    "normal__int": lambda T: T.zeros(2, dtype=T.int64).normal_(),
    "uniform__from_above_to": lambda T: T.zeros(2).uniform_(1, 0),
    "uniform__int": lambda T: T.zeros(2, dtype=T.int64).uniform_(),
    "uniform__inf": lambda T: T.zeros(2).uniform_(0, float("inf")),
    "exponential__negative": lambda T: T.zeros(2).exponential_(-1),
    "exponential__zero": lambda T: T.zeros(2).exponential_(0),
    "exponential__int": lambda T: T.zeros(2, dtype=T.int64).exponential_(),
    "random__from_ge_to": lambda T: T.zeros(2).random_(5, 3),
    "random__zero": lambda T: T.zeros(2).random_(0),
    "random__uint8_to": lambda T: T.zeros(2, dtype=T.uint8).random_(300),
    "random__uint8_from": lambda T: T.zeros(2, dtype=T.uint8).random_(-3, 3),
    "random__bool_to": lambda T: T.zeros(2, dtype=T.bool).random_(3),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    same_error(ERRORS[name])


def test_normal_two_numbers_without_size_is_a_type_error(T):
    with pytest.raises(TypeError, match=re.escape("normal() received an invalid combination of "
                                                  "arguments - got (float, float), but expected "
                                                  "one of:")):
        T.normal(0., 1.)


def test_multinomial_missing_num_samples_is_a_type_error(T):
    with pytest.raises(TypeError):
        T.tensor([1., 2.]).multinomial()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "complex64"])
def test_uniform_draws_never_reach_the_upper_bound(dtype):
    """rand is [0, 1) and uniform_ [from, to) in every dtype (rounding a double to
    half gave 1.0 about once in 4,000 draws); half/bfloat16 samples lie on
    PyTorch's grid of multiples of 2**-digits."""
    tp.manual_seed(3)
    dt = getattr(tp, dtype)
    r = tp.rand(200_000, dtype=dt)
    parts = (r.real, r.imag) if dt.is_complex else (r,)
    for p in parts:
        assert float(p.max()) < 1 and float(p.min()) >= 0
    if dtype in ("float16", "bfloat16"):
        digits = 11 if dtype == "float16" else 8
        scaled = r.double().numpy() * 2 ** digits
        np.testing.assert_array_equal(scaled, np.floor(scaled))
    if not dt.is_complex:
        u = tp.empty(200_000, dtype=dt).uniform_(-9, 9)
        assert float(u.max()) < 9 and float(u.min()) >= -9


@pytest.mark.parametrize("dtype,lo,hi", [("float32", 1e6, 1e6 + 1), ("float32", 100, 100.01),
                                         ("float16", 1, 1.001), ("bfloat16", 1, 1.01), ("float32", -1, 0)])
def test_uniform_range_is_half_open_after_rounding(dtype, lo, hi):
    """A value of lo + (hi - lo) u that rounds up to hi in the tensor's dtype is the
    number below it: [lo, hi) as PyTorch's."""
    tp.manual_seed(4)
    t = tp.empty(50_000, dtype=getattr(tp, dtype)).uniform_(lo, hi)
    top = t.new_tensor(hi)
    assert not bool((t >= top).any()) and bool((t >= t.new_tensor(lo)).all())
