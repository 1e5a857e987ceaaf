"""``optim.Muon``: parameter trajectories against PyTorch's (bit for bit on small
matrices, to bfloat16 rounding on larger ones), its Newton-Schulz iteration and
learning-rate adjustments, and its errors."""
import math

import numpy as np
import pytest

import tensorplay as tp
from tensorplay.optim._muon import _adjust_lr, _zeropower_via_newtonschulz

from conftest import assert_close, torch

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")

KWARGS = [{}, {"lr": 0.02}, {"lr": 0.05, "nesterov": False, "momentum": 0.9},
          {"lr": 0.01, "adjust_lr_fn": "match_rms_adamw"}, {"lr": 0.03, "adjust_lr_fn": "original"},
          {"ns_steps": 3, "ns_coefficients": (2.0, -1.5, 0.5), "weight_decay": 0.0},
          {"lr": tp.tensor(0.02), "weight_decay": 0.3}]


def _run(L, kw, shapes, steps, dtype="float32", seed=0, closure=False):
    rng = np.random.default_rng(seed)
    init = [rng.normal(size=s).astype(dtype) for s in shapes]
    grads = [[rng.normal(size=s).astype(dtype) for s in shapes] for _ in range(steps)]
    ps = [L.nn.Parameter(L.tensor(a.copy())) for a in init]
    kw = {k: (L.tensor(v.item()) if isinstance(v, tp.Tensor) else v) for k, v in kw.items()}
    opt = L.optim.Muon(ps, **kw)
    traj = []
    for k in range(steps):
        for p, g in zip(ps, grads[k]):
            p.grad = L.tensor(g.copy())
        opt.step()
        traj.append([p.detach().numpy().copy() for p in ps] +
                    [opt.state[p]["momentum_buffer"].numpy().copy() for p in ps])
    return traj


@needs_torch
@pytest.mark.parametrize("k", range(len(KWARGS)))
def test_small_matrices_follow_torch_exactly(k):
    a = _run(tp, KWARGS[k], [(4, 6), (6, 4), (3, 3)], 6)
    b = _run(torch, KWARGS[k], [(4, 6), (6, 4), (3, 3)], 6)
    for sa, sb in zip(a, b):
        for x, y in zip(sa, sb):
            assert x.dtype == y.dtype and np.array_equal(x, y)


@needs_torch
@pytest.mark.parametrize("k", [0, 2, 3, 5])
def test_larger_matrices_follow_torch_to_bfloat16_rounding(k):
    """The float32 products inside the bfloat16 iteration sum in another order
    than PyTorch's: one bfloat16 step (2^-8 relative) of the update apart now and then."""
    a = _run(tp, KWARGS[k], [(32, 16), (48, 80)], 5, seed=1)
    b = _run(torch, KWARGS[k], [(32, 16), (48, 80)], 5, seed=1)
    lr = KWARGS[k].get("lr", 1e-3)
    for step, (sa, sb) in enumerate(zip(a, b), 1):
        for x, y in zip(sa[:2], sb[:2]):
            assert_close(x, y, atol=lr * 2 * 2 ** -7 * step, rtol=0)
        for x, y in zip(sa[2:], sb[2:]):
            assert_close(x, y, atol=1e-6, rtol=1e-6)


@needs_torch
def test_float64_parameters_follow_torch():
    a = _run(tp, {"lr": 0.05}, [(5, 3), (2, 7)], 5, dtype="float64")
    b = _run(torch, {"lr": 0.05}, [(5, 3), (2, 7)], 5, dtype="float64")
    for sa, sb in zip(a, b):
        for x, y in zip(sa, sb):
            assert x.dtype == np.float64
            assert_close(x, y, atol=1e-15, rtol=1e-15)


@needs_torch
@pytest.mark.parametrize("shape", [(4, 6), (6, 4), (16, 5), (3, 200), (1, 5), (5, 1), (3, 4)])
def test_newton_schulz_matches_torch(shape):
    from torch.optim._muon import _zeropower_via_newtonschulz as theirs
    g = np.random.default_rng(sum(shape)).normal(size=shape).astype(np.float32)
    if shape == (3, 4):
        g[:] = 0                                   # the eps clamp: zeros, not NaN
    ours = _zeropower_via_newtonschulz(g, (3.4445, -4.7750, 2.0315), 5, 1e-7)
    ref = theirs(torch.tensor(g), (3.4445, -4.7750, 2.0315), 5, 1e-7).float().numpy()
    assert ours.shape == shape and np.array_equal(ours.astype(np.float32), ref)


def test_newton_schulz_orthogonalizes():
    """Without torch: the singular values of the result are near 1 (PyTorch's
    coefficients put them in roughly [0.5, 1.5]), the singular vectors kept."""
    g = np.random.default_rng(0).normal(size=(8, 5)).astype(np.float32)
    o = _zeropower_via_newtonschulz(g, (3.4445, -4.7750, 2.0315), 5, 1e-7).astype(np.float64)
    s = np.linalg.svd(o, compute_uv=False)
    assert s.min() > 0.5 and s.max() < 1.5
    u, _, vt = np.linalg.svd(g.astype(np.float64), full_matrices=False)
    assert np.abs(o - u @ vt).max() < 0.5
    z = _zeropower_via_newtonschulz(np.zeros((2, 3), np.float32), (3.4445, -4.7750, 2.0315), 5, 1e-7)
    assert not np.any(z.astype(np.float32))


