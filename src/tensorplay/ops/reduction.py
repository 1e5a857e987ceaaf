"""Reductions and scans: prod, max/min (and their dim / binary forms), amax/amin,
aminmax, argmax/argmin, var/std (and ``*_mean``), norm, logsumexp, cumsum,
cumprod, all/any, softmax/log_softmax.

Conventions (see ``_registry``): NumPy kernels, vjps in tensorplay ops so that
double backward works, PyTorch's complex convention (``g * conj(df/dz)``).

Gradients that PyTorch defines at kinks:
* ``max()``/``min()``/``amax``/``amin``/``aminmax`` share the gradient evenly
  among ties (``max()`` of a tensor holding NaN sends it to the NaNs);
* ``max(dim)``/``min(dim)`` send it to the index they return;
* ``norm`` has gradient 0 where the norm is 0;
* ``prod``/``cumprod`` are exact with zeros in the input, also for double
  backward (products of "all the others" are built from exclusive cumprods,
  and cumprod's own backward has an exact O(n^2) form used under
  ``create_graph`` when the input holds zeros, as PyTorch does).
"""
import builtins as _b
import math as _math
from collections import namedtuple as _namedtuple

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor as _Tensor, _wrap, _wrap_dim
from ._families import REDUCTION, ALONG_DIM, SHAPE, batch_elementwise, batch_size, materialize, pad_rank
from ._registry import (autocast_inputs as _autocast_inputs, broadcast_error as _broadcast_error, defop as _defop, dispatch as _dispatch,
                        derivatives_recorded as _recorded, not_implemented as _not_implemented,
                        public as _public, REGISTRY as _REGISTRY)
from ._util import dtype_error
from ._util import (dims_arg as _dims_arg, tensor_arg as _tensor_arg, _tname, F32 as _F32,
                    F64 as _F64)
from .pointwise import (conj as _conj, where as _where, maximum as _maximum, minimum as _minimum,
                        sub as _sub, _sub_check)
from .shape import cat as _cat
from .._out import call_with_out, write_out as _write_out, _title
from .._autograd.grad_mode import state as _grad_state
from .._warn import warn as _warn_user

__all__ = ["prod", "max", "min", "amax", "amin", "aminmax", "argmax", "argmin", "var", "std",
           "var_mean", "std_mean", "norm", "logsumexp", "cumsum", "cumprod", "all", "any",
           "softmax", "log_softmax", "nansum", "nanmean", "diff", "logcumsumexp", "dist", "cdist",
           "mode", "count_nonzero", "bincount", "histc", "pdist", "renorm"]


# ------------------------------------------------------------------ helpers
def _axes(dim, ndim):
    """``dim`` (None, int, or sequence; empty means all) -> sorted axes, or None
    for "all".  A 0-d tensor accepts dim 0/-1 and reduces over nothing."""
    axes = _dims_arg(dim, ndim)
    return None if ndim == 0 else axes


def _one_dim(dim, ndim):
    """A single int dim, wrapped; None for a 0-d tensor."""
    if type(dim) is int and -ndim <= dim < ndim:
        return dim if dim >= 0 else dim + ndim
    if isinstance(dim, (list, tuple)) or isinstance(dim, float) or dim is None:
        raise TypeError(f"argument 'dim' must be int, not {type(dim).__name__}")
    d = _wrap_dim(dim, ndim)        # (a float tensor or a bool: int_index refuses it)
    return None if ndim == 0 else d


def _kshape(shape, axes):
    return tuple(1 if (axes is None or i in axes) else s for i, s in enumerate(shape))


def _restore(t, shape, axes, keepdim):
    """A reduced tensor with the reduced dims put back as size 1 (broadcasts to ``shape``)."""
    if keepdim or len(shape) == 0:
        return t
    return t.reshape(_kshape(shape, axes))


def _zeros(shape, like):
    return _wrap(np.zeros(shape, like._data.dtype))


def _check_nonempty(name, x, axes, full_msg_type=RuntimeError):
    """PyTorch's errors for max/min-like reductions with no identity."""
    if x.size:
        return
    if axes is None:
        if full_msg_type is RuntimeError:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               f"Specify the reduction dim with the 'dim' argument.")
        raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
    for a in axes:
        if x.shape[a] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {a} to have non-zero size.")


def _return_type(name, fields):
    base = _namedtuple(name, fields)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"tensorplay.return_types.{name}(\n{body})"
    cls = type(name, (base,), {"__slots__": (), "__repr__": __repr__})
    cls.__module__ = "tensorplay.return_types"
    cls.__qualname__ = name
    return cls


_max_rt = _return_type("max", ("values", "indices"))
_min_rt = _return_type("min", ("values", "indices"))
_mode_rt = _return_type("mode", ("values", "indices"))
_aminmax_rt = _return_type("aminmax", ("min", "max"))


# ------------------------------------------------------------------ private helper ops
def _flip_k(x, dim):
    return np.flip(x, dim).copy() if x.ndim else x.copy()


_flip = _defop("_flip_dim", _flip_k, {"x": lambda g, dim: _flip(g, dim)}, upcast=False,
               node_name="FlipBackward0", family=SHAPE, dims=("dim",), linear=True)


def _shift_k(x, dim, n, fill):
    """out[i] = x[i - n] along ``dim`` (n = +-1), ``fill`` where that is outside."""
    out = np.full_like(x, fill)
    if x.ndim == 0 or x.shape[dim] == 0:
        return out
    src = [slice(None)] * x.ndim
    dst = [slice(None)] * x.ndim
    if n > 0:
        src[dim], dst[dim] = slice(0, x.shape[dim] - n), slice(n, None)
    else:
        src[dim], dst[dim] = slice(-n, None), slice(0, x.shape[dim] + n)
    out[tuple(dst)] = x[tuple(src)]
    return out


_shift = _defop("_shift_dim", _shift_k, {"x": lambda g, dim, n: _shift(g, dim, -n, 0)},
                upcast=False, node_name="CatBackward0", family=SHAPE, dims=("dim",),
                jvp=lambda x_t, dim, n: _shift(x_t, dim, n, 0))       # affine: the fill is constant


def _revcumsum(t, d):
    return _flip(_flip(t, d).cumsum(d), d)


def _prod_others(x, d):
    """For each element, the product of the others along ``d``; exact with zeros
    (exclusive cumprod from the front times exclusive cumprod from the back)."""
    front = _shift(x, d, 1, 1).cumprod(d)
    back = _flip(_shift(_flip(x, d), d, 1, 1).cumprod(d), d)
    return front * back


def _int64_if_integral(x):
    return np.int64 if x.dtype.kind in "biu" else None


def _with_dtype(input, dtype):
    if dtype is None:
        return input
    return input.to(D.to_dtype(dtype))


def _as_asked(r, dtype):
    """A reduction's result in the integer or bool ``dtype`` asked for: the kernels
    widen integers to int64, and narrowing back wraps as computing in ``dtype``
    would (sums and products are the same modulo 2^bits)."""
    if dtype is None:
        return r
    dt = D.to_dtype(dtype)
    return r if r.dtype is dt or dt.is_floating_point or dt.is_complex else r.to(dt)


def _no_bool_scan(name, dtype):
    if dtype is not None and D.to_dtype(dtype) is D.bool_:
        raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")


# ------------------------------------------------------------------ prod
def _prod_k(x):
    return np.prod(x, dtype=_int64_if_integral(x))


def _prod_dim_k(x, dim, keepdim=False):
    d = _one_dim(dim, x.ndim)
    if d is None:
        return x.astype(np.int64) if x.dtype.kind in "biu" else x.copy()
    return np.prod(x, axis=d, keepdims=keepdim, dtype=_int64_if_integral(x))


def _prod_grad(g, result, x, d):
    """g, result already broadcastable to x; d the axis (None: all)."""
    if x.ndim == 0:
        return g
    zeros = int((x == 0).sum())
    if not zeros:
        return g * _conj(result / x)
    if d is None:
        if zeros > 1 and not _recorded():         # (PyTorch's shortcut: every product of the
            return _zeros(x.shape, g)             # others has a zero; not when it is differentiated)
        others = _prod_others(x.reshape(-1), 0).reshape(x.shape)
    else:
        others = _prod_others(x, d)
    return g * _conj(others)


def _prod_vjp(g, result, x):
    return _prod_grad(g, result, x, None)


def _prod_dim_vjp(g, result, x, dim, keepdim):
    if x.ndim == 0:
        return g
    d = _wrap_dim(dim, x.ndim)
    return _prod_grad(_restore(g, x.shape, (d,), keepdim), _restore(result, x.shape, (d,), keepdim),
                      x, d)


_prod_all = _defop("prod", _prod_k, {"x": _prod_vjp}, node_name="ProdBackward0", family=REDUCTION)
_prod_dim = _defop("prod_dim", _prod_dim_k, {"x": _prod_dim_vjp}, node_name="ProdBackward1",
                   family=REDUCTION, dims=("dim",))


_PROD_SIGNATURES = {
    False: (" * (Tensor input, *, torch.dtype dtype = None)\n"
            " * (Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)\n"),
    True: (" * (*, torch.dtype dtype = None)\n"
           " * (int dim, bool keepdim = False, *, torch.dtype dtype = None)\n")}


