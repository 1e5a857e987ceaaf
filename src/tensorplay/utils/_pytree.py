"""Pytrees (``torch.utils._pytree``): nested containers of leaves.

A pytree is a leaf or a node: a container of a registered type holding
pytrees.  ``tuple``, ``list``, ``dict``, namedtuples, ``OrderedDict``,
``defaultdict`` and ``deque`` are registered; ``register_pytree_node`` adds
more.  Anything else, ``None`` included, is a leaf (a subclass of a registered
type is a leaf too, except namedtuples).

``tree_flatten`` walks a tree depth first (dict keys in insertion order) into
its leaves and a ``TreeSpec``, the structure that ``tree_unflatten`` rebuilds
it from.  The function transforms (``tensorplay.func``) take and return their
arguments and results as pytrees through this module.
"""
import functools
import threading
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple

__all__ = [
    "TreeSpec", "PyTreeSpec", "LeafSpec", "register_pytree_node", "tree_is_leaf", "tree_flatten",
    "tree_unflatten", "tree_iter", "tree_leaves", "tree_structure", "tree_map", "tree_map_",
    "tree_map_only", "tree_map_only_", "tree_all", "tree_any", "tree_all_only", "tree_any_only",
    "treespec_pprint", "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance",
]


class NodeDef:
    """How a registered type is taken apart and put back together."""
    __slots__ = ("type", "flatten_fn", "unflatten_fn")

    def __init__(self, type_, flatten_fn, unflatten_fn):
        self.type, self.flatten_fn, self.unflatten_fn = type_, flatten_fn, unflatten_fn


SUPPORTED_NODES = {}            # type -> NodeDef
_LOCK = threading.Lock()


def is_namedtuple_class(cls):
    """Whether ``cls`` is a namedtuple class (a tuple subclass with ``_fields``,
    ``_make`` and ``_asdict``)."""
    return (isinstance(cls, type) and issubclass(cls, tuple)
            and isinstance(getattr(cls, "_fields", None), tuple)
            and all(type(f) is str for f in cls._fields)
            and callable(getattr(cls, "_make", None)) and callable(getattr(cls, "_asdict", None)))


def is_namedtuple(obj):
    """Whether ``obj`` is a namedtuple class or an instance of one."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_instance(obj):
    return is_namedtuple_class(type(obj))


def _register(cls, flatten_fn, unflatten_fn):
    with _LOCK:
        SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn)


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None):
    """Make ``cls`` a pytree node: ``flatten_fn(obj) -> (children, context)``
    and ``unflatten_fn(children, context) -> obj``.  The serialization and
    key-path arguments are accepted for PyTorch compatibility and not used."""
    with _LOCK:
        if cls in SUPPORTED_NODES:
            raise ValueError(f"{cls} is already registered as pytree node.")
    if (to_dumpable_context is None) != (from_dumpable_context is None):
        raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} must "
                         f"be None or registered.")
    _register(cls, flatten_fn, unflatten_fn)


def _deregister_pytree_node(cls):
    with _LOCK:
        del SUPPORTED_NODES[cls]


_register(tuple, lambda t: (list(t), None), lambda v, c: tuple(v))
_register(list, lambda t: (list(t), None), lambda v, c: list(v))
_register(dict, lambda t: (list(t.values()), list(t)), lambda v, c: dict(zip(c, v)))
_register(namedtuple, lambda t: (list(t), type(t)), lambda v, c: c(*v))
_register(OrderedDict, lambda t: (list(t.values()), list(t)), lambda v, c: OrderedDict(zip(c, v)))
_register(defaultdict, lambda t: (list(t.values()), [t.default_factory, list(t)]),
          lambda v, c: defaultdict(c[0], zip(c[1], v)))
_register(deque, lambda t: (list(t), t.maxlen), lambda v, c: deque(v, maxlen=c))

_BUILTIN = frozenset({tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque})
_DICTS = frozenset({dict, OrderedDict, defaultdict})


def _node_type(tree):
    """The registry key of ``tree``'s type: every namedtuple is ``namedtuple``."""
    t = type(tree)
    if t is not tuple and is_namedtuple_class(t):
        return namedtuple
    return t


