"""Check analytical gradients against central finite differences.

Complex numbers are checked as pairs of reals: an input ``z`` is perturbed
along ``Re z`` and ``Im z``; a complex output ``y`` contributes the rows
``Re y`` and ``Im y``.  With PyTorch's convention the vjp with seed 1 gives
``d Re(y)/d Re z + i d Re(y)/d Im z``, and with seed 1j the same for ``Im y``.
"""
import numpy as np


class GradcheckError(RuntimeError):
    pass


def _inputs_tuple(inputs):
    from .._tensor import Tensor
    return (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)


def _outputs_tuple(out):
    from .._tensor import Tensor
    return (out,) if isinstance(out, Tensor) else tuple(o for o in out if isinstance(o, Tensor))


def _numerical(fn, inputs, diff_idx, eps):
    """Jacobian blocks d(real-ified outputs)/d(real-ified input) per differentiable input."""
    from .grad_mode import no_grad
    with no_grad():
        base = _outputs_tuple(fn(*inputs))
    out_sizes = [o.numel() * (2 if o.is_complex() else 1) for o in base]
    n_out = sum(out_sizes)
    blocks = []
    for i in diff_idx:
        x = inputs[i]
        if not x._data.flags.c_contiguous:  # perturb through a contiguous buffer x owns
            x._data = np.ascontiguousarray(x._data)
        flat = x._data.reshape(-1)          # a view: writes perturb x in place
        cplx = x.is_complex()
        cols = []
        for j in range(flat.size):
            for step in ((eps,) if not cplx else (eps, eps * 1j)):
                orig = flat[j]
                flat[j] = orig + step
                with no_grad():
                    plus = _real_flat(_outputs_tuple(fn(*inputs)))
                flat[j] = orig - step
                with no_grad():
                    minus = _real_flat(_outputs_tuple(fn(*inputs)))
                flat[j] = orig
                cols.append((plus - minus) / (2 * eps))
        blocks.append(np.stack(cols, 1) if cols else np.zeros((n_out, 0)))
    return blocks


def _real_flat(outs):
    parts = []
    for o in outs:
        d = o._data.astype(np.complex128 if o.is_complex() else np.float64).reshape(-1)
        if o.is_complex():
            parts += [d.real, d.imag]
        else:
            parts.append(d)
    return np.concatenate(parts) if parts else np.zeros(0)


def _analytical(fn, inputs, diff_idx):
    from . import grad as autograd_grad
    from .._creation import zeros_like
    outs = _outputs_tuple(fn(*inputs))
    diff_inputs = [inputs[i] for i in diff_idx]
    rows = []                      # one per real output component: list of per-input flat grads
    for k, o in enumerate(outs):
        seeds_kinds = (1.0,) if not o.is_complex() else (1.0, 1j)
        for kind in seeds_kinds:
            for j in range(o.numel()):
                if not o.requires_grad:
                    rows.append([np.zeros(x.numel() * (2 if x.is_complex() else 1)) for x in diff_inputs])
                    continue
                seed = zeros_like(o)
                seed._data.reshape(-1)[j] = kind
                live = [m for m, p in enumerate(outs) if p.requires_grad]
                gos = [seed if m == k else zeros_like(outs[m]) for m in live]
                gs = autograd_grad([outs[m] for m in live], diff_inputs, gos, retain_graph=True,
                                   allow_unused=True)
                row = []
                for x, g in zip(diff_inputs, gs):
                    if g is None:
                        row.append(np.zeros(x.numel() * (2 if x.is_complex() else 1)))
                        continue
                    if g.shape != x.shape:
                        raise GradcheckError(f"Gradient has shape {list(g.shape)} but its input has "
                                             f"shape {list(x.shape)}")
                    gd = g._data.astype(np.complex128 if x.is_complex() else np.float64).reshape(-1)
                    if x.is_complex():
                        row.append(np.stack([gd.real, gd.imag], 1).reshape(-1))
                    else:
                        row.append(gd)
                rows.append(row)
    # reorder so complex outputs' rows are [all Re rows, all Im rows] as in _real_flat
    return [np.array([r[b] for r in rows]).reshape(len(rows), _real_size(x))
            for b, x in enumerate(diff_inputs)]


def _real_size(x):
    return x.numel() * (2 if x.is_complex() else 1)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    """True if analytical and numerical Jacobians agree for every input that
    requires grad (inputs should be double precision)."""
    inputs = _inputs_tuple(inputs)
    from .._tensor import Tensor
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of the them have requires_grad=True.")
    for i in diff_idx:
        if inputs[i]._data.dtype not in (np.float64, np.complex128):
            import warnings
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are not "
                          "of double precision floating point or complex. ", UserWarning)
    num = _numerical(func, inputs, diff_idx, eps)
    ana = _analytical(func, inputs, diff_idx)
    for b, i in enumerate(diff_idx):
        a, n = ana[b], num[b]
        if a.shape != n.shape:
            return _fail(raise_exception, f"Jacobian shape mismatch for output w.r.t. input {i}: "
                                          f"analytical {a.shape} vs numerical {n.shape}")
        if not np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=True):
            return _fail(raise_exception,
                         f"Jacobian mismatch for output 0 with respect to input {i},\n"
                         f"numerical:{n}\nanalytical:{a}\n")
    return True


def _fail(raise_exception, msg):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    """Gradcheck of the vector-Jacobian product itself (second derivatives)."""
    from . import grad as autograd_grad
    from .._tensor import Tensor
    from .. import _creation
    inputs = _inputs_tuple(inputs)
    outs = _outputs_tuple(func(*inputs))
    if grad_outputs is None:
        gen = np.random.default_rng(0)
        grad_outputs = []
        for o in outs:
            v = gen.standard_normal(o.shape)
            if o.is_complex():
                v = v + 1j * gen.standard_normal(o.shape)
            grad_outputs.append(_creation.tensor(v.astype(o._data.dtype), requires_grad=True))
    grad_outputs = _inputs_tuple(grad_outputs)
    n_in = len(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def vjp_fn(*args):
        from .grad_mode import enable_grad
        with enable_grad():
            return _vjp(*args)

    def _vjp(*args):
        xs, gos = args[:n_in], args[n_in:]
        os_ = _outputs_tuple(func(*xs))
        diff_os = [(o, g) for o, g in zip(os_, gos) if o.requires_grad]
        gs = autograd_grad([o for o, _ in diff_os], [xs[i] for i in diff], [g for _, g in diff_os],
                           create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)
    return gradcheck(vjp_fn, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
