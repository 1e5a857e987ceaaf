"""nn.utils.parametrize / parametrizations and the hook-based weight_norm and
spectral_norm, against PyTorch where it is installed (same initial weights,
same power-iteration vectors), and by gradcheck."""
import copy
import pickle
import re
import warnings

import numpy as np
import pytest

import tensorplay as tp
from tensorplay import nn
from tensorplay.autograd import gradcheck, gradgradcheck
from tensorplay.nn.utils import parametrizations as PS
from tensorplay.nn.utils import parametrize as P


def A(t):
    return t.detach().numpy()


def _copy_params(pm, tm):
    """Give the tensorplay module ``pm`` the parameters of the torch module ``tm``."""
    tparams = dict(tm.named_parameters())
    with tp.no_grad():
        for name, p in pm.named_parameters():
            p.copy_(tp.tensor(tparams[name].detach().numpy()))


def _pair(torch, cls, *args):
    tm = getattr(torch.nn, cls)(*args, dtype=torch.float64)
    pm = getattr(nn, cls)(*args, dtype=tp.float64)
    _copy_params(pm, tm)
    return tm, pm


def _run_both(tm, pm, x, steps=1, lr=0.1):
    """A few SGD steps on both; the outputs and the parameters' gradients match."""
    import torch
    ot = torch.optim.SGD(tm.parameters(), lr=lr)
    op = tp.optim.SGD(pm.parameters(), lr=lr)
    for _ in range(steps):
        ot.zero_grad()
        op.zero_grad()
        yt, yp = tm(torch.tensor(x)), pm(tp.tensor(x))
        np.testing.assert_allclose(A(yp), A(yt), rtol=1e-10, atol=1e-10)
        yt.pow(2).sum().backward()
        yp.pow(2).sum().backward()
        tnames = dict(tm.named_parameters())
        names = [n for n, _ in pm.named_parameters()]
        assert names == list(tnames)
        for n, p in pm.named_parameters():
            np.testing.assert_allclose(A(p.grad), A(tnames[n].grad), rtol=1e-9, atol=1e-10)
        ot.step()
        op.step()


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, re.sub(r"0x[0-9a-f]+", "", str(e).replace("torch.", "")
                                        .replace("tensorplay.", ""))
    return None


class _Sym(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).mT


class _Two(nn.Module):
    """Parametrized by two tensors: the weight is their sum."""
    def forward(self, a, b):
        return a + 2 * b

    def right_inverse(self, X):
        return X, tp.zeros_like(X)


# ---------------------------------------------------------------- parametrize
def test_register_property_class_state_dict():
    tp.manual_seed(0)
    m = nn.Linear(3, 3, dtype=tp.float64)
    w0 = m.weight
    P.register_parametrization(m, "weight", _Sym())
    assert type(m).__name__ == "ParametrizedLinear" and isinstance(m, nn.Linear)
    assert P.type_before_parametrizations(m) is nn.Linear
    assert P.is_parametrized(m) and P.is_parametrized(m, "weight")
    assert not P.is_parametrized(m, "bias")
    assert m.parametrizations.weight.original is w0          # the same parameter object
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    W = A(m.weight)
    np.testing.assert_array_equal(W, W.T)
    assert "weight" not in dict(m.named_parameters())
    # a second module's class is untouched; a second parametrized tensor shares the class
    assert type(nn.Linear(2, 2)) is nn.Linear
    P.register_parametrization(m, "bias", nn.Identity())
    assert type(m).__name__ == "ParametrizedLinear"
    P.remove_parametrizations(m, "bias")
    P.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and not hasattr(m, "parametrizations")
    assert m.weight is w0 and isinstance(m.weight, nn.Parameter)
    np.testing.assert_array_equal(A(m.weight), W)
    assert list(m.state_dict()) == ["bias", "weight"]     # re-registered in removal order


def test_remove_leave_unparametrized_and_assign():
    m = nn.Linear(3, 3, dtype=tp.float64)

    class Double(nn.Module):
        def forward(self, X):
            return 2 * X

        def right_inverse(self, X):
            return X / 2

    orig = A(m.weight).copy()
    P.register_parametrization(m, "weight", Double())
    # right_inverse at registration: the parametrized weight is the original weight
    np.testing.assert_allclose(A(m.weight), orig)
    np.testing.assert_allclose(A(m.parametrizations.weight.original), orig / 2)
    m.weight = tp.ones(3, 3, dtype=tp.float64)
    np.testing.assert_allclose(A(m.parametrizations.weight.original), 0.5)
    P.remove_parametrizations(m, "weight", leave_parametrized=False)
    np.testing.assert_allclose(A(m.weight), 0.5)


