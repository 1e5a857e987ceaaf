"""Behaviour of the matrix-product and complex ops against PyTorch: result shapes
and dtypes, node names, views sharing memory.  Gradients and error inputs (type
and message) are checked by the op table (tests/opdb/linalg.py, complex_ops.py)."""
import numpy as np
import pytest

import tensorplay as tp

from conftest import assert_close, torch


def mk(T, *shape, dtype="float32", seed=0, rg=False):
    a = np.random.default_rng(seed).uniform(-2, 2, shape)
    if dtype.startswith("complex"):
        a = a + 1j * np.random.default_rng(seed + 1).uniform(-2, 2, shape)
    t = T.tensor(a.astype("float32" if dtype in ("float16", "bfloat16") else dtype))
    if dtype in ("float16", "bfloat16"):
        t = t.to(getattr(T, dtype))
    return t.requires_grad_(rg)


def _outcome(f, T):
    try:
        r = f(T)
    except Exception as e:              # noqa: BLE001  (the type is what is compared)
        return "error", type(e).__name__, str(e)
    return "ok", r


def both(f):
    if torch is None:
        pytest.skip("torch not installed")
    return _outcome(f, tp), _outcome(f, torch)


def test_half_complex_is_refused():
    """No complex32 here: the half spellings that would make one raise."""
    with pytest.raises(RuntimeError, match="ComplexHalf"):
        tp.complex(mk(tp, 2, dtype="float16"), mk(tp, 2, dtype="float16"))
    with pytest.raises(RuntimeError, match="ComplexHalf"):
        tp.view_as_complex(mk(tp, 2, dtype="float16"))


