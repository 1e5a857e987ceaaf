"""``vmap``: a level that carries a batch dimension through every op.

A ``BatchedTensor`` is what ``func`` sees inside ``vmap``: a tensor of the
*logical* shape (one sample's) whose value, ``_value``, is the *physical*
tensor holding the whole batch, with the batch dimension first.  While the
level is open it sits on the registry's interception point
(``ops._registry.TRANSFORMS``); every op call with a batched argument
reaches ``VmapLevel.process``, which hands the physical tensors to the op's
batching rule (``Op.batch``: the entry's own or its family's).  The rule
calls the op once on the whole batch, below the level, and says where the
result's batch dimension is; the level moves it first and wraps the result.
An op without a rule runs once per sample and stacks the results (a warning
says so, once per op).

Autograd records on the physical tensors: the batch elements are
independent, so the gradient of the batch's outputs with respect to a
batched input is, row by row, the gradient of each sample.  That is how
``grad`` inside ``vmap`` works: it differentiates the physical tensors, and
an input that is not batched (the weights in per-sample gradients) is
expanded to one copy per sample when ``grad`` lifts it, so that each sample
has its own (``lift_batched``).  Levels nest: the value of a batched tensor
of an inner level is a batched tensor of the outer one.
"""
import functools
import warnings

import numpy as np

from .. import _dtype
from .._autograd.grad_mode import state
from .._random import draw_guards, get_rng_state, set_rng_state
from .._tensor import Tensor, _new, contiguous_format
from ..ops._registry import REGISTRY, TRANSFORMS, dispatch
from ..ops.inplace import _self_overlapping
from ._pytree import tree_flatten, tree_unflatten
from ..autograd.forward_ad import _Below
from ..ops._batch_rules import batch_dynamic, batch_masked_select
from ..ops._families import NoBatchRule, _batch_first, batch_elementwise, materialize, pad_rank

__all__ = ["vmap", "BatchedTensor"]

_bool, _uint8 = _dtype.bool_, _dtype.uint8
_LEVELS = []            # the open vmap levels, outermost first
_WARNED = set()         # ops whose fallback warning was given
FELL_BACK = []          # every op that ran once per sample (the op table's tests read it)


class _Logical:
    """Stands in for a batched tensor's ``_data``: the logical shape and the
    dtype, which is all that code outside the batching rules may read."""
    __slots__ = ("shape", "dtype", "ndim")

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.ndim = shape, dtype, len(shape)

    @property
    def size(self):
        n = 1
        for k in self.shape:
            n *= k
        return n

    @property
    def itemsize(self):
        return self.dtype.itemsize

    def __getattr__(self, name):
        raise RuntimeError(f"vmap: this operation reads the values of a batched tensor ({name}), "
                           f"which is not supported inside vmap; rewrite it with tensor operations")

    def __array__(self, *a, **k):
        raise RuntimeError("vmap: a batched tensor cannot be converted to a NumPy array inside vmap")


_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either use "
                 "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                 "operation out of vmap")
_CONTROL_FLOW = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent "
                 "control flow. We don't support that yet, please file an issue at "
                 "https://github.com/pytorch/pytorch/issues .")


class BatchedTensor(Tensor):
    """A tensor inside ``vmap``: logical shape outside, the batch inside.

    ``_same`` is None, or the version of the physical tensor at which every
    sample is known to hold the same value (see ``same``)."""
    __slots__ = ("_value", "_level", "_same")
    # (bdim, value) where the batch of ``value`` (our ``_value``) sat at dimension
    # bdim before it was moved first: a Function's vmap rule sees that layout
    _phys_dim = None

    @property
    def requires_grad(self):
        return self._value.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self._value.requires_grad = flag

    def requires_grad_(self, requires_grad=True):
        self._value.requires_grad_(requires_grad)
        return self

    @property
    def grad_fn(self):
        return self._value.grad_fn

    @property
    def is_leaf(self):
        return self._value.is_leaf

    def detach(self):
        return self._like(self._value.detach())

    @property
    def data(self):
        return self._like(self._value.data)

    def _like(self, value):
        """``value`` (physical, the same values as ours) batched as we are."""
        t = _wrap_batched(self._level, value)
        if same(self):
            t._same = _version(value)
        return t

    @property
    def _version(self):
        return self._value._version

    def stride(self, dim=None):
        st = self._value.stride()[1:]
        return st if dim is None else st[dim]

    def storage_offset(self):
        """The first sample's (as PyTorch's vmap: ``as_strided`` offsets the
        others by the batch stride)."""
        return self._value.storage_offset()

    def is_contiguous(self, *a, **k):
        return self._value.stride()[1:] == _contiguous_strides(self.shape)

    def contiguous(self, *a, **k):
        # (a batch-first row-major copy is row-major per sample too; a plain clone
        # keeps a dense transposed layout)
        return self if self.is_contiguous() else self.clone(memory_format=contiguous_format)

    def _make_like(self, make):
        """``zeros_like(self)``, ``self.new_zeros(size)`` and their kin: a batched
        tensor, as in PyTorch's vmap (an in-place op may then write a sample into
        it).  ``make(value)`` makes the physical tensor from the physical value."""
        return _wrap_batched(self._level, make(self._value))

    def _sample0(self):
        """The value every sample holds, when they hold the same (``same``)."""
        if not same(self):
            return None
        with self._level.below():
            return self._value.select(0, 0)

    def item(self):
        v = self._sample0()
        if v is not None:
            return v.item()
        raise RuntimeError("vmap: It looks like you're calling .item() on a Tensor. We don't "
                           "support vmap over calling .item() on a Tensor, please try to rewrite "
                           "what you're doing with other operations. If error is occurring "
                           "somewhere inside PyTorch internals, please file a bug report.")

    def tolist(self):
        v = self._sample0()
        if v is not None:
            return v.tolist()
        raise RuntimeError("vmap: It looks like you're calling .tolist() on a Tensor inside vmap, "
                           "which is not supported; rewrite it with tensor operations.")

    def numpy(self, *, force=False):
        raise RuntimeError("vmap: .numpy() of a batched tensor is not supported inside vmap.")

    def __bool__(self):
        v = self._sample0()
        if v is not None:
            return bool(v)
        raise RuntimeError(_CONTROL_FLOW)

    def _scalar(self, kind):
        v = self._sample0()
        if v is not None:
            return v._scalar(kind)
        raise RuntimeError(_CONTROL_FLOW)

    def __index__(self):
        v = self._sample0()
        if v is not None:
            return v.__index__()
        raise RuntimeError(_CONTROL_FLOW)

    def backward(self, *a, **k):
        raise RuntimeError("backward() called inside a functorch transform. This is not supported, "
                           "please use functorch.grad or functorch.vjp instead or call backward() "
                           "outside of functorch transforms.")

    def __repr__(self):
        v = repr(self._value).replace("\n", "\n    ")
        return f"BatchedTensor(lvl={self._level.index}, bdim=0, value=\n    {v}\n)"

    __str__ = __repr__


