"""Matrix products: ``mm``, ``bmm``, ``mv``, ``dot``/``vdot``, ``outer``,
``addmm``/``baddbmm``, ``trace``, and ``einsum`` with the ops built on it
(``tensordot``, ``inner``), plus ``kron``.

The public functions check their arguments the way PyTorch does (same
exception types and messages) before the registry op runs, since the registry
upcasts half/bfloat16 before a kernel sees the arrays.  vjps follow PyTorch's
conjugate-Wirtinger convention: for a bilinear product the gradient of one
factor is the product of ``g`` with the *conjugate* of the other.

``einsum`` gradients are einsums themselves: the gradient of operand ``k`` is
the einsum of ``g`` with the conjugates of the other operands, producing
operand ``k``'s subscripts.  A subscript repeated inside operand ``k`` (a
trace ``ii->``, a diagonal ``ii->i``) gets a fresh letter joined to it by an
identity matrix; a subscript that only operand ``k`` has (summed away) is put
back by broadcasting.  Size-1 broadcasting of a subscript is done by dropping
that dimension from the operand, so NumPy never has to broadcast.
"""
import copy
import functools

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _wrap
from ._families import BILINEAR, LINALG, OTHER, NoBatchRule
from ._registry import REGISTRY, OpNode, autocast_inputs, defop, dispatch, flat_kernel, public
from .pointwise import conj
from ._util import tensor_arg as _tensor_arg, no_bool_product as _no_bool_product, _BOOL

__all__ = ["mm", "bmm", "mv", "dot", "vdot", "outer", "ger", "kron", "trace", "addmm", "baddbmm", "addmv", "addr",
           "einsum", "tensordot", "inner", "cross"]

# ---------------------------------------------------------------- argument checks
_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                 "complex64": "ComplexFloat", "complex128": "ComplexDouble", "int64": "Long",
                 "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
                 "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}
_CPP_NAMES = dict(D.CPP_NAMES, uint16="unsigned short", uint64="unsigned long")  # (its messages' spellings)


def _sname(t):
    """PyTorch's ScalarType name (``Float``, ``Double``, ...)."""
    return _SCALAR_NAMES[D._FROM_NP[t._data.dtype].name]


def _cname(t):
    """The C++ type name PyTorch prints in some messages (``float``, ``c10::Half``)."""
    return _CPP_NAMES[D._FROM_NP[t._data.dtype].name]


def _same(a, b):
    return a._data.dtype == b._data.dtype


def _mm_check_shapes(a, b):
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} "
                           f"and {b.shape[0]}x{b.shape[1]})")


# ---------------------------------------------------------------- mm / bmm / mv / dot / vdot
def _batch_front(args, bdims):
    """The two factors with their batch dimensions (if any) first."""
    x, y = args[0], args[1]
    if bdims[0] is not None:
        x = x.movedim(bdims[0], 0)
    if bdims[1] is not None:
        y = y.movedim(bdims[1], 0)
    return x, y


def _matmul_batch(op, args, bdims):
    """Batch dimensions to the front: (B,n,k)@(k,m), (n,k)@(B,k,m) and
    (B,n,k)@(B,k,m) are each one broadcasting matmul."""
    return _core._matmul(*_batch_front(args, bdims)), 0


def _matmul2(x, y):
    """The product of two matrices.  An outer product (inner size 1) is a
    broadcasting multiply: NumPy's matmul has no BLAS path for it and takes
    about 3x as long, and BLAS (np.dot) adds the products onto +0.0, which turns
    -0.0 into +0.0 where PyTorch keeps it.  (For mm's derivatives, where it is
    common: the gradient of a layer with one output, or of a batch of one.  mm
    itself leaves the check out: it would cost every call ~0.1 us.)  Otherwise
    np.dot: where np.matmul calls BLAS, the same call and the same result bit
    for bit, without the generalized ufunc's machinery (~0.4 us a call, about
    twice that with cold caches, as inside a training step)."""
    if x.ndim == 2 and y.ndim == 2:
        return np.multiply(x, y) if x.shape[1] == 1 and y.shape[0] == 1 else _np_dot(x, y)
    return np.matmul(x, y)


# np.dot's C function itself: the public name first runs a Python dispatcher for
# NumPy's __array_function__ protocol (~0.2 us), which ndarrays never need
_np_dot = getattr(np.dot, "_implementation", np.dot)


def _mm_k(x, y):
    if x.dtype is _BOOL:
        _no_bool_product("addmm_impl_cpu_", x, y)
    try:
        return _np_dot(x, y) if x.ndim == 2 and y.ndim == 2 else np.matmul(x, y)  # (see _matmul2)
    except ValueError:
        _mm_check_shapes(x, y)      # PyTorch's words for it
        raise


_mm = defop("mm", _mm_k,
            {"x": lambda g, y: _mm_nh(g, y), "y": lambda g, x: _mm_hn(x, g)},
            n_in=2, node_name="MmBackward0", family=BILINEAR, batch=_matmul_batch, exact=True)


