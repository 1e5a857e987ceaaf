"""chat_completion, the evaluators, JSON replies with retries and the backward
model, all with scripted models (no network)."""
import json
import threading

import pytest

import tensorplay.text as tt
from tensorplay.text import functional as F
from tensorplay.text.models import CallableModel, EchoModel, ScriptedModel


@pytest.fixture(autouse=True)
def _no_backward_model():
    tt.set_backward_model(None)
    yield
    tt.set_backward_model(None)


def fb(text):
    return tt.Variable(text, role="feedback to output")


def feedback_json(*texts):
    return json.dumps({"feedback": list(texts)})


def user_text(call):
    """The request of one call (its last message)."""
    return call[-1]["content"]


# -- chat_completion forward ----------------------------------------------------------------
def test_forward_fills_placeholders_and_calls_once():
    model = ScriptedModel(["It is positive."])
    system = tt.Parameter("Classify {this} text.", role="system prompt")
    out = F.chat_completion(
        model, [{"role": "system", "content": [system, "Be brief."]},
                {"role": "user", "content": ["Message: {message} {not_an_input} {{x}}"]}],
        inputs={"message": "I love it"}, temperature=0)
    assert out.data == "It is positive." and out.grad_fn.name() == "ChatCompletionBackward0"
    assert model.calls == [[
        {"role": "system", "content": "Classify {this} text.\nBe brief."},
        {"role": "user", "content": "Message: I love it {not_an_input} {{x}}"}]]
    assert model.call_kwargs == [{"temperature": 0}]
    assert out.grad_fn.next_functions[0][0].variable is system


def test_forward_batch():
    model = ScriptedModel(lambda m: m[-1]["content"].upper())
    out = F.chat_completion(model, [{"role": "user", "content": [tt.Variable("say {w}")]}],
                            inputs={"w": ["a", "b", "c"]})
    assert out.data == ["SAY A", "SAY B", "SAY C"] and len(model.calls) == 3
    assert not out.requires_grad                # nothing required grad: no node
    out = F.chat_completion(EchoModel(), [{"role": "user",
                                           "content": tt.Variable(["x {v}", "y {v}"])}],
                            inputs={"v": tt.Variable("!")})
    assert out.data == ["x !", "y !"]


def test_forward_errors():
    with pytest.raises(ValueError, match="batches of different lengths"):
        F.chat_completion(EchoModel(), [{"role": "user", "content": [tt.Variable(["a", "b"])]}],
                          inputs={"x": ["1", "2", "3"]})
    with pytest.raises(TypeError, match="'role' and 'content'"):
        F.chat_completion(EchoModel(), [{"role": "user"}])
    with pytest.raises(TypeError, match="non-empty list"):
        F.chat_completion(EchoModel(), [])
    with pytest.raises(TypeError, match="Variables or str"):
        F.chat_completion(EchoModel(), [{"role": "user", "content": [3]}])
    with pytest.raises(TypeError, match="must be a str, a list of str"):
        F.chat_completion(EchoModel(), [{"role": "user", "content": ["{x}"]}], inputs={"x": 3})
    with pytest.raises(TypeError, match="the model returned int, expected str"):
        F.chat_completion(lambda m: 3, [{"role": "user", "content": ["hi"]}])
    with pytest.raises(TypeError, match="model must be callable"):
        F.chat_completion("gpt", [{"role": "user", "content": ["hi"]}])


# -- chat_completion backward ---------------------------------------------------------------
def test_backward_asks_once_about_every_variable_in_order():
    system = tt.Parameter("Be helpful.", role="system prompt")
    question = tt.Variable("What is {topic}?", role="question", requires_grad=True)
    topic = tt.Variable("autodiff", role="topic", requires_grad=True)
    fixed = tt.Variable("no grad", role="fixed")
    out = F.chat_completion(ScriptedModel(["It is magic."]),
                            [{"role": "system", "content": [system, fixed]},
                             {"role": "user", "content": [question, system]}],
                            inputs={"topic": topic})
    assert [e[0].variable for e in out.grad_fn.next_functions] == [system, question, topic]
    back = ScriptedModel([feedback_json("fb system", "fb question", "fb topic")])
    with tt.backward_model(back):
        out.backward(fb("Not an explanation."))
    assert len(back.calls) == 1
    req = user_text(back.calls[0])
    for shown in ("[system]\nBe helpful.\nno grad", "[user]\nWhat is autodiff?\nBe helpful.",
                  "It is magic.", "Not an explanation.", "1. Role: system prompt",
                  "2. Role: question\nValue:\nWhat is {topic}?", "3. Role: topic",
                  "exactly 3 strings"):
        assert shown in req, shown
    assert "4. Role" not in req                 # fixed needs none; system is asked about once
    assert [g.data for g in system.grad] == ["fb system"]
    assert [g.data for g in question.grad] == ["fb question"]
    assert [(g.data, g.role) for g in topic.grad] == [("fb topic", "feedback to topic")]


