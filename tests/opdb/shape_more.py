"""Table entries for ops/shape_more.py (diagonal/select/slice_scatter, masked_scatter, and the
composites diagflat, fill_diagonal_, hsplit/vsplit/dsplit, block_diag, vander)."""
import numpy as np

from . import E, OpCase, Sample, arr

A = arr(3, 4, seed=11)
B = arr(2, 3, 4, seed=12)
SQ = arr(3, 3, 3, seed=13)
V3 = arr(3, seed=14)
MASK = np.random.default_rng(15).random((3, 4)) > 0.5
SRC = arr(12, seed=16)


def _size(src, view):
    return (f"expected src to have a size equal to the slice of self. src size = {src}, "
            f"slice size = {view}")


def _vander(T, x, N=None, increasing=False):
    # torch.vander's own backward raises in PyTorch 2.x (an in-place cumprod on a view of its
    # result): the oracle is linalg.vander, flipped, which computes the same values
    import tensorplay
    if T is tensorplay:
        return T.vander(x, N, increasing)
    if (x.shape[0] if N is None else N) <= 1:     # (no columns past the first: no backward to mind)
        return T.vander(x, N, increasing)
    r = T.linalg.vander(x, N=N)
    return r if increasing else r.flip(-1)


def _fill_diag(T, x, wrap=False):
    return (x * 1).fill_diagonal_(2.5, wrap)


