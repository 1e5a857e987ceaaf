"""More commonly used ops: ``new_*`` constructors, sorting and selection
(sort, argsort, topk, kthvalue, median, cummax/cummin), pointwise extras and
a few shape helpers.

Selection ops send the gradient to the indices they return (PyTorch's
``value_selecting_reduction_backward``); ``median()`` without ``dim`` shares
it evenly among ties, as PyTorch does.
"""
import warnings

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor as _Tensor, _wrap, _wrap_dim
from ._families import ELEMENTWISE, REDUCTION, ALONG_DIM, SHAPE, BILINEAR
from ._registry import defop as _defop, public as _public
from .pointwise import conj as _conj, where as _where, binary as _binary, unary as _unary
from .reduction import _return_type, _tname, _restore, _axes
from .shape import cat

__all__ = ["sort", "argsort", "topk", "kthvalue", "median", "cummax", "cummin", "isclose",
           "allclose", "equal", "heaviside", "xlogy", "hypot", "logaddexp", "logit", "deg2rad",
           "rad2deg", "addcmul", "addcdiv", "nansum", "nanmean", "diff", "cross", "diag_embed",
           "diag", "repeat_interleave", "unflatten", "rot90", "logcumsumexp"]


def _creation():
    from .. import _creation as c
    return c


# ------------------------------------------------------------------ new_* / type_as (methods only)
def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    if len(size) == 1 and hasattr(size[0], "__iter__") and not isinstance(size[0], _Tensor):
        return tuple(size[0])
    return tuple(size)


def _new_factory(name):
    def method(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
        f = getattr(_creation(), name)
        return f(*_size(size), dtype=self.dtype if dtype is None else dtype,
                 requires_grad=requires_grad)
    method.__name__ = method.__qualname__ = f"new_{name}"
    return method


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
              layout=None, pin_memory=False):
    return _creation().full(size, fill_value, dtype=self.dtype if dtype is None else dtype,
                            requires_grad=requires_grad)


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False, layout=None,
                pin_memory=False):
    c = _creation()
    if isinstance(data, _Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        data = data.detach()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return c.tensor(data, dtype=self.dtype if dtype is None else dtype,
                            requires_grad=requires_grad)
    return c.tensor(data, dtype=self.dtype if dtype is None else dtype, requires_grad=requires_grad)


def _type_as(self, other):
    return self.to(other.dtype)


_Tensor.new_zeros = _new_factory("zeros")
_Tensor.new_ones = _new_factory("ones")
_Tensor.new_empty = _new_factory("empty")
_Tensor.new_full = _new_full
_Tensor.new_tensor = _new_tensor
_Tensor.type_as = _type_as


# ------------------------------------------------------------------ sorting and selection
_sort_rt = _return_type("sort", ("values", "indices"))
_topk_rt = _return_type("topk", ("values", "indices"))
_kthvalue_rt = _return_type("kthvalue", ("values", "indices"))
_median_rt = _return_type("median", ("values", "indices"))
_cummax_rt = _return_type("cummax", ("values", "indices"))
_cummin_rt = _return_type("cummin", ("values", "indices"))


def _key(x):
    """An array NumPy sorts and compares like ``x`` (bfloat16 sorts as float32)."""
    return x.astype(np.float32) if x.dtype.name == "bfloat16" else x


def _isfloat(x):
    return x.dtype.kind == "f" or x.dtype.name == "bfloat16"


def _argsort_np(x, d, descending):
    """Stable argsort along ``d``, NaN largest (as PyTorch)."""
    x = _key(x)
    if not descending:
        return np.argsort(x, axis=d, kind="stable")
    n = x.shape[d]
    r = np.flip(x, d)
    idx = np.flip(np.argsort(r, axis=d, kind="stable"), d)
    return (n - 1) - idx


def _sort_k(x, dim=-1, descending=False):
    if x.dtype.kind == "c":
        raise RuntimeError(" Sort does not support complex dtypes on CPU")
    d = _wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    idx = _argsort_np(x, d, descending)
    return np.take_along_axis(x, idx, d), idx.astype(np.int64)


def _scatter_back(g, idx, shape, d, keepdim=True):
    """zeros(shape).scatter(d, idx, g): the gradient of a value-selecting op."""
    if len(shape) == 0:
        return g.reshape(())
    if not keepdim:
        g, idx = g.unsqueeze(d), idx.unsqueeze(d)
    z = _wrap(np.zeros(shape, g._data.dtype))
    return z.scatter(d, idx, g)


def _sort_vjp(g, result, x, dim):
    return _scatter_back(g[0], result[1].detach(), x.shape,
                         _wrap_dim(dim, max(x.ndim, 1)) if x.ndim else 0)


_sort = _defop("sort", _sort_k, {"x": _sort_vjp}, meta=("x",), nondiff_out=(1,), upcast=False,
               node_name="SortBackward0", family=ALONG_DIM, dims=("dim",))
_sort_stable = _defop("sort_stable", _sort_k, {"x": _sort_vjp}, meta=("x",), nondiff_out=(1,),
                      upcast=False, node_name="SortBackward1", family=ALONG_DIM, dims=("dim",))


@_public()
def sort(input, dim=-1, descending=False, *, stable=None):
    if isinstance(dim, bool):
        raise TypeError("sort() received an invalid combination of arguments")
    if stable is None:
        return _sort_rt(*_sort(input, dim, descending))
    return _sort_rt(*_sort_stable(input, dim, descending))


@_public()
def argsort(input, dim=-1, descending=False, *, stable=False):
    return _sort(input, dim, descending)[1].detach()


def _topk_k(x, k, dim=-1, largest=True, sorted=True):
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"topk_cpu\" not implemented for '{_tname(x.dtype)}'")
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d] if x.ndim else 1
    if not (0 <= k <= n):
        raise RuntimeError("selected index k out of range")
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    idx = np.take(_argsort_np(x, d, largest), np.arange(k), axis=d)
    return np.take_along_axis(x, idx, d), idx.astype(np.int64)


