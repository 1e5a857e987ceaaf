"""Table entries for ops/more.py."""
import numpy as np

from . import OpCase, Sample, arr, pos, unit

A = arr(2, 3, 4, seed=31)
M = arr(3, 5, seed=32)
V = arr(7, seed=33)
S0 = np.array(0.7)
TIES = np.array([[1.0, 3.0, 3.0, 2.0, 3.0], [2.0, 2.0, -1.0, 2.0, 0.5], [0.0, 0.0, 0.0, 0.0, 0.0]])
NANS = np.array([[1.0, np.nan, 3.0, 2.0], [2.0, 0.5, -1.0, 4.0]])
INT = np.array([[3, 1, 4, 1], [5, 9, 2, 6], [5, 3, 5, 8]], dtype=np.int64)
INT2 = np.array([[3, 1, 4, 0], [5, 9, 2, 6], [7, 3, 5, 8]], dtype=np.int64)


B = arr(3, 5, seed=34)
PM = pos(3, 5, seed=35)
XZ = arr(3, 5, seed=36)
XZ[0, 1] = XZ[2, 3] = 0.0
P01 = arr(3, 5, lo=0.05, hi=0.95, seed=37)
PN = arr(3, 4, seed=38)
PN[0, 1] = PN[2, 2] = np.nan
CLOSE = np.array([1.0, 2.0, np.nan, np.inf, 1e-9, 3.0])
CLOSE2 = np.array([1.0 + 1e-6, 2.1, np.nan, np.inf, 0.0, -3.0])
HV = np.array([-1.5, 0.0, 2.0, 0.0, -0.0])


def _sort(T, x, **kw):
    r = T.sort(x, **kw)
    return r.values, r.indices


def _sort_stable(T, x, **kw):
    r = x.sort(stable=True, **kw)
    return r[0], r[1]


