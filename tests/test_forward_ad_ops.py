"""Forward mode on every row of the op table (tests/opdb): for each sample with
a float64 (and, where the row takes complex inputs, complex128) differentiable
input, the tangent ``forward_ad`` computes is checked against

- central finite differences along the same direction,
- the entry's vjps: ``<J v, u> = <v, J^H u>`` (real inner products) for a
  random ``u``, so forward and reverse rules describe one Jacobian,
- ``torch.autograd.forward_ad`` on the same inputs, when torch is installed
  (and supports forward mode for the op).

Directions are seeded per sample, so every run checks the same numbers.
"""
import zlib
import warnings

import numpy as np
import pytest

import tensorplay as tp
import tensorplay.autograd.forward_ad as fwAD

from conftest import assert_close, torch
from opdb import CASES
from test_op_table import _tensors, _outputs

DIFF = [c for c in CASES if c.differentiable]
# (row, sample desc) where torch's forward rule is the one that is off: ours agrees
# with finite differences and with the vjps there
_TORCH_OFF = {
    ("logcumsumexp", "large"): "torch's logcumsumexp jvp loses the terms of large inputs "
                               "(d r_0 / d x_0 = 1 comes out ~1e-15)",
    # torch's pow jvp takes the real part of the base's term for a real base (its
    # handle_r_to_c, meant for the vjp): d(x ** e)/dx = e x ** (e - 1) is complex here
    ("pow_real_base_complex_exp", ""): "torch's pow jvp drops the imaginary part of a real "
                                       "base's term",
    ("pow_real_base_complex_exp", "negative base, broadcast"): "the same",
    # torch has no forward rule for scatter_reduce's prod: its tangent comes out zero
    **{("scatter_reduce_prod", d): "torch's prod tangent is zero"
       for d in ("", "without self", "dim 1", "dim -1 without self")},
    ("scatter_reduce_prod_zeros", ""): "torch's prod tangent is zero",
    ("scatter_reduce_src_larger", ""): "torch's forward rule fails when src is larger than index",
}
# rows whose reverse-mode checks are known to fail: their forward checks say nothing new
_KNOWN = ("gradcheck",)


def _params(complex_):
    out = []
    for c in DIFF:
        if complex_ and not c.complex:
            continue
        skip = [c.xfail[k] for k in _KNOWN if k in c.xfail] + (
            [c.xfail["complex"]] if complex_ and "complex" in c.xfail else [])
        for k, s in enumerate(c.samples):
            marks = [pytest.mark.skip(reason="; ".join(skip))] if skip else []
            out.append(pytest.param(c, s, id=f"{c.name}-{k}{('-' + s.desc) if s.desc else ''}",
                                    marks=marks))
    return out


def _rng(case, sample, salt):
    return np.random.default_rng(zlib.crc32(f"{case.name}/{sample.desc}/{salt}".encode()))


def _directions(xs, gen):
    """A random tangent for each input that requires grad (None for the others)."""
    out = []
    for x in xs:
        if not x.requires_grad:
            out.append(None)
            continue
        a = gen.standard_normal(tuple(x.shape))
        if x.is_complex():
            a = a + 1j * gen.standard_normal(tuple(x.shape))
        out.append(a.astype(x.detach().numpy().dtype))
    return out


