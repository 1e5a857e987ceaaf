"""Fixes of differences from PyTorch found in review of the function transforms
and forward mode: vmap chunking with randomness='same', tangents whose dtype
differs from their primal's, jacrev of slice_scatter, jacfwd of as_strided,
non-tensor aux, and bincount's weights (no derivative, as in PyTorch)."""
import numpy as np
import pytest

import tensorplay as tp
import tensorplay.autograd.forward_ad as fwAD
from tensorplay.func import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp, vmap

try:
    import torch
    import torch.func as tf
    import torch.autograd.forward_ad as tfwAD
except ImportError:         # the comparisons with PyTorch are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
# (torch.func's transforms script helpers of theirs on first use: their warning, not ours)
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")


# ------------------------------------------------------------------ 1. vmap chunks and randomness
def _draw(x):
    return x + tp.rand(()) + 10 * tp.rand(())


@pytest.mark.parametrize("chunk_size", [1, 2, 3])
def test_vmap_same_randomness_is_the_same_in_every_chunk(chunk_size):
    tp.manual_seed(0)
    want = vmap(_draw, randomness="same")(tp.zeros(5))
    after_want = tp.rand(3)
    tp.manual_seed(0)
    got = vmap(_draw, randomness="same", chunk_size=chunk_size)(tp.zeros(5))
    after = tp.rand(3)
    assert np.unique(got.numpy()).size == 1
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    # the generator is left where one unchunked call leaves it
    np.testing.assert_array_equal(after.numpy(), after_want.numpy())


@pytest.mark.parametrize("chunk_size", [1, 2])
def test_vmap_different_randomness_with_chunks_matches_unchunked(chunk_size):
    # one draw per call: the chunks draw the unchunked call's values, in order
    # (with more draws per call the order differs, in PyTorch too)
    one = lambda x: x + tp.rand(())     # noqa: E731
    tp.manual_seed(0)
    want = vmap(one, randomness="different")(tp.zeros(5))
    after_want = tp.rand(3)
    tp.manual_seed(0)
    got = vmap(one, randomness="different", chunk_size=chunk_size)(tp.zeros(5))
    after = tp.rand(3)
    assert np.unique(got.numpy()).size == 5
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(after.numpy(), after_want.numpy())
    tp.manual_seed(0)
    vmap(_draw, randomness="different")(tp.zeros(5))
    after_want = tp.rand(3)
    tp.manual_seed(0)
    got = vmap(_draw, randomness="different", chunk_size=chunk_size)(tp.zeros(5))
    assert np.unique(got.numpy()).size == 5
    np.testing.assert_array_equal(tp.rand(3).numpy(), after_want.numpy())


@needs_torch
def test_vmap_chunked_same_randomness_like_torch():
    def pattern(mod, vm):
        mod.manual_seed(0)
        out = vm(lambda x: x + mod.rand(()), randomness="same", chunk_size=1)(mod.zeros(3))
        return out.numpy()
    a, b = pattern(tp, vmap), pattern(torch, tf.vmap)
    assert (a == a[0]).all() and (b == b[0]).all()


# ------------------------------------------------------------------ 2. tangent dtypes
def test_complex_tangent_of_real_primal_keeps_its_imaginary_part():
    out, t = jvp(lambda a: a * 2, (tp.tensor([1.]),), (tp.tensor([1j]),))
    assert out.dtype == tp.float32 and t.dtype == tp.complex64
    np.testing.assert_allclose(t.numpy(), [2j])
    with fwAD.dual_level():
        d = fwAD.make_dual(tp.tensor([1., 2.]), tp.tensor([1j, 1 + 1j]))
        u = fwAD.unpack_dual(d)
        assert u.tangent.dtype == tp.complex64
        np.testing.assert_allclose(u.tangent.numpy(), [1j, 1 + 1j])
        np.testing.assert_allclose(fwAD.unpack_dual((d * 3).sum()).tangent.numpy(), 3 + 6j)
        np.testing.assert_allclose(fwAD.unpack_dual(d + d).tangent.numpy(), [2j, 2 + 2j])


