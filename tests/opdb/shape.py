"""Table entries for ops/shape.py (movedim, repeat, flip, roll, cat/stack, split, narrow,
diagonal, tril/triu)."""
import numpy as np

from . import E, OpCase, Sample, arr

A = arr(3, 4, seed=1)
B = arr(2, 3, 4, seed=2)
C = arr(3, 5, seed=3)
Z = np.array(0.7)

# every test of a row that cannot run (a spelling tensorplay refuses)
ALL_TESTS = ("gradcheck", "gradgradcheck", "complex", "float32", "low_precision", "against_torch", "covers",
             "noncontig", "zero_size")


def _range(got, lo=-2, hi=1):
    return f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {got})"


def _cat3(T, x, y):
    return T.cat([x, y, x], dim=-1), T.concat((x, y), -1), T.concatenate([y], 0)


def _cat(T, *xs, dim=0):
    return T.cat(list(xs), dim)


def _stack(T, *xs, dim=0):
    return T.stack(list(xs), dim)


CASES = [
    OpCase("movedim", samples=[Sample([B], {"source": 0, "destination": -1}),
                               Sample([B], {"source": (0, 1), "destination": (2, 0)}, desc="tuples"),
                               Sample([B], {"source": -1, "destination": 0}, desc="neg"),
                               Sample([A], {"source": 1, "destination": 0}, desc="2-d"),
                               Sample([A], {"source": [0], "destination": [0]}, desc="2-d lists"),
                               Sample([A], {"source": -1, "destination": -2}, desc="2-d neg"),
                               Sample([Z], {"source": 0, "destination": -1}, desc="0-d")],
           ref=lambda x, source, destination: np.moveaxis(x, source, destination)
           if x.ndim else x,
           covers=("movedim", "alias"),          # (a 0-d tensor's movedim is an alias, as in PyTorch)
           errors=[E(RuntimeError, "movedim: Invalid source or destination dims: source ([0, 1] dims) should "
                     "contain the same number of dims as destination ([0] dims)", A, source=(0, 1),
                     destination=(0,), desc="lengths"),
                   E(RuntimeError, "movedim: repeated dim in `source` ([0, 0])", A, source=(0, 0),
                     destination=(0, 1), desc="repeated"),
                   E(IndexError, "Dimension out of range (expected to be in range of [-1, 0], but "
                     "got 1)", Z, source=1, destination=0, desc="0-d out of range")]),
    OpCase("movedim_aliases", lambda T, x: (x.movedim((0, 1), (2, 0)), T.moveaxis(x, -1, 0), x.moveaxis(-1, -2)),
           [Sample([B])], covers=("movedim",)),
    OpCase("repeat", lambda T, x: (x.repeat(2, 1, 3), x.repeat(1, 2) if x.dim() < 3 else x),
           [Sample([A]), Sample([arr(3, seed=4)], desc="1-d"), Sample([Z], desc="0-d")],
           errors=[E(RuntimeError, "Number of dimensions of repeat dims can not be smaller than number of "
                     "dimensions of tensor", A, fn=lambda T, x: x.repeat(2), desc="too few")]),
    OpCase("tile", op="repeat", func="tile",
           samples=[Sample([A], {"dims": (2,)}), Sample([A], {"dims": (2, 1, 1)}, desc="more dims"),
                    Sample([Z], {"dims": (2,)}, desc="0-d"), Sample([Z], {"dims": (2, 1, 1)}, desc="0-d more dims")],
           ref=lambda x, dims: np.tile(x, dims)),
    # not the plain spelling: tensorplay.flip(x, dims=...) refuses the keyword torch.flip takes
    OpCase("flip", lambda T, x, dims: T.flip(x, dims),
           [Sample([A], {"dims": (0, -1)}), Sample([A], {"dims": [1]}, desc="one"),
            Sample([A], {"dims": []}, desc="none"), Sample([B], {"dims": (0, -1)}, desc="3-d"),
            Sample([B], {"dims": [1]}, desc="3-d one"), Sample([B], {"dims": []}, desc="3-d none")],
           ref=lambda x, dims: np.flip(x, tuple(dims)) if len(dims) else x,
           errors=[E(RuntimeError, "dim 0 appears multiple times in the list of dims", A, dims=(0, 0),
                     desc="repeated"),
                   E(IndexError, _range(2), A, dims=(2,), desc="dim out of range")]),
    OpCase("flip_method", lambda T, x: (x.flip(1), x.flip((0, 1))), [Sample([A]), Sample([B])], covers=("flip",)),
    OpCase("flip_dims_keyword", lambda T, x: (T.flip(x, dims=(0, -1)), x.flip(dims=[1]), T.flip(input=x, dims=())),
           [Sample([A])], covers=("flip",),
           errors=[E(TypeError, 'flip() missing 1 required positional arguments: "dims"', A,
                     fn=lambda T, x: T.flip(x), desc="no dims"),
                   E(TypeError, 'flip() missing 1 required positional arguments: "dims"', A,
                     fn=lambda T, x: x.flip(), desc="method, no dims"),
                   E(TypeError, "flip() got multiple values for argument 'dims'", A,
                     fn=lambda T, x: x.flip(0, dims=(1,)), desc="twice"),
                   E(TypeError, "flip(): argument 'dims' must be tuple of ints, not int", A,
                     fn=lambda T, x: T.flip(x, dims=1), desc="dims an int")]),
    *[OpCase(n, op="flip", samples=[Sample([A]), Sample([B], desc="3-d")], ref=getattr(np, n),
             errors=[E(RuntimeError, "Input must be >= 2-d." if n == "fliplr" else "Input must be >= 1-d.",
                       np.zeros(3) if n == "fliplr" else Z, desc="rank")])
      for n in ("fliplr", "flipud")],
    OpCase("roll", samples=[Sample([A], {"shifts": 1}), Sample([A], {"shifts": (1, -2), "dims": (0, -1)}, desc="dims"),
                            Sample([A], {"shifts": 5, "dims": 1}, desc="wrap"), Sample([B], {"shifts": 1}, desc="3-d"),
                            Sample([B], {"shifts": (1, -2), "dims": (0, -1)}, desc="3-d dims"),
                            Sample([B], {"shifts": 5, "dims": 1}, desc="3-d wrap")],
           ref=lambda x, shifts, dims=None: np.roll(x, shifts, dims),
           errors=[E(RuntimeError, "shifts and dimensions must align. shifts: 2, dims:1", A, shifts=(1, 2),
                     dims=(0,), desc="align"),
                   E(IndexError, _range(2), A, shifts=1, dims=2, desc="dim out of range")]),
    OpCase("cat", _cat3, [Sample([A, C]), Sample([B[:, :, :3], B], desc="3-d")],
           errors=[E(RuntimeError, "Sizes of tensors must match except in dimension 1. Expected size 3 but got "
                     "size 4 for tensor number 1 in the list.", A, np.zeros((4, 4)), fn=_cat, dim=1,
                     desc="sizes"),
                   E(RuntimeError, "Tensors must have same number of dimensions: got 2 and 1", A, np.zeros(4),
                     fn=_cat, desc="ranks"),
                   E(RuntimeError, "zero-dimensional tensor (at position 0) cannot be concatenated", Z, Z,
                     fn=_cat, desc="0-d"),
                   E(ValueError, r"^(torch|tensorplay)\.cat\(\): expected a non-empty list of Tensors$",
                     fn=_cat, regex=True, desc="empty"),
                   E(TypeError, "expected Tensor as element 1 in argument 0, but got int", A,
                     fn=lambda T, x: T.cat([x, 3]), desc="not a tensor"),
                   E(TypeError, "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor", A,
                     fn=lambda T, x: T.cat(x), desc="a tensor"),
                   E(IndexError, _range(2), A, A, fn=_cat, dim=2, desc="dim out of range")]),
    OpCase("cat_dim0", lambda T, x, y: T.cat([x, y, x]), [Sample([A, arr(2, 4, seed=5)]),
                                                         Sample([arr(3, seed=1), arr(2, seed=2)], desc="1-d")],
           covers=("cat",)),
    OpCase("stack", lambda T, x, y: (T.stack([x, y]), T.stack((x, y, x), -1), T.stack([y], -1)),
           [Sample([A, arr(3, 4, seed=6)]), Sample([Z, np.array(-1.3)], desc="0-d")],
           errors=[E(RuntimeError, "stack expects each tensor to be equal size, but got [3, 4] at entry 0 and "
                     "[3, 5] at entry 1", A, C, fn=_stack, desc="sizes"),
                   E(RuntimeError, "stack expects a non-empty TensorList", fn=_stack, desc="empty"),
                   E(IndexError, _range(3, -3, 2), A, A, fn=_stack, dim=3, desc="dim out of range")]),
    OpCase("hstack_vstack", lambda T, x, y: (T.hstack([x, y]), T.vstack((x, y)), T.dstack([x, y])),
           [Sample([A, arr(3, 4, seed=6)]), Sample([arr(4, seed=1), arr(4, seed=2)], desc="1-d")],
           covers=("cat",)),
    OpCase("split", samples=[Sample([A], {"split_size_or_sections": 2, "dim": 1}),
                             Sample([A], {"split_size_or_sections": 1, "dim": -2}, desc="size 1"),
                             Sample([A], {"split_size_or_sections": 4, "dim": 1}, desc="whole"),
                             Sample([B], {"split_size_or_sections": 2, "dim": 1}, desc="3-d"),
                             Sample([B], {"split_size_or_sections": 1, "dim": -2}, desc="3-d size 1"),
                             Sample([B], {"split_size_or_sections": 4, "dim": 1}, desc="3-d whole")],
           errors=[E(RuntimeError, "split_size can only be 0 if dimension size is 0, but got dimension size of 3",
                     A, split_size_or_sections=0, desc="zero"),
                   E(RuntimeError, "split expects split_size be non-negative, but got split_size=-1", A,
                     split_size_or_sections=-1, desc="negative")]),
    OpCase("split_with_sizes", func="split",
           samples=[Sample([A], {"split_size_or_sections": [1, 0, 3], "dim": 1}),
                    Sample([A], {"split_size_or_sections": [2, 1], "dim": 0}, desc="dim 0"),
                    Sample([arr(3, 4, 3, seed=8)], {"split_size_or_sections": [1, 0, 3], "dim": 1}, desc="3-d"),
                    Sample([arr(3, 4, 3, seed=8)], {"split_size_or_sections": [2, 1], "dim": 0}, desc="3-d dim 0")],
           errors=[E(RuntimeError, "split_with_sizes expects split_sizes to sum exactly to 4 (input tensor's size "
                     "at dimension 1), but got split_sizes=[1, 2]", A, split_size_or_sections=[1, 2], dim=1,
                     desc="sum")]),
    OpCase("split_spellings", lambda T, x: x.split(2, 1) + T.split(x, 1, -2) + x.split([2, 1], 0),
           [Sample([A])], covers=("split", "split_with_sizes")),
    OpCase("split_partial", lambda T, x: x.split(2, 1)[1] * 2, [Sample([A])], covers=("split", "mul")),
    OpCase("chunk", op="split", samples=[Sample([A], {"chunks": 3, "dim": 1}), Sample([A], {"chunks": 2}, desc="dim 0"),
                                         Sample([A], {"chunks": 5, "dim": -1}, desc="more than size")],
           errors=[E(RuntimeError, "chunk expects `chunks` to be greater than 0, got: 0", A, chunks=0)]),
    OpCase("unbind", samples=[Sample([A], {"dim": 1}), Sample([A], {"dim": -1}, desc="neg"), Sample([A], desc="dim 0"),
                              Sample([B], {"dim": 1}, desc="3-d"), Sample([B], desc="3-d dim 0"),
                              Sample([B], {"dim": -1}, desc="3-d neg")],
           ref=lambda x, dim=0: tuple(np.moveaxis(x, dim, 0)),
           errors=[E(IndexError, "Dimension specified as 0 but tensor has no dimensions", Z, desc="0-d"),
                   E(IndexError, _range(2), A, dim=2, desc="dim out of range")]),
    OpCase("unbind_iter", lambda T, x: tuple(x) + x.unbind(1), [Sample([A]), Sample([B], desc="3-d")],
           covers=("unbind",)),
    OpCase("unbind_partial", lambda T, x: x.unbind(0)[2] + 1, [Sample([A])], covers=("unbind", "add")),
    OpCase("select", samples=[Sample([A], {"dim": 1, "index": 2}), Sample([A], {"dim": -1, "index": -1}, desc="neg"),
                              Sample([B], {"dim": 0, "index": 1}, desc="3-d")],
           ref=lambda x, dim, index: np.take(x, index, dim),
           operator=lambda x, dim, index: x[(slice(None),) * (dim % x.dim()) + (index,)],      # x[:, i]
           errors=[E(IndexError, "select(): index 4 out of range for tensor of size [3, 4] at dimension 1", A,
                     dim=1, index=4, desc="oob"),
                   E(IndexError, _range(2), A, dim=2, index=0, desc="dim out of range")]),
    OpCase("narrow", op="slice",
           operator=lambda x, dim, start, length: x[(slice(None),) * (dim % x.dim())                 # x[:, a:b]
                                                     + (slice(start % x.shape[dim], start % x.shape[dim] + length),)],
           samples=[Sample([A], {"dim": 1, "start": 1, "length": 2}),
                    Sample([A], {"dim": -1, "start": -3, "length": 2}, desc="neg"),
                    Sample([A], {"dim": 0, "start": 0, "length": 0}, desc="empty"),
                    Sample([B], {"dim": 1, "start": 1, "length": 2}, desc="3-d"),
                    Sample([B], {"dim": -1, "start": -3, "length": 2}, desc="3-d neg"),
                    Sample([B], {"dim": 0, "start": 0, "length": 0}, desc="3-d empty")],
           errors=[E(RuntimeError, "start (3) + length (2) exceeds dimension size (4).", A, dim=1, start=3, length=2,
                     desc="too long"),
                   E(RuntimeError, "narrow(): length must be non-negative.", A, dim=1, start=0, length=-1,
                     desc="negative length"),
                   E(IndexError, _range(2), A, dim=2, start=0, length=1, desc="dim out of range")]),
    OpCase("diagonal", samples=[Sample([A]), Sample([A], {"offset": 1}, desc="offset"),
                                Sample([A], {"offset": -1, "dim1": -1, "dim2": 0}, desc="neg dims"),
                                Sample([A], {"offset": 5}, desc="offset past the end"),
                                Sample([B], desc="3-d"), Sample([B], {"offset": 1}, desc="3-d offset"),
                                Sample([B], {"offset": -1, "dim1": -1, "dim2": 0}, desc="3-d neg dims"),
                                Sample([B], {"offset": 5}, desc="3-d offset past the end")],
           covers=("diagonal", "diagonal_backward"),
           ref=lambda x, offset=0, dim1=0, dim2=1: np.diagonal(x, offset, dim1, dim2),
           errors=[E(RuntimeError, "diagonal dimensions cannot be identical 1, 1", A, offset=0, dim1=1, dim2=1,
                     desc="same dims"),
                   E(IndexError, _range(2), A, offset=0, dim1=0, dim2=2, desc="dim out of range")]),
    OpCase("diagonal_3d", lambda T, x: (x.diagonal(0, 0, 2), T.diagonal(x, 1, 2, 1)),
           [Sample([arr(3, 2, 4, seed=7)])], covers=("diagonal", "diagonal_backward")),
    *[OpCase(n, samples=[Sample([A]), Sample([A], {"diagonal": 1}, desc="1"), Sample([A], {"diagonal": -2}, desc="-2"),
                         Sample([B], desc="3-d"), Sample([B], {"diagonal": 1}, desc="3-d 1"),
                         Sample([B], {"diagonal": -2}, desc="3-d -2")],
             ref=lambda x, diagonal=0, n=n: getattr(np, n)(x, diagonal),
             errors=[E(RuntimeError, f"{n}: input tensor must have at least 2 dimensions", np.zeros(3))])
      for n in ("tril", "triu")],
    OpCase("unfold_windows", lambda T, x, dimension=0, size=2, step=1: x.unfold(dimension, size, step),
           [Sample([A]), Sample([A], {"dimension": 1, "size": 3, "step": 2}, desc="strided windows"),
            Sample([A], {"dimension": -1, "size": 2, "step": 2}, desc="disjoint windows"),
            Sample([B], {"dimension": 1, "size": 3, "step": 1}, desc="3-d"),
            Sample([A], {"dimension": 1, "size": 0, "step": 1}, desc="empty windows"),
            Sample([Z], {"dimension": 0, "size": 1, "step": 1}, desc="0-d"),
            Sample([Z], {"dimension": -1, "size": 0, "step": 2}, desc="0-d, no window")],
           op="unfold", covers=("unfold", "unfold_backward"),   # (Tensor.unfold; F.unfold: conv.py)
           ref=lambda x, dimension=0, size=2, step=1: (
               np.lib.stride_tricks.sliding_window_view(x, size, axis=dimension)[
                   (slice(None),) * (dimension % x.ndim) + (slice(None, None, step),)]
               if x.ndim else x.reshape(1)[:size]),
           errors=[E(RuntimeError, "maximum size for tensor at dimension 1 is 4 but size is 5", A,
                     dimension=1, size=5, step=1, desc="window too large"),
                   E(RuntimeError, "size is -1 but must be >= 0", A, dimension=1, size=-1, step=1,
                     desc="negative size"),
                   E(RuntimeError, "step is 0 but must be > 0", A, dimension=1, size=2, step=0,
                     desc="zero step"),
                   E(IndexError, _range(2), A, dimension=2, size=1, step=1, desc="dim out of range")]),
    OpCase("tril_triu_inplace", lambda T, x: ((x * 1).tril_(1), (x * 1).triu_()), [Sample([A])],
           covers=("tril", "triu", "mul")),
]


