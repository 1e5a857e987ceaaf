"""tensorplay.autograd: reverse-mode automatic differentiation, the API above the ops.

``backward`` accumulates gradients into leaves' ``.grad``; ``grad`` returns
them without touching ``.grad``.  Both run the engine of the autograd core
(``tensorplay/_autograd``), which sits below Tensor; this package is the
public face of it and of what is built on the ops (``Function``,
``gradcheck``, ``functional``, drawing the graph).
"""
from .._autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: F401
                                   is_inference_mode_enabled, no_grad, set_grad_enabled)
from .._autograd.anomaly_mode import (detect_anomaly, is_anomaly_check_nan_enabled,  # noqa: F401
                                      is_anomaly_enabled, set_detect_anomaly)
from . import anomaly_mode, grad_mode, graph  # noqa: F401
from ._backward import backward, grad  # noqa: F401
from .variable import Variable  # noqa: F401
from . import function  # noqa: F401
from .function import Function, InplaceFunction, NestedIOFunction, once_differentiable  # noqa: F401
from .gradcheck import gradcheck, gradgradcheck, GradcheckError  # noqa: F401
from . import functional  # noqa: F401
from . import forward_ad  # noqa: F401
from . import profiler  # noqa: F401

__all__ = ["Function", "GradcheckError", "InplaceFunction", "NestedIOFunction", "Variable",
           "backward", "detect_anomaly", "enable_grad", "grad", "gradcheck", "gradgradcheck",
           "inference_mode", "is_anomaly_check_nan_enabled", "is_anomaly_enabled",
           "is_grad_enabled", "is_inference_mode_enabled", "is_multithreading_enabled",
           "is_view_replay_enabled", "no_grad", "once_differentiable", "set_detect_anomaly",
           "set_grad_enabled", "set_multithreading_enabled"]


def is_multithreading_enabled():
    """Backward passes run in the calling thread (no worker threads)."""
    return False


class set_multithreading_enabled:
    """Accepted for compatibility: the engine always runs in the calling thread."""

    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


def is_view_replay_enabled():
    return False


def _profiler_enabled():
    """Whether an ``autograd.profiler.profile`` is recording (PyTorch's helper)."""
    from .._autograd.profiling import ACTIVE
    return ACTIVE[0] is not None