# mm's derivatives multiply by the other factor's conjugate transpose: these two
# take it as it is and let BLAS read it transposed (no transpose op, no
# view to make and no TransposeBackward0 node under create_graph; nodes are named as
# PyTorch names the mm it records)
def _mm_nh_k(x, y):
    """``x @ y^H``."""
    return _matmul2(x, (y.conj() if y.dtype.kind == "c" else y).T)


def _mm_hn_k(x, y):
    """``x^H @ y``."""
    return _matmul2((x.conj() if x.dtype.kind == "c" else x).T, y)


def _mm_h_batch(op, args, bdims):
    x, y = _batch_front(args, bdims)
    return (_core._matmul(x, y.mH) if op is _mm_nh.op else _core._matmul(x.mH, y)), 0


_mm_nh = defop("mm_nh", _mm_nh_k,
               {"x": lambda g, y: _mm(g, y), "y": lambda g, x: _mm_hn(g, x)},
               n_in=2, node_name="MmBackward0", family=BILINEAR, batch=_mm_h_batch, method=False,
               exact=True)
_mm_hn = defop("mm_hn", _mm_hn_k,
               {"x": lambda g, y: _mm_nh(y, g), "y": lambda g, x: _mm(x, g)},
               n_in=2, node_name="MmBackward0", family=BILINEAR, batch=_mm_h_batch, method=False,
               exact=True)


@public()
def mm(input, mat2, *, out=None):
    if out is not None:
        return call_with_out('mm', mm, (input, mat2), {}, out)
    if isinstance(input, Tensor) and isinstance(mat2, Tensor):
        xd, yd = input._data, mat2._data
        if xd.ndim == 2 and yd.ndim == 2 and xd.shape[1] == yd.shape[0] and xd.dtype is yd.dtype:
            return _mm(input, mat2)         # (the checks below explain what is wrong)
    _tensor_arg("mm", "input", 1, input)
    _tensor_arg("mm", "mat2", 2, mat2)
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _mm_check_shapes(input, mat2)
    input, mat2 = autocast_inputs("mm", input, mat2)
    if not _same(input, mat2):
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cname(input)} != "
                           f"{_cname(mat2)}")
    return _mm(input, mat2)


def _bmm_k(x, y):
    _no_bool_product("bmm", x, y)
    return np.matmul(x, y)


_bmm = defop("bmm", _bmm_k,
             {"x": lambda g, y: _bmm(g, y.mH), "y": lambda g, x: _bmm(x.mH, g)},
             n_in=2, node_name="BmmBackward0", family=BILINEAR, exact=True)


def _bmm_checks(batch1, batch2):
    if batch1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, _, k = batch1.shape
    if tuple(batch2.shape[:2]) != (b, k):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] "
                           f"but got: [{batch2.shape[0]}, {batch2.shape[1]}].")


@public()
def bmm(input, mat2, *, out=None):
    if out is not None:
        return call_with_out('bmm', bmm, (input, mat2), {}, out)
    _tensor_arg("bmm", "input", 1, input)
    _tensor_arg("bmm", "mat2", 2, mat2)
    _bmm_checks(input, mat2)
    input, mat2 = autocast_inputs("bmm", input, mat2)
    if not _same(input, mat2):
        raise RuntimeError(f"expected scalar type {_sname(input)} but found {_sname(mat2)}")
    return _bmm(input, mat2)


def _mv_k(x, v):
    _no_bool_product("addmv_impl_cpu", x, v)
    return np.matmul(x, v)


_mv = defop("mv", _mv_k,
            {"x": lambda g, v: g.unsqueeze(-1) * conj(v), "v": lambda g, x: _mv(x.mH, g)},
            n_in=2, node_name="MvBackward0", family=BILINEAR, exact=True)


@public()
def mv(input, vec, *, out=None):
    if out is not None:
        return call_with_out('mv', mv, (input, vec), {}, out)
    _tensor_arg("mv", "input", 1, input)
    _tensor_arg("mv", "vec", 2, vec)
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0]}), mat "
                           f"({input.shape[0]}x{input.shape[1]}), vec ({vec.shape[0]})")
    input, vec = autocast_inputs("mv", input, vec)
    if not _same(input, vec):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_sname(vec)}, "
                           f"{_sname(input)}, and {_sname(vec)}")
    return _mv(input, vec)


def _dot_checks(x, y):
    if x.ndim != 1 or y.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {x.ndim}D and {y.ndim}D tensors")
    if x.shape[0] != y.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{x.shape[0]}] and src "
                           f"[{y.shape[0]}] to have the same number of elements, but got "
                           f"{x.shape[0]} and {y.shape[0]} elements respectively")
    if not _same(x, y):
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_sname(x)} "
                           f"and {_sname(y)}")


def _dot_k(x, y):
    _no_bool_product("dot", x, y)
    r = np.dot(x, y)
    return np.asarray(r, dtype=np.result_type(x, y))