# ----------------------------------------------------------------- results: shape, dtype, node
RESULTS = {
    "mm": lambda T: T.mm(mk(T, 2, 3, rg=True), mk(T, 3, 4)),
    "mm_empty": lambda T: T.mm(mk(T, 2, 0, rg=True), mk(T, 0, 3)),
    "mm_long": lambda T: T.mm(T.ones(2, 3, dtype=T.int64), T.ones(3, 2, dtype=T.int64)),
    "mm_half": lambda T: T.mm(mk(T, 2, 3, dtype="float16", rg=True), mk(T, 3, 3, dtype="float16")),
    "mm_bfloat16": lambda T: T.mm(mk(T, 2, 3, dtype="bfloat16", rg=True), mk(T, 3, 3, dtype="bfloat16")),
    "mm_complex": lambda T: T.mm(mk(T, 2, 3, dtype="complex64", rg=True), mk(T, 3, 3, dtype="complex64")),
    "mm_method": lambda T: mk(T, 2, 3, rg=True).mm(mk(T, 3, 4)),
    "bmm": lambda T: T.bmm(mk(T, 2, 3, 4, rg=True), mk(T, 2, 4, 5)),
    "bmm_method": lambda T: mk(T, 2, 3, 4).bmm(mk(T, 2, 4, 5, rg=True)),
    "mv": lambda T: T.mv(mk(T, 3, 4, rg=True), mk(T, 4)),
    "mv_method": lambda T: mk(T, 3, 4).mv(mk(T, 4, rg=True)),
    "dot": lambda T: T.dot(mk(T, 3, rg=True), mk(T, 3)),
    "dot_long": lambda T: T.dot(T.ones(3, dtype=T.int64), T.ones(3, dtype=T.int64)),
    "dot_method": lambda T: mk(T, 3, rg=True).dot(mk(T, 3)),
    "vdot": lambda T: T.vdot(mk(T, 3, dtype="complex128", rg=True), mk(T, 3, dtype="complex128", seed=5)),
    "outer": lambda T: T.outer(mk(T, 3, rg=True), mk(T, 4)),
    "outer_promotes": lambda T: T.outer(mk(T, 3), mk(T, 4, dtype="float64")),
    "ger": lambda T: T.ger(mk(T, 3, rg=True), mk(T, 4)),
    "inner": lambda T: T.inner(mk(T, 2, 3, rg=True), mk(T, 4, 3)),
    "inner_0d": lambda T: T.inner(T.tensor(2.0), mk(T, 3, 4)),
    "tensordot": lambda T: T.tensordot(mk(T, 2, 3, 4, rg=True), mk(T, 3, 4, 5), dims=2),
    "tensordot_0": lambda T: T.tensordot(mk(T, 2, 3, rg=True), mk(T, 3), dims=0),
    "tensordot_tensor_dims": lambda T: T.tensordot(mk(T, 2, 3), mk(T, 3, 5), dims=T.tensor([[1], [0]])),
    "tensordot_list_dims": lambda T: T.tensordot(mk(T, 2, 3), mk(T, 3, 5), dims=[[1], [0]]),
    "tensordot_neg_dims": lambda T: T.tensordot(mk(T, 2, 3), mk(T, 3, 5), dims=([1], [-2])),
    "einsum_mm": lambda T: T.einsum("ij,jk->ik", mk(T, 2, 3, rg=True), mk(T, 3, 4)),
    "einsum_list": lambda T: T.einsum("ij,jk->ik", [mk(T, 2, 3), mk(T, 3, 4)]),
    "einsum_sublist": lambda T: T.einsum(mk(T, 2, 3), [0, 1], mk(T, 3, 4), [1, 2]),
    "einsum_sublist_ellipsis": lambda T: T.einsum(mk(T, 2, 3), [Ellipsis, 1], mk(T, 3, 4), [1, 2]),
    "einsum_trace": lambda T: T.einsum("ii", mk(T, 3, 3, rg=True)),
    "einsum_diag": lambda T: T.einsum("ii->i", mk(T, 3, 3, rg=True)),
    "einsum_permute": lambda T: T.einsum("ij->ji", mk(T, 3, 2, rg=True)),
    "einsum_identity": lambda T: T.einsum("i->i", mk(T, 3, rg=True)),
    "einsum_sum": lambda T: T.einsum("ij->j", mk(T, 3, 3, rg=True)),
    "einsum_outer": lambda T: T.einsum("i,j->ij", mk(T, 3, rg=True), mk(T, 2)),
    "einsum_hadamard": lambda T: T.einsum("ij,ij->ij", mk(T, 3, 2, rg=True), mk(T, 3, 2)),
    "einsum_chain": lambda T: T.einsum("ij,jk,kl->il", mk(T, 2, 3, rg=True), mk(T, 3, 4), mk(T, 4, 5)),
    "einsum_broadcast": lambda T: T.einsum("...ij,...jk->...ik", mk(T, 1, 2, 3), mk(T, 5, 3, 4)),
    "einsum_ellipsis_summed": lambda T: T.einsum("...ij->ij", mk(T, 4, 2, 3)),
    "einsum_ellipsis_first": lambda T: T.einsum("i...->...", mk(T, 4, 2, 3)),
    "einsum_long_sum": lambda T: T.einsum("ij->i", T.ones(2, 3, dtype=T.int32)),
    "einsum_long_mm": lambda T: T.einsum("ij,jk->ik", T.ones(2, 3, dtype=T.int64), T.ones(3, 4, dtype=T.int64)),
    "einsum_half": lambda T: T.einsum("ij,jk->ik", mk(T, 2, 3, dtype="float16"), mk(T, 3, 4, dtype="float16")),
    "einsum_0d": lambda T: T.einsum("->", T.tensor(2.0)),
    "einsum_empty_eq": lambda T: T.einsum("", T.tensor(2.0)),
    "einsum_implicit_order": lambda T: T.einsum("ba", mk(T, 2, 3)),
    "einsum_implicit_upper": lambda T: T.einsum("bA", mk(T, 2, 3)),
    "einsum_ellipsis_only": lambda T: T.einsum("...", mk(T, 2, 3)),
    "einsum_no_out": lambda T: T.einsum("i,j->", mk(T, 2), mk(T, 3)),
    "einsum_spaces": lambda T: T.einsum("i j , j k -> i k", mk(T, 2, 3), mk(T, 3, 4)),
    "einsum_upper": lambda T: T.einsum("Ab,bc->Ac", mk(T, 2, 3), mk(T, 3, 4)),
    "kron": lambda T: T.kron(mk(T, 2, 3, rg=True), mk(T, 4, 5)),
    "kron_1d": lambda T: T.kron(mk(T, 2, 3), mk(T, 4)),
    "kron_0d": lambda T: T.kron(mk(T, 2, 2), T.tensor(2.0)),
    "kron_promotes": lambda T: T.kron(mk(T, 2, 2), T.ones(2, dtype=T.int64)),
    "trace": lambda T: T.trace(mk(T, 2, 3, rg=True)),
    "trace_int32": lambda T: T.trace(T.ones(3, 3, dtype=T.int32)),
    "trace_half": lambda T: T.trace(mk(T, 2, 2, dtype="float16")),
    "addmm": lambda T: T.addmm(mk(T, 3), mk(T, 2, 3), mk(T, 3, 3, rg=True), beta=0.5, alpha=2),
    "addmm_beta0_nan": lambda T: T.addmm(T.tensor(float("nan")), mk(T, 2, 3), mk(T, 3, 3), beta=0),
    "addmm_method": lambda T: mk(T, 2, 3, rg=True).addmm(mk(T, 2, 4), mk(T, 4, 3)),
    "baddbmm": lambda T: T.baddbmm(mk(T, 3), mk(T, 2, 2, 3), mk(T, 2, 3, 3, rg=True), beta=0.5, alpha=2),
    # an integer result truncates beta and alpha (0.5 -> 0, 2.5 -> 2), as PyTorch converts them
    "addmm_long_float_scalars": lambda T: T.addmm(T.ones(2, 2, dtype=T.int64), T.ones(2, 3, dtype=T.int64),
                                                  T.ones(3, 2, dtype=T.int64), beta=0.5, alpha=2.5),
    "addmv": lambda T: T.addmv(mk(T, 2), mk(T, 2, 3, rg=True), mk(T, 3), beta=0.5, alpha=2),
    "addmv_long_float_scalars": lambda T: T.addmv(T.ones(2, dtype=T.int64), T.ones(2, 3, dtype=T.int64),
                                                  T.ones(3, dtype=T.int64), beta=0.5, alpha=2.5),
    "addmv_beta0_nan": lambda T: T.addmv(T.tensor(float("nan")), mk(T, 2, 3), mk(T, 3), beta=0),
    "addmv_half": lambda T: T.addmv(mk(T, 2, dtype="float16"), mk(T, 2, 3, dtype="float16"), mk(T, 3, dtype="float16")),
    "addmv_method_inplace": lambda T: mk(T, 2).addmv_(mk(T, 2, 3), mk(T, 3), alpha=3),
    "addr": lambda T: T.addr(mk(T, 3), mk(T, 2, rg=True), mk(T, 3), beta=2, alpha=0.5),
    "addr_promotes": lambda T: T.addr(mk(T, 2, 3), mk(T, 2, dtype="float64"), mk(T, 3, dtype="complex64")),
    "addr_bool": lambda T: T.addr(T.tensor([[True, False, False]]), T.tensor([True, False]),
                                  T.tensor([False, True, False])),
    "addr_bool_beta_false": lambda T: T.addr(T.ones(2, 3, dtype=T.bool), T.tensor([True, False]),
                                             T.tensor([False, True, False]), beta=False),
    "addr_long": lambda T: T.addr(T.ones(2, 3, dtype=T.int64), T.ones(2, dtype=T.int64),
                                  T.ones(3, dtype=T.int64), beta=2, alpha=3),
    "addr_beta0_nan": lambda T: T.addr(T.tensor(float("nan")), mk(T, 2), mk(T, 3), beta=0),
    "addr_method_inplace": lambda T: mk(T, 2, 3).addr_(mk(T, 2), mk(T, 3), beta=-1),
    "angle_real": lambda T: T.angle(T.tensor([-1.0, 0.0, 2.0, float("nan"), -0.0, float("-inf")])),
    "angle_long": lambda T: T.angle(T.tensor([-1, 0, 2])),
    "angle_complex": lambda T: T.angle(mk(T, 3, dtype="complex64", rg=True)),
    "angle_half": lambda T: T.angle(mk(T, 3, dtype="float16")),
    "angle_method": lambda T: mk(T, 3, rg=True).angle(),
    "complex": lambda T: T.complex(mk(T, 2, 2, rg=True), mk(T, 2)),
    "complex_double": lambda T: T.complex(mk(T, 2, dtype="float64"), mk(T, 2, dtype="float64")),
    "complex_specials": lambda T: T.complex(T.tensor([float("inf"), -0.0]), T.tensor([0.0, float("nan")])),
    "polar": lambda T: T.polar(mk(T, 2, 2, rg=True).abs(), mk(T, 2)),
    "view_as_real": lambda T: T.view_as_real(mk(T, 2, 3, dtype="complex64", rg=True)),
    "view_as_real_0d": lambda T: T.view_as_real(T.tensor(1 + 2j)),
    "view_as_real_transposed": lambda T: T.view_as_real(mk(T, 2, 3, dtype="complex128").t()),
    "view_as_complex": lambda T: T.view_as_complex(mk(T, 3, 2, rg=True)),
    "view_as_complex_1d": lambda T: T.view_as_complex(mk(T, 2, dtype="float64")),
    "view_as_complex_strided": lambda T: T.view_as_complex(mk(T, 3, 3, 2)[:, 1:]),
    "view_as_complex_step": lambda T: T.view_as_complex(mk(T, 4, 2)[::2]),
}


