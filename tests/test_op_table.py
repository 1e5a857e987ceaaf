"""Generic checks driven by the op table (tests/opdb): every op, every sample.

Per sample: gradcheck, gradgradcheck, complex gradcheck, float32 and
half/bfloat16 dtypes, values and gradients against PyTorch.  Per row: the ops
in ``covers`` run; the method, in-place and operator spellings agree with the
function spelling; a non-contiguous and a zero-size sample made from the first
one; integer inputs of float-only ops; view ops return views; the row's error
inputs raise PyTorch's exceptions.
"""
import re
import warnings

import numpy as np
import pytest

import tensorplay as tp
from tensorplay.ops import REGISTRY

from conftest import assert_close, record_ops, torch
from opdb import CASES

IDS = [c.name for c in CASES]
assert len(set(IDS)) == len(IDS), "duplicate case names in the op table"


# the checks whose expected failure is a difference from torch, so expected only with torch installed
_AGAINST_TORCH = frozenset({"float_only", "spellings_exist", "against_torch"})


def _marks(case, test):
    why = case.xfail.get(test)
    if not why:
        return []
    return [pytest.mark.xfail(torch is not None or test not in _AGAINST_TORCH, reason=why, strict=True)]


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


def _samples(cases, test=None):
    return [pytest.param(c, s, id=f"{c.name}-{k}{('-' + s.desc) if s.desc else ''}",
                         marks=_marks(c, test) if test else [])
            for c in cases for k, s in enumerate(c.samples)]


def _rows(cases, test=None):
    return [pytest.param(c, id=c.name, marks=_marks(c, test) if test else []) for c in cases]


DIFF = [c for c in CASES if c.differentiable]


@pytest.mark.parametrize("case,sample", _samples(DIFF, "gradcheck"))
def test_gradcheck_float64(case, sample):
    xs = _tensors(tp, sample)
    assert tp.autograd.gradcheck(lambda *a: case.fn(tp, *a, **sample.kwargs), xs,
                                 atol=case.atol, rtol=case.rtol)


@pytest.mark.parametrize("case,sample", _samples([c for c in DIFF if c.gradgrad], "gradgradcheck"))
def test_gradgradcheck_float64(case, sample):
    xs = _tensors(tp, sample)
    assert tp.autograd.gradgradcheck(lambda *a: case.fn(tp, *a, **sample.kwargs), xs,
                                     atol=case.atol * 10, rtol=case.rtol)


@pytest.mark.parametrize("case,sample", _samples([c for c in DIFF if c.complex], "complex"))
def test_gradcheck_complex128(case, sample):
    xs = _tensors(tp, sample, complex_=True)
    assert tp.autograd.gradcheck(lambda *a: case.fn(tp, *a, **sample.kwargs), xs,
                                 atol=case.atol, rtol=case.rtol)


@pytest.mark.parametrize("case,sample", _samples(CASES, "float32"))
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
@pytest.mark.parametrize("case,sample", _samples([c for c in CASES if c.low_precision], "low_precision"))
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


def _as(w, dtype):
    """A weight drawn complex, as ``dtype`` (its real part for a real output)."""
    return (w if dtype.kind == "c" else np.real(w)).astype(dtype)


@pytest.mark.parametrize("complex_", [False, True], ids=["real", "complex"])
@pytest.mark.parametrize("case,sample", _samples(CASES, "against_torch"))
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
                            [tp.tensor(_as(w, a.detach().numpy().dtype)) for w, (a, _) in zip(ws, pairs)],
                            allow_unused=True)
    g_t = torch.autograd.grad([b for _, b in pairs], ins_t,
                              [torch.tensor(_as(w, b.detach().numpy().dtype)) for w, (_, b) in zip(ws, pairs)],
                              allow_unused=True)
    for ga, gb in zip(g_tp, g_t):
        if gb is None:
            assert ga is None or not np.any(ga.numpy()), case.name
            continue
        assert ga is not None, case.name
        assert_close(ga.numpy(), gb.numpy(force=True), atol=1e-8, rtol=1e-6, msg=f"{case.name} grad")