_dot = defop("dot", _dot_k, {"x": lambda g, y: g * conj(y), "y": lambda g, x: g * conj(x)},
             n_in=2, node_name="DotBackward0", family=BILINEAR, exact=True)


@public()
def dot(input, tensor, *, out=None):
    if out is not None:
        return call_with_out('dot', dot, (input, tensor), {}, out)
    _tensor_arg("dot", "input", 1, input)
    _tensor_arg("dot", "tensor", 2, tensor)
    input, tensor = autocast_inputs("dot", input, tensor)
    _dot_checks(input, tensor)
    return _dot(input, tensor)


def _vdot_k(x, y):
    _no_bool_product("dot", x, y)
    return np.asarray(np.vdot(x, y), dtype=np.result_type(x, y))


# out = sum(conj(x) * y): d/dx is anti-holomorphic, so the x gradient is conj(g) * y
# (conjugate-linear in x: bilinear over the reals, which is what the family's rules need)
_vdot = defop("vdot", _vdot_k, {"x": lambda g, y: conj(g) * y, "y": lambda g, x: g * x},
              n_in=2, node_name="VdotBackward0", family=BILINEAR, exact=True)


@public()
def vdot(input, other, *, out=None):
    if out is not None:
        return call_with_out('vdot', vdot, (input, other), {}, out)
    _tensor_arg("vdot", "input", 1, input)
    _tensor_arg("vdot", "other", 2, other)
    _dot_checks(input, other)
    return _vdot(input, other)


# ---------------------------------------------------------------- outer / ger / kron
@public()
def outer(input, vec2, *, out=None):
    """Outer product: a broadcast ``mul`` (as in PyTorch, the node is ``MulBackward0``)."""
    if out is not None:
        return call_with_out('outer', outer, (input, vec2), {}, out)
    _tensor_arg("outer", "input", 1, input)
    _tensor_arg("outer", "vec2", 2, vec2)
    if input.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.ndim}-D")
    if vec2.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    return input.unsqueeze(1) * vec2


@public()
def ger(input, vec2, *, out=None):
    return outer(input, vec2, out=out)


from .core import _unsafe_view  # noqa: E402  (PyTorch's name for a reshape that copied)


@public()
def kron(input, other, *, out=None):
    """Kronecker product, as a broadcast ``mul`` of interleaved reshapes (the last
    reshape is PyTorch's ``_unsafe_view``, so the node is ``UnsafeViewBackward0``)."""
    if out is not None:
        return call_with_out('kron', kron, (input, other), {}, out)
    _tensor_arg("kron", "input", 1, input)
    _tensor_arg("kron", "other", 2, other)
    n = max(input.ndim, other.ndim)
    sa = (1,) * (n - input.ndim) + tuple(input.shape)
    sb = (1,) * (n - other.ndim) + tuple(other.shape)
    a = input.reshape(tuple(x for s in sa for x in (s, 1)))
    b = other.reshape(tuple(x for s in sb for x in (1, s)))
    return _unsafe_view(a * b, tuple(p * q for p, q in zip(sa, sb)))


# ---------------------------------------------------------------- trace
def _trace_k(x):
    if x.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {x.ndim}")
    if x.dtype == np.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return np.asarray(np.trace(x, dtype=np.int64 if x.dtype.kind in "iu" else None))


def _trace_vjp(g, x):
    n, m = x.shape              # (g on the diagonal, not g * eye: an infinite g gave NaN off it)
    from .pointwise import where
    return where(_wrap(np.eye(n, m, dtype=bool)), g, _wrap(np.zeros((), g._data.dtype)))


trace = defop("trace", _trace_k, {"x": _trace_vjp}, meta=("x",), node_name="TraceBackward0",
              family=LINALG, linear=True, exact=True)


# ---------------------------------------------------------------- addmm / baddbmm
def _scaled(g, s):
    return g if s == 1 else g * conj(s)


def _int_scalars(x, beta, alpha):
    """``beta`` and ``alpha`` as PyTorch converts them for a result like ``x``: an
    integer result truncates them (``addmm`` of int64 with ``beta=0.5`` adds 0
    times ``input``)."""
    if x.dtype.kind in "iu":
        return int(beta.real if type(beta) is complex else beta), \
            int(alpha.real if type(alpha) is complex else alpha)
    return beta, alpha


def _addmm_k(input, mat1, mat2, beta=1, alpha=1):
    _no_bool_product("baddbmm" if mat1.ndim == 3 else
                     "addmv_impl_cpu" if mat2.ndim == 1 else "addmm_impl_cpu_", mat1, mat2)
    p = np.matmul(mat1, mat2)
    beta, alpha = _int_scalars(p, beta, alpha)
    if alpha != 1:
        p = p * alpha
    if beta == 0:                           # PyTorch ignores input then (even nan/inf)
        return p
    return (input if beta == 1 else input * beta) + p


