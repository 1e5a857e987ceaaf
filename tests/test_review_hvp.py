"""Review of the hvp performance changes (996dc59..89e0b9f), which must not change
behaviour: mm's derivatives as the ops ``mm_nh``/``mm_hn``, the outer product as
a broadcasting multiply, expand/sum_to_size fast paths, the square's derivative,
Python numbers handed to ufuncs as cached 0-d arrays, ``record``'s unrolled
two-tensor branch and ``_bind``'s itemgetter path, ``size_arg``/``dims_arg``,
slice_backward along dim 0, and the flat einsum/attention kernels.

Comparisons with PyTorch skip without it; everything else checks against NumPy
or finite differences (gradcheck/gradgradcheck in float64/complex128)."""
import math
import threading
import warnings

import numpy as np
import pytest

import tensorplay as tp
from tensorplay.ops import _registry as R
from tensorplay.ops import pointwise as PW
from tensorplay.ops.linalg import _mm_hn, _mm_nh

from conftest import assert_close

REAL = ("float64", "float32")
CPLX = ("complex128", "complex64")
LOWP = ("float16", "bfloat16")


def _arr(shape, dtype, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-2, 2, shape) * scale
    if dtype.startswith("complex"):
        a = a + 1j * rng.uniform(-2, 2, shape) * scale
    return a


def _t(M, a, dtype, rg=False, layout="c"):
    """``a`` as a ``dtype`` tensor of library ``M``; layout "t": a transposed
    (F-ordered) view, "s": a strided slice of a bigger tensor."""
    if layout == "t" and a.ndim == 2:
        t = M.tensor(np.ascontiguousarray(a.T)).t()
    elif layout == "s" and a.ndim == 2:
        big = np.zeros((a.shape[0], 2 * a.shape[1] + 1), a.dtype)
        big[:, 1::2] = a
        t = M.tensor(big)[:, 1::2]
    else:
        t = M.tensor(a)
    if dtype in LOWP:
        t = t.to(getattr(M, "float32")).to(getattr(M, dtype))
    else:
        t = t.to(getattr(M, dtype))
    return t.requires_grad_(rg)


def _np(t):
    t = t.detach()
    if str(t.dtype).endswith(("float16", "bfloat16")):
        t = t.float()
    return np.asarray(t.numpy())


def _tol(dtype):
    return {"float64": 1e-12, "complex128": 1e-12, "float32": 1e-5, "complex64": 1e-5,
            "float16": 2e-2, "bfloat16": 5e-2}[dtype]


# ================================================================== 1. mm and its derivatives
MM_SHAPES = [((3, 4), (4, 5)), ((3, 1), (1, 4)), ((1, 4), (4, 5)), ((3, 4), (4, 1)),
             ((1, 4), (4, 1)), ((1, 1), (1, 1)), ((0, 3), (3, 4)), ((3, 0), (0, 4)),
             ((3, 4), (4, 0)), ((0, 1), (1, 4))]


@pytest.mark.parametrize("dtype", REAL + CPLX + LOWP)
@pytest.mark.parametrize("layout", ["c", "t", "s"])
def test_mm_values_and_gradients_match_torch(dtype, layout):
    """Every shape class (outer products, a row or column of output, zero-size
    factors) and layout (contiguous, transposed, strided): mm and both gradients
    as PyTorch has them, the conjugate-Wirtinger convention for complex."""
    torch = pytest.importorskip("torch")
    for k, (xs, ys) in enumerate(MM_SHAPES):
        a, b = _arr(xs, dtype, 10 + k), _arr(ys, dtype, 20 + k)
        g = _arr((xs[0], ys[1]), dtype, 30 + k)
        got = []
        for M in (tp, torch):
            x, y = _t(M, a, dtype, True, layout), _t(M, b, dtype, True, layout)
            out = M.mm(x, y)
            gx, gy = M.autograd.grad(out, (x, y), _t(M, g, dtype))
            got.append([_np(out), _np(gx), _np(gy)])
            assert str(gx.dtype).split(".")[-1] == dtype and tuple(gx.shape) == xs
            assert str(gy.dtype).split(".")[-1] == dtype and tuple(gy.shape) == ys
        for u, v, what in zip(got[0], got[1], ("out", "grad x", "grad y")):
            assert_close(u, v, atol=_tol(dtype) * 10, rtol=_tol(dtype), msg=f"{xs}@{ys} {what}")


def test_mm_outer_product_gradient_keeps_signed_zeros_as_torch():
    """An outer product in the derivative is a multiply now: x = -0.0 gives a
    gradient of -0.0, as PyTorch's (matmul summed it onto +0.0 before)."""
    torch = pytest.importorskip("torch")
    signs = []
    for M in (tp, torch):
        x = M.tensor([[-0.0, 1.0]], dtype=M.float64, requires_grad=True)
        y = M.ones(2, 3, dtype=M.float64, requires_grad=True)
        _, gy = M.autograd.grad(M.mm(x, y), (x, y), M.ones(1, 3, dtype=M.float64))
        signs.append(np.signbit(_np(gy)).tolist())
    assert signs[0] == signs[1] == [[True] * 3, [False] * 3]


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("shapes", MM_SHAPES[:6], ids=lambda s: f"{s[0]}@{s[1]}")
def test_mm_gradgradcheck(dtype, shapes):
    """Double backward through mm_nh/mm_hn (reverse over reverse, forward over
    reverse, batched grads) against finite differences."""
    xs, ys = shapes
    x = _t(tp, _arr(xs, dtype, 1), dtype, True, "t")
    y = _t(tp, _arr(ys, dtype, 2), dtype, True)
    assert tp.autograd.gradcheck(tp.mm, (x, y), check_forward_ad=True)
    assert tp.autograd.gradgradcheck(tp.mm, (x, y), check_fwd_over_rev=True,
                                     check_batched_grad=True)
    # the derivative ops themselves (x @ q^H, p^H @ q), differentiated twice more
    for f, p, q in ((_mm_nh, x, _t(tp, _arr((5, xs[1]), dtype, 3), dtype, True)),
                    (_mm_hn, x.mT.detach().requires_grad_(), _t(tp, _arr((xs[1], 5), dtype, 3), dtype, True))):
        assert tp.autograd.gradcheck(f, (p, q), check_forward_ad=True)
        assert tp.autograd.gradgradcheck(f, (p, q), check_fwd_over_rev=True)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_mm_third_derivative_matches_torch(dtype):
    torch = pytest.importorskip("torch")

    def third(M):
        x = _t(M, _arr((3, 4), dtype, 4), dtype, True, "t")
        y = _t(M, _arr((4, 1), dtype, 5), dtype, True)
        z = M.mm(x, y)
        f = (z * z.conj()).real.sum() if dtype.startswith("c") else (z ** 3).sum()
        gx, = M.autograd.grad(f, x, create_graph=True)
        h = (gx * gx.conj()).real.sum() if dtype.startswith("c") else (gx * gx).sum()
        hy, = M.autograd.grad(h, y, create_graph=True)
        k = (hy.abs() ** 2).sum()
        return [_np(v) for v in M.autograd.grad(k, (x, y))]
    for u, v in zip(third(tp), third(torch)):
        assert_close(u, v, atol=1e-10, rtol=1e-10)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_forward_over_reverse_through_mm_matches_torch(dtype):
    """Hessian-vector products through mm's gradient, by tensorplay.func.jvp over
    func.grad and by forward_ad dual numbers over autograd.grad(create_graph=True)."""
    torch = pytest.importorskip("torch")
    a, b = _arr((3, 4), dtype, 6), _arr((4, 2), dtype, 7)
    ta, tb = _arr((3, 4), dtype, 8), _arr((4, 2), dtype, 9)

    def f(M):
        def loss(x, y):
            z = M.mm(x, y)
            return (z.abs() ** 2).sum() + M.mm(x, y.sin() if dtype == "float64" else y).real.sum()
        return loss

    res = []
    for M in (tp, torch):
        prim = (_t(M, a, dtype), _t(M, b, dtype))
        tang = (_t(M, ta, dtype), _t(M, tb, dtype))
        _, hvp = M.func.jvp(M.func.grad(f(M), argnums=(0, 1)), prim, tang)
        fwad = M.autograd.forward_ad
        with fwad.dual_level():
            x = fwad.make_dual(prim[0].clone().requires_grad_(), tang[0])
            y = fwad.make_dual(prim[1].clone().requires_grad_(), tang[1])
            gx, gy = M.autograd.grad(f(M)(x, y), (x, y), create_graph=True)
            dual = [fwad.unpack_dual(gx).tangent, fwad.unpack_dual(gy).tangent]
        res.append([_np(hvp[0]), _np(hvp[1]), _np(dual[0]), _np(dual[1])])
    for u, v in zip(res[0], res[1]):
        assert_close(u, v, atol=1e-10, rtol=1e-10)
    assert_close(res[0][0], res[0][2], atol=1e-12)


