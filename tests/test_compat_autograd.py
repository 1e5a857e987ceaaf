"""torch.autograd behaviours where tensorplay once differed from PyTorch: what
``autograd.grad`` returns for unused inputs and GradientEdges, the checks on what
node hooks return, and second backward passes.  Every test runs on tensorplay
and, when installed, on torch (the ``T`` fixture): the same code is its own oracle."""
import collections
import warnings

import pytest

from conftest import exact, lst

UNUSED = ("The differentiated Tensor at index 1 appears to not have been used in the graph. "
          "Set allow_unused=True if this is the desired behavior.")


# ------------------------------------------------------------------ autograd.grad
@pytest.mark.parametrize("create_graph", [False, True])
def test_materialized_zeros_require_grad_only_with_create_graph(T, create_graph):
    x = T.ones(3, requires_grad=True)
    z = T.ones(2, 2, dtype=T.float64, requires_grad=True)
    gx, gz = T.autograd.grad((x * 2).sum(), (x, z), materialize_grads=True,
                             create_graph=create_graph)
    assert lst(gz) == [[0.0, 0.0], [0.0, 0.0]] and gz.dtype == T.float64
    assert gz.requires_grad == create_graph and gz.grad_fn is None
    assert not gx.requires_grad


def test_materialize_grads_of_an_unused_gradient_edge_is_refused(T):
    x = T.ones(3, requires_grad=True)
    w = T.ones(2, requires_grad=True) * 2
    e = T.autograd.graph.get_gradient_edge(w)
    with pytest.raises(RuntimeError, match=exact("materialize_grads cannot be used when the given "
                                                 "input is a GradientEdge")):
        T.autograd.grad((x * 2).sum(), (x, e), materialize_grads=True)
    # a used edge is fine
    g, = T.autograd.grad((w * 3).sum(), (e,), materialize_grads=True)
    assert lst(g) == [3.0, 3.0]


def test_materialize_grads_with_batched_grad_outputs(T):
    # PyTorch materializes an unused input's gradient with the input's shape, no batch dim
    x = T.ones(3, requires_grad=True)
    z = T.ones(2, requires_grad=True)
    gx, gz = T.autograd.grad(x * 2, (x, z), T.eye(3), materialize_grads=True,
                             is_grads_batched=True)
    assert lst(gx) == [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]]
    assert lst(gz) == [0.0, 0.0]
    with pytest.raises(RuntimeError, match=exact(UNUSED)):
        T.autograd.grad(x * 2, (x, z), T.eye(3), is_grads_batched=True)


def test_unused_gradient_edge_input(T):
    x = T.ones(3, requires_grad=True)
    e = T.autograd.graph.get_gradient_edge(T.ones(2, requires_grad=True) * 2)
    with pytest.raises(RuntimeError, match=exact(UNUSED)):
        T.autograd.grad((x * 2).sum(), [x, e])
    gx, ge = T.autograd.grad((x * 2).sum(), [x, e], allow_unused=True)
    assert lst(gx) == [2.0] * 3 and ge is None


def test_gradient_edges_of_leaves_and_of_one_output_of_several(T):
    x = T.arange(4.0).requires_grad_()
    ex = T.autograd.graph.get_gradient_edge(x)
    g, = T.autograd.grad((x * 3).sum(), ex)
    assert lst(g) == [3.0] * 4 and x.grad is None
    a, b = x.split(2)
    eb = T.autograd.graph.get_gradient_edge(b)
    g, = T.autograd.grad((b * 3).sum() + a.sum(), eb)
    assert lst(g) == [3.0, 3.0]
    y = x.exp()
    ey = T.autograd.graph.get_gradient_edge(y)
    gy, gx = T.autograd.grad((y * 2).sum(), [ey, x])
    assert lst(gy) == [2.0] * 4
    assert lst(gx) == pytest.approx([2 * v for v in lst(y)])


