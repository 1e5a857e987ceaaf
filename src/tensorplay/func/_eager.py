"""The transforms: ``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``.

Reverse mode opens a ``_levels.Level`` per call, forward mode a
``forward_ad`` dual level per call; see ``_levels.py`` for why nested calls
do not confuse their perturbations.  Semantics and error messages follow
PyTorch 2.x ``torch.func``.
"""
import functools

from .._autograd.grad_mode import state
from .._creation import zeros_like
from .._tensor import Tensor
from ..autograd import _backward, forward_ad
from ._levels import Level
from . import _vmap
from ._pytree import tree_flatten, tree_map, tree_unflatten

_JVP = "jvp(f, primals, tangents)"


# ------------------------------------------------------------------ argnums
def _wrap_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _check_argnums(argnums, num_args):
    """``argnums`` validated and made non-negative (PyTorch's checks, in its order)."""
    if isinstance(argnums, int):
        return _wrap_argnum(argnums, num_args)
    if not isinstance(argnums, tuple):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    argnums = tuple(_wrap_argnum(a, num_args) for a in argnums)
    if len(argnums) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return argnums


def _slice_argnums(args, argnums, as_tuple=True):
    argnums = _check_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return (args[argnums],) if as_tuple else args[argnums]
    return tuple(args[i] for i in argnums)


def _replace_args(args, new, argnums):
    """``args`` with the differentiated ones (``new``, shaped as ``argnums``) swapped in."""
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    return tuple(new[argnums.index(i)] if i in argnums else a for i, a in enumerate(args))


def _lift_args(level, args, argnums):
    """Returns ``(args, flat, spec)``: ``args`` with the differentiated ones (all
    when ``argnums`` is None) replaced by this level's copies, those copies
    flat, and their tree structure."""
    diff = args if argnums is None else _slice_argnums(args, argnums, as_tuple=False)
    flat, spec = tree_flatten(diff)
    flat = [level.lift(x) for x in flat]
    lifted = tree_unflatten(flat, spec)
    if argnums is None:
        return lifted, flat, spec
    return _replace_args(args, lifted, _check_argnums(argnums, len(args))), flat, spec


def _split_aux(output, where):
    """``(output, aux)`` from a function called with ``has_aux=True``."""
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{where}: output of function f should be a tuple: (output, aux) if "
                           f"has_aux is True")
    return output


# ------------------------------------------------------------------ reverse mode
def _grad_of(outputs, inputs, cotangents=None, retain_graph=False, create_graph=True):
    """``autograd.grad`` as the transforms use it: outputs that do not require
    grad contribute nothing, and an input nothing reached gets zeros.  Inside
    vmap it differentiates the physical tensors (the whole batch at once: its
    samples are independent) and hands the gradients back batched."""
    if cotangents is None:
        pairs = [(o, None) for o in outputs if o.requires_grad]
    else:
        pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if not pairs:
        return tuple(zeros_like(x) for x in inputs)
    outs = [o for o, _ in pairs]
    cts = None if cotangents is None else [c for _, c in pairs]
    back, levels = None, ()
    if any(type(t) is _vmap.BatchedTensor for t in outs + list(inputs) + (cts or [])):
        outs, cts, inputs, back, levels = _vmap.autograd_pairs(outs, cts or [None] * len(outs),
                                                               inputs)
        if not outs:
            return tuple(back(i, zeros_like(x)) for i, x in enumerate(inputs))
    with _vmap.physical_backward(cts or (), levels):
        got = _backward.grad(outs, inputs, cts, retain_graph=retain_graph,
                             create_graph=create_graph, allow_unused=True)
    got = tuple(zeros_like(x) if g is None else g for x, g in zip(inputs, got))
    if back is not None:
        got = tuple(back(i, g) for i, g in enumerate(got))
    return got


def _lower_aux(level, aux, keep_graph):
    def one(x):
        if not isinstance(x, Tensor):
            if isinstance(x, tuple):            # PyTorch's namedtuple allowance
                return tree_map(one, tuple(x))
            raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
        return level.lower(x, keep_graph)
    return tree_map(one, aux)


def _check_aux(aux):
    """PyTorch's refusal of an ``aux`` that is not (a tree of) tensors, made
    where the other transforms make it (``_lower_aux``)."""
    def one(x):
        if not isinstance(x, Tensor):
            if isinstance(x, tuple):
                return tree_map(one, tuple(x))
            raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
        return x
    tree_map(one, aux)