@pytest.mark.parametrize("which", ["nh", "hn"])
@pytest.mark.parametrize("shape", ["general", "outer"])
def test_mm_conjugate_products_jvp_is_exact(which, shape):
    """Both ops are linear in x and conjugate-linear in y: the family's bilinear
    jvp ``f(tx, y) + f(x, ty)`` is the exact directional derivative."""
    f, ref = (_mm_nh, lambda x, y: x @ y.conj().T) if which == "nh" else \
        (_mm_hn, lambda x, y: x.conj().T @ y)
    k = 4 if shape == "general" else 1
    xs, ys = ((3, k), (5, k)) if which == "nh" else ((k, 3), (k, 5))
    a, b, ta, tb = (_arr(s, "complex128", i) for i, s in enumerate((xs, ys, xs, ys)))
    out, tan = tp.func.jvp(f, (tp.tensor(a), tp.tensor(b)), (tp.tensor(ta), tp.tensor(tb)))
    assert_close(out.numpy(), ref(a, b), atol=1e-12)
    assert_close(tan.numpy(), ref(ta, b) + ref(a, tb), atol=1e-12)


@pytest.mark.parametrize("in_dims", [(0, None), (None, 0), (1, 0), (0, 2), (2, 1)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("inner", [4, 1])
def test_vmap_of_grad_through_mm_matches_a_loop(in_dims, dtype, inner):
    """vmap(grad(f)) where f goes through mm: the batching rule of mm_nh/mm_hn
    with every placement of the batch dimension, outer products included."""
    B = 3

    def loss(x, w):
        z = tp.mm(x, w)
        return (z * z.conj()).real.sum() + tp.mm(x, w).real.tanh().sum()

    xs, ws = (2, inner), (inner, 5)
    x = _arr((B,) + xs, dtype, 11)
    w = _arr((B,) + ws, dtype, 12)
    xa = np.moveaxis(x, 0, in_dims[0]) if in_dims[0] is not None else x[0]
    wa = np.moveaxis(w, 0, in_dims[1]) if in_dims[1] is not None else w[1]
    g = tp.func.vmap(tp.func.grad(loss, argnums=(0, 1)), in_dims=in_dims)(tp.tensor(xa), tp.tensor(wa))
    for i in range(B):
        xi = tp.tensor(x[i] if in_dims[0] is not None else xa, requires_grad=True)
        wi = tp.tensor(w[i] if in_dims[1] is not None else wa, requires_grad=True)
        want = tp.autograd.grad(loss(xi, wi), (xi, wi))
        assert_close(g[0][i].numpy(), want[0].numpy(), atol=1e-12)
        assert_close(g[1][i].numpy(), want[1].numpy(), atol=1e-12)


def test_nested_transforms_through_mm_match_torch():
    """vmap(vmap(grad)), hessian and jacfwd(jacrev) of a function through an outer
    product (inner size 1): mm_nh/mm_hn under every transform PyTorch's func has."""
    torch = pytest.importorskip("torch")
    X, W = _arr((2, 3, 4, 1), "float64", 16), _arr((3, 1, 5), "float64", 17)

    def loss(M):
        return lambda x, w: (M.mm(x, w).tanh() ** 2).sum()
    res = []
    for M in (tp, torch):
        g = M.func.vmap(M.func.vmap(M.func.grad(loss(M), argnums=(0, 1)), in_dims=(0, 0)),
                        in_dims=(0, None))(M.tensor(X), M.tensor(W))
        h = M.func.hessian(loss(M), argnums=1)(M.tensor(X[0, 0]), M.tensor(W[0]))
        j = M.func.jacfwd(M.func.jacrev(loss(M), argnums=0), argnums=1)(M.tensor(X[0, 0]),
                                                                        M.tensor(W[0]))
        res.append([_np(g[0]), _np(g[1]), _np(h), _np(j)])
    for u, v in zip(*res):
        assert_close(u, v, atol=1e-12, rtol=1e-10)


@pytest.mark.parametrize("which", ["nh", "hn"])
def test_mm_conjugate_products_batch_rule_outer_and_noncontiguous(which):
    f, ref = (_mm_nh, lambda x, y: x @ y.conj().swapaxes(-1, -2)) if which == "nh" else \
        (_mm_hn, lambda x, y: x.conj().swapaxes(-1, -2) @ y)
    x = _arr((2, 3, 1) if which == "nh" else (2, 1, 3), "complex128", 1)
    y = _arr((2, 5, 1) if which == "nh" else (2, 1, 5), "complex128", 2)
    for dx, dy in ((0, 0), (0, None), (None, 0), (2, 1)):
        a = np.moveaxis(x, 0, dx) if dx is not None else x[0]
        b = np.moveaxis(y, 0, dy) if dy is not None else y[1]
        got = tp.func.vmap(f, in_dims=(dx, dy))(tp.tensor(a), tp.tensor(b))
        want = np.stack([ref(x[i] if dx is not None else a, y[i] if dy is not None else b)
                         for i in range(2)])
        assert_close(got.numpy(), want, atol=1e-12)


def _names(fn, depth):
    if fn is None or depth == 0:
        return None
    name = fn.name().replace("torch::autograd::", "")
    return (name, [_names(f, depth - 1) for f, _ in fn.next_functions])


def test_mm_gradient_node_names_under_create_graph():
    """The gradient made under create_graph ends in MmBackward0 as PyTorch's does,
    edges in PyTorch's order.  (PyTorch also records a TBackward0 for the other
    factor's transpose, which tensorplay does not: the leaves hang directly.)"""
    torch = pytest.importorskip("torch")
    seen = []
    for M in (tp, torch):
        x = M.tensor(_arr((3, 4), "float64", 1), requires_grad=True)
        w = M.tensor(_arr((4, 2), "float64", 2), requires_grad=True)
        gx, gw = M.autograd.grad((x @ w).tanh().sum(), (x, w), create_graph=True)
        seen.append((_names(gx.grad_fn, 2), _names(gw.grad_fn, 2)))
    (tx, tw), (ux, uw) = seen
    assert tx[0] == ux[0] == "MmBackward0" and tw[0] == uw[0] == "MmBackward0"
    assert tx[1][0] == ux[1][0] and tw[1][1] == uw[1][1]       # the incoming gradient's side
    assert tx[1][1][0] == "AccumulateGrad" and ux[1][1][0] == "TBackward0"
    assert tw[1][0][0] == "AccumulateGrad" and uw[1][0][0] == "TBackward0"


def test_mm_gradient_nodes_expose_torchs_saved_tensors():
    torch = pytest.importorskip("torch")
    got = []
    for M in (tp, torch):
        x = M.tensor(np.arange(12.).reshape(3, 4) / 10, requires_grad=True)
        w = M.tensor(np.arange(8.).reshape(4, 2) / 10, requires_grad=True)
        gx, gw = M.autograd.grad((x @ w).tanh().sum(), (x, w), create_graph=True)
        got.append([_np(getattr(g.grad_fn, a)) for g in (gx, gw)
                    for a in ("_saved_self", "_saved_mat2")])
    for u, v in zip(*got):
        assert_close(u, v, atol=1e-12)


def test_mm_saved_tensors_without_torch():
    x = tp.tensor(np.arange(12.).reshape(3, 4) / 10, requires_grad=True)
    w = tp.tensor(np.arange(8.).reshape(4, 2) / 10, requires_grad=True)
    gx, gw = tp.autograd.grad((x @ w).tanh().sum(), (x, w), create_graph=True)
    g = (1 - (x @ w).tanh() ** 2).detach().numpy()
    assert np.array_equal(gx.grad_fn._saved_self.detach().numpy(), g)
    assert np.array_equal(gw.grad_fn._saved_mat2.detach().numpy(), g)
    assert np.array_equal(gx.grad_fn._saved_mat2.detach().numpy(), w.detach().numpy().T)
    assert np.array_equal(gw.grad_fn._saved_self.detach().numpy(), x.detach().numpy().T)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
@pytest.mark.parametrize("shapes", [((2, 3), (3, 4)), ((2, 1), (1, 4)), ((0, 3), (3, 2))])
def test_mm_integers_match_torch(dtype, shapes):
    torch = pytest.importorskip("torch")
    a = np.arange(math.prod(shapes[0])).reshape(shapes[0]) % 5
    b = np.arange(math.prod(shapes[1])).reshape(shapes[1]) % 7
    r = [M.mm(M.tensor(a).to(getattr(M, dtype)), M.tensor(b).to(getattr(M, dtype)))
         for M in (tp, torch)]
    assert str(r[0].dtype).split(".")[-1] == str(r[1].dtype).split(".")[-1] == dtype
    assert r[0].tolist() == r[1].tolist()


def test_mm_bool_is_refused_as_torch():
    with pytest.raises(NotImplementedError, match="\"addmm_impl_cpu_\" not implemented for 'Bool'"):
        tp.mm(tp.ones(2, 3, dtype=tp.bool), tp.ones(3, 4, dtype=tp.bool))


# ================================================================== 2. expand, sum_to_size
EXP_SHAPES = [(), (1,), (3,), (1, 3), (3, 1), (2, 3), (0,), (0, 1), (1, 0), (2, 1, 3)]
EXP_SIZES = [(), (1,), (3,), (-1,), (4, 3), (4, -1), (-1, 3), (2, 3), (2, 1, 3), (5, 2, 4, 3),
             (0, 3), (0,), (1, 1), (4, 0), (-1, -1), (2, -1, 3), (-1, 1, 3), (1, 2, 3), (3, 3),
             (-2,), (2, -2), (3, 0), (1, 1, 1), (2, 0, 3), (2, 2, 1, 3), (7, 1), (1, 7), (0, 0),
             (2, 3, -1), (1, -1)]


def _expand_outcome(M, shape, size, layout, dtype, spelling):
    n = math.prod(shape)
    a = np.arange(n, dtype=np.float64).reshape(shape) + 1
    if layout == "s" and shape and n:
        big = np.zeros(shape[:-1] + (2 * shape[-1],))
        big[..., ::2] = a
        x = M.tensor(big)[..., ::2]
    else:
        x = M.tensor(a)
    x = x.to(getattr(M, dtype))
    try:
        e = x.expand(*size) if spelling == "star" else x.expand(list(size)) if spelling == "list" \
            else x.expand(size)
    except Exception as ex:             # noqa: BLE001  (the type and words are compared)
        return ("error", type(ex).__name__, str(ex))
    out = [tuple(e.shape), e.to(M.float64).flatten().tolist()]
    try:
        e.logical_not_() if dtype == "bool" else e.mul_(2)
        out.append(("written", x.to(M.float64).flatten().tolist()))
    except RuntimeError as ex:
        out.append(("refused", str(ex)))
    x.logical_not_() if dtype == "bool" else x.add_(1)           # seen through the expand
    out.append(e.to(M.float64).flatten().tolist())
    return out


def _expand_known_divergence(shape, size, out_torch, out_tp):
    """Divergences that predate 996dc59 (reported, not this diff's)."""
    import re
    if out_torch[0] == "error" and out_torch[2].startswith("expand() missing 1 required positional"):
        return not size     # x.expand() without sizes: tensorplay expands to ()
    if out_torch[0] == "error" and out_tp[0] == "error":
        if out_torch[1] != out_tp[1]:
            return False
        if out_torch[2] == "numel: integer multiplication overflow":
            return True     # PyTorch 2.13's words for a negative size; tensorplay's are older
        if out_torch[2].startswith("The expanded size of the tensor (") and \
                out_tp[2].startswith("The expanded size of the tensor ("):
            return True     # PyTorch names the last dimension that does not fit, tensorplay the first
        # tensorplay's "number of sizes provided" message always says torch.FloatTensor
        return re.sub(r"expand\((torch\.\w+|CPU\w+Type)\{", "expand(T{", out_torch[2]) == \
            out_tp[2].replace("expand(torch.FloatTensor{", "expand(T{")
    if out_torch[0] != "error" and out_tp[0] != "error" and 0 in out_torch[0] and math.prod(shape):
        # an expand of a non-empty tensor to an empty shape refuses writes (PyTorch allows)
        return out_tp[2][0] == "refused" and out_torch[2][0] == "written" and \
            out_tp[:2] == out_torch[:2]
    return False


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "float16"])
@pytest.mark.parametrize("layout", ["c", "s"])
def test_expand_matches_torch(dtype, layout):
    """Every expand spelling over shapes with size-1, zero-size and 0-d inputs:
    the result, whether writing into it is allowed (exactly when PyTorch allows),
    memory shared with the input both ways, and errors (type and words)."""
    torch = pytest.importorskip("torch")
    bad = []
    for shape in EXP_SHAPES:
        for size in EXP_SIZES:
            if shape == () and -1 in size:
                continue        # PyTorch 2.13 itself is inconsistent there (a (0, -1) tensor)
            for spelling in ("tuple", "star", "list"):
                a = _expand_outcome(tp, shape, size, layout, dtype, spelling)
                b = _expand_outcome(torch, shape, size, layout, dtype, spelling)
                if a != b and not _expand_known_divergence(shape, size, b, a):
                    bad.append((shape, size, spelling, a, b))
    assert not bad, bad[:3]


