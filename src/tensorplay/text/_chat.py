"""``chat_completion``: a language-model call as a node of the graph.

Forward fills the messages' ``{placeholders}`` and calls the model once per
sample.  Backward makes one backward-model call per sample that has feedback,
asking for feedback on every Variable of the call that requires grad.
"""
import re

from ._llm import call, request_feedback, show_messages
from ._node import TextNode, batch_size, record, sample, texts
from ._variable import Variable, feedback


def _as_text(op, x):
    if isinstance(x, str):
        return x
    if isinstance(x, (int, float)):
        return str(x)
    raise TypeError(f"{op}: message content must be text, got {type(x).__name__}")


class Prompt:
    """Messages with ``{placeholders}`` and their inputs, checked once; ``sample(i)``
    is sample ``i`` filled in.  ``variables`` are the Variables used, each once, in
    order: message parts first, then inputs.

    The parts of a message's content are joined with a newline.  Only names in
    ``inputs`` are placeholders: other braces are kept as they are (prompts
    are rewritten by optimizers, which may well write braces)."""

    def __init__(self, op, messages, inputs):
        if not isinstance(messages, (list, tuple)) or not messages:
            raise TypeError(f"{op}: messages must be a non-empty list of "
                            f"{{'role': ..., 'content': [...]}} dicts")
        self.op = op
        self.messages = []
        seen = {}
        n = None
        for m in messages:
            if not isinstance(m, dict) or set(m) != {"role", "content"}:
                raise TypeError(f"{op}: each message must be a dict with keys 'role' and "
                                f"'content', got {m!r}")
            if not isinstance(m["role"], str):
                raise TypeError(f"{op}: a message's role must be a str, got {m['role']!r}")
            content = m["content"]
            parts = list(content) if isinstance(content, (list, tuple)) else [content]
            for p in parts:
                if isinstance(p, Variable):
                    seen.setdefault(id(p), p)
                    n = batch_size(op, p._data, n)
                elif not isinstance(p, str):
                    raise TypeError(f"{op}: message content must be Variables or str, got "
                                    f"{type(p).__name__}")
            self.messages.append((m["role"], parts))
        self.inputs = {}
        for name, v in (inputs or {}).items():
            if not isinstance(name, str):
                raise TypeError(f"{op}: input names must be str, got {name!r}")
            if isinstance(v, Variable):
                seen.setdefault(id(v), v)
                data = v._data
            elif isinstance(v, (str, list)):
                data = v
            else:
                raise TypeError(f"{op}: input {name!r} must be a str, a list of str (a batch) or "
                                f"a Variable, got {type(v).__name__}")
            n = batch_size(op, data, n)
            self.inputs[name] = v
        self.variables = list(seen.values())
        self.n = n
        self._field = (re.compile("|".join(r"\{" + re.escape(k) + r"\}" for k in self.inputs))
                       if self.inputs else None)

    def sample(self, i):
        """Sample ``i``'s messages as ``[{"role", "content"}]`` with str content."""
        op = self.op
        values = {}
        for name, v in self.inputs.items():
            values["{" + name + "}"] = _as_text(op, sample(v._data if isinstance(v, Variable)
                                                           else v, i))
        out = []
        for role, parts in self.messages:
            text = "\n".join(_as_text(op, sample(p._data, i) if isinstance(p, Variable) else p)
                             for p in parts)
            if self._field is not None:
                text = self._field.sub(lambda m: values[m.group(0)], text)
            out.append({"role": role, "content": text})
        return out


def value_of(v, i):
    d = sample(v._data, i)
    return d if isinstance(d, str) else repr(d)


class ChatCompletionBackward0(TextNode):
    def backward(self, grads, saved):
        fbs = grads[0]
        if not fbs:
            return (None,) * len(self.next_edges)
        variables, filled, replies, batched = saved
        per_var = [[] for _ in variables]       # per variable: a text (or None) per sample
        for i, (msgs, reply) in enumerate(zip(filled, replies)):
            said = texts(fbs, i if batched else None)
            got = [None] * len(variables) if not said else request_feedback(
                "chat_completion",
                [("Messages sent to the language model", show_messages(msgs)),
                 ("The language model's response", reply),
                 ("Feedback on the response", "\n\n".join(said))],
                [(role, values[i]) for role, _, values in variables])
            for fb, t in zip(per_var, got):
                fb.append(t)
        out = []
        for (role, data, _), fb in zip(variables, per_var):
            if all(t is None for t in fb):
                out.append(None)
            elif type(data) is list:           # a batch: one feedback Variable, a text per sample
                out.append((feedback(fb, role),))
            else:                              # shared by the samples: one per sample
                out.append(tuple(feedback(t, role) for t in fb if t is not None))
        return tuple(out)


def chat_completion(model, messages, inputs=None, **completion_args):
    """Call ``model`` on ``messages`` (a list of ``{"role": ..., "content": [Variable
    or str, ...]}``) with their ``{placeholders}`` filled from ``inputs`` (name ->
    str, list of str for a batch, or Variable), once per sample; the response is
    a Variable (a batch when the inputs are).  ``completion_args`` go to the
    model.

        >>> import tensorplay.text as tt
        >>> from tensorplay.text.models import EchoModel
        >>> r = tt.functional.chat_completion(
        ...     EchoModel(), [{"role": "user", "content": ["Say {word}"]}],
        ...     inputs={"word": ["hi", "bye"]})
        >>> r.data
        ['Say hi', 'Say bye']
    """
    if not callable(model):
        raise TypeError(f"chat_completion: model must be callable, got {type(model).__name__}")
    prompt = Prompt("chat_completion", messages, inputs)
    n = prompt.n
    filled = [prompt.sample(i) for i in range(1 if n is None else n)]
    replies = [call(model, msgs, "chat_completion", **completion_args) for msgs in filled]
    out = Variable(replies[0] if n is None else replies, "response of the language model")
    needs = [v for v in prompt.variables if v._rg]
    record(ChatCompletionBackward0, needs, (out,), lambda: (
        [(v.role, v._data, [value_of(v, i) for i in range(len(filled))]) for v in needs],
        filled, replies, n is not None))
    return out
