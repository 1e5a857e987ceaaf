"""tensorplay.optim.swa_utils: AveragedModel, SWALR, update_bn and the
averaging rules give PyTorch's numbers (bit for bit where both libraries are
fed the same weights: the averages, the learning rates), and behave as
PyTorch's (errors, state dicts); with torch absent the properties are
checked against hand computations."""
import warnings

import numpy as np
import pytest

import tensorplay as tp
from conftest import exact

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")

SHAPES = [(6, 40), (6,), (6,), (6,), (2, 6), (2,)]


def _model(T):
    nn = T.nn
    return nn.Sequential(nn.Linear(40, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2))


def _sequence(n=6, seed=0):
    """``n`` states of the model: its parameters, then its buffers (running mean,
    var, num_batches_tracked)."""
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(s) for s in SHAPES]
            + [rng.standard_normal(6), rng.random(6) + 0.5, np.int64(rng.integers(0, 50))]
            for _ in range(n)]


def _fn(T, spec):
    if spec is None:
        return None
    name, multi, *args = spec
    return getattr(T.optim.swa_utils, f"get_{name}_{'multi_' if multi else ''}avg_fn")(*args)


def _average(T, dtype, seq, avg=None, multi=None, use_buffers=False):
    m = _model(T).to(dtype)
    swa = T.optim.swa_utils.AveragedModel(m, avg_fn=_fn(T, avg), multi_avg_fn=_fn(T, multi),
                                          use_buffers=use_buffers)
    for vals in seq:
        with T.no_grad():
            for t, v in zip(list(m.parameters()) + list(m.buffers()), vals):
                t.copy_(T.tensor(np.asarray(v).astype(np.float64 if t.is_floating_point() else np.int64)))
        swa.update_parameters(m)
    return {k: v.detach().numpy().copy() for k, v in swa.state_dict().items()}


RULES = [dict(), dict(use_buffers=True), dict(multi=("ema", True, 0.9)), dict(multi=("ema", True, 0.3)),
         dict(multi=("swa", True)), dict(avg=("ema", False, 0.9)), dict(avg=("swa", False)),
         dict(multi=("ema", True, 0.99), use_buffers=True), dict(avg=("ema", False, 0.7), use_buffers=True),
         dict(multi=("ema", True, 0.0)), dict(multi=("ema", True, 1.0))]


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rule", range(len(RULES)))
def test_averages_are_torch_bit_for_bit(dtype, rule):
    seq = _sequence()
    a = _average(torch, getattr(torch, dtype), seq, **RULES[rule])
    b = _average(tp, getattr(tp, dtype), seq, **RULES[rule])
    assert list(a) == list(b)
    for k in a:
        assert a[k].dtype == b[k].dtype
        np.testing.assert_array_equal(b[k], a[k], err_msg=k)


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "complex64", "complex128"])
@pytest.mark.parametrize("spec", [("ema", 0.9), ("ema", 0.2), ("swa",)])
def test_multi_avg_fns_other_dtypes_are_torch_bit_for_bit(dtype, spec):
    rng = np.random.default_rng(3)
    vals = [rng.standard_normal(37) for _ in range(5)]
    outs = []
    for T in (torch, tp):
        p = T.nn.Parameter(T.zeros(37, dtype=getattr(T, dtype)))
        m = T.nn.ParameterList([p])
        fn = getattr(T.optim.swa_utils, f"get_{spec[0]}_multi_avg_fn")(*spec[1:])
        swa = T.optim.swa_utils.AveragedModel(m, multi_avg_fn=fn)
        for v in vals:
            with T.no_grad():
                x = T.tensor(v)
                if "complex" in dtype:
                    x = T.complex(x, T.tensor(v[::-1].copy()))
                p.copy_(x.to(getattr(T, dtype)))
            swa.update_parameters(m)
        outs.append(swa.module[0].detach().to(T.complex128 if "complex" in dtype else T.float64).numpy())
    np.testing.assert_array_equal(outs[1], outs[0])


