"""tensorplay.utils.data: datasets, samplers, default_collate and the
DataLoader, run with the same code on tensorplay and torch where the result
does not depend on the random generator (whose streams differ)."""
import collections
import warnings

import numpy as np
import pytest

import tensorplay as tp
from conftest import exact


def _ds(T, n=10):
    return T.utils.data.TensorDataset(T.arange(2 * n, dtype=T.float32).reshape(n, 2), T.arange(n))


def test_tensor_dataset(T):
    ds = _ds(T, 5)
    assert len(ds) == 5
    x, y = ds[3]
    assert x.tolist() == [6.0, 7.0] and y.item() == 3
    assert [t.tolist() for t in ds[1:3]] == [[[2.0, 3.0], [4.0, 5.0]], [1, 2]]
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        T.utils.data.TensorDataset(T.zeros(3), T.zeros(4))


def test_batches_in_order(T):
    loader = T.utils.data.DataLoader(_ds(T, 7), batch_size=3)
    batches = list(loader)
    assert len(loader) == 3 and len(batches) == 3
    assert isinstance(batches[0], list) and len(batches[0]) == 2
    assert [b[1].tolist() for b in batches] == [[0, 1, 2], [3, 4, 5], [6]]
    assert batches[0][0].shape == (3, 2) and batches[0][0].dtype == T.float32
    loader = T.utils.data.DataLoader(_ds(T, 7), batch_size=3, drop_last=True)
    assert len(loader) == 2 and [b[1].tolist() for b in loader] == [[0, 1, 2], [3, 4, 5]]


def test_the_tensor_dataset_shortcut_equals_stacking(T):
    """Batches of a TensorDataset (one index per tensor) are exactly what
    collating its samples one by one gives."""
    ds = T.utils.data.TensorDataset(T.randn(9, 3, 2), T.arange(9), T.rand(9) > 0.5)

    class Plain(T.utils.data.Dataset):
        def __getitem__(self, i):
            return ds[i]

        def __len__(self):
            return len(ds)
    g = list(range(9))[::-1]
    fast = list(T.utils.data.DataLoader(ds, batch_size=4, sampler=g))
    slow = list(T.utils.data.DataLoader(Plain(), batch_size=4, sampler=g))
    for a, b in zip(fast, slow):
        assert len(a) == len(b) == 3
        for x, y in zip(a, b):
            assert x.dtype == y.dtype and x.tolist() == y.tolist()


def test_shuffle_with_a_seeded_generator():
    ds = _ds(tp, 20)

    def epoch(loader):
        return [i for _, y in loader for i in y.tolist()]
    a = tp.utils.data.DataLoader(ds, batch_size=6, shuffle=True,
                                 generator=tp.Generator().manual_seed(3))
    b = tp.utils.data.DataLoader(ds, batch_size=6, shuffle=True,
                                 generator=tp.Generator().manual_seed(3))
    e1, e2 = epoch(a), epoch(a)
    assert sorted(e1) == list(range(20)) and e1 != list(range(20))
    assert e2 != e1 and sorted(e2) == list(range(20))          # a new order each epoch
    assert [epoch(b), epoch(b)] == [e1, e2]                     # same seed, same orders


def test_shuffle_follows_manual_seed():
    ds = _ds(tp, 20)
    loader = tp.utils.data.DataLoader(ds, batch_size=5, shuffle=True)
    tp.manual_seed(11)
    first = [y.tolist() for _, y in loader]
    tp.manual_seed(11)
    assert [y.tolist() for _, y in loader] == first


def test_custom_collate_sampler_and_batch_sampler(T):
    ds = _ds(T, 6)
    loader = T.utils.data.DataLoader(ds, batch_size=2, sampler=[5, 0, 3, 1],
                                     collate_fn=lambda samples: [int(y) for _, y in samples])
    assert list(loader) == [[5, 0], [3, 1]]
    loader = T.utils.data.DataLoader(ds, batch_sampler=[[1, 2, 3], [0]])
    assert [b[1].tolist() for b in loader] == [[1, 2, 3], [0]] and len(loader) == 2
    bs = T.utils.data.BatchSampler(T.utils.data.SequentialSampler(range(5)), 2, drop_last=False)
    assert list(bs) == [[0, 1], [2, 3], [4]] and len(bs) == 3


