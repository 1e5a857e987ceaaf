"""Small fixes of differences from PyTorch 2.13: first gradients taken with
create_graph that stay in the input's graph (prelu, reflect/replicate padding,
nll_loss: the next order is zeros, not "does not require grad"); linear's dtype
and bias-size errors; RNN/LSTM/GRU and MultiheadAttention refusing an input of
another dtype than their weights; unfold/fold refusing one-element size lists;
special.zeta's keywords (input=, other=); the batching rule of addmm reached by
addbmm (no per-sample fallback under vmap/jacfwd).

Tests that take the ``T`` fixture run the same code on tensorplay and on torch
(when installed); the rest compare with torch directly and skip without it.
"""
import warnings

import numpy as np
import pytest

import tensorplay as tp

from conftest import torch

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")
pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning:torch"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:torch")]


def _np(t):
    return t.detach().numpy()


def _arr(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape)


def _err(fn):
    try:
        fn()
    except Exception as e:      # noqa: BLE001  (the type and words are what is compared)
        return type(e).__name__, str(e)
    return None


# ---------------------------------------------------------------- 1. gradients in the graph
def _prelu(T, x):
    return T.nn.functional.prelu(x, T.tensor([0.25, 0.5, 0.1], dtype=T.float64))


def _prelu1(T, x):
    return T.nn.functional.prelu(x, T.tensor([0.3], dtype=T.float64))


def _reflect1(T, x):
    return T.nn.functional.pad(x, (2, 1), mode="reflect")


def _reflect2(T, x):
    return T.nn.functional.pad(x.unsqueeze(0), (1, 2, 1, 1), mode="reflect")


def _replicate(T, x):
    return T.nn.functional.pad(x, (2, 1), mode="replicate")


def _nll(T, x):
    return T.nn.functional.nll_loss(x[:, :, 0], T.tensor([0, 2]))


def _nll_w(T, x):
    return T.nn.functional.nll_loss(x.reshape(4, 6), T.tensor([0, 5, 2, 2]),
                                    weight=T.tensor([1., 2., 3., 1., 1., .5], dtype=T.float64),
                                    reduction="sum")


def _nll_none(T, x):
    return T.nn.functional.nll_loss(x, T.tensor([[0, 2, 1, 1], [2, 2, 0, 1]]), reduction="none")


SECOND = [_prelu, _prelu1, _reflect1, _reflect2, _replicate, _nll, _nll_w, _nll_none]


def _orders(T, f):
    x = T.tensor(_arr(2, 3, 4, seed=1), dtype=T.float64, requires_grad=True)
    y = f(T, x)
    g1, = T.autograd.grad(y.sum(), x, create_graph=True)
    assert g1.requires_grad
    g2, = T.autograd.grad((g1 * 3).sum(), x, create_graph=True)
    assert not g2.requires_grad
    with pytest.raises(RuntimeError, match="does not require grad"):
        T.autograd.grad(g2.sum(), x)
    return _np(g1), _np(g2)


@pytest.mark.parametrize("f", SECOND, ids=lambda f: f.__name__)
def test_recorded_first_gradient_is_in_the_graph(T, f):
    g1, g2 = _orders(T, f)
    assert np.count_nonzero(g1)
    np.testing.assert_array_equal(g2, np.zeros_like(g2))


@needs_torch
@pytest.mark.parametrize("f", SECOND, ids=lambda f: f.__name__)
def test_recorded_gradients_match_torch(f):
    for a, b in zip(_orders(tp, f), _orders(torch, f)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)


@pytest.mark.parametrize("f", SECOND, ids=lambda f: f.__name__)
def test_unrecorded_first_gradient_has_no_history(f):
    # (without create_graph: no extra node, the gradient a plain tensor)
    x = tp.tensor(_arr(2, 3, 4, seed=2), dtype=tp.float64, requires_grad=True)
    g1, = tp.autograd.grad(f(tp, x).sum(), x)
    assert not g1.requires_grad and g1.grad_fn is None


