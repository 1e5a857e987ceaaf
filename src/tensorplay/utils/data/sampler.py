"""Samplers: which dataset indices a DataLoader visits, in what order, in what
batches (PyTorch's ``torch.utils.data.sampler``)."""
import itertools
from typing import Generic as _Generic, TypeVar as _TypeVar

from ..._creation import as_tensor, empty, randint, randperm
from ..._random import Generator
from ... import _dtype as D
from ...ops.random_ops import multinomial

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]


_T_co = _TypeVar("_T_co", covariant=True)


class Sampler(_Generic[_T_co]):
    """Base class: ``__iter__`` yields indices (or lists of them)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _epoch_generator(generator):
    """The generator an epoch draws from: the given one, else a fresh one seeded
    from the default generator (so ``manual_seed`` makes shuffles reproducible)."""
    if generator is not None:
        return generator
    seed = int(empty((), dtype=D.int64).random_().item())
    return Generator().manual_seed(seed)


class RandomSampler(Sampler):
    """A random permutation of the indices (``num_samples`` of them, drawn with
    replacement if ``replacement``), from ``generator``."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        g = _epoch_generator(self.generator)
        if self.replacement:
            yield from randint(0, n, (self.num_samples,), generator=g).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=g).tolist()
            yield from randperm(n, generator=g).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        w = as_tensor(weights, dtype=D.float64)
        if w.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(w.shape)}")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        yield from multinomial(self.weights, self.num_samples, self.replacement,
                               generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler`` (the last one shorter,
    or dropped with ``drop_last``)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        it = iter(self.sampler)
        if self.drop_last:
            for batch in zip(*[it] * self.batch_size):
                yield list(batch)
        else:
            batch = list(itertools.islice(it, self.batch_size))
            while batch:
                yield batch
                batch = list(itertools.islice(it, self.batch_size))

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
