"""Pytrees: nested tuples, lists, dicts and namedtuples of leaves.

The transforms take and return pytrees of tensors, as ``torch.func`` does:
``tree_flatten`` turns one into its leaves (depth first, dict keys in
insertion order) and a ``TreeSpec`` that ``tree_unflatten`` rebuilds it from.
Everything that is not one of the four containers is a leaf, ``None``
included (as in ``torch.utils._pytree``).
"""
__all__ = ["TreeSpec", "LEAF", "tree_flatten", "tree_unflatten", "tree_map", "tree_leaves"]


class TreeSpec:
    """The shape of a pytree: its container type, the context needed to rebuild
    it (dict keys, the namedtuple class) and one spec per child.  Specs compare
    equal when the trees have the same structure."""
    __slots__ = ("type", "context", "children", "num_leaves")

    def __init__(self, type_, context, children):
        self.type, self.context, self.children = type_, context, children
        self.num_leaves = 1 if type_ is None else sum(c.num_leaves for c in children)

    def is_leaf(self):
        return self.type is None

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.type is other.type
                and self.context == other.context and self.children == other.children)

    def __hash__(self):
        return hash((self.type, len(self.children)))

    def __repr__(self):                 # torch's repr: TreeSpec(tuple, None, [*, *])
        if self.type is None:
            return "*"
        name = "namedtuple" if self.type is _NAMEDTUPLE else self.type.__name__
        ctx = self.context.__name__ if self.type is _NAMEDTUPLE else self.context
        return f"TreeSpec({name}, {ctx}, [{', '.join(map(repr, self.children))}])"

    def pprint(self):
        """The short form torch's ``treespec_pprint`` prints: ``(*, [*, *])``."""
        if self.type is None:
            return "*"
        kids = [c.pprint() for c in self.children]
        if self.type is dict:
            return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(self.context, kids)) + "}"
        if self.type is list:
            return "[" + ", ".join(kids) + "]"
        if self.type is _NAMEDTUPLE:
            return f"{self.context.__name__}(" + ", ".join(
                f"{f}={c}" for f, c in zip(self.context._fields, kids)) + ")"
        return "(" + ", ".join(kids) + (",)" if len(kids) == 1 else ")")


class _NAMEDTUPLE:      # marker type of a namedtuple node (its class is the context)
    pass


LEAF = TreeSpec(None, None, [])


def _node(tree):
    """(type, context, children) of a container, or None for a leaf."""
    t = type(tree)
    if t is tuple or t is list:
        return t, None, list(tree)
    if t is dict:
        return dict, list(tree), list(tree.values())
    if isinstance(tree, tuple) and hasattr(t, "_fields"):
        return _NAMEDTUPLE, t, list(tree)
    return None


def tree_flatten(tree):
    """``(leaves, spec)``: the leaves of ``tree`` in order, and its structure."""
    t = type(tree)
    if not isinstance(tree, (tuple, list, dict)):
        return [tree], LEAF
    if (t is tuple or t is list) and not any(isinstance(k, (tuple, list, dict)) for k in tree):
        return list(tree), TreeSpec(t, None, [LEAF] * len(tree))      # the common flat case
    leaves = []

    def walk(t):
        n = _node(t)
        if n is None:
            leaves.append(t)
            return LEAF
        typ, ctx, kids = n
        return TreeSpec(typ, ctx, [walk(k) for k in kids])

    return leaves, walk(tree)


def tree_unflatten(leaves, spec):
    """The tree of structure ``spec`` holding ``leaves`` in order."""
    leaves = list(leaves)
    if spec.type is None and len(leaves) == 1:
        return leaves[0]
    if len(leaves) != spec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the "
                         f"spec refers to a pytree that holds {spec.num_leaves} items ({spec}).")
    it = iter(leaves)

    def build(s):
        if s.type is None:
            return next(it)
        kids = [build(c) for c in s.children]
        if s.type is dict:
            return dict(zip(s.context, kids))
        if s.type is _NAMEDTUPLE:
            return s.context(*kids)
        return s.type(kids)

    return build(spec)


def tree_leaves(tree):
    return tree_flatten(tree)[0]


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)
