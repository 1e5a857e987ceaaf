"""tensorplay.testing: assert_close (tolerances, inputs, reports), assert_allclose
and make_tensor, run on both libraries (torch as the oracle when installed) with
the reports also written out here, so they are checked without torch too."""
import math
import warnings
from collections import OrderedDict

import numpy as np
import pytest



def _error(T, *args, **kw):
    """(type name, message) of assert_close's failure, library names made neutral."""
    try:
        T.testing.assert_close(*args, **kw)
    except Exception as e:       # noqa: BLE001
        msg = str(e).replace("torch.", "LIB.").replace("tensorplay.", "LIB.")
        return type(e).__name__, msg.replace("LIB._tensor.Tensor", "LIB.Tensor")
    return None


def _cases(T):
    t = T.tensor
    return [
        ((t([1., 2., 3.]), t([1., 2.5, 3.1])), {}),
        ((t([1, 2, 3]), t([1, 2, 4])), {}),
        ((t([1, 2, 3]), t([0, 2, 4])), {}),
        ((t([True, False]), t([True, True])), {}),
        ((t([1., 2.], dtype=T.float16), t([1., 2.1], dtype=T.float16)), {}),
        ((t([1., 2.], dtype=T.bfloat16), t([1., 2.1], dtype=T.bfloat16)), {}),
        ((t([1 + 1j, 2]), t([1 + 2j, 2])), {}),
        ((t(1.), t(2.)), {}),
        ((t([[1., 2.], [3., 4.]]), t([[1., 2.], [3., 5.]])), {}),
        ((t([1., 2.]), t([1., 2.], dtype=T.float64)), {}),
        ((t([1., 2.]), t([1., 2.1], dtype=T.float64)), {"check_dtype": False}),
        ((t([1., 2.]), t([1., 2., 3.])), {}),
        ((T.ones(2, 2), T.ones(2, 2).t()), {"check_stride": True}),
        ((1, 1.0), {}), ((1.0, 1.1), {}), ((1, 2), {}), ((1 + 0j, 1 + 1j), {}), ((True, False), {}),
        ((None, 1), {}), ((1, None), {}), (([1, 2], [1, 2, 3]), {}),
        (({"a": 1}, {"b": 1}), {}), (({"a": [1., 2.]}, {"a": [1., 3.]}), {}),
        ((t([1.]), np.array([1.])), {}), ((np.array([1., 2.]), np.array([1., 3.])), {}),
        ((t([1.]), t([2.])), {"msg": "custom"}),
        ((t([1.]), t([2.])), {"msg": lambda m: "H\n" + m}),
        ((t([math.nan]), t([math.nan])), {}),
        ((t([1.]), t([1.1])), {"rtol": 0.2}),
        ((t([1.]), t([1.1])), {"rtol": 0, "atol": 0}),
        ((t([1., math.inf]), t([1., 2.])), {}),
        ((t([1., 2., 3., 4.]), t([2., 3., 3., 4.])), {}),
        ((t([1., math.nan, 3.]), t([1., 2., 5.])), {}),
        (("a", "b"), {}),
        (([t([1.]), {"x": t([2.])}], [t([1.]), {"x": t([3.])}]), {}),
        ((t([1, 2], dtype=T.uint8), t([1, 3], dtype=T.uint8)), {}),
        ((T.nn.Parameter(t([1.])), t([1.])), {"allow_subclasses": False}),
        ((t([1, 2], dtype=T.uint16), t([1, 3], dtype=T.int8)), {"check_dtype": False}),
        ((t(math.nan), t(math.nan)), {}),
        ((t(1), t(2)), {}),
        ((t([1., 2., 3.]), t([0., 2., 3.])), {}),
        ((t([[1., 2.], [3., 4.]]), t([[1., 2.5], [3., 4.]]).t().contiguous().t()), {}),
    ]


