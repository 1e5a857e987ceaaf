"""``tensorplay.linalg``'s API as ``torch.linalg``'s: ``out=`` (a Tensor, or a tuple
of them for the named-tuple results) with PyTorch's forms, dtype rules, autograd
refusals and messages; PyTorch's keyword names (``input=``, ``A=``, ``b=``); the
norms' ``dtype=`` checks; and PyTorch's words for bad ``dim``/``ord``/inputs.
Each test runs on tensorplay and, when installed, on torch (the ``T`` fixture)."""
import re

import numpy as np
import pytest

from conftest import assert_close, exact, lst

RG = "{}(): functions with out=... arguments don't support automatic differentiation, but one " \
     "of the arguments requires grad."
_X = np.random.default_rng(14).standard_normal((3, 3)) + 3 * np.eye(3)


def _a(T):
    return T.tensor(_X)


def _p(T):
    a = _a(T)
    return a @ a.mT


def _e(T, dt=None):
    return T.empty(0, dtype=dt or T.float64)


# ------------------------------------------------------------------ one result
SINGLE = {
    "solve": lambda T, **k: T.linalg.solve(_a(T), _p(T), **k),
    "solve_triangular": lambda T, **k: T.linalg.solve_triangular(_a(T).triu(), _p(T), upper=True, **k),
    "lu_solve": lambda T, **k: T.linalg.lu_solve(*T.linalg.lu_factor(_a(T)), _p(T), **k),
    "eigvalsh": lambda T, **k: T.linalg.eigvalsh(_p(T), **k),
    "svdvals": lambda T, **k: T.linalg.svdvals(_a(T), **k),
    "matrix_power": lambda T, **k: T.linalg.matrix_power(_a(T), 3, **k),
    "vector_norm": lambda T, **k: T.linalg.vector_norm(_a(T), 3, dim=1, **k),
    "matrix_norm": lambda T, **k: T.linalg.matrix_norm(_a(T), "nuc", **k),
    "norm": lambda T, **k: T.linalg.norm(_a(T), 1, **k),
    "cond": lambda T, **k: T.linalg.cond(_a(T), 1, **k),
    "matrix_rank": lambda T, **k: T.linalg.matrix_rank(_a(T), **k),
    "pinv": lambda T, **k: T.linalg.pinv(_a(T)[:2], **k),
    "cross": lambda T, **k: T.linalg.cross(_a(T), _p(T), **k),
    "vecdot": lambda T, **k: T.linalg.vecdot(_a(T), _p(T), **k),
    "multi_dot": lambda T, **k: T.linalg.multi_dot([_a(T)[0], _p(T), _a(T)], **k),
    "matmul": lambda T, **k: T.linalg.matmul(_a(T), _p(T), **k),
    "inv": lambda T, **k: T.linalg.inv(_a(T), **k),
    "det": lambda T, **k: T.linalg.det(_a(T), **k),
    "cholesky": lambda T, **k: T.linalg.cholesky(_p(T), **k),
    "eigvals": lambda T, **k: T.linalg.eigvals(_a(T), **k),
}


@pytest.mark.parametrize("name", sorted(SINGLE))
def test_out_is_written_and_returned(T, name):
    want = SINGLE[name](T)
    o = _e(T, want.dtype)
    r = SINGLE[name](T, out=o)
    assert r is o
    assert o.shape == want.shape and o.dtype == want.dtype
    assert_close(lst(o), lst(want), atol=1e-12)


@pytest.mark.parametrize("name", sorted(SINGLE))
def test_out_must_be_a_tensor(T, name):
    msg = f"linalg_{name}(): argument 'out' must be Tensor, not tuple"
    if name in OVERLOADED:          # (PyTorch lists its overloads: only the start is the same)
        msg = "^" + re.escape(f"linalg_{name}()")
    else:
        msg = exact(msg)
    with pytest.raises(TypeError, match=msg):
        SINGLE[name](T, out=(_e(T),))


OVERLOADED = {"cond", "matrix_rank", "pinv", "matrix_norm", "norm"}


