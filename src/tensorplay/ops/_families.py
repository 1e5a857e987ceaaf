"""Op families: the rules that most ops share, so an entry states only what is its own.

An entry names its family (``family=ELEMENTWISE``) and, where it has them, the
parameters that are dimensions (``dims=("dim",)``) and whether it is linear in
its tensor inputs (``linear=True``).  The family supplies the default
forward-mode rule (``jvp``) and vmap batching rule (``batch``), as JAX's
``defvectorized``/``deflinear`` and PyTorch's ``auto_element_wise``/
``auto_linear`` do; an entry writes its own only where the family's is wrong
or slow.

=============  ==============================================================
ELEMENTWISE    each output element depends on the same (broadcast) element of
               every input: sin, mul, where, clamp, comparisons
REDUCTION      reduces over the dimensions named in ``dims``: sum, amax, std
ALONG_DIM      keeps the shape, works along ``dims``: softmax, cumsum, sort
VIEW           returns a view of its first input: transpose, select, expand
SHAPE          rearranges elements into a new tensor: cat, flip, repeat, tril
INDEXING       reads or writes elements chosen by an index tensor: gather
BILINEAR       linear in each tensor input separately: mm, matmul, dot, outer
LINALG         matrix functions over the last two dimensions: inv, det, svd
SAMPLING       draws random numbers
OTHER          none of the above: rules written in the entry or none
=============  ==============================================================

The rules' signatures (what a transform calls; ``args`` is the op's full
positional argument list, tangents and batch dimensions are given per tensor
input, ``None`` where an input has none):

- ``jvp(op, args, tangents, result) -> tangent`` of the output (a tuple for
  an op with several outputs), written in tensorplay ops so that it can be
  differentiated again;
- ``batch(op, args, bdims) -> (result, out_bdim)``: ``args`` hold the
  physical tensors, whose batch dimension is at ``bdims[i]``; the rule calls
  the op once on the whole batch and says where the result's batch
  dimension is.
"""
from ._registry import dispatch


class Family:
    """A family's name and its default rules (``None``: no default).  ``exact``:
    its derivatives give each tensor input a gradient of that input's own shape
    (a view's goes back to its base's shape, a reduction's is broadcast back; no
    input broadcasts against another), and of its dtype when the output has that
    dtype: the engine need not check them (``record``; single-output calls with
    float32/float64 inputs only: the others are always checked)."""
    __slots__ = ("name", "jvp", "batch", "exact")

    def __init__(self, name, jvp=None, batch=None, exact=False):
        self.name, self.jvp, self.batch, self.exact = name, jvp, batch, exact

    def __repr__(self):
        return f"<family {self.name}>"


# ------------------------------------------------------------------ forward-mode defaults
def _tensor_inputs(op, args):
    return len(args) - op.n_kw if op.variadic else op.n_in


def _conj(t):
    return t.conj() if t.is_complex() else t


def jvp_auto_element_wise(op, args, tangents, result):
    """PyTorch's ``auto_element_wise``: for an elementwise op that is real or
    holomorphic, the tangent is the vjp applied to the tangent, conjugated:
    ``J t = conj(J^H conj(t))``.  (A non-holomorphic complex op, such as
    ``abs`` or ``angle`` of a complex input, writes its own rule.)"""
    if op.linear:
        return jvp_linear(op, args, tangents, result)
    total = None
    zero = op.zero
    for i, t in enumerate(tangents):
        if t is None or i in zero:
            continue
        f = op.vjp[i]
        if f is None:
            raise RuntimeError(f"{op.name}: input {op.names[i]!r} has a tangent but no derivative")
        d = t if op.ident[i] else _conj(f(_conj(t), result, args))
        total = d if total is None else total + d
    if total is not None and total.shape != result.shape:
        total = total.expand(result.shape)
    return total


def jvp_linear(op, args, tangents, result):
    """PyTorch's ``auto_linear``: an op linear in its differentiable tensor
    inputs maps tangents as it maps values, with zero for an input that has
    none (index and mask tensors stay as they are)."""
    n = _tensor_inputs(op, args)
    targs = list(args)
    for i in range(n):
        if not op.joint and (op.vjp[i] is None or i in op.zero):
            continue                # an index or mask (or an input read for its shape): a parameter
        t = tangents[i]
        if t is None:
            a = args[i]
            t = a.new_zeros(a.shape) if hasattr(a, "new_zeros") else 0
        targs[i] = t
    return dispatch(op, targs)


