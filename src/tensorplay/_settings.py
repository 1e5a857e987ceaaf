"""Process-wide switches that PyTorch programs set, with PyTorch's checks.

Every tensorplay kernel is deterministic (NumPy on the CPU, one thread of Python
issuing the ops), so ``use_deterministic_algorithms`` changes nothing but what
the getters report; float32 matrix products always run in float32 (the
``highest`` precision), whatever ``set_float32_matmul_precision`` records;
there is no inter-op thread pool; NumPy cannot flush denormals, so
``set_flush_denormal`` reports that it is unsupported (False).
``set_warn_always`` is real: warnings PyTorch gives once per process
(``TORCH_WARN_ONCE``) are then given every time.
"""
import os

from ._warn import WARN_ALWAYS, warn

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode", "set_float32_matmul_precision",
           "get_float32_matmul_precision", "set_warn_always", "is_warn_always_enabled",
           "set_flush_denormal", "get_num_interop_threads", "set_num_interop_threads"]

_deterministic = [False, False]     # (enabled, warn_only)
_matmul_precision = ["highest"]
_interop_threads = [os.cpu_count() or 1]   # (PyTorch's default: the cores)


def use_deterministic_algorithms(mode, *, warn_only=False):
    if type(mode) is not bool:
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    if type(warn_only) is not bool:
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type(warn_only).__name__}")
    _deterministic[:] = [mode, mode and warn_only]


def are_deterministic_algorithms_enabled():
    return _deterministic[0]


def is_deterministic_algorithms_warn_only_enabled():
    return _deterministic[1]


def set_deterministic_debug_mode(debug_mode):
    if isinstance(debug_mode, str):
        modes = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in modes:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = modes[debug_mode]
    elif type(debug_mode) is int:
        if debug_mode not in (0, 1, 2):
            raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                               f"{debug_mode}")
    else:
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not _deterministic[0]:
        return 0
    return 1 if _deterministic[1] else 2


def set_float32_matmul_precision(precision):
    if precision in ("highest", "high", "medium"):
        _matmul_precision[0] = precision
    else:
        warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
             "setFloat32MatmulPrecision call has no effect.")


def get_float32_matmul_precision():
    return _matmul_precision[0]


def set_warn_always(b):
    if type(b) is not bool:
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    WARN_ALWAYS[0] = b


def is_warn_always_enabled():
    return WARN_ALWAYS[0]


def set_flush_denormal(mode):
    """False: NumPy offers no way to flush denormal numbers to zero."""
    return False


def get_num_interop_threads():
    return _interop_threads[0]


def set_num_interop_threads(num):
    if type(num) is not int or num <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _interop_threads[0] = num
