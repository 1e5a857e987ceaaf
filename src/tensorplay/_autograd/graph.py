"""The backward graph: nodes and the edges between them.

A ``Node`` is one recorded operation.  ``next_edges[i]`` is where the gradient
for the op's i-th input goes: a pair ``(node, input_nr)``, or ``None`` when
that input needs no gradient.  ``input_meta`` describes the inputs (its layout
is the node type's business; for tensors: shape and dtype of each), and
``node.validate(g, i)`` makes a gradient for input ``i`` fit it; the engine
calls it without knowing what a gradient is.  A node whose gradients fit its
inputs by construction (a pointwise op on same-shaped real tensors, a view or
reduction of a real tensor: see ``Op.exact``) has ``input_meta = None`` and is
not asked.
"""
import itertools
import weakref

from .grad_mode import state


class Node:
    __slots__ = ("next_edges", "input_meta", "__dict__", "__weakref__")
    n_out = 1               # how many forward outputs (= gradients this node takes)
    _hooked = False         # set once any hook is registered on this node
    stochastic = False      # sampling nodes that take a legacy reinforce() reward
    _hidden_args = ()       # positions of inputs that PyTorch's node does not have (Scalars,
    #                         indices, masks): no slot of next_functions (ops/_registry.py)
    _pre_hooks = None       # {output_nr: [hook]} tensor hooks, run on incoming gradients
    _node_pre_hooks = None  # [hook(grad_outputs)] registered on the node
    _post_hooks = None      # [hook(grad_inputs, grad_outputs)]
    _fw_out = None          # forward_ad: gives a rebuilt saved output its tangents

    def name(self):
        return type(self).__name__

    def validate(self, g, i):
        """Make the gradient for input ``i`` fit that input (value-type specific)."""
        return g

    def apply(self, grads):
        """Gradients for each input (a sequence aligned with ``next_edges``)."""
        raise NotImplementedError

    def release(self):
        """Free what was saved for backward (after a pass without retain_graph)."""

    def __call__(self, *grads):
        """Run this node on one gradient per forward output, as PyTorch's
        ``y.grad_fn(g)``: its gradients for its inputs (one, or a tuple)."""
        if len(grads) != self.n_out:
            raise TypeError(f"expected {self.n_out} arguments, got {len(grads)} instead")
        out = tuple(self.apply(list(grads)))
        hidden = self._hidden_args
        if hidden:                          # as next_functions: no slot for a Scalar
            out = tuple(o for i, o in enumerate(out) if i not in hidden)
        return out[0] if len(out) == 1 else out

    @property
    def next_functions(self):
        edges = self.next_edges
        hidden = self._hidden_args
        if hidden:                      # a Scalar argument is no input of PyTorch's node
            edges = [e for i, e in enumerate(edges) if i not in hidden]
        return tuple((None, 0) if e is None else e for e in edges)

    def tensor_pre_hooks(self, output_nr):
        """The dict of tensor hooks for forward output ``output_nr`` (created on demand)."""
        if self.__dict__.get("_pre_hooks") is None:
            self._pre_hooks = {}
        self._hooked = True
        return self._pre_hooks.setdefault(output_nr, {})

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        if self.__dict__.get("_post_hooks") is None:
            self._post_hooks = {}
        self._hooked = True
        return RemovableHandle(self._post_hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        if self.__dict__.get("_node_pre_hooks") is None:
            self._node_pre_hooks = {}
        self._hooked = True
        return RemovableHandle(self._node_pre_hooks, fn)

    @property
    def metadata(self):
        """A dict for the user's own notes about this node (empty at first)."""
        d = self.__dict__.get("_metadata")
        if d is None:
            d = self.__dict__["_metadata"] = {}
        return d

    def __repr__(self):
        return f"<{self.name()} object at {id(self):#x}>"


def checked_hook_result(hook, prev, r):
    """What a node's hook (``register_hook``/``register_prehook``) returned in place
    of ``prev``, checked as PyTorch checks it: a tuple as long as ``prev``, None
    where ``prev`` had None, and each value acceptable to the value it replaces
    (the value is asked: a tensor wants its own dtype and size)."""
    if not isinstance(r, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(r).__name__}'")
    if len(r) != len(prev):
        name = getattr(hook, "__name__", None)
        raise RuntimeError(f"hook '{name if isinstance(name, str) else '<unknown>'}' has returned "
                           f"an incorrect number of values (got {len(r)}, but expected "
                           f"{len(prev)})")
    for p, v in zip(prev, r):
        if v is not None:
            if p is None:
                raise RuntimeError("can't replace a None gradient with a non-None value")
            check = getattr(p, "_check_hook_result", None)
            if check is not None:
                check(v, hook)
    return r



class ErrorNode(Node):
    """A node that raises ``RuntimeError(msg)`` when a backward reaches it: what
    has no derivative (``set_``, a ``once_differentiable`` backward)."""

    def __init__(self, msg, inputs):
        self.msg = msg
        self.next_edges = tuple(t._edge() if t._rg else None for t in inputs)
        self.input_meta = tuple(x for t in inputs for x in (t._data.shape, t._data.dtype))
        self.n_out = 1

    def apply(self, grads):
        raise RuntimeError(self.msg)


class RemovableHandle:
    """Returned by every ``register_*hook``; ``remove()`` unregisters."""
    _ids = itertools.count()
    __slots__ = ("hooks", "id")

    def __init__(self, hooks, fn):
        self.hooks, self.id = hooks, next(self._ids)
        hooks[self.id] = fn

    def remove(self):
        self.hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class AccumulateGrad(Node):
    """Sink node of a leaf: adds the incoming gradient into ``variable.grad``.
    How to add is the variable's business (``_accumulate_grad``).

    The leaf holds its node (so a leaf's first use in each new graph does not
    make one again) and the node holds the leaf weakly: no cycle.  A gradient
    for a leaf that no longer exists has nowhere to go and is dropped."""
    __slots__ = ("_variable",)

    def __init__(self, variable):
        self._variable = weakref.ref(variable)
        self.next_edges = ()
        self.input_meta = ()

    @property
    def variable(self):
        return self._variable()

    def apply(self, grads):
        v = self._variable()
        if v is not None and v._rg:     # (a leaf frozen since the graph was made takes none)
            v._accumulate_grad(grads[0], state.enabled)
        return ()

    # A leaf's tensor hooks live on the leaf, not here
    @property
    def _pre_hooks(self):
        v = self._variable()
        return None if v is None else v.__dict__.get("_leaf_hooks")

    def tensor_pre_hooks(self, output_nr):
        return self.variable.__dict__.setdefault("_leaf_hooks", {}).setdefault(output_nr, {})

    @property
    def _hooked(self):
        v = self._variable()
        return (v is not None and bool(v.__dict__.get("_leaf_hooks"))) or \
            self.__dict__.get("_node_hooked", False)

    @_hooked.setter
    def _hooked(self, value):
        self.__dict__["_node_hooked"] = value


class GradientEdge:
    """Names "the gradient flowing into input ``output_nr`` of ``node``"; accepted
    wherever ``autograd.grad`` / ``backward(inputs=)`` take tensors."""
    __slots__ = ("node", "output_nr", "_variable")

    def __init__(self, node, output_nr, variable=None):
        self.node, self.output_nr, self._variable = node, output_nr, variable

    def _gradient_edge(self):
        return (self.node, self.output_nr)

    def __iter__(self):
        return iter((self.node, self.output_nr))

    def __repr__(self):
        return f"GradientEdge(node={self.node!r}, output_nr={self.output_nr})"
