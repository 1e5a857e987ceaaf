"""PyTorch names that were missing: ``view(dtype)``, the ``*_copy`` spellings of
the view ops and ``narrow_copy``, ``asarray``/``frombuffer``/``empty_strided``,
the ``geometric_``/``cauchy_``/``log_normal_`` samplers, the process-wide
switches (determinism, matmul precision, ``set_warn_always``...), ``layout`` and
the other constant Tensor attributes, ``typename``, ``is_neg`` and
``dim_order``.  Each test runs on tensorplay and, where it is installed, on
torch (the ``T`` fixture); the comparisons with torch's numbers skip without it."""
import array
import warnings

import numpy as np
import pytest

import tensorplay as tp
from conftest import assert_close, exact, lst


def _name(dt):
    return str(dt).split(".")[-1]


# ---------------------------------------------------------------- view(dtype)
@pytest.mark.parametrize("src,dst,n,shape", [
    ("float32", "int32", 3, (2, 3)), ("float32", "float16", 3, (2, 6)), ("float64", "int8", 3, (2, 24)),
    ("int64", "bfloat16", 3, (2, 12)), ("float16", "float32", 2, (2, 1)), ("bool", "uint8", 3, (2, 3)),
    ("complex64", "float32", 3, (2, 6)), ("float64", "complex128", 2, (2, 1)),
    ("int32", "float32", 3, (2, 3)),
])
def test_view_dtype_reinterprets_the_bits(T, src, dst, n, shape):
    x = T.arange(2 * n).reshape(2, n).to(getattr(T, src))
    v = x.view(getattr(T, dst))
    assert tuple(v.shape) == shape and _name(v.dtype) == dst
    assert v.view(T.uint8).numpy().tobytes() == x.view(T.uint8).numpy().tobytes()
    if dst != "bfloat16":
        ref = x.view(T.uint8).numpy().view(np.dtype(dst)).reshape(shape)
        np.testing.assert_array_equal(v.numpy(), ref)


def test_view_dtype_by_keyword(T):
    assert lst(T.ones(2).view(dtype=T.int32)) == [1065353216] * 2
    assert tuple(T.ones(4).view(size=(2, 2)).shape) == (2, 2)


def test_view_dtype_shares_memory_and_version_but_is_no_autograd_view(T):
    x = T.ones(4)
    v = x.view(T.int32)
    v.add_(1)                           # one more in the low bits of each float
    assert x._version == 1 and lst(x)[0] != 1.0
    w = T.ones(2, 2, requires_grad=True)
    for dt in (T.int32, T.float32, T.float16):
        u = w.view(dt)
        assert not u.requires_grad and u.grad_fn is None and u.is_leaf


def test_view_dtype_write_after_save_is_detected(T):
    x = T.ones(3, requires_grad=True)
    y = x * 1
    z = y.sin()                         # saves y
    y.view(T.float32).add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


@pytest.mark.parametrize("make,msg", [
    (lambda T: T.arange(6.).reshape(2, 3).view(T.int64),
     "self.size(-1) must be divisible by 2 to view Float as Long (different element sizes), but got 3"),
    (lambda T: T.arange(6.).reshape(2, 3).t().view(T.float16),
     "self.stride(-1) must be 1 to view Float as Half (different element sizes), but got 3"),
    (lambda T: T.ones(()).view(T.float16),
     "self.dim() cannot be 0 to view Float as Half (different element sizes)"),
    (lambda T: T.ones(8, dtype=T.int8)[1:7].view(T.int16),
     "self.storage_offset() must be divisible by 2 to view Char as Short (different element sizes), "
     "but got 1"),
    (lambda T: T.ones(3, 3, dtype=T.float16)[:, :2].view(T.float32),
     "self.stride(0) must be divisible by 2 to view Half as Float (different element sizes), but got 3"),
    (lambda T: T.ones(2, 0).view(T.float64),
     "self.stride(0) must be divisible by 2 to view Float as Double (different element sizes), but got 1"),
])
def test_view_dtype_errors(T, make, msg):
    with pytest.raises(RuntimeError, match=exact(msg)):
        make(T)