# (name, out dtype, message): PyTorch's dtype rule for each function's out
WRONG_DTYPE = [
    ("solve", "float32", "Expected out tensor to have dtype double, but got float instead"),
    ("lu_solve", "complex128", "Expected out tensor to have dtype double, but got c10::complex<double> instead"),
    ("eigvalsh", "float32", "Expected out tensor to have dtype double, but got float instead"),
    ("svdvals", "int64", "Expected out tensor to have dtype double, but got long int instead"),
    ("matrix_power", "float32", "Expected out tensor to have dtype double, but got float instead"),
    ("vector_norm", "complex128", "Expected out tensor to have dtype double, but got c10::complex<double> instead"),
    ("cross", "float32", "Expected out tensor to have dtype double, but got float instead"),
    ("matmul", "float32", "Expected out tensor to have dtype double, but got float instead"),
    ("inv", "float32", "Expected out tensor to have dtype double, but got float instead"),
    ("cholesky", "float32", "Expected out tensor to have dtype double, but got float instead"),
    ("solve_triangular", "float32", "expected scalar type Double but found Float"),
    ("matrix_norm", "float32", "linalg.matrix_norm expected out tensor dtype Double but got: Float"),
    ("norm", "float32", "linalg.norm expected out tensor dtype Double but got: Float"),
    ("vecdot", "float32", "linalg.vecdot: Expected out of dtypeDouble but found Float"),
    ("multi_dot", "float32", "multi_dot(): expected out tensor to have dtype double but got float"),
    ("cond", "int64", "linalg.cond: Expected result to be safely castable from Double dtype, but got result "
                      "with dtype Long"),
    ("pinv", "int64", "linalg.pinv: Expected result to be safely castable from Double dtype, but got result "
                      "with dtype Long"),
    ("matrix_rank", "bool", "torch.linalg.matrix_rank: Expected result to be safely castable from Long dtype, "
                            "but got result with dtype Bool"),
    ("eigvals", "float64", "torch.linalg.eigvals: Expected eigenvalues to be safely castable from ComplexDouble "
                           "dtype, but got eigenvalues with dtype Double"),
]


@pytest.mark.parametrize("name, dt, msg", WRONG_DTYPE, ids=[w[0] for w in WRONG_DTYPE])
def test_out_of_a_wrong_dtype_is_refused(T, name, dt, msg):
    o = _e(T, getattr(T, dt))
    with pytest.raises(RuntimeError, match=exact(msg)):
        SINGLE[name](T, out=o)
    assert o.dtype == getattr(T, dt)


@pytest.mark.parametrize("name, dt", [("cond", "float32"), ("cond", "complex128"), ("pinv", "complex128"),
                                      ("matrix_rank", "float64"), ("eigvals", "complex64")])
def test_out_that_the_result_casts_to_safely(T, name, dt):
    o = _e(T, getattr(T, dt))
    SINGLE[name](T, out=o)
    assert o.dtype == getattr(T, dt)
    assert_close(lst(o), lst(SINGLE[name](T)), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name, by", [
    ("solve", "_linalg_solve_ex"), ("eigvalsh", "_linalg_eigh"), ("svdvals", "_linalg_svd"),
    ("vector_norm", "linalg_vector_norm"), ("pinv", "linalg_pinv"), ("multi_dot", "mm"), ("vecdot", "sum"),
    ("matrix_power", "matmul"), ("matmul", "matmul"), ("cross", "linalg_cross"),
    ("solve_triangular", "linalg_solve_triangular"), ("lu_solve", "linalg_lu_solve"), ("inv", "linalg_inv_ex"),
    ("cholesky", "linalg_cholesky_ex"), ("det", "_linalg_det")])
def test_out_with_an_input_that_requires_grad_is_refused(T, name, by):
    orig = T.tensor
    T_ = _GradTensors(T)
    with pytest.raises(RuntimeError, match=exact(RG.format(by))):
        SINGLE[name](T_, out=_e(T, SINGLE[name](T).dtype))
    assert T.tensor is orig


class _GradTensors:
    """``T`` whose ``tensor`` makes leaves that require grad."""

    def __init__(self, T):
        self._T = T

    def tensor(self, x):
        return self._T.tensor(x, requires_grad=True)

    def __getattr__(self, n):
        return getattr(self._T, n)


