"""``LocalResponseNorm``, ``ChannelShuffle`` and ``TripletMarginWithDistanceLoss``:
layers over ``nn.functional``'s compositions (and the registry's
``channel_shuffle``)."""
import numpy as _np

from ..._tensor import _wrap
from ...ops.core import matmul as _matmul
from .. import functional as F
from .distance import PairwiseDistance
from .loss import _Loss
from .module import Module

__all__ = ["LocalResponseNorm", "ChannelShuffle", "TripletMarginWithDistanceLoss", "CrossMapLRN2d"]


class LocalResponseNorm(Module):
    """Each element divided by ``(k + alpha * mean of squares over size
    neighbouring channels) ** beta``."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(Module):
    """Local response normalisation across channels of a 4-D input, as the legacy
    (Lua Torch) layer PyTorch keeps: ``x / (k + alpha / size * s) ** beta``, ``s``
    the sum of squares over the channels ``c - pre + 1 .. c + pre - 1``
    (``pre = int((size - 1) / 2 + 1)``) and, as PyTorch's running sum never
    takes it out, channel 0 too.  The values are PyTorch's; the gradient is
    that function's exact derivative, through tensorplay's ops (PyTorch's
    hand-written backward assumes the window without channel 0 and fails
    gradcheck)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        c = input.shape[1]
        pre = int((self.size - 1) / 2 + 1)
        window = _np.zeros((c, c), dtype=input._data.dtype)
        for i in range(c):
            window[i, 0] = 1
            window[i, max(0, i - pre + 1):min(i + pre - 1, c - 1) + 1] = 1
        # (N, C, H, W) -> sum over the window: the channels last, times window^T
        sums = _matmul((input * input).movedim(1, -1), _wrap(window.T.copy())).movedim(-1, 1)
        return input * (sums * (self.alpha / self.size) + self.k).pow(-self.beta)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class ChannelShuffle(Module):
    """Reorders the channels of an (N, C, *) input in ``groups`` (ShuffleNet)."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


class TripletMarginWithDistanceLoss(_Loss):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with any distance function ``d``
    (``PairwiseDistance()`` by default)."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             f"instead")
        self.distance_function = distance_function if distance_function is not None else PairwiseDistance()
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(anchor, positive, negative,
                                                   distance_function=self.distance_function, margin=self.margin,
                                                   swap=self.swap, reduction=self.reduction)