def _dtype_name(t):
    return str(t.dtype).split(".")[-1]


@pytest.mark.parametrize("name", list(RESULTS))
def test_results_match_torch(name):
    a, b = both(RESULTS[name])
    assert b[0] == "ok", f"torch raised for {name}: {b}"
    assert a[0] == "ok", f"tensorplay raised for {name}: {a}"
    x, y = a[1], b[1]
    assert tuple(x.shape) == tuple(y.shape), name
    assert _dtype_name(x) == _dtype_name(y), name
    assert x.requires_grad == y.requires_grad, name
    if y.grad_fn is not None:
        assert x.grad_fn.name() == y.grad_fn.name(), name
    tol = 2e-2 if _dtype_name(y) in ("float16", "bfloat16") else 1e-5
    xa = x.detach().to(tp.float64 if not x.is_complex() else tp.complex128).numpy()
    ya = y.detach().to(torch.float64 if not y.is_complex() else torch.complex128).numpy()
    assert_close(xa, ya, atol=tol, rtol=tol, msg=name)


# ----------------------------------------------------------------- views share memory
def test_view_as_real_shares_memory():
    z = tp.tensor([1 + 2j, 3 - 4j])
    r = tp.view_as_real(z)
    assert r.shape == (2, 2) and r.dtype == tp.float32 and z.dtype == tp.complex64
    assert np.shares_memory(r.numpy(), z.numpy())
    r.mul_(2)
    assert z.numpy().tolist() == [2 + 4j, 6 - 8j]


