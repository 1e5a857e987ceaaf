"""Behaviour of indexing and shape ops beyond the op table: views share memory and the
version counter, __setitem__ semantics, values against PyTorch.  The ops' error
inputs (type and message against PyTorch) are rows' ``errors`` in tests/opdb."""
import warnings

import numpy as np
import pytest

import tensorplay as tp

from conftest import torch


def _both(f):
    """Run ``f(T)`` with tensorplay and torch: same exception type and message, or same values."""
    res = []
    for T in (tp, torch):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = f(T)
            res.append(("ok", r))
        except Exception as e:           # noqa: BLE001
            res.append((type(e).__name__, str(e).replace("tensorplay", "torch")))
    (ka, a), (kb, b) = res
    assert ka == kb, (res[0], res[1])
    if ka == "ok":
        outs_a = a if isinstance(a, (tuple, list)) else (a,)
        outs_b = b if isinstance(b, (tuple, list)) else (b,)
        assert len(outs_a) == len(outs_b)
        for x, y in zip(outs_a, outs_b):
            np.testing.assert_allclose(x.detach().numpy().astype(float), y.detach().numpy().astype(float))
            assert tuple(x.shape) == tuple(y.shape)
    else:
        assert a == b


X = np.arange(12.0).reshape(3, 4)


def x_(T):
    return T.tensor(X)


VALUES = {
    "basic": lambda T: (x_(T)[1], x_(T)[:, 1:3], x_(T)[None, ..., ::2], x_(T)[..., -1], x_(T)[1:2, None]),
    "advanced": lambda T: (x_(T)[[0, 0, 2]], x_(T)[[0, 2], [1, 3]], x_(T)[:, [3, 0]], x_(T)[1, [0, 0]]),
    "numpy_differs": lambda T: T.arange(24).reshape(2, 3, 4)[0, :, [1, 2]],
    "mask": lambda T: (x_(T)[x_(T) > 4], x_(T)[T.tensor([True, False, True])], x_(T)[:, T.tensor([1, 0, 0, 1], dtype=T.bool)]),
    "uint8_mask": lambda T: x_(T)[T.tensor([1, 0, 1], dtype=T.uint8)],
    "int32_index": lambda T: x_(T)[T.tensor([2, 0], dtype=T.int32)],
    "zero_d_index": lambda T: (x_(T)[T.tensor(1)], x_(T)[T.tensor(True)], x_(T)[False]),
    "list_as_tuple": lambda T: (x_(T)[[0, slice(None)]], x_(T)[[[0, 1]]]),
    "empty_list": lambda T: x_(T)[[]],
    "double_ellipsis": lambda T: x_(T)[..., ...],
    "cat_legacy_empty": lambda T: T.cat([T.zeros(0, dtype=T.float64), x_(T)]),
    "cat_promote": lambda T: T.cat([x_(T), T.ones(1, 4, dtype=T.int64)]),
    "stack_promote": lambda T: T.stack([T.tensor(1.0), T.tensor(2, dtype=T.int64)]),
    "chunk_uneven": lambda T: x_(T).chunk(3, 1),
    "tensor_split": lambda T: T.tensor_split(x_(T), 3, 1) + T.tensor_split(x_(T), [1, 3], 1),
    "nonzero": lambda T: (T.nonzero(x_(T) > 5), T.nonzero(T.tensor(3)), T.tensor(0).nonzero()),
    "nonzero_tuple": lambda T: T.nonzero(x_(T) > 5, as_tuple=True) + T.nonzero(T.tensor(3), as_tuple=True),
    "index_select_0d": lambda T: (T.index_select(T.tensor(2.0), 0, T.tensor([0])), x_(T).index_select(1, T.tensor(2))),
    "take_neg": lambda T: x_(T).take(T.tensor([[-1, 0]])),
    "index_fill_neg": lambda T: x_(T).index_fill(1, T.tensor([-1]), 7.0),
    "masked_fill_bcast_out": lambda T: x_(T).masked_fill(T.ones(2, 3, 4, dtype=T.bool), 1.0),
    "roll_flat": lambda T: x_(T).roll(-5),
    "diagonal_offsets": lambda T: (x_(T).diagonal(2), x_(T).diagonal(-2), x_(T).diagonal(9)),
    "scatter_add_larger_src": lambda T: x_(T).scatter_add(0, T.tensor([[0, 2]]), T.ones(2, 3, dtype=T.float64)),
}


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_match_torch(name, torch_or_skip):
    _both(VALUES[name])