def test_buffer_chain_cached_and_grads():
    m = nn.Linear(3, 3, dtype=tp.float64)
    m.register_buffer("buf", tp.arange(9.).reshape(3, 3))
    P.register_parametrization(m, "buf", _Sym())
    assert list(m.state_dict())[-1] == "parametrizations.buf.original"
    assert "parametrizations.buf.original" in dict(m.named_buffers())
    np.testing.assert_array_equal(A(m.buf), np.array([[0, 1, 2], [1, 4, 5], [2, 5, 8.]]))
    # a chain: Sym then doubling
    P.register_parametrization(m, "weight", _Sym())
    P.register_parametrization(m, "weight", nn.Hardtanh(-10., 10.))
    assert len(m.parametrizations.weight) == 2
    with P.cached():
        assert m.weight is m.weight
    assert m.weight is not m.weight
    x = tp.randn(2, 3, dtype=tp.float64)
    m(x).sum().backward()
    g = A(m.parametrizations.weight.original.grad)
    G = A(x).sum(0)[None, :].repeat(3, 0)          # d sum(x W^T) / dW
    np.testing.assert_allclose(g, np.triu(G) + np.triu(G.T, 1))


def test_sequence_originals_and_unsafe():
    m = nn.Linear(3, 2, dtype=tp.float64)
    W = A(m.weight).copy()
    P.register_parametrization(m, "weight", _Two())
    pl = m.parametrizations.weight
    assert not pl.is_tensor and pl.ntensors == 2 and not hasattr(pl, "original")
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original0",
                                    "parametrizations.weight.original1"]
    assert isinstance(pl.original0, nn.Parameter) and isinstance(pl.original1, nn.Parameter)
    np.testing.assert_allclose(A(m.weight), W)
    m(tp.ones(1, 3, dtype=tp.float64)).sum().backward()
    np.testing.assert_allclose(A(pl.original0.grad), np.ones((2, 3)))
    np.testing.assert_allclose(A(pl.original1.grad), 2 * np.ones((2, 3)))
    m.weight = tp.full((2, 3), 3., dtype=tp.float64)
    np.testing.assert_allclose(A(m.weight), 3.)
    P.remove_parametrizations(m, "weight")
    assert isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(A(m.weight), 3.)

    class Flat(nn.Module):
        def forward(self, X):
            return X.reshape(-1)
    m = nn.Linear(3, 2)
    with pytest.raises(ValueError, match="may not change the shape"):
        P.register_parametrization(m, "weight", Flat())
    P.register_parametrization(m, "weight", Flat(), unsafe=True)
    assert m.weight.shape == (6,) and m.parametrizations.weight.unsafe


def test_deepcopy_pickle_transfer_to():
    tp.manual_seed(1)
    m = nn.Linear(3, 3, dtype=tp.float64)
    P.register_parametrization(m, "weight", _Sym())
    c = copy.deepcopy(m)
    assert type(c).__name__ == "ParametrizedLinear" and type(c) is type(m)
    np.testing.assert_array_equal(A(c.weight), A(m.weight))
    assert c.parametrizations.weight.original is not m.parametrizations.weight.original
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules"):
        pickle.dumps(m)
    m.float()
    assert m.weight.dtype == tp.float32
    n = nn.Linear(3, 3)
    P.transfer_parametrizations_and_params(m, n)
    assert P.is_parametrized(n, "weight")
    assert n.parametrizations.weight.original is m.parametrizations.weight.original
    assert P.type_before_parametrizations(nn.ReLU()) is nn.ReLU


def test_state_dict_round_trip():
    tp.manual_seed(0)
    a = PS.orthogonal(nn.Linear(4, 4, dtype=tp.float64))
    PS.weight_norm(a, "bias", dim=None)
    sd = a.state_dict()
    assert list(sd) == ["parametrizations.weight.original", "parametrizations.weight.0.base",
                        "parametrizations.bias.original0", "parametrizations.bias.original1"]
    tp.manual_seed(1)
    b = PS.orthogonal(nn.Linear(4, 4, dtype=tp.float64))
    PS.weight_norm(b, "bias", dim=None)
    assert not np.allclose(A(a.weight), A(b.weight))
    b.load_state_dict(sd)
    np.testing.assert_array_equal(A(b.weight), A(a.weight))
    np.testing.assert_array_equal(A(b.bias), A(a.bias))


