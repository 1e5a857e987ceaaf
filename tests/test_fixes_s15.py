"""Regressions for results that were wrong without an error (session 15)."""
import numpy as np
import pytest

import tensorplay as tp


def test_float16_logsumexp_jvp_weights_from_the_maximum():
    # weights exp(x - r) with r the float16-rounded result were 5% off near 300
    x = np.array([300.0, 299.5, 298.0], np.float16)
    t = np.array([1.0, 0.5, -0.25], np.float16)
    _, jt = tp.func.jvp(lambda a: tp.logsumexp(a, 0), (tp.tensor(x),), (tp.tensor(t),))
    x64 = x.astype(np.float64)
    w = np.exp(x64 - x64.max())
    expect = (w * t).sum() / w.sum()
    assert jt.dtype == tp.float16
    assert abs(float(jt) - expect) < 2e-3


@pytest.mark.parametrize("dim,keepdim", [(0, False), (1, True), ((0, 1), False), (-1, False)])
def test_logsumexp_jvp_matches_finite_differences_with_minus_inf(dim, keepdim):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4)) * 3
    x[1, 2] = -np.inf
    t = rng.standard_normal((3, 4))
    f = lambda a: tp.logsumexp(a, dim, keepdim)      # noqa: E731
    _, jt = tp.func.jvp(f, (tp.tensor(x),), (tp.tensor(t),))
    eps = 1e-6
    fd = (f(tp.tensor(x + eps * t)).numpy() - f(tp.tensor(x - eps * t)).numpy()) / (2 * eps)
    np.testing.assert_allclose(jt.numpy(), fd, rtol=1e-6, atol=1e-8)


def _bag_max_reference(W, idx, offs, pad):
    """PyTorch's CPU kernel, one bag at a time: keep an entry when it is the bag's
    first or greater than the kept one (so a NaN is kept only when first)."""
    bounds = list(offs) + [len(idx)]
    out = np.zeros((len(offs), W.shape[1]))
    grad = np.zeros_like(W)
    for b in range(len(offs)):
        for c in range(W.shape[1]):
            kept = None
            for i in idx[bounds[b]:bounds[b + 1]]:
                if i == pad:
                    continue
                if kept is None or W[i, c] > W[kept, c]:
                    kept = i
            if kept is not None:
                out[b, c] = W[kept, c]
                grad[kept, c] += 1
    return out, grad


def test_embedding_bag_max_with_nan_and_inf_follows_the_kernels_walk():
    rng = np.random.default_rng(0)
    vals = [1.0, 2.0, np.nan, -np.inf, np.inf, 0.5, 2.0]
    for trial in range(150):
        W = rng.choice(vals, size=(5, 2))
        n = int(rng.integers(1, 7))
        idx = rng.integers(0, 5, n)
        offs = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
        offs[0] = 0
        pad = None if trial % 3 else int(rng.integers(0, 5))
        w = tp.tensor(W, requires_grad=True)
        o = tp.nn.functional.embedding_bag(tp.tensor(idx), w, tp.tensor(offs), mode="max", padding_idx=pad)
        o.sum().backward()
        out, grad = _bag_max_reference(W, idx, offs, pad)
        np.testing.assert_array_equal(o.detach().numpy(), out)
        np.testing.assert_array_equal(w.grad.numpy(), grad)


# ------------------------------------------------------------------ grid_sample: 3-d, bicubic, bfloat16
from conftest import torch  # noqa: E402

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