def _contiguous_strides(shape):
    st, acc = [], 1
    for s in reversed(tuple(shape)):
        st.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(st))


_FAST = {}


def _fast_paths():
    """(op, number of arguments) -> the pointwise op's public fast path (its
    one-tensor function, or a binary op's two-argument ``fast``)."""
    from ..ops import pointwise, pointwise_more
    for mod in (pointwise, pointwise_more):
        for fn in vars(mod).values():
            op = getattr(fn, "op", None)
            if op is None or not hasattr(fn, "ufunc"):
                continue
            fast = getattr(fn, "fast", None)
            if fast is not None:
                _FAST[(op, 2)] = fast
            elif op.n_in == 1:
                _FAST[(op, 1)] = fn
    return _FAST


def _aligned(args, bdims):
    """Whether broadcasting already lines up the samples of an elementwise op's
    arguments: the batched ones of one rank, the others (numbers, shared
    tensors) of no more dimensions than a sample has."""
    nd, most = None, 0
    for a, b in zip(args, bdims):
        if b is None:
            if isinstance(a, Tensor) and a._data.ndim > most:
                most = a._data.ndim
        elif nd is None:
            nd = a._data.ndim
        elif a._data.ndim != nd:
            return False
    return most < nd


_LOGICAL = {}           # (shape, dtype) -> its _Logical (immutable: shared)


def _wrap_batched(level, value):
    """``value`` (batch dimension first) as a batched tensor of ``level``."""
    t = _new(BatchedTensor)
    d = value._data
    key = (d.shape[1:], d.dtype)
    lg = _LOGICAL.get(key)
    if lg is None:
        if len(_LOGICAL) > 4096:
            _LOGICAL.clear()
        lg = _LOGICAL[key] = _Logical(*key)
    t._data = lg
    t._value, t._level, t._same = value, level, None
    t._rg = False
    t._gfn = None
    t._vc = t._base = None
    return t


def _is_batched(x, level):
    return type(x) is BatchedTensor and x._level is level


# ------------------------------------------------------------------ values the same in every sample
# ``jacfwd`` (and ``hessian``) map a forward-mode pass over the basis of
# tangents; the primal is one value, which the level's dual tensors carry
# expanded over the batch (the forward level sits below the vmap level, see
# ``sink_below_vmap``).  PyTorch keeps that primal unbatched, so code that
# branches on it (``if x.sum() > 0``), reads it (``.item()``) or takes its
# data-dependent shapes (``x[x > 0]``, ``nonzero``) works under ``jacfwd``.
# Here a batched tensor remembers that its samples hold the same value
# (``_same``, stamped with the physical tensor's version, so that a write into
# it or into a view of it since then forgets it); ops whose batched arguments
# all hold one value make outputs that do too; and where a batched tensor
# cannot be used (a Python scalar, a mask, a dynamic shape) such a tensor is
# used as its first sample.
def _version(p):
    while type(p) is BatchedTensor:
        p = p._value
    v = p._vc
    return 0 if v is None else v[0]


def same(t):
    """Whether every sample of batched tensor ``t`` holds the same value."""
    s = t._same
    return s is not None and s == _version(t._value)


def _mark_same(r, level):
    """Stamp the outputs of ``level`` in ``r`` (a tensor or a tuple) as holding
    one value in every sample."""
    for o in (r if type(r) is tuple else (r,)):
        if _is_batched(o, level):
            o._same = _version(o._value)
    return r


def _constant(p):
    """Whether physical tensor ``p`` carries no tangent and no history (the
    same value in every sample can then stand for all of them)."""
    while type(p) is BatchedTensor:
        p = p._value
    return not p._rg and not p.__dict__.get("_fw_grads")


def _all_same(args, level):
    """Whether every argument batched at ``level`` (lists included) holds one value."""
    for a in args:
        if type(a) is BatchedTensor:
            if a._level is level and not same(a):
                return False
        elif type(a) in (list, tuple):
            if not _all_same(a, level):
                return False
    return True