def tree_is_leaf(tree, is_leaf=None):
    """Whether ``tree`` is a leaf: ``is_leaf(tree)`` says so, or its type is no
    registered node."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) not in SUPPORTED_NODES


class TreeSpec:
    """The structure of a pytree: the type of its root node (None for a leaf),
    the context needed to rebuild it (dict keys, the namedtuple class...) and
    one spec per child.  Specs compare equal when the trees have the same
    structure (types, contexts, children in order)."""
    __slots__ = ("type", "_context", "_children", "num_nodes", "num_leaves", "num_children")

    def __init__(self, type, context, children_specs):     # noqa: A002  (PyTorch's name)
        self.type, self._context, self._children = type, context, list(children_specs)
        if type is None:
            if context is not None:
                raise AssertionError("leaf node should not have a context")
            if self._children:
                raise AssertionError("leaf node should not have children")
            self.num_nodes = self.num_leaves = 1
            self.num_children = 0
        else:
            self.num_nodes = 1 + sum(c.num_nodes for c in self._children)
            self.num_leaves = sum(c.num_leaves for c in self._children)
            self.num_children = len(self._children)

    @property
    def context(self):
        return self._context

    def is_leaf(self):
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self):
        return list(self._children)

    def child(self, index):
        return self._children[index]

    def __repr__(self, indent=0):
        head = f"TreeSpec({self.type.__name__}, {self._context}, ["
        if not self._children:
            return head + "])"
        indent += 2
        parts = [self._children[0].__repr__(indent)]
        parts += ["\n" + " " * indent + c.__repr__(indent) for c in self._children[1:]]
        return head + ",".join(parts) + "])"

    def __eq__(self, other):
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (str(self.type) == str(other.type) and self._context == other._context
                and self._children == other._children)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        t, ctx = self.type, self._context
        if t is defaultdict:
            ctx = (ctx[0], tuple(ctx[1]))
        elif t in (dict, OrderedDict):
            ctx = tuple(ctx)
        elif t is not None and t not in _BUILTIN:
            ctx = None                      # a custom context may not be hashable
        return hash((t, ctx, tuple(self._children)))

    def pprint(self):
        """The short form (``treespec_pprint``): ``(*, [*, *])``."""
        return treespec_pprint(self)

    def unflatten(self, leaves):
        """The tree of this structure holding ``leaves`` in order."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but "
                             f"the spec refers to a pytree that holds {self.num_leaves} items "
                             f"({self}).")
        return self._build(leaves, 0)

    def _build(self, leaves, start):
        if self.type is None:
            return leaves[start]
        kids = []
        for c in self._children:
            kids.append(c._build(leaves, start))
            start += c.num_leaves
        return SUPPORTED_NODES[self.type].unflatten_fn(kids, self._context)

    def flatten_up_to(self, tree):
        """The subtrees of ``tree`` at this spec's leaves (``tree`` must have
        this spec's structure down to them)."""
        out = []
        self._up_to(tree, out)
        return out

    def _up_to(self, node, out):
        if self.is_leaf():
            out.append(node)
            return
        nt = _node_type(node)
        if self.type not in _BUILTIN:
            if nt != self.type:
                raise ValueError(f"Type mismatch; expected {self.type!r}, but got {nt!r}.")
            kids, ctx = SUPPORTED_NODES[nt].flatten_fn(node)
            if len(kids) != self.num_children:
                raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got "
                                 f"{len(kids)}.")
            if ctx != self._context:
                raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        else:
            dicts = self.type in _DICTS and nt in _DICTS
            if not dicts and nt != self.type:
                raise ValueError(f"Node type mismatch; expected {self.type!r}, but got {nt!r}.")
            if len(node) != self.num_children:
                raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got "
                                 f"{len(node)}.")
            if dicts:
                keys = self._context if self.type is not defaultdict else self._context[1]
                got, want = set(node), set(keys)
                if got != want:
                    msg = ""
                    if want - got:
                        msg += f"; missing key(s): {want - got}"
                    if got - want:
                        msg += f"; extra key(s): {got - want}"
                    raise ValueError(f"Node keys mismatch{msg}.")
                kids = [node[k] for k in keys]
            else:
                kids, ctx = SUPPORTED_NODES[nt].flatten_fn(node)
                if nt is not deque and ctx != self._context:
                    raise ValueError(f"Node context mismatch for node type {self.type!r}; "
                                     f"expected {self._context!r}, but got {ctx!r}.")
        for sub, spec in zip(kids, self._children):
            spec._up_to(sub, out)


class LeafSpec(TreeSpec):
    """The spec of a leaf (PyTorch deprecates the class in favour of
    ``spec.is_leaf()``; every leaf's spec is one shared instance)."""
    __slots__ = ()

    def __init__(self):
        warnings.warn("`isinstance(treespec, LeafSpec)` is deprecated, use `isinstance(treespec, "
                      "TreeSpec) and treespec.is_leaf()` instead.", FutureWarning, stacklevel=2)
        super().__init__(None, None, [])

    def __repr__(self, indent=0):
        return "*"


with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    _LEAF = LeafSpec()
LEAF = _LEAF        # (the name tensorplay.func used)
PyTreeSpec = TreeSpec


def treespec_leaf():
    """The spec of a leaf."""
    return _LEAF


def treespec_tuple(iterable=()):
    """The spec of a tuple of subtrees of the given specs."""
    children = list(iterable)
    if any(not isinstance(c, TreeSpec) for c in children):
        raise ValueError(f"Expected a tuple of TreeSpec values, got: {children!r}.")
    return TreeSpec(tuple, None, children)


