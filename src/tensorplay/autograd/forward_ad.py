"""Forward-mode automatic differentiation: dual tensors.

    with forward_ad.dual_level():
        x = forward_ad.make_dual(primal, tangent)     # x carries tangent v
        y = f(x)
        y_value, jvp = forward_ad.unpack_dual(y)      # jvp = J_f(primal) v

A dual level is a transform on the op registry's interception point
(``ops._registry.TRANSFORMS``): while it is open, every op call reaches the
level's ``process``, which computes the op below the level and, if an input
carries a tangent of this level, the output's tangent with the op's forward
rule (``Op.jvp``: the entry's own or its family's).  Tangents are tensorplay
tensors computed with tensorplay ops, so reverse mode differentiates through
them (forward-over-reverse and reverse-over-forward), and a level open
outside another sees the inner level's tangent computations: levels nest
without confusing their perturbations (unlike PyTorch, which allows one
level; ``tensorplay.func.jvp`` is meant to open a level of its own).

A tensor's tangents live in its ``__dict__`` under ``_fw_grads``, a dict from
level to tangent; exiting a level removes its tangents from every tensor
that still holds one.

Differences from PyTorch: levels nest; an in-place op on a dual tensor gives
it a new tangent rather than writing the old tangent's memory (so the tangent
a user passed to ``make_dual`` is never modified, and a tangent that requires
grad can take part in in-place ops).  A view's tangent is kept equal to the
same view of its base's tangent by remaking it after every in-place op.

A tangent keeps its own dtype, as in PyTorch (``make_dual`` of a float32
primal with a float64 or complex tangent; see ``_tangent_dtype`` for what ops
give).  Where PyTorch's element-wise formulas of a real input drop a complex
tangent's imaginary part (``sin``, ``exp``, ``neg``...: its
``handle_r_to_c``), it is kept here, as its ``mul``, ``add`` and reductions keep it.
"""
import weakref
from typing import NamedTuple, Optional

from .. import _dtype
from .._autograd.grad_mode import _DecoratorContextManager
from .._tensor import Tensor
from ..ops._registry import REGISTRY, TRANSFORMS, dispatch
from ..ops.views import apply_chain, copy_slices
from .function import Function, _apply_with_ctx

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level",
           "make_dual", "unpack_dual"]

