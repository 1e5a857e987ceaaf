"""Packed sequences (``nn.utils.rnn``: ``PackedSequence``, ``pack_padded_sequence``,
``pad_packed_sequence``, ``pack_sequence``, ``unpack_sequence``,
``invert_permutation``) and the recurrent layers (RNN, GRU, LSTM with and without
``proj_size``) run on them: values, gradients (input data, every parameter,
h0/c0) and error messages against PyTorch with identical weights, plus
gradcheck/gradgradcheck and torch-free oracles (each sequence run on its own)."""
import numpy as np
import pytest

import tensorplay as tp
import tensorplay.nn as nn
from tensorplay.nn.utils import rnn as R

from conftest import assert_close, exact, torch

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def _np(t):
    return t.detach().numpy()


def _pair(x, requires_grad=False):
    """The same float64 array as a tensorplay tensor and a torch tensor."""
    a = tp.tensor(x, requires_grad=requires_grad)
    b = torch.tensor(x, requires_grad=requires_grad) if torch is not None else None
    return a, b


# ---------------------------------------------------------------- packing functions
@needs_torch
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("lengths_kind", ["list", "int64", "int32"])
def test_pack_padded_sequence_matches_torch(batch_first, enforce_sorted, lengths_kind):
    rng = np.random.default_rng(1)
    lens = [6, 4, 4, 2, 1] if enforce_sorted else [2, 6, 1, 4, 4]
    shape = (5, 6, 3, 2) if batch_first else (6, 5, 3, 2)
    x = rng.standard_normal(shape)
    xp, xt = _pair(x, True)
    if lengths_kind == "list":
        lp = lt = lens
    else:
        lp = tp.tensor(lens, dtype=getattr(tp, lengths_kind))
        lt = torch.tensor(lens, dtype=getattr(torch, lengths_kind))
    pp = R.pack_padded_sequence(xp, lp, batch_first=batch_first, enforce_sorted=enforce_sorted)
    pt = torch.nn.utils.rnn.pack_padded_sequence(xt, lt, batch_first=batch_first,
                                                 enforce_sorted=enforce_sorted)
    assert isinstance(pp, R.PackedSequence)
    assert_close(_np(pp.data), _np(pt.data), atol=0, rtol=0)
    assert pp.batch_sizes.dtype == tp.int64 and pp.batch_sizes.tolist() == pt.batch_sizes.tolist()
    for a, b in ((pp.sorted_indices, pt.sorted_indices), (pp.unsorted_indices, pt.unsorted_indices)):
        if b is None:
            assert a is None
        else:
            assert a.dtype == tp.int64 and a.tolist() == b.tolist()
    w = rng.standard_normal(tuple(pt.data.shape))
    (pp.data * tp.tensor(w)).sum().backward()
    (pt.data * torch.tensor(w)).sum().backward()
    assert_close(_np(xp.grad), xt.grad.numpy(), atol=0, rtol=0)


@needs_torch
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("total_length,padding_value", [(None, 0.0), (8, -1.5)])
def test_pad_packed_sequence_matches_torch(batch_first, enforce_sorted, total_length, padding_value):
    rng = np.random.default_rng(2)
    lens = [5, 3, 3, 1] if enforce_sorted else [3, 1, 5, 3]
    seqs = [rng.standard_normal((n, 2)) for n in lens]
    sp = [tp.tensor(s, requires_grad=True) for s in seqs]
    st = [torch.tensor(s, requires_grad=True) for s in seqs]
    pp = R.pack_sequence(sp, enforce_sorted=enforce_sorted)
    pt = torch.nn.utils.rnn.pack_sequence(st, enforce_sorted=enforce_sorted)
    outp, lenp = R.pad_packed_sequence(pp, batch_first=batch_first, padding_value=padding_value,
                                       total_length=total_length)
    outt, lent = torch.nn.utils.rnn.pad_packed_sequence(pt, batch_first=batch_first,
                                                        padding_value=padding_value,
                                                        total_length=total_length)
    assert_close(_np(outp), outt.detach().numpy(), atol=0, rtol=0)
    assert lenp.dtype == tp.int64 and lenp.tolist() == lent.tolist()
    w = rng.standard_normal(tuple(outt.shape))
    (outp * tp.tensor(w)).sum().backward()
    (outt * torch.tensor(w)).sum().backward()
    for a, b in zip(sp, st):
        assert_close(_np(a.grad), b.grad.numpy(), atol=0, rtol=0)