def test_unbatched(T):
    loader = T.utils.data.DataLoader(_ds(T, 3), batch_size=None)
    out = list(loader)
    assert len(out) == 3 and isinstance(out[0], list) and out[2][1].item() == 2
    import numpy
    conv = list(T.utils.data.DataLoader([numpy.ones(2)], batch_size=None))
    assert conv[0].tolist() == [1.0, 1.0] and type(conv[0]).__name__ == "Tensor"


def test_default_collate(T):
    collate = T.utils.data.default_collate
    Point = collections.namedtuple("Point", "x y")
    out = collate([{"a": 1.5, "b": [1, True], "s": "u", "p": Point(1, np.float32(2))},
                   {"a": 2.5, "b": [2, False], "s": "v", "p": Point(3, np.float32(4))}])
    assert out["a"].dtype == T.float64 and out["a"].tolist() == [1.5, 2.5]
    assert out["b"][0].dtype == T.int64 and out["b"][1].dtype == T.bool
    assert out["s"] == ["u", "v"]
    assert isinstance(out["p"], Point) and out["p"].y.dtype == T.float32
    arrays = collate([np.zeros((2, 3), np.float32), np.ones((2, 3), np.float32)])
    assert arrays.shape == (2, 2, 3) and arrays.dtype == T.float32
    pairs = collate([(T.ones(2), 0), (T.zeros(2), 1)])
    assert isinstance(pairs, list) and pairs[0].shape == (2, 2)
    with pytest.raises(RuntimeError, match=exact("each element in list of batch should be of "
                                                 "equal size")):
        collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy "
                                        "arrays, numbers, dicts or lists; found <class 'object'>"):
        collate([object(), object()])


