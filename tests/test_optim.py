"""tensorplay.optim: every optimizer's trajectory against PyTorch's (20 steps,
several option combinations, float32 and float64, real and complex), and the
Optimizer machinery (groups, state dicts, hooks, zero_grad, errors) on both
libraries with the same code."""
import copy
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

# (optimizer, options): every option of every optimizer appears in some case
CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.1)),
    ("Adam", dict(lr=0.05, weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.05, betas=(0.3, 0.8), eps=1e-3, maximize=True)),
    ("Adam", dict(lr=0.05, weight_decay=0.2, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.1)),
    ("AdamW", dict(lr=0.05, amsgrad=True, weight_decay=0.3, maximize=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, centered=True, momentum=0.5, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, momentum=0.3, eps=1e-4, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1, weight_decay=0.1,
                     eps=1e-6, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1, maximize=True)),
    ("ASGD", dict(lr=0.1)),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=5, weight_decay=0.1, maximize=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2), maximize=True)),
]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'defaults'}" for n, kw in CASES]


def _grad_of(d, k):
    """A deterministic gradient field (the same arrays go to both libraries)."""
    return (np.tanh(d) + 0.1 * d + 0.05 * (k + 1)).astype(d.dtype)


def _initial(dtype, complex_):
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(s) for s in [(30, 20), (17,), ()]]
    if complex_:
        ctype = np.complex64 if dtype == np.float32 else np.complex128
        return [(a + 1j * rng.standard_normal(a.shape)).astype(ctype) for a in arrays]
    return [a.astype(dtype) for a in arrays]


def _scale_tol(y, dtype, ulps):
    """``ulps`` units in the last place of the largest magnitude in ``y`` (at least
    of 1: the values start at that scale, and one that passed near zero carries
    the rounding of the larger terms that cancelled)."""
    return ulps * np.spacing(np.maximum(np.abs(y).max(), 1).astype(np.dtype(dtype)))