def test_swa_average_by_hand():
    seq = _sequence(5)
    for use_buffers in (False, True):
        out = _average(tp, tp.float64, seq, use_buffers=use_buffers)
        assert int(out["n_averaged"]) == 5
        for i, (k, shape) in enumerate(zip(["module.0.weight", "module.0.bias", "module.1.weight",
                                            "module.1.bias", "module.3.weight", "module.3.bias"], SHAPES)):
            np.testing.assert_allclose(out[k], np.mean([s[i] for s in seq], axis=0), rtol=1e-13, atol=1e-15)
        rm = out["module.1.running_mean"]
        if use_buffers:     # averaged
            np.testing.assert_allclose(rm, np.mean([s[6] for s in seq], axis=0), rtol=1e-13, atol=1e-15)
        else:               # the last model's
            np.testing.assert_array_equal(rm, seq[-1][6])
            assert int(out["module.1.num_batches_tracked"]) == seq[-1][8]


def test_ema_by_hand():
    seq = _sequence(4)
    for rule in (dict(multi=("ema", True, 0.75)), dict(avg=("ema", False, 0.75))):
        out = _average(tp, tp.float64, seq, **rule)
        want = seq[0][0]
        for s in seq[1:]:
            want = 0.75 * want + 0.25 * s[0]
        np.testing.assert_allclose(out["module.0.weight"], want, rtol=1e-13, atol=1e-15)


def test_swa_multi_of_integer_buffers_raises_as_torch(T):
    with pytest.raises(RuntimeError, match="^Integer division with addcdiv is no longer supported"):
        _average(T, T.float32, _sequence(2), multi=("swa", True), use_buffers=True)


def test_custom_avg_fns(T):
    m = T.nn.Linear(2, 1)
    seen = []

    def multi(avgs, models, n):
        seen.append((len(avgs), int(n)))
        for a, p in zip(avgs, models):
            a.copy_(p * 2)
    swa = T.optim.swa_utils.AveragedModel(m, multi_avg_fn=multi)
    for _ in range(3):
        swa.update_parameters(m)
    assert seen == [(2, 1), (2, 2)]          # (the first update copies)
    assert T.equal(swa.module.weight, m.weight * 2)
    swa = T.optim.swa_utils.AveragedModel(m, avg_fn=lambda a, p, n: a + p * 0 + n)
    for _ in range(3):
        swa.update_parameters(m)
    assert T.equal(swa.module.bias, m.bias.detach() + 3) and int(swa.n_averaged) == 3


def test_averaged_model(T):
    m = _model(T)
    swa = T.optim.swa_utils.AveragedModel(m)
    assert swa.module is not m and isinstance(swa.module, T.nn.Sequential)
    assert [n for n, _ in swa.named_buffers()][0] == "n_averaged"
    assert swa.n_averaged.dtype == T.int64 and int(swa.n_averaged) == 0
    x = T.tensor(np.linspace(-1, 1, 80).reshape(2, 40), dtype=T.float32)
    swa.eval()
    m.eval()
    assert T.equal(swa(x), m(x))
    assert [n for n, _ in swa.named_parameters()] == ["module." + n for n, _ in m.named_parameters()]
    with pytest.raises(AssertionError, match=exact("Only one of avg_fn and multi_avg_fn should be provided")):
        T.optim.swa_utils.AveragedModel(m, avg_fn=T.optim.swa_utils.get_swa_avg_fn(),
                                        multi_avg_fn=T.optim.swa_utils.get_swa_multi_avg_fn())
    for fn in (T.optim.swa_utils.get_ema_avg_fn, T.optim.swa_utils.get_ema_multi_avg_fn):
        for bad in (-0.1, 1.5):
            with pytest.raises(ValueError, match=exact(f"Invalid decay value {bad} provided. Please provide "
                                                       f"a value in [0,1] range.")):
                fn(bad)


