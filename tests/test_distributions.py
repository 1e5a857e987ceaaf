"""tensorplay.distributions against torch.distributions (same parameters):
log_prob, cdf, icdf, entropy, moments and their gradients, expand,
enumerate_support, validation errors, constraints, KL divergences; and, without
torch, the reparameterized samples' gradients (finite differences with the same
noise, the implicit Gamma gradient against igamma) and seeded sample statistics."""
import math
import warnings

import numpy as np
import pytest

import tensorplay as tp
import tensorplay.distributions as D
from tensorplay.distributions import constraints as C
from tensorplay.ops.dist_ops import _standard_gamma_grad

from conftest import assert_close, torch

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def _rng(seed):
    return np.random.default_rng(seed)


def _u(shape, lo, hi, seed):
    return _rng(seed).uniform(lo, hi, shape)


def _simplex(shape, seed):
    p = _u(shape, 0.1, 1.0, seed)
    return p / p.sum(-1, keepdims=True)


SH = (2, 3)
# name: (class, {param: array or number}, value for log_prob (and cdf), probabilities for icdf)
SPECS = {
    "Normal": ("Normal", {"loc": _u(SH, -1, 1, 1), "scale": _u(SH, 0.5, 2, 2)},
               _u(SH, -2, 2, 3), _u(SH, 0.05, 0.95, 4)),
    "Normal_num": ("Normal", {"loc": 0.5, "scale": 2.0}, _u(SH, -2, 2, 3), None),
    "Uniform": ("Uniform", {"low": _u(SH, -1, 0, 5), "high": _u(SH, 1, 2, 6)},
                _u(SH, -0.9, 0.9, 7), _u(SH, 0.05, 0.95, 8)),
    "Bernoulli": ("Bernoulli", {"probs": _u(SH, 0.1, 0.9, 9)},
                  _rng(10).integers(0, 2, SH).astype(float), None),
    "Bernoulli_logits": ("Bernoulli", {"logits": _u(SH, -2, 2, 11)},
                         _rng(12).integers(0, 2, SH).astype(float), None),
    "Categorical": ("Categorical", {"probs": _simplex((2, 4), 13)},
                    _rng(14).integers(0, 4, (3, 2)).astype(float), None),
    "Categorical_logits": ("Categorical", {"logits": _u((2, 4), -2, 2, 15)},
                           _rng(16).integers(0, 4, (2,)).astype(float), None),
    "OneHotCategorical": ("OneHotCategorical", {"probs": _simplex((2, 4), 17)},
                          np.eye(4)[_rng(18).integers(0, 4, (2,))], None),
    "OneHotCategorical_logits": ("OneHotCategorical", {"logits": _u((2, 4), -2, 2, 19)},
                                 np.eye(4)[_rng(20).integers(0, 4, (2,))], None),
    "Exponential": ("Exponential", {"rate": _u(SH, 0.5, 2, 21)}, _u(SH, 0.1, 3, 22),
                    _u(SH, 0.05, 0.95, 23)),
    "Laplace": ("Laplace", {"loc": _u(SH, -1, 1, 24), "scale": _u(SH, 0.5, 2, 25)},
                _u(SH, -2, 2, 26), _u(SH, 0.05, 0.95, 27)),
    "Cauchy": ("Cauchy", {"loc": _u(SH, -1, 1, 28), "scale": _u(SH, 0.5, 2, 29)},
               _u(SH, -2, 2, 30), _u(SH, 0.05, 0.95, 31)),
    "HalfNormal": ("HalfNormal", {"scale": _u(SH, 0.5, 2, 32)}, _u(SH, 0.1, 2, 33),
                   _u(SH, 0.05, 0.95, 34)),
    "HalfCauchy": ("HalfCauchy", {"scale": _u(SH, 0.5, 2, 35)}, _u(SH, 0.1, 2, 36),
                   _u(SH, 0.05, 0.95, 37)),
    "Gamma": ("Gamma", {"concentration": _u(SH, 0.5, 3, 38), "rate": _u(SH, 0.5, 2, 39)},
              _u(SH, 0.1, 3, 40), None),
    "Chi2": ("Chi2", {"df": _u(SH, 1, 5, 41)}, _u(SH, 0.1, 3, 42), None),
    "Beta": ("Beta", {"concentration1": _u(SH, 0.5, 3, 43), "concentration0": _u(SH, 0.5, 3, 44)},
             _u(SH, 0.05, 0.95, 45), None),
    "Beta_num": ("Beta", {"concentration1": 2.0, "concentration0": 3.0}, _u(SH, 0.05, 0.95, 45),
                 None),
    "Dirichlet": ("Dirichlet", {"concentration": _u((2, 3), 0.5, 3, 46)}, _simplex((2, 3), 47),
                  None),
    "Poisson": ("Poisson", {"rate": _u(SH, 0.5, 4, 48)},
                _rng(49).integers(0, 6, SH).astype(float), None),
    "Binomial": ("Binomial", {"total_count": 10, "probs": _u(SH, 0.1, 0.9, 50)},
                 _rng(51).integers(0, 11, SH).astype(float), None),
    "Binomial_logits": ("Binomial", {"total_count": 6, "logits": _u(SH, -2, 2, 52)},
                        _rng(53).integers(0, 7, SH).astype(float), None),
    "Geometric": ("Geometric", {"probs": _u(SH, 0.1, 0.9, 54)},
                  _rng(55).integers(0, 6, SH).astype(float), None),
    "NegativeBinomial": ("NegativeBinomial", {"total_count": _u(SH, 0.5, 5, 56),
                                              "probs": _u(SH, 0.1, 0.9, 57)},
                         _rng(58).integers(0, 8, SH).astype(float), None),
    "Multinomial": ("Multinomial", {"total_count": 5, "probs": _simplex((2, 3), 59)},
                    np.array([[1.0, 3.0, 1.0], [0.0, 0.0, 5.0]]), None),
    "StudentT": ("StudentT", {"df": _u(SH, 0.5, 5, 60), "loc": _u(SH, -1, 1, 61),
                              "scale": _u(SH, 0.5, 2, 62)}, _u(SH, -2, 2, 63), None),
    "VonMises": ("VonMises", {"loc": _u(SH, -1, 1, 64), "concentration": _u(SH, 0.2, 8, 65)},
                 _u(SH, -3, 3, 66), None),
}
# PyTorch computes VonMises' log I0 / I1 with polynomial approximations
_RTOL = {"VonMises": 1e-5}
_NO_CDF_GRAD = {"Gamma", "Chi2"}        # gammainc has no derivative in the concentration


