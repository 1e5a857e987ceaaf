"""The short paths of the view ops (basic index keys, movedim by int, unflatten
by a tuple, expand, permute, diagonal...) give what the general paths give:
the same values, nodes, memory and errors; and, where PyTorch is installed,
what PyTorch gives."""
import itertools

import numpy as np
import pytest

import tensorplay as tp

from conftest import torch


class Key(tuple):
    """A tuple key the short path of ``__getitem__`` does not take."""


def _chain(t):
    """The node names from ``t`` back to the leaf, first input each step."""
    names, fn = [], t.grad_fn
    while fn is not None:
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names


BASIC_KEYS = [(1,), (slice(None), 1), (1, 2), (-1, -2, -3), (slice(1, 3), slice(None, None, 2)),
              (Ellipsis, 0), (0, Ellipsis), (None, 1), (slice(None), None, 2), (0, Ellipsis, None, 1),
              (Ellipsis, None), (2, 3, 4), (slice(-2, None), 0, slice(1, -1)), (None, None, 0, None),
              (slice(5, 1), 0), (slice(None, None, 3), Ellipsis, slice(-1, None))]


@pytest.mark.parametrize("key", BASIC_KEYS, ids=str)
def test_basic_key_short_path_is_the_general_one(key):
    rng = np.random.default_rng(0)
    x = tp.tensor(rng.standard_normal((3, 4, 5)), requires_grad=True)
    fast, slow = x[key], x[Key(key)]
    assert fast.shape == slow.shape
    assert np.array_equal(fast.detach().numpy(), slow.detach().numpy())
    assert _chain(fast) == _chain(slow) and fast._base is x and slow._base is x
    w = tp.tensor(rng.standard_normal(tuple(fast.shape)))
    (gf,) = tp.autograd.grad((fast * w).sum(), x)
    (gs,) = tp.autograd.grad((slow * w).sum(), x)
    assert np.array_equal(gf.numpy(), gs.numpy())
    before = slow.detach().numpy().copy()
    with tp.no_grad():      # a view: writes through it reach x
        fast.add_(1)
    assert np.array_equal(x[key].detach().numpy(), before + 1)


@pytest.mark.parametrize("key", [(3,), (0, 4), (0, -5), (0, 0, 0, 0), (Ellipsis, Ellipsis),
                                 (1.0,), (True, 0), (0, slice(0, 2, -1)), (slice(0, 2, 0),),
                                 (0, Ellipsis, 0, 0, 0)], ids=str)
def test_basic_key_errors_are_the_general_ones(key):
    x = tp.zeros(3, 4, 5)
    outcomes = []
    for k in (key, Key(key)):
        try:
            outcomes.append(("ok", tuple(x[k].shape)))
        except Exception as e:  # noqa: BLE001 (compared below)
            outcomes.append((type(e).__name__, str(e)))
    assert outcomes[0] == outcomes[1]
    if torch is not None:
        try:
            want = ("ok", tuple(torch.zeros(3, 4, 5)[key].shape))
        except Exception as e:  # noqa: BLE001
            want = (type(e).__name__, str(e))
        assert outcomes[0][0] == want[0] and (want[0] != "ok" or outcomes[0] == want)


@pytest.mark.parametrize("key", BASIC_KEYS, ids=str)
def test_basic_keys_match_torch(key):
    if torch is None:
        pytest.skip("torch not installed")
    x = np.random.default_rng(1).standard_normal((3, 4, 5))
    a, b = tp.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ra, rb = a[key], b[key]
    assert tuple(ra.shape) == tuple(rb.shape)
    if None not in key:     # (a size-1 dim's stride: NumPy's choice after a select, not PyTorch's)
        assert ra.stride() == rb.stride()
    assert np.array_equal(ra.detach().numpy(), rb.detach().numpy())
    assert _chain(ra) == _chain(rb)