# ------------------------------------------------------------------ the level
class VmapLevel:
    """One ``vmap`` call: the transform on ``TRANSFORMS`` while ``func`` runs."""
    forward_level = False

    def __init__(self, size, randomness):
        self.size, self.randomness = size, randomness
        self.index = len(_LEVELS) + 1

    def __repr__(self):
        return f"<vmap level {self.index}, batch size {self.size}>"

    def below(self):
        return _Below(self)

    def check_draw(self):
        """Before a random draw inside this level (``randomness``).  Draws of
        the sampling functions (``_random.sampling``) reach ``sample`` first,
        which makes ``'different'`` draw per sample; a draw that did not (a
        generator read directly) can only be shared."""
        if self.randomness == "error":
            raise RuntimeError(_RANDOM_ERROR)
        if self.randomness == "same":           # shared here; the enclosing levels decide too
            i = draw_guards.index(self)
            if i:
                draw_guards[i - 1].check_draw()
            return
        if self.randomness == "different":
            raise NotImplementedError("vmap: randomness='different' is not supported for this "
                                      "random draw (not a tensorplay sampling function); draw the "
                                      "random numbers outside vmap and pass them in, or use "
                                      "randomness='same'")

    def sample(self, fn, how, args, kwargs):
        """A call of a sampling function (``_random.sampling``) inside this
        level, as PyTorch's vmap does it: ``'error'`` refuses a draw (the
        function may not draw: dropout in eval mode), ``'same'`` draws once
        for every sample, ``'different'`` gives each sample its own draws, of
        the sample's shape, advancing the generator once for the batch."""
        if self.randomness == "error":
            return fn(*args, **kwargs)          # check_draw raises if it draws
        if kwargs.get("out") is not None:
            raise RuntimeError("vmap: We do not support calling out variants of random operations "
                               "inside of vmap. Please use non-out variants as a workaround")
        inplace = how.is_inplace(args, kwargs)
        params = list(args[1:] if inplace else args) + list(kwargs.values())
        if self.randomness == "same":
            if not how.same_batched and any(_is_batched(a, self) for a in params):
                raise RuntimeError("Vmap does not currently support same randomness with a batched "
                                   "tensor input. Please file an issue with functorch")
            if any(_is_batched(a, self) for a in list(args) + list(kwargs.values())):
                return fn(*args, **kwargs)      # one draw; batched inputs meet it through ops
            # the call does not depend on this level: the enclosing one decides
            i = draw_guards.index(self)
            if not i:
                return fn(*args, **kwargs)
            del draw_guards[i]
            try:
                return draw_guards[i - 1].sample(fn, how, args, kwargs)
            finally:
                draw_guards.insert(i, self)
        if inplace:
            if not _is_batched(args[0], self):
                raise RuntimeError("vmap: Cannot ask for different inplace randomness on an "
                                   "unbatched tensor. This will appear like same randomness. If "
                                   "this is necessary for your usage, please file an issue with "
                                   "functorch.")
        batch = how.batch
        with self._below_draws():
            if callable(batch):
                return _wrap_batched(self, batch(self.size, args, kwargs))
            if batch != "loop" and (inplace or any(isinstance(a, Tensor) for a in params)):
                phys_args, phys_kwargs = self._physical_args(args, kwargs)
                out = fn(*phys_args, **phys_kwargs)
                return args[0] if inplace else _wrap_batched(self, out)
            per = [fn(*[a._value.select(0, b) if _is_batched(a, self) else a for a in args],
                      **{k: v._value.select(0, b) if _is_batched(v, self) else v
                         for k, v in kwargs.items()}) for b in range(self.size)]
            return args[0] if inplace else _wrap_batched(self, _stack(per))

    def _physical_args(self, args, kwargs):
        """The tensor arguments holding the whole batch: batched ones as they
        are, the others expanded, all padded to one logical rank so that they
        broadcast as one sample's would."""
        tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor)]
        rank = max((len(a.shape) for a in tensors), default=0)

        def phys(a):
            if not isinstance(a, Tensor):
                return a
            p = materialize(a._value if _is_batched(a, self) else a,
                            0 if _is_batched(a, self) else None, self.size)
            return pad_rank(p, rank)
        return [phys(a) for a in args], {k: phys(v) for k, v in kwargs.items()}

    def _below_draws(self):
        return _BelowDraws(self)

    # -- the transform
    def process(self, op, args):
        bdims = None
        one = True                  # every batched argument holds one value (``same``)
        given = args
        for i, a in enumerate(given):
            if type(a) is BatchedTensor and a._level is self:
                if bdims is None:
                    bdims, args = [None] * len(args), list(args)
                bdims[i] = 0
                args[i] = a._value
                if one and (a._same is None or not same(a)):
                    one = False
            elif type(a) in (list, tuple) and any(_is_batched(b, self) for b in a):
                if _all_same(given, self):
                    return _mark_same(self._fallback(op, given), self)
                return self._fallback(op, given)
        if bdims is None:
            return dispatch(op, args)
        if one:
            return self._process_same(op, args, bdims)
        return self._process(op, args, bdims)

    def _process_same(self, op, args, bdims):
        """``process`` for batched arguments that each hold one value: an op
        of data-dependent shape runs on their first sample when they carry
        no tangent or history (its result is every sample's); any other op's
        outputs hold one value too."""
        if op.batch is batch_dynamic or op.batch is batch_masked_select:
            # an argument whose tangent and history do not matter here: its first sample
            args, bdims = list(args), list(bdims)
            for i, b in enumerate(bdims):
                if b is not None and (not op.differentiable or _constant(args[i])):
                    args[i], bdims[i] = args[i].select(0, 0), None
            if all(b is None for b in bdims):
                return dispatch(op, args)
        return _mark_same(self._process(op, args, bdims), self)

    def _process(self, op, args, bdims):
        rule = op.batch
        if rule is batch_elementwise and _aligned(args, bdims):
            # nothing to move or pad: the op on the physical tensors, by the fast
            # path hand-written code takes
            fast = (_FAST or _fast_paths()).get((op, len(args)))
            result = fast(*args) if fast else dispatch(op, args)
            if type(result) is Tensor:
                return _wrap_batched(self, result)
            return self._wrap_result(result, 0)
        if rule is None:
            return self._fallback(op, args, bdims)
        try:
            result, out_bdim = rule(op, args, bdims)
        except NoBatchRule:
            return self._fallback(op, args, bdims)
        if out_bdim == 0 and type(result) is Tensor:
            return _wrap_batched(self, result)
        return self._wrap_result(result, out_bdim)

    def _wrap_result(self, result, out_bdim):
        if type(result) is tuple:
            if not isinstance(out_bdim, (tuple, list)):
                out_bdim = (out_bdim,) * len(result)
            return tuple(self._wrap_one(r, b) for r, b in zip(result, out_bdim))
        return self._wrap_one(result, out_bdim)

    def _wrap_one(self, r, bdim):
        if bdim is None or not isinstance(r, Tensor):
            return r
        if bdim != 0:
            moved = bdim % r.dim()
            r = _wrap_batched(self, r.movedim(bdim, 0))
            if moved:
                r._phys_dim = (moved, r._value)
            return r
        return _wrap_batched(self, r)

    def _fallback(self, op, args, bdims=None):
        """No batching rule: the op once per sample, the results stacked."""
        FELL_BACK.append(op.name)
        if op.name not in _WARNED:
            _WARNED.add(op.name)
            warnings.warn(f"There is a performance drop because we have not yet implemented the "
                          f"batching rule for {op.name}. Please file us an issue on GitHub so that "
                          f"we can prioritize its implementation.", UserWarning, stacklevel=4)
        if bdims is None:           # batched tensors inside list arguments
            args = [self._unwrap_nested(a) for a in args]
        else:
            args = [a if b is None else _Phys(_batch_first(a, b)) for a, b in zip(args, bdims)]
        per = []
        for b in range(self.size):
            per.append(dispatch(op, [_pick(a, b, self) for a in args]))
        if type(per[0]) is tuple:
            return tuple(_wrap_batched(self, _stack([p[k] for p in per]))
                         for k in range(len(per[0])))
        return _wrap_batched(self, _stack(per))

    def _unwrap_nested(self, a):
        if type(a) in (list, tuple):
            return type(a)(_Phys(x._value) if _is_batched(x, self) else x for x in a)
        if _is_batched(a, self):
            return _Phys(a._value)
        return a

    def process_function(self, cls, args, kwargs):
        """A custom ``Function`` under vmap: its ``vmap`` staticmethod, or with
        ``generate_vmap_rule=True`` its forward run on the batch; with neither,
        PyTorch's refusal."""
        if not any(_is_batched(a, self) for a in list(args) + list(kwargs.values())):
            return cls.apply(*args, **kwargs)
        from ..autograd.function import Function
        if getattr(cls, "generate_vmap_rule", False):
            return _generated_vmap(self, cls, args, kwargs)
        rule = getattr(cls, "vmap", None)
        if rule is not None and rule is not getattr(Function, "vmap", None):
            # as in PyTorch, the rule sees each tensor as the user laid it out (its
            # batch where in_dims put it), and those in_dims
            in_dims, phys = [], []
            for a in args:
                if not _is_batched(a, self):
                    in_dims.append(None)
                    phys.append(a)
                    continue
                pd = a._phys_dim
                if pd is not None and pd[1] is a._value:
                    in_dims.append(pd[0])
                    phys.append(a._value.movedim(0, pd[0]))
                else:
                    in_dims.append(0)
                    phys.append(a._value)

            class _Info:
                batch_size = self.size
                randomness = self.randomness
            res = rule(_Info, tuple(in_dims), *phys, **kwargs)
            if type(res) is not tuple:
                raise RuntimeError(_TWO_RETURNS + f"Got a {type(res)} instead")
            if len(res) != 2:
                raise RuntimeError(_TWO_RETURNS + f"Got {len(res)} returns instead")
            out, out_dims = res
            if isinstance(out, tuple):
                dims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(out)
                if len(dims) != len(out):
                    raise RuntimeError(_incompatible_out_dims(out, out_dims))
                return tuple(self._wrap_one(o, d) for o, d in zip(out, dims))
            if isinstance(out_dims, (tuple, list)):
                raise RuntimeError(_incompatible_out_dims(out, out_dims))
            return self._wrap_one(out, out_dims)
        raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it does not have vmap "
                           f"support. Please override and implement the vmap staticmethod or set "
                           f"generate_vmap_rule=True.")

    def process_inplace(self, target, f, args, kwargs, name):
        """``target.<name>_(*args)`` with a batched tensor among them."""
        batched_arg = any(_is_batched(a, self) or type(a) is tuple and
                          any(_is_batched(b, self) for b in a)      # index_put_'s indices
                          for a in list(args) + list(kwargs.values()))
        if not _is_batched(target, self):
            if batched_arg:
                if name == "copy" or name == "index_put" and _basic_setitem(args):
                    raise RuntimeError(_inplace_error("inplace arithmetic"))
                if name == "index_put":
                    raise RuntimeError(_inplace_error("index_put_"))
                bshape = [self.size] + list(target.shape)
                raise RuntimeError(f"output with shape {list(target.shape)} doesn't match the "
                                   f"broadcast shape {bshape}")
            return NotImplemented
        phys = target._value
        if phys.__dict__.get("_expanded_primal"):
            # jacfwd's primal, one value expanded over the batch of tangents: the
            # samples are about to differ, so the batched tensor gets memory of its
            # own (any other expanded tensor is refused, as PyTorch refuses it)
            with self.below():
                phys = target._value = phys.clone()
        src = target
        if state.enabled and (phys._rg or any(isinstance(a, Tensor) and a.requires_grad
                                              for a in list(args) + list(kwargs.values()))):
            # the op may save the pre-op value, which the copy below overwrites: it
            # computes from a private copy, a clone (apply_inplace's _own_saved_copy
            # cannot see through the batching rule's views; a clone also works when
            # the value is itself batched, in a nested vmap)
            with self.below():
                src = _wrap_batched(self, phys.clone())
        out = f(src, *args, **kwargs)
        with self.below():
            if _is_batched(out, self):
                src = out._value
            else:
                src = out.unsqueeze(0) if isinstance(out, Tensor) else out
            from ..ops.inplace import copy_
            copy_(phys, src)
        return target

    def process_reshape_inplace(self, target, f, args, kwargs):
        """``target.t_()``, ``target.unsqueeze_(0)``...: the batched tensor holds
        the view ``f(target)`` from now on (its samples' memory, a new shape)."""
        if not _is_batched(target, self):
            return NotImplemented
        out = f(target, *args, **kwargs)
        target._value, target._data = out._value, out._data
        return target

    def shared_key(self, key):
        """``key`` with each index tensor batched here whose samples hold one
        value (and that needs no gradient) replaced by that value: a shared mask
        or index, as ``x[x > 0]`` and ``x[x.argmax()]`` make under jacfwd."""
        items = key if type(key) is tuple else (key,)
        if not any(_is_batched(k, self) and same(k) for k in items):
            return key
        items = tuple(k._sample0() if _is_batched(k, self) and same(k) and _constant(k._value) else k
                      for k in items)
        return items if type(key) is tuple else items[0]

    def takes_key(self, x, key, value=None):
        """Whether this level handles ``x[key]`` (``= value``): the key holds a
        batched tensor (of any level) and this is the innermost level at which
        ``x``, a key tensor or ``value`` is batched (the levels are asked
        innermost first; the levels inside it are met by the ops it calls)."""
        items = key if type(key) is tuple else (key,)
        if not any(type(k) is BatchedTensor for k in items):
            return False
        return _is_batched(x, self) or _is_batched(value, self) or \
            any(_is_batched(k, self) for k in items)

    def _plan(self, x, items, ints=True):
        """``x[items]`` split as PyTorch's indexing does it: the basic items
        (ints, slices, None, Ellipsis; with ``ints``, a 0-d integer tensor the
        same for every sample is an int) applied to ``x`` first, as the view
        ops they are (ints take no part in placing the advanced dimensions),
        then the index tensors (a shared mask as its positions).  Returns
        ``x`` after the basic items, ``[(position, tensor)]`` and whether the
        tensors' positions are adjacent."""
        if any(isinstance(k, (list, tuple, range, np.ndarray)) for k in items):
            from .._creation import tensor          # a sequence of indices: an index tensor
            items = [tensor(np.asarray(list(k) if isinstance(k, range) else k))
                     if isinstance(k, (list, tuple, range, np.ndarray)) else k for k in items]
        if any(_is_batched(k, self) and k.dtype in (_bool, _uint8) for k in items):
            raise RuntimeError("vmap: We do not support batching operators that can support "
                               "dynamic shape. Attempting to batch over indexing with a boolean "
                               "mask.")
        if any(type(k) is bool for k in items):
            raise NotImplementedError("vmap: indexing with True/False together with a batched "
                                      "index tensor is not supported")
        consumed = sum(k.dim() if isinstance(k, Tensor) and k.dtype in (_bool, _uint8) else
                       1 for k in items if k is not None and k is not Ellipsis)
        basic, tensors, pos = [], [], 0
        for k in items:
            if ints and type(k) is Tensor and k._data.ndim == 0 and k._data.dtype.kind in "iu" \
                    and k.dtype is not _uint8:
                basic.append(k)                           # an int
            elif isinstance(k, Tensor):
                if k.dtype in (_bool, _uint8):            # a shared mask: its positions
                    for j in k.nonzero().unbind(1):
                        tensors.append((pos, j))
                        basic.append(slice(None))
                        pos += 1
                    continue
                tensors.append((pos, k))
                basic.append(slice(None))
                pos += 1
            elif k is None:
                basic.append(None)
                pos += 1
            elif k is Ellipsis:
                basic.append(Ellipsis)
                pos += x.dim() - consumed
            elif isinstance(k, slice):
                basic.append(k)
                pos += 1
            else:
                basic.append(k)                           # an int: a select, no result dimension
        if any(not (isinstance(k, slice) and k == slice(None)) for k in basic):
            x = x[tuple(basic)]
        positions = [p for p, _ in tensors]
        adjacent = not positions or positions == list(range(positions[0], positions[-1] + 1))
        return x, tensors, adjacent

    def _physical_key(self, tensors):
        """The index of the physical tensor (below this level): a batch index in
        front, the tensors batched here with their batch dimension lined up
        with it, full slices between; and the index tensors' rank."""
        from .._creation import arange
        b = self.size
        rank = max(t.dim() for _, t in tensors)
        pkey = [arange(b).reshape((b,) + (1,) * rank)]
        it = iter(tensors)
        positions = [p for p, _ in tensors]
        for d in range(positions[-1] + 1):
            if d in positions:
                t = next(it)[1]
                if _is_batched(t, self):
                    v = t._value
                    t = v.reshape((b,) + (1,) * (rank - v.dim() + 1) + tuple(v.shape[1:]))
                pkey.append(t)
            else:
                pkey.append(slice(None))
        return tuple(pkey), rank

    def getitem(self, x, key):
        """``x[key]`` where ``key`` holds batched index tensors: the basic items
        first (``_plan``), then the tensors, with a batch index in front, as
        one advanced index on the physical tensor, whose result dimensions
        are put where the sample's own indexing puts them."""
        x, tensors, adjacent = self._plan(x, key if isinstance(key, tuple) else (key,))
        if not tensors:                     # (the key's tensors stood for ints)
            return x
        p0 = tensors[0][0]
        with self.below():
            xv = x._value if _is_batched(x, self) else materialize(x, None, self.size)
            pkey, rank = self._physical_key(tensors)
            r = xv[pkey]
            if adjacent and p0 > 0:         # the sample's result has them in place
                r = r.movedim(list(range(1, 1 + rank)), list(range(1 + p0, 1 + p0 + rank)))
        return _wrap_batched(self, r)

    def _physical_value(self, v, result_rank, rank, move_from, strip=True):
        """A value written into ``x[key]`` of each sample as the physical write
        takes it: batch first (size one when shared), with ``strip`` the
        sample's leading size-1 dimensions beyond the indexed result dropped
        (as ``x[key] = v`` does), padded to the result's rank, and the index
        dimensions moved from ``move_from`` to just after the batch (the
        physical layout)."""
        batched = _is_batched(v, self)
        p = v._value if batched else v
        if not batched and not move_from:
            return p                        # broadcasting lines it up already
        if not batched:
            p = p.unsqueeze(0)
        while strip and p.dim() - 1 > result_rank and p.shape[1] == 1:
            p = p.squeeze(1)
        p = pad_rank(p, result_rank)
        if move_from and p.dim() - 1 == result_rank:
            p = p.movedim(list(range(1 + move_from, 1 + move_from + rank)), list(range(1, 1 + rank)))
        return p

    def setitem(self, x, key, value):
        """``x[key] = value`` where ``key`` holds batched index tensors: the
        basic items as views of ``x``, then one write of the physical tensor
        (``_physical_key``), recorded by autograd as any in-place write."""
        if not _is_batched(x, self):
            raise RuntimeError(_inplace_error("index_put_"))
        xs, tensors, adjacent = self._plan(x, key if isinstance(key, tuple) else (key,))
        if not tensors:                     # (the key's tensors stood for ints)
            xs[...] = value
            return
        p0 = tensors[0][0]
        with self.below():
            pkey, rank = self._physical_key(tensors)
            if isinstance(value, Tensor):
                value = self._physical_value(value, xs.dim() - len(tensors) + rank, rank,
                                             p0 if adjacent else 0)
            xs._value[pkey] = value

    def index_put(self, x, indices, values, accumulate):
        """``index_put(x, indices, values, accumulate)`` where ``indices`` holds
        batched tensors: one ``index_put`` of the physical tensor (``x``
        expanded when it is the same for every sample: the op copies it),
        the batch index in front, so that accumulated duplicates stay within
        their sample."""
        _, tensors, _ = self._plan(x, tuple(indices), ints=False)
        with self.below():
            xv = x._value if _is_batched(x, self) else materialize(x, None, self.size)
            pkey, rank = self._physical_key(tensors)
            values = self._physical_value(values, x.dim() - len(tensors) + rank, rank, 0, False)
            from ..ops.indexing import index_put
            r = index_put(xv, pkey, values, accumulate)
        return _wrap_batched(self, r)