def test_view_as_complex_shares_memory():
    x = tp.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=tp.float64)
    z = tp.view_as_complex(x)
    assert z.shape == (2,) and z.dtype == tp.complex128
    assert np.shares_memory(z.numpy(), x.numpy())
    x.add_(1)
    assert z.numpy().tolist() == [2 + 3j, 4 + 5j]
    back = tp.view_as_real(z)
    assert np.shares_memory(back.numpy(), x.numpy())


def test_view_backward_and_version_check():
    x = tp.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    z = tp.view_as_complex(x)
    assert z.grad_fn.name() == "ViewAsComplexBackward0"
    (z * (2 - 1j)).abs().sum().backward()
    assert x.grad.shape == (2, 2)


def test_einsum_result_is_not_an_alias():
    """A single-operand einsum that NumPy would return as a view is copied."""
    x = tp.tensor([[1.0, 2.0], [3.0, 4.0]])
    y = tp.einsum("ij->ji", x)
    y.add_(1)
    assert x.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]


# ----------------------------------------------------------------- gradients in a few odd corners
def _grads(T, f, *xs):
    ts = [T.tensor(x, requires_grad=True) for x in xs]
    out = f(T, *ts)
    w = np.random.default_rng(3).standard_normal(tuple(out.shape))
    if out.is_complex():
        w = w + 1j * np.random.default_rng(4).standard_normal(tuple(out.shape))
    gs = T.autograd.grad(out, ts, T.tensor(w.astype(out.detach().numpy().dtype)))
    return [g.numpy() for g in gs]


