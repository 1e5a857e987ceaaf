"""Generic checks driven by the op table (tests/opdb): every op, every sample."""
import numpy as np
import pytest

import tensorplay as tp
from tensorplay.ops import REGISTRY

from conftest import assert_close, torch
from opdb import CASES

IDS = [c.name for c in CASES]
assert len(set(IDS)) == len(IDS), "duplicate case names in the op table"


def _tensors(T, sample, dtype=None, requires_grad=True, complex_=False):
    out = []
    grad_idx = sample.grad
    for i, a in enumerate(sample.arrays):
        a = np.asarray(a)
        floating = a.dtype.kind in "fc"
        if floating and complex_ and (grad_idx is None or i in grad_idx):
            a = a + 0.5j * np.cos(3 * a + i)          # a deterministic imaginary part
        if floating and dtype is not None:
            a = a.astype(dtype)
        rg = requires_grad and floating and (grad_idx is None or i in grad_idx)
        out.append(T.tensor(a, requires_grad=rg))
    return out


def _outputs(r):
    if isinstance(r, (tuple, list)):
        return [o for o in r if o is not None]
    return [r]


def _samples(cases):
    return [pytest.param(c, s, id=f"{c.name}-{k}{('-' + s.desc) if s.desc else ''}")
            for c in cases for k, s in enumerate(c.samples)]


DIFF = [c for c in CASES if c.differentiable]


@pytest.mark.parametrize("case,sample", _samples(DIFF))
def test_gradcheck_float64(case, sample):
    xs = _tensors(tp, sample)
    assert tp.autograd.gradcheck(lambda *a: case.fn(tp, *a, **sample.kwargs), xs,
                                 atol=case.atol, rtol=case.rtol)


@pytest.mark.parametrize("case,sample", _samples([c for c in DIFF if c.gradgrad]))
def test_gradgradcheck_float64(case, sample):
    xs = _tensors(tp, sample)
    assert tp.autograd.gradgradcheck(lambda *a: case.fn(tp, *a, **sample.kwargs), xs,
                                     atol=case.atol * 10, rtol=case.rtol)


@pytest.mark.parametrize("case,sample", _samples([c for c in DIFF if c.complex]))
def test_gradcheck_complex128(case, sample):
    xs = _tensors(tp, sample, complex_=True)
    assert tp.autograd.gradcheck(lambda *a: case.fn(tp, *a, **sample.kwargs), xs,
                                 atol=case.atol, rtol=case.rtol)


@pytest.mark.parametrize("case,sample", _samples(CASES))
def test_float32_dtype_preserved(case, sample):
    xs = _tensors(tp, sample, dtype=np.float32, requires_grad=case.differentiable)
    outs = _outputs(case.fn(tp, *xs, **sample.kwargs))
    for o in outs:
        if o.is_floating_point() and case.preserves_dtype:
            assert o.dtype == tp.float32, f"{case.name}: float32 in, {o.dtype} out"
    if case.differentiable:
        diff = [o for o in outs if o.requires_grad]
        if diff:
            gs = tp.autograd.grad([(o.real if o.is_complex() else o).sum() for o in diff],
                                  [x for x in xs if x.requires_grad], allow_unused=True)
            for x, g in zip([x for x in xs if x.requires_grad], gs):
                assert g is None or (g.dtype == x.dtype and g.shape == x.shape)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("case,sample", _samples([c for c in CASES if c.low_precision]))
def test_low_precision(case, sample, dtype):
    """Half and bfloat16 compute in float32 and round: results match the float32
    result rounded to the format, and gradients come back in the input's dtype."""
    lp = getattr(tp, dtype)
    xs32 = _tensors(tp, sample, dtype=np.float32, requires_grad=False)
    xs = [x.to(lp) if x.is_floating_point() else x for x in xs32]
    xs_up = [x.float() if x.dtype == lp else x for x in xs]     # the same (rounded) inputs in f32
    for x in xs:
        if x.dtype == lp and case.differentiable:
            x.requires_grad_(True)
    outs = _outputs(case.fn(tp, *xs, **sample.kwargs))
    ref = _outputs(case.fn(tp, *xs_up, **sample.kwargs))
    tol = {"float16": 2e-3, "bfloat16": 1.6e-2}[dtype]
    for o, r in zip(outs, ref):
        if r.is_floating_point():
            assert o.dtype == lp, f"{case.name}: {dtype} in, {o.dtype} out"
            assert_close(o.float().detach().numpy(), r.detach().numpy(), atol=tol * 4, rtol=tol * 4,
                         msg=case.name)
    diff = [o for o in outs if o.requires_grad]
    ins = [x for x in xs if x.requires_grad]
    if diff and ins:
        gs = tp.autograd.grad([o.float().sum() for o in diff], ins, allow_unused=True)
        for x, g in zip(ins, gs):
            assert g is None or g.dtype == lp


# ----------------------------------------------------------------- against PyTorch
def _torch_call(case, T, xs, kwargs):
    f = case.torch_fn or case.fn
    return f(T, *xs, **kwargs)


