"""``nn.init`` (the distributions, the gains, the fans) and ``nn.utils``
(gradient clipping, parameters <-> vector, pad_sequence) against PyTorch."""
import math

import numpy as np
import pytest

import tensorplay as tp
import tensorplay.nn as nn

from conftest import assert_close, torch
from test_nn_layers import randn

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


# ----------------------------------------------------------------- init
@pytest.mark.parametrize("nl,param", [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None),
                                      ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2),
                                      ("selu", None)])
def test_calculate_gain(T, nl, param):
    want = {"linear": 1, "conv2d": 1, "sigmoid": 1, "tanh": 5 / 3, "relu": math.sqrt(2), "selu": 0.75,
            "leaky_relu": math.sqrt(2 / (1 + (0.01 if param is None else param) ** 2))}[nl]
    assert T.nn.init.calculate_gain(nl, param) == pytest.approx(want)


def test_calculate_gain_errors(T):
    with pytest.raises(ValueError, match="^Unsupported nonlinearity foo$"):
        T.nn.init.calculate_gain("foo")
    with pytest.raises(ValueError, match="^negative_slope True not a valid number$"):
        T.nn.init.calculate_gain("leaky_relu", True)


def _sample(f, shape=(200, 300), **kw):
    tp.manual_seed(0)
    t = tp.empty(*shape)
    assert f(t, **kw) is t
    return t.numpy().astype(np.float64)


@pytest.mark.parametrize("f,kw,mean,std,lo,hi", [
    (nn.init.uniform_, {"a": -2.0, "b": 3.0}, 0.5, 5 / math.sqrt(12), -2, 3),
    (nn.init.normal_, {"mean": 1.0, "std": 0.5}, 1.0, 0.5, None, None),
    (nn.init.xavier_uniform_, {"gain": 2.0}, 0.0, 2 * math.sqrt(2 / 500), -2 * math.sqrt(6 / 500),
     2 * math.sqrt(6 / 500)),
    (nn.init.xavier_normal_, {}, 0.0, math.sqrt(2 / 500), None, None),
    (nn.init.kaiming_uniform_, {"a": math.sqrt(5)}, 0.0, 1 / math.sqrt(3 * 300), -1 / math.sqrt(300),
     1 / math.sqrt(300)),
    (nn.init.kaiming_normal_, {"mode": "fan_out", "nonlinearity": "relu"}, 0.0, math.sqrt(2 / 200), None, None),
])
def test_random_initialisers_have_their_distribution(f, kw, mean, std, lo, hi):
    a = _sample(f, **kw)
    assert abs(a.mean() - mean) < 0.02 * max(std, 1) + 3 * std / math.sqrt(a.size)
    assert abs(a.std() - std) < 0.02 * std
    if lo is not None:
        assert a.min() >= lo and a.max() < hi and a.min() < lo + 0.01 * (hi - lo)


def test_trunc_normal_orthogonal_and_constants():
    a = _sample(nn.init.trunc_normal_, mean=0.5, std=1.0, a=-1.0, b=1.5)
    assert a.min() >= -1.0 and a.max() <= 1.5 and a.min() < -0.99 and a.max() > 1.49
    # the mean of N(0.5, 1) truncated to [-1, 1.5]
    phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)       # noqa: E731
    cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))              # noqa: E731
    want = 0.5 + (phi(-1.5) - phi(1.0)) / (cdf(1.0) - cdf(-1.5))
    assert abs(a.mean() - want) < 0.01
    for shape in ((6, 4), (4, 6), (3, 2, 2)):
        q = _sample(nn.init.orthogonal_, shape, gain=2.0).reshape(shape[0], -1)
        small = min(q.shape)
        gram = q @ q.T if q.shape[0] == small else q.T @ q
        assert_close(gram, 4 * np.eye(small), atol=1e-5)
    assert not _sample(nn.init.zeros_, (2, 3)).any()
    assert (_sample(nn.init.ones_, (2, 3)) == 1).all()
    assert (_sample(nn.init.constant_, (2, 3), val=0.25) == 0.25).all()
    assert_close(_sample(nn.init.eye_, (2, 3)), np.eye(2, 3))
    d = _sample(nn.init.dirac_, (2, 2, 3))
    assert d[0, 0, 1] == 1 and d[1, 1, 1] == 1 and d.sum() == 2


