"""The top-level functional RNN cells (``rnn_tanh_cell``, ``rnn_relu_cell``,
``lstm_cell``, ``gru_cell``), from their module ``tensorplay.ops.rnn_cells``:
values and gradients against PyTorch and against float64 finite differences,
and PyTorch's checks (type and message) in PyTorch's order."""
import numpy as np
import pytest

import tensorplay as tp
from tensorplay.ops import rnn_cells as R

from conftest import assert_close, torch

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")

GATES = {"rnn_tanh_cell": 1, "rnn_relu_cell": 1, "lstm_cell": 4, "gru_cell": 3}


def _arrays(name, n=3, i=4, h=5, bias=True, seed=0):
    rng = np.random.default_rng(seed)
    g = GATES[name]
    arrs = [rng.normal(size=(n, i)), rng.normal(size=(n, h)), rng.normal(size=(g * h, i)) * 0.5,
            rng.normal(size=(g * h, h)) * 0.5]
    if name == "lstm_cell":
        arrs.insert(2, rng.normal(size=(n, h)))
    if bias:
        arrs += [rng.normal(size=(g * h,)), rng.normal(size=(g * h,))]
    return arrs


def _call(lib, name, ts):
    f = getattr(R, name) if lib is tp else getattr(torch, name)
    if name == "lstm_cell":
        out = f(ts[0], (ts[1], ts[2]), *ts[3:])
        return list(out)
    return [f(*ts)]


@needs_torch
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("name", sorted(GATES))
def test_values_and_gradients_match_torch(name, bias):
    arrs = _arrays(name, bias=bias)
    ours = [tp.tensor(a, requires_grad=True) for a in arrs]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrs]
    o, t = _call(tp, name, ours), _call(torch, name, theirs)
    assert len(o) == len(t)
    seeds = [np.random.default_rng(10 + k).normal(size=tuple(x.shape)) for k, x in enumerate(t)]
    for a, b in zip(o, t):
        assert tuple(a.shape) == tuple(b.shape) and a.dtype == tp.float64
        assert_close(a.detach().numpy(), b.detach().numpy(), atol=1e-12, rtol=1e-12)
    sum((a * tp.tensor(s)).sum() for a, s in zip(o, seeds)).backward()
    sum((b * torch.tensor(s)).sum() for b, s in zip(t, seeds)).backward()
    for a, b in zip(ours, theirs):
        assert_close(a.grad.numpy(), b.grad.numpy(), atol=1e-12, rtol=1e-10)


@needs_torch
@pytest.mark.parametrize("name", sorted(GATES))
def test_float32_and_per_sample_bias_match_torch(name):
    """float32 results; a ``(N, gates*hidden)`` bias broadcasts as addmm's does."""
    arrs = [a.astype(np.float32) for a in _arrays(name, seed=3)]
    g = GATES[name]
    arrs[-1] = np.random.default_rng(4).normal(size=(3, g * 5)).astype(np.float32)
    o = _call(tp, name, [tp.tensor(a) for a in arrs])
    t = _call(torch, name, [torch.tensor(a) for a in arrs])
    for a, b in zip(o, t):
        assert a.dtype == tp.float32
        assert_close(a.numpy(), b.numpy(), atol=2e-6, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(GATES))
def test_gradcheck_and_gradgradcheck(name):
    """First and second derivatives against float64 finite differences (no torch)."""
    arrs = _arrays(name, n=2, i=3, h=2, seed=1)
    ts = [tp.tensor(a, requires_grad=True) for a in arrs]

    def f(*xs):
        return tuple(_call(tp, name, list(xs)))
    assert tp.autograd.gradcheck(f, ts)
    assert tp.autograd.gradgradcheck(f, ts)


def test_relu_cell_is_relu_of_the_sum():
    """Without torch: the definitions written out."""
    x, h = tp.tensor([[1.0, -2.0]]), tp.tensor([[0.5]])
    w_ih, w_hh = tp.tensor([[1.0, 1.0]]), tp.tensor([[2.0]])
    assert R.rnn_relu_cell(x, h, w_ih, w_hh).tolist() == [[0.0]]
    assert R.rnn_relu_cell(x, h, w_ih, w_hh, tp.tensor([1.5])).tolist() == [[1.5]]
    assert R.rnn_tanh_cell(x, h, w_ih, w_hh, None, tp.tensor([1.0])).tolist() == \
        [[pytest.approx(np.tanh(1.0))]]
    # an LSTM whose gates are all zero: c' = 0.5 c, h' = 0.5 tanh(c')
    z = tp.zeros(4, 2)
    hy, cy = R.lstm_cell(x, (tp.zeros(1, 1), tp.tensor([[2.0]])), z, tp.zeros(4, 1))
    assert cy.tolist() == [[1.0]] and hy.tolist() == [[pytest.approx(0.5 * np.tanh(1.0))]]
    # a GRU with zero weights: h' = (h - 0) * 0.5 + 0
    assert R.gru_cell(x, tp.tensor([[3.0]]), tp.zeros(3, 2), tp.zeros(3, 1)).tolist() == [[1.5]]


