"""Differences from PyTorch found by differential fuzzing (the same programs run
against both libraries), one test each.  Every test runs on tensorplay and, when
it is installed, on torch (the ``T`` fixture): the expected values are
PyTorch's, written out, so the test is its own oracle without torch too."""
import math

import numpy as np
import pytest

from conftest import assert_close, exact, lst


def test_atan2_gradient_at_the_origin_is_zero(T):
    # 1 / (x^2 + y^2) is 1/0 there (also where the squares underflow): PyTorch
    # gives a zero gradient, not NaN
    y = T.tensor([0.0, 0.0, 1e-200, 0.5], dtype=T.float64, requires_grad=True)
    x = T.tensor([0.0, 1.0, 0.0, -2.0], dtype=T.float64, requires_grad=True)
    T.atan2(y, x).sum().backward()
    assert lst(y.grad)[:3] == [0.0, 1.0, 0.0]
    assert lst(x.grad)[:3] == [0.0, 0.0, 0.0]
    assert y.grad[3].item() == pytest.approx(-2.0 / 4.25)
    assert x.grad[3].item() == pytest.approx(-0.5 / 4.25)


nan, inf = float("nan"), float("inf")

# (name, f(T, a), a, f's value, gradient of (f * [1, 2, 3...]).sum()): PyTorch's
# masks at NaN and at the ends of each piece, as its vectorized kernels give them
# (the inputs are padded to 64 elements: on a few elements PyTorch's scalar code
# runs, and for hardtanh, the shrinks and elu it answers differently at NaN).  A
# NaN stays NaN; relu and threshold pass its gradient on, hardtanh and the shrinks
# give 0, elu gives NaN; sign(NaN) is 0;
# a max/min reduction whose result is NaN sends NaN to all of its slice; where a
# loss is infinite its gradient is that of the linear piece (not 0 * inf = NaN)
SPECIAL_POINTS = [
    ("sign", lambda T, a: T.sign(a), [nan, -0.0, 2.0], [0.0, 0.0, 1.0], None),
    ("relu", lambda T, a: a.relu(), [nan, 0.0, 2.0], [nan, 0.0, 2.0], [1.0, 0.0, 3.0]),
    ("relu6", lambda T, a: T.nn.functional.relu6(a), [nan, 6.0, 2.0], [nan, 6.0, 2.0], [0.0, 0.0, 3.0]),
    ("hardtanh", lambda T, a: T.nn.functional.hardtanh(a), [nan, 1.0, 0.5], [nan, 1.0, 0.5],
     [0.0, 0.0, 3.0]),
    ("elu", lambda T, a: T.nn.functional.elu(a), [nan, -1.0, 2.0], [nan, -0.6321205588285577, 2.0],
     [nan, 0.7357588823428847, 3.0]),
    ("threshold", lambda T, a: T.nn.functional.threshold(a, 0.5, -1.0), [nan, 0.5, 2.0],
     [nan, -1.0, 2.0], [1.0, 0.0, 3.0]),
    ("softshrink", lambda T, a: T.nn.functional.softshrink(a), [nan, 0.5, -2.0], [nan, 0.0, -1.5],
     [0.0, 0.0, 3.0]),
    ("hardshrink", lambda T, a: T.nn.functional.hardshrink(a), [nan, -0.5, 2.0], [nan, 0.0, 2.0],
     [0.0, 0.0, 3.0]),
    ("abs", lambda T, a: a.abs(), [nan, -1.0, 2.0], [nan, 1.0, 2.0], [0.0, -2.0, 3.0]),
    ("amax", lambda T, a: a.amax(), [nan, 1.0, 2.0], [nan], [nan, nan, nan]),
    ("amin_dim", lambda T, a: T.stack([T.tensor([nan, 1.0, 2.0], dtype=a.dtype), a]).amin(1),
     [3.0, 1.0, 1.0], [nan, 1.0], [0.0, 1.0, 1.0]),
    ("maximum", lambda T, a: T.maximum(a, T.tensor([1.0, 1.0, 5.0], dtype=a.dtype)), [nan, 1.0, 2.0],
     [nan, 1.0, 5.0], [1.0, 1.0, 0.0]),
    ("minimum", lambda T, a: T.minimum(T.tensor([1.0, 1.0, 5.0], dtype=a.dtype), a), [nan, 1.0, 2.0],
     [nan, 1.0, 2.0], [1.0, 1.0, 3.0]),
    ("fmax", lambda T, a: T.fmax(a, T.tensor([1.0, nan, 2.0], dtype=a.dtype)), [nan, 1.0, 2.0],
     [1.0, 1.0, 2.0], [0.0, 2.0, 3.0]),
    ("fmin_other", lambda T, a: T.fmin(T.tensor([1.0, nan, 2.0], dtype=a.dtype), a), [nan, 1.0, 2.0],
     [1.0, 1.0, 2.0], [0.0, 2.0, 0.0]),
    ("smooth_l1", lambda T, a: T.nn.functional.smooth_l1_loss(a, T.zeros(3, dtype=a.dtype), reduction="none"),
     [nan, inf, -inf], [nan, inf, inf], [nan, 2.0, -3.0]),
    ("huber", lambda T, a: T.nn.functional.huber_loss(a, T.zeros(3, dtype=a.dtype), reduction="none"),
     [nan, -inf, 0.5], [nan, inf, 0.125], [nan, -2.0, 1.5]),
    ("l1", lambda T, a: T.nn.functional.l1_loss(a, T.zeros(3, dtype=a.dtype), reduction="none"),
     [nan, -2.0, 0.5], [nan, 2.0, 0.5], [0.0, -2.0, 3.0]),
    ("norm_inf", lambda T, a: a.norm(inf), [nan, 1.0, -2.0], [nan], [0.0, 0.0, 0.0]),
]


_ACTIVATIONS = {"sign", "relu", "relu6", "hardtanh", "elu", "threshold", "softshrink", "hardshrink", "abs"}


@pytest.mark.parametrize("name,f,a,value,grad", SPECIAL_POINTS, ids=[c[0] for c in SPECIAL_POINTS])
def test_values_and_gradients_at_nan_inf_and_piece_ends(T, name, f, a, value, grad):
    import numpy as np
    if name in _ACTIVATIONS:
        a = a + [0.25] * 61
    a = T.tensor(a, dtype=T.float64, requires_grad=grad is not None)
    y = f(T, a)
    np.testing.assert_array_equal(np.ravel(lst(y))[:len(value)], value)
    if grad is not None:
        (y * T.arange(1, y.numel() + 1, dtype=y.dtype).reshape(y.shape)).sum().backward()
        np.testing.assert_array_equal(lst(a.grad)[:len(grad)], grad)


@pytest.mark.parametrize("name", ["sort", "topk", "kthvalue", "median", "cummax", "cummin"])
def test_index_gradients_let_the_values_change_in_place(T, name):
    # only the indices are saved: writing into the returned values is no error
    f = {"sort": lambda x: x.sort()[0], "topk": lambda x: x.topk(2)[0],
         "kthvalue": lambda x: x.kthvalue(2)[0], "median": lambda x: x.median(0)[0],
         "cummax": lambda x: x.cummax(0)[0], "cummin": lambda x: x.cummin(0)[0]}[name]
    x = T.tensor([3.0, 1.0, 2.0], requires_grad=True)
    v = f(x * 1)
    v.mul_(2)
    v.sum().backward()
    expected = {"sort": [2.0, 2.0, 2.0], "topk": [2.0, 0.0, 2.0], "kthvalue": [0.0, 0.0, 2.0],
                "median": [0.0, 0.0, 2.0], "cummax": [6.0, 0.0, 0.0], "cummin": [2.0, 4.0, 0.0]}
    assert lst(x.grad) == expected[name]


def test_float32_scans_accumulate_in_double_and_are_contiguous(T):
    x = T.full((10000,), 0.1)
    assert T.cumsum(x, 0)[-1].item() == 1000.0            # float32 running sums drift to 999.9
    assert T.cumprod(T.full((10000,), 1.0001), 0)[-1].item() == pytest.approx(2.718596966, rel=1e-7)
    assert T.logcumsumexp(T.zeros(100000), 0)[-1].item() == pytest.approx(11.512925465, rel=1e-6)
    t = T.arange(6.0).reshape(2, 3).t()
    for y in (T.cumsum(t, 0), T.cumprod(t, 0), T.logcumsumexp(t, 0), T.cummax(t, 0)[0]):
        assert y.is_contiguous()
        assert y.view(-1).shape == (6,)


def test_sign_of_bool_is_bool(T):
    b = T.tensor([True, False])
    assert lst(T.sign(b)) == [True, False] and T.sign(b).dtype == T.bool
    assert lst(T.sgn(b)) == [True, False]


@pytest.mark.parametrize("how", ["grad", "backward_inputs"])
def test_reentrant_checkpoint_refuses_a_pass_towards_inputs(T, how):
    # its inner backward would accumulate into every leaf's .grad (w here), which a
    # pass asked for x alone must not touch: PyTorch's error instead
    import importlib
    cp = importlib.import_module(T.__name__ + ".utils.checkpoint")
    x = T.tensor([1.0, 2.0], requires_grad=True)
    w = T.tensor([3.0, 4.0], requires_grad=True)
    y = cp.checkpoint(lambda a: (a * w).sin(), x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="When use_reentrant=True, torch.utils.checkpoint is "
                                           "incompatible with .grad()"):
        if how == "grad":
            T.autograd.grad(y.sum(), x)
        else:
            y.sum().backward(inputs=[x])
    assert w.grad is None
    y.sum().backward()                  # (a plain backward still works)
    assert w.grad is not None and x.grad is not None


def test_in_place_on_distinct_elements_of_an_expand(T):
    # a row of an expand has no element twice: writable with grad, as without
    x = T.tensor([[1.0, 2.0]], requires_grad=True)
    a = x * 1
    e = a.expand(3, 2)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        e.add_(1)
    e[1].mul_(3)
    w = T.tensor([[1.0, 10.0], [100.0, 1000.0], [3.0, 7.0]])
    ((a * a).sum() + (e * w).sum()).backward()
    assert lst(a) == [[3.0, 6.0]]
    assert lst(x.grad) == [[330.0, 3087.0]]


def test_in_place_through_a_reshape_with_a_broadcast_gradient(T):
    # the gradient reaching the base is an expand: the view chain (reshape(-1), a view
    # of the contiguous base) is replayed on it laid out as the base was
    x = T.tensor([[0.5, -1.0, 2.0], [0.1, 0.2, 0.9]], dtype=T.float64, requires_grad=True)
    c = x * 1.0
    c.reshape(-1).clamp_(-0.3, 0.8)
    y = c.sum(0) * T.tensor([1.0, 2.0, 3.0], dtype=T.float64)
    (g,) = T.autograd.grad(y.sum(), x)
    assert lst(g) == [[1.0, 0.0, 0.0], [1.0, 2.0, 0.0]]


@pytest.mark.parametrize("root", ["contiguous", "transposed"])
def test_in_place_through_as_strided(T, root):
    # AsStridedBackward keeps the input's geometry, not the input (no version error
    # when it is written later), and the strides are read on a gradient laid out as
    # the base was, also when the gradient arrives transposed
    import numpy as np
    x = T.tensor(np.arange(9.0).reshape(3, 3), requires_grad=True)
    w = T.tensor(np.arange(9.0).reshape(3, 3) ** 2)
    if root == "contiguous":
        c = x * 1
        c.as_strided((2, 2), (1, 3)).mul_(2)
        (c.t() * w).sum().backward()
        assert lst(x.grad) == [[0.0, 18.0, 36.0], [2.0, 32.0, 49.0], [4.0, 25.0, 64.0]]
    else:
        c = x.t() * 1                   # its memory is x's order: strides (1, 3)
        c.as_strided((2, 2), (1, 3), 1).mul_(3)
        (c * w).sum().backward()
        assert lst(c) == [[0.0, 3.0, 6.0], [3.0, 12.0, 7.0], [6.0, 15.0, 8.0]]
        assert lst(x.grad) == [[0.0, 27.0, 108.0], [1.0, 48.0, 147.0], [4.0, 25.0, 64.0]]


def test_hooks_on_a_view_written_in_place_do_not_fire(T):
    # the region's gradient goes to the base without passing the view's old node
    x = T.ones(2, 3, requires_grad=True)
    a = x * 1
    v = a[0]
    log = []
    v.register_hook(lambda g: (log.append("tensor"), g * 100)[1])
    v.grad_fn.register_hook(lambda gi, go: log.append("node"))
    v.mul_(2)
    a.sum().backward()
    assert lst(x.grad) == [[2.0, 2.0, 2.0], [1.0, 1.0, 1.0]] and log == []
    w = T.ones(2, 3, requires_grad=True)
    b = w * 1
    u = b[0]
    u.mul_(2)
    u.register_hook(lambda g: log.append(lst(g)))     # a hook on the new history fires
    (u * 3).sum().backward()
    assert lst(w.grad) == [[6.0, 6.0, 6.0], [0.0, 0.0, 0.0]] and log == [[3.0, 3.0, 3.0]]


def test_grad_modes_inside_inference_mode_record_nothing(T):
    # enable_grad inside inference_mode turns grad mode on (is_grad_enabled says so)
    # but ops still make inference tensors without history, as in PyTorch
    x = T.ones(2, requires_grad=True)
    seen = []
    with T.inference_mode():
        seen.append(T.is_grad_enabled())
        with T.enable_grad():
            seen.append(T.is_grad_enabled())
            y = x * 2
            with T.no_grad():
                seen.append(T.is_grad_enabled())
            with T.inference_mode(False):
                z = x * 2
            seen.append(T.is_grad_enabled())
        seen.append(T.is_grad_enabled())
    seen.append(T.is_grad_enabled())
    assert seen == [False, True, False, True, False, True]
    assert (y.requires_grad, y.is_inference(), y.grad_fn) == (False, True, None)
    assert (z.requires_grad, z.is_inference()) == (True, False)


@pytest.mark.parametrize("spec", [("SGD", {"lr": 0.1, "weight_decay": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.5}),
                                  ("Adam", {"lr": 0.1, "eps": 1e-3}), ("AdamW", {"lr": 0.1, "weight_decay": 0.1}),
                                  ("RMSprop", {"lr": 0.01, "momentum": 0.5, "alpha": 0.9}),
                                  ("Adagrad", {"lr": 0.1, "eps": 1e-3, "initial_accumulator_value": 0.1}),
                                  ("Adadelta", {"lr": 1.0, "rho": 0.8})], ids=lambda s: s[0] + "-" + "-".join(s[1]))
def test_tensor_hyperparameters_update_as_numbers_do(T, spec):
    # a 0-d tensor for any hyper-parameter: the same steps as the number (once,
    # d -= wd * g with a tensor wd rebound d and the parameter never moved)
    name, kw = spec
    runs = []
    for as_tensor in (False, True):
        p = T.tensor([1.0, -2.0, 0.5], dtype=T.float64, requires_grad=True)
        opts = {k: T.tensor(v, dtype=T.float64) if as_tensor and k != "lr" else v for k, v in kw.items()}
        opt = getattr(T.optim, name)([p], **opts)
        for i in range(3):
            opt.zero_grad()
            ((p - i) ** 2).sum().backward()
            opt.step()
        runs.append(lst(p))
    assert runs[0] != [1.0, -2.0, 0.5]
    assert runs[1] == pytest.approx(runs[0], rel=1e-12, abs=1e-12)


