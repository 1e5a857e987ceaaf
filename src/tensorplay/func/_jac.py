"""Jacobians and Hessians from the transforms, computed through ``vmap``:

- ``jacrev``: one recorded forward pass (``vjp``), then ``vmap`` of the
  ``vjp_fn`` over the rows of the identity (the standard basis of the
  outputs): one backward pass whose vjps run on the whole basis at once,
  each op's batching rule turning ``n`` vector-Jacobian products into one
  product with a matrix.  ``chunk_size`` bounds how many rows one ``vmap``
  carries (``1``: a loop of plain ``vjp_fn`` calls, no ``vmap``, as PyTorch);
- ``jacfwd``: ``vmap`` of ``jvp`` over the standard basis of the inputs: one
  forward pass carrying every tangent direction at once;
- ``hessian``: ``jacfwd(jacrev(func))``, forward over reverse.

Semantics, shapes and messages follow PyTorch 2.x ``torch.func``.
"""
import functools

import numpy as np

from .._creation import zeros
from .._tensor import Tensor, _wrap
from ..ops.shape import cat
from ._eager import _jvp, _slice_argnums, _vjp
from ._pytree import tree_flatten, tree_leaves, tree_unflatten
from ._vmap import vmap


def _error_if_complex(name, args, is_input):
    for i, a in enumerate(tree_leaves(args)):
        if isinstance(a, Tensor) and a.is_complex():
            what = "inputs" if is_input else "outputs"
            raise RuntimeError(f"{name}: Expected all {what} to be real but received complex "
                               f"tensor at flattened input idx: {i}")


def _basis_chunks(tensors, chunk_size=None):
    """The standard basis of the flattened, concatenated ``tensors``, in chunks
    of at most ``chunk_size`` vectors: per chunk, one tensor per input of shape
    ``(rows, *input.shape)`` whose row ``i`` is basis vector ``first + i``
    restricted to that input (a one where that vector's element lies in this
    input, zeros elsewhere).  Only one chunk is in memory at a time."""
    numels = [t.numel() for t in tensors]
    total = sum(numels)
    step = total if chunk_size is None or chunk_size >= total else chunk_size
    starts = [sum(numels[:k]) for k in range(len(numels))]
    for first in range(0, total, max(step, 1)):
        rows = min(step, total - first)
        # row i has its one at column first + i - s: the diagonal first - s
        yield [_wrap(np.eye(rows, n, first - s, dtype=t._data.dtype).reshape((rows,) + tuple(t.shape)))
               for t, n, s in zip(tensors, numels, starts)]


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """The function computing the Jacobian of ``func`` with respect to the
    arguments at ``argnums`` by reverse mode: one recorded forward pass, then
    the vector-Jacobian products of every output element at once (``vmap`` of
    the ``vjp`` over the identity).  For an output of shape ``O`` and an input
    of shape ``I`` the Jacobian has shape ``O + I``; pytrees of outputs and
    inputs give the same nesting of Jacobians (outputs outside, inputs inside;
    a tuple ``argnums`` gives a tuple).  ``chunk_size`` (a positive int or
    None) bounds how many products run at once, trading speed for memory;
    ``chunk_size=1`` runs them one by one without ``vmap``.

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

        def vjp_rows(*basis):
            return tree_leaves(vjp_fn(tree_unflatten(list(basis), out_spec)))

        parts = []          # per chunk, per primal: (rows, *primal.shape)
        for basis in _basis_chunks(flat_out, chunk_size):
            if chunk_size == 1:
                parts.append([g.unsqueeze(0) for g in vjp_rows(*[b[0] for b in basis])])
            else:
                parts.append(vmap(vjp_rows)(*basis))
        if not parts:       # no output elements
            rows = [zeros((0,) + tuple(p.shape), dtype=p.dtype) for p in flat_p]
        elif len(parts) == 1:
            rows = parts[0]
        else:
            rows = [cat([c[m] for c in parts], 0) for m in range(len(flat_p))]
        per_out, start = [], 0
        for o in flat_out:
            n = o.numel()
            jac = [r[start:start + n].reshape(tuple(o.shape) + tuple(p.shape))
                   for r, p in zip(rows, flat_p)]
            start += n
            jac = tree_unflatten(jac, p_spec)
            per_out.append(jac[0] if isinstance(argnums, int) else jac)
        result = tree_unflatten(per_out, out_spec)
        return (result, res[2]) if has_aux else result
    return wrapper


_RANDOMNESS = ("error", "different", "same")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The function computing the Jacobian of ``func`` with respect to the
    arguments at ``argnums`` by forward mode: ``vmap`` of the Jacobian-vector
    product over the standard basis of the inputs, one forward pass carrying
    every direction.  Shapes and nesting as ``jacrev``'s.

    ``randomness`` is ``vmap``'s: what random draws inside ``func`` may do
    across the directions: ``"error"`` (default) refuses them, ``"same"``
    gives every direction the same draws, ``"different"`` its own.

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
        numels = [p.numel() for p in flat_p]

        def push_jvp(*basis):
            res = _jvp(func, args, tree_unflatten(list(basis), p_spec), argnums, False, has_aux)
            _error_if_complex("jacfwd", res[0], False)
            return (res[1], res[2]) if has_aux else res[1]

        if sum(numels) == 0:     # no input elements: f still runs once, for the output's shape
            res = _jvp(func, args, tree_unflatten(list(flat_p), p_spec), argnums, False, has_aux)
            _error_if_complex("jacfwd", res[0], False)
            flat_out, out_spec = tree_flatten(res[0])
            cols = [zeros((0,) + tuple(o.shape), dtype=o.dtype) for o in flat_out]
            aux = res[2] if has_aux else None
        else:
            basis = next(_basis_chunks(flat_p))
            results = vmap(push_jvp, randomness=randomness)(*basis)
            aux = None
            if has_aux:
                results, aux = results
                flat_aux, aux_spec = tree_flatten(aux)
                aux = tree_unflatten([a[0] for a in flat_aux], aux_spec)
            cols, out_spec = tree_flatten(results)      # per output: (inputs, *o.shape)
        per_out = []
        for col in cols:
            col = col.movedim(0, -1)
            jac, start = [], 0
            for p, n in zip(flat_p, numels):
                part = col[..., start:start + n]
                start += n
                jac.append(part.reshape(tuple(col.shape[:-1]) + tuple(p.shape)))
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
