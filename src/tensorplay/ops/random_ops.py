"""Sampling ops (``bernoulli``, ``multinomial``, ``normal`` and the in-place
fills ``normal_``, ``uniform_``, ``bernoulli_``, ``random_``, ``exponential_``)
and the legacy ``Tensor.reinforce`` / ``Tensor.volatile``.

Randomness comes from a ``tensorplay.Generator`` (the default one unless
``generator=`` is given), so ``manual_seed`` makes every op reproducible.

Gradients, as in PyTorch 2.x: a sample is not a differentiable function of the
distribution's parameters.  ``bernoulli(p)`` and ``normal(mean, std)`` give an
output with a ``grad_fn`` (``BernoulliBackward0``, ``NormalBackward1/2/3``)
when a parameter requires grad, and an ordinary backward through it gives the
parameters a zero gradient (PyTorch 2.13 does exactly this; in particular
``normal`` is *not* reparameterised).  ``multinomial`` returns int64 indices,
which never require grad and have no ``grad_fn``.

Legacy REINFORCE (``Tensor.reinforce(reward)``, PyTorch <= 0.3).  The outputs of
``bernoulli``, ``bernoulli_(p_tensor)``, ``multinomial`` and ``normal`` whose
parameters require grad remember their sampling node (for ``multinomial`` the
node is kept out of sight: the indices still look like PyTorch 2.x's).  After
``y.reinforce(reward)`` (``reward`` of ``y``'s shape, once per sample), every
backward that reaches the node ignores the gradient arriving there and gives
each parameter ``theta`` the score-function estimate

    - reward * d log P(y; theta) / d theta

summed over the elements of ``y``: the sign of the old ``StochasticFunction``s,
so that *minimising* with gradient descent *maximises* the expected reward
(its expectation is ``-d E[reward] / d theta``).  The legacy spellings
``y.backward()`` and ``autograd.backward([y], [None])`` start such a backward
from the sample itself; without a reward they raise ``RuntimeError:
differentiating stochastic functions requires providing a reward``, as the old
API did.  A backward that arrives from downstream ops without a reward is not
legacy code: it gets PyTorch 2.x's zero gradient.

Per-element credit: ``bernoulli``/``normal`` elements and ``multinomial``
samples drawn with replacement are independent, so reward ``i`` is credited
to sample ``i``'s log-probability only.  Without replacement draw ``i``
depends on the earlier draws of its row, so reward ``i`` is credited to the
log-probability of draws ``0..i`` (each conditional on those before it, with
the remaining probabilities renormalised as the sampling did).  ``multinomial``
differentiates the normalised probabilities ``probs / probs.sum(-1)``, so the
estimate is right for unnormalised weights too.  The estimate is computed in
NumPy: it is not itself differentiable (``create_graph`` records nothing
through it).
"""

import numpy as np

from .. import _dtype as D
from .._random import default_generator, sampling, uniform01
from .._tensor import Tensor, _wrap, check_device, validate_grad, _SCALAR_NAMES
from .._autograd.engine import FREED_MSG
from .._autograd.grad_mode import state
from .._autograd.graph import Node
from .._autograd.anomaly_mode import anomaly, note_creation
from .inplace import apply_inplace as _apply_inplace
from ._registry import public
from .._creation import new_shape
from .._out import write_out
from .._warn import warn as _warn_user

__all__ = ["bernoulli", "multinomial", "normal"]

REWARD_MSG = "differentiating stochastic functions requires providing a reward"


# ------------------------------------------------------------------ helpers
def _rng(generator):
    g = default_generator if generator is None else generator
    try:
        return g._rng
    except AttributeError:
        raise TypeError(f"expected a tensorplay.Generator as generator, but got "
                        f"{type(generator).__name__}") from None


def _fmt(x):
    """A number as C++'s ``<<`` prints a double (PyTorch's messages)."""
    return "%g" % x if isinstance(x, float) else str(x)


def _scalar_name(npdt):
    return _SCALAR_NAMES[D._FROM_NP[np.dtype(npdt)].name]