def _errors(lib):
    f = (lambda n: getattr(R, n)) if lib is tp else (lambda n: getattr(torch, n))
    x, h = lib.ones(3, 4), lib.ones(3, 5)
    w1, u1 = lib.ones(5, 4), lib.ones(5, 5)
    w3, u3 = lib.ones(15, 4), lib.ones(15, 5)
    w4, u4 = lib.ones(20, 4), lib.ones(20, 5)
    return [
        lambda: f("rnn_tanh_cell")(x[0], h[0], w1, u1),                 # unbatched: IndexError
        lambda: f("rnn_tanh_cell")(x, h[0], w1, u1),
        lambda: f("rnn_tanh_cell")(x[:, :3], h, w1, u1),
        lambda: f("rnn_relu_cell")(x, h[:2], w1, u1),
        lambda: f("rnn_relu_cell")(x, h[:, :4], w1, u1),
        lambda: f("rnn_tanh_cell")(x[None], h, w1, u1),
        lambda: f("rnn_tanh_cell")(x, h, w1, u1, lib.ones(4)),
        lambda: f("rnn_relu_cell")(x, h, w1, u1, lib.ones(2, 5)),
        lambda: f("gru_cell")(x, h, w4, u4),
        lambda: f("gru_cell")(x, h, w3, u4),
        lambda: f("lstm_cell")(x, (h, h), w4, u3),
        lambda: f("rnn_tanh_cell")(x, h, w3, u3),
        lambda: f("rnn_tanh_cell")(x, lib.ones(3, 6), w1, lib.ones(5, 6)),
        lambda: f("rnn_relu_cell")(x, h, w1[None], u1),
        lambda: f("rnn_relu_cell")(x, h, w1[0], u1),
        lambda: f("rnn_relu_cell")(x, h, w1, u1[0]),
        lambda: f("lstm_cell")(x, (h,), w4, u3),
        lambda: f("lstm_cell")(x, (h, h, h), w4, u4),
        lambda: f("lstm_cell")(x, h, w4, u4),
        lambda: f("lstm_cell")(x, None, w4, u4),
        lambda: f("lstm_cell")(x, (h, 3), w4, u4),
        lambda: f("lstm_cell")(x, [h, h[0]], w4, u4),
        lambda: f("lstm_cell")(x, (h, h[:2]), w4, u4),
        lambda: f("lstm_cell")(x, (h, h[:, :3]), w4, u4),
        lambda: f("lstm_cell")(x, (h, h), w4, u4, 3),
        lambda: f("rnn_tanh_cell")([1.0], h, w1, u1),
        lambda: f("rnn_tanh_cell")(x, None, w1, u1),
        lambda: f("gru_cell")(x, h, w3, None),
        lambda: f("rnn_tanh_cell")(x, h, w1, u1, 1, 2, 3),
        lambda: f("rnn_tanh_cell")(x, h, w1, u1, bias=None),
        lambda: f("rnn_relu_cell")(x.int(), h, w1, u1),
        lambda: f("rnn_relu_cell")(x, h, w1.double(), u1),
        lambda: f("rnn_relu_cell")(x, h.double(), w1, u1),
        lambda: f("rnn_relu_cell")(x, h, w1, u1, lib.ones(5).double()),
    ]


@needs_torch
@pytest.mark.parametrize("k", range(len(_errors(tp))))
def test_errors_match_torch(k):
    got = []
    for lib in (tp, torch):
        with pytest.raises(Exception) as info:
            _errors(lib)[k]()
        got.append((type(info.value).__name__, str(info.value)))
    assert got[0] == got[1]


def test_empty_batch_and_no_grad_inputs():
    out = R.rnn_relu_cell(tp.ones(0, 4), tp.ones(0, 5), tp.ones(5, 4), tp.ones(5, 5))
    assert tuple(out.shape) == (0, 5)
    hy, cy = R.lstm_cell(tp.ones(2, 4), [tp.ones(2, 5), tp.ones(2, 5)], tp.ones(20, 4), tp.ones(20, 5))
    assert hy.grad_fn is None and cy.grad_fn is None and tuple(hy.shape) == (2, 5)


@pytest.mark.parametrize("name", sorted(GATES))
def test_vmap_and_forward_mode_follow_from_the_ops(name):
    """vmap over a batch of weight sets equals a loop; jvp equals the vjp's transpose."""
    arrs = _arrays(name, n=2, i=3, h=2, seed=5)
    ts = [tp.tensor(a) for a in arrs]
    k = 3 if name == "lstm_cell" else 2                # index of w_ih
    stack = tp.stack([ts[k] * (1 + 0.1 * j) for j in range(3)])

    def f(w):
        return _call(tp, name, ts[:k] + [w] + ts[k + 1:])[0]
    out = tp.func.vmap(f)(stack)
    for j in range(3):
        assert_close(out[j].numpy(), f(stack[j]).numpy(), atol=1e-12)
    tangent = tp.tensor(np.random.default_rng(6).normal(size=tuple(ts[0].shape)))
    cot = tp.tensor(np.random.default_rng(7).normal(size=(2, 2)))

    def g(x):
        return _call(tp, name, [x] + ts[1:])[0]
    _, jv = tp.func.jvp(g, (ts[0],), (tangent,))
    _, vjp_fn = tp.func.vjp(g, ts[0])
    (vj,) = vjp_fn(cot)
    assert abs((jv * cot).sum().item() - (vj * tangent).sum().item()) < 1e-10


def test_top_level_names_once_registered():
    """``tensorplay.<name>`` is this module's function once ``rnn_cells`` is in
    ``ops/__init__.py``'s module list (checked only when it is)."""
    for name in GATES:
        if hasattr(tp, name):
            assert getattr(tp, name) is getattr(R, name) and name in tp.__all__
    assert sorted(R.__all__) == sorted(GATES)
