"""The examples of the tensorplay.autograd API document (shared/seeds/000_*.txt),
copied here as written so that they run without reading shared/ at test time."""
import pytest

import tensorplay


@pytest.fixture(autouse=True)
def _restore_grad_mode():
    prev = tensorplay.is_grad_enabled()
    yield
    tensorplay.set_grad_enabled(prev)


def test_enable_grad_example():
    x = tensorplay.tensor([1.], requires_grad=True)
    with tensorplay.no_grad():
        with tensorplay.enable_grad():
            y = x * 2
    assert y.requires_grad is True
    y.backward()
    assert repr(x.grad) == "tensor([2.])"

    @tensorplay.enable_grad()
    def doubler(x):
        return x * 2
    with tensorplay.no_grad():
        z = doubler(x)
    assert z.requires_grad is True

    @tensorplay.enable_grad()
    def tripler(x):
        return x * 3
    with tensorplay.no_grad():
        z = tripler(x)
    assert z.requires_grad is True


def test_no_grad_example():
    x = tensorplay.tensor([1.], requires_grad=True)
    with tensorplay.no_grad():
        y = x * 2
    assert y.requires_grad is False

    @tensorplay.no_grad()
    def doubler(x):
        return x * 2
    z = doubler(x)
    assert z.requires_grad is False

    @tensorplay.no_grad()
    def tripler(x):
        return x * 3
    z = tripler(x)
    assert z.requires_grad is False

    # factory function exception
    with tensorplay.no_grad():
        a = tensorplay.nn.Parameter(tensorplay.rand(10))
    assert a.requires_grad is True


def test_no_grad_methods_init_and_clone():
    ng = tensorplay.no_grad()
    assert ng.__init__() is None
    c = ng.clone()
    assert isinstance(c, tensorplay.no_grad) and c is not ng
    with c:
        assert tensorplay.is_grad_enabled() is False
    assert tensorplay.is_grad_enabled() is True


def test_set_grad_enabled_example():
    x = tensorplay.tensor([1.], requires_grad=True)
    is_train = False
    with tensorplay.set_grad_enabled(is_train):
        y = x * 2
    assert y.requires_grad is False
    _ = tensorplay.set_grad_enabled(True)
    y = x * 2
    assert y.requires_grad is True
    _ = tensorplay.set_grad_enabled(False)
    y = x * 2
    assert y.requires_grad is False


def test_set_grad_enabled_clone():
    s = tensorplay.set_grad_enabled(False)
    tensorplay.set_grad_enabled(True)
    c = s.clone()
    assert isinstance(c, tensorplay.set_grad_enabled)
    with c:
        assert tensorplay.is_grad_enabled() is False
    assert tensorplay.is_grad_enabled() is True


def test_enable_grad_bare_decorator_signature():
    # enable_grad(orig_func=None): usable bare
    @tensorplay.enable_grad
    def f(x):
        return x * 2
    x = tensorplay.tensor([1.], requires_grad=True)
    with tensorplay.no_grad():
        assert f(x).requires_grad is True


def test_grad_signature_example():
    # grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=None)
    x = tensorplay.tensor([1., 2., 3.], requires_grad=True)
    y = x * x
    (g,) = tensorplay.autograd.grad(outputs=y, inputs=x, grad_outputs=tensorplay.ones(3),
                                    retain_graph=None, create_graph=False, allow_unused=None)
    assert g.tolist() == [2., 4., 6.]
    assert x.grad is None
    # a single tensor or a sequence of tensors for outputs and inputs; result is a tuple
    w = tensorplay.tensor(2., requires_grad=True)
    out = tensorplay.autograd.grad([x.sum() * w], [x, w])
    assert isinstance(out, tuple) and len(out) == 2
    assert out[0].tolist() == [2., 2., 2.] and out[1].item() == 6.


def test_grad_outputs_none_for_scalar():
    x = tensorplay.tensor(3., requires_grad=True)
    (g,) = tensorplay.autograd.grad([x * x], [x], grad_outputs=[None])
    assert g.item() == 6.


def test_grad_retain_graph_defaults_to_create_graph():
    x = tensorplay.tensor(3., requires_grad=True)
    y = x ** 3
    (g,) = tensorplay.autograd.grad(y, x, create_graph=True)
    assert g.requires_grad
    (g2,) = tensorplay.autograd.grad(y, x)      # graph was retained because create_graph=True
    assert g2.item() == 27.
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        tensorplay.autograd.grad(y, x)


def test_grad_allow_unused_example():
    x = tensorplay.tensor(1., requires_grad=True)
    u = tensorplay.tensor(1., requires_grad=True)
    with pytest.raises(RuntimeError, match="The differentiated Tensor at index 1 appears to not have been used in the graph"):
        tensorplay.autograd.grad(x * 2, [x, u])
    gx, gu = tensorplay.autograd.grad(x * 2, [x, u], allow_unused=True)
    assert gx.item() == 2. and gu is None


def test_is_grad_enabled_example():
    assert tensorplay.is_grad_enabled() is True
    with tensorplay.no_grad():
        assert tensorplay.is_grad_enabled() is False


def test_autograd_supported_dtypes():
    # floating (half, float, double, bfloat16) and complex (cfloat, cdouble) only
    for dt in (tensorplay.half, tensorplay.float, tensorplay.double, tensorplay.bfloat16,
               tensorplay.cfloat, tensorplay.cdouble):
        assert tensorplay.zeros(2, dtype=dt).requires_grad_().requires_grad
    for dt in (tensorplay.int64, tensorplay.bool, tensorplay.uint8):
        with pytest.raises(RuntimeError, match="only Tensors of floating point"):
            tensorplay.zeros(2, dtype=dt).requires_grad_()


