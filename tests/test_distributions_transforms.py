"""tensorplay.distributions.transforms and constraint_registry against torch 2.x:
forward, inverse and log|det J| values and gradients, shapes, caching, errors,
biject_to/transform_to; gradients also by gradcheck (float64, no torch needed)."""
import math

import numpy as np
import pytest

import tensorplay as tp
from tensorplay.autograd import gradcheck
from tensorplay.distributions import constraint_registry as tp_reg
from tensorplay.distributions import constraints as tp_con
from tensorplay.distributions import transforms as tp_T

from conftest import assert_close, exact

try:
    import torch
    from torch.distributions import constraint_registry as th_reg
    from torch.distributions import constraints as th_con
    from torch.distributions import transforms as th_T
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def _lib(name):
    if name == "tp":
        return tp, tp_T
    return torch, th_T


# (id, factory(lib, T, params) -> transform, input array, parameter arrays, bijective check)
RNG = np.random.default_rng(1234)
X34 = RNG.standard_normal((3, 4))
POS34 = RNG.uniform(0.3, 2.0, (3, 4))
X26 = RNG.standard_normal((2, 6))
X233 = RNG.standard_normal((2, 3, 3))
CASES = [
    ("exp", lambda L, T, p: T.ExpTransform(), X34, []),
    ("sigmoid", lambda L, T, p: T.SigmoidTransform(), X34, []),
    ("tanh", lambda L, T, p: T.TanhTransform(), X34, []),
    ("softplus", lambda L, T, p: T.SoftplusTransform(), X34, []),
    ("power", lambda L, T, p: T.PowerTransform(p[0]), POS34, [RNG.uniform(0.5, 2.0, (4,))]),
    ("power_neg", lambda L, T, p: T.PowerTransform(p[0]), POS34, [np.array(-1.5)]),
    ("affine", lambda L, T, p: T.AffineTransform(p[0], p[1]), X34,
     [RNG.standard_normal((4,)), RNG.uniform(-2, 2, (3, 4))]),
    ("affine_num", lambda L, T, p: T.AffineTransform(1.5, -2.0), X34, []),
    ("affine_ev1", lambda L, T, p: T.AffineTransform(p[0], p[1], event_dim=1), X34,
     [RNG.standard_normal((4,)), RNG.uniform(0.5, 2, (4,))]),
    ("affine_ev2", lambda L, T, p: T.AffineTransform(p[0], p[1], event_dim=2), X233,
     [RNG.standard_normal((3, 3)), RNG.uniform(0.5, 2, (2, 3, 3))]),
    ("stick", lambda L, T, p: T.StickBreakingTransform(), X34, []),
    ("corr_chol", lambda L, T, p: T.CorrCholeskyTransform(), X26, []),
    ("reshape", lambda L, T, p: T.ReshapeTransform((2, 3), (3, 2)), X233[:, :2], []),
    ("independent", lambda L, T, p: T.IndependentTransform(T.SigmoidTransform(), 1), X34, []),
    ("compose", lambda L, T, p: T.ComposeTransform([T.ExpTransform(), T.AffineTransform(p[0], 2.0),
                                                    T.PowerTransform(p[1])]), X34,
     [RNG.uniform(0.1, 1, (4,)), RNG.uniform(0.5, 2, (4,))]),
    ("compose_event", lambda L, T, p: T.ComposeTransform([T.AffineTransform(0.5, p[0]),
                                                          T.StickBreakingTransform()]), X34,
     [RNG.uniform(0.5, 2, (4,))]),
    ("inv_exp", lambda L, T, p: T.ExpTransform().inv, POS34, []),
    ("inv_stick", lambda L, T, p: T.StickBreakingTransform().inv,
     np.abs(X34) / np.abs(X34).sum(-1, keepdims=True), []),
    ("cat", lambda L, T, p: T.CatTransform([T.ExpTransform(), T.AffineTransform(p[0], 3.0),
                                            T.TanhTransform()], dim=1, lengths=[1, 2, 1]), X34,
     [np.array(0.5)]),
    ("cat_dim0", lambda L, T, p: T.CatTransform([T.SigmoidTransform(), T.ExpTransform()], dim=0,
                                                lengths=[2, 1]), X34, []),
    ("stack", lambda L, T, p: T.StackTransform([T.ExpTransform(), T.SigmoidTransform(),
                                                T.AffineTransform(1.0, p[0])], dim=0), X34[:, :3].T,
     [np.array(-0.5)]),
    ("stack_dim1", lambda L, T, p: T.StackTransform([T.ExpTransform(), T.TanhTransform()], dim=-1),
     X34[:, :2], []),
    ("identity", lambda L, T, p: T.identity_transform, X34, []),
]
IDS = [c[0] for c in CASES]
# non-bijective ones: forward and inverse only
EXTRA = [
    ("softmax", lambda L, T, p: T.SoftmaxTransform(), X34, []),
    ("abs", lambda L, T, p: T.AbsTransform(), X34, []),
    ("lower_chol", lambda L, T, p: T.LowerCholeskyTransform(), X233, []),
    ("pos_def", lambda L, T, p: T.PositiveDefiniteTransform(), X233, []),
]


