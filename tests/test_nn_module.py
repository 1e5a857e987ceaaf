"""``nn.Module`` and the containers: registration, traversal, state dicts,
modes, conversion, hooks, reprs.  Most tests run the same code on tensorplay
and torch (the ``T`` fixture), so PyTorch is the oracle for every behaviour
and message; messages name types with each library's own prefix."""
import copy
import re
from collections import OrderedDict

import numpy as np
import pytest

import tensorplay as tp

from conftest import assert_close, torch
from test_nn_layers import compare, randn, sync

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def _msg(T, text):
    """A message pattern with torch's type names spelled as library ``T`` spells them."""
    prefix = "tensorplay." if T is tp else "torch."
    return "^" + re.escape(text.replace("torch.FloatTensor", prefix + "FloatTensor")) + "$"


def _net(T):
    nn = T.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 4)
            self.block = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.LayerNorm(4))
            self.shared = self.block[0]                          # the same module twice
            self.scale = nn.Parameter(T.ones(1))
            self.register_buffer("steps", T.zeros(1))
            self.register_buffer("cache", T.zeros(2), persistent=False)

        def forward(self, x):
            return self.block(self.fc(x)) * self.scale

    return Net()


# ----------------------------------------------------------------- registration and traversal
def test_registration_and_traversal(T):
    m = _net(T)
    assert [n for n, _ in m.named_parameters()] == ["scale", "fc.weight", "fc.bias", "block.0.weight",
                                                    "block.0.bias", "block.2.weight", "block.2.bias"]
    assert len(list(m.named_parameters(remove_duplicate=False))) == 9
    assert [n for n, _ in m.named_buffers()] == ["steps", "cache"]
    assert [n for n, _ in m.named_children()] == ["fc", "block", "shared"]
    assert [n for n, _ in m.named_modules()] == ["", "fc", "block", "block.0", "block.1", "block.2"]
    assert [n for n, _ in m.named_modules(remove_duplicate=False)] == \
        ["", "fc", "block", "block.0", "block.1", "block.2", "shared"]
    assert [n for n, _ in m.named_parameters(recurse=False)] == ["scale"]
    assert [n for n, _ in m.named_parameters(prefix="net")][1] == "net.fc.weight"
    assert list(m.state_dict()) == ["scale", "steps", "fc.weight", "fc.bias", "block.0.weight",
                                    "block.0.bias", "block.2.weight", "block.2.bias", "shared.weight",
                                    "shared.bias"]
    assert m.get_submodule("block.2") is m.block[2]
    assert m.get_parameter("block.0.bias") is m.block[0].bias
    assert m.get_buffer("steps") is m.steps
    assert isinstance(m.scale, T.nn.Parameter) and m.scale.requires_grad
    del m.scale
    assert "scale" not in dict(m.named_parameters())
    m.extra = T.nn.Parameter(T.zeros(2))
    assert "extra" in m._parameters
    m.extra = None
    assert m._parameters["extra"] is None and m.extra is None
    m.steps = T.ones(1)                      # a tensor assigned to a buffer's name stays a buffer
    assert m._buffers["steps"].tolist() == [1.0]


def test_registration_errors(T):
    nn = T.nn
    m = nn.Linear(2, 3)
    errors = [
        (lambda: setattr(m, "weight", T.zeros(3, 2)), TypeError,
         "cannot assign 'torch.FloatTensor' as parameter 'weight' (torch.nn.Parameter or None expected)"),
        (lambda: m.register_buffer("weight", T.zeros(1)), KeyError, "\"attribute 'weight' already exists\""),
        (lambda: m.register_buffer("a.b", T.zeros(1)), KeyError, "'buffer name can\\'t contain \".\"'"),
        (lambda: m.register_buffer("x", 3), TypeError,
         "cannot assign 'int' object to buffer 'x' (torch Tensor or None required)"),
        (lambda: m.add_module("weight", nn.ReLU()), KeyError, "\"attribute 'weight' already exists\""),
        (lambda: m.add_module("a.b", nn.ReLU()), KeyError, "'module name can\\'t contain \".\", got: a.b'"),
        (lambda: m.add_module("q", 3), TypeError, "int is not a Module subclass"),
        (lambda: m.train(1), ValueError, "training mode is expected to be boolean"),
        (lambda: m.register_parameter("p", T.zeros(1)), TypeError,
         "cannot assign 'torch.FloatTensor' object to parameter 'p' (torch.nn.Parameter or None required)"),
        (lambda: m.nope, AttributeError, "'Linear' object has no attribute 'nope'"),
        (lambda: m.get_submodule("weight"), AttributeError, "`weight` is not an nn.Module"),
        (lambda: m.get_parameter("nope"), AttributeError, "Linear has no attribute `nope`"),
        (lambda: m.get_buffer("weight"), AttributeError, "`weight` is not a buffer"),
        (lambda: nn.Module()(1), NotImplementedError, 'Module [Module] is missing the required "forward" function'),
    ]
    for f, exc, text in errors:
        with pytest.raises(exc, match=_msg(T, text)):
            f()

    class Early(nn.Module):
        def __init__(self):
            self.p = nn.Parameter(T.zeros(1))
    with pytest.raises(AttributeError, match="^cannot assign parameters before Module.__init__\\(\\) call$"):
        Early()


