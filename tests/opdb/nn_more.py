"""Table entries for ops/nn_more.py (``max_unpool2d``, ``channel_shuffle``) and
the ``nn.functional`` compositions added with them (``max_unpool1d``,
``lp_pool1d/2d/3d``, ``local_response_norm``,
``triplet_margin_with_distance_loss``)."""
import numpy as np

from . import E, OpCase, Sample, arr, pos


def f32(*shape):
    return np.zeros(shape, np.float32)


def _pool_indices(n, c, out, k, size, seed):
    """Flat indices a max pool with kernel = stride = ``k`` could give: one
    random position per window of an ``size`` plane."""
    g = np.random.default_rng(seed)
    nd = len(out)
    idx = np.zeros((n, c) + tuple(out), np.int64)
    strides = [int(np.prod(size[j + 1:])) for j in range(nd)]
    for j in range(nd):
        pos_j = np.arange(out[j]) * k[j]
        shape = [1] * (nd + 2)
        shape[2 + j] = out[j]
        off = g.integers(0, k[j], (n, c) + tuple(out))
        idx += (pos_j.reshape(shape) + off) * strides[j]
    return idx


def _F(T, name):
    return getattr(T.nn.functional, name)


U = arr(2, 3, 2, 3, seed=90)
UI = _pool_indices(2, 3, (2, 3), (2, 2), (4, 6), seed=91)
U1 = arr(2, 3, 4, seed=92)
UI1 = _pool_indices(2, 3, (4,), (2,), (8,), seed=93)
I64 = np.zeros((2, 3, 2, 3), np.int64)


def _cos_dist(T):
    return lambda a, b: 1.0 - _F(T, "cosine_similarity")(a, b)


