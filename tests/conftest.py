import random

import numpy as np
import pytest

try:
    import torch
    torch.set_num_threads(1)
except ImportError:          # the comparisons skip; everything else runs
    torch = None


@pytest.fixture(autouse=True)
def _seeded_rngs():
    """Every test starts from the same random state, whatever ran before it: a test
    that draws random numbers without seeding them itself still sees the same
    numbers on every run and in any order (CI must not depend on luck)."""
    import tensorplay
    tensorplay.manual_seed(0)
    np.random.seed(0)
    random.seed(0)
    if torch is not None:
        torch.manual_seed(0)
    yield


def libs():
    """tensorplay, and torch when it is installed (skipped otherwise)."""
    import tensorplay
    return [pytest.param(tensorplay, id="tensorplay"),
            pytest.param(torch, id="torch", marks=pytest.mark.skipif(torch is None,
                                                                     reason="torch not installed"))]


@pytest.fixture(params=libs())
def T(request):
    """Run a test on both libraries: the same code is its own oracle."""
    return request.param


def exact(msg):
    """A ``pytest.raises(match=)`` pattern for exactly ``msg``."""
    import re
    return "^" + re.escape(msg) + "$"


def lst(t):
    return t.detach().tolist()


@pytest.fixture
def torch_or_skip():
    if torch is None:
        pytest.skip("torch not installed")
    return torch


def assert_close(a, b, atol=1e-6, rtol=1e-5, msg=""):
    a = np.asarray(a, dtype=np.complex128 if np.iscomplexobj(a) else np.float64)
    b = np.asarray(b, dtype=np.complex128 if np.iscomplexobj(b) else np.float64)
    assert a.shape == b.shape, f"{msg} shape {a.shape} != {b.shape}"
    np.testing.assert_allclose(a, b, atol=atol, rtol=rtol, err_msg=msg, equal_nan=True)


class OpRecorder:
    """A transform (``tensorplay.ops._registry.TRANSFORMS``) that notes every op
    call it sees (``seen``: names; ``calls``: op, arguments, result) and computes
    it as usual."""

    def __init__(self):
        self.seen, self.calls = [], []

    def process(self, op, args):
        from tensorplay.ops._registry import dispatch
        self.seen.append(op.name)
        out = dispatch(op, args)
        self.calls.append((op, list(args), out))
        return out


def record_ops(f, recorder=None):
    """Run ``f`` under ``recorder`` (a new ``OpRecorder`` by default); return the recorder."""
    from tensorplay.ops._registry import TRANSFORMS
    rec = OpRecorder() if recorder is None else recorder
    TRANSFORMS.append(rec)
    try:
        f()
    finally:
        TRANSFORMS.remove(rec)
    return rec


# The tutorial programs under tests/tutorials/ train at import time; tests/test_tutorials.py
# runs them.  Keep pytest's collection (and --doctest-modules) from importing them.  (Said
# here, not in a tests/tutorials/conftest.py: a second module named conftest would shadow
# this one for the tests that do `from conftest import ...`.)
collect_ignore_glob = ["tutorials/*.py"]


def detached_np(t):
    """A tensor's values as a NumPy array (either library)."""
    return t.detach().numpy()


def error_of(fn):
    """What ``fn()`` raises: (exception type name, message with the library's name
    as 'torch'), or None when it raises nothing."""
    try:
        fn()
    except Exception as e:          # noqa: BLE001 (the exception is the result)
        return type(e).__name__, str(e).replace("tensorplay.", "torch.")
    return None
