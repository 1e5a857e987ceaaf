"""Automatic mixed precision: ``autocast`` (PyTorch 2.13's CPU autocast).

Autocast is a transform on the registry's interception point
(``ops._registry.TRANSFORMS``), present there only while CPU autocast is
enabled, so that it costs nothing otherwise.  Its ``process(op, args)`` looks
up the op's name in two lists, PyTorch's CPU "lower precision" ops (matmuls,
convolutions, linear, attention: every floating tensor argument other than
float64 is cast to the autocast dtype) and its "float32" ops (losses, FFTs,
most of linalg, some pools and pads: half and bfloat16 arguments are cast to
float32), casts with ``Tensor.to`` (so the casts are recorded and
differentiable: the backward runs in the forward's dtypes and gradients reach
the inputs in their own dtypes), and hands the call on (``dispatch``) to the
transforms below it.  Casts of float32 leaves that require grad (weights) to
the lower precision dtype are cached until the outermost autocast context
exits, as PyTorch's weight cache.

A custom ``autograd.Function`` is handed on unchanged, and the ops its
``forward`` runs meet autocast, as in PyTorch (``custom_fwd(cast_inputs=)``
turns that off).

The state (enabled flag and dtype per device type, cache flag, nesting
depth) is process-wide here, like the transform stack it drives; PyTorch's is
per thread.  Only "cpu" autocast changes computation; the flags of the other
device types are kept and reported, and "cuda" is disabled with PyTorch's
warning on this CPU-only library.
"""
import collections.abc
import functools
import warnings
import weakref

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, device as _device
from ..autograd.function import _apply
from ..ops import _registry
from ..ops.inplace import apply_inplace
from ..ops._registry import TRANSFORMS, dispatch

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available"]

_F64 = np.dtype(np.float64)
_LOWP = D.LOW_PRECISION

# PyTorch's CPU autocast lists (aten/src/ATen/autocast_mode.h), by tensorplay op name.
# lower precision: F.linear is "linear", conv and conv_transpose are "convolution",
# scaled_dot_product_attention is "attention"; matmul spells itself "mm", "mv", "dot",
# "bmm" or "matmul" by its operands' ranks (so torch.mv/torch.dot called by name are
# cast here, where PyTorch casts them only when they come from matmul)
LOWER_PRECISION_OPS = frozenset({
    "convolution", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "bmm", "mm", "mv", "dot", "linalg_vecdot",
    "baddbmm", "addmm", "addbmm", "linear", "matmul", "prelu", "attention",
    "scaled_dot_product_attention", "multi_head_attention_forward", "_native_multi_head_attention",
})
FLOAT32_OPS = frozenset({
    "avg_pool3d", "binary_cross_entropy", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d",
    "polar", "prod", "prod_dim", "quantile", "nanquantile", "stft", "cdist", "trace",
    "view_as_complex", "cholesky", "cholesky_inverse", "cholesky_solve", "inverse", "lu_solve",
    "linalg_lu_solve", "orgqr", "ormqr", "pinverse", "linalg_pinv", "max_pool3d",
    "max_pool3d_with_indices", "max_unpool2d", "max_unpool3d", "adaptive_avg_pool3d",
    "reflection_pad", "reflection_pad1d", "reflection_pad2d", "replication_pad",
    "replication_pad1d", "replication_pad2d", "replication_pad3d", "mse_loss",
    "cosine_embedding_loss", "nll_loss", "nll_loss2d", "hinge_embedding_loss",
    "poisson_nll_loss", "smooth_l1_loss", "cross_entropy", "cross_entropy_loss", "l1_loss",
    "huber_loss", "margin_ranking_loss", "soft_margin_loss", "triplet_margin_loss",
    "multi_margin_loss", "ctc_loss", "kl_div", "multilabel_margin_loss",
    "binary_cross_entropy_with_logits", "_fft_r2c", "_fft_c2c", "_fft_c2r", "fft_fft",
    "fft_ifft", "fft_fft2", "fft_ifft2", "fft_fftn", "fft_ifftn", "fft_rfft", "fft_irfft",
    "fft_rfft2", "fft_irfft2", "fft_rfftn", "fft_irfftn", "fft_hfft", "fft_ihfft",
    "linalg_cond", "linalg_matrix_rank", "linalg_solve", "linalg_cholesky", "linalg_svdvals",
    "linalg_eigvals", "linalg_eigvalsh", "linalg_inv", "linalg_householder_product",
    "linalg_tensorinv", "linalg_tensorsolve", "fake_quantize_per_tensor_affine", "geqrf",
    "_lu_with_info", "linalg_lu_factor_ex", "qr", "svd", "triangular_solve",
    "fractional_max_pool2d", "fractional_max_pool3d", "adaptive_max_pool3d",
    "multilabel_margin_loss_forward", "linalg_qr", "linalg_cholesky_ex", "linalg_svd",
    "linalg_eig", "linalg_eigh", "linalg_lstsq", "linalg_inv_ex",
})

