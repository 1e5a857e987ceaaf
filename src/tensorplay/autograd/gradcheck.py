"""Check analytical gradients against finite differences (PyTorch's gradcheck).

Layout and conventions follow PyTorch's, so that outcomes and messages match:

- A Jacobian block for (differentiable input ``x``, output ``y``) is a matrix of
  shape ``(x.numel(), y.numel())``: row ``k`` is how ``y`` moves when element
  ``k`` of ``x`` moves.  Numerically, by central differences with step
  ``eps``; analytically, column ``j`` is the vector-Jacobian product with the
  one-hot ``grad_output`` ``e_j``.
- Complex inputs: row ``k`` is ``dy/dRe(x_k) + 1j * dy/dIm(x_k)`` (the
  gradient convention of PyTorch, i.e. of ``backward``).
- Complex outputs: the function is checked twice, as the real-output functions
  ``imag(f)`` and then ``real(f)``; the message then says "While considering
  the imaginary (real) part of complex outputs only, ...".
- Output and input indices in messages count differentiable outputs (those
  requiring grad) and differentiable inputs (tensors requiring grad).

``fast_mode=True`` compares the scalars ``v^T J u`` for random non-negative
unit vectors ``u`` (per input) and ``v`` (per output) instead of whole
Jacobians: ``J u`` by one central difference along ``u``, ``v^T J`` by one
backward pass; a mismatch is re-examined in slow mode for the message.
"""
import os
import sys
import warnings

import numpy as np