def test_buffer_class_registers_a_buffer(T):
    m = T.nn.Module()
    m.b = T.nn.Buffer(T.ones(2))
    m.nb = T.nn.Buffer(T.ones(1), persistent=False)
    assert list(m.state_dict()) == ["b"] and [n for n, _ in m.named_buffers()] == ["b", "nb"]


# ----------------------------------------------------------------- state dicts
def test_state_dict_values_and_keep_vars(T):
    m = _net(T)
    sd = m.state_dict()
    assert not sd["fc.weight"].requires_grad
    assert np.shares_memory(sd["fc.weight"].numpy(), m.fc.weight.detach().numpy())
    assert m.state_dict(keep_vars=True)["fc.weight"] is m.fc.weight
    assert sd._metadata[""]["version"] == 1 and "block.0" in sd._metadata
    assert list(m.state_dict(prefix="p.")) [0] == "p.scale"


def test_load_state_dict_strict_and_errors(T):
    m = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.ReLU(), T.nn.Sequential(T.nn.Linear(3, 1)))
    r = m.load_state_dict(m.state_dict())
    assert repr(r) == "<All keys matched successfully>" and r.missing_keys == [] and r.unexpected_keys == []
    r = m.load_state_dict({"0.weight": T.ones(3, 2), "extra": T.zeros(1)}, strict=False)
    assert r.missing_keys == ["0.bias", "2.0.weight", "2.0.bias"] and r.unexpected_keys == ["extra"]
    assert m[0].weight.tolist() == [[1.0, 1.0]] * 3
    assert repr(r) == "_IncompatibleKeys(missing_keys=['0.bias', '2.0.weight', '2.0.bias'], " \
                      "unexpected_keys=['extra'])"
    size = "Size([3, 3])" if T is tp else "torch.Size([3, 3])"
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict({"0.weight": T.zeros(3, 3), "x": T.zeros(1)})
    text = str(info.value)
    assert text.startswith("Error(s) in loading state_dict for Sequential:\n\tMissing key(s) in state_dict: "
                           "\"0.bias\", \"2.0.weight\", \"2.0.bias\". \n\tUnexpected key(s) in state_dict: "
                           "\"x\". \n\tsize mismatch for 0.weight: copying a param with shape ")
    assert size in text and "the shape in current model is" in text
    before = m[0].weight.detach().clone()
    m.load_state_dict({"0.weight": T.full((3, 2), 2.0)}, strict=False, assign=True)
    assert m[0].weight.tolist() == [[2.0, 2.0]] * 3 and isinstance(m[0].weight, T.nn.Parameter)
    assert before.tolist() == [[1.0, 1.0]] * 3


def test_load_state_dict_copies_in_place_and_casts(T):
    lin = T.nn.Linear(2, 2)
    w = lin.weight
    lin.load_state_dict({"weight": T.ones(2, 2, dtype=T.float64), "bias": T.zeros(2, dtype=T.float64)})
    assert lin.weight is w and w.dtype == T.float32 and w.tolist() == [[1.0, 1.0]] * 2


