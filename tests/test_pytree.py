"""tensorplay.utils._pytree (torch.utils._pytree): flatten/unflatten of the
registered containers, TreeSpec (repr, equality, hash), tree_map over several
trees, the _only variants, tree_all/tree_any, custom nodes and the errors; run
on both libraries (torch as the oracle when installed)."""
import importlib
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple

import pytest



Point = namedtuple("Point", "x y")
Other = namedtuple("Other", "x y")


def P(T):
    return importlib.import_module(T.__name__ + ".utils._pytree")


TREES = [
    1, None, "s", (1,), (1, 2), [1, (2, 3)], {"a": 1, "b": [2, 3]}, Point(1, (2, None)),
    OrderedDict([("b", 1), ("a", 2)]), defaultdict(list, {"a": 1}), deque([1, 2], maxlen=3),
    [], {}, (), [[], {}], {"z": {"y": (1, [2, {"x": 3}])}}, [None, None],
]

REPRS = [
    "*", "*", "*", "TreeSpec(tuple, None, [*])", "TreeSpec(tuple, None, [*,\n  *])",
    "TreeSpec(list, None, [*,\n  TreeSpec(tuple, None, [*,\n    *])])",
    "TreeSpec(dict, ['a', 'b'], [*,\n  TreeSpec(list, None, [*,\n    *])])",
    "TreeSpec(namedtuple, <class 'test_pytree.Point'>, [*,\n  TreeSpec(tuple, None, [*,\n    *])])",
    "TreeSpec(OrderedDict, ['b', 'a'], [*,\n  *])",
    "TreeSpec(defaultdict, [<class 'list'>, ['a']], [*])", "TreeSpec(deque, 3, [*,\n  *])",
    "TreeSpec(list, None, [])", "TreeSpec(dict, [], [])", "TreeSpec(tuple, None, [])",
    "TreeSpec(list, None, [TreeSpec(list, None, []),\n  TreeSpec(dict, [], [])])",
    "TreeSpec(dict, ['z'], [TreeSpec(dict, ['y'], [TreeSpec(tuple, None, [*,\n"
    "      TreeSpec(list, None, [*,\n        TreeSpec(dict, ['x'], [*])])])])])",
    "TreeSpec(list, None, [*,\n  *])",
]

LEAVES = [[1], [None], ["s"], [1], [1, 2], [1, 2, 3], [1, 2, 3], [1, 2, None], [1, 2], [1],
          [1, 2], [], [], [], [], [1, 2, 3], [None, None]]


class _Star:
    def __repr__(self):
        return "*"


PPRINTS = ["*", "*", "*", "(*,)", "(*, *)", "[*, (*, *)]", "{'a': *, 'b': [*, *]}",
           # (OrderedDict prints as Python prints it: dict-style from 3.12 on)
           "Point(x=*, y=(*, *))", repr(OrderedDict([("b", _Star()), ("a", _Star())])),
           "defaultdict(<class 'list'>, {'a': *})", "deque([*, *], maxlen=3)", "[]", "{}", "()",
           "[[], {}]", "{'z': {'y': (*, [*, {'x': *}])}}", "[*, *]"]


def test_flatten_unflatten_round_trip(T):
    p = P(T)
    for tree, rep, leaves, pp in zip(TREES, REPRS, LEAVES, PPRINTS):
        got, spec = p.tree_flatten(tree)
        assert got == leaves, tree
        assert repr(spec) == rep, tree
        assert p.treespec_pprint(spec) == pp
        back = p.tree_unflatten(got, spec)
        assert back == tree and type(back) is type(tree)
        assert p.tree_leaves(tree) == leaves
        assert p.tree_structure(tree) == spec
        assert spec.num_leaves == len(leaves)
        assert spec.is_leaf() == (rep == "*")
    spec = p.tree_structure(defaultdict(list, {"a": 1}))
    assert p.tree_unflatten([5], spec).default_factory is list
    assert p.tree_unflatten([5, 6], p.tree_structure(deque([1, 2], maxlen=3))).maxlen == 3


