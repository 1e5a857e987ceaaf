"""``stft`` and ``istft``: the short-time Fourier transform and its inverse, with
PyTorch's arguments, defaults, warnings and messages (``torch.stft``,
``torch.istft``, ``Tensor.stft``, ``Tensor.istft``).

Both are compositions of differentiable ops, so their gradients (to any
order), forward-mode derivatives and batching under ``vmap`` are those ops':

- ``stft``: ``F.pad`` of the signal when ``center`` (any ``pad_mode``), the
  frames gathered with ``index_select``, the window (centre-padded to
  ``n_fft`` with ``F.pad``) multiplied in, ``fft.rfft``/``fft.fft`` along the
  frame (``norm="ortho"`` when ``normalized``), a transpose to
  ``(batch?, freq, frames)``, and ``view_as_real`` for ``return_complex=False``.
- ``istft``: ``fft.irfft``/``fft.ifft`` of each frame, the window multiplied
  in, the frames overlap-added into the signal with ``index_add`` (its
  gradient gathers them back), the same for the squared window (the
  envelope, checked for the NOLA condition), a slice, and a division by the
  envelope.  The window's gradient includes the envelope's share, as in
  PyTorch.
"""
import inspect

import numpy as np

from ._creation import ones, tensor, zeros
from ._tensor import Tensor
from ._warn import warn_once as _warn_once
from .func._vmap import physical as _physical
from .ops.complex_ops import view_as_real
from .ops.fft_ops import fft, ifft, irfft, rfft
from .ops.resample import pad as _pad

__all__ = ["stft", "istft"]

# TORCH_WARN_ONCE: each of these is given once per process (_warn.warn_once)
_NO_WINDOW_STFT = (
    "A window was not provided. A rectangular window will be applied,which is known to cause "
    "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
    "recommended to reduce spectral leakage.To suppress this warning and use a rectangular "
    "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.")
_NO_WINDOW_ISTFT = (
    "A window was not provided. A rectangular window will be applied.Please provide the same "
    "window used by stft to make the inversion lossless.To suppress this warning and use a "
    "rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`.")
_REAL_OUTPUT = (
    "stft with return_complex=False is deprecated. In a future pytorch release, stft will "
    "return complex tensors for all inputs, and return_complex=False will raise an error.\n"
    "Note: you can still call torch.view_as_real on the complex output to recover the old "
    "return format.")
_LENGTH_PAD = (
    "The length of signal is shorter than the length parameter. Result is being padded with "
    "zeros in the tail. Please check your center and hop_length settings.")


# ----------------------------------------------------------------- how PyTorch's messages print
# Tensor::toString(): the legacy class name for the types that have one there, else the
# backend's type name
_LEGACY = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
           "uint8": "ByteTensor", "int8": "CharTensor", "int16": "ShortTensor",
           "int32": "IntTensor", "int64": "LongTensor"}
_SCALAR = {"bool": "Bool", "bfloat16": "BFloat16", "complex64": "ComplexFloat",
           "complex128": "ComplexDouble", "uint16": "UInt16", "uint32": "UInt32",
           "uint64": "UInt64"}


def _type_string(t):
    name = t.dtype.name if hasattr(t.dtype, "name") else str(t.dtype)
    if name in _LEGACY:
        return "tensorplay." + _LEGACY[name]
    return f"CPU{_SCALAR.get(name, name)}Type"


def _sizes(t):
    return "[" + ", ".join(str(int(n)) for n in t.shape) + "]"


def _opt(v):
    if v is None:
        return "None"
    return str(int(v)) if isinstance(v, (bool, np.bool_)) else str(v)


def _window_repr(window):
    return "None" if window is None else f"{_type_string(window)}{{{_sizes(window)}}}"


def _describe(v, items=True):
    """How PyTorch's argument parser names the type of a value it got (with
    ``items``, a sequence's elements too)."""
    if isinstance(v, Tensor):
        return "Tensor"
    if not items and isinstance(v, (list, tuple)):
        return type(v).__name__
    if isinstance(v, list):
        return "list of [" + ", ".join(_describe(e) for e in v) + "]"
    if isinstance(v, tuple):
        return "tuple of (" + ", ".join(_describe(e) for e in v) + ")"
    t = type(v)
    if t.__module__ == "numpy":
        return f"numpy.{t.__name__.rstrip('_')}"
    return t.__name__


# ----------------------------------------------------------------- argument types
def _is_int(v):
    if isinstance(v, Tensor):
        return v.dim() == 0 and not (v.is_floating_point() or v.is_complex()) \
            and v.dtype.name != "bool"
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _is_bool(v):
    return type(v) is bool


def _int(v):
    return int(v.item()) if isinstance(v, Tensor) else int(v)


