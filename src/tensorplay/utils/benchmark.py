"""``tensorplay.utils.benchmark``: ``Timer`` and ``Measurement`` with the interface
and printed summary of ``torch.utils.benchmark``, which tutorials use to time
code.

    >>> from tensorplay.utils.benchmark import Timer
    >>> t = Timer("x * y", setup="import tensorplay; x = tensorplay.ones(8); y = x")
    >>> m = t.blocked_autorange(min_run_time=0.05)
    >>> print(m)                            # doctest: +SKIP
    <tensorplay.utils.benchmark.Measurement object at 0x7f...>
    x * y
    setup: import tensorplay; x = tensorplay.ones(8); y = x
      Median: 1.21 us
      IQR:    0.02 us (1.20 to 1.22)
      17 measurements, 10000 runs per measurement, 1 thread

Statements run with Python's ``timeit`` machinery (compiled once, in a fresh
namespace that ``globals`` seeds); tensorplay computes in the calling thread,
so ``num_threads`` is recorded and reported only.
"""
import math
import textwrap
import timeit as _timeit

import numpy as np

__all__ = ["Timer", "Measurement"]

_IQR_WARN = 0.1                 # PyTorch's thresholds for the spread warnings
_IQR_GROSS_WARN = 0.25


def select_unit(t):
    """(unit, scale) that shows ``t`` seconds as a number of order one."""
    if t <= 0:
        return "ns", 1e-9
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.floor(math.log10(t) / 3)), "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


class TaskSpec:
    """What was timed: the statement, its setup and the labels (for the summary)."""

    def __init__(self, stmt, setup, global_setup="", label=None, sub_label=None,
                 description=None, env=None, num_threads=1):
        self.stmt, self.setup, self.global_setup = stmt, setup, global_setup
        self.label, self.sub_label, self.description = label, sub_label, description
        self.env, self.num_threads = env, num_threads

    @property
    def title(self):
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return (f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n"
                + textwrap.indent(self.stmt, "  "))

    def setup_str(self):
        parts = [s for s in (self.global_setup, self.setup) if s and s != "pass"]
        if not parts:
            return ""
        text = "\n".join(parts)
        return f"setup: {text}" if "\n" not in text else "setup:\n" + textwrap.indent(text, "  ")

    def summarize(self):
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)


class Measurement:
    """The times of one ``Timer`` run: ``raw_times`` (seconds per block of
    ``number_per_run`` runs) and their per-run statistics (``times``, ``mean``,
    ``median``, ``iqr``)."""

    def __init__(self, number_per_run, raw_times, task_spec, metadata=None):
        self.number_per_run, self.raw_times = number_per_run, list(raw_times)
        self.task_spec, self.metadata = task_spec, metadata
        t = np.sort(np.asarray(self.times, np.float64))
        self._median = float(np.quantile(t, 0.5)) if t.size else math.nan
        self._mean = float(t.mean()) if t.size else math.nan
        self._p25 = float(np.quantile(t, 0.25)) if t.size else math.nan
        self._p75 = float(np.quantile(t, 0.75)) if t.size else math.nan
        self._warnings = []
        if t.size and self._median > 0:
            rel = self.iqr / self.median * 100
            if not self.meets_confidence(_IQR_GROSS_WARN):
                self._warnings.append(f"  WARNING: Interquartile range is {rel:.1f}% of the median "
                                      "measurement.\n           This suggests significant "
                                      "environmental influence.")
            elif not self.meets_confidence(_IQR_WARN):
                self._warnings.append(f"  WARNING: Interquartile range is {rel:.1f}% of the median "
                                      "measurement.\n           This could indicate system "
                                      "fluctuation.")

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self):
        return self._median

    @property
    def mean(self):
        return self._mean

    @property
    def iqr(self):
        return self._p75 - self._p25

    @property
    def significant_figures(self):
        """How many figures of the median the spread leaves meaningful (1 to 4)."""
        n = len(self.raw_times)
        if n < 2 or self._mean == 0:
            return 1
        std = float(np.std(self.times, ddof=1))
        t_crit = 1.96                      # normal approximation of the 95% interval
        interval = t_crit * std / math.sqrt(n)
        if interval <= 0:
            return 4
        relative = interval / self._mean
        return int(max(1, min(4, math.floor(-math.log10(relative)) + 1)))

    @property
    def has_warnings(self):
        return bool(self._warnings)

    def meets_confidence(self, threshold=_IQR_WARN):
        return self.iqr / self.median < threshold

    @property
    def title(self):
        return self.task_spec.title

    @property
    def stmt(self):
        return self.task_spec.stmt

    @property
    def env(self):
        return "Unspecified env" if self.task_spec.env is None else self.task_spec.env

    @property
    def as_row_name(self):
        return self.task_spec.sub_label or self.task_spec.stmt or "[Unknown]"

    def __repr__(self):
        n = len(self.raw_times)
        unit, scale = select_unit(self._median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({self._p25 / scale:.2f} to "
                         f"{self._p75 / scale:.2f})")
        threads = self.task_spec.num_threads
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads} "
                     f"thread{'s' if threads > 1 else ''}")
        lines += self._warnings
        return "\n".join(lines).strip()

    __str__ = __repr__

    @staticmethod
    def merge(measurements):
        """Replicates of the same task as one measurement each, with per-run times."""
        groups = {}
        for m in measurements:
            groups.setdefault(id(m.task_spec), (m.task_spec, []))[1].extend(m.times)
        return [Measurement(1, times, spec) for spec, times in groups.values()]