# the reports, one per case (PyTorch 2.13's; library names as LIB.)
EXPECTED = [
    ('AssertionError',  # 0
     'Tensor-likes are not close!\n'
     '\n'
     'Mismatched elements: 2 / 3 (66.7%)\n'
     'Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n'
     'Greatest relative difference: 0.20000000298023224 at index (1,) (up '
     'to 1.3e-06 allowed)'),
    ('AssertionError',  # 1
     'Tensor-likes are not equal!\n'
     '\n'
     'Mismatched elements: 1 / 3 (33.3%)\n'
     'Greatest absolute difference: 1 at index (2,)\n'
     'Greatest relative difference: 0.25 at index (2,)'),
    ('AssertionError',  # 2
     'Tensor-likes are not equal!\n'
     '\n'
     'Mismatched elements: 2 / 3 (66.7%)\n'
     'Greatest absolute difference: 1 at index (0,)\n'
     'Greatest relative difference: inf at index (0,)'),
    ('AssertionError',  # 3
     'Tensor-likes are not equal!\n'
     '\n'
     'Mismatched elements: 1 / 2 (50.0%)\n'
     'Greatest absolute difference: 1 at index (1,)\n'
     'Greatest relative difference: 1.0 at index (1,)'),
    ('AssertionError',  # 4
     'Tensor-likes are not close!\n'
     '\n'
     'Mismatched elements: 1 / 2 (50.0%)\n'
     'Greatest absolute difference: 0.099609375 at index (1,) (up to 1e-05 '
     'allowed)\n'
     'Greatest relative difference: 0.047454833984375 at index (1,) (up to '
     '0.001 allowed)'),
    ('AssertionError',  # 5
     'Tensor-likes are not close!\n'
     '\n'
     'Mismatched elements: 1 / 2 (50.0%)\n'
     'Greatest absolute difference: 0.09375 at index (1,) (up to 1e-05 allowed)\n'
     'Greatest relative difference: 0.044677734375 at index (1,) (up to '
     '0.016 allowed)'),
    ('AssertionError',  # 6
     'Tensor-likes are not close!\n'
     '\n'
     'Mismatched elements: 1 / 2 (50.0%)\n'
     'Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\n'
     'Greatest relative difference: 0.4472135901451111 at index (0,) (up to '
     '1.3e-06 allowed)'),
    ('AssertionError',  # 7
     'Scalars are not close!\n'
     '\n'
     'Expected 2.0 but got 1.0.\n'
     'Absolute difference: 1.0 (up to 1e-05 allowed)\n'
     'Relative difference: 0.5 (up to 1.3e-06 allowed)'),
    ('AssertionError',  # 8
     'Tensor-likes are not close!\n'
     '\n'
     'Mismatched elements: 1 / 4 (25.0%)\n'
     'Greatest absolute difference: 1.0 at index (1, 1) (up to 1e-05 allowed)\n'
     'Greatest relative difference: 0.20000000298023224 at index (1, 1) (up '
     'to 1.3e-06 allowed)'),
    ('AssertionError',  # 9
     "The values for attribute 'dtype' do not match: LIB.float32 != LIB.float64."),
    ('AssertionError',  # 10
     'Tensor-likes are not close!\n'
     '\n'
     'Mismatched elements: 1 / 2 (50.0%)\n'
     'Greatest absolute difference: 0.10000000000000009 at index (1,) (up '
     'to 1e-05 allowed)\n'
     'Greatest relative difference: 0.04761904761904766 at index (1,) (up '
     'to 1.3e-06 allowed)'),
    ('AssertionError',  # 11
     "The values for attribute 'shape' do not match: LIB.Size([2]) != LIB.Size([3])."),
    ('AssertionError',  # 12
     "The values for attribute 'stride()' do not match: (2, 1) != (1, 2)."),
    ('AssertionError',  # 13
     "The (d)types do not match: <class 'int'> != <class 'float'>."),
    ('AssertionError',  # 14
     'Scalars are not close!\n'
     '\n'
     'Expected 1.1 but got 1.0.\n'
     'Absolute difference: 0.10000000000000009 (up to 1e-07 allowed)\n'
     'Relative difference: 0.09090909090909098 (up to 1e-07 allowed)'),
    ('AssertionError',  # 15
     'Scalars are not equal!\n'
     '\n'
     'Expected 2 but got 1.\n'
     'Absolute difference: 1\n'
     'Relative difference: 0.5'),
    ('AssertionError',  # 16
     'Scalars are not close!\n'
     '\n'
     'Expected (1+1j) but got (1+0j).\n'
     'Absolute difference: 1.0 (up to 1e-07 allowed)\n'
     'Relative difference: 0.7071067811865475 (up to 1e-07 allowed)'),
    ('AssertionError',  # 17
     'Booleans mismatch: True is not False'),
    ('AssertionError',  # 18
     'None mismatch: None is not 1'),
    ('AssertionError',  # 19
     'None mismatch: 1 is not None'),
    ('AssertionError',  # 20
     'The length of the sequences mismatch: 2 != 3'),
    ('AssertionError',  # 21
     'The keys of the mappings do not match:\n'
     "Missing keys in the actual mapping: ['b']\n"
     "Additional keys in the actual mapping: ['a']"),
    ('AssertionError',  # 22
     'Scalars are not close!\n'
     '\n'
     'Expected 3.0 but got 2.0.\n'
     'Absolute difference: 1.0 (up to 1e-07 allowed)\n'
     'Relative difference: 0.3333333333333333 (up to 1e-07 allowed)\n'
     '\n'
     "The failure occurred for item ['a'][1]"),
    ('TypeError',  # 23
     'No comparison pair was able to handle inputs of type <class '
     "'LIB.Tensor'> and <class 'numpy.ndarray'>."),
    ('AssertionError',  # 24
     'Tensor-likes are not close!\n'
     '\n'
     'Mismatched elements: 1 / 2 (50.0%)\n'
     'Greatest absolute difference: 1.0 at index (1,) (up to 1e-07 allowed)\n'
     'Greatest relative difference: 0.3333333333333333 at index (1,) (up to '
     '1e-07 allowed)'),
    ('AssertionError',  # 25
     'custom'),
    ('AssertionError',  # 26
     'H\n'
     'Tensor-likes are not close!\n'
     '\n'
     'Mismatched elements: 1 / 1 (100.0%)\n'
     'Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\n'
     'Greatest relative difference: 0.5 at index (0,) (up to 1.3e-06 allowed)'),
    ('AssertionError',  # 27
     'Tensor-likes are not close!\n'
     '\n'
     'Mismatched elements: 1 / 1 (100.0%)\n'
     'Greatest absolute difference: nan at index (0,) (up to 1e-05 allowed)\n'
     'Greatest relative difference: nan at index (0,) (up to 1.3e-06 allowed)'),
    ('ValueError',  # 28
     "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol."),
    ('AssertionError',  # 29
     'Tensor-likes are not equal!\n'
     '\n'
     'Mismatched elements: 1 / 1 (100.0%)\n'
     'Greatest absolute difference: 0.10000002384185791 at index (0,)\n'
     'Greatest relative difference: 0.09090910851955414 at index (0,)'),
    ('AssertionError',  # 30
     'Tensor-likes are not close!\n'
     '\n'
     'Mismatched elements: 1 / 2 (50.0%)\n'
     'Greatest absolute difference: inf at index (1,) (up to 1e-05 allowed)\n'
     'Greatest relative difference: inf at index (1,) (up to 1.3e-06 allowed)'),
    ('AssertionError',  # 31
     'Tensor-likes are not close!\n'
     '\n'
     'Mismatched elements: 2 / 4 (50.0%)\n'
     'Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\n'
     'Greatest relative difference: 0.5 at index (0,) (up to 1.3e-06 allowed)'),
    ('AssertionError',  # 32
     'Tensor-likes are not close!\n'
     '\n'
     'Mismatched elements: 2 / 3 (66.7%)\n'
     'Greatest absolute difference: nan at index (1,) (up to 1e-05 allowed)\n'
     'Greatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)'),
    ('TypeError',  # 33
     "No comparison pair was able to handle inputs of type <class 'str'> "
     "and <class 'str'>."),
    ('AssertionError',  # 34
     'Tensor-likes are not close!\n'
     '\n'
     'Mismatched elements: 1 / 1 (100.0%)\n'
     'Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\n'
     'Greatest relative difference: 0.3333333432674408 at index (0,) (up to '
     '1.3e-06 allowed)\n'
     '\n'
     "The failure occurred for item [1]['x']"),
    ('AssertionError',  # 35
     'Tensor-likes are not equal!\n'
     '\n'
     'Mismatched elements: 1 / 2 (50.0%)\n'
     'Greatest absolute difference: 1 at index (1,)\n'
     'Greatest relative difference: 0.3333333432674408 at index (1,)'),
    ('TypeError',  # 36
     'No comparison pair was able to handle inputs of type <class '
     "'LIB.nn.parameter.Parameter'> and <class 'LIB.Tensor'>."),
    ('AssertionError',  # 37
     'Tensor-likes are not equal!\n'
     '\n'
     'Mismatched elements: 1 / 2 (50.0%)\n'
     'Greatest absolute difference: 1 at index (1,)\n'
     'Greatest relative difference: 0.3333333432674408 at index (1,)'),
    ('AssertionError',  # 38
     'Scalars are not close!\n'
     '\n'
     'Expected nan but got nan.\n'
     'Absolute difference: nan (up to 1e-05 allowed)\n'
     'Relative difference: nan (up to 1.3e-06 allowed)'),
    ('AssertionError',  # 39
     'Scalars are not equal!\n'
     '\n'
     'Expected 2 but got 1.\n'
     'Absolute difference: 1\n'
     'Relative difference: 0.5'),
    ('AssertionError',  # 40
     'Tensor-likes are not close!\n'
     '\n'
     'Mismatched elements: 1 / 3 (33.3%)\n'
     'Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\n'
     'Greatest relative difference: inf at index (0,) (up to 1.3e-06 allowed)'),
    ('AssertionError',  # 41
     'Tensor-likes are not close!\n'
     '\n'
     'Mismatched elements: 1 / 4 (25.0%)\n'
     'Greatest absolute difference: 0.5 at index (0, 1) (up to 1e-05 allowed)\n'
     'Greatest relative difference: 0.20000000298023224 at index (0, 1) (up '
     'to 1.3e-06 allowed)'),
]


