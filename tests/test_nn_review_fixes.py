"""Fixes of differences from PyTorch 2.13 in tensorplay.nn.functional found in
review: cosine_similarity's gradient below eps, grid_sample's gradient at the
clip bounds and its NaN/inf grids, multilabel_margin_loss under a float64
default dtype, gaussian_nll_loss's var shapes, normalize of an empty tensor
with p=inf, attention's float32 mask and shape errors, MultiheadAttention's
assertions, the normalisations' parameter dtypes, huber/soft_margin result
dtypes.

Tests that take the ``T`` fixture run the same code on tensorplay and on torch
(when installed) against hand-computed expectations; the rest compare with
torch directly and skip without it.
"""
import math

import numpy as np
import pytest

import tensorplay as tp

from conftest import torch, detached_np as _np, error_of as _err

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")
pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning:torch"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:torch")]




# ------------------------------------------------------------------ 1. cosine_similarity
def test_cosine_similarity_clamp_is_not_differentiated(T):
    """Below eps the norm's value is eps but its gradient is the norm's own
    (PyTorch clamps it in place under no_grad)."""
    u = np.array([[0.1, 0.2, 0.0]])
    v = np.array([[1.0, -2.0, 0.5]])
    a = T.tensor(u, dtype=T.float64, requires_grad=True)
    b = T.tensor(v, dtype=T.float64, requires_grad=True)
    y = T.nn.functional.cosine_similarity(a, b, eps=0.5)
    y.sum().backward()
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    dot = float((u * v).sum())
    want_y = dot / (0.5 * nv)                           # |u| < eps: its value is eps ...
    want_gu = v / (0.5 * nv) - dot / (0.5 ** 2 * nv) * u / nu   # ... its gradient |u|'s
    want_gv = u / (0.5 * nv) - dot / (0.5 * nv ** 2) * v / nv
    np.testing.assert_allclose(_np(y), [want_y], rtol=1e-12)
    np.testing.assert_allclose(_np(a.grad), want_gu, rtol=1e-12)
    np.testing.assert_allclose(_np(b.grad), want_gv, rtol=1e-12)
    np.testing.assert_allclose(_np(a.grad), [[1.107087578451618, -1.277311086872643, 0.436435780471985]],
                               rtol=1e-12)