def _prod_refusal(dim, keepdim, dtype, out, method):
    """PyTorch's refusal of a prod call that fits neither of its overloads,
    ``(input, *, dtype)`` and ``(input, dim, keepdim, *, dtype, out)``: with one
    overload left by the number of arguments, that overload's complaint; else
    the list of both (``got (Tensor, tuple)``; a method's has no ``Tensor``)."""
    given = [(n, v) for n, v in (("keepdim", keepdim), ("dtype", dtype), ("out", out)) if v is not None]
    n = (dim is not None) + len(given) + (not method)
    if n > (1 if method else 2):              # (only the overload with dim takes that many)
        if dim is None:
            return TypeError('prod() missing 1 required positional arguments: "dim"')
        return TypeError(f"prod(): argument 'dim' (position {1 if method else 2}) must be int, not "
                         f"{type(dim).__name__}")
    got = [type(dim).__name__] if dim is not None else [f"{k}={type(v).__name__}" for k, v in given]
    text = f"(Tensor, {got[0]})" if not method else f"({got[0]})" if dim is not None else f"({got[0]}, )"
    return TypeError(f"prod() received an invalid combination of arguments - got {text}, but expected "
                     f"one of:\n{_PROD_SIGNATURES[method]}")


def _check_out_dtype(out, dtype, message):
    """A reduction given both ``dtype`` and ``out``: PyTorch wants them the same."""
    if dtype is not None and isinstance(out, _Tensor) and out.dtype is not D.to_dtype(dtype):
        raise RuntimeError(message(D.to_dtype(dtype).np, out._data.dtype))


def _prod(input, dim, keepdim, dtype, out, method):
    if (dim is None and (keepdim is not None or out is not None)) or \
            (dim is not None and (not isinstance(dim, int) or isinstance(dim, bool))):
        raise _prod_refusal(dim, keepdim, dtype, out, method)
    keepdim = bool(keepdim)
    if out is not None:
        _check_out_dtype(out, dtype, lambda r, o: f"Expected out tensor to have dtype "
                                                  f"{D.CPP_NAMES[r.name]}, but got {D.CPP_NAMES[o.name]} instead")
        return call_with_out("prod", prod, (input, dim, keepdim), {"dtype": dtype}, out)
    input = _with_dtype(input, dtype)
    if dim is None:
        return _as_asked(_prod_all(input), dtype)
    return _as_asked(_prod_dim(input, dim, keepdim), dtype)


@_public()
def prod(input, dim=None, keepdim=None, *, dtype=None, out=None):
    return _prod(input, dim, keepdim, dtype, out, False)


def _prod_method(self, dim=None, keepdim=None, *, dtype=None):
    return _prod(self, dim, keepdim, dtype, None, True)


prod.as_method = _prod_method


# ------------------------------------------------------------------ max / min
def _to_index_vjp(g, result, x, dim, keepdim):
    """A (values, indices) reduction along ``dim``: each value's gradient goes to
    the element its index names."""
    g, idx = g[0], result[1].detach()
    if x.ndim == 0:
        return g
    d = _wrap_dim(dim, x.ndim)
    if not keepdim:
        g, idx = g.unsqueeze(d), idx.unsqueeze(d)
    ar = np.arange(x.shape[d]).reshape([-1 if i == d else 1 for i in range(x.ndim)])
    return _where(_wrap(ar) == idx, g, 0.0)


def _make_minmax(name, npred, nparg, binary, values_name):
    def full_k(x):
        if x.dtype.kind == "c":
            raise NotImplementedError(f"\"{name}_all\" not implemented for '{_tname(x.dtype)}'")
        _check_nonempty(name, x, None)
        return npred.reduce(x, None)

    def dim_k(x, dim, keepdim=False):
        if x.dtype.kind == "c":
            raise RuntimeError(f"{name}(): does not support complex input")
        d = _one_dim(dim, x.ndim)
        if d is None:
            return x.copy(), np.zeros((), np.int64)
        _check_nonempty(name, x, (d,))
        # the reduction's value is the element the index points at (NaN first, as
        # argmax/argmin find it): no gather needed
        idx = getattr(x, nparg.__name__)(axis=d, keepdims=keepdim)     # x.argmax / x.argmin
        return npred.reduce(x, d, keepdims=keepdim), idx.astype(np.int64, copy=False)

    def full_vjp(g, result, x):          # PyTorch's evenly_distribute_backward
        mask = x.isnan() if bool(result.isnan()) else (x == result)
        return _where(mask, g / mask.sum(), 0.0)

    full = _defop(name, full_k, {"x": full_vjp}, node_name=f"{name.capitalize()}Backward1",
                  family=REDUCTION)
    withdim = _defop(f"{name}_dim", dim_k, {"x": _to_index_vjp}, meta=("x",), nondiff_out=(1,),
                     out_saved=(1,), node_name=f"{name.capitalize()}Backward0",
                     family=REDUCTION, dims=("dim",))
    rt = _max_rt if name == "max" else _min_rt

    @_public()
    def fn(input, dim=None, keepdim=False, *, other=None, out=None):
        if out is not None:
            return call_with_out(name, fn, (input, dim, keepdim), {'other': other}, out)
        if other is not None:
            if dim is not None:
                raise TypeError(f"{name}() received an invalid combination of arguments")
            return binary(input, other)
        if isinstance(dim, _Tensor):
            return binary(input, dim)
        if dim is None:
            if keepdim:
                raise TypeError(f"{name}() received an invalid combination of arguments - got "
                                f"(keepdim=bool), but expected one of:\n * ()\n * (Tensor other)\n"
                                f" * (int dim, bool keepdim = False)")
            return full(input)
        if isinstance(dim, np.integer):
            dim = int(dim)
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"({type(dim).__name__}), but expected one of:\n * ()\n * (Tensor other)\n"
                            f" * (int dim, bool keepdim = False)")
        return rt(*withdim(input, dim, keepdim))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``{name}(input)``: the {values_name} of all elements; ``{name}(input, dim, "
                      f"keepdim=False)``: ``(values, indices)``; ``{name}(input, other)``: "
                      f"``{binary.__name__}``.")
    return fn


max = _make_minmax("max", np.maximum, np.argmax, _maximum, "largest")       # noqa: A001
min = _make_minmax("min", np.minimum, np.argmin, _minimum, "smallest")      # noqa: A001


def _make_amaxmin(name, npred, values_kernel_name):
    def k(x, dim=(), keepdim=False):
        if x.dtype.kind == "c":
            raise NotImplementedError(f"\"{values_kernel_name}\" not implemented for '{_tname(x.dtype)}'")
        axes = _axes(dim, x.ndim)
        _check_nonempty(name, x, axes)
        return npred(x, axis=axes, keepdims=keepdim)

    def vjp(g, result, x, dim, keepdim):
        # ties share the gradient evenly; a slice whose result is NaN matches
        # nothing, and its gradient is NaN (0 / 0), as PyTorch's scale_grad_by_count
        axes = _axes(dim, x.ndim)
        mask = x == _restore(result, x.shape, axes, keepdim)
        count = mask.sum(axes, keepdim=True)
        return _restore(g, x.shape, axes, keepdim) / count * mask

    return _defop(name, k, {"x": vjp}, node_name=f"{name.capitalize()}Backward0",
                  family=REDUCTION, dims=("dim",))


amax = _make_amaxmin("amax", np.max, "max_values_cpu")
amin = _make_amaxmin("amin", np.min, "min_values_cpu")


def _aminmax_k(x, dim=None, keepdim=False):
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"aminmax_cpu\" not implemented for '{_tname(x.dtype)}'")
    if dim is None:
        if x.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                               "operation has no identity.")
        axes = None
    else:
        d = _one_dim(dim, x.ndim)
        axes = None if d is None else (d,)
        if d is not None and x.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    return np.min(x, axis=axes, keepdims=keepdim), np.max(x, axis=axes, keepdims=keepdim)


def _aminmax_vjp(g, result, x, dim, keepdim):
    axes = None if dim is None else _axes(dim, x.ndim)
    r = 0
    for gi, oi in zip(g, result):       # (amax's and amin's: a NaN slice's gradient is NaN)
        mask = x == _restore(oi, x.shape, axes, keepdim)
        r = r + _restore(gi, x.shape, axes, keepdim) / mask.sum(axes, keepdim=True) * mask
    return r


_aminmax = _defop("aminmax", _aminmax_k, {"x": _aminmax_vjp}, node_name="AminmaxBackward0",
                  family=REDUCTION, dims=("dim",), kwonly=("dim", "keepdim"))


@_public()
def aminmax(input, *, dim=None, keepdim=False, out=None):
    if out is not None:
        return call_with_out('aminmax', aminmax, (input,), {'dim': dim, 'keepdim': keepdim}, out)
    return _aminmax_rt(*_aminmax(input, dim=dim, keepdim=keepdim))


def _make_arg(name, nparg):
    def k(x, dim=None, keepdim=False):
        if x.dtype.kind == "c":
            raise RuntimeError(f"{name}(): does not support complex input")
        if x.dtype.kind == "b":
            raise RuntimeError(f"{name}(): does not support bool input")
        if dim is None:
            if x.size == 0:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                                 f"input.numel() == 0.")
            r = np.asarray(nparg(x), np.int64)
            return r.reshape((1,) * x.ndim) if keepdim else r
        d = _one_dim(dim, x.ndim)
        if d is None:
            return np.zeros((), np.int64)
        _check_nonempty(name, x, (d,))
        return nparg(x, axis=d, keepdims=keepdim).astype(np.int64)
    return _defop(name, k, None, upcast=False, family=REDUCTION, dims=("dim",))


argmax = _make_arg("argmax", np.argmax)
argmin = _make_arg("argmin", np.argmin)