def test_assert_close_reports_match_torch(T):
    got = [_error(T, *a, **kw) for a, kw in _cases(T)]
    assert len(got) == len(EXPECTED)
    for i, (g, e) in enumerate(zip(got, EXPECTED)):
        assert g == e, (i, g)


def test_assert_close_passes(T):
    t = T.tensor
    T.testing.assert_close(t([1., 2.]), t([1., 2. + 1e-6]))
    T.testing.assert_close(t([1., 2.], dtype=T.float64), t([1., 2. + 1e-8], dtype=T.float64))
    T.testing.assert_close(t([1., 2.], dtype=T.float16), t([1., 2.001], dtype=T.float16))
    T.testing.assert_close(t([math.nan, 1.]), t([math.nan, 1.]), equal_nan=True)
    T.testing.assert_close(t([math.inf]), t([math.inf]))
    T.testing.assert_close(t([1, 2]), t([1., 2.]), check_dtype=False)
    T.testing.assert_close(t([1.]), t([1.1]), rtol=0.2, atol=0.)
    T.testing.assert_close(1.0, 1, check_dtype=False)
    T.testing.assert_close(np.float32(1.0), np.float64(1.0))
    T.testing.assert_close([t([1.]), 2.0, np.array(3.0)], (t([1.]), 2.0, np.array(3.0)))
    T.testing.assert_close(OrderedDict([("a", t(1.)), ("b", 2.)]), {"b": 2., "a": t(1.)})
    T.testing.assert_close(T.nn.Parameter(t([1.])), t([1.]))
    T.testing.assert_close(t([1., 2.], requires_grad=True) * 1, t([1., 2.]))
    T.testing.assert_close(T.zeros(0, 3), T.zeros(0, 3))
    T.testing.assert_close(None, None)
    T.testing.assert_close(T.ones(2, 3)[:, ::2], T.ones(2, 2))      # strides unchecked by default


