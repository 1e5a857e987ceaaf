"""``repr`` in PyTorch's format: ``tensor([1.0000, 2.5000], requires_grad=True)``."""
import numpy as np

from . import _dtype as D

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3


def _float_formatter(vals):
    finite = vals[np.isfinite(vals)]
    if finite.size == 0:
        return lambda v: _nonfinite(v) or f"{v}", 0
    a = np.abs(finite)
    nz = a[a != 0]
    ints = np.all(np.floor(finite) == finite)
    if ints:
        if a.max() > 1e8:
            return lambda v: _nonfinite(v) or f"{v:.{PRECISION}e}", 0
        return lambda v: _nonfinite(v) or f"{v:.0f}.", 0
    sci = nz.size and (nz.max() / nz.min() > 1000.0 or nz.max() > 1e8 or nz.min() < 1e-4)
    if sci:
        return lambda v: _nonfinite(v) or f"{v:.{PRECISION}e}", 0
    return lambda v: _nonfinite(v) or f"{v:.{PRECISION}f}", 0


def _nonfinite(v):
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def _formatter(data):
    k = data.dtype
    if k == np.bool_:
        return lambda v: str(bool(v))
    if k.kind in "iu":
        return lambda v: str(int(v))
    if k.kind == "c":
        re, _ = _float_formatter(data.real.astype(np.float64).ravel())
        im, _ = _float_formatter(data.imag.astype(np.float64).ravel())
        return lambda v: f"{re(v.real)}{'+' if not (v.imag < 0 or np.signbit(v.imag)) else '-'}" \
                         f"{im(abs(v.imag))}j"
    f, _ = _float_formatter(data.astype(np.float64).ravel())
    return lambda v: f(float(v))


def _summarized(data):
    return data.size > THRESHOLD


def _str_data(data, indent):
    fmt = _formatter(_sample(data) if _summarized(data) else data)
    summarize = _summarized(data)
    if data.ndim == 0:
        return fmt(data[()])
    cells = {}
    width = max((len(fmt(v)) for v in np.nditer(_sample(data) if summarize else data,
                                                  flags=["refs_ok", "zerosize_ok"])), default=0)

    def rec(a, ind):
        if a.ndim == 1:
            items = list(a)
            if summarize and len(items) > 2 * EDGEITEMS:
                parts = [fmt(v).rjust(width) for v in items[:EDGEITEMS]] + ["..."] + \
                        [fmt(v).rjust(width) for v in items[-EDGEITEMS:]]
            else:
                parts = [fmt(v).rjust(width) for v in items]
            return "[" + ", ".join(parts) + "]"
        n = a.shape[0]
        idx = list(range(n))
        if summarize and n > 2 * EDGEITEMS:
            idx = idx[:EDGEITEMS] + [None] + idx[-EDGEITEMS:]
        sep = "," + "\n" * (a.ndim - 1) + " " * (ind + 1)
        return "[" + sep.join("..." if i is None else rec(a[i], ind + 1) for i in idx) + "]"
    del cells
    return rec(data, indent)


def _sample(data):
    if data.ndim == 0:
        return data
    sl = []
    for s in data.shape:
        sl.append(np.r_[0:min(s, EDGEITEMS), max(s - EDGEITEMS, 0):s] if s > 2 * EDGEITEMS else slice(None))
    out = data
    for ax, s in enumerate(sl):
        out = out[(slice(None),) * ax + (s,)]
    return out


def tensor_repr(t, prefix="tensor("):
    data = t._data
    if data.dtype in D.LOW_PRECISION:
        shown = data.astype(np.float32)
    else:
        shown = data
    dt = D._FROM_NP[data.dtype]
    suffixes = []
    if data.size == 0 and data.ndim != 1:
        body = "[]"
        suffixes.append(f"size={tuple(data.shape)}")
    else:
        body = _str_data(shown, len(prefix))
    default = D.get_default_dtype()
    if dt not in (default, D.int64, D.bool_, default.to_complex()):
        suffixes.append(f"dtype={dt!r}")
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t._rg:
        suffixes.append("requires_grad=True")
    s = prefix + body
    for x in suffixes:
        s += ", " + x
    return s + ")"
