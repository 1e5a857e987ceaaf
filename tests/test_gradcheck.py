"""gradcheck / gradgradcheck: correct functions pass, wrong backwards fail in
slow and fast mode, PyTorch's options and messages; outcomes vs PyTorch."""
import warnings

import numpy as np
import pytest

import tensorplay as tp
from tensorplay.autograd import GradcheckError, gradcheck, gradgradcheck

MODES = [False, True]


def _x(lib, data=((0.5, -1.0, 2.0), (0.25, 1.5, -0.75)), dtype="float64"):
    return lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=True)


def _scaled_square(lib, factor):
    """x*x with a backward ``factor`` times too large (1 = correct)."""
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2 * x * factor
    return Square


def _mul_wrong_second(lib):
    """(a * b, a + b) whose gradient for b (input 1) is wrong."""
    class MulAdd(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b, a + b

        @staticmethod
        def backward(ctx, g1, g2):
            a, b = ctx.saved_tensors
            return g1 * b + g2, g1 * a * 1.5 + g2
    return MulAdd


def _detached_backward(lib):
    """First derivative right, second wrong: backward uses x without its history."""
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x.detach() ** 2
    return Cube


# ---------------------------------------------------------------- passing functions
@pytest.mark.parametrize("fast", MODES)
def test_correct_functions_pass(fast):
    x, w = _x(tp), tp.randn(3, 4, dtype=tp.float64, requires_grad=True)
    assert gradcheck(lambda a, b: (a @ b).tanh(), (x, w), fast_mode=fast)
    assert gradcheck(lambda a: (a.exp() * a.sin()).sum(1), x, fast_mode=fast)
    assert gradcheck(lambda a, b: (a @ b, (a * 2).sum()), (x, w), fast_mode=fast)     # 2 outputs
    assert gradcheck(lambda a, s, k: a * s + k, (x, 3.0, 2), fast_mode=fast)         # non-tensors
    assert gradcheck(_scaled_square(tp, 1).apply, (x,), fast_mode=fast)
    assert gradcheck(lambda a: a.exp(), (x.detach().t().requires_grad_(),), fast_mode=fast)
    assert gradcheck(lambda a: a * 2, (tp.zeros(0, 3, dtype=tp.float64, requires_grad=True),),
                     fast_mode=fast)


@pytest.mark.parametrize("fast", MODES)
def test_outputs_not_requiring_grad(fast):
    x = _x(tp)
    assert gradcheck(lambda a: (a * 2, a.detach() * 3, a.argmax()), (x,), fast_mode=fast)
    assert gradcheck(lambda a: tp.ones(2, dtype=tp.float64), (x,), fast_mode=fast)
    with pytest.raises(GradcheckError, match="Numerical gradient for function expected to be zero"):
        gradcheck(lambda a: a.detach() * 2, (x,), fast_mode=fast)


def test_inputs_not_requiring_grad_are_constants():
    x, c = _x(tp), tp.randn(2, 3, dtype=tp.float64)
    assert gradcheck(lambda a, b: a * b, (x, c))
    with pytest.raises(ValueError, match="none of them have requires_grad=True"):
        gradcheck(lambda a: a * 2, (x.detach(),))


# ---------------------------------------------------------------- failing functions
@pytest.mark.parametrize("fast", MODES)
def test_wrong_backward_fails(fast):
    x = _x(tp)
    bad = _scaled_square(tp, 1.5).apply
    with pytest.raises(GradcheckError) as info:
        gradcheck(bad, (x,), fast_mode=fast)
    assert isinstance(info.value, RuntimeError)
    msg = str(info.value)
    assert msg.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    assert "\nanalytical:" in msg
    if fast:
        assert "recompute numerical and analytical jacobians in slow mode" in msg
    assert gradcheck(bad, (x,), fast_mode=fast, raise_exception=False) is False


@pytest.mark.parametrize("fast", MODES)
def test_wrong_gradient_of_second_input_is_named(fast):
    a, b = _x(tp), _x(tp, ((1.0, 2.0, 3.0), (-1.0, 0.5, 0.1)))
    with pytest.raises(GradcheckError, match="with respect to input 1,"):
        gradcheck(_mul_wrong_second(tp).apply, (a, b), fast_mode=fast)


@pytest.mark.parametrize("fast", MODES)
def test_tolerances(fast):
    x = _x(tp)
    bad = _scaled_square(tp, 1.0 + 1e-4).apply        # a relative error of 1e-4
    assert gradcheck(bad, (x,), fast_mode=fast)       # within rtol=1e-3
    assert not gradcheck(bad, (x,), rtol=1e-6, atol=1e-9, fast_mode=fast, raise_exception=False)
    assert gradcheck(_scaled_square(tp, 2).apply, (x,), atol=100, fast_mode=fast)
    assert gradcheck(lambda a: a.exp(), (x,), eps=1e-4, fast_mode=fast)


def test_message_exactly_as_torch(torch_or_skip):
    torch = torch_or_skip
    msgs = []
    for lib in (tp, torch):
        with pytest.raises(Exception) as info:
            lib.autograd.gradcheck(_scaled_square(lib, 1.5).apply, (_x(lib),))
        assert type(info.value).__name__ == "GradcheckError"
        msgs.append(str(info.value).replace("torch.", "tensorplay."))
    assert msgs[0] == msgs[1]


def test_complex_message_prefix_as_torch(torch_or_skip):
    msgs = []
    for lib in (tp, torch_or_skip):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, z):
                return z * 2

            @staticmethod
            def backward(ctx, g):
                return g * 3
        z = lib.tensor([1 + 2j, -0.5j], dtype=lib.complex128, requires_grad=True)
        with pytest.raises(Exception) as info:
            lib.autograd.gradcheck(Bad.apply, (z,))
        msgs.append(str(info.value).replace("torch.", "tensorplay."))
    assert msgs[0].startswith("While considering the imaginary part of complex outputs only, "
                              "Jacobian mismatch for output 0 with respect to input 0,\n")
    assert msgs[0] == msgs[1]


