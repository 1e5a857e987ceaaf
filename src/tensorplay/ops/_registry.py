"""The op registry: one definition per op, everything about it side by side.

An op is a NumPy kernel plus, for each tensor input, its vector-Jacobian
product written in tensorplay ops (so backward is differentiable again), and
slots for the forward-mode rule (``jvp``) and the vmap batching rule
(``batch``).  ``defop`` turns a definition into the public function; the
method, operator and in-place spellings are made from that same function.

Each derivative names what it reads (``"x": lambda g, y: g * conj(y)``): the
op's parameters and ``result``.  From those names each op has a ``SavePlan``
per pattern of inputs that require grad, so a node saves exactly what the
derivatives that will run read.  Inputs named in ``meta=`` are needed only
for their shape/dtype: a ``TensorMeta`` stands in for them.  ``dispatch`` is
the general path, ``record`` builds the backward node, and ``TRANSFORMS`` is
the one interception point for forward mode and the function transforms.
"""
import copy
import inspect
import operator
import weakref

import numpy as np

from .. import _dtype as D
from .._compat import kernel_signature
from .._tensor import Tensor, TensorMeta, _wrap, _ndarray, _new, validate_grad, INFERENCE_VERSION
from .._autograd.engine import FREED_MSG, DeferredError
from .._autograd.saved_hooks import DETACHED_MSG
from .._out import call_with_out
from ._util import F32 as _F32, star_by_keyword, dtype_error, number_arg
from .._autograd.graph import AccumulateGrad, Node
from .._autograd.grad_mode import INFERENCE_THREADS, state
from .._autograd.anomaly_mode import anomaly, note_creation
from .._autograd.saved_hooks import hook_state, ACTIVE as _HOOKS_ACTIVE
from .._autograd.saved_hooks import version_error, _owner_desc, _short_name, run_pack_hook

REGISTRY = {}                      # name -> Op
_LOWP = D.LOW_PRECISION
_PLAIN = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))
_PLAIN_REAL = frozenset(np.dtype(t) for t in (np.float32, np.float64))


def real_float_kernel(spec):
    """An entry's ``no_complex``, ``no_bool`` and ``no_int`` at once: PyTorch's
    kernel ``spec`` takes real floating point only (most activations)."""
    return {"no_complex": spec, "no_bool": spec, "no_int": spec}