def test_inputs_as_a_dict(T):
    x = T.ones(3, requires_grad=True)
    z = T.ones(2, requires_grad=True)
    g = T.autograd.grad((x * 2).sum(), {"a": x, "b": z}, allow_unused=True)
    assert list(g) == ["a", "b"] and lst(g["a"]) == [2.0] * 3 and g["b"] is None
    T.autograd.backward((x * 2).sum(), inputs={"a": x})
    assert lst(x.grad) == [2.0] * 3
    msg = ("`inputs` argument to `grad()` must be a dict, not OrderedDict. Other Mapping types "
           "are not supported.")
    with pytest.raises(TypeError, match=exact(msg)):
        T.autograd.grad((x * 2).sum(), collections.OrderedDict(a=x))
    with pytest.raises(TypeError, match=exact(msg.replace("grad()", "backward()"))):
        T.autograd.backward((x * 2).sum(), inputs=collections.OrderedDict(a=x))
    with pytest.raises(RuntimeError, match=exact("`inputs` argument to `backward()` cannot be "
                                                 "empty.")):
        T.autograd.backward((x * 2).sum(), inputs={})


# ------------------------------------------------------------------ node hooks' results
def _exp_node(T):
    x = T.ones(2, requires_grad=True)
    return x, x.exp()


def named_hook(*args):
    return (args[0][0], args[0][0])


@pytest.mark.parametrize("kind", ["post", "pre"])
@pytest.mark.parametrize("ret, exc, msg", [
    (lambda T, g: [g[0] * 10], TypeError, "expected tuple, but hook returned 'list'"),
    (lambda T, g: g[0] * 10, TypeError, "expected tuple, but hook returned 'Tensor'"),
    (lambda T, g: (), RuntimeError,
     "hook '<lambda>' has returned an incorrect number of values (got 0, but expected 1)"),
    (lambda T, g: (T.ones(3),), RuntimeError, "hook '<lambda>' has changed the size of value"),
    (lambda T, g: (3.0,), TypeError, "expected Variable, but hook returned 'float'"),
], ids=["list", "tensor", "count", "size", "number"])
def test_node_hook_results_are_checked(T, kind, ret, exc, msg):
    x, y = _exp_node(T)
    if kind == "post":
        y.grad_fn.register_hook(lambda gi, go: ret(T, gi))
    else:
        y.grad_fn.register_prehook(lambda go: ret(T, go))
    with pytest.raises(exc, match=exact(msg)):
        y.sum().backward()


def test_node_hook_result_dtype_and_name(T):
    x, y = _exp_node(T)
    y.grad_fn.register_hook(lambda gi, go: (T.ones(2, dtype=T.float64),))
    lib = T.__name__
    with pytest.raises(RuntimeError, match=exact(f"hook '<lambda>' has changed the type of value "
                                                 f"(was {lib}.FloatTensor got {lib}.DoubleTensor)")):
        y.sum().backward()
    x, y = _exp_node(T)
    y.grad_fn.register_prehook(named_hook)
    with pytest.raises(RuntimeError, match=exact("hook 'named_hook' has returned an incorrect "
                                                 "number of values (got 2, but expected 1)")):
        y.sum().backward()


def test_node_hooks_cannot_fill_a_none(T):
    # x * 2: the number's slot has no gradient (None), in a post hook's grad_inputs
    x = T.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 10, gi[0]))
    with pytest.raises(RuntimeError, match=exact("can't replace a None gradient with a non-None "
                                                 "value")):
        y.sum().backward()
    # an unused output of a multi-output node is None to the node's pre hook
    x = T.arange(4.0).requires_grad_()
    a, b = x.split(2)
    a.grad_fn.register_prehook(lambda go: (T.ones(2), T.ones(2)))
    with pytest.raises(RuntimeError, match=exact("can't replace a None gradient with a non-None "
                                                 "value")):
        (b * 2).sum().backward()


