"""The distributions built on transforms (and the matrix ones) against torch 2.x:
log_prob, entropy, moments, cdf/icdf, rsample from the same base noise, with
their gradients; shapes, expand, sampling support; errors; gradcheck (float64)."""
import math
import types
import warnings

import numpy as np
import pytest

import tensorplay as tp
from tensorplay.autograd import gradcheck
from tensorplay.distributions import _tp as tp_ns
from tensorplay.distributions import transforms as tp_T
from tensorplay.distributions import multivariate_normal as tp_mvn_mod
from tensorplay.distributions import lowrank_multivariate_normal as tp_lr_mod

from conftest import assert_close

try:
    import torch
    import torch.distributions as THD
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def _tp_namespace():
    import tensorplay.distributions as tpd
    from tensorplay.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
    from tensorplay.distributions.relaxed_categorical import ExpRelaxedCategorical
    ns = {k: getattr(tpd, k) for k in tpd.__all__}
    return types.SimpleNamespace(**ns, LogitRelaxedBernoulli=LogitRelaxedBernoulli,
                                 ExpRelaxedCategorical=ExpRelaxedCategorical, transforms=tp_T)


TPD = _tp_namespace()
RNG = np.random.default_rng(2024)


def _spd(n, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _simplex(shape):
    x = RNG.uniform(0.2, 1.0, shape)
    return x / x.sum(-1, keepdims=True)


def _chol_corr(n, batch=()):
    c = _spd(n, batch)
    d = np.sqrt(np.diagonal(c, axis1=-2, axis2=-1))
    return np.linalg.cholesky(c / d[..., :, None] / d[..., None, :])


# id, make(D, L, p) -> distribution, params {name: array}, value array, noise kind
# noise kinds: "base" (the base distribution's draw is shared), "std" (patched randn/rand),
# "fisher", "wishart", None (no rsample)
_S = (2, 3)
CASES = [
    ("LogNormal", lambda D, L, p: D.LogNormal(p["loc"], p["scale"]),
     {"loc": RNG.standard_normal(_S), "scale": RNG.uniform(0.5, 2, _S)}, RNG.uniform(0.2, 3, _S), "base"),
    ("Gumbel", lambda D, L, p: D.Gumbel(p["loc"], p["scale"]),
     {"loc": RNG.standard_normal(_S), "scale": RNG.uniform(0.5, 2, _S)}, RNG.standard_normal(_S), "base"),
    ("Weibull", lambda D, L, p: D.Weibull(p["scale"], p["concentration"]),
     {"scale": RNG.uniform(0.5, 2, _S), "concentration": RNG.uniform(0.7, 3, _S)},
     RNG.uniform(0.2, 3, _S), "base"),
    ("Pareto", lambda D, L, p: D.Pareto(p["scale"], p["alpha"]),
     {"scale": RNG.uniform(0.5, 1, _S), "alpha": RNG.uniform(0.5, 4, _S)}, RNG.uniform(1.1, 3, _S), "base"),
    ("Kumaraswamy", lambda D, L, p: D.Kumaraswamy(p["c1"], p["c0"]),
     {"c1": RNG.uniform(0.5, 3, _S), "c0": RNG.uniform(0.5, 3, _S)}, RNG.uniform(0.1, 0.9, _S), "base"),
    ("LogisticNormal", lambda D, L, p: D.LogisticNormal(p["loc"], p["scale"]),
     {"loc": RNG.standard_normal((2, 3)), "scale": RNG.uniform(0.5, 2, (2, 3))}, _simplex((2, 4)), "base"),
    ("LogisticNormal_scalar", lambda D, L, p: D.LogisticNormal(p["loc"], p["scale"]),
     {"loc": np.array(0.3), "scale": np.array(1.3)}, _simplex((3, 2)), "base"),
    ("Independent", lambda D, L, p: D.Independent(D.Normal(p["loc"], p["scale"]), 1),
     {"loc": RNG.standard_normal(_S), "scale": RNG.uniform(0.5, 2, _S)}, RNG.standard_normal(_S), "std"),
    ("Transformed", lambda D, L, p: D.TransformedDistribution(
        D.Normal(p["loc"], p["scale"]), [D.transforms.AffineTransform(p["a"], -2.0),
                                         D.transforms.ExpTransform()]),
     {"loc": RNG.standard_normal(_S), "scale": RNG.uniform(0.5, 2, _S), "a": RNG.standard_normal((3,))},
     RNG.uniform(0.2, 3, _S), "base"),
    ("Transformed_expand", lambda D, L, p: D.TransformedDistribution(
        D.Normal(p["loc"], p["scale"]), [D.transforms.AffineTransform(p["a"], p["b"]),
                                         D.transforms.TanhTransform()]),
     {"loc": np.array(0.3), "scale": np.array(0.8), "a": RNG.standard_normal((2, 3)),
      "b": RNG.uniform(0.2, 0.6, (3,))}, RNG.uniform(-0.9, 0.9, (4, 2, 3)), "base"),
    ("Transformed_stick", lambda D, L, p: D.TransformedDistribution(
        D.Normal(p["loc"], p["scale"]), D.transforms.StickBreakingTransform()),
     {"loc": RNG.standard_normal(_S), "scale": RNG.uniform(0.5, 2, _S)}, _simplex((2, 4)), "base"),
    ("Transformed_reshape", lambda D, L, p: D.TransformedDistribution(
        D.Normal(p["loc"], p["scale"]), [D.transforms.ReshapeTransform((2, 3), (3, 2)),
                                         D.transforms.SigmoidTransform()]),
     {"loc": RNG.standard_normal(_S), "scale": RNG.uniform(0.5, 2, _S)}, RNG.uniform(0.1, 0.9, (3, 2)),
     "base"),
    ("Transformed_uniform_cdf", lambda D, L, p: D.TransformedDistribution(
        D.Uniform(p["lo"], p["hi"]), [D.transforms.AffineTransform(1.0, -3.0)]),
     {"lo": RNG.uniform(0, 1, (3,)), "hi": RNG.uniform(2, 3, (3,))}, RNG.uniform(-4, -2, (2, 3)), "base"),
    ("MVN_tril", lambda D, L, p: D.MultivariateNormal(p["loc"], scale_tril=p["L"]),
     {"loc": RNG.standard_normal((2, 3)), "L": np.linalg.cholesky(_spd(3, (2,)))},
     RNG.standard_normal((4, 2, 3)), "std"),
    ("MVN_cov", lambda D, L, p: D.MultivariateNormal(p["loc"], covariance_matrix=p["C"]),
     {"loc": RNG.standard_normal((3, 1, 3)), "C": _spd(3, (2,))}, RNG.standard_normal((3, 2, 3)), "std"),
    ("MVN_prec", lambda D, L, p: D.MultivariateNormal(p["loc"], precision_matrix=p["P"]),
     {"loc": RNG.standard_normal((3,)), "P": _spd(3)}, RNG.standard_normal((2, 3)), "std"),
    ("LowRankMVN", lambda D, L, p: D.LowRankMultivariateNormal(p["loc"], p["W"], p["d"]),
     {"loc": RNG.standard_normal((2, 4)), "W": RNG.standard_normal((4, 2)), "d": RNG.uniform(0.5, 2, (2, 4))},
     RNG.standard_normal((3, 2, 4)), "std"),
    ("Mixture_normal", lambda D, L, p: D.MixtureSameFamily(D.Categorical(logits=p["w"]),
                                                           D.Normal(p["loc"], p["scale"])),
     {"w": RNG.standard_normal((2, 3)), "loc": RNG.standard_normal((2, 3)),
      "scale": RNG.uniform(0.5, 2, (2, 3))}, RNG.standard_normal((4, 2)), None),
    ("Mixture_mvn", lambda D, L, p: D.MixtureSameFamily(
        D.Categorical(probs=p["w"]), D.MultivariateNormal(p["loc"], scale_tril=p["L"])),
     {"w": _simplex((3,)), "loc": RNG.standard_normal((3, 2)), "L": np.linalg.cholesky(_spd(2, (3,)))},
     RNG.standard_normal((4, 2)), None),
    ("Mixture_indep", lambda D, L, p: D.MixtureSameFamily(
        D.Categorical(logits=p["w"]), D.Independent(D.Normal(p["loc"], p["scale"]), 1)),
     {"w": RNG.standard_normal((3,)), "loc": RNG.standard_normal((2, 3, 2)),
      "scale": RNG.uniform(0.5, 2, (2, 3, 2))}, RNG.standard_normal((2, 2)), None),
    ("RelaxedBernoulli_probs", lambda D, L, p: D.RelaxedBernoulli(p["t"], probs=p["p"]),
     {"t": np.array(0.7), "p": RNG.uniform(0.1, 0.9, _S)}, RNG.uniform(0.05, 0.95, _S), "std"),
    ("RelaxedBernoulli_logits", lambda D, L, p: D.RelaxedBernoulli(p["t"], logits=p["l"]),
     {"t": np.array([1.3, 0.4, 2.0]), "l": RNG.standard_normal(_S)}, RNG.uniform(0.05, 0.95, _S), "std"),
    ("LogitRelaxedBernoulli", lambda D, L, p: D.LogitRelaxedBernoulli(p["t"], logits=p["l"]),
     {"t": np.array(0.7), "l": RNG.standard_normal(_S)}, RNG.standard_normal(_S), "std"),
    ("RelaxedOneHot_logits", lambda D, L, p: D.RelaxedOneHotCategorical(p["t"], logits=p["l"]),
     {"t": np.array(0.8), "l": RNG.standard_normal((2, 4))}, _simplex((2, 4)), "std"),
    ("RelaxedOneHot_probs", lambda D, L, p: D.RelaxedOneHotCategorical(p["t"], probs=p["p"]),
     {"t": np.array(1.5), "p": _simplex((2, 3))}, _simplex((2, 3)), "std"),
    ("ExpRelaxedCategorical", lambda D, L, p: D.ExpRelaxedCategorical(p["t"], logits=p["l"]),
     {"t": np.array(0.8), "l": RNG.standard_normal((2, 4))}, np.log(_simplex((2, 4))), "std"),
    ("FisherSnedecor", lambda D, L, p: D.FisherSnedecor(p["a"], p["b"]),
     {"a": np.array([1.5, 3.0, 6.0]), "b": np.array([[1.5, 3.0, 5.5], [4.5, 8.0, 2.5]])},
     RNG.uniform(0.2, 3, _S), "fisher"),
    ("Wishart_cov", lambda D, L, p: D.Wishart(p["df"], covariance_matrix=p["C"]),
     {"df": np.array([4.0, 6.5]), "C": _spd(3, (2,))}, _spd(3, (2,)), "wishart"),
    ("Wishart_tril", lambda D, L, p: D.Wishart(p["df"], scale_tril=p["L"]),
     {"df": np.array(3.5), "L": np.linalg.cholesky(_spd(3))}, _spd(3, (2,)), "wishart"),
    ("Wishart_prec", lambda D, L, p: D.Wishart(p["df"], precision_matrix=p["P"]),
     {"df": np.array([5.0]), "P": _spd(2)}, _spd(2, (1,)), "wishart"),
    ("LKJCholesky", lambda D, L, p: D.LKJCholesky(3, p["c"]),
     {"c": np.array([0.5, 1.0, 2.5])}, _chol_corr(3, (3,)), None),
    ("LKJCholesky_4", lambda D, L, p: D.LKJCholesky(4, p["c"]),
     {"c": np.array(1.7)}, _chol_corr(4, (2,)), None),
    ("ContinuousBernoulli", lambda D, L, p: D.ContinuousBernoulli(probs=p["p"]),
     {"p": np.array([[0.1, 0.4995, 0.8], [0.3, 0.5003, 0.97]])}, RNG.uniform(0.05, 0.95, _S), "std"),
    ("ContinuousBernoulli_logits", lambda D, L, p: D.ContinuousBernoulli(logits=p["l"]),
     {"l": np.array([-2.0, 0.001, 1.5])}, RNG.uniform(0.05, 0.95, (2, 3)), "std"),
]
IDS = [c[0] for c in CASES]
# whose moments torch leaves undefined (NaN) at some parameters: compared, kept out of grads
PROPS = ("mean", "variance", "stddev", "mode", "entropy")


def _th_namespace():
    from torch.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
    from torch.distributions.relaxed_categorical import ExpRelaxedCategorical
    ns = {k: getattr(THD, k) for k in dir(THD) if not k.startswith("_")}
    return types.SimpleNamespace(**ns, LogitRelaxedBernoulli=LogitRelaxedBernoulli,
                                 ExpRelaxedCategorical=ExpRelaxedCategorical)


THNS = _th_namespace() if torch is not None else None


def _lib(name):
    return (tp, TPD) if name == "tp" else (torch, THNS)


class _Noise:
    """The same pseudo-random draws for both libraries (by call order and shape)."""

    def __init__(self, L):
        self.L = L

    @property
    def rng(self):
        # the same numbers for the same shape on every call (torch's Wishart.rsample
        # draws twice)
        return np.random.default_rng(99)

    def normal(self, shape, dtype=None, device=None, **kw):
        return self.L.tensor(self.rng.standard_normal(tuple(shape)), dtype=self.L.float64)

    def uniform(self, *shape, dtype=None, device=None, **kw):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)) or (
                len(shape) == 1 and not isinstance(shape[0], int)):
            shape = tuple(shape[0])
        return self.L.tensor(self.rng.uniform(0.02, 0.98, tuple(shape)), dtype=self.L.float64)


