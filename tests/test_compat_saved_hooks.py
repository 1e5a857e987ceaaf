"""Saved-tensor hooks and double backward: what an unpack hook gives back takes
the saved tensor's place in the graph (PyTorch's SavedVariable), so second
derivatives through hooks, ``save_on_cpu`` and checkpointing are the ones
computed without them.  The oracle is the same program without hooks (and
torch, when installed, through the ``T`` fixture)."""
import pytest

from conftest import exact, lst


def _cube(T):
    class Cube(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a ** 3

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return 3 * a ** 2 * g
    return Cube


def _copy_hooks(T):
    return T.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t)


PROGRAMS = {   # name -> f(T, x, hooked): a scalar
    "op saves a non-leaf": lambda T, x, h: _with(h, _copy_hooks(T), lambda: ((1 + x) ** 3).sum()),
    "op saves a leaf": lambda T, x, h: _with(h, _copy_hooks(T), lambda: (x ** 3 * x.sin()).sum()),
    "op saves its result": lambda T, x, h: _with(h, _copy_hooks(T), lambda: (x * 2).exp().sum()),
    "save_on_cpu": lambda T, x, h: _with(h, T.autograd.graph.save_on_cpu(),
                                         lambda: ((x * 2).exp() * (x * 2)).sum()),
    "checkpoint": lambda T, x, h: (T.utils.checkpoint.checkpoint(
        lambda t: (t.exp() * t).sum(), x * 2, use_reentrant=False) if h
        else ((x * 2).exp() * (x * 2)).sum()),
    "custom Function": lambda T, x, h: _with(h, _copy_hooks(T),
                                             lambda: _cube(T).apply(x * 2).sum()),
}


def _with(hooked, ctx, f):
    if not hooked:
        return f()
    with ctx:
        return f()


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_second_derivatives_through_saved_tensor_hooks(T, name):
    f = PROGRAMS[name]
    got = []
    for hooked in (False, True):
        x = T.tensor([0.5, -1.0, 2.0], dtype=T.float64, requires_grad=True)
        g, = T.autograd.grad(f(T, x, hooked), x, create_graph=True)
        g.sum().backward()
        got.append((lst(g), lst(x.grad)))
    (g0, h0), (g1, h1) = got
    assert g1 == pytest.approx(g0, rel=1e-12, abs=1e-12)
    assert h1 == pytest.approx(h0, rel=1e-12, abs=1e-12)


def test_raw_hooks_keep_the_saved_input_in_the_graph(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    a = 1 + x
    y = a ** 3
    y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 2, lambda t: t / 2)
    assert y.grad_fn._saved_self.grad_fn is a.grad_fn
    g, = T.autograd.grad(y.sum(), x, create_graph=True)
    g.sum().backward()
    assert lst(g) == [12.0, 27.0] and lst(x.grad) == [12.0, 18.0]
    y = (1 + x) * (1 + x)
    y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: 1)
    with pytest.raises(TypeError, match=exact("Output of saved tensor unpack_hook expected to be a "
                                              "Tensor but got result of type int")):
        y.grad_fn._saved_self


def test_saved_result_shares_the_output_version(T):
    a = T.rand(2, requires_grad=True)
    b = a.exp()
    saved = b.grad_fn._saved_result
    assert lst(saved) == lst(b) and saved._version == b._version
    with T.no_grad():
        b += 1
    assert lst(saved) == lst(b) and saved._version == b._version


def test_the_saved_tensors_place_is_the_one_it_had_when_saved(T):
    # b is written in place after being saved: its history moves on (SinBackward), the
    # saved value's stays where it was (CloneBackward), as PyTorch's SavedVariable keeps it
    with T.autograd.graph.allow_mutation_on_saved_tensors():
        a = T.tensor([[0.5, 1.0, 2.0]], requires_grad=True)
        b = a.clone()
        out = (b ** 2).sum()
        b.sin_()
        da, = T.autograd.grad(out, a, create_graph=True)
        d2a, = T.autograd.grad(da.sum(), a)
    assert lst(da) == [[1.0, 2.0, 4.0]] and lst(d2a) == [[2.0, 2.0, 2.0]]


def _max_then_write(T, hooks):
    """max(dim)'s indices are a saved output of a multi-output op: written in
    place after the forward, then backward."""
    x = T.tensor([[1.0, 5.0, 2.0], [7.0, 3.0, 4.0]], dtype=T.float64, requires_grad=True)
    with hooks:
        v, i = (x * 1).max(1)
    y = (v * v).sum()
    i.zero_()                       # the saved output changes
    return x, y


def test_multi_output_ops_saved_outputs_go_through_the_hooks(T):
    packed = []

    def pack(t):
        packed.append((tuple(t.shape), str(t.dtype)))
        return t.detach().clone()   # a copy: the later write cannot reach it
    x, y = _max_then_write(T, T.autograd.graph.saved_tensors_hooks(pack, lambda t: t))
    assert ((2,), str(T.int64)) in packed      # max's saved indices, packed like any tensor
    y.backward()
    assert sum(lst(x.grad), []) == [0, 10, 0, 14, 0, 0]


def test_multi_output_ops_saved_outputs_still_version_checked():
    # tensorplay only: with hooks, PyTorch skips the version check and computes
    # with the modified indices (a silently wrong gradient); tensorplay checks
    # whenever what the hook gives back still shares the saved memory
    import tensorplay as T
    hooks = T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)   # no copy
    x, y = _max_then_write(T, hooks)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


@pytest.mark.parametrize("fn", [
    lambda T, x: (x * 2).sin() * (x * 2),              # the pointwise fast path, then sin
    lambda T, x: x.cumprod(0) * x.max(),               # general ops (unchecked without hooks)
    lambda T, x: T.cat([x, x * 2]).sin(),              # a variadic op
], ids=["pointwise", "general", "variadic"])
def test_unpack_hook_of_another_dtype_does_not_leak_into_gradients(T, fn):
    """An unpack hook may give back a float64 copy of a float32 saved value: every
    gradient still arrives in its input's dtype (PyTorch's validate_outputs)."""
    x = T.tensor([0.5, 1.5, 2.5], requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: t.double(), lambda t: t):
        h = x * 1
        h.retain_grad()
        seen = []
        h.register_hook(lambda g: seen.append(g.dtype))
        y = fn(T, h).sum()
    g, = T.autograd.grad(y, x, retain_graph=True)
    assert g.dtype == T.float32 and seen == [T.float32]
    y.backward()
    assert x.grad.dtype == T.float32 and h.grad.dtype == T.float32