def _basic_setitem(args):
    """Whether ``index_put``'s in-place arguments are ``x[key] = v``'s with a
    key of ints and slices only (a parsed ``(basic, None)``: PyTorch's copy_
    into a view)."""
    k = args[0] if args else None
    return type(k) is tuple and len(k) == 2 and type(k[0]) is tuple and k[1] is None


def _inplace_error(name):
    return (f"vmap: {name}(self, *extra_args) is not possible because there exists a Tensor "
            f"`other` in extra_args that has more elements than `self`. This happened due to "
            f"`other` being vmapped over but `self` not being vmapped over in a vmap. Please try "
            f"to use out-of-place operators instead of {name}. If said operator is being called "
            f"inside the PyTorch framework, please file a bug report instead.")


class _BelowDraws:
    """Below ``level``: off the transforms stack (its ops reach the levels
    below), and its draws guarded by the enclosing level's randomness."""

    def __init__(self, level):
        self.level, self.below = level, level.below()

    def __enter__(self):
        self.below.__enter__()
        self.i = draw_guards.index(self.level)
        self.saved = draw_guards[self.i:]
        del draw_guards[self.i:]

    def __exit__(self, *exc):
        draw_guards.extend(self.saved)
        self.below.__exit__(*exc)


class _Phys:
    """A physical tensor inside a list argument, for the per-sample fallback."""
    __slots__ = ("t",)

    def __init__(self, t):
        self.t = t