_DEFAULT_DTYPES = {"cpu": D.bfloat16, "cuda": D.float16, "xpu": D.float16, "mps": D.float16,
                   "hpu": D.bfloat16, "xla": D.bfloat16, "mtia": D.float16, "ipu": D.float16,
                   "maia": D.bfloat16}


class _State:
    def __init__(self):
        self.enabled = {}           # device type -> bool
        self.dtype = dict(_DEFAULT_DTYPES)
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}             # id(weight) -> (weakref to it, its cast)


_state = _State()


def _device_type(device_type):
    """PyTorch's parse of a device string (its RuntimeError for an unknown type)."""
    return _device(device_type).type


def _check_type(fname, device_type):
    if not isinstance(device_type, str):
        raise TypeError(f"{fname}(): argument 'device_type' (position 1) must be str, not "
                        f"{type(device_type).__name__}")


class _Autocast:
    """The transform on ``TRANSFORMS`` while CPU autocast is enabled."""
    _pending = None             # the Function call handed below on its way to forward

    def process(self, op, args):
        n = len(args) - op.n_kw if op.variadic else min(op.n_in, len(args))
        new = self._cast_args(op.name, args, n)
        return dispatch(op, new if new is not None else args)

    def cast_inputs(self, name, tensors):
        """The registry's ``autocast_inputs`` hook: ``tensors`` cast as the op
        ``name`` casts them here, for the public functions that check their
        operands' dtypes before they dispatch (PyTorch casts before those checks)."""
        new = self._cast_args(name, tensors, len(tensors))
        return tuple(new) if new is not None else tensors

    def _cast_args(self, name, args, n):
        """A copy of ``args`` with the first ``n`` cast for op ``name``, or None."""
        if name in LOWER_PRECISION_OPS:
            target, lower = _state.dtype["cpu"].np, True
        elif name in FLOAT32_OPS:
            target, lower = np.dtype(np.float32), False
        else:
            return None
        new = None
        for i in range(n):
            a = args[i]
            if not isinstance(a, Tensor):
                continue
            dt = a._data.dtype
            if dt is target or dt == target:
                continue
            if lower:
                if not (dt.kind == "f" or dt in _LOWP) or dt == _F64:
                    continue
            elif dt not in _LOWP:
                continue
            if new is None:
                new = list(args)
            new[i] = self._cast(a, target, lower)
        return new

    def _cast(self, a, target, lower):
        # PyTorch's weight cache: a float32 leaf that requires grad, not a view, cast to
        # the lower precision dtype, while no forward-mode level is open (a tangent the
        # weight takes later would be missing from its cached cast)
        if lower and _state.cache_enabled and a._rg and a._gfn is None and not a._is_view() \
                and a._data.dtype == np.float32 \
                and not any(getattr(t, "forward_level", False) for t in TRANSFORMS):
            hit = _state.cache.get(id(a))
            if hit is not None and hit[0]() is a:
                return hit[1]
            out = a.to(D._FROM_NP[target])
            _state.cache[id(a)] = (weakref.ref(a), out)
            return out
        return a.to(D._FROM_NP[target])

    def process_inplace(self, tensor, f, args, kwargs, name):
        """An in-place op (``a.addmm_(b, c)``) is not autocast (PyTorch's rule: only
        out-of-place ops are eligible): it runs with this transform off the stack."""
        i = _remove(self)
        hook = getattr(_registry, "AUTOCAST", None)
        prev = hook[0] if hook is not None else None
        if hook is not None:
            hook[0] = None
        try:
            return apply_inplace(tensor, f, args, kwargs, name)
        finally:
            if hook is not None:
                hook[0] = prev
            if i is not None:
                TRANSFORMS.insert(min(i, len(TRANSFORMS)), self)

    def process_function(self, cls, args, kwargs):
        """A custom Function goes on unchanged to the levels below; autocast
        waits for it at the bottom of the stack so that the ops of its
        ``forward`` are autocast (PyTorch's behaviour)."""
        if self._pending is cls:
            # the call came back down to us: run forward with autocast on
            self._pending = None
            TRANSFORMS.append(self)
            try:
                return _apply(cls, args, kwargs)
            finally:
                _remove(self)
        if not TRANSFORMS:
            TRANSFORMS.append(self)
            try:
                return _apply(cls, args, kwargs)
            finally:
                _remove(self)
        prev = self._pending
        self._pending = cls
        TRANSFORMS.insert(0, self)
        try:
            return cls.apply(*args, **kwargs)
        finally:
            self._pending = prev
            if TRANSFORMS and TRANSFORMS[0] is self:
                del TRANSFORMS[0]
            else:
                _remove(self)


def _remove(t):
    for i in range(len(TRANSFORMS) - 1, -1, -1):
        if TRANSFORMS[i] is t:
            del TRANSFORMS[i]
            return i
    return None


_TRANSFORM = _Autocast()