# ----------------------------------------------------------------- unsafe_split / as_strided_scatter
def _as_strided_scatter_oracle(T, x, src, size, stride, storage_offset=None):
    """torch 2.13's AsStridedScatterBackward0 gives ``input`` the gradient of the
    window instead of that of the rest (its own gradcheck fails): the oracle is the
    same computation as a copy into a strided view of a clone, whose gradients are
    right (and PyTorch's op itself for what it refuses)."""
    if not x.is_contiguous():
        return T.as_strided_scatter(x, src, size, stride, storage_offset)
    y = x.clone()
    y.as_strided(size, stride, storage_offset).copy_(src)
    return y


X34 = arr(3, 4, seed=31)

CASES += [
    OpCase("unsafe_split", args=("x", "split_size", "dim"), samples=[Sample([A], {"split_size": 2, "dim": 1}),
                                    Sample([A], {"split_size": 4, "dim": 1}, desc="whole"),
                                    Sample([B], {"split_size": 1, "dim": -2}, desc="3-d size 1")],
           errors=[E(RuntimeError, "split_size can only be 0 if dimension size is 0, but got dimension size of 3",
                     A, split_size=0, desc="zero"),
                   E(TypeError, "unsafe_split(): argument 'split_size' (position 2) must be int, not list", A,
                     split_size=[1, 2], desc="list")]),
    OpCase("unsafe_split_with_sizes", args=("x", "split_sizes", "dim"),
           samples=[Sample([A], {"split_sizes": [1, 0, 3], "dim": 1}),
                    Sample([B], {"split_sizes": [2, 1], "dim": 1}, desc="3-d")],
           errors=[E(RuntimeError, "split_with_sizes expects split_sizes to sum exactly to 4 (input tensor's size "
                     "at dimension 1), but got split_sizes=[1, 2]", A, split_sizes=[1, 2], dim=1, desc="sum"),
                   E(TypeError, "unsafe_split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of "
                     "ints, not int", A, split_sizes=2, desc="int")]),
    OpCase("unsafe_chunk", samples=[Sample([A], {"chunks": 3, "dim": 1}), Sample([B], {"chunks": 2}, desc="3-d")],
           covers=("unsafe_split",),
           errors=[E(RuntimeError, "chunk expects `chunks` to be greater than 0, got: 0", A, chunks=0)]),
    OpCase("as_strided_scatter", args=("x", "src", "size", "stride", "storage_offset"),
           samples=[Sample([X34, arr(2, 2, seed=32)], {"size": (2, 2), "stride": (4, 1), "storage_offset": 1}),
                    Sample([X34, arr(2, 2, seed=33)], {"size": (2, 2), "stride": (4, 1), "storage_offset": None},
                           desc="offset None"),
                    Sample([X34, arr(3, seed=34)], {"size": (3,), "stride": (5,), "storage_offset": 0},
                           desc="diagonal"),
                    Sample([B, arr(2, 3, seed=35)], {"size": (2, 3), "stride": (12, 4), "storage_offset": 2},
                           desc="3-d column")],
           torch_fn=_as_strided_scatter_oracle, noncontig="refused",
           errors=[E(RuntimeError, "mismatch in length of strides and shape", X34, np.ones((2, 2)), size=(2, 2),
                     stride=(1,), storage_offset=0, desc="lengths"),
                   E(RuntimeError, "as_strided: Negative strides are not supported at the moment, got strides: "
                     "[-1, 1]", X34, np.ones((2, 2)), size=(2, 2), stride=(-1, 1), storage_offset=0,
                     desc="negative stride"),
                   E(RuntimeError, "Tensor: invalid storage offset -1", X34, np.ones((2, 2)), size=(2, 2),
                     stride=(4, 1), storage_offset=-1, desc="negative offset"),
                   E(RuntimeError, "setStorage: sizes [2, 2], strides [4, 1], storage offset 20, and itemsize 8 "
                     "requiring a storage size of 208 are out of bounds for storage of size 96", X34,
                     np.ones((2, 2)), size=(2, 2), stride=(4, 1), storage_offset=20, desc="out of bounds"),
                   E(RuntimeError, "expected src to have a size equal to the slice of self. src size = [2], slice "
                     "size = [2, 2]", X34, np.ones(2), size=(2, 2), stride=(4, 1), storage_offset=0,
                     desc="src size", fn=lambda T, x, s, **kw: T.as_strided_scatter(x, s, **kw))]),
]
