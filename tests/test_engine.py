"""backward / autograd.grad semantics, checked against PyTorch's.

Tests taking ``T`` run the same code on tensorplay and (when installed) torch."""
import gc
import sys
import threading
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


# ------------------------------------------------------------------ accumulation
def test_backward_accumulates_across_calls(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    assert lst(x.grad) == [2., 4.]
    y.backward()
    assert lst(x.grad) == [4., 8.]
    (x * 3).sum().backward()         # a separate graph adds too
    assert lst(x.grad) == [7., 11.]
    x.grad = None
    (x * 3).sum().backward()
    assert lst(x.grad) == [3., 3.]


def test_accumulation_does_not_alias_previous_grad(T):
    x = T.tensor([1., 2.], requires_grad=True)
    x.sum().backward()
    first = x.grad
    kept = first.clone()
    g = T.tensor([5., 5.])
    x.grad = None
    x.backward(g)
    x.backward(g)           # accumulating must not write into g
    assert lst(g) == [5., 5.]
    assert lst(x.grad) == [10., 10.]
    assert lst(first) == lst(kept)


def test_zeroing_grad_then_backward(T):
    x = T.tensor([1., 2.], requires_grad=True)
    (x * 2).sum().backward()
    x.grad.zero_() if hasattr(x.grad, "zero_") else None
    (x * 2).sum().backward()
    assert lst(x.grad) in ([2., 2.], [4., 4.])


def test_grad_does_not_touch_dot_grad(T):
    x = T.tensor([1., 2.], requires_grad=True)
    (g,) = T.autograd.grad((x * x).sum(), x)
    assert lst(g) == [2., 4.]
    assert x.grad is None
    x.grad = T.tensor([7., 7.])
    (g,) = T.autograd.grad((x * x).sum(), [x])
    assert lst(x.grad) == [7., 7.]


def test_grad_returns_new_tensor_not_requiring_grad(T):
    x = T.tensor([1., 2.], requires_grad=True)
    (g,) = T.autograd.grad((x * 3).sum(), x)
    assert not g.requires_grad and g.grad_fn is None


# ------------------------------------------------------------------ retain_graph
def test_second_backward_without_retain_graph_raises(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=_exact(FREED)):
        y.backward()


def test_grad_then_backward_raises(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    T.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match=_exact(FREED)):
        y.backward()


def test_retain_graph_allows_repeat(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    for _ in range(3):
        (g,) = T.autograd.grad(y, x, retain_graph=True)
        assert lst(g) == [2., 4.]
    y.backward(retain_graph=True)
    y.backward()
    assert lst(x.grad) == [4., 8.]


def test_nodes_that_saved_nothing_may_run_twice(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = (x + 1).sum()
    y.backward()
    y.backward()
    assert lst(x.grad) == [2., 2.]


def test_create_graph_implies_retain_graph(T):
    x = T.tensor(2., requires_grad=True)
    y = x * x * x
    (g,) = T.autograd.grad(y, x, create_graph=True)
    (g2,) = T.autograd.grad(y, x)
    assert g.item() == g2.item() == 12.


# ------------------------------------------------------------------ seeds and argument errors
@pytest.mark.parametrize("shape", [(3,), (2, 2)])
def test_implicit_seed_only_for_scalars(T, shape):
    x = T.ones(shape, requires_grad=True)
    msg = "grad can be implicitly created only for scalar outputs"
    with pytest.raises(RuntimeError, match=_exact(msg)):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match=_exact(msg)):
        T.autograd.grad(x * 2, x)


@pytest.mark.parametrize("shape", [(), (1,), (1, 1)])
def test_implicit_seed_for_one_element(T, shape):
    x = T.ones(shape, requires_grad=True)
    (x * 3).backward()
    assert x.grad.shape == x.shape and x.grad.dtype == x.dtype
    assert lst(x.grad.reshape(())) == 3.


def test_implicit_seed_not_for_complex(T):
    z = T.tensor(1 + 1j, requires_grad=True)
    with pytest.raises(RuntimeError, match=_exact(
            "grad can be implicitly created only for real scalar outputs but got "
            f"{T.__name__}.complex64")):
        (z * 2).backward()


def test_backward_of_tensor_not_requiring_grad(T):
    with pytest.raises(RuntimeError, match=_exact(
            "element 0 of tensors does not require grad and does not have a grad_fn")):
        T.tensor([1.]).backward()
    x = T.tensor(1., requires_grad=True)
    with pytest.raises(RuntimeError, match=_exact(
            "element 1 of tensors does not require grad and does not have a grad_fn")):
        T.autograd.backward([x * 2, T.tensor(1.)])
    with pytest.raises(RuntimeError, match=_exact(
            "element 0 of tensors does not require grad and does not have a grad_fn")):
        T.autograd.grad(T.tensor(1.), x)
    with T.no_grad():
        y = x * 2
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        y.backward()


def test_wrong_shape_gradient(T):
    x = T.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        (x * 2).backward(T.ones(2))
    want = ("Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has a "
            "shape of torch.Size([3]).")
    assert str(info.value) in (want, want.replace("torch.Size", "tensorplay.Size"))
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\]"):
        T.autograd.backward([x * 2, x.sum()], [T.ones(2), T.ones(())])
    with pytest.raises(RuntimeError, match=_exact("got 2 tensors and 1 gradients")):
        T.autograd.grad([x.sum(), x * 2], x, [T.ones(())])


def test_gradient_dtype_cast_to_output(T):
    x = T.ones(3, requires_grad=True)
    (x * 2).backward(T.ones(3, dtype=T.float64))
    assert x.grad.dtype == T.float32
    assert lst(x.grad) == [2., 2., 2.]


def test_complex_gradient_for_real_output(T):
    x = T.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=_exact(
            "For complex Tensors, both grad_output and output are required to have the same dtype. "
            f"Mismatch in dtype: grad_output[0] has a dtype of {T.__name__}.complex64 and output[0] "
            f"has a dtype of {T.__name__}.float32.")):
        (x * 2).backward(T.ones(3, dtype=T.complex64))


