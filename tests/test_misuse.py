"""Misuse that PyTorch refuses, refused the same way (exception type and message),
and the behaviours around hooks, custom Functions and autograd.functional where
tensorplay once differed.  Every test runs on tensorplay and, when installed,
on torch (the ``T`` fixture): the same code is its own oracle."""
import pytest

from conftest import exact, lst

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed). Saved intermediate values of the graph are freed "
         "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
         "backward through the graph a second time or if you need to access saved tensors after "
         "calling backward.")


# ------------------------------------------------------------------ saved tensors
@pytest.mark.parametrize("leaf", [True, False], ids=["leaf", "non-leaf"])
def test_pack_hook_modifying_its_input_in_place(T, leaf):
    x = T.ones(3, requires_grad=True)
    h = x if leaf else x * 1

    def pack(t):
        t.mul_(2)
        return t
    msg = ("A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
           "pack hook cannot be modified by in-place operations as this can lead to unexpected "
           "side-effects. Please open an issue if you need to perform in-place operations on the "
           "input to a pack hook.")
    with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with pytest.raises(RuntimeError, match=exact(msg)):
            h * h


def test_pack_hook_runs_without_grad_mode(T):
    seen = []

    def pack(t):
        seen.append(T.is_grad_enabled())
        return t
    x = T.ones(3, requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = x.exp()
    y.sum().backward()
    assert seen and not any(seen)
    assert lst(x.grad) == pytest.approx([2.718281828] * 3)


def test_saved_input_detached_in_place(T):
    msg = ("Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
           "This is not supported, please use out-of-place `.detach()` instead")
    x = T.ones(3, requires_grad=True)
    h = x * 1
    y = h * h
    h.detach_()
    with pytest.raises(RuntimeError, match=exact(msg)):
        y.sum().backward()
    # a saved output detached in place is fine (its node supplies the history), and so is a
    # saved leaf
    h = x * 1
    y = h.exp()
    y.detach_()
    x2 = T.ones(2, requires_grad=True)
    z = x2 * x2
    z.sum().backward()
    assert lst(x2.grad) == [2.0, 2.0]


def test_custom_function_saved_input_detached_in_place(T):
    # unlike an op's node, a custom Function's saved input may be detached in place
    class Sq(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g
    x = T.ones(2, requires_grad=True)
    h = x * 3
    y = Sq.apply(h)
    h.detach_()
    y.sum().backward()
    assert lst(x.grad) == [18.0, 18.0]


@pytest.mark.parametrize("saves", [True, False])
def test_inference_tensor_saved_for_backward(T, saves):
    with T.inference_mode():
        i = T.ones(3)
    x = T.ones(3, requires_grad=True)
    if saves:
        with pytest.raises(RuntimeError, match="^Inference tensors cannot be saved for backward. "
                                               "Please do not use Tensors created in inference mode"):
            x * i
        with pytest.raises(RuntimeError, match="^Inference tensors cannot be saved for backward"):
            (x * 2).exp() * i
    else:
        y = x + i               # add saves nothing
        y.sum().backward()
        assert lst(x.grad) == [1.0, 1.0, 1.0]


def test_inference_tensors_api(T):
    x = T.ones(3, requires_grad=True)
    with T.inference_mode():
        i = T.ones(3)
        j = T.ones(3, requires_grad=True)
        k = i * 2
        v = x.view(3)           # a view of a normal tensor is a normal tensor
        w = x * 1
    assert i.is_inference() and k.is_inference() and w.is_inference() and not v.is_inference()
    assert T.is_inference(i) and not T.is_inference(x)
    assert i.detach().is_inference() and not i.clone().is_inference()
    with pytest.raises(RuntimeError, match=exact("Inference tensors do not track version counter.")):
        i._version
    with pytest.raises(RuntimeError, match="^Inplace update to inference tensor outside "
                                           "InferenceMode is not allowed"):
        k.add_(1)               # (torch writes before it raises; tensorplay does not write)
    with T.inference_mode():
        i.add_(1)               # inside, it is fine
    assert lst(i) == [2.0, 2.0, 2.0]
    y = j * 2                   # an inference leaf that requires grad, used but not saved
    y.sum().backward()
    assert lst(j.grad) == [2.0, 2.0, 2.0]


# ------------------------------------------------------------------ custom Function outputs
def _identity_function(T, as_view):
    class Id(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view_as(x) if as_view else x

        @staticmethod
        def backward(ctx, g):
            return g
    return Id


@pytest.mark.parametrize("as_view", [True, False], ids=["view", "input returned"])
def test_inplace_on_view_returned_by_custom_function(T, as_view):
    Id = _identity_function(T, as_view)
    msg = ("Output 0 of Id is a view and is being modified inplace. This view was created inside a "
           "custom Function (or because an input was returned as-is) and the autograd logic to "
           "handle view+inplace would override the custom backward associated with the custom "
           "Function, leading to incorrect gradients. This behavior is forbidden. You can fix this "
           "by cloning the output of the custom Function.")
    x = T.ones(3, requires_grad=True)
    v = Id.apply(x * 1)
    with pytest.raises(RuntimeError, match=exact(msg)):
        v.mul_(2)
    w = Id.apply(x * 1).clone()
    w.mul_(2)                   # a clone is fine
    w.sum().backward()
    assert lst(x.grad) == [2.0, 2.0, 2.0]


def test_custom_function_view_after_its_base_is_written(T):
    Id = _identity_function(T, True)
    x = T.ones(3, requires_grad=True)
    h = x * 1
    v = Id.apply(h)
    h.mul_(2)
    with pytest.raises(RuntimeError, match=r"^Output 0 of Id is a view and its base or another view "
                                           r"of its base has been modified inplace\. This view was "
                                           r"created inside a custom Function"):
        v.grad_fn


def test_custom_function_second_backward_fails_only_if_it_reads_saved(T):
    class Reads(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2

    class Ignores(Reads):
        @staticmethod
        def backward(ctx, g):
            return g * 2
    x = T.ones(3, requires_grad=True)
    y = Ignores.apply(x).sum()
    y.backward()
    y.backward()
    assert lst(x.grad) == [4.0, 4.0, 4.0]
    y = Reads.apply(x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=exact(FREED)):
        y.backward()


# ------------------------------------------------------------------ second backward
@pytest.mark.parametrize("f", [lambda x: (x * 2).sum(), lambda x: (x / 2).sum(),
                               lambda x: (3 * x).sum(), lambda x: x[[0, 1]].sum(),
                               lambda x: x.exp().sum(), lambda x: (x ** 2).sum(),
                               lambda x: (x * (x.detach() * 0 + 1)).sum()],
                         ids=["mul scalar", "div scalar", "rmul scalar", "advanced index", "exp",
                              "pow", "mul by constant tensor"])
def test_second_backward_without_retain_graph_raises(T, f):
    # PyTorch saves the scalar (a wrapped tensor) or the index tensor: freed after the first pass
    x = T.ones(3, requires_grad=True)
    y = f(x)
    y.backward()
    with pytest.raises(RuntimeError, match=exact(FREED)):
        y.backward()


@pytest.mark.parametrize("f", [lambda x: (x + 2).sum(), lambda x: (2 - x).sum(),
                               lambda x: x[1:].sum(), lambda x: x.view(3).mean()],
                         ids=["add scalar", "rsub", "slice", "view mean"])
def test_second_backward_of_nodes_that_saved_nothing(T, f):
    x = T.ones(3, requires_grad=True)
    y = f(x)
    y.backward()
    once = lst(x.grad)
    y.backward()
    assert lst(x.grad) == [2 * g for g in once]


# ------------------------------------------------------------------ grad / GradientEdge
def test_gradient_edge_as_outputs_and_inputs(T):
    x = T.ones(3, requires_grad=True)
    y = x * 2
    e = T.autograd.graph.get_gradient_edge(y)
    g, = T.autograd.grad(e, x, grad_outputs=T.ones(3), retain_graph=True)
    assert lst(g) == [2.0, 2.0, 2.0]
    g, = T.autograd.grad(y.sum(), e)
    assert lst(g) == [1.0, 1.0, 1.0]
    s = y.sum()
    es = T.autograd.graph.get_gradient_edge(s)
    g, = T.autograd.grad(es, x)             # a one-element edge: the seed is implicit
    assert lst(g) == [2.0, 2.0, 2.0]


def test_materialize_grads(T):
    x = T.ones(3, requires_grad=True)
    z = T.ones(2, requires_grad=True)
    gx, gz = T.autograd.grad((x * 2).sum(), (x, z), materialize_grads=True)
    assert lst(gx) == [2.0] * 3 and lst(gz) == [0.0, 0.0]
    with pytest.raises(ValueError, match=exact("Expected allow_unused to be True or not passed when "
                                               "materialize_grads=True, but got: allow_unused=False.")):
        T.autograd.grad((x * 2).sum(), (x, z), materialize_grads=True, allow_unused=False)


# ------------------------------------------------------------------ hooks
def test_tensor_hook_of_output_without_gradient_is_called_with_none(T):
    x = T.ones(2, requires_grad=True)
    a, b = x.unbind(0)
    seen = []
    a.register_hook(lambda g: seen.append(("a", g)))
    b.register_hook(lambda g: seen.append(("b", lst(g))))
    a.retain_grad()
    (b * 2).backward()
    assert seen == [("a", None), ("b", 2.0)]
    assert a.grad is None


def test_hook_cannot_replace_a_none_gradient(T):
    x = T.ones(2, requires_grad=True)
    a, b = x.unbind(0)
    a.register_hook(lambda g: T.tensor(5.0))
    with pytest.raises(RuntimeError, match=exact("can't replace a None gradient with a non-None value")):
        (b * 2).backward()


def test_target_node_prehooks_do_not_run(T):
    # autograd.grad(z, y) captures y's gradient: y's tensor hooks run, y's node does not
    x = T.ones(2, requires_grad=True)
    y = x * 2
    z = y * 3
    seen = []
    y.grad_fn.register_prehook(lambda g: seen.append("pre"))
    y.register_hook(lambda g: seen.append("tensor") or g * 2)
    g, = T.autograd.grad(z.sum(), y)
    assert seen == ["tensor"] and lst(g) == [6.0, 6.0]


def test_hook_order(T):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append("post1"))
    y.grad_fn.register_prehook(lambda go: seen.append("pre1"))
    y.register_hook(lambda g: seen.append("tensor"))
    y.grad_fn.register_hook(lambda gi, go: seen.append("post2"))
    y.grad_fn.register_prehook(lambda go: seen.append("pre2"))
    y.sum().backward()
    assert seen == ["tensor", "pre1", "pre2", "post1", "post2"]


def test_materialize_grads_off_gives_none(T):
    class Two(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append((g1 is None, g2 is None))
            return g1 if g2 is None else g2 if g1 is None else g1 + g2
    seen = []
    x = T.ones(2, requires_grad=True)
    a, b = Two.apply(x)
    a.sum().backward()
    assert seen == [(False, True)] and lst(x.grad) == [1.0, 1.0]


# ------------------------------------------------------------------ autograd.functional
def _shapes(h):
    return tuple(_shapes(x) for x in h) if isinstance(h, tuple) else tuple(h.shape)


def test_hessian_shapes_for_tuple_inputs(T):
    F = T.autograd.functional

    def f(x, y):
        return x.sum() * y.sum() ** 2 + (x ** 3).sum()
    assert _shapes(F.hessian(f, (T.ones(2), T.ones(3)))) == (((2, 2), (2, 3)), ((3, 2), (3, 3)))
    assert _shapes(F.hessian(f, (T.ones(2, 2), T.tensor(2.0)))) == (((2, 2, 2, 2), (2, 2)),
                                                                    ((2, 2), ()))
    assert _shapes(F.hessian(lambda x: (x ** 3).sum(), (T.ones(2),))) == (((2, 2),),)
    assert _shapes(F.hessian(lambda x: (x ** 3).sum(), T.ones(2, 3))) == (2, 3, 2, 3)


@pytest.mark.parametrize("call, msg", [
    (lambda F, T: F.hessian(lambda x: (x ** 3).sum(), [T.ones(2)]),
     "The inputs given to hessian must be either a Tensor or a tuple of Tensors but the given "
     "inputs has type <class 'list'>."),
    (lambda F, T: F.hessian(lambda x: x * 2, T.ones(2)),
     "The Tensor returned by the function given to hessian should contain a single element"),
    (lambda F, T: F.hessian(lambda x: (x.sum(),), T.ones(2)),
     "The function given to hessian should return a single Tensor"),
    (lambda F, T: F.hvp(lambda x: x * 2, T.ones(2), T.ones(2)),
     "The Tensor returned by the function given to hvp should contain a single element"),
    (lambda F, T: F.vjp(lambda x: T.ones(2), T.ones(2), T.ones(2), strict=True),
     "Output 0 of the user-provided function does not require gradients. The outputs must be "
     "computed in a differentiable manner from the input when running in strict mode."),
    (lambda F, T: F.jacobian(lambda x: T.ones(2), T.ones(2), strict=True),
     "Output 0 of the user-provided function does not require gradients. The outputs must be "
     "computed in a differentiable manner from the input when running in strict mode."),
    (lambda F, T: F.vhp(lambda x: x.sum(), T.ones(2), T.ones(2), strict=True),
     "While computing the hessian, found that the jacobian of the user-provided function with "
     "respect to input 0 is independent of the input. This is not allowed in strict mode. You "
     "should ensure that your function is twice differentiable and that the jacobian depends on "
     "the inputs (this would be violated by a linear function for example)."),
    (lambda F, T: F.jvp(lambda x, y: x * 2, (T.ones(2), T.ones(2)), (T.ones(2), T.ones(2)),
                        strict=True),
     "The output of the user-provided function is independent of input 1. This is not allowed in "
     "strict mode."),
], ids=["list inputs", "hessian non-scalar", "hessian tuple", "hvp non-scalar", "vjp strict",
        "jacobian strict", "vhp strict", "jvp strict"])
def test_functional_refusals(T, call, msg):
    with pytest.raises((RuntimeError, TypeError), match=exact(msg)):
        call(T.autograd.functional, T)