def test_view_dtype_under_transforms(T):
    x = T.arange(6.).reshape(2, 3)
    assert lst(T.vmap(lambda t: t.view(T.int32))(x)) == lst(x.view(T.int32))
    assert tuple(T.vmap(lambda t: t.view(T.float16))(x).shape) == (2, 6)
    p, t = T.func.jvp(lambda t: t.view(T.float32) * t, (x,), (T.ones_like(x),))
    assert lst(t) == lst(x)             # the dtype view carries no tangent
    p, t = T.func.jvp(lambda t: t.view(T.int32), (x,), (T.ones_like(x),))
    assert lst(p) == lst(x.view(T.int32)) and not t.any()


# ---------------------------------------------------------------- *_copy
_COPIES = [
    ("alias_copy", ()), ("as_strided_copy", ((2, 2), (1, 2), 1)), ("diagonal_copy", (0, 1, 2)),
    ("expand_copy", ((2, 2, 3, 4),)), ("permute_copy", ((2, 0, 1),)), ("select_copy", (1, -1)),
    ("slice_copy", (2, 1, 4, 2)), ("slice_copy", ()), ("split_copy", (2, 2)),
    ("split_with_sizes_copy", ([1, 2], 1)), ("squeeze_copy", ()), ("transpose_copy", (0, 2)),
    ("unbind_copy", (1,)), ("unfold_copy", (2, 2, 1)), ("unsqueeze_copy", (1,)),
    ("view_copy", ((4, 6),)), ("narrow_copy", (2, 1, 2)), ("t_copy", ()),
]


def _weighted_sum(rs):
    return sum(((t * (i + 1)) * tp.arange(t.numel(), dtype=tp.float64).reshape(t.shape)).sum()
               for i, t in enumerate(rs))


@pytest.mark.parametrize("name,args", _COPIES, ids=[f"{n}{i}" for i, (n, _) in enumerate(_COPIES)])
def test_copies_are_new_memory_with_the_view_ops_gradients(name, args):
    shape = (3, 4) if name == "t_copy" else (2, 3, 4)
    x = tp.tensor(np.random.default_rng(5).standard_normal(shape), requires_grad=True)
    r = getattr(tp, name)(x, *args)
    rs = r if isinstance(r, tuple) else (r,)
    view = {"alias_copy": lambda x: x, "narrow_copy": tp.narrow, "view_copy": tp.reshape,
            "slice_copy": lambda x, d=0, s=None, e=None, st=1: x[(slice(None),) * d + (slice(s, e, st),)],
            "split_with_sizes_copy": lambda x, s, d: x.split(s, d),
            "expand_copy": lambda x, s: x.expand(s), "unfold_copy": lambda x, *a: x.unfold(*a)
            }.get(name) or getattr(tp, name[:-5])
    ref = view(x, *args)
    refs = ref if isinstance(ref, tuple) else (ref,)
    for a, b in zip(rs, refs):
        assert a.is_contiguous() and lst(a) == lst(b)
        if a.numel():
            assert a.data_ptr() != b.data_ptr()
    assert tp.autograd.gradcheck(lambda x: _weighted_sum(getattr(tp, name)(x, *args)
                                                         if name not in ("split_copy", "split_with_sizes_copy",
                                                                         "unbind_copy")
                                                         else getattr(tp, name)(x, *args)), (x,))