@pytest.mark.parametrize("name", ["matrix_norm", "norm", "cond"])
def test_composite_norms_write_out_with_a_gradient(T, name):
    """PyTorch's norm, matrix_norm and cond copy into ``out``: it then has the
    result's gradient."""
    T_ = _GradTensors(T)
    o = _e(T)
    r = SINGLE[name](T_, out=o)
    assert r is o and o.requires_grad and not o.is_leaf
    if name != "cond":          # (PyTorch's cond then fails in backward: an inverse it overwrote)
        _same_gradient(T, name)
    with pytest.raises(RuntimeError, match=exact("a leaf Variable that requires grad is being used in an "
                                                 "in-place operation.")):
        SINGLE[name](T, out=T.zeros((), dtype=T.float64, requires_grad=True))


def _same_gradient(T, name):
    x = T.tensor(_X, requires_grad=True)
    T2 = _Fixed(T, x)
    SINGLE[name](T2).backward()
    y = T.tensor(_X, requires_grad=True)
    SINGLE[name](_Fixed(T, y), out=_e(T)).backward()
    assert np.abs(lst(x.grad)).max() > 0
    assert_close(lst(y.grad), lst(x.grad), atol=1e-12)


class _Fixed(_GradTensors):
    """``T`` whose ``tensor`` gives ``x`` (for the inputs made from ``_X``)."""

    def __init__(self, T, x):
        super().__init__(T)
        self._x = x

    def tensor(self, x):
        return self._x if x is _X else self._T.tensor(x)


def test_matrix_power_out_by_copy_for_0_and_1(T):
    a = T.tensor(_X, requires_grad=True)
    o0, o1 = _e(T, T.float32), _e(T)
    T.linalg.matrix_power(a, 0, out=o0)
    T.linalg.matrix_power(a, 1, out=o1)
    assert lst(o0) == np.eye(3).tolist() and not o0.requires_grad
    assert o1.requires_grad
    assert_close(lst(o1), _X, atol=0)
    with pytest.raises(RuntimeError, match=exact(RG.format("linalg_inv_ex"))):
        T.linalg.matrix_power(a, -1, out=_e(T))
    with pytest.raises(RuntimeError, match=exact("matrix_power: Expected result to be safely castable from "
                                                 "Double dtype, but got result with dtype Long")):
        T.linalg.matrix_power(_a(T), 1, out=_e(T, T.int64))


def test_matrix_exp_takes_no_out(T):
    with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
        T.linalg.matrix_exp(_a(T), out=_e(T))


# ------------------------------------------------------------------ several results
INT = "int32"
MULTI = {       # name: (call, out dtypes, position of out in the signature)
    "cholesky_ex": (lambda T, **k: T.linalg.cholesky_ex(_p(T), **k), ("float64", INT), 3),
    "eigh": (lambda T, **k: T.linalg.eigh(_p(T), **k), ("float64", "float64"), 2),
    "svd": (lambda T, **k: T.linalg.svd(_a(T)[:2], **k), ("float64",) * 3, 3),
    "qr": (lambda T, **k: T.linalg.qr(_a(T), **k), ("float64",) * 2, 2),
    "slogdet": (lambda T, **k: T.linalg.slogdet(_a(T), **k), ("float64",) * 2, 1),
    "lu_factor": (lambda T, **k: T.linalg.lu_factor(_a(T), **k), ("float64", INT), 2),
    "lu_factor_ex": (lambda T, **k: T.linalg.lu_factor_ex(_a(T), **k), ("float64", INT, INT), 3),
    "lu": (lambda T, **k: T.linalg.lu(_a(T), **k), ("float64",) * 3, 2),
    "inv_ex": (lambda T, **k: T.linalg.inv_ex(_a(T), **k), ("float64", INT), 2),
    "solve_ex": (lambda T, **k: T.linalg.solve_ex(_a(T), _p(T), **k), ("float64", INT), 4),
    "eig": (lambda T, **k: T.linalg.eig(_a(T), **k), ("complex128",) * 2, 1),
    "lstsq": (lambda T, **k: T.linalg.lstsq(_a(T), _p(T), driver="gelsd", **k),
              ("float64", "float64", "int64", "float64"), 4),
}


def _outs(T, dts):
    return tuple(_e(T, getattr(T, d)) for d in dts)