def _topk_vjp(g, result, x, dim):
    return _scatter_back(g[0], result[1].detach(), x.shape, _wrap_dim(dim, x.ndim) if x.ndim else 0)


_topk = _defop("topk", _topk_k, {"x": _topk_vjp}, meta=("x",), nondiff_out=(1,), upcast=False,
               node_name="TopkBackward0", family=ALONG_DIM, dims=("dim",))


@_public()
def topk(input, k, dim=-1, largest=True, sorted=True):
    return _topk_rt(*_topk(input, k, dim, largest, sorted))


def _kthvalue_k(x, k, dim=-1, keepdim=False):
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"kthvalue_cpu\" not implemented for '{_tname(x.dtype)}'")
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d] if x.ndim else 1
    if not (1 <= k <= n):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    idx = np.take(_argsort_np(x, d, False), [k - 1], axis=d)
    vals = np.take_along_axis(x, idx, d)
    if not keepdim:
        idx, vals = idx.squeeze(d), vals.squeeze(d)
    return vals, idx.astype(np.int64)


def _kthvalue_vjp(g, result, x, dim, keepdim):
    if x.ndim == 0:
        return g[0]
    return _scatter_back(g[0], result[1].detach(), x.shape, _wrap_dim(dim, x.ndim), keepdim)


_kthvalue = _defop("kthvalue", _kthvalue_k, {"x": _kthvalue_vjp}, meta=("x",), nondiff_out=(1,),
                   upcast=False, node_name="KthvalueBackward0", family=REDUCTION, dims=("dim",))


@_public()
def kthvalue(input, k, dim=-1, keepdim=False):
    return _kthvalue_rt(*_kthvalue(input, k, dim, keepdim))


def _median_all_k(x):
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"median_cpu\" not implemented for '{_tname(x.dtype)}'")
    f = x.reshape(-1)
    if f.size == 0:
        return np.array(np.nan, x.dtype) if x.dtype.kind == "f" else np.zeros((), x.dtype)
    s = f[np.argsort(_key(f), kind="stable")]
    if _isfloat(x) and np.isnan(_key(s[-1:]))[0]:
        return np.array(np.nan, x.dtype)
    return np.asarray(s[(f.size - 1) // 2])


def _median_all_vjp(g, result, x):       # PyTorch's evenly_distribute_backward
    mask = x.isnan() if bool(result.isnan()) else (x == result)
    return _where(mask, g / mask.sum(), 0.0)


def _median_dim_k(x, dim, keepdim=False):
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"median_out\" not implemented for '{_tname(x.dtype)}'")
    d = _wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    n = x.shape[d]
    if n == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    order = _argsort_np(x, d, False)
    idx = np.take(order, [(n - 1) // 2], axis=d)
    if _isfloat(x):                    # a NaN in the slice: the first NaN is the median
        nan = np.isnan(_key(x))
        has = nan.any(axis=d, keepdims=True)
        first = np.argmax(nan, axis=d, keepdims=True)
        idx = np.where(has, first, idx)
    vals = np.take_along_axis(x, idx, d)
    if not keepdim:
        idx, vals = idx.squeeze(d), vals.squeeze(d)
    return vals, idx.astype(np.int64)


def _median_dim_vjp(g, result, x, dim, keepdim):
    if x.ndim == 0:
        return g[0]
    return _scatter_back(g[0], result[1].detach(), x.shape, _wrap_dim(dim, x.ndim), keepdim)


_median_all = _defop("median", _median_all_k, {"x": _median_all_vjp}, upcast=False,
                     node_name="MedianBackward0", family=REDUCTION)
_median_dim = _defop("median_dim", _median_dim_k, {"x": _median_dim_vjp}, meta=("x",),
                     nondiff_out=(1,), upcast=False, node_name="MedianBackward1",
                     family=REDUCTION, dims=("dim",))


@_public()
def median(input, dim=None, keepdim=False):
    if dim is None:
        return _median_all(input)
    return _median_rt(*_median_dim(input, dim, keepdim))


def _make_cum(name, better):
    def k(x, dim):
        if x.dtype.kind == "c":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_tname(x.dtype)}'")
        d = _wrap_dim(dim, x.ndim)
        if x.ndim == 0:
            return x.copy(), np.zeros((), np.int64)
        xm = np.moveaxis(_key(x), d, -1)
        vals = np.empty_like(xm)
        idx = np.zeros(xm.shape, np.int64)
        n = xm.shape[-1]
        if n:
            cur, ci = xm[..., 0].copy(), np.zeros(xm.shape[:-1], np.int64)
            vals[..., 0], idx[..., 0] = cur, ci
            for i in range(1, n):
                v = xm[..., i]
                take = better(v, cur)
                if _isfloat(x):
                    take = (take | np.isnan(v)) & ~np.isnan(cur)
                cur = np.where(take, v, cur)
                ci = np.where(take, i, ci)
                vals[..., i], idx[..., i] = cur, ci
        return np.moveaxis(vals, -1, d).astype(x.dtype), np.moveaxis(idx, -1, d)

    def vjp(g, result, x, dim):           # PyTorch's cummaxmin_backward: scatter_add
        g, idx = g[0], result[1].detach()
        if x.ndim == 0:
            return g
        z = _wrap(np.zeros(x.shape, g._data.dtype))
        return z.scatter_add(_wrap_dim(dim, x.ndim), idx, g)

    op = _defop(name, k, {"x": vjp}, meta=("x",), nondiff_out=(1,), upcast=False,
                node_name=f"{name.capitalize()}Backward0", family=ALONG_DIM, dims=("dim",))
    rt = _cummax_rt if name == "cummax" else _cummin_rt

    @_public()
    def fn(input, dim):
        return rt(*op(input, dim))
    fn.__name__ = fn.__qualname__ = name
    return fn


cummax = _make_cum("cummax", np.greater_equal)
cummin = _make_cum("cummin", np.less_equal)


# ------------------------------------------------------------------ comparisons
def _check_same_dtype(x, y):
    if x.dtype != y.dtype:
        raise RuntimeError(f"{_tname(x.dtype)} did not match {_tname(y.dtype)}")


def _isclose_k(x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
    _check_same_dtype(x, y)
    return np.isclose(_key(x), _key(y), rtol=rtol, atol=atol, equal_nan=equal_nan)


isclose = _defop("isclose", _isclose_k, None, n_in=2, upcast=False, family=ELEMENTWISE)


@_public()
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


@_public()
def equal(input, other):
    """True when both have the same shape and the same elements."""
    for i, t in enumerate((input, other)):
        if not isinstance(t, _Tensor):
            raise TypeError(f"equal(): argument '{('input', 'other')[i]}' (position {i + 1}) must be "
                            f"Tensor, not {type(t).__name__}")
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(np.array_equal(_key(input._data), _key(other._data)))


def _heaviside_k(x, values):
    if x.dtype.kind == "c" or values.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if x.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    kx, kv = _key(x), _key(values)
    return np.where(kx == 0, kv, (kx > 0)).astype(x.dtype)


heaviside = _defop("heaviside", _heaviside_k, None, n_in=2, upcast=False, family=ELEMENTWISE)


# ------------------------------------------------------------------ pointwise extras
def _lg(y):
    return y.log() if isinstance(y, _Tensor) else float(np.log(y))


def _xlogy_k(x, y):
    dt = x.dtype if isinstance(x, np.ndarray) else y.dtype
    if dt.kind == "c":
        raise NotImplementedError(f"\"xlogy_cpu\" not implemented for '{_tname(dt)}'")
    with np.errstate(divide="ignore", invalid="ignore"):
        x, y = np.asarray(x, dt), np.asarray(y, dt)
        r = x * np.log(y)
        return np.where((x == 0) & ~np.isnan(y), np.zeros((), r.dtype), r).astype(r.dtype)


def _xlogy_vjp_x(g, x, y):             # PyTorch: xlogy(g, y), 0 where x == 0 and y <= 0
    r = g * _lg(y)
    if isinstance(y, _Tensor):
        return _where((x == 0) & (y <= 0), 0.0, r)
    return _where(x == 0, 0.0, r) if y <= 0 else r


xlogy = _binary("xlogy", _xlogy_k, {"x": _xlogy_vjp_x,
                                    "y": lambda g, x, y: g * x / y},
                float_only=True, family=ELEMENTWISE)
_XLOGY_ST = type("XlogyBackward1", (xlogy.op.node_cls,), {"__slots__": (), "_scalar_args_hidden": True})
_XLOGY_TS = type("XlogyBackward2", (xlogy.op.node_cls,), {"__slots__": (), "_scalar_args_hidden": True})
xlogy.op.variants = lambda x, y: (_XLOGY_TS if type(y) in (int, float) else
                                  _XLOGY_ST if type(x) in (int, float) else xlogy.op.node_cls)


def _no_int(name, *arrs):
    for a in arrs:
        a = np.asarray(a)
        if a.dtype.kind in "biuc":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_tname(a.dtype)}'")


def _hypot_k(x, y):
    _no_int("hypot", x, y)
    return np.hypot(x, y)


hypot = _binary("hypot", _hypot_k, {"x": lambda g, result, x: g * x / result,
                                    "y": lambda g, result, y: g * y / result},
                family=ELEMENTWISE, inplace=True)


def _logaddexp_k(x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype.kind == "c" or y.dtype.kind == "c":
        with np.errstate(all="ignore"):
            m = np.maximum(x.real, y.real)
            m = np.where(np.isinf(m), 0, m)
            return (m + np.log(np.exp(x - m) + np.exp(y - m))).astype(np.result_type(x, y))
    _no_int("logaddexp", x, y)
    return np.logaddexp(x, y)


logaddexp = _binary("logaddexp", _logaddexp_k,
                    {"x": lambda g, x, y: g * _conj((x - y).sigmoid()),
                     "y": lambda g, x, y: g * _conj((y - x).sigmoid())},
                    family=ELEMENTWISE)


def _logit_k(x, eps=None):
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"logit_cpu\" not implemented for '{_tname(x.dtype)}'")
    with np.errstate(divide="ignore", invalid="ignore"):
        if eps is not None:
            x = np.clip(x, eps, 1 - eps)
        return np.log(x / (1 - x))


def _logit_vjp(g, x, eps):
    d = g / (x * (1 - x))
    if eps is None:
        return d
    return _where((x < eps) | (x > 1 - eps), 0.0, d)


logit = _defop("logit", _logit_k, {"x": _logit_vjp}, float_only=True, node_name="LogitBackward0",
               family=ELEMENTWISE)

_D2R = np.pi / 180.0


def _angle_k(factor, name):
    def k(x):
        if x.dtype.kind == "c":
            raise RuntimeError(f"{name} is not supported for complex tensors.")
        return x * np.asarray(factor, x.dtype)
    return k


deg2rad = _unary("deg2rad", _angle_k(_D2R, "deg2rad"), {"x": lambda g: g * _D2R},
                 node_name="Deg2RadBackward0", family=ELEMENTWISE, linear=True)
rad2deg = _unary("rad2deg", _angle_k(1 / _D2R, "rad2deg"), {"x": lambda g: g * (1 / _D2R)},
                 node_name="Rad2DegBackward0", family=ELEMENTWISE, linear=True)


def _addcmul_k(x, a, b, *, value=1):
    return x + value * a * b


addcmul = _defop("addcmul", _addcmul_k,
                 {"x": "grad",
                  "a": lambda g, b, value: g * _conj(b * value),
                  "b": lambda g, a, value: g * _conj(a * value)},
                 n_in=3, promote=True, node_name="AddcmulBackward0", family=ELEMENTWISE)


def _addcdiv_k(x, a, b, *, value=1):
    return x + value * a / b


_addcdiv = _defop("addcdiv", _addcdiv_k,
                  {"x": "grad",
                   "a": lambda g, b, value: g * _conj(value / b),
                   "b": lambda g, a, b, value: -g * _conj(value * a / (b * b))},
                  n_in=3, promote=True, node_name="AddcdivBackward0", family=ELEMENTWISE)


@_public()
def addcdiv(input, tensor1, tensor2, *, value=1):
    if all(isinstance(t, _Tensor) and t._data.dtype.kind in "biu" for t in (tensor1, tensor2)):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
            "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
            "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
            "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
            "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
            "for all dtypes.")
    return _addcdiv(input, tensor1, tensor2, value=value)


# ------------------------------------------------------------------ nansum / nanmean
def _nansum_k(x, dim=None, keepdim=False):
    if x.dtype.kind == "c":
        raise RuntimeError("nansum on CPU does not support complex inputs")
    axes = _axes(dim, x.ndim) if dim is not None else None
    dt = np.int64 if x.dtype.kind in "biu" else None
    return np.asarray(np.nansum(x, axis=axes, keepdims=keepdim, dtype=dt))


def _nansum_vjp(g, x, dim, keepdim):
    axes = _axes(dim, x.ndim) if dim is not None else None
    return _where(x.isnan(), 0.0, _restore(g, x.shape, axes, keepdim).expand(*x.shape))


_nansum = _defop("nansum", _nansum_k, {"x": _nansum_vjp}, node_name="NansumBackward0",
                 family=REDUCTION, dims=("dim",))


@_public()
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        input = input.to(D.to_dtype(dtype))
    return _nansum(input, dim, keepdim)


@_public()
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        input = input.to(D.to_dtype(dtype))
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but "
                           f"got {_tname(input._data.dtype)}")
    count = (~input.isnan()).sum(dim, keepdim=keepdim) if dim is not None else (~input.isnan()).sum()
    return nansum(input, dim, keepdim) / count


# ------------------------------------------------------------------ shape helpers and scans
@_public()
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """Forward differences of order ``n`` along ``dim`` (composite: slices and sub)."""
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
            p = p.expand(*shape)
        elif p.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        parts.append(p)
    x = parts[0] if len(parts) == 1 else _cat(parts, d)
    for _ in range(n):
        m = x.shape[d]
        if m == 0:
            break
        hi, lo = x.narrow(d, 1, m - 1), x.narrow(d, 0, m - 1)
        x = hi.logical_xor(lo) if x.dtype.name == "bool" else hi - lo
    return x


def _cat(ts, d):
    return cat(ts, d)


def _cross_k(x, y, dim):
    if x.ndim != y.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap_dim(dim, x.ndim)
    if x.shape[d] != 3 or y.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. "
                           f"Got {x.shape[d]} and {y.shape[d]}")
    x, y = np.broadcast_arrays(x, y)
    return np.cross(x, y, axis=d)


_linalg_cross = _defop("linalg_cross", _cross_k,
                       {"x": lambda g, y, dim: _linalg_cross(_conj(y), g, dim),
                        "y": lambda g, x, dim: _linalg_cross(g, _conj(x), dim)},
                       n_in=2, promote=True, node_name="LinalgCrossBackward0",
                       family=BILINEAR, dims=("dim",))


@_public()
def cross(input, other, dim=None):
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
                      "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
                      "dim will change to agree with that of linalg.cross in a future release.",
                      UserWarning, stacklevel=2)
        if input.ndim != other.ndim:
            raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
        shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dims = [i for i, s in enumerate(shape) if s == 3]
        if not dims:
            raise RuntimeError("no dimension of size 3 in input")
        dim = dims[0]
    return _linalg_cross(input, other, dim)


def _diag_embed_k(x, offset=0, dim1=-2, dim2=-1):
    nd = x.ndim + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = x.shape[-1] + abs(offset) if x.ndim else abs(offset) + 1
    batch = x.shape[:-1]
    out = np.zeros(batch + (n, n), x.dtype)
    m = x.shape[-1] if x.ndim else 1
    i = np.arange(m)
    r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
    out[..., r, c] = x
    # out is (..., n, n) with the diagonal in the last two dims: move them to d1, d2
    src = list(range(len(batch))) + [nd - 2, nd - 1]
    rest = [k for k in range(nd) if k not in (d1, d2)]
    perm = [0] * nd
    for k, a in zip(rest, range(len(batch))):
        perm[k] = a
    perm[d1], perm[d2] = nd - 2, nd - 1
    del src
    return np.ascontiguousarray(np.transpose(out, perm))


diag_embed = _defop("diag_embed", _diag_embed_k,
                    {"x": lambda g, offset, dim1, dim2: g.diagonal(offset, dim1, dim2)},
                    meta=("x",), upcast=False, node_name="DiagEmbedBackward0",
                    family=SHAPE, dims=("dim1", "dim2"), linear=True)


@_public()
def diag(input, diagonal=0):
    if input.ndim == 1:
        return diag_embed(input, diagonal)
    if input.ndim == 2:
        return input.diagonal(diagonal)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


@_public()
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    if repeats is None:                       # repeat_interleave(repeats): the index form
        r = input
        if r.ndim != 1 and r.ndim != 0:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if r._data.dtype.kind not in "iu":
            raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for "
                                      f"'{_tname(r._data.dtype)}'")
        rd = r._data.reshape(-1)
        if (rd < 0).any():
            raise RuntimeError("repeats can not be negative")
        return _wrap(np.repeat(np.arange(rd.size, dtype=np.int64), rd))
    if dim is None:
        input, d = input.reshape(-1), 0
    else:
        d = _wrap_dim(dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if isinstance(repeats, _Tensor):
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats._data.dtype.kind not in "iu":
            raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for "
                                      f"'{_tname(repeats._data.dtype)}'")
        rd = repeats._data.reshape(-1)
        if rd.size == 1:
            rd = np.repeat(rd, n)
        elif rd.size != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {rd.size} and input.size({d}) = {n}")
        if (rd < 0).any():
            raise RuntimeError("repeats can not be negative")
    else:
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        rd = np.full(n, int(repeats))
    idx = _wrap(np.repeat(np.arange(n, dtype=np.int64), rd))
    if input.ndim == 0:
        input = input.reshape(1)
    return input.index_select(d, idx)


@_public()
def unflatten(input, dim, sizes):
    d = _wrap_dim(dim, input.ndim)
    sizes = [int(s) for s in sizes]
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    n = input.shape[d]
    known = int(np.prod([s for s in sizes if s != -1]))
    if -1 in sizes:
        if known == 0 or n % known:
            raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of "
                               f"dim {dim} ({n}) in the input tensor")
        sizes[sizes.index(-1)] = n // known
    elif known != n:
        raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of "
                           f"dim {dim} ({n}) in the input tensor")
    shape = list(input.shape)
    return input.reshape(*(shape[:d] + sizes + shape[d + 1:]))


@_public()
def rot90(input, k=1, dims=(0, 1)):
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = _wrap_dim(dims[0], input.ndim), _wrap_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return input.flip(d1).transpose(d0, d1)
    if k == 2:
        return input.flip((d0, d1))
    if k == 3:
        return input.flip(d0).transpose(d0, d1)
    return input.clone()


def _logcumsumexp_k(x, dim):
    if x.dtype.kind in "biu":
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{_tname(x.dtype)}'")
    if x.ndim == 0:
        return x.copy()
    d = _wrap_dim(dim, x.ndim)
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
        return np.moveaxis(out, -1, d)
    with np.errstate(all="ignore"):
        return np.logaddexp.accumulate(x, axis=d)


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
    return (gm.unsqueeze(-2) * _conj(e)).sum(-1).transpose(d, -1)


logcumsumexp = _defop("logcumsumexp", _logcumsumexp_k, {"x": _logcumsumexp_vjp},
                      node_name="LogcumsumexpBackward0", family=ALONG_DIM, dims=("dim",))
