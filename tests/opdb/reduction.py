"""Table entries for ops/reduction.py."""
import numpy as np

from . import OpCase, Sample, arr, pos

A = arr(2, 3, 4, seed=11)
M = arr(3, 5, seed=12)
S0 = np.array(0.7)                                   # a 0-d sample

# zeros for prod / cumprod: one zero in a slice, several zeros in a slice
Z1 = arr(3, 4, seed=13)
Z1[0, 2] = 0.0
Z2 = arr(3, 4, seed=14)
Z2[1, 0] = Z2[1, 3] = 0.0
Z2[2, 1] = 0.0
Z3 = arr(2, 5, seed=15)
Z3[0, 1] = Z3[0, 2] = Z3[0, 4] = 0.0                 # three zeros in one row
ZFULL1 = arr(5, seed=16)
ZFULL1[3] = 0.0
ZFULL2 = arr(2, 3, seed=17)
ZFULL2[0, 1] = ZFULL2[1, 2] = 0.0

# two-way ties (central differences see each tied element with slope 1/2,
# which is what the even split gives)
T2 = arr(3, 4, seed=18)
T2[0, 3] = T2[0, 1] = T2[0].max() + 0.5             # row 0: a tied maximum
T2[1, 0] = T2[1, 2] = T2[1].min() - 0.5             # row 1: a tied minimum
T2[2, 1] = T2[2, 3] = 3.0                            # global max tie
T2[1, 1] = T2[2, 2] = -3.0                           # global min tie
# many-way ties, values only
T3 = np.array([[1.0, 3.0, 3.0, 3.0], [2.0, 2.0, -1.0, 2.0], [0.0, 0.0, 0.0, 0.0]])
INT = np.array([[3, 1, 4, 1], [5, 9, 2, 6], [5, 3, 5, 8]], dtype=np.int64)
BOOLS = np.array([[True, False, True], [True, True, True]])

# a zero row for norm's gradient at 0
NZ = arr(3, 4, seed=19)
NZ[1] = 0.0
# -inf entries for logsumexp (finite results and gradients)
NINF = arr(3, 4, seed=20)
NINF[0, 1] = NINF[2, 0] = NINF[2, 3] = -np.inf
INFS = np.array([[np.inf, 1.0, 2.0], [-np.inf, -np.inf, -np.inf], [-np.inf, 0.5, np.inf],
                 [np.inf, np.inf, 1.0]])
BIG = arr(3, 4, seed=21) * 300.0                     # exp would overflow without the max shift

MINMAX_DIM_SAMPLES = [
    Sample([A]), Sample([A], {"dim": -1, "keepdim": True}, desc="neg keepdim"),
    Sample([M], {"dim": 0}), Sample([S0], {"dim": 0}, desc="0-d"),
    Sample([S0], {"dim": -1, "keepdim": True}, desc="0-d keepdim")]

