"""Table entries for ops/conv.py, ops/pooling.py and ops/resample.py: convolutions,
unfold/fold, pooling, padding and interpolation.

The ``torch.nn.functional``-only functions (``avg_pool2d``, ``unfold``, ``pad``,
``interpolate``, ...) are called as ``T.nn.functional.<name>`` where ``T`` has
it, else (tensorplay before its ``nn.functional`` imports them) from the op
module that defines them.
"""
import warnings

import numpy as np

from . import E, OpCase, Sample, arr

X = arr(2, 4, 5, 6, seed=41)                # (N, C, H, W)
W = arr(6, 4, 3, 2, seed=42)                # (O, C, KH, KW)
B = arr(6, seed=43)
WG = arr(6, 2, 3, 3, seed=44)               # groups=2
X1 = arr(2, 4, 7, seed=45)                  # (N, C, L)
W1 = arr(3, 4, 3, seed=46)
B1 = arr(3, seed=47)
XT = arr(2, 4, 3, 4, seed=48)               # transposed conv input: 4 channels in
WT = arr(4, 3, 3, 2, seed=49)               # (C_in, C_out/groups, KH, KW)
WTG = arr(4, 2, 2, 3, seed=50)              # groups=2: 4 out channels
BT = arr(3, seed=51)
X3 = arr(2, 4, 4, 5, 4, seed=70)            # (N, C, D, H, W)
W3 = arr(3, 4, 2, 3, 2, seed=71)
B3 = arr(3, seed=74)
XT3 = arr(2, 4, 2, 3, 2, seed=75)           # transposed 3-d: 4 channels in
WT3 = arr(4, 3, 2, 2, 3, seed=76)
BT3 = arr(3, seed=78)
V = arr(2, 3, 5, 4, 5, seed=80)             # 3-d pooling input
P = arr(2, 3, 7, 6, seed=52)                # pooling input
P3 = arr(3, 5, 6, seed=53)                  # unbatched
P1 = arr(2, 3, 9, seed=54)


def f32(*shape):
    return np.zeros(shape, np.float32)


def f64(*shape):
    return np.zeros(shape, np.float64)


def _f(T, name):
    """``T.nn.functional.<name>``, or for a tensorplay without it yet, the op
    module's function."""
    fn = getattr(getattr(getattr(T, "nn", None), "functional", None), name, None)
    if fn is None:
        from tensorplay.ops import conv, pooling, resample
        for m in (conv, pooling, resample):
            fn = getattr(m, name, None)
            if fn is not None:
                break
    return fn


def F(name):
    """A row function calling the functional ``name`` on the sample's tensors."""
    def fn(T, *xs, **kw):
        return _f(T, name)(*xs, **kw)
    fn.__name__ = name
    return fn


def _pools_max(T, x, **kw):
    v, i = _f(T, "max_pool2d")(x, return_indices=True, **kw)
    return v, i


def _same_even(T, x, w):
    with warnings.catch_warnings():     # (PyTorch warns of the padded copy; test_conv.py checks it)
        warnings.simplefilter("ignore", UserWarning)
        return T.conv2d(x, w, padding="same")


CONV_COVERS = ("convolution", "convolution_backward_weight")
_TYPE_SIG = r"conv2d\(\) received an invalid combination of arguments - got \(Tensor, Tensor, stride=float\)"

CONV_ERRORS = [
    E(RuntimeError, "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [5, 6]",
      f32(5, 6), f32(6, 4, 3, 2), desc="2-d input"),
    E(RuntimeError, "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
      "[1, 2, 4, 5, 6]", f32(1, 2, 4, 5, 6), f32(6, 4, 3, 2), desc="5-d input"),
    E(RuntimeError, "Given groups=1, weight of size [6, 3, 3, 2], expected input[2, 4, 5, 6] to have 3 channels, "
      "but got 4 channels instead", f32(2, 4, 5, 6), f32(6, 3, 3, 2), desc="channels"),
    E(RuntimeError, "Calculated padded input size per channel: (5 x 6). Kernel size: (7 x 2). Kernel size can't "
      "be greater than actual input size", f32(2, 4, 5, 6), f32(6, 4, 7, 2), desc="kernel too big"),
    E(RuntimeError, "Calculated padded input size per channel: (5 x 6). Kernel size: (5 x 7). Kernel size can't "
      "be greater than actual input size", f32(2, 4, 5, 6), f32(6, 4, 3, 4), dilation=2, desc="dilated too big"),
    E(RuntimeError, "Given weight of size [6, 4, 3, 2], expected bias to be 1-dimensional with 6 elements, but "
      "got bias of size [4] instead", f32(2, 4, 5, 6), f32(6, 4, 3, 2), f32(4), desc="bias"),
    E(RuntimeError, "non-positive stride is not supported", f32(2, 4, 5, 6), f32(6, 4, 3, 2), stride=0,
      desc="stride"),
    E(RuntimeError, "negative padding is not supported", f32(2, 4, 5, 6), f32(6, 4, 3, 2), padding=-1,
      desc="padding"),
    E(RuntimeError, "non-positive dilation is not supported", f32(2, 4, 5, 6), f32(6, 4, 3, 2), dilation=0,
      desc="dilation"),
    E(RuntimeError, "non-positive groups is not supported", f32(2, 4, 5, 6), f32(6, 4, 3, 2), groups=0,
      desc="groups"),
    E(RuntimeError, "Given groups=4, expected weight to be divisible by 4 at dimension 0, but got weight of "
      "size [[6, 1, 3, 2]] instead", f32(2, 4, 5, 6), f32(6, 1, 3, 2), groups=4, desc="groups divide"),
    E(RuntimeError, "Given groups=1, expected weight to be at least 1 at dimension 0, but got weight of size "
      "[0, 4, 3, 2] instead", f32(2, 4, 5, 6), f32(0, 4, 3, 2), desc="no filters"),
    E(RuntimeError, "expected stride to be a single integer value or a list of 2 values to match the "
      "convolution dimensions, but got stride=[1, 1, 1]", f32(2, 4, 5, 6), f32(6, 4, 3, 2), stride=(1, 1, 1),
      desc="stride length"),
    E(RuntimeError, "padding='same' is not supported for strided convolutions", f32(2, 4, 5, 6),
      f32(6, 4, 3, 3), padding="same", stride=2, desc="same strided"),
    E(RuntimeError, "Invalid padding string: 'full'", f32(2, 4, 5, 6), f32(6, 4, 3, 2), padding="full",
      desc="padding string"),
    E(RuntimeError, "expected scalar type Double but found Float", f64(2, 4, 5, 6), f32(6, 4, 3, 2),
      desc="dtypes"),
    E(RuntimeError, "Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) should be the same or "
      "input should be a MKLDNN tensor and weight is a dense tensor", f32(2, 4, 5, 6), f64(6, 4, 3, 2),
      desc="dtypes float"),
    E(RuntimeError, "Input type (float) and bias type (double) should be the same", f32(2, 4, 5, 6),
      f32(6, 4, 3, 2), f64(6), desc="bias dtype"),
    E(NotImplementedError, "\"slow_conv2d_cpu\" not implemented for 'Bool'", np.zeros((2, 4, 5, 6), bool),
      np.zeros((6, 4, 3, 2), bool), desc="bool"),
    E(TypeError, _TYPE_SIG, f32(2, 4, 5, 6), f32(6, 4, 3, 2), stride=1.5, regex=True, desc="float stride"),
]