def _expand_check(input, shape):
    s = tuple(input.shape)
    lead = len(shape) - len(s)
    for i, d in enumerate(s):
        if d != 1 and d != shape[lead + i]:
            raise RuntimeError(f"The expanded size of the tensor ({shape[lead + i]}) must match the "
                               f"existing size ({d}) at non-singleton dimension {lead + i}.  Target "
                               f"sizes: {list(shape)}.  Tensor sizes: {list(s)}")
    if lead < 0:
        raise RuntimeError(f"expand(torch.FloatTensor{{{list(s)}}}, size={list(shape)}): the number "
                           f"of sizes provided ({len(shape)}) must be greater or equal to the number "
                           f"of dimensions in the tensor ({len(s)})")


def _addmm_batch(op, args, bdims):
    """addmm's batching rule, ``_batch_rules.batch_addmm`` (one rule for addmm,
    baddbmm, addmv and addr, by ``op.name``), read from baddbmm's entry, which
    ``_batch_rules.attach`` gives it: named here because addbmm's spelling of
    addmm (``op_spelled``, factorizations.py) copies the op before ``attach``
    runs (and _batch_rules imports this module)."""
    rule = REGISTRY["baddbmm"].batch
    if rule is None or rule is _addmm_batch:
        raise NoBatchRule
    return rule(op, args, bdims)


# beta * input + alpha * mat1 @ mat2: neither linear nor bilinear (the input term), so
# no family rule fits
_addmm = defop("addmm", _addmm_k,
               {"input": lambda g, beta: _scaled(g, beta),
                "mat1": lambda g, mat2, alpha: _scaled(_mm(g, mat2.mH), alpha),
                "mat2": lambda g, mat1, alpha: _scaled(_mm(mat1.mH, g), alpha)},
               n_in=3, meta=("input",), node_name="AddmmBackward0", family=OTHER, kwonly=("beta", "alpha"),
               fits=("beta", "alpha"), batch=_addmm_batch,
               jvp=lambda input_t, mat1_t, mat2_t, mat1, mat2, beta, alpha:
               _addmm(input_t, mat1_t, mat2, beta=beta, alpha=alpha) + _mm(mat1, mat2_t) * alpha)


@public(inplace=True)
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    if out is not None:
        return call_with_out('addmm', addmm, (input, mat1, mat2),
                             {'beta': beta, 'alpha': alpha}, out)
    for i, (nm, v) in enumerate((("input", input), ("mat1", mat1), ("mat2", mat2))):
        _tensor_arg("addmm", nm, i + 1, v)
    if mat1.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.ndim}-D tensor")
    if mat2.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2.ndim}-D tensor")
    _mm_check_shapes(mat1, mat2)
    input, mat1, mat2 = autocast_inputs("addmm", input, mat1, mat2)
    if not _same(input, mat2):
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_sname(input)} and "
                           f"{_sname(mat2)}")
    if not _same(mat1, mat2):
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cname(mat1)} != "
                           f"{_cname(mat2)}")
    _expand_check(input, (mat1.shape[0], mat2.shape[1]))
    return _addmm(input, mat1, mat2, beta=beta, alpha=alpha)


_baddbmm = defop("baddbmm", _addmm_k,
                 {"input": lambda g, beta: _scaled(g, beta),
                  "mat1": lambda g, mat2, alpha: _scaled(_bmm(g, mat2.mH), alpha),
                  "mat2": lambda g, mat1, alpha: _scaled(_bmm(mat1.mH, g), alpha)},
                 n_in=3, meta=("input",), node_name="BaddbmmBackward0", family=OTHER, kwonly=("beta", "alpha"),
                 fits=("beta", "alpha"),
                 jvp=lambda input_t, mat1_t, mat2_t, mat1, mat2, beta, alpha:
                 _baddbmm(input_t, mat1_t, mat2, beta=beta, alpha=alpha)
                 + _bmm(mat1, mat2_t) * alpha)


@public(inplace=True)
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    if out is not None:
        return call_with_out('baddbmm', baddbmm, (input, batch1, batch2),
                             {'beta': beta, 'alpha': alpha}, out)
    for i, (nm, v) in enumerate((("input", input), ("batch1", batch1), ("batch2", batch2))):
        _tensor_arg("baddbmm", nm, i + 1, v)
    _bmm_checks(batch1, batch2)
    input, batch1, batch2 = autocast_inputs("baddbmm", input, batch1, batch2)
    if not _same(batch1, batch2):
        raise RuntimeError(f"expected scalar type {_sname(batch1)} but found {_sname(batch2)}")
    if not _same(input, batch1):
        raise RuntimeError(f"Input dtypes must be the same, got: input {_cname(input)}, batch1: "
                           f"{_cname(batch1)}, batch2: {_cname(batch2)}")
    _expand_check(input, (batch1.shape[0], batch1.shape[1], batch2.shape[2]))
    return _baddbmm(input, batch1, batch2, beta=beta, alpha=alpha)


