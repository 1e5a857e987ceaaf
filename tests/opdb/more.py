"""Table entries for the ops of sorting.py, pointwise_more.py, factories.py and the
shape/reduction/linalg helpers that used to live in one ops/more.py."""
import numpy as np

from . import E, OpCase, Sample, arr, exact, pos

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


I64 = np.array([1, 2])
C64 = np.array([1.0, 2.0], np.complex64)
Z34 = np.zeros((3, 4), np.float32)




def _range(got, lo=-2, hi=1):
    return f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {got})"


def _not_for(kernel, dtype, *arrays, **kw):
    return E(NotImplementedError, f"\"{kernel}\" not implemented for '{dtype}'", *arrays, desc=dtype.lower(), **kw)


def _sort(T, x, **kw):
    r = T.sort(x, **kw)
    return r.values, r.indices


def _sort_stable(T, x, **kw):
    r = x.sort(stable=True, **kw)
    return r[0], r[1]


CASES = [
    # ------------------------------------------------------------ sorting and selection
    OpCase("sort", samples=[Sample([M]), Sample([A], {"dim": 1}),
                            Sample([A], {"dim": 0, "descending": True}, desc="desc"),
                            Sample([S0], desc="0-d"), Sample([V], {"descending": True}, desc="1-d desc")],
           complex=False,
           errors=[E(IndexError, _range(2), Z34, dim=2, desc="dim out of range"),
                   E(RuntimeError, exact(" Sort does not support complex dtypes on CPU"), C64, regex=True,
                     desc="complex")]),
    OpCase("sort_stable", func="sort",
           samples=[Sample([M], {"stable": True}),
                    Sample([A], {"dim": 0, "descending": True, "stable": True}, desc="desc")],
           complex=False),
    OpCase("sort_indices", lambda T, x, **kw: _sort_stable(T, x, **kw) + (T.argsort(x, **kw),),
           [Sample([TIES]), Sample([TIES], {"descending": True}, desc="ties desc"),
            Sample([TIES], {"dim": 0}, desc="ties d0"), Sample([NANS], desc="nan"),
            Sample([NANS], {"descending": True}, desc="nan desc"), Sample([INT], desc="int"),
            Sample([M], {"dim": 0}), Sample([S0], desc="0-d")],
           covers=("sort_stable", "sort"), complex=False, differentiable=False),
    OpCase("topk", samples=[Sample([M], {"k": 2}), Sample([A], {"k": 3, "dim": 1}),
                            Sample([A], {"k": 1, "dim": 0, "largest": False}, desc="smallest"),
                            Sample([V], {"k": 7}, desc="all"), Sample([V], {"k": 0}, desc="k=0"),
                            Sample([S0], {"k": 1}, desc="0-d")],
           complex=False,
           errors=[E(RuntimeError, "selected index k out of range", Z34, k=5, desc="k too large"),
                   E(RuntimeError, "selected index k out of range", Z34, k=-1, desc="k negative")]),
    OpCase("topk_int", func="topk", samples=[Sample([INT2], {"k": 2, "largest": False}, desc="int")],
           complex=False, differentiable=False),
    OpCase("kthvalue", samples=[Sample([M], {"k": 2}), Sample([A], {"k": 3, "dim": 1}),
                                Sample([A], {"k": 1, "dim": 0, "keepdim": True}, desc="keepdim"),
                                Sample([A], {"k": 4, "dim": -1, "keepdim": True}, desc="neg keepdim"),
                                Sample([S0], {"k": 1}, desc="0-d")],
           complex=False,
           errors=[E(RuntimeError, "kthvalue(): selected number k out of range for dimension 1", Z34, k=5,
                     desc="k too large"),
                   E(RuntimeError, "kthvalue(): selected number k out of range for dimension 1", Z34, k=0,
                     desc="k zero")]),
    OpCase("median", samples=[Sample([M]), Sample([V]), Sample([A]), Sample([S0], desc="0-d")],
           complex=False, ref=lambda x: np.sort(x, axis=None)[(x.size - 1) // 2] if x.size else np.nan,
           errors=[_not_for("median_cpu", "ComplexFloat", C64)]),
    OpCase("_median_along", lambda T, x, dim: _along(T, "median", x, dim),
           samples=[Sample([M], {"dim": 1}), Sample([A], {"dim": 0})], complex=False),
    OpCase("median_values", op="median", func="median",
           samples=[Sample([TIES], desc="ties"), Sample([NANS], desc="nan"), Sample([INT], desc="int")],
           complex=False, differentiable=False),
    OpCase("median_dim", func="median",
           samples=[Sample([M], {"dim": 1}), Sample([A], {"dim": 0}),
                    Sample([A], {"dim": -1, "keepdim": True}, desc="keepdim"),
                    Sample([S0], {"dim": 0}, desc="0-d")],
           complex=False),
    OpCase("median_dim_indices", op="median_dim", func="median",
           samples=[Sample([M], {"dim": 1}), Sample([A], {"dim": 0}), Sample([NANS], {"dim": 1}, desc="nan"),
                    Sample([INT], {"dim": 1}, desc="int")],
           complex=False, differentiable=False),
    *[OpCase(n, samples=[Sample([M], {"dim": 1}), Sample([A], {"dim": 0}), Sample([A], {"dim": -1}),
                         Sample([S0], {"dim": 0}, desc="0-d")],
             complex=False,
             errors=[_not_for(f"{n}_cpu", "ComplexFloat", C64, dim=0)])
      for n in ("cummax", "cummin")],
    OpCase("cummax_cummin_indices", lambda T, x, dim=1: tuple(T.cummax(x, dim)) + tuple(x.cummin(dim)),
           [Sample([M]), Sample([TIES], desc="ties"), Sample([NANS], desc="nan"), Sample([INT], desc="int"),
            Sample([TIES], {"dim": 0}, desc="ties d0")],
           covers=("cummax", "cummin"), complex=False, differentiable=False),
    # ------------------------------------------------------------ comparisons
    OpCase("isclose", samples=[Sample([CLOSE, CLOSE2]), Sample([CLOSE, CLOSE2], {"equal_nan": True}, desc="equal_nan"),
                               Sample([CLOSE, CLOSE2], {"rtol": 0.1, "atol": 1e-8}, desc="rtol"),
                               Sample([M, M[0]], desc="broadcast"), Sample([INT, INT2], desc="int")],
           complex=False, ref=np.isclose,
           errors=[E(RuntimeError, "Float did not match Long", np.array([1.0], np.float32), I64[:1], desc="dtypes")]),
    OpCase("heaviside", samples=[Sample([HV, np.array([0.5])]), Sample([HV, arr(5, seed=3)], desc="tensor values"),
                                 Sample([INT, np.array([7])], desc="int")],
           complex=False, ref=np.heaviside,
           errors=[E(RuntimeError, "heaviside is not yet implemented for tensors with different dtypes.",
                     np.array([-1.0, 0.0, 2.0], np.float32), np.array(1), desc="dtypes"),
                   E(RuntimeError, "heaviside is not yet implemented for complex tensors.", C64, C64,
                     desc="complex")]),
    # ------------------------------------------------------------ pointwise extras
    OpCase("xlogy", samples=[Sample([B, PM]), Sample([XZ, PM], desc="zeros in x"),
                             Sample([B, pos(5, seed=4)], desc="broadcast")],
           complex=False, ref=lambda x, y: np.where(x == 0, 0.0, x * np.log(y)),
           errors=[_not_for("xlogy_cpu", "ComplexFloat", C64, C64)]),
    OpCase("xlogy_scalar", lambda T, x: (T.xlogy(x, 2.5), x.xlogy(x * x + 0.5), T.xlogy(3.0, x * x + 0.5)),
           [Sample([B]), Sample([XZ], desc="zeros")], covers=("xlogy",), complex=False),
    OpCase("hypot", samples=[Sample([B, M]), Sample([B, arr(5, seed=5)], desc="broadcast")], complex=False,
           ref=np.hypot, errors=[_not_for("hypot_cpu", "Long", I64, I64)]),
    OpCase("logaddexp", samples=[Sample([B, M]), Sample([B * 40, M * 40], desc="large"),
                                 Sample([B, arr(5, seed=6)], desc="broadcast")],
           ref=np.logaddexp, errors=[_not_for("logaddexp_cpu", "Long", I64, I64)]),
    OpCase("logit", samples=[Sample([P01]), Sample([P01], {"eps": 0.2}, desc="eps"), Sample([S0], desc="0-d"),
                             Sample([P01], {"eps": 0.6}, desc="eps above 0.5")],
           complex=False,
           # (PyTorch's clamp: below eps is eps, else above 1 - eps is 1 - eps)
           ref=lambda x, eps=None: (lambda z: np.log(z / (1 - z)))(
               x if eps is None else np.where(x < eps, eps, np.where(x > 1 - eps, 1 - eps, x))),
           errors=[_not_for("logit_cpu", "ComplexFloat", C64)]),
    OpCase("deg2rad", samples=[Sample([M]), Sample([S0], desc="0-d")], complex=False, ref=np.deg2rad,
           errors=[E(RuntimeError, "deg2rad is not supported for complex tensors.", C64, desc="complex")]),
    OpCase("rad2deg", samples=[Sample([M]), Sample([S0], desc="0-d")], complex=False, ref=np.rad2deg),
    OpCase("addcmul", samples=[Sample([M, B, PM]), Sample([M, B, PM], {"value": -0.5}, desc="value"),
                               Sample([M, arr(5, seed=7), arr(3, 1, seed=8)], {"value": 2}, desc="broadcast")],
           ref=lambda x, a, b, value=1: x + value * a * b),
    OpCase("addcdiv", samples=[Sample([M, B, PM]), Sample([M, B, PM], {"value": -0.5}, desc="value"),
                               Sample([M, arr(5, seed=7), pos(3, 1, seed=8)], {"value": 2}, desc="broadcast")],
           ref=lambda x, a, b, value=1: x + value * a / b,
           errors=[E(RuntimeError, "^Integer division with addcdiv is no longer supported", I64, I64, I64,
                     regex=True, desc="int"),
                   E(RuntimeError, "^Integer division with addcdiv is no longer supported", np.ones(2, np.float32),
                     I64, I64, regex=True, desc="int tensors")]),
    # ------------------------------------------------------------ nansum / nanmean
    OpCase("nansum", samples=[Sample([PN]), Sample([PN], {"dim": 1}),
                              Sample([PN], {"dim": (0, 1), "keepdim": True}, desc="dims"),
                              Sample([A], {"dim": -1, "keepdim": True}, desc="keepdim"), Sample([S0], desc="0-d")],
           complex=False, ref=lambda x, dim=None, keepdim=False: np.nansum(x, axis=dim, keepdims=keepdim),
           errors=[E(RuntimeError, "nansum on CPU does not support complex inputs", C64, desc="complex")]),
    OpCase("nansum_int", op="nansum", func="nansum", samples=[Sample([INT]), Sample([INT], {"dim": 0}, desc="dim")],
           complex=False, differentiable=False),
    OpCase("nanmean", op="nansum",
           samples=[Sample([PN]), Sample([PN], {"dim": 1}), Sample([PN], {"dim": 0, "keepdim": True}, desc="keepdim"),
                    Sample([S0], desc="0-d")],
           covers=("nansum", "isnan"), complex=False,
           errors=[E(RuntimeError, "nanmean(): expected input to have floating point or complex dtype but got Long",
                     I64, desc="int")]),
    # ------------------------------------------------------------ shape helpers and scans
    OpCase("diff", op="sub", covers=("sub", "clone"),      # (n=0: a copy of the input)
           samples=[Sample([M]), Sample([A], {"dim": 1, "n": 2}, desc="n=2"), Sample([V], {"n": 0}, desc="n=0"),
                    Sample([V], {"n": 9}, desc="n>size")],
           ref=lambda x, n=1, dim=-1: np.diff(x, n, axis=dim),
           errors=[E(RuntimeError, "diff expects input to be at least one-dimensional", np.array(1.0), desc="0-d"),
                   E(RuntimeError, "order must be non-negative but got -1", Z34, n=-1, desc="negative n"),
                   E(RuntimeError, "diff expects prepend or append to be the same dimension as input", Z34,
                     fn=lambda T, x: T.diff(x, prepend=T.zeros(4)), desc="prepend rank")]),
    OpCase("diff_prepend", lambda T, x, p, a: x.diff(dim=0, prepend=p, append=a),
           [Sample([M, arr(1, 5, seed=9), arr(2, 5, seed=10)])], covers=("sub", "cat")),
    OpCase("diff_bool", lambda T, x: T.diff(x), [Sample([np.array([True, False, False, True])])],
           covers=("logical_xor",), differentiable=False),
    OpCase("cross", op="linalg_cross",
           samples=[Sample([arr(4, 3, seed=40), arr(4, 3, seed=41)], {"dim": 1}),
                    Sample([arr(3, 2, seed=42), arr(3, 1, seed=43)], {"dim": 0}, desc="broadcast"),
                    Sample([arr(2, 3, 2, seed=44), arr(2, 3, 2, seed=45)], {"dim": -2}, desc="neg dim")],
           ref=lambda x, y, dim: np.cross(x, y, axis=dim),
           errors=[E(RuntimeError, "linalg.cross: inputs dimension 1 must have length 3. Got 2 and 2",
                     np.zeros((3, 2), np.float32), np.zeros((3, 2), np.float32), dim=1, desc="length"),
                   E(RuntimeError, "linalg.cross: inputs must have the same number of dimensions.",
                     np.zeros((3, 3), np.float32), np.zeros(3, np.float32), dim=0, desc="ranks"),
                   E(RuntimeError, "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
                     "dimension 0", np.zeros((3, 3), np.float32), np.zeros((2, 3), np.float32), dim=1,
                     desc="broadcast")]),
    OpCase("diag_embed",
           samples=[Sample([M]), Sample([A], {"offset": 1, "dim1": 0, "dim2": 2}, desc="offset dims"),
                    Sample([V], {"offset": -2}, desc="1-d neg offset"),
                    Sample([A], {"dim1": -1, "dim2": 1}, desc="swapped")],
           errors=[E(RuntimeError, "diagonal dimensions cannot be identical 1, 1", np.zeros((2, 3), np.float32),
                     offset=0, dim1=1, dim2=1)]),
    OpCase("diag", op="diag_embed",
           samples=[Sample([V]), Sample([V], {"diagonal": 2}, desc="1-d offset"), Sample([M]),
                    Sample([M], {"diagonal": -1}, desc="2-d offset"),
                    Sample([M], {"diagonal": 3}, desc="2-d offset 3")],
           covers=("diag_embed", "diagonal"), ref=lambda x, diagonal=0: np.diag(x, diagonal),
           errors=[E(RuntimeError, "diag(): Supports 1D or 2D tensors. Got 3D", np.zeros((2, 2, 2), np.float32),
                     desc="3-d"),
                   E(RuntimeError, "diag(): Supports 1D or 2D tensors. Got 0D", np.array(1.0, np.float32),
                     desc="0-d")]),
    OpCase("repeat_interleave", op="index_select", args=("x", "repeats"),
           samples=[Sample([M], {"repeats": 2}), Sample([M], {"repeats": 2, "dim": 0}, desc="dim"),
                    Sample([S0], {"repeats": 3}, desc="0-d")],
           ref=lambda x, repeats, dim=None: np.repeat(x, repeats, axis=dim),
           errors=[E(RuntimeError, "repeats must have the same size as input along dim, but got repeats.size(0) = 2 "
                     "and input.size(0) = 3", np.zeros(3, np.float32), I64, desc="repeats size"),
                   E(RuntimeError, "repeats can not be negative", np.zeros(3, np.float32), np.array([1, -2, 1]),
                     desc="negative repeat"),
                   E(RuntimeError, "Repeats must be non-negative", np.zeros(3, np.float32), repeats=-1,
                     desc="negative repeats"),
                   E(RuntimeError, "repeats must be 0-dim or 1-dim tensor", np.zeros((3, 2), np.float32),
                     np.array([[1, 2]]), dim=1, desc="2-d repeats"),
                   _not_for("repeat_interleave_cpu", "Float", np.zeros((3, 2), np.float32),
                            np.array([1.0, 2.0], np.float32), dim=1)]),
    OpCase("repeat_interleave_tensor", op="index_select", func="repeat_interleave",
           samples=[Sample([M, np.array([1, 0, 2, 3, 1])], {"dim": 1}),
                    Sample([M, np.array([2])], {"dim": 1}, desc="one")],
           ref=lambda x, r, dim: np.repeat(x, r, axis=dim)),
    OpCase("unflatten", op="view",
           samples=[Sample([arr(3, 4, seed=46)], {"dim": 1, "sizes": (2, 2)}),
                    Sample([A], {"dim": -1, "sizes": (-1, 2)}, desc="infer"),
                    Sample([A], {"dim": 0, "sizes": (1, 2, 1)}, desc="ones")],
           errors=[E(RuntimeError, "unflatten: Provided sizes [3, 2] don't multiply up to the size of dim 1 (4) in the "
                     "input tensor", Z34, dim=1, sizes=(3, 2), desc="product"),
                   E(RuntimeError, "unflatten: sizes must be non-empty", Z34, dim=1, sizes=(), desc="empty sizes")]),
    OpCase("rot90", op="flip",
           samples=[Sample([M]), Sample([M], {"k": 2}, desc="k=2"), Sample([M], {"k": -1}, desc="k=-1"),
                    Sample([A], {"k": 3, "dims": (2, 0)}, desc="dims"), Sample([M], {"k": 4}, desc="k=4")],
           covers=("flip", "clone"), ref=lambda x, k=1, dims=(0, 1): np.rot90(x, k, dims),
           errors=[E(RuntimeError, "expected rotation dims to be different, but got dim0 = 0 and dim1 = 0", Z34,
                     k=1, dims=(0, 0), desc="same dims"),
                   E(RuntimeError, "expected total rotation dims == 2, but got dims = 3", Z34, k=1, dims=(0, 1, 2),
                     desc="three dims"),
                   E(RuntimeError, "expected total dims >= 2, but got total dims = 1", np.zeros(3, np.float32), k=1,
                     dims=(0, 1), desc="1-d")]),
    OpCase("logcumsumexp",
           samples=[Sample([M], {"dim": 1}), Sample([A], {"dim": 0}), Sample([A], {"dim": -1}),
                    Sample([M * 30], {"dim": 1}, desc="large"), Sample([S0], {"dim": 0}, desc="0-d")],
           ref=lambda x, dim: np.logaddexp.accumulate(x, axis=dim) if x.ndim else x,
           errors=[_not_for("logcumsumexp_out_cpu", "Long", I64, dim=0)]),
    # ------------------------------------------------------------ searching, counting, more pointwise
    OpCase("logaddexp2", samples=[Sample([B, M]), Sample([B * 40, M * 40], desc="large"),
                                  Sample([B, arr(5, seed=6)], desc="broadcast")],
           complex=False, ref=np.logaddexp2, errors=[_not_for("logaddexp2_cpu", "Long", I64, I64)]),
    OpCase("copysign", samples=[Sample([B, M]), Sample([B, arr(5, seed=7)], desc="broadcast")],
           complex=False, ref=np.copysign),
    # x = 0: the gradient is 0 there (PyTorch's mask), between -1 and 1 on either side: no
    # second derivative to check
    OpCase("copysign_zeros", func="copysign", samples=[Sample([XZ, B])], complex=False, gradgrad=False),
    OpCase("copysign_scalar", lambda T, x: T.copysign(x, -2.0), [Sample([B])], covers=("copysign",),
           complex=False),
    OpCase("sinc", samples=[Sample([M]), Sample([np.array([0.0, 0.5, -1.5, 2.0])], desc="at 0"),
                            Sample([S0], desc="0-d")], ref=np.sinc),
    OpCase("nan_to_num", samples=[Sample([PN]), Sample([np.array([np.nan, np.inf, -np.inf, 1.5])],
                                                      {"nan": 0.5, "posinf": 9.0, "neginf": -9.0},
                                                      desc="inf")],
           complex=False,                   # (PyTorch refuses complex gradients of nan_to_num)
           ref=lambda x, **kw: np.nan_to_num(x, **kw)),
    OpCase("count_nonzero", samples=[Sample([XZ]), Sample([XZ], {"dim": 1}, desc="dim"),
                                     Sample([INT - 3], {"dim": (0, 1)}, desc="dims")],
           ref=lambda x, dim=None: np.count_nonzero(x, axis=dim)),
    OpCase("bincount", samples=[Sample([np.array([0, 1, 1, 3, 7, 1])]),
                                Sample([np.array([0, 1, 1, 3]), np.array([0.5, 1.0, 1.0, 2.0])], desc="weights"),
                                Sample([np.array([2, 0])], {"minlength": 5}, desc="minlength")],
           ref=lambda x, w=None, minlength=0: np.bincount(x, w, minlength),
           noncontig=False, zero_size=False,        # (1-d input only: no 2-d sample to derive them from)
           low_precision=False,                     # (half weights give float64, as in PyTorch)
           errors=[E(RuntimeError, "bincount only supports 1-d non-negative integral inputs.",
                     np.array([-1, 1]), desc="negative"),
                   E(NotImplementedError, "\"bincount_cpu\" not implemented for 'Double'", V, desc="float")]),
    OpCase("renorm", samples=[Sample([M], {"p": 2, "dim": 0, "maxnorm": 1.0}),
                              Sample([M], {"p": 1, "dim": 1, "maxnorm": 1.2}, desc="p 1 dim 1"),
                              Sample([A], {"p": 3, "dim": -1, "maxnorm": 1.5}, desc="3-d p 3"),
                              Sample([M], {"p": float("inf"), "dim": 0, "maxnorm": 0.7}, desc="p inf"),
                              Sample([M], {"p": 2, "dim": 0, "maxnorm": 100.0}, desc="none over")],
           ref=lambda x, p, dim, maxnorm: x * np.minimum(1, maxnorm / (np.linalg.norm(
               np.moveaxis(x, dim, 0).reshape(x.shape[dim], -1), ord=p, axis=1) + 1e-7)).reshape(
               [-1 if i == dim % x.ndim else 1 for i in range(x.ndim)]),
           errors=[E(RuntimeError, "renorm: non-positive-norm not supported", M, p=0, dim=0, maxnorm=1.0,
                     desc="p"),
                   E(RuntimeError, "renorm: expected maxnorm to be >= 0 but got -1.5", M, p=2, dim=0,
                     maxnorm=-1.5, desc="maxnorm"),
                   E(RuntimeError, "renorm: input needs at least 2 dimensions, got 1 dimensions", V, p=2, dim=0,
                     maxnorm=1.0, desc="1-d"),
                   E(IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)", M, p=2,
                     dim=2, maxnorm=1.0, desc="dim"),
                   E(RuntimeError, "linalg.vector_norm: Expected a floating point or complex tensor as input. "
                     "Got Long", INT, p=2, dim=0, maxnorm=1.0, desc="int")]),
    OpCase("histc", samples=[Sample([V]), Sample([M], {"bins": 4, "min": -0.5, "max": 0.5}, desc="range"),
                             Sample([np.array([0.0, 1.0, 2.0, 3.0])], {"bins": 3, "min": 0, "max": 3}, desc="edges"),
                             Sample([np.array([1.0, 1.0])], {"bins": 4}, desc="one value")],
           ref=lambda x, bins=100, min=0, max=0: np.histogram(
               x, bins, (x.min(), x.max()) if min == max else (min, max))[0],
           low_precision=False,     # (PyTorch bins half/bfloat16 in their own arithmetic, not in
           #                          float32: tests/test_more_ops.py compares those with torch)
           errors=[E(NotImplementedError, "\"histogram_cpu\" not implemented for 'Long'", INT, desc="int"),
                   E(RuntimeError, "torch.histogram(): bins must be > 0, but got 0 for dimension 0", V, bins=0,
                     desc="bins"),
                   E(RuntimeError, "torch.histc: max must be larger than min", V, min=3, max=0, desc="min max"),
                   E(RuntimeError, "torch.histc: range of [1, inf] is not finite", V, min=1, max=float("inf"),
                     desc="infinite")]),
    OpCase("pdist", samples=[Sample([arr(4, 3, seed=40)]), Sample([arr(4, 3, seed=40)], {"p": 1}, desc="p 1"),
                             Sample([arr(3, 2, seed=41)], {"p": 3}, desc="p 3"),
                             Sample([arr(3, 2, seed=41)], {"p": 0.5}, desc="p 0.5"),
                             Sample([arr(3, 4, seed=42)], {"p": float("inf")}, desc="p inf"),
                             Sample([arr(3, 2, seed=41)], {"p": 0}, desc="p 0"),
                             Sample([arr(1, 3, seed=43)], desc="one row")],
           complex=False, low_precision=False,      # (PyTorch refuses half: "not implemented for 'Half'")
           zero_size=False,         # (torch's pdist backward of a zero-size input crashes the process;
           #                          tests/test_more_ops.py checks ours)
           errors=[E(RuntimeError, "pdist only supports 2D tensors, got: 1D", V, desc="1-d"),
                   E(RuntimeError, "pdist only supports non-negative p values", M, p=-1, desc="p"),
                   E(RuntimeError, "pdist only supports floating-point dtypes", INT, desc="int")]),
    OpCase("searchsorted", samples=[Sample([np.sort(V), M]), Sample([np.sort(V), M], {"right": True}, desc="right"),
                                    Sample([np.sort(M, axis=-1), M[:, :2]], desc="rows")],
           noncontig=False, zero_size=False,        # (sorted along the last dim: a derived sample is not)
           errors=[E(RuntimeError, "torch.searchsorted(): side and right can't be set to opposites, got "
                     "side of left while right was True", np.sort(V), M, side="left", right=True)]),
    OpCase("bucketize", samples=[Sample([M, np.sort(V)]), Sample([M, np.sort(V)], {"right": True}, desc="right")],
           op="searchsorted", noncontig=False, zero_size=False),
    OpCase("unique", samples=[Sample([INT]), Sample([INT], {"return_inverse": True, "return_counts": True},
                                                    desc="inverse, counts"),
                              Sample([np.array([[1, 2], [1, 2], [0, 5]])], {"dim": 0, "return_inverse": True},
                                     desc="dim")]),
    OpCase("unique_consecutive", samples=[Sample([np.array([1, 1, 2, 2, 3, 1, 1, 2])],
                                                 {"return_inverse": True, "return_counts": True}),
                                          Sample([np.array([[1, 2], [1, 2], [0, 5], [1, 2]])], {"dim": 0},
                                                 desc="dim")]),
    OpCase("meshgrid", lambda T, x, y: T.meshgrid(x, y, indexing="ij"), [Sample([V, arr(4, seed=3)])],
           covers=("expand",)),
    OpCase("meshgrid_xy", lambda T, x, y, z: T.meshgrid([x, y, z], indexing="xy"),
           [Sample([V, arr(4, seed=3), S0])], covers=("expand",)),
]


def _along(T, name, x, dim):
    """The median along ``dim`` whose gradient is shared among ties (median()'s
    batching rule); torch has no such op: its median(dim) agrees without ties."""
    if T.__name__ == "torch":
        return getattr(T, name)(x, dim).values
    from tensorplay.ops import sorting, stats
    return getattr(sorting if name == "median" else stats, f"_{name}_along")(x, dim)