@pytest.mark.parametrize("name", sorted(MULTI))
def test_tuple_out_is_written_and_returned_as_a_named_tuple(T, name):
    import tensorplay as tp
    call, dts, _ = MULTI[name]
    want = call(T)
    fields = call(tp)._fields
    for container in (tuple, list):
        outs = _outs(T, dts)
        r = call(T, out=container(outs))
        assert type(r).__name__ == f"linalg_{name}_out" and len(r) == len(dts)
        assert all(a is b is getattr(r, f) for a, b, f in zip(r, outs, fields))
        for o, w in zip(outs, want):
            assert o.dtype == w.dtype
            assert_close(lst(o), lst(w), atol=1e-12)


@pytest.mark.parametrize("name", sorted(MULTI))
def test_tuple_out_of_a_wrong_form_is_refused(T, name):
    call, dts, pos = MULTI[name]
    n = len(dts)
    with pytest.raises(TypeError, match=exact(f"linalg_{name}(): argument 'out' must be tuple of Tensors, "
                                              f"not Tensor")):
        call(T, out=_e(T))
    with pytest.raises(TypeError, match=exact(f"expected tuple of {n} elements but got {n - 1}")):
        call(T, out=_outs(T, dts)[:-1])
    with pytest.raises(TypeError, match=exact(f"expected tuple of {n} elements but got {n + 1}")):
        call(T, out=_outs(T, dts + ("float64",)))
    bad = list(_outs(T, dts))
    bad[1] = 1
    with pytest.raises(TypeError, match=exact(f"expected Tensor as element 1 in argument {pos}, but got int")):
        call(T, out=tuple(bad))


@pytest.mark.parametrize("name, i, dt, msg", [
    ("eigh", 0, "float32", "Expected out tensor to have dtype double, but got float instead"),
    ("svd", 2, "float32", "Expected out tensor to have dtype double, but got float instead"),
    ("cholesky_ex", 1, "int64", "Expected out tensor to have dtype int, but got long int instead"),
    ("lu_factor", 1, "int64", "Expected out tensor to have dtype int, but got long int instead"),
    ("solve_ex", 1, "float64", "Expected out tensor to have dtype int, but got double instead"),
    ("slogdet", 1, "complex128", "Expected out tensor to have dtype double, but got c10::complex<double> instead"),
    ("eig", 0, "float64", "torch.linalg.eig: Expected eigenvalues to be safely castable from ComplexDouble dtype, "
                          "but got eigenvalues with dtype Double"),
    ("eig", 1, "float64", "torch.linalg.eig: Expected eigenvectors to be safely castable from ComplexDouble dtype, "
                          "but got eigenvectors with dtype Double"),
], ids=lambda v: str(v)[:12])
def test_tuple_out_of_a_wrong_dtype_is_refused(T, name, i, dt, msg):
    call, dts, _ = MULTI[name]
    dts = list(dts)
    dts[i] = dt
    with pytest.raises(RuntimeError, match=exact(msg)):
        call(T, out=_outs(T, dts))


@pytest.mark.parametrize("name, by", [
    ("cholesky_ex", "linalg_cholesky_ex"), ("eigh", "_linalg_eigh"), ("svd", "_linalg_svd"), ("qr", "linalg_qr"),
    ("slogdet", "_linalg_slogdet"), ("lu_factor", "linalg_lu_factor_ex"), ("lu_factor_ex", "linalg_lu_factor_ex"),
    ("lu", "linalg_lu"), ("inv_ex", "linalg_inv_ex"), ("solve_ex", "_linalg_solve_ex"), ("eig", "linalg_eig"),
    ("lstsq", "linalg_lstsq")])
def test_tuple_out_with_an_input_that_requires_grad_is_refused(T, name, by):
    call, dts, _ = MULTI[name]
    outs = _outs(T, dts)
    with pytest.raises(RuntimeError, match=exact(RG.format(by))):
        call(_GradTensors(T), out=outs)
    assert all(o.numel() == 0 for o in outs)
    with T.no_grad():
        r = call(_GradTensors(T), out=outs)
    assert r[0] is outs[0] and outs[0].numel() > 0


