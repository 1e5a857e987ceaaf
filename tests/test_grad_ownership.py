"""Who owns a leaf's first gradient.

PyTorch keeps ("steals") an incoming gradient as ``.grad`` when nothing else
can see it, and copies it otherwise.  tensorplay does the same from reference
counts on the CPython versions where they were checked (``_PRIVATE_REFS``);
elsewhere it always copies.  These tests would notice if stealing silently
stopped (a copy per leaf per backward) or if a shared gradient were kept
(``.grad`` aliasing memory that something else can change)."""
import sys

import numpy as np
import pytest

import tensorplay as tp
from tensorplay import _tensor
from tensorplay._tensor import TensorMeta
from tensorplay.ops._registry import REGISTRY, _NO_ARG, dispatch, record, record_pointwise

STEALS = _tensor._PRIVATE_REFS > 0


def _ptr(t):
    return t._data.__array_interface__["data"][0]


def test_private_first_gradient_is_kept_without_a_copy():
    x = tp.ones(1000, requires_grad=True)
    seen = {}

    def hook(g):
        fresh = g * 1.0             # a new gradient that only the engine will hold
        seen["ptr"] = _ptr(fresh)
        return fresh
    x.register_hook(hook)
    (x * 3.0).sum().backward()
    assert np.all(x.grad.numpy() == 3.0)
    if STEALS:
        assert _ptr(x.grad) == seen["ptr"], "a private first gradient was copied"
    else:
        assert _ptr(x.grad) != seen["ptr"]


def test_gradient_the_user_still_holds_is_copied():
    x = tp.ones(5, requires_grad=True)
    kept = []

    def hook(g):
        fresh = g * 1.0
        kept.append(fresh)          # the user keeps a reference: not private
        return fresh
    x.register_hook(hook)
    (x * 2.0).sum().backward()
    assert _ptr(x.grad) != _ptr(kept[0])
    x.grad.zero_()
    assert np.all(kept[0].numpy() == 2.0)


def test_gradient_reaching_two_leaves_is_copied_for_one_of_them():
    x = tp.ones(4, requires_grad=True)
    y = tp.ones(4, requires_grad=True)
    (x + y).sum().backward()
    assert not np.shares_memory(x.grad.numpy(), y.grad.numpy())
    x.grad.zero_()
    assert np.all(y.grad.numpy() == 1.0)


def test_user_seed_is_copied():
    x = tp.ones(3, requires_grad=True)
    seed = tp.full((3,), 2.0)
    x.backward(seed)
    assert not np.shares_memory(x.grad.numpy(), seed.numpy())
    seed.zero_()
    assert np.all(x.grad.numpy() == 2.0)


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="reference counts are CPython's")
def test_stealing_is_on_where_counts_were_checked():
    assert STEALS == (sys.version_info < (3, 14))


# ---------------------------------------------------------------- one recording algorithm
def _node_summary(node):
    def desc(a):
        if isinstance(a, tp.Tensor):
            return ("tensor", id(a))
        if isinstance(a, TensorMeta):
            return ("meta", a.shape, a.dtype)
        return a
    return (type(node).__name__, tuple(node.next_edges), node.input_meta,
            tuple(desc(a) for a in node.args),
            None if node.out is None else node.out.shape,
            None if node.versions is None else [(ver, k) for _, ver, _, k in node.versions])


_PATTERNS = [(name, p) for name in ("mul", "add", "sub", "div", "pow", "atan2", "tanh", "exp",
                                     "sigmoid", "sqrt", "abs", "maximum")
             for p in (("x", "f64_f32") if REGISTRY[name].n_in == 1 else
                       ("x", "y", "xy", "x_num", "num_y", "broadcast", "f64_f32"))]


@pytest.mark.parametrize("name, pattern", _PATTERNS)
def test_record_pointwise_builds_what_record_builds(name, pattern):
    """The pointwise fast paths' unrolled ``record_pointwise`` and the general
    ``record`` follow the same SavePlan: same edges, metadata, saved arguments,
    saved output and version stamps, for every pattern of inputs."""
    op = REGISTRY[name]
    rng = np.random.default_rng(0)
    a = lambda *s, dt=np.float64: tp.tensor(rng.uniform(0.5, 2.0, s).astype(dt))  # noqa: E731
    if op.n_in == 1:
        xs = [(a(3).requires_grad_(), _NO_ARG)]
    else:
        x, y = a(3), a(1 if pattern == "broadcast" else 3,
                       dt=np.float32 if pattern == "f64_f32" else np.float64)
        xs = {"x": [(x.requires_grad_(), y)], "y": [(x, y.requires_grad_())],
              "xy": [(x.requires_grad_(), y.requires_grad_())], "x_num": [(x.requires_grad_(), 1.5)],
              "num_y": [(1.5, y.requires_grad_())],
              "broadcast": [(x.requires_grad_(), y.requires_grad_())],
              "f64_f32": [(x.requires_grad_(), y.requires_grad_())]}[pattern]
    for x, y in xs:
        args = (x,) if y is _NO_ARG else (x, y)
        with tp.no_grad():
            value = dispatch(op, list(args))
        out1, out2 = value.clone(), value.clone()
        n1 = record_pointwise(op, x, y, out1)
        n2 = record(op, args, out2)
        s1, s2 = _node_summary(n1), _node_summary(n2)
        assert s1[:5] == s2[:5]
        assert s1[5] == s2[5]
        assert out1.grad_fn is n1 and out2.grad_fn is n2