@needs_torch
def test_pack_sequence_ties_int_data_and_unpack():
    lens = [2, 2, 2, 3, 3, 1, 2, 4, 4, 1, 1, 2]
    seqs = [np.arange(n) + 10 * i for i, n in enumerate(lens)]
    pp = R.pack_sequence([tp.tensor(s) for s in seqs], enforce_sorted=False)
    pt = torch.nn.utils.rnn.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False)
    assert pp.sorted_indices.tolist() == pt.sorted_indices.tolist()     # ties keep their order
    assert pp.unsorted_indices.tolist() == pt.unsorted_indices.tolist()
    assert pp.data.dtype == tp.int64 and pp.data.tolist() == pt.data.tolist()
    assert pp.batch_sizes.tolist() == pt.batch_sizes.tolist()
    outp, _ = R.pad_packed_sequence(pp, padding_value=2.5)
    outt, _ = torch.nn.utils.rnn.pad_packed_sequence(pt, padding_value=2.5)
    assert outp.dtype == tp.int64 and outp.tolist() == outt.tolist()
    back = R.unpack_sequence(pp)
    assert [b.tolist() for b in back] == [s.tolist() for s in seqs]


def test_pack_roundtrip_without_torch():
    rng = np.random.default_rng(3)
    lens = [2, 5, 1, 3]
    x = rng.standard_normal((4, 5, 3))                       # batch first
    p = R.pack_padded_sequence(tp.tensor(x), lens, batch_first=True, enforce_sorted=False)
    assert p.batch_sizes.tolist() == [4, 3, 2, 1, 1]
    assert p.sorted_indices.tolist() == [1, 3, 0, 2]
    assert p.unsorted_indices.tolist() == [2, 0, 3, 1]
    assert_close(_np(p.data[:4]), x[[1, 3, 0, 2], 0], atol=0, rtol=0)
    out, got = R.pad_packed_sequence(p, batch_first=True, total_length=6)
    assert got.tolist() == lens and tuple(out.shape) == (4, 6, 3)
    want = np.zeros((4, 6, 3))
    for i, n in enumerate(lens):
        want[i, :n] = x[i, :n]
    assert_close(_np(out), want, atol=0, rtol=0)
    assert [tuple(s.shape) for s in R.unpack_sequence(p)] == [(n, 3) for n in lens]


def test_invert_permutation(T):
    perm = T.tensor([2, 0, 3, 1])
    inv = T.nn.utils.rnn.invert_permutation(perm)
    assert inv.tolist() == [1, 3, 0, 2] and inv.dtype == T.int64
    assert T.nn.utils.rnn.invert_permutation(None) is None


