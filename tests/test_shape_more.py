"""ops/shape_more.py beyond the op table: factories (tril/triu_indices, window functions),
node names, fill_diagonal_, masked_scatter_, the Tensor attributes and aliases, and the
top-level spellings (in-place functions, nn.functional under PyTorch's top-level signatures)."""
import warnings

import numpy as np
import pytest

import tensorplay as tp

try:
    import torch
except ImportError:         # the comparisons with PyTorch are skipped
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch as the oracle")


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


# ------------------------------------------------------------------ tril/triu indices
@pytest.mark.parametrize("row,col,offset", [(4, 3, 0), (3, 4, 1), (4, 4, -2), (0, 3, 0), (3, 5, 7), (5, 2, -9)])
def test_tri_indices_match_numpy(row, col, offset):
    for f, g in ((tp.tril_indices, np.tril_indices), (tp.triu_indices, np.triu_indices)):
        got = f(row, col, offset)
        assert got.dtype == tp.int64 and tuple(got.shape)[0] == 2
        np.testing.assert_array_equal(_np(got), np.stack(g(row, offset, col)).reshape(2, -1))
    assert tp.tril_indices(3, 3, dtype=tp.int32).dtype == tp.int32


def test_tri_indices_errors():
    with pytest.raises(RuntimeError, match="^row must be non-negative, got-1$"):
        tp.tril_indices(-1, 3)
    with pytest.raises(RuntimeError, match="^col must be non-negative, got-2$"):
        tp.triu_indices(3, -2)
    with pytest.raises(NotImplementedError, match="\"tril_indices\" not implemented for 'Float'"):
        tp.tril_indices(3, 3, dtype=tp.float32)


# ------------------------------------------------------------------ window functions
WINDOWS = [("hann_window", ()), ("hamming_window", ()), ("hamming_window", (0.5, 0.3)),
           ("bartlett_window", ()), ("blackman_window", ()), ("kaiser_window", ()),
           ("kaiser_window", (5.0,))]


def _np_window(name, n, periodic, extra):
    m = n + 1 if periodic else n
    k = np.arange(m, dtype=np.float64)
    if name == "hann_window":
        w = 0.5 - 0.5 * np.cos(2 * np.pi * k / (m - 1))
    elif name == "hamming_window":
        alpha, beta = extra or (0.54, 0.46)
        w = alpha - beta * np.cos(2 * np.pi * k / (m - 1))
    elif name == "bartlett_window":
        w = 1 - np.abs(2 * k / (m - 1) - 1)
    elif name == "blackman_window":
        w = 0.42 - 0.5 * np.cos(2 * np.pi * k / (m - 1)) + 0.08 * np.cos(4 * np.pi * k / (m - 1))
    else:
        beta = extra[0] if extra else 12.0
        w = np.kaiser(m, beta)
    return w[:n]


@pytest.mark.parametrize("name,extra", WINDOWS)
def test_windows_against_formula(name, extra):
    f = getattr(tp, name)
    for n in (2, 3, 8, 33):
        for periodic in (True, False):
            w = f(n, periodic, *extra, dtype=tp.float64)
            assert w.dtype == tp.float64 and tuple(w.shape) == (n,)
            np.testing.assert_allclose(_np(w), _np_window(name, n, periodic, extra), atol=1e-12)
    assert f(0).shape == (0,) and f(0).dtype == tp.float32
    np.testing.assert_array_equal(_np(f(1)), [1.0])
    w = f(4, requires_grad=True)
    assert w.requires_grad and w.is_leaf and w.dtype == tp.float32


@needs_torch
@pytest.mark.parametrize("name,extra", WINDOWS)
@pytest.mark.parametrize("dt", ["float64", "float32", "float16", "bfloat16"])
def test_windows_against_torch(name, extra, dt):
    """Bit for bit in half and bfloat16 and for bartlett (no cosine); elsewhere the cosines
    (NumPy's and PyTorch's vectorized ones both faithful) may differ in their last bit,
    which moves a window value by at most one unit of 1.0's last place; kaiser's i0 by a few."""
    eps = {"float64": 2.0 ** -52, "float32": 2.0 ** -23}.get(dt, 0.0)
    if name == "kaiser_window":
        eps *= 8
        if dt == "float16":
            eps = 2.0 ** -10 / 2
    for n in (0, 1, 2, 5, 8, 17, 64, 255):
        for periodic in (True, False):
            a = getattr(torch, name)(n, periodic, *extra, dtype=getattr(torch, dt))
            b = getattr(tp, name)(n, periodic, *extra, dtype=getattr(tp, dt))
            assert str(b.dtype) == str(a.dtype).replace("torch", "tensorplay")
            x, y = a.double().numpy(), b.double().numpy()
            if name == "bartlett_window" or (dt in ("float16", "bfloat16") and name != "kaiser_window"):
                np.testing.assert_array_equal(y, x)
            else:
                np.testing.assert_allclose(y, x, rtol=0, atol=eps * 1.0001)


