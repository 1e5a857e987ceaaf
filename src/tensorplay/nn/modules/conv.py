"""``Conv1d/2d/3d``, ``ConvTranspose1d/2d/3d``: the layers over
the registry's ``convolution`` op (``nn.functional.conv*``)."""
from collections.abc import Iterable

from .. import functional as F
from ._common import empty_param, factory_dtype, optional_param
from .linear import Linear
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


def _ntuple(n):
    """PyTorch's ``_single``/``_pair``: an iterable as a tuple, anything else ``n`` times."""
    def parse(x):
        if isinstance(x, Iterable) and not isinstance(x, str):
            return tuple(x)
        return (x,) * n
    return parse


_single, _pair, _triple = _ntuple(1), _ntuple(2), _ntuple(3)

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    """What every convolution layer shares: the checks of its configuration,
    the weight (``(out, in/groups, *k)``, or ``(in, out/groups, *k)`` when
    transposed) and bias, PyTorch's initialisation and repr."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                 output_padding, groups, bias, padding_mode, device=None, dtype=None):
        super().__init__()
        dtype = factory_dtype(device, dtype)
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{ {'same', 'valid'} }")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation
        self.transposed, self.output_padding, self.groups = transposed, output_padding, groups
        self.padding_mode = padding_mode
        # F.pad's form of the padding (last dimension first), for the non-zero padding modes
        if isinstance(padding, str):
            pads = [0, 0] * len(kernel_size)
            if padding == "same":
                for i, (d, k) in enumerate(zip(reversed(dilation), reversed(kernel_size))):
                    total = d * (k - 1)
                    pads[2 * i], pads[2 * i + 1] = total // 2, total - total // 2
        else:
            pads = [p for p in reversed(padding) for _ in range(2)]
        self._reversed_padding_repeated_twice = pads
        shape = (in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups)
        self.weight = empty_param(*shape, *kernel_size, dtype=dtype)
        optional_param(self, "bias", bias, out_channels, dtype=dtype)
        self.reset_parameters()

    # Linear's: weight kaiming_uniform_(a=sqrt(5)), bias uniform in +-1/sqrt(fan_in) (fan_in from
    # the weight: in_channels/groups * prod(kernel_size), or out_channels/groups * ... when transposed)
    reset_parameters = Linear.reset_parameters

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    _nd = None
    _tuple = None
    _fn = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        t = self._tuple
        super().__init__(in_channels, out_channels, t(kernel_size), t(stride),
                         padding if isinstance(padding, str) else t(padding), t(dilation), False, t(0),
                         groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        fn = type(self)._fn
        if self.padding_mode != "zeros":
            input = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return fn(input, weight, bias, self.stride, (0,) * self._nd, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-d convolution over an (N, C_in, L) or (C_in, L) input; weight
    (out_channels, in_channels/groups, kernel_size)."""
    _nd, _tuple, _fn = 1, staticmethod(_single), staticmethod(F.conv1d)


class Conv2d(_Conv):
    """2-d convolution over an (N, C_in, H, W) or (C_in, H, W) input; weight
    (out_channels, in_channels/groups, kH, kW)."""
    _nd, _tuple, _fn = 2, staticmethod(_pair), staticmethod(F.conv2d)


class Conv3d(_Conv):
    """3-d convolution over an (N, C_in, D, H, W) or (C_in, D, H, W) input; weight
    (out_channels, in_channels/groups, kD, kH, kW)."""
    _nd, _tuple, _fn = 3, staticmethod(_triple), staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvNd):
    _nd = None
    _tuple = None
    _fn = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        t = self._tuple
        super().__init__(in_channels, out_channels, t(kernel_size), t(stride), t(padding), t(dilation), True,
                         t(output_padding), groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims,
                        dilation=None):
        """The ``output_padding`` that gives ``output_size`` (the module's own when None)."""
        if output_size is None:
            return _single(self.output_padding)
        lead = 2 if input.dim() == num_spatial_dims + 2 else 1
        output_size = list(output_size)
        if len(output_size) == lead + num_spatial_dims:
            output_size = output_size[lead:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must "
                             f"have {num_spatial_dims} or {lead + num_spatial_dims} elements (got "
                             f"{len(output_size)})")
        size_cls = type(input.size())
        lo = [(input.size(d + lead) - 1) * stride[d] - 2 * padding[d]
              + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1
              for d in range(num_spatial_dims)]
        hi = [m + stride[d] - 1 for d, m in enumerate(lo)]
        for size, a, b in zip(output_size, lo, hi):
            if size < a or size > b:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {lo} "
                                 f"to {hi} (for an input of {size_cls(input.size()[lead:])})")
        return [size - a for size, a in zip(output_size, lo)]

    def forward(self, input, output_size=None):
        if self.padding_mode != "zeros":
            raise ValueError(f"Only `zeros` padding mode is supported for {type(self).__name__}")
        op = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, self._nd,
                                  self.dilation)
        return type(self)._fn(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                              self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution (the adjoint of ``Conv1d`` in its input);
    weight (in_channels, out_channels/groups, kernel_size)."""
    _nd, _tuple, _fn = 1, staticmethod(_single), staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution (the adjoint of ``Conv2d`` in its input);
    weight (in_channels, out_channels/groups, kH, kW)."""
    _nd, _tuple, _fn = 2, staticmethod(_pair), staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution (the adjoint of ``Conv3d`` in its input);
    weight (in_channels, out_channels/groups, kD, kH, kW)."""
    _nd, _tuple, _fn = 3, staticmethod(_triple), staticmethod(F.conv_transpose3d)