def test_packed_sequence_api(T):
    U = T.nn.utils.rnn
    p = U.pack_sequence([T.arange(3.), T.arange(5.)], enforce_sorted=False)
    assert isinstance(p, tuple) and p._fields == ("data", "batch_sizes", "sorted_indices",
                                                   "unsorted_indices")
    data, bs, si, ui = p
    assert data is p.data is p[0] and bs is p[1] and si is p[2] and ui is p[3] and len(p) == 4
    assert p.to(T.float32) is p and p.float() is p and p.cpu() is p and p.to("cpu") is p
    d = p.double()
    assert type(d) is U.PackedSequence and d.data.dtype == T.float64
    assert d.batch_sizes is p.batch_sizes and d.sorted_indices is p.sorted_indices
    for meth, dt in (("half", "float16"), ("long", "int64"), ("int", "int32"), ("short", "int16"),
                     ("char", "int8"), ("byte", "uint8")):
        assert getattr(p, meth)().data.dtype == getattr(T, dt)
    assert p.to(T.zeros(1, dtype=T.float64)).data.dtype == T.float64
    assert p.is_cuda is False and p.is_pinned() is False
    assert repr(p).startswith("PackedSequence(data=tensor([0., 0., 1., 1., 2., 2., 3., 4.]), "
                              "batch_sizes=tensor([2, 2, 2, 1, 1]), sorted_indices=tensor([1, 0]), "
                              "unsorted_indices=tensor([1, 0]))")
    q = p._replace(data=p.data * 2)
    assert type(q) is U.PackedSequence and q.data.tolist() == [0., 0., 2., 2., 4., 4., 6., 8.]
    # the constructor's two forms; unsorted_indices derived from sorted_indices
    r = U.PackedSequence(T.ones(3), T.tensor([2, 1]))
    assert r.sorted_indices is None and r.unsorted_indices is None
    r = U.PackedSequence((T.ones(3), T.tensor([2, 1])), sorted_indices=T.tensor([1, 0]))
    assert r.batch_sizes.tolist() == [2, 1] and r.unsorted_indices.tolist() == [1, 0]
    with pytest.raises(AssertionError, match=exact("Expected data to be a list or tuple of length 2")):
        U.PackedSequence(T.ones(3))
    with pytest.raises(RuntimeError, match=exact("Cannot access accelerator device when none is "
                                                 "available.")):
        p.pin_memory()
    with pytest.raises(AssertionError):
        p.cuda()


_UNSORTED = ("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
             "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
             "sidestep this requirement if you do not need ONNX exportability.")
_NONPOS = ("Length of all samples has to be greater than 0, but found an element in 'lengths' "
           "that is <= 0")


def test_packing_errors(T):
    U = T.nn.utils.rnn
    x = T.zeros(4, 3, 2)
    with pytest.raises(RuntimeError, match=exact(_UNSORTED)):
        U.pack_padded_sequence(x, [2, 3, 1])
    with pytest.raises(RuntimeError, match=exact(_UNSORTED)):
        U.pack_sequence([T.ones(2), T.ones(3)])
    with pytest.raises(RuntimeError, match=exact(_NONPOS)):
        U.pack_padded_sequence(x, [3, 2, 0])
    with pytest.raises(RuntimeError, match=exact(_NONPOS)):
        U.pack_padded_sequence(x, [3, 0, 2], enforce_sorted=False)
    with pytest.raises(RuntimeError, match=exact(_NONPOS)):
        U.pack_padded_sequence(x, [-1, 2, 1], enforce_sorted=False)
    with pytest.raises(RuntimeError, match=exact("Expected `len(lengths)` to be equal to batch_size, "
                                                 "but got 2 (batch_size=3)")):
        U.pack_padded_sequence(x, [3, 2])
    with pytest.raises(RuntimeError, match=exact("'lengths' argument should be a 1D CPU int64 "
                                                 "tensor, but got 2D cpu Long tensor")):
        U.pack_padded_sequence(x, T.tensor([[3, 2, 1]]))
    with pytest.raises(RuntimeError, match=exact("'lengths' argument should be a 1D CPU int64 "
                                                 "tensor, but got 0D cpu Long tensor")):
        U.pack_padded_sequence(x, 3, enforce_sorted=False)
    with pytest.raises(IndexError, match=exact("index_select(): Index is supposed to be a vector")):
        U.pack_padded_sequence(x, [[1, 2, 3]], enforce_sorted=False)
    with pytest.raises(RuntimeError, match=exact("Cannot pack empty tensors.")):
        U.pack_padded_sequence(T.zeros(4, 0), [])
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of "
                                         r"\[-1, 0\], but got 1\)$"):
        U.pack_padded_sequence(T.zeros(4), [3])
    with pytest.raises(RuntimeError, match=exact("received an empty list of sequences")):
        U.pack_sequence([])
    # enforce_sorted=False selects the listed columns only (PyTorch's index_select)
    p = U.pack_padded_sequence(T.arange(12.).reshape(4, 3), [1, 2], enforce_sorted=False)
    assert p.data.tolist() == [1., 0., 4.] and p.batch_sizes.tolist() == [2, 1]
    # lengths as floats are truncated to int64 (as torch.as_tensor(..., dtype=int64) does)
    p = U.pack_padded_sequence(T.arange(12.).reshape(4, 3), [3.5, 2, 1])
    assert p.batch_sizes.tolist() == [3, 2, 1]