def test_empty_inputs(T):
    x = T.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=_exact("`inputs` argument to `backward()` cannot be empty.")):
        (x * x).sum().backward(inputs=[])
    with pytest.raises(RuntimeError, match=_exact("`inputs` argument to `grad()` cannot be empty.")):
        T.autograd.grad((x * x).sum(), [])


def test_grad_input_not_requiring_grad(T):
    x = T.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=_exact("One of the differentiated Tensors does not require grad")):
        T.autograd.grad(x.sum(), T.ones(2))


def test_backward_input_not_requiring_grad(T):
    x = T.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=_exact("can't retain_grad on Tensor that has requires_grad=False")):
        (x * 2).sum().backward(inputs=[T.ones(2)])


# ------------------------------------------------------------------ inputs=
def test_inputs_restricts_accumulation_to_leaves(T):
    a = T.tensor([1., 2.], requires_grad=True)
    b = T.tensor([3., 4.], requires_grad=True)
    y = (a * b).sum()
    y.backward(inputs=[a], retain_graph=True)
    assert lst(a.grad) == [3., 4.]
    assert b.grad is None
    y.backward(inputs=b)
    assert lst(b.grad) == [1., 2.]
    assert lst(a.grad) == [3., 4.]


def test_inputs_with_autograd_backward(T):
    a = T.tensor([1., 2.], requires_grad=True)
    b = T.tensor([3., 4.], requires_grad=True)
    T.autograd.backward([(a * b).sum()], inputs=(a, b))
    assert lst(a.grad) == [3., 4.] and lst(b.grad) == [1., 2.]


