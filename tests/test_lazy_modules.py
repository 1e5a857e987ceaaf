"""Lazy modules (nn.LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*,
LazyInstanceNorm*), LazyModuleMixin and UninitializedParameter/Buffer: the
same code runs on tensorplay and on PyTorch (the ``T`` fixture), so each
behaviour checked (what raises before the first call, what that call infers
and turns the module into, the state-dict rules, an optimizer made early) is
PyTorch's; the numbers are compared where both libraries get the same data."""
import copy
import pickle
import re

import numpy as np
import pytest

import tensorplay as tp
from conftest import exact

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def _msg(T, text):
    """``text`` with PyTorch's module name where it names one (``{T}``), as a full-match pattern."""
    return exact(text.replace("{T}", T.__name__))


def _use_error(T, cls="UninitializedParameter"):
    return (r"^Attempted to use an uninitialized parameter in .*\. This error happens when you are "
            r"using a `LazyModule` or explicitly manipulating `" + T.__name__ + r"\.nn\.parameter\."
            + cls + r"` objects\. When using LazyModules Call `forward` with a dummy batch to "
            r"initialize the parameters before calling " + T.__name__ + " functions$")


SHAPE_MSG = ("Can't access the shape of an uninitialized parameter or buffer. This error usually "
             "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
             "initialized one. Call `forward` to initialize the parameters before accessing their "
             "attributes.")


def _x(T, *shape, dtype=None):
    rng = np.random.default_rng(sum(shape) + len(shape))
    return T.tensor(rng.standard_normal(shape), dtype=dtype or T.float32)


# ---------------------------------------------------------------- UninitializedParameter / Buffer
def test_uninitialized_parameter_metadata(T):
    p = T.nn.UninitializedParameter()
    assert repr(p) == str(p) == "<UninitializedParameter>"
    assert isinstance(p, T.nn.Parameter) and isinstance(p, T.Tensor)
    assert T.nn.parameter.is_lazy(p) and not T.nn.parameter.is_lazy(T.nn.Parameter(T.zeros(1)))
    assert p.dtype == T.float32 and p.requires_grad and p.is_leaf and p.grad is None
    assert p.size() == (0,) and p.ndim == 1 and p.is_floating_point() and not p.is_complex()
    assert p.float() is p and p.cpu() is p and p.get_device() == -1
    p.requires_grad = False
    assert not p.requires_grad
    q = T.nn.UninitializedParameter(requires_grad=False, dtype=T.float64)
    assert q.dtype == T.float64 and not q.requires_grad