from .. import _creation
from .._autograd.graph import Node
from .._tensor import Tensor, _wrap
from ..ops import core
from ..ops.shape import stack
from ._backward import grad as _grad


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` and :func:`gradgradcheck` when a check fails."""


_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _user_stacklevel():
    """warnings stacklevel of the innermost frame outside tensorplay."""
    f, level = sys._getframe(2), 2
    while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
        f, level = f.f_back, level + 1
    return level


# ------------------------------------------------------------------ helpers
def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_tensor(x):
    return isinstance(x, Tensor)


def _tensor_outputs(out):
    return tuple(o for o in _as_tuple(out) if _is_tensor(o))


def _differentiable_outputs(out):
    return tuple(o for o in _tensor_outputs(out) if o.requires_grad)


def _is_float(t):
    return t._data.dtype.kind in "fcV"


def _diff_inputs(inputs):
    return [(i, x) for i, x in enumerate(inputs) if _is_tensor(x) and x.requires_grad]


def _arr(a):
    """A numpy array as a tensorplay tensor, for messages (printed as PyTorch prints)."""
    return _wrap(np.asarray(a))


def _common(a, b):
    c = np.iscomplexobj(a) or np.iscomplexobj(b)
    dt = np.complex128 if c else np.float64
    return np.asarray(a).astype(dt), np.asarray(b).astype(dt)


def _allclose(a, n, rtol, atol):
    a, n = _common(a, n)
    return bool(np.allclose(a, n, rtol=rtol, atol=atol))


def _numpy_grad_output(o, values):
    return _wrap(np.asarray(values).astype(o._data.dtype).reshape(o._data.shape))


# ------------------------------------------------------------------ numerical side
class _Perturbed:
    """While active, ``x`` reads a private contiguous copy of its data whose flat
    view can be written: the function sees the perturbed values through the very
    tensor it was given (so gradgradcheck's inner ``grad`` still works)."""

    def __init__(self, x):
        self.x = x

    def __enter__(self):
        self.orig = self.x._data
        buf = np.array(self.orig, copy=True, order="C")
        self.x._data = buf
        return buf.reshape(-1)

    def __exit__(self, *exc):
        self.x._data = self.orig


def _evaluate(fn, inputs):
    """Copies of the data of fn's tensor outputs (None for non-float ones)."""
    return [np.array(o._data, copy=True) if _is_float(o) else None
            for o in _tensor_outputs(fn(*inputs))]


def _same_kind(a, b, eps, idx=None):
    on = f"on index {idx} " if idx is not None else ""
    if a.shape != b.shape:
        raise AssertionError(f"Expected `func` to return outputs with the same shape when inputs "
                             f"are perturbed {on}by {eps}, but got: shapes {list(a.shape)} and "
                             f"{list(b.shape)}.")
    if a.dtype != b.dtype:
        raise AssertionError(f"Expected `func` to return outputs with the same dtype when inputs "
                             f"are perturbed {on}by {eps}, but got: dtypes {a.dtype} and {b.dtype}.")


def _central(fn, inputs, flat, where, delta, eps, idx=None, complex_out=False):
    """(f(x + delta) - f(x - delta)) / (2 eps) per output, ``delta`` added to
    ``flat[where]`` (``where`` an index or a full slice).  Complex outputs only
    for forward mode (``complex_out``): the derivative along a real input."""
    orig = flat[where].copy()
    flat[where] = orig - delta
    a = _evaluate(fn, inputs)
    flat[where] = orig + delta
    b = _evaluate(fn, inputs)
    flat[where] = orig
    out = []
    for p, q in zip(a, b):
        if p is None:
            out.append(None)
            continue
        _same_kind(p, q, eps, idx)
        if p.dtype.kind == "c" and not complex_out:
            raise AssertionError("Expected output to be non-complex (complex outputs are checked "
                                 "through their real and imaginary parts)")
        out.append(((q - p) / (2 * eps)).reshape(-1))
    return out


def _jvp_along(fn, inputs, x, u, eps, complex_out=False):
    """Numerical ``J u`` per output for input ``x`` along direction ``u`` (for a
    complex input ``u = (ur, ui)``: ``J_re ur + 1j J_im ui``)."""
    with _Perturbed(x) as flat:
        if x.is_complex():
            dx = _central(fn, inputs, flat, slice(None), u[0] * eps, eps)
            dy = _central(fn, inputs, flat, slice(None), u[1] * eps * 1j, eps)
            return [None if p is None else p + q * 1j for p, q in zip(dx, dy)]
        return _central(fn, inputs, flat, slice(None), (u * eps).astype(flat.dtype), eps,
                        complex_out=complex_out)


def _numerical_jacobians(fn, inputs, out_data, eps, targets=None, complex_out=False):
    """For each differentiable input (or each of ``targets``), the list over fn's
    tensor outputs of the Jacobian block (None for a non-float output)."""
    result = []
    for _, x in _diff_inputs(inputs if targets is None else targets):
        n = x.numel()
        cols = []
        with _Perturbed(x) as flat:
            for k in range(n):
                idx = tuple(int(i) for i in np.unravel_index(k, x._data.shape))
                col = _central(fn, inputs, flat, k, eps, eps, idx, complex_out)
                if x.is_complex():
                    col_y = _central(fn, inputs, flat, k, eps * 1j, eps, idx)
                    col = [None if p is None else p + q * 1j for p, q in zip(col, col_y)]
                cols.append(col)
        blocks = []
        for m, o in enumerate(out_data):
            if o is None:
                blocks.append(None)
                continue
            dt = np.result_type(o.dtype, np.complex64) if x.is_complex() else o.dtype
            if cols:
                blocks.append(np.stack([c[m] for c in cols]).astype(dt, copy=False))
            else:
                blocks.append(np.zeros((0, o.size), dt))
        result.append(blocks)
    return result


# ------------------------------------------------------------------ analytical side
def _vjp_columns(output, diff_inputs, grad_outputs):
    """One backward per grad_output: list per input of list of grads (np or None)."""
    cols = [[] for _ in diff_inputs]
    for go in grad_outputs:
        gs = _grad(output, diff_inputs, go, retain_graph=True, allow_unused=True)
        for i, g in enumerate(gs):
            cols[i].append(None if g is None else (np.array(g._data, copy=True), g.shape, g.dtype))
    return cols


def _stack_columns(cols, diff_inputs, n_cols):
    """Jacobian blocks ``(x.numel(), n_cols)``, and whether sizes and dtypes were right."""
    sizes_ok = types_ok = True
    blocks = []
    for x, col in zip(diff_inputs, cols):
        J = np.zeros((x.numel(), n_cols), x._data.dtype)
        for j, g in enumerate(col):
            if g is None:
                continue
            d, shape, dtype = g
            if shape != x.shape:
                sizes_ok = False
                continue
            if dtype != x.dtype:
                types_ok = False
            if J.dtype.kind != "c" and d.dtype.kind == "c":
                d = d.real
            J[:, j] = d.reshape(-1)
        blocks.append(J)
    return blocks, types_ok, sizes_ok


_NONDET_NOTE = ("\n\nNOTE: if the backward of your function is not deterministic, this failure "
                "may be expected: call gradcheck/gradgradcheck with `nondet_tol=<tol>`.")


def _analytical_blocks(output, diff_inputs, nondet_tol, check_grad_dtypes, grad_outputs):
    """Backward twice with each grad_output (checking reentrancy), then sizes/dtypes."""
    J1, types_ok, sizes_ok = _stack_columns(_vjp_columns(output, diff_inputs, grad_outputs),
                                            diff_inputs, len(grad_outputs))
    J2, _, _ = _stack_columns(_vjp_columns(output, diff_inputs, grad_outputs),
                              diff_inputs, len(grad_outputs))
    reentrant = all(a.size == 0 or np.abs(_common(a, b)[0] - _common(a, b)[1]).max() <= nondet_tol
                    for a, b in zip(J1, J2))
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError("Backward is not reentrant, i.e., running backward with same input and "
                             "grad_output multiple times gives different values, although analytical "
                             "gradient matches numerical gradient."
                             f"The tolerance for nondeterminism was {nondet_tol}." + _NONDET_NOTE)
    return J1


def _one_hots(o):
    n = o.numel()
    for j in range(n):
        e = np.zeros(n, o._data.dtype)
        e[j] = 1
        yield _numpy_grad_output(o, e)


def _analytical_jacobian(inputs, output, nondet_tol, check_grad_dtypes):
    diff = [x for _, x in _diff_inputs(inputs)]
    return _analytical_blocks(output, diff, nondet_tol, check_grad_dtypes, list(_one_hots(output)))


# ------------------------------------------------------------------ messages
def _notallclose_msg(a, n, out_idx, in_idx, complex_indices, test_imag, forward=False):
    prefix = ""
    if complex_indices and (in_idx if forward else out_idx) in complex_indices:
        prefix = (f"While considering the {'imaginary' if test_imag else 'real'} part of complex "
                  f"{'inputs' if forward else 'outputs'} only, ")
    mode = "computed with forward mode " if forward else ""
    return (prefix + f"Jacobian {mode}mismatch for output {out_idx:d} with respect to input "
            f"{in_idx:d},\nnumerical:{_arr(n)}\nanalytical:{_arr(a)}\n")


# ------------------------------------------------------------------ slow and fast checks
def _slow_check(fn, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol,
                complex_indices=None, test_imag=False):
    touts = _tensor_outputs(func_out)
    out_data = [np.asarray(o._data) if _is_float(o) else None for o in touts]
    numerical = _numerical_jacobians(fn, inputs, out_data, eps)
    if not outputs:
        for blocks in numerical:
            for J in blocks:
                if J is not None and np.count_nonzero(J) > 0:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    diff_pos = [m for m, o in enumerate(touts) if o.requires_grad]
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobian(inputs, o, nondet_tol, check_grad_dtypes)
        for j, a in enumerate(analytical):
            n = numerical[j][diff_pos[i]]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_notallclose_msg(a, n, i, j, complex_indices, test_imag))
    return True


def _unit_rand(rng, n, dtype):
    v = rng.random(n)
    norm = np.linalg.norm(v)
    if norm > 0:
        v = v / norm
    return v.astype(dtype)


def _make_vectors(diff_inputs, outputs):
    """Random non-negative unit vectors (a private generator: the user's random
    state is left alone, and every call draws the same vectors)."""
    rng = np.random.default_rng(0)
    all_u = []
    for x in diff_inputs:
        real_dt = np.real(np.zeros(0, x._data.dtype)).dtype
        ur = _unit_rand(rng, x.numel(), real_dt)
        all_u.append((ur, _unit_rand(rng, x.numel(), real_dt)) if x.is_complex() else ur)
    all_v = [_unit_rand(rng, o.numel(), o._data.dtype) for o in outputs]
    return all_u, all_v


def _adjusted_atol(atol, u, v):
    # |v^T (A - N) u| <= sum_ij v_i |A - N|_ij u_j <= atol * sum(u) * sum(v) for u, v >= 0
    # (forward mode compares J u itself: no v)
    su = float(u[0].sum() + u[1].sum()) if isinstance(u, tuple) else float(u.sum())
    return atol * su * (1.0 if v is None else float(v.sum()))


_FAST_SLOW_OK = ("\nFast gradcheck failed but element-wise differences are small: in slow mode "
                 "(fast_mode=False) this check would have passed.")


def _slow_details(fn, inputs, func_out, outputs, in_idx, out_idx, rtol, atol, eps):
    touts = _tensor_outputs(func_out)
    out_data = [np.asarray(o._data) if _is_float(o) else None for o in touts]
    diff_pos = [m for m, o in enumerate(touts) if o.requires_grad]
    n = _numerical_jacobians(fn, inputs, out_data, eps)[in_idx][diff_pos[out_idx]]
    a = _analytical_jacobian(inputs, outputs[out_idx], float("inf"), False)[in_idx]
    return _slow_mode_msg(a, n, rtol, atol)


def _slow_mode_msg(a, n, rtol, atol):
    ca, cn = _common(a, n)
    max_diff = np.abs(cn - ca).max() if ca.size else 0.0
    msg = ("\nThe above quantities relating the numerical and analytical jacobians are computed \n"
           "in fast mode (v^T J u for random vectors u and v). Below, we recompute numerical and "
           "analytical jacobians in slow mode:\n\n"
           f"Numerical:\n {_arr(n)}\nAnalytical:\n{_arr(a)}\n\n"
           f"The max per-element difference (slow mode) is: {_arr(max_diff)}.\n")
    if _allclose(a, n, rtol, atol):
        msg += _FAST_SLOW_OK
    return msg


def _fast_check(fn, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol,
                complex_indices=None, test_imag=False):
    diff = [x for _, x in _diff_inputs(inputs)]
    all_u, all_v = _make_vectors(diff, outputs)
    touts = _tensor_outputs(func_out)
    diff_pos = [m for m, o in enumerate(touts) if o.requires_grad]
    # numerical v^T (J u), per input, per differentiable output
    numerical = []
    for x, u in zip(diff, all_u):
        Ju = _jvp_along(fn, inputs, x, u, eps)
        if not outputs:
            for d in Ju:
                if d is not None and d.size and np.abs(d).max() > nondet_tol:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
            continue
        numerical.append([np.sum(v * Ju[diff_pos[j]]) for j, v in enumerate(all_v)])
    if not outputs:
        return True
    # analytical (v^T J) u, per output, per input
    analytical = []
    for o, v in zip(outputs, all_v):
        vJ = _analytical_blocks(o, diff, nondet_tol, check_grad_dtypes,
                                [_numpy_grad_output(o, v)])
        row = []
        for b, u in zip(vJ, all_u):
            b = b[:, 0]
            if np.iscomplexobj(b):
                row.append(np.dot(b.real, u[0]) + 1j * np.dot(b.imag, u[1]))
            else:
                row.append(np.dot(b, u))
        analytical.append(row)
    for i, per_out in enumerate(numerical):
        for j, n in enumerate(per_out):
            a = analytical[j][i]
            if not _allclose(a, n, rtol, _adjusted_atol(atol, all_u[i], all_v[j])):
                details = _slow_details(fn, inputs, func_out, outputs, i, j, rtol, atol, eps)
                raise GradcheckError(_notallclose_msg(a, n, j, i, complex_indices, test_imag)
                                     + details)
    return True


# ------------------------------------------------------------------ forward mode
def _output_positions(func_out):
    """Positions among fn's tensor outputs of those forward mode is checked on:
    the floating ones that require grad (as the backward checks')."""
    return [m for m, o in enumerate(_tensor_outputs(func_out)) if o.requires_grad]


def _fw_jacobian(fn, inputs, positions, check_grad_dtypes, all_u=None, only=None):
    """Jacobian blocks by forward mode: per differentiable input (or only input
    ``only``), per output position, an array ``(x.numel(), y.numel())`` whose
    row ``k`` is the tangent of ``y`` for the one-hot tangent ``e_k`` of ``x``;
    with ``all_u``, one row: the tangent for ``u`` (``J u``)."""
    from . import forward_ad as fwAD
    result = []
    diff = _diff_inputs(inputs)
    diff_idx = {i for i, _ in diff}
    with fwAD.dual_level():
        for n, (idx, x) in enumerate(diff):
            if only is not None and n != only:
                continue
            dt = x._data.dtype
            if all_u is not None:
                dirs = [all_u[n]]
            else:
                dirs = list(np.eye(x.numel(), dtype=dt)) if x.numel() else []
            rows = []
            for u in dirs:
                # every differentiable input a dual tensor, with a zero tangent but this one
                args = [fwAD.make_dual(a.detach(), _wrap(np.asarray(u, dt).reshape(x._data.shape))
                                       if i == idx else _creation.zeros_like(a))
                        if i in diff_idx else a for i, a in enumerate(inputs)]
                outs = _tensor_outputs(fn(*args))
                row = []
                for m in positions:
                    val, res = fwAD.unpack_dual(outs[m])
                    if check_grad_dtypes and res is not None and val.is_complex() != res.is_complex():
                        raise GradcheckError("Forward AD gradient has dtype mismatch.")
                    row.append(np.zeros(val._data.size, val._data.dtype) if res is None
                               else np.array(res._data).reshape(-1))
                rows.append(row)
            result.append([np.stack([r[j] for r in rows]) if rows
                           else np.zeros((0, _tensor_outputs(fn(*inputs))[m].numel()))
                           for j, m in enumerate(positions)])
    return result


def _no_outputs_check(numerical_blocks):
    for blocks in numerical_blocks:
        for J in blocks:
            if J is not None and np.count_nonzero(J) > 0:
                raise GradcheckError("Numerical gradient for function expected to be zero")
    return True


def _slow_check_fw(fn, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol,
                   complex_indices=None, test_imag=False):
    touts = _tensor_outputs(func_out)
    out_data = [np.asarray(o._data) if _is_float(o) else None for o in touts]
    numerical = _numerical_jacobians(fn, inputs, out_data, eps, complex_out=True)
    if not outputs:
        return _no_outputs_check(numerical)
    positions = _output_positions(func_out)
    analytical = _fw_jacobian(fn, inputs, positions, check_grad_dtypes)
    for j, per_out in enumerate(analytical):
        for i, a in enumerate(per_out):
            n = numerical[j][positions[i]]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_notallclose_msg(a, n, i, j, complex_indices, test_imag,
                                                      forward=True))
    return True


def _fast_check_fw(fn, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol,
                   complex_indices=None, test_imag=False):
    diff = [x for _, x in _diff_inputs(inputs)]
    all_u, _ = _make_vectors(diff, outputs)
    positions = _output_positions(func_out)
    numerical = [_jvp_along(fn, inputs, x, u, eps, complex_out=True) for x, u in zip(diff, all_u)]
    if not outputs:
        for Ju in numerical:
            for d in Ju:
                if d is not None and d.size and np.abs(d).max() > nondet_tol:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    analytical = _fw_jacobian(fn, inputs, positions, check_grad_dtypes, all_u=all_u)
    for i, (Ju, per_out) in enumerate(zip(numerical, analytical)):
        for j, a in enumerate(per_out):
            a, n = a[0], Ju[positions[j]]
            if not _allclose(a, n, rtol, _adjusted_atol(atol, all_u[i], None)):
                details = _slow_details_fw(fn, inputs, func_out, i, j, rtol, atol, eps)
                raise GradcheckError(_notallclose_msg(a, n, j, i, complex_indices, test_imag,
                                                      forward=True) + details)
    return True


def _slow_details_fw(fn, inputs, func_out, in_idx, out_idx, rtol, atol, eps):
    touts = _tensor_outputs(func_out)
    out_data = [np.asarray(o._data) if _is_float(o) else None for o in touts]
    positions = _output_positions(func_out)
    x = _diff_inputs(inputs)[in_idx][1]
    n = _numerical_jacobians(fn, inputs, out_data, eps, targets=(x,),
                             complex_out=True)[0][positions[out_idx]]
    a = _fw_jacobian(fn, inputs, [positions[out_idx]], False, only=in_idx)[0][0]
    return _slow_mode_msg(a, n, rtol, atol)


def _real_and_imag_input(fn, complex_indices, inputs):
    """PyTorch's split of complex inputs for forward mode: functions of real
    inputs, ``x -> fn(x + 1j imag(orig))`` and ``y -> fn(real(orig) + 1j y)``."""
    def part(make):
        def wrapped(*args):
            new = list(args)
            for i in complex_indices:
                new[i] = make(new[i], inputs[i])
            return _as_tuple(fn(*new))
        return wrapped
    return (part(lambda x, orig: x + orig.imag * 1j), part(lambda y, orig: orig.real + y * 1j))


def _forward_checks(func, func_out, tupled, outputs, check, eps, rtol, atol, check_grad_dtypes,
                    nondet_tol, check_undefined_grad):
    complex_inputs = [i for i, x in enumerate(tupled) if _is_tensor(x) and x.is_complex()]
    if not complex_inputs:
        check(func, func_out, tupled, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol)
        if check_undefined_grad:
            _test_undefined_forward_mode(func, tupled)
        return
    real_fn, imag_fn = _real_and_imag_input(func, complex_inputs, tupled)
    for part_fn, take, imag in ((imag_fn, "imag", True), (real_fn, "real", False)):
        part_inputs = tuple(getattr(x, take) if _is_tensor(x) and x.is_complex() else x
                            for x in tupled)
        out = part_fn(*part_inputs)
        check(part_fn, out, part_inputs, _differentiable_outputs(out), eps, rtol, atol,
              check_grad_dtypes, nondet_tol, complex_inputs, test_imag=imag)
        if check_undefined_grad:
            _test_undefined_forward_mode(part_fn, part_inputs)


def _test_undefined_forward_mode(func, inputs):
    """An input without a tangent must give the outputs the tangents a zero
    tangent gives them."""
    from . import forward_ad as fwAD
    diff = _diff_inputs(inputs)
    all_u, _ = _make_vectors([x for _, x in diff], ())
    with fwAD.dual_level():
        duals = list(inputs)
        for (idx, x), u in zip(diff, all_u):
            duals[idx] = fwAD.make_dual(x.detach(), _wrap(np.asarray(u).reshape(x._data.shape)))
        for idx, x in diff:
            keep = duals[idx]
            duals[idx] = fwAD.make_dual(x.detach(), _creation.zeros_like(x))
            outs1 = [o for o in _tensor_outputs(func(*duals)) if _is_float(o)]
            duals[idx] = x.detach()
            outs2 = [o for o in _tensor_outputs(func(*duals)) if _is_float(o)]
            duals[idx] = keep
            for k, (o1, o2) in enumerate(zip(outs1, outs2)):
                t1, t2 = fwAD.unpack_dual(o1).tangent, fwAD.unpack_dual(o2).tangent
                if t1 is not None and t2 is not None and not _allclose(t1._data, t2._data, 1e-5,
                                                                       1e-8):
                    raise GradcheckError(f"Mismatch in tangent values for output with index: {k} "
                                         f"when input: {x} has an undefined tangent value.  Got: "
                                         f"{t1} but expected: {t2}")
    return True


# ------------------------------------------------------------------ batched gradients
_FAILED_BATCHED_GRAD_MSG = """
gradcheck or gradgradcheck failed while testing batched gradient computation.
This could have been invoked in a number of ways (via a test that calls
gradcheck/gradgradcheck directly or via an autogenerated test).

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `check_batched_grad=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `check_batched_grad=False` and/or `check_batched_gradgrad=False`.

