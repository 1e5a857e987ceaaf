"""Table entries for ops/stats.py (quantile/nanquantile, nanmedian, cov/corrcoef, isin, gcd/lcm,
ldexp, frexp, nextafter, the trapezoid rule, cartesian_prod, combinations)."""
import numpy as np

from .more import _along
from . import E, OpCase, Sample, arr

A = arr(3, 4, seed=81)
B = arr(2, 3, 5, seed=82)
V = arr(7, seed=83)
AN = A.copy()
AN[1, 2] = np.nan
AN[0, 0] = np.nan
Q = [0.0, 0.25, 0.5, 0.9, 1.0]
MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _q(name):
    def f(T, x, q=0.3, dim=None, keepdim=False, interpolation="linear"):
        if isinstance(q, list):
            q = T.tensor(q, dtype=x.dtype)
        return getattr(T, name)(x, q, dim, keepdim, interpolation=interpolation)
    f.__name__ = name
    return f


def _q_samples(x, xn):
    s = [Sample([x]), Sample([x], {"q": Q, "dim": 1}, desc="1-d q, dim"),
         Sample([x], {"q": 0.5, "dim": 0, "keepdim": True}, desc="keepdim"),
         Sample([x], {"q": Q, "keepdim": True}, desc="1-d q keepdim all"),
         Sample([B], {"q": [0.1, 0.6], "dim": -2}, desc="3-d"),
         Sample([np.array(1.5)], {"q": [0.2, 0.7]}, desc="0-d"),
         ] + ([Sample([xn], {"q": Q, "dim": 1}, desc="nan")] if xn is not None else [])
    for m in MODES[1:]:
        s.append(Sample([x], {"q": Q, "dim": 1, "interpolation": m}, desc=m))
    return s


def _q_errors(name):
    return [E(RuntimeError, "quantile() q must be in the range [0, 1] but got 1.5", A, q=1.5, desc="q"),
            E(RuntimeError, "quantile() q values must be in the range [0, 1]", A, q=[0.5, -0.5], desc="q values"),
            E(RuntimeError, "quantile() interpolation must be one of linear, lower, higher, midpoint or "
              "nearest, but got foo", A, interpolation="foo", desc="interpolation"),
            E(RuntimeError, "quantile() input tensor must be non-empty", np.zeros((0, 3)), desc="empty"),
            E(RuntimeError, "quantile() q must be a scalar or 1D tensor", A, desc="2-d q",
              fn=lambda T, x: getattr(T, name)(x, T.full((1, 1), 0.5, dtype=x.dtype))),
            E(RuntimeError, "quantile() input tensor must be either float or double dtype", A.astype(np.int64),
              desc="int"),
            E(RuntimeError, "quantile() q tensor must be same dtype as the input tensor", A, desc="q dtype",
              fn=lambda T, x: getattr(T, name)(x, T.tensor([0.5], dtype=T.float32))),
            E(IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)", A, dim=2,
              desc="dim")]


def _trapz(name):
    def f(T, y, *x, dx=None, dim=-1):
        if dx is not None:
            return getattr(T, name)(y, dx=dx, dim=dim)
        return getattr(T, name)(y, *x, dim=dim)
    f.__name__ = name
    return f


def _histogram(T, x, bins=100, range=None, weight=None, density=False):
    # (edges and weights as arrays made into tensors here: the generic tests batch x only)
    if isinstance(bins, np.ndarray):
        bins = T.tensor(bins, dtype=x.dtype)
    if weight is not None:
        weight = T.tensor(weight, dtype=x.dtype)
    kw = {} if range is None else {"range": range}
    return tuple(T.histogram(x, bins, weight=weight, density=density, **kw))


def _gradient(T, y, *coords, **kw):
    if coords:
        kw["spacing"] = list(coords)
    return T.gradient(y, **kw)


def _nanmedian_dim(T, x, dim=0, keepdim=False):
    return tuple(T.nanmedian(x, dim, keepdim))


def _cov(T, x, correction=1):
    return T.cov(x, correction=correction)


def _cov_aw(T, x, aw, correction=1):
    return T.cov(x, correction=correction, aweights=aw)