@pytest.mark.parametrize("name,args", _COPIES, ids=[f"{n}{i}" for i, (n, _) in enumerate(_COPIES)])
def test_copies_match_torch(torch_or_skip, name, args):
    torch = torch_or_skip
    shape = (3, 4) if name == "t_copy" else (2, 3, 4)
    a = np.random.default_rng(6).standard_normal(shape)
    out = []
    for T in (tp, torch):
        x = T.tensor(a, requires_grad=True)
        r = getattr(T, name)(x, *args)
        rs = r if isinstance(r, tuple) else (r,)
        w = sum(((t * (i + 1)) * T.arange(t.numel(), dtype=T.float64).reshape(t.shape)).sum()
                for i, t in enumerate(rs))
        g, = T.autograd.grad(w, x)
        out.append(([lst(t) for t in rs], lst(g)))
    assert_close(np.concatenate([np.ravel(v) for v in out[0][0]]),
                 np.concatenate([np.ravel(v) for v in out[1][0]]), atol=1e-12)
    assert_close(out[0][1], out[1][1], atol=1e-12)


def test_copy_writes_leave_the_input_alone_and_take_out(T):
    y = T.ones(2, 3)
    z = T.t_copy(y)
    z += 1
    assert y.sum().item() == 6 and z.stride() == (2, 1)
    o = T.empty(3, 2)
    assert T.t_copy(y, out=o) is o and lst(o) == [[1.0] * 2] * 3
    assert lst(T.ones(5).narrow_copy(0, 1, 2)) == [1.0, 1.0]
    assert lst(T.view_copy(T.arange(6.).reshape(2, 3).t(), (6,))) == [0., 3., 1., 4., 2., 5.]
    assert T.view_copy(T.ones(2, 3), T.int32).dtype == T.int32
    c = T.view_as_real_copy(T.ones(2, dtype=T.complex64))
    assert tuple(c.shape) == (2, 2) and tuple(T.view_as_complex_copy(T.ones(2, 2)).shape) == (2,)


def test_detach_copy_is_outside_the_graph():
    x = tp.ones(2, requires_grad=True)
    r = tp.detach_copy(x)
    assert not r.requires_grad and r.data_ptr() != x.data_ptr()


@pytest.mark.parametrize("make,err,msg", [
    (lambda T: T.narrow_copy(T.ones(()), 0, 0, 1), RuntimeError, "narrow() cannot be applied to a 0-dim tensor."),
    (lambda T: T.slice_copy(T.ones(3), 0, 0, 2, 0), RuntimeError, "slice step must be positive"),
    (lambda T: T.select_copy(T.ones(3), 0, 5), IndexError,
     "select(): index 5 out of range for tensor of size [3] at dimension 0"),
])
def test_copy_errors(T, make, err, msg):
    with pytest.raises(err, match=exact(msg)):
        make(T)


# ---------------------------------------------------------------- asarray / frombuffer / empty_strided
def test_asarray_shares_what_it_can(T):
    x = T.ones(2)
    assert T.asarray(x) is x and T.asarray(x, dtype=T.float32) is x and T.asarray(x, copy=False) is x
    assert T.asarray(x, copy=True) is not x
    n = np.ones((2, 3))[:, ::2]
    T.asarray(n)[0, 0] = 5
    assert n[0, 0] == 5
    c = np.ones(2, np.float32)
    T.asarray(c, copy=True)[0] = 9
    assert c[0] == 1
    buf = array.array("f", [1, 2, 3])
    T.asarray(buf)[0] = 10
    assert buf[0] == 10
    assert T.asarray(np.ones(2), dtype=T.float32).dtype == T.float32
    assert T.asarray([1, 2]).dtype == T.int64 and T.asarray([1., 2]).dtype == T.float32
    assert T.asarray(np.float16(3)).dtype == T.float16 and T.asarray(1 + 2j).dtype == T.complex64
    assert lst(T.asarray(bytearray(b"\x00\x00\x80\x3f"))) == [1.0]  # a buffer: raw bytes, default dtype
    assert T.asarray(bytearray(8), dtype=T.int16).shape == (4,)


