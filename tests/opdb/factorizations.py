"""Rows for the registry ops of ops/factorizations.py: ``cholesky_inverse`` and
``cholesky_solve`` (differentiable, PyTorch's gradient of the whole factor),
``geqrf`` and the LDL pair behind ``tensorplay.linalg.ldl_factor_ex`` and
``ldl_solve`` (not differentiable in PyTorch: values only).  The composites of
that module are tested in tests/test_factorizations.py.

The Cholesky rows make their factor from any square matrix, triangular with a
dominant diagonal (as PyTorch's OpInfo wraps the input): the functions read only
that triangle, so the finite differences see only it.  tests/test_factorizations.py
compares the gradient of a whole (untriangular) factor with PyTorch's."""
import numpy as np

from . import E, OpCase, Sample, arr


def _factor(T, a, upper=False):
    """A well-conditioned triangular factor from any square matrix, with a real
    positive diagonal as every Cholesky factor has (LAPACK's potri reads a
    complex diagonal's real part in places, so PyTorch's value there is no
    function of the matrix)."""
    t = a.triu(1) if upper else a.tril(-1)
    d = a.diagonal(0, -2, -1)
    return t + T.diag_embed((d.real if d.is_complex() else d) + 3)


def _cholesky_inverse(T, a, upper=False):
    return T.cholesky_inverse(_factor(T, a, upper), upper)


def _cholesky_inverse_oracle(T, a, upper=False):
    """The same function through ``linalg.inv``: PyTorch's forward-mode rule for
    ``cholesky_inverse`` disagrees with finite differences (2.13; its backward is
    right, and tests/test_factorizations.py compares it), so the table's torch
    oracle, whose tangents test_forward_ad_ops compares, is this one."""
    F = _factor(T, a, upper)
    return T.linalg.inv(F.mH @ F if upper else F @ F.mH)


def _cholesky_solve(T, b, a, upper=False):
    return T.cholesky_solve(b, _factor(T, a, upper), upper)


def _sym(a):
    return a + a.mT


def _ldl_factor_ex(T, a, **kw):
    return tuple(T.linalg.ldl_factor_ex(_sym(a), **kw))


def _ldl_solve(T, a, b, hermitian=False):
    LD, piv = T.linalg.ldl_factor(_sym(a) + 0.5 * T.eye(a.shape[-1], dtype=a.dtype), hermitian=hermitian)
    return T.linalg.ldl_solve(LD, piv, b, hermitian=hermitian)


def _raw(name):
    def fn(T, *xs, **kw):
        f = T
        for p in name.split("."):
            f = getattr(f, p)
        return f(*xs, **kw)
    return fn


def f32(*shape):
    return np.ones(shape, np.float32)