def test_expand_writability_and_sharing_without_torch():
    """A writable view exactly when no element repeats (size-1 dims added or
    kept, -1, zero-size); read-only otherwise; always the input's memory."""
    cases = [((3,), (-1,), True), ((2, 1, 3), (2, -1, 3), True), ((2, 3), (1, 1, 2, 3), True),
             ((0, 1), (0, 5), True), ((0,), (4, 0), True), ((), (1, 1), True), ((), ()), ((1,), (3,), False),
             ((), (2, 2), False), ((3, 1), (3, 4), False), ((2, 3), (4, 2, 3), False)]
    for c in cases:
        shape, size = c[0], c[1]
        x = tp.tensor(np.arange(math.prod(shape), dtype=np.float64).reshape(shape))
        e = x.expand(size)
        writable = c[2] if len(c) > 2 else True
        assert e.numpy().flags.writeable == writable, (shape, size)
        if e.numel():
            assert np.shares_memory(e.numpy(), x.numpy()), (shape, size)
        if writable and e.numel():
            e.add_(5)
            assert (x.numpy() >= 5).all()
        elif not writable:
            with pytest.raises(RuntimeError, match="more than one element of the written-to"):
                e.add_(5)


def test_expand_spellings_and_errors():
    x = tp.tensor([[1.0], [2.0]])
    want = np.array([[1.0] * 3, [2.0] * 3])
    for e in (x.expand(2, 3), x.expand((2, 3)), x.expand([2, 3]), x.expand(-1, 3),
              x.expand(np.int64(2), np.int64(3)), x.expand(tp.Size([2, 3])),
              tp.broadcast_to(x, (2, 3)), x.expand_as(tp.zeros(2, 3)), x.expand(tp.tensor(2), 3)):
        assert np.array_equal(e.numpy(), want)
    for bad in ((3, 3), (2, 0, 1, 3)):
        with pytest.raises(RuntimeError, match="must match the existing size"):
            x.expand(bad)
    with pytest.raises(RuntimeError, match=r"^expand\(torch.FloatTensor\{\[2, 1\]\}, size=\[3\]\): the "
                       r"number of sizes provided \(1\) must be greater or equal to the number of "
                       r"dimensions in the tensor \(2\)$"):
        x.float().expand(3)
    with pytest.raises(RuntimeError, match="leading, non-existing dimension 0"):
        x.expand(-1, 2, 3)
    with pytest.raises(TypeError):
        x.expand(2.0, 3)


