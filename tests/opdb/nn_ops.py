"""Table entries for the ops of ops/nn_ops.py, spelled as ``nn.functional`` calls
(the same code calls torch.nn.functional as the oracle)."""
import numpy as np

from . import E, OpCase, Sample, arr, pos

X = arr(4, 3, seed=61)
W = arr(5, 3, seed=62)
B = arr(5, seed=63)
X3 = arr(2, 4, 3, seed=64)
V3 = arr(3, seed=65)

LOGITS = arr(5, 4, seed=66)
T5 = np.array([0, 3, 1, 2, 2])
T5_IGN = np.array([0, -100, 1, 3, -100])
T5_IGN1 = np.array([0, 1, 1, 3, 2])
CW = arr(4, lo=0.2, hi=1.5, seed=67)
LOGITS3 = arr(2, 4, 3, seed=68)
T23 = np.array([[0, 3, 1], [2, 2, 0]])
LOGITS1 = arr(4, seed=69)
T0 = np.array(2)

EMB = arr(6, 3, seed=70)
IDX = np.array([[0, 2, 5, 2], [1, 0, 0, 3]])
IDX1 = np.array([4, 4, 1])

P01 = arr(3, 4, lo=0.05, hi=0.95, seed=71)
Y01 = arr(3, 4, lo=0.0, hi=1.0, seed=72)
BW = arr(3, 4, lo=0.5, hi=2.0, seed=73)

NX = arr(4, 5, seed=74)
NW = arr(5, lo=0.5, hi=1.5, seed=75)
NB = arr(5, seed=76)
NX3 = arr(2, 3, 4, seed=77)
NW34 = arr(3, 4, lo=0.5, hi=1.5, seed=78)
NB34 = arr(3, 4, seed=79)
GX = arr(2, 6, 3, seed=80)
GW = arr(6, lo=0.5, hi=1.5, seed=81)
GB = arr(6, seed=82)
BX4 = arr(3, 2, 2, 2, seed=83)
BW2 = arr(2, lo=0.5, hi=1.5, seed=84)
BB2 = arr(2, seed=85)

AQ = arr(2, 3, 4, seed=88)
AK = arr(2, 5, 4, seed=89)
AV = arr(2, 5, 6, seed=90)
AB = arr(3, 5, seed=91)
ABOOL = np.array([[True, False, True, True, False], [False] * 5, [True] * 5])
A = arr(3, 5, seed=86)
A3 = arr(2, 3, 4, lo=-4, hi=4, seed=87)
Z34 = np.zeros((3, 4))


def _F(T):
    return T.nn.functional


def _linear(T, x, w, b=None):
    return _F(T).linear(x, w, b)


# (the class weights never require grad: PyTorch refuses that; the half/bfloat16
# check makes every floating input require grad, hence the detach)
def _ce(T, x, t, w=None, **kw):
    return _F(T).cross_entropy(x, t, weight=None if w is None else w.detach(), **kw)


def _nll(T, x, t, w=None, **kw):
    return _F(T).nll_loss(x, t, weight=None if w is None else w.detach(), **kw)


def _emb(T, w, idx, **kw):
    return _F(T).embedding(idx, w, **kw)


def _bce(T, x, y, w=None, **kw):
    return _F(T).binary_cross_entropy(x, y, weight=None if w is None else w.detach(), **kw)


def _layer_norm(T, x, w=None, b=None, shape=None, eps=1e-5):
    return _F(T).layer_norm(x, shape or tuple(x.shape[-1:]), w, b, eps)


def _softmax_bw(T, g, y):
    """The softmax vjp as an op of its own (of the probabilities softmax(y))."""
    from tensorplay.ops.nn_ops import softmax_backward
    return softmax_backward(g, y.softmax(-1))


def _norm_bw(T, g, xhat, rstd, dims=(1,)):
    from tensorplay.ops.nn_ops import normalize_backward
    return normalize_backward(g, xhat, rstd, dims)


def _norm_bw_ref(T, g, xhat, rstd, dims=(1,)):
    """The same in plain ops (the torch spelling of the row)."""
    m1 = g.mean(dims, keepdim=True)
    return rstd * (g - m1 - xhat * (g * xhat).mean(dims, keepdim=True))


def _aten_bw(T, name, g, x, *numbers):
    """An activation's backward op (its aten op in torch; leaky_relu_backward's
    ``self_is_result`` False)."""
    if T.__name__ == "tensorplay":
        return getattr(T.ops.nn_ops, name)(g, x, *numbers)
    extra = (False,) if name == "leaky_relu_backward" else ()
    return getattr(T.ops.aten, name)(g, x, *numbers, *extra)


