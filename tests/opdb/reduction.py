"""Table entries for ops/reduction.py."""
import numpy as np

from . import E, OpCase, Sample, arr, pos

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

EMPTY = np.zeros((0, 3))
CX = A.astype(np.complex128)


def _range(got, lo=-3, hi=2):
    return f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {got})"


def _np_reduce(f):
    def ref(x, dim=None, keepdim=False):
        if isinstance(dim, list) or dim == ():
            dim = tuple(dim) or None
        return f(x, axis=dim, keepdims=keepdim)
    return ref


def _no_dim(name, exc=RuntimeError):
    return E(exc, f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
             f"reduction dim with the 'dim' argument.", EMPTY, desc="empty")


def _empty_dim(name, dim=0, exc=IndexError):
    return E(exc, f"{name}(): Expected reduction dim 0 to have non-zero size.", EMPTY, dim=dim, desc="empty dim")


def _bad_dim(got, **kw):
    return E(IndexError, _range(got), A, desc="dim out of range", **kw)


def _not_float(msg, x, **kw):
    return E(RuntimeError, msg, x, desc=f"{x.dtype}", **kw)


MAX_ARGS = r"^max\(\) received an invalid combination of arguments - got \("   # the parsers' wordings differ

CASES = [
    # ------------------------------------------------------------ prod
    OpCase("prod", samples=[Sample([M]), Sample([S0], desc="0-d"), Sample([ZFULL1], desc="one zero"),
                            Sample([ZFULL2], desc="two zeros"), Sample([Z3], desc="three zeros")],
           covers=("prod", "cumprod", "_shift_dim", "_flip_dim"), ref=np.prod),
    OpCase("prod_dim", func="prod",
           samples=[Sample([A], {"dim": 1}), Sample([A], {"dim": -1, "keepdim": True}, desc="neg keepdim"),
                    Sample([A], {"dim": 0}), Sample([S0], {"dim": 0}, desc="0-d"),
                    Sample([Z1], {"dim": 1}, desc="one zero"), Sample([Z1], {"dim": 0}, desc="one zero d0"),
                    Sample([Z2], {"dim": 1}, desc="zeros"), Sample([Z3], {"dim": -1}, desc="three zeros")],
           covers=("prod_dim", "cumprod", "_shift_dim", "_flip_dim"), ref=_np_reduce(np.prod),
           errors=[_bad_dim(3, dim=3),
                   E(TypeError, r"^prod\(\) received an invalid combination of arguments - got \(tuple\)", A,
                     fn=lambda T, x: x.prod((0, 1)), regex=True, desc="tuple dim")]),
    OpCase("prod_dtype", lambda T, x: T.prod(x, 1, dtype=T.float64) + x.prod(dtype=T.float64),
           [Sample([M])], covers=("prod", "prod_dim"), preserves_dtype=False, complex=False,
           low_precision=False),
    # ------------------------------------------------------------ max / min
    *[OpCase(n, samples=[Sample([M]), Sample([A]), Sample([S0], desc="0-d")], complex=False,
             ref=getattr(np, n),
             errors=[_no_dim(n),
                     E(NotImplementedError, f"\"{n}_all\" not implemented for 'ComplexDouble'", CX,
                       desc="complex")])
      for n in ("max", "min")],
    OpCase("max_min_full_ties", lambda T, x: (x.max(), T.min(x)),
           [Sample([T2], desc="2-way ties")], covers=("max", "min"), complex=False, gradgrad=False),
    # values and indices; gradcheck differentiates the values
    *[OpCase(f"{n}_dim", func=n, samples=[Sample([A], {"dim": 1}), *MINMAX_DIM_SAMPLES[1:]], complex=False,
             ref=lambda x, dim, keepdim=False, n=n: (getattr(np, n)(x, axis=dim, keepdims=keepdim),
                                                     getattr(np, f"arg{n}")(x, axis=dim, keepdims=keepdim)),
             errors=[_empty_dim(n), _empty_dim(n, dim=-2), _bad_dim(3, dim=3), _bad_dim(-4, dim=-4),
                     E(IndexError, _range(1, -1, 0), np.array(0.5), dim=1, desc="0-d dim out of range"),
                     E(RuntimeError, f"{n}(): does not support complex input", CX, dim=0, desc="complex"),
                     E(TypeError, MAX_ARGS.replace("max", n), A, regex=True, dim=(0, 1), desc="tuple dim")])
      for n in ("max", "min")],
    OpCase("max_min_dim_method", lambda T, x, dim=1, keepdim=False: (x.max(dim, keepdim)[0],
                                                                    x.min(dim=dim, keepdim=keepdim).values),
           MINMAX_DIM_SAMPLES[:2], covers=("max_dim", "min_dim"), complex=False),
    OpCase("max_min_dim_ties", lambda T, x, dim=1: (x.max(dim).values, x.max(dim).indices,
                                                    x.min(dim)[0], x.min(dim)[1]),
           [Sample([T3]), Sample([T3], {"dim": 0}), Sample([INT], desc="int"),
            Sample([INT], {"dim": 0}, desc="int d0"), Sample([BOOLS], desc="bool")],
           covers=("max_dim", "min_dim"), complex=False, differentiable=False),
    OpCase("mode", lambda T, x, dim=-1, keepdim=False: x.mode(dim, keepdim).values,
           [Sample([M]), Sample([A], {"dim": 1, "keepdim": True}, desc="dim keepdim"),
            Sample([S0], {"dim": 0}, desc="0-d")], complex=False,
           ref=lambda x, dim=-1, keepdim=False: np.min(x, axis=dim, keepdims=keepdim),  # (all distinct)
           errors=[E(IndexError, "mode(): Expected reduction dim 0 to have non-zero size.",
                     np.zeros(0), desc="empty")]),
    OpCase("mode_ties", lambda T, x, dim=-1: (T.mode(x, dim).values, T.mode(x, dim).indices),
           [Sample([T3]), Sample([T3], {"dim": 0}, desc="d0"), Sample([INT], desc="int"),
            Sample([INT], {"dim": 0}, desc="int d0"), Sample([BOOLS], desc="bool")],
           op="mode", complex=False, differentiable=False),
    OpCase("max_binary", lambda T, x, y: (T.max(x, y), T.min(x, y), T.max(x, other=y)),
           [Sample([M, arr(3, 5, seed=3)]), Sample([M, arr(5, seed=4)], desc="broadcast")],
           covers=("maximum", "minimum"), complex=False,
           errors=[E(TypeError, MAX_ARGS, A, fn=lambda T, x: T.max(x, 1.0), regex=True, desc="float other")]),
    *[OpCase(n, samples=[Sample([A]), Sample([A], {"dim": 1}), Sample([A], {"dim": (0, -1)}, desc="dims"),
                         Sample([A], {"dim": [-1], "keepdim": True}, desc="neg keepdim"),
                         Sample([A], {"dim": (0, 1, 2), "keepdim": True}, desc="all keepdim"),
                         Sample([S0], desc="0-d"), Sample([S0], {"dim": 0}, desc="0-d dim")],
             complex=False, ref=_np_reduce(getattr(np, n)),
             errors=[_no_dim(n), _empty_dim(n), _bad_dim(5, dim=(0, 5)),
                     E(RuntimeError, "dim 0 appears multiple times in the list of dims", A, dim=(0, 0),
                       desc="repeated dim"),
                     E(NotImplementedError, f"\"{n[1:]}_values_cpu\" not implemented for 'ComplexDouble'", CX,
                       desc="complex")])
      for n in ("amax", "amin")],
    OpCase("amax_amin_ties", lambda T, x, dim=(), keepdim=False: (x.amax(dim, keepdim), T.amin(x, dim, keepdim)),
           [Sample([T2], desc="all"), Sample([T2], {"dim": 1}, desc="rows"),
            Sample([T2], {"dim": -1, "keepdim": True}, desc="rows keepdim")],
           covers=("amax", "amin"), complex=False, gradgrad=False),
    OpCase("aminmax", samples=[Sample([A]), Sample([A], {"dim": 1}),
                               Sample([A], {"dim": -1, "keepdim": True}, desc="keepdim"), Sample([S0], desc="0-d")],
           complex=False,
           ref=lambda x, dim=None, keepdim=False: (np.amin(x, axis=dim, keepdims=keepdim),
                                                   np.amax(x, axis=dim, keepdims=keepdim)),
           errors=[E(RuntimeError, "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                     "has no identity.", EMPTY, desc="empty"),
                   E(IndexError, "aminmax: Expected reduction dim 0 to have non-zero size.", EMPTY, dim=0,
                     desc="empty dim"),
                   E(NotImplementedError, "\"aminmax_cpu\" not implemented for 'ComplexDouble'", CX, desc="complex"),
                   E(TypeError, "aminmax() takes 1 positional argument but 2 were given", A,
                     fn=lambda T, x: T.aminmax(x, 0), desc="positional dim")]),
    OpCase("aminmax_ties", lambda T, x, **kw: tuple(x.aminmax(**kw)),
           [Sample([T2]), Sample([T2], {"dim": 1}, desc="rows")],
           covers=("aminmax",), complex=False, gradgrad=False),
    *[OpCase(n, samples=[Sample([A]), Sample([A], {"dim": 1}),
                         Sample([A], {"dim": -1, "keepdim": True}, desc="keepdim"),
                         Sample([A], {"keepdim": True}, desc="all keepdim"), Sample([S0], desc="0-d"),
                         Sample([S0], {"dim": 0}, desc="0-d dim"), Sample([T3], desc="ties"),
                         Sample([T3], {"dim": 1}, desc="ties rows"), Sample([INT], {"dim": 0}, desc="int"),
                         Sample([INT.astype(np.uint8)], desc="uint8")],
             complex=False, differentiable=False,
             errors=[E(IndexError, f"{n}(): Expected reduction dim to be specified for input.numel() == 0.",
                       EMPTY, desc="empty"),
                     _empty_dim(n), _bad_dim(3, dim=3),
                     E(RuntimeError, f"{n}(): does not support complex input", CX, desc="complex"),
                     E(RuntimeError, f"{n}(): does not support bool input", A > 0, desc="bool"),
                     E(TypeError, r"argument 'dim' (\(position 1\) )?must be int, not tuple", A, regex=True,
                       fn=lambda T, x, n=n: getattr(x, n)((0, 1)), desc="tuple dim")])
      for n in ("argmax", "argmin")],
    # ------------------------------------------------------------ var / std
    OpCase("var", samples=[Sample([A]), Sample([A], {"dim": 1}),
                           Sample([A], {"dim": (0, -1), "keepdim": True}, desc="dims keepdim"),
                           Sample([A], {"dim": -1, "unbiased": False}, desc="biased"),
                           Sample([A], {"dim": 2, "correction": 2}, desc="correction 2"),
                           Sample([S0], {"correction": 0}, desc="0-d")],
           errors=[_bad_dim(-4, dim=-4),
                   _not_float("std and var only support floating point and complex dtypes", INT)]),
    OpCase("std", samples=[Sample([A]), Sample([A], {"dim": 1}),
                           Sample([A], {"dim": (0, -1), "keepdim": True}, desc="dims keepdim"),
                           Sample([A], {"dim": -1, "correction": 0}, desc="correction 0"),
                           Sample([M], {"dim": 0, "unbiased": True}, desc="unbiased")],
           errors=[_bad_dim(5, dim=5),
                   _not_float("std and var only support floating point and complex dtypes", BOOLS)]),
    OpCase("var_std_positional", lambda T, x: (x.var(1, False, True), T.std(x, 0, True), x.var(False)),
           [Sample([M])], covers=("var", "std")),
    OpCase("var_mean_std_mean", lambda T, x: T.var_mean(x, 1) + T.std_mean(x, (0, 1), keepdim=True),
           [Sample([A])], covers=("var", "std", "mean")),
    # ------------------------------------------------------------ norm
    OpCase("dist", samples=[Sample([M, arr(3, 5, seed=18)], desc="2"),
                            Sample([M, arr(5, seed=19)], {"p": 1}, desc="1, broadcast"),
                            Sample([arr(5, seed=20), M], {"p": 3.5}, desc="3.5, broadcast first"),
                            Sample([M, arr(3, 5, seed=21)], {"p": float("inf")}, desc="inf"),
                            Sample([M, arr(3, 5, seed=22)], {"p": 0.5}, desc="0.5"),
                            Sample([S0, M], desc="0-d and matrix")],
           ref=lambda x, y, p=2: np.linalg.norm((x - y).reshape(-1), p),
           errors=[E(RuntimeError, "The size of tensor a (5) must match the size of tensor b (4) at "
                     "non-singleton dimension 1", M, arr(4, seed=23), desc="shapes")]),
    OpCase("cdist", samples=[Sample([M, arr(4, 5, seed=24)], desc="2"),
                             Sample([M, arr(2, 5, seed=25)], {"p": 1.0}, desc="1"),
                             Sample([arr(2, 1, 3, 5, seed=26), arr(4, 2, 5, seed=27)], {"p": 3.5},
                                    desc="3.5, batch dims broadcast"),
                             Sample([M, arr(4, 5, seed=28)], {"p": float("inf")}, desc="inf"),
                             Sample([M, arr(2, 5, seed=29)], {"p": 0.0}, desc="0")],
           complex=False,       # (PyTorch's cdist takes real floating dtypes only)
           low_precision=False,     # (and not half or bfloat16)
           ref=lambda x1, x2, p=2.0: np.linalg.norm(x1[..., :, None, :] - x2[..., None, :, :], p, -1)
           if p not in (0.0,) else (x1[..., :, None, :] != x2[..., None, :, :]).sum(-1).astype(x1.dtype),
           errors=[E(NotImplementedError, "\"cdist\" not implemented for 'Half'", M.astype(np.float16),
                     M.astype(np.float16), desc="half"),
                   E(RuntimeError, "X1 and X2 must have the same number of columns. X1: 5 X2: 4", M,
                     arr(2, 4, seed=30), desc="columns"),
                   E(RuntimeError, "cdist only supports at least 2D tensors, X1 got: 1D", arr(5, seed=31),
                     M, desc="1-d")]),
    OpCase("norm", op="linalg_vector_norm", func="norm",
           samples=[Sample([A], {"p": 2}, desc="2"), Sample([A], {"p": 1}, desc="1"), Sample([A], {"p": 3}, desc="3"),
                    Sample([A], {"p": 0.5}, desc="0.5"), Sample([A], {"p": 1.5}, desc="1.5"),
                    Sample([A], {"p": float("inf")}, desc="inf"), Sample([A], {"p": -float("inf")}, desc="-inf"),
                    Sample([A], {"p": 0}, desc="0"), Sample([A], {"p": "fro"}, desc="fro"),
                    Sample([S0], {"p": 2}, desc="0-d"),
                    Sample([A], {"p": 2, "dim": 1}, desc="dim 2"),
                    Sample([A], {"p": 2, "dim": -1, "keepdim": True}, desc="dim 2 keepdim"),
                    Sample([A], {"p": 1, "dim": (0, 2)}, desc="dim 1 dims"),
                    Sample([A], {"p": float("inf"), "dim": 0}, desc="dim inf"),
                    Sample([A], {"p": -float("inf"), "dim": -2, "keepdim": True}, desc="dim -inf"),
                    Sample([A], {"p": 3, "dim": 1}, desc="dim 3"), Sample([A], {"p": 0.5, "dim": 2}, desc="dim 0.5"),
                    Sample([A], {"p": "fro", "dim": (1, 2)}, desc="dim fro dims")],
           errors=[E(RuntimeError, "linalg.vector_norm cannot compute the inf norm on an empty tensor because "
                     "the operation does not have an identity", EMPTY, p=float("inf"), desc="inf empty"),
                   _bad_dim(4, dim=4),
                   _not_float("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                              "Got Long", INT),
                   _not_float("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                              "Got Bool", BOOLS),
                   E(RuntimeError, "linalg.vector_norm: the dtype of the input (Double) should be convertible "
                     "without narrowing to the specified dtype (Float)", A,
                     fn=lambda T, x: x.norm(dtype=T.float32), desc="narrowing dtype"),
                   E(RuntimeError, "linalg.matrix_norm: Order abc not supported.", A, p="abc", desc="bad p")]),
    OpCase("norm_at_zero", op="linalg_vector_norm", func="norm",
           samples=[Sample([NZ], {"p": 2, "dim": 1}, desc="2"), Sample([np.zeros((2, 3))], {"p": 2}, desc="2 all zero"),
                    Sample([NZ], {"p": 3, "dim": 1}, desc="3"), Sample([NZ], {"p": 1.5, "dim": -1}, desc="1.5")],
           gradgrad=False, complex=False),
    # ------------------------------------------------------------ logsumexp
    OpCase("logsumexp", samples=[Sample([A], {"dim": 1}), Sample([A], {"dim": (0, 2)}, desc="dims"),
                                 Sample([A], {"dim": -1, "keepdim": True}, desc="neg keepdim"),
                                 Sample([S0], {"dim": 0}, desc="0-d"), Sample([BIG], {"dim": 1}, desc="large")],
           errors=[_bad_dim(3, dim=3),
                   E(TypeError, r"^logsumexp\(\) missing (1 )?required (positional )?argument", A, regex=True,
                     desc="no dim")]),
    OpCase("logsumexp_neginf", op="logsumexp", func="logsumexp",
           samples=[Sample([NINF], {"dim": 1}), Sample([NINF], {"dim": 0}, desc="d0")], complex=False),
    OpCase("logsumexp_inf", op="logsumexp", func="logsumexp",
           samples=[Sample([INFS], {"dim": 1}), Sample([INFS], {"dim": 0}, desc="d0")],
           complex=False, differentiable=False),
    OpCase("logsumexp_int", op="logsumexp", func="logsumexp", samples=[Sample([INT], {"dim": 0})],  # -> float32
           complex=False, differentiable=False, low_precision=False),
    # ------------------------------------------------------------ cumsum / cumprod
    OpCase("cumsum", samples=[Sample([A], {"dim": 1}), Sample([A], {"dim": -1}, desc="neg"), Sample([A], {"dim": 0}),
                              Sample([S0], {"dim": 0}, desc="0-d")],
           covers=("cumsum", "_flip_dim"), ref=lambda x, dim: np.cumsum(x, axis=dim) if x.ndim else x,
           errors=[_bad_dim(3, dim=3)]),
    OpCase("cumsum_dtype", lambda T, x: x.cumsum(0, dtype=T.float64), [Sample([M])],
           covers=("cumsum",), preserves_dtype=False, low_precision=False, complex=False),
    OpCase("cumsum_cumprod_int", lambda T, x: (x.cumsum(1), T.cumprod(x, 0), x.prod(), x.prod(1)),
           [Sample([INT]), Sample([BOOLS], desc="bool")],
           covers=("cumsum", "cumprod", "prod", "prod_dim"), differentiable=False, complex=False),
    OpCase("cumprod", samples=[Sample([A], {"dim": 1}), Sample([A], {"dim": -1}, desc="neg"), Sample([A], {"dim": 0}),
                               Sample([S0], {"dim": 0}, desc="0-d"), Sample([Z1], {"dim": 1}, desc="one zero"),
                               Sample([Z2], {"dim": 1}, desc="zeros"), Sample([Z2], {"dim": 0}, desc="zeros d0"),
                               Sample([Z3], {"dim": -1}, desc="three zeros")],
           covers=("cumprod", "_flip_dim"), ref=lambda x, dim: np.cumprod(x, axis=dim) if x.ndim else x,
           errors=[_bad_dim(-4, dim=-4)]),
    # ------------------------------------------------------------ all / any
    *[OpCase(n, samples=[Sample([BOOLS]), Sample([BOOLS], {"dim": 1}, desc="dim"),
                         Sample([BOOLS], {"dim": 0, "keepdim": True}, desc="keepdim"),
                         Sample([T3], {"dim": -1}, desc="float"), Sample([INT - 1], desc="int"),
                         Sample([(INT % 2).astype(np.uint8)], {"dim": 1}, desc="uint8"),
                         Sample([np.array(0.0)], desc="0-d"), Sample([np.zeros((0, 3))], desc="empty"),
                         Sample([T3], {"dim": (0, 1)}, desc="dims")],
             complex=False, ref=_np_reduce(getattr(np, n)),
             errors=[_bad_dim(3 if n == "all" else -4, dim=3 if n == "all" else -4)])
      for n in ("all", "any")],
    # ------------------------------------------------------------ softmax / log_softmax
    *[OpCase(n, samples=[Sample([A], {"dim": 1}), Sample([A], {"dim": -1}, desc="neg"), Sample([A], {"dim": 0}),
                         Sample([S0], {"dim": 0}, desc="0-d"), Sample([BIG], {"dim": 1}, desc="large")],
             complex=False, errors=errs)
      for n, errs in (("softmax", [_bad_dim(3, dim=3),
                                   E(NotImplementedError, "\"softmax_lastdim_kernel_impl\" not implemented for "
                                     "'ComplexDouble'", CX, dim=-1, desc="complex"),
                                   E(NotImplementedError, "\"softmax_kernel_impl\" not implemented for 'Long'",
                                     INT, dim=0, desc="int")]),
                      ("log_softmax", [_bad_dim(3, dim=3),
                                       E(NotImplementedError, "\"log_softmax_lastdim_kernel_impl\" not implemented "
                                         "for 'Long'", INT, dim=-1, desc="int")]))],
    OpCase("softmax_method", lambda T, x, dim=1: (T.softmax(x, dim), x.log_softmax(dim)),
           [Sample([A]), Sample([A], {"dim": -1}, desc="neg")], covers=("softmax", "log_softmax"), complex=False),
    OpCase("softmax_functional", lambda T, x: (T.nn.functional.softmax(x, dim=-1),
                                               T.nn.functional.log_softmax(x, 0)),
           [Sample([M])], covers=("softmax", "log_softmax"), complex=False),
    OpCase("softmax_dtype", lambda T, x: (T.softmax(x, 1, dtype=T.float64), x.log_softmax(0, dtype=T.float64)),
           [Sample([M])], covers=("softmax", "log_softmax"), complex=False,
           preserves_dtype=False, low_precision=False),
]

del pos