@needs_torch
@pytest.mark.parametrize("nd,mode", [(2, "bicubic"), (3, "bilinear"), (3, "nearest")])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_3d_and_bicubic_vs_torch(nd, mode, padding_mode, align_corners):
    rng = np.random.default_rng(nd)
    sp, osp = (3, 4, 5)[-nd:], (2, 3, 2)[-nd:]
    x = rng.standard_normal((2, 2) + sp)
    g = rng.uniform(-1.4, 1.4, (2,) + osp + (nd,))
    if nd == 2 or padding_mode == "zeros":
        # (PyTorch's 3-d backward leaves a clipped NaN point unclipped, so that its
        # gradients are 0 there while its forward gives a value; ours are the
        # forward's derivatives, as finite differences say)
        g.flat[:3] = [np.nan, np.inf, -np.inf]
    res = []
    for lib in (torch, tp):
        a = lib.tensor(x, requires_grad=True)
        b = lib.tensor(g, requires_grad=True)
        o = lib.nn.functional.grid_sample(a, b, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
        w = lib.tensor(np.cos(np.arange(o.numel())).reshape(tuple(o.shape)))
        (o * w).sum().backward()
        res.append([o.detach().numpy(), a.grad.numpy(), b.grad.numpy()])
    for want, got in zip(*res):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("nd,mode", [(2, "bicubic"), (3, "bilinear")])
def test_grid_sample_3d_and_bicubic_gradgradcheck(nd, mode):
    rng = np.random.default_rng(7)
    sp, osp = (3, 4, 5)[-nd:], (2, 3, 2)[-nd:]
    x = tp.tensor(rng.standard_normal((1, 2) + sp), requires_grad=True)
    g = tp.tensor(rng.uniform(-0.9, 0.9, (1,) + osp + (nd,)), requires_grad=True)

    def f(a, b):
        return tp.nn.functional.grid_sample(a, b, mode=mode, padding_mode="reflection", align_corners=False)
    assert tp.autograd.gradcheck(f, (x, g))
    assert tp.autograd.gradgradcheck(f, (x, g))


def _keys(d, a=-0.75):
    d = abs(d)
    if d <= 1:
        return (a + 2) * d ** 3 - (a + 3) * d ** 2 + 1
    if d < 2:
        return a * d ** 3 - 5 * a * d ** 2 + 8 * a * d - 4 * a
    return 0.0


def test_grid_sample_bicubic_is_keys_cubic_convolution_and_refuses_5d():
    rng = np.random.default_rng(11)
    h, w = 5, 6
    img = rng.standard_normal((h, w))
    px, py = np.array([2.3, 3.7, 0.4, 4.9]), np.array([2.6, 1.2, 3.1, 0.2])
    grid = np.stack([(2 * px + 1) / w - 1, (2 * py + 1) / h - 1], -1)[None, None]
    out = tp.nn.functional.grid_sample(tp.tensor(img[None, None]), tp.tensor(grid), mode="bicubic",
                                       padding_mode="border", align_corners=False)
    want = []
    for x, y in zip(px, py):        # the 4x4 points around, each clipped into the image (border)
        x0, y0 = int(np.floor(x)), int(np.floor(y))
        want.append(sum(_keys(x - i) * _keys(y - j) * img[min(max(j, 0), h - 1), min(max(i, 0), w - 1)]
                        for i in range(x0 - 1, x0 + 3) for j in range(y0 - 1, y0 + 3)))
    np.testing.assert_allclose(out.numpy().ravel(), want, rtol=1e-12)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        tp.nn.functional.grid_sample(tp.zeros(1, 1, 2, 2, 2), tp.zeros(1, 1, 1, 1, 3), mode="bicubic",
                                     align_corners=False)


def test_grid_sample_bfloat16_and_affine_grid_3d():
    x = tp.arange(16.0).reshape(1, 1, 4, 4)
    g = tp.tensor([[[[0.0, 0.0], [-0.75, -0.75]]]])
    ref = tp.nn.functional.grid_sample(x, g, align_corners=False)
    got = tp.nn.functional.grid_sample(x.bfloat16(), g.bfloat16(), align_corners=False)
    assert got.dtype == tp.bfloat16
    np.testing.assert_allclose(got.float().numpy(), ref.numpy(), rtol=1e-2)
    # the identity 3-d map gives the base grid: x along W, y along H, z along D
    theta = tp.tensor([[[1.0, 0, 0, 0], [0, 1.0, 0, 0], [0, 0, 1.0, 0]]], dtype=tp.float64)
    grid = tp.nn.functional.affine_grid(theta, (1, 1, 2, 3, 4), align_corners=True)
    assert tuple(grid.shape) == (1, 2, 3, 4, 3)
    np.testing.assert_allclose(grid[0, 1, 2, 3].numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(grid[0, 0, 1, 0].numpy(), [-1.0, 0.0, -1.0])
    # and sampling through it is the identity
    v = tp.arange(24.0, dtype=tp.float64).reshape(1, 1, 2, 3, 4)
    np.testing.assert_allclose(tp.nn.functional.grid_sample(v, grid, align_corners=True).numpy(), v.numpy(),
                               atol=1e-12)


# ------------------------------------------------------------------ to(): PyTorch's three forms
@pytest.mark.parametrize("args,kwargs,got", [
    ((tp.float64, tp.float16), {}, "(torch.dtype, torch.dtype)"),
    ((tp.ones(1), tp.float64), {}, "(Tensor, torch.dtype)"),
    ((tp.float64,), {"device": "cpu"}, "(torch.dtype, device=str)"),
    ((tp.float64,), {"dtype": tp.float16}, "(torch.dtype, dtype=torch.dtype)"),
    ((tp.float64, 1), {}, "(torch.dtype, int)"),
    ((tp.float64, False, False, False), {}, "(torch.dtype, bool, bool, bool)"),
    (("cpu", tp.float64), {"dtype": tp.float64}, "(str, torch.dtype, dtype=torch.dtype)"),
])
def test_to_refuses_what_matches_none_of_its_forms(args, kwargs, got):
    for obj in (tp.ones(2), tp.nn.Linear(1, 1)):
        with pytest.raises(TypeError) as e:
            obj.to(*args, **kwargs)
        assert str(e.value).startswith(f"to() received an invalid combination of arguments - got {got}, but "
                                       "expected one of:\n * (torch.device device = None")


def test_to_forms_that_hold():
    x = tp.ones(2)
    assert x.to("cpu", tp.float64, True).dtype == tp.float64          # device, dtype, non_blocking
    assert x.to(tp.float64, False, True).dtype == tp.float64          # dtype, non_blocking, copy
    assert x.to(float).dtype == tp.float64
    assert x.to(tensor=tp.ones(1, dtype=tp.float16)).dtype == tp.float16
    y = x.to(tp.float32, copy=True)
    assert y is not x and y.dtype == tp.float32
    m = tp.nn.Linear(1, 1)
    assert m.to("cpu", tp.float64, False).weight.dtype == tp.float64
    with pytest.raises(RuntimeError, match=r"^\.to\(\) does not accept copy argument$"):
        m.to(tp.float32, False, False)
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex dtypes"):
        m.to(tp.ones(1, dtype=tp.int64))
    c = tp.nn.Conv2d(1, 2, 2).to(memory_format=tp.channels_last)
    assert c.weight.is_contiguous(memory_format=tp.channels_last) and c.weight.dtype == tp.float32


# ------------------------------------------------------------------ optim: older state dicts, hooks
@pytest.mark.parametrize("name", ["Adamax", "NAdam", "RAdam", "Adagrad", "Adadelta", "RMSprop", "Rprop", "ASGD"])
def test_an_older_state_dict_without_newer_options_loads_and_steps(name):
    p = tp.nn.Parameter(tp.ones(2, dtype=tp.float64))
    opt = getattr(tp.optim, name)([p], lr=0.1)
    p.grad = tp.ones(2, dtype=tp.float64)
    opt.step()
    sd = opt.state_dict()
    for k in ("maximize", "foreach", "centered", "momentum", "differentiable", "capturable"):
        sd["param_groups"][0].pop(k, None)
    for k in ("eta", "mu", "mu_product"):          # (numbers, as older PyTorch saved them)
        if k in sd["state"][0]:
            sd["state"][0][k] = float(sd["state"][0][k])
    again = getattr(tp.optim, name)([p], lr=0.1)
    again.load_state_dict(sd)
    assert again.param_groups[0]["maximize"] is False
    before = p.detach().clone()
    again.step()
    assert not np.array_equal(p.detach().numpy(), before.numpy())


def test_step_hooks_see_the_optimizer_first_and_global_hooks_run():
    from tensorplay.optim.optimizer import register_optimizer_step_pre_hook, register_optimizer_step_post_hook
    p = tp.nn.Parameter(tp.ones(2))
    opt = tp.optim.SGD([p], lr=0.1)
    seen = []
    h1 = opt.register_step_pre_hook(lambda o, args, kwargs: seen.append(("pre", args)))
    h2 = register_optimizer_step_pre_hook(lambda o, args, kwargs: seen.append(("global pre", args)))
    h3 = register_optimizer_step_post_hook(lambda o, args, kwargs: seen.append(("global post", args)))
    p.grad = tp.ones(2)
    opt.step()
    for h in (h1, h2, h3):
        h.remove()
    assert [s[0] for s in seen] == ["global pre", "pre", "global post"]
    assert all(s[1] == (opt,) for s in seen)
    opt.step()
    assert len(seen) == 3


def test_sgd_takes_a_nan_lr_as_pytorch_and_scheduler_order_check():
    tp.optim.SGD([tp.nn.Parameter(tp.ones(1))], lr=float("nan"))      # (PyTorch checks lr < 0 only)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        tp.optim.Adam([tp.nn.Parameter(tp.ones(1))], lr=float("nan"))
    p = tp.nn.Parameter(tp.ones(1))
    opt = tp.optim.SGD([p], lr=0.1)
    p.grad = tp.ones(1)
    opt.step()                      # before the scheduler exists: does not count
    sched = tp.optim.lr_scheduler.StepLR(opt, 1)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before"):
        sched.step()


# ------------------------------------------------------------------ forward mode: out=, detach_, set_, resize_
from tensorplay.autograd import forward_ad as fwad  # noqa: E402


def _x3():
    return tp.tensor([0.5, 1.0, 2.0], dtype=tp.float64), tp.ones(3, dtype=tp.float64)


def test_out_under_forward_mode_raises_instead_of_dropping_the_tangent():
    x, t = _x3()
    with pytest.raises(NotImplementedError, match="^Trying to use forward AD with sin_out that does not support it "
                                                  "because it is an out= function$"):
        tp.func.jvp(lambda p: tp.sin(p, out=tp.empty(3, dtype=tp.float64)), (x,), (t,))

    def f(p):
        y = p * 1.0
        tp.exp(y, out=y)        # (its own stale tangent would stay)
        return y
    with pytest.raises(NotImplementedError, match="exp_out"):
        tp.func.jvp(f, (x,), (t,))
    with fwad.dual_level():
        d = fwad.make_dual(x, t) * 2
        with pytest.raises(NotImplementedError, match="add_out"):
            tp.add(x, x, out=d)         # out has a tangent, the inputs none
    with pytest.raises(RuntimeError, match=r"^Batching rule not implemented for aten::sin\.out"):
        tp.func.vmap(lambda p: tp.sin(p, out=tp.empty(3)))(tp.ones(2, 3))


def test_detach_in_place_drops_the_tangent_and_set_has_no_derivative():
    x, t = _x3()
    _, jt = tp.func.jvp(lambda p: (p * 2).detach_() * 3, (x,), (t,))
    np.testing.assert_array_equal(jt.numpy(), [0.0, 0.0, 0.0])
    with fwad.dual_level():
        d = fwad.make_dual(x, t) * 2
        d.detach_()
        assert fwad.unpack_dual(d).tangent is None
        d = fwad.make_dual(x, t) * 2
        with pytest.raises(NotImplementedError, match="forward AD with set_"):
            d.set_(tp.zeros(3, dtype=tp.float64))
        with pytest.raises(RuntimeError, match="^cannot resize variables that has a forward grad$"):
            d.resize_(5)
    a = tp.tensor([1.0, 2.0, 3.0], dtype=tp.float64, requires_grad=True)
    z = a * a
    z.set_(tp.zeros(3, dtype=tp.float64))      # z no longer depends on a: no silent 2a
    assert z.requires_grad and type(z.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="^derivative for set_ is not implemented$"):
        z.sum().backward()
    y = tp.zeros(3)
    y.set_(tp.ones(3, requires_grad=True))
    assert y.requires_grad and y.grad_fn.name() == "NotImplemented"
    z = a * a
    with tp.no_grad():                          # (unrecorded: the old history stays, as in PyTorch)
        z.set_(tp.zeros(3, dtype=tp.float64))
    z.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 4.0, 6.0])


