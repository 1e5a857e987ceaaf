"""Connectionist temporal classification: ``nn.functional.ctc_loss``.

One registry op, ``ctc_loss`` (PyTorch's ``_ctc_loss``, node
``CtcLossBackward0``): the negative log likelihood of each sample's target
under the alignments of its input, by the forward (alpha) recursion of Graves
et al. (2006) in log space.  The kernel is vectorized over the batch and the
``2 * S + 1`` positions of the extended label sequence (the targets with a
blank before, between and after them); only time is a Python loop.

Its derivative is a second op, ``ctc_loss_backward`` (PyTorch's
``_ctc_loss_backward``), which runs the backward (beta) recursion and collects
``alpha * beta`` per class.  The gradient is the derivative of the loss with
respect to ``log_probs``:

    grad[t, n, c] = -occupancy[t, n, c] * g[n]   for t < input_lengths[n]

where ``occupancy[t, n, c] = sum_{s: l'(s) = c} alpha_t(s) beta_t(s) / (P y_t(c))``
is the posterior probability that frame ``t`` emits ``c``.  (PyTorch's
``_ctc_loss_backward`` adds ``exp(lp)``: that is the gradient of the logits
``x`` of ``lp = log_softmax(x)``, not of ``lp``, so PyTorch's ``log_probs.grad``
is not the loss's derivative and fails gradcheck.  Through ``log_softmax``,
the usual way in, the two agree: for normalized ``log_probs`` log_softmax's
backward maps ``-occupancy`` to ``exp(lp) - occupancy``, so the logits get
PyTorch's gradient exactly.)  Frames at or past a sample's input length get
zero; with ``zero_infinity`` a sample whose loss is infinite gets zero
everywhere, as in PyTorch.  The backward has no derivative of its own
(PyTorch's "derivative for aten::_ctc_loss_backward is not implemented"); the
forward-mode rule of ``ctc_loss`` is that derivative applied to the tangent
(PyTorch has none).

``nn.functional.ctc_loss`` (``functional_ctc_loss`` here) checks the
arguments as PyTorch does, in its order, and composes the reductions above
the op: ``zero_infinity`` is a ``where`` over the per-sample losses, ``mean``
divides each loss by its target length (clamped to at least 1) before the
batch mean, and an unbatched input (``(T, C)``) is the batch of one, squeezed
back for ``reduction='none'``.  ``toplevel_ctc_loss`` is ``torch.ctc_loss``, the
same call with PyTorch's integer reduction (its default there: the losses).
"""
import numpy as np

from .._tensor import Tensor, _wrap
from ._families import OTHER
from ._registry import defop, dispatch, not_implemented
from ._util import dtype_error
from .pointwise import where as _where
from .shape import stack as _stack

__all__ = []

_WHERE = "(while checking arguments for ctc_loss_allocate_outputs)"
_NEG = -np.inf


# ------------------------------------------------------------------ argument checks
def _check_shapes(lp_shape, lp_dtype, tg_ndim, il_size, tl_size, blank):
    """PyTorch's checks of the (batched) call that do not read values, in its
    order: the dtype, an empty input, the ranks, the blank, the lengths' sizes."""
    if lp_dtype not in (np.float32, np.float64):
        raise dtype_error("ctc_loss_cpu", lp_dtype)
    if 0 in lp_shape:
        raise RuntimeError("log_probs tensor must not be empty")
    if len(lp_shape) != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {len(lp_shape)}-dimensional tensor "
                           f"for argument #1 'log_probs' {_WHERE}")
    if not 1 <= tg_ndim < 3:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {tg_ndim}-dimensional tensor for "
                           f"argument #2 'targets' {_WHERE}")
    n, c = lp_shape[1], lp_shape[2]
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    if il_size != n:
        raise RuntimeError("input_lengths must be of size batch_size")
    if tl_size != n:
        raise RuntimeError("target_lengths must be of size batch_size")