@needs_torch
@pytest.mark.parametrize("complex_", [False, True], ids=["real", "complex"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name,kw", CASES, ids=IDS)
def test_trajectory_matches_torch(name, kw, dtype, complex_):
    """The same gradients in, for 20 steps: the parameters agree with PyTorch's to
    a few units in the last place (PyTorch's kernels fuse some multiply-adds)."""
    init = _initial(dtype, complex_)
    ours = [tp.nn.Parameter(tp.tensor(a.copy())) for a in init]
    theirs = [torch.nn.Parameter(torch.tensor(a.copy())) for a in init]
    o1 = getattr(tp.optim, name)(ours, **kw)
    o2 = getattr(torch.optim, name)(theirs, **kw)
    for k in range(20):
        for a, b in zip(ours, theirs):
            g = _grad_of(a.detach().numpy(), k)
            a.grad = tp.tensor(g.copy())
            b.grad = torch.tensor(g.copy())
        o1.step()
        o2.step()
        for a, b in zip(ours, theirs):
            x, y = a.detach().numpy(), b.detach().numpy()
            assert np.abs(x - y).max() <= _scale_tol(y, dtype, 16), (k, np.abs(x - y).max())
    # the state has PyTorch's keys and values
    s1, s2 = o1.state_dict(), o2.state_dict()
    assert s1["param_groups"] == s2["param_groups"]
    assert s1["state"].keys() == s2["state"].keys()
    for i in s2["state"]:
        assert s1["state"][i].keys() == s2["state"][i].keys()
        for key, v in s2["state"][i].items():
            mine = s1["state"][i][key].numpy()
            assert mine.dtype == v.numpy().dtype and mine.shape == tuple(v.shape), key
            if key == "step":
                assert mine == v.numpy()
            else:
                assert np.abs(mine - v.numpy()).max() <= _scale_tol(v.numpy(), dtype, 64), key


def _rosenbrock(v):
    x, y = v[:-1], v[1:]
    return ((1 - x) ** 2 + 100 * (y - x * x) ** 2).sum()


@needs_torch
@pytest.mark.parametrize("name,kw", CASES, ids=IDS)
def test_training_loop_matches_torch(name, kw):
    """The usual loop (zero_grad, loss, backward, step), each library with its own
    autograd, on a Rosenbrock-like objective in float64: 20 steps agree."""
    kw = dict(kw, lr=kw.get("lr", 1.0) * 1e-2)
    sign = -1 if kw.get("maximize") else 1
    init = np.array([-1.2, 1.0, -0.5, 0.8, 1.3])
    a = tp.nn.Parameter(tp.tensor(init.copy()))
    b = torch.nn.Parameter(torch.tensor(init.copy()))
    o1, o2 = getattr(tp.optim, name)([a], **kw), getattr(torch.optim, name)([b], **kw)
    for _ in range(20):
        for p, o in ((a, o1), (b, o2)):
            o.zero_grad()
            (sign * _rosenbrock(p)).backward()
            o.step()
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-13)


def _lbfgs_run(T, opt_kw, dtype, steps, init):
    p = T.nn.Parameter(T.tensor(init.astype(dtype)))
    opt = T.optim.LBFGS([p], **opt_kw)

    def closure():
        opt.zero_grad()
        loss = _rosenbrock(p)
        loss.backward()
        return loss
    out = []
    for _ in range(steps):
        loss = opt.step(closure)
        out.append((float(loss.detach()), p.detach().numpy().copy(), opt.state[p]["func_evals"],
                    opt.state[p]["n_iter"]))
    return out


LBFGS_CASES = [dict(lr=0.1, max_iter=5, history_size=4),
               dict(lr=1, max_iter=5, history_size=4, line_search_fn="strong_wolfe"),
               dict(lr=1, max_iter=7, max_eval=9, history_size=3, line_search_fn="strong_wolfe",
                    tolerance_change=1e-12)]


@needs_torch
@pytest.mark.parametrize("kw", LBFGS_CASES, ids=["fixed-step", "strong-wolfe", "max-eval"])
def test_lbfgs_matches_torch_on_rosenbrock(kw):
    """float64: the whole 20-step run (losses, points, evaluation counts) agrees;
    float32: the first steps agree to rounding (later ones drift apart, as any two
    float32 runs of L-BFGS on Rosenbrock do), both reach the minimum with the
    line search."""
    init = np.array([-1.2, 1.0, -0.5, 0.8, 1.3])
    ours = _lbfgs_run(tp, kw, np.float64, 20, init)
    theirs = _lbfgs_run(torch, kw, np.float64, 20, init)
    for (l1, x1, e1, n1), (l2, x2, e2, n2) in zip(ours, theirs):
        assert (e1, n1) == (e2, n2)
        np.testing.assert_allclose(l1, l2, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(x1, x2, rtol=1e-7, atol=1e-9)
    ours = _lbfgs_run(tp, kw, np.float32, 20, init)
    theirs = _lbfgs_run(torch, kw, np.float32, 20, init)
    np.testing.assert_allclose(ours[0][1], theirs[0][1], rtol=1e-5, atol=1e-5)
    assert ours[0][2:] == theirs[0][2:]
    if kw.get("line_search_fn"):
        np.testing.assert_allclose(ours[-1][1], np.ones(5), atol=2e-3)
        np.testing.assert_allclose(theirs[-1][1], np.ones(5), atol=2e-3)


def test_lbfgs_minimises_rosenbrock():
    """Without torch: L-BFGS with the strong-Wolfe search finds (1, 1, 1) to 1e-5
    (the default tolerances) in float64, and reports the evaluations it made."""
    out = _lbfgs_run(tp, dict(line_search_fn="strong_wolfe", max_iter=200), np.float64, 1,
                     np.array([-1.5, 2.0, 0.0]))
    loss, x, evals, iters = out[0]
    np.testing.assert_allclose(x, np.ones(3), atol=1e-5)
    assert loss > 1 and 10 < iters <= 200 and evals >= iters


def test_lbfgs_state_survives_save_and_load(tmp_path):
    """The state (history lists, direction, step) is tensors, numbers and lists,
    so it saves; a reloaded optimizer continues exactly as the original."""
    init = np.array([-1.2, 1.0, -0.5, 0.8])
    kw = dict(lr=1, max_iter=4, history_size=3, line_search_fn="strong_wolfe")
    a = tp.nn.Parameter(tp.tensor(init.copy()))
    o = tp.optim.LBFGS([a], **kw)

    def closure_for(p, opt):
        def closure():
            opt.zero_grad()
            loss = _rosenbrock(p)
            loss.backward()
            return loss
        return closure
    o.step(closure_for(a, o))
    tp.save({"p": a.detach(), "opt": o.state_dict()}, tmp_path / "ck.safetensors")
    ck = tp.load(tmp_path / "ck.safetensors")
    b = tp.nn.Parameter(ck["p"])
    o2 = tp.optim.LBFGS([b], **kw)
    o2.load_state_dict(ck["opt"])
    o.step(closure_for(a, o))
    o2.step(closure_for(b, o2))
    assert a.tolist() == b.tolist()


def test_lbfgs_rejects_groups_and_other_searches(T):
    p, q = T.zeros(2, requires_grad=True), T.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match=exact("LBFGS doesn't support per-parameter options "
                                               "(parameter groups)")):
        T.optim.LBFGS([{"params": [p]}, {"params": [q]}])
    opt = T.optim.LBFGS([p], line_search_fn="backtracking")

    def closure():
        opt.zero_grad()
        loss = ((p - 1) ** 2).sum()
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match=exact("only 'strong_wolfe' is supported")):
        opt.step(closure)