def test_pad_packed_errors(T):
    U = T.nn.utils.rnn
    p = U.pack_sequence([T.arange(3.), T.arange(5.)], enforce_sorted=False)
    with pytest.raises(ValueError, match=exact(
            "Expected total_length to be at least the length of the longest sequence in input, but "
            "got total_length=3 and max sequence length being 5")):
        U.pad_packed_sequence(p, total_length=3)
    with pytest.raises(TypeError, match=exact("_pad_packed_sequence(): argument 'total_length' "
                                              "(position 5) must be int, not float")):
        U.pad_packed_sequence(p, total_length=7.0)
    out, lens = U.pad_packed_sequence(p, total_length=5)
    assert tuple(out.shape) == (5, 2) and lens.tolist() == [3, 5]


def test_lengths_longer_than_input_raise():
    """PyTorch reads past the input here (undefined); tensorplay refuses."""
    with pytest.raises(RuntimeError, match="larger than the padded input's sequence dimension"):
        R.pack_padded_sequence(tp.zeros(4, 3, 2), [5, 2, 1])


# ---------------------------------------------------------------- recurrent layers
_MODES = ["RNN_TANH", "RNN_RELU", "GRU", "LSTM", "LSTM_PROJ"]


def _make(lib, mode, layers, bidir, batch_first=False, dtype=None):
    kw = dict(num_layers=layers, bidirectional=bidir, batch_first=batch_first,
              dtype=lib.float64 if dtype is None else dtype)
    if mode.startswith("RNN"):
        return lib.nn.RNN(3, 4, nonlinearity="tanh" if mode == "RNN_TANH" else "relu", **kw)
    if mode == "GRU":
        return lib.nn.GRU(3, 4, **kw)
    if mode == "LSTM":
        return lib.nn.LSTM(3, 4, **kw)
    return lib.nn.LSTM(3, 5, proj_size=2, **kw)


def _sizes(mode):
    """(h size, c size)"""
    return (2, 5) if mode == "LSTM_PROJ" else (4, 4)


def _copy_weights(src_torch, dst):
    dst.load_state_dict({k: tp.tensor(v.detach().numpy()) for k, v in src_torch.state_dict().items()})