# ----------------------------------------------------------------- covers: the ops that ran
def _record(f):
    return set(record_ops(f).seen)


def _run_forward_backward(case, sample, complex_=False):
    """The row's function on a sample, then (for a differentiable row) one backward
    pass through every differentiable output: the ops a row covers may run in either."""
    xs = _tensors(tp, sample, requires_grad=case.differentiable, complex_=complex_)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outs = _outputs(case.fn(tp, *xs, **sample.kwargs))
    diff = [o for o in outs if isinstance(o, tp.Tensor) and o.requires_grad]
    ins = [x for x in xs if x.requires_grad]
    if diff and ins:        # ones as the output gradients: no op of the harness's own runs
        tp.autograd.grad(diff, ins, [tp.ones_like(o) for o in diff], allow_unused=True)


@pytest.mark.parametrize("case", _rows(CASES, "covers"))
def test_covers_ran(case):
    """Every op a row claims to cover runs (forward or backward, on real or, for a
    complex-capable row, complex inputs) on some sample; the row's own op is among
    them; and every sample that runs any op runs one the row claims."""
    ran = set()
    for k, sample in enumerate(case.samples):
        seen = _record(lambda: _run_forward_backward(case, sample))
        if case.complex and case.differentiable:
            seen |= _record(lambda: _run_forward_backward(case, sample, complex_=True))
        assert not seen or seen & set(case.covers), \
            f"{case.name}: sample {k} runs none of {list(case.covers)} (it runs {sorted(seen)})"
        ran |= seen
    assert case.op in ran, f"{case.name}: {case.op!r} never ran (ran {sorted(ran)})"
    missing = sorted(set(case.covers) - ran)
    assert not missing, f"{case.name}: covers {missing}, which never ran (ran {sorted(ran)})"


# ----------------------------------------------------------------- spellings
def _inplace_names():
    """The public functions whose entry (or ``@public``) says they have an in-place form."""
    import tensorplay.ops as ops
    names = set()
    for mod in vars(ops).values():
        for name in getattr(mod, "__all__", ()) if hasattr(mod, "__file__") else ():
            sp = getattr(getattr(mod, name, None), "spelling", None)
            if sp is not None and sp.inplace:
                names.add(name)
    return frozenset(names)


_INPLACE = _inplace_names()

# the operator spellings of the function spellings (registry op -> operator), used
# unless an entry lists its own ``operators`` (dunder names) or a row gives one
_OPERATORS = {
    "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y, "floor_divide": lambda x, y: x // y,
    "remainder": lambda x, y: x % y, "pow": lambda x, y: x ** y, "matmul": lambda x, y: x @ y,
    "bitwise_and": lambda x, y: x & y, "bitwise_or": lambda x, y: x | y,
    "bitwise_xor": lambda x, y: x ^ y, "eq": lambda x, y: x == y, "ne": lambda x, y: x != y,
    "lt": lambda x, y: x < y, "le": lambda x, y: x <= y, "gt": lambda x, y: x > y,
    "ge": lambda x, y: x >= y, "neg": lambda x: -x, "positive": lambda x: +x,
    "abs": lambda x: abs(x), "bitwise_not": lambda x: ~x,
}
_REFLECTED_OR_INPLACE = re.compile(r"^__[ri](add|sub|mul|truediv|floordiv|mod|pow|matmul|and|or|xor)__$")
# augmented assignment (an in-place operator): x.clone() op= y
_IOPERATORS = {"add": "__iadd__", "sub": "__isub__", "mul": "__imul__", "div": "__itruediv__",
               "floor_divide": "__ifloordiv__", "remainder": "__imod__", "pow": "__ipow__",
               "bitwise_and": "__iand__", "bitwise_or": "__ior__", "bitwise_xor": "__ixor__"}


