"""DataLoader: batches of samples from a dataset, in sampler order (PyTorch's
``torch.utils.data.DataLoader``), loaded in the calling process."""
import math
import warnings
from typing import Generic as _Generic, TypeVar as _TypeVar

from ...ops.indexing import index_select
from ..._creation import tensor
from ... import _dtype as D
from ._collate import default_collate, default_convert
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info"]


def get_worker_info():
    """None: samples are always loaded in the calling process (no worker processes)."""
    return None


class _Infinite:
    """The "sampler" of an iterable dataset: indices do not matter, only how many."""

    def __iter__(self):
        while True:
            yield None


_T_co = _TypeVar("_T_co", covariant=True)


class DataLoader(_Generic[_T_co]):
    """Iterate over ``dataset`` in batches.

    ``batch_size`` samples per batch (None: unbatched), ``shuffle`` for a new
    random order each epoch (drawn from ``generator``, else from the default
    generator: ``manual_seed`` makes it reproducible), or a custom ``sampler``
    / ``batch_sampler``; ``drop_last`` drops a short last batch; ``collate_fn``
    makes a batch from a list of samples (``default_collate``).

    Samples are loaded in the calling process.  ``num_workers > 0`` is
    accepted (scripts written for PyTorch pass it) and loads the same batches
    in the same order in this process, with a warning; worker-only options
    are accepted with it and have no effect.

        >>> import tensorplay as tp
        >>> ds = tp.utils.data.TensorDataset(tp.arange(5.), tp.arange(5))
        >>> [y.tolist() for x, y in tp.utils.data.DataLoader(ds, batch_size=2)]
        [[0, 1], [2, 3], [4]]
    """
    _initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None and num_workers == 0:
            raise ValueError(f"multiprocessing_context can only be used with multi-process "
                             f"loading (num_workers > 0), but got num_workers={num_workers}")
        if num_workers > 0:
            warnings.warn(f"tensorplay's DataLoader loads samples in the calling process: "
                          f"num_workers={num_workers} gives the same batches, without worker "
                          "processes", UserWarning, stacklevel=2)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = 2 if num_workers > 0 and prefetch_factor is None else prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._iterable:
                sampler = _Infinite()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._initialized = True

    def __setattr__(self, attr, val):
        if self._initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last",
                                          "dataset", "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {type(self).__name__} is "
                             "initialized")
        super().__setattr__(attr, val)

    @property
    def _index_sampler(self):
        return self.batch_sampler if self.batch_sampler is not None else self.sampler

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
            return n
        return len(self._index_sampler)

    def __iter__(self):
        if self._iterable:
            return _LoaderIter(self._iter_stream(), self)
        return _LoaderIter(self._iter_map(), self)

    def _iter_map(self):
        ds, collate = self.dataset, self.collate_fn
        if self.batch_sampler is None:
            for i in self.sampler:
                yield collate(ds[i])
            return
        # a TensorDataset batched by default_collate: one indexing per tensor
        # (what stacking the samples gives, without a Python loop over them)
        fast = type(ds) is TensorDataset and collate is default_collate
        getitems = getattr(ds, "__getitems__", None)
        n = len(ds) if fast else 0
        for indices in self.batch_sampler:
            if fast and len(indices) and all(type(i) is int and 0 <= i < n for i in indices):
                # (anything else, a negative or float index, an empty batch, takes the
                # sample-by-sample way below, which answers as PyTorch's does)
                idx = tensor(indices, dtype=D.int64)
                yield [index_select(t, 0, idx) for t in ds.tensors]
            elif callable(getitems):
                yield collate(getitems(indices))
            else:
                yield collate([ds[i] for i in indices])

    def _iter_stream(self):
        it = iter(self.dataset)
        collate = self.collate_fn
        if self.batch_sampler is None:
            for sample in it:
                yield collate(sample)
            return
        for indices in self.batch_sampler:
            batch = []
            for _ in indices:
                try:
                    batch.append(next(it))
                except StopIteration:
                    break
            if not batch or (self.drop_last and len(batch) < len(indices)):
                return
            yield collate(batch)
            if len(batch) < len(indices):
                return


class _LoaderIter:
    """An iteration over a DataLoader: the batches, and ``len()`` the loader's."""
    __slots__ = ("_gen", "_loader")

    def __init__(self, gen, loader):
        self._gen, self._loader = gen, loader

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._gen)

    def __len__(self):
        return len(self._loader)