class Op:
    """One op: its kernel, the derivative of each differentiable input by name,
    its family (which supplies the default forward-mode and batching rules),
    the parameters that are dimensions, and its spellings.

    ``derivatives`` maps an input's name to its vjp, ``lambda g, <names>: ...``
    whose parameters after the incoming gradient ``g`` name exactly what it
    reads: ``result`` (the op's output) and the op's own parameters.  So what a
    node saves is known from the entry itself (the union of the names the vjps
    that will run declare), without reading the interpreter's bytecode.  The
    string ``"grad"`` stands for ``lambda g: g`` and is not called.  The string
    ``"zero"`` says that the output depends on that input only through what has
    no derivative (its shape, a mask or indices taken from it: the backward ops
    of piecewise-linear functions, which PyTorch gives ``self`` as an input):
    the node keeps an edge to it, so that the output requires grad when the
    input does, its vjp is zeros of the input's shape (only a ``TensorMeta`` is
    saved) and forward mode gives it no tangent.  A second derivative of relu,
    hardtanh or max pooling is then zeros, not "does not require grad".  A variadic
    op (``n_in=-1``: a kernel written flat, ``kernel(*tensors, *params)``,
    under ``flat_kernel``) has one derivative, keyed by the star parameter's
    name, that returns a gradient per tensor.  Parameters listed in ``meta`` are
    needed only for their shape and dtype: a ``TensorMeta`` is saved instead
    of the tensor.  ``kwonly`` names the kernel's last (positional)
    parameters that the public function takes by keyword only.

    ``method``, ``inplace`` and ``operators`` are the op's spellings on Tensor
    (see ``Spelling``); the function ``defop`` returns carries them.  ``exact``
    (default: the family's) says that the derivatives give each tensor input a
    gradient of its shape, and of its dtype when the output has that dtype, so
    that the engine need not check them (an elementwise op's fit when the
    inputs have the output's shape).

    ``no_complex``: the op has no complex kernel in PyTorch (orderings,
    roundings, activations with kinks): a complex input is refused with
    PyTorch's error (``dtype_error``'s spec) instead of NumPy's lexicographic
    order or its TypeError.  ``no_bool``, ``no_int``: the same for bool and
    integer inputs (which a ``float_only`` op would otherwise compute in
    floating point).  A spec may also be a function of the op's arguments that
    gives it, or None to accept (round's two kernels, one of which takes
    integers).  ``_prep`` checks them, on the inputs' common dtype for an op
    that promotes; the inline paths of ``dispatch`` and the pointwise fast
    paths take only real floats for a ``no_complex`` op, so that complex
    inputs reach ``_prep`` and real ones pay nothing.
    """
    saves_arrays = False    # a saved parameter stands for what PyTorch frees after a backward
    #                         (index arrays: its saved tensors; copy_slices' view chain)
    wraps_numbers = True    # a Python number in a tensor position is a wrapped tensor in
    #                         PyTorch (freed after use); False where PyTorch takes a Scalar
    meta_type = TensorMeta  # what is kept of an input named in ``meta=`` (as_strided: more)

    def __init__(self, name, kernel, derivatives=None, *, n_in, args=None, family=None,
                 jvp=None, batch=None, dims=(), linear=False, meta=(), promote=False, float_only=False,
                 upcast=True, out_dtype=None, differentiable=True, view=False, nondiff_out=(),
                 node_name=None, method=True, inplace=False, operators=(), out_saved=None,
                 kwonly=(), exact=None, no_complex=None, no_bool=None, no_int=None, opmath=(),
                 opmath_0d=True, fits=(), fits_skip=frozenset(), numbers=(), check=None,
                 opmath_out=()):
        self.name, self.kernel, self.n_in = name, kernel, n_in
        self.family, self.dims, self.linear = family, tuple(dims), linear
        self.promote, self.float_only, self.upcast = promote, float_only, upcast
        self.out_dtype, self.view, self.nondiff_out = out_dtype, view, frozenset(nondiff_out)
        if view is True and (upcast or promote or float_only):
            # dispatch_view hands the arrays to the kernel as they are: an op whose
            # output is always a view converts no input
            raise ValueError(f"{name}: a view op takes upcast=False (and no promotion)")
        self.out_saved = out_saved      # outputs the vjps read, if not all (version-checked)
        self.spelling = Spelling(method, inplace, operators)
        self._signature(kernel, args, kwonly)
        # dtype kind -> what an input of it is refused with (checked by _prep)
        self.refuses = {k: v for k, v in (("c", no_complex), ("b", no_bool), ("i", no_int),
                                          ("u", no_int)) if v is not None} or None
        # half/bfloat16 arithmetic: the argument positions where a number (and, with
        # opmath_0d, a 0-d tensor) enters at full precision rather than rounded to the
        # tensor's dtype first (PyTorch's mul/div kernels read the original scalar;
        # add, pow... and comparisons round it; lerp rounds a weight tensor)
        self.opmath = frozenset(opmath)
        self.opmath_0d = frozenset(opmath) if opmath_0d else frozenset()
        # the outputs a half/bfloat16 call keeps in float32 (the norms' statistics, as
        # PyTorch's native norms return them: a variance past 65504 is inf in half)
        self.opmath_out = frozenset(opmath_out)
        # the number parameters PyTorch converts to the result's dtype with its overflow
        # check (clamp's bounds, pow's exponent: 300 into uint8, 1e6 into half are
        # refused, where add wraps or rounds its number), except for the result dtypes
        # in ``fits_skip`` (pow keeps a float or double tensor's exponent in double)
        self.check = check          # check(*args): PyTorch's refusals of the call as given
        self.fits = frozenset(self._position(n) for n in fits)
        self.fits_skip = fits_skip
        # the parameters PyTorch types as Number (or, written "name:float" or "name:int",
        # as float or int): a tensor there is refused unless it is 0-d and needs no
        # gradient (then its value), where NumPy would broadcast it silently; an int
        # parameter also refuses a float or a bool
        self.numbers = tuple((self._position(n.split(":")[0]), n.split(":")[0],
                              n.split(":")[1] if ":" in n else "Number") for n in numbers)
        # the dtypes dispatch hands to the kernel without _prep
        self.plain_dtypes = _PLAIN_REAL if no_complex is not None else _PLAIN
        if derivatives is not None and not isinstance(derivatives, dict):
            raise TypeError(f"{name}: derivatives are a dict from input name to vjp")
        self._derivatives(derivatives or {}, frozenset(meta))
        self.differentiable = differentiable and (
            self.vjp is not None if self.joint else any(f is not None for f in self.vjp))
        self.jvp = self._forward_rule(jvp) if jvp is not None else (
            family.jvp if family is not None else None)
        self.batch = batch if batch is not None else (family.batch if family is not None else None)
        self.elementwise = getattr(family, "name", None) == "elementwise"
        # the derivatives give each input its own shape (and dtype, when the output has
        # it): the family's word (Family.exact), or the entry's for an op of another
        self.exact = getattr(family, "exact", False) if exact is None else exact
        # dispatch's inline cases of _prep: one float/complex tensor, or two of one dtype
        # (one tensor: dispatch skips _prep, so not with numbers to check; two tensors
        # and nothing else: no number to check)
        self.plain_n = 0 if check is not None else \
            1 if n_in == 1 and not promote and not self.fits and not self.numbers else 2 if n_in == 2 else 0
        # an input without a derivative (an index, a mask, a condition, a dimension) is
        # no input of PyTorch's node: no slot of next_functions
        hidden = () if self.joint else tuple(i for i, f in enumerate(self.vjp) if f is None)
        self.node_cls = type(node_name or _camel(name) + "Backward0", (OpNode,),
                             {"__slots__": (), "op": self, "_hidden_args": hidden})
        self.variants = None    # optional args -> node class, for PyTorch's overload names
        self.multi_node_cls = type(self.node_cls.__name__, (MultiOutputNode,),  # (ops that
                                   {"__slots__": (), "op": self, "_hidden_args": hidden})  # return tuples)

    def _signature(self, kernel, args, kwonly):
        """The op's parameters: the kernel's, or ``args`` (names) for a kernel
        without a usable signature (NumPy's ufuncs).  ``kwonly`` names the
        kernel's trailing parameters that the public function takes by keyword
        only (PyTorch's ``sum(x, dim, *, dtype)``): the kernel itself takes
        them positionally, so that dispatch calls it without a wrapper."""
        if args is not None:
            P = inspect.Parameter
            params = [P(a, P.POSITIONAL_OR_KEYWORD) for a in args]
            self.varargs, self.star = False, None
        else:
            sig = kernel_signature(kernel)
            params = [p for p in sig.parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
            star = [p.name for p in sig.parameters.values() if p.kind == p.VAR_POSITIONAL]
            self.varargs, self.star = bool(star), (star[0] if star else None)
        if kwonly:
            if [p.name for p in params[len(params) - len(kwonly):]] != list(kwonly) or \
                    any(p.kind == p.KEYWORD_ONLY for p in params):
                raise TypeError(f"{self.name}: kwonly= names the kernel's last positional parameters")
            params = params[:len(params) - len(kwonly)] + [
                p.replace(kind=p.KEYWORD_ONLY) for p in params[len(params) - len(kwonly):]]
        self.params = params
        self.names = [p.name for p in params]
        self.defaults = [p.default for p in params]
        self.n_required = sum(p.default is p.empty for p in params)
        self.n_pos = sum(p.kind != p.KEYWORD_ONLY for p in params)
        self.variadic = self.n_in == -1  # kernel(*tensors, *, params): any number of tensor inputs
        self.n_kw = len(params) - self.n_pos
        if self.variadic and not getattr(kernel, "flat", False):
            raise TypeError(f"{self.name}: a variadic kernel is written flat, kernel(*tensors, "
                            "*params), under @flat_kernel(spec)")
        if self.n_pos < len(params) and not kwonly and not self.variadic:
            raise TypeError(f"{self.name}: a kernel's keyword-only parameters are declared with "
                            "kwonly= and written positionally")

    def _derivatives(self, derivatives, meta):
        """Order the derivatives by input, bind each to the arguments it names,
        and plan what a node must save (``uses``/``masks``)."""
        if "*" in meta and self.variadic:
            meta = (meta - {"*"}) | {self.star}
        if self.variadic:
            inputs = [self.star]
        else:
            inputs = self.names[:self.n_in]
        unknown = set(derivatives) - set(inputs)
        if unknown:
            raise TypeError(f"{self.name}: derivatives for {sorted(unknown)}, which are not "
                            f"tensor inputs of the op (its inputs: {inputs})")
        self.joint = self.variadic
        self.derivatives = {}                 # input name -> (function, names it reads)
        vjps, reads, ident, zero = [], [], [], []
        for inp in inputs:
            f = derivatives.get(inp)
            if f == "zero":
                zero.append(len(vjps))
                f = _zero_derivative
                self.derivatives[inp] = (f, (inp,))
                vjps.append(self._bind(f, (inp,)))
                reads.append((inp,)), ident.append(False)
                continue
            if f is None or f == "grad":
                if f == "grad":
                    self.derivatives[inp] = ("grad", ())
                vjps.append(_IDENTITY if f == "grad" else None)
                reads.append(()), ident.append(f == "grad")
                continue
            names = self._reads(f)
            self.derivatives[inp] = (f, names)
            vjps.append(self._bind(f, names))
            reads.append(names), ident.append(False)
        self.vjp = vjps[0] if self.joint else tuple(vjps)
        self.ident = tuple(ident)
        self.zero = frozenset(zero)     # inputs whose derivative is "zero"
        for m in meta:
            if m != "*" and m not in self.names and m != self.star:
                raise TypeError(f"{self.name}: meta names {m!r}, not a parameter")
        self.meta = meta
        self.reads = reads          # per tensor input: the names its derivative reads
        self.plans = {}             # which inputs require grad -> SavePlan

    def plan(self, key, n_in):
        """The ``SavePlan`` for a call whose inputs that require grad are the bits
        of ``key`` (a variadic op's one derivative runs whenever any does: its
        key is ``-n_in``)."""
        inputs = range(n_in)
        running = [0] if self.joint else [i for i in inputs if key >> i & 1]
        values, metas, result, keep = set(), set(), False, False
        for i in running:
            for name in self.reads[i]:
                where = self._position(name)
                if where == -1:
                    result = True
                    continue
                if where in (_VARARGS, _PARAM):
                    keep = True     # ``*size`` / a keyword parameter: kept with the arguments
                    continue
                positions = inputs if where == -2 else (where,)
                # (a "zero" derivative needs only the input's shape: unless another
                # derivative that runs reads its value, only that is kept)
                (metas if name in self.meta or i in self.zero else values).update(positions)
        params = sorted(i for i in values if i >= n_in)     # gather's index: a tensor parameter
        kinds = tuple("value" if i in values else "meta" if i in metas else None for i in inputs)
        plan = SavePlan(kinds, params, keep, result)
        plan.frees = self.saves_arrays and bool(params)
        self.plans[key] = plan
        return plan

    def _forward_rule(self, f):
        """An entry's own jvp, written as in derivatives.yaml: its parameters name
        the tangents of inputs (``x_t``), ``result`` and the op's parameters, and
        it returns the output's tangent.  (A rule taking ``(op, args, tangents,
        result)``, like the families' rules, is used as it is.)"""
        names = list(inspect.signature(f).parameters)
        if names[:1] == ["op"]:
            return f
        inputs = self.names[:self.n_in]
        get = []
        for n in names:
            if n.endswith("_t") and n[:-2] in inputs:
                get.append((True, inputs.index(n[:-2])))
            elif n == "result" or n in self.names:
                get.append((False, -1 if n == "result" else self.names.index(n)))
            else:
                raise TypeError(f"{self.name}: the jvp reads {n!r}, which is neither a tangent "
                                f"(<input>_t), 'result' nor a parameter of the op")

        def rule(op, args, tangents, result):
            vals = []
            for is_tangent, i in get:
                if is_tangent:
                    t = tangents[i]
                    vals.append(t if t is not None else args[i].new_zeros(args[i].shape))
                else:
                    vals.append(result if i == -1 else args[i] if i < len(args) else
                                self.defaults[i])
            return f(*vals)
        rule.__wrapped__ = f
        return rule

    def _reads(self, f):
        """The names a derivative reads: its parameters after the gradient."""
        params = list(inspect.signature(f).parameters.values())
        if not params or params[0].kind not in (params[0].POSITIONAL_ONLY,
                                                 params[0].POSITIONAL_OR_KEYWORD):
            raise TypeError(f"{self.name}: a derivative takes the incoming gradient first")
        known = {"result", *self.names} | ({self.star} if self.star else set())
        reads = tuple(p.name for p in params[1:])
        bad = [r for r in reads if r not in known]
        if bad:
            raise TypeError(f"{self.name}: a derivative reads {bad}, which are neither 'result' "
                            f"nor parameters of the op ({self.names})")
        return reads

    def _position(self, name):
        """Where a read name lives: -1 the output, -2 all tensor inputs of a
        variadic op, else the index in the op's arguments (``*size`` of a
        non-variadic op: every extra position)."""
        if name == "result":
            return -1
        if name == self.star:
            return -2 if self.variadic else _VARARGS
        if self.variadic:
            return _PARAM        # a keyword parameter after the tensors: never a tensor
        return self.names.index(name)

    def _bind(self, f, reads):
        """``f`` as ``vjp(g, out, args)``, the form nodes call (``args``: the node's
        saved argument list, one sequence, not unpacked), passing only what ``f`` names."""
        where = [self._position(r) for r in reads]
        if self.variadic:
            nk = self.n_kw
            get = [(lambda o, a: o) if w == -1 else (lambda o, a: tuple(a[:len(a) - nk])) if w == -2
                   else (lambda o, a, j=self.names.index(reads[i]) - self.n_pos: a[len(a) - nk + j])
                   for i, w in enumerate(where)]
            return lambda g, out, a: f(g, *[h(out, a) for h in get])
        if _VARARGS in where:
            n = self.n_pos
            get = [(lambda o, a: o) if w == -1 else (lambda o, a: tuple(a[n:])) if w == _VARARGS
                   else (lambda o, a, w=w: a[w]) for w in where]
            return lambda g, out, a: f(g, *[h(out, a) for h in get])
        if not where:
            return lambda g, out, a: f(g)
        if any(w >= self.n_in for w in where):
            # a parameter after the tensors: the pointwise fast paths record only
            # the tensors, so a parameter left at its default may be absent
            pairs = tuple((w, None if w == -1 else self.defaults[w]) for w in where)
            if -1 not in where and len(where) > 1:
                return _bind_params(f, where, pairs)

            def vjp(g, out, a):
                n = len(a)
                return f(g, *[out if w == -1 else a[w] if w < n else d for w, d in pairs])
            return vjp
        if len(where) == 1:
            w = where[0]
            if w == -1:
                return lambda g, out, a: f(g, out)
            return lambda g, out, a: f(g, a[w])
        if len(where) == 2:
            w0, w1 = where
            if w0 == -1:
                return lambda g, out, a: f(g, out, a[w1])
            if w1 == -1:
                return lambda g, out, a: f(g, a[w0], out)
            return lambda g, out, a: f(g, a[w0], a[w1])
        return lambda g, out, a: f(g, *[out if w == -1 else a[w] for w in where])

    def where_defined(self):
        """File and line of the kernel and of each derivative."""
        lines = [f"kernel: {_where(self.kernel)}"]
        for inp, (f, _) in self.derivatives.items():
            lines.append(f"{inp}: " + ("grad" if f == "grad" else "zero" if f is _zero_derivative
                                        else _where(f)))
        fam = self.family
        for slot in ("jvp", "batch"):
            rule = getattr(self, slot)
            if rule is not None:
                own = fam is None or rule is not getattr(fam, slot)
                lines.append(f"{slot}: " + (_where(rule) if own else f"family {fam.name}"))
        if self.refuses:
            kinds = {"c": "complex", "b": "bool", "i": "int", "u": "int"}
            lines.append("refuses: " + ", ".join(dict.fromkeys(kinds[k] for k in self.refuses)))
        if self.opmath:
            lines.append(f"opmath: {sorted(self.opmath)}")
        if self.fits:
            lines.append(f"fits: {sorted(self.names[i] for i in self.fits)}")
        return lines

    def bind(self, args, kwargs, fname=None):
        """Positional args + kwargs -> full positional tuple (defaults filled)."""
        names = self.names
        if not kwargs and self.n_required <= len(args) <= self.n_pos:
            return list(args) + self.defaults[len(args):]
        if len(args) > self.n_pos:
            raise TypeError(f"{fname or self.name}() takes {self.n_pos} positional arguments "
                            f"but {len(args)} were given")
        full = list(args) + [_MISSING] * (len(names) - len(args))
        for k, v in kwargs.items():
            try:
                i = names.index(k)
            except ValueError:
                if k != "input" or not names:   # (PyTorch's name for every first argument)
                    raise TypeError(f"{fname or self.name}() got an unexpected keyword argument "
                                    f"'{k}'") from None
                i = 0
            if full[i] is not _MISSING:
                raise TypeError(f"{fname or self.name}() got multiple values for argument '{k}'")
            full[i] = v
        for i, v in enumerate(full):
            if v is _MISSING:
                d = self.defaults[i]
                if d is inspect.Parameter.empty:
                    raise TypeError(f"{fname or self.name}() missing required argument '{names[i]}'")
                full[i] = d
        return full

    def __repr__(self):
        return f"<op {self.name}: " + "; ".join(self.where_defined()) + ">"



# ------------------------------------------------------------------ spellings
class Spelling:
    """How a public function is spelled on Tensor, written where it is defined.

    ``method``: ``Tensor.<name>`` is the function (True unless PyTorch has no
    such method).  ``inplace``: ``Tensor.<name>_`` exists, made by
    ``inplace.py`` from the function; a function there instead of True is also
    a check, ``check(self, *args)``, that runs before the write (PyTorch's
    refusals of an in-place form whose out-of-place one computes: in-place abs
    of a complex tensor).  ``operators``: Python operators bound to
    it: a forward one (``__mul__``) to the function's ``.fast`` (or the
    function), a reflected one (``__rmul__``) to ``.rfast`` (or the function
    with its arguments swapped), an in-place one (``__imul__``) to the in-place
    form of ``.fast``.  ``<name>`` is each name a module binds the function to,
    so an alias (``absolute = abs``) is spelled like its original; operators
    are bound once, under the first name.  ops/__init__.py reads these.
    """
    __slots__ = ("method", "inplace", "inplace_check", "operators")

    def __init__(self, method=True, inplace=False, operators=()):
        self.method, self.inplace, self.operators = bool(method), bool(inplace), tuple(operators)
        self.inplace_check = inplace if callable(inplace) else None

    def __repr__(self):
        return f"Spelling(method={self.method}, inplace={self.inplace}, operators={self.operators})"


def flat_kernel(spec):
    """A variadic op's kernel written flat, ``kernel(*tensors, *params)``, as
    dispatch calls every kernel (a kernel ``(*tensors, dim=0)`` needs a wrapper
    that builds keywords on every call, ~0.5 us): ``spec`` is a function with
    the op's signature, ``(*tensors, *, params)``, which the op reads."""
    def deco(kernel):
        kernel.__signature__ = inspect.signature(spec)
        kernel.flat = True
        return kernel
    return deco


def public(*, method=True, inplace=False, operators=()):
    """Decorator for a public function that is not itself an op entry (a wrapper
    choosing between ops, a composite): its spellings, as ``defop`` takes them."""
    def deco(fn):
        fn.spelling = Spelling(method, inplace, operators)
        return fn
    return deco


def spell(fn, *, method=True, inplace=False, operators=()):
    """``public`` for a function object made elsewhere; returns ``fn``."""
    return public(method=method, inplace=inplace, operators=operators)(fn)


_MISSING = object()
_VARARGS = 40           # a derivative reads a non-variadic op's ``*size`` (positions from n_pos on)
_PARAM = -3             # a derivative of a variadic op reads a keyword parameter


def not_implemented(error_type, message):
    """The derivative of an input that PyTorch does not differentiate: a vjp that
    sends an ``engine.DeferredError``, which raises ``error_type(message)`` only
    where that gradient is used, so a pass that does not need it (``grad`` of
    another input) goes through, as in PyTorch."""
    def vjp(g):
        return DeferredError(error_type(message))
    return vjp


def _zero_derivative(g, x):
    """The vjp of a ``"zero"`` derivative: zeros of the input's shape and dtype
    (``x``: its ``TensorMeta``, or the tensor when another derivative saved it)."""
    d = x._data if isinstance(x, Tensor) else x
    return _wrap(np.zeros(d.shape, d.dtype))


def _IDENTITY(g, out, args):
    return g


def _bind_params(f, where, pairs):
    """``Op._bind`` for a derivative that reads parameters after the tensors (and
    not the output): when every argument was given (the commonest) they are
    passed as listed, without building a tuple to unpack (~0.15 us a call)."""
    top = max(where)

    def defaults(g, a):
        n = len(a)
        return f(g, *[a[w] if w < n else d for w, d in pairs])
    if len(where) == 2:
        w0, w1 = where
        return lambda g, out, a: f(g, a[w0], a[w1]) if len(a) > top else defaults(g, a)
    if len(where) == 3:
        w0, w1, w2 = where
        return lambda g, out, a: f(g, a[w0], a[w1], a[w2]) if len(a) > top else defaults(g, a)
    if len(where) == 4:
        w0, w1, w2, w3 = where
        return lambda g, out, a: (f(g, a[w0], a[w1], a[w2], a[w3]) if len(a) > top
                                  else defaults(g, a))
    if len(where) == 5:
        w0, w1, w2, w3, w4 = where
        return lambda g, out, a: (f(g, a[w0], a[w1], a[w2], a[w3], a[w4]) if len(a) > top
                                  else defaults(g, a))
    get = operator.itemgetter(*where)
    return lambda g, out, a: f(g, *get(a)) if len(a) > top else defaults(g, a)


def _where(f):
    f = getattr(f, "__wrapped__", f)
    code = getattr(f, "__code__", None)
    if code is None:
        if isinstance(f, np.ufunc):
            return f"numpy.{f.__name__}"
        return getattr(f, "__qualname__", repr(f))
    import os
    return f"{os.path.relpath(code.co_filename, os.path.dirname(os.path.dirname(__file__)))}:" \
           f"{code.co_firstlineno}"


def _camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.strip("_").split("_"))


