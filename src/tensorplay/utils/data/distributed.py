"""DistributedSampler: each rank's share of a dataset (PyTorch's
``torch.utils.data.distributed``)."""
import math

from ..._creation import randperm
from ..._random import Generator
from ... import distributed as dist
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """The indices rank ``rank`` of ``num_replicas`` visits (by default the
    default process group's rank and world size).

    Every rank draws the same permutation (from ``seed + epoch``: call
    ``set_epoch(epoch)`` before each epoch for a new order) and takes every
    ``num_replicas``-th index from its rank on, so that the ranks' shares are
    disjoint and of equal length: the list is padded with its own first indices
    to a multiple of ``num_replicas``, or with ``drop_last`` cut to one.  Use it
    as a DataLoader's ``sampler`` (with ``shuffle=False`` there)."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None:
            num_replicas = dist.get_world_size()
        if rank is None:
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            # the largest multiple of num_replicas below n: every rank gets as many
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """The epoch the next ``__iter__`` shuffles for (all ranks must agree)."""
        self.epoch = epoch
