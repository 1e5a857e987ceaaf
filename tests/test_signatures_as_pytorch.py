"""Call forms PyTorch accepts (keyword names, older arguments, negative
indices) and the checks it makes on them; each test runs on tensorplay and,
when installed, on torch (the ``T`` fixture), so the same code is its oracle."""
import warnings

import pytest

import tensorplay as tp
from conftest import torch


@pytest.fixture(params=["tensorplay", "torch"])
def T(request):
    if request.param == "torch":
        if torch is None:
            pytest.skip("needs torch")
        return torch
    return tp


def test_pow_names_its_exponent(T):
    x = T.tensor([1.0, 2.0, 3.0])
    assert T.pow(x, exponent=2).tolist() == [1.0, 4.0, 9.0]
    assert x.pow(exponent=2).tolist() == [1.0, 4.0, 9.0]
    with pytest.raises(TypeError):
        T.pow(x)
    with pytest.raises(TypeError):
        T.pow(x, 2, exponent=3)


def test_scatter_with_the_older_reduce_argument(T):
    x = T.tensor([[1.0, 2.0], [3.0, 4.0]])
    idx = T.tensor([[0, 1], [1, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # (PyTorch deprecates it with a Tensor source)
        assert x.scatter(1, idx, T.ones(2, 2), reduce="add").tolist() == [[2.0, 3.0], [4.0, 5.0]]
    assert x.scatter(1, idx, 2.0, reduce="multiply").tolist() == [[2.0, 4.0], [6.0, 8.0]]
    z = T.zeros(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z.scatter_(0, T.tensor([0, 0, 1]), T.tensor([1.0, 2.0, 3.0]), reduce="add")
    assert z.tolist() == [3.0, 3.0, 0.0]
    assert T.tensor([[1, 2], [3, 4]]).scatter(1, idx, 3, reduce="multiply").tolist() == [[3, 6], [9, 12]]
    with pytest.raises(RuntimeError, match="reduce argument must be either add or multiply"):
        x.scatter(1, idx, 2.0, reduce="max")


def test_repeat_interleave_checks_output_size(T):
    t = T.tensor([1, 2])
    assert T.repeat_interleave(t, 2, output_size=4).tolist() == [1, 1, 2, 2]
    with pytest.raises(RuntimeError, match="Invalid output_size, expected 4 but got 3"):
        T.repeat_interleave(t, 2, output_size=3)
    with pytest.raises(RuntimeError, match="allocated size does not match required size"):
        T.repeat_interleave(T.tensor([1, 2]), output_size=5)        # (it was ignored)


def test_take_along_dim_counts_negative_indices_from_the_end(T):
    x = T.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert T.take_along_dim(x, T.tensor([[-1, 0]]), 1).tolist() == [[2.0, 1.0], [4.0, 3.0]]
    assert T.take_along_dim(x, T.tensor([[-1, 0]]), 0).tolist() == [[3.0, 2.0]]


def test_tensor_repeats_with_a_wrong_output_size(T):
    with pytest.raises(RuntimeError, match="allocated size does not match required size"):
        T.repeat_interleave(T.tensor([1, 2]), T.tensor([1, 2]), output_size=5)


def test_keyword_names_of_addcmul_and_isclose(T):
    x = T.tensor([1.0, 2.0])
    assert T.addcmul(x, tensor1=x, tensor2=x, value=2).tolist() == [3.0, 10.0]
    assert T.isclose(x, other=x).tolist() == [True, True]