# ------------------------------------------------------------------ keyword names
KW = [
    ("cholesky", lambda T: T.linalg.cholesky(input=_p(T))),
    ("cholesky_ex", lambda T: T.linalg.cholesky_ex(input=_p(T)).L),
    ("eigh", lambda T: T.linalg.eigh(input=_p(T), UPLO="U").eigenvalues),
    ("eigvalsh", lambda T: T.linalg.eigvalsh(input=_p(T))),
    ("eig", lambda T: T.linalg.eig(input=_a(T)).eigenvalues),
    ("eigvals", lambda T: T.linalg.eigvals(input=_a(T))),
    ("householder_product", lambda T: T.linalg.householder_product(input=_a(T), tau=_a(T)[0, :2])),
    ("solve_triangular", lambda T: T.linalg.solve_triangular(input=_a(T), B=_p(T), upper=True)),
    ("lstsq", lambda T: T.linalg.lstsq(input=_a(T), b=_p(T)).solution),
    ("pinv", lambda T: T.linalg.pinv(input=_a(T), hermitian=False)),
    ("cond", lambda T: T.linalg.cond(input=_a(T), p=1)),
    ("matrix_rank", lambda T: T.linalg.matrix_rank(input=_a(T), hermitian=False)),
    ("matrix_norm", lambda T: T.linalg.matrix_norm(input=_a(T), ord=1, dim=(0, 1), keepdim=True)),
    ("norm", lambda T: T.linalg.norm(input=_a(T), ord=2, dim=1)),
    ("vector_norm", lambda T: T.linalg.vector_norm(input=_a(T), ord=1, dim=0)),
    ("det", lambda T: T.linalg.det(A=_a(T))),
    ("matrix_power", lambda T: T.linalg.matrix_power(input=_a(T), n=2)),
    ("matrix_exp", lambda T: T.linalg.matrix_exp(input=_a(T) / 4)),
    ("vecdot", lambda T: T.linalg.vecdot(x=_a(T), y=_p(T), dim=0)),
    ("multi_dot", lambda T: T.linalg.multi_dot(tensors=[_a(T), _p(T)])),
]


@pytest.mark.parametrize("name, call", KW, ids=[k[0] for k in KW])
def test_pytorchs_keyword_names(name, call, torch_or_skip):
    import tensorplay as tp
    mine = call(tp)
    theirs = call(torch_or_skip)
    assert_close(mine.detach().numpy(), theirs.detach().numpy(), atol=1e-10)


@pytest.mark.parametrize("call", [
    lambda T: T.linalg.cholesky(A=_p(T)), lambda T: T.linalg.det(input=_a(T)),
    lambda T: T.linalg.lstsq(_a(T), B=_p(T)), lambda T: T.linalg.solve_triangular(A=_a(T), B=_a(T), upper=True),
    lambda T: T.linalg.eigh(A=_p(T)),
], ids=["cholesky-A", "det-input", "lstsq-B", "solve_triangular-A", "eigh-A"])
def test_other_keyword_names_are_refused(T, call):
    with pytest.raises(TypeError, match="argument"):
        call(T)


# ------------------------------------------------------------------ the norms' dtype
C = np.array([[3 + 4j, 1 - 2j], [0.5j, 2.0]])


@pytest.mark.parametrize("fn, fname", [("vector_norm", "linalg.vector_norm"), ("matrix_norm", "linalg.matrix_norm"),
                                       ("norm", "linalg.vector_norm")])
@pytest.mark.parametrize("x, dt, msg", [
    ("c", "float64", "dtype should be complex for complex inputs, but got Double"),
    ("c", "complex64", "the dtype of the input (ComplexDouble) should be convertible without narrowing to the "
                       "specified dtype (ComplexFloat)"),
    ("r", "int64", "dtype should be floating point or complex, but got Long"),
    ("r", "bool", "dtype should be floating point or complex, but got Bool"),
    ("r", "complex128", "dtype should be real for real inputs, but got ComplexDouble"),
    ("r", "float32", "the dtype of the input (Double) should be convertible without narrowing to the specified "
                     "dtype (Float)"),
    ("i", "float64", "Expected a floating point or complex tensor as input. Got Long"),
])
def test_norm_dtype_is_checked(T, fn, fname, x, dt, msg):
    a = {"c": T.tensor(C), "r": T.tensor(C.real), "i": T.tensor(C.real).long()}[x]
    with pytest.raises(RuntimeError, match=exact(f"{fname}: {msg}")):
        getattr(T.linalg, fn)(a, dtype=getattr(T, dt))