# ---------------------------------------------------------------- behaviour, both libraries
def _quad_step(T, opt, p):
    opt.zero_grad()
    loss = ((p - 3) ** 2).sum()
    loss.backward()
    opt.step()
    return loss


def test_sgd_values(T):
    """SGD with momentum by hand: b1 = g1, p1 = p0 - lr*b1; b2 = m*b1 + g2, ..."""
    p = T.nn.Parameter(T.tensor([1.0, -1.0], dtype=T.float64))
    opt = T.optim.SGD([p], lr=0.1, momentum=0.5)
    _quad_step(T, opt, p)          # g = 2(p-3) = [-4, -8]; p = [1.4, -0.2]
    assert p.tolist() == pytest.approx([1.4, -0.2])
    _quad_step(T, opt, p)          # g = [-3.2, -6.4]; b = [-5.2, -10.4]; p = [1.92, 0.84]
    assert p.tolist() == pytest.approx([1.92, 0.84])


def test_adam_first_step_is_lr_times_sign(T):
    p = T.nn.Parameter(T.tensor([1.0, 5.0, 2.0], dtype=T.float64))
    opt = T.optim.Adam([p], lr=0.01, eps=0)
    _quad_step(T, opt, p)
    assert p.tolist() == pytest.approx([1.01, 4.99, 2.01])


def test_param_groups_have_their_own_options(T):
    a = T.nn.Parameter(T.tensor([1.0]))
    b = T.nn.Parameter(T.tensor([1.0]))
    opt = T.optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.0)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[1]["params"][0] is b           # a lone tensor becomes a list
    assert opt.param_groups[1]["momentum"] == 0.0          # filled from the defaults
    opt.zero_grad()
    ((a - 3) ** 2 + (b - 3) ** 2).sum().backward()         # both gradients are -4
    opt.step()
    assert a.item() == pytest.approx(1.4) and b.item() == pytest.approx(3.0)


def test_add_param_group(T):
    a, b = T.nn.Parameter(T.zeros(2)), T.nn.Parameter(T.zeros(3))
    opt = T.optim.Adam([a], lr=0.1)
    opt.add_param_group({"params": [b], "lr": 0.01})
    assert len(opt.param_groups) == 2 and opt.param_groups[1]["betas"] == (0.9, 0.999)
    with pytest.raises(ValueError, match=exact("some parameters appear in more than one "
                                               "parameter group")):
        opt.add_param_group({"params": [a]})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([a])