def _build(T, spec, grad=True):
    cls, params, _, _ = spec
    kw, leaves = {}, []
    for k, v in params.items():
        if isinstance(v, np.ndarray):
            t = T.tensor(v, dtype=T.float64)
            if grad:
                t.requires_grad_()
                leaves.append(t)
            kw[k] = t
        else:
            kw[k] = v
    return getattr(T.distributions, cls)(**kw), leaves


def _quantities(T, name):
    """{quantity: value (or the exception type)} and the parameter leaves."""
    spec = SPECS[name]
    d, leaves = _build(T, spec)
    value = T.tensor(spec[2], dtype=T.float64)
    out = {}

    def put(key, f):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out[key] = f()
        except NotImplementedError:
            out[key] = NotImplementedError
    put("log_prob", lambda: d.log_prob(value))
    put("entropy", d.entropy)
    put("perplexity", d.perplexity)
    for p in ("mean", "mode", "variance", "stddev"):
        put(p, lambda p=p: getattr(d, p))
    if name not in ("Bernoulli", "Bernoulli_logits", "Categorical", "Categorical_logits",
                    "OneHotCategorical", "OneHotCategorical_logits", "Multinomial",
                    "Dirichlet", "Binomial", "Binomial_logits", "Poisson", "Geometric",
                    "NegativeBinomial", "Beta", "Beta_num", "StudentT", "VonMises"):
        put("cdf", lambda: d.cdf(value))
    if spec[3] is not None:
        put("icdf", lambda: d.icdf(T.tensor(spec[3], dtype=T.float64)))
    return out, leaves, d


@needs_torch
@pytest.mark.parametrize("name", sorted(SPECS))
def test_values_and_gradients_match_torch(name):
    q_tp, leaves_tp, d_tp = _quantities(tp, name)
    q_t, leaves_t, d_t = _quantities(torch, name)
    assert tuple(d_tp.batch_shape) == tuple(d_t.batch_shape)
    assert tuple(d_tp.event_shape) == tuple(d_t.event_shape)
    assert d_tp.has_rsample == d_t.has_rsample
    assert d_tp.has_enumerate_support == d_t.has_enumerate_support
    assert set(q_tp) == set(q_t)
    gen = _rng(99)
    for key in sorted(q_t):
        a, b = q_tp[key], q_t[key]
        if b is NotImplementedError:
            assert a is NotImplementedError, (name, key)
            continue
        assert a is not NotImplementedError, (name, key)
        assert tuple(a.shape) == tuple(b.shape), (name, key)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], (name, key)
        rtol = _RTOL.get(name, 1e-6 if b.dtype == torch.float64 else 1e-5)  # Beta_num: float32
        assert_close(a.detach().numpy(), b.detach().numpy(), atol=1e-8, rtol=rtol,
                     msg=f"{name} {key}")
        if not b.requires_grad or (key == "cdf" and name in _NO_CDF_GRAD):
            continue
        assert a.requires_grad, (name, key)
        w = gen.standard_normal(tuple(b.shape))
        w[~np.isfinite(b.detach().numpy())] = 0.0
        g_tp = tp.autograd.grad(a, leaves_tp, tp.tensor(w), allow_unused=True, retain_graph=True)
        g_t = torch.autograd.grad(b, leaves_t, torch.tensor(w), allow_unused=True, retain_graph=True)
        for x, y in zip(g_tp, g_t):
            if y is None:
                assert x is None or not np.any(x.numpy()), (name, key)
                continue
            assert_close(x.numpy(), y.numpy(), atol=1e-8, rtol=_RTOL.get(name, 1e-6),
                         msg=f"{name} {key} grad")


@needs_torch
@pytest.mark.parametrize("name", ["Normal", "Gamma", "Beta", "Categorical_logits", "Bernoulli",
                                  "OneHotCategorical", "Dirichlet", "Binomial", "StudentT",
                                  "Multinomial", "HalfNormal", "Chi2", "NegativeBinomial",
                                  "VonMises", "Uniform", "Geometric", "Poisson", "HalfCauchy"])
def test_expand_matches_torch(name):
    spec = SPECS[name]
    d_tp, _ = _build(tp, spec, grad=False)
    d_t, _ = _build(torch, spec, grad=False)
    shape = (4,) + tuple(d_t.batch_shape)
    e_tp, e_t = d_tp.expand(shape), d_t.expand(shape)
    assert type(e_tp).__name__ == type(e_t).__name__
    assert tuple(e_tp.batch_shape) == tuple(e_t.batch_shape) == shape
    assert tuple(e_tp.event_shape) == tuple(e_t.event_shape)
    v = spec[2]
    assert_close(e_tp.log_prob(tp.tensor(v)).numpy(), e_t.log_prob(torch.tensor(v)).numpy(),
                 atol=1e-8, rtol=1e-6)
    s = e_tp.sample((2,))
    assert tuple(s.shape) == (2,) + shape + tuple(e_t.event_shape)
    assert e_tp._validate_args == e_t._validate_args


@needs_torch
@pytest.mark.parametrize("name", ["Bernoulli", "Categorical", "OneHotCategorical", "Binomial"])
@pytest.mark.parametrize("expand", [True, False])
def test_enumerate_support_matches_torch(name, expand):
    d_tp, _ = _build(tp, SPECS[name], grad=False)
    d_t, _ = _build(torch, SPECS[name], grad=False)
    a, b = d_tp.enumerate_support(expand), d_t.enumerate_support(expand)
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_array_equal(a.numpy(), b.numpy())


# ------------------------------------------------------------------ validation
def _msg(T, f):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f(T)
    except Exception as e:   # noqa: BLE001
        return type(e).__name__, str(e).replace("torch.", "tensorplay.")
    return None


