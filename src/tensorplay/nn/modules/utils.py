"""``nn.modules.utils`` (``torch.nn.modules.utils``): the argument helpers of
the layers, ``_single``/``_pair``/``_triple``/``_quadruple`` (a number
repeated, an iterable as a tuple) and ``_reverse_repeat_tuple``, and
``consume_prefix_in_state_dict_if_present``.

The ``_ntuple`` family is the one the convolution and padding layers use
(``conv.py``), re-exported here.  It keeps a string whole (``_pair("same")``
is ``("same", "same")``), where PyTorch's splits it into characters; the
layers never pass one.
"""
from .conv import _ntuple, _pair, _single, _triple

__all__ = ["consume_prefix_in_state_dict_if_present"]

_quadruple = _ntuple(4)

for _f, _name in ((_single, "_single"), (_pair, "_pair"), (_triple, "_triple"),
                  (_quadruple, "_quadruple")):
    _f.__name__ = _f.__qualname__ = _name
del _f, _name


def _reverse_repeat_tuple(t, n):
    """``t`` reversed, each element repeated ``n`` times: a layer's padding
    (first dimension first) as ``F.pad`` takes it (last dimension first, both
    sides)."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    """An adaptive pool's output size with its None entries taken from the
    input's trailing sizes ``defaults``."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def consume_prefix_in_state_dict_if_present(state_dict, prefix):
    """Strip ``prefix`` from the keys of ``state_dict`` that start with it, in
    place (and from its ``_metadata``, if any): a ``(Distributed)DataParallel``
    model's state loads into the bare model after ``prefix="module."``."""
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    meta = getattr(state_dict, "_metadata", None)
    if meta is not None:
        for key in list(meta.keys()):
            if len(key) == 0:
                continue
            if key == prefix.replace(".", "") or key.startswith(prefix):
                meta[key[len(prefix):]] = meta.pop(key)