CASES = [
    # ------------------------------------------------------------ prod
    OpCase("prod", lambda T, x: T.prod(x),
           [Sample([M]), Sample([S0], desc="0-d"), Sample([ZFULL1], desc="one zero"),
            Sample([ZFULL2], desc="two zeros"), Sample([Z3], desc="three zeros")],
           covers=("prod", "cumprod", "_shift_dim", "_flip_dim")),
    OpCase("prod_dim", lambda T, x, dim=1, keepdim=False: x.prod(dim, keepdim),
           [Sample([A]), Sample([A], {"dim": -1, "keepdim": True}, desc="neg keepdim"),
            Sample([A], {"dim": 0}), Sample([S0], {"dim": 0}, desc="0-d"),
            Sample([Z1], {"dim": 1}, desc="one zero"), Sample([Z1], {"dim": 0}, desc="one zero d0"),
            Sample([Z2], {"dim": 1}, desc="zeros"), Sample([Z3], {"dim": -1}, desc="three zeros")],
           covers=("prod_dim", "cumprod", "_shift_dim", "_flip_dim")),
    OpCase("prod_dtype", lambda T, x: T.prod(x, 1, dtype=T.float64) + x.prod(dtype=T.float64),
           [Sample([M])], covers=("prod", "prod_dim"), preserves_dtype=False, complex=False,
           low_precision=False),
    # ------------------------------------------------------------ max / min
    OpCase("max_min_full", lambda T, x: (T.max(x), x.min()),
           [Sample([M]), Sample([A]), Sample([S0], desc="0-d")],
           covers=("max", "min"), complex=False),
    OpCase("max_min_full_ties", lambda T, x: (x.max(), T.min(x)),
           [Sample([T2], desc="2-way ties")], covers=("max", "min"), complex=False, gradgrad=False),
    # gradcheck takes only differentiable outputs: the values here, the indices below
    OpCase("max_min_dim", lambda T, x, dim=1, keepdim=False: (T.max(x, dim, keepdim)[0],
                                                             x.min(dim=dim, keepdim=keepdim).values),
           MINMAX_DIM_SAMPLES, covers=("max_dim", "min_dim"), complex=False),
    OpCase("max_min_dim_indices", lambda T, x, dim=1, keepdim=False: tuple(T.max(x, dim, keepdim)) +
           tuple(x.min(dim=dim, keepdim=keepdim)),
           MINMAX_DIM_SAMPLES, covers=("max_dim", "min_dim"), complex=False, differentiable=False),
    OpCase("max_min_dim_ties", lambda T, x, dim=1: (x.max(dim).values, x.max(dim).indices,
                                                    x.min(dim)[0], x.min(dim)[1]),
           [Sample([T3]), Sample([T3], {"dim": 0}), Sample([INT], desc="int"),
            Sample([INT], {"dim": 0}, desc="int d0"), Sample([BOOLS], desc="bool")],
           covers=("max_dim", "min_dim"), complex=False, differentiable=False),
    OpCase("max_binary", lambda T, x, y: (T.max(x, y), T.min(x, y), T.max(x, other=y)),
           [Sample([M, arr(3, 5, seed=3)]), Sample([M, arr(5, seed=4)], desc="broadcast")],
           covers=("maximum", "minimum"), complex=False),
    OpCase("amax_amin", lambda T, x, dim=(), keepdim=False: (T.amax(x, dim, keepdim), x.amin(dim, keepdim)),
           [Sample([A]), Sample([A], {"dim": 1}), Sample([A], {"dim": (0, -1)}, desc="dims"),
            Sample([A], {"dim": [-1], "keepdim": True}, desc="neg keepdim"),
            Sample([A], {"dim": (0, 1, 2), "keepdim": True}, desc="all keepdim"),
            Sample([S0], desc="0-d"), Sample([S0], {"dim": 0}, desc="0-d dim")],
           covers=("amax", "amin"), complex=False),
    OpCase("amax_amin_ties", lambda T, x, dim=(), keepdim=False: (x.amax(dim, keepdim), T.amin(x, dim, keepdim)),
           [Sample([T2], desc="all"), Sample([T2], {"dim": 1}, desc="rows"),
            Sample([T2], {"dim": -1, "keepdim": True}, desc="rows keepdim")],
           covers=("amax", "amin"), complex=False, gradgrad=False),
    OpCase("aminmax", lambda T, x, **kw: tuple(T.aminmax(x, **kw)),
           [Sample([A]), Sample([A], {"dim": 1}), Sample([A], {"dim": -1, "keepdim": True}, desc="keepdim"),
            Sample([S0], desc="0-d")],
           covers=("aminmax",), complex=False),
    OpCase("aminmax_ties", lambda T, x, **kw: tuple(x.aminmax(**kw)),
           [Sample([T2]), Sample([T2], {"dim": 1}, desc="rows")],
           covers=("aminmax",), complex=False, gradgrad=False),
    OpCase("argmax_argmin", lambda T, x, **kw: (T.argmax(x, **kw), x.argmin(**kw)),
           [Sample([A]), Sample([A], {"dim": 1}), Sample([A], {"dim": -1, "keepdim": True}, desc="keepdim"),
            Sample([A], {"keepdim": True}, desc="all keepdim"), Sample([S0], desc="0-d"),
            Sample([S0], {"dim": 0}, desc="0-d dim"), Sample([T3], desc="ties"),
            Sample([T3], {"dim": 1}, desc="ties rows"), Sample([INT], {"dim": 0}, desc="int"),
            Sample([INT.astype(np.uint8)], desc="uint8")],
           covers=("argmax", "argmin"), complex=False, differentiable=False),
    # ------------------------------------------------------------ var / std
    OpCase("var", lambda T, x, **kw: T.var(x, **kw),
           [Sample([A]), Sample([A], {"dim": 1}), Sample([A], {"dim": (0, -1), "keepdim": True}, desc="dims keepdim"),
            Sample([A], {"dim": -1, "unbiased": False}, desc="biased"),
            Sample([A], {"dim": 2, "correction": 2}, desc="correction 2"),
            Sample([S0], {"correction": 0}, desc="0-d")],
           covers=("var",)),
    OpCase("std", lambda T, x, **kw: x.std(**kw),
           [Sample([A]), Sample([A], {"dim": 1}), Sample([A], {"dim": (0, -1), "keepdim": True}, desc="dims keepdim"),
            Sample([A], {"dim": -1, "correction": 0}, desc="correction 0"),
            Sample([M], {"dim": 0, "unbiased": True}, desc="unbiased")],
           covers=("std",)),
    OpCase("var_std_positional", lambda T, x: (x.var(1, False, True), T.std(x, 0, True), x.var(False)),
           [Sample([M])], covers=("var", "std")),
    OpCase("var_mean_std_mean", lambda T, x: T.var_mean(x, 1) + T.std_mean(x, (0, 1), keepdim=True),
           [Sample([A])], covers=("var", "std", "mean")),
    # ------------------------------------------------------------ norm
    OpCase("norm", lambda T, x, p=2, **kw: T.norm(x, p, **kw),
           [Sample([A], desc="2"), Sample([A], {"p": 1}, desc="1"), Sample([A], {"p": 3}, desc="3"),
            Sample([A], {"p": 0.5}, desc="0.5"), Sample([A], {"p": 1.5}, desc="1.5"),
            Sample([A], {"p": float("inf")}, desc="inf"), Sample([A], {"p": -float("inf")}, desc="-inf"),
            Sample([A], {"p": 0}, desc="0"), Sample([A], {"p": "fro"}, desc="fro"),
            Sample([S0], desc="0-d")],
           covers=("linalg_vector_norm",)),
    OpCase("norm_dim", lambda T, x, p=2, **kw: x.norm(p, **kw),
           [Sample([A], {"dim": 1}, desc="2"), Sample([A], {"dim": -1, "keepdim": True}, desc="2 keepdim"),
            Sample([A], {"p": 1, "dim": (0, 2)}, desc="1 dims"),
            Sample([A], {"p": float("inf"), "dim": 0}, desc="inf"),
            Sample([A], {"p": -float("inf"), "dim": -2, "keepdim": True}, desc="-inf"),
            Sample([A], {"p": 3, "dim": 1}, desc="3"), Sample([A], {"p": 0.5, "dim": 2}, desc="0.5"),
            Sample([A], {"p": "fro", "dim": (1, 2)}, desc="fro dims")],
           covers=("linalg_vector_norm",)),
    OpCase("norm_at_zero", lambda T, x, p=2, **kw: T.norm(x, p, **kw),
           [Sample([NZ], {"dim": 1}, desc="2"), Sample([np.zeros((2, 3))], desc="2 all zero"),
            Sample([NZ], {"p": 3, "dim": 1}, desc="3"), Sample([NZ], {"p": 1.5, "dim": -1}, desc="1.5")],
           covers=("linalg_vector_norm",), gradgrad=False, complex=False),
    # ------------------------------------------------------------ logsumexp
    OpCase("logsumexp", lambda T, x, dim=1, keepdim=False: T.logsumexp(x, dim, keepdim),
           [Sample([A]), Sample([A], {"dim": (0, 2)}, desc="dims"),
            Sample([A], {"dim": -1, "keepdim": True}, desc="neg keepdim"),
            Sample([S0], {"dim": 0}, desc="0-d"), Sample([BIG], {"dim": 1}, desc="large")]),
    OpCase("logsumexp_neginf", lambda T, x, dim=1: x.logsumexp(dim),
           [Sample([NINF]), Sample([NINF], {"dim": 0}, desc="d0")],
           covers=("logsumexp",), complex=False),
    OpCase("logsumexp_inf", lambda T, x, dim=1: T.logsumexp(x, dim),
           [Sample([INFS]), Sample([INFS], {"dim": 0}, desc="d0")],
           covers=("logsumexp",), complex=False, differentiable=False),
    OpCase("logsumexp_int", lambda T, x: T.logsumexp(x, 0), [Sample([INT])],      # -> float32
           covers=("logsumexp",), complex=False, differentiable=False, low_precision=False),
    # ------------------------------------------------------------ cumsum / cumprod
    OpCase("cumsum", lambda T, x, dim=1: T.cumsum(x, dim),
           [Sample([A]), Sample([A], {"dim": -1}, desc="neg"), Sample([A], {"dim": 0}),
            Sample([S0], {"dim": 0}, desc="0-d")],
           covers=("cumsum", "_flip_dim")),
    OpCase("cumsum_dtype", lambda T, x: x.cumsum(0, dtype=T.float64), [Sample([M])],
           covers=("cumsum",), preserves_dtype=False, low_precision=False, complex=False),
    OpCase("cumsum_cumprod_int", lambda T, x: (x.cumsum(1), T.cumprod(x, 0), x.prod(), x.prod(1)),
           [Sample([INT]), Sample([BOOLS], desc="bool")],
           covers=("cumsum", "cumprod", "prod", "prod_dim"), differentiable=False, complex=False),
    OpCase("cumprod", lambda T, x, dim=1: T.cumprod(x, dim),
           [Sample([A]), Sample([A], {"dim": -1}, desc="neg"), Sample([A], {"dim": 0}),
            Sample([S0], {"dim": 0}, desc="0-d"), Sample([Z1], {"dim": 1}, desc="one zero"),
            Sample([Z2], {"dim": 1}, desc="zeros"), Sample([Z2], {"dim": 0}, desc="zeros d0"),
            Sample([Z3], {"dim": -1}, desc="three zeros")],
           covers=("cumprod", "_flip_dim")),
    # ------------------------------------------------------------ all / any
    OpCase("all_any", lambda T, x, **kw: (T.all(x, **kw), x.any(**kw)),
           [Sample([BOOLS]), Sample([BOOLS], {"dim": 1}, desc="dim"),
            Sample([BOOLS], {"dim": 0, "keepdim": True}, desc="keepdim"),
            Sample([T3], {"dim": -1}, desc="float"), Sample([INT - 1], desc="int"),
            Sample([(INT % 2).astype(np.uint8)], {"dim": 1}, desc="uint8"),
            Sample([np.array(0.0)], desc="0-d"), Sample([np.zeros((0, 3))], desc="empty"),
            Sample([T3], {"dim": (0, 1)}, desc="dims")],
           covers=("all", "any"), complex=False, differentiable=False),
    # ------------------------------------------------------------ softmax / log_softmax
    OpCase("softmax", lambda T, x, dim=1: (T.softmax(x, dim), x.log_softmax(dim)),
           [Sample([A]), Sample([A], {"dim": -1}, desc="neg"), Sample([A], {"dim": 0}),
            Sample([S0], {"dim": 0}, desc="0-d"), Sample([BIG], {"dim": 1}, desc="large")],
           covers=("softmax", "log_softmax"), complex=False),
    OpCase("softmax_functional", lambda T, x: (T.nn.functional.softmax(x, dim=-1),
                                               T.nn.functional.log_softmax(x, 0)),
           [Sample([M])], covers=("softmax", "log_softmax"), complex=False),
    OpCase("softmax_dtype", lambda T, x: (T.softmax(x, 1, dtype=T.float64), x.log_softmax(0, dtype=T.float64)),
           [Sample([M])], covers=("softmax", "log_softmax"), complex=False,
           preserves_dtype=False, low_precision=False),
]

del pos