def _is_float(npdt):
    return npdt.kind in "fc" or npdt in D.LOW_PRECISION


def _number(v, name, fname):
    if isinstance(v, Tensor):
        if v._data.ndim != 0 and v._data.size != 1:
            raise TypeError(f"{fname}(): argument '{name}' must be a number, not Tensor")
        return v.item()
    if isinstance(v, (bool, int, float)):
        return v
    raise TypeError(f"{fname}(): argument '{name}' must be a number, not {type(v).__name__}")


def _broadcast_shape(a, b):
    n = max(len(a), len(b))
    a1 = (1,) * (n - len(a)) + tuple(a)
    b1 = (1,) * (n - len(b)) + tuple(b)
    out = []
    for i, (p, q) in enumerate(zip(a1, b1)):
        if p != q and p != 1 and q != 1:
            raise RuntimeError(f"The size of tensor a ({p}) must match the size of tensor b ({q}) "
                               f"at non-singleton dimension {i}")
        out.append(q if p == 1 else p)
    return tuple(out)


def _new_sample(data, requires_grad=False):
    t = _wrap(data)
    if state.inference:
        t._make_inference()
    if requires_grad:
        t.requires_grad_(True)
    return t


# ------------------------------------------------------------------ the backward node
class _StochasticBackward(Node):
    """Backward node of one sampling call.

    Without a reward each input that needs a gradient gets zeros (PyTorch
    2.x).  With a reward (``Tensor.reinforce``) ``score(reward, *saved arrays)``
    gives the REINFORCE estimate per input (see the module docstring)."""
    validate = validate_grad
    stochastic = False          # True when the node supports reinforce
    reward = None

    def __init__(self, inputs, score=None, saved=()):
        edges, metas = [], []
        for t in inputs:
            if isinstance(t, Tensor) and t._rg:
                edges.append(t._edge())
                metas += [t._data.shape, t._data.dtype]
            else:
                edges.append(None)
                metas += [None, None]
        self.next_edges = tuple(edges)
        self.input_meta = tuple(metas)
        self.score = score
        if score is not None:
            self.stochastic = True
            # arrays the estimate reads, with the version counters they had
            self.saved = tuple(
                (s._data, s._shared_version(), s._shared_version()[0]) if isinstance(s, Tensor)
                else (s, None, None) for s in saved)
        if anomaly.enabled:
            note_creation(self)

    def apply(self, grads):
        edges = self.next_edges
        reward = self.reward
        if reward is None:
            return tuple(None if e is None else
                         _wrap(np.zeros(self.input_meta[2 * i], self.input_meta[2 * i + 1]))
                         for i, e in enumerate(edges))
        if self.saved is None:
            raise RuntimeError(FREED_MSG)
        arrays = []
        for a, vl, v in self.saved:
            if vl is not None and vl[0] != v:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an "
                    f"inplace operation: a tensor saved by {self.name()} is at version {vl[0]}; "
                    f"expected version {v} instead.")
            arrays.append(a)
        gs = self.score(reward._data.astype(np.float64), *arrays)
        return tuple(None if e is None or g is None else _wrap(np.asarray(g))
                     for e, g in zip(edges, gs))

    def release(self):
        if self.score is not None:
            self.saved = None


_NODE_CLASSES = {}


def _node_cls(name):
    cls = _NODE_CLASSES.get(name)
    if cls is None:
        cls = _NODE_CLASSES[name] = type(name, (_StochasticBackward,), {})
    return cls


class _NotImplementedBackward(Node):
    """PyTorch's ``NotImplemented`` node (``bernoulli(x, p_float)`` w.r.t. ``x``)."""
    validate = validate_grad

    def __init__(self, inputs, what):
        self.next_edges = tuple(t._edge() if t._rg else None for t in inputs)
        self.input_meta = tuple(m for t in inputs for m in (t._data.shape, t._data.dtype))
        self.what = what

    def name(self):
        return "NotImplemented"

    def apply(self, grads):
        raise RuntimeError(f"derivative for {self.what} is not implemented")


