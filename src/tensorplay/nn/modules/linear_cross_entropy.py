"""``LinearCrossEntropyLoss`` (``torch.nn.LinearCrossEntropyLoss``): a ``Linear``
projection to logits and the cross-entropy of them, in one criterion."""
import math

from .. import functional as F
from .linear import Linear
from .loss import _WeightedLoss

__all__ = ["LinearCrossEntropyLoss"]


class LinearCrossEntropyLoss(_WeightedLoss):
    """``cross_entropy(self.linear(input), target)`` with ``num_classes`` classes
    (``(C, *out_features)`` logits per sample for a K-dimensional loss; the
    linear weight is stored flat, ``(C * prod(out_features), in_features)``,
    and reshaped in ``forward``, as PyTorch stores it).

    PyTorch's ``options`` selects a chunked kernel that never holds all the
    logits; tensorplay has only the reference computation (linear, then
    cross-entropy), which ``options`` leaves as it is."""

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None, dtype=None,
                 reduction="mean", weight=None, ignore_index=None, label_smoothing=0.0, options=None):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight=weight, size_average=None, reduce=None, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod((num_classes,) + tuple(out_features)), bias=bias,
                             device=device, dtype=dtype)
        self.options = options

    def forward(self, input, target):
        linear_weight = self.linear.weight.reshape((self.num_classes, *self.out_features,
                                                    self.linear.in_features))
        linear_bias = self.linear.bias.reshape((self.num_classes, *self.out_features)) \
            if self.linear.bias is not None else None
        return F.linear_cross_entropy(input, linear_weight, target, linear_bias=linear_bias, weight=self.weight,
                                      reduction=self.reduction, ignore_index=self.ignore_index,
                                      label_smoothing=self.label_smoothing, options=self.options)
