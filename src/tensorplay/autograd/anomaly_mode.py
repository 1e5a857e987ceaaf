"""Anomaly detection: remember where each node was created, and fail loudly on
NaN gradients.

While enabled, every node records the stack of the user's code that created
it; an error raised in a node's backward (or a NaN it produces, with
``check_nan``) is reported with that stack.
"""
import traceback
import warnings

from .grad_mode import _DecoratorContextManager


class _State:
    enabled = False
    check_nan = True


anomaly = _State()


def is_anomaly_enabled():
    return anomaly.enabled


def is_anomaly_check_nan_enabled():
    return anomaly.check_nan


def note_creation(node):
    """Called when a node is recorded while anomaly mode is on."""
    node.__dict__["_creation_stack"] = traceback.format_stack()[:-3]


def creation_trace(node):
    stack = node.__dict__.get("_creation_stack")
    return "".join(stack) if stack else None


def check_node(node, grads):
    """After ``node`` ran in backward: NaN in a gradient it returned is an error."""
    if not anomaly.check_nan:
        return
    for i, g in enumerate(grads):
        if g is not None and hasattr(g, "_data") and g._data.dtype.kind in "fcV":
            import numpy as np
            if np.isnan(np.asarray(g._data, dtype=np.complex128 if g._data.dtype.kind == "c"
                                   else np.float64)).any():
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def report(node, exc):
    """Show where the failing node was created (as PyTorch's warning does)."""
    trace = creation_trace(node)
    if trace is not None:
        warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the "
                      f"error:\n{trace}", UserWarning, stacklevel=2)


class detect_anomaly(_DecoratorContextManager):
    """Context manager / decorator enabling anomaly detection for the autograd
    engine (see the module docstring).  Slows everything down: for debugging."""

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
    """Turn anomaly detection on or off; as a context manager, restores on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev, self.prev_check_nan = anomaly.enabled, anomaly.check_nan
        anomaly.enabled, anomaly.check_nan = bool(mode), check_nan

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        anomaly.enabled, anomaly.check_nan = self.prev, self.prev_check_nan
