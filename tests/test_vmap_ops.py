"""vmap on every row of the op table (tests/opdb): for each sample, a batch of
three perturbed copies of its inputs goes through ``vmap(row)``, and the
result must equal the row applied to each copy in a Python loop, stacked:

- every input batched along dimension 0;
- every input batched along its last dimension;
- only the first input batched (the others shared by all samples);
- nested: ``vmap(vmap(row))`` over a 2 x 3 batch of the first input.

Every op must do this with its own batching rule: the per-sample fallback
warns, and a row whose op falls back fails unless it is listed in
``FALLBACK`` below, with the reason.  The gradient of a per-sample loss
through vmap (``vmap(grad(f))``) is checked against the loop too.
"""
import os
import warnings
import zlib

import numpy as np
import pytest

import tensorplay as tp
from tensorplay.func import grad, vmap
from tensorplay.func import _vmap

from conftest import assert_close
from opdb import CASES
from test_op_table import _outputs

B = 3

# ops that have no batching rule of their own (the fallback runs them once per sample)
FALLBACK = {
    "copy_slices": "internal to in-place ops on views: vmap writes in-place ops through the "
                   "physical tensor instead, so only a forward-mode tangent update reaches it",
}
# ops whose output shape depends on the values: PyTorch's vmap refuses them too
DYNAMIC = {"nonzero", "masked_select", "unique", "unique_consecutive", "bincount"}


_GAPS_FILE = os.path.join(os.path.dirname(__file__), "data", "vmap_known_gaps.txt")
with open(_GAPS_FILE) as _f:
    GAPS = {line.strip() for line in _f if line.strip() and not line.startswith("#")}


@pytest.fixture(autouse=True)
def _known_gap(request):
    if request.node.name in GAPS:
        request.applymarker(pytest.mark.xfail(strict=True, reason="a batching-rule gap listed in "
                                                                  "tests/data/vmap_known_gaps.txt"))


def _rng(case, sample, salt):
    return np.random.default_rng(zlib.crc32(f"{case.name}/{sample.desc}/{salt}".encode()))


def _batch(arrays, gen, n=B):
    """``n`` copies of each array: floating ones perturbed per copy (real ones
    kept within the sample's own range, so that a domain such as [0, 1] holds),
    others (indices, masks) repeated as they are; stacked along a new dimension 0."""
    out = []
    for a in arrays:
        a = np.asarray(a)
        if a.dtype.kind in "fc":
            copies = [a + 0.05 * k * gen.standard_normal(a.shape).astype(a.dtype) for k in range(n)]
            if a.dtype.kind == "f" and a.size:
                copies = [np.clip(c, a.min(), a.max()) for c in copies]
        else:
            copies = [a] * n
        out.append(np.stack(copies))
    return out


def _tensor_batch(case, sample, gen, n=B):
    arrays = _batch(sample.arrays, gen, n)
    per = [[a[k] for a in arrays] for k in range(n)]
    return arrays, per


def _call(case, sample, xs):
    return case.fn(tp, *xs, **sample.kwargs)


def _loop(case, sample, per):
    outs = [_call(case, sample, [tp.tensor(a) for a in p]) for p in per]
    if isinstance(outs[0], (tuple, list)):
        return [tp.stack([o[k] for o in outs]) for k in range(len(outs[0]))]
    return [tp.stack(outs)]


def _run(case, sample, xs, in_dims):
    del _vmap.FELL_BACK[:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = vmap(lambda *a: case.fn(tp, *a, **sample.kwargs), in_dims=in_dims)(*xs)
    return r, list(_vmap.FELL_BACK)


def _check_fallback(case, fell):
    missing = sorted(set(fell) - set(FALLBACK))
    if missing:
        pytest.fail(f"{case.name}: no batching rule for {missing}")


def _cmp(case, got, want):
    got = _outputs(got)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape), (g.shape, w.shape)
        assert g.dtype == w.dtype
        assert_close(g, w, atol=1e-10, rtol=1e-10)


def _params():
    out = []
    for c in CASES:
        for k, s in enumerate(c.samples):
            if not s.arrays:
                continue
            marks = [pytest.mark.skip(reason="dynamic output shape")] if c.op in DYNAMIC else []
            out.append(pytest.param(c, s, id=f"{c.name}-{k}{('-' + s.desc) if s.desc else ''}",
                                    marks=marks))
    return out


