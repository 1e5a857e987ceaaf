"""Batching rules of the ops whose family has no default that fits them.

A rule has the family rules' signature, ``rule(op, args, bdims) -> (result,
out_bdim)`` (``_families.py``): ``args`` hold the physical tensors, each
batched one with its batch dimension at ``bdims[i]`` (``None``: the same
for every sample); the rule calls ops once on the whole batch and says where
the result's batch dimension is.  Rules run below the vmap level, so the ops
they call compute (and record for autograd) on the physical tensors.  Each
op's entry is given its rule by ``attach`` (``RULES``, after every op module
has registered); an op with no rule anywhere runs once per sample under
vmap, with a warning (tests/test_vmap_ops.py lists the few that may).
"""
import numpy as np

from .. import _dtype as D
from .core import _view_dtype
from ._families import (NoBatchRule, _batch_first, batch_dims, batch_same, batch_size,
                        logical_rank, materialize, pad_rank, shift_dim)
from ._registry import REGISTRY, dispatch


def _front(args, bdims):
    """Every batched input with its batch dimension first."""
    return [a if b is None else _batch_first(a, b) for a, b in zip(args, bdims)]


def _call(op, args):
    return dispatch(op, list(args))


def _sizes(rest):
    """Star parameters given either spread (``view(x, 2, 3)``) or as one sequence."""
    rest = tuple(rest)
    if len(rest) == 1 and isinstance(rest[0], (tuple, list)):
        return tuple(rest[0])
    return rest


def _rank(x):
    return x.ndim - 1


# ------------------------------------------------------------------ reductions over everything
def _flat(x):
    return x.reshape((x.shape[0], -1))


def batch_full_reduction(method):
    """``prod(x)``, ``max(x)``...: each sample flattened, then the reduction
    over that dimension (the same values and the same gradient)."""
    def rule(op, args, bdims):
        x = _flat(_batch_first(args[0], bdims[0]))
        r = getattr(x, method)(1)
        return (r.values if hasattr(r, "values") else r), 0
    return rule


def batch_arg_reduction(op, args, bdims):
    """``argmax``/``argmin``: ``dim=None`` indexes the flattened sample; a 0-d
    sample along its dimension 0 is reduced along a dimension of size one."""
    x = _batch_first(args[0], bdims[0])
    dim, keep = args[1], args[2]
    if dim is not None and _rank(x) == 0:
        if dim not in (0, -1):
            raise NoBatchRule(op.name)          # the op's own error, from one sample
        return _call(op, [x.unsqueeze(1), 1, False]), 0
    if dim is not None:
        return _call(op, [x, shift_dim(dim, _rank(x)), keep]), 0
    r = _call(op, [_flat(x), 1, False])
    if keep:
        r = r.reshape((x.shape[0],) + (1,) * _rank(x))
    return r, 0


def batch_aminmax(op, args, bdims):
    """``aminmax``: ``dim=None`` reduces the flattened sample (the op takes one
    dimension only); a dimension as the dims rule does."""
    if args[1] is not None:
        return batch_dims(op, args, bdims)
    x = _batch_first(args[0], bdims[0])
    r = _call(op, [_flat(x), 1, False])
    if args[2]:
        r = tuple(t.reshape((x.shape[0],) + (1,) * _rank(x)) for t in r)
    return r, 0


def batch_sum_to_size(op, args, bdims):
    x = _batch_first(args[0], bdims[0])
    size = _sizes(args[1:])
    extra = _rank(x) - len(size)
    if extra > 0:
        x = x.sum(tuple(range(1, 1 + extra)))
    return _call(op, [x, x.shape[0], *size]), 0


# ------------------------------------------------------------------ views and reshapes
def batch_expand(op, args, bdims):
    x = _batch_first(args[0], bdims[0])
    size = _sizes(args[1:])
    x = pad_rank(x, len(size))
    return _call(op, [x, x.shape[0], *size]), 0