def test_batched_backward_one_call_per_sample():
    system = tt.Parameter("Classify.", role="system prompt")
    notes = tt.Variable(["n1", "n2", "n3"], role="notes", requires_grad=True)
    out = F.chat_completion(ScriptedModel(["r1", "r2", "r3"]),
                            [{"role": "system", "content": [system]},
                             {"role": "user", "content": ["{m}", notes]}],
                            inputs={"m": ["m1", "m2", "m3"]})
    assert out.data == ["r1", "r2", "r3"]
    back = ScriptedModel(lambda m: feedback_json("sys " + m[-1]["content"].split(
        "## The language model's response\n")[1][:2], "note"))
    with tt.backward_model(back):
        out.backward(fb(["bad 1", None, "bad 3"]))   # no feedback on sample 2: no call
    assert len(back.calls) == 2
    assert "m1\nn1" in user_text(back.calls[0]) and "bad 1" in user_text(back.calls[0])
    assert "m3\nn3" in user_text(back.calls[1]) and "bad 3" in user_text(back.calls[1])
    # the shared system prompt: one feedback Variable per sample
    assert [g.data for g in system.grad] == ["sys r1", "sys r3"]
    # the batched Variable: one feedback Variable, a text per sample
    (g,) = notes.grad
    assert g.data == ["note", None, "note"]


def test_feedback_shared_by_all_samples():
    system = tt.Parameter("S", role="system prompt")
    out = F.chat_completion(EchoModel(), [{"role": "system", "content": [system]},
                                          {"role": "user", "content": ["{m}"]}],
                            inputs={"m": ["a", "b"]})
    back = ScriptedModel([feedback_json("x"), feedback_json("y")])
    with tt.backward_model(back):
        out.backward(fb("Answers are too long."))
    assert len(back.calls) == 2 and all("Answers are too long." in user_text(c)
                                        for c in back.calls)
    assert [g.data for g in system.grad] == ["x", "y"]


# -- JSON replies ---------------------------------------------------------------------------
def _one_var_graph():
    p = tt.Parameter("P", role="prompt")
    return p, F.chat_completion(EchoModel(), [{"role": "user", "content": [p]}])


def test_malformed_replies_are_retried():
    p, out = _one_var_graph()
    back = ScriptedModel(["Sure! Here is my feedback.", feedback_json("a", "b"),
                          "```json\n" + feedback_json("finally") + "\n```"])
    with tt.backward_model(back):
        out.backward(fb("f"))
    assert [g.data for g in p.grad] == ["finally"]
    assert len(back.calls) == 3
    # a retry shows the model its reply and what was wrong with it
    assert back.calls[1][-2] == {"role": "assistant", "content": "Sure! Here is my feedback."}
    assert "could not be used" in back.calls[1][-1]["content"]
    assert '"feedback" has 2 strings, expected 1' in back.calls[2][-1]["content"]
    assert back.calls[1][:2] == back.calls[0]


def test_malformed_replies_fail_clearly_after_three_attempts():
    p, out = _one_var_graph()
    back = ScriptedModel(["nope", '{"feedback": "not a list"}', '["feedback"]', "unused"])
    with tt.backward_model(back):
        with pytest.raises(RuntimeError) as e:
            out.backward(fb("f"))
    msg = str(e.value)
    assert msg.startswith("chat_completion: ") and "after 3 attempts" in msg
    assert "last reply: '[\"feedback\"]'" in msg
    assert len(back.calls) == 3 and p.grad == []


