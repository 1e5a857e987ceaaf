"""``distributions.InverseGamma`` and ``distributions.GeneralizedPareto``:
every quantity and its gradients against PyTorch (float64; float32 where
PyTorch 2.13's GeneralizedPareto.log_prob refuses float64), rsample's
gradients, expand, constraints and validation messages; finite differences
without torch."""
import numpy as np
import pytest

import tensorplay as tp

from conftest import assert_close, torch

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")

IG_PARAMS = {"concentration": [0.7, 1.5, 2.5, 4.0], "rate": [0.5, 1.0, 2.0, 3.0]}
IG_VALUE = [0.3, 1.1, 0.8, 2.5]
# loc, scale, concentration: xi > 0, = 0 (the exponential branch), < 0 (bounded), near 0
GP_PARAMS = {"loc": [0.0, 1.0, -0.5, 0.2], "scale": [1.0, 2.0, 0.5, 1.5],
             "concentration": [0.4, 0.0, -0.3, 1e-9]}
GP_VALUE = [0.5, 2.0, 0.1, 1.0]
GP_U = [0.1, 0.5, 0.9, 0.3]


def _ig(L, dtype, rg=True):
    ps = {k: L.tensor(v, dtype=dtype, requires_grad=rg) for k, v in IG_PARAMS.items()}
    return ps, L.distributions.InverseGamma(ps["concentration"], ps["rate"])


def _gp(L, dtype, rg=True):
    ps = {k: L.tensor(v, dtype=dtype, requires_grad=rg) for k, v in GP_PARAMS.items()}
    return ps, L.distributions.GeneralizedPareto(ps["loc"], ps["scale"], ps["concentration"])


def _quantities(L, which, dtype):
    """{name: value} and d(sum of weighted values)/d(params, value) per name."""
    ps, d = (_ig if which == "ig" else _gp)(L, dtype)
    value = L.tensor(IG_VALUE if which == "ig" else GP_VALUE, dtype=dtype, requires_grad=True)
    outs = {"log_prob": d.log_prob(value), "entropy": d.entropy(), "mean": d.mean, "mode": d.mode,
            "variance": d.variance}
    if which == "ig":
        outs["cdf"] = d.cdf(value)
    else:
        outs["cdf"] = d.cdf(value)
        outs["log_survival"] = d.log_survival_function(value)
        outs["icdf"] = d.icdf(L.tensor(GP_U, dtype=dtype))
        outs["icdf_u"] = d.icdf(value.sigmoid())
    vals, grads = {}, {}
    inputs = list(ps.values()) + [value]
    for k, o in outs.items():
        vals[k] = o.detach().numpy()
        if not o.requires_grad:
            continue
        w = L.tensor(np.linspace(0.5, 1.5, o.numel()), dtype=dtype)
        keep = L.isfinite(o)
        # (the regularized incomplete gamma has no derivative in its first argument, in
        # PyTorch as here: InverseGamma.cdf is differentiated in the rate and the value)
        ins = inputs[1:] if (which, k) == ("ig", "cdf") else inputs
        gs = L.autograd.grad((L.where(keep, o, 0) * w).sum(), ins, allow_unused=True, retain_graph=True)
        grads[k] = [None if g is None else g.numpy() for g in gs]
    return vals, grads


@needs_torch
@pytest.mark.parametrize("which,dtype", [("ig", "float64"), ("ig", "float32"), ("gp", "float32")])
def test_values_and_gradients_match_torch(which, dtype):
    v1, g1 = _quantities(tp, which, getattr(tp, dtype))
    v2, g2 = _quantities(torch, which, getattr(torch, dtype))
    tol = dict(atol=1e-10, rtol=1e-9) if dtype == "float64" else dict(atol=2e-5, rtol=2e-5)
    assert sorted(v1) == sorted(v2) and sorted(g1) == sorted(g2)
    for k in v2:
        assert v1[k].dtype == v2[k].dtype, k
        assert_close(v1[k], v2[k], msg=k, **tol)
    for k in g2:
        for a, b in zip(g1[k], g2[k]):
            if b is None:
                assert a is None or not np.any(a), k
            else:
                assert_close(a, b, msg=f"grad {k}", **tol)


@needs_torch
def test_generalized_pareto_float64_matches_torch_where_torch_computes():
    """PyTorch's float64 log_prob fails ("Double did not match Float"); the rest,
    and tensorplay's float64 log_prob against PyTorch's float32 one, agree."""
    _, d2 = _gp(torch, torch.float64)
    with pytest.raises(RuntimeError, match="Double did not match Float"):
        d2.log_prob(torch.tensor(GP_VALUE, dtype=torch.float64))
    v1, g1 = _quantities(tp, "gp", tp.float64)
    _, d2 = _gp(torch, torch.float64)
    x = torch.tensor(GP_VALUE, dtype=torch.float64)
    for k, b in [("entropy", d2.entropy()), ("mean", d2.mean), ("variance", d2.variance),
                 ("icdf", d2.icdf(torch.tensor(GP_U, dtype=torch.float64))), ("mode", d2.mode)]:
        assert_close(v1[k], b.detach().numpy(), atol=1e-12, rtol=1e-12, msg=k)
    v32, _ = _quantities(torch, "gp", torch.float32)
    assert_close(v1["log_prob"], v32["log_prob"], atol=2e-6, rtol=2e-6)
    assert_close(v1["cdf"], v32["cdf"], atol=2e-6, rtol=2e-6)


