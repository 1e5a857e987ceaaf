"""``Identity``, ``Linear``, ``Bilinear``."""
import math

from .. import functional as F
from .. import init
from ._common import empty_param, factory_dtype, optional_param
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear"]


class Identity(Module):
    """Returns its input (any constructor arguments are ignored)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x W^T + b``; W is (out_features, in_features), both initialised
    uniformly in +-1/sqrt(in_features) (PyTorch's kaiming_uniform_(a=sqrt(5)))."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        dtype = factory_dtype(device, dtype)
        self.in_features = in_features
        self.out_features = out_features
        self.weight = empty_param(out_features, in_features, dtype=dtype)
        optional_param(self, "bias", bias, out_features, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, " \
               f"bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """``MultiheadAttention.out_proj``'s class (a Linear; the name is PyTorch's)."""


class Bilinear(Module):
    """``y = x1^T A x2 + b``, A of shape (out, in1, in2)."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        dtype = factory_dtype(device, dtype)
        if in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={in1_features})")
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = empty_param(out_features, in1_features, in2_features, dtype=dtype)
        optional_param(self, "bias", bias, out_features, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return f"in1_features={self.in1_features}, in2_features={self.in2_features}, " \
               f"out_features={self.out_features}, bias={self.bias is not None}"