def test_named_parameters(T):
    a, b = T.nn.Parameter(T.zeros(2)), T.nn.Parameter(T.zeros(3))
    opt = T.optim.SGD([("a", a), ("b", b)], lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["a", "b"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["a", "b"]
    with pytest.raises(ValueError, match=exact("all optimizer params should be with/without "
                                               "names. Some param names are missing")):
        T.optim.SGD([("a", a), b], lr=0.1)


def test_construction_errors(T):
    p = T.nn.Parameter(T.zeros(2))
    with pytest.raises(ValueError, match=exact("optimizer got an empty parameter list")):
        T.optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="params argument given to the optimizer should be an "
                                        "iterable of Tensors or dicts, but got "):
        T.optim.SGD(p, lr=0.1)
    with pytest.raises(TypeError, match="ordering of tensors in sets will change between runs"):
        T.optim.SGD([{"params": {p}}], lr=0.1)
    with pytest.raises(TypeError, match=exact("optimizer can only optimize Tensors, but one of "
                                              "the params is int")):
        T.optim.SGD([p, 3], lr=0.1)
    with pytest.raises(ValueError, match=exact("can't optimize a non-leaf Tensor")):
        T.optim.SGD([p * 2], lr=0.1)
    with pytest.raises(ValueError, match=exact("Invalid learning rate: -0.1")):
        T.optim.Adam([p], lr=-0.1)
    with pytest.raises(ValueError, match=exact("Invalid momentum value: -1")):
        T.optim.SGD([p], lr=0.1, momentum=-1)
    with pytest.raises(ValueError, match=exact("Nesterov momentum requires a momentum and zero "
                                               "dampening")):
        T.optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match=exact("Invalid beta parameter at index 1: 1.0")):
        T.optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match=exact("Invalid epsilon value: -1.0")):
        T.optim.RMSprop([p], eps=-1.0)
    with pytest.raises(ValueError, match=exact("Invalid rho value: 1.5")):
        T.optim.Adadelta([p], rho=1.5)
    with pytest.raises(ValueError, match=exact("Invalid lr_decay value: -1")):
        T.optim.Adagrad([p], lr_decay=-1)
    with pytest.raises(ValueError, match=exact("Invalid weight_decay value: -1")):
        T.optim.ASGD([p], weight_decay=-1)
    with pytest.raises(ValueError, match=exact("Invalid eta values: 1.2, 0.5")):
        T.optim.Rprop([p], etas=(1.2, 0.5))
    with pytest.raises(ValueError, match=exact("Invalid learning rate: -1")):
        T.optim.Rprop([p], lr=-1)
    with pytest.warns(UserWarning, match="optimizer contains a parameter group with duplicate "
                                         "parameters"):
        T.optim.SGD([p, p], lr=0.1)


def test_zero_grad(T):
    p = T.nn.Parameter(T.ones(3))
    opt = T.optim.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    g = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is g and p.grad.tolist() == [0.0, 0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None
    opt.step()                        # no gradient: nothing moves
    assert p.tolist() == [1.0, 1.0, 1.0]


def test_step_is_in_place_and_not_recorded(T):
    p = T.nn.Parameter(T.ones(3))
    opt = T.optim.Adam([p], lr=0.1)
    before = p.data_ptr()
    ((p - 3) ** 2).sum().backward()
    opt.step()
    assert p.data_ptr() == before and p.is_leaf and p.grad_fn is None and p.requires_grad
    assert p.tolist() == pytest.approx([1.1, 1.1, 1.1])


def test_step_bumps_the_version_of_saved_parameters(T):
    """A parameter saved by a graph and updated by step() is stale for that
    graph's backward: PyTorch's in-place error, not a silently wrong gradient."""
    p = T.nn.Parameter(T.ones(3))
    opt = T.optim.SGD([p], lr=0.1)
    ((p - 3) ** 2).sum().backward()
    y = (p * p).sum()
    v = p._version
    opt.step()
    assert p._version > v
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_closure_runs_with_grad_and_step_without(T):
    p = T.nn.Parameter(T.ones(2))
    opt = T.optim.SGD([p], lr=0.1)
    seen = []

    def closure():
        seen.append(T.is_grad_enabled())
        opt.zero_grad()
        loss = (p ** 2).sum()
        loss.backward()
        return loss
    opt.register_step_pre_hook(lambda o, args, kwargs: seen.append(T.is_grad_enabled()))
    with T.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 2.0 and seen == [False, True]
    assert p.tolist() == pytest.approx([0.8, 0.8])


def test_step_hooks(T):
    p = T.nn.Parameter(T.ones(2))
    opt = T.optim.SGD([p], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append(("pre", o is opt)))
    opt.register_step_post_hook(lambda o, a, k: calls.append(("post", p.tolist())))
    p.grad = T.ones(2)
    opt.step()
    assert calls == [("pre", True), ("post", pytest.approx([0.9, 0.9]))]
    h1.remove()
    opt.step()
    assert [c[0] for c in calls] == ["pre", "post", "post"]
    opt.register_step_pre_hook(lambda o, a, k: 5)
    with pytest.raises(RuntimeError, match="must return None or a tuple of"):
        opt.step()


def test_state_dict_layout_and_round_trip(T):
    """PyTorch's layout: state keyed by parameter index, groups listing indices;
    loading it into a fresh optimizer over other tensors continues identically."""
    torch_like = [T.nn.Parameter(T.tensor([1.0, 2.0])), T.nn.Parameter(T.tensor([[0.5]]))]
    opt = T.optim.Adam([{"params": [torch_like[0]]}, {"params": [torch_like[1]], "lr": 0.01}],
                       lr=0.1, amsgrad=True)
    for _ in range(3):
        opt.zero_grad()
        sum(((q - 3) ** 2).sum() for q in torch_like).backward()
        opt.step()
    sd = opt.state_dict()
    assert sorted(sd) == ["param_groups", "state"]
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1]]
    assert sorted(sd["state"]) == [0, 1]
    assert sorted(sd["state"][0]) == ["exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step"]
    assert sd["state"][0]["step"].item() == 3.0
    assert sd["param_groups"][1]["lr"] == 0.01 and sd["param_groups"][1]["amsgrad"] is True
    copies = [T.nn.Parameter(q.detach().clone()) for q in torch_like]
    opt2 = T.optim.Adam([{"params": [copies[0]]}, {"params": [copies[1]]}], lr=0.5)
    opt2.load_state_dict(copy.deepcopy(sd))
    assert opt2.param_groups[1]["lr"] == 0.01 and opt2.param_groups[0]["params"][0] is copies[0]
    for params, o in ((torch_like, opt), (copies, opt2)):
        o.zero_grad()
        sum(((q - 3) ** 2).sum() for q in params).backward()
        o.step()
    assert [q.tolist() for q in copies] == [q.tolist() for q in torch_like]