_ERRORS = [
    lambda T: T.distributions.Normal(T.tensor([0.0, 1.0]), T.tensor([1.0, -1.0])),
    lambda T: T.distributions.Normal(0.0, 1.0).log_prob(1.0),
    lambda T: T.distributions.Normal(T.zeros(3), 1.0).log_prob(T.zeros(2)),
    lambda T: T.distributions.Exponential(T.ones(2)).log_prob(T.tensor([1.0, -1.0])),
    lambda T: T.distributions.Dirichlet(T.ones(2, 3)).log_prob(T.ones(2, 4) / 4),
    lambda T: T.distributions.Bernoulli(T.tensor([0.5, 1.5])),
    lambda T: T.distributions.Bernoulli(probs=T.tensor(0.5), logits=T.tensor(0.0)),
    lambda T: T.distributions.Bernoulli(),
    lambda T: T.distributions.Categorical(probs=T.tensor(0.5)),
    lambda T: T.distributions.Categorical(logits=T.tensor(0.5)),
    lambda T: T.distributions.Categorical(T.tensor([0.2, 0.8])).log_prob(T.tensor(2.0)),
    lambda T: T.distributions.Uniform(T.tensor([0.0, 1.0]), T.tensor([1.0, 1.0])),
    lambda T: T.distributions.Uniform(0.0, 1.0).log_prob(T.tensor(1.5)),
    lambda T: T.distributions.Dirichlet(T.tensor(1.0)),
    lambda T: T.distributions.Gamma(T.tensor([1.0]), T.tensor([0.0])),
    lambda T: T.distributions.Geometric(T.tensor([0.0, 0.5])),
    lambda T: T.distributions.Multinomial(T.tensor(3), T.tensor([0.5, 0.5])),
    lambda T: T.distributions.Multinomial(3, T.tensor([0.5, 0.5])).log_prob(T.tensor([4.0, 0.0])),
    lambda T: T.distributions.Binomial(T.tensor([2.5]), T.tensor([0.5])),
    lambda T: T.distributions.Binomial(T.tensor([2.0, 3.0]), T.tensor([0.5, 0.5])).entropy(),
    lambda T: T.distributions.Binomial(T.tensor([2.0, 3.0]), T.tensor([0.5, 0.5])).enumerate_support(),
    lambda T: T.distributions.Poisson(T.tensor([1.0])).log_prob(T.tensor([0.5])),
    lambda T: T.distributions.Beta(T.tensor([1.0]), T.tensor([1.0])).log_prob(T.tensor([1.5])),
    lambda T: T.distributions.OneHotCategorical(T.tensor([0.5, 0.5])).log_prob(T.tensor([1.0, 1.0])),
    lambda T: T.distributions.Distribution().mode,
    lambda T: T.distributions.kl_divergence(T.distributions.Normal(0.0, 1.0),
                                            T.distributions.Poisson(T.tensor(1.0))),
    lambda T: T.distributions.kl_divergence(T.distributions.Gamma(T.tensor(1.0), T.tensor(1.0)),
                                            T.distributions.Poisson(T.tensor(1.0))),
    lambda T: T.distributions.kl_divergence(
        T.distributions.Binomial(2, T.tensor(0.5)), T.distributions.Binomial(3, T.tensor(0.5))),
    lambda T: T.distributions.Normal(0.0, 1.0).expand(2, 3),
    lambda T: T.poisson(T.tensor([-1.0])),
    lambda T: T.poisson(T.tensor([1, 2])),
    lambda T: T.binomial(T.tensor([2]), T.tensor([0.5])),
    lambda T: T.binomial(T.tensor([2.0]), T.tensor([1])),
]


@needs_torch
@pytest.mark.parametrize("k", range(len(_ERRORS)))
def test_errors_match_torch(k):
    a, b = _msg(tp, _ERRORS[k]), _msg(torch, _ERRORS[k])
    assert b is not None
    assert a == b


def test_validation_switch():
    assert D.Distribution._validate_args is True
    d = D.Normal(tp.tensor([0.0]), tp.tensor([-1.0]), validate_args=False)
    assert bool(d.log_prob(tp.tensor([0.0])).isnan().all())
    try:
        D.Distribution.set_default_validate_args(False)
        D.Normal(0.0, -1.0)
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(0.0, -1.0)
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args(2)
    with pytest.warns(UserWarning, match="sample_n will be deprecated"):
        assert tuple(D.Normal(0.0, 1.0).sample_n(3).shape) == (3,)


def test_custom_subclass_expand_refused():
    class MyNormal(D.Normal):
        def __init__(self, loc):
            super().__init__(loc, 1.0)

    with pytest.raises(NotImplementedError, match="Subclass MyNormal of Normal that defines a "
                                                  "custom __init__ method must also define a "
                                                  "custom .expand\\(\\) method."):
        MyNormal(tp.zeros(2)).expand((3, 2))


@needs_torch
def test_repr_matches_torch():
    for f in (lambda T: T.distributions.Normal(T.tensor(0.0), T.tensor(1.0)),
              lambda T: T.distributions.Normal(T.zeros(2, 3), T.ones(2, 3)),
              lambda T: T.distributions.Categorical(T.tensor([0.25, 0.75])),
              lambda T: T.distributions.Beta(T.ones(2), T.ones(2)),
              lambda T: T.distributions.HalfNormal(T.ones(2)),
              lambda T: T.distributions.Binomial(3, T.tensor([0.5, 0.25]))):
        assert repr(f(tp)) == repr(f(torch)).replace("torch.", "tensorplay.")


# ------------------------------------------------------------------ constraints
_CONSTRAINTS = [
    ("boolean", None), ("one_hot", None), ("nonnegative_integer", None),
    ("positive_integer", None), ("real", None), ("real_vector", None), ("positive", None),
    ("nonnegative", None), ("unit_interval", None), ("simplex", None),
    ("lower_triangular", None), ("lower_cholesky", None), ("corr_cholesky", None),
    ("square", None), ("symmetric", None), ("positive_semidefinite", None),
    ("positive_definite", None), ("integer_interval", (0, 2)), ("greater_than", (0.5,)),
    ("greater_than_eq", (0.5,)), ("less_than", (0.5,)), ("interval", (-0.5, 0.5)),
    ("half_open_interval", (-0.5, 0.5)), ("multinomial", (3,)),
]
_VALUES = [np.array([[1.0, 0.0], [0.5, 2.0]]), np.array([[1.0, 0.0], [0.0, 1.0]]),
           np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([[-0.5, 0.5], [0.3, 0.7]]),
           np.array([[1.0, 0.0], [0.6, 0.8]]), np.array([[3.0, 0.0], [1.0, 1.0]])]


@needs_torch
@pytest.mark.parametrize("name,args", _CONSTRAINTS)
def test_constraints_match_torch(name, args):
    ctp, ct = getattr(C, name), getattr(torch.distributions.constraints, name)
    if args is not None:
        ctp, ct = ctp(*args), ct(*args)
    assert repr(ctp) == repr(ct)
    assert ctp.is_discrete == ct.is_discrete
    assert ctp.event_dim == ct.event_dim
    for v in _VALUES:
        a, b = ctp.check(tp.tensor(v)), ct.check(torch.tensor(v))
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=f"{name} {v}")


