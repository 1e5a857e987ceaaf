"""Datasets: map-style (``__getitem__`` + ``__len__``) and iterable-style
(``__iter__``), and the ways to combine and split them (PyTorch's
``torch.utils.data.dataset``)."""
import bisect
import itertools
import math
import warnings
from typing import Generic as _Generic, TypeVar as _TypeVar

from ..._random import default_generator
from ..._creation import randperm
from ..._tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset",
           "Subset", "random_split"]

_T_co = _TypeVar("_T_co", covariant=True)


class Dataset(_Generic[_T_co]):
    """A map-style dataset: ``dataset[i]`` is sample ``i``; subclasses define
    ``__getitem__`` and usually ``__len__``.  ``a + b`` concatenates."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co]):
    """An iterable-style dataset: samples come from ``iter(dataset)`` (streams,
    generators); a DataLoader batches them in the order they come."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample ``i`` is ``tuple(t[i] for t in tensors)``; all tensors share their
    first dimension.

        >>> import tensorplay as tp
        >>> ds = tp.utils.data.TensorDataset(tp.arange(6.).reshape(3, 2), tp.tensor([0, 1, 0]))
        >>> len(ds), ds[1]
        (3, (tensor([2., 3.]), tensor(1)))
    """

    def __init__(self, *tensors):
        if any(not isinstance(t, Tensor) for t in tensors):
            raise TypeError("TensorDataset takes tensors")
        if not all(tensors[0].size(0) == t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class ConcatDataset(Dataset[_T_co]):
    """The datasets one after another."""

    @staticmethod
    def cumsum(sequence):
        out, s = [], 0
        for e in sequence:
            s += len(e)
            out.append(s)
        return out

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        i = bisect.bisect_right(self.cumulative_sizes, idx)
        return self.datasets[i][idx - (self.cumulative_sizes[i - 1] if i > 0 else 0)]


class ChainDataset(IterableDataset):
    """Iterable datasets one after another."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset[_T_co]):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        # the wrapped dataset's batch access, when it has one
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=default_generator):
    """Split ``dataset`` into non-overlapping random subsets of the given
    ``lengths`` (or fractions summing to 1; the remainder goes round-robin).

        >>> import tensorplay as tp
        >>> parts = tp.utils.data.random_split(range(10), [0.7, 0.3],
        ...                                    generator=tp.Generator().manual_seed(0))
        >>> [len(p) for p in parts], sorted(list(parts[0]) + list(parts[1])) == list(range(10))
        ([7, 3], True)
    """
    if isinstance(lengths, Tensor):
        lengths = list(lengths._data)       # (NumPy scalars: fractions multiply in their dtype)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(math.floor(len(dataset) * frac))
        for i in range(len(dataset) - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
        for i, n in enumerate(lengths):
            if n == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty "
                              "dataset.", stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[end - n:end])
            for end, n in zip(itertools.accumulate(lengths), lengths)]