@pytest.mark.parametrize("kind", ["view", "slice", "unsqueeze"])
def test_a_view_of_a_no_grad_view_refuses_a_recorded_write(kind):
    x0 = tp.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    w = tp.tensor([2.0, 3.0, 4.0], requires_grad=True)
    x = x0 * 1
    with tp.no_grad():
        u = x[0]
    v = {"view": lambda: u.view(3), "slice": lambda: u[1:], "unsqueeze": lambda: u.unsqueeze(0)}[kind]()
    with pytest.raises(RuntimeError, match="created in no_grad mode and is being modified inplace"):
        v.mul_(w[:v.shape[-1]])     # (recorded as if the region had no history: wrong gradients)
    b = tp.zeros(3)                 # a base without grad, a value with: refused as well
    with tp.no_grad():
        c = b[:]
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode and is being modified inplace"):
        c.view(3).add_(tp.ones(3, requires_grad=True))


def test_writes_into_a_view_whose_elements_share_memory_keep_every_written_value():
    a = tp.zeros(4)
    v = a.unfold(0, 2, 1)           # rows [a0 a1], [a1 a2], [a2 a3]
    v[0] = tp.tensor([1.0, 2.0])
    np.testing.assert_array_equal(a.numpy(), [1.0, 2.0, 0.0, 0.0])
    a = tp.zeros(4)
    a.unfold(0, 2, 1).index_fill_(1, tp.tensor([0]), 2.0)
    np.testing.assert_array_equal(a.numpy(), [2.0, 2.0, 2.0, 0.0])
    a = tp.zeros(4)
    a.unfold(0, 2, 1).masked_fill_(tp.tensor([[False, True], [False, False], [False, False]]), 2.0)
    np.testing.assert_array_equal(a.numpy(), [0.0, 2.0, 0.0, 0.0])
    # recorded: the write goes through copy_slices, and the gradient follows the values
    x0 = tp.zeros(4, dtype=tp.float64, requires_grad=True)
    u = tp.tensor([1.0, 2.0], dtype=tp.float64, requires_grad=True)
    x = x0 * 1
    x.unfold(0, 2, 1)[0] = u * 3
    np.testing.assert_array_equal(x.detach().numpy(), [3.0, 6.0, 0.0, 0.0])
    (x * tp.tensor([1.0, 2.0, 3.0, 4.0], dtype=tp.float64)).sum().backward()
    np.testing.assert_array_equal(u.grad.numpy(), [3.0, 6.0])
    np.testing.assert_array_equal(x0.grad.numpy(), [0.0, 0.0, 3.0, 4.0])   # (the overwritten ones: 0)


