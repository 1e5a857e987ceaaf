"""Text nodes on the shared graph, and the batch and framing rules text ops share.

A text op records a ``TextNode``: a ``Node`` of the one engine
(``tensorplay/_autograd``), with one edge per input Variable that requires
grad.  What flows along the edges is a tuple of feedback Variables; the
engine joins two that meet with ``+`` and never looks inside.  A text node
fits any input (``input_meta = None``: the engine asks no ``validate``), keeps
what its backward reads in ``saved`` and drops it in ``release``, after which
a second backward through it raises PyTorch's error.
"""
from .._autograd.anomaly_mode import anomaly, note_creation
from .._autograd.engine import FREED_MSG
from .._autograd.grad_mode import state
from .._autograd.graph import Node
from ._variable import feedback


class TextNode(Node):
    """The backward of one text op.  Subclasses define ``backward(grads, saved)``:
    ``grads[k]`` is the tuple of feedback on forward output ``k`` (None if none
    came), and the result holds, per input edge, a tuple of new feedback
    Variables (or None)."""

    def __init__(self, inputs, n_out, saved):
        self.next_edges = tuple(v._edge() if v._rg else None for v in inputs)
        self.input_meta = None
        self.n_out = n_out
        self.saved = saved

    def apply(self, grads):
        saved = self.saved
        if saved is None:
            raise RuntimeError(FREED_MSG)
        return self.backward(grads, saved)

    def release(self):
        self.saved = None

    def backward(self, grads, saved):
        raise NotImplementedError


def record(node_cls, inputs, outputs, saved):
    """Make the node of an op if grad mode is on and an input requires grad, and
    make it the ``grad_fn`` of the outputs (one output number each).  ``saved``
    is a function returning what the backward reads, called only then."""
    if not state.enabled or not any(v._rg for v in inputs):
        return None
    node = node_cls(inputs, len(outputs), saved())
    if anomaly.enabled:
        note_creation(node)
    for k, out in enumerate(outputs):
        out._gfn, out._out_nr, out._rg = node, k, True
    return node


def describe(role):
    return role or "unnamed variable"


def short(role, limit=60):
    """A role as part of a derived role: bounded, so that roles (and the framing
    sentences naming them) do not grow along a chain of ops."""
    role = describe(role)
    return role if len(role) <= limit else role[:limit - 3] + "..."


# -- batches ---------------------------------------------------------------------
def zip_map(fn, *datas):
    """``fn`` applied element by element over the batches (lists) among ``datas``,
    at every level of nesting; a single value is used with every element.
    Batches of different lengths are a ``ValueError``."""
    lists = [d for d in datas if type(d) is list]
    if not lists:
        return fn(*datas)
    n = len(lists[0])
    if any(len(d) != n for d in lists):
        raise ValueError(f"batches of different lengths: {sorted({len(d) for d in lists})}")
    return [zip_map(fn, *[d[i] if type(d) is list else d for d in datas]) for i in range(n)]


def batch_size(what, data, n):
    """The batch size so far (``n``, None while unknown) checked against ``data``."""
    if type(data) is not list:
        return n
    if n is not None and len(data) != n:
        raise ValueError(f"{what}: batches of different lengths ({n} and {len(data)})")
    return len(data)


def sample(data, i):
    """Sample ``i`` of a batch; a single value is every sample's."""
    return data[i] if type(data) is list else data


# -- feedback --------------------------------------------------------------------
def frame(data, sentence):
    """Each feedback text in ``data`` (text, None, or nested batches of them)
    unchanged, after a sentence saying what it is about."""
    return zip_map(lambda t: None if t is None else f"{sentence}\n{t}", data)


def _collapse(data):
    """Batched feedback for a single value used by every sample: one text."""
    lines, stack = [], [((), data)]
    while stack:
        path, d = stack.pop()
        if type(d) is list:
            stack.extend(((path + (i + 1,), x) for i, x in reversed(list(enumerate(d)))))
        elif d is not None:
            lines.append(f"In sample {'.'.join(map(str, path))}: {d}")
    return "\n".join(lines) if lines else None


def fit(fb, data):
    """Shape the feedback ``fb`` (made for an output) to an input whose data is
    ``data``: where the input was a single value broadcast over a batch, the
    feedback on the batch's samples becomes one text."""
    if type(fb) is not list:
        return fb
    if type(data) is not list:
        return _collapse(fb)
    return [fit(f, d) for f, d in zip(fb, data)]


def _empty(data):
    if type(data) is not list:
        return data is None
    return all(_empty(d) for d in data)


def framed_feedback(fbs, sentence, data, role):
    """Feedback for one input from the tuple ``fbs`` on an output: one feedback
    Variable per incoming one, framed by ``sentence`` and fit to ``data``."""
    out = []
    for f in fbs:
        d = fit(frame(f._data, sentence), data)
        if not _empty(d):
            out.append(feedback(d, role))
    return tuple(out) or None


def texts(fbs, i=None):
    """The feedback texts of ``fbs`` for sample ``i`` (all of it when None): a list."""
    out = []
    for f in fbs:
        d = f._data if i is None else sample(f._data, i)
        if type(d) is list:
            d = _collapse(d)
        if d is not None:
            out.append(d)
    return out
