"""Higher-level derivatives of functions: ``vjp``, ``jvp``, ``jacobian``,
``hessian``, ``vhp``, ``hvp`` (``torch.autograd.functional``).

All are built on ``autograd.grad``; ``jvp`` uses the double-vjp trick (the
vjp is linear in its cotangent ``u``, so differentiating ``u -> vjp(u)``
against ``v`` gives ``J v``).
"""
import contextlib

from .._autograd.grad_mode import enable_grad
from .._creation import zeros, zeros_like
from .._tensor import Tensor
from ..ops.shape import stack
from ._backward import grad as _grad


def _as_tuple(x, name, fn_name):
    """(whether ``x`` was a tuple, ``x`` as a tuple of Tensors); a list is refused, as in
    PyTorch."""
    if isinstance(x, Tensor):
        return False, (x,)
    if not isinstance(x, tuple):
        raise TypeError(f"The {name} given to {fn_name} must be either a Tensor or a tuple of "
                        f"Tensors but the given {name} has type {type(x)}.")
    for i, t in enumerate(x):
        if not isinstance(t, Tensor):
            raise TypeError(f"The {name} given to {fn_name} must be either a Tensor or a tuple of "
                            f"Tensors but the value at index {i} has type {type(t)}.")
    return True, x


def _check_requires_grad(xs, kind, strict):
    """PyTorch's strict-mode refusals for tensors that should depend on the inputs."""
    if not strict:
        return
    for i, x in enumerate(xs):
        if x is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input "
                               f"{i}. This is not allowed in strict mode.")
        if x.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is thrice differentiable and that the hessian depends on the "
                "inputs.")
        if kind == "grad_inputs":
            raise RuntimeError(f"The gradient with respect to input {i} is independent of the "
                               "inputs of the user-provided function. This is not allowed in "
                               "strict mode.")
        if kind == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided function "
                f"with respect to input {i} is independent of the input. This is not allowed in "
                "strict mode. You should ensure that your function is twice differentiable and "
                "that the jacobian depends on the inputs (this would be violated by a linear "
                "function for example).")
        raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. "
                           "The outputs must be computed in a differentiable manner from the input "
                           "when running in strict mode.")


def _unpack(is_tuple, xs):
    return xs if is_tuple else xs[0]


def _prep_inputs(inputs, create_graph, need_graph=True):
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))          # keep the link to the caller's graph
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(xs, create_graph):
    return tuple(x if x is None or create_graph else x.detach() for x in xs)