def _cov_w(T, x, fw, aw=None, correction=1):
    return T.cov(x, correction=correction, fweights=fw, aweights=aw)


FW = np.array([1, 2, 0, 3, 1])
AW = arr(5, lo=0.2, hi=2.0, seed=84)
X5 = arr(3, 5, seed=85)
I1 = np.array([[12, -18, 0, 7], [5, 9, 100, -4]])
I2 = np.array([8, 12, 0, -21])
W34 = arr(3, 4, lo=0.0, hi=2.0, seed=97)
COORD3 = np.array([0.0, 1.0, 3.0])
COORD4 = np.array([-1.0, 0.5, 0.75, 2.0])
XS = np.cumsum(arr(3, 4, lo=0.1, hi=1.0, seed=96), axis=1)

CASES = [
    OpCase("quantile", _q("quantile"), _q_samples(A, None), covers=("sort", "gather", "lerp"),
           complex=False, low_precision=False, errors=_q_errors("quantile")),
    OpCase("nanquantile", _q("nanquantile"), _q_samples(A, AN), covers=("sort", "gather", "lerp"),
           complex=False, low_precision=False, errors=_q_errors("nanquantile")),
    OpCase("nanmedian", samples=[Sample([A]), Sample([AN], desc="nan"), Sample([np.array(0.7)], desc="0-d")],
           complex=False,
           errors=[E(NotImplementedError, "\"median_cpu\" not implemented for 'ComplexDouble'",
                     A.astype(np.complex128), desc="complex"),
                   E(NotImplementedError, "\"median_cpu\" not implemented for 'Bool'", A > 0, desc="bool")]),
    OpCase("_nanmedian_along", lambda T, x, dim: _along(T, "nanmedian", x, dim),
           samples=[Sample([A], {"dim": 1}), Sample([AN], {"dim": 0}, desc="nan")], complex=False),
    OpCase("nanmedian_dim", _nanmedian_dim,
           [Sample([A]), Sample([AN], {"dim": 1}, desc="nan"), Sample([B], {"dim": -1, "keepdim": True},
                                                                     desc="keepdim"),
            Sample([np.array(0.7)], desc="0-d")],
           complex=False,
           errors=[E(IndexError, "median(): Expected reduction dim 0 to have non-zero size.", np.zeros((0, 3)),
                     desc="empty"),
                   E(NotImplementedError, "\"median_out\" not implemented for 'ComplexDouble'",
                     A.astype(np.complex128), desc="complex")]),
    OpCase("cov", _cov,
           [Sample([X5]), Sample([X5], {"correction": 0}, desc="correction 0"),
            Sample([V], desc="1-d"), Sample([X5], {"correction": 2}, desc="correction 2")],
           covers=("mm", "sub"), zero_size=False,
           errors=[E(RuntimeError, "cov(): expected input to have two or fewer dimensions but got an input "
                     "with 3 dimensions", B, desc="3-d"),
                   E(TypeError, "cov(): argument 'correction' must be int, not float", X5, correction=1.5,
                     desc="float correction")]),
    OpCase("cov_weights", _cov_w,
           [Sample([X5, FW], desc="fweights"),
            Sample([X5, FW, AW], desc="both weights"),
            Sample([X5, FW, AW], {"correction": 0}, desc="both weights, correction 0"),
            ],
           covers=("mm", "sub"), zero_size=False, complex=False, low_precision=False, noncontig=False,
           errors=[E(RuntimeError, "cov(): expected fweights to have integral dtype but got fweights with "
                     "Double dtype", X5, AW, desc="float fweights"),
                   E(RuntimeError, "cov(): fweights cannot be negative", X5, -FW, desc="negative"),
                   E(RuntimeError, "cov(): expected fweights to have one or fewer dimensions but got fweights "
                     "with 2 dimensions", X5, FW.reshape(1, 5), desc="2-d fweights"),
                   ]),
    OpCase("cov_aweights", _cov_aw,
           [Sample([X5, AW], desc="aweights"), Sample([X5, AW], {"correction": 3}, desc="correction 3"),
            Sample([V[:5], AW], {"correction": 0}, desc="1-d")],
           covers=("mm", "sub"), zero_size=False, complex=False, low_precision=False, noncontig=False,
           errors=[E(RuntimeError, "cov(): expected aweights to have the same numel as there are observations "
                     "in the input but got 7 != 5", X5, V, desc="numel"),
                   E(RuntimeError, "cov(): aweights cannot be negative", X5, -AW, desc="negative aweights"),
                   E(RuntimeError, "cov(): expected aweights to have one or fewer dimensions but got aweights "
                     "with 2 dimensions", X5, AW.reshape(1, 5), desc="2-d aweights"),
                   E(RuntimeError, "cov(): expected aweights to have floating point dtype but got aweights "
                     "with Long dtype", X5, FW, desc="int aweights")]),
    OpCase("corrcoef", lambda T, x: T.corrcoef(x), [Sample([X5]), Sample([arr(2, 6, seed=86)], desc="2x6")],
           covers=("mm", "clamp"), zero_size=False,
           errors=[E(RuntimeError, "corrcoef(): expected input to have two or fewer dimensions but got an "
                     "input with 3 dimensions", B, desc="3-d")]),
    OpCase("isin", lambda T, e, t, invert=False: T.isin(e, t, invert=invert),
           [Sample([np.array([[1, 2, 3], [4, 5, 6]]), np.array([2, 6, 9])]),
            Sample([np.array([1.0, np.nan, 2.5]), np.array([2.5, np.nan])], desc="float nan"),
            Sample([np.array([1, 2, 3]), np.array([2.0, 2.5])], desc="mixed", ),
            Sample([np.array([[1, 2, 3]]), np.array([3])], {"invert": True}, desc="invert")],
           differentiable=False, complex=False, low_precision=False,
           errors=[E(RuntimeError, "Unsupported input type encountered for isin(): Bool",
                     np.array([True]), np.array([True]), desc="bool"),
                   E(RuntimeError, "Unsupported input type encountered for isin(): ComplexDouble",
                     np.array([1j]), np.array([1.0]), desc="complex")]),
    OpCase("isin_scalar", lambda T, e: (T.isin(e, 2), T.isin(3, e), T.isin(2.5, e)),
           [Sample([np.array([1, 2, 3])])], op="isin", differentiable=False, complex=False),
    OpCase("gcd", samples=[Sample([I1, I2]), Sample([I1.astype(np.int32), I2[:1]], desc="broadcast int32")],
           differentiable=False, complex=False, low_precision=False,
           errors=[E(NotImplementedError, "\"gcd_cpu\" not implemented for 'Double'", A, A, desc="float"),
                   E(TypeError, "gcd(): argument 'other' (position 2) must be Tensor, not int", I1, desc="number",
                     fn=lambda T, x: T.gcd(x, 3))]),
    OpCase("lcm", samples=[Sample([I1, I2]), Sample([I1.astype(np.uint8) % 10, I2.astype(np.int8)], desc="promote")],
           differentiable=False, complex=False, low_precision=False,
           errors=[E(NotImplementedError, "\"lcm_cpu\" not implemented for 'Bool'", I1 > 0, I2 > 0, desc="bool")]),
    OpCase("nextafter", samples=[Sample([A, arr(3, 4, seed=87)]), Sample([A, np.full((3, 4), np.inf)], desc="to inf"),
                                 Sample([np.array([0.0, -0.0, 1.0]), np.array([1.0, -1.0, np.inf])], desc="zeros"),
                                 Sample([A, arr(4, seed=88)], desc="broadcast")],
           complex=False, float_only=False,
           errors=[E(NotImplementedError, "\"nextafter_cpu\" not implemented for 'Long'", I1, I2, desc="int"),
                   E(TypeError, "nextafter(): argument 'other' (position 2) must be Tensor, not float", A,
                     desc="number", fn=lambda T, x: T.nextafter(x, 3.0))]),
    # (integer exponents here are >= 0: PyTorch's gradient at a negative one is 0, where tensorplay's is
    # 2 ** e, the derivative; see tests/test_stats.py)
    OpCase("ldexp", lambda T, x, e: T.ldexp(x, e),
           [Sample([A, np.array([[1, 2, 0, 3]])]), Sample([A, arr(3, 4, seed=89)], desc="float exponent"),
            Sample([A[0], np.array(2)], desc="0-d exponent")],
           covers=("mul", "pow"), complex=False,
           errors=[E(TypeError, "ldexp(): argument 'other' (position 2) must be Tensor, not int", A, desc="number",
                     fn=lambda T, x: T.ldexp(x, 2))]),
    OpCase("ldexp_", lambda T, x, e: (x * 1).ldexp_(e),
           [Sample([A, np.array([[1, 2, 0, 3]])])], covers=("mul", "pow"), complex=False,
           errors=[E(RuntimeError, "ldexp can't be cast to the desired output type Long", I1, I2, desc="int",
                     fn=lambda T, x, e: x.ldexp_(e))]),
    OpCase("frexp", lambda T, x: tuple(T.frexp(x)),
           [Sample([A * 10]), Sample([np.array([0.3, -3.5, 1000.7])], desc="exponents"),
            Sample([np.array(6.0)], desc="0-d")],
           complex=False,
           errors=[E(RuntimeError, "torch.frexp() only supports floating-point dtypes", I1, desc="int"),
                   E(RuntimeError, "torch.frexp() only supports floating-point dtypes", A.astype(np.complex128),
                     desc="complex")]),
    OpCase("trapezoid", _trapz("trapezoid"),
           [Sample([A]), Sample([A], {"dx": 0.5, "dim": 0}, desc="dx"), Sample([A, XS], desc="x"),
            Sample([B, arr(2, 3, 5, seed=90)], {"dim": 1}, desc="x same shape"),
            Sample([A, arr(4, seed=91)], {"dim": -1}, desc="x 1-d"), Sample([A[:, :1]], desc="one sample")],
           covers=("sum", "mul"),
           errors=[E(RuntimeError, "trapezoid: There must be one `x` value for each sample point", A, V, desc="x len"),
                   E(RuntimeError, "trapezoid: received a bool input for `y`, but bool is not supported", A > 0,
                     desc="bool"),
                   E(IndexError, "Dimension specified as -1 but tensor has no dimensions", np.array(1.0),
                     desc="0-d"),
                   E(RuntimeError, "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
                     "dimension 0", arr(2, 3, seed=92), arr(3, 3, seed=93), desc="broadcast")]),
    OpCase("trapz", _trapz("trapz"), [Sample([A, XS], desc="x"), Sample([A], {"dx": 2.0}, desc="dx")],
           covers=("sum", "mul")),
    OpCase("cumulative_trapezoid", _trapz("cumulative_trapezoid"),
           [Sample([A]), Sample([A], {"dx": 0.5, "dim": 0}, desc="dx"), Sample([A, XS], desc="x"),
            Sample([B, arr(5, seed=94)], {"dim": -1}, desc="x 1-d")],
           covers=("cumsum", "mul"),
           errors=[E(RuntimeError, "cumulative_trapezoid: There must be one `x` value for each sample point", A,
                     V, desc="x len"),
                   E(RuntimeError, "cumulative_trapezoid: received a bool input for `y`, but bool is not "
                     "supported", A > 0, desc="bool")]),
    OpCase("cartesian_prod", lambda T, *xs: T.cartesian_prod(*xs),
           [Sample([V[:3], arr(2, seed=95)]), Sample([V[:2], V[2:5], V[5:7]], desc="three"),
            Sample([V], desc="one")],
           covers=("stack",),
           errors=[E(RuntimeError, "Expect a 1D vector, but got shape [3, 4]", A, desc="2-d"),
                   E(RuntimeError, "meshgrid expects all tensors to have the same dtype", V, I2, desc="dtypes")]),
    OpCase("combinations", lambda T, x, r=2, with_replacement=False: T.combinations(x, r, with_replacement),
           [Sample([V[:4]]), Sample([V[:4]], {"r": 3}, desc="r=3"),
            Sample([V[:3]], {"r": 2, "with_replacement": True}, desc="with replacement"),
            Sample([V[:3]], {"r": 1}, desc="r=1"), Sample([V[:2]], {"r": 3}, desc="r > n")],
           covers=("index_select",),
           errors=[E(RuntimeError, "Expect a 1D vector, but got shape [3, 4]", A, desc="2-d"),
                   E(RuntimeError, "Expect a non-negative number, but got -1", V, r=-1, desc="negative r")]),
    OpCase("histogram", _histogram,
           [Sample([A]), Sample([A], {"bins": 5, "range": (-1.0, 1.5)}, desc="range"),
            Sample([A], {"bins": np.array([-2.0, -0.5, 0.0, 0.3, 2.0])}, desc="edges"),
            Sample([A], {"bins": 4, "weight": W34, "density": True}, desc="weight density"),
            Sample([V], {"bins": np.array([-2.0, 0.0, 3.0]), "density": True}, desc="edges density"),
            Sample([np.array([1.0, 1.0])], {"bins": 2}, desc="one value")],
           differentiable=False, complex=False, low_precision=False,
           errors=[E(RuntimeError, "torch.histogram(): bins must be > 0, but got 0 for dimension 0", A, bins=0,
                     desc="bins"),
                   E(RuntimeError, "torch.histogramdd: min should not exceed max, but got min 4 max 1 for "
                     "dimension 0", A, bins=3, range=(4.0, 1.0), desc="range"),
                   E(RuntimeError, "torch.histogramdd: dimension 0's range [1, inf] is not finite",
                     np.array([1.0, np.inf]), bins=2, desc="inf"),
                   E(NotImplementedError, "\"histogramdd\" not implemented for 'Long'", I2, bins=2, desc="int"),
                   E(RuntimeError, "torch.histogramdd: bins tensor should have one dimension, but got 2 "
                     "dimensions in the bins tensor for dimension 0", A, bins=np.zeros((1, 2)), desc="2-d edges"),
                   E(RuntimeError, "torch.histogramdd: if weight tensor is provided it should have the same shape "
                     "as the input tensor excluding its innermost dimension, but got input with shape [12, 1] "
                     "and weight with shape [7]", A, weight=V, bins=3, desc="weight shape")]),
    OpCase("unravel_index", lambda T, i, shape=(3, 4): T.unravel_index(i, shape),
           [Sample([np.array([4, 1, 7, 11])]), Sample([np.array([[4, -1], [12, -13]])], desc="wrap"),
            Sample([np.array(5)], {"shape": [2, 3, 2]}, desc="0-d"),
            Sample([np.array([3], np.int32)], {"shape": 5}, desc="int shape")],
           covers=("remainder",), differentiable=False, complex=False,
           errors=[E(TypeError, "expected 'indices' to be integer dtype, but got (torch|tensorplay).float64", V,
                     regex=True, desc="float"),
                   E(ValueError, "'shape' cannot have negative values, but got (3, -4)", I2, shape=(3, -4),
                     desc="negative")]),
    OpCase("gradient", _gradient,
           [Sample([A]), Sample([A], {"spacing": 2.0, "edge_order": 2}, desc="spacing edge 2"),
            Sample([A], {"spacing": [0.5, 3.0]}, desc="spacings"),
            Sample([A, COORD3, COORD4], desc="coordinates"),
            Sample([A, COORD3, COORD4], {"edge_order": 2}, desc="coordinates edge 2"),
            Sample([B, COORD4[:3]], {"dim": 1}, desc="3-d one dim", grad=[0]),
            Sample([B], {"dim": [0, -1]}, desc="dims")],
           covers=("cat", "slice"),
           errors=[E(RuntimeError, "torch.gradient only supports edge_order=1 and edge_order=2.", A, edge_order=3,
                     desc="edge order"),
                   E(RuntimeError, "torch.gradient expected each dimension size to be at least edge_order+1",
                     A[:, :2], edge_order=2, desc="small"),
                   E(RuntimeError, "torch.gradient expected spacing to be unspecified, a scalar, or a list of "
                     "length equal to 'self.dim() = 2', since dim argument was not given, but got a list of length 3",
                     A, spacing=[1.0, 2.0, 3.0], desc="spacing length"),
                   E(RuntimeError, "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
                     "dim arguments to have the same length, but got a spacing argument of length 1 and a dim "
                     "argument of length 2.", A, spacing=[1.0], dim=[0, 1], desc="spacing and dim"),
                   E(RuntimeError, "dim 0 appears multiple times in the list of dims", A, dim=[0, 0], desc="dims")]),
]
