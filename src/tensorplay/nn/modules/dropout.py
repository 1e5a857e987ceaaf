"""Dropout modules: active in training mode only."""
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    _fn = None

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return type(self)._fn(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    _fn = F.dropout


class Dropout1d(_DropoutNd):
    _fn = F.dropout1d


class Dropout2d(_DropoutNd):
    _fn = F.dropout2d


class Dropout3d(_DropoutNd):
    _fn = F.dropout3d


class AlphaDropout(_DropoutNd):
    _fn = F.alpha_dropout


class FeatureAlphaDropout(_DropoutNd):
    _fn = F.feature_alpha_dropout