@pytest.mark.parametrize("fn", ["vector_norm", "matrix_norm", "norm"])
def test_norm_dtype_that_is_allowed(T, fn):
    f = getattr(T.linalg, fn)
    r = f(T.tensor(C).to(T.complex64), dtype=T.complex128)
    assert r.dtype == T.float64
    assert_close(r.item(), np.linalg.norm(C), atol=1e-6)
    r = f(T.tensor(C.real).float(), dtype=T.float64)
    assert r.dtype == T.float64
    assert_close(r.item(), np.linalg.norm(C.real.astype(np.float32)), atol=1e-6)


def test_norm_dtype_of_the_matrix_norm_path(T):
    with pytest.raises(RuntimeError, match=exact("linalg.matrix_norm: dtype should be floating point or complex, "
                                                 "but got Long")):
        T.linalg.norm(_a(T), 2, dtype=T.int64)
    with pytest.raises(RuntimeError, match=exact("linalg.matrix_norm: dtype should be complex for complex inputs, "
                                                 "but got Double")):
        T.linalg.matrix_norm(T.tensor(C), "nuc", dtype=T.float64)


# ------------------------------------------------------------------ PyTorch's words
B3 = np.arange(24.0).reshape(2, 3, 4)
ERRORS = [
    (lambda T: T.linalg.vector_norm(_a(T), ord="fro"), TypeError,
     "linalg_vector_norm(): argument 'ord' must be Number, not str"),
    (lambda T: T.linalg.vector_norm(_a(T), ord=None), TypeError,
     "linalg_vector_norm(): argument 'ord' must be Number, not NoneType"),
    (lambda T: T.linalg.vector_norm(_a(T), ord=1j), RuntimeError,
     "linalg.vector_norm: Expected a non-complex scalar as the order of norm."),
    (lambda T: T.linalg.norm(_a(T), "fro", dim=1), RuntimeError, "linalg.matrix_norm: dim must be a 2-tuple. Got 1"),
    (lambda T: T.linalg.norm(_a(T), "nuc", dim=(1,)), RuntimeError,
     "linalg.matrix_norm: dim must be a 2-tuple. Got 1"),
    (lambda T: T.linalg.matrix_norm(_a(T), dim=(1,)), RuntimeError,
     "linalg.matrix_norm: dim must be a 2-tuple. Got 1"),
    (lambda T: T.linalg.matrix_norm(T.tensor(B3), 1, dim=(0, 1, 2)), RuntimeError,
     "linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2"),
    (lambda T: T.linalg.matrix_norm(T.tensor(B3), dim=(0, -3)), RuntimeError,
     "linalg.matrix_norm: dims must be different. Got (0, 0)"),
    (lambda T: T.linalg.matrix_norm(T.tensor(B3), dim=(0, 5)), IndexError,
     "Dimension out of range (expected to be in range of [-3, 2], but got 5)"),
    (lambda T: T.linalg.norm(T.tensor(B3), dim=(0, 1, 2)), RuntimeError,
     "linalg.norm: If dim is specified, it must be of length 1 or 2. Got [0, 1, 2]"),
    (lambda T: T.linalg.norm(T.tensor(B3), 2, dim=()), RuntimeError,
     "linalg.norm: If dim is specified, it must be of length 1 or 2. Got []"),
    (lambda T: T.linalg.norm(T.tensor(B3), "fro"), RuntimeError,
     "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D."),
    (lambda T: T.linalg.matrix_norm(_a(T).long()), RuntimeError,
     "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got Long"),
    (lambda T: T.linalg.matrix_norm(_a(T).bool(), 1), RuntimeError,
     "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got Bool"),
    (lambda T: T.linalg.vecdot(_a(T).long(), _a(T)), RuntimeError,
     "linalg.vecdot: Expected a floating point or complex tensor as input. Got Long"),
    (lambda T: T.linalg.vecdot(_a(T), _a(T).float()), RuntimeError,
     "linalg.vecdot: Expected x and y to have the same dtype, but found x of type Double and y of type Float "
     "instead"),
    (lambda T: T.linalg.multi_dot([T.tensor(B3), _a(T)]), RuntimeError,
     "multi_dot(): the first tensor must be 1D or 2D but got 3D"),
    (lambda T: T.linalg.multi_dot([_a(T), T.tensor(B3), _a(T)]), RuntimeError,
     "multi_dot(): tensor 1 must be 2D but got 3D"),
    (lambda T: T.linalg.multi_dot([_a(T), T.tensor(1.0)]), RuntimeError,
     "multi_dot(): the last tensor must be 1D or 2D but got 0D"),
    (lambda T: T.linalg.multi_dot([_a(T), _a(T), _a(T)[:2]]), RuntimeError,
     "multi_dot(): tensors 1 and 2 with shapes [3, 3] and [2, 3] cannot be multiplied"),
    (lambda T: T.linalg.multi_dot([_a(T)[0, :2], _a(T)]), RuntimeError,
     "multi_dot(): tensors 0 and 1 with shapes [2] and [3, 3] cannot be multiplied"),
    (lambda T: T.linalg.multi_dot([_a(T), _a(T)[0, :2]]), RuntimeError,
     "multi_dot(): tensors 0 and 1 with shapes [3, 3] and [2] cannot be multiplied"),
    (lambda T: T.linalg.multi_dot([_a(T), _a(T).long()]), RuntimeError,
     "multi_dot(): all tensors must have be the same dtype but tensor 0 is double and tensor 1 long int"),
    (lambda T: T.linalg.multi_dot([_a(T)]), RuntimeError, "multi_dot(): expected at least 2 tensors but got 1"),
    (lambda T: T.logdet(_a(T)[:2]), RuntimeError,
     "logdet: A must be batches of square matrices, but they are 2 by 3 matrices"),
]