def _addmv_k(input, mat, vec, beta=1, alpha=1):
    return _addmm_k(input, mat, vec, beta, alpha)


_addmv = defop("addmv", _addmv_k,
               {"input": lambda g, beta: _scaled(g, beta),
                "mat": lambda g, vec, alpha: _scaled(g.unsqueeze(-1) * conj(vec), alpha),
                "vec": lambda g, mat, alpha: _scaled(_mv(mat.mH, g), alpha)},
               n_in=3, meta=("input",), node_name="AddmvBackward0", family=OTHER, kwonly=("beta", "alpha"),
               fits=("beta", "alpha"),
               jvp=lambda input_t, mat_t, vec_t, mat, vec, beta, alpha:
               _addmv(input_t, mat_t, vec, beta=beta, alpha=alpha) + _mv(mat, vec_t) * alpha)


def _addmv_inplace_check(self, mat, vec, *, beta=1, alpha=1):
    if isinstance(mat, Tensor) and mat.ndim == 2 and self.ndim == 1 and self.shape[0] != mat.shape[0]:
        raise RuntimeError(f"Bad in-place call: input tensor size [{self.shape[0]}] and output tensor "
                           f"size [{mat.shape[0]}] should match")


@public(inplace=_addmv_inplace_check)
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat @ vec)``; ``beta=0`` ignores ``input`` (nan and
    inf in it included)."""
    if out is not None:
        return call_with_out('addmv', addmv, (input, mat, vec), {'beta': beta, 'alpha': alpha}, out)
    for i, (nm, v) in enumerate((("input", input), ("mat", mat), ("vec", vec))):
        _tensor_arg("addmv", nm, i + 1, v)
    if mat.ndim != 2 or vec.ndim != 1 or input.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    n = input.shape[0] if input.ndim else 1
    if mat.shape[1] != vec.shape[0] or n not in (1, mat.shape[0]):
        given = f"({n})" if input.ndim else "()"
        raise RuntimeError(f"size mismatch, got input {given}, mat ({mat.shape[0]}x{mat.shape[1]}), "
                           f"vec ({vec.shape[0]})")
    if not (_same(input, mat) and _same(mat, vec)):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_sname(input)}, "
                           f"{_sname(mat)}, and {_sname(vec)}")
    return _addmv(input, mat, vec, beta=beta, alpha=alpha)


def _addr_k(input, vec1, vec2, beta=1, alpha=1):
    p = np.multiply.outer(vec1, vec2)
    if p.dtype == _BOOL:                    # (logical: beta and input, or alpha and the outer)
        p = p & bool(alpha)
        return p if not beta else p | input
    beta, alpha = _int_scalars(p, beta, alpha)
    if alpha != 1:
        p = p * alpha
    if beta == 0:
        return p
    return (input if beta == 1 else input * beta) + p


_addr = defop("addr", _addr_k,
              {"input": lambda g, beta: _scaled(g, beta),
               "vec1": lambda g, vec2, alpha: _scaled(_mv(g, conj(vec2)), alpha),
               "vec2": lambda g, vec1, alpha: _scaled(_mv(g.mT, conj(vec1)), alpha)},
              n_in=3, promote=True, meta=("input",), node_name="AddrBackward0", family=OTHER,
              kwonly=("beta", "alpha"), fits=("beta", "alpha"),
              jvp=lambda input_t, vec1_t, vec2_t, vec1, vec2, beta, alpha:
              _addr(input_t, vec1_t, vec2, beta=beta, alpha=alpha) + vec1.unsqueeze(1) * vec2_t * alpha)


def _addr_inplace_check(self, vec1, vec2, *, beta=1, alpha=1):
    if self.ndim != 2:
        raise RuntimeError(f"2D tensor expected, got {self.ndim}D tensor for input")


@public(inplace=_addr_inplace_check)
def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * outer(vec1, vec2)``, the three promoted to one dtype
    (bool: ``(beta and input) or (alpha and outer)``); ``beta=0`` ignores ``input``."""
    if out is not None:
        return call_with_out('addr', addr, (input, vec1, vec2), {'beta': beta, 'alpha': alpha}, out)
    for i, (nm, v) in enumerate((("input", input), ("vec1", vec1), ("vec2", vec2))):
        _tensor_arg("addr", nm, i + 1, v)
    for nm, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {nm}, but got {v.ndim}-D")
    rdt = D.promote_types(D.promote_types(input.dtype, vec1.dtype), vec2.dtype)
    for nm, v in (("beta", beta), ("alpha", alpha)):
        if isinstance(v, bool):
            if rdt is not D.bool_:
                raise RuntimeError(f"Boolean {nm} only supported for Boolean results.")
        elif isinstance(v, float) and not (rdt.is_floating_point or rdt.is_complex):
            raise RuntimeError(f"For integral input tensors, argument {nm} must not be a floating "
                               f"point number.")
    _expand_check(input, (vec1.shape[0], vec2.shape[0]))
    return _addr(input, vec1, vec2, beta=beta, alpha=alpha)


