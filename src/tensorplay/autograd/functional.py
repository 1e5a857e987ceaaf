"""Higher-level derivatives of functions: ``vjp``, ``jvp``, ``jacobian``,
``hessian``, ``vhp``, ``hvp`` (``torch.autograd.functional``).

All are built on ``autograd.grad``; ``jvp`` uses the double-vjp trick (the
vjp is linear in its cotangent ``u``, so differentiating ``u -> vjp(u)``
against ``v`` gives ``J v``).
"""
from .._autograd.grad_mode import enable_grad
from .._creation import ones_like, zeros, zeros_like
from .._tensor import Tensor
from ..ops.shape import stack
from ._backward import grad as _grad


def _as_tuple(x, name, fn_name):
    if isinstance(x, Tensor):
        return False, (x,)
    if not isinstance(x, (tuple, list)):
        raise TypeError(f"The {name} given to {fn_name} must be either a Tensor or a tuple of "
                        f"Tensors but the given {name} has type {type(x).__name__}.")
    for i, t in enumerate(x):
        if not isinstance(t, Tensor):
            raise TypeError(f"The {name} given to {fn_name} must be either a Tensor or a tuple of "
                            f"Tensors but the value at index {i} has type {type(t).__name__}.")
    return True, tuple(x)


def _unpack(is_tuple, xs):
    return xs if is_tuple else xs[0]


def _prep_inputs(inputs, create_graph):
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))          # keep the link to the caller's graph
        else:
            out.append(t.detach().requires_grad_(True))
    return tuple(out)


def _finish(xs, create_graph):
    return tuple(x if x is None or create_graph else x.detach() for x in xs)


def _fill_unused(grads, inputs, strict, what):
    out = []
    for i, (g, x) in enumerate(zip(grads, inputs)):
        if g is None:
            if strict:
                raise RuntimeError(f"The output of the user-provided function is independent of "
                                   f"input {i}. This is not allowed in strict mode.")
            g = zeros_like(x)
        out.append(g)
    return tuple(out)


def _check_v(v, ref, fn_name, what="outputs"):
    for i, (a, b) in enumerate(zip(v, ref)):
        if a.shape != b.shape:
            raise RuntimeError(f"Mismatch in size for v at index {i}: got {tuple(a.shape)} but "
                               f"expected {tuple(b.shape)}.")
    if len(v) != len(ref):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(ref)} but got {len(v)}.")