@needs_torch
@pytest.mark.parametrize("mode", _MODES)
@pytest.mark.parametrize("layers,bidir", [(1, False), (1, True), (2, False), (2, True)])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_layer_matches_torch(mode, layers, bidir, enforce_sorted):
    rng = np.random.default_rng(hash((mode, layers, bidir, enforce_sorted)) % 2 ** 32)
    lstm = mode.startswith("LSTM")
    # the layer's batch_first is ignored for packed input; the packing's is not
    batch_first = enforce_sorted
    tm = _make(torch, mode, layers, bidir, batch_first=not batch_first)
    pm = _make(tp, mode, layers, bidir, batch_first=not batch_first)
    _copy_weights(tm, pm)
    lens = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    x = rng.standard_normal((4, 5, 3) if batch_first else (5, 4, 3))
    hs, cs = _sizes(mode)
    nd = layers * (2 if bidir else 1)
    xp, xt = _pair(x, True)
    hp, ht = _pair(rng.standard_normal((nd, 4, hs)), True)
    cp, ct = _pair(rng.standard_normal((nd, 4, cs)), True)
    pp = R.pack_padded_sequence(xp, lens, batch_first=batch_first, enforce_sorted=enforce_sorted)
    pt = torch.nn.utils.rnn.pack_padded_sequence(xt, lens, batch_first=batch_first,
                                                 enforce_sorted=enforce_sorted)
    op, sp = pm(pp, (hp, cp) if lstm else hp)
    ot, st = tm(pt, (ht, ct) if lstm else ht)
    assert isinstance(op, R.PackedSequence)
    assert op.batch_sizes is pp.batch_sizes and op.sorted_indices is pp.sorted_indices
    assert op.unsorted_indices is pp.unsorted_indices
    assert_close(_np(op.data), ot.data.detach().numpy(), atol=1e-12, rtol=1e-10)
    sp = sp if lstm else (sp,)
    st = st if lstm else (st,)
    for a, b in zip(sp, st):
        assert_close(_np(a), b.detach().numpy(), atol=1e-12, rtol=1e-10)
    # back through pad_packed_sequence (total_length), the final states and the data
    outp, _ = R.pad_packed_sequence(op, batch_first=True, total_length=7)
    outt, _ = torch.nn.utils.rnn.pad_packed_sequence(ot, batch_first=True, total_length=7)
    assert_close(_np(outp), outt.detach().numpy(), atol=1e-12, rtol=1e-10)
    w = rng.standard_normal(tuple(outt.shape))
    ws = [rng.standard_normal(tuple(s.shape)) for s in st]
    lp = (outp * tp.tensor(w)).sum() + sum(((s ** 2) * tp.tensor(v)).sum() for s, v in zip(sp, ws))
    lt = (outt * torch.tensor(w)).sum() + sum(((s ** 2) * torch.tensor(v)).sum() for s, v in zip(st, ws))
    lp.backward()
    lt.backward()
    assert_close(_np(xp.grad), xt.grad.numpy(), atol=1e-12, rtol=1e-9)
    assert_close(_np(hp.grad), ht.grad.numpy(), atol=1e-12, rtol=1e-9)
    if lstm:
        assert_close(_np(cp.grad), ct.grad.numpy(), atol=1e-12, rtol=1e-9)
    tnamed = dict(tm.named_parameters())
    names = [n for n, _ in pm.named_parameters()]
    assert names == list(tnamed)
    for n, p in pm.named_parameters():
        assert_close(_np(p.grad), tnamed[n].grad.numpy(), atol=1e-12, rtol=1e-9, msg=n)


@needs_torch
@pytest.mark.parametrize("mode", ["GRU", "LSTM"])
def test_packed_layer_default_state_float32(mode):
    rng = np.random.default_rng(4)
    tm = _make(torch, mode, 2, True, dtype=torch.float32)
    pm = _make(tp, mode, 2, True, dtype=tp.float32)
    _copy_weights(tm, pm)
    seqs = [rng.standard_normal((n, 3)).astype(np.float32) for n in (2, 4, 1)]
    op, sp = pm(R.pack_sequence([tp.tensor(s) for s in seqs], enforce_sorted=False))
    ot, st = tm(torch.nn.utils.rnn.pack_sequence([torch.tensor(s) for s in seqs],
                                                 enforce_sorted=False))
    assert op.data.dtype == tp.float32
    assert_close(_np(op.data), ot.data.detach().numpy(), atol=1e-6)
    for a, b in zip(sp if mode == "LSTM" else (sp,), st if mode == "LSTM" else (st,)):
        assert a.dtype == tp.float32
        assert_close(_np(a), b.detach().numpy(), atol=1e-6)


