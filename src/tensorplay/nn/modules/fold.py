"""``Unfold`` (im2col) and ``Fold`` (col2im): ``nn.functional.unfold``/``fold``
with fixed arguments."""
from .. import functional as F
from .module import Module

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    """(N, C*kh*kw, L) -> (N, C, *output_size), summing overlapping blocks."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return f"output_size={self.output_size}, kernel_size={self.kernel_size}, " \
               f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"


class Unfold(Module):
    """(N, C, H, W) -> (N, C*kh*kw, L): every sliding block as a column."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, " \
               f"stride={self.stride}"