def test_max_pool_window_in_the_padding_sends_no_gradient(T):
    # the window covers only padding: its output is -inf and its index -1, which
    # once sent the gradient to the last element (NumPy's negative indexing)
    x = T.tensor([[[1.0, 2.0]]], requires_grad=True)
    y = T.nn.functional.max_pool1d(x, 2, 3, 1, 3, ceil_mode=True)
    assert lst(y) == [[[-float("inf")]]]
    y.sum().backward()
    assert lst(x.grad) == [[[0.0, 0.0]]]


@pytest.mark.parametrize("mode,expected", [("nearest", [0.0, 0.0, 1.0]), ("nearest-exact", [0.0, 1.0, 1.0]),
                                           ("linear", [0.0, 1.0, 2.0])])
def test_interpolate_with_a_scale_that_keeps_the_size(T, mode, expected):
    # floor(3 * 1.3) = 3: the nearest modes still map by 1/scale, linear copies
    x = T.arange(3.0).reshape(1, 1, 3).requires_grad_()
    y = T.nn.functional.interpolate(x, scale_factor=1.3, mode=mode)
    assert lst(y) == [[expected]]
    y.backward(T.tensor([[[1.0, 10.0, 100.0]]]))
    grads = {"nearest": [11.0, 100.0, 0.0], "nearest-exact": [1.0, 110.0, 0.0], "linear": [1.0, 10.0, 100.0]}
    if T.__name__ == "torch" and mode == "nearest":
        grads["nearest"] = [1.0, 10.0, 100.0]   # torch 2.13's backward copies: not its forward's
    assert lst(x.grad) == [[grads[mode]]]


def test_instance_norm_momentum_none_keeps_the_running_stats(T):
    m = T.nn.InstanceNorm1d(2, track_running_stats=True, momentum=None)
    for i in range(2):
        m(T.arange(12.0).reshape(2, 2, 3) * (i + 1))
    assert lst(m.running_mean) == [0.0, 0.0] and lst(m.running_var) == [1.0, 1.0]


def test_prelu_channels_and_smaller_refusals(T):
    with pytest.raises(RuntimeError, match="Found parameter numbers = 4 and channel size = 1."):
        T.nn.PReLU(4)(T.ones(4))                       # a 1-d input has one channel
    y = T.nn.functional.prelu(-T.ones(()), T.ones(1) * 0.5)
    assert y.shape == () and y.item() == -0.5
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'target'"):
        T.nn.functional.soft_margin_loss(T.ones(3), T.ones(3, requires_grad=True))
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
        T.optim.Adam([T.zeros(1, requires_grad=True)], fused=True, foreach=True)
    a = T.tensor([3.0, 4.0], dtype=T.float32, requires_grad=True)
    b = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    a.grad, b.grad = T.tensor([3.0, 4.0]), T.tensor([1.0, 2.0], dtype=T.float64)
    assert T.nn.utils.clip_grad_norm_([a, b], 1.0).dtype == T.float64    # (the dtypes promoted)


@pytest.mark.parametrize("which", ["attn_mask", "key_padding_mask"])
def test_attention_refuses_integer_masks(T, which):
    mha = T.nn.MultiheadAttention(4, 2)
    mask = T.ones(3, 5, dtype=T.int64) if which == "attn_mask" else T.ones(2, 5, dtype=T.int64)
    with pytest.raises(AssertionError, match=f"only bool and floating types of {which} are supported"):
        mha(T.ones(3, 2, 4), T.ones(5, 2, 4), T.ones(5, 2, 4), **{which: mask})


def test_casts_to_integer_or_bool_are_constants(T):
    # only floating point and complex tensors require grad: no gradient flows through
    # x.long() (it once did: d/dx sum(x * x.long()) came out 2x, 4x...)
    x = T.tensor([1.5, 2.5, -0.7], requires_grad=True)
    q = x.long()
    assert not q.requires_grad and q.grad_fn is None
    assert not any(t.requires_grad for t in (x.bool(), x.to(T.int32), x.type_as(T.tensor([1]))))
    c = T.zeros(3, dtype=T.int64)
    c[:] = x
    assert not c.requires_grad
    (x * q.float()).sum().backward()
    assert lst(x.grad) == [1.0, 2.0, 0.0]


def test_sum_and_mean_with_a_dtype(T):
    x = T.full((4096,), 3.0)
    assert x.sum(dtype=T.bfloat16).item() == 12288.0     # (accumulated in bfloat16: 1024)
    assert x.mean(dtype=T.bfloat16).item() == 3.0
    assert x.half().sum(dtype=T.float32).dtype == T.float32
    assert x.to(T.bfloat16).mean(dtype=T.float64).dtype == T.float64
    assert T.tensor([1, 2], dtype=T.uint8).sum(dtype=T.uint8).dtype == T.uint8


def test_a_grad_mode_restored_inside_inference_mode_records_nothing(T):
    ctx = T.set_grad_enabled(False)
    with T.inference_mode():
        with ctx:
            pass
        assert not (T.ones(1, requires_grad=True) * 2).requires_grad
    assert not T.is_grad_enabled()
    T.set_grad_enabled(True)


def test_logdet_of_a_negative_determinant_is_nan_without_gradient(T):
    A = T.tensor([[[0.0, 1.0], [1.0, 0.0]], [[2.0, 0.0], [0.0, 1.0]]], dtype=T.float64, requires_grad=True)
    r = T.logdet(A)
    assert r[0].isnan().item() and r[1].item() == pytest.approx(0.6931471805599453)
    r.nan_to_num().sum().backward()
    assert lst(A.grad) == [[[0.0, 0.0], [0.0, 0.0]], [[0.5, 0.0], [0.0, 1.0]]]


def test_tensor_betas_in_a_list(T):
    p = T.zeros(2, requires_grad=True)
    p.grad = T.ones(2)
    T.optim.NAdam([p], lr=0.01, betas=[T.tensor(0.8), T.tensor(0.99)]).step()
    assert lst(p) == pytest.approx([-0.010952780954539776] * 2)


def test_nearest_2d_copies_a_size_kept_by_its_scale(T):
    # PyTorch's 2-d nearest kernel copies such a dimension; its 1-d and 3-d ones remap
    x = T.arange(20.0).reshape(1, 1, 4, 5)
    assert lst(T.nn.functional.interpolate(x, scale_factor=(1.1, 1.1), mode="nearest")) == lst(x)
    y = T.nn.functional.interpolate(x, scale_factor=(2.0, 1.1), mode="nearest")
    assert lst(y[0, 0, 0]) == [0.0, 1.0, 2.0, 3.0, 4.0]
    z = T.nn.functional.interpolate(T.arange(5.0).reshape(1, 1, 5), scale_factor=1.1, mode="nearest")
    assert lst(z) == [[[0.0, 0.0, 1.0, 2.0, 3.0]]]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_numbers_meet_half_tensors_in_their_dtype(T, dtype):
    # PyTorch converts every operand to the result's dtype before computing (in
    # float32): a half tensor holding 0.1 equals the number 0.1
    dt = getattr(T, dtype)
    h = T.tensor([0.1, 1 / 3], dtype=dt)
    assert lst(h == T.tensor([0.1, 1 / 3])[0].item()) == [True, False]
    assert (h[1] == 1 / 3).item() and not (h[0] < 0.1).item()
    assert (h[0] - 0.1).item() == 0.0 and h[0].fmod(0.1).item() == 0.0
    assert lst(h == T.tensor(0.1)) == [True, False]     # (a 0-d float32 tensor: rounded too)
    assert not (h[0] == T.tensor(0.1)).item()            # (two 0-d tensors: compared in float32)
    if dtype == "float16":                              # (1e-8 is 0 in half: 0 ** 0)
        assert (T.zeros(1, dtype=dt) ** 1e-8).item() == 1.0


def test_mixed_dtype_log_gradients_in_the_results_precision(T):
    # the log in pow's exponent gradient and xlogy's gradient is taken in the result's
    # dtype (float32 here), not in the half input's (1e-4 relative error before)
    import math
    base = T.tensor([1.7, 2.9], dtype=T.float16)
    e = T.tensor([1.3, 0.6], requires_grad=True)
    (base ** e).sum().backward()
    b = [float(v) for v in base.float().tolist()]
    want = [bi ** ei * math.log(bi) for bi, ei in zip(b, [1.2999999523162842, 0.6000000238418579])]
    assert lst(e.grad) == pytest.approx(want, rel=1e-6)
    x = T.tensor([0.5, 2.0], requires_grad=True)
    y = T.tensor([1.7, 2.9], dtype=T.float16)
    T.xlogy(x, y).sum().backward()
    assert lst(x.grad) == pytest.approx([math.log(v) for v in y.float().tolist()], rel=1e-6)


def test_remainder_divisor_gradient_agrees_with_the_forward(T):
    # 6 % 1.2f leaves 1.1999998: the quotient is 4 (floor division's), though
    # floor(6 / 1.2f) rounds to 5 in float32
    a = T.tensor([6.0])
    b = T.tensor([1.2], requires_grad=True)
    (g,) = T.autograd.grad(T.remainder(a, b).sum(), b)
    assert g.item() == -4.0


def test_linalg_refusals(T):
    A = T.eye(3).expand(2, 3, 3)
    with pytest.raises(RuntimeError, match=r"Incompatible shapes of A and B for the equation XA = B \(3x3 and 3x1\)"):
        T.linalg.solve(A, T.ones(2, 3), left=False)
    with pytest.raises(RuntimeError, match="Expected A and B to have the same dtype"):
        T.linalg.solve(T.eye(3), T.ones(3, dtype=T.float64))
    with pytest.raises(RuntimeError, match="linalg.inv: Low precision dtypes not supported. Got Half"):
        T.linalg.inv(T.eye(3, dtype=T.float16))
    with pytest.raises(RuntimeError, match="singular"):
        T.linalg.inv(T.zeros(2, 2))


@pytest.mark.parametrize("f", [lambda T, a, b: a // b, lambda T, a, b: a % b, lambda T, a, b: T.fmod(a, b),
                               lambda T, a, b: T.div(a, b, rounding_mode="floor"),
                               lambda T, a, b: T.remainder(5, b)], ids=["floordiv", "mod", "fmod", "div_floor",
                                                                       "rremainder"])
def test_integer_division_by_zero_raises(T, f):
    # NumPy gives 0 there: silently
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        f(T, T.tensor([1, 2]), T.tensor([0, 1]))
    assert lst(f(T, T.tensor([7, -7]), T.tensor([2, 3]))) == lst(f(T, T.tensor([7, -7]), T.tensor([2, 3])))


def test_retained_grad_keeps_its_history_under_create_graph(T):
    # PyTorch's retain_grad hook clones without detaching: y.grad is differentiable
    x = T.tensor([1., 2., 3.], requires_grad=True)
    y = x * x
    y.retain_grad()
    (y * x).sum().backward(create_graph=True)
    assert y.grad.requires_grad
    assert lst(T.autograd.grad(y.grad.sum(), x)[0]) == [1., 1., 1.]
    x.grad = None


