"""tensorplay.optim.lr_scheduler: every scheduler's learning-rate sequence
(get_last_lr, and the momentum it cycles) is PyTorch's, bit for bit, for 20+
steps; behaviour (state dicts, warnings, errors) on both libraries."""
import warnings

import pytest

import tensorplay as tp
from conftest import exact

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def _optimizer(T, opt="SGD", lrs=(0.1, 0.05)):
    ps = [T.nn.Parameter(T.zeros(2)) for _ in lrs]
    groups = [{"params": [p], "lr": lr} for p, lr in zip(ps, lrs)]
    if opt == "SGD":
        return T.optim.SGD(groups, momentum=0.9)
    return getattr(T.optim, opt)(groups)


def _halve(epoch):
    return 0.5 ** (epoch // 3)


CASES = [
    ("StepLR", dict(step_size=3, gamma=0.5), "SGD"),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.3), "SGD"),
    ("ExponentialLR", dict(gamma=0.9), "SGD"),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.001), "SGD"),
    ("LambdaLR", dict(lr_lambda=[_halve, lambda e: 1 / (e + 1)]), "SGD"),
    ("LinearLR", dict(start_factor=0.25, end_factor=0.9, total_iters=6), "SGD"),
    ("ConstantLR", dict(factor=0.5, total_iters=4), "SGD"),
    ("PolynomialLR", dict(total_iters=8, power=2.0), "SGD"),
    ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.95), "SGD"),
    ("OneCycleLR", dict(max_lr=[1.0, 0.5], total_steps=25), "SGD"),
    ("OneCycleLR", dict(max_lr=1.0, epochs=5, steps_per_epoch=5, anneal_strategy="linear",
                        three_phase=True, pct_start=0.25), "Adam"),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.01), "SGD"),
]


def _run(T, name, kw, opt, steps=24):
    o = _optimizer(T, opt)
    s = getattr(T.optim.lr_scheduler, name)(o, **kw)
    lrs, moms = [s.get_last_lr()], []
    for _ in range(steps):
        o.step()
        s.step()
        lrs.append(s.get_last_lr())
        moms.append([g["momentum"] if "momentum" in g else g["betas"] for g in o.param_groups])
    return lrs, moms, [g["lr"] for g in o.param_groups]


@needs_torch
@pytest.mark.parametrize("name,kw,opt", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_sequence_matches_torch(name, kw, opt):
    steps = 24 if name != "OneCycleLR" else 25
    assert _run(tp, name, kw, opt, steps) == _run(torch, name, kw, opt, steps)


def _two_phase(T, o):
    warm = T.optim.lr_scheduler.LinearLR(o, 0.1, total_iters=3)
    decay = T.optim.lr_scheduler.CosineAnnealingLR(o, T_max=10)
    return T.optim.lr_scheduler.SequentialLR(o, [warm, decay], milestones=[4])


def _seq(T, make, steps=20):
    o = _optimizer(T)
    s = make(T, o)
    out = [s.get_last_lr()]
    for _ in range(steps):
        o.step()
        s.step()
        out.append(s.get_last_lr())
    return out


@needs_torch
def test_sequential_and_chained_match_torch():
    assert _seq(tp, _two_phase) == _seq(torch, _two_phase)

    def chained(T, o):
        return T.optim.lr_scheduler.ChainedScheduler(
            [T.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=5),
             T.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)])
    assert _seq(tp, chained) == _seq(torch, chained)


def _plateau(T, **kw):
    o = _optimizer(T)
    s = T.optim.lr_scheduler.ReduceLROnPlateau(o, **kw)
    out = []
    for m in [5, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3.5, 2, 2, 2, 2, 2, 2]:
        o.step()
        s.step(m)
        out.append((s.get_last_lr(), s.num_bad_epochs, s.cooldown_counter, s.best))
    return out


@needs_torch
@pytest.mark.parametrize("kw", [dict(patience=2, cooldown=1, factor=0.5, min_lr=[0.01, 0.02]),
                                dict(mode="max", patience=1, threshold=0.1, threshold_mode="abs"),
                                dict(patience=0, threshold=0.2, eps=0.03)])
def test_reduce_on_plateau_matches_torch(kw):
    assert _plateau(tp, **kw) == _plateau(torch, **kw)


@needs_torch
@pytest.mark.parametrize("name,kw", [("StepLR", dict(step_size=3, gamma=0.5)),
                                     ("MultiStepLR", dict(milestones=[2, 5, 5])),
                                     ("ExponentialLR", dict(gamma=0.9)),
                                     ("CosineAnnealingLR", dict(T_max=7)),
                                     ("LinearLR", dict(total_iters=4)),
                                     ("ConstantLR", dict()),
                                     ("PolynomialLR", dict(power=0.5)),
                                     ("CosineAnnealingWarmRestarts", dict(T_0=2, T_mult=3))])
def test_step_with_epoch_uses_the_closed_form_as_torch(name, kw):
    def run(T):
        o = _optimizer(T)
        s = getattr(T.optim.lr_scheduler, name)(o, **kw)
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for e in [3, 1, 7, 4, 10]:
                o.step()
                s.step(e)
                out.append(s.get_last_lr())
        return out
    assert run(tp) == run(torch)


