"""tensorplay.text.autodiff.backward on the shared engine: how feedback meets,
accumulates, is seeded, retained and restricted to ``inputs``."""
import json
import os

import pytest

import tensorplay
import tensorplay.text as tt
from tensorplay.text.models import ScriptedModel

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed). Saved intermediate values of the graph are freed "
         "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
         "backward through the graph a second time or if you need to access saved tensors after "
         "calling backward.")


@pytest.fixture(autouse=True)
def _no_backward_model():
    tt.set_backward_model(None)
    yield
    tt.set_backward_model(None)


def fb(text):
    return tt.Variable(text, role="feedback to output")


def feedback_model(*texts):
    """A backward model answering every request with feedback ``texts[k]`` on call k."""
    return ScriptedModel([json.dumps({"feedback": [t]}) for t in texts])


# -- where feedback goes ---------------------------------------------------------------
def test_diamond_leaves_two_entries():
    a = tt.Variable("a", role="shared", requires_grad=True)
    b = a + tt.Variable("x", role="x")
    c = tt.Variable("y", role="y") + a
    d = tt.functional.join([b, c], " ")
    d.backward(fb("Unclear."))
    assert len(a.grad) == 2
    assert all(g.role == "feedback to shared" and "Unclear." in g.data for g in a.grad)
    # the path each came by is named: right operand of c, left operand of b
    assert sorted("left operand" in g.data for g in a.grad) == [False, True]


def test_same_variable_twice_in_one_op():
    a = tt.Variable("a", role="shared", requires_grad=True)
    (a + a).backward(fb("f"))
    assert len(a.grad) == 2


def test_feedback_appends_across_backward_calls():
    a = tt.Variable("a", role="r", requires_grad=True)
    (a + tt.Variable("b")).backward(fb("first"))
    (a + tt.Variable("c")).backward(fb("second"))
    assert [g.data.endswith(t) for g, t in zip(a.grad, ("first", "second"))] == [True, True]
    assert len(a.grad) == 2


def test_several_roots_and_several_feedbacks():
    a = tt.Variable("a", requires_grad=True)
    b, c = a + tt.Variable("1"), a + tt.Variable("2")
    tt.autodiff.backward([b, c], [fb("on b"), fb("on c")])
    assert sorted(g.data.splitlines()[-1] for g in a.grad) == ["on b", "on c"]
    # two roots on one node: both feedbacks reach it, each passed on
    d = a + tt.Variable("3")
    tt.autodiff.backward([d, d], [fb("x"), fb("y")])
    assert len(a.grad) == 4


def test_only_variables_that_require_grad_get_feedback():
    a, b = tt.Variable("a", requires_grad=True), tt.Variable("b")
    (a + b).backward(fb("f"))
    assert len(a.grad) == 1 and b.grad == []


# -- retain_graph ------------------------------------------------------------------------
def test_freed_graph_raises_on_a_second_backward():
    a = tt.Variable("a", requires_grad=True)
    b = a + tt.Variable("b")
    b.backward(fb("f"))
    with pytest.raises(RuntimeError) as e:
        b.backward(fb("f"))
    assert str(e.value) == FREED
    assert len(a.grad) == 1


def test_retain_graph_allows_another_backward():
    a = tt.Variable("a", requires_grad=True)
    b = tt.functional.format("<{x}>", x=a)
    b.backward(fb("one"), retain_graph=True)
    b.backward(fb("two"), retain_graph=True)
    b.backward(fb("three"))                     # frees it
    assert len(a.grad) == 3
    with pytest.raises(RuntimeError, match="second time"):
        b.backward(fb("four"))


def test_retain_graph_on_an_evaluator_graph():
    a = tt.Variable("yes", role="answer", requires_grad=True)
    score, explanation = tt.functional.exact_match_evaluator(a, "no")
    with tt.backward_model(feedback_model("Say no.", "Say no!")):
        explanation.backward(retain_graph=True)
        explanation.backward()
        with pytest.raises(RuntimeError, match="second time"):
            explanation.backward()
    assert [g.data for g in a.grad] == ["Say no.", "Say no!"]


def test_create_graph_is_refused():
    a = tt.Variable("a", requires_grad=True)
    with pytest.raises(NotImplementedError, match="create_graph"):
        (a + a).backward(fb("f"), create_graph=True)


# -- seeds -------------------------------------------------------------------------------
def test_implicit_seed_only_for_evaluator_outputs():
    a = tt.Variable("a", role="r", requires_grad=True)
    b = a + a
    with pytest.raises(RuntimeError, match="implicitly created only for the outputs of evaluators"):
        b.backward()
    with pytest.raises(RuntimeError, match="implicitly created only"):
        tt.autodiff.backward([b])
    score, explanation = tt.functional.exact_match_evaluator(b, "aa")
    with tt.backward_model(feedback_model("fine", "fine too")):
        explanation.backward(retain_graph=True)
        score.backward()                        # the score is an evaluator output too
    assert len(a.grad) == 4                     # two backward calls, a used twice each