def test_tangent_dtype_is_kept_and_promoted():
    x = tp.tensor([0.5, 1.5])
    t64 = tp.tensor([1., 2.], dtype=tp.float64)
    out, t = jvp(tp.sin, (x,), (t64,))
    assert out.dtype == tp.float32 and t.dtype == tp.float64
    np.testing.assert_allclose(t.numpy(), np.cos([0.5, 1.5]) * [1, 2], rtol=1e-6)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, tp.tensor([1., 1.], dtype=tp.float16))
        assert fwAD.unpack_dual(d).tangent.dtype == tp.float16
        assert fwAD.unpack_dual(d.exp()).tangent.dtype == tp.float32     # mixed with float32 values
        assert fwAD.unpack_dual(d + 1).tangent.dtype == tp.float16      # linear: the tangent's own
        assert fwAD.unpack_dual(d.sum()).tangent.dtype == tp.float16
    with fwAD.dual_level():      # a real tangent of a complex primal: abs is real, mul complex
        z = fwAD.make_dual(tp.tensor([3 + 4j]), tp.tensor([1.]))
        ta = fwAD.unpack_dual(z.abs()).tangent
        assert ta.dtype == tp.float32
        np.testing.assert_allclose(ta.numpy(), [0.6], rtol=1e-6)
        assert fwAD.unpack_dual(z * 2).tangent.dtype == tp.complex64


@needs_torch
@pytest.mark.parametrize("pd, td", [("float32", "complex64"), ("float32", "float64"),
                                    ("float64", "float32"), ("complex64", "float32"),
                                    ("float64", "complex64")])
@pytest.mark.parametrize("fn", ["mul2", "add", "sum", "div", "clone", "mul_self"])
def test_tangent_dtypes_like_torch(pd, td, fn):
    fns = {"mul2": lambda m, d: d * 2, "add": lambda m, d: d + d, "sum": lambda m, d: d.sum(),
           "div": lambda m, d: d / 3,
           "clone": lambda m, d: d.clone(), "mul_self": lambda m, d: d * d}
    p = np.array([0.7, -1.2])
    t = np.array([1.0, 0.5]) * (1j if "complex" in td else 1)
    res = []
    for m, fw in ((tp, fwAD), (torch, tfwAD)):
        with fw.dual_level():
            d = fw.make_dual(m.tensor(p, dtype=getattr(m, pd)), m.tensor(t, dtype=getattr(m, td)))
            assert str(fw.unpack_dual(d).tangent.dtype).split(".")[-1] == td
            tt = fw.unpack_dual(fns[fn](m, d)).tangent
            res.append((str(tt.dtype).split(".")[-1], tt.detach().numpy()))
    assert res[0][0] == res[1][0]
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-6)


def test_inplace_ops_keep_a_mismatched_tangent_dtype():
    for td, val in ((tp.float64, [1., 2.]), (tp.complex64, [1j, 2 + 1j])):
        with fwAD.dual_level():
            d = fwAD.make_dual(tp.tensor([1., 2.]), tp.tensor(val, dtype=td))
            y = d.clone()
            y.mul_(2)                                   # written in place: its tangent's dtype
            t = fwAD.unpack_dual(y).tangent
            assert t.dtype == td
            np.testing.assert_allclose(t.numpy(), 2 * np.array(val))
            z = tp.zeros(2)
            z.copy_(d)                                  # no tangent before: the source's
            assert fwAD.unpack_dual(z).tangent.dtype == td
            w = d * 1
            w[0:1].mul_(3)                              # through a view: the base's tangent
            t = fwAD.unpack_dual(w).tangent
            assert t.dtype == td
            np.testing.assert_allclose(t.numpy(), [3 * val[0], val[1]])