def test_register_errors():
    class Bad(nn.Module):
        def forward(self, X):
            return X[0]

    class NoRI(nn.Module):
        def forward(self, X):
            return X

    m = nn.Linear(3, 3)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized"):
        P.register_parametrization(m, "foo", NoRI())
    with pytest.raises(ValueError, match="unparametrized shape"):
        P.register_parametrization(m, "weight", Bad())
    assert type(m) is nn.Linear and isinstance(m.weight, nn.Parameter)   # unchanged
    P.register_parametrization(m, "weight", NoRI())
    with pytest.raises(RuntimeError, match="parametrization NoRI does not implement right_inverse"):
        m.weight = tp.zeros(3, 3)
    with pytest.raises(ValueError, match="does not have a parametrization on bias"):
        P.remove_parametrizations(m, "bias")


def test_errors_vs_torch():
    torch = pytest.importorskip("torch")

    def cases(L, P_, PS_, nn_):
        class Bad(nn_.Module):
            def forward(self, X):
                return X[0]

        class NotT(nn_.Module):
            def forward(self, X):
                return 3

        class RIdtype(nn_.Module):
            def forward(self, X):
                return X

            def right_inverse(self, X):
                return X.float()

        class RIint(nn_.Module):
            def forward(self, X):
                return X

            def right_inverse(self, X):
                return 3

        class NoRI(nn_.Module):
            def forward(self, X):
                return X

        class Two(nn_.Module):
            def forward(self, a, b):
                return a + b

            def right_inverse(self, X):
                return X, X * 0

        def lin():
            return nn_.Linear(3, 3, dtype=L.float64)

        def par(p):
            m = lin()
            P_.register_parametrization(m, "weight", p)
            return m

        def assign(p, value):
            m = par(p)
            m.weight = value

        def second(p):
            m = par(NoRI())
            P_.register_parametrization(m, "weight", p)

        return [
            lambda: P_.register_parametrization(lin(), "foo", NoRI()),
            lambda: par(Bad()), lambda: par(NotT()), lambda: par(RIdtype()), lambda: par(RIint()),
            lambda: assign(NoRI(), L.zeros(3, 3, dtype=L.float64)),
            lambda: assign(Two(), L.zeros(3, 3, dtype=L.float32)),
            lambda: P_.remove_parametrizations(par(Two()), "weight", leave_parametrized=False),
            lambda: P_.remove_parametrizations(lin(), "weight"),
            lambda: second(Bad()), lambda: second(NotT()),
            lambda: PS_.orthogonal(lin(), name="bias"),
            lambda: PS_.orthogonal(lin(), name="foo"),
            lambda: PS_.orthogonal(lin(), orthogonal_map="qr"),
            lambda: PS_.orthogonal(nn_.Linear(3, 3, dtype=L.complex128),
                                   orthogonal_map="householder"),
            lambda: setattr(PS_.orthogonal(lin(), use_trivialization=False), "weight",
                            L.eye(3, dtype=L.float64)),
            lambda: setattr(PS_.orthogonal(lin()), "weight", L.eye(2, dtype=L.float64)),
            lambda: PS_.spectral_norm(lin(), dim=2),
            lambda: PS_.spectral_norm(lin(), n_power_iterations=0),
            lambda: PS_.spectral_norm(lin(), name="foo"),
            lambda: pickle.dumps(par(NoRI())),
        ]

    ct = cases(torch, torch.nn.utils.parametrize, torch.nn.utils.parametrizations, torch.nn)
    cp = cases(tp, P, PS, nn)
    for i, (a, b) in enumerate(zip(ct, cp)):
        ea, eb = _err(a), _err(b)
        assert ea is not None and ea == eb, (i, ea, eb)