def test_expand_message_names_the_dtype():
    with pytest.raises(RuntimeError, match=r"torch\.DoubleTensor"):
        tp.ones(2, 3, dtype=tp.float64).expand(3)


def test_expand_names_the_last_mismatching_dimension():
    with pytest.raises(RuntimeError, match=r"^The expanded size of the tensor \(0\) must match the "
                       r"existing size \(3\) at non-singleton dimension 1"):
        tp.ones(2, 3).expand(4, 0)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int32", "bool", "complex64", "float64"])
def test_expand_of_0d_and_readonly_inputs(dtype):
    """0-d inputs (the old scalar branch), low precision, and inputs whose own
    memory is read-only (an expand of an expand, a 0-d view into one)."""
    def f64(t):
        return (t.real if t.is_complex() else t).to(tp.float64)
    v = 1.0 if dtype == "bool" else 3.0
    x = tp.tensor(v).to(getattr(tp, dtype))
    for size in ((4,), (2, 3), (1,), (1, 1), (0,), (2, 0)):
        e = x.expand(size)
        assert tuple(e.shape) == size and e.dtype == x.dtype
        assert (f64(e).numpy() == v).all()
    ro = tp.tensor([v]).to(getattr(tp, dtype)).expand(3)[1]       # 0-d, read-only memory
    e = ro.expand(2, 2)
    assert tuple(e.shape) == (2, 2) and (f64(e).numpy() == v).all()
    e2 = tp.tensor(v).to(getattr(tp, dtype)).expand(3, 1).expand(3, 4)
    assert (f64(e2).numpy() == v).all() and not e2.numpy().flags.writeable


@pytest.mark.parametrize("shape, size", [((), (3, 2)), ((1,), (4,)), ((3,), (-1,)), ((3,), (2, 3)),
                                         ((2, 1), (2, 4)), ((2, 1), (-1, 4)), ((1, 3), (5, 1, 3)),
                                         ((2, 3), (2, 3)), ((0, 1), (0, 4)), ((1, 0), (3, 0))])
def test_expand_gradients(shape, size):
    x = tp.tensor(_arr(shape, "float64", 3), requires_grad=True)
    assert tp.autograd.gradcheck(lambda x: x.expand(size), (x,), check_forward_ad=True)
    assert tp.autograd.gradgradcheck(lambda x: x.expand(size) * x.expand(size), (x,))
    xs = x.detach().t().requires_grad_() if len(shape) == 2 else x     # non-contiguous
    assert tp.autograd.gradcheck(lambda x: x.expand((2,) + tuple(x.shape)), (xs,))


STS_SHAPES = [(2, 3), (4, 2, 3), (2, 1, 3), (3,), (), (0, 3), (2, 0), (5, 1), (1, 4), (3, 2, 1)]
STS_SIZES = [(), (3,), (1,), (1, 3), (2, 3), (2, 1), (1, 1), (2, 1, 3), (4, 1, 3), (1, 2, 3), (0,),
             (3, 3), (4,), (-1,), (0, 3), (1, 0), (5, 1), (1, 1, 1), (4, 2, 3), (2, 1, 1), (2,), (3, 1)]


def _sts_outcome(M, shape, size, dtype, spelling):
    n = math.prod(shape)
    a = (np.arange(n) % 3 + 1).reshape(shape) if n else np.zeros(shape)
    x = M.tensor(a).to(getattr(M, dtype))
    try:
        r = x.sum_to_size(size) if spelling == 0 else x.sum_to_size(*size) if spelling == 1 \
            else x.sum_to_size(list(size))
    except Exception as ex:             # noqa: BLE001
        # (the words differ since before 996dc59: PyTorch prints sizes as {[2, 3]})
        return ("error", type(ex).__name__, str(ex).replace("[", "").replace("]", ""))
    v = r.real if r.is_complex() else r
    return (str(r.dtype).split(".")[-1], tuple(r.shape), v.to(M.float64).flatten().tolist())


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int32", "int64", "bool",
                                   "complex64"])
def test_sum_to_size_matches_torch(dtype):
    """Every reduction pattern (leading dims only: the fast path; size-1 dims; both;
    nothing), errors, and the result dtype of integer and bool inputs."""
    torch = pytest.importorskip("torch")
    bad = []
    for shape in STS_SHAPES:
        for size in STS_SIZES:
            for spelling in (0, 1, 2):
                if spelling == 1 and not size:
                    continue
                if shape == () and size == () and dtype in ("int32", "bool"):
                    continue    # predates: PyTorch sums a 0-d int32/bool to int64 there
                a = _sts_outcome(tp, shape, size, dtype, spelling)
                b = _sts_outcome(torch, shape, size, dtype, spelling)
                if a != b:
                    bad.append((shape, size, spelling, a, b))
    assert not bad, bad[:3]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "bool", "float16", "complex128"])