# ------------------------------------------------------------------ backward nodes
def _tensor_type_name(t):
    names = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
             "bfloat16": "BFloat16Tensor", "complex64": "ComplexFloatTensor",
             "complex128": "ComplexDoubleTensor", "int64": "LongTensor", "int32": "IntTensor",
             "bool": "BoolTensor"}
    d = t._data if isinstance(t, Tensor) else t
    return f"tensorplay.{names.get(D._FROM_NP[d.dtype].name, 'Tensor')} {list(d.shape)}"


class OpNode(Node):
    """A recorded call of a registered op: the op's arguments (unneeded tensors
    replaced by their ``TensorMeta``), the output data if a vjp reads ``out``,
    and the versions the saved tensors had."""
    __slots__ = ("args", "out", "versions")
    op = None
    validate = validate_grad

    def apply(self, grads):
        args = self.args
        if args is None:
            raise RuntimeError(FREED_MSG)
        o = self.out
        if self.versions:
            if self._packed:
                args, o = self._unpack()
            else:
                self._check_versions()
        edges = self.next_edges
        g = grads[0]
        if g is None:
            return (None,) * len(edges)
        if o is None:
            out = None
        else:
            out = _new(Tensor)
            out._data = o
            out._vc = out._base = None
            if state.enabled:           # create_graph: the output's own history is this node
                out._rg, out._gfn, out._out_nr = True, self, 0
            else:
                out._rg, out._gfn = False, None
            fw = self._fw_out
            if fw is not None:          # forward-over-reverse: the output's tangents (forward_ad)
                fw(out)
        # (the body of _vjps, inlined: this is the backward hot path)
        op = self.op
        if op.joint:
            return op.vjp(g, out, args)
        vjps, ident = op.vjp, op.ident
        if len(edges) == 1:
            return (g if ident[0] else vjps[0](g, out, args),)
        if len(edges) == 2:
            e0, e1 = edges
            return (None if e0 is None else g if ident[0] else vjps[0](g, out, args),
                    None if e1 is None else g if ident[1] else vjps[1](g, out, args))
        return self._vjps(g, out, args, edges)

    def _vjps(self, g, out, args, edges):
        op = self.op
        if op.joint:
            return op.vjp(g, out, args)
        vjps, ident = op.vjp, op.ident
        n = len(edges)
        if n == 1:
            return (g if ident[0] else vjps[0](g, out, args),)
        if n == 2:
            e0, e1 = edges
            return (None if e0 is None else g if ident[0] else vjps[0](g, out, args),
                    None if e1 is None else g if ident[1] else vjps[1](g, out, args))
        return [None if edges[i] is None else g if ident[i] else vjps[i](g, out, args)
                for i in range(n)]

    _packed = False         # True when saved-tensor hooks packed some of what this node saved

    def _pack(self, pack, unpack):
        """Run the pack hook once per saved tensor (inputs, and the output).  From
        then on the node holds what the hooks returned and only weak references
        to the tensors themselves (for the version check), so that a hook that
        keeps nothing (checkpointing) or a copy elsewhere frees their memory."""
        saved = list(self.args)
        ids = {id(t) for _, _, t, k in self.versions if k is None}
        for i, a in enumerate(saved):
            if id(a) in ids and isinstance(a, Tensor):
                if a.__dict__.get("_pre_write"):
                    # the value an in-place op is about to overwrite: the hook gets a
                    # copy of its own (it may keep the memory, as ``detach()`` does),
                    # as ``ops.inplace._own_saved_copy`` gives one when no hook runs
                    a._data = a._data.copy()
                    a._vc = [0]
                    self.versions = [(a._vc, 0, t, k) if t is a and k is None else (vl, e, t, k)
                                     for vl, e, t, k in self.versions]
                saved[i] = _Packed(run_pack_hook(pack, a), unpack, a,
                                   a._edge() if a._rg else None)
        self.args = saved
        o = self.out
        if type(o) is tuple:                # the outputs the vjps read (max's values, not indices)
            outs = list(o)
            for _, _, _, k in self.versions:
                if k is not None:
                    outs[k] = _Packed(run_pack_hook(pack, _wrap(o[k])), unpack, o[k], None)
            self.out = tuple(outs)
        elif o is not None:
            self.out = _Packed(run_pack_hook(pack, _wrap(o)), unpack, o, None)
        self.versions = [(vl, e, _WeakSaved(t, k, self), k) for vl, e, t, k in self.versions]
        self._packed = True

    def _unpack(self):
        """The saved arguments and output, through the unpack hooks.  A saved value
        changed in place since is an error only if what its hook gives back still
        shares its memory (a hook that kept a copy makes the change harmless)."""
        safe = set()
        args = []
        for a in self.args:
            if type(a) is _Packed:
                a = reattached(_unpacked_checked(a, safe), a.edge)
            args.append(a)
        o = self.out
        if type(o) is _Packed:
            o = _unpacked_checked(o, safe)._data
        elif type(o) is tuple:
            o = tuple(_unpacked_checked(p, safe)._data if type(p) is _Packed else p for p in o)
        self._check_versions(safe)
        return args, o

    def _out_to_save(self, d, i):
        t = _wrap(d)
        if state.enabled:
            t._rg, t._gfn, t._out_nr = True, self, i
        fw = self._fw_out
        if fw is not None:              # forward-over-reverse: the output's tangents (forward_ad)
            fw(t, i)
        return t

    def _check_versions(self, safe=()):
        for vl, expected, t, k in self.versions:
            if type(t) is _WeakSaved:
                if vl[0] != expected and t.key not in safe:
                    raise version_error(t.name, t.owner, vl[0], expected)
                continue
            if k is None and not self._packed and t._gfn is None and \
                    t.__dict__.get("_detached_inplace"):
                raise RuntimeError(DETACHED_MSG)
            if vl[0] != expected and id(t) not in safe:
                owner = _owner_desc(t) if k is None else f"output {k} of {_short_name(self)}"
                raise version_error(_tensor_type_name(t), owner, vl[0], expected)

    def release(self):
        # only saved tensors are freed (PyTorch keeps sizes and scalars): a node
        # that saved none can run again, as in PyTorch
        if self.versions is not None:
            self.args = None
            self.out = None
            self.versions = None


