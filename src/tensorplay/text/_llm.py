"""Talking to language models: the backward model, JSON replies with retries,
and the prompts that ask for feedback.

A model is any callable ``model(messages, **kwargs) -> str`` whose
``messages`` is a list of ``{"role": str, "content": str}``.
"""
import json
import threading

ATTEMPTS = 3        # every reply that is not the JSON asked for is retried, this many tries in all

_default = [None]   # the process-wide backward model (set_backward_model)


class _Override(threading.local):
    stack = ()      # ``with backward_model(m):`` in this thread, innermost last


_override = _Override()


def _check_model(model):
    if model is not None and not callable(model):
        raise TypeError(f"a model must be callable as model(messages, **kwargs) -> str, got "
                        f"{type(model).__name__}")


def set_backward_model(model):
    """Make ``model`` the model that backward asks for feedback, in every thread
    (``None`` unsets it)."""
    _check_model(model)
    _default[0] = model


def get_backward_model():
    """The backward model in effect in this thread (None if none is set)."""
    stack = _override.stack
    return stack[-1] if stack else _default[0]


class backward_model:
    """``with backward_model(model):`` makes ``model`` the backward model in this
    thread for the block (``None``: none), then restores the one before."""

    def __init__(self, model):
        _check_model(model)
        self.model = model

    def __enter__(self):
        _override.stack = _override.stack + (self.model,)
        return self.model

    def __exit__(self, *exc):
        _override.stack = _override.stack[:-1]


def require_backward_model(op):
    model = get_backward_model()
    if model is None:
        raise RuntimeError(f"{op}: the backward needs a model to write feedback, and none is set; "
                           f"call tensorplay.text.set_backward_model(model) or run the backward "
                           f"inside `with tensorplay.text.backward_model(model):`")
    return model


def call(model, messages, op, **kwargs):
    reply = model(messages, **kwargs)
    if not isinstance(reply, str):
        raise TypeError(f"{op}: the model returned {type(reply).__name__}, expected str")
    return reply


def _loads(reply):
    """The JSON object in ``reply`` (a Markdown code fence around it is allowed)."""
    text = reply.strip()
    if text.startswith("```"):
        first, _, rest = text.partition("\n")
        if rest.rstrip().endswith("```"):
            text = rest.rstrip()[:-3]
    obj = json.loads(text)
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    return obj


def ask_json(model, messages, parse, op, form, **kwargs):
    """Call ``model`` until its reply is a JSON object that ``parse`` accepts
    (``parse(obj)`` returns the result or raises ``ValueError`` saying what is
    wrong), ``ATTEMPTS`` tries in all; a retry shows the model its last reply and
    what was wrong with it.  Then a ``RuntimeError`` naming ``op`` and showing
    the last reply."""
    convo = list(messages)
    for attempt in range(ATTEMPTS):
        reply = call(model, convo, op, **kwargs)
        try:
            return parse(_loads(reply))
        except ValueError as e:         # json.JSONDecodeError is a ValueError
            why = str(e)
        convo = list(messages) + [
            {"role": "assistant", "content": reply},
            {"role": "user", "content": f"That reply could not be used ({why}). Reply again with "
                                        f"only a JSON object of the form {form}."}]
    raise RuntimeError(f"{op}: the model's reply was not a JSON object of the form {form} after "
                       f"{ATTEMPTS} attempts ({why}); last reply: {reply!r}")


# -- asking for feedback ---------------------------------------------------------
FEEDBACK_SYSTEM = (
    "You are the backward pass of a system that improves text by automatic differentiation: "
    "the feedback you write plays the role of a gradient. Given a step of the computation, "
    "its output and the feedback on that output, write feedback on each listed variable: "
    "concrete criticism and suggestions saying how changing that variable would address the "
    "feedback on the output. Do not rewrite the variables yourself. Reply with only a JSON "
    "object.")


def feedback_form(n):
    items = ", ".join(f'"<feedback on variable {k + 1}>"' for k in range(min(n, 2)))
    return '{"feedback": [' + items + (", ..." if n > 2 else "") + f"]}} with exactly {n} " + \
        ("string" if n == 1 else "strings")


def parse_feedback(n):
    def parse(obj):
        fb = obj.get("feedback")
        if not isinstance(fb, list) or not all(isinstance(x, str) for x in fb):
            raise ValueError('"feedback" must be a list of strings')
        if len(fb) != n:
            raise ValueError(f'"feedback" has {len(fb)} strings, expected {n}')
        return fb
    return parse


def show_messages(messages):
    return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in messages)


def request_feedback(op, sections, variables):
    """Ask the backward model for feedback on ``variables`` (a list of (role,
    value)) given ``sections`` (a list of (title, text)): one call (retried as
    ``ask_json`` does); returns one text per variable."""
    model = require_backward_model(op)
    n = len(variables)
    parts = [f"## {title}\n{text}" for title, text in sections]
    parts.append(f"## Variables to give feedback on ({n})\n" + "\n\n".join(
        f"{k + 1}. Role: {role or 'unnamed variable'}\nValue:\n{value}"
        for k, (role, value) in enumerate(variables)))
    form = feedback_form(n)
    parts.append(f"Reply with only a JSON object of the form {form}, in the order listed.")
    messages = [{"role": "system", "content": FEEDBACK_SYSTEM},
                {"role": "user", "content": "\n\n".join(parts)}]
    return ask_json(model, messages, parse_feedback(n), op, form)