@pytest.mark.parametrize("f", SECOND, ids=lambda f: f.__name__)
def test_gradcheck_through_the_link(f):
    x = tp.tensor(_arr(2, 3, 4, seed=3), dtype=tp.float64, requires_grad=True)
    assert tp.autograd.gradcheck(lambda x: f(tp, x), (x,))
    assert tp.autograd.gradgradcheck(lambda x: f(tp, x), (x,))


def _bn_eval(T, x, weight=None):
    return T.nn.functional.batch_norm(x, T.tensor([0.5, -1., 0.], dtype=T.float64),
                                      T.tensor([2., 0.5, 1.], dtype=T.float64), weight=weight,
                                      training=False)


def test_eval_batch_norm_first_gradient_requires_grad_unused_by_input(T):
    x = T.tensor(_arr(2, 3, 4, seed=10), dtype=T.float64, requires_grad=True)
    g1, = T.autograd.grad(_bn_eval(T, x).sum(), x, create_graph=True)
    assert g1.requires_grad
    np.testing.assert_allclose(_np(g1)[0, :, 0], 1 / np.sqrt(np.array([2., 0.5, 1.]) + 1e-5))
    assert T.autograd.grad(g1.sum(), x, allow_unused=True, retain_graph=True) == (None,)
    with pytest.raises(RuntimeError, match="The differentiated Tensor at index 0 appears to not have "
                                           "been used in the graph. Set allow_unused=True"):
        T.autograd.grad(g1.sum(), x)


