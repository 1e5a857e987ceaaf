"""Converting the weights of convolutions to a memory format (PyTorch's
``torch.nn.utils.memory_format``).

tensorplay's memory formats are real layouts (a NumPy array may have any
strides): after ``convert_conv2d_weight_memory_format(m, tensorplay.channels_last)``
each Conv2d/ConvTranspose2d weight has PyTorch's channels-last strides
(``weight.is_contiguous(memory_format=channels_last)``), the same values, and
is the same Parameter object.  Nothing computes faster for it (the convolutions
run on NumPy whatever the layout); the point is that code written for PyTorch
runs, with PyTorch's strides and ``is_contiguous`` answers.
"""
from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        # (PyTorch follows the clone with resize_(size, memory_format) to fix the strides
        # of size-1 dimensions; tensorplay's clone gives the format's strides already)
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Lay out the weight of every ``nn.Conv2d`` and ``nn.ConvTranspose2d`` in
    ``module`` (itself included, recursively) as ``memory_format``; returns
    ``module``.  A 4-d format (``channels_last``) or ``contiguous_format``."""
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Lay out the weight of every ``nn.Conv3d`` and ``nn.ConvTranspose3d`` in
    ``module`` (itself included, recursively) as ``memory_format``; returns
    ``module``.  A 5-d format (``channels_last_3d``) or ``contiguous_format``."""
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
