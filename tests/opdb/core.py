"""Table entries for ops/core.py (reductions that undo broadcasting, casts, reshapes, matmul)."""
import warnings

import numpy as np

from . import E, OpCase, Sample, arr

A = arr(2, 3, 4, seed=1)
M = arr(3, 4, seed=3)
S1 = arr(1, 3, 1, seed=4)


def _np_reduce(f):
    def ref(x, dim=None, keepdim=False):
        with warnings.catch_warnings():     # NumPy's mean of an empty slice warns (NaN, as torch)
            warnings.simplefilter("ignore", RuntimeWarning)
            return f(x, axis=tuple(dim) if isinstance(dim, (tuple, list)) else dim, keepdims=keepdim)
    return ref


def _range(lo, hi, got):
    return f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {got})"


CASES = [
    OpCase("sum", samples=[Sample([A]), Sample([A[0, 0, 0].reshape(())], desc="0-d"),
                           Sample([A], {"dim": 1}, desc="dim"),
                           Sample([A], {"dim": (0, -1), "keepdim": True}, desc="dims keepdim")],
           ref=_np_reduce(np.sum),
           errors=[E(IndexError, _range(-3, 2, 3), A, dim=3, desc="dim out of range"),
                   E(RuntimeError, "dim 0 appears multiple times in the list of dims", A, dim=(0, 0),
                     desc="repeated dim")]),
    OpCase("mean", samples=[Sample([A]), Sample([A], {"dim": -1, "keepdim": True}, desc="dim keepdim"),
                            Sample([A], {"dim": (0, 1)}, desc="dims")],
           ref=_np_reduce(np.mean),
           errors=[E(IndexError, _range(-3, 2, -4), A, dim=-4, desc="dim out of range"),
                   E(RuntimeError, "mean(): could not infer output dtype. Input dtype must be either a "
                     "floating point or complex dtype. Got: Long", np.ones((2, 3), np.int64), desc="int")]),
    OpCase("mean_dim", lambda T, x: x.mean(-1, keepdim=True) + x.mean((0, 1)).sum(), [Sample([A])],
           covers=("mean", "sum", "add")),
    OpCase("sum_to_size", lambda T, x, size=(3, 1): x.sum_to_size(*size), [Sample([A])],
           errors=[E(RuntimeError, "size {[3, 5]} is not expandable to size {[2, 3, 4]}.", A, size=(3, 5))]),
    OpCase("expand", lambda T, x: x.expand(2, 3, 4) * 1.5, [Sample([arr(3, 1, seed=2)])],
           covers=("expand", "mul"),
           errors=[E(RuntimeError, "The expanded size of the tensor (3) must match the existing size (2) at "
                     "non-singleton dimension 0.  Target sizes: [3, 3, 4].  Tensor sizes: [2, 3, 4]", A,
                     fn=lambda T, x: x.expand(3, 3, 4), desc="size"),
                   E(RuntimeError, "expand(torch.DoubleTensor{[2, 3, 4]}, size=[3, 4]): the number of sizes "
                     "provided (2) must be greater or equal to the number of dimensions in the tensor (3)", A,
                     fn=lambda T, x: x.expand(3, 4), desc="too few sizes"),
                   E(TypeError, 'expand() missing 1 required positional arguments: "size"', A,
                     fn=lambda T, x: x.expand(), desc="no sizes")]),
    OpCase("expand_new_dims", lambda T, x: x.expand(5, -1, 4), [Sample([arr(3, 1, seed=2)])], covers=("expand",)),
    OpCase("reshape", lambda T, x, shape=(4, -1): x.reshape(*shape), [Sample([A])], covers=("view",),
           errors=[E(RuntimeError, "shape '[5, -1]' is invalid for input of size 24", A, shape=(5, -1),
                     desc="size mismatch"),
                   E(RuntimeError, "only one dimension can be inferred", A, shape=(-1, -1), desc="two -1"),
                   E(RuntimeError, "shape '[5, 5]' is invalid for input of size 24", A,
                     fn=lambda T, x: T.reshape(x, (5, 5)), desc="function")]),
    OpCase("reshape_copy", lambda T, x: x.t().reshape(-1), [Sample([M])], covers=("_unsafe_view", "t")),
    OpCase("view", lambda T, x, shape=(6, 4): x.view(*shape), [Sample([A])],
           noncontig="refused",     # a transposed layout cannot be viewed as (6, 4)
           errors=[E(RuntimeError, "shape '[5, 5]' is invalid for input of size 24", A, shape=(5, 5),
                     desc="size mismatch"),
                   E(RuntimeError, "shape '[-1, 5]' is invalid for input of size 24", A, shape=(-1, 5),
                     desc="inferred")]),
    OpCase("flatten", samples=[Sample([A]), Sample([A], {"start_dim": 1}, desc="start"),
                               Sample([A], {"start_dim": 0, "end_dim": 1}, desc="start end"),
                               Sample([arr(seed=5)], desc="0-d")],
           ref=lambda x, start_dim=0, end_dim=-1: x.reshape(
               x.shape[:start_dim] + (-1,) + x.shape[end_dim % x.ndim + 1:]) if x.ndim else x.reshape(1),
           covers=("view", "flatten"),  # (PyTorch's flatten is a reshape: a view here, ``flatten``
           #                              for a 0-d input; a copy's nodes: reshape_copy's row)
           errors=[E(RuntimeError, "flatten() has invalid args: start_dim cannot come after end_dim", A,
                     start_dim=2, end_dim=1, desc="start after end"),
                   E(IndexError, _range(-3, 2, 3), A, start_dim=3, desc="dim out of range")]),
    OpCase("transpose", samples=[Sample([A], {"dim0": 0, "dim1": 2}), Sample([M], {"dim0": -1, "dim1": 0},
                                                                             desc="neg")],
           ref=lambda x, dim0, dim1: np.swapaxes(x, dim0, dim1),
           errors=[E(IndexError, _range(-3, 2, 3), A, dim0=0, dim1=3, desc="dim out of range")]),
    # not the plain spelling: tensorplay.permute(x, dims=...) refuses the keyword torch.permute takes
    OpCase("permute", lambda T, x, dims: T.permute(x, dims),
           [Sample([A], {"dims": (2, 0, 1)}), Sample([M], {"dims": (-1, 0)}, desc="neg")],
           ref=lambda x, dims: np.transpose(x, dims),
           errors=[E(RuntimeError, "permute(sparse_coo): number of dimensions in the tensor input does not "
                     "match the length of the desired ordering of dimensions i.e. input.dim() = 3 is not "
                     "equal to len(dims) = 2", A, dims=(0, 1), desc="too few dims",
                     xfail="the message starts 'permute:' where torch's says 'permute(sparse_coo):'"),
                   E(RuntimeError, "permute(): duplicate dims are not allowed.", A, dims=(0, 1, 1),
                     desc="repeated dim")]),
    OpCase("t", samples=[Sample([M]), Sample([arr(4, seed=3)], desc="1-d")], ref=np.transpose,
           errors=[E(RuntimeError, "t() expects a tensor with <= 2 dimensions, but self is 3D", A)]),
    OpCase("permute_method", lambda T, x: x.permute(2, 0, 1) * 2 + x.permute((1, 2, 0)).sum(),
           [Sample([A])], covers=("permute", "mul", "sum", "add")),
    OpCase("permute_dims_keyword", lambda T, x: (T.permute(x, dims=(1, 0)), x.permute(dims=[1, 0]),
                                                 T.permute(input=x, dims=(-1, 0))),
           [Sample([M])], covers=("permute",),
           errors=[E(TypeError, 'permute() missing 1 required positional arguments: "dims"', M,
                     fn=lambda T, x: x.permute(), desc="no dims"),
                   E(TypeError, "permute() got multiple values for argument 'dims'", M,
                     fn=lambda T, x: x.permute(1, dims=(1, 0)), desc="twice"),
                   E(TypeError, "permute(): argument 'dims' must be tuple of ints, not int", M,
                     fn=lambda T, x: x.permute(dims=1), desc="dims an int"),
                   E(TypeError, "permute() got an unexpected keyword argument 'out'", M,
                     fn=lambda T, x: T.permute(x, (1, 0), out=x), desc="out")]),
    OpCase("view_size_keyword", lambda T, x: x.view(size=(2, -1)), [Sample([M])], covers=("view",),
           noncontig="refused"),    # (a transposed layout cannot be viewed so)
    OpCase("size_keywords", lambda T, x: (T.reshape(x, shape=(-1,)),
                                          x.reshape(shape=[x.shape[1], x.shape[0]]),
                                          T.reshape(input=x, shape=(1, -1)),
                                          x.expand(size=(2,) + tuple(x.shape)),
                                          x.repeat(repeats=(2, 1)),
                                          x.sum_to_size(size=(1, x.shape[1]))),
           [Sample([M])], covers=("view", "expand", "repeat", "sum_to_size")),
    OpCase("T_mT", lambda T, x: (x.mT, x.T if x.dim() == 2 else x), [Sample([M])],
           covers=("transpose", "permute")),
    OpCase("unsqueeze", samples=[Sample([A], {"dim": 1}), Sample([A], {"dim": -1}, desc="neg"),
                                 Sample([np.array(0.5)], {"dim": 0}, desc="0-d")],
           ref=lambda x, dim: np.expand_dims(x, dim),
           errors=[E(IndexError, _range(-4, 3, 4), A, dim=4, desc="dim out of range")]),
    OpCase("unsqueeze_chain", lambda T, x: x.unsqueeze(1).unsqueeze(-1), [Sample([A])], covers=("unsqueeze",)),
    OpCase("squeeze", samples=[Sample([S1]), Sample([S1], {"dim": 0}, desc="dim"),
                               Sample([S1], {"dim": 1}, desc="dim not 1")],
           ref=lambda x, dim=None: np.squeeze(x, dim) if dim is None or x.shape[dim] == 1 else x,
           errors=[E(IndexError, _range(-3, 2, 3), A, dim=3, desc="dim out of range")]),
    OpCase("to_complex", lambda T, x: x.to(T.complex128) * (1 + 2j), [Sample([A])],
           covers=("_to_copy", "mul"), complex=False, preserves_dtype=False, low_precision=False),
    OpCase("clone", samples=[Sample([A])], ref=np.copy),
    OpCase("real_imag", lambda T, x: (x.real, x.imag) if x.is_complex() else x.real,
           [Sample([A])], covers=("real", "imag")),
    OpCase("matmul", samples=[Sample([arr(2, 3, 4, seed=1), arr(4, 5, seed=2)], desc="broadcast batch"),
                              Sample([arr(3, 4, seed=1), arr(4, 5, seed=2)], desc="2d"),
                              Sample([arr(4, seed=1), arr(2, 4, 5, seed=2)], desc="1d-3d"),
                              Sample([arr(2, 3, 4, seed=1), arr(4, seed=2)], desc="3d-1d"),
                              Sample([arr(4, seed=1), arr(4, seed=2)], desc="dot")],
           covers=("matmul", "mm", "dot"), ref=np.matmul,      # 2-d @ 2-d is mm, 1-d @ 1-d is dot
           errors=[E(RuntimeError, "mat1 and mat2 shapes cannot be multiplied (3x4 and 3x4)", M, M,
                     desc="2-d shapes"),
                   E(RuntimeError, "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but "
                     "got: [2, 3].", A, A, desc="batched shapes",
                     xfail="the message is mm's ('mat1 and mat2 shapes cannot be multiplied (2x3x4 and "
                           "2x3x4)'), not bmm's"),
                   E(RuntimeError, "size mismatch, got input (3), mat (3x4), vec (3)", M, np.ones(3),
                     desc="2d-1d"),
                   E(RuntimeError, "inconsistent tensor size, expected tensor [3] and src [4] to have the same "
                     "number of elements, but got 3 and 4 elements respectively", np.ones(3), np.ones(4),
                     desc="1d-1d"),
                   E(RuntimeError, "both arguments to matmul need to be at least 1D, but they are 0D and 2D",
                     np.array(1.0), M, desc="0-d")]),
    OpCase("matmul_operator", lambda T, x, y: x @ y, [Sample([arr(3, 4, seed=1), arr(4, 5, seed=2)])],
           covers=("mm",)),             # 2-d @ is mm
    OpCase("copy_", lambda T, x, y: (x * 1).copy_(y) * x, [Sample([M, arr(4, seed=2)])],
           covers=("copy_from", "mul"),
           errors=[E(RuntimeError, "The size of tensor a (4) must match the size of tensor b (3) at "
                     "non-singleton dimension 1", M, np.ones(3), desc="shapes")]),
    OpCase("inplace_on_view", lambda T, x, w: _inplace_view(x, w),
           [Sample([M, arr(2, 4, seed=2)])], covers=("copy_slices",)),
    OpCase("fill_", lambda T, x, v: (x * 1).fill_(v) * x, [Sample([M, np.array(1.5)])],
           covers=("fill", "mul"),
           errors=[E(RuntimeError, "fill_ only supports 0-dimension value tensor but got tensor with 1 "
                     "dimensions.", M, np.ones(3), desc="1-d value")]),
]


def _inplace_view(x, w):
    y = x * 1.5
    y[1:3].mul_(w)              # an in-place op on a view: the base's history is rebased
    y.t()[0].add_(1.0)          # a view of a view (a column), after the first rebase
    return y