CASES = [
    OpCase("diagonal_scatter",
           samples=[Sample([A, arr(3, seed=1)]),
                    Sample([A, arr(2, seed=2)], {"offset": 2}, desc="offset"),
                    Sample([A, arr(2, seed=2)], {"offset": -1}, desc="negative offset"),
                    Sample([B, arr(4, 2, seed=3)], {"offset": 0, "dim1": 0, "dim2": 1}, desc="3-d"),
                    Sample([B, arr(3, 2, seed=4)], {"offset": -1, "dim1": -1, "dim2": 0}, desc="3-d dims")],
           errors=[E(RuntimeError, _size([2], [3]), A, np.ones(2), desc="size"),
                   E(RuntimeError, "diagonal dimensions cannot be identical 0, 0", A, np.ones(3), offset=0,
                     dim1=0, dim2=0, desc="same dims"),
                   E(IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)", A,
                     np.ones(3), offset=0, dim1=0, dim2=2, desc="dim range")]),
    # (PyTorch refuses to differentiate select_scatter and slice_scatter of complex tensors, and
    # so does tensorplay: see the error inputs)
    OpCase("select_scatter", args=("x", "src", "dim", "index"), complex=False,
           samples=[Sample([A, arr(3, seed=5)], {"dim": 1, "index": 0}),
                    Sample([A, arr(4, seed=5)], {"dim": 0, "index": -1}, desc="negative index"),
                    Sample([B, arr(2, 4, seed=6)], {"dim": -2, "index": 2}, desc="3-d")],
           errors=[E(IndexError, "select(): index 5 out of range for tensor of size [3, 4] at dimension 1",
                     A, np.ones(3), dim=1, index=5, desc="index"),
                   E(IndexError, "select(): index -4 out of range for tensor of size [3, 4] at dimension 0",
                     A, np.ones(4), dim=0, index=-4, desc="negative index"),
                   E(RuntimeError, _size([4], [3]), A, np.ones(4), dim=1, index=0, desc="size"),
                   E(RuntimeError, "select_scatter does not support automatic differentiation for outputs with "
                     "complex dtype.", A, np.ones(3), dim=1, index=0, desc="complex grad",
                     fn=lambda T, x, s, dim, index: T.select_scatter(x.to(T.complex128).requires_grad_(), s, dim,
                                                                     index))]),
    OpCase("slice_scatter", complex=False,
           samples=[Sample([A, arr(3, 4, seed=7)]),
                    Sample([A, arr(3, 2, seed=8)], {"dim": 1, "start": 0, "end": 4, "step": 2}, desc="step"),
                    Sample([A, arr(2, 4, seed=9)], {"dim": 0, "start": -2}, desc="negative start"),
                    Sample([B, arr(2, 3, 1, seed=10)], {"dim": -1, "start": 1, "end": 2}, desc="3-d")],
           errors=[E(RuntimeError, "slice step must be positive", A, np.ones((3, 2)), dim=1, start=0, end=4,
                     step=0, desc="step"),
                   E(RuntimeError, _size([3, 3], [3, 4]), A, np.ones((3, 3)), dim=1, desc="size")]),
    OpCase("masked_scatter", args=("x", "mask", "source"),
           samples=[Sample([A, MASK, SRC]),
                    Sample([A, MASK[0], SRC], desc="row mask"),
                    Sample([A[0], MASK, arr(3, 5, seed=17)], desc="broadcast x"),
                    Sample([B, MASK, arr(30, seed=18)], desc="3-d")],
           errors=[E(RuntimeError, "Number of elements of source < number of ones in mask", A,
                     np.ones((3, 4), bool), np.ones(5), desc="short source"),
                   E(RuntimeError, "masked_scatter_ only supports boolean masks, but got mask with dtype Int",
                     A, MASK.astype(np.int32), SRC, desc="int mask"),
                   E(RuntimeError, "masked_scatter: expected self and source to have same dtypes but got"
                     "Double and Float", A, MASK, SRC.astype(np.float32), desc="dtypes")]),
    OpCase("masked_scatter_inplace", lambda T, x, m, s: (x * 1).masked_scatter_(m, s),
           [Sample([A, MASK, SRC]), Sample([A, MASK[1], SRC], desc="row mask")],
           covers=("masked_scatter", "mul")),
    OpCase("diagflat", lambda T, x, offset=0: T.diagflat(x, offset),
           [Sample([V3]), Sample([A], {"offset": -1}, desc="2-d"), Sample([V3], {"offset": 2}, desc="offset")],
           covers=("diag_embed", "view")),
    OpCase("fill_diagonal_", _fill_diag,
           [Sample([A]), Sample([arr(7, 3, seed=19)], {"wrap": True}, desc="tall wrap"),
            Sample([arr(7, 3, seed=19)], desc="tall"), Sample([SQ], desc="3-d")],
           covers=("mul",),
           errors=[E(RuntimeError, "dimensions must larger than 1", V3, desc="1-d"),
                   E(RuntimeError, "all dimensions of input must be of equal length", B, desc="unequal")]),
    OpCase("hsplit", lambda T, x, s: T.hsplit(x, s),
           [Sample([A], {"s": 2}), Sample([A], {"s": [1, 3]}, desc="indices"), Sample([V3], {"s": 3}, desc="1-d")],
           covers=("slice",),
           errors=[E(RuntimeError, "torch.hsplit attempted to split along dimension 1, but the size of the "
                     "dimension 4 is not divisible by the split_size 3!", A, s=3, desc="indivisible"),
                   E(RuntimeError, "torch.hsplit requires a tensor with at least 1 dimension, but got a tensor "
                     "with 0 dimensions!", np.array(1.0), s=1, desc="0-d")]),
    OpCase("vsplit", lambda T, x, s: (*T.vsplit(x, s), *x.vsplit(s)),
           [Sample([A], {"s": 3}), Sample([B], {"s": (1,)}, desc="indices")],
           covers=("slice",),
           errors=[E(RuntimeError, "torch.vsplit requires a tensor with at least 2 dimension, but got a tensor "
                     "with 1 dimensions!", V3, s=3, desc="1-d"),
                   E(RuntimeError, "torch.vsplit attempted to split along dimension 0, but the size of the "
                     "dimension 3 is not divisible by the split_size 2!", A, s=2, desc="indivisible")]),
    OpCase("dsplit", lambda T, x, s: (*T.dsplit(x, s), *x.dsplit(s)),
           [Sample([B], {"s": 2}), Sample([B], {"s": [1, 2]}, desc="indices")],
           covers=("slice",),
           errors=[E(RuntimeError, "torch.dsplit requires a tensor with at least 3 dimension, but got a tensor "
                     "with 2 dimensions!", A, s=2, desc="2-d")]),
    OpCase("block_diag", lambda T, x, y, z: T.block_diag(x, y, z),
           [Sample([A, V3, np.array(0.5)]), Sample([V3, A, arr(2, 2, seed=20)], desc="matrices")],
           covers=("cat",),
           errors=[E(RuntimeError, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 1 "
                     "has 3 dimensions", A, B, V3, desc="3-d")]),
    OpCase("vander", _vander,
           [Sample([V3]), Sample([V3], {"N": 5}, desc="N"), Sample([V3], {"N": 4, "increasing": True},
                                                                   desc="increasing")],
           covers=("cumprod", "cat", "flip"),
           errors=[E(RuntimeError, "x must be a one-dimensional tensor.", A, desc="2-d", fn=lambda T, x: T.vander(x)),
                   E(RuntimeError, "N must be non-negative.", V3, N=-1, desc="negative N",
                     fn=lambda T, x, N: T.vander(x, N))]),
    OpCase("linalg_vander", lambda T, x, N=None: T.linalg.vander(x, N=N),
           [Sample([V3]), Sample([A], {"N": 3}, desc="batch")],
           covers=("cumprod", "cat"),
           errors=[E(RuntimeError, "N must be greater than 1.", V3, N=1, desc="N")]),
    OpCase("multiply", lambda T, x, y: (T.multiply(x, y), x.multiply(2.5), (x * 1).multiply_(y)),
           [Sample([A, arr(4, seed=21)])], covers=("mul",)),
    OpCase("adjoint", lambda T, x: (x.adjoint(), T.adjoint(x)), [Sample([A]), Sample([B], desc="3-d")],
           covers=("transpose",),
           torch_fn=lambda T, x: (x.adjoint().resolve_conj(), T.adjoint(x).resolve_conj()),   # (conj bit)
           errors=[E(RuntimeError, "tensor.adjoint() is only supported on matrices or batches of matrices. "
                     "Got 1-D tensor.", V3, desc="1-d")]),
]
