"""What differs across the NumPy versions tensorplay supports (1.24 to the newest).

- ``inspect.signature(ufunc)`` works from NumPy 2.1 on; before, it raises
  ValueError.  ``kernel_signature`` gives older NumPy's ufuncs the signature
  newer NumPy reports, so an op's parameters are the same on every version.
- Assigning ``ndarray.shape`` is deprecated from NumPy 2.5; its replacement,
  ``reshape(..., copy=False)``, exists from NumPy 2.1.  ``view_shape`` uses
  whichever the installed NumPy has: both give a view or fail, never copy.
"""
import inspect

import numpy as np

_P = inspect.Parameter


def _ufunc_signature(uf):
    """The signature NumPy >= 2.1 reports for ``uf``."""
    names = ["x"] if uf.nin == 1 else [f"x{i}" for i in range(1, uf.nin + 1)]
    params = [_P(n, _P.POSITIONAL_ONLY) for n in names]
    params.append(_P("out", _P.POSITIONAL_OR_KEYWORD, default=None if uf.nout == 1 else (None,) * uf.nout))
    if uf.signature is None:                 # elementwise
        kw = [("where", True)]
    else:                                    # generalized ufunc (matmul, ...)
        kw = [("axes", np._NoValue), ("axis", np._NoValue), ("keepdims", False)]
    kw += [("casting", "same_kind"), ("order", "K"), ("dtype", None), ("subok", True), ("signature", None)]
    params += [_P(n, _P.KEYWORD_ONLY, default=d) for n, d in kw]
    return inspect.Signature(params)


def kernel_signature(kernel):
    """``inspect.signature(kernel)``, ufuncs included on NumPy < 2.1."""
    try:
        return inspect.signature(kernel)
    except ValueError:
        if isinstance(kernel, np.ufunc):
            return _ufunc_signature(kernel)
        raise


def _reshape_takes_copy():
    try:
        np.empty(0).reshape((0,), copy=False)
    except TypeError:
        return False
    return True


if _reshape_takes_copy():
    def view_shape(x, shape):
        """A view of ``x`` with ``shape``; ValueError if that needs a copy."""
        return x.reshape(shape, copy=False)
else:                                        # NumPy < 2.1, where setting .shape is not deprecated
    def view_shape(x, shape):
        """A view of ``x`` with ``shape``; ValueError if that needs a copy."""
        v = x.view()
        try:
            v.shape = shape
        except AttributeError as e:          # "Incompatible shape for in-place modification..."
            raise ValueError(str(e)) from None
        return v