def test_compile_runs_eagerly_with_torch_compiles_checks():
    m = tp.nn.Linear(2, 2)
    assert tp.compile(m) is m and tp.compile()(m) is m

    @tp.compile(mode="max-autotune")
    def f(x):
        return x * 2
    np.testing.assert_array_equal(f(tp.ones(2)).numpy(), [2.0, 2.0])
    with pytest.raises(RuntimeError, match="Either mode or options can be specified"):
        tp.compile(m, mode="default", options={})
    with pytest.raises(RuntimeError, match="^Unrecognized mode=bogus, should be one of: default"):
        tp.compile(m, mode="bogus")
    with pytest.raises(AssertionError, match="A callable function is expected"):
        tp.compile(5)


def test_a_write_through_a_view_cannot_give_a_detached_base_its_history_back():
    a = tp.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2
    v = b[1:]
    b.detach_()
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is being used in an "
                                           "in-place operation.$"):
        v.mul_(10)
    with tp.no_grad():
        v.mul_(10)
    np.testing.assert_array_equal(b.numpy(), [2.0, 40.0, 60.0])
    w = tp.ones(3, requires_grad=True)
    b.mul_(w)                       # a new history: its old views may be written again
    b[1:].mul_(2)
    b.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 80.0, 120.0])


# ------------------------------------------------------------------ save/load, DataLoader
import io  # noqa: E402
from collections import OrderedDict, namedtuple  # noqa: E402