def _patch_noise(lib, kind, d, mp, base_draw):
    L, D = _lib(lib)
    n = _Noise(L)
    if kind == "base":
        x = L.tensor(base_draw, dtype=L.float64)
        mp.setattr(d.base_dist, "rsample", lambda sample_shape=(): x, raising=False)
    elif kind in ("std", "wishart"):
        if lib == "tp":
            mp.setattr(tp_ns, "rand", n.uniform)
            mp.setattr(tp_ns, "randn", lambda *s, **k: n.normal(s[0] if len(s) == 1 else s))
            import tensorplay.distributions.normal as tn
            import tensorplay.distributions.utils as tu
            for m in (tn, tu, tp_mvn_mod, tp_lr_mod):
                if hasattr(m, "_standard_normal"):
                    mp.setattr(m, "_standard_normal", n.normal)
        else:
            mp.setattr(torch, "rand", n.uniform)
            mp.setattr(torch, "randn", lambda *s, **k: n.normal(s[0] if len(s) == 1 else s))
            import torch.distributions.normal as thn
            for m in (thn, THD.multivariate_normal, THD.lowrank_multivariate_normal):
                mp.setattr(m, "_standard_normal", n.normal)
        if kind == "wishart":
            chi = L.tensor(base_draw, dtype=L.float64)
            mp.setattr(d._dist_chi2, "rsample", lambda sample_shape=(): chi, raising=False)
    elif kind == "fisher":
        g1, g2 = (L.tensor(b, dtype=L.float64) for b in base_draw)
        mp.setattr(d._gamma1, "rsample", lambda sample_shape=(): g1, raising=False)
        mp.setattr(d._gamma2, "rsample", lambda sample_shape=(): g2, raising=False)


