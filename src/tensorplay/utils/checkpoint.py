"""Activation checkpointing: trade compute for memory (PyTorch's
``torch.utils.checkpoint``).

``checkpoint(fn, *args, use_reentrant=False)`` runs ``fn`` keeping none of
the tensors its backward needs; the backward runs ``fn`` again on the same
inputs, with the random generator put back where it was, so dropout masks
match, and uses the recomputed tensors.

* ``use_reentrant=False`` records the forward as usual but packs every tensor
  its nodes save into an empty holder (``saved_tensors_hooks``).  The first
  node of the region that needs its saved tensors in a backward pass
  recomputes the region once for that pass (stopping as soon as all are
  back) and each holder takes its tensor.  Gradients flow to everything the
  function used, closed-over parameters included, and ``autograd.grad``,
  ``retain_graph`` and nesting work.
* ``use_reentrant=True`` runs ``fn`` under ``no_grad`` inside one custom
  ``Function`` that keeps only the inputs; its backward recomputes with grad
  on and runs a backward pass of its own, which accumulates the gradients of
  closed-over tensors into their ``.grad``.  As in PyTorch, use it with
  ``.backward()`` only.
"""
import contextlib
import itertools
import warnings
import weakref
from collections import defaultdict as _defaultdict

from .. import _random
from .._autograd import engine as _engine, grad_mode as _grad_mode, saved_hooks as _saved_hooks
from .._tensor import Tensor as _Tensor
from ..autograd import backward as _backward
from ..autograd.function import Function as _Function
from ..amp import autocast_mode as _amp
from ..ops._registry import _tensor_type_name

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "noop_context_fn",
           "set_checkpoint_early_stop"]

_DEFAULT_DETERMINISM_MODE = "default"
_early_stop_override = None


class CheckpointError(RuntimeError):
    """The recomputation did not save what the original forward saved."""


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Whether a recomputation stops once it has every tensor the backward needs
    (default True); inside this context, for every checkpoint."""
    global _early_stop_override
    prev = _early_stop_override
    _early_stop_override = enable
    try:
        yield
    finally:
        _early_stop_override = prev


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check=_DEFAULT_DETERMINISM_MODE, debug=False, early_stop=True,
               **kwargs):
    """Run ``function(*args, **kwargs)`` without keeping its intermediate
    tensors for backward; recompute them in the backward pass.

    ``preserve_rng_state=False`` (a keyword) skips restoring the random
    generator.  ``use_reentrant`` should be given: PyTorch's default, with a
    warning, is the reentrant variant.  ``context_fn`` returns two context
    managers, entered around the forward and around the recomputation.
    ``debug`` is accepted and adds nothing (tensorplay has no operator log).

        >>> import tensorplay as tp
        >>> from tensorplay.utils.checkpoint import checkpoint
        >>> x = tp.tensor([0.5, 1.0], requires_grad=True)
        >>> y = checkpoint(lambda t: (t.sin() * t).exp(), x, use_reentrant=False)
        >>> y.sum().backward()
        >>> x.grad
        tensor([1.1669, 3.2054])
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return _ReentrantCheckpoint.apply(function, preserve, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    if not _grad_mode.is_grad_enabled():
        return function(*args, **kwargs)
    forward_ctx, recompute_ctx = context_fn()
    fwd_state = _random.get_rng_state() if preserve else None
    fwd_autocast = _autocast_state()

    def recompute(*inputs):
        with _random.fork_rng(enabled=preserve):
            if preserve:
                _random.set_rng_state(fwd_state)
            with recompute_ctx, _amp.autocast(**fwd_autocast):
                function(*inputs, **kwargs)

    stop = early_stop if _early_stop_override is None else _early_stop_override
    frame = _Frame(recompute, args, stop, determinism_check == "default")
    with _forward_hooks(frame), forward_ctx:
        out = function(*args, **kwargs)
    frame.forward_completed = True
    return out


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a list, or a module's children) in order, in
    ``segments`` chunks each checkpointed except the last."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
            "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is not "
            "passed. use_reentrant=False is recommended, but if you need to preserve the current "
            "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
            "the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if hasattr(functions, "children") and callable(functions.children):
        functions = list(functions.children())
    functions = list(functions)

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)


# ---------------------------------------------------------------- non-reentrant
class _Handle:
    """Names one recomputed tensor of one backward pass (weakly keyed, so the
    tensor goes once its holder has given it out)."""
    __slots__ = ("__weakref__",)


class _Holder:
    """What a node of the checkpointed region keeps in place of a saved tensor."""
    __slots__ = ("handles", "__weakref__")

    def __init__(self):
        self.handles = {}               # backward pass -> _Handle (None once unpacked)


class _StopRecomputation(Exception):
    pass


