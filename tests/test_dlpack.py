"""DLPack: zero-copy exchange with NumPy and with PyTorch, in both directions."""
import numpy as np
import pytest

import tensorplay as tp

# NumPy before 2.1 speaks the unversioned protocol: what it imports is read-only, and it
# cannot export read-only memory
OLD_NUMPY = tuple(int(v) for v in np.__version__.split(".")[:2]) < (2, 1)


def test_from_numpy_shares_memory():
    a = np.arange(6.0).reshape(2, 3)
    t = tp.from_dlpack(a)
    assert t.dtype == tp.float64 and tuple(t.shape) == (2, 3) and t.is_leaf
    t[0, 0] = 10.0
    assert a[0, 0] == 10.0
    a[1, 2] = -1.0
    assert t[1, 2].item() == -1.0


def test_to_numpy_shares_memory():
    t = tp.arange(6, dtype=tp.float32).reshape(2, 3)
    a = np.from_dlpack(t)
    assert a.dtype == np.float32 and a.shape == (2, 3) and np.shares_memory(a, t.numpy())
    t[0, 1] = 7.0
    assert a[0, 1] == 7.0
    tr = t.t()                                  # strided views cross as they are
    b = np.from_dlpack(tr)
    assert b.shape == (3, 2) and b[1, 0] == 7.0 and np.shares_memory(b, a)


def test_capsules_round_trip():
    t = tp.tensor([1.0, 2.0, 3.0])
    cap = tp.utils.dlpack.to_dlpack(t)
    assert type(cap).__name__ == "PyCapsule"
    u = tp.utils.dlpack.from_dlpack(cap)
    assert u.data_ptr() == t.data_ptr() and u.tolist() == [1.0, 2.0, 3.0]
    assert tp.from_dlpack(t)._data is t._data    # a tensorplay tensor: an alias


def test_dlpack_device_and_refusals():
    t = tp.ones(2)
    assert tuple(int(v) for v in t.__dlpack_device__()) == (1, 0)
    with pytest.raises(BufferError, match="^Can't export tensors that require gradient, use "
                                          "tensor.detach\\(\\)$"):
        tp.ones(2, requires_grad=True).__dlpack__()
    np.from_dlpack(tp.ones(2, requires_grad=True).detach())
    with pytest.raises(BufferError, match="bfloat16"):
        tp.ones(2, dtype=tp.bfloat16).__dlpack__()
    with pytest.raises(TypeError, match="from_dlpack"):
        tp.from_dlpack([1, 2])
    e = tp.ones(3).expand(2, 3)                 # read-only memory stays read-only
    if OLD_NUMPY:
        with pytest.raises(BufferError):
            np.from_dlpack(e)
    else:
        assert not np.from_dlpack(e).flags.writeable


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool", "complex64",
                                   "float16", "uint8"])
def test_with_torch_both_ways(dtype):
    torch = pytest.importorskip("torch")
    x = torch.arange(6).reshape(2, 3).to(getattr(torch, dtype))
    t = tp.from_dlpack(x)
    assert t.dtype == getattr(tp, dtype) and t.tolist() == x.tolist()
    assert t.data_ptr() == x.data_ptr()
    back = torch.from_dlpack(t)
    assert back.dtype == x.dtype and back.data_ptr() == x.data_ptr()
    if dtype != "bool":
        t.add_(1)                               # one memory: the write shows in torch
        assert x.tolist() == (torch.arange(6).reshape(2, 3) + 1).to(x.dtype).tolist()
    y = tp.arange(6, dtype=tp.float32).reshape(2, 3).t()
    z = torch.from_dlpack(y)
    assert z.stride() == y.stride() and z.tolist() == y.tolist()
    cap = torch.utils.dlpack.to_dlpack(torch.ones(2))
    assert tp.from_dlpack(cap).tolist() == [1.0, 1.0]


def test_dtype_numpy_cannot_hold_is_refused_clearly():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match=r"from_dlpack\(\): tensorplay's memory is held by "
                                           r"NumPy, which cannot describe this tensor's dtype"):
        tp.from_dlpack(torch.ones(2, dtype=torch.bfloat16))
