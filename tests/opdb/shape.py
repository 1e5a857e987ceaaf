"""Table entries for ops/shape.py (movedim, repeat, flip, roll, cat/stack, split, narrow,
diagonal, tril/triu)."""
import numpy as np

from . import OpCase, Sample, arr

A = arr(3, 4, seed=1)
B = arr(2, 3, 4, seed=2)
C = arr(3, 5, seed=3)
Z = np.array(0.7)


def _cat3(T, x, y):
    return T.cat([x, y, x], dim=-1), T.concat((x, y), -1), T.concatenate([y], 0)


CASES = [
    OpCase("movedim", lambda T, x: (T.movedim(x, 0, -1), x.movedim((0, 1), (2, 0)),
                                    T.moveaxis(x, -1, 0)),
           [Sample([B])], covers=("movedim",)),
    OpCase("movedim_2d", lambda T, x: (T.movedim(x, 1, 0), x.moveaxis(-1, -2), T.movedim(x, [0], [0])),
           [Sample([A])], covers=("movedim",)),
    OpCase("repeat", lambda T, x: (x.repeat(2, 1, 3), x.repeat(1, 2) if x.dim() < 3 else x),
           [Sample([A]), Sample([arr(3, seed=4)], desc="1-d"), Sample([Z], desc="0-d")]),
    OpCase("tile", lambda T, x: (T.tile(x, (2,)), x.tile((2, 1, 1))), [Sample([A]), Sample([Z], desc="0-d")],
           covers=("repeat",)),
    OpCase("flip", lambda T, x: (T.flip(x, (0, -1)), x.flip(1), T.flip(x, [])), [Sample([A]), Sample([B])]),
    OpCase("fliplr_flipud", lambda T, x: (T.fliplr(x), T.flipud(x)), [Sample([A]), Sample([B])],
           covers=("flip",)),
    OpCase("roll", lambda T, x: (T.roll(x, 1), T.roll(x, (1, -2), (0, -1)), x.roll(5, 1)),
           [Sample([A]), Sample([B])]),
    OpCase("cat", _cat3, [Sample([A, C]), Sample([B[:, :, :3], B], desc="3-d")]),
    OpCase("cat_dim0", lambda T, x, y: T.cat([x, y, x]), [Sample([A, arr(2, 4, seed=5)]),
                                                         Sample([arr(3, seed=1), arr(2, seed=2)], desc="1-d")],
           covers=("cat",)),
    OpCase("stack", lambda T, x, y: (T.stack([x, y]), T.stack((x, y, x), -1), T.stack([y], -1)),
           [Sample([A, arr(3, 4, seed=6)]), Sample([Z, np.array(-1.3)], desc="0-d")]),
    OpCase("hstack_vstack", lambda T, x, y: (T.hstack([x, y]), T.vstack((x, y)), T.dstack([x, y])),
           [Sample([A, arr(3, 4, seed=6)]), Sample([arr(4, seed=1), arr(4, seed=2)], desc="1-d")],
           covers=("cat",)),
    OpCase("split", lambda T, x: x.split(2, 1) + T.split(x, 1, -2) + T.split(x, 4, 1),
           [Sample([A]), Sample([B])]),
    OpCase("split_with_sizes", lambda T, x: T.split(x, [1, 0, 3], 1) + x.split([2, 1], 0),
           [Sample([A]), Sample([arr(3, 4, 3, seed=8)], desc="3-d")]),
    OpCase("split_partial", lambda T, x: x.split(2, 1)[1] * 2, [Sample([A])], covers=("split",)),
    OpCase("chunk", lambda T, x: x.chunk(3, 1) + T.chunk(x, 2) + x.chunk(5, -1),
           [Sample([A])], covers=("split",)),
    OpCase("unbind", lambda T, x: x.unbind(1) + T.unbind(x, -1) + tuple(x),
           [Sample([A]), Sample([B])]),
    OpCase("unbind_partial", lambda T, x: x.unbind(0)[2] + 1, [Sample([A])], covers=("unbind",)),
    OpCase("narrow", lambda T, x: (x.narrow(1, 1, 2), T.narrow(x, -1, -3, 2), x.narrow(0, 0, 0)),
           [Sample([A]), Sample([B])], covers=("slice",)),
    OpCase("diagonal", lambda T, x: (T.diagonal(x), x.diagonal(1), x.diagonal(-1, -1, 0),
                                     x.diagonal(5)),
           [Sample([A]), Sample([B], desc="3-d")], covers=("diagonal", "diagonal_backward")),
    OpCase("diagonal_3d", lambda T, x: (x.diagonal(0, 0, 2), T.diagonal(x, 1, 2, 1)),
           [Sample([arr(3, 2, 4, seed=7)])], covers=("diagonal", "diagonal_backward")),
    OpCase("tril", lambda T, x: (T.tril(x), x.tril(1), x.tril(-2)), [Sample([A]), Sample([B])]),
    OpCase("triu", lambda T, x: (T.triu(x), x.triu(1), x.triu(-2)), [Sample([A]), Sample([B])]),
    OpCase("tril_triu_inplace", lambda T, x: ((x * 1).tril_(1), (x * 1).triu_()), [Sample([A])],
           covers=("tril", "triu", "mul")),
]
