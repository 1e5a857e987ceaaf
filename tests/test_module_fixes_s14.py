"""Regressions for the nn.Module review of this session: recurrent layers with
parametrized / weight-normed / pruned weights, module backward hooks under the
function transforms, functional_call's strict check with tied weights, global
forward hooks with kwargs and always_call, zeros (not None) for an input
gradient that did not arrive, and PyTorch's refusals (integer data on a tensor
that requires grad, Buffer before __init__, set_submodule of a non-module,
state_dict post-hooks that return a value, legacy and full backward hooks
together, Bilinear without input features)."""
import importlib

import numpy as np
import pytest

from conftest import assert_close, exact, lst


def _rnn_input(T):
    return T.tensor(np.random.default_rng(0).standard_normal((3, 2, 2)))


@pytest.mark.filterwarnings("ignore:.*weight_norm. is deprecated:FutureWarning")
@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("how", ["parametrizations.weight_norm", "weight_norm", "spectral_norm",
                                 "prune"])
def test_recurrent_layers_take_reparametrized_weights(T, cls, how):
    T.manual_seed(0)
    m = getattr(T.nn, cls)(2, 3).double()
    x = _rnn_input(T)
    ref = m(x)[0].detach()
    if how == "prune":
        importlib.import_module(T.__name__ + ".nn.utils.prune").identity(m, "weight_hh_l0")
    elif how == "parametrizations.weight_norm":
        T.nn.utils.parametrizations.weight_norm(m, "weight_hh_l0")
    else:
        getattr(T.nn.utils, how)(m, "weight_hh_l0")
    out = m(x)[0]
    if how != "spectral_norm":          # (spectral_norm changes the weight's scale)
        assert_close(lst(out), lst(ref), atol=1e-10)
    out.sum().backward()
    names = [n for n, p in m.named_parameters() if "hh_l0" in n and p.grad is not None]
    assert names                        # the gradient reaches the reparametrized weight's parameters


def test_module_backward_hooks_under_transforms(T):
    T.manual_seed(0)
    lin = T.nn.Linear(2, 2).double()
    seen = []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append(1))
    x = T.tensor(np.random.default_rng(1).standard_normal((3, 2)))
    v = T.func.vmap(lin)(x)
    assert_close(lst(v), lst(lin(x)), atol=1e-12)
    J = T.func.jacfwd(lin)(x[0])
    assert_close(lst(J), lst(lin.weight), atol=1e-12)
    _, t = T.func.jvp(lin, (x[0],), (T.ones(2, dtype=T.float64),))
    assert_close(lst(t), lst(lin.weight.sum(1)), atol=1e-12)
    lin(x.requires_grad_()).sum().backward()
    assert seen                         # the hook still runs in a plain backward


def test_full_backward_hook_gets_zeros_for_a_gradient_that_did_not_arrive(T):
    class Two(T.nn.Module):
        def forward(self, x, y):
            return x * y, y.exp()
    m = Two()
    got = []
    m.register_full_backward_hook(lambda mod, gi, go: got.append(gi))
    x = T.ones(2, requires_grad=True)
    y = T.ones(2, requires_grad=True)
    m(x, y)[1].sum().backward()
    assert lst(got[0][0]) == [0.0, 0.0] and lst(x.grad) == [0.0, 0.0]


def test_functional_call_strict_counts_a_tied_name_given_for_all(T):
    m = T.nn.Sequential(T.nn.Linear(2, 2, bias=False), T.nn.Linear(2, 2, bias=False))
    m[1].weight = m[0].weight
    out = T.func.functional_call(m, {"0.weight": T.eye(2)}, (T.ones(1, 2),), strict=True)
    assert lst(out) == [[1.0, 1.0]]
    out = T.func.functional_call(m, {"1.weight": T.eye(2) * 2}, (T.ones(1, 2),), strict=True)
    assert lst(out) == [[4.0, 4.0]]
    with pytest.raises(RuntimeError, match="Missing key"):
        T.func.functional_call(m, {"0.weight": T.eye(2)}, (T.ones(1, 2),), strict=True,
                               tie_weights=False)


def test_global_forward_hook_with_kwargs_and_always_call(T):
    mm = importlib.import_module(T.__name__ + ".nn.modules.module")
    log = []
    h = mm.register_module_forward_hook(lambda m, a, kw, o: log.append(sorted(kw)), with_kwargs=True)

    class M(T.nn.Module):
        def forward(self, x, k=None):
            return x
    try:
        M()(T.ones(1), k=2)
    finally:
        h.remove()
    assert log == [["k"]]

    class Bad(T.nn.Module):
        def forward(self, x):
            raise ValueError("boom")
    h = mm.register_module_forward_hook(lambda m, a, o: log.append("always"), always_call=True)
    try:
        with pytest.raises(ValueError, match="boom"):
            Bad()(T.ones(1))
    finally:
        h.remove()
    assert log[-1] == "always"
    with pytest.raises(ValueError):
        Bad()(T.ones(1))
    assert log.count("always") == 1     # removed: it runs no more


@pytest.mark.parametrize("make,err,msg", [
    (lambda T: T.nn.Linear(2, 2).type(T.int32), RuntimeError,
     "data set to a tensor that requires gradients must be floating point or complex dtype"),
    (lambda T: T.nn.Sequential(T.nn.ReLU()).set_submodule("0", 3), ValueError,
     "`module` is not an nn.Module, found <class 'int'>"),
    (lambda T: T.nn.Bilinear(0, 2, 3), ValueError, "in1_features must be > 0, but got (in1_features=0)"),
])
def test_module_refusals(T, make, err, msg):
    with pytest.raises(err, match=exact(msg)):
        make(T)


def test_buffer_before_init(T):
    class A(T.nn.Module):
        def __init__(self):
            self.b = T.nn.Buffer(T.ones(1))
            super().__init__()
    with pytest.raises(AttributeError, match=exact("cannot assign buffer before Module.__init__() call")):
        A()


def test_state_dict_post_hook_must_return_none(T):
    m = T.nn.Linear(1, 1)
    m.register_state_dict_post_hook(lambda *a: {})
    with pytest.raises(RuntimeError, match=exact("state_dict post-hook must return None")):
        m.state_dict()
    m2 = T.nn.Linear(1, 1)
    m2.register_state_dict_post_hook(lambda mod, sd, prefix, meta: sd.pop(prefix + "bias"))
    with pytest.raises(RuntimeError):   # (returns the popped tensor: not None)
        m2.state_dict()


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_legacy_and_full_backward_hooks_exclude_each_other(T):
    msg = ("Cannot use both regular backward hooks and full backward hooks on a single Module. Please "
           "use only one of them.")
    m = T.nn.Tanh()
    m.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match=exact(msg)):
        m.register_backward_hook(lambda *a: None)
    m = T.nn.Tanh()
    m.register_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match=exact(msg)):
        m.register_full_backward_hook(lambda *a: None)
