"""Table entries for ops/fractional_pool.py: ``fractional_max_pool2d``/``3d``
(with given ``_random_samples``, so that the windows are PyTorch's) and their
backward ops, and ``max_unpool3d``."""
import numpy as np

from . import E, OpCase, Sample, arr, rng
from .nn_more import _pool_indices


def f32(*shape):
    return np.zeros(shape, np.float32)


def _F(T, name):
    return getattr(T.nn.functional, name)


def _frac(name):
    def fn(T, x, s, **kw):      # (the samples never require grad: the low-precision check sets it)
        return _F(T, name)(x, _random_samples=s.detach(), return_indices=True, **kw)
    return fn


def _samples(*shape, seed):
    return rng(seed).uniform(0.0, 1.0, shape)


X2 = arr(2, 3, 9, 8, seed=200)
S2 = _samples(2, 3, 2, seed=201)
X3 = arr(2, 2, 6, 5, 7, seed=202)
S3 = _samples(2, 2, 3, seed=203)
NAN2 = np.array([[[[1.0, np.nan, 4.0, 2.0], [np.nan, 3.0, 7.0, 7.0], [1.0, 1.0, 1.0, 2.0], [0.0, 0.0, 5.0, 5.0]],
                  [[-np.inf] * 4] * 4,
                  [[2.0, 2.0, 1.0, 1.0], [2.0, 2.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0], [3.0, 3.0, 3.0, 3.0]]]])

_F2 = "fractional_max_pool2d"
_F3 = "fractional_max_pool3d"