@needs_torch
def test_cosine_similarity_second_order_and_forward_mode_vs_torch():
    # (no zero row: PyTorch's norm has a NaN second derivative at 0, tensorplay's 0)
    u = np.array([[0.1, 0.2, 0.0], [1.0, 2.0, -1.0], [0.0, 1e-3, 0.0]])
    v = np.array([[1.0, -2.0, 0.5], [0.3, 0.1, 0.2], [1.0, 2.0, 3.0]])
    tu = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [1.0, -1.0, 0.5]])

    def run(lib):
        a = lib.tensor(u, requires_grad=True)
        b = lib.tensor(v, requires_grad=True)
        y = lib.nn.functional.cosine_similarity(a, b, eps=0.5)
        ga, gb = lib.autograd.grad(y.sum(), (a, b), create_graph=True)
        h = lib.autograd.grad((ga * ga).sum() + (gb ** 3).sum(), (a, b))
        return [_np(t) for t in (y, ga, gb) + tuple(h)]
    for want, got in zip(run(torch), run(tp)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)

    import tensorplay.autograd.forward_ad as pfwd
    import torch.autograd.forward_ad as tfwd
    with tfwd.dual_level():
        d = tfwd.make_dual(torch.tensor(u), torch.tensor(tu))
        want = tfwd.unpack_dual(torch.nn.functional.cosine_similarity(d, torch.tensor(v), eps=0.5)).tangent
    with pfwd.dual_level():
        d = pfwd.make_dual(tp.tensor(u), tp.tensor(tu))
        got = pfwd.unpack_dual(tp.nn.functional.cosine_similarity(d, tp.tensor(v), eps=0.5)).tangent
    np.testing.assert_allclose(_np(got), want.numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
def test_cosine_similarity_half_vs_torch():
    u = np.array([[10.0, 20.0, 0.0], [100.0, 200.0, -100.0]])
    v = np.array([[300.0, -600.0, 150.0], [90.0, 30.0, 60.0]])
    for scale, eps in ((1.0, 1e-8), (1e-6, 1e-3)):
        want = torch.nn.functional.cosine_similarity(torch.tensor(u * scale, dtype=torch.float16),
                                                     torch.tensor(v, dtype=torch.float16), eps=eps)
        got = tp.nn.functional.cosine_similarity(tp.tensor(u * scale, dtype=tp.float16),
                                                 tp.tensor(v, dtype=tp.float16), eps=eps)
        assert got.dtype == tp.float16
        np.testing.assert_array_equal(_np(got), want.numpy())


def test_cosine_similarity_integer_operand(T):
    F = T.nn.functional
    y = F.cosine_similarity(T.tensor([[1, 2, 3]]), T.tensor([[1.0, 0.0, 1.0]]))
    assert y.dtype == T.float32 and y.item() == pytest.approx(4 / math.sqrt(28), rel=1e-6)
    y = F.cosine_similarity(T.tensor([[True, False, True]]), T.tensor([[1.0, 0.0, 1.0]], dtype=T.float64))
    assert y.dtype == T.float64 and y.item() == pytest.approx(1.0, rel=1e-12)


def test_cosine_similarity_gradcheck_away_from_eps():
    g = np.random.default_rng(3)
    a = tp.tensor(g.standard_normal((3, 4)), requires_grad=True)
    b = tp.tensor(g.standard_normal((3, 4)), requires_grad=True)
    f = lambda x, y: tp.nn.functional.cosine_similarity(x, y, dim=1)      # noqa: E731
    assert tp.autograd.gradcheck(f, (a, b))
    assert tp.autograd.gradgradcheck(f, (a, b))


# ------------------------------------------------------------------ 2. grid_sample
@pytest.mark.parametrize("padding_mode,align_corners,point,want_value,want_grad", [
    ("border", True, [1.0, 0.0], 7.0, [0.0, 4.0]),          # x at the bound: gradient 0
    ("border", False, [-0.75, 0.0], 4.0, [0.0, 6.0]),
    ("reflection", False, [1.25, 0.0], 7.0, [0.0, 6.0]),    # reflected onto the bound
    ("reflection", False, [-1.25, 0.0], 4.0, [0.0, 6.0]),
    ("reflection", True, [1.0, 0.0], 7.0, [0.0, 4.0]),
    ("border", True, [0.5, 0.0], 6.25, [1.5, 4.0]),         # inside: the slope
])
def test_grid_sample_grid_gradient_at_the_clip_bounds(T, padding_mode, align_corners, point, want_value,
                                                      want_grad):
    x = T.arange(12.0, dtype=T.float64).reshape(1, 1, 3, 4)
    g = T.tensor([[[point]]], dtype=T.float64, requires_grad=True)
    y = T.nn.functional.grid_sample(x, g, padding_mode=padding_mode, align_corners=align_corners)
    y.sum().backward()
    assert y.item() == want_value
    np.testing.assert_allclose(_np(g.grad).ravel(), want_grad, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_grid_sample_sweep_vs_torch(dtype):
    x = np.arange(12.0).reshape(1, 1, 3, 4)
    pts = [-1.5, -1.25, -1.0, -0.75, -0.5, 0.0, 0.3, 0.5, 0.75, 1.0, 1.25, 1.5, 2.75, 3.0, -3.25]
    grid = np.array([[[[a, b] for a in pts] for b in pts[::3]]])
    w = np.random.default_rng(1).standard_normal((1, 1) + grid.shape[1:3])
    for pm in ("zeros", "border", "reflection"):
        for ac in (True, False):
            for mode in ("bilinear", "nearest"):
                res = []
                for lib in (torch, tp):
                    dt = getattr(lib, dtype)
                    X = lib.tensor(x, dtype=dt, requires_grad=True)
                    G = lib.tensor(grid, dtype=dt, requires_grad=True)
                    y = lib.nn.functional.grid_sample(X, G, mode=mode, padding_mode=pm, align_corners=ac)
                    (y * lib.tensor(w, dtype=dt)).sum().backward()
                    res.append([_np(y), _np(X.grad), _np(G.grad)])
                for want, got in zip(*res):
                    np.testing.assert_allclose(got, want, atol=1e-5, err_msg=f"{pm} {ac} {mode}")


@pytest.mark.parametrize("padding_mode,mode,point,want", [
    ("zeros", "bilinear", [math.nan, 0.0], math.nan),
    ("zeros", "bilinear", [math.inf, 0.0], math.nan),
    ("zeros", "nearest", [math.nan, 0.0], 0.0),
    ("zeros", "bilinear", [1e30, 0.0], 0.0),
    ("border", "bilinear", [math.nan, 0.0], 4.0),            # NaN clipped to 0 (PyTorch's CPU kernel)
    ("border", "bilinear", [math.inf, 0.0], 7.0),
    ("border", "nearest", [math.nan, 0.0], 4.0),
    ("reflection", "bilinear", [math.nan, 0.0], 4.0),
    ("reflection", "bilinear", [-math.inf, 0.3], 5.8),
])
def test_grid_sample_nan_inf_grid_values(T, padding_mode, mode, point, want):
    """A NaN or infinite grid point gives PyTorch's values instead of an index error."""
    x = T.arange(12.0, dtype=T.float64).reshape(1, 1, 3, 4)
    g = T.tensor([[[point]]], dtype=T.float64)
    y = T.nn.functional.grid_sample(x, g, mode=mode, padding_mode=padding_mode, align_corners=False)
    np.testing.assert_allclose(_np(y).ravel(), [want], rtol=1e-12)


def test_grid_sample_nan_grid_gradients():
    """(PyTorch's CPU backward crashes on some of these; tensorplay's gradients
    follow its forward: a point clipped from NaN to 0 has gradient 0.)"""
    x = tp.arange(12.0, dtype=tp.float64).reshape(1, 1, 3, 4).requires_grad_()
    g = tp.tensor([[[[math.nan, 0.0], [0.2, math.nan]]]], dtype=tp.float64, requires_grad=True)
    y = tp.nn.functional.grid_sample(x, g, padding_mode="border", align_corners=True)
    y.sum().backward()
    np.testing.assert_allclose(_np(y).ravel(), [4.0, 1.8], rtol=1e-12)
    np.testing.assert_allclose(_np(g.grad).reshape(2, 2), [[0.0, 4.0], [1.5, 0.0]], rtol=1e-12)
    assert np.isfinite(_np(x.grad)).all()


# ------------------------------------------------------------------ 3. elu family at NaN
def test_elu_family_gradient_at_nan_is_nan():
    """PyTorch's own answer depends on the tensor's length (its vectorized loop
    gives NaN, its scalar tail the positive slope: float64 length 16 is NaN,
    length 8 is 1), so there is no one PyTorch value to follow: a NaN input
    gets a NaN gradient here, whatever the length."""
    F = tp.nn.functional
    for f in (F.elu, F.selu, F.celu):
        for n in (1, 8, 16, 17):
            x = tp.full((n,), math.nan, dtype=tp.float64, requires_grad=True)
            (g,) = tp.autograd.grad(f(x).sum(), x)
            assert np.isnan(_np(g)).all()


# ------------------------------------------------------------------ 4. multilabel_margin_loss
@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_multilabel_margin_loss_under_either_default_dtype(T, default, dtype):
    x = np.array([[0.1, 0.2, 0.4, 0.8], [0.3, -0.2, 0.5, 0.1]])
    t = np.array([[3, 0, -1, 1], [1, -1, 0, 2]])
    old = T.get_default_dtype()
    T.set_default_dtype(getattr(T, default))
    try:
        X = T.tensor(x, dtype=getattr(T, dtype), requires_grad=True)
        y = T.nn.functional.multilabel_margin_loss(X, T.tensor(t), reduction="none")
        y.sum().backward()
    finally:
        T.set_default_dtype(old)
    assert y.dtype == getattr(T, dtype) and X.grad.dtype == getattr(T, dtype)
    # sample 0: targets {3, 0}, others {1, 2}; sample 1: target {1}, others {0, 2, 3}
    want = [sum(max(0.0, 1 - (x[0, j] - x[0, i])) for j in (3, 0) for i in (1, 2)) / 4,
            sum(max(0.0, 1 - (x[1, 1] - x[1, i])) for i in (0, 2, 3)) / 4]
    np.testing.assert_allclose(_np(y), want, rtol=1e-6)


# ------------------------------------------------------------------ 5. gaussian_nll_loss
@pytest.mark.parametrize("shape,ok", [
    ((2, 3, 4), True), ((2, 3), True), ((2, 3, 1), True), ((1, 3, 4), True), ((2, 1, 4), True),
    ((), False), ((1, 1, 4), False), ((3, 4), False), ((2, 3, 2), False), ((4,), False), ((1, 3, 1), False),
])
def test_gaussian_nll_loss_var_shapes(T, shape, ok):
    g = np.random.default_rng(5)
    i, t = g.standard_normal((2, 3, 4)), g.standard_normal((2, 3, 4))
    v = np.abs(g.standard_normal(shape)) + 0.5
    call = lambda: T.nn.functional.gaussian_nll_loss(T.tensor(i), T.tensor(t), T.tensor(v))   # noqa: E731
    if not ok:
        assert _err(call) == ("ValueError", "var is of incorrect size")
        return
    vv = v.reshape(2, 3, 1) if shape == (2, 3) else v
    want = np.mean(0.5 * (np.log(vv) + (i - t) ** 2 / vv))
    assert call().item() == pytest.approx(want, rel=1e-12)


def test_gaussian_nll_loss_checks_and_clamp(T):
    F = T.nn.functional
    i, t = T.ones(2, 3, dtype=T.float64), T.zeros(2, 3, dtype=T.float64)
    # negative entries are checked before the size, the reduction after it
    assert _err(lambda: F.gaussian_nll_loss(i, t, -T.ones(5))) == ("ValueError", "var has negative entry/entries")
    assert _err(lambda: F.gaussian_nll_loss(i, t, T.ones(5), reduction="x")) == \
        ("ValueError", "var is of incorrect size")
    assert _err(lambda: F.gaussian_nll_loss(i, t, T.ones(2, 3), reduction="x")) == ("ValueError", "x is not valid")
    assert _err(lambda: F.gaussian_nll_loss(i, t, -1.0)) == ("ValueError", "var has negative entry/entries")
    kind, msg = _err(lambda: F.gaussian_nll_loss(i, t, 1))
    assert kind == "TypeError" and msg.startswith("any() received an invalid combination of arguments - got (bool)")
    assert F.gaussian_nll_loss(i, t, 2.0).item() == pytest.approx(0.5 * (math.log(2.0) + 0.5))
    # var below eps: the value uses eps, the gradient is var's own (not blocked, not the clamp's)
    v = T.tensor([[1e-8, 1.0, 4.0], [1.0, 1.0, math.inf]], dtype=T.float64, requires_grad=True)
    y = F.gaussian_nll_loss(i, t, v, eps=1e-6, reduction="none")
    y.sum().backward()
    assert _np(y)[0, 0] == pytest.approx(0.5 * (math.log(1e-6) + 1 / 1e-6))
    assert _np(y)[1, 2] == math.inf
    assert _np(v.grad)[0, 0] == pytest.approx(0.5 * (1 / 1e-6 - 1 / 1e-12))
    assert _np(v.grad)[0, 2] == pytest.approx(0.5 * (1 / 4.0 - 1 / 16.0))


# ------------------------------------------------------------------ 6. normalize
def test_normalize_empty_with_inf_norm(T):
    F = T.nn.functional
    for p in (math.inf, -math.inf):
        x = T.zeros(0, 3, requires_grad=True)
        y = F.normalize(x, p=p)
        assert tuple(y.shape) == (0, 3)
        y.sum().backward()
        assert tuple(x.grad.shape) == (0, 3)
        assert tuple(F.normalize(T.zeros(2, 0, 3), p=p, dim=2).shape) == (2, 0, 3)
    assert _err(lambda: F.normalize(T.zeros(3, 0), p=math.inf, dim=-1)) == (
        "RuntimeError", "linalg.vector_norm cannot compute the inf norm on the dimension -1because this "
                        "dimension is empty and the operation does not have an identity")
    assert _err(lambda: F.normalize(T.zeros(3, 0, 2), p=-math.inf, dim=1)) == (
        "RuntimeError", "linalg.vector_norm cannot compute the -inf norm on the dimension 1because this "
                        "dimension is empty and the operation does not have an identity")


# ------------------------------------------------------------------ 7. attention with a float32 mask
def test_sdpa_float32_mask_with_float64_inputs(T):
    g = np.random.default_rng(7)
    q, k, v, m = (g.standard_normal(s) for s in ((2, 3, 4), (2, 5, 4), (2, 5, 6), (3, 5)))
    Q = T.tensor(q, requires_grad=True)
    M = T.tensor(m, dtype=T.float32, requires_grad=True)
    y = T.nn.functional.scaled_dot_product_attention(Q, T.tensor(k), T.tensor(v), M)
    y.sum().backward()
    assert y.dtype == T.float64 and M.grad.dtype == T.float32
    s = q @ k.transpose(0, 2, 1) / 2.0 + m.astype(np.float32)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    np.testing.assert_allclose(_np(y), p @ v, rtol=1e-12)
    # any other float mask dtype must match the query's
    assert _err(lambda: T.nn.functional.scaled_dot_product_attention(
        T.tensor(q, dtype=T.float32), T.tensor(k, dtype=T.float32), T.tensor(v, dtype=T.float32),
        T.tensor(m))) == ("RuntimeError", "Expected attn_mask dtype to be bool or float or to match query dtype, "
                                          "but got attn_mask.dtype: double and  query.dtype: float instead.")


# ------------------------------------------------------------------ 8. attention shape errors
_SDPA_ERRORS = [
    (((2, 3, 4), (2, 5, 4), (2, 6, 4)), None,
     "Expected size for first two dimensions of batch2 tensor to be: [2, 5] but got: [2, 6]."),
    (((2, 3, 4), (2, 5, 3), (2, 5, 4)), None,
     "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 3]."),
    (((2, 2, 3, 4), (2, 2, 5, 3), (2, 2, 5, 4)), None,
     "Expected size for first two dimensions of batch2 tensor to be: [4, 4] but got: [4, 3]."),
    (((2, 3, 4), (3, 5, 4), (3, 5, 4)), None,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (((2, 3, 4), (2, 5, 4), (3, 5, 4)), None,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (((3, 4), (5, 4), (6, 4)), None, "mat1 and mat2 shapes cannot be multiplied (3x5 and 6x4)"),
    (((3, 4), (5, 3), (5, 4)), None, "mat1 and mat2 shapes cannot be multiplied (3x4 and 3x5)"),
    (((4,), (5, 4), (5, 4)), None, "Expected query, key, and value to all be  at least 2 dimensional, but got "
                                   "query.dim: 1 key.dim: 2 and value.dim: 2 instead."),
    (((2, 3, 4), (2, 5, 4), (2, 5, 4)), (3, 4),
     "The size of tensor a (5) must match the size of tensor b (4) at non-singleton dimension 2"),
    (((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)), (2, 5),
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 2"),
    (((2, 3, 4), (2, 5, 4), (2, 5, 4)), (2, 1, 3, 5),
     "output with shape [2, 3, 5] doesn't match the broadcast shape [2, 2, 3, 5]"),
]


@pytest.mark.parametrize("shapes,mask,msg", _SDPA_ERRORS)
def test_sdpa_shape_errors(T, shapes, mask, msg):
    args = [T.randn(*s) for s in shapes] + [None if mask is None else T.randn(*mask)]
    assert _err(lambda: T.nn.functional.scaled_dot_product_attention(*args)) == ("RuntimeError", msg)


def test_sdpa_shapes_that_fit(T):
    F = T.nn.functional
    assert tuple(F.scaled_dot_product_attention(T.randn(2, 2, 3, 4), T.randn(2, 5, 4), T.randn(2, 5, 4)).shape) \
        == (2, 2, 3, 4)
    assert tuple(F.scaled_dot_product_attention(T.randn(2, 4), T.randn(2, 5, 4), T.randn(2, 5, 4)).shape) == (2, 2, 4)
    assert tuple(F.scaled_dot_product_attention(T.randn(2, 3, 4), T.randn(2, 5, 4), T.randn(2, 5, 4),
                                                T.randn(1, 3, 5)).shape) == (2, 3, 4)


_MHA_ERRORS = [
    (dict(), ((3, 2, 4), (5, 2, 4), (6, 2, 4)), {},
     "key shape torch.Size([5, 2, 4]) does not match value shape torch.Size([6, 2, 4])"),
    (dict(batch_first=True), ((2, 3, 4), (2, 5, 4), (2, 6, 4)), {},
     "key shape torch.Size([5, 2, 4]) does not match value shape torch.Size([6, 2, 4])"),
    (dict(), ((3, 4), (5, 4), (6, 4)), {},
     "key shape torch.Size([5, 1, 4]) does not match value shape torch.Size([6, 1, 4])"),
    (dict(), ((3, 2, 4), (5, 2, 4), (5, 2, 3)), {},
     "key shape torch.Size([5, 2, 4]) does not match value shape torch.Size([5, 2, 3])"),
    (dict(kdim=3, vdim=5), ((3, 2, 4), (5, 2, 4), (5, 2, 5)), {},
     "expecting key weights shape of (4, 4), but got torch.Size([4, 3])"),
    (dict(kdim=3, vdim=5), ((3, 2, 4), (5, 2, 3), (5, 2, 4)), {},
     "expecting value weights shape of (4, 4), but got torch.Size([4, 5])"),
    (dict(kdim=3, vdim=5), ((3, 2, 4), (5, 2, 3), (6, 2, 5)), {},
     "key's sequence and batch dims torch.Size([5, 2]) do not match value's torch.Size([6, 2])"),
    (dict(), ((3, 2, 4), (5, 2, 4), (5, 2, 4)), {"kpm": (2, 6)},
     "Expected key_padded_mask.shape[1] to be 5, but got 6"),
    (dict(), ((3, 2, 4), (5, 2, 4), (5, 2, 4)), {"kpm": (3, 5)},
     "Expected key_padded_mask.shape[0] to be 2, but got 3"),
]


@pytest.mark.parametrize("kw,shapes,extra,msg", _MHA_ERRORS)
def test_multihead_attention_assertions(T, kw, shapes, extra, msg):
    m = T.nn.MultiheadAttention(4, 2, **kw)
    args = [T.randn(*s) for s in shapes]
    kpm = None if "kpm" not in extra else T.zeros(*extra["kpm"], dtype=T.bool)
    assert _err(lambda: m(*args, key_padding_mask=kpm)) == ("AssertionError", msg)


# ------------------------------------------------------------------ 9. dtypes
_MIXED = "mixed dtype (CPU): expect parameter to have scalar type of Float"
_SHARE = "mixed dtype (CPU): all inputs must share same datatype."


@pytest.mark.parametrize("case,msg", [
    ("ln d s d", _MIXED), ("ln d d s", "expected scalar type Double but found Float"), ("ln d s s", _SHARE),
    ("ln d s -", _SHARE), ("ln d - s", _SHARE), ("ln s d s", _MIXED),
    ("ln s s d", "expected scalar type Float but found Double"),
    ("gn d s d", _MIXED), ("gn d d s", "expected scalar type Double but found Float"), ("gn d - s", _SHARE),
    ("bn d s s - -", _SHARE), ("bn d d d s -", _MIXED), ("bn d s d d d", "expected scalar type Double but found Float"),
    ("bn d d d d s", "expected scalar type Double but found Float"), ("bn s d d - -", _MIXED),
    ("bn h h h s s", _MIXED), ("bn h s s h h", "expected scalar type Half but found Float"),
    ("bnt d - - s -", _SHARE), ("bnt d s d - -", _MIXED),
    ("bn d - - d d", "running_mean must be defined in evaluation mode"),
    ("bn d d - d d", "running_var must be defined in evaluation mode"),
])
def test_normalisation_parameter_dtypes(T, case, msg):
    kind, x, *p = case.split()
    dt = {"d": T.float64, "s": T.float32, "h": T.float16}
    prm = [None if c == "-" else T.ones(4, dtype=dt[c]) for c in p]
    F = T.nn.functional
    if kind == "ln":
        call = lambda: F.layer_norm(T.randn(2, 4, dtype=dt[x]), (4,), *prm)         # noqa: E731
    elif kind == "gn":
        call = lambda: F.group_norm(T.randn(2, 4, 3, dtype=dt[x]), 2, *prm)         # noqa: E731
    else:       # bn: running_mean, running_var, weight, bias
        call = lambda: F.batch_norm(T.randn(2, 4, 3, dtype=dt[x]), *prm,           # noqa: E731
                                    training=kind == "bnt")
    assert _err(call) == ("RuntimeError", msg)


def test_normalisation_half_input_float_params_allowed(T):
    x = T.randn(2, 4, 3, dtype=T.float16)
    o = T.ones(4)
    for y in (T.nn.functional.batch_norm(x, o, o, o, o), T.nn.functional.group_norm(x, 2, o, o),
              T.nn.functional.layer_norm(x, (3,), T.ones(3), T.zeros(3))):
        assert tuple(y.shape) == (2, 4, 3)


@pytest.mark.parametrize("name", ["huber_loss", "soft_margin_loss"])
def test_loss_has_the_input_dtype(T, name):
    f = getattr(T.nn.functional, name)
    a = np.array([0.3, -2.5, 1.25, 40.0])
    b = np.array([1.0, -1.0, 1.0, -1.0])
    for xi, ti in ((T.float32, T.float64), (T.float64, T.float32), (T.float16, T.float64)):
        for red in ("mean", "none"):
            y = f(T.tensor(a, dtype=xi), T.tensor(b, dtype=ti), reduction=red)
            assert y.dtype == xi
    d = a - b
    want = np.where(np.abs(d) < 1, 0.5 * d * d, np.abs(d) - 0.5) if name == "huber_loss" \
        else np.log1p(np.exp(-a * b))
    y = f(T.tensor(a, dtype=T.float32), T.tensor(b, dtype=T.float64), reduction="none")
    np.testing.assert_allclose(_np(y), want.astype(np.float32), rtol=1e-6)


@needs_torch
def test_soft_margin_loss_float32_input_float64_target_vs_torch():
    g = np.random.default_rng(9)
    a, b = g.standard_normal(50) * 30, g.standard_normal(50)
    for red in ("mean", "none"):
        res = []
        for lib in (torch, tp):
            X = lib.tensor(a, dtype=lib.float32, requires_grad=True)
            y = lib.nn.functional.soft_margin_loss(X, lib.tensor(b, dtype=lib.float64), reduction=red)
            y.sum().backward()
            res.append((_np(y), _np(X.grad)))
        np.testing.assert_allclose(res[1][0], res[0][0], rtol=2e-6)
        np.testing.assert_allclose(res[1][1], res[0][1], rtol=2e-6, atol=1e-7)


def test_soft_margin_loss_overflow_as_pytorch(T):
    """exp then log1p in the input's dtype: an exp that overflows float32 gives
    inf (and a NaN gradient); float64 keeps the value."""
    x = T.tensor([-100.0, -30.0, 0.0], requires_grad=True)
    y = T.nn.functional.soft_margin_loss(x, T.ones(3), reduction="none")
    y.sum().backward()
    assert _np(y)[0] == math.inf and _np(y)[1] == 30.0 and _np(y)[2] == pytest.approx(math.log(2.0))
    assert math.isnan(_np(x.grad)[0]) and _np(x.grad)[1] == -1.0 and _np(x.grad)[2] == -0.5
    y = T.nn.functional.soft_margin_loss(T.tensor([-100.0], dtype=T.float64), T.ones(1, dtype=T.float64))
    assert y.item() == pytest.approx(100.0)


def test_multi_head_attention_forward_separate_weights_assertions(T):
    q, k = T.randn(3, 2, 4), T.randn(5, 2, 4)
    w, ow, ob = T.randn(12, 4), T.randn(4, 4), T.zeros(4)

    def call(bias, kw):
        return T.nn.functional.multi_head_attention_forward(q, k, k, 4, 2, w, bias, None, None, False, 0.0, ow, ob,
                                                            use_separate_proj_weight=True, q_proj_weight=T.randn(4, 4),
                                                            v_proj_weight=T.randn(4, 4), **kw)
    assert _err(lambda: call(T.zeros(12), {"k_proj_weight": None})) == (
        "AssertionError", "use_separate_proj_weight is True but k_proj_weight is None")
    assert _err(lambda: call(T.zeros(9), {"k_proj_weight": T.randn(4, 4)})) == (
        "AssertionError", "expecting query bias shape of (4,), but got torch.Size([3])")
    assert tuple(call(T.zeros(12), {"k_proj_weight": T.randn(4, 4)})[0].shape) == (3, 2, 4)


# ------------------------------------------------------------------ 8b. recurrent cells' checks
@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
def test_recurrent_cells_check_sizes_in_pytorchs_words(T, kind):
    T.manual_seed(0)
    cell = getattr(T.nn, kind)(4, 3)

    def call(x, h):
        return cell(x, None if h is None else (h, h) if kind == "LSTMCell" else h)
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 5 expected 4"):
        call(T.randn(2, 5), None)
    with pytest.raises(RuntimeError, match="hidden0 has inconsistent hidden_size: got 2, expected 3"):
        call(T.randn(2, 4), T.randn(2, 2))
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch size 3"):
        call(T.randn(2, 4), T.randn(3, 3))
    if kind == "LSTMCell":
        with pytest.raises(RuntimeError, match="hidden1 has inconsistent hidden_size: got 2, expected 3"):
            cell(T.randn(2, 4), (T.randn(2, 3), T.randn(2, 2)))