def test_a_model_exception_is_not_retried():
    p, out = _one_var_graph()

    def broken(messages):
        raise ConnectionError("down")
    with tt.backward_model(CallableModel(broken)):
        with pytest.raises(ConnectionError):
            out.backward(fb("f"))


# -- the backward model ---------------------------------------------------------------------
def test_missing_backward_model():
    p, out = _one_var_graph()
    with pytest.raises(RuntimeError, match=r"none is set; call tensorplay.text.set_backward_model"
                                           r"\(model\) or run the backward inside `with "
                                           r"tensorplay.text.backward_model\(model\):`"):
        out.backward(fb("f"))
    score, explanation = F.exact_match_evaluator(tt.Variable("a", requires_grad=True), "b")
    with pytest.raises(RuntimeError, match="exact_match_evaluator: the backward needs a model"):
        explanation.backward()


def test_set_backward_model_and_the_thread_local_override():
    a, b = ScriptedModel([]), ScriptedModel([])
    assert tt.get_backward_model() is None
    tt.set_backward_model(a)
    assert tt.get_backward_model() is a
    seen = []
    with tt.backward_model(b):
        assert tt.get_backward_model() is b
        t = threading.Thread(target=lambda: seen.append(tt.get_backward_model()))
        t.start()
        t.join()
        with tt.backward_model(None):
            assert tt.get_backward_model() is None
        assert tt.get_backward_model() is b
    assert seen == [a] and tt.get_backward_model() is a
    tt.set_backward_model(None)
    assert tt.get_backward_model() is None
    with pytest.raises(TypeError, match="must be callable"):
        tt.set_backward_model("gpt-4")


def test_global_backward_model_is_used():
    p, out = _one_var_graph()
    tt.set_backward_model(ScriptedModel([feedback_json("global")]))
    out.backward(fb("f"))
    assert p.grad[0].data == "global"


# -- evaluators -----------------------------------------------------------------------------
def test_exact_match_forward():
    pred = tt.Variable(["a", "b", "c"], role="answers", requires_grad=True)
    score, explanation = F.exact_match_evaluator(pred, ["a", "x", "c"])
    assert score.data == 2 and score.grad_fn is explanation.grad_fn
    assert (score.output_nr, explanation.output_nr) == (0, 1)
    assert explanation.grad_fn.name() == "ExactMatchEvaluatorBackward0"
    assert explanation.data[1] == "The prediction 'b' does not match the target 'x'."
    assert F.exact_match_evaluator(tt.Variable("a"), tt.Variable("a"))[0].data == 1
    s, e = F.exact_match_evaluator(tt.Variable(["a", "a"]), "a",
                                   reduction_fn=lambda xs: sum(xs) / len(xs),
                                   reduction_fn_purpose="mean")
    assert s.data == 1.0 and "mean" in s.role and e.grad_fn is None
    with pytest.raises(ValueError, match="2 predictions and 3 targets"):
        F.exact_match_evaluator(tt.Variable(["a", "b"]), ["a", "b", "c"])
    with pytest.raises(ValueError, match="one prediction and a batch"):
        F.exact_match_evaluator(tt.Variable("a"), ["a", "b"])
    with pytest.raises(TypeError, match="prediction must be a Variable"):
        F.exact_match_evaluator("a", "a")


def test_evaluator_backward_one_call_per_sample_one_feedback_variable():
    pred = tt.Variable(["yes", "No."], role="answers", requires_grad=True)
    score, explanation = F.exact_match_evaluator(pred, ["yes", "no"])
    back = ScriptedModel([feedback_json("keep"), feedback_json("lowercase, no period")])
    with tt.backward_model(back):
        explanation.backward()
    assert len(back.calls) == 2
    req = user_text(back.calls[1])
    for shown in ("1. Role: answers\nValue:\nNo.", "## Target\nno", "## Score of this sample\n0",
                  "does not match the target 'no'", "exact", "summation", "exactly 1 string"):
        assert shown in req, shown
    (g,) = pred.grad
    assert g.data == ["keep", "lowercase, no period"] and g.role == "feedback to answers"


