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
