"""tensorplay.text.optim.TGD, and the offline prompt-optimisation example."""
import json
import os
import subprocess
import sys

import pytest

import tensorplay.text as tt
from tensorplay.text.models import ScriptedModel

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def value(v):
    return json.dumps({"value": v})


def give(p, *texts):
    p.grad = [tt.Variable(t, role=f"feedback to {p.role}") for t in texts]


def request(call):
    return call[-1]["content"]


def test_step_rewrites_each_parameter_with_feedback():
    p = tt.Parameter("Classify the sentiment.", role="system prompt")
    q = tt.Parameter("untouched", role="other prompt")
    model = ScriptedModel([value("Classify the sentiment. One word.")])
    opt = tt.optim.TGD([p, q], model=model, constraints=["Answer with one word.", "Be polite."])
    give(p, "Answers are too long.", "Use lowercase.")
    opt.step()
    assert p.data == "Classify the sentiment. One word." and q.data == "untouched"
    assert len(model.calls) == 1                # q had no feedback: no call
    req = request(model.calls[0])
    for shown in ("Role: system prompt", "Current value:\nClassify the sentiment.",
                  "1. Answers are too long.", "2. Use lowercase.",
                  "## Constraints the new value must satisfy\n- Answer with one word.\n- Be polite.",
                  '{"value": "<the new value>"}'):
        assert shown in req, shown
    assert "Earlier values" not in req          # momentum=0: no history


def test_batched_feedback_is_shown_per_sample():
    p = tt.Parameter("P", role="prompt")
    p.grad = [tt.Variable(["too long", None, "wrong"], role="feedback to prompt")]
    model = ScriptedModel([value("Q")])
    tt.optim.TGD([p], model=model).step()
    assert "In sample 1: too long\nIn sample 3: wrong" in request(model.calls[0])


def test_momentum_shows_the_last_pairs():
    p = tt.Parameter("v0", role="prompt")
    model = ScriptedModel([value("v1"), value("v2"), value("v3")])
    opt = tt.optim.TGD([p], model=model, momentum=2)
    for k in range(3):
        opt.zero_grad()
        give(p, f"feedback {k}")
        opt.step()
    assert p.data == "v3"
    first, second, third = (request(c) for c in model.calls)
    assert "Earlier values" not in first
    assert "### Value 1\nv0\n### Feedback on value 1\nfeedback 0" in second
    assert "### Value 1\nv0" in third and "### Value 2\nv1\n### Feedback on value 2\nfeedback 1" \
        in third
    opt.zero_grad()
    give(p, "feedback 3")
    opt.model = ScriptedModel([value("v4")])
    opt.step()
    fourth = request(opt.model.calls[0])
    assert "v0" not in fourth and "### Value 1\nv1" in fourth and "### Value 2\nv2" in fourth


def test_replies_are_retried_then_fail_clearly():
    p = tt.Parameter("v0", role="prompt")
    give(p, "f")
    model = ScriptedModel(["Here you go: better prompt", value(3), value("v1")])
    tt.optim.TGD([p], model=model).step()
    assert p.data == "v1" and len(model.calls) == 3
    assert '"value" must be a string' in model.calls[2][-1]["content"]
    give(p, "f")
    bad = ScriptedModel(["x", "y", '{"val": "z"}'])
    with pytest.raises(RuntimeError, match=r"^TGD.step: .*after 3 attempts.*last reply: "):
        tt.optim.TGD([p], model=bad).step()
    assert p.data == "v1"


def test_numeric_parameter():
    p = tt.Parameter(0.5, role="temperature")
    give(p, "Too random.")
    tt.optim.TGD([p], model=ScriptedModel(['{"value": "low"}', '{"value": 0.1}'])).step()
    assert p.data == 0.1


def test_zero_grad_and_closure():
    p = tt.Parameter("p", role="prompt")
    opt = tt.optim.TGD([p], model=ScriptedModel([value("p2")]))
    give(p, "f")
    opt.zero_grad()
    assert p.grad == []
    give(p, "f")
    opt.clear_grad()
    assert p.grad == []

    def closure():
        out = p + tt.Variable("!")
        out.backward(tt.Variable("louder"))
        return out
    assert opt.step(closure).data == "p!"
    assert p.data == "p2"


