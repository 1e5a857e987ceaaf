"""The op test table (in the spirit of PyTorch's OpInfo).

Each ``OpCase`` names the registry ops it covers, a function written against
a module ``T`` (``tensorplay`` or ``torch``, so the same code is the oracle
call), and samples.  ``tests/test_op_table.py`` runs, for every case and
sample: gradcheck in float64, gradgradcheck, complex gradcheck where the op
supports complex, dtype preservation, and (with torch installed) values and
gradients against PyTorch.

Sample inputs are NumPy arrays (float64 unless noted); the generic tests make
tensors of them, with ``requires_grad`` on the floating ones listed in
``grad``.  Non-tensor arguments go in ``kwargs`` or are closed over in ``fn``.
"""
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np


@dataclass
class Sample:
    arrays: Sequence[np.ndarray]
    kwargs: dict = field(default_factory=dict)
    grad: Sequence[int] = None          # which arrays require grad (default: all floating ones)
    desc: str = ""


@dataclass
class OpCase:
    name: str                           # test id
    fn: Callable                        # fn(T, *tensors, **kwargs) -> Tensor or tuple
    samples: Sequence[Sample]
    covers: Sequence[str] = ()          # registry op names exercised (default: (name,))
    complex: bool = True                # also gradcheck with complex128 inputs
    gradgrad: bool = True               # run gradgradcheck
    differentiable: bool = True         # False: only values (and dtype) are checked
    torch_fn: Callable = None           # oracle call if it differs from fn (torch spelling)
    atol: float = 1e-5
    rtol: float = 1e-3
    low_precision: bool = True          # check float16/bfloat16 forward against float32
    preserves_dtype: bool = True        # floating outputs have the floating inputs' dtype
    torch_complex: bool = True          # compare complex gradients with torch's
    domain: tuple = None                # (lo, hi) for generated values; used by make()

    def __post_init__(self):
        if not self.covers:
            self.covers = (self.name,)


def rng(seed=0):
    return np.random.default_rng(seed)


def arr(*shape, lo=-2.0, hi=2.0, seed=0, dtype=np.float64):
    """Random float64 array in [lo, hi), deterministic per seed."""
    return rng(seed).uniform(lo, hi, shape).astype(dtype)


def pos(*shape, seed=0):
    """Positive values away from 0 (for log, sqrt, ...)."""
    return arr(*shape, lo=0.5, hi=2.0, seed=seed)


def unit(*shape, seed=0):
    """Values inside (-1, 1) away from the ends (for asin, atanh, ...)."""
    return arr(*shape, lo=-0.8, hi=0.8, seed=seed)


def _gather():
    from . import pointwise
    cases = list(pointwise.CASES)
    for mod in ("reduction", "shape", "indexing", "linalg", "complex_ops", "core", "more"):
        try:
            m = __import__(f"{__name__}.{mod}", fromlist=["CASES"])
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{mod}":
                raise
            continue
        cases += list(m.CASES)
    return cases


CASES = _gather()
