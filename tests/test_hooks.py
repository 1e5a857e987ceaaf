"""Tensor and node hooks, retain_grad, graph structure, GradientEdge, checked
against PyTorch's behaviour.

Tests taking ``T`` run the same code on tensorplay and (when installed) torch."""

import pytest

import tensorplay as tp
from conftest import assert_close, torch, exact as _exact, lst


# ------------------------------------------------------------------ Tensor.register_hook
def test_legacy_variable_example(T):
    # the 002 document's example
    v = T.autograd.Variable(T.Tensor([0, 0, 0]), requires_grad=True)
    h = v.register_hook(lambda grad: grad * 2)   # double the gradient
    v.backward(T.Tensor([1, 1, 1]))
    assert lst(v.grad.data) == [2., 2., 2.]
    h.remove()
    v.grad = None
    v.backward(T.Tensor([1, 1, 1]))
    assert lst(v.grad) == [1., 1., 1.]


def test_hook_replaces_gradient_on_non_leaf(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: g * 10)
    (y * y).sum().backward()
    assert lst(x.grad) == [180., 360.]


def test_hook_returning_none_observes(T):
    seen = []
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: seen.append(lst(g)))
    x.register_hook(lambda g: seen.append(("leaf", lst(g))))
    (y * 2).sum().backward()
    assert seen == [[2., 2.], ("leaf", [6., 6.])]
    assert lst(x.grad) == [6., 6.]


def test_hook_on_leaf_changes_accumulated_grad(T):
    x = T.tensor([1., 2.], requires_grad=True)
    x.register_hook(lambda g: g * 3)
    (x * 2).sum().backward()
    assert lst(x.grad) == [6., 6.]
    (x * 2).sum().backward()
    assert lst(x.grad) == [12., 12.]


def test_leaf_hook_sees_summed_gradient(T):
    seen = []
    x = T.tensor([1., 2.], requires_grad=True)
    x.register_hook(lambda g: seen.append(lst(g)))
    (x * 2 + x * 5).sum().backward()
    assert seen == [[7., 7.]]


def test_several_hooks_run_in_order(T):
    order = []
    x = T.tensor([1.], requires_grad=True)
    y = x * 1

    def h1(g):
        order.append(("h1", lst(g)))
        return g + 1

    def h2(g):
        order.append(("h2", lst(g)))
        return g * 10

    def h3(g):
        order.append(("h3", lst(g)))

    y.register_hook(h1)
    y.register_hook(h2)
    y.register_hook(h3)
    y.sum().backward()
    assert order == [("h1", [1.]), ("h2", [2.]), ("h3", [20.])]
    assert lst(x.grad) == [20.]


def test_remove_hook(T):
    x = T.tensor([1.], requires_grad=True)
    y = x * 1
    h1 = y.register_hook(lambda g: g * 2)
    y.register_hook(lambda g: g + 1)
    h1.remove()
    h1.remove()                      # a second remove is harmless
    y.sum().backward()
    assert lst(x.grad) == [2.]


def test_remove_hook_during_backward_keeps_current_pass(T):
    x = T.tensor([1.], requires_grad=True)
    y = x * 1
    handles = []

    def h(g):
        handles[0].remove()
        return g * 5

    handles.append(y.register_hook(h))
    y.sum().backward(retain_graph=True)
    assert lst(x.grad) == [5.]
    y.sum().backward()
    assert lst(x.grad) == [6.]