def jvp_bilinear(op, args, tangents, result):
    """An op linear in each tensor input separately: ``f(tx, y) + f(x, ty)``."""
    total = None
    for i, t in enumerate(tangents):
        if t is None:
            continue
        targs = list(args)
        targs[i] = t
        d = dispatch(op, targs)
        total = d if total is None else total + d
    return total


def jvp_reduction(op, args, tangents, result):
    """A reduction (over ``dim``, or all dimensions for an entry without one):
    each output element depends only on the input elements it reduces, so the
    vjp of ones holds, at each input element, the conjugated derivative of its
    output element (max/min and their ties: the share the gradient gives it).
    The tangent is then ``sum over the reduced dimensions of conj(vjp(1)) * t``,
    its real part for a real output (``df = Re(conj(grad) dz)`` for a real
    function of a complex input).  Outputs that are indices get none."""
    if op.linear:
        return jvp_linear(op, args, tangents, result)
    t = tangents[0]
    if t is None:
        return None
    names = op.names
    dim = args[names.index("dim")] if "dim" in names and names.index("dim") < len(args) else None
    keep = args[names.index("keepdim")] if "keepdim" in names and names.index("keepdim") < len(args) \
        else False
    multi = type(result) is tuple
    outs = result if multi else (result,)
    tans = []
    for k, o in enumerate(outs):
        if k in op.nondiff_out or not (o.is_floating_point() or o.is_complex()):
            tans.append(None)
            continue
        if multi:
            g = tuple(x.new_ones(x.shape) if j == k else x.new_zeros(x.shape) for j, x in enumerate(outs))
        else:
            g = o.new_ones(o.shape)
        p = _conj(op.vjp[0](g, result, args)) * t
        if p.is_complex() and not o.is_complex():
            p = p.real
        tans.append(p.sum() if dim is None and not keep else p.sum(dim, keepdim=keep) if dim is not None
                    else p.sum_to_size(o.shape))
    return tuple(tans) if multi else tans[0]


def jvp_select_along(op, args, tangents, result):
    """``values, indices`` ops that pick input elements along ``dim`` (sort, topk,
    cummax): the tangent picks the same elements."""
    dim = args[op.names.index("dim")] if op.names.index("dim") < len(args) else \
        op.defaults[op.names.index("dim")]
    return tangents[0].gather(dim, result[1]), None


def jvp_default(op, args, tangents, result):
    """Linear ops map tangents as values; others have no default."""
    if op.linear:
        return jvp_linear(op, args, tangents, result)
    raise NotImplementedError(f"Trying to use forward AD with {op.name} that does not support it "
                              f"because it has not been implemented yet.")


# ------------------------------------------------------------------ batching defaults
class NoBatchRule(Exception):
    """Raised by a batching rule that does not cover the arguments it got: vmap
    then runs the op once per sample (and warns)."""


def _batch_first(t, bdim):
    return t if bdim == 0 else t.movedim(bdim, 0)


def batch_size(args, bdims):
    for a, b in zip(args, bdims):
        if b is not None:
            return a.shape[b]
    raise NoBatchRule("no batched input")


def materialize(t, bdim, size):
    """A batched input as it is (batch first); an unbatched one expanded to the
    batch (a view: no copy)."""
    if bdim is not None:
        return _batch_first(t, bdim)
    return t.expand(size, *t.shape)             # (expand adds the leading dimension)


def pad_rank(x, rank):
    """A batched tensor (batch first) with size-1 dimensions after the batch up to
    logical rank ``rank``, so that it broadcasts as its logical self would."""
    r = x.ndim - 1
    if r < rank:
        x = x.reshape((x.shape[0],) + (1,) * (rank - r) + tuple(x.shape[1:]))
    return x


def logical_rank(args, bdims, n):
    return max((a.ndim - (b is not None) for a, b in zip(args[:n], bdims) if hasattr(a, "ndim")),
               default=0)


def batch_elementwise(op, args, bdims):
    """Batch dimensions to the front, and each batched input padded with size-1
    dimensions to the largest logical rank, so that broadcasting lines up the
    logical dimensions: one call of the op on the whole batch."""
    rank = 0
    for a, b in zip(args, bdims):       # logical_rank, inline: this runs for most ops
        d = getattr(a, "_data", None)
        if d is not None and d.ndim - (b is not None) > rank:
            rank = d.ndim - (b is not None)
    new = list(args)
    for i, b in enumerate(bdims):
        if b is not None:
            a = args[i] if b == 0 else args[i].movedim(b, 0)
            new[i] = a if a._data.ndim > rank else pad_rank(a, rank)
    return dispatch(op, new), 0


