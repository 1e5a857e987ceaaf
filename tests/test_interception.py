"""Every spelling of every op reaches the one interception point (ops/_registry.py
``TRANSFORMS``), where a transform (forward mode, vmap) can take over."""
import pytest

import tensorplay as tp
from tensorplay.ops._registry import TRANSFORMS, dispatch

from conftest import OpRecorder, record_ops


def _seen(f):
    return record_ops(f).seen


tp.manual_seed(0)
X, Y, V = tp.randn(3, 3), tp.randn(3, 3), tp.randn(3)
SPELLINGS = {
    "operator *": (lambda: X * Y, ["mul"]),
    "operator + number": (lambda: X + 1, ["add"]),
    "reflected - number": (lambda: 1 - X, ["sub"]),
    "reflected **": (lambda: 2 ** X, ["pow"]),
    "unary operator": (lambda: -X, ["neg"]),
    "abs()": (lambda: abs(X), ["abs"]),
    "method": (lambda: X.sin(), ["sin"]),
    "function": (lambda: tp.exp(X), ["exp"]),
    "function with kwargs": (lambda: tp.add(X, Y, alpha=2), ["add"]),
    "half precision": (lambda: X.half().exp(), ["_to_copy", "exp"]),
    "2-D @": (lambda: X @ Y, ["mm"]),
    "batched @": (lambda: tp.ones(2, 3, 3) @ Y, ["matmul"]),
    "reduction": (lambda: X.sum(0), ["sum"]),
    "basic indexing": (lambda: X[0], ["select"]),
    "advanced indexing": (lambda: X[tp.tensor([0, 2])], ["index"]),
    "variadic": (lambda: tp.cat([X, Y]), ["cat"]),
    "view": (lambda: X.view(9), ["view"]),
    "where": (lambda: tp.where(X > 0, X, Y), ["gt", "where"]),
    "in-place method": (lambda: X.clone().mul_(2), ["clone", "mul"]),
    "in-place operator": (lambda: X.clone().__iadd__(Y), ["clone", "add"]),
    "setitem": (lambda: X.clone().__setitem__(0, 1.0), ["clone", "index_put"]),
    "copy_": (lambda: X.clone().copy_(Y), ["clone", "copy_from"]),
}


@pytest.mark.parametrize("name", SPELLINGS)
def test_spelling_reaches_the_interception_point(name):
    f, expected = SPELLINGS[name]
    assert _seen(f) == expected


def test_in_place_ufunc_path_is_not_taken_under_a_transform():
    x = X.clone()
    with tp.no_grad():
        assert _seen(lambda: x.add_(1)) == ["add"]
        assert _seen(lambda: x.__isub__(Y)) == ["sub"]


def test_a_transform_computes_below_itself():
    """While a transform handles an op, the ops it calls do not come back to it."""
    class Doubler(OpRecorder):
        def process(self, op, args):
            self.seen.append(op.name)
            return dispatch(op, args) * 2

    d = Doubler()
    TRANSFORMS.append(d)
    try:
        out = X + Y
    finally:
        TRANSFORMS.remove(d)
    assert d.seen == ["add"]
    assert tp.allclose(out, (X + Y) * 2)


def test_no_transform_no_detour():
    assert not TRANSFORMS


def test_custom_function_reaches_the_interception_point():
    class Square(tp.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    class FunctionRecorder(OpRecorder):
        def process_function(self, cls, args, kwargs):
            self.seen.append(cls.__name__)
            return cls.apply(*args, **kwargs)       # below this transform: the plain path

    r = FunctionRecorder()
    x = tp.tensor([3.0], requires_grad=True)
    TRANSFORMS.append(r)
    try:
        y = Square.apply(x)
    finally:
        TRANSFORMS.remove(r)
    assert r.seen == ["Square"]          # the ops inside forward ran below the transform
    y.backward()
    assert x.grad.item() == 6.0
