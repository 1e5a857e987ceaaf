"""Custom ``autograd.Function`` fixes: keyword arguments bound to forward's
signature, mark_dirty on unrecorded calls, the vmap staticmethod's in_dims,
nested generated vmap rules, forward-mode functional.jacobian over a Function
without a vmap rule, messages, permute's saved dims.  Runs on tensorplay and,
when installed, on torch (the ``T`` fixture); gradients are also checked
against float64 finite differences."""
import numpy as np
import pytest

from conftest import exact, lst

RNG = np.random.default_rng(1234)
XA = RNG.standard_normal(4)
YA = RNG.standard_normal(4)


def fd_grad(f, arrays, k, eps=1e-6):
    """Central differences of the scalar ``f(*arrays)`` along ``arrays[k]``."""
    g = np.zeros_like(arrays[k])
    for j in range(arrays[k].size):
        plus = [a.copy() for a in arrays]
        minus = [a.copy() for a in arrays]
        plus[k].flat[j] += eps
        minus[k].flat[j] -= eps
        g.flat[j] = (f(*plus) - f(*minus)) / (2 * eps)
    return g


def ref(x, y, scale):
    return float((np.sin(x) * y * scale).sum())


def sin_mul(T, new_style):
    if new_style:
        class SinMul(T.autograd.Function):
            @staticmethod
            def forward(x, y, scale=2.0):
                return x.sin() * y * scale

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, y, scale = inputs            # defaults are bound too
                ctx.save_for_backward(x, y)
                ctx.scale = scale

            @staticmethod
            def backward(ctx, g):
                x, y = ctx.saved_tensors
                return g * x.cos() * y * ctx.scale, g * x.sin() * ctx.scale, None
    else:
        class SinMul(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, y, scale=2.0):
                ctx.save_for_backward(x, y)
                ctx.scale = scale
                return x.sin() * y * scale

            @staticmethod
            def backward(ctx, g):
                x, y = ctx.saved_tensors
                return g * x.cos() * y * ctx.scale, g * x.sin() * ctx.scale, None
    return SinMul