_current_level = -1
_levels = []            # the open levels, outermost first; _levels[i].index == i
_NOFW = object()
# casts whose real output of a complex input takes the real part of the tangent
_REAL_PART = frozenset({"_to_copy", "copy_from"})


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the primal and the tangent (None if none)."""
    primal: Tensor
    tangent: Optional[Tensor]


def _no_rule(op):
    return NotImplementedError(f"Trying to use forward AD with {op.name} that does not support it "
                               f"because it has not been implemented yet.")


class DualLevel:
    """One forward-mode level: the transform that sits on ``TRANSFORMS`` while
    the level is open.  ``tensorplay.func.jvp`` can open one of its own."""
    forward_level = True        # what ops/inplace.py asks of a transform

    def __init__(self, index):
        self.index = index
        self._holders = []      # weak references to the tensors given a tangent here
        self._limit = 1024

    def __repr__(self):
        return f"<forward AD level {self.index}>"

    # -- tangents
    def tangent(self, t):
        d = t.__dict__.get("_fw_grads")
        return None if not d else d.get(self)

    def set_tangent(self, t, tangent):
        d = t.__dict__.get("_fw_grads")
        if d is None:
            d = t.__dict__["_fw_grads"] = {}
        if self not in d:
            holders = self._holders
            holders.append(weakref.ref(t))
            if len(holders) > self._limit:      # a long loop in one level: drop the dead
                holders[:] = [r for r in holders if r() is not None]
                self._limit = max(1024, 2 * len(holders))
        d[self] = tangent

    def clear(self):
        for r in self._holders:
            t = r()
            if t is not None:
                d = t.__dict__.get("_fw_grads")
                if d:
                    d.pop(self, None)
        self._holders = []

    def below(self):
        """A context in which ops run below this level (and below the levels
        opened inside it): what this level's own computations use."""
        return _Below(self)

    # -- the transform
    def process(self, op, args):
        """One op call: the primal below this level, and the output's tangent if
        an input has one here."""
        n = len(args) - op.n_kw if op.variadic else min(op.n_in, len(args))
        tangents = None
        for i in range(n):
            a = args[i]
            if isinstance(a, Tensor):
                d = a.__dict__.get("_fw_grads")
                if d:
                    t = d.get(self)
                    if t is not None:
                        if tangents is None:
                            tangents = [None] * n
                        tangents[i] = t
        result = dispatch(op, args)
        if op.view and isinstance(args[0], Tensor):
            _track_view(args[0], result)
        if tangents is None:
            return result
        outs = result if type(result) is tuple else (result,)
        if not any(o._data.dtype.kind in "fcV" and k not in op.nondiff_out
                   for k, o in enumerate(outs) if isinstance(o, Tensor)):
            return result           # integer, boolean and non-differentiable outputs carry no tangent
        if not op.differentiable:          # PyTorch refuses too (heaviside)
            raise NotImplementedError(f"Trying to use forward AD with {op.name} that does not "
                                      f"support it.")
        rule = op.jvp
        if rule is None:
            raise _no_rule(op)
        out_t = rule(op, args, tangents, result)
        want = None
        for i, t in enumerate(tangents):
            if t is not None and t._data.dtype != args[i]._data.dtype:
                want = _tangent_dtype(op, args, tangents)   # a tangent not in its primal's dtype
                break
        if type(result) is tuple:
            if type(out_t) not in (tuple, list) or len(out_t) != len(result):
                raise RuntimeError(f"{op.name}: the forward rule returned {type(out_t).__name__}, "
                                   f"not one tangent per output ({len(result)})")
            for k, (o, t) in enumerate(zip(result, out_t)):
                if t is not None and k not in op.nondiff_out:
                    self._attach(op, o, t, want)
        elif out_t is not None:
            self._attach(op, result, out_t, want)
        return result

    def _attach(self, op, out, t, want=None):
        od, td = out._data, t._data
        if od.dtype.kind not in "fcV":     # ("V": ml_dtypes' bfloat16)
            return
        if td.shape != od.shape:
            try:
                t = t.expand(od.shape)
            except RuntimeError:
                raise RuntimeError(f"{op.name}: the forward rule gave a tangent of shape "
                                   f"{list(td.shape)} for an output of shape {list(od.shape)}") from None
        if want is not None:            # (see _tangent_dtype)
            want, extra = want
            if not op.linear:
                want = _dtype.promote_types(want, out.dtype)
            if want.is_complex and not extra and od.dtype.kind != "c":
                want = want.to_real()   # a real output of complex inputs (abs): a real tangent
                if td.dtype.kind == "c":
                    t = t.real
                    td = t._data
            if t.dtype is not want:
                if td.dtype.kind == "c" and not want.is_complex and op.name in _REAL_PART:
                    t = t.real
                    td = t._data
                elif td.dtype.kind == "c" and not want.is_complex:
                    raise RuntimeError(f"{op.name}: the forward rule gave a complex tangent for a "
                                       f"real output")
                t = t.to(want)
        elif td.dtype != od.dtype:
            if td.dtype.kind == "c" and od.dtype.kind != "c" and op.name in _REAL_PART:
                t = t.real      # a cast of complex to real: the real part, as PyTorch's
                td = t._data
            if td.dtype.kind == "c" and od.dtype.kind != "c":
                raise RuntimeError(f"{op.name}: the forward rule gave a complex tangent for a real "
                                   f"output")
            t = t.to(out.dtype)
        self.set_tangent(out, t)
        fn = out._gfn
        if fn is not None and (getattr(fn, "out", None) is not None
                               or getattr(fn, "_saved", None)):
            _keep_out_tangent(fn, out, self, t)

    def process_function(self, cls, args, kwargs):
        """A custom ``Function`` call: its ``jvp(ctx, *tangents)`` gives the tangents."""
        tangents = [self.tangent(a) if isinstance(a, Tensor) else None for a in args]
        if all(t is None for t in tangents):
            return cls.apply(*args, **kwargs)        # to the levels below
        if cls.jvp is Function.jvp:
            raise NotImplementedError("You must implement the jvp function for custom "
                                      "autograd.Function to use it with forward mode AD.")
        outputs, ctx = _apply_with_ctx(cls, args, kwargs)
        if ctx.materialize_grads:
            tangents = [a.new_zeros(a.shape) if t is None and isinstance(a, Tensor)
                        and (a.is_floating_point() or a.is_complex()) else t
                        for a, t in zip(args, tangents)]
        saved = getattr(ctx, "saved_for_forward", None)
        ctx._fw_saved = saved if saved is not None else ()     # (PyTorch: only what forward saved for it)
        try:
            res = cls.jvp(ctx, *tangents)
        finally:
            ctx._fw_saved = None
        single = type(outputs) is not tuple
        outs = (outputs,) if single else outputs
        res = (res,) if not isinstance(res, tuple) else res
        if len(res) != len(outs):
            raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients "
                               f"(expected {len(outs)} but got {len(res)})")
        for o, t in zip(outs, res):
            if t is None or not isinstance(o, Tensor):
                continue
            if not isinstance(t, Tensor):
                raise RuntimeError(f"Function's jvp returned a {type(t).__name__} as a forward "
                                   f"gradient, not a Tensor or None")
            if tuple(t.shape) != tuple(o.shape):
                raise RuntimeError(_size_msg(o, t))
            self._attach(op_name(cls), o, t)
        return outputs

    # -- in-place ops (ops/inplace.py calls these for every open level)
    def update_inplace(self, self_t, out):
        """``self_t`` now holds ``out``'s value: its tangent becomes ``out``'s
        (zero if ``out`` has none but it had one), written into its base's
        tangent if it is a view, whose views then remake theirs."""
        new = self.tangent(out)
        fv = _fw_view(self_t)
        with self.below():
            if fv is not None:                      # a view: the base's tangent changes
                root, chain = fv
                root_t = self.tangent(root)
                if new is None and root_t is None:
                    return
                if root_t is None:
                    root_t = root.new_zeros(root.shape)
                if new is None:
                    new = self_t.new_zeros(self_t.shape)
                # in the dtype of the region the chain selects in root_t: a view_as_complex
                # of a real root takes a complex tangent (both halves), view_as_real a real one
                root_t = copy_slices(root_t, _fit_dtype(new, _region_like(self_t, root, root_t)),
                                     chain)
            else:
                root = self_t
                old = self.tangent(self_t)
                if new is None:
                    if old is None:
                        return
                    new = self_t.new_zeros(self_t.shape)
                # as PyTorch: a tangent not in its primal's dtype (make_dual's) keeps its
                # dtype when the op writes it in place, and gives it to a tensor without one
                root_t = _fit_dtype(new, old if old is not None else
                                    new if new.dtype != out.dtype else self_t)
            self.set_tangent(root, root_t)
            self._remake_views(root, root_t)

    def update_reshape(self, self_t, f, args, kwargs):
        """``x.t_()``, ``x.unsqueeze_(0)``...: the tangent takes the same new shape."""
        t = self.tangent(self_t)
        if t is not None:
            with self.below():
                self.set_tangent(self_t, f(t, *args, **kwargs))

    def _remake_views(self, root, root_t):
        d = root.__dict__
        seen = set()
        for views in (d.get("_fw_views"), root._views):
            for v in (views or ()):
                if id(v) in seen:
                    continue
                seen.add(id(v))
                fv = _fw_view(v)
                if fv is not None and fv[0] is root:
                    self.set_tangent(v, apply_chain(root_t, fv[1]))


