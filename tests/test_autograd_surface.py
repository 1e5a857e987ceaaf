"""The rest of torch.autograd that real code reads: ``grad_fn._saved_<name>`` and
``_raw_saved_<name>`` (with saved-tensor hooks per tensor), inference tensors,
``allow_mutation_on_saved_tensors``, ``Variable._execution_engine``, the
deprecated ``gradcheck.get_numerical_jacobian`` / ``get_analytical_jacobian``,
and the profiler.  Run on tensorplay and torch alike where the behaviour is
shared (the ``T`` fixture)."""
import importlib
import warnings

import numpy as np
import pytest

import tensorplay as tp
from conftest import exact, lst

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed). Saved intermediate values of the graph are freed "
         "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
         "backward through the graph a second time or if you need to access saved tensors after "
         "calling backward.")


# ------------------------------------------------------------------ grad_fn._saved_<name>
def test_saved_attributes_have_pytorch_names(T):
    x = T.ones(2, 2, requires_grad=True)
    c = T.full((2, 2), 3.0)
    fn = (x * c).grad_fn
    assert fn._saved_self is None and fn._saved_other is c      # only what x's gradient needs
    assert lst((x * 2).grad_fn._saved_other) == 2
    assert np.allclose(lst(x.exp().grad_fn._saved_result), np.e)
    assert x.exp().grad_fn._saved_result.grad_fn is not None
    assert tuple(x.sum().grad_fn._saved_self_sym_sizes) == (2, 2)
    assert (x ** 2.5).grad_fn._saved_exponent == 2.5 and (x ** 2.5).grad_fn._saved_self is x
    assert x.mm(x).grad_fn._saved_mat2 is x and x.mm(x).grad_fn._saved_self is x
    assert x.softmax(1).grad_fn._saved_dim == 1
    assert x.sin().grad_fn._saved_self is x
    with pytest.raises(AttributeError):
        x.exp().grad_fn._saved_self
    assert "_saved_result" in dir(x.exp().grad_fn)


def test_saved_attribute_after_backward_is_freed(T):
    x = T.ones(2, requires_grad=True)
    e = x.exp()
    e.sum().backward()
    with pytest.raises(RuntimeError, match=exact(FREED)):
        e.grad_fn._saved_result


def test_raw_saved_register_hooks(T):
    x = T.ones(2, requires_grad=True)
    e = x.exp()
    seen = []
    e.grad_fn._raw_saved_result.register_hooks(lambda v: seen.append("pack") or v * 1,
                                               lambda v: seen.append("unpack") or v)
    assert seen == ["pack"]
    e.sum().backward()
    assert seen == ["pack", "unpack"]
    assert lst(x.grad) == pytest.approx([2.7182817] * 2)
    with pytest.raises(RuntimeError, match="^Calling register_hooks on a saved tensor after it "
                                           "has been freed"):
        e.grad_fn._raw_saved_result.register_hooks(lambda v: v, lambda v: v)


def test_raw_saved_register_hooks_refusals(T):
    x = T.ones(2, requires_grad=True)
    e = x.exp()
    r = e.grad_fn._raw_saved_result
    r.register_hooks(lambda v: v, lambda v: v)
    with pytest.raises(RuntimeError, match=exact("Calling register_hooks on a saved tensor whose "
                                                 "hooks have already been set. Hint: only one pair "
                                                 "of hooks is allowed at a time.")):
        r.register_hooks(lambda v: v, lambda v: v)
    e.sum().backward()      # (torch 2.13 crashes later if a hooked node is dropped unused)
    with pytest.raises(RuntimeError, match=exact("Calling register_hooks on a saved tensor with "
                                                 "value None is forbidden")):
        (x * T.ones(2)).grad_fn._raw_saved_self.register_hooks(lambda v: v, lambda v: v)


def test_raw_saved_hooks_that_copy_survive_an_inplace_write(T):
    x = T.ones(2, requires_grad=True)
    y = x * 1
    z = y * y
    z.grad_fn._raw_saved_self.register_hooks(lambda v: v.clone(), lambda v: v)
    z.grad_fn._raw_saved_other.register_hooks(lambda v: v.clone(), lambda v: v)
    with T.no_grad():
        y.mul_(10)
    z.sum().backward()
    assert lst(x.grad) == [2.0, 2.0]            # the values saved, not the new ones


def test_saved_tensors_hooks_that_copy_survive_an_inplace_write(T):
    x = T.ones(3, requires_grad=True)
    y = x * 1
    with T.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
        w = y * y
    y.mul_(2)
    w.sum().backward()
    assert lst(x.grad) == [2.0, 2.0, 2.0]


# ------------------------------------------------------------------ allow_mutation_on_saved_tensors
def test_allow_mutation_on_saved_tensors(T):
    with T.autograd.graph.allow_mutation_on_saved_tensors():
        a = T.ones(2, 3, requires_grad=True)
        b = a.clone()
        out = (b ** 2).sum()
        b.sin_()
        out.backward()
    assert lst(a.grad) == [[2.0] * 3] * 2
    assert lst(b)[0][0] == pytest.approx(0.84147098)


def test_allow_mutation_through_views(T):
    with T.autograd.graph.allow_mutation_on_saved_tensors():
        x = T.ones(3, requires_grad=True)
        b = x * 2
        v = b[:2]
        out = (b.exp() * b).sum()
        v.mul_(3)
        b[2] = 5
        out.backward()
    assert lst(x.grad) == pytest.approx([3 * np.exp(2.0) * 2] * 3, rel=1e-6)