def test_save_keeps_a_state_dicts_metadata_and_refuses_types_it_would_change():
    class M(tp.nn.Module):
        _version = 2

        def __init__(self):
            super().__init__()
            self.w = tp.nn.Parameter(tp.arange(4.0).reshape(2, 2))

        def _load_from_state_dict(self, sd, prefix, local_metadata, *args):
            if local_metadata.get("version") is None or local_metadata["version"] < 2:
                sd[prefix + "w"] = sd[prefix + "w"].t()     # an old checkpoint's layout
            super()._load_from_state_dict(sd, prefix, local_metadata, *args)
    b = io.BytesIO()
    tp.save(M().state_dict(), b)
    b.seek(0)
    sd = tp.load(b)
    assert sd._metadata == OrderedDict([("", {"version": 2})])
    m = M()
    m.load_state_dict(sd)
    np.testing.assert_array_equal(m.w.detach().numpy(), [[0.0, 1.0], [2.0, 3.0]])
    P = namedtuple("P", "a b")
    for obj in (P(1, 2), __import__("collections").defaultdict(list), __import__("enum").IntEnum("E", "A").A):
        with pytest.raises(TypeError, match="not their subclasses"):
            tp.save(obj, io.BytesIO())


def test_load_from_a_stream_stops_after_its_file_and_maps_to_cpu0():
    import pickle
    b = io.BytesIO()
    pickle.dump(41, b)
    tp.save(tp.ones(2), b)
    pickle.dump(43, b)
    b.seek(0)
    assert pickle.load(b) == 41
    np.testing.assert_array_equal(tp.load(b, map_location="cpu:0", pickle_module=pickle).numpy(), [1.0, 1.0])
    assert pickle.load(b) == 43
    with pytest.raises(RuntimeError, match="CPU only"):
        tp.load(io.BytesIO(), map_location="cuda:0")
    with pytest.raises(RuntimeError, match="^Parent directory .* does not exist.$"):
        tp.save(tp.ones(1), "/nonexistent_dir_s15/x.pt")
    with pytest.raises(ValueError, match="header would be"):
        tp.save(['"' * 30_000_000], io.BytesIO())