def test_asarray_requires_grad(T):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tg = T.ones(2, requires_grad=True)
        assert T.asarray(tg) is tg and tg.requires_grad            # (with a warning)
        ng = tg * 2
        d = T.asarray(ng, requires_grad=False)
        assert d is not ng and not d.requires_grad
        r = T.asarray(ng, requires_grad=True)
        assert r is ng
        r = T.asarray(tg, dtype=T.float64, requires_grad=False)
        assert not r.requires_grad and tg.requires_grad
        r = T.asarray(T.ones(2), dtype=T.float64, requires_grad=True)
        assert r.requires_grad and r.is_leaf
        assert T.asarray(np.ones(2), requires_grad=True).is_leaf
        r = T.asarray(tg, requires_grad=False)
        assert r is tg and not tg.requires_grad                     # PyTorch turns the leaf's flag off


def test_asarray_warns_once_unless_told_always(T):
    T.set_warn_always(True)
    try:
        tg = T.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            T.asarray(tg)
            T.asarray(tg)
        assert sum("unspecified requires_grad" in str(x.message) for x in w) == 2
    finally:
        T.set_warn_always(False)
    assert not T.is_warn_always_enabled()


@pytest.mark.parametrize("make,err,msg", [
    (lambda T: T.asarray(T.ones(2), dtype=T.float64, copy=False), ValueError,
     "can't alias tensor with dtype 'Float' into dtype 'Double'."),
    (lambda T: T.asarray(np.ones(2), copy=False, dtype=T.float32), ValueError,
     "can't alias tensor with dtype 'Double' into dtype 'Float'."),
    (lambda T: T.asarray([1, 2], copy=False), ValueError, "can't alias arbitrary sequence into a tensor."),
    (lambda T: T.asarray(None), RuntimeError, "Could not infer dtype of NoneType"),
    (lambda T: T.asarray(T.ones(2, dtype=T.int32), requires_grad=True), RuntimeError,
     "Only Tensors of floating point and complex dtype can require gradients"),
    (lambda T: T.frombuffer(bytearray(8), dtype=T.int16, count=0), ValueError,
     "both buffer length (8) and count (0) must not be 0"),
    (lambda T: T.frombuffer(bytearray(8), dtype=T.int16, offset=8), ValueError,
     "offset (8 bytes) must be non-negative and no greater than buffer length (8 bytes) minus 1"),
    (lambda T: T.frombuffer(bytearray(8), dtype=T.int16, count=5), ValueError,
     "requested buffer length (5 * 2 bytes) after offset (0 bytes) must not be greater than actual "
     "buffer length (8 bytes)"),
    (lambda T: T.frombuffer(bytearray(7), dtype=T.int16), ValueError,
     "buffer length (7 bytes) after offset (0 bytes) must be a multiple of element size (2)"),
    (lambda T: T.frombuffer([1, 2], dtype=T.int16), ValueError,
     "object does not implement Python buffer protocol."),
    (lambda T: T.empty_strided((2, 3), (1,)), RuntimeError,
     "dimensionality of sizes (2) must match dimensionality of strides (1)"),
    (lambda T: T.empty_strided((-2, 3), (1, 2)), RuntimeError,
     "Trying to create tensor with negative dimension -2: [-2, 3]"),
])
def test_creation_errors(T, make, err, msg):
    with pytest.raises(err, match=exact(msg)):
        make(T)


def test_frombuffer_views_the_memory(T):
    buf = array.array("f", [1, 2, 3])
    f = T.frombuffer(buf, dtype=T.float32)
    f[1] = 20
    assert buf[1] == 20
    assert lst(T.frombuffer(bytearray(b"\x01\x02\x03\x04"), dtype=T.int16, offset=2)) == [1027]
    assert lst(T.frombuffer(bytearray(b"\x01\x02\x03\x04"), dtype=T.int8, count=2, offset=1)) == [2, 3]
    r = T.frombuffer(bytearray(8), dtype=T.float32, requires_grad=True)
    assert r.requires_grad and r.is_leaf
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        T.set_warn_always(True)
        try:
            T.frombuffer(b"\x00\x00\x00\x00", dtype=T.float32)
        finally:
            T.set_warn_always(False)
    assert any("The given buffer is not writable" in str(x.message) for x in w)