def test_init_runs_unrecorded_on_parameters():
    lin = nn.Linear(3, 2)
    nn.init.normal_(lin.weight)
    assert lin.weight.grad_fn is None and lin.weight.requires_grad
    with pytest.raises(ValueError, match="^Fan in and fan out can not be computed for tensor with fewer "
                                         "than 2 dimensions$"):
        nn.init.xavier_uniform_(tp.empty(3))
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        nn.init.kaiming_uniform_(tp.empty(0, 3))


def test_init_generator_argument_reproduces():
    g1, g2 = tp.Generator().manual_seed(3), tp.Generator().manual_seed(3)
    a = nn.init.uniform_(tp.empty(5), generator=g1).tolist()
    assert a == nn.init.uniform_(tp.empty(5), generator=g2).tolist()


# ----------------------------------------------------------------- gradient clipping
def _params(T, grads):
    ps = []
    for g in grads:
        p = T.nn.Parameter(T.zeros(*g.shape, dtype=T.float64))
        p.grad = T.tensor(g)
        ps.append(p)
    return ps


GRADS = [randn(0, 3, 4) * 3, randn(1, 5), randn(2, 2, 2, 2)]


@needs_torch
@pytest.mark.parametrize("max_norm,norm_type", [(1.0, 2.0), (100.0, 2.0), (0.5, 1.0), (0.3, math.inf),
                                                (2.0, 3.0)])
def test_clip_grad_norm_matches_torch(max_norm, norm_type):
    ps, tps = _params(tp, GRADS), _params(torch, GRADS)
    total = nn.utils.clip_grad_norm_(ps, max_norm, norm_type)
    ttotal = torch.nn.utils.clip_grad_norm_(tps, max_norm, norm_type)
    assert_close(total.numpy(), ttotal.numpy(), 1e-12, 1e-10)
    for p, q in zip(ps, tps):
        assert_close(p.grad.numpy(), q.grad.numpy(), 1e-12, 1e-10)


@needs_torch
def test_clip_grad_value_and_vector_conversions_match_torch():
    ps, tps = _params(tp, GRADS), _params(torch, GRADS)
    nn.utils.clip_grad_value_(ps, 0.7)
    torch.nn.utils.clip_grad_value_(tps, 0.7)
    for p, q in zip(ps, tps):
        assert_close(p.grad.numpy(), q.grad.numpy(), 0, 0)
    for p, g in zip(ps, GRADS):
        with tp.no_grad():
            p.copy_(tp.tensor(g))
    vec = nn.utils.parameters_to_vector(ps)
    want = torch.nn.utils.parameters_to_vector([torch.tensor(g) for g in GRADS])
    assert_close(vec.detach().numpy(), want.numpy(), 0, 0)
    nn.utils.vector_to_parameters(vec.detach() * 2, ps)
    assert_close(ps[1].detach().numpy(), 2 * GRADS[1], 0, 0)


def test_clip_grad_norm_edge_cases(T):
    assert T.nn.utils.clip_grad_norm_([], 1.0).item() == 0.0
    p = T.nn.Parameter(T.ones(2))
    p.grad = T.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="^The total norm of order 2.0 for gradients from `parameters` is "
                                           "non-finite, so it cannot be clipped."):
        T.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    with pytest.raises(TypeError, match="^expected torch.Tensor, but got: list$"):
        T.nn.utils.vector_to_parameters([1.0], [p])


def test_parameters_to_vector_is_differentiable():
    ps = [tp.tensor(randn(i, 3), requires_grad=True) for i in range(2)]
    (nn.utils.parameters_to_vector(ps) ** 2).sum().backward()
    assert_close(ps[1].grad.numpy(), 2 * randn(1, 3))