def _pick(a, b, level):
    if type(a) in (list, tuple):
        return type(a)(_pick(x, b, level) for x in a)
    if type(a) is _Phys:
        return a.t.select(0, b)
    return a


def _stack(ts):
    return dispatch(REGISTRY["stack"], list(ts) + [0])


_TWO_RETURNS = ("Expected the vmap staticmethod to have two returns, an output and out_dims with "
                "pytree structure compatible with the output. ")


def _incompatible_out_dims(out, out_dims):
    return (f"The autograd.Function's vmap staticmethod returned an incompatible (output, out_dims) "
            f"tuple. Expected out_dims={out_dims} to be compatible with the structure of `output`. "
            f"out_dims has structure {tree_flatten(out_dims)[1]} but output has structure "
            f"{tree_flatten(out)[1]}. For more details, please see "
            f"https://pytorch.org/docs/main/notes/extending.func.html")


def _generated_vmap(level, cls, args, kwargs):
    """``generate_vmap_rule=True``: the Function applied to the physical
    tensors by a Function whose forward and backward are the original ones
    vmapped (each in a level of its own)."""
    from ..autograd.function import Function, _user_backward
    size = level.size
    dims = tuple(0 if _is_batched(a, level) else None for a in args)

    class Generated(Function):
        generate_vmap_rule = True       # (a vmap level outside this one batches it in turn)

        @staticmethod
        def forward(ctx, *phys):
            inner = VmapLevel(size, level.randomness)
            with _open(inner):
                wrapped = [_wrap_batched(inner, p) if d == 0 else p for p, d in zip(phys, dims)]
                out = cls.forward(_CtxProxy(ctx, inner), *wrapped, **kwargs) \
                    if not _has_setup_context(cls) else cls.forward(*wrapped, **kwargs)
                if _has_setup_context(cls):
                    proxy = _CtxProxy(ctx, inner)
                    cls.setup_context(proxy, tuple(wrapped), out)
                return _unwrap_out(inner, out, size)

        @staticmethod
        def backward(ctx, *grads):
            inner = VmapLevel(size, level.randomness)
            with _open(inner):
                gw = [_wrap_batched(inner, g) if isinstance(g, Tensor) else g for g in grads]
                res = _user_backward(cls)(_CtxProxy(ctx, inner), *gw)
                single = not isinstance(res, tuple)
                res = (res,) if single else res
                out = []
                for r, d in zip(res, dims + (None,) * (len(res) - len(dims))):
                    if r is None:
                        out.append(None)
                    elif d == 0:
                        out.append(_to_physical(inner, r, size))
                    else:           # an unbatched input: the samples' gradients add up
                        out.append(_to_physical(inner, r, size).sum(0))
                return tuple(out)

        @staticmethod
        def jvp(ctx, *tangents):
            inner = VmapLevel(size, level.randomness)
            with _open(inner):
                tw = [_wrap_batched(inner, t) if t is not None and d == 0 else t
                      for t, d in zip(tangents, dims)]
                res = cls.jvp(_CtxProxy(ctx, inner), *tw)
                if not isinstance(res, tuple):
                    return None if res is None else _to_physical(inner, res, size)
                return tuple(None if r is None else _to_physical(inner, r, size) for r in res)
    if cls.jvp is Function.jvp:
        del Generated.jvp           # forward mode then raises its error for a Function without one
    Generated.__name__ = cls.__name__
    with level.below():
        phys = [a._value if _is_batched(a, level) else a for a in args]
        out = Generated.apply(*phys)
    if isinstance(out, tuple):
        return tuple(_wrap_batched(level, o) for o in out)
    return _wrap_batched(level, out)