_STFT_SIGNATURES = (
    ' * (Tensor input, int n_fft, int hop_length = None, int win_length = None, Tensor window = '
    'None, bool center = True, str pad_mode = "reflect", bool normalized = False, bool onesided '
    '= None, bool return_complex = None, bool align_to_window = None)\n'
    ' * (Tensor input, int n_fft, int hop_length = None, int win_length = None, Tensor window = '
    'None, bool normalized = False, bool onesided = None, bool return_complex = None, bool '
    'align_to_window = None)\n')


def _check_stft_types(args):
    """The arguments stft hands its kernel: (input, n_fft, hop_length, win_length,
    window, normalized, onesided, return_complex, align_to_window)."""
    ok = [isinstance(args[0], Tensor), _is_int(args[1]),
          args[2] is None or _is_int(args[2]), args[3] is None or _is_int(args[3]),
          args[4] is None or isinstance(args[4], Tensor), _is_bool(args[5])] + \
         [a is None or _is_bool(a) for a in args[6:]]
    if all(ok):
        return
    got = [_describe(a, items=False) for a in args]
    # (the parser marks the input and n_fft when they are wrong, and every argument after them)
    marked = [_describe(a) if (i < 2 and ok[i]) else f"!{_describe(a)}!"
              for i, a in enumerate(args)]
    raise TypeError(f"stft() received an invalid combination of arguments - got "
                    f"({', '.join(got)}), but expected one of:\n{_STFT_SIGNATURES}"
                    f"      didn't match because some of the arguments have invalid types: "
                    f"({', '.join(marked)})\n")


# ----------------------------------------------------------------- stft
def _frame_index(n_frames, size, hop):
    """Where sample k of frame t lies in the signal: t * hop + k, frame by frame."""
    return tensor((np.arange(n_frames)[:, None] * hop + np.arange(size)).reshape(-1))


