"""``out=``: the result of a function written into tensors the caller gives
(``tensorplay.add(x, y, out=z)``), with PyTorch's rules:

- the function spellings take it, not the methods; it is keyword-only;
- ``out`` must be a Tensor (a tuple of them for ops with several outputs);
- no autograd through it: an argument, or ``out`` itself, that requires grad
  (grad mode on) is refused;
- the result must cast to ``out``'s dtype as an in-place op's would, and some
  ops want exactly their result's dtype (``EXACT``, with PyTorch's words);
- ``out`` may not overlap an input in part (elementwise ops), or at all (the
  gathering ops, ``NO_OVERLAP``), nor itself (an expanded tensor);
- an ``out`` of another shape is resized (with PyTorch's deprecation warning
  unless it was empty, or the op is a factory or a sampler, which resize
  silently); otherwise the result is written into its memory, so a view given
  as ``out`` writes into its base.

The result is computed first and copied in, so it is right even where PyTorch
computes through aliased memory (``mm(a, b, out=a)``).  Only a call that
passes ``out`` comes here: the other calls pay nothing.
"""
import warnings

import numpy as np

from . import _dtype as D
from ._autograd.grad_mode import state
from ._tensor import Tensor, _CPP_NAMES, _TYPE_NAMES, _has_tangent


def _title(dt):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
            "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "complex64": "ComplexFloat",
            "complex128": "ComplexDouble"}.get(dt.name, dt.name)


# ops whose out must have exactly the result's dtype, with PyTorch's message for each
# output (None: that output only has to accept the cast).  Keys of the message: {r}/{o}
# the result's/out's dtype (Float), {rc}/{oc} in C++ words (float), {rt}/{ot} the type
# names (tensorplay.FloatTensor).
_FOUND = "Found dtype {o} but expected {r}"
_EXPECTED = "Expected out tensor to have dtype {rc}, but got {oc} instead"
_SCALAR_TYPE = "expected scalar_type {r} but found {o}"
_SAME_SCALAR = "{name}(): self and result must have the same scalar type"
_TENSORDOT = ("tensordot: Expected the output tensor to have dtype {r}, but got an output "
              "tensor with dtype {o}")
_DOT = "result dtype {o} does not match input dtype {r}"
_SCALAR_OUT = "Expected object of scalar type {r} but got scalar type {o} for argument 'out'"
EXACT = {
    **{n: (_FOUND,) for n in ("abs", "absolute", "ceil", "floor", "round", "trunc", "frac", "fix",
                              "neg", "negative", "sign", "sgn", "conj_physical", "clamp", "clip",
                              "clamp_min", "clamp_max", "bitwise_not")},
    **{n: (_EXPECTED,) for n in ("addmm", "baddbmm", "bmm", "mm", "matmul", "cross", "diag",
                                 "gather", "take_along_dim", "tril", "triu", "norm", "argmax",
                                 "argmin", "cumsum", "cumprod", "addmv", "renorm")},
    "histc": ("torch.histogram: input tensor and hist tensor should have the same dtype, but got "
              "input {rc} and hist {oc}",),
    **{n: (_EXPECTED, _EXPECTED) for n in ("sort", "topk", "max", "min", "aminmax")},
    **{n: (_SCALAR_TYPE, _SCALAR_TYPE) for n in ("cummax", "cummin")},
    "logcumsumexp": (_SCALAR_TYPE,),
    "amax": ("Expected the dtype for input and out to match, but got {r} for input's dtype and "
             "{o} for out's dtype.",),
    "dot": (_DOT,), "vdot": (_DOT,),
    "index_select": (_SAME_SCALAR,), "masked_select": (_SAME_SCALAR,),
    "take": ("take(): self and out expected to have the same dtype, but got self.dtype = {r} and "
             "out.dtype = {o}",),
    "tensordot": (_TENSORDOT,), "inner": (_TENSORDOT,),
    "mv": ("addmv input tensors must have the same dtype, but got {o}, {r}, and {r}",),
    "kthvalue": ("output values must be of same type as input",
                 "output indices must be of scalar type Long"),
    "median": ("Expected tensor for 'values' to have the same type as tensor for argument #2 "
               "'self'; but type {ot} does not equal {rt} (while checking arguments for median)",
               "Expected tensor for argument #1 'indices' to have scalar type Long; but got {ot} "
               "instead (while checking arguments for median)"),
    "heaviside": ("heaviside is not yet implemented for tensors with different dtypes.",),
    "where": ("Expected out type to be {r} but got {o}",),
    "polar": (_SCALAR_OUT,), "complex": (_SCALAR_OUT,),
    "float_power": ("the output given to float_power has dtype {o} but the operation's result "
                    "requires dtype {r}",),
    "multinomial": ("multinomial expects Long tensor out, got: {o}",),
    "nonzero": ("nonzero: Expected out tensor to have scalar type Long but got scalar type{o}",),
}
EXACT["amin"] = EXACT["amax"]
# where PyTorch has the rule for one overload only: clamp's with number bounds, lerp's
# with a tensor weight
_EXACT_WHEN = {"clamp": lambda args: not any(isinstance(a, Tensor) for a in args[1:]),
               "lerp": lambda args: len(args) > 2 and isinstance(args[2], Tensor)}
