"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode.

Most tests run the same code on tensorplay and (when installed) on torch, so
the expectations are checked against the reference too."""
import threading
import warnings

import pytest

import tensorplay as tp
from conftest import torch


def _libs():
    return [pytest.param(tp, id="tensorplay"),
            pytest.param(torch, id="torch", marks=pytest.mark.skipif(torch is None,
                                                                     reason="torch not installed"))]


@pytest.fixture(params=_libs())
def T(request):
    lib = request.param
    prev = lib.is_grad_enabled()
    lib.set_grad_enabled(True)
    yield lib
    lib.set_grad_enabled(prev)


def _leaf(T):
    return T.tensor([1., 2.], requires_grad=True)


# ------------------------------------------------------------------ as `with`
def test_no_grad_with(T):
    x = _leaf(T)
    with T.no_grad():
        assert T.is_grad_enabled() is False
        y = x * 2
    assert T.is_grad_enabled() is True
    assert y.requires_grad is False and y.grad_fn is None and y.is_leaf


def test_enable_grad_with(T):
    x = _leaf(T)
    with T.no_grad():
        with T.enable_grad():
            assert T.is_grad_enabled() is True
            y = x * 2
        assert T.is_grad_enabled() is False
    assert y.requires_grad and y.grad_fn is not None


def test_enable_grad_inside_enabled_is_noop(T):
    with T.enable_grad():
        assert T.is_grad_enabled()
    assert T.is_grad_enabled()


@pytest.mark.parametrize("mode", [True, False])
def test_set_grad_enabled_with(T, mode):
    x = _leaf(T)
    with T.set_grad_enabled(mode):
        assert T.is_grad_enabled() is mode
        y = x * 2
    assert T.is_grad_enabled() is True
    assert y.requires_grad is mode


def test_set_grad_enabled_with_restores_disabled(T):
    with T.no_grad():
        with T.set_grad_enabled(True):
            assert T.is_grad_enabled()
        assert not T.is_grad_enabled()


def test_set_grad_enabled_function_call(T):
    x = _leaf(T)
    T.set_grad_enabled(False)
    assert T.is_grad_enabled() is False
    assert (x * 2).requires_grad is False
    T.set_grad_enabled(True)
    assert T.is_grad_enabled() is True
    assert (x * 2).requires_grad is True


def test_set_grad_enabled_call_inside_no_grad_is_undone_on_exit(T):
    with T.no_grad():
        T.set_grad_enabled(True)
        assert T.is_grad_enabled()
    assert T.is_grad_enabled()
    with T.enable_grad():
        T.set_grad_enabled(False)
        assert not T.is_grad_enabled()
    assert T.is_grad_enabled()


@pytest.mark.parametrize("bad", [1, 0, None, "yes"])
def test_set_grad_enabled_requires_bool(T, bad):
    with pytest.raises(TypeError, match=r"set_grad_enabled\(\): argument 'enabled' \(position 1\) "
                                        r"must be bool, not " + type(bad).__name__):
        T.set_grad_enabled(bad)
    assert T.is_grad_enabled()


def test_inference_mode_with(T):
    x = _leaf(T)
    assert T.is_inference_mode_enabled() is False
    with T.inference_mode():
        assert T.is_inference_mode_enabled() is True
        assert T.is_grad_enabled() is False
        y = x * 2
        z = T.ones(2)
    assert T.is_inference_mode_enabled() is False
    assert T.is_grad_enabled() is True
    assert y.requires_grad is False
    assert z.is_inference() and y.is_inference()
    assert not x.is_inference()


def test_inference_mode_false_is_noop(T):
    with T.inference_mode(False):
        assert not T.is_inference_mode_enabled()
        assert T.is_grad_enabled()
        assert not T.ones(1).is_inference()
    with T.no_grad():
        with T.inference_mode(False):     # like c10::InferenceMode(false): grad mode on
            assert T.is_grad_enabled()
        assert not T.is_grad_enabled()


def test_inference_mode_false_inside_inference_mode(T):
    with T.inference_mode():
        with T.inference_mode(False):
            assert T.is_inference_mode_enabled() is False
            assert T.is_grad_enabled() is True
        assert T.is_inference_mode_enabled() is True
        assert T.is_grad_enabled() is False


def test_inference_tensor_cannot_require_grad(T):
    with T.inference_mode():
        t = T.ones(2)
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor outside "
                                           "InferenceMode is not allowed."):
        t.requires_grad_()


def test_inference_mode_requires_grad_factory(T):
    with T.inference_mode():
        t = T.ones(2, requires_grad=True)
        assert t.requires_grad


# ------------------------------------------------------------------ as decorators
@pytest.mark.parametrize("name", ["no_grad", "enable_grad", "inference_mode"])
@pytest.mark.parametrize("form", ["called", "bare"])
def test_decorator_forms(T, name, form):
    mode = getattr(T, name)
    want_grad = name == "enable_grad"
    deco = mode() if form == "called" else mode

    @deco
    def f(x, k=1):
        """doc"""
        return x * k, T.is_grad_enabled(), T.is_inference_mode_enabled()

    assert f.__name__ == "f" and f.__doc__ == "doc"
    x = _leaf(T)
    outer = T.no_grad() if want_grad else T.enable_grad()
    with outer:
        y, g, inf = f(x, k=3)
        assert T.is_grad_enabled() is (not want_grad)     # restored
    assert g is want_grad
    assert inf is (name == "inference_mode")
    assert y.requires_grad is want_grad
    assert T.is_inference_mode_enabled() is False


@pytest.mark.parametrize("mode", [True, False])
def test_set_grad_enabled_decorator(T, mode):
    @T.set_grad_enabled(mode)
    def f(x):
        return x * 2, T.is_grad_enabled()

    # decorating must not change the current mode
    assert T.is_grad_enabled() is True
    x = _leaf(T)
    y, g = f(x)
    assert g is mode and y.requires_grad is mode
    assert T.is_grad_enabled() is True
    with T.no_grad():
        y, g = f(x)
        assert g is mode
        assert T.is_grad_enabled() is False


def test_set_grad_enabled_decorator_when_disabled(T):
    with T.no_grad():
        @T.set_grad_enabled(True)
        def f():
            return T.is_grad_enabled()
        assert T.is_grad_enabled() is False
    assert f() is True
    assert T.is_grad_enabled() is True


def test_inference_mode_false_decorator(T):
    @T.inference_mode(False)
    def f():
        return T.is_inference_mode_enabled(), T.is_grad_enabled()

    with T.inference_mode():
        assert f() == (False, True)
        assert T.is_inference_mode_enabled()


def test_decorated_function_is_reentrant(T):
    @T.no_grad()
    def f(n):
        if n:
            with T.enable_grad():
                inner = f(n - 1)
                assert T.is_grad_enabled()
            return [T.is_grad_enabled()] + inner
        return [T.is_grad_enabled()]

    assert f(3) == [False] * 4
    assert T.is_grad_enabled()


def test_decorating_a_class_warns(T):
    with pytest.warns(FutureWarning, match="Decorating classes is deprecated"):
        @T.no_grad()
        class A:
            def __init__(self):
                self.g = T.is_grad_enabled()
    assert A().g is False
    assert T.is_grad_enabled()


def test_mode_objects_reusable(T):
    ng = T.no_grad()
    for _ in range(2):
        with ng:
            assert not T.is_grad_enabled()
        assert T.is_grad_enabled()
    eg = T.enable_grad()
    with T.no_grad():
        with eg:
            assert T.is_grad_enabled()
        with eg:
            assert T.is_grad_enabled()
        assert not T.is_grad_enabled()


def test_modes_are_context_manager_instances(T):
    assert T.no_grad().__enter__() is None
    T.set_grad_enabled(True)
    assert T.set_grad_enabled(False).__enter__() is None
    T.set_grad_enabled(True)


# ------------------------------------------------------------------ generators
@pytest.mark.parametrize("name", ["no_grad", "enable_grad", "inference_mode"])
@pytest.mark.parametrize("form", ["called", "bare"])
def test_generator_mode_inside_each_resumption_only(T, name, form):
    mode = getattr(T, name)
    inside = name == "enable_grad"
    deco = mode() if form == "called" else mode

    @deco
    def gen(n):
        for i in range(n):
            got = yield (i, T.is_grad_enabled(), T.is_inference_mode_enabled())
            assert T.is_grad_enabled() is inside
            assert got == i * 10

    outer = T.no_grad() if inside else T.enable_grad()
    with outer:
        g = gen(3)
        outside = T.is_grad_enabled()
        assert outside is not inside
        seen = [next(g)]
        while True:
            assert T.is_grad_enabled() is outside     # not between resumptions
            assert T.is_inference_mode_enabled() is False
            try:
                seen.append(g.send(seen[-1][0] * 10))
            except StopIteration:
                break
    assert [s[0] for s in seen] == [0, 1, 2]
    assert all(s[1] is inside for s in seen)
    assert all(s[2] is (name == "inference_mode") for s in seen)
    assert T.is_grad_enabled()


def test_generator_set_grad_enabled(T):
    @T.set_grad_enabled(False)
    def gen():
        yield T.is_grad_enabled()
        yield T.is_grad_enabled()

    g = gen()
    assert next(g) is False
    assert T.is_grad_enabled()
    assert next(g) is False
    assert T.is_grad_enabled()


def test_generator_return_value_and_throw_close(T):
    closed = []

    @T.no_grad()
    def gen():
        try:
            x = yield 1
            while True:
                try:
                    x = yield x
                except ValueError:
                    x = ("caught", T.is_grad_enabled())
        finally:
            closed.append(T.is_grad_enabled())

    g = gen()
    assert next(g) == 1
    assert g.send(5) == 5
    assert g.throw(ValueError) == ("caught", False)
    assert T.is_grad_enabled()
    g.close()
    assert closed == [False]
    assert T.is_grad_enabled()

    @T.no_grad()
    def ret():
        yield 1
        return 42

    g = ret()
    next(g)
    with pytest.raises(StopIteration) as info:
        next(g)
    assert info.value.value == 42


def test_generator_exception_propagates(T):
    @T.no_grad()
    def gen():
        yield 1
        raise KeyError("boom")

    g = gen()
    next(g)
    with pytest.raises(KeyError):
        next(g)
    assert T.is_grad_enabled()


# ------------------------------------------------------------------ factories and no_grad
def test_factories_not_affected_by_no_grad(T):
    with T.no_grad():
        made = [T.tensor([1.], requires_grad=True), T.zeros(2, requires_grad=True),
                T.ones(2, requires_grad=True), T.full((2,), 1., requires_grad=True),
                T.empty(2, requires_grad=True), T.rand(2, requires_grad=True),
                T.randn(2, requires_grad=True), T.arange(3., requires_grad=True),
                T.linspace(0, 1, 3, requires_grad=True), T.eye(2, requires_grad=True),
                T.zeros_like(T.ones(2), requires_grad=True),
                T.ones_like(T.ones(2), requires_grad=True),
                T.nn.Parameter(T.rand(3))]
        made.append(T.ones(2).requires_grad_())
    for t in made:
        assert t.requires_grad and t.is_leaf and t.grad_fn is None


def test_no_grad_result_can_be_made_to_require_grad(T):
    x = _leaf(T)
    with T.no_grad():
        y = x * 2
    y.requires_grad_()
    (y * y).sum().backward()
    assert y.grad.tolist() == [4., 8.]
    assert x.grad is None


def test_backward_inside_no_grad_still_works(T):
    x = _leaf(T)
    y = (x * x).sum()
    with T.no_grad():
        y.backward()
    assert x.grad.tolist() == [2., 4.]


# ------------------------------------------------------------------ exceptions
def test_nested_modes_restore_on_exceptions(T):
    with pytest.raises(ZeroDivisionError):
        with T.no_grad():
            with T.enable_grad():
                with T.set_grad_enabled(False):
                    with T.inference_mode():
                        assert T.is_inference_mode_enabled()
                        1 / 0
    assert T.is_grad_enabled() is True
    assert T.is_inference_mode_enabled() is False

    with T.no_grad():
        try:
            with T.enable_grad():
                raise ValueError
        except ValueError:
            assert T.is_grad_enabled() is False
        try:
            with T.inference_mode():
                raise ValueError
        except ValueError:
            assert T.is_grad_enabled() is False
            assert T.is_inference_mode_enabled() is False
    assert T.is_grad_enabled() is True


def test_decorator_restores_on_exception(T):
    @T.no_grad()
    def f():
        raise RuntimeError("x")

    @T.inference_mode
    def g():
        raise RuntimeError("y")

    for fn in (f, g):
        with pytest.raises(RuntimeError):
            fn()
        assert T.is_grad_enabled() is True
        assert T.is_inference_mode_enabled() is False


# ------------------------------------------------------------------ threads
def test_grad_mode_is_thread_local(T):
    seen = {}
    started, release = threading.Event(), threading.Event()

    def worker():
        seen["enabled"] = T.is_grad_enabled()
        seen["inference"] = T.is_inference_mode_enabled()
        x = T.tensor([1.], requires_grad=True)
        seen["rg"] = (x * 2).requires_grad
        with T.no_grad():            # does not leak into the main thread
            started.set()
            release.wait(10)
        seen["after"] = T.is_grad_enabled()

    with T.no_grad():
        th = threading.Thread(target=worker)
        th.start()
        assert started.wait(10)
        assert T.is_grad_enabled() is False
        release.set()
        th.join(10)
    assert T.is_grad_enabled() is True
    assert seen == {"enabled": True, "inference": False, "rg": True, "after": True}


def test_inference_mode_is_thread_local(T):
    seen = {}

    def worker():
        seen["inference"] = T.is_inference_mode_enabled()
        seen["enabled"] = T.is_grad_enabled()

    with T.inference_mode():
        th = threading.Thread(target=worker)
        th.start()
        th.join(10)
    assert seen == {"inference": False, "enabled": True}


def test_inference_tensors_follow_each_threads_mode(T):
    # ops made while another thread is in inference mode are normal here, and
    # that thread's ops (pointwise, general and views) make inference tensors
    seen = {}
    inside, release = threading.Event(), threading.Event()
    x = T.ones(2, 2)

    def worker():
        with T.inference_mode():
            inside.set()
            release.wait(10)
            seen["there"] = [(x * 2).is_inference(), x.tanh().is_inference(),
                             x.sum(1).is_inference(), (x @ x).is_inference()]

    th = threading.Thread(target=worker)
    th.start()
    assert inside.wait(10)
    here = [(x * 2).is_inference(), x.tanh().is_inference(), x.sum(1).is_inference(),
            (x @ x).is_inference()]
    release.set()
    th.join(10)
    assert here == [False] * 4
    assert seen["there"] == [True] * 4
    with T.inference_mode():
        with T.inference_mode(False):
            assert not (x * 2).is_inference()
        assert (x * 2).is_inference()
    assert not (x * 2).is_inference()


def test_set_grad_enabled_call_in_thread_does_not_leak(T):
    def worker():
        T.set_grad_enabled(False)

    th = threading.Thread(target=worker)
    th.start()
    th.join(10)
    assert T.is_grad_enabled() is True


# ------------------------------------------------------------------ tensorplay specifics
def test_tensorplay_modes_reexported():
    assert tp.autograd.no_grad is tp.no_grad
    assert tp.autograd.enable_grad is tp.enable_grad
    assert tp.autograd.set_grad_enabled is tp.set_grad_enabled
    assert tp.autograd.inference_mode is tp.inference_mode
    assert tp.autograd.grad_mode.no_grad is tp.no_grad


def test_no_warnings_from_modes():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with tp.no_grad():
            pass
        tp.set_grad_enabled(True)
