"""In-place ops and views: values, gradients, version counters and errors,
checked against PyTorch's.

Tests taking ``T`` run the same code on tensorplay and (when installed)
torch; ``compare`` runs a function on both and compares what it returns."""

import re

import numpy as np
import pytest

import tensorplay as tp
from conftest import assert_close, torch, exact as _exact, lst


def ver(t):
    return t._version


def _flat(r):
    if isinstance(r, (list, tuple)):
        out = []
        for x in r:
            out += _flat(x)
        return out
    if r is None:
        return [None]
    if hasattr(r, "detach"):
        try:
            return [np.asarray(r.detach().tolist())]
        except RuntimeError:            # torch's storage-less zero gradients
            return [None]
    return [np.asarray(r)]


def compare(f, atol=1e-6):
    if torch is None:
        pytest.skip("torch not installed")
    a, b = _flat(f(tp)), _flat(f(torch))
    assert len(a) == len(b)
    for i, (u, v) in enumerate(zip(a, b)):
        if u is None or v is None:      # an unconnected gradient: None or zeros
            w = v if u is None else u
            assert w is None or not np.any(w), f"item {i}: {u} vs {v}"
        else:
            assert_close(u, v, atol=atol, msg=f"item {i}")


X0 = [[0.5, -1.2, 2.0], [1.5, 0.3, -0.7]]
W0 = [[0.2, 0.4, -0.5], [1.1, -0.9, 0.6]]


# ------------------------------------------------------------------ every in-place method
def _ops():
    # (name, f(T, y, w) doing the in-place op on the non-leaf y, possibly using w)
    return {
        "add_": lambda T, y, w: y.add_(w),
        "add_alpha": lambda T, y, w: y.add_(w, alpha=2.5),
        "add_scalar": lambda T, y, w: y.add_(3.),
        "sub_": lambda T, y, w: y.sub_(w),
        "mul_": lambda T, y, w: y.mul_(w),
        "mul_scalar": lambda T, y, w: y.mul_(-2.),
        "div_": lambda T, y, w: y.div_(w + 3),
        "div_scalar": lambda T, y, w: y.div_(4.),
        "pow_": lambda T, y, w: y.pow_(2),
        "pow_tensor": lambda T, y, w: y.abs_().add_(0.5).pow_(w),
        "exp_": lambda T, y, w: y.exp_(),
        "log_": lambda T, y, w: y.abs_().add_(0.1).log_(),
        "sqrt_": lambda T, y, w: y.abs_().add_(0.1).sqrt_(),
        "neg_": lambda T, y, w: y.neg_(),
        "sin_": lambda T, y, w: y.sin_(),
        "cos_": lambda T, y, w: y.cos_(),
        "tanh_": lambda T, y, w: y.tanh_(),
        "sigmoid_": lambda T, y, w: y.sigmoid_(),
        "relu_": lambda T, y, w: y.relu_(),
        "abs_": lambda T, y, w: y.abs_(),
        "reciprocal_": lambda T, y, w: y.add_(3).reciprocal_(),
        "square_": lambda T, y, w: y.square_(),
        "clamp_": lambda T, y, w: y.clamp_(-0.5, 1.0),
        "clamp_min_": lambda T, y, w: y.clamp_(min=0.),
        "clamp_max_": lambda T, y, w: y.clamp_max_(0.4),
        "masked_fill_": lambda T, y, w: y.masked_fill_(w > 0, 7.),
        "lerp_": lambda T, y, w: y.lerp_(w, 0.3),
        "addcmul_like": lambda T, y, w: y.mul_(w).add_(w),
        "copy_": lambda T, y, w: y.copy_(w * 2),
        "copy_broadcast": lambda T, y, w: y.copy_(w[0] * 2),
        "zero_": lambda T, y, w: y.zero_(),
        "fill_": lambda T, y, w: y.fill_(1.5),
        "setitem_scalar": lambda T, y, w: y.__setitem__((0, 1), 5.),
        "setitem_row": lambda T, y, w: y.__setitem__(1, w[0]),
        "setitem_slice": lambda T, y, w: y.__setitem__((slice(None), slice(0, 2)), w[:, 1:]),
        "setitem_mask": lambda T, y, w: y.__setitem__(w > 0, 0.),
        "setitem_index": lambda T, y, w: y.__setitem__(T.tensor([1, 0]), w * 3),
        "iadd": lambda T, y, w: y.__iadd__(w),
        "isub": lambda T, y, w: y.__isub__(w * 2),
        "imul": lambda T, y, w: y.__imul__(w),
        "idiv": lambda T, y, w: y.__itruediv__(w + 3),
        "ipow": lambda T, y, w: y.__ipow__(2),
        "chain": lambda T, y, w: y.mul_(2).add_(w).exp_(),
        "floor_": lambda T, y, w: y.floor_(),
        "maximum_like": lambda T, y, w: y.clamp_(min=0.).add_(w),
        "t_": lambda T, y, w: y.t_() if y.dim() == 2 else y,
        "unsqueeze_": lambda T, y, w: y.unsqueeze_(0),
        "squeeze_": lambda T, y, w: y.unsqueeze_(0).squeeze_(0),
    }


