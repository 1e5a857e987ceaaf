"""The forward-mode (jvp) and batching rules of the pattern ops, one per family:
the rule an entry writes or takes from its family is checked against finite
differences, against the entry's own vjp, and against a Python loop.

(Filling these rules for every op, and the transforms that use them, is the
forward-mode/vmap work; these ops are the pattern it follows.)"""
import numpy as np
import pytest

import tensorplay as tp
from tensorplay.ops._registry import REGISTRY, dispatch
from tensorplay.ops import _families as F

RNG = np.random.default_rng(0)


def t(*shape):
    return tp.tensor(RNG.standard_normal(shape))


# op name -> (family, args: tensors are float64 inputs, other entries parameters)
PATTERNS = {
    "sin": (F.ELEMENTWISE, lambda: [t(3, 4)]),
    "mul": (F.ELEMENTWISE, lambda: [t(3, 4), t(4)]),
    "sum": (F.REDUCTION, lambda: [t(3, 4), 1, False]),
    "prod_dim": (F.REDUCTION, lambda: [t(3, 4), 1, False]),     # the family's own (non-linear) rule
    "softmax": (F.ALONG_DIM, lambda: [t(3, 4), 1]),
    "transpose": (F.VIEW, lambda: [t(2, 3, 4), 0, 2]),
    "mm": (F.BILINEAR, lambda: [t(3, 4), t(4, 2)]),
}


def _diff_inputs(op, args):
    return [i for i in range(op.n_in) if isinstance(args[i], tp.Tensor) and op.vjp[i] is not None]


def _setup(name):
    """The op, fresh arguments, the differentiable inputs and a random direction for each."""
    op = REGISTRY[name]
    args = PATTERNS[name][1]()
    idx = _diff_inputs(op, args)
    direction = [None] * op.n_in
    for i in idx:
        direction[i] = tp.tensor(RNG.standard_normal(args[i].shape))
    return op, args, idx, direction


@pytest.mark.parametrize("name", PATTERNS)
def test_pattern_entry_has_its_family_and_rules(name):
    op = REGISTRY[name]
    family, _ = PATTERNS[name]
    assert op.family is family
    assert op.jvp is not None and op.batch is not None
    assert "kernel:" in repr(op) and "x:" in repr(op)      # where each part is defined


def test_repr_shows_the_dtypes_an_entry_refuses_and_its_full_precision_numbers():
    assert repr(REGISTRY["elu"]).endswith("; refuses: complex, bool, int>")
    assert repr(REGISTRY["lt"]).endswith("; refuses: complex>")
    assert repr(REGISTRY["mul"]).endswith("; opmath: [1]>")
    assert "refuses" not in repr(REGISTRY["add"]) and "opmath" not in repr(REGISTRY["add"])


@pytest.mark.parametrize("name", PATTERNS)
def test_jvp_matches_finite_differences(name):
    op, args, idx, tangents = _setup(name)
    result = dispatch(op, args)
    jv = op.jvp(op, args, tangents, result)
    eps = 1e-6

    def at(s):
        a = list(args)
        for i in idx:
            a[i] = args[i] + s * tangents[i]
        return dispatch(op, a).numpy()
    fd = (at(eps) - at(-eps)) / (2 * eps)
    np.testing.assert_allclose(jv.numpy(), fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", PATTERNS)
def test_jvp_agrees_with_vjp(name):
    """<J v, u> = <v, J^T u>: the forward rule and the entry's derivatives describe one Jacobian."""
    op, args, idx, v = _setup(name)
    leaves = list(args)
    for i in idx:
        leaves[i] = args[i].clone().requires_grad_()
    out = dispatch(op, leaves)
    u = tp.tensor(RNG.standard_normal(out.shape))
    jtu = tp.autograd.grad(out, [leaves[i] for i in idx], u)
    jv = op.jvp(op, args, v, dispatch(op, args))
    lhs = float((jv * u).sum())
    rhs = sum(float((v[i] * g).sum()) for i, g in zip(idx, jtu))
    assert lhs == pytest.approx(rhs, rel=1e-10, abs=1e-12)


def _bdim_cases(op, args):
    """Batch dimension first, last, and absent for one input (when there are two)."""
    n = len([i for i in range(op.n_in) if isinstance(args[i], tp.Tensor)])
    cases = [[0] * n, [-1] * n]
    if n > 1:
        cases.append([None] + [0] * (n - 1))
        cases.append([0] + [None] * (n - 1))
    return cases


@pytest.mark.parametrize("name", PATTERNS)
def test_batch_rule_matches_a_loop(name):
    op = REGISTRY[name]
    B = 5
    for bdims in _bdim_cases(op, PATTERNS[name][1]()):
        per = [PATTERNS[name][1]() for _ in range(B)]
        batched = list(per[0])
        for i, b in enumerate(bdims):
            if b is not None:
                batched[i] = tp.stack([p[i] for p in per], dim=b)
            else:
                for p in per:
                    p[i] = per[0][i]        # shared by every sample
        out, out_bdim = op.batch(op, batched, bdims)
        expected = tp.stack([dispatch(op, p) for p in per], dim=0)
        got = out.movedim(out_bdim, 0)
        assert got.shape == expected.shape, (bdims, got.shape, expected.shape)
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12, atol=1e-12)


def test_batch_rule_nests():
    """Two batch levels: the rule applied to its own output's layout."""
    op = REGISTRY["mul"]
    x, y = t(2, 3, 4), t(4)
    inner, bd = op.batch(op, [x.movedim(0, 1), y], [1, None])      # batch of 2 at dim 1
    np.testing.assert_allclose(inner.movedim(bd, 0).numpy(), (x * y).numpy())
    outer = t(5, 2, 3, 4)
    res, bd2 = op.batch(op, [outer, y], [0, None])
    np.testing.assert_allclose(res.movedim(bd2, 0).numpy(), (outer * y).numpy())


def test_elementwise_rule_pads_ranks():
    """A batched low-rank input meets an unbatched higher-rank one: the logical
    dimensions line up from the right, as broadcasting lines them up unbatched."""
    op = REGISTRY["mul"]
    x, y = t(5, 4), t(3, 4)             # x: batch of 5 vectors (4,), y: (3, 4)
    out, bd = op.batch(op, [x, y], [0, None])
    expected = np.stack([x.numpy()[b] * y.numpy() for b in range(5)])
    np.testing.assert_allclose(out.movedim(bd, 0).numpy(), expected)


def test_entry_refuses_kernels_dispatch_cannot_call_positionally():
    """Dispatch calls every kernel with the full positional argument list: an entry
    refuses a kernel with undeclared keyword-only parameters, and a variadic one
    that is not written flat; declared, both are taken."""
    from tensorplay.ops._registry import Op, flat_kernel

    def kw_only(x, dim=0, *, dtype=None):
        return x

    def variadic(*xs, dim=0):
        return xs[0]
    with pytest.raises(TypeError, match="kwonly="):
        Op("t_kwonly", kw_only, {"x": "grad"}, n_in=1)
    with pytest.raises(TypeError, match="flat"):
        Op("t_variadic", variadic, {"xs": "grad"}, n_in=-1)

    def kw_pos(x, dim=0, dtype=None):
        return x
    assert Op("t_kwonly", kw_pos, {"x": "grad"}, n_in=1, kwonly=("dtype",)).n_kw == 1

    @flat_kernel(lambda *xs, dim=0: None)
    def flat(*xs_dim):
        return xs_dim[0]
    op = Op("t_variadic", flat, {"xs": "grad"}, n_in=-1)
    assert op.variadic and op.kernel is flat