def _keep_out_tangent(node, out, level, t):
    """The node of ``out`` saved its output as data and rebuilds a tensor from
    it when its derivative runs (``OpNode.apply``; a Function's saved output
    in ``saved.py``): that rebuilt output must carry ``out``'s tangents, or
    forward-over-reverse through an op whose derivative reads its result
    (``exp``, ``tanh``, ``sqrt``...) would drop a term.  The node keeps the
    tangents and hands them to the rebuilt output (``node._fw_out(out, nr)``)
    for the levels still open."""
    nr = getattr(out, "_out_nr", 0)
    multi = type(getattr(node, "out", None)) is tuple
    if multi:
        saved = getattr(node.op, "out_saved", None)
        if saved is not None and nr not in saved:
            return          # the derivatives do not read this output (max's values: its indices)
    d = node.__dict__
    kept = d.get("_fw_kept")
    if kept is None:
        kept = d["_fw_kept"] = {}

        def restore(out, nr=0):
            for (lv, k), tangent in kept.items():
                if k == nr and lv.index < len(_levels) and _levels[lv.index] is lv:
                    lv.set_tangent(out, tangent)
        d["_fw_out"] = restore
    kept[(level, nr)] = t


def op_name(cls):
    """Stand-in op for ``_attach``'s messages about a Function."""
    class _Named:
        name = cls.__name__
    return _Named