def test_uninitialized_parameter_refuses_use(T):
    p = T.nn.UninitializedParameter()
    with pytest.raises(RuntimeError, match=exact(SHAPE_MSG)):
        p.shape
    for use in (lambda: p + 1, lambda: T.add(p, 1), lambda: p.numel(), lambda: p.dim(),
                lambda: p.detach(), lambda: p.requires_grad_(False), lambda: p.fill_(1),
                lambda: T.zeros_like(p), lambda: len(p), lambda: p.sum(), lambda: p.clone(),
                lambda: T.nn.Parameter(p), lambda: T.nn.functional.linear(T.ones(1, 2), p)):
        with pytest.raises(ValueError, match=_use_error(T)):
            use()
    with pytest.raises(RuntimeError, match=exact(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")):
        p.share_memory_()
    with pytest.raises(RuntimeError, match=exact(
            "Only Tensors of floating point and complex dtype can require gradients")):
        T.nn.UninitializedParameter(dtype=T.int64)


def test_uninitialized_buffer(T):
    b = T.nn.UninitializedBuffer()
    assert repr(b) == "<UninitializedBuffer>" and not b.requires_grad and b.persistent
    assert isinstance(b, T.nn.Buffer) and not isinstance(b, T.nn.Parameter)
    assert T.nn.UninitializedBuffer(requires_grad=True).requires_grad
    assert T.nn.UninitializedBuffer(dtype=T.int64).dtype == T.int64
    assert not T.nn.UninitializedBuffer(persistent=False).persistent
    with pytest.raises(ValueError, match=_use_error(T, "UninitializedBuffer")):
        b.zero_()
    d = b.double()
    assert type(d) is T.nn.UninitializedBuffer and d.dtype == T.float64
    b.materialize((3,))
    assert type(b) is T.Tensor and b.shape == (3,) and b.dtype == T.float32


def test_materialize(T):
    p = T.nn.UninitializedParameter(requires_grad=False)
    ident = id(p)
    p.materialize((2, 3))
    assert type(p) is T.nn.Parameter and id(p) == ident and p.shape == (2, 3)
    assert not p.requires_grad and p.dtype == T.float32
    q = T.nn.UninitializedParameter()
    q.materialize(4, dtype=T.float64)
    assert q.shape == (4,) and q.dtype == T.float64 and q.requires_grad
    r = T.nn.UninitializedParameter()
    r.materialize([2, 1])
    assert r.shape == (2, 1)
    s = T.nn.UninitializedParameter()
    s.materialize(())
    assert s.shape == ()


def test_conversions_before_materialize(T):
    p = T.nn.UninitializedParameter()
    d = p.double()          # a plain (empty) tensor, as PyTorch's
    assert type(d) is T.Tensor and d.dtype == T.float64
    assert type(p.to(T.float64)) is T.Tensor
    with T.no_grad():
        p.copy_(T.zeros(0))     # (an empty source fits)
    assert type(p) is T.nn.UninitializedParameter
    p.data = T.zeros(0, dtype=T.float64)
    assert type(p) is T.nn.UninitializedParameter and p.dtype == T.float64


def test_copy_and_pickle(T):
    p = T.nn.UninitializedParameter(requires_grad=False, dtype=T.float64)
    c = copy.deepcopy(p)
    assert type(c) is T.nn.UninitializedParameter and c is not p
    assert c.dtype == T.float64 and not c.requires_grad
    u = pickle.loads(pickle.dumps(p))
    assert type(u) is T.nn.UninitializedParameter and not u.requires_grad
    assert p.__reduce_ex__(2) == (T.nn.UninitializedParameter, (False,))


# ---------------------------------------------------------------- the first call
def _lazy_cases(T):
    nn = T.nn
    return [
        (lambda: nn.LazyLinear(4), lambda: nn.Linear(3, 4), (2, 3), "Linear"),
        (lambda: nn.LazyLinear(4, bias=False), lambda: nn.Linear(3, 4, bias=False), (5, 2, 3), "Linear"),
        (lambda: nn.LazyConv1d(4, 3, padding=1), lambda: nn.Conv1d(2, 4, 3, padding=1), (2, 2, 7), "Conv1d"),
        (lambda: nn.LazyConv2d(4, 2, groups=2, padding_mode="reflect", padding=1),
         lambda: nn.Conv2d(6, 4, 2, groups=2, padding_mode="reflect", padding=1), (1, 6, 5, 5), "Conv2d"),
        (lambda: nn.LazyConv2d(3, 2), lambda: nn.Conv2d(2, 3, 2), (2, 4, 4), "Conv2d"),      # unbatched
        (lambda: nn.LazyConv3d(2, 2, stride=2, bias=False), lambda: nn.Conv3d(3, 2, 2, stride=2, bias=False),
         (1, 3, 4, 4, 4), "Conv3d"),
        (lambda: nn.LazyConvTranspose1d(4, 3, stride=2), lambda: nn.ConvTranspose1d(2, 4, 3, stride=2),
         (2, 2, 5), "ConvTranspose1d"),
        (lambda: nn.LazyConvTranspose2d(4, 2, groups=2), lambda: nn.ConvTranspose2d(2, 4, 2, groups=2),
         (1, 2, 3, 3), "ConvTranspose2d"),
        (lambda: nn.LazyConvTranspose3d(2, 2, output_padding=1, stride=2),
         lambda: nn.ConvTranspose3d(3, 2, 2, output_padding=1, stride=2), (1, 3, 2, 2, 2), "ConvTranspose3d"),
        (lambda: nn.LazyBatchNorm1d(), lambda: nn.BatchNorm1d(3), (4, 3), "BatchNorm1d"),
        (lambda: nn.LazyBatchNorm2d(momentum=None), lambda: nn.BatchNorm2d(3, momentum=None), (2, 3, 2, 2),
         "BatchNorm2d"),
        (lambda: nn.LazyBatchNorm3d(affine=False), lambda: nn.BatchNorm3d(2, affine=False), (2, 2, 2, 2, 2),
         "BatchNorm3d"),
        (lambda: nn.LazyInstanceNorm1d(), lambda: nn.InstanceNorm1d(3, affine=True, track_running_stats=True),
         (2, 3, 5), "InstanceNorm1d"),
        (lambda: nn.LazyInstanceNorm2d(track_running_stats=False),
         lambda: nn.InstanceNorm2d(3, affine=True), (2, 3, 3, 3), "InstanceNorm2d"),
        (lambda: nn.LazyInstanceNorm3d(bias=False),
         lambda: nn.InstanceNorm3d(2, affine=True, track_running_stats=True, bias=False), (2, 2, 2, 2, 2),
         "InstanceNorm3d"),
    ]


@pytest.mark.parametrize("case", range(15))
def test_first_call_becomes_the_eager_module(T, case):
    make_lazy, make_eager, shape, name = _lazy_cases(T)[case]
    T.manual_seed(7)
    lazy = make_lazy()
    assert lazy.has_uninitialized_params()
    assert all(T.nn.parameter.is_lazy(p) for p in lazy.parameters())
    assert type(lazy).__name__ == "Lazy" + name
    x = _x(T, *shape)
    out = lazy(x)
    assert type(lazy) is getattr(T.nn, name)
    assert not lazy._forward_pre_hooks and not lazy._load_state_dict_pre_hooks
    assert not hasattr(lazy, "_initialize_hook") and not hasattr(lazy, "_load_hook")
    # the same module, initialised the same way, as the eager class built with the sizes
    T.manual_seed(7)
    eager = make_eager()
    assert repr(lazy) == repr(eager)
    eager_out = eager(x)            # (from the same initial values: the same step of the statistics)
    np.testing.assert_array_equal(out.detach().numpy(), eager_out.detach().numpy())
    sd_l, sd_e = lazy.state_dict(), eager.state_dict()
    assert list(sd_l) == list(sd_e)
    for k in sd_e:
        assert type(sd_l[k]) is type(sd_e[k]) and sd_l[k].dtype == sd_e[k].dtype
        np.testing.assert_array_equal(sd_l[k].numpy(), sd_e[k].numpy())
    for k, _ in eager.named_parameters():
        assert type(lazy.get_parameter(k)) is T.nn.Parameter


@needs_torch
@pytest.mark.parametrize("case", range(15))
def test_first_call_matches_torch(case):
    """Same input, PyTorch's weights copied in after the first call: same output,
    same gradients, same parameter shapes and sizes inferred."""
    mods, outs = [], []
    for T in (torch, tp):
        make_lazy, _, shape, _ = _lazy_cases(T)[case]
        m = make_lazy().double()
        x = _x(T, *shape, dtype=T.float64).requires_grad_()
        m(x)                            # initialise
        mods.append((m, x))
    (mt, xt), (mp, xp) = mods
    assert [(k, tuple(v.shape)) for k, v in mt.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in mp.state_dict().items()]
    for attr in ("in_features", "in_channels", "num_features"):
        assert getattr(mt, attr, None) == getattr(mp, attr, None)
    with tp.no_grad():
        for k, v in mt.state_dict().items():
            mp.state_dict(keep_vars=True)[k].copy_(tp.tensor(v.numpy()))
    for (m, x), T in zip(mods, (torch, tp)):
        out = m(x)
        w = T.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)), dtype=T.float64)
        (out * w).sum().backward()
        outs.append((out.detach().numpy(), x.grad.numpy(),
                     [(n, p.grad.numpy()) for n, p in m.named_parameters()]))
    (ot, gt, pt), (op, gp, pp) = outs
    np.testing.assert_allclose(op, ot, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gp, gt, rtol=1e-10, atol=1e-12)
    assert [n for n, _ in pt] == [n for n, _ in pp]
    for (_, a), (_, b) in zip(pt, pp):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("make", [lambda nn: nn.LazyLinear(3), lambda nn: nn.LazyConv1d(2, 2),
                                  lambda nn: nn.LazyConvTranspose2d(2, 2, stride=2),
                                  lambda nn: nn.LazyBatchNorm1d(), lambda nn: nn.LazyInstanceNorm1d()])
