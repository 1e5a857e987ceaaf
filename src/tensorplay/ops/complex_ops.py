"""Complex numbers: ``angle``, ``complex``, ``polar``, ``view_as_real`` and
``view_as_complex``.

Gradients follow PyTorch's formulas (conjugate-Wirtinger convention; a real
input receives the real part of a complex gradient, which the engine takes).
``view_as_real``/``view_as_complex`` return views sharing memory with their
input.  There is no complex32 (ComplexHalf) dtype here, so the half-precision
spellings that would produce one raise instead.
"""
import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._families import ELEMENTWISE, VIEW
from ._registry import defop, public
from ._util import tensor_arg as _tensor_arg
from .pointwise import _zl, where
from .._out import call_with_out

__all__ = ["angle", "complex", "polar", "view_as_real", "view_as_complex"]

_PI = math.pi
_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                 "complex64": "ComplexFloat", "complex128": "ComplexDouble", "int64": "Long",
                 "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
                 "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}
_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}


def _sname(npdt):
    return _SCALAR_NAMES[D._FROM_NP[npdt].name]


# ---------------------------------------------------------------- angle
def _angle_k(x):
    if x.dtype.kind == "c":
        return np.angle(x)
    # PyTorch: pi for negative values, 0 otherwise (also for -0.0), nan stays nan
    return np.where(np.isnan(x), x, np.where(x < 0, _PI, 0.0)).astype(x.dtype)


def _angle_vjp(g, x):
    if not x.is_complex():
        return _zl(g)
    zero = x == 0
    return where(zero, 0.0, g * x * 1j / where(zero, 1.0, x.abs() ** 2))


def _angle_jvp(x_t, x):
    # d arg(z) = Im(conj(z) dz) / |z|^2 (not holomorphic); zero for real inputs
    if not x.is_complex():
        return x_t * 0
    zero = x == 0
    return where(zero, 0.0, (x.conj() * x_t).imag / where(zero, 1.0, x.abs() ** 2))


angle = defop("angle", _angle_k, {"x": _angle_vjp}, float_only=True, node_name="AngleBackward0",
              family=ELEMENTWISE, jvp=_angle_jvp)


# ---------------------------------------------------------------- complex / polar
def _check_pair(fname, a, b, names):
    _tensor_arg(fname, names[0], 1, a)
    _tensor_arg(fname, names[1], 2, b)
    da, db = a._data.dtype, b._data.dtype
    ok = (np.float16, np.float32, np.float64)
    if da not in ok or db not in ok:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_sname(da)} and {_sname(db)}")
    if da != db:
        raise RuntimeError(f"Expected object of scalar type {_sname(da)} but got scalar type "
                           f"{_sname(db)} for second argument")
    if da == np.float16:
        raise RuntimeError(f"{fname}(): complex32 (ComplexHalf) tensors are not supported by "
                           "tensorplay; convert the inputs to float32 first")


def _broadcast_shape(a, b):
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    for i, (p, q) in enumerate(zip(a, b)):
        if p != q and p != 1 and q != 1:
            raise RuntimeError(f"The size of tensor a ({p}) must match the size of tensor b ({q}) at "
                               f"non-singleton dimension {i}")
    return tuple(max(p, q) if min(p, q) else 0 for p, q in zip(a, b))


def _complex_k(real, imag):
    r = np.empty(_broadcast_shape(real.shape, imag.shape), _COMPLEX_OF[real.dtype])
    r.real = real
    r.imag = imag
    return r


# (real inputs: linear over the reals, their only scalars)
_complex = defop("complex", _complex_k,
                 {"real": lambda g: g.real, "imag": lambda g: g.imag},
                 n_in=2, upcast=False, node_name="ComplexBackward0", family=ELEMENTWISE,
                 linear=True)


@public(method=False)
def complex(real, imag, *, out=None):      # noqa: A001  (tensorplay.complex, like torch.complex)
    if out is not None:
        return call_with_out('complex', complex, (real, imag), {}, out)
    _check_pair("complex", real, imag, ("real", "imag"))
    return _complex(real, imag)


def _polar_k(abs, angle):
    r = np.empty(_broadcast_shape(abs.shape, angle.shape), _COMPLEX_OF[abs.dtype])
    r.real = abs * np.cos(angle)
    r.imag = abs * np.sin(angle)
    return r


# PyTorch's polar_backward, sgn(result) included (so, as there, a negative ``abs``
# gets the opposite sign of the true derivative)
_polar = defop("polar", _polar_k,
               {"abs": lambda g, result: (g.conj() * result.sgn()).real,
                "angle": lambda g, result: (g.conj() * result * 1j).real},
               n_in=2, upcast=False, node_name="PolarBackward0", family=ELEMENTWISE,
               # real inputs, complex output: d(r e^{it}) = dr e^{it} + i r e^{it} dt
               jvp=lambda abs_t, angle_t, result, angle:
               abs_t * _complex(angle.cos(), angle.sin()) + 1j * angle_t * result)


@public(method=False)
def polar(abs, angle, *, out=None):
    if out is not None:
        return call_with_out('polar', polar, (abs, angle), {}, out)
    _check_pair("polar", abs, angle, ("abs", "angle"))
    return _polar(abs, angle)


# ---------------------------------------------------------------- view_as_real / view_as_complex
def _view_as_real_k(x):
    if x.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return x[..., None].view(x.real.dtype)          # (..., 1) complex -> (..., 2) real, same memory


def _storage_offset_bytes(x):
    root = x
    while isinstance(root.base, np.ndarray):
        root = root.base
    return x.__array_interface__["data"][0] - root.__array_interface__["data"][0]


def _view_as_complex_k(x):
    if x.dtype not in (np.float32, np.float64):
        if x.dtype == np.float16:
            raise RuntimeError("view_as_complex: complex32 (ComplexHalf) tensors are not supported "
                               "by tensorplay")
        raise RuntimeError("view_as_complex is only supported for half, float and double tensors, "
                           f"but got a tensor of scalar type: {_sname(x.dtype)}")
    if x.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if x.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    item = x.itemsize
    if x.strides[-1] != item:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    for s, n in zip(x.strides[:-1], x.shape[:-1]):
        if n != 1 and s % (2 * item):
            raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if _storage_offset_bytes(x) % (2 * item):
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return x.view(_COMPLEX_OF[x.dtype])[..., 0]


# view_as_real of a complex input is only real-linear (as conj is), so not ``linear``;
# view_as_complex takes a real input: linear over the reals, its only scalars
view_as_real = defop("view_as_real", _view_as_real_k,
                     {"x": lambda g: view_as_complex(g.contiguous())},
                     upcast=False, view=True, node_name="ViewAsRealBackward0", family=VIEW,
                     method=False)
view_as_complex = defop("view_as_complex", _view_as_complex_k,
                        {"x": lambda g: view_as_real(g.contiguous())},
                        upcast=False, view=True, node_name="ViewAsComplexBackward0", family=VIEW,
                        linear=True, method=False)