# ------------------------------------------------------------------ var / std
def _var_core(name, x, dim, correction, keepdim, root=False):
    if x.dtype.kind in "biu":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    axes = _axes(dim, x.ndim)
    n = x.size if axes is None else int(np.prod([x.shape[a] for a in axes]))
    dof = _b.max(0, n - correction)
    if dof <= 0:
        _warn_user(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                   f"than the reduction factor (input numel divided by output numel).")
    # float32/complex64 (and half/bfloat16, which arrive as float32) in double precision,
    # rounded once, as PyTorch accumulates them: no overflow of the squares of values
    # past 1.8e19, no underflow of those below 1e-23, no loss of the deviations' digits
    rdt = x.real.dtype
    if rdt == _F32:
        x = x.astype(np.complex128 if x.dtype.kind == "c" else _F64)
    with np.errstate(all="ignore"):
        m = np.mean(x, axis=axes, keepdims=True) if x.size else np.zeros_like(x)
        dev = x - m
        sq = dev.real * dev.real + dev.imag * dev.imag if x.dtype.kind == "c" else dev * dev
        r = np.sum(sq, axis=axes, keepdims=keepdim) / np.asarray(dof, sq.dtype)
        if root:
            r = np.sqrt(r)
        return np.asarray(r).astype(rdt, copy=False)


def _mean_acc(x, axes, keepdim):
    """``x.mean(axes)``, for float32/complex64/half/bfloat16 accumulated in double and
    rounded once to x's dtype, as PyTorch's var/std (and their ``*_mean``) do."""
    dt = x._data.dtype
    if dt.kind in "fc" and dt.itemsize <= (8 if dt.kind == "c" else 4):
        wide = D.complex128 if dt.kind == "c" else D.float64
        return x.to(wide).mean(axes, keepdim=keepdim).to(x.dtype)
    return x.mean(axes, keepdim=keepdim)


def _var_grad(g, x, dim, correction, keepdim):
    """PyTorch's var_backward: ``2 / (n - correction) * g * (x - mean)``.  With no
    degrees of freedom left (``n <= correction``) a full reduction gives inf, or
    NaN where ``x`` is its mean (inf times 0); over given dims the factor is
    taken as it comes (0 gives inf times the deviation, a negative one a finite
    value), as PyTorch computes them."""
    axes = _axes(dim, x.ndim)
    n = x.numel() if axes is None else int(np.prod([x.shape[a] for a in axes]))
    dof = n - correction
    gr = _restore(g, x.shape, axes, keepdim)
    m = _mean_acc(x, axes, True)
    if dof <= 0 and (dim is None or x.ndim == 0):
        return gr * _where(x == m, _math.nan, _math.inf)
    scale = 2.0 / dof if dof else _math.inf
    return gr * scale * (x - m)


_var_vjp = _var_grad          # var's derivative reads exactly what _var_grad takes


def _std_vjp(g, result, x, dim, correction, keepdim):
    zero = result == 0
    g2 = _where(zero, 0.0, g / (2 * _where(zero, 1.0, result)))
    return _var_grad(g2, x, dim, correction, keepdim)


_var = _defop("var", lambda x, dim=None, correction=1, keepdim=False:
              _var_core("var", x, dim, correction, keepdim), {"x": _var_vjp},
              node_name="VarBackward0", family=REDUCTION, dims=("dim",))
_std = _defop("std", lambda x, dim=None, correction=1, keepdim=False:
              _var_core("std", x, dim, correction, keepdim, True), {"x": _std_vjp},
              node_name="StdBackward0", family=REDUCTION, dims=("dim",))


def _correction(dim, unbiased, correction, name):
    if isinstance(dim, bool):               # var(input, unbiased)
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise RuntimeError(f"{name}: can't specify both unbiased and correction")
    if correction is None:
        correction = 1 if unbiased is None else int(bool(unbiased))
    return dim, correction


@_public()
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    if out is not None:
        return call_with_out('var', var, (input, dim, unbiased, keepdim),
                             {'correction': correction}, out)
    dim, c = _correction(dim, unbiased, correction, "var")
    return _var(input, dim, c, keepdim)


@_public()
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    if out is not None:
        return call_with_out('std', std, (input, dim, unbiased, keepdim),
                             {'correction': correction}, out)
    dim, c = _correction(dim, unbiased, correction, "std")
    return _std(input, dim, c, keepdim)


def _floating_moments(name, input):
    """var_mean and std_mean refuse integer and bool inputs in their own words."""
    if isinstance(input, _Tensor) and input._data.dtype.kind in "biu":
        raise RuntimeError(f"{name} only support floating point and complex dtypes")


@_public(method=False)
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dim, c = _correction(dim, unbiased, correction, "var_mean")
    _floating_moments("var_mean", input)
    return _var(input, dim, c, keepdim), _mean_acc(input, _axes(dim, input.ndim), keepdim)


@_public(method=False)
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dim, c = _correction(dim, unbiased, correction, "std_mean")
    _floating_moments("std_mean", input)
    return _std(input, dim, c, keepdim), _mean_acc(input, _axes(dim, input.ndim), keepdim)


# ------------------------------------------------------------------ mode
def _std_sort(v, lt=None):
    """libstdc++'s std::sort of the list ``v`` in place, by ``lt`` (default: the
    first items of pairs with ``<``): introsort (median of three, unguarded
    partition) then insertion sort.  NaN compares false both ways, as there."""
    if lt is None:
        def lt(a, b):
            return a[0] < b[0]

    def median_to_first(r, a, b, c):
        if lt(v[a], v[b]):
            if lt(v[b], v[c]):
                m = b
            elif lt(v[a], v[c]):
                m = c
            else:
                m = a
        elif lt(v[a], v[c]):
            m = a
        elif lt(v[b], v[c]):
            m = c
        else:
            m = b
        v[r], v[m] = v[m], v[r]

    def partition(first, last, pivot):
        while True:
            while first < len(v) - 1 and lt(v[first], v[pivot]):
                first += 1
            last -= 1
            while last > 0 and lt(v[pivot], v[last]):
                last -= 1
            if not first < last:
                return first
            v[first], v[last] = v[last], v[first]
            first += 1

    def linear_insert(i, lo):
        val = v[i]
        j = i - 1
        while j >= lo and lt(val, v[j]):
            v[j + 1] = v[j]
            j -= 1
        v[j + 1] = val

    def insertion_sort(first, last):
        for i in range(first + 1, last):
            if lt(v[i], v[first]):
                val = v[i]
                v[first + 1:i + 1] = v[first:i]
                v[first] = val
            else:
                linear_insert(i, 0)

    def heap_sort(first, last):          # (depth exhausted: libstdc++ heap-sorts the range)
        v[first:last] = sorted(v[first:last], key=lambda p: p[0])

    def loop(first, last, depth):
        while last - first > 16:
            if depth == 0:
                heap_sort(first, last)
                return
            depth -= 1
            mid = first + (last - first) // 2
            median_to_first(first, first + 1, mid, last - 1)
            cut = partition(first + 1, last, first)
            loop(cut, last, depth)
            last = cut

    n = len(v)
    if n < 2:
        return
    loop(0, n, 2 * (n.bit_length() - 1))
    if n > 16:
        insertion_sort(0, 16)
        for i in range(16, n):
            linear_insert(i, 0)
    else:
        insertion_sort(0, n)


_MODE_EXACT_BUDGET = 1 << 18     # elements of rows longer than 16 sorted as std::sort does
# (in Python, about 1.3 ms per 1000 elements; past that the index of the last occurrence)


def _mode_row(row):
    """PyTorch's CPU mode of one row (a list): the (value, index) pairs sorted by
    std::sort, the first longest run of equal values (NaN equal to nothing), the
    value and index of its last pair."""
    v = [(x, k) for k, x in enumerate(row)]
    _std_sort(v)
    freq, run, val, idx = 0, 0, v[0][0], v[0][1]
    for i in range(len(v)):
        run += 1
        if i == len(v) - 1 or not v[i][0] == v[i + 1][0]:
            if run > freq:
                val, idx, freq = v[i][0], v[i][1], run
            run = 0
    return val, idx