# ---------------------------------------------------------------- complex
@pytest.mark.parametrize("fast", MODES)
def test_complex(fast):
    z = tp.tensor([1 + 2j, -0.5 + 0.25j, 0.3j], dtype=tp.complex128, requires_grad=True)
    x = tp.tensor([0.5, -1.0, 2.0], dtype=tp.float64, requires_grad=True)
    assert gradcheck(lambda a: (a * a).exp(), (z,), fast_mode=fast)          # C -> C holomorphic
    assert gradcheck(lambda a: a.abs(), (z,), fast_mode=fast)                # C -> R
    assert gradcheck(lambda a: a * a.conj(), (z,), fast_mode=fast)           # not holomorphic
    assert gradcheck(lambda a, b: a * b, (z, x), fast_mode=fast)             # mixed inputs
    assert gradcheck(lambda b: b * (1 + 2j), (x,), fast_mode=fast)           # R -> C

    class WrongConj(tp.autograd.Function):           # returns grad without the conjugate
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return g * 2 * a
    assert not gradcheck(WrongConj.apply, (z,), fast_mode=fast, raise_exception=False)


# ---------------------------------------------------------------- other checks
def test_non_double_warns():
    x = _x(tp, dtype="float32")
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double precision"):
        gradcheck(lambda a: a * 2, (x,), raise_exception=False)


def test_stride_zero_input_rejected():
    x = tp.tensor([1.0], dtype=tp.float64, requires_grad=True).expand(3)
    with pytest.raises(RuntimeError, match="The 0th input has a dimension with stride 0"):
        gradcheck(lambda a: a * 2, (x,))