def _check_values(lp_shape, targets, il, tl):
    """The checks that read the lengths (after ``_check_shapes``), in PyTorch's
    order; the offset of each sample's targets (concatenated targets) or None."""
    t_max, n = lp_shape[0], lp_shape[1]
    for v in tl:
        if v < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {v} {_WHERE}")
    if targets.ndim == 1:
        total = int(np.add.reduce(tl)) if tl.size else 0
        if targets.shape[0] != total:
            raise RuntimeError(f"Expected tensor to have size {total} at dimension 0, but got size "
                               f"{targets.shape[0]} for argument #2 'targets' {_WHERE}")
    else:
        if targets.shape[0] != n:
            raise RuntimeError(f"Expected tensor to have size {n} at dimension 0, but got size "
                               f"{targets.shape[0]} for argument #2 'targets' {_WHERE}")
        s_max = int(tl.max()) if tl.size else 0
        if targets.shape[1] < s_max:
            raise RuntimeError(f"Expected tensor to have size at least {s_max} at dimension 1, but got "
                               f"size {targets.shape[1]} for argument #2 'targets' {_WHERE}")
    for v in il:
        if v < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {v} {_WHERE}")
        if v > t_max:
            raise RuntimeError(f"Expected input_lengths to have value at most {t_max}, but got value {v} "
                               f"{_WHERE}")


def _as_long(a):
    """``targets.to(torch.long)``: floats truncate, bools are 0/1."""
    a = np.asarray(a)
    if a.dtype.kind == "c":
        a = a.real
    return a.astype(np.int64, copy=False)


# ------------------------------------------------------------------ the recursions
class _Lattice:
    """The extended label sequences of a batch: for each sample ``n`` and
    position ``s < L = 2 * max(target_lengths) + 1``, the label ``ext[n, s]``
    (the blank at even ``s``, target ``s // 2`` at odd ``s``), whether the
    position exists for the sample (``s <= 2 * target_lengths[n]``), whether
    the path may skip from ``s - 2`` to ``s`` (a label differing from the
    label before the blank in between), and the log probabilities of the
    positions' labels at every time, ``lpe[t, n, s]`` (-inf at positions that
    do not exist)."""

    def __init__(self, log_probs, targets, input_lengths, target_lengths, blank):
        tg = _as_long(targets)
        il = _as_long(input_lengths).reshape(-1)
        tl = _as_long(target_lengths).reshape(-1)
        _check_shapes(log_probs.shape, log_probs.dtype, tg.ndim, il.size, tl.size, blank)
        _check_values(log_probs.shape, tg, il, tl)
        lp = log_probs.astype(np.float64, copy=False)
        t_max, n, c = lp.shape
        s_max = int(tl.max()) if n else 0
        big_l = 2 * s_max + 1
        # each sample's targets, padded to s_max
        if tg.ndim == 1:
            offsets = np.concatenate(([0], np.cumsum(tl)[:-1])).astype(np.int64)
            k = np.arange(s_max)
            pos = np.minimum(offsets[:, None] + k, max(tg.shape[0] - 1, 0))
            lab = tg[pos] if tg.size else np.zeros((n, s_max), np.int64)
        else:
            lab = tg[:, :s_max]
        used = np.arange(s_max) < tl[:, None]
        lab = np.where(used, lab, blank)
        bad = used & ((lab < 0) | (lab >= c))
        if bad.any():
            # (PyTorch reads out of bounds there: no value to agree with)
            raise IndexError(f"Target {int(lab[bad][0])} is out of bounds.")
        ext = np.full((n, big_l), blank, np.int64)
        ext[:, 1::2] = lab
        s = np.arange(big_l)
        self.valid = s <= 2 * tl[:, None]
        skip = np.zeros((n, big_l), bool)
        skip[:, 2:] = ext[:, 2:] != ext[:, :-2]
        self.skip = skip & self.valid
        self.lpe = lp[:, np.arange(n)[:, None], ext]           # (T, N, L)
        self.lpe[:, ~self.valid] = _NEG
        self.lp, self.ext, self.il, self.tl = lp, ext, il, tl
        self.shape = (t_max, n, c, big_l)


def _lse3(a, b, c):
    """log(exp(a) + exp(b) + exp(c)), elementwise, with PyTorch's guard: the
    maximum is taken out unless it is -inf."""
    m = np.maximum(np.maximum(a, b), c)
    m = np.where(m == _NEG, 0.0, m)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(np.exp(a - m) + np.exp(b - m) + np.exp(c - m)) + m