def batch_view(op, args, bdims):
    """``view``/``reshape``/``_unsafe_view`` of each sample: of the batch, with
    the batch size in front (``-1`` still means "the rest" of one sample)."""
    x = _batch_first(args[0], bdims[0])
    if len(args) == 2 and isinstance(args[1], D.dtype):    # view(dtype): the last dimension may
        if x.ndim == 1:                                     # change size, never the batch's
            _view_dtype(np.empty((), x._data.dtype), args[1])   # (a 0-d sample: its error)
        return _call(op, [x, args[1]]), 0
    if op.star:
        shape = _sizes(args[1:])
        return _call(op, [x, x.shape[0], *shape]), 0
    shape = args[1]
    return _call(op, [x, (x.shape[0],) + tuple(shape)]), 0


def batch_permute(op, args, bdims):
    x = _batch_first(args[0], bdims[0])
    r = _rank(x)
    dims = [shift_dim(d, r) for d in _sizes(args[1:])]
    return _call(op, [x, 0, *dims]), 0


def batch_movedim(op, args, bdims):
    x = _batch_first(args[0], bdims[0])
    perm = (0,) + tuple(p + 1 for p in args[1])
    return _call(op, [x, perm]), 0


def batch_t(op, args, bdims):
    x = _batch_first(args[0], bdims[0])
    if _rank(x) < 2:
        return x.view(x.shape), 0          # t of a 0-d or 1-d tensor is the tensor (a view)
    return x.transpose(1, 2), 0


def batch_unsqueeze(op, args, bdims):
    x = _batch_first(args[0], bdims[0])
    return _call(op, [x, shift_dim(args[1], _rank(x) + 1)]), 0


def batch_squeeze(op, args, bdims):
    x = _batch_first(args[0], bdims[0])
    r, dim = _rank(x), args[1]
    if dim is None:                         # every logical size-1 dimension, never the batch
        dim = tuple(i + 1 for i, s in enumerate(x.shape[1:]) if s == 1)
        if not dim:
            return x.view(x.shape), 0
    elif isinstance(dim, (tuple, list)):
        dim = tuple(shift_dim(d, r) for d in dim)
    else:
        dim = shift_dim(dim, r)
    return _call(op, [x, dim]), 0


def batch_flatten(op, args, bdims):
    x = _batch_first(args[0], bdims[0])
    r = _rank(x)
    if r == 0:
        return x.reshape((x.shape[0], 1)), 0
    return _call(op, [x, shift_dim(args[1], r), shift_dim(args[2], r)]), 0


def batch_repeat(op, args, bdims):
    x = _batch_first(args[0], bdims[0])
    reps = tuple(args[1])
    if len(reps) < _rank(x):
        return _call(op, [x, reps]), 0      # the op raises PyTorch's error
    x = pad_rank(x, len(reps))
    return _call(op, [x, (1,) + reps]), 0


def batch_roll(op, args, bdims):
    x = _batch_first(args[0], bdims[0])
    shifts, dims = args[1], args[2]
    if dims is None or (isinstance(dims, (tuple, list)) and len(dims) == 0):
        f = _flat(x)
        return _call(op, [f, shifts, 1]).reshape(x.shape), 0
    return batch_dims(op, args, bdims)


def batch_diag_embed(op, args, bdims):
    x = _batch_first(args[0], bdims[0])
    r = _rank(x) + 1                         # the output's logical rank
    return _call(op, [x, args[1], shift_dim(args[2], r), shift_dim(args[3], r)]), 0


def batch_sized_backward(op, args, bdims):
    """``slice_backward``/``diagonal_backward``: the gradient's input shape
    (a parameter) gains the batch size, the dimensions shift."""
    g = _batch_first(args[0], bdims[0])
    shape = tuple(args[1])
    r = len(shape)
    new = [g, (g.shape[0],) + shape] + list(args[2:])
    for name in op.dims:
        i = op.names.index(name)
        new[i] = shift_dim(new[i], r)
    return _call(op, new), 0


def batch_unfold_backward(op, args, bdims):
    """``unfold_backward``: as ``slice_backward`` (a 0-d sample's one window: the
    per-sample loop)."""
    if not tuple(args[1]):
        raise NoBatchRule
    return batch_sized_backward(op, args, bdims)


