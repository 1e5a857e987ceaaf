"""Int parameters given as other integers, as PyTorch's parser takes them: a
NumPy integer or an integer tensor of one element means that int; a bool where a
dimension is expected, or a float, is a TypeError."""
import numpy as np
import pytest

import tensorplay as tp

X = tp.tensor(np.arange(24.0).reshape(2, 3, 4))

# name -> f(d): the call with the integer parameter d (its int value is 1)
CALLS = {
    "sum": lambda d: X.sum(d),
    "movedim_source": lambda d: X.movedim(d, 0),
    "movedim_destination": lambda d: X.movedim(0, d),
    "roll_dims": lambda d: X.roll(1, d),
    "roll_shifts": lambda d: X.roll(d, 0),
    "narrow_length": lambda d: X.narrow(0, 0, d),
    "narrow_dim": lambda d: X.narrow(d, 0, 1),
    "select_index": lambda d: X.select(0, d),
    "select_dim": lambda d: X.select(d, 0),
    "chunk_dim": lambda d: X.chunk(2, d),
    "transpose": lambda d: X.transpose(d, 0),
    "unsqueeze": lambda d: X.unsqueeze(d),
    "cat": lambda d: tp.cat([X, X], d),
    "softmax": lambda d: X.softmax(d),
    "cumsum": lambda d: X.cumsum(d),
    "max_dim": lambda d: X.max(d)[0],
    "unbind": lambda d: X.unbind(d)[0],
    "flatten": lambda d: X.flatten(d),
    "fft_dim": lambda d: tp.fft.fft(X, dim=d),
    "fft_n": lambda d: tp.fft.fft(X, n=d + 3),
    "topk": lambda d: X.topk(d)[0],
    "sort": lambda d: X.sort(d)[0],
}
KINDS = {"np.int64": lambda: np.int64(1), "np.int32": lambda: np.int32(1), "0-d tensor": lambda: tp.tensor(1)}


def _same(a, b):
    a = a[0] if isinstance(a, tuple) else a
    b = b[0] if isinstance(b, tuple) else b
    np.testing.assert_array_equal(a.numpy(), b.numpy())


# (max(x, tensor) is the elementwise maximum, as in PyTorch: below)
@pytest.mark.parametrize("name,kind", [(n, k) for n in CALLS for k in KINDS
                                       if (n, k) != ("max_dim", "0-d tensor")])
def test_other_integers_mean_their_int(name, kind):
    _same(CALLS[name](KINDS[kind]()), CALLS[name](1))


def test_max_of_a_tensor_is_the_elementwise_maximum():
    np.testing.assert_array_equal(X.max(tp.tensor(5.0)).numpy(), np.maximum(X.numpy(), 5.0))


@pytest.mark.parametrize("name", ["sum", "movedim_source", "narrow_dim", "select_dim", "chunk_dim", "unsqueeze",
                                  "unbind", "fft_dim", "sort", "roll_dims"])
def test_a_bool_or_a_float_is_no_dimension(name):
    for bad in (True, 1.0):
        with pytest.raises(TypeError):
            CALLS[name](bad)


def test_a_tensor_of_several_elements_or_of_floats_is_no_dimension():
    with pytest.raises(TypeError, match="must be int, not Tensor"):
        X.select(tp.tensor([1, 0]), 0)
    with pytest.raises(TypeError, match="must be int, not Tensor"):
        X.unsqueeze(tp.tensor(1.0))


def test_roll_refuses_floats_in_pytorchs_words():
    with pytest.raises(TypeError, match=r"roll\(\): argument 'shifts' \(position 2\) must be tuple of ints, "
                                        r"not float"):
        tp.roll(X, 1.0)
    with pytest.raises(TypeError, match="but found element of type float at pos 0"):
        tp.roll(X, [1.0], [0])
    with pytest.raises(TypeError, match=r"argument 'dims' \(position 3\) must be tuple of ints, not float"):
        tp.roll(X, 1, 0.0)


@pytest.mark.parametrize("call", [lambda d: tp.softmax(X, d), lambda d: X.argmax(d), lambda d: X.cumsum(d),
                                  lambda d: X.logsumexp(d)])
def test_a_float_tensor_or_bool_is_no_dimension_of_a_reduction(call):
    """(a 0-d float tensor was truncated: softmax(x, tensor(0.9)) ran over dim 0)"""
    for bad in (tp.tensor(0.9), True, np.bool_(True)):
        with pytest.raises(TypeError):
            call(bad)


