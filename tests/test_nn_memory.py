"""Training loops free every graph by reference counting alone: with the cyclic
garbage collector off, each step's nodes and activations die when the step's
last reference goes, no cycle is left for the collector, and the resident
memory stays flat over 300 steps."""
import gc
import os
import weakref

import numpy as np
import pytest

import tensorplay as tp
import tensorplay.nn as nn


def _rss_bytes():
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def _train(model, make_batch, steps, lossf, lr=0.05):
    """A hand-written SGD loop; returns weak references to every step's graph
    (the loss, its node, the model output), the losses, and RSS samples."""
    refs, losses, rss = [], [], []
    for step in range(steps):
        x, y = make_batch(step)
        out = model(x)
        loss = lossf(out, y)
        refs.append((weakref.ref(loss), weakref.ref(loss.grad_fn), weakref.ref(out)))
        loss.backward()
        with tp.no_grad():
            for p in model.parameters():
                p -= lr * p.grad
                p.grad = None
        losses.append(loss.item())
        del x, y, out, loss
        if step % 50 == 49:
            rss.append(_rss_bytes())
    return refs, losses, rss


@pytest.fixture
def no_gc():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_mlp_training_loop_frees_every_graph_by_refcounting(no_gc):
    tp.manual_seed(0)
    rng = np.random.default_rng(0)
    model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Dropout(0.1), nn.LayerNorm(128),
                          nn.Linear(128, 128), nn.GELU(), nn.Linear(128, 10))
    data = [(tp.tensor(rng.standard_normal((64, 32)).astype(np.float32)),
             tp.tensor(rng.integers(0, 10, 64))) for _ in range(4)]
    refs, losses, rss = _train(model, lambda s: data[s % 4], 300, nn.CrossEntropyLoss())
    assert all(r() is None for step in refs for r in step), "a graph outlived its step"
    assert gc.collect() == 0, "the loop left reference cycles for the collector"
    assert losses[-1] < losses[0] * 0.5                 # it trained
    if rss[0] is not None:
        growth = rss[-1] - rss[0]                       # after 50 steps vs after 300
        assert growth < 8 * 2 ** 20, f"RSS grew by {growth / 2 ** 20:.1f} MiB over 250 steps"


@pytest.mark.parametrize("kind", ["lstm", "transformer"])
def test_recurrent_and_attention_graphs_are_freed_too(no_gc, kind):
    tp.manual_seed(0)
    rng = np.random.default_rng(1)
    if kind == "lstm":
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(20, 8, padding_idx=0)
                self.rnn = nn.LSTM(8, 16, num_layers=2, batch_first=True, bidirectional=True)
                self.head = nn.Linear(32, 20)

            def forward(self, idx):
                return self.head(self.rnn(self.emb(idx))[0]).transpose(1, 2)
        model = Model()

        def batch(step):
            idx = tp.tensor(rng.integers(0, 20, (4, 7)))
            return idx, idx
    else:
        model = nn.Sequential(nn.TransformerEncoderLayer(16, 4, 32, dropout=0.1, batch_first=True),
                              nn.TransformerEncoderLayer(16, 4, 32, norm_first=True, batch_first=True))

        def batch(step):
            x = tp.tensor(rng.standard_normal((3, 5, 16)).astype(np.float32))
            return x, x
    lossf = nn.CrossEntropyLoss() if kind == "lstm" else nn.MSELoss()
    refs, losses, _ = _train(model, batch, 20, lossf)
    assert all(r() is None for step in refs for r in step)
    assert gc.collect() == 0
