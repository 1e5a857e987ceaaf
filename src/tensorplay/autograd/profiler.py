"""A simple profiler with PyTorch's interface (``torch.autograd.profiler``).

``with profile() as prof:`` records, as nested events with CPU times: every op
call (named ``aten::<op>``, as PyTorch names them; with ``record_shapes=True``
the shapes of its tensor arguments), every custom ``Function`` call, every
backward node the engine runs (``autograd::engine::evaluate_function: <Node>``
around ``<Node>``), and every ``record_function(name)`` block.
``prof.key_averages().table(sort_by=..., row_limit=...)`` prints PyTorch's
table.

It costs nothing while no profile is active: op calls are seen through the
registry's interception point (``ops._registry.TRANSFORMS``, where forward mode
also works), which is empty then, and the engine looks for a profiler once per
backward pass (``_autograd/profiling.py``).  While one is active the pointwise
fast paths are off, so absolute times are those of the general path.

    >>> x = tensorplay.ones(3, requires_grad=True)
    >>> with tensorplay.autograd.profiler.profile() as prof:
    ...     with tensorplay.autograd.profiler.record_function("forward"):
    ...         y = (x * 2).exp().sum()
    ...     y.backward()
    >>> print(prof.key_averages().table(sort_by="self_cpu_time_total"))  # doctest: +SKIP
"""
import functools
import json
import time

from .._autograd.profiling import ACTIVE
from .._tensor import Tensor
from ..ops._registry import TRANSFORMS, dispatch

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg"]

_now = time.perf_counter


def _us(seconds):
    return seconds * 1e6


def _format_time(us):
    """PyTorch's rendering of a time in microseconds."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class FunctionEvent:
    """One recorded call: its name, CPU times in microseconds (total, and self:
    without the events nested in it), and its arguments' shapes."""

    def __init__(self, id, name, start_us, end_us, input_shapes, parent, thread=0):
        self.id, self.name, self.thread = id, name, thread
        self.time_range_start, self.time_range_end = start_us, end_us
        self.input_shapes = input_shapes
        self.cpu_parent = parent
        self.cpu_children = []
        self.count = 1
        self.is_user_annotation = False

    @property
    def key(self):
        return self.name

    @property
    def cpu_time_total(self):
        return self.time_range_end - self.time_range_start

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self):
        return self.cpu_time_total

    device_time_total = self_device_time_total = cuda_time_total = 0.0

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={_format_time(self.cpu_time)} "
                f"start_us={self.time_range_start:.3f} end_us={self.time_range_end:.3f} "
                f"cpu_children={[c.id for c in self.cpu_children]} input_shapes={self.input_shapes}>")


class FunctionEventAvg:
    """The events of one key added up (``key_averages``)."""

    def __init__(self, key, input_shapes=None):
        self.key, self.input_shapes = key, input_shapes
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.is_user_annotation = False

    def add(self, other):
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.is_user_annotation = other.is_user_annotation
        return self

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    device_time_total = self_device_time_total = cuda_time_total = 0.0

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time)} input_shapes={self.input_shapes}>")


_SORT_KEYS = ("cpu_time", "cpu_time_total", "self_cpu_time_total", "count", "cuda_time",
              "cuda_time_total", "self_cuda_time_total", "device_time", "device_time_total",
              "self_device_time_total", "cpu_memory_usage", "self_cpu_memory_usage")