def _mode_k(x, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest of those that tie; each
    NaN a value of its own) and the index PyTorch's CPU kernel gives: of its last
    occurrence in a row of up to 16 elements, else where its std::sort puts it."""
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"mode_cpu\" not implemented for '{_tname(x.dtype)}'")
    if x.ndim == 0:
        _wrap_dim(dim, 0)
        return x.copy(), np.zeros((), np.int64)
    d = _wrap_dim(dim, x.ndim)
    length = x.shape[d]
    if length == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    if x.dtype.name == "bfloat16":      # NumPy does not order bfloat16's NaN: as float32 (exact)
        values, idx = _mode_k(x.astype(np.float32), dim, keepdim)
        return values.astype(x.dtype), idx
    a = np.moveaxis(x, d, -1)
    rows = a.reshape(-1, length)
    n = rows.shape[0]
    s = np.sort(rows, axis=1)
    new = np.ones(s.shape, bool)            # where a run of equal sorted values starts
    if length > 1:
        same = s[:, 1:] == s[:, :-1]
        if s.dtype.kind == "f":
            same |= np.isnan(s[:, 1:]) & np.isnan(s[:, :-1])
        new[:, 1:] = ~same
    starts = np.flatnonzero(new)
    lengths = np.diff(np.append(starts, n * length))
    row = starts // length
    order = np.lexsort((starts, -lengths, row))     # per row: the longest run, the first
    best = order[np.searchsorted(row[order], np.arange(n))]
    values = s.reshape(-1)[starts[best]]
    hit = rows == values[:, None]
    if rows.dtype.kind == "f":
        hit |= np.isnan(rows) & np.isnan(values)[:, None]
    idx = length - 1 - np.argmax(hit[:, ::-1], axis=1)
    # PyTorch sorts each row with std::sort (stable only up to 16 elements, and NaN,
    # equal to nothing, stops its insertion sort): such rows are sorted as it does
    redo = np.isnan(rows).any(axis=1) if rows.dtype.kind == "f" else np.zeros(n, bool)
    if length > 16 and n * length <= _MODE_EXACT_BUDGET:
        redo[:] = True
    if redo.any():
        values, idx = values.copy(), idx.copy()
        for r in np.flatnonzero(redo):
            values[r], idx[r] = _mode_row(rows[r].tolist())
    shape = a.shape[:-1]
    values, idx = values.reshape(shape), idx.reshape(shape).astype(np.int64)
    if keepdim:
        values, idx = np.expand_dims(values, d), np.expand_dims(idx, d)
    return values, idx


_mode = _defop("mode", _mode_k, {"x": _to_index_vjp}, meta=("x",), nondiff_out=(1,), out_saved=(1,),
               upcast=False, node_name="ModeBackward0", family=REDUCTION, dims=("dim",))


@_public()
def mode(input, dim=-1, keepdim=False, *, out=None):
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest
    value where counts tie; each NaN counts alone) and where it occurs: its last
    occurrence in a slice of up to 16 elements, else the one PyTorch's sort picks."""
    if out is not None:
        if not isinstance(out, (tuple, list)):
            raise TypeError(f"mode(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
        if len(out) == 2 and _b.all(isinstance(o, _Tensor) for o in out) and isinstance(input, _Tensor):
            for o, want, which in ((out[0], input._data.dtype, "values"), (out[1], np.dtype(np.int64), "indices")):
                if o._data.dtype != want:
                    raise RuntimeError(f"expected scalar type '{_title(want)}' but got "
                                       f"'{_title(o._data.dtype)}' for {which} output")
        return call_with_out("mode", mode, (input, dim, keepdim), {}, out)
    return _mode_rt(*_mode(input, dim, keepdim))


mode.op = _mode.op


# ------------------------------------------------------------------ norm
def _vnorm_k(x, ord, dim=None, keepdim=False):
    axes = _axes(dim, x.ndim)
    a = np.abs(x)
    if ord == _math.inf or ord < 0:
        # (refused only where a reduced dimension is empty: no identity for max/min, nor
        # for the negative orders)
        name = f"{ord:g}"
        if axes is None and a.size == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {name} norm on an empty tensor "
                               f"because the operation does not have an identity")
        for given in (dim if isinstance(dim, (tuple, list)) else (dim,)) if axes else ():
            if x.shape[given % x.ndim] == 0:    # (named as given: -1 stays -1)
                raise RuntimeError(f"linalg.vector_norm cannot compute the {name} norm on the dimension "
                                   f"{given}because this dimension is empty and the operation does not "
                                   f"have an identity")
    if ord in (_math.inf, -_math.inf):
        return (np.max if ord > 0 else np.min)(a, axis=axes, keepdims=keepdim)
    if ord == 0:
        return np.sum(a != 0, axis=axes, keepdims=keepdim).astype(a.dtype)
    if ord == 1:
        return np.sum(a, axis=axes, keepdims=keepdim)
    if ord == 2:
        return np.sqrt(np.sum(a * a, axis=axes, keepdims=keepdim))
    with np.errstate(divide="ignore"):
        return np.power(np.sum(np.power(a, ord), axis=axes, keepdims=keepdim), 1.0 / ord)


def _in_float32(f):
    """``f`` computed in float32 where its tensors are half or bfloat16 (PyTorch's
    opmath for the norm's derivatives: ``g / norm`` overflows float16 for small
    norms), its result given back in the first argument's dtype."""
    def run(*args):
        first = args[0]
        if not _b.any(isinstance(a, _Tensor) and a._data.dtype in D.LOW_PRECISION for a in args):
            return f(*args)
        r = f(*(a.float() if isinstance(a, _Tensor) and a._data.dtype in D.LOW_PRECISION else a
                for a in args))
        want = first.dtype if isinstance(first, _Tensor) else None
        return r if want is None or r.dtype is want or first._data.dtype not in D.LOW_PRECISION \
            else r.to(want)
    run.__name__ = run.__qualname__ = f.__name__
    run.__wrapped__ = f
    return run


@_in_float32
def _vnorm_vjp(g, result, x, ord, dim, keepdim):     # PyTorch's norm_backward
    axes = _axes(dim, x.ndim)
    g = _restore(g, x.shape, axes, keepdim)
    n = _restore(result, x.shape, axes, keepdim)
    if ord == 0:
        return _zeros(x.shape, g)
    if ord == 1:
        return g * x.sgn()
    nz = n == 0
    if ord == 2:
        return x * _where(nz, 0.0, g / _where(nz, 1.0, n))
    if ord in (_math.inf, -_math.inf):
        mask = x.abs() == n
        return x.sgn() * _where(mask, g / mask.sum(axes, keepdim=True), 0.0)
    xz = x == 0
    ax = _where(xz, 1.0, x.abs())
    if ord < 1:
        scaled = _where(xz, 0.0, x.sgn() * ax ** (ord - 1))
        return scaled * _where(nz, 0.0, g * _where(nz, 1.0, n) ** (1 - ord))
    scaled = x.sgn() * ax ** (ord - 1) if ord >= 2 else _where(xz, 0.0, x.sgn() * ax ** (ord - 1))
    return scaled * _where(nz, 0.0, g / _where(nz, 1.0, n) ** (ord - 1))


_vector_norm = _defop("linalg_vector_norm", _vnorm_k, {"x": _vnorm_vjp},
                      node_name="LinalgVectorNormBackward0", family=REDUCTION, dims=("dim",))


def _dist_k(x, y, p=2):
    d = x - y               # (a shape mismatch: dispatch words it as PyTorch does)
    if d.dtype.kind not in "fc":
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{_tname(d.dtype)} instead.")
    return _vnorm_k(d, float(p))


def _dist_vjp(g, x, y, p, result):
    """The norm's gradient at ``x - y``, summed back to ``x``'s shape."""
    return _vnorm_vjp(g, result, x - y, float(p), None, False)


def _dist_jvp(x_t, y_t, x, y, p, result):
    """The norm's directional derivative at ``x - y`` along ``x_t - y_t``."""
    t = (_conj(_dist_vjp(result.new_ones(()), x, y, p, result)) * (x_t - y_t)).sum()
    return t.real if t.is_complex() else t


def _dist_batch(op, args, bdims):
    """Under vmap: the difference as an elementwise op batches it (batch first,
    ranks lined up), then each sample's norm over all its dimensions."""
    d, _ = batch_elementwise(_sub.op, list(args[:2]), bdims)
    if d.ndim == 1:                     # 0-d samples
        d = d.unsqueeze(1)
    return _vector_norm(d, float(args[2] if len(args) > 2 else 2), tuple(range(1, d.ndim)), False), 0


_dist = _defop("dist", _dist_k,
               {"x": lambda g, x, y, p, result: _dist_vjp(g, x, y, p, result).sum_to_size(x.shape),
                "y": lambda g, x, y, p, result: -_dist_vjp(g, x, y, p, result).sum_to_size(y.shape)},
               n_in=2, promote=True, node_name="DistBackward0", family=REDUCTION, jvp=_dist_jvp,
               batch=_dist_batch)


@_public()
def dist(input, other, p=2):
    """``norm(input - other, p)``, as one node (PyTorch's ``DistBackward0``)."""
    _tensor_arg("dist", "input", 1, input)
    _tensor_arg("dist", "other", 2, other)
    if input._data.dtype == np.bool_ or other._data.dtype == np.bool_:
        _sub_check(input, other)        # (PyTorch's dist subtracts first: its bool refusal)
    return _dist(input, other, p)


dist.op = _dist.op


def _cdist_k(x1, x2, p=2.0):
    """Row-to-row p-norm distances: (..., P, M) and (..., R, M) give (..., P, R)."""
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} "
                           f"X2: {x2.shape[-1]}")
    for name, x in (("X1", x1), ("X2", x2)):
        if x.dtype.kind != "f" and x.dtype.name != "bfloat16":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{_tname(x.dtype)}")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {_tname(x1.dtype)} but found {_tname(x2.dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    try:
        np.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    except ValueError:
        raise _broadcast_error(x1.shape[:-2], x2.shape[:-2]) from None
    if x1.shape[-1] == 0:       # (no columns: every distance is 0, whatever p, inf included)
        lead = np.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
        return np.zeros(lead + (x1.shape[-2], x2.shape[-2]), x1.dtype)
    return _vnorm_k(x1[..., :, None, :] - x2[..., None, :, :], float(p), -1)


def _cdist_pairs(g, x1, x2, p, result):
    """The norm's gradient for every pair, (..., P, R, M)."""
    return _vnorm_vjp(g, result, x1.unsqueeze(-2) - x2.unsqueeze(-3), float(p), -1, False)


def _cdist_jvp(x1_t, x2_t, x1, x2, p, result):
    d = _cdist_pairs(result.new_ones(result.shape), x1, x2, p, result)
    return (d * (x1_t.unsqueeze(-2) - x2_t.unsqueeze(-3))).sum(-1)


