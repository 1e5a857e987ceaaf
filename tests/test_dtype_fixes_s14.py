"""Autodiff across dtypes: a reviewer's findings against PyTorch (session 14).

bfloat16 tangents in forward mode, a complex tangent written through
view_as_complex, complex -> real casts of dual tensors, float16 norm and
gelu(tanh) derivatives in float32, where's promotion under transforms,
bfloat16 NaN in unique/mode/median/searchsorted, third derivatives of x ** 2,
and the in-place cast check's order.  Each test runs the same code on
tensorplay and (when installed) torch through the ``T`` fixture, or compares
with torch through ``torch_or_skip``, and checks values against float64
references or finite differences where they apply.
"""
import warnings

import numpy as np
import pytest

import tensorplay as tp

from conftest import exact, lst

nan = float("nan")


def _np(t):
    return t.detach().double().numpy() if not t.is_complex() else t.detach().numpy()


# ---------------------------------------------------------------- F1: bfloat16 tangents
def test_bfloat16_tangents_propagate(T):
    fa = T.autograd.forward_ad
    with fa.dual_level():
        x = fa.make_dual(T.tensor([1.0, 2.0], dtype=T.bfloat16), T.tensor([1.0, 1.0], dtype=T.bfloat16))
        t = fa.unpack_dual(x.sin()).tangent
        assert t is not None and t.dtype == T.bfloat16
        np.testing.assert_allclose(_np(t), np.cos([1.0, 2.0]), atol=1e-2)
        z = fa.make_dual(T.tensor([1.0, 2.0]), T.tensor([1.0, -1.0]))
        t = fa.unpack_dual(z.bfloat16()).tangent
        assert t is not None and t.dtype == T.bfloat16 and lst(t) == [1.0, -1.0]
        t = fa.unpack_dual(z.to(T.bfloat16) * 2).tangent
        assert t is not None and lst(t) == [2.0, -2.0]


def test_bfloat16_func_transforms(T):
    out, t = T.func.jvp(lambda a: a.exp(), (T.tensor([0.5], dtype=T.bfloat16),),
                        (T.tensor([1.0], dtype=T.bfloat16),))
    assert t.dtype == T.bfloat16 and lst(t) == lst(out) and abs(lst(t)[0] - np.exp(0.5)) < 1e-2
    x = T.tensor([0.5, 1.0], dtype=T.bfloat16)
    J = T.func.jacfwd(lambda a: a.sin())(x)
    assert J.dtype == T.bfloat16
    np.testing.assert_allclose(_np(J), np.diag(np.cos([0.5, 1.0])), atol=1e-2)
    np.testing.assert_array_equal(_np(J), _np(T.func.jacrev(lambda a: a.sin())(x)))
    H = T.func.hessian(lambda a: (a ** 3).sum())(x)
    np.testing.assert_array_equal(_np(H), np.diag([3.0, 6.0]))
    Jc = T.func.jacfwd(lambda a: a.bfloat16().float() * 2)(T.tensor([0.5, 1.0]))
    np.testing.assert_array_equal(_np(Jc), 2 * np.eye(2))
    Jf = T.autograd.functional.jacobian(lambda a: a * a, x, vectorize=True, strategy="forward-mode")
    np.testing.assert_array_equal(_np(Jf), np.diag([1.0, 2.0]))
    xb = T.tensor([[0.5, 1.0], [2.0, 3.0]], dtype=T.bfloat16)
    Hb = T.func.vmap(T.func.hessian(lambda a: (a ** 3).sum()))(xb)
    np.testing.assert_array_equal(_np(Hb), [np.diag([3.0, 6.0]), np.diag([12.0, 18.0])])


# ---------------------------------------------------------------- F5: view_as_complex in place
_X0, _DX = np.array([0.5, -1.0]), np.array([1.0, 0.3])
_Z0, _DZ = np.array([1 + 2j, -0.5 + 1j]), np.array([0.2 - 1j, 1 + 0j])


def _vac_np(x, z):
    c = (x + 1j * 2 * x) * z
    return np.stack([c.real, c.imag], -1)