def treespec_dict(mapping=(), **kwargs):
    """The spec of a dict of subtrees of the given specs."""
    d = dict(mapping, **kwargs)
    if any(not isinstance(c, TreeSpec) for c in d.values()):
        raise ValueError(f"Expected a dictionary of TreeSpec values, got: {d!r}.")
    return TreeSpec(dict, list(d), list(d.values()))


def _flatten_into(node, leaves, is_leaf):
    if is_leaf is not None and is_leaf(node):
        leaves.append(node)
        return _LEAF
    nt = _node_type(node)
    nd = SUPPORTED_NODES.get(nt)
    if nd is None:
        leaves.append(node)
        return _LEAF
    kids, ctx = nd.flatten_fn(node)
    return TreeSpec(nt, ctx, [_flatten_into(k, leaves, is_leaf) for k in kids])


def tree_flatten(tree, is_leaf=None):
    """``(leaves, spec)``: the leaves of ``tree`` in order, and its structure.
    ``is_leaf(node)`` returning True makes a whole subtree a leaf."""
    t = type(tree)
    if is_leaf is None and (t is tuple or t is list):
        nodes = SUPPORTED_NODES
        if not any(type(k) in nodes or isinstance(k, tuple) for k in tree):
            # the common case (a function's arguments): one flat level of leaves
            return list(tree), TreeSpec(t, None, [_LEAF] * len(tree))
    leaves = []
    spec = _flatten_into(tree, leaves, is_leaf)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    """The tree of structure ``treespec`` holding ``leaves`` in order (the
    inverse of ``tree_flatten``)."""
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item of "
                            f"type {type(treespec)}.")
        leaves, treespec = treespec, leaves
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """The leaves of ``tree``, one at a time."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    kids, _ = SUPPORTED_NODES[_node_type(tree)].flatten_fn(tree)
    for k in kids:
        yield from tree_iter(k, is_leaf)


def tree_leaves(tree, is_leaf=None):
    """The leaves of ``tree`` in order."""
    if is_leaf is None and type(tree) in (tuple, list):
        return tree_flatten(tree)[0]
    return list(tree_iter(tree, is_leaf))


def arg_tree_leaves(*args, **kwargs):
    """The leaves of ``(args, kwargs)``: of each argument, then of each keyword value."""
    out = []
    for a in (*args, *kwargs.values()):
        out.extend(tree_iter(a))
    return out


def tree_structure(tree, is_leaf=None):
    """The ``TreeSpec`` of ``tree``."""
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """A tree of ``tree``'s structure holding ``func(x, *xs)`` at each leaf
    ``x``, ``xs`` the subtrees of ``rests`` at that place (each of ``rests``
    has ``tree``'s structure, or a deeper one)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(list(map(func, *flat)))


def tree_map_(func, tree, *rests, is_leaf=None):
    """``func`` called on each leaf for its side effect; returns ``tree``."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    for _ in map(func, *flat):
        pass
    return tree


def map_only(type_or_types_or_pred):
    """A decorator: the function applied to values of the given type(s) (or
    for which the predicate holds), every other value returned unchanged."""
    if isinstance(type_or_types_or_pred, (type, tuple)) or _is_union(type_or_types_or_pred):
        def pred(x):
            return isinstance(x, type_or_types_or_pred)
    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func):
        @functools.wraps(func)
        def wrapped(x):
            return func(x) if pred(x) else x
        return wrapped
    return wrapper


def _is_union(t):
    try:
        import types
        return isinstance(t, types.UnionType)       # X | Y (Python >= 3.10)
    except AttributeError:
        return False


def tree_map_only(type_or_types_or_pred, func, tree, is_leaf=None):
    """``tree_map`` of ``func`` over the leaves of the given type(s) (or that
    satisfy the predicate); other leaves are kept."""
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, func, tree, is_leaf=None):
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    """Whether ``pred`` holds for every leaf."""
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    """Whether ``pred`` holds for some leaf."""
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, pred, tree, is_leaf=None):
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, pred, tree, is_leaf=None):
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


class _Star(str):
    """A leaf that prints as ``*`` (for ``treespec_pprint``)."""
    __slots__ = ()

    def __repr__(self):
        return "*"


_STAR = _Star("*")


def treespec_pprint(treespec):
    """``treespec`` as the tree it describes printed with ``*`` leaves:
    ``(*, [*, *])``, ``{'a': *}``, ``P(x=*, y=*)``."""
    return repr(treespec.unflatten([_STAR] * treespec.num_leaves))


def _broadcast_to_and_flatten(tree, treespec, is_leaf=None):
    """``tree`` (a prefix of the structure ``treespec``) broadcast to its
    leaves and flattened, or None if it is not a prefix."""
    full = treespec.unflatten([0] * treespec.num_leaves)
    out = []

    def add(x, sub):
        out.extend([x] * tree_structure(sub, is_leaf).num_leaves)
    try:
        tree_map_(add, tree, full, is_leaf=is_leaf)
    except ValueError:
        return None
    return out
