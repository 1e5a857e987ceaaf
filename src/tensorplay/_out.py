"""``out=``: the result of a function written into tensors the caller gives
(``tensorplay.add(x, y, out=z)``), with PyTorch's rules:

- the function spellings take it, not the methods; it is keyword-only;
- ``out`` must be a Tensor (a tuple of them for ops with several outputs);
- no autograd through it: an argument that requires grad (grad mode on) is refused;
- the result must cast to ``out``'s dtype as an in-place op's would;
- an ``out`` of another shape is resized (with PyTorch's deprecation warning
  unless it was empty); otherwise the result is written into its memory.

Only a call that passes ``out`` comes here: the other calls pay nothing.
"""
import warnings

import numpy as np

from . import _dtype as D
from ._autograd.grad_mode import state
from ._tensor import Tensor


def _title(dt):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
            "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "complex64": "ComplexFloat",
            "complex128": "ComplexDouble"}.get(dt.name, dt.name)


def write_out(name, result, out):
    """Write ``result`` (a Tensor or a tuple of them) into ``out``; return ``out``."""
    results = result if isinstance(result, tuple) else (result,)
    single = isinstance(out, Tensor)
    outs = (out,) if single else out
    if not single and not (isinstance(out, (tuple, list)) and
                           all(isinstance(o, Tensor) for o in out)):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if len(outs) != len(results):
        raise TypeError(f"{name}(): argument 'out' must be a tuple of {len(results)} Tensors, "
                        f"got {len(outs)}" if len(results) > 1 else
                        f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if state.enabled and any(isinstance(r, Tensor) and r._rg for r in results):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    for r, o in zip(results, outs):
        rd, od = r._data, o._data
        rk, ok = D._FROM_NP[rd.dtype], D._FROM_NP[od.dtype]
        if rk.category > ok.category:
            raise RuntimeError(f"result type {_title(rk)} can't be cast to the desired output type "
                               f"{_title(ok)}")
    for r, o in zip(results, outs):
        rd, od = r._data, o._data
        if rd.shape != od.shape:
            if od.size:
                warnings.warn(
                    f"An output with one or more elements was resized since it had shape "
                    f"{list(od.shape)}, which does not match the required output shape "
                    f"{list(rd.shape)}. This behavior is deprecated, and in a future PyTorch "
                    "release outputs will not be resized unless they have zero elements. You can "
                    "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                    "with t.resize_(0).", UserWarning, stacklevel=3)
            o._data = np.array(rd, dtype=od.dtype, copy=True)
        else:
            if not od.flags.writeable:
                raise RuntimeError("unsupported operation: some elements of the input tensor and "
                                   "the written-to tensor refer to a single memory location. "
                                   "Please clone() the tensor before performing the operation.")
            np.copyto(od, rd, casting="unsafe")
        o._bump()
    return out


def call_with_out(name, fn, args, kwargs, out):
    """``fn(*args, **kwargs)``, then its result written into ``out``."""
    if not isinstance(out, (Tensor, tuple, list)):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    return write_out(name, fn(*args, **kwargs), out)