_NotImplementedBackward.__name__ = _NotImplementedBackward.__qualname__ = "NotImplemented"


def _needs_node(*tensors):
    return state.enabled and any(isinstance(t, Tensor) and t._rg for t in tensors)


def _attach(out, node):
    out._rg = True
    out._gfn = node
    out._out_nr = 0
    return out


# ------------------------------------------------------------------ score functions
def _bernoulli_score(reward, p, y):
    p = p.astype(np.float64)
    y = np.broadcast_to(y, reward.shape)
    den = np.where(y != 0, p, p - 1.0)          # d/dp log P(y) = 1/p (y=1), -1/(1-p) (y=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (-reward / den,)


def _normal_score(with_mean, with_std):
    def score(reward, mean, std, x):
        mean = np.asarray(mean, np.float64)
        std = np.asarray(std, np.float64)
        d = x.astype(np.float64) - mean
        with np.errstate(divide="ignore", invalid="ignore"):
            gm = -reward * d / std ** 2 if with_mean else None
            gs = -reward * (d * d - std * std) / std ** 3 if with_std else None
        return tuple(g for g, keep in ((gm, with_mean), (gs, with_std)) if keep)
    return score


def _multinomial_score(replacement):
    def score(reward, probs, idx):
        p = np.atleast_2d(probs.astype(np.float64))
        idx = np.atleast_2d(idx)
        r = np.atleast_2d(reward)
        total = p.sum(-1, keepdims=True)
        g = np.zeros_like(p)
        rows = np.arange(p.shape[0])[:, None]
        if replacement:
            # log P(k_i) = log p[k_i] - log S
            np.add.at(g, (np.broadcast_to(rows, idx.shape), idx), r / np.take_along_axis(p, idx, -1))
            g -= r.sum(-1, keepdims=True) / total
        else:
            # draw i: log p[k_i] - log(S - sum_{l<i} p[k_l]); credited with rewards i..end
            credit = np.cumsum(r[:, ::-1], -1)[:, ::-1]
            taken = np.zeros_like(p, dtype=bool)
            for i in range(idx.shape[1]):
                k = idx[:, i]
                pk = p[rows[:, 0], k]
                rest = total[:, 0] - (p * taken).sum(-1)
                c = credit[:, i]
                g[rows[:, 0], k] += c / pk
                g -= (c / rest)[:, None] * ~taken
                taken[rows[:, 0], k] = True
        g = -g
        return (g.reshape(probs.shape),)
    return score


