"""``Variable`` and ``Parameter``: values of text (or numbers) and their feedback.

A Variable is to the text module what a Tensor is to the rest of tensorplay:
a payload (``data``) and the autograd record (``requires_grad``, ``grad_fn``,
``output_nr``), on the same graph and the same engine.  Its gradient is
*feedback*: a tuple of feedback Variables travels along each edge, two that
meet are joined with ``+`` (tuple concatenation, so nothing is lost), and a
leaf appends what reaches it to its ``.grad`` list (``_accumulate_grad``, the
method ``AccumulateGrad`` asks of any leaf).

A list is a batch: ops work on it element by element.
"""
import copy
import weakref

from .._autograd.graph import AccumulateGrad, RemovableHandle

_RETAIN_KEY = float("inf")      # the engine runs hooks with this key last (as Tensor.retain_grad)


def _kind(x):
    if isinstance(x, str):
        return "str"
    if isinstance(x, (bool, int, float)):
        return "number"
    if x is None:
        return None
    raise TypeError(f"Variable data must be a str, int, float, bool, None or a (nested) list of "
                    f"them, got {type(x).__name__}")


def check_data(data):
    """Raise ``TypeError`` unless ``data`` is a payload: a scalar, or a nested list
    whose items at each level are all lists or all scalars, and whose scalars are
    all text or all numbers (``None`` may stand anywhere for a missing value)."""
    if type(data) is not list:
        _kind(data)
        return
    kinds = set()
    stack = [data]
    while stack:
        items = stack.pop()
        nested = [type(x) is list for x in items]
        if any(nested):
            if not all(nested):
                raise TypeError("Variable data: a batch mixes lists and single values")
            stack.extend(items)
            continue
        for x in items:
            k = _kind(x)
            if k is not None:
                kinds.add(k)
    if len(kinds) > 1:
        raise TypeError("Variable data: a batch mixes strings and numbers")