@pytest.mark.parametrize("which", ["ig", "gp"])
def test_gradcheck_log_prob_and_cdf(which):
    """float64 finite differences (no torch): log_prob, cdf (GP) and icdf (GP)."""
    names = list(IG_PARAMS if which == "ig" else GP_PARAMS)
    base = dict(IG_PARAMS if which == "ig" else GP_PARAMS)
    if which == "gp":
        base["concentration"] = [0.4, 0.7, -0.3, 0.2]    # away from the isclose(0) switch
    ps = [tp.tensor(base[k], dtype=tp.float64, requires_grad=True) for k in names]
    value = tp.tensor(IG_VALUE if which == "ig" else GP_VALUE, dtype=tp.float64, requires_grad=True)

    def f(*args):
        d = (tp.distributions.InverseGamma if which == "ig" else tp.distributions.GeneralizedPareto)(*args[:-1])
        out = (d.log_prob(args[-1]), d.entropy())
        if which == "gp":
            out += (d.cdf(args[-1]), d.icdf(args[-1].sigmoid()))
        return out
    assert tp.autograd.gradcheck(f, ps + [value])
    assert tp.autograd.gradgradcheck(f, ps + [value])


def test_inverse_gamma_rsample_gradient_is_the_reciprocals():
    """Y = rate / X0 with X0 ~ Gamma(alpha, 1): dY/drate = Y / rate and dY/dalpha =
    -rate / X0^2 * dX0/dalpha, with PyTorch's implicit gradient where torch is there."""
    conc = tp.tensor([0.8, 2.0, 5.0], dtype=tp.float64, requires_grad=True)
    rate = tp.tensor([1.5, 0.5, 2.0], dtype=tp.float64, requires_grad=True)
    d = tp.distributions.InverseGamma(conc, rate)
    tp.manual_seed(3)
    y = d.rsample((4,))
    assert tuple(y.shape) == (4, 3) and bool((y > 0).all()) and y.requires_grad
    ga, gr = tp.autograd.grad(y.sum(), [conc, rate])
    assert_close(gr.numpy(), (y / rate).sum(0).detach().numpy(), atol=1e-12, rtol=1e-10)
    x0 = (rate / y).detach()
    from tensorplay.ops.dist_ops import _standard_gamma_grad
    want = (-rate / x0 ** 2 * _standard_gamma_grad(conc.detach().expand(4, 3), x0)).sum(0)
    assert_close(ga.numpy(), want.detach().numpy(), atol=1e-10, rtol=1e-8)
    if torch is not None:
        tg = torch._standard_gamma_grad(torch.tensor(conc.detach().expand(4, 3).numpy()),
                                        torch.tensor(x0.numpy()))
        theirs = (-torch.tensor(rate.detach().numpy()) / torch.tensor(x0.numpy()) ** 2 * tg).sum(0)
        # (PyTorch's implicit gradient is an approximation good to ~1e-4 relative)
        assert_close(ga.numpy(), theirs.numpy(), atol=1e-8, rtol=2e-4)
    tp.manual_seed(3)
    assert tp.equal(d.sample((4,)), y.detach())      # sample: the same draws, no graph


def test_generalized_pareto_rsample_is_icdf_of_uniform_draws():
    ps = {k: tp.tensor(v, dtype=tp.float64, requires_grad=True) for k, v in GP_PARAMS.items()}
    d = tp.distributions.GeneralizedPareto(ps["loc"], ps["scale"], ps["concentration"])
    tp.manual_seed(7)
    u = tp.rand((5, 4), dtype=tp.float64)
    tp.manual_seed(7)
    x = d.rsample((5,))
    assert tuple(x.shape) == (5, 4) and x.dtype == tp.float64
    assert_close(x.detach().numpy(), d.icdf(u).detach().numpy(), atol=0, rtol=0)
    assert bool(d.support.check(x.detach()).all())
    gs = tp.autograd.grad(x.sum(), list(ps.values()))
    if torch is not None:
        tps = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in GP_PARAMS.items()}
        td = torch.distributions.GeneralizedPareto(tps["loc"], tps["scale"], tps["concentration"])
        tgs = torch.autograd.grad(td.icdf(torch.tensor(u.numpy())).sum(), list(tps.values()))
        for a, b in zip(gs, tgs):
            assert_close(a.numpy(), b.numpy(), atol=1e-10, rtol=1e-9)
    else:
        assert_close(gs[0].numpy(), np.full(4, 5.0), atol=1e-12)   # d loc = 1 per draw