@pytest.mark.parametrize("call, err, msg", ERRORS, ids=[e[2][:40] for e in ERRORS])
def test_pytorchs_errors(T, call, err, msg):
    with pytest.raises(err, match=exact(msg)):
        call(T)


def test_multi_dot_values_and_gradients(T):
    """The checks leave the product (vectors at the ends included) and its gradients
    as they were: against NumPy, and against float64 finite differences."""
    rng = np.random.default_rng(3)
    v, m1, m2, w = rng.standard_normal(3), rng.standard_normal((3, 4)), rng.standard_normal((4, 2)), \
        rng.standard_normal(2)
    ts = [T.tensor(x, requires_grad=True) for x in (v, m1, m2, w)]
    r = T.linalg.multi_dot(ts)
    assert r.dim() == 0
    assert_close(r.item(), v @ m1 @ m2 @ w, atol=1e-12)
    r.backward()
    assert_close(lst(ts[1].grad), np.outer(v, m2 @ w), atol=1e-12)
    assert T.autograd.gradcheck(lambda a, b: T.linalg.multi_dot([a, b]),
                                (T.tensor(m1, requires_grad=True), T.tensor(m2, requires_grad=True)))


def test_vecdot_and_norms_keep_their_values_and_gradients(T):
    rng = np.random.default_rng(5)
    x = T.tensor(rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4)), requires_grad=True)
    y = T.tensor(rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4)), requires_grad=True)
    xn, yn = x.detach().numpy(), y.detach().numpy()
    assert_close(T.linalg.vecdot(x, y, dim=0).detach().numpy(), (xn.conj() * yn).sum(0), atol=1e-12)
    assert_close(T.linalg.norm(x, "fro", dim=(0, 1)).item(), np.linalg.norm(xn), atol=1e-12)
    assert_close(T.linalg.matrix_norm(x, -1, dim=(1, 0)).item(), np.linalg.norm(xn.T, -1), atol=1e-12)
    assert T.autograd.gradcheck(lambda a, b: T.linalg.vecdot(a, b, dim=0), (x, y))
    assert T.autograd.gradcheck(lambda a: T.linalg.matrix_norm(a, 1, dim=(1, 0)), (x,))
    assert T.autograd.gradcheck(lambda a: T.linalg.vector_norm(a, 3, dim=1, dtype=T.complex128), (x,))


def test_householder_product_with_no_reflectors_is_differentiable(T):
    A = T.ones(5, 3, dtype=T.float64, requires_grad=True)
    tau = T.zeros(0, dtype=T.float64, requires_grad=True)
    q = T.linalg.householder_product(A, tau)
    assert q.grad_fn is not None and q.tolist() == T.eye(5, 3, dtype=T.float64).tolist()
    q.sum().backward()
    assert A.grad is None or not A.grad.any()