def test_gradcheck_after_first_call(make):
    m = make(tp.nn).double()
    x = _x(tp, 2, 3, 4, dtype=tp.float64)
    m(x)
    params = [p for p in m.parameters()]
    assert params and all(type(p) is tp.nn.Parameter for p in params)

    names = [n for n, _ in m.named_parameters()]

    def f(x, *ps):
        return tp.func.functional_call(m, dict(zip(names, ps)), (x,))
    inputs = (x.clone().requires_grad_(),) + tuple(p.detach().clone().requires_grad_() for p in params)
    assert tp.autograd.gradcheck(f, inputs)
    assert tp.autograd.gradgradcheck(f, inputs)


def test_dtype_and_double_before_first_call(T):
    m = T.nn.LazyLinear(2, dtype=T.float64)
    assert m.weight.dtype == T.float64
    m(_x(T, 1, 3, dtype=T.float64))
    assert m.weight.dtype == T.float64 and m.weight.shape == (2, 3)
    n = T.nn.LazyBatchNorm1d().double()
    assert type(n.running_mean) is T.nn.UninitializedBuffer and n.running_mean.dtype == T.float64
    assert type(n.weight) is T.nn.UninitializedParameter and n.weight.dtype == T.float64
    n(_x(T, 4, 3, dtype=T.float64))
    assert all(t.dtype == T.float64 for t in (n.weight, n.bias, n.running_mean, n.running_var))
    assert n.num_batches_tracked.dtype == T.int64 and int(n.num_batches_tracked) == 1


