"""tensorplay.utils.checkpoint: identical gradients with and without
checkpointing (random ops included: the generator is restored for the
recomputation), lower peak memory, and PyTorch's behaviour for both variants
(warnings, errors, autograd.grad, retain_graph, nesting, in-place changes)."""
import gc
import importlib
import tracemalloc

import numpy as np
import pytest

import tensorplay as tp
from tensorplay.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential
from conftest import exact

VARIANTS = [pytest.param(False, id="non-reentrant"), pytest.param(True, id="reentrant")]


def _dropout(h, p=0.5):
    """Dropout written with the generator (tensorplay.nn is another module's work)."""
    return h * (tp.rand(h.shape, dtype=h.dtype) > p) / (1 - p)


def _block(x, w, scale=1.0):
    h = (x @ w).tanh()
    h = _dropout(h)
    return (h.exp() * x.sin()).sum(1, keepdim=True) * scale + h


def _inputs():
    g = tp.Generator().manual_seed(0)
    x = tp.randn(6, 5, dtype=tp.float64, generator=g, requires_grad=True)
    w = tp.randn(5, 5, dtype=tp.float64, generator=g, requires_grad=True)
    v = tp.randn(5, 3, dtype=tp.float64, generator=g, requires_grad=True)   # closed over
    return x, w, v


def _loss(x, w, v, wrap):
    h = wrap(_block, x, w)
    h = wrap(lambda a: _block(a, w) @ v, h)
    return (h ** 2).sum()


def _grads(wrap, seed=5):
    x, w, v = _inputs()
    tp.manual_seed(seed)
    loss = _loss(x, w, v, wrap)
    loss.backward()
    after = tp.rand(3).tolist()        # where the generator is once the pass is over
    return loss.item(), [t.grad.tolist() for t in (x, w, v)], after


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_identical_gradients_with_random_ops(reentrant):
    plain = _grads(lambda f, *a: f(*a))
    ck = _grads(lambda f, *a: checkpoint(f, *a, use_reentrant=reentrant))
    assert ck == plain                     # loss, every gradient (closed-over v too), the generator


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_without_preserving_the_generator_the_masks_differ(reentrant):
    plain = _grads(lambda f, *a: f(*a))
    ck = _grads(lambda f, *a: checkpoint(f, *a, use_reentrant=reentrant, preserve_rng_state=False))
    assert ck[0] == plain[0] and ck[1] != plain[1]


def test_gradcheck_through_checkpoint():
    x, w, _ = _inputs()

    def f(x, w):
        return checkpoint(lambda a, b: (a @ b).sin().exp(), x, w, use_reentrant=False)
    assert tp.autograd.gradcheck(f, (x, w))


def _chain(x, checkpointed, segments=4, per=4):
    def segment(h):
        for _ in range(per):
            h = (h * 1.01).sin()
        return h
    for _ in range(segments):
        h = checkpoint(segment, x, use_reentrant=checkpointed) if checkpointed is not None \
            else segment(x)
        x = h
    return x


def _peak(checkpointed):
    """Peak traced memory of forward + backward through 16 big elementwise ops
    in 4 segments, in units of one intermediate (4 MB)."""
    x = tp.randn(500_000, dtype=tp.float64, generator=tp.Generator().manual_seed(0),
                 requires_grad=True)
    gc.collect()
    tracemalloc.start()
    try:
        _chain(x, checkpointed).sum().backward()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak / x.numel() / 8, x.grad


def test_reentrant_lowers_peak_memory():
    """Without checkpointing the 16 saved intermediates are alive at once; with
    4 checkpointed segments, 4 segment outputs plus one segment recomputed."""
    base, g0 = _peak(None)
    ck, g1 = _peak(True)
    assert g1.tolist() == g0.tolist()
    assert base > 15 and ck < 0.7 * base, (base, ck)


