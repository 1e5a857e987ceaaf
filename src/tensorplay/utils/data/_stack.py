"""``StackDataset`` (PyTorch's ``torch.utils.data.StackDataset``): several
datasets of one length read side by side, sample ``i`` being the tuple (or
dict) of their samples ``i``."""
from .dataset import Dataset

__all__ = ["StackDataset"]


class StackDataset(Dataset):
    """Datasets stacked: ``StackDataset(a, b)[i] == (a[i], b[i])`` and
    ``StackDataset(x=a, y=b)[i] == {"x": a[i], "y": b[i]}``.  All the datasets
    must have the same length.  ``__getitems__`` (what a DataLoader calls for a
    batch of indices) uses each dataset's own ``__getitems__`` where it has one.

        >>> import tensorplay as tp
        >>> ds = tp.utils.data.StackDataset(x=[1, 2, 3], y="abc")
        >>> len(ds), ds[1]
        (3, {'x': 2, 'y': 'b'})
    """

    def __init__(self, *args, **kwargs):
        if args:
            if kwargs:
                raise ValueError(
                    "Supported either ``tuple``- (via ``args``) or"
                    "``dict``- (via ``kwargs``) like input/output, but both types are given.")
            self._length = len(args[0])
            if any(self._length != len(dataset) for dataset in args):
                raise ValueError("Size mismatch between datasets")
            self.datasets = args
        elif kwargs:
            tmp = list(kwargs.values())
            self._length = len(tmp[0])
            if any(self._length != len(dataset) for dataset in tmp):
                raise ValueError("Size mismatch between datasets")
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    @staticmethod
    def _column(dataset, indices):
        """``[dataset[i] for i in indices]``, in one call where the dataset batches."""
        if callable(getattr(dataset, "__getitems__", None)):
            items = dataset.__getitems__(indices)
            if len(items) != len(indices):
                raise ValueError("Nested dataset's output size mismatch."
                                 f" Expected {len(indices)}, got {len(items)}")
            return items
        return [dataset[idx] for idx in indices]

    def __getitems__(self, indices):
        if isinstance(self.datasets, dict):
            dict_batch = [{} for _ in indices]
            for k, dataset in self.datasets.items():
                for data, d_sample in zip(self._column(dataset, indices), dict_batch):
                    d_sample[k] = data
            return dict_batch
        list_batch = [[] for _ in indices]
        for dataset in self.datasets:
            for data, t_sample in zip(self._column(dataset, indices), list_batch):
                t_sample.append(data)
        return [tuple(sample) for sample in list_batch]

    def __len__(self):
        return self._length