# ---------------------------------------------------------------- update_bn
def _loader(T, n=4, tuples=True):
    rng = np.random.default_rng(5)
    xs = [T.tensor(rng.standard_normal((8, 40)) * 3 + 1, dtype=T.float32) for _ in range(n)]
    return [(x, 0) for x in xs] if tuples else xs


def test_update_bn_by_hand():
    m = _model(tp)
    m[1].momentum = 0.3
    m.eval()
    loader = _loader(tp)
    tp.optim.swa_utils.update_bn(loader, m)
    assert m[1].momentum == 0.3 and not m.training
    with tp.no_grad():
        hs = [m[0](x).numpy() for x, _ in loader]
    # the plain average over the batches of each batch's mean and unbiased variance
    np.testing.assert_allclose(m[1].running_mean.numpy(), np.mean([h.mean(0) for h in hs], 0), rtol=1e-5)
    np.testing.assert_allclose(m[1].running_var.numpy(), np.mean([h.var(0, ddof=1) for h in hs], 0),
                               rtol=1e-5)
    assert int(m[1].num_batches_tracked) == 4
    m.train()
    tp.optim.swa_utils.update_bn(_loader(tp, tuples=False), m)      # (plain tensors too)
    assert m.training
    tp.optim.swa_utils.update_bn(_loader(tp), tp.nn.Linear(40, 2))   # no batch norm: nothing to do


@needs_torch
def test_update_bn_matches_torch():
    res = []
    for T in (torch, tp):
        swa = T.optim.swa_utils.AveragedModel(_model(T))
        seq = _sequence(3)
        m = swa.module
        for vals in seq:
            with T.no_grad():
                for t, v in zip(list(m.parameters()), vals):
                    t.copy_(T.tensor(v.astype(np.float32)))
            swa.update_parameters(m)
        T.optim.swa_utils.update_bn(_loader(T), swa)
        res.append({k: v.numpy().copy() for k, v in swa.state_dict().items()})
    a, b = res
    assert list(a) == list(b)
    for k in a:
        np.testing.assert_allclose(b[k], a[k], rtol=2e-6, atol=1e-6, err_msg=k)


# ---------------------------------------------------------------- SWALR
def _optimizer(T, lrs=(0.1, 0.3)):
    return T.optim.SGD([{"params": [T.nn.Parameter(T.zeros(2))], "lr": lr} for lr in lrs], momentum=0.9)


SCHEDULES = [dict(swa_lr=0.05), dict(swa_lr=[0.05, 0.01], anneal_epochs=3, anneal_strategy="linear"),
             dict(swa_lr=0.5, anneal_epochs=0), dict(swa_lr=0.02, anneal_epochs=1),
             dict(swa_lr=[0.2, 0.0], anneal_epochs=7, anneal_strategy="cos")]


def _lrs(T, kw, steps=14, poke=None):
    o = _optimizer(T)
    s = T.optim.swa_utils.SWALR(o, **kw)
    out = [s.get_last_lr()]
    for i in range(steps):
        o.step()
        if poke is not None and i == poke:
            o.param_groups[0]["lr"] = 0.7      # a rate changed by hand is annealed from
        s.step()
        out.append(s.get_last_lr())
    return out


@needs_torch
@pytest.mark.parametrize("kw", range(len(SCHEDULES)))
@pytest.mark.parametrize("poke", [None, 2])
def test_swalr_is_torch_bit_for_bit(kw, poke):
    assert _lrs(tp, SCHEDULES[kw], poke=poke) == _lrs(torch, SCHEDULES[kw], poke=poke)