def _base_draw(case):
    """Noise for the 'base'/'fisher'/'wishart' kinds, made with torch's own sampler."""
    kind = case[4]
    _, make, params, _, _ = case
    torch.manual_seed(5)
    with torch.no_grad():
        d = make(THNS, torch, {k: torch.tensor(v, dtype=torch.float64) for k, v in params.items()})
        if kind == "base":
            return d.base_dist.sample((2,)).numpy()
        if kind == "fisher":
            return d._gamma1.sample((2,)).numpy(), d._gamma2.sample((2,)).numpy()
        if kind == "wishart":
            return d._dist_chi2.sample((2,)).numpy()
    return None


def _evaluate(lib, case, mp=None, base_draw=None, grad_names=None):
    """Every defined quantity of the case's distribution and the gradients of their
    weighted sum (those named in ``grad_names``, default: all finite ones)."""
    L, D = _lib(lib)
    _, make, params, value, kind = case
    ps = {k: L.tensor(v, dtype=L.float64, requires_grad=True) for k, v in params.items()}
    val = L.tensor(value, dtype=L.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = make(D, L, ps)
    out = {"log_prob": d.log_prob(val)}
    for name in PROPS:
        try:
            out[name] = getattr(d, name) if name != "entropy" else d.entropy()
        except NotImplementedError:
            pass
    if not d.event_shape:
        try:
            out["cdf"] = d.cdf(val)
        except NotImplementedError:
            pass
        try:
            q = L.tensor(np.linspace(0.1, 0.9, int(np.prod(d.batch_shape))).reshape(tuple(d.batch_shape)),
                         dtype=L.float64)
            out["icdf"] = d.icdf(q)
        except NotImplementedError:
            pass
    if kind is not None and mp is not None:
        with mp.context() as m:
            _patch_noise(lib, kind, d, m, base_draw)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out["rsample"] = d.rsample((2,))
    vals = {k: v.detach().numpy() for k, v in out.items()}
    if grad_names is None:
        grad_names = [k for k, v in vals.items() if np.all(np.isfinite(v))]
    inputs = list(ps.values()) + [val]

    def grads_of(names):
        total = 0
        for i, k in enumerate(sorted(names)):
            o = out[k]
            w = L.tensor(np.linspace(0.5, 1.5, o.numel()).reshape(tuple(o.shape)) * (1 + 0.1 * i),
                         dtype=L.float64)
            total = total + (o * w).sum()
        return L.autograd.grad(total, inputs, allow_unused=True, retain_graph=True)
    try:
        gs = grads_of(grad_names)
    except RuntimeError:
        # torch's mode writes NaN in place into a tensor its graph needs (Wishart,
        # Kumaraswamy, FisherSnedecor), and its Wishart.rsample writes the samples it
        # takes for singular (all of them: its check is inverted) in place: no gradient
        # there in torch; compare the rest
        if L is not torch:
            raise
        grad_names = [k for k in grad_names if k not in ("mode", "rsample")]
        gs = grads_of(grad_names)
    grads = [None if g is None else g.numpy() for g in gs]
    return d, vals, grads, grad_names


@needs_torch
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_matches_torch(case, monkeypatch):
    base = _base_draw(case)
    d2, v2, g2, names = _evaluate("th", case, monkeypatch, base)
    d1, v1, g1, _ = _evaluate("tp", case, monkeypatch, base, grad_names=names)
    assert sorted(v1) == sorted(v2)
    for k in v2:
        assert_close(v1[k], v2[k], atol=1e-9, rtol=1e-8, msg=f"{case[0]}.{k}")
    for name, a, b in zip(list(case[2]) + ["value"], g1, g2):
        if b is None:
            assert a is None or np.all(a == 0)
        else:
            if case[0] == "Wishart_tril" and name == "L":
                # torch's cholesky_solve backward also gives the (unread) upper triangle
                # of the factor a gradient; tensorplay's is the true partial derivative
                # there (gradcheck below), so compare the lower triangle
                a, b = np.tril(a), np.tril(b)
            assert_close(a, b, atol=1e-8, rtol=1e-7, msg=f"{case[0]} grad {name}")
    assert tuple(d1.batch_shape) == tuple(d2.batch_shape)
    assert tuple(d1.event_shape) == tuple(d2.event_shape)
    assert type(d1.support).__name__ == type(d2.support).__name__
    assert d1.has_rsample == d2.has_rsample


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradcheck(case):
    _, make, params, value, kind = case
    ps = [tp.tensor(v, dtype=tp.float64, requires_grad=True) for v in params.values()]
    val = tp.tensor(value, dtype=tp.float64, requires_grad=True)
    names = list(params)

    def fix(name, t):
        # matrix parameters through maps onto their sets: perturbing one entry of a
        # symmetric or triangular matrix leaves it
        if name in ("C", "P") or (name == "value" and case[0].startswith("Wishart")):
            return (t + t.mT) / 2
        if name == "L":
            return t.tril()
        return t

    def f(*args):
        d = make(TPD, tp, {n: fix(n, a) for n, a in zip(names, args[:-1])})
        outs = [d.log_prob(fix("value", args[-1]))]
        for name in ("entropy", "mean", "variance"):
            try:
                o = d.entropy() if name == "entropy" else getattr(d, name)
            except NotImplementedError:
                continue
            if np.all(np.isfinite(o.detach().numpy())):
                outs.append(o)
        return tuple(outs)
    # a step off a simplex, a unit-norm row, ... is no longer in the support
    from tensorplay.distributions.distribution import Distribution
    old = Distribution._validate_args
    Distribution.set_default_validate_args(False)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert gradcheck(f, (*ps, val))
    finally:
        Distribution.set_default_validate_args(old)


@pytest.mark.parametrize("case", [c for c in CASES if c[0] in (
    "LogNormal", "Gumbel", "Kumaraswamy", "LogisticNormal", "MVN_cov", "MVN_prec", "LowRankMVN",
    "Mixture_normal", "RelaxedOneHot_logits", "FisherSnedecor", "Wishart_cov", "LKJCholesky",
    "ContinuousBernoulli")], ids=lambda c: c[0])
def test_gradgradcheck_log_prob(case):
    from tensorplay.autograd import gradgradcheck
    from tensorplay.distributions.distribution import Distribution
    _, make, params, value, kind = case
    names = list(params)
    ps = [tp.tensor(v, dtype=tp.float64, requires_grad=True) for v in params.values()]
    val = tp.tensor(value, dtype=tp.float64, requires_grad=True)

    def sym(n, t):
        return (t + t.mT) / 2 if n in ("C", "P", "value") else t

    def f(*args):
        d = make(TPD, tp, {n: sym(n, a) for n, a in zip(names, args[:-1])})
        return d.log_prob(sym("value", args[-1]) if case[0].startswith("Wishart") else args[-1])
    old = Distribution._validate_args
    Distribution.set_default_validate_args(False)
    try:
        assert gradgradcheck(f, (*ps, val))
    finally:
        Distribution.set_default_validate_args(old)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_sample_shapes_support_expand(case):
    _, make, params, value, kind = case
    ps = {k: tp.tensor(v, dtype=tp.float64) for k, v in params.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = make(TPD, tp, ps)
        tp.manual_seed(3)
        s = d.sample((5,))
        assert tuple(s.shape) == (5,) + tuple(d.batch_shape) + tuple(d.event_shape)
        assert not s.requires_grad
        assert bool(d.support.check(s).all())
        assert np.all(np.isfinite(d.log_prob(s).numpy()))
        tp.manual_seed(3)
        assert np.array_equal(d.sample((5,)).numpy(), s.numpy())      # seeded runs repeat
        if d.has_rsample:
            r = d.rsample((2,))
            assert tuple(r.shape) == (2,) + tuple(d.batch_shape) + tuple(d.event_shape)
        big = (4,) + tuple(d.batch_shape)
        e = d.expand(big)
        assert type(e) is type(d) and tuple(e.batch_shape) == big
        assert tuple(e.event_shape) == tuple(d.event_shape)
        one = d.sample()
        lp = d.log_prob(one)
        lpe = e.log_prob(one)
        assert_close(lpe.numpy(), np.broadcast_to(lp.numpy(), tuple(lpe.shape)), atol=1e-12)


def test_sample_moments():
    """Sample means match the moments (a check of the samplers, seeded)."""
    tp.manual_seed(11)
    cases = [TPD.LogNormal(tp.tensor(0.2, dtype=tp.float64), 0.5),
             TPD.Gumbel(tp.tensor(1.0, dtype=tp.float64), 2.0),
             TPD.Weibull(tp.tensor(1.5, dtype=tp.float64), 2.0),
             TPD.Kumaraswamy(tp.tensor(2.0, dtype=tp.float64), 3.0),
             TPD.FisherSnedecor(tp.tensor(5.0, dtype=tp.float64), 12.0),
             TPD.ContinuousBernoulli(tp.tensor(0.8, dtype=tp.float64)),
             TPD.MultivariateNormal(tp.tensor([1.0, -1.0], dtype=tp.float64),
                                    tp.tensor([[2.0, 0.5], [0.5, 1.0]], dtype=tp.float64)),
             TPD.LowRankMultivariateNormal(tp.tensor([1.0, -1.0], dtype=tp.float64),
                                           tp.tensor([[1.0], [0.5]], dtype=tp.float64),
                                           tp.tensor([0.5, 0.2], dtype=tp.float64)),
             TPD.Wishart(tp.tensor(5.0, dtype=tp.float64),
                         tp.tensor([[2.0, 0.5], [0.5, 1.0]], dtype=tp.float64))]
    for d in cases:
        s = d.sample((20000,)).numpy()
        m = d.mean.numpy()
        sd = np.sqrt(d.variance.numpy())
        assert np.all(np.abs(s.mean(0) - m) < 5 * sd / math.sqrt(20000)), type(d).__name__
    # MVN covariance; LKJ(eta=1) in 2-D: the correlation is uniform on (-1, 1)
    d = cases[6]
    s = d.sample((20000,)).numpy()
    assert_close(np.cov(s.T), d.covariance_matrix.numpy(), atol=0.08)
    r = TPD.LKJCholesky(2, 1.0).sample((20000,)).numpy()[:, 1, 0]
    assert abs(r.mean()) < 0.02 and abs((r ** 2).mean() - 1 / 3) < 0.02


def test_mvn_properties():
    loc = tp.tensor([[0.5, -1.0, 2.0]], dtype=tp.float64)
    rng = np.random.default_rng(5)
    g = rng.standard_normal((3, 3))
    C = tp.tensor(g @ g.T + 3 * np.eye(3), dtype=tp.float64)
    a = TPD.MultivariateNormal(loc, covariance_matrix=C)
    b = TPD.MultivariateNormal(loc, precision_matrix=tp.linalg.inv(C))
    c = TPD.MultivariateNormal(loc, scale_tril=tp.linalg.cholesky(C))
    for d in (a, b, c):
        assert_close(d.covariance_matrix.numpy()[0], C.numpy(), atol=1e-10)
        assert_close(d.precision_matrix.numpy()[0], np.linalg.inv(C.numpy()), atol=1e-10)
        assert_close((d.scale_tril @ d.scale_tril.mT).numpy()[0], C.numpy(), atol=1e-10)
    lr = TPD.LowRankMultivariateNormal(tp.zeros(3, dtype=tp.float64),
                                       tp.tensor([[1.0, 0.2], [0.3, -1.0], [0.5, 0.5]], dtype=tp.float64),
                                       tp.tensor([0.5, 1.0, 2.0], dtype=tp.float64))
    cov = lr.covariance_matrix.numpy()
    assert_close(lr.precision_matrix.numpy(), np.linalg.inv(cov), atol=1e-10)
    assert_close((lr.scale_tril @ lr.scale_tril.mT).numpy(), cov, atol=1e-10)
    full = TPD.MultivariateNormal(tp.zeros(3, dtype=tp.float64), covariance_matrix=tp.tensor(cov))
    x = tp.tensor(rng.standard_normal((4, 3)))
    assert_close(lr.log_prob(x).numpy(), full.log_prob(x).numpy(), atol=1e-10)
    assert_close(lr.entropy().item(), full.entropy().item(), atol=1e-10)


@needs_torch
def test_errors_match_torch():
    def both(f, exc=ValueError):
        msgs = []
        for L, D in ((tp, TPD), (torch, THNS)):
            with pytest.raises(exc) as e:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    f(L, D)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1].replace("torch.", "tensorplay.").replace(
            "tensorplay.distributions", "torch.distributions"), msgs

    z = lambda L, *s: L.zeros(s, dtype=L.float64)  # noqa
    eye = lambda L, n: L.eye(n, dtype=L.float64)  # noqa
    both(lambda L, D: D.MultivariateNormal(z(L), eye(L, 2)))
    both(lambda L, D: D.MultivariateNormal(z(L, 2)))
    both(lambda L, D: D.MultivariateNormal(z(L, 2), eye(L, 2), scale_tril=eye(L, 2)))
    both(lambda L, D: D.MultivariateNormal(z(L, 2), scale_tril=z(L, 2)))
    both(lambda L, D: D.MultivariateNormal(z(L, 2), covariance_matrix=z(L, 2)))
    both(lambda L, D: D.MultivariateNormal(z(L, 2), precision_matrix=z(L, 2)))
    both(lambda L, D: D.LowRankMultivariateNormal(z(L), z(L, 2, 1), z(L, 2) + 1))
    both(lambda L, D: D.LowRankMultivariateNormal(z(L, 2), z(L, 2), z(L, 2) + 1))
    both(lambda L, D: D.LowRankMultivariateNormal(z(L, 2), z(L, 3, 1), z(L, 2) + 1))
    both(lambda L, D: D.LowRankMultivariateNormal(z(L, 2), z(L, 2, 1), z(L, 3) + 1))
    both(lambda L, D: D.LowRankMultivariateNormal(z(L, 3, 2), z(L, 2, 2, 1), z(L, 2) + 1))
    both(lambda L, D: D.Independent(D.Normal(z(L, 3), 1.0), 2))
    both(lambda L, D: D.TransformedDistribution(D.Normal(0.0, 1.0), [1]))
    both(lambda L, D: D.TransformedDistribution(D.Normal(0.0, 1.0), (D.transforms.ExpTransform(),)))
    both(lambda L, D: D.TransformedDistribution(D.Normal(z(L, 2), 1.0), D.transforms.CorrCholeskyTransform()))
    both(lambda L, D: D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(z(L, 2), 1.0)))
    both(lambda L, D: D.MixtureSameFamily(D.Categorical(logits=z(L, 2)), 3))
    both(lambda L, D: D.MixtureSameFamily(D.Categorical(logits=z(L, 3)), D.Normal(z(L, 2), 1.0)))
    both(lambda L, D: D.MixtureSameFamily(D.Categorical(logits=z(L, 3, 2)), D.Normal(z(L, 4, 2), 1.0)))
    both(lambda L, D: D.LKJCholesky(1))
    both(lambda L, D: D.Wishart(L.tensor(1.5, dtype=L.float64), eye(L, 3)))
    both(lambda L, D: D.Wishart(3.0, z(L, 3)))
    both(lambda L, D: D.Wishart(3.0), AssertionError)
    both(lambda L, D: D.RelaxedBernoulli(L.tensor(1.0)))
    both(lambda L, D: D.RelaxedBernoulli(L.tensor(1.0), probs=0.5, logits=0.1))
    both(lambda L, D: D.ContinuousBernoulli())
    both(lambda L, D: D.ContinuousBernoulli(L.tensor([1.5]), validate_args=False))
    both(lambda L, D: D.Pareto(L.tensor([1.0]), L.tensor([-1.0]), validate_args=True))
    both(lambda L, D: D.MultivariateNormal(z(L, 2), scale_tril=-eye(L, 2), validate_args=True))
    both(lambda L, D: D.LogNormal(0.0, 1.0, validate_args=True).log_prob(L.tensor([-1.0])))