def _grad_and_value(func, argnums, has_aux, args, kwargs):
    with Level() as level:
        args, flat, spec = _lift_args(level, args, argnums)
        output = func(*args, **kwargs)
        aux = None
        if has_aux:
            output, aux = _split_aux(output, "grad_and_value(f)(*args)")
        if not isinstance(output, Tensor):
            raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, "
                               f"got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {output.dim()} dims. Maybe you wanted to "
                               f"use the vjp or jacrev APIs instead?")
        # the backward pass is recorded only if something outside this level
        # can differentiate its result
        keep = level.outer_grad and level.reaches_outside((output,))
        # one tape for all levels: what escapes with history (the gradient's
        # own graph, aux, the value) may run back through this forward graph
        grads = _grad_of((output,), flat, retain_graph=level.outer_grad, create_graph=keep)
        grads = tree_unflatten([level.lower(g, keep) for g in grads], spec)
        output = level.lower(output, keep)
        if has_aux:
            aux = _lower_aux(level, aux, level.outer_grad)
            return grads, (output, aux)
        return grads, output


def grad_and_value(func, argnums=0, has_aux=False):
    """Like ``grad``, but the returned function gives ``(gradient, value)``
    (with ``has_aux``: ``(gradient, (value, aux))``).

    >>> x = tensorplay.tensor(2.)
    >>> grad_and_value(lambda x: x ** 3)(x)
    (tensor(12.), tensor(8.))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _grad_and_value(func, argnums, has_aux, args, kwargs)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The function computing the gradient of ``func`` (which returns a scalar
    tensor, or ``(scalar, aux)`` with ``has_aux``) with respect to the
    arguments at ``argnums`` (an int, or a tuple of ints giving a tuple of
    gradients; each argument may be a pytree of tensors).  Nests to any depth:
    ``grad(grad(f))`` is the second derivative.

    ``grad`` honours a ``no_grad`` inside ``func`` but not one around the call:
    it is a function transform, its result must not depend on the context.

    >>> x = tensorplay.tensor(0.5)
    >>> grad(tensorplay.sin)(x)
    tensor(0.8776)
    >>> grad(grad(tensorplay.sin))(x)
    tensor(-0.4794)
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, out = _grad_and_value(func, argnums, has_aux, args, kwargs)
        return (g, out[1]) if has_aux else g
    return wrapper


def _vjp(func, primals, argnums, has_aux):
    with Level() as level:
        primals, flat, spec = _lift_args(level, primals, argnums)
        out = func(*primals)
        aux = None
        if has_aux:
            out, aux = _split_aux(out, "vjp(f, *primals)")
            aux = _lower_aux(level, aux, level.outer_grad)
        flat_out, out_spec = tree_flatten(out)
        _check_outputs(flat_out, "vjp(f, *primals)")
        for o in flat_out:
            if not (o.is_floating_point() or o.is_complex()):
                raise RuntimeError(f"vjp(f, ...): All outputs of f must be floating-point or complex "
                                   f"Tensors, got Tensor with dtype {o.dtype}")
        keep = level.outer_grad and level.reaches_outside(flat_out)
        results = tree_unflatten([level.lower(o, keep) for o in flat_out], out_spec)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        if create_graph is None:
            create_graph = state.enabled
        flat_ct, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree "
                               f"structure of outputs to the function. cotangents: "
                               f"{ct_spec.pprint()}, primal output: {out_spec.pprint()}")
        # record the backward only if something outside the level can use it
        cg = create_graph and (keep or level.reaches_outside(flat_ct))
        got = _grad_of(flat_out, flat, flat_ct, retain_graph=retain_graph, create_graph=cg)
        return tree_unflatten([level.lower(g, cg) for g in got], spec)

    if has_aux:
        return results, vjp_fn, aux
    return results, vjp_fn


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` gives the
    vector-Jacobian product of ``func`` at ``primals`` as a tuple, one entry
    per primal (``cotangents`` has the structure of the output).  With
    ``has_aux``, ``func`` returns ``(output, aux)`` and ``vjp`` returns
    ``(output, vjp_fn, aux)``.

    >>> x = tensorplay.tensor([0., 1.])
    >>> out, vjp_fn = vjp(tensorplay.sin, x)
    >>> vjp_fn(tensorplay.ones(2))
    (tensor([1.0000, 0.5403]),)
    """
    return _vjp(func, primals, None, has_aux)


def _check_outputs(flat, api):
    if (len(flat) == 1 and flat[0] is None) or len(flat) < 1:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output "
                           f"(got output = {flat})")
    for o in flat:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(o)}")