def test_window_errors():
    with pytest.raises(RuntimeError, match="^hann_window requires non-negative window_length, got "
                                           "window_length=-1$"):
        tp.hann_window(-1)
    with pytest.raises(RuntimeError, match=r"^kaiser_window expects floating point dtypes, got: "
                                           r"TensorOptions\(dtype=long int, device=cpu"):
        tp.kaiser_window(4, dtype=tp.int64)


# ------------------------------------------------------------------ scatter ops
def test_node_names_and_gradients():
    a = tp.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    s3 = tp.tensor([1.0, 2.0, 3.0], dtype=tp.float64, requires_grad=True)
    cases = [(tp.diagonal_scatter(a, s3), "DiagonalScatterBackward0"),
             (tp.select_scatter(a, s3, 1, 2), "SelectScatterBackward0"),
             (tp.slice_scatter(a, tp.stack([s3, s3], 1), 1, 1, 4, 2), "SliceScatterBackward0"),
             (a.masked_scatter(a > 5, tp.cat([s3, s3, s3])), "MaskedScatterBackward0")]
    for y, name in cases:
        assert type(y.grad_fn).__name__ == name
        ga, gs = tp.autograd.grad((y * y).sum(), (a, s3))
        assert ga.shape == a.shape and gs.shape == s3.shape
    # diagonal_scatter: the input's gradient is zero on the diagonal, src's the diagonal of g
    y = tp.diagonal_scatter(a, s3)
    g = tp.tensor(np.arange(12.0).reshape(3, 4) + 1)
    ga, gs = tp.autograd.grad(y, (a, s3), g)
    want = _np(g).copy()
    want[[0, 1, 2], [0, 1, 2]] = 0
    np.testing.assert_array_equal(_np(ga), want)
    np.testing.assert_array_equal(_np(gs), [1.0, 6.0, 11.0])


def test_masked_scatter_source_gradient_pads_unused():
    x = tp.zeros(2, 3, dtype=tp.float64, requires_grad=True)
    m = tp.tensor([[True, False, True], [False, False, True]])
    src = tp.tensor(np.arange(1.0, 7.0).reshape(2, 3), requires_grad=True)
    y = x.masked_scatter(m, src)
    np.testing.assert_array_equal(_np(y), [[1, 0, 2], [0, 0, 3]])
    gx, gs = tp.autograd.grad(y, (x, src), tp.tensor(np.arange(10.0, 16.0).reshape(2, 3)))
    np.testing.assert_array_equal(_np(gx), [[0, 11, 0], [13, 14, 0]])
    np.testing.assert_array_equal(_np(gs), [[10, 12, 15], [0, 0, 0]])
    z = tp.zeros(2, 3, dtype=tp.float64)
    assert z.masked_scatter_(m, src.detach()) is z
    np.testing.assert_array_equal(_np(z), [[1, 0, 2], [0, 0, 3]])


def test_masked_scatter_vmap_per_sample_counts():
    """Each sample's mask selects its own number of elements, read from its own source."""
    x = tp.zeros(3, 4, dtype=tp.float64)
    m = tp.tensor([[True, False, True, True], [False, False, False, True], [False] * 4])
    src = tp.tensor(np.arange(12.0).reshape(3, 4))
    got = tp.vmap(tp.masked_scatter)(x, m, src)
    want = tp.stack([tp.masked_scatter(x[i], m[i], src[i]) for i in range(3)])
    np.testing.assert_array_equal(_np(got), _np(want))
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        tp.vmap(tp.masked_scatter)(x, m, src[:, :2])


@pytest.mark.parametrize("shape,wrap", [((3, 4), False), ((7, 3), True), ((7, 3), False), ((3, 7), True),
                                        ((3, 3, 3), False)])
def test_fill_diagonal_positions(shape, wrap):
    x = tp.zeros(*shape)
    assert x.fill_diagonal_(5.0, wrap) is x
    want = np.zeros(shape)
    if len(shape) == 2:
        h, w = shape
        stop = h * w if wrap and h > w else min(h, w) * (w + 1)
        want.reshape(-1)[0:stop:w + 1] = 5.0
    else:
        want[[0, 1, 2], [0, 1, 2], [0, 1, 2]] = 5.0
    np.testing.assert_array_equal(_np(x), want)
    t = tp.zeros(*shape[::-1]).transpose(0, -1)         # non-contiguous: written through an index
    t.fill_diagonal_(5.0, wrap)
    np.testing.assert_array_equal(_np(t), want)