def test_swalr_by_hand():
    lrs = [g[0] for g in _lrs(tp, dict(swa_lr=0.05, anneal_epochs=4, anneal_strategy="linear"), steps=6)]
    want = [0.1] + [0.05 * a + 0.1 * (1 - a) for a in (0.25, 0.5, 0.75, 1.0, 1.0, 1.0)]
    np.testing.assert_allclose(lrs, want, rtol=1e-14)
    cos = [g[0] for g in _lrs(tp, dict(swa_lr=0.05, anneal_epochs=4), steps=6)]
    np.testing.assert_allclose(cos[-1], 0.05, rtol=1e-14)
    assert all(a > b for a, b in zip(cos[:5], cos[1:5]))


def test_swalr_errors_and_state(T):
    SWALR = T.optim.swa_utils.SWALR
    with pytest.raises(ValueError, match=exact("anneal_strategy must be one of 'cos' or 'linear', instead "
                                               "got exp")):
        SWALR(_optimizer(T), 0.05, anneal_strategy="exp")
    for bad in (-1, 2.0):
        with pytest.raises(ValueError, match=exact(f"anneal_epochs must be equal or greater than 0, got "
                                                   f"{bad}")):
            SWALR(_optimizer(T), 0.05, anneal_epochs=bad)
    with pytest.raises(ValueError, match=exact("swa_lr must have the same length as optimizer.param_groups. "
                                               "swa_lr has 1 values, param_groups has 2.")):
        SWALR(_optimizer(T), [0.05])
    o = _optimizer(T)
    s = SWALR(o, [0.05, 0.01], anneal_epochs=2, anneal_strategy="linear")
    assert [g["swa_lr"] for g in o.param_groups] == [0.05, 0.01]
    sd = s.state_dict()
    assert sorted(sd) == ["_anneal_strategy", "_get_lr_called_within_step", "_is_initial", "_last_lr",
                          "_step_count", "anneal_epochs", "base_lrs", "last_epoch"]
    with pytest.warns(UserWarning, match=exact("To get the last learning rate computed by the scheduler, "
                                               "please use `get_last_lr()`.")):
        s.get_lr()
    o2 = _optimizer(T)
    s2 = SWALR(o2, [0.05, 0.01])            # cos, 10 epochs: replaced by the loaded state
    s2.load_state_dict(sd)
    assert s2.anneal_func(0.5) == 0.5 and s2.anneal_epochs == 2     # (linear again)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for sch, opt in ((s, o), (s2, o2)):
            opt.step()
            sch.step()
    assert s.get_last_lr() == s2.get_last_lr()


@needs_torch
def test_training_loop_matches_torch():
    """SGD with SWALR and an AveragedModel from the same initial weights and data:
    PyTorch's averaged model, up to the float32 rounding of the training itself."""
    rng = np.random.default_rng(1)
    W = [rng.standard_normal(s).astype(np.float32) * 0.3 for s in SHAPES]
    X = [rng.standard_normal((8, 40)).astype(np.float32) for _ in range(3)]
    Y = [rng.standard_normal((8, 2)).astype(np.float32) for _ in range(3)]
    res = []
    for T in (torch, tp):
        m = _model(T)
        with T.no_grad():
            for p, w in zip(m.parameters(), W):
                p.copy_(T.tensor(w))
        su = T.optim.swa_utils
        swa = su.AveragedModel(m, multi_avg_fn=su.get_ema_multi_avg_fn(0.8))
        opt = T.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
        sched = su.SWALR(opt, swa_lr=0.01, anneal_epochs=3)
        lrs = []
        for _ in range(5):
            for x, y in zip(X, Y):
                opt.zero_grad()
                ((m(T.tensor(x)) - T.tensor(y)) ** 2).mean().backward()
                opt.step()
            swa.update_parameters(m)
            sched.step()
            lrs.append(sched.get_last_lr())
        su.update_bn([(T.tensor(x), 0) for x in X], swa)
        res.append(({k: v.numpy().copy() for k, v in swa.state_dict().items()}, lrs))
    (a, la), (b, lb) = res
    assert la == lb
    for k in a:
        np.testing.assert_allclose(b[k], a[k], rtol=1e-4, atol=1e-5, err_msg=k)
