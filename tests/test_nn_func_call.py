"""``func.functional_call`` and ``func.stack_module_state`` (against
``torch.func`` where torch is installed)."""
import numpy as np
import pytest

import tensorplay as tp
import tensorplay.nn as nn
from tensorplay.func import functional_call, grad

from conftest import assert_close, torch
from test_nn_layers import randn, sync

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def _mlp(nn_mod):
    return nn_mod.Sequential(nn_mod.Linear(3, 4), nn_mod.Tanh(), nn_mod.Linear(4, 2))


def test_grad_of_functional_call_equals_backward():
    """grad(lambda p: loss(functional_call(model, p, (x,))))(dict(model.named_parameters()))."""
    tp.manual_seed(0)
    model = _mlp(nn).double()
    x, y = tp.tensor(randn(0, 5, 3)), tp.tensor(randn(1, 5, 2))
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p):
        return ((functional_call(model, p, (x,)) - y) ** 2).mean()
    g = grad(loss)(params)
    ((model(x) - y) ** 2).mean().backward()
    assert list(g) == [k for k, _ in model.named_parameters()]
    for k, p in model.named_parameters():
        assert_close(g[k].numpy(), p.grad.numpy(), 1e-14, 1e-12)
    assert isinstance(model[0].weight, tp.nn.Parameter)           # the originals are back


def test_functional_call_uses_given_values_and_restores(T):
    T.manual_seed(0)
    lin = T.nn.Linear(2, 1)
    w = lin.weight
    out = T.func.functional_call(lin, {"weight": T.ones(1, 2), "bias": T.zeros(1)}, (T.tensor([[1., 2.]]),))
    assert out.tolist() == [[3.0]]
    assert lin.weight is w
    # a partial dict keeps the module's own tensors for the others
    out = T.func.functional_call(lin, {"bias": T.full((1,), 10.0)}, T.zeros(1, 2))
    assert out.tolist() == [[10.0]]
    # a sequence of dicts, kwargs, buffers
    bn = T.nn.BatchNorm1d(2).eval()
    out = T.func.functional_call(bn, ({"running_mean": T.ones(2)}, {"running_var": T.full((2,), 4.0)}),
                                 args=(), kwargs={"input": T.full((1, 2), 3.0)})
    assert_close(out.detach().numpy(), np.full((1, 2), 2 / np.sqrt(4 + 1e-5)), 1e-6, 1e-6)
    assert bn.running_mean.tolist() == [0.0, 0.0]


def test_functional_call_restores_after_an_exception(T):
    lin = T.nn.Linear(2, 1)
    w = lin.weight
    with pytest.raises(RuntimeError):
        T.func.functional_call(lin, {"weight": T.ones(1, 5)}, (T.zeros(1, 2),))
    assert lin.weight is w


def test_functional_call_errors(T):
    lin = T.nn.Linear(2, 1)
    with pytest.raises(RuntimeError, match="^Error\\(s\\) in reparametrizing for Linear:\n\tUnexpected "
                                           "key\\(s\\): 'foo'.\n\tMissing key\\(s\\): 'bias'.$"):
        T.func.functional_call(lin, {"weight": T.ones(1, 2), "foo": T.ones(1)}, (T.zeros(1, 2),),
                               strict=True)
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        T.func.functional_call(lin, ({"bias": T.ones(1)}, {"bias": T.ones(1)}), (T.zeros(1, 2),))
    with pytest.raises(ValueError, match="^Expected parameter_and_buffer_dicts to be a dict, or a list/tuple "
                                         "of dicts, but got <class 'int'>$"):
        T.func.functional_call(lin, 3, (T.zeros(1, 2),))


def test_functional_call_tied_weights(T):
    class Tied(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = T.nn.Linear(2, 2, bias=False)
            self.b = T.nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))
    m = Tied()
    x = T.ones(1, 2)
    eye = T.eye(2)
    assert T.func.functional_call(m, {"a.weight": eye * 2}, (x,)).tolist() == [[4.0, 4.0]]
    untied = T.func.functional_call(m, {"a.weight": eye * 2}, (x,), tie_weights=False)
    with T.no_grad():
        want = (x @ (eye * 2).t()) @ m.a.weight.t()
    assert_close(untied.detach().numpy(), want.numpy())
    with pytest.raises(ValueError, match="which are tied"):
        T.func.functional_call(m, {"a.weight": eye, "b.weight": eye * 3}, (x,))


@needs_torch
def test_functional_call_matches_torch_func():
    tp.manual_seed(0)
    m, tm = _mlp(nn).double(), _mlp(torch.nn).double()
    sync(m, tm)
    vals = {k: randn(i, *v.shape) for i, (k, v) in enumerate(m.named_parameters())}
    x = randn(9, 4, 3)
    out = functional_call(m, {k: tp.tensor(v) for k, v in vals.items()}, (tp.tensor(x),))
    tout = torch.func.functional_call(tm, {k: torch.tensor(v) for k, v in vals.items()}, (torch.tensor(x),))
    assert_close(out.detach().numpy(), tout.detach().numpy(), 1e-12, 1e-10)


def test_stack_module_state(T):
    T.manual_seed(0)
    models = [T.nn.Sequential(T.nn.Linear(3, 2), T.nn.BatchNorm1d(2)) for _ in range(4)]
    params, buffers = T.func.stack_module_state(models)
    assert list(params) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert tuple(params["0.weight"].shape) == (4, 2, 3)
    assert params["0.weight"].is_leaf and params["0.weight"].requires_grad
    assert_close(params["0.weight"][2].detach().numpy(), models[2][0].weight.detach().numpy(), 0, 0)
    assert list(buffers) == ["1.running_mean", "1.running_var", "1.num_batches_tracked"]
    assert not buffers["1.running_mean"].requires_grad and buffers["1.num_batches_tracked"].dtype == T.int64
    # each ensemble member through functional_call with its slice (vmap does this in one call)
    x = T.ones(5, 3)
    for i, m in enumerate(models):
        p = {k: v[i] for k, v in params.items()}
        b = {k: v[i] for k, v in buffers.items()}
        assert_close(T.func.functional_call(m, (p, b), (x,)).detach().numpy(), m(x).detach().numpy(), 1e-6, 1e-6)
    with pytest.raises(RuntimeError, match="^stack_module_state: Expected at least one model, got 0.$"):
        T.func.stack_module_state([])
    models[1].eval()
    with pytest.raises(RuntimeError, match="same training/eval mode"):
        T.func.stack_module_state(models)
    with pytest.raises(RuntimeError, match="^stack_module_state: Expected all models to be of the same class.$"):
        T.func.stack_module_state([T.nn.Linear(1, 1), T.nn.Bilinear(1, 1, 1)])
    a, b = T.nn.Linear(1, 1), T.nn.Linear(1, 1)
    b.weight.requires_grad_(False)
    with pytest.raises(RuntimeError, match="^Expected weight from each model to have the same .requires_grad$"):
        T.func.stack_module_state([a, b])