def test_node_hooks_replacing_and_dropping_gradients(T):
    x, y = _exp_node(T)
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 10,))
    y.sum().backward()
    assert lst(x.grad) == pytest.approx([27.18281828] * 2)
    x, y = _exp_node(T)
    y.grad_fn.register_hook(lambda gi, go: (None,))     # None: no gradient flows on
    y.sum().backward()
    assert x.grad is None
    x, y = _exp_node(T)
    seen = []
    y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
    y.grad_fn.register_hook(lambda gi, go: seen.append((type(gi), type(go), lst(go[0]))))
    y.sum().backward()
    assert seen == [(tuple, tuple, [2.0, 2.0])]
    acc = (x * 2).grad_fn.next_functions[0][0]
    acc.register_prehook(lambda go: (go[0], go[0]))
    with pytest.raises(RuntimeError, match="incorrect number of values"):
        (x * 2).sum().backward()


# ------------------------------------------------------------------ second backward
FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed). Saved intermediate values of the graph are freed "
         "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
         "backward through the graph a second time or if you need to access saved tensors after "
         "calling backward.")


def _setitem(y, key, v):
    y[key] = v
    return y


def _inplace(y, f):
    f(y)
    return y


SECOND = {  # f(T, x) -> loss; True where PyTorch saved a tensor the first pass freed
    "lerp number weight": (lambda T, x: T.lerp(T.zeros(3), x, 0.25).sum(), False),
    "lerp tensor weight": (lambda T, x: T.lerp(x, T.zeros(3), T.tensor(0.5)).sum(), True),
    # an in-place write into a view: PyTorch's CopySlices lets go of what it wraps
    "setitem int": (lambda T, x: _setitem(x + 0, 0, 5.0).sum(), True),
    "setitem slice": (lambda T, x: _setitem(x + 0, slice(0, 2), T.tensor([7.0, 8.0])).sum(),
                      True),
    "view add_": (lambda T, x: _inplace((x + 0), lambda y: y[1:].add_(2)).sum(), True),
    "whole view mul_": (lambda T, x: _inplace((x + 0), lambda y: y.view(3).mul_(2)).sum(), True),
    "view += read elsewhere": (lambda T, x: _inplace((x + 0), lambda y: y[1:].add_(x[:2]))[0] + 0,
                               True),
    "base add_": (lambda T, x: _inplace((x + 0), lambda y: y.add_(1)).sum(), False),
    "setitem list": (lambda T, x: _setitem(x + 0, [0, 2], 5.0).sum(), True),
    "setitem mask": (lambda T, x: _setitem(x + 0, x > 1, 0.0).sum(), True),
    "index_put": (lambda T, x: T.zeros(3).index_put((T.tensor([0, 1]),), x[:2]).sum(), True),
    "index_put accumulate": (lambda T, x: T.zeros(3).index_put((T.tensor([0, 1]),), x[:2],
                                                               accumulate=True).sum(), True),
    "getitem list": (lambda T, x: x[T.tensor([0, 1])].sum(), True),
    "getitem int": (lambda T, x: x[1] + 0, False),
}


@pytest.mark.parametrize("name", list(SECOND))
def test_second_backward_without_retain_graph(T, name):
    f, freed = SECOND[name]
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = f(T, x)
    y.backward()
    once = lst(x.grad)
    if freed:
        with pytest.raises(RuntimeError, match=exact(FREED)):
            y.backward()
    else:
        y.backward()
        assert lst(x.grad) == [2 * g for g in once]


# ------------------------------------------------------------------ backward(inputs=)
def test_backward_inputs_run_their_own_nodes(T):
    # a non-leaf input's node runs (its hooks fire; it computes nothing no one needs) and
    # is freed after; a leaf input's accumulator runs with its hooks
    x = T.rand(2, requires_grad=True)
    y = x.exp()
    seen = []
    y.grad_fn.register_prehook(lambda g: seen.append("pre"))
    y.grad_fn.register_hook(lambda gi, go: seen.append(("post", gi[0] is None)))
    (y * 3).sum().backward(inputs=(y,))
    assert seen == ["pre", ("post", True)] and y.retains_grad and lst(y.grad) == [3.0, 3.0]
    assert x.grad is None
    with pytest.raises(RuntimeError, match=exact(FREED)):
        y.sum().backward()
    acc = (x * 1).grad_fn.next_functions[0][0]
    seen.clear()
    acc.register_prehook(lambda g: seen.append("acc pre"))
    acc.register_hook(lambda gi, go: seen.append("acc post"))
    x.register_post_accumulate_grad_hook(lambda t: seen.append("post accumulate"))
    (x * 3).sum().backward(inputs=(x,))
    assert seen == ["acc pre", "post accumulate", "acc post"] and lst(x.grad) == [3.0, 3.0]
    seen.clear()
    T.autograd.grad((x * 3).sum(), (x,))        # autograd.grad captures: the node does not run
    assert seen == []


