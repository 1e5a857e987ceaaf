"""``set_num_threads``/``get_num_threads``: the threads of the one parallel part of
tensorplay, NumPy's BLAS (matrix products, convolutions as matrix products).

NumPy's wheels bundle OpenBLAS, whose thread count can be changed while running;
it is found among the libraries NumPy ships and set through its own C entry
point.  Under another BLAS (MKL, Accelerate, a system OpenBLAS NumPy does not
ship) the number is only recorded; the environment variables
``OPENBLAS_NUM_THREADS``/``MKL_NUM_THREADS``/``OMP_NUM_THREADS``, set before
NumPy is imported, are the way to choose there.
"""
import ctypes
import glob
import os

import numpy as np

__all__ = ["set_num_threads", "get_num_threads"]

_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
            "openblas_set_num_threads64_", "openblas_set_num_threads")
_GETTERS = ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads",
            "openblas_get_num_threads64_", "openblas_get_num_threads")
_blas = []          # [(setter, getter)] once looked for; empty tuple when there is none
_recorded = []


def _openblas():
    if not _blas:
        found = ()
        libs = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
        for path in sorted(glob.glob(os.path.join(libs, "*openblas*"))):
            try:
                lib = ctypes.CDLL(path)     # already loaded by NumPy: the same library
            except OSError:
                continue
            setter = next((getattr(lib, n) for n in _SETTERS if hasattr(lib, n)), None)
            getter = next((getattr(lib, n) for n in _GETTERS if hasattr(lib, n)), None)
            if setter is not None and getter is not None:
                setter.argtypes, getter.restype = [ctypes.c_int], ctypes.c_int
                found = (setter, getter)
                break
        _blas.append(found)
    return _blas[0]


def set_num_threads(n):
    """Use ``n`` threads for matrix products (PyTorch's ``set_num_threads``)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    blas = _openblas()
    if blas:
        blas[0](int(n))
    _recorded[:] = [int(n)]


def get_num_threads():
    """The threads matrix products use."""
    blas = _openblas()
    if blas:
        return int(blas[1]())
    return _recorded[0] if _recorded else (os.cpu_count() or 1)
