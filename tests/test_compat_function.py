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