def test_before_the_first_call(T):
    m = T.nn.LazyLinear(4)
    assert repr(m) == "LazyLinear(in_features=0, out_features=4, bias=True)"
    assert repr(T.nn.LazyConv2d(3, 2, padding=1)) == \
        "LazyConv2d(0, 3, kernel_size=(2, 2), stride=(1, 1), padding=(1, 1))"
    assert repr(T.nn.LazyBatchNorm1d()) == \
        "LazyBatchNorm1d(0, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"
    assert [(n, type(p).__name__) for n, p in m.named_parameters()] == \
        [("weight", "UninitializedParameter"), ("bias", "UninitializedParameter")]
    assert [(n, type(b).__name__) for n, b in T.nn.LazyBatchNorm2d().named_buffers()] == \
        [("running_mean", "UninitializedBuffer"), ("running_var", "UninitializedBuffer"),
         ("num_batches_tracked", "Tensor")]
    sd = m.state_dict()
    assert sd["weight"] is m.weight and sd["bias"] is m.bias     # (saved as themselves)
    assert m.state_dict(keep_vars=True)["weight"] is m.weight
    with pytest.raises(ValueError, match=_use_error(T)):
        sum(p.numel() for p in m.parameters())
    with pytest.raises(ValueError, match=_use_error(T)):
        m.requires_grad_(False)
    with pytest.raises(RuntimeError, match="^Can't share memory on an uninitialized"):
        m.share_memory()
    m.zero_grad()
    m.eval()
    assert not m.training
    m.reset_parameters()            # (nothing to reset yet)
    assert m.has_uninitialized_params()
    ni = T.nn.LazyBatchNorm2d(affine=False, track_running_stats=False)
    assert not ni.has_uninitialized_params()
    ni(_x(T, 2, 3, 2, 2))
    assert type(ni) is T.nn.BatchNorm2d and ni.num_features == 0      # (PyTorch's: nothing inferred)
    assert T.nn.LazyInstanceNorm1d().affine and T.nn.LazyInstanceNorm1d().track_running_stats