@pytest.mark.parametrize("case,sample", _params())
def test_vmap_dim0(case, sample):
    arrays, per = _tensor_batch(case, sample, _rng(case, sample, "d0"))
    want = _loop(case, sample, per)
    got, fell = _run(case, sample, [tp.tensor(a) for a in arrays], 0)
    _check_fallback(case, fell)
    _cmp(case, got, want)


@pytest.mark.parametrize("case,sample", _params())
def test_vmap_last_dim(case, sample):
    arrays, per = _tensor_batch(case, sample, _rng(case, sample, "last"))
    want = _loop(case, sample, per)
    xs = [tp.tensor(np.ascontiguousarray(np.moveaxis(a, 0, -1))) for a in arrays]
    got, fell = _run(case, sample, xs, tuple(-1 for _ in xs))
    _check_fallback(case, fell)
    _cmp(case, got, want)


@pytest.mark.parametrize("case,sample", _params())
def test_vmap_first_only(case, sample):
    gen = _rng(case, sample, "first")
    arrays, _ = _tensor_batch(case, sample, gen)
    shared = [np.asarray(a) for a in sample.arrays[1:]]
    per = [[arrays[0][k]] + shared for k in range(B)]
    want = _loop(case, sample, per)
    xs = [tp.tensor(arrays[0])] + [tp.tensor(a) for a in shared]
    got, fell = _run(case, sample, xs, (0,) + (None,) * len(shared))
    _check_fallback(case, fell)
    _cmp(case, got, want)


@pytest.mark.parametrize("case,sample", _params())
def test_vmap_nested(case, sample):
    gen = _rng(case, sample, "nested")
    first = _batch(_batch(sample.arrays[:1], gen, 3)[0:1], gen, 2)[0]     # (2, 3, *shape)
    shared = [np.asarray(a) for a in sample.arrays[1:]]
    outs = []
    for i in range(2):
        row = _loop(case, sample, [[first[i, j]] + shared for j in range(3)])
        outs.append(row)
    want = [tp.stack([o[k] for o in outs]) for k in range(len(outs[0]))]
    f = lambda *a: case.fn(tp, *a, **sample.kwargs)                         # noqa: E731
    dims = (0,) + (None,) * len(shared)
    del _vmap.FELL_BACK[:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vmap(vmap(f, in_dims=dims), in_dims=dims)(tp.tensor(first),
                                                         *[tp.tensor(a) for a in shared])
    _check_fallback(case, _vmap.FELL_BACK)
    _cmp(case, got, want)


def _grad_params():
    out = []
    for c in CASES:
        if not c.differentiable or c.op in DYNAMIC:
            continue
        s = c.samples[0]
        if not s.arrays or np.asarray(s.arrays[0]).dtype.kind != "f" or \
                (s.grad is not None and 0 not in s.grad):
            continue
        out.append(pytest.param(c, s, id=c.name))
    return out


@pytest.mark.parametrize("case,sample", _grad_params())
def test_vmap_of_grad(case, sample):
    """Per-sample gradients of a scalar loss of the row: vmap(grad(loss))
    against grad(loss) of each sample."""
    gen = _rng(case, sample, "grad")
    arrays, per = _tensor_batch(case, sample, gen)

    def loss(x, *rest):
        outs = [o for o in _outputs(case.fn(tp, x, *rest, **sample.kwargs))
                if o.is_floating_point()]
        return sum((o * o.detach().cos()).sum() for o in outs) if outs else x.sum() * 0

    want = tp.stack([grad(loss)(*[tp.tensor(a) for a in p]) for p in per])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vmap(grad(loss))(*[tp.tensor(a) for a in arrays])
    assert_close(got, want, atol=1e-9, rtol=1e-9)


@pytest.mark.parametrize("shape,dim,size,step", [((10,), 0, 3, 2), ((2, 3, 4), 2, 2, 1), ((5, 4), -2, 2, 3)])
def test_jacrev_through_unfold_batches_its_backward(shape, dim, size, step):
    """jacrev runs unfold's backward (unfold_backward) on a batch of cotangents:
    by its own rule, not once per sample; the Jacobian is jacfwd's."""
    from tensorplay.func import jacfwd, jacrev
    x = tp.tensor(np.random.default_rng(5).standard_normal(shape))

    def f(x):
        return x.unfold(dim, size, step).pow(2).sum(-1)
    del _vmap.FELL_BACK[:]
    got = jacrev(f)(x)
    assert _vmap.FELL_BACK == []
    assert_close(got, jacfwd(f)(x), atol=1e-12, rtol=1e-12)