def _method_name(case):
    if not case.plain or case.method is False:
        return None
    if isinstance(case.method, str):
        return case.method
    if "." in case.func or getattr(REGISTRY.get(case.op), "method", True) is False:
        return None
    return case.func if callable(getattr(tp.Tensor, case.func, None)) else None


def _inplace_name(case):
    if not case.plain or case.inplace is False:
        return None
    if isinstance(case.inplace, str):
        return case.inplace
    if "." in case.func:
        return None
    flag = getattr(REGISTRY.get(case.op), "inplace", None)
    if flag is False:
        return None
    name = flag if isinstance(flag, str) else case.func + "_"
    if flag or case.func in _INPLACE:
        return name if callable(getattr(tp.Tensor, name, None)) else None
    return None


def _operator(case):
    if not case.plain or case.operator is False:
        return None
    if callable(case.operator):
        return case.operator
    if case.func != case.op:
        return None
    dunders = [d for d in getattr(REGISTRY.get(case.op), "operators", ()) or ()
               if isinstance(d, str) and d.startswith("__") and not _REFLECTED_OR_INPLACE.match(d)]
    if dunders:             # an entry's own operator spelling (its first forward dunder)
        d = dunders[0]
        return lambda x, *rest: getattr(x, d)(*rest)
    return _OPERATORS.get(case.func)


def _ioperator(case):
    return _IOPERATORS.get(case.func) if case.plain and case.operator is not False \
        and not callable(case.operator) and case.func == case.op else None


def _with_spelling(cases, get):
    return [pytest.param(c, id=c.name, marks=_marks(c, "spellings")) for c in cases if get(c)]


def _same(a, b, msg):
    a, b = _outputs(a), _outputs(b)
    assert len(a) == len(b), msg
    for x, y in zip(a, b):
        assert tuple(x.shape) == tuple(y.shape), msg
        assert x.dtype == y.dtype, msg
        assert_close(x.detach().numpy(), y.detach().numpy(), atol=1e-12, rtol=1e-10, msg=msg)


def _grads(outs, xs, seed=5):
    """Gradients of a fixed random weighting of the differentiable outputs."""
    outs = [o for o in _outputs(outs) if o.requires_grad]
    ins = [x for x in xs if x.requires_grad]
    if not outs or not ins:
        return []
    gen = np.random.default_rng(seed)
    ws = [tp.tensor(gen.standard_normal(tuple(o.shape)).astype(o.detach().numpy().dtype)) for o in outs]
    return tp.autograd.grad(outs, ins, ws, allow_unused=True)


def _compare_spelling(case, spelled, needs_plain_kwargs=False):
    """``spelled(*tensors, **kwargs)`` against the function spelling, every sample:
    values, and gradients where the row is differentiable."""
    checked = 0
    for k, s in enumerate(case.samples):
        if needs_plain_kwargs and s.kwargs:
            continue
        msg = f"{case.name} sample {k}"
        xs = _tensors(tp, s, requires_grad=case.differentiable)
        ys = _tensors(tp, s, requires_grad=case.differentiable)
        try:
            want = case.fn(tp, *xs, **s.kwargs)
        except Exception:       # noqa: BLE001  (a sample the function refuses: nothing to compare)
            continue
        got = spelled(*ys, **s.kwargs)
        _same(got, want, msg)
        if case.differentiable:
            for ga, gb in zip(_grads(got, ys), _grads(want, xs)):
                assert (ga is None) == (gb is None), msg
                if ga is not None:
                    assert_close(ga.numpy(), gb.numpy(), atol=1e-12, rtol=1e-10, msg=msg + " grad")
        checked += 1
    return checked


@pytest.mark.parametrize("case", _with_spelling(CASES, _method_name))
def test_method_spelling(case):
    """``x.op(*rest)`` agrees with ``T.op(x, *rest)``: values and gradients, every sample."""
    name = _method_name(case)

    def spelled(*xs, **kwargs):
        (x, *rest), kw = case.arrange(xs, kwargs)
        return getattr(x, name)(*rest, **kw)
    assert _compare_spelling(case, spelled), f"{case.name}: no sample to compare x.{name}() on"


