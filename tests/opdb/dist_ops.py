"""Table entries for ops/dist_ops.py: ``_standard_gamma_grad`` (the implicit
reparameterization gradient of a Gamma draw) and ``_standard_gamma_reparam``
(a draw made differentiable in its concentration with it); ``_poisson_draws``
and ``_binomial_draws``, the nodes of poisson's and binomial's draws (a zero
gradient for the rate; binomial's is not implemented, as in PyTorch)."""
import numpy as np

from . import E, OpCase, Sample, arr

ALPHA = arr(3, 4, lo=0.2, hi=6.0, seed=81)
DRAW = np.random.default_rng(82).gamma(ALPHA)
BIG = np.array([40.0, 250.0, 900.0])
BIG_X = np.array([47.5, 231.0, 930.0])

_APPROX = ("PyTorch's _standard_gamma_grad is a fitted approximation (relative error up to "
           "~4e-4); ours sums the exact series (it agrees with finite differences of igamma to "
           "~1e-7, and with torch to 1e-3, in tests/test_distributions.py)")


def _reparam_torch(T, alpha, x):
    # torch has no such op: the same value and first derivative
    # (the factor at alpha held fixed: torch cannot differentiate _standard_gamma_grad)
    return x.detach() + (alpha - alpha.detach()) * _sgg(T, alpha.detach(), x.detach())


def _sgg(T, alpha, x):
    if T.__name__ == "torch":
        return T._standard_gamma_grad(alpha, x)
    from tensorplay.ops.dist_ops import _standard_gamma_grad
    return _standard_gamma_grad(alpha, x)


def _draws(name):
    def fn(T, *args):
        if T.__name__ == "torch":           # torch has no such op: the same value and gradient
            return args[-1].detach() + 0 * sum(args[:-1])
        from tensorplay.ops import dist_ops
        return getattr(dist_ops, name)(*args)
    return fn


def _reparam(T, alpha, x):
    from tensorplay.ops.dist_ops import _standard_gamma_reparam
    return _standard_gamma_reparam(alpha, x)


CASES = [
    OpCase("_standard_gamma_grad", fn=_sgg,
           samples=[Sample([ALPHA, DRAW]), Sample([BIG, BIG_X], desc="large"),
                    Sample([ALPHA, DRAW[0]], desc="broadcast")],
           differentiable=False, complex=False, low_precision=False, float_only=False,
           xfail={"against_torch": _APPROX},
           errors=[E(TypeError, "_standard_gamma_grad(): argument 'output' (position 2) must be "
                   "Tensor, not float", ALPHA, fn=lambda T, a: _sgg(T, a, 1.0),
                   desc="number", xfail="the binary op helper names its second parameter "
                                        "'other' in this message"),
                   E(RuntimeError, "Found dtype Double but expected Float",
                     ALPHA.astype(np.float32), DRAW, desc="dtypes")]),
    OpCase("_standard_gamma_reparam", fn=_reparam, torch_fn=_reparam_torch,
           samples=[Sample([ALPHA, DRAW], grad=[0]), Sample([BIG, BIG_X], grad=[0], desc="large")],
           complex=False, gradgrad=False, low_precision=False, float_only=False,
           xfail={"gradcheck": "the output is a draw made at alpha and held as data: its "
                               "derivative is the implicit reparameterization gradient (the CDF "
                               "level held fixed), which finite differences of the op cannot "
                               "see; checked against igamma and torch in "
                               "tests/test_distributions.py",
                  "against_torch": _APPROX,
                  "noncontig": "runs gradcheck: see gradcheck"}),
    OpCase("_poisson_draws", fn=_draws("_poisson_draws"),
           samples=[Sample([ALPHA, np.floor(DRAW)], grad=[0])], complex=False, low_precision=False,
           float_only=False),
    OpCase("_binomial_draws", fn=_draws("_binomial_draws"),
           samples=[Sample([ALPHA * 3, ALPHA / 7, np.floor(DRAW)], grad=[0, 1])], differentiable=False,
           complex=False, low_precision=False, float_only=False),
]