def test_default_tolerance_boundaries(T):
    # float32: rtol 1.3e-6, atol 1e-5 -> at 1.0 anything within 1.13e-5 passes
    t = T.tensor
    T.testing.assert_close(t([1.0], dtype=T.float64), t([1.0 + 1.9e-7], dtype=T.float64))
    with pytest.raises(AssertionError):
        T.testing.assert_close(t([1.0], dtype=T.float64), t([1.0 + 2.1e-7], dtype=T.float64))
    T.testing.assert_close(t([100.0]), t([100.0 + 1.2e-4]))
    with pytest.raises(AssertionError):
        T.testing.assert_close(t([100.0]), t([100.0 + 2e-4]))
    with pytest.raises(AssertionError):      # the loosest of the two dtypes when both differ
        T.testing.assert_close(t([1.0], dtype=T.float64), t([1.0 + 5e-4]), check_dtype=False)
    T.testing.assert_close(t([1.0], dtype=T.float64), t([1.0 + 5e-6]), check_dtype=False)


def test_assert_allclose_is_deprecated(T):
    with pytest.warns(FutureWarning, match="assert_allclose\\(\\)` is deprecated since 1.12"):
        T.testing.assert_allclose(T.tensor([1., math.nan]), [1.00001, math.nan])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(AssertionError, match="Tensor-likes are not close"):
            T.testing.assert_allclose(T.tensor([1.]), [1.01])
        T.testing.assert_allclose(T.tensor([1, 2]), T.tensor([1., 2.]))