@needs_torch
def test_composite_constraints_match_torch():
    v = np.array([[0.5, 2.0, -1.0], [1.0, 0.0, 3.0]])
    for f in (lambda K: K.independent(K.positive, 1), lambda K: K.independent(K.real, 2),
              lambda K: K.cat([K.positive, K.real, K.nonnegative], 1),
              lambda K: K.cat([K.positive, K.real], 1, [2, 1]),
              lambda K: K.stack([K.positive, K.real, K.nonnegative], 1),
              lambda K: K.stack([K.real, K.positive], 0)):
        ctp, ct = f(C), f(torch.distributions.constraints)
        assert repr(ctp).split(" object")[0].replace("tensorplay.distributions", "torch.distributions") \
            == repr(ct).split(" object")[0]
        assert ctp.event_dim == ct.event_dim and ctp.is_discrete == ct.is_discrete
        np.testing.assert_array_equal(ctp.check(tp.tensor(v)).numpy(),
                                      ct.check(torch.tensor(v)).numpy())
    with pytest.raises(ValueError, match="Expected value.dim\\(\\) >= 3 but got 2"):
        C.independent(C.real, 3).check(tp.tensor(v))


def test_dependent_constraints():
    assert C.is_dependent(C.dependent)
    assert not C.is_dependent(C.real)
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        C.dependent.check(tp.zeros(1))
    with pytest.raises(NotImplementedError, match=".is_discrete cannot be determined statically"):
        C.dependent.is_discrete
    with pytest.raises(NotImplementedError, match=".event_dim cannot be determined statically"):
        C.dependent.event_dim
    d = C.dependent(is_discrete=True, event_dim=1)
    assert d.is_discrete is True and d.event_dim == 1
    assert C.is_dependent(D.Uniform.support) and C.is_dependent(D.Categorical.support)
    assert D.Categorical.support.is_discrete is True
    assert repr(D.Uniform(0.0, 2.0).support) == "Interval(lower_bound=0.0, upper_bound=2.0)"
    assert repr(C.Constraint()) == "onstraint()"     # PyTorch's repr drops the first letter


# ------------------------------------------------------------------ utils
@needs_torch
def test_utils_match_torch():
    from torch.distributions import utils as TU
    from tensorplay.distributions import utils as U
    m = np.arange(16.0).reshape(4, 4)
    for diag in (-1, 0, 1):
        v = U.tril_matrix_to_vec(tp.tensor(m), diag)
        np.testing.assert_array_equal(v.numpy(), TU.tril_matrix_to_vec(torch.tensor(m), diag).numpy())
        np.testing.assert_array_equal(U.vec_to_tril_matrix(v, diag).numpy(),
                                      TU.vec_to_tril_matrix(torch.tensor(v.numpy()), diag).numpy())
    for f in (lambda u, T: u.tril_matrix_to_vec(T.zeros(3, 3), 3),
              lambda u, T: u.vec_to_tril_matrix(T.zeros(5)),
              lambda u, T: u.broadcast_all(T.zeros(2), "a")):
        with pytest.raises(ValueError) as e1:
            f(U, tp)
        with pytest.raises(ValueError) as e2:
            f(TU, torch)
        assert str(e1.value) == str(e2.value)
    p = _u((3, 4), 0.0, 1.0, 70)
    for binary in (True, False):
        assert_close(U.probs_to_logits(tp.tensor(p), binary).numpy(),
                     TU.probs_to_logits(torch.tensor(p), binary).numpy(), atol=1e-12, rtol=1e-10)
        assert_close(U.logits_to_probs(tp.tensor(p), binary).numpy(),
                     TU.logits_to_probs(torch.tensor(p), binary).numpy(), atol=1e-12, rtol=1e-10)
    a, b, _ = U.broadcast_all(1.0, tp.zeros(2, 1, dtype=tp.float64), tp.zeros(3))
    assert a.dtype == tp.float64 and tuple(a.shape) == tuple(b.shape) == (2, 3)
    assert U.clamp_probs(tp.tensor([0.0, 1.0])).numpy().tolist() == \
        TU.clamp_probs(torch.tensor([0.0, 1.0])).numpy().tolist()


def test_vec_to_tril_matrix_gradient():
    from tensorplay.distributions import utils as U
    v = tp.arange(6.0, dtype=tp.float64).requires_grad_()
    assert tp.autograd.gradcheck(lambda x: U.vec_to_tril_matrix(x) * 2, (v,))
    m = tp.arange(9.0, dtype=tp.float64).view(3, 3).requires_grad_()
    assert tp.autograd.gradcheck(lambda x: U.tril_matrix_to_vec(x, -1), (m,))


# ------------------------------------------------------------------ KL divergence
def _kl_dist(T, cls, seed, shape=(3,)):
    """A distribution of type ``cls`` and its parameter leaves."""
    r = _rng(seed)
    leaves = []

    def t(lo, hi):
        leaves.append(T.tensor(r.uniform(lo, hi, shape), dtype=T.float64, requires_grad=True))
        return leaves[-1]
    Dm = T.distributions
    return {
        "Normal": lambda: Dm.Normal(t(-1, 1), t(0.5, 2)),
        "Uniform": lambda: Dm.Uniform(t(0.1, 0.3), t(0.6, 0.9)),
        "Uniform_wide": lambda: Dm.Uniform(t(-3, -2), t(2, 3)),
        "Bernoulli": lambda: Dm.Bernoulli(t(0.1, 0.9)),
        "Categorical": lambda: Dm.Categorical(t(0.1, 1.0)),
        "OneHotCategorical": lambda: Dm.OneHotCategorical(t(0.1, 1.0)),
        "Exponential": lambda: Dm.Exponential(t(0.5, 2)),
        "Laplace": lambda: Dm.Laplace(t(-1, 1), t(0.5, 2)),
        "Cauchy": lambda: Dm.Cauchy(t(-1, 1), t(0.5, 2)),
        "HalfNormal": lambda: Dm.HalfNormal(t(0.5, 2)),
        "Gamma": lambda: Dm.Gamma(t(0.5, 3), t(0.5, 2)),
        "Chi2": lambda: Dm.Chi2(t(1, 4)),
        "Beta": lambda: Dm.Beta(t(0.5, 3), t(0.5, 3)),
        "Dirichlet": lambda: Dm.Dirichlet(t(0.5, 3)),
        "Poisson": lambda: Dm.Poisson(t(0.5, 3)),
        "Binomial": lambda: Dm.Binomial(5, t(0.1, 0.9)),
        "Geometric": lambda: Dm.Geometric(t(0.1, 0.9)),
    }[cls](), leaves


