"""The pytrees the function transforms take and return: ``tensorplay.utils._pytree``
(``torch.utils._pytree``), the one implementation, re-exported under the
names ``tensorplay.func`` has always imported from here."""
from ..utils._pytree import (LEAF, TreeSpec, tree_flatten, tree_leaves, tree_map,  # noqa: F401
                             tree_unflatten)

__all__ = ["TreeSpec", "LEAF", "tree_flatten", "tree_unflatten", "tree_map", "tree_leaves"]
