"""``nn.attention.bias`` (``torch.nn.attention.bias``): causal attention biases
that ``F.scaled_dot_product_attention`` takes as its ``attn_mask``.

A ``CausalBias`` is a tensor that holds no values, only the variant and the two
sequence lengths: attention given one runs with ``is_causal=True`` when that is
the same pattern (the upper-left variant, or equal lengths), and otherwise with
the boolean mask it stands for (``_materialize()``), as PyTorch does on the CPU.
"""
from enum import IntEnum as _IntEnum, auto as _auto
from warnings import warn as _warn

import numpy as _np

from ..._tensor import Tensor as _Tensor, _wrap

__all__ = ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]


class CausalVariant(_IntEnum):
    """The causal patterns: ``UPPER_LEFT`` is ``tril(ones(L, S))`` (what
    ``is_causal=True`` means), ``LOWER_RIGHT`` is ``tril(ones(L, S), S - L)``,
    the allowed part aligned to the lower right corner."""
    UPPER_LEFT = _auto()
    LOWER_RIGHT = _auto()


class CausalBias(_Tensor):
    """A causal bias of ``seq_len_q`` queries and ``seq_len_kv`` keys, of the
    given variant; made by ``causal_upper_left`` or ``causal_lower_right``."""

    def __init__(self, variant, seq_len_q, seq_len_kv):
        if not isinstance(variant, CausalVariant):
            raise AssertionError(f"variant must be a CausalVariant, got {type(variant).__name__}")
        super().__init__()
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if seq_len_q > seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            _warn("Lower right causal bias will produce NaNs in the output when seq_len_q > seq_len_kv!",
                  stacklevel=2)

    def _upper_left(self, device=None):
        return _wrap(_np.tri(self.seq_len_q, self.seq_len_kv, dtype=bool))

    def _lower_right(self, device=None):
        return _wrap(_np.tri(self.seq_len_q, self.seq_len_kv, self.seq_len_kv - self.seq_len_q, dtype=bool))

    def _materialize(self, device=None):
        """The boolean mask (True: attend) the bias stands for."""
        if self.variant == CausalVariant.UPPER_LEFT:
            return self._upper_left(device)
        if self.variant == CausalVariant.LOWER_RIGHT:
            return self._lower_right(device)

    @staticmethod
    def _dispatch(query, key, value, attn_mask, dropout_p=0.0, is_causal=False, scale=None,
                  enable_gqa=False):
        """``scaled_dot_product_attention`` with this bias as ``attn_mask``."""
        from .. import functional as F
        if is_causal:
            raise ValueError("CausalBias should not be used with causal=True")
        if attn_mask.seq_len_q == attn_mask.seq_len_kv or attn_mask.variant == CausalVariant.UPPER_LEFT:
            return F.scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=dropout_p,
                                                  is_causal=True, scale=scale, enable_gqa=enable_gqa)
        if attn_mask.variant == CausalVariant.LOWER_RIGHT:
            return F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask._materialize(),
                                                  dropout_p=dropout_p, is_causal=False, scale=scale,
                                                  enable_gqa=enable_gqa)
        raise ValueError(f"CausalBias.variant must be a CausalVariant type, but found: {attn_mask.variant}")

    def __repr__(self):
        return self._materialize().__repr__()


def causal_upper_left(*size):
    """The upper-left causal bias of ``size = (seq_len_q, seq_len_kv)``:
    ``tril(ones(size))``, what ``is_causal=True`` means."""
    if len(size) != 2:
        raise AssertionError("causal_upper_left only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.UPPER_LEFT, seq_len_q, seq_len_kv)


def causal_lower_right(*size):
    """The lower-right causal bias of ``size = (seq_len_q, seq_len_kv)``:
    ``tril(ones(size), diagonal=seq_len_kv - seq_len_q)``."""
    if len(size) != 2:
        raise AssertionError("causal_lower_right only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.LOWER_RIGHT, seq_len_q, seq_len_kv)
