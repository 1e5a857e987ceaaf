"""Rows for ops/decompositions.py (tensorplay.linalg's cholesky, eigh, svd,
solve_triangular).  Eigenvectors and singular vectors are defined up to a sign
(a phase, for complex ones), so the rows' functions return what does not depend
on it: eigenvalues, singular values, the vectors' absolute values, ``U @ Vh``,
``V f(L) V^H``.  Inputs are made Hermitian (positive-definite) by the row's
function, so that the complex gradcheck's inputs are too."""
import math

import numpy as np

from . import E, OpCase, Sample, arr


def f32(*shape):
    return np.ones(shape, np.float32)


def _pd(T, a):
    """A Hermitian positive-definite matrix from any square one."""
    return a @ a.mH + 3 * T.eye(a.shape[-1], dtype=a.dtype)


def _herm(a):
    return a + a.mH


def _eigh(T, a, UPLO="L"):
    L, V = T.linalg.eigh(_herm(a), UPLO=UPLO)
    return L, V.abs(), (V * L.sin().unsqueeze(-2)) @ V.mH


def _svd(T, a, full_matrices=True):
    U, S, Vh = T.linalg.svd(a, full_matrices=full_matrices)
    k = S.shape[-1]
    U, Vh = U[..., :k], Vh[..., :k, :]
    return S, U.abs(), Vh.abs(), U @ Vh


def _svd_legacy(T, a, some=True):
    U, S, V = T.svd(a, some=some)
    k = S.shape[-1]
    U, V = U[..., :k], V[..., :k]
    return S, U.abs(), V.abs(), U @ V.mH, T.svd(a, compute_uv=False)[1]


def _tri(T, a, b, **kw):
    return T.linalg.solve_triangular(a + 3 * T.eye(a.shape[-1], dtype=a.dtype), b, **kw)


_A = arr(3, 3, seed=21)
_AB = arr(2, 3, 3, seed=22)


def _raw(name):
    def fn(T, *xs, **kw):
        f = T.linalg
        for p in name.split("."):
            f = getattr(f, p)
        return f(*xs, **kw)
    return fn


