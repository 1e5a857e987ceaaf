"""Variable-length sequences: ``pad_sequence`` / ``unpad_sequence`` (one padded
tensor) and ``PackedSequence`` with ``pack_padded_sequence``,
``pad_packed_sequence``, ``pack_sequence``, ``unpack_sequence`` (the time-major
packed layout the recurrent layers accept).

A packed sequence keeps, for each time step ``t``, the ``batch_sizes[t]``
sequences still running at ``t`` (the longest first), one row each, in one
``data`` tensor.  Packing and padding are single gathers (advanced indexing)
of the input, so autograd differentiates them (to any order) without a
kernel of their own.
"""
from collections import namedtuple as _namedtuple

import numpy as _np

from ... import _creation
from ... import _dtype as _D
from ..._tensor import Tensor as _Tensor
from ...ops.shape import cat as _cat, stack as _stack

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]


_PackedSequenceBase = _namedtuple("PackedSequence_",
                                  ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


def _bind(t, fn):
    return None if t is None else fn(t)


class PackedSequence(_PackedSequenceBase):
    """``data`` (sum(batch_sizes), *), ``batch_sizes`` (a CPU int64 tensor: how
    many sequences are still running at each step), ``sorted_indices`` (the
    original batch index of each packed column, None when the batch came
    sorted) and ``unsorted_indices`` (its inverse).  Made by the packing
    functions below, not by hand."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError(
                    "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                    "be created manually. They should be instantiated by functions like "
                    "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                    "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        else:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data[0], data[1]
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          _bind(self.sorted_indices, lambda t: t.pin_memory()),
                          _bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        """Converts ``data`` as ``Tensor.to`` does; ``self`` when nothing changes.
        ``batch_sizes`` and the index tensors stay CPU int64."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cuda(self, *args, **kwargs):
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=_D.float64)

    def float(self):
        return self.to(dtype=_D.float32)

    def half(self):
        return self.to(dtype=_D.float16)

    def long(self):
        return self.to(dtype=_D.int64)

    def int(self):
        return self.to(dtype=_D.int32)

    def short(self):
        return self.to(dtype=_D.int16)

    def char(self):
        return self.to(dtype=_D.int8)

    def byte(self):
        return self.to(dtype=_D.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def invert_permutation(permutation):
    """The inverse of a 1-D permutation tensor (None for None)."""
    if permutation is None:
        return None
    p = _np.asarray(permutation.tolist(), dtype=_np.int64).reshape(-1)
    out = _np.empty_like(p)
    out[p] = _np.arange(p.size, dtype=_np.int64)
    return _creation.tensor(out.reshape(tuple(permutation.shape)), dtype=permutation.dtype)


def _int64_lengths(lengths):
    if isinstance(lengths, _Tensor):
        return lengths.to(dtype=_D.int64)
    return _creation.as_tensor(lengths, dtype=_D.int64)


def _index(idx):
    return _creation.tensor(_np.asarray(idx, dtype=_np.int64))


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs ``input`` (T, B, *) (or (B, T, *)) holding sequences of the given
    ``lengths``; unsorted lengths need ``enforce_sorted=False`` (the batch is
    then sorted by decreasing length, ties kept in order)."""
    lengths = _int64_lengths(lengths)
    sorted_indices = None
    if not enforce_sorted and lengths.ndim > 0:
        lens = _np.asarray(lengths.tolist(), dtype=_np.int64)
        perm = _np.argsort(-lens, axis=-1, kind="stable")
        lengths = _creation.tensor(_np.take_along_axis(lens, perm, -1), dtype=_D.int64)
        sorted_indices = _creation.tensor(perm, dtype=_D.int64)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    if lengths.ndim != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.ndim}D cpu Long tensor")
    batch_size = input.size(1)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    lens = _np.asarray(lengths.tolist(), dtype=_np.int64)
    if lens.size != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{lens.size} (batch_size={batch_size})")
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element "
                           "in 'lengths' that is <= 0")
    if _np.any(lens[1:] > lens[:-1]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                           "if you do not need ONNX exportability.")
    steps = int(lens[0])
    if steps > input.shape[0]:
        raise RuntimeError(f"pack_padded_sequence: a length in 'lengths' ({steps}) is larger than "
                           f"the padded input's sequence dimension ({input.shape[0]})")
    batch_sizes = _np.array([(lens > t).sum() for t in range(steps)], dtype=_np.int64)
    t_idx = _np.repeat(_np.arange(steps), batch_sizes)
    b_idx = _np.concatenate([_np.arange(b) for b in batch_sizes])
    data = input[_index(t_idx), _index(b_idx)]
    return PackedSequence(data, _creation.tensor(batch_sizes, dtype=_D.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of ``pack_padded_sequence``: (padded (T, B, *) or (B, T, *),
    lengths), in the batch order the sequences had before packing."""
    bs = _np.asarray(sequence.batch_sizes.tolist(), dtype=_np.int64).reshape(-1)
    max_seq_length = bs.size
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{max_seq_length}")
        if not isinstance(total_length, (int, _np.integer)) or isinstance(total_length, bool):
            raise TypeError(f"_pad_packed_sequence(): argument 'total_length' (position 5) must be "
                            f"int, not {type(total_length).__name__}")
        max_seq_length = int(total_length)
    data = sequence.data
    batch = int(bs[0]) if bs.size else 0
    lengths = _np.array([(bs > j).sum() for j in range(batch)], dtype=_np.int64)
    n = data.shape[0]
    # idx[t, j]: the packed row of (step t, sorted column j), or n (the padding row)
    idx = _np.full((max_seq_length, batch), n, dtype=_np.int64)
    offsets = _np.concatenate([[0], _np.cumsum(bs)])
    for t, b in enumerate(bs):
        idx[t, :b] = _np.arange(offsets[t], offsets[t] + b)
    unsorted = sequence.unsorted_indices
    if unsorted is not None:
        order = _np.asarray(unsorted.tolist(), dtype=_np.int64)
        idx = idx[:, order]
        lengths = lengths[order]
    if batch_first:
        idx = idx.T
    pad_row = _creation.full((1,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype)
    padded = _cat([data, pad_row], 0)[_index(idx)]
    return padded, _creation.tensor(lengths, dtype=_D.int64)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shape (L_i, *) into (L_max, B, *) (or (B, L_max, *)),
    filling with ``padding_value`` on the ``padding_side``."""
    if isinstance(sequences, _Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.shape[0] for s in sequences)
    rows = []
    for s in sequences:
        n = s.shape[0]
        if n == max_len:
            rows.append(s)
            continue
        pad = _creation.full((max_len - n,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype)
        rows.append(_cat([s, pad] if padding_side == "right" else [pad, s], 0))
    return _stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """``pack_padded_sequence(pad_sequence(sequences), lengths)`` for a list of
    (L_i, *) tensors."""
    lengths = _creation.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of (L_i, *) tensors a ``PackedSequence`` holds, in original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