def test_the_implicit_seed_is_the_explanation():
    a = tt.Variable("Positive!", role="answer", requires_grad=True)
    _, explanation = tt.functional.exact_match_evaluator(a, "positive")
    explanation.retain_grad()
    model = feedback_model("Lowercase, no punctuation.")
    with tt.backward_model(model):
        explanation.backward()
    (seed,) = explanation.grad
    assert seed.data == explanation.data and seed.role == f"feedback to {explanation.role}"
    assert explanation.data in model.calls[0][-1]["content"]


def test_explicit_feedback_on_an_evaluator_output():
    a = tt.Variable("Positive!", role="answer", requires_grad=True)
    score, _ = tt.functional.exact_match_evaluator(a, "positive")
    model = feedback_model("ok")
    with tt.backward_model(model):
        score.backward(fb("The grader is strict about case."))
    assert "The grader is strict about case." in model.calls[0][-1]["content"]


def test_backward_on_a_leaf_raises():
    p = tt.Parameter("p")
    with pytest.raises(RuntimeError, match="is a leaf"):
        p.backward(fb("f"))
    with pytest.raises(RuntimeError, match="is a leaf"):
        p.backward()
    with pytest.raises(RuntimeError, match="^element 0 of variables does not require grad and "
                                           "does not have a grad_fn$"):
        tt.Variable("v").backward(fb("f"))
    assert p.grad == []


def test_bad_seeds():
    a = tt.Variable(["a", "b"], requires_grad=True)
    b = a + tt.Variable("!")
    with pytest.raises(RuntimeError, match="got 1 variables and 2 gradients"):
        tt.autodiff.backward(b, [fb("x"), fb("y")])
    with pytest.raises(TypeError, match="either Variables or None"):
        b.backward("just text")
    with pytest.raises(ValueError, match="Mismatch in shape"):
        b.backward(fb(["only one"]))
    with pytest.raises(ValueError, match="Mismatch in shape"):
        b.backward(fb(3))
    with pytest.raises(TypeError, match="variables must be Variables"):
        tt.autodiff.backward(tensorplay.tensor(1., requires_grad=True), fb("f"))
    with pytest.raises(RuntimeError, match="at least one"):
        tt.autodiff.backward([])
    assert a.grad == []


def test_batched_feedback_seed():
    a = tt.Variable(["a", "b", "c"], role="batch", requires_grad=True)
    s = tt.Variable("shared", role="suffix", requires_grad=True)
    (a + s).backward(fb(["bad a", None, "bad c"]))
    (ga,) = a.grad
    assert ga.data[1] is None and ga.data[0].endswith("bad a") and ga.data[2].endswith("bad c")
    (gs,) = s.grad                              # one text for the value every sample shared
    assert isinstance(gs.data, str)
    assert "In sample 1:" in gs.data and "In sample 3:" in gs.data and "sample 2" not in gs.data


# -- inputs= -----------------------------------------------------------------------------
def test_inputs_must_be_leaves():
    a = tt.Variable("a", requires_grad=True)
    b = a + a
    c = b + tt.Variable("c")
    with pytest.raises(RuntimeError, match="element 0 of inputs is not a leaf"):
        c.backward(fb("f"), inputs=[b])
    with pytest.raises(RuntimeError, match="does not require grad"):
        c.backward(fb("f"), inputs=[tt.Variable("x")])
    with pytest.raises(RuntimeError, match="cannot be empty"):
        c.backward(fb("f"), inputs=[])
    assert a.grad == []
    c.backward(fb("f"), inputs=a)               # a single Variable is fine too
    assert len(a.grad) == 2


def test_inputs_restrict_accumulation_and_what_runs():
    a = tt.Variable("a", role="a", requires_grad=True)
    b = tt.Variable("b", role="b", requires_grad=True)
    asked = ScriptedModel(lambda m: "reply")
    uses_b = tt.functional.chat_completion(asked, [{"role": "user", "content": [b]}])
    out = tt.functional.join([a, uses_b], "\n")
    model = feedback_model("x")
    with tt.backward_model(model):
        out.backward(fb("f"), inputs=[a])
    assert len(a.grad) == 1 and b.grad == []
    assert model.calls == []                    # the chat node leads only to b: it did not run


def test_inputs_given_twice_accumulate_once():
    a = tt.Variable("a", requires_grad=True)
    (a + tt.Variable("b")).backward(fb("f"), inputs=[a, a])
    assert len(a.grad) == 1


# -- hooks: the engine's ------------------------------------------------------------------
def test_hooks_see_and_replace_feedback():
    a = tt.Variable("a", role="a", requires_grad=True)
    b = a + tt.Variable("b")
    seen = []
    h1 = b.register_hook(lambda g: seen.append(("b", g)))
    h2 = a.register_hook(lambda g: (tt.Variable("replaced", role="feedback to a"),))
    b.backward(fb("f"), retain_graph=True)
    assert seen[0][0] == "b" and seen[0][1][0].data == "f"
    assert [g.data for g in a.grad] == ["replaced"]
    h1.remove()
    h2.remove()
    b.backward(fb("g"))
    assert len(seen) == 1 and a.grad[1].data.endswith("g")
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        tt.Variable("x").register_hook(print)