def test_empty_strided(T):
    e = T.empty_strided((2, 3), (1, 2))
    assert e.stride() == (1, 2) and not e.is_contiguous() and tuple(e.shape) == (2, 3)
    assert T.empty_strided((0, 3), (5, 1)).shape == (0, 3)
    assert T.empty_strided((2, 3), (0, 0)).stride() == (0, 0)
    assert T.empty_strided([2, 3], [3, 1], dtype=T.float64, requires_grad=True).requires_grad
    n = T.ones(2, dtype=T.float64).new_empty_strided((2, 2), (1, 2))
    assert n.dtype == T.float64 and n.stride() == (1, 2)


# ---------------------------------------------------------------- samplers
def test_new_samplers_follow_their_distributions():
    tp.manual_seed(3)
    n = 200000
    g = tp.empty(n, dtype=tp.float64).geometric_(0.25)
    assert abs(float(g.mean()) - 4.0) < 0.05 and float(g.min()) == 1.0
    assert float((g == g.round()).all()) == 1.0
    c = tp.empty(n, dtype=tp.float64).cauchy_(2., 3.)
    assert abs(float(c.median()) - 2.0) < 0.06
    assert abs(float(c.quantile(0.75) - c.quantile(0.25)) - 6.0) < 0.15    # the IQR is 2 sigma
    ln = tp.empty(n, dtype=tp.float64).log_normal_(0.5, 0.3).log()
    assert abs(float(ln.mean()) - 0.5) < 0.005 and abs(float(ln.std()) - 0.3) < 0.005
    assert tp.empty(4, dtype=tp.int32).geometric_(0.5).dtype == tp.int32
    assert tp.empty(4, dtype=tp.float16).log_normal_().dtype == tp.float16


def test_new_samplers_are_seeded():
    tp.manual_seed(7)
    a = [lst(tp.empty(3).cauchy_()), lst(tp.empty(3).geometric_(0.3)), lst(tp.empty(3).log_normal_())]
    tp.manual_seed(7)
    b = [lst(tp.empty(3).cauchy_()), lst(tp.empty(3).geometric_(0.3)), lst(tp.empty(3).log_normal_())]
    assert a == b


@pytest.mark.parametrize("make,err,msg", [
    (lambda T: T.ones(3).geometric_(0), RuntimeError, "geometric_ expects p to be in (0, 1), but got p=0"),
    (lambda T: T.ones(3).geometric_(1), RuntimeError, "geometric_ expects p to be in (0, 1), but got p=1"),
    (lambda T: T.ones(3, dtype=T.bool).geometric_(0.5), NotImplementedError,
     "\"geometric_cpu\" not implemented for 'Bool'"),
    (lambda T: T.ones(3).cauchy_(0, -1), RuntimeError, "cauchy_ expects sigma > 0.0, but found sigma=-1"),
    (lambda T: T.ones(3, dtype=T.int64).cauchy_(), RuntimeError,
     "Cauchy distribution is a continuous probability distribution. dtype must be a floating point "
     "but you specified long int"),
    (lambda T: T.ones(3, dtype=T.complex64).cauchy_(), RuntimeError,
     "Cauchy distribution is a continuous probability distribution. dtype must be a floating point "
     "but you specified c10::complex<float>"),
    (lambda T: T.ones(3).log_normal_(1, 0), RuntimeError, "log_normal_ expects std > 0.0, but found std=0"),
    (lambda T: T.ones(3, dtype=T.int64).log_normal_(), NotImplementedError,
     "\"log_normal_cpu\" not implemented for 'Long'"),
])
def test_sampler_errors(T, make, err, msg):
    with pytest.raises(err, match=exact(msg)):
        make(T)


def test_samplers_cut_the_gradient(T):
    for fill in (lambda x: x.geometric_(0.5), lambda x: x.cauchy_(), lambda x: x.log_normal_()):
        w = T.ones(3, requires_grad=True)
        x = w * 1
        fill(x)
        (x * w).sum().backward()
        assert lst(w.grad) == lst(x.detach())      # the filled values carry no gradient to w


