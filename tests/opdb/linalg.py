"""Table entries for ops/linalg.py (matrix products, einsum and the ops built on it)."""
import numpy as np

from . import E, OpCase, Sample, arr


def _einsum(T, *xs, eq, as_list=False):
    return T.einsum(eq, list(xs)) if as_list else T.einsum(eq, *xs)


def _es(eq, *shapes, desc=None, **kw):
    """An einsum sample: equation plus operand shapes."""
    return Sample([arr(*s, seed=i + 1) for i, s in enumerate(shapes)], kwargs=dict(eq=eq, **kw),
                  desc=desc or eq.replace("...", "E").replace("->", "_to_").replace(",", "_") or "empty")


_WELL = arr(3, 3, seed=3) + 3 * np.eye(3)                       # well away from singular
_WELL_B = arr(2, 3, 3, seed=4) + 3 * np.eye(3)
_SING = arr(3, 2, seed=15) @ arr(2, 3, seed=16)                  # rank 2: det's cofactor path
_SING_B = np.stack([_SING, np.diag([2.0, 1.0, 1e-9]) + 1e-3 * arr(3, 3, seed=14)])   # (ill-conditioned)


def f32(*shape):
    return np.ones(shape, np.float32)


def f64(*shape):
    return np.ones(shape)


def dt(dtype, *shape):
    return np.ones(shape, dtype)


def _dtypes(a, b):
    return f"expected m1 and m2 to have the same dtype, but got: {a} != {b}"


def _es_err(msg, eq, *arrays, desc):
    return E(RuntimeError, msg if msg.startswith("expected") else "einsum(): " + msg, *arrays, eq=eq, desc=desc)


EINSUM_ERRORS = [
    _es_err("subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3",
            "ij,jk->ik", f32(2, 3), f32(4, 4), desc="size"),
    _es_err("expected scalar type Float but found Double", "ij,jk->ik", f32(2, 3), f64(3, 4), desc="dtype"),
    _es_err("expected scalar type Float but found ComplexFloat", "ij,jk", f32(2, 2), dt(np.complex64, 2, 2),
            desc="dtype complex"),
    _es_err("output subscript k does not appear in the equation for any input operand", "ij->ik", f32(2, 3),
            desc="output missing"),
    _es_err("output subscript i appears more than once in the output", "ij->iij", f32(2, 3), desc="output repeated"),
    _es_err("the number of subscripts in the equation (3) does not match the number of dimensions (2) for operand 0 "
            "and no ellipsis was given", "ijk->ij", f32(2, 3), desc="rank"),
    _es_err("the number of subscripts in the equation (1) does not match the number of dimensions (2) for operand 1 "
            "and no ellipsis was given", "ij,i", f32(2, 3), f32(2, 3), desc="rank second"),
    _es_err("fewer operands were provided than specified in the equation", "ij,jk->ik", f32(2, 3), desc="fewer"),
    _es_err("more operands were provided than specified in the equation", "ij,jk->ik", f32(2, 3), f32(3, 4), f32(3),
            desc="more"),
    _es_err("subscript i is repeated for operand 0 but the sizes don't match, 3 != 2", "ii->i", f32(2, 3),
            desc="repeated sizes"),
    _es_err("subscript i has size 3 for operand 1 which does not broadcast with previously seen size 2", "i,i",
            f32(2), f32(3), desc="broadcast"),
    _es_err("found '.' for operand 0 that is not part of any ellipsis", "i.j", f32(2, 3), desc="dot"),
    _es_err("found '.' for operand 0 for which an ellipsis was already found", "...i...", f32(2, 3),
            desc="two ellipses"),
    _es_err("invalid subscript given at index 1 in the equation string, subscripts must be in [a-zA-Z]", "i1",
            f32(2, 3), desc="bad character"),
    _es_err("invalid subscript given at index 4 in the equation string, subscripts must be in [a-zA-Z]", "i->i->i",
            f32(2), desc="two arrows"),
    E(TypeError, "expected Tensor as element 1 in argument 1, but got int", f32(2, 3),
      fn=lambda T, x: T.einsum("ij,jk->ik", x, 3), desc="not a tensor"),
    E(ValueError, "einsum(): must specify the equation string and at least one operand, or at least one operand and "
      "its subscripts list", eq="ij,jk->ik", desc="no operand"),
]