@needs_torch
def test_state_dict_round_trips_with_torch():
    """A model of many layer kinds: tensorplay's state dict loads into torch's
    same architecture (same keys, same shapes) and back, and both compute the same."""
    def build(nn):
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(10, 6, padding_idx=0)
                self.lstm = nn.LSTM(6, 5, num_layers=2, bidirectional=True, batch_first=True)
                self.norm = nn.LayerNorm(10)
                self.bn = nn.BatchNorm1d(10)
                self.attn = nn.TransformerEncoderLayer(10, 2, 12, dropout=0.0, batch_first=True)
                self.head = nn.Sequential(nn.Linear(10, 7), nn.GELU(), nn.Linear(7, 3))

            def forward(self, idx):
                h = self.lstm(self.emb(idx))[0]
                h = self.attn(self.norm(h))
                h = self.bn(h.transpose(1, 2)).transpose(1, 2)
                return self.head(h)
        return Model()

    tp.manual_seed(0)
    m, tm = build(tp.nn).double(), build(torch.nn).double()
    sync(m, tm)                                   # tensorplay -> torch: same keys and shapes
    idx = np.array([[1, 2, 3, 0], [4, 4, 9, 1]])
    compare(m, tm, [lambda T: T.tensor(idx)], "float64")
    torch.manual_seed(1)
    other = build(torch.nn).double()              # torch -> tensorplay
    m.load_state_dict({k: tp.tensor(v.numpy()) for k, v in other.state_dict().items()})
    m.eval(), other.eval()
    m.zero_grad()
    compare(m, other, [lambda T: T.tensor(idx)], "float64")
    assert [k for k, _ in m.named_parameters()] == [k for k, _ in other.named_parameters()]


# ----------------------------------------------------------------- modes and conversion
def test_train_eval_zero_grad_apply_requires_grad(T):
    m = _net(T)
    assert m.training and m.block[2].training
    assert m.eval() is m and not m.block[2].training and not m.fc.training
    m.train()
    m(T.ones(2, 3)).sum().backward()
    assert m.fc.weight.grad is not None
    m.zero_grad(set_to_none=False)
    assert m.fc.weight.grad.abs().sum().item() == 0
    m.zero_grad()
    assert m.fc.weight.grad is None
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "Linear", "ReLU", "LayerNorm", "Sequential", "Linear", "Net"]
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_to_dtype_keeps_parameter_objects(T):
    bn = T.nn.BatchNorm1d(3)
    w = bn.weight
    bn(T.ones(4, 3)).sum().backward()
    bn.double()
    assert bn.weight is w and w.dtype == T.float64 and w.grad.dtype == T.float64
    assert bn.running_mean.dtype == T.float64 and bn.num_batches_tracked.dtype == T.int64
    assert bn.to(T.float32).weight.dtype == T.float32
    assert bn.half().weight.dtype == T.float16 and bn.float().running_var.dtype == T.float32
    assert bn.to("cpu") is bn and bn.to(T.zeros(1, dtype=T.float64)).weight.dtype == T.float64
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex dtypes"):
        bn.to(T.int64)


def test_deepcopy_gives_independent_parameters(T):
    m = _net(T)
    c = copy.deepcopy(m)
    assert c.fc.weight is not m.fc.weight and c.fc.weight.tolist() == m.fc.weight.tolist()
    assert c.shared is c.block[0]                # sharing is kept inside the copy
    with T.no_grad():
        c.fc.weight.fill_(3.0)
    assert m.fc.weight.abs().max().item() < 3