CASES = [
    OpCase("max_unpool2d", lambda T, x, i, **kw: _F(T, "max_unpool2d")(x, i, **kw),
           [Sample([U, UI], {"kernel_size": 2}),
            Sample([U, UI], {"kernel_size": 2, "output_size": (5, 7)}, desc="output size"),
            Sample([U, UI], {"kernel_size": 2, "stride": 2, "output_size": (2, 3, 4, 7)}, desc="full output size"),
            Sample([U[0], UI[0]], {"kernel_size": (2, 2)}, desc="unbatched")],
           op="max_unpool2d", covers=("max_unpool2d", "gather"), complex=False, zero_size=False,
           noncontig=False,
           errors=[E(RuntimeError, "Found an invalid max index: 30 (output volumes are of size 4x6)", f32(1, 1, 1, 1),
                     np.array([[[[30]]]]), kernel_size=(4, 6), fn=lambda T, x, i, **kw: _F(T, "max_unpool2d")(
                         x, i, **kw), desc="index"),
                   E(RuntimeError, "elements in indices should be type int64 but got: Float", f32(2, 3, 2, 3),
                     f32(2, 3, 2, 3), kernel_size=2, desc="float indices"),
                   E(RuntimeError, "Expected shape of indices to be same as that of the input tensor ([2, 3, 2, 3]) "
                     "but got indices tensor with shape: [3, 2, 3]", f32(2, 3, 2, 3), I64[0], kernel_size=2,
                     desc="shapes"),
                   E(ValueError, 'invalid output_size "(9, 9)" (dim 0 must be between 2 and 6)', f32(2, 3, 2, 3),
                     I64, kernel_size=2, output_size=(9, 9), desc="output size"),
                   E(ValueError, "output_size should be a sequence containing 2 or 4 elements, but it has a length "
                     "of '3'", f32(2, 3, 2, 3), I64, kernel_size=2, output_size=(1, 4, 6), desc="output size length"),
                   E(NotImplementedError, "\"max_unpool2d\" not implemented for 'Long'", I64, I64, kernel_size=2,
                     desc="long")]),
    OpCase("max_unpool1d", lambda T, x, i, **kw: _F(T, "max_unpool1d")(x, i, **kw),
           [Sample([U1, UI1], {"kernel_size": 2}),
            Sample([U1, UI1], {"kernel_size": 2, "output_size": [9]}, desc="output size"),
            Sample([U1[0], UI1[0]], {"kernel_size": 2}, desc="unbatched")],
           op="max_unpool2d", covers=("max_unpool2d", "gather", "squeeze", "unsqueeze"), complex=False,
           zero_size=False, noncontig=False,
           errors=[E(RuntimeError, "Found an invalid max index: 5 (output volumes are of size 4x1)", f32(1, 1, 2),
                     np.array([[[1, 5]]]), kernel_size=2, desc="index"),
                   E(ValueError, 'invalid output_size "[10]" (dim 0 must be between 6 and 10)', f32(2, 3, 4),
                     UI1, kernel_size=2, output_size=[10], desc="output size")]),
    OpCase("channel_shuffle",
           samples=[Sample([arr(2, 6, 3, 2, seed=94)], {"groups": 3}), Sample([arr(2, 6, 4, seed=95)], {"groups": 2},
                                                                             desc="3-d"),
                    Sample([arr(1, 4, 2, 2, 2, seed=96)], {"groups": 4}, desc="5-d")],
           errors=[E(RuntimeError, "Number of channels must be divisible by groups. Got 6 channels and 4 groups.",
                     f32(2, 6, 3), groups=4, desc="divisible"),
                   E(RuntimeError, "channel_shuffle expects input with > 2 dims, but got input with sizes [6, 3]",
                     f32(6, 3), groups=2, desc="2-d"),
                   E(RuntimeError, "Number of groups to divide channels in must be positive. Value of groups:0",
                     f32(2, 6, 3), groups=0, desc="groups 0")]),
    OpCase("lp_pool2d", lambda T, x, **kw: _F(T, "lp_pool2d")(x, **kw),
           [Sample([pos(2, 3, 5, 6, seed=97)], {"norm_type": 2, "kernel_size": 2}),
            Sample([pos(2, 3, 5, 6, seed=97)], {"norm_type": 1.5, "kernel_size": (3, 2), "stride": (1, 2),
                                                "ceil_mode": True}, desc="options"),
            Sample([pos(3, 5, 6, seed=98)], {"norm_type": 3, "kernel_size": 2, "stride": 1}, desc="unbatched")],
           covers=("avg_pool2d", "pow", "sign", "abs", "relu", "mul"), complex=False),
    OpCase("lp_pool1d", lambda T, x, **kw: _F(T, "lp_pool1d")(x, **kw),
           [Sample([pos(2, 3, 7, seed=99)], {"norm_type": 2, "kernel_size": 3}),
            Sample([pos(2, 3, 7, seed=99)], {"norm_type": 1.5, "kernel_size": 2, "stride": 1, "ceil_mode": True},
                   desc="options")],
           covers=("avg_pool2d", "pow"), complex=False),
    OpCase("lp_pool3d", lambda T, x, **kw: _F(T, "lp_pool3d")(x, **kw),
           [Sample([pos(2, 2, 4, 3, 4, seed=100)], {"norm_type": 2, "kernel_size": 2}),
            Sample([pos(2, 2, 4, 3, 4, seed=100)], {"norm_type": 1.5, "kernel_size": (2, 1, 3), "stride": 1},
                   desc="options")],
           covers=("avg_pool3d", "pow"), complex=False, low_precision=False),
    OpCase("local_response_norm", lambda T, x, **kw: _F(T, "local_response_norm")(x, **kw),
           [Sample([arr(2, 5, 4, seed=101)], {"size": 3}),
            Sample([arr(2, 5, 4, seed=101)], {"size": 2, "alpha": 0.5, "beta": 0.6, "k": 2.0}, desc="even size")],
           covers=("avg_pool2d", "constant_pad_nd", "pow", "div"), complex=False,
           errors=[E(ValueError, "Expected 3D or higher dimensionality                          input (got 2 "
                     "dimensions)", f32(3, 4), size=2, desc="2-d")]),
    OpCase("local_response_norm_4d", lambda T, x, **kw: _F(T, "local_response_norm")(x, **kw),
           [Sample([arr(2, 5, 3, 4, seed=102)], {"size": 3, "alpha": 0.3}),
            Sample([arr(1, 4, 2, 3, 2, seed=103)], {"size": 4, "alpha": 0.3, "beta": 0.5, "k": 1.5}, desc="5-d")],
           covers=("avg_pool3d", "constant_pad_nd", "pow", "div"), complex=False, low_precision=False),
    OpCase("triplet_margin_with_distance_loss",
           lambda T, a, p, n, **kw: _F(T, "triplet_margin_with_distance_loss")(a, p, n, **kw),
           [Sample([arr(4, 5, seed=104), arr(4, 5, seed=105), arr(4, 5, seed=106)]),
            Sample([arr(4, 5, seed=104), arr(4, 5, seed=105), arr(4, 5, seed=106)],
                   {"margin": 0.5, "swap": True, "reduction": "none"}, desc="swap"),
            Sample([arr(5, seed=107), arr(5, seed=108), arr(5, seed=109)], {"reduction": "sum"}, desc="1-d")],
           covers=("linalg_vector_norm", "clamp", "minimum"), complex=False,
           errors=[E(ValueError, "margin must be greater than 0, got 0", f32(4, 5), f32(4, 5), f32(4, 5), margin=0,
                     desc="margin"),
                   E(ValueError, "foo is not a valid value for reduction", f32(4, 5), f32(4, 5), f32(4, 5),
                     reduction="foo", desc="reduction"),
                   E(RuntimeError, "The anchor, positive, and negative tensors are expected to have the same number "
                     "of dimensions, but got: anchor 2D, positive 1D, and negative 2D inputs", f32(4, 5), f32(5),
                     f32(4, 5), desc="ranks")]),
    OpCase("triplet_margin_with_distance_loss_cosine",
           lambda T, a, p, n: _F(T, "triplet_margin_with_distance_loss")(a, p, n, distance_function=_cos_dist(T),
                                                                          margin=0.3),
           [Sample([arr(4, 5, seed=110), arr(4, 5, seed=111), arr(4, 5, seed=112)])],
           covers=("clamp",), complex=False),
]

