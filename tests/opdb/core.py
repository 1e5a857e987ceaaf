"""Table entries for ops/core.py (reductions that undo broadcasting, casts, reshapes, matmul)."""
import numpy as np

from . import OpCase, Sample, arr

A = arr(2, 3, 4, seed=1)

CASES = [
    OpCase("sum", lambda T, x: T.sum(x), [Sample([A]), Sample([A[0, 0, 0].reshape(())], desc="0-d")]),
    OpCase("sum_dim", lambda T, x: x.sum(dim=1), [Sample([A])], covers=("sum",)),
    OpCase("sum_dims_keepdim", lambda T, x: x.sum((0, -1), keepdim=True), [Sample([A])], covers=("sum",)),
    OpCase("mean", lambda T, x: T.mean(x), [Sample([A])]),
    OpCase("mean_dim", lambda T, x: x.mean(-1, keepdim=True) + x.mean((0, 1)).sum(), [Sample([A])],
           covers=("mean", "sum")),
    OpCase("sum_to_size", lambda T, x: x.sum_to_size(3, 1), [Sample([A])]),
    OpCase("expand", lambda T, x: x.expand(2, 3, 4) * 1.5, [Sample([arr(3, 1, seed=2)])],
           covers=("expand", "mul")),
    OpCase("expand_new_dims", lambda T, x: x.expand(5, -1, 4), [Sample([arr(3, 1, seed=2)])], covers=("expand",)),
    OpCase("reshape", lambda T, x: x.reshape(4, -1), [Sample([A])], covers=("view",)),
    OpCase("view", lambda T, x: x.view(6, 4), [Sample([A])]),
    OpCase("flatten", lambda T, x: (T.flatten(x), x.flatten(1)), [Sample([A])]),
    OpCase("transpose", lambda T, x: x.transpose(0, 2), [Sample([A])]),
    OpCase("permute", lambda T, x: x.permute(2, 0, 1), [Sample([A])]),
    OpCase("t", lambda T, x: x.t(), [Sample([arr(3, 4, seed=3)])]),
    OpCase("T_mT", lambda T, x: (x.mT, x.T if x.dim() == 2 else x), [Sample([arr(3, 4, seed=3)])],
           covers=("transpose", "permute")),
    OpCase("unsqueeze", lambda T, x: x.unsqueeze(1).unsqueeze(-1), [Sample([A])]),
    OpCase("squeeze", lambda T, x: (x.squeeze(), x.squeeze(0), x.squeeze(1)),
           [Sample([arr(1, 3, 1, seed=4)])]),
    OpCase("to_complex", lambda T, x: x.to(T.complex128) * (1 + 2j), [Sample([A])],
           covers=("_to_copy",), complex=False, preserves_dtype=False, low_precision=False),
    OpCase("clone", lambda T, x: x.clone(), [Sample([A])]),
    OpCase("real_imag", lambda T, x: (x.real, x.imag) if x.is_complex() else x.real,
           [Sample([A])], covers=("real", "imag")),
    OpCase("matmul_2d", lambda T, x, y: x @ y, [Sample([arr(3, 4, seed=1), arr(4, 5, seed=2)])],
           covers=("mm",)),             # 2-d @ is mm
    OpCase("matmul_batched", lambda T, x, y: T.matmul(x, y),
           [Sample([arr(2, 3, 4, seed=1), arr(4, 5, seed=2)], desc="broadcast batch"),
            Sample([arr(4, seed=1), arr(2, 4, 5, seed=2)], desc="1d-3d"),
            Sample([arr(2, 3, 4, seed=1), arr(4, seed=2)], desc="3d-1d"),
            Sample([arr(4, seed=1), arr(4, seed=2)], desc="dot")],
           covers=("matmul", "dot")),   # 1-d @ 1-d is dot
    OpCase("copy_", lambda T, x, y: (x * 1).copy_(y) * x, [Sample([arr(3, 4, seed=1), arr(4, seed=2)])],
           covers=("copy_from",)),
    OpCase("inplace_on_view", lambda T, x, w: _inplace_view(x, w),
           [Sample([arr(3, 4, seed=1), arr(2, 4, seed=2)])], covers=("copy_slices",)),
    OpCase("fill_", lambda T, x, v: (x * 1).fill_(v) * x, [Sample([arr(3, 4, seed=1), np.array(1.5)])],
           covers=("fill",)),
]


def _inplace_view(x, w):
    y = x * 1.5
    y[1:3].mul_(w)              # an in-place op on a view: the base's history is rebased
    y.t()[0].add_(1.0)          # a view of a view (a column), after the first rebase
    return y