def test_dataloader_batch_sampler_yielding_arrays():
    ds = tp.utils.data.TensorDataset(tp.arange(6.0))
    batches = list(tp.utils.data.DataLoader(ds, batch_sampler=np.array_split(np.arange(6), 3)))
    assert [b[0].tolist() for b in batches] == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    batches = list(tp.utils.data.DataLoader(ds, batch_sampler=[tp.tensor([0, 1]), tp.tensor([5])]))
    assert [b[0].tolist() for b in batches] == [[0.0, 1.0], [5.0]]


# ------------------------------------------------------------------ custom Functions, checkpoint
class _SavesAndReturnsItsInput(tp.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a

    @staticmethod
    def backward(ctx, g):
        s, = ctx.saved_tensors
        assert s.requires_grad                      # (the input it is, under create_graph)
        return g * s * 3


def test_a_function_that_saves_an_input_it_returns_saves_the_input():
    a = tp.tensor([1.0, 2.0], requires_grad=True)
    g, = tp.autograd.grad(_SavesAndReturnsItsInput.apply(a).sum(), a, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [3.0, 6.0])
    gg, = tp.autograd.grad(g.sum(), a)
    np.testing.assert_array_equal(gg.numpy(), [3.0, 3.0])      # (9, 18: through the node again)
    a = tp.tensor([1.0, 2.0], requires_grad=True)
    b = tp.tensor([3.0, 4.0], requires_grad=True)
    from tensorplay.utils.checkpoint import checkpoint
    o0, o1 = checkpoint(lambda x, y: (x, x * y), a, b, use_reentrant=True)
    (10 * o0.sum() + o1.sum()).backward()
    np.testing.assert_array_equal(a.grad.numpy(), [13.0, 14.0])     # (was None)
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 2.0])


@pytest.mark.parametrize("kwargs", [dict(use_reentrant=False), dict(use_reentrant=False, determinism_check="none"),
                                    dict(use_reentrant=True)])