GRADS = {
    "mm_empty": (lambda T, a, b: T.mm(a, b), (np.ones((2, 0)), np.ones((0, 3)))),
    "einsum_broadcast_size1": (lambda T, a, b: T.einsum("...ij,...jk->...ik", a, b),
                               (np.arange(6.0).reshape(1, 2, 3), np.arange(24.0).reshape(4, 3, 2))),
    "einsum_repeated_broadcast": (lambda T, a, b: T.einsum("ii,i->i", a, b),
                                  (np.array([[2.0]]), np.arange(3.0))),
    "einsum_diag_3": (lambda T, a: T.einsum("iii->i", a), (np.arange(8.0).reshape(2, 2, 2),)),
    "einsum_complex_trace": (lambda T, a, b: T.einsum("ij,ji->", a, b),
                             (np.arange(4.0).reshape(2, 2) * (1 + 2j), np.arange(4.0).reshape(2, 2) - 1j)),
    "addmm_complex_scalars": (lambda T, i, a, b: T.addmm(i, a, b, beta=1 - 1j, alpha=0.5 + 2j),
                              (np.ones(3) * 1j, np.arange(6.0).reshape(2, 3) + 1j, np.arange(9.0).reshape(3, 3) - 2j)),
    "angle_at_zero": (lambda T, z: T.angle(z), (np.array([0j, 1 + 1j]),)),
    "polar_negative_abs": (lambda T, a, t: T.polar(a, t), (np.array([-1.5, 2.0]), np.array([0.3, -0.7]))),
}


@pytest.mark.parametrize("name", list(GRADS))
def test_grads_match_torch(name):
    if torch is None:
        pytest.skip("torch not installed")
    f, xs = GRADS[name]
    for ga, gb in zip(_grads(tp, f, *xs), _grads(torch, f, *xs)):
        assert_close(ga, gb, atol=1e-10, rtol=1e-10, msg=name)


@pytest.mark.parametrize("which", ["nh", "hn"])
def test_mm_conjugate_transposed_products_batch_like_a_loop(which):
    """mm's derivatives are one op each (``x @ y^H``, ``x^H @ y``); under vmap their
    batching rule must agree with a loop, for every placement of the batch dims."""
    from tensorplay.ops.linalg import _mm_nh, _mm_hn
    f, ref = (_mm_nh, lambda x, y: x @ y.mH) if which == "nh" else (_mm_hn, lambda x, y: x.mH @ y)
    x = mk(tp, 2, 3, 4, dtype="complex128", seed=1)
    y = mk(tp, 2, 5, 4, dtype="complex128", seed=3) if which == "nh" else \
        mk(tp, 2, 3, 5, dtype="complex128", seed=3)
    for dx, dy in ((0, 0), (0, None), (None, 0), (2, 1)):
        a = x.movedim(0, dx) if dx is not None else x[0]
        b = y.movedim(0, dy) if dy is not None else y[1]
        got = tp.func.vmap(f, in_dims=(dx, dy))(a, b)
        want = tp.stack([ref(x[i] if dx is not None else a, y[i] if dy is not None else b)
                         for i in range(2)])
        assert_close(got, want, atol=1e-12)


