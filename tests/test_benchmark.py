"""tensorplay.utils.benchmark.Timer: PyTorch's interface and printed summary, run on
tensorplay and torch alike.  No test asserts a real time: the summary's layout, and
its statistics computed from given times."""
import importlib
import re

import pytest


def _benchmark(T):
    return importlib.import_module(T.__name__ + ".utils.benchmark")


def _timer(T, **kw):
    B = _benchmark(T)
    ns = {"x": T.ones(3), "y": T.ones(3)}
    return B.Timer("x + y", setup="z = 1", globals=ns, **kw)


def _body(m):
    """The printed summary without the object's address line."""
    return "\n".join(str(m).splitlines()[1:])


def test_timeit_summary(T):
    m = _timer(T).timeit(100)
    assert m.number_per_run == 100 and len(m.raw_times) == 1 and len(m.times) == 1
    lines = _body(m).splitlines()
    assert lines[0] == "x + y" and lines[1] == "setup: z = 1"
    assert re.fullmatch(r"  \d+\.\d\d (ns|us|ms|s)", lines[2])
    assert lines[3] == "  1 measurement, 100 runs , 1 thread"
    assert str(m).startswith("<") and "Measurement object at 0x" in str(m).splitlines()[0]


def test_blocked_autorange_statistics(T):
    calls = []
    m = _timer(T).blocked_autorange(callback=lambda n, t: calls.append((n, t)), min_run_time=0.01)
    assert len(m.raw_times) == len(calls) >= 1 and all(n == m.number_per_run for n, _ in calls)
    assert sum(m.raw_times) >= 0.01
    ts = sorted(m.times)
    assert ts[0] <= m.median <= ts[-1] and ts[0] <= m.mean <= ts[-1] and m.iqr >= 0
    lines = _body(m).splitlines()
    n = len(m.raw_times)
    count = f"  {n} measurement{'s' if n > 1 else ''}, {m.number_per_run} runs " + \
        ("per measurement," if n > 1 else ",") + " 1 thread"
    assert count in lines
    if n >= 4:
        assert any(re.fullmatch(r"  IQR:    \d+\.\d\d \w+ \(\d+\.\d\d to \d+\.\d\d\)", line)
                   for line in lines)


def test_labels_and_callable_stmt(T):
    B = _benchmark(T)
    m = B.Timer("f(x)", globals={"f": lambda v: v * 2, "x": T.ones(2)}, label="lbl",
                sub_label="sub", description="desc").timeit(10)
    assert _body(m).splitlines()[:2] == ["lbl: sub", "desc"]
    assert m.title == "lbl: sub"


def test_adaptive_autorange_stops(T):
    # it stops once the IQR is within the threshold (after at least 4 measurements), or
    # when max_run_time is spent: which one depends on the machine's load, not on us
    m = _timer(T).adaptive_autorange(threshold=10.0, max_run_time=2.0)
    assert len(m.raw_times) >= 1
    assert (len(m.raw_times) >= 4 and m.meets_confidence(10.0)) or sum(m.raw_times) >= 2.0 * 0.5


def test_statistics_from_given_times(T):
    common = importlib.import_module("torch.utils.benchmark.utils.common" if T.__name__ == "torch"
                                     else "tensorplay.utils.benchmark")
    Measurement, TaskSpec = common.Measurement, common.TaskSpec
    spec = TaskSpec("x", "pass")
    m = Measurement(10, [1e-5, 2e-5, 3e-5, 4e-5, 10e-5], spec)
    assert m.times == pytest.approx([1e-6, 2e-6, 3e-6, 4e-6, 1e-5])
    assert m.median == pytest.approx(3e-6) and m.mean == pytest.approx(4e-6)
    assert m.iqr == pytest.approx(2e-6)                   # 4e-6 - 2e-6 (linear quantiles)
    text = str(m).splitlines()
    assert text[1:4] == ["x", "  Median: 3.00 us", "  IQR:    2.00 us (2.00 to 4.00)"]
    assert text[4] == "  5 measurements, 10 runs per measurement, 1 thread"
    assert text[5].startswith("  WARNING: Interquartile range is 66.7% of the median measurement.")
    assert m.has_warnings and not m.meets_confidence(0.25)
    merged, = Measurement.merge([m, m])
    assert merged.number_per_run == 1 and len(merged.times) == 10