class _Below:
    """Take ``level`` and the transforms opened inside it off ``TRANSFORMS``
    while the block runs (a level not on the stack is already off it)."""
    __slots__ = ("level", "saved")

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        for i, t in enumerate(TRANSFORMS):
            if t is self.level:
                self.saved = TRANSFORMS[i:]
                del TRANSFORMS[i:]
                return
        self.saved = []

    def __exit__(self, *exc):
        TRANSFORMS.extend(self.saved)


def _fw_view(t):
    """``(root, chain)`` if ``t`` is a view for forward mode, else None.  A dual
    tensor is a root (``make_dual`` marks it), and its views are tracked from
    it; other views are their base's views as autograd knows them."""
    d = t.__dict__
    fv = d.get("_fw_view", _NOFW)
    if fv is not _NOFW:
        return fv
    base = getattr(t, "_base", None)
    if base is None:
        return None
    return base, getattr(t, "_view_chain", ())


def _track_view(src, result):
    """A view of a dual tensor (or of a view of one) remembers the chain from it."""
    fv = src.__dict__.get("_fw_view", _NOFW)
    if fv is _NOFW:
        return
    root, chain = (src, ()) if fv is None else fv
    views = root.__dict__.get("_fw_views")
    for o in (result if type(result) is tuple else (result,)):
        step = getattr(o, "_view_chain", None)
        if not step or "_fw_view" in o.__dict__:
            continue        # not a view, or tracked already (by another level seeing this op)
        o.__dict__["_fw_view"] = (root, chain + (step[-1],))
        if views is None:
            views = root.__dict__["_fw_views"] = weakref.WeakSet()
        views.add(o)


def _tangent_dtype(op, args, tangents):
    """The dtype of an output's tangent when an input's tangent is not in its
    primal's dtype (``make_dual`` keeps the tangent's dtype, as PyTorch does):
    a linear op's tangent is the op applied to the tangents, in their common
    dtype (float16 tangents of float32 inputs give float16 tangents, a complex
    tangent of a real input a complex one); any other op's mixes the tangents
    with values in the primals' dtype, so it is that common dtype promoted
    with the primals' and the output's (float64 tangents of a float32 input
    give float64 tangents).  The imaginary part of a complex tangent is never dropped."""
    dts = [t.dtype for t in tangents if t is not None]
    if not op.linear:
        dts.extend(a.dtype for a, t in zip(args, tangents) if t is not None)
    want = dts[0]
    for d in dts[1:]:
        want = _dtype.promote_types(want, d)
    # a complex tangent of a real primal makes a real output's tangent complex
    extra = any(t is not None and t.is_complex() and not a.is_complex()
                for a, t in zip(args, tangents))
    return want, extra


