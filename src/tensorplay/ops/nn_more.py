"""More nn ops: ``max_unpool2d`` (the inverse of max pooling with its indices,
also behind ``max_unpool1d``) and ``channel_shuffle``.

- ``max_unpool2d(x, indices, output_size)`` writes each value of ``x`` at its
  flat index into a zero ``output_size`` plane; it is linear in ``x``, and its
  adjoint gathers the gradient at the same indices (``gather``, so it
  differentiates again).
- ``channel_shuffle(x, groups)`` reorders the channels (dimension 1) as the
  ``(groups, C/groups)`` grid read column by column: a permutation whose
  inverse is the shuffle with ``C/groups`` groups.
"""
import numpy as np

from .._tensor import Tensor
from ._families import OTHER
from ._registry import defop, public
from ._util import _tname
from .pooling import batch_merge_leading

__all__ = ["channel_shuffle"]


# ---------------------------------------------------------------- max_unpool2d
def _max_unpool2d_k(x, indices, output_size):
    oh, ow = output_size
    lead = x.shape[:-2]
    planes = int(np.prod(lead, dtype=np.int64))
    vol = oh * ow
    out = np.zeros(planes * vol, x.dtype)
    if not planes or not x.size:
        return out.reshape(lead + (oh, ow))
    idx = indices.reshape(planes, -1)
    bad = (idx < 0) | (idx >= vol)
    if bad.any():
        raise RuntimeError(f"Found an invalid max index: {int(idx[bad][0])} (output volumes are of size "
                           f"{oh}x{ow})")
    out[(idx + (np.arange(planes, dtype=np.int64) * vol)[:, None]).ravel()] = x.reshape(-1)
    return out.reshape(lead + (oh, ow))


def _unpool_gather(g, indices):
    """``g``'s elements at ``indices`` (flat into its last two dimensions)."""
    return g.flatten(-2).gather(-1, indices.flatten(-2)).view(indices.shape)


_max_unpool2d = defop(
    "max_unpool2d", _max_unpool2d_k, {"x": lambda g, indices: _unpool_gather(g, indices)},
    n_in=2, family=OTHER, linear=True, node_name="MaxUnpool2DBackward0", method=False,
    batch=batch_merge_leading, no_bool="max_unpool2d", no_complex="max_unpool2d",
    no_int=lambda x, indices, output_size: "max_unpool2d" if x._data.dtype.kind in "iu" else None)


def max_unpool2d_checked(input, indices, output_size):
    """PyTorch's ``max_unpool2d`` checks, then the op (``output_size``: (H, W))."""
    if indices._data.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {_tname(indices._data.dtype)}")
    if len(output_size) != 2:
        raise RuntimeError(f"There should be exactly two elements (height, width) in output_size, but got "
                           f"{len(output_size)} elements.")
    if input.ndim not in (3, 4):
        raise RuntimeError(f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with "
                           f"{input.ndim} dimensions.")
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}")
    for i in range(1, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(f"max_unpooling2d_forward_out_cpu(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but got {list(input.shape)} with dimension {i} being "
                               f"empty.")
    return _max_unpool2d(input, indices, tuple(int(v) for v in output_size))


# ---------------------------------------------------------------- channel_shuffle
def _channel_shuffle_k(x, groups):
    n, c = x.shape[:2]
    grid = x.reshape((n, groups, c // groups) + x.shape[2:])
    return np.ascontiguousarray(grid.swapaxes(1, 2)).reshape(x.shape)


_channel_shuffle = defop(
    "channel_shuffle", _channel_shuffle_k,
    {"x": lambda g, groups: _channel_shuffle(g, g.shape[1] // groups)},
    family=OTHER, linear=True, node_name="ChannelShuffleBackward0", method=False, batch=batch_merge_leading)


@public(method=False)
def channel_shuffle(input, groups):
    """Reorders the channels of an (N, C, *) input: the ``(groups, C/groups)``
    grid of channels transposed (ShuffleNet)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"channel_shuffle(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not isinstance(groups, (int, np.integer)) or isinstance(groups, bool):
        raise TypeError(f"channel_shuffle(): argument 'groups' (position 2) must be int, not "
                        f"{type(groups).__name__}")
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} "
                           f"groups.")
    return _channel_shuffle(input, int(groups))