class EventList(list):
    """A list of events with PyTorch's ``table``/``key_averages``/``total_average``."""

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        groups = {}
        for e in self:
            shapes = str(e.input_shapes) if group_by_input_shape else None
            k = (e.key, shapes)
            avg = groups.get(k)
            if avg is None:
                avg = groups[k] = FunctionEventAvg(e.key, e.input_shapes if group_by_input_shape
                                                   else None)
            avg.add(e)
        return EventList(groups.values())

    def total_average(self):
        total = FunctionEventAvg("Total")
        for e in self:
            total.add(e)
        return total

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        """PyTorch's table: one row per event (per key after ``key_averages``)."""
        events = list(self)
        if top_level_events_only:
            events = [e for e in events if getattr(e, "cpu_parent", None) is None]
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise AttributeError(f"'{type(events[0]).__name__ if events else 'FunctionEvent'}' "
                                     f"object has no attribute '{sort_by}'")
            events.sort(key=lambda e: getattr(e, sort_by, 0), reverse=True)
        if row_limit is not None and row_limit > 0:
            events = events[:row_limit]
        shapes = any(getattr(e, "input_shapes", None) for e in events) and \
            all(not isinstance(e, FunctionEvent) for e in events)
        total_self = self.self_cpu_time_total
        name_w = min(max([len(e.key) for e in events] + [4]) + 4, max_name_column_width)
        heads = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
                 "# of Calls"]
        widths = [name_w] + [12] * 6
        if shapes:
            heads.append("Input Shapes")
            widths.append(min(max([len(str(e.input_shapes)) for e in events] + [12]) + 4,
                              max_shapes_column_width))
        line = "".join("-" * w + "  " for w in widths)

        def row(cells):
            return "".join(c.rjust(w) + "  " for c, w in zip(cells, widths))

        out = []
        if header is not None:
            out += ["=" * len(line), header]
        out += [line, row(heads), line]

        def pct(x):
            return f"{100 * x / total_self:.2f}%" if total_self else "0.00%"
        for e in events:
            name = e.key if len(e.key) <= name_w else e.key[:name_w - 3] + "..."
            cells = [name, pct(e.self_cpu_time_total), _format_time(e.self_cpu_time_total),
                     pct(e.cpu_time_total), _format_time(e.cpu_time_total),
                     _format_time(e.cpu_time), str(e.count)]
            if shapes:
                s = str(e.input_shapes)
                cells.append(s if len(s) <= widths[-1] else s[:widths[-1] - 3] + "...")
            out.append(row(cells))
        out.append(line)
        out.append(f"Self CPU time total: {_format_time(total_self)}")
        return "\n".join(out) + "\n"

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace (chrome://tracing, Perfetto)."""
        trace = [{"name": e.name, "ph": "X", "ts": e.time_range_start, "dur": e.cpu_time_total,
                  "pid": 0, "tid": e.thread, "args": {"Input Dims": e.input_shapes}}
                 for e in self]
        with open(path, "w") as f:
            json.dump({"traceEvents": trace}, f)


def _shapes(args):
    return [list(a._data.shape) if isinstance(a, Tensor) else [] for a in args]


class _Recorder:
    """The transform that sees every op call (and the engine's nodes) while a
    profile is active: each becomes an event nested in the open ones."""
    forward_level = False

    def __init__(self, record_shapes):
        self.record_shapes = record_shapes
        self.events = EventList()
        self.stack = []
        self.t0 = _now()

    def push(self, name, shapes=None):
        parent = self.stack[-1] if self.stack else None
        e = FunctionEvent(len(self.events), name, _us(_now() - self.t0), 0.0,
                          shapes if shapes is not None else [], parent)
        if parent is not None:
            parent.cpu_children.append(e)
        self.events.append(e)
        self.stack.append(e)
        return e

    def pop(self):
        e = self.stack.pop()
        e.time_range_end = _us(_now() - self.t0)

    def push_node(self, node):
        name = node.name()
        self.push("autograd::engine::evaluate_function: " + name)
        self.push(name)

    def pop_node(self):
        self.pop()
        self.pop()

    # -- the interception point
    def process(self, op, args):
        self.push("aten::" + op.name, _shapes(args) if self.record_shapes else None)
        try:
            return dispatch(op, args)
        finally:
            self.pop()

    def process_function(self, cls, args, kwargs):
        self.push(cls.__name__, _shapes(args) if self.record_shapes else None)
        try:
            return cls.apply(*args, **kwargs)
        finally:
            self.pop()


class profile:
    """Context manager recording the CPU time of every op, custom Function,
    backward node and ``record_function`` block run inside it (see the module
    docstring).  The CUDA, memory, FLOP and stack options are accepted and have
    no effect (tensorplay runs on the CPU and records times only)."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.function_events = None
        self._recorder = None
        self.entered = False

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        if ACTIVE[0] is not None:
            raise RuntimeError("Profiler is already enabled on this thread")
        self.entered = True
        self._recorder = _Recorder(self.record_shapes)
        ACTIVE[0] = self._recorder
        TRANSFORMS.append(self._recorder)
        return self

    def __exit__(self, *exc):
        if not self.enabled:
            return False
        rec = self._recorder
        if rec in TRANSFORMS:
            TRANSFORMS.remove(rec)
        ACTIVE[0] = None
        while rec.stack:                # blocks left open by an exception
            rec.pop()
        self.function_events = rec.events
        return False

    def _events(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        return self._events().key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False):
        return self._events().table(sort_by, row_limit, max_src_column_width,
                                    max_name_column_width, max_shapes_column_width, header,
                                    top_level_events_only)

    def total_average(self):
        return self._events().total_average()

    @property
    def self_cpu_time_total(self):
        return self._events().self_cpu_time_total

    def export_chrome_trace(self, path):
        self._events().export_chrome_trace(path)

    def __str__(self):
        return self.table()


class record_function:
    """Label a block (or, as a decorator, each call of a function) as one event
    of the active profile; without one it does nothing."""

    def __init__(self, name, args=None):
        self.name, self.args = name, args
        self._rec = None

    def __enter__(self):
        rec = ACTIVE[0]
        if rec is not None:
            self._rec = rec
            rec.push(self.name).is_user_annotation = True
        return self

    def __exit__(self, *exc):
        rec, self._rec = self._rec, None
        if rec is not None and rec.stack:
            rec.pop()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapper
