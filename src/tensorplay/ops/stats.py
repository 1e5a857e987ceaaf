"""Statistics and number theory: quantile/nanquantile, nanmedian, cov/corrcoef,
isin, histogram, gcd/lcm, ldexp, frexp, nextafter, the trapezoid rule
(trapezoid/trapz/cumulative_trapezoid), gradient, cartesian_prod, combinations,
unravel_index.

``quantile``/``nanquantile``, ``cov``, ``corrcoef``, ``ldexp``, the trapezoid
rule, ``gradient``, ``cartesian_prod``, ``combinations`` and ``unravel_index``
are composites of existing ops, as in PyTorch, and inherit their gradients,
forward rules and batching: a quantile is a ``sort`` followed by ``gather`` of
the two neighbouring order statistics and a ``lerp`` between them, so its
gradient goes to the elements the (stable) sort put at those ranks, ties
included (PyTorch's CPU sort is stable up to 16 elements a slice; past that
its choice among equal values is its own).  ``nanmedian`` is an entry of its
own (the median among the non-NaN values; the full reduction shares the
gradient evenly among ties, the ``dim`` form sends it to the index it returns,
as ``median``).  ``frexp``'s mantissa has gradient ``g / 2**exponent``;
``nextafter`` passes ``g`` to ``input`` except where ``input == other`` and
none to ``other``, as PyTorch's.  ``isin``, ``histogram``, ``gcd`` and ``lcm``
are not differentiable.
"""
import math as _math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor as _Tensor, _wrap, _wrap_dim
from .._creation import fma64 as _fma64
from .._warn import warn as _warn_user
from ._families import REDUCTION, ELEMENTWISE, batch_size, materialize
from ._registry import defop as _defop, dispatch as _dispatch, public as _public
from .shape import cat as _cat, stack as _stack
from ._util import _key, _isfloat, _tname
from .pointwise import binary as _binary, exp2 as _exp2, pow as _pow, where as _where
from .reduction import _return_type
from .sorting import _argsort_np, _scatter_back, _BY_INDEX, along_flattened, evenly_distributed
from .._out import call_with_out

__all__ = ["quantile", "nanquantile", "nanmedian", "cov", "corrcoef", "isin", "gcd", "lcm", "nextafter",
           "ldexp", "frexp", "trapezoid", "trapz", "cumulative_trapezoid", "cartesian_prod", "combinations",
           "histogram", "unravel_index", "gradient"]

_nanmedian_rt = _return_type("nanmedian", ("values", "indices"))
_frexp_rt = _return_type("frexp", ("mantissa", "exponent"))


