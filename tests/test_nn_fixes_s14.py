"""Fixes of differences from PyTorch 2.13 in tensorplay.nn.functional found in a
second review: cosine_similarity broadcasting, 2-d nearest interpolation of a
doubled size, antialiased interpolation of a kept size, dropout2d's mask on
non-4-d inputs, cross_entropy with label smoothing and no target weight,
attention with a mask batched alone under vmap and with no keys, area
interpolation to an empty output, binary_cross_entropy's range checks,
rrelu's slope at 0, embedding_bag's last bag with include_last_offset, and
PyTorch's messages for several refusals; nn.EmbeddingBag.from_pretrained and
nn.Hardtanh's deprecated min_value/max_value.

Tests that take the ``T`` fixture run the same code on tensorplay and on torch
(when installed) against expectations; the rest compare with torch directly and
skip without it.  Gradients of tensorplay are also checked against float64
finite differences.
"""
import warnings

import numpy as np
import pytest

import tensorplay as tp

from conftest import torch, detached_np as _np, error_of as _err

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")
pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning:torch"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:torch")]




def _value_and_grads(M, fn, arrays, seed=5):
    """fn(M, *tensors) and the gradients of sum(out * w) for a fixed random w."""
    ts = [M.tensor(a, requires_grad=True) for a in arrays]
    out = fn(M, *ts)
    w = M.tensor(np.random.default_rng(seed).standard_normal(tuple(out.shape)))
    gs = M.autograd.grad((out * w).sum(), ts)
    return _np(out), [_np(g) for g in gs]


def _check_vs_torch(fn, arrays, rtol=1e-10, atol=1e-12):
    a, ga = _value_and_grads(tp, fn, arrays)
    b, gb = _value_and_grads(torch, fn, arrays)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    for x, y in zip(ga, gb):
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol)


def _gradcheck(fn, arrays):
    ts = [tp.tensor(a, requires_grad=True) for a in arrays]
    assert tp.autograd.gradcheck(lambda *xs: fn(tp, *xs), ts, eps=1e-6, atol=1e-6, rtol=1e-5)


# ------------------------------------------------------------------ F1 cosine_similarity
_COS_CASES = [((3, 2), (1, 2), 0), ((3, 2), (1, 2), 1), ((2,), (3, 2), 1), ((4, 1, 3), (5, 3), -1),
              ((4, 1, 3), (5, 3), 1), ((1, 3), (4, 3), 0)]


@needs_torch
@pytest.mark.parametrize("s1,s2,dim", _COS_CASES)
def test_cosine_similarity_broadcasts_before_the_norms(s1, s2, dim):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(s1), rng.standard_normal(s2)
    fn = (lambda M, a, b: M.nn.functional.cosine_similarity(a, b, dim=dim))
    _check_vs_torch(fn, [x, y])
    _gradcheck(fn, [x, y])
    out = _np(fn(tp, tp.tensor(x), tp.tensor(y)))
    assert np.all(np.abs(out) <= 1 + 1e-12)


@needs_torch
def test_cosine_similarity_broadcast_eps_clamp_gradient_vs_torch():
    # a row below eps after broadcasting: its norm's value is eps, its gradient the norm's own
    x = np.array([[1e-3, 2e-3], [3.0, 4.0], [5.0, 6.0]])
    y = np.array([[1.0, 1.0]])
    fn = (lambda M, a, b: M.nn.functional.cosine_similarity(a, b, dim=1, eps=0.5))
    _check_vs_torch(fn, [x, y])


def test_cosine_similarity_broadcast_value(T):
    x = T.tensor([[1., 2.], [3., 4.], [5., 6.]], dtype=T.float64)
    y = T.tensor([[1., 1.]], dtype=T.float64)
    out = T.nn.functional.cosine_similarity(x, y, dim=0)
    want = [(1 + 3 + 5) / (np.sqrt(35) * np.sqrt(3)), (2 + 4 + 6) / (np.sqrt(56) * np.sqrt(3))]
    np.testing.assert_allclose(_np(out), want, rtol=1e-12)
    with pytest.raises(RuntimeError, match="must match the size"):
        T.nn.functional.cosine_similarity(T.ones(3, 2), T.ones(4, 2), dim=0)