class Variable:
    """A value of text, a number, a bool, None, or a (nested) list of them (a
    batch), with the autograd record of how it was made.

    Ops on Variables (``tensorplay.text.functional``) record nodes on the same
    graph tensors use, under the same grad mode; ``backward`` sends feedback
    (natural-language criticism, held in feedback Variables) to the leaves, each
    of which appends what it receives to its ``grad`` list.

        >>> import tensorplay.text as tt
        >>> a = tt.Variable("Hello", role="greeting", requires_grad=True)
        >>> b = a + tt.Variable(", world")
        >>> b.data, b.grad_fn.name(), a.grad
        ('Hello, world', 'AddBackward0', [])
    """

    def __init__(self, data="", role="", requires_grad=False):
        check_data(data)
        if not isinstance(role, str):
            raise TypeError(f"role must be a str, got {type(role).__name__}")
        if not isinstance(requires_grad, bool):
            raise TypeError(f"argument 'requires_grad' must be bool, not {type(requires_grad).__name__}")
        self._data = data
        self.role = role
        self._rg = requires_grad
        self._gfn = None
        self._out_nr = 0
        self._grad = []
        self._acc = None            # the leaf's AccumulateGrad, made on first use
        self._retains_grad = False

    # -- payload --------------------------------------------------------------
    @property
    def data(self):
        return self._data

    @data.setter
    def data(self, value):
        check_data(value)
        self._data = value

    # -- autograd record ------------------------------------------------------
    @property
    def requires_grad(self):
        return self._rg

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        if not isinstance(requires_grad, bool):
            raise TypeError(f"requires_grad must be bool, not {type(requires_grad).__name__}")
        if self._gfn is not None:
            if not requires_grad:
                raise RuntimeError("you can only change requires_grad flags of leaf variables. If "
                                   "you want to use a computed variable in a subgraph that doesn't "
                                   "require differentiation use var_no_grad = var.detach().")
            return self
        self._rg = requires_grad
        return self

    @property
    def grad_fn(self):
        return self._gfn

    @property
    def is_leaf(self):
        return self._gfn is None

    @property
    def output_nr(self):
        return self._out_nr

    @property
    def retains_grad(self):
        return self._retains_grad

    def _check_grad_access(self):
        if self._gfn is not None and not self._retains_grad:
            raise RuntimeError("The .grad attribute of a Variable that is not a leaf is not filled "
                               "by backward(); call .retain_grad() on it before the backward if "
                               "you want its feedback, or read the .grad of the leaf Variables.")

    @property
    def grad(self):
        """The feedback Variables this Variable received, oldest first (``[]`` before any)."""
        self._check_grad_access()
        return self._grad

    @grad.setter
    def grad(self, value):
        self._check_grad_access()
        if value is None:
            value = []
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, Variable) for v in value):
            raise TypeError(f"grad must be a list of feedback Variables, got {value!r}")
        self._grad = list(value)

    def _accumulate_grad(self, g, create_graph):
        """Called by this leaf's ``AccumulateGrad``: ``g`` is a tuple of feedback Variables."""
        if g:
            self._grad.extend(g)

    def _edge(self):
        """The (node, input_nr) feedback for this Variable flows into."""
        fn = self._gfn
        if fn is not None:
            return (fn, self._out_nr)
        acc = self._acc
        if acc is None:
            acc = self._acc = AccumulateGrad(self)
        return (acc, 0)

    def retain_grad(self):
        """Keep the feedback this non-leaf receives in backward in its ``.grad``."""
        if self._gfn is None:
            raise RuntimeError("retain_grad() can only be called on a non-leaf Variable; a leaf "
                               "keeps its feedback in .grad already")
        if self._retains_grad:
            return
        self._retains_grad = True
        ref = weakref.ref(self)

        def retain(g):
            v = ref()
            if v is not None:
                v._grad.extend(g)
        node, nr = self._edge()
        node.tensor_pre_hooks(nr)[_RETAIN_KEY] = retain

    def register_hook(self, hook):
        """``hook(feedback)`` runs on the tuple of feedback Variables arriving here in
        backward and may return a tuple to use instead (anything else is a
        TypeError).  Returns a handle with ``remove()``."""
        if not self._rg:
            raise RuntimeError("cannot register a hook on a variable that doesn't require gradient")
        node, nr = self._edge()

        def checked(g):
            r = hook(g)
            if r is not None and not (isinstance(r, (tuple, list)) and
                                      all(isinstance(v, Variable) for v in r)):
                raise TypeError(f"a hook on a Variable must return None or a tuple of feedback "
                                f"Variables, got {type(r).__name__}")
            return r
        return RemovableHandle(node.tensor_pre_hooks(nr), checked)

    # -- copies: a copy is a leaf of its own (the original's accumulator, which holds
    #    the original weakly, is not shared; a graph is not copied)
    def __copy__(self):
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._acc = None
        new._grad = list(self._grad)
        return new

    def __deepcopy__(self, memo):
        if self._gfn is not None:
            raise RuntimeError("Only Variables created explicitly by the user (graph leaves) support "
                               "the deepcopy protocol at the moment")
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            new.__dict__[k] = None if k == "_acc" else copy.deepcopy(v, memo)
        return new

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_acc"] = None        # (rebuilt when next needed; a graph is not pickled)
        state["_gfn"] = None
        return state

    def detach(self):
        """A new leaf with the same data and role, cut off from the graph."""
        return Variable(self._data, self.role)

    def __repr__(self):
        extra = ""
        if self._gfn is not None:
            extra = f", grad_fn=<{self._gfn.name()}>"
        elif self._rg:
            extra = ", requires_grad=True"
        return f"{type(self).__name__}(data={self._data!r}, role={self.role!r}{extra})"


class Parameter(Variable):
    """A Variable an optimizer improves: ``requires_grad=True`` by default, also
    under ``no_grad`` (constructors never read the grad mode).

        >>> import tensorplay.text as tt
        >>> with tt.no_grad():
        ...     p = tt.Parameter("Classify the sentiment.", role="system prompt")
        >>> p.requires_grad
        True
    """

    def __init__(self, data="", role="", requires_grad=True):
        super().__init__(data, role, requires_grad)


def feedback(data, role):
    """A feedback Variable for a Variable of role ``role``."""
    return Variable(data, f"feedback to {role}")