def test_load_state_dict_checks_the_layout(T):
    a, b = T.nn.Parameter(T.zeros(2)), T.nn.Parameter(T.zeros(2))
    sd = T.optim.SGD([a, b], lr=0.1).state_dict()
    with pytest.raises(ValueError, match=exact("loaded state dict has a different number of "
                                               "parameter groups")):
        T.optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1).load_state_dict(sd)
    with pytest.raises(ValueError, match=exact("loaded state dict contains a parameter group that "
                                               "doesn't match the size of optimizer's group")):
        T.optim.SGD([a], lr=0.1).load_state_dict(sd)


def test_load_state_dict_casts_to_the_parameter_dtype(T):
    a = T.nn.Parameter(T.zeros(2, dtype=T.float64))
    opt = T.optim.Adam([a])
    a.grad = T.ones(2, dtype=T.float64)
    opt.step()
    sd = opt.state_dict()
    b = T.nn.Parameter(T.zeros(2, dtype=T.float32))
    opt2 = T.optim.Adam([b])
    opt2.load_state_dict(sd)
    assert opt2.state[b]["exp_avg"].dtype == T.float32
    assert opt2.state[b]["step"].dtype == T.float32           # the count keeps its own dtype
    opt2.state[b]["exp_avg"].add_(1)
    assert sd["state"][0]["exp_avg"].tolist() == pytest.approx([0.1, 0.1])


def test_state_dict_hooks(T):
    p = T.nn.Parameter(T.zeros(2))
    opt = T.optim.SGD([p], lr=0.1)
    order = []
    opt.register_state_dict_pre_hook(lambda o: order.append("pre"))
    opt.register_state_dict_post_hook(lambda o, sd: dict(sd, extra=1))
    opt.register_load_state_dict_pre_hook(lambda o, sd: order.append("load-pre"))
    opt.register_load_state_dict_post_hook(lambda o: order.append("load-post"))
    opt.register_load_state_dict_post_hook(lambda o: order.append("first"), prepend=True)
    sd = opt.state_dict()
    assert sd["extra"] == 1
    opt.load_state_dict(sd)
    assert order == ["pre", "load-pre", "first", "load-post"]


