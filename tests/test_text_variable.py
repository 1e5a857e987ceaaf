"""tensorplay.text's Variable and Parameter, the grad modes, and afnio's own
examples (shared/seeds/004_*.txt) run as written with ``import ... as hf``."""
import pytest

import tensorplay
import tensorplay.text as hf
import tensorplay.text as tt


@pytest.fixture(autouse=True)
def _restore_grad_mode():
    prev = tt.is_grad_enabled()
    yield
    tt.set_grad_enabled(prev)


# -- the seed's example, as written ----------------------------------------------------
def test_no_grad_example_of_the_seed():
    x = hf.Variable("abc", role="variable", requires_grad=True)
    with hf.no_grad():
        y = x + x
    assert y.requires_grad is False

    @hf.no_grad()
    def doubler(x):
        return x + x
    z = doubler(x)
    assert z.requires_grad is False

    @hf.no_grad
    def tripler(x):
        return x + x + x
    z = tripler(x)
    assert z.requires_grad is False
    # factory function exception
    with hf.no_grad():
        a = hf.cognitive.Parameter("xyz")
    assert a.requires_grad is True


def test_autodiff_backward_of_the_seed():
    x = hf.Variable("abc", role="variable", requires_grad=True)
    y = x + hf.Variable("def", role="suffix")
    hf.autodiff.backward(y, hf.Variable("Make it shorter."))
    assert len(x.grad) == 1 and "Make it shorter." in x.grad[0].data
    hf.autodiff.backward([x + x], [hf.Variable("Again.")], inputs=[x])
    assert len(x.grad) == 3
    with pytest.raises(RuntimeError, match="not a leaf"):
        hf.autodiff.backward(x + x, hf.Variable("f"), inputs=[y])


# -- payloads --------------------------------------------------------------------------
@pytest.mark.parametrize("data", ["text", "", 3, 2.5, True, None, ["a", "b"], [1, 2.5, True],
                                  [["a", "b"], ["c"]], [], ["a", None], [None, 3]])
def test_accepted_payloads(data):
    v = tt.Variable(data, role="r")
    assert v.data is data and v.role == "r"
    assert v.requires_grad is False and v.is_leaf and v.grad == [] and v.grad_fn is None


@pytest.mark.parametrize("data", [("a",), {"a": 1}, object(), b"x", ["a", 1], [["a"], "b"],
                                  [1, ["a"]], [["a"], [2]], [("a",)], 1j])
def test_other_payloads_are_type_errors(data):
    with pytest.raises(TypeError):
        tt.Variable(data)
    v = tt.Variable("ok")
    with pytest.raises(TypeError):
        v.data = data
    assert v.data == "ok"


def test_role_and_requires_grad_are_checked():
    with pytest.raises(TypeError, match="role must be a str"):
        tt.Variable("x", role=3)
    with pytest.raises(TypeError, match="argument 'requires_grad' must be bool, not int"):
        tt.Variable("x", requires_grad=1)


def test_data_is_replaced_in_place():
    v = tt.Parameter("old")
    v.data = "new"
    assert v.data == "new" and v.requires_grad


# -- the autograd record ---------------------------------------------------------------
def test_grad_fn_next_functions_and_output_nr():
    a = tt.Variable("a", role="first", requires_grad=True)
    b = tt.Variable("b", role="second")
    c = a + b
    assert c.grad_fn.name() == "AddBackward0" and not c.is_leaf and c.requires_grad
    (n0, i0), (n1, i1) = c.grad_fn.next_functions
    assert n0.name() == "AccumulateGrad" and n0.variable is a and i0 == 0
    assert n1 is None and i1 == 0               # b needs no feedback
    assert c.output_nr == 0 and a.output_nr == 0
    # the leaf's AccumulateGrad is made once and reused by every graph
    assert (a + b).grad_fn.next_functions[0][0] is n0
    parts = tt.functional.split(tt.Variable("x y z", requires_grad=True))
    assert [p.output_nr for p in parts] == [0, 1, 2]
    assert parts[0].grad_fn is parts[2].grad_fn and parts[0].grad_fn.name() == "SplitBackward0"


