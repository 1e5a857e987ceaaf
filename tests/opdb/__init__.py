"""The op test table (in the spirit of PyTorch's OpInfo database).

Each ``OpCase`` row is about one registry op (``op``), names every registry
op it exercises (``covers``), gives a function written against a module ``T``
(``tensorplay`` or ``torch``, so the same code is the oracle call) and
samples.  ``tests/test_op_table.py`` runs, for every row and sample:
gradcheck in float64, gradgradcheck, complex gradcheck where the op supports
complex, dtype preservation, half/bfloat16, and (with torch installed) values
and gradients against PyTorch; and, per row: that the ops in ``covers`` run,
the method / in-place / operator spellings against the function spelling, a
non-contiguous and a zero-size sample made from the first one, and the
row's error inputs.

Rows default from the registry.  A row that leaves ``fn`` out is the plain
function spelling ``T.<func>(*tensors, **kwargs)`` (``func`` defaults to the
row's name if tensorplay has that function, else the op's; ``args`` orders
the positional arguments where a non-tensor comes first, as in
``T.gather(x, dim, index)``); only such rows get their method, in-place and
operator spellings compared automatically.  ``differentiable``,
``float_only`` and ``family`` default to what ``REGISTRY[op]`` says (``None``
in a row means "ask the registry"; ``family`` may well be ``None``); a row
sets them only to override.  Several rows may be about one op: the plain one,
and variants for other spellings or special inputs (OpInfo's
``variant_test_name``).

Sample inputs are NumPy arrays (float64 unless noted); the generic tests make
tensors of them, with ``requires_grad`` on the floating ones listed in
``grad``.  Non-tensor arguments go in ``kwargs`` or are closed over in ``fn``.
``errors`` lists inputs the op refuses, with PyTorch's exception type and
message.  A known discrepancy in src/ is a strict expected failure with its
reason: ``xfail={"<check>": why}`` on a row (checks: gradcheck,
gradgradcheck, complex, float32, low_precision, against_torch, covers,
spellings, spellings_exist, noncontig, zero_size, ref, float_only, view),
``xfail=why`` on an error input.
"""
import re
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

_UNSET = object()


@dataclass
class Sample:
    arrays: Sequence[np.ndarray]
    kwargs: dict = field(default_factory=dict)
    grad: Sequence[int] = None          # which arrays require grad (default: all floating ones)
    desc: str = ""


@dataclass
class ErrorInput:
    """Inputs the op must refuse: ``exc_type`` with a message matching ``regex``
    (``re.search``), in tensorplay and, with torch installed, in PyTorch.
    ``fn`` replaces the row's function for a call the row's spelling cannot
    make (an index expression, a list argument, a bfloat16 input)."""
    sample: Sample
    exc_type: type
    regex: str
    fn: Callable = None
    xfail: str = None                   # a known discrepancy in src/: why tensorplay differs


def exact(msg):
    """A regex matching exactly ``msg``."""
    return "^" + re.escape(msg) + "$"


def E(exc_type, msg, *arrays, fn=None, regex=False, desc="", xfail=None, **kwargs):
    """An ``ErrorInput`` written compactly: the arrays and keyword arguments of
    the sample, and the message (exact unless ``regex=True``)."""
    return ErrorInput(Sample(list(arrays), kwargs, desc=desc), exc_type,
                      msg if regex else exact(msg), fn, xfail)