def batch_cat(op, args, bdims):
    n = len(args) - op.n_kw
    size = batch_size(args[:n], bdims[:n])
    ts = [materialize(a, b, size) for a, b in zip(args[:n], bdims[:n])]
    rank = max(_rank(t) for t in ts)
    # PyTorch's legacy allowance: a 1-d empty tensor joins anything; it is left out
    ts = [t for t in ts if not (_rank(t) == 1 and t.shape[1] == 0 and rank > 1)] or ts[:1]
    return _call(op, ts + [shift_dim(args[n], rank)]), 0


def batch_stack(op, args, bdims):
    n = len(args) - op.n_kw
    size = batch_size(args[:n], bdims[:n])
    ts = [materialize(a, b, size) for a, b in zip(args[:n], bdims[:n])]
    return _call(op, ts + [shift_dim(args[n], _rank(ts[0]) + 1)]), 0


# ------------------------------------------------------------------ products
def batch_matmul(op, args, bdims):
    """``matmul`` of each sample: a 1-d operand becomes a matrix (a row for the
    left, a column for the right) that is dropped again from the result; the
    batched operand is padded to the other's rank, so that one broadcasting
    matmul computes every sample's product."""
    mm = REGISTRY["matmul"]
    x, y = args[0], args[1]
    if bdims[0] == 0 and bdims[1] is None and x._data.ndim == 2 and y._data.ndim == 2:
        return dispatch(mm, [x, y]), 0      # the commonest case first (see below)
    x, y = _front(args[:2], bdims[:2])
    bx, by = bdims[0] is not None, bdims[1] is not None
    rx, ry = x.ndim - bx, y.ndim - by
    if rx == 0 or ry == 0:
        raise NoBatchRule(op.name)          # the op's own error, from one sample
    # a batch of vectors against a shared matrix: one matrix product (a broadcast
    # stack of vector products would be one BLAS call per sample)
    if bx and not by and rx == 1 and ry == 2:
        return dispatch(mm, [x, y]), 0
    if by and not bx and ry == 1 and rx == 2:
        return dispatch(mm, [y, x.transpose(0, 1)]), 0
    drop = []
    if rx == 1:
        x = x.unsqueeze(-2)
        rx = 2
        drop.append(-2)
    if ry == 1:
        y = y.unsqueeze(-1)
        ry = 2
        drop.append(-1)
    rank = max(rx, ry)
    if bx:
        x = pad_rank(x, rank)
    if by:
        y = pad_rank(y, rank)
    if bx and not by:
        y = y.reshape((1,) * (rank - ry) + tuple(y.shape))
    if by and not bx:
        x = x.reshape((1,) * (rank - rx) + tuple(x.shape))
    if not bx and not by:
        raise NoBatchRule(op.name)
    r = dispatch(mm, [x, y])
    if drop == [-2, -1]:
        r = r.squeeze(-1).squeeze(-1)
    elif drop:
        r = r.squeeze(drop[0])
    return r, 0


def batch_mv(op, args, bdims):
    """``mv(A, v)``: a batched matrix and a shared vector are one broadcasting
    matmul; otherwise ``matmul``'s rule (a batched vector and a shared matrix:
    one matrix product with the matrix transposed, ``v @ A^T``)."""
    A, v = _front(args[:2], bdims[:2])
    if bdims[1] is None and A.ndim == 3 and v.ndim == 1:
        return dispatch(REGISTRY["matmul"], [A, v]), 0
    return batch_matmul(op, args, bdims)


def batch_dot(op, args, bdims):
    """A batch of vectors against a shared one: one matrix-vector product; two
    batches: the products summed."""
    x, y = _front(args[:2], bdims[:2])
    if op.name == "vdot":
        x = x.conj()
    if x.ndim != 1 + (bdims[0] is not None) or y.ndim != 1 + (bdims[1] is not None):
        raise NoBatchRule(op.name)              # the op's own error (1-d operands), per sample
    if bdims[0] is None or bdims[1] is None:
        return dispatch(REGISTRY["matmul"], [x, y] if bdims[1] is None else [y, x]), 0
    return (x * y).sum(-1), 0


_ADD_PRODUCT_RANK = {"addmm": 2, "baddbmm": 3, "addmv": 1, "addr": 2}