def _has_setup_context(cls):
    from ..autograd.function import Function
    sc = getattr(cls, "setup_context", None)
    return sc is not None and sc is not getattr(Function, "setup_context", None)


class _CtxProxy:
    """A Function's ctx seen from inside a generated vmap rule: saved tensors
    are stored physical and handed back batched at the current level."""

    def __init__(self, ctx, level):
        object.__setattr__(self, "_ctx", ctx)
        object.__setattr__(self, "_level", level)
        # nested generated rules (vmap of vmap) stack proxies on one ctx: each
        # keeps its flags under a name of its own
        object.__setattr__(self, "_depth", ctx._depth + 1 if type(ctx) is _CtxProxy else 0)

    def save_for_backward(self, *ts):
        lv = self._level
        self._ctx.save_for_backward(*[t._value if _is_batched(t, lv) else t for t in ts])
        setattr(self._ctx, f"_vmap_batched{self._depth}", tuple(_is_batched(t, lv) for t in ts))

    def save_for_forward(self, *ts):
        lv = self._level
        self._ctx.save_for_forward(*[t._value if _is_batched(t, lv) else t for t in ts])
        setattr(self._ctx, f"_vmap_fw_batched{self._depth}", tuple(_is_batched(t, lv) for t in ts))

    @property
    def saved_tensors(self):
        ctx = self._ctx         # (while jvp runs, what forward saved for it)
        flags = getattr(ctx, ("_vmap_fw_batched" if ctx._fw_saved is not None else "_vmap_batched")
                        + str(self._depth), ())
        return tuple(_wrap_batched(self._level, t) if f else t
                     for t, f in zip(ctx.saved_tensors, flags))

    def __getattr__(self, name):
        return getattr(self._ctx, name)

    def __setattr__(self, name, value):
        setattr(self._ctx, name, value)


def _to_physical(level, t, size):
    if _is_batched(t, level):
        return t._value
    with level.below():
        return materialize(t, None, size).contiguous()


def _unwrap_out(level, out, size):
    if isinstance(out, tuple):
        return tuple(_to_physical(level, o, size) for o in out)
    return _to_physical(level, out, size)


class _open:
    """Push ``level`` on the transforms stack and the vmap levels."""

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        _LEVELS.append(self.level)
        TRANSFORMS.append(self.level)
        draw_guards.append(self.level)
        return self.level

    def __exit__(self, *exc):
        for i in range(len(draw_guards) - 1, -1, -1):
            if draw_guards[i] is self.level:
                del draw_guards[i]
                break
        for stack in (TRANSFORMS, _LEVELS):
            for i in range(len(stack) - 1, -1, -1):
                if stack[i] is self.level:
                    del stack[i]
                    break


# ------------------------------------------------------------------ grad inside vmap
def active_levels():
    """The vmap levels open now, outermost first (on the transforms stack)."""
    return [t for t in TRANSFORMS if type(t) is VmapLevel]


def lift_batched(t, lift_plain):
    """``grad``'s copy of ``t`` inside open vmap levels: batched at every one
    of them (an input not batched at a level is expanded, one copy per sample,
    so each sample differentiates its own), with ``lift_plain`` applied to the
    physical tensor underneath."""
    levels = active_levels()
    if not levels:
        return lift_plain(t)
    return _lift(t, levels, lift_plain)


def _lift(t, levels, lift_plain):
    if not levels:
        return lift_plain(t)
    lv = levels[-1]
    with lv.below():
        if _is_batched(t, lv):
            inner = t._value
            one = same(t)
        else:
            inner = materialize(t, None, lv.size)
            one = True
        inner = _lift(inner, levels[:-1], lift_plain)
    out = _wrap_batched(lv, inner)
    return _mark_same(out, lv) if one else out


def physical(t):
    """The tensor underneath every vmap level of ``t``, and how to put a
    tensor of that shape back under the same levels."""
    levels = []
    while type(t) is BatchedTensor:
        levels.append(t._level)
        t = t._value

    def rewrap(p):
        for lv in reversed(levels):
            p = _wrap_batched(lv, p)
        return p
    return t, rewrap


def _peel(t):
    """``(p, levels)``: the plain tensor underneath every vmap level of ``t``
    and those levels, oldest first; ``p``'s leading dimensions are their
    batch dimensions, in that order (the newest level wraps outermost)."""
    levels = []
    while type(t) is BatchedTensor:
        levels.append(t._level)
        t = t._value
    levels.reverse()
    return t, levels


def _relayout(p, have, want):
    """``p``, whose leading dimensions are the batch dimensions of the levels
    ``have``, with leading dimensions for the levels ``want`` instead (a level
    of ``want`` that ``p`` is not batched at expanded: a view); the logical
    dimensions after them stay as they are."""
    n = len(have)
    order = [have.index(lv) for lv in want if lv in have]
    if order != list(range(n)):
        p = p.permute(order + list(range(n, p.dim())))
    for i, lv in enumerate(want):
        if lv not in have:
            p = p.unsqueeze(i)
            p = p.expand(tuple(p.shape[:i]) + (lv.size,) + tuple(p.shape[i + 1:]))
    return p


def _wrap_levels(p, levels):
    """``p`` batched at ``levels`` (oldest first: its leading dimensions)."""
    for lv in levels:
        p = _wrap_batched(lv, p)
    return p


def _by_age(levels):
    return sorted(levels, key=lambda lv: _LEVELS.index(lv))