def test_deterministic_evaluator_and_success_fn():
    pred = tt.Variable(["abc", "abcdef"], role="summaries", requires_grad=True)
    calls = []

    def short_enough(total):
        calls.append(total)
        return total == 2
    score, explanation = F.deterministic_evaluator(
        pred, None, lambda p, t: int(len(p) <= 4), "1 if at most 4 characters",
        success_fn=short_enough)
    assert score.data == 1 and explanation.grad_fn.name() == "DeterministicEvaluatorBackward0"
    assert "1 if at most 4 characters" in explanation.data[1]
    back = ScriptedModel([feedback_json("ok"), feedback_json("shorten")])
    with tt.backward_model(back):
        explanation.backward()
    assert calls == [1] and [g.data for g in pred.grad] == [["ok", "shorten"]]
    # a success: no call, nothing appended
    done = tt.Variable(["abc", "ab"], role="summaries", requires_grad=True)
    _, e2 = F.deterministic_evaluator(done, None, lambda p, t: int(len(p) <= 4), "short",
                                      success_fn=short_enough)
    silent = ScriptedModel([])
    with tt.backward_model(silent):
        e2.backward()
    assert calls == [1, 2] and silent.calls == [] and done.grad == []
    with pytest.raises(TypeError, match="a score must be a number"):
        F.deterministic_evaluator(pred, None, lambda p, t: "high", "bad")


def test_end_to_end_through_chat_and_evaluator():
    system = tt.Parameter("Classify.", role="system prompt")
    llm = ScriptedModel(["Positive!", "negative"])
    pred = F.chat_completion(llm, [{"role": "system", "content": [system]},
                                   {"role": "user", "content": [tt.Variable("Message: {m}")]}],
                             inputs={"m": ["great", "awful"]})
    score, explanation = F.exact_match_evaluator(pred, ["positive", "negative"])
    assert score.data == 1
    back = ScriptedModel([feedback_json("use lowercase"), feedback_json("fine"),
                          feedback_json("ask for lowercase"), feedback_json("keep it")])
    with tt.backward_model(back):
        explanation.backward()
    assert len(back.calls) == 4                 # two for the evaluator, two for the chat
    assert "use lowercase" in user_text(back.calls[2]) and "Positive!" in user_text(back.calls[2])
    assert [g.data for g in system.grad] == ["ask for lowercase", "keep it"]


def test_lm_judge_evaluator():
    pred = tt.Variable(["Paris", "Lyon"], role="capital of France", requires_grad=True)
    judge = ScriptedModel([
        "I think it's right",                                    # retried
        json.dumps({"score": 1, "explanation": "Correct."}),
        json.dumps({"score": 0, "explanation": "Lyon is not the capital."})])
    msgs = [{"role": "system", "content": ["You grade answers about {subject}."]},
            {"role": "user", "content": ["Answer: {prediction}\nExpected: {target}"]}]
    score, explanation = F.lm_judge_evaluator(judge, msgs, pred, target="Paris",
                                              inputs={"subject": "geography"}, temperature=0)
    assert score.data == 1 and explanation.data == ["Correct.", "Lyon is not the capital."]
    assert explanation.grad_fn.name() == "LMJudgeEvaluatorBackward0"
    assert len(judge.calls) == 3 and judge.call_kwargs[0] == {"temperature": 0}
    assert judge.calls[2][1]["content"] == "Answer: Lyon\nExpected: Paris"
    assert judge.calls[0][0]["content"] == "You grade answers about geography."
    back = ScriptedModel([feedback_json("good"), feedback_json("say Paris")])
    with tt.backward_model(back):
        explanation.backward()
    assert "Answer: Lyon\nExpected: Paris" in user_text(back.calls[1])   # the judge's conversation
    assert "Lyon is not the capital." in user_text(back.calls[1])
    assert [g.data for g in pred.grad] == [["good", "say Paris"]]
    with pytest.raises(ValueError, match="may not be named 'prediction'"):
        F.lm_judge_evaluator(judge, msgs, pred, inputs={"prediction": "x"})


def test_lm_judge_bad_replies_fail_clearly():
    judge = ScriptedModel(['{"score": "high", "explanation": "x"}', '{"score": 1}', "{}"])
    with pytest.raises(RuntimeError, match=r"^lm_judge_evaluator: .*after 3 attempts"):
        F.lm_judge_evaluator(judge, [{"role": "user", "content": ["{prediction}"]}],
                             tt.Variable("x"))