def _vector(v, ref, fn_name, when_none):
    """The "v" of a vector product: checked against ``ref``, or ones when None is allowed."""
    if v is None:
        if any(t.numel() != 1 for t in ref):
            raise RuntimeError(f"The vector v can only be None if {when_none}.")
        return tuple(ones_like(t) for t in ref)
    _, vs = _as_tuple(v, "v", fn_name)
    _check_v(vs, ref, fn_name)
    return vs


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), v^T J)."""
    with enable_grad():
        is_in_tuple, ins = _as_tuple(inputs, "inputs", "vjp")
        ins = _prep_inputs(ins, create_graph)
        outputs = func(*ins)
        is_out_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        vs = _vector(v, outs, "vjp", "the user-provided function returns a single Tensor with "
                                   "a single element")
        diff = [(o, u) for o, u in zip(outs, vs) if o.requires_grad]
        if diff:
            gs = _grad([o for o, _ in diff], ins, [u for _, u in diff], create_graph=create_graph,
                       allow_unused=True)
        else:
            gs = (None,) * len(ins)
        gs = _fill_unused(gs, ins, strict, "vjp")
    return _unpack(is_out_tuple, _finish(outs, create_graph)), _unpack(is_in_tuple, _finish(gs, create_graph))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), J v), by differentiating the vjp."""
    with enable_grad():
        is_in_tuple, ins = _as_tuple(inputs, "inputs", "jvp")
        ins = _prep_inputs(ins, create_graph)
        vs = _vector(v, ins, "jvp", "the input to the user-provided function is a single "
                                   "Tensor with a single element")
        outputs = func(*ins)
        is_out_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        us = tuple(zeros_like(o).requires_grad_(True) for o in outs)
        diff = [(o, u) for o, u in zip(outs, us) if o.requires_grad]
        if not diff:
            res = tuple(zeros_like(o) for o in outs)
        else:
            gs = _grad([o for o, _ in diff], ins, [u for _, u in diff], create_graph=True,
                       allow_unused=True)
            pairs = [(g, w) for g, w in zip(gs, vs) if g is not None and g.requires_grad]
            if pairs:
                res = _grad([g for g, _ in pairs], us, [w for _, w in pairs],
                            create_graph=create_graph, allow_unused=True)
            else:
                res = (None,) * len(us)
            res = _fill_unused(res, outs, strict, "jvp")
    return _unpack(is_out_tuple, _finish(outs, create_graph)), _unpack(is_out_tuple, _finish(res, create_graph))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian: for one output and one input, a tensor of shape
    ``output.shape + input.shape``; tuples of tuples ``[output][input]`` otherwise."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: '
                         'If your function has more outputs than inputs, "forward-mode" tends to '
                         'be more performant. Otherwise, prefer to use "reverse-mode".')
    with enable_grad():
        is_in_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
        ins = _prep_inputs(ins, create_graph)
        outputs = func(*ins)
        is_out_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        result = []
        for o in outs:
            rows = [[] for _ in ins]
            flat = o.reshape(-1)
            for j in range(flat.numel()):
                if o.requires_grad:
                    gs = _grad(flat[j], ins, retain_graph=True, create_graph=create_graph,
                               allow_unused=True)
                else:
                    gs = (None,) * len(ins)
                for k, (g, x) in enumerate(zip(gs, ins)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {len(result)} of the user-provided function "
                                               f"is independent of input {k}. This is not allowed "
                                               "in strict mode.")
                        g = zeros_like(x)
                    rows[k].append(g)
            per_in = []
            for k, x in enumerate(ins):
                if rows[k]:
                    jk = stack(rows[k]).reshape(tuple(o.shape) + tuple(x.shape))
                else:
                    jk = zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype)
                per_in.append(jk if create_graph else jk.detach())
            result.append(_unpack(is_in_tuple, tuple(per_in)))
    return _unpack(is_out_tuple, tuple(result))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function (the Jacobian of its gradient)."""
    is_in_tuple, ins = _as_tuple(inputs, "inputs", "hessian")

    def grad_fn(*xs):
        out = func(*xs)
        _, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor "
                               "containing a single element")
        return jacobian(func, xs, create_graph=True, strict=strict)
    res = jacobian(grad_fn, ins, create_graph=create_graph, strict=strict)
    if not is_in_tuple:
        return res[0][0] if isinstance(res, tuple) and isinstance(res[0], tuple) else res
    return res


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), v^T H)."""
    return _hvp_like(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), H v); H is symmetric, so this is v^T H transposed."""
    return _hvp_like(func, inputs, v, create_graph, strict, "hvp")


def _hvp_like(func, inputs, v, create_graph, strict, name):
    with enable_grad():
        is_in_tuple, ins = _as_tuple(inputs, "inputs", name)
        ins = _prep_inputs(ins, create_graph)
        vs = _vector(v, ins, name, "the input to the user-provided function is a single "
                                   "Tensor with a single element")
        out = func(*ins)
        _, outs = _as_tuple(out, "outputs of the user-provided function", name)
        if len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError(f"The function given to {name} should return a single Tensor "
                               "containing a single element")
        o = outs[0]
        if o.requires_grad:
            gs = _grad(o, ins, create_graph=True, allow_unused=True)
        else:
            gs = (None,) * len(ins)
        pairs = [(g, w) for g, w in zip(gs, vs) if g is not None and g.requires_grad]
        if pairs:
            res = _grad([g for g, _ in pairs], ins, [w for _, w in pairs],
                        create_graph=create_graph, allow_unused=True)
        else:
            res = (None,) * len(ins)
        res = _fill_unused(res, ins, strict, name)
    return _finish((o,), create_graph)[0], _unpack(is_in_tuple, _finish(res, create_graph))