# ------------------------------------------------------------------ F2 nearest, doubled size
@needs_torch
@pytest.mark.parametrize("shape", [(1, 1, 4), (1, 2, 4, 4), (1, 1, 3, 5), (1, 1, 4, 4, 4)])
@pytest.mark.parametrize("scale", [2.2, 2.1, 2.4, 2.0, (2.2, 1.5), 1.9])
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
def test_interpolate_nearest_doubled_size_vs_torch(shape, scale, mode):
    nd = len(shape) - 2
    if isinstance(scale, tuple) and nd != 2:
        pytest.skip("a per-dimension scale for 2-d")
    x = np.random.default_rng(2).standard_normal(shape)
    fn = (lambda M, a: M.nn.functional.interpolate(a, scale_factor=scale, mode=mode))
    doubled = any(int(np.floor(n * f)) == 2 * n for n, f in
                  zip(shape[2:], scale if isinstance(scale, tuple) else (scale,) * nd))
    if mode == "nearest" and nd != 2 and doubled and scale != 2.0:
        # PyTorch's 1-d and 3-d backward kernels take a doubled size as j >> 1, their
        # forward ones do not (their gradient fails their gradcheck): values only
        np.testing.assert_array_equal(_np(fn(tp, tp.tensor(x))), fn(torch, torch.tensor(x)).numpy())
    else:
        _check_vs_torch(fn, [x])
    if len(shape) < 5:
        _gradcheck(fn, [x])


def test_interpolate_nearest_2d_doubled_size_maps_j_half(T):
    a = T.arange(16., dtype=T.float64).reshape(1, 1, 4, 4)
    out = T.nn.functional.interpolate(a, scale_factor=2.2, mode="nearest")
    np.testing.assert_array_equal(_np(out)[0, 0, 0], [0, 0, 1, 1, 2, 2, 3, 3])
    np.testing.assert_array_equal(_np(out)[0, 0, :, 0], [0, 0, 4, 4, 8, 8, 12, 12])
    one_d = T.nn.functional.interpolate(T.arange(4., dtype=T.float64).reshape(1, 1, 4), scale_factor=2.2)
    np.testing.assert_array_equal(_np(one_d)[0, 0], [0, 0, 0, 1, 1, 2, 2, 3])     # (1-d: floor(j / 2.2))
    a.requires_grad_(True)
    g, = T.autograd.grad(T.nn.functional.interpolate(a, scale_factor=2.2, mode="nearest").sum(), a)
    np.testing.assert_array_equal(_np(g), np.full((1, 1, 4, 4), 4.0))


def test_interpolate_nearest_2d_doubled_size_gradcheck():
    x = np.random.default_rng(3).standard_normal((1, 1, 4, 3))
    _gradcheck(lambda M, a: M.nn.functional.interpolate(a, scale_factor=(2.2, 2.4), mode="nearest"), [x])