_KL_PAIRS = [
    ("Bernoulli", "Bernoulli"), ("Beta", "Beta"), ("Binomial", "Binomial"),
    ("Categorical", "Categorical"), ("Dirichlet", "Dirichlet"), ("Exponential", "Exponential"),
    ("Gamma", "Gamma"), ("Chi2", "Chi2"), ("Chi2", "Gamma"), ("Geometric", "Geometric"),
    ("HalfNormal", "HalfNormal"), ("Laplace", "Laplace"), ("Normal", "Normal"),
    ("OneHotCategorical", "OneHotCategorical"), ("Poisson", "Poisson"),
    ("Uniform", "Uniform_wide"), ("Uniform_wide", "Uniform"), ("Cauchy", "Cauchy"),
    ("Bernoulli", "Poisson"), ("Beta", "Exponential"), ("Beta", "Gamma"), ("Beta", "Normal"),
    ("Beta", "Uniform_wide"), ("Beta", "Uniform"), ("Exponential", "Uniform"), ("Exponential", "Beta"),
    ("Exponential", "Gamma"), ("Exponential", "Normal"), ("Gamma", "Uniform"), ("Gamma", "Beta"),
    ("Gamma", "Exponential"), ("Gamma", "Normal"), ("Laplace", "Uniform"), ("Laplace", "Gamma"),
    ("Laplace", "Exponential"), ("Laplace", "Beta"), ("Laplace", "Normal"),
    ("Normal", "Uniform"), ("Normal", "Gamma"), ("Normal", "Exponential"), ("Normal", "Beta"),
    ("Normal", "Laplace"), ("Poisson", "Binomial"), ("Poisson", "Bernoulli"),
    ("Uniform", "Beta"), ("Uniform_wide", "Beta"), ("Uniform", "Exponential"),
    ("Uniform_wide", "Exponential"), ("Uniform", "Gamma"), ("Uniform", "Normal"),
]


@needs_torch
@pytest.mark.parametrize("pq", _KL_PAIRS, ids=lambda pq: f"{pq[0]}-{pq[1]}")
def test_kl_matches_torch(pq):
    (p_tp, l1), (q_tp, l2) = _kl_dist(tp, pq[0], 1), _kl_dist(tp, pq[1], 2)
    (p_t, m1), (q_t, m2) = _kl_dist(torch, pq[0], 1), _kl_dist(torch, pq[1], 2)
    a, b = D.kl_divergence(p_tp, q_tp), torch.distributions.kl_divergence(p_t, q_t)
    assert tuple(a.shape) == tuple(b.shape)
    assert_close(a.detach().numpy(), b.detach().numpy(), atol=1e-8, rtol=1e-6, msg=str(pq))
    if not b.requires_grad:
        return
    leaves_tp, leaves_t = l1 + l2, m1 + m2
    w = _rng(5).standard_normal(tuple(b.shape))
    w[~np.isfinite(b.detach().numpy())] = 0.0
    g_tp = tp.autograd.grad(a, leaves_tp, tp.tensor(w), allow_unused=True, retain_graph=True)
    g_t = torch.autograd.grad(b, leaves_t, torch.tensor(w), allow_unused=True, retain_graph=True)
    for x, y in zip(g_tp, g_t):
        if y is None:
            assert x is None or not np.any(x.numpy()), pq
        else:
            assert_close(x.numpy(), y.numpy(), atol=1e-8, rtol=1e-6, msg=f"{pq} grad")


def test_kl_dispatch():
    class MyNormal(D.Normal):
        pass

    class A(D.Distribution):
        pass

    class B(A):
        pass

    @D.register_kl(A, A)
    def _kl_a_a(p, q):
        return tp.tensor(1.0)

    @D.register_kl(B, A)
    def _kl_b_a(p, q):
        return tp.tensor(2.0)

    a = A(validate_args=False)
    b = B(validate_args=False)
    assert float(D.kl_divergence(a, b)) == 1.0
    assert float(D.kl_divergence(b, b)) == 2.0        # most specific match
    # a subclass uses its base's formula
    p, q = MyNormal(0.0, 1.0), D.Normal(1.0, 2.0)
    assert_close(D.kl_divergence(p, q).numpy(), D.kl_divergence(D.Normal(0.0, 1.0), q).numpy())

    @D.register_kl(A, B)
    def _kl_a_b(p, q):
        return tp.tensor(3.0)
    with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(B, B\). "
                                            r"Please register_kl\(B, B\)"):
        D.kl_divergence(b, b)
    with pytest.raises(NotImplementedError,
                       match="No KL\\(p \\|\\| q\\) is implemented for p type Normal and q type A"):
        D.kl_divergence(D.Normal(0.0, 1.0), a)
    with pytest.raises(NotImplementedError, match="cross KL-divergence between different "
                                                  "exponential families"):
        D.kl_divergence(D.Gamma(tp.tensor(1.0), tp.tensor(1.0)), D.Poisson(tp.tensor(1.0)))