def reattached(v, edge):
    """What an unpack hook gave back for a saved tensor whose gradient flows along
    ``edge`` (None: it needs none), given that tensor's place in the graph, as
    PyTorch's SavedVariable does: a backward recorded with ``create_graph``
    differentiates through the saved value to what it was computed from (without
    this, second derivatives through saved-tensor hooks, ``save_on_cpu`` and
    checkpointing lost those terms)."""
    if edge is None:
        return v
    t = _wrap(v._data)
    t._vc = v._shared_version()
    t._rg = True
    node, nr = edge
    if type(node) is AccumulateGrad:        # a leaf: its own accumulator
        t._acc = node
    else:
        t._gfn, t._out_nr = node, nr
    return t


class _Packed:
    """What a pack hook returned for one saved tensor, the unpack hook to give it
    back with, (weakly, with its id as ``key``) the saved tensor or output data it
    stands for, and where that tensor's gradient flowed when it was saved (None
    for outputs and tensors that need none)."""
    __slots__ = ("value", "unpack", "orig", "key", "edge")

    def __init__(self, value, unpack, orig, edge):
        self.value, self.unpack, self.edge = value, unpack, edge
        self.orig, self.key = weakref.ref(orig), id(orig)


def unpacked(p):
    """What the unpack hook gives back for packed ``p``: a Tensor, or PyTorch's error."""
    v = p.unpack(p.value)
    if not isinstance(v, Tensor):
        raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor "
                        f"but got result of type {type(v).__name__}")
    return v


def _unpacked_checked(p, safe):
    """``unpacked(p)``; the id of what ``p`` stands for (a saved tensor, or an
    output's data) joins ``safe`` when what came back no longer shares its memory."""
    v = unpacked(p)
    orig = p.orig()
    if orig is None or not np.may_share_memory(v._data, orig if isinstance(orig, _ndarray)
                                               else orig._data):
        safe.add(p.key)
    return v


class _WeakSaved:
    """A packed saved tensor's place in its node's version stamps: what the
    version error names, computed while the tensor is alive, and a weak
    reference to it (``saved_is``)."""
    __slots__ = ("ref", "key", "name", "owner")

    def __init__(self, t, k, node):
        self.ref, self.key = weakref.ref(t), id(t)
        self.name = _tensor_type_name(t)
        self.owner = _owner_desc(t) if k is None else f"output {k} of {_short_name(node)}"


def saved_is(t, x):
    """Whether the version stamp's tensor ``t`` is ``x`` (also once packed)."""
    return t is x or (type(t) is _WeakSaved and t.ref() is x)


class MultiOutputNode(OpNode):
    """A node of an op that returns a tuple of tensors (even of one): its vjps
    get a tuple of gradients, missing ones filled with zeros."""
    __slots__ = ()

    def apply(self, grads):
        args = self.args
        if args is None:
            raise RuntimeError(FREED_MSG)
        o = self.out
        if self.versions:
            if self._packed:
                args, o = self._unpack()
            else:
                self._check_versions()
        edges = self.next_edges
        if all(x is None for x in grads):
            return (None,) * len(edges)
        like = o if o is not None else self.__dict__["out_meta"]
        g = tuple(_zeros_like_data(d) if x is None else x for x, d in zip(grads, like))
        out = None if o is None else tuple(self._out_to_save(d, i) for i, d in enumerate(o))
        return self._vjps(g, out, args, edges)


def _zeros_like_data(d):
    z = _wrap(np.zeros(d.shape, d.dtype))
    z.__dict__["_filled"] = True        # (no gradient came: ``filled_zeros`` tells a vjp so)
    return z