# ------------------------------------------------------------------ bernoulli
@public()
@sampling(batch="elementwise", same_batched=False)
def bernoulli(input, p=None, *, generator=None, out=None):
    """Draw 0/1 samples: ``P(1) = input`` elementwise, or ``= p`` for every element
    of a tensor shaped like ``input`` when ``p`` (a float) is given."""
    if not isinstance(input, Tensor):
        raise TypeError(f"bernoulli(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    rng = _rng(generator)
    d = input._data
    if d.dtype.kind == "c":
        raise NotImplementedError(f'"bernoulli_{"scalar" if p is not None else "tensor"}_cpu_'
                                  f'{"" if p is not None else "self_"}" not implemented for '
                                  f"'{_scalar_name(d.dtype)}'")
    if p is not None:
        if isinstance(p, Tensor) or not isinstance(p, (int, float)):
            raise TypeError(f"bernoulli() received an invalid combination of arguments - got "
                            f"(Tensor, {type(p).__name__}), but expected one of:\n"
                            " * (Tensor input, *, torch.Generator generator = None, Tensor out = None)\n"
                            " * (Tensor input, float p, *, torch.Generator generator = None)\n")
        p = float(p)
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")
        res = _new_sample((rng.random(d.shape) < p).astype(d.dtype))
        if _needs_node(input):
            _attach(res, _NotImplementedBackward([input], "aten::bernoulli"))
        return res if out is None else write_out("bernoulli", res, out)
    if not _is_float(d.dtype):
        raise NotImplementedError(f'"bernoulli_tensor_cpu_p_" not implemented for '
                                  f"'{_scalar_name(d.dtype)}'")
    p64 = d.astype(np.float64)
    if not ((p64 >= 0) & (p64 <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this "
                           "error message be improved?  If so, please report an enhancement request "
                           "to PyTorch.)")
    res = _new_sample((rng.random(d.shape) < p64).astype(d.dtype))
    if _needs_node(input):
        _attach(res, _node_cls("BernoulliBackward0")([input], _bernoulli_score, (input, res)))
    return res if out is None else write_out("bernoulli", res, out)


def _bernoulli_fill(src, p, generator):
    d = src._data
    rng = _rng(generator)
    if isinstance(p, Tensor):
        pd = p._data
        if not _is_float(pd.dtype):
            raise NotImplementedError(f'"bernoulli_tensor_cpu_p_" not implemented for '
                                      f"'{_scalar_name(pd.dtype)}'")
        _expand_check(pd.shape, d.shape)
        p64 = pd.astype(np.float64)
        if not ((p64 >= 0) & (p64 <= 1)).all():
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could "
                               "this error message be improved?  If so, please report an "
                               "enhancement request to PyTorch.)")
        res = _wrap((rng.random(d.shape) < p64).astype(d.dtype))
        if _needs_node(src, p):
            _attach(res, _node_cls("BernoulliBackward1")([src, p], _bernoulli_score_inplace,
                                                        (p, res)))
        return res
    p = float(_number(p, "p", "bernoulli_"))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")
    res = _wrap((rng.random(d.shape) < p).astype(d.dtype))
    if _needs_node(src):
        _attach(res, _node_cls("BernoulliBackward2")([src]))
    return res


def _bernoulli_score_inplace(reward, p, y):
    return (None,) + _bernoulli_score(reward, p, y)


def _expand_check(shape, to):
    if len(shape) > len(to):
        raise RuntimeError(f"The expanded size of the tensor ({len(to)}) must be greater or equal "
                           f"to the number of dimensions in the tensor ({len(shape)})")
    for i in range(1, len(shape) + 1):
        if shape[-i] != to[-i] and shape[-i] != 1:
            raise RuntimeError(f"The expanded size of the tensor ({to[-i]}) must match the existing "
                               f"size ({shape[-i]}) at non-singleton dimension {len(to) - i}.  "
                               f"Target sizes: {list(to)}.  Tensor sizes: {list(shape)}")


@public()
@sampling(batch="inplace", same_batched=False)
def bernoulli_(self, p=0.5, *, generator=None):
    if self._data.dtype.kind == "c":
        raise NotImplementedError(f'"bernoulli_scalar_cpu_" not implemented for '
                                  f"'{_scalar_name(self._data.dtype)}'")
    _apply_inplace(self, _bernoulli_fill, (p, generator), {}, "bernoulli")
    return self


# ------------------------------------------------------------------ multinomial
@public()
@sampling(same_batched=False)
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Draw ``num_samples`` category indices from each row of ``input`` (weights,
    not necessarily normalised): int64 of shape ``(..., num_samples)``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    d = input._data
    if not _is_float(d.dtype) or d.dtype.kind == "c":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_scalar_name(d.dtype)}")
    if d.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    n = int(num_samples)
    ncat = d.shape[-1]
    if not replacement and n > ncat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if ncat > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    p = np.atleast_2d(d.astype(np.float64))
    if p.size and not (np.isfinite(p).all() and (p >= 0).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    total = p.sum(-1)
    if p.shape[0] and not (total > 0).all():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _rng(generator)
    rows = p.shape[0]
    if replacement:
        cdf = np.cumsum(p, -1)
        u = rng.random((rows, n)) * total[:, None]
        idx = np.empty((rows, n), np.int64)
        for r in range(rows):
            last = np.flatnonzero(p[r])[-1]
            idx[r] = np.minimum(np.searchsorted(cdf[r], u[r], side="right"), last)
    else:
        # keys p / Exp(1): the top-n keys are a draw without replacement; zero
        # weights come last, in index order (as PyTorch's)
        e = rng.exponential(size=p.shape)
        with np.errstate(divide="ignore"):
            keys = p / e
        idx = np.argsort(-keys, axis=-1, kind="stable")[:, :n].astype(np.int64)
    if d.ndim == 1:
        idx = idx[0]
    res = _new_sample(idx)
    if _needs_node(input):
        node = _node_cls("MultinomialBackward0")([input], _multinomial_score(bool(replacement)),
                                                 (input, res))
        res.__dict__["_stochastic"] = node     # for reinforce only: the indices have no grad_fn
    if out is not None:
        return write_out("multinomial", res, out)
    return res


# ------------------------------------------------------------------ normal
_NORMAL_SIGS = (
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, "
    "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device "
    "= None, bool pin_memory = False, bool requires_grad = False)\n")


def _check_std_number(std):
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(float(std))}")