CASES = [
    # ------------------------------------------------------------ cholesky
    OpCase("linalg_cholesky", lambda T, a, **kw: T.linalg.cholesky(_pd(T, a), **kw),
           [Sample([_AB], desc="batch"), Sample([_A]), Sample([_A], dict(upper=True), desc="upper")],
           low_precision=False,
           # (not positive-definite: tests/test_linalg_decomp.py, since PyTorch's LinAlgError is
           # named _LinAlgError)
           errors=[E(RuntimeError, "linalg.cholesky: A must be batches of square matrices, but they are 2 by 3 "
                     "matrices", f32(2, 3), fn=_raw("cholesky"), desc="not square"),
                   E(RuntimeError, "linalg.cholesky: The input tensor A must have at least 2 dimensions.",
                     f32(3), fn=_raw("cholesky"), desc="1-d"),
                   E(RuntimeError, "linalg.cholesky: Expected a floating point or complex tensor as input. "
                     "Got Long", np.eye(2, dtype=np.int64), fn=_raw("cholesky"), desc="int"),
                   E(NotImplementedError, "\"cholesky_cpu\" not implemented for 'Half'",
                     np.eye(2, dtype=np.float16), fn=_raw("cholesky"), desc="half"),
                   E(TypeError, "linalg_cholesky(): argument 'upper' must be bool, not int", np.eye(2),
                     fn=lambda T, a: T.linalg.cholesky(a, upper=1), desc="upper int")]),
    OpCase("linalg_cholesky_ex", lambda T, a, **kw: tuple(T.linalg.cholesky_ex(_pd(T, a), **kw)),
           [Sample([_AB], desc="batch"), Sample([_A], dict(upper=True), desc="upper")],
           low_precision=False,
           errors=[E(TypeError, "linalg_cholesky_ex(): argument 'check_errors' must be bool, not NoneType",
                     np.eye(2), fn=lambda T, a: T.linalg.cholesky_ex(a, check_errors=None), desc="check_errors"),
                   E(NotImplementedError, "\"cholesky_cpu\" not implemented for 'BFloat16'", np.eye(2),
                     fn=lambda T, a: T.linalg.cholesky_ex(a.to(T.bfloat16)), desc="bfloat16")]),
    # ------------------------------------------------------------ eigh, eigvalsh
    OpCase("linalg_eigh", _eigh,
           [Sample([_AB], desc="batch"), Sample([_A]), Sample([_A], dict(UPLO="U"), desc="upper")],
           low_precision=False,
           errors=[E(RuntimeError, "linalg.eigh: A must be batches of square matrices, but they are 2 by 3 "
                     "matrices", f32(2, 3), fn=_raw("eigh"), desc="not square"),
                   E(RuntimeError, "linalg.eigh: The input tensor A must have at least 2 dimensions.",
                     f32(3), fn=_raw("eigh"), desc="1-d"),
                   E(NotImplementedError, "\"linalg_eigh_cpu\" not implemented for 'Long'",
                     np.eye(2, dtype=np.int64), fn=_raw("eigh"), desc="int"),
                   E(NotImplementedError, "\"linalg_eigh_cpu\" not implemented for 'Half'",
                     np.eye(2, dtype=np.float16), fn=_raw("eigvalsh"), desc="half"),
                   E(RuntimeError, "Expected UPLO argument to be 'L' or 'U', but got X", np.eye(2),
                     fn=lambda T, a: T.linalg.eigh(a, UPLO="X"), desc="UPLO")]),
    OpCase("linalg_eigvalsh", lambda T, a, **kw: T.linalg.eigvalsh(_herm(a), **kw),
           [Sample([_AB], desc="batch"), Sample([_A], dict(UPLO="U"), desc="upper")],
           covers=("linalg_eigh",), low_precision=False),
    # ------------------------------------------------------------ svd, svdvals, torch.svd
    OpCase("linalg_svd", _svd,
           [Sample([arr(2, 3, 3, seed=23)], desc="batch"), Sample([arr(4, 3, seed=24)], desc="tall"),
            Sample([arr(3, 4, seed=25)], desc="wide"),
            Sample([arr(4, 3, seed=26)], dict(full_matrices=False), desc="tall, reduced"),
            Sample([arr(2, 3, 5, seed=27)], dict(full_matrices=False), desc="wide, reduced")],
           low_precision=False,
           errors=[E(RuntimeError, "linalg.svd: The input tensor A must have at least 2 dimensions.",
                     f32(3), fn=_raw("svd"), desc="1-d"),
                   E(RuntimeError, "linalg.svd: Expected a floating point or complex tensor as input. Got Long",
                     np.eye(2, dtype=np.int64), fn=_raw("svd"), desc="int"),
                   E(NotImplementedError, "\"linalg_svd_cpu\" not implemented for 'Half'",
                     np.eye(2, dtype=np.float16), fn=_raw("svdvals"), desc="half")]),
    OpCase("linalg_svdvals", lambda T, a: T.linalg.svdvals(a),
           [Sample([arr(2, 4, 3, seed=28)], desc="batch"), Sample([arr(3, 5, seed=29)])],
           covers=("linalg_svd",), low_precision=False),
    OpCase("svd", _svd_legacy,
           [Sample([arr(2, 4, 3, seed=30)], desc="batch"), Sample([arr(3, 4, seed=31)], dict(some=False),
                                                                 desc="not some")],
           covers=("linalg_svd",), low_precision=False),
    # ------------------------------------------------------------ qr
    OpCase("linalg_qr", lambda T, a, **kw: tuple(T.linalg.qr(a, **kw)),
           [Sample([arr(2, 4, 3, seed=40)], desc="batch, tall"), Sample([arr(3, 3, seed=41)]),
            Sample([arr(3, 5, seed=42)], desc="wide"),
            Sample([arr(2, 3, 4, seed=43)], dict(mode="complete"), desc="complete, wide")],
           low_precision=False,
           errors=[E(RuntimeError, "qr received unrecognized mode 'x' but expected one of 'reduced' (default), "
                     "'r', or 'complete'", np.eye(2), mode="x", desc="mode"),
                   E(RuntimeError, "linalg.qr: The input tensor A must have at least 2 dimensions.", f32(3),
                     desc="1-d"),
                   E(RuntimeError, "linalg.qr: Expected a floating point or complex tensor as input. Got Long",
                     np.eye(2, dtype=np.int64), desc="int"),
                   E(NotImplementedError, "\"geqrf_cpu\" not implemented for 'Half'",
                     np.eye(2, dtype=np.float16), desc="half")]),
    # (not differentiable: PyTorch's errors are in tests/test_linalg_decomp.py)
    OpCase("linalg_qr_values", lambda T, a, **kw: T.linalg.qr(a, **kw).R,   # (mode='r''s Q: empty)
           [Sample([arr(2, 4, 3, seed=44)], dict(mode="r"), desc="r"),
            Sample([arr(4, 3, seed=45)], dict(mode="complete"), desc="complete, tall")],
           covers=("linalg_qr",), differentiable=False, low_precision=False),
    # ------------------------------------------------------------ built on svdvals / pinv
    OpCase("matrix_norm_svd", lambda T, a: (T.linalg.matrix_norm(a, 2), T.linalg.matrix_norm(a, -2, keepdim=True),
                                            T.linalg.matrix_norm(a, "nuc", dim=(0, 2)), T.linalg.norm(a[0], "nuc"),
                                            T.linalg.norm(a[1], 2)),
           [Sample([arr(2, 3, 4, seed=50)])], covers=("linalg_svd",), low_precision=False,
           errors=[E(RuntimeError, "linalg.matrix_norm: Low precision dtypes not supported. Got Half",
                     np.ones((2, 2), np.float16), fn=lambda T, a: T.linalg.matrix_norm(a, "nuc"), desc="half"),
                   E(RuntimeError, "linalg.matrix_norm: Expected a floating point or complex tensor as input. "
                     "Got Long", np.ones((2, 2), np.int64), fn=lambda T, a: T.linalg.matrix_norm(a, 2),
                     desc="int"),
                   E(RuntimeError, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.",
                     np.ones(2), fn=lambda T, a: T.linalg.norm(a, "nuc"), desc="1-d")]),
    OpCase("linalg_cond", lambda T, a: (T.linalg.cond(a), T.linalg.cond(a, -2), T.linalg.cond(a[..., :2, :]),
                                        T.linalg.cond(a, "fro"), T.linalg.cond(a, 1), T.linalg.cond(a, -math.inf)),
           [Sample([arr(2, 3, 3, seed=51)])], covers=("linalg_svd", "linalg_inv"), low_precision=False,
           # (PyTorch's own cond(p='fro', 1, ...) fails in backward: its inv_ex output is modified
           # in place; its definition, norm(A) * norm(inv(A)), is the oracle)
           torch_fn=lambda T, a: (T.linalg.cond(a), T.linalg.cond(a, -2), T.linalg.cond(a[..., :2, :])) + tuple(
               T.linalg.matrix_norm(a, p) * T.linalg.matrix_norm(T.linalg.inv(a), p) if a.numel() else
               T.linalg.cond(a, p) for p in ("fro", 1, -math.inf)),
           errors=[E(RuntimeError, "linalg.cond got an invalid norm type: 3", np.eye(2),
                     fn=lambda T, a: T.linalg.cond(a, 3), desc="p"),
                   E(RuntimeError, "linalg.cond(ord=fro): A must be batches of square matrices, but they are 2 by "
                     "3 matrices", np.ones((2, 3)), fn=lambda T, a: T.linalg.cond(a, "fro"), desc="not square"),
                   E(RuntimeError, "linalg.cond: The input tensor must have at least 2 dimensions.", np.ones(2),
                     fn=lambda T, a: T.linalg.cond(a), desc="1-d")]),
    OpCase("linalg_pinv", lambda T, a, **kw: T.linalg.pinv(a, **kw),
           [Sample([arr(2, 3, 4, seed=52)], desc="batch, wide"), Sample([arr(4, 3, seed=53)], desc="tall"),
            Sample([arr(3, 3, seed=54)], dict(rtol=0.05), desc="rtol"),
            Sample([arr(2, 3, 4, seed=55)], dict(atol=0.5), desc="atol, truncated")],
           low_precision=False,
           errors=[E(RuntimeError, "linalg.pinv(Long{[2, 2]}): expected a tensor with 2 or more dimensions of "
                     "float, double, cfloat or cdouble types", np.ones((2, 2), np.int64), desc="int"),
                   E(RuntimeError, "linalg.pinv(Double{[2]}): expected a tensor with 2 or more dimensions of "
                     "float, double, cfloat or cdouble types", np.ones(2), desc="1-d")]),
    OpCase("pinverse", lambda T, a: (T.pinverse(a), a.pinverse(rcond=1e-3)), [Sample([arr(2, 4, 3, seed=62)])],
           covers=("linalg_pinv",), low_precision=False),
    OpCase("linalg_pinv_hermitian", lambda T, a: T.linalg.pinv(a + a.mH, hermitian=True),
           [Sample([arr(2, 3, 3, seed=56)])], covers=("linalg_pinv",), low_precision=False),
    OpCase("linalg_matrix_rank", lambda T, a, **kw: T.linalg.matrix_rank(a, **kw),
           [Sample([arr(2, 4, 2, seed=57) @ arr(2, 2, 3, seed=58)], desc="rank 2"),
            Sample([arr(3, 4, seed=59)], dict(atol=1.0), desc="atol"),
            Sample([arr(3, 4, seed=60)], dict(rtol=0.3), desc="rtol"),
            Sample([arr(3, 3, seed=61)], dict(hermitian=True, atol=1.0), desc="hermitian")],
           covers=("linalg_svd", "linalg_eigh"), differentiable=False, low_precision=False,
           errors=[E(RuntimeError, "This function doesn't handle types other than float and double",
                     np.ones((2, 2), np.int64), desc="int"),
                   E(RuntimeError, "torch.linalg.matrix_rank: The input tensor input must have at least 2 "
                     "dimensions.", np.ones(2), desc="1-d")]),
    # ------------------------------------------------------------ solve_triangular
    OpCase("linalg_solve_triangular", _tri,
           [Sample([arr(2, 3, 3, seed=32), arr(2, 3, 2, seed=33)], dict(upper=True), desc="batch, upper"),
            Sample([_A, arr(3, 4, seed=34)], dict(upper=False), desc="lower"),
            Sample([_A, arr(4, 3, seed=35)], dict(upper=True, left=False), desc="right"),
            Sample([_A, arr(2, 2, 3, seed=36)], dict(upper=False, left=False, unitriangular=True),
                   desc="right, unit, broadcast"),
            Sample([_AB, arr(3, 2, seed=37)], dict(upper=True, unitriangular=True), desc="unit, broadcast")],
           low_precision=False,
           errors=[E(RuntimeError, "linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                     "AX = B (3x3 and 2x2)", np.eye(3), np.ones((2, 2)), upper=True, fn=_raw("solve_triangular"),
                     desc="shapes"),
                   E(RuntimeError, "linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                     "XA = B (3x3 and 2x2)", np.eye(3), np.ones((2, 2)), upper=True, left=False,
                     fn=_raw("solve_triangular"), desc="shapes right"),
                   E(RuntimeError, "linalg.solve_triangular: A must be batches of square matrices, but they are "
                     "2 by 3 matrices", np.ones((2, 3)), np.ones((2, 2)), upper=True,
                     fn=_raw("solve_triangular"), desc="not square"),
                   E(RuntimeError, "linalg.solve_triangular: The input tensor B must have at least 2 "
                     "dimensions.", np.eye(3), np.ones(3), upper=True, fn=_raw("solve_triangular"),
                     desc="1-d B"),
                   E(RuntimeError, "The size of tensor a (3) must match the size of tensor b (2) at "
                     "non-singleton dimension 0", np.ones((2, 3, 3)), np.ones((3, 3, 2)), upper=True,
                     fn=_raw("solve_triangular"), desc="batch"),
                   E(NotImplementedError, "\"triangular_solve_cpu\" not implemented for 'Half'",
                     np.eye(3, dtype=np.float16), np.ones((3, 2), np.float16), upper=True,
                     fn=_raw("solve_triangular"), desc="half"),
                   E(TypeError, "linalg_solve_triangular() missing 1 required positional arguments: \"upper\"",
                     np.eye(3), np.ones((3, 2)), fn=_raw("solve_triangular"), desc="no upper"),
                   E(TypeError, "linalg_solve_triangular(): argument 'left' must be bool, not NoneType",
                     np.eye(3), np.ones((3, 2)), upper=True, left=None, fn=_raw("solve_triangular"),
                     desc="left None")]),
]