def test_spec_attributes_equality_and_hash(T):
    p = P(T)
    s = p.tree_structure({"a": 1, "b": [2, 3]})
    assert s.type is dict and s.context == ["a", "b"] and s.num_children == 2
    assert s.num_nodes == 5 and s.num_leaves == 3
    assert s.child(1).type is list and [c.is_leaf() for c in s.children()] == [True, False]
    assert p.tree_structure(Point(1, 2)).type is namedtuple
    assert p.tree_structure(Point(1, 2)).context is Point
    assert p.tree_structure((1, 2)) != p.tree_structure([1, 2])
    assert p.tree_structure({"a": 1, "b": 2}) != p.tree_structure({"b": 1, "a": 2})
    assert p.tree_structure(Point(1, 2)) != p.tree_structure(Other(1, 2))
    assert p.tree_structure(Point(1, 2)) != p.tree_structure((1, 2))
    assert p.tree_structure([1, (2, 3)]) == p.tree_structure(["a", ("b", None)])
    assert p.tree_structure({"a": 1}) != p.tree_structure(OrderedDict(a=1))
    for tree in TREES:
        s1, s2 = p.tree_structure(tree), p.tree_structure(tree)
        assert hash(s1) == hash(s2) and len({s1, s2}) == 1
    assert isinstance(p.tree_structure(3), p.TreeSpec)
    assert isinstance(p.tree_structure(3), p.LeafSpec)
    with pytest.warns(FutureWarning, match="isinstance\\(treespec, LeafSpec\\)` is deprecated"):
        leaf = p.LeafSpec()
    assert leaf == p.tree_structure(3) and repr(leaf) == "*"
    assert p.treespec_tuple([p.treespec_leaf(), p.treespec_dict(a=p.treespec_leaf())]) == \
        p.tree_structure((1, {"a": 2}))
    assert p.arg_tree_leaves(1, [2, 3], k={"a": 4}) == [1, 2, 3, 4]


def test_is_leaf_and_subclasses(T):
    p = P(T)

    class MyList(list):
        pass

    class MyDict(dict):
        pass

    assert p.tree_leaves([MyList([1, 2]), MyDict(a=1)]) == [MyList([1, 2]), MyDict(a=1)]
    leaves, spec = p.tree_flatten([1, [2, 3], [4]], is_leaf=lambda x: isinstance(x, list) and len(x) == 2)
    assert leaves == [1, [2, 3], 4]
    assert p.tree_unflatten(leaves, spec) == [1, [2, 3], [4]]
    assert p.tree_leaves([1, (2, 3)], is_leaf=lambda x: isinstance(x, tuple)) == [1, (2, 3)]
    assert p.tree_flatten([1, [2]], is_leaf=lambda x: True) == ([[1, [2]]], p.tree_structure(0))
    assert p.tree_is_leaf(None) and p.tree_is_leaf(1) and not p.tree_is_leaf([1])
    assert p.tree_is_leaf((1,), is_leaf=lambda x: isinstance(x, tuple))
    assert p.tree_map(lambda x: x * 2, [1, (2, 3)], is_leaf=lambda x: isinstance(x, tuple)) == \
        [2, (2, 3, 2, 3)]


def test_tree_map_and_only(T):
    p = P(T)
    assert p.tree_map(lambda x: x + 1, {"x": 7, "y": (42, 64)}) == {"x": 8, "y": (43, 65)}
    assert p.tree_map(lambda x: x is None, {"x": 7, "z": None}) == {"x": False, "z": True}
    assert p.tree_map(lambda x, y: [x] + y, [5, 6], [[7, 9], [1, 2]]) == [[5, 7, 9], [6, 1, 2]]
    assert p.tree_map(lambda a, b: a + b, {"a": 1, "b": 2}, {"b": 10, "a": 20}) == {"a": 21, "b": 12}
    assert p.tree_map(lambda a, b: a + b, {"a": 1}, OrderedDict(a=2)) == {"a": 3}
    assert p.tree_map(lambda a, b: (a, b), [1, 2], [[3], {"a": 4}]) == [(1, [3]), (2, {"a": 4})]
    mixed = [1, "a", 2.0, (3,)]
    assert p.tree_map_only(int, lambda x: x * 10, mixed) == [10, "a", 2.0, (30,)]
    assert p.tree_map_only((int, float), lambda x: x * 10, mixed) == [10, "a", 20.0, (30,)]
    assert p.tree_map_only(lambda x: x == 1, lambda x: x * 10, mixed) == [10, "a", 2.0, (3,)]
    seen = []
    tree = [1, {"a": 2}]
    assert p.tree_map_(seen.append, tree) is tree and seen == [1, 2]
    seen.clear()
    p.tree_map_only_(int, seen.append, [1, "b", (2.0, 3)])
    assert seen == [1, 3]
    assert p.tree_all(lambda x: x > 0, [1, (2,)]) and not p.tree_any(lambda x: x > 5, [1, (2,)])
    assert p.tree_all(lambda x: False, []) and not p.tree_any(lambda x: True, {})
    assert p.tree_any(lambda x: x is None, {"a": [1, None]})
    assert p.tree_all_only(int, lambda x: x > 0, [1, "a", -1.0])
    assert not p.tree_any_only(str, lambda x: x == "b", [1, "a"])
    assert list(p.tree_iter({"a": [1, 2], "b": 3})) == [1, 2, 3]