def _float_or_raise(dt):
    if not _is_float(dt):
        raise NotImplementedError(f'"normal_kernel_cpu" not implemented for \'{_scalar_name(dt)}\'')


@public(method=False)
@sampling(batch="elementwise", same_batched=False)
def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, pin_memory=False, requires_grad=False):
    """Samples of N(mean, std**2); ``mean`` and ``std`` are tensors (broadcast
    together) or numbers (then ``size`` is the shape)."""
    check_device(device)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if mt and mean._data.dtype.kind == "c" and mean.requires_grad and state.enabled:
        raise RuntimeError("normal does not support automatic differentiation for outputs with complex "
                           "dtype.")
    rng = _rng(generator)
    if not mt and not st:
        if size is None or not isinstance(mean, (int, float)) or not isinstance(std, (int, float)):
            got = ", ".join(type(a).__name__ for a in (mean, std) + (() if size is None else (size,)))
            raise TypeError(f"normal() received an invalid combination of arguments - got ({got}), "
                            f"but expected one of:\n{_NORMAL_SIGS}")
        _check_std_number(std)
        shape = new_shape((size,))
        dt = (D.to_dtype(dtype) if dtype is not None else D.get_default_dtype()).np
        if not _is_float(dt):
            raise NotImplementedError(f'"normal_kernel_cpu" not implemented for '
                                      f"'{_scalar_name(dt)}'")
        x = _affine_parts(_standard_normal(rng, shape, dt), mean, std)
        res = _new_sample(x.astype(dt), requires_grad)
        return write_out("normal", res, out) if out is not None else res
    if mt and not st:
        if not isinstance(std, (int, float)):
            raise TypeError(f"normal() received an invalid combination of arguments - got (Tensor, "
                            f"{type(std).__name__}), but expected one of:\n{_NORMAL_SIGS}")
        _float_or_raise(mean._data.dtype)
        _check_std_number(std)
        dt, shape = mean._data.dtype, mean._data.shape
        m, s, name, ins = mean._data, float(std), "NormalBackward1", [mean]
        score = _normal_score(True, False)
    elif st and not mt:
        if not isinstance(mean, (int, float)):
            raise TypeError(f"normal() received an invalid combination of arguments - got ("
                            f"{type(mean).__name__}, Tensor), but expected one of:\n{_NORMAL_SIGS}")
        _float_or_raise(std._data.dtype)
        dt, shape = std._data.dtype, std._data.shape
        m, s, name, ins = float(mean), std._data, "NormalBackward2", [std]
        score = _normal_score(False, True)
    else:
        _float_or_raise(mean._data.dtype)
        _float_or_raise(std._data.dtype)
        dt = mean._data.dtype
        shape = _broadcast_shape(mean._data.shape, std._data.shape)
        m, s, name, ins = mean._data, std._data, "NormalBackward3", [mean, std]
        score = _normal_score(True, True)
    if st and std._data.dtype.kind == "c":
        raise RuntimeError("normal expects standard deviation to be non-complex")
    if st and not (std._data.astype(np.float64) >= 0).all():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    m64 = np.asarray(m, np.complex128 if np.asarray(m).dtype.kind == "c" else np.float64)
    s64 = np.asarray(s, np.float64)
    res = _new_sample((_standard_normal(rng, shape, dt) * s64 + m64).astype(dt))
    if _needs_node(*ins):
        saved = ((mean if mt else m), (std if st else s), res)
        _attach(res, _node_cls(name)(ins, score, saved))
    return write_out("normal", res, out) if out is not None else res


