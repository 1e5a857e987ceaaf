"""Custom ``autograd.Function`` details where tensorplay once differed from
PyTorch: which gradients backward sees as None, the vmap switches, the legacy
non-static forward.  Runs on tensorplay and, when installed, on torch."""
import warnings

import pytest

from conftest import exact, lst


def test_non_tensor_outputs_get_none_not_zeros(T):
    seen = []

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            return scale, x * scale, None, "tag", x.clone()

        @staticmethod
        def backward(ctx, *grads):
            seen.append(tuple(None if g is None else lst(g) for g in grads))
            return grads[1] * 3 + grads[4], None

    x = T.ones(2, requires_grad=True)
    out = F.apply(x, 3)
    assert out[0] == 3 and out[2] is None and out[3] == "tag"
    out[1].sum().backward()
    # the unused tensor output is materialized as zeros, the non-tensor ones are None
    assert seen == [(None, [1.0, 1.0], None, None, [0.0, 0.0])]
    assert lst(x.grad) == [3.0, 3.0]


@pytest.mark.parametrize("materialize", [True, False])
def test_non_differentiable_outputs(T, materialize):
    seen = []

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            a, b = x.clone(), x.clone()
            ctx.mark_non_differentiable(b)
            ctx._materialize_non_diff_grads = materialize
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            seen.append(None if gb is None else lst(gb))
            return ga

    x = T.tensor(1.0, requires_grad=True)
    a, b = F.apply(x)
    assert not b.requires_grad
    a.backward()
    assert seen == [0.0 if materialize else None] and x.grad.item() == 1.0


def test_vmap_switches_of_a_function(T):
    class Square(T.autograd.Function):
        @staticmethod
        def forward(x):
            return x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2 * x

    assert Square.generate_vmap_rule is False and T.autograd.Function.generate_vmap_rule is False
    with pytest.raises(NotImplementedError, match=exact(
            "To use autograd.Function with vmap, you must either override the vmap staticmethod "
            "or set generate_vmap_rule=True.")):
        Square.vmap(None, (0,), T.ones(2))
    with pytest.raises(RuntimeError, match="vmap"):      # no rule: refused, not a crash
        T.func.vmap(Square.apply)(T.ones(3, 2))
    Square.generate_vmap_rule = True
    assert lst(T.func.vmap(Square.apply)(T.arange(4.0).view(2, 2))) == [[0.0, 1.0], [4.0, 9.0]]


def test_legacy_non_static_forward_is_refused(T):
    class Legacy(T.autograd.Function):
        def forward(self, x):
            return x

        def backward(self, g):
            return g

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # PyTorch warns that Functions are not instantiated
        with pytest.raises(RuntimeError, match="^Legacy autograd function with non-static "
                                               "forward method is deprecated"):
            Legacy()(T.ones(2))