EW = arr(10, 3, seed=120)
EI = np.array([1, 2, 4, 5, 4, 3, 2, 9])
EO = np.array([0, 3, 3])


def _bag(T, w, i, o=None, **kw):
    return T.nn.functional.embedding_bag(i, w, o, **kw)


def _bag_psw(T, w, p, i, o, **kw):
    return T.nn.functional.embedding_bag(i, w, o, per_sample_weights=p, **kw)


_BAG_COVERS = ("embedding", "index_select", "index_add")
CASES += [
    OpCase("embedding_bag", _bag,
           [Sample([EW, EI, EO], {"mode": "sum"}, desc="sum"),
            Sample([EW, EI, EO], {"mode": "mean"}, desc="mean (an empty bag)"),
            Sample([EW, EI, EO], {"mode": "max"}, desc="max"),
            Sample([EW, EI, np.array([0, 3, 3, 8])], {"mode": "mean", "include_last_offset": True}, desc="last offset"),
            Sample([EW, EI, EO], {"mode": "sum", "padding_idx": 4}, desc="padding"),
            Sample([EW, EI, EO], {"mode": "max", "padding_idx": 2}, desc="max padding"),
            Sample([EW, EI.reshape(2, 4)], {"mode": "mean", "padding_idx": -1}, desc="2-d")],
           covers=_BAG_COVERS, complex=False, zero_size=False, low_precision=False,
           errors=[E(ValueError, "offsets has to be a 1D Tensor but got None", f32(10, 3), EI, desc="no offsets"),
                   E(ValueError, "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                     "fixed length sequences. However, found offsets of type <class 'torch.Tensor'>", f32(10, 3),
                     EI.reshape(2, 4), EO, desc="2-d offsets"),
                   E(ValueError, "input has to be 1D or 2D Tensor, but got Tensor of dimension 3", f32(10, 3),
                     EI.reshape(2, 2, 2), desc="3-d"),
                   E(ValueError, "mode has to be one of sum, mean or max", f32(10, 3), EI, EO, mode="foo",
                     desc="mode"),
                   E(ValueError, "max mode does not support scaling the gradient by the frequency", f32(10, 3), EI,
                     EO, mode="max", scale_grad_by_freq=True, desc="max freq"),
                   E(RuntimeError, "offsets[-1] can not be greater than input's length 8 but got offsets[-1] of 9",
                     f32(10, 3), EI, np.array([0, 9]), desc="offsets end"),
                   E(RuntimeError, "Index 3 of input takes value 10 which is not in the valid range [0, 10)",
                     f32(10, 3), EI + 5, EO, desc="index"),
                   E(RuntimeError, "padding_idx must be within the number of embeddings, -10 through 9, but got 11",
                     f32(10, 3), EI, EO, padding_idx=11, desc="padding_idx"),
                   E(RuntimeError, "Expected tensor for argument #1 'indices' to have one of the following scalar "
                     "types: Long, Int; but got torch.FloatTensor instead (while checking arguments for "
                     "embedding_bag)", f32(10, 3), f32(8), EO, desc="float indices")]),
    OpCase("embedding_bag_per_sample_weights", _bag_psw,
           [Sample([EW, arr(8, seed=121), EI, EO], {"mode": "sum"}),
            Sample([EW, arr(8, seed=121), EI, EO], {"mode": "sum", "padding_idx": 2}, desc="padding")],
           covers=_BAG_COVERS + ("mul",), complex=False, zero_size=False, low_precision=False,
           errors=[E(NotImplementedError, "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                     "supported for mode='sum' (got mode='mean'). Please open a feature request on GitHub.",
                     f32(10, 3), f32(8), EI, EO, mode="mean", desc="mode"),
                   E(ValueError, "embedding_bag: If per_sample_weights (torch.Size([7])) is not None, then it must "
                     "have the same shape as the input (torch.Size([8]))", f32(10, 3), f32(7), EI, EO, mode="sum",
                     desc="shape")]),
]