# ----------------------------------------------------------------- reprs
def test_reprs(T):
    class Custom(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = T.nn.ModuleList([T.nn.Linear(2, 2) for _ in range(3)] + [T.nn.ReLU()])
            self.d = T.nn.ModuleDict({"a": T.nn.Tanh()})

        def extra_repr(self):
            return "k=1\nj=2"
    want = ("Custom(\n  k=1\n  j=2\n  (inner): ModuleList(\n    (0-2): 3 x Linear(in_features=2, "
            "out_features=2, bias=True)\n    (3): ReLU()\n  )\n  (d): ModuleDict(\n    (a): Tanh()\n  )\n)")
    assert repr(Custom()) == want
    pl = T.nn.ParameterList([T.nn.Parameter(T.zeros(2, 3)), T.nn.Parameter(T.zeros(2, dtype=T.float64))])
    name = "tensorplay" if T is tp else "torch"
    assert repr(pl) == f"ParameterList(\n    (0): Parameter containing: [{name}.float32 of size 2x3]\n" \
                       f"    (1): Parameter containing: [{name}.float64 of size 2]\n)"
    pd = T.nn.ParameterDict({"a": T.nn.Parameter(T.zeros(2))})
    assert repr(pd) == f"ParameterDict(  (a): Parameter containing: [{name}.FloatTensor of size 2])"


# ----------------------------------------------------------------- containers
def test_sequential(T):
    nn = T.nn
    a, b, c = nn.Linear(2, 2), nn.ReLU(), nn.Tanh()
    s = nn.Sequential(a, b)
    assert s[0] is a and s[-1] is b and len(s) == 2
    assert isinstance(s[0:1], nn.Sequential) and list(s[0:1]) == [a]
    s.append(c)
    assert list(s) == [a, b, c] and s[2] is c
    s.insert(1, nn.Identity())
    assert [type(x).__name__ for x in s] == ["Linear", "Identity", "ReLU", "Tanh"]
    del s[1]
    assert list(s) == [a, b, c] and list(s._modules) == ["0", "1", "2"]
    assert s.pop(1) is b and list(s) == [a, c]
    s2 = s + nn.Sequential(nn.Sigmoid())
    assert len(s2) == 3
    s[1] = b
    assert s[1] is b
    named = nn.Sequential(OrderedDict([("lin", a), ("act", b)]))
    assert named.lin is a and list(named.state_dict()) == ["lin.weight", "lin.bias"]
    with pytest.raises(IndexError, match="^index 5 is out of range$"):
        s[5]
    x = T.ones(1, 2)
    assert named(x).tolist() == b(a(x)).tolist()


def test_module_list_and_dict(T):
    nn = T.nn
    ml = nn.ModuleList([nn.Linear(1, 1), nn.ReLU()])
    ml.append(nn.Tanh())
    ml.extend([nn.Sigmoid()])
    ml.insert(0, nn.Identity())
    assert [type(x).__name__ for x in ml] == ["Identity", "Linear", "ReLU", "Tanh", "Sigmoid"]
    assert len(list(ml.parameters())) == 2 and isinstance(ml[1:3], nn.ModuleList)
    del ml[0]
    assert type(ml[0]).__name__ == "Linear" and list(ml._modules) == ["0", "1", "2", "3"]
    with pytest.raises(IndexError, match="^index 7 is out of range$"):
        ml[7]
    md = nn.ModuleDict({"a": nn.ReLU()})
    md["b"] = nn.Linear(1, 2)
    md.update([("c", nn.Tanh())])
    assert list(md.keys()) == ["a", "b", "c"] and "b" in md and len(md) == 3
    assert md.pop("a").__class__.__name__ == "ReLU" and list(md) == ["b", "c"]
    assert [n for n, _ in md.named_parameters()] == ["b.weight", "b.bias"]


def test_parameter_list_and_dict(T):
    nn = T.nn
    pl = nn.ParameterList([T.zeros(2), nn.Parameter(T.ones(1))])
    pl.append(T.ones(3))
    assert all(isinstance(p, nn.Parameter) for p in pl) and len(pl) == 3
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    assert pl[-1].shape == (3,)
    pd = nn.ParameterDict({"w": T.ones(2)})
    pd["b"] = nn.Parameter(T.zeros(1))
    assert list(pd.keys()) == ["w", "b"] and isinstance(pd["w"], nn.Parameter)
    assert [n for n, _ in pd.named_parameters()] == ["w", "b"]
    assert pd.pop("w").shape == (2,) and list(pd) == ["b"]


# ----------------------------------------------------------------- hooks
def test_forward_hooks(T):
    lin = T.nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
    h2 = lin.register_forward_hook(lambda m, args, out: out + 1)
    h3 = lin.register_forward_hook(lambda m, args, out: calls.append("first"), prepend=True)
    h4 = lin.register_forward_pre_hook(lambda m, args, kwargs: (args, kwargs), with_kwargs=True)
    h5 = lin.register_forward_hook(lambda m, args, kwargs, out: calls.append(sorted(kwargs)),
                                   with_kwargs=True)
    x = T.ones(1, 2)
    with T.no_grad():
        want = (x * 2) @ lin.weight.t() + lin.bias + 1
    assert_close(lin(x).detach().numpy(), want.numpy())
    assert calls == ["first", []]
    for h in (h1, h2, h3, h4, h5):
        h.remove()
    with T.no_grad():
        assert_close(lin(x).numpy(), (x @ lin.weight.t() + lin.bias).numpy())
    with lin.register_forward_hook(lambda m, a, o: o * 0):
        assert lin(x).abs().sum().item() == 0
    assert lin(x).abs().sum().item() > 0


def test_forward_hook_always_call(T):
    class Boom(T.nn.Module):
        def forward(self, x):
            raise ValueError("boom")
    seen = []
    m = Boom()
    m.register_forward_hook(lambda mod, args, out: seen.append(out), always_call=True)
    with pytest.raises(ValueError, match="boom"):
        m(T.ones(1))
    assert seen == [None]


def _hooked_run(T, x_requires_grad=True):
    T.manual_seed(0)
    mlp = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh())
    with T.no_grad():
        mlp[0].weight.copy_(T.tensor(randn(0, 4, 3), dtype=T.float32))
        mlp[0].bias.copy_(T.tensor(randn(3, 4), dtype=T.float32))
    record = {}

    def hook(mod, grad_input, grad_output):
        record["gi"] = [None if g is None else g.detach().numpy().copy() for g in grad_input]
        record["go"] = [g.detach().numpy().copy() for g in grad_output]
        if grad_input[0] is not None:
            return (grad_input[0] * 10,)

    def pre(mod, grad_output):
        record["pre"] = grad_output[0].detach().numpy().copy()
        return (grad_output[0] * 2,)
    mlp.register_full_backward_hook(hook)
    mlp.register_full_backward_pre_hook(pre)
    x = T.tensor(randn(1, 2, 3).astype(np.float32), requires_grad=x_requires_grad)
    y = mlp(x)
    g = T.tensor(randn(2, 2, 4).astype(np.float32))
    if x_requires_grad:
        y.backward(g)
    else:
        with pytest.warns(UserWarning, match="^Full backward hook is firing when gradients are computed "
                                             "with respect to module outputs since no inputs require"):
            y.backward(g)
    return record, (x.grad.numpy() if x_requires_grad else None), mlp[0].weight.grad.numpy()