@pytest.mark.parametrize("case", _with_spelling(CASES, _operator))
def test_operator_spelling(case):
    """``x * y``, ``-x``, ``x @ y``, ``x[:, i]`` ... agree with the function spelling
    (a default operator takes no keyword arguments: samples with some are left out)."""
    op = _operator(case)
    if not _compare_spelling(case, lambda *xs, **kw: op(*xs, **kw), needs_plain_kwargs=not callable(case.operator)):
        pytest.skip(f"{case.name}: no sample that the function computes and the operator can spell "
                    f"(without keyword arguments)")


def _can_write(out, x):
    """PyTorch writes a result into ``x`` in place if it has x's shape and its dtype
    category is not above x's."""
    order = "biufc"
    return tuple(out.shape) == tuple(x.shape) and \
        order.index(out.detach().numpy().dtype.kind) <= order.index(x.detach().numpy().dtype.kind)


def _inplace_outcome(T, case, s, name):
    (x, *rest), kw = case.arrange(_tensors(T, s, requires_grad=False), s.kwargs)
    x = x.clone()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = getattr(x, name)(*rest, **kw)
    except Exception as e:      # noqa: BLE001  (compared with the out-of-place result / torch)
        return e, x, None
    return None, x, r


@pytest.mark.parametrize("case", _with_spelling(CASES, _inplace_name))
def test_inplace_spelling(case):
    """``x.clone().op_(*rest)`` returns ``x`` holding the out-of-place result (where
    PyTorch can write it in place; where it cannot, both refuse); with torch
    installed, the same outcome as torch's; gradients through the in-place form on
    a non-leaf pass gradcheck (first sample it applies to)."""
    name = _inplace_name(case)
    grad_sample = None
    for k, s in enumerate(case.samples):
        msg = f"{case.name} sample {k}: x.{name}()"
        xs = _tensors(tp, s, requires_grad=False)
        want = case.fn(tp, *xs, **s.kwargs)
        if not isinstance(want, tp.Tensor):
            continue
        self0 = case.arrange(xs, s.kwargs)[0][0]
        err, x, r = _inplace_outcome(tp, case, s, name)
        if torch is not None and callable(getattr(torch.Tensor, name, None)):
            terr, tx, _ = _inplace_outcome(torch, case, s, name)
            assert (err is None) == (terr is None), f"{msg}: tensorplay {err!r}, torch {terr!r}"
            if err is not None:
                assert type(err).__name__ == type(terr).__name__, f"{msg}: {err!r} vs torch {terr!r}"
            else:
                assert_close(x.numpy(), tx.numpy(), atol=1e-12, rtol=1e-10, msg=msg + " vs torch")
        if err is not None:     # only where self cannot hold the result
            assert isinstance(err, RuntimeError) and not _can_write(want, self0), f"{msg} raised {err!r}"
            continue
        assert r is x, f"{msg} does not return self"
        assert tuple(x.shape) == tuple(want.shape), msg
        assert x.dtype == self0.dtype, f"{msg} changed the dtype"
        assert_close(x.numpy(), want.detach().numpy().astype(x.numpy().dtype), atol=1e-12, rtol=1e-10,
                     msg=msg)
        if grad_sample is None and case.differentiable and x.is_floating_point():
            grad_sample = s
    if grad_sample is not None:
        s = grad_sample

        def through_inplace(*xs):
            (x, *rest), kw = case.arrange(xs, s.kwargs)
            return getattr(x.clone(), name)(*rest, **kw)
        xs = _tensors(tp, s)
        if case.arrange(xs, s.kwargs)[0][0].requires_grad:
            assert tp.autograd.gradcheck(through_inplace, xs, atol=case.atol, rtol=case.rtol)