class _Noisy:
    """A backward whose result changes a little from call to call."""

    @staticmethod
    def make(lib):
        rng = np.random.default_rng(5)

        class Noisy(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * (2 + 1e-9 * float(rng.standard_normal()))
        return Noisy


def test_nondet_tol():
    x = _x(tp)
    with pytest.raises(GradcheckError, match="Backward is not reentrant"):
        gradcheck(_Noisy.make(tp).apply, (x,))
    assert gradcheck(_Noisy.make(tp).apply, (x,), nondet_tol=1e-6)


def _undef(lib, raise_on_none):
    class Und(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(False)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            if g is None:
                if raise_on_none:
                    raise RuntimeError("no gradient")
                return lib.ones(2, 3, dtype=lib.float64)
            return g * 2
    return Und


@pytest.mark.parametrize("raise_on_none,match", [
    (True, "Expected backward function to handle undefined output grads"),
    (False, "Expected all input grads to be undefined or zero when all output grads are undefined "
            "or zero"),
])
def test_check_undefined_grad(raise_on_none, match):
    f = _undef(tp, raise_on_none).apply
    with pytest.warns(UserWarning, match="check_undefined_grad=False"):
        with pytest.raises(GradcheckError, match=match):
            gradcheck(f, (_x(tp),))
    assert gradcheck(f, (_x(tp),), check_undefined_grad=False)


def test_backward_not_multiplied_by_grad_output():
    class NoMul(tp.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2 + 1e-12
    with pytest.raises(GradcheckError, match="backward not multiplied by grad_output"):
        gradcheck(NoMul.apply, (_x(tp),))


def test_flags():
    x = _x(tp)
    with pytest.raises(AssertionError, match="at least one of check_forward_ad or check_backward"):
        gradcheck(lambda a: a * 2, (x,), check_backward_ad=False)
    with pytest.raises(AssertionError, match="check_batched_grad=True requires check_backward"):
        gradcheck(lambda a: a * 2, (x,), check_batched_grad=True, check_backward_ad=False,
                  check_forward_ad=True)
    with pytest.raises(AssertionError, match="check_batched_forward_grad=True requires"):
        gradcheck(lambda a: a * 2, (x,), check_batched_forward_grad=True)
    assert gradcheck(lambda a: a * 2, (x,), check_grad_dtypes=True, masked=None)
    with pytest.raises(AssertionError, match="check_undefined_grad=True requires"):
        gradgradcheck(lambda a: a * 2, (x,), check_rev_over_rev=False, check_fwd_over_rev=True)


# ---------------------------------------------------------------- gradgradcheck
@pytest.mark.parametrize("fast", MODES)
def test_gradgradcheck(fast):
    x, w = _x(tp), tp.randn(3, 2, dtype=tp.float64, requires_grad=True)
    f = lambda a, b: (a @ b).tanh()                     # noqa: E731
    assert gradgradcheck(f, (x, w), fast_mode=fast)
    go = tp.randn(2, 2, dtype=tp.float64, requires_grad=True)
    assert gradgradcheck(f, (x, w), (go,), fast_mode=fast)
    assert gradgradcheck(f, (x, w), (go.detach(),), fast_mode=fast)       # constant grad_output
    assert gradgradcheck(f, (x, w), gen_non_contig_grad_outputs=True, fast_mode=fast)
    z = tp.tensor([1 + 2j, -0.5j], dtype=tp.complex128, requires_grad=True)
    assert gradgradcheck(lambda a: (a * a).sin(), (z,), fast_mode=fast)


@pytest.mark.parametrize("fast", MODES)
def test_gradgradcheck_catches_wrong_double_backward(fast):
    x = _x(tp)
    cube = _detached_backward(tp).apply
    assert gradcheck(cube, (x,), fast_mode=fast)
    assert not gradgradcheck(cube, (x,), fast_mode=fast, raise_exception=False)
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradgradcheck(cube, (x,), fast_mode=fast)


# ---------------------------------------------------------------- outcomes vs PyTorch
CASES = {
    "tanh_mm": (lambda lib: (lambda a, b: (a @ b).tanh()), 2),
    "square_ok": (lambda lib: _scaled_square(lib, 1).apply, 1),
    "square_wrong": (lambda lib: _scaled_square(lib, 1.5).apply, 1),
    "square_slightly_wrong": (lambda lib: _scaled_square(lib, 1 + 1e-2).apply, 1),
    "muladd_wrong": (lambda lib: _mul_wrong_second(lib).apply, 2),
    "cube_detached": (lambda lib: _detached_backward(lib).apply, 1),
    "detached_out": (lambda lib: (lambda a: a.detach() * 2), 1),
    "undef_ones": (lambda lib: _undef(lib, False).apply, 1),
    "two_outputs": (lambda lib: (lambda a: (a.sin(), a.argmax(), a.detach())), 1),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("fast", MODES)
@pytest.mark.parametrize("check", ["gradcheck", "gradgradcheck"])
def test_outcome_matches_torch(torch_or_skip, name, fast, check):
    make, n_in = CASES[name]
    if check == "gradgradcheck" and name in ("detached_out", "undef_ones", "two_outputs"):
        pytest.skip("no second derivative to compare")
    outcomes = []
    for lib in (tp, torch_or_skip):
        xs = [_x(lib), _x(lib, ((1.0, 2.0, 3.0), (-1.0, 0.5, 0.1)))][:n_in]
        if name == "tanh_mm":
            xs[1] = lib.tensor(np.arange(12.0).reshape(3, 4) / 10, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outcomes.append(getattr(lib.autograd, check)(make(lib), tuple(xs), fast_mode=fast,
                                                         raise_exception=False))
    assert outcomes[0] == outcomes[1]


# ---------------------------------------------------------------- forward mode and batched checks
def _square(lib, jvp_factor=1.0, double=None, numpy_backward=False):
    """x*x with a jvp ``jvp_factor`` times too large; its backward and jvp
    double with ``double`` (a Function) when given; ``numpy_backward``: a
    backward through NumPy, which works one gradient at a time only."""
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            if numpy_backward:
                return lib.tensor(g.detach().numpy() * 2 * x.detach().numpy())
            return (double.apply(g) if double else 2 * g) * x

        @staticmethod
        def jvp(ctx, t):
            x, = ctx.saved_tensors
            return (double.apply(t) if double else 2 * t) * x * jvp_factor
    return Square


def _double(lib, batched_factor):
    """2 * x, whose vmap rule computes ``batched_factor * x`` (2: right)."""
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            return t * 2

        @staticmethod
        def vmap(info, in_dims, x):
            return x * batched_factor, in_dims[0]
    return Double


@pytest.mark.parametrize("fast", MODES)
def test_forward_ad_checks_pass_on_correct_functions(fast):
    x, w = _x(tp), tp.randn(3, 2, dtype=tp.float64, requires_grad=True)
    f = lambda a, b: ((a @ b).tanh(), (a * 2).sum(0))       # noqa: E731
    kw = dict(fast_mode=fast, check_forward_ad=True, check_batched_forward_grad=True,
              check_batched_grad=True)
    assert gradcheck(f, (x, w), **kw)
    assert gradcheck(f, (x, w), fast_mode=fast, check_forward_ad=True, check_backward_ad=False)
    # a Function without a vmap rule: its jvps cannot be batched (vmap refuses it, as PyTorch's)
    kw_fn = dict(kw, check_batched_forward_grad=False)
    assert gradcheck(_square(tp).apply, (x,), **kw_fn)
    assert gradcheck(_square(tp, double=_double(tp, 2)).apply, (x,), **kw_fn)
    with pytest.raises(GradcheckError, match="While computing batched gradients, got: You tried to "
                                             "vmap over Square"):
        gradcheck(_square(tp).apply, (x,), **kw)
    z = tp.tensor([1 + 2j, -0.5j], dtype=tp.complex128, requires_grad=True)
    assert gradcheck(lambda a: (a * a).sin(), (z,), **kw)                    # complex in and out
    assert gradcheck(lambda a: (a * 1j).exp(), (x,), **kw)                   # complex out
    assert gradgradcheck(lambda a, b: (a @ b).tanh(), (x, w), fast_mode=fast,
                         check_fwd_over_rev=True)


@pytest.mark.parametrize("fast", MODES)
def test_forward_ad_check_fails_on_a_wrong_jvp(fast):
    x = _x(tp)
    wrong = _square(tp, jvp_factor=1.5).apply
    assert gradcheck(wrong, (x,), fast_mode=fast)                     # backward alone is right
    with pytest.raises(GradcheckError, match="Jacobian computed with forward mode mismatch for "
                                             "output 0 with respect to input 0"):
        gradcheck(wrong, (x,), fast_mode=fast, check_forward_ad=True)
    assert not gradcheck(wrong, (x,), fast_mode=fast, check_forward_ad=True,
                         check_backward_ad=False, raise_exception=False)
    z = tp.tensor([1 + 2j, -0.5j], dtype=tp.complex128, requires_grad=True)
    with pytest.raises(GradcheckError, match="While considering the imaginary part of complex "
                                             "inputs only, Jacobian computed with forward mode"):
        gradcheck(wrong, (z,), fast_mode=fast, check_forward_ad=True, check_backward_ad=False)


@pytest.mark.parametrize("fast", MODES)
def test_gradgradcheck_forward_over_reverse_catches_a_wrong_double_backward(fast):
    class Cube(_detached_backward(tp)):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)         # (what jvp sees, as in PyTorch)
            return x ** 3

        @staticmethod
        def jvp(ctx, t):
            x, = ctx.saved_tensors
            return 3 * x ** 2 * t
    x, cube = _x(tp), Cube.apply
    assert gradcheck(cube, (x,), fast_mode=fast, check_forward_ad=True)
    with pytest.raises(GradcheckError, match="Jacobian computed with forward mode mismatch"):
        gradgradcheck(cube, (x,), fast_mode=fast, check_fwd_over_rev=True,
                      check_rev_over_rev=False, check_undefined_grad=False)


def test_undefined_forward_check_fails_on_a_jvp_that_mishandles_no_tangent():
    class Shift(tp.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.set_materialize_grads(False)
            return x + y

        @staticmethod
        def backward(ctx, g):
            return g, g

        @staticmethod
        def jvp(ctx, tx, ty):
            # an undefined tangent treated as ones instead of zeros
            return (tx if tx is not None else 1.0) + (ty if ty is not None else 1.0)
    x, y = _x(tp), _x(tp, ((1.0, 2.0, 3.0), (-1.0, 0.5, 0.1)))
    assert gradcheck(Shift.apply, (x, y), check_forward_ad=True, check_undefined_grad=False)
    with pytest.raises(GradcheckError, match="Mismatch in tangent values for output with index: 0"):
        gradcheck(Shift.apply, (x, y), check_forward_ad=True)


def test_batched_grad_check_fails_on_backwards_that_do_not_batch():
    x = _x(tp)
    assert gradcheck(_square(tp, numpy_backward=True).apply, (x,))
    with pytest.raises(GradcheckError, match="While computing batched gradients, got: vmap"):
        gradcheck(_square(tp, numpy_backward=True).apply, (x,), check_batched_grad=True)
    wrong = _square(tp, double=_double(tp, 3)).apply        # right one by one, wrong batched
    assert gradcheck(wrong, (x,), check_forward_ad=True)
    with pytest.raises(GradcheckError, match="For output 0 and input 0:\n\ngradcheck or "
                                             "gradgradcheck failed while testing batched"):
        gradcheck(wrong, (x,), check_batched_grad=True)
    with pytest.raises(GradcheckError, match="batched gradient computation"):
        gradgradcheck(lambda a: wrong(a) * a, (x,), check_batched_grad=True)


def test_batched_forward_grad_check_fails_on_a_wrong_batching_rule():
    """Tangents under vmap are computed on the physical batch, so a jvp that is
    right one sample at a time is right batched; what can be wrong is a
    Function's own vmap rule."""
    x = _x(tp)
    assert gradcheck(_double(tp, 2).apply, (x,), check_forward_ad=True,
                     check_batched_forward_grad=True)
    wrong = _double(tp, 3).apply
    assert gradcheck(wrong, (x,), check_forward_ad=True)
    with pytest.raises(GradcheckError, match="batched gradient computation with forward-mode AD"):
        gradcheck(wrong, (x,), check_forward_ad=True, check_batched_forward_grad=True)


@pytest.mark.parametrize("factor", [1.0, 1.5])
@pytest.mark.parametrize("fast", MODES)
def test_forward_outcome_matches_torch(torch_or_skip, factor, fast):
    outcomes = []
    for lib in (tp, torch_or_skip):
        f = _square(lib, jvp_factor=factor).apply
        outcomes.append(lib.autograd.gradcheck(f, (_x(lib),), fast_mode=fast, check_forward_ad=True,
                                               raise_exception=False))
    assert outcomes[0] == outcomes[1] == (factor == 1.0)