def _run(lib, case, grads=True):
    """Values of y, inv(y), log|det J| and the gradients of a weighted sum of them
    with respect to x and the parameters."""
    L, T = _lib(lib)
    _, make, x, params = case
    xt = L.tensor(x, dtype=L.float64, requires_grad=True)
    ps = [L.tensor(p, dtype=L.float64, requires_grad=True) for p in params]
    t = make(L, T, ps)
    y = t(xt)
    back = t.inv(y)
    outs = [y, back]
    if t.bijective:
        outs.append(t.log_abs_det_jacobian(xt, y))
    total = 0
    for i, o in enumerate(outs):
        w = L.tensor(np.linspace(-1, 1.5, o.numel()).reshape(tuple(o.shape)) + i, dtype=L.float64)
        total = total + (o * w).sum()
    gs = L.autograd.grad(total, [xt] + ps, allow_unused=True)
    vals = [o.detach().numpy() for o in outs]
    return vals, [None if g is None else g.numpy() for g in gs], t


@needs_torch
@pytest.mark.parametrize("case", CASES + EXTRA, ids=IDS + [c[0] for c in EXTRA])
def test_transform_matches_torch(case):
    v1, g1, t1 = _run("tp", case)
    v2, g2, t2 = _run("th", case)
    assert len(v1) == len(v2)
    for a, b in zip(v1, v2):
        assert_close(a, b, atol=1e-10, rtol=1e-9, msg=case[0])
    for a, b in zip(g1, g2):
        assert (a is None) == (b is None)
        if a is not None:
            assert_close(a, b, atol=1e-9, rtol=1e-8, msg=case[0] + " grad")
    assert t1.bijective == t2.bijective
    assert t1.domain.event_dim == t2.domain.event_dim
    assert t1.codomain.event_dim == t2.codomain.event_dim
    assert type(t1.domain).__name__ == type(t2.domain).__name__
    assert type(t1.codomain).__name__ == type(t2.codomain).__name__
    x = case[2]
    assert tuple(t1.forward_shape(x.shape)) == tuple(t2.forward_shape(torch.Size(x.shape)))
    ys = tuple(t2.forward_shape(torch.Size(x.shape)))
    assert tuple(t1.inverse_shape(ys)) == tuple(t2.inverse_shape(torch.Size(ys)))
    try:
        s2 = t2.sign
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            t1.sign
    else:
        s1 = t1.sign
        if isinstance(s2, torch.Tensor):
            assert_close(s1.detach().numpy(), s2.detach().numpy())
        else:
            assert s1 == s2 and type(s1) is type(s2)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_transform_gradcheck(case):
    _, make, x, params = case
    xt = tp.tensor(x, dtype=tp.float64, requires_grad=True)
    ps = [tp.tensor(p, dtype=tp.float64, requires_grad=True) for p in params]

    def f(xv, *pv):
        t = make(tp, tp_T, list(pv))
        y = t(xv)
        out = [y, t.inv(y)]
        if t.bijective:
            out.append(t.log_abs_det_jacobian(xv, y))
        return tuple(out)
    assert gradcheck(f, (xt, *ps))


@pytest.mark.parametrize("case", [c for c in CASES if c[0] in ("exp", "stick", "corr_chol", "compose",
                                                                "affine", "power")],
                         ids=lambda c: c[0])