def test_adagrad_state_is_made_at_construction(T):
    p = T.nn.Parameter(T.zeros(2))
    opt = T.optim.Adagrad([p], initial_accumulator_value=0.5)
    st = opt.state_dict()["state"][0]
    assert st["sum"].tolist() == [0.5, 0.5] and st["step"].item() == 0.0


def test_sgd_without_momentum_keeps_no_state(T):
    p = T.nn.Parameter(T.zeros(2))
    opt = T.optim.SGD([p], lr=0.1)
    p.grad = T.ones(2)
    opt.step()
    assert opt.state_dict()["state"] == {}


def test_repr(T):
    p = T.nn.Parameter(T.zeros(2))
    r = repr(T.optim.SGD([p], lr=0.1))
    assert r.startswith("SGD (\nParameter Group 0\n    dampening: 0\n") and r.endswith(")")
    assert "    lr: 0.1\n" in r and "params" not in r


def test_tensor_lr(T):
    p = T.nn.Parameter(T.ones(2, dtype=T.float64))
    opt = T.optim.SGD([p], lr=T.tensor(0.25))
    p.grad = T.ones(2, dtype=T.float64)
    opt.step()
    assert p.tolist() == [0.75, 0.75]
    with pytest.raises(ValueError, match=exact("Tensor lr must be 1-element")):
        T.optim.SGD([p], lr=T.tensor([0.1, 0.2]))


def test_low_precision_parameters():
    """float16 and bfloat16 parameters update (in their own dtype) close to a
    float32 run."""
    for dt in (tp.float16, tp.bfloat16):
        p = tp.nn.Parameter(tp.tensor([0.5, -1.0, 2.0], dtype=dt))
        q = tp.nn.Parameter(tp.tensor([0.5, -1.0, 2.0]))
        o1, o2 = tp.optim.Adam([p], lr=0.1), tp.optim.Adam([q], lr=0.1)
        for _ in range(5):
            for x, o in ((p, o1), (q, o2)):
                o.zero_grad()
                ((x.float() - 1) ** 2).sum().backward()
                o.step()
        assert p.dtype == dt
        np.testing.assert_allclose(np.array(p.float().tolist()), q.tolist(), atol=2e-2)


def test_differentiable_is_refused():
    p = tp.nn.Parameter(tp.zeros(2))
    with pytest.raises(NotImplementedError, match="differentiable=True is not supported"):
        tp.optim.Adam([p], differentiable=True)


@needs_torch
def test_torch_state_dict_loads_into_tensorplay():
    """A state dict made by torch.optim (tensors converted) continues in tensorplay
    exactly as in torch."""
    init = np.array([1.0, -2.0, 0.5])
    b = torch.nn.Parameter(torch.tensor(init.copy()))
    ob = torch.optim.RMSprop([b], lr=0.01, momentum=0.5, centered=True)
    for _ in range(3):
        ob.zero_grad()
        ((b - 3) ** 2).sum().backward()
        ob.step()
    sd = ob.state_dict()
    sd = {"param_groups": sd["param_groups"],
          "state": {i: {k: tp.tensor(v.numpy()) for k, v in s.items()}
                    for i, s in sd["state"].items()}}
    a = tp.nn.Parameter(tp.tensor(b.detach().numpy().copy()))
    oa = tp.optim.RMSprop([a], lr=0.5)
    oa.load_state_dict(sd)
    for p, o in ((a, oa), (b, ob)):
        o.zero_grad()
        ((p - 3) ** 2).sum().backward()
        o.step()
    np.testing.assert_allclose(a.tolist(), b.tolist(), rtol=1e-14)