def test_retained_grad_follows_a_mark_dirty_function(T):
    # the retained grad belongs to the new value (the in-place Function's output)
    class Double_(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = T.ones(3, requires_grad=True)
    a = x * 1
    a.retain_grad()
    Double_.apply(a)
    (a * 3).sum().backward()
    assert lst(a.grad) == [3., 3., 3.]
    assert lst(x.grad) == [6., 6., 6.]


def test_gradients_and_inputs_must_be_tensors(T):
    x = T.tensor([1., 2.], requires_grad=True)
    with pytest.raises(TypeError, match="'float' object is not iterable"):
        T.autograd.grad((x * 2).sum(), x, 2.0)          # a number is not a gradient
    with pytest.raises(TypeError, match="'float' object is not iterable"):
        (x * 2).sum().backward(2.0)
    with pytest.raises(TypeError, match="gradients can be either Tensors or None, but got float"):
        (x * 2).backward([1., 1.])
    with pytest.raises(TypeError, match="gradients can be either Tensors or None, but got float"):
        T.autograd.grad([(x * 2).sum()], [x], [2.0])
    with pytest.raises(RuntimeError, match="all inputs have to be Tensors or GradientEdges, but got float"):
        (x * 2).sum().backward(inputs=[3.0])
    with pytest.raises(RuntimeError, match="all inputs have to be Tensors or GradientEdges, but got float"):
        T.autograd.grad((x * 2).sum(), [x, 3.0])


def _fill_row(T, z, v):
    z[0].fill_(v)
    return z


_FILLS = {      # (T, z, v) -> z with v written into some of it
    "fill_": lambda T, z, v: z.fill_(v),
    "fill_row": _fill_row,
    "masked_fill": lambda T, z, v: z.masked_fill(T.tensor([True, False, True]), v),
    "index_fill": lambda T, z, v: z.index_fill(0, T.tensor([0]), v),
}


@pytest.mark.parametrize("name", list(_FILLS))
def test_fill_with_a_tensor_value_per_sample(T, name):
    # vmap records one call for the whole batch: the value's gradient must be
    # summed per sample, not over the batch (it was, silently); jacfwd's tangents
    # are such a batch too
    def f(x):
        return _FILLS[name](T, x.clone(), x[1])

    w = T.tensor([1., 10., 100.])
    X = T.tensor([[1., 2., 3.], [4., 5., 6.]])
    per_sample = T.func.vmap(T.func.grad(lambda x: (f(x) * w).sum()))(X)
    assert lst(per_sample) == [lst(T.func.grad(lambda x: (f(x) * w).sum())(X[i])) for i in range(2)]
    assert lst(T.func.jacfwd(f)(X[0])) == lst(T.autograd.functional.jacobian(f, X[0]))


def test_clone_of_a_tensor_that_is_not_dense(T):
    # PyTorch's preserve_format: an expand or a strided slice gets dense strides in
    # its own dimension order (NumPy's order="K" left gaps, so .view failed)
    assert T.ones(1, 3).expand(2, 3).clone().stride() == (3, 1)
    assert lst(T.ones(1, 3).expand(2, 3).clone().view(-1)) == [1.0] * 6
    assert T.ones(4, 3).t()[:, ::2].clone().stride() == (1, 3)
    assert T.ones(1, 3, 4).permute(2, 0, 1).expand(4, 2, 3).clone().stride() == (1, 4, 8)
    assert T.ones(3, 4, 5)[:, ::2].permute(2, 0, 1).clone().stride() == (1, 10, 5)
    assert T.ones(2, 3, 4).permute(1, 2, 0).clone().stride() == (4, 1, 12)    # dense: kept


def test_clone_to_contiguous_format_is_a_copy(T):
    # it returned the same memory for a contiguous tensor
    a = T.ones(3)
    b = a.clone(memory_format=T.contiguous_format)
    b.add_(1)
    assert lst(a) == [1., 1., 1.]


def test_complex_to_bool_looks_at_both_parts(T):
    # it looked at the real part only: 1j was False
    z = T.tensor([0j, 1j, 1 + 0j, 0.5j])
    assert lst(z.bool()) == [False, True, True, True]
    assert lst(z.to(T.bool)) == [False, True, True, True]
    assert lst(T.ones(4)[z.bool()]) == [1.0, 1.0, 1.0]


def test_linspace_and_logspace_with_complex_ends(T):
    # the imaginary parts were dropped into a float32 result
    a = T.linspace(0, 1j, 3)
    assert a.dtype == T.complex64 and lst(a) == [0j, 0.5j, 1j]
    b = T.linspace(1j, 2 + 1j, 3, dtype=T.complex128)
    assert b.dtype == T.complex128 and lst(b) == [1j, 1 + 1j, 2 + 1j]
    c = T.logspace(0, 1j, 3)
    assert c.dtype == T.complex64
    assert abs(complex(c[1].item()) - 10 ** 0.5j) < 1e-6
    with pytest.raises(RuntimeError, match=r"torch.linspace\(\): inferred dtype c10::complex<float> can't "
                                           r"be safely cast to passed dtype Float"):
        T.linspace(0, 1j, 3, dtype=T.float32)


def test_a_complex_value_is_not_written_into_a_real_tensor(T):
    # NumPy dropped the imaginary part, silently
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
        T.zeros(2).fill_(1j)
    with pytest.raises(RuntimeError, match="value cannot be converted to type double without overflow"):
        T.full((2,), 1j, dtype=T.float64)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t without overflow"):
        T.zeros(2, dtype=T.int64).masked_fill(T.tensor([True, False]), 2j)
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
        T.zeros(2).masked_fill(T.tensor([True, False]), T.tensor(1 + 1j))
    with pytest.raises(RuntimeError, match="index_fill_\\(\\): Converting complex Scalar to non-complex type"):
        T.zeros(2).index_fill(0, T.tensor([0]), 1 + 0j)
    assert lst(T.full((2,), 1 + 0j, dtype=T.float32)) == [1.0, 1.0]     # no imaginary part: fine
    assert lst(T.zeros(2, dtype=T.bool).fill_(1j)) == [True, True]
    assert lst(T.zeros(2, dtype=T.complex64).masked_fill(T.tensor([True, False]), 2j)) == [2j, 0j]


def test_there_is_no_complex_half_alias():
    # tensorplay.chalf was complex64: another dtype than PyTorch's, silently
    import tensorplay
    assert not hasattr(tensorplay, "chalf") and not hasattr(tensorplay, "complex32")


@pytest.mark.parametrize("name", ["mul_", "sin_", "pow_", "clamp_", "div_", "abs_"])
def test_per_sample_gradients_through_inplace_ops_that_save_their_input(T, name):
    # vmap wrote the batch over the value the op had saved: a version error
    # where plain grad worked
    ops = {"mul_": lambda z, x: z.mul_(x), "sin_": lambda z, x: z.sin_(), "pow_": lambda z, x: z.pow_(2),
           "clamp_": lambda z, x: z.clamp_(min=2.5), "div_": lambda z, x: z.div_(x + 1),
           "abs_": lambda z, x: z.abs_()}

    def loss(x):
        z = x * 1
        ops[name](z, x)
        return (z * z).sum()
    X = T.tensor([[1., -2., 3.], [4., 5., -6.]], dtype=T.float64)
    per_sample = T.func.vmap(T.func.grad(loss))(X)
    assert_close(per_sample, [lst(T.func.grad(loss)(X[i])) for i in range(2)], atol=1e-12)


@pytest.mark.parametrize("make", [lambda T, x: T.zeros_like(x), lambda T, x: T.ones_like(x) * 0,
                                  lambda T, x: T.full_like(x, 0.0), lambda T, x: x.new_zeros(3),
                                  lambda T, x: x.new_full((3,), 0.0), lambda T, x: T.empty_like(x).zero_()],
                         ids=["zeros_like", "ones_like", "full_like", "new_zeros", "new_full", "empty_like"])
def test_tensors_made_like_a_batched_tensor_are_batched(T, make):
    # they were one tensor for all samples, so writing a sample into them failed
    X = T.tensor([[1., 2., 3.], [4., 5., 6.]])
    assert lst(T.func.vmap(lambda x: make(T, x).add_(x))(X)) == lst(X)
    assert lst(T.func.vmap(lambda x: x.t().contiguous().view(-1))(T.ones(2, 3, 2))) == [[1.0] * 6] * 2


def _square_function(T, save_for_forward):
    class Sq(T.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            if save_for_forward:
                ctx.save_for_forward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

        @staticmethod
        def jvp(ctx, t):
            saved = ctx.saved_tensors
            return 2 * saved[0] * t if saved else t * 0
    return Sq


def test_forward_rules_of_a_function_under_vmap(T):
    # the generated vmap rule lost what forward saved for jvp (a ValueError in jacfwd)
    Sq = _square_function(T, True)
    x = T.tensor([1., 2.])
    assert lst(T.func.jacfwd(Sq.apply)(x)) == [[2., 0.], [0., 4.]]
    assert lst(T.func.hessian(lambda v: Sq.apply(v).sum())(x)) == [[2., 0.], [0., 2.]]
    # jvp sees only what forward saved for it (it saw save_for_backward's tensors)
    assert lst(T.func.jvp(_square_function(T, False).apply, (x,), (T.ones(2),))[1]) == [0., 0.]


@pytest.mark.parametrize("loss,kind,words", [
    ("mse_loss", NotImplementedError, '"mse_cpu" not implemented for \'ComplexFloat\''),
    ("smooth_l1_loss", NotImplementedError, '"smooth_l1_cpu" not implemented for \'ComplexFloat\''),
    ("huber_loss", NotImplementedError, '"huber_cpu" not implemented for \'ComplexFloat\''),
    ("kl_div", RuntimeError, "kl_div: Complex inputs not supported."),     # (reduction="sum" below)
    ("cosine_similarity", RuntimeError, "expected common dtype to be floating point, yet common dtype is "
                                        "ComplexFloat")])
def test_real_losses_refuse_complex_inputs(T, loss, kind, words):
    # they computed: mse_loss of 1j and 0 was -1
    with pytest.raises(kind) as info:
        getattr(T.nn.functional, loss)(T.tensor([[1j, 1]]), T.tensor([[0j, 1j]]),
                                       **({"reduction": "sum"} if loss == "kl_div" else {}))
    assert words in str(info.value)


def test_batch_norm_running_statistics_may_not_require_grad(T):
    x = T.tensor([[0.2, -1.0, 0.5], [1.0, 0.3, -0.2]])
    m = T.zeros(3, requires_grad=True)
    for training in (False, True):
        with pytest.raises(RuntimeError, match="The function 'native_batch_norm' is not differentiable with "
                                               "respect to argument 'running_mean'"):
            T.nn.functional.batch_norm(x, m, T.ones(3), training=training)
    with T.no_grad():               # (no gradient asked: fine)
        assert T.nn.functional.batch_norm(x, m, T.ones(3)).shape == (2, 3)


def test_cross_entropy_with_probabilities_is_differentiable_in_the_weight(T):
    # PyTorch computes it as a composite there (class indices: its kernel refuses)
    x = T.tensor([[0.2, -1.0, 0.5], [1.0, 0.3, -0.2]], dtype=T.float64, requires_grad=True)
    p = T.tensor([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], dtype=T.float64)
    w = T.tensor([1.0, 2.0, 0.5], dtype=T.float64, requires_grad=True)
    (g,) = T.autograd.grad(T.nn.functional.cross_entropy(x, p, weight=w), w)
    logp = T.log_softmax(x.detach(), 1)
    assert_close(g, lst(-(logp * p).sum(0) / 2), atol=1e-12)


def test_vmap_out_dims_follow_the_output_structure(T):
    # a dict or list out_dims for a dict or list output was refused (the output was
    # wrapped in a tuple first); a list does not stand for a tuple
    x = T.ones(4, 3)
    assert T.func.vmap(lambda x: {"a": x * 2}, out_dims={"a": 1})(x)["a"].shape == (3, 4)
    assert [t.shape for t in T.func.vmap(lambda x: [x, x], out_dims=[1, 0])(x)] == [(3, 4), (4, 3)]
    assert [t.shape for t in T.func.vmap(lambda x: [x, x], out_dims=[1, 0], chunk_size=2)(x)] == \
        [(3, 4), (4, 3)]
    assert T.func.vmap(lambda x: x * 2, out_dims=(1,))(x).shape == (3, 4)
    with pytest.raises(ValueError, match="out_dims is not compatible with the structure of `outputs`"):
        T.func.vmap(lambda x: (x, x), out_dims=[1, 0])(x)


def test_inplace_view_ops_on_a_batched_tensor(T):
    # t_, unsqueeze_ & co. read the batched tensor's values and failed
    x = T.arange(24.).reshape(2, 3, 4)
    assert lst(T.func.vmap(lambda v: v.clone().t_())(x)) == lst(x.transpose(1, 2))
    assert T.func.vmap(lambda v: v.clone().unsqueeze_(0))(T.ones(2, 3)).shape == (2, 1, 3)
    assert T.func.vmap(lambda v: v.clone().squeeze_(0))(T.ones(2, 1, 3)).shape == (2, 3)
    g = T.func.vmap(T.func.grad(lambda v: (v.clone().unsqueeze_(1) * T.arange(3.)).sum()))(T.ones(2, 3))
    assert lst(g) == [[3.0] * 3] * 2


def test_one_hot_under_vmap(T):
    # it read the batched tensor's values and failed
    F = T.nn.functional
    assert lst(T.func.vmap(lambda r: F.one_hot(r, 3))(T.tensor([[0, 2], [1, 1]]))) == \
        [[[1, 0, 0], [0, 0, 1]], [[0, 1, 0], [0, 1, 0]]]
    with pytest.raises(RuntimeError, match="please provide an explicit positive num_classes"):
        T.func.vmap(lambda r: F.one_hot(r))(T.tensor([[0, 2], [1, 1]]))


def test_jacfwd_of_a_function_writing_into_its_input(T):
    # the primal, one value expanded over the batch of tangents, refused the write
    def f(x):
        x.mul_(2)
        return x
    assert lst(T.func.jacfwd(f)(T.tensor([1., 2., 3.]))) == [[2., 0., 0.], [0., 2., 0.], [0., 0., 2.]]


def test_inplace_ops_in_nested_vmap_with_grad(T):
    x = T.ones(2, 3, 4, requires_grad=True)
    assert lst(T.func.vmap(T.func.vmap(lambda r: (r * 2).mul_(r)))(x).detach()) == [[[2.0] * 4] * 3] * 2
    g = T.func.vmap(T.func.vmap(T.func.grad(lambda r: ((r * 2).mul_(r)).sum())))(T.ones(2, 3, 4))
    assert lst(g) == [[[4.0] * 4] * 3] * 2


def test_index_fill_with_a_batched_value_of_another_dtype(T):
    out = T.func.vmap(lambda x, v: x.index_fill(0, T.tensor([0]), v))(
        T.zeros(3, 4), T.tensor([1., 2., 3.], dtype=T.float64))
    assert out.dtype == T.float32 and lst(out[:, 0]) == [1., 2., 3.]


def test_det_jacobian_at_a_singular_matrix(T):
    if T.__name__ == "torch":
        pytest.skip("PyTorch's plain (LU) path gives zeros at a singular matrix")
    assert lst(T.func.jacrev(T.linalg.det)(T.tensor([[1., 2.], [2., 4.]]))) == [[4., -2.], [-2., 1.]]


class _TwoOut:
    @staticmethod
    def make(T):
        class M(T.nn.Module):
            def forward(self, x, y, k):
                return x * y, y * 2, k
        return M()


def test_full_backward_hooks_as_pytorch_calls_them(T):
    m = _TwoOut.make(T)
    seen = []
    m.register_full_backward_pre_hook(lambda mod, go: seen.append(("pre", [g is None for g in go])))
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(
        ("full", [None if g is None else lst(g) for g in gi], [g is None for g in go])))
    a, b, k = m(T.ones(2, requires_grad=True), T.ones(2), 3)
    assert not b.requires_grad          # (an output that needs no gradient stays so)
    a.sum().backward()
    # None for the non-tensor output and for an output without gradient; zeros for
    # a tensor input that needs no gradient, None for a non-tensor input
    assert seen == [("pre", [False, True, True]), ("full", [[1.0, 1.0], [0.0, 0.0], None],
                                                    [False, True, True])]


def test_full_backward_hook_does_not_run_in_a_double_backward(T):
    # the gradient reaches the input without passing the output: PyTorch skips the
    # hook (tensorplay ran it with the first pass's grad_output, and its
    # replacement changed the second derivative)
    m = T.nn.Tanh()
    calls = []
    m.register_full_backward_hook(lambda mod, gi, go: (calls.append(1), (gi[0] * 10,))[1])
    a = T.tensor([0.5, -1.0], requires_grad=True)
    (g,) = T.autograd.grad(m(a).sum(), a, create_graph=True)
    g.sum().backward()
    assert len(calls) == 1
    assert_close(a.grad, [-7.268619, 6.397000], atol=1e-5, rtol=1e-5)


def test_backward_hooks_are_those_registered_at_forward(T):
    m = T.nn.Tanh()
    seen = []
    h = m.register_full_backward_hook(lambda *a: seen.append("A"))
    y = m(T.ones(1, requires_grad=True))
    h.remove()
    m.register_full_backward_hook(lambda *a: seen.append("B"))
    y.sum().backward()
    assert seen == ["A"]


def test_train_goes_through_the_childrens_own_train(T):
    # the frozen-BatchNorm pattern: a child that overrides train stayed in training
    class Frozen(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = T.nn.BatchNorm1d(2)

        def train(self, mode=True):
            super().train(mode)
            self.bn.eval()
            return self
    net = T.nn.Sequential(T.nn.Linear(2, 2), Frozen())
    net.train()
    assert net.training and net[1].training and not net[1].bn.training


def test_tensor_split_at_indices_follows_python_slices(T):
    # a negative index was clamped to 0, and a piece began at the largest index so
    # far: wrong pieces, silently
    x = T.arange(6.)
    assert [lst(t) for t in T.tensor_split(x, [-1])] == [[0., 1., 2., 3., 4.], [5.]]
    assert [lst(t) for t in T.tensor_split(x, [3, 1])] == [[0., 1., 2.], [], [1., 2., 3., 4., 5.]]
    assert [lst(t) for t in T.tensor_split(x, T.tensor([1, -1]))] == [[0.], [1., 2., 3., 4.], [5.]]
    assert [lst(t) for t in T.tensor_split(x, indices=[2])] == [[0., 1.], [2., 3., 4., 5.]]
    assert [lst(t) for t in T.tensor_split(x, sections=2)] == [[0., 1., 2.], [3., 4., 5.]]
    y = T.arange(4., requires_grad=True)
    (g,) = T.autograd.grad(sum((p * (i + 1)).sum() for i, p in enumerate(T.tensor_split(y, [3, 1]))), y)
    assert lst(g) == [1., 4., 4., 3.]      # (the overlapping pieces both send gradient)


def test_integer_results_keep_their_dtype(T):
    # the means were int64, and repeat_interleave's index form too
    r = T.scatter_reduce(T.tensor([10, 20], dtype=T.int32), 0, T.tensor([0, 0]),
                         T.tensor([1, 2], dtype=T.int32), "mean")
    assert r.dtype == T.int32 and lst(r) == [4, 20]
    assert T.repeat_interleave(T.tensor([1, 0, 2], dtype=T.int32)).dtype == T.int32
    with pytest.raises(NotImplementedError, match="\"repeat_interleave_cpu\" not implemented for 'Byte'"):
        T.repeat_interleave(T.tensor([1, 0, 2], dtype=T.uint8))


def test_edge_shapes_of_selection_ops(T):
    z = T.tensor(1.5, requires_grad=True)
    assert T.autograd.grad(T.masked_select(z, T.tensor(True)).sum(), z)[0].item() == 1.0
    assert lst(T.unique_consecutive(T.tensor([[1, 2]]), dim=0)) == [[1, 2]]
    assert lst(T.unique_consecutive(T.tensor([[1], [1], [2]]), dim=1)) == [[1], [1], [2]]
    assert lst(T.searchsorted(T.zeros(2, 0), T.ones(2, 3))) == [[0, 0, 0], [0, 0, 0]]
    assert T.searchsorted(T.tensor([[1., 2.]]), T.zeros(1, 0)).shape == (1, 0)


def test_numbers_out_of_range_are_refused_as_pytorch_refuses_them(T):
    # NumPy wrapped them silently (y[0] = 300 on uint8 was 44)
    y = T.zeros(2, dtype=T.uint8)
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        y[0] = 300
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
        T.zeros(2, dtype=T.int8).fill_(200)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int without overflow"):
        T.zeros(2, dtype=T.int32).fill_(1e10)
    with pytest.raises(RuntimeError, match="value cannot be converted to type c10::Half without overflow"):
        T.zeros(2, dtype=T.float16).fill_(1e5)
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
        T.full((2,), 1e40)
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        T.zeros(2, dtype=T.uint8).masked_fill(T.tensor([True, False]), 256)
    # what PyTorch lets through: a negative number wraps into an unsigned type, a
    # fraction truncates, inf stays inf, item assignment makes a large float inf
    assert lst(T.zeros(2, dtype=T.uint8).masked_fill(T.tensor([True, False]), -1)) == [255, 0]
    assert lst(T.zeros(2, dtype=T.int8).fill_(1.5)) == [1, 1]
    assert lst(T.zeros(1, dtype=T.float16).fill_(float("inf"))) == [float("inf")]
    h = T.zeros(1, dtype=T.float16)
    h[0] = 1e5
    assert lst(h) == [float("inf")]
    # a float is checked as it is: no wrapping into an unsigned type, no truncation first
    for v in (-1.0, -0.5, 255.9):
        with pytest.raises(RuntimeError, match="uint8_t without overflow"):
            T.zeros(1, dtype=T.uint8).fill_(v)
    with pytest.raises(RuntimeError, match="float without overflow"):
        T.zeros(1)[0] = 1e39            # (float32 item assignment: refused; half: inf)
    with pytest.raises(RuntimeError, match="c10::complex<float> without overflow"):
        T.zeros(1, dtype=T.complex64).fill_(1e39)


def test_load_state_dict_as_pytorch_walks_the_modules(T):
    # a parent's pre-hook renames keys for its children (they got a copy taken
    # before it ran); keys naming a submodule or going deeper than a parameter are
    # unexpected (a strict load passed); post-hooks run after each subtree
    net = T.nn.Sequential(T.nn.Linear(2, 2))
    old = {k.replace("0.", "old."): v for k, v in net.state_dict().items()}

    def rename(sd, prefix, *rest):
        for k in list(sd):
            if k.startswith(prefix + "old."):
                sd[k.replace("old.", "0.")] = sd.pop(k)
    net._register_load_state_dict_pre_hook(rename)
    assert str(net.load_state_dict(old)) == "<All keys matched successfully>"
    net = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.Linear(2, 2))
    order = []
    for n, mod in net.named_modules():
        mod.register_load_state_dict_post_hook(lambda mod, inc, n=n: order.append(n))
    sd = dict(net.state_dict())
    sd["0"] = T.ones(1)
    sd["0.weight.extra"] = T.ones(1)
    r = net.load_state_dict(sd, strict=False)
    assert sorted(r.unexpected_keys) == ["0", "0.weight.extra"] and order == ["0", "1", ""]


def test_load_state_dict_assign_keeps_the_models_requires_grad(T):
    m = T.nn.Linear(2, 2)
    m.load_state_dict({"weight": T.nn.Parameter(T.ones(2, 2), requires_grad=False), "bias": T.zeros(2)},
                      assign=True)
    assert m.weight.requires_grad and m.bias.requires_grad


def test_always_call_forward_hooks_run_whatever_raised(T):
    # they ran only when forward itself raised, not a pre-hook or another forward hook
    for where in ("pre", "hook"):
        m = T.nn.Identity()
        seen = []

        def bad(*a):
            raise ValueError("boom")
        if where == "pre":
            m.register_forward_pre_hook(bad)
        else:
            m.register_forward_hook(bad)
        m.register_forward_hook(lambda mod, args, out: seen.append(out if out is None else lst(out)),
                                always_call=True)
        with pytest.raises(ValueError, match="boom"):
            m(T.ones(1))
        assert seen == ([None] if where == "pre" else [[1.0]])


def test_reductions_in_an_integer_dtype_asked_for(T):
    # the kernels widen to int64, and dtype= was not honoured after them
    r = T.prod(T.tensor([16, 16]), dtype=T.int8)
    assert r.dtype == T.int8 and r.item() == 0
    assert lst(T.cumsum(T.tensor([100, 100]), 0, dtype=T.int8)) == [100, -56]
    assert T.nansum(T.tensor([100, 100]), dtype=T.int8).item() == -56
    assert T.prod(T.tensor([2, 0]), dtype=T.bool).item() is False
    with pytest.raises(NotImplementedError, match="\"cumsum_out_cpu\" not implemented for 'Bool'"):
        T.cumsum(T.tensor([1, 0]), 0, dtype=T.bool)


def test_reductions_over_no_dimension_and_of_order_zero(T):
    assert lst(T.all(T.tensor([[1., 0.], [2., 3.]]), ())) == [[True, False], [True, True]]
    assert lst(T.diff(T.tensor([1., 2., 4.]), n=0, prepend=T.tensor([0.]))) == [1., 2., 4.]


def test_infinite_upstream_gradients_stay_where_they_belong(T):
    # inf * 0 from a mask made NaN of the other elements
    inf, nan = float("inf"), float("nan")
    x = T.tensor([[inf, 1.], [2., 3.]], dtype=T.float64, requires_grad=True)
    (T.trace(x) ** 2).backward()
    assert lst(x.grad) == [[inf, 0.0], [0.0, inf]]
    x = T.tensor([0., 1., 2.], dtype=T.float64, requires_grad=True)
    T.logcumsumexp(x, 0).backward(T.tensor([inf, 1., 1.], dtype=T.float64))
    assert x.grad[0].item() == inf and abs(x.grad[2].item() - 0.66524096) < 1e-6
    # cummax's index moves to each later NaN (its gradient follows)
    v, i = T.cummax(T.tensor([nan, 1., nan]), 0)
    assert lst(i) == [0, 0, 2]


def test_default_collate_keeps_a_column_of_strings_a_tuple(T):
    import numpy as np
    batch = T.utils.data.default_collate([(1, "a"), (2, "b")])
    assert lst(batch[0]) == [1, 2] and batch[1] == ("a", "b")
    lab = np.array(["cat", "dog"])
    assert T.utils.data.default_collate([(0, lab[0]), (1, lab[1])])[1] == ("cat", "dog")


def test_python_ints_beyond_int64_are_refused(T):
    # they wrapped to -2**63, silently
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        T.tensor([2 ** 63, 1])
    assert T.tensor([2 ** 63, 1.5]).dtype == T.float32


def test_a_scheduler_refuses_a_group_added_after_it(T):
    o = T.optim.SGD([T.nn.Parameter(T.zeros(1))], lr=0.1)
    s = T.optim.lr_scheduler.LambdaLR(o, lambda e: 0.5)
    o.add_param_group({"params": [T.nn.Parameter(T.zeros(1))], "lr": 0.5})
    o.step()
    with pytest.raises(ValueError, match="zip\\(\\) argument 2 is shorter than argument 1"):
        s.step()
    assert [len(p) for p in T.utils.data.random_split(range(10), T.tensor([4, 6]))] == [4, 6]


def test_a_write_into_an_expanded_tensor_under_vmap_is_refused(T):
    # (the samples share memory: a write would be lost or mixed; jacfwd's own
    # expanded primal is the one exception, tested above)
    x = T.ones(3).expand(4, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        T.func.vmap(lambda v: v.add_(1))(x)


def test_review_details_of_vmap_and_data(T):
    with pytest.raises(ValueError, match="out_dims is not compatible"):
        T.func.vmap(lambda x: [x, x], out_dims=(1,))(T.ones(3, 4))     # (a 1-tuple: a lone tensor only)
    assert [len(p) for p in T.utils.data.random_split(range(10), T.tensor([0.3, 0.7]))] == [3, 7]
    x = T.tensor([1., 2.])
    T.diff(x, n=0).add_(1)              # (a copy)
    assert lst(x) == [1., 2.]


def test_writes_into_a_conj_result(T):
    # PyTorch's conj() is a view (the write reaches z); tensorplay's is a copy, whose
    # write was silently lost: it is refused instead
    z = T.tensor([1 + 2j, 3 - 1j])
    assert z.conj().is_conj() and not z.is_conj() and not T.tensor([1.]).conj().is_conj()
    r = z.conj().resolve_conj()
    assert not r.is_conj()
    r.mul_(2)                                   # (an independent tensor in both)
    assert lst(z) == [1 + 2j, 3 - 1j]
    if T.__name__ == "torch":
        z.conj().mul_(1j)
        assert lst(z) == [2 - 1j, -1 - 3j]
    else:
        for write in (lambda: z.conj().mul_(1j), lambda: z.conj()[0].fill_(1),
                      lambda: T.tensor([[1 + 2j, 3 - 1j]]).mH.mul_(2)):
            with pytest.raises(RuntimeError, match="In-place write into the result of conj"):
                write()


def test_nan_slices_give_nan_gradients_as_in_pytorch(T):
    # aminmax and nanmean's all-NaN slice gave 0, where amax (and PyTorch) give NaN
    nan = float("nan")
    x = T.tensor([[1., nan, 3.], [1., 2., 3.]], dtype=T.float64, requires_grad=True)
    mn, mx = T.aminmax(x, dim=1)
    (mn + mx).sum().backward()
    assert all(v != v for v in lst(x.grad[0])) and lst(x.grad[1]) == [1.0, 0.0, 1.0]
    x = T.tensor([[1., nan], [nan, nan]], dtype=T.float64, requires_grad=True)
    T.nanmean(x, 1).sum().backward()
    assert lst(x.grad[0]) == [1.0, 0.0] and all(v != v for v in lst(x.grad[1]))


def test_dataloader_over_a_tensor_dataset_indexes_as_its_samples_do(T):
    # the batched shortcut (index_select) refused negative indices and let float ones pass
    ds = T.utils.data.TensorDataset(T.arange(5))
    assert [lst(b[0]) for b in T.utils.data.DataLoader(ds, sampler=[-1, 0], batch_size=2)] == [[4, 0]]
    with pytest.raises(IndexError):
        list(T.utils.data.DataLoader(ds, sampler=[1.0, 2.0], batch_size=2))
    with pytest.raises(IndexError):
        list(T.utils.data.DataLoader(ds, sampler=[5], batch_size=1))
    assert [lst(b[0]) for b in T.utils.data.DataLoader(ds, batch_size=2)] == [[0, 1], [2, 3], [4]]


# Ops PyTorch has no complex (or bool) kernel for: NumPy orders complex numbers
# lexicographically, so these computed a result without a word (lt, maximum,
# clamp, relu, sign, round, unique, the activations with kinks...), or let
# NumPy's TypeError through (floor, remainder, atan2, erf...).  PyTorch's words.
def _cf(kernel):
    return NotImplementedError, f"\"{kernel}\" not implemented for 'ComplexFloat'"


_CLAMP_WORDS = (NotImplementedError, "clamp is not supported for complex types")
_F = "nn.functional."
DTYPE_REFUSALS = [
    ("lt", lambda T, z: z < z, _cf("lt_cpu")), ("le", lambda T, z: z <= z, _cf("le_cpu")),
    ("gt", lambda T, z: z > 1, _cf("gt_cpu")), ("ge", lambda T, z: z.real >= z, _cf("ge_cpu")),
    ("lt_", lambda T, z: z.clone().lt_(z), _cf("lt_cpu")),
    ("maximum", lambda T, z: T.maximum(z, z),
     (RuntimeError, "maximum not implemented for complex tensors.")),
    ("min binary", lambda T, z: T.min(z, z), (RuntimeError, "minimum not implemented for complex tensors.")),
    ("fmax", lambda T, z: T.fmax(z, z), (RuntimeError, "fmax not implemented for complex tensors.")),
    ("clamp", lambda T, z: z.clamp(0, 1), _CLAMP_WORDS), ("clamp_min", lambda T, z: z.clamp_min(0), _CLAMP_WORDS),
    ("clamp_", lambda T, z: z.clone().clamp_(max=1), _CLAMP_WORDS), ("relu", lambda T, z: z.relu(), _CLAMP_WORDS),
    ("relu_", lambda T, z: z.clone().relu_(), _CLAMP_WORDS),
    ("hardtanh", lambda T, z: T.nn.functional.hardtanh(z), _CLAMP_WORDS),
    ("relu6", lambda T, z: T.nn.functional.relu6(z), _CLAMP_WORDS),
    ("sign", lambda T, z: z.sign(), (NotImplementedError, "Unlike NumPy, torch.sign is not intended to support "
                                     "complex numbers. Please use torch.sgn instead.")),
    ("round", lambda T, z: z.round(), _cf("round_vml_cpu")),
    ("round decimals", lambda T, z: z.round(decimals=1), _cf("round_cpu")),
    ("floor", lambda T, z: z.floor(), (NotImplementedError, "floor is not supported for complex inputs")),
    ("ceil_", lambda T, z: z.clone().ceil_(), (NotImplementedError, "ceil is not supported for complex inputs")),
    ("frac", lambda T, z: z.frac(), _cf("frac_cpu")), ("remainder", lambda T, z: z % 2, _cf("remainder_cpu")),
    ("fmod", lambda T, z: T.fmod(z, 2), _cf("fmod_cpu")), ("floordiv", lambda T, z: z // 2, _cf("div_floor_cpu")),
    ("div trunc", lambda T, z: T.div(z, 2, rounding_mode="trunc"), _cf("div_trunc_cpu")),
    ("atan2", lambda T, z: T.atan2(z, z), _cf("atan2_cpu")), ("erf", lambda T, z: z.erf(), _cf("erf_vml_cpu")),
    ("erfinv", lambda T, z: T.erfinv(z), _cf("erfinv_vml_cpu")),
    ("signbit", lambda T, z: T.signbit(z), (NotImplementedError, "signbit is not implemented for complex tensors.")),
    ("isneginf", lambda T, z: T.isneginf(z), (RuntimeError, "isneginf does not support complex inputs.")),
    ("searchsorted", lambda T, z: T.searchsorted(z, z), _cf("searchsorted_out_cpu")),
    ("bucketize", lambda T, z: T.bucketize(z, z), _cf("searchsorted_out_cpu")),
    ("unique", lambda T, z: T.unique(z), _cf("unique")),
    ("unique_consecutive", lambda T, z: T.unique_consecutive(z), _cf("unique")),
    ("mode", lambda T, z: z.mode(), _cf("mode_cpu")),
    ("leaky_relu", lambda T, z: T.nn.functional.leaky_relu(z), _cf("leaky_relu_cpu")),
    ("rrelu", lambda T, z: T.nn.functional.rrelu(z, training=True), _cf("rrelu_with_noise_out_cpu")),
    ("elu", lambda T, z: T.nn.functional.elu(z), _cf("elu_cpu")),
    ("selu", lambda T, z: T.nn.functional.selu(z), _cf("elu_cpu")),
    ("hardsigmoid", lambda T, z: T.nn.functional.hardsigmoid(z), _cf("hardsigmoid_cpu")),
    ("hardswish", lambda T, z: T.nn.functional.hardswish(z), _cf("hardswish_cpu")),
    ("threshold", lambda T, z: T.nn.functional.threshold(z, 0.1, 0.0), _cf("threshold_cpu")),
    ("prelu", lambda T, z: T.nn.functional.prelu(z, T.tensor([0.25], dtype=z.dtype)), _cf("prelu_cpu")),
    ("hardshrink", lambda T, z: T.nn.functional.hardshrink(z), _cf("hardshrink_cpu")),
    ("softshrink", lambda T, z: T.nn.functional.softshrink(z), _cf("softshrink_check")),
    ("softplus", lambda T, z: T.nn.functional.softplus(z), _cf("softplus_cpu")),
    ("gelu", lambda T, z: T.nn.functional.gelu(z), _cf("GeluKernelImpl")),
    ("mish", lambda T, z: T.nn.functional.mish(z), _cf("mish_cpu")),
    ("logsigmoid", lambda T, z: T.nn.functional.logsigmoid(z), _cf("log_sigmoid_cpu")),
    ("bitwise_or", lambda T, z: z | z, _cf("bitwise_or_cpu")),
    ("bitwise_not", lambda T, z: T.bitwise_not(z), _cf("bitwise_not_cpu")),
    ("invert", lambda T, z: ~z, (TypeError, "~ (operator.invert) is only implemented on integer and Boolean-type "
                                            "tensors")),
    ("neg bool", lambda T, z: -(z.real > 0), (RuntimeError, "Negation, the `-` operator, on a bool tensor is not "
                                              "supported. If you are trying to invert a mask, use the `~` or "
                                              "`logical_not()` operator instead.")),
    ("abs bool", lambda T, z: (z.real > 0).abs(), (NotImplementedError, "\"abs_cpu\" not implemented for 'Bool'")),
    ("relu bool", lambda T, z: (z.real > 0).relu(), (RuntimeError, "Boolean inputs not supported for relu")),
    ("bitwise_and float", lambda T, z: z.real & z.real,
     (NotImplementedError, "\"bitwise_and_cpu\" not implemented for 'Float'")),
]


@pytest.mark.parametrize("name,f,expected", DTYPE_REFUSALS, ids=[c[0] for c in DTYPE_REFUSALS])
def test_ops_without_a_kernel_for_a_dtype_refuse_it_in_pytorchs_words(T, name, f, expected):
    z = T.tensor([1 + 1j, 2 - 1j, 0.5 + 0j], dtype=T.complex64)
    exc, msg = expected
    with pytest.raises(exc) as info:
        f(T, z)
    assert str(info.value).splitlines()[0] == msg


def test_refusing_complex_leaves_real_inputs_and_their_gradients_alone(T):
    # the ops above still take real floats (the fast paths included) and ints
    x = T.tensor([-1.5, 0.25, 2.0], requires_grad=True)
    y = T.maximum(x, T.tensor([0.0, 1.0, 1.0])) + x.clamp(-1, 1) + (x > 0) * x.relu() + x.floor()
    y.sum().backward()
    assert lst(y) == [-3.0, 1.5, 7.0]
    assert lst(x.grad) == [0.0, 2.0, 2.0]
    i = T.tensor([5, -3])
    assert lst(i & 6) == [4, 4] and lst(~i) == [-6, 2] and lst(abs(i)) == [5, 3] and lst(-i) == [-5, 3]
    assert lst(~T.tensor([True, False])) == [False, True]


# PyTorch's kernels of real floating point only: an integer or bool input is
# refused, where tensorplay computed in floating point (or NumPy complained)
def _nf(kernel, t):
    return NotImplementedError, f"\"{kernel}\" not implemented for '{t}'"


INT_BOOL_REFUSALS = [
    ("elu", lambda T, x: T.nn.functional.elu(x), "elu_cpu"),
    ("selu", lambda T, x: T.nn.functional.selu(x), "elu_cpu"),
    ("gelu", lambda T, x: T.nn.functional.gelu(x), "GeluKernelImpl"),
    ("leaky_relu", lambda T, x: T.nn.functional.leaky_relu(x), "leaky_relu_cpu"),
    ("rrelu", lambda T, x: T.nn.functional.rrelu(x), "leaky_relu_cpu"),
    ("rrelu training", lambda T, x: T.nn.functional.rrelu(x, training=True), "rrelu_with_noise_out_cpu"),
    ("silu", lambda T, x: T.nn.functional.silu(x), "silu_cpu"),
    ("softplus", lambda T, x: T.nn.functional.softplus(x), "softplus_cpu"),
    ("mish", lambda T, x: T.nn.functional.mish(x), "mish_cpu"),
    ("hardswish", lambda T, x: T.nn.functional.hardswish(x), "hardswish_cpu"),
    ("hardsigmoid", lambda T, x: T.nn.functional.hardsigmoid(x), "hardsigmoid_cpu"),
    ("hardshrink", lambda T, x: T.nn.functional.hardshrink(x), "hardshrink_cpu"),
    ("softshrink", lambda T, x: T.nn.functional.softshrink(x), "softshrink_check"),
    ("logsigmoid", lambda T, x: T.nn.functional.logsigmoid(x), "log_sigmoid_cpu"),
    ("glu", lambda T, x: T.nn.functional.glu(x), "glu_cpu"),
    ("bce with logits", lambda T, x: T.nn.functional.binary_cross_entropy_with_logits(x, x), "log_sigmoid_cpu"),
    ("multilabel soft margin", lambda T, x: T.nn.functional.multilabel_soft_margin_loss(x, x), "log_sigmoid_cpu"),
    ("mse", lambda T, x: T.nn.functional.mse_loss(x, x), "mse_cpu"),
    ("smooth l1", lambda T, x: T.nn.functional.smooth_l1_loss(x, x), "smooth_l1_cpu"),
    ("huber", lambda T, x: T.nn.functional.huber_loss(x, x), "huber_cpu"),
    ("frac", lambda T, x: x.frac(), "frac_cpu"),
    ("round decimals", lambda T, x: x.round(decimals=1), "round_cpu"),
]


@pytest.mark.parametrize("dtype", ["int64", "bool"])
@pytest.mark.parametrize("name,f,kernel", INT_BOOL_REFUSALS, ids=[c[0] for c in INT_BOOL_REFUSALS])
def test_float_kernels_refuse_integer_and_bool_inputs(T, name, f, kernel, dtype):
    x = T.tensor([[1, 0], [3, -4]]).to(getattr(T, dtype))
    exc, msg = _nf(kernel, "Long" if dtype == "int64" else "Bool")
    with pytest.raises(exc) as info:
        f(T, x)
    assert str(info.value).splitlines()[0] == msg


BOOL_ONLY_REFUSALS = [
    ("floor", lambda T, b: b.floor(), _nf("floor_vml_cpu", "Bool")),
    ("trunc_", lambda T, b: b.clone().trunc_(), _nf("trunc_vml_cpu", "Bool")),
    ("round", lambda T, b: b.round(), _nf("round_vml_cpu", "Bool")),
    ("median", lambda T, b: b.median(), _nf("median_cpu", "Bool")),
    ("median dim", lambda T, b: b.median(0), _nf("median_out", "Bool")),
    ("pow", lambda T, b: b ** b, _nf("pow", "Bool")),
    ("lshift", lambda T, b: b << b, _nf("lshift_cpu", "Bool")),
    ("threshold", lambda T, b: T.nn.functional.threshold(b, 1, 0), _nf("threshold_cpu", "Bool")),
    ("linear", lambda T, b: T.nn.functional.linear(b, b), _nf("addmm_impl_cpu_", "Bool")),
    ("hardtanh", lambda T, b: T.nn.functional.hardtanh(b), (RuntimeError, "Bool inputs not supported for hardtanh")),
    ("relu6", lambda T, b: T.nn.functional.relu6(b), (RuntimeError, "Bool inputs not supported for hardtanh")),
    ("kl_div", lambda T, b: T.nn.functional.kl_div(b, b, reduction="sum"),
     (RuntimeError, "kl_div: Integral inputs not supported.")),
    ("cosine_similarity", lambda T, b: T.nn.functional.cosine_similarity(b, b),
     (RuntimeError, "expected common dtype to be floating point, yet common dtype is Bool")),
    ("dropout", lambda T, b: T.nn.functional.dropout(b), (RuntimeError, "result type Float can't be cast to the "
                                                                     "desired output type Bool")),
    ("gumbel_softmax", lambda T, b: T.nn.functional.gumbel_softmax(b),
     (RuntimeError, "Exponential distribution is a continuous probability distribution. dtype must be a floating "
                    "point but you specified Bool")),
    ("float_power_", lambda T, b: b.float().float_power_(2),
     (RuntimeError, "the base given to float_power_ has dtype Float but the operation's result requires dtype "
                    "Double")),
    ("abs_ complex", lambda T, b: b.to(T.complex64).abs_(),
     (RuntimeError, "In-place abs is not supported for complex tensors.")),
    ("dropout complex", lambda T, b: T.nn.functional.dropout(b.to(T.complex64)),
     _nf("bernoulli_scalar_cpu_", "ComplexFloat")),
]


@pytest.mark.parametrize("name,f,expected", BOOL_ONLY_REFUSALS, ids=[c[0] for c in BOOL_ONLY_REFUSALS])
def test_bool_inputs_and_other_dtype_refusals(T, name, f, expected):
    b = T.tensor([[True, False], [False, True]])
    exc, msg = expected
    with pytest.raises(exc) as info:
        f(T, b)
    assert str(info.value).splitlines()[0] == msg


def test_integer_inputs_that_pytorch_takes_still_compute(T):
    i = T.tensor([3, -4])
    assert lst(i.floor()) == [3, -4] and lst(i.round()) == [3, -4] and lst(i ** 2) == [9, 16]
    assert lst(T.nn.functional.hardtanh(i)) == [1, -1] and lst(T.nn.functional.threshold(i, 0, 7)) == [3, 7]
    assert lst(T.tensor([True, False]) ** 2) == [1, 0]
    assert lst(T.nn.functional.dropout(i, p=1.0)) == [0, 0] and lst(T.nn.functional.dropout(i, p=0.0)) == [3, -4]


def test_fill_takes_a_number_or_a_0d_tensor_and_vmaps_over_the_value(T):
    x = T.zeros(2, 2)
    with pytest.raises(RuntimeError, match="^fill_ only supports 0-dimension value tensor but got tensor with 1 "
                                           "dimensions.$"):
        T.fill(x, T.tensor([1.0, 2.0]))        # (was broadcast into the rows)
    # a batch of values over one unbatched tensor (gave NumPy's broadcast error)
    assert lst(T.func.vmap(lambda v: T.fill(x, v))(T.tensor([1.0, 2.0]))) == \
        [[[1.0, 1.0], [1.0, 1.0]], [[2.0, 2.0], [2.0, 2.0]]]
    assert lst(T.func.vmap(T.func.grad(lambda v: T.fill(x, v).sum()))(T.tensor([1.0, 2.0]))) == [4.0, 4.0]


def _outcome(f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return type(e).__name__, str(e).splitlines()[0]
    return str(r.dtype).split(".")[-1], lst(r)


# the dtype refusals check the inputs' common dtype, after the checks PyTorch makes
# first, and leave alone what PyTorch computes (a review of the refusals found these)
REFUSAL_EDGES = [
    ("mse of float and int", lambda T, F: F.mse_loss(T.tensor([0.5, 1.5]), T.tensor([1, 2])), ("float32", 0.25)),
    ("huber of float and bool", lambda T, F: F.huber_loss(T.tensor([0.5, 1.5]), T.tensor([True, False])),
     ("float32", 0.5625)),
    ("mse of int8 and int32", lambda T, F: F.mse_loss(T.tensor([1], dtype=T.int8), T.tensor([1], dtype=T.int32)),
     ("NotImplementedError", "\"mse_cpu\" not implemented for 'Int'")),
    ("bool to a bool power", lambda T, F: T.tensor([True, False]) ** True, ("bool", [True, False])),
    ("bool to a bool tensor power", lambda T, F: True ** T.tensor([True]),
     ("NotImplementedError", "\"pow\" not implemented for 'Bool'")),
    ("bce of float and int", lambda T, F: F.binary_cross_entropy(T.tensor([0.5]), T.tensor([1])),
     ("RuntimeError", "Found dtype Long but expected Float")),
    ("prelu of int and float", lambda T, F: F.prelu(T.tensor([1, 2]), T.tensor([0.25])),
     ("RuntimeError", "prelu: Type promoting not supported. Got Long and Float")),
    ("clamp of complex without bounds", lambda T, F: T.tensor([1 + 1j]).clamp(),
     ("RuntimeError", "torch.clamp: At least one of 'min' or 'max' must not be None")),
    ("bitwise of half", lambda T, F: T.tensor([1.0]).half() & T.tensor([1.0]).half(),
     ("NotImplementedError", "\"bitwise_and_cpu\" not implemented for 'Half'")),
    ("rrelu of half, training", lambda T, F: F.rrelu(T.tensor([1.0]).half(), training=True),
     ("NotImplementedError", "\"rrelu_with_noise_out_cpu\" not implemented for 'Half'")),
    ("soft margin with a bool target", lambda T, F: F.soft_margin_loss(T.tensor([0.5, -1.0]), T.tensor([True, False])),
     ("float32", 0.5836120843887329)),
    ("soft margin of ints", lambda T, F: F.soft_margin_loss(T.tensor([1, 2]), T.tensor([1, -1])),
     ("RuntimeError", "result type Float can't be cast to the desired output type Long")),
    ("shift by a Python bool", lambda T, F: T.bitwise_left_shift(T.tensor([3], dtype=T.int8), True), ("int8", [6])),
    ("glu checks the halving first", lambda T, F: F.glu(T.tensor([1 + 1j, 2, 3])),
     ("RuntimeError", "Halving dimension must be even, but dimension 0 is size 3")),
    ("round of ints", lambda T, F: T.tensor([25, 35]).round(), ("int64", [25, 35])),
    ("floor_ of floats", lambda T, F: T.tensor([1.5, 2.5]).floor_(), ("float32", [1.0, 2.0])),
]


@pytest.mark.parametrize("name,f,expected", REFUSAL_EDGES, ids=[c[0] for c in REFUSAL_EDGES])
def test_dtype_refusals_at_their_edges(T, name, f, expected):
    got = _outcome(lambda: f(T, T.nn.functional))
    if isinstance(expected[1], float):
        assert got[0] == expected[0] and got[1] == pytest.approx(expected[1], rel=1e-6)
    else:
        assert got == expected


def test_soft_margin_loss_of_complex_input_computes(T):
    r = T.nn.functional.soft_margin_loss(T.tensor([0.5 + 1j, -1.0]), T.tensor([1.0, -1.0]))
    assert r.dtype == T.complex64
    assert r.item() == pytest.approx(0.33281320333480835 - 0.1834951490163803j, rel=1e-5)


def test_negative_numpy_and_0d_integers_keep_their_sign_in_integer_tensors(T):
    # the wrap that puts -1 into an unsigned tensor (255) was applied to signed ones too
    m = T.tensor([True, False])
    assert lst(T.zeros(2, dtype=T.int64).masked_fill(m, T.tensor(-1))) == [-1, 0]
    assert lst(T.zeros(2, dtype=T.int32).masked_fill(m, np.int64(-3))) == [-3, 0]
    assert lst(T.full((2,), np.int64(-1))) == [-1, -1]
    x = T.zeros(3, dtype=T.int16)
    x[1] = np.int64(-5)
    x[T.tensor([True, False, False])] = np.int32(-7)
    assert lst(x) == [-7, -5, 0]
    assert lst(T.zeros(2, dtype=T.uint8).masked_fill(m, np.int64(-1))) == [255, 0]


def test_half_precision_mul_and_div_take_the_number_at_full_precision(T):
    # PyTorch's mul/div/floor-division/lerp kernels read the original number (its
    # add, pow, comparisons round it to half first): 1e5 is inf in half, and
    # 0 * inf was NaN
    h = T.tensor([0.0, 2.25, 1e-3], dtype=T.float16)
    assert lst(h * 1e5) == [0.0, float("inf"), 100.0625] == lst(1e5 * h) == lst(h * T.tensor(1e5))
    assert lst(h / 1e-5) == [0.0, float("inf"), 100.0625]
    assert lst(T.tensor([9.9], dtype=T.float16) // 0.1) == [98.0]
    b = T.tensor([0.3, 1.7], dtype=T.bfloat16)
    assert lst(b * 0.1) == [0.030029296875, 0.169921875]
    assert lst(T.lerp(b, T.ones(2, dtype=T.bfloat16), 0.3)) == [0.51171875, 1.4921875]
    assert lst(b + 0.1) == [0.400390625, 1.8046875]      # (rounded first: as PyTorch)


def test_smaller_dtype_and_value_differences_found_by_fuzzing(T):
    i = T.tensor([-7, 3, 5])
    r = T.addcmul(i, i, i, value=2.5)           # the value in the integer dtype: 2
    assert r.dtype == T.int64 and lst(r) == [91, 21, 55]
    assert lst(T.zeros(2, dtype=T.bool).copy_(T.tensor([2j, 0j]))) == [True, False]   # (dropped the imaginary part)
    assert lst(T.arange(0, 5, 1.5, dtype=T.int64)) == [0, 1, 2, 3, 4]      # start, end, step cast first
    assert lst(T.arange(-2.7, 3, 1.9, dtype=T.int64)) == [-2, -1, 0, 1, 2]
    with pytest.raises(ValueError, match="^step must be nonzero$"):      # (int64: cast first)
        T.arange(-0.5, 3, 0.7, dtype=T.int64)
    assert lst(T.arange(0, 5, 1.5, dtype=T.int32)) == [0, 1, 2, 3]        # (the length from the floats)
    assert lst(T.arange(0, 3, 0.5, dtype=T.int32)) == [0] * 6
    assert T.tensor([True]).square().dtype == T.int64
    assert T.full((2,), T.tensor(-3)).dtype == T.int64 and T.full((2,), T.tensor(True)).dtype == T.bool
    x = T.tensor([[300.0, 400.0]], dtype=T.float16)         # x * x overflows half: computed in float32
    assert lst(T.nn.functional.cosine_similarity(x, x)) == [1.0]
    assert lst(T.nn.functional.rms_norm(x, (2,))) == [[0.8486328125, 1.1318359375]]


def test_ops_of_two_tensors_refuse_a_number_and_matmul_refuses_mixed_dtypes(T):
    f = T.tensor([1.0, 2.0])
    for name in ("maximum", "minimum", "fmax", "fmin", "atan2", "hypot", "logaddexp", "logical_and"):
        with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'other' \(position 2\) must be Tensor, not int$"):
            getattr(T, name)(f, 2)
        with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'input' \(position 1\) must be Tensor, not int$"):
            getattr(T, name)(2, f)
        with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'other' \(position 1\) must be Tensor, not int$"):
            getattr(f, name)(2)
    m = T.tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(RuntimeError, match=r"^expected m1 and m2 to have the same dtype, but got: c10::Half != float$"):
        m.half() @ m            # (computed in half before)
    with pytest.raises(IndexError, match="^tensors used as indices must be long, int, byte or bool tensors$"):
        m[T.tensor([0, 1], dtype=T.int8)]
    u8 = T.tensor([1, 2], dtype=T.uint8)       # a negative number wraps into uint8 (OverflowError before)
    assert lst(T.where(u8 > 1, u8, -1)) == [255, 2] and lst(u8.add(u8, alpha=-1)) == [0, 0]
    assert T.add(T.tensor([1, 2], dtype=T.int32), T.tensor([1, 2], dtype=T.int32), alpha=T.tensor(2)).dtype == T.int32
    loss = T.nn.functional.binary_cross_entropy(T.tensor([0.3]).half(), T.tensor([1.0]).half(),
                                                weight=T.tensor([2.0], dtype=T.float64))
    assert loss.dtype == T.float16
    with pytest.raises(RuntimeError, match="^where expected condition to be a boolean tensor, but got a tensor with "
                                           "dtype Float$"):
        T.where(f, f, f)


def test_tensor_of_python_numbers_into_an_integer_dtype_checks_the_range(T):
    # NumPy would wrap: tensor([300], dtype=uint8) was 44, tensor([nan], dtype=int64) garbage
    for data, dtype, name in (([300], "uint8", "uint8"), ([[1, 300]], "int8", "int8"), (np.int64(300), "int8", "int8"),
                              ([-1.5], "uint8", "uint8"), ([float("nan")], "int64", "int64")):
        with pytest.raises(RuntimeError, match=f"^value cannot be converted to type {name} without overflow$"):
            T.tensor(data, dtype=getattr(T, dtype))
    assert lst(T.tensor([-1], dtype=T.uint8)) == [255]          # (an integer wraps into unsigned)
    assert lst(T.tensor([1.5], dtype=T.int8)) == [1]
    assert lst(T.tensor(np.array([300]), dtype=T.int8)) == [44]   # (an array is cast, as in PyTorch)
    u8 = T.tensor([1, 2], dtype=T.uint8)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type uint8_t without overflow$"):
        T.addcmul(u8, u8, u8, value=300)
    assert lst(T.addcmul(u8, u8, u8, value=-1)) == [0, 254]


def test_numbers_into_integer_results_are_range_checked_and_index_arrays_of_any_int_type_index(T):
    u8 = T.tensor([1, 2], dtype=T.uint8)
    for f in (lambda: T.where(T.tensor([True, False]), u8, 100000), lambda: T.add(u8, u8, alpha=256)):
        with pytest.raises(RuntimeError, match="^value cannot be converted to type uint8_t without overflow$"):
            f()
    assert lst(T.arange(5)[np.array([1, 2], dtype=np.int8)]) == [1, 2]     # (NumPy indices: as int64)
    # a weight *tensor* is rounded to half (a number is not)
    s, e = T.tensor([6.404], dtype=T.float16), T.tensor([-321.0], dtype=T.float16)
    assert lst(T.lerp(s, e, T.tensor(0.1, dtype=T.float64))) == [-26.328125]
    with pytest.raises(RuntimeError, match="^step must be nonzero$"):
        T.arange(0, 5, 0, dtype=T.int64)
    with pytest.raises(TypeError):
        T.tensor([1.0]).atan2_(2.0)


def test_half_rms_norm_weight_and_0d_scalar_values(T):
    i = T.tensor([1, 2])
    r = T.addcmul(i, i, i, value=T.tensor(2.5))    # (a 0-d value takes no part in promotion)
    assert r.dtype == T.int64 and lst(r) == [3, 10]
    x = T.tensor([[0.5, -1.25, 3.0]], dtype=T.float16)
    out = T.nn.functional.rms_norm(x, (3,), weight=T.tensor([1.5, 2.0, -0.5]))
    assert out.dtype == T.float16               # (a float32 weight made it float32)
    half_in = T.tensor([[300.0, 400.0]], dtype=T.float16)
    assert lst(T.nn.functional.cosine_similarity(half_in, T.tensor([[300.0, 400.0]]))) == \
        pytest.approx([0.9999023675918579], abs=1e-7)


def test_number_parameters_take_a_0d_tensor_without_grad_only(T):
    a = T.tensor(2.0, requires_grad=True)      # (its gradient would be lost: refused)
    for f, msg in ((lambda: T.full((2,), a), r"full\(\): argument 'fill_value' \(position 2\) must be Number, not Tensor"),
                   (lambda: T.add(T.ones(2), T.ones(2), alpha=a), r"add\(\): argument 'alpha' must be Number, not Tensor"),
                   (lambda: T.sub(T.ones(2), T.ones(2), alpha=T.tensor([2.0])),
                    r"sub\(\): argument 'alpha' must be Number, not Tensor"),
                   (lambda: T.addcmul(T.ones(2), T.ones(2), T.ones(2), value=a),
                    r"addcmul\(\): argument 'value' must be Number, not Tensor")):
        with pytest.raises(TypeError, match="^" + msg + "$"):
            f()
    assert lst(T.add(T.ones(2), T.ones(2), alpha=T.tensor(3.0))) == [4.0, 4.0]


def test_a_number_divided_by_a_tensor_is_reciprocal_times_the_number(T):
    # PyTorch's __rtruediv__: its rounding (in half the number is not rounded to
    # half first: 70000 is inf there) and its graph
    h = T.tensor([0.3, 2.0, 7.0], dtype=T.float16)
    assert lst(70000 / h) == [float("inf"), 35008.0, 10000.0]
    assert lst(0.3 / T.tensor([3.0, 7.0, 11.0])) == [0.10000000894069672, 0.04285714775323868, 0.027272729203104973]
    x = T.tensor([3.0, -2.0], requires_grad=True)
    y = 2 / x
    assert type(y.grad_fn).__name__ == "MulBackward0"
    y.sum().backward()
    assert lst(x.grad) == pytest.approx([-2 / 9, -0.5])


def test_clamp_bounds_and_pow_exponents_must_fit_the_dtype(T):
    # PyTorch converts them to the tensor's dtype with its overflow check (the
    # entry's ``fits=``); NumPy wrapped them (uint8 clamp(max=300) was clamp(max=44))
    u = T.tensor([1, 2, 200], dtype=T.uint8)
    for f, ty in ((lambda: u.clamp(max=300), "uint8_t"), (lambda: T.clamp(u, 0, 300), "uint8_t"),
                  (lambda: u.clip(max=300), "uint8_t"), (lambda: u.clamp_max(256), "uint8_t"),
                  (lambda: u.clone().clamp_(max=300), "uint8_t"),
                  (lambda: u.clamp(min=-256), "uint8_t"), (lambda: u.clone().clamp_min_(-300), "uint8_t"),
                  (lambda: T.tensor([1, -2], dtype=T.int8).clamp(-200, 50), "int8_t"),
                  (lambda: T.tensor([1, 2], dtype=T.int32).clamp(max=2 ** 31), "int"),
                  (lambda: T.tensor([1, 2]).clamp(max=2 ** 63), "int64_t"),
                  (lambda: T.tensor([1.0, 2.0]).clamp(max=1e39), "float"),
                  (lambda: T.tensor([1.0], dtype=T.float16).clamp(max=65519.0), "c10::Half"),
                  (lambda: T.tensor([1.0], dtype=T.bfloat16).clamp(min=-1e39), "c10::BFloat16"),
                  (lambda: u ** 300, "uint8_t"), (lambda: T.pow(u, 256), "uint8_t"),
                  (lambda: u.clone().pow_(300), "uint8_t"),
                  (lambda: T.tensor([1, -2], dtype=T.int8) ** 200, "int8_t"),
                  (lambda: T.tensor([1, 2]) ** 2 ** 63, "int64_t"),
                  (lambda: T.tensor([1.0, 2.0], dtype=T.float16) ** 70000.0, "c10::Half"),
                  (lambda: T.tensor([1.0, 2.0], dtype=T.bfloat16) ** 1e39, "c10::BFloat16")):
        with pytest.raises(RuntimeError, match=f"^value cannot be converted to type {ty} without overflow$"):
            f()
    # what PyTorch lets through: a negative int down to -255 wraps into uint8, a float
    # bound promotes, inf and NaN, a tensor bound (converted as a C cast), a float or
    # double base's exponent (kept in double: inf), a number base (wraps)
    assert lst(u.clamp(min=-1)) == [255, 255, 255]
    assert lst(u.clamp(max=-255)) == [1, 1, 1]
    assert u.clamp(max=300.0).dtype == T.float32
    assert lst(T.tensor([1, 2], dtype=T.int8).clamp(-128, 127)) == [1, 2]
    assert lst(T.tensor([1.0, 2.0], dtype=T.float16).clamp(max=float("inf"))) == [1.0, 2.0]
    assert lst(T.tensor([1.0, 2.0], dtype=T.float16).clamp(max=65504.0)) == [1.0, 2.0]
    assert lst(u.clamp(max=T.tensor(300))) == [1, 2, 44]
    assert lst(T.tensor([1.0, 2.0]) ** 1e39) == [1.0, float("inf")]
    assert lst(T.tensor([1.0, 2.0], dtype=T.float16) ** 65504.0) == [1.0, float("inf")]
    assert lst(300 ** u) == [44, 144, 0]
    assert lst(T.tensor([1, -2, 100], dtype=T.int8) ** 127) == [1, 0, 0]
    b = T.tensor([True, False])
    assert lst(b.clamp(max=300)) == [1, 0] and b.clamp(max=300).dtype == T.int64
    assert lst(b ** 300) == [1, 0]


def test_number_parameters_converted_with_pytorchs_range_check(T):
    F = T.nn.functional
    u = T.tensor([1, 2, 200], dtype=T.uint8)
    h = T.tensor([1.0, 2.0], dtype=T.float16)
    f = T.tensor([1.0, 2.0])
    for fn, ty in ((lambda: F.threshold(u, 300, 2), "uint8_t"), (lambda: F.threshold(h, 1.0, 1e6), "c10::Half"),
                   (lambda: F.threshold(h, 1e39, 1.0), "float"),     # (the threshold: in float32)
                   (lambda: F.threshold(f, 1e39, 0.0), "float"),
                   (lambda: F.hardtanh(h, -1e6, 1e6), "c10::Half"), (lambda: F.hardtanh(f, -1e39, 1.0), "float"),
                   (lambda: F.hardshrink(h, 1e6), "c10::Half"), (lambda: h.add(h, alpha=1e6), "c10::Half"),
                   (lambda: T.sub(h, h, alpha=1e6), "c10::Half"), (lambda: f.add(f, alpha=1e39), "float"),
                   (lambda: h.scatter(0, T.tensor([0]), 1e6), "c10::Half"),
                   (lambda: u.scatter(0, T.tensor([0]), 300), "uint8_t"),
                   (lambda: T.where(f > 0, f, 1e39), "float"), (lambda: T.where(u > 1, u, 300), "uint8_t"),
                   (lambda: T.linspace(0, 300, 3, dtype=T.uint8), "uint8_t"),
                   (lambda: T.linspace(0, 70000.0, 2, dtype=T.float16), "c10::Half"),
                   (lambda: T.logspace(0, 300, 2, dtype=T.uint8), "uint8_t")):
        with pytest.raises(RuntimeError, match=f"^value cannot be converted to type {ty} without overflow$"):
            fn()
    for fn, msg in ((lambda: F.softshrink(h, 1e6), r"lambda must be in range \[0, 65504\] for input dtype Half, but found 1e\+06"),
                    (lambda: F.softshrink(f, -0.5), r"lambda must be in range \[0, 3.40282e\+38\] for input dtype Float, but found -0.5"),
                    (lambda: F.softshrink(h, float("nan")), r"lambda must be in range \[0, 65504\] for input dtype Half, but found nan"),
                    (lambda: T.randint(0, 300, (2,), dtype=T.uint8), "to - 1 is out of bounds for unsigned char"),
                    (lambda: T.randint(-129, 0, (2,), dtype=T.int8), "from is out of bounds for signed char"),
                    (lambda: T.randint(0, 2 ** 15 + 1, (2,), dtype=T.int16), "to - 1 is out of bounds for short int"),
                    (lambda: T.randint(0, 3, (2,), dtype=T.bool), "to - 1 is out of bounds for bool"),
                    (lambda: T.randint(0, 70000, (2,), dtype=T.float16), r"to - 1 is out of bounds for c10::Half")):
        with pytest.raises(RuntimeError, match="^" + msg + "$"):
            fn()
    # what PyTorch lets through: a half or bfloat16 where takes a large number as inf,
    # a negative int wraps into uint8 (linspace from 255), a double takes 1e39
    assert lst(T.where(h > 0, h, 1e39)) == [1.0, 2.0]
    assert lst(T.where(h < 0, h, 1e6)) == [float("inf")] * 2
    assert lst(F.threshold(u, 1, -1)) == [255, 2, 200]
    assert lst(F.threshold(h, 1e6, 1.0)) == [1.0, 1.0]
    assert lst(F.hardshrink(h, float("inf"))) == [0.0, 0.0]
    assert lst(h.add(h, alpha=65504.0)) == [65504.0, float("inf")]
    assert lst(u.scatter(0, T.tensor([0]), -1)) == [255, 2, 200]
    assert lst(T.linspace(-1, 1, 3, dtype=T.uint8)) == [255, 128, 1]
    assert lst(T.linspace(0, 1e39, 2, dtype=T.float64)) == [0.0, 1e39]
    assert T.randint(0, 256, (2,), dtype=T.uint8).dtype == T.uint8
    assert lst(T.isclose(h, h, atol=1e6)) == [True, True]    # (and no NumPy overflow warning)


def test_dtype_refusals_and_values_found_by_a_reduction_sweep(T):
    b = T.tensor([True, False])
    for f in (lambda: +b, lambda: T.positive(b), lambda: b.positive()):
        with pytest.raises(RuntimeError, match=r"^The `\+` operator, on a bool tensor is not supported\.$"):
            f()
    i = T.tensor([[1, 2], [3, 5]])
    for f, name in ((T.var_mean, "var_mean"), (T.std_mean, "std_mean")):
        with pytest.raises(RuntimeError, match=f"^{name} only support floating point and complex dtypes$"):
            f(i, 1)
    with pytest.raises(RuntimeError, match="^nansum on CPU does not support complex inputs$"):
        T.nansum(T.tensor([1 + 1j]), dtype=T.float64)   # (refused before the cast)
    assert lst(T.msort(T.tensor([[3, 1], [0, 2]]))) == [[0, 1], [3, 2]]
    assert lst(T.isreal(T.tensor([1 + 0j, 1j]))) == [True, False]
    assert lst(T.tensor([1.0, float("nan")]).isreal()) == [True, True]


@pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")
def test_kernels_refuse_the_dtypes_pytorchs_refuse(T):
    # found by calling each function with every dtype on both libraries: these
    # computed something (batch_norm of integers, an int32 average pool, lerp of
    # integers in float...) or leaked NumPy's casting error
    F = T.nn.functional
    i, b, c = T.ones(2, 3, 4, dtype=T.int32), T.ones(2, 3, 4, dtype=T.bool), T.ones(2, 3, 4, dtype=T.complex64)
    for f, exc, msg in (
            (lambda: F.batch_norm(i, None, None, training=True), NotImplementedError,
             "\"batch_norm\" not implemented for 'Int'"),
            (lambda: F.batch_norm(c, None, None, training=True), NotImplementedError,
             "\"batch_norm\" not implemented for 'ComplexFloat'"),
            (lambda: F.instance_norm(b), NotImplementedError, "\"batch_norm\" not implemented for 'Bool'"),
            (lambda: F.layer_norm(i, (4,)), NotImplementedError, "\"LayerNormKernelImpl\" not implemented for 'Int'"),
            (lambda: F.group_norm(c, 1), NotImplementedError,
             "\"GroupNormKernelImpl\" not implemented for 'ComplexFloat'"),
            (lambda: F.avg_pool2d(T.ones(1, 1, 2, 2, dtype=T.int32), 2), NotImplementedError,
             "\"avg_pool2d\" not implemented for 'Int'"),
            (lambda: F.avg_pool1d(T.ones(1, 1, 2, dtype=T.uint8), 2), NotImplementedError,
             "\"avg_pool2d\" not implemented for 'Byte'"),
            (lambda: T.cdist(T.ones(2, 2, dtype=T.float16), T.ones(2, 2, dtype=T.float16)), NotImplementedError,
             "\"cdist\" not implemented for 'Half'"),
            (lambda: T.ones(3, dtype=T.bool).topk(1), RuntimeError, "topk does not support bool dtypes on CPU"),
            (lambda: T.ones(3, dtype=T.complex64).topk(1), RuntimeError,
             " topk does not support complex dtypes on CPU"),
            (lambda: T.ones(3, dtype=T.bool).kthvalue(1), NotImplementedError,
             "\"kthvalue_cpu\" not implemented for 'Bool'"),
            (lambda: T.bucketize(T.ones(2, dtype=T.bool), T.ones(3, dtype=T.bool)), NotImplementedError,
             "\"searchsorted_out_cpu\" not implemented for 'Bool'"),
            (lambda: T.lerp(T.ones(2, dtype=T.int64), T.ones(2, dtype=T.int64), 0.5), NotImplementedError,
             "\"lerp_kernel_scalar\" not implemented for 'Long'"),
            (lambda: T.lerp(T.ones(2), T.ones(2), 0.5j), RuntimeError,
             "value cannot be converted to type float without overflow"),
            (lambda: T.ones(2, dtype=T.bool).index_reduce(0, T.tensor([0]), T.ones(1, dtype=T.bool), "prod"),
             NotImplementedError, "\"index_func_\" not implemented for 'Bool'"),
            (lambda: T.linalg.cross(T.ones(3, dtype=T.bool), T.ones(3, dtype=T.bool)), NotImplementedError,
             "\"cross\" not implemented for 'Bool'"),
            (lambda: F.pad(b, (1, 1, 1, 1), mode="reflect"), NotImplementedError,
             "\"reflection_pad2d\" not implemented for 'Bool'"),
            (lambda: T.normal(0.0, T.ones(2, dtype=T.complex64)), RuntimeError,
             "normal expects standard deviation to be non-complex"),
            (lambda: T.bernoulli(T.ones(2, dtype=T.complex64)), NotImplementedError,
             "\"bernoulli_tensor_cpu_self_\" not implemented for 'ComplexFloat'"),
            (lambda: T.bernoulli(T.ones(2, dtype=T.complex64), 0.5), NotImplementedError,
             "\"bernoulli_scalar_cpu_\" not implemented for 'ComplexFloat'"),
            (lambda: T.multinomial(T.ones(2, dtype=T.complex64), 1), RuntimeError,
             "multinomial only supports floating-point dtypes for input, got: ComplexFloat"),
            (lambda: T.randint_like(T.ones(2, dtype=T.complex64), 2), RuntimeError,
             "check_random_bounds handles only integral, floating-point and boolean types"),
            (lambda: F.scaled_dot_product_attention(i, i, i), RuntimeError, "expected scalar type Float but found Int"),
            (lambda: F.scaled_dot_product_attention(c, c, c), NotImplementedError,
             "\"softmax_lastdim_kernel_impl\" not implemented for 'ComplexFloat'")):
        with pytest.raises(exc, match="^" + __import__("re").escape(msg) + "$"):
            f()
    # what PyTorch computes: an int64 average pool, circular padding of bools, a lerp
    # weight in float for half (1e6 is no overflow), a complex lerp weight for complex
    assert lst(F.avg_pool2d(T.tensor([[[[1, 2], [4, 6]]]]), 2)) == [[[[3]]]]
    assert F.pad(b, (1, 1), mode="circular").dtype == T.bool
    assert lst(T.lerp(T.ones(2, dtype=T.float16), T.ones(2, dtype=T.float16) * 3, 1e6)) == [float("inf")] * 2
    assert lst(T.lerp(T.ones(2, dtype=T.complex64), 3 * T.ones(2, dtype=T.complex64), 0.5j)) == [1 + 1j] * 2


def test_number_parameters_refuse_tensors(T):
    F = T.nn.functional
    x = T.tensor([0.5, -1.0, 2.0])
    for f, msg in ((lambda: F.elu(x, T.ones(2)), "elu(): argument 'alpha' (position 2) must be Number, not Tensor"),
                   (lambda: F.leaky_relu(x, T.tensor(0.1, requires_grad=True)),
                    "leaky_relu(): argument 'negative_slope' (position 2) must be Number, not Tensor"),
                   (lambda: F.softplus(x, 1, T.ones(2)),
                    "softplus(): argument 'threshold' (position 3) must be Number, not Tensor"),
                   (lambda: F.celu(x, T.ones(2)), "celu(): argument 'alpha' (position 2) must be Number, not Tensor"),
                   (lambda: F.hardshrink(x, T.ones(2)),
                    "hardshrink(): argument 'lambd' (position 2) must be Number, not Tensor"),
                   (lambda: F.rrelu(x, T.ones(2)), "rrelu(): argument 'lower' (position 2) must be Number, not Tensor"),
                   (lambda: F.threshold(x, T.ones(2), 1.0),
                    "threshold(): argument 'threshold' (position 2) must be Number, not Tensor"),
                   (lambda: T.logit(x, T.ones(2)), "logit(): argument 'eps' (position 2) must be float, not Tensor")):
        with pytest.raises(TypeError, match="^" + __import__("re").escape(msg) + "$"):
            f()
    with pytest.raises(RuntimeError, match="^Lower bound should be less than or equal to the upper bound$"):
        F.rrelu(x, 0.5, 0.1)
    # a 0-d tensor that needs no gradient is its number
    assert lst(F.elu(x, T.tensor(2.0))) == lst(F.elu(x, 2.0))
    assert lst(F.threshold(x, T.tensor(0.6), T.tensor(9.0))) == [9.0, 9.0, 2.0]
    assert lst(T.logit(T.tensor([0.0, 0.5]), T.tensor(0.25))) == pytest.approx([math.log(1 / 3), 0.0])


def test_tensor_and_number_arguments_are_checked(T):
    F = T.nn.functional
    x = T.tensor([[1.0, 2.0, 0.0], [3.0, 1.0, 2.0]])
    for f, msg in ((lambda: T.full_like(x, x), "full_like(): argument 'fill_value' (position 2) must be Number, not Tensor"),
                   (lambda: F.poisson_nll_loss(x, 1), "poisson_nll_loss(): argument 'target' (position 2) must be Tensor, not int"),
                   (lambda: F.hinge_embedding_loss(x, 1),
                    "hinge_embedding_loss(): argument 'target' (position 2) must be Tensor, not int"),
                   (lambda: F.kl_div(x, 1, reduction="sum"), "kl_div(): argument 'target' (position 2) must be Tensor, not int"),
                   (lambda: F.cross_entropy(x, 1), "cross_entropy_loss(): argument 'target' (position 2) must be Tensor, not int"),
                   (lambda: F.pairwise_distance(x, 1), "pairwise_distance(): argument 'x2' (position 2) must be Tensor, not int"),
                   (lambda: F.cosine_similarity(x, 1), "cosine_similarity(): argument 'x2' (position 2) must be Tensor, not int"),
                   (lambda: F.triplet_margin_loss(x, x, 1),
                    "triplet_margin_loss(): argument 'negative' (position 3) must be Tensor, not int"),
                   (lambda: T.atleast_1d(x, 1), "expected Tensor as element 1 in argument 0, but got int")):
        with pytest.raises(TypeError, match="^" + __import__("re").escape(msg) + "$"):
            f()
    with pytest.raises(TypeError, match=r"^where\(\) received an invalid combination of arguments - got \(Tensor, Tensor\)"):
        T.where(x > 1, x)           # (it computed, with 0 for the missing side)
    assert lst(T.full_like(x, T.tensor(2.0))) == [[2.0] * 3] * 2
    a, b = T.atleast_2d(x[0], x[1, 0])
    assert a.shape == (1, 3) and b.shape == (1, 1)
    assert [t.shape for t in T.atleast_3d([x, x[0]])] == [(2, 3, 1), (1, 3, 1)]


def test_in_place_methods_against_pytorch(T):
    x = T.ones(2, dtype=T.int64)
    assert lst(x.clone().copy_(0.5)) == [0, 0]          # (a number fills, as PyTorch's copy_)
    assert lst(T.ones(2, dtype=T.bool).copy_(0)) == [False, False]
    T.set_warn_always(True)             # (a warn-once warning: another test may have had it)
    try:
        with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
            assert lst(T.zeros(2).copy_(1 + 2j)) == [1.0, 1.0]
    finally:
        T.set_warn_always(False)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place"):
        T.ones(2, requires_grad=True).copy_(2.0)
    assert T.conj_physical(T.ones(2, dtype=T.bool)).dtype == T.bool     # (it was int8)
    for f, ty in ((lambda: T.tril(T.ones(2, 2), 1.0), "float"), (lambda: T.triu(T.ones(2, 2), True), "bool")):
        with pytest.raises(TypeError, match=r"^t(ril|riu)\(\): argument 'diagonal' \(position 2\) must be int, "
                                            f"not {ty}$"):
            f()
    assert lst(T.ones(2, 2).triu_(T.tensor(1))) == [[0.0, 1.0], [0.0, 0.0]]
    with pytest.raises(NotImplementedError, match="^\"bernoulli_scalar_cpu_\" not implemented for 'ComplexFloat'$"):
        T.ones(2, dtype=T.complex64).bernoulli_()


def test_complex_autodiff_refused_where_pytorch_refuses_it(T):
    # PyTorch computes these for complex inputs but has no complex derivative for
    # them: a gradient here would be ours alone (silu's was a plausible number)
    x = T.tensor([0.7 + 0.2j, -1.3 + 0.5j], requires_grad=True)
    for f, name in ((lambda: T.nn.functional.silu(x), "silu"), (lambda: T.nan_to_num(x), "nan_to_num"),
                    (lambda: T.normal(x, 1.0), "normal")):
        with pytest.raises(RuntimeError, match=f"^{name} does not support automatic differentiation for outputs "
                                               "with complex dtype\\.$"):
            f()
    with T.no_grad():
        assert T.nn.functional.silu(x).dtype == T.complex64
    assert lst(T.nan_to_num(x.detach())) == pytest.approx([0.7 + 0.2j, -1.3 + 0.5j])
    # a half determinant: PyTorch's LU kernel refuses it first
    for f in (lambda: T.linalg.det(T.eye(2, dtype=T.float16)), lambda: T.linalg.solve(T.eye(2, dtype=T.float16),
                                                                                     T.eye(2, dtype=T.float16))):
        with pytest.raises(NotImplementedError, match="^\"lu_cpu\" not implemented for 'Half'$"):
            f()


def test_elu_second_derivative_at_zero_is_pytorchs(T):
    # the first derivative at 0 is the negative branch's (alpha), the second is 0:
    # PyTorch's elu_double_backward masks with x < 0 (ours was alpha)
    x = T.tensor([0.0, -1.0, 2.0], dtype=T.float64, requires_grad=True)
    # (celu(x, 0.5) = 0.5 * (exp(2x) - 1) below 0: slope 1 at 0, curvature 2 exp(2x))
    for f, second_at_minus_1 in ((lambda x: T.nn.functional.elu(x), math.exp(-1.0)),
                                 (lambda x: T.nn.functional.celu(x, 0.5), 2 * math.exp(-2.0))):
        g, = T.autograd.grad(f(x).sum(), x, create_graph=True)
        assert lst(g)[0] == 1.0
        h, = T.autograd.grad(g.sum(), x)
        assert lst(h)[0] == 0.0 and lst(h)[2] == 0.0
        assert lst(h)[1] == pytest.approx(second_at_minus_1, rel=1e-12)


def test_nearest_interpolation_of_uint8_images(T):
    # PyTorch resizes uint8 images with the nearest modes (copies); other integer
    # dtypes are refused in the words of its kernel for the rank
    F = T.nn.functional
    x = (T.arange(2 * 3 * 5 * 7) % 251).reshape(2, 3, 5, 7).to(T.uint8)
    r = F.interpolate(x, size=(13, 5), mode="nearest")
    assert r.dtype == T.uint8 and lst(r.float()) == lst(F.interpolate(x.float(), size=(13, 5), mode="nearest"))
    assert lst(F.interpolate(x[0], size=11, mode="nearest-exact").float()) == \
        lst(F.interpolate(x[0].float(), size=11, mode="nearest-exact"))
    for shape, mode, kernel in (((1, 3, 2, 2), "nearest", "upsample_nearest2d_channels_last"),
                                ((1, 3, 2), "nearest", "compute_indices_weights_nearest"),
                                ((1, 3, 2, 2), "bilinear", "upsample_bilinear2d_channels_last"),
                                ((1, 1, 2, 2, 2), "trilinear", "compute_indices_weights_linear")):
        with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for 'Char'$"):
            F.interpolate(T.ones(shape, dtype=T.int8), scale_factor=2, mode=mode)


def test_size_arguments_are_required(T):
    x = T.ones(2)
    for f, name in ((lambda: x.new_zeros(), "new_zeros"), (lambda: x.new_empty(), "new_empty"),
                    (lambda: x.sum_to_size(), "sum_to_size")):        # (they gave a 0-d tensor)
        with pytest.raises(TypeError, match=f"^{name}\\(\\) missing 1 required positional arguments: \"size\"$"):
            f()
    assert x.new_zeros(()).shape == () and lst(x.sum_to_size(())) == 2.0
    assert lst(x.new_ones(size=(2,))) == [1.0, 1.0]


def test_adaptive_average_pool_to_one_is_a_mean(T):
    # PyTorch's shortcut, ahead of its checks: any rank of 2 or more, complex too,
    # integers refused in mean's words, MeanBackward1 as the node
    F = T.nn.functional
    x = T.arange(2 * 3 * 4 * 5.0).reshape(2, 3, 4, 5).requires_grad_()
    assert type(F.adaptive_avg_pool2d(x, 1).grad_fn).__name__ == "MeanBackward1"
    assert type(F.adaptive_avg_pool2d(x, 2).grad_fn).__name__ == "AdaptiveAvgPool2DBackward0"
    assert lst(F.adaptive_avg_pool2d(T.arange(20.0).reshape(5, 4), 1)) == [[9.5]]
    assert lst(F.adaptive_avg_pool1d(T.ones(2, 3, dtype=T.complex64), 1)) == [[1 + 0j], [1 + 0j]]
    with pytest.raises(RuntimeError, match=r"^mean\(\): could not infer output dtype"):
        F.adaptive_avg_pool2d(T.ones(2, 3, 4, dtype=T.int64), 1)
    with pytest.raises(NotImplementedError, match="^\"adaptive_avg_pool2d\" not implemented for 'ComplexFloat'$"):
        F.adaptive_avg_pool2d(T.ones(2, 3, 4, dtype=T.complex64), 2)


def test_module_messages_found_by_a_sweep(T):
    F = T.nn.functional
    # bilinear named the wrong input and sizes ("got 2 but expected 2")
    for f, msg in ((lambda: F.bilinear(T.ones(5, 3), T.ones(5, 4), T.ones(4, 2, 3)),
                    "bilinear(): input1 size does not match weight size: got 3 but expected 2"),
                   (lambda: F.bilinear(T.ones(5, 2), T.ones(5, 4), T.ones(4, 2, 3)),
                    "bilinear(): input2 size does not match weight size: got 4 but expected 3"),
                   (lambda: F.bilinear(T.ones(5, 2), T.ones(4, 3), T.ones(4, 2, 3)),
                    "bilinear(): input batch dimensions do not match at dim 0: got 5 and 4"),
                   (lambda: T.nn.Linear(3, 2)(T.ones(2, 3, dtype=T.int64)),
                    "mat1 and mat2 must have the same dtype, but got Long and Float"),
                   (lambda: T.nn.Parameter(T.ones(2, dtype=T.int64)),
                    "Only Tensors of floating point and complex dtype can require gradients"),
                   (lambda: F.cross_entropy(T.ones(2, 3), T.tensor([0, 1]), label_smoothing=2),
                    "label_smoothing must be between 0.0 and 1.0. Got: 2")):
        with pytest.raises(RuntimeError, match="^" + __import__("re").escape(msg) + "$"):
            f()
    with pytest.raises(ValueError, match=r"^num_channels \(4\) must be divisible by num_groups \(3\)$"):
        T.nn.GroupNorm(3, 4)
    assert F.bilinear(T.ones(5, 2), T.ones(5, 3), T.ones(4, 2, 3)).shape == (5, 4)


def test_negative_sizes_are_refused_in_pytorchs_words(T):
    # NumPy's "negative dimensions are not allowed" (a ValueError) leaked before
    for f in (lambda: T.ones(2, -1), lambda: T.empty(-2), lambda: T.full((2, -1), 1.0), lambda: T.rand(2, -1),
              lambda: T.randn(-1), lambda: T.randint(0, 2, (2, -1)), lambda: T.ones(1).new_zeros(2, -1)):
        with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -\d: \[(\d, )?-\d\]$"):
            f()
    with pytest.raises(RuntimeError, match=r"^zeros: Dimension size must be non-negative\.$"):
        T.zeros(2, -1)
    with pytest.raises(RuntimeError, match="^n must be greater or equal to 0, got -1$"):
        T.eye(-1)
    assert T.zeros(2, 0).shape == (2, 0)


def test_item_assignment_of_an_array_names_its_type(T):
    x = T.ones(3)
    with pytest.raises(TypeError, match=r"^can't assign a numpy\.ndarray to a (torch|tensorplay)\.FloatTensor$"):
        x[:2] = np.array([1.0, 2.0])
    with pytest.raises(TypeError, match=r"^can't assign a list to a (torch|tensorplay)\.FloatTensor$"):
        x[:2] = [1.0, 2.0]


def test_warnings_from_ops_point_at_the_callers_line(T):
    # (they named ops/__init__.py, ops/_registry.py... whatever sat at a fixed depth)
    import warnings
    x = T.ones(2, 3, 4)
    calls = [lambda: T.ones(3).var(correction=5), lambda: (T.ones(2, requires_grad=True) * 2).grad]
    if T.__name__ == "tensorplay":      # (PyTorch gives its x.T warning once a process)
        calls.append(lambda: x.T)
    for f in calls:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            f()
        assert len(w) == 1 and w[0].category is UserWarning
        assert w[0].filename == __file__, w[0].filename


# the argument types PyTorch's parser refuses, in its words (each was taken before)
_ARG_TYPE_ERRORS = [
    ("T.flip(x, 1)", "flip(): argument 'dims' (position 2) must be tuple of ints, not int"),
    ("T.flip(x, [True])", "flip(): argument 'dims' (position 2) must be tuple of ints, but found element of "
                          "type bool at pos 0"),
    ("T.flip(x, 0, 1)", "flip() takes 2 positional arguments but 3 were given"),
    ("x.flip(0.0)", "flip(): argument 'dims' (position 1) must be tuple of ints, not float"),
    ("T.tile(x, 1)", "tile(): argument 'dims' (position 2) must be tuple of ints, not int"),
    ("T.tile(x, [True])", "tile(): argument 'dims' (position 2) must be tuple of ints, but found element of "
                          "type bool at pos 0"),
    ("x.tile(1.0)", "tile(): argument 'dims' (position 1) must be tuple of ints, not float"),
    ("T.reshape(x, 6)", "reshape(): argument 'shape' (position 2) must be tuple of ints, not int"),
    ("T.reshape(x, (6.0,))", "reshape(): argument 'shape' (position 2) must be tuple of ints, but found "
                             "element of type float at pos 0"),
    ("x.reshape(6.0)", "reshape(): argument 'shape' (position 1) must be tuple of ints, not float"),
    ("x.reshape([6.0])", "reshape(): argument 'shape' (position 1) must be tuple of ints, but found element "
                         "of type float at pos 0"),
    ("T.permute(x, 1)", "permute(): argument 'dims' (position 2) must be tuple of ints, not int"),
    ("T.permute(x, 1, 0)", "permute() takes 2 positional arguments but 3 were given"),
    ("x.permute(1, 0.0)", "permute(): argument 'dims' failed to unpack the object at pos 2 with error "
                          "\"type must be tuple of ints,but got float\""),
    ("T.rot90(x, 1, 0)", "rot90(): argument 'dims' (position 3) must be tuple of ints, not int"),
    ("T.broadcast_to(x, 3)", "broadcast_to(): argument 'size' (position 2) must be tuple of ints, not int"),
    ("T.unflatten(x, 1, 3)", "unflatten(): argument 'sizes' (position 3) must be tuple of ints, not int"),
    ("x.unflatten(1, 3)", "unflatten(): argument 'sizes' (position 2) must be tuple of ints, not int"),
    ("T.split(x, 1.0)", "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, "
                        "not float"),
    ("T.unique(x, 1)", "_unique2(): argument 'sorted' must be bool, not int"),
    ("T.unique(x, True, 1)", "_unique2(): argument 'return_inverse' must be bool, not int"),
    ("T.unique(x, dim=0, sorted=1)", "unique_dim(): argument 'sorted' must be bool, not int"),
    ("x.cpu(1)", "cpu() takes 0 positional arguments but 1 was given"),
    ("x.type(x)", "dtype must be a type, str, or dtype object"),
    ("x.tril(0.5)", "tril(): argument 'diagonal' (position 1) must be int, not float"),
    ("T.tril(x, 0.5)", "tril(): argument 'diagonal' (position 2) must be int, not float"),
    ("T.renorm(x, 2, 0., 1.)", "renorm(): argument 'dim' (position 3) must be int, not float"),
    ("T.xlogy(2., 3.)", "xlogy() received an invalid combination of arguments - got (float, float), but "
                        "expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Number "
                        "self, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor "
                        "out = None)\n"),
    ("T.special.xlog1py(2., 3)", "special_xlog1py() received an invalid combination of arguments - got "
                                 "(float, int), but expected one of:\n * (Tensor input, Tensor other, *, Tensor "
                                 "out = None)\n * (Number self, Tensor other, *, Tensor out = None)\n * (Tensor "
                                 "input, Number other, *, Tensor out = None)\n"),
    ("T.movedim(x, (0,), 1)", "movedim() received an invalid combination of arguments - got (Tensor, tuple, "
                              "int), but expected one of:\n * (Tensor input, int source, int destination)\n"
                              "      didn't match because some of the arguments have invalid types: (Tensor, "
                              "!tuple of (int,)!, int)\n * (Tensor input, tuple of ints source, tuple of ints "
                              "destination)\n      didn't match because some of the arguments have invalid "
                              "types: (Tensor, !tuple of (int,)!, !int!)\n"),
]


@pytest.mark.parametrize("expr,msg", _ARG_TYPE_ERRORS, ids=[e for e, _ in _ARG_TYPE_ERRORS])
def test_argument_types_are_refused_in_pytorchs_words(T, expr, msg):
    x = T.ones(2, 3)
    with pytest.raises(TypeError) as e:
        eval(expr, {"T": T, "x": x})
    assert str(e.value) == msg


def test_sequence_forms_still_taken(T):
    x = T.ones(2, 3)
    assert tuple(T.flip(x, (0, 1)).shape) == (2, 3) and tuple(x.flip(0, 1).shape) == (2, 3)
    assert tuple(T.tile(x, (2, 1)).shape) == (4, 3) and tuple(x.tile(2, 1).shape) == (4, 3)
    assert tuple(T.tile(x, dims=(2,)).shape) == (2, 6)
    assert tuple(T.reshape(x, (3, 2)).shape) == (3, 2) and tuple(x.reshape(3, 2).shape) == (3, 2)
    assert tuple(T.permute(x, (1, 0)).shape) == (3, 2) and tuple(x.permute(1, 0).shape) == (3, 2)
    assert tuple(T.take_along_dim(x, T.zeros(2, 1, dtype=T.int32)).shape) == (2,)   # (dim None: int32 too)
    assert tuple(T.unique(x, False).shape) == (1,)
    assert x.round(decimals=1).tolist() == x.tolist()


def test_var_gradient_without_degrees_of_freedom(T):
    """PyTorch's var_backward: a full reduction with n <= correction gives inf (NaN
    where x is its mean); over a dim the factor 2 / (n - correction) as it comes."""
    import warnings
    x = T.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = [T.autograd.grad(T.var(x, dim=1, correction=c).sum(), x)[0].tolist() for c in (2, 3)]
        full = T.autograd.grad(T.var(T.tensor([1.0, 2.0, 2.0], requires_grad=True) * 1, correction=3),
                               x, allow_unused=True)
        w = T.tensor([1.0, 3.0, 2.0], requires_grad=True)
        gw = T.autograd.grad(T.var(w, correction=3), w)[0].tolist()
    inf = float("inf")
    assert g == [[[-inf, inf], [-inf, inf]], [[1.0, -1.0], [2.0, -2.0]]]
    assert full == (None,)
    assert gw[0] == inf and gw[1] == inf and gw[2] != gw[2]        # (w[2] is the mean: NaN)


def test_prod_gradient_with_two_zeros(T):
    """Two zeros: every product of the others is 0, and PyTorch answers zeros (even
    for an infinite upstream gradient) unless it records for a higher order."""
    z = T.tensor([0.0, 0.0, 2.0], requires_grad=True)
    assert T.autograd.grad(z.prod(), z, T.tensor(float("inf")))[0].tolist() == [0.0, 0.0, 0.0]
    g, = T.autograd.grad(z.prod(), z, T.tensor(float("inf")), create_graph=True)
    assert all(v != v for v in g.tolist())


def test_nan_parameters_are_refused(T):
    x = T.ones(3, 2)
    with pytest.raises(RuntimeError, match=exact("renorm: expected maxnorm to be >= 0 but got nan")):
        T.renorm(x, 2, 0, float("nan"))
    with pytest.raises(RuntimeError, match=exact("renorm: non-positive-norm not supported")):
        T.renorm(x, float("nan"), 0, 1.0)
    with pytest.raises(RuntimeError, match=exact("pdist only supports non-negative p values")):
        T.pdist(x, p=float("nan"))


def test_two_numbers_compute_in_their_promoted_dtype(T):
    """PyTorch makes the numbers tensors (floats of the default dtype): mul(2., 3) is
    float32, not NumPy's float64."""
    assert T.mul(2.0, 3).dtype == T.float32 and T.add(2j, 1).dtype == T.complex64
    assert T.add(2, 3).dtype == T.int64 and T.div(1, 2).dtype == T.float32
    assert T.add(1, 2.5, alpha=2).tolist() == 6.0