@pytest.mark.parametrize("case", _with_spelling(CASES, _ioperator))
def test_augmented_assignment(case):
    """``x op= y`` (on a clone) agrees with the out-of-place function."""
    dunder = _ioperator(case)
    for k, s in enumerate(case.samples):
        if s.kwargs:
            continue
        xs = _tensors(tp, s, requires_grad=False)
        want = case.fn(tp, *xs, **s.kwargs)
        if not _can_write(want, xs[0]):
            continue
        x = xs[0].clone()
        assert getattr(x, dunder)(*xs[1:]) is x
        assert_close(x.numpy(), want.numpy().astype(x.numpy().dtype), atol=1e-12, rtol=1e-10,
                     msg=f"{case.name} sample {k} {dunder}")


def _tensor_spellings(T, func):
    return {n for n in (func, func + "_") if callable(getattr(T.Tensor, n, None))}


@pytest.mark.parametrize("case", _rows([c for c in CASES if c.plain and "." not in c.func],
                                       "spellings_exist"))
def test_spellings_exist_as_in_torch(case):
    """The row's op has a method and an in-place method exactly where PyTorch has them."""
    if torch is None:
        pytest.skip("torch not installed")
    mine, theirs = _tensor_spellings(tp, case.func), _tensor_spellings(torch, case.func)
    assert mine == theirs, f"{case.name}: tensorplay has {sorted(mine)}, torch has {sorted(theirs)}"


# ----------------------------------------------------------------- generated samples
def _noncontiguous(a):
    """The same values in a non-contiguous layout: transposed (Fortran order) where
    that differs from C order, else every other element of a buffer twice as long
    along the first dimension longer than 1; ``None`` if neither is possible."""
    a = np.asarray(a)
    if a.size <= 1:
        return None
    f = np.asfortranarray(a)
    if not f.flags.c_contiguous:
        return f
    ax = next(i for i, n in enumerate(a.shape) if n > 1)
    shape = list(a.shape)
    shape[ax] *= 2
    buf = np.zeros(shape, a.dtype)
    sl = (slice(None),) * ax + (slice(None, None, 2),)
    buf[sl] = a
    return buf[sl]


def _from_arrays(arrays, sample, requires_grad, T=tp):
    out = []
    for i, a in enumerate(arrays):
        t = T.from_numpy(a)
        if requires_grad and a.dtype.kind in "fc" and (sample.grad is None or i in sample.grad):
            t.requires_grad_(True)
        out.append(t)
    return out


def _first_sample(case, pred=None):
    for s in case.samples:
        if pred is None or pred(s):
            return s
    return None


def _call(T, case, xs, kwargs):
    f = case.torch_fn if (T is torch and case.torch_fn) else case.fn
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return None, _outputs(f(T, *xs, **kwargs))
    except Exception as e:      # noqa: BLE001  (compared between the two libraries)
        return e, None


@pytest.mark.parametrize("case", _rows([c for c in CASES if c.noncontig], "noncontig"))
def test_noncontiguous_sample(case):
    """The first sample with its inputs laid out non-contiguously (same values): the
    same results as contiguous inputs, and gradcheck passes.  A row marked
    ``noncontig="refused"`` (``view``) must refuse them, with torch installed with
    torch's exception and message; so must any row torch refuses them for."""
    s = case.samples[0]
    arrays = [np.asarray(a) for a in s.arrays]
    nc = [_noncontiguous(a) for a in arrays]
    if all(a is None for a in nc):
        pytest.skip("no input of the first sample has two elements")
    nc = [b if b is not None else a.copy() for a, b in zip(arrays, nc)]
    assert any(not tp.from_numpy(b).is_contiguous() for b in nc)
    xs = _from_arrays(nc, s, case.differentiable)
    err, got = _call(tp, case, xs, s.kwargs)
    if case.noncontig == "refused":
        assert isinstance(err, RuntimeError), f"{case.name}: a non-contiguous input is not refused ({err!r})"
    if torch is not None:
        terr, _ = _call(torch, case, _from_arrays(nc, s, case.differentiable, torch),
                        s.kwargs)
        if terr is not None:
            assert err is not None, f"{case.name}: torch refuses the non-contiguous sample ({terr!r})"
            assert type(err).__name__ == type(terr).__name__ and str(err) == str(terr), \
                f"{case.name}: {err!r} vs torch {terr!r}"
            return
        assert case.noncontig != "refused", f"{case.name}: torch computes the non-contiguous sample"
    if case.noncontig == "refused":
        return
    if err is not None:
        raise err
    _, want = _call(tp, case, _tensors(tp, s, requires_grad=case.differentiable), s.kwargs)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert tuple(a.shape) == tuple(b.shape) and a.dtype == b.dtype, case.name
        assert_close(a.detach().numpy(), b.detach().numpy(), atol=1e-12, rtol=1e-9, msg=case.name)
    if case.differentiable and any(x.requires_grad for x in xs):
        assert tp.autograd.gradcheck(lambda *a: case.fn(tp, *a, **s.kwargs), xs,
                                     atol=case.atol, rtol=case.rtol)