def test_deepcopy_and_no_warnings():
    p = tp.nn.Parameter(tp.zeros(2))
    opt = tp.optim.Adam([p])
    p.grad = tp.ones(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sd = copy.deepcopy(opt.state_dict())
    assert sd["state"][0]["exp_avg"] is not opt.state[p]["exp_avg"]


def test_a_user_defined_optimizer(T):
    """The pattern of custom optimizers: subclass, defaults, step over the groups
    writing ``p.data`` in place; hooks and state dicts come with the base."""
    class SignSGD(T.optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, dict(lr=lr))

        @T.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.data.add_(p.grad.sign(), alpha=-group["lr"])
                        self.state[p]["n"] = self.state[p].get("n", 0) + 1

    p = T.nn.Parameter(T.tensor([1.0, -2.0]))
    opt = SignSGD([p])
    calls = []
    opt.register_step_post_hook(lambda o, a, k: calls.append(1))
    _quad_step(T, opt, p)
    assert p.tolist() == pytest.approx([1.1, -1.9]) and calls == [1]
    assert opt.state_dict()["state"] == {0: {"n": 1}}


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "LBFGS"])
def test_training_frees_everything_by_reference_counting(name):
    """With the cycle collector off, steps leave nothing behind: the optimizer
    keeps no graph alive and makes no reference cycles."""
    import gc
    rng = np.random.default_rng(0)
    w1 = tp.nn.Parameter(tp.tensor(rng.standard_normal((8, 16)) * 0.3))
    w2 = tp.nn.Parameter(tp.tensor(rng.standard_normal((16, 1)) * 0.3))
    x, y = tp.tensor(rng.standard_normal((32, 8))), tp.tensor(rng.standard_normal((32, 1)))
    opt = getattr(tp.optim, name)([w1, w2], lr=1e-3) if name != "LBFGS" else \
        tp.optim.LBFGS([w1, w2], max_iter=2, history_size=3)

    def closure():
        opt.zero_grad()
        loss = (((x @ w1).tanh() @ w2 - y) ** 2).mean()
        loss.backward()
        return loss

    def run(n):
        for _ in range(n):
            if name == "LBFGS":
                opt.step(closure)
            else:
                closure()
                opt.step()
    was = gc.isenabled()
    gc.disable()
    try:
        run(10)
        before = len(gc.get_objects())
        run(100)
        after = len(gc.get_objects())
    finally:
        if was:
            gc.enable()
    assert after - before < 20, (before, after)


# ------------------------------------------------------------------ Adamax, NAdam, RAdam
def _variant_run(T, name, kw, cplx):
    rng = np.random.default_rng(0)
    init = rng.standard_normal((3, 4))
    if cplx:
        init = init + 1j * rng.standard_normal((3, 4))
    p = T.tensor(init, requires_grad=True)
    opt = getattr(T.optim, name)([p], **kw)
    out = []
    for i in range(15):
        g = np.random.default_rng(i + 1).standard_normal((3, 4)) * (1 + 0.1 * i)
        if cplx:
            g = g + 1j * np.random.default_rng(i + 100).standard_normal((3, 4))
        p.grad = T.tensor(g)
        opt.step()
        out.append(p.detach().numpy().copy())
    return np.array(out), opt


@pytest.mark.parametrize("cplx", [False, True], ids=["real", "complex"])
@pytest.mark.parametrize("name,kw", [
    ("Adamax", {}), ("Adamax", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {}), ("NAdam", {"lr": 0.1, "weight_decay": 0.1, "momentum_decay": 0.1}),
    ("NAdam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {}), ("RAdam", {"lr": 0.1, "betas": (0.5, 0.9), "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
], ids=lambda v: v if isinstance(v, str) else "-".join(f"{k}={v[k]}" for k in v) or "defaults")
def test_adam_variants_step_as_torch(torch_or_skip, name, kw, cplx):
    mine, opt = _variant_run(tp, name, kw, cplx)
    theirs, topt = _variant_run(torch_or_skip, name, kw, cplx)
    np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)
    assert sorted(opt.state_dict()["state"][0]) == sorted(topt.state_dict()["state"][0])
    assert not np.allclose(mine[-1], mine[0])