@pytest.mark.parametrize("x_tangent", [True, False])
def test_inplace_through_view_as_complex_keeps_both_halves(T, x_tangent):
    fa = T.autograd.forward_ad
    h = 1e-6
    dx = _DX if x_tangent else 0 * _DX
    fd = ((_vac_np(_X0 + h * dx, _Z0 + h * _DZ) - _vac_np(_X0 - h * dx, _Z0 - h * _DZ)) / (2 * h))
    with fa.dual_level():
        x = fa.make_dual(T.tensor(_X0), T.tensor(_DX)) if x_tangent else T.tensor(_X0)
        z = fa.make_dual(T.tensor(_Z0), T.tensor(_DZ))
        r = T.stack([x, x * 2], -1).contiguous()
        T.view_as_complex(r).mul_(z)
        t = fa.unpack_dual(r).tangent
    np.testing.assert_allclose(t.numpy(), fd, atol=1e-7)


def test_inplace_through_view_as_real_of_a_complex_dual(T):
    fa = T.autograd.forward_ad
    with fa.dual_level():
        z = fa.make_dual(T.tensor([1 + 2j, 3 - 1j]), T.tensor([0.5 + 1j, -1 + 0.25j]))
        w = z.clone()
        s = fa.make_dual(T.tensor([2.0, 3.0], dtype=T.float64), T.tensor([1.0, -1.0], dtype=T.float64))
        T.view_as_real(w)[:, 0].mul_(s)         # the real parts times s
        t = fa.unpack_dual(w).tangent
    expected = np.array([0.5 * 2 + 1 * 1 + 1j, -1 * 3 + 3 * -1 + 0.25j])
    np.testing.assert_allclose(t.numpy(), expected)


# ---------------------------------------------------------------- F10: complex -> real casts
_CASTS = {
    "to_float64": lambda T, z, r: z.to(T.float64),
    "float": lambda T, z, r: z.float(),
    "double": lambda T, z, r: z.double(),
    "half": lambda T, z, r: z.half(),
    "bfloat16": lambda T, z, r: z.bfloat16(),
    "type_as": lambda T, z, r: z.type_as(r),
    "chained": lambda T, z, r: z.to(T.complex64).to(T.float32) * 2,
}


@pytest.mark.parametrize("name", sorted(_CASTS))
def test_complex_to_real_cast_takes_the_real_part_of_the_tangent(T, name):
    fa = T.autograd.forward_ad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with fa.dual_level():
            z = fa.make_dual(T.tensor([1 + 2j, 3 - 1j]), T.tensor([0.5 + 1j, -1 + 0.25j]))
            y = _CASTS[name](T, z, T.tensor([7.0, 8.0], dtype=T.float64))
            p, t = fa.unpack_dual(y)
    assert t is not None and t.dtype == p.dtype and not t.is_complex()
    scale = 2.0 if name == "chained" else 1.0
    assert lst(t) == [0.5 * scale, -1.0 * scale]


def test_complex_written_into_a_real_dual_takes_the_real_part(T):
    fa = T.autograd.forward_ad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with fa.dual_level():
            z = fa.make_dual(T.tensor([1 + 2j, 3 - 1j]), T.tensor([0.5 + 1j, -1 + 0.25j]))
            r = fa.make_dual(T.tensor([7.0, 8.0], dtype=T.float64), T.tensor([1.0, 1.0], dtype=T.float64))
            r2 = r.clone()
            r2.copy_(z)
            assert lst(fa.unpack_dual(r2).tangent) == [0.5, -1.0]
            r3 = T.zeros(2, 2, dtype=T.float64)
            r3[0] = z
            assert lst(fa.unpack_dual(r3).tangent) == [[0.5, -1.0], [0.0, 0.0]]
            r4 = T.zeros(2, dtype=T.float64)
            r4[1:] = z[1:]
            assert lst(fa.unpack_dual(r4).tangent) == [0.0, -1.0]


def test_complex_to_real_cast_reverse_unchanged(T):
    z = T.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z.to(T.float64).backward(T.tensor([1.0, 2.0], dtype=T.float64))
    assert lst(z.grad) == [1 + 0j, 2 + 0j]