def test_sum_to_size_leading_dims_fast_path(dtype):
    """Leading dims only: NumPy's own sum over them, bit for bit, as a Tensor of
    the right shape (a full reduction gives a 0-d tensor, not a NumPy scalar)."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 4, 3)) * 100
    x = tp.tensor(a).to(getattr(tp, dtype))
    d = x.numpy()
    for size, axes in (((4, 3), (0,)), ((3,), (0, 1)), ((), (0, 1, 2))):
        r = x.sum_to_size(size)
        assert isinstance(r, tp.Tensor) and tuple(r.shape) == size
        want = np.sum(d, axis=axes)
        if dtype in ("float16",):
            want = want.astype(np.float16)      # (computed in float32 and rounded)
            assert_close(r.float().numpy(), want, rtol=2e-3, atol=1e-2)
            continue
        assert r.numpy().dtype == np.asarray(want).dtype
        assert np.array_equal(r.numpy(), want)
    x = tp.tensor(rng.standard_normal((4, 2, 3)), requires_grad=True)
    assert tp.autograd.gradcheck(lambda x: x.sum_to_size(2, 3), (x,), check_forward_ad=True)
    assert tp.autograd.gradgradcheck(lambda x: x.sum_to_size(3) ** 2, (x,))
    v = tp.tensor(rng.standard_normal((3,)), requires_grad=True)
    assert tp.autograd.gradcheck(lambda v: v.sum_to_size(()), (v,))


# ================================================================== 3. pointwise
def _square_grad(M, dtype, x, g, e):
    xt = M.tensor(np.array([x])).to(getattr(M, dtype)).requires_grad_()
    y = xt ** e
    gt = M.tensor(np.array([g])).to(y.dtype)
    r, = M.autograd.grad(y, xt, gt)
    return _np(r).astype(np.complex128 if dtype.startswith("c") else np.float64)


# (x, incoming gradient): 2x and 2g both representable or both not, but one of them
# overflows; PyTorch computes g * (2 * x)
_SQUARE_EDGES = {"float64": [(0.0, 1e308), (0.25, 1e308), (1e308, 0.25), (1e308, 0.0)],
                 "float32": [(0.0, 3e38), (0.25, 3e38), (3e38, 0.25), (3e38, 0.0)],
                 "float16": [(0.0, 40000.0), (0.1, 40000.0), (40000.0, 0.25)],
                 "bfloat16": [(0.0, 3e38), (0.25, 3e38)],
                 "complex128": [(0.0, 1e308), (0.25, 1e308), (1e308, 0.25)]}


@pytest.mark.parametrize("dtype", sorted(_SQUARE_EDGES))
def test_square_gradient_matches_torch_at_the_range_edges(dtype):
    torch = pytest.importorskip("torch")
    with np.errstate(all="ignore"):
        for x, g in _SQUARE_EDGES[dtype]:
            for e in (2, 2.0):
                a, b = _square_grad(tp, dtype, x, g, e), _square_grad(torch, dtype, x, g, e)
                assert np.array_equal(a, b, equal_nan=True), (x, g, e, a, b)


def test_square_gradient_at_zero_is_zero_for_a_large_gradient():
    for dtype, g in (("float64", 1e308), ("float32", 3e38), ("float16", 40000.0)):
        x = tp.zeros(3, dtype=getattr(tp, dtype), requires_grad=True)
        r, = tp.autograd.grad(x ** 2, x, tp.full((3,), g, dtype=getattr(tp, dtype)))
        assert (r.float().numpy() == 0).all(), dtype


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "float16", "bfloat16"])
def test_square_gradient_matches_torch_in_range(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    xs = list(rng.standard_normal(20) * 3) + [0.0, -0.0, 1.5, -2.5, 1e-300, np.inf, -np.inf, np.nan]
    with np.errstate(all="ignore"):
        for x in xs:
            for g in (1.0, -0.5, 3.25, 0.0):
                for e in (2, 2.0):
                    a, b = _square_grad(tp, dtype, x, g, e), _square_grad(torch, dtype, x, g, e)
                    assert np.array_equal(a, b, equal_nan=True), (x, g, e, a, b)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_square_gradient_gradgradcheck(dtype):
    x = tp.tensor(_arr((5,), dtype, 8), requires_grad=True)
    for f in (lambda x: x ** 2, lambda x: x ** 2.0, lambda x: (x * 3) ** 2 + x.pow(2)):
        assert tp.autograd.gradcheck(f, (x,), check_forward_ad=True)
        assert tp.autograd.gradgradcheck(f, (x,), check_fwd_over_rev=True)


# the binary ops whose fast path takes a Python number (a ufunc kernel), and the
# reflected spellings that reach ``rfast`` (atan2, maximum, fmax... refuse numbers,
# as PyTorch's signatures do)
def _torch_remainder(a, b):
    """PyTorch's remainder of floats: fmod moved by the divisor where the signs
    differ, so that a zero keeps the dividend's sign (NumPy's takes the divisor's)."""
    r = np.fmod(a, b)
    with np.errstate(invalid="ignore"):
        move = (r != 0) & ((r < 0) != (np.asarray(b) < 0))
    return np.where(move, r + b, r)


_FAST_OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
             "remainder": _torch_remainder, "floor_divide": np.floor_divide, "fmod": np.fmod}
_REFLECTED = {"add": lambda v, x: v + x, "sub": lambda v, x: v - x, "mul": lambda v, x: v * x,
              "div": lambda v, x: v / x, "remainder": lambda v, x: v % x,
              "floor_divide": lambda v, x: v // x}
_COMPLEX_OK = ("add", "sub", "mul", "div")
_NUMBERS = [1, -1, 2, 3, 7, 0.5, -7.25, 1 / 3, 0.1, 1.0001, 1e-45, 1e-50, -1e-50, 3.4e38,
            3.4028235e38, 3.4028235677973366e38, 1e39, -1e39, 1e308, 2 ** 24 + 1, 2 ** 53 + 1,
            2 ** 60 + 2 ** 36 + 1, 2 ** 63, 2 ** 64 + 1, 2 ** 100, 2 ** 128, 2 ** 1023,
            float("inf"), float("-inf"), 0, 0.0, -0.0, float("nan"), 10 ** 400]


def _call_warns(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = f()
        except Exception as ex:         # noqa: BLE001
            return ("error", type(ex).__name__), sorted(str(m.message) for m in w)
    return r, sorted(str(m.message) for m in w)


def _same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    return got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype, name", [(d, n) for d in REAL + CPLX for n in sorted(_FAST_OPS)
                                         if d in REAL or n in _COMPLEX_OK])
