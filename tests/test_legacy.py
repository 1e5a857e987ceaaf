"""The legacy autograd API: the examples of the oneflow.autograd document (001)
and of the old torch.autograd document (002, PyTorch <= 0.3: ``Variable``,
``volatile``, ``retain_variables``, ``only_inputs``, ``reinforce``), written
out here as the documents give them, plus ``reinforce``'s REINFORCE estimator
checked statistically."""
import itertools
import re
import warnings

import numpy as np
import pytest

import tensorplay as tp
from conftest import torch

torch_ = tp            # the documents' ``torch`` is tensorplay here
Variable = tp.autograd.Variable
Function = tp.autograd.Function

REWARD_MSG = "differentiating stochastic functions requires providing a reward"


# ------------------------------------------------------------------ 001: oneflow.autograd
class Exp(Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result


def test_001_function_example_apply_and_call():
    input = tp.tensor([0., 1., 2.], requires_grad=True)
    # 通过调用 apply 函数或 __call__ 函数来使用
    output = Exp.apply(input)  # output = Exp()(input)
    output.sum().backward()
    np.testing.assert_allclose(input.grad.numpy(), np.exp([0., 1., 2.]), rtol=1e-6)
    assert type(output.grad_fn).__name__ == "ExpBackward"
    input.grad = None
    output = Exp()(input)
    output.sum().backward()
    np.testing.assert_allclose(input.grad.numpy(), np.exp([0., 1., 2.]), rtol=1e-6)


def test_001_backward_signature():
    # backward(tensors, grad_tensors, retain_graph=False, create_graph=False)
    x = tp.tensor([1., 2.], requires_grad=True)
    y = x * x
    tp.autograd.backward(y, tp.tensor([1., 1.]), retain_graph=True)
    assert x.grad.tolist() == [2., 4.]
    tp.autograd.backward([y], [tp.tensor([1., 0.])], retain_graph=False, create_graph=False)
    assert x.grad.tolist() == [4., 4.]
    # non-scalar tensors need grad_tensors
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        tp.autograd.backward(x * x)
    # create_graph: the gradient has a graph of its own
    x.grad = None
    tp.autograd.backward((x ** 3).sum(), create_graph=True)
    assert x.grad.requires_grad
    x.grad = None


def test_001_grad_signature():
    # grad(outputs, inputs, grad_outputs=None, retain_graph=False, create_graph=False) -> Tuple
    x = tp.tensor([1., 2.], requires_grad=True)
    y = x * x
    g = tp.autograd.grad([y], [x], [tp.tensor([1., 1.])], retain_graph=True, create_graph=True)
    assert isinstance(g, tuple) and g[0].tolist() == [2., 4.] and g[0].requires_grad
    assert x.grad is None                       # grad returns, it does not accumulate
    g2, = tp.autograd.grad(g[0].sum(), x)
    assert g2.tolist() == [2., 2.]


# ------------------------------------------------------------------ 002: backward / grad
def test_002_backward_variables_grad_variables_retain_variables():
    # torch.autograd.backward(variables, grad_variables, retain_variables=False)
    x = Variable(torch_.Tensor([1, 2]), requires_grad=True)
    y = x * x
    with pytest.warns(FutureWarning, match="'retain_variables' is deprecated"):
        tp.autograd.backward([y], [torch_.Tensor([1, 1])], retain_variables=True)
    assert x.grad.tolist() == [2., 4.]
    with pytest.warns(FutureWarning):
        tp.autograd.backward(variables=[y], grad_variables=[torch_.Tensor([1, 1])],
                             retain_variables=False)
    assert x.grad.tolist() == [4., 8.]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        tp.autograd.backward([y], [torch_.Tensor([1, 1])])


def test_002_grad_variables_warning_and_conflict_like_torch():
    for T in [tp] + ([torch] if torch is not None else []):
        x = T.tensor([1., 2.], requires_grad=True)
        with pytest.warns(FutureWarning, match=re.escape("`grad_variables` is deprecated. Use "
                                                         "`grad_tensors` instead.")):
            T.autograd.backward([x * 2], grad_variables=[T.ones(2)])
        assert x.grad.tolist() == [2., 2.]
        with pytest.warns(FutureWarning), pytest.raises(RuntimeError, match=re.escape(
                "`grad_tensors` and `grad_variables` (deprecated) arguments both passed to "
                "`backward()`. Please only use `grad_tensors`.")):
            T.autograd.backward([x * 2], grad_tensors=[T.ones(2)], grad_variables=[T.ones(2)])


def test_002_variables_and_tensors_both_given():
    x = tp.tensor([1.], requires_grad=True)
    with pytest.warns(FutureWarning), pytest.raises(RuntimeError, match="'tensors' and 'variables'"):
        tp.autograd.backward(x * 2, variables=x * 2)
    with pytest.raises(TypeError):
        tp.autograd.backward()


def test_002_retain_variables_is_retain_graph():
    x = tp.tensor(2., requires_grad=True)
    y = x * x
    with pytest.warns(FutureWarning):
        y.backward(retain_variables=True)
    y.backward()                               # the graph was kept once
    assert x.grad.item() == 8.
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()
    # an explicit retain_graph wins over the old name
    y = x * x
    with pytest.warns(FutureWarning):
        y.backward(retain_graph=True, retain_variables=False)
    y.backward()


def test_002_grad_only_inputs():
    # grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=None, only_inputs=True)
    x = Variable(torch_.Tensor([3]), requires_grad=True)
    w = Variable(torch_.Tensor([2]), requires_grad=True)
    y = x * w
    g, = tp.autograd.grad([y], [x], None, True, False, True)
    assert g.tolist() == [2.]
    with pytest.warns(FutureWarning, match="only_inputs argument is deprecated and is ignored now"):
        g, = tp.autograd.grad([y], [x], only_inputs=False)
    assert g.tolist() == [2.]
    assert w.grad is None and x.grad is None     # ignored, as in PyTorch 2.x: nothing accumulates


def test_002_only_inputs_warning_matches_torch():
    if torch is None:
        pytest.skip("torch not installed")
    msgs = []
    for T in (tp, torch):
        x = T.tensor([1.], requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            T.autograd.grad([x * 2], [x], only_inputs=False)
        msgs.append([(x.category, str(x.message)) for x in w])
    assert msgs[0] == msgs[1]


# ------------------------------------------------------------------ 002: Variable
def test_002_variable_wraps_a_tensor():
    data = torch_.Tensor([1, 2, 3])
    v = Variable(data)
    assert isinstance(v, tp.Tensor) and isinstance(v, Variable) and isinstance(data, Variable)
    assert not v.requires_grad and v.is_leaf and v.grad_fn is None and v.grad is None
    assert v.data.tolist() == [1., 2., 3.]
    v.data[0] = 5.                              # data shares memory with the wrapped tensor
    assert data.tolist() == [5., 2., 3.]
    v = Variable(data, requires_grad=True)      # keyword, as the document says
    assert v.requires_grad and v.is_leaf
    assert Variable(data, True).requires_grad   # PyTorch 2.x also takes it positionally
    assert Variable().shape == (0,)


def test_002_variable_of_a_non_leaf_is_a_new_leaf():
    x = tp.tensor([1.], requires_grad=True)
    y = x * 2
    v = Variable(y)
    assert v.grad_fn is None and v.is_leaf and not v.requires_grad
    v = Variable(y, requires_grad=True)
    (v * 3).sum().backward()
    assert v.grad.tolist() == [3.] and x.grad is None


def test_002_variable_errors_like_torch():
    for T in [tp] + ([torch] if torch is not None else []):
        V = T.autograd.Variable
        with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
            V([1., 2.])
        with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype "
                                               "can require gradients"):
            V(T.tensor([1, 2]), requires_grad=True)


def test_002_volatile_is_accepted_and_has_no_effect():
    for T in [tp] + ([torch] if torch is not None else []):
        a = T.tensor([1., 2.])
        with pytest.warns(UserWarning, match=re.escape("volatile was removed and now has no effect. "
                                                       "Use `with torch.no_grad():` instead.")):
            v = T.autograd.Variable(a, volatile=True)
        assert not v.requires_grad
        with pytest.warns(UserWarning, match=re.escape("volatile was removed (Variable.volatile is "
                                                       "always False)")):
            assert v.volatile is False
        x = T.tensor([1.], requires_grad=True)
        with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
            x.volatile = True
        with pytest.warns(UserWarning):
            assert x.volatile is False
        assert (x * 2).requires_grad               # no effect on recording
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            T.autograd.Variable(a, volatile=False)  # False: no warning


def test_002_variable_attributes():
    v = Variable(torch_.Tensor([1, 2]), requires_grad=True)
    y = v * 2
    # data, grad, requires_grad, volatile, is_leaf, grad_fn
    assert isinstance(v.data, tp.Tensor) and not v.data.requires_grad
    assert v.grad is None and v.requires_grad and v.is_leaf and v.grad_fn is None
    assert not y.is_leaf and type(y.grad_fn).__name__ == "MulBackward0" and y.requires_grad
    with pytest.warns(UserWarning):
        assert not y.volatile
    # requires_grad can be changed only on leaves
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf "
                                           "variables."):
        y.requires_grad = False
    y.backward(torch_.Tensor([1, 1]))
    assert v.grad.tolist() == [2., 2.]