# ---------------------------------------------------------------- F3: float16 norm derivatives
_SMALL = [[0.00126, -0.000132, 0.00064, 0.000105]]
_LARGE = [[900.0, -1500.0, 2400.0, 300.0]]
_NORM_CASES = {
    "normalize_small": (lambda L, x: L.nn.functional.normalize(x, dim=1), _SMALL, [[1.0, 0.5, -0.25, 2.0]]),
    "normalize_large": (lambda L, x: L.nn.functional.normalize(x, dim=1), _LARGE, [[1.0, 0.5, -0.25, 2.0]]),
    "pairwise_same": (lambda L, x: L.nn.functional.pairwise_distance(x, x.detach().clone()),
                      [[1.0, 2.0, 3.0]], None),
    "norm_times_100": (lambda L, x: x.norm() * 100, _SMALL, None),
    "vector_norm_p3": (lambda L, x: L.linalg.vector_norm(x, 3, dim=1) * 100, _SMALL, None),
    "dist": (lambda L, x: L.dist(x, L.zeros_like(x)) * 100, _SMALL, None),
    "renorm_large": (lambda L, x: L.renorm(x, 2, 0, 1000.0), _LARGE, [[1.0, 0.5, -0.25, 2.0]]),
}


def _norm_grad(L, dt, f, a, g):
    x = L.tensor(a, dtype=L.float64).to(dt).requires_grad_(True)
    y = f(L, x)
    y.backward(L.ones_like(y) if g is None else L.tensor(g, dtype=L.float64).to(dt))
    return x.grad.double().numpy()


@pytest.mark.parametrize("name", sorted(_NORM_CASES))
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_low_precision_norm_backward_in_float32(name, dt):
    f, a, g = _NORM_CASES[name]
    got = _norm_grad(tp, getattr(tp, dt), f, a, g)
    ref = _norm_grad(tp, tp.float64, f, a, g)
    assert np.isfinite(got).all()
    tol = 1e-2 if dt == "float16" else 4e-2
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * np.abs(ref).max())


# (PyTorch's general-p norm backward overflows float16 itself: inf/nan at these norms)
@pytest.mark.parametrize("name", sorted(set(_NORM_CASES) - {"vector_norm_p3"}))
def test_low_precision_norm_backward_matches_torch(torch_or_skip, name):
    f, a, g = _NORM_CASES[name]
    got = _norm_grad(tp, tp.float16, f, a, g)
    ref = _norm_grad(torch_or_skip, torch_or_skip.float16, f, a, g)
    np.testing.assert_allclose(got, ref, rtol=4e-3, atol=4e-3 * np.abs(ref).max())


def test_low_precision_norm_jvp_in_float32(T):
    fa = T.autograd.forward_ad
    x0 = np.array(_SMALL)
    v = np.array([[1.0, -2.0, 0.5, 3.0]])
    ref = (x0 * v).sum() / np.linalg.norm(x0) * 100
    with fa.dual_level():
        x = fa.make_dual(T.tensor(x0, dtype=T.float16), T.tensor(v, dtype=T.float16))
        t = fa.unpack_dual(T.linalg.vector_norm(x) * 100).tangent
    assert t.dtype == T.float16
    np.testing.assert_allclose(float(t), ref, rtol=1e-2)


def test_low_precision_norm_double_backward():
    x = tp.tensor(_SMALL, dtype=tp.float16, requires_grad=True)
    g, = tp.autograd.grad(x.norm() * 10, x, create_graph=True)      # (a Hessian ~ 10 / norm)
    assert g.dtype == tp.float16 and g.requires_grad
    gg, = tp.autograd.grad(g.sum(), x)
    xd = tp.tensor(_SMALL, dtype=tp.float64, requires_grad=True)
    gd, = tp.autograd.grad(xd.norm() * 10, xd, create_graph=True)
    ggd, = tp.autograd.grad(gd.sum(), xd)
    assert np.isfinite(_np(gg)).all()
    np.testing.assert_allclose(_np(gg), _np(ggd), rtol=2e-2, atol=2e-2 * np.abs(_np(ggd)).max())


# ---------------------------------------------------------------- F4: gelu(tanh) in float16
_GELU_X = [-1000.0, -50.0, -5.0, 3.0, 5.0, 10.0, 100.0, 1000.0, -60000.0]


def test_gelu_tanh_half_gradient_finite(T):
    x = T.tensor(_GELU_X, dtype=T.float16, requires_grad=True)
    T.nn.functional.gelu(x, approximate="tanh").sum().backward()
    g = _np(x.grad)
    assert np.isfinite(g).all()
    assert g[-2] == 1.0 and g[0] == 0.0 and g[-1] == 0.0
    xd = T.tensor(_GELU_X, dtype=T.float64, requires_grad=True)
    T.nn.functional.gelu(xd, approximate="tanh").sum().backward()
    np.testing.assert_allclose(g, _np(xd.grad), rtol=2e-2, atol=1e-3)


