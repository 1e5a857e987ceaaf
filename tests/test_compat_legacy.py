"""The legacy tensor constructors and ``Tensor.type`` as PyTorch has them: empty
tensors from no arguments, sizes from ``Size``, aliases from a tensor, and the
refusals with PyTorch's messages."""
import numpy as np
import pytest

from conftest import exact, lst


@pytest.mark.parametrize("make, shape", [
    (lambda T: T.Tensor(), [0]), (lambda T: T.LongTensor(), [0]),
    (lambda T: T.Tensor(T.Size([2, 3])), [2, 3]), (lambda T: T.Tensor((2, 3)), [2]),
    (lambda T: T.DoubleTensor(2, 0), [2, 0]), (lambda T: T.Tensor([]), [0]),
    (lambda T: T.Tensor(np.int64(3)), [3]), (lambda T: T.FloatTensor([[1, 2], [3, 4]]), [2, 2]),
    (lambda T: T.Tensor(np.ones((2, 1))), [2, 1]),
], ids=["Tensor()", "LongTensor()", "Size", "tuple data", "sizes", "empty list",
        "numpy int size", "nested", "ndarray"])
def test_shapes(T, make, shape):
    assert list(make(T).shape) == shape


@pytest.mark.parametrize("make", [lambda T, x: T.Tensor(x), lambda T, x: T.FloatTensor(x)],
                         ids=["Tensor", "FloatTensor"])
def test_a_tensor_argument_gives_an_alias(T, make):
    x = T.ones(2, requires_grad=True)
    a = make(T, x)
    assert a.requires_grad and a.grad_fn is not None and type(a.grad_fn).__name__ == \
        "AliasBackward0"
    assert a._base is x and a.data_ptr() == x.data_ptr()
    (a * 3).sum().backward()
    assert lst(x.grad) == [3.0, 3.0]
    y = T.ones(2)
    make(T, y)[0] = 5
    assert lst(y) == [5.0, 1.0]
    assert T.Tensor(T.ones(2, dtype=T.int64)).dtype == T.int64     # Tensor() keeps the dtype


def test_refusals(T):
    opts = ("TensorOptions(dtype={}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")
    with pytest.raises(TypeError, match=exact(f"expected {opts.format('float')} (got "
                                              f"{opts.format('double')})")):
        T.FloatTensor(T.ones(2, dtype=T.float64))
    for bad, name in [(2.5, "float"), (True, "bool"), (np.float32(2), "numpy.float32")]:
        with pytest.raises(TypeError, match=exact(f"new(): data must be a sequence (got {name})")):
            T.FloatTensor(bad)
        with pytest.raises(TypeError, match=exact(f"new(): data must be a sequence (got {name})")):
            T.Tensor(bad)
    for kw in ({"dtype": T.float64}, {"requires_grad": True}):
        with pytest.raises(TypeError):
            T.Tensor([1.0], **kw)


def test_type_strings(T):
    lib = T.__name__
    x = T.zeros(2)
    assert x.type() == f"{lib}.FloatTensor"
    assert x.type("torch.IntTensor").type() == f"{lib}.IntTensor"
    assert x.type(T.DoubleTensor).type() == f"{lib}.DoubleTensor"
    assert x.type(f"{lib}.HalfTensor").dtype == T.float16
    for bad in ("Foo", "torch.foo.FloatTensor", "numpy.FloatTensor", "FloatTensor"):
        with pytest.raises(ValueError, match=exact(f"invalid type: '{bad}'")):
            x.type(bad)
    with pytest.raises(RuntimeError):           # no CUDA here (PyTorch: a CPU-only build)
        x.type("torch.cuda.FloatTensor")