def test_movedim_by_int_is_movedim_by_list():
    for shape in [(5,), (2, 3), (2, 3, 4), (2, 3, 4, 5)]:
        n = len(shape)
        t = tp.ones(shape, requires_grad=True)
        for s, d in itertools.product(range(-n, n), repeat=2):
            fast, slow = t.movedim(s, d), t.movedim([s], [d])
            assert fast.shape == slow.shape and fast.stride() == slow.stride()
            assert type(fast.grad_fn) is type(slow.grad_fn) and fast._base is t
            if torch is not None:
                tt = torch.ones(shape)
                assert tuple(fast.shape) == tuple(tt.movedim(s, d).shape)
                assert fast.stride() == tt.movedim(s, d).stride()


def test_unflatten_by_tuple_is_unflatten_with_inference():
    x = tp.ones(2, 12)
    for dim, sizes in [(1, (3, 4)), (-1, (2, 2, 3)), (0, (1, 2)), (1, (12,)), (1, (1, 12, 1))]:
        fast = x.unflatten(dim, sizes)
        slow = x.unflatten(dim, [(-1 if i == 0 else s) for i, s in enumerate(sizes)])
        assert fast.shape == slow.shape and fast._base is x
        assert np.array_equal(fast.numpy(), slow.numpy())
    with pytest.raises(RuntimeError, match="don't multiply up to the size of dim 1"):
        x.unflatten(1, (5, 2))


@pytest.mark.parametrize("T", [tp, torch], ids=["tp", "torch"])
def test_flatten_with_nothing_to_flatten_returns_the_input(T):
    if T is None:
        pytest.skip("torch not installed")
    a = T.ones(4, requires_grad=True)
    m = T.ones(2, 3, requires_grad=True)
    assert a.flatten() is a and T.flatten(a) is a
    assert m.flatten(1, 1) is m and m.flatten(-1, 1) is m and m.flatten(0, -2) is m
    f = m.flatten()
    assert f is not m and f._base is m and type(f.grad_fn).__name__ == "ViewBackward0"
    s = T.ones(())
    assert s.flatten().shape == (1,)


@pytest.mark.parametrize("name", ["view_as", "expand_as", "reshape_as"])
def test_as_spellings_refuse_a_non_tensor(name):
    with pytest.raises(TypeError) as e:
        getattr(tp.ones(2), name)(3)
    assert str(e.value) == f"{name}(): argument 'other' (position 1) must be Tensor, not int"
    if torch is not None:
        with pytest.raises(TypeError) as e2:
            getattr(torch.ones(2), name)(3)
        assert str(e2.value) == str(e.value)


@pytest.mark.parametrize("dims", [(1, 0, 2), (-1, 0, 1), (0, 0, 1), (0, 1), (0, 1, 3), (0, 1, 2.0),
                                  ((2, 1, 0),), ([2, 0, 1],), (0, 1, -4)], ids=str)
def test_permute_fast_and_slow_agree_with_torch(dims):
    x = tp.zeros(2, 3, 4)
    try:
        got = ("ok", tuple(x.permute(*dims).shape))
    except Exception as e:  # noqa: BLE001
        got = (type(e).__name__, str(e))
    if got[0] == "ok":
        assert x.permute(*dims)._base is x
    if torch is not None:
        try:
            want = ("ok", tuple(torch.zeros(2, 3, 4).permute(*dims).shape))
        except Exception as e:  # noqa: BLE001
            want = (type(e).__name__, str(e))
        assert got[0] == want[0]
        if got[0] == "ok":
            assert got == want
        elif got[0] in ("RuntimeError", "IndexError"):   # (PyTorch's words name a sparse op)
            assert got == (want[0], want[1].replace("permute(sparse_coo)", "permute"))