def test_gelu_tanh_half_gradient_matches_torch(torch_or_skip):
    out = []
    for L in (tp, torch_or_skip):
        x = L.tensor(_GELU_X, dtype=L.float16, requires_grad=True)
        L.nn.functional.gelu(x, approximate="tanh").sum().backward()
        out.append(_np(x.grad))
    np.testing.assert_array_equal(out[0], out[1])


def test_gelu_tanh_half_tangent_finite(T):
    fa = T.autograd.forward_ad
    with fa.dual_level():
        x = fa.make_dual(T.tensor(_GELU_X, dtype=T.float16), T.ones(len(_GELU_X), dtype=T.float16))
        t = fa.unpack_dual(T.nn.functional.gelu(x, approximate="tanh")).tangent
    assert np.isfinite(_np(t)).all() and _np(t)[-2] == 1.0


def test_gelu_tanh_gradgrad_float64_unchanged():
    x = tp.tensor([-1.5, 0.3, 2.0], dtype=tp.float64, requires_grad=True)
    assert tp.autograd.gradcheck(lambda a: tp.nn.functional.gelu(a, approximate="tanh"), (x,))
    assert tp.autograd.gradgradcheck(lambda a: tp.nn.functional.gelu(a, approximate="tanh"), (x,))


# ---------------------------------------------------------------- F6: where under transforms
def test_where_promotes_as_pytorch_under_a_dual_level(T):
    fa = T.autograd.forward_ad
    x = T.tensor([1.0, -2.0])
    with fa.dual_level():
        xd = fa.make_dual(x, T.tensor([1.0, 1.0]))
        r = T.where(xd > 0, xd, T.tensor([5, 6]))
        p, t = fa.unpack_dual(r)
        assert p.dtype == T.float32 and t.dtype == T.float32 and lst(t) == [1.0, 0.0]
        assert lst(p) == [1.0, 6.0]
        assert T.where(xd > 0, xd, 0.5).dtype == T.float32
        assert T.where(x > 0, x, T.tensor([1.0, 2.0], dtype=T.float64)).dtype == T.float64
        assert T.where(x > 0, 1, T.tensor(2.0, dtype=T.float16)).dtype == T.float16


def test_where_promotes_as_pytorch_under_vmap(T):
    f0 = lambda a: T.where(a > 0, a, T.tensor(3))
    f1 = lambda a: T.where(a > 0, a, T.tensor([1, 2, 3]))
    assert T.func.vmap(f0)(T.ones(2, 3)).dtype == T.float32
    assert T.func.vmap(f1)(T.ones(2, 3)).dtype == T.float32
    assert T.func.jacfwd(f1)(T.ones(3)).dtype == T.float32
    r = T.func.vmap(lambda a: T.where(a > 0, a, T.ones(3, dtype=T.bfloat16)))(T.ones(2, 3, dtype=T.float16))
    assert r.dtype == T.float32
    r = T.func.vmap(lambda a: T.where(a > 0, a, T.tensor([7, 8, 9])))(-T.ones(2, 3, dtype=T.float16))
    assert r.dtype == T.float16 and lst(r) == [[7.0, 8.0, 9.0]] * 2


def test_where_condition_checked_under_a_transform(T):
    msg = "where expected condition to be a boolean tensor, but got a tensor with dtype Float"
    with pytest.raises(RuntimeError, match=exact(msg)):
        T.func.vmap(lambda a: T.where(a, a, 0.0))(T.ones(2, 3))
    r = T.func.vmap(lambda a: T.where((a > 0).to(T.uint8), a, -a))(T.tensor([[1.0, -2.0]]))
    assert lst(r) == [[1.0, 2.0]]