def test_state_dict_round_trip():
    p = tt.Parameter("v0", role="prompt")
    opt = tt.optim.TGD([p], model=ScriptedModel([value("v1")]), constraints=["c"], momentum=3)
    give(p, "f0")
    opt.step()
    sd = json.loads(json.dumps(opt.state_dict()))       # plain data
    assert sd["state"]["0"]["history"] == [["v0", ["f0"]]]
    assert sd["param_groups"] == [{"params": [0], "constraints": ["c"], "momentum": 3}]
    q = tt.Parameter("v1", role="prompt")
    model = ScriptedModel([value("v2")])
    opt2 = tt.optim.TGD([q], model=model)
    opt2.load_state_dict(sd)
    give(q, "f1")
    opt2.step()
    req = request(model.calls[0])
    assert "- c" in req and "### Value 1\nv0\n### Feedback on value 1\nf0" in req
    with pytest.raises(ValueError, match="doesn't match the size"):
        tt.optim.TGD([p, q], model=model).load_state_dict(sd)


def test_constructor_checks():
    p = tt.Parameter("p")
    m = ScriptedModel([])
    with pytest.raises(ValueError, match="empty parameter list"):
        tt.optim.TGD([], model=m)
    with pytest.raises(TypeError, match="iterable of Variables, but got Parameter"):
        tt.optim.TGD(p, model=m)
    with pytest.raises(ValueError, match="leaf Variables that require grad"):
        tt.optim.TGD([p + p], model=m)
    with pytest.raises(ValueError, match="leaf Variables that require grad"):
        tt.optim.TGD([tt.Variable("x")], model=m)
    with pytest.raises(TypeError, match="holds a batch"):
        tt.optim.TGD([tt.Parameter(["a", "b"])], model=m)
    with pytest.raises(ValueError, match="more than once"):
        tt.optim.TGD([p, p], model=m)
    with pytest.raises(TypeError, match="model must be callable"):
        tt.optim.TGD([p], model="gpt")
    with pytest.raises(ValueError, match="Invalid momentum"):
        tt.optim.TGD([p], model=m, momentum=-1)
    with pytest.raises(TypeError, match="constraints"):
        tt.optim.TGD([p], model=m, constraints=[1])


def test_the_issue_example_with_a_scripted_model():
    def llm_reply(messages):
        last = messages[-1]["content"]
        if '{"feedback": [' in last:
            return json.dumps({"feedback": ["Demand one lowercase word."]})
        if '{"value": ' in last:
            return value("Classify the sentiment of the message. Reply with one lowercase word.")
        return "negative" if "lowercase" in messages[0]["content"] else "It is negative."
    llm = ScriptedModel(llm_reply)
    tt.set_backward_model(llm)
    try:
        system = tt.Parameter("Classify the sentiment of the message.",
                              role="system prompt for sentiment classification")
        opt = tt.optim.TGD([system], model=llm, constraints=["Answer with one word."])
        scores = []
        for messages, labels in [(["meh", "bad"], ["negative", "negative"])] * 2:
            opt.zero_grad()
            pred = tt.functional.chat_completion(
                llm, [{"role": "system", "content": [system]},
                      {"role": "user", "content": [tt.Variable("Message: {message}")]}],
                inputs={"message": messages})
            score, explanation = tt.functional.exact_match_evaluator(pred, labels)
            scores.append(score.data)
            explanation.backward()
            assert len(system.grad) == 2        # one per sample
            opt.step()
    finally:
        tt.set_backward_model(None)
    assert scores == [0, 2] and system.data.endswith("one lowercase word.")


def test_the_offline_example_runs():
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENSORPLAY_LLM_")}
    env["PYTHONPATH"] = os.path.join(ROOT, "src")
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples",
                                                       "text_prompt_optimization.py")],
                         env=env, capture_output=True, text=True, timeout=120, check=True).stdout
    lines = out.splitlines()
    assert lines[0].startswith("(offline")
    assert lines[1] == "step 0: score 0/4  prompt: 'Classify the sentiment of the message.'"
    assert lines[2].startswith("step 1: score 4/4  prompt: 'Classify the sentiment of the "
                               "message. Answer with exactly one lowercase word")
    assert lines[-1].startswith("final: score 8/8")