def test_wishart_warns_low_df():
    with pytest.warns(UserWarning, match="Low df values detected"):
        TPD.Wishart(tp.tensor(2.5), tp.eye(3))


def test_transformed_cdf_decreasing():
    d = TPD.TransformedDistribution(TPD.Normal(tp.tensor(0.0, dtype=tp.float64), 1.0),
                                    [TPD.transforms.AffineTransform(0.0, -1.0)])
    x = tp.tensor([-1.0, 0.3], dtype=tp.float64)
    want = 0.5 * (1 + np.vectorize(math.erf)(x.numpy() / math.sqrt(2)))
    assert_close(d.cdf(x).numpy(), want, atol=1e-12)
    assert_close(d.icdf(d.cdf(x)).numpy(), x.numpy(), atol=1e-10)


# KL pairs: (id, make_p(D, p), make_q(D, p), params)
_KP = {"a": RNG.standard_normal((2, 3)), "s": RNG.uniform(0.5, 2, (2, 3)),
       "b": RNG.standard_normal((2, 3)), "t": RNG.uniform(0.5, 2, (2, 3)),
       "pa": RNG.uniform(2.5, 4, (2, 3)), "pb": RNG.uniform(1.5, 3, (2, 3)),
       "u": RNG.uniform(0.05, 0.95, (2, 3)), "v": np.array([[0.2, 0.4997, 0.7, 0.9, 0.3, 0.6]]).reshape(2, 3),
       "lo": RNG.uniform(1.1, 1.5, (2, 3)), "hi": RNG.uniform(2, 3, (2, 3)),
       "ulo": RNG.uniform(0.05, 0.2, (2, 3)), "uhi": RNG.uniform(0.6, 0.9, (2, 3)),
       "m": RNG.standard_normal((2, 3)), "L": np.linalg.cholesky(_spd(3, (2,))),
       "m2": RNG.standard_normal((3,)), "C": _spd(3), "W": RNG.standard_normal((2, 3, 2)),
       "d": RNG.uniform(0.5, 2, (2, 3)), "W2": RNG.standard_normal((3, 1)), "d2": RNG.uniform(0.5, 2, (3,))}