def _cdist_batch(op, args, bdims):
    """Under vmap: both inputs batch first, ranks lined up (their batch dims
    broadcast as the samples' do)."""
    size = batch_size(args, bdims)
    x1, x2 = (materialize(a, b, size) for a, b in zip(args[:2], bdims))
    rank = _b.max(x1.ndim, x2.ndim) - 1
    return _dispatch(op, [pad_rank(x1, rank), pad_rank(x2, rank)] + list(args[2:])), 0


_cdist = _defop("cdist", _cdist_k,
                {"x1": lambda g, x1, x2, p, result: _cdist_pairs(g, x1, x2, p, result).sum(-2)
                 .sum_to_size(x1.shape),
                 "x2": lambda g, x1, x2, p, result: -_cdist_pairs(g, x1, x2, p, result).sum(-3)
                 .sum_to_size(x2.shape)},
                n_in=2, node_name="CdistBackward0", family=REDUCTION, jvp=_cdist_jvp,
                batch=_cdist_batch)


@_public(method=False)
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of ``x1`` and each row of ``x2``
    (batch dimensions broadcast), as one node (PyTorch's ``CdistBackward0``).
    ``compute_mode`` is accepted for PyTorch's signature: the distances are
    always computed directly (no matmul shortcut for p=2)."""
    _tensor_arg("cdist", "x1", 1, x1)
    _tensor_arg("cdist", "x2", 2, x2)
    if compute_mode not in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist"):
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    x1, x2 = _autocast_inputs("cdist", x1, x2)
    for x in (x1, x2):          # (float32 and float64 only; other dtypes: the kernel's words)
        if x._data.dtype in D.LOW_PRECISION:
            raise dtype_error("cdist", x._data.dtype)
    return _cdist(x1, x2, float(p))


cdist.op = _cdist.op


def _pairs(n):
    """The row pairs ``i < j`` of ``n`` rows, in PyTorch's pdist order."""
    i, j = np.triu_indices(n, 1)
    return i.astype(np.int64), j.astype(np.int64)


def _pdist_k(x, p=2.0):
    i, j = _pairs(x.shape[0])
    return _vnorm_k(x[i] - x[j], p, -1)


def _pdist_diffs(x):
    i, j = (_wrap(a) for a in _pairs(x.shape[0]))
    return x.index_select(0, i) - x.index_select(0, j), i, j


def _pdist_vjp(g, x, p, result):
    d, i, j = _pdist_diffs(x)
    pair = _vnorm_vjp(g, result, d, p, -1, False)
    return x.new_zeros(x.shape).index_add(0, i, pair).index_add(0, j, -pair)


def _pdist_jvp(x_t, x, p, result):
    d, i, j = _pdist_diffs(x)
    pair = _vnorm_vjp(result.new_ones(result.shape), result, d, p, -1, False)
    return (pair * (x_t.index_select(0, i) - x_t.index_select(0, j))).sum(-1)


def _pdist_batch(op, args, bdims):
    """Under vmap: the pairs of each sample's rows, one vector norm for all."""
    x = materialize(args[0], bdims[0], None)
    i, j = (_wrap(a) for a in _pairs(x.shape[1]))
    return _vector_norm(x.index_select(1, i) - x.index_select(1, j), args[1], -1), 0


_pdist = _defop("pdist", _pdist_k, {"x": _pdist_vjp}, node_name="PdistBackward0", family=REDUCTION,
                jvp=_pdist_jvp, batch=_pdist_batch)


@_public(method=False)
def pdist(input, p=2):
    """The p-norm distance between every pair of rows ``i < j`` of a 2-d
    ``input``, in the order of the upper triangle (``torch.pdist``)."""
    _tensor_arg("pdist", "input", 1, input)
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    dt = input._data.dtype
    if dt in D.LOW_PRECISION:
        raise dtype_error("pdist", dt)
    if dt.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if not p >= 0:                              # (NaN too)
        raise RuntimeError("pdist only supports non-negative p values")
    return _pdist(input, float(p))


# renorm: each slice along ``dim`` whose p-norm exceeds ``maxnorm`` scaled to it
_RENORM_EPS = 1e-7          # (PyTorch's: the factor is maxnorm / (norm + 1e-7))


def _others(dim, ndim):
    return tuple(i for i in range(ndim) if i != dim)


def _renorm_k(x, p, dim, maxnorm):
    n = _vnorm_k(x, p, _others(dim, x.ndim), True)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where(n > maxnorm, maxnorm / (n + _RENORM_EPS), 1.0).astype(n.dtype)
    return x * f


def _renorm_parts(x, p, dim, maxnorm):
    axes = _others(dim, x.ndim)
    n = _vector_norm(x, p, axes, True)
    over = n > maxnorm
    inv = 1 / (n + _RENORM_EPS)
    return axes, n, over, inv, inv * maxnorm


@_in_float32
def _renorm_vjp(g, x, p, dim, maxnorm):
    """``factor * g`` plus the part through the norm: ``factor = maxnorm /
    (norm + eps)`` where the norm exceeds ``maxnorm``, else ``g`` as it is."""
    axes, n, over, inv, f = _renorm_parts(x, p, dim, maxnorm)
    s = _conj(x) * g
    s = (s.real if s.is_complex() else s).sum(axes, keepdim=True)
    through = _vnorm_vjp(s, n, x, p, axes, True)
    return _where(over, f * g - f * inv * through, g)


@_in_float32
def _renorm_jvp(x_t, x, p, dim, maxnorm):
    axes, n, over, inv, f = _renorm_parts(x, p, dim, maxnorm)
    dn = _vnorm_vjp(n.new_ones(n.shape), n, x, p, axes, True)     # (d norm / d x, conjugated)
    n_t = _conj(dn) * x_t
    n_t = (n_t.real if n_t.is_complex() else n_t).sum(axes, keepdim=True)
    return _where(over, f * x_t - x * (f * inv * n_t), x_t)


def _renorm_batch(op, args, bdims):
    """Under vmap: the same norm over each sample's other dims (batch first)."""
    x = materialize(args[0], bdims[0], None)
    p, dim, maxnorm = args[1], args[2], args[3]
    axes = tuple(i for i in range(1, x.ndim) if i != dim + 1)
    n = _vector_norm(x, p, axes, True)
    return x * _where(n > maxnorm, maxnorm / (n + _RENORM_EPS), 1.0), 0


_renorm = _defop("renorm", _renorm_k, {"x": _renorm_vjp}, node_name="RenormBackward0", family=REDUCTION,
                 dims=("dim",), jvp=_renorm_jvp, batch=_renorm_batch)


@_public(inplace=True)
def renorm(input, p, dim, maxnorm, *, out=None):
    """Each slice ``input.select(dim, i)`` whose ``p``-norm exceeds ``maxnorm``
    scaled to norm ``maxnorm`` (by ``maxnorm / (norm + 1e-7)``, as PyTorch)."""
    if out is not None:
        return call_with_out('renorm', renorm, (input, p, dim, maxnorm), {}, out)
    _tensor_arg("renorm", "input", 1, input)
    if type(dim) is bool or not hasattr(type(dim), "__index__"):
        raise TypeError(f"renorm(): argument 'dim' (position 3) must be int, not {type(dim).__name__}")
    p, maxnorm = float(p), float(maxnorm)
    if not p > 0:                               # (NaN too)
        raise RuntimeError("renorm: non-positive-norm not supported")
    if not maxnorm >= 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {_tname(input._data.dtype)}")
    return _renorm(input, p, _wrap_dim(dim, input.ndim), maxnorm)


def _matrix_norm_str(A, ord, dims, keepdim, dtype, out):
    """``linalg.matrix_norm(A, ord, dims, keepdim, dtype=, out=)`` for a string
    ``ord``, as ``torch.norm`` calls it: PyTorch's checks in its order, and the
    nuclear norm, the sum of the singular values (``linalg_svd``'s, so its
    gradients are the SVD's)."""
    name = "linalg.matrix_norm"
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"{name}: Order {ord} not supported.")
    a = A._data
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if not (a.dtype.kind in "fc" or a.dtype.name == "bfloat16"):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {_tname(a.dtype)}")
    if ord == "nuc" and a.dtype in D.LOW_PRECISION:
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {_tname(a.dtype)}")
    if len(dims) != 2:
        raise RuntimeError(f"{name}: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
    rows, cols = (_wrap_dim(d, a.ndim) for d in dims)
    if rows == cols:
        raise RuntimeError(f"{name}: dims must be different. Got ({rows}, {cols})")
    if dtype is not None:
        dt, src = D.to_dtype(dtype), A.dtype
        if not (dt.is_floating_point or dt.is_complex):
            raise RuntimeError(f"{name}: dtype should be floating point or complex, but got {_title(dt.np)}")
        if src.is_complex != dt.is_complex:
            kind = "complex" if src.is_complex else "real"
            raise RuntimeError(f"{name}: dtype should be {kind} for {kind} inputs, but got {_title(dt.np)}")
        if D.promote_types(src, dt) != dt:
            raise RuntimeError(f"{name}: the dtype of the input ({_title(src.np)}) should be convertible "
                               f"without narrowing to the specified dtype ({_title(dt.np)})")
        A = A.to(dt)
    if ord == "fro":        # (not reached: over two dims torch.norm takes the vector norm)
        r = _vector_norm(A, 2.0, (rows, cols), keepdim)
    else:
        s = _dispatch(_REGISTRY["linalg_svd"], [A.movedim((rows, cols), (-2, -1)), False])[1]
        r = s.sum(-1)
        if keepdim:
            for d in sorted((rows, cols)):
                r = r.unsqueeze(d)
    if out is None:
        return r
    # (a composite's out=, as PyTorch's: out copies the result, gradient included)
    if not isinstance(out, _Tensor):
        raise TypeError(f"linalg_matrix_norm(): argument 'out' must be Tensor, not {type(out).__name__}")
    if _grad_state.enabled and out._rg and out.is_leaf:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if out._data.dtype != r._data.dtype:
        raise RuntimeError(f"{name} expected out tensor dtype {_title(r._data.dtype)} but got: "
                           f"{_title(out._data.dtype)}")
    _write_out("linalg_matrix_norm", r.detach(), out)
    if _grad_state.enabled and r._rg:
        out.copy_(r)
    return out


@_public()
def norm(input, p="fro", dim=None, keepdim=False, dtype=None, *, out=None):
    """``torch.norm``: vector p-norms over ``dim`` (all elements by default);
    ``'fro'`` is the 2-norm over the given (at most two) dims; ``'nuc'`` (and
    ``'fro'`` over more dims, for its error) is ``linalg.matrix_norm``'s, over
    ``dim`` (all dims by default), as PyTorch's."""
    if isinstance(p, str) and not (p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2)):
        dims = list(range(input.dim())) if dim is None else [dim] if isinstance(dim, int) else list(dim)
        return _matrix_norm_str(input, p, dims, keepdim, dtype, out)
    if out is not None:
        return call_with_out('norm', norm, (input, p, dim, keepdim, dtype), {}, out)
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_tname(input._data.dtype)}")
    if dtype is not None:
        dt = D.to_dtype(dtype)
        src = input.dtype.to_real() if input.is_complex() and dt.category < D._COMPLEX else input.dtype
        if D.promote_types(src, dt) != dt:
            raise RuntimeError(f"linalg.vector_norm: the dtype of the input ({_tname(input._data.dtype)}) "
                               f"should be convertible without narrowing to the specified dtype "
                               f"({_tname(dt.np)})")
        if dt != input.dtype:
            input = input.to(dt)
    if p is None:
        p = "fro"
    if p == "fro":              # (over at most two dims: the 2-norm of their elements)
        p = 2
    return _vector_norm(input, float(p), dim, keepdim)