def test_002_backward_gradient_and_retain_variables():
    # backward(gradient=None, retain_variables=False)
    v = Variable(torch_.Tensor([1, 2]), requires_grad=True)
    y = v * v
    with pytest.warns(FutureWarning):
        y.backward(torch_.Tensor([1, 1]), retain_variables=True)
    y.backward(gradient=torch_.Tensor([1, 0]))
    assert v.grad.tolist() == [4., 4.]
    s = (v * v).sum()
    s.backward()                                 # a scalar needs no gradient
    assert v.grad.tolist() == [6., 8.]


def test_002_detach():
    v = Variable(torch_.Tensor([1, 2]), requires_grad=True)
    y = v * 2
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    d.add_(1)                                    # same data: visible through y
    assert y.tolist() == [3., 5.]
    # ... and may trip the correctness check of a backward that saved it
    z = v.exp()
    z.detach().mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_002_detach_():
    v = Variable(torch_.Tensor([1, 2]), requires_grad=True)
    y = v * 2
    assert y.detach_() is y
    assert y.is_leaf and y.grad_fn is None and not y.requires_grad


def test_002_register_hook_example():
    torch = torch_    # noqa: F841  (the document's code, as written)
    v = Variable(torch_.Tensor([0, 0, 0]), requires_grad=True)
    h = v.register_hook(lambda grad: grad * 2)  # double the gradient
    v.backward(torch_.Tensor([1, 1, 1]))
    assert v.grad.data.tolist() == [2., 2., 2.]
    h.remove()  # removes the hook
    v.backward(torch_.Tensor([1, 1, 1]))
    assert v.grad.data.tolist() == [3., 3., 3.]