CASES = [
    OpCase("fractional_max_pool2d", _frac(_F2),
           [Sample([X2, S2], {"kernel_size": 2, "output_size": 4}, grad=[0]),
            Sample([X2, S2], {"kernel_size": (3, 2), "output_size": (5, 6)}, grad=[0], desc="rectangular"),
            Sample([X2, S2], {"kernel_size": 2, "output_ratio": (0.5, 0.7)}, grad=[0], desc="ratio"),
            Sample([X2, _samples(3, 3, 2, seed=204)], {"kernel_size": 2, "output_size": (8, 7)}, grad=[0],
                   desc="overlapping, more samples"),
            Sample([X2[0], S2[:1]], {"kernel_size": (2, 3), "output_size": (3, 5)}, grad=[0], desc="unbatched")],
           op=_F2, covers=(_F2, _F2 + "_backward"), complex=False,
           # (the windows are computed in the input's dtype, as PyTorch's are: bfloat16's
           # differ from float32's here, so the float32 result is no reference; half and
           # bfloat16 are compared with PyTorch's in tests/test_fractional_pool.py)
           low_precision=False,
           errors=[E(ValueError, "fractional_max_pool2d requires specifying either an output_size or an "
                     "output_ratio", f32(2, 3, 9, 8), f32(2, 3, 2), kernel_size=2, desc="no size"),
                   E(RuntimeError, "fractional_max_pool2d(): pool height 2 too large relative to input height 9",
                     f32(2, 3, 9, 8), f32(2, 3, 2), kernel_size=2, output_size=9, desc="too large"),
                   E(RuntimeError, "fractional_max_pool2d(): pool width 3 too large relative to input width 8",
                     f32(2, 3, 9, 8), f32(2, 3, 2), kernel_size=3, output_size=(7, 7), desc="too wide"),
                   E(RuntimeError, "fractional_max_pool2d: kernel_size must either be a single Int or tuple of "
                     "Ints", f32(2, 3, 9, 8), f32(2, 3, 2), kernel_size=(2, 2, 2), output_size=3, desc="kernel"),
                   E(RuntimeError, "fractional_max_pool2d(): Expected 3D or 4D tensor, but got: [9, 8]",
                     f32(9, 8), f32(2, 3, 2), kernel_size=2, output_size=3, desc="2-d"),
                   E(RuntimeError, "fractional_max_pool2d(): Expected input to have non-zero size for non-batch "
                     "dimensions, but got[2, 3, 0, 8] with dimension 2 being empty.", f32(2, 3, 0, 8),
                     f32(2, 3, 2), kernel_size=2, output_size=3, desc="empty"),
                   E(RuntimeError, "Trying to create tensor with negative dimension -1: [2, 3, -1, -1]",
                     f32(2, 3, 9, 8), f32(2, 3, 2), kernel_size=2, output_size=-1, desc="negative"),
                   E(RuntimeError, "Expect _random_samples to have the same dtype as input", f32(2, 3, 9, 8),
                     np.zeros((2, 3, 2)), kernel_size=2, output_size=3, desc="samples dtype"),
                   E(RuntimeError, "Expect _random_samples.size(0) no less then input batch size.",
                     f32(2, 3, 9, 8), f32(1, 3, 2), kernel_size=2, output_size=3, desc="samples batch"),
                   E(RuntimeError, "Expect _random_samples.size(1) equals to input channel size.",
                     f32(2, 3, 9, 8), f32(2, 2, 2), kernel_size=2, output_size=3, desc="samples channels"),
                   E(RuntimeError, "Expect _random_samples.size(2) equals to 2; got 3.", f32(2, 3, 9, 8),
                     f32(2, 3, 3), kernel_size=2, output_size=3, desc="samples size"),
                   E(RuntimeError, "Expect _random_samples to have 3 dimensions, got 2", f32(2, 3, 9, 8),
                     f32(3, 2), kernel_size=2, output_size=3, desc="samples rank"),
                   E(NotImplementedError, "\"fractional_max_pool2d_out_frame\" not implemented for 'Long'",
                     np.zeros((2, 3, 9, 8), np.int64), np.zeros((2, 3, 2), np.int64), kernel_size=2,
                     output_size=3, desc="long"),
                   E(TypeError, "fractional_max_pool2d(): argument 'kernel_size' (position 2) must be tuple of "
                     "ints, not float", f32(2, 3, 9, 8), f32(2, 3, 2), kernel_size=2.0, output_size=3,
                     desc="float kernel"),
                   E(TypeError, "fractional_max_pool2d(): argument 'output_size' failed to unpack the object at "
                     "pos 2 with error \"type must be tuple of ints,but got NoneType\"", f32(2, 3, 9, 8),
                     f32(2, 3, 2), kernel_size=2, output_size=(3, None), desc="None size"),
                   E(ValueError, "fractional_max_pool2d requires output_ratio to either be a single Int or tuple "
                     "of Ints.", f32(2, 3, 9, 8), f32(2, 3, 2), kernel_size=2, output_ratio=(0.5, 0.5, 0.5),
                     desc="ratio length")]),
    OpCase("fractional_max_pool2d_special", _frac(_F2),
           [Sample([NAN2, _samples(1, 3, 2, seed=205)], {"kernel_size": 2, "output_size": 3},
                   desc="nan inf ties")],
           op=_F2, covers=(_F2,), differentiable=False, complex=False),
    OpCase("fractional_max_pool3d", _frac(_F3),
           [Sample([X3, S3], {"kernel_size": 2, "output_size": 3}, grad=[0]),
            Sample([X3, S3], {"kernel_size": (2, 1, 3), "output_size": (4, 3, 2)}, grad=[0], desc="options"),
            Sample([X3, S3], {"kernel_size": 2, "output_ratio": 0.6}, grad=[0], desc="ratio"),
            Sample([X3[1], S3], {"kernel_size": (1, 2, 2), "output_size": (5, 3, 4)}, grad=[0], desc="unbatched")],
           op=_F3, covers=(_F3, _F3 + "_backward"), complex=False,
           errors=[E(RuntimeError, "fractional_max_pool3d_out(): pool time 2 too large relative to input time 6",
                     f32(2, 2, 6, 5, 7), f32(2, 2, 3), kernel_size=2, output_size=5, desc="too large"),
                   E(RuntimeError, "fractional_max_pool3d_out(): pool width 2 too large relative to input width 7",
                     f32(2, 2, 6, 5, 7), f32(2, 2, 3), kernel_size=2, output_size=(3, 4, 6), desc="too wide"),
                   E(RuntimeError, "fractional_max_pool3d: kernel_size must either be a single Int or tuple of "
                     "three Ints", f32(2, 2, 6, 5, 7), f32(2, 2, 3), kernel_size=(2, 2), output_size=3,
                     desc="kernel"),
                   E(RuntimeError, "fractional_max_pool3d: output_size must either be a single Int or tuple of "
                     "three Ints", f32(2, 2, 6, 5, 7), f32(2, 2, 3), kernel_size=2, output_size=(3, 3),
                     desc="size"),
                   E(RuntimeError, "fractional_max_pool3d_out(): Expected 4D or 5D tensor, but got: [6, 5, 7]",
                     f32(6, 5, 7), f32(2, 2, 3), kernel_size=2, output_size=2, desc="3-d"),
                   E(RuntimeError, "Expect _random_samples.size(2) equals to 3; got 2.", f32(2, 2, 6, 5, 7),
                     f32(2, 2, 2), kernel_size=2, output_size=2, desc="samples size"),
                   E(IndexError, "tuple index out of range", f32(2, 2, 6, 5, 7), f32(2, 2, 3), kernel_size=2,
                     output_ratio=(0.5, 0.5), desc="ratio length"),
                   E(NotImplementedError, "\"fractional_max_pool3d_out_frame\" not implemented for 'Long'",
                     np.zeros((2, 2, 6, 5, 7), np.int64), np.zeros((2, 2, 3), np.int64), kernel_size=2,
                     output_size=2, desc="long")]),
]

