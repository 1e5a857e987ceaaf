"""tensorplay.autograd.forward_ad: dual levels, make_dual/unpack_dual, their
errors, nesting, views and in-place ops, custom Functions, and forward mode
composed with reverse mode.  (Every op's forward rule: test_forward_ad_ops.py.)"""
import numpy as np
import pytest

import tensorplay as tp
import tensorplay.autograd.forward_ad as fwAD
from tensorplay.ops._registry import TRANSFORMS

from conftest import exact, lst

RNG = np.random.default_rng(0)


def t64(*shape, rg=False):
    return tp.tensor(RNG.standard_normal(shape), requires_grad=rg)


def close(a, b, tol=1e-10):
    a = a.detach().numpy() if isinstance(a, tp.Tensor) else np.asarray(a)
    b = b.detach().numpy() if isinstance(b, tp.Tensor) else np.asarray(b)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def fw(T):
    return T.autograd.forward_ad


# ----------------------------------------------------------------- the API
def test_public_names():
    assert set(fwAD.__all__) == {"UnpackedDualTensor", "dual_level", "enter_dual_level",
                                 "exit_dual_level", "make_dual", "unpack_dual"}
    assert tp.autograd.forward_ad is fwAD


def test_jvp_of_a_composite(T):
    x = T.tensor([0.5, 1.0, 2.0], dtype=T.float64)
    v = T.tensor([1.0, -1.0, 0.5], dtype=T.float64)
    with fw(T).dual_level() as level:
        assert level == 0
        y = (fw(T).make_dual(x, v).exp() * 3).sin().sum()
        primal, tangent = fw(T).unpack_dual(y)
        assert isinstance(fw(T).unpack_dual(y), fw(T).UnpackedDualTensor)
    xs = x.numpy()
    expected = np.sum(np.cos(3 * np.exp(xs)) * 3 * np.exp(xs) * v.numpy())
    assert abs(tangent.item() - expected) < 1e-12
    assert abs(primal.item() - np.sin(3 * np.exp(xs)).sum()) < 1e-12
    assert fw(T).unpack_dual(y).tangent is None         # the level's tangents are gone


def test_unpack_dual_outside_a_level_and_without_tangent(T):
    x = T.ones(2, dtype=T.float64)
    p, t = fw(T).unpack_dual(x)
    assert p is x and t is None
    with fw(T).dual_level():
        p, t = fw(T).unpack_dual(x)
        assert t is None and lst(p) == [1.0, 1.0]


def test_tangent_is_returned_as_is_and_primal_has_none(T):
    x, v = T.ones(3, dtype=T.float64), T.ones(3, dtype=T.float64) * 2
    with fw(T).dual_level():
        d = fw(T).make_dual(x, v)
        p, t = fw(T).unpack_dual(d)
        assert t is v
        assert fw(T).unpack_dual(p).tangent is None
        assert fw(T).unpack_dual(x).tangent is None      # the input itself is not dual


def test_no_transform_left_behind():
    with fwAD.dual_level():
        assert len(TRANSFORMS) == 1
    assert not TRANSFORMS
    with pytest.raises(ZeroDivisionError):
        with fwAD.dual_level():
            1 / 0
    assert not TRANSFORMS and fwAD._current_level == -1


def test_dual_level_as_decorator():
    @fwAD.dual_level()
    def jvp_sin(x, v):
        return fwAD.unpack_dual(fwAD.make_dual(x, v).sin()).tangent
    x, v = t64(4), t64(4)
    close(jvp_sin(x, v), x.cos() * v)
    assert not TRANSFORMS