# ------------------------------------------------------------------ forward mode
def _tensor_list(flat, what):
    if len(flat) == 0:
        raise RuntimeError(f"{_JVP}: Expected {what} to contain at least one Tensor.")
    for x in flat:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"{_JVP}: Expected {what} to only contain Tensors, got {type(x)}")


def _jvp(func, primals, tangents, argnums, strict, has_aux):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to "
                           f"call f(*primals).")
    diff = primals if argnums is None else _slice_argnums(primals, argnums)
    flat_p, p_spec = tree_flatten(diff)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python "
                           f"structure. For example, if primals is a tuple of 3 tensors, tangents "
                           f"also must be. Got primals with structure {p_spec} and tangents with "
                           f"structure {t_spec}")
    _tensor_list(flat_p, "primals")
    _tensor_list(flat_t, "tangents")
    for p, t in zip(flat_p, flat_t):
        if tuple(t.shape) != tuple(p.shape):
            raise RuntimeError(forward_ad._size_msg(p, t))
    level = forward_ad.enter_dual_level()
    try:
        above = _vmap.sink_below_vmap(forward_ad._levels[level])
        if above:
            duals = [_vmap.make_dual_below(p, t, level, above) for p, t in zip(flat_p, flat_t)]
        else:
            duals = [forward_ad.make_dual(p, t, level=level) for p, t in zip(flat_p, flat_t)]
        duals = tree_unflatten(duals, p_spec)
        if argnums is not None:
            argnums = _check_argnums(argnums, len(primals))
            # the differentiated arguments are sliced as a tuple even for an int argnums
            duals = _replace_args(primals, duals[0] if isinstance(argnums, int) else duals, argnums)
        out = func(*duals)
        aux = None
        if has_aux:
            out, aux = _split_aux(out, _JVP)
            _check_aux(aux)
        flat_out, out_spec = tree_flatten(out)
        _check_outputs(flat_out, _JVP)
        prims, tans = [], []
        for o in flat_out:
            if above:
                p, t = _vmap.unpack_dual_below(o, level, above)
            else:
                p, t = forward_ad.unpack_dual(o, level=level)
            if t is None:
                if strict:
                    raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is "
                                       "independent of the inputs. This is not allowed with "
                                       "strict=True.")
                t = zeros_like(p)
            prims.append(p)
            tans.append(t)
    finally:
        forward_ad.exit_dual_level(level=level)     # drops this level's tangents everywhere
    res = (tree_unflatten(prims, out_spec), tree_unflatten(tans, out_spec))
    return res + (aux,) if has_aux else res


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J v)``: the output and the Jacobian-vector product
    of ``func`` at ``primals`` (a tuple) with ``tangents`` (same structure),
    by forward mode.  Each call opens its own forward-mode level, so calls
    nest.  With ``has_aux``, ``func`` returns ``(output, aux)`` and so does the
    result, with ``aux`` last.  ``strict=True`` refuses an output that does not
    depend on the inputs.

    >>> x = tensorplay.tensor([0., 1.])
    >>> jvp(tensorplay.sin, (x,), (tensorplay.ones(2),))[1]
    tensor([1.0000, 0.5403])
    """
    return _jvp(func, primals, tangents, None, strict, has_aux)


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian-vector
    product of ``func`` at ``primals``, the linear approximation of ``func``
    there.  Tangents must have the primals' structure, shapes and dtypes.

    PyTorch traces ``func`` once; tensorplay runs the forward-mode pass again
    on each call of ``jvp_fn`` (for a ``func`` that draws random numbers the
    passes see different draws).

    >>> out, jvp_fn = linearize(tensorplay.sin, tensorplay.tensor([0., 1.]))
    >>> jvp_fn(tensorplay.tensor([2., 2.]))
    tensor([2.0000, 1.0806])
    """
    output = func(*primals)
    flat_p, p_spec = tree_flatten(primals)
    shapes = [tuple(p.shape) for p in flat_p]
    dtypes = [p.dtype for p in flat_p]
    primals = tuple(primals)

    def jvp_fn(*tangents):
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {t_spec} to have the same argspec as the "
                               f"primals {p_spec}")
        for i, t in enumerate(flat_t):
            if tuple(t.shape) != shapes[i]:
                raise RuntimeError(f"tangent:{i} with shape {t.shape} in flattened pytree doesn't "
                                   f"match the shape {flat_p[i].shape} of the corresponding primal.")
            if t.dtype != dtypes[i]:
                raise RuntimeError(f"tangent:{i} with dtype {t.dtype} in flattened pytree doesn't "
                                   f"match the dtype {dtypes[i]} of the corresponding primal.")
        return _jvp(func, primals, tangents, None, False, False)[1]

    return output, jvp_fn