def test_allow_mutation_refusals(T):
    with pytest.raises(RuntimeError, match=exact("allow_mutation_on_saved_tensors contexts cannot "
                                                 "be nested")):
        with T.autograd.graph.allow_mutation_on_saved_tensors():
            with T.autograd.graph.allow_mutation_on_saved_tensors():
                pass
    with T.autograd.graph.allow_mutation_on_saved_tensors():
        x = T.ones(3, requires_grad=True)
        out = (x.clone() ** 2).sum()
    with pytest.raises(AssertionError, match="^Trying to backward outside of the "
                                             "'allow_mutation_on_saved_tensors' context"):
        out.backward()
    y = x.clone()                       # and outside the block, the usual error
    out = (y ** 2).sum()
    y.sin_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


# ------------------------------------------------------------------ Variable._execution_engine
def test_execution_engine(T):
    engine = T.autograd.Variable._execution_engine
    x = T.ones(3, requires_grad=True)
    one = T.ones(())
    g = engine.run_backward(((x * 2).sum(),), (one,), False, False, (x,), True, False)
    assert len(g) == 1 and lst(g[0]) == [2.0] * 3 and x.grad is None
    seen = []
    x.register_hook(lambda g: engine.queue_callback(lambda: seen.append("done")))
    engine.run_backward(((x * 3).sum(),), (one,), False, False, (), True, True)
    assert lst(x.grad) == [3.0] * 3 and seen == ["done"]


# ------------------------------------------------------------------ gradcheck's deprecated helpers
def test_get_numerical_and_analytical_jacobian(T):
    gc = importlib.import_module(T.__name__ + ".autograd.gradcheck")
    x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    y = T.tensor([3.0, 4.0, 5.0], dtype=T.float64, requires_grad=True)

    def fn(inp):
        return T.cat([inp[0] * 2, inp[1][:1] * inp[0].sum()])
    want_x = [[2.0, 0.0, 3.0], [0.0, 2.0, 3.0]]
    want_y = [[0.0, 0.0, 3.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    with pytest.warns(FutureWarning, match="get_numerical_jacobian"):
        jx, jy = gc.get_numerical_jacobian(fn, (x, y))
    assert np.allclose(lst(jx), want_x) and np.allclose(lst(jy), want_y, atol=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        jt, = gc.get_numerical_jacobian(fn, (x, y), target=(y,))
        assert np.allclose(lst(jt), want_y, atol=1e-9)
        (ax, ay), reentrant, sizes_ok, types_ok = gc.get_analytical_jacobian((x, y), fn((x, y)))
        assert lst(ax) == want_x and lst(ay) == want_y
        assert reentrant and sizes_ok and types_ok
        with pytest.raises(ValueError, match="^Expected grad_out to be 1.0"):
            gc.get_numerical_jacobian(fn, (x, y), grad_out=2.0)


# ------------------------------------------------------------------ profiler (tensorplay's own)
def test_profiler_records_ops_nodes_and_blocks():
    from tensorplay.ops._registry import TRANSFORMS
    x = tp.ones(3, requires_grad=True)
    with tp.autograd.profiler.profile(record_shapes=True) as prof:
        assert len(TRANSFORMS) == 1
        with tp.autograd.profiler.record_function("forward"):
            y = (x * 2).exp().sum()
        y.backward()
    assert not TRANSFORMS                       # nothing left behind: no cost afterwards
    assert lst(x.grad) == pytest.approx([2 * np.exp(2.0)] * 3, rel=1e-6)
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["aten::exp"].count == 1 and avg["aten::sum"].count == 1
    assert avg["forward"].count == 1 and avg["ExpBackward0"].count == 1
    assert avg["autograd::engine::evaluate_function: ExpBackward0"].count == 1
    fwd = avg["forward"]
    assert fwd.cpu_time_total >= fwd.self_cpu_time_total >= 0
    events = prof.function_events
    block = next(e for e in events if e.name == "forward")
    assert {c.name for c in block.cpu_children} == {"aten::mul", "aten::exp", "aten::sum"}
    mul = next(e for e in events if e.name == "aten::mul")
    assert mul.input_shapes == [[3], []]
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=4)
    lines = table.splitlines()
    assert lines[1].split() == ["Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%",
                                "CPU", "total", "CPU", "time", "avg", "#", "of", "Calls"]
    assert len(lines) == 3 + 4 + 2 and lines[-1].startswith("Self CPU time total: ")
    assert "Input Shapes" in prof.key_averages(group_by_input_shape=True).table()


def test_profiler_disabled_and_record_function_outside():
    from tensorplay.ops._registry import TRANSFORMS
    with tp.autograd.profiler.profile(enabled=False) as prof:
        assert not TRANSFORMS
    assert prof.function_events is None

    @tp.autograd.profiler.record_function("labelled")
    def f(x):
        return x * 2
    assert lst(f(tp.ones(2))) == [2.0, 2.0]     # no profile: nothing recorded, no error
    with tp.autograd.profiler.profile() as prof:
        f(tp.ones(2))
    names = [e.name for e in prof.function_events]
    assert names == ["labelled", "aten::mul"]


def test_profiler_custom_function_and_errors():
    class Double(tp.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    x = tp.ones(2, requires_grad=True)
    with tp.autograd.profiler.profile() as prof:
        Double.apply(x).sum().backward()
    names = [e.name for e in prof.function_events]
    assert "Double" in names and "DoubleBackward" in names
    with pytest.raises(RuntimeError, match="Profiler didn't finish running"):
        p = tp.autograd.profiler.profile()
        p.key_averages()
    with pytest.raises(RuntimeError, match="already enabled"):
        with tp.autograd.profiler.profile():
            with tp.autograd.profiler.profile():
                pass