def test_initialize_parameters_explicitly(T):
    m = T.nn.LazyLinear(3)
    m.initialize_parameters(_x(T, 2, 6))
    assert type(m) is T.nn.LazyLinear and m.in_features == 6 and m.weight.shape == (3, 6)
    assert not m.has_uninitialized_params()
    assert m(_x(T, 2, 6)).shape == (2, 3) and type(m) is T.nn.Linear


def test_errors_of_the_first_call(T):
    with pytest.raises(RuntimeError, match=_msg(
            T, "Expected 3D (unbatched) or 4D (batched) input to LazyConv2d, but got input of size: "
               "{T}.Size([2, 3])")):
        T.nn.LazyConv2d(3, 2)(_x(T, 2, 3))
    with pytest.raises(RuntimeError, match=_msg(
            T, "Expected 2D (unbatched) or 3D (batched) input to LazyConvTranspose1d, but got input of "
               "size: {T}.Size([1, 2, 3, 3])")):
        T.nn.LazyConvTranspose1d(3, 2)(_x(T, 1, 2, 3, 3))
    with pytest.raises(ValueError, match=exact("in_channels must be divisible by groups")):
        T.nn.LazyConv2d(4, 2, groups=2)(_x(T, 1, 3, 4, 4))
    with pytest.raises(ValueError, match=exact("groups must be a positive integer")):
        T.nn.LazyConv2d(4, 2, groups=0)
    with pytest.raises(ValueError, match=exact("expected 4D input (got 2D input)")):
        T.nn.LazyBatchNorm2d()(_x(T, 2, 3))
    with pytest.raises(IndexError):
        T.nn.LazyLinear(3)(T.tensor(1.0))
    m = T.nn.LazyLinear(3)
    with pytest.raises(NotImplementedError, match=exact("initialize_parameters is not implemented for "
                                                        "LazyLinear")):
        T.nn.modules.lazy.LazyModuleMixin.initialize_parameters(m)


