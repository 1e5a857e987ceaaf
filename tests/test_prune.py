"""nn.utils.prune: masks against PyTorch's (deterministic methods exactly,
random ones by structure and amount), the reparametrization (name_orig,
name_mask, the forward pre-hook), gradients, and the errors."""
import re

import numpy as np
import pytest

import tensorplay as tp
from tensorplay import nn
from tensorplay.nn.utils import prune


def A(t):
    return t.detach().numpy()


def _pair(torch, cls, *args):
    tm = getattr(torch.nn, cls)(*args, dtype=torch.float64)
    pm = getattr(nn, cls)(*args, dtype=tp.float64)
    tparams = dict(tm.named_parameters())
    with tp.no_grad():
        for name, p in pm.named_parameters():
            p.copy_(tp.tensor(tparams[name].detach().numpy()))
    return tm, pm


def _same(tm, pm):
    st, sp = tm.state_dict(), pm.state_dict()
    assert list(sp) == list(st)
    for k in st:
        np.testing.assert_array_equal(A(sp[k]), A(st[k]), err_msg=k)
    assert [type(h).__name__ for h in pm._forward_pre_hooks.values()] == \
        [type(h).__name__ for h in tm._forward_pre_hooks.values()]


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, re.sub(r"0x[0-9a-f]+", "", str(e).replace("torch.", "")
                                        .replace("tensorplay.", ""))
    return None


def test_deterministic_methods_vs_torch():
    torch = pytest.importorskip("torch")
    import torch.nn.utils.prune as TR
    torch.manual_seed(0)
    tm, pm = _pair(torch, "Conv2d", 3, 4, 3)
    steps = [
        ("l1_unstructured", ("weight",), {"amount": 0.3}),
        ("ln_structured", ("weight",), {"amount": 1, "n": 2, "dim": 0}),
        ("l1_unstructured", ("weight",), {"amount": 5}),
        ("ln_structured", ("weight",), {"amount": 0.34, "n": 1, "dim": -1}),
        ("ln_structured", ("weight",), {"amount": 1, "n": float("inf"), "dim": 1}),
        ("l1_unstructured", ("bias",), {"amount": 2}),
        ("identity", ("bias",), {}),
    ]
    for fname, args, kw in steps:
        getattr(TR, fname)(tm, *args, **kw)
        assert getattr(prune, fname)(pm, *args, **kw) is pm
        _same(tm, pm)
    assert isinstance(pm._forward_pre_hooks[next(iter(pm._forward_pre_hooks))],
                      prune.PruningContainer)
    assert len(next(iter(pm._forward_pre_hooks.values()))) == 5
    np.random.seed(0)
    x = np.random.randn(2, 3, 5, 5)
    yt, yp = tm(torch.tensor(x)), pm(tp.tensor(x))
    np.testing.assert_allclose(A(yp), A(yt), rtol=1e-12)
    yt.pow(2).sum().backward()
    yp.pow(2).sum().backward()
    np.testing.assert_allclose(A(pm.weight_orig.grad), A(tm.weight_orig.grad), rtol=1e-10)
    # the gradient of the pruned entries is zero
    assert np.all(A(pm.weight_orig.grad)[A(pm.weight_mask) == 0] == 0)
    assert prune.is_pruned(pm) and TR.is_pruned(tm)
    TR.remove(tm, "weight")
    prune.remove(pm, "weight")
    _same(tm, pm)
    assert isinstance(pm.weight, nn.Parameter) and pm.weight.requires_grad
    TR.remove(tm, "bias")
    prune.remove(pm, "bias")
    assert not prune.is_pruned(pm)
    _same(tm, pm)