def filled_zeros(g):
    """Whether ``g`` is the zeros a multi-output node passed its vjps for an
    output that got no gradient (an eigendecomposition's vjp then leaves out
    the terms of that output, as PyTorch's undefined gradient does; zeros that
    came as a gradient count as one)."""
    return type(g) is Tensor and g.__dict__.get("_filled", False)


def _saved_version(t):
    try:
        v = t._vc
    except AttributeError:
        v = None
    if v is None:
        v = t._vc = [0]
    return v


class SavePlan:
    """What a node keeps for one pattern of inputs that require grad, read from
    the names the derivatives that will run declare:

    ``kinds``   per tensor input: "value" (saved, with a version stamp), "meta"
                (only its shape and dtype) or None (not saved)
    ``values``  argument positions saved as they are: the "value" inputs and
                the tensor parameters a derivative reads
    ``metas``   the "meta" inputs; ``unread``, the others
    ``keep``    whether the argument list is kept at all (else nothing is saved)
    ``result``  whether the output is saved (with a version stamp)
    ``frees``   a saved parameter holds index arrays (the op's ``saves_arrays``): the
                node is freed after a backward as PyTorch frees its saved tensors
    """
    __slots__ = ("kinds", "values", "metas", "unread", "keep", "result", "frees")

    def __init__(self, kinds, params, keep, result):
        self.kinds = kinds
        self.values = tuple(i for i, k in enumerate(kinds) if k == "value") + tuple(params)
        self.metas = tuple(i for i, k in enumerate(kinds) if k == "meta")
        self.unread = tuple(i for i, k in enumerate(kinds) if k is None)
        self.keep = keep or bool(self.values or self.metas)
        self.result = result
        self.frees = False      # whether the node is freed after use though it stamps nothing

    def __repr__(self):
        return f"SavePlan(kinds={self.kinds}, keep={self.keep}, result={self.result})"


def record(op, args, outs):
    """Attach a backward node for ``op`` called with ``args`` (the full positional
    list; Python numbers allowed) producing ``outs`` (a Tensor or a tuple of
    Tensors).  Called only when grad mode is on and a tensor input requires grad.

    1. the node: one edge per tensor input (``None`` where no gradient flows),
       and the inputs' shapes and dtypes for checking the gradients that come back;
    2. the save plan for this pattern of inputs that require grad (``SavePlan``);
    3. the saved arguments and output, each saved tensor with a version stamp
       ``(counter, version it had, tensor or data, output index or None)``;
    4. the outputs take the node as their history.
    """
    single = type(outs) is not tuple
    if single and outs._data.dtype.kind in "biu":
        return None         # an integer or bool result is a constant (PyTorch: only floating
        #                     point and complex tensors require grad): x.long(), x.to(bool)
    if not single:
        node = op.multi_node_cls()
    elif op.variants is None:
        node = op.node_cls()
    else:
        node = op.variants(args)()
    if anomaly.enabled:
        note_creation(node)
    n_in = op.n_in
    if n_in < 0:
        n_in = len(args) - op.n_kw
    # 1. edges, and the inputs' shapes and dtypes to check the gradients that come
    #    back against; an elementwise op whose inputs have the output's shape and
    #    dtype (float32/float64), or an ``exact`` op whose inputs have the output's
    #    dtype, gets them right by construction: no check
    if n_in == 1 and not op.elementwise:    # the commonest general call (view, sum, max...):
        t = args[0]                         # a tensor that requires grad (else no record)
        if t._base is not None and t._view_version != t._vc[0]:
            t._refresh_history()
        d = t._data
        fn = t._gfn
        node.next_edges = ((fn, t._out_nr) if fn is not None else _leaf_edge(t),)
        dt = d.dtype
        node.input_meta = None if op.exact and single and dt is outs._data.dtype and \
            dt in _EXACT else (d.shape, dt)
        key = 1
    elif n_in == 2 and not op.elementwise:  # the same for two (mm and its kin)
        x, y = args[0], args[1]
        e0 = e1 = None
        key = 0
        if isinstance(x, Tensor) and x._rg:
            if x._base is not None and x._view_version != x._vc[0]:
                x._refresh_history()
            fn = x._gfn
            e0 = (fn, x._out_nr) if fn is not None else _leaf_edge(x)
            key = 1
        if isinstance(y, Tensor) and y._rg:
            if y._base is not None and y._view_version != y._vc[0]:
                y._refresh_history()
            fn = y._gfn
            e1 = (fn, y._out_nr) if fn is not None else _leaf_edge(y)
            key |= 2
        node.next_edges = (e0, e1)
        dt = outs._data.dtype if op.exact and single else None    # (mm and its kin)
        if dt in _EXACT and (e0 is None or x._data.dtype is dt) and \
                (e1 is None or y._data.dtype is dt):
            node.input_meta = None
        else:
            node.input_meta = (_NO_META if e0 is None else (x._data.shape, x._data.dtype)) + \
                (_NO_META if e1 is None else (y._data.shape, y._data.dtype))
    else:
        key = _edges_and_meta(node, op, args, outs, n_in, single)
    # 2. the plan
    if op.joint:
        key = -n_in
    plan = op.plans.get(key)
    if plan is None:
        plan = op.plan(key, n_in)
    # 3. what is saved
    stamps = None
    if plan.keep:
        saved = list(args)
        for i in plan.unread:
            saved[i] = None                 # an input no derivative that will run reads
        for i in plan.metas:
            t = args[i]
            if isinstance(t, Tensor):
                saved[i] = op.meta_type(t._data)
        n = len(args)               # (the pointwise fast paths pass no defaulted parameters)
        for i in plan.values:
            t = args[i] if i < n else None
            if isinstance(t, Tensor):
                v = _saved_version(t)
                if stamps is None:
                    stamps = [(v, v[0], t, None)]
                else:
                    stamps.append((v, v[0], t, None))
            elif i < n_in and t is not None and stamps is None and op.wraps_numbers:
                stamps = []     # a saved Python number: PyTorch's wrapped tensor, freed after use
        if stamps is None and plan.frees:
            stamps = []         # saved index arrays: tensors in PyTorch, freed after use
        node.args = saved
    else:
        node.args = _NONES[len(args)]
    if plan.result:
        if single:
            node.out = o = outs._data
            v = _saved_version(outs)
            if stamps is None:
                stamps = []
            stamps.append((v, v[0], o, 0))          # the data, not the tensor: no cycle
        else:
            node.out = tuple(o._data for o in outs)
            for k, o in enumerate(outs):
                if op.out_saved is not None and k not in op.out_saved:
                    continue                        # the vjps read only the others (max's indices)
                v = _saved_version(o)
                if stamps is None:
                    stamps = []
                stamps.append((v, v[0], o._data, k))
    else:
        node.out = None
        if not single:
            node.__dict__["out_meta"] = tuple(o._data for o in outs)   # for zero-filling
    node.versions = stamps
    if stamps and _HOOKS_ACTIVE[0] and hook_state.stack:
        node._pack(*hook_state.stack[-1])
        if node.input_meta is None:
            _checked_meta(node, args)
    # 4. the outputs' history
    if single:
        outs._rg = True
        outs._gfn = node
        outs._out_nr = 0
    else:
        node.n_out = len(outs)          # instance value shadows the class default of 1
        nd = op.nondiff_out
        for k, o in enumerate(outs):
            if k in nd or o._data.dtype.kind in "biu":
                continue
            o._rg = True
            o._gfn = node
            o._out_nr = k
    return node


def _edges_and_meta(node, op, args, outs, n_in, single):
    """``record``'s step 1 for any number of inputs: the node's edges and input
    metadata; returns the key of the pattern of inputs that require grad."""
    edges = [None] * n_in
    key = 0
    for i in range(n_in):
        t = args[i]
        if isinstance(t, Tensor) and t._rg:
            if t._base is not None and t._view_version != t._vc[0]:
                t._refresh_history()        # a view written in place since its history was made
            fn = t._gfn
            edges[i] = (fn, t._out_nr) if fn is not None else _leaf_edge(t)
            key |= 1 << i
    checked = True
    if single and (op.elementwise or op.exact):
        od = outs._data
        dt, shape = od.dtype, (None if op.exact else od.shape)
        if dt in _EXACT:
            checked = False
            for e, t in zip(edges, args):
                if e is not None and (t._data.dtype is not dt or
                                      (shape is not None and t._data.shape != shape)):
                    checked = True
    node.next_edges = tuple(edges)
    if checked:
        metas = []
        for e, t in zip(edges, args):
            if e is None:
                metas.append(None), metas.append(None)
            else:
                metas.append(t._data.shape), metas.append(t._data.dtype)
        node.input_meta = tuple(metas)
    else:
        node.input_meta = None
    return key


def _checked_meta(node, args):
    """Every gradient of ``node`` checked against its input's shape and dtype: an
    unpack hook may hand the derivative values of another dtype than the inputs'
    (PyTorch casts each gradient to its input's dtype)."""
    metas = []
    for e, t in zip(node.next_edges, args):
        metas += (None, None) if e is None else (t._data.shape, t._data.dtype)
    node.input_meta = tuple(metas)