def batch_addmm(op, args, bdims):
    """``beta * input + alpha * product`` of each sample (``addmm``, ``baddbmm``,
    ``addmv``, ``addr``): the product by matmul's rule (once for all samples when
    neither factor is batched; ``addr``'s outer product by broadcasting), the
    input padded to the product's rank so that it broadcasts as one sample's
    would; ``beta == 0`` ignores the input (NaN included), as the op does."""
    inp, m1, m2 = _front(args[:3], bdims[:3])
    beta, alpha = args[3], args[4]
    batched = bdims[1] is not None or bdims[2] is not None
    if op.name == "addr":
        prod = m1.unsqueeze(-1) * m2.unsqueeze(-2)
    elif op.name == "addmv":
        m2 = m2.unsqueeze(-1)
        if not batched:
            prod = dispatch(REGISTRY["matmul"], [m1, m2])
        else:
            prod = batch_matmul(op, [m1, m2], [None if b is None else 0 for b in bdims[1:3]])[0]
        prod = prod.squeeze(-1)
    elif not batched:
        prod = dispatch(REGISTRY["matmul"], [m1, m2])
    else:
        front = [None if b is None else 0 for b in bdims[1:3]]     # (moved first above)
        prod = batch_matmul(op, [m1, m2], front)[0]
    if prod._data.dtype.kind in "iu":      # (an integer result truncates them, as the op)
        beta, alpha = int(beta), int(alpha)
    out = prod if alpha == 1 else prod * alpha
    if beta == 0:
        return (out if batched else materialize(out, None, inp.shape[0])), 0
    if bdims[0] is not None:
        inp = pad_rank(inp, _ADD_PRODUCT_RANK[op.name])
    return out + (inp if beta == 1 else inp * beta), 0


def _einsum_parts(equation):
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->")
    else:
        lhs = eq
        letters = [c for c in lhs.replace("...", "") if c.isalpha()]
        rhs = ("..." if "..." in lhs else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1))
    return lhs.split(","), rhs


def batch_einsum(op, args, bdims):
    """A new subscript for the batch, on the batched operands and in front of
    the output: one einsum for the whole batch."""
    n = len(args) - op.n_kw
    equation = args[n]
    subs, rhs = _einsum_parts(equation)
    used = set(equation)
    letter = next(c for c in "bcdefghijklmnopqrstuvwxyzBCDEFGHIJKLMNOPQRSTUVWXYZa" if c not in used)
    ts = []
    for i in range(n):
        if bdims[i] is not None:
            ts.append(_batch_first(args[i], bdims[i]))
            subs[i] = letter + subs[i]
        else:
            ts.append(args[i])
    return _call(op, ts + [",".join(subs) + "->" + letter + rhs]), 0


def batch_cross(op, args, bdims):
    """Both operands batched (a shared one expanded: the kernel wants equal
    ranks) and padded to one logical rank, the dimension shifted."""
    size = batch_size(args[:2], bdims[:2])
    rank = logical_rank(args, bdims, 2)
    x, y = (pad_rank(materialize(a, b, size), rank) for a, b in zip(args[:2], bdims[:2]))
    dim = args[2]
    return _call(op, [x, y, None if dim is None else shift_dim(dim, rank)]), 0


def batch_trace(op, args, bdims):
    x = _batch_first(args[0], bdims[0])
    if _rank(x) != 2:
        raise NoBatchRule(op.name)          # the op's own error, from one sample
    return x.diagonal(0, 1, 2).sum(-1), 0


# ------------------------------------------------------------------ indexing
def batch_gather(op, args, bdims):
    """``gather``/``scatter*``/``take_along_dim``: input, index and source all
    batched (the unbatched ones expanded: views), the dimension shifted."""
    size = batch_size(args, bdims)
    new = list(args)
    for i in (0, 2, 3):
        if i < len(args) and hasattr(args[i], "ndim"):
            new[i] = materialize(args[i], bdims[i], size)
    rank = _rank(new[0])
    if rank == 0:           # 0-d samples: along a dimension of size one (0 or -1 only)
        if args[1] not in (0, -1) or any(hasattr(new[i], "ndim") and new[i].ndim > 2
                                         for i in (2, 3) if i < len(new)):
            raise NoBatchRule(op.name)          # the op's own error, from one sample
        # the result is shaped as the index (gather) or as the 0-d input (scatter)
        scalar = new[2].ndim == 1 or op.name != "gather"
        for i in (0, 2, 3):
            if i < len(new) and hasattr(new[i], "ndim") and new[i].ndim == 1:
                new[i] = new[i].unsqueeze(1)
        new[1] = 1
        r = _call(op, new)
        return (r.reshape(r.shape[:1]) if scalar else r), 0
    new[1] = shift_dim(args[1], rank)
    return _call(op, new), 0


