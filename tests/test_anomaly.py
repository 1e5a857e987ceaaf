"""Anomaly detection: NaN checks naming the node, creation stacks of the
user's code, parent nodes for nodes made during backward; compared with PyTorch."""
import warnings

import pytest

import tensorplay as tp
from tensorplay.autograd import anomaly_mode


def _run(lib, fn):
    """Run fn under detect_anomaly; (exception or None, [warning texts])."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        err = None
        with lib.autograd.detect_anomaly():
            try:
                fn(lib)
            except Exception as e:          # noqa: BLE001 - compared below
                err = e
    return err, [str(m.message) for m in w if m.category is UserWarning]


def _log_nan(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    y = x.log() * 0          # the line the creation trace must show
    y.sum().backward()


def test_nan_names_node_and_shows_user_line():
    err, msgs = _run(tp, _log_nan)
    assert isinstance(err, RuntimeError)
    assert str(err) == "Function 'LogBackward0' returned nan values in its 0th output."
    assert msgs[0].startswith("Anomaly Detection has been enabled.")
    trace = [m for m in msgs if m.startswith("Error detected in LogBackward0. Traceback of forward "
                                             "call that caused the error:\n")]
    assert len(trace) == 1
    assert "y = x.log() * 0" in trace[0]
    assert "tensorplay" + "/" not in trace[0].replace("tests/", "")   # own frames trimmed
    assert trace[0].rstrip().splitlines()[-1].strip().startswith("y = x.log() * 0")


def test_nan_matches_torch(torch_or_skip):
    e_tp, m_tp = _run(tp, _log_nan)
    e_t, m_t = _run(torch_or_skip, _log_nan)
    assert type(e_tp) is type(e_t) and str(e_tp) == str(e_t)
    head = [m.split(":")[0] for m in m_tp]
    assert head == [m.split(":")[0] for m in m_t]


def test_check_nan_false_no_error():
    x = tp.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tp.autograd.detect_anomaly(check_nan=False):
            assert tp.autograd.is_anomaly_enabled()
            assert not tp.autograd.is_anomaly_check_nan_enabled()
            (x.log() * 0).sum().backward()
    assert not tp.autograd.is_anomaly_enabled()
    assert tp.autograd.is_anomaly_check_nan_enabled()


def _make_bad(lib):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")
    return Bad


def _bad_fn(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = _make_bad(lib).apply(x * 3)     # Bad's creation
    y.sum().backward()


def test_error_in_backward_propagates_with_trace(torch_or_skip):
    for lib in (tp, torch_or_skip):
        err, msgs = _run(lib, _bad_fn)
        assert type(err) is ValueError and str(err) == "boom"
        trace = [m for m in msgs if m.startswith("Error detected in BadBackward. Traceback")]
        assert len(trace) == 1, (lib, msgs)
        assert "y = _make_bad(lib).apply(x * 3)" in trace[0]


def test_no_forward_info_warning(torch_or_skip):
    for lib in (tp, torch_or_skip):
        x = lib.tensor([0.0], requires_grad=True)
        y = x.log() * 0                       # recorded without anomaly detection
        err, msgs = _run(lib, lambda _: y.sum().backward())
        assert str(err) == "Function 'LogBackward0' returned nan values in its 0th output."
        assert any(m.startswith("Error detected in LogBackward0. No forward pass information "
                                "available. Enable detect anomaly during forward pass for more "
                                "information.") for m in msgs), msgs


def _nested(lib):
    class Nan(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    class Outer(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return Nan.apply(g * x) * 2       # NanBackward is created here, during backward

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = Outer.apply(x).sum()
    g, = lib.autograd.grad(y, x, create_graph=True)
    g.sum().backward()


def test_double_backward_parent_trace(torch_or_skip):
    results = {}
    for lib in (tp, torch_or_skip):
        err, msgs = _run(lib, _nested)
        assert str(err) == "Function 'NanBackward' returned nan values in its 0th output."
        first = [m for m in msgs if m.startswith("Error detected in NanBackward.")]
        parent = [m for m in msgs if "Previous calculation was induced by OuterBackward. Traceback "
                  "of forward call that induced the previous calculation:\n" in m]
        assert len(first) == 1 and len(parent) == 1, msgs
        assert "return Nan.apply(g * x) * 2" in first[0]
        assert "y = Outer.apply(x).sum()" in parent[0]
        assert parent[0].startswith("\n\nPrevious calculation")
        results[lib] = len(msgs)
    assert results[tp] == results[torch_or_skip]


def test_parent_is_the_running_node_also_after_a_nested_pass():
    made = {}

    class Outer(tp.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            with tp.enable_grad():
                xi = x.detach().requires_grad_()
                tp.autograd.grad((xi * xi).sum(), xi)       # a pass run by this node
                made["after_inner"] = (xi * 3).grad_fn
            return g

    x = tp.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tp.autograd.detect_anomaly():
            Outer.apply(x).sum().backward()
            made["after_pass"] = (x * 2).grad_fn
    assert made["after_inner"].__dict__["_anomaly_parent"][0] == "OuterBackward"
    assert "_anomaly_parent" not in made["after_pass"].__dict__


def test_double_backward_works_under_anomaly():
    x = tp.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tp.autograd.detect_anomaly():
            g, = tp.autograd.grad((x ** 3).sum(), x, create_graph=True)
            g.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]


def test_set_detect_anomaly_function_and_context():
    assert not tp.autograd.is_anomaly_enabled()
    tp.autograd.set_detect_anomaly(True)
    try:
        assert tp.autograd.is_anomaly_enabled()
    finally:
        tp.autograd.set_detect_anomaly(False)
    assert not tp.autograd.is_anomaly_enabled()
    with tp.autograd.set_detect_anomaly(True, check_nan=False):
        assert tp.autograd.is_anomaly_enabled() and not tp.autograd.is_anomaly_check_nan_enabled()
    assert not tp.autograd.is_anomaly_enabled() and tp.autograd.is_anomaly_check_nan_enabled()


def test_decorator():
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        deco = tp.autograd.detect_anomaly()

    @deco
    def f():
        return tp.autograd.is_anomaly_enabled()

    assert f() and f()
    assert not tp.autograd.is_anomaly_enabled()


def test_nodes_remember_stack_only_when_enabled():
    x = tp.tensor([1.0], requires_grad=True)
    assert anomaly_mode.creation_trace((x * 2).grad_fn) is None
    with tp.autograd.set_detect_anomaly(True):
        y = x * 2
    trace = anomaly_mode.creation_trace(y.grad_fn)
    assert "y = x * 2" in trace and "src/tensorplay" not in trace


def test_inplace_error_under_anomaly_propagates():
    x = tp.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with tp.autograd.set_detect_anomaly(True):
            y = x.exp()
            y.add_(1)
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                y.sum().backward()
    assert any("Error detected in ExpBackward0" in str(m.message) for m in w)