@pytest.mark.parametrize("name", ["Adamax", "NAdam", "RAdam"])
def test_adam_variants_refuse_bad_hyperparameters(T, name):
    p = [T.zeros(2, requires_grad=True)]
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        getattr(T.optim, name)(p, lr=-1)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
        getattr(T.optim, name)(p, betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Invalid epsilon value: -1"):
        getattr(T.optim, name)(p, eps=-1)


def test_rprop_nan_gradient_moves_nothing(T):
    """PyTorch's sign of NaN is 0: the step is skipped and the step sizes kept
    (NumPy's sign of NaN is NaN, which made the parameter NaN for good)."""
    p = T.tensor([0.5], requires_grad=True)
    opt = T.optim.Rprop([p], lr=0.1)
    p.grad = T.tensor([float("nan")])
    opt.step()
    p.grad = T.tensor([1.0])
    opt.step()
    assert p.tolist() == pytest.approx([0.4]) and opt.state[p]["step_size"].tolist() == pytest.approx([0.1])


def test_a_custom_step_runs_in_the_callers_grad_mode():
    # PyTorch turns recording off inside its built-in algorithms only: a user's step
    # may call its closure (which differentiates) or build a differentiable update
    class CallsClosure(tp.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {})

        def step(self, closure):
            assert tp.is_grad_enabled()
            return closure()
    p = tp.tensor([1.0, 2.0], requires_grad=True)
    CallsClosure([p]).step(lambda: (p ** 2).sum().backward())
    assert p.grad.tolist() == [2.0, 4.0]

    class Wrapped(tp.optim.Adam):
        def step(self, closure=None):
            assert tp.is_grad_enabled()
            return super().step(closure)        # (the built-in update: recording off inside)
    q = tp.tensor([1.0, 2.0], requires_grad=True)
    opt = Wrapped([q], lr=0.1)
    (q ** 2).sum().backward()
    opt.step()
    assert q.is_leaf and q.grad_fn is None
    np.testing.assert_allclose(q.detach().numpy(), [0.9, 1.9], rtol=1e-6)


def test_scalar_state_dtype_lbfgs_complex_views_adafactor_bfloat16():
    # PyTorch keeps step/mu_product/eta/mu in float64 when that is the default dtype
    old = tp.get_default_dtype()
    tp.set_default_dtype(tp.float64)
    try:
        for cls in (tp.optim.ASGD, tp.optim.NAdam, tp.optim.Adam):
            p = tp.tensor([1.0, -2.0], requires_grad=True)
            o = cls([p], lr=0.1)
            (p ** 2).sum().backward()
            o.step()
            assert all(v.dtype == tp.float64 for k, v in o.state[p].items()
                       if k in ("step", "mu_product", "eta", "mu"))
    finally:
        tp.set_default_dtype(old)
    # a non-contiguous complex parameter (LBFGS viewed its memory as real pairs)
    p = tp.tensor([[1 + 1j, 2 - 1j, 3j], [0.5j, -1 + 0j, 2 + 0j]])[:, ::2].detach().requires_grad_()
    o = tp.optim.LBFGS([p])

    def closure():
        o.zero_grad()
        loss = (p.abs() ** 2).sum()
        loss.backward()
        return loss
    o.step(closure)
    assert float(p.abs().max()) < 1e-3
    q = tp.tensor([1.0, 2.0], dtype=tp.bfloat16, requires_grad=True)     # (finfo of bfloat16)
    a = tp.optim.Adafactor([q], lr=0.1)
    (q.float() ** 2).sum().backward()
    a.step()
    assert q.tolist() == [0.84375, 1.84375]


def test_non_finite_gradients_raise_no_numpy_warnings():
    import math
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = tp.tensor([1.0, 2.0], requires_grad=True)
        p.grad = tp.tensor([math.inf, math.nan])
        assert math.isnan(float(tp.nn.utils.clip_grad_norm_([p], 1.0)))
        p.grad = tp.tensor([3e38, 3e38])
        assert math.isinf(float(tp.nn.utils.clip_grad_norm_([p], 1.0)))
        q = tp.tensor([1.0, 2.0], requires_grad=True)
        opt = tp.optim.Adam([q])
        q.grad = tp.tensor([math.nan, math.inf])
        opt.step()


def test_a_state_dict_with_a_numeric_step_loads():
    # (an older or hand-edited state dict: Adam crashed on its next step)
    p = tp.tensor([1.0, 2.0], requires_grad=True)
    opt = tp.optim.Adam([p], lr=0.1)
    (p ** 2).sum().backward()
    opt.step()
    sd = opt.state_dict()
    sd["state"][0]["step"] = 1
    again = tp.optim.Adam([p], lr=0.1)
    again.load_state_dict(sd)
    again.step()
    assert float(again.state[p]["step"]) == 2.0
    np.testing.assert_allclose(p.detach().numpy(), [0.8, 1.8], rtol=1e-6)