def test_expfamily_bregman_entropy_and_kl_match_closed_forms():
    """ExponentialFamily's autograd-based entropy and KL against the closed forms."""
    loc = tp.tensor([0.3, -1.0], dtype=tp.float64)
    scale = tp.tensor([0.7, 2.0], dtype=tp.float64)
    p, q = D.Normal(loc, scale), D.Normal(scale, loc.abs() + 0.5)
    assert_close(D.ExponentialFamily.entropy(p).detach().numpy(), p.entropy().numpy(),
                 rtol=1e-12, atol=1e-12)
    assert_close(D.kl._kl_expfamily_expfamily(p, q).detach().numpy(),
                 D.kl_divergence(p, q).numpy(), rtol=1e-10, atol=1e-12)
    g = D.Gamma(tp.tensor([0.5, 3.0], dtype=tp.float64), tp.tensor([2.0, 0.5], dtype=tp.float64))
    assert_close(D.ExponentialFamily.entropy(g).detach().numpy(), g.entropy().numpy(),
                 rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ reparameterized samples
def _fd_rsample(make, params, seed, eps=1e-6):
    """d(sum of rsample)/d(param) by central differences with the same draws."""
    out = []
    for i, p in enumerate(params):
        g = np.zeros(p.shape)
        for j in np.ndindex(p.shape):
            vals = []
            for s in (eps, -eps):
                q = [x.copy() for x in params]
                q[i][j] += s
                tp.manual_seed(seed)
                vals.append(float(make(*[tp.tensor(x) for x in q]).rsample((5,)).sum()))
            g[j] = (vals[0] - vals[1]) / (2 * eps)
        out.append(g)
    return out


@pytest.mark.parametrize("name,make,params", [
    ("Normal", lambda a, b: D.Normal(a, b), [_u(3, -1, 1, 1), _u(3, 0.5, 2, 2)]),
    ("Uniform", lambda a, b: D.Uniform(a, b), [_u(3, -1, 0, 3), _u(3, 1, 2, 4)]),
    ("Exponential", lambda a: D.Exponential(a), [_u(3, 0.5, 2, 5)]),
    ("Laplace", lambda a, b: D.Laplace(a, b), [_u(3, -1, 1, 6), _u(3, 0.5, 2, 7)]),
    ("Cauchy", lambda a, b: D.Cauchy(a, b), [_u(3, -1, 1, 8), _u(3, 0.5, 2, 9)]),
    ("HalfNormal", lambda a: D.HalfNormal(a), [_u(3, 0.5, 2, 10)]),
    ("HalfCauchy", lambda a: D.HalfCauchy(a), [_u(3, 0.5, 2, 11)]),
    ("Gamma_rate", lambda b: D.Gamma(tp.tensor([0.7, 2.0, 5.0], dtype=tp.float64), b),
     [_u(3, 0.5, 2, 12)]),
])
def test_rsample_gradient_by_finite_differences(name, make, params):
    leaves = [tp.tensor(p, requires_grad=True) for p in params]
    tp.manual_seed(3)
    s = make(*leaves).rsample((5,))
    grads = tp.autograd.grad(s.sum(), leaves)
    for g, fd in zip(grads, _fd_rsample(make, params, 3)):
        assert_close(g.numpy(), fd, atol=1e-6, rtol=1e-5, msg=name)
    tp.manual_seed(3)
    s2 = make(*[tp.tensor(p) for p in params]).rsample((5,))
    np.testing.assert_array_equal(s.detach().numpy(), s2.numpy())     # seeded: repeats


def test_standard_gamma_grad_is_the_implicit_derivative():
    """dx/dalpha = -(dP/dalpha) / (dP/dx), P the regularized incomplete gamma: against
    central differences of igamma."""
    r = _rng(7)
    a = np.exp(r.uniform(np.log(0.05), np.log(300.0), 200))
    x = r.gamma(a)
    got = _standard_gamma_grad(tp.tensor(a), tp.tensor(x)).numpy()
    h = 1e-6 * np.maximum(a, 1.0)
    ta, tx = tp.tensor(a), tp.tensor(x)
    dp = (tp.igamma(ta + tp.tensor(h), tx) - tp.igamma(ta - tp.tensor(h), tx)).numpy() / (2 * h)
    pdf = np.exp((a - 1) * np.log(x) - x - tp.lgamma(ta).numpy())
    assert_close(got, -dp / pdf, rtol=1e-5, atol=1e-9)
    # float32 in, float32 out; a draw of 0 has gradient 0
    assert _standard_gamma_grad(tp.tensor([2.0]), tp.tensor([0.0])).numpy().tolist() == [0.0]
    assert _standard_gamma_grad(tp.tensor([2.0]), tp.tensor([1.0])).dtype == tp.float32


@needs_torch
def test_standard_gamma_grad_close_to_torch():
    r = _rng(8)
    a = np.exp(r.uniform(np.log(0.05), np.log(1000.0), 300))
    x = r.gamma(a)
    assert_close(_standard_gamma_grad(tp.tensor(a), tp.tensor(x)).numpy(),
                 torch._standard_gamma_grad(torch.tensor(a), torch.tensor(x)).numpy(),
                 rtol=1e-3, atol=1e-8)


def test_gamma_rsample_gradient():
    """Per draw: the rsample gradient is _standard_gamma_grad at the draw, over the
    rate; on average it is d E[x] / d alpha = 1 / rate (and -alpha / rate^2 in the rate)."""
    alpha = tp.tensor([0.3, 1.0, 4.0], dtype=tp.float64, requires_grad=True)
    rate = tp.tensor([2.0, 0.5, 1.5], dtype=tp.float64, requires_grad=True)
    tp.manual_seed(11)
    n = 20000
    x = D.Gamma(alpha, rate).rsample((n,))
    ga, gr = tp.autograd.grad(x.sum(), [alpha, rate], retain_graph=True)
    xd = x.detach()
    per = _standard_gamma_grad(alpha.detach().expand(n, 3), xd * rate.detach()) / rate.detach()
    assert_close(ga.numpy(), per.sum(0).numpy(), rtol=1e-10, atol=1e-10)
    assert_close(ga.numpy() / n, 1 / rate.detach().numpy(), rtol=0.05, atol=0)
    assert_close(gr.numpy() / n, -(alpha / rate ** 2).detach().numpy(), rtol=0.05, atol=0)
    # the derivative of the gradient is PyTorch's NotImplementedError
    g, = tp.autograd.grad(x.sum(), alpha, create_graph=True)
    with pytest.raises(NotImplementedError,
                       match="the derivative for '_standard_gamma_grad' is not implemented."):
        g.sum().backward()


@pytest.mark.parametrize("name", ["Beta", "Dirichlet", "Chi2", "StudentT"])
def test_rsample_gradient_is_unbiased(name):
    """The average rsample gradient of a smooth function is the derivative of its
    expectation (closed forms), within a few standard errors."""
    tp.manual_seed(12)
    n = 20000
    if name == "Beta":
        a = tp.tensor([0.7, 3.0], dtype=tp.float64, requires_grad=True)
        b = tp.tensor([2.0, 1.5], dtype=tp.float64, requires_grad=True)
        x = D.Beta(a, b).rsample((n,))
        ga, gb = tp.autograd.grad(x.sum(0).sum(), [a, b])
        a_, b_ = a.detach().numpy(), b.detach().numpy()
        want = [b_ / (a_ + b_) ** 2, -a_ / (a_ + b_) ** 2]     # d mean
        got = [ga.numpy() / n, gb.numpy() / n]
    elif name == "Dirichlet":
        c = tp.tensor([0.5, 1.0, 3.0], dtype=tp.float64, requires_grad=True)
        x = D.Dirichlet(c).rsample((n,))
        g, = tp.autograd.grad(x[:, 0].sum(), [c])
        c_ = c.detach().numpy()
        s = c_.sum()
        want = [np.array([1 / s - c_[0] / s ** 2, -c_[0] / s ** 2, -c_[0] / s ** 2])]
        got = [g.numpy() / n]
        assert_close(x.sum(-1).detach().numpy(), np.ones(n), rtol=1e-12, atol=1e-12)
    elif name == "Chi2":
        df = tp.tensor([1.0, 4.0], dtype=tp.float64, requires_grad=True)
        x = D.Chi2(df).rsample((n,))
        g, = tp.autograd.grad(x.sum(), [df])
        want, got = [np.ones(2)], [g.numpy() / n]
    else:
        df = tp.tensor([5.0, 9.0], dtype=tp.float64)
        scale = tp.tensor([0.5, 2.0], dtype=tp.float64, requires_grad=True)
        x = D.StudentT(df, 0.0, scale).rsample((n,))
        g, = tp.autograd.grad((x ** 2).sum(), [scale])          # E x^2 = scale^2 df / (df - 2)
        d_ = df.numpy()
        want = [2 * scale.detach().numpy() * d_ / (d_ - 2)]
        got = [g.numpy() / n]
    for w, gt in zip(want, got):
        assert_close(gt, w, rtol=0.08, atol=0.01, msg=name)


# ------------------------------------------------------------------ sample statistics
_STATS = [
    ("Normal", lambda: D.Normal(tp.tensor([0.0, 2.0]), tp.tensor([1.0, 0.5]))),
    ("Uniform", lambda: D.Uniform(tp.tensor([0.0, -2.0]), tp.tensor([1.0, 3.0]))),
    ("Bernoulli", lambda: D.Bernoulli(tp.tensor([0.2, 0.7]))),
    ("Categorical", lambda: D.Categorical(tp.tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]))),
    ("OneHotCategorical", lambda: D.OneHotCategorical(tp.tensor([0.2, 0.3, 0.5]))),
    ("Exponential", lambda: D.Exponential(tp.tensor([0.5, 3.0]))),
    ("Laplace", lambda: D.Laplace(tp.tensor([0.0, 1.0]), tp.tensor([1.0, 0.3]))),
    ("HalfNormal", lambda: D.HalfNormal(tp.tensor([1.0, 0.3]))),
    ("Gamma", lambda: D.Gamma(tp.tensor([0.3, 5.0]), tp.tensor([1.0, 2.0]))),
    ("Chi2", lambda: D.Chi2(tp.tensor([1.0, 6.0]))),
    ("Beta", lambda: D.Beta(tp.tensor([0.5, 3.0]), tp.tensor([2.0, 1.0]))),
    ("Dirichlet", lambda: D.Dirichlet(tp.tensor([0.5, 1.0, 3.0]))),
    ("Poisson", lambda: D.Poisson(tp.tensor([0.5, 7.0]))),
    ("Binomial", lambda: D.Binomial(10, tp.tensor([0.2, 0.9]))),
    ("Geometric", lambda: D.Geometric(tp.tensor([0.2, 0.9]))),
    ("NegativeBinomial", lambda: D.NegativeBinomial(tp.tensor([2.0, 5.5]), tp.tensor([0.3, 0.6]))),
    ("Multinomial", lambda: D.Multinomial(6, tp.tensor([0.2, 0.3, 0.5]))),
    ("StudentT", lambda: D.StudentT(tp.tensor([5.0, 10.0]), tp.tensor([0.0, 1.0]),
                                    tp.tensor([1.0, 2.0]))),
]


