"""The deterministic text ops: add, sum, split, join, format (forward values,
batches, errors, and feedback that reaches each input unchanged, framed)."""
import pytest

import tensorplay.text as tt
from tensorplay.text import functional as F


@pytest.fixture(autouse=True)
def _no_backward_model():
    # deterministic ops never ask a model: with none set, a call would raise
    tt.set_backward_model(None)
    yield


def fb(text):
    return tt.Variable(text, role="feedback to output")


def leaf(data, role):
    return tt.Variable(data, role=role, requires_grad=True)


def check_framed(g, role, text, *words):
    assert g.role == f"feedback to {role}"
    assert g.data.endswith("\n" + text) and role in g.data.splitlines()[0]
    for w in words:
        assert w in g.data.splitlines()[0]


# -- add ------------------------------------------------------------------------------
def test_add_values():
    assert (tt.Variable("ab") + tt.Variable("cd")).data == "abcd"
    assert (tt.Variable(2) + tt.Variable(3.5)).data == 5.5
    assert F.add(tt.Variable(["a", "b"]), tt.Variable(["c", "d"])).data == ["ac", "bd"]
    assert F.add(tt.Variable([1, 2]), tt.Variable(10)).data == [11, 12]
    assert F.add(tt.Variable([["a"], ["b", "c"]]), tt.Variable("!")).data == [["a!"], ["b!", "c!"]]


def test_add_errors():
    with pytest.raises(ValueError, match="batches of different lengths"):
        tt.Variable(["a", "b"]) + tt.Variable(["c"])
    with pytest.raises(TypeError, match="unsupported operand"):
        tt.Variable("a") + "b"
    with pytest.raises(TypeError):
        "b" + tt.Variable("a")
    with pytest.raises(TypeError, match="expected Variables"):
        F.add(tt.Variable("a"), "b")
    with pytest.raises(TypeError, match="cannot add str and int"):
        tt.Variable("a") + tt.Variable(1)
    with pytest.raises(TypeError, match="cannot add NoneType"):
        tt.Variable(None) + tt.Variable(None)


def test_add_backward_frames_the_feedback_for_each_input():
    x, y = leaf("Hello", "greeting"), leaf(" world", "object")
    z = x + y
    assert z.grad_fn.name() == "AddBackward0"
    z.backward(fb("Too plain."))
    check_framed(x.grad[0], "greeting", "Too plain.", "left")
    check_framed(y.grad[0], "object", "Too plain.", "right")


def test_each_incoming_feedback_gives_one_entry():
    x = leaf("a", "x")
    z = x + tt.Variable("b")
    tt.autodiff.backward([z, z], [fb("one"), fb("two")])
    assert [g.data.splitlines()[-1] for g in x.grad] == ["one", "two"]


def test_iadd_rebinds():
    x = leaf("a", "x")
    y = x
    y += tt.Variable("b")
    assert y.data == "ab" and y.grad_fn.name() == "AddBackward0" and x.data == "a"
    y.backward(fb("f"))
    assert len(x.grad) == 1


# -- sum ------------------------------------------------------------------------------
def test_sum():
    a, b, c = leaf("a", "first"), tt.Variable("b", role="second"), leaf("c", "third")
    s = F.sum([a, b, c])
    assert s.data == "abc" and s.grad_fn.name() == "SumBackward0"
    assert len(s.grad_fn.next_functions) == 3 and s.grad_fn.next_functions[1] == (None, 0)
    assert F.sum([tt.Variable(1), tt.Variable(2), tt.Variable([3, 4])]).data == [6, 7]
    s.backward(fb("Wrong order."))
    check_framed(a.grad[0], "first", "Wrong order.", "term 1")
    check_framed(c.grad[0], "third", "Wrong order.", "term 3")
    with pytest.raises(ValueError, match="at least one"):
        F.sum([])
    with pytest.raises(TypeError, match="expected Variables"):
        F.sum(["a"])


# -- split ----------------------------------------------------------------------------
def test_split_values():
    parts = F.split(tt.Variable("a,b,,c"), ",")
    assert [p.data for p in parts] == ["a", "b", "", "c"]
    assert [p.data for p in F.split(tt.Variable(" a  b "))] == ["a", "b"]
    assert [p.data for p in F.split(tt.Variable("a b c"), maxsplit=1)] == ["a", "b c"]
    assert F.split(tt.Variable("   ")) == ()
    assert all(not p.requires_grad for p in parts)
    with pytest.raises(TypeError, match="holding a str"):
        F.split(tt.Variable(["a b"]))
    with pytest.raises(TypeError, match="holding a str"):
        F.split(tt.Variable(3))