CONV_T_ERRORS = [
    E(RuntimeError, "Given transposed=1, weight of size [3, 3, 3, 2], expected input[2, 4, 3, 4] to have 3 "
      "channels, but got 4 channels instead", f32(2, 4, 3, 4), f32(3, 3, 3, 2), desc="channels"),
    E(RuntimeError, "output padding must be smaller than either stride or dilation, but got "
      "output_padding_height: 1 output_padding_width: 1 stride_height: 1 stride_width: 1 dilation_height: 1 "
      "dilation_width: 1", f32(2, 4, 3, 4), f32(4, 3, 3, 2), output_padding=1, desc="output padding"),
    E(RuntimeError, "negative output_padding is not supported", f32(2, 4, 3, 4), f32(4, 3, 3, 2), stride=2,
      output_padding=-1, desc="negative output padding"),
    E(RuntimeError, "Given input size per channel: (3 x 4). Calculated output size per channel: (-1 x -1). "
      "Output size is too small", f64(2, 4, 3, 4), f64(4, 3, 3, 2), padding=3, desc="output too small"),
    E(RuntimeError, "Given transposed=1, weight of size [4, 3, 3, 2], expected bias to be 1-dimensional with "
      "3 elements, but got bias of size [4] instead", f32(2, 4, 3, 4), f32(4, 3, 3, 2), f32(4), desc="bias"),
    E(RuntimeError, "Given groups=3, expected weight to be divisible by 3 at dimension 0, but got weight of "
      "size [[4, 3, 3, 2]] instead", f32(2, 4, 3, 4), f32(4, 3, 3, 2), groups=3, desc="groups"),
    E(TypeError, "conv_transpose2d(): argument 'padding' must be tuple of ints, not str", f32(2, 4, 3, 4),
      f32(4, 3, 3, 2), padding="same", desc="padding string"),
    E(RuntimeError, "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of size: "
      "[3, 4]", f32(3, 4), f32(4, 3, 3, 2), desc="2-d input"),
]

POOL_ERRORS = [
    E(RuntimeError, "Given input size: (3x7x6). Calculated output size: (3x0x0). Output size is too small",
      f32(2, 3, 7, 6), kernel_size=8, desc="kernel too big"),
    E(RuntimeError, "stride should not be zero", f32(2, 3, 7, 6), kernel_size=2, stride=0, desc="stride 0"),
    E(RuntimeError, "stride should be greater than zero, but got dH: -1 dW: -1", f32(2, 3, 7, 6),
      kernel_size=2, stride=-1, desc="stride negative"),
    E(RuntimeError, "kernel size should be greater than zero, but got kH: -1 kW: -1", f32(2, 3, 7, 6),
      kernel_size=-1, desc="kernel negative"),
    E(RuntimeError, "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and "
      "dilation=1", f32(2, 3, 7, 6), kernel_size=2, padding=2, desc="pad too big"),
    E(RuntimeError, "pad must be non-negative, but got pad: -1", f32(2, 3, 7, 6), kernel_size=2, padding=-1,
      desc="pad negative"),
    E(RuntimeError, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
      "[2, 0, 7, 6]", f32(2, 0, 7, 6), kernel_size=2, desc="no channels"),
]


def _pool_errors(name):
    return [E(e.exc_type, e.regex, *e.sample.arrays, regex=True, desc=e.sample.desc, **e.sample.kwargs)
            for e in POOL_ERRORS] + [
        E(RuntimeError, f"{name}: kernel_size must either be a single int, or a tuple of two ints",
          f32(2, 3, 7, 6), kernel_size=(2, 2, 2), desc="kernel length"),
        E(RuntimeError, f"{name}: stride must either be omitted, a single int, or a tuple of two ints",
          f32(2, 3, 7, 6), kernel_size=2, stride=(1, 2, 3), desc="stride length"),
        E(NotImplementedError, f"\"{name}\" not implemented for 'ComplexDouble'",
          np.zeros((2, 3, 7, 6), np.complex128), kernel_size=2, desc="complex"),
        E(NotImplementedError, f"\"{name}\" not implemented for 'Bool'", np.zeros((2, 3, 7, 6), bool),
          kernel_size=2, desc="bool")]