def test_inputs_non_leaf_accumulates_into_its_own_grad(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 2
    z = (y * y).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z.backward(inputs=[y], retain_graph=True)
        assert lst(y.grad) == [4., 8.]           # no non-leaf warning: it retains grad now
    assert y.retains_grad
    assert x.grad is None
    z.backward(inputs=[y, x])
    assert lst(y.grad) == [8., 16.]
    assert lst(x.grad) == [8., 16.]


def test_inputs_unreached_leaf_is_left_alone(T):
    a = T.tensor([1.], requires_grad=True)
    u = T.tensor([1.], requires_grad=True)
    (a * 2).sum().backward(inputs=[a, u])
    assert lst(a.grad) == [2.]
    assert u.grad is None


@pytest.mark.parametrize("reached", [True, False])
def test_root_that_leads_to_no_input_fires_nothing(T, reached):
    """An output given to grad()/backward(inputs=) that leads to none of the inputs
    does not run: its tensor hooks do not fire and a retained grad stays None,
    whether or not another root's graph reaches it (a root that does lead to an
    input retains its grad)."""
    x = T.tensor([1., 2.], requires_grad=True)
    w = T.tensor([3., 4.], requires_grad=True)
    r2 = w * 2
    r1 = x * r2 if reached else x * 3
    seen = []
    r2.retain_grad()
    r2.register_hook(lambda g: seen.append("r2"))
    r1.retain_grad()
    (g,) = T.autograd.grad([r1, r2], [x], [T.ones(2), T.ones(2)], retain_graph=True)
    assert lst(g) == ([6., 8.] if reached else [3., 3.])
    assert r2.grad is None and seen == []
    assert lst(r1.grad) == [1., 1.]
    T.autograd.backward([r1, r2], [T.ones(2), T.ones(2)], inputs=[x])
    assert r2.grad is None and seen == [] and w.grad is None
    assert lst(x.grad) == ([6., 8.] if reached else [3., 3.])


@pytest.mark.parametrize("leaf", [False, True])
def test_single_root_that_leads_to_no_input_fires_its_tensor_hooks(T, leaf):
    """A single root edge is visited even when it leads to no input: its tensor
    hooks fire and a retained grad is filled (PyTorch queues the root itself), but
    its node does not run; given twice, it is skipped as one of several roots."""
    x = T.tensor([1., 2.], requires_grad=True)
    w = T.tensor([3., 4.], requires_grad=True)
    r = w if leaf else w * 2
    seen = []
    if not leaf:
        r.retain_grad()
        r.grad_fn.register_prehook(lambda g: seen.append("node"))
    r.register_hook(lambda g: seen.append("tensor"))
    (g,) = T.autograd.grad(r, x, T.ones(2), allow_unused=True, retain_graph=True)
    assert g is None and seen == ["tensor"]
    if not leaf:
        assert lst(r.grad) == [1., 1.]
    T.autograd.grad([r, r], x, [T.ones(2), T.ones(2)], allow_unused=True)
    assert seen == ["tensor"]


# ------------------------------------------------------------------ allow_unused, materialize_grads
def test_allow_unused(T):
    x = T.tensor([1., 2.], requires_grad=True)
    u = T.tensor([3.], requires_grad=True)
    y = (x * x).sum()
    with pytest.raises(RuntimeError, match=_exact(
            "The differentiated Tensor at index 1 appears to not have been used in the graph. "
            "Set allow_unused=True if this is the desired behavior.")):
        T.autograd.grad(y, [x, u], retain_graph=True)
    gx, gu = T.autograd.grad(y, [x, u], allow_unused=True, retain_graph=True)
    assert lst(gx) == [2., 4.] and gu is None
    gx, gu = T.autograd.grad(y, [x, u], materialize_grads=True, retain_graph=True)
    assert lst(gu) == [0.] and gu.dtype == u.dtype and gu.shape == u.shape
    gx, gu = T.autograd.grad(y, [x, u], allow_unused=True, materialize_grads=True)
    assert lst(gu) == [0.]


def test_materialize_grads_with_allow_unused_false(T):
    x = T.tensor([1.], requires_grad=True)
    with pytest.raises(ValueError, match=_exact(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False.")):
        T.autograd.grad(x * 2, x, T.ones(1), allow_unused=False, materialize_grads=True)


def test_unused_because_of_no_grad_branch(T):
    x = T.tensor(1., requires_grad=True)
    w = T.tensor(1., requires_grad=True)
    with T.no_grad():
        c = w * 2
    (gw,) = T.autograd.grad(x * c, w, allow_unused=True)
    assert gw is None


# ------------------------------------------------------------------ higher order
def _f(T, x):
    return (x ** 3 * T.sin(x) + T.exp(x * 0.5)).sum()


@pytest.mark.parametrize("use_backward", [False, True])
def test_second_and_third_derivatives_match_torch(torch_or_skip, use_backward):
    vals = [0.3, -1.2, 2.0]
    res = {}
    for T in (tp, torch_or_skip):
        x = T.tensor(vals, dtype=T.float64, requires_grad=True)
        y = _f(T, x)
        (g1,) = T.autograd.grad(y, x, create_graph=True)
        assert g1.requires_grad and g1.grad_fn is not None
        (g2,) = T.autograd.grad(g1.sum(), x, create_graph=True)
        if use_backward:
            g2.sum().backward()
            g3 = x.grad
        else:
            (g3,) = T.autograd.grad(g2.sum(), x)
        res[T.__name__] = [lst(g) for g in (g1, g2, g3)]
    for a, b in zip(res["tensorplay"], res["torch"]):
        assert_close(a, b, atol=1e-10, rtol=1e-10)


def test_backward_create_graph_grad_is_differentiable(T):
    x = T.tensor([1., 2.], dtype=T.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # torch warns about a reference cycle here
        (x ** 3).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    (g2,) = T.autograd.grad(x.grad.sum(), x)
    assert lst(g2) == [6., 12.]


def test_hessian_vector_product_mixed(T):
    x = T.tensor([1., 2.], dtype=T.float64, requires_grad=True)
    w = T.tensor([3., 4.], dtype=T.float64, requires_grad=True)
    y = (x * x * w).sum()
    gx, = T.autograd.grad(y, x, create_graph=True)      # 2 x w
    gw, = T.autograd.grad(gx.sum(), w)                   # 2 x
    assert lst(gw) == [2., 4.]


# ------------------------------------------------------------------ graph shapes
def test_multiple_outputs_with_grad_tensors(T):
    x = T.tensor([1., 2., 3.], requires_grad=True)
    a = x * 2
    b = x * x
    T.autograd.backward([a, b], [T.tensor([1., 1., 1.]), T.tensor([0.5, 0., 1.])])
    assert lst(x.grad) == [3., 2., 8.]
    ga, = T.autograd.grad([(x * 2).sum(), x * x], x, [None, T.ones(3)])
    assert lst(ga) == [4., 6., 8.]


def test_grad_tensors_python_scalar_for_scalar_output(T):
    x = T.tensor(2., requires_grad=True)
    T.autograd.backward(x * x, grad_tensors=T.tensor(3.))
    assert x.grad.item() == 12.


def test_same_output_twice(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    T.autograd.backward([y, y])
    assert lst(x.grad) == [4., 8.]


def test_diamond_graph(T):
    x = T.tensor([1., 2.], requires_grad=True)
    a = x * 2
    b = T.sin(a)
    c = T.cos(a)
    d = (b * c).sum()
    d.backward()
    xx = np.array([1., 2.])
    want = 2 * np.cos(4 * xx)        # d/dx sin(2x)cos(2x) = d/dx sin(4x)/2
    assert_close(lst(x.grad), want)


def test_deep_diamond_counts_each_path(T):
    x = T.tensor(1., requires_grad=True)
    y = x
    for _ in range(20):
        y = y + y          # 2**20 paths
    y.backward()
    assert x.grad.item() == 2 ** 20


def test_tensor_used_twice(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = (x * x + x).sum()
    y.backward()
    assert lst(x.grad) == [3., 5.]


def test_broadcasting_gradients_reduced(T):
    a = T.ones((3, 1), requires_grad=True)
    b = T.tensor([1., 2., 3., 4.], requires_grad=True)
    s = T.tensor(2., requires_grad=True)
    y = (a * b + s).sum()
    y.backward()
    assert a.grad.shape == (3, 1) and lst(a.grad) == [[10.], [10.], [10.]]
    assert b.grad.shape == (4,) and lst(b.grad) == [3., 3., 3., 3.]
    assert s.grad.shape == () and s.grad.item() == 12.


def test_broadcast_size_one_dims(T):
    a = T.ones((1, 2, 1), requires_grad=True)
    b = T.ones((3, 1, 4), requires_grad=True)
    (a * b).sum().backward()
    assert tuple(a.grad.shape) == (1, 2, 1) and lst(a.grad) == [[[12.], [12.]]]
    assert tuple(b.grad.shape) == (3, 1, 4) and lst(b.grad.reshape(-1)) == [2.] * 12


GRAD_DTYPES = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("name", GRAD_DTYPES)
def test_grad_dtype_equals_input_dtype(T, name):
    dt = getattr(T, name)
    x = T.ones(3, dtype=dt, requires_grad=True)
    y = x * x
    if name.startswith("complex"):
        y = y.real
    y.sum().backward()
    assert x.grad.dtype == dt
    assert lst(x.grad.real) == [2., 2., 2.]


@pytest.mark.parametrize("other", ["float16", "float64", "complex128"])
def test_grad_dtype_with_promotion(T, other):
    x = T.ones(2, dtype=T.float32, requires_grad=True)
    w = T.ones(2, dtype=getattr(T, other), requires_grad=True)
    y = x * w
    if other.startswith("complex"):
        y = y.real
    y.sum().backward()
    assert x.grad.dtype == T.float32
    assert w.grad.dtype == getattr(T, other)


def test_grad_dtype_via_autograd_grad(T):
    x = T.ones(2, dtype=T.float16, requires_grad=True)
    (g,) = T.autograd.grad((x * T.ones(2, dtype=T.float64)).sum(), x)
    assert g.dtype == T.float16


# ------------------------------------------------------------------ deep graphs
def test_million_op_chain_backward_and_delete():
    x0 = tp.tensor(1.5, requires_grad=True)
    x = x0
    for _ in range(1_000_000):
        x = x * 1.0
    x.backward()
    assert x0.grad.item() == 1.0
    del x
    gc.collect()


def test_deep_graph_deleted_without_backward():
    x0 = tp.tensor(1., requires_grad=True)
    x = x0
    for _ in range(200_000):
        x = x + 1.0
    del x
    gc.collect()
    y = x0 * 2
    y.backward()
    assert x0.grad.item() == 2.


def test_deep_graph_retain_graph_and_grad():
    x0 = tp.tensor(2., requires_grad=True)
    x = x0
    for _ in range(100_000):
        x = x * 1.0
    (g,) = tp.autograd.grad(x, x0, retain_graph=True)
    assert g.item() == 1.0
    x.backward()
    assert x0.grad.item() == 1.0
    del x, g


class _FakeNode:
    def __init__(self):
        self.next_edges = ()


def _random_dag(rng, n):
    """Nodes 0..n-1 with edges only to higher numbers (None edges among them)."""
    nodes = [_FakeNode() for _ in range(n)]
    for i, node in enumerate(nodes):
        later = range(i + 1, n)
        k = int(rng.integers(0, 4)) if later else 0
        edges = [(nodes[int(rng.choice(later))], 0) if later and rng.random() < 0.85 else None
                 for _ in range(k)]
        node.next_edges = tuple(edges)
    return nodes


def test_discovery_shortcut_agrees_with_the_full_pass():
    """When every sink reached is a target, ``_discover`` finds what needs to run in
    its counting pass; the depth-first pass (``_discover_pruned``) must agree, on
    graphs with shared nodes, None edges, interior targets and several roots."""
    from tensorplay._autograd import engine as E
    rng = np.random.default_rng(7)
    shortcut = 0
    for trial in range(300):
        nodes = _random_dag(rng, int(rng.integers(3, 30)))
        roots = list(dict.fromkeys(nodes[int(i)] for i in rng.integers(0, 3, size=2)))
        reach, stack = set(roots), list(roots)
        while stack:
            for e in stack.pop().next_edges:
                if e is not None and e[0] not in reach:
                    reach.add(e[0])
                    stack.append(e[0])
        sinks = {n for n in reach if all(e is None for e in n.next_edges)}
        targets = set(n for n in reach if rng.random() < 0.15)
        if trial % 2:
            targets |= sinks                # the shortcut's case
        if not targets:
            continue
        deps, needed, pruned = E._discover(roots, targets)
        want_deps, want_needed, _ = E._discover_pruned(roots, targets)
        assert deps == want_deps and {n for n in reach if n in needed} == want_needed
        assert pruned == (not sinks <= targets)     # the one pass declines exactly then
        shortcut += sinks <= targets
    assert shortcut > 100


def test_grad_of_leaves_on_the_plain_loop_matches_the_general_loop(monkeypatch):
    """``autograd.grad`` of hook-free leaves runs the plain loop (each target awaits
    one gradient more and never runs); an identity hook on a target sends the same
    call through the general loop, which must give the same gradients."""
    from tensorplay._autograd import engine as E
    taken = []
    plain = E._run_all
    monkeypatch.setattr(E, "_run_all", lambda *a: (taken.append("plain"), plain(*a))[1])
    rng = np.random.default_rng(7)
    n_plain = 0
    for trial in range(40):
        leaves = [tp.tensor(rng.standard_normal(3), requires_grad=True) for _ in range(3)]
        vals = list(leaves)
        for _ in range(int(rng.integers(3, 9))):     # random sums, products, reuse
            a, b = (vals[int(i)] for i in rng.integers(0, len(vals), size=2))
            vals.append([a * b, a + b, (a * b).tanh(), a.sin() * 2.0][int(rng.integers(0, 4))])
        out = vals[-1].sum() + vals[int(rng.integers(3, len(vals)))].sum()
        want = [i for i in range(3) if rng.random() < 0.7] or [0]
        inputs = [leaves[i] for i in want]
        every = tp.autograd.grad(out, leaves, retain_graph=True, allow_unused=True)
        reached = {i for i in range(3) if every[i] is not None}
        del taken[:]
        fast = tp.autograd.grad(out, inputs, retain_graph=True, allow_unused=True)
        # (a reached leaf that is not asked for is a sink that is not a target: the
        # general loop, which leaves out what leads only there)
        assert taken == (["plain"] if reached <= set(want) else [])
        n_plain += reached <= set(want)
        handles = [x.register_hook(lambda g: g) for x in inputs]
        del taken[:]
        slow = tp.autograd.grad(out, inputs, allow_unused=True)
        assert taken == []
        for h in handles:
            h.remove()
        for f, s_ in zip(fast, slow):
            assert (f is None) == (s_ is None)
            if f is not None:
                assert np.array_equal(f.numpy(), s_.numpy())
    assert 10 <= n_plain <= 30, n_plain            # both loops were compared, often


# ------------------------------------------------------------------ hooks
def test_register_hook_replaces_gradient_and_remove(T):
    x = T.tensor([1., 2.], requires_grad=True)
    calls = []

    def hook(g):
        calls.append(lst(g))
        return g * 10

    h = x.register_hook(hook)
    (x * 1).sum().backward()
    assert lst(x.grad) == [10., 10.]
    assert calls == [[1., 1.]]
    h.remove()
    (x * 1).sum().backward()
    assert lst(x.grad) == [11., 11.]
    assert len(calls) == 1


def test_leaf_hook_also_applies_to_autograd_grad(T):
    x = T.tensor([1., 2.], requires_grad=True)
    x.register_hook(lambda g: g * 10)
    (g,) = T.autograd.grad((x * 1).sum(), x)
    assert lst(g) == [10., 10.]


def test_hook_returning_none_keeps_gradient(T):
    x = T.tensor([1., 2.], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(lst(g)))
    (x * 3).sum().backward()
    assert seen == [[3., 3.]]
    assert lst(x.grad) == [3., 3.]


def test_non_leaf_hook_changes_downstream(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 2
    h = y.register_hook(lambda g: g + 1)
    (y * 3).sum().backward()
    assert lst(x.grad) == [8., 8.]
    h.remove()
    y2 = x * 2
    y2.sum().backward()
    assert lst(x.grad) == [10., 10.]


def test_hooks_run_in_registration_order(T):
    x = T.tensor([1.], requires_grad=True)
    y = x * 1
    order = []
    y.register_hook(lambda g: order.append("a") or g * 2)
    y.register_hook(lambda g: order.append("b") or g + 1)
    y.sum().backward()
    assert order == ["a", "b"]
    assert lst(x.grad) == [3.]


def test_hook_on_tensor_not_requiring_grad(T):
    with pytest.raises(RuntimeError, match=_exact(
            "cannot register a hook on a tensor that doesn't require gradient")):
        T.ones(2).register_hook(lambda g: g)


def test_hook_changing_size(T):
    x = T.ones(2, requires_grad=True)
    y = x * 2

    def bad_hook(g):
        return T.ones(3)
    y.register_hook(bad_hook)
    with pytest.raises(RuntimeError, match=_exact("hook 'bad_hook' has changed the size of value")):
        y.sum().backward()


def test_hook_returning_non_tensor(T):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: 1)
    with pytest.raises(TypeError, match=_exact("expected Variable, but hook returned 'int'")):
        y.sum().backward()


def test_hook_handle_context_manager(T):
    x = T.ones(1, requires_grad=True)
    with x.register_hook(lambda g: g * 5):
        (x * 1).sum().backward()
    (x * 1).sum().backward()
    assert lst(x.grad) == [6.]


def test_retain_grad(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 2
    assert not y.retains_grad and not x.retains_grad
    y.retain_grad()
    y.retain_grad()            # idempotent
    assert y.retains_grad
    x.retain_grad()            # no-op on a leaf
    assert not x.retains_grad
    (y * y).sum().backward(retain_graph=True)
    assert lst(y.grad) == [4., 8.]
    assert not y.grad.requires_grad
    (y * y).sum().backward()
    assert lst(y.grad) == [8., 16.]


def test_retain_grad_sees_hooked_gradient(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g * 100)       # registered after retain_grad, still applied first
    y.sum().backward()
    assert lst(y.grad) == [100., 100.]
    assert lst(x.grad) == [200., 200.]


def test_retain_grad_populated_by_autograd_grad(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.retain_grad()
    T.autograd.grad((y * y).sum(), x)
    assert lst(y.grad) == [4., 8.]


def test_retain_grad_requires_grad(T):
    with pytest.raises(RuntimeError, match=_exact(
            "can't retain_grad on Tensor that has requires_grad=False")):
        T.ones(2).retain_grad()


def test_non_leaf_grad_access_warns(T):
    x = T.tensor([1.], requires_grad=True)
    y = x * 2
    with pytest.warns(UserWarning, match="The .grad attribute of a Tensor that is not a leaf Tensor "
                                         "is being accessed") as rec:
        assert y.grad is None
    assert "retain_grad()" in str(rec[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.grad is None             # leaves don't warn
        y.retain_grad()
        assert y.grad is None             # retaining non-leaves don't warn


def test_post_accumulate_grad_hook(T):
    x = T.tensor([1., 2.], requires_grad=True)
    seen = []
    h = x.register_post_accumulate_grad_hook(lambda t: seen.append(lst(t.grad)))
    (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert seen == [[2., 2.], [4., 4.]]
    h.remove()
    (x * 2).sum().backward()
    assert len(seen) == 2


# ------------------------------------------------------------------ threads
def test_thread_sees_grad_enabled_while_main_in_no_grad(T):
    out = {}

    def worker():
        x = T.tensor([1., 2.], requires_grad=True)
        y = (x * x).sum()
        out["enabled"] = T.is_grad_enabled()
        out["rg"] = y.requires_grad
        y.backward()
        out["grad"] = lst(x.grad)

    with T.no_grad():
        th = threading.Thread(target=worker)
        th.start()
        th.join(30)
        assert not T.is_grad_enabled()
    assert out == {"enabled": True, "rg": True, "grad": [2., 4.]}


def test_backward_in_threads_independently(T):
    errors = []

    def worker(k):
        try:
            x = T.tensor([float(k)], requires_grad=True)
            for _ in range(50):
                (x * x).sum().backward()
            assert lst(x.grad) == [100. * k]
        except Exception as e:       # pragma: no cover - reported below
            errors.append(e)

    ths = [threading.Thread(target=worker, args=(k,)) for k in range(1, 4)]
    for t in ths:
        t.start()
    for t in ths:
        t.join(60)
    assert not errors


# ------------------------------------------------------------------ legacy Variable
def test_variable_is_a_tensor_sharing_data():
    base = tp.tensor([1., 2.])
    v = tp.autograd.Variable(base, requires_grad=True)
    assert isinstance(v, tp.Tensor) and v.requires_grad and v.is_leaf
    (v * v).sum().backward()
    assert v.grad.tolist() == [2., 4.]
    v.detach().add_(1)
    assert base.tolist() == [2., 3.]
    with pytest.raises(TypeError):
        tp.autograd.Variable([1., 2.])


# ---------------------------------------------------------------- .grad never aliases another tensor
def test_grads_of_two_leaves_from_one_gradient_do_not_alias(T):
    x = T.ones(3, requires_grad=True)
    y = T.ones(3, requires_grad=True)
    w = T.tensor([1., 2., 3.])
    ((x + y) * w).sum().backward()          # add passes one gradient to both leaves
    x.grad.zero_()
    assert lst(y.grad) == [1., 2., 3.]
    ((x + y) * w).sum().backward()
    assert lst(x.grad) == [1., 2., 3.] and lst(y.grad) == [2., 4., 6.]


def test_grad_does_not_alias_the_users_seed(T):
    x = T.ones(3, requires_grad=True)
    v = T.ones(3)
    (x + 1).backward(v)
    v.mul_(5)
    assert lst(x.grad) == [1., 1., 1.]


def test_create_graph_grads_then_plain_backward_accumulate_correctly(T):
    x = T.ones(3, requires_grad=True)
    y = T.ones(3, requires_grad=True)
    w = T.tensor([1., 2., 3.])
    ((x + y) * w).sum().backward(create_graph=True)
    ((x + y) * w).sum().backward()
    assert lst(x.grad) == [2., 4., 6.] and lst(y.grad) == [2., 4., 6.]
    assert x.grad is not y.grad


def test_leaf_node_is_reused_and_holds_the_leaf_weakly():
    """A leaf keeps its AccumulateGrad (made once, not per graph); the node holds
    the leaf weakly, so a leaf that dies while a graph still reaches it is freed,
    and backward through that graph drops its gradient instead of failing."""
    import gc
    import weakref
    import tensorplay as tp
    x = tp.ones(2, requires_grad=True)
    a1 = (x * 2).grad_fn.next_functions[0][0]
    a2 = (x * 3).grad_fn.next_functions[0][0]
    assert a1 is a2 and a1.variable is x
    y = (x * 2).sum()
    ref = weakref.ref(x)
    del x, a1, a2
    gc.collect()
    assert ref() is None
    y.backward()                    # the gradient has nowhere to go: no error


def test_a_derivative_that_is_not_implemented_fails_only_where_needed():
    """PyTorch computes only the gradients asked for: asking for x's gradient of
    gammainc(a, x) works although a's derivative is not implemented; asking for a's,
    or a backward that reaches a, raises PyTorch's error."""
    import pytest as _pytest
    a = tp.tensor([1.5], dtype=tp.float64, requires_grad=True)
    v = tp.tensor([0.7], dtype=tp.float64, requires_grad=True)
    (gv,) = tp.autograd.grad(tp.special.gammainc(a, v).sum(), v)
    assert abs(gv.item() - 0.46875) < 1e-4      # x^(a-1) e^-x / Gamma(a) at a = 1.5, x = 0.7
    with _pytest.raises(NotImplementedError, match="the derivative for 'igamma: input' is not implemented"):
        tp.autograd.grad(tp.special.gammainc(a, v).sum(), a)
    with _pytest.raises(NotImplementedError, match="igamma: input"):
        tp.special.gammainc(a, v).sum().backward()
    x = tp.tensor([3.0], requires_grad=True)
    with _pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        tp.autograd.grad(((x // 2) + x).sum(), x)