def test_split_parts_each_send_feedback():
    x = leaf("intro. body. outro", "essay")
    p0, p1, p2 = F.split(x, ". ")
    assert p0.grad_fn is p1.grad_fn is p2.grad_fn and p0.grad_fn.name() == "SplitBackward0"
    assert p1.role == "part 2 of essay"
    p2.backward(fb("Weak ending."), retain_graph=True)
    assert len(x.grad) == 1
    check_framed(x.grad[0], "essay", "Weak ending.", "part 3 of 3", "'outro'")
    p0.backward(fb("Weak start."), retain_graph=True)
    assert len(x.grad) == 2 and "part 1 of 3" in x.grad[1].data
    # both parts in one pass: one node run, two entries
    tt.autodiff.backward([p0, p1], [fb("a"), fb("b")])
    assert len(x.grad) == 4


def test_split_parts_rejoined():
    x = leaf("a b", "pair")
    p, q = F.split(x)
    F.join([q, p], " ").backward(fb("f"))
    assert len(x.grad) == 2 and {g.data.splitlines()[0].count("part") for g in x.grad} == {1}


# -- join -----------------------------------------------------------------------------
def test_join():
    a, b = leaf("x", "first"), leaf(["1", "2"], "numbers")
    j = F.join([a, b, tt.Variable("end")], " - ")
    assert j.data == ["x - 1 - end", "x - 2 - end"] and j.grad_fn.name() == "JoinBackward0"
    j.backward(fb(["bad", "worse"]))
    (ga,) = a.grad                              # a was in every sample: one text
    assert "In sample 1:" in ga.data and ga.data.endswith("worse")
    (gb,) = b.grad                              # b is a batch: one text per sample
    assert [t.splitlines()[-1] for t in gb.data] == ["bad", "worse"]
    assert "item 2" in gb.data[0]
    with pytest.raises(TypeError, match="expected text"):
        F.join([tt.Variable(1)], ",")
    with pytest.raises(TypeError, match="sep must be a str"):
        F.join([a], None)
    assert F.join([], ",").data == ""


# -- format ---------------------------------------------------------------------------
def test_format_values():
    assert F.format("{a} and {b}", a=tt.Variable("x"), b=tt.Variable(3)).data == "x and 3"
    assert F.format("{a}{{a}} {x y} {", a=tt.Variable("1")).data == "1{a} {x y} {"
    assert F.format(tt.Variable(["<{a}>", "[{a}]"]), a=tt.Variable("v")).data == ["<v>", "[v]"]
    assert F.format("{a}", a=tt.Variable(["p", "q"])).data == ["p", "q"]
    assert F.format("{a}", a="constant").data == "constant"
    with pytest.raises(KeyError, match="missing"):
        F.format("{missing}", a=tt.Variable("x"))
    with pytest.raises(TypeError, match="a Variable, a str or a number"):
        F.format("{a}", a=object())
    with pytest.raises(TypeError, match="expected text"):
        F.format(tt.Variable(3))


def test_format_routes_feedback_to_each_variable_used():
    tpl = leaf("Q: {question}\nA: {answer}", "template")
    q, a, unused = leaf("2+2?", "question"), leaf("5", "answer"), leaf("u", "unused")
    out = F.format(tpl, question=q, answer=a, extra=unused)
    assert out.data == "Q: 2+2?\nA: 5" and out.grad_fn.name() == "FormatBackward0"
    assert len(out.grad_fn.next_functions) == 3     # template, question, answer: not extra
    out.backward(fb("The answer is wrong."))
    check_framed(tpl.grad[0], "template", "The answer is wrong.", "the template")
    check_framed(q.grad[0], "question", "The answer is wrong.", "{question}")
    check_framed(a.grad[0], "answer", "The answer is wrong.", "{answer}")
    assert unused.grad == []


def test_format_same_variable_in_two_placeholders():
    v = leaf("v", "value")
    F.format("{a} {b}", a=v, b=v).backward(fb("f"))
    assert len(v.grad) == 2


def test_no_grad_records_nothing():
    x = leaf("x", "x")
    with tt.no_grad():
        outs = [x + x, F.sum([x]), F.join([x], ""), F.format("{a}", a=x), *F.split(x)]
    assert all(o.grad_fn is None and not o.requires_grad for o in outs)
