"""Lazy modules (``torch.nn.modules.lazy``): layers whose input size is
inferred at the first call.

A lazy layer is built with ``UninitializedParameter``/``UninitializedBuffer``
in place of the tensors whose shape depends on the input's feature or channel
count.  ``LazyModuleMixin`` registers a forward pre-hook that, on the first
call, runs ``initialize_parameters(*args, **kwargs)`` (which reads that count,
materializes the tensors, the same objects, and runs ``reset_parameters``),
removes itself and turns the module into its ``cls_to_become`` (``LazyLinear``
becomes ``Linear``).  An optimizer made before that call holds the same
parameter objects, so it steps them afterwards.

Loading a state dict into a lazy module materializes each uninitialised
tensor the checkpoint has a value for, with that value's shape (the module
stays lazy until its first call, which checks the input against it).
"""
import itertools

from ..._autograd.grad_mode import no_grad
from ..._creation import tensor as _tensor
from ... import _dtype as D
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter, is_lazy
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .module import RemovableHandle, _size_repr
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d,
                            InstanceNorm3d, _BatchNorm, _InstanceNorm, _NormBase)

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d",
           "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]


class LazyModuleMixin:
    """Mixin for modules whose parameters' shapes are inferred from their first
    input (``class LazyMLP(LazyModuleMixin, Module)``; it comes first among the
    bases).  A subclass defines ``initialize_parameters(*args, **kwargs)``,
    which materializes every uninitialised parameter and buffer, and may name
    the class the module becomes afterwards in ``cls_to_become``."""
    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # an uninitialised tensor is saved as itself (it has nothing to detach)
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars or is_lazy(p) else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars or is_lazy(b) else b.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        """Materialize each uninitialised tensor that the checkpoint has an
        initialised value for, with that value's shape (the copy follows)."""
        for name, t in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if t is not None and key in state_dict and is_lazy(t):
                value = state_dict[key]
                if not is_lazy(value):
                    with no_grad():
                        t.materialize(value.shape)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # An uninitialised tensor whose checkpoint value is uninitialised too has no shape to
        # compare (Module's loader would ask for one): the pair matches, with nothing to copy.
        # (With assign=True a parameter would take the checkpoint's: PyTorch's loader then
        # fails on its requires_grad_, an error reported as PyTorch reports it.)
        hidden = {}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for store in (self._parameters, self._buffers):
            for name, t in store.items():
                key = prefix + name
                if is_lazy(t) and is_lazy(state_dict.get(key)) and \
                        (store is self._parameters or name not in self._non_persistent_buffers_set):
                    hidden[key] = (name, t, state_dict.pop(key))
        try:
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                          unexpected_keys, error_msgs)
        finally:
            for key, (name, t, value) in hidden.items():
                state_dict[key] = value
                if key in missing_keys:
                    missing_keys.remove(key)
        for key, (name, t, value) in hidden.items():
            if not assign:
                continue
            if isinstance(t, Parameter):
                try:
                    value.requires_grad_(t.requires_grad)
                except Exception as ex:  # noqa: BLE001  (collected, as Module's loader does)
                    size = _size_repr((0,))
                    error_msgs.append(f'While copying the parameter named "{key}", whose dimensions '
                                      f'in the model are {size} and whose dimensions in the '
                                      f'checkpoint are {size}, an exception occurred : {ex.args}.')
            else:
                setattr(self, name, value)

    def initialize_parameters(self, *args, **kwargs):
        """Materialize the uninitialised parameters and buffers from the
        arguments of the first call (each lazy class defines it)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for "
                                  f"{self.__class__.__name__}")

    def has_uninitialized_params(self):
        """Whether any of this module's own parameters or buffers is still uninitialised."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(),
                                                       self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        """The forward pre-hook of the first call: initialise, then stop being lazy."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. "
                           "Run a dummy forward pass to correctly initialize the modules")

    def share_memory(self):
        for t in itertools.chain(self._parameters.values(), self._buffers.values()):
            if is_lazy(t):
                t.share_memory_()           # (raises, as PyTorch's)
        return super().share_memory()


# ---------------------------------------------------------------- Linear
class LazyLinear(LazyModuleMixin, Linear):
    """``Linear`` whose ``in_features`` is the last size of its first input."""
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False, device, dtype)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            # (materialized by a loaded state dict: the input must fit the loaded weight)
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not "
                                     f"equal to in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


# ---------------------------------------------------------------- convolutions
class _LazyConvXdMixin(LazyModuleMixin):
    """What the lazy convolutions share: ``in_channels`` from the input's
    channel dimension (1 when batched, 0 when not)."""
    _spatial = None

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if not isinstance(self.weight, UninitializedParameter):
                raise AssertionError("self.weight must be an UninitializedParameter")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups)
            else:
                shape = (self.out_channels, self.in_channels // self.groups)
            self.weight.materialize(shape + tuple(self.kernel_size))
            if self.bias is not None:
                if not isinstance(self.bias, UninitializedParameter):
                    raise AssertionError("self.bias must be an UninitializedParameter")
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_num_spatial_dims(self):
        return self._spatial

    def _get_in_channels(self, input):
        unbatched = self._get_num_spatial_dims() + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input "
                               f"to {self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]


class _LazyConv(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        # (in and out channels 0, no bias: nothing is made that the first call would replace)
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                         device, dtype)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                         padding_mode, device, dtype)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)


class LazyConv1d(_LazyConv, Conv1d):
    """``Conv1d`` whose ``in_channels`` is read from its first input."""
    cls_to_become = Conv1d
    _spatial = 1


class LazyConv2d(_LazyConv, Conv2d):
    """``Conv2d`` whose ``in_channels`` is read from its first input."""
    cls_to_become = Conv2d
    _spatial = 2


class LazyConv3d(_LazyConv, Conv3d):
    """``Conv3d`` whose ``in_channels`` is read from its first input."""
    cls_to_become = Conv3d
    _spatial = 3


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """``ConvTranspose1d`` whose ``in_channels`` is read from its first input."""
    cls_to_become = ConvTranspose1d
    _spatial = 1


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """``ConvTranspose2d`` whose ``in_channels`` is read from its first input."""
    cls_to_become = ConvTranspose2d
    _spatial = 2


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """``ConvTranspose3d`` whose ``in_channels`` is read from its first input."""
    cls_to_become = ConvTranspose3d
    _spatial = 3


# ---------------------------------------------------------------- batch and instance norms
class _LazyNormBase(LazyModuleMixin, _NormBase):
    """The lazy norms: ``num_features`` is the size of the first input's
    dimension 1; the affine parameters and running statistics wait for it."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True):
        # (no affine parameters, no statistics: nothing is made that the first call would replace)
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _tensor(0, dtype=D.int64)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                if not isinstance(self.weight, UninitializedParameter):
                    raise AssertionError("self.weight must be an UninitializedParameter")
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    if not isinstance(self.bias, UninitializedParameter):
                        raise AssertionError("self.bias must be an UninitializedParameter")
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """``BatchNorm1d`` whose ``num_features`` is read from its first input."""
    cls_to_become = BatchNorm1d
    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """``BatchNorm2d`` whose ``num_features`` is read from its first input."""
    cls_to_become = BatchNorm2d
    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """``BatchNorm3d`` whose ``num_features`` is read from its first input."""
    cls_to_become = BatchNorm3d
    _check_input_dim = BatchNorm3d._check_input_dim


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """``InstanceNorm1d`` whose ``num_features`` is read from its first input
    (affine and tracking running statistics by default, as PyTorch's)."""
    cls_to_become = InstanceNorm1d
    _batched_ndim = 3


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """``InstanceNorm2d`` whose ``num_features`` is read from its first input."""
    cls_to_become = InstanceNorm2d
    _batched_ndim = 4


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """``InstanceNorm3d`` whose ``num_features`` is read from its first input."""
    cls_to_become = InstanceNorm3d
    _batched_ndim = 5