# ---------------------------------------------------------------- F7: bfloat16 NaN ordering
_SORT_CASES = {
    "unique": lambda L, dt: L.unique(L.tensor([1.0, nan, 1.0, 2.0, 2.0], dtype=dt)).tolist(),
    "unique_counts": lambda L, dt: [t.tolist() for t in L.unique(L.tensor([3.0, nan, 3.0, 1.0], dtype=dt),
                                                                    return_counts=True)],
    "unique_inverse": lambda L, dt: L.unique(L.tensor([2.0, nan, 1.0, 2.0], dtype=dt),
                                             return_inverse=True)[1].tolist(),
    "median_empty": lambda L, dt: L.median(L.tensor([], dtype=dt)).item(),
    "searchsorted": lambda L, dt: L.searchsorted(L.tensor([1.0, 2.0, 3.0], dtype=dt),
                                                 L.tensor([nan, 2.5, 0.0], dtype=dt)).tolist(),
    "mode_no_nan": lambda L, dt: (lambda m: (m.values.tolist(), m.indices.tolist()))(
        L.mode(L.tensor([[2.0, 3.0, 2.0, 1.0, 3.0, 3.0]], dtype=dt), 1)),
}


@pytest.mark.parametrize("name", sorted(_SORT_CASES))
def test_bfloat16_sorting_kernels_order_nan(T, name):
    f = _SORT_CASES[name]
    got, ref = f(T, T.bfloat16), f(T, T.float32)
    assert str(got) == str(ref)


def test_bfloat16_sorting_kernels_values():
    assert str(_SORT_CASES["unique"](tp, tp.bfloat16)) == str([1.0, 2.0, nan])
    assert str(_SORT_CASES["unique_counts"](tp, tp.bfloat16)) == str([[1.0, 3.0, nan], [1, 2, 1]])
    assert np.isnan(_SORT_CASES["median_empty"](tp, tp.bfloat16))
    u = tp.unique(tp.tensor([[1.0], [nan], [1.0], [0.5]], dtype=tp.bfloat16), dim=0)
    # (PyTorch's sort of rows with a NaN leaves the two [1.0] rows apart: torch 2.13 gives this too)
    assert u.dtype == tp.bfloat16 and str(u.ravel().tolist()) == str([0.5, 1.0, nan, 1.0])
    m = tp.mode(tp.tensor([[2.0, nan, 2.0, 1.0, nan, nan]], dtype=tp.bfloat16), 1)
    f = tp.mode(tp.tensor([[2.0, nan, 2.0, 1.0, nan, nan]]), 1)
    assert m.values.dtype == tp.bfloat16
    assert str(m.values.tolist()) == str(f.values.tolist()) and m.indices.tolist() == f.indices.tolist()


# ---------------------------------------------------------------- F11: third derivatives of x ** 2
_SQUARES = {
    "square": lambda T, x: T.square(x),
    "pow2": lambda T, x: x ** 2,
    "pow2_method": lambda T, x: x.pow(2),
    "double_pow2": lambda T, x: x.double() ** 2,
    "pow3": lambda T, x: x ** 3,
}


@pytest.mark.parametrize("name", sorted(_SQUARES))
def test_third_derivative_of_a_square(T, name):
    x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    g1, = T.autograd.grad(_SQUARES[name](T, x).sum(), x, create_graph=True)
    g2, = T.autograd.grad(g1.sum(), x, create_graph=True)
    assert g2.requires_grad
    g3, = T.autograd.grad(g2.sum(), x)
    cube = name == "pow3"
    assert lst(g1) == ([3.0, 12.0] if cube else [2.0, 4.0])
    assert lst(g2) == ([6.0, 12.0] if cube else [2.0, 2.0])
    assert lst(g3) == ([6.0, 6.0] if cube else [0.0, 0.0])


def test_square_first_derivative_keeps_its_values(T):
    x = T.tensor([0.1, -1.5, 0.0], requires_grad=True)      # (g * (2x): no 2g to overflow)
    seed = T.tensor([3e38, 1.0, 1.0])
    for create_graph in (False, True):
        g, = T.autograd.grad(T.square(x), x, seed, create_graph=create_graph)
        g2, = T.autograd.grad(x ** 2, x, seed, create_graph=create_graph)
        assert lst(g) == lst(g2)
        assert np.isfinite(_np(g)).all() and lst(g)[1:] == [-3.0, 0.0]


def test_square_gradgradcheck():
    x = tp.tensor([0.7, -1.3, 2.0], dtype=tp.float64, requires_grad=True)
    assert tp.autograd.gradgradcheck(lambda a: tp.square(a) * a, (x,))
    z = tp.tensor([0.7 + 0.2j, -1.3j], dtype=tp.complex128, requires_grad=True)
    assert tp.autograd.gradgradcheck(lambda a: (a ** 2).abs(), (z,))