@pytest.mark.parametrize("name,make", _STATS, ids=[s[0] for s in _STATS])
def test_sample_statistics(name, make):
    d = make()
    tp.manual_seed(21)
    n = 20000
    s = d.sample((n,))
    assert tuple(s.shape) == (n,) + tuple(d.batch_shape) + tuple(d.event_shape)
    assert not s.requires_grad
    sd = s.numpy().astype(np.float64)
    if name == "Categorical":
        p = d.probs.numpy()
        sd = (sd[..., None] == np.arange(3)).astype(float)
        mean, var = p, p * (1 - p)
    else:
        mean, var = d.mean.numpy(), d.variance.numpy()
    se = np.sqrt(var / n)
    assert np.all(np.abs(sd.mean(0) - mean) < 5 * se + 1e-12), (name, sd.mean(0), mean)
    assert bool(d.support.check(s).all())
    tp.manual_seed(21)
    np.testing.assert_array_equal(d.sample((n,)).numpy(), s.numpy())


def test_von_mises_samples():
    loc, k = tp.tensor([0.5, -2.0, 3.0]), tp.tensor([0.5, 8.0, 1e-6])
    d = D.VonMises(loc, k)
    tp.manual_seed(4)
    s = d.sample((20000,))
    assert s.dtype == tp.float32 and bool((s >= -math.pi).all()) and bool((s < math.pi).all())
    # E cos(x - loc) = I1(k) / I0(k) = 1 - variance (circular), with standard error <= 1/sqrt(n)
    c = np.cos(s.numpy() - loc.numpy()).mean(0)
    assert np.all(np.abs(c - (1 - d.variance.detach().numpy())) < 5 / math.sqrt(20000))
    assert abs(np.sin(s.numpy()[:, 1] - loc.numpy()[1]).mean()) < 0.01


def _params_of(name):
    cls, params, value, _ = SPECS[name]
    arrays = {k: v for k, v in params.items() if isinstance(v, np.ndarray)}
    return cls, params, value, arrays


@pytest.mark.parametrize("name", sorted(n for n in SPECS if n not in ("Beta_num",)))
def test_log_prob_and_entropy_second_derivatives(name):
    """gradcheck and gradgradcheck of log_prob (+ entropy where defined) in the parameters."""
    cls, params, value, arrays = _params_of(name)
    if not arrays:
        pytest.skip("no tensor parameters")
    names = sorted(arrays)
    v = tp.tensor(value)

    def f(*xs):
        kw = dict(params)
        kw.update(zip(names, xs))
        d = getattr(D, cls)(**kw, validate_args=False)
        out = d.log_prob(v).sum()
        try:
            out = out + d.entropy().sum()
        except NotImplementedError:
            pass
        return out
    xs = [tp.tensor(arrays[k], requires_grad=True) for k in names]
    assert tp.autograd.gradcheck(f, xs)
    assert tp.autograd.gradgradcheck(f, xs)


def test_cauchy_sample_quartiles():
    d = D.HalfCauchy(tp.tensor(2.0))
    tp.manual_seed(5)
    s = np.sort(d.sample((20000,)).numpy())
    assert abs(np.median(s) - 2.0) < 0.1          # the median of |Cauchy(0, 2)| is 2
    c = D.Cauchy(tp.tensor(1.0), tp.tensor(0.5)).sample((20000,)).numpy()
    assert abs(np.median(c) - 1.0) < 0.03
    assert abs(np.quantile(c, 0.75) - 1.5) < 0.05


def test_straight_through():
    p = tp.tensor([0.2, 0.3, 0.5], requires_grad=True)
    d = D.OneHotCategoricalStraightThrough(p)
    tp.manual_seed(0)
    s = d.rsample((4,))
    assert set(s.detach().numpy().sum(-1).tolist()) == {1.0}
    w = tp.tensor([1.0, 2.0, 3.0])
    g, = tp.autograd.grad((s * w).sum(), p)
    # d probs / d p of the normalized probs, times 4 draws' weights
    q = p.detach().numpy()
    jac = (np.eye(3) - q[None, :]) / q.sum()
    assert_close(g.numpy(), 4 * jac @ w.numpy(), rtol=1e-5, atol=1e-6)