GX = arr(2, 3, 4, 5, seed=130)
GG = arr(2, 3, 6, 2, lo=-1.2, hi=1.2, seed=131)


def _gs(T, x, g, **kw):
    return T.nn.functional.grid_sample(x, g, **kw)


_GS_COVERS = ("gather", "floor", "mul")
CASES += [
    OpCase("grid_sample", _gs,
           [Sample([GX, GG], {"align_corners": False}),
            Sample([GX, GG], {"align_corners": True}, desc="corners"),
            Sample([GX, GG], {"padding_mode": "border", "align_corners": False}, desc="border"),
            Sample([GX, GG], {"padding_mode": "reflection", "align_corners": False}, desc="reflection"),
            Sample([GX, GG], {"padding_mode": "reflection", "align_corners": True}, desc="reflection corners")],
           covers=_GS_COVERS, complex=False, zero_size=False, low_precision=False,
           errors=[E(RuntimeError, "grid_sampler(): expected grid and input to have same batch size, but got input "
                     "with sizes [1, 3, 4, 5] and grid with sizes [2, 3, 6, 2]", f32(1, 3, 4, 5), f32(2, 3, 6, 2),
                     align_corners=False, desc="batch"),
                   E(RuntimeError, "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with "
                     "sizes [2, 3, 6, 1]", f32(2, 3, 4, 5), f32(2, 3, 6, 1), align_corners=False, desc="last dim"),
                   E(ValueError, "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
                     "'bicubic', but got: 'foo'", f32(2, 3, 4, 5), f32(2, 3, 6, 2), mode="foo", desc="mode"),
                   E(ValueError, "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                     "'reflection', but got: 'foo'", f32(2, 3, 4, 5), f32(2, 3, 6, 2), padding_mode="foo",
                     desc="padding mode")]),
    OpCase("grid_sample_nearest", _gs,
           [Sample([GX, GG], {"mode": "nearest", "align_corners": False}, grad=[0]),
            Sample([GX, GG], {"mode": "nearest", "padding_mode": "reflection", "align_corners": True}, grad=[0],
                   desc="reflection corners")],
           covers=("gather", "round"), complex=False, zero_size=False, low_precision=False),
    OpCase("affine_grid", lambda T, th, **kw: T.nn.functional.affine_grid(th, **kw),
           [Sample([arr(2, 2, 3, seed=132)], {"size": (2, 3, 4, 5), "align_corners": False}),
            Sample([arr(2, 2, 3, seed=132)], {"size": (2, 1, 2, 5), "align_corners": True}, desc="corners")],
           covers=("matmul",), complex=False, zero_size=False,
           errors=[E(ValueError, "Expected a batch of 2D affine matrices of shape Nx2x3 for size (2, 3, 4, 5). Got "
                     "torch.Size([2, 3, 3]).", f32(2, 3, 3), size=(2, 3, 4, 5), align_corners=False, desc="theta"),
                   E(NotImplementedError, "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine "
                     "transforms, respectively. Got size (2, 3, 5).", f32(2, 2, 3), size=(2, 3, 5),
                     align_corners=False, desc="size"),
                   E(ValueError, "Expected non-zero, positive output size. Got (2, 3, 0, 5)", f32(2, 2, 3),
                     size=(2, 3, 0, 5), align_corners=False, desc="zero size")]),
]
