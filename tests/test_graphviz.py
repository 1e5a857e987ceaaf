"""to_dot / render: the DOT text of the backward graph."""
import re

import pytest

import tensorplay as tp
from tensorplay.autograd.graph import render, to_dot

NODE = re.compile(r'^\s*(n\d+) \[label="((?:[^"\\]|\\.)*)"', re.M)
EDGE = re.compile(r"^\s*(n\d+) -> (n\d+);", re.M)


def _nodes(dot):
    return {k: v.split("\\n") for k, v in NODE.findall(dot)}


def test_mlp_graph():
    x = tp.randn(4, 3, requires_grad=True)
    w = tp.randn(3, 2, requires_grad=True)
    b = tp.zeros(2, requires_grad=True)
    y = (x @ w + b).tanh().sum()
    dot = to_dot(y)
    assert dot.startswith("digraph")
    nodes = _nodes(dot)
    names = sorted(v[0] for v in nodes.values())
    assert names == sorted(["SumBackward0", "TanhBackward0", "AddBackward0", "MmBackward0",
                            "AccumulateGrad", "AccumulateGrad", "AccumulateGrad"])
    edges = EDGE.findall(dot)
    assert len(edges) == 6          # sum->tanh->add->{mm, b}, mm->{x, w}
    assert len(dot.split("->")) - 1 == 7      # plus the dashed edge from the tensor y
    leaves = sorted(v[1] for v in nodes.values() if v[0] == "AccumulateGrad")
    assert leaves == ["leaf (2) float32 requires_grad", "leaf (3, 2) float32 requires_grad",
                      "leaf (4, 3) float32 requires_grad"]
    mm = next(v for v in nodes.values() if v[0] == "MmBackward0")
    assert sorted(line.split(": ")[1] for line in mm[1:]) == [
        "(3, 2) float32 requires_grad", "(4, 3) float32 requires_grad"]
    tanh = next(v for v in nodes.values() if v[0] == "TanhBackward0")
    assert tanh[1:] == ["result: (4, 2) float32"]
    plain = _nodes(to_dot(y, show_saved=False))
    assert all(len(v) == 1 for k, v in plain.items() if v[0] != "AccumulateGrad")


def test_shared_nodes_once_and_several_roots():
    x = tp.randn(3, requires_grad=True)
    h = x.exp()
    a, b = h * 2, h.sin()
    dot = to_dot([a, b])
    nodes = _nodes(dot)
    assert sorted(v[0] for v in nodes.values()) == ["AccumulateGrad", "ExpBackward0",
                                                    "MulBackward0", "SinBackward0"]
    assert len(EDGE.findall(dot)) == 3
    assert dot.count("[style=dashed]") == 2


def test_function_nodes_show_saved_tensors():
    class Square(tp.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g
    x = tp.randn(2, 5, dtype=tp.float64, requires_grad=True)
    nodes = _nodes(to_dot(Square.apply(x)))
    sq = next(v for v in nodes.values() if v[0] == "SquareBackward")
    assert sq[1:] == ["saved0: (2, 5) float64 requires_grad"]


def test_tensor_without_history():
    x = tp.ones(2)
    dot = to_dot(x)
    assert "tensor (2) float32" in dot and "->" not in dot
    assert "requires_grad" in to_dot(tp.ones(2, requires_grad=True))


def test_deep_chain_no_recursion():
    x = tp.ones(1, requires_grad=True)
    y = x
    for _ in range(100000):
        y = y * 1.0
    dot = to_dot(y, show_saved=False)
    assert len(EDGE.findall(dot)) == 100000
    assert len(NODE.findall(dot)) == 100001


def test_render():
    y = (tp.randn(2, requires_grad=True) * 3).sum()
    try:
        import graphviz  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="graphviz"):
            render(y, "unused.svg")
        return
    import shutil
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot program is not installed")


def test_render_writes_svg(tmp_path):
    pytest.importorskip("graphviz")
    import shutil
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot program is not installed")
    y = (tp.randn(2, requires_grad=True) * 3).sum()
    p = render(y, str(tmp_path / "g.svg"))
    text = open(p).read()
    assert "<svg" in text and "MulBackward0" in text
    png = render(y, str(tmp_path / "g.png"), format="png")
    assert open(png, "rb").read(4) == b"\x89PNG"