def _frames(x, size, hop):
    """The frames of ``size`` samples, ``hop`` apart, of each signal of ``x``
    ``(batch, length)``: ``(batch, n_frames, size)``.  (A gather rather than
    ``Tensor.unfold``'s strided view: its gradient, an ``index_add``, batches
    under ``vmap``, which ``jacrev`` needs.)"""
    n_frames = 1 + (x.shape[-1] - size) // hop
    return x.index_select(-1, _frame_index(n_frames, size, hop)).reshape(
        x.shape[0], n_frames, size)


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """Short-time Fourier transform of a 1-D signal or a 2-D batch of signals:
    ``(batch?, n_fft // 2 + 1 or n_fft, frames)``, complex (or its
    ``view_as_real`` for ``return_complex=False``)."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:                       # (the signal padded first, as PyTorch's Python layer does)
        if not isinstance(pad_mode, str):
            raise TypeError(f"pad(): argument 'mode' (position 3) must be str, not "
                            f"{_describe(pad_mode, items=False)}")
        signal_dim = input.dim()
        extended = [1] * (3 - signal_dim) + list(input.shape)
        p = int(n_fft // 2)
        input = _pad(input.reshape(extended), [p, p], pad_mode)
        input = input.reshape(tuple(input.shape[-signal_dim:]))
    _check_stft_types((input, n_fft, hop_length, win_length, window, normalized, onesided,
                       return_complex, align_to_window))
    n_fft = _int(n_fft)
    if window is None:
        _warn_once(_NO_WINDOW_STFT)
    hop = _int(hop_length) if hop_length is not None else n_fft >> 2
    win = _int(win_length) if win_length is not None else n_fft

    def error(what):
        return RuntimeError(
            f"stft({_type_string(input)}{_sizes(input)}, n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win}, window={_window_repr(window)}, normalized={_opt(normalized)}, "
            f"onesided={_opt(onesided)}, return_complex={_opt(return_complex)}, "
            f"align_to_window={_opt(align_to_window)}) : {what}")

    complex_out = return_complex if return_complex is not None else (
        input.is_complex() or (window is not None and window.is_complex()))
    if not complex_out:
        if return_complex is None:
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True in a "
                               "future PyTorch release.")
        _warn_once(_REAL_OUTPUT)
    if not (input.is_floating_point() or input.is_complex()):
        raise error("expected a tensor of floating point or complex values")
    if input.dim() not in (1, 2):
        raise error("expected a 1D or 2D tensor")
    x = input.unsqueeze(0) if input.dim() == 1 else input
    length = x.shape[1]
    if n_fft <= 0 or n_fft > length:
        raise error(f"expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        raise error(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise error(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise error(f"expected a 1D window tensor of size equal to win_length={win}, but got "
                    f"window with size {_sizes(window)}")
    left, right = (n_fft - win) // 2, n_fft - win - (n_fft - win) // 2
    if align_to_window and win < n_fft:
        # each frame is the win_length samples from t * hop_length, windowed, then
        # zero-padded about the centre to n_fft
        frames = _frames(x, win, hop)
        if window is not None:
            frames = frames * window
        frames = _pad(frames, [left, right])
    else:
        frames = _frames(x, n_fft, hop)                     # (batch, n_frames, n_fft)
        if window is not None:
            frames = frames * (_pad(window, [left, right]) if win < n_fft else window)
        elif win < n_fft:
            mask = np.zeros(n_fft, dtype=np.float64)
            mask[left:left + win] = 1
            frames = frames * tensor(mask, dtype=input.dtype)
    if frames.dtype.name in ("float16", "bfloat16"):
        raise RuntimeError(f"MKL FFT doesn't support tensors of type: "
                           f"{'Half' if frames.dtype.name == 'float16' else 'BFloat16'}")
    complex_fft = frames.is_complex()
    one = onesided if onesided is not None else not complex_fft
    norm = "ortho" if normalized else "backward"
    if complex_fft:
        if one:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = fft(frames, dim=-1, norm=norm)
    else:
        out = rfft(frames, dim=-1, norm=norm) if one else fft(frames, dim=-1, norm=norm)
    out = out.transpose(1, 2)                               # (batch, freq, n_frames)
    if input.dim() == 1:
        out = out.squeeze(0)
    return out if complex_out else view_as_real(out.contiguous())


# ----------------------------------------------------------------- istft's arguments
def _nola_fails(envelope):
    """Whether the window's squared envelope comes within 1e-11 of zero anywhere
    (PyTorch's NOLA check).  The envelope is read through any ``vmap`` levels (its
    batch, the whole of it: a window batched under ``vmap``, or the primal that
    ``jacfwd`` expands), as PyTorch's per-sample fallback reads each sample."""
    a = _physical(envelope)[0]._data
    if a.size == 0:
        raise RuntimeError("min(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    return bool(np.abs(a).min() < 1e-11)



_ISTFT_PARAMS = ("input", "n_fft", "hop_length", "win_length", "window", "center", "normalized",
                 "onesided", "length", "return_complex")
_ISTFT_DEFAULTS = {"hop_length": None, "win_length": None, "window": None, "center": True,
                   "normalized": False, "onesided": None, "length": None, "return_complex": False}
_ISTFT_TYPES = {"input": "Tensor", "n_fft": "int", "hop_length": "int?", "win_length": "int?",
                "window": "Tensor?", "center": "bool", "normalized": "bool", "onesided": "bool?",
                "length": "int?", "return_complex": "bool"}


def _bind_istft(args, kwargs):
    """istft's arguments by name, as PyTorch's argument parser binds and checks them
    (its messages name an argument given by position with that position)."""
    n = len(_ISTFT_PARAMS)
    if len(args) > n:
        raise TypeError(f"istft() takes from 2 to {n} positional arguments but {len(args)} "
                        f"were given")
    bound = dict(zip(_ISTFT_PARAMS, args))
    for k, v in kwargs.items():
        if k not in _ISTFT_PARAMS:
            raise TypeError(f"istft() got an unexpected keyword argument '{k}'")
        if k in bound:
            raise TypeError(f"istft() got multiple values for argument '{k}'")
        bound[k] = v
    missing = [k for k in _ISTFT_PARAMS[:2] if k not in bound]
    if missing:
        names = ", ".join(f'"{k}"' for k in missing)
        raise TypeError(f"istft() missing {len(missing)} required positional "
                        f"argument{'s' if len(missing) == 1 else ''}: {names}")
    for i, k in enumerate(_ISTFT_PARAMS):
        if k not in bound:
            bound[k] = _ISTFT_DEFAULTS[k]
            continue
        v, want = bound[k], _ISTFT_TYPES[k]
        if want.endswith("?"):
            if v is None:
                continue
            want = want[:-1]
        ok = {"Tensor": isinstance(v, Tensor), "int": _is_int(v), "bool": _is_bool(v)}[want]
        if not ok:
            where = f" (position {i + 1})" if i < len(args) else ""
            raise TypeError(f"istft(): argument '{k}'{where} must be {want}, not "
                            f"{_describe(v, items=False)}")
    return bound


def istft(*args, **kwargs):
    """Inverse of ``stft``: the signal(s) whose STFT is ``input``, a complex
    ``(batch?, n_fft // 2 + 1 or n_fft, frames)`` tensor, by windowed
    overlap-add divided by the window's squared envelope."""
    a = _bind_istft(args, kwargs)
    input, window, center, normalized = a["input"], a["window"], a["center"], a["normalized"]
    onesided, length, return_complex = a["onesided"], a["length"], a["return_complex"]
    n_fft = _int(a["n_fft"])
    if length is not None:
        length = _int(length)
    if window is None:
        _warn_once(_NO_WINDOW_ISTFT)
    hop = _int(a["hop_length"]) if a["hop_length"] is not None else n_fft >> 2
    win = _int(a["win_length"]) if a["win_length"] is not None else n_fft

    def repr_():
        return (f"istft({_type_string(input)}{_sizes(input)}, n_fft={n_fft}, hop_length={hop}, "
                f"win_length={win}, window={_window_repr(window)}, center={_opt(center)}, "
                f"normalized={_opt(normalized)}, onesided={_opt(onesided)}, "
                f"length={_opt(length)}, return_complex={_opt(return_complex)}) ")

    def error(what):
        return RuntimeError(f"{repr_()}: {what}")

    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    input_dim = input.dim() + 1                 # (as its view_as_real counts them)
    for d in (2, 3):                            # n_frames, then the frequencies
        if d > input_dim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-input_dim}, {input_dim - 1}], but got {-d})")
    n_frames, fft_size = input.shape[-1], input.shape[-2]
    expected_len = n_fft + hop * (n_frames - 1)
    if input.numel() == 0:
        raise error("input tensor cannot be empty.")
    if input_dim not in (3, 4):
        raise error(f"expected a tensor with 3 or 4 dimensions, but got {input_dim}")
    one = onesided if onesided is not None else fft_size != n_fft
    if one:
        if n_fft // 2 + 1 != fft_size:
            raise error(f"expected the frequency dimension (3rd to the last) of the input tensor "
                        f"to match n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    elif n_fft != fft_size:
        raise error(f"expected the frequency dimension (3rd to the last) of the input tensor to "
                    f"match n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop <= win:
        raise error("expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise error("expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise error("Invalid window shape. window has to be 1D and length of `win_length`")
    w = window if window is not None else ones(win, dtype=input.real.dtype)
    if win != n_fft:
        left = (n_fft - win) // 2
        w = _pad(w, [left, n_fft - win - left])

    x = input.unsqueeze(0) if input_dim == 3 else input
    x = x.transpose(1, 2)                       # (batch, n_frames, fft_size)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if one:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = ifft(x, dim=-1, norm=norm)
    else:
        if window is not None and window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not one:
            x = x[..., :n_fft // 2 + 1]
        frames = irfft(x, n=n_fft, dim=-1, norm=norm)      # (batch, n_frames, n_fft)
    frames = frames * w

    # overlap-add: sample k of frame t goes to t * hop + k
    index = _frame_index(n_frames, n_fft, hop)
    batch = frames.shape[0]
    y = zeros(batch, expected_len, dtype=frames.dtype).index_add(
        1, index, frames.reshape(batch, n_frames * n_fft))
    w2 = w.pow(2)
    envelope = zeros(1, expected_len, dtype=w2.dtype).index_add(
        1, index, w2.expand(n_frames, n_fft).reshape(1, n_frames * n_fft))

    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = -(n_fft // 2) if center else expected_len
    y = y[:, start:end]
    envelope = envelope[:, start:end]
    if _nola_fails(envelope):
        raise RuntimeError(f"{repr_()}window overlap add min: 1\n[ CPUBoolType{{}} ]")
    y = y / envelope
    if input_dim == 3:
        y = y.squeeze(0)
    if end > expected_len:
        _warn_once(_LENGTH_PAD)
        y = _pad(y, [0, end - expected_len])
    return y


istft.__signature__ = inspect.Signature(
    [inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                       **({"default": _ISTFT_DEFAULTS[k]} if k in _ISTFT_DEFAULTS else {}))
     for k in _ISTFT_PARAMS])


# ----------------------------------------------------------------- Tensor methods
def _stft_method(self, n_fft, hop_length=None, win_length=None, window=None, center=True,
                 pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
                 align_to_window=None):
    return stft(self, n_fft, hop_length=hop_length, win_length=win_length, window=window,
                center=center, pad_mode=pad_mode, normalized=normalized, onesided=onesided,
                return_complex=return_complex, align_to_window=align_to_window)


def _istft_method(self, n_fft, hop_length=None, win_length=None, window=None, center=True,
                  normalized=False, onesided=None, length=None, return_complex=False):
    # (PyTorch's method passes every argument by position: its messages give positions)
    return istft(self, n_fft, hop_length, win_length, window, center, normalized, onesided,
                 length, return_complex)


_stft_method.__name__ = _stft_method.__qualname__ = "stft"
_stft_method.__doc__ = stft.__doc__
_istft_method.__name__ = _istft_method.__qualname__ = "istft"
_istft_method.__doc__ = istft.__doc__
Tensor.stft = _stft_method
Tensor.istft = _istft_method