def test_adjust_lr():
    assert _adjust_lr(0.1, None, (8, 2)) == pytest.approx(0.2)
    assert _adjust_lr(0.1, "original", (2, 8)) == pytest.approx(0.1)
    assert _adjust_lr(0.1, "match_rms_adamw", (9, 4)) == pytest.approx(0.1 * 0.2 * 3)


def test_one_step_by_hand():
    """Without torch: one step from a zero buffer, no weight decay, written out."""
    w = tp.nn.Parameter(tp.eye(2))
    opt = tp.optim.Muon([w], lr=0.1, weight_decay=0.0)
    (w * tp.tensor([[1.0, 0.0], [0.0, -1.0]])).sum().backward()
    opt.step()
    # buf = 0.05 g; nesterov: g.lerp(buf, 0.95) = 0.0975 g; NS of diag(1, -1) / sqrt(2)
    o = _zeropower_via_newtonschulz(np.diag([0.0975, -0.0975]).astype(np.float32),
                                    (3.4445, -4.7750, 2.0315), 5, 1e-7).astype(np.float32)
    assert_close(w.detach().numpy(), np.eye(2) - 0.1 * o, atol=1e-7)
    assert_close(opt.state[w]["momentum_buffer"].numpy(), [[0.05, 0], [0, -0.05]], atol=1e-8)
    assert w._version > 0 and sorted(opt.state[w]) == ["momentum_buffer"]


def test_state_dict_round_trip_and_closure():
    """A loaded state dict continues the run exactly; step returns the closure's loss."""
    rng = np.random.default_rng(2)
    x = tp.tensor(rng.normal(size=(5, 3)).astype(np.float32))
    init = [rng.normal(size=(3, 4)).astype(np.float32) for _ in range(2)]

    def make(params):
        opt = tp.optim.Muon(params, lr=0.05)

        def closure():
            opt.zero_grad()
            loss = (x @ params[0] @ params[1].T).pow(2).mean()
            loss.backward()
            return loss
        return opt, closure
    ws = [tp.nn.Parameter(tp.tensor(a)) for a in init]
    opt, closure = make(ws)
    first = opt.step(closure).item()
    sd = opt.state_dict()
    assert sd["param_groups"][0]["ns_coefficients"] == (3.4445, -4.775, 2.0315)
    ws2 = [tp.nn.Parameter(w.detach().clone()) for w in ws]
    opt2, closure2 = make(ws2)
    opt2.load_state_dict(sd)
    for _ in range(3):
        opt.step(closure)
        opt2.step(closure2)
    for w, w2 in zip(ws, ws2):
        assert tp.equal(w.detach(), w2.detach())
    assert opt.step(closure).item() < first


def _errors(L):
    p = L.nn.Parameter(L.ones(2, 3))

    def step(kw, param=p, grad=None):
        o = L.optim.Muon([param], **kw)
        param.grad = L.ones(tuple(param.shape), dtype=param.dtype) if grad is None else grad
        o.step()

    def mixed():
        o = L.optim.Muon([p])
        q = L.nn.Parameter(L.ones(3))
        o.add_param_group({"params": [q]})
        q.grad, p.grad = L.ones(3), L.ones(2, 3)
        o.step()
    return [
        lambda: L.optim.Muon([L.nn.Parameter(L.ones(3))]),
        lambda: L.optim.Muon([L.nn.Parameter(L.ones(1, 2, 3))]),
        lambda: L.optim.Muon([p], lr=-1),
        lambda: L.optim.Muon([p], lr=L.tensor([1.0, 2.0])),
        lambda: L.optim.Muon([p], lr=L.tensor(-1.0)),
        lambda: L.optim.Muon([p], momentum=-1),
        lambda: L.optim.Muon([p], weight_decay=-1),
        lambda: L.optim.Muon([p], adjust_lr_fn="foo"),
        lambda: L.optim.Muon([p], foreach=True),
        lambda: step({"ns_steps": 100}),
        lambda: step({"ns_coefficients": (1.0, 2.0)}),
        lambda: step({}, param=L.nn.Parameter(L.ones(2, 3, dtype=L.complex64))),
        mixed,
    ]


@pytest.mark.parametrize("k", range(13))
def test_errors(k):
    with pytest.raises((ValueError, TypeError, RuntimeError)) as ours:
        _errors(tp)[k]()
    if torch is not None:
        with pytest.raises(Exception) as theirs:
            _errors(torch)[k]()
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value).replace("tensorplay", "torch") == str(theirs.value)


def test_momentum_buffer_moves_before_a_failing_iteration():
    """As in PyTorch, the buffer is updated before the Newton-Schulz checks run."""
    w = tp.nn.Parameter(tp.ones(2, 2))
    opt = tp.optim.Muon([w], ns_steps=100)
    w.grad = tp.ones(2, 2)
    with pytest.raises(ValueError, match="Number of steps must be less than 100"):
        opt.step()
    assert_close(opt.state[w]["momentum_buffer"].numpy(), np.full((2, 2), 0.05), atol=1e-7)
    assert w.tolist() == [[1.0, 1.0], [1.0, 1.0]] and math.isfinite(w.sum().item())