# ---------------------------------------------------------------- orthogonal
@pytest.mark.parametrize("omap", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
@pytest.mark.parametrize("triv", [True, False])
def test_orthogonal_vs_torch(omap, shape, triv):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    tm, pm = _pair(torch, "Linear", *shape)
    torch.nn.utils.parametrizations.orthogonal(tm, orthogonal_map=omap, use_trivialization=triv)
    PS.orthogonal(pm, orthogonal_map=omap, use_trivialization=triv)
    assert list(pm.state_dict()) == list(tm.state_dict())
    if triv:      # a non-square base is completed by random columns: copy it across
        pm.parametrizations.weight[0].base = tp.tensor(A(tm.parametrizations.weight[0].base))
    W = A(pm.weight)
    np.testing.assert_allclose(W, A(tm.weight), atol=1e-12)
    k, wshape = min(shape), shape[::-1]            # Linear(in, out): the weight is (out, in)
    Q = W if wshape[0] >= wshape[1] else W.T
    np.testing.assert_allclose(Q.T @ Q, np.eye(k), atol=1e-12)
    np.random.seed(0)
    _run_both(tm, pm, np.random.randn(2, shape[0]), steps=2)
    # assignment of an orthogonal matrix (with trivialization, or the householder map)
    if triv or omap == "householder":
        q = np.linalg.qr(np.random.randn(max(shape), k))[0]
        q = q if q.shape == wshape else q.T
        with tp.no_grad():
            pm.weight = tp.tensor(q)
        np.testing.assert_allclose(A(pm.weight), q, atol=1e-12)


def test_orthogonal_batched_complex_and_default_map():
    tp.manual_seed(0)

    class M(nn.Module):
        def __init__(self, *shape, dtype=tp.float64):
            super().__init__()
            self.weight = nn.Parameter(tp.randn(*shape, dtype=dtype))

    for shape, dtype, expect in (((2, 4, 4), tp.float64, "matrix_exp"),
                                 ((2, 5, 3), tp.float64, "householder"),
                                 ((3, 3), tp.complex128, "matrix_exp"),
                                 ((2, 3, 4), tp.complex128, "matrix_exp")):
        m = PS.orthogonal(M(*shape, dtype=dtype))
        assert m.parametrizations.weight[0].orthogonal_map.name == expect
        Q = A(m.weight)
        if shape[-2] < shape[-1]:
            Q = np.swapaxes(Q, -1, -2)
        QhQ = np.swapaxes(Q.conj(), -1, -2) @ Q
        np.testing.assert_allclose(QhQ, np.broadcast_to(np.eye(Q.shape[-1]), QhQ.shape),
                                   atol=1e-12)


@pytest.mark.parametrize("shape,cplx,omap,triv", [
    ((2, 4, 4), False, "matrix_exp", True), ((2, 5, 3), False, "householder", True),
    ((2, 5, 3), False, "householder", False), ((4, 4), False, "householder", False),
    ((3, 3), True, "matrix_exp", True), ((3, 3), True, "cayley", False),
    ((2, 3, 4), True, "matrix_exp", True)])
@pytest.mark.parametrize("single", [False, True])
def test_orthogonal_batched_complex_float32_vs_torch(shape, cplx, omap, triv, single):
    torch = pytest.importorskip("torch")
    if single and cplx:
        return
    torch.manual_seed(0)
    rng = np.random.RandomState(0)
    w = rng.randn(*shape) + (1j * rng.randn(*shape) if cplx else 0)
    if single:
        w = w.astype(np.float32)

    class TM(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.tensor(w))

    class PM(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(tp.tensor(w))

    tm, pm = TM(), PM()
    torch.nn.utils.parametrizations.orthogonal(tm, orthogonal_map=omap, use_trivialization=triv)
    PS.orthogonal(pm, orthogonal_map=omap, use_trivialization=triv)
    if triv:
        pm.parametrizations.weight[0].base = tp.tensor(A(tm.parametrizations.weight[0].base))
    tol = 1e-5 if single else 1e-12
    assert pm.weight.dtype == pm.parametrizations.weight.original.dtype
    np.testing.assert_allclose(A(pm.weight), A(tm.weight), atol=tol)
    (tm.weight.abs() ** 2 * torch.arange(shape[-1])).sum().backward()
    (pm.weight.abs() ** 2 * tp.arange(shape[-1])).sum().backward()
    np.testing.assert_allclose(A(pm.parametrizations.weight.original.grad),
                               A(tm.parametrizations.weight.original.grad), atol=10 * tol)


@pytest.mark.parametrize("omap", ["matrix_exp", "cayley", "householder"])
def test_orthogonal_gradcheck(omap):
    tp.manual_seed(0)
    m = PS.orthogonal(nn.Linear(3, 4, dtype=tp.float64), orthogonal_map=omap)
    orth = m.parametrizations.weight[0]
    X = tp.randn(4, 3, dtype=tp.float64, requires_grad=True)
    assert gradcheck(orth, (X,))
    if omap != "householder":
        assert gradgradcheck(orth, (X,))


# ---------------------------------------------------------------- weight norm
@pytest.mark.parametrize("dim", [0, 1, -2, None])
def test_weight_norm_vs_torch(dim):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    tm, pm = _pair(torch, "Conv2d", 3, 4, 3)
    torch.nn.utils.parametrizations.weight_norm(tm, dim=dim)
    PS.weight_norm(pm, dim=dim)
    sdt, sdp = tm.state_dict(), pm.state_dict()
    assert list(sdp) == list(sdt) == ["bias", "parametrizations.weight.original0",
                                      "parametrizations.weight.original1"]
    for k in sdt:
        np.testing.assert_allclose(A(sdp[k]), A(sdt[k]), rtol=1e-13)
    np.random.seed(1)
    _run_both(tm, pm, np.random.randn(2, 3, 5, 5), steps=2)


def test_weight_norm_gradcheck_and_old_state_dict():
    tp.manual_seed(0)
    for dim in (0, 1, -1):
        wn = PS._WeightNorm(dim)
        v = tp.randn(3, 4, dtype=tp.float64, requires_grad=True)
        g = PS._norm_except_dim(v.detach(), dim).clone().requires_grad_()
        assert gradcheck(wn, (g, v)) and gradgradcheck(wn, (g, v))
    # a state dict of the old hook-based weight_norm loads into the new one
    old = nn.Linear(3, 4)
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        nn.utils.weight_norm(old)
    sd = old.state_dict()
    assert list(sd) == ["bias", "weight_g", "weight_v"]
    new = PS.weight_norm(nn.Linear(3, 4))
    new.load_state_dict(sd)
    np.testing.assert_allclose(A(new.weight), A(old.weight), rtol=1e-6)


def test_old_weight_norm_vs_torch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    for dim in (0, 1, None):
        tm, pm = _pair(torch, "Linear", 3, 4)
        with warnings.catch_warnings(record=True) as wt:
            warnings.simplefilter("always")
            torch.nn.utils.weight_norm(tm, dim=dim)
        with warnings.catch_warnings(record=True) as wp:
            warnings.simplefilter("always")
            nn.utils.weight_norm(pm, dim=dim)
        assert [(w.category, str(w.message)) for w in wp] == \
            [(w.category, str(w.message)) for w in wt]
        assert list(pm.state_dict()) == list(tm.state_dict())
        _run_both(tm, pm, np.random.randn(2, 3), steps=2)
        torch.nn.utils.remove_weight_norm(tm)
        nn.utils.remove_weight_norm(pm)
        assert list(pm.state_dict()) == list(tm.state_dict()) and not pm._forward_pre_hooks
        assert isinstance(pm.weight, nn.Parameter)
        np.testing.assert_allclose(A(pm.weight), A(tm.weight), rtol=1e-12)
    ct = [lambda: torch.nn.utils.weight_norm(torch.nn.utils.weight_norm(torch.nn.Linear(2, 2))),
          lambda: torch.nn.utils.remove_weight_norm(torch.nn.Linear(2, 2))]
    cp = [lambda: nn.utils.weight_norm(nn.utils.weight_norm(nn.Linear(2, 2))),
          lambda: nn.utils.remove_weight_norm(nn.Linear(2, 2))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for a, b in zip(ct, cp):
            assert _err(a) == _err(b) is not None


# ---------------------------------------------------------------- spectral norm
@pytest.mark.parametrize("cls,args,shape", [("Linear", (5, 4), (2, 5)),
                                            ("Conv2d", (3, 4, 3), (2, 3, 6, 6)),
                                            ("ConvTranspose2d", (3, 4, 3), (2, 3, 5, 5))])
def test_spectral_norm_vs_torch(cls, args, shape):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    tm, pm = _pair(torch, cls, *args)
    torch.nn.utils.parametrizations.spectral_norm(tm, n_power_iterations=2)
    PS.spectral_norm(pm, n_power_iterations=2)
    snt, snp = tm.parametrizations.weight[0], pm.parametrizations.weight[0]
    assert snp.dim == snt.dim == (1 if cls == "ConvTranspose2d" else 0)
    assert list(pm.state_dict()) == list(tm.state_dict())
    with tp.no_grad():
        snp._u.copy_(tp.tensor(A(snt._u)))
        snp._v.copy_(tp.tensor(A(snt._v)))
    np.random.seed(2)
    _run_both(tm, pm, np.random.randn(*shape), steps=3)
    np.testing.assert_allclose(A(snp._u), A(snt._u), atol=1e-12)
    np.testing.assert_allclose(A(snp._v), A(snt._v), atol=1e-12)
    # eval: the vectors stay, the weight is the same
    tm.eval()
    pm.eval()
    u = A(snp._u).copy()
    np.testing.assert_allclose(A(pm.weight), A(tm.weight), rtol=1e-10)
    assert np.array_equal(A(snp._u), u)


def test_spectral_norm_sigma_and_gradcheck():
    tp.manual_seed(0)
    m = PS.spectral_norm(nn.Linear(6, 4, dtype=tp.float64), n_power_iterations=5)
    for _ in range(10):
        m.weight                                        # power iterations (training)
    W = A(m.parametrizations.weight.original)
    sigma = np.linalg.svd(W, compute_uv=False)[0]
    np.testing.assert_allclose(A(m.weight), W / sigma, rtol=1e-8)
    m.eval()
    sn = m.parametrizations.weight[0]
    X = tp.randn(4, 6, dtype=tp.float64, requires_grad=True)
    assert gradcheck(sn, (X,)) and gradgradcheck(sn, (X,))
    one_d = PS._SpectralNorm(tp.randn(5, dtype=tp.float64))
    np.testing.assert_allclose(np.linalg.norm(A(one_d(tp.randn(5, dtype=tp.float64)))), 1.)


def test_old_spectral_norm_vs_torch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    for cls, args, shape in (("Linear", (5, 4), (2, 5)),
                             ("ConvTranspose2d", (3, 4, 3), (2, 3, 5, 5))):
        tm, pm = _pair(torch, cls, *args)
        torch.nn.utils.spectral_norm(tm)
        nn.utils.spectral_norm(pm)
        assert list(pm.state_dict()) == list(tm.state_dict()) == \
            ["bias", "weight_orig", "weight_u", "weight_v"]
        with tp.no_grad():
            pm.weight_u.copy_(tp.tensor(A(tm.weight_u)))
            pm.weight_v.copy_(tp.tensor(A(tm.weight_v)))
        np.random.seed(3)
        _run_both(tm, pm, np.random.randn(*shape), steps=3)
        np.testing.assert_allclose(A(pm.weight_u), A(tm.weight_u), atol=1e-12)
        # a state dict (without the metadata) loads back
        pm2 = nn.utils.spectral_norm(getattr(nn, cls)(*args, dtype=tp.float64))
        pm2.load_state_dict({k: tp.tensor(A(v)) for k, v in tm.state_dict().items()})
        np.testing.assert_array_equal(A(pm2.weight_u), A(tm.weight_u))
        torch.nn.utils.remove_spectral_norm(tm)
        nn.utils.remove_spectral_norm(pm)
        assert list(pm.state_dict()) == list(tm.state_dict())
        assert not pm._state_dict_hooks and not pm._load_state_dict_pre_hooks
        assert isinstance(pm.weight, nn.Parameter)
        np.testing.assert_allclose(A(pm.weight), A(tm.weight), rtol=1e-10)
    mk = [lambda L, U: U.spectral_norm(U.spectral_norm(L.nn.Linear(2, 2))),
          lambda L, U: U.remove_spectral_norm(L.nn.Linear(2, 2)),
          lambda L, U: U.spectral_norm(L.nn.Linear(2, 2), n_power_iterations=0),
          lambda L, U: U.spectral_norm(L.nn.Linear(2, 2, bias=False), name="bias")]
    for f in mk:
        ea = _err(lambda: f(torch, torch.nn.utils))
        assert ea is not None and ea == _err(lambda: f(tp, nn.utils))