def _standard_normal(rng, shape, dt):
    if np.dtype(dt).kind == "c":      # complex: each part N(0, 1/2), so E|z|^2 = 1
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) / np.sqrt(2)
    return rng.standard_normal(shape)


def _uniform01(rng, shape, dt):
    """[0, 1) in ``dt``'s precision (``_random.uniform01``), as doubles to compute with."""
    return uniform01(rng, shape, dt).astype(np.complex128 if np.dtype(dt).kind == "c" else np.float64)


# ------------------------------------------------------------------ in-place fills
def _fill(name, node_name, make):
    """Out-of-place form of an in-place fill: ``make(data, rng)`` is the new value;
    the node gives the old value a zero gradient."""
    def f(src, generator):
        res = _wrap(make(src._data, _rng(generator)))
        if _needs_node(src):
            _attach(res, _node_cls(node_name)([src]))
        return res
    f.__name__ = name
    return f


@public()
@sampling(batch="inplace")
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    _float_or_raise(self._data.dtype)
    _check_std_number(std)
    f = _fill("normal", "NormalBackward0",
              lambda d, rng: _affine_parts(_standard_normal(rng, d.shape, d.dtype), mean, std)
              .astype(d.dtype))
    return _apply_inplace(self, f, (generator,), {}, "normal")


@public()
@sampling(batch="inplace")
def uniform_(self, *args, generator=None, **kwargs):
    lo, hi = _bind(args, kwargs, ("from", "to"), (0.0, 1.0), "uniform_")
    dt = self._data.dtype
    if not _is_float(dt):
        raise NotImplementedError(f'"check_uniform_bounds" not implemented for '
                                  f"'{_scalar_name(dt)}'")
    if lo > hi:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_fmt(float(lo))} > to={_fmt(float(hi))}")
    info = np.finfo(np.float32 if dt in D.LOW_PRECISION else dt)
    for v, what in ((lo, "from"), (hi, "to")):
        if not -info.max <= v <= info.max:
            raise RuntimeError(f"{what} is out of bounds for {_scalar_name(dt).lower()}")
    f = _fill("uniform", "UniformBackward0", lambda d, rng: _below(
        _affine_parts(_uniform01(rng, d.shape, d.dtype), lo, hi - lo).astype(d.dtype), lo, hi))
    return _apply_inplace(self, f, (generator,), {}, "uniform")


def _affine_parts(u, lo, span):
    """``lo + span * u``, for a complex ``u`` part by part: each part of a complex
    draw is shifted by ``lo`` (uniform_'s from, normal_'s mean), as PyTorch's
    (it draws the complex tensor's real view)."""
    if u.dtype.kind == "c":
        return (lo + span * u.real) + 1j * (lo + span * u.imag)
    return lo + span * u


def _below(r, lo, hi):
    """``r`` with what rounded up to ``hi`` (in ``r``'s dtype) moved to the number
    below it: [lo, hi), as PyTorch's (uniform_(1e6, 1e6 + 1) in float32 gave hi ~3%)."""
    if r.dtype.kind != "f" and r.dtype.name != "bfloat16":
        return r
    top = np.asarray(hi, r.dtype)
    up = r >= top
    if up.any() and float(top) > lo:
        # the float below ``top`` in its own format (bfloat16 included): one step of its bits
        if float(top) == 0:
            top = -top                      # (below 0: the negative number nearest it)
        bits = top.reshape(1).view(np.dtype(f"u{r.dtype.itemsize}"))
        r[up] = (bits - 1 if float(top) > 0 else bits + 1).view(r.dtype)[0]
    return r