@pytest.mark.parametrize("mode", _MODES)
def test_packed_matches_each_sequence_alone(mode):
    """Torch-free oracle: the packed run of a batch equals running every sequence
    on its own (unbatched), outputs and final states alike, h0/c0 rows following
    their sequences through the sort."""
    rng = np.random.default_rng(5)
    lstm = mode.startswith("LSTM")
    m = _make(tp, mode, 2, True)
    lens = [2, 5, 1, 3]
    seqs = [tp.tensor(rng.standard_normal((n, 3))) for n in lens]
    hs, cs = _sizes(mode)
    h0 = tp.tensor(rng.standard_normal((4, 4, hs)))
    c0 = tp.tensor(rng.standard_normal((4, 4, cs)))
    out, st = m(R.pack_sequence(seqs, enforce_sorted=False), (h0, c0) if lstm else h0)
    outs = R.unpack_sequence(out)
    st = st if lstm else (st,)
    for i, s in enumerate(seqs):
        o1, s1 = m(s, (h0[:, i], c0[:, i]) if lstm else h0[:, i])
        assert_close(_np(outs[i]), _np(o1), atol=1e-12, rtol=1e-10)
        for a, b in zip(st, s1 if lstm else (s1,)):
            assert_close(_np(a[:, i]), _np(b), atol=1e-12, rtol=1e-10)


def test_packed_equal_lengths_match_padded_run():
    rng = np.random.default_rng(6)
    m = _make(tp, "LSTM", 2, True)
    x = tp.tensor(rng.standard_normal((4, 3, 3)))
    out, (h, c) = m(x)
    pout, (ph, pc) = m(R.pack_padded_sequence(x, [4, 4, 4]))
    assert_close(_np(R.pad_packed_sequence(pout)[0]), _np(out), atol=1e-12, rtol=1e-10)
    assert_close(_np(ph), _np(h), atol=1e-12, rtol=1e-10)
    assert_close(_np(pc), _np(c), atol=1e-12, rtol=1e-10)


@pytest.mark.parametrize("mode", ["RNN_TANH", "GRU", "LSTM_PROJ"])
def test_packed_gradcheck_gradgradcheck(mode):
    """Reverse (and for one mode forward) mode against finite differences, and second order
    (through pack_padded_sequence with a permutation, both directions, 2 layers)."""
    rng = np.random.default_rng(7)
    lstm = mode.startswith("LSTM")
    m = _make(tp, mode, 2, True)
    params = dict(m.named_parameters())
    wname = "weight_hh_l1_reverse"
    hs, cs = _sizes(mode)
    x = tp.tensor(rng.standard_normal((3, 3, 3)), requires_grad=True)
    h0 = tp.tensor(rng.standard_normal((4, 3, hs)), requires_grad=True)
    c0 = tp.tensor(rng.standard_normal((4, 3, cs)), requires_grad=True)
    w = params[wname].detach().clone().requires_grad_(True)

    def f(x, h0, c0, w):
        p = R.pack_padded_sequence(x, [2, 3, 1], enforce_sorted=False)
        out, st = tp.func.functional_call(m, {**params, wname: w},
                                          (p, (h0, c0) if lstm else h0))
        st = st if lstm else (st,)
        return (out.data,) + tuple(st)

    args = (x, h0, c0, w)
    assert tp.autograd.gradcheck(f, args, check_forward_ad=mode == "LSTM_PROJ")
    assert tp.autograd.gradgradcheck(f, args, fast_mode=True)


def test_packed_dropout_between_layers_train_and_eval():
    m = nn.GRU(3, 4, num_layers=2, dropout=0.5, dtype=tp.float64)
    p = R.pack_sequence([tp.ones(3, 3, dtype=tp.float64), tp.ones(2, 3, dtype=tp.float64)])
    m.eval()
    a, _ = m(p)
    b, _ = m(p)
    assert_close(_np(a.data), _np(b.data), atol=0, rtol=0)
    m.train()
    tp.manual_seed(0)
    c, _ = m(p)
    tp.manual_seed(1)
    d, _ = m(p)
    assert tuple(c.data.shape) == (5, 4) and not np.allclose(_np(c.data), _np(d.data))