def _alphas(lat, keep_all):
    """The forward recursion: ``log alpha`` at every time (``keep_all``) or only
    each sample's last one (at ``t = input_lengths - 1``), and the negative
    log likelihoods."""
    t_max, n, c, big_l = lat.shape
    lpe, skip, il, tl = lat.lpe, lat.skip, lat.il, lat.tl
    alpha = np.full((n, big_l), _NEG)
    alpha[:, 0] = lpe[0, :, 0]
    if big_l > 1:
        alpha[:, 1] = lpe[0, :, 1]
    every = np.empty((t_max, n, big_l)) if keep_all else None
    last = np.full((n, big_l), _NEG)
    a2 = np.full((n, big_l), _NEG)
    a3 = np.full((n, big_l), _NEG)
    for t in range(t_max):
        if t:
            a2[:, 1:] = alpha[:, :-1]
            a3[:, 2:] = alpha[:, :-2]
            alpha = _lse3(alpha, a2, np.where(skip, a3, _NEG)) + lpe[t]
        if keep_all:
            every[t] = alpha
        ends = il == t + 1
        if ends.any():
            last[ends] = alpha[ends]
    rows = np.arange(n)
    l1 = last[rows, 2 * tl]
    l2 = np.where(tl > 0, last[rows, np.maximum(2 * tl - 1, 0)], _NEG)
    m = np.maximum(l1, l2)
    m = np.where(m == _NEG, 0.0, m)
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = np.where(tl > 0, np.log(np.exp(l1 - m) + np.exp(l2 - m)) + m, l1)
    ll = np.where(il == 0, np.where(tl == 0, 0.0, _NEG), ll)
    return every, -ll


