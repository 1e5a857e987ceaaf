"""Behaviour of the reductions beyond the op table: the namedtuple results,
keepdim shapes, result dtypes, ties, zeros and infinities.  Their error inputs
(type and wording against PyTorch) are rows' ``errors`` in tests/opdb."""
import pathlib
import warnings

import numpy as np
import pytest

import tensorplay as tp

from conftest import assert_close, torch

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def _name(dt):
    return str(dt).split(".")[-1]


def _both(f, *arrays, rg=False):
    """f(T, *tensors) for tensorplay and torch (same float64/int arrays)."""
    tps = [tp.tensor(a, requires_grad=rg and a.dtype.kind == "f") for a in arrays]
    ts = [torch.tensor(a, requires_grad=rg and a.dtype.kind == "f") for a in arrays]
    return (f(tp, *tps), tps), (f(torch, *ts), ts)


X = np.random.default_rng(0).uniform(-2, 2, (2, 3, 4))


# ------------------------------------------------------------------ namedtuple results
def test_max_min_namedtuple_api():
    x = tp.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 7.0]])
    r = x.max(1)
    assert isinstance(r, tuple) and len(r) == 2
    v, i = r
    assert v is r.values and i is r.indices and r[0] is r.values and r[1] is r.indices
    assert v.tolist() == [5.0, 7.0] and i.tolist() == [1, 0] and i.dtype == tp.int64
    assert repr(r).startswith("tensorplay.return_types.max(\nvalues=tensor(")
    assert type(r).__name__ == "max"
    m = tp.min(x, dim=0, keepdim=True)
    assert m.values.shape == (1, 3) and m.indices.tolist() == [[0, 1, 0]]
    assert type(m).__name__ == "min"
    mm = x.aminmax()
    assert mm.min.item() == 0.0 and mm.max.item() == 7.0
    lo, hi = tp.aminmax(x, dim=1, keepdim=True)
    assert lo.shape == hi.shape == (2, 1)


def test_binary_max_min_is_maximum_minimum():
    a = tp.tensor([1.0, 4.0, 2.0])
    b = tp.tensor([3.0, 0.0, 2.0])
    assert tp.max(a, b).tolist() == [3.0, 4.0, 2.0]
    assert a.min(b).tolist() == [1.0, 0.0, 2.0]
    assert tp.max(a, other=b).tolist() == [3.0, 4.0, 2.0]


# ------------------------------------------------------------------ shapes and dtypes vs torch
SHAPE_CASES = {
    "sum_keepdim": lambda T, x: x.sum((0, 2), keepdim=True),
    "prod_keepdim": lambda T, x: x.prod(1, keepdim=True),
    "max_keepdim": lambda T, x: x.max(-1, keepdim=True),
    "amax_keepdim": lambda T, x: x.amax((0, -1), keepdim=True),
    "amax_nokeep": lambda T, x: x.amax((0, -1)),
    "argmax_keepdim_all": lambda T, x: x.argmax(keepdim=True),
    "argmin_keepdim": lambda T, x: x.argmin(1, keepdim=True),
    "var_keepdim": lambda T, x: x.var((1, 2), keepdim=True),
    "std_keepdim": lambda T, x: x.std(0, keepdim=True),
    "norm_keepdim": lambda T, x: x.norm(dim=(0, 1), keepdim=True),
    "norm_keepdim_all": lambda T, x: x.norm(p=1, keepdim=True),
    "logsumexp_keepdim": lambda T, x: x.logsumexp((0, 1), keepdim=True),
    "all_keepdim": lambda T, x: x.all(1, keepdim=True),
    "any_keepdim_all": lambda T, x: (x > 1).any(),
    "aminmax_keepdim": lambda T, x: T.aminmax(x, dim=2, keepdim=True),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(SHAPE_CASES))