@public()
@sampling(batch="inplace")
def exponential_(self, lambd=1.0, *, generator=None):
    dt = self._data.dtype
    if not _is_float(dt) or dt.kind == "c":
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {_scalar_name(dt)}")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(float(lambd))}")
    f = _fill("exponential", "ExponentialBackward0",
              lambda d, rng: (rng.exponential(1.0 / lambd, d.shape)).astype(d.dtype))
    return _apply_inplace(self, f, (generator,), {}, "exponential")


_CAUCHY_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                 "uint8": "unsigned char", "uint16": "unsigned short", "uint32": "unsigned int",
                 "uint64": "unsigned long", "bool": "bool", "complex64": "c10::complex<float>",
                 "complex128": "c10::complex<double>"}


@public()
@sampling(batch="inplace")
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Draws from the Cauchy distribution: ``median + sigma * tan(pi * (u - 1/2))``."""
    dt = self._data.dtype
    if not _is_float(dt) or dt.kind == "c":
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must "
                           f"be a floating point but you specified {_CAUCHY_NAMES[dt.name]}")
    if not sigma > 0 and sigma == sigma:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(float(sigma))}")
    f = _fill("cauchy", "CauchyBackward0",
              lambda d, rng: (median + sigma * np.tan(np.pi * (rng.random(d.shape) - 0.5)))
              .astype(d.dtype))
    return _apply_inplace(self, f, (generator,), {}, "cauchy")


@public()
@sampling(batch="inplace")
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Draws whose logarithm is normal with this mean and standard deviation."""
    dt = self._data.dtype
    if not _is_float(dt) or dt.kind == "c":
        raise NotImplementedError(f'"log_normal_cpu" not implemented for \'{_scalar_name(dt)}\'')
    if not std > 0 and std == std:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(float(std))}")
    f = _fill("log_normal", "LogNormalBackward0",
              lambda d, rng: np.exp(mean + std * rng.standard_normal(d.shape)).astype(d.dtype))
    return _apply_inplace(self, f, (generator,), {}, "log_normal")