def _full_index(idx, d, shape):
    """A batched index (batch first; a sample's 0-d or 1-d) as the index of a
    gather/scatter along dimension ``d`` of a tensor of ``shape`` (batch
    first): the sample's positions along ``d``, the same for every other
    coordinate (a view)."""
    b = idx.shape[0]
    idx = idx.reshape((b, -1))
    k = idx.shape[1]
    idx = idx.reshape((b,) + (1,) * (d - 1) + (k,) + (1,) * (len(shape) - d - 1))
    return idx.expand(tuple(shape[:d]) + (k,) + tuple(shape[d + 1:]))


def batch_index_dim(op, args, bdims):
    """``index_select``/``index_add``/``index_fill``/``index_copy`` along ``dim``:
    with an index shared by the samples, the op on the batch; with a batched
    index, the gather or scatter that does the same per sample (bounds checked
    by it).  A 0-d sample works along a dimension of size one."""
    size = batch_size(args, bdims)
    new = list(args)
    x = materialize(args[0], bdims[0], size)
    scalar = _rank(x) == 0
    if scalar:
        if args[1] not in (0, -1):
            raise NoBatchRule(op.name)          # the op's own error, from one sample
        x = x.unsqueeze(1)
    new[0] = x
    d = new[1] = shift_dim(args[1], _rank(x))
    for i in range(3, len(args)):       # the source (or value) tensor lines up with the batch
        if bdims[i] is not None or (op.names[i] == "source" and hasattr(args[i], "ndim")):
            t = materialize(args[i], bdims[i], size)
            new[i] = t.unsqueeze(1) if scalar and t.ndim == 1 else t
    if bdims[2] is None and not (op.name == "index_fill_tensor" and bdims[3] is not None):
        if bdims[0] is None and op.name != "index_select":
            new[0] = x.clone()
        r = _call(op, new)
    else:           # a batched index, or a batched value (one per sample: a scatter)
        idx = _batch_first(args[2], bdims[2]) if bdims[2] is not None else \
            args[2].reshape(-1).expand(size, args[2].numel())
        if idx.ndim > 2:
            raise NoBatchRule(op.name)          # the op's own error (not a vector), per sample
        r = _batched_index_dim(op, new, d, idx)
    return (r.reshape(r.shape[:1]) if scalar else r), 0


def _batched_index_dim(op, args, d, idx):
    x = args[0]
    if op.name == "index_select":
        return _call(REGISTRY["gather"], [x, d, _full_index(idx, d, x.shape)])
    if op.name in ("index_fill", "index_fill_tensor"):
        idx = idx + (idx < 0) * x.shape[d]           # index_fill takes negative indices
        full = _full_index(idx, d, x.shape)
        value = args[3]
        if op.name == "index_fill" or not hasattr(value, "ndim"):
            return _call(REGISTRY["scatter_value"], [x, d, full, value])
        if value.is_complex() and not x.is_complex():
            _call(op, [x[:1], d, idx[0], value[:1]])     # (the op's own refusal, from one sample)
        value = pad_rank(materialize(value, 0 if value.ndim else None, x.shape[0]), _rank(x))
        return _call(REGISTRY["scatter"], [x, d, full, value.to(x.dtype).expand(full.shape)])
    src = args[3]
    full = _full_index(idx, d, src.shape)
    if op.name == "index_add":
        alpha = args[4] if len(args) > 4 else 1
        return _call(REGISTRY["scatter_add"], [x, d, full, src if alpha == 1 else src * alpha])
    if op.name == "index_copy":
        return _call(REGISTRY["scatter"], [x, d, full, src])
    raise NoBatchRule(op.name)