@pytest.mark.parametrize("call", [
    lambda x: x.unsqueeze(0), lambda x: x.unsqueeze(-1), lambda x: x.unsqueeze(2),
    lambda x: x.unsqueeze(3), lambda x: x.unsqueeze(-4), lambda x: x.squeeze(),
    lambda x: x.squeeze(1), lambda x: x.squeeze(-2), lambda x: x.squeeze(0), lambda x: x.squeeze(2),
    lambda x: x.squeeze((0, 1)), lambda x: x.mT, lambda x: x.T, lambda x: x.diagonal(),
    lambda x: x.diagonal(1, -1, 0), lambda x: x.expand(2, 3, 1), lambda x: x.expand(4, -1, -1),
    lambda x: x.expand(3, 4), lambda x: x.expand(3, 5), lambda x: x.view(-1), lambda x: x.view(-1, -1),
    lambda x: x.view(-2, 3), lambda x: x.view(()), lambda x: x.view(3, 1),
], ids=lambda c: "")
def test_shape_views_match_torch(call):
    """Shape, strides, node and error of the views whose kernels take a short
    way for the commonest arguments."""
    if torch is None:
        pytest.skip("torch not installed")
    x = np.arange(3.).reshape(3, 1)
    out = []
    for T in (tp, torch):
        t = T.tensor(x, requires_grad=True)
        try:
            r = call(t)
            out.append(("ok", tuple(r.shape), r.stride(), type(r.grad_fn).__name__, r._base is t))
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    assert out[0] == out[1]


def test_diagonal_is_writable_exactly_where_its_input_is():
    m = tp.zeros(3, 4)
    d = m.diagonal(1)
    d += 1
    assert m.numpy()[[0, 1, 2], [1, 2, 3]].tolist() == [1, 1, 1] and m.sum().item() == 3
    assert not tp.ones(4).expand(3, 4).diagonal()._data.flags.writeable    # (as its input)
    assert tp.zeros(2, 0).diagonal().shape == (0,)


@pytest.mark.parametrize("T", [tp, torch], ids=["tp", "torch"])
def test_ravel_is_contiguous_then_view(T):
    if T is None:
        pytest.skip("torch not installed")
    a = T.arange(6.).reshape(2, 3).requires_grad_()
    r = a.ravel()
    assert r.shape == (6,) and type(r.grad_fn).__name__ == "ViewBackward0" and r._base is a._base
    s = T.ravel(a.t())          # not contiguous: a copy first
    assert s.tolist() == [0., 3., 1., 4., 2., 5.]
    assert [type(s.grad_fn).__name__, type(s.grad_fn.next_functions[0][0]).__name__] == \
        ["ViewBackward0", "CloneBackward0"]
    (g,) = T.autograd.grad((s * T.arange(6.)).sum(), a)
    assert g.tolist() == [[0., 2., 4.], [1., 3., 5.]]
    with pytest.raises(TypeError, match=r"ravel\(\): argument 'input' \(position 1\) must be Tensor"):
        T.ravel(3)


def test_reshape_of_a_non_tensor_names_reshape(T):
    """reshape goes through view's dispatch; its refusal of a non-tensor still
    names reshape, as PyTorch's does."""
    with pytest.raises(TypeError) as e:
        T.reshape([1., 2.], (2,))
    assert str(e.value) == "reshape(): argument 'input' (position 1) must be Tensor, not list"


@pytest.mark.parametrize("args", [(), (1,), (0, 1), (-2, -1), (1, -1), (2, 1), (0, 5), (1, 2.0),
                                  (True,), ("a",), (None,)], ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_flatten_is_reshape(args, layout):
    """PyTorch's flatten is a reshape: a view over contiguous memory, else a
    clone and an _unsafe_view; its argument errors are the parser's."""
    out = []
    for T in (tp, torch):
        if T is None:
            continue
        m = T.arange(24.).reshape(2, 3, 4).requires_grad_()
        if layout == "transposed":
            m = m.transpose(0, 1)
        try:
            r = m.flatten(*args)
            fn = r.grad_fn
            out.append(("ok", tuple(r.shape), r.stride(), r.tolist(), type(fn).__name__,
                        type(fn.next_functions[0][0]).__name__, r._base is not None))
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    if layout == "transposed" and args == ():
        assert out[0][4:6] == ("UnsafeViewBackward0", "CloneBackward0") and not out[0][6]
    if len(out) == 2:
        assert out[0] == out[1]