def test_make_tensor_ranges_and_flags(T):
    mk = T.testing.make_tensor
    T.manual_seed(0)
    for dt, lo, hi in [(T.bool, 0, 1), (T.uint8, 0, 9), (T.int8, -9, 9), (T.int64, -9, 9)]:
        r = mk(4000, dtype=dt, device="cpu")
        assert r.dtype == dt and r.shape == (4000,)
        assert int(r.min()) == lo and int(r.max()) == hi
    for dt in (T.float32, T.float64, T.complex64):
        r = mk(2000, dtype=dt, device="cpu", low=-2, high=3)
        parts = T.view_as_real(r) if dt.is_complex else r
        assert float(parts.min()) >= -2 and float(parts.max()) < 3 and float(parts.min()) < -1.9
    r = mk(3, 4, dtype=T.float32, device="cpu", noncontiguous=True, requires_grad=True)
    assert r.shape == (3, 4) and not r.is_contiguous() and r.stride() == (8, 2) and r.is_leaf
    assert r.requires_grad
    assert mk(1, dtype=T.float32, device="cpu", noncontiguous=True).is_contiguous()
    assert mk((2, 3), dtype=T.float32, device="cpu").shape == (2, 3)
    assert mk([], dtype=T.float32, device="cpu").shape == ()
    assert mk(2, 3, 4, 5, dtype=T.float32, device="cpu",
              memory_format=T.channels_last).stride() == (60, 1, 15, 3)
    r = mk(300, dtype=T.int8, device="cpu", low=0, high=2, exclude_zero=True)
    assert int(r.min()) == 1
    r = mk(300, dtype=T.float32, device="cpu", low=0, high=2e-45, exclude_zero=True)
    assert float(r.min()) > 0
    r = mk(5, dtype=T.int16, device="cpu", low=0.5, high=2.5)        # ceil both: [1, 3)
    assert set(r.tolist()) <= {1, 2}
    r = mk(5, dtype=T.float32, device="cpu", low=-1e40, high=1e40)
    assert bool(T.isfinite(r).all())


def test_make_tensor_errors(T):
    mk = T.testing.make_tensor

    def err(**kw):
        with pytest.raises(Exception) as info:
            mk(2, device="cpu", **kw)
        return type(info.value).__name__, str(info.value).replace("torch.", "LIB.").replace(
            "tensorplay.", "LIB.")

    assert err(dtype=T.int32, requires_grad=True) == (
        "ValueError", "`requires_grad=True` is not supported for boolean and integral dtypes, "
                      "but got dtype=LIB.int32")
    assert err(dtype=T.float32, low=3, high=2) == (
        "ValueError", "`low` must be less than `high`, but got 3 >= 2")
    assert err(dtype=T.float32, low=math.nan) == (
        "ValueError", "`low` and `high` cannot be NaN, but got low=nan and high=9")
    assert err(dtype=T.uint8, low=-20, high=-10) == (
        "ValueError", "The value interval specified by `low` and `high` is [-20, -10), but "
                      "LIB.uint8 only supports [0, 256)")
    assert err(dtype=T.float32, noncontiguous=True, memory_format=T.channels_last) == (
        "ValueError", "The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
                      "but got noncontiguous=True and memory_format=LIB.channels_last")
    with pytest.warns(FutureWarning, match="Passing `low==high`"):
        mk(2, dtype=T.float32, device="cpu", low=1, high=1)