def batch_index_reduce(op, args, bdims):
    """``index_reduce``: a shared index as ``index_add``; a batched one becomes
    the full-shaped index of one ``scatter_reduce`` over the whole batch."""
    if bdims[2] is None:
        return batch_index_dim(op, args, bdims)
    size = batch_size(args, bdims)
    x, src = materialize(args[0], bdims[0], size), materialize(args[3], bdims[3], size)
    rank = _rank(x)
    if rank == 0 or _rank(src) != rank:
        raise NoBatchRule(op.name)          # the op's own handling, from one sample
    d = shift_dim(args[1], rank)
    idx = _batch_first(args[2], bdims[2])
    if idx.ndim != 2:
        raise NoBatchRule(op.name)
    idx = idx + (idx < 0) * x.shape[d]
    shape = (size,) + (1,) * (d - 1) + (idx.shape[1],) + (1,) * (src.ndim - d - 1)
    full = idx.reshape(shape).expand(src.shape)
    return _call(REGISTRY["scatter_reduce"], [x, d, full, src] + list(args[4:])), 0


def batch_take(op, args, bdims):
    size = batch_size(args, bdims)
    x = _flat(materialize(args[0], bdims[0], size))
    idx = args[1]
    if bdims[1] is None:
        return x[:, idx], 0
    idx = _batch_first(idx, bdims[1])
    idx = idx + (idx < 0) * x.shape[1]          # take counts from the end for a negative index
    return x.gather(1, idx.reshape((size, -1))).reshape(idx.shape), 0


def batch_index(op, args, bdims):
    """``x[key]`` with ``key`` already parsed (basic items, then advanced arrays;
    both, as the derivative of a write ``x[i] = v`` records them): a full
    slice in front of the part applied first keeps the batch dimension; where
    NumPy moves the advanced dimensions first (they are not adjacent), the
    batch follows them (``_batched_key``)."""
    x = _batch_first(args[0], bdims[0])
    key, front = _batched_key(args[1])
    return _call(op, [x, key]), front


def _batched_key(key):
    """A ``(basic, adv)`` key for the batch (first): a full slice in front of
    the part that is applied first; and where the advanced index arrays are
    not adjacent (NumPy then moves their dimensions first) how many
    dimensions come before the batch's in the result."""
    basic, adv = key
    if adv is None:
        return ((slice(None),) + tuple(basic), None), 0
    adv = tuple(adv)
    positions = [i for i, k in enumerate(adv) if not isinstance(k, slice)]
    adjacent = positions == list(range(positions[0], positions[-1] + 1)) if positions else True
    front = 0 if adjacent else len(np.broadcast_shapes(*[np.shape(adv[i]) for i in positions]))
    return (((slice(None),) + tuple(basic)) if basic else (), (slice(None),) + adv), front


def _region_rank(shape, key):
    """The rank of ``x[key]`` for an ``x`` of ``shape`` (a zero-size stand-in
    indexed, no data read)."""
    basic, adv = key
    r = np.broadcast_to(np.empty((), bool), shape)
    r = r[tuple(basic) + (Ellipsis,)] if basic else r
    return (r[tuple(adv)] if adv is not None else r).ndim


def batch_index_put(op, args, bdims):
    """``index_put(x, values, key)`` of each sample: ``x`` batched (an unbatched
    one expanded: the kernel copies it), ``values`` lined up with the batch's
    place in the indexed region."""
    size = batch_size(args, bdims)
    x = materialize(args[0], bdims[0], size)
    key, front = _batched_key(args[2])
    v = args[1]
    if hasattr(v, "ndim"):
        v = pad_rank(materialize(v, bdims[1], size), _region_rank(tuple(x.shape[1:]), args[2]))
        if front:
            v = v.movedim(0, front)
    return _call(op, [x, v, key] + list(args[3:])), 0


def batch_dynamic(op, args, bdims):
    raise RuntimeError(f"vmap: We do not support batching operators that can output dynamic "
                       f"shape. Attempted to vmap over aten::{op.name}. Please file an issue at "
                       f"https://github.com/pytorch/pytorch/issues if you need this feature.")