def record_pointwise(op, x, y, out):
    """``record`` unrolled for the pointwise fast paths, whose calls have one
    input (``y`` is ``_NO_ARG``) or two, a Python number allowed on either side,
    and one fresh output: the same steps and the same ``SavePlan``, without the
    loops (they cost ~1 us per op on the chains this path exists for).
    ``tests/test_grad_ownership.py`` checks that both build the same node."""
    node = op.node_cls() if op.variants is None else op.variants((x, y))()
    if anomaly.enabled:
        note_creation(node)
    od = out._data
    # 1. edges, and input metadata unless the gradients fit by construction
    tx = type(x)
    x_num = tx is float or tx is int
    if not x_num and x._rg:
        if x._base is not None and x._view_version != x._vc[0]:
            x._refresh_history()
        fn = x._gfn
        e0 = (fn, x._out_nr) if fn is not None else _leaf_edge(x)
        d = x._data
        checked = d.dtype is not od.dtype or d.dtype not in _EXACT or d.shape != od.shape
        key = 1
    else:
        e0 = None
        checked, key = False, 0
    if y is _NO_ARG:
        node.next_edges = (e0,)
        node.input_meta = (x._data.shape, x._data.dtype) if checked else None
        n = 1
    else:
        ty = type(y)
        y_num = ty is float or ty is int
        if not y_num and y._rg:
            if y._base is not None and y._view_version != y._vc[0]:
                y._refresh_history()
            fn = y._gfn
            e1 = (fn, y._out_nr) if fn is not None else _leaf_edge(y)
            if not checked:
                d = y._data
                checked = d.dtype is not od.dtype or d.dtype not in _EXACT or d.shape != od.shape
            key |= 2
        else:
            e1 = None
        node.next_edges = (e0, e1)
        node.input_meta = ((None, None) if e0 is None else (x._data.shape, x._data.dtype)) + \
            ((None, None) if e1 is None else (y._data.shape, y._data.dtype)) if checked else None
        n = 2
    # 2. the plan
    plan = op.plans.get(key)
    if plan is None:
        plan = op.plan(key, n)
    # 3. what is saved
    stamps = None
    if plan.keep:
        kinds = plan.kinds
        k = kinds[0]
        if k is None:
            a0 = None
        elif k == "value":
            a0 = x
            if not x_num:
                v = _saved_version(x)
                stamps = [(v, v[0], x, None)]
            else:
                stamps = []     # a saved Python number: PyTorch's wrapped tensor, freed after use
        else:
            a0 = x if x_num else TensorMeta(x._data)
        if n == 1:
            node.args = (a0,)
        else:
            k = kinds[1]
            if k is None:
                a1 = None
            elif k == "value":
                a1 = y
                if not y_num:
                    v = _saved_version(y)
                    if stamps is None:
                        stamps = [(v, v[0], y, None)]
                    else:
                        stamps.append((v, v[0], y, None))
                elif stamps is None:
                    stamps = []
            else:
                a1 = y if y_num else TensorMeta(y._data)
            node.args = (a0, a1)
    else:
        node.args = _NONES[n]
    if plan.result:
        node.out = od
        v = out._vc = [0]
        if stamps is None:
            stamps = [(v, 0, od, 0)]
        else:
            stamps.append((v, 0, od, 0))
    else:
        node.out = None
    node.versions = stamps
    if stamps and _HOOKS_ACTIVE[0] and hook_state.stack:
        node._pack(*hook_state.stack[-1])
        if node.input_meta is None:
            _checked_meta(node, (x,) if y is _NO_ARG else (x, y))
    # 4. the output's history
    out._rg = True
    out._gfn = node
    out._out_nr = 0
    return node


_NO_ARG = object()


def _leaf_edge(t):
    """The edge into a leaf's AccumulateGrad."""
    return t._edge()


_EXACT = frozenset(np.dtype(t) for t in (np.float32, np.float64))
_np_generic = np.generic
_NONES = [(None,) * k for k in range(64)]
_NO_META = (None, None)     # an input's (shape, dtype) in input_meta when no gradient flows to it


# ------------------------------------------------------------------ dispatch
def _wrap_result(r):
    if type(r) is not _ndarray:
        r = np.asarray(r)
    t = _new(Tensor)
    t._data = r
    t._rg = False
    t._gfn = None
    t._vc = t._base = None
    return t


def _result_dtype(args, n_in):
    """PyTorch promotion over the first ``n_in`` args (tensors and Python numbers)."""
    dim = zero = wrapped = None
    for i in range(n_in):
        a = args[i]
        if isinstance(a, Tensor):
            dt = D._FROM_NP[a._data.dtype]
            if a._data.ndim:
                dim = dt if dim is None else D.promote_types(dim, dt)
            else:
                zero = dt if zero is None else D.promote_types(zero, dt)
        else:
            dt = D.scalar_dtype(a)
            if dt is None:
                continue
            wrapped = dt if wrapped is None else D.promote_types(wrapped, dt)
    return D.result_type3(dim, zero, wrapped)


def _prep(op, args):
    """Unwrap tensor args to arrays, applying promotion and low-precision upcast.
    Returns (kernel args, dtype to cast the result back to or None)."""
    n_in = op.n_in if op.n_in >= 0 else len(args) - op.n_kw
    if n_in == 1 and not isinstance(args[0], Tensor):
        name = "input" if op.names[0] == "x" else op.names[0]     # PyTorch's name for it
        raise TypeError(f"{op.name}(): argument '{name}' (position 1) must be Tensor, not "
                        f"{type(args[0]).__name__}")
    if op.check is not None:
        op.check(*args)
    if op.numbers:
        args = _number_params(op, args)
    if op.fits:
        args = _fit_numbers(op, args, n_in)
    refuses = op.refuses
    back = None
    # the common case: tensors only, of float/complex dtypes (one dtype if the op
    # promotes): nothing to convert (dispatch inlines the one-tensor form of this)
    a = args[0]
    if isinstance(a, Tensor) and a._data.dtype in _PLAIN and \
            (refuses is None or a._data.dtype.kind not in refuses):
        dt = a._data.dtype
        promote = op.promote
        kargs = list(args)
        for i in range(n_in):
            a = args[i]
            if not isinstance(a, Tensor) or (a._data.dtype is not dt if promote else
                                             a._data.dtype not in _PLAIN):
                break
            kargs[i] = a._data
        else:
            if len(kargs) > n_in and not op.variadic:       # (a variadic op's are dims)
                _numpy_scalar_params(kargs, n_in)
            return kargs, None
    if op.promote:
        rdt = _promoted(op, args, n_in)
        if rdt is None:
            raise TypeError(f"{op.name}(): expected at least one Tensor argument")
        if refuses is not None and rdt.np.kind in refuses:
            _refuse(refuses[rdt.np.kind], args, rdt.np)
        cdt = rdt
        if op.float_only and cdt.category < D._FLOAT:
            cdt = rdt = D.get_default_dtype()
        if op.upcast and cdt.np in _LOWP:
            back, cdt = rdt.np, D.float32
        npdt = cdt.np
        kargs = list(args)
        numbers_only = True
        for i in range(n_in):
            a = args[i]
            if isinstance(a, Tensor):
                numbers_only = False
                d = a._data
                if back is not None and d.dtype != back and not (d.ndim == 0 and i in op.opmath_0d):
                    d = d.astype(back)              # (every operand in the result's dtype first,
                kargs[i] = d if d.dtype == npdt else d.astype(npdt)     # then computed in float32)
            elif a is not None and type(a) is not bool and not isinstance(a, (list, tuple)):
                if isinstance(a, _np_generic):      # a NumPy scalar: a weak Python number
                    a = D.operand_scalar(a)
                if rdt.category == D._INT and type(a) is int:
                    a = np.array(a).astype(npdt)[()]     # wraps like a C cast, as PyTorch does
                elif back is not None and i not in op.opmath:
                    # a number in half/bfloat16 arithmetic is rounded to that dtype first,
                    # as PyTorch converts it (half(0.1) == 0.1 holds there)
                    a = np.array(a).astype(back).astype(npdt)[()]
                kargs[i] = a
        if numbers_only:
            # numbers only (mul(2., 3)): PyTorch makes them tensors of their promoted
            # dtype, the default one for floats; NumPy would compute in float64
            for i in range(n_in):
                if type(kargs[i]) in (int, float, complex, bool):
                    kargs[i] = np.asarray(kargs[i], npdt)
                    break
        _numpy_scalar_params(kargs, n_in)
        if op.out_dtype is not None:
            back = None
        return kargs, back
    kargs = list(args)
    for i in range(n_in):
        a = args[i]
        if isinstance(a, Tensor):
            d = a._data
            if refuses is not None and d.dtype.kind in refuses:
                _refuse(refuses[d.dtype.kind], args, d.dtype)
            if op.float_only and d.dtype.kind in "biu":
                d = d.astype(D.get_default_dtype().np)
            elif op.upcast and d.dtype in _LOWP:
                back = d.dtype
                d = d.astype(_F32)
            kargs[i] = d
        elif isinstance(a, (list, tuple)) and a and isinstance(a[0], Tensor):
            kargs[i] = _prep_list(op, a)
        elif isinstance(a, _np_generic) and a.dtype.kind in "biufc":
            kargs[i] = D.operand_scalar(a)      # (fill_(np.int64(3)): a number, as in PyTorch)
        elif a is not None and not isinstance(a, (int, float, complex, bool)):
            raise TypeError(f"{op.name}(): argument '{op.names[i]}' (position {i + 1}) must be "
                            f"Tensor, not {type(a).__name__}")
    return kargs, back


