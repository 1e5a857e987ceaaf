"""tensorplay: automatic differentiation with a PyTorch-compatible API, on NumPy.

    >>> import tensorplay as tp
    >>> x = tp.tensor([1., 2., 3.], requires_grad=True)
    >>> (x ** 2).sum().backward()
    >>> x.grad
    tensor([2., 4., 6.])
"""
__version__ = "0.1.0"

import warnings as _warnings

# IEEE results (inf, nan) are values here, as in PyTorch: NumPy's floating-point
# RuntimeWarnings are silenced for calls made from tensorplay's own modules only
_warnings.filterwarnings("ignore", r"(divide by zero|invalid value|overflow|underflow) encountered",
                         RuntimeWarning, r"tensorplay(\.|$)")


def _keep_freed_memory():
    """Every array is a malloc'd block.  glibc's defaults hand large freed blocks
    back to the OS at once (mmap above 128 KiB-32 MiB, heap trimming), so a
    training step that allocates and frees the same sizes each step pays page
    faults on every array, every step: ~25% of a transformer step here.  Keep
    blocks below 64 MiB in the heap and trim it only past 256 MiB free, as a
    caching allocator would.  Peak memory is unchanged; memory freed after a
    peak stays resident for reuse.  Settings the environment already makes
    (``MALLOC_*_``) are left alone."""
    import ctypes
    import os
    import sys
    if not sys.platform.startswith("linux") or any(k.startswith("MALLOC_") for k in os.environ):
        return
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):       # not glibc
        return
    m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
    mallopt(m_mmap_threshold, 64 << 20)
    mallopt(m_trim_threshold, 256 << 20)
    mallopt(m_top_pad, 64 << 20)


_keep_freed_memory()

from . import _dtype, _print
from ._dtype import (bfloat16, complex64, complex128, dtype, float16, float32, float64,  # noqa: F401
                     int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                     get_default_dtype, set_default_dtype, promote_types)
from ._dtype import finfo, iinfo  # noqa: F401
from ._tensor import Tensor, Size, device, check_device as _check_device  # noqa: F401
from . import ops as _ops
from .ops._registry import _result_dtype
from . import autograd  # noqa: F401
from .autograd import (enable_grad, inference_mode, is_grad_enabled,  # noqa: F401
                       is_inference_mode_enabled, no_grad, set_grad_enabled)
from ._creation import (arange, as_tensor, asarray, empty, empty_like, empty_strided, eye,  # noqa: F401
                        from_numpy, frombuffer, full,
                        full_like, linspace, logspace, ones, ones_like, rand, rand_like, randint,
                        randint_like, randn, randn_like, randperm, scalar_tensor, tensor, zeros,
                        zeros_like)
from ._random import (Generator, default_generator, get_rng_state, initial_seed,  # noqa: F401
                      manual_seed, seed, set_rng_state)
from . import nn  # noqa: F401
from . import func  # noqa: F401   (above autograd: transforms built on it)
from .func import vmap  # noqa: F401   (torch.vmap is torch.func.vmap)
from . import text  # noqa: F401   (autodiff over text, on the same engine)
from . import optim  # noqa: F401
from .serialization import load, save  # noqa: F401
from . import linalg, random, utils  # noqa: F401
from . import fft  # noqa: F401
from . import special  # noqa: F401
from . import distributions  # noqa: F401
from . import signal, testing  # noqa: F401   (window functions; assert_close, make_tensor)
from ._stft import stft, istft  # noqa: F401   (compositions; also Tensor.stft/istft)
from ._threads import get_num_threads, set_num_threads  # noqa: F401
from ._settings import *  # noqa: F401,F403   (determinism, matmul precision, warn_always...)
from . import _settings
from . import datasets  # noqa: F401   (small datasets shipped in the package; not torch's)
from . import accelerator, backends, cuda  # noqa: F401   (CPU-only answers for device code)
from . import amp  # noqa: F401   (autocast: a transform on the interception point; GradScaler)
from .amp.autocast_mode import (autocast, is_autocast_enabled, set_autocast_enabled,  # noqa: F401
                                get_autocast_dtype, set_autocast_dtype, is_autocast_cache_enabled,
                                set_autocast_cache_enabled, clear_autocast_cache,
                                autocast_increment_nesting, autocast_decrement_nesting,
                                get_autocast_cpu_dtype, set_autocast_cpu_dtype, is_autocast_cpu_enabled,
                                set_autocast_cpu_enabled, get_autocast_gpu_dtype)
from .utils.dlpack import from_dlpack  # noqa: F401

import math as _math

bool = _dtype.bool_            # noqa: A001  (tensorplay.bool, like torch.bool)
inf, nan, pi, e = _math.inf, _math.nan, _math.pi, _math.e
newaxis = None
from ._tensor import layout, strided  # noqa: E402,F401
from ._tensor import (memory_format, contiguous_format, preserve_format,  # noqa: E402,F401
                      channels_last, channels_last_3d, UntypedStorage, TypedStorage,
                      LEGACY_TYPES as _LEGACY_TYPES)
