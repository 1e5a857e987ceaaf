"""``tensorplay.fft``: PyTorch's ``torch.fft`` functions.

The transforms (``fft``, ``ifft``, ``rfft``, ``irfft``, ``hfft``, ``ihfft`` and
their ``2``/``n``-dimensional forms) take PyTorch's arguments (``n``/``s``,
``dim``, ``norm`` in ``None``, ``"backward"``, ``"ortho"``, ``"forward"``, and
``out=``), compute a float32 (complex64) input in single precision and a
float64 (complex128) one in double, promote integers to the default dtype, and
refuse half precision as PyTorch's CPU kernels do.  All are differentiable,
to any order, in both modes, and batch under ``vmap``.  ``fftfreq``,
``rfftfreq``, ``fftshift`` and ``ifftshift`` complete the module.
"""
from .ops.fft_ops import (fft, ifft, rfft, irfft, hfft, ihfft, fft2, ifft2, rfft2, irfft2,  # noqa: F401
                          hfft2, ihfft2, fftn, ifftn, rfftn, irfftn, hfftn, ihfftn, fftfreq,
                          rfftfreq, fftshift, ifftshift)

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
           "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]