KL_CASES = [
    ("mvn_mvn", lambda D, p: D.MultivariateNormal(p["m"], scale_tril=p["L"]),
     lambda D, p: D.MultivariateNormal(p["m2"], covariance_matrix=p["C"])),
    ("lowrank_lowrank", lambda D, p: D.LowRankMultivariateNormal(p["m"], p["W"], p["d"]),
     lambda D, p: D.LowRankMultivariateNormal(p["m2"], p["W2"], p["d2"])),
    ("mvn_lowrank", lambda D, p: D.MultivariateNormal(p["m"], scale_tril=p["L"]),
     lambda D, p: D.LowRankMultivariateNormal(p["m2"], p["W2"], p["d2"])),
    ("lowrank_mvn", lambda D, p: D.LowRankMultivariateNormal(p["m"], p["W"], p["d"]),
     lambda D, p: D.MultivariateNormal(p["m2"], covariance_matrix=p["C"])),
    ("gumbel_gumbel", lambda D, p: D.Gumbel(p["a"], p["s"]), lambda D, p: D.Gumbel(p["b"], p["t"])),
    ("pareto_pareto", lambda D, p: D.Pareto(p["lo"], p["pa"]), lambda D, p: D.Pareto(p["ulo"], p["pb"])),
    ("pareto_pareto_inf", lambda D, p: D.Pareto(p["lo"], p["pa"]), lambda D, p: D.Pareto(p["s"], p["pb"])),
    ("cb_cb", lambda D, p: D.ContinuousBernoulli(p["u"]), lambda D, p: D.ContinuousBernoulli(p["v"])),
    ("indep_indep", lambda D, p: D.Independent(D.Normal(p["a"], p["s"]), 1),
     lambda D, p: D.Independent(D.Normal(p["b"], p["t"]), 1)),
    ("lognormal_lognormal", lambda D, p: D.LogNormal(p["a"], p["s"]), lambda D, p: D.LogNormal(p["b"], p["t"])),
    ("beta_cb", lambda D, p: D.Beta(p["s"], p["t"]), lambda D, p: D.ContinuousBernoulli(p["v"])),
    ("uniform_cb", lambda D, p: D.Uniform(p["ulo"], p["uhi"]), lambda D, p: D.ContinuousBernoulli(p["v"])),
    ("cb_exponential", lambda D, p: D.ContinuousBernoulli(p["u"]), lambda D, p: D.Exponential(p["t"])),
    ("cb_normal", lambda D, p: D.ContinuousBernoulli(p["u"]), lambda D, p: D.Normal(p["b"], p["t"])),
    ("cb_uniform", lambda D, p: D.ContinuousBernoulli(p["u"]), lambda D, p: D.Uniform(p["a"] - 3, p["hi"])),
    ("exponential_gumbel", lambda D, p: D.Exponential(p["s"]), lambda D, p: D.Gumbel(p["b"], p["t"])),
    ("gamma_gumbel", lambda D, p: D.Gamma(p["s"], p["t"]), lambda D, p: D.Gumbel(p["b"], p["t"])),
    ("gumbel_normal", lambda D, p: D.Gumbel(p["a"], p["s"]), lambda D, p: D.Normal(p["b"], p["t"])),
    ("normal_gumbel", lambda D, p: D.Normal(p["a"], p["s"]), lambda D, p: D.Gumbel(p["b"], p["t"])),
    ("uniform_gumbel", lambda D, p: D.Uniform(p["ulo"], p["uhi"]), lambda D, p: D.Gumbel(p["b"], p["t"])),
    ("pareto_exponential", lambda D, p: D.Pareto(p["lo"], p["pa"]), lambda D, p: D.Exponential(p["t"])),
    ("pareto_gamma", lambda D, p: D.Pareto(p["lo"], p["pa"]), lambda D, p: D.Gamma(p["s"], p["t"])),
    ("pareto_normal", lambda D, p: D.Pareto(p["lo"], p["pa"]), lambda D, p: D.Normal(p["b"], p["t"])),
    ("uniform_pareto", lambda D, p: D.Uniform(p["lo"] + 1, p["hi"] + 1), lambda D, p: D.Pareto(p["lo"], p["pa"])),
    ("gumbel_beta_inf", lambda D, p: D.Gumbel(p["a"], p["s"]), lambda D, p: D.Beta(p["s"], p["t"])),
    ("normal_pareto_inf", lambda D, p: D.Normal(p["a"], p["s"]), lambda D, p: D.Pareto(p["lo"], p["pa"])),
    ("pareto_uniform_inf", lambda D, p: D.Pareto(p["lo"], p["pa"]), lambda D, p: D.Uniform(p["ulo"], p["uhi"])),
    ("cb_pareto_inf", lambda D, p: D.ContinuousBernoulli(p["u"]), lambda D, p: D.Pareto(p["lo"], p["pa"])),
]