def test_mm_double_backward_records_mm_nodes_only():
    """The gradient of mm made under create_graph is an mm of the other factor, with
    no transpose recorded (PyTorch records MmBackward0 there too)."""
    x = mk(tp, 3, 4, dtype="float64", seed=1, rg=True)
    w = mk(tp, 4, 2, dtype="float64", seed=2, rg=True)
    gx, gw = tp.autograd.grad((x @ w).tanh().sum(), (x, w), create_graph=True)
    assert gx.grad_fn.name() == "MmBackward0" and gw.grad_fn.name() == "MmBackward0"
    assert all(f is None or f.name() != "TransposeBackward0"
               for f, _ in gx.grad_fn.next_functions + gw.grad_fn.next_functions)
    tp.autograd.gradcheck(lambda x, w: tp.autograd.grad((x @ w).tanh().sum(), (x, w), create_graph=True),
                          (x, w))


BOOL_PRODUCTS = {
    "mm": lambda T, B: B(2, 2).mm(B(2, 2)), "mv": lambda T, B: B(2, 2).mv(B(2)),
    "dot": lambda T, B: B(2).dot(B(2)), "vdot": lambda T, B: B(2).vdot(B(2)),
    "bmm": lambda T, B: B(2, 2, 2).bmm(B(2, 2, 2)),
    "addmm": lambda T, B: T.addmm(B(2, 2), B(2, 2), B(2, 2)),
    "baddbmm": lambda T, B: T.baddbmm(B(2, 2, 2), B(2, 2, 2), B(2, 2, 2)),
    "matmul-1-1": lambda T, B: B(2) @ B(2), "matmul-2-1": lambda T, B: B(2, 2) @ B(2),
    "matmul-1-2": lambda T, B: B(2) @ B(2, 3), "matmul-3-2": lambda T, B: B(2, 2, 2) @ B(2, 2),
    "matmul-2-3": lambda T, B: B(2, 2) @ B(2, 2, 2), "matmul-3-1": lambda T, B: B(2, 2, 2) @ B(2),
    "tensordot": lambda T, B: T.tensordot(B(2, 2), B(2, 2), 1),
    "tensordot-outer": lambda T, B: T.tensordot(B(2, 2), B(2, 2), 0),
    "inner": lambda T, B: T.inner(B(2), B(2)), "inner-2": lambda T, B: T.inner(B(2), B(3, 2)),
}
BOOL_KERNELS = {"mm": "addmm_impl_cpu_", "mv": "addmv_impl_cpu", "dot": "dot", "vdot": "dot",
                "bmm": "bmm", "addmm": "addmm_impl_cpu_", "baddbmm": "baddbmm",
                "matmul-1-1": "dot", "matmul-2-1": "addmv_impl_cpu", "matmul-1-2": "addmm_impl_cpu_",
                "matmul-3-2": "addmm_impl_cpu_", "matmul-2-3": "bmm", "matmul-3-1": "addmv_impl_cpu",
                "tensordot": "addmm_impl_cpu_", "tensordot-outer": "addmm_impl_cpu_",
                "inner": "dot", "inner-2": "addmm_impl_cpu_"}


@pytest.mark.parametrize("name", list(BOOL_PRODUCTS))
def test_bool_matrix_products_are_refused(T, name):
    """PyTorch's CPU kernels have no bool matrix product: each spelling names
    the kernel it reaches.  An empty operand multiplies nothing and passes."""
    def B(*shape):
        return T.ones(*shape, dtype=T.bool)
    with pytest.raises(NotImplementedError) as e:
        BOOL_PRODUCTS[name](T, B)
    assert str(e.value) == f"\"{BOOL_KERNELS[name]}\" not implemented for 'Bool'"
    assert B(0, 2).mm(B(2, 0)).shape == (0, 0) and B(2, 0).mm(B(0, 2)).dtype == T.bool
    assert (B(2) * B(2)).dtype == T.bool and T.outer(B(2), B(2)).dtype == T.bool