# ----------------------------------------------------------------- errors (PyTorch's)
def test_make_dual_outside_a_level(T):
    with pytest.raises(RuntimeError, match=exact(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first.")):
        fw(T).make_dual(T.ones(2), T.ones(2))


def test_make_dual_errors(T):
    with fw(T).dual_level():
        with pytest.raises(ValueError, match=exact(
                "Expected primal to be floating point or complex, but got: " + str(T.int64))):
            fw(T).make_dual(T.ones(2, dtype=T.int64), T.ones(2))
        with pytest.raises(ValueError, match=exact(
                "Expected tangent to be floating point or complex, but got: " + str(T.int64))):
            fw(T).make_dual(T.ones(2), T.ones(2, dtype=T.int64))
        with pytest.raises(RuntimeError, match=exact(
                "Trying to set a forward gradient that has a different size than that of the "
                "original Tensor, this is not supported. Tensor is of size [3] while the given "
                "forward gradient is of size [4].")):
            fw(T).make_dual(T.ones(3), T.ones(4))
        d = fw(T).make_dual(T.ones(2), T.ones(2))
        with pytest.raises(RuntimeError, match=exact(
                "Making a dual Tensor based on a Tensor that already has a forward gradient at the "
                "same level 0 is not supported.")):
            fw(T).make_dual(d, T.ones(2))
        with pytest.raises(RuntimeError, match=exact("Invalid level given to _make_dual")):
            fw(T).make_dual(T.ones(2), T.ones(2), level=3)
        with pytest.raises(RuntimeError, match=exact("Invalid level given to _fw_primal")):
            fw(T).unpack_dual(d, level=3)
        with pytest.raises(RuntimeError, match=exact(
                "Trying to exit a forward AD level that was not the last one that was created. "
                "This is not supported.")):
            fw(T).exit_dual_level(level=3)


def test_exit_without_a_level(T):
    with pytest.raises(RuntimeError, match=exact("Dual level must be a positive number.")):
        fw(T).exit_dual_level()


def test_tangent_takes_the_primal_dtype(T):
    with fw(T).dual_level():
        d = fw(T).make_dual(T.ones(2, dtype=T.float64), T.ones(2, dtype=T.float32))
        assert fw(T).unpack_dual(d.exp()).tangent.dtype == T.float64


def test_op_without_forward_rule_raises_naming_it(T):
    with fw(T).dual_level():
        d = fw(T).make_dual(T.ones(2, dtype=T.float64), T.ones(2, dtype=T.float64))
        with pytest.raises(NotImplementedError, match="Trying to use forward AD with .*heaviside"):
            T.heaviside(d, T.ones(2, dtype=T.float64))


def test_integer_outputs_carry_no_tangent():
    with fwAD.dual_level():
        d = fwAD.make_dual(t64(3, 4), t64(3, 4))
        assert fwAD.unpack_dual(d.argmax(1)).tangent is None
        assert fwAD.unpack_dual(d > 0).tangent is None
        values, idx = d.max(1)
        assert fwAD.unpack_dual(idx).tangent is None
        close(fwAD.unpack_dual(values).tangent, fwAD.unpack_dual(d).tangent.gather(1, idx.unsqueeze(1)).squeeze(1))


# ----------------------------------------------------------------- nesting
def test_nested_levels_keep_perturbations_apart():
    """D_x[x * D_y[x + y](1)](1) = 1: the inner derivative must not see x's perturbation
    (the classic perturbation-confusion example)."""
    one = tp.tensor(1.0, dtype=tp.float64)
    with fwAD.dual_level() as outer:
        x = fwAD.make_dual(one, one, level=outer)
        with fwAD.dual_level() as inner:
            assert (outer, inner) == (0, 1)
            y = fwAD.make_dual(one, one, level=inner)
            dz_dy = fwAD.unpack_dual(x + y, level=inner).tangent
            assert fwAD.unpack_dual(y, level=outer).tangent is None
        out = x * dz_dy
        assert fwAD.unpack_dual(out, level=outer).tangent.item() == 1.0


def test_nested_levels_give_second_derivatives():
    x = t64(5)
    ones = tp.ones(5, dtype=tp.float64)
    with fwAD.dual_level() as l0:
        x0 = fwAD.make_dual(x, ones, level=l0)
        with fwAD.dual_level() as l1:
            x1 = fwAD.make_dual(x0, ones, level=l1)
            y = x1 ** 3 + x1.sin()
            d1 = fwAD.unpack_dual(y, level=l1).tangent
        d2 = fwAD.unpack_dual(d1, level=l0).tangent
    close(d1, 3 * x ** 2 + x.cos())
    close(d2, 6 * x - x.sin())


# ----------------------------------------------------------------- views and in-place ops
def test_views_of_a_dual_tensor(T):
    x, v = T.tensor(RNG.standard_normal((2, 3))), T.tensor(RNG.standard_normal((2, 3)))
    with fw(T).dual_level():
        d = fw(T).make_dual(x, v)
        for view, expected in ((d[1], v[1]), (d.t(), v.t()), (d.view(6), v.view(6)),
                               (d[:, 1:], v[:, 1:]), (d.unsqueeze(0), v.unsqueeze(0))):
            assert lst(fw(T).unpack_dual(view).tangent) == lst(expected)


def test_in_place_on_a_dual_tensor(T):
    x, v = T.tensor([1.0, 2.0, 3.0]), T.tensor([1.0, 0.5, -1.0])
    with fw(T).dual_level():
        d = fw(T).make_dual(x.clone(), v.clone())
        d.mul_(fw(T).make_dual(x.clone(), v.clone()))
        assert lst(fw(T).unpack_dual(d).tangent) == [2.0, 2.0, -6.0]
        assert fw(T).unpack_dual(x).tangent is None        # make_dual's input stays plain


def test_in_place_with_itself():
    """(torch 2.13 gives [2, 3, -12] here: it writes the tangent in place while reading it)"""
    with fwAD.dual_level():
        d = fwAD.make_dual(tp.tensor([1.0, 2.0, 3.0]), tp.tensor([1.0, 0.5, -1.0]))
        d.mul_(d)
        assert lst(fwAD.unpack_dual(d).tangent) == [2.0, 2.0, -6.0]


def test_in_place_gives_a_plain_tensor_a_tangent(T):
    x, v = T.tensor([1.0, 2.0]), T.tensor([3.0, 4.0])
    with fw(T).dual_level():
        w = T.zeros(2)
        w.add_(fw(T).make_dual(x, v), alpha=2)
        assert lst(fw(T).unpack_dual(w).tangent) == [6.0, 8.0]


def test_in_place_on_a_view_updates_the_base(T):
    x, v = T.tensor(RNG.standard_normal((2, 3))), T.tensor(RNG.standard_normal((2, 3)))
    with fw(T).dual_level():
        b = T.zeros(2, 3, dtype=T.float64)
        other = b[1]                           # made before the base had a tangent
        b[0].copy_(fw(T).make_dual(x, v)[0])
        bt = fw(T).unpack_dual(b).tangent
        assert lst(bt[0]) == lst(v[0]) and lst(bt[1]) == [0.0] * 3
        ot = fw(T).unpack_dual(other).tangent
        assert ot is not None and lst(ot) == [0.0] * 3
        b[1] = fw(T).make_dual(x, v)[1] * 2     # setitem
        assert lst(fw(T).unpack_dual(b).tangent[1]) == lst(v[1] * 2)
        assert lst(fw(T).unpack_dual(other).tangent) == lst(v[1] * 2)


def test_in_place_on_a_view_of_a_dual_tensor():
    x, v = t64(2, 3), t64(2, 3)
    with fwAD.dual_level():
        d = fwAD.make_dual(x.clone(), v)
        row = d[1]
        col = d[:, 0]
        row.mul_(3)
        dt = fwAD.unpack_dual(d).tangent
        close(dt[1], v[1] * 3)
        close(dt[0], v[0])
        close(fwAD.unpack_dual(row).tangent, v[1] * 3)
        close(fwAD.unpack_dual(col).tangent, tp.stack([v[0, 0], 3 * v[1, 0]]))
    assert lst(v) == lst(v.clone())             # the user's tangent was not written


def test_in_place_while_recording_keeps_tangent_and_gradient():
    x, v = t64(3, rg=True), t64(3)
    with fwAD.dual_level():
        d = fwAD.make_dual(x * 1, v)
        d.exp_()
        y, yt = fwAD.unpack_dual(d)
        close(yt, x.detach().exp() * v)
    (g,) = tp.autograd.grad(d.sum(), x)
    close(g, x.detach().exp())


def test_in_place_reshape_moves_the_tangent():
    x, v = t64(2, 3), t64(2, 3)
    with fwAD.dual_level():
        d = fwAD.make_dual(x.clone(), v)
        d.t_()
        close(fwAD.unpack_dual(d).tangent, v.t())
        d.unsqueeze_(0)
        assert fwAD.unpack_dual(d).tangent.shape == (1, 3, 2)


# ----------------------------------------------------------------- custom Functions
class ScaleExp(tp.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_forward(x)
        ctx.k = k
        return x * k, x.exp()

    @staticmethod
    def backward(ctx, ga, gb):
        raise AssertionError("not used")

    @staticmethod
    def jvp(ctx, x_t, k_t):
        assert k_t is None                       # a non-tensor argument
        x, = ctx.saved_tensors
        return x_t * ctx.k, x_t * x.exp()


def test_function_jvp_and_save_for_forward():
    x, v = t64(4), t64(4)
    with fwAD.dual_level():
        a, b = ScaleExp.apply(fwAD.make_dual(x, v), 3.0)
        close(fwAD.unpack_dual(a).tangent, v * 3)
        close(fwAD.unpack_dual(b).tangent, v * x.exp())


def test_function_jvp_gets_zeros_for_a_tensor_without_tangent(T):
    seen = []

    class Mul(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_forward(x, y)
            return x * y

        @staticmethod
        def jvp(ctx, x_t, y_t):
            seen.append(lst(y_t))
            x, y = ctx.saved_tensors
            return x_t * y + x * y_t

    x, y = T.tensor([1.0, 2.0]), T.tensor([3.0, 4.0])
    with fw(T).dual_level():
        out = Mul.apply(fw(T).make_dual(x, T.ones(2)), y)
        assert lst(fw(T).unpack_dual(out).tangent) == [3.0, 4.0]
    assert seen == [[0.0, 0.0]]


def test_function_without_jvp_raises(T):
    class Twice(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with fw(T).dual_level():
        d = fw(T).make_dual(T.ones(2), T.ones(2))
        with pytest.raises(NotImplementedError, match=exact(
                "You must implement the jvp function for custom autograd.Function to use it with "
                "forward mode AD.")):
            Twice.apply(d)
        assert fw(T).unpack_dual(Twice.apply(T.ones(2))).tangent is None   # no tangent: fine


def test_function_jvp_returning_too_few_tangents(T):
    class Two(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def jvp(ctx, x_t):
            return x_t * 2

    with fw(T).dual_level():
        with pytest.raises(RuntimeError, match=exact(
                "Function's jvp returned an invalid number of forward gradients (expected 2 but "
                "got 1)")):
            Two.apply(fw(T).make_dual(T.ones(2), T.ones(2)))


# ----------------------------------------------------------------- with reverse mode
def test_forward_over_reverse_gives_hessian_vector_products(T):
    """The tangent of a gradient taken with create_graph=True is H v."""
    xs, vs = RNG.standard_normal(4), RNG.standard_normal(4)
    x = T.tensor(xs, requires_grad=True)
    v = T.tensor(vs)
    with fw(T).dual_level():
        d = fw(T).make_dual(x, v)
        y = (d ** 3).sum() + (d[:2] * d[2:]).sum()
        (g,) = T.autograd.grad(y, x, create_graph=True)
        hv = fw(T).unpack_dual(g).tangent
    expected = 6 * xs * vs + np.concatenate([vs[2:], vs[:2]])
    np.testing.assert_allclose(hv.detach().numpy(), expected, rtol=1e-12)


def test_reverse_over_forward_differentiates_the_tangent():
    """The tangent is made of tensorplay ops: reverse mode differentiates it with
    respect to the tangent (J^T) and to the primal (d/dx of J(x) v)."""
    x, v = t64(5, rg=True), t64(5, rg=True)
    with fwAD.dual_level():
        y = fwAD.make_dual(x, v).sin() * 2
        jv = fwAD.unpack_dual(y).tangent
    gx, gv = tp.autograd.grad(jv.sum(), [x, v])
    close(gv, 2 * x.detach().cos())
    close(gx, -2 * x.detach().sin() * v.detach())


def test_reverse_over_forward_against_torch(torch_or_skip):
    torch = torch_or_skip
    xs, vs, us = RNG.standard_normal((3, 3)), RNG.standard_normal((3, 3)), RNG.standard_normal(3)
    res = []
    for T in (tp, torch):
        x = T.tensor(xs, requires_grad=True)
        v = T.tensor(vs, requires_grad=True)
        with fw(T).dual_level():
            d = fw(T).make_dual(x, v)
            y = ((d.sin() @ d) * T.tensor(us)).sum(1).tanh() * d.amax(0)
            jv = fw(T).unpack_dual(y).tangent
        gx, gv = T.autograd.grad(jv.sum(), [x, v])
        res.append((jv.detach().numpy(), gx.detach().numpy(), gv.detach().numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