def _shapes(L):
    out = []
    for make in (lambda: L.distributions.InverseGamma(L.tensor([2.0, 3.0]), L.tensor(1.0)),
                 lambda: L.distributions.InverseGamma(2.0, 3.0),
                 lambda: L.distributions.GeneralizedPareto(0.0, L.tensor([[1.0], [2.0]]), 0.3),
                 lambda: L.distributions.GeneralizedPareto(0.0, 1.0, -0.5)):
        d = make()
        e = d.expand((3,) + tuple(d.batch_shape))
        out.append((type(e).__name__, tuple(d.batch_shape), tuple(e.batch_shape), tuple(e.event_shape),
                    tuple(e.mean.shape), tuple(e.sample((2,)).shape), tuple(e.entropy().shape),
                    type(d.support).__name__, sorted(type(c).__name__ for c in d.arg_constraints.values()),
                    d.has_rsample, e._validate_args == d._validate_args))
    return out


def test_expand_shapes_and_constraints():
    got = _shapes(tp)
    assert got[0][:3] == ("InverseGamma", (2,), (3, 2))
    assert got[2][:3] == ("GeneralizedPareto", (2, 1), (3, 2, 1))
    assert got[3][7] == "_Interval" or got[3][7].endswith("Interval")
    if torch is not None:
        assert got == _shapes(torch)
    d = tp.distributions.GeneralizedPareto(tp.tensor([0.0, 1.0]), 2.0, tp.tensor([-0.5, 0.5]))
    s = d.support
    assert s.lower_bound.tolist() == [0.0, 1.0] and s.upper_bound.tolist() == [4.0, float("inf")]
    e = d.expand((2, 2))
    assert e.loc.tolist() == [[0.0, 1.0]] * 2 and e.concentration.tolist() == [[-0.5, 0.5]] * 2


def _errors(L):
    D = L.distributions
    return [
        lambda: D.InverseGamma(L.tensor([1.0, -1.0]), 1.0, validate_args=True),
        lambda: D.InverseGamma(1.0, L.tensor([0.0]), validate_args=True),
        lambda: D.InverseGamma(2.0, 1.0, validate_args=True).log_prob(L.tensor(-1.0)),
        lambda: D.InverseGamma(2.0, 1.0).icdf(L.tensor(0.5)),
        lambda: D.GeneralizedPareto(0.0, -1.0, 0.5, validate_args=True),
        lambda: D.GeneralizedPareto(L.tensor(float("nan")), 1.0, 0.5, validate_args=True),
        lambda: D.GeneralizedPareto(L.zeros(2), L.ones(2), L.tensor([0.5, -0.5]),
                                    validate_args=True).log_prob(L.tensor([-1.0, 3.0])),
        lambda: D.GeneralizedPareto(0.0, 1.0, "a"),
    ]


@pytest.mark.parametrize("k", range(8))
def test_errors(k):
    with pytest.raises((ValueError, NotImplementedError)) as ours:
        _errors(tp)[k]()
    if torch is not None:
        with pytest.raises(Exception) as theirs:
            _errors(torch)[k]()
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value).replace("tensorplay", "torch") == str(theirs.value)


def test_special_cases_without_torch():
    """xi = 0 is the exponential, xi = -1 the uniform; 1/Gamma's moments."""
    x = tp.tensor([0.2, 1.0, 3.0], dtype=tp.float64)
    e = tp.distributions.GeneralizedPareto(0.0, 2.0, 0.0)
    assert_close(e.log_prob(x).numpy(), tp.distributions.Exponential(0.5).log_prob(x).numpy(), atol=1e-14)
    assert_close(e.cdf(x).numpy(), 1 - np.exp(-x.numpy() / 2), atol=1e-14)
    u = tp.distributions.GeneralizedPareto(1.0, 4.0, -1.0)
    assert_close(u.cdf(tp.tensor([2.0, 4.0])).numpy(), [0.25, 0.75], atol=1e-6)
    assert u.support.upper_bound.item() == 5.0 and u.mean.item() == 3.0
    assert np.isnan(tp.distributions.GeneralizedPareto(0.0, 1.0, 1.5).mean.item())
    ig = tp.distributions.InverseGamma(tp.tensor([0.5, 3.0]), tp.tensor([1.0, 4.0]))
    assert ig.mean.tolist() == [float("inf"), 2.0] and ig.variance.tolist() == [float("inf"), 4.0]
    g = tp.distributions.Gamma(tp.tensor([3.0]), tp.tensor([4.0]))
    assert_close(tp.distributions.InverseGamma(tp.tensor([3.0]), tp.tensor([4.0])).cdf(tp.tensor([2.0])).numpy(),
                 (1 - g.cdf(tp.tensor([0.5]))).numpy(), atol=1e-6)