def test_transform_gradgradcheck(case):
    from tensorplay.autograd import gradgradcheck
    _, make, x, params = case
    xt = tp.tensor(x, dtype=tp.float64, requires_grad=True)
    ps = [tp.tensor(p, dtype=tp.float64, requires_grad=True) for p in params]

    def f(xv, *pv):
        t = make(tp, tp_T, list(pv))
        y = t(xv)
        return t.log_abs_det_jacobian(xv, y), t.inv(y * 1.0)
    assert gradgradcheck(f, (xt, *ps))


def test_log_abs_det_jacobian_is_the_jacobian():
    # StickBreaking maps K -> K+1; its log-det is that of the map to the first K outputs
    x = tp.tensor(X34[0], dtype=tp.float64)
    t = tp_T.StickBreakingTransform()
    J = tp.autograd.functional.jacobian(lambda v: t(v)[:-1], x)
    want = np.log(abs(np.linalg.det(J.numpy())))
    assert_close(t.log_abs_det_jacobian(x, t(x)).item(), want, atol=1e-10)
    # CorrCholesky: D(D-1)/2 inputs -> strictly-lower entries
    x = tp.tensor(X26[0], dtype=tp.float64)
    t = tp_T.CorrCholeskyTransform()
    mask = np.tril(np.ones((4, 4), bool), -1)
    J = tp.autograd.functional.jacobian(lambda v: t(v)[tp.tensor(mask)], x)
    want = np.log(abs(np.linalg.det(J.numpy())))
    assert_close(t.log_abs_det_jacobian(x, t(x)).item(), want, atol=1e-9)


def test_corr_cholesky_output_is_a_correlation_factor():
    y = tp_T.CorrCholeskyTransform()(tp.tensor(X26, dtype=tp.float64))
    assert tuple(y.shape) == (2, 4, 4)
    c = (y @ y.mT).numpy()
    assert_close(np.diagonal(c, axis1=-2, axis2=-1), np.ones((2, 4)), atol=1e-12)
    assert bool(tp_con.corr_cholesky.check(y).all())


def test_cache():
    x = tp.randn(3, dtype=tp.float64)
    t = tp_T.ExpTransform()
    assert t._cache_size == 0 and t.with_cache(0) is t
    c = t.with_cache(1)
    y = c(x)
    assert c(x) is y and c.inv(y) is x
    assert t.inv(t(x)) is not x
    comp = tp_T.ComposeTransform([tp_T.ExpTransform(), tp_T.AffineTransform(1.0, 2.0)], cache_size=1)
    y = comp(x)
    assert comp.inv(y) is x
    aff = tp_T.AffineTransform(0.0, 2.0).with_cache()
    assert aff._cache_size == 1 and aff.inv.with_cache(0)._cache_size == 0
    with pytest.raises(ValueError, match=exact("cache_size must be 0 or 1")):
        tp_T.ExpTransform(cache_size=2)

    class Odd(tp_T.Transform):
        def __init__(self, a=0, cache_size=0):
            super().__init__(cache_size=cache_size)

    with pytest.raises(NotImplementedError, match="with_cache is not implemented"):
        Odd().with_cache(1)


def test_inverse_and_equality():
    t = tp_T.ExpTransform()
    assert t.inv.inv is t
    assert t.inv == tp_T.ExpTransform().inv
    assert t == tp_T.ExpTransform() and t != tp_T.SigmoidTransform()
    assert repr(t.inv) == "_InverseTransform(ExpTransform())"
    c = tp_T.ComposeTransform([tp_T.ExpTransform(), tp_T.SigmoidTransform()])
    assert c.inv.inv is c and c.inv.parts[0] == tp_T.SigmoidTransform().inv
    assert tp_T.AffineTransform(1.0, 2.0) == tp_T.AffineTransform(1.0, 2.0)
    assert tp_T.AffineTransform(tp.tensor([1.0]), 2.0) != tp_T.AffineTransform(tp.tensor([1.5]), 2.0)
    assert tp_T.PowerTransform(tp.tensor(2.0)) == tp_T.PowerTransform(tp.tensor(2.0))
    assert tp_T.AffineTransform(0.0, -3.0).sign == -1 and tp_T.AffineTransform(0.0, 0).sign == 0
    assert c.sign == 1 and tp_T.ComposeTransform([tp_T.AffineTransform(0.0, -1.0)]).inv.sign == -1