# ----------------------------------------------------------------------------- views
@pytest.mark.parametrize("view", [
    lambda x: x[1], lambda x: x[:, 1:3], lambda x: x[None, ..., ::2], lambda x: x[...],
    lambda x: x.narrow(1, 1, 2), lambda x: x.diagonal(), lambda x: x.split(2, 1)[1],
    lambda x: x.chunk(2)[0], lambda x: x.unbind(1)[2], lambda x: x.movedim(0, 1), lambda x: x[1, 2],
])
def test_views_share_memory_and_version(view):
    x = tp.arange(12.0).reshape(3, 4).clone()
    v = view(x)
    assert v._base is x or v._base is getattr(x, "_base", None)
    v0 = x._version
    v.fill_(100.0)
    assert x._version == v0 + 1 and v._version == x._version
    assert (x == 100.0).sum().item() == v.numel()
    x.add_(1.0)
    assert v._version == x._version
    assert bool((v == 101.0).all())


def test_advanced_index_is_a_copy():
    x = tp.arange(6.0)
    y = x[[0, 1]]
    y.fill_(9.0)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert getattr(y, "_base", None) is None


def test_view_sees_setitem_on_base():
    x = tp.zeros(3, 4)
    v = x[1]
    x[1, 2] = 5.0
    assert v.tolist() == [0.0, 0.0, 5.0, 0.0]


def test_saved_view_modified_raises():
    a = tp.randn(3, 4, requires_grad=True)
    b = a * 1
    c = b[1:] ** 2                        # pow saves the view b[1:]; it shares b's version counter
    b[0, 0] = 3.0                         # so writing any part of b invalidates it (as in PyTorch)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()


def test_saved_tensor_modified_by_setitem_raises():
    a = tp.randn(3, requires_grad=True)
    b = a * 1
    c = b.exp()                           # saves its output
    d = c * 1
    c2 = b.sin()                          # saves b
    b[0] = 1.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c2.sum().backward()
    d.sum().backward()


# ----------------------------------------------------------------------------- setitem
def test_setitem_semantics():
    x = tp.zeros(3, 4)
    x[0] = 1.0
    x[1, 1:3] = tp.tensor([2.0, 3.0])
    x[[2, 2], [0, 3]] = tp.tensor([4.0, 5.0])
    x[x == 0] = -1.0
    x[..., -1] = x[..., -1] * 10
    assert x.tolist() == [[1, 1, 1, 10], [-1, 2, 3, -10], [4, -1, -1, 50]]
    y = tp.zeros(3, dtype=tp.int64)
    y[0] = 2.7                             # cast like PyTorch: truncation
    y[1:] = tp.tensor([1.5, -1.5])
    assert y.tolist() == [2, 1, -1]
    z = tp.zeros(2, 3)
    z[0] = tp.ones(1, 3)                   # leading size-1 dims of the value are dropped
    z[:, :] = tp.ones(1, 1, 3) * 2
    assert z.tolist() == [[2, 2, 2], [2, 2, 2]]
    s = tp.tensor(1.0)
    s[...] = 3.0
    assert s.item() == 3.0


def test_setitem_bumps_version():
    x = tp.zeros(3)
    v = x._version
    x[0] = 1.0
    x[[1]] = 2.0
    assert x._version == v + 2


def test_setitem_grad_value_and_old_content(torch_or_skip):
    def run(T):
        a = T.tensor(X, requires_grad=True)
        v = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
        b = a * 2
        b[1, [0, 3]] = v
        b[b > 20] = v[0] * 3
        b[0, 1:3] = v
        (b * T.tensor(X + 1)).sum().backward()
        return a.grad, v.grad, b
    ra, rt = run(tp), run(torch)
    for x, y in zip(ra, rt):
        np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy())


def test_setitem_leaf_errors(torch_or_skip):
    for key in [0, (Ellipsis,), [0], (0, [1]), None, ()]:
        msgs = []
        for T in (tp, torch):
            y = T.randn(3, 4, requires_grad=True)
            with pytest.raises(RuntimeError) as e:
                y[key] = 1.0
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1], key
    y = tp.randn(3, 4, requires_grad=True)
    with tp.no_grad():
        y[0] = 1.0                          # allowed under no_grad
    assert y[0].tolist() == [1.0] * 4