# ------------------------------------------------------------------ F1: keyword arguments
@pytest.mark.parametrize("new_style", [True, False])
@pytest.mark.parametrize("how", ["positional", "y_kw", "scale_kw", "both_kw"])
def test_apply_binds_keywords(T, new_style, how):
    F = sin_mul(T, new_style)
    x = T.tensor(XA, dtype=T.float64, requires_grad=True)
    y = T.tensor(YA, dtype=T.float64, requires_grad=True)
    if how == "positional":
        out, scale = F.apply(x, y, 3.0), 3.0
    elif how == "y_kw":
        out, scale = F.apply(x, y=y), 2.0
    elif how == "scale_kw":
        out, scale = F.apply(x, y, scale=3.0), 3.0
    else:
        out, scale = F.apply(x, y=y, scale=3.0), 3.0
    assert len(out.grad_fn.next_functions) == 2
    out.sum().backward()
    np.testing.assert_allclose(lst(x.grad), fd_grad(lambda a, b: ref(a, b, scale), [XA, YA], 0),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(lst(y.grad), fd_grad(lambda a, b: ref(a, b, scale), [XA, YA], 1),
                               rtol=1e-6, atol=1e-8)


def test_setup_context_sees_bound_inputs(T):
    seen = []

    class F(T.autograd.Function):
        @staticmethod
        def forward(x, y, scale=1.5):
            return x * y * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen.append((len(inputs), inputs[2], ctx.needs_input_grad))

        @staticmethod
        def backward(ctx, g):
            return g, g, None

    x = T.ones(2, requires_grad=True)
    y = T.ones(2)
    F.apply(x, y=y)
    F.apply(y, y=x, scale=4.0)
    assert seen == [(3, 1.5, (True, False, False)), (3, 4.0, (False, True, False))]


def test_default_applied_when_omitted_under_func_grad(T):
    F = sin_mul(T, True)
    x = T.tensor(XA, dtype=T.float64)
    y = T.tensor(YA, dtype=T.float64)
    gx, gy = T.func.grad(lambda a, b: F.apply(a, y=b, scale=3.0).sum(), argnums=(0, 1))(x, y)
    np.testing.assert_allclose(lst(gx), fd_grad(lambda a, b: ref(a, b, 3.0), [XA, YA], 0),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(lst(gy), fd_grad(lambda a, b: ref(a, b, 3.0), [XA, YA], 1),
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("new_style", [True, False])
def test_bad_keywords_raise_type_error(T, new_style):
    F = sin_mul(T, new_style)
    x = T.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        F.apply(x, x, z=1)
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        F.apply(x, x, x=x)


def test_old_style_keyword_gap_raises(T):
    F = sin_mul(T, False)
    x = T.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match=exact("forward() missing required argument: 'y' "
                                              "(position 1)")):
        F.apply(x, scale=3.0)


def test_new_style_missing_argument(T):
    F = sin_mul(T, True)
    with pytest.raises(TypeError, match=exact("missing a required argument: 'y'")):
        F.apply(T.ones(2))


# ------------------------------------------------------------------ F2: mark_dirty, unrecorded
def triple(T):
    class Triple(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.data.mul_(3)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 3
    return Triple


def test_dirty_under_no_grad_bumps_version(T):
    x = T.tensor([0.5, 1.0], requires_grad=True)
    z = x * 1
    w = z.sin()                         # saves z
    with T.no_grad():
        triple(T).apply(z)
    assert z._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        w.sum().backward()


def test_dirty_constant_saved_elsewhere(T):
    y = T.tensor([2.0, 5.0], requires_grad=True)
    z = T.ones(2)
    w = z * y                           # saves z
    out = triple(T).apply(z)
    assert out is z and z._version == 1 and not out.requires_grad
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        w.sum().backward()


def test_dirty_not_returned_unrecorded(T):
    class Bad(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(3)
            ctx.mark_dirty(x)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g * 3
    with pytest.raises(RuntimeError, match="^Some elements marked as dirty during the forward "
                                           "method were not returned as output."):
        Bad.apply(T.ones(2))


def test_dirty_no_grad_view_refused_in_grad_mode(T):
    z = T.ones(2, 2, requires_grad=True).clone()
    with T.no_grad():
        v = z[0]
    with pytest.raises(RuntimeError, match=exact("a leaf Variable that requires grad has been used "
                                                 "in an in-place operation.")):
        triple(T).apply(v)
    # under no_grad the call goes through (and the view's history is then refused)
    z = T.ones(2, 2, requires_grad=True).clone()
    with T.no_grad():
        v = z[0]
        out = triple(T).apply(v)
    assert out is not v and lst(z) == [[3.0, 3.0], [1.0, 1.0]] and v._version == 1


def test_dirty_leaf_under_no_grad_returns_alias(T):
    x = T.ones(2, requires_grad=True)
    with T.no_grad():
        out = triple(T).apply(x)
    assert out is not x and not out.requires_grad and x._version == 1
    assert lst(x) == [3.0, 3.0]


def test_save_for_backward_non_tensor_only_checked_when_recorded(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    assert lst(F.apply(T.ones(2))) == [2.0, 2.0]
    with T.no_grad():
        F.apply(T.ones(2, requires_grad=True))
    with pytest.raises(TypeError, match=exact("save_for_backward can only save variables, but "
                                              "argument 1 is of type int")):
        F.apply(T.ones(2, requires_grad=True))


# ------------------------------------------------------------------ F3: the vmap staticmethod
def scaled(T, seen, ret=None):
    class Scaled(T.autograd.Function):
        @staticmethod
        def forward(x, k):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2, None

        @staticmethod
        def vmap(info, in_dims, x, k):
            seen.append((in_dims, tuple(x.shape), info.batch_size))
            if ret is not None:
                return ret(x, k)
            return x * k, in_dims[0]
    return Scaled


def test_vmap_rule_sees_user_layout(T):
    seen = []
    F = scaled(T, seen)
    X = T.arange(6.).reshape(2, 3)
    r = T.func.vmap(F.apply, in_dims=(-1, None))(X, 3)
    assert seen == [((1, None), (2, 3), 3)]
    assert lst(r) == lst(X.t() * 3)
    seen.clear()
    r = T.func.vmap(lambda x: F.apply(F.apply(x, 2), 3), in_dims=1)(X)
    assert seen == [((1, None), (2, 3), 3)] * 2
    assert lst(r) == lst(X.t() * 6)
    seen.clear()
    r = T.func.vmap(T.func.vmap(F.apply, in_dims=(0, None)), in_dims=(1, None))(
        X.reshape(2, 3, 1), 2)
    assert seen == [((0, None), (2, 1), 2)]
    assert tuple(r.shape) == (3, 2, 1)


@pytest.mark.parametrize("ret,msg", [
    (lambda x, k: (x * k,), "Got 1 returns instead"),
    (lambda x, k: (x * k, 0, 1), "Got 3 returns instead"),
])
def test_vmap_rule_must_return_two(T, ret, msg):
    F = scaled(T, [], ret)
    with pytest.raises(RuntimeError, match=exact(
            "Expected the vmap staticmethod to have two returns, an output and out_dims with "
            "pytree structure compatible with the output. " + msg)):
        T.func.vmap(F.apply, in_dims=(0, None))(T.ones(2, 3), 2)


def test_vmap_rule_single_value(T):
    F = scaled(T, [], lambda x, k: x * k)
    with pytest.raises(RuntimeError, match="^Expected the vmap staticmethod to have two returns, "
                                           "an output and out_dims with pytree structure "
                                           "compatible with the output. Got a <class "):
        T.func.vmap(F.apply, in_dims=(0, None))(T.ones(2, 3), 2)


# ------------------------------------------------------------------ F4: nested generated rules
def gen_sin_mul(T):
    class SinMul(T.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x, y):
            return x.sin() * y

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)
            ctx.save_for_forward(*inputs)

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * x.cos() * y, g * x.sin()

        @staticmethod
        def jvp(ctx, tx, ty):
            x, y = ctx.saved_tensors
            return tx * x.cos() * y + ty * x.sin()
    return SinMul


def test_nested_generated_vmap(T):
    X = np.random.default_rng(5).standard_normal((2, 3, 4))
    F = gen_sin_mul(T)
    x, y = T.tensor(X), T.tensor(X * 2)
    r = T.func.vmap(T.func.vmap(F.apply))(x, y)
    np.testing.assert_allclose(lst(r), np.sin(X) * X * 2, rtol=1e-6)
    # the Jacobian of x.sin() * y in x, per sample: diag(cos(x) * y)
    j = T.func.vmap(T.func.jacfwd(F.apply))(x[0], y[0])
    want = np.stack([np.diag(np.cos(X[0, i]) * X[0, i] * 2) for i in range(3)])
    np.testing.assert_allclose(lst(j), want, rtol=1e-5, atol=1e-6)
    g = T.func.vmap(T.func.vmap(T.func.grad(lambda a, b: F.apply(a, b).sum())))(x, y)
    np.testing.assert_allclose(lst(g), np.cos(X) * X * 2, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ F5: functional forward mode
def old_sin(T):
    class Sin(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x.cos()

        @staticmethod
        def jvp(ctx, t):
            x, = ctx.saved_tensors
            return t * x.cos()
    return Sin


def test_functional_forward_mode_without_vmap_rule(T):
    F = old_sin(T)
    x = T.tensor(XA, dtype=T.float64)
    J = T.autograd.functional.jacobian(F.apply, x, vectorize=True, strategy="forward-mode")
    np.testing.assert_allclose(lst(J), np.diag(np.cos(XA)), rtol=1e-10, atol=1e-12)
    H = T.autograd.functional.hessian(lambda a: F.apply(a).exp().sum(), x, vectorize=True,
                                      outer_jacobian_strategy="forward-mode")
    # d2/dx2 exp(sin x) = exp(sin x) (cos^2 x - sin x), on the diagonal
    want = np.diag(np.exp(np.sin(XA)) * (np.cos(XA) ** 2 - np.sin(XA)))
    np.testing.assert_allclose(lst(H), want, rtol=1e-8, atol=1e-10)
    # against finite differences of the gradient
    fd = np.stack([fd_grad(lambda a, i=i: float(np.exp(np.sin(a[i])) * np.cos(a[i])), [XA], 0)
                   for i in range(4)])
    np.testing.assert_allclose(lst(H), fd, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ F6: messages
def test_backward_returning_float(T):
    class W(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return 2.0
    x = T.tensor(1.0, requires_grad=True)
    with pytest.raises(RuntimeError, match=exact("expected Variable or None (got float)")):
        W.apply(x).backward()


# ------------------------------------------------------------------ F7: saved attributes
def test_permute_saved_dims(T):
    x = T.ones(2, 3, 4, requires_grad=True)
    assert tuple(x.permute(1, 0, 2).grad_fn._saved_dims) == (1, 0, 2)
    assert tuple(x.permute(2, 1, 0).grad_fn._saved_dims) == (2, 1, 0)


def test_vmap_rule_incompatible_out_dims(T):
    F = scaled(T, [], lambda x, k: (x * k, (0,)))
    with pytest.raises(RuntimeError, match=exact(
            "The autograd.Function's vmap staticmethod returned an incompatible (output, out_dims) "
            "tuple. Expected out_dims=(0,) to be compatible with the structure of `output`. "
            "out_dims has structure TreeSpec(tuple, None, [*]) but output has structure *. For "
            "more details, please see https://pytorch.org/docs/main/notes/extending.func.html")):
        T.func.vmap(F.apply, in_dims=(0, None))(T.ones(2, 3), 2)


def test_dirty_no_grad_view_refused_when_recorded(T):
    class Triple2(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            x.data.mul_(3)
            ctx.mark_dirty(x)
            return x, y * 1

        @staticmethod
        def backward(ctx, g, h):
            return g * 3, h
    z = T.ones(2, 2, requires_grad=True).clone()
    with T.no_grad():
        v = z[0]
    with pytest.raises(RuntimeError, match=exact("a leaf Variable that requires grad has been used "
                                                 "in an in-place operation.")):
        Triple2.apply(v, T.ones(2, requires_grad=True))
