"""Op modules and the Tensor spellings made from them.

Nothing here decides how an op is spelled: each public function carries its
``Spelling`` (written in its op entry, ``defop(..., method=, inplace=,
operators=)``, or with ``@public(...)`` on a wrapper), and each op module lists
its exports in ``__all__``.  This module reads those facts: every function a
module binds to a name gets ``Tensor.<name>`` (if ``method``),
``Tensor.<name>_`` (if ``inplace``, made by ``inplace.inplace_method``) and its
operators.  ``EXPORTS`` is the union of the modules' ``__all__``, what
``tensorplay`` exports from the ops.

Below the binding, ``_conveniences`` holds the few Tensor attributes that are
not op spellings (``x.T``, ``x.real``, the dtype casts, ...).
"""

from .._warn import warn as _warn_user
from .._tensor import Tensor
from . import pointwise, core                      # noqa: F401  (registration order)
from ._registry import REGISTRY, Spelling, dispatch_view   # noqa: F401
from .inplace import inplace_method
from . import inplace, views  # noqa: F401  (views registers copy_slices)

MODULES = [pointwise, core]
for _name in ("reduction", "shape", "indexing", "linalg", "complex_ops", "nn_ops", "random_ops",
              "sorting", "pointwise_more", "factories", "conv", "pooling", "resample",
              "scatter_reduce", "strided", "matrices", "decompositions", "linalg_more", "fft_ops", "special_fns", "special_bessel", "shape_more", "nn_more", "stats", "fractional_pool", "ctc", "dist_ops",
              "factorizations", "tensor_copies", "rnn_cells"):
    try:
        MODULES.append(__import__(f"{__name__}.{_name}", fromlist=["*"]))
    except ModuleNotFoundError as e:                # a module not written yet
        if e.name != f"{__name__}.{_name}":
            raise

from . import _batch_rules                          # noqa: E402
_batch_rules.attach()

# the binary operators Python reflects (__radd__) and updates in place (__iadd__)
_BINARY_OPERATORS = frozenset(
    "add sub mul truediv floordiv mod pow matmul and or xor lshift rshift".split())


def _swap(f):
    return lambda self, other: f(other, self)


def _operator(dunder, fn, name):
    """What ``Tensor.<dunder>`` is for the public function ``fn`` named ``name``."""
    core_name = dunder[2:-2]
    if core_name[0] == "r" and core_name[1:] in _BINARY_OPERATORS:        # reflected
        rfast = getattr(fn, "rfast", None)
        return rfast if rfast is not None else _swap(fn)
    if core_name[0] == "i" and core_name[1:] in _BINARY_OPERATORS:        # in place
        return inplace_method(getattr(fn, "fast", fn), name)
    return getattr(fn, "fast", fn)                                       # forward


def _bind(modules):
    """Tensor methods, in-place forms and operators from the functions' spellings.
    A name Tensor itself defines (or an earlier module bound) is kept."""
    with_operators = set()
    for m in modules:
        for name, fn in list(vars(m).items()):
            s = getattr(fn, "spelling", None)
            if type(s) is not Spelling:
                continue
            if not name.startswith("_"):            # (a private name spells only operators)
                if s.method and not hasattr(Tensor, name):
                    setattr(Tensor, name, getattr(fn, "as_method", fn))
                if s.inplace and not hasattr(Tensor, name + "_"):
                    setattr(Tensor, name + "_", inplace_method(fn, name, s.inplace_check))
            if s.operators and id(fn) not in with_operators:   # under the first name bound
                with_operators.add(id(fn))
                for dunder in s.operators:
                    setattr(Tensor, dunder, _operator(dunder, fn, name))


_bind(MODULES + [inplace])

from . import saved_attrs  # noqa: E402   (grad_fn._saved_<name>, on every op's node classes)
for _op in list(REGISTRY.values()):
    saved_attrs.install(_op)

EXPORTS = []
for _m in MODULES:
    for _k in _m.__all__:
        if _k not in EXPORTS:
            EXPORTS.append(_k)


# ------------------------------------------------------------------ _conveniences
# Tensor attributes that are not spellings of an op
def _T(self):
    n = self._data.ndim
    if n != 2:
        _warn_user("The use of `x.T` on tensors of dimension other than 2 to reverse their shape "
                   "is deprecated and it will throw an error in a future release. Consider "
                   "`x.mT` to transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, "
                   "-1, -1))` to reverse the dimensions of a tensor.")
    return dispatch_view(core._permute_op, (self, (1, 0) if n == 2 else tuple(range(n - 1, -1, -1))))


def _mT(self):
    if self._data.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{self.ndim}-D tensor.")
    return dispatch_view(core.transpose.op, (self, -2, -1))


def _mH(self):
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got "
                           f"{self.ndim}-D tensor.")
    t = self.transpose(-2, -1)
    return t if t._data.dtype.kind != "c" else pointwise.conj(t)    # (every mm's backward)


def _H(self):
    if self.ndim == 0:
        _warn_user("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
        return pointwise.conj(self)
    if self.ndim != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.ndim}-D tensor.{_H_HINT if self.ndim > 2 else ''}")
    return pointwise.conj(self.t())


_H_HINT = " For batches of matrices, consider using tensor.mH"
Tensor.T = property(_T)
Tensor.mT = property(_mT)
Tensor.H = property(_H)
Tensor.mH = property(_mH)
Tensor.real = property(core.real)
Tensor.imag = property(core.imag)
Tensor.where = lambda self, condition, other: pointwise.where(condition, self, other)
Tensor.__hash__ = lambda self: id(self)
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