def test_checkpoint_recomputes_under_the_forwards_autocast(kwargs):
    from tensorplay.utils.checkpoint import checkpoint
    rng = np.random.default_rng(5)
    x = tp.tensor(rng.standard_normal((4, 8)).astype(np.float32), requires_grad=True)  # (reentrant needs one)
    grads = []
    for ck in (False, True):
        W = tp.tensor(rng.standard_normal((8, 8)).astype(np.float32) if not grads else w0, requires_grad=True)
        w0 = W.detach().numpy().copy()

        def f(a):
            return tp.nn.functional.linear(a, W).relu()
        with tp.autocast("cpu", dtype=tp.bfloat16):
            out = checkpoint(f, x, **kwargs) if ck else f(x)
        out.float().sum().backward()              # (outside the region, as AMP loops do)
        grads.append(W.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


# ------------------------------------------------------------------ Tensor basics
def test_remainder_zeros_keep_the_dividends_sign():
    x = tp.tensor([-0.0, 0.0, 4.0, -4.0, -1.5, 1.5])
    for y in (2.0, -2.0):
        r = (x % y).numpy()
        want = np.fmod(x.numpy(), y)
        want = np.where((want != 0) & ((want < 0) != (y < 0)), want + y, want)
        np.testing.assert_array_equal(r, want)
        np.testing.assert_array_equal(np.signbit(r), np.signbit(want))
    np.testing.assert_array_equal(np.signbit((x % 2).numpy()[:4]), [True, False, False, True])
    np.testing.assert_array_equal((tp.tensor([-7, 7]) % 3).numpy(), [2, 1])


def test_arange_of_numpy_float_scalars_is_a_float_range():
    r = tp.arange(0, 5, np.float32(2.5))
    assert r.dtype == tp.float32 and r.tolist() == [0.0, 2.5]
    assert tp.arange(np.float32(2.5)).dtype == tp.float32


def test_deepcopy_keeps_storage_sharing_strides_and_attributes():
    import copy
    base = tp.arange(6.0).reshape(2, 3)
    b, v = copy.deepcopy((base, base[:, 1]))
    v[0] = 100.0
    assert b[0, 1].item() == 100.0 and base[0, 1].item() == 1.0
    assert v.stride() == (3,) and v.storage_offset() == 1
    assert copy.deepcopy(tp.arange(6.0).reshape(2, 3).t()).stride() == (1, 3)
    a = tp.tensor([1.0, 2.0])
    a.foo = 5
    assert copy.deepcopy(a).foo == 5


def test_complex_scalars_and_scalar_first_operands():
    assert float(tp.tensor(3 + 0j)) == 3.0 and int(tp.tensor(3 + 0j)) == 3
    with pytest.raises(RuntimeError, match="cannot be converted to type double without overflow"):
        float(tp.tensor(3 + 1j))
    assert tp.tensor([1 + 2j, 0j], dtype=tp.bool).tolist() == [True, False]
    assert tp.div(7, tp.tensor([2.0, -2.0]), rounding_mode="trunc").tolist() == [3.0, -3.0]
    assert tp.div(7, tp.tensor([2, -2]), rounding_mode="trunc").tolist() == [3, -3]
    assert (True << tp.tensor([1, 2])).tolist() == [2, 4]
    assert tp.bitwise_right_shift(True, tp.tensor([0, 1])).tolist() == [1, 0]


def test_randperm_refuses_a_dtype_that_cannot_hold_the_permutation():
    with pytest.raises(RuntimeError, match="^value cannot be converted to type uint8_t without overflow$"):
        tp.randperm(300, dtype=tp.uint8)
    with pytest.raises(RuntimeError, match="^n cannot be greater than 2049 for Half type.$"):
        tp.randperm(3000, dtype=tp.float16)
    assert sorted(tp.randperm(256, dtype=tp.uint8).tolist()) == list(range(256))
    for f in (tp.linspace, tp.logspace):
        with pytest.raises(RuntimeError, match="^number of steps must be non-negative$"):
            f(0, 1, -1)


def test_saved_result_of_a_node_with_several_outputs():
    a = tp.tensor([[1.0, 3.0], [4.0, 2.0]], requires_grad=True)
    node = a.max(1).values.grad_fn
    values, indices = node._saved_result          # (a tuple, not a tensor wrapping one)
    repr(values), repr(indices)
    assert indices.tolist() == [1, 0] and values.tolist() == [3.0, 4.0]
    assert not any(n == "_saved_out" for n in dir(node))


@pytest.mark.parametrize("op", ["unsqueeze_", "t_", "transpose_", "squeeze_"])
def test_allow_mutation_on_saved_tensors_covers_shape_changing_in_place_ops(op):
    x = tp.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    with tp.autograd.graph.allow_mutation_on_saved_tensors():
        y = x * 1
        z = y.sin()
        args = {"unsqueeze_": (0,), "t_": (), "transpose_": (0, 1), "squeeze_": ()}[op]
        getattr(y, op)(*args)
        z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([[1.0, 2.0, 3.0]]), rtol=1e-6)