@public()
@sampling(batch="inplace")
def geometric_(self, p, *, generator=None):
    """The number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
    dt = self._data.dtype
    if dt.kind in "bc":
        raise NotImplementedError(f'"geometric_cpu" not implemented for \'{_scalar_name(dt)}\'')
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(float(p))}")
    f = _fill("geometric", "GeometricBackward0",
              lambda d, rng: rng.geometric(p, d.shape).astype(d.dtype))
    return _apply_inplace(self, f, (generator,), {}, "geometric")


_C_NAMES = {"uint8": "unsigned char", "int8": "signed char", "int16": "short", "int32": "int",
            "int64": "long", "bool": "bool", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "float32": "float", "float64": "double"}
_MANTISSA = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


@public()
@sampling(batch="inplace")
def random_(self, *args, generator=None, **kwargs):
    if kwargs.keys() - {"from", "to"} or "from" in kwargs and "to" not in kwargs and not args:
        got = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__name__}"
                                                             for k, v in kwargs.items()])
        raise TypeError(f"random_() received an invalid combination of arguments - got ({got}, ), "
                        "but expected one of:\n * (*, torch.Generator generator = None)\n"
                        " * (int from, int to, *, torch.Generator generator = None)\n"
                        " * (int to, *, torch.Generator generator = None)\n")
    if len(args) + len(kwargs) == 1:                 # random_(to)
        lo, hi = 0, (args[0] if args else kwargs["to"])
        node_name = "RandomBackward1"
    elif args or kwargs:
        lo, hi = _bind(args, kwargs, ("from", "to"), (0, None), "random_")
        node_name = "RandomBackward0"
    else:
        lo = hi = None
        node_name = "RandomBackward2"
    dt = self._data.dtype
    dname = D._FROM_NP[dt].name
    cname = _C_NAMES.get(dname, dname)
    if dt.kind == "c":
        raise NotImplementedError(f'"random_from_to_range_cpu" not implemented for '
                                  f"'{_scalar_name(dt)}'")
    if lo is None:                                   # the default range
        lo = 0
        if dname in _MANTISSA:
            hi = (1 << _MANTISSA[dname]) + 1
        elif dt.kind == "b":
            hi = 2
        else:
            hi = int(np.iinfo(dt).max) + 1
    else:
        lo = int(lo)
        if hi is None:                               # random_(from, None): up to the type's max
            hi = (1 << _MANTISSA[dname]) + 1 if dname in _MANTISSA else \
                2 if dt.kind == "b" else int(np.iinfo(dt).max) + 1
        hi = int(hi)
        if lo >= hi:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={lo} >= "
                               f"to={hi}")
        if dt.kind in "biu":
            tmin, tmax = (0, 1) if dt.kind == "b" else (int(np.iinfo(dt).min), int(np.iinfo(dt).max))
            if not tmin <= lo <= tmax:
                raise RuntimeError(f"from is out of bounds for {cname}")
            if not tmin <= hi - 1 <= tmax:
                raise RuntimeError(f"to - 1 is out of bounds for {cname}")
        elif dname in _MANTISSA:
            m = _MANTISSA[dname]
            for v, what in ((lo, "from"), (hi - 1, "to - 1")):
                if not -(1 << m) <= v <= 1 << m:
                    _warn_user(f"{what} is out of bounds [-(2^{m}), 2^{m}]. Due to precision "
                               f"limitations {cname} can support discrete uniform distribution "
                               "only within this range. This warning will become an error in "
                               "version 1.7 release, please fix the code in advance")
    f = _fill("random", node_name,
              lambda d, rng: rng.integers(lo, hi, d.shape, dtype=np.int64).astype(d.dtype)
              if hi <= 1 << 63 else np.asarray([rng.integers(lo, hi) for _ in range(d.size)],
                                               dtype=object).reshape(d.shape).astype(d.dtype))
    return _apply_inplace(self, f, (generator,), {}, "random")


def _bind(args, kwargs, names, defaults, fname):
    if len(args) > len(names):
        raise TypeError(f"{fname}() takes at most {len(names)} arguments ({len(args)} given)")
    vals = list(args) + list(defaults[len(args):])
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"{fname}() got an unexpected keyword argument '{k}'")
        i = names.index(k)
        if i < len(args):
            raise TypeError(f"{fname}() got multiple values for argument '{k}'")
        vals[i] = v
    return vals


# ------------------------------------------------------------------ legacy: reinforce, volatile
def _stochastic_node(t):
    """The sampling node whose output ``t`` is, if it supports ``reinforce``."""
    fn = t._gfn
    if fn is None:
        fn = t.__dict__.get("_stochastic")
    return fn if getattr(fn, "stochastic", False) else None


@public()
def reinforce(self, reward):
    """Legacy (PyTorch <= 0.3): register ``reward`` (a tensor of this sample's shape)
    for the stochastic op that produced this tensor.  A later backward that
    reaches the op gives its parameters ``-reward * d log P(sample) / d param``
    (see ``tensorplay.ops.random_ops``): minimising it maximises the reward.
    Each sample can be reinforced once."""
    node = _stochastic_node(self)
    if node is None:
        raise RuntimeError("reinforce() can only be called on the output of a stochastic op "
                           "(bernoulli, bernoulli_ with a tensor p, multinomial, normal) whose "
                           "parameters require grad; this tensor is not one")
    if not isinstance(reward, Tensor):
        raise TypeError(f"reinforce(): reward must be a Tensor, not {type(reward).__name__}")
    if tuple(reward.shape) != tuple(self.shape):
        raise RuntimeError(f"reinforce(): the reward has shape {list(reward.shape)} but the output "
                           f"has shape {list(self.shape)}; they must be the same")
    if node.reward is not None:
        raise RuntimeError("you can only reinforce a stochastic Function once")
    node.reward = reward.detach()


def _volatile_get(self):
    _warn_user("volatile was removed (Variable.volatile is always False)")
    return False


def _volatile_set(self, value):
    _warn_user("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.")


# Variable.volatile, a property rather than an op
Tensor.volatile = property(_volatile_get, _volatile_set)
