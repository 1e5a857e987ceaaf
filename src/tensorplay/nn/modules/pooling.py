"""``MaxPool1d/2d/3d``, ``AvgPool1d/2d/3d``, ``AdaptiveAvgPool1d/2d/3d``,
``AdaptiveMaxPool1d/2d/3d``: the layers over the registry's pooling ops (``nn.functional.*_pool*``)."""
from .. import functional as F
from .conv import _pair, _single
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
           "LPPool1d", "LPPool2d", "LPPool3d", "MaxUnpool1d", "MaxUnpool2d"]


class _MaxPoolNd(Module):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return self._fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                        ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, " \
               f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"


class MaxPool1d(_MaxPoolNd):
    """1-d max pooling over an (N, C, L) or (C, L) input (with ``return_indices``,
    also each maximum's index)."""
    _fn = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """2-d max pooling over an (N, C, H, W) or (C, H, W) input (with
    ``return_indices``, also each maximum's flat index into its H*W plane)."""
    _fn = staticmethod(F.max_pool2d)


class _AvgPoolNd(Module):
    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """1-d average pooling over an (N, C, L) or (C, L) input."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPool2d3d(_AvgPoolNd):
    """What AvgPool2d and AvgPool3d share: their arguments, ``_fn`` their function."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return self._fn(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                        self.count_include_pad, self.divisor_override)


class AvgPool2d(_AvgPool2d3d):
    """2-d average pooling over an (N, C, H, W) or (C, H, W) input."""
    _fn = staticmethod(F.avg_pool2d)


class _AdaptiveAvgPoolNd(Module):
    _fn = None

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return self._fn(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling of an (N, C, L) or (C, L) input to ``output_size`` positions."""
    _fn = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling of an (N, C, H, W) or (C, H, W) input to ``output_size``
    (an int, or a pair whose None entries keep the input's size)."""
    _fn = staticmethod(F.adaptive_avg_pool2d)


class _AdaptiveMaxPoolNd(Module):
    _fn = None

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        return self._fn(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling of an (N, C, L) or (C, L) input to ``output_size`` positions
    (with ``return_indices``, also where each maximum is)."""
    _fn = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling of an (N, C, H, W) or (C, H, W) input to ``output_size`` (an
    int, or a pair whose None entries keep the input's size)."""
    _fn = staticmethod(F.adaptive_max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """3-d max pooling over an (N, C, D, H, W) or (C, D, H, W) input (with
    ``return_indices``, also each maximum's flat index into its D*H*W volume)."""
    _fn = staticmethod(F.max_pool3d)


class AvgPool3d(_AvgPool2d3d):
    """3-d average pooling over an (N, C, D, H, W) or (C, D, H, W) input."""
    _fn = staticmethod(F.avg_pool3d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling of an (N, C, D, H, W) or (C, D, H, W) input to ``output_size``
    (an int, or a triple whose None entries keep the input's size)."""
    _fn = staticmethod(F.adaptive_avg_pool3d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling of an (N, C, D, H, W) or (C, D, H, W) input to ``output_size``
    (an int, or a triple whose None entries keep the input's size)."""
    _fn = staticmethod(F.adaptive_max_pool3d)


class _LPPoolNd(Module):
    _fn = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return type(self)._fn(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, " \
               f"ceil_mode={self.ceil_mode}"


class LPPool1d(_LPPoolNd):
    """1-d power-average pooling: ``(sum over the window of x**p) ** (1/p)``."""
    _fn = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """2-d power-average pooling: ``(sum over the window of x**p) ** (1/p)``."""
    _fn = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """3-d power-average pooling: ``(sum over the window of x**p) ** (1/p)``."""
    _fn = staticmethod(F.lp_pool3d)


class _MaxUnpoolNd(Module):
    _n = None
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        t = _single if self._n == 1 else _pair
        self.kernel_size = t(kernel_size)
        self.stride = t(stride if stride is not None else kernel_size)
        self.padding = t(padding)

    def forward(self, input, indices, output_size=None):
        return type(self)._fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The inverse of ``MaxPool1d`` given its indices (zeros elsewhere)."""
    _n, _fn = 1, staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """The inverse of ``MaxPool2d`` given its indices (zeros elsewhere)."""
    _n, _fn = 2, staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """The inverse of ``MaxPool3d`` given its indices (zeros elsewhere)."""
    _n, _fn = 3, staticmethod(F.max_unpool3d)

    def __init__(self, kernel_size, stride=None, padding=0):
        Module.__init__(self)
        from .conv import _triple
        self.kernel_size = _triple(kernel_size)
        self.stride = _triple(stride if stride is not None else kernel_size)
        self.padding = _triple(padding)


class _FractionalMaxPoolNd(Module):
    """Fractional max pooling: ``kernel_size`` windows at pseudo-random steps that
    give ``output_size`` (or ``output_ratio`` times the input's size).  Given
    ``_random_samples`` (a buffer, (N, C, n) in [0, 1)) the windows are fixed;
    otherwise each call draws its own from tensorplay's generator."""
    _n = None
    _fn = None

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        from .conv import _triple
        n = self._n
        t = _pair if n == 2 else _triple
        if n == 3 and ((isinstance(kernel_size, int) and kernel_size <= 0) or (
                isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size))):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = t(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = t(output_size) if output_size is not None else None
        self.output_ratio = t(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{type(self).__name__} requires specifying either an output size, or a pooling "
                             f"ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio[:n]):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return type(self)._fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                              _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-d fractional max pooling over an (N, C, H, W) or (C, H, W) input."""
    _n, _fn = 2, staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-d fractional max pooling over an (N, C, T, H, W) or (C, T, H, W) input."""
    _n, _fn = 3, staticmethod(F.fractional_max_pool3d)


__all__ += ["MaxUnpool3d", "FractionalMaxPool2d", "FractionalMaxPool3d"]
