"""Table entries for ops/complex_ops.py.

The generic complex tests give every floating input an imaginary part, so ops
that take real inputs only (``complex``, ``polar``) set ``complex=False``, and
ops whose half-precision result would be complex32 set ``low_precision=False``.
"""
import numpy as np

from . import E, OpCase, Sample, arr, pos

S = (3, 4)
away0 = np.sign(arr(*S, seed=3)) * pos(*S, seed=3)     # nonzero, both signs


def f32(*shape):
    return np.ones(shape, np.float32)


def _vac(f):
    """view_as_complex of a layout made from the input (the library's own ops)."""
    return lambda T, x: T.view_as_complex(f(T, x))


_BOTH = "Expected both inputs to be Half, Float or Double tensors but got {0} and {0}"
_SECOND = "Expected object of scalar type Float but got scalar type Double for second argument"
# The view_as_complex rows: noncontig="refused" since view_as_complex needs a last dimension
# of stride 1, which the generated transposed layout does not have (torch refuses it too);
# and a known bug: view_as_complex reads the stride of an empty array's last dimension,
# which NumPy sets to 0
EMPTY_VAC = {"zero_size": "view_as_complex refuses an empty (0, 2) input ('Tensor must have a last dimension with "
                          "stride 1'): it checks the NumPy stride of the last dimension, which NumPy sets to 0 "
                          "for an empty array (torch accepts it)"}


def _to_complex(T, x):
    """A complex tensor from a real one with a last dim of 2; a complex one as is."""
    return x if x.is_complex() else T.view_as_complex(x * 1.5)


CASES = [
    OpCase("angle", samples=[Sample([away0]), Sample([away0[0, :1].reshape(())], desc="0-d")], ref=np.angle),
    OpCase("angle_method", lambda T, x: x.angle() * x.abs(), [Sample([away0])], covers=("angle", "abs", "mul")),
    OpCase("complex", samples=[Sample([arr(*S, seed=1), arr(*S, seed=2)]),
                               Sample([arr(*S, seed=1), arr(4, seed=2)], desc="broadcast"),
                               Sample([arr(*S, seed=1), arr(*S, seed=2)], grad=[1], desc="imag only")],
           complex=False, low_precision=False, ref=lambda re, im: re + 1j * im,
           errors=[E(RuntimeError, _SECOND, f32(2), np.ones(2), desc="dtypes"),
                   E(RuntimeError, _BOTH.format("Long"), np.ones(2, np.int64), np.ones(2, np.int64), desc="long"),
                   E(RuntimeError, _BOTH.format("ComplexFloat"), np.ones(2, np.complex64), np.ones(2, np.complex64),
                     desc="complex"),
                   E(RuntimeError, _BOTH.format("BFloat16"), f32(2), f32(2),
                     fn=lambda T, x, y: T.complex(x.to(T.bfloat16), y.to(T.bfloat16)), desc="bfloat16"),
                   E(RuntimeError, "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
                     "dimension 0", f32(2), f32(3), desc="shapes")]),
    OpCase("complex_abs", lambda T, re, im: T.complex(re, im).abs(),
           [Sample([away0, arr(*S, seed=2)])], covers=("complex", "abs"), complex=False, low_precision=False),
    OpCase("polar", samples=[Sample([pos(*S, seed=1), arr(*S, seed=2) * 2]),
                             Sample([pos(3, 1, seed=1), arr(4, seed=2) * 2], desc="broadcast")],
           complex=False, low_precision=False, ref=lambda a, t: a * np.exp(1j * t),
           errors=[E(RuntimeError, _SECOND, f32(2), np.ones(2), desc="dtypes"),
                   E(RuntimeError, _BOTH.format("Long"), np.ones(2, np.int64), np.ones(2, np.int64), desc="long")]),
    OpCase("view_as_real", lambda T, x: T.view_as_real(_to_complex(T, x)),
           [Sample([arr(3, 2, seed=1)]), Sample([arr(2, 3, 2, seed=1)], desc="3d"),
            Sample([arr(2, seed=1)], desc="0-d complex")],
           covers=("view_as_real", "view_as_complex", "mul"), low_precision=False, xfail=EMPTY_VAC,
           noncontig="refused",
           errors=[E(RuntimeError, "view_as_real is only supported for complex tensors", f32(2),
                     fn=lambda T, x: T.view_as_real(x), desc="real")]),
    OpCase("view_as_complex", lambda T, x: T.view_as_complex(x) * (1 + 0.5j),
           [Sample([arr(3, 2, seed=1)]), Sample([arr(2, 3, 2, seed=1)], desc="3d")],
           covers=("view_as_complex", "mul"), complex=False, low_precision=False, xfail=EMPTY_VAC,
           noncontig="refused",
           errors=[E(RuntimeError, "Tensor must have a last dimension of size 2", f32(2, 3), desc="last 3"),
                   E(RuntimeError, "Tensor must have a stride divisible by 2 for all but last dimension", f32(2, 3),
                     fn=_vac(lambda T, x: x[:, :2]), desc="sliced"),
                   E(RuntimeError, "Tensor must have a last dimension of size 2", f32(3, 2),
                     fn=_vac(lambda T, x: x.t()), desc="transposed"),
                   E(RuntimeError, "Tensor must have a last dimension of size 2", f32(2, 4),
                     fn=_vac(lambda T, x: x.t().contiguous().t()[:2]), desc="stride 1"),
                   E(RuntimeError, "Tensor must have a storage_offset divisible by 2", f32(6),
                     fn=_vac(lambda T, x: x[1:5].reshape(2, 2)), desc="offset"),
                   E(RuntimeError, "view_as_complex is only supported for half, float and double tensors, but got a "
                     "tensor of scalar type: Long", np.ones(2, np.int64), desc="long"),
                   E(RuntimeError, "view_as_complex is only supported for half, float and double tensors, but got a "
                     "tensor of scalar type: BFloat16", f32(2), fn=_vac(lambda T, x: x.to(T.bfloat16)),
                     desc="bfloat16"),
                   E(RuntimeError, "Input tensor must have one or more dimensions", np.array(1.0, np.float32),
                     desc="0-d")]),
    OpCase("view_as_complex_then_real", lambda T, x: T.view_as_real(T.view_as_complex(x).exp()),
           [Sample([arr(4, 2, seed=1)])], covers=("view_as_complex", "view_as_real", "exp"),
           complex=False, low_precision=False, xfail=EMPTY_VAC,
           noncontig="refused"),
]
