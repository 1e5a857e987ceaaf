"""Helpers shared by op kernels: argument parsing (the factories below the ops
use it too, so it lives with the Tensor) and dtype handling of NumPy arrays."""
import numpy as np

from .. import _dtype as D
from .._autograd.grad_mode import state as _grad_state
from .._tensor import Tensor, _wrap_dim, dims_arg, size_arg, number_arg, int_index, int_arg  # noqa: F401

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)   # (compared with ``is``)

_TORCH_NAMES = {"float64": "Double", "float32": "Float", "float16": "Half", "bfloat16": "BFloat16",
                "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
                "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}


class LinAlgError(RuntimeError):
    """A matrix the operation cannot handle (singular, not positive-definite):
    PyTorch's ``torch.linalg.LinAlgError``, a RuntimeError."""


_PY_NUMBERS = frozenset((bool, int, float, complex))


def is_scalar(v):
    """Whether PyTorch takes ``v`` as a Scalar (the overloads whose node has no
    slot for it): a Python bool, int, float or complex, or a NumPy scalar of
    those kinds."""
    return type(v) in _PY_NUMBERS or (isinstance(v, np.generic) and v.dtype.kind in "biufc")


def _tname(npdt):
    return _TORCH_NAMES.get(D._FROM_NP[np.dtype(npdt)].name, str(npdt))


def _key(x):
    """An array NumPy sorts and compares like ``x`` (bfloat16 sorts as float32)."""
    return x.astype(np.float32) if x.dtype.name == "bfloat16" else x


def _isfloat(x):
    return x.dtype.kind == "f" or x.dtype.name == "bfloat16"


def is_int(v):
    """Whether PyTorch's argument parser takes ``v`` as an int: an int or a NumPy
    integer (a bool is not one), or an integer tensor of one element."""
    if type(v) is int:
        return True
    if isinstance(v, Tensor):
        return v._data.size == 1 and v._data.dtype.kind in "iu"
    return isinstance(v, np.integer)


def _int_like(v):
    return type(v) is not bool and hasattr(v, "__index__") and not isinstance(v, np.bool_)


def int_list_arg(fname, argname, pos, v):
    """PyTorch's parse of an ``int[]`` parameter (``flip``'s ``dims``,
    ``reshape``'s ``shape``) given as one argument at ``pos``: a sequence of
    ints; a bare number, or an element that is a bool or a float, is refused."""
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be tuple of ints, not "
                        f"{type(v).__name__}")
    for i, e in enumerate(v):
        if not _int_like(e):
            raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be tuple of ints, but "
                            f"found element of type {type(e).__name__} at pos {i}")
    return v


def star_ints_error(fname, argname, args):
    """The TypeError PyTorch gives for a method's ``*ints`` parameter (``x.flip(0,
    1)``, ``x.reshape(2, 3)``) given ``args`` it refuses; None if they are fine."""
    if len(args) == 1:
        try:
            int_list_arg(fname, argname, 1, args[0] if isinstance(args[0], (list, tuple)) else
                         args[0] if not _int_like(args[0]) else (args[0],))
        except TypeError as e:
            return e
        return None
    for i, e in enumerate(args):
        if not _int_like(e):
            return TypeError(f"{fname}(): argument '{argname}' failed to unpack the object at pos {i + 1} "
                             f"with error \"type must be tuple of ints,but got {type(e).__name__}\"")
    return None


def function_of_method(method, name, argname):
    """The function spelling ``name(input, <argname>)`` of a method that takes
    its ints spread (``x.flip(0, 1)``): PyTorch's function takes them as one
    sequence (``torch.flip(x, (0, 1))``; ``torch.flip(x, 0)`` is refused).  The
    method stays the Tensor method (``as_method``)."""
    def function(*args, **kwargs):
        if len(args) > 2:
            raise TypeError(f"{name}() takes 2 positional arguments but {len(args)} were given")
        if len(args) == 2:
            int_list_arg(name, argname, 2, args[1])
        return method(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = method.__doc__
    for attr in ("spelling", "op"):
        if hasattr(method, attr):
            setattr(function, attr, getattr(method, attr))
    function.as_method = method
    return function


_POSITION = __import__("re").compile(r"\(position (\d+)\)")


def method_of_function(fn):
    """The Tensor method of the function ``fn(input, ...)``: the same call, with
    PyTorch's argument positions in its TypeErrors (a method does not count
    ``self``: ``x.tril(0.5)`` is "position 1", ``tril(x, 0.5)`` "position 2")."""
    def method(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs)
        except TypeError as e:
            msg = str(e)
            if type(e) is not TypeError or not _POSITION.search(msg):
                raise
            raise TypeError(_POSITION.sub(lambda m: f"(position {int(m.group(1)) - 1})", msg, count=1)) \
                from None
    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def overload_check(fname, signatures, marked=()):
    """A ``check=`` for a binary op, from PyTorch's signatures for it (as its
    parser prints them): two numbers, or a number first where no signature
    takes ``Number self``, are PyTorch's "invalid combination of arguments"
    TypeError listing them.  ``marked``: the signatures after which PyTorch adds
    "didn't match" with every argument marked (its parser's own choice)."""
    number_self = any(s.startswith("(Number self") for s in signatures)

    def check(x, y, *rest):
        if isinstance(x, Tensor) or (number_self and isinstance(y, Tensor)):
            return
        got = [type(a).__name__ for a in (x, y)]
        lines = []
        for i, s in enumerate(signatures):
            lines.append(f" * {s}\n")
            if i in marked:
                lines.append("      didn't match because some of the arguments have invalid types: ("
                             + ", ".join(f"!{t}!" for t in got) + ")\n")
        raise TypeError(f"{fname}() received an invalid combination of arguments - got ({', '.join(got)}), "
                        f"but expected one of:\n" + "".join(lines))
    return check


# PyTorch's signatures of the commonest binary ops
TT = "(Tensor input, Tensor other, *, Tensor out = None)"
NT = "(Number self, Tensor other)"
TN = "(Tensor input, Number other, *, Tensor out = None)"


def scalar_pair_check(fname):
    """A ``check=`` for a binary op whose PyTorch signatures take a Tensor on at
    least one side (``xlogy(Tensor, Tensor)``, ``(Number, Tensor)``,
    ``(Tensor, Number)``): two numbers are PyTorch's TypeError."""
    return overload_check(fname, (TT, "(Number self, Tensor other, *, Tensor out = None)", TN))


def bool_arg(fname, argname, v):
    """PyTorch's refusal of a non-bool where ``fname`` takes a bool."""
    if type(v) is not bool and not isinstance(v, np.bool_):
        raise TypeError(f"{fname}(): argument '{argname}' must be bool, not {type(v).__name__}")


def tensor_arg(fname, argname, pos, v):
    """PyTorch's refusal of a non-tensor where ``fname`` takes a tensor."""
    if not isinstance(v, Tensor):
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be Tensor, "
                        f"not {type(v).__name__}")


