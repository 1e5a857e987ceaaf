"""Table entries for ops/strided.py (as_strided) and ops/scatter_reduce.py
(scatter_reduce, index_reduce)."""
import numpy as np

from . import E, OpCase, Sample, arr

X6 = arr(6, seed=1)
A = arr(3, 4, seed=1)
SRC = arr(2, 4, seed=5)
SRC3 = arr(3, 2, seed=6)
I = np.array([[0, 2, 2, 1], [2, 0, 2, 1]])          # rows of A that each SRC element lands in
II = np.array([[1, 1], [3, 0], [3, 3]])             # along dim 1 (index smaller than src)

# as_strided reads the input's storage: another layout (or an empty one) gives other values,
# so the generated non-contiguous and zero-size samples do not apply


def _sr(reduce):
    return OpCase(f"scatter_reduce_{reduce}", func="scatter_reduce", op="scatter_reduce",
                  args=("x", "dim", "index", "src", "reduce"),
                  samples=[Sample([A, I, SRC], {"dim": 0, "reduce": reduce}),
                           Sample([A, I, SRC], {"dim": 0, "reduce": reduce, "include_self": False},
                                  desc="without self"),
                           Sample([A, II, SRC3], {"dim": 1, "reduce": reduce}, desc="dim 1"),
                           Sample([A, II, SRC3], {"dim": -1, "reduce": reduce, "include_self": False},
                                  desc="dim -1 without self")],
                  complex=False, inplace="scatter_reduce_")


def _ir(reduce):
    return OpCase(f"index_reduce_{reduce}", func="index_reduce", op="index_reduce",
                  args=("x", "dim", "index", "source", "reduce"),
                  samples=[Sample([A, np.array([0, 2, 2, 1]), arr(3, 4, seed=7)],
                                  {"dim": 1, "reduce": reduce}),
                           Sample([A, np.array([2, 0]), SRC], {"dim": 0, "reduce": reduce,
                                                               "include_self": False},
                                  desc="without self"),
                           Sample([A[0], np.array([3, 3, 1]), arr(3, seed=9)],
                                  {"dim": 0, "reduce": reduce}, desc="1-d")],
                  complex=False, inplace="index_reduce_")


CASES = [
    OpCase("as_strided", args=("x", "size", "stride", "storage_offset"),
           samples=[Sample([X6], {"size": (2, 2), "stride": (1, 2), "storage_offset": 1}),
                    Sample([X6], {"size": (3, 2), "stride": (1, 1), "storage_offset": 0},
                           desc="overlapping"),
                    Sample([X6], {"size": (2, 3), "stride": (3, 1), "storage_offset": 0},
                           desc="a reshape"),
                    Sample([A], {"size": (3,), "stride": (5,), "storage_offset": 0},
                           desc="diagonal of 2-d")],
           noncontig=False, zero_size=False, inplace="as_strided_",
           errors=[E(RuntimeError, "mismatch in length of strides and shape", X6, size=(2, 2),
                     stride=(1,), storage_offset=0),
                   E(RuntimeError, "as_strided: Negative strides are not supported at the moment, "
                     "got strides: [-1]", X6, size=(2,), stride=(-1,), storage_offset=0)]),
    OpCase("as_strided_view_of_view", lambda T, x: x[1:].as_strided((2, 2), (2, 1)),
           [Sample([X6])], covers=("as_strided", "slice"), noncontig=False, zero_size=False),
    *[_sr(r) for r in ("sum", "prod", "mean", "amax", "amin")],
    OpCase("scatter_reduce_prod_zeros", lambda T, x, s, i: x.scatter_reduce(0, i, s, "prod"),
           [Sample([np.where(np.arange(12).reshape(3, 4) % 5 == 0, 0.0, A),
                    np.where(np.arange(8).reshape(2, 4) % 3 == 0, 0.0, SRC), I])],
           covers=("scatter_reduce",), complex=False),
    # src larger than index: only its leading block is read (its gradient is padded)
    OpCase("scatter_reduce_src_larger", lambda T, x, s, i: x.scatter_reduce(1, i, s, "amax"),
           [Sample([A, arr(3, 4, seed=6), II])], covers=("scatter_reduce",), complex=False,
           zero_size=False,        # (torch's backward fails on it, the same bug as below)
           xfail={"against_torch": "torch 2.13's ScatterReduceBackward0 returns the src gradient "
                                   "in the index's shape ([3, 2] for a [3, 4] src) and its own "
                                   "check refuses it"}),
    *[_ir(r) for r in ("prod", "mean", "amax", "amin")],
]
