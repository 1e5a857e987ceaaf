"""Window functions (``torch.signal.windows``): ``bartlett``, ``blackman``,
``cosine``, ``exponential``, ``gaussian``, ``general_cosine``,
``general_hamming``, ``hamming``, ``hann``, ``kaiser``, ``nuttall``.

Each takes the window length ``M``, its own shape parameters and
``sym`` (True: symmetric, for filter design; False: periodic, for spectral
analysis: the symmetric window of ``M + 1`` points without its last one),
and the factory arguments ``dtype`` (float32 or float64; default: the default
dtype), ``layout``, ``device`` and ``requires_grad``.  The window is computed
from a ``linspace`` with PyTorch's formulas, with tensorplay's ops, so that
with ``requires_grad=True`` the result is, as in PyTorch, the output of those
ops (not a leaf).  tensorplay has one layout, the strided one: ``layout`` must
be None (or ``"strided"``).
"""
import math as _math
from collections.abc import Iterable as _Iterable

from .. import _dtype as _D
from .._creation import (arange as _arange, empty as _empty, linspace as _linspace, ones as _ones,
                         tensor as _tensor)

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _checks(name, M, dtype, layout):
    """PyTorch's checks before any window; returns the dtype to use."""
    dtype = _D.get_default_dtype() if dtype is None else _D.to_dtype(dtype)
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and str(layout) not in ("strided", "torch.strided"):
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_D.float32, _D.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _trivial(M, dtype, device, requires_grad):
    """The windows of 0 and 1 points, or None."""
    if M == 0:
        return _empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if M == 1:
        return _ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    return None



def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False):
    """The exponential (Poisson) window ``exp(-|n - center| / tau)``; ``center``
    defaults to the middle, ``(M - 1) / 2`` (``M / 2`` when periodic), and may
    only be given for a periodic window."""
    dtype = _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    c = 1 / tau
    k = _linspace(-center * c, (-center + (M - 1)) * c, M, dtype=dtype, device=device,
                 requires_grad=requires_grad)
    return (-k.abs()).exp()


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The cosine (sine) window ``sin(pi (n + 1/2) / M)``, as SciPy's."""
    dtype = _checks("cosine", M, dtype, layout)
    if M == 0:
        return _empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    c = _math.pi / (M + 1 if not sym and M > 1 else M)
    k = _linspace(0.5 * c, (0.5 + (M - 1)) * c, M, dtype=dtype, device=device,
                 requires_grad=requires_grad)
    return k.sin()


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Gaussian window ``exp(-(n / (2 std))^2)``, ``n`` from the middle."""
    dtype = _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    c = 1 / (std * _math.sqrt(2))
    k = _linspace(start * c, (start + (M - 1)) * c, M, dtype=dtype, device=device,
                 requires_grad=requires_grad)
    return (-(k ** 2)).exp()


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Kaiser window ``I0(beta sqrt(1 - ((n - N/2) / (N/2))^2)) / I0(beta)``,
    ``N = M - 1`` (``M`` when periodic)."""
    dtype = _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    w = _trivial(M, dtype, device, requires_grad)
    if w is not None:
        return w
    beta = _tensor(beta, dtype=dtype, device=device)     # (in the dtype: no NaN at the ends)
    start = -beta
    step = 2.0 * beta / (M if not sym else M - 1)
    end = beta.minimum(start + (M - 1) * step)
    k = _linspace(start, end, M, dtype=dtype, device=device, requires_grad=requires_grad)
    return (beta * beta - k ** 2).sqrt().i0() / beta.i0()


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The generalized cosine window ``sum_i (-1)^i a[i] cos(2 pi i n / N)``,
    ``N = M - 1`` (``M`` when periodic)."""
    dtype = _checks("general_cosine", M, dtype, layout)
    w = _trivial(M, dtype, device, requires_grad)
    if w is not None:
        return w
    if not isinstance(a, _Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    c = 2 * _math.pi / (M if not sym else M - 1)
    k = _linspace(0, (M - 1) * c, M, dtype=dtype, device=device, requires_grad=requires_grad)
    a_i = _tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype, device=device,
                 requires_grad=requires_grad)
    i = _arange(a_i.shape[0], dtype=dtype, device=device, requires_grad=requires_grad)
    return (a_i.unsqueeze(-1) * (i.unsqueeze(-1) * k).cos()).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """The generalized Hamming window ``alpha - (1 - alpha) cos(2 pi n / N)``."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Hamming window: ``general_hamming`` with ``alpha = 0.54``."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Hann window: ``general_hamming`` with ``alpha = 0.5``."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Blackman window: ``general_cosine`` with ``a = [0.42, 0.5, 0.08]``."""
    _checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Bartlett (triangular) window ``1 - |2n / N - 1|``."""
    dtype = _checks("bartlett", M, dtype, layout)
    w = _trivial(M, dtype, device, requires_grad)
    if w is not None:
        return w
    c = 2 / (M if not sym else M - 1)
    k = _linspace(-1, -1 + (M - 1) * c, M, dtype=dtype, device=device, requires_grad=requires_grad)
    return 1 - k.abs()


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Nuttall window: ``general_cosine`` with Nuttall's four coefficients."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype,
                          layout=layout, device=device, requires_grad=requires_grad)
