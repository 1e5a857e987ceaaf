"""Custom autograd.Function behaviour, checked against PyTorch's.

Tests taking ``T`` run the same code on tensorplay and (when installed) torch."""
import re
import warnings

import numpy as np
import pytest

import tensorplay as tp
from conftest import assert_close, torch, exact as _exact, lst

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed). Saved intermediate values of the graph are freed "
         "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
         "backward through the graph a second time or if you need to access saved tensors after "
         "calling backward.")



def _saves_input(T):
    """A Function y = 2a that saves its input (dy/da is then computed as g * a)."""
    class E2(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return g * a
    return E2


def _scales_in_place(T, k, name):
    """A Function ``name`` that multiplies its input by ``k`` in place (``mark_dirty``)."""
    def forward(ctx, x):
        x.mul_(k)
        ctx.mark_dirty(x)
        return x

    def backward(ctx, g):
        return g * k
    return type(T.autograd.Function)(name, (T.autograd.Function,), {
        "forward": staticmethod(forward), "backward": staticmethod(backward)})


def _doubles_in_place(T):
    return _scales_in_place(T, 2, "Double_")


def ver(t):
    """The version counter's value (tensorplay keeps it in a shared one-element list)."""
    return t._version


def _name(T):
    return "tensorplay" if T is tp else "torch"


def make_exp(T):
    class Exp(T.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            result, = ctx.saved_tensors
            return grad_output * result
    return Exp


def make_mul_new_style(T):
    class MyMul(T.autograd.Function):
        @staticmethod
        def forward(a, b, scale):
            return a * b * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            a, b, scale = inputs
            ctx.save_for_backward(a, b)
            ctx.scale = scale

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b * ctx.scale, g * a * ctx.scale, None
    return MyMul


# ------------------------------------------------------------------ basics
def test_static_forward_backward(T):
    Exp = make_exp(T)
    x = T.tensor([0., 1., 2.], requires_grad=True)
    y = Exp.apply(x)
    assert_close(lst(y), np.exp([0., 1., 2.]))
    assert y.requires_grad and not y.is_leaf
    assert type(y.grad_fn).__name__ == "ExpBackward"
    assert y.grad_fn.name() == "ExpBackward"
    y.sum().backward()
    assert_close(lst(x.grad), np.exp([0., 1., 2.]))


def test_setup_context_style(T):
    MyMul = make_mul_new_style(T)
    a = T.tensor([1., 2.], requires_grad=True)
    b = T.tensor([3., 4.], requires_grad=True)
    y = MyMul.apply(a, b, 2.0)
    assert lst(y) == [6., 16.]
    assert y.grad_fn.name() == "MyMulBackward"
    y.sum().backward()
    assert lst(a.grad) == [6., 8.]
    assert lst(b.grad) == [2., 4.]


def test_setup_context_sees_output(T):
    class Sq(T.autograd.Function):
        @staticmethod
        def forward(x):
            return x * x, x + 1

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.got = (len(inputs), type(output).__name__, len(output))
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g1, g2):
            x, = ctx.saved_tensors
            return 2 * x * g1 + g2

    x = T.tensor([1., 2.], requires_grad=True)
    a, b = Sq.apply(x)
    assert a.grad_fn is b.grad_fn
    assert a.grad_fn.got == (1, "tuple", 2)
    (a + b).sum().backward()
    assert lst(x.grad) == [3., 5.]


def test_legacy_call_form():
    # the 001 document's ``Exp()(input)`` spelling: tensorplay keeps it as
    # ``Exp.apply(input)`` (PyTorch 2.x has dropped it)
    Exp = make_exp(tp)
    x = tp.tensor([0., 1.], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = Exp()(x)
    assert_close(lst(y), np.exp([0., 1.]))
    assert y.grad_fn.name() == "ExpBackward"
    y.sum().backward()
    assert_close(lst(x.grad), np.exp([0., 1.]))


def test_forward_is_called_with_grad_disabled(T):
    seen = []

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            seen.append(T.is_grad_enabled())
            y = x * 2
            seen.append(y.requires_grad)
            return y

        @staticmethod
        def backward(ctx, g):
            seen.append(T.is_grad_enabled())
            return g * 2

    x = T.tensor([1.], requires_grad=True)
    F.apply(x).sum().backward()
    assert seen == [False, False, False]
    seen.clear()
    F.apply(x).sum().backward(create_graph=True)
    assert seen == [False, False, True]


# ------------------------------------------------------------------ saving
def test_save_inputs_outputs_intermediates_and_none(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            mid = x * w
            out = mid.exp()
            ctx.save_for_backward(x, None, w, mid, out)
            return out

        @staticmethod
        def backward(ctx, g):
            x, none, w, mid, out = ctx.saved_tensors
            assert none is None
            gm = g * out
            return gm * w, gm * x

    x = T.tensor([0.5, 1.], requires_grad=True)
    w = T.tensor([2., -1.], requires_grad=True)
    y = F.apply(x, w)
    y.sum().backward()
    e = np.exp([1., -1.])
    assert_close(lst(x.grad), e * [2., -1.])
    assert_close(lst(w.grad), e * [0.5, 1.])


def test_saved_tensors_identity(T):
    """A saved input comes back as the same tensor object; a saved output as a
    tensor with the node as grad_fn."""
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x * 2
            ctx.save_for_backward(x, out)
            return out

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = T.tensor([1.], requires_grad=True)
    y = F.apply(x)
    sx, sy = y.grad_fn.saved_tensors
    assert sx is x
    assert sy.grad_fn is y.grad_fn
    assert lst(sy) == [2.]


def test_save_for_backward_rejects_non_tensor(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError, match="save_for_backward can only save variables, but argument "
                                        "1 is of type int"):
        F.apply(T.tensor([1.], requires_grad=True))


def test_needs_input_grad(T):
    got = {}

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k, c):
            got["fwd"] = ctx.needs_input_grad
            return a * b * c * k

        @staticmethod
        def backward(ctx, g):
            got["bwd"] = ctx.needs_input_grad
            return None, None, None, None

    a = T.tensor([1.], requires_grad=True)
    b = T.tensor([1.])
    c = T.tensor([1.], requires_grad=True)
    F.apply(a, b, 3, c).sum().backward()
    assert got["fwd"] == (True, False, False, True)
    assert got["bwd"] == (True, False, False, True)


def test_arbitrary_ctx_attributes(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, n):
            ctx.n = n
            ctx.meta = {"shape": tuple(x.shape)}
            ctx.kept = x.detach() + 1       # not saved through save_for_backward
            return x * n

        @staticmethod
        def backward(ctx, g):
            assert ctx.meta == {"shape": (2,)}
            return g * ctx.n + ctx.kept * 0, None

    x = T.tensor([1., 2.], requires_grad=True)
    y = F.apply(x, 5)
    assert y.grad_fn.n == 5
    y.sum().backward()
    assert lst(x.grad) == [5., 5.]


# ------------------------------------------------------------------ inputs and outputs
def test_several_inputs_and_outputs(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a + b, a * b

        @staticmethod
        def backward(ctx, gs, gp):
            a, b = ctx.saved_tensors
            return gs + gp * b, gs + gp * a

    a = T.tensor([1., 2.], requires_grad=True)
    b = T.tensor([3., 5.], requires_grad=True)
    s, p = F.apply(a, b)
    assert s.grad_fn is p.grad_fn
    assert (s.output_nr, p.output_nr) == (0, 1)
    (s * 2 + p * 3).sum().backward()
    assert lst(a.grad) == [2 + 3 * 3., 2 + 3 * 5.]
    assert lst(b.grad) == [2 + 3 * 1., 2 + 3 * 2.]


def test_unused_output_gets_zero_grad_materialized(T):
    got = []

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g1, g2):
            got.append((lst(g1), lst(g2)))
            return g1 * 2 + g2 * 3

    a = T.tensor([1., 1.], requires_grad=True)
    u, v = F.apply(a)
    u.sum().backward()
    assert got == [([1., 1.], [0., 0.])]
    assert lst(a.grad) == [2., 2.]


def test_set_materialize_grads_false(T):
    got = []

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(False)
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g1, g2):
            got.append((g1 is None, g2 is None))
            r = None
            if g1 is not None:
                r = g1 * 2
            if g2 is not None:
                r = g2 * 3 if r is None else r + g2 * 3
            return r

    a = T.tensor([1., 1.], requires_grad=True)
    u, v = F.apply(a)
    v.sum().backward()
    assert got == [(True, False)]
    assert lst(a.grad) == [3., 3.]


def test_non_tensor_arguments_get_none(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, name, flag):
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None, None, None

    x = T.tensor([1., 2.], requires_grad=True)
    y = F.apply(x, 3., "s", True)
    assert len(y.grad_fn.next_functions) == 1       # non-tensor arguments have no edge
    y.sum().backward()
    assert lst(x.grad) == [3., 3.]
    x.grad = None
    y = F.apply(x, T.tensor(3.), "s", True)
    assert len(y.grad_fn.next_functions) == 2
    assert y.grad_fn.next_functions[1] == (None, 0)
    y.sum().backward()
    assert lst(x.grad) == [3., 3.]


def test_extra_trailing_none_gradients_are_allowed(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, None

    x = T.tensor([1.], requires_grad=True)
    F.apply(x).sum().backward()
    assert lst(x.grad) == [2.]


def test_returning_input_unchanged(T):
    class Id(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = T.tensor([1., 2.], requires_grad=True)
    y = Id.apply(x)
    assert y is not x
    assert y.grad_fn.name() == "IdBackward"
    assert x.is_leaf and x.grad_fn is None
    assert y.data_ptr() == x.data_ptr()
    y.sum().backward()
    assert lst(x.grad) == [3., 3.]
    # the non-leaf input case: the input keeps its own history
    w = x * 1
    z = Id.apply(w)
    assert z is not w and w.grad_fn.name() == "MulBackward0"
    x.grad = None
    (z + w).sum().backward()
    assert lst(x.grad) == [4., 4.]


def test_no_input_requires_grad(T):
    Exp = make_exp(T)
    x = T.tensor([0., 1.])
    y = Exp.apply(x)
    assert not y.requires_grad and y.grad_fn is None


def test_no_grad_outputs_do_not_require_grad(T):
    Exp = make_exp(T)
    x = T.tensor([0., 1.], requires_grad=True)
    with T.no_grad():
        y = Exp.apply(x)
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf
    MyMul = make_mul_new_style(T)
    with T.no_grad():
        z = MyMul.apply(x, x, 2.)
    assert not z.requires_grad and z.grad_fn is None


# ------------------------------------------------------------------ ctx marks
def test_mark_dirty(T):
    Double_ = _doubles_in_place(T)

    a = T.tensor([1., 2.], requires_grad=True)
    b = a * 1
    v0 = ver(b)
    c = Double_.apply(b)
    assert c is b
    assert ver(b) > v0
    assert lst(b) == [2., 4.]
    assert b.grad_fn.name() == "Double_Backward"
    (b * b).sum().backward()
    assert lst(a.grad) == [8., 16.]


def test_mark_dirty_on_leaf_raises(T):
    Double_ = _doubles_in_place(T)

    a = T.tensor([1., 2.], requires_grad=True)
    with pytest.raises(RuntimeError, match=_exact("a leaf Variable that requires grad has been "
                                                  "used in an in-place operation.")):
        Double_.apply(a)


def test_mark_dirty_invalidates_earlier_saved_value(T):
    Double_ = _doubles_in_place(T)

    a = T.tensor([1., 2.], requires_grad=True)
    b = a * 1
    c = b * b                      # saves b
    Double_.apply(b)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()


def test_mark_non_differentiable(T):
    class SortF(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            i = x.argmax()
            v = x[i]
            ctx.mark_non_differentiable(i)
            ctx.save_for_backward(i)
            ctx.n = x.shape[0]
            return v, i

        @staticmethod
        def backward(ctx, gv, gi):
            i, = ctx.saved_tensors
            assert gi is None or lst(gi) == 0
            return (T.arange(ctx.n) == i).to(gv.dtype) * gv

    x = T.tensor([3., 1., 5.], requires_grad=True)
    v, i = SortF.apply(x)
    assert v.requires_grad and not i.requires_grad and i.grad_fn is None
    (v * 2).backward()
    assert lst(x.grad) == [0., 0., 2.]


def test_mark_non_differentiable_float_output(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            a, b = x * 2, x * 3
            ctx.mark_non_differentiable(b)
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            return ga * 2

    x = T.tensor([1.], requires_grad=True)
    a, b = F.apply(x)
    assert a.requires_grad and not b.requires_grad
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        b.sum().backward()
    a.sum().backward()
    assert lst(x.grad) == [2.]


# ------------------------------------------------------------------ errors in backward
def test_wrong_number_of_gradients(T):
    class X(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    a = T.ones(2, requires_grad=True)
    b = T.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=_exact("function XBackward returned an incorrect number "
                                                  "of gradients (expected 2, got 1)")):
        X.apply(a, b).sum().backward()


def test_too_many_gradients(T):
    class X(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    a = T.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=_exact("function XBackward returned an incorrect number "
                                                  "of gradients (expected 1, got 2)")):
        X.apply(a).sum().backward()


def test_wrong_gradient_shape(T):
    class X(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return T.ones(3)

    with pytest.raises(RuntimeError, match=_exact("Function XBackward returned an invalid gradient "
                                                  "at index 0 - got [3] but expected shape "
                                                  "compatible with [2]")):
        X.apply(T.ones(2, requires_grad=True)).sum().backward()


def test_broadcastable_gradient_is_summed(T):
    class X(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.sum()

        @staticmethod
        def backward(ctx, g):
            return T.ones(3, 2) * g          # expandable to [2]? no: summed down to it

    a = T.ones(2, requires_grad=True)
    X.apply(a).backward()
    assert lst(a.grad) == [3., 3.]


def test_gradient_for_non_tensor_input(T):
    class Z(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, k):
            return a * k

        @staticmethod
        def backward(ctx, g):
            return g, T.ones(1)

    with pytest.raises(RuntimeError, match=_exact(
            "function ZBackward returned a gradient different than None at position 2, but the "
            "corresponding forward input was not a Variable")):
        Z.apply(T.ones(2, requires_grad=True), 3).sum().backward()


def test_gradient_for_input_not_requiring_grad_is_dropped(T):
    class Z(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, g * 100

    a = T.ones(2, requires_grad=True)
    b = T.ones(2)
    Z.apply(a, b).sum().backward()
    assert lst(a.grad) == [1., 1.] and b.grad is None


def test_backward_exception_propagates(T):
    class Boom(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        Boom.apply(T.ones(1, requires_grad=True)).sum().backward()


def test_backward_not_implemented(T):
    class NoBack(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1

    y = NoBack.apply(T.ones(1, requires_grad=True))
    with pytest.raises(NotImplementedError, match="You must implement either the backward or vjp "
                                                  "method for your custom autograd.Function to "
                                                  "use it with backward mode AD."):
        y.sum().backward()


def test_forward_not_implemented(T):
    class NoFwd(T.autograd.Function):
        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(NotImplementedError, match="You must implement the forward function for "
                                                  "custom autograd.Function."):
        NoFwd.apply(T.ones(1, requires_grad=True))


# ------------------------------------------------------------------ higher order
def make_cube(T):
    class Cube(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x ** 2
    return Cube


def test_double_backward_through_backward_ops(T):
    Cube = make_cube(T)
    x = T.tensor([1., 2., -1.5], requires_grad=True)
    y = Cube.apply(x)
    g, = T.autograd.grad(y.sum(), x, create_graph=True)
    assert g.requires_grad
    assert_close(lst(g), [3., 12., 6.75])
    gg, = T.autograd.grad(g.sum(), x)
    assert_close(lst(gg), [6., 12., -9.])


def test_double_backward_with_saved_output(T):
    Exp = make_exp(T)
    x = T.tensor([0.5, -1.], requires_grad=True)
    y = Exp.apply(x)
    g, = T.autograd.grad(y.sum(), x, create_graph=True)
    gg, = T.autograd.grad(g.sum(), x)
    assert_close(lst(gg), np.exp([0.5, -1.]))


def test_double_backward_matches_torch(torch_or_skip):
    res = []
    for T in (tp, torch):
        MyMul = make_mul_new_style(T)
        a = T.tensor([1., 2., 3.], requires_grad=True)
        b = T.tensor([-1., .5, 2.], requires_grad=True)
        y = MyMul.apply(a * a, b.sin(), 1.5)
        ga, gb = T.autograd.grad(y.sum(), (a, b), create_graph=True)
        (ga * gb).sum().backward()
        res.append((lst(ga), lst(gb), lst(a.grad), lst(b.grad)))
    for u, v in zip(*res):
        assert_close(u, v)


def test_once_differentiable(T):
    once = T.autograd.function.once_differentiable

    class Cube(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @once
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x ** 2

    x = T.tensor([1., 2.], requires_grad=True)
    Cube.apply(x).sum().backward()
    assert lst(x.grad) == [3., 12.]
    y = Cube.apply(x)
    # the seed does not require grad: backward's output then does not either
    g, = T.autograd.grad(y.sum(), x, create_graph=True)
    assert lst(g) == [3., 12.] and not g.requires_grad
    # a gradient output that requires grad: the result does, and differentiating it raises
    y = Cube.apply(x)
    g, = T.autograd.grad((y * y).sum(), x, create_graph=True)
    assert lst(g) == [6., 192.]
    assert g.requires_grad
    with pytest.raises(RuntimeError, match=_exact("trying to differentiate twice a function that "
                                                  "was marked with @once_differentiable")):
        g.sum().backward()


def test_once_differentiable_without_create_graph(T):
    once = T.autograd.function.once_differentiable
    calls = []

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        @once
        def backward(ctx, g):
            calls.append(T.is_grad_enabled())
            return g * 2

    x = T.tensor([1.], requires_grad=True)
    g, = T.autograd.grad(F.apply(x).sum(), x)
    assert not g.requires_grad and lst(g) == [2.]
    F.apply(x).sum().backward(create_graph=True)
    assert calls == [False, False]


# ------------------------------------------------------------------ freeing and in-place checks
def test_saved_tensors_freed_after_backward(T):
    Exp = make_exp(T)
    x = T.ones(2, requires_grad=True)
    y = Exp.apply(x)
    y.sum().backward()
    with pytest.raises(RuntimeError, match=_exact(FREED)):
        y.sum().backward()
    with pytest.raises(RuntimeError, match=_exact(FREED)):
        y.grad_fn.saved_tensors


def test_retain_graph_keeps_saved_tensors(T):
    Exp = make_exp(T)
    x = T.ones(2, requires_grad=True)
    y = Exp.apply(x)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert_close(lst(x.grad), [2 * np.e] * 2)
    with pytest.raises(RuntimeError, match=_exact(FREED)):
        y.sum().backward()


def test_function_without_saved_tensors_can_run_twice(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = T.ones(2, requires_grad=True)
    y = F.apply(x)
    y.sum().backward()
    y.sum().backward()
    assert lst(x.grad) == [4., 4.]


def _anomaly_hint(T):
    return (f"Hint: enable anomaly detection to find the operation that failed to compute its "
            f"gradient, with {_name(T)}.autograd.set_detect_anomaly(True, check_nan=False).")


def test_saved_input_modified_in_place(T):
    E2 = _saves_input(T)

    x = T.ones(2, requires_grad=True)
    xx = x * 1
    y = E2.apply(xx)
    xx.add_(1)
    msg = ("one of the variables needed for gradient computation has been modified by an inplace "
           f"operation: [{_name(T)}.FloatTensor [2]], which is output 0 of Add, is at version 1; "
           f"expected version 0 instead. " + _anomaly_hint(T))
    with pytest.raises(RuntimeError, match=_exact(msg)):
        y.sum().backward()


def test_saved_leaf_modified_in_place(T):
    E2 = _saves_input(T)

    x = T.ones(2, requires_grad=True)
    y = E2.apply(x)
    with T.no_grad():
        x.add_(1)
    msg = ("one of the variables needed for gradient computation has been modified by an inplace "
           f"operation: [{_name(T)}.FloatTensor [2]] is at version 1; expected version 0 instead. "
           + _anomaly_hint(T))
    with pytest.raises(RuntimeError, match=_exact(msg)):
        y.sum().backward()


def test_saved_output_modified_in_place(T):
    class MyFn(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            r = a.exp()
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, g):
            r, = ctx.saved_tensors
            return g * r

    x = T.ones(2, requires_grad=True)
    y = MyFn.apply(x)
    y.mul_(2)
    msg = ("one of the variables needed for gradient computation has been modified by an inplace "
           f"operation: [{_name(T)}.FloatTensor [2]], which is output 0 of MyFn, is at version 1; "
           f"expected version 0 instead. " + _anomaly_hint(T))
    with pytest.raises(RuntimeError, match=_exact(msg)):
        y.sum().backward()


def test_saved_input_modified_through_view(T):
    E2 = _saves_input(T)

    x = T.ones(4, requires_grad=True)
    b = x * 1
    y = E2.apply(b)
    b[1:3].mul_(5)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_saved_input_detached_copy_shares_version(T):
    E2 = _saves_input(T)

    x = T.ones(2, requires_grad=True)
    y = E2.apply(x)
    x.detach().zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# ------------------------------------------------------------------ node attributes
def test_node_class_and_name(T):
    class MyRelu(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clamp(min=0)

        @staticmethod
        def backward(ctx, g):
            return g

    y = MyRelu.apply(T.ones(1, requires_grad=True))
    node = y.grad_fn
    assert type(node).__name__ == "MyReluBackward"
    assert node.name() == "MyReluBackward"
    assert isinstance(node, T.autograd.graph.Node)
    assert isinstance(node, T.autograd.function.BackwardCFunction)
    assert isinstance(node, T.autograd.function.FunctionCtx)
    assert node.next_functions[0][0].name() == "torch::autograd::AccumulateGrad" or \
        type(node.next_functions[0][0]).__name__ == "AccumulateGrad"
    # each Function subclass has its own node class
    assert type(node) is type(MyRelu.apply(T.ones(1, requires_grad=True)).grad_fn)


def test_node_requires_grad_and_needs_input_grad(T):
    MyMul = make_mul_new_style(T)
    a = T.ones(1, requires_grad=True)
    y = MyMul.apply(a, T.ones(1), 2)
    assert y.grad_fn.needs_input_grad == (True, False, False)
    assert y.grad_fn.requires_grad is True


def test_legacy_node_attributes():
    # the 002 document's attributes: saved_variables (deprecated), num_inputs,
    # num_outputs, requires_grad (PyTorch 2.x keeps only the first and last)
    class F(tp.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            ctx.save_for_backward(a)
            return a * b, a + b

        @staticmethod
        def backward(ctx, g1, g2):
            return g1, g2, None

    a = tp.ones(2, requires_grad=True)
    p, s = F.apply(a, tp.ones(2), 3)
    node = p.grad_fn
    assert node.num_inputs == 3
    assert node.num_outputs == 2
    assert node.requires_grad is True
    with pytest.warns(DeprecationWarning, match="'saved_variables' is deprecated; use "
                                                "'saved_tensors'"):
        sv = node.saved_variables
    assert len(sv) == 1 and sv[0] is a


def test_saved_variables_warns(T):
    Exp = make_exp(T)
    y = Exp.apply(T.ones(1, requires_grad=True))
    with pytest.warns(DeprecationWarning, match="'saved_variables' is deprecated; use "
                                                "'saved_tensors'"):
        (r,) = y.grad_fn.saved_variables
    assert lst(r) == lst(y)


# ------------------------------------------------------------------ gradcheck
def test_gradcheck_custom_functions():
    Cube = make_cube(tp)
    Exp = make_exp(tp)
    MyMul = make_mul_new_style(tp)
    x = tp.tensor([0.3, -0.7, 1.1], dtype=tp.float64, requires_grad=True)
    w = tp.tensor([1.5, 0.2, -2.], dtype=tp.float64, requires_grad=True)
    assert tp.autograd.gradcheck(Cube.apply, (x,))
    assert tp.autograd.gradcheck(Exp.apply, (x,))
    assert tp.autograd.gradcheck(lambda a, b: MyMul.apply(a, b, 0.5), (x, w))
    assert tp.autograd.gradgradcheck(Cube.apply, (x,))
    assert tp.autograd.gradgradcheck(lambda a, b: MyMul.apply(a, b, 0.5), (x, w))


def test_gradcheck_catches_wrong_backward():
    class Bad(tp.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = tp.tensor([0.3, 2.], dtype=tp.float64, requires_grad=True)
    with pytest.raises(tp.autograd.GradcheckError):
        tp.autograd.gradcheck(Bad.apply, (x,))
    assert tp.autograd.gradcheck(Bad.apply, (x,), raise_exception=False) is False


# ------------------------------------------------------------------ saved-tensor hooks
def test_saved_tensors_hooks_called_once_per_saved_tensor(T):
    packed, unpacked = [], []

    def pack(t):
        packed.append(tuple(t.shape))
        return ("box", t)

    def unpack(p):
        unpacked.append(p[0])
        return p[1]

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            out = a * b
            ctx.save_for_backward(a, b, out)
            return out

        @staticmethod
        def backward(ctx, g):
            a, b, out = ctx.saved_tensors
            return g * b, g * a

    a = T.tensor([1., 2.], requires_grad=True)
    b = T.tensor([[3., 4.]], requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = F.apply(a, b)
    assert packed == [(2,), (1, 2), (1, 2)]
    assert unpacked == []
    y.sum().backward()
    assert unpacked == ["box"] * 3
    assert lst(a.grad) == [3., 4.]
    assert lst(b.grad) == [[1., 2.]]


def test_saved_tensors_hooks_unpack_value_is_used(T):
    def pack(t):
        return t.detach() * 0 + 10

    def unpack(t):
        return t

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return 2 * a * g

    a = T.tensor([1., 2.], requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = F.apply(a)
    y.sum().backward()
    assert lst(a.grad) == [20., 20.]


def test_saved_tensors_hooks_saved_output_keeps_grad_fn(T):
    class Exp(T.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            r = i.exp()
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, g):
            r, = ctx.saved_tensors
            return g * r

    x = T.tensor([0.5], requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = Exp.apply(x)
    g, = T.autograd.grad(y.sum(), x, create_graph=True)
    gg, = T.autograd.grad(g.sum(), x)
    assert_close(lst(gg), [np.exp(0.5)])


def test_hooks_not_active_outside_context(T):
    calls = []
    Exp = make_exp(T)
    x = T.tensor([0.5], requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: calls.append("p") or t,
                                              lambda t: calls.append("u") or t):
        pass
    Exp.apply(x).sum().backward()
    assert calls == []


def test_nested_saved_tensors_hooks_innermost_wins(T):
    calls = []
    Exp = make_exp(T)
    x = T.tensor([0.5], requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: calls.append("outer") or t, lambda t: t):
        with T.autograd.graph.saved_tensors_hooks(lambda t: calls.append("inner") or t,
                                                  lambda t: t):
            y = Exp.apply(x)
    assert calls == ["inner"]
    y.sum().backward()


def test_save_on_cpu_with_function(T):
    Exp = make_exp(T)
    x = T.tensor([0.5, 1.], requires_grad=True)
    with T.autograd.graph.save_on_cpu():
        y = Exp.apply(x)
    y.sum().backward()
    assert_close(lst(x.grad), np.exp([0.5, 1.]))


def test_disable_saved_tensors_hooks(T):
    with T.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    # usable again afterwards
    Exp = make_exp(T)
    x = T.tensor([0.5], requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = Exp.apply(x)
    y.sum().backward()


def test_disable_saved_tensors_hooks_inside_active_hooks(T):
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with T.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
                pass
    # the failed __enter__ left the state clean
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        pass


def test_saved_tensor_hooks_freed_after_backward(T):
    Exp = make_exp(T)
    x = T.tensor([0.5], requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = Exp.apply(x)
    y.sum().backward()
    with pytest.raises(RuntimeError, match=_exact(FREED)):
        y.sum().backward()


def _e2(T):
    class E2(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return 2 * g * a
    return E2


def test_inplace_after_copying_hook_is_harmless(T):
    """A pack hook that copies owns the saved value: modifying the original
    later does not change the gradient (PyTorch's behaviour)."""
    x = T.ones(2, requires_grad=True)
    xx = x * 1
    with T.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        y = _e2(T).apply(xx)
    xx.add_(1)
    y.sum().backward()
    assert lst(x.grad) == [2., 2.]


def test_save_on_cpu_keeps_a_private_copy():
    # PyTorch's save_on_cpu keeps a CPU tensor itself (no copy), so there a
    # later in-place change silently alters the gradient; tensorplay's copies
    x = tp.ones(2, requires_grad=True)
    xx = x * 1
    with tp.autograd.graph.save_on_cpu():
        y = _e2(tp).apply(xx)
    xx.add_(1)
    y.sum().backward()
    assert lst(x.grad) == [2., 2.]


def test_inplace_after_aliasing_hook_raises():
    """Hooks that hand back the original memory: PyTorch silently uses the
    modified value (x.grad would be [4, 4]); tensorplay raises instead."""
    for pack, unpack in ((lambda t: t, lambda t: t),
                         (lambda t: ("box", t), lambda p: p[1]),
                         (lambda t: t, lambda t: t.clone())):
        x = tp.ones(2, requires_grad=True)
        xx = x * 1
        with tp.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = _e2(tp).apply(xx)
        xx.add_(1)
        with pytest.raises(RuntimeError, match=re.escape(
                "modified by an inplace operation: [tensorplay.FloatTensor [2]], which is output 0 "
                "of Mul, is at version 1; expected version 0 instead.")):
            y.sum().backward()


def test_outputs_of_integer_dtype_do_not_require_grad(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x.argmax()

        @staticmethod
        def backward(ctx, g, gi):
            return g * 2

    x = T.tensor([1., 3.], requires_grad=True)
    y, i = F.apply(x)
    assert y.requires_grad and not i.requires_grad
    y.sum().backward()
    assert lst(x.grad) == [2., 2.]


def test_mark_dirty_tensor_not_returned(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    b = T.ones(2, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="Some elements marked as dirty during the forward "
                                           "method were not returned as output."):
        F.apply(b)


def test_returning_view_of_input(T):
    class First(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.n = x.shape[0]
            return x[0]

        @staticmethod
        def backward(ctx, g):
            return (T.arange(ctx.n) == 0).to(g.dtype) * g

    x = T.tensor([1., 2.], requires_grad=True)
    y = First.apply(x * 1)
    (y * 3).backward()
    assert lst(x.grad) == [3., 0.]


# ------------------------------------------------------------------ misc
def test_function_in_larger_graph_matches_torch(torch_or_skip):
    res = []
    for T in (tp, torch):
        Exp, Cube = make_exp(T), make_cube(T)
        x = T.tensor([[0.1, -0.4], [0.7, 0.2]], requires_grad=True)
        y = Exp.apply(x.t() * 2) + Cube.apply(x).sum(0)
        z = (y * y.detach()).mean()
        z.backward()
        res.append((lst(y), lst(x.grad)))
    for u, v in zip(*res):
        assert_close(u, v)


def test_function_output_used_twice(T):
    Exp = make_exp(T)
    x = T.tensor([0.], requires_grad=True)
    y = Exp.apply(x)
    (y * 2 + y * 3).sum().backward()
    assert lst(x.grad) == [5.]


def test_apply_with_kwargs_rejected_or_used():
    class F(tp.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale=2.):
            ctx.scale = scale
            return x * scale

        @staticmethod
        def backward(ctx, g):
            return g * ctx.scale

    x = tp.ones(1, requires_grad=True)
    F.apply(x).sum().backward()
    assert lst(x.grad) == [2.]


def make_triple_(T):
    return _scales_in_place(T, 3, "Triple_")


def test_mark_dirty_on_view_updates_base_history(T):
    a = T.tensor([1., 2., 3.], requires_grad=True)
    b = a * 1
    v = b[1:]
    w = b[:2]                       # another live view, overlapping
    make_triple_(T).apply(v)
    assert lst(b) == [1., 6., 9.]
    assert lst(w) == [1., 6.]
    (b * T.tensor([1., 10., 100.])).sum().backward(retain_graph=True)
    assert lst(a.grad) == [1., 30., 300.]
    a.grad = None
    (w * T.tensor([5., 7.])).sum().backward(retain_graph=True)
    assert lst(a.grad) == [5., 21., 0.]
    a.grad = None
    (v * T.tensor([2., 4.])).sum().backward()
    assert lst(a.grad) == [0., 6., 12.]


def test_mark_dirty_on_view_of_leaf_raises(T):
    a = T.tensor([1., 2., 3.], requires_grad=True)
    with pytest.raises(RuntimeError, match=_exact("a view of a leaf Variable that requires grad is "
                                                  "being used in an in-place operation.")):
        make_triple_(T).apply(a[1:])


def test_mark_dirty_on_tensor_not_requiring_grad(T):
    class AddInto(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            x.add_(w)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g, g

    x = T.ones(2)
    w = T.ones(2, requires_grad=True)
    y = AddInto.apply(x, w)
    assert y is x and x.requires_grad and x.grad_fn.name() == "AddIntoBackward"
    (y * 2).sum().backward()
    assert lst(w.grad) == [2., 2.]