def test_eval_batch_norm_second_derivatives_match_torch():
    def run(T):
        x = T.tensor(_arr(2, 3, 4, seed=11), dtype=T.float64, requires_grad=True)
        w = T.tensor([1.5, 0.5, -1.], dtype=T.float64, requires_grad=True)
        y = _bn_eval(T, x, w)
        gx, = T.autograd.grad((y * y).sum(), x, create_graph=True)
        hx, hw = T.autograd.grad((gx * gx).sum(), (x, w))
        f = lambda x: (_bn_eval(T, x) ** 2).sum()      # noqa: E731
        return [_np(t) for t in (gx, hx, hw, T.func.hessian(f)(x.detach()))]
    got = run(tp)
    assert np.count_nonzero(got[3])     # (the square's second derivative: a diagonal Hessian)
    if torch is None:
        pytest.skip("torch not installed")
    for a, b in zip(got, run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_eval_batch_norm_gradient_unrecorded_has_no_history():
    x = tp.tensor(_arr(2, 3, 4, seed=12), dtype=tp.float64, requires_grad=True)
    g1, = tp.autograd.grad(_bn_eval(tp, x).sum(), x)
    assert g1.grad_fn is None and not g1.requires_grad
    assert tp.autograd.gradcheck(lambda x: _bn_eval(tp, x), (x,))
    assert tp.autograd.gradgradcheck(lambda x: _bn_eval(tp, x) ** 2, (x,))


def test_prelu_weight_second_derivative_matches_torch():
    def run(T):
        x = T.tensor(_arr(2, 3, 4, seed=4), dtype=T.float64, requires_grad=True)
        w = T.tensor([0.25, 0.5, 0.1], dtype=T.float64, requires_grad=True)
        y = T.nn.functional.prelu(x, w)
        gx, gw = T.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        hx, hw = T.autograd.grad((gx * gx).sum() + gw.sum(), (x, w))
        return [_np(t) for t in (gx, gw, hx, hw)]
    got = run(tp)
    if torch is None:
        pytest.skip("torch not installed")
    for a, b in zip(got, run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


# ---------------------------------------------------------------- 2. linear's checks
LINEAR = [((2, 3), "int64", (4, 3), "float32", None, None),
          ((2, 3), "float32", (4, 3), "int64", None, None),
          ((2, 3), "int64", (4, 3), "float32", (4,), "float32"),
          ((2, 3), "float32", (4, 3), "float32", (4,), "float64"),
          ((3,), "float32", (4, 3), "float32", (4,), "float64"),
          ((2, 5, 3), "float32", (4, 3), "float32", (4,), "float64"),
          ((2, 3), "float32", (4, 3), "float64", (4,), "float64"),
          ((3,), "float32", (4, 3), "float64", (4,), "float64"),
          ((3,), "float32", (4, 3), "float64", None, None),
          ((2, 5, 3), "float32", (4, 3), "float64", None, None),
          ((2, 5, 3), "float32", (4, 3), "float64", (4,), "float32"),
          ((2, 3), "float64", (4, 3), "float32", (4,), "float32"),
          ((2, 3), "float32", (4, 3), "float32", (5,), "float32"),
          ((3,), "float32", (4, 3), "float32", (5,), "float32"),
          ((2, 5, 3), "float32", (4, 3), "float32", (5,), "float32"),
          ((2, 3), "float32", (4, 3), "float32", (2, 5), "float32"),
          ((2, 3), "float32", (4, 3), "float32", (3, 4), "float32"),
          ((2, 3), "float32", (4, 3), "float32", (2, 4), "float64")]


def _linear_case(T, c):
    def t(shape, dt):
        return T.ones(shape, dtype=getattr(T, dt))
    b = None if c[4] is None else t(c[4], c[5])
    return _err(lambda: T.nn.functional.linear(t(c[0], c[1]), t(c[2], c[3]), b))


@needs_torch
@pytest.mark.parametrize("c", LINEAR, ids=str)
def test_linear_errors_match_torch(c):
    got = _linear_case(tp, c)
    assert got is not None
    assert got == _linear_case(torch, c)


def test_linear_error_words():
    assert _linear_case(tp, LINEAR[0]) == (
        "RuntimeError", "expected m1 and m2 to have the same dtype, but got: long int != float")
    assert _linear_case(tp, LINEAR[3]) == (
        "RuntimeError", "self and mat2 must have the same dtype, but got Double and Float")
    assert _linear_case(tp, LINEAR[7]) == (
        "RuntimeError", "mat1 and mat2 must have the same dtype, but got Float and Double")
    assert _linear_case(tp, LINEAR[14]) == (
        "RuntimeError", "The expanded size of the tensor (4) must match the existing size (5) at "
        "non-singleton dimension 1.  Target sizes: [10, 4].  Tensor sizes: [5]")


def test_linear_module_wrong_bias():
    m = tp.nn.Linear(3, 4)
    with tp.no_grad():
        m.bias = tp.nn.Parameter(tp.ones(5))
    with pytest.raises(RuntimeError, match=r"expanded size of the tensor \(4\) must match the existing "
                                           r"size \(5\)"):
        m(tp.ones(2, 3))


# ---------------------------------------------------------------- 3. modules of another dtype
@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("shape", [(2, 3), (5, 2, 3)])
def test_rnn_refuses_input_of_another_dtype(T, cls, shape):
    T.manual_seed(0)
    m = getattr(T.nn, cls)(3, 4).double()
    name = T.__name__
    msg = (f"RNN input dtype ({name}.float32) does not match weight dtype ({name}.float64). Convert "
           f"input: input.to({name}.float64), or convert model: model.to({name}.float32)")
    assert _err(lambda: m(T.ones(shape))) == ("ValueError", msg)
    out = m(T.ones(shape, dtype=T.float64))[0]
    assert out.dtype == T.float64


def test_rnn_dtype_checked_after_hx_rank_before_input_size(T):
    T.manual_seed(0)
    m = T.nn.GRU(3, 4).double()
    assert _err(lambda: m(T.ones(5, 2, 7)))[0] == "ValueError"       # (not input_size's error)
    assert _err(lambda: m(T.ones(5, 2, 7), T.ones(2, 4))) == (
        "RuntimeError", "For batched 3-D input, hx should also be 3-D but got 2-D tensor")


MHA = [dict(), dict(bias=False), dict(batch_first=True), dict(kdim=3, vdim=3),
       dict(batch_first=True, kdim=3, vdim=3)]


def _mha(T, kw, shape=(3, 2, 4), qdt="float32", kdt="float32"):
    T.manual_seed(0)
    m = T.nn.MultiheadAttention(4, 2, **kw).double()
    kv = 3 if "kdim" in kw else 4
    if shape == "slice":        # (an unbatched input that is not contiguous: matmul's error)
        q = T.ones((3, 2, 4), dtype=getattr(T, qdt))[:, 0]
        k = T.ones((3, 2, kv), dtype=getattr(T, kdt))[:, 0]
    else:
        q = T.ones(shape, dtype=getattr(T, qdt))
        k = T.ones(shape[:-1] + (kv,), dtype=getattr(T, kdt))
    return _err(lambda: m(q, k, k))


@needs_torch
@pytest.mark.parametrize("kw", MHA, ids=str)
@pytest.mark.parametrize("shape", [(3, 2, 4), (1, 2, 4), (3, 4), "slice"], ids=str)
def test_multihead_attention_dtype_errors_match_torch(kw, shape):
    got = _mha(tp, kw, shape)
    assert got is not None and got[0] == "RuntimeError"
    assert got == _mha(torch, kw, shape)
    got = _mha(tp, kw, shape, qdt="float64")        # (the key's projection refuses it)
    assert got is not None and got == _mha(torch, kw, shape, qdt="float64")
    assert _mha(tp, kw, shape, "float64", "float64") is None


# ---------------------------------------------------------------- 4. unfold / fold
FOLD = [(name, v) for name in ("kernel_size", "dilation", "padding", "stride")
        for v in ((2,), [2], (1,), (2, 2, 2), ())]


def _fold_case(T, name, v, which):
    kw = dict(kernel_size=2)
    kw[name] = v
    if which == "unfold":
        return _err(lambda: T.nn.functional.unfold(T.ones(1, 2, 5, 5), **kw))
    return _err(lambda: T.nn.functional.fold(T.ones(1, 8, 16), (5, 5), **kw))


@pytest.mark.parametrize("which", ["unfold", "fold"])
@pytest.mark.parametrize("name,v", FOLD, ids=str)
def test_fold_args_of_another_length(T, which, name, v):
    assert _fold_case(T, name, v, which) == (
        "RuntimeError", f"It is expected {name} equals to 2, but got size {len(v)}")


@pytest.mark.parametrize("size", [(5,), [5], (5, 5, 5), ()], ids=str)
def test_fold_output_size_of_another_length(T, size):
    assert _err(lambda: T.nn.functional.fold(T.ones(1, 8, 16), size, 2)) == (
        "RuntimeError", f"It is expected output_size equals to 2, but got size {len(size)}")


def test_fold_unfold_two_element_lists_still_work(T):
    x = T.tensor(_arr(1, 2, 5, 5, seed=5))
    cols = T.nn.functional.unfold(x, [2, 2], padding=[1, 0], stride=[1, 2])
    back = T.nn.functional.fold(cols, [5, 5], [2, 2], padding=[1, 0], stride=[1, 2])
    assert tuple(back.shape) == (1, 2, 5, 5)
    assert np.isfinite(_np(back)).all()


# ---------------------------------------------------------------- 5. zeta's keywords
def test_zeta_keywords(T):
    s = T.tensor([2., 3., 4.5], dtype=T.float64)
    q = T.tensor([1., 2., 0.5], dtype=T.float64, requires_grad=True)
    y = T.special.zeta(input=s, other=q)
    np.testing.assert_allclose(_np(y), _np(T.special.zeta(s, q)), rtol=0, atol=0)
    np.testing.assert_allclose(_np(y)[0], np.pi ** 2 / 6, rtol=1e-12)
    g, = T.autograd.grad(y.sum(), q)
    np.testing.assert_allclose(_np(g), _np(-s * T.special.zeta(s + 1, q)), rtol=1e-12)
    np.testing.assert_allclose(_np(T.special.zeta(s, other=2.0)), _np(T.special.zeta(s, 2.0)))


@needs_torch
def test_zeta_keywords_match_torch():
    def run(T):
        s = T.tensor([2., 3., 4.5], dtype=T.float64)
        q = T.tensor([1., 2., 0.5], dtype=T.float64, requires_grad=True)
        y = T.special.zeta(input=s, other=q)
        return _np(y), _np(T.autograd.grad(y.sum(), q)[0])
    for a, b in zip(run(tp), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_zeta_gradcheck_by_other():
    s = tp.tensor([2., 3.5], dtype=tp.float64)
    q = tp.tensor([1.5, 0.7], dtype=tp.float64, requires_grad=True)
    assert tp.autograd.gradcheck(lambda q: tp.special.zeta(input=s, other=q), (q,))


# ---------------------------------------------------------------- 6. addmm's batching rule
def _no_fallback(fn, *args):
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*batching rule.*")
        return fn(*args)


def _addbmm_data(T):
    i = T.tensor(_arr(3, 4, seed=6))
    a = T.tensor(_arr(5, 2, 3, 2, seed=7))
    b = T.tensor(_arr(2, 2, 4, seed=8))
    return i, a, b


def test_vmap_addbmm_matches_a_loop():
    i, a, b = _addbmm_data(tp)
    f = lambda a: tp.addbmm(i, a, b, beta=0.5, alpha=2.0)       # noqa: E731
    got = _no_fallback(tp.func.vmap(f), a)
    want = tp.stack([f(a[k]) for k in range(a.shape[0])])
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-12, atol=1e-12)
    jac = _no_fallback(tp.func.jacfwd(f), a[0])
    jrev = tp.func.jacrev(f)(a[0])
    np.testing.assert_allclose(_np(jac), _np(jrev), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dims", [(0, None, None), (None, 0, None), (None, None, 0), (0, 0, 0),
                                  (1, 0, 1)], ids=str)
def test_vmap_addmm_matches_a_loop(dims):
    rs = np.random.RandomState(9)
    shapes = [(3, 4), (3, 2), (2, 4)]
    args = []
    for s, d in zip(shapes, dims):
        if d is None:
            args.append(tp.tensor(rs.randn(*s)))
        else:
            s = list(s)
            s.insert(d, 5)
            args.append(tp.tensor(rs.randn(*s)))
    f = lambda i, m1, m2: tp.addmm(i, m1, m2, beta=0.5, alpha=-1.5)     # noqa: E731
    got = _no_fallback(tp.func.vmap(f, in_dims=dims), *args)
    want = tp.stack([f(*[a if d is None else a.select(d, k) for a, d in zip(args, dims)])
                     for k in range(5)])
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-12, atol=1e-12)
    if torch is not None:
        targs = [torch.tensor(_np(a)) for a in args]
        tf = lambda i, m1, m2: torch.addmm(i, m1, m2, beta=0.5, alpha=-1.5)     # noqa: E731
        np.testing.assert_allclose(_np(got), torch.func.vmap(tf, in_dims=dims)(*targs).numpy(),
                                   rtol=1e-12, atol=1e-12)


@needs_torch
def test_jacfwd_addbmm_matches_torch():
    def run(T):
        i, a, b = _addbmm_data(T)
        return _np(T.func.jacfwd(lambda a: T.addbmm(i, a, b, alpha=2.0))(a[0]))
    np.testing.assert_allclose(_no_fallback(run, tp), run(torch), rtol=1e-12, atol=1e-12)
