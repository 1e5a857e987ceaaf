"""Rows for ops/linalg_more.py (tensorplay.linalg's matrix_exp and the LU
family).  LU's pivots depend on the values, so the rows keep the inputs away
from ties (random matrices) and return the factors themselves: within a
gradcheck's step the pivots do not change."""
import numpy as np

from . import E, OpCase, Sample, arr


def _raw(name):
    def fn(T, *xs, **kw):
        f = T.linalg
        for p in name.split("."):
            f = getattr(f, p)
        return f(*xs, **kw)
    return fn


def _sym(L):
    """Functions of the eigenvalues that do not depend on their order."""
    return L.sum(-1), (L * L).sum(-1), (L * L * L).sum(-1)


def _eig(T, a):
    """What does not depend on the eigenvalues' order or the eigenvectors' phase:
    symmetric functions of the eigenvalues and ``V exp(L) V^-1``."""
    L, V = T.linalg.eig(a)
    return _sym(L) + ((V * L.exp().unsqueeze(-2)) @ T.linalg.inv(V),)


def _lu_solve(T, a, b, **kw):
    LU, piv = T.linalg.lu_factor(a)
    return T.linalg.lu_solve(LU, piv, b, **kw)


CASES = [
    # ------------------------------------------------------------ matrix_exp
    OpCase("linalg_matrix_exp", lambda T, a: T.linalg.matrix_exp(a),
           [Sample([arr(2, 3, 3, seed=70)], desc="batch"), Sample([arr(4, 4, seed=71, lo=-4, hi=4)], desc="scaled"),
            Sample([arr(3, 3, seed=72, lo=-0.01, hi=0.01)], desc="small"), Sample([arr(1, 1, seed=73)], desc="1x1")],
           errors=[E(RuntimeError, "linalg.matrix_exp: The input tensor A must have at least 2 dimensions.",
                     np.ones(3), desc="1-d"),
                   E(RuntimeError, "linalg.matrix_exp: A must be batches of square matrices, but they are 2 by 3 "
                     "matrices", np.ones((2, 3)), desc="not square"),
                   E(RuntimeError, "linalg.matrix_exp: Expected a floating point or complex tensor as input. "
                     "Got Long", np.ones((2, 2), np.int64), desc="int")]),
    OpCase("matrix_exp", lambda T, a: (T.matrix_exp(a), a.matrix_exp()), [Sample([arr(2, 3, 3, seed=74)])],
           covers=("linalg_matrix_exp",)),
    # ------------------------------------------------------------ LU
    OpCase("linalg_lu_factor_ex", lambda T, a: tuple(T.linalg.lu_factor_ex(a)),
           [Sample([arr(2, 3, 3, seed=80)], desc="batch"), Sample([arr(3, 5, seed=81)], desc="wide"),
            Sample([arr(2, 5, 3, seed=82)], desc="tall")],
           low_precision=False,
           errors=[E(RuntimeError, "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: [3] instead",
                     np.ones(3), desc="1-d"),
                   E(NotImplementedError, "\"lu_cpu\" not implemented for 'Long'", np.ones((2, 2), np.int64),
                     desc="int"),
                   E(NotImplementedError, "\"lu_cpu\" not implemented for 'Half'", np.ones((2, 2), np.float16),
                     desc="half"),
                   E(RuntimeError, "linalg.lu_factor: LU without pivoting is not implemented on the CPU",
                     np.eye(2), fn=lambda T, a: T.linalg.lu_factor_ex(a, pivot=False), desc="no pivot"),
                   E(TypeError, "linalg_lu_factor_ex(): argument 'pivot' must be bool, not int", np.eye(2),
                     fn=lambda T, a: T.linalg.lu_factor_ex(a, pivot=1), desc="pivot int"),
                   E(RuntimeError, "torch.linalg.lu_factor_ex: (Batch element 1): U[2,2] is zero and using it on "
                     "lu_solve would result in a division by zero. If you still want to perform the factorization, "
                     "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)",
                     np.stack([np.eye(2), np.diag([1.0, 0.0])]),
                     fn=lambda T, a: T.linalg.lu_factor_ex(a, check_errors=True), desc="singular")]),
    OpCase("linalg_lu_factor", lambda T, a: tuple(T.linalg.lu_factor(a)),
           [Sample([arr(2, 4, 4, seed=83)], desc="batch"), Sample([arr(2, 3, seed=84)], desc="wide")],
           covers=("linalg_lu_factor_ex",), low_precision=False,
           errors=[E(RuntimeError, "torch.linalg.lu_factor: U[1,1] is zero and using it on lu_solve would result "
                     "in a division by zero. If you still want to perform the factorization, consider calling "
                     "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)", np.zeros((2, 2)), desc="singular"),
                   E(TypeError, "linalg_lu_factor(): argument 'pivot' must be bool, not int", np.eye(2),
                     fn=lambda T, a: T.linalg.lu_factor(a, pivot=1), desc="pivot int")]),
    OpCase("linalg_lu", lambda T, a: tuple(T.linalg.lu(a)),
           [Sample([arr(2, 3, 3, seed=85)], desc="batch"), Sample([arr(3, 5, seed=86)], desc="wide"),
            Sample([arr(5, 3, seed=87)], desc="tall")],
           low_precision=False,
           errors=[E(RuntimeError, "linalg.lu: Expected tensor with 2 or more dimensions. Got size: [3] instead",
                     np.ones(3), desc="1-d"),
                   E(NotImplementedError, "\"lu_cpu\" not implemented for 'Bool'", np.ones((2, 2), bool),
                     desc="bool"),
                   E(RuntimeError, "linalg.lu_factor: LU without pivoting is not implemented on the CPU",
                     np.eye(2), fn=lambda T, a: T.linalg.lu(a, pivot=False), desc="no pivot"),
                   E(TypeError, "linalg_lu(): argument 'pivot' must be bool, not int", np.eye(2),
                     fn=lambda T, a: T.linalg.lu(a, pivot=1), desc="pivot int")]),
    OpCase("lu_unpack", lambda T, a, **kw: tuple(T.lu_unpack(*T.linalg.lu_factor(a), **kw)),
           [Sample([arr(2, 3, 3, seed=88)], desc="batch"), Sample([arr(3, 4, seed=89)], desc="wide"),
            Sample([arr(4, 2, seed=90)], desc="tall")],
           # (unpack_data/unpack_pivots=False give empty tensors: tests/test_linalg_more.py)
           covers=("lu_unpack", "linalg_lu_factor_ex"), low_precision=False,
           errors=[E(RuntimeError, "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
                     "dtype.\nNote: this function is intended to be used with the output produced by "
                     "torch.linalg.lu_factor", np.eye(2), np.ones(2, np.int64), fn=lambda T, a, p: T.lu_unpack(a, p),
                     desc="int64 pivots"),
                   E(RuntimeError, "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you "
                     "properly pass the result of lu_factor?", np.eye(2), np.array([3, 2], np.int32),
                     fn=lambda T, a, p: T.lu_unpack(a, p), desc="pivot range"),
                   E(TypeError, "lu_unpack(): argument 'unpack_data' must be bool, not int", np.eye(2),
                     np.array([1, 2], np.int32), fn=lambda T, a, p: T.lu_unpack(a, p, unpack_data=1),
                     desc="unpack_data int")]),
    OpCase("linalg_lu_solve", _lu_solve,
           [Sample([arr(2, 3, 3, seed=92), arr(2, 3, 2, seed=93)], desc="batch"),
            Sample([arr(3, 3, seed=94), arr(2, 3, 4, seed=95)], dict(adjoint=True), desc="adjoint, broadcast"),
            Sample([arr(2, 3, 3, seed=96), arr(4, 3, seed=97)], dict(left=False), desc="right"),
            Sample([arr(3, 3, seed=98), arr(2, 3, seed=99)], dict(left=False, adjoint=True), desc="right, adjoint")],
           low_precision=False,
           # (PyTorch's left=False result of a complex B is a conjugate view)
           torch_fn=lambda T, a, b, **kw: _lu_solve(T, a, b, **kw).resolve_conj(),
           errors=[E(RuntimeError, "linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B (3x3 "
                     "and 4x2)", np.eye(3), np.ones((4, 2)), desc="shapes"),
                   E(RuntimeError, "linalg.lu_solve: Incompatible shapes of A and B for the equation XA = B (3x3 "
                     "and 3x2)", np.eye(3), np.ones((3, 2)), left=False, desc="shapes right"),
                   E(RuntimeError, "linalg.lu_solve: The input tensor B must have at least 2 dimensions.", np.eye(3),
                     np.ones(3), desc="1-d B"),
                   E(RuntimeError, "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                     "Float and B of type Double instead", np.eye(3, dtype=np.float32), np.ones((3, 3)),
                     desc="dtypes"),
                   E(RuntimeError, "The size of tensor a (5) must match the size of tensor b (2) at non-singleton "
                     "dimension 0", np.ones((2, 3, 3)) + np.eye(3), np.ones((5, 3, 3)), desc="batch"),
                   E(RuntimeError, "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32",
                     np.eye(3), np.array([1, 2, 3]), np.ones((3, 3)),
                     fn=lambda T, lu, p, b: T.linalg.lu_solve(lu, p, b), desc="int64 pivots"),
                   E(RuntimeError, "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got "
                     "pivots with shape [1, 3] instead", np.ones((2, 3, 3)), np.ones((1, 3), np.int32),
                     np.ones((3, 3)), fn=lambda T, lu, p, b: T.linalg.lu_solve(lu, p, b), desc="pivots batch"),
                   E(RuntimeError, "linalg.lu_solve: Number of pivots per batch should be same as the dimension of "
                     "the matrix", np.eye(3), np.ones(2, np.int32), np.ones((3, 3)),
                     fn=lambda T, lu, p, b: T.linalg.lu_solve(lu, p, b), desc="pivots count"),
                   E(TypeError, "linalg_lu_solve(): argument 'left' must be bool, not int", np.eye(3),
                     np.ones((3, 3)), left=1, desc="left int")]),
    # ------------------------------------------------------------ inv_ex, solve_ex
    OpCase("linalg_inv_ex", lambda T, a: tuple(T.linalg.inv_ex(a)), [Sample([arr(2, 3, 3, seed=100)])],
           covers=("linalg_inv", "linalg_lu_factor_ex"), low_precision=False,
           errors=[E(RuntimeError, "linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices",
                     np.ones((2, 3)), desc="not square"),
                   E(RuntimeError, "linalg.inv: Low precision dtypes not supported. Got Half",
                     np.ones((2, 2), np.float16), desc="half"),
                   E(TypeError, "linalg_inv_ex(): argument 'check_errors' must be bool, not int", np.eye(2),
                     fn=lambda T, a: T.linalg.inv_ex(a, check_errors=1), desc="check_errors int")]),
    OpCase("linalg_solve_ex", lambda T, a, b, **kw: tuple(T.linalg.solve_ex(a, b, **kw)),
           [Sample([arr(2, 3, 3, seed=101), arr(3, 2, seed=102)], desc="batch"),
            Sample([arr(3, 3, seed=103), arr(3, seed=104)], desc="vector"),
            Sample([arr(3, 3, seed=105), arr(2, 3, seed=106)], dict(left=False), desc="right")],
           covers=("linalg_solve", "linalg_lu_factor_ex"), low_precision=False,
           torch_fn=lambda T, a, b, **kw: tuple(t.resolve_conj() for t in T.linalg.solve_ex(a, b, **kw)),
           errors=[E(RuntimeError, "linalg.solve: Expected A and B to have the same dtype, but found A of type "
                     "Float and B of type Double instead", np.eye(2, dtype=np.float32), np.ones((2, 1)),
                     desc="dtypes"),
                   E(NotImplementedError, "\"lu_cpu\" not implemented for 'Half'", np.eye(2, dtype=np.float16),
                     np.ones((2, 1), np.float16), desc="half")]),
    # ------------------------------------------------------------ eig, eigvals
    OpCase("linalg_eig", _eig,
           [Sample([arr(2, 3, 3, seed=110)], desc="batch"), Sample([arr(4, 4, seed=111)])],
           low_precision=False, preserves_dtype=False,
           errors=[E(RuntimeError, "linalg.eig: The input tensor A must have at least 2 dimensions.", np.ones(3),
                     fn=_raw("eig"), desc="1-d"),
                   E(RuntimeError, "linalg.eig: A must be batches of square matrices, but they are 2 by 3 matrices",
                     np.ones((2, 3)), fn=_raw("eig"), desc="not square"),
                   E(RuntimeError, "Unknown Complex ScalarType for Long", np.ones((2, 2), np.int64), fn=_raw("eig"),
                     desc="int"),
                   E(NotImplementedError, "\"linalg_eig_out_cpu\" not implemented for 'Half'",
                     np.ones((2, 2), np.float16), fn=_raw("eig"), desc="half"),
                   E(RuntimeError, "torch.linalg.eig: input tensor should not contain infs or NaNs.",
                     np.array([[1.0, np.inf], [0.0, 1.0]]), fn=_raw("eig"), desc="inf")]),
    OpCase("linalg_eigvals", lambda T, a: _sym(T.linalg.eigvals(a)),
           [Sample([arr(2, 3, 3, seed=112)], desc="batch")],
           covers=("linalg_eig",), low_precision=False, preserves_dtype=False,
           errors=[E(RuntimeError, "linalg.eigvals: The input tensor A must have at least 2 dimensions.", np.ones(3),
                     fn=_raw("eigvals"), desc="1-d"),
                   E(RuntimeError, "linalg.eigvals: A must be batches of square matrices, but they are 2 by 3 "
                     "matrices", np.ones((2, 3)), fn=_raw("eigvals"), desc="not square")]),
    # ------------------------------------------------------------ lstsq
    # (singular_values, not differentiable in PyTorch either, are compared in tests/test_linalg_more.py)
    OpCase("linalg_lstsq", lambda T, a, b, **kw: tuple(T.linalg.lstsq(a, b, **kw))[:3],
           [Sample([arr(2, 5, 3, seed=120), arr(2, 5, 2, seed=121)], desc="batch, tall"),
            Sample([arr(3, 5, seed=122), arr(3, 2, seed=123)], desc="wide"),
            Sample([arr(2, 5, 3, seed=124), arr(2, 5, seed=125)], desc="vector"),
            Sample([arr(2, 5, 3, seed=126), arr(1, 5, 2, seed=127)], dict(driver="gelsd"), desc="gelsd, broadcast"),
            Sample([arr(4, 3, seed=128), arr(4, 2, seed=129)], dict(driver="gelss", rcond=0.1), desc="gelss"),
            Sample([arr(4, 3, seed=130), arr(4, 2, seed=131)], dict(driver="gels"), desc="gels")],
           low_precision=False,
           # (PyTorch's results may be conjugate views)
           torch_fn=lambda T, a, b, **kw: tuple(t.resolve_conj() for t in T.linalg.lstsq(a, b, **kw))[:3],
           errors=[E(RuntimeError, "torch.linalg.lstsq: input must have at least 2 dimensions.", np.ones(3),
                     np.ones(3), desc="1-d"),
                   E(RuntimeError, "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                     "(input.dim() - other.dim()) <= 1", np.ones((2, 5, 3)), np.ones(5), desc="dims"),
                   E(RuntimeError, "torch.linalg.lstsq: input.size(-2) should match other.size(-2)",
                     np.ones((5, 3)), np.ones((4, 2)), desc="rows"),
                   E(RuntimeError, "The size of tensor a (2) must match the size of tensor b (5) at non-singleton "
                     "dimension 0", np.ones((2, 5, 3)), np.ones((5, 2)), desc="batch"),
                   E(RuntimeError, "torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                     "input's dtype Double and other's dtype Float", np.ones((5, 3)), np.ones((5, 2), np.float32),
                     desc="dtypes"),
                   E(RuntimeError, "This function doesn't handle types other than float and double",
                     np.ones((5, 3), np.float16), np.ones((5, 2), np.float16), desc="half"),
                   E(RuntimeError, "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, "
                     "gelss)", np.ones((5, 3)), np.ones((5, 2)), driver="foo", desc="driver")]),
    # ------------------------------------------------------------ householder_product (a composite)
    OpCase("linalg_householder_product", lambda T, a, t: T.linalg.householder_product(a, t),
           [Sample([arr(2, 5, 3, seed=140), arr(2, 3, seed=141)], desc="batch"),
            Sample([arr(4, 4, seed=142), arr(2, seed=143)], desc="fewer reflectors")],
           covers=("tril",), low_precision=False,
           errors=[E(RuntimeError, "torch.linalg.householder_product: input must have at least 2 dimensions.",
                     np.ones(3), np.ones(3), desc="1-d"),
                   E(RuntimeError, "torch.linalg.householder_product: input.shape[-2] must be greater than or equal "
                     "to input.shape[-1]", np.ones((3, 5)), np.ones(3), desc="wide"),
                   E(RuntimeError, "torch.linalg.householder_product: input.shape[-1] must be greater than or equal "
                     "to tau.shape[-1]", np.ones((5, 3)), np.ones(4), desc="tau long"),
                   E(RuntimeError, "torch.linalg.householder_product: Expected tau to have one dimension less than "
                     "input, but got tau.ndim equal to 1 and input.ndim is equal to 3", np.ones((2, 5, 3)),
                     np.ones(3), desc="tau ndim"),
                   E(RuntimeError, "torch.linalg.householder_product: Expected batch dimensions of tau to be equal "
                     "to input.shape[:-2], but got [3]", np.ones((2, 5, 3)), np.ones((3, 3)), desc="tau batch"),
                   E(RuntimeError, "torch.linalg.householder_product: tau dtype Float does not match input dtype "
                     "Double", np.ones((5, 3)), np.ones(3, np.float32), desc="dtypes"),
                   E(NotImplementedError, "\"orgqr_cpu\" not implemented for 'Half'", np.ones((5, 3), np.float16),
                     np.ones(3, np.float16), desc="half")]),
]
