"""Gradients the engine does not check fit their inputs.

A node whose ``input_meta`` is None is not asked to ``validate`` the
gradients it returns: an elementwise op whose inputs have the output's shape
and dtype, and an op whose family (or entry) says ``exact`` (views,
reductions, mm...) whose inputs have the output's dtype, give each input a
gradient of its own shape and dtype by construction.  Here every row and
sample of the op table runs forward, backward with ``create_graph`` and
backward again (so the derivative ops' own nodes run too), in float64,
complex128 and float32, and every unchecked gradient is compared with the
input it is for.  A family member that broadcast one input against another
(or changed a dtype) without being checked would fail here.
"""
import warnings

import numpy as np
import pytest

import tensorplay as tp
import tensorplay.ops._registry as R
import tensorplay.ops.pointwise as P
from tensorplay.ops import REGISTRY

from opdb import CASES
from test_op_table import _outputs, _tensors


@pytest.fixture
def unchecked(monkeypatch):
    """Spies: the inputs' shapes and dtypes of each node recorded, and for each
    node run without a check, the gradients that did not fit them."""
    inputs, misfits, seen = {}, [], []

    def note(node, tensors):
        inputs[id(node)] = (node, [None if e is None else (t._data.shape, t._data.dtype)
                                   for e, t in zip(node.next_edges, tensors)])

    record, pointwise = R.record, R.record_pointwise

    def spy_record(op, args, outs):
        node = record(op, args, outs)
        note(node, args)
        return node

    def spy_pointwise(op, x, y, out):
        node = pointwise(op, x, y, out)
        note(node, [x] if y is R._NO_ARG else [x, y])
        return node

    def checked_apply(apply):
        def spy(node, grads):
            out = apply(node, grads)
            if node.input_meta is None and id(node) in inputs:
                seen.append(type(node).op.name)
                for g, want in zip(out, inputs[id(node)][1]):
                    if g is not None and want is not None and \
                            (g._data.shape, g._data.dtype) != want:
                        misfits.append((type(node).op.name, (g._data.shape, g._data.dtype), want))
            return out
        return spy

    for module in (R, P):           # (the pointwise fast paths import them by name)
        monkeypatch.setattr(module, "record", spy_record)
        monkeypatch.setattr(module, "record_pointwise", spy_pointwise)
    for cls in (R.OpNode, R.MultiOutputNode):
        monkeypatch.setattr(cls, "apply", checked_apply(cls.apply))
    return misfits, seen


def _run(case, sample, dtype, complex_):
    xs = _tensors(tp, sample, dtype=dtype, complex_=complex_)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outs = _outputs(case.fn(tp, *xs, **sample.kwargs))
        diff = [o for o in outs if isinstance(o, tp.Tensor) and o.requires_grad]
        ins = [x for x in xs if x.requires_grad]
        if not (diff and ins):
            return
        gs = tp.autograd.grad(diff, ins, [tp.ones_like(o) for o in diff], allow_unused=True,
                              create_graph=True)
        again = [g.abs().sum() for g in gs if g is not None and g.requires_grad]
        if again:
            try:
                tp.autograd.grad(again, ins, allow_unused=True)
            except (RuntimeError, NotImplementedError) as e:    # no second derivative, as in
                msg = str(e)                                       # PyTorch (ctc_loss, Gamma draws)
                if "derivative for" not in msg or "not implemented" not in msg:
                    raise


def test_unchecked_gradients_fit_their_inputs(unchecked):
    misfits, seen = unchecked
    silent = []                 # rows none of whose float64 samples ran
    for case in CASES:
        if not case.differentiable:
            continue
        ran = False
        for sample in case.samples:
            for dtype, complex_ in ((None, False), (None, True), (np.float32, False)):
                if complex_ and not case.complex:
                    continue
                try:
                    _run(case, sample, dtype, complex_)
                    ran = ran or (dtype is None and not complex_)
                except Exception:       # noqa: BLE001  (an input refused: other tests' business)
                    pass
        if not ran:
            silent.append(case.name)
    assert not misfits, sorted(set(map(str, misfits)))[:10]
    assert not silent, silent   # (the check would have covered nothing there)
    # the check ran for the families that skip it, not only for elementwise ops
    ran = set(seen)
    for name in ("view", "slice", "expand", "sum", "mean", "softmax", "cat", "mm", "mm_nh",
                 "mm_hn", "sum_to_size", "slice_backward", "mul", "tanh"):
        assert name in ran, name


def test_exact_ops_skip_the_check_only_when_dtypes_agree():
    x = tp.randn(3, 4, dtype=tp.float64, requires_grad=True)
    assert x.sum().grad_fn.input_meta is None
    assert x.sum(dtype=tp.float32).grad_fn.input_meta is not None    # float32 out, float64 in
    z = tp.randn(3, 4, dtype=tp.complex128, requires_grad=True)
    assert z.real.grad_fn.input_meta is not None                    # a real view of complex
    assert z.sum().grad_fn.input_meta is not None                   # complex: always checked
    h = tp.randn(3, 4, dtype=tp.float16, requires_grad=True)
    assert h.sum().grad_fn.input_meta is not None                   # half: always checked
    w = tp.randn(4, 2, dtype=tp.float32, requires_grad=True)
    c = tp.cat([x, w.T.double()])
    assert c.grad_fn.input_meta is None
    c = tp.cat([x, w.T])                                            # promotes float32 -> float64
    assert c.grad_fn.input_meta is not None
    assert tp.mm(x, w.double()).grad_fn.input_meta is None
    a, b = tp.randn(1, 3, 4, requires_grad=True), tp.randn(2, 4, 5, requires_grad=True)
    assert tp.matmul(a, b).grad_fn.input_meta is not None        # matmul broadcasts: not exact
    assert tp.autograd.grad(tp.matmul(a, b).sum(), a)[0].shape == (1, 3, 4)
    assert not REGISTRY["matmul"].exact and not REGISTRY["addmm"].exact
    assert REGISTRY["mm"].exact and REGISTRY["view"].exact and not REGISTRY["add"].exact


def test_cat_with_promotion_gets_gradients_of_each_dtype():
    x = tp.randn(2, 3, dtype=tp.float32, requires_grad=True)
    y = tp.randn(1, 3, dtype=tp.float64, requires_grad=True)
    gx, gy = tp.autograd.grad(tp.cat([x, y]).sum(), (x, y))
    assert gx.dtype == tp.float32 and gy.dtype == tp.float64
    assert gx.shape == (2, 3) and gy.shape == (1, 3)