def _ctc_k(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    # (zero_infinity is for the backward, as in PyTorch's _ctc_loss: the loss itself
    # is zeroed by a where above the op)
    lat = _Lattice(log_probs, targets, input_lengths, target_lengths, blank)
    _, nll = _alphas(lat, False)
    return nll.astype(log_probs.dtype)


def _ctc_backward_k(grad, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    lat = _Lattice(log_probs, targets, input_lengths, target_lengths, blank)
    t_max, n, c, big_l = lat.shape
    alpha, nll = _alphas(lat, True)
    lpe, skip, il, tl = lat.lpe, lat.skip, lat.il, lat.tl
    rows = np.arange(n)
    # the backward recursion; beta at a sample's last frame: its last two positions
    start = np.full((n, big_l), False)
    start[rows, 2 * tl] = True
    start[rows[tl > 0], 2 * tl[tl > 0] - 1] = True
    skip_next = np.zeros((n, big_l), bool)          # s may skip to s + 2
    skip_next[:, :-2] = skip[:, 2:]
    beta = np.full((n, big_l), _NEG)
    b2 = np.full((n, big_l), _NEG)
    b3 = np.full((n, big_l), _NEG)
    d = np.empty((t_max, n, big_l))                 # log(alpha beta / y), per position
    for t in range(t_max - 1, -1, -1):
        b2[:, :-1] = beta[:, 1:]
        b3[:, :-2] = beta[:, 2:]
        rec = _lse3(beta, b2, np.where(skip_next, b3, _NEG)) + lpe[t]
        first = (il - 1 == t)[:, None]
        inside = (t < il - 1)[:, None]
        beta = np.where(inside, rec, np.where(first & start, lpe[t], _NEG))
        with np.errstate(invalid="ignore"):
            d[t] = np.where(lpe[t] == _NEG, _NEG, alpha[t] + beta - lpe[t])
    # collect per class: log sum_{s: ext(s) = c} alpha beta / y, stabilized per (t, n)
    m = np.max(d, axis=2, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(d - m)
    keys = (np.arange(t_max)[:, None, None] * n + rows[None, :, None]) * c + lat.ext[None]
    total = np.bincount(keys.reshape(-1), weights=e.reshape(-1), minlength=t_max * n * c)
    lp = lat.lp
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # PyTorch's expression: lcab holds log(alpha beta) (y counted twice), then
        # exp(lcab + nll - lp) is the occupancy
        lcab = np.log(total.reshape(t_max, n, c)) + m + lp
        gr = np.asarray(grad, np.float64).reshape(-1)
        out = -np.exp(lcab + nll[:, None] - lp) * gr[:, None]
    live = np.arange(t_max)[:, None] < il[None, :]
    if zero_infinity:
        live = live & ~(nll == np.inf)[None, :]
    out = np.where(live[:, :, None], out, 0.0)
    return out.astype(log_probs.dtype)


# ------------------------------------------------------------------ vmap
def _size(args, bdims):
    return next(a.shape[b] for a, b in zip(args, bdims) if b is not None)


def _front(t, b, size):
    """``t`` with its batch dimension first (expanded to ``size`` if it has none)."""
    if b is None:
        return t.expand((size,) + tuple(t.shape))
    return t.movedim(b, 0) if b != 0 else t


def _fold(args, bdims, size, lp_at):
    """The arguments with the vmap batch folded into the samples: ``log_probs``
    (at ``lp_at``) ``(T, B * N, C)``, padded targets ``(B * N, S)``, concatenated
    ones one after the other, lengths ``(B * N,)``."""
    out = list(args)
    lp = _front(args[lp_at], bdims[lp_at], size)
    t_max, n, c = lp.shape[1:]
    out[lp_at] = lp.movedim(0, 1).reshape(t_max, size * n, c)
    tg = _front(args[lp_at + 1], bdims[lp_at + 1], size)
    out[lp_at + 1] = tg.reshape((size * tg.shape[1], tg.shape[2])) if tg.ndim == 3 else tg.reshape(-1)
    for i in (lp_at + 2, lp_at + 3):
        out[i] = _front(args[i], bdims[i], size).reshape(-1)
    return out, (t_max, n, c)


def _per_sample(op, args, bdims, size):
    outs = [dispatch(op, [a if b is None else a.select(b, i) for a, b in zip(args, bdims)])
            for i in range(size)]
    return _stack(outs, 0), 0


def _ctc_batch(op, args, bdims):
    size = _size(args[:4], bdims[:4])
    if args[1].ndim - (bdims[1] is not None) == 1 and (bdims[1] is not None or bdims[3] is not None):
        # concatenated targets whose split differs per sample: each sample's sizes
        # are checked against its own lengths
        return _per_sample(op, args, bdims, size)
    folded, (t_max, n, c) = _fold(args, bdims, size, 0)
    return dispatch(op, folded).reshape(size, n), 0


def _ctc_backward_batch(op, args, bdims):
    size = _size(args[:5], bdims[:5])
    folded, (t_max, n, c) = _fold(args, bdims, size, 1)
    folded[0] = _front(args[0], bdims[0], size).reshape(-1)
    return dispatch(op, folded).reshape(t_max, size, n, c), 1


# ------------------------------------------------------------------ the ops
def _no_forward(name):
    def jvp(op, args, tangents, result):
        raise NotImplementedError(f"Trying to use forward AD with {name} that does not support it "
                                  f"because it has not been implemented yet.")
    return jvp


_no_double_backward = not_implemented(RuntimeError, "derivative for aten::_ctc_loss_backward is not implemented")


ctc_loss_backward = defop(
    "ctc_loss_backward", _ctc_backward_k, {"grad": _no_double_backward, "log_probs": _no_double_backward},
    n_in=5, family=OTHER, jvp=_no_forward("_ctc_loss_backward"), batch=_ctc_backward_batch,
    node_name="NotImplemented", method=False, upcast=False)


def _ctc_vjp(g, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    return dispatch(ctc_loss_backward.op, [g, log_probs, targets, input_lengths, target_lengths, blank,
                                           zero_infinity])


def _ctc_jvp(op, args, tangents, result):
    """Each sample's loss is a function of its ``log_probs`` alone: the tangent is
    the derivative (the backward of a unit gradient) dotted with theirs."""
    t = tangents[0]
    if t is None:
        return None
    d = dispatch(ctc_loss_backward.op, [result.new_ones(result.shape)] + list(args))
    return (d * t).sum((0, 2))


ctc_loss = defop("ctc_loss", _ctc_k, {"log_probs": _ctc_vjp}, n_in=4, family=OTHER,
                 jvp=_ctc_jvp, batch=_ctc_batch, node_name="CtcLossBackward0",
                 method=False, upcast=False)


# ------------------------------------------------------------------ nn.functional.ctc_loss
_SIGNATURES = (
    ("(Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, "
     "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)", "TTLLiib"),
    ("(Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, "
     "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)", "TTTTiib"),
)


def _type_name(v):
    if isinstance(v, Tensor):
        return "Tensor"
    t = type(v)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _describe(v):
    if isinstance(v, list):
        return "list of [" + ", ".join(_type_name(e) for e in v) + "]"
    if isinstance(v, tuple):
        return "tuple of (" + ", ".join(_type_name(e) for e in v) + ")"
    return _type_name(v)


def _is_int(v):
    return (type(v) is int) or isinstance(v, np.integer)


def _int_item(v):
    """An element of an int list: an int, or a one-element integer tensor."""
    if _is_int(v):
        return int(v)
    if isinstance(v, Tensor) and v._data.dtype.kind in "iu" and v._data.size == 1:
        return int(v._data.reshape(-1)[0])
    return None


def _int_list(v):
    if not isinstance(v, (list, tuple)):
        return None
    out = [_int_item(e) for e in v]
    return None if any(e is None for e in out) else out


def _signature_error(args, kwargs=None):
    """PyTorch's TypeError for arguments that fit neither ``ctc_loss`` signature
    (with its per-signature detail when all seven are given positionally)."""
    kwargs = kwargs or {}
    got = [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    lines = [f"ctc_loss() received an invalid combination of arguments - got ({', '.join(got)}), "
             f"but expected one of:"]
    for sig, kinds in _SIGNATURES:
        lines.append(f" * {sig}")
        if len(args) == len(kinds) and not kwargs:
            marks = [_describe(a) if k == "T" and isinstance(a, Tensor) else f"!{_describe(a)}!"
                     for a, k in zip(args, kinds)]
            lines.append(f"      didn't match because some of the arguments have invalid types: "
                         f"({', '.join(marks)})")
    return TypeError("\n".join(lines) + "\n")


def _ctc(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity, sig):
    """The call both spellings make (``reduction`` a word; ``sig``: the arguments
    as given, for the TypeError)."""
    if not (isinstance(log_probs, Tensor) and isinstance(targets, Tensor) and _is_int(blank)
            and type(blank) is not bool and isinstance(zero_infinity, (bool, np.bool_))):
        raise _signature_error(*sig)
    if isinstance(input_lengths, Tensor) and isinstance(target_lengths, Tensor):
        for name, t in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
            if t._data.dtype.kind not in "iu":
                raise RuntimeError(f"{name} must be integral")
        # (read at the call, as PyTorch reads them into int lists: a later in-place change
        # of the tensors must not reach what the backward saved)
        il, tl = input_lengths.detach().reshape(-1).clone(), target_lengths.detach().reshape(-1).clone()
    else:
        il_list, tl_list = _int_list(input_lengths), _int_list(target_lengths)
        if il_list is None or tl_list is None:
            raise _signature_error(*sig)
        il = _wrap(np.asarray(il_list, np.int64).reshape(-1))
        tl = _wrap(np.asarray(tl_list, np.int64).reshape(-1))
    blank, zero_infinity = int(blank), bool(zero_infinity)
    batched = log_probs.ndim == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    _check_shapes(tuple(lp.shape), lp._data.dtype, targets.ndim, il.numel(), tl.numel(), blank)
    res = ctc_loss(lp, targets, il, tl, blank, zero_infinity)
    if zero_infinity:
        res = _where(res == float("inf"), res.new_zeros(()), res)
    if reduction == "mean":
        return (res / tl.to(res.dtype).clamp_min(1)).mean()
    if reduction == "sum":
        return res.sum()
    return res if batched else res.squeeze(0)


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def functional_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
                        zero_infinity=False):
    """``nn.functional.ctc_loss``: the CTC loss of ``log_probs`` (``(T, N, C)``, or
    ``(T, C)`` unbatched) against ``targets`` (padded ``(N, S)`` or concatenated
    ``(sum(target_lengths),)``), lengths as tensors or int lists."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    args = (log_probs, targets, input_lengths, target_lengths, blank, _REDUCTIONS[reduction],
            zero_infinity)
    return _ctc(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity, (args,))


_PARAMS = ("log_probs", "targets", "input_lengths", "target_lengths", "blank", "reduction", "zero_infinity")


def toplevel_ctc_loss(*args, **kwargs):
    """``torch.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0,
    reduction=0, zero_infinity=False)``: the reduction an int, 1 the mean, 2 the
    sum and any other the losses themselves (left out, too: PyTorch's binding
    takes 0 there)."""
    vals = dict(zip(_PARAMS, args))
    if len(args) > len(_PARAMS) or any(k not in _PARAMS or k in vals for k in kwargs):
        raise _signature_error(args, kwargs)
    vals.update(kwargs)
    if any(p not in vals for p in _PARAMS[:4]):
        raise _signature_error(args, kwargs)
    r = vals.get("reduction", 0)
    if not _is_int(r) or type(r) is bool:
        raise _signature_error(args, kwargs)
    return _ctc(vals["log_probs"], vals["targets"], vals["input_lengths"], vals["target_lengths"],
                vals.get("blank", 0), {1: "mean", 2: "sum"}.get(int(r), "none"),
                vals.get("zero_infinity", False), (args, kwargs))
