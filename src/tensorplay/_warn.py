"""Warnings from inside tensorplay, pointed at the line that called in.

PyTorch's C++ warnings name the user's Python line; a ``warnings.warn`` with a
fixed ``stacklevel`` names whichever tensorplay function happens to sit at that
depth (``ops/_registry.py`` for every op).  ``warn`` walks out of the package
instead, so the warning's file and line (and the module that warning filters
match) are the caller's.
"""
import os
import sys
import warnings

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message, category=UserWarning):
    """``warnings.warn(message, category)`` at the first frame outside tensorplay."""
    level, f = 2, sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE):
        f, level = f.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


_WARNED = set()
WARN_ALWAYS = [False]       # tensorplay.set_warn_always


def warn_once(message, category=UserWarning):
    """``warn``, the first time in the process only (PyTorch's ``TORCH_WARN_ONCE``:
    deprecations of functions that stay in use), or every time after
    ``tensorplay.set_warn_always(True)``."""
    if message not in _WARNED or WARN_ALWAYS[0]:
        _WARNED.add(message)
        warn(message, category)