def test_anomaly_mode_records_where_a_text_node_came_from():
    from tensorplay._autograd.anomaly_mode import creation_trace
    a = tt.Variable("a", requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        mode = tensorplay.autograd.detect_anomaly()
    with mode:
        b = a + a
        assert "test_text_autodiff.py" in creation_trace(b.grad_fn)
        b.backward(fb("f"))
    assert len(a.grad) == 2


def test_the_engine_knows_no_payload():
    import tensorplay._autograd.engine as engine
    with open(engine.__file__, encoding="utf-8") as f:
        src = f.read()
    assert "isinstance" not in src and "text" not in src.lower().replace("context", "")
    assert "Variable" not in src and "feedback" not in src


def test_no_recursion_on_a_long_chain():
    a = tt.Variable("a", role="start", requires_grad=True)
    x = a
    for _ in range(1500):          # deeper than the recursion limit
        x = x + tt.Variable("")
    x.backward(fb("f"))
    assert len(a.grad) == 1 and a.grad[0].data.endswith("f")


def test_backward_from_another_thread_uses_its_own_state():
    import threading
    a = tt.Variable("a", requires_grad=True)
    b = a + a
    errors = []

    def run():
        try:
            b.backward(fb("f"))
        except Exception as e:       # noqa: BLE001 - reported below
            errors.append(e)
    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert not errors and len(a.grad) == 2
    assert os.path.basename(__file__).startswith("test_text")


def test_backward_inputs_may_be_gradient_edges():
    # the seed: inputs (Sequence[Variable] or Variable or Sequence[GradientEdge])
    from tensorplay.autograd.graph import get_gradient_edge
    a = tt.Variable("Hi", role="greeting", requires_grad=True)
    b = tt.Variable("!", requires_grad=True)
    tt.autodiff.backward(a + b, tt.Variable("Too short.", role="feedback"), inputs=[get_gradient_edge(a)])
    assert len(a.grad) == 1 and "Too short." in a.grad[0].data
    assert b.grad == []
    with pytest.raises(RuntimeError, match="not a leaf Variable"):
        tt.autodiff.backward(a + b, tt.Variable("x", role="feedback"), inputs=get_gradient_edge(a + b))


# ---------------------------------------------------------------- copies, hooks, inputs=
def _feedback(text):
    return tt.Variable(text, role="feedback")


def test_a_copied_leaf_takes_its_own_feedback():
    # (the copy shared the original's accumulator, which holds the original: the
    # copy's feedback went to the original)
    import copy
    import pickle
    a = tt.Variable("a", requires_grad=True)
    (a + tt.Variable("x")).backward(_feedback("first"))
    for make in (copy.deepcopy, copy.copy):
        b = make(a)
        b.grad = []
        (b + tt.Variable("y")).backward(_feedback("second"))
        assert [g.data.splitlines()[-1] for g in b.grad] == ["second"]
    assert [g.data.splitlines()[-1] for g in a.grad] == ["first"]
    c = pickle.loads(pickle.dumps(a))           # (a used leaf pickles: no weak references)
    assert c.data == "a" and c.requires_grad
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(a + tt.Variable("z"))


def test_a_hook_must_return_feedback_variables():
    a = tt.Variable("a", requires_grad=True)
    a.register_hook(lambda g: "XYZ")            # (its characters went into .grad)
    with pytest.raises(TypeError, match="tuple of feedback Variables"):
        (a + tt.Variable("b")).backward(_feedback("f"))


def test_backward_with_inputs_runs_the_leaf_nodes_hooks():
    from tensorplay.autograd.graph import get_gradient_edge
    for inputs in (None, "a"):
        a = tt.Variable("a", requires_grad=True)
        node = get_gradient_edge(a).node
        calls = []
        node.register_prehook(lambda go: calls.append("pre") or ((_feedback("PRE"),),))
        node.register_hook(lambda gi, go: calls.append("post"))
        (a + tt.Variable("b")).backward(_feedback("f"), inputs=[a, a] if inputs else None)
        assert calls == ["pre", "post"] and [g.data for g in a.grad] == ["PRE"]


def test_an_evaluator_without_a_reduction_keeps_each_samples_score():
    p = tt.Variable(["a", "b"], requires_grad=True)
    score, _ = tt.functional.exact_match_evaluator(p, tt.Variable(["a", "c"]), reduction_fn=None)
    assert score.data == [1, 0] and "one score per sample" in score.role
    score, _ = tt.functional.exact_match_evaluator(p, tt.Variable(["a", "c"]))
    assert score.data == 1


def test_hand_made_gradient_edges_and_the_tensor_api():
    from tensorplay.autograd.graph import GradientEdge, get_gradient_edge
    a = tt.Variable("a", requires_grad=True)
    e = get_gradient_edge(a)
    b = a + tt.Variable("b")
    b.backward(_feedback("f"), inputs=[GradientEdge(e.node, e.output_nr)])    # (it was refused)
    assert len(a.grad) == 1
    with pytest.raises(TypeError, match="text Variables are differentiated by"):
        tensorplay.autograd.backward(a + tt.Variable("c"), _feedback("f"))