# ---------------------------------------------------------------- einsum
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _parse_term(term, k, offset):
    """Subscripts of one operand: a list of letters with at most one ``...``."""
    out, i = [], 0
    while i < len(term):
        c = term[i]
        if c == ".":
            if term[i:i + 3] != "...":
                raise RuntimeError(f"einsum(): found '.' for operand {k} that is not part of any "
                                   "ellipsis")
            if "..." in out:
                raise RuntimeError(f"einsum(): found '.' for operand {k} for which an ellipsis was "
                                   "already found")
            out.append("...")
            i += 3
            continue
        if c not in _LETTERS:
            raise RuntimeError(f"einsum(): invalid subscript given at index {offset + i} in the "
                               "equation string, subscripts must be in [a-zA-Z]")
        out.append(c)
        i += 1
    return out


@functools.lru_cache(maxsize=512)
def _plan(equation, shapes):
    """Parse ``equation`` for operands of ``shapes``.  Returns
    ``(subs, out, sizes, keep)``: each operand's explicit subscripts (ellipsis
    dims given letters of their own), the output's, the size of every
    subscript, and per operand the dims kept once size-1 broadcast dims are
    dropped."""
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->", 1)
    else:
        lhs, rhs = eq, None
    terms = lhs.split(",")
    if len(terms) > len(shapes):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    parsed, offset = [], 0
    for k, term in enumerate(terms):
        parsed.append(_parse_term(term, k, offset))
        offset += len(term) + 1
    # ellipsis dims: right-aligned across operands, each given a letter
    used = {c for p in parsed for c in p if c != "..."}
    if rhs is not None:
        out_parsed = _parse_term(rhs, len(terms), len(lhs) + 2)
    ell_n = []
    for k, (p, shape) in enumerate(zip(parsed, shapes)):
        n_lab = len(p) - ("..." in p)
        if "..." in p:
            if len(shape) < n_lab:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_lab}) is "
                                   f"more than the number of dimensions ({len(shape)}) for operand {k}")
            ell_n.append(len(shape) - n_lab)
        else:
            if len(shape) != n_lab:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_lab}) does "
                                   f"not match the number of dimensions ({len(shape)}) for operand {k} "
                                   "and no ellipsis was given")
            ell_n.append(0)
    E = max(ell_n, default=0)
    fresh = [c for c in _LETTERS if c not in used and (rhs is None or c not in rhs)]
    if E > len(fresh):
        raise RuntimeError("einsum(): too many subscripts")
    ell = fresh[:E]
    subs = []
    for p, e in zip(parsed, ell_n):
        s = []
        for c in p:
            s.extend(ell[E - e:] if c == "..." else [c])
        subs.append("".join(s))
    # output
    if rhs is None:
        counts = {}
        for s in parsed:
            for c in s:
                if c != "...":
                    counts[c] = counts.get(c, 0) + 1
        out = "".join(ell) + "".join(sorted(c for c, n in counts.items() if n == 1))
    else:
        seen, o = set(), []
        for c in out_parsed:
            if c == "...":
                o.extend(ell)
                continue
            if c in seen:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the "
                                   "output")
            if c not in used:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation "
                                   "for any input operand")
            seen.add(c)
            o.append(c)
        out = "".join(o)
    # sizes, with size-1 broadcasting
    sizes = {}
    for k, (s, shape) in enumerate(zip(subs, shapes)):
        own = {}
        for c, n in zip(s, shape):
            if c in own and own[c] != n:
                raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but the sizes "
                                   f"don't match, {n} != {own[c]}")
            own[c] = n
        for c, n in own.items():
            prev = sizes.get(c)
            if prev is None or prev == 1:
                sizes[c] = n
            elif n != prev and n != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {k} which does "
                                   f"not broadcast with previously seen size {prev}")
    keep = tuple(tuple(i for i, (c, n) in enumerate(zip(s, shape)) if not (n == 1 and sizes[c] != 1))
                 for s, shape in zip(subs, shapes))
    return tuple(subs), out, sizes, keep


@flat_kernel(lambda *arrays, equation: None)
def _einsum_k(*arrays_equation):
    arrays, equation = arrays_equation[:-1], arrays_equation[-1]
    subs, out, sizes, keep = _plan(equation, tuple(a.shape for a in arrays))
    red = []
    ins = []
    for a, s, kp in zip(arrays, subs, keep):
        if len(kp) != a.ndim:
            a = a.reshape(tuple(a.shape[i] for i in kp))
            s = "".join(s[i] for i in kp)
        red.append(a)
        ins.append(s)
    dt = None
    if len(red) == 1 and red[0].dtype.kind in "biu" and set(subs[0]) - set(out):
        dt = np.int64                       # a single-operand einsum that sums is a sum
    # NumPy's path optimiser (BLAS for contractions) pays off past tiny operands
    opt = len(red) > 2 or (len(red) == 2 and red[0].size + red[1].size >= 2048)
    r = np.einsum(",".join(ins) + "->" + out, *red, optimize=opt, dtype=dt)
    r = np.asarray(r)
    if any(np.may_share_memory(r, a) for a in arrays):
        r = r.copy()
    return r