def test_like_functions_and_empty_take_memory_format():
    x = tp.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)
    assert tp.zeros_like(x).stride() == x.stride() == (1, 12, 4)
    c = tp.empty(2, 3, 4, 5, memory_format=tp.channels_last)
    assert c.stride() == (60, 1, 15, 3)
    for f in (tp.empty_like, tp.zeros_like, lambda t, **k: tp.full_like(t, 2.0, **k), tp.rand_like, tp.randn_like):
        y = f(tp.ones(2, 3, 4, 5), memory_format=tp.channels_last)
        assert y.stride() == (60, 1, 15, 3)
        assert f(x, memory_format=tp.contiguous_format).is_contiguous()
    np.testing.assert_array_equal(tp.full_like(x, 2.0).numpy(), np.full((4, 2, 3), 2.0))


def test_integer_arange_checks_the_step_sign_before_truncating():
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        tp.arange(2.2, 2.71, -3.91, dtype=tp.int64)
    assert tp.arange(0, 5, 1.5, dtype=tp.int32).tolist() == [0, 1, 2, 3]


def test_forced_sci_mode_pads_as_pytorch():
    try:
        tp.set_printoptions(sci_mode=True)
        assert repr(tp.tensor(0.0)) == "tensor(0.)"
        assert repr(tp.tensor([1.5, -2.25, 100.0])) == "tensor([ 1.5000e+00, -2.2500e+00,  1.0000e+02])"
        assert repr(tp.tensor([1.0, float("inf")])) == "tensor([1.0000e+00,        inf])"
        tp.set_printoptions(sci_mode=False)
        assert repr(tp.tensor(0.0)) == "tensor(0.)"
        assert repr(tp.tensor([1234.5677, 0.001])) == "tensor([1234.5677,    0.0010])"
    finally:
        tp.set_printoptions(profile="default")


def test_float64_linspace_points_are_one_fused_multiply_add():
    # (a long double sum rounded twice: 1 ulp off PyTorch's kernel in ~2% of calls)
    from fractions import Fraction
    a, b, n = 1328.3564823670263, 1329.208470808484, 13
    got = tp.linspace(a, b, n, dtype=tp.float64).numpy()
    step = (b - a) / (n - 1)
    for i in range(n):
        base, k = (a, i) if i < n // 2 else (b, -(n - 1 - i))
        assert got[i] == float(Fraction(base) + Fraction(step) * k)


def test_range_is_pytorchs_deprecated_inclusive_range_and_0d_params_load_from_1_element():
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        r = tp.range(0, 2, 0.5)
    assert r.dtype == tp.get_default_dtype() and r.tolist() == [0.0, 0.5, 1.0, 1.5, 2.0]
    with pytest.warns(UserWarning):
        assert tp.range(0, 3, dtype=tp.int64).tolist() == [0, 1, 2, 3]

    class M(tp.nn.Module):
        def __init__(self):
            super().__init__()
            self.p = tp.nn.Parameter(tp.tensor(1.0))
    m = M()
    m.load_state_dict({"p": tp.tensor([5.0])})          # (an old checkpoint's 1-element param)
    assert m.p.shape == () and m.p.item() == 5.0


def test_a_tensor_and_a_text_variable_in_one_operator():
    import tensorplay.text as tt
    v = tt.Variable("abc", requires_grad=True)
    for f in (lambda: v + tp.ones(2), lambda: tp.ones(2) + v, lambda: tp.tensor(1.0) * v):
        with pytest.raises(TypeError, match="unsupported operand type"):
            f()
    assert (tp.tensor(1.0) == v) is False


def test_text_backward_takes_any_iterable_of_variables():
    import tensorplay.text as tt
    a = tt.Variable("A", requires_grad=True)
    c = a + tt.Variable("x")
    c.backward(tt.Variable("fb"), inputs=(v for v in [a]), retain_graph=True)
    assert len(a.grad) == 1
    c.backward(tt.Variable("fb"), inputs={a}, retain_graph=True)
    assert len(a.grad) == 2
    tt.autodiff.backward((v for v in [c]), [tt.Variable("fb")])
    assert len(a.grad) == 3