_EXACT_WHEN["clip"] = _EXACT_WHEN["clamp"]
EXACT["lerp"] = (_FOUND,)
# ops that refuse an out sharing any memory with an input (PyTorch's assert_no_overlap)
NO_OVERLAP = {"cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "row_stack",
              "column_stack", "index_select", "gather", "take", "take_along_dim", "masked_select"}
# factories and samplers resize their out without a warning; the factories' refusal of
# an out that requires grad names them as ATen operators (``aten::zeros()``)
FACTORIES = {"zeros", "ones", "empty", "full", "linspace", "logspace", "eye", "rand", "randn",
             "randint", "randperm"}
SILENT_RESIZE = FACTORIES | {"normal", "bernoulli", "multinomial"}
_TYPE_CAST = {"cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "row_stack",
              "column_stack"}

_OVERLAP_MSG = ("unsupported operation: some elements of the input tensor and the written-to "
                "tensor refer to a single memory location. Please clone() the tensor before "
                "performing the operation.")


def _exact_msg(fmt, name, rd, od):
    return fmt.format(name=name, r=_title(rd), o=_title(od), rc=_CPP_NAMES[rd.name],
                      oc=_CPP_NAMES[od.name], rt="tensorplay." + _TYPE_NAMES[rd.name],
                      ot="tensorplay." + _TYPE_NAMES[od.name])


def _inputs(args):
    for a in args:
        if isinstance(a, Tensor):
            yield a._data
        elif isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, Tensor):
                    yield b._data


def _same_layout(a, b):
    return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
            and a.shape == b.shape and a.strides == b.strides)


def _check_overlap(name, od, args, elementwise):
    if od.size > 1 and 0 in od.strides:
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor "
                           "refers to a single memory location. Please clone() the tensor before "
                           "performing the operation.")
    whole = name in NO_OVERLAP
    if not (whole or elementwise):
        return
    for a in _inputs(args):
        if np.may_share_memory(a, od) and (whole or not _same_layout(a, od)) and \
                np.shares_memory(a, od):
            raise RuntimeError(_OVERLAP_MSG)


def write_out(name, result, out, args=(), elementwise=False):
    """Write ``result`` (a Tensor or a tuple of them) into ``out``; return ``out``.
    ``args`` are the call's arguments (for the overlap checks)."""
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
    if state.enabled and (any(isinstance(r, Tensor) and r._rg for r in results) or
                          any(o._rg for o in outs)):
        prefix = "aten::" if name in FACTORIES else ""
        raise RuntimeError(f"{prefix}{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    everything = [r for r in results if isinstance(r, Tensor)] + list(outs)
    if any(_has_tangent(t) for t in everything):      # (forward mode: the result's tangent or
        raise NotImplementedError(                  # out's own would be dropped or go stale)
            f"Trying to use forward AD with {name}_out that does not support it because it is an out= function")
    if any(type(t) is not Tensor and getattr(t, "_make_like", None) is not None for t in everything):
        raise RuntimeError(f"Batching rule not implemented for aten::{name}.out; the fallback path doesn't "
                           "work on out= or view ops.")
    exact = EXACT.get(name)
    if exact is not None and (len(exact) != len(results) or
                              (name in _EXACT_WHEN and not _EXACT_WHEN[name](args))):
        exact = None                # max(x) vs max(x, dim): the rules are the tuple form's
    for i, (r, o) in enumerate(zip(results, outs)):
        rd, od = r._data.dtype, o._data.dtype
        if D._FROM_NP[rd].category > D._FROM_NP[od].category:
            if name in _TYPE_CAST:
                raise TypeError(f"torch.cat(): input types can't be cast to the desired output "
                                f"type {_title(od)}")
            raise RuntimeError(f"result type {_title(rd)} can't be cast to the desired output "
                               f"type {_title(od)}")
        if exact is not None and exact[i] is not None and rd != od:
            raise RuntimeError(_exact_msg(exact[i], name, rd, od))
    for o in outs:
        _check_overlap(name, o._data, args, elementwise)
    for r, o in zip(results, outs):
        rd, od = r._data, o._data
        if rd.shape != od.shape:
            if od.size and name not in SILENT_RESIZE:
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
                raise RuntimeError(_OVERLAP_MSG)
            np.copyto(od, rd, casting="unsafe")
        o._bump()
    if not single and hasattr(result, "_fields"):       # sort's (values, indices) ...
        return type(result)(*outs)
    return out


def call_with_out(name, fn, args, kwargs, out):
    """``fn(*args, **kwargs)``, then its result written into ``out``."""
    if not isinstance(out, (Tensor, tuple, list)):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    op = getattr(fn, "op", None)
    return write_out(name, fn(*args, **kwargs), out, args, op is not None and op.elementwise)
