"""Table entries for ops/fft_ops.py: the three transforms (``_fft_c2c``,
``_fft_r2c``, ``_fft_c2r``) through the ``tensorplay.fft`` functions built on
them, and ``fftshift``/``ifftshift`` (``roll``).

Conventions of these rows:

- each first sample transforms dimension 0 (or all dimensions), so that the
  generated zero-size sample empties a transformed dimension, which both
  libraries refuse ("Invalid number of data points (0) specified").  An empty
  dimension that is *not* transformed is left to tests/test_fft.py: PyTorch's
  MKL backend refuses it ("MKL FFT error: ... Inconsistent configuration
  parameters"), its other backends and tensorplay return an empty result.
- the real-to-complex functions (``rfft*``, ``ihfft*``) refuse complex inputs,
  as PyTorch does: ``complex=False``; every transform refuses half precision
  on the CPU ("Unsupported dtype Half"): ``low_precision=False``, with that
  refusal among the error inputs.
- samples cover even and odd lengths, cropping (``n`` smaller than the input)
  and zero-padding (larger), and every ``norm``; the complex-to-real ones
  (``irfft``, ``hfft`` and their n-d forms) also get real inputs (promoted to
  complex; their gradient is the real part).
"""
import numpy as np

from . import E, OpCase, Sample, arr

A = arr(4, 5, seed=1)            # even x odd
B = arr(2, 3, 6, seed=2)
C = arr(5, 4, seed=3)            # odd x even
D1 = arr(7, seed=4)


def f32(*shape):
    return np.ones(shape, np.float32)


def c64(*shape):
    return np.ones(shape, np.complex64)


def _half(name, **kw):
    return E(RuntimeError, "Unsupported dtype Half", f32(4, 4),
             fn=lambda T, x: getattr(T.fft, name)(x.half(), **kw), desc="half")


def _bf16(name):
    return E(RuntimeError, "Unsupported dtype BFloat16", f32(4, 4),
             fn=lambda T, x: getattr(T.fft, name)(x.to(T.bfloat16)), desc="bfloat16")


def _range(lo, hi, got):
    return f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {got})"


def _errors_1d(name, x):
    """What every one-dimensional transform refuses (``x``: an input it takes)."""
    return [
        E(RuntimeError, 'Invalid normalization mode: "bad"', x, norm="bad", desc="norm"),
        E(RuntimeError, "Invalid number of data points (0) specified", x, n=0, desc="n 0"),
        E(RuntimeError, "Invalid number of data points (-1) specified", x, n=-1, desc="n negative"),
        E(IndexError, _range(-2, 1, 2), x, dim=2, desc="dim"),
        E(IndexError, _range(-2, 1, -3), x, dim=-3, desc="dim negative"),
        E(IndexError, _range(-2, 1, 5), x, dim=5, n=0, desc="dim before n"),
        E(IndexError, "Dimension specified as -1 but tensor has no dimensions", x[0, 0].reshape(()),
          desc="0-d"),
        E(TypeError, f"fft_{name}(): argument 'input' (position 1) must be Tensor, not list",
          fn=lambda T: getattr(T.fft, name)([1.0, 2.0]), desc="not a tensor"),
        _half(name), _bf16(name),
    ]


def _errors_nd(name, x, dims2=False):
    """What every n-dimensional transform refuses (``dims2``: the ``*2`` spelling,
    whose ``dim`` defaults to the last two)."""
    out = [
        E(RuntimeError, 'Invalid normalization mode: "xx"', x, norm="xx", desc="norm"),
        E(RuntimeError, "FFT dims must be unique", x, dim=(0, 0), desc="dims repeated"),
        E(RuntimeError, "FFT dims must be unique", x, dim=(1, -1), desc="dims repeated negative"),
        E(IndexError, _range(-2, 1, 2), x, dim=(0, 2), desc="dim"),
        E(RuntimeError, "When given, dim and shape arguments must have the same length", x, s=(3,),
          dim=(0, 1), desc="s and dim"),
        E(RuntimeError, "Invalid number of data points (0) specified", x, s=(0, 3), desc="s 0"),
        E(RuntimeError, "Invalid number of data points (-2) specified", x, s=(-2, 3), desc="s negative"),
        E(IndexError, _range(-2, 1, 5), x, s=(1,), dim=(0, 5), desc="dim before s"),
        _half(name),
    ]
    if not dims2:
        out.append(E(RuntimeError, "Got shape with 3 values but input tensor only has 2 dimensions.", x,
                     s=(3, 3, 3), desc="s too long"))
    else:
        out.append(E(IndexError, _range(-1, 0, -2), x[0], desc="1-d"))
    return out