def _region_like(view, root, root_t):
    """A tensor in the dtype of ``view``'s region of ``root_t``, the tangent of
    ``view``'s root ``root`` (a chain may change the dtype: view_as_complex)."""
    if root_t._data.dtype == root._data.dtype:
        return view
    if view._data.dtype != root._data.dtype:
        if view.is_complex() and not root.is_complex() and not root_t.is_complex():
            return root_t.new_empty((), dtype=root_t.dtype.to_complex())
        if not view.is_complex() and root.is_complex() and root_t.is_complex():
            return root_t.new_empty((), dtype=root_t.dtype.to_real())
    return root_t


def _fit_dtype(t, like):
    if t._data.dtype != like._data.dtype:
        if t._data.dtype.kind == "c" and like._data.dtype.kind != "c":
            t = t.real
        t = t.to(like.dtype)
    return t


def _size_msg(tensor, tangent):
    return ("Trying to set a forward gradient that has a different size than that of the original "
            f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
            f"forward gradient is of size {list(tangent.shape)}.")


# ------------------------------------------------------------------ the public API
def enter_dual_level():
    """Open a new forward-mode level (inside the current one, if any) and make
    it the default of ``make_dual``/``unpack_dual``.  Returns its index."""
    global _current_level
    level = DualLevel(len(_levels))
    _levels.append(level)
    TRANSFORMS.append(level)
    _current_level = level.index
    return level.index


def exit_dual_level(*, level=None):
    """Close the innermost level, deleting the tangents of that level."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was "
                           "created. This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    lv = _levels.pop()
    for i in range(len(TRANSFORMS) - 1, -1, -1):
        if TRANSFORMS[i] is lv:
            del TRANSFORMS[i]
            break
    lv.clear()
    _current_level = level - 1


def _level(level, fname):
    if not 0 <= level < len(_levels):
        raise RuntimeError(f"Invalid level given to {fname}")
    return _levels[level]


def make_dual(tensor, tangent, *, level=None):
    """A new tensor aliasing ``tensor`` whose tangent at ``level`` (default: the
    current one) is ``tangent``.  Backward-differentiable with respect to both.

    >>> with dual_level():
    ...     y = make_dual(tensorplay.tensor([1.0, 2.0]), tensorplay.tensor([1.0, 0.0])).exp()
    ...     unpack_dual(y).tangent
    tensor([2.7183, 0.0000])
    """
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make "
                           "sure to enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    lv = _level(level, "_make_dual")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(_size_msg(tensor, tangent))
    if lv.tangent(tensor) is not None:
        raise RuntimeError(f"Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {level} is not supported.")
    with lv.below():
        dual = dispatch(REGISTRY["alias"], [tensor])
    # the tangent keeps its dtype, as in PyTorch (a complex tangent of a real
    # primal, a float64 tangent of a float32 one: see _tangent_dtype)
    dual.__dict__["_fw_view"] = None        # a root for forward mode: its in-place ops stay its own
    lv.set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    """``UnpackedDualTensor(primal, tangent)``: a view of ``tensor`` without its
    tangent at ``level`` (default: the current one), and that tangent as it is
    (None if it has none)."""
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    lv = _level(level, "_fw_primal")
    t = lv.tangent(tensor)
    if t is None:
        return UnpackedDualTensor(tensor, None)
    with lv.below():
        primal = dispatch(REGISTRY["alias"], [tensor])
    return UnpackedDualTensor(primal, t)


class dual_level(_DecoratorContextManager):
    """Context manager (and decorator) opening a forward-mode level; tangents of
    the level are deleted when it closes.  Levels nest.

    >>> x, v = tensorplay.tensor([0.0, 1.0]), tensorplay.tensor([1.0, 1.0])
    >>> with dual_level():
    ...     value, jvp = unpack_dual(make_dual(x, v).cos())
    >>> jvp
    tensor([-0.0000, -0.8415])
    >>> unpack_dual(value).tangent is None      # closing the level deleted its tangents
    True
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback):
        exit_dual_level()