def _custom(T):
    class Scale(T.nn.modules.lazy.LazyModuleMixin, T.nn.Module):
        def __init__(self, init=True):
            super().__init__()
            self.w = T.nn.UninitializedParameter()
            self.init = init

        def initialize_parameters(self, x, scale=1.0):
            if self.init:
                self.w.materialize(x.shape[-1:])
                with T.no_grad():
                    self.w.fill_(scale)

        def forward(self, x, scale=1.0):
            return x * self.w

    class NoInit(T.nn.modules.lazy.LazyModuleMixin, T.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = T.nn.UninitializedParameter()

        def forward(self, x):
            return x
    return Scale, NoInit


def test_custom_lazy_module(T):
    Scale, NoInit = _custom(T)
    m = Scale()
    out = m(T.ones(2, 3), scale=2.0)                 # (keyword arguments reach it too)
    assert type(m) is Scale and m.w.shape == (3,)   # cls_to_become None: the class stays
    assert out.tolist() == [[2.0] * 3] * 2
    assert not m._forward_pre_hooks
    with pytest.raises(RuntimeError, match=exact("module Scale has not been fully initialized")):
        Scale(init=False)(T.ones(2))
    with pytest.raises(NotImplementedError, match=exact("initialize_parameters is not implemented for "
                                                        "NoInit")):
        NoInit()(T.ones(1))


def test_sequential_of_lazy_layers(T):
    nn = T.nn
    s = nn.Sequential(nn.LazyConv2d(4, 3, padding=1), nn.LazyBatchNorm2d(), nn.ReLU(), nn.Flatten(),
                      nn.LazyLinear(2))
    assert s(_x(T, 2, 3, 4, 4)).shape == (2, 2)
    assert [type(c).__name__ for c in s] == ["Conv2d", "BatchNorm2d", "ReLU", "Flatten", "Linear"]
    assert s[4].in_features == 64 and s[0].in_channels == 3 and s[1].num_features == 4


# ---------------------------------------------------------------- optimizers made before the first call
@pytest.mark.parametrize("opt", ["SGD", "Adam"])
def test_optimizer_made_before_first_call(T, opt):
    m = T.nn.LazyLinear(2)
    o = getattr(T.optim, opt)(m.parameters(), lr=0.1)
    x = _x(T, 3, 4)
    m(x)
    with T.no_grad():
        m.weight.copy_(T.tensor(np.arange(8.0).reshape(2, 4) / 10))
        m.bias.fill_(0.5)
    before = [p.detach().clone() for p in m.parameters()]
    for _ in range(3):
        o.zero_grad()
        (m(x) ** 2).sum().backward()
        o.step()
    assert all(not T.equal(a, b) for a, b in zip(before, m.parameters()))
    assert o.param_groups[0]["params"][0] is m.weight


@needs_torch
def test_optimizer_made_before_first_call_matches_torch():
    res = []
    for T in (torch, tp):
        m = T.nn.Sequential(T.nn.LazyLinear(3, bias=False), T.nn.LazyBatchNorm1d(), T.nn.Tanh(),
                            T.nn.LazyLinear(1))
        o = T.optim.Adam(m.parameters(), lr=0.05)
        x = _x(T, 5, 4)
        m(x)
        with T.no_grad():
            for i, p in enumerate(m.parameters()):
                p.copy_(T.tensor(np.cos(np.arange(p.numel()) + i).reshape(tuple(p.shape))))
        for _ in range(4):
            o.zero_grad()
            m(x).pow(2).mean().backward()
            o.step()
        res.append([p.detach().numpy().copy() for p in m.parameters()])
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_adagrad_made_before_first_call_raises(T):
    # (Adagrad fills its state at construction, from the parameter: PyTorch refuses too)
    with pytest.raises(ValueError, match=_use_error(T)):
        T.optim.Adagrad(T.nn.LazyLinear(2).parameters())


# ---------------------------------------------------------------- state dicts
def test_load_initialized_state_into_lazy(T):
    T.manual_seed(3)
    ref = T.nn.Linear(3, 4)
    m = T.nn.LazyLinear(4)
    assert repr(m.load_state_dict(ref.state_dict())) == "<All keys matched successfully>"
    assert type(m) is T.nn.LazyLinear and m.in_features == 0      # lazy until its first call
    assert type(m.weight) is T.nn.Parameter and m.weight.requires_grad
    assert T.equal(m.weight, ref.weight) and T.equal(m.bias, ref.bias)
    assert not m.has_uninitialized_params()
    x = _x(T, 2, 3)
    assert T.equal(m(x), ref(x)) and type(m) is T.nn.Linear and m.in_features == 3
    m = T.nn.LazyLinear(4)
    m.load_state_dict(ref.state_dict())
    with pytest.raises(AssertionError, match=exact("The in_features inferred from input: 5 is not equal "
                                                   "to in_features from self.weight: 3")):
        m(_x(T, 2, 5))
    b, r = T.nn.LazyBatchNorm1d(), T.nn.BatchNorm1d(3)
    r.running_mean.fill_(2.0)
    b.load_state_dict(r.state_dict())
    assert type(b) is T.nn.LazyBatchNorm1d and b.num_features == 0
    assert b.running_mean.tolist() == [2.0] * 3 and type(b.running_mean) is T.Tensor
    assert int(b.num_batches_tracked) == 0


def test_load_lazy_state(T):
    m = T.nn.LazyLinear(4)
    assert repr(m.load_state_dict(T.nn.LazyLinear(4).state_dict())) == "<All keys matched successfully>"
    assert type(m.weight) is T.nn.UninitializedParameter and m.has_uninitialized_params()
    with pytest.raises(RuntimeError, match=exact(SHAPE_MSG)):
        T.nn.Linear(3, 4).load_state_dict(T.nn.LazyLinear(4).state_dict())
    with pytest.raises(RuntimeError, match=exact(SHAPE_MSG)):
        T.nn.Linear(3, 4).load_state_dict(T.nn.LazyLinear(4).state_dict(), strict=False)
    with pytest.raises(RuntimeError, match=re.escape(
            'While copying the parameter named "weight", whose dimensions in the model are '
            + T.__name__ + ".Size([0]) and whose dimensions in the checkpoint are " + T.__name__
            + ".Size([0]), an exception occurred : (\"Attempted to use an uninitialized parameter")):
        T.nn.LazyLinear(4).load_state_dict(T.nn.LazyLinear(4).state_dict(), assign=True)
    b = T.nn.LazyBatchNorm1d()
    b.load_state_dict(T.nn.LazyBatchNorm1d().state_dict())
    assert type(b.running_mean) is T.nn.UninitializedBuffer


def test_load_partial_state(T):
    m = T.nn.LazyLinear(4)
    with pytest.raises(RuntimeError, match=exact(
            'Error(s) in loading state_dict for LazyLinear:\n\tMissing key(s) in state_dict: "bias". ')):
        m.load_state_dict({"weight": T.zeros(4, 3)})
    # the weight was materialized by then, the bias was not
    assert type(m.weight) is T.nn.Parameter and type(m.bias) is T.nn.UninitializedParameter
    m = T.nn.LazyLinear(4)
    res = m.load_state_dict({"weight": T.zeros(4, 3)}, strict=False)
    assert res.missing_keys == ["bias"] and res.unexpected_keys == []
    with pytest.raises(AttributeError, match="'Parameter' object has no attribute 'materialize'"):
        m(_x(T, 2, 3))
    m = T.nn.LazyLinear(4)
    m.load_state_dict({"weight": T.zeros(4, 3), "bias": T.zeros(5)})    # (materialized as given)
    assert m.bias.shape == (5,)
    with pytest.raises(RuntimeError, match="Unexpected key"):
        T.nn.LazyLinear(4).load_state_dict({"weight": T.zeros(4, 3), "bias": T.zeros(4), "x": T.ones(1)})


def test_load_assign_into_lazy(T):
    ref = T.nn.Linear(3, 4)
    m = T.nn.LazyLinear(4)
    m.load_state_dict(ref.state_dict(), assign=True)
    assert type(m.weight) is T.nn.Parameter and m.weight.requires_grad and T.equal(m.weight, ref.weight)


# ---------------------------------------------------------------- copies
def test_deepcopy_and_pickle_before_first_call(T):
    m = T.nn.LazyLinear(4)
    c = copy.deepcopy(m)
    assert type(c) is T.nn.LazyLinear and type(c.weight) is T.nn.UninitializedParameter
    assert c(_x(T, 1, 2)).shape == (1, 4) and type(c) is T.nn.Linear
    # the original is untouched by its copy's first call, and has its own first call
    assert type(m) is T.nn.LazyLinear and len(m._forward_pre_hooks) == 1
    assert type(m.weight) is T.nn.UninitializedParameter
    assert m(_x(T, 1, 5)).shape == (1, 4) and m.weight.shape == (4, 5)
    u = pickle.loads(pickle.dumps(T.nn.LazyConv1d(2, 2)))
    assert type(u) is T.nn.LazyConv1d and type(u.weight) is T.nn.UninitializedParameter
    assert u(_x(T, 1, 3, 4)).shape == (1, 2, 3) and type(u) is T.nn.Conv1d
    p = pickle.loads(pickle.dumps(T.nn.LazyBatchNorm1d()))
    assert type(p.running_mean) is T.nn.UninitializedBuffer
    p(_x(T, 4, 3))
    assert type(p) is T.nn.BatchNorm1d and p.running_mean.shape == (3,)


def test_deepcopy_of_lazy_batch_norm():
    # (PyTorch 2.13 cannot deepcopy an uninitialised buffer: tensorplay can)
    b = tp.nn.LazyBatchNorm1d()
    c = copy.deepcopy(b)
    assert type(c.running_mean) is tp.nn.UninitializedBuffer and c.running_mean is not b.running_mean
    c(_x(tp, 4, 3))
    assert type(c) is tp.nn.BatchNorm1d and type(b) is tp.nn.LazyBatchNorm1d
