"""Anomaly detection: remember where each node was created, and fail loudly on
NaN gradients.

While enabled, every node records the stack of the user's code that created
it (tensorplay's own frames left out), and, if it was created while another
node's backward was running (``create_graph=True``, or a custom Function's
backward), which node that was.  An error raised in a node's backward (or a
NaN it produces, with ``check_nan``) is then accompanied by warnings showing
where that node, and the nodes whose backward created it, came from, as
PyTorch's "Error detected in XBackward0. Traceback of forward call that caused
the error: ..." does.
"""
import os
import sys
import threading
import traceback
import warnings

from .grad_mode import _DecoratorContextManager


class _State:
    enabled = False
    check_nan = True


anomaly = _State()


class _Running(threading.local):
    node = None     # the node the checked engine loop is running in this thread (its hooks too)


running = _Running()

# frames from files under this directory are tensorplay's own, not the user's
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def is_anomaly_enabled():
    """True while anomaly detection is on."""
    return anomaly.enabled


def is_anomaly_check_nan_enabled():
    """True if anomaly detection also checks backward results for NaN."""
    return anomaly.check_nan


def _own(filename):
    return filename.startswith(_PKG_DIR)


def _user_frames(frame):
    """(filename, lineno, name) for each frame from the outermost down to
    ``frame``, tensorplay's own frames left out."""
    out = []
    f = frame
    while f is not None:
        co = f.f_code
        if not _own(co.co_filename):
            out.append((co.co_filename, f.f_lineno, co.co_name))
        f = f.f_back
    out.reverse()
    return out


def note_creation(node):
    """Called when a node is recorded while anomaly mode is on: remember the
    user's stack (source lines are read only if it is ever shown) and the node
    whose backward is creating this one, if any."""
    frame = sys._getframe(1)
    d = node.__dict__
    d["_creation_stack"] = _user_frames(frame)
    parent = running.node
    if parent is not None:
        d["_anomaly_parent"] = (parent.name(), parent.__dict__.get("_creation_stack"),
                                parent.__dict__.get("_anomaly_parent"))


def _format(frames):
    summary = traceback.StackSummary.from_list(
        [traceback.FrameSummary(fn, ln, name, lookup_line=False) for fn, ln, name in frames])
    return "".join(summary.format())


def creation_trace(node):
    """The formatted stack of user code that created ``node`` (None if it was
    created without anomaly detection)."""
    stack = node.__dict__.get("_creation_stack")
    return None if stack is None else _format(stack)


def check_node(node, grads):
    """After ``node`` ran in backward: NaN in a gradient it returned is an error.
    A value that can hold NaN says so itself (``value._has_nan()``)."""
    if not anomaly.check_nan:
        return
    for i, g in enumerate(grads):
        has_nan = getattr(g, "_has_nan", None)
        if has_nan is not None and has_nan():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def _stacklevel():
    """The warnings stacklevel of the innermost user frame calling into tensorplay."""
    f, level = sys._getframe(2), 2
    while f is not None and _own(f.f_code.co_filename):
        f, level = f.f_back, level + 1
    return level


def _warn_stack(name, stack, is_parent):
    level = _stacklevel()
    if stack is None:
        msg = (f"Error detected in {name}. No forward pass information available. Enable detect "
               "anomaly during forward pass for more information.")
    elif not is_parent:
        msg = f"Error detected in {name}. Traceback of forward call that caused the error:\n" \
              f"{_format(stack)}"
    else:
        msg = (f"\n\nPrevious calculation was induced by {name}. Traceback of forward call that "
               f"induced the previous calculation:\n{_format(stack)}")
    warnings.warn(msg, UserWarning, stacklevel=level)


def report(node, exc):
    """Show where the failing node was created, and where the nodes whose
    backward created it were created (as PyTorch's warnings do)."""
    _warn_stack(node.name(), node.__dict__.get("_creation_stack"), False)
    parent = node.__dict__.get("_anomaly_parent")
    while parent is not None:
        name, stack, parent = parent
        _warn_stack(name, stack, True)


class detect_anomaly(_DecoratorContextManager):
    """Context manager / decorator enabling anomaly detection for the autograd
    engine (see the module docstring).  Slows everything down: for debugging.

        >>> x = tensorplay.tensor([0., 1.], requires_grad=True)
        >>> with tensorplay.autograd.detect_anomaly():
        ...     y = x.log()
        ...     (y * 0).sum().backward()      # d log(x)/dx at 0 is 1/0; times 0: nan
        Traceback (most recent call last):
            ...
        RuntimeError: Function 'LogBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan=True):
        self.prev = anomaly.enabled
        self.check_nan = check_nan
        self.prev_check_nan = anomaly.check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and "
                      "should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        anomaly.enabled, anomaly.check_nan = True, self.check_nan

    def __exit__(self, *exc):
        anomaly.enabled, anomaly.check_nan = self.prev, self.prev_check_nan

    def clone(self):
        c = object.__new__(type(self))
        c.prev, c.check_nan, c.prev_check_nan = anomaly.enabled, self.check_nan, anomaly.check_nan
        return c


class set_detect_anomaly:
    """Turn anomaly detection on or off: as a function call it stays set; as a
    context manager, the previous setting is restored on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev, self.prev_check_nan = anomaly.enabled, anomaly.check_nan
        anomaly.enabled, anomaly.check_nan = bool(mode), bool(check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        anomaly.enabled, anomaly.check_nan = self.prev, self.prev_check_nan