def test_importance_scores_custom_and_global_vs_torch():
    torch = pytest.importorskip("torch")
    import torch.nn.utils.prune as TR
    torch.manual_seed(0)
    tm, pm = _pair(torch, "Linear", 4, 3)
    scores = np.arange(12.)[::-1].reshape(3, 4).copy()
    TR.l1_unstructured(tm, "weight", 0.5, importance_scores=torch.tensor(scores))
    prune.l1_unstructured(pm, "weight", 0.5, importance_scores=tp.tensor(scores))
    _same(tm, pm)
    np.testing.assert_array_equal(A(pm.weight_mask).reshape(-1)[:6], 1)
    mask = np.random.RandomState(0).rand(3, 4) > 0.5
    TR.custom_from_mask(tm, "weight", torch.tensor(mask))
    prune.custom_from_mask(pm, "weight", tp.tensor(mask))
    _same(tm, pm)
    TR.ln_structured(tm, "weight", 1, 2, 0, importance_scores=torch.tensor(scores))
    prune.ln_structured(pm, "weight", 1, 2, 0, importance_scores=tp.tensor(scores))
    _same(tm, pm)
    t1, p1 = _pair(torch, "Linear", 4, 3)
    t2, p2 = _pair(torch, "Linear", 3, 5)
    TR.l1_unstructured(t1, "weight", 2)
    prune.l1_unstructured(p1, "weight", 2)
    TR.global_unstructured([(t1, "weight"), (t2, "weight"), (t2, "bias")],
                           pruning_method=TR.L1Unstructured, amount=0.4)
    prune.global_unstructured([(p1, "weight"), (p2, "weight"), (p2, "bias")],
                              pruning_method=prune.L1Unstructured, amount=0.4)
    _same(t1, p1)
    _same(t2, p2)
    total = sum(int((A(m) == 0).sum()) for m in (p1.weight_mask, p2.weight_mask, p2.bias_mask))
    assert total == 2 + round(0.4 * (12 + 15 + 5 - 2))     # 40% of what was left


def test_random_methods_structure_and_amount():
    tp.manual_seed(0)
    m = nn.Conv2d(3, 6, 3)
    w = A(m.weight).copy()
    prune.random_unstructured(m, "weight", amount=0.25)
    mask = A(m.weight_mask)
    assert mask.dtype == np.float32 and set(np.unique(mask)) <= {0., 1.}
    assert int((mask == 0).sum()) == round(0.25 * mask.size)
    np.testing.assert_array_equal(A(m.weight), w * mask)
    prune.random_unstructured(m, "weight", amount=10)        # on the remaining entries
    assert int((A(m.weight_mask) == 0).sum()) == round(0.25 * mask.size) + 10
    prune.random_structured(m, "weight", amount=2, dim=0)
    per_channel = A(m.weight_mask).reshape(6, -1).sum(1)
    assert (per_channel == 0).sum() == 2
    # the earlier pruned entries stay pruned
    assert np.all(A(m.weight_mask)[mask == 0] == 0)
    m2 = nn.Linear(8, 4)
    prune.random_structured(m2, "weight", amount=0.5, dim=-1)
    cols = A(m2.weight_mask).sum(0)
    assert sorted(set(cols)) == [0., 4.] and (cols == 0).sum() == 4
    # seeded: the same masks again
    tp.manual_seed(5)
    a = A(prune.random_unstructured(nn.Linear(5, 5), "weight", 0.3).weight_mask)
    tp.manual_seed(5)
    b = A(prune.random_unstructured(nn.Linear(5, 5), "weight", 0.3).weight_mask)
    np.testing.assert_array_equal(a, b)


def test_methods_direct_and_container():
    t = tp.tensor([[1., -5., 2.], [0.5, 3., -4.]])
    np.testing.assert_array_equal(A(prune.L1Unstructured(2).prune(t)),
                                  [[0., -5., 2.], [0., 3., -4.]])
    # row L1 norms 8 and 7.5: the second row goes
    np.testing.assert_array_equal(A(prune.LnStructured(1, n=1, dim=0).compute_mask(
        t, tp.ones_like(t))), [[1., 1., 1.], [0., 0., 0.]])
    m = nn.Linear(3, 2)
    with pytest.raises(AttributeError):
        prune.L1Unstructured(1).apply_mask(m)      # not applied: no tensor name
    hook = prune.L1Unstructured.apply(m, "weight", amount=1)
    assert isinstance(hook, prune.L1Unstructured) and hook._tensor_name == "weight"
    c = prune.PruningContainer(hook)
    assert len(c) == 1 and c[0] is hook and list(c) == [hook]
    other = prune.Identity()
    other._tensor_name = "bias"
    with pytest.raises(ValueError, match="Can only add pruning methods acting on the parameter "
                                         "named 'weight'"):
        c.add_pruning_method(other)
    with pytest.raises(TypeError, match="is not a BasePruningMethod subclass"):
        c.add_pruning_method(3)