def test_keepdim_shapes(name):
    (r, _), (rt, _) = _both(SHAPE_CASES[name], X)
    r = r if isinstance(r, tuple) else (r,)
    rt = rt if isinstance(rt, tuple) else (rt,)
    for a, b in zip(r, rt):
        assert tuple(a.shape) == tuple(b.shape)
        assert _name(a.dtype) == _name(b.dtype)
        assert_close(a.numpy(), b.numpy(), atol=1e-10, rtol=1e-10)


I = np.array([[3, -1, 4], [1, -5, 9]], dtype=np.int64)
DTYPE_CASES = {
    "sum_bool": (lambda T, x: (x > 0).sum(), I),
    "sum_int32": (lambda T, x: x.int().sum(), I),
    "sum_uint8": (lambda T, x: x.abs().to(T.uint8).sum(1), I),
    "prod_int": (lambda T, x: x.prod(), I),
    "prod_int32_dim": (lambda T, x: x.int().prod(1), I),
    "prod_bool": (lambda T, x: (x > 0).prod(), I),
    "prod_int_dtype": (lambda T, x: x.prod(dtype=T.float64), I),
    "cumsum_bool": (lambda T, x: (x > 0).cumsum(1), I),
    "cumsum_int32": (lambda T, x: x.int().cumsum(0), I),
    "cumprod_int": (lambda T, x: x.cumprod(1), I),
    "cumsum_int_dtype": (lambda T, x: x.cumsum(1, dtype=T.float32), I),
    "max_int": (lambda T, x: x.max(), I),
    "max_dim_int": (lambda T, x: x.max(1), I),
    "max_bool": (lambda T, x: (x > 0).max(), I),
    "amin_bool": (lambda T, x: (x > 0).amin(0), I),
    "aminmax_int": (lambda T, x: x.aminmax(), I),
    "argmax_int": (lambda T, x: x.argmax(), I),
    "argmax_uint8": (lambda T, x: x.abs().to(T.uint8).argmax(1), I),
    "all_int": (lambda T, x: x.all(), I),
    "any_uint8": (lambda T, x: x.abs().to(T.uint8).any(1), I),
    "all_uint8": (lambda T, x: (x > 0).to(T.uint8).all(), I),
    "all_float": (lambda T, x: x.double().all(0), I),
    "logsumexp_int": (lambda T, x: x.logsumexp(1), I),
    "logsumexp_bool": (lambda T, x: (x > 0).logsumexp(0), I),
    "softmax_int_dtype": (lambda T, x: x.softmax(1, dtype=T.float64), I),
    "log_softmax_int_dtype": (lambda T, x: T.log_softmax(x, 0, dtype=T.float32), I),
    "var_complex": (lambda T, x: (x.double() * (1 + 2j)).var(1), I),
    "std_complex64": (lambda T, x: (x.float() * 1j).std(), I),
    "norm_complex": (lambda T, x: (x.double() * (1 - 1j)).norm(), I),
    "norm_float32_to_64": (lambda T, x: x.float().norm(dtype=T.float64), I),
    "logsumexp_complex": (lambda T, x: (x.double() + 0.5j).logsumexp(1), I),
    "prod_complex": (lambda T, x: (x.double() + 1j).prod(1), I),
    "mean_float32": (lambda T, x: x.float().mean(), I),
    "norm_p0": (lambda T, x: x.double().norm(0), I),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(DTYPE_CASES))
def test_result_dtypes(name):
    f, a = DTYPE_CASES[name]
    (r, _), (rt, _) = _both(f, a)
    r = r if isinstance(r, tuple) else (r,)
    rt = rt if isinstance(rt, tuple) else (rt,)
    for x, y in zip(r, rt):
        assert _name(x.dtype) == _name(y.dtype)
        assert tuple(x.shape) == tuple(y.shape)
        assert_close(x.numpy(), y.numpy(), atol=1e-6, rtol=1e-6)


