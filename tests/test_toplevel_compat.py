"""Deprecated top-level LU functions, and arguments PyTorch refuses (an int as
layer_norm's shape, a 1-d tensor as hsplit's sections, a 0-d tensor in
gradient's spacing list)."""
import warnings

import numpy as np
import pytest

import tensorplay as tp
from tensorplay.autograd import gradcheck

RNG = np.random.default_rng(12)
A = RNG.standard_normal((2, 4, 4))
B = RNG.standard_normal((2, 4, 3))


def test_lu_and_lu_solve_solve_and_differentiate():
    a = tp.tensor(A, requires_grad=True)
    b = tp.tensor(B, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        LU, piv = tp.lu(a)
        x = tp.lu_solve(b, LU, piv)
        np.testing.assert_allclose((a @ x).detach().numpy(), B, atol=1e-12)
        assert piv.dtype == tp.int32
        r = a.lu(get_infos=True)
        assert type(r).__name__ == "_lu_with_info" and r.info.tolist() == [0, 0]
        np.testing.assert_allclose(b.lu_solve(r.LU, r.pivots).detach().numpy(), x.detach().numpy())
        assert gradcheck(lambda a, b: tp.lu_solve(b, *tp.lu(a)), (a, b))


def test_lu_of_a_singular_matrix_is_no_error_and_says_so_in_info():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        LU, piv, info = tp.lu(tp.zeros(3, 3), get_infos=True)
    assert int(info) > 0


def test_lu_warns_once_in_pytorchs_words():
    import tensorplay._warn as W
    W._WARNED.discard(tp._toplevel._LU_DEPRECATED)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tp.lu(tp.eye(2))
        tp.lu(tp.eye(2))
    msgs = [str(x.message) for x in w]
    assert msgs.count(tp._toplevel._LU_DEPRECATED) == 1
    assert msgs[0].startswith("torch.lu is deprecated in favor of torch.linalg.lu_factor")
    assert w[0].filename == __file__


def test_lu_out():
    LU, piv = tp.empty(0, dtype=tp.float64), tp.empty(0, dtype=tp.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = tp.lu(tp.tensor(A), out=(LU, piv))
        want = tp.lu(tp.tensor(A))
    assert r[0] is LU and r[1] is piv
    np.testing.assert_array_equal(LU.numpy(), want[0].numpy())
    np.testing.assert_array_equal(piv.numpy(), want[1].numpy())


def test_against_torch():
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = tp.lu(tp.tensor(A))
        theirs = torch.lu(torch.tensor(A))
        for o, t in zip(ours, theirs):
            np.testing.assert_allclose(o.numpy(), t.numpy(), atol=1e-12)
        np.testing.assert_allclose(tp.lu_solve(tp.tensor(B), *ours).numpy(),
                                   torch.lu_solve(torch.tensor(B), *theirs).numpy(), atol=1e-12)
    assert tp._toplevel._LU_SOLVE_DEPRECATED in _torch_warning(lambda: torch.lu_solve(torch.tensor(B), *theirs))


def _torch_warning(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f()
    return " ".join(str(x.message) for x in w) or _torch_first_warning()


def _torch_first_warning():
    # PyTorch warns once a process: in a fresh one
    import subprocess
    import sys
    code = ("import torch, warnings\nwarnings.simplefilter('always')\nA = torch.eye(2)\n"
            "torch.lu_solve(torch.ones(2, 1), *torch.lu(A))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stderr


@pytest.mark.parametrize("f", ["layer_norm", "rms_norm"])
def test_an_int_is_no_normalized_shape(f):
    x = tp.ones(3, 5)
    with pytest.raises(TypeError, match=fr"{f}\(\): argument 'normalized_shape' \(position 2\) must be "
                                        r"tuple of ints, not int"):
        getattr(tp.nn.functional, f)(x, 5)
    getattr(tp.nn.functional, f)(x, tp.Size([5]))       # a Size is a tuple of ints
    tp.nn.LayerNorm(5)(x)                                # (the module takes an int)


def test_hsplit_takes_a_0d_tensor_not_a_1d_one():
    x = tp.arange(12.0).reshape(3, 4)
    assert [t.shape for t in tp.hsplit(x, tp.tensor(2))] == [(3, 2), (3, 2)]
    with pytest.raises(TypeError, match=r"hsplit\(\) received an invalid combination of arguments"):
        tp.hsplit(x, tp.tensor([1, 2]))


def test_gradient_spacing_list_of_0d_tensors_is_refused():
    x = tp.arange(5.0) ** 2
    with pytest.raises(RuntimeError, match="expected each element of spacing to have one dimension, but got "
                                           "an element with 0 dimensions!"):
        tp.gradient(x, spacing=[tp.tensor(2.0)])
    np.testing.assert_allclose(tp.gradient(x, spacing=tp.tensor(2.0))[0].numpy(),
                               tp.gradient(x, spacing=2.0)[0].numpy())