def _run_op(T, name):
    x = T.tensor(X0, requires_grad=True)
    w = T.tensor(W0, requires_grad=True)
    y = x * 1.5
    v0 = ver(y)
    r = _ops()[name](T, y, w)
    assert r is y or r is None
    assert ver(y) > v0
    seed = T.tensor(np.arange(1., 1. + y.numel()).reshape(tuple(y.shape)).tolist())
    gx, gw = T.autograd.grad((y * seed).sum(), (x, w), allow_unused=True, create_graph=True)
    res = [y, gx, gw]
    # double backward where the first gradient depends on the inputs
    if gx is not None and gx.requires_grad:
        ggx = T.autograd.grad((gx * gx).sum(), (x, w), allow_unused=True)
        res.append(list(ggx))
    else:
        res.append([None, None])
    return res


@pytest.mark.parametrize("name", sorted(_ops()))
def test_inplace_op_on_non_leaf_matches_torch(name):
    compare(lambda T: _run_op(T, name))


def test_inplace_returns_self_and_keeps_identity(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 1
    assert y.add_(1) is y
    assert y.mul_(2) is y
    y += 1
    z = y
    y *= 2
    assert y is z
    assert y.grad_fn.name() == "MulBackward0"


def test_inplace_on_tensor_not_requiring_grad_with_grad_value(T):
    x = T.zeros(2)
    w = T.tensor([1., 2.], requires_grad=True)
    x.add_(w * 3)
    assert x.requires_grad and x.grad_fn.name() == "AddBackward0" and not x.is_leaf
    x.sum().backward()
    assert lst(w.grad) == [3., 3.]


def test_copy_into_plain_tensor_records(T):
    x = T.zeros(2, 2)
    w = T.tensor([1., 2.], requires_grad=True)
    x.copy_(w)
    assert x.grad_fn.name() in ("CopyBackwards", "torch::autograd::CopyBackwards")
    (x * T.tensor([[1., 2.], [3., 4.]])).sum().backward()
    assert lst(w.grad) == [4., 6.]


# ------------------------------------------------------------------ leaves
LEAF = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place operation."


@pytest.mark.parametrize("op", ["add_", "mul_", "zero_", "fill_", "copy_", "iadd", "setitem",
                                "exp_", "clamp_", "masked_fill_"])
def test_inplace_on_leaf_requiring_grad_raises(T, op):
    x = T.tensor([1., 2.], requires_grad=True)
    f = {"add_": lambda: x.add_(1), "mul_": lambda: x.mul_(2), "zero_": lambda: x.zero_(),
         "fill_": lambda: x.fill_(1.), "copy_": lambda: x.copy_(T.ones(2)),
         "iadd": lambda: x.__iadd__(1), "setitem": lambda: x.__setitem__(0, 3.),
         "exp_": lambda: x.exp_(), "clamp_": lambda: x.clamp_(0, 1),
         "masked_fill_": lambda: x.masked_fill_(x > 1, 0.)}[op]
    msg = VIEW_LEAF if op == "setitem" else LEAF
    with pytest.raises(RuntimeError, match=_exact(msg)):
        f()
    assert lst(x) == [1., 2.] and ver(x) == 0


@pytest.mark.parametrize("view", ["slice", "index", "t", "view", "unsqueeze", "diagonal",
                                  "detach_then_view"])
def test_inplace_on_view_of_leaf_raises(T, view):
    x = T.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    v = {"slice": lambda: x[:, 1:], "index": lambda: x[0], "t": lambda: x.t(),
         "view": lambda: x.view(4), "unsqueeze": lambda: x.unsqueeze(0),
         "diagonal": lambda: x.diagonal(), "detach_then_view": None}[view]
    if v is None:
        d = x.detach()[0]
        d.mul_(2)                        # detached: allowed, no grad recorded
        assert lst(x)[0] == [2., 4.]
        return
    with pytest.raises(RuntimeError, match=_exact(VIEW_LEAF)):
        v().mul_(2)
    assert lst(x) == [[1., 2.], [3., 4.]]


def test_inplace_on_leaf_under_no_grad_bumps_version(T):
    # the optimizer pattern
    p = T.tensor([1., 2.], requires_grad=True)
    (p * p).sum().backward()
    v0 = ver(p)
    with T.no_grad():
        p.sub_(p.grad * 0.1)
        p.add_(1)
        p[0] = 5.
        p.mul_(2)
    assert ver(p) == v0 + 4
    assert_close(lst(p), [10., 2 * (2 - 0.4 + 1)])
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    # a graph built after the update works
    p.grad = None
    (p * 3).sum().backward()
    assert lst(p.grad) == [3., 3.]


def test_optimizer_update_after_use_invalidates_saved(T):
    p = T.tensor([1., 2.], requires_grad=True)
    loss = (p * p).sum()
    with T.no_grad():
        p.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


# ------------------------------------------------------------------ saved then modified
def _hint(T):
    return ("Hint: enable anomaly detection to find the operation that failed to compute its "
            f"gradient, with {'tensorplay' if T is tp else 'torch'}.autograd.set_detect_anomaly("
            "True, check_nan=False).")


def test_saved_non_leaf_modified_message(T):
    x = T.ones(2, requires_grad=True)
    y = x.sin()
    z = y * y                         # saves y
    y.add_(1)
    name = "tensorplay" if T is tp else "torch"
    msg = ("one of the variables needed for gradient computation has been modified by an inplace "
           f"operation: [{name}.FloatTensor [2]], which is output 0 of Add, is at version 1; "
           f"expected version 0 instead. " + _hint(T))
    with pytest.raises(RuntimeError, match=_exact(msg)):
        z.sum().backward()


def test_saved_output_modified_message(T):
    x = T.ones(3, requires_grad=True)
    y = x.exp()                       # saves its output
    y.mul_(2)
    name = "tensorplay" if T is tp else "torch"
    msg = ("one of the variables needed for gradient computation has been modified by an inplace "
           f"operation: [{name}.FloatTensor [3]], which is output 0 of Exp, is at version 1; "
           f"expected version 0 instead. " + _hint(T))
    with pytest.raises(RuntimeError, match=_exact(msg)):
        y.sum().backward()


@pytest.mark.parametrize("join", ["cat", "stack"])
def test_cat_stack_inputs_modified_in_place_after_use(T, join):
    # cat and stack save only their inputs' sizes and dim, not the tensors
    a, b = T.ones(2, 3, requires_grad=True), T.ones(2, 3, requires_grad=True)
    a2, b2 = a * 1, b * 1
    r = getattr(T, join)([a2, b2], 1)
    a2.add_(1)
    b2.add_(1)
    w = T.arange(12.).reshape(r.shape)
    (r * w).sum().backward()
    wa, wb = (w[:, :3], w[:, 3:]) if join == "cat" else (w[:, 0], w[:, 1])
    assert lst(a.grad) == lst(wa) and lst(b.grad) == lst(wb)


def test_saved_leaf_modified_under_no_grad_message(T):
    x = T.ones(2, requires_grad=True)
    y = x * x
    with T.no_grad():
        x.mul_(3)
        x.add_(1)
    name = "tensorplay" if T is tp else "torch"
    msg = ("one of the variables needed for gradient computation has been modified by an inplace "
           f"operation: [{name}.FloatTensor [2]] is at version 2; expected version 0 instead. "
           + _hint(T))
    with pytest.raises(RuntimeError, match=_exact(msg)):
        y.sum().backward()


def test_saved_tensor_modified_through_view_or_detach(T):
    for modify in (lambda y: y[0].mul_(2), lambda y: y.detach().zero_(),
                   lambda y: y.view(2, 2).t().add_(1), lambda y: y.unsqueeze(0).fill_(0.)):
        x = T.ones(4, requires_grad=True)
        y = x.sin()
        z = y * y
        modify(y)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()


def test_data_does_not_share_version(T):
    x = T.ones(2, requires_grad=True)
    y = x * x
    v0 = ver(x)
    x.data.mul_(2)                    # invisible to autograd (and so not checked)
    assert ver(x) == v0
    y.sum().backward()
    assert lst(x.grad) == [4., 4.]    # computed from the modified value, as in PyTorch


def test_version_shared_with_views_and_detach(T):
    x = T.zeros(2, 3)
    views = [x.view(6), x.t(), x[0], x[:, 1:], x.detach(), x.unsqueeze(0), x.reshape(3, 2),
             x.transpose(0, 1), x.permute(1, 0), x.expand(2, 2, 3), x.narrow(1, 0, 2),
             x.squeeze(), x.diagonal(), x.T]
    views += list(x.unbind(0)) + list(x.split(1, 1))
    before = ver(x)
    x.add_(1)
    for v in views:
        assert ver(v) == ver(x) == before + 1
    views[0].mul_(2)
    assert ver(x) == before + 2
    for v in views:
        assert ver(v) == ver(x)
    d = x.data
    assert ver(d) == 0 or ver(d) != ver(x)
    d.add_(1)
    assert ver(x) == before + 2


def test_views_share_memory(T):
    x = T.arange(6.).reshape(2, 3)
    cases = {"view": x.view(3, 2), "reshape": x.reshape(6), "transpose": x.transpose(0, 1),
             "permute": x.permute(1, 0), "expand": x[:1].expand(4, 3), "slice": x[:, 1:],
             "squeeze": x.unsqueeze(0).squeeze(0), "unsqueeze": x.unsqueeze(1),
             "narrow": x.narrow(1, 1, 2), "unbind": x.unbind(1)[1], "split": x.split(1, 0)[1],
             "diagonal": x.diagonal(), "T": x.T, "t": x.t(), "select": x[1], "detach": x.detach()}
    for name, v in cases.items():
        assert v.data_ptr() >= x.data_ptr(), name
    x.add_(10)
    assert lst(cases["view"]) == [[10., 11.], [12., 13.], [14., 15.]]
    assert lst(cases["transpose"])[0] == [10., 13.]
    assert lst(cases["expand"])[3] == [10., 11., 12.]
    assert lst(cases["slice"]) == [[11., 12.], [14., 15.]]
    assert lst(cases["unbind"]) == [11., 14.]
    assert lst(cases["split"]) == [[13., 14., 15.]]
    assert lst(cases["diagonal"]) == [10., 14.]
    assert lst(cases["T"])[2] == [12., 15.]
    assert lst(cases["narrow"]) == [[11., 12.], [14., 15.]]
    # writes through a view reach the base
    cases["select"].fill_(0.)
    assert lst(x)[1] == [0., 0., 0.]
    cases["diagonal"].fill_(-1.)
    assert lst(x) == [[-1., 11., 12.], [0., -1., 0.]]


def test_reshape_of_non_contiguous_copies(T):
    x = T.arange(6.).reshape(2, 3)
    r = x.t().reshape(6)
    x.add_(100)
    assert lst(r) == [0., 3., 1., 4., 2., 5.]


# ------------------------------------------------------------------ views of non-leaves
def _view_case(T, make_view, op, seed_view=True):
    x = T.tensor([[0.5, -1.2, 2.0], [1.5, 0.3, -0.7], [0.1, 0.9, -0.4]], requires_grad=True)
    w = T.tensor([1.3, -0.6, 0.8], requires_grad=True)
    b = x * 2
    v = make_view(T, b)
    op(T, v, w)
    sb = T.tensor(np.arange(1., 10.).reshape(3, 3).tolist())
    loss = (b * sb).sum()
    if seed_view:
        loss = loss + (v * v).sum()
    gx, gw = T.autograd.grad(loss, (x, w), create_graph=True, allow_unused=True)
    out = [b, v, gx, gw]
    if gx is not None:
        out.append(list(T.autograd.grad((gx * gx).sum() + (gw * gw).sum() if gw is not None
                                        else (gx * gx).sum(), (x, w), allow_unused=True)))
    return out


VIEWS = {
    "row": lambda T, b: b[1],
    "col": lambda T, b: b[:, 2],
    "slice2d": lambda T, b: b[1:, :2],
    "t": lambda T, b: b.t(),
    "transpose_row": lambda T, b: b.transpose(0, 1)[0],
    "diagonal": lambda T, b: b.diagonal(),
    "view_flat": lambda T, b: b.view(9)[2:5],
    "narrow": lambda T, b: b.narrow(0, 1, 1).squeeze(0),
    "permute": lambda T, b: b.permute(1, 0)[2],
    "unsqueeze": lambda T, b: b.unsqueeze(0)[0, 0],
    "view_of_view": lambda T, b: b[1:][:, 1:][0],
    "T": lambda T, b: b.T[1],
}
VIEW_OPS = {
    "mul_w": lambda T, v, w: v.mul_(w),
    "add_w": lambda T, v, w: v.add_(w * 2),
    "exp_": lambda T, v, w: v.exp_(),
    "copy_w": lambda T, v, w: v.copy_(w),
    "zero_": lambda T, v, w: v.zero_(),
    "setitem": lambda T, v, w: v.__setitem__(slice(0, 1), w[1:2] * 5),
    "clamp_": lambda T, v, w: v.clamp_(-0.5, 1.),
    "pow_": lambda T, v, w: v.pow_(2),
}


@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("op", sorted(VIEW_OPS))
def test_inplace_on_view_of_non_leaf_matches_torch(view, op):
    vw, fn = VIEWS[view], VIEW_OPS[op]

    def run(T):
        def f(T, v, w):
            if op in ("mul_w", "add_w", "copy_w") and v.dim() == 2:
                w = w[:v.shape[1]]
            elif op in ("mul_w", "add_w", "copy_w"):
                w = w[:v.shape[0]]
            return fn(T, v, w)
        return _view_case(T, vw, f)
    compare(run, atol=1e-5)


def test_inplace_on_base_updates_live_views(T):
    x = T.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    b = x * 1
    r0, col = b[0], b[:, 1]
    b.mul_(T.tensor([[2., 3.], [5., 7.]]))
    assert lst(r0) == [2., 6.] and lst(col) == [6., 28.]
    g, = T.autograd.grad((r0 * T.tensor([1., 10.])).sum(), x, retain_graph=True)
    assert lst(g) == [[2., 30.], [0., 0.]]
    g, = T.autograd.grad(col.sum(), x)
    assert lst(g) == [[0., 3.], [0., 7.]]


def test_live_views_follow_their_base_after_many_dropped_views():
    """The base's list of its views drops dead ones in bulk: views made and
    dropped by the hundred leave the list bounded, and the live views (made
    before, between and after them) still follow the base when it starts to
    require grad through an in-place op."""
    base = tp.zeros(4)
    live = [base[:2]]
    for i in range(500):
        base[1:3]                       # made and dropped at once
        if i % 100 == 99:
            live.append(base[i // 100 % 4:])      # base[0:], base[1:], base[2:], ...
    assert len(base._views) <= 128
    w = tp.tensor([1., 2., 3., 4.], requires_grad=True)
    base.add_(w)
    assert all(v.requires_grad for v in live)
    g, = tp.autograd.grad(sum(v.sum() for v in live), w)
    # base[:2], then base[0:], base[1:], base[2:], base[3:], base[0:]
    assert lst(g) == [3., 4., 4., 5.]


def test_several_views_after_inplace_on_one():
    def run(T):
        x = T.tensor([1., 2., 3., 4.], requires_grad=True)
        b = x * 1
        a, c = b[:2], b[1:]
        a.mul_(10)
        c.add_(T.tensor([1., 1., 1.]) * x[0])
        ga = T.autograd.grad((a * T.tensor([1., 2.])).sum(), x, retain_graph=True)
        gc = T.autograd.grad((c * T.tensor([1., 2., 3.])).sum(), x, retain_graph=True)
        gb = T.autograd.grad((b * b).sum(), x)
        return [a, b, c, ga, gc, gb]
    compare(run)


def test_several_views_values(T):
    x = T.tensor([1., 2., 3., 4.], requires_grad=True)
    b = x * 1
    a, c = b[:2], b[1:]
    a.mul_(10)
    assert lst(c) == [20., 3., 4.] and lst(b) == [10., 20., 3., 4.]
    c.add_(T.tensor([1., 1., 1.]) * x[0])
    assert lst(a) == [10., 21.]
    ga, = T.autograd.grad((a * T.tensor([1., 2.])).sum(), x)
    assert lst(ga) == [10. + 2., 20., 0., 0.]


def test_view_of_base_not_requiring_grad_gets_grad_value(T):
    base = T.zeros(2, 3)
    w = T.tensor([1., 2., 3.], requires_grad=True)
    v = base[1]
    other = base[:, 0]
    v.copy_(w * 2)
    assert base.requires_grad and not base.is_leaf
    assert v.requires_grad and other.requires_grad
    assert lst(base) == [[0., 0., 0.], [2., 4., 6.]]
    g, = T.autograd.grad((base * T.tensor([[1., 1., 1.], [1., 10., 100.]])).sum(), w,
                         retain_graph=True)
    assert lst(g) == [2., 20., 200.]
    g, = T.autograd.grad(other.sum(), w)
    assert lst(g) == [2., 0., 0.]


def test_view_of_base_not_requiring_grad_matches_torch():
    def run(T):
        base = T.ones(3, 3)
        w = T.tensor([1., 2., 3.], requires_grad=True)
        v = base.t()[1:]
        v.mul_(w[:3])
        loss = (base * base).sum() + v.sum()
        return [base, v, T.autograd.grad(loss, w)]
    compare(run)


def test_inplace_on_view_then_base_op(T):
    x = T.tensor([1., 2., 3.], requires_grad=True)
    b = x.clone()
    b[0].mul_(5)
    b.add_(1)
    b[1:].exp_()
    b.sum().backward()
    e2, e3 = np.exp(3.), np.exp(4.)
    assert_close(lst(x.grad), [5., e2, e3])


def test_inplace_view_version_checks(T):
    x = T.tensor([1., 2., 3.], requires_grad=True)
    b = x * 1
    v = b[1:]
    z = v * v                          # saves v
    b[0].mul_(2)                       # any write to the base bumps the shared version
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_detach_view_inplace_is_seen_by_graph_checks(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x.exp()
    y.detach()[0].zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


MULTI = ("Output {} of {} is a view and is being modified inplace. This view is the output of a "
         "function that returns multiple views. Such functions do not allow the output views to "
         "be modified inplace. You should replace the inplace operation by an out-of-place one.")


def test_inplace_on_multi_output_view_raises(T):
    x = T.tensor([1., 2., 3., 4.], requires_grad=True)
    b = x * 1
    p, q = b.split(2)
    with pytest.raises(RuntimeError, match=_exact(MULTI.format(1, "Split"))):
        q.mul_(3)
    r0, r1 = (x * 2).view(2, 2).unbind(0)
    with pytest.raises(RuntimeError, match=_exact(MULTI.format(1, "Unbind"))):
        r1.add_(1)
    with pytest.raises(RuntimeError, match="is a view and is being modified inplace"):
        b.chunk(2)[0][1:].zero_()
    assert lst(b) == [1., 2., 3., 4.]
    # without grad recording it is allowed
    with T.no_grad():
        q.mul_(3)
    assert lst(b) == [1., 2., 9., 12.]


def test_base_inplace_with_multi_output_views_alive(T):
    # the views of a multi-output op cannot take a history through a write to their
    # base: using one afterwards raises (PyTorch's rule); the base itself is fine
    x = T.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    b = x * 2
    r0, r1 = b.unbind(0)
    b.add_(1)
    assert lst(r1) == [7., 9.]
    msg = ("Output 1 of Unbind is a view and its base or another view of its base has been "
           "modified inplace. This view is the output of a function that returns multiple views. "
           "Such functions do not allow the output views to be modified inplace. You should "
           "replace the inplace operation by an out-of-place one.")
    with pytest.raises(RuntimeError, match=_exact(msg)):
        r1 * r1
    with pytest.raises(RuntimeError, match=_exact(msg)):
        r1.grad_fn
    g2, = T.autograd.grad((b * b).sum(), x)
    assert lst(g2) == [[12., 20.], [28., 36.]]
    with T.no_grad():               # without a history to remake, the view is usable
        assert lst(r1 * 2) == [14., 18.]


def test_multi_output_views_of_a_base_without_grad(T):
    # the views had no history (their base did not require grad when they were made):
    # PyTorch words the refusal as for a view made without grad, then the same reason
    w = T.ones(4, 4, requires_grad=True)
    tail = (" This view is the output of a function that returns multiple views. Such functions "
            "do not allow the output views to be modified inplace. You should replace the "
            "inplace operation by an out-of-place one.")
    c = T.ones(4, 4)
    s0, s1 = c.split(2)
    with pytest.raises(RuntimeError, match=_exact(
            "A view was created in no_grad mode and is being modified inplace with grad mode "
            "enabled." + tail)):
        s0.mul_(w)
    c = T.ones(4, 4)
    s0, s1 = c.split(2)
    c.mul_(w)                       # the base now requires grad; the view cannot follow
    with pytest.raises(RuntimeError, match=_exact(
            "A view was created in no_grad mode and its base or another view of its base has "
            "been modified inplace with grad mode enabled." + tail)):
        s0.grad_fn
    c = T.ones(2, 4)                # nothing requires grad: writing is fine
    r0, r1 = c.unbind(0)
    r0.mul_(2)
    assert lst(c) == [[2.] * 4, [1.] * 4] and r0.grad_fn is None


def test_reshaping_inplace_ops(T):
    x = T.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    y = x * 1
    y.t_()
    assert tuple(y.shape) == (3, 2) and y.grad_fn.name().startswith("TBackward")
    y.unsqueeze_(0)
    assert tuple(y.shape) == (1, 3, 2)
    y.squeeze_(0)
    y.transpose_(0, 1)
    assert tuple(y.shape) == (2, 3)
    (y * T.tensor([[1., 2., 3.], [4., 5., 6.]])).sum().backward()
    assert lst(x.grad) == [[1., 2., 3.], [4., 5., 6.]]
    z = T.zeros(2, 3)
    v0 = ver(z)
    z.unsqueeze_(1)
    assert tuple(z.shape) == (2, 1, 3) and ver(z) == v0 + 1


def test_expand_view_inplace_raises(T):
    x = T.tensor([1., 2.], requires_grad=True)
    e = (x * 1).expand(3, 2)
    with pytest.raises(RuntimeError, match="unsupported operation: more than one element of the "
                                           "written-to tensor refers to a single memory location"):
        e.add_(1)


def test_setitem_zero_dim_tensor_value(T):
    g = T.zeros(3)
    g[1] = T.tensor(2.)
    g[T.tensor(2)] = T.tensor(5.)
    assert lst(g) == [0., 2., 5.]
    x = T.tensor(4., requires_grad=True)
    h = T.zeros(3)
    h[0] = x * 2
    h.sum().backward()
    assert lst(x.grad) == 2.


# ------------------------------------------------------------------ dtype and shape errors
def test_inplace_dtype_promotion_raises(T):
    x = T.tensor([1, 2])
    with pytest.raises(RuntimeError, match=_exact("result type Float can't be cast to the desired "
                                                  "output type Long")):
        x.add_(T.tensor([1.5, 1.]))
    with pytest.raises(RuntimeError, match=_exact("result type Float can't be cast to the desired "
                                                  "output type Long")):
        x.mul_(1.5)
    with pytest.raises(RuntimeError, match=_exact("result type Float can't be cast to the desired "
                                                  "output type Long")):
        x += 0.5
    assert lst(x) == [1, 2]
    b = T.tensor([True, False])
    with pytest.raises(RuntimeError, match=_exact("result type Long can't be cast to the desired "
                                                  "output type Bool")):
        b.add_(T.tensor([1, 1]))


def test_inplace_int_division_raises(T):
    x = T.tensor([4, 6])
    with pytest.raises(RuntimeError, match=_exact("result type Float can't be cast to the desired "
                                                  "output type Long")):
        x.div_(2)
    x.floor_divide_(2) if hasattr(x, "floor_divide_") else None


def test_inplace_downcast_allowed(T):
    x = T.tensor([1., 2.])
    x.add_(T.tensor([1., 1.], dtype=T.float64))
    assert x.dtype == T.float32 and lst(x) == [2., 3.]
    x.mul_(T.tensor([2, 2]))
    assert x.dtype == T.float32 and lst(x) == [4., 6.]
    y = T.tensor([1, 2], dtype=T.int32)
    y.add_(T.tensor([1, 1], dtype=T.int64))
    assert y.dtype == T.int32


def test_inplace_broadcast_changing_shape_raises(T):
    x = T.zeros(3)
    with pytest.raises(RuntimeError, match=_exact("output with shape [3] doesn't match the "
                                                  "broadcast shape [2, 3]")):
        x.add_(T.ones(2, 3))
    y = T.zeros(1, 3)
    with pytest.raises(RuntimeError, match=_exact("output with shape [1, 3] doesn't match the "
                                                  "broadcast shape [2, 3]")):
        y.mul_(T.ones(2, 1))
    assert lst(x) == [0., 0., 0.] and ver(x) == 0


def test_inplace_broadcast_that_fits_is_fine(T):
    x = T.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    w = T.tensor([10., 20.], requires_grad=True)
    y = x * 1
    y.add_(w)
    y.sum().backward()
    assert lst(w.grad) == [2., 2.]
    assert lst(x.grad) == [[1., 1.], [1., 1.]]


def test_inplace_complex_into_real_raises(T):
    x = T.zeros(2)
    with pytest.raises(RuntimeError, match=_exact("result type ComplexFloat can't be cast to the "
                                                  "desired output type Float")):
        x.add_(T.tensor([1j, 1j]))


# ------------------------------------------------------------------ grads of in-place ops seen by hooks
def test_hook_on_tensor_before_inplace(T):
    seen = []
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 1
    y.register_hook(lambda g: seen.append(lst(g)))
    y.mul_(3)
    y.sum().backward()
    assert seen == [[3., 3.]]


def test_retain_grad_then_inplace(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x * 1
    y.retain_grad()
    y.mul_(3)
    y.sum().backward()
    assert lst(y.grad) == [1., 1.]
    assert lst(x.grad) == [3., 3.]


# ------------------------------------------------------------------ views' histories after writes
@pytest.mark.parametrize("same", [False, True], ids=["disjoint", "same region"])
def test_retain_grad_on_two_views_then_inplace_on_one(T, same):
    # the retained grads follow the views' remade histories (once: 2 and None, or 4 and None)
    x = T.ones(4, requires_grad=True)
    base = x * 1
    v1, v2 = base[:2], base[:2] if same else base[2:]
    v1.retain_grad()
    v2.retain_grad()
    v1.mul_(2)
    (v1.sum() + v2.sum()).backward()
    assert lst(v1.grad) == [1., 1.] and lst(v2.grad) == [1., 1.]
    assert lst(x.grad) == ([4., 4., 0., 0.] if same else [2., 2., 1., 1.])


def test_retain_grad_on_views_then_inplace_on_base(T):
    x = T.ones(4, requires_grad=True)
    base = x * 1
    v1, v2 = base[:2], base[1:]
    v1.retain_grad()
    v2.retain_grad()
    base.mul_(3)
    (v1 * T.tensor([1., 2.])).sum().backward()
    assert lst(v1.grad) == [1., 2.]
    assert v2.grad is None              # not on the path of this backward
    assert lst(x.grad) == [3., 6., 0., 0.]


def test_retained_view_grad_not_on_the_base_path(T):
    # the loss reads only the base: the views' (remade) histories are not on its path
    x = T.ones(4, requires_grad=True)
    base = x * 1
    v1, v2 = base[:2], base[2:]
    v1.retain_grad()
    v2.retain_grad()
    v1.mul_(2)
    base.sum().backward()
    assert v1.grad is None and v2.grad is None
    assert lst(x.grad) == [2., 2., 1., 1.]


def test_view_history_goes_through_the_base_after_its_reshaping_inplace(T):
    # after base.t_(), a view's gradient passes the base's new history (and its hooks)
    x = T.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    base = x * 1
    v = base[1]
    base.t_()
    base.register_hook(lambda g: g * -1)
    (v * T.tensor([1., 2., 3.])).sum().backward()
    assert lst(x.grad) == [[0., 0., 0.], [-1., -2., -3.]]


def test_view_history_remade_after_no_grad_write(T):
    # a write under no_grad still moves the version: the view's history is remade
    # (a new node), so the old graph does not reach it
    x = T.ones(3, requires_grad=True)
    base = x * 2
    v = base[:2]
    loss = (v * 3).sum()
    old = v.grad_fn
    with T.no_grad():
        base.add_(1)
    assert v.grad_fn is not old and v.grad_fn is not None
    loss.backward(inputs=[v])
    assert v.grad is None
    (v * 1).sum().backward()
    assert lst(x.grad) == [2., 2., 0.]


def test_no_grad_view_after_base_write_raises(T):
    x = T.ones(3, requires_grad=True)
    base = x * 1
    with T.no_grad():
        v = base[:2]
    base.mul_(2)
    msg = ("A view was created in no_grad mode and its base or another view of its base has been "
           "modified inplace with grad mode enabled. Given that this use case is ambiguous and "
           "error-prone, it is forbidden. You can clarify your code by moving both the view and the "
           "inplace either both inside the no_grad block (if you don't want the inplace to be "
           "tracked) or both outside (if you want the inplace to be tracked).")
    with pytest.raises(RuntimeError, match=_exact(msg)):
        v.grad_fn


def test_view_of_plain_base_after_base_gets_history(T):
    # a base that did not require grad gets a history through one view: the other
    # views require grad and take "view of the new base" as their history
    w = T.tensor([1., 2., 3.], requires_grad=True)
    b = T.zeros(2, 3)
    v0, v1 = b[0], b[1]
    v0.add_(w)
    assert v1.requires_grad and not v1.is_leaf and b.grad_fn is not None
    v1.mul_(w)                          # no leaf error: v1 is a view of a non-leaf now
    (b * T.tensor([[1., 1., 1.], [2., 2., 2.]])).sum().backward()
    assert lst(w.grad) == [1., 1., 1.]  # v1 was zero: d(v1 * w)/dw = v1 = 0


def test_write_through_one_view_does_not_touch_the_others():
    # the cost of a write through one of n views does not grow with n (histories are
    # remade when next needed, not at every write): count the ops run
    from conftest import record_ops

    def ops_for_one_write(n):
        x = tp.ones(n, requires_grad=True)
        base = x * 1
        views = [base[i] for i in range(n)]
        views[0].mul_(2)                # the first write remakes nothing but its own view
        rec = record_ops(lambda: views[1].mul_(2))
        return len(rec.seen), views

    few, _ = ops_for_one_write(4)
    many, views = ops_for_one_write(200)
    assert few == many
    total = sum(v.sum() for v in views)
    total.backward()                    # each view's history is remade once, when read


@pytest.mark.parametrize("dst,src,msg", [
    ((2,), (3,), "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    ((2, 3), (3, 2), "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"),
    ((2, 3), (2,), "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"),
])
def test_copy_of_a_shape_that_does_not_broadcast_is_pytorchs_error(dst, src, msg):
    with pytest.raises(RuntimeError, match=re.escape(msg)):
        tp.zeros(*dst).copy_(tp.ones(*src))