class Timer:
    """Time ``stmt`` (a string of Python, or a callable), after ``setup``, with
    ``globals`` seeding its namespace; ``timeit``, ``blocked_autorange`` and
    ``adaptive_autorange`` return a ``Measurement`` (PyTorch's interface)."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=_timeit.default_timer,
                 globals=None, label=None, sub_label=None, description=None, env=None,
                 num_threads=1, language="python"):
        if language not in ("python", "py"):
            raise ValueError(f"Invalid language `{language}`: tensorplay times Python statements")
        if not isinstance(stmt, str) and not callable(stmt):
            raise ValueError("Currently only a `str` stmt (or a callable) is supported.")
        namespace = dict(globals or {})
        if global_setup:
            exec(global_setup, namespace)
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=namespace)
        self._task_spec = TaskSpec(stmt if isinstance(stmt, str) else
                                   getattr(stmt, "__name__", repr(stmt)) + "()",
                                   setup if isinstance(setup, str) else "<callable>",
                                   global_setup, label, sub_label, description, env, num_threads)

    def _timeit(self, number):
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number=1000000):
        """``stmt`` run ``number`` times (after a short warm-up): one measurement."""
        self._timeit(max(number // 100, 2))
        return Measurement(number, [self._timeit(number)], self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _block_size(self, min_run_time):
        """Runs per block, so that the timer's own cost is negligible (also a warm-up)."""
        overhead = float(np.median([self._timeit(0) for _ in range(5)]))
        number = 1
        while True:
            took = self._timeit(number)
            if (overhead / took <= 1e-4 and took >= min_run_time / 1000) or took > min_run_time \
                    or number * 10 > 2147483647:
                return number
            number *= 10

    def _loop(self, number, stop, min_run_time, max_run_time=None, callback=None):
        total, times = 0.0, []
        while True:
            t = self._timeit(number)
            times.append(t)
            total += t
            if callback is not None:
                callback(number, t)
            if (total >= min_run_time and stop(times)) or (max_run_time and total > max_run_time):
                return times

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of runs until ``min_run_time`` seconds have been measured."""
        number = self._block_size(min_run_time)
        times = self._loop(number, lambda ts: True, min_run_time, callback=callback)
        return Measurement(number, times, self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0,
                           callback=None):
        """Blocks of runs until the spread (IQR / median) is below ``threshold``
        (with at least four blocks), or ``max_run_time`` is spent."""
        number = self._block_size(0.05)

        def stop(ts):
            return len(ts) > 3 and Measurement(number, ts, self._task_spec).meets_confidence(
                threshold)
        times = self._loop(number, stop, min_run_time, max_run_time, callback)
        return Measurement(number, times, self._task_spec)
