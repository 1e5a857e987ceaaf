"""Table entries for ops/special_fns.py (the gamma family, Bessel I0/I1, erfcx, the
normal distribution's functions, entr, xlog1py, zeta, igamma/igammac) and the
composites of ``tensorplay.special``."""
import numpy as np

from . import E, OpCase, Sample, arr

C1 = np.array([1.5 + 1j], np.complex64)
I2 = np.array([2, 3])
POS = arr(3, 4, lo=0.3, hi=4.0, seed=71)
NEG = np.array([[-2.7, -1.3, -0.6, -3.4], [-0.2, -4.5, -5.8, -1.9]])     # away from the poles
SYM = arr(3, 4, lo=-3.0, hi=3.0, seed=72)
SYM2 = arr(3, 4, lo=-2.0, hi=3.0, seed=76)                              # (erfcx's derivative fits in half)
BIG = np.array([-25.0, 21.0, 30.5, -40.0])                               # the asymptotic branch
P01 = arr(3, 4, lo=0.02, hi=0.98, seed=73)
TAILS = np.array([1e-4, 0.3, 0.9, 0.9995])
Y1 = arr(3, 4, lo=-0.9, hi=2.0, seed=74)
S_ZETA = arr(3, 4, lo=1.5, hi=5.0, seed=75)


def _not_for(kernel, *arrays, dtype="ComplexFloat", **kw):
    return E(NotImplementedError, f"\"{kernel}\" not implemented for '{dtype}'", *arrays,
             desc=dtype.lower(), **kw)


def _s(x, **kw):
    """A sample of one array and its 0-d corner."""
    return [Sample([x], kw), Sample([np.asarray(x).reshape(-1)[0].reshape(())], kw, desc="0-d")]


def _polygamma(T, x, n=1):
    return T.polygamma(n, x)