def test_backward_inputs_hook_counts(T):
    a = T.tensor(1.0, requires_grad=True)
    b = a * 2
    c = b * 2
    count = {"tensor": 0, "pre": 0, "post": 0}

    def bump(k):
        def hook(*args):
            count[k] += 1
        return hook
    a.register_hook(bump("tensor"))
    b.register_hook(bump("tensor"))
    acc = b.grad_fn.next_functions[0][0]
    for node in (acc, b.grad_fn):
        node.register_hook(bump("post"))
        node.register_prehook(bump("pre"))
    got = []
    for run in (lambda: T.autograd.grad(c, inputs=(b,), retain_graph=True),
                lambda: T.autograd.grad(c, inputs=(a, b), retain_graph=True),
                lambda: c.backward(retain_graph=True),
                lambda: c.backward(inputs=(a, b), retain_graph=True),
                lambda: c.backward(inputs=(b,), retain_graph=True)):
        run()
        got.append((count["tensor"], count["pre"], count["post"]))
        count.update(tensor=0, pre=0, post=0)
    assert got == [(1, 0, 0), (2, 1, 1), (2, 2, 2), (2, 2, 2), (1, 1, 1)]


def test_backward_inputs_gradient_edges(T):
    x = T.rand(2, requires_grad=True)
    y = x.clone()
    edge_y = T.autograd.graph.GradientEdge(y.grad_fn, y.output_nr)    # made by hand
    (y * 3).sum().backward(inputs=(edge_y,))
    assert x.grad is None and not y.retains_grad     # a non-leaf edge fills no .grad
    edge_x = T.autograd.graph.get_gradient_edge(x)
    (x * 3).sum().backward(inputs=(edge_x,))
    assert lst(x.grad) == [3.0, 3.0]
    z = x.clone()
    T.autograd.backward((z * 2).sum(), inputs=(T.autograd.graph.get_gradient_edge(z), x))
    assert lst(x.grad) == [5.0, 5.0]


# ------------------------------------------------------------------ nodes and leaves
def test_calling_a_node(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    g = (x ** 2).grad_fn(T.ones(2))         # one input: one gradient
    assert lst(g) == [2.0, 4.0] and g.requires_grad          # recorded: grad mode is on
    gx, gnum = (x * 3).grad_fn(T.ones(2))   # the number's slot: None
    assert lst(gx) == [3.0, 3.0] and gnum is None
    node = x.exp().grad_fn
    with T.no_grad():
        assert not node(T.ones(2)).requires_grad
    assert lst(x.unbind(0)[0].grad_fn(T.ones(()), None)) == [1.0, 0.0]
    acc = (x * 1).grad_fn.next_functions[0][0]
    assert acc(T.ones(2)) == () and lst(x.grad) == [1.0, 1.0]
    for args in [(), (T.ones(2), T.ones(2))]:
        with pytest.raises(TypeError, match=exact(f"expected 1 arguments, got {len(args)} "
                                                  "instead")):
            (x ** 2).grad_fn(*args)


def test_post_accumulate_grad_hook_must_return_none(T):
    x = T.ones(2, requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: t.sub_(t.grad))     # itself: allowed
    (x * 2).sum().backward()
    assert lst(x) == [-1.0, -1.0]
    x = T.ones(2, requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: t.grad)
    with pytest.raises(RuntimeError, match=exact("Tensor post accumulate grad hooks should "
                                                 "return None.")):
        (x * 2).sum().backward()


def test_set_gives_a_leaf_a_new_accumulator(T):
    x = T.rand(2, requires_grad=True)
    edge = T.autograd.graph.get_gradient_edge(x)
    out = x.clone()
    with T.no_grad():
        x.set_(T.rand(2))
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        T.autograd.grad(out.sum(), x)
    g, = T.autograd.grad(out.sum(), edge)
    assert lst(g) == [1.0, 1.0]


@pytest.mark.parametrize("f, want", [(lambda x: 2 * x, 20.0), (lambda x: 2.5 + x, 10.0),
                                     (lambda x: x * 2, 20.0)], ids=["rmul", "radd", "mul"])
def test_a_number_on_the_left_of_a_commutative_op(T, f, want):
    # PyTorch computes 2 * x as x * 2: the tensor's edge first, the number's slot second
    x = T.ones(2, requires_grad=True)
    y = f(x)
    (first, _), (second, _) = y.grad_fn.next_functions
    assert type(first).__name__ == "AccumulateGrad" and second is None
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 10, None))
    y.sum().backward()
    assert lst(x.grad) == [want, want]