def test_logits_and_probs_are_lazy_and_differentiable():
    logits = tp.tensor([0.3, -1.2], dtype=tp.float64, requires_grad=True)
    d = D.Bernoulli(logits=logits)
    assert "probs" not in d.__dict__
    p = d.probs
    assert "probs" in d.__dict__ and d.probs is p
    g, = tp.autograd.grad(p.sum(), logits)
    s = 1 / (1 + np.exp(-logits.detach().numpy()))
    assert_close(g.numpy(), s * (1 - s), rtol=1e-12, atol=1e-12)
    d2 = D.Categorical(logits=logits.view(1, 2))
    with tp.no_grad():                     # computed with grad enabled, as PyTorch's
        assert d2.probs.requires_grad


def test_layers_import():
    assert tp.distributions is D
    assert set(D.__all__) <= set(dir(D))


def test_half_distributions_are_transformed_distributions():
    for d in (D.HalfNormal(tp.tensor([1.0, 2.0])), D.HalfCauchy(tp.tensor([1.0, 2.0]))):
        assert isinstance(d, D.TransformedDistribution)
        e = d.expand((3, 2))
        assert type(e) is type(d) and tuple(e.batch_shape) == (3, 2)
        assert tuple(e.base_dist.batch_shape) == (3, 2)
        tp.manual_seed(1)
        assert bool((e.rsample((4,)) >= 0).all())


def test_transforms_of_functions_see_through_distributions():
    x = tp.tensor([0.3, 1.0])

    def f(loc):
        return D.Normal(loc, 2.0, validate_args=False).log_prob(x).sum()
    locs = tp.tensor([[0.0, 1.0], [2.0, 3.0]])
    assert_close(tp.vmap(f)(locs).numpy(), np.array([f(locs[0]).item(), f(locs[1]).item()]),
                 rtol=1e-6, atol=1e-6)
    assert_close(tp.func.grad(f)(locs[0]).numpy(), (x - locs[0]).numpy() / 4, rtol=1e-6,
                 atol=1e-7)
    a = tp.tensor([1.0, 2.0], dtype=tp.float64)
    tp.manual_seed(2)
    g1 = tp.func.grad(lambda c: D.Gamma(c, 1.0).rsample().sum())(a)
    tp.manual_seed(2)
    c = a.clone().requires_grad_()
    s = D.Gamma(c, 1.0).rsample()
    g2, = tp.autograd.grad(s.sum(), c)
    assert_close(g1.numpy(), g2.numpy(), rtol=1e-12, atol=1e-12)


@needs_torch
def test_missing_constraints_warn_as_torch():
    def run(T):
        class NoArgs(T.distributions.Distribution):
            pass

        class NoSupport(T.distributions.Distribution):
            arg_constraints = {}
        out = []
        for f in (lambda: NoArgs(), lambda: NoSupport()._validate_sample(T.zeros(()))):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                f()
            out.append([str(x.message).replace("torch.", "tensorplay.").split("'")[-1]
                        for x in w])
        return out
    assert run(tp) == run(torch)


def test_float32_beta_of_small_concentrations_is_symmetric():
    """Float32 draws of Gamma(0.01) underflow; the Dirichlet/Beta draws are made in
    float64 (both underflowing gave exactly 0.5 for 18% of Beta(0.01, 0.01))."""
    tp.manual_seed(11)
    s = tp.distributions.Beta(tp.tensor([0.01]), tp.tensor([0.01])).sample((20000,)).numpy()
    assert s.dtype == np.float32
    assert (s == 0.5).mean() < 0.01 and abs((s < 0.5).mean() - 0.5) < 0.03


def test_made_under_vmap_jacfwd_and_hessian_with_validation():
    """Validation checks every sample at once under vmap (PyTorch's _is_all_true
    batches), and log_probs with a special case use where, not a masked
    assignment: vmap, jacfwd and hessian of them work."""
    x = tp.tensor([0.3, 1.2], dtype=tp.float64)
    f = lambda s: tp.distributions.Normal(0.0, s).log_prob(x).sum()      # noqa: E731
    got = tp.func.vmap(f)(tp.tensor([[1.5, 2.5], [0.5, 1.0]], dtype=tp.float64))
    want = tp.stack([f(tp.tensor([1.5, 2.5], dtype=tp.float64)), f(tp.tensor([0.5, 1.0], dtype=tp.float64))])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-14)
    with pytest.raises(ValueError, match="Expected parameter scale"):
        tp.func.vmap(f)(tp.tensor([[1.5, -2.5]], dtype=tp.float64))
    g = lambda p: tp.distributions.Geometric(probs=p).log_prob(tp.tensor([0.0, 2.0], dtype=tp.float64)).sum()  # noqa
    np.testing.assert_allclose(tp.func.hessian(g)(tp.tensor([0.2, 0.4], dtype=tp.float64)).numpy(),
                               [[-25.0, 0.0], [0.0, -11.805555555555557]], rtol=1e-12, atol=1e-12)
    m = lambda p: tp.distributions.Multinomial(3, probs=p).log_prob(tp.tensor([1.0, 2.0], dtype=tp.float64))  # noqa
    h = tp.func.hessian(m)(tp.tensor([0.2, 0.4], dtype=tp.float64))
    np.testing.assert_allclose(h.numpy(), [[-50 / 3, 25 / 3], [25 / 3, -25 / 6]], rtol=1e-12)


def test_poisson_and_binomial_draws_record_pytorchs_nodes():
    # a draw is a function of its parameters whose gradient PyTorch defines as zero
    # (poisson) or leaves unimplemented (binomial): the nodes exist either way, so
    # a graph through a draw is not cut off
    tp.manual_seed(0)
    rate = tp.tensor([1.0, 2.5], requires_grad=True)
    p = tp.poisson(rate)
    assert p.requires_grad and p.grad_fn.name() == "PoissonBackward0"
    (g,) = tp.autograd.grad((p * rate).sum(), rate)
    np.testing.assert_array_equal(g.numpy(), p.detach().numpy())     # the product's term only
    count = tp.tensor([5.0, 6.0], requires_grad=True)
    prob = tp.tensor([0.3, 0.5], requires_grad=True)
    b = tp.binomial(count, prob)
    assert b.grad_fn.name() == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::binomial is not implemented"):
        tp.autograd.grad(b.sum(), prob)
    # the draws themselves are unchanged by the node: same generator state, same values
    tp.manual_seed(0)
    np.testing.assert_array_equal(tp.poisson(rate.detach()).numpy(), p.detach().numpy())
    assert tp.binomial(count.detach(), prob.detach()).grad_fn is None