CASES = [
    # ------------------------------------------------------------ sorting and selection
    OpCase("sort", lambda T, x, **kw: _sort(T, x, **kw)[0],
           [Sample([M]), Sample([A], {"dim": 1}), Sample([A], {"dim": 0, "descending": True}, desc="desc"),
            Sample([S0], desc="0-d"), Sample([V], {"descending": True}, desc="1-d desc")],
           covers=("sort",), complex=False),
    OpCase("sort_stable", lambda T, x, **kw: _sort_stable(T, x, **kw)[0],
           [Sample([M]), Sample([A], {"dim": 0, "descending": True}, desc="desc")],
           covers=("sort_stable",), complex=False),
    OpCase("sort_indices", lambda T, x, **kw: _sort_stable(T, x, **kw) + (T.argsort(x, **kw),),
           [Sample([TIES]), Sample([TIES], {"descending": True}, desc="ties desc"),
            Sample([TIES], {"dim": 0}, desc="ties d0"), Sample([NANS], desc="nan"),
            Sample([NANS], {"descending": True}, desc="nan desc"), Sample([INT], desc="int"),
            Sample([M], {"dim": 0}), Sample([S0], desc="0-d")],
           covers=("sort_stable", "sort"), complex=False, differentiable=False),
    OpCase("topk", lambda T, x, k=2, **kw: T.topk(x, k, **kw).values,
           [Sample([M]), Sample([A], {"k": 3, "dim": 1}), Sample([A], {"k": 1, "dim": 0, "largest": False},
                                                                 desc="smallest"),
            Sample([V], {"k": 7}, desc="all"), Sample([V], {"k": 0}, desc="k=0"), Sample([S0], {"k": 1}, desc="0-d")],
           covers=("topk",), complex=False),
    OpCase("topk_indices", lambda T, x, k=2, **kw: tuple(x.topk(k, **kw)),
           [Sample([M]), Sample([INT2], {"k": 2, "largest": False}, desc="int"),
            Sample([A], {"k": 3, "dim": 1})],
           covers=("topk",), complex=False, differentiable=False),
    OpCase("kthvalue", lambda T, x, k=2, **kw: T.kthvalue(x, k, **kw)[0],
           [Sample([M]), Sample([A], {"k": 3, "dim": 1}), Sample([A], {"k": 1, "dim": 0, "keepdim": True},
                                                                 desc="keepdim"),
            Sample([S0], {"k": 1}, desc="0-d")],
           covers=("kthvalue",), complex=False),
    OpCase("kthvalue_indices", lambda T, x, k=2, **kw: tuple(x.kthvalue(k, **kw)),
           [Sample([M]), Sample([A], {"k": 4, "dim": -1, "keepdim": True}, desc="keepdim")],
           covers=("kthvalue",), complex=False, differentiable=False),
    OpCase("median", lambda T, x: T.median(x),
           [Sample([M]), Sample([V]), Sample([A]), Sample([S0], desc="0-d")],
           covers=("median",), complex=False),
    OpCase("median_values", lambda T, x: x.median(),
           [Sample([TIES], desc="ties"), Sample([NANS], desc="nan"), Sample([INT], desc="int")],
           covers=("median",), complex=False, differentiable=False),
    OpCase("median_dim", lambda T, x, dim=1, keepdim=False: T.median(x, dim, keepdim).values,
           [Sample([M]), Sample([A], {"dim": 0}), Sample([A], {"dim": -1, "keepdim": True}, desc="keepdim"),
            Sample([S0], {"dim": 0}, desc="0-d")],
           covers=("median_dim",), complex=False),
    OpCase("median_dim_indices", lambda T, x, dim=1: tuple(x.median(dim)),
           [Sample([M]), Sample([A], {"dim": 0}), Sample([NANS], desc="nan"), Sample([INT], desc="int")],
           covers=("median_dim",), complex=False, differentiable=False),
    OpCase("cummax_cummin", lambda T, x, dim=1: (T.cummax(x, dim).values, x.cummin(dim).values),
           [Sample([M]), Sample([A], {"dim": 0}), Sample([A], {"dim": -1}), Sample([S0], {"dim": 0}, desc="0-d")],
           covers=("cummax", "cummin"), complex=False),
    OpCase("cummax_cummin_indices", lambda T, x, dim=1: tuple(T.cummax(x, dim)) + tuple(x.cummin(dim)),
           [Sample([M]), Sample([TIES], desc="ties"), Sample([NANS], desc="nan"), Sample([INT], desc="int"),
            Sample([TIES], {"dim": 0}, desc="ties d0")],
           covers=("cummax", "cummin"), complex=False, differentiable=False),
    # ------------------------------------------------------------ comparisons
    OpCase("isclose", lambda T, x, y, **kw: T.isclose(x, y, **kw),
           [Sample([CLOSE, CLOSE2]), Sample([CLOSE, CLOSE2], {"equal_nan": True}, desc="equal_nan"),
            Sample([CLOSE, CLOSE2], {"rtol": 0.1, "atol": 1e-8}, desc="rtol"),
            Sample([M, M[0]], desc="broadcast"), Sample([INT, INT2], desc="int")],
           covers=("isclose",), complex=False, differentiable=False),
    OpCase("heaviside", lambda T, x, v: T.heaviside(x, v),
           [Sample([HV, np.array([0.5])]), Sample([HV, arr(5, seed=3)], desc="tensor values"),
            Sample([INT, np.array([7])], desc="int")],
           covers=("heaviside",), complex=False, differentiable=False),
    # ------------------------------------------------------------ pointwise extras
    OpCase("xlogy", lambda T, x, y: T.xlogy(x, y),
           [Sample([B, PM]), Sample([XZ, PM], desc="zeros in x"), Sample([B, pos(5, seed=4)], desc="broadcast")],
           covers=("xlogy",), complex=False),
    OpCase("xlogy_scalar", lambda T, x: (T.xlogy(x, 2.5), x.xlogy(x * x + 0.5), T.xlogy(3.0, x * x + 0.5)),
           [Sample([B]), Sample([XZ], desc="zeros")], covers=("xlogy",), complex=False),
    OpCase("hypot", lambda T, x, y: T.hypot(x, y),
           [Sample([B, M]), Sample([B, arr(5, seed=5)], desc="broadcast")], covers=("hypot",), complex=False),
    OpCase("logaddexp", lambda T, x, y: T.logaddexp(x, y),
           [Sample([B, M]), Sample([B * 40, M * 40], desc="large"), Sample([B, arr(5, seed=6)], desc="broadcast")],
           covers=("logaddexp",)),
    OpCase("logit", lambda T, x, **kw: T.logit(x, **kw),
           [Sample([P01]), Sample([P01], {"eps": 0.2}, desc="eps"), Sample([S0], desc="0-d")],
           covers=("logit",), complex=False),
    OpCase("deg2rad_rad2deg", lambda T, x: (T.deg2rad(x), x.rad2deg()),
           [Sample([M]), Sample([S0], desc="0-d")], covers=("deg2rad", "rad2deg"), complex=False),
    OpCase("addcmul", lambda T, x, a, b, **kw: T.addcmul(x, a, b, **kw),
           [Sample([M, B, PM]), Sample([M, B, PM], {"value": -0.5}, desc="value"),
            Sample([M, arr(5, seed=7), arr(3, 1, seed=8)], {"value": 2}, desc="broadcast")],
           covers=("addcmul",)),
    OpCase("addcdiv", lambda T, x, a, b, **kw: x.addcdiv(a, b, **kw),
           [Sample([M, B, PM]), Sample([M, B, PM], {"value": -0.5}, desc="value"),
            Sample([M, arr(5, seed=7), pos(3, 1, seed=8)], {"value": 2}, desc="broadcast")],
           covers=("addcdiv",)),
    # ------------------------------------------------------------ nansum / nanmean
    OpCase("nansum", lambda T, x, **kw: T.nansum(x, **kw),
           [Sample([PN]), Sample([PN], {"dim": 1}), Sample([PN], {"dim": (0, 1), "keepdim": True}, desc="dims"),
            Sample([A], {"dim": -1, "keepdim": True}, desc="keepdim"), Sample([S0], desc="0-d")],
           covers=("nansum",), complex=False),
    OpCase("nansum_int", lambda T, x, **kw: T.nansum(x, **kw),
           [Sample([INT]), Sample([INT], {"dim": 0}, desc="dim")],
           covers=("nansum",), complex=False, differentiable=False),
    OpCase("nanmean", lambda T, x, **kw: x.nanmean(**kw),
           [Sample([PN]), Sample([PN], {"dim": 1}), Sample([PN], {"dim": 0, "keepdim": True}, desc="keepdim"),
            Sample([S0], desc="0-d")],
           covers=("nansum", "isnan"), complex=False),
    # ------------------------------------------------------------ shape helpers and scans
    OpCase("diff", lambda T, x, **kw: T.diff(x, **kw),
           [Sample([M]), Sample([A], {"dim": 1, "n": 2}, desc="n=2"), Sample([V], {"n": 0}, desc="n=0"),
            Sample([V], {"n": 9}, desc="n>size")],
           covers=("sub",)),
    OpCase("diff_prepend", lambda T, x, p, a: x.diff(dim=0, prepend=p, append=a),
           [Sample([M, arr(1, 5, seed=9), arr(2, 5, seed=10)])], covers=("sub", "cat")),
    OpCase("diff_bool", lambda T, x: T.diff(x), [Sample([np.array([True, False, False, True])])],
           covers=("logical_xor",), differentiable=False),
    OpCase("cross", lambda T, x, y, dim=1: T.cross(x, y, dim=dim),
           [Sample([arr(4, 3, seed=40), arr(4, 3, seed=41)]),
            Sample([arr(3, 2, seed=42), arr(3, 1, seed=43)], {"dim": 0}, desc="broadcast"),
            Sample([arr(2, 3, 2, seed=44), arr(2, 3, 2, seed=45)], {"dim": -2}, desc="neg dim")],
           covers=("linalg_cross",)),
    OpCase("diag_embed", lambda T, x, **kw: T.diag_embed(x, **kw),
           [Sample([M]), Sample([A], {"offset": 1, "dim1": 0, "dim2": 2}, desc="offset dims"),
            Sample([V], {"offset": -2}, desc="1-d neg offset"), Sample([A], {"dim1": -1, "dim2": 1}, desc="swapped")],
           covers=("diag_embed",)),
    OpCase("diag", lambda T, x, d=0: T.diag(x, d),
           [Sample([V]), Sample([V], {"d": 2}, desc="1-d offset"), Sample([M]), Sample([M], {"d": -1}, desc="2-d offset"),
            Sample([M], {"d": 3}, desc="2-d offset 3")],
           covers=("diag_embed", "diagonal")),
    OpCase("repeat_interleave", lambda T, x, r=2, **kw: T.repeat_interleave(x, r, **kw),
           [Sample([M]), Sample([M], {"dim": 0}, desc="dim"),
            Sample([S0], {"r": 3}, desc="0-d")],
           covers=("index_select",)),
    OpCase("repeat_interleave_tensor", lambda T, x, r: x.repeat_interleave(r, dim=1),
           [Sample([M, np.array([1, 0, 2, 3, 1])]), Sample([M, np.array([2])], desc="one")],
           covers=("index_select",)),
    OpCase("unflatten", lambda T, x, dim=1, sizes=(2, 2): T.unflatten(x, dim, sizes),
           [Sample([arr(3, 4, seed=46)]), Sample([A], {"dim": -1, "sizes": (-1, 2)}, desc="infer"),
            Sample([A], {"dim": 0, "sizes": (1, 2, 1)}, desc="ones")],
           covers=("view",)),
    OpCase("rot90", lambda T, x, k=1, dims=(0, 1): T.rot90(x, k, dims),
           [Sample([M]), Sample([M], {"k": 2}, desc="k=2"), Sample([M], {"k": -1}, desc="k=-1"),
            Sample([A], {"k": 3, "dims": (2, 0)}, desc="dims"), Sample([M], {"k": 4}, desc="k=4")],
           covers=("flip", "clone")),
    OpCase("logcumsumexp", lambda T, x, dim=1: T.logcumsumexp(x, dim),
           [Sample([M]), Sample([A], {"dim": 0}), Sample([A], {"dim": -1}), Sample([M * 30], desc="large"),
            Sample([S0], {"dim": 0}, desc="0-d")],
           covers=("logcumsumexp",)),
]
