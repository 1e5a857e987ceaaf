"""Helpers shared by op kernels: argument parsing (the factories below the ops
use it too, so it lives with the Tensor) and dtype handling of NumPy arrays."""
import numpy as np

from .. import _dtype as D
from .._tensor import _wrap_dim, dims_arg, size_arg  # noqa: F401

_TORCH_NAMES = {"float64": "Double", "float32": "Float", "float16": "Half", "bfloat16": "BFloat16",
                "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
                "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}


def _tname(npdt):
    return _TORCH_NAMES.get(D._FROM_NP[np.dtype(npdt)].name, str(npdt))


def _key(x):
    """An array NumPy sorts and compares like ``x`` (bfloat16 sorts as float32)."""
    return x.astype(np.float32) if x.dtype.name == "bfloat16" else x


def _isfloat(x):
    return x.dtype.kind == "f" or x.dtype.name == "bfloat16"
