"""Op modules and the Tensor spellings made from them.

Every public op function is also a Tensor method of the same name, its
in-place form ``name_`` is derived from it (``inplace.make_inplace``), and the
operators map onto the same functions: one definition, every spelling.
"""
import warnings

from .._tensor import Tensor
from . import pointwise, core                      # noqa: F401  (registration order)
from ._registry import REGISTRY                    # noqa: F401
from .inplace import make_inplace
from . import views  # noqa: F401  (registers copy_slices)

_MODULES = [pointwise, core]
for _name in ("reduction", "shape", "indexing", "linalg", "complex_ops", "nn_ops", "random_ops", "more"):
    try:
        _MODULES.append(__import__(f"{__name__}.{_name}", fromlist=["*"]))
    except ModuleNotFoundError as e:                # a module not written yet
        if e.name != f"{__name__}.{_name}":
            raise

# public functions: every callable in an op module not starting with "_"
FUNCTIONS = {}
for _m in _MODULES:
    for _k, _v in vars(_m).items():
        if not _k.startswith("_") and callable(_v) and getattr(_v, "__module__", "").startswith(__name__):
            FUNCTIONS[_k] = _v
FUNCTIONS["conj"] = pointwise.conj

_NOT_METHODS = {"conj_op", "broadcast_tensors", "broadcast_shapes", "cat", "concat", "concatenate",
                "stack", "hstack", "vstack", "dstack", "einsum", "meshgrid", "where_scalar",
                "make_inplace", "binary", "unary", "defop", "dims_arg", "size_arg", "polar",
                "complex", "block_diag", "cartesian_prod", "tensordot", "view_as_real", "normal",
                "view_as_complex"}
for _k, _v in FUNCTIONS.items():
    if _k not in _NOT_METHODS and not hasattr(Tensor, _k):
        setattr(Tensor, _k, _v)

Tensor.where = lambda self, condition, other: pointwise.where(condition, self, other)
Tensor.float = core._cast("float32")
Tensor.double = core._cast("float64")
Tensor.half = core._cast("float16")
Tensor.bfloat16 = core._cast("bfloat16")
Tensor.long = core._cast("int64")
Tensor.int = core._cast("int32")
Tensor.short = core._cast("int16")
Tensor.bool = core._cast("bool")
Tensor.byte = core._cast("uint8")
Tensor.cfloat = core._cast("complex64")
Tensor.cdouble = core._cast("complex128")
Tensor.conj = pointwise.conj
Tensor.real = property(core.real)
Tensor.imag = property(core.imag)
def _T(self):
    if self.ndim != 2:
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape "
                      "is deprecated and it will throw an error in a future release. Consider "
                      "`x.mT` to transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, "
                      "-1, -1))` to reverse the dimensions of a tensor.", UserWarning, stacklevel=2)
    return self.permute(*range(self.ndim - 1, -1, -1))


def _mT(self):
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{self.ndim}-D tensor.")
    return self.transpose(-2, -1)


Tensor.T = property(_T)
Tensor.mT = property(_mT)
Tensor.H = property(lambda self: pointwise.conj(self.t()))
Tensor.mH = property(lambda self: pointwise.conj(self.transpose(-2, -1)))


def _swap(f):
    return lambda self, other: f(other, self)


_P = pointwise
Tensor.__add__ = _P.add.fast
Tensor.__radd__ = _P.add.rfast
Tensor.__sub__ = _P.sub.fast
Tensor.__rsub__ = _P.sub.rfast
Tensor.__mul__ = _P.mul.fast
Tensor.__rmul__ = _P.mul.rfast
Tensor.__truediv__ = _P.div.fast
Tensor.__rtruediv__ = _P.div.rfast
Tensor.__floordiv__ = _P.floor_divide.fast
Tensor.__rfloordiv__ = _P.floor_divide.rfast
Tensor.__mod__ = _P.remainder.fast
Tensor.__rmod__ = _P.remainder.rfast
Tensor.__pow__ = _P.pow.fast
Tensor.__rpow__ = _P.pow.rfast
Tensor.__matmul__ = core.matmul
Tensor.__rmatmul__ = _swap(core.matmul)
Tensor.__neg__ = _P.neg
Tensor.__pos__ = _P.positive
Tensor.__abs__ = _P.abs
Tensor.__invert__ = lambda self: _P.logical_not(self) if self.dtype.name == "bool" else _P.bitwise_not(self)
Tensor.__and__ = _P.bitwise_and.fast
Tensor.__or__ = _P.bitwise_or.fast
Tensor.__xor__ = _P.bitwise_xor.fast
Tensor.__rand__ = _P.bitwise_and.rfast
Tensor.__ror__ = _P.bitwise_or.rfast
Tensor.__rxor__ = _P.bitwise_xor.rfast
Tensor.__eq__ = _P.eq.fast
Tensor.__ne__ = _P.ne.fast
Tensor.__lt__ = _P.lt.fast
Tensor.__le__ = _P.le.fast
Tensor.__gt__ = _P.gt.fast
Tensor.__ge__ = _P.ge.fast
Tensor.__hash__ = lambda self: id(self)

make_inplace(Tensor, FUNCTIONS)
