"""The deterministic text ops: ``add``, ``sum``, ``split``, ``join``, ``format``.

Their backward makes no model call: each input that needs feedback gets, per
feedback Variable on the output, a new feedback Variable whose text is the
output's feedback unchanged, after one sentence naming the input's role and
its place in the op.
"""
import re

from ._node import TextNode, describe, framed_feedback, record, short, zip_map
from ._variable import Variable


def _add2(a, b):
    if isinstance(a, str) and isinstance(b, str):
        return a + b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a + b
    raise TypeError(f"cannot add {type(a).__name__} and {type(b).__name__} (text adds to text, "
                    f"numbers to numbers)")


def _frame_each(node, fbs, items, sentence):
    """For each input edge ``k`` of ``node``: the feedback ``fbs`` framed by
    ``sentence(k, role name)`` (``items[k]`` is the input's (data, role))."""
    return tuple(None if e is None or not fbs else
                 framed_feedback(fbs, sentence(k, describe(role)), data, role)
                 for k, (e, (data, role)) in enumerate(zip(node.next_edges, items)))


def _check_vars(op, xs):
    for x in xs:
        if not isinstance(x, Variable):
            raise TypeError(f"{op}(): expected Variables, got {type(x).__name__}")


# -- add ---------------------------------------------------------------------------
class AddBackward0(TextNode):
    def backward(self, grads, saved):
        return _frame_each(self, grads[0], saved, lambda k, name: (
            f"Feedback on the result of an addition in which the {name} was the "
            f"{('left', 'right')[k]} operand:"))


def add(x, y):
    """``x + y``: text concatenates, numbers add, batches element by element (a
    single value goes with every element).

        >>> import tensorplay.text as tt
        >>> (tt.Variable("ab") + tt.Variable(["c", "d"])).data
        ['abc', 'abd']
    """
    _check_vars("add", (x, y))
    out = Variable(zip_map(_add2, x._data, y._data), f"{short(x.role)} + {short(y.role)}")
    record(AddBackward0, (x, y), (out,), lambda: ((x._data, x.role), (y._data, y.role)))
    return out


def _variable_add(self, other):
    if not isinstance(other, Variable):
        return NotImplemented
    return add(self, other)


Variable.__add__ = _variable_add


# -- sum ---------------------------------------------------------------------------
def _sum_n(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = _add2(out, x)
    return out


class SumBackward0(TextNode):
    def backward(self, grads, saved):
        return _frame_each(self, grads[0], saved, lambda k, name: (
            f"Feedback on a sum of {len(saved)} values in which the {name} was term {k + 1}:"))


def sum(variables):
    """The Variables in order added up (text concatenated, numbers summed), in one node.

        >>> import tensorplay.text as tt
        >>> tt.functional.sum([tt.Variable("a"), tt.Variable("b"), tt.Variable("c")]).data
        'abc'
    """
    variables = list(variables)
    if not variables:
        raise ValueError("sum(): expected at least one Variable")
    _check_vars("sum", variables)
    out = Variable(zip_map(_sum_n, *[v._data for v in variables]),
                   "sum of " + ", ".join(short(v.role) for v in variables[:3])
                   + (", ..." if len(variables) > 3 else ""))
    record(SumBackward0, variables, (out,), lambda: [(v._data, v.role) for v in variables])
    return out


# -- split -------------------------------------------------------------------------
class SplitBackward0(TextNode):
    def backward(self, grads, saved):
        data, role, sep, parts = saved
        out = []
        for k, fbs in enumerate(grads):
            if fbs:
                fb = framed_feedback(fbs, f"Feedback on part {k + 1} of {len(parts)} of the "
                                          f"{describe(role)} (split at {sep!r}), which read "
                                          f"{parts[k]!r}:", data, role)
                out.extend(fb or ())
        return (tuple(out) or None,)


def split(x, sep=None, maxsplit=-1):
    """``x.data.split(sep, maxsplit)`` as a tuple of Variables that share one node:
    feedback on any part reaches ``x``.

        >>> import tensorplay.text as tt
        >>> [p.data for p in tt.functional.split(tt.Variable("a b c"), maxsplit=1)]
        ['a', 'b c']
    """
    _check_vars("split", (x,))
    if not isinstance(x._data, str):
        raise TypeError(f"split(): expected a Variable holding a str, got "
                        f"{type(x._data).__name__} (a batch splits into different numbers of "
                        f"parts)")
    parts = x._data.split(sep, maxsplit)
    outs = tuple(Variable(p, f"part {k + 1} of {short(x.role)}") for k, p in enumerate(parts))
    if outs:
        record(SplitBackward0, (x,), outs, lambda: (x._data, x.role, sep, parts))
    return outs


# -- join --------------------------------------------------------------------------
def _check_text(op, xs):
    for x in xs:
        if not isinstance(x, str):
            raise TypeError(f"{op}(): expected text, got {type(x).__name__}")
    return xs


class JoinBackward0(TextNode):
    def backward(self, grads, saved):
        sep, items = saved
        return _frame_each(self, grads[0], items, lambda k, name: (
            f"Feedback on a text joining {len(items)} values with {sep!r} in which the {name} "
            f"was item {k + 1}:"))


def join(variables, sep):
    """``sep.join`` of the Variables' text (batches element by element), in one node.

        >>> import tensorplay.text as tt
        >>> tt.functional.join([tt.Variable("a"), tt.Variable("b")], ", ").data
        'a, b'
    """
    if not isinstance(sep, str):
        raise TypeError(f"join(): sep must be a str, got {type(sep).__name__}")
    variables = list(variables)
    _check_vars("join", variables)
    data = zip_map(lambda *xs: sep.join(_check_text("join", xs)), *[v._data for v in variables])
    out = Variable(data, "join of " + ", ".join(short(v.role) for v in variables[:3])
                   + (", ..." if len(variables) > 3 else ""))
    record(JoinBackward0, variables, (out,),
           lambda: (sep, [(v._data, v.role) for v in variables]))
    return out


# -- format ------------------------------------------------------------------------
_FIELD = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z_0-9]*)\}")