# ---------------------------------------------------------------- switches and attributes
def test_switches(T):
    assert not T.are_deterministic_algorithms_enabled() and T.get_deterministic_debug_mode() == 0
    try:
        T.use_deterministic_algorithms(True, warn_only=True)
        assert T.is_deterministic_algorithms_warn_only_enabled() and T.get_deterministic_debug_mode() == 1
        T.set_deterministic_debug_mode("error")
        assert T.get_deterministic_debug_mode() == 2 and not T.is_deterministic_algorithms_warn_only_enabled()
    finally:
        T.set_deterministic_debug_mode(0)
    assert not T.are_deterministic_algorithms_enabled()
    assert T.get_float32_matmul_precision() == "highest"
    try:
        T.set_float32_matmul_precision("medium")
        assert T.get_float32_matmul_precision() == "medium"
    finally:
        T.set_float32_matmul_precision("highest")
    assert T.get_num_interop_threads() >= 1


@pytest.mark.parametrize("make,err,msg", [
    (lambda T: T.set_deterministic_debug_mode("x"), RuntimeError,
     "invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got x"),
    (lambda T: T.set_deterministic_debug_mode(3), RuntimeError,
     "invalid value of debug_mode, expected 0, 1, or 2, but got 3"),
    (lambda T: T.set_deterministic_debug_mode(1.5), TypeError,
     "debug_mode must be str or int, but got <class 'float'>"),
    (lambda T: T.use_deterministic_algorithms(1), TypeError,
     "_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not int"),
    (lambda T: T.set_num_interop_threads(0), RuntimeError, "set_num_interop_threads expects a positive integer"),
    (lambda T: T.set_warn_always(1), RuntimeError, "setWarnOnlyOnce expects a bool, but got int"),
])
def test_switch_errors(T, make, err, msg):
    with pytest.raises(err, match=exact(msg)):
        make(T)


def test_matmul_precision_refuses_unknown_words():
    with pytest.warns(UserWarning, match="low is not one of 'highest', 'high', or 'medium'"):
        tp.set_float32_matmul_precision("low")
    assert tp.get_float32_matmul_precision() == "highest"
    assert tp.set_flush_denormal(True) is False         # NumPy cannot: reported as unsupported


def test_constant_attributes(T):
    x = T.ones(2)
    assert x.layout is T.strided and repr(T.strided).endswith(".strided") and x.is_cpu
    assert not (x.is_sparse or x.is_meta or x.is_quantized or x.is_nested or x.is_mkldnn or x.is_mps)
    assert not x.is_neg() and not T.is_neg(-x)
    assert T.zeros(2, layout=T.strided).layout is T.strided
    assert T.typename(T.ones(2, dtype=T.bool)).endswith(".BoolTensor")
    assert (T.typename(len), T.typename(3.0), T.typename("x")) == ("len", "float", "str")
    assert T.typename(T.nn.Linear).endswith(".Linear")


@pytest.mark.parametrize("make,order", [
    (lambda T: T.ones(2, 1, 3), (0, 1, 2)), (lambda T: T.ones(3, 4).t(), (1, 0)),
    (lambda T: T.ones(2, 3, 4, 5).permute(0, 2, 3, 1), (0, 3, 1, 2)), (lambda T: T.ones(()), ()),
    (lambda T: T.ones(2, 3)[:, ::2], (0, 1)), (lambda T: T.ones(2, 1, 3).transpose(0, 1), (0, 1, 2)),
])
def test_dim_order(T, make, order):
    assert make(T).dim_order() == order


def test_dim_order_ambiguity(T):
    assert T.ones(3, 4).t().dim_order(ambiguity_check=True) == (1, 0)
    with pytest.raises(RuntimeError, match="does not have unique dim order"):
        T.ones(2, 1, 3).dim_order(ambiguity_check=True)