def test_tensor_attributes_that_cannot_be_deleted_or_set_loosely(T):
    x = T.randn(2, requires_grad=True)
    for name, msg in [("data", "Deleting tensor data is not allowed. Delete tensor instead!"),
                      ("requires_grad", "requires_grad must be a bool"),
                      ("_grad_fn", "Deletion of _grad_fn not allowed. Detach tensor instead!"),
                      ("_backward_hooks", "Deletion of _backwards_hooks not allowed!")]:
        with pytest.raises(RuntimeError, match=exact(msg)):
            delattr(x, name)
    del x.grad
    assert x.grad is None and x._backward_hooks is None
    x._backward_hooks = {}              # code that rebuilds tensors sets it
    assert x._backward_hooks == {}
    for bad in (1, None):
        with pytest.raises(RuntimeError, match=exact("requires_grad must be a bool")):
            x.requires_grad = bad
        with pytest.raises(TypeError, match=exact(f"requires_grad_(): argument 'requires_grad' "
                                                  f"(position 1) must be bool, not "
                                                  f"{type(bad).__name__}")):
            x.requires_grad_(bad)
    assert x.requires_grad and (x * 2).requires_grad      # still a working tensor


def test_numpy_of_a_tensor_that_requires_grad(T):
    x = T.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=exact("Can't call numpy() on Tensor that requires grad. "
                                                 "Use tensor.detach().numpy() instead.")):
        x.numpy()
    with T.no_grad():
        a = x.numpy()
        assert a.tolist() == [1.0, 1.0] and (x * 2).numpy().tolist() == [2.0, 2.0]
    a[0] = 5.0                                   # the tensor's memory
    assert lst(x) == [5.0, 1.0]


def test_writing_one_region_of_an_expanded_tensor(T):
    g = T.ones(1).clone().expand(4)
    g[0] = 0                        # one element of the shared memory: allowed
    assert lst(g) == [0.0] * 4
    g[0] += 5
    assert lst(g) == [5.0] * 4              # one memory
    msg = ("unsupported operation: more than one element of the written-to tensor refers to a "
           "single memory location. Please clone() the tensor before performing the operation.")
    for write in (lambda: g.add_(1), lambda: g.__setitem__(slice(1, 3), 5.0)):
        with pytest.raises(RuntimeError, match=exact(msg)):
            write()
    x = T.ones(4)
    v = x[::2].expand(3, 2)
    v[1] = T.tensor([7.0, 8.0])
    assert lst(x) == [7.0, 1.0, 8.0, 1.0]


@pytest.mark.parametrize("shape", [(3,), (2, 3)])
def test_dir_lists_only_attributes_that_exist(T, shape):
    x = T.randn(*shape)
    missing = []
    for name in dir(x):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")        # volatile, .T of 1-d
                getattr(x, name)
        except RuntimeError:        # imag of a real tensor, mT of a vector: PyTorch's errors
            pass
        except AttributeError:
            missing.append(name)
    assert missing == []


