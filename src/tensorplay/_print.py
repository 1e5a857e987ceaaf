"""``repr`` in PyTorch's format: ``tensor([1.0000, 2.5000], requires_grad=True)``.

The layout rules are PyTorch's, so that printed tensors read the same:

- one element width for the whole tensor, from the values that are shown;
- floats print in one of three modes, chosen from the nonzero finite values
  only: *integer* (``1.``) if all are whole numbers, else *fixed*
  (``1.2500``, ``PRECISION`` digits), and *scientific* (``1.2500e+10``) when
  the largest is over 1e8, the ratio largest/smallest over 1000, or (fixed
  mode only) the smallest under 1e-4.  Zeros, nan and inf don't take part,
  so they neither choose the mode nor widen the columns;
- more than ``THRESHOLD`` elements are summarized with ``EDGEITEMS`` rows and
  columns at each end; 1-d rows wrap at ``LINEWIDTH``;
- suffixes: ``dtype=`` unless the dtype is implied by the values (default
  float dtype, its complex partner, int64, bool), ``grad_fn=<...>`` or
  ``requires_grad=True``; for no elements, ``size=`` (unless 1-d) and the dtype
  unless it is the default float dtype.
"""
import math

import numpy as np

from . import _dtype as D

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80
SCI_MODE = None        # None: chosen per tensor; True/False: forced


class _Formatter:
    """Formats the elements of one real array (the shown part of a tensor) to a common width."""

    def __init__(self, data):
        self.floating = data.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.width = True, False, 1
        if not self.floating:
            for v in data.ravel().tolist():
                self.width = max(self.width, len(str(v)))
            return
        vals = data.astype(np.float64).ravel()
        vals = vals[np.isfinite(vals) & (vals != 0)]
        if not vals.size:           # (nothing to measure: PyTorch's defaults, even with sci_mode set)
            return
        a = np.abs(vals)
        lo, hi = a.min(), a.max()
        self.int_mode = bool(np.all(np.ceil(vals) == vals))
        # the mode first (set_printoptions' when it forces one), then the widths in it
        self.sci_mode = (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4) if SCI_MODE is None else SCI_MODE
        if self.sci_mode:
            texts = [f"{v:.{PRECISION}e}" for v in vals.tolist()]
        elif self.int_mode:
            texts = [f"{v:.0f}." for v in vals.tolist()]
        else:
            texts = [f"{v:.{PRECISION}f}" for v in vals.tolist()]
        self.width = max([self.width] + [len(t) for t in texts])

    def format(self, v):
        if not self.floating:
            s = str(v)
        elif self.sci_mode:
            s = f"{v:.{PRECISION}e}"
        elif self.int_mode:
            s = f"{v:.0f}"
            if math.isfinite(v):
                s += "."
        else:
            s = f"{v:.{PRECISION}f}"
        return s.rjust(self.width)


def _element(v, f_re, f_im):
    if f_im is None:
        return f_re.format(v)
    re = f_re.format(v.real)
    im = (f_im.format(v.imag) + "j").lstrip()
    return re + im if im[0] in "+-" else re + "+" + im


def _vector(a, indent, summarize, f_re, f_im):
    per = f_re.width + 2
    if f_im is not None:
        per += f_im.width + 1
    per_line = max(1, (LINEWIDTH - indent) // per)
    vals = a.tolist()
    if summarize and not EDGEITEMS:
        items = ["..."]
    elif summarize and len(vals) > 2 * EDGEITEMS:
        items = ([_element(v, f_re, f_im) for v in vals[:EDGEITEMS]] + [" ..."]
                 + [_element(v, f_re, f_im) for v in vals[-EDGEITEMS:]])
    else:
        items = [_element(v, f_re, f_im) for v in vals]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(a, indent, summarize, f_re, f_im):
    if a.ndim == 0:
        return _element(a.item(), f_re, f_im)
    if a.ndim == 1:
        return _vector(a, indent, summarize, f_re, f_im)
    n = a.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        rows = ([_nested(a[i], indent + 1, summarize, f_re, f_im) for i in range(EDGEITEMS)] + ["..."]
                + [_nested(a[i], indent + 1, summarize, f_re, f_im) for i in range(n - EDGEITEMS, n)])
    else:
        rows = [_nested(a[i], indent + 1, summarize, f_re, f_im) for i in range(n)]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _shown(a):
    """The elements a summarized print shows: EDGEITEMS at both ends of every dim."""
    for ax, n in enumerate(a.shape):
        if n > 2 * EDGEITEMS:
            idx = np.r_[0:EDGEITEMS, n - EDGEITEMS:n]
            a = np.take(a, idx, axis=ax)
    return a


def _body(data, indent):
    if data.size == 0:
        return "[]"
    summarize = data.size > THRESHOLD
    if data.dtype in D.LOW_PRECISION:
        data = data.astype(np.float32)         # printed through float, as PyTorch does
    view = _shown(data) if summarize and EDGEITEMS else data
    if data.dtype.kind == "c":
        return _nested(data, indent, summarize, _Formatter(view.real), _Formatter(view.imag))
    return _nested(data, indent, summarize, _Formatter(view), None)


def _with_suffixes(text, suffixes, indent):
    parts = [text]
    last = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if last + len(s) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + s)
            last = indent + len(s)
        else:
            parts.append(", " + s)
            last += len(s) + 2
    return "".join(parts) + ")"


def tensor_repr(t, prefix="tensor("):
    data = t._data
    dt = D._FROM_NP[data.dtype]
    default = D.get_default_dtype()
    indent = len(prefix)
    suffixes = []
    if data.size == 0:
        if data.ndim != 1:
            suffixes.append(f"size={tuple(data.shape)}")
        if dt is not default:
            suffixes.append(f"dtype={dt!r}")
    else:
        if not EDGEITEMS:
            suffixes.append(f"size={tuple(data.shape)}")
        if dt not in (default, default.to_complex(), D.int64, D.bool_):
            suffixes.append(f"dtype={dt!r}")
    body = _body(data, indent)
    if t._gfn is not None:
        suffixes.append(f"grad_fn=<{t._gfn.name()}>")
    elif t._rg:
        suffixes.append("requires_grad=True")
    return _with_suffixes(prefix + body, suffixes, indent)