class _Frame:
    """One checkpointed call: its inputs, the holders its forward handed out
    (weakly: a freed graph frees them), and per backward pass the recomputed
    tensors."""

    def __init__(self, recompute, inputs, early_stop, check_meta):
        self.recompute = recompute
        self.inputs = inputs
        self.versions = [(a, a._shared_version(), a._version) for a in inputs
                         if isinstance(a, _Tensor)]
        self.early_stop = early_stop
        self.check_meta = check_meta
        self.holders = []
        self.metas = []
        self.recomputed = _defaultdict(weakref.WeakKeyDictionary)
        self.counts = _defaultdict(int)
        self.done = set()
        self.forward_completed = False
        self.ignore_mismatch = False

    def run_recomputation(self, gid):
        for t, vc, expected in self.versions:
            if vc[0] != expected:
                raise _saved_hooks.version_error(_tensor_type_name(t), None, vc[0], expected)
        try:
            with _recompute_hooks(self, gid), _grad_mode.enable_grad():
                self.recompute(*self.inputs)
        except _StopRecomputation:
            pass
        self.done.add(gid)
        self.check(gid)

    def check(self, gid):
        if self.ignore_mismatch:
            return
        if len(self.holders) != self.counts[gid]:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\nNumber of tensors saved during forward: "
                f"{len(self.holders)}\nNumber of tensors saved during recomputation: "
                f"{self.counts[gid]}.")
        if not self.check_meta:
            return
        bad = []
        for i, ref in enumerate(self.holders):
            holder = ref()
            if holder is None:
                continue
            x = self.recomputed[gid][holder.handles[gid]]
            now = _meta(x)
            if now != self.metas[i]:
                bad.append(f"tensor at position {i}:\nsaved metadata: {self.metas[i]}\n"
                           f"recomputed metadata: {now}\n")
        if bad:
            raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following "
                                  "tensors have different metadata than during the forward pass.\n"
                                  + "".join(bad))


def _meta(x):
    return {"shape": tuple(x.shape), "dtype": x.dtype, "device": x.device}


_unique_ids = itertools.count(-1, -1)    # for unpacking outside a backward pass


def _forward_hooks(frame):
    def pack(x):
        holder = _Holder()
        frame.holders.append(weakref.ref(holder))
        if frame.check_meta:
            frame.metas.append(_meta(x))
        return holder

    def unpack(holder):
        gid = _engine.current_pass()
        if gid is None:
            gid = next(_unique_ids)
        if gid not in frame.done:
            frame.run_recomputation(gid)
        handle = holder.handles.get(gid)
        if handle is None:
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already "
                "unpacked once. If you are calling ctx.saved_tensors in backward, make sure to do "
                "so only once. Otherwise please open an issue with details on your use case.")
        holder.handles[gid] = None
        return frame.recomputed[gid].pop(handle)

    return _saved_hooks.saved_tensors_hooks(pack, unpack)


def _recompute_hooks(frame, gid):
    def pack(x):
        if x.requires_grad:
            x = x.detach()
        i = frame.counts[gid]
        frame.counts[gid] += 1
        if i >= len(frame.holders):
            if not frame.forward_completed:       # the forward raised midway: cannot compare
                frame.ignore_mismatch = True
                return x
            raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during "
                                  "recomputation than during the original forward pass.")
        holder = frame.holders[i]()
        if holder is not None:
            handle = holder.handles[gid] = _Handle()
            frame.recomputed[gid][handle] = x
        if frame.early_stop and frame.counts[gid] == len(frame.holders):
            raise _StopRecomputation
        return x

    return _saved_hooks.saved_tensors_hooks(pack, lambda x: x)


# ---------------------------------------------------------------- reentrant
def _autocast_state():
    """The forward's autocast state, which the recomputation runs under again (a
    backward outside the autocast region would otherwise recompute in float32)."""
    return dict(device_type="cpu", enabled=_amp.is_autocast_enabled("cpu"),
                dtype=_amp.get_autocast_dtype("cpu"), cache_enabled=_amp.is_autocast_cache_enabled())


class _ReentrantCheckpoint(_Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        if not any(isinstance(a, _Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                          stacklevel=5)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        ctx.autocast = _autocast_state()
        if preserve_rng_state:
            ctx.fwd_state = _random.get_rng_state()
        ctx.inputs = [None if isinstance(a, _Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, _Tensor)]
        ctx.save_for_backward(*(a for a in args if isinstance(a, _Tensor)))
        with _grad_mode.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _engine.runs_everything():     # (its inner backward would fill every .grad)
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                "passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the `inputs` "
                "argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with _random.fork_rng(enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                _random.set_rng_state(ctx.fwd_state)
            detached = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, _Tensor) else a
                        for a in inputs]
            with _grad_mode.enable_grad(), _amp.autocast(**ctx.autocast):
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, _Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, _Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        _backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(a.grad if isinstance(a, _Tensor) else None for a in detached)