# ------------------------------------------------------------------ logsumexp
def _logsumexp_k(x, dim, keepdim=False):
    axes = _axes(dim, x.ndim)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if x.size == 0:
            return np.log(np.sum(np.exp(x), axis=axes, keepdims=keepdim))
        m = np.max(x.real, axis=axes, keepdims=True)
        m = np.where(np.isinf(m), 0, m).astype(x.real.dtype)
        s = np.sum(np.exp(x - m), axis=axes, keepdims=keepdim)
        return (np.log(s) + (m if keepdim else m.reshape(s.shape))).astype(x.dtype)


def _logsumexp_vjp(g, result, x, dim, keepdim):
    axes = _axes(dim, x.ndim)
    return (_restore(g, x.shape, axes, keepdim)
            * _conj((x - _restore(result, x.shape, axes, keepdim)).exp()))


def _logsumexp_jvp(x_t, x, dim, keepdim):
    """sum(exp(x - m) t) / sum(exp(x - m)) with m the (finite) maximum, as
    PyTorch's logsumexp_jvp: weights from the result instead, ``exp(x - r)``,
    carry the rounding of ``r`` (float16 near 300: 5% off)."""
    axes = _axes(dim, x.ndim)
    if axes is None and x.ndim == 0:
        return x_t
    xr = x.detach().real if x.is_complex() else x.detach()
    m = xr.amax(axes if axes is not None else (), keepdim=True) if x.numel() else xr.sum(axes, keepdim=True)
    e = (x - _where(m.isinf(), 0, m)).exp()
    return (e * x_t).sum(axes, keepdim) / e.sum(axes, keepdim)


logsumexp = _defop("logsumexp", _logsumexp_k, {"x": _logsumexp_vjp}, float_only=True,
                   node_name="LogsumexpBackward0", family=REDUCTION, dims=("dim",),
                   jvp=_logsumexp_jvp)


# ------------------------------------------------------------------ cumsum / cumprod
_WIDE = {np.dtype(np.float32): np.float64, np.dtype(np.complex64): np.complex128,
         np.dtype(np.float16): np.float32, D.bfloat16.np: np.float32}


def _scan(f, x, d):
    """``f(x, axis=d)`` (cumsum, cumprod, logaddexp.accumulate) as PyTorch's CPU
    kernels run it: integers in int64, float32/complex64 accumulated in double
    precision (a long float32 running sum drifts otherwise), and a C-contiguous
    result whatever the input's layout (NumPy keeps a transposed one).  Half and
    bfloat16 in float32, rounded back here (their ops take ``upcast=False``),
    silently where the sum overflows them, as PyTorch's."""
    if x.dtype.kind in "biu":
        return np.ascontiguousarray(f(x, axis=d, dtype=np.int64))
    wide = _WIDE.get(x.dtype)
    with np.errstate(over="ignore", invalid="ignore"):     # (inf - inf, overflow: PyTorch is silent)
        if wide is None:
            return np.ascontiguousarray(f(x, axis=d))
        return f(x, axis=d, dtype=wide).astype(x.dtype, order="C")


def _cumsum_k(x, dim):
    d = _one_dim(dim, x.ndim)
    if d is None:
        return x.astype(np.int64) if x.dtype.kind in "biu" else x.copy()
    return _scan(np.cumsum, x, d)


def _cumsum_vjp(g, x, dim):
    if x.ndim == 0:
        return g
    return _revcumsum(g, _wrap_dim(dim, x.ndim))


_cumsum = _defop("cumsum", _cumsum_k, {"x": _cumsum_vjp}, meta=("x",), node_name="CumsumBackward0",
                 family=ALONG_DIM, dims=("dim",), linear=True, upcast=False)


@_public(inplace=True)
def cumsum(input, dim, *, dtype=None, out=None):
    if out is not None:
        # PyTorch computes in out's dtype unless told otherwise
        return call_with_out('cumsum', cumsum, (input, dim),
                             {'dtype': getattr(out, "dtype", None) if dtype is None else dtype}, out)
    _no_bool_scan("cumsum", dtype)
    return _as_asked(_cumsum(_with_dtype(input, dtype), dim), dtype)


def _cumprod_k(x, dim):
    d = _one_dim(dim, x.ndim)
    if d is None:
        return x.astype(np.int64) if x.dtype.kind in "biu" else x.copy()
    return _scan(np.cumprod, x, d)


def _cumprod_vjp(g, result, x, dim):
    if x.ndim == 0:
        return g
    d = _wrap_dim(dim, x.ndim)
    z = x == 0
    if not bool(z.any()):
        return _revcumsum(g * _conj(result), d) / _conj(x)
    if not _recorded():
        # first-order only: O(n).  Before the first zero the ratio formula holds;
        # at the first zero, the products with that factor left out; after it, 0.
        zc = z.long().cumsum(d)
        before = zc == 0
        first = (zc == 1) & z
        part1 = _revcumsum(g * _conj(result), d) / _conj(_where(before, x, 1.0))
        part2 = _revcumsum(g * _conj(_where(first, 1.0, x).cumprod(d)), d)
        return _where(before, part1, _where(first, part2, 0.0))
    # create_graph with zeros: exact O(n^2) form, differentiable again.
    # grad_j = sum_{i >= j} g_i * conj(prod_{k <= i, k != j} x_k)
    n = x.shape[d]
    xm = x.transpose(d, -1)                                          # (..., n)
    eye = _wrap(np.eye(n, dtype=bool))
    a = _where(eye, 1.0, xm.unsqueeze(-2).expand(*xm.shape[:-1], n, n))   # a[.., j, k]
    c = a.cumprod(-1)                                                # prod_{k<=i, k!=j}
    upper = _wrap(np.triu(np.ones((n, n), dtype=bool)))              # i >= j
    gi = g.transpose(d, -1).unsqueeze(-2)
    return _where(upper, gi * _conj(c), 0.0).sum(-1).transpose(d, -1)


def _cumprod_jvp(x_t, result, x, dim):
    """d r_i = sum_{j<=i} t_j prod_{k<=i, k!=j} x_k: ``r * cumsum(t / x)`` without
    zeros; with zeros, one cumulative product per j with x_j replaced by 1."""
    if x.ndim == 0:
        return x_t
    if not (x == 0).any().item():
        return result * (x_t / x).cumsum(dim)
    xm, tm = x.movedim(dim, -1), x_t.movedim(dim, -1)
    n = xm.shape[-1]
    total = None
    for j in range(n):
        hot = np.zeros(n, bool)
        hot[j] = True
        later = _wrap(np.arange(n) >= j)
        term = _where(_wrap(hot), 1.0, xm).cumprod(-1) * tm[..., j:j + 1]
        term = _where(later, term, 0.0)
        total = term if total is None else total + term
    return total.movedim(-1, dim)


_cumprod = _defop("cumprod", _cumprod_k, {"x": _cumprod_vjp}, node_name="CumprodBackward0", upcast=False,
                  family=ALONG_DIM, dims=("dim",), jvp=_cumprod_jvp)