def _zero_size(sample):
    """The sample with its first dimension emptied: on the first input of the
    largest rank and on every input of that rank whose first dimension has the same
    length (so broadcasting and matching sizes still line up).  ``None`` if the
    first input is 0-d or already empty."""
    arrays = [np.asarray(a) for a in sample.arrays]
    if not arrays or arrays[0].ndim == 0 or arrays[0].shape[0] == 0:
        return None
    rank = max(a.ndim for a in arrays)
    lead = next(a for a in arrays if a.ndim == rank).shape[0]
    new = [a[:0] if a.ndim == rank and a.shape[0] == lead else a for a in arrays]
    return type(sample)(new, dict(sample.kwargs), sample.grad, "zero-size")


def _attempt(T, case, s, requires_grad):
    xs = _tensors(T, s, requires_grad=requires_grad)
    f = case.torch_fn if (T is torch and case.torch_fn) else case.fn
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return None, xs, _outputs(f(T, *xs, **s.kwargs))
    except Exception as e:      # noqa: BLE001  (compared between the two libraries)
        return e, xs, None


def _ones_grads(T, outs, xs):
    outs = [o for o in outs if o.requires_grad]
    ins = [x for x in xs if x.requires_grad]
    if not outs or not ins:
        return None
    return T.autograd.grad(outs, ins, [T.ones_like(o) for o in outs], allow_unused=True)


@pytest.mark.parametrize("case", _rows([c for c in CASES if c.zero_size], "zero_size"))
def test_zero_size_sample(case):
    """The first sample with a size-0 dimension: where PyTorch computes it, the same
    shapes, dtypes, values and gradients (backward runs); where PyTorch refuses it,
    the same exception type.  Without torch: the shapes of the NumPy reference if
    the row has one (the broadcast shape for an elementwise op), and backward runs."""
    s = _zero_size(case.samples[0])
    if s is None:
        pytest.skip("the first sample's first input is 0-d")
    err, xs, outs = _attempt(tp, case, s, case.differentiable)
    if torch is not None:
        terr, txs, touts = _attempt(torch, case, s, case.differentiable)
        if terr is not None:
            assert err is not None, f"{case.name}: torch refuses the zero-size sample ({terr!r}), " \
                                    f"tensorplay computes it"
            assert type(err).__name__ == type(terr).__name__, f"{case.name}: {err!r} vs torch {terr!r}"
            return
        assert err is None, f"{case.name}: tensorplay refuses the zero-size sample: {err!r}"
        assert len(outs) == len(touts)
        for a, b in zip(outs, touts):
            assert tuple(a.shape) == tuple(b.shape), f"{case.name}: {tuple(a.shape)} vs torch {tuple(b.shape)}"
            assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], case.name
            assert_close(a.detach().numpy(), b.detach().numpy(force=True), atol=1e-12, rtol=1e-9, msg=case.name)
        if case.differentiable:
            ga, gb = _ones_grads(tp, outs, xs), _ones_grads(torch, touts, txs)
            assert (ga is None) == (gb is None), case.name
            for a, b, x in zip(ga or (), gb or (), [x for x in xs if x.requires_grad]):
                if b is None:
                    assert a is None or not np.any(a.numpy()), case.name
                    continue
                assert a is not None and tuple(a.shape) == tuple(x.shape), case.name
                assert_close(a.numpy(), b.numpy(force=True), atol=1e-12, rtol=1e-9, msg=f"{case.name} grad")
        return
    if err is not None:
        pytest.skip(f"tensorplay refuses the zero-size sample ({err!r}); torch is not installed "
                    f"to say whether PyTorch does")
    want = _reference_shapes(case, s)
    if want is not None:
        assert [tuple(o.shape) for o in outs] == want, case.name
    if case.differentiable:
        for g, x in zip(_ones_grads(tp, outs, xs) or (), [x for x in xs if x.requires_grad]):
            assert g is None or tuple(g.shape) == tuple(x.shape), case.name