V3 = arr(2, 3, 2, 2, 3, seed=210)
VI3 = _pool_indices(2, 3, (2, 2, 3), (2, 2, 2), (4, 4, 6), seed=211)
VI3P = _pool_indices(2, 3, (2, 2, 3), (1, 2, 2), (3, 4, 6), seed=212)
I64 = np.zeros((2, 3, 2, 2, 3), np.int64)

CASES += [
    OpCase("max_unpool3d", lambda T, x, i, **kw: _F(T, "max_unpool3d")(x, i, **kw),
           [Sample([V3, VI3], {"kernel_size": 2}),
            Sample([V3, VI3], {"kernel_size": 2, "output_size": (5, 4, 7)}, desc="output size"),
            Sample([V3, VI3], {"kernel_size": 2, "stride": 2, "output_size": (2, 3, 4, 5, 6)},
                   desc="full output size"),
            Sample([V3, VI3P], {"kernel_size": (3, 2, 2), "stride": 2, "padding": (1, 0, 0)}, desc="padding"),
            Sample([V3[0], VI3[0]], {"kernel_size": (2, 2, 2)}, desc="unbatched")],
           covers=("max_unpool3d", "gather"), complex=False, zero_size=False, noncontig=False,
           errors=[E(RuntimeError, "Found an invalid max index: 96 (output volumes are of size 4x4x6)",
                     f32(1, 1, 1, 1, 1), np.array([[[[[96]]]]]), kernel_size=(4, 4, 6), desc="index"),
                   E(RuntimeError, "elements in indices should be type int64", f32(2, 3, 2, 2, 3),
                     f32(2, 3, 2, 2, 3), kernel_size=2, desc="float indices"),
                   E(RuntimeError, "Expected shape of indices to be same as that of the input tensor "
                     "([2, 3, 2, 2, 3]) but got indices tensor with shape: [3, 2, 2, 3]", f32(2, 3, 2, 2, 3),
                     I64[0], kernel_size=2, desc="shapes"),
                   E(RuntimeError, "Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with 3 "
                     "dimensions.", f32(3, 2, 2), I64[0, 0], kernel_size=2, desc="3-d"),
                   E(RuntimeError, "strides should be greater than zero, but got stride: [0, 0, 0]",
                     f32(2, 3, 2, 2, 3), I64, kernel_size=2, stride=0, desc="stride"),
                   E(RuntimeError, "max_unpooling3d_forward_out_cpu(): Expected input to have non-zero size for "
                     "non-batch dimensions, but got [2, 3, 0, 2, 3] with dimension 2 being empty.",
                     f32(2, 3, 0, 2, 3), I64[:, :, :0], kernel_size=2, desc="empty"),
                   E(ValueError, 'invalid output_size "(9, 4, 6)" (dim 0 must be between 2 and 6)',
                     f32(2, 3, 2, 2, 3), I64, kernel_size=2, output_size=(9, 4, 6), desc="output size"),
                   E(ValueError, "output_size should be a sequence containing 3 or 5 elements, but it has a "
                     "length of '2'", f32(2, 3, 2, 2, 3), I64, kernel_size=2, output_size=(4, 6),
                     desc="output size length"),
                   E(RuntimeError, "There should be exactly three elements (depth, height, width) in output_size, "
                     "but got 2 elements.", f32(2, 3, 2, 2, 3), I64, kernel_size=(2, 2), desc="kernel length"),
                   E(NotImplementedError, "\"max_unpool3d\" not implemented for 'Long'", I64, I64, kernel_size=2,
                     desc="long")]),
]