def _act(name, **fixed):
    def f(T, x, **kw):
        return getattr(_F(T), name)(x, **fixed, **kw)
    f.__name__ = name
    return f


CASES = [
    OpCase("linear", _linear,
           [Sample([X, W, B]), Sample([X, W], desc="no bias"), Sample([X3, W, B], desc="3-d input"),
            Sample([V3, W, B], desc="1-d input")],
           op="linear",
           errors=[E(RuntimeError, "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x5)", X,
                     arr(5, 4)),
                   E(RuntimeError, "expected m1 and m2 to have the same dtype, but got: float != double",
                     X.astype(np.float32), W, desc="dtypes"),
                   E(RuntimeError, "mat1 and mat2 must have the same dtype, but got Float and Double",
                     X3.astype(np.float32), W, B, desc="3-d dtypes")]),
    # a real input with a complex weight is refused: real samples only
    OpCase("linear_weight_grad", _linear, [Sample([X, W, B], grad=[1, 2]), Sample([X3, W], grad=[1])],
           op="linear", complex=False),
    # the normalisation statistics (native_normalize) under each norm that uses them
    OpCase("layer_norm", _layer_norm,
           [Sample([NX, NW, NB]), Sample([NX], desc="no affine"),
            Sample([NX3, NW34, NB34], {"shape": (3, 4)}, desc="two dims"),
            Sample([NX, NW, NB], {"eps": 0.5}, desc="large eps")],
           op="native_normalize", complex=False,
           errors=[E(RuntimeError, "Given normalized_shape=[5], expected input with shape [*, 5], but "
                                   "got input of size[3, 4]", Z34, shape=(5,))]),
    OpCase("group_norm", lambda T, x, w=None, b=None, groups=3: _F(T).group_norm(x, groups, w, b),
           [Sample([GX, GW, GB]), Sample([GX], {"groups": 2}, desc="no affine"),
            Sample([GX, GW, GB], {"groups": 1}, desc="one group")],
           op="native_normalize", complex=False,
           errors=[E(RuntimeError, "Expected number of channels in input to be divisible by num_groups, "
                                   "but got input of shape [2, 6, 3] and num_groups=4", GX, groups=4)]),
    OpCase("batch_norm_train",
           lambda T, x, w=None, b=None: _F(T).batch_norm(x, None, None, w, b, training=True),
           [Sample([NX, NW, NB]), Sample([BX4, BW2, BB2], desc="4-d"), Sample([GX], desc="3-d")],
           op="native_normalize", complex=False,
           errors=[E(ValueError, r"^Expected more than 1 value per channel when training, got input "
                                 r"size (torch|tensorplay)\.Size\(\[1, 3\]\)$", np.ones((1, 3)),
                     regex=True)]),
    OpCase("instance_norm", lambda T, x: _F(T).instance_norm(x),
           [Sample([GX]), Sample([BX4], desc="4-d")], op="native_normalize", complex=False),
    OpCase("embedding", _emb, [Sample([EMB, IDX]), Sample([EMB, np.array(3)], desc="0-d index")],
           op="embedding", complex=False,
           errors=[E(IndexError, "index out of range in self", EMB, np.array([6])),
                   E(IndexError, "index out of range in self", EMB, np.array([-1]), desc="negative")]),
    OpCase("embedding_padding", _emb,
           [Sample([EMB, IDX], {"padding_idx": 0}, desc="padding_idx"),
            Sample([EMB, IDX1], {"padding_idx": -2, "scale_grad_by_freq": True}, desc="scaled")],
           op="embedding", complex=False, noncontig=False,   # (the plain row has the layout check)
           xfail={"gradcheck": "by definition (as in PyTorch) the padding row gets no gradient and "
                               "scale_grad_by_freq divides by the counts: not the forward's derivative"}),
    OpCase("cross_entropy", _ce,
           [Sample([LOGITS, T5]), Sample([LOGITS, T5, CW], grad=[0], desc="weight"),
            Sample([LOGITS, T5_IGN], {"reduction": "sum"}, desc="ignore sum"),
            Sample([LOGITS, T5_IGN, CW], {"reduction": "none"}, grad=[0], desc="ignore none"),
            Sample([LOGITS, T5_IGN1, CW], {"ignore_index": 1, "label_smoothing": 0.2}, grad=[0],
                   desc="smoothing weight ignore"),
            Sample([LOGITS, T5], {"label_smoothing": 0.3, "reduction": "none"}, desc="smoothing none"),
            Sample([LOGITS3, T23], desc="3-d"),
            Sample([LOGITS3, T23], {"label_smoothing": 0.1, "reduction": "none"}, desc="3-d smoothing"),
            Sample([LOGITS1, T0], desc="unbatched")],
           op="cross_entropy", complex=False,
           errors=[E(IndexError, "Target 4 is out of bounds.", LOGITS, np.array([0, 1, 4, 0, 0])),
                   E(ValueError, "Expected input batch_size (5) to match target batch_size (2).", LOGITS,
                     np.array([0, 1]), desc="batch"),
                   E(RuntimeError, "weight tensor should be defined either for all 4 classes or no "
                                   "classes but got weight tensor of shape: [3]", LOGITS, T5,
                     np.ones(3), desc="weight size"),
                   E(RuntimeError, "Expected target size [2, 3], got [2, 4]", LOGITS3,
                     np.zeros((2, 4), np.int64), desc="target size"),
                   E(RuntimeError, "label_smoothing must be between 0.0 and 1.0. Got: 1.5", LOGITS, T5,
                     label_smoothing=1.5, desc="smoothing")]),
    OpCase("nll_loss", _nll,
           [Sample([LOGITS, T5]), Sample([LOGITS, T5, CW], grad=[0], desc="weight"),
            Sample([LOGITS, T5_IGN, CW], {"reduction": "none"}, grad=[0], desc="ignore none"),
            Sample([LOGITS, T5_IGN], {"reduction": "sum"}, desc="ignore sum"),
            Sample([LOGITS3, T23], desc="3-d"), Sample([LOGITS1, T0], desc="unbatched")],
           op="nll_loss", complex=False,
           errors=[E(IndexError, "Target -3 is out of bounds.", LOGITS, np.array([0, 1, -3, 0, 0])),
                   E(RuntimeError, "expected target dtype to be Long or Byte, but got Float", LOGITS,
                     np.zeros(5, np.float32), desc="float target")]),
    OpCase("binary_cross_entropy", _bce,
           [Sample([P01, Y01]), Sample([P01, Y01], {"reduction": "none"}, desc="none"),
            Sample([P01, Y01, BW], {"reduction": "sum"}, grad=[0, 1], desc="weight"),
            Sample([P01, Y01], grad=[0], desc="input only")],
           op="binary_cross_entropy", complex=False,
           errors=[E(RuntimeError, "all elements of input should be between 0 and 1", P01 + 1, Y01),
                   E(RuntimeError, "all elements of target should be between 0 and 1", P01, Y01 + 1,
                     desc="target")]),
    OpCase("attention", lambda T, q, k, v, b=None, **kw: _F(T).scaled_dot_product_attention(q, k, v, b, **kw),
           [Sample([AQ, AK, AV]), Sample([AQ, AK, AV, AB], desc="float mask"),
            Sample([AQ, AK, AV], {"scale": 0.3}, desc="scale"),
            Sample([AQ, AK[:, :3], AV[:, :3]], {"is_causal": True}, desc="causal"),
            Sample([AQ, AK, AV, ABOOL], desc="bool mask, a dead row")],
           op="attention", complex=False,
           errors=[E(RuntimeError, "Expected attn_mask dtype to be bool or float or to match query dtype, "
                                   "but got attn_mask.dtype: long int and  query.dtype: double instead.",
                     AQ, AK, AV, np.zeros((3, 5), np.int64))]),
    OpCase("softmax_backward", lambda T, g, y: _softmax_bw(T, g, y),
           [Sample([AB, arr(3, 5, seed=92)]), Sample([AQ, arr(2, 3, 4, seed=93)], desc="3-d")],
           op="softmax_backward", complex=False,
           torch_fn=lambda T, g, y: T._softmax_backward_data(g, y.softmax(-1), -1, g.dtype)),
    OpCase("normalize_backward", _norm_bw,
           [Sample([NX, arr(4, 5, seed=94), pos(4, 1, seed=95)]),
            Sample([NX3, arr(2, 3, 4, seed=96), pos(2, 1, 1, seed=97)], {"dims": (1, 2)}, desc="two dims")],
           op="normalize_backward", complex=False, torch_fn=_norm_bw_ref),
    OpCase("leaky_relu", _act("leaky_relu"), [Sample([A]), Sample([A], {"negative_slope": 0.3},
                                                                  desc="slope")],
           op="leaky_relu", complex=False),
    OpCase("elu", _act("elu"), [Sample([A]), Sample([A], {"alpha": 0.4}, desc="alpha")],
           op="elu", complex=False),
    OpCase("selu", _act("selu"), [Sample([A])], op="elu", complex=False),
    OpCase("celu", _act("celu"), [Sample([A]), Sample([A], {"alpha": 2.0}, desc="alpha")],
           op="elu", complex=False),
    OpCase("hardtanh", _act("hardtanh"), [Sample([A]), Sample([A], {"min_val": -0.5, "max_val": 1.5},
                                                             desc="range")],
           op="hardtanh", complex=False),
    OpCase("relu6", lambda T, x: _F(T).relu6(x * 4), [Sample([A3])], op="hardtanh", complex=False),
    OpCase("threshold", lambda T, x, th=0.1, v=2.0: _F(T).threshold(x, th, v),
           [Sample([A]), Sample([A3], {"th": -1.0, "v": -3.0}, desc="negative")],
           op="threshold", complex=False),
    OpCase("hardshrink", _act("hardshrink"), [Sample([A]), Sample([A3], {"lambd": 1.5}, desc="lambd")],
           op="hardshrink", complex=False),
    OpCase("hardshrink_method", lambda T, x: x.hardshrink(0.3), [Sample([A])], op="hardshrink",
           complex=False),
    OpCase("softshrink", _act("softshrink"), [Sample([A]), Sample([A3], {"lambd": 1.5}, desc="lambd")],
           op="softshrink", complex=False),
    # the backward kernels of the piecewise-linear activations: ops of their own, linear in
    # the gradient and "zero" in the input (torch: the aten ops of the same names)
    OpCase("leaky_relu_backward", lambda T, g, x: _aten_bw(T, "leaky_relu_backward", g, x, 0.2),
           [Sample([A, arr(3, 5, seed=301)])], op="leaky_relu_backward",
           complex=False),
    OpCase("hardtanh_backward", lambda T, g, x: _aten_bw(T, "hardtanh_backward", g, x, -0.5, 0.5),
           [Sample([A, arr(3, 5, seed=302)])], op="hardtanh_backward", complex=False),
    OpCase("threshold_backward", lambda T, g, x: _aten_bw(T, "threshold_backward", g, x, 0.1),
           [Sample([A, arr(3, 5, seed=303)])], op="threshold_backward", complex=False),
    OpCase("hardshrink_backward", lambda T, g, x: _aten_bw(T, "hardshrink_backward", g, x, 0.4),
           [Sample([A, arr(3, 5, seed=304)])], op="hardshrink_backward", complex=False),
    OpCase("softshrink_backward", lambda T, g, x: _aten_bw(T, "softshrink_backward", g, x, 0.4),
           [Sample([A, arr(3, 5, seed=305)])], op="softshrink_backward", complex=False),
    # a gradient kept in its input's graph (nll_loss's, reflection/replication padding's and
    # prelu's with create_graph; torch: the backward kernels that take the input)
    OpCase("_grad_link", lambda T, g, x: T.ops.nn_ops._grad_link(g, x),
           [Sample([A, arr(3, 5, seed=306)]), Sample([arr(5, seed=307), A], desc="broadcast")],
           torch_fn=lambda T, g, x: g + x * 0, op="_grad_link"),
    OpCase("_linked_input", lambda T, x: T.ops.nn_ops._linked_input(x), [Sample([A3])],
           torch_fn=lambda T, x: x.clone(), op="_linked_input"),
    # eval-mode batch_norm's: a gradient whose input edge gives no gradient (torch: undefined);
    # only the gradient is differentiated here
    OpCase("_grad_unlinked", lambda T, g, x: T.ops.nn_ops._grad_unlinked(g, x),
           [Sample([A, arr(3, 5, seed=308)], grad=[0])], torch_fn=lambda T, g, x: g + x.detach() * 0,
           op="_grad_unlinked"),
    OpCase("_unlinked_input", lambda T, x: T.ops.nn_ops._unlinked_input(x), [Sample([A3])],
           torch_fn=lambda T, x: x.clone(), op="_unlinked_input"),
    OpCase("hardswish", lambda T, x: _F(T).hardswish(x * 2), [Sample([A3])], op="hardswish",
           complex=False),
    OpCase("mish", _act("mish"), [Sample([A]), Sample([A3 * 5], desc="large")], op="mish",
           complex=False),
]
