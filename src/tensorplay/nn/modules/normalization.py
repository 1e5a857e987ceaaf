"""``LayerNorm``, ``GroupNorm``, ``RMSNorm``, the batch norms and instance norms."""
import numbers

from ... import _creation
from ... import _dtype as D
from ..._warn import warn as _warn
from .. import functional as F
from .. import init
from ._common import factory_dtype, optional_param
from .module import Module

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
           "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "SyncBatchNorm"]


def _reset_affine(m):
    """The affine parts of a norm start as the identity: weight ones, bias zeros."""
    if m.weight is not None:
        init.ones_(m.weight)
    if getattr(m, "bias", None) is not None:
        init.zeros_(m.bias)


def _shape_tuple(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(normalized_shape)


class LayerNorm(Module):
    """Normalises over the last ``len(normalized_shape)`` dimensions; learned
    elementwise scale (ones) and shift (zeros)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None,
                 dtype=None):
        super().__init__()
        dtype = factory_dtype(device, dtype)
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        optional_param(self, "weight", elementwise_affine, *self.normalized_shape, dtype=dtype)
        optional_param(self, "bias", elementwise_affine and bias, *self.normalized_shape, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, " \
               f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *,
                 bias=True):
        super().__init__()
        dtype = factory_dtype(device, dtype)
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        optional_param(self, "weight", affine, num_channels, dtype=dtype)
        optional_param(self, "bias", affine and bias, num_channels, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, " \
               f"bias={self.bias is not None}"


class RMSNorm(Module):
    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        dtype = factory_dtype(device, dtype)
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        optional_param(self, "weight", elementwise_affine, *self.normalized_shape, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class _NormBase(Module):
    """Running statistics (buffers) and the affine parameters shared by the
    batch and instance norms."""
    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__()
        dtype = factory_dtype(device, dtype)
        dt = D.get_default_dtype() if dtype is None else D.to_dtype(dtype)
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        optional_param(self, "weight", affine, num_features, dtype=dtype)
        optional_param(self, "bias", affine and bias, num_features, dtype=dtype)
        if track_running_stats:
            self.register_buffer("running_mean", _creation.zeros(num_features, dtype=dt))
            self.register_buffer("running_var", _creation.ones(num_features, dtype=dt))
            self.register_buffer("num_batches_tracked", _creation.tensor(0, dtype=D.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        _reset_affine(self)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, " \
               f"affine={self.affine}, bias={self.bias is not None}, " \
               f"track_running_stats={self.track_running_stats}"

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:       # checkpoints older than the counter
                state_dict[key] = self.num_batches_tracked if self.num_batches_tracked is not None \
                    and self.num_batches_tracked.shape == () else _creation.tensor(0, dtype=D.int64)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_stats = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_stats else None,
                            self.running_var if use_stats else None, self.weight, self.bias,
                            bn_training, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")


class BatchNorm2d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.ndim != 4:
            raise ValueError(f"expected 4D input (got {input.ndim}D input)")


class BatchNorm3d(_BatchNorm):
    def _check_input_dim(self, input):
        if input.ndim != 5:
            raise ValueError(f"expected 5D input (got {input.ndim}D input)")


class SyncBatchNorm(_BatchNorm):
    """Batch norm over an input of any rank from 2 up, its statistics meant to be
    synchronised across the processes of ``process_group``.

    As PyTorch's on the CPU: in a single process (no process group initialised)
    it is ``BatchNorm`` over its input, and in eval mode too; in training mode
    with an initialised process group PyTorch refuses CPU tensors (its
    synchronised kernel is for GPUs), and so does this one, in its words."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")

    def _check_non_zero_input_channels(self, input):
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        if bn_training and self.training:
            from ... import distributed as _dist
            if _dist.is_initialized():
                raise ValueError("SyncBatchNorm expected input tensor to be on GPU or XPU or "
                                 "privateuseone")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every ``BatchNorm*d`` in it replaced by a
        ``SyncBatchNorm`` sharing its parameters and buffers (a new module if
        ``module`` itself is one, else ``module``, changed in place)."""
        out = module
        if isinstance(module, _BatchNorm):
            out = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                module.track_running_stats, process_group,
                                bias=module.bias is not None)
            if module.affine:
                out.weight = module.weight
                out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


class _InstanceNorm(_NormBase):
    _batched_ndim = None

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False,
                 device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias=bias)

    def forward(self, input):
        nd = self._batched_ndim
        if input.ndim not in (nd - 1, nd):
            raise ValueError(f"expected {nd - 1}D or {nd}D input (got {input.ndim}D input)")
        unbatched = input.ndim == nd - 1
        cdim = 0 if unbatched else 1        # (PyTorch names the dimension of the input as given)
        if input.shape[cdim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={cdim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[cdim]}.")
            _warn(f"input's size at dim={cdim} does not match num_features. You can silence this warning "
                  f"by not passing in num_features, which is not used because affine=False")
        if unbatched:
            input = input.unsqueeze(0)
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              # (PyTorch's: None means 0 here, the running stats stay as they
                              # are, where BatchNorm's None is a cumulative average)
                              self.momentum if self.momentum is not None else 0.0, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    _batched_ndim = 3


class InstanceNorm2d(_InstanceNorm):
    _batched_ndim = 4


class InstanceNorm3d(_InstanceNorm):
    _batched_ndim = 5