@dataclass
class OpCase:
    name: str                           # test id
    fn: Callable = None                 # fn(T, *tensors, **kwargs) -> Tensor or tuple;
                                        # default: T.<func>(*tensors, **kwargs)
    samples: Sequence[Sample] = ()
    covers: Sequence[str] = ()          # registry op names exercised (default: (op,))
    op: str = None                      # the registry op the row is about (default: name if
                                        # registered, else covers[0], else func); its entry gives
                                        # the defaults
    func: str = None                    # public function (dotted under T) for the default fn
                                        # (default: the row's name if T has it, else op)
    args: Sequence[str] = None          # the default fn's positional parameters, where a non-tensor
                                        # comes before a tensor: T.gather(x, dim, index) is
                                        # args=("x", "dim", "index"); names found in a sample's kwargs
                                        # come from there, the others are its arrays in order
    complex: bool = True                # also gradcheck with complex128 inputs
    gradgrad: bool = True               # run gradgradcheck
    differentiable: bool = None         # None: REGISTRY[op].differentiable. False: values only
    float_only: bool = None             # None: REGISTRY[op].float_only (integer inputs -> float)
    family: object = _UNSET             # REGISTRY[op].family unless set (may be None)
    torch_fn: Callable = None           # oracle call if it differs from fn (torch spelling)
    atol: float = 1e-5
    rtol: float = 1e-3
    low_precision: bool = True          # check float16/bfloat16 forward against float32
    preserves_dtype: bool = True        # floating outputs have the floating inputs' dtype
    torch_complex: bool = True          # compare complex gradients with torch's
    domain: tuple = None                # (lo, hi) for generated values; used by make()
    # spellings, for rows with the default fn: None = discover, False = none, or a callable
    # (*tensors, **kwargs) -> result (operator) / a name (method, in-place)
    method: object = None
    inplace: object = None
    operator: Callable = None
    noncontig: object = True            # generate a non-contiguous sample (False: say why;
                                        # "refused": the op refuses one, as PyTorch's does)
    zero_size: bool = True              # generate a sample with a size-0 dimension (False: say why)
    ref: Callable = None                # NumPy reference ref(*arrays, **kwargs): values, and the
                                        # zero-size shapes when torch is not installed
    errors: Sequence[ErrorInput] = ()
    xfail: dict = field(default_factory=dict)   # generic test name -> why (a known bug in src/)

    def __post_init__(self):
        from tensorplay.ops import REGISTRY
        self.plain = self.fn is None
        if self.op is None:
            self.op = self.name if self.name in REGISTRY else (
                self.covers[0] if self.covers else self.func if self.func in REGISTRY else self.name)
        if not self.covers:
            self.covers = (self.op,)
        entry = REGISTRY.get(self.op)       # None: an unregistered name (a test reports it)
        if self.differentiable is None:
            self.differentiable = entry.differentiable if entry is not None else True
        if self.float_only is None:
            self.float_only = entry.float_only if entry is not None else False
        if self.family is _UNSET:
            self.family = getattr(entry, "family", None)
        if self.plain:
            import tensorplay
            self.func = self.func or (self.name if callable(getattr(tensorplay, self.name, None)) else self.op)
            self.fn = _function_spelling(self.func, self.arrange)
        self.samples = list(self.samples)
        self.errors = list(self.errors)

    def arrange(self, xs, kwargs):
        """The positional and keyword arguments of the function spelling, from a
        sample's tensors and keyword arguments (see ``args``)."""
        if not self.args:
            return list(xs), dict(kwargs)
        kw, it, pos = dict(kwargs), iter(xs), []
        for a in self.args:
            if a in kw:
                pos.append(kw.pop(a))
            else:
                try:
                    pos.append(next(it))
                except StopIteration:       # fewer tensors (an error input): what is there
                    break
        return pos + list(it), kw


def _function_spelling(func, arrange):
    path = func.split(".")

    def fn(T, *xs, **kwargs):
        f = T
        for p in path:
            f = getattr(f, p)
        pos, kw = arrange(xs, kwargs)
        return f(*pos, **kw)
    fn.__name__ = fn.__qualname__ = func
    return fn


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
    for mod in ("reduction", "shape", "indexing", "linalg", "complex_ops", "core", "more", "nn_ops",
                "conv", "compat", "decompositions", "linalg_more", "special_fns", "special_bessel", "fft", "nn_more", "shape_more", "stats", "fractional_pool", "ctc", "dist_ops", "func_review",
                "factorizations", "tensor_copies"):
        try:
            m = __import__(f"{__name__}.{mod}", fromlist=["CASES"])
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{mod}":
                raise
            continue
        cases += list(m.CASES)
    return cases


CASES = _gather()