def _kl_values(lib, case):
    L, D = _lib(lib)
    _, mp_, mq_ = case
    ps = {k: L.tensor(v, dtype=L.float64, requires_grad=True) for k, v in _KP.items()}
    kl = D.kl_divergence(mp_(D, ps), mq_(D, ps))
    val = kl.detach().numpy()
    if np.all(np.isfinite(val)):
        gs = L.autograd.grad(kl.sum(), list(ps.values()), allow_unused=True)
        gs = [np.zeros(v.shape) if g is None else g.numpy() for g, v in zip(gs, _KP.values())]
    else:
        gs = None
    return val, gs


@needs_torch
@pytest.mark.parametrize("case", KL_CASES, ids=[c[0] for c in KL_CASES])
def test_kl_matches_torch(case):
    v1, g1 = _kl_values("tp", case)
    v2, g2 = _kl_values("th", case)
    assert_close(v1, v2, atol=1e-9, rtol=1e-8, msg=case[0])
    assert (g1 is None) == (g2 is None)
    if g1 is not None:
        for k, a, b in zip(_KP, g1, g2):
            assert_close(a, b, atol=1e-8, rtol=1e-7, msg=f"{case[0]} d/d{k}")


@pytest.mark.parametrize("case", [c for c in KL_CASES if not c[0].endswith("_inf")],
                         ids=[c[0] for c in KL_CASES if not c[0].endswith("_inf")])