def test_fast_path_numbers_are_numpys_bit_for_bit(dtype, name):
    """Every fast-path binary op with a Python number on either side, 1-d and 0-d,
    called three times (cache misses and hits): NumPy's own result for the number
    bit for bit (-0.0, NaN payloads, overflow to inf), its warnings every time, its
    errors (10 ** 400)."""
    uf = _FAST_OPS[name]
    fn = getattr(tp, name)
    rng = np.random.default_rng(9)
    base = rng.standard_normal(8) * 10
    base[:3] = [0.0, -0.0, np.inf]
    a1 = base.astype(dtype)
    if dtype.startswith("complex"):
        im = np.where(np.isinf(a1[::-1].real), 0, a1[::-1].real)
        a1 = a1 + (1j * im).astype(dtype)
    for a in (a1, a1[3:4].reshape(())):
        x = tp.tensor(a)
        for v in _NUMBERS:
            for _ in range(3):
                want, ww = _call_warns(lambda: uf(a, v))
                got, gw = _call_warns(lambda: fn(x, v))
                assert gw == ww, (v, gw, ww)
                if isinstance(want, tuple):
                    assert got == want, v
                else:
                    assert _same_bits(got.numpy(), want), (v, got, want)
                if name in _REFLECTED:
                    # (a commutative op's reflected operator computes x op v, as PyTorch
                    # does: NaN signs can differ from NumPy's v op x for complex)
                    # (number / tensor is PyTorch's reciprocal(tensor) * number)
                    want, ww = _call_warns(lambda: uf(a, v) if name in ("add", "mul") else
                                           np.multiply(np.reciprocal(a), v) if name == "div" else uf(v, a))
                    got, gw = _call_warns(lambda: _REFLECTED[name](v, x))
                    assert gw == ww, (v, gw, ww)
                    if isinstance(want, tuple):
                        assert got == want, v
                    else:
                        assert _same_bits(got.numpy(), want), (v, got, want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_fast_path_numbers_match_torch(dtype):
    """Values and dtypes against PyTorch, for numbers of every Python type the
    operators take (bool and NumPy scalars go the general way, not the cache),
    after the cache already holds equal keys (1 == 1.0 == True)."""
    torch = pytest.importorskip("torch")
    vals = [1, 1.0, True, False, 2, 2.0, np.float64(2.5), np.float32(2.5), np.int64(3), -0.0, 0,
            0.5, 2 ** 53 + 1, 2 ** 60 + 2 ** 36 + 1, 1e-50]
    if not dtype.startswith("complex"):
        # (predates: a complex tensor times inf is inf+0j here, PyTorch's inf+nanj)
        vals += [float("inf"), float("nan")]
    a = np.array([1.5, -2.25, 0.0, -0.0, 3e10, 7.0])
    ops = [("add", lambda x, v: x + v), ("mul", lambda x, v: x * v), ("div", lambda x, v: x / v),
           ("rmul", lambda x, v: v * x), ("radd", lambda x, v: v + x), ("sub", lambda x, v: x - v),
           ("rdiv", lambda x, v: v / x)]
    for name, f in ops:
        for v in vals:
            if type(v) is bool and name == "sub":
                continue        # (predates: PyTorch refuses a bool in subtraction, tensorplay not)
            with np.errstate(all="ignore"):
                r = [f(M.tensor(a).to(getattr(M, dtype)), v) for M in (tp, torch)]
            assert str(r[0].dtype).split(".")[-1] == str(r[1].dtype).split(".")[-1], v
            assert_close(_np(r[0]), _np(r[1]), rtol=1e-6, atol=0, msg=repr(v))
            if not dtype.startswith("complex"):     # (signed zeros of complex products: predates)
                assert np.array_equal(np.signbit(_np(r[0])), np.signbit(_np(r[1]))), v


def test_scalar_cache_arrays_are_readonly_and_never_leak():
    x32 = tp.tensor([1.0, 2.0], dtype=tp.float32)
    z = tp.tensor(3.0, dtype=tp.float64)
    results = [x32 * 2.5, 2.5 * x32, x32 + 7, z * 2.5, 2.5 - z, z / 3, z % 4.0,
               tp.fmod(x32, 2.0)]
    for r in results:
        d = r.numpy()
        assert d.flags.writeable and d.flags.owndata
        for dt, cache in PW._SCALARS.items():
            for k, c in cache.items():
                assert not np.shares_memory(d, c)
    for r in results:
        r.add_(100)                 # a result is the caller's: writing it leaves the cache alone
    for dt, cache in PW._SCALARS.items():
        for k, c in cache.items():
            assert c.shape == () and c.dtype == dt and not c.flags.writeable
            assert c == np.array(k, dt), (dt, k)
            with pytest.raises(ValueError):
                c[...] = 0
    assert (x32 * 2.5).tolist() == [2.5, 5.0] and (z * 2.5).item() == 7.5


def test_scalar_cache_stays_bounded_and_correct():
    x = tp.tensor(np.linspace(-3, 3, 7))
    a = x.numpy()
    cache = PW._SCALARS[np.dtype(np.float64)]
    for i in range(1500):
        v = 1.0 + i / 7
        assert np.array_equal((x * v).numpy(), a * v)
        assert np.array_equal((v - x).numpy(), v - a)
        assert len(cache) <= 512
    assert all(type(k) in (int, float) for k in cache)


def test_scalar_cache_under_threads():
    """Threads sharing (and clearing) the cache get NumPy's results every time."""
    x = tp.tensor(np.linspace(-2, 2, 4, dtype=np.float32))     # (no zero: no warnings)
    a = x.numpy()
    errors = []

    def work(seed):
        rng = np.random.default_rng(seed)
        for v in rng.integers(-2000, 2000, 400) / 8:
            v = float(v)
            for f, uf in ((lambda x, v: x * v, np.multiply), (lambda x, v: x + v, np.add)):
                if not np.array_equal(f(x, v).numpy(), uf(a, v)):
                    errors.append((seed, v))
            if not np.array_equal((v / x).numpy(), np.true_divide(v, a)):
                errors.append((seed, v))
    with np.errstate(all="ignore"):
        ts = [threading.Thread(target=work, args=(s,)) for s in range(6)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    assert not errors, errors[:5]
    assert len(PW._SCALARS[np.dtype(np.float32)]) <= 512


def test_scalar_fast_path_gradients_unchanged():
    """The saved number is the Python number (never the cached array): the
    gradients of every op with a number on either side against finite differences."""
    x = tp.tensor(_arr((4,), "float64", 5) + 3, requires_grad=True)
    fs = [lambda x: x * 2.5 + 2.5 * x, lambda x: x / 3 + 3 / x, lambda x: 7 - x + (x - 7),
          lambda x: x ** 2.0 + 2.0 ** x, lambda x: x % 1.5,
          lambda x: tp.fmod(x, 2.0)]
    for f in fs:
        for _ in range(2):
            assert tp.autograd.gradcheck(f, (x,))
            assert tp.autograd.gradgradcheck(f, (x,))
    y = x * 2.5
    assert type(y.grad_fn._saved_other) is tp.Tensor and y.grad_fn._saved_other.item() == 2.5


# ================================================================== 4. record and _bind
def _capture_records(monkeypatch):
    seen = []
    orig = R.record

    def spy(op, args, outs):
        node = orig(op, args, outs)
        seen.append((op, list(args), outs, node))
        return node
    monkeypatch.setattr(R, "record", spy)
    return seen


def _general(op, args, outs, node):
    """What ``_edges_and_meta`` (the general path) builds for the same call."""
    n_in = op.n_in if op.n_in >= 0 else len(args) - op.n_kw
    other = type(node)()
    key = R._edges_and_meta(other, op, args, outs, n_in, type(outs) is not tuple)
    return other.next_edges, other.input_meta, key


def _two_tensor_calls():
    rng = np.random.default_rng(12)

    def leaf(*s):
        return tp.tensor(rng.standard_normal(s), requires_grad=True)

    def const(*s):
        return tp.tensor(rng.standard_normal(s))
    a, b = leaf(3, 4), leaf(4, 2)

    def stale():
        base = leaf(5, 4) * 1.0
        view = base[1:4]
        base.mul_(2)            # the view is stale: record must refresh its history
        return view
    s1, s2, s3, s4 = stale(), stale(), stale(), stale()
    u = leaf(4, 4).unbind(0)    # outputs 1.. of one node: edges carry the output number
    calls = [lambda: tp.mm(a, b), lambda: tp.mm(const(3, 4), b), lambda: tp.mm(a, const(4, 2)),
             lambda: tp.mm(a * 2, b.exp()), lambda: tp.mm(s1, b), lambda: tp.mm(const(2, 3), s2),
             lambda: tp.mm(s3, s4.T), lambda: tp.dot(u[1], u[2]), lambda: tp.mm(u[3][None], b),
             lambda: tp.dot(const(4), u[2]),
             lambda: tp.bmm(leaf(2, 3, 4), const(2, 4, 1)), lambda: tp.dot(leaf(3), leaf(3)),
             lambda: tp.vdot(const(3), leaf(3)), lambda: tp.mv(leaf(3, 4), const(4)),
             lambda: tp.matmul(leaf(2, 3, 4), leaf(4, 5)), lambda: tp.cat([a, const(2, 4)]),
             lambda: tp.stack([const(3, 4), a]), lambda: tp.einsum("ij,jk->ik", a, b),
             lambda: tp.masked_select(a, const(3, 4) > 0), lambda: tp.take(a, tp.tensor([0, 5])),
             lambda: a.clone().index_put_((tp.tensor([0, 2]),), tp.tensor(1.5, dtype=tp.float64)),
             lambda: a.clone().index_put((tp.tensor([0, 2]),), b.sum()),
             lambda: tp.autograd.grad(tp.mm(a, b).tanh().sum(), (a, b), create_graph=True)]
    return calls


def test_two_tensor_record_builds_the_general_nodes(monkeypatch):
    """``record``'s unrolled n_in == 2 branch against ``_edges_and_meta``: the
    same edges (leaf, non-leaf, no grad, a view written in place since), the same
    input metadata, and what is saved follows the general path's key."""
    calls = _two_tensor_calls()
    seen = _capture_records(monkeypatch)
    checked = set()
    for c in calls:
        del seen[:]
        c()
        for op, args, outs, node in seen:
            n_in = op.n_in if op.n_in >= 0 else len(args) - op.n_kw
            if n_in != 2 or op.elementwise:
                continue
            edges, meta, key = _general(op, args, outs, node)
            assert node.next_edges == edges, op.name
            assert node.input_meta == meta, op.name
            assert all(e is None or isinstance(e[0], R.Node)
                       for e in node.next_edges)
            plan = op.plans.get(-n_in if op.joint else key) or op.plan(key, n_in)
            if plan.keep:
                for i in range(n_in):
                    a = node.args[i]
                    if i in plan.unread:
                        assert a is None, (op.name, i)
                    elif i in plan.metas:
                        assert isinstance(a, R.TensorMeta) or not isinstance(args[i], tp.Tensor)
                    else:
                        assert a is args[i] or isinstance(a, R._Packed), (op.name, i)
            checked.add(op.name)
    assert {"mm", "mm_nh", "mm_hn", "bmm", "dot", "vdot", "mv", "matmul", "cat", "stack",
            "einsum", "masked_select", "take", "index_put"} <= checked, checked


def test_view_written_in_place_then_mm_gradient():
    """A view of a tensor written in place after the view was taken, into mm: the
    edge must follow the refreshed history (the gradient flows through mul_),
    with the stale view first, second, or both."""
    rng = np.random.default_rng(13)
    w0, b0 = rng.standard_normal((5, 4)), rng.standard_normal((4, 2))

    def setup():
        w = tp.tensor(w0, requires_grad=True)
        b = tp.tensor(b0, requires_grad=True)
        base = w * 1.0
        view = base[1:4]
        base.mul_(3)
        return w, b, base, view
    want_w = np.zeros((5, 4))
    want_w[1:4] = 3 * np.ones((3, 2)) @ b0.T
    w, b, base, view = setup()
    gw, gb = tp.autograd.grad(tp.mm(view, b).sum(), (w, b))
    assert_close(gw.numpy(), want_w, atol=1e-12)
    assert_close(gb.numpy(), (3 * w0[1:4]).T @ np.ones((3, 2)), atol=1e-12)
    w, b, base, view = setup()
    gw, = tp.autograd.grad(tp.mm(b.T, view.T).sum(), (w,))
    assert_close(gw.numpy(), want_w, atol=1e-12)
    w, b, base, view = setup()
    c = tp.ones(2, 3, dtype=tp.float64)
    gw, = tp.autograd.grad(tp.mm(c, view).sum(), (w,))        # the stale view as mm's second input
    want = np.zeros((5, 4))
    want[1:4] = 3 * np.ones((3, 2)) @ np.ones((2, 4))
    assert_close(gw.numpy(), want, atol=1e-12)
    w, b, base, view = setup()
    v2 = base[0:2]
    base.add_(1)
    gw, = tp.autograd.grad(tp.mm(view, v2.T).sum(), (w,))
    want = np.zeros((5, 4))
    bw = 3 * w0 + 1
    want[1:4] += 3 * np.ones((3, 2)) @ bw[0:2]
    want[0:2] += 3 * (np.ones((3, 2)).T @ bw[1:4])
    assert_close(gw.numpy(), want, atol=1e-12)


def test_view_written_in_place_then_mm_matches_torch():
    torch = pytest.importorskip("torch")
    got = []
    for M in (tp, torch):
        w = M.tensor(_arr((5, 4), "float64", 1), requires_grad=True)
        b = M.tensor(_arr((4, 2), "float64", 2), requires_grad=True)
        base = w * 1.0
        view = base[1:4]
        base.mul_(3)
        out = M.mm(view, b)
        got.append([_np(g) for g in M.autograd.grad((out ** 2).sum(), (w, b))] +
                   [out.grad_fn.name()])
    for u, v in zip(got[0][:2], got[1][:2]):
        assert_close(u, v, atol=1e-12)
    assert got[0][2] == got[1][2] == "MmBackward0"


def test_bind_gives_defaults_for_omitted_trailing_parameters():
    """The itemgetter path of ``_bind``: a derivative reading parameters after the
    tensors gets them when the call gave them and their defaults when a call
    recorded fewer arguments (the pointwise fast paths record only tensors)."""
    def kernel(x, y, a=2.0, b=3.0):
        return x * y * a + b

    seen = []

    def dy(g, x, a, b):
        seen.append((a, b))
        return g * x * a
    op = R.Op("t_bind_defaults", kernel, {"x": lambda g, y, a: g * y * a, "y": dy}, n_in=2)
    vjp_x, vjp_y = op.vjp
    g, x, y = 1.0, 5.0, 7.0
    assert vjp_y(g, None, [x, y, 4.0, 6.0]) == 5.0 * 4.0 and seen[-1] == (4.0, 6.0)
    assert vjp_y(g, None, (x, y, 4.0)) == 5.0 * 4.0 and seen[-1] == (4.0, 3.0)
    assert vjp_y(g, None, [x, y]) == 5.0 * 2.0 and seen[-1] == (2.0, 3.0)
    assert vjp_x(g, None, (x, y)) == 7.0 * 2.0
    assert vjp_x(g, None, [x, y, 0.5, 9.0]) == 7.0 * 0.5


@pytest.mark.parametrize("name, args, full", [
    ("addcmul", 3, [1]), ("addcdiv", 3, [1]), ("leaky_relu", 1, [0.01]), ("hardtanh", 1, [-1.0, 1.0]),
    ("softplus", 1, [1.0, 20.0]), ("elu", 1, [1.0, 1.0, 1.0]), ("gelu", 1, ["none"])])
def test_ops_recorded_without_trailing_defaults(name, args, full):
    """Real ops recorded through dispatch with the trailing parameters left out:
    the derivative must use the defaults (same gradient as the full call)."""
    rng = np.random.default_rng(14)
    ts = [tp.tensor(rng.uniform(0.5, 2, (4,)) * (3 if i == 0 and name == "hardtanh" else 1),
                    requires_grad=True) for i in range(args)]
    ts[0] = (ts[0] * tp.tensor([1.0, -1.0, 1.0, -1.0])).detach().requires_grad_()
    op = R.REGISTRY[name]
    short = R.dispatch(op, list(ts))
    long_ = R.dispatch(op, list(ts) + full)
    assert len(short.grad_fn.args) == args and len(long_.grad_fn.args) == args + len(full)
    for gs, gl in zip(tp.autograd.grad(short.sum(), ts), tp.autograd.grad(long_.sum(), ts)):
        assert np.array_equal(gs.numpy(), gl.numpy()), name
    # and through create_graph: the second derivative as well
    g1 = tp.autograd.grad(R.dispatch(op, list(ts)).sum(), ts[0], create_graph=True)[0]
    g2 = tp.autograd.grad(R.dispatch(op, list(ts) + full).sum(), ts[0], create_graph=True)[0]
    if g1.requires_grad:
        assert np.array_equal(tp.autograd.grad(g1.sum(), ts[0], allow_unused=True)[0].numpy(),
                              tp.autograd.grad(g2.sum(), ts[0], allow_unused=True)[0].numpy())


def test_mm_of_later_outputs_of_one_node():
    """Inputs that are outputs 1, 2, ... of a multi-output node (unbind, split):
    each gradient reaches its own slot."""
    w0 = _arr((4, 3), "float64", 15)
    w = tp.tensor(w0, requires_grad=True)
    r = w.unbind(0)
    g, = tp.autograd.grad(tp.dot(r[1], r[3]) + tp.mm(r[2][None], r[3][:, None]).sum(), w)
    want = np.zeros((4, 3))
    want[1], want[3], want[2] = w0[3], w0[1] + w0[2], w0[3]
    assert_close(g.numpy(), want, atol=1e-12)
    p, q = w.split(2)
    g, = tp.autograd.grad(tp.mm(q.T, p).sum(), w)       # sum_k rowsum(q)_k rowsum(p)_k
    rows = w0.sum(1)
    want = np.concatenate([np.repeat(rows[2:, None], 3, 1), np.repeat(rows[:2, None], 3, 1)])
    assert_close(g.numpy(), want, atol=1e-12)


def test_add_sub_alpha_through_fast_and_general_paths():
    x = tp.tensor(_arr((3,), "float64", 1), requires_grad=True)
    y = tp.tensor(_arr((3,), "float64", 2), requires_grad=True)
    for f, gy in ((lambda: x + y, 1.0), (lambda: tp.add(x, y, alpha=2.5), 2.5),
                  (lambda: x - y, -1.0), (lambda: tp.sub(x, y, alpha=2.0), -2.0)):
        gx_, gy_ = tp.autograd.grad(f().sum(), (x, y))
        assert np.array_equal(gx_.numpy(), np.ones(3)) and np.array_equal(gy_.numpy(), np.full(3, gy))


# ================================================================== 5. the rest
def test_size_arguments_match_torch():
    torch = pytest.importorskip("torch")
    spellings = [lambda M: M.zeros(2, 3), lambda M: M.zeros((2, 3)), lambda M: M.zeros([2, 3]),
                 lambda M: M.zeros(np.int64(2), 3), lambda M: M.zeros(M.tensor(2), 3),
                 lambda M: M.zeros([2, M.tensor(3)]), lambda M: M.zeros(()), lambda M: M.zeros([]),
                 lambda M: M.ones(6).view(2, 3), lambda M: M.ones(6).view((3, -1)),
                 lambda M: M.ones(6).reshape([np.int32(6)]), lambda M: M.ones(2).new_zeros(3, 1),
                 lambda M: M.ones(6).view(M.Size([1, 6])), lambda M: M.empty(0, 4)]
    for f in spellings:
        a, b = f(tp), f(torch)
        assert tuple(a.shape) == tuple(b.shape)
    for f in (lambda M: M.zeros(2.0, 3), lambda M: M.zeros((2, 3.0)), lambda M: M.zeros("a"),
              lambda M: M.ones(3).expand([2, 3.5])):
        for M in (tp, torch):
            with pytest.raises(TypeError):
                f(M)


def test_dim_arguments_refuse_bools():
    x = tp.ones(2, 3)
    for f in (lambda d: x.sum(d), lambda d: x.mean(d), lambda d: x.amax(d), lambda d: x.amin(d)):
        for d in (True, False, (True,), (0, True), [False]):
            with pytest.raises(TypeError, match="must be tuple of ints"):
                f(d)
    for f in (lambda d: x.sum(d), lambda d: x.mean(d), lambda d: x.amax(d)):
        assert f(0).shape == (3,) and f((0, 1)).shape == () and f([1]).shape == (2,)
        assert f(np.int64(1)).shape == (2,) and f((np.int64(0),)).shape == (3,)
    with pytest.raises(RuntimeError, match="appears multiple times"):
        x.sum((0, 0))


def test_dim_arguments_refuse_bools_as_torch():
    torch = pytest.importorskip("torch")
    for M in (tp, torch):
        x = M.ones(2, 3)
        for d in (True, (True,)):
            with pytest.raises(TypeError):
                x.sum(d)


_SLICES = [slice(1, 5, 2), slice(None), slice(0, 0), slice(2, None), slice(-3, None),
           slice(None, None, 3), slice(10, 20), slice(-100, 2), slice(4, 1), slice(None, -1, 4)]


@pytest.mark.parametrize("dim", [0, 1, -1, -2])
def test_slice_gradients_match_torch(dim):
    torch = pytest.importorskip("torch")
    for sl in _SLICES:
        got = []
        for M in (tp, torch):
            x = M.tensor(np.arange(42.).reshape(6, 7), requires_grad=True)
            idx = [slice(None)] * 2
            idx[dim] = sl
            y = x[tuple(idx)]
            g, = M.autograd.grad((y * y).sum(), x)
            n = M.narrow(x, dim, 1, 2)
            g2, = M.autograd.grad((n * 3).sum(), x)
            got.append((_np(g), _np(g2)))
        for u, v in zip(*got):
            assert np.array_equal(u, v), (sl, dim)


def test_slice_backward_double_backward():
    x = tp.tensor(_arr((6, 5), "float64", 3), requires_grad=True)
    for f in (lambda x: x[1:5:2] ** 2, lambda x: x[-3:] * x[:3], lambda x: x[:, 1:4] ** 3,
              lambda x: x[4:1], lambda x: x[::3].sin()):
        assert tp.autograd.gradcheck(f, (x,), check_forward_ad=True)
        assert tp.autograd.gradgradcheck(f, (x,), check_fwd_over_rev=True)
    x3 = tp.tensor(_arr((4, 3, 2), "float64", 4), requires_grad=True)
    assert tp.autograd.gradgradcheck(lambda x: x[1:3] ** 2, (x3,))


_EINSUM = [("ij,jk->ik", ((2, 3), (3, 4))), ("ii->i", ((3, 3),)), ("i,i->", ((3,), (3,))),
           ("bij,bjk->bik", ((2, 3, 4), (2, 4, 5))), ("ij->", ((2, 3),)),
           ("i,j,k->ijk", ((2,), (3,), (4,))), ("ij,ij->ij", ((2, 3), (2, 3))),
           ("...i,...i->...", ((2, 3), (3,))), ("ij,kj->ik", ((2, 1), (3, 1)))]


@pytest.mark.parametrize("eq, shapes", _EINSUM, ids=[e for e, _ in _EINSUM])
def test_einsum_flat_kernel_matches_torch(eq, shapes):
    torch = pytest.importorskip("torch")
    got = []
    for M in (tp, torch):
        xs = [M.tensor(_arr(s, "float64", 20 + i), requires_grad=True) for i, s in enumerate(shapes)]
        out = M.einsum(eq, *xs)
        got.append([_np(out)] + [_np(g) for g in M.autograd.grad((out * out).sum(), xs)])
    for u, v in zip(*got):
        assert_close(u, v, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("eq, shapes", _EINSUM, ids=[e for e, _ in _EINSUM])
def test_einsum_flat_kernel_gradgradcheck(eq, shapes):
    xs = [tp.tensor(_arr(s, "complex128", 30 + i), requires_grad=True) for i, s in enumerate(shapes)]
    assert tp.autograd.gradcheck(lambda *xs: tp.einsum(eq, *xs), xs, check_forward_ad=True)
    assert tp.autograd.gradgradcheck(lambda *xs: tp.einsum(eq, *xs), xs)
    assert tp.einsum(eq, xs).shape == tp.einsum(eq, *xs).shape      # einsum(eq, [ops])


@pytest.mark.parametrize("causal, mask, scale", [(False, False, None), (True, False, None),
                                                 (False, True, None), (False, True, 0.3),
                                                 (True, False, 2.0)])
def test_attention_flat_kernel_matches_torch(causal, mask, scale):
    torch = pytest.importorskip("torch")
    got = []
    for M in (tp, torch):
        q, k, v = (M.tensor(_arr((2, 3, 4), "float64", 40 + i), requires_grad=True) for i in range(3))
        m = M.tensor(_arr((3, 3), "float64", 44)) if mask else None
        o = M.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal,
                                                          scale=scale)
        got.append([_np(o)] + [_np(g) for g in M.autograd.grad((o * o).sum(), (q, k, v))])
    for u, w in zip(*got):
        assert_close(u, w, atol=1e-12, rtol=1e-10)


def test_attention_flat_kernel_gradgradcheck():
    q, k, v = (tp.tensor(_arr((1, 3, 2), "float64", 50 + i), requires_grad=True) for i in range(3))
    m = tp.tensor(_arr((3, 3), "float64", 54))
    F = tp.nn.functional

    def f(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.7)
    assert tp.autograd.gradcheck(f, (q, k, v), check_forward_ad=True)
    assert tp.autograd.gradgradcheck(f, (q, k, v))
    g = tp.func.vmap(f, in_dims=(0, None, None))(q.detach().expand(2, 1, 3, 2), k.detach(), v.detach())
    assert_close(g[1].numpy(), f(q, k, v).detach().numpy(), atol=1e-12)


def test_variadic_ops_refuse_kernels_that_are_not_flat():
    def kernel(*xs, dim=0):
        return xs[0]
    with pytest.raises(TypeError, match="written flat"):
        R.Op("t_not_flat", kernel, {"xs": "grad"}, n_in=-1)
    for name in ("einsum", "attention", "cat", "stack"):
        op = R.REGISTRY[name]
        assert op.variadic and getattr(op.kernel, "flat", False), name


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "bool", "float16"])
def test_sum_to_size_dtype_is_a_sums(dtype):
    """A reduction by sum_to_size has a sum's dtype (integers and bool: int64, as
    PyTorch's; NumPy alone would give uint8 a uint64); none keeps the dtype."""
    x = tp.ones(2, 3, dtype=getattr(tp, dtype))
    want = tp.int64 if dtype != "float16" else tp.float16
    for size in ((3,), (1, 3), (2, 1), (1, 1)):
        r = x.sum_to_size(*size)
        assert r.dtype == want and tuple(r.shape) == size
        assert r.double().numpy().ravel().tolist() == [6 // math.prod(size)] * math.prod(size)
    assert x.sum_to_size(2, 3).dtype == x.dtype
