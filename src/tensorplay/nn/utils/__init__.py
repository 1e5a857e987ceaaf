"""tensorplay.nn.utils: gradient clipping, parameters <-> vector, ``rnn.pad_sequence``."""
from . import rnn, stateless  # noqa: F401
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, \
    get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from . import parametrizations, parametrize, prune  # noqa: F401   (prune: PyTorch imports it on demand)
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights
from .init import skip_init
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm", "parameters_to_vector", "vector_to_parameters", "rnn", "stateless",
           "parametrizations", "parametrize", "remove_spectral_norm", "spectral_norm",
           "remove_weight_norm", "weight_norm", "fuse_conv_bn_eval", "fuse_conv_bn_weights",
           "fuse_linear_bn_eval", "fuse_linear_bn_weights", "skip_init",
           "convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]