def batch_masked_select(op, args, bdims):
    """A mask shared by the samples selects the same positions of each: the
    batch stays in front, the selected elements after it.  A batched mask
    would give each sample its own length (PyTorch's refusal)."""
    if bdims[1] is not None:
        raise RuntimeError("vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) "
                           "We cannot support this because for each batch this would return a "
                           "differently shaped Tensor. Please file an issue at "
                           "https://github.com/pytorch/pytorch/issues if you need this feature.")
    x, mask = _batch_first(args[0], bdims[0]), args[1]
    shape = np.broadcast_shapes(tuple(x.shape[1:]), tuple(mask.shape))
    x = pad_rank(x, len(shape)).expand((x.shape[0],) + shape)
    return x[(slice(None), mask.expand(shape))], 0


def batch_searchsorted(op, args, bdims):
    """One sorted sequence for every sample: the values keep their batch
    dimension.  Otherwise a sequence per sample: the batch becomes a leading
    dimension that the sequence and the values share (the values of a 1-d
    sequence flattened to one row per sample)."""
    seq, vals, params = args[0], args[1], list(args[2:])
    if bdims[0] is None and seq.ndim <= 1:
        return _call(op, [seq, vals] + params), bdims[1]
    n = batch_size(args, bdims)
    s = materialize(seq, bdims[0], n)
    v = materialize(vals, bdims[1], n) if hasattr(vals, "_data") else \
        materialize(s.new_tensor(vals), None, n)
    if s.ndim == 2:
        return _call(op, [s, v.reshape(n, -1)] + params).reshape(v.shape), 0
    return _call(op, [s, v] + params), 0


RULES = {
    "nonzero": batch_dynamic, "masked_select": batch_masked_select, "unique": batch_dynamic,
    "unique_consecutive": batch_dynamic, "bincount": batch_dynamic,
    "searchsorted": batch_searchsorted,
    "prod": batch_full_reduction("prod"), "max": batch_full_reduction("amax"),
    "min": batch_full_reduction("amin"),
    "argmax": batch_arg_reduction, "argmin": batch_arg_reduction, "aminmax": batch_aminmax,
    "sum_to_size": batch_sum_to_size,
    "expand": batch_expand, "view": batch_view, "_unsafe_view": batch_view,
    "permute": batch_permute, "movedim": batch_movedim, "t": batch_t,
    "unsqueeze": batch_unsqueeze, "squeeze": batch_squeeze, "flatten": batch_flatten,
    "real": batch_same, "imag": batch_same, "alias": batch_same,
    "view_as_real": batch_same, "view_as_complex": batch_same,
    "select": batch_dims, "slice": batch_dims, "split": batch_dims,
    "split_with_sizes": batch_dims, "unbind": batch_dims, "diagonal": batch_dims,
    "flip": batch_dims, "_flip_dim": batch_dims, "_shift_dim": batch_dims, "roll": batch_roll,
    "repeat": batch_repeat, "tril": batch_same, "triu": batch_same,
    "diag_embed": batch_diag_embed, "slice_backward": batch_sized_backward,
    "unfold_backward": batch_unfold_backward, "select_backward": batch_sized_backward,
    "diagonal_backward": batch_sized_backward, "cat": batch_cat, "stack": batch_stack,
    "matmul": batch_matmul, "mm": batch_matmul, "bmm": batch_matmul, "mv": batch_mv,
    "dot": batch_dot, "vdot": batch_dot, "addmm": batch_addmm, "baddbmm": batch_addmm,
    "addmv": batch_addmm, "addr": batch_addmm,
    "einsum": batch_einsum, "linalg_cross": batch_cross, "trace": batch_trace,
    "gather": batch_gather, "scatter": batch_gather, "scatter_value": batch_gather,
    "scatter_add": batch_gather, "index_select": batch_index_dim,
    "index_add": batch_index_dim, "index_fill": batch_index_dim,
    "index_fill_tensor": batch_index_dim, "index_copy": batch_index_dim,
    "take": batch_take, "index": batch_index, "index_put": batch_index_put,
    "scatter_reduce": batch_gather, "index_reduce": batch_index_reduce,
}


def attach():
    """Give each op in ``RULES`` its rule (ops that already name one keep it),
    and the same to the copies of an op under other node names (einsum's)."""
    from .linalg import _EINSUM_OPS
    for op in [REGISTRY.get(name) for name in RULES] + list(_EINSUM_OPS.values()):
        if op is not None and (op.batch is None or op.batch is getattr(op.family, "batch", None)):
            op.batch = RULES[op.name]