@_public(inplace=True)
def cumprod(input, dim, *, dtype=None, out=None):
    if out is not None:
        # PyTorch computes in out's dtype unless told otherwise
        return call_with_out('cumprod', cumprod, (input, dim),
                             {'dtype': getattr(out, "dtype", None) if dtype is None else dtype}, out)
    _no_bool_scan("cumprod", dtype)
    return _as_asked(_cumprod(_with_dtype(input, dtype), dim), dtype)


# ------------------------------------------------------------------ all / any
def _make_logical(name, npred):
    def k(x, dim=None, keepdim=False):
        if isinstance(dim, (tuple, list)) and not dim:      # dim=(): no dimension reduced
            r = x != 0
        else:
            r = npred(x, axis=_axes(dim, x.ndim), keepdims=keepdim)
        return np.asarray(r, np.uint8 if x.dtype == np.uint8 else np.bool_)
    return _defop(name, k, None, upcast=False, family=REDUCTION, dims=("dim",))


all = _make_logical("all", np.all)        # noqa: A001
any = _make_logical("any", np.any)        # noqa: A001


# ------------------------------------------------------------------ softmax / log_softmax
def _check_softmax_dtype(name, x, d):
    if x.dtype.kind in "biuc":
        impl = "_lastdim_kernel_impl" if d is None or d == x.ndim - 1 else "_kernel_impl"
        raise NotImplementedError(f"\"{name}{impl}\" not implemented for '{_tname(x.dtype)}'")


_max_reduce, _sum_reduce = np.maximum.reduce, np.add.reduce     # (np.max/np.sum add ~2 us of Python)


def _shifted(x, d):
    """``x`` minus its maximum along ``d``, and whether that could warn (a row
    whose maximum is infinite or NaN: only then is NumPy's errstate, ~3 us, needed)."""
    m = _max_reduce(x, d, keepdims=True)
    v = m.ravel()
    total = float(v.dot(v))     # inf or NaN if a maximum is; (a dot product never warns)
    if total - total == 0:
        return x - m, False
    with np.errstate(invalid="ignore"):
        return x - m, True


_ONES32, _ONES64 = {}, {}   # input shape -> ones for its row sums by a product (_softmax_k)


def _row_ones(cache, shape, dt):
    """Ones that turn ``exp(x)`` of ``shape`` into its row sums by one product: a
    square for short rows (the sums come out repeated along each row, so that
    scaling by them needs no broadcasting, ~1.2 us on a small array), else a
    column (the sums keep a last dimension of 1, to broadcast)."""
    if len(cache) > 64:             # (shapes that vary without end: start again)
        cache.clear()
    n = shape[-1]
    size = n * int(np.prod(shape[:-1]))
    ones = cache[shape] = np.ones((n, n if size * n <= 4096 else 1), dt)
    return ones


def _softmax_k(x, dim):
    """Along the last dimension (the common call) without the maximum's shift
    when that is safe: ``exp(x)`` times the reciprocals of its rows' sums,
    provided every sum is finite and at least 1.  NumPy's reductions cost
    ~1.4 us each on a small array, and a product that broadcasts ~1.2 us: the
    sums come from a product with ones (for short rows, with a square of ones,
    which gives them already repeated along the row), and two dot products
    check them.  With every sum at least 1, an element of ``exp(x) / sum`` is
    only less precise than with the shift where its exp is subnormal, and then
    its share is subnormal too (as PyTorch's is); a sum that overflowed, or a
    NaN, fails the check.  (Not for log_softmax: ``x - log(sum)`` without the
    shift loses an ulp of the largest logit, which is all of a log-probability
    near 0.)"""
    if not x.flags.c_contiguous:
        x = np.ascontiguousarray(x)     # (the result contiguous, as PyTorch's)
    shape = x.shape
    nd = len(shape)
    if type(dim) is int and nd and (dim == -1 or dim == nd - 1):
        dt = x.dtype
        cache = _ONES32 if dt is _F32 else _ONES64 if dt is _F64 else None
        if cache is not None:
            ones = cache.get(shape)
            if ones is None:
                ones = _row_ones(cache, shape, dt)
            e = np.exp(x)
            s = e.dot(ones)             # the row sums, each ones.shape[1] times
            v = s.ravel()               # (a view of s)
            big = float(v.dot(v))
            np.reciprocal(s, s)         # (out= positionally: ~40 ns less than by keyword)
            small = float(v.dot(v))     # (the sum of squared reciprocals, as often)
            if big - big == 0 and small <= ones.shape[1]:
                return np.multiply(e, s, e)
    d = _one_dim(dim, nd)
    _check_softmax_dtype("softmax", x, d)
    if x.size == 0:
        return x.copy()
    s, _ = _shifted(x, d)
    e = np.exp(s)               # s <= 0 or NaN: no overflow
    return e / _sum_reduce(e, d, keepdims=True)


def _log_softmax_k(x, dim):
    if not x.flags.c_contiguous:
        x = np.ascontiguousarray(x)     # (the result contiguous, as PyTorch's)
    d = _one_dim(dim, x.ndim)
    _check_softmax_dtype("log_softmax", x, d)
    if x.size == 0:
        return x.copy()
    s, special = _shifted(x, d)
    if not special:             # every row's sum of exp is at least 1
        return s - np.log(_sum_reduce(np.exp(s), d, keepdims=True))
    with np.errstate(invalid="ignore", divide="ignore"):
        return s - np.log(_sum_reduce(np.exp(s), d, keepdims=True))


def _softmax_vjp(g, result, dim):
    d = None if result.ndim == 0 else _wrap_dim(dim, result.ndim)
    gy = g * result
    return gy - result * gy.sum(d, keepdim=True)


def _log_softmax_vjp(g, result, dim):
    d = None if result.ndim == 0 else _wrap_dim(dim, result.ndim)
    return g - result.exp() * g.sum(d, keepdim=True)


_softmax = _defop("softmax", _softmax_k, {"x": _softmax_vjp}, node_name="SoftmaxBackward0",
                  family=ALONG_DIM, dims=("dim",),
                  # J = diag(y) - y y^T is symmetric: the tangent maps as the gradient does
                  jvp=lambda x_t, result, dim: _softmax_vjp(x_t, result, dim))
_log_softmax = _defop("log_softmax", _log_softmax_k, {"x": _log_softmax_vjp},
                      node_name="LogSoftmaxBackward0", family=ALONG_DIM, dims=("dim",),
                      jvp=lambda x_t, result, dim: x_t - (result.exp() * x_t).sum(dim, keepdim=True))


def _softmax_args(name, input, dim, dtype, stacklevel):
    if isinstance(dtype, int) and not isinstance(dtype, bool):   # F.softmax(x, dim, _stacklevel)
        stacklevel, dtype = dtype, None
    if dim is None:
        _warn_user(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                   f"to include dim=X as an argument.")
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return _with_dtype(input, dtype), dim


@_public()
def softmax(input, dim=None, dtype=None):
    """``tensorplay.softmax`` / ``Tensor.softmax``: ``dim`` is required, as in
    PyTorch (``nn.functional.softmax`` is the one that may infer it)."""
    if dim is None:
        raise TypeError('softmax() missing 1 required positional arguments: "dim"')
    return _dispatch(_softmax.op, (input if dtype is None else _with_dtype(input, dtype), dim))


@_public()
def log_softmax(input, dim=None, dtype=None):
    if dim is None:
        raise TypeError('log_softmax() missing 1 required positional arguments: "dim"')
    return _log_softmax(_with_dtype(input, dtype), dim)