# ------------------------------------------------------------------ F3 antialias, kept size
@needs_torch
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("scale", [1.05, (1.05, 1.5), (1.5, 1.05), (0.6, 1.1)])
def test_interpolate_antialias_kept_size_values_vs_torch(mode, scale):
    x = np.random.default_rng(4).standard_normal((1, 2, 5, 4))
    a = tp.nn.functional.interpolate(tp.tensor(x), scale_factor=scale, mode=mode, antialias=True)
    b = torch.nn.functional.interpolate(torch.tensor(x), scale_factor=scale, mode=mode, antialias=True)
    np.testing.assert_allclose(_np(a), b.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("scale", [1.05, (1.05, 1.5), (1.5, 1.05)])
def test_interpolate_antialias_kept_size_gradients(mode, scale):
    """PyTorch's backward kernel resamples a kept dimension its forward copies
    (its gradient fails its own gradcheck); here the gradient is the forward's."""
    x = np.random.default_rng(5).standard_normal((1, 1, 5, 4))
    fn = (lambda M, a: M.nn.functional.interpolate(a, scale_factor=scale, mode=mode, antialias=True))
    _gradcheck(fn, [x])
    if scale == 1.05:
        out = fn(tp, tp.tensor(x))
        np.testing.assert_array_equal(_np(out), x)
        xt = tp.tensor(x, requires_grad=True)
        w = np.random.default_rng(6).standard_normal(x.shape)
        g, = tp.autograd.grad((fn(tp, xt) * tp.tensor(w)).sum(), xt)
        np.testing.assert_array_equal(_np(g), w)


# ------------------------------------------------------------------ F4 dropout2d
def _mask_structure(out, lead):
    """True if each (index over the first ``lead`` dims) slice is all kept or all dropped."""
    o = out.reshape(out.shape[:lead] + (-1,))
    return bool(np.all((o == 0).all(-1) | (o != 0).all(-1)))


@pytest.mark.parametrize("shape", [(8, 6, 5), (4, 3), (2, 3, 4, 2, 2), (2, 3, 1, 1, 1, 2), (6, 5, 4, 3)])
def test_dropout2d_masks_per_dims_0_and_1(T, shape):
    T.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = _np(T.nn.functional.dropout2d(T.ones(*shape, dtype=T.float64), 0.5))
    assert set(np.unique(out)) <= {0.0, 2.0}
    assert _mask_structure(out, 2)
    if shape[1] > 2:                # the mask differs along dimension 1 somewhere
        flat = out.reshape(shape[0], shape[1], -1)[..., 0]
        assert any(len(np.unique(flat[i])) > 1 for i in range(shape[0]))


@needs_torch
@pytest.mark.parametrize("name,shape", [("dropout2d", (8, 6, 5)), ("dropout2d", (4, 3)),
                                        ("dropout2d", (2, 3, 4, 2, 2)), ("dropout2d", (5,)),
                                        ("dropout2d", ()), ("dropout2d", (2, 3, 4, 5)),
                                        ("dropout3d", (4, 3)), ("dropout3d", (2, 3, 4)),
                                        ("dropout3d", (5,)), ("dropout3d", (2, 3, 4, 5)),
                                        ("dropout3d", (2, 2, 3, 4, 5, 1))])
def test_feature_dropout_warnings_and_errors_vs_torch(name, shape):
    def run(M):
        M.manual_seed(0)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = _err(lambda: getattr(M.nn.functional, name)(M.ones(shape), 0.5))
        return r, [(x.category.__name__, str(x.message)) for x in w]
    assert run(tp) == run(torch)


def test_dropout3d_unbatched_masks_per_dim_0(T):
    T.manual_seed(0)
    out = _np(T.nn.functional.dropout3d(T.ones(6, 3, 2, 2, dtype=T.float64), 0.5))
    assert _mask_structure(out, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _np(T.nn.functional.dropout2d(T.ones(5), 1.0)).tolist() == [0.0] * 5    # (p == 1: no check)
        assert _np(T.nn.functional.dropout2d(T.ones(5), 0.5, training=False)).tolist() == [1.0] * 5
        with pytest.raises(RuntimeError, match="^Feature dropout requires at least 2 dimensions in the input$"):
            T.nn.functional.dropout2d(T.ones(5), 0.5)


# ------------------------------------------------------------------ F5 cross_entropy, no target weight
@needs_torch
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
@pytest.mark.parametrize("ignore_index", [-100, 0])
@pytest.mark.parametrize("weight", [[0., 0., 1., 1.], [0., 0., 0., 0.]])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_cross_entropy_zero_total_weight_vs_torch(smoothing, ignore_index, weight, reduction):
    x = np.random.default_rng(7).standard_normal((3, 4))

    def run(M):
        xt = M.tensor(x, requires_grad=True)
        loss = M.nn.functional.cross_entropy(xt, M.tensor([0, 1, 0]), weight=M.tensor(np.array(weight)),
                                             ignore_index=ignore_index, label_smoothing=smoothing,
                                             reduction=reduction)
        g, = M.autograd.grad(loss, xt)
        return _np(loss), _np(g)
    (a, ga), (b, gb) = run(tp), run(torch)
    np.testing.assert_allclose(a, b, rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(ga, gb, rtol=1e-10, atol=1e-14, equal_nan=True)


@needs_torch
@pytest.mark.parametrize("ignore_index", [-100, 0])
def test_nll_loss_zero_total_weight_gradient_vs_torch(ignore_index):
    x = np.random.default_rng(8).standard_normal((3, 4))

    def run(M):
        xt = M.tensor(x, requires_grad=True)
        loss = M.nn.functional.nll_loss(xt, M.tensor([0, 1, 0]), weight=M.tensor(np.array([0., 0., 1., 1.])),
                                        ignore_index=ignore_index)
        g, = M.autograd.grad(loss, xt)
        return _np(loss), _np(g)
    (a, ga), (b, gb) = run(tp), run(torch)
    np.testing.assert_allclose(a, b, equal_nan=True)
    np.testing.assert_array_equal(np.isnan(ga), np.isnan(gb))
    np.testing.assert_array_equal(np.nan_to_num(ga), np.nan_to_num(gb))


def test_cross_entropy_label_smoothing_zero_weight_is_nan(T):
    x = T.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
    loss = T.nn.functional.cross_entropy(x, T.tensor([0, 1, 0]), weight=T.tensor([0., 0., 1., 1.], dtype=T.float64),
                                         label_smoothing=0.1)
    assert np.isnan(loss.item())
    g, = T.autograd.grad(loss, x)
    assert np.isnan(_np(g)).all()


# ------------------------------------------------------------------ F6 vmap over the mask only
@needs_torch
@pytest.mark.parametrize("kind", ["bool", "float"])
def test_sdpa_vmap_over_the_mask_only_vs_torch(kind):
    q = np.random.default_rng(0).standard_normal((2, 3, 4))
    m = np.random.default_rng(1).random((5, 3, 3)) > 0.3 if kind == "bool" else \
        np.random.default_rng(1).standard_normal((5, 3, 3))

    def run(M):
        Q = M.tensor(q, requires_grad=True)
        MM = M.tensor(m, requires_grad=kind == "float")
        F = M.nn.functional
        out = M.func.vmap(lambda mm: F.scaled_dot_product_attention(Q, Q, Q, attn_mask=mm))(MM)
        w = M.tensor(np.random.default_rng(5).standard_normal(tuple(out.shape)))
        gs = M.autograd.grad((out * w).sum(), [Q] + ([MM] if kind == "float" else []))
        return [_np(out)] + [_np(g) for g in gs]
    for a, b in zip(run(tp), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("case", ["kpm", "attn_mask", "kpm float", "both"])
def test_multi_head_attention_vmap_over_the_masks_vs_torch(case):
    E, H, L, S, N = 4, 2, 3, 3, 2
    q = np.random.default_rng(0).standard_normal((L, N, E))
    kpm = np.random.default_rng(1).random((5, N, S)) > 0.6
    kpm[..., 0] = False
    am = np.random.default_rng(2).random((5, L, S)) > 0.6
    am[..., 0] = False
    W = np.random.default_rng(3).standard_normal((3 * E, E))
    O = np.random.default_rng(4).standard_normal((E, E))

    def run(M):
        F = M.nn.functional

        def f(x, kp, a):
            return F.multi_head_attention_forward(x, x, x, E, H, M.tensor(W), None, None, None, False, 0.0,
                                                  M.tensor(O), None, training=False, key_padding_mask=kp,
                                                  attn_mask=a, need_weights=True)
        x = M.tensor(q)
        if case == "kpm":
            return M.func.vmap(lambda kp: f(x, kp, None))(M.tensor(kpm))
        if case == "kpm float":
            return M.func.vmap(lambda kp: f(x, kp, None))(M.tensor(np.where(kpm, -1.0, 0.0)))
        if case == "attn_mask":
            return M.func.vmap(lambda a: f(x, None, a))(M.tensor(am))
        return M.func.vmap(lambda kp, a: f(x, kp, a))(M.tensor(kpm), M.tensor(am))
    for a, b in zip(run(tp), run(torch)):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ F7 attention with no keys
@pytest.mark.parametrize("mask", [None, "bool", "float", "causal"])
def test_sdpa_with_no_keys_gives_zeros(T, mask):
    q = T.tensor(np.random.default_rng(0).standard_normal((2, 3, 4)), requires_grad=True)
    k = T.zeros(2, 0, 4, dtype=T.float64, requires_grad=True)
    v = T.zeros(2, 0, 4, dtype=T.float64, requires_grad=True)
    kw = {}
    if mask == "bool":
        kw["attn_mask"] = T.ones(3, 0, dtype=T.bool)
    elif mask == "float":
        kw["attn_mask"] = T.zeros(3, 0, dtype=T.float64)
    elif mask == "causal":
        kw["is_causal"] = True
    out = T.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
    assert tuple(out.shape) == (2, 3, 4)
    np.testing.assert_array_equal(_np(out), np.zeros((2, 3, 4)))
    gq, gk, gv = T.autograd.grad(out.sum(), (q, k, v))
    np.testing.assert_array_equal(_np(gq), np.zeros((2, 3, 4)))
    assert tuple(gk.shape) == (2, 0, 4) and tuple(gv.shape) == (2, 0, 4)


# ------------------------------------------------------------------ F8 area to an empty output
@pytest.mark.parametrize("shape,scale,want", [((1, 1, 4, 3), 0.3, (1, 1, 1, 0)), ((1, 1, 4), 0.2, (1, 1, 0)),
                                              ((1, 1, 4, 4, 4), 0.2, (1, 1, 0, 0, 0)),
                                              ((1, 1, 4, 3), (0.2, 1.0), (1, 1, 0, 3))])
def test_interpolate_area_to_an_empty_output(T, shape, scale, want):
    out = T.nn.functional.interpolate(T.zeros(*shape), scale_factor=scale, mode="area")
    assert tuple(out.shape) == want
    assert tuple(T.nn.functional.interpolate(T.zeros(1, 1, 4, 3), size=(0, 2), mode="area").shape) == (1, 1, 0, 2)
    with pytest.raises(RuntimeError, match="Expected input to have non-zero size for non-batch dimensions"):
        T.nn.functional.interpolate(T.zeros(1, 1, 0, 3), scale_factor=1.0, mode="area")


# ------------------------------------------------------------------ F9 binary_cross_entropy ranges
@pytest.mark.parametrize("x,y,which", [([0.5, 0.2], [1.5, 0.0], "target"), ([0.5, 0.2], [-0.1, 0.0], "target"),
                                       ([0.5, float("nan")], [1.0, 0.0], "input"),
                                       ([0.5, 0.2], [float("nan"), 0.0], "target"),
                                       ([0.5, 1.2], [1.5, 0.0], "target"),     # (element 0 first)
                                       ([1.2, 0.5], [0.5, 1.5], "input")])
def test_binary_cross_entropy_checks_input_and_target(T, x, y, which):
    with pytest.raises(RuntimeError, match=f"^all elements of {which} should be between 0 and 1$"):
        T.nn.functional.binary_cross_entropy(T.tensor(x, dtype=T.float64), T.tensor(y, dtype=T.float64))


def test_binary_cross_entropy_edges_still_fine(T):
    loss = T.nn.functional.binary_cross_entropy(T.tensor([0.0, 1.0, 0.5], dtype=T.float64),
                                                T.tensor([0.0, 1.0, 1.0], dtype=T.float64), reduction="none")
    np.testing.assert_allclose(_np(loss), [0.0, 0.0, np.log(2)], rtol=1e-12)


# ------------------------------------------------------------------ F10 rrelu at 0
def test_rrelu_training_uses_the_sampled_slope_at_zero(T):
    x = T.tensor([0.0, -1.0, 2.0, 0.0], dtype=T.float64, requires_grad=True)
    T.manual_seed(0)
    out = T.nn.functional.rrelu(x, training=True)
    g, = T.autograd.grad(out.sum(), x)
    g = _np(g)
    assert 1 / 8 <= g[0] <= 1 / 3 and 1 / 8 <= g[3] <= 1 / 3
    assert 1 / 8 <= g[1] <= 1 / 3 and g[2] == 1.0
    np.testing.assert_allclose(_np(out)[1], -g[1])


# ------------------------------------------------------------------ F11 embedding_bag include_last_offset
_EB_OFFS = [[0, 2, 3], [0, 2, 2], [0, 5, 5], [0, 1], [0, 0], [0, 3, 4, 4], [0, 1, 1, 2]]


@needs_torch
@pytest.mark.parametrize("offsets", _EB_OFFS)
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_include_last_offset_vs_torch(offsets, mode):
    W = np.random.default_rng(9).standard_normal((6, 2))

    def run(M):
        w = M.tensor(W, requires_grad=True)
        out = M.nn.functional.embedding_bag(M.tensor([0, 1, 2, 3, 4]), w, M.tensor(offsets), mode=mode,
                                            include_last_offset=True)
        g, = M.autograd.grad((out * M.tensor(np.arange(out.numel(), dtype=np.float64).reshape(tuple(out.shape)))).sum(), w)
        return _np(out), _np(g)
    (a, ga), (b, gb) = run(tp), run(torch)
    np.testing.assert_allclose(a, b, rtol=1e-12)
    np.testing.assert_allclose(ga, gb, rtol=1e-12)


def test_embedding_bag_last_bag_runs_to_the_end(T):
    W = T.arange(12., dtype=T.float64).reshape(6, 2)
    out = T.nn.functional.embedding_bag(T.tensor([0, 1, 2, 3, 4]), W, T.tensor([0, 2, 3]), mode="sum",
                                        include_last_offset=True)
    np.testing.assert_array_equal(_np(out), [[2., 4.], [18., 21.]])


# ------------------------------------------------------------------ messages
@pytest.mark.parametrize("args,msg", [
    (((2, 3), 4, 4, None, None, False), "running_mean should contain 3 elements not 4"),
    (((2, 3), 3, 4, None, None, False), "running_var should contain 3 elements not 4"),
    (((2, 3), 3, 3, 4, None, False), "weight should contain 3 elements not 4"),
    (((2, 3), 3, 3, 3, 5, False), "bias should contain 3 elements not 5"),
    (((2, 3), 4, 4, None, None, True), "running_mean should contain 3 elements not 4"),
    (((2, 3), None, 3, None, None, False), "running_mean must be defined in evaluation mode")])
def test_batch_norm_parameter_sizes(T, args, msg):
    shape, m, v, w, b, training = args
    mk = (lambda n: None if n is None else T.ones(n))
    with pytest.raises(RuntimeError, match=f"^{msg}$"):
        T.nn.functional.batch_norm(T.ones(*shape), mk(m), mk(v), mk(w), mk(b), training=training)


_CE_SHAPES = [((3,), (4,)), ((3,), (1,)), ((3,), ()), ((2, 3), (2, 4)), ((2, 3), (2,)), ((2, 3), (3,)),
              ((2, 3), (2, 1)), ((2, 3, 4), (2, 3, 5)), ((2, 3, 4), (2, 5)), ((2, 3, 4), (3, 4)),
              ((2, 3, 4, 5), (2, 4, 4)), ((2, 3, 4, 5), (2, 4)), ((2, 3, 4, 5, 6), (2, 4, 5, 5))]


@needs_torch
@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "int32"])
@pytest.mark.parametrize("shapes", _CE_SHAPES)
def test_class_loss_target_checks_vs_torch(fn, dtype, shapes):
    a, b = shapes

    def run(M):
        return _err(lambda: getattr(M.nn.functional, fn)(M.ones(a), M.zeros(b, dtype=getattr(M, dtype))))
    assert run(tp) == run(torch)


@pytest.mark.parametrize("k,v,ok", [((1, 2, 3, 2), (1, 2, 3, 2), True), ((1, 3, 3, 2), (1, 3, 3, 2), False),
                                    ((1, 2, 3, 2), (1, 3, 3, 2), False), ((1, 2, 3, 2), (1, 4, 3, 2), True),
                                    ((1, 4, 3, 2), (1, 8, 3, 2), False)])
def test_sdpa_gqa_head_counts(T, k, v, ok):
    q = T.tensor(np.random.default_rng(0).standard_normal((1, 4, 3, 2)))
    kt = T.tensor(np.random.default_rng(1).standard_normal(k))
    vt = T.tensor(np.random.default_rng(2).standard_normal(v))
    if ok:
        out = T.nn.functional.scaled_dot_product_attention(q, kt, vt, enable_gqa=True)
        want = T.nn.functional.scaled_dot_product_attention(q, kt.repeat_interleave(4 // k[1], 1),
                                                            vt.repeat_interleave(4 // v[1], 1))
        np.testing.assert_allclose(_np(out), _np(want), rtol=1e-12)
    else:
        with pytest.raises(RuntimeError, match="^Number of heads in key and value must divide the number of "
                                               "heads in $"):
            T.nn.functional.scaled_dot_product_attention(q, kt, vt, enable_gqa=True)


@pytest.mark.parametrize("dtype,name", [("int64", "Long"), ("int32", "Int"), ("uint8", "Byte"), ("bool", "Bool")])
def test_rms_norm_refuses_non_float(T, dtype, name):
    with pytest.raises(NotImplementedError, match=f"^\"rms_norm\" not implemented for '{name}'$"):
        T.nn.functional.rms_norm(T.ones(2, 3, dtype=getattr(T, dtype)), (3,))


_PAD_CASES = [("reflect", (1, 2, 3), (-3, 0)), ("reflect", (1, 2, 3), (-1, -2)), ("reflect", (2, 3), (-3, 0)),
              ("reflect", (1, 2, 3), (-4, 0)), ("reflect", (1, 2, 3, 4), (-4, 0, -3, 0)),
              ("reflect", (1, 2, 3, 4), (-5, 0, 0, 0)), ("reflect", (1, 2, 3, 4), (0, 0, -3, 0)),
              ("reflect", (1, 2, 3, 4, 5), (-5, 0, -4, 0, -3, 0)), ("reflect", (1, 2, 3, 4, 5), (-6, 0, 0, 0, 0, 0)),
              ("replicate", (1, 2, 3), (-3, 0)), ("replicate", (1, 2, 3, 4), (-4, 0, -3, 0)),
              ("replicate", (1, 2, 3, 4), (0, 0, -4, 0)), ("replicate", (2, 3, 4), (-5, 0, -4, 0)),
              ("replicate", (1, 2, 3, 4, 5), (-5, 0, -4, 0, -3, 0)), ("replicate", (2, 3, 4, 5), (-5, 0, 0, 0, -4, 0)),
              ("replicate", (1, 2, 3), (-1, -1)), ("reflect", (1, 2, 3), (-3, 1))]


@needs_torch
@pytest.mark.parametrize("mode,shape,pad", _PAD_CASES)
def test_pad_crop_to_nothing_vs_torch(mode, shape, pad):
    def run(M):
        r = _err(lambda: M.nn.functional.pad(M.ones(shape), pad, mode=mode))
        return r if r is not None else tuple(M.nn.functional.pad(M.ones(shape), pad, mode=mode).shape)
    assert run(tp) == run(torch)


def test_one_hot_empty_with_no_classes(T):
    for n in (0, -1, -2):
        with pytest.raises(RuntimeError, match="^Can not infer total number of classes from empty tensor.$"):
            T.nn.functional.one_hot(T.tensor([], dtype=T.int64), n)
    assert tuple(T.nn.functional.one_hot(T.tensor([], dtype=T.int64), 3).shape) == (0, 3)


@pytest.mark.parametrize("a,b,msg", [("int64", "float32", "result type Float can't be cast to the desired output type Long"),
                                     ("int32", "float64", "result type Double can't be cast to the desired output type Int"),
                                     ("bool", "float32", "result type Float can't be cast to the desired output type Bool"),
                                     ("int64", "int64", "\"huber_cpu\" not implemented for 'Long'")])
def test_huber_loss_refuses_integer_input(T, a, b, msg):
    with pytest.raises((RuntimeError, NotImplementedError), match="^" + msg.replace('"', '.') + "$"):
        T.nn.functional.huber_loss(T.ones(3, dtype=getattr(T, a)), T.zeros(3, dtype=getattr(T, b)))
    loss = T.nn.functional.huber_loss(T.ones(3), T.zeros(3, dtype=T.int64))     # (a float input is fine)
    assert abs(loss.item() - 0.5) < 1e-7


@pytest.mark.parametrize("dtype,name", [("float16", "Half"), ("bfloat16", "BFloat16")])
def test_margin_losses_refuse_low_precision(T, dtype, name):
    x = T.ones(2, 3, dtype=getattr(T, dtype))
    with pytest.raises(NotImplementedError, match=f"^\"multi_margin_loss_cpu_kernel\" not implemented for '{name}'$"):
        T.nn.functional.multi_margin_loss(x, T.tensor([0, 1]))
    with pytest.raises(NotImplementedError,
                       match=f"^\"multilabel_margin_loss_forward_out_frame\" not implemented for '{name}'$"):
        T.nn.functional.multilabel_margin_loss(x, T.zeros(2, 3, dtype=T.int64))


# ------------------------------------------------------------------ modules
def test_hardtanh_deprecated_min_value_max_value(T):
    with pytest.warns(FutureWarning, match="keyword argument `min_value` is deprecated and renamed to `min_val`"):
        h = T.nn.Hardtanh(min_value=-2.0)
    assert (h.min_val, h.max_val) == (-2.0, 1.0)
    with pytest.warns(FutureWarning, match="keyword argument `max_value` is deprecated and renamed to `max_val`"):
        h = T.nn.Hardtanh(max_value=3.0)
    assert (h.min_val, h.max_val) == (-1.0, 3.0)
    np.testing.assert_array_equal(_np(h(T.tensor([-5.0, 0.5, 5.0]))), [-1.0, 0.5, 3.0])
    with pytest.raises(AssertionError, match=r"^max_val \(1\) must be greater than min_val \(2\)$"):
        T.nn.Hardtanh(2, 1)


def test_embedding_bag_from_pretrained(T):
    w = T.arange(12., dtype=T.float64).reshape(6, 2)
    bag = T.nn.EmbeddingBag.from_pretrained(w, mode="sum")
    assert not bag.weight.requires_grad
    assert (bag.num_embeddings, bag.embedding_dim, bag.mode) == (6, 2, "sum")
    np.testing.assert_array_equal(_np(bag(T.tensor([[0, 1], [2, 5]]))), [[2., 4.], [14., 16.]])
    bag = T.nn.EmbeddingBag.from_pretrained(w, freeze=False, include_last_offset=True, padding_idx=1)
    assert bag.weight.requires_grad and bag.include_last_offset and bag.padding_idx == 1
    out = bag(T.tensor([0, 1, 2, 3]), T.tensor([0, 2, 4]))
    np.testing.assert_array_equal(_np(out), [[0., 1.], [5., 6.]])
    with pytest.raises(AssertionError, match="^Embeddings parameter is expected to be 2-dimensional$"):
        T.nn.EmbeddingBag.from_pretrained(T.ones(3))


def test_batch_norm_empty_input_is_copied_unchecked(T):
    x = T.ones(0, 3, 2, requires_grad=True)
    assert tuple(T.nn.functional.batch_norm(T.ones(0, 3), T.zeros(4), T.ones(4)).shape) == (0, 3)
    assert tuple(T.nn.functional.batch_norm(T.ones(0, 3), None, None).shape) == (0, 3)
    rm, rv = T.zeros(3), T.ones(3)
    out = T.nn.functional.batch_norm(x, rm, rv, T.ones(3), T.zeros(3), training=True)
    assert tuple(out.shape) == (0, 3, 2) and out.grad_fn is not None
    assert rm.tolist() == [0.0] * 3 and rv.tolist() == [1.0] * 3
