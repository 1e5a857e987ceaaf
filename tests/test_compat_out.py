"""``out=`` as PyTorch has it: refused when ``out`` requires grad, written into
``out``'s memory (a view writes its base), resized as PyTorch resizes, PyTorch's
dtype and overlap rules with its messages, and on every function PyTorch gives it.
Each test runs on tensorplay and, when installed, on torch (the ``T`` fixture)."""
import warnings

import numpy as np
import pytest

from conftest import exact, lst

RG = "{}(): functions with out=... arguments don't support automatic differentiation, but one " \
     "of the arguments requires grad."
OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor "
           "refer to a single memory location. Please clone() the tensor before performing the "
           "operation.")
A = [[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]


def _a(T):
    return T.tensor(A)


# ------------------------------------------------------------------ autograd
@pytest.mark.parametrize("name, call", [
    ("add", lambda T, o: T.add(T.ones(3), 1, out=o)),
    ("exp", lambda T, o: T.exp(T.ones(3), out=o)),
    ("cat", lambda T, o: T.cat([T.ones(1), T.ones(2)], out=o)),
    ("aten::zeros", lambda T, o: T.zeros(3, out=o)),
    ("aten::rand", lambda T, o: T.rand(3, out=o)),
    ("aten::full", lambda T, o: T.full((3,), 2.0, out=o)),
], ids=["add", "exp", "cat", "zeros", "rand", "full"])
def test_out_that_requires_grad_is_refused(T, name, call):
    with pytest.raises(RuntimeError, match=exact(RG.format(name))):
        call(T, T.zeros(3, requires_grad=True))
    if not name.startswith("aten::"):      # (PyTorch's factories check only a leaf out)
        base = T.zeros(4, requires_grad=True) * 1      # a view of a tensor that requires grad
        with pytest.raises(RuntimeError, match=exact(RG.format(name))):
            call(T, base[1:])
    with T.no_grad():
        o = T.zeros(3, requires_grad=True)
        assert call(T, o) is o


def test_input_that_requires_grad_is_refused(T):
    x = T.ones(3, requires_grad=True)
    for name, call in [("mul", lambda o: T.mul(x, 2, out=o)),
                       ("normal", lambda o: T.normal(x, 1.0, out=o)),
                       ("bernoulli", lambda o: T.bernoulli(x * 0.5, out=o))]:
        with pytest.raises(RuntimeError, match=exact(RG.format(name))):
            call(T.empty(3))


# ------------------------------------------------------------------ memory and shape
@pytest.mark.parametrize("call, want", [
    (lambda T, o: T.mul(T.arange(3.0), 2, out=o), [0.0, 2.0, 4.0]),
    (lambda T, o: T.sum(_a(T), 0, out=o), [3.0, 6.0, 6.0]),
    (lambda T, o: T.cat([T.ones(1), T.zeros(2)], out=o), [1.0, 0.0, 0.0]),
    (lambda T, o: T.stack([T.ones(1), T.zeros(1), T.ones(1)], dim=1, out=o.view(1, 3)),
     [1.0, 0.0, 1.0]),
    (lambda T, o: T.tensordot(T.ones(2, 3), T.ones(2), ([0], [0]), out=o), [2.0, 2.0, 2.0]),
    (lambda T, o: T.full((3,), 7.0, out=o), [7.0, 7.0, 7.0]),
    (lambda T, o: T.bernoulli(T.ones(3), out=o), [1.0, 1.0, 1.0]),
    (lambda T, o: T.normal(T.ones(3), 0.0, out=o), [1.0, 1.0, 1.0]),
], ids=["mul", "sum", "cat", "stack", "tensordot", "full", "bernoulli", "normal"])
def test_a_view_given_as_out_writes_its_base(T, call, want):
    base = T.zeros(2, 3)
    r = call(T, base[1])
    assert lst(base) == [[0.0] * 3, want]
    assert lst(r).__len__() in (1, 3)


def test_multinomial_writes_into_a_view(T):
    base = T.full((2, 2), -1, dtype=T.long)
    T.multinomial(T.tensor([0.0, 1.0]), 2, out=base[1])
    assert lst(base[0]) == [-1, -1] and sorted(lst(base[1])) == [0, 1]


@pytest.mark.parametrize("call, shape", [
    (lambda T, o: T.cat([T.ones(2), T.zeros(1)], out=o), [3]),
    (lambda T, o: T.stack([T.ones(2), T.zeros(2)], out=o), [2, 2]),
    (lambda T, o: T.tensordot(T.ones(2, 3), T.ones(3, 2), 1, out=o), [2, 2]),
    (lambda T, o: T.add(T.ones(2), 1, out=o), [2]),
], ids=["cat", "stack", "tensordot", "add"])
def test_wrong_shape_is_resized_with_pytorchs_warning(T, call, shape):
    o = T.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call(T, o)                          # an empty out: no warning
    assert list(o.shape) == shape
    o = T.empty(7)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized since "
                                         r"it had shape \[7\]"):
        call(T, o)
    assert list(o.shape) == shape