def test_iterable_dataset(T):
    class Stream(T.utils.data.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n
    assert [b.tolist() for b in T.utils.data.DataLoader(Stream(7), batch_size=3)] == \
        [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in T.utils.data.DataLoader(Stream(7), batch_size=3,
                                                        drop_last=True)] == [[0, 1, 2], [3, 4, 5]]
    assert len(T.utils.data.DataLoader(Stream(7), batch_size=3)) == 3
    chained = Stream(2) + Stream(3)
    assert list(chained) == [0, 1, 0, 1, 2] and len(chained) == 5
    with pytest.raises(ValueError, match="expected unspecified shuffle option, but got "
                                         "shuffle=True"):
        T.utils.data.DataLoader(Stream(3), shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler option"):
        T.utils.data.DataLoader(Stream(3), sampler=[0])


def test_loader_argument_errors(T):
    ds = _ds(T, 4)
    DL = T.utils.data.DataLoader
    with pytest.raises(ValueError, match=exact("num_workers option should be non-negative; use "
                                               "num_workers=0 to disable multiprocessing.")):
        DL(ds, num_workers=-1)
    with pytest.raises(ValueError, match=exact("sampler option is mutually exclusive with "
                                               "shuffle")):
        DL(ds, sampler=[0], shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive with "
                                         "batch_size, shuffle, sampler, and drop_last"):
        DL(ds, batch_sampler=[[0]], batch_size=2)
    with pytest.raises(ValueError, match="batch_size=None option disables auto-batching"):
        DL(ds, batch_size=None, drop_last=True)
    with pytest.raises(ValueError, match=exact("batch_size should be a positive integer value, "
                                               "but got batch_size=0")):
        DL(ds, batch_size=0)
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DL(ds, persistent_workers=True)
    loader = DL(ds)
    with pytest.raises(ValueError, match=exact("batch_size attribute should not be set after "
                                               "DataLoader is initialized")):
        loader.batch_size = 3


def test_num_workers_loads_in_process():
    with pytest.warns(UserWarning, match="loads samples in the calling process"):
        loader = tp.utils.data.DataLoader(_ds(tp, 5), batch_size=2, num_workers=2,
                                          persistent_workers=True, prefetch_factor=4)
    assert [b[1].tolist() for b in loader] == [[0, 1], [2, 3], [4]]
    assert tp.utils.data.get_worker_info() is None


def test_random_split_and_subset(T):
    ds = _ds(T, 10)
    parts = T.utils.data.random_split(ds, [0.5, 0.3, 0.2], generator=T.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [5, 3, 2]
    seen = sorted(int(p[i][1]) for p in parts for i in range(len(p)))
    assert seen == list(range(10))
    parts = T.utils.data.random_split(range(7), [0.5, 0.5], generator=T.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [4, 3]              # the remainder goes round-robin
    with pytest.raises(ValueError, match=exact("Sum of input lengths does not equal the length of "
                                               "the input dataset!")):
        T.utils.data.random_split(ds, [3, 3])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        T.utils.data.random_split(range(2), [1.0, 0.0])
    sub = T.utils.data.Subset(ds, [4, 1, 7])
    assert len(sub) == 3 and int(sub[1][1]) == 1
    assert [b[1].tolist() for b in T.utils.data.DataLoader(sub, batch_size=2)] == [[4, 1], [7]]


def test_concat_dataset(T):
    a, b = _ds(T, 3), _ds(T, 2)
    both = a + b
    assert len(both) == 5 and int(both[3][1]) == 0 and int(both[-1][1]) == 1
    assert int(T.utils.data.ConcatDataset([a, b])[2][1]) == 2


def test_samplers():
    g = tp.Generator().manual_seed(0)
    rs = tp.utils.data.RandomSampler(range(5), replacement=True, num_samples=12, generator=g)
    drawn = list(rs)
    assert len(drawn) == len(rs) == 12 and all(0 <= i < 5 for i in drawn)
    rs = tp.utils.data.RandomSampler(range(4), num_samples=10, generator=g)
    drawn = list(rs)
    assert len(drawn) == 10 and sorted(drawn[:4]) == [0, 1, 2, 3]
    sub = list(tp.utils.data.SubsetRandomSampler([10, 20, 30], generator=g))
    assert sorted(sub) == [10, 20, 30]
    w = list(tp.utils.data.WeightedRandomSampler([0.0, 1.0, 0.0], 6, generator=g))
    assert w == [1] * 6
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        tp.utils.data.RandomSampler(range(3), num_samples=0)


def test_a_training_loop_over_a_loader():
    """Linear regression with DataLoader + SGD recovers the weights."""
    g = tp.Generator().manual_seed(0)
    X = tp.randn(256, 3, generator=g)
    w_true = tp.tensor([[1.5], [-2.0], [0.5]])
    y = X @ w_true + 0.25
    ds = tp.utils.data.TensorDataset(X, y)
    w = tp.nn.Parameter(tp.zeros(3, 1))
    b = tp.nn.Parameter(tp.zeros(1))
    opt = tp.optim.SGD([w, b], lr=0.1)
    loader = tp.utils.data.DataLoader(ds, batch_size=32, shuffle=True, generator=g)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(30):
            for xb, yb in loader:
                opt.zero_grad()
                ((xb @ w + b - yb) ** 2).mean().backward()
                opt.step()
    np.testing.assert_allclose(w.detach().numpy().ravel(), [1.5, -2.0, 0.5], atol=1e-3)
    np.testing.assert_allclose(b.item(), 0.25, atol=1e-3)


def test_typed_datasets_and_loader_iterators(T):
    from typing import Tuple
    data = T.utils.data

    class Pairs(data.Dataset[Tuple[T.Tensor, int]]):       # (PyTorch's are Generic)
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return T.tensor([float(i)]), i
    for cls in (data.Dataset, data.IterableDataset, data.Sampler, data.DataLoader, data.Subset):
        cls[int]
    it = iter(data.DataLoader(Pairs(), batch_size=2))
    assert len(it) == 3
    next(it)
    assert len(list(it)) == 2


def test_seeds_as_pytorch_takes_them(T):
    assert T.manual_seed(-1).initial_seed() == 2 ** 64 - 1        # (modulo 2**64)
    assert T.Generator().manual_seed(-2 ** 63).initial_seed() == 2 ** 63
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        T.manual_seed(2 ** 64)
    with pytest.raises(RuntimeError, match="manual_seed expected a long, but got float"):
        T.Generator().manual_seed(1.5)
    assert T.manual_seed(1.7).initial_seed() == 1                 # (the function converts)
    with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -1"):
        T.randperm(-1)
    for bad in (True, 10.0, "3"):
        with pytest.raises(TypeError, match="randperm"):
            T.randperm(bad)