@pytest.mark.parametrize("name, ndim, msg", [
    ("mT", 1, "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."),
    ("mH", 1, "tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor."),
    ("H", 1, "tensor.H is only supported on matrices (2-D tensors). Got 1-D tensor."),
    ("H", 3, "tensor.H is only supported on matrices (2-D tensors). Got 3-D tensor. For batches "
             "of matrices, consider using tensor.mH"),
])
def test_matrix_transposes_of_other_ranks(T, name, ndim, msg):
    with pytest.raises(RuntimeError, match=exact(msg)):
        getattr(T.ones(*(2,) * ndim), name)


def test_profiler_enabled(T):
    assert not T.autograd._profiler_enabled()
    with T.autograd.profiler.profile():
        assert T.autograd._profiler_enabled()
    assert not T.autograd._profiler_enabled()


@pytest.mark.parametrize("fmt", ["contiguous_format", "channels_last"])
def test_a_leafs_grad_has_the_leafs_layout(T, fmt):
    a = T.rand(2, 3, 4, 5).to(memory_format=getattr(T, fmt)).requires_grad_()
    b = T.rand(2, 3, 4, 5)
    a.sum().backward()                      # a broadcast (expanded) gradient
    assert a.grad.stride() == a.stride()
    a.grad = None
    (a * b).sum().backward()
    assert a.grad.stride() == a.stride()
    c = T.rand(3, 2).t().requires_grad_()    # a transposed (dense) leaf
    (c * 2).sum().backward()
    assert c.grad.stride() == c.stride() and lst(c.grad) == [[2.0] * 3] * 2
    d = T.rand(2, 4)[:, ::2].requires_grad_()    # not dense: row-major
    d.sum().backward()
    assert d.grad.stride() == (2, 1)


def test_resize_to_the_same_shape_does_not_bump_the_version(T):
    x = T.rand(1)
    y = T.randn(3)
    x.resize_((1, 2))
    assert x._version == 1
    x.resize_as_(y)
    assert x._version == 2
    x.resize_((3,))
    x.resize_as_(y)
    assert x._version == 2 and list(x.shape) == [3]


# ------------------------------------------------------------------ overload node names
def _index(t, values):
    return t.new_tensor(values).long()


@pytest.mark.parametrize("call,node,slots", [
    (lambda t, w: t.sum(), "SumBackward0", 1), (lambda t, w: t.sum(0), "SumBackward1", 1),
    (lambda t, w: t.sum(dim=()), "SumBackward1", 1), (lambda t, w: t.mean(), "MeanBackward0", 1),
    (lambda t, w: t.mean(-1, keepdim=True), "MeanBackward1", 1),
    (lambda t, w: t.squeeze(), "SqueezeBackward0", 1), (lambda t, w: t.squeeze(0), "SqueezeBackward1", 1),
    (lambda t, w: t.squeeze((0,)), "SqueezeBackward2", 1), (lambda t, w: 2 - t, "RsubBackward1", 1),
    (lambda t, w: t - 2, "SubBackward0", 2), (lambda t, w: t - w, "SubBackward0", 2),
    (lambda t, w: t.clamp(0, 1), "ClampBackward1", 1), (lambda t, w: t.clamp(max=1), "ClampBackward1", 1),
    (lambda t, w: t.clamp(w, w), "ClampBackward0", 3), (lambda t, w: t.clamp(min=w), "ClampBackward0", 3),
    (lambda t, w: t.clone().clamp_(0, 1), "ClampBackward1", 1),
    (lambda t, w: t.lerp(w, 0.5), "LerpBackward0", 2), (lambda t, w: t.lerp(w, w), "LerpBackward1", 3),
    (lambda t, w: t ** 2, "PowBackward0", 1), (lambda t, w: 2 ** t, "PowBackward2", 1),
    (lambda t, w: t ** w, "PowBackward1", 2),
    (lambda t, w: t % 2, "RemainderBackward0", 1), (lambda t, w: t % w, "RemainderBackward1", 2),
    (lambda t, w: t.fmod(2), "FmodBackward0", 1), (lambda t, w: t.fmod(w), "FmodBackward1", 2),
    (lambda t, w: t.clamp_min(0.), "ClampMinBackward0", 1), (lambda t, w: t.clamp_min(w), "ClampMinBackward1", 2),
    (lambda t, w: t.clamp_max(1.), "ClampMaxBackward0", 1), (lambda t, w: t.clamp_max(w), "ClampMaxBackward1", 2),
    (lambda t, w: t.clone().clamp_min_(0.), "ClampMinBackward0", 1),
    (lambda t, w: t.square(), "PowBackward0", 1),
    (lambda t, w: t.div(2, rounding_mode="floor"), "DivBackward2", 2),
    (lambda t, w: t.div(w, rounding_mode="trunc"), "DivBackward2", 2),
    # inputs without a derivative (conditions, masks, indices, dims) have no slot either
    (lambda t, w: t.where(t > 0, w), "WhereBackward0", 2),
    (lambda t, w: t.masked_fill(t > 0, 1.), "MaskedFillBackward0", 1),
    (lambda t, w: t.index_select(0, _index(t, [0, 2])), "IndexSelectBackward0", 1),
    (lambda t, w: t.take(_index(t, [1])), "TakeBackward0", 1),
    (lambda t, w: t.index_add(0, _index(t, [0]), w[:1]), "IndexAddBackward0", 2),
], ids=lambda v: v if isinstance(v, str) else "")
def test_overloads_have_pytorchs_node_names(T, call, node, slots):
    """PyTorch names a node after the overload that ran (sum() and sum(dim),
    a Scalar or a Tensor bound, ...); a Scalar argument has no slot in its
    ``next_functions``, nor in what calling the node returns."""
    t, w = T.ones(3, requires_grad=True), T.full((3,), 0.5)
    y = call(t, w)
    assert type(y.grad_fn).__name__ == node and y.grad_fn.name() == node
    assert len(y.grad_fn.next_functions) == slots
    out = y.grad_fn(T.ones(y.shape))
    assert len(out) == slots if isinstance(out, tuple) else slots == 1
    seen = []
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(len(grad_inputs)))
    T.autograd.grad(y.sum(), t)
    assert seen == [slots]      # post hooks see the slots of next_functions


