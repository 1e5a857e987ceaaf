"""``grad_fn._saved_<name>`` and ``grad_fn._raw_saved_<name>``: what a node saved,
under PyTorch's names (tutorials read them: ``y.grad_fn._saved_self``).

A node saves what its op's derivatives declare (``ops/_registry.py``); the
names are the op's parameters, which PyTorch spells differently: the first
input is ``self``, a second ``other`` (``mat2`` for ``mm``/``bmm``, ``tensor``
for ``dot``), ``pow``'s exponent ``exponent``, the output ``result``.  An input
saved only for its shape is ``<name>_sym_sizes``.  ``_raw_saved_<name>`` is a
``SavedTensor`` whose ``register_hooks(pack, unpack)`` sets saved-tensor hooks
for that one tensor.  They are properties of each op's node classes, put there
once (``install``): a ``__getattr__`` would slow every attribute read of every
node in the engine.
"""
import numpy as np

_ndarray = np.ndarray

from .._autograd.engine import FREED_MSG
from .._autograd.saved_hooks import HOOKED, check_register_hooks, run_pack_hook
from .._tensor import Tensor, TensorMeta, _wrap
from ._registry import _Packed, reattached, unpacked as _unpacked

_ALIASES = {"x": "self", "input": "self", "y": "other", "e": "exponent", "xs": "tensors",
            "reps": "repeats"}
_OP_ALIASES = {"mm": {"y": "mat2"}, "bmm": {"y": "mat2"}, "dot": {"y": "tensor"},
               "vdot": {"y": "other"}, "mm_nh": {"y": "mat2"}, "mm_hn": {"y": "mat2"}}
# mm's derivative ops are PyTorch's mm of a conjugate transpose (x @ y^H, x^H @ y):
# the input they take untransposed is shown as the mm's (its .mH)
_ADJOINT = {"mm_nh": "y", "mm_hn": "x"}


def _names(op):
    """PyTorch's name of each saved thing of ``op`` -> (kind, position):
    ("value", i), ("adjoint", i) (shown as its .mH), ("sizes", i), ("numel", i) or
    ("result", -1)."""
    table = op.__dict__.get("_saved_names")
    if table is not None:
        return table
    table = {}
    aliases = dict(_ALIASES, **_OP_ALIASES.get(op.name, {}))
    read = set()
    for names in op.reads:
        read.update(names)
    for name in read:
        if name == "result":
            table["result"] = ("result", -1)
            continue
        if name == op.star:
            table[aliases.get(name, name)] = ("value", -2)
            continue
        i = op.names.index(name)
        pt = aliases.get(name, name) if i < max(op.n_in, 1) else name
        if name in op.meta:
            table[pt + "_sym_sizes"] = ("sizes", i)
            if op.name in ("mean",):
                table[pt + "_sym_numel"] = ("numel", i)
        else:
            table[pt] = ("adjoint" if _ADJOINT.get(op.name) == name else "value", i)
    op._saved_names = table
    return table


def _wrapped_number(v):
    """A Python number saved by a node, as PyTorch's wrapped-number tensor."""
    return _wrap(np.asarray(v, dtype=np.int64 if type(v) is int else None))


def _value(node, kind, i):
    args = node.args
    if args is None:
        raise RuntimeError(FREED_MSG)
    if kind == "result":
        o = node.out
        if o is None:
            return None
        if type(o) is _Packed:
            o = _unpacked(o)._data
        outs = o if type(o) is tuple else (o,)      # (several outputs: max(dim)'s values, indices)
        ts = []
        for n, d in enumerate(outs):
            if isinstance(d, Tensor):
                d = d._data
            t = _wrap(d)
            if d.dtype.kind in "fcV":
                t._rg, t._gfn, t._out_nr = True, node, n
            for vl, _, _, k in node.versions or ():
                if k == n:
                    t._vc = vl          # the output's own version counter, as in PyTorch
            ts.append(t)
        return tuple(ts) if type(o) is tuple else ts[0]
    if i == -2:                     # the *args after the named parameters (permute's dims)
        op = node.op
        return tuple(args[0 if op.variadic else len(op.names):len(args) - op.n_kw])
    op = node.op
    if op.variadic:                 # (tensors..., params): a parameter counts from the end
        i = len(args) - (len(op.names) - i)
    a = args[i] if i < len(args) else op.defaults[i]
    if type(a) is _Packed:
        a = reattached(_unpacked(a), a.edge)
    if kind == "adjoint":
        return a.mH if isinstance(a, Tensor) else a
    if kind == "value":
        if isinstance(a, TensorMeta):
            return None
        if i < node.op.n_in and isinstance(a, (int, float, complex)) and type(a) is not bool \
                and node.op.names[i] != "e":        # (pow's exponent stays a Scalar)
            return _wrapped_number(a)
        return a
    if a is None:
        return None
    shape = tuple(a.shape)
    if kind == "sizes":
        return shape
    n = 1
    for s in shape:
        n *= s
    return n


class SavedTensor:
    """One tensor a node saved (``grad_fn._raw_saved_<name>``)."""
    __slots__ = ("node", "kind", "index")

    def __init__(self, node, kind, index):
        self.node, self.kind, self.index = node, kind, index

    def _saved(self):
        node = self.node
        if node.args is None:
            return None
        if self.kind == "result":
            return node.out
        a = node.args[self.index] if self.index < len(node.args) else None
        return None if isinstance(a, TensorMeta) else a

    def unpack(self):
        return _value(self.node, self.kind, self.index)

    @property
    def data(self):
        """What is stored: the pack hook's result if hooks were set, else the saved
        tensor (an output's data as a new tensor)."""
        a = self._saved()
        if type(a) is _Packed:
            return a.value
        return self.unpack()

    @property
    def unpack_hook(self):
        a = self._saved()
        return a.unpack if type(a) is _Packed else None

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack this saved tensor now with ``pack_hook``; the node gets it back
        with ``unpack_hook`` when its backward runs."""
        node = self.node
        freed = node.args is None and node.versions is None and node.out is None
        a = None if freed else self._saved()
        if not freed and not isinstance(a, (Tensor, _ndarray, _Packed)):
            a = None                                # a Python number: nothing to hook
        check_register_hooks(pack_hook, unpack_hook, freed,
                             HOOKED if type(a) is _Packed else a)
        if self.kind == "result":
            node.out = _Packed(run_pack_hook(pack_hook, _wrap(a)), unpack_hook, a, None)
        else:
            args = list(node.args)
            args[self.index] = _Packed(run_pack_hook(pack_hook, a), unpack_hook, a,
                                       a._edge() if a._rg else None)
            node.args = args
        node._packed = True

    def __repr__(self):
        return f"<SavedTensor {self.kind} of {type(self.node).__name__}>"


def _property(kind, i, raw):
    if raw:
        return property(lambda node: SavedTensor(node, kind, i))
    return property(lambda node: _value(node, kind, i))


def install(op):
    """Give ``op``'s node classes a ``_saved_<name>`` (and ``_raw_saved_<name>``)
    property per thing its derivatives read, under PyTorch's names."""
    for name, (kind, i) in _names(op).items():
        for cls in (op.node_cls, op.multi_node_cls):
            setattr(cls, "_saved_" + name, _property(kind, i, False))
            if kind in ("value", "adjoint", "result"):
                setattr(cls, "_raw_saved_" + name, _property(kind, i, True))