def test_non_reentrant_lowers_peak_memory():
    base, g0 = _peak(None)
    ck, g1 = _peak(False)
    assert g1.tolist() == g0.tolist()
    assert base > 15 and ck < 0.7 * base, (base, ck)


def test_autograd_grad_and_retain_graph():
    """Non-reentrant: autograd.grad works, and each backward pass recomputes."""
    x, w, v = _inputs()
    tp.manual_seed(1)
    ref = tp.autograd.grad(_loss(x, w, v, lambda f, *a: f(*a)), [x, v])
    tp.manual_seed(1)
    loss = _loss(x, w, v, lambda f, *a: checkpoint(f, *a, use_reentrant=False))
    got = tp.autograd.grad(loss, [x, v], retain_graph=True)
    again = tp.autograd.grad(loss, [x, v])
    for a, b, c in zip(ref, got, again):
        assert a.tolist() == b.tolist() == c.tolist()


def test_kwargs_non_tensor_arguments_and_several_outputs():
    x, w, _ = _inputs()

    def f(a, b, n, scale=1.0):
        return (a @ b) * scale, (a * n).cos()

    def total(fn):
        x.grad = w.grad = None
        y, z = fn(x, w, 3, scale=2.0)
        (y.sum() + z.sum()).backward()
        return x.grad.tolist(), w.grad.tolist()
    assert total(lambda *a, **k: checkpoint(f, *a, use_reentrant=False, **k)) == total(f)
    assert total(lambda *a, **k: checkpoint(lambda *b: f(*b, **k), *a, use_reentrant=True)) == \
        total(f)


def test_nested_checkpoints():
    x, w, v = _inputs()

    def inner(a):
        return _block(a, w)

    def outer(a):
        return checkpoint(inner, a, use_reentrant=False) @ v

    def run(fn):
        for t in (x, w, v):
            t.grad = None
        tp.manual_seed(3)
        fn(x).pow(2).sum().backward()
        return [t.grad.tolist() for t in (x, w, v)]
    assert run(lambda a: checkpoint(outer, a, use_reentrant=False)) == \
        run(lambda a: _block(a, w) @ v)


def test_checkpoint_sequential():
    fns = [lambda h: h.sin(), lambda h: h * 2, lambda h: h.exp(), lambda h: h.tanh(),
           lambda h: h.cos()]
    x, _, _ = _inputs()

    def run(fn):
        x.grad = None
        fn(x).sum().backward()
        return x.grad.tolist()
    ref = run(lambda a: fns[4](fns[3](fns[2](fns[1](fns[0](a))))))
    for reentrant in (False, True):
        assert run(lambda a: checkpoint_sequential(fns, 2, a, use_reentrant=reentrant)) == ref


def test_under_no_grad_it_just_runs():
    x, w, _ = _inputs()
    with tp.no_grad():
        y = checkpoint(lambda a: a * 2, x, use_reentrant=False)
    assert not y.requires_grad and y.tolist() == (x * 2).tolist()


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_an_input_changed_in_place_is_an_error(reentrant):
    x = tp.randn(3, requires_grad=True)
    h = x * 1
    y = checkpoint(lambda a: (a * a).sum(), h, use_reentrant=reentrant)
    with tp.no_grad():
        h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_recomputation_that_saves_differently_is_an_error():
    x = tp.randn(3, dtype=tp.float64, requires_grad=True)
    calls = []

    def unsteady(a):
        calls.append(1)
        return a.exp() if len(calls) == 1 else a.sin().exp()
    # (counted only without early stopping: by default the recomputation stops once it has
    # as many tensors as the forward saved, and only their shapes and dtypes are compared)
    y = checkpoint(unsteady, x, use_reentrant=False, early_stop=False)
    with pytest.raises(CheckpointError, match="trying to save more tensors during recomputation"):
        y.sum().backward()

    calls.clear()

    def reshaped(a):
        calls.append(1)
        return (a * a).sum() if len(calls) == 1 else (a[:2] * a[:2]).sum()
    y = checkpoint(reshaped, x, use_reentrant=False)
    with pytest.raises(CheckpointError, match="Recomputed values for the following tensors have "
                                              "different metadata"):
        y.backward()