def test_002_register_hook_returning_none_keeps_gradient():
    v = Variable(torch_.Tensor([1, 2]), requires_grad=True)
    seen = []
    v.register_hook(lambda g: seen.append(g.tolist()))
    (v * 3).sum().backward()
    assert seen == [[3., 3.]] and v.grad.tolist() == [3., 3.]


def test_002_retain_grad():
    v = Variable(torch_.Tensor([1, 2]), requires_grad=True)
    y = v * 2
    y.retain_grad()
    (y * y).sum().backward()
    assert y.grad.tolist() == [4., 8.]


def test_002_inplace_correctness_check():
    # a tensor saved for backward and modified in place afterwards: backward raises
    v = Variable(torch_.Tensor([1, 2]), requires_grad=True)
    y = v * 1
    z = y.exp()
    z.add_(1)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation "
                                           "has been modified by an inplace operation"):
        z.sum().backward()


def test_002_function_attributes():
    seen = {}

    class Mul(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            seen["needs_input_grad"] = ctx.needs_input_grad
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            with pytest.warns(DeprecationWarning):
                assert len(ctx.saved_variables) == 2
            seen["requires_grad"] = ctx.requires_grad
            return g * b, g * a

    a = Variable(torch_.Tensor([2]), requires_grad=True)
    b = Variable(torch_.Tensor([3]))
    Mul.apply(a, b).backward()
    assert seen == {"needs_input_grad": (True, False), "requires_grad": True}
    assert a.grad.tolist() == [3.]


# ------------------------------------------------------------------ 002: reinforce
def test_reinforce_bernoulli_gradient_value():
    p = tp.tensor([0.25, 0.5, 0.8], requires_grad=True)
    y = tp.bernoulli(p)
    r = tp.tensor([1., 2., -3.])
    y.reinforce(r)
    tp.autograd.backward([y], [None])
    yy, pp, rr = y.detach().numpy(), p.detach().numpy(), r.numpy()
    dlogp = np.where(yy == 1, 1 / pp, -1 / (1 - pp))
    np.testing.assert_allclose(p.grad.numpy(), -rr * dlogp, rtol=1e-6)


def test_reinforce_then_backward_spellings():
    p = tp.tensor([0.5, 0.5], requires_grad=True)
    y = tp.bernoulli(p)
    y.reinforce(tp.tensor([1., 1.]))
    y.backward()                                 # a non-scalar sample needs no gradient
    assert p.grad is not None and (p.grad.abs() == 2).all()


def test_backward_from_a_sample_without_reward_raises():
    p = tp.tensor([0.5, 0.5], requires_grad=True)
    for sample in (lambda: tp.bernoulli(p), lambda: tp.multinomial(p, 1),
                   lambda: tp.normal(p, 1.), lambda: tp.bernoulli(p)[0:1] * 0 + tp.bernoulli(p)):
        y = sample()
        if y.grad_fn is not None and type(y.grad_fn).__name__ == "AddBackward0":
            continue                             # not a sample: see the next test
        with pytest.raises(RuntimeError, match=f"^{REWARD_MSG}$"):
            y.backward()
        with pytest.raises(RuntimeError, match=f"^{REWARD_MSG}$"):
            tp.autograd.backward([y], [None])


def test_backward_through_a_sample_without_reward_is_torch_2():
    # a gradient arriving from downstream is PyTorch 2.x code: zero, no error
    p = tp.tensor([0.5, 0.5], requires_grad=True)
    x = tp.tensor([1., 1.], requires_grad=True)
    y = tp.bernoulli(p)
    st = y - p.detach() + p                      # straight-through estimator
    (st * x).sum().backward()
    assert p.grad.tolist() == x.tolist()
    # an explicit gradient for the sample, too
    p.grad = None
    tp.bernoulli(p).backward(tp.ones(2))
    assert p.grad.tolist() == [0., 0.]


def test_reinforced_sample_used_downstream_gets_reinforce_gradient():
    p = tp.tensor([0.4], requires_grad=True)
    w = tp.tensor([2.], requires_grad=True)
    y = tp.bernoulli(p)
    y.reinforce(tp.tensor([1.5]))
    (y * w).sum().backward()
    expected = -1.5 * (1 / 0.4 if y.item() == 1 else -1 / 0.6)
    np.testing.assert_allclose(p.grad.item(), expected, rtol=1e-6)
    assert w.grad.tolist() == y.tolist()


def test_reinforce_errors():
    p = tp.tensor([0.5, 0.5], requires_grad=True)
    with pytest.raises(RuntimeError, match="reinforce\\(\\) can only be called on the output of a "
                                           "stochastic op"):
        (p * 2).reinforce(tp.ones(2))
    with pytest.raises(RuntimeError, match="can only be called on the output of a stochastic op"):
        tp.bernoulli(p.detach()).reinforce(tp.ones(2))   # no parameter requires grad
    with pytest.raises(RuntimeError, match="can only be called on the output of a stochastic op"):
        tp.zeros(2).uniform_().reinforce(tp.ones(2))
    y = tp.bernoulli(p)
    with pytest.raises(RuntimeError, match=re.escape("the reward has shape [3] but the output has "
                                                     "shape [2]")):
        y.reinforce(tp.ones(3))
    with pytest.raises(RuntimeError, match="reward has shape"):
        tp.multinomial(p, 2, True).reinforce(tp.ones(1, 2))
    with pytest.raises(TypeError):
        y.reinforce(1.0)
    y.reinforce(tp.ones(2))
    with pytest.raises(RuntimeError, match="you can only reinforce a stochastic Function once"):
        y.reinforce(tp.ones(2))
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_reinforce_after_inplace_change_of_the_sample():
    p = tp.tensor([0.5, 0.5], requires_grad=True)
    y = tp.bernoulli(p)
    y.mul_(2)                                     # no longer the sampling op's output
    with pytest.raises(RuntimeError, match="can only be called on the output of a stochastic op"):
        y.reinforce(tp.ones(2))


def test_reinforce_multinomial_value_with_and_without_replacement():
    tp.manual_seed(0)
    w = tp.tensor([0.2, 0.3, 0.5], requires_grad=True)
    m = tp.multinomial(w, 4, True)
    r = tp.tensor([1., 2., 3., 4.])
    m.reinforce(r)
    m.backward()
    exp = np.zeros(3)
    for k, ri in zip(m.tolist(), r.tolist()):
        exp -= ri * (np.eye(3)[k] / [0.2, 0.3, 0.5][k] - 1.0)    # d log(w_k / sum w)
    # float32: an entry whose terms cancel to 0 keeps their rounding, ~1e-6, so rtol alone fails
    np.testing.assert_allclose(w.grad.numpy(), exp, rtol=1e-5, atol=1e-5)

    w.grad = None
    m = tp.multinomial(w, 2)
    m.reinforce(tp.tensor([1., 2.]))
    tp.autograd.backward([m], [None])
    a, b = m.tolist()
    ww = np.array([0.2, 0.3, 0.5])

    def logp(v):                                  # log P(first a, then b)
        return np.log(v[a] / v.sum()) + np.log(v[b] / (v.sum() - v[a]))

    def logp1(v):
        return np.log(v[a] / v.sum())
    eps = 1e-6
    num = np.array([(logp(ww + eps * e) - logp(ww - eps * e)) / (2 * eps) for e in np.eye(3)])
    num1 = np.array([(logp1(ww + eps * e) - logp1(ww - eps * e)) / (2 * eps) for e in np.eye(3)])
    # reward 1 of draw 0 is credited to draw 0; reward 2 of draw 1 to draws 0 and 1
    np.testing.assert_allclose(w.grad.numpy(), -(1. * num1 + 2. * num), rtol=1e-4, atol=1e-5)


def test_reinforce_normal_value():
    mu = tp.tensor([0.5, -1.], requires_grad=True)
    sd = tp.tensor([1., 2.], requires_grad=True)
    x = tp.normal(mu, sd)
    r = tp.tensor([2., 3.])
    x.reinforce(r)
    x.backward()
    d = x.detach().numpy() - mu.detach().numpy()
    s = sd.detach().numpy()
    np.testing.assert_allclose(mu.grad.numpy(), -r.numpy() * d / s ** 2, rtol=1e-5)
    np.testing.assert_allclose(sd.grad.numpy(), -r.numpy() * (d ** 2 / s ** 3 - 1 / s), rtol=1e-5)
    # one-parameter forms
    mu.grad = None
    x = tp.normal(mu, 2.)
    x.reinforce(tp.ones(2))
    x.backward()
    np.testing.assert_allclose(mu.grad.numpy(), -(x.detach().numpy() - mu.detach().numpy()) / 4, rtol=1e-5)
    sd.grad = None
    x = tp.normal(1., sd)
    x.reinforce(tp.ones(2))
    x.backward()
    d = x.detach().numpy() - 1.
    np.testing.assert_allclose(sd.grad.numpy(), -(d ** 2 / s ** 3 - 1 / s), rtol=1e-5)


def test_reinforce_bernoulli_inplace_tensor_p():
    p = tp.tensor([0.3, 0.6], requires_grad=True)
    y = tp.zeros(3, 2).bernoulli_(p)
    y.reinforce(tp.ones(3, 2))
    y.backward()
    yy = y.detach().numpy()
    exp = -np.where(yy == 1, 1 / np.array([0.3, 0.6]), -1 / np.array([0.7, 0.4])).sum(0)
    np.testing.assert_allclose(p.grad.numpy(), exp, rtol=1e-5)


def test_reinforce_with_autograd_grad():
    p = tp.tensor([0.5], requires_grad=True)
    y = tp.bernoulli(p)
    y.reinforce(tp.tensor([1.]))
    g, = tp.autograd.grad(y, p)
    assert abs(g.item()) == 2. and p.grad is None


def test_reinforce_checks_inplace_modified_parameters():
    p = tp.tensor([0.5, 0.5], requires_grad=True)
    q = p * 1
    y = tp.bernoulli(q)
    y.reinforce(tp.ones(2))
    with tp.no_grad():
        q.mul_(0.5)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_reinforce_through_a_computed_parameter():
    # the gradient for the probabilities flows on into the graph that made them
    logits = tp.tensor([0.3, -0.2], requires_grad=True)
    p = logits.sigmoid()
    y = tp.bernoulli(p)
    y.reinforce(tp.tensor([1., 1.]))
    y.backward()
    pp = p.detach().numpy()
    dp = -np.where(y.detach().numpy() == 1, 1 / pp, -1 / (1 - pp))
    np.testing.assert_allclose(logits.grad.numpy(), dp * pp * (1 - pp), rtol=1e-5)


# ------------------------------------------------------------------ the estimator, statistically
N = 200000


def test_reinforce_bernoulli_estimates_the_gradient_of_the_expected_reward():
    tp.manual_seed(0)
    p = tp.tensor([0.2, 0.5, 0.9], requires_grad=True)
    a, b = np.array([1., -2., 3.]), np.array([0.5, 1., -1.])
    y = tp.bernoulli(p.expand(N, 3))
    yy = y.detach().numpy()
    y.reinforce(tp.tensor(np.where(yy == 1, a, b)))
    y.backward()
    true = a - b                                  # d/dp (p a + (1-p) b)
    np.testing.assert_allclose(p.grad.numpy() / N, -true, atol=0.05 * np.abs(true).max())


def test_reinforce_multinomial_with_replacement_estimates_the_gradient():
    tp.manual_seed(1)
    w = tp.tensor([1., 2., 5.], requires_grad=True)     # unnormalised weights
    f = np.array([1., -2., 3.])
    m = tp.multinomial(w, N, True)
    m.reinforce(tp.tensor(f[m.numpy()]))
    m.backward()
    ww = w.detach().numpy()
    S = ww.sum()
    true = (f - (f * ww).sum() / S) / S           # d/dw E f(k), k ~ w / sum(w)
    np.testing.assert_allclose(w.grad.numpy() / N, -true, atol=0.05 * np.abs(true).max())


def test_reinforce_multinomial_without_replacement_estimates_the_gradient():
    tp.manual_seed(2)
    rows = 100000
    w = tp.tensor([1., 2., 3., 4.], requires_grad=True)
    f = np.array([1., -2., 3., 0.5])
    m = tp.multinomial(w.expand(rows, 4), 2)
    m.reinforce(tp.tensor(f[m.numpy()]))
    m.backward()

    def expected(v):                              # E[f(k0) + f(k1)], exactly
        S = v.sum()
        return sum(v[i] / S * v[j] / (S - v[i]) * (f[i] + f[j])
                   for i, j in itertools.permutations(range(4), 2))
    ww, eps = w.detach().numpy().astype(np.float64), 1e-6
    true = np.array([(expected(ww + eps * e) - expected(ww - eps * e)) / (2 * eps)
                     for e in np.eye(4)])
    np.testing.assert_allclose(w.grad.numpy() / rows, -true, atol=0.05 * np.abs(true).max())


def test_reinforce_normal_estimates_the_gradient():
    tp.manual_seed(3)
    mu = tp.tensor([0.5, -1.], dtype=tp.float64, requires_grad=True)
    sd = tp.tensor([1., 0.5], dtype=tp.float64, requires_grad=True)
    x = tp.normal(mu.expand(N, 2), sd.expand(N, 2))
    x.reinforce(x.detach() ** 2)                   # E[x^2] = mu^2 + sd^2
    x.backward()
    true_mu, true_sd = 2 * mu.detach().numpy(), 2 * sd.detach().numpy()
    np.testing.assert_allclose(mu.grad.numpy() / N, -true_mu, atol=0.1)
    np.testing.assert_allclose(sd.grad.numpy() / N, -true_sd, atol=0.1)


def test_reinforce_does_not_exist_in_torch_2():
    # for the record: PyTorch 2.x removed it (it raises); tensorplay keeps the legacy API
    if torch is None:
        pytest.skip("torch not installed")
    with pytest.raises(RuntimeError, match="reinforce\\(\\) was removed"):
        torch.ones(1).reinforce(torch.ones(1))