CASES = [
    # ------------------------------------------------------------ the gamma family
    OpCase("lgamma", samples=[*_s(POS), Sample([NEG], desc="negative")], complex=False,
           errors=[_not_for("lgamma_vml_cpu", C1)]),
    OpCase("digamma", samples=[*_s(POS), Sample([NEG], desc="negative")], complex=False,
           errors=[_not_for("digamma", C1)]),
    OpCase("polygamma", _polygamma,
           [Sample([POS], {"n": 0}, desc="n=0"), Sample([POS], {"n": 1}, desc="n=1"),
            Sample([POS], {"n": 2}, desc="n=2"), Sample([POS], {"n": 3}, desc="n=3"),
            Sample([NEG], {"n": 1}, desc="negative n=1"), Sample([NEG], {"n": 2}, desc="negative n=2"),
            Sample([np.array(1.7)], {"n": 4}, desc="0-d")],
           complex=False, rtol=2e-3,
           errors=[E(RuntimeError, "polygamma(n, x) does not support negative n.", POS, n=-1, desc="n<0"),
                   E(TypeError, "polygamma(): argument 'n' (position 1) must be int, not float", POS, n=1.5,
                     desc="float n"),
                   E(NotImplementedError, "\"trigamma\" not implemented for 'ComplexFloat'", C1, n=1,
                     desc="complex n=1"),
                   E(NotImplementedError, "\"polygamma\" not implemented for 'ComplexFloat'", C1, n=2,
                     desc="complex n=2")]),
    OpCase("mvlgamma", samples=[Sample([POS + 1.0], {"p": 1}), Sample([POS + 1.0], {"p": 2}, desc="p=2"),
                                Sample([POS + 2.0], {"p": 4}, desc="p=4"),
                                Sample([np.array(3.3)], {"p": 3}, desc="0-d")],
           complex=False,
           errors=[E(RuntimeError, "p has to be greater than or equal to 1", POS, p=0, desc="p=0"),
                   E(TypeError, "mvlgamma(): argument 'p' must be int, not float", POS, p=1.5, desc="float p"),
                   _not_for("arange_cpu", C1, p=2)]),
    OpCase("special_zeta", func="special.zeta",
           samples=[Sample([S_ZETA, POS], grad=[1]), Sample([S_ZETA, POS[0]], grad=[1], desc="broadcast"),
                    Sample([np.array(2.5), np.array(0.7)], grad=[1], desc="0-d")],
           complex=False, low_precision=False,       # (PyTorch has no half/bfloat16 zeta)
           errors=[_not_for("zeta_cpu", C1, C1),
                   _not_for("zeta_cpu", np.ones(2, np.float16), np.full(2, 2.0, np.float16), dtype="Half")]),
    OpCase("special_zeta_scalar", lambda T, s, q: (T.special.zeta(s, 2.5), T.special.zeta(3.0, q)),
           [Sample([S_ZETA, POS], grad=[1])], covers=("special_zeta",), complex=False, low_precision=False),
    OpCase("igamma", samples=[Sample([POS, POS * 1.3], grad=[1]), Sample([POS, POS[0]], grad=[1], desc="broadcast"),
                              Sample([POS * 5, POS * 4], grad=[1], desc="larger")],
           complex=False, float_only=False, low_precision=False,
           errors=[_not_for("igamma_cpu", I2, I2, dtype="Long"), _not_for("igamma_cpu", C1, C1),
                   E(TypeError, "igamma(): argument 'other' (position 2) must be Tensor, not float", POS,
                     fn=lambda T, x: T.igamma(x, 2.0), desc="number")]),
    OpCase("igammac", samples=[Sample([POS, POS * 1.3], grad=[1]), Sample([POS, POS[0]], grad=[1], desc="broadcast"),
                               Sample([POS * 5, POS * 4], grad=[1], desc="larger")],
           complex=False, float_only=False, low_precision=False,
           errors=[_not_for("igammac_cpu", I2, I2, dtype="Long"), _not_for("igammac_cpu", C1, C1)]),
    OpCase("special_gammainc", lambda T, a, x: (T.special.gammainc(a, x), T.special.gammaincc(a, x)),
           [Sample([POS, POS * 0.8], grad=[1])], covers=("igamma", "igammac"), complex=False,
           low_precision=False,
           errors=[E(TypeError, "special_gammainc(): argument 'input' (position 1) must be Tensor, not float",
                     POS, fn=lambda T, x: T.special.gammainc(2.0, x), desc="number")]),
    # ------------------------------------------------------------ Bessel I0, I1
    OpCase("i0", samples=[*_s(SYM)], complex=False, errors=[_not_for("i0_vml_cpu", C1)]),
    # (i0 and i1 of these overflow in half: no low-precision check)
    OpCase("i0_large", func="i0", op="i0", samples=[Sample([BIG], desc="large")], complex=False,
           low_precision=False),
    OpCase("special_i1_large", func="special.i1", op="special_i1", samples=[Sample([BIG], desc="large")],
           complex=False, low_precision=False),
    OpCase("special_i0e", func="special.i0e", samples=[*_s(SYM), Sample([BIG], desc="large")], complex=False,
           errors=[_not_for("i0e_cpu", C1)]),
    OpCase("special_i1", func="special.i1",
           samples=[*_s(SYM), Sample([np.array([0.0, 1.0])], desc="at 0")],
           complex=False, errors=[_not_for("i1_cpu", C1)]),
    OpCase("special_i1e", func="special.i1e", samples=[*_s(SYM), Sample([BIG], desc="large")], complex=False,
           errors=[_not_for("i1e_cpu", C1)]),
    # ------------------------------------------------------------ erfcx, the normal distribution
    OpCase("special_erfcx", func="special.erfcx",
           samples=[*_s(SYM2), Sample([np.array([-1.0, 0.3, 0.8, 10.0, 30.0])], desc="wide")], complex=False,
           errors=[_not_for("erfcx_cpu", C1)]),
    OpCase("special_ndtri", func="special.ndtri", samples=[*_s(P01), Sample([TAILS], desc="tails")],
           complex=False, errors=[_not_for("ndtri_cpu", C1)]),
    OpCase("special_log_ndtr", func="special.log_ndtr",
           samples=[*_s(SYM), Sample([np.array([-30.0, -2.0, 0.5, 8.0])], desc="wide")], complex=False,
           errors=[_not_for("log_ndtr_cpu", C1)]),
    OpCase("special_ndtr", func="special.ndtr", samples=[*_s(SYM)], covers=("erf", "mul", "add"), complex=False,
           errors=[_not_for("erf_vml_cpu", C1)]),
    # ------------------------------------------------------------ entr, xlog1py
    OpCase("special_entr", func="special.entr", samples=[*_s(POS)], complex=False,
           errors=[_not_for("entr_cpu", C1)]),
    OpCase("special_entr_values", func="special.entr", op="special_entr",
           samples=[Sample([np.array([0.0, -1.0, 2.0, np.nan, np.inf])], desc="edges"),
                    Sample([I2], desc="int")], differentiable=False, complex=False, low_precision=False),
    OpCase("special_xlog1py", func="special.xlog1py",
           samples=[Sample([SYM, Y1]), Sample([np.where(SYM > 1, 0.0, SYM), Y1], desc="zeros in x"),
                    Sample([SYM, Y1[0]], desc="broadcast")],
           complex=False, errors=[_not_for("xlog1py_cpu", C1, C1)]),
    OpCase("special_xlog1py_scalar",
           lambda T, x, y: (T.special.xlog1py(x, 2.5), T.special.xlog1py(3.0, y)),
           [Sample([SYM, Y1])], covers=("special_xlog1py",), complex=False),
]
