"""Table entries for ops/complex_ops.py.

The generic complex tests give every floating input an imaginary part, so ops
that take real inputs only (``complex``, ``polar``) set ``complex=False``, and
ops whose half-precision result would be complex32 set ``low_precision=False``.
"""
import numpy as np

from . import OpCase, Sample, arr, pos

S = (3, 4)
away0 = np.sign(arr(*S, seed=3)) * pos(*S, seed=3)     # nonzero, both signs


def _to_complex(T, x):
    """A complex tensor from a real one with a last dim of 2; a complex one as is."""
    return x if x.is_complex() else T.view_as_complex(x * 1.5)


CASES = [
    OpCase("angle", lambda T, x: T.angle(x), [Sample([away0]), Sample([away0[0, :1].reshape(())], desc="0-d")]),
    OpCase("angle_method", lambda T, x: x.angle() * x.abs(), [Sample([away0])], covers=("angle", "abs", "mul")),
    OpCase("complex", lambda T, re, im: T.complex(re, im),
           [Sample([arr(*S, seed=1), arr(*S, seed=2)]),
            Sample([arr(*S, seed=1), arr(4, seed=2)], desc="broadcast"),
            Sample([arr(*S, seed=1), arr(*S, seed=2)], grad=[1], desc="imag only")],
           complex=False, low_precision=False),
    OpCase("complex_abs", lambda T, re, im: T.complex(re, im).abs(),
           [Sample([away0, arr(*S, seed=2)])], covers=("complex", "abs"), complex=False, low_precision=False),
    OpCase("polar", lambda T, a, t: T.polar(a, t),
           [Sample([pos(*S, seed=1), arr(*S, seed=2) * 2]),
            Sample([pos(3, 1, seed=1), arr(4, seed=2) * 2], desc="broadcast")],
           complex=False, low_precision=False),
    OpCase("view_as_real", lambda T, x: T.view_as_real(_to_complex(T, x)),
           [Sample([arr(3, 2, seed=1)]), Sample([arr(2, 3, 2, seed=1)], desc="3d"),
            Sample([arr(2, seed=1)], desc="0-d complex")],
           covers=("view_as_real", "view_as_complex", "mul"), low_precision=False,
           xfail={"zero_size": "view_as_complex refuses an empty (0, 2) input: it checks the NumPy stride of the last dimension, which NumPy sets to 0 for an empty array (torch accepts it)"}),
    OpCase("view_as_complex", lambda T, x: T.view_as_complex(x) * (1 + 0.5j),
           [Sample([arr(3, 2, seed=1)]), Sample([arr(2, 3, 2, seed=1)], desc="3d")],
           covers=("view_as_complex", "mul"), complex=False, low_precision=False,
           xfail={"zero_size": "view_as_complex refuses an empty (0, 2) input: it checks the NumPy stride of the last dimension, which NumPy sets to 0 for an empty array (torch accepts it)"}),
    OpCase("view_as_complex_then_real", lambda T, x: T.view_as_real(T.view_as_complex(x).exp()),
           [Sample([arr(4, 2, seed=1)])], covers=("view_as_complex", "view_as_real", "exp"),
           xfail={"zero_size": "view_as_complex refuses an empty (0, 2) input: it checks the NumPy stride of the last dimension, which NumPy sets to 0 for an empty array (torch accepts it)"},
           complex=False, low_precision=False),
]