def test_gradcheck_copy_and_pickle():
    import copy
    import pickle
    from tensorplay.autograd import gradcheck
    tp.manual_seed(0)
    m = prune.l1_unstructured(nn.Linear(4, 3, dtype=tp.float64), "weight", amount=5)
    mask = A(m.weight_mask)
    x = tp.randn(2, 4, dtype=tp.float64)

    def f(w):
        return x @ (m.weight_mask * w).mT
    assert gradcheck(f, (tp.randn(3, 4, dtype=tp.float64, requires_grad=True),))
    with pytest.raises(RuntimeError, match="graph leaves"):      # as PyTorch: m.weight is not one
        copy.deepcopy(m)
    for c in (pickle.loads(pickle.dumps(m)),):
        assert prune.is_pruned(c)
        np.testing.assert_array_equal(A(c.weight_mask), mask)
        with tp.no_grad():
            c.weight_orig.fill_(1.)
        c(x)                                       # the hook recomputes c.weight
        np.testing.assert_array_equal(A(c.weight), mask)
    np.testing.assert_array_equal(A(m.weight), mask * A(m.weight_orig))


def test_failed_pruning_restores_the_parameter():
    m = nn.Linear(3, 2)
    w = m.weight
    with pytest.raises(ValueError, match="should be smaller than the number of parameters"):
        prune.l1_unstructured(m, "weight", amount=10)
    assert m.weight is w and "weight_orig" not in m._parameters and not m._forward_pre_hooks


def test_errors_vs_torch():
    torch = pytest.importorskip("torch")
    import torch.nn.utils.prune as TR

    def cases(L, R, nn_):
        def lin():
            return nn_.Linear(3, 3, dtype=L.float64)
        return [
            lambda: R.l1_unstructured(lin(), "weight", amount="a"),
            lambda: R.l1_unstructured(lin(), "weight", amount=-1),
            lambda: R.l1_unstructured(lin(), "weight", amount=1.5),
            lambda: R.l1_unstructured(lin(), "weight", amount=10),
            lambda: R.random_unstructured(lin(), "weight", amount=-0.1),
            lambda: R.ln_structured(lin(), "bias", amount=1, n=2, dim=0),
            lambda: R.random_structured(lin(), "bias", amount=1, dim=0),
            lambda: R.ln_structured(lin(), "weight", amount=1, n=2, dim=2),
            lambda: R.ln_structured(lin(), "weight", amount=4, n=2, dim=0),
            lambda: R.remove(lin(), "weight"),
            lambda: R.l1_unstructured(lin(), "weight", 1, importance_scores=L.zeros(2)),
            lambda: R.custom_from_mask(lin(), "weight", L.ones(2, 2)),
            lambda: R.global_unstructured([(lin(), "weight")], R.LnStructured, amount=1, n=1,
                                          dim=0),
            lambda: R.global_unstructured(3, R.L1Unstructured, amount=1),
            lambda: R.global_unstructured([(lin(), "weight")], R.L1Unstructured,
                                          importance_scores=[1], amount=1),
            lambda: R.PruningContainer(R.Identity()),
            lambda: R.BasePruningMethod(),
            lambda: R.L1Unstructured(1).prune(L.ones(3), importance_scores=L.ones(2)),
        ]

    for i, (a, b) in enumerate(zip(cases(torch, TR, torch.nn), cases(tp, prune, nn))):
        ea, eb = _err(a), _err(b)
        assert ea is not None and ea == eb, (i, ea, eb)