def _resolved(name):
    """The torch spelling with its lazy conjugation resolved (``ifft`` of a real
    input, ``ihfft``: ``.numpy()`` refuses a tensor with the conj bit)."""
    def f(T, *xs, **kw):
        return getattr(T.fft, name)(*xs, **kw).resolve_conj()
    return f


def _row(name, op, samples, covers=None, complex_=True, errors=(), **kw):
    return OpCase(f"fft_{name}", func=f"fft.{name}", op=op, samples=samples, torch_fn=_resolved(name),
                  covers=covers or (op,), complex=complex_, low_precision=False, errors=errors, **kw)


# ---------------------------------------------------------------- one dimension
_C2C_1D = [Sample([A], {"dim": 0}, desc="dim 0"), Sample([A]), Sample([A], {"n": 3}, desc="crop"),
           Sample([A], {"n": 8, "norm": "ortho"}, desc="pad ortho"),
           Sample([C], {"n": 7, "norm": "forward"}, desc="odd pad forward"),
           Sample([B], {"dim": 1, "norm": "backward"}, desc="3-d dim 1"),
           Sample([D1], {"n": 4}, desc="1-d crop")]

_R2C_1D = [Sample([A], {"dim": 0}, desc="dim 0 even"), Sample([A], desc="odd"),
           Sample([C], {"norm": "ortho"}, desc="even ortho"),
           Sample([A], {"n": 3, "norm": "forward"}, desc="crop odd forward"),
           Sample([A], {"n": 4}, desc="crop even"), Sample([A], {"n": 8}, desc="pad even"),
           Sample([C], {"n": 7, "norm": "ortho"}, desc="pad odd ortho"),
           Sample([B], {"dim": 1}, desc="3-d dim 1"), Sample([D1], {"n": 1}, desc="one point")]

# inputs of complex-to-real transforms: m points give n = 2 (m - 1) by default
_C2R_1D = [Sample([A], {"dim": 0}, desc="dim 0"), Sample([A], desc="n 8"),
           Sample([A], {"n": 9, "norm": "ortho"}, desc="odd n"),
           Sample([A], {"n": 3, "norm": "forward"}, desc="crop"),
           Sample([A], {"n": 4}, desc="crop even"), Sample([C], {"n": 12}, desc="pad even"),
           Sample([C], {"n": 11, "norm": "ortho"}, desc="pad odd"),
           Sample([B], {"dim": 1, "norm": "forward"}, desc="3-d dim 1"),
           Sample([A], {"n": 1}, desc="one point"), Sample([A], {"n": 2}, desc="two points")]

def _complex_in(name):
    return E(RuntimeError, f"{name} expects a real input tensor, but got ComplexFloat", c64(3, 4),
             desc="complex")


# ---------------------------------------------------------------- n dimensions
_ND = [Sample([A]), Sample([A], {"s": (3, 7), "norm": "ortho"}, desc="crop pad"),
       Sample([C], {"s": (-1, 3), "norm": "forward"}, desc="s -1"),
       Sample([B], {"dim": (2, 0)}, desc="dims reordered"),
       Sample([B], {"s": (4, 5)}, desc="s only"),
       Sample([B], {"dim": (-1,), "norm": "ortho"}, desc="one dim"),
       Sample([B], {"s": (2, 2, 4), "dim": (1, 2, 0)}, desc="three dims")]
_2D = [Sample([A]), Sample([A], {"s": (3, 7), "norm": "ortho"}, desc="crop pad"),
       Sample([C], {"s": (-1, 3), "norm": "forward"}, desc="s -1"),
       Sample([B], {"dim": (2, 0)}, desc="dims"), Sample([B], {"s": (5, 4)}, desc="3-d")]
# complex-to-real n-d: the last dimension given the output's size
_C2R_ND = [Sample([A]), Sample([A], {"s": (3, 7), "norm": "ortho"}, desc="crop odd"),
           Sample([C], {"s": (6, -1), "norm": "forward"}, desc="s -1"),
           Sample([C], {"s": (2, 2)}, desc="crop even"),
           Sample([B], {"dim": (2, 0)}, desc="dims reordered"),
           Sample([B], {"s": (4, 9)}, desc="pad"),
           Sample([B], {"dim": (0,), "norm": "ortho"}, desc="one dim")]
_C2R_2D = [Sample([A]), Sample([A], {"s": (3, 7), "norm": "ortho"}, desc="crop odd"),
           Sample([C], {"s": (6, -1), "norm": "forward"}, desc="s -1"),
           Sample([B], {"dim": (2, 0)}, desc="dims"), Sample([B], {"s": (4, 9)}, desc="pad")]


