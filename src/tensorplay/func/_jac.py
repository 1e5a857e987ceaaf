"""Jacobians and Hessians from the transforms: ``jacrev`` (one vjp per output
element), ``jacfwd`` (one jvp per input element), ``hessian`` =
``jacfwd(jacrev)``.

PyTorch batches the vjps or jvps with ``vmap``; tensorplay has no vmap yet, so
they run one basis vector at a time (PyTorch's ``chunk_size=1`` behaviour) on
the same recorded graph (``jacrev``) or one forward pass each (``jacfwd``).
"""
import functools

from .. import _random
from .._creation import eye, zeros
from .._tensor import Tensor
from ..ops.shape import stack
from ._eager import _jvp, _slice_argnums, _vjp
from ._pytree import tree_flatten, tree_leaves, tree_unflatten


def _error_if_complex(name, args, is_input):
    for i, a in enumerate(tree_leaves(args)):
        if isinstance(a, Tensor) and a.is_complex():
            what = "inputs" if is_input else "outputs"
            raise RuntimeError(f"{name}: Expected all {what} to be real but received complex "
                               f"tensor at flattened input idx: {i}")


def _basis(tensors):
    """The standard basis of the flattened, concatenated ``tensors``: for the
    k-th element overall, one tensor per input holding a one there (zeros
    elsewhere), each with its input's shape and dtype."""
    numels = [t.numel() for t in tensors]
    for k, t in enumerate(tensors):
        if numels[k] == 0:
            continue
        rows = eye(numels[k], dtype=t.dtype)
        for j in range(numels[k]):
            yield [rows[j].view(t.shape) if m == k else zeros(s.shape, dtype=s.dtype)
                   for m, s in enumerate(tensors)]


def _stack_rows(rows, like):
    """``rows`` (one per basis vector) stacked on a new first dimension; an
    empty basis gives an empty tensor of shape ``(0, *like.shape)``."""
    if rows:
        return stack(rows)
    return zeros((0,) + tuple(like.shape), dtype=like.dtype)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """The function computing the Jacobian of ``func`` with respect to the
    arguments at ``argnums`` by reverse mode: one vector-Jacobian product per
    output element, all on one recorded forward pass.  For an output of shape
    ``O`` and an input of shape ``I`` the Jacobian has shape ``O + I``; pytrees
    of outputs and inputs give the same nesting of Jacobians (outputs outside,
    inputs inside; a tuple ``argnums`` gives a tuple).  ``chunk_size`` (a
    positive int or None) bounds how many products PyTorch batches at once;
    tensorplay computes them one by one whatever its value.

    >>> x = tensorplay.tensor([1., 2.])
    >>> jacrev(lambda x: x ** 2)(x)
    tensor([[2., 0.],
            [0., 4.]])
    """
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        _error_if_complex("jacrev", args, True)
        res = _vjp(func, args, argnums, has_aux)
        output, vjp_fn = res[0], res[1]
        flat_out, out_spec = tree_flatten(output)
        _error_if_complex("jacrev", flat_out, False)
        flat_p, p_spec = tree_flatten(_slice_argnums(args, argnums))
        # rows[i][p]: the gradient of output element i w.r.t. primal p
        rows = [tree_leaves(vjp_fn(tree_unflatten(b, out_spec))) for b in _basis(flat_out)]
        per_out = []
        for k, o in enumerate(flat_out):
            start = sum(t.numel() for t in flat_out[:k])
            jac = []
            for m, p in enumerate(flat_p):
                block = _stack_rows([r[m] for r in rows[start:start + o.numel()]], p)
                jac.append(block.view(tuple(o.shape) + tuple(p.shape)))
            jac = tree_unflatten(jac, p_spec)
            per_out.append(jac[0] if isinstance(argnums, int) else jac)
        result = tree_unflatten(per_out, out_spec)
        return (result, res[2]) if has_aux else result
    return wrapper


_RANDOMNESS = ("error", "different", "same")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The function computing the Jacobian of ``func`` with respect to the
    arguments at ``argnums`` by forward mode: one Jacobian-vector product per
    input element.  Shapes and nesting as ``jacrev``'s.

    ``randomness`` says what random draws inside ``func`` may do across the
    products: ``"error"`` (default) refuses them, ``"same"`` gives every
    product the same draws, ``"different"`` lets each draw anew.  (tensorplay
    sees draws from the default generator only.)

    >>> x = tensorplay.tensor([1., 2.])
    >>> jacfwd(lambda x: x.sin().sum())(x)
    tensor([ 0.5403, -0.4161])
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")

    @functools.wraps(func)
    def wrapper(*args):
        _error_if_complex("jacfwd", args, True)
        flat_p, p_spec = tree_flatten(_slice_argnums(args, argnums))
        cols, aux, out_spec, flat_out = [], None, None, None
        for b in _basis(flat_p):
            rng = _random.get_rng_state()
            res = _jvp(func, args, tree_unflatten(b, p_spec), argnums, False, has_aux)
            after = _random.get_rng_state()
            if randomness == "same":
                _random.set_rng_state(rng)
            elif randomness == "error" and not bool((rng == after).all()):
                raise RuntimeError("vmap: called random operation while in randomness error mode. "
                                   "Please either use the 'same' or 'different' randomness flags "
                                   "on vmap or perform the randomness operation out of vmap")
            if out_spec is None:
                flat_out, out_spec = tree_flatten(res[0])
                _error_if_complex("jacfwd", flat_out, False)
                if has_aux:
                    aux = res[2]
            cols.append(tree_leaves(res[1]))
        if out_spec is None:            # no input elements: f still runs once, for the output
            res = _jvp(func, args, tree_unflatten(list(flat_p), p_spec), argnums, False, has_aux)
            flat_out, out_spec = tree_flatten(res[0])
            aux = res[2] if has_aux else None
        per_out = []
        for k, o in enumerate(flat_out):
            col = _stack_rows([c[k] for c in cols], o)        # (inputs, *o.shape)
            col = col.movedim(0, -1) if col.dim() > 1 else col
            jac, start = [], 0
            for p in flat_p:
                n = p.numel()
                part = col[..., start:start + n]
                start += n
                jac.append(part.reshape(tuple(o.shape) + tuple(p.shape)))
            jac = tree_unflatten(jac, p_spec)
            per_out.append(jac[0] if isinstance(argnums, int) else jac)
        result = tree_unflatten(per_out, out_spec)
        return (result, aux) if has_aux else result
    return wrapper


def hessian(func, argnums=0):
    """The Hessian of ``func`` with respect to the arguments at ``argnums``:
    ``jacfwd(jacrev(func, argnums), argnums)`` (forward over reverse).

    >>> x = tensorplay.tensor([1., 2.])
    >>> hessian(lambda x: (x ** 3).sum())(x)
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)