def autograd_pairs(outs, cts, inputs):
    """What ``autograd.grad`` needs when ``outs``, their cotangents ``cts`` or
    ``inputs`` are batched: ``(outs, cts, inputs, back, levels)``, where the outputs
    and inputs are their physical tensors (the graph was recorded on those;
    each sample's rows are independent), each cotangent is batched as its
    output is (expanded where it is not) and stays batched at the levels its
    output is not (``vmap`` of a ``vjp_fn``: the backward's vjps then run
    batched, one pass for the whole batch of cotangents), ``back(i, g)``
    makes the gradient of input ``i`` batched again as the input is (and at
    the levels the cotangents kept), and ``levels`` are the levels the
    physical tensors were taken from (see ``physical_backward``).

    A pair whose cotangent is batched at a level where its output is not, but
    every input is, is left out: the output cannot depend on those inputs
    (an op on a batched tensor gives a batched result)."""
    in_peeled = [_peel(x) for x in inputs]
    in_levels = [lv for _, lvs in in_peeled for lv in lvs]
    levels = list(in_levels)            # every level the physical tensors are below
    po, pc = [], []
    for o, c in zip(outs, cts):
        p, lo = _peel(o)
        levels += [lv for lv in lo if lv not in levels]
        if c is None:
            po.append(p)
            pc.append(p.new_ones(p.shape))
            continue
        if any(lv not in lvs for _, lvs in in_peeled for lv in lo):
            # the physical graph would add up the samples' gradients of an
            # input that is the same for every sample (func's transforms lift
            # their inputs batched at every open level: never the case there)
            raise NotImplementedError("vmap: differentiating an output batched at a vmap level "
                                      "with respect to an input that is not batched there is not "
                                      "supported")
        q, lc = _peel(c)
        stray = [lv for lv in lc if lv not in lo and lv in in_levels]
        if stray:
            if all(lv in lvs for _, lvs in in_peeled for lv in stray):
                continue
            raise NotImplementedError("vmap: differentiating with respect to inputs batched at "
                                      "different vmap levels, with a cotangent batched where its "
                                      "output is not, is not supported")
        keep = [lv for lv in lc if lv not in lo]
        po.append(p)
        pc.append(_wrap_levels(_relayout(q, lc, keep + lo), keep))

    def back(i, g):
        p, lvs = in_peeled[i]
        q, kept = _peel(g)
        if not kept:
            return _wrap_levels(q, lvs)
        every = _by_age(kept + lvs)
        return _wrap_levels(_relayout(q, kept + lvs, every), every)
    return po, pc, [p for p, _ in in_peeled], back, levels


def physical_backward(cts, levels):
    """A context for a backward over physical tensors only (no cotangent
    batched): the vmap ``levels`` off the transforms stack while it runs, so
    that the derivatives' ops do not pass them on their way (nothing there is
    batched at them).  Other transforms (forward levels) stay where they are."""
    if not levels or any(type(c) is BatchedTensor for c in cts):
        return _NULL
    return _Without(levels)


class _Without:
    __slots__ = ("levels", "saved")

    def __init__(self, levels):
        self.levels = levels

    def __enter__(self):
        self.saved = [(i, t) for i, t in enumerate(TRANSFORMS) if t in self.levels]
        for i, _ in reversed(self.saved):
            del TRANSFORMS[i]

    def __exit__(self, *exc):
        for i, t in self.saved:
            TRANSFORMS.insert(i, t)
        return False


class _Null:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


_NULL = _Null()


# ------------------------------------------------------------------ jvp inside vmap
def sink_below_vmap(level):
    """Move the forward level just opened (on top of ``TRANSFORMS``) below the
    vmap levels on top of the stack, and return those levels, oldest first.

    Forward levels keep their tangents on the tensors they see.  Below the
    vmap levels those are the physical tensors, the ones the tape records:
    a ``grad`` inside then differentiates a physical graph whose saved
    tensors carry their tangents, and forward over reverse works through
    ``vmap`` (``vmap(jvp(grad(f)))``, ``jacfwd(jacrev(f))``).  Above them
    the tangents would sit on the batched wrappers, out of the backward's
    sight.  A tangent's samples are independent as the primal's are, so the
    level computes the same tangents either way."""
    i = len(TRANSFORMS) - 1
    j = i
    while j > 0 and type(TRANSFORMS[j - 1]) is VmapLevel:
        j -= 1
    above = TRANSFORMS[j:i]
    if above:
        del TRANSFORMS[i]
        TRANSFORMS.insert(j, level)
    return above


def _peel_levels(t, levels):
    """``_peel`` for the wrappers of ``levels`` only (the newest levels: the
    outermost wrappers)."""
    got = []
    while type(t) is BatchedTensor and t._level in levels:
        got.append(t._level)
        t = t._value
    got.reverse()
    return t, got


def make_dual_below(primal, tangent, level, above):
    """``forward_ad.make_dual`` for a level sunk below the vmap levels
    ``above``: on the physical tensors, each batched at the levels either is
    (a primal that is the same for every sample is expanded, a view)."""
    from ..autograd import forward_ad
    p, lp = _peel_levels(primal, above)
    t, lt = _peel_levels(tangent, above)
    both = [lv for lv in above if lv in lp or lv in lt]
    pp = _relayout(p, lp, both)
    dual = forward_ad.make_dual(pp, _relayout(t, lt, both), level=level)
    if type(pp._data) is np.ndarray and _self_overlapping(pp._data):
        dual.__dict__["_expanded_primal"] = True     # (see VmapLevel.process_inplace)
    out = t = _wrap_levels(dual, both)
    while type(t) is BatchedTensor:
        if t._level not in lp:          # the primal, expanded: one value in every sample
            t._same = _version(t._value)
        t = t._value
    return out


def unpack_dual_below(t, level, above):
    """``forward_ad.unpack_dual`` of ``t`` for a level sunk below ``above``:
    ``(primal, tangent or None)``, batched as ``t`` is."""
    from ..autograd import forward_ad
    p, lvs = _peel_levels(t, above)
    primal, tangent = forward_ad.unpack_dual(p, level=level)
    return _wrap_levels(primal, lvs), None if tangent is None else _wrap_levels(tangent, lvs)


# ------------------------------------------------------------------ vmap itself
_RANDOMNESS = ("error", "different", "same")


def _name(func):
    return getattr(func, "__name__", repr(func))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a dimension of its inputs: ``vmap(f)(x)`` is
    ``stack([f(x[0]), f(x[1]), ...])``, computed by running ``f`` once on the
    whole batch (each op's batching rule).  ``in_dims`` gives, per positional
    argument (a pytree prefix), the dimension mapped over or ``None``;
    ``out_dims`` the same for the outputs.  ``randomness`` is ``'error'``,
    ``'different'`` (each sample draws its own) or ``'same'``.

    >>> import tensorplay as tp
    >>> x = tp.arange(6.).reshape(2, 3)
    >>> vmap(tp.dot)(x, x)
    tensor([ 5., 50.])
    >>> vmap(tp.mv, in_dims=(None, 0))(tp.eye(3), x)
    tensor([[0., 1., 2.],
            [3., 4., 5.]])
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)
    return wrapped


