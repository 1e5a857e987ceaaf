"""How a DataLoader turns a list of samples into a batch (PyTorch's
``default_collate``) and converts unbatched samples (``default_convert``)."""
import collections.abc
import copy

import numpy as np

from ..._creation import as_tensor, tensor
from ..._tensor import Tensor
from ... import _dtype as D
from ...ops.shape import stack

__all__ = ["default_collate", "default_convert"]

_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        "found {}")


def _numpy_ok(a):
    return a.dtype.kind not in "SaUO"


def default_convert(data):
    """NumPy arrays and scalars become tensors, inside dicts, named tuples,
    tuples (which become lists) and sequences; everything else stays."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, (np.ndarray, np.generic)):
        return as_tensor(data) if _numpy_ok(np.asarray(data)) else data
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {k: default_convert(data[k]) for k in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuild_mapping(like, values):
    try:
        if isinstance(like, collections.abc.MutableMapping):
            out = copy.copy(like)
            out.update(values)
            return out
        return type(like)(values)
    except TypeError:
        return values


def _rebuild_sequence(like, values):
    try:
        if isinstance(like, collections.abc.MutableSequence):
            out = copy.copy(like)
            for i, v in enumerate(values):
                out[i] = v
            return out
        return type(like)(values)
    except TypeError:
        return values


def default_collate(batch):
    """Stack a list of samples into a batch, keeping their structure: tensors
    and NumPy arrays are stacked along a new first dimension, Python floats
    become a float64 tensor and ints an int64 one, strings stay as they came
    (the column of a tuple sample is a tuple), dicts and sequences are
    collated field by field (a tuple sample gives a list).

        >>> import tensorplay as tp
        >>> tp.utils.data.default_collate([(tp.ones(2), 0), (tp.zeros(2), 1)])
        [tensor([[1., 1.],
                [0., 0.]]), tensor([0, 1])]
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if not _numpy_ok(elem):
            raise TypeError(_ERR.format(elem.dtype))
        return default_collate([as_tensor(b) for b in batch])
    if isinstance(elem, (str, bytes)):      # (np.str_ and np.bytes_ too)
        return batch
    if isinstance(elem, np.generic):
        if not _numpy_ok(np.asarray(elem)):
            raise TypeError(_ERR.format(elem.dtype))
        return as_tensor(np.array(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=D.float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {k: default_collate([d[k] for d in batch]) for k in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        n = len(elem)
        if any(len(e) != n for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(s) for s in zip(*batch)]    # (a column of strings stays a tuple)
        if isinstance(elem, tuple):
            return columns
        return _rebuild_sequence(elem, columns)
    raise TypeError(_ERR.format(type(elem)))