def _number_params(op, args):
    """``args`` with a 0-d tensor that needs no gradient at a Number parameter
    replaced by its value; any other tensor there is PyTorch's TypeError."""
    for i, name, kind in op.numbers:
        v = args[i] if i < len(args) else None
        if isinstance(v, Tensor):
            args = list(args)
            args[i] = number_arg(op.name, name, v, i + 1, kind)
        elif kind == "int" and isinstance(v, (bool, float, np.floating)):
            raise TypeError(f"{op.name}(): argument '{name}' (position {i + 1}) must be int, not "
                            f"{type(v).__name__}")
    return args


def _promoted(op, args, n_in):
    """The result dtype of a promoting op's call.  A number that is a Scalar in
    PyTorch's signature (``wraps_numbers`` False: lerp's weight) has no part in
    it: lerp of two integer tensors is refused, not computed in float."""
    return _result_dtype(args if op.wraps_numbers else
                         [a if isinstance(a, Tensor) else None for a in args[:n_in]], n_in)


def _fit_numbers(op, args, n_in):
    """``args`` with the numbers at ``op.fits`` checked against the dtype PyTorch
    converts them to (the result's; an op that does not promote: its input's),
    as its Scalar conversion checks them: out of range is refused, a negative
    int wraps into an unsigned type."""
    if op.promote:
        rdt = _promoted(op, args, n_in)
        npdt = None if rdt is None else rdt.np
    else:
        npdt = args[0]._data.dtype if isinstance(args[0], Tensor) else None
    if npdt is None or npdt in op.fits_skip:
        return args
    args = list(args)
    for i in op.fits:
        if i < len(args) and args[i] is not None and not isinstance(args[i], Tensor):
            args[i] = D.check_fits(args[i], npdt)      # (a bool or a non-number: as it is)
    return args


def _numpy_scalar_params(kargs, n_in):
    """Scalar parameters after the tensors (add's ``alpha``): a NumPy scalar is the
    Python number of its kind, so it does not promote the result."""
    for i in range(n_in, len(kargs)):
        if isinstance(kargs[i], _np_generic):
            kargs[i] = D.python_scalar(kargs[i])


def _refuse(spec, args, dt):
    """``_prep``'s refusal of an input (or common) dtype ``dt`` the op has no
    kernel for (``Op.refuses``), unless its spec accepts these arguments."""
    if callable(spec):
        spec = spec(*args)
    if spec is not None:
        raise dtype_error(spec, dt)


def _prep_list(op, ts):
    dt = _result_dtype(ts, len(ts))
    npdt = dt.np
    return [t._data if t._data.dtype == npdt else t._data.astype(npdt) for t in ts]


def broadcast_error(a, b):
    """PyTorch's error for shapes that do not broadcast."""
    n = max(len(a), len(b))
    a1, b1 = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    for i in range(n - 1, -1, -1):
        if a1[i] != b1[i] and a1[i] != 1 and b1[i] != 1:
            return RuntimeError(f"The size of tensor a ({a1[i]}) must match the size of tensor b "
                                f"({b1[i]}) at non-singleton dimension {i}")
    return RuntimeError(f"shapes {list(a)} and {list(b)} cannot be broadcast together")


# ------------------------------------------------------------------ the interception point
# The active transforms (forward-mode levels, vmap levels, ...), innermost last.
# Every call of every op checks this list first (the fast paths too), so with
# no transform active the cost is one global read.
TRANSFORMS = []

# Entry casts.  Autocast (tensorplay.amp) is a transform above, for the ops that
# dispatch as themselves (fft, linalg, mm...).  PyTorch's autocast also sees, as one
# op, functions that are several ops here (F.linear's error path, the losses, cdist)
# and functions that check their operands' dtypes before they dispatch (mm, bmm,
# conv): those call ``autocast_inputs(<PyTorch's op name>, *tensors)`` at their
# entry, which hands the tensors to autocast's cast while CPU autocast is on (the
# slot holds it then) and returns them unchanged otherwise.
AUTOCAST = [None]


def autocast_inputs(name, *tensors):
    f = AUTOCAST[0]
    return tensors if f is None else f(name, tensors)


def derivatives_recorded():
    """Whether what a derivative computes now will be differentiated again:
    grad mode is on (a backward with ``create_graph``) or a forward-mode level
    is open (forward over reverse: the backward's values carry tangents).  A
    derivative with a cheaper form that is right to first order only (a
    shortcut at zeros of a product) takes it only when this is false."""
    return state.enabled or any(getattr(t, "forward_level", False) for t in TRANSFORMS)


def intercept(op, args):
    """Hand one op call to the innermost transform.  While it runs, that
    transform is off the stack, so the ops it calls reach the levels below it
    (and plain computation under the last one)."""
    t = TRANSFORMS.pop()
    try:
        return t.process(op, args)
    finally:
        TRANSFORMS.append(t)


def intercept_function(cls, args, kwargs):
    """The same for a custom ``autograd.Function``: the transform's
    ``process_function(cls, args, kwargs)`` decides (its ``jvp``, its
    ``vmap`` rule...), computing below itself as for an op."""
    t = TRANSFORMS.pop()
    try:
        return t.process_function(cls, args, kwargs)
    finally:
        TRANSFORMS.append(t)


def _call_unwrapped(kernel, d, args):
    """``kernel(d, *args[1:])``, spelled out for the common lengths (up to six, as
    slice_backward's): a call that unpacks a slice costs ~0.2 us more than one
    with the arguments listed."""
    n = len(args)
    if n == 2:
        return kernel(d, args[1])
    if n == 3:
        return kernel(d, args[1], args[2])
    if n == 4:
        return kernel(d, args[1], args[2], args[3])
    if n == 5:
        return kernel(d, args[1], args[2], args[3], args[4])
    if n == 6:
        return kernel(d, args[1], args[2], args[3], args[4], args[5])
    if n == 1:
        return kernel(d)
    return kernel(d, *args[1:])


def dispatch(op, args):
    """The general path: any signature.  ``args`` is the full positional list."""
    if TRANSFORMS:
        return intercept(op, list(args))
    back = kargs = None
    plain = op.plain_n
    if plain == 1:                      # _prep's commonest cases, inline
        try:
            d = args[0]._data
        except AttributeError:
            d = None
        if d is None or d.dtype not in op.plain_dtypes:
            kargs, back = _prep(op, args)
    elif plain == 2:
        x, y = args[0], args[1]
        if isinstance(x, Tensor) and isinstance(y, Tensor) and len(args) == 2 and \
                x._data.dtype is y._data.dtype and x._data.dtype in op.plain_dtypes:
            kargs = (x._data, y._data)
        else:
            kargs, back = _prep(op, args)
            plain = 0
    else:
        kargs, back = _prep(op, args)
    try:
        if kargs is not None:
            r = op.kernel(*kargs)
        else:                           # (_call_unwrapped, its commonest lengths inline)
            n = len(args)
            if n == 2:
                r = op.kernel(d, args[1])
            elif n == 3:
                r = op.kernel(d, args[1], args[2])
            else:
                r = _call_unwrapped(op.kernel, d, args)
    except ValueError as e:
        if op.promote and op.n_in >= 2 and "broadcast" in str(e):
            shapes = [np.shape(a) for a in kargs[:op.n_in]]
            raise broadcast_error(shapes[0], shapes[1]) from None
        raise
    if back is not None:                 # round float results back to half/bfloat16
        if type(r) is tuple:
            keep = op.opmath_out
            r = tuple(x.astype(back) if x.dtype.kind == "f" and i not in keep else x
                      for i, x in enumerate(r))
        else:
            r = np.asarray(r)
            if r.dtype.kind == "f":
                r = r.astype(back)
    if type(r) is tuple:
        outs = tuple(_wrap_result(x) for x in r)
    else:
        if type(r) is not _ndarray:
            if type(r) is Untracked:
                return _view_outputs(op, args, r)
            r = np.asarray(r)
        outs = _new(Tensor)
        outs._data = r
        outs._rg = False
        outs._gfn = None
        outs._vc = outs._base = None
    enabled = state.enabled
    if op.view and (op.view is True or np.may_share_memory(outs._data, args[0]._data)):
        _mark_view(args[0], outs, op, args, enabled)
    if enabled:
        if op.differentiable:
            n_in = op.n_in
            if n_in == 1:
                if args[0]._rg:         # (a one-input op's input is a Tensor by now)
                    record(op, args, outs)
            elif plain == 2:            # (two Tensors)
                if args[0]._rg or args[1]._rg:
                    record(op, args, outs)
            else:
                if n_in < 0:
                    n_in = len(args) - op.n_kw
                for i in range(n_in):
                    a = args[i]
                    if isinstance(a, Tensor) and a._rg:
                        record(op, args, outs)
                        break
    elif INFERENCE_THREADS[0] and state.inference:
        for o in (outs if type(outs) is tuple else (outs,)):
            if o._vc is None or o._vc is INFERENCE_VERSION:   # (a view of a normal tensor is normal)
                o._make_inference()
    return outs