def _flat_in_dims(func, in_dims, args):
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be "
                         f"int or a (potentially nested) tuple matching the structure of inputs, "
                         f"got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, "
                         f"or you are trying to vmap over a function with no inputs. The latter is "
                         f"unsupported.")
    flat_args, spec = tree_flatten(args)
    if isinstance(in_dims, int):
        dims = [in_dims] * len(flat_args)
    elif len(in_dims) == len(args) == len(flat_args) and \
            all(d is None or type(d) is int for d in in_dims):
        dims = list(in_dims)            # one in_dim per (leaf) argument: the common case
    else:
        dims = _broadcast_prefix(in_dims, args)
        if dims is None:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                             f"compatible with the structure of `inputs`. in_dims has structure "
                             f"{tree_flatten(in_dims)[1]} but inputs has structure {spec}.")
    for a, d in zip(flat_args, dims):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims must be int "
                             f"or None, got {type(d)}")
        if not isinstance(a, Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for "
                             f"an input but the input is of type {type(a)}. We cannot vmap over "
                             f"non-Tensor arguments, please use None as the respective in_dim")
        n = a.dim()
        if not -n <= d < n:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for "
                             f"some input, but that input is a Tensor of dimensionality {n} so "
                             f"expected in_dim to satisfy {-n} <= in_dim < {n}.")
    return flat_args, spec, dims


def _broadcast_prefix(prefix, tree):
    """``prefix`` (a tree that is a prefix of ``tree``) broadcast to ``tree``'s
    leaves, or None if it is not a prefix (a list and a tuple differ, as in
    PyTorch's pytrees)."""
    out = []

    def go(p, t):
        if p is None or isinstance(p, int):
            n = len(tree_flatten(t)[0])
            out.extend([p] * n)
            return True
        if isinstance(p, (tuple, list)):
            if not isinstance(t, (tuple, list)) or isinstance(p, list) != isinstance(t, list) \
                    or len(p) != len(t):
                return False
            return all(go(a, b) for a, b in zip(p, t))
        if isinstance(p, dict):
            if not isinstance(t, dict) or set(p) != set(t):
                return False
            return all(go(p[k], t[k]) for k in t)
        return False
    if not go(prefix, tree):
        return None
    return out


def _out_dims_for(out_dims, out):
    """Per output leaf, its ``out_dims`` entry: an int or None for all, else a
    prefix of the output's structure (a 1-tuple also serves a lone tensor
    output); None if they do not fit."""
    if isinstance(out_dims, int) or out_dims is None:
        return [out_dims] * len(tree_flatten(out)[0])
    odims = _broadcast_prefix(out_dims, out)
    if odims is None and type(out_dims) is tuple and len(out_dims) == 1 and isinstance(out, Tensor):
        odims = _broadcast_prefix(out_dims[0], out)
    return odims


def _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    if type(in_dims) is int and in_dims == 0 and chunk_size is None and args:
        # the commonest call, tensors mapped over their first dimension: no pytree
        # (what the general path would refuse goes there for its error)
        size = None
        for a in args:
            if not isinstance(a, Tensor):
                break
            sh = a.shape
            if not sh or (size is not None and sh[0] != size):
                break
            size = sh[0]
        else:
            return _run_simple(func, args, size, out_dims, randomness, kwargs)
    flat_args, spec, dims = _flat_in_dims(func, in_dims, args)
    sizes = [a.shape[d] for a, d in zip(flat_args, dims) if d is not None]
    if not sizes:
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): at least one "
                         f"Tensor must have a mapped dimension (in_dims is None everywhere)")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    size = sizes[0]
    if chunk_size is not None and chunk_size < size:
        # with randomness='same' every chunk draws what one unchunked call draws:
        # PyTorch restores the default generator's state before each chunk
        rng = get_rng_state() if randomness == "same" else None
        chunks = []
        for start in range(0, size, chunk_size):
            part = [a.narrow(d, start, min(chunk_size, size - start)) if d is not None else a
                    for a, d in zip(flat_args, dims)]
            if rng is not None:
                set_rng_state(rng)
            chunks.append(_run(func, part, spec, dims, out_dims, randomness, kwargs))
        return _cat_chunks(chunks, out_dims)
    return _run(func, flat_args, spec, dims, out_dims, randomness, kwargs)


def _run_simple(func, args, size, out_dims, randomness, kwargs):
    """``_run`` for tensor arguments all batched along their first dimension."""
    level = VmapLevel(size, randomness)
    with _open(level):
        return _outputs(func, level, func(*[_wrap_batched(level, a) for a in args], **kwargs),
                        out_dims)


def _run(func, flat_args, spec, dims, out_dims, randomness, kwargs):
    for a, d in zip(flat_args, dims):
        if d is not None:
            size = a.shape[d]
            break
    level = VmapLevel(size, randomness)
    with _open(level):
        batched = []
        for a, d in zip(flat_args, dims):
            if d is not None:
                moved = d % a.dim()
                if moved:
                    with level.below():
                        a = a.movedim(d, 0)
                a = _wrap_batched(level, a)
                if moved:
                    a._phys_dim = (moved, a._value)
            batched.append(a)
        return _outputs(func, level, func(*tree_unflatten(batched, spec), **kwargs), out_dims)


def _outputs(func, level, out, out_dims):
    """What ``func`` returned at ``level``, as plain tensors laid out by ``out_dims``."""
    if type(out) is BatchedTensor and out._level is level and out_dims == 0:
        return out._value                   # the common case: nothing to move
    with level.below():
        return _unwrap_outputs(func, level, out, out_dims)


def _unwrap_outputs(func, level, out, out_dims):
    flat, ospec = tree_flatten(out)
    odims = _out_dims_for(out_dims, out)
    if odims is None:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims "
                         f"is not compatible with the structure of `outputs`. out_dims has "
                         f"structure {tree_flatten(out_dims)[1]} but outputs has structure "
                         f"{ospec}.")
    res = []
    for o, d in zip(flat, odims):
        if not isinstance(o, Tensor):
            if d is None:
                res.append(o)
                continue
            raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, "
                             f"got type {type(o)}. Did you mean to set out_dims= to None for output?")
        if d is None:
            if _is_batched(o, level):
                raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` can not return a "
                                 f"BatchedTensor when out_dim is None")
            res.append(o)
            continue
        p = o._value if _is_batched(o, level) else materialize(o, None, level.size)
        n = p.dim()
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                             f"but got {d})")
        res.append(p.movedim(0, d) if d % n != 0 else p)
    return tree_unflatten(res, ospec)


def _cat_chunks(chunks, out_dims):
    flat0, ospec = tree_flatten(chunks[0])
    flats = [tree_flatten(c)[0] for c in chunks]
    odims = _out_dims_for(out_dims, chunks[0])
    res = []
    for k, d in enumerate(odims):
        parts = [f[k] for f in flats]
        res.append(parts[0] if d is None else dispatch(REGISTRY["cat"], parts + [d]))
    return tree_unflatten(res, ospec)