def test_function_writing_a_view_in_place_returns_one_tensor(T):
    class DoubleInplace(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x, x

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 2

    x = T.randn(3, 3, dtype=T.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="^If your Function modifies inplace an input that is a "
                                           "view of another Tensor, your Function cannot return "
                                           "more than one Tensor"):
        DoubleInplace.apply(x.clone()[0])
    a, b = DoubleInplace.apply(x.clone())       # not a view: fine
    assert a is b


def test_unrecorded_function_outputs_are_still_its_views(T):
    class View(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view_as(x)

        @staticmethod
        def backward(ctx, g):
            return g

    class Id(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    a = T.rand(2)
    out = Id.apply(a)
    assert out is not a and out.data_ptr() == a.data_ptr()
    b = T.rand(1, requires_grad=True)
    msg = ("^A view was created in no_grad mode and is being modified inplace with grad mode "
           "enabled. This view was created inside a custom Function")
    for make in (View.apply, Id.apply):
        with pytest.raises(RuntimeError, match=msg):
            make(T.rand(2)).add_(b)
        with pytest.raises(RuntimeError, match=msg):
            make(T.rand(1, 2)).copy_(b)
        v = make(T.zeros(2))
        v.add_(1)                               # no gradient needed: allowed
        assert lst(v) == [1.0, 1.0]


def _saving_function(T, save):
    class MyFn(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            if save:
                ctx.save_for_backward(x, None)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            x, _ = ctx.saved_tensors
            return g * 2
    return MyFn


def test_raw_saved_tensors_of_a_function(T):
    a = T.randn(3, requires_grad=True)
    y = _saving_function(T, True).apply(a)
    assert y.grad_fn.saved_tensors[0] is a and y.grad_fn.saved_tensors[1] is None
    saved = y.grad_fn._raw_saved_tensors
    assert len(saved) == 2 and saved[0].data is a and saved[0].unpack_hook is None
    with pytest.raises(RuntimeError, match=exact("Calling register_hooks on a saved tensor with "
                                                 "value None is forbidden")):
        saved[1].register_hooks(lambda x: x, lambda x: x)
    with pytest.raises(TypeError):
        saved[0].register_hooks(lambda x: x)
    seen = []

    def unpack(p):
        seen.append("unpack")
        return p[0]
    saved[0].register_hooks(lambda x: (x,), unpack)
    assert type(saved[0].data) is tuple and saved[0].unpack_hook is unpack
    with pytest.raises(RuntimeError, match="^Calling register_hooks on a saved tensor whose hooks "
                                           "have already been set"):
        saved[0].register_hooks(lambda x: x, lambda x: x)
    y.sum().backward()
    assert seen == ["unpack"] and lst(a.grad) == [2.0] * 3
    for read in (lambda: y.grad_fn._raw_saved_tensors, lambda: y.grad_fn.saved_tensors):
        with pytest.raises(RuntimeError, match="after they have already been freed"):
            read()
    y = _saving_function(T, False).apply(a)
    assert y.grad_fn.saved_tensors == () and y.grad_fn._raw_saved_tensors == ()


def test_raw_saved_data_and_unpack_hook_of_op_nodes(T):
    def unpack(t):
        return t
    a = T.tensor(2.0, requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
        b = a ** 2
    c = b.exp()
    d = c ** 2
    assert b.grad_fn._raw_saved_self.data is a and b.grad_fn._raw_saved_self.unpack_hook is unpack
    assert c.grad_fn._raw_saved_result.data is not c
    assert c.grad_fn._raw_saved_result.unpack_hook is None
    assert d.grad_fn._raw_saved_self.data is c and d.grad_fn._raw_saved_self.unpack_hook is None


def test_is_view(T):
    x = T.rand(4, requires_grad=True).clone()
    assert not x._is_view() and x.view(2, 2)._is_view() and x[1:]._is_view()
    assert all(v._is_view() for v in x.unbind())
    with T.no_grad():
        assert x.view_as(x)._is_view()
    a, b = T.ones(1, requires_grad=True), T.zeros(1, requires_grad=True)
    assert T.stack([a, b], dim=0).grad_fn._saved_dim == 0
    assert T.stack([a, b], 1).grad_fn._saved_dim == 1


def test_a_function_may_define_vjp_instead_of_backward(T):
    class Triple(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 3
    x = T.tensor([1.0, 2.0], requires_grad=True)
    Triple.apply(x).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]

    class Both(Triple):
        @staticmethod
        def backward(ctx, g):
            return g * 4
    with pytest.raises(RuntimeError, match="Implementing both 'backward' and 'vjp'"):
        Both.apply(x).sum().backward()


def test_a_complex_gradient_for_a_real_input_is_refused(T):
    # (it used to be cut to its real part without a word)
    class Rotate(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * (2 + 3j)
    x = T.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"input_is_complex == grad_is_complex"):
        Rotate.apply(x).sum().backward()
    z = T.tensor([1 + 1j, 2 + 0j], requires_grad=True)
    Rotate.apply(z).abs().sum().backward()          # a complex input takes it
    assert z.grad.dtype == z.dtype