def test_fill_diagonal_gradient():
    a = tp.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
    y = (a * 1).fill_diagonal_(0.5, wrap=True)
    assert type(y.grad_fn).__name__ == "CopySlices"
    (g,) = tp.autograd.grad(y.sum(), (a,))
    want = np.ones((4, 3))
    want.reshape(-1)[0::4] = 0
    np.testing.assert_array_equal(_np(g), want)


def test_block_diag_and_vander_dtypes():
    r = tp.block_diag(tp.tensor([[1, 2]]), tp.tensor(3.0))
    assert r.dtype == tp.float32
    np.testing.assert_array_equal(_np(r), [[1, 2, 0], [0, 0, 3]])
    assert tuple(tp.block_diag().shape) == (1, 0)
    v = tp.vander(tp.tensor([1, 2, 3], dtype=tp.int32))
    assert v.dtype == tp.int64
    np.testing.assert_array_equal(_np(v), np.vander([1, 2, 3]))
    np.testing.assert_array_equal(_np(tp.vander(tp.tensor([2.0, 3.0]), 3, increasing=True)),
                                  np.vander([2.0, 3.0], 3, increasing=True))
    assert tuple(tp.vander(tp.ones(3), 0).shape) == (3, 0)
    assert tuple(tp.linalg.vander(tp.ones(2, 3), N=4).shape) == (2, 3, 4)
    x = tp.tensor([0.0, 1.5, -2.0], requires_grad=True)
    assert tp.autograd.gradcheck(lambda x: tp.vander(x, 4), (x.double(),))


# ------------------------------------------------------------------ attributes and aliases
def test_tensor_attributes():
    x = tp.ones(4, 4)
    assert x.itemsize == 4 and x.nbytes == 64 and x[:, :2].nbytes == 32
    assert tp.ones(2, dtype=tp.complex128).nbytes == 32
    assert x.char().dtype == tp.int8
    assert tp.tensor([2.0]).is_nonzero() and not tp.is_nonzero(tp.tensor([[0]]))
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with no values is ambiguous$"):
        tp.ones(0).is_nonzero()
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        tp.ones(2).is_nonzero()
    assert [tp.ones(1, dtype=d).is_signed() for d in (tp.uint8, tp.bool, tp.int8, tp.float16, tp.complex64)] \
        == [False, False, True, True, True]
    assert tp.is_same_size(x, tp.zeros(4, 4)) and not x.is_same_size(tp.zeros(4))
    with pytest.raises(TypeError, match="argument 'other' \\(position 2\\) must be Tensor, not int"):
        tp.is_same_size(x, 3)
    assert tp.get_device(x) == -1 and not tp.detach(tp.ones(2, requires_grad=True)).requires_grad


def test_adjoint_and_multiply():
    c = tp.tensor(np.arange(6.0).reshape(2, 3) * (1 + 1j))
    np.testing.assert_array_equal(_np(c.adjoint()), _np(c).T.conj())
    np.testing.assert_array_equal(_np(tp.adjoint(tp.ones(2, 3))), np.ones((3, 2)))
    with pytest.raises(RuntimeError, match="adjoint\\(\\) is only supported on matrices or batches of "
                                           "matrices. Got 1-D tensor."):
        tp.ones(2).adjoint()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tp.tensor(1.0).adjoint()
    assert any("deprecated on 0-D" in str(m.message) for m in w)
    x = tp.tensor([1.0, 2.0], requires_grad=True)
    y = tp.multiply(x, 3)
    assert type(y.grad_fn).__name__ == "MulBackward0"
    z = x.detach().clone()
    assert z.multiply_(tp.tensor([2.0, 0.5])) is z
    np.testing.assert_array_equal(_np(z), [2.0, 1.0])
    np.testing.assert_array_equal(_np(x.multiply(x)), [1.0, 4.0])


def test_top_level_inplace_functions():
    x = tp.tensor([-1.0, 0.25, 4.0])
    for name, want in (("abs_", [1.0, 0.25, 4.0]), ("sqrt_", [1.0, 0.5, 2.0]), ("neg_", [-1.0, -0.5, -2.0]),
                       ("relu_", [0.0, 0.0, 0.0])):
        assert getattr(tp, name)(x) is x
        np.testing.assert_array_equal(_np(x), want)
    y = tp.tensor([-2.0, 0.5, 3.0])
    assert tp.clamp_(y, -1, 1) is y
    np.testing.assert_array_equal(_np(y), [-1.0, 0.5, 1.0])
    tp.fill_(y, 7.0)
    np.testing.assert_array_equal(_np(y), [7.0] * 3)
    tp.zero_(y)
    np.testing.assert_array_equal(_np(y), [0.0] * 3)
    s = tp.tensor([0.0, 100.0])
    tp.sigmoid_(s)
    np.testing.assert_allclose(_np(s), [0.5, 1.0])
    for name in ("exp_", "tanh_", "clip_", "trunc_", "detach_", "index_put_", "nan_to_num_", "xlogy_"):
        assert callable(getattr(tp, name)) and getattr(tp, name).__name__ == name