def _no_axis(name, x):
    return E(RuntimeError, f"{name} must transform at least one axis", x, dim=(), desc="no axis")


CASES = [
    _row("fft", "_fft_c2c", _C2C_1D, covers=("_fft_c2c", "_fft_r2c"), errors=_errors_1d("fft", A)),
    _row("ifft", "_fft_c2c", _C2C_1D, covers=("_fft_c2c", "_fft_r2c"), errors=_errors_1d("ifft", A)),
    _row("rfft", "_fft_r2c", _R2C_1D, complex_=False,
         errors=_errors_1d("rfft", A) + [_complex_in("rfft")]),
    _row("ihfft", "_fft_r2c", _R2C_1D, complex_=False,
         errors=_errors_1d("ihfft", A) + [_complex_in("ihfft")]),
    _row("irfft", "_fft_c2r", _C2R_1D, covers=("_fft_c2r", "_fft_r2c"),
         errors=_errors_1d("irfft", A) + [
             E(RuntimeError, "Invalid number of data points (0) specified", A[:, :1], desc="one input point")]),
    _row("hfft", "_fft_c2r", _C2R_1D, covers=("_fft_c2r", "_fft_r2c"),
         errors=_errors_1d("hfft", A) + [
             E(RuntimeError, "Invalid number of data points (0) specified", A[:, :1], desc="one input point")]),
    _row("fft2", "_fft_c2c", _2D, errors=_errors_nd("fft2", A, True)),
    _row("ifft2", "_fft_c2c", _2D, errors=_errors_nd("ifft2", A, True)),
    _row("fftn", "_fft_c2c", _ND + [Sample([A[0, 0].reshape(())], desc="0-d")],
         errors=_errors_nd("fftn", A)),
    _row("ifftn", "_fft_c2c", _ND, errors=_errors_nd("ifftn", A)),
    _row("rfft2", "_fft_r2c", _2D, complex_=False, errors=_errors_nd("rfft2", A, True) + [
        E(RuntimeError, "rfftn expects a real-valued input tensor, but got ComplexFloat", c64(3, 4),
          desc="complex")]),
    _row("rfftn", "_fft_r2c", _ND, complex_=False, errors=_errors_nd("rfftn", A) + [
        _no_axis("rfftn", A),
        E(RuntimeError, "rfftn expects a real-valued input tensor, but got ComplexFloat", c64(3, 4),
          desc="complex")]),
    _row("irfft2", "_fft_c2r", _C2R_2D, covers=("_fft_c2r", "_fft_r2c"),
         errors=_errors_nd("irfft2", A, True)),
    _row("irfftn", "_fft_c2r", _C2R_ND, covers=("_fft_c2r", "_fft_r2c"), errors=_errors_nd("irfftn", A) + [
        _no_axis("irfftn", A),
        E(RuntimeError, "Invalid number of data points (0) specified", A[:, :1], desc="one input point"),
        E(RuntimeError, "Invalid number of data points (0) specified", A, s=(3, 0), desc="s last 0")]),
    _row("hfft2", "_fft_c2r", _C2R_2D, covers=("_fft_c2r", "_fft_r2c"), errors=_errors_nd("hfft2", A, True)),
    _row("hfftn", "_fft_c2r", _C2R_ND, covers=("_fft_c2r", "_fft_r2c"),
         errors=_errors_nd("hfftn", A) + [_no_axis("hfftn", A)]),
    _row("ihfft2", "_fft_r2c", _2D, complex_=False, errors=_errors_nd("ihfft2", A, True) + [
        E(RuntimeError, "Only supports floating-point dtypes, but found: ComplexFloat", c64(3, 4),
          desc="complex")]),
    _row("ihfftn", "_fft_r2c", _ND, complex_=False, errors=_errors_nd("ihfftn", A) + [
        _no_axis("ihfftn", A),
        E(RuntimeError, "Only supports floating-point dtypes, but found: ComplexFloat", c64(3, 4),
          desc="complex")]),
    # the shifts: roll by half of each dimension (PyTorch's RollBackward0)
    *[OpCase(f"fft_{name}", func=f"fft.{name}", op="roll",
             samples=[Sample([A]), Sample([C], {"dim": 0}, desc="dim 0"), Sample([B], {"dim": (2, 0)}, desc="dims"),
                      Sample([D1], {"dim": -1}, desc="odd")],
             ref=lambda x, dim=None, f=getattr(np.fft, name): f(x, axes=dim),
             errors=[E(IndexError, _range(-2, 1, 3), A, dim=3, desc="dim"),
                     E(RuntimeError, "`shifts` required", A[0, 0].reshape(()), desc="0-d")])
      for name in ("fftshift", "ifftshift")],
]
