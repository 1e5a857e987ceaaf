"""The padding layers: ``ConstantPad1d/2d/3d``, ``ZeroPad1d/2d/3d``,
``ReflectionPad1d/2d/3d``, ``ReplicationPad1d/2d/3d``, ``CircularPad1d/2d/3d``
(``nn.functional.pad`` with a fixed ``padding``: an int pads every side by it,
a tuple is ``(left, right, top, bottom, front, back)``)."""
from .. import functional as F
from .conv import _ntuple
from .module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


class _PadNd(Module):
    """``F.pad(input, self.padding, mode)``; ``_nd`` spatial dimensions."""
    _nd = None
    _mode = None

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(2 * self._nd)(padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    _mode = "constant"

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dimension with ``value``."""
    _nd = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dimensions with ``value``."""
    _nd = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dimensions with ``value``."""
    _nd = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd, ConstantPad1d):
    """Pads the last dimension with zeros."""


class ZeroPad2d(_ZeroPadNd, ConstantPad2d):
    """Pads the last two dimensions with zeros."""


class ZeroPad3d(_ZeroPadNd, ConstantPad3d):
    """Pads the last three dimensions with zeros."""


class ReflectionPad1d(_PadNd):
    """Pads the last dimension with its reflection (the edge not repeated)."""
    _nd, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Pads the last two dimensions with their reflection."""
    _nd, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Pads the last three dimensions with their reflection."""
    _nd, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Pads the last dimension by repeating its edge values."""
    _nd, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Pads the last two dimensions by repeating their edge values."""
    _nd, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Pads the last three dimensions by repeating their edge values."""
    _nd, _mode = 3, "replicate"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        if input.dim() not in (self._nd + 1, self._nd + 2):
            raise ValueError(f"expected {self._nd + 1}D or {self._nd + 2}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pads the last dimension periodically (wrapping around)."""
    _nd = 1


class CircularPad2d(_CircularPadNd):
    """Pads the last two dimensions periodically."""
    _nd = 2


class CircularPad3d(_CircularPadNd):
    """Pads the last three dimensions periodically."""
    _nd = 3