def _activate(on, slot=None):
    """Put the transform on the stack (at ``slot``, where an enclosing context
    found it, else on top) or take it off."""
    hook = getattr(_registry, "AUTOCAST", None)     # (see cast_inputs)
    if hook is not None:
        hook[0] = _TRANSFORM.cast_inputs if on else None
    present = _index() is not None
    if on and not present:
        if slot is None or slot > len(TRANSFORMS):
            TRANSFORMS.append(_TRANSFORM)
        else:
            TRANSFORMS.insert(slot, _TRANSFORM)
    elif not on and present:
        _remove(_TRANSFORM)


def _index():
    for i, t in enumerate(TRANSFORMS):
        if t is _TRANSFORM:
            return i
    return None


# ------------------------------------------------------------------ the state functions
def is_autocast_available(device_type):
    """Whether autocast is available on ``device_type`` (PyTorch's answer for a
    known type; its RuntimeError for an unknown one)."""
    _check_type("_is_autocast_available", device_type)
    _device_type(device_type)
    return True


def is_autocast_enabled(device_type=None):
    """Whether autocast is enabled for ``device_type`` (no argument: CUDA)."""
    if device_type is None:
        return _state.enabled.get("cuda", False)
    _check_type("is_autocast_enabled", device_type)
    return _state.enabled.get(_device_type(device_type), False)


def set_autocast_enabled(device_type, enabled=None):
    """Enable or disable autocast for ``device_type`` (``set_autocast_enabled(True)``:
    CUDA's)."""
    if enabled is None:                 # the one-argument form: CUDA's flag
        if not isinstance(device_type, bool):
            raise TypeError(f"set_autocast_enabled(): argument 'enabled' (position 1) must be "
                            f"bool, not {type(device_type).__name__}")
        device_type, enabled = "cuda", device_type
    _check_type("set_autocast_enabled", device_type)
    if not isinstance(enabled, bool):
        raise TypeError(f"set_autocast_enabled(): argument 'enabled' (position 2) must be bool, "
                        f"not {type(enabled).__name__}")
    _set_enabled(_device_type(device_type), enabled)


def _set_enabled(dev, enabled, slot=None):
    _state.enabled[dev] = enabled
    if dev == "cpu":
        _activate(enabled, slot)


def get_autocast_dtype(device_type):
    """The dtype autocast casts to on ``device_type``."""
    _check_type("get_autocast_dtype", device_type)
    dev = _device_type(device_type)
    return _state.dtype.get(dev, D.float16)


def set_autocast_dtype(device_type, dtype):
    _check_type("set_autocast_dtype", device_type)
    if not isinstance(dtype, D.dtype):
        raise TypeError(f"set_autocast_dtype(): argument 'dtype' (position 2) must be "
                        f"torch.dtype, not {type(dtype).__name__}")
    _state.dtype[_device_type(device_type)] = dtype


def is_autocast_cache_enabled():
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled):
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    _state.cache_enabled = enabled


def clear_autocast_cache():
    _state.cache.clear()


def autocast_increment_nesting():
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting():
    _state.nesting -= 1
    return _state.nesting


def _deprecated(old, new):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def get_autocast_gpu_dtype():
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def set_autocast_cpu_dtype(dtype):
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


# ------------------------------------------------------------------ autocast
def _autocast_decorator(instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with instance:
            return func(*args, **kwargs)
    return decorate_autocast


class autocast:
    """Context manager and decorator: the ops of the region run in mixed
    precision (see the module docstring).  ``autocast(device_type, dtype=None,
    enabled=True, cache_enabled=None)`` as PyTorch's."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(self.device):     # (raises for an unknown type)
            raise RuntimeError(f"User specified an unsupported autocast device_type '{self.device}'")
        if _device_type(device_type) == "privateuseone":
            raise AssertionError(
                "Tried to use AMP with the `privateuseone` backend, but the backend has not "
                "registered a module or  the module miss some necessary funcs. The backend should "
                "register a module by `torch._register_device_module`, and the module must have "
                "these funcs: \n`get_amp_supported_dtype() -> List[torch.dtype]`. \n")
        supported = (D.bfloat16, D.float16)
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        name = self.device.upper()
        if enabled:
            if self.device == "cuda":
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                              stacklevel=2)
                enabled = False
            elif self.fast_dtype not in supported:
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. "
                              f"Disabling autocast.\n{name} Autocast only supports dtypes of "
                              "torch.bfloat16, torch.float16 currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        self._slot = _index()           # (put back there by __exit__)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        _set_enabled(_device_type(self.device), self.prev, self._slot)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)")
        return _autocast_decorator(self, func)


# ------------------------------------------------------------------ custom Functions
def _cast(value, device_type, dtype):
    if isinstance(value, Tensor):
        ok = value.is_floating_point() and value.device.type == device_type \
            and value._data.dtype != _F64
        return value.to(dtype) if ok else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        it = (_cast(v, device_type, dtype) for v in value)
        return type(value)(it) if isinstance(value, (list, tuple)) else it
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom Function's ``forward``: with ``cast_inputs``, inside
    an autocast region the floating inputs are cast to it and ``forward`` runs
    with autocast disabled; without, ``forward`` runs with the current state."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        on = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if on:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs),
                           **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom Function's ``backward``: it runs with the autocast
    state its ``forward`` ran with."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