# ------------------------------------------------------------------ gradients: ties, zeros, infinities
GRAD_CASES = {
    "max_3way_tie": (lambda T, x: x.max(), np.array([[1.0, 3.0, 3.0], [3.0, 0.0, 2.0]])),
    "min_4way_tie": (lambda T, x: T.min(x), np.array([[1.0, 1.0], [1.0, 1.0]])),
    "amax_3way_tie_dim": (lambda T, x: x.amax(1), np.array([[2.0, 2.0, 2.0], [0.0, 5.0, 5.0]])),
    "amin_tie_dims": (lambda T, x: x.amin((0, 1)), np.array([[2.0, -1.0, -1.0], [-1.0, 5.0, 5.0]])),
    "aminmax_ties": (lambda T, x: sum(T.aminmax(x, dim=0)), np.array([[2.0, 2.0], [2.0, 1.0], [0.0, 1.0]])),
    "max_dim_tie_picks_index": (lambda T, x: x.max(1).values,
                                np.array([[1.0, 3.0, 3.0], [4.0, 4.0, 4.0]])),
    "min_dim_tie_keepdim": (lambda T, x: x.min(0, keepdim=True)[0],
                            np.array([[1.0, 3.0, 3.0], [1.0, 3.0, 2.0]])),
    "max_nan": (lambda T, x: x.max(), np.array([1.0, np.nan, 3.0, np.nan])),
    "max_dim_nan": (lambda T, x: x.max(0).values, np.array([[1.0, 2.0], [np.nan, 0.0], [5.0, np.nan]])),
    "norm_inf_tie": (lambda T, x: x.norm(float("inf")), np.array([[-3.0, 1.0], [3.0, 2.0]])),
    "prod_one_zero": (lambda T, x: x.prod(), np.array([[2.0, 0.0, 3.0], [1.5, -1.0, 0.5]])),
    "prod_two_zeros": (lambda T, x: x.prod(), np.array([[2.0, 0.0, 3.0], [1.5, 0.0, 0.5]])),
    "prod_dim_zeros": (lambda T, x: x.prod(1), np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 0.5], [1.0, 2.0, 3.0]])),
    "prod_all_zero": (lambda T, x: x.prod(0), np.zeros((3, 2))),
    "cumprod_zeros": (lambda T, x: x.cumprod(1),
                      np.array([[2.0, 0.0, 3.0, 4.0], [0.0, 0.0, 0.5, 2.0], [1.0, 2.0, 3.0, 0.0]])),
    "norm2_at_zero": (lambda T, x: x.norm(), np.zeros((2, 3))),
    "norm2_dim_at_zero": (lambda T, x: x.norm(dim=1), np.array([[0.0, 0.0], [3.0, 4.0]])),
    "norm_p3_at_zero": (lambda T, x: x.norm(3, dim=0), np.array([[0.0, 1.0], [0.0, -2.0]])),
    "norm_p05_zeros": (lambda T, x: x.norm(0.5, dim=1), np.array([[0.0, 1.0], [0.0, 0.0]])),
    "std_zero": (lambda T, x: x.std(1), np.array([[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]])),
    "logsumexp_neginf": (lambda T, x: x.logsumexp(1), np.array([[-np.inf, 0.0, 1.0], [-np.inf, -np.inf, 2.0]])),
    "logsumexp_large": (lambda T, x: x.logsumexp(0), np.array([[1000.0, -1000.0], [999.0, -1001.0]])),
    "softmax_large": (lambda T, x: x.softmax(1), np.array([[1000.0, 0.0, -1000.0], [5.0, 5.0, 5.0]])),
    "log_softmax_large": (lambda T, x: x.log_softmax(0), np.array([[1000.0, 0.0], [-1000.0, 3.0]])),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_match_torch(name):
    f, a = GRAD_CASES[name]
    (r, (x,)), (rt, (xt,)) = _both(f, a, rg=True)
    assert_close(r.detach().numpy(), rt.detach().numpy(), atol=1e-10, rtol=1e-10)
    w = np.random.default_rng(1).standard_normal(tuple(rt.shape))
    (g,) = tp.autograd.grad(r, x, tp.tensor(w))
    (gt,) = torch.autograd.grad(rt, xt, torch.tensor(w))
    assert not np.any(np.isnan(g.numpy())) or np.any(np.isnan(gt.numpy()))
    assert_close(g.numpy(), gt.numpy(), atol=1e-10, rtol=1e-10, msg=name)