def test_kl_gradcheck(case):
    _, mp_, mq_ = case
    names = [k for k in _KP if k != "C"]

    def f(*args):
        ps = dict(zip(names, args))
        ps["C"] = tp.tensor(_KP["C"], dtype=tp.float64)
        return tp.distributions.kl_divergence(mp_(TPD, ps), mq_(TPD, ps))
    args = [tp.tensor(_KP[k], dtype=tp.float64, requires_grad=True) for k in names]
    from tensorplay.distributions.distribution import Distribution
    old = Distribution._validate_args
    Distribution.set_default_validate_args(False)
    try:
        assert gradcheck(f, args)
    finally:
        Distribution.set_default_validate_args(old)


def test_kl_transformed_needs_equal_transforms():
    a = TPD.Weibull(tp.tensor(1.0), tp.tensor(2.0))
    b = TPD.Weibull(tp.tensor(1.5), tp.tensor(3.0))
    with pytest.raises(NotImplementedError):
        tp.distributions.kl_divergence(a, b)
    with pytest.raises(NotImplementedError):
        tp.distributions.kl_divergence(TPD.Independent(TPD.Normal(tp.zeros(2, 2), 1.0), 1),
                                       TPD.Independent(TPD.Normal(tp.zeros(2, 2), 1.0), 2))
    with pytest.raises(ValueError, match="different event shapes"):
        tp.distributions.kl_divergence(TPD.MultivariateNormal(tp.zeros(2), tp.eye(2)),
                                       TPD.MultivariateNormal(tp.zeros(3), tp.eye(3)))