# ---------------------------------------------------------------- sev 4
_CAST_FIRST = {
    "atan2_": lambda T, x, c: x.atan2_(c),
    "hypot_": lambda T, x, c: x.hypot_(c),
    "fmod_": lambda T, x, c: x.fmod_(c),
    "remainder_": lambda T, x, c: x.remainder_(c),
    "copysign_": lambda T, x, c: x.copysign_(c),
    "clamp_": lambda T, x, c: x.clamp_(c, c),
    "clamp_min_": lambda T, x, c: x.clamp_(min=c),
    "div_floor_": lambda T, x, c: x.div_(c, rounding_mode="floor"),
    "floor_divide_": lambda T, x, c: x.floor_divide_(c),
    "xlogy_": lambda T, x, c: x.xlogy_(c),
    "fmod_number": lambda T, x, c: x.fmod_(1j),
}


@pytest.mark.parametrize("name", sorted(_CAST_FIRST))
def test_inplace_checks_the_cast_first(T, name):
    x = T.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match=exact("result type ComplexFloat can't be cast to the "
                                                 "desired output type Float")):
        _CAST_FIRST[name](T, x, T.tensor([1 + 1j, 2 + 0j], dtype=T.complex64))
    assert lst(x) == [1.0, 2.0]


def test_inplace_cast_first_integer_self(T):
    for f in (lambda x: x.atan2_(T.tensor([1.5, 2.0])), lambda x: x.bitwise_and_(T.tensor([1.0, 0.0]))):
        with pytest.raises(RuntimeError, match=exact("result type Float can't be cast to the desired "
                                                     "output type Long")):
            f(T.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="ComplexDouble can't be cast to the desired output type Float"):
        T.tensor([1.0, 2.0]).div_(T.tensor([1 + 1j, 2j], dtype=T.complex128), rounding_mode="trunc")
    # the op's own refusal where it comes first in PyTorch too
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for complex tensors"):
        T.tensor([1.0, 2.0]).heaviside_(T.tensor([1 + 1j, 2j], dtype=T.complex64))


@pytest.mark.parametrize("a,b,two", [([1.0, 2.0], [True, False], False), ([True, False], [1.0, 2.0], False),
                                     ([True, False], [True, True], True), ([1, 2], [True, False], False)])
def test_dist_refuses_bool_as_subtraction(T, a, b, two):
    msg = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
           "`logical_xor()` operator instead.") if two else (
        "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
        "invert a mask, use the `~` or `logical_not()` operator instead.")
    with pytest.raises(RuntimeError, match=exact(msg)):
        T.dist(T.tensor(a), T.tensor(b))


def test_half_scan_overflow_is_silent(T):
    a = T.tensor([[250.0, 250.0, -250.0, -250.0, 3.0]], dtype=T.float16, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # (the product's own overflow to inf: not the scan's)
        big = a * 1000
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = big.cumsum(1)
        y.backward(T.ones_like(y))
        c = T.tensor([3e38, 3e38]).cumsum(0)
        p = big.detach().cumprod(1)
        q = T.tensor([60000.0, 60000.0], dtype=T.float16).cumsum(0)
    assert str(lst(y)) == str([[float("inf"), float("inf"), nan, nan, nan]])
    assert lst(c)[1] == float("inf") and lst(p)[0][:2] == [float("inf")] * 2
    assert lst(q) == [60000.0, float("inf")]


# ---------------------------------------------------------------- F9 and F13
def test_ldexp_integer_input_with_half_scalar_exponent():
    r = tp.ldexp(tp.tensor([1, 2, 3]), tp.tensor(2.0, dtype=tp.float16))
    assert r.dtype == tp.float16 and lst(r) == [4.0, 8.0, 12.0]


def test_to_takes_non_blocking_and_copy_by_position():
    x = tp.tensor([1.0, 2.0], requires_grad=True)
    assert x.to(tp.float64, False, True).dtype == tp.float64
    y = x.to(tp.float32, False, True)
    assert y is not x and lst(y) == [1.0, 2.0]
    assert x.to(tp.float32, False, False) is x
    assert x.to("cpu", tp.float64, False, True).dtype == tp.float64
    assert x.to(x.double(), False, True).dtype == tp.float64