@needs_torch
@pytest.mark.parametrize("x_requires_grad", [True, False])
def test_full_backward_hooks_match_torch(x_requires_grad):
    rec, xg, wg = _hooked_run(tp, x_requires_grad)
    trec, txg, twg = _hooked_run(torch, x_requires_grad)
    assert_close(rec["pre"], trec["pre"])
    assert_close(rec["go"][0], trec["go"][0])                # after the pre-hook doubled it
    assert [g is None for g in rec["gi"]] == [g is None for g in trec["gi"]]
    if x_requires_grad:
        assert_close(rec["gi"][0], trec["gi"][0])
        assert_close(xg, txg)                                 # scaled by the hook's 10
    assert_close(wg, twg)


def test_full_backward_hook_without_torch():
    rec, xg, wg = _hooked_run(tp)
    assert_close(rec["go"][0], 2 * rec["pre"])
    assert_close(xg, 10 * rec["gi"][0])
    with pytest.raises(RuntimeError, match="Backward hook returned an invalid number of grad_input, "
                                           "got 2, but expected 1"):
        lin = tp.nn.Linear(2, 2)
        lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
        lin(tp.ones(1, 2, requires_grad=True)).sum().backward()


def _double_backward_hook_run(T):
    """``autograd.grad(create_graph=True)`` then a backward through that gradient: the
    second pass runs through the module's output again (tanh's double backward reads it)."""
    lin = T.nn.Linear(3, 2).double()
    with T.no_grad():
        lin.weight.copy_(T.tensor(randn(5, 2, 3)))
        lin.bias.copy_(T.tensor(randn(6, 2)))
    calls = []

    def hook(mod, grad_input, grad_output):
        calls.append(("full", [None if g is None else g.detach().numpy().copy() for g in grad_input],
                      [g.detach().numpy().copy() for g in grad_output]))
    lin.register_full_backward_hook(hook)
    lin.register_full_backward_pre_hook(lambda mod, go: calls.append(("pre", go[0].detach().numpy().copy())))
    x = T.tensor(randn(7, 1, 3), requires_grad=True)
    w2, c = T.tensor(randn(8, 2)), T.tensor(randn(9, 1, 3))
    g, = T.autograd.grad((lin(x).tanh() * w2).sum(), x, create_graph=True)
    first = list(calls)
    calls.clear()
    (g * c).sum().backward()
    return lin, x, w2, c, first, calls