def _grads(outputs, inputs, grad_outputs=None, create_graph=False):
    """``autograd.grad`` over the outputs that require grad (None for every input
    when none does), unused inputs giving None."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad([o for o, _ in pairs], inputs, [g for _, g in pairs], create_graph=create_graph,
                 allow_unused=True)


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This "
                   "is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in "
                         "the grad_jacobian. This is not allowed in strict mode as it prevents from "
                         "using the double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Zeros for the inputs a result does not depend on, or PyTorch's strict-mode error."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input "
                               f"{i}. This is not allowed in strict mode when create_graph=True.")
        out.append(g)
    return tuple(out)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.shape != b.shape:
            prepend = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {b.shape} but got "
                               f"{a.shape}.")


def _vector(v, ref, is_ref_tuple, fn_name, create_graph, when_none):
    """The "v" of a vector product, checked against ``ref`` (ones where None is allowed)."""
    if v is None:
        if len(ref) != 1 or ref[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if {when_none}.")
        return None
    _, vs = _as_tuple(v, "v", fn_name)
    vs = _prep_inputs(vs, create_graph, need_graph=False)
    _validate_v(vs, ref, is_ref_tuple)
    return vs


def _single_output(outputs, is_tuple, fn_name):
    if is_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain "
                           "a single element")


def _grad_mode_for(create_graph):
    """Grad mode on for a backward that records (create_graph), else as it is."""
    return enable_grad() if create_graph else contextlib.nullcontext()


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), v^T J)."""
    with enable_grad():
        is_in_tuple, ins = _as_tuple(inputs, "inputs", "vjp")
        ins = _prep_inputs(ins, create_graph)
        outputs = func(*ins)
        is_out_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outs, "outputs", strict)
        vs = _vector(v, outs, is_out_tuple, "vjp", create_graph,
                     "the user-provided function returns a single Tensor with a single element")
    with _grad_mode_for(create_graph):
        res = _fill_in_zeros(_grads(outs, ins, vs, create_graph), ins, strict, create_graph, "back")
    return _unpack(is_out_tuple, _finish(outs, create_graph)), _unpack(is_in_tuple, _finish(res, create_graph))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), J v), by differentiating the vjp (the double-backward trick:
    the vjp is linear in its cotangent ``u``, so differentiating ``u -> vjp(u)``
    against ``v`` gives ``J v``)."""
    with enable_grad():
        is_in_tuple, ins = _as_tuple(inputs, "inputs", "jvp")
        ins = _prep_inputs(ins, create_graph)
        vs = _vector(v, ins, is_in_tuple, "jvp", create_graph,
                     "the input to the user-provided function is a single Tensor with a single "
                     "element")
        outputs = func(*ins)
        is_out_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outs, "outputs", strict)
        us = tuple(zeros_like(o).requires_grad_(True) for o in outs)
        grad_inputs = _grads(outs, ins, us, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with _grad_mode_for(create_graph):
        res = _fill_in_zeros(_grads(grad_inputs, us, vs, create_graph), outs, strict, create_graph,
                             "back_trick")
    return _unpack(is_out_tuple, _finish(outs, create_graph)), _unpack(is_out_tuple, _finish(res, create_graph))


_STRATEGY = ('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
             'Otherwise, prefer to use "reverse-mode".')


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian: for one output and one input, a tensor of shape
    ``output.shape + input.shape``; tuples of tuples ``[output][input]`` otherwise.

    ``vectorize=True`` computes it through ``vmap``: with ``"reverse-mode"``
    one backward pass for every output element at once (``autograd.grad``
    with ``is_grads_batched``), with ``"forward-mode"`` (which needs it) one
    forward pass for every input element at once."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(_STRATEGY)
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("tensorplay.autograd.functional.jacobian: `create_graph=True` "
                                      'and `strategy="forward-mode"` are not supported together '
                                      "(yet). Please either set `create_graph=False` or "
                                      '`strategy="reverse-mode"`.')
        return _jacfwd(func, inputs, strict, vectorize)
    with enable_grad():
        is_in_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
        ins = _prep_inputs(ins, create_graph)
        outputs = func(*ins)
        is_out_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outs, "outputs", strict)
        if vectorize:
            if strict:
                raise RuntimeError("tensorplay.autograd.functional.jacobian: `strict=True` and "
                                   "`vectorized=True` are not supported together. Please either set "
                                   "`strict=False` or `vectorize=False`.")
            return _unpack(is_out_tuple, tuple(
                _unpack(is_in_tuple, per_in) for per_in in _jacrev_vectorized(outs, ins,
                                                                               create_graph)))
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
                    if g is not None and strict and create_graph and not g.requires_grad:
                        raise RuntimeError(f"The jacobian of the user-provided function is "
                                           f"independent of input {len(result)}. This is not "
                                           "allowed in strict mode when create_graph=True.")
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


def _jacrev_vectorized(outs, ins, create_graph):
    """Per output, per input, the Jacobian block: one ``autograd.grad`` with the
    rows of the identity as a batch of cotangents (vmap over them)."""
    from ..func._jac import _basis_chunks
    numels = [o.numel() for o in outs]
    total = sum(numels)
    diff = [(o.reshape(-1), b.reshape(total, -1)) for o, b in zip(outs, next(_basis_chunks(outs)))
            if o.requires_grad] if total else []
    got = _grad([o for o, _ in diff], ins, [b for _, b in diff], create_graph=create_graph,
                allow_unused=True, is_grads_batched=True) if diff else (None,) * len(ins)
    got = [zeros((total,) + tuple(x.shape), dtype=x.dtype) if g is None else g
           for g, x in zip(got, ins)]
    result, start = [], 0
    for o, n in zip(outs, numels):
        per_in = tuple(g[start:start + n].reshape(tuple(o.shape) + tuple(x.shape))
                       for g, x in zip(got, ins))
        start += n
        result.append(_finish(per_in, create_graph))
    return result


def _jacfwd(func, inputs, strict, vectorize):
    """``jacobian(strategy="forward-mode")``: ``vmap`` of the Jacobian-vector
    product over the inputs' standard basis (``tensorplay.func.jacfwd``)."""
    if strict:
        raise RuntimeError("tensorplay.autograd.functional.jacobian: `strict=True` and "
                           '`strategy="forward-mode"` are not supported together (yet). Please '
                           'either set `strict=False` or `strategy="reverse-mode"`.')
    is_in_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian is only implemented for `vectorize=True`.")
    from ..func._jac import jacfwd
    is_out = []

    def as_tuple(*xs):
        is_tuple, outs = _as_tuple(func(*xs), "outputs of the user-provided function", "jacobian")
        is_out.append(is_tuple)
        return outs
    try:
        jac = jacfwd(as_tuple, argnums=tuple(range(len(ins))))(*ins)
    except RuntimeError as e:
        # a custom Function with a jvp but no vmap rule: PyTorch's legacy vmap
        # batches through its forward and jvp; here, one forward-mode pass per
        # column of the basis
        if "does not have vmap support" not in str(e):
            raise
        del is_out[:]
        jac = _jacfwd_loop(as_tuple, ins)
    # PyTorch's containers: lists for several outputs (it builds them so)
    if is_out[0]:
        return [list(per_in) if is_in_tuple else per_in[0] for per_in in jac]
    return list(jac[0]) if is_in_tuple else jac[0][0]