@pytest.mark.parametrize("call", [
    lambda T, o: T.zeros(2, 2, out=o), lambda T, o: T.rand(2, 2, out=o),
    lambda T, o: T.normal(0.0, 1.0, (2, 2), out=o),
    lambda T, o: T.bernoulli(T.ones(2, 2) / 2, out=o),
], ids=["zeros", "rand", "normal", "bernoulli"])
def test_factories_and_samplers_resize_silently(T, call):
    o = T.empty(7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = call(T, o)
    assert r is o and list(o.shape) == [2, 2]


# ------------------------------------------------------------------ overlap
@pytest.mark.parametrize("call", [
    lambda T, a: T.add(a[:2], 1, out=a[1:]),
    lambda T, a: T.exp(a.view(2, 2).t(), out=a.view(2, 2)),
    lambda T, a: T.add(a.view(2, 2), a.view(2, 2)[0], out=a.view(2, 2)),
    lambda T, a: T.cat([a[:2], a[2:]], out=a),
    lambda T, a: T.index_select(a, 0, T.tensor([1, 0, 3, 2]), out=a),
    lambda T, a: T.gather(a, 0, T.tensor([1, 0, 3, 2]), out=a),
], ids=["partial", "transposed", "broadcast", "cat", "index_select", "gather"])
def test_overlapping_out_is_refused(T, call):
    with pytest.raises(RuntimeError, match=exact(OVERLAP)):
        call(T, T.arange(4.0))


def test_out_that_is_its_input_or_expanded(T):
    a = T.arange(4.0)
    assert lst(T.add(a, 1, out=a)) == [1.0, 2.0, 3.0, 4.0]
    assert lst(T.cumsum(a, 0, out=a)) == [1.0, 3.0, 6.0, 10.0]
    with pytest.raises(RuntimeError, match=exact(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.")):
        T.add(T.ones(3), 1, out=T.zeros(1).expand(3))


def test_matmul_into_its_own_input_is_computed_before_writing(T):
    # PyTorch computes through the aliased memory and writes zeros here; tensorplay
    # computes first, so the product is right
    a = T.eye(2) * 2
    r = T.mm(a, T.ones(2, 2), out=a)
    if T.__name__ == "tensorplay":
        assert lst(r) == [[2.0, 2.0], [2.0, 2.0]]


# ------------------------------------------------------------------ dtypes
def _f64(T):
    return T.empty(0, dtype=T.float64)


@pytest.mark.parametrize("call, msg", [
    (lambda T: T.abs(_a(T), out=_f64(T)), "Found dtype Double but expected Float"),
    (lambda T: T.floor(_a(T), out=_f64(T)), "Found dtype Double but expected Float"),
    (lambda T: T.clamp(_a(T), 0, 1, out=_f64(T)), "Found dtype Double but expected Float"),
    (lambda T: T.lerp(_a(T), _a(T), _a(T), out=_f64(T)), "Found dtype Double but expected Float"),
    (lambda T: T.mm(_a(T), _a(T).t(), out=_f64(T)),
     "Expected out tensor to have dtype float, but got double instead"),
    (lambda T: T.sort(_a(T), out=(_f64(T), T.empty(0, dtype=T.long))),
     "Expected out tensor to have dtype float, but got double instead"),
    (lambda T: T.sort(_a(T), out=(T.empty(0), T.empty(0))),
     "Expected out tensor to have dtype long int, but got float instead"),
    (lambda T: T.max(_a(T), 1, out=(_f64(T), T.empty(0, dtype=T.long))),
     "Expected out tensor to have dtype float, but got double instead"),
    (lambda T: T.argmax(_a(T), out=T.empty(0, dtype=T.int32)),
     "Expected out tensor to have dtype long int, but got int instead"),
    (lambda T: T.amax(_a(T), 1, out=_f64(T)),
     "Expected the dtype for input and out to match, but got Float for input's dtype and Double "
     "for out's dtype."),
    (lambda T: T.dot(_a(T)[0], _a(T)[1], out=_f64(T)),
     "result dtype Double does not match input dtype Float"),
    (lambda T: T.cummax(_a(T), 1, out=(_f64(T), T.empty(0, dtype=T.long))),
     "expected scalar_type Float but found Double"),
    (lambda T: T.index_select(_a(T), 0, T.tensor([0]), out=_f64(T)),
     "index_select(): self and result must have the same scalar type"),
    (lambda T: T.tensordot(_a(T), _a(T), ([1], [1]), out=_f64(T)),
     "tensordot: Expected the output tensor to have dtype Float, but got an output tensor with "
     "dtype Double"),
    (lambda T: T.kthvalue(_a(T), 1, out=(T.empty(0), T.empty(0))),
     "output indices must be of scalar type Long"),
    (lambda T: T.where(_a(T) > 1, _a(T), _a(T), out=_f64(T)),
     "Expected out type to be Float but got Double"),
    (lambda T: T.nonzero(_a(T), out=T.empty(0)),
     "nonzero: Expected out tensor to have scalar type Long but got scalar typeFloat"),
    (lambda T: T.multinomial(T.ones(3), 1, out=_f64(T)),
     "multinomial expects Long tensor out, got: Double"),
    (lambda T: T.float_power(_a(T), 2, out=T.empty(0)),
     "the output given to float_power has dtype Float but the operation's result requires dtype "
     "Double"),
    (lambda T: T.add(_a(T), 1, out=T.empty(0, dtype=T.long)),
     "result type Float can't be cast to the desired output type Long"),
], ids=["abs", "floor", "clamp", "lerp", "mm", "sort values", "sort indices", "max", "argmax",
        "amax", "dot", "cummax", "index_select", "tensordot", "kthvalue", "where", "nonzero",
        "multinomial", "float_power", "cast"])
def test_dtype_rules(T, call, msg):
    with pytest.raises(RuntimeError, match=exact(msg)):
        call(T)


@pytest.mark.parametrize("call", [
    lambda T: T.exp(_a(T), out=_f64(T)), lambda T: T.add(_a(T), _a(T), out=_f64(T)),
    lambda T: T.sum(_a(T), 1, out=_f64(T)), lambda T: T.clamp(_a(T), _a(T), _a(T), out=_f64(T)),
    lambda T: T.lerp(_a(T), _a(T), 0.5, out=_f64(T)), lambda T: T.cat([_a(T)], out=_f64(T)),
    lambda T: T.max(_a(T), out=_f64(T)), lambda T: T.mul(_a(T), 2, out=T.empty(0, dtype=T.complex64)),
], ids=["exp", "add", "sum", "clamp tensors", "lerp number", "cat", "max", "complex"])
def test_a_wider_out_dtype_takes_the_result(T, call):
    r = call(T)
    assert r.dtype in (T.float64, T.complex64)


def test_cat_into_an_integer_out(T):
    for f in (T.cat, T.stack, T.hstack):
        with pytest.raises(TypeError, match=exact("torch.cat(): input types can't be cast to the "
                                                  "desired output type Long")):
            f([_a(T), _a(T)], out=T.empty(0, dtype=T.long))


def test_cumsum_computes_in_outs_dtype(T):
    x = T.tensor([[3.5, 1.2, 2.0]])
    assert lst(T.cumsum(x, 1, out=T.empty(0, dtype=T.long))) == [[3, 4, 6]]
    assert lst(T.cumprod(x, 1, out=T.empty(0, dtype=T.long))) == [[3, 3, 6]]
    r = T.cumsum(x, 1, out=T.empty(0, dtype=T.float64))
    assert r.dtype == T.float64 and lst(r[0]) == pytest.approx([3.5, 4.7, 6.7])


# ------------------------------------------------------------------ coverage
@pytest.mark.parametrize("call, want", [
    (lambda T, o: T.aminmax(_a(T), dim=1, out=o), ([1.0, 0.0], [3.0, 5.0])),
    (lambda T, o: T.median(_a(T), 1, out=o), ([2.0, 4.0], [2, 2])),
    (lambda T, o: T.max(_a(T), 1, out=o), ([3.0, 5.0], [0, 1])),
    (lambda T, o: T.sort(_a(T)[0], out=o), ([1.0, 2.0, 3.0], [1, 2, 0])),
], ids=["aminmax", "median", "max", "sort"])
def test_two_outputs(T, call, want):
    o = (T.empty(0), T.empty(0, dtype=T.long if isinstance(want[1][0], int) else T.float32))
    r = call(T, o)
    assert r[0] is o[0] and r[1] is o[1]
    assert (lst(r[0]), lst(r[1])) == want
    assert lst(r.values if hasattr(r, "values") else r.min) == want[0]


def test_more_functions_take_out(T):
    o = T.empty(0, dtype=T.long)
    assert T.nonzero(_a(T), out=o) is o and lst(o) == [[0, 0], [0, 1], [0, 2], [1, 1], [1, 2]]
    o = T.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # torch.ger is deprecated
        assert lst(T.ger(T.ones(2), T.arange(3.0), out=o)) == [[0.0, 1.0, 2.0]] * 2


@pytest.mark.parametrize("call", [
    lambda T: T.var_mean(T.ones(3), 0, out=(T.empty(0), T.empty(0))),
    lambda T: T.std_mean(T.ones(3), 0, out=(T.empty(0), T.empty(0))),
    lambda T: T.where(T.ones(3) > 0, out=(T.empty(0, dtype=T.long),)),
    lambda T: T.median(T.ones(3), out=T.empty(0)),
], ids=["var_mean", "std_mean", "where(condition)", "median()"])
def test_functions_without_out(T, call):
    with pytest.raises(TypeError):
        call(T)


def test_out_of_a_wrong_type(T):
    with pytest.raises(TypeError, match="argument 'out' must be Tensor, not list"):
        T.add(T.ones(2), 1, out=[1, 2])
    assert np.asarray(lst(T.ones(2))).shape == (2,)