def test_hook_raising_propagates_and_graph_survives(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 2
    z = y.exp()
    h = y.register_hook(lambda g: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        z.sum().backward(retain_graph=True)
    assert x.grad is None
    h.remove()
    z.sum().backward()
    assert_close(lst(x.grad), [2 * 2.718281828459045 ** 2, 2 * 2.718281828459045 ** 4])


def test_hook_on_tensor_without_grad_raises(T):
    with pytest.raises(RuntimeError, match=_exact("cannot register a hook on a tensor that doesn't "
                                                  "require gradient")):
        T.ones(2).register_hook(lambda g: g)


def test_hook_with_wrong_shape_or_type(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 1

    def bad(g):
        return T.ones(3)

    y.register_hook(bad)
    with pytest.raises(RuntimeError, match=_exact("hook 'bad' has changed the size of value")):
        y.sum().backward()


def test_hook_returning_non_tensor(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 1
    y.register_hook(lambda g: 3)
    with pytest.raises(TypeError, match="expected Variable, but hook returned 'int'"):
        y.sum().backward()


def test_hook_with_create_graph_is_differentiable(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * x
    y.register_hook(lambda g: g * y)
    g, = T.autograd.grad(y.sum(), x, create_graph=True)
    assert lst(g) == [2., 16.]          # 2x * x^2
    gg, = T.autograd.grad(g.sum(), x)
    # the hook on y runs again in the second pass (gradients reach y's node)
    assert lst(gg) == [6., 72.]


def test_hook_in_autograd_grad(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 3)
    x.register_hook(lambda g: g * 100)   # leaf hooks run in autograd.grad too
    g, = T.autograd.grad(y.sum(), x)
    assert lst(g) == [600., 600.]
    assert x.grad is None


def test_hook_on_multi_output_node(T):
    x = T.tensor([1., 2., 3., 4.], requires_grad=True)
    a, b = (x * 1).split(2)
    b.register_hook(lambda g: g * 7)
    (a.sum() + b.sum()).backward()
    assert lst(x.grad) == [1., 1., 7., 7.]


def test_hook_registered_twice_same_function(T):
    x = T.tensor([1.], requires_grad=True)
    y = x * 1

    def h(g):
        return g * 2

    y.register_hook(h)
    y.register_hook(h)
    y.sum().backward()
    assert lst(x.grad) == [4.]


def test_hook_handle_context_manager(T):
    x = T.tensor([1.], requires_grad=True)
    y = x * 1
    with y.register_hook(lambda g: g * 2):
        pass
    y.sum().backward()
    assert lst(x.grad) == [1.]


# ------------------------------------------------------------------ retain_grad
def test_retain_grad(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 2
    assert not y.retains_grad and not x.retains_grad
    y.retain_grad()
    assert y.retains_grad
    (y * y).sum().backward()
    assert lst(y.grad) == [4., 8.]
    assert y.grad.grad_fn is None


def test_retain_grad_accumulates(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert lst(y.grad) == [2., 2.]


def test_retain_grad_on_leaf_is_noop(T):
    x = T.tensor([1., 2.], requires_grad=True)
    x.retain_grad()
    assert not x.retains_grad
    x.sum().backward()
    assert lst(x.grad) == [1., 1.]


def test_retain_grad_without_requires_grad(T):
    with pytest.raises(RuntimeError, match=_exact("can't retain_grad on Tensor that has "
                                                  "requires_grad=False")):
        T.ones(2).retain_grad()


@pytest.mark.parametrize("retain_first", [True, False])
def test_retained_grad_sees_hook_result(T, retain_first):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 2
    if retain_first:
        y.retain_grad()
    y.register_hook(lambda g: g * 10)
    if not retain_first:
        y.retain_grad()
    y.sum().backward()
    assert lst(y.grad) == [10., 10.]
    assert lst(x.grad) == [20., 20.]


def test_retained_grad_is_not_aliased_to_hook_input(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.retain_grad()
    kept = []
    y.register_hook(lambda g: kept.append(g))
    (y * y).sum().backward()
    with T.no_grad():
        kept[0].mul_(0)
    assert lst(y.grad) == [4., 8.]


def test_retain_grad_with_create_graph(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * x
    y.retain_grad()
    z = (y * y).sum()
    z.backward(create_graph=True)
    assert lst(y.grad) == [2., 8.]
    assert lst(x.grad) == [4., 32.]
    x.grad = None


def test_non_leaf_grad_warns(T):
    x = T.tensor([1.], requires_grad=True)
    y = x * 2
    y.sum().backward()
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert y.grad is None


# ------------------------------------------------------------------ post-accumulate-grad hooks
def test_post_accumulate_grad_hook(T):
    seen = []
    x = T.tensor([1., 2.], requires_grad=True)
    h = x.register_post_accumulate_grad_hook(lambda t: seen.append((t is x, lst(t.grad))))
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    assert seen == [(True, [2., 2.]), (True, [5., 5.])]
    h.remove()
    (x * 3).sum().backward()
    assert len(seen) == 2


def test_post_accumulate_grad_hook_runs_after_tensor_hooks(T):
    seen = []
    x = T.tensor([1., 2.], requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: seen.append(("post", lst(t.grad))))
    x.register_hook(lambda g: seen.append(("pre", lst(g))) or g * 2)
    (x * 2).sum().backward()
    assert seen == [("pre", [2., 2.]), ("post", [4., 4.])]


def test_post_accumulate_grad_hook_can_zero_grad(T):
    # the optimizer-in-backward pattern
    x = T.tensor([1., 2.], requires_grad=True)

    def step(t):
        with T.no_grad():
            t.sub_(t.grad * 0.5)
        t.grad = None

    x.register_post_accumulate_grad_hook(step)
    (x * x).sum().backward()
    assert lst(x) == [0., 0.]
    assert x.grad is None


def test_post_accumulate_grad_hook_not_in_autograd_grad(T):
    seen = []
    x = T.tensor([1., 2.], requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: seen.append(1))
    T.autograd.grad((x * 2).sum(), x)
    assert seen == []


def test_post_accumulate_grad_hook_errors(T):
    with pytest.raises(RuntimeError, match=_exact("post accumulate grad hooks cannot be registered "
                                                  "on non-leaf tensors")):
        (T.ones(1, requires_grad=True) * 2).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(RuntimeError, match=_exact("cannot register a hook on a tensor that doesn't "
                                                  "require gradient")):
        T.ones(2).register_post_accumulate_grad_hook(lambda t: None)


# ------------------------------------------------------------------ node hooks
def test_grad_fn_prehook_and_posthook(T):
    seen = []
    x = T.tensor([1., 2.], requires_grad=True)
    y = x.exp() * 1
    node = y.grad_fn.next_functions[0][0]          # ExpBackward0

    def pre(go):
        seen.append(("pre", len(go), lst(go[0])))
        return (go[0] * 2,)

    def post(gi, go):
        seen.append(("post", lst(gi[0]), lst(go[0])))
        return (gi[0] + 1,)

    node.register_prehook(pre)
    node.register_hook(post)
    y.sum().backward()
    e = [2.718281828459045, 7.38905609893065]
    assert seen[0] == ("pre", 1, [1., 1.])
    assert seen[1][0] == "post"
    assert_close(seen[1][1], [2 * v for v in e])
    assert seen[1][2] == [2., 2.]
    assert_close(lst(x.grad), [2 * v + 1 for v in e])


def test_grad_fn_hooks_returning_none(T):
    seen = []
    x = T.tensor([1., 2.], requires_grad=True)
    y = x.sin()
    y.grad_fn.register_prehook(lambda go: seen.append("pre"))
    y.grad_fn.register_hook(lambda gi, go: seen.append("post"))
    y.sum().backward()
    assert seen == ["pre", "post"]
    assert_close(lst(x.grad), [0.5403023058681398, -0.4161468365471424])


def test_grad_fn_hook_remove(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x.sin()
    h = y.grad_fn.register_prehook(lambda go: (go[0] * 0,))
    h.remove()
    y.sum().backward()
    assert lst(x.grad)[0] != 0


def test_tensor_hook_runs_before_node_prehook(T):
    order = []
    x = T.tensor([1.], requires_grad=True)
    y = x.sin()
    y.grad_fn.register_prehook(lambda go: order.append(("node", lst(go[0]))))
    y.register_hook(lambda g: order.append(("tensor", lst(g))) or g * 3)
    y.sum().backward()
    assert order == [("tensor", [1.]), ("node", [3.])]


def test_posthook_on_custom_function_node(T):
    class Double(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = T.tensor([1.], requires_grad=True)
    y = Double.apply(x)
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 5,))
    y.sum().backward()
    assert lst(x.grad) == [10.]


def test_accumulate_grad_node_hooks(T):
    seen = []
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    acc.register_prehook(lambda go: seen.append(lst(go[0])))
    y.sum().backward()
    assert seen == [[2., 2.]]
    assert acc.variable is x


# ------------------------------------------------------------------ graph structure
def _structure(fn, seen=None):
    """Nested (name, [children]) of a graph; nodes named as torch names them."""
    if fn is None:
        return None
    name = fn.name()
    if name in ("torch::autograd::AccumulateGrad", "AccumulateGrad"):
        return "AccumulateGrad"
    return (name, [(_structure(f), i) for f, i in fn.next_functions])


def _graphs(T):
    x = T.tensor([1., 2.], requires_grad=True)
    w = T.tensor([3., 4.], requires_grad=True)
    c = T.tensor([1., 1.])
    m = T.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    return {
        "mul_add": lambda: (x * w + x).sum(),
        "const": lambda: (x * c).exp().sum(),
        "scalar": lambda: (x * 2 + 1).sum(),
        "unary_chain": lambda: x.sin().cos().tanh().mean(),
        "matmul": lambda: (m @ x).sum(),
        "view": lambda: m.t().reshape(4).sum(),
        "index": lambda: m[0].sum() + m[:, 1].sum(),
        "two_uses": lambda: (x * x).sum(),
        "pow_div": lambda: (x ** 2 / w).sum(),
        "cat": lambda: T.cat([x, w]).sum(),
    }


@pytest.mark.parametrize("case", sorted(_graphs(tp)))
def test_next_functions_structure_matches_torch(torch_or_skip, case):
    a = _structure(_graphs(tp)[case]().grad_fn)
    b = _structure(_graphs(torch)[case]().grad_fn)
    assert a == b


def test_next_functions_of_leaf_accumulator(T):
    x = T.tensor([1.], requires_grad=True)
    y = x * 2
    acc, nr = y.grad_fn.next_functions[0]
    assert nr == 0
    assert acc.next_functions == ()
    # the same accumulator while the leaf lives
    assert (x * 3).grad_fn.next_functions[0][0] is acc


def test_every_grad_fn_is_a_node(T):
    Node = T.autograd.graph.Node
    x = T.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    outs = [x * 2, x.sum(), x.t(), x[0], x.exp(), x @ x, x.max(), x.split(1)[0],
            T.cat([x, x]), x.reshape(4), x.clone()]
    for o in outs:
        assert isinstance(o.grad_fn, Node), o.grad_fn
        for f, _ in o.grad_fn.next_functions:
            assert f is None or isinstance(f, Node)
    assert not isinstance(x, Node)
    assert issubclass(type(outs[0].grad_fn), Node)


def test_node_metadata_and_name(T):
    x = T.tensor([1.], requires_grad=True)
    y = x.exp()
    assert y.grad_fn.name() == "ExpBackward0"
    y.grad_fn.metadata["k"] = 1
    assert y.grad_fn.metadata == {"k": 1}


# ------------------------------------------------------------------ GradientEdge
def test_get_gradient_edge_with_autograd_grad(T):
    ge = T.autograd.graph.get_gradient_edge
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 2
    z = (y * y).sum()
    g_y, g_x = T.autograd.grad(z, (ge(y), ge(x)))
    assert lst(g_y) == [4., 8.]
    assert lst(g_x) == [8., 16.]


def test_gradient_edge_node_and_output_nr(T):
    ge = T.autograd.graph.get_gradient_edge
    x = T.tensor([1., 2., 3., 4.], requires_grad=True)
    a, b = (x * 1).split(2)
    e = ge(b)
    assert e.node is b.grad_fn and e.output_nr == 1
    el = ge(x)
    assert el.node.name() in ("torch::autograd::AccumulateGrad", "AccumulateGrad")
    assert el.output_nr == 0


def test_gradient_edge_is_stable_across_in_place(T):
    # the edge taken before an in-place op names the old value's gradient
    ge = T.autograd.graph.get_gradient_edge
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 2
    e = ge(y)
    y.mul_(3)
    z = y.sum()
    g_old, = T.autograd.grad(z, e)
    assert lst(g_old) == [3., 3.]


def test_gradient_edge_in_backward_inputs(T):
    ge = T.autograd.graph.get_gradient_edge
    x = T.tensor([1., 2.], requires_grad=True)
    w = T.tensor([3., 4.], requires_grad=True)
    (x * w).sum().backward(inputs=[ge(x)])
    assert lst(x.grad) == [3., 4.]
    assert w.grad is None


def test_gradient_edge_of_tensor_without_grad(T):
    with pytest.raises(RuntimeError, match="It is not possible to get the gradient edge for a "
                                           "Tensor that does not require gradients"):
        T.autograd.graph.get_gradient_edge(T.ones(1))


def test_gradient_edge_constructed_by_hand(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x.exp()
    z = (y * 3).sum()
    edge = T.autograd.graph.GradientEdge(y.grad_fn, 0)
    g, = T.autograd.grad(z, edge)
    assert lst(g) == [3., 3.]


# ------------------------------------------------------------------ multi-tensor hooks
def test_register_multi_grad_hook_all_and_any(T):
    a = T.ones(2, requires_grad=True)
    b = T.ones(2, requires_grad=True)
    c = T.ones(2, requires_grad=True)
    got = []
    h = T.autograd.graph.register_multi_grad_hook(
        (a, b, c), lambda gs: got.append([None if g is None else g.tolist() for g in gs]))
    for _ in range(3):                  # one call per pass, never stale across passes
        (a * 2 + b).sum().backward()
    (b * 3).sum().backward()
    assert got == [[[2.0, 2.0], [1.0, 1.0], None]] * 3 + [[None, [3.0, 3.0], None]]
    h.remove()
    (a * 2).sum().backward()
    assert len(got) == 4
    anyg = []
    T.autograd.graph.register_multi_grad_hook((a, c), lambda g: anyg.append(g.tolist()), mode="any")
    (a * 5 + c * 7).sum().backward()
    (c * 2).sum().backward()
    assert len(anyg) == 2 and anyg[1] == [2.0, 2.0]


def test_increment_version(T):
    x = T.ones(2, requires_grad=True)
    y = x * x
    v = y._version
    T.autograd.graph.increment_version(y)
    assert y._version == v + 1
    z = y.exp()                         # exp saves its output
    T.autograd.graph.increment_version(z)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