def _packed(T, dtype=None):
    return T.nn.utils.rnn.pack_sequence([T.ones(3, 2, dtype=dtype), T.ones(5, 2, dtype=dtype),
                                         T.ones(2, 2, dtype=dtype)], enforce_sorted=False)


@pytest.mark.parametrize("cls", ["RNN", "GRU"])
def test_packed_layer_errors(T, cls):
    m = getattr(T.nn, cls)(2, 4)
    p = _packed(T)
    U = T.nn.utils.rnn
    with pytest.raises(RuntimeError, match=exact("Expected hidden size (1, 3, 4), got [2, 3, 4]")):
        m(p, T.zeros(2, 3, 4))
    with pytest.raises(RuntimeError, match=exact("Expected hidden size (1, 3, 4), got [1, 3, 5]")):
        m(p, T.zeros(1, 3, 5))
    with pytest.raises(RuntimeError, match=exact("Expected hidden size (1, 3, 4), got [3, 3]")):
        m(p, T.zeros(3, 3))
    with pytest.raises(RuntimeError, match=exact("Expected hidden size (1, 3, 4), got [1, 2, 4]")):
        m(U.pack_sequence([T.ones(5, 2), T.ones(3, 2), T.ones(2, 2)]), T.zeros(1, 2, 4))
    with pytest.raises(RuntimeError, match=exact("input.size(-1) must be equal to input_size. "
                                                 "Expected 2, got 1")):
        m(U.PackedSequence(p.data[:, :1], p.batch_sizes, p.sorted_indices, p.unsorted_indices))
    with pytest.raises(RuntimeError, match=exact("input must have 2 dimensions, got 3")):
        m(U.PackedSequence(p.data.unsqueeze(1), p.batch_sizes, p.sorted_indices,
                           p.unsorted_indices))
    dt = "torch" if T is torch else "tensorplay"
    with pytest.raises(ValueError, match=exact(
            f"RNN input dtype ({dt}.float64) does not match weight dtype ({dt}.float32). Convert "
            f"input: input.to({dt}.float32), or convert model: model.to({dt}.float64)")):
        m(p.double())


def test_packed_lstm_errors():
    """PyTorch's LSTM skips its Python checks for packed input (its kernel then
    fails or reads out of bounds); tensorplay checks as for RNN/GRU, with
    LSTM's hidden[0]/hidden[1] wording."""
    m = nn.LSTM(2, 4, proj_size=3)
    p = R.pack_sequence([tp.ones(5, 2), tp.ones(3, 2), tp.ones(2, 2)])
    z3, z4 = tp.zeros(1, 3, 3), tp.zeros(1, 3, 4)
    with pytest.raises(RuntimeError, match=exact("Expected hidden[0] size (1, 3, 3), got [1, 3, 4]")):
        m(p, (z4, z4))
    with pytest.raises(RuntimeError, match=exact("Expected hidden[1] size (1, 3, 4), got [1, 3, 3]")):
        m(p, (z3, z3))
    with pytest.raises(RuntimeError, match=exact("input must have 2 dimensions, got 3")):
        m(R.PackedSequence(p.data.unsqueeze(1), p.batch_sizes))
    with pytest.raises(ValueError, match=r"^RNN input dtype \(tensorplay.float64\) does not match"):
        m(p.double(), (z3, z4))
    out, (h, c) = m(p, (z3, z4))
    assert tuple(out.data.shape) == (10, 3) and tuple(h.shape) == (1, 3, 3)
    assert tuple(c.shape) == (1, 3, 4)