def test_values_by_hand(T):
    """Known values (both libraries): StepLR halves every 2; cosine ends at eta_min."""
    o = _optimizer(T, lrs=(1.0,))
    s = T.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5)
    seen = [s.get_last_lr()[0]]
    for _ in range(5):
        o.step()
        s.step()
        seen.append(s.get_last_lr()[0])
    assert seen == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25]
    o = _optimizer(T, lrs=(1.0,))
    s = T.optim.lr_scheduler.CosineAnnealingLR(o, T_max=4, eta_min=0.1)
    for _ in range(4):
        o.step()
        s.step()
    assert s.get_last_lr()[0] == pytest.approx(0.1)
    assert o.param_groups[0]["lr"] == s.get_last_lr()[0]


def test_state_dict_round_trip(T):
    o = _optimizer(T)
    s = T.optim.lr_scheduler.MultiStepLR(o, milestones=[2, 4], gamma=0.5)
    for _ in range(3):
        o.step()
        s.step()
    sd = s.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 3
    o2 = _optimizer(T)
    o2.load_state_dict(o.state_dict())
    s2 = T.optim.lr_scheduler.MultiStepLR(o2, milestones=[9], gamma=0.1)
    s2.load_state_dict(sd)
    for a, b in ((o, s), (o2, s2)):
        a.step()
        b.step()
    assert s2.get_last_lr() == s.get_last_lr() == [0.025, 0.0125]


def test_lambda_state_dict_keeps_callable_objects_only(T):
    class Factor:
        def __init__(self):
            self.k = 0.5

        def __call__(self, epoch):
            return self.k ** epoch
    o = _optimizer(T)
    s = T.optim.lr_scheduler.LambdaLR(o, [Factor(), lambda e: 1.0])
    sd = s.state_dict()
    assert sd["lr_lambdas"] == [{"k": 0.5}, None]
    sd["lr_lambdas"][0]["k"] = 0.25
    s.load_state_dict(sd)
    o.step()
    s.step()
    assert s.get_last_lr() == [0.1 * 0.25, 0.05]


def test_sequential_state_dict(T):
    o = _optimizer(T)
    s = _two_phase(T, o)
    for _ in range(6):
        o.step()
        s.step()
    sd = s.state_dict()
    assert len(sd["_schedulers"]) == 2 and sd["last_epoch"] == 6
    o2 = _optimizer(T)
    s2 = _two_phase(T, o2)          # (making a scheduler sets the rates: before loading them)
    o2.load_state_dict(o.state_dict())
    s2.load_state_dict(sd)
    for a, b in ((o, s), (o2, s2)):
        a.step()
        b.step()
    assert s2.get_last_lr() == s.get_last_lr()


def test_warnings(T):
    o = _optimizer(T)
    s = T.optim.lr_scheduler.StepLR(o, step_size=2)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before "
                                         "`optimizer.step\\(\\)`"):
        s.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        s.get_lr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        o.step()
        s.step()
        s.get_last_lr()


def test_errors(T):
    o = _optimizer(T)
    S = T.optim.lr_scheduler
    with pytest.raises(TypeError, match=exact("int is not an Optimizer")):
        S.StepLR(3, step_size=1)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups"):
        S.StepLR(o, step_size=1, last_epoch=3)
    with pytest.raises(ValueError, match=exact("Expected 2 lr_lambdas, but got 1")):
        S.LambdaLR(o, [lambda e: 1.0])
    with pytest.raises(ValueError, match=exact("Factor should be < 1.0.")):
        S.ReduceLROnPlateau(o, factor=1.0)
    with pytest.raises(ValueError, match=exact("mode maximum is unknown!")):
        S.ReduceLROnPlateau(o, mode="maximum")
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        S.OneCycleLR(o, max_lr=1.0)
    with pytest.raises(ValueError, match="Sequential Schedulers expects number of schedulers "
                                         "provided to be one more than the number of milestone"):
        S.SequentialLR(o, [S.ExponentialLR(o, 0.9)], milestones=[3])
    with pytest.raises(ValueError, match=exact("Starting multiplicative factor expected to be "
                                               "greater than 0 and less or equal to 1.")):
        S.LinearLR(o, start_factor=0)
    s = S.OneCycleLR(o, max_lr=1.0, total_steps=2)
    o.step()
    s.step()
    s.step()
    with pytest.raises(ValueError, match=exact("Tried to step 3 times. The specified number of "
                                               "total steps is 2")):
        s.step()


def test_tensor_lr_is_updated_in_place():
    p = tp.nn.Parameter(tp.zeros(2))
    lr = tp.tensor(0.1)
    o = tp.optim.SGD([p], lr=lr)
    s = tp.optim.lr_scheduler.ExponentialLR(o, gamma=0.5)
    o.step()
    s.step()
    assert o.param_groups[0]["lr"] is lr and lr.item() == pytest.approx(0.05)
    last = s.get_last_lr()[0]
    assert last is not lr and last.item() == pytest.approx(0.05)