def _einsum_vjp(g, arrays, equation):
    """The gradient of every operand that requires it, each an einsum."""
    subs, osub, sizes, _ = _plan(equation, tuple(tuple(x.shape) for x in arrays))
    grads = []
    for k, x in enumerate(arrays):
        if not (isinstance(x, Tensor) and x.requires_grad):
            grads.append(None)
            continue
        used = set(osub).union(*subs)
        fresh = iter(c for c in _LETTERS if c not in used)
        in_subs = [osub] + [subs[j] for j in range(len(arrays)) if j != k]
        operands = [g] + [conj(arrays[j]) for j in range(len(arrays)) if j != k]
        target = []
        seen = set()
        for c in subs[k]:                   # a repeated subscript: a fresh letter and an identity
            if c in seen:
                f = next(fresh)
                n = sizes[c]
                in_subs.append(c + f)
                operands.append(_wrap(np.eye(n, dtype=g._data.dtype)))
                target.append(f)
            else:
                seen.add(c)
                target.append(c)
        present = set("".join(in_subs))
        reduced = "".join(c for c in target if c in present)
        r = _einsum_raw(",".join(in_subs) + "->" + reduced, operands)
        full = tuple(sizes[c] for c in subs[k])
        # subscripts only operand k had, or that the others have with size 1 (broadcast
        # against k's): the gradient is the same along them, so broadcast it back
        sized = tuple(r.shape[reduced.index(c)] if c in present else 1 for c in target)
        if len(reduced) != len(target):
            r = r.reshape(sized)
        if sized != full:
            r = r.expand(full)
        if full != tuple(x.shape):
            r = r.sum_to_size(tuple(x.shape))
        grads.append(r)
    return grads


# multilinear: linear in each operand separately
_einsum = defop("einsum", _einsum_k, {"arrays": _einsum_vjp}, n_in=-1, node_name="ViewBackward0",
                family=BILINEAR)


def _variant(node_name):
    """The einsum op under another backward-node name (PyTorch's einsum ends
    in a view, a mul, a sum or a permute depending on the equation)."""
    op = copy.copy(_einsum.op)
    op.node_cls = type(node_name, (OpNode,), {"__slots__": (), "op": op})
    return op


_EINSUM_OPS = {"view": _einsum.op, "mul": _variant("MulBackward0"), "sum": _variant("SumBackward1"),
               "permute": _variant("PermuteBackward0")}


def _einsum_raw(equation, operands, kind="view"):
    return dispatch(_EINSUM_OPS[kind], list(operands) + [equation])


def _sublist_equation(args):
    """``einsum(op1, sub1, op2, sub2, ..., [out])``: subscripts as lists of ints."""
    def term(sub):
        s = []
        for v in sub:
            if v is Ellipsis:
                s.append("...")
            elif isinstance(v, int) and 0 <= v < 52:
                s.append(_LETTERS[v])
            else:
                raise ValueError(f"einsum(): expected subscript to be within the range [0, 52), but "
                                 f"got {v}")
        return "".join(s)
    ops = list(args[0::2])
    subs = list(args[1::2])
    out = None
    if len(ops) > len(subs):               # a trailing output sublist
        out = ops.pop()
    eq = ",".join(term(s) for s in subs[:len(ops)])
    if out is not None:
        eq += "->" + term(out)
    return eq, ops


def _einsum_dtype(ops, subs, out):
    """The result dtype of an einsum of operands of several dtypes, or PyTorch's error.
    PyTorch contracts the operands left to right, pair by pair: a pair that sums a
    subscript both sides have with a size other than 1 is a batched matmul, which wants
    one dtype ("expected scalar type Float but found Double"); any other pair is a
    broadcast multiply (after summing the subscripts one side has alone), which
    promotes."""
    lab = [{c for c, n in zip(s, t.shape) if n != 1} for s, t in zip(subs, ops)]
    run, rdt = lab[0], ops[0].dtype
    for k in range(1, len(ops)):
        rest = set(out).union(*lab[k + 1:])
        summed = (run | lab[k]) - rest
        dt = ops[k].dtype
        if dt is not rdt and any(c in run and c in lab[k] for c in summed):
            raise RuntimeError(f"expected scalar type {_SCALAR_NAMES[rdt.name]} but found "
                               f"{_SCALAR_NAMES[dt.name]}")
        rdt = D.promote_types(rdt, dt)
        run = (run | lab[k]) - summed
    return rdt