# ------------------------------------------------------------------ 3. slice_scatter under jacrev
def test_jacrev_and_jacfwd_of_slice_scatter():
    X = tp.tensor([1., 2., 3.], dtype=tp.float64)
    f = lambda X: tp.slice_scatter(X, X[:2] ** 2, 0, 0, 2)      # noqa: E731
    want = np.array([[2., 0, 0], [0, 4, 0], [0, 0, 1]])
    np.testing.assert_allclose(jacrev(f)(X).numpy(), want)
    np.testing.assert_allclose(jacfwd(f)(X).numpy(), want)
    g = lambda X: tp.slice_scatter(X, X[::2] ** 3, 0, 0, None, 2).sum()      # noqa: E731
    np.testing.assert_allclose(hessian(g)(X).numpy(), np.diag([6., 0, 18]))
    np.testing.assert_allclose(vmap(jacrev(f))(tp.stack([X, 2 * X])).numpy()[1],
                               [[4., 0, 0], [0, 8, 0], [0, 0, 1]])


# ------------------------------------------------------------------ 4. as_strided under jacfwd
@pytest.mark.parametrize("case", ["step2", "scaled", "offset_view", "window"])
def test_jacfwd_of_as_strided(case):
    fns = {"step2": lambda X: X.as_strided((2,), (2,)),
           "scaled": lambda X: (X * 2).as_strided((2,), (2,)),
           "offset_view": lambda X: X[1:].as_strided((2,), (1,)),
           "window": lambda X: X.as_strided((2, 2), (1, 1))}
    want = {"step2": [[1., 0, 0], [0, 0, 1]], "scaled": [[2., 0, 0], [0, 0, 2]],
            "offset_view": [[0., 1, 0], [0, 0, 1]],
            "window": [[[1., 0, 0], [0, 1, 0]], [[0, 1, 0], [0, 0, 1]]]}[case]
    X = tp.tensor([1., 2., 3.], dtype=tp.float64)
    np.testing.assert_allclose(jacfwd(fns[case])(X).numpy(), want)     # (was all 1/3: wrong)
    np.testing.assert_allclose(jacrev(fns[case])(X).numpy(), want)
    if torch is not None:
        tX = torch.tensor([1., 2., 3.], dtype=torch.float64)
        tfn = {"step2": lambda X: X.as_strided((2,), (2,)),
               "scaled": lambda X: (X * 2).as_strided((2,), (2,)),
               "offset_view": lambda X: X[1:].as_strided((2,), (1,)),
               "window": lambda X: X.as_strided((2, 2), (1, 1))}[case]
        np.testing.assert_allclose(tf.jacfwd(tfn)(tX).numpy(), want)


def test_as_strided_forward_mode_still_exact():
    x = tp.tensor([1., 2., 3., 4.], dtype=tp.float64)
    v = tp.tensor([1., 10., 100., 1000.], dtype=tp.float64)
    _, t = jvp(lambda a: a.as_strided((2, 2), (1, 2)), (x,), (v,))
    np.testing.assert_allclose(t.numpy(), [[1., 100.], [10., 1000.]])
    y = vmap(lambda r: r.as_strided((2,), (2,)))(tp.arange(12.).reshape(3, 4))
    np.testing.assert_allclose(y.numpy(), [[0., 2], [4, 6], [8, 10]])


# ------------------------------------------------------------------ 5. non-tensor aux
_AUX_MSG = "Expected tensors, got unsupported type <class 'int'>"


@pytest.mark.parametrize("call", ["jvp", "jvp_nested", "jacfwd", "jacrev", "grad",
                                  "grad_and_value", "vjp"])
def test_non_tensor_aux_is_refused(call):
    x = tp.tensor([1., 2.])
    calls = {
        "jvp": lambda: jvp(lambda a: (a * 2, 3), (x,), (x,), has_aux=True),
        "jvp_nested": lambda: jvp(lambda a: (a * 2, (a, 3)), (x,), (x,), has_aux=True),
        "jacfwd": lambda: jacfwd(lambda a: (a * 2, 3), has_aux=True)(x),
        "jacrev": lambda: jacrev(lambda a: (a * 2, 3), has_aux=True)(x),
        "grad": lambda: grad(lambda a: ((a * 2).sum(), 3), has_aux=True)(x),
        "grad_and_value": lambda: grad_and_value(lambda a: ((a * 2).sum(), 3), has_aux=True)(x),
        "vjp": lambda: vjp(lambda a: (a * 2, 3), x, has_aux=True),
    }
    with pytest.raises(RuntimeError) as e:
        calls[call]()
    assert str(e.value) == _AUX_MSG
    if torch is not None and call == "jvp":
        tx = torch.tensor([1., 2.])
        with pytest.raises(RuntimeError, match=_AUX_MSG.replace("(", r"\(").replace(")", r"\)")):
            tf.jvp(lambda a: (a * 2, 3), (tx,), (tx,), has_aux=True)


