"""The device API for CPU-only code paths: device objects for any of PyTorch's
device names, allocation anywhere but the CPU refused clearly, and the
``cuda``/``backends``/``accelerator`` queries answering "none available".
Compared with torch (a CPU build) through the ``T`` fixture."""
import pytest

from conftest import lst


def test_device_objects(T):
    assert repr(T.device("cuda")) == "device(type='cuda')"
    assert repr(T.device("cuda:0")) == "device(type='cuda', index=0)"
    assert str(T.device("cuda", 1)) == "cuda:1" and T.device("cuda:1").index == 1
    assert T.device("cuda:1").type == "cuda" and T.device("mps").type == "mps"
    assert T.device("cuda:0") == T.device("cuda", 0) and T.device("cuda") != T.device("cuda:0")
    assert T.device("cpu") != "cpu"                     # a device equals only a device
    assert hash(T.device("cpu")) == hash(T.device("cpu"))
    assert T.device(T.device("cuda", 2)) == T.device("cuda:2")
    assert T.ones(2).device == T.device("cpu") and str(T.ones(2).device) == "cpu"
    with pytest.raises(RuntimeError, match="^Expected one of cpu, cuda, .* device type at start of "
                                           "device string: foo$"):
        T.device("foo")
    with pytest.raises(RuntimeError, match=r"^Invalid device string: 'cuda:x'$"):
        T.device("cuda:x")


@pytest.mark.parametrize("make", [
    lambda T, d: T.ones(3, device=d), lambda T, d: T.zeros(2, 2, device=d),
    lambda T, d: T.tensor([1.0], device=d), lambda T, d: T.randn(2, device=d),
    lambda T, d: T.arange(3, device=d), lambda T, d: T.full((2,), 1.0, device=d),
    lambda T, d: T.zeros_like(T.ones(2), device=d), lambda T, d: T.ones(2).new_ones(2, device=d),
    lambda T, d: T.ones(2).to(d), lambda T, d: T.ones(2).to(device=d),
    lambda T, d: T.eye(2, device=d),
], ids=["ones", "zeros", "tensor", "randn", "arange", "full", "zeros_like", "new_ones", "to",
        "to(device=)", "eye"])
def test_allocation_on_cuda_is_refused_and_on_cpu_works(T, make):
    for d in ("cuda", T.device("cuda", 0)):
        with pytest.raises(AssertionError):
            make(T, d)
    for d in ("cpu", T.device("cpu"), None):
        assert make(T, d).device == T.device("cpu")


def test_refusal_says_why():
    import tensorplay as tp
    with pytest.raises(AssertionError, match="^tensorplay runs on the CPU only: it cannot place a "
                                             "tensor on device 'cuda'"):
        tp.ones(2).cuda()
    with pytest.raises(RuntimeError, match="tensorplay runs on the CPU only: .* device 'mps'"):
        tp.ones(2, device="mps")


def test_cpu_paths(T):
    x = T.ones(2, requires_grad=True)
    assert x.cpu() is x and x.to("cpu") is x and x.to(T.device("cpu")) is x
    y = x.to("cpu", T.float64)
    assert y.dtype == T.float64 and y.requires_grad
    assert x.to("cpu", non_blocking=True) is x
    assert x.get_device() == -1 and not x.is_cuda
    T.set_default_device("cpu")
    try:
        assert T.get_default_device() == T.device("cpu")
    finally:
        # torch keeps a device mode installed until reset, and some of its functions
        # compute differently under it (l1_loss with weight=): later tests must not see it
        T.set_default_device(None)
    with pytest.raises(AssertionError):
        T.ones(2).cuda()


def test_no_accelerator(T):
    assert T.cuda.is_available() is False and T.cuda.device_count() == 0
    assert T.cuda.is_initialized() is False
    T.cuda.manual_seed_all(0)           # no-ops, as on a CPU-only build
    T.cuda.manual_seed(0)
    T.cuda.empty_cache()
    with pytest.raises(AssertionError):
        T.cuda.current_device()
    assert T.backends.mps.is_available() is False and T.backends.mps.is_built() is False
    assert T.backends.cudnn.is_available() is False
    T.backends.cudnn.deterministic = True       # accepted
    T.backends.cudnn.deterministic = False
    assert T.accelerator.is_available() is False and T.accelerator.device_count() == 0
    assert T.accelerator.current_accelerator() is None


def test_device_picking_idiom(T):
    dev = T.device("cuda" if T.cuda.is_available() else "cpu")
    x = T.tensor([1.0, 2.0], device=dev, requires_grad=True)
    (x * x).sum().backward()
    assert lst(x.grad) == [2.0, 4.0]