# ----------------------------------------------------------------- pad_sequence
@needs_torch
@pytest.mark.parametrize("batch_first,side", [(False, "right"), (True, "right"), (True, "left")])
def test_pad_sequence_matches_torch(batch_first, side):
    seqs = [randn(i, n, 2) for i, n in enumerate((3, 1, 4))]
    xs = [tp.tensor(s, requires_grad=True) for s in seqs]
    out = nn.utils.rnn.pad_sequence(xs, batch_first=batch_first, padding_value=-1.0, padding_side=side)
    want = torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first=batch_first,
                                           padding_value=-1.0, padding_side=side)
    assert_close(out.detach().numpy(), want.numpy(), 0, 0)
    out.sum().backward()
    assert all((x.grad.numpy() == 1).all() for x in xs)
    back = nn.utils.rnn.unpad_sequence(out, tp.tensor([3, 1, 4]), batch_first=batch_first) \
        if side == "right" else None
    if back is not None:
        assert [tuple(b.shape) for b in back] == [(3, 2), (1, 2), (4, 2)]


# ---------------------------------------------------------------- init draws are the tensor's own
def test_init_of_complex_tensors_draws_both_parts():
    # (the imaginary part was left at 0: a complex Linear's weights were all x+0j)
    tp.manual_seed(0)
    w = tp.zeros(60000, dtype=tp.complex64)
    tp.nn.init.normal_(w)
    assert 0.68 < float(w.real.std()) < 0.73 and 0.68 < float(w.imag.std()) < 0.73
    tp.nn.init.uniform_(w, -1, 1)
    assert float(w.imag.abs().max()) > 0.9 and float(w.imag.abs().max()) <= 1
    lin = tp.nn.Linear(8, 8, dtype=tp.complex64)
    assert float(lin.weight.imag.abs().max()) > 0


def test_uniform_init_never_reaches_the_upper_bound():
    # (a double draw rounded to half or bfloat16 reached b: 34 of 100000 halves were 1.0)
    tp.manual_seed(0)
    for dtype in (tp.float16, tp.bfloat16):
        t = tp.empty(100000, dtype=dtype)
        tp.nn.init.uniform_(t, 0, 1)
        assert int((t == 1).sum()) == 0 and float(t.min()) >= 0
    t = tp.empty(100000)
    tp.nn.init.uniform_(t, 1e6, 1e6 + 1)
    assert int((t == 1e6 + 1).sum()) == 0


@pytest.mark.parametrize("f", ["uniform_", "normal_", "xavier_uniform_", "kaiming_normal_", "trunc_normal_",
                               "orthogonal_", "sparse_"])
def test_random_init_refuses_integer_tensors(f):
    args = (0.5,) if f == "sparse_" else ()
    for dtype in (tp.int64, tp.bool):
        with pytest.raises(NotImplementedError, match="not implemented for"):
            getattr(tp.nn.init, f)(tp.zeros(4, 3, dtype=dtype), *args)


def test_init_argument_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match=r"uniform_ expects to return a \[from, to\) range"):
        tp.nn.init.uniform_(tp.zeros(3), 1, 0)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
        tp.nn.init.normal_(tp.zeros(3), 0, -1)


def test_complex_draws_shift_both_parts():
    # PyTorch draws a complex tensor's real view: uniform_(a, b) puts each part in
    # [a, b) and normal_(mean, std) gives each part mean ``mean`` and std std/sqrt(2)
    # (the imaginary part was [0, b - a) and had mean 0)
    tp.manual_seed(0)
    w = tp.zeros(100000, dtype=tp.complex128)
    w.uniform_(2, 3)
    for part in (w.real, w.imag):
        assert 2 <= float(part.min()) and float(part.max()) < 3
    w.normal_(1, 2)
    for part in (w.real, w.imag):
        assert abs(float(part.mean()) - 1) < 0.03 and abs(float(part.std()) - 2 ** 0.5) < 0.03
    z = tp.normal(1.0, 2.0, (100000,), dtype=tp.complex128)
    assert abs(float(z.imag.mean()) - 1) < 0.03
    z = tp.normal(tp.full((100000,), 1 + 0j, dtype=tp.complex128), 2.0)     # (a complex mean: added)
    assert abs(float(z.imag.mean())) < 0.03