def test_numpy_ints_as_sections_and_powers():
    x = tp.arange(12.0).reshape(2, 3, 2)
    assert [tuple(t.shape) for t in tp.tensor_split(x, np.int64(2), dim=2)] == [(2, 3, 1), (2, 3, 1)]
    a = tp.tensor([[1.0, 2.0], [3.0, 4.0]])
    for n in (np.int64(2), tp.tensor(2)):
        np.testing.assert_array_equal(tp.linalg.matrix_power(a, n).numpy(), [[7.0, 10.0], [15.0, 22.0]])
    with pytest.raises(TypeError, match="must be int, not float"):
        tp.linalg.matrix_power(a, 2.0)


def test_floats_are_refused_where_an_int_is_a_count():
    """(they were truncated: rot90(x, 1.5) returned x, kthvalue(x, tensor(2.9)) took k = 2)"""
    x = tp.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    with pytest.raises(TypeError, match=r"rot90\(\): argument 'k' \(position 2\) must be int, not float"):
        tp.rot90(x, 1.5)
    with pytest.raises(TypeError, match=r"kthvalue\(\): argument 'k' \(position 2\) must be int, not Tensor"):
        tp.kthvalue(x[0], tp.tensor(2.9))
    with pytest.raises(RuntimeError, match="start must be an 0-dim integral Tensor."):
        x.narrow(1, tp.tensor(1.5), 2)
    assert tp.kthvalue(x[0], np.int64(2)).values.item() == 1.0
    assert tuple(tp.rot90(x, tp.tensor(1)).shape) == (3, 2)


# int-list parameters: an element may be any int-like too (an integer tensor of
# one element, of any rank); its int value here is 2
LIST_CALLS = {
    "pad": lambda d: tp.nn.functional.pad(X, (d, 1)),
    "max_pool1d": lambda d: tp.nn.functional.max_pool1d(X, d),
    "avg_pool1d": lambda d: tp.nn.functional.avg_pool1d(X, (d,)),
    "conv1d_stride": lambda d: tp.nn.functional.conv1d(X, tp.ones(2, 3, 2, dtype=X.dtype), stride=d),
    "interpolate_size": lambda d: tp.nn.functional.interpolate(X, size=d + 4),
    "randint_high": lambda d: tp.randint(d, (50,)),
    "slice_start": lambda d: X[:, d:],
}
LIST_KINDS = {"np.int64": lambda: np.int64(2), "0-d tensor": lambda: tp.tensor(2),
              "1-d tensor": lambda: tp.tensor([2]), "uint8 tensor": lambda: tp.tensor(2, dtype=tp.uint8)}


@pytest.mark.parametrize("kind", sorted(LIST_KINDS))
@pytest.mark.parametrize("name", sorted(LIST_CALLS))
def test_int_likes_in_int_lists(name, kind):
    tp.manual_seed(0)
    want = LIST_CALLS[name](2)
    tp.manual_seed(0)
    got = LIST_CALLS[name](LIST_KINDS[kind]())
    _same(got, want)


@pytest.mark.parametrize("name", ["pad", "max_pool1d", "conv1d_stride", "randint_high", "slice_start"])
def test_float_tensors_are_no_int_in_int_lists(name):
    with pytest.raises(TypeError):
        LIST_CALLS[name](tp.tensor(2.0))


def test_a_bool_is_an_int_in_a_slice():
    # Python's rule, which PyTorch follows: True is 1 there (and a bool tensor too)
    _same(X[:, True:], X[:, 1:])
    _same(X[:False], X[:0])
    _same(X[:, tp.tensor(True):], X[:, 1:])
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        X[:, tp.tensor(1.5):]           # (it was truncated to 1)
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        X[:, tp.tensor([1, 2]):]


def test_bools_in_integer_division_are_refused_and_true_division_is_float32():
    # PyTorch: no Bool kernel for the rounding divisions; True / True is the default dtype
    for f in (lambda a, b: tp.floor_divide(a, b), lambda a, b: tp.remainder(a, b),
              lambda a, b: tp.fmod(a, b), lambda a, b: tp.div(a, b, rounding_mode="floor"),
              lambda a, b: tp.div(a, b, rounding_mode="trunc")):
        for a, b in ((tp.tensor([True]), True), (tp.tensor(True), tp.tensor([False]))):
            with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
                f(a, b)
    for f in (tp.floor_divide, lambda a, b: tp.div(a, b, rounding_mode="floor")):
        with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
            f(True, True)
    assert tp.div(True, True).dtype == tp.float32
    assert tp.true_divide(True, False).dtype == tp.float32
    assert (tp.tensor([True]) % 2).dtype == tp.int64          # promoted: an int kernel
    assert tp.equal(tp.tensor([True, False]) // 2, tp.tensor([0, 0]))