@public(method=False)
def einsum(*args):
    """``einsum(equation, *operands)`` or ``einsum(equation, [operands])``, or the
    sublist form ``einsum(op1, [0, 1], op2, [1, 2], [0, 2])``."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or "
                         "at least one operand and its subscripts list")
    if isinstance(args[0], str):
        equation, ops = args[0], list(args[1:])
        if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
            ops = list(ops[0])
    else:
        equation, ops = _sublist_equation(args)
    for i, t in enumerate(ops):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(t).__name__}")
    subs, out, sizes, keep = _plan(equation, tuple(tuple(t.shape) for t in ops))
    if any(not _same(t, ops[0]) for t in ops[1:]):
        rdt = _einsum_dtype(ops, subs, out)
        ops = [t if t.dtype is rdt else t.to(rdt) for t in ops]
    summed = set("".join(subs)) - set(out)
    if len(ops) == 1:
        kind = "sum" if summed else "permute"
    else:
        kind = "view" if summed else "mul"
    return _einsum_raw(equation, ops, kind)


# ---------------------------------------------------------------- tensordot / inner
def _tensordot_dims(dims, a, b):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, bool) or not isinstance(dims, (int, list, tuple)):
        raise RuntimeError(f"tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(-dims, 0)), list(range(dims))
    if len(dims) != 2:
        raise RuntimeError(f"tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    da, db = dims
    if isinstance(da, int):
        da = [da]
    if isinstance(db, int):
        db = [db]
    return list(da), list(db)


def _wrap_dim(d, n):
    if not -max(n, 1) <= d < max(n, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(n, 1)}, "
                         f"{max(n, 1) - 1}], but got {d})")
    return d % n if n else 0


@public(method=False)
def tensordot(a, b, dims=2, out=None):
    _tensor_arg("tensordot", "a", 1, a)
    _tensor_arg("tensordot", "b", 2, b)
    da, db = _tensordot_dims(dims, a, b)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    if not _same(a, b):
        raise RuntimeError("both inputs should have same dtype")
    la = list(_LETTERS[:a.ndim])
    lb = list(_LETTERS[a.ndim:a.ndim + b.ndim])
    seen_a, seen_b = set(), set()
    for x, y in zip(da, db):
        i, j = _wrap_dim(x, a.ndim), _wrap_dim(y, b.ndim)
        if i in seen_a:
            raise RuntimeError(f"dim {i} appears multiple times in the list of dims")
        if j in seen_b:
            raise RuntimeError(f"dim {j} appears multiple times in the list of dims")
        seen_a.add(i)
        seen_b.add(j)
        if a.shape[i] != b.shape[j]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[i]} "
                               f"in dim {x} and second has size {b.shape[j]} in dim {y}")
        lb[j] = la[i]
    outs = [c for i, c in enumerate(la) if i not in seen_a] + \
           [c for j, c in enumerate(lb) if j not in seen_b]
    _no_bool_product("dot" if a.ndim == b.ndim == len(da) == 1 else "addmm_impl_cpu_", a._data, b._data)
    r = _einsum_raw("".join(la) + "," + "".join(lb) + "->" + "".join(outs), [a, b])
    if out is not None:
        return write_out("tensordot", r, out, (a, b))
    return r


@public()
def inner(input, other, *, out=None):
    if out is not None:
        return call_with_out('inner', inner, (input, other), {}, out)
    _tensor_arg("inner", "input", 1, input)
    _tensor_arg("inner", "other", 2, other)
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got "
                           f"shapes {list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


from . import core as _core  # noqa: E402
from .._out import call_with_out, write_out
from .._warn import warn as _warn_user
# (matmul has checked the dtypes; mm's kernel words a shape mismatch as PyTorch's matmul)
_core.MATMUL_CASES.update({(2, 2): _mm, (2, 1): mv, (1, 1): dot})


# ------------------------------------------------------------------ cross product
def _cross_k(x, y, dim):
    if x.ndim != y.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap_dim(dim, x.ndim)
    if x.shape[d] != 3 or y.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. "
                           f"Got {x.shape[d]} and {y.shape[d]}")
    x, y = np.broadcast_arrays(x, y)
    return np.cross(x, y, axis=d)


_linalg_cross = defop("linalg_cross", _cross_k,
                       {"x": lambda g, y, dim: _linalg_cross(conj(y), g, dim),
                        "y": lambda g, x, dim: _linalg_cross(g, conj(x), dim)},
                       n_in=2, promote=True, node_name="LinalgCrossBackward0",
                       family=BILINEAR, dims=("dim",), no_bool="cross")


@public()
def cross(input, other, dim=None, *, out=None):
    if out is not None:
        return call_with_out('cross', cross, (input, other, dim), {}, out)
    if dim is None:
        _warn_user("Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
                   "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
                   "dim will change to agree with that of linalg.cross in a future release.")
        if input.ndim != other.ndim:
            raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
        shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dims = [i for i, s in enumerate(shape) if s == 3]
        if not dims:
            raise RuntimeError("no dimension of size 3 in input")
        dim = dims[0]
    return _linalg_cross(input, other, dim)