# ------------------------------------------------------------------ quantile
_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    if not isinstance(input, _Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    if not isinstance(q, _Tensor):
        qf = float(q)
        if not (0 <= qf <= 1):
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {qf:g}")
    if interpolation not in _MODES:
        raise RuntimeError(f"quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if isinstance(q, _Tensor) and q.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input.dtype not in (D.float32, D.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if not isinstance(q, _Tensor):
        q = _wrap(np.asarray(qf, input._data.dtype))
    elif q.dtype != input.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    elif q.numel() and isinstance(q._data, np.ndarray) and not bool(((q._data >= 0) & (q._data <= 1)).all()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    scalar_q = q.ndim == 0
    nd = input.ndim
    if dim is None:
        srt = input.reshape(-1).sort(-1)[0]
    else:
        d = _wrap_dim(dim, nd)
        srt = (input.unsqueeze(0) if nd == 0 else input.movedim(d, -1)).sort(-1)[0]
    qv = q.reshape(-1)                           # (nq,)
    n = srt.shape[-1]
    isn = srt.isnan()
    if ignore_nan:                               # ranks among the non-NaN values
        valid = isn.logical_not().sum(-1, keepdim=True).to(srt.dtype)
        ranks = qv * (valid - 1)
        ranks = _where(ranks < 0, 0.0, ranks)
    else:                                        # a NaN: the last rank (the quantile is NaN)
        ranks = _where(isn.any(-1, keepdim=True), float(n - 1), qv * (n - 1))
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.detach().to(D.int64)
    vals = srt.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        w = (ranks - below.to(ranks.dtype)) if interpolation == "linear" else \
            _wrap(np.full(ranks.shape, 0.5, srt._data.dtype))
        above = ranks.detach().ceil().to(D.int64)
        vals = vals.lerp(srt.gather(-1, above), w)
    # vals: (rest..., nq); the reduced dimensions back for keepdim, q's dimension first
    if keepdim:
        if dim is None:
            vals = vals.reshape((1,) * nd + (vals.shape[-1],))
        elif nd:
            vals = vals.unsqueeze(d)
    if scalar_q:
        return vals.squeeze(-1)
    return vals.movedim(-1, 0)


@_public()
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """The ``q``-th quantiles of ``input`` (flattened, or along ``dim``),
    interpolated between order statistics as ``interpolation`` says; a NaN in
    the values gives NaN.  With a 1-d ``q`` its dimension comes first."""
    if out is not None:
        return call_with_out("quantile", quantile, (input, q, dim, keepdim),
                             {"interpolation": interpolation}, out)
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


@_public()
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """``quantile`` ignoring NaN values (NaN where a slice holds only NaN)."""
    if out is not None:
        return call_with_out("nanquantile", nanquantile, (input, q, dim, keepdim),
                             {"interpolation": interpolation}, out)
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


# ------------------------------------------------------------------ nanmedian
def _nanmedian_all_k(x):
    if x.dtype.kind == "c" or x.dtype.kind == "b":
        raise NotImplementedError(f"\"median_cpu\" not implemented for '{_tname(x.dtype)}'")
    f = x.reshape(-1)
    if f.size == 0:
        return np.array(np.nan, x.dtype) if _isfloat(x) else np.zeros((), x.dtype)
    if _isfloat(x):
        f = f[~np.isnan(_key(f))]
        if f.size == 0:
            return np.array(np.nan, x.dtype)
    s = f[np.argsort(_key(f), kind="stable")]
    return np.asarray(s[(f.size - 1) // 2])


def _nanmedian_all_vjp(g, result, x):
    return evenly_distributed(g, result, x)


def _nanmedian_dim_k(x, dim, keepdim=False):
    if x.dtype.kind == "c" or x.dtype.kind == "b":
        raise NotImplementedError(f"\"median_out\" not implemented for '{_tname(x.dtype)}'")
    d = _wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    n = x.shape[d]
    if n == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    order = _argsort_np(x, d, False)           # (NaN last)
    if _isfloat(x):
        cnt = (~np.isnan(_key(x))).sum(axis=d, keepdims=True)
        k = np.maximum(cnt - 1, 0) // 2
    else:
        k = np.full(_keep_shape(x.shape, d), (n - 1) // 2)
    idx = np.take_along_axis(order, k, d)
    if _isfloat(x):         # an all-NaN slice: the index PyTorch's nth_element leaves first
        idx = np.where(cnt == 0, _all_nan_index(n), idx)
    vals = np.take_along_axis(x, idx, d)
    if not keepdim:
        idx, vals = idx.squeeze(d), vals.squeeze(d)
    return vals, idx.astype(np.int64)


def _all_nan_index(n):
    """Where libstdc++'s ``nth_element(first, first, last)`` (PyTorch's nanmedian
    of a slice of ``n`` NaNs, every comparison false) leaves the index 0: each
    round of its introselect swaps the middle to the front and the rest pairwise
    from both ends, and keeps the front part, until at most 3 remain."""
    v = list(range(n))
    first, last, depth = 0, n, 2 * (n.bit_length() - 1)
    while last - first > 3 and depth > 0:
        depth -= 1
        mid = first + (last - first) // 2
        v[first], v[mid] = v[mid], v[first]
        lo, hi = first + 1, last
        while True:
            hi -= 1
            if not lo < hi:
                break
            v[lo], v[hi] = v[hi], v[lo]
            lo += 1
        last = lo
    return v[0]


def _keep_shape(shape, d):
    return tuple(1 if i == d else s for i, s in enumerate(shape))


def _nanmedian_dim_vjp(g, result, x, dim, keepdim):
    if x.ndim == 0:
        return g[0]
    return _scatter_back(g[0], result[1].detach(), x.shape, _wrap_dim(dim, x.ndim), keepdim)


def _nanmedian_along_k(x, dim):
    return _nanmedian_dim_k(x, dim)[0]


_nanmedian_along = _defop("_nanmedian_along", _nanmedian_along_k, {"x": evenly_distributed},
                          upcast=False, node_name="NanmedianBackward0", family=REDUCTION, dims=("dim",),
                          method=False)
_nanmedian_all = _defop("nanmedian", _nanmedian_all_k, {"x": _nanmedian_all_vjp}, upcast=False,
                        node_name="NanmedianBackward0", family=REDUCTION,
                        batch=along_flattened(_nanmedian_along))
_nanmedian_dim = _defop("nanmedian_dim", _nanmedian_dim_k, {"x": _nanmedian_dim_vjp}, meta=("x",),
                        **_BY_INDEX, upcast=False, node_name="NanmedianBackward1",
                        family=REDUCTION, dims=("dim",))


@_public()
def nanmedian(input, dim=None, keepdim=None, *, out=None):
    """The lower median of the non-NaN values (NaN if there are none); with
    ``dim``, the medians along it and their indices."""
    if dim is None and (out is not None or keepdim is not None):
        # (nanmedian() of everything takes neither keepdim nor out=)
        raise TypeError('nanmedian() missing 1 required positional arguments: "dim"')
    keepdim = bool(keepdim)
    if out is not None:
        return call_with_out("nanmedian", nanmedian, (input, dim, keepdim), {}, out)
    if dim is None:
        return _nanmedian_all(input)
    return _nanmedian_rt(*_nanmedian_dim(input, dim, keepdim))


# ------------------------------------------------------------------ cov, corrcoef
def _dims_check(name, input):
    if input.ndim > 2:
        raise RuntimeError(f"{name}(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.ndim} dimensions")


def _weights_check(kind, w, n_obs, integral):
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {kind} to have one or fewer dimensions but got {kind} "
                           f"with {w.ndim} dimensions")
    k = w._data.dtype.kind
    if integral and k not in "iub":
        raise RuntimeError(f"cov(): expected {kind} to have integral dtype but got {kind} with "
                           f"{_tname(w._data.dtype)} dtype")
    if not integral and not (k == "f" or w._data.dtype.name == "bfloat16"):
        raise RuntimeError(f"cov(): expected {kind} to have floating point dtype but got {kind} "
                           f"with {_tname(w._data.dtype)} dtype")
    if w.numel() != n_obs:
        raise RuntimeError(f"cov(): expected {kind} to have the same numel as there are observations "
                           f"in the input but got {w.numel()} != {n_obs}")
    if w.numel() and isinstance(w._data, np.ndarray) and bool((w._data < 0).any()):   # (not under vmap)
        raise RuntimeError(f"cov(): {kind} cannot be negative")


@_public()
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in ``input``'s rows (observations
    in its columns), with ``correction`` and frequency/observation weights."""
    _dims_check("cov", input)
    if isinstance(correction, bool) or not isinstance(correction, (int, np.integer)):
        raise TypeError(f"cov(): argument 'correction' must be int, not {type(correction).__name__}")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        _weights_check("fweights", fweights, n_obs, True)
        w = fweights
    if aweights is not None:
        _weights_check("aweights", aweights, n_obs, False)
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1) if _isfloat(x._data) or x._data.dtype.kind == "c" else \
            x.sum(1) / n_obs
        w_sum = n_obs
        nf = float(n_obs - correction)
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if correction == 0:
            nf = w_sum
        elif aweights is None:
            nf = w_sum - correction
        else:
            nf = w_sum - correction * (w * aweights).sum() / w_sum
    if isinstance(nf, _Tensor):             # (a tensor of the weights: no Python test under vmap)
        if isinstance(nf._data, np.ndarray) and float(nf) <= 0:
            _warn_user(_DOF_WARNING)
        nf = _where(nf > 0, nf, 0)
    elif nf <= 0:
        _warn_user(_DOF_WARNING)
        nf = 0.0
    xc = x - avg.unsqueeze(1)
    xw = xc if w is None else xc * w
    c = xc.mm(xw.t().conj())
    if not isinstance(nf, _Tensor) and nf == 0:     # (PyTorch divides by 0: inf or NaN, no error)
        nf = _wrap(np.zeros((), c._data.dtype))
    with np.errstate(divide="ignore", invalid="ignore"):
        return (c / nf).squeeze()


_DOF_WARNING = ("cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
                "number of observations.")


@_public()
def corrcoef(input):
    """Pearson's correlation coefficients of the variables in ``input``'s rows."""
    _dims_check("corrcoef", input)
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    if d._data.dtype.kind == "c":
        d = d.real
    s = d.sqrt()
    c = c / s.unsqueeze(1)
    c = c / s.unsqueeze(0)
    if c._data.dtype.kind == "c":
        from .complex_ops import complex as _complex
        return _complex(c.real.clip(-1, 1), c.imag.clip(-1, 1))
    return c.clip(-1, 1)


# ------------------------------------------------------------------ isin
def _isin_k(elements, test_elements, assume_unique=False, invert=False):
    for a in (elements, test_elements):
        if a.dtype.kind in "cb":
            raise RuntimeError(f"Unsupported input type encountered for isin(): {_tname(a.dtype)}")
    dt = np.result_type(elements, test_elements)
    e = _key(elements.astype(dt)) if dt != elements.dtype else _key(elements)
    t = _key(test_elements.astype(dt)) if dt != test_elements.dtype else _key(test_elements)
    return np.isin(e, t, invert=invert).reshape(elements.shape)


def _isin_batch(op, args, bdims):
    """Under vmap: batched elements against one set of test elements are one call
    (isin is elementwise in ``elements``); a set per sample, one call a sample."""
    e, t = args[0], args[1]
    if bdims[1] is None:
        return _dispatch(op, [e, t] + list(args[2:])), bdims[0]
    n = batch_size(args, bdims)
    e, t = materialize(e, bdims[0], n), materialize(t, bdims[1], n)
    return _stack([_dispatch(op, [e[k], t[k]] + list(args[2:])) for k in range(n)]), 0


_isin = _defop("isin", _isin_k, None, n_in=2, upcast=False, method=False, batch=_isin_batch)


def _as_tensor(name, v, other):
    if isinstance(v, _Tensor):
        return v
    if isinstance(v, (bool, int, float, np.number)) and isinstance(other, _Tensor):
        if isinstance(v, bool):
            return _wrap(np.asarray(v))
        if isinstance(v, float):                        # a Python float: other's float dtype, else default
            k = other._data.dtype
            dt = k if k.kind == "f" or k.name == "bfloat16" else D.get_default_dtype().np
            return _wrap(np.asarray(v, dt))
        return _wrap(np.asarray(v, other._data.dtype if other._data.dtype.kind in "iuf" else np.int64))
    raise TypeError(f"isin() received an invalid combination of arguments - got "
                    f"({type(v).__name__ if name == 'elements' else type(other).__name__}, "
                    f"{type(other).__name__ if name == 'elements' else type(v).__name__}), but "
                    f"expected one of:\n"
                    f" * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, "
                    f"bool invert = False, Tensor out = None)\n"
                    f" * (Number element, Tensor test_elements, *, bool assume_unique = False, "
                    f"bool invert = False, Tensor out = None)\n"
                    f" * (Tensor elements, Number test_element, *, bool assume_unique = False, "
                    f"bool invert = False, Tensor out = None)\n")


@_public(method=False)
def isin(elements, test_elements, *, assume_unique=False, invert=False, out=None):
    """Whether each element of ``elements`` is in ``test_elements`` (either may
    be a number); ``invert`` negates.  Not differentiable."""
    if out is not None:
        return call_with_out("isin", isin, (elements, test_elements),
                             {"assume_unique": assume_unique, "invert": invert}, out)
    e = _as_tensor("elements", elements, test_elements)
    t = _as_tensor("test_elements", test_elements, e)
    return _isin(e, t, bool(assume_unique), bool(invert))


# ------------------------------------------------------------------ gcd, lcm
def _int_only(name, f):
    def k(x, y):
        for a in (x, y):
            if a.dtype.kind not in "iu":
                raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_tname(a.dtype)}'")
        dt = np.result_type(x, y)
        with np.errstate(over="ignore"):
            return np.abs(f(x.astype(dt), y.astype(dt))).astype(dt)
    return k


gcd = _binary("gcd", _int_only("gcd", np.gcd), None, family=ELEMENTWISE, inplace=True, upcast=False,
              tensors_only=True, args=("x", "y"))
lcm = _binary("lcm", _int_only("lcm", np.lcm), None, family=ELEMENTWISE, inplace=True, upcast=False,
              tensors_only=True, args=("x", "y"))


# ------------------------------------------------------------------ nextafter
def _nextafter_bits(x, y):
    """``nextafter`` for a float type NumPy has no ufunc loop for (bfloat16):
    one step of the bit pattern, toward ``y``."""
    ui = np.uint16 if x.dtype.itemsize == 2 else np.uint32
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    bits = x.view(ui).astype(np.int64)
    up = (yf > xf) == (xf > 0)
    step = np.where(up, bits + 1, bits - 1).astype(ui).view(x.dtype)
    tiny = np.where(yf > 0, np.ones((), ui), np.asarray(1 | (1 << (8 * x.dtype.itemsize - 1)), ui))
    r = np.where(xf == 0, tiny.astype(ui).view(x.dtype), step)
    r = np.where(xf == yf, y, r)
    return np.where(np.isnan(xf) | np.isnan(yf), np.asarray(np.nan, x.dtype), r).astype(x.dtype)


def _nextafter_k(x, y):
    for a in (x, y):
        if not (a.dtype.kind == "f" or a.dtype.name == "bfloat16"):
            raise NotImplementedError(f"\"nextafter_cpu\" not implemented for '{_tname(a.dtype)}'")
    dt = np.result_type(x, y)
    x, y = np.broadcast_arrays(x.astype(dt), y.astype(dt))
    if dt.kind != "f":
        return _nextafter_bits(np.ascontiguousarray(x), np.ascontiguousarray(y))
    return np.nextafter(x, y)


# (PyTorch's gradients: g for x except where x == y, zero for y)
nextafter = _binary("nextafter", _nextafter_k, {"x": lambda g, x, y: _where(x == y, 0.0, g),
                                                "y": lambda g: g * 0},
                    family=ELEMENTWISE, inplace=True, upcast=False, tensors_only=True, args=("x", "y"))


# ------------------------------------------------------------------ ldexp, frexp
def _ldexp_check(self, other, *args, **kwargs):
    if self.dtype.is_floating_point or self.dtype.is_complex:
        return
    raise RuntimeError(f"ldexp can't be cast to the desired output type {_tname(self._data.dtype)}")


@_public(inplace=_ldexp_check)
def ldexp(input, other, *, out=None):
    """``input * 2 ** other`` (a float result also for integer tensors)."""
    if out is not None:
        return call_with_out("ldexp", ldexp, (input, other), {}, out)
    for i, (n, t) in enumerate((("input", input), ("other", other))):
        if not isinstance(t, _Tensor):
            raise TypeError(f"ldexp(): argument '{n}' (position {i + 1}) must be Tensor, not "
                            f"{type(t).__name__}")
    k = input._data.dtype
    if k.kind in "biu":     # PyTorch's pow(2.0, other): a number base (a 0-d half exponent: half)
        return input * _pow(2.0, other)
    return input * _wrap(np.asarray(2, k)).pow(other)       # (PyTorch's: the input's own dtype)


def _frexp_k(x):
    if not (x.dtype.kind == "f" or x.dtype.name == "bfloat16"):
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    if x.dtype.kind != "f":
        m, e = np.frexp(x.astype(np.float32))
        return m.astype(x.dtype), e.astype(np.int32)
    m, e = np.frexp(x)
    return m, e.astype(np.int32)


def _frexp_vjp(g, result):
    m = g[0]
    return m / _exp2(result[1].to(m.dtype))


def _frexp_jvp(op, args, tangents, result):
    t = tangents[0]
    return t / _exp2(result[1].to(t.dtype)), None


_frexp = _defop("frexp", _frexp_k, {"x": _frexp_vjp}, nondiff_out=(1,), out_saved=(1,), upcast=False,
                node_name="FrexpBackward0", family=ELEMENTWISE, jvp=_frexp_jvp)


@_public()
def frexp(input, *, out=None):
    """``input`` as ``mantissa * 2 ** exponent`` with ``0.5 <= |mantissa| < 1``
    (0, inf and NaN keep exponent 0); the exponent is int32 and not differentiable."""
    if out is not None:
        return call_with_out("frexp", frexp, (input,), {}, out)
    return _frexp_rt(*_frexp(input))


# ------------------------------------------------------------------ the trapezoid rule
def _trapz_args(name, y, x, dx, dim):
    if not isinstance(y, _Tensor):
        raise TypeError(f"{name}(): argument 'y' (position 1) must be Tensor, not {type(y).__name__}")
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, Tensor, "
                        f"dx={type(dx).__name__}), but expected one of:\n"
                        f" * (Tensor y, Tensor x, *, int dim = -1)\n"
                        f" * (Tensor y, *, Number dx = 1, int dim = -1)\n")
    if y._data.dtype.kind == "b":
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _wrap_dim(dim, y.ndim)


def _float_zeros(y, shape):
    k = y._data.dtype
    dt = k if (k.kind in "fc" or k.name == "bfloat16") else D.get_default_dtype().np
    return _wrap(np.zeros(shape, dt))


def _x_spacing(name, y, x, d):
    """``x``'s differences along ``d``, shaped to broadcast against ``y``'s."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        xv = x.reshape(tuple(x.shape[0] if i == d else 1 for i in range(y.ndim)))
    elif x.ndim < y.ndim:
        xv = x.reshape((1,) * (y.ndim - x.ndim) + tuple(x.shape))
    else:
        xv = x
    m = xv.shape[d]
    return xv.narrow(d, 1, m - 1) - xv.narrow(d, 0, m - 1)


@_public(method=False)
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid rule along ``dim``: samples ``y`` at points ``x`` (or spaced
    ``dx``, default 1)."""
    d = _trapz_args("trapezoid", y, x, dx, dim)
    n = y.shape[d]
    if n == 0:
        if x is not None and x.ndim == 1 and x.shape[0] != n:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        return _float_zeros(y, tuple(s for i, s in enumerate(y.shape) if i != d))
    if x is None:
        h = 1 if dx is None else dx
        return (y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * h
    sp = _x_spacing("trapezoid", y, x, d)
    return ((y.narrow(d, 0, n - 1) + y.narrow(d, 1, n - 1)) * sp).sum(d) / 2.0


@_public(method=False)
def trapz(y, x=None, *, dx=None, dim=-1):
    """``trapezoid`` (its older name)."""
    return trapezoid(y, x, dx=dx, dim=dim)


@_public(method=False)
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoid rule along ``dim``: one element fewer than ``y``."""
    d = _trapz_args("cumulative_trapezoid", y, x, dx, dim)
    n = y.shape[d]
    if n == 0:
        if x is not None and x.ndim == 1 and x.shape[0] != n:
            raise RuntimeError("cumulative_trapezoid: There must be one `x` value for each sample point")
        return y * 0.5                          # (empty, and connected to y as PyTorch's is)
    pair = y.narrow(d, 0, n - 1) + y.narrow(d, 1, n - 1)
    if x is None:
        h = 1 if dx is None else dx
        return (pair * (h / 2.0)).cumsum(d)
    sp = _x_spacing("cumulative_trapezoid", y, x, d)
    return (pair * sp).cumsum(d) / 2.0


# ------------------------------------------------------------------ cartesian_prod, combinations
def _check_1d(t):
    if t.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")


@_public(method=False)
def cartesian_prod(*tensors):
    """The Cartesian product of 1-d tensors: one row per combination of their
    elements (the first tensor's varying slowest)."""
    from .shape import meshgrid as _meshgrid
    for t in tensors:
        _check_1d(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = _meshgrid(*tensors, indexing="ij")
    return _stack([g.reshape(-1) for g in grids], 1)


@_public(method=False)
def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of the 1-d ``input``'s elements, one a row
    (as ``itertools.combinations``, or ``..._with_replacement``)."""
    import itertools
    _check_1d(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _wrap(np.zeros((0,), input._data.dtype))
    f = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(f(range(input.shape[0]), r)), np.int64).reshape(-1, r)
    return input.index_select(0, _wrap(idx.reshape(-1))).reshape(idx.shape)


# ------------------------------------------------------------------ histogram
def _fmt(v):
    return "nan" if v != v else f"{v:g}"


def _linspace(lo, hi, steps, dtype):
    """PyTorch's linspace in ``dtype`` (the points of its CPU kernel, bit for bit):
    the step in that dtype, the first half counted up from the start and the
    rest down from the end, each point by one fused multiply-add."""
    ct = np.float32 if dtype.itemsize <= 4 else np.float64    # (half/bfloat16 computed in float)
    a, b = np.asarray(lo, ct), np.asarray(hi, ct)
    if steps == 1:
        return a.reshape(1).astype(dtype)
    step = (b - a) / np.asarray(steps - 1, ct)
    i = np.arange(steps)
    first = i < steps // 2
    base = np.where(first, a, b).astype(np.float64)
    k = np.where(first, i, -(steps - 1 - i)).astype(np.float64)
    if ct == np.float64:
        return _fma64(base, np.float64(step), k).astype(dtype)
    # float32: the exact result in float64 (a 48-bit product) as s + t, rounded once to float
    with np.errstate(all="ignore"):
        p = np.float64(step) * k
        s = base + p
        z = s - base
        t = (base - (s - z)) + (p - z)
        r = s.astype(np.float32)
        rd = r.astype(np.float64)
        up, down = np.nextafter(r, np.float32(np.inf)), np.nextafter(r, np.float32(-np.inf))
        # s exactly halfway between two floats (rounded to even): the exact value s + t decides
        mid_hi = (t > 0) & (s > rd) & ((s - rd) * 2 == up.astype(np.float64) - rd)
        mid_lo = (t < 0) & (s < rd) & ((rd - s) * 2 == rd - down.astype(np.float64))
        r = np.where(mid_hi, up, np.where(mid_lo, down, r))
    return r.astype(dtype)


def _ctype(dt):
    return {"float32": "float", "float64": "double", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16"}.get(dt.name, dt.name)


def _histogram_k(x, nbins=100, lo=None, hi=None, edges=None, weight=None, density=False):
    if not (x.dtype.kind == "f" or x.dtype.name == "bfloat16") or (
            x.dtype.itemsize == 2 and edges is None and lo is None):    # (half: only with a range)
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_tname(x.dtype)}'")
    v = x.reshape(-1)
    if weight is not None:
        if weight.shape != x.shape:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same "
                               f"shape as the input tensor excluding its innermost dimension, but got input "
                               f"with shape {list(x.reshape(-1, 1).shape)} and weight with shape "
                               f"{list(weight.shape)}")
        if weight.dtype != x.dtype:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight "
                               f"tensor should have the same dtype, but got input({_ctype(x.dtype)}), and "
                               f"weight({_ctype(weight.dtype)})")
    if edges is None:
        if nbins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {nbins} for dimension 0")
        if lo is None:
            lo, hi = (float(v.min()), float(v.max())) if v.size else (0.0, 1.0)
        lo, hi = float(lo), float(hi)
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {_fmt(lo)} max "
                               f"{_fmt(hi)} for dimension 0")
        if not (_math.isfinite(lo) and _math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{_fmt(lo)}, {_fmt(hi)}] is not "
                               f"finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        if x.dtype != np.float64:       # (the range in the input's dtype, as linspace takes it)
            D.check_fits(lo, x.dtype)
            D.check_fits(hi, x.dtype)
        edges = _linspace(lo, hi, nbins + 1, x.dtype)
    else:
        if edges.ndim != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got "
                               f"{edges.ndim} dimensions in the bins tensor for dimension 0")
        if edges.shape[0] < 2:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {edges.shape[0] - 1} for "
                               f"dimension 0")
        edges = edges.astype(x.dtype)
    n = edges.shape[0] - 1
    e64, v64 = edges.astype(np.float64), v.astype(np.float64)
    inside = (v64 >= e64[0]) & (v64 <= e64[-1])          # (NaN: outside)
    pos = np.searchsorted(e64, v64[inside], side="right") - 1
    pos = np.minimum(pos, n - 1)                           # (the last edge: the last bin)
    w = None if weight is None else weight.reshape(-1).astype(np.float64)[inside]
    hist = np.bincount(pos, weights=w, minlength=n)[:n].astype(np.float64)
    if density:
        with np.errstate(divide="ignore", invalid="ignore"):
            hist = hist / (hist.sum() * np.diff(e64))
    return hist.astype(x.dtype), edges


def _histogram_batch(op, args, bdims):
    """Under vmap: each sample's histogram (each may have its own range)."""
    x = materialize(args[0], bdims[0], None)
    rs = [_dispatch(op, [x[k]] + list(args[1:])) for k in range(x.shape[0])]
    return (_stack([r[0] for r in rs]), _stack([r[1] for r in rs])), 0


_histogram = _defop("histogram", _histogram_k, None, upcast=False, batch=_histogram_batch)
_histogram_rt = _return_type("histogram", ("hist", "bin_edges"))


@_public()
def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """A histogram of ``input``'s elements: ``bins`` equal bins over ``range``
    (the data's own by default), or the bins whose edges the 1-d tensor
    ``bins`` gives; ``weight`` weighs each element, ``density`` normalizes to
    a density.  Returns ``(hist, bin_edges)``.  Not differentiable."""
    if out is not None:
        return call_with_out("histogram", histogram, (input, bins),
                             {"range": range, "weight": weight, "density": density}, out)
    w = None if weight is None else weight._data
    if isinstance(bins, _Tensor):
        if range is not None:
            raise TypeError(f"histogram() received an invalid combination of arguments - got (Tensor, "
                            f"Tensor, range={type(range).__name__}), but expected one of:\n"
                            f" * (Tensor input, Tensor bins, *, Tensor weight = None, bool density = False, "
                            f"tuple of Tensors out = None)\n"
                            f" * (Tensor input, int bins = 100, *, tuple of floats range = None, Tensor "
                            f"weight = None, bool density = False, tuple of Tensors out = None)\n")
        return _histogram_rt(*_histogram(input, 0, None, None, bins._data, w, bool(density)))
    lo, hi = (None, None) if range is None else (float(range[0]), float(range[1]))
    return _histogram_rt(*_histogram(input, int(bins), lo, hi, None, w, bool(density)))


# ------------------------------------------------------------------ unravel_index
@_public(method=False)
def unravel_index(indices, shape):
    """The coordinates, in a tensor of ``shape``, of the flat ``indices`` (a tuple
    of int64 tensors, one per dimension; indices wrap around, as PyTorch's)."""
    if not isinstance(indices, _Tensor):       # (PyTorch's own failure for a number)
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'is_complex'")
    k = indices._data.dtype
    if k.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if not shape:
        return ()
    if 0 in shape:
        raise RuntimeError("ZeroDivisionError")
    idx = indices.to(D.int64)
    out, c = [], 1
    for s in reversed(shape):
        out.append(idx.div(c, rounding_mode="floor").remainder(s))
        c *= s
    return tuple(reversed(out))


# ------------------------------------------------------------------ gradient
def _grad_along(y, d, h, edge_order):
    """The derivative estimate along ``d``: central differences inside, one-sided
    ones of order ``edge_order`` at the ends; ``h`` a number (uniform spacing) or
    a 1-d tensor of coordinates."""
    n = y.shape[d]

    def sl(start, length):
        return y.narrow(d, start, length)

    if not isinstance(h, _Tensor):
        mid = (sl(2, n - 2) - sl(0, n - 2)) / (2.0 * h)
        if edge_order == 1:
            first = (sl(1, 1) - sl(0, 1)) / h
            last = (sl(n - 1, 1) - sl(n - 2, 1)) / h
        else:
            first = (sl(0, 1) * -1.5 + sl(1, 1) * 2.0 - sl(2, 1) * 0.5) / h
            last = (sl(n - 3, 1) * 0.5 - sl(n - 2, 1) * 2.0 + sl(n - 1, 1) * 1.5) / h
        return _cat([first, mid, last], d)
    x = h.reshape(tuple(h.shape[0] if i == d else 1 for i in range(y.ndim)))

    def xs(start, length):
        return x.narrow(d, start, length)

    dx1, dx2 = xs(1, n - 2) - xs(0, n - 2), xs(2, n - 2) - xs(1, n - 2)
    mid = (sl(0, n - 2) * (-dx2 / (dx1 * (dx1 + dx2))) + sl(1, n - 2) * ((dx2 - dx1) / (dx1 * dx2))
           + sl(2, n - 2) * (dx1 / (dx2 * (dx1 + dx2))))
    if edge_order == 1:
        first = (sl(1, 1) - sl(0, 1)) / (xs(1, 1) - xs(0, 1))
        last = (sl(n - 1, 1) - sl(n - 2, 1)) / (xs(n - 1, 1) - xs(n - 2, 1))
    else:
        a1, a2 = xs(1, 1) - xs(0, 1), xs(2, 1) - xs(1, 1)
        first = (sl(0, 1) * (-(2.0 * a1 + a2) / (a1 * (a1 + a2))) + sl(1, 1) * ((a1 + a2) / (a1 * a2))
                 + sl(2, 1) * (-a1 / (a2 * (a1 + a2))))
        b1, b2 = xs(n - 2, 1) - xs(n - 3, 1), xs(n - 1, 1) - xs(n - 2, 1)
        last = (sl(n - 3, 1) * (b2 / (b1 * (b1 + b2))) + sl(n - 2, 1) * (-(b1 + b2) / (b1 * b2))
                + sl(n - 1, 1) * ((2.0 * b2 + b1) / (b2 * (b1 + b2))))
    return _cat([first, mid, last], d)


@_public(method=False)
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimates of ``input``'s partial derivatives along ``dim`` (every
    dimension by default) by finite differences, second-order inside and of
    order ``edge_order`` at the ends; ``spacing`` a number, one number per
    dimension, or the coordinates (1-d tensors) of the samples.  A tuple."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    nd = input.ndim
    given_dim = dim is not None
    if dim is None:
        dims = list(range(nd))
    elif isinstance(dim, (int, np.integer)):
        dims = [_wrap_dim(dim, nd)]
    else:
        dims = [_wrap_dim(d, nd) for d in dim]
        for d in dims:
            if dims.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            if given_dim:
                raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's "
                                   f"spacing and dim arguments to have the same length, but got a spacing "
                                   f"argument of length {len(spacing)} and a dim argument of length "
                                   f"{len(dims)}.")
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a list of "
                               f"length equal to 'self.dim() = {nd}', since dim argument was not given, "
                               f"but got a list of length {len(spacing)}")
        hs = list(spacing)      # (a 0-d tensor in a list is refused below, as in PyTorch)
    else:
        hs = [spacing.item() if isinstance(spacing, _Tensor) and spacing.ndim == 0 else spacing] * len(dims)
    for h in hs:
        if isinstance(h, _Tensor) and h.ndim != 1:
            raise RuntimeError(f"torch.gradient expected each element of spacing to have one dimension, "
                               f"but got an element with {h.ndim} dimensions!")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    y = input
    k = y._data.dtype
    if k.kind in "biu":
        y = y.to(D.get_default_dtype())
    return tuple(_grad_along(y, d, h, edge_order) for d, h in zip(dims, hs))
