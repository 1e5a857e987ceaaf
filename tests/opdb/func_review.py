"""``_bincount_weighted``: ``bincount`` with weights that require grad (or that
carry a tangent or a batch), whose node has the weights' edge and no derivative
(PyTorch's NotImplemented node: a gradient reaching the weights raises;
tests/test_func_review_fixes.py checks that).  The rows batch the weights
only: a batched input has a dynamic output shape (vmap refuses it)."""
import numpy as np

from . import E, OpCase, Sample

X = np.array([0, 1, 1, 3])


def _weighted(T, w, **kwargs):
    # weights requiring grad take the op (the row checks values only)
    w = w.detach().requires_grad_(w.is_floating_point())
    return T.bincount(T.tensor(X), w, **kwargs).detach()


CASES = [
    OpCase("_bincount_weighted", fn=_weighted,
           samples=[Sample([np.array([0.5, 1.0, 1.0, 2.0])], grad=[0]),
                    Sample([np.array([1.5, -2.0, 0.25, 3.0])], {"minlength": 6}, grad=[0],
                           desc="minlength")],
           ref=lambda w, minlength=0: np.bincount(X, w, minlength),
           differentiable=False,                    # (values only: the weights' gradient raises)
           noncontig=False, zero_size=False,        # (1-d input only: no 2-d sample to derive them from)
           low_precision=False,                     # (half weights give float64, as in PyTorch)
           errors=[E(RuntimeError, "weights should be 1-d and have the same length as input",
                     np.array([1.0, 2.0, 3.0]), desc="length")]),
]