def _jacfwd_loop(as_tuple, ins):
    """``jacfwd``'s result (per output, per input: output shape + input shape),
    by one forward-mode pass per element of each input."""
    from . import forward_ad as fwad
    outs = None
    cols = []                       # per input: per element, the tuple of output tangents
    for k, x in enumerate(ins):
        per = []
        for j in range(x.numel()):
            tangents = [zeros_like(a) for a in ins]
            tangents[k].view(-1)[j] = 1
            with fwad.dual_level():
                outs = as_tuple(*[fwad.make_dual(a, t) for a, t in zip(ins, tangents)])
                unpacked = [fwad.unpack_dual(o) for o in outs]
                outs = tuple(u.primal for u in unpacked)
                touts = tuple(zeros_like(u.primal) if u.tangent is None else u.tangent
                              for u in unpacked)
            per.append(touts)
        cols.append(per)
    if outs is None:
        outs = as_tuple(*ins)
    jac = []
    for o_i, o in enumerate(outs):
        row = []
        for k, x in enumerate(ins):
            if cols[k]:
                col = stack([c[o_i] for c in cols[k]], -1)
                row.append(col.reshape(tuple(o.shape) + tuple(x.shape)))
            else:
                row.append(o.new_zeros(tuple(o.shape) + tuple(x.shape)))
        jac.append(tuple(row))
    return tuple(jac)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function (the Jacobian of its gradient);
    ``outer_jacobian_strategy="forward-mode"`` (with ``vectorize=True``) takes
    that Jacobian by forward mode: forward over reverse."""
    is_in_tuple, ins = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*xs):
        out = func(*xs)
        is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if is_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def grad_fn(*xs):
        if outer_jacobian_strategy == "forward-mode":
            # the inner, reverse-mode jacobian keeps the graph of inputs that require grad
            xs = tuple(x.requires_grad_(True) for x in xs)
        jac = jacobian(single_output, xs, create_graph=True)
        _check_requires_grad(jac if isinstance(jac, tuple) else (jac,), "jacobian", strict)
        return jac
    res = jacobian(grad_fn, ins, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    if not is_in_tuple:
        return res[0][0] if isinstance(res, (tuple, list)) and isinstance(res[0], (tuple, list)) \
            else res
    return res


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), v^T H)."""
    with enable_grad():
        is_in_tuple, ins, outs, jac, vs = _hessian_start(func, inputs, v, create_graph, strict,
                                                           "vhp")
    with _grad_mode_for(create_graph):
        res = _fill_in_zeros(_grads(jac, ins, vs, create_graph), ins, strict, create_graph,
                             "double_back")
    return _finish(outs, create_graph)[0], _unpack(is_in_tuple, _finish(res, create_graph))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), H v), by the double-backward trick on the vhp."""
    with enable_grad():
        is_in_tuple, ins, outs, jac, vs = _hessian_start(func, inputs, v, create_graph, strict,
                                                           "hvp")
        grad_jac = tuple(zeros_like(x).requires_grad_(True) for x in ins)
        double_back = _grads(jac, ins, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with _grad_mode_for(create_graph):
        res = _fill_in_zeros(_grads(double_back, grad_jac, vs, create_graph), ins, strict,
                             create_graph, "double_back_trick")
    return _finish(outs, create_graph)[0], _unpack(is_in_tuple, _finish(res, create_graph))


def _hessian_start(func, inputs, v, create_graph, strict, name):
    """What vhp and hvp share: the checked inputs and v, the output, its gradient."""
    is_in_tuple, ins = _as_tuple(inputs, "inputs", name)
    ins = _prep_inputs(ins, create_graph)
    vs = _vector(v, ins, is_in_tuple, name, create_graph,
                 "the input to the user-provided function is a single Tensor with a single element")
    outputs = func(*ins)
    is_out_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outs, "outputs", strict)
    _single_output(outs, is_out_tuple, name)
    jac = _grads(outs, ins, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return is_in_tuple, ins, outs, jac, vs