@pytest.mark.parametrize("call,node,slots", [
    (lambda T, a: (a * 1).fill_(2.), "FillBackward2", 1),
    (lambda T, a: (a * 1).fill_(T.tensor(2.)), "FillBackward3", 2),
    (lambda T, a: T.fill(a, 2.), "FillBackward0", 1),
    (lambda T, a: T.fill(a, T.tensor(2., requires_grad=True)), "FillBackward1", 2),
    (lambda T, a: (a * 1).zero_(), "ZeroBackward0", 1),
], ids=["fill_-number", "fill_-tensor", "fill-number", "fill-tensor", "zero_"])
def test_fill_overloads_have_pytorchs_node_names(T, call, node, slots):
    a = T.ones(3, requires_grad=True)
    y = call(T, a)
    assert type(y.grad_fn).__name__ == node and len(y.grad_fn.next_functions) == slots
    (g,) = T.autograd.grad(y.sum(), a)
    assert g.tolist() == [0.0, 0.0, 0.0]


def test_a_leaf_frozen_after_the_forward_takes_no_grad(T):
    # PyTorch's AccumulateGrad returns early for a variable that no longer
    # requires grad: its .grad stays as it was and an optimizer leaves it alone
    # (it used to accumulate, and SGD then moved a frozen parameter)
    w = T.nn.Parameter(T.tensor([1.0, 2.0]))
    b = T.nn.Parameter(T.tensor([0.5]))
    opt = T.optim.SGD([w, b], lr=0.1)
    loss = (w * 3).sum() + b.sum()
    w.requires_grad_(False)
    loss.backward()
    opt.step()
    assert w.grad is None and w.tolist() == [1.0, 2.0]
    assert b.grad.tolist() == [1.0]
    # its tensor hooks still see the gradient (they run before the node)
    seen = []
    x = T.tensor([3.0], requires_grad=True)
    x.register_hook(lambda g: seen.append(g.tolist()))
    z = (x * 2).sum()
    x.requires_grad_(False)
    z.backward()
    assert seen == [[2.0]] and x.grad is None