def test_nodes_are_nodes_of_the_engine():
    from tensorplay._autograd.graph import Node
    a = tt.Variable("a", requires_grad=True)
    from tensorplay._autograd.graph import AccumulateGrad
    b = a + a
    assert isinstance(b.grad_fn, Node) and type(b.grad_fn.next_functions[0][0]) is AccumulateGrad
    # a node's metadata and hooks are the Node's own
    b.grad_fn.metadata["note"] = 1
    assert b.grad_fn.metadata == {"note": 1}


def test_grad_of_a_non_leaf_raises_unless_retained():
    a = tt.Variable("a", requires_grad=True)
    b = a + a
    with pytest.raises(RuntimeError, match="retain_grad"):
        b.grad
    with pytest.raises(RuntimeError, match="retain_grad"):
        b.grad = []
    b.retain_grad()
    assert b.retains_grad and b.grad == []
    b.backward(tt.Variable("fb"))
    assert [g.data for g in b.grad] == ["fb"]          # the feedback it received, unframed
    assert len(a.grad) == 2


def test_retain_grad_on_a_leaf_raises():
    for v in (tt.Variable("a", requires_grad=True), tt.Variable("a")):
        with pytest.raises(RuntimeError, match="non-leaf"):
            v.retain_grad()


def test_grad_setter():
    p = tt.Parameter("p")
    fb = tt.Variable("good", role="feedback to p")
    p.grad = [fb]
    assert p.grad == [fb]
    p.grad = None
    assert p.grad == []
    with pytest.raises(TypeError, match="list of feedback Variables"):
        p.grad = ["text"]
    with pytest.raises(TypeError):
        p.grad = fb


def test_requires_grad_flags():
    v = tt.Variable("x")
    assert v.requires_grad_() is v and v.requires_grad
    v.requires_grad = False
    assert not v.requires_grad
    c = tt.Variable("x", requires_grad=True) + v
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        c.requires_grad = False
    assert c.requires_grad_(True) is c
    with pytest.raises(TypeError):
        v.requires_grad_("yes")


def test_detach():
    a = tt.Variable(["x", "y"], role="batch", requires_grad=True)
    b = a + a
    d = b.detach()
    assert d.data == ["xx", "yy"] and d.role == b.role
    assert d.is_leaf and not d.requires_grad and d.grad == []
    assert type(tt.Parameter("p").detach()) is tt.Variable


def test_parameter():
    p = tt.Parameter("xyz", role="prompt")
    assert p.requires_grad and p.is_leaf and p.grad == [] and p.role == "prompt"
    assert tt.Parameter("x", requires_grad=False).requires_grad is False
    assert tt.cognitive.Parameter is tt.Parameter and isinstance(p, tt.Variable)
    assert repr(p) == "Parameter(data='xyz', role='prompt', requires_grad=True)"
    assert repr(tt.Variable("a") + tt.Variable("b")) == \
        "Variable(data='ab', role='unnamed variable + unnamed variable')"


# -- grad modes: the tensors' own --------------------------------------------------------
def test_grad_modes_are_the_ones_tensors_use():
    for name in ("no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"):
        assert getattr(tt, name) is getattr(tensorplay, name)
        assert getattr(tt.autodiff, name) is getattr(tensorplay.autograd, name)
    x = tt.Variable("x", requires_grad=True)
    t = tensorplay.tensor([1.], requires_grad=True)
    with tensorplay.no_grad():                  # one switch for both payloads
        assert not (x + x).requires_grad and not (t * 2).requires_grad
        with tt.enable_grad():
            assert (x + x).requires_grad
    tt.set_grad_enabled(False)
    assert not tensorplay.is_grad_enabled() and not (x + x).requires_grad
    tt.set_grad_enabled(True)

    @tt.enable_grad()
    def doubled(v):
        return v + v
    with tt.no_grad():
        assert doubled(x).requires_grad


def test_grad_mode_is_thread_local():
    import threading
    x = tt.Variable("x", requires_grad=True)
    seen = []
    with tt.no_grad():
        t = threading.Thread(target=lambda: seen.append((x + x).requires_grad))
        t.start()
        t.join()
    assert seen == [True]


def test_cognitive_functional_is_functional():
    for name in tt.functional.__all__:
        assert getattr(tt.cognitive.functional, name) is getattr(tt.functional, name)