_BOOL = np.dtype(np.bool_)


def no_bool_product(kernel, x, y):
    """PyTorch has no bool matrix products: its CPU kernel ``kernel`` refuses
    them (unless an operand is empty: then nothing is multiplied)."""
    if x.dtype is _BOOL and x.size and y.size:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def dtype_error(spec, dtype):
    """The error of an op that has no kernel for ``dtype`` (an entry's
    ``no_complex``, ``no_bool``, ``no_int``): ``spec`` is the name of PyTorch's CPU kernel,
    which gives its usual words (``"lt_cpu" not implemented for 'ComplexFloat'``),
    or the exception PyTorch raises with words of its own (``maximum not
    implemented for complex tensors.``)."""
    if isinstance(spec, BaseException):
        return type(spec)(*spec.args)
    return NotImplementedError(f'"{spec}" not implemented for \'{_tname(dtype)}\'')


def no_complex_autodiff(name):
    """An entry's ``no_complex`` spec for an op PyTorch computes for complex inputs
    but does not differentiate there: refused only when the call is recorded."""
    def spec(*args):
        if _grad_state.enabled and any(isinstance(a, Tensor) and a._rg for a in args):
            return RuntimeError(f"{name} does not support automatic differentiation for outputs with "
                                f"complex dtype.")
        return None
    return spec


def refuse(spec, kinds, *tensors):
    """Raise ``dtype_error(spec, ...)`` if the common dtype of ``tensors`` (None
    allowed) is of one of ``kinds`` (NumPy's kind letters: "c" complex, "b" bool,
    "iu" integers): a composite's version of an entry's ``no_complex``,
    ``no_bool``, ``no_int``, which PyTorch's kernels check on the promoted dtype
    (a float input with an integer target is fine)."""
    dt = None
    for t in tensors:
        if t is not None:
            dt = t.dtype if dt is None else D.promote_types(dt, t.dtype)
    if dt is not None and dt.np.kind in kinds:
        raise dtype_error(spec, dt.np)


NOT_FLOAT = "biuc"      # ``refuse``'s kinds for a kernel of real floating point only


def star_by_keyword(name, args, kwargs, star="dims"):
    """The arguments of ``name(input, *dims)`` called with keywords, as PyTorch's
    signature ``name(input, dims)`` allows (``flip(x, dims=(0, 1))``,
    ``x.permute(dims=(1, 0))``, ``permute(input=x, dims=...)``): returns
    ``[input, dims]``, with PyTorch's errors for what that signature refuses."""
    args = list(args)
    if name == "view" and list(kwargs) == ["dtype"] and len(args) == 1:    # view(dtype=...),
        return args + [kwargs["dtype"]]                                     # its other overload
    for k in kwargs:
        if k != "input" and k != star:
            raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
    if "input" in kwargs:
        if args:
            raise TypeError(f"{name}() got multiple values for argument 'input'")
        args.append(kwargs["input"])
    if not args:
        raise TypeError(f'{name}() missing 1 required positional arguments: "input"')
    if star in kwargs:
        if len(args) > 1:
            raise TypeError(f"{name}() got multiple values for argument '{star}'")
        dims = kwargs[star]
        if not isinstance(dims, (list, tuple)):         # (a Size is a tuple)
            raise TypeError(f"{name}(): argument '{star}' must be tuple of ints, not "
                            f"{type(dims).__name__}")
        args.append(dims)
    if len(args) < 2:
        raise TypeError(f'{name}() missing 1 required positional arguments: "{star}"')
    return args