def test_tensor_aux_still_accepted():
    x = tp.tensor([1., 2.])
    out, t, aux = jvp(lambda a: (a * 2, {"k": a, "l": [a * 3]}), (x,), (x,), has_aux=True)
    np.testing.assert_allclose(t.numpy(), [2., 4.])
    np.testing.assert_allclose(aux["l"][0].numpy(), [3., 6.])
    j, aux = jacfwd(lambda a: (a * 2, a.sum()), has_aux=True)(x)
    np.testing.assert_allclose(j.numpy(), 2 * np.eye(2))
    np.testing.assert_allclose(aux.numpy(), 3.)
    with pytest.raises(RuntimeError, match="NoneType"):
        jvp(lambda a: (a * 2, None), (x,), (x,), has_aux=True)


# ------------------------------------------------------------------ 6. bincount's weights
_BINCOUNT_MSG = "derivative for aten::bincount is not implemented"


def test_bincount_weights_have_no_derivative():
    x = tp.tensor([0, 1, 1, 3])
    w = tp.tensor([1., 2., 3., 4.], requires_grad=True)
    y = tp.bincount(x, w)
    np.testing.assert_allclose(y.detach().numpy(), [1., 5., 0., 4.])
    assert y.requires_grad and y.grad_fn.name() == "NotImplemented"
    assert len(y.grad_fn.next_functions) == 1
    with pytest.raises(RuntimeError, match=_BINCOUNT_MSG):
        y.sum().backward()
    with pytest.raises(RuntimeError, match=_BINCOUNT_MSG):     # (was zeros, silently)
        jacrev(lambda w: tp.bincount(x, w))(w.detach())
    with pytest.raises(RuntimeError, match=_BINCOUNT_MSG):
        tp.autograd.grad(tp.bincount(x, w).sum() + (w * w).sum(), w)
    with pytest.raises(NotImplementedError, match="forward AD with aten::bincount"):
        jacfwd(lambda w: tp.bincount(x, w))(w.detach())
    assert not tp.bincount(x).requires_grad
    assert tp.bincount(x, tp.tensor([1, 2, 3, 4])).dtype == tp.float64


def test_bincount_vmap_over_weights():
    x = tp.tensor([0, 1, 1, 3])
    got = vmap(lambda w: tp.bincount(x, w, minlength=5))(tp.arange(8.).reshape(2, 4))
    np.testing.assert_allclose(got.numpy(), [[0., 3, 0, 3, 0], [4, 11, 0, 7, 0]])
    got = vmap(lambda w: tp.bincount(x, w), in_dims=1)(tp.arange(8.).reshape(4, 2))
    np.testing.assert_allclose(got.numpy(), [[0., 6, 0, 6], [1, 8, 0, 7]])
    with pytest.raises(RuntimeError, match="dynamic"):
        vmap(tp.bincount)(tp.tensor([[0, 1], [1, 1]]))


@needs_torch
def test_bincount_like_torch():
    xs, ws = [0, 1, 1, 3], [1., 2., 3., 4.]
    ty = torch.bincount(torch.tensor(xs), torch.tensor(ws, requires_grad=True))
    with pytest.raises(RuntimeError, match=_BINCOUNT_MSG):
        ty.sum().backward()
    y = tp.bincount(tp.tensor(xs), tp.tensor(ws, requires_grad=True))
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy())
    assert ty.grad_fn.name().endswith(y.grad_fn.name())