DOUBLE_GRAD_CASES = {
    "prod_one_zero": (lambda T, x: x.prod(), np.array([[2.0, 0.0, 3.0], [1.5, -1.0, 0.5]])),
    "prod_two_zeros": (lambda T, x: x.prod(), np.array([[2.0, 0.0, 3.0], [1.5, 0.0, 0.5]])),
    "prod_dim_zeros": (lambda T, x: x.prod(1), np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 0.5], [1.0, 2.0, 3.0]])),
    "cumprod_zeros": (lambda T, x: x.cumprod(1),
                      np.array([[2.0, 0.0, 3.0, 4.0], [0.0, 0.0, 0.5, 2.0], [1.0, 2.0, 3.0, 0.0]])),
    "cumprod_complex_zero": (lambda T, x: (x * (1 + 0.5j)).cumprod(0), np.array([1.5, 0.0, -2.0, 0.5])),
    "logsumexp": (lambda T, x: x.logsumexp(1), np.array([[0.5, 0.0, 1.0], [-1.0, 2.0, 2.0]])),
    "softmax": (lambda T, x: x.softmax(0), np.array([[0.5, 0.0, 1.0], [-1.0, 2.0, 2.0]])),
    "std": (lambda T, x: x.std(0), np.array([[0.5, 0.0, 1.0], [-1.0, 2.0, 2.0]])),
    "norm3": (lambda T, x: x.norm(3), np.array([[0.5, 0.0, 1.0], [-1.0, 2.0, 2.0]])),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(DOUBLE_GRAD_CASES))
def test_double_backward_matches_torch(name):
    f, a = DOUBLE_GRAD_CASES[name]
    (r, (x,)), (rt, (xt,)) = _both(f, a, rg=True)
    gen = np.random.default_rng(2)
    w = gen.standard_normal(tuple(rt.shape))
    if np.iscomplexobj(rt.detach().numpy()):
        w = w + 1j * gen.standard_normal(w.shape)
    v = gen.standard_normal(a.shape)
    (g,) = tp.autograd.grad(r, x, tp.tensor(w), create_graph=True)
    (gt,) = torch.autograd.grad(rt, xt, torch.tensor(w), create_graph=True)
    assert_close(g.detach().numpy(), gt.detach().numpy(), atol=1e-10, rtol=1e-10)
    (gg,) = tp.autograd.grad(g, x, tp.tensor(v))
    (ggt,) = torch.autograd.grad(gt, xt, torch.tensor(v))
    assert_close(gg.numpy(), ggt.numpy(), atol=1e-10, rtol=1e-10, msg=name)


def test_prod_gradients_with_zeros_by_hand():
    x = tp.tensor([2.0, 0.0, 3.0, 4.0], requires_grad=True)
    x.prod().backward()
    assert x.grad.tolist() == [0.0, 24.0, 0.0, 0.0]
    y = tp.tensor([2.0, 0.0, 3.0, 0.0], requires_grad=True)
    y.prod().backward()
    assert y.grad.tolist() == [0.0, 0.0, 0.0, 0.0]


def test_max_full_ties_split_evenly():
    x = tp.tensor([1.0, 3.0, 3.0, 3.0], requires_grad=True)
    x.max().backward()
    assert_close(x.grad.numpy(), [0.0, 1 / 3, 1 / 3, 1 / 3])
    y = tp.tensor([[1.0, 3.0, 3.0]], requires_grad=True)
    y.max(1).values.sum().backward()
    assert y.grad.tolist() == [[0.0, 1.0, 0.0]]


