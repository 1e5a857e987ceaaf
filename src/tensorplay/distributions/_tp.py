"""The tensorplay functions the distributions use, gathered from the modules
that define them (``import tensorplay`` here would make the package and this
subpackage import each other in a circle)."""
from .. import _creation, _dtype, _toplevel, linalg, special  # noqa: F401
from .. import ops as _ops
from .._autograd.grad_mode import enable_grad, no_grad, is_grad_enabled  # noqa: F401
from .._random import default_generator  # noqa: F401
from .._tensor import Size, Tensor  # noqa: F401
from ..nn import functional  # noqa: F401


def _gather():
    ns = {}
    for m in _ops.MODULES:
        for k in m.__all__:
            ns.setdefault(k, getattr(m, k))
    for k in ("tensor", "as_tensor", "zeros", "ones", "full", "empty", "arange", "eye",
              "zeros_like", "ones_like", "full_like", "rand", "randn", "randint", "linspace"):
        ns[k] = getattr(_creation, k)
    for k in _toplevel.__all__:
        ns.setdefault(k, getattr(_toplevel, k))
    for k in ("float16", "bfloat16", "float32", "float64", "int64", "int32", "uint8",
              "get_default_dtype"):
        ns[k] = getattr(_dtype, k)
    ns["bool"] = _dtype.bool_
    return ns


globals().update(_gather())
del _gather