CASES = [
    # ------------------------------------------------------------ cholesky_inverse
    OpCase("cholesky_inverse", _cholesky_inverse,
           [Sample([arr(2, 3, 3, seed=301)], desc="batch"),
            Sample([arr(4, 4, seed=302)], dict(upper=True), desc="upper"),
            Sample([arr(1, 1, seed=303)], desc="1x1")],
           low_precision=False, torch_fn=_cholesky_inverse_oracle,
           errors=[E(RuntimeError, "cholesky_inverse: A must be batches of square matrices, but they are 2 by 3 "
                     "matrices", f32(2, 3), fn=_raw("cholesky_inverse"), desc="not square"),
                   E(RuntimeError, "cholesky_inverse: The input tensor A must have at least 2 dimensions.",
                     f32(3), fn=_raw("cholesky_inverse"), desc="1-d"),
                   E(NotImplementedError, "\"cholesky_inverse_out_cpu\" not implemented for 'Int'",
                     np.eye(2, dtype=np.int32), fn=_raw("cholesky_inverse"), desc="int"),
                   E(TypeError, "cholesky_inverse(): argument 'upper' must be bool, not int", np.eye(2),
                     fn=lambda T, a: T.cholesky_inverse(a, upper=1), desc="upper int")]),
    # ------------------------------------------------------------ cholesky_solve
    OpCase("cholesky_solve", _cholesky_solve,
           [Sample([arr(2, 3, 2, seed=311), arr(2, 3, 3, seed=312)], desc="batch"),
            Sample([arr(3, 2, seed=313), arr(3, 3, seed=314)], dict(upper=True), desc="upper"),
            Sample([arr(2, 1, 3, 2, seed=315), arr(3, 3, 3, seed=316)], desc="broadcast"),
            Sample([arr(4, 3, 1, seed=317), arr(3, 3, seed=318)], dict(upper=True), desc="broadcast upper")],
           low_precision=False,
           errors=[E(RuntimeError, "b should have at least 2 dimensions, but has 1 dimensions instead",
                     np.ones(3), np.eye(3), fn=_raw("cholesky_solve"), desc="1-d b"),
                   E(RuntimeError, "u should have at least 2 dimensions, but has 1 dimensions instead",
                     np.ones((3, 2)), np.ones(3), fn=_raw("cholesky_solve"), desc="1-d u"),
                   E(RuntimeError, "Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 but "
                     "each b matrix is 4 by 2", np.ones((4, 2)), np.eye(3), fn=_raw("cholesky_solve"),
                     desc="sizes"),
                   E(RuntimeError, "A must be batches of square matrices, but they are 3 by 2 matrices",
                     np.ones((3, 2)), np.ones((3, 2)), fn=_raw("cholesky_solve"), desc="not square"),
                   E(RuntimeError, "Expected b and A to have the same dtype, but found b of type Float and A of "
                     "type Double instead.", f32(3, 2), np.eye(3), fn=_raw("cholesky_solve"), desc="dtypes"),
                   E(RuntimeError, "The size of tensor a (2) must match the size of tensor b (3) at "
                     "non-singleton dimension 0", np.ones((2, 3, 2)), np.ones((3, 3, 3)),
                     fn=_raw("cholesky_solve"), desc="batch shapes"),
                   E(NotImplementedError, "\"cholesky_solve_cpu\" not implemented for 'Int'",
                     np.ones((3, 2), np.int32), np.eye(3, dtype=np.int32), fn=_raw("cholesky_solve"),
                     desc="int"),
                   E(TypeError, "cholesky_solve(): argument 'upper' must be bool, not int", np.ones((3, 2)),
                     np.eye(3), fn=lambda T, b, a: T.cholesky_solve(b, a, upper=1), desc="upper int")]),
    # ------------------------------------------------------------ geqrf (values only)
    OpCase("geqrf", lambda T, a: tuple(T.geqrf(a)),
           [Sample([arr(2, 4, 3, seed=321)], desc="tall batch"),
            Sample([arr(3, 5, seed=322)], desc="wide"),
            Sample([arr(3, 3, seed=323)], desc="square")],
           differentiable=False, low_precision=False,
           errors=[E(RuntimeError, "torch.geqrf: input must have at least 2 dimensions.", np.ones(3),
                     fn=_raw("geqrf"), desc="1-d"),
                   E(NotImplementedError, "\"geqrf_cpu\" not implemented for 'Int'", np.ones((2, 2), np.int32),
                     fn=_raw("geqrf"), desc="int"),
                   E(NotImplementedError, "\"geqrf_cpu\" not implemented for 'Half'",
                     np.ones((2, 2), np.float16), fn=_raw("geqrf"), desc="half")]),
    # ------------------------------------------------------------ LDL (values only)
    OpCase("linalg_ldl_factor_ex", _ldl_factor_ex,
           [Sample([arr(3, 4, 4, seed=331)], desc="batch"),
            Sample([arr(5, 5, seed=332)], dict(hermitian=True), desc="hermitian"),
            Sample([np.array([[0.5, 1.0], [1.0, 0.5]]) / 2], desc="2x2 pivot"),
            Sample([np.zeros((3, 3))], desc="singular")],
           differentiable=False, low_precision=False,
           errors=[E(RuntimeError, "torch.linalg.ldl_factor_ex: A must be batches of square matrices, but they "
                     "are 3 by 4 matrices", np.ones((3, 4)), fn=_raw("linalg.ldl_factor_ex"), desc="not square"),
                   E(RuntimeError, "torch.linalg.ldl_factor_ex: The input tensor A must have at least 2 "
                     "dimensions.", np.ones(4), fn=_raw("linalg.ldl_factor"), desc="1-d"),
                   E(RuntimeError, "torch.linalg.ldl_factor_ex: Expected a floating point or complex tensor as "
                     "input. Got Int", np.ones((2, 2), np.int32), fn=_raw("linalg.ldl_factor"), desc="int"),
                   E(NotImplementedError, "\"ldl_factor_kernel_cpu\" not implemented for 'Half'",
                     np.ones((2, 2), np.float16), fn=_raw("linalg.ldl_factor"), desc="half"),
                   E(TypeError, "linalg_ldl_factor(): argument 'hermitian' must be bool, not int", np.eye(2),
                     fn=lambda T, a: T.linalg.ldl_factor(a, hermitian=1), desc="hermitian int"),
                   E(TypeError, "linalg_ldl_factor_ex(): argument 'check_errors' must be bool, not int",
                     np.eye(2), fn=lambda T, a: T.linalg.ldl_factor_ex(a, check_errors=1), desc="check_errors"),
                   E(RuntimeError, "false INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/ATen/native/"
                     "BatchLinearAlgebra.cpp\":1642, please report a bug to PyTorch. torch.linalg.ldl_factor: "
                     "Unknown error code: 3.", np.stack([np.eye(3), np.diag([1.0, 1.0, 0.0])]),
                     fn=_raw("linalg.ldl_factor"), desc="singular"),
                   E(RuntimeError, "false INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/ATen/native/"
                     "BatchLinearAlgebra.cpp\":1642, please report a bug to PyTorch. torch.linalg.ldl_factor_ex: "
                     "Unknown error code: 1.", np.zeros((3, 3)),
                     fn=lambda T, a: T.linalg.ldl_factor_ex(a, check_errors=True), desc="check_errors singular")]),
    OpCase("linalg_ldl_solve", _ldl_solve,
           [Sample([arr(2, 4, 4, seed=341), arr(2, 4, 3, seed=342)], desc="batch"),
            Sample([arr(4, 4, seed=343), arr(3, 4, 2, seed=344)], desc="broadcast B"),
            Sample([arr(5, 5, seed=345), arr(5, 1, seed=346)], dict(hermitian=True), desc="hermitian")],
           differentiable=False, low_precision=False,
           errors=[E(RuntimeError, "Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is 4 by 4 "
                     "but each b matrix is 3 by 2", np.eye(4), np.ones(4, np.int32), np.ones((3, 2)),
                     fn=_raw("linalg.ldl_solve"), desc="sizes"),
                   E(RuntimeError, "torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the "
                     "same, but got pivots with shape [3] instead", np.eye(4), np.ones(3, np.int32),
                     np.ones((4, 2)), fn=_raw("linalg.ldl_solve"), desc="pivots shape"),
                   E(RuntimeError, "torch.linalg.ldl_solve: Expected pivots to be integers. Got Float",
                     np.eye(4), np.ones(4, np.float32), np.ones((4, 2)), fn=_raw("linalg.ldl_solve"),
                     desc="pivots dtype"),
                   E(RuntimeError, "Expected b and A to have the same dtype, but found b of type Float and A of "
                     "type Double instead.", np.eye(4), np.ones(4, np.int32), f32(4, 2),
                     fn=_raw("linalg.ldl_solve"), desc="dtypes"),
                   E(RuntimeError, "torch.linalg.ldl_solve: A must be batches of square matrices, but they are "
                     "3 by 4 matrices", np.ones((3, 4)), np.ones(3, np.int32), np.ones((3, 2)),
                     fn=_raw("linalg.ldl_solve"), desc="not square"),
                   E(IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got -2)",
                     np.eye(4), np.ones(4, np.int32), np.ones(4), fn=_raw("linalg.ldl_solve"), desc="1-d B"),
                   E(TypeError, "linalg_ldl_solve(): argument 'hermitian' must be bool, not int", np.eye(2),
                     np.ones(2, np.int32), np.ones((2, 1)),
                     fn=lambda T, a, p, b: T.linalg.ldl_solve(a, p, b, hermitian=1), desc="hermitian int")]),
]
