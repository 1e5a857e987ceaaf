"""``pad_sequence`` / ``unpad_sequence``: variable-length sequences <-> one padded tensor."""
from ... import _creation
from ..._tensor import Tensor as _Tensor
from ...ops.shape import cat as _cat, stack as _stack

__all__ = ["pad_sequence", "unpad_sequence"]


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