def _reference_shapes(case, s):
    """Output shapes under NumPy semantics: the row's NumPy reference, or the
    broadcast shape for an elementwise op; ``None`` if neither is known."""
    if case.ref is not None:
        try:
            return [np.shape(r) for r in _outputs(case.ref(*s.arrays, **s.kwargs))]
        except ValueError:              # the reference itself cannot take the sample
            return None
    if case.plain and getattr(case.family, "name", None) == "elementwise":   # one op, one output
        return [tuple(np.broadcast_shapes(*[np.shape(a) for a in s.arrays]))]
    return None


@pytest.mark.parametrize("case,sample", _samples([c for c in CASES if c.ref is not None], "ref"))
def test_against_numpy_reference(case, sample):
    """Values against the row's NumPy reference (runs without torch)."""
    xs = _tensors(tp, sample, requires_grad=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _outputs(case.fn(tp, *xs, **sample.kwargs))
        want = _outputs(case.ref(*[np.asarray(a) for a in sample.arrays], **sample.kwargs))
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert_close(a.numpy(), np.asarray(b), atol=1e-10, rtol=1e-9, msg=case.name)


# ----------------------------------------------------------------- registry flags
@pytest.mark.parametrize("case", _rows([c for c in CASES if c.float_only and c.plain], "float_only"))
def test_float_only_op_promotes_integers(case):
    """A float-only op (the registry's flag) computes integer inputs in the default
    float dtype: the result equals the op on the same values as float32, and (torch
    installed) torch's dtype and values."""
    s = case.samples[0]
    with np.errstate(invalid="ignore"):         # (infinite samples: any integer will do)
        ints = [np.round(a).astype(np.int64) if np.asarray(a).dtype.kind == "f" else a
                for a in s.arrays]
    si = type(s)(ints, dict(s.kwargs), s.grad, "int")
    sf = type(s)([a.astype(np.float32) if a.dtype.kind == "i" and b.dtype.kind == "f" else a
                  for a, b in zip(map(np.asarray, ints), map(np.asarray, s.arrays))], dict(s.kwargs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _outputs(case.fn(tp, *_tensors(tp, si, requires_grad=False), **s.kwargs))
        want = _outputs(case.fn(tp, *_tensors(tp, sf, requires_grad=False), **s.kwargs))
    for a, b in zip(got, want):
        if b.is_floating_point():
            assert a.dtype == tp.get_default_dtype(), f"{case.name}: int64 in, {a.dtype} out"
        assert_close(a.numpy(), b.numpy(), atol=1e-6, rtol=1e-6, msg=case.name)
    if torch is not None:
        err, _, touts = _attempt(torch, case, si, False)
        assert err is None, f"{case.name}: torch refuses integer inputs ({err!r}); tensorplay promotes " \
                            f"them (the registry says the op is float-only)"
        for a, b in zip(got, touts):
            assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], case.name
            assert_close(a.numpy(), b.numpy(), atol=1e-6, rtol=1e-6, msg=f"{case.name} vs torch")


def _is_view_op(case):
    return getattr(case.family, "name", None) == "view" or getattr(REGISTRY.get(case.op), "view", False)


@pytest.mark.parametrize("case,sample", _samples([c for c in CASES if c.plain and _is_view_op(c)], "view"))
def test_view_op_returns_a_view(case, sample):
    """An op the registry calls a view returns tensors that share the input's memory
    and have it as their base (torch installed: torch agrees they are views)."""
    xs = _tensors(tp, sample, requires_grad=False)
    for o in _outputs(case.fn(tp, *xs, **sample.kwargs)):
        assert o._base is xs[0], f"{case.name}: output is not a view of the input"
        if o.numel() and xs[0].numel():
            assert np.shares_memory(o._data, xs[0]._data), case.name
    if torch is not None:
        ts = _tensors(torch, sample, requires_grad=False)
        f = case.torch_fn or case.fn
        for o in _outputs(f(torch, *ts, **sample.kwargs)):
            assert o._is_view() and o._base is ts[0], f"{case.name}: not a view in torch"


# ----------------------------------------------------------------- error inputs
ERRORS = [pytest.param(c, e, lib, id=f"{c.name}-{k}{('-' + e.sample.desc) if e.sample.desc else ''}-{lib}",
                       marks=[pytest.mark.xfail(reason=e.xfail, strict=True)] if e.xfail and lib == "tensorplay"
                       else [])
          for c in CASES for k, e in enumerate(c.errors) for lib in ("tensorplay", "torch")]


@pytest.mark.parametrize("case,err,lib", ERRORS)
def test_error_inputs(case, err, lib):
    """The row refuses the input with PyTorch's exception type and message (in
    tensorplay; with torch installed, in torch too, which checks the row)."""
    if lib == "torch" and torch is None:
        pytest.skip("torch not installed")
    T = tp if lib == "tensorplay" else torch
    xs = _tensors(T, err.sample, requires_grad=False)
    f = err.fn or (case.torch_fn if (T is torch and case.torch_fn) else case.fn)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f(T, *xs, **err.sample.kwargs)
    except Exception as e:      # noqa: BLE001  (the exact type is asserted)
        assert type(e).__name__ == err.exc_type.__name__, f"{lib} raised {e!r}, not {err.exc_type.__name__}"
        assert re.search(err.regex, str(e)), f"{lib}'s message {str(e)!r} does not match {err.regex!r}"
        return
    pytest.fail(f"{lib} accepted the input (expected {err.exc_type.__name__})")


# ----------------------------------------------------------------- the table covers the registry
_CHECKS = {"gradcheck", "gradgradcheck", "complex", "float32", "low_precision", "against_torch", "covers",
           "spellings", "spellings_exist", "noncontig", "zero_size", "ref", "float_only", "view"}


def test_xfails_name_checks():
    """A row's expected failures name checks that exist (a typo would silently not apply)."""
    bad = sorted((c.name, k) for c in CASES for k in c.xfail if k not in _CHECKS)
    assert not bad, f"(row, check) pairs naming no check: {bad}"


def test_rows_name_registered_ops():
    """A row's op and every name in its covers are registry ops (what the coverage
    test below counts)."""
    bad = sorted({(c.name, n) for c in CASES for n in (c.op, *c.covers) if n not in REGISTRY})
    assert not bad, f"(row, name) pairs naming no registered op: {bad}"


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
    read, declared = set(), set()
    rows = [c for c in DIFF if "gradcheck" not in c.xfail]     # rows known not to run are out
    runs = [(c, s, False) for c in rows for s in c.samples]
    runs += [(c, s, True) for c in rows if c.complex for s in c.samples]
    for case, sample, complex_ in runs:
        xs = _tensors(tp, sample, complex_=complex_)
        rec = record_ops(lambda: case.fn(tp, *xs, **sample.kwargs))
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