@needs_torch
def test_full_backward_hooks_fire_again_in_a_double_backward_as_in_torch():
    *_, first, second = _double_backward_hook_run(tp)
    *_, tfirst, tsecond = _double_backward_hook_run(torch)
    for got, want in ((first, tfirst), (second, tsecond)):
        assert [c[0] for c in got] == [c[0] for c in want] == ["pre", "full"]
        assert_close(got[0][1], want[0][1])
        for a, b in zip(got[1][1] + got[1][2], want[1][1] + want[1][2]):
            assert_close(a, b)


def test_full_backward_hook_values_in_a_double_backward():
    lin, x, w2, c, first, second = _double_backward_hook_run(tp)
    W, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    t = np.tanh(x.detach().numpy() @ W.T + b)
    w2, c = w2.numpy(), c.numpy()
    go1 = w2 * (1 - t ** 2)                                  # d/dz of sum(w2 tanh z)
    go2 = w2 * -2 * t * (1 - t ** 2) * (c @ W.T)             # d/dz of c . (W^T go1(z))
    for calls, go in ((first, go1), (second, go2)):
        assert [k[0] for k in calls] == ["pre", "full"]
        assert_close(calls[0][1], go, atol=1e-12, rtol=1e-10)
        assert_close(calls[1][2][0], go, atol=1e-12, rtol=1e-10)
        assert_close(calls[1][1][0], go @ W, atol=1e-12, rtol=1e-10)


def test_global_full_backward_hooks(T):
    """``nn.modules.module.register_module_full_backward_(pre_)hook``: every module's,
    run before the module's own."""
    from importlib import import_module
    mod = import_module(T.__name__ + ".nn.modules.module")
    seq = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.Tanh())
    calls = []
    seq[0].register_full_backward_hook(lambda m, gi, go: calls.append("own"))
    seq[0].register_full_backward_pre_hook(lambda m, go: calls.append("own pre"))
    h1 = mod.register_module_full_backward_hook(lambda m, gi, go: calls.append(type(m).__name__))
    h2 = mod.register_module_full_backward_pre_hook(
        lambda m, go: calls.append("pre " + type(m).__name__) or (go[0] * 3,))
    try:
        x = T.ones(1, 2, requires_grad=True)
        seq(x).sum().backward()
    finally:
        h1.remove(), h2.remove()
    assert calls == ["pre Sequential", "pre Tanh", "Tanh", "pre Linear", "own pre", "Linear", "own",
                     "Sequential"]
    x2 = T.ones(1, 2, requires_grad=True)
    seq(x2).sum().backward()                                 # removed: only the module's own
    assert calls[8:] == ["own pre", "own"]
    # each of the three global pre-hooks tripled the gradient on its way
    assert_close(x.grad.numpy(), 27 * x2.grad.numpy(), atol=1e-6, rtol=1e-6)


def test_state_dict_and_load_hooks(T):
    lin = T.nn.Linear(2, 2)
    seen = []
    lin.register_load_state_dict_post_hook(lambda m, keys: seen.append(list(keys.missing_keys)))
    lin.load_state_dict({"weight": T.zeros(2, 2)}, strict=False)
    assert seen == [["bias"]]


def _record_call(mod, i, o):
    _CALLS.append(mod)


_CALLS = []


def test_a_hook_handle_copied_with_its_module_removes_the_copys_hook():
    """A handle kept on the module is copied with it (deepcopy, pickle) and
    then refers to the copy's hooks, as PyTorch's does."""
    import pickle
    m = tp.nn.Linear(2, 2)
    m.handle = m.register_forward_hook(_record_call)
    for c in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        c.handle.remove()
        c(tp.ones(2))
        m(tp.ones(2))
        assert _CALLS == [m]        # the copy's hook is gone, the original's still runs
        _CALLS.clear()


def test_state_dict_hooks_write_into_the_saved_metadata():
    """A state-dict hook's local metadata is the dict saved in ``_metadata`` (the
    old spectral norm records its version there, as in PyTorch)."""
    m = tp.nn.utils.spectral_norm(tp.nn.Linear(3, 2))
    assert m.state_dict()._metadata[""] == {"version": 1, "spectral_norm": {"weight.version": 1}}