CASES = [
    OpCase("mm", samples=[Sample([arr(3, 4, seed=1), arr(4, 5, seed=2)]),
                          Sample([arr(1, 4, seed=1), arr(4, 1, seed=2)], desc="row-col"),
                          Sample([arr(4, 3, seed=1), arr(3, 1, seed=2)], desc="column"),
                          Sample([arr(4, 1, seed=1), arr(1, 3, seed=2)], desc="outer (inner size 1)")],
           ref=np.matmul,
           errors=[E(RuntimeError, "self must be a matrix", f32(3), f32(3, 4), desc="1-d self"),
                   E(RuntimeError, "mat2 must be a matrix", f32(3, 4), f32(4), desc="1-d mat2"),
                   E(RuntimeError, "self must be a matrix", f32(2, 3, 4), f32(4, 5), desc="3-d"),
                   E(RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)", f32(2, 3), f32(4, 5),
                     desc="shapes"),
                   E(RuntimeError, _dtypes("float", "double"), f32(2, 3), f64(3, 5), desc="dtype"),
                   E(RuntimeError, _dtypes("c10::Half", "float"), dt(np.float16, 2, 3), f32(3, 5), desc="half"),
                   E(RuntimeError, _dtypes("c10::complex<float>", "float"), dt(np.complex64, 2, 3), f32(3, 5),
                     desc="complex"),
                   E(RuntimeError, _dtypes("long int", "float"), dt(np.int64, 2, 3), f32(3, 5), desc="long"),
                   E(RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)", f32(2, 3), f64(4, 5),
                     desc="shape before dtype"),
                   E(TypeError, "mm(): argument 'mat2' (position 2) must be Tensor, not int", f32(2, 3),
                     fn=lambda T, x: T.mm(x, 3), desc="not a tensor")]),
    OpCase("mm_method", lambda T, x, y: x.mm(y) * 2, [Sample([arr(2, 3, seed=1), arr(3, 3, seed=2)])],
           covers=("mm", "mul")),
    # a transposed operand made inside fn (the generated non-contiguous sample lays the
    # inputs themselves out transposed)
    OpCase("mm_transposed", lambda T, x, y: T.mm(x.t(), y.mT), [Sample([arr(4, 3, seed=1), arr(2, 4, seed=2)])],
           covers=("mm", "t", "transpose")),
    # mm's derivatives: the product with the other factor's conjugate transpose, as one op
    # (torch: mm of a transpose), differentiable again
    OpCase("mm_nh", lambda T, x, y: T.mm(x, y.mH) if T.__name__ == "torch" else T.ops.linalg._mm_nh(x, y),
           [Sample([arr(3, 4, seed=1), arr(5, 4, seed=2)]),
            Sample([arr(3, 1, seed=1), arr(5, 1, seed=2)], desc="outer")], covers=("mm_nh",)),
    OpCase("mm_hn", lambda T, x, y: T.mm(x.mH, y) if T.__name__ == "torch" else T.ops.linalg._mm_hn(x, y),
           [Sample([arr(4, 3, seed=1), arr(4, 5, seed=2)]),
            Sample([arr(1, 3, seed=1), arr(1, 5, seed=2)], desc="outer")], covers=("mm_hn",)),
    OpCase("bmm", samples=[Sample([arr(2, 3, 4, seed=1), arr(2, 4, 5, seed=2)]),
                           Sample([arr(1, 2, 2, seed=1), arr(1, 2, 3, seed=2)], desc="batch 1")],
           ref=np.matmul,
           errors=[E(RuntimeError, "batch1 must be a 3D tensor", f32(3, 4), f32(3, 4, 5), desc="2-d"),
                   E(RuntimeError, "batch2 must be a 3D tensor", f32(2, 3, 4), f32(4, 5), desc="2-d second"),
                   E(RuntimeError, "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: "
                     "[3, 4].", f32(2, 3, 4), f32(3, 4, 5), desc="batch"),
                   E(RuntimeError, "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: "
                     "[2, 5].", f32(2, 3, 4), f32(2, 5, 5), desc="inner"),
                   E(RuntimeError, "expected scalar type Float but found Double", f32(2, 3, 4), f64(2, 4, 5),
                     desc="dtype")]),
    OpCase("mv", samples=[Sample([arr(3, 4, seed=1), arr(4, seed=2)]), Sample([arr(1, 2, seed=1), arr(2, seed=2)])],
           ref=np.matmul,
           errors=[E(RuntimeError, "vector + matrix @ vector expected, got 1, 1, 1", f32(3), f32(3), desc="1-d"),
                   E(RuntimeError, "vector + matrix @ vector expected, got 1, 2, 2", f32(3, 4), f32(4, 1),
                     desc="2-d vec"),
                   E(RuntimeError, "size mismatch, got input (3), mat (3x4), vec (5)", f32(3, 4), f32(5), desc="size"),
                   E(RuntimeError, "addmv input tensors must have the same dtype, but got Double, Float, and Double",
                     f32(3, 4), f64(4), desc="dtype")]),
    OpCase("dot", samples=[Sample([arr(5, seed=1), arr(5, seed=2)])], ref=np.dot,
           errors=[E(RuntimeError, "1D tensors expected, but got 2D and 2D tensors", f32(3, 2), f32(3, 2), desc="2-d"),
                   E(RuntimeError, "1D tensors expected, but got 1D and 2D tensors", f32(3), f32(3, 1), desc="1d-2d"),
                   E(RuntimeError, "inconsistent tensor size, expected tensor [3] and src [4] to have the same number "
                     "of elements, but got 3 and 4 elements respectively", f32(3), f32(4), desc="size"),
                   E(RuntimeError, "dot : expected both vectors to have same dtype, but found Float and Double",
                     f32(3), f64(3), desc="dtype"),
                   E(RuntimeError, "dot : expected both vectors to have same dtype, but found ComplexFloat and "
                     "ComplexDouble", dt(np.complex64, 3), dt(np.complex128, 3), desc="dtype complex")]),
    OpCase("dot_method", lambda T, x, y: x.dot(y) * x, [Sample([arr(3, seed=1), arr(3, seed=2)])],
           covers=("dot", "mul")),
    OpCase("vdot", samples=[Sample([arr(5, seed=1), arr(5, seed=2)])], ref=np.vdot,
           errors=[E(RuntimeError, "1D tensors expected, but got 2D and 1D tensors", f32(3, 2), f32(3), desc="2-d"),
                   E(RuntimeError, "dot : expected both vectors to have same dtype, but found Float and Double",
                     f32(3), f64(3), desc="dtype")]),
    OpCase("vdot_self", lambda T, x: T.vdot(x, x * 2), [Sample([arr(4, seed=1)])], covers=("vdot", "mul")),
    OpCase("outer", op="mul", samples=[Sample([arr(3, seed=1), arr(4, seed=2)])], covers=("mul", "unsqueeze"),
           ref=np.outer,
           errors=[E(RuntimeError, "outer: Expected 1-D argument self, but got 2-D", f32(3, 2), f32(4), desc="2-d"),
                   E(RuntimeError, "outer: Expected 1-D argument vec2, but got 2-D", f32(3), f32(4, 2),
                     desc="2-d second")]),
    OpCase("ger", op="mul", samples=[Sample([arr(2, seed=1), arr(3, seed=2)])], covers=("mul", "unsqueeze"),
           ref=np.outer),
    OpCase("einsum", _einsum,
           [_es("ij,jk->ik", (3, 4), (4, 2)),
            _es("ij,jk", (2, 3), (3, 2), desc="implicit output"),
            _es("ij,jk->ik", (3, 4), (4, 2), as_list=True, desc="operand list"),
            _es("ii->", (3, 3)),
            _es("ii", (3, 3), desc="implicit trace"),
            _es("ii->i", (3, 3)),
            _es("iij->ij", (2, 2, 3)),
            _es("ij->ji", (2, 3)),
            _es("ij->i", (2, 3)),
            _es("ij->", (2, 3)),
            _es("bij,bjk->bik", (2, 3, 4), (2, 4, 2)),
            _es("...ij,...jk->...ik", (1, 2, 3), (4, 3, 2), desc="ellipsis broadcast"),
            _es("...ij,jk->...ik", (2, 2, 3), (3, 2), desc="ellipsis one side"),
            _es("i...->...", (3, 2, 2), desc="ellipsis sum"),
            _es("i,j->ij", (3,), (2,)),
            _es("ij,ij->ij", (1, 3), (4, 3), desc="size-1 broadcast"),
            _es("ij,ij->", (2, 3), (2, 3)),
            _es("ij,jk,kl->il", (2, 3), (3, 4), (4, 2)),
            _es("ii,i->i", (3, 3), (3,)),
            _es("i,i", (4,), (4,), desc="implicit dot"),
            _es("ij,k->j", (2, 3), (4,), desc="summed apart"),
            _es(" b i j , b j -> b i ", (2, 3, 4), (2, 4), desc="spaces")],
           errors=EINSUM_ERRORS),
    OpCase("einsum_sublist", lambda T, x, y: T.einsum(x, [0, 1], y, [1, 2], [0, 2]),
           [Sample([arr(2, 3, seed=1), arr(3, 4, seed=2)])], covers=("einsum",)),
    OpCase("tensordot", op="einsum",
           samples=[Sample([arr(2, 3, 4, seed=1), arr(3, 4, 2, seed=2)], kwargs=dict(dims=2), desc="int"),
                    Sample([arr(2, 3, 4, seed=1), arr(4, 3, 2, seed=2)], kwargs=dict(dims=([1, 2], [1, 0])),
                           desc="lists"),
                    Sample([arr(2, 3, seed=1), arr(2, seed=2)], kwargs=dict(dims=0), desc="outer"),
                    Sample([arr(2, 3, seed=1), arr(3, 2, seed=2)], kwargs=dict(dims=([-1], [0])), desc="neg")],
           ref=lambda x, y, dims: np.tensordot(x, y, dims),
           errors=[E(RuntimeError, "contracted dimensions need to match, but first has size 3 in dim -1 and second "
                     "has size 4 in dim 0", f32(2, 3), f32(4, 5), dims=1, desc="size"),
                   E(RuntimeError, "contracted dimensions need to match, but first has size 2 in dim -2 and second "
                     "has size 3 in dim 0", f32(2, 3), f32(3, 2), dims=2, desc="size 2"),
                   E(RuntimeError, "contracted dimensions need to match, but first has size 3 in dim 1 and second "
                     "has size 4 in dim 1", f32(2, 3), f32(3, 4), dims=([1], [1]), desc="size lists"),
                   E(RuntimeError, "both inputs should have same dtype", f32(2, 3), f64(2, 3), dims=2, desc="dtype"),
                   E(RuntimeError, "tensordot expects dims >= 0, but got dims=-1", f32(2, 3), f32(3, 4), dims=-1,
                     desc="negative"),
                   E(RuntimeError, "tensordot expects dims < ndim_a or ndim_b, but got dims=3", f32(2, 3), f32(3, 4),
                     dims=3, desc="too many"),
                   E(RuntimeError, "both dimension lists should have same length", f32(2, 3), f32(3, 4),
                     dims=([1, 0], [0]), desc="lengths"),
                   E(IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)", f32(2, 3),
                     f32(3, 5), dims=([1], [2]), desc="dim out of range"),
                   E(RuntimeError, "dim 1 appears multiple times in the list of dims", f32(2, 3), f32(3, 2),
                     dims=([1, 1], [0, 0]), desc="repeated"),
                   E(RuntimeError, "tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                     "containing two lists, but got dims=1.5", f32(2, 3), f32(3, 2), dims=1.5, desc="float")]),
    OpCase("inner", op="einsum",
           samples=[Sample([arr(2, 3, seed=1), arr(4, 3, seed=2)]), Sample([arr(3, seed=1), arr(3, seed=2)], desc="1d"),
                    Sample([arr(2, 2, 3, seed=1), arr(3, seed=2)], desc="3d-1d"),
                    Sample([arr(seed=1).reshape(()), arr(2, 3, seed=2)], desc="0-d")],
           covers=("einsum", "mul"), ref=np.inner,
           errors=[E(RuntimeError, "inner() the last dimension must match on both input tensors but got shapes [3] "
                     "and [4]", f32(3), f32(4), desc="last"),
                   E(RuntimeError, "inner() the last dimension must match on both input tensors but got shapes [2, 3] "
                     "and [4, 4]", f32(2, 3), f64(4, 4), desc="last 2-d"),
                   E(RuntimeError, "both inputs should have same dtype", f32(2, 3), f64(4, 3), desc="dtype")]),
    OpCase("kron", op="mul",
           samples=[Sample([arr(2, 3, seed=1), arr(2, 2, seed=2)]),
                    Sample([arr(2, seed=1), arr(3, 2, seed=2)], desc="1d-2d"),
                    Sample([arr(2, 1, 2, seed=1), arr(2, 3, seed=2)], desc="3d-2d")],
           covers=("mul", "view", "_unsafe_view"), ref=np.kron),
    OpCase("trace", samples=[Sample([arr(3, 3, seed=1)]), Sample([arr(2, 4, seed=1)], desc="wide"),
                             Sample([arr(4, 2, seed=1)], desc="tall")],
           ref=np.trace,
           errors=[E(RuntimeError, "trace: expected a matrix, but got tensor with dim 1", f32(3), desc="1-d"),
                   E(RuntimeError, "trace: expected a matrix, but got tensor with dim 3", f32(2, 3, 4), desc="3-d"),
                   E(NotImplementedError, "\"trace\" not implemented for 'Bool'", dt(bool, 2, 2), desc="bool")]),
    OpCase("addmm", samples=[Sample([arr(2, 4, seed=0), arr(2, 3, seed=1), arr(3, 4, seed=2)]),
                             Sample([arr(4, seed=0), arr(2, 3, seed=1), arr(3, 4, seed=2)],
                                    kwargs=dict(beta=0.5, alpha=-2), desc="broadcast input, beta alpha"),
                             Sample([arr(2, 1, seed=0), arr(2, 3, seed=1), arr(3, 4, seed=2)], kwargs=dict(beta=0),
                                    desc="beta 0")],
           ref=lambda i, a, b, beta=1, alpha=1: beta * i + alpha * (a @ b) if beta else alpha * (a @ b),
           errors=[E(RuntimeError, "mat1 must be a matrix, got 1-D tensor", f32(3), f32(3), f32(3, 3), desc="1-d mat1"),
                   E(RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x3)", f32(3), f32(2, 3),
                     f32(4, 3), desc="shapes"),
                   E(RuntimeError, "The expanded size of the tensor (3) must match the existing size (5) at "
                     "non-singleton dimension 1.  Target sizes: [2, 3].  Tensor sizes: [5]", f32(5), f32(2, 3),
                     f32(3, 3), desc="input shape"),
                   E(RuntimeError, "self and mat2 must have the same dtype, but got Float and Double", f32(3),
                     f32(2, 3), f64(3, 3), desc="dtype mat2"),
                   E(RuntimeError, "self and mat2 must have the same dtype, but got Double and Float", f64(3),
                     f32(2, 3), f32(3, 3), desc="dtype input"),
                   E(RuntimeError, "value cannot be converted to type float without overflow", f32(3), f32(2, 3),
                     f32(3, 3), beta=2j, desc="complex beta")]),
    OpCase("baddbmm", samples=[Sample([arr(2, 2, 4, seed=0), arr(2, 2, 3, seed=1), arr(2, 3, 4, seed=2)]),
                               Sample([arr(4, seed=0), arr(2, 2, 3, seed=1), arr(2, 3, 4, seed=2)],
                                      kwargs=dict(beta=2, alpha=0.5), desc="broadcast input, beta alpha")],
           ref=lambda i, a, b, beta=1, alpha=1: beta * i + alpha * (a @ b),
           errors=[E(RuntimeError, "batch1 must be a 3D tensor", f32(3), f32(2, 3), f32(2, 3, 3), desc="2-d"),
                   E(RuntimeError, "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: "
                     "[2, 4].", f32(3), f32(2, 2, 3), f32(2, 4, 3), desc="batch"),
                   E(RuntimeError, "The expanded size of the tensor (3) must match the existing size (5) at "
                     "non-singleton dimension 2.  Target sizes: [2, 2, 3].  Tensor sizes: [5]", f32(5),
                     f32(2, 2, 3), f32(2, 3, 3), desc="input shape"),
                   E(RuntimeError, "expected scalar type Float but found Double", f32(3), f32(2, 2, 3), f64(2, 3, 3),
                     desc="dtype"),
                   E(RuntimeError, "Input dtypes must be the same, got: input double, batch1: float, batch2: float",
                     f64(3), f32(2, 2, 3), f32(2, 3, 3), desc="dtype input")]),
    OpCase("addmv", samples=[Sample([arr(2, seed=0), arr(2, 3, seed=1), arr(3, seed=2)]),
                             Sample([arr(1, seed=0), arr(2, 3, seed=1), arr(3, seed=2)],
                                    kwargs=dict(beta=0.5, alpha=-2), desc="broadcast input, beta alpha"),
                             Sample([arr(seed=0), arr(2, 3, seed=1), arr(3, seed=2)], kwargs=dict(beta=0),
                                    desc="0-d input, beta 0")],
           ref=lambda i, a, b, beta=1, alpha=1: beta * i + alpha * (a @ b) if beta else alpha * (a @ b),
           errors=[E(RuntimeError, "vector + matrix @ vector expected, got 1, 1, 1", f32(2), f32(3), f32(3),
                     desc="1-d mat"),
                   E(RuntimeError, "vector + matrix @ vector expected, got 2, 2, 1", f32(2, 1), f32(2, 3), f32(3),
                     desc="2-d input"),
                   E(RuntimeError, "size mismatch, got input (3), mat (2x3), vec (3)", f32(3), f32(2, 3), f32(3),
                     desc="input size"),
                   E(RuntimeError, "size mismatch, got input (2), mat (2x3), vec (4)", f32(2), f32(2, 3), f32(4),
                     desc="vec size"),
                   E(RuntimeError, "addmv input tensors must have the same dtype, but got Float, Double, and "
                     "Float", f32(2), f64(2, 3), f32(3), desc="dtype"),
                   E(NotImplementedError, "\"addmv_impl_cpu\" not implemented for 'Bool'", dt(bool, 2),
                     dt(bool, 2, 3), dt(bool, 3), desc="bool"),
                   E(RuntimeError, "value cannot be converted to type float without overflow", f32(2), f32(2, 3),
                     f32(3), beta=2j, desc="complex beta")]),
    OpCase("addr", samples=[Sample([arr(2, 3, seed=0), arr(2, seed=1), arr(3, seed=2)]),
                            Sample([arr(3, seed=0), arr(2, seed=1), arr(3, seed=2)],
                                   kwargs=dict(beta=0.5, alpha=-2), desc="broadcast input, beta alpha"),
                            Sample([arr(2, 1, seed=0), arr(2, seed=1), arr(3, seed=2)], kwargs=dict(beta=0),
                                   desc="beta 0")],
           ref=lambda i, a, b, beta=1, alpha=1: beta * i + alpha * np.outer(a, b) if beta else alpha * np.outer(a, b),
           errors=[E(RuntimeError, "addr: Expected 1-D argument vec1, but got 2-D", f32(2, 3), f32(2, 1), f32(3),
                     desc="2-d vec1"),
                   E(RuntimeError, "addr: Expected 1-D argument vec2, but got 2-D", f32(2, 3), f32(2), f32(3, 1),
                     desc="2-d vec2"),
                   E(RuntimeError, "The expanded size of the tensor (3) must match the existing size (2) at "
                     "non-singleton dimension 1.  Target sizes: [2, 3].  Tensor sizes: [2]", f32(2), f32(2),
                     f32(3), desc="input shape"),
                   E(RuntimeError, "For integral input tensors, argument beta must not be a floating point "
                     "number.", dt(np.int64, 2, 3), dt(np.int64, 2), dt(np.int64, 3), beta=0.5, desc="int beta"),
                   E(RuntimeError, "Boolean alpha only supported for Boolean results.", f32(2, 3), f32(2), f32(3),
                     alpha=True, desc="bool alpha"),
                   E(RuntimeError, "value cannot be converted to type float without overflow", f32(2, 3), f32(2),
                     f32(3), beta=2j, desc="complex beta")]),
    # ------------------------------------------------------------ ops/matrices.py, tensorplay.linalg
    OpCase("linalg_inv", lambda T, a: T.linalg.inv(a), [Sample([_WELL]), Sample([_WELL_B], desc="batch")],
           low_precision=False,                 # (PyTorch refuses half: "Low precision dtypes")
           errors=[E(RuntimeError, "linalg.inv: A must be batches of square matrices, but they are 2 by 3 "
                     "matrices", f64(2, 3)),
                   E(RuntimeError, "linalg.inv: Expected a floating point or complex tensor as input. Got "
                     "Long", np.ones((2, 2), np.int64), desc="int")]),
    OpCase("inverse", lambda T, a: (T.inverse(a), a.inverse()), [Sample([_WELL])], covers=("linalg_inv",),
           low_precision=False),
    OpCase("linalg_det", lambda T, a: (T.linalg.det(a), T.det(a), a.det()),
           [Sample([_WELL]), Sample([_WELL_B], desc="batch")], low_precision=False,
           errors=[E(RuntimeError, "linalg.det: The input tensor A must have at least 2 dimensions.",
                     f64(3))]),
    OpCase("_det_cofactors", lambda T, a: T.linalg.det(a),
           [Sample([_SING], desc="singular"), Sample([_SING_B], desc="batch, ill-conditioned")],
           covers=("_det_cofactors", "linalg_det"), low_precision=False),
    OpCase("linalg_slogdet", lambda T, a: tuple(T.linalg.slogdet(a)) + tuple(T.slogdet(a)),
           [Sample([_WELL]), Sample([-_WELL_B], desc="batch, negative")], low_precision=False),
    OpCase("logdet", lambda T, a: T.logdet(a @ a.mT + 0.5 * T.eye(3, dtype=a.dtype)),
           [Sample([_WELL])], covers=("linalg_slogdet",), complex=False, low_precision=False),
    OpCase("linalg_solve", lambda T, a, b: T.linalg.solve(a, b),
           [Sample([_WELL, arr(3, 2, seed=5)]), Sample([_WELL_B, arr(3, seed=6)], desc="vector, broadcast"),
            Sample([_WELL_B, arr(2, 3, seed=7)], desc="batch of vectors")], low_precision=False,
           errors=[E(RuntimeError, "linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                     "(3x3 and 2x1)", _WELL, f64(2))]),
    OpCase("linalg_solve_left", lambda T, a, b: T.linalg.solve(a, b, left=False).resolve_conj(),
           [Sample([_WELL, arr(2, 3, seed=5)])], covers=("linalg_solve",), low_precision=False),
    OpCase("matrix_power", lambda T, a: (T.linalg.matrix_power(a, 3), a.matrix_power(-2),
                                         T.linalg.matrix_power(a, 0)),
           [Sample([_WELL]), Sample([_WELL_B], desc="batch")], covers=("mm", "linalg_inv"), low_precision=False),
    OpCase("matrix_norm", lambda T, a: tuple(T.linalg.matrix_norm(a, o) for o in ("fro", 1, -1)) +
           (T.linalg.matrix_norm(a, float("inf"), keepdim=True), T.linalg.norm(a[0], -float("inf"))),
           [Sample([_WELL_B])], covers=("linalg_vector_norm", "amax", "amin"), complex=False),
    OpCase("vecdot", lambda T, x, y: (T.linalg.vecdot(x, y), T.linalg.vecdot(x, y, dim=0)),
           [Sample([arr(3, 4, seed=8), arr(3, 4, seed=9)])], covers=("mul", "sum")),
    OpCase("multi_dot", lambda T, a, b, v: T.linalg.multi_dot([a, b, a, v]),
           [Sample([_WELL, arr(3, 3, seed=10), arr(3, seed=11)])], covers=("mm",)),
]