def test_errors(T):
    p = P(T)
    with pytest.raises(ValueError, match="Node type mismatch; expected <class 'tuple'>, but got "
                                         "<class 'list'>."):
        p.tree_map(lambda a, b: a, (1, 2), [3, 4])
    with pytest.raises(ValueError, match="Node keys mismatch; missing key\\(s\\): \\{'a'\\}; extra "
                                         "key\\(s\\): \\{'b'\\}."):
        p.tree_map(lambda a, b: a, {"a": 1}, {"b": 1})
    with pytest.raises(ValueError, match="^Node arity mismatch; expected 2, but got 3.$"):
        p.tree_map(lambda a, b: a, [1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="Node context mismatch for node type .*namedtuple.*; "
                                         "expected <class 'test_pytree.Point'>, but got <class "
                                         "'test_pytree.Other'>."):
        p.tree_map(lambda a, b: a, Point(1, 2), Other(1, 2))
    with pytest.raises(ValueError, match="^treespec.unflatten\\(leaves\\): `leaves` has length 2 but "
                                         "the spec refers to a pytree that holds 1 items \\(\\*\\).$"):
        p.tree_unflatten([1, 2], p.tree_structure(1))
    with pytest.raises(ValueError, match="`leaves` has length 1 but the spec refers to a pytree "
                                         "that holds 2 items \\(TreeSpec\\(tuple, None, \\[\\*,"):
        p.tree_unflatten([1], p.tree_structure((1, 2)))
    with pytest.raises(TypeError, match="^Expected `treespec` to be an instance of PyTreeSpec but "
                                        "got item of type <class 'int'>.$"):
        p.tree_unflatten([1, 2], 5)
    assert p.tree_unflatten(p.tree_structure((1, 2)), [3, 4]) == (3, 4)      # (either order)
    with pytest.raises(ValueError, match="^<class 'list'> is already registered as pytree node.$"):
        p.register_pytree_node(list, None, None)
    with pytest.raises(TypeError, match="^Argument must be a type, a tuple of types, or a callable.$"):
        p.tree_map_only(3, lambda x: x, [1])


def test_register_custom_node(T):
    p = P(T)

    class Box:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def __eq__(self, other):
            return type(other) is Box and (self.a, self.b) == (other.a, other.b)

    p.register_pytree_node(Box, lambda c: ([c.a, c.b], "ctx"), lambda v, ctx: Box(*v))
    try:
        leaves, spec = p.tree_flatten([Box(1, (2, 3))])
        assert leaves == [1, 2, 3]
        assert repr(spec) == ("TreeSpec(list, None, [TreeSpec(Box, ctx, [*,\n    "
                              "TreeSpec(tuple, None, [*,\n      *])])])")
        assert p.tree_unflatten([4, 5, 6], spec) == [Box(4, (5, 6))]
        assert p.tree_map(lambda x: x + 1, Box(1, 2)) == Box(2, 3)
        assert hash(spec) == hash(p.tree_structure([Box(0, (0, 0))]))
        with pytest.raises(ValueError, match="^<class '.*Box'> is already registered as pytree "
                                             "node.$"):
            p.register_pytree_node(Box, lambda c: ([], None), lambda v, c: Box(0, 0))
        with pytest.raises(ValueError, match="^Type mismatch; expected <class '.*Box'>, but got "
                                             "<class 'tuple'>.$"):
            p.tree_map(lambda x, y: x, Box(1, 2), (1, 2))
    finally:
        p._deregister_pytree_node(Box)
    assert p.tree_leaves([Box(1, 2)])[0] == Box(1, 2)


def test_func_pytree_is_the_public_one():
    from tensorplay.func import _pytree as fp
    from tensorplay.utils import _pytree as up
    assert fp.tree_flatten is up.tree_flatten and fp.TreeSpec is up.TreeSpec
    assert fp.tree_unflatten is up.tree_unflatten and fp.tree_map is up.tree_map
    assert fp.LEAF == up.tree_structure(0)


def test_vmap_flattens_the_same_containers(T):
    """vmap's arguments and results go through the pytree module: an
    OrderedDict argument is batched leaf by leaf, as in PyTorch."""
    x = T.arange(6.).reshape(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = T.vmap(lambda d: OrderedDict(s=d["a"].sum() + d["b"]))(OrderedDict(a=x, b=x[:, 0]))
    assert type(out) is OrderedDict and out["s"].tolist() == [3.0, 15.0]