def _ckpt(T):
    return importlib.import_module(T.__name__ + ".utils.checkpoint").checkpoint


def test_reentrant_default_and_messages(T):
    ck = _ckpt(T)
    x = T.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed "
                                         "explicitly"):
        y = ck(lambda a: a * 3, x)
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    with pytest.raises(ValueError, match=exact("Unexpected keyword arguments: scale")):
        ck(lambda a, scale: a, x, use_reentrant=True, scale=2)
    with pytest.raises(ValueError, match="Passing `context_fn` or `debug` is only supported when "
                                         "use_reentrant=False."):
        ck(lambda a: a, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        ck(lambda a: a, x, use_reentrant=False, determinism_check="strict")
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True. Gradients "
                                         "will be None"):
        y = ck(lambda a: a * x, T.ones(2), use_reentrant=True)
    assert not y.requires_grad              # the reentrant variant's known pitfall


def test_context_fn():
    x = tp.ones(2, requires_grad=True)
    seen = []

    class Note:
        def __init__(self, what):
            self.what = what

        def __enter__(self):
            seen.append(self.what)

        def __exit__(self, *exc):
            pass
    y = checkpoint(lambda a: a.exp(), x, use_reentrant=False,
                   context_fn=lambda: (Note("forward"), Note("recompute")))
    y.sum().backward()
    assert seen == ["forward", "recompute"]
    np.testing.assert_allclose(x.grad.tolist(), [np.e, np.e])


# ---------------------------------------------------------------- in-place ops under pack hooks
# An in-place op whose derivative reads the value it overwrites saves that value;
# a pack hook may keep its memory (``detach()``, the non-reentrant checkpoint's
# recompute hooks), so the value is copied before the hook sees it.  (Both
# used to give the gradient of the overwritten value: 4a cos 2a^2 came out as
# -1.746 instead of -1.164 at a = 2.)
_INPLACE = {
    "mul_": (lambda a: (lambda u: (u.mul_(a), u.sin())[1])(a * 2),
             lambda a: (2 * a * a).sin()),
    "clamp_": (lambda a: (lambda u: (u.clamp_(max=3), u * a)[1])(a * 2),
               lambda a: (a * 2).clamp(max=3) * a),
    "sin_ on a view": (lambda a: (lambda v: (v[1:].sin_(), v * 3)[1])(a * 1),
                       lambda a: tp.cat([a[:1], a[1:].sin()]) * 3),
    "chain": (lambda a: (lambda u: (u[1:].sin_(), u.exp_(), u.pow_(2), u * a)[3])(a * 1),
              lambda a: tp.cat([a[:1], a[1:].sin()]).exp() ** 2 * a),
}


@pytest.mark.parametrize("name", sorted(_INPLACE))
@pytest.mark.parametrize("how", ["detach hook", "identity hook", "checkpoint"])
def test_inplace_ops_under_pack_hooks(name, how):
    f, ref = _INPLACE[name]
    a = tp.tensor([1.0, 2.0], dtype=tp.float64, requires_grad=True)
    if how == "checkpoint":
        y = tp.utils.checkpoint.checkpoint(f, a, use_reentrant=False)
    else:
        pack = (lambda x: x.detach()) if how == "detach hook" else (lambda x: x)
        with tp.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
            y = f(a)
    (g,) = tp.autograd.grad(y.sum(), a, create_graph=True)
    (h,) = tp.autograd.grad(g.sum(), a)
    (g_ref,) = tp.autograd.grad(ref(a).sum(), a, create_graph=True)
    (h_ref,) = tp.autograd.grad(g_ref.sum(), a)
    np.testing.assert_allclose(g.detach().numpy(), g_ref.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(h.numpy(), h_ref.numpy(), rtol=1e-12)