def dispatch_view(op, args):
    """``dispatch`` for an op whose output is always a view of its input
    (``view=True``: reshapes, transposes, slices...): the same steps, with
    ``_mark_view`` inline for the one-output case (~0.3 us less a view)."""
    if TRANSFORMS:
        return intercept(op, list(args))
    x = args[0]
    try:
        d = x._data
    except AttributeError:              # (dispatch says what is wrong)
        return dispatch(op, args)
    n = len(args)                       # (_call_unwrapped, its commonest lengths inline:
    if n == 2:                          # 5 is a slice's)
        r = op.kernel(d, args[1])
    elif n == 3:
        r = op.kernel(d, args[1], args[2])
    elif n == 5:
        r = op.kernel(d, args[1], args[2], args[3], args[4])
    elif n == 4:
        r = op.kernel(d, args[1], args[2], args[3])
    else:
        r = _call_unwrapped(op.kernel, d, args)
    if type(r) is not _ndarray:
        return _view_outputs(op, args, r)
    o = _new(Tensor)
    o._data = r
    o._rg = False
    o._gfn = None
    try:
        v = x._vc
    except AttributeError:
        v = None
    if v is None:
        v = x._vc = [0]
    if v is INFERENCE_VERSION:         # a view of an inference tensor: one too, untracked
        o._vc = o._base = None
        o._make_inference()
    else:
        step = (op, args[1:] if type(args) is tuple else tuple(args[1:]), None)
        root = x._base
        if root is None:
            root = x
            o._view_chain = (step,)
        else:
            o._view_chain = x._view_chain + (step,)
            if getattr(x, "_nograd_view", False):   # a view of a no_grad view is one too (PyTorch)
                o._nograd_view = True
        o._vc, o._base, o._view_version = v, root, v[0]
        refs = root._views
        if refs is None:
            refs = root._views = ViewList()
        refs.append(_weakref(o))
        if len(refs) > refs.limit:
            refs.prune()
    if state.enabled:
        if x._rg and op.differentiable:
            record(op, args, o)
    elif v is not INFERENCE_VERSION:    # PyTorch forbids writing through it later with grad on
        o._nograd_view = True
    return o


class Untracked:
    """A kernel's answer that shares its input's memory and version counter but is
    no view for autograd and has no derivative (PyTorch's ``view(dtype)``: not
    ``_is_view()``, never requires grad; a write through it still bumps the
    input's version, so saved values are checked)."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


def _view_outputs(op, args, r):
    """``dispatch_view``'s several outputs (split, unbind...) and anything else."""
    if type(r) is Untracked:
        out = _wrap_result(r.array)
        base = args[0]
        v = getattr(base, "_vc", None)
        if v is None:
            v = base._vc = [0]
        if v is INFERENCE_VERSION:
            out._make_inference()
        else:
            out._vc = v
        return out
    if type(r) is tuple:
        outs = []
        for d in r:                     # (_wrap_result inline: ~0.1 us an output)
            o = _new(Tensor)
            o._data = d if type(d) is _ndarray else np.asarray(d)
            o._rg = False
            o._gfn = None
            o._vc = o._base = None
            outs.append(o)
        outs = tuple(outs)
    else:
        outs = _wrap_result(r)
    enabled = state.enabled
    _mark_view(args[0], outs, op, args, enabled)
    if enabled and args[0]._rg and op.differentiable:
        record(op, args, outs)
    return outs


def _mark_view(base, outs, op, args, enabled):
    """View outputs share the version counter (and so in-place checks) with their
    base, and remember how to remake themselves from their root base (the chain
    of view ops), so that an in-place op on a view can be differentiated.  The
    root keeps weak references to its live views, whose histories it remakes
    when next needed after a write in place (``views.refresh_view``).
    ``enabled``: grad mode when the view was made."""
    try:
        v = base._vc
    except AttributeError:
        v = None
    if v is None:
        v = base._vc = [0]
    elif v is INFERENCE_VERSION:        # a view of an inference tensor: one too, untracked
        for o in (outs if type(outs) is tuple else (outs,)):
            o._make_inference()
        return
    try:
        root = base._base
    except AttributeError:
        root = None
    if root is None:
        root, chain = base, ()
    else:
        chain = base._view_chain
        if getattr(base, "_nograd_view", False):    # a view of a no_grad view is one too (PyTorch)
            enabled = False
    refs = root._views
    if refs is None:
        refs = root._views = ViewList()
    params = args[1:] if type(args) is tuple else tuple(args[1:])
    if type(outs) is not tuple:
        outs._vc, outs._base, outs._view_version = v, root, v[0]
        outs._view_chain = chain + ((op, params, None),)
        if not enabled:                 # PyTorch forbids writing through it later with grad on
            outs._nograd_view = True
        refs.append(_weakref(outs))
    else:
        version = v[0]
        k = 0
        for o in outs:
            o._vc, o._base, o._view_version = v, root, version
            o._view_chain = chain + ((op, params, k),)
            if not enabled:
                o._nograd_view = True
            refs.append(_weakref(o))
            k += 1
    if len(refs) > refs.limit:
        refs.prune()


_weakref = weakref.ref


class ViewList(list):
    """Weak references to the live views of a base (cheaper than a WeakSet:
    dead references are dropped in bulk when the list has doubled, and not
    before it holds 64, so that a loop that makes and drops views of one base
    prunes rarely).  Iterating gives the live views themselves; its length
    counts references, dead ones included."""
    __slots__ = ("limit",)

    def __init__(self):
        self.limit = 64

    def prune(self):
        self[:] = [r for r in list.__iter__(self) if r() is not None]
        self.limit = max(64, 2 * len(self))

    def __iter__(self):
        return iter([t for t in (r() for r in list.__iter__(self)) if t is not None])


def overload_node(op, name, hidden=()):
    """The node class of one of PyTorch's overloads of ``op``, for ``op.variants``
    (args -> node class) to pick: the same node under the overload's name;
    ``hidden``: positions of ``op``'s inputs that the overload takes as Scalars
    (no slot of ``next_functions``, as for the inputs without a derivative)."""
    hidden = tuple(sorted(set(hidden) | set(op.node_cls._hidden_args)))
    return type(name, (op.node_cls,), {"__slots__": (), "_hidden_args": hidden})


def by_tensor_arg(i, tensor_node, number_node):
    """``op.variants`` for overloads told apart by argument ``i``: a tensor
    there, or a number (PyTorch's Scalar overload)."""
    return lambda args: tensor_node if isinstance(args[i], Tensor) else number_node


def op_spelled(op, variants):
    """A copy of ``op`` whose ``variants`` (args -> node class, or one node class
    for every call) name its nodes: for a spelling PyTorch records as an overload
    of its own (``fill_``, ``clamp_min``, ``2 - x``).  Kernel, derivatives, rules
    and save plans are ``op``'s."""
    spelled = copy.copy(op)
    spelled.variants = (lambda args: variants) if isinstance(variants, type) else variants
    return spelled


def defop(name, kernel, derivatives=None, **kw):
    """Register ``name`` and return its public function (also the method)."""
    n_in = kw.pop("n_in", 1)
    star_name = kw.pop("star_name", None)   # PyTorch's keyword for a ``*size`` parameter
    op = Op(name, kernel, derivatives, n_in=n_in, **kw)
    REGISTRY[name] = op
    names = op.names
    _dispatch = dispatch_view if op.view is True else dispatch

    if op.variadic:                         # f(*tensors, *, params)
        kwn, kwd = op.names[op.n_pos:], op.defaults[op.n_pos:]

        def fn(*args, **kwargs):
            if len(kwn) == 1 and len(kwargs) <= 1 and (not kwargs or kwn[0] in kwargs):
                return dispatch(op, [*args, kwargs.get(kwn[0], kwd[0])])   # cat(xs, dim=)
            if "out" in kwargs:
                return call_with_out(name, fn, args, kwargs, kwargs.pop("out"))
            extra = [kwargs.pop(k, d) for k, d in zip(kwn, kwd)]
            if kwargs:
                raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
            return dispatch(op, list(args) + extra)
    elif op.varargs:                        # f(x, *size)
        star = star_name or op.star

        def fn(*args, **kwargs):
            if kwargs:
                if "out" in kwargs:
                    return call_with_out(name, fn, args, kwargs, kwargs.pop("out"))
                args = star_by_keyword(name, args, kwargs, star)    # view(size=...), PyTorch's
            return _dispatch(op, args)
    elif len(names) == 1 and n_in == 1:
        def fn(input, *, out=None):
            if out is not None:
                return call_with_out(name, fn, (input,), {}, out)
            return _dispatch(op, [input])
    else:
        n_req, n_pos, defaults = op.n_required, op.n_pos, tuple(op.defaults)
        exact = len(names) if n_pos == len(names) else -1   # (keyword-only ones: never positional)

        def fn(*args, **kwargs):
            if kwargs or len(args) != exact:
                if not kwargs and n_req <= len(args) <= n_pos:
                    args += defaults[len(args):]        # sum(x, 1): the defaults after
                else:
                    if "out" in kwargs:     # (only a call with keywords pays for this)
                        return call_with_out(name, fn, args, kwargs, kwargs.pop("out"))
                    args = op.bind(args, kwargs, name)
            return _dispatch(op, args)
    fn.__name__ = fn.__qualname__ = name
    fn.op = op
    fn.spelling = op.spelling
    return fn