@needs_torch
def test_errors_match_torch():
    def both(f, exc):
        msgs = []
        for L, T in ((tp, tp_T), (torch, th_T)):
            with pytest.raises(exc) as e:
                f(L, T)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1].replace("torch.", "tensorplay."), msgs
    both(lambda L, T: T.ReshapeTransform((2, 3), (4,)), ValueError)
    both(lambda L, T: T.ReshapeTransform((2, 3), (3, 2)).forward_shape((5, 3, 2)), ValueError)
    both(lambda L, T: T.ReshapeTransform((2, 3), (3, 2)).inverse_shape((2,)), ValueError)
    both(lambda L, T: T.StickBreakingTransform().forward_shape(()), ValueError)
    both(lambda L, T: T.CorrCholeskyTransform().forward_shape((4,)), ValueError)
    both(lambda L, T: T.CorrCholeskyTransform().inverse_shape((3, 4)), ValueError)
    both(lambda L, T: T.CorrCholeskyTransform().event_dim, ValueError)
    both(lambda L, T: T.ComposeTransform([T.ExpTransform(), T.CorrCholeskyTransform()]).event_dim,
         ValueError)
    both(lambda L, T: T.IndependentTransform(T.ExpTransform(), 2)(L.ones(3)), ValueError)
    cat = lambda T: T.CatTransform([T.ExpTransform(), T.ExpTransform()], dim=1, lengths=[1, 2])  # noqa
    both(lambda L, T: cat(T)(L.ones(2, 4)), AssertionError)
    both(lambda L, T: cat(T)(L.ones(4)), AssertionError)
    both(lambda L, T: cat(T).inv(L.ones(2, 2)), AssertionError)
    both(lambda L, T: cat(T).log_abs_det_jacobian(L.ones(2, 3), L.ones(2, 2)), AssertionError)
    both(lambda L, T: T.CatTransform([T.ExpTransform()], lengths=[1, 2]), AssertionError)
    both(lambda L, T: T.CatTransform([1]), AssertionError)
    st = lambda T: T.StackTransform([T.ExpTransform(), T.ExpTransform()], dim=0)  # noqa
    both(lambda L, T: st(T)(L.ones(3, 2)), AssertionError)
    both(lambda L, T: st(T).inv(L.ones(3)), AssertionError)
    both(lambda L, T: st(T).log_abs_det_jacobian(L.ones(2), L.ones(3)), AssertionError)
    both(lambda L, T: T.Transform(cache_size=3), ValueError)
    both(lambda L, T: T.Transform()(L.ones(2)), NotImplementedError)
    both(lambda L, T: T.AbsTransform().log_abs_det_jacobian(L.ones(2), L.ones(2)), NotImplementedError)


# constraints and their transforms: (id, constraint factory(con, L), unconstrained input)
CONS = [
    ("real", lambda c, L: c.real, X34),
    ("positive", lambda c, L: c.positive, X34),
    ("nonnegative", lambda c, L: c.nonnegative, X34),
    ("greater_than", lambda c, L: c.greater_than(L.tensor([0.5, -1.0, 2.0, 0.0], dtype=L.float64)), X34),
    ("greater_than_eq", lambda c, L: c.greater_than_eq(1.5), X34),
    ("less_than", lambda c, L: c.less_than(-2.0), X34),
    ("unit_interval", lambda c, L: c.unit_interval, X34),
    ("interval", lambda c, L: c.interval(-1.0, 3.0), X34),
    ("half_open", lambda c, L: c.half_open_interval(L.tensor(-1.0, dtype=L.float64), 3.0), X34),
    ("simplex", lambda c, L: c.simplex, X34),
    ("corr_cholesky", lambda c, L: c.corr_cholesky, X26),
    ("independent", lambda c, L: c.independent(c.positive, 1), X34),
    ("independent_simplex", lambda c, L: c.independent(c.simplex, 1), X34),
    ("cat", lambda c, L: c.cat([c.positive, c.interval(0.0, 2.0)], 1, [3, 1]), X34),
    ("stack", lambda c, L: c.stack([c.real, c.positive, c.unit_interval], 0), X34[:3]),
]
CONS_TO = CONS + [
    ("lower_cholesky", lambda c, L: c.lower_cholesky, X233),
    ("positive_definite", lambda c, L: c.positive_definite, X233),
    ("positive_semidefinite", lambda c, L: c.positive_semidefinite, X233),
]


