"""Seeing the backward graph: Graphviz DOT source, and (with the optional
``graphviz`` package) rendered pictures.

    >>> x, w = tensorplay.ones(2, 3), tensorplay.ones(3, 4, requires_grad=True)
    >>> y = (x @ w).tanh().sum()
    >>> dot = tensorplay.autograd.graph.to_dot(y)        # DOT text
    >>> dot.startswith("digraph") and "MmBackward0" in dot
    True

``tensorplay.autograd.graph.render(y, "graph.svg")`` draws it (needs ``pip install graphviz``).

One box per backward node (``grad_fn`` and everything reachable through
``next_functions``), labelled with its name and, with ``show_saved``, the
shapes of the tensors it saved for backward.  Edges follow ``next_functions``
(from a node to the nodes its gradients flow to).  A leaf's ``AccumulateGrad``
shows the leaf's shape; the tensors passed in appear as ellipses pointing at
their ``grad_fn``.  Tensors that require grad are marked ``requires_grad``.
The walk uses an explicit stack, so graphs of any depth work.
"""
import numpy as np

from .. import _dtype as D
from .._autograd.graph import AccumulateGrad
from .._tensor import Tensor

_STYLE = {
    "root": 'shape=ellipse style=filled fillcolor="#b8e0b8"',
    "leaf": 'style=filled fillcolor="#cfe2ff"',
    "node": 'style=filled fillcolor="#f4f4f4"',
    "plain": 'style=filled fillcolor="#ffffff"',
}


def _quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _desc(shape, dtype, rg=False):
    try:
        name = D._FROM_NP[dtype].name
    except (KeyError, TypeError):
        name = str(dtype)
    return f"({', '.join(str(s) for s in shape)}) {name}" + (" requires_grad" if rg else "")


def _tensor_desc(t):
    return _desc(t._data.shape, t._data.dtype, t._rg)


def _saved_lines(node):
    """"name: (shape) dtype" for each tensor ``node`` saved for backward."""
    lines = []
    d = node.__dict__ if hasattr(node, "__dict__") else {}
    if hasattr(type(node), "op") and type(node).op is not None and hasattr(node, "args"):
        # an op node: tensors among its arguments, and the output if a vjp reads it
        args = node.args
        names = getattr(type(node).op, "names", ())
        if args is not None:
            for i, a in enumerate(args):
                if isinstance(a, Tensor):
                    n = names[i] if i < len(names) else f"arg{i}"
                    lines.append(f"{n}: {_tensor_desc(a)}")
        out = getattr(node, "out", None)
        if isinstance(out, np.ndarray):
            lines.append(f"result: {_desc(out.shape, out.dtype)}")
        elif isinstance(out, tuple):
            for k, o in enumerate(out):
                if isinstance(o, np.ndarray):
                    lines.append(f"result{k}: {_desc(o.shape, o.dtype)}")
        return lines
    saved = d.get("_saved")
    if saved:                       # a custom Function's node: its save_for_backward tensors
        for i, s in enumerate(saved):
            if s is None:
                continue
            t = getattr(s, "tensor", None)
            data = getattr(s, "data", None)
            packed = getattr(s, "packed", None)
            if t is not None:
                lines.append(f"saved{i}: {_tensor_desc(t)}")
            elif data is not None:
                lines.append(f"saved{i}: {_desc(data.shape, data.dtype)}")
            elif isinstance(packed, Tensor):
                lines.append(f"saved{i}: {_tensor_desc(packed)} (packed)")
            else:
                lines.append(f"saved{i}: (packed by a saved-tensor hook)")
    return lines


def _roots(tensor_or_tensors):
    if isinstance(tensor_or_tensors, Tensor):
        return [tensor_or_tensors]
    out = []
    for t in tensor_or_tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"to_dot expects a Tensor or a sequence of Tensors, got "
                            f"{type(t).__name__}")
        out.append(t)
    return out


def to_dot(tensor_or_tensors, show_saved=True):
    """Graphviz DOT source (a str) of the backward graph behind the given
    tensor(s).  ``show_saved`` adds the shapes of each node's saved tensors."""
    roots = _roots(tensor_or_tensors)
    ids = {}

    def ident(obj):
        k = id(obj)
        if k not in ids:
            ids[k] = f"n{len(ids)}"
        return ids[k]

    lines = ["digraph backward {",
             '  graph [rankdir=TB fontname="Helvetica"];',
             '  node [shape=box fontname="Helvetica" fontsize=11 height=0.2];',
             "  edge [arrowsize=0.7];"]
    keep = []                     # keep the objects alive so that id() stays unique
    stack = []
    seen = set()
    for r, t in enumerate(roots):
        keep.append(t)
        tid = f"t{r}"
        lines.append(f"  {tid} [label={_quote('tensor ' + _tensor_desc(t))} {_STYLE['root']}];")
        fn = t._gfn
        if fn is not None:
            lines.append(f"  {tid} -> {ident(fn)} [style=dashed];")
            if id(fn) not in seen:
                seen.add(id(fn))
                stack.append(fn)
    while stack:
        node = stack.pop()
        keep.append(node)
        nid = ident(node)
        if isinstance(node, AccumulateGrad):
            label = [node.name(), "leaf " + _tensor_desc(node.variable)]
            style = _STYLE["leaf"]
        else:
            label = [node.name()] + (_saved_lines(node) if show_saved else [])
            style = _STYLE["node"]
        lines.append(f"  {nid} [label={_quote(chr(10).join(label))} {style}];")
        for e in node.next_edges:
            if e is None:
                continue
            m = e[0]
            lines.append(f"  {nid} -> {ident(m)};")
            if id(m) not in seen:
                seen.add(id(m))
                stack.append(m)
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(tensor_or_tensors, path, format="svg", show_saved=True):
    """Draw the backward graph to ``path`` (``format`` "svg", "png", or any
    format Graphviz's ``dot`` knows).  Needs the optional ``graphviz`` Python
    package (``pip install graphviz`` or ``pip install tensorplay[viz]``) and
    Graphviz's ``dot`` program.  Returns ``path``."""
    try:
        import graphviz
    except ImportError:
        raise ImportError("render() needs the optional 'graphviz' Python package: pip install "
                          "graphviz (or tensorplay[viz]); Graphviz's 'dot' program must be "
                          "installed too. to_dot() gives the DOT source without it.") from None
    data = graphviz.Source(to_dot(tensor_or_tensors, show_saved)).pipe(format=format)
    with open(path, "wb") as f:
        f.write(data)
    return path