def _functional_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``nn.functional.softmax``: without ``dim``, warns and picks one, as PyTorch does."""
    input, dim = _softmax_args("softmax", input, dim, dtype, _stacklevel)
    return _softmax(input, dim)


def _functional_log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    input, dim = _softmax_args("log_softmax", input, dim, dtype, _stacklevel)
    return _log_softmax(input, dim)


# ------------------------------------------------------------------ nansum / nanmean
def _nansum_k(x, dim=None, keepdim=False):
    if x.dtype.kind == "c":
        raise RuntimeError("nansum on CPU does not support complex inputs")
    axes = _axes(dim, x.ndim) if dim is not None else None
    dt = np.int64 if x.dtype.kind in "biu" else None
    return np.asarray(np.nansum(x, axis=axes, keepdims=keepdim, dtype=dt))


def _nansum_vjp(g, x, dim, keepdim):
    axes = _axes(dim, x.ndim) if dim is not None else None
    # (a product, as PyTorch's: an infinite or NaN gradient, nanmean's of an all-NaN
    # slice, stays NaN at the NaNs)
    return _restore(g, x.shape, axes, keepdim) * (~x.isnan()).to(g.dtype)


_nansum = _defop("nansum", _nansum_k, {"x": _nansum_vjp}, node_name="NansumBackward0",
                 family=REDUCTION, dims=("dim",))


@_public()
def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    if out is not None:
        _check_out_dtype(out, dtype, lambda r, o: f"nansum: provided dtype must match dtype of result. "
                                                  f"Got {_title(o)} and {_title(r)}.")
        return call_with_out("nansum", nansum, (input, dim, keepdim), {"dtype": dtype}, out)
    if dtype is not None and isinstance(input, _Tensor) and input.is_complex():
        _nansum_k(input._data)          # (refused as it is, before a cast to dtype)
    return _as_asked(_nansum(_with_dtype(input, dtype), dim, keepdim), dtype)


@_public()
def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    if out is not None:
        return call_with_out('nanmean', nanmean, (input, dim, keepdim), {'dtype': dtype}, out)
    if dtype is not None:
        input = input.to(D.to_dtype(dtype))
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but "
                           f"got {_tname(input._data.dtype)}")
    count = (~input.isnan()).sum(dim, keepdim=keepdim) if dim is not None else (~input.isnan()).sum()
    return nansum(input, dim, keepdim) / count


@_public()
def diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None):
    """Forward differences of order ``n`` along ``dim`` (composite: slices and sub)."""
    if out is not None:
        return call_with_out('diff', diff, (input, n, dim, prepend, append), {}, out)
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input.ndim)
    parts = []
    for p in (prepend, input, append):
        if p is None:
            continue
        if not isinstance(p, _Tensor):
            p = input.new_tensor(p)
        if p.ndim == 0:
            shape = list(input.shape)
            shape[d] = 1
            p = p.expand(shape)
        elif p.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        parts.append(p)
    x = parts[0] if len(parts) == 1 else _cat(parts, d)
    if n == 0:
        return input.clone()    # (PyTorch: prepend and append take no part then)
    for _ in range(n):
        m = x.shape[d]
        if m == 0:
            break
        hi, lo = x.narrow(d, 1, m - 1), x.narrow(d, 0, m - 1)
        x = hi.logical_xor(lo) if x.dtype.name == "bool" else hi - lo
    return x


def _logcumsumexp_k(x, dim):
    d = _wrap_dim(dim, x.ndim)          # (a 0-d tensor takes dim 0 and -1 only)
    if x.dtype.kind in "biu":
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{_tname(x.dtype)}'")
    if x.ndim == 0:
        return x.copy()
    if x.dtype.kind == "c":
        xm = np.moveaxis(x, d, -1)
        out = np.empty_like(xm)
        if xm.shape[-1]:
            cur = xm[..., 0]
            out[..., 0] = cur
            with np.errstate(all="ignore"):
                for i in range(1, xm.shape[-1]):
                    v = xm[..., i]
                    m = np.maximum(cur.real, v.real)
                    m = np.where(np.isinf(m), 0, m)
                    cur = m + np.log(np.exp(cur - m) + np.exp(v - m))
                    out[..., i] = cur
        return np.ascontiguousarray(np.moveaxis(out, -1, d))
    with np.errstate(all="ignore"):
        return _scan(np.logaddexp.accumulate, x, d)


def _logcumsumexp_vjp(g, result, x, dim):
    """grad_i = sum_{j >= i} g_j * conj(exp(x_i - out_j)), built from the (n, n) table of
    exponents (all <= 0 where used), so it is stable and differentiable again."""
    if x.ndim == 0:
        return g
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d]
    xm, om, gm = x.transpose(d, -1), result.transpose(d, -1), g.transpose(d, -1)
    upper = _wrap(np.triu(np.ones((n, n), dtype=bool)))          # [i, j]: j >= i
    e = _where(upper, xm.unsqueeze(-1) - om.unsqueeze(-2), -float("inf")).exp()
    # (the pairs j < i masked after the product too: an infinite g_j times their 0 is NaN)
    return _where(upper, gm.unsqueeze(-2) * _conj(e), 0.0).sum(-1).transpose(d, -1)


def _logcumsumexp_jvp(x_t, result, x, dim):
    """d r_i = sum_{j<=i} exp(x_j - r_i) t_j, the weights formed pairwise (stable)."""
    if x.ndim == 0:
        return x_t
    xm, rm, tm = x.movedim(dim, -1), result.movedim(dim, -1), x_t.movedim(dim, -1)
    n = xm.shape[-1]
    lower = _wrap(np.tril(np.ones((n, n), bool)))          # [i, j]: j <= i
    w = _where(lower, xm.unsqueeze(-2) - rm.unsqueeze(-1), float("-inf")).exp()
    return (w * tm.unsqueeze(-2)).sum(-1).movedim(-1, dim)


logcumsumexp = _defop("logcumsumexp", _logcumsumexp_k, {"x": _logcumsumexp_vjp},
                      node_name="LogcumsumexpBackward0", family=ALONG_DIM, dims=("dim",),
                      jvp=_logcumsumexp_jvp)


# ------------------------------------------------------------------ histograms
def _histc_k(x, bins=100, min=0, max=0):
    if x.dtype.kind not in "fV" and x.dtype.name != "bfloat16":
        kernel = "aminmax_cpu" if x.dtype.kind == "c" and min == max else "histogram_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_tname(x.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and x.size:                     # (the data's range, then widened if it is one value)
        lo, hi = float(np.min(x)), float(np.max(x))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (_math.isfinite(lo) and _math.isfinite(hi)):
        lo_s, hi_s = ("-nan" if v != v else f"{v:g}" for v in (lo, hi))
        raise RuntimeError(f"torch.histc: range of [{lo_s}, {hi_s}] is not finite")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    # PyTorch's arithmetic, in the input's dtype (an element on a bin's edge lands where
    # its rounding puts it): (x - lo) * bins / (hi - lo), truncated
    t = x.dtype.type
    lo_t, hi_t = t(lo), t(hi)
    v = x.ravel()
    v = v[(v >= lo_t) & (v <= hi_t)]            # (outside the range, and NaN: not counted)
    pos = ((v - lo_t) * t(bins) / (hi_t - lo_t)).astype(np.int64)
    pos[pos >= bins] = bins - 1                 # (max itself: the last bin)
    return np.bincount(pos, minlength=bins).astype(x.dtype)


def _histc_batch(op, args, bdims):
    """Under vmap: each sample's histogram (each may have its own data range)."""
    x = materialize(args[0], bdims[0], None)
    return _cat([_dispatch(op, [x[k]] + list(args[1:])).unsqueeze(0) for k in range(x.shape[0])]), 0


_histc = _defop("histc", _histc_k, None, batch=_histc_batch, upcast=False,
                nondiff_out=(0,))       # (counts: no gradient, no tangent, as in PyTorch)


@_public()
def histc(input, bins=100, min=0, max=0, *, out=None):
    """A histogram of ``input``'s elements in ``bins`` equal bins over ``[min,
    max]`` (the data's own range when both are 0); elements outside it are not
    counted.  Not differentiable."""
    if out is not None:
        return call_with_out('histc', histc, (input, bins, min, max), {}, out)
    _tensor_arg("histc", "input", 1, input)
    return _histc(input, bins, min, max)


# ------------------------------------------------------------------ counting
def _count_nonzero_k(x, dim=None):
    axes = _axes(dim, x.ndim) if dim is not None else None
    return np.asarray(np.count_nonzero(x, axis=axes), np.int64)


count_nonzero = _defop("count_nonzero", _count_nonzero_k, None, upcast=False, family=REDUCTION,
                       dims=("dim",))


def _bincount_k(x, weights=None, minlength=0):
    if x.dtype.kind not in "iu":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{_tname(x.dtype)}'")
    if x.ndim != 1 or (x.size and x.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return np.bincount(x, minlength=minlength).astype(np.int64)
    if weights.shape != x.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights.dtype.kind == "c":
        weights = weights.real
    r = np.bincount(x, weights=weights, minlength=minlength)     # (accumulated in double)
    return r.astype(np.float32) if weights.dtype == np.float32 else r   # (PyTorch keeps float32 only)


# with weights, PyTorch's bincount has no derivative: a gradient reaching the
# weights raises (its NotImplemented node), and so does forward mode


def _bincount_jvp(op, args, tangents, result):
    raise NotImplementedError("Trying to use forward AD with aten::bincount that does not support "
                              "it.")


def _bincount_batch(op, args, bdims):
    """Weights batched over a shared input: each sample's counts have the same
    length (PyTorch loops over the samples); a batched input is its refusal
    of dynamic shapes."""
    x, w, minlength = args
    if bdims[0] is not None:
        raise RuntimeError("vmap: We do not support batching operators that can output dynamic "
                           "shape. Attempted to vmap over aten::bincount. Please file an issue at "
                           "https://github.com/pytorch/pytorch/issues if you need this feature.")
    w = w.movedim(bdims[1], 0) if bdims[1] else w
    n = int(x._data.max()) + 1 if x._data.size else 0
    length = _b.max(n, minlength)
    if w.shape[0] == 0:
        raise RuntimeError("Batching rule not implemented for aten::bincount. The fallback path "
                           "does not support vmap over dims of size 0.")
    rows = [_dispatch(op, [x, w[i], length]).unsqueeze(0) for i in range(w.shape[0])]
    return _cat(rows, 0), 0


_bincount = _defop("bincount", _bincount_k, None, upcast=False)
# bincount with tensor weights: its node (PyTorch's NotImplemented) has the
# weights' edge, so a gradient reaching them raises rather than being zero
_bincount_weighted = _defop(
    "_bincount_weighted", _bincount_k,
    {"weights": _not_implemented(RuntimeError, "derivative for aten::bincount is not implemented")},
    n_in=2, upcast=False, node_name="NotImplemented", jvp=_bincount_jvp, batch=_bincount_batch,
    method=False)


@_public()
def bincount(input, weights=None, minlength=0):
    """How often each non-negative integer occurs in the 1-d ``input`` (the sum of
    ``weights`` at its occurrences, with weights).  Not differentiable: a
    gradient reaching ``weights`` raises, as in PyTorch."""
    if isinstance(weights, _Tensor):
        # weights a gradient, a tangent or a batch reaches: the op with their edge
        if weights.requires_grad or type(weights._data) is not np.ndarray \
                or weights.__dict__.get("_fw_grads"):
            return _bincount_weighted(input, weights, minlength)
        weights = weights._data
    return _bincount(input, None if weights is None else np.asarray(weights), minlength)