def test_index_grad_accumulates_duplicates():
    x = tp.zeros(4, requires_grad=True, dtype=tp.float64)
    x[[0, 0, 3, 0]].sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 0.0, 1.0]
    x = tp.zeros(3, 2, requires_grad=True, dtype=tp.float64)
    x.index_select(0, tp.tensor([1, 1])).sum().backward()
    assert x.grad.tolist() == [[0, 0], [2, 2], [0, 0]]


def test_grad_fn_names():
    x = tp.randn(3, 4, requires_grad=True)
    names = {
        "SelectBackward0": x[0], "SliceBackward0": x[1:], "AliasBackward0": x[...],
        "UnsqueezeBackward0": x[None], "IndexBackward0": x[[0]], "CatBackward0": tp.cat([x, x]),
        "StackBackward0": tp.stack([x, x]), "SplitBackward0": x.split(2)[0],
        "SplitWithSizesBackward0": x.split([1, 2])[0], "UnbindBackward0": x.unbind()[0],
        "GatherBackward0": x.gather(0, tp.tensor([[0]])), "TakeBackward0": x.take(tp.tensor([0])),
        "ScatterBackward0": x.scatter(0, tp.tensor([[0]]), x[:1, :1]),
        "ScatterBackward1": x.scatter(0, tp.tensor([[0]]), 1.0),
        "ScatterAddBackward0": x.scatter_add(0, tp.tensor([[0]]), x[:1, :1]),
        "IndexSelectBackward0": x.index_select(0, tp.tensor([0])),
        "MaskedFillBackward0": x.masked_fill(x > 0, 0.0),
        "MaskedSelectBackward0": x.masked_select(x > 0),
        "RepeatBackward0": x.repeat(2, 1), "FlipBackward0": x.flip(0), "RollBackward0": x.roll(1),
        "DiagonalBackward0": x.diagonal(), "TrilBackward0": x.tril(), "TriuBackward0": x.triu(),
        "PermuteBackward0": x.movedim(0, 1), "IndexPutBackward0": x.index_put((tp.tensor([0]),), x[0]),
        "IndexAddBackward0": x.index_add(0, tp.tensor([0]), x[:1]),
        "IndexFillBackward0": x.index_fill(0, tp.tensor([0]), 1.0),
        "IndexCopyBackward0": x.index_copy(0, tp.tensor([0]), x[:1]),
    }
    for name, y in names.items():
        assert type(y.grad_fn).__name__ == name


@pytest.mark.parametrize("call,node", [
    (lambda T, x: x.movedim(0, 0), "AliasBackward0"),
    (lambda T, x: T.movedim(x, (), ()), "AliasBackward0"),
    (lambda T, x: x.moveaxis(-1, 0), "AliasBackward0"),
    (lambda T, x: x.permute(()), "PermuteBackward0"),
], ids=["movedim", "movedim-empty", "moveaxis", "permute"])
def test_zero_dim_movedim_is_an_alias(T, call, node):
    """A 0-d tensor's movedim moves nothing: PyTorch returns an alias of it
    (AliasBackward0), where permute keeps its own node; both are views."""
    x = T.tensor(2., requires_grad=True)
    y = call(T, x)
    assert type(y.grad_fn).__name__ == node and y._base is x
    (g,) = T.autograd.grad(y * 3, x)
    assert g.item() == 3.0


def test_iteration_and_where():
    x = tp.arange(6.0).reshape(2, 3)
    rows = list(x)
    assert [r.tolist() for r in rows] == [[0, 1, 2], [3, 4, 5]]
    assert tp.where(x > 3)[1].tolist() == [1, 2]


def test_inplace_forms():
    x = tp.zeros(3, 4)
    x.index_fill_(1, tp.tensor([0]), 1.0).masked_fill_(x > 0, 2.0)
    x.index_add_(0, tp.tensor([2, 2]), tp.ones(2, 4))
    x.scatter_(1, tp.tensor([[3]]), 5.0)
    x.index_copy_(1, tp.tensor([1]), tp.full((3, 1), 7.0))
    x.index_put_((tp.tensor([1]), tp.tensor([2])), tp.tensor(-1.0), accumulate=True)
    x.tril_(1)
    assert x.tolist() == [[2, 7, 0, 0], [2, 7, -1, 0], [4, 7, 2, 2]]     # as PyTorch