@needs_torch
def test_nn_functional_top_level_signatures_against_torch():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3))
    y = rng.standard_normal((4, 3))
    w3, b3 = rng.standard_normal(3), rng.standard_normal(3)
    img = rng.standard_normal((2, 4, 2, 2))
    t = np.sign(rng.standard_normal(4))
    prob = rng.random((4, 3))
    wb = rng.standard_normal((2, 3, 3))
    calls = [
        lambda T, X, Y: T.batch_norm(X, T.tensor(w3), T.tensor(b3), T.zeros(3, dtype=T.float64),
                                     T.ones(3, dtype=T.float64), False, 0.1, 1e-5, False),
        lambda T, X, Y: T.batch_norm(X, None, None, None, None, True, 0.1, 1e-5, False),
        lambda T, X, Y: T.instance_norm(T.tensor(img), None, None, None, None, True, 0.1, 1e-5, False),
        lambda T, X, Y: T.layer_norm(X, (3,), T.tensor(w3), T.tensor(b3), 1e-5, True),
        lambda T, X, Y: T.layer_norm(X, [3]),
        lambda T, X, Y: T.group_norm(T.tensor(img), 2),
        lambda T, X, Y: T.dropout(X, 0.3, False),
        lambda T, X, Y: T.alpha_dropout(X, 0.3, False),
        lambda T, X, Y: T.feature_alpha_dropout(X, 0.3, False),
        lambda T, X, Y: T.embedding(X, T.tensor([0, 3, 3, 1])),
        lambda T, X, Y: T.embedding(X, T.tensor([0, 3, 3, 1]), 3),
        lambda T, X, Y: T.bilinear(X, Y, T.tensor(wb)),
        lambda T, X, Y: (T.celu(X), T.celu(X, 0.5), T.selu(X), T.rrelu(X), T.threshold(X, 0.1, -3.0)),
        lambda T, X, Y: (T.prelu(X, T.tensor([0.25], dtype=T.float64)), T.hardshrink(X), T.hardshrink(X, 1.0)),
        lambda T, X, Y: (T.pixel_shuffle(T.tensor(img), 2), T.pixel_unshuffle(T.tensor(img), 2)),
        lambda T, X, Y: (T.pairwise_distance(X, Y), T.pairwise_distance(X, Y, 1.0, 1e-6, True),
                         T.cosine_similarity(X, Y), T.cosine_similarity(X, Y, 0)),
        lambda T, X, Y: (T.kl_div(X, Y), T.kl_div(X, Y, 2), T.kl_div(X, Y, 0, log_target=True)),
        lambda T, X, Y: (T.margin_ranking_loss(X[:, 0], Y[:, 0], T.tensor(t)),
                         T.margin_ranking_loss(X[:, 0], Y[:, 0], T.tensor(t), 0.5, 0)),
        lambda T, X, Y: (T.triplet_margin_loss(X, Y, -X), T.triplet_margin_loss(X, Y, -X, 2.0, 1, 1e-6, True, 2)),
        lambda T, X, Y: (T.hinge_embedding_loss(X[:, 0], T.tensor(t)),
                         T.hinge_embedding_loss(X[:, 0], T.tensor(t), 0.5, 2)),
        lambda T, X, Y: T.poisson_nll_loss(X, T.tensor(prob), True, False, 1e-8, 1),
        lambda T, X, Y: T.cosine_embedding_loss(X, Y, T.tensor(t), 0.1, 0),
        lambda T, X, Y: (T.binary_cross_entropy_with_logits(X, T.tensor(prob)),
                         T.binary_cross_entropy_with_logits(X, T.tensor(prob), None, T.tensor(w3).abs(), 2)),
        lambda T, X, Y: T.rms_norm(X, [3], T.tensor(w3)),
    ]
    for k, f in enumerate(calls):
        a = f(torch, torch.tensor(x, requires_grad=True), torch.tensor(y))
        b = f(tp, tp.tensor(x, requires_grad=True), tp.tensor(y))
        a = a if isinstance(a, tuple) else (a,)
        b = b if isinstance(b, tuple) else (b,)
        for u, v in zip(a, b):
            np.testing.assert_allclose(_np(v), u.detach().numpy(), rtol=1e-6, atol=1e-8, err_msg=str(k))
    v = tp.ones(3)
    assert tp.dropout_(v, 0.5, False) is v and tp.celu_(v) is v and tp.threshold_(v, 2.0, 0.0) is v
    np.testing.assert_array_equal(_np(v), [0.0] * 3)
    with pytest.raises(TypeError, match="kl_div\\(\\): argument 'reduction' \\(position 3\\) must be int, not str"):
        tp.kl_div(tp.ones(2), tp.ones(2), "mean")