def _cofactors(m):
    n = m.shape[-1]
    return np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(m, i, 0), j, 1))
                      for j in range(n)] for i in range(n)])


@pytest.mark.parametrize("rows", [[[1., 2, 3], [2, 4, 6], [1, 0, 1]],      # rank 2: cofactors not all 0
                                  [[1., 2, 3], [2, 4, 6], [3, 6, 9]],      # rank 1: all 0
                                  [[0., 0], [0, 0]]])
def test_det_gradient_at_a_singular_matrix_is_the_cofactor_matrix(rows):
    # det is a polynomial: its gradient exists everywhere (it was the inverse's
    # "singular" error).  PyTorch's create_graph path gives the same values; its
    # plain path gives zeros for the rank-2 matrix, which is not the derivative.
    m = np.array(rows)
    A = tp.tensor(m, requires_grad=True)
    (g,) = tp.autograd.grad(tp.linalg.det(A) * 3, A)
    assert_close(g, 3 * _cofactors(m), atol=1e-12)
    if torch is not None:
        B = torch.tensor(m, requires_grad=True)
        (h,) = torch.autograd.grad(torch.linalg.det(B) * 3, B, create_graph=True)
        assert_close(g, h.detach().numpy(), atol=1e-12)


def test_det_gradient_at_singular_matrices_in_a_batch_and_complex():
    a = np.random.default_rng(1).standard_normal((2, 3, 3))
    a[0, 2] = a[0, 1]                    # the first is singular, the second is not
    A = tp.tensor(a.astype("float32"), requires_grad=True)
    (g,) = tp.autograd.grad(tp.linalg.det(A).sum(), A)
    assert g.dtype == tp.float32
    assert_close(g, np.stack([_cofactors(m) for m in a]), atol=1e-5, rtol=1e-5)
    c = np.array([[1, 2j], [2, 4j]])     # complex: g times the conjugate cofactors
    C = tp.tensor(c, requires_grad=True)
    (g,) = tp.autograd.grad((tp.linalg.det(C) * (1 + 2j)).real, C)
    assert_close(g, np.conj((1 + 2j) * _cofactors(c)), atol=1e-12)


def test_det_higher_orders_at_a_singular_matrix():
    """The cofactors there come from an SVD written in ops: double backward and the
    forward rule exist (PyTorch's forward rule gives 0 there, not the derivative)."""
    m = np.array([[1., 2, 3], [2, 4, 6], [0, 1, 1]])
    A = tp.tensor(m, requires_grad=True)
    (g,) = tp.autograd.grad(tp.linalg.det(A), A, create_graph=True)
    assert_close(g.detach(), _cofactors(m), atol=1e-12)
    (h,) = tp.autograd.grad((g * g).sum(), A)
    eps, num = 1e-6, np.zeros_like(m)       # d/dA of sum(cof(A)^2), by central differences
    for i in range(3):
        for j in range(3):
            d = np.zeros_like(m)
            d[i, j] = eps
            num[i, j] = ((_cofactors(m + d) ** 2).sum() - (_cofactors(m - d) ** 2).sum()) / (2 * eps)
    assert_close(h, num, atol=1e-6)
    assert_close(tp.func.jacfwd(tp.linalg.det)(tp.tensor(m)), _cofactors(m), atol=1e-12)
    c, d = np.array([[1, 2j], [2, 4j]]), np.array([[0.5 - 1j, 2], [1j, -1]])
    _, t = tp.func.jvp(tp.linalg.det, (tp.tensor(c),), (tp.tensor(d),))
    assert_close(t, (_cofactors(c) * d).sum(), atol=1e-12)
    if torch is not None:
        B = torch.tensor(m, requires_grad=True)
        (gt,) = torch.autograd.grad(torch.linalg.det(B), B, create_graph=True)
        (ht,) = torch.autograd.grad((gt * gt).sum(), B)
        assert_close(h, ht.numpy(), atol=1e-9)