_PAD_SUPPORTED = ("Supported combinations for non-constant padding:\n"
                  "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                  "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                  "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
INTERP = arr(2, 3, 4, 5, seed=55)
PAD_X = arr(2, 3, 4, 5, seed=56)

CASES = [
    # ------------------------------------------------------------ convolutions
    OpCase("conv2d",
           samples=[Sample([X, W, B]), Sample([X, W], desc="no bias"),
                    Sample([X, W, B], {"stride": (2, 1), "padding": (1, 2), "dilation": (1, 2)}, desc="options"),
                    Sample([X, WG, B], {"groups": 2, "stride": 2, "padding": 1}, desc="groups"),
                    Sample([X, arr(8, 1, 2, 2, seed=57)], {"groups": 4}, desc="depthwise"),
                    Sample([X, arr(3, 4, 1, 1, seed=58)], desc="1x1"),
                    Sample([X, arr(3, 4, 3, 3, seed=59), arr(3, seed=60)], {"padding": "same"}, desc="same"),
                    Sample([X, W], {"padding": "valid"}, desc="valid"),
                    Sample([X[0], W, B], {"padding": 1}, desc="unbatched"),
                    Sample([X, W, B], {"padding": [1]}, desc="one-element list")],
           covers=CONV_COVERS + ("squeeze", "unsqueeze"), errors=CONV_ERRORS),
    OpCase("conv2d_same_even", _same_even,
           [Sample([X, W], desc="asymmetric")], covers=CONV_COVERS + ("constant_pad_nd",)),
    OpCase("conv1d",
           samples=[Sample([X1, W1, B1]), Sample([X1, W1], {"stride": 2, "padding": 2, "dilation": 2}, desc="options"),
                    Sample([X1, arr(4, 2, 2, seed=61)], {"groups": 2}, desc="groups"),
                    Sample([X1[0], W1, B1], desc="unbatched")],
           covers=CONV_COVERS + ("squeeze", "unsqueeze"),
           errors=[E(RuntimeError, "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of "
                     "size: [2, 4, 7, 1]", f32(2, 4, 7, 1), f32(3, 4, 3), desc="4-d input"),
                   E(RuntimeError, "Calculated padded input size per channel: (7). Kernel size: (9). Kernel size "
                     "can't be greater than actual input size", f32(2, 4, 7), f32(3, 4, 9), desc="kernel too big"),
                   E(RuntimeError, "expected padding to be a single integer value or a list of 1 values to match the "
                     "convolution dimensions, but got padding=[1, 2]", f32(2, 4, 7), f32(3, 4, 3), padding=(1, 2),
                     desc="padding length")]),
    OpCase("conv_transpose2d",
           samples=[Sample([XT, WT, BT]), Sample([XT, WT], desc="no bias"),
                    Sample([XT, WT, BT], {"stride": 2, "padding": 1, "output_padding": 1}, desc="output padding"),
                    Sample([XT, WTG], {"groups": 2, "stride": (1, 2), "dilation": (2, 1)}, desc="groups dilation"),
                    Sample([XT, WT], {"output_padding": (1, 0), "dilation": 2}, desc="output padding >= stride"),
                    Sample([XT[0], WT, BT], desc="unbatched")],
           covers=CONV_COVERS + ("squeeze", "unsqueeze", "slice"), errors=CONV_T_ERRORS),
    OpCase("conv_transpose1d",
           samples=[Sample([arr(2, 4, 5, seed=62), arr(4, 3, 3, seed=63), arr(3, seed=64)]),
                    Sample([arr(2, 4, 5, seed=62), arr(4, 3, 3, seed=63)], {"stride": 3, "output_padding": 2},
                           desc="stride")],
           covers=CONV_COVERS),
    OpCase("conv3d",
           samples=[Sample([X3, W3, B3]), Sample([X3, W3], desc="no bias"),
                    Sample([X3, W3, B3], {"stride": (2, 1, 2), "padding": (1, 0, 1), "dilation": (1, 2, 1)},
                           desc="options"),
                    Sample([X3, arr(4, 2, 2, 2, 2, seed=72)], {"groups": 2, "stride": 2}, desc="groups"),
                    Sample([X3, arr(2, 4, 3, 3, 3, seed=73)], {"padding": "same"}, desc="same"),
                    Sample([X3[0], W3, B3], {"padding": "valid"}, desc="unbatched")],
           covers=CONV_COVERS + ("squeeze", "unsqueeze"),
           errors=[E(RuntimeError, "Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of "
                     "size: [4, 3, 4]", f32(4, 3, 4), f32(3, 4, 2, 2, 2), desc="3-d input"),
                   E(RuntimeError, "Calculated padded input size per channel: (3 x 4 x 3). Kernel size: (4 x 2 x 2). "
                     "Kernel size can't be greater than actual input size", f32(1, 4, 3, 4, 3), f32(3, 4, 4, 2, 2),
                     desc="kernel too big"),
                   E(RuntimeError, "Given groups=1, weight of size [3, 2, 2, 2, 2], expected input[1, 4, 3, 4, 3] to "
                     "have 2 channels, but got 4 channels instead", f32(1, 4, 3, 4, 3), f32(3, 2, 2, 2, 2),
                     desc="channels"),
                   E(NotImplementedError, "\"compute_columns3d\" not implemented for 'Bool'",
                     np.zeros((1, 4, 3, 4, 3), bool), np.zeros((3, 4, 2, 2, 2), bool), desc="bool")]),
    OpCase("conv_transpose3d",
           samples=[Sample([XT3, WT3, BT3]), Sample([XT3, WT3], desc="no bias"),
                    Sample([XT3, WT3, BT3], {"stride": (2, 1, 3), "padding": 1, "output_padding": (1, 0, 2),
                                             "dilation": (1, 2, 1)}, desc="options"),
                    Sample([XT3, arr(4, 1, 2, 2, 2, seed=77)], {"groups": 2, "stride": 2}, desc="groups"),
                    Sample([XT3, WT3], {"output_padding": (1, 0, 0), "dilation": 2}, desc="output padding >= stride"),
                    Sample([XT3[0], WT3, BT3], desc="unbatched")],
           covers=CONV_COVERS + ("squeeze", "unsqueeze", "slice"),
           errors=[E(RuntimeError, "output padding must be smaller than either stride or dilation, but got "
                     "output_padding_depth: 1 output_padding_height: 1 output_padding_width: 1 stride_depth: 1 "
                     "stride_height: 1 stride_width: 1 dilation_depth: 1 dilation_height: 1 dilation_width: 1",
                     f32(1, 4, 2, 3, 2), f32(4, 3, 2, 2, 2), output_padding=1, desc="output padding"),
                   E(NotImplementedError, "\"slow_conv_transpose3d_out_cpu\" not implemented for 'Bool'",
                     np.zeros((1, 4, 2, 3, 2), bool), np.zeros((4, 3, 2, 2, 2), bool), desc="bool")]),
    OpCase("conv3d_grads", lambda T, x, w: T.func.grad(lambda a, b: T.conv3d(a, b, stride=2, padding=1).pow(2).sum(),
                                                       argnums=(0, 1))(x, w),
           [Sample([X3, W3])], covers=CONV_COVERS, gradgrad=False, low_precision=False, noncontig=False,
           zero_size=False, complex=False),
    OpCase("convolution", lambda T, x, w, b: T.convolution(x, w, b, [1, 2], [1, 0], [1, 1], False, [0, 0], 1),
           [Sample([X, W, B])], covers=CONV_COVERS, torch_complex=False,   # (torch's refuses complex; conv2d's not)
           errors=[E(RuntimeError, "Expected 4-dimensional input for 4-dimensional weight [6, 4, 3, 2], but got "
                     "3-dimensional input of size [4, 5, 6] instead", f32(4, 5, 6), f32(6, 4, 3, 2), f32(6),
                     desc="input rank"),
                   E(TypeError, "convolution(): argument 'stride' (position 4) must be tuple of ints, not int",
                     f32(2, 4, 5, 6), f32(6, 4, 3, 2), f32(6),
                     fn=lambda T, x, w, b: T.convolution(x, w, b, 1, [0, 0], [1, 1], False, [0, 0], 1),
                     desc="int stride")]),
    OpCase("convolution_transposed", lambda T, x, w: T.convolution(x, w, None, [2, 1], [0, 1], [1, 1], True,
                                                                   [1, 0], 1),
           [Sample([XT, WT])], covers=CONV_COVERS, torch_complex=False),
    # double backward: the gradients' own ops (transposed conv, weight gradient) differentiated
    # (through func.grad, so that the row also runs under vmap on inputs that do not require grad)
    OpCase("conv2d_grads", lambda T, x, w: T.func.grad(lambda a, b: T.conv2d(a, b, stride=2, padding=1).pow(2).sum(),
                                                       argnums=(0, 1))(x, w),
           [Sample([X, W])], covers=CONV_COVERS, gradgrad=False, low_precision=False, noncontig=False,
           zero_size=False, complex=False),
    # ------------------------------------------------------------ unfold / fold
    OpCase("unfold", F("unfold"),
           [Sample([P], {"kernel_size": 2}),
            Sample([P], {"kernel_size": (2, 3), "stride": 2, "padding": 1, "dilation": (1, 2)}, desc="options"),
            Sample([P3], {"kernel_size": 3}, desc="unbatched")],
           op="im2col", covers=("im2col", "col2im"),
           errors=[E(RuntimeError, "Given input with spatial size (7, 6), kernel_size=(8, 8), dilation=(1, 1), "
                     "padding=(0, 0), calculated shape of the array of sliding blocks as (0, -1), but its components "
                     "must be at least one.", f32(2, 3, 7, 6), kernel_size=8, desc="kernel too big"),
                   E(RuntimeError, "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 0",
                     f32(2, 3, 7, 6), kernel_size=0, desc="kernel 0"),
                   E(RuntimeError, "stride should be greater than zero, but got stride_height: 0 stride_width: 0",
                     f32(2, 3, 7, 6), kernel_size=2, stride=0, desc="stride 0"),
                   E(RuntimeError, "It is expected kernel_size equals to 2, but got size 3", f32(2, 3, 7, 6),
                     kernel_size=(2, 2, 2), desc="kernel length"),
                   E(NotImplementedError, "\"im2col_out_cpu\" not implemented for 'Long'",
                     np.zeros((2, 3, 7, 6), np.int64), kernel_size=2, desc="long")]),
    OpCase("fold", F("fold"),
           [Sample([arr(2, 12, 30, seed=65)], {"output_size": (7, 6), "kernel_size": 2}),
            Sample([arr(2, 18, 8, seed=66)], {"output_size": (7, 6), "kernel_size": (2, 3), "stride": 2,
                                               "padding": 1, "dilation": (1, 2)}, desc="options"),
            Sample([arr(12, 30, seed=67)], {"output_size": (7, 6), "kernel_size": 2}, desc="unbatched")],
           op="col2im", covers=("col2im", "im2col"),
           errors=[E(RuntimeError, "Expected size of input's dimension 1 to be divisible by the product of "
                     "kernel_size, but got input.size(1)=12 and kernel_size=(3, 3).", f32(2, 12, 30),
                     output_size=(7, 6), kernel_size=3, desc="channels"),
                   E(RuntimeError, "Given output_size=(5, 6), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), "
                     "stride=(1, 1), expected size of input's dimension 2 to match the calculated number of sliding "
                     "blocks 4 * 5 = 20, but got input.size(2)=30.", f32(2, 12, 30), output_size=(5, 6),
                     kernel_size=2, desc="blocks"),
                   E(RuntimeError, "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                     "non-zero dimensions for input, but got: [30]", f32(30), output_size=(7, 6), kernel_size=2,
                     desc="1-d")]),
    # ------------------------------------------------------------ pooling
    OpCase("max_pool2d", _pools_max,
           [Sample([P], {"kernel_size": 2}),
            Sample([P], {"kernel_size": 3, "stride": 2, "padding": 1}, desc="overlap padded"),
            Sample([P], {"kernel_size": (2, 3), "stride": 1, "dilation": (2, 1)}, desc="dilation"),
            Sample([P], {"kernel_size": 2, "ceil_mode": True}, desc="ceil"),
            Sample([P3], {"kernel_size": 2, "stride": 1}, desc="unbatched")],
           op="max_pool2d_with_indices", covers=("max_pool2d_with_indices", "max_pool2d_with_indices_backward"),
           complex=False, errors=_pool_errors("max_pool2d")),
    OpCase("max_pool2d_values", lambda T, x: T.max_pool2d(x, 3, 1, 1) * 2,
           [Sample([arr(2, 2, 4, 4, seed=68)])], covers=("max_pool2d_with_indices", "mul",
                                                           "max_pool2d_with_indices_backward"), complex=False),
    OpCase("max_pool2d_int", lambda T, x: _pools_max(T, x, kernel_size=2, padding=1),
           [Sample([np.arange(30, dtype=np.int64).reshape(1, 2, 3, 5) % 7])],
           covers=("max_pool2d_with_indices",), differentiable=False, complex=False),
    OpCase("max_pool2d_special", lambda T, x: _pools_max(T, x, kernel_size=2, stride=1, padding=1),
           [Sample([np.array([[[[1.0, np.nan, 4.0], [np.nan, 3.0, 7.0], [1.0, 1.0, 1.0]],
                                [[-np.inf] * 3] * 3,
                                [[2.0, 2.0, 1.0], [2.0, 2.0, 1.0], [0.0, 0.0, 0.0]]]])], desc="nan inf ties")],
           covers=("max_pool2d_with_indices",), differentiable=False, complex=False),
    OpCase("max_pool1d", lambda T, x, **kw: _f(T, "max_pool1d")(x, return_indices=True, **kw),
           [Sample([P1], {"kernel_size": 2}), Sample([P1], {"kernel_size": 3, "stride": 2, "padding": 1,
                                                            "dilation": 2}, desc="options"),
            Sample([P1[0]], {"kernel_size": 3, "ceil_mode": True}, desc="unbatched ceil")],
           op="max_pool2d_with_indices", covers=("max_pool2d_with_indices", "max_pool2d_with_indices_backward",
                                                 "squeeze", "unsqueeze"),
           complex=False,
           errors=[E(RuntimeError, "Given input size: (3x1x9). Calculated output size: (3x1x0). Output size is too "
                     "small", f32(2, 3, 9), kernel_size=10, desc="kernel too big"),
                   E(RuntimeError, "pad should be at most half of effective kernel size, but got pad=2, "
                     "kernel_size=2 and dilation=1", f32(2, 3, 9), kernel_size=2, padding=2, desc="pad"),
                   E(RuntimeError, "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 'self' "
                     "(while checking arguments for max_pool1d)", f32(2, 3, 9, 1), kernel_size=2, desc="4-d"),
                   E(RuntimeError, "max_pool1d() argument 'kernel_size' should contain one int (got 2)",
                     f32(2, 3, 9), kernel_size=(2, 2), desc="kernel length")]),
    # without indices, PyTorch's max_pool1d checks (and words) its arguments itself
    OpCase("max_pool1d_values", lambda T, x, **kw: T.max_pool1d(x, **kw),
           [Sample([P1], {"kernel_size": 3, "stride": 2, "padding": 1})],
           covers=("max_pool2d_with_indices", "max_pool2d_with_indices_backward", "squeeze", "unsqueeze"),
           complex=False,
           errors=[E(RuntimeError, "max_pool1d() Invalid computed output size: 0", f32(2, 3, 9), kernel_size=10,
                     desc="kernel too big"),
                   E(RuntimeError, "max_pool1d() padding should be at most half of kernel size, but got padding=2 "
                     "and kernel_size=2", f32(2, 3, 9), kernel_size=2, padding=2, desc="pad"),
                   E(RuntimeError, "max_pool1d() stride must be greater than zero, but got -1", f32(2, 3, 9),
                     kernel_size=2, stride=-1, desc="stride"),
                   E(RuntimeError, "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch "
                     "size for input, but got:[2, 3, 9, 1]", f32(2, 3, 9, 1), kernel_size=2, desc="4-d"),
                   E(NotImplementedError, "\"max_pool1d_impl\" not implemented for 'Long'",
                     np.zeros((2, 3, 9), np.int64), kernel_size=2, desc="long")]),
    OpCase("max_pool1d_with_indices", lambda T, x: T.max_pool1d_with_indices(x, 2)[0],
           [Sample([P1])], covers=("max_pool2d_with_indices", "max_pool2d_with_indices_backward", "squeeze",
                                   "unsqueeze"), complex=False),
    OpCase("avg_pool2d", F("avg_pool2d"),
           [Sample([P], {"kernel_size": 2}),
            Sample([P], {"kernel_size": 3, "stride": 2, "padding": 1}, desc="overlap padded"),
            Sample([P], {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False}, desc="exclude pad"),
            Sample([P], {"kernel_size": (3, 2), "stride": 2, "padding": 1, "ceil_mode": True}, desc="ceil"),
            Sample([P], {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
                   desc="ceil exclude"),
            Sample([P], {"kernel_size": 2, "divisor_override": 3}, desc="divisor"),
            Sample([P3], {"kernel_size": 2, "stride": 1}, desc="unbatched")],
           op="avg_pool2d", covers=("avg_pool2d", "avg_pool2d_backward"), complex=False,
           errors=_pool_errors("avg_pool2d")
           + [E(RuntimeError, "divisor must be not zero", f32(2, 3, 7, 6), kernel_size=2, divisor_override=0,
                desc="divisor 0")]),
    OpCase("avg_pool2d_int", lambda T, x: _f(T, "avg_pool2d")(x, 2, 1, 1),
           [Sample([np.arange(-8, 22, dtype=np.int64).reshape(1, 2, 3, 5)])],
           covers=("avg_pool2d",), differentiable=False, complex=False),
    OpCase("avg_pool1d", samples=[Sample([P1], {"kernel_size": 2}),
                                  Sample([P1[0]], {"kernel_size": 3, "stride": 2, "padding": 1,
                                                   "count_include_pad": False}, desc="unbatched")],
           op="avg_pool2d", covers=("avg_pool2d", "avg_pool2d_backward", "squeeze", "unsqueeze"), complex=False,
           errors=[E(RuntimeError, "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 "
                     "'self' (while checking arguments for avg_pool1d)", f32(2, 3, 9, 1), kernel_size=2,
                     desc="4-d"),
                   E(RuntimeError, "avg_pool1d() argument 'kernel_size' should contain one int (got 2)",
                     f32(2, 3, 9), kernel_size=(2, 2), desc="kernel length")]),
    OpCase("adaptive_avg_pool2d", F("adaptive_avg_pool2d"),
           [Sample([P], {"output_size": (3, 4)}), Sample([P], {"output_size": (7, 3)}, desc="divisible"),
            Sample([P], {"output_size": (9, 11)}, desc="larger"),
            Sample([P3], {"output_size": (2, None)}, desc="unbatched none")],
           op="adaptive_avg_pool2d", covers=("adaptive_avg_pool2d", "adaptive_avg_pool2d_backward"), complex=False,
           errors=[E(RuntimeError, "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 "
                     "but received {3, -1}", f32(2, 3, 7, 6), output_size=(3, -1), desc="negative"),
                   E(RuntimeError, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [7, 6]", f32(7, 6),
                     output_size=3, desc="2-d"),
                   E(RuntimeError, "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                     "dimensions, but input has sizes [2, 3, 0, 6] with dimension 2 being empty", f32(2, 3, 0, 6),
                     output_size=3, desc="empty"),
                   E(RuntimeError, "adaptive_avg_pool2d: output_size must be 2", f32(2, 3, 7, 6),
                     output_size=(1, 2, 3), desc="size length"),
                   E(NotImplementedError, "\"adaptive_avg_pool2d\" not implemented for 'Long'",
                     np.zeros((2, 3, 7, 6), np.int64), output_size=3, desc="long")]),
    OpCase("adaptive_avg_pool2d_global", lambda T, x: _f(T, "adaptive_avg_pool2d")(x, 1), [Sample([P])],
           covers=("mean",), complex=False),
    OpCase("adaptive_avg_pool1d", samples=[Sample([P1], {"output_size": 4}), Sample([P1[0]], {"output_size": 3},
                                                                                     desc="unbatched")],
           op="adaptive_avg_pool2d", covers=("adaptive_avg_pool2d", "adaptive_avg_pool2d_backward", "squeeze",
                                             "unsqueeze"), complex=False),
    OpCase("adaptive_max_pool2d", lambda T, x, **kw: _f(T, "adaptive_max_pool2d")(x, return_indices=True, **kw),
           [Sample([P], {"output_size": (3, 4)}), Sample([P], {"output_size": (7, 3)}, desc="divisible"),
            Sample([P], {"output_size": (9, 11)}, desc="larger"),
            Sample([P3], {"output_size": (2, None)}, desc="unbatched none")],
           op="adaptive_max_pool2d", covers=("adaptive_max_pool2d", "adaptive_max_pool2d_backward"),
           complex=False,
           errors=[E(RuntimeError, "Trying to create tensor with negative dimension -1: [2, 3, 3, -1]",
                     f32(2, 3, 7, 6), output_size=(3, -1), desc="negative"),
                   E(ValueError, "Input dimension should be at least 3", f32(7, 6), output_size=(2, 2),
                     desc="2-d"),
                   E(RuntimeError, "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [7, 6]", f32(7, 6),
                     output_size=3, desc="2-d int size"),
                   E(RuntimeError, "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
                     "dimensions, but input has sizes [2, 3, 0, 6] with dimension 2 being empty", f32(2, 3, 0, 6),
                     output_size=3, desc="empty"),
                   E(RuntimeError, "adaptive_max_pool2d(): internal error: output_size.size() must be 2",
                     f32(2, 3, 7, 6), output_size=(1, 2, 3), desc="size length"),
                   E(NotImplementedError, "\"adaptive_max_pool2d\" not implemented for 'Long'",
                     np.zeros((2, 3, 7, 6), np.int64), output_size=3, desc="long")]),
    OpCase("adaptive_max_pool2d_special", lambda T, x: _f(T, "adaptive_max_pool2d")(x, (2, 2), return_indices=True),
           [Sample([np.array([[[1.0, np.nan, 3.0, np.nan], [-np.inf] * 4, [1.0, 5.0, 5.0, 1.0],
                                [5.0, 2.0, 2.0, 2.0]]])], desc="nan inf ties")],
           covers=("adaptive_max_pool2d",), differentiable=False, complex=False),
    OpCase("adaptive_max_pool1d", lambda T, x, **kw: _f(T, "adaptive_max_pool1d")(x, return_indices=True, **kw),
           [Sample([P1], {"output_size": 4}), Sample([P1[0]], {"output_size": 3}, desc="unbatched")],
           op="adaptive_max_pool2d", covers=("adaptive_max_pool2d", "adaptive_max_pool2d_backward", "squeeze",
                                             "unsqueeze"), complex=False,
           errors=[E(RuntimeError, "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 "
                     "'self' (while checking arguments for adaptive_max_pool1d)", f32(2, 3, 9, 1), output_size=2,
                     desc="4-d"),
                   E(RuntimeError, "adaptive_max_pool1d() argument 'output_size' should contain one int (got 2)",
                     f32(2, 3, 9), output_size=(2, 2), desc="size length")]),
    # ------------------------------------------------------------ 3-d pooling
    OpCase("max_pool3d", lambda T, x, **kw: _f(T, "max_pool3d")(x, return_indices=True, **kw),
           [Sample([V], {"kernel_size": 2}),
            Sample([V], {"kernel_size": (3, 2, 3), "stride": (2, 1, 2), "padding": 1, "dilation": (1, 2, 1)},
                   desc="options"),
            Sample([V], {"kernel_size": 2, "ceil_mode": True}, desc="ceil"),
            Sample([V[0]], {"kernel_size": 2, "stride": 1}, desc="unbatched")],
           op="max_pool3d_with_indices", covers=("max_pool3d_with_indices", "max_pool3d_with_indices_backward"),
           complex=False,
           errors=[E(RuntimeError, "Given input size: (3x5x4x5). Calculated output size: (3x0x0x0). Output size is "
                     "too small", f32(2, 3, 5, 4, 5), kernel_size=6, desc="kernel too big"),
                   E(RuntimeError, "max_pool3d: kernel_size must either be a single int, or a tuple of three ints",
                     f32(2, 3, 5, 4, 5), kernel_size=(2, 2), desc="kernel length"),
                   E(RuntimeError, "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints",
                     f32(2, 3, 5, 4, 5), kernel_size=2, stride=(1, 2), desc="stride length"),
                   E(RuntimeError, "pad should be at most half of effective kernel size, but got pad=2, "
                     "kernel_size=2 and dilation=1", f32(2, 3, 5, 4, 5), kernel_size=2, padding=2, desc="pad"),
                   E(RuntimeError, "stride should not be zero", f32(2, 3, 5, 4, 5), kernel_size=2, stride=0,
                     desc="stride 0"),
                   E(RuntimeError, "dilation should be greater than zero, but got dilationT: 0 dilationH: 0 "
                     "dilationW: 0", f32(2, 3, 5, 4, 5), kernel_size=2, dilation=0, desc="dilation 0"),
                   E(RuntimeError, "non-empty 4D or 5D (batch mode) tensor expected for input", f32(3, 5, 4),
                     kernel_size=2, desc="3-d"),
                   E(RuntimeError, "max_pool3d_with_indices_out_cpu_template(): Expected input's non-batch dimensions "
                     "to have positive length, but input has a shape of [2, 3, 0, 4, 5] and non-batch dimension 0 "
                     "has length zero!", f32(2, 3, 0, 4, 5), kernel_size=2, desc="empty"),
                   E(NotImplementedError, "\"max_pool3d\" not implemented for 'Bool'", np.zeros((2, 3, 5, 4, 5), bool),
                     kernel_size=2, desc="bool")]),
    OpCase("max_pool3d_values", lambda T, x: T.max_pool3d(x, 3, 1, 1) * 2, [Sample([arr(1, 2, 3, 4, 3, seed=81)])],
           covers=("max_pool3d_with_indices", "mul", "max_pool3d_with_indices_backward"), complex=False),
    OpCase("max_pool3d_int", lambda T, x: _f(T, "max_pool3d")(x, 2, padding=1, return_indices=True),
           [Sample([np.arange(60, dtype=np.int64).reshape(1, 2, 3, 2, 5) % 7])],
           covers=("max_pool3d_with_indices",), differentiable=False, complex=False),
    OpCase("max_pool3d_special", lambda T, x: _f(T, "max_pool3d")(x, 2, stride=1, padding=1, return_indices=True),
           [Sample([np.array([[[[1.0, np.nan], [np.nan, 3.0]], [[1.0, 1.0], [2.0, 2.0]]],
                              [[[-np.inf] * 2] * 2] * 2,
                              [[[2.0, 2.0], [2.0, 1.0]], [[0.0, 2.0], [0.0, 0.0]]]])], desc="nan inf ties")],
           covers=("max_pool3d_with_indices",), differentiable=False, complex=False),
    OpCase("avg_pool3d", F("avg_pool3d"),
           [Sample([V], {"kernel_size": 2}),
            Sample([V], {"kernel_size": 3, "stride": 2, "padding": 1}, desc="overlap padded"),
            Sample([V], {"kernel_size": (3, 2, 3), "stride": (2, 1, 2), "padding": 1, "ceil_mode": True,
                         "count_include_pad": False}, desc="ceil exclude"),
            Sample([V], {"kernel_size": 2, "divisor_override": 3}, desc="divisor"),
            Sample([V[0]], {"kernel_size": 2, "stride": 1}, desc="unbatched")],
           op="avg_pool3d", covers=("avg_pool3d", "avg_pool3d_backward"), complex=False, low_precision=False,
           errors=[E(RuntimeError, "input image (T: 5 H: 4 W: 5) smaller than kernel size (kT: 6 kH: 6 kW: 6)",
                     f32(2, 3, 5, 4, 5), kernel_size=6, desc="kernel too big"),
                   E(RuntimeError, "avg_pool3d: kernel_size must be a single int, or a tuple of three ints",
                     f32(2, 3, 5, 4, 5), kernel_size=(2, 2), desc="kernel length"),
                   E(RuntimeError, "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints",
                     f32(2, 3, 5, 4, 5), kernel_size=2, stride=(1, 2), desc="stride length"),
                   E(RuntimeError, "divisor must be not zero", f32(2, 3, 5, 4, 5), kernel_size=2, divisor_override=0,
                     desc="divisor 0"),
                   E(RuntimeError, "non-empty 4D or 5D (batch mode) tensor expected for input", f32(3, 5, 4),
                     kernel_size=2, desc="3-d"),
                   E(RuntimeError, "avg_pool3d(): Expected input's non-batch dimensions to have positive length, but "
                     "input has a shape of [2, 3, 0, 4, 5] and non-batch dimension 0 has length zero!",
                     f32(2, 3, 0, 4, 5), kernel_size=2, desc="empty"),
                   E(NotImplementedError, "\"avg_pool3d_out_frame\" not implemented for 'Half'",
                     np.zeros((2, 3, 5, 4, 5), np.float16), kernel_size=2, desc="half"),
                   E(NotImplementedError, "\"avg_pool3d_out_frame\" not implemented for 'Int'",
                     np.zeros((2, 3, 5, 4, 5), np.int32), kernel_size=2, desc="int")]),
    OpCase("avg_pool3d_long", lambda T, x: _f(T, "avg_pool3d")(x, 2, padding=1),
           [Sample([np.arange(60, dtype=np.int64).reshape(1, 2, 3, 2, 5) % 7 - 3])],
           covers=("avg_pool3d",), differentiable=False, complex=False),
    OpCase("adaptive_avg_pool3d", F("adaptive_avg_pool3d"),
           [Sample([V], {"output_size": (3, 4, 2)}), Sample([V], {"output_size": (5, 2, 1)}, desc="divisible"),
            Sample([V], {"output_size": (7, 5, 6)}, desc="larger"),
            Sample([V[0]], {"output_size": (2, None, 3)}, desc="unbatched none")],
           op="adaptive_avg_pool3d", covers=("adaptive_avg_pool3d", "adaptive_avg_pool3d_backward"), complex=False,
           errors=[E(RuntimeError, "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 "
                     "but received {3, -1,2}", f32(2, 3, 5, 4, 5), output_size=(3, -1, 2), desc="negative"),
                   E(RuntimeError, "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [4, 5]", f32(4, 5),
                     output_size=3, desc="2-d"),
                   E(RuntimeError, "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch "
                     "dimensions, but input has sizes [2, 3, 0, 4, 5] with dimension 2 being empty",
                     f32(2, 3, 0, 4, 5), output_size=3, desc="empty"),
                   E(RuntimeError, "adaptive_avg_pool3d: output_size must be 3", f32(2, 3, 5, 4, 5),
                     output_size=(2, 2), desc="size length"),
                   E(NotImplementedError, "\"adaptive_avg_pool3d_cpu\" not implemented for 'Long'",
                     np.zeros((2, 3, 5, 4, 5), np.int64), output_size=2, desc="long")]),
    OpCase("adaptive_avg_pool3d_global", lambda T, x: _f(T, "adaptive_avg_pool3d")(x, 1), [Sample([V])],
           covers=("mean",), complex=False),
    OpCase("adaptive_max_pool3d", lambda T, x, **kw: _f(T, "adaptive_max_pool3d")(x, return_indices=True, **kw),
           [Sample([V], {"output_size": (3, 4, 2)}), Sample([V], {"output_size": (5, 2, 1)}, desc="divisible"),
            Sample([V], {"output_size": (7, 5, 6)}, desc="larger"),
            Sample([V[0]], {"output_size": (2, None, 3)}, desc="unbatched none")],
           op="adaptive_max_pool3d", covers=("adaptive_max_pool3d", "adaptive_max_pool3d_backward"),
           complex=False,
           errors=[E(RuntimeError, "Trying to create tensor with negative dimension -1: [2, 3, 3, -1, 2]",
                     f32(2, 3, 5, 4, 5), output_size=(3, -1, 2), desc="negative"),
                   E(ValueError, "Input dimension should be at least 4", f32(4, 5, 6), output_size=(2, 2, 2),
                     desc="3-d"),
                   E(RuntimeError, "adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: [4, 5]", f32(4, 5),
                     output_size=3, desc="2-d int size"),
                   E(RuntimeError, "adaptive_max_pool3d(): Expected input to have non-zero size for non-batch "
                     "dimensions, but input has sizes [2, 3, 0, 4, 5] with dimension 2 being empty",
                     f32(2, 3, 0, 4, 5), output_size=3, desc="empty"),
                   E(RuntimeError, "adaptive_max_pool3d(): internal error: output_size.size() must be 3",
                     f32(2, 3, 5, 4, 5), output_size=(2, 2), desc="size length"),
                   E(NotImplementedError, "\"adaptive_max_pool3d_cpu\" not implemented for 'Long'",
                     np.zeros((2, 3, 5, 4, 5), np.int64), output_size=2, desc="long")]),
    OpCase("adaptive_max_pool3d_special", lambda T, x: _f(T, "adaptive_max_pool3d")(x, (1, 2, 2),
                                                                                     return_indices=True),
           [Sample([np.array([[[[1.0, np.nan, 3.0], [-np.inf] * 3, [1.0, 5.0, 5.0]],
                               [[5.0, 2.0, np.nan], [2.0, 2.0, 2.0], [-np.inf] * 3]]])], desc="nan inf ties")],
           covers=("adaptive_max_pool3d",), differentiable=False, complex=False),
    # ------------------------------------------------------------ padding
    OpCase("pad_constant", F("pad"),
           [Sample([PAD_X], {"pad": (1, 2)}), Sample([PAD_X], {"pad": (1, 2, 0, 3), "value": 1.5}, desc="value"),
            Sample([PAD_X], {"pad": (-1, 2, 1, -2)}, desc="crop"),
            Sample([PAD_X], {"pad": (1, 1, 1, 1, 1, 1, 1, 1)}, desc="all dims")],
           op="constant_pad_nd",
           errors=[E(RuntimeError, "Padding length must be divisible by 2", f32(2, 3, 4, 5), pad=(1,), desc="odd"),
                   E(RuntimeError, "Padding length should be less than or equal to two times the input dimension but "
                     "got padding length 10 and input of dimension 4", f32(2, 3, 4, 5), pad=(1,) * 10,
                     desc="too long"),
                   E(NotImplementedError, "Unrecognised padding mode foo", f32(2, 3, 4, 5), pad=(1, 1), mode="foo",
                     desc="mode"),
                   E(TypeError, "pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                     "float at pos 0", f32(2, 3, 4, 5), pad=(1.5, 1), desc="float pad")]),
    OpCase("constant_pad_nd", lambda T, x: T.constant_pad_nd(x, [1, 1, 2, 0], 0.5), [Sample([PAD_X])]),
    *[OpCase(f"pad_{mode}", F("pad"),
             [Sample([PAD_X[0]], {"pad": (1, 2), "mode": mode}, desc="1-d"),
              Sample([PAD_X], {"pad": (2, 1, 3, 1), "mode": mode}, desc="2-d"),
              Sample([PAD_X], {"pad": (-1, 2, 1, -2), "mode": mode}, desc="crop"),
              Sample([PAD_X[0]], {"pad": (1, 1, 2, 2), "mode": mode}, desc="unbatched"),
              Sample([PAD_X[None]], {"pad": (1, 1, 1, 2, 1, 0), "mode": mode}, desc="3-d")],
             op=op, covers=(op, op + "_backward"), 
             errors=[E(NotImplementedError, f"Padding size 2 is not supported for 4D input tensor.\n{_PAD_SUPPORTED}",
                       f32(2, 3, 4, 5), pad=(1, 1), mode=mode, desc="size"),
                     E(RuntimeError, f"Padding mode \"{mode}\" doesn't take in value argument", f32(2, 3, 4, 5),
                       pad=(1, 1, 1, 1), mode=mode, value=1.0, desc="value")] + extra)
      for mode, op, extra in (
          ("reflect", "reflection_pad",
           [E(RuntimeError, "Argument #6: Padding size should be less than the corresponding input dimension, but got: "
              "padding (4, 1) at dimension 2 of input [2, 3, 4, 5]", f32(2, 3, 4, 5), pad=(1, 1, 4, 1),
              mode="reflect", desc="too big"),
            E(RuntimeError, "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
              "dimensions for input, but got: [2, 0, 4, 5]", f32(2, 0, 4, 5), pad=(1, 1, 1, 1), mode="reflect",
              desc="empty")]),
          ("replicate", "replication_pad", []),
          ("circular", "circular_pad",
           [E(RuntimeError, "Padding value causes wrapping around more than once.", f32(2, 3, 4, 5),
              pad=(6, 1, 1, 1), mode="circular", desc="wraps twice")]))],
    # ------------------------------------------------------------ interpolation
    OpCase("interpolate_nearest", F("interpolate"),
           [Sample([INTERP], {"scale_factor": 2}), Sample([INTERP], {"scale_factor": 1.7}, desc="fraction"),
            Sample([INTERP], {"size": (3, 7)}, desc="size"),
            Sample([INTERP], {"scale_factor": 1.7, "recompute_scale_factor": True}, desc="recompute"),
            Sample([INTERP[0]], {"scale_factor": 0.6}, desc="1-d"),
            Sample([INTERP[None]], {"size": (2, 3, 4)}, desc="3-d")],
           op="upsample_nearest", covers=("upsample_nearest", "upsample_nearest_backward"), complex=False,
           errors=[E(ValueError, "align_corners option can only be set with the interpolating modes: linear | "
                     "bilinear | bicubic | trilinear", f32(2, 3, 4, 5), scale_factor=2, align_corners=True,
                     desc="align corners"),
                   E(ValueError, "only one of size or scale_factor should be defined", f32(2, 3, 4, 5), size=3,
                     scale_factor=2, desc="both"),
                   E(ValueError, "either size or scale_factor should be defined", f32(2, 3, 4, 5), desc="neither"),
                   E(RuntimeError, "Input and output sizes should be greater than 0, but got input (H: 4, W: 5) "
                     "output (H: 0, W: 0)", f32(2, 3, 4, 5), scale_factor=0.1, desc="empty output"),
                   E(NotImplementedError, r"not implemented for 'Long'$", np.zeros((2, 3, 4, 5), np.int64),
                     scale_factor=2, regex=True, desc="long"),
                   E(NotImplementedError, "Got 4D input, but linear mode needs 3D input", f32(2, 3, 4, 5),
                     scale_factor=2, mode="linear", desc="linear rank"),
                   E(ValueError, r"^Input and output must have the same number of spatial dimensions, but got input "
                     r"with spatial dimensions of \[4, 5\] and output size of \(3, 4, 5\)", f32(2, 3, 4, 5),
                     size=(3, 4, 5), regex=True, desc="size length")]),
    OpCase("interpolate_nearest_exact", lambda T, x, **kw: _f(T, "interpolate")(x, mode="nearest-exact", **kw),
           [Sample([INTERP], {"scale_factor": 1.7}), Sample([INTERP[0]], {"size": 3}, desc="1-d")],
           op="upsample_nearest_exact", covers=("upsample_nearest_exact", "upsample_nearest_exact_backward"),
           complex=False),
    OpCase("interpolate_linear", lambda T, x, **kw: _f(T, "interpolate")(x, **kw),
           [Sample([INTERP], {"scale_factor": 2, "mode": "bilinear"}),
            Sample([INTERP], {"size": (3, 7), "mode": "bilinear", "align_corners": True}, desc="align corners"),
            Sample([INTERP], {"scale_factor": 0.7, "mode": "bilinear"}, desc="down"),
            Sample([INTERP[0]], {"size": 9, "mode": "linear"}, desc="linear"),
            Sample([INTERP[None]], {"scale_factor": 1.5, "mode": "trilinear"}, desc="trilinear")],
           op="upsample_linear", covers=("upsample_linear", "upsample_linear_backward"), complex=False),
    OpCase("interpolate_bicubic", lambda T, x, **kw: _f(T, "interpolate")(x, mode="bicubic", **kw),
           [Sample([INTERP], {"scale_factor": 2}),
            Sample([INTERP], {"size": (3, 7), "align_corners": True}, desc="align corners"),
            Sample([INTERP], {"scale_factor": (0.7, 1.6)}, desc="down up"),
            Sample([INTERP], {"size": (1, 1)}, desc="one pixel")],
           op="upsample_bicubic2d", covers=("upsample_bicubic2d", "upsample_bicubic2d_backward"), complex=False,
           errors=[E(NotImplementedError, "Input Error: Only 3D, 4D and 5D input Tensors supported (got 3D) for the "
                     "modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact "
                     "(got bicubic)", f32(2, 4, 5), size=3, desc="3-d"),
                   E(NotImplementedError, "\"compute_indices_weights_cubic\" not implemented for 'Long'",
                     np.zeros((2, 3, 4, 5), np.int64), scale_factor=2, desc="long")]),
    OpCase("interpolate_area", lambda T, x: _f(T, "interpolate")(x, size=(3, 2), mode="area"), [Sample([INTERP])],
           covers=("adaptive_avg_pool2d", "adaptive_avg_pool2d_backward"), complex=False),
    OpCase("interpolate_area_3d", lambda T, x: _f(T, "interpolate")(x, size=(1, 3, 2), mode="area"),
           [Sample([INTERP[None]])],
           covers=("adaptive_avg_pool3d", "adaptive_avg_pool3d_backward"), complex=False),
    *[OpCase(f"interpolate_{mode}_aa",
             (lambda m: lambda T, x, **kw: _f(T, "interpolate")(x, mode=m, antialias=True, **kw))(mode),
             [Sample([INTERP], {"size": (2, 3)}, desc="down"),
              Sample([INTERP], {"scale_factor": (0.45, 1.6)}, desc="down up"),
              Sample([INTERP], {"scale_factor": 0.6, "recompute_scale_factor": True}, desc="recompute"),
              *([Sample([INTERP], {"size": (2, 9), "align_corners": True}, desc="align corners")]
                if mode != "lanczos" else [])],
             op=f"_upsample_{mode}2d_aa", covers=(f"_upsample_{mode}2d_aa", f"_upsample_{mode}2d_aa_backward"),
             complex=False, low_precision=False,
             errors=[E(ValueError, "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
                       "requires a 4-D tensor as input", f32(2, 4, 5), size=3, desc="3-d"),
                     E(NotImplementedError, "\"compute_index_ranges_weights\" not implemented for 'Half'",
                       f32(2, 3, 4, 5).astype(np.float16), size=3, desc="half")])
      for mode in ("bilinear", "bicubic", "lanczos")],
]