def _reg_run(L, con, reg, case):
    _, make, x = case
    xt = L.tensor(x, dtype=L.float64, requires_grad=True)
    c = make(con, L)
    t = reg(c)
    y = t(xt)
    outs = [y]
    if t.bijective:
        outs.append(t.log_abs_det_jacobian(xt, y))
    outs.append(t.inv(y))
    total = sum((o * (1 + i)).sum() for i, o in enumerate(outs))
    g, = L.autograd.grad(total, [xt])
    return t, c, [o.detach().numpy() for o in outs] + [g.numpy()]


@needs_torch
@pytest.mark.parametrize("which", ["biject_to", "transform_to"])
@pytest.mark.parametrize("case", CONS_TO, ids=[c[0] for c in CONS_TO])
def test_constraint_registry_matches_torch(which, case):
    try:
        t2, c2, v2 = _reg_run(torch, th_con, getattr(th_reg, which), case)
    except NotImplementedError as e:
        with pytest.raises(NotImplementedError, match=exact(str(e))):
            _reg_run(tp, tp_con, getattr(tp_reg, which), case)
        return
    t1, c1, v1 = _reg_run(tp, tp_con, getattr(tp_reg, which), case)
    assert type(t1).__name__ == type(t2).__name__
    for a, b in zip(v1, v2):
        assert_close(a, b, atol=1e-10, rtol=1e-9, msg=case[0])
    assert bool(c1.check(tp.tensor(v1[0])).all())


def test_constraint_registry_register():
    reg = tp_reg.ConstraintRegistry()

    class MyPos(tp_con.Constraint):
        pass

    @reg.register(MyPos)
    def _f(c):
        return tp_T.ExpTransform()
    assert isinstance(reg(MyPos()), tp_T.ExpTransform)
    reg.register(tp_con.real, lambda c: tp_T.identity_transform)
    assert reg(tp_con.real) is tp_T.identity_transform
    with pytest.raises(TypeError, match="Expected constraint to be either a Constraint subclass"):
        reg.register(3, lambda c: None)
    with pytest.raises(NotImplementedError, match=exact("Cannot transform _Boolean constraints")):
        tp_reg.biject_to(tp_con.boolean)
    with pytest.raises(NotImplementedError, match=exact("Cannot transform _LowerCholesky constraints")):
        tp_reg.biject_to(tp_con.lower_cholesky)


def test_cumulative_distribution_transform():
    from tensorplay.distributions.normal import Normal
    loc = tp.tensor([0.5, -1.0], dtype=tp.float64, requires_grad=True)
    t = tp_T.CumulativeDistributionTransform(Normal(loc, 2.0))
    x = tp.tensor([[0.1, 0.2], [1.5, -3.0]], dtype=tp.float64, requires_grad=True)
    y = t(x)
    assert_close(y.detach().numpy(), 0.5 * (1 + np.vectorize(math.erf)(
        (x.detach().numpy() - loc.detach().numpy()) / (2 * math.sqrt(2)))), atol=1e-12)
    assert_close(t.inv(y).detach().numpy(), x.detach().numpy(), atol=1e-9)
    assert t.sign == 1 and t.bijective and t.domain is t.distribution.support
    assert t.with_cache(1)._cache_size == 1

    def f(a, b):
        tb = tp_T.CumulativeDistributionTransform(Normal(b, 2.0))
        yb = tb(a)
        return tb.log_abs_det_jacobian(a, yb), yb, tb.inv(yb)
    assert gradcheck(f, (x, loc))
    if torch is not None:
        tt = th_T.CumulativeDistributionTransform(torch.distributions.Normal(
            torch.tensor([0.5, -1.0], dtype=torch.float64), 2.0))
        xx = torch.tensor(x.detach().numpy())
        assert_close(t.log_abs_det_jacobian(x, y).detach().numpy(),
                     tt.log_abs_det_jacobian(xx, tt(xx)).numpy(), atol=1e-12)