# ------------------------------------------------------------------ values at the edges
@needs_torch
@pytest.mark.parametrize("name,f", [
    ("logsumexp_inf", lambda T, x: x.logsumexp(1)),
    ("logsumexp_inf_d0", lambda T, x: x.logsumexp(0)),
    ("softmax_inf", lambda T, x: x.softmax(1)),
    ("log_softmax_inf", lambda T, x: x.log_softmax(1)),
    ("max_inf", lambda T, x: x.max(1).values),
    ("amin_inf", lambda T, x: x.amin(1)),
    ("norm_inf", lambda T, x: x.norm(dim=1)),
    ("cumsum_inf", lambda T, x: x.cumsum(1)),
])
def test_infinities_match_torch(name, f):
    a = np.array([[np.inf, 1.0, 2.0], [-np.inf, -np.inf, -np.inf], [-np.inf, 0.5, np.inf],
                  [np.inf, np.inf, 1.0], [1.0, -np.inf, 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (r, _), (rt, _) = _both(f, a)
    assert_close(r.numpy(), rt.numpy(), atol=0, rtol=1e-12, msg=name)


@needs_torch
@pytest.mark.parametrize("name,f", [
    ("prod", lambda T, x: x.prod()),
    ("prod_dim", lambda T, x: x.prod(0)),
    ("logsumexp", lambda T, x: x.logsumexp(0)),
    ("norm", lambda T, x: x.norm()),
    ("norm1_dim", lambda T, x: x.norm(1, dim=0)),
    ("all", lambda T, x: x.all()),
    ("any", lambda T, x: x.any()),
    ("any_dim", lambda T, x: x.any(0)),
    ("cumsum", lambda T, x: x.cumsum(0)),
    ("cumprod", lambda T, x: x.cumprod(1)),
    ("softmax", lambda T, x: x.softmax(0)),
    ("max_nonempty_dim", lambda T, x: x.max(1).values),
    ("amax_nonempty_dim", lambda T, x: x.amax(1)),
    ("argmax_nonempty_dim", lambda T, x: x.argmax(1)),
])
def test_empty_inputs_match_torch(name, f):
    (r, _), (rt, _) = _both(f, np.zeros((0, 3)))
    assert tuple(r.shape) == tuple(rt.shape) and _name(r.dtype) == _name(rt.dtype)
    assert_close(r.numpy(), rt.numpy())


def test_var_with_no_degrees_of_freedom_warns():
    x = tp.tensor([1.5])
    with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0"):
        v = x.var()
    assert np.isnan(v.item())
    with pytest.warns(UserWarning, match=r"std\(\): degrees of freedom is <= 0"):
        tp.tensor([[1.0, 2.0]]).std(0)
    assert tp.tensor([1.0, 3.0]).var(correction=0).item() == 1.0


def test_var_std_signatures():
    x = tp.tensor([[1.0, 2.0, 4.0], [0.0, 3.0, 9.0]])
    assert_close(x.var(True).numpy(), x.var().numpy())
    assert_close(x.var(False).numpy(), x.var(correction=0).numpy())
    assert_close(x.std(1, False, True).numpy(), x.std(dim=1, correction=0, keepdim=True).numpy())
    assert x.var(1, keepdim=True).shape == (2, 1)
    v, m = tp.var_mean(x, 1)
    assert_close(m.numpy(), [7 / 3, 4.0])
    s, m = tp.std_mean(x)
    assert_close(s.numpy(), x.std().numpy())


@needs_torch
def test_functional_softmax_implicit_dim():
    import tensorplay.nn.functional as F
    for f in (tp.softmax, tp.log_softmax, torch.softmax, torch.log_softmax):
        with pytest.raises(TypeError, match='missing 1 required positional arguments: "dim"'):
            f(tp.ones(3) if f.__module__.startswith("tensorplay") else torch.ones(3))
    a = np.random.default_rng(3).standard_normal((2, 3, 4))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        r = F.softmax(tp.tensor(a))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rt = torch.nn.functional.softmax(torch.tensor(a))
    assert_close(r.numpy(), rt.numpy(), atol=1e-12)
    with pytest.warns(UserWarning, match="Implicit dimension choice for log_softmax"):
        F.log_softmax(tp.tensor(a[0]))


def test_grad_fn_names():
    x = tp.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    names = {
        "MaxBackward1": x.max(), "MaxBackward0": x.max(1).values, "MinBackward1": x.min(),
        "MinBackward0": x.min(0)[0], "AmaxBackward0": x.amax(), "AminBackward0": x.amin(1),
        "AminmaxBackward0": x.aminmax()[0], "ProdBackward0": x.prod(), "ProdBackward1": x.prod(1),
        "VarBackward0": x.var(), "StdBackward0": x.std(1), "LinalgVectorNormBackward0": x.norm(),
        "LogsumexpBackward0": x.logsumexp(1), "CumsumBackward0": x.cumsum(0),
        "CumprodBackward0": x.cumprod(1), "SoftmaxBackward0": x.softmax(1),
        "LogSoftmaxBackward0": x.log_softmax(0), "MaximumBackward0": tp.max(x, x * 2),
    }
    for n, t in names.items():
        assert t.grad_fn.name() == n
    for t in (x.argmax(), x.argmin(0), x.all(), x.any(1), x.max(1).indices):
        assert not t.requires_grad and t.grad_fn is None and t.dtype in (tp.int64, tp.bool)


def test_inplace_scans():
    x = tp.tensor([1.0, 2.0, 3.0])
    assert x.cumsum_(0) is x and x.tolist() == [1.0, 3.0, 6.0]
    x.cumprod_(0)
    assert x.tolist() == [1.0, 3.0, 18.0]


def test_method_and_function_spellings_exist():
    for n in ("prod", "max", "min", "amax", "amin", "aminmax", "argmax", "argmin", "var", "std",
              "norm", "logsumexp", "cumsum", "cumprod", "all", "any", "softmax", "log_softmax",
              "var_mean", "std_mean"):
        assert callable(getattr(tp, n)), n
        if n not in ("var_mean", "std_mean"):
            assert callable(getattr(tp.Tensor, n)), n


def test_low_precision_reductions_accumulate_in_float32():
    x = tp.ones(4096, dtype=tp.float16)
    # a float16 accumulator would stop at 2048
    assert x.cumsum(0)[-1].item() == 4096.0
    assert tp.logsumexp(tp.zeros(4096, dtype=tp.float16), 0).dtype == tp.float16
    assert tp.tensor([1000.0, 1000.0], dtype=tp.float16).norm().item() == pytest.approx(1414.0, rel=1e-3)
    s = tp.tensor([[100.0, 0.0]], dtype=tp.bfloat16).softmax(1)
    assert s.dtype == tp.bfloat16 and s[0, 0].item() == 1.0


def test_source_does_not_import_torch():
    src = pathlib.Path(tp.__file__).parent / "ops" / "reduction.py"
    text = src.read_text()
    assert "import torch" not in text and "from torch" not in text


# softmax/log_softmax along the last dimension take a path without the maximum's
# shift when every row's sum of exp is finite and at least 1; every other row
# pattern must fall back and give the shifted result (checked in float64
# against a float64 reference computed with the shift, at float32 inputs)
_SOFTMAX_ROWS = {
    "ordinary": [[0.3, -1.2, 2.0, 0.5], [1.0, 1.0, 1.0, 1.0]],
    "overflows unshifted": [[100.0, 99.0, -3.0, 0.0], [0.1, 0.2, 0.3, 0.4]],
    "sum below one": [[-5.0, -6.0, -7.0, -8.0], [0.0, 0.0, 0.0, 0.0]],
    "underflows unshifted": [[-40.0, -100.0, -95.0, -41.0], [2.0, 1.0, 0.0, -1.0]],
    "masked": [[-np.inf, 0.5, -np.inf, 1.5], [0.0, -np.inf, -np.inf, -np.inf]],
    "all masked": [[-np.inf] * 4, [0.0, 1.0, 2.0, 3.0]],
    "nan": [[np.nan, 0.0, 1.0, 2.0], [0.0, 1.0, 2.0, 3.0]],
    "inf": [[np.inf, 0.0, 1.0, 2.0], [0.0, 1.0, 2.0, 3.0]],
}


def _softmax_reference(x):
    with np.errstate(invalid="ignore"):
        m = x.max(-1, keepdims=True)
        s = x - m
        e = np.exp(s)
        sm = e / e.sum(-1, keepdims=True)
        lsm = s - np.log(e.sum(-1, keepdims=True))
    return sm, lsm


@pytest.mark.parametrize("width", [4, 300])   # short rows (sums by a square of ones) and long
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(_SOFTMAX_ROWS))
def test_softmax_last_dim_every_row_pattern(case, dtype, width):
    x = np.array(_SOFTMAX_ROWS[case], dtype=dtype)
    # wider rows padded with -inf (exp 0) keep each pattern's sums
    x = np.concatenate([x, np.full((x.shape[0], width - x.shape[1]), -np.inf, dtype)], 1)
    want_sm, want_lsm = _softmax_reference(x.astype(np.float64))
    got_sm = tp.softmax(tp.tensor(x), -1).numpy().astype(np.float64)
    got_lsm = tp.log_softmax(tp.tensor(x), -1).numpy().astype(np.float64)
    tol = dict(rtol=1e-6 if dtype == "float32" else 1e-13, atol=1e-30, equal_nan=True)
    np.testing.assert_allclose(got_sm, want_sm, **tol)
    np.testing.assert_allclose(got_lsm, want_lsm, **tol)
    # a tiny share keeps its relative precision (the path without the shift must
    # not compute it from a subnormal exp)
    if case == "underflows unshifted":
        assert got_sm[0, 1] / want_sm[0, 1] == pytest.approx(1.0, rel=1e-5)


@pytest.mark.parametrize("shape", [(5,), (100,), (1, 1), (3, 100), (2, 3, 4), (2, 3, 100), (0, 4),
                                   (4, 0), "transposed"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_last_dim_shapes(shape, dtype):
    # both ways of summing rows (a square of ones for short rows, a column for long),
    # vectors included, and a non-contiguous input
    rng = np.random.default_rng(5)
    x = rng.standard_normal((6, 4) if shape == "transposed" else shape).astype(dtype)
    if shape == "transposed":
        x = x.T
    e = np.exp(x.astype(np.float64) - (x.max(-1, keepdims=True) if x.size else 0))
    want = e / e.sum(-1, keepdims=True)
    for dim in (-1, x.ndim - 1):
        got = tp.softmax(tp.tensor(x) if shape != "transposed" else tp.tensor(x.T).t(), dim)
        assert got.shape == x.shape and got.dtype == getattr(tp, dtype)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6 if dtype == "float32" else 1e-13,
                                   atol=1e-30)


@pytest.mark.parametrize("f", ["softmax", "log_softmax"])
def test_softmax_last_dim_gradcheck_both_paths(f):
    rng = np.random.default_rng(3)
    for scale in (1.0, 300.0):                  # the unshifted path, then the fallback
        x = tp.tensor(rng.standard_normal((3, 5)) * scale, requires_grad=True)
        assert tp.autograd.gradcheck(lambda t: getattr(tp, f)(t, -1), (x,))
        assert tp.autograd.gradgradcheck(lambda t: getattr(tp, f)(t, -1), (x,))


@pytest.mark.parametrize("row,want", [([20.0, 5.0], -3.0590232e-07), ([30.0, 30.0], -0.6931472)])
def test_log_softmax_keeps_the_precision_of_log_probabilities_near_zero(row, want):
    # a confident row's largest log-probability is tiny: computed without the
    # maximum's shift it would carry an ulp of the logit itself (about 2e-6 at 20)
    got = tp.log_softmax(tp.tensor([row], dtype=tp.float32), -1)[0, 0].item()
    assert got == pytest.approx(want, rel=2e-7 if abs(want) > 1e-3 else 0.2, abs=0)