If you're modifying an existing operator that supports batched grad computation,
or wish to make a new operator work with batched grad computation, please read
the following.

To compute batched grads (e.g., jacobians, hessians), we vmap over the backward
computation. The most common failure case is if there is a 'vmap-incompatible
operation' in the backward pass. Please see
NOTE: [How to write vmap-compatible backward formulas]
in the codebase for an explanation of how to fix this.
""".strip()

_FAILED_BATCHED_GRAD_MSG_FWD_AD = """
gradcheck failed while testing batched gradient computation with forward-mode AD.
This test is enabled automatically when both `check_batched_grad=True`
and `check_forward_ad=True`, but can be disabled in the following ways
dependong on how the test was invoked (via a test that calls gradcheck
directly or via an autogenerated test).

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `check_batched_forward_grad=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `check_batched_forward_grad=False`
"""


def _failed_batched_msg(output_idx, input_idx, res, exp, forward=False):
    return f"""
For output {output_idx} and input {input_idx}:

{_FAILED_BATCHED_GRAD_MSG_FWD_AD if forward else _FAILED_BATCHED_GRAD_MSG}

Got:
{_arr(res)}

Expected:
{_arr(exp)}
""".strip()


def _random_like(rng, t):
    a = rng.standard_normal(t._data.shape)
    if t.is_complex():
        a = a + 1j * rng.standard_normal(t._data.shape)
    return _wrap(np.asarray(a).astype(t._data.dtype))


def _batched_against_one_by_one(fn, vs, forward, output_idx=None):
    """``vmap(fn)`` over the stacked ``vs`` against ``fn`` of each, stacked."""
    from ..func import vmap
    expected = [fn(v) for v in vs]
    expected = [np.stack([np.asarray(e[k]._data) for e in expected]) for k in range(len(expected[0]))]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="There is a performance drop")
        try:
            result = vmap(fn)(stack(vs))
        except RuntimeError as e:
            raise GradcheckError(f"While computing batched gradients, got: {e}\n\n"
                                 f"{_FAILED_BATCHED_GRAD_MSG_FWD_AD if forward else _FAILED_BATCHED_GRAD_MSG}"
                                 ) from e
    for k, (res, exp) in enumerate(zip(result, expected)):
        got = np.asarray(res._data)
        if not _allclose(got, exp, 1e-5, 1e-8):
            raise GradcheckError(_failed_batched_msg(k if forward else output_idx, k, got, exp,
                                                     forward))
    return True


def _test_batched_grad(inputs, output, output_idx):
    """The vjps of two random cotangents, one by one and under ``vmap``."""
    diff = [x for _, x in _diff_inputs(inputs)]
    rng = np.random.default_rng(1)

    def vjp(v):
        gs = _grad(output, diff, v, retain_graph=True, allow_unused=True)
        return tuple(_creation.zeros_like(x) if g is None else g for g, x in zip(gs, diff))
    return _batched_against_one_by_one(vjp, [_random_like(rng, output) for _ in range(2)], False,
                                       output_idx)


def _test_batched_grad_forward_ad(func, inputs):
    """Per input, the jvps of two random tangents, one by one and under ``vmap``."""
    from ..func import jvp as _jvp
    rng = np.random.default_rng(2)
    for idx, x in _diff_inputs(inputs):
        if not _is_float(x):
            continue

        def f(t, idx=idx, x=x):
            def one(y):
                args = [y if i == idx else (a.detach() if _is_tensor(a) else a)
                        for i, a in enumerate(inputs)]
                return tuple(o for o in _tensor_outputs(func(*args)))
            return _jvp(one, (x.detach(),), (t,))[1]
        _batched_against_one_by_one(f, [_random_like(rng, x) for _ in range(2)], True)
    return True


# ------------------------------------------------------------------ the other checks
def _check_inputs(inputs):
    any_rg = False
    for idx, x in enumerate(inputs):
        if _is_tensor(x) and x.requires_grad:
            if x._data.dtype not in (np.float64, np.complex128):
                warnings.warn(f"Input #{idx} requires gradient and is not a double precision "
                              "floating point or complex. This check will likely fail if all the "
                              "inputs are not of double precision floating point or complex. ",
                              UserWarning, stacklevel=_user_stacklevel())
            d = x._data
            if d.size and not all(st > 0 or sz <= 1 for st, sz in zip(d.strides, d.shape)):
                raise RuntimeError(f"The {idx}th input has a dimension with stride 0. gradcheck only "
                                   "supports inputs that are non-overlapping to be able to compute "
                                   "the numerical gradients correctly. You should call .contiguous "
                                   "on the input before passing it to gradcheck.")
            any_rg = True
    if not any_rg:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none "
                         "of them have requires_grad=True.")


def _real_and_imag_output(fn):

    def part(to_apply):
        def wrapped(*inputs):
            return tuple(to_apply(o) if _is_tensor(o) and o.is_complex() else o
                         for o in _as_tuple(fn(*inputs)))
        return wrapped
    return part(core.real), part(core.imag)


def _test_backward_mul_by_grad_output(outputs, inputs):
    diff = [x for _, x in _diff_inputs(inputs)]
    if not outputs:
        return True
    grads = _grad(outputs, diff, [_creation.zeros_like(o) for o in outputs], allow_unused=True)
    for gi, di in zip(grads, diff):
        if gi is None:
            continue
        if np.count_nonzero(gi._data):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype != di.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.shape != di.shape:
            raise GradcheckError("grad is incorrect size")
    return True


def _undefined_grad(t):
    """``t`` passed through a node whose backward sends an undefined (None)
    gradient on: what a vjp sees for an output nobody differentiated."""

    class UndefinedGradBackward(Node):
        def __init__(self, x):
            self.next_edges = (x._edge(),)
            self.input_meta = (x._data.shape, x._data.dtype)

        def apply(self, grads):
            return (None,)

    out = _wrap(t._data, True)
    out._gfn, out._out_nr = UndefinedGradBackward(t), 0
    return out


def _test_undefined_backward_mode(func, outputs, inputs):
    diff = [x for _, x in _diff_inputs(inputs)]

    def warn_bc():
        warnings.warn("Backwards compatibility: New undefined gradient support checking feature is "
                      "enabled by default, but it may break existing callers of this function. If "
                      "this is true for you, you can call this function with "
                      "\"check_undefined_grad=False\" to disable the feature",
                      UserWarning, stacklevel=_user_stacklevel())

    def check(outs):
        if not outs:
            return True
        try:
            grads = _grad(outs, diff, [_creation.zeros_like(o) for o in outs], allow_unused=True)
        except RuntimeError as e:
            warn_bc()
            raise GradcheckError("Expected backward function to handle undefined output grads (a "
                                 "vjp given None for an output must treat it as zeros).") from e
        for g in grads:
            if g is not None and np.count_nonzero(g._data):
                warn_bc()
                raise GradcheckError("Expected all input grads to be undefined or zero when all "
                                     "output grads are undefined or zero.")
        return True

    to_check = [[_undefined_grad(o) for o in _differentiable_outputs(func(*inputs))]]
    if len(to_check[0]) > 1:            # one output's gradient undefined at a time
        for k in range(len(outputs)):
            outs = _differentiable_outputs(func(*inputs))
            to_check.append([_undefined_grad(o) if m == k else o for m, o in enumerate(outs)])
    return all(check(outs) for outs in to_check)


# ------------------------------------------------------------------ public functions
def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    """Check the gradients of ``func`` at ``inputs`` against finite differences.

    Every tensor input with ``requires_grad=True`` is checked against every
    output that requires grad (inputs should be float64/complex128).  Returns
    True; on failure raises :class:`GradcheckError` (or returns False with
    ``raise_exception=False``).  ``fast_mode`` compares ``v^T J u`` for random
    vectors instead of whole Jacobians.  ``check_undefined_grad`` also checks
    that backward copes with undefined (None) output gradients.
    ``check_forward_ad`` checks the forward-mode derivatives (the jvps) against
    finite differences too, ``check_backward_ad=False`` only them;
    ``check_batched_grad`` / ``check_batched_forward_grad`` check that the vjps
    / jvps of a batch of cotangents / tangents under ``vmap`` are those
    computed one by one.

        >>> x = tensorplay.randn(3, dtype=tensorplay.float64, requires_grad=True)
        >>> tensorplay.autograd.gradcheck(lambda t: (t * t).sin(), (x,))
        True
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be "
                             "True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to "
                             "be True")
    try:
        return _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                                 check_grad_dtypes, check_batched_grad, check_batched_forward_grad,
                                 check_forward_ad, check_backward_ad, fast_mode)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                      check_grad_dtypes, check_batched_grad, check_batched_forward_grad,
                      check_forward_ad, check_backward_ad, fast_mode):
    tupled = _as_tuple(inputs)
    _check_inputs(tupled)
    func_out = func(*tupled)
    outputs = _differentiable_outputs(func_out)
    if check_backward_ad:
        check = _fast_check if fast_mode else _slow_check
        if any(o.is_complex() for o in _tensor_outputs(func_out)):
            complex_indices = [i for i, o in enumerate(outputs) if o.is_complex()]
            real_fn, imag_fn = _real_and_imag_output(func)
            imag_out = imag_fn(*tupled)
            check(imag_fn, imag_out, tupled, _differentiable_outputs(imag_out), eps, rtol, atol,
                  check_grad_dtypes, nondet_tol, complex_indices, test_imag=True)
            real_out = real_fn(*tupled)
            check(real_fn, real_out, tupled, _differentiable_outputs(real_out), eps, rtol, atol,
                  check_grad_dtypes, nondet_tol, complex_indices)
        else:
            check(func, func_out, tupled, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol)
    if check_forward_ad:
        _forward_checks(func, func_out, tupled, outputs, _fast_check_fw if fast_mode else
                        _slow_check_fw, eps, rtol, atol, check_grad_dtypes, nondet_tol,
                        check_undefined_grad)
    if check_batched_forward_grad:
        _test_batched_grad_forward_ad(func, tupled)
    if not check_backward_ad:
        return True
    if check_batched_grad:
        for i, o in enumerate(outputs):
            _test_batched_grad(tupled, o, i)
    _test_backward_mul_by_grad_output(outputs, tupled)
    if check_undefined_grad:
        _test_undefined_backward_mode(func, outputs, tupled)
    return True


def _random_grad_output(rng, o, non_contig):
    dt = o._data.dtype if _is_float(o) else np.dtype(np.float64)
    shape = o._data.shape
    v = rng.uniform(-1, 1, shape)
    if dt.kind == "c":
        v = v + 1j * rng.uniform(-1, 1, shape)
    v = np.asarray(v).astype(dt)
    if non_contig and v.ndim > 0 and v.size > 1:    # same values, every other element of a buffer
        buf = np.zeros(shape[:-1] + (2 * shape[-1],), dt)
        buf[..., ::2] = v
        v = buf[..., ::2]
    return _wrap(v, True)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    """Gradcheck of the gradients themselves (second derivatives): checks the
    map ``(inputs, grad_outputs) -> vjp`` computed with ``create_graph=True``.
    Without ``grad_outputs``, random ones (requiring grad) are used."""
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to "
                             "be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be "
                             "True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    tupled = _as_tuple(inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        tupled_gos = tuple(_random_grad_output(rng, o, gen_non_contig_grad_outputs)
                           for o in _differentiable_outputs(func(*tupled)))
    else:
        tupled_gos = _as_tuple(grad_outputs)
    n_go = len(tupled_gos)
    diff_in = {i for i, _ in _diff_inputs(tupled)}
    diff_go = {i for i, g in enumerate(tupled_gos) if g.requires_grad}

    def new_func(*args):
        # forward mode hands the function detached (dual) tensors: they are
        # differentiated by the backward inside, so they must require grad again
        xs = tuple(x.requires_grad_() if i in diff_in and not x.requires_grad else x
                   for i, x in enumerate(args[:len(args) - n_go]))
        gos = tuple(g.requires_grad_() if i in diff_go and not g.requires_grad else g
                    for i, g in enumerate(args[len(args) - n_go:]))
        outs = _differentiable_outputs(func(*xs))
        grads = _grad(outs, [x for i, x in enumerate(xs) if i in diff_in], gos,
                      create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, tupled + tupled_gos, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)


# ------------------------------------------------------------------ PyTorch's deprecated helpers
_DEPRECATED = ("`{}` was part of PyTorch's private API and not meant to be exposed. We are "
               "deprecating it and it will be removed in a future version of PyTorch. If you have a "
               "specific use for this or feature request for this to be a stable API, please file "
               "us an issue at https://github.com/pytorch/pytorch/issues/new")


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """Deprecated (as in PyTorch): the Jacobian blocks, by central differences, of
    ``fn(inputs)``'s first output with respect to each input that requires grad
    (or each of ``target``), each of shape ``(input.numel(), output.numel())``."""
    warnings.warn(_DEPRECATED.format("get_numerical_jacobian"), FutureWarning, stacklevel=2)
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_numerical_jacobian no longer supports "
                         "values of grad_out != 1.0.")
    inputs = _as_tuple(inputs)

    def packed(*xs):
        return fn(xs)
    out_data = _evaluate(packed, inputs)
    targets = None if target is None else _as_tuple(target)
    blocks = _numerical_jacobians(packed, inputs, out_data, eps, targets)
    return tuple(_wrap(b[0]) for b in blocks)


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """Deprecated (as in PyTorch): ``(jacobians, reentrant, sizes_ok, types_ok)``,
    the Jacobian blocks of ``output`` with respect to each input that requires
    grad, by one backward per output element (run twice to check reentrancy)."""
    warnings.warn(_DEPRECATED.format("get_analytical_jacobian"), FutureWarning, stacklevel=2)
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_analytical_jacobian no longer supports "
                         "values of grad_out != 1.0.")
    if output.is_complex():
        raise ValueError("Expected output to be non-complex. get_analytical_jacobian no longer "
                         "supports functions that return complex outputs.")
    diff = [x for _, x in _diff_inputs(_as_tuple(inputs))]
    ones = list(_one_hots(output))
    J1, types_ok, sizes_ok = _stack_columns(_vjp_columns(output, diff, ones), diff, len(ones))
    J2, _, _ = _stack_columns(_vjp_columns(output, diff, ones), diff, len(ones))
    reentrant = all(a.size == 0 or np.abs(_common(a, b)[0] - _common(a, b)[1]).max() <= nondet_tol
                    for a, b in zip(J1, J2))
    return tuple(_wrap(j) for j in J1), reentrant, sizes_ok, types_ok