def _fill(template, values):
    """``{name}`` replaced by ``values[name]``; ``{{``/``}}`` are literal braces; a
    name with no value is a ``KeyError`` (as ``str.format``)."""
    def sub(m):
        name = m.group(1)
        if name is None:
            return m.group(0)[0]
        return values[name]
    return _FIELD.sub(sub, template)


def _fields(template, found):
    for t in (template if type(template) is list else [template]):
        if type(t) is list:
            _fields(t, found)
        elif isinstance(t, str):
            for m in _FIELD.finditer(t):
                if m.group(1) is not None:
                    found.setdefault(m.group(1))
    return found


class FormatBackward0(TextNode):
    def backward(self, grads, saved):
        names, items = saved
        return _frame_each(self, grads[0], items, lambda k, name: (
            f"Feedback on a text made from a template in which the {name} was " +
            ("the template:" if names[k] is None else "the placeholder {" + names[k] + "}:")))


def format(template, **variables):
    """``template`` with each ``{name}`` replaced by ``variables[name]`` (a Variable,
    or a constant str or number); ``{{`` and ``}}`` are literal braces, any other
    brace is kept as it is.  ``template`` may be a str or a Variable; batches go
    element by element.  Feedback reaches the template (when a Variable) and
    each Variable used.

        >>> import tensorplay.text as tt
        >>> tt.functional.format("Hi {name}!", name=tt.Variable("Ada")).data
        'Hi Ada!'
    """
    tdata = template._data if isinstance(template, Variable) else template
    zip_map(lambda t: _check_text("format", (t,)), tdata)
    used = list(_fields(tdata, {}))
    missing = [n for n in used if n not in variables]
    if missing:
        raise KeyError(missing[0])
    vals = [variables[n] for n in used]
    datas = [v._data if isinstance(v, Variable) else v for v in vals]
    for d in datas:
        if not isinstance(d, (list, str, int, float)):
            raise TypeError(f"format(): a value must be a Variable, a str or a number, got "
                            f"{type(d).__name__}")

    def fill(t, *xs):
        return _fill(t, {n: x if isinstance(x, str) else str(x) for n, x in zip(used, xs)})
    out = Variable(zip_map(fill, tdata, *datas),
                   "formatted " + (short(template.role) if isinstance(template, Variable)
                                   else "template"))
    inputs = [(None, template)] if isinstance(template, Variable) else []
    inputs += [(n, v) for n, v in zip(used, vals) if isinstance(v, Variable)]
    record(FormatBackward0, [v for _, v in inputs], (out,),
           lambda: ([n for n, _ in inputs], [(v._data, v.role) for _, v in inputs]))
    return out