def shift_dim(d, rank):
    """A logical dimension as a physical one (the batch first).  One outside
    the sample's range raises PyTorch's error here: shifted, it could land on
    a physical dimension and compute something else.  A 0-d sample (where 0
    and -1 would name a dimension it does not have) is left to rules that
    handle it, others fall back to running per sample."""
    if rank == 0:
        raise NoBatchRule("a 0-d sample")
    if not -rank <= d < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, "
                         f"{rank - 1}], but got {d})")
    return (d + rank if d < 0 else d) + 1


def shift_dims(d, rank):
    if isinstance(d, (tuple, list)):
        return type(d)(shift_dim(k, rank) for k in d)
    return shift_dim(d, rank)


def batch_dims(op, args, bdims):
    """An op on one tensor whose dimension parameters (``op.dims``) index its
    logical dimensions: batch dimension to the front, each dimension shifted
    past it (``None``, all dimensions, becomes every logical one).  Tensor
    parameters (an index, a mask) that are batched too go first as well.  A
    0-d sample is given a dimension of size one to work along (never the
    batch's: "all dimensions" of a 0-d sample must not reach it), which the
    result loses again."""
    if not op.dims or op.star in op.dims or bdims[0] is None:
        raise NoBatchRule(op.name)
    bdims = list(bdims) + [None] * (len(args) - len(bdims))     # (tensor inputs only is fine)
    x = _batch_first(args[0], bdims[0])
    rank = x.ndim - 1
    scalar = rank == 0
    reduces = getattr(op.family, "name", None) == "reduction"      # dim=() means all of them
    if scalar:
        if op.name in ("sum", "mean") and x._data.dtype.kind in "fc" and \
                (len(args) < 4 or args[3] is None) and \
                (len(args) < 2 or args[1] in (None, 0, -1, (), (0,), (-1,))):
            return x.clone(), 0         # a 0-d sample's own sum or mean: itself (a new tensor)
        x = x.unsqueeze(1)
        rank = 1
    new = list(args)
    new[0] = x
    size = x.shape[0]
    for i in range(1, len(args)):
        if bdims[i] is not None:
            t = materialize(args[i], bdims[i], size)
            new[i] = t.unsqueeze(1) if scalar and t.ndim == 1 else t
    for name in op.dims:
        i = op.names.index(name)
        if i >= len(new):
            continue
        d = new[i]
        if d is None or (isinstance(d, (tuple, list)) and len(d) == 0 and reduces):
            new[i] = tuple(range(1, rank + 1))          # all dimensions
        elif scalar:        # 0 or -1, the only dimension a 0-d tensor accepts; others raise
            new[i] = shift_dims(d, 1) if d in (0, -1) or (isinstance(d, (tuple, list)) and all(
                k in (0, -1) for k in d)) else d
        else:
            new[i] = shift_dims(d, rank)
    out = dispatch(op, new)
    if scalar:
        out = tuple(o.reshape(o.shape[:1]) if o.ndim > 1 else o for o in out) \
            if type(out) is tuple else (out.reshape(out.shape[:1]) if out.ndim > 1 else out)
    return out, 0


def batch_same(op, args, bdims):
    """An op that works on trailing dimensions and treats leading ones as a
    batch (linear algebra, ``tril``, ``view_as_real``): batched inputs first,
    unbatched ones broadcast against them."""
    n = len(args)
    rank = logical_rank(args, bdims, n)
    new = list(args)
    for i, b in enumerate(bdims):
        if b is not None:
            new[i] = pad_rank(_batch_first(args[i], b), rank)
    return dispatch(op, new), 0


ELEMENTWISE = Family("elementwise", jvp_auto_element_wise, batch_elementwise)
REDUCTION = Family("reduction", jvp_reduction, batch_dims, exact=True)
ALONG_DIM = Family("along_dim", jvp_default, batch_dims, exact=True)
VIEW = Family("view", jvp_linear, exact=True)   # batching: each view op's shape parameters differ
SHAPE = Family("shape", jvp_default, exact=True)
INDEXING = Family("indexing", jvp_default)
BILINEAR = Family("bilinear", jvp_bilinear)
LINALG = Family("linalg", jvp_default, batch_same)
SAMPLING = Family("sampling")
OTHER = Family("other", jvp_default)
FAMILIES = (ELEMENTWISE, REDUCTION, ALONG_DIM, VIEW, SHAPE, INDEXING, BILINEAR, LINALG,
            SAMPLING, OTHER)