globals().update(_LEGACY_TYPES)        # FloatTensor, DoubleTensor, LongTensor, ...
half, float, double = float16, float32, float64   # noqa: A001
cfloat, cdouble = complex64, complex128
short, int, long = int16, int32, int64   # noqa: A001
# (no chalf/complex32: NumPy has no complex half, and an alias of complex64 would
# silently give another dtype than PyTorch's)

# the ops' public functions, as each op module's __all__ lists them
globals().update({k: getattr(m, k) for m in _ops.MODULES for k in m.__all__ if k not in globals()})

# ---- shape_more (ops/shape_more.py): torch.linalg.vander lives in tensorplay.linalg
linalg.vander = _ops.shape_more.linalg_vander
linalg.__all__ = list(linalg.__all__) + ["vander"]


def set_anomaly_enabled(enabled, check_nan=True):
    autograd.set_detect_anomaly(enabled, check_nan)


def is_anomaly_enabled():
    return autograd.is_anomaly_enabled()


def is_anomaly_check_nan_enabled():
    return autograd.is_anomaly_check_nan_enabled()


def typename(obj):
    """``obj.type()`` for a tensor; else the dotted name of ``obj`` (a class or
    function) or of its type, without ``builtins.``."""
    if isinstance(obj, Tensor):
        return obj.type()
    named = obj if hasattr(obj, "__qualname__") or hasattr(obj, "__name__") else type(obj)
    name = getattr(named, "__qualname__", None) or named.__name__
    module = getattr(named, "__module__", None) or ""
    return name if module in ("", "builtins") else f"{module}.{name}"


def is_neg(input):
    return input.is_neg()


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
    return input.numel()


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()


def result_type(tensor1, tensor2):
    return _result_dtype([tensor1, tensor2], 2)


def can_cast(from_, to):
    return from_.category <= to.category


def get_default_device():
    return device("cpu")


def set_default_device(device):
    """Only the CPU (or None) can be the default device: tensorplay computes there."""
    _check_device(device)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    if precision is not None:
        _print.PRECISION = precision
    if threshold is not None:
        _print.THRESHOLD = threshold
    if edgeitems is not None:
        _print.EDGEITEMS = edgeitems
    if linewidth is not None:
        _print.LINEWIDTH = linewidth
    if sci_mode is not None or profile is not None:
        _print.SCI_MODE = sci_mode
    if profile is not None:
        _print.PRECISION, _print.THRESHOLD, _print.EDGEITEMS, _print.LINEWIDTH = {
            "default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, 10 ** 9, 3, 80)}[profile]


__all__ = [
    # dtypes and their aliases
    "dtype", "bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
    "short", "int", "long", "float16", "bfloat16", "float32", "float64", "half", "float", "double",
    "complex64", "complex128", "cfloat", "cdouble",
    "get_default_dtype", "set_default_dtype", "promote_types", "result_type", "can_cast",
    # the tensor and its factories
    "Tensor", "Size", "device", "finfo", "iinfo", "get_default_device", "set_default_device",
    "from_dlpack", "tensor", "as_tensor", "asarray", "from_numpy", "frombuffer", "empty_strided",
    "scalar_tensor", "arange", "linspace", "logspace", "eye", "empty", "empty_like", "zeros",
    "zeros_like", "ones", "ones_like", "full", "full_like", "rand", "rand_like", "randn",
    "randn_like", "randint", "randint_like", "randperm",
    "is_tensor", "is_floating_point", "is_complex", "numel", "set_printoptions",
    "stft", "istft",
    # saving and loading (safetensors files)
    "save", "load", "set_num_threads", "get_num_threads", "vmap", *_settings.__all__,
    "inf", "nan", "pi", "e", "newaxis", "memory_format", "contiguous_format", "preserve_format",
    "layout", "strided", "typename", "is_neg",
    "channels_last", "channels_last_3d", "UntypedStorage", "TypedStorage", *_LEGACY_TYPES,
    # random state
    "Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
    "set_rng_state",
    # grad mode and anomaly detection
    "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
    "is_inference_mode_enabled", "is_inference", "set_anomaly_enabled", "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    # automatic mixed precision (tensorplay.amp)
    "autocast", "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
    "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
    "autocast_increment_nesting", "autocast_decrement_nesting", "get_autocast_cpu_dtype",
    "set_autocast_cpu_dtype", "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "get_autocast_gpu_dtype",
] + [k for k in _ops.EXPORTS if k not in ("bool", "float", "int")]


def is_inference(input):
    """Whether ``input`` was made under ``inference_mode`` (an inference tensor)."""
    return input.is_inference()


# top-level spellings PyTorch has for functions that live elsewhere here (``torch.exp_``,
# ``torch.dropout``...), those not defined above
from . import _toplevel  # noqa: E402
_new = [k for k in _toplevel.__all__ if k not in globals()]
globals().update({k: getattr(_toplevel, k) for k in _new})
__all__ += _new
del _new