@pytest.mark.parametrize("complex_", [False, True], ids=["real", "complex"])
@pytest.mark.parametrize("case,sample", _samples(CASES))
def test_against_torch(case, sample, complex_):
    if torch is None:
        pytest.skip("torch not installed")
    if complex_ and not (case.complex and case.differentiable and case.torch_complex):
        pytest.skip("op is real-only (or its complex gradient is checked by gradcheck only)")
    xs_tp = _tensors(tp, sample, requires_grad=case.differentiable, complex_=complex_)
    xs_t = _tensors(torch, sample, requires_grad=case.differentiable, complex_=complex_)
    out_tp = _outputs(case.fn(tp, *xs_tp, **sample.kwargs))
    out_t = _outputs(_torch_call(case, torch, xs_t, sample.kwargs))
    assert len(out_tp) == len(out_t)
    for a, b in zip(out_tp, out_t):
        assert tuple(a.shape) == tuple(b.shape), case.name
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], case.name
        assert_close(a.detach().numpy(), b.detach().numpy(), atol=1e-8, rtol=1e-7, msg=case.name)
    if not case.differentiable:
        return
    # gradients of a random weighting of every differentiable output
    gen = np.random.default_rng(7)
    pairs = [(a, b) for a, b in zip(out_tp, out_t) if b.requires_grad]
    assert [a.requires_grad for a, _ in pairs] == [True] * len(pairs)
    if not pairs:
        return
    ws = [gen.standard_normal(tuple(b.shape)) for _, b in pairs]
    if complex_:
        ws = [w + 1j * gen.standard_normal(w.shape) for w in ws]
    ins_tp = [x for x in xs_tp if x.requires_grad]
    ins_t = [x for x in xs_t if x.requires_grad]
    g_tp = tp.autograd.grad([a for a, _ in pairs], ins_tp,
                            [tp.tensor(w.astype(a.detach().numpy().dtype)) for w, (a, _) in zip(ws, pairs)],
                            allow_unused=True)
    g_t = torch.autograd.grad([b for _, b in pairs], ins_t,
                              [torch.tensor(w.astype(b.detach().numpy().dtype)) for w, (_, b) in zip(ws, pairs)],
                              allow_unused=True)
    for ga, gb in zip(g_tp, g_t):
        if gb is None:
            assert ga is None or not np.any(ga.numpy()), case.name
            continue
        assert ga is not None, case.name
        assert_close(ga.numpy(), gb.numpy(force=True), atol=1e-8, rtol=1e-6, msg=f"{case.name} grad")


# ----------------------------------------------------------------- the table covers the registry
def test_every_registered_op_is_in_the_table():
    covered = {n for c in CASES for n in c.covers}
    missing = sorted(set(REGISTRY) - covered)
    assert not missing, f"ops without an entry in tests/opdb: {missing}"


# --------------------------------------------------------------------------- saved = read
class _Read(Exception):
    """A derivative touched an argument it was handed."""


class _Poison:
    """Stands in for one argument of a derivative: any use of it raises ``_Read``."""

    def __getattr__(self, name):
        raise _Read(name)


def _raise(self, *a, **k):
    raise _Read()


for _m in ("add radd sub rsub mul rmul truediv rtruediv pow rpow neg pos abs eq ne lt le gt ge "
           "matmul rmatmul getitem iter len bool float int index array and or xor invert "
           "floordiv mod hash contains").split():
    setattr(_Poison, f"__{_m}__", _raise)


class _Calls:
    """A transform that records every op call it sees, with its arguments and result."""

    def __init__(self):
        self.calls = []

    def process(self, op, args):
        from tensorplay.ops._registry import dispatch
        out = dispatch(op, args)
        self.calls.append((op, list(args), out))
        return out


def _value(op, args, out, name):
    if name == "result":
        return out
    if name == op.star:
        return list(args[:len(args) - op.n_kw]) if op.variadic else tuple(args[op.n_pos:])
    i = op.names.index(name)
    return args[i] if i < len(args) else op.defaults[i]


def _ones_like(out):
    if isinstance(out, tuple):
        return tuple(tp.ones_like(o) for o in out)
    return tp.ones_like(out)


def test_every_declared_argument_is_read():
    """What a node saves is the union of what its derivatives declare (they are
    handed nothing else, so nothing undeclared can be read); here, every name a
    derivative declares is shown to be read by it, on some call in the op
    table, by handing it a stand-in that raises when used."""
    from tensorplay.ops._registry import TRANSFORMS
    read, declared = set(), set()
    runs = [(c, s, False) for c in DIFF for s in c.samples]
    runs += [(c, s, True) for c in DIFF if c.complex for s in c.samples]
    for case, sample, complex_ in runs:
        xs = _tensors(tp, sample, complex_=complex_)
        rec = _Calls()
        TRANSFORMS.append(rec)
        try:
            case.fn(tp, *xs, **sample.kwargs)
        finally:
            TRANSFORMS.remove(rec)
        for op, args, out in rec.calls:
            if not isinstance(out, (tp.Tensor, tuple)):
                continue
            g = _ones_like(out)
            for inp, (f, names) in op.derivatives.items():
                if f == "grad":
                    continue
                values = [_value(op, args, out, n) for n in names]
                for j, n in enumerate(names):
                    key = (op.name, inp, n)
                    declared.add(key)
                    if key in read:
                        continue
                    trial = list(values)
                    trial[j] = _Poison()
                    try:
                        with tp.no_grad():
                            f(g, *trial)
                    except Exception:
                        read.add(key)
    assert declared, "no derivative was exercised"
    unread = sorted(declared - read)
    assert not unread, f"declared but never read (op, input, name): {unread}"