def _call(case, sample, xs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return case.fn(tp, *xs, **sample.kwargs)


def _float_outputs(r):
    return [o for o in _outputs(r) if isinstance(o, tp.Tensor) and (o.is_floating_point() or o.is_complex())]


def _jvp(case, sample, xs, vs):
    """Primal outputs and their tangents, through forward_ad."""
    with fwAD.dual_level():
        # the primals keep requires_grad: a row may differentiate inside (forward-over-reverse)
        duals = [x if v is None else fwAD.make_dual(x, tp.tensor(v)) for x, v in zip(xs, vs)]
        outs = _float_outputs(_call(case, sample, duals))
        res = [fwAD.unpack_dual(o) for o in outs]
    return [p for p, _ in res], [t for _, t in res]


def _fd(case, sample, xs, vs, eps=1e-6):
    def at(s):
        shifted = [x if v is None else tp.tensor(x.detach().numpy() + s * v, requires_grad=True)
                   for x, v in zip(xs, vs)]
        return [o.detach().numpy().copy() for o in _float_outputs(_call(case, sample, shifted))]
    return [(a - b) / (2 * eps) for a, b in zip(at(eps), at(-eps))]


def _check(case, sample, complex_):
    xs = _tensors(tp, sample, complex_=complex_)
    if not any(x.requires_grad for x in xs):
        pytest.skip("no differentiable input")
    vs = _directions(xs, _rng(case, sample, "v"))
    primals, tangents = _jvp(case, sample, xs, vs)
    plain = _float_outputs(_call(case, sample, xs))
    assert len(primals) == len(plain)
    for p, q in zip(primals, plain):             # the level does not change values
        assert_close(p.detach().numpy(), q.detach().numpy(), atol=0, rtol=0, msg=f"{case.name} primal")
    # tangents of outputs that do not depend on the inputs may be None: zero there
    tan = [np.zeros(p.shape, p.detach().numpy().dtype) if t is None else t.detach().numpy()
           for p, t in zip(primals, tangents)]
    for t, p in zip(tan, primals):
        assert t.shape == tuple(p.shape), f"{case.name}: tangent shape {t.shape} != {tuple(p.shape)}"
    fds = _fd(case, sample, xs, vs)
    for k, (t, fd) in enumerate(zip(tan, fds)):
        assert_close(t, fd, atol=max(case.atol, 1e-5), rtol=max(case.rtol, 1e-4),
                     msg=f"{case.name} output {k}: jvp vs finite differences")
    # <J v, u> = <v, J^H u>
    outs = plain
    diff = [o for o in outs if o.requires_grad]
    if diff:
        gen = _rng(case, sample, "u")
        us = []
        for o in diff:
            u = gen.standard_normal(tuple(o.shape))
            if o.is_complex():
                u = u + 1j * gen.standard_normal(tuple(o.shape))
            us.append(u.astype(o.detach().numpy().dtype))
        ins = [x for x in xs if x.requires_grad]
        gs = tp.autograd.grad(diff, ins, [tp.tensor(u) for u in us], allow_unused=True)
        by_out = {id(o): t for o, t in zip(outs, tan)}
        lhs = sum(np.real(np.vdot(u, by_out[id(o)])) for u, o in zip(us, diff))
        rhs = sum(np.real(np.vdot(g.numpy(), v)) for g, v in
                  zip(gs, [v for v in vs if v is not None]) if g is not None)
        assert lhs == pytest.approx(rhs, rel=1e-7, abs=1e-9), f"{case.name}: <Jv,u> != <v,J^H u>"
    if torch is not None and (case.name, sample.desc) not in _TORCH_OFF:
        _against_torch(case, sample, complex_, vs, tan)


def _against_torch(case, sample, complex_, vs, tan):
    import torch.autograd.forward_ad as tfw
    xs = _tensors(torch, sample, complex_=complex_)
    try:
        with tfw.dual_level(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            duals = [x if v is None else tfw.make_dual(x, torch.tensor(v)) for x, v in zip(xs, vs)]
            f = case.torch_fn or case.fn
            outs = [o for o in _outputs(f(torch, *duals, **sample.kwargs))
                    if isinstance(o, torch.Tensor) and (o.is_floating_point() or o.is_complex())]
            tt = [tfw.unpack_dual(o).tangent for o in outs]
    except (NotImplementedError, RuntimeError) as e:
        if "forward" in str(e) or "not implemented" in str(e).lower():
            return              # torch has no forward rule for it: the other two checks stand
        raise
    assert len(tt) == len(tan)
    for a, b in zip(tan, tt):
        if b is None:
            assert not np.any(a), f"{case.name}: torch's tangent is zero"
        else:
            assert_close(a, b.detach().numpy(force=True), atol=1e-7, rtol=1e-6, msg=f"{case.name} vs torch")


@pytest.mark.parametrize("case,sample", _params(False))
def test_jvp_float64(case, sample):
    _check(case, sample, False)


@pytest.mark.parametrize("case,sample", _params(True))
def test_jvp_complex128(case, sample):
    _check(case, sample, True)
