"""The reverse-mode engine.

It moves gradient values along edges, adds the ones that meet with ``+`` and
hands them to nodes; it never looks inside a value.  Traversal is iterative
(dependency counting over an explicit stack), so graph depth is limited only
by memory.
"""
import itertools
import threading

from .grad_mode import state
from .anomaly_mode import anomaly, running, check_node, report
from .graph import checked_hook_result
from .profiling import ACTIVE as _PROFILER

FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


def _discover(root_nodes, target_nodes):
    """Count, for every node reachable from the roots, the edges into it from
    nodes that will run.  With targets, a node runs only if some target lies
    below it (it is "needed"); the rest of the graph is left out, and only
    edges into nodes that run or are targets are counted.  Returns the counts,
    the needed nodes (None without targets) and whether any node was left out."""
    deps = {}                   # doubles as the "seen" set for all but the roots
    roots = set(root_nodes)
    stack = list(root_nodes)
    pop, push = stack.pop, stack.append
    # every chain of edges ends at a sink, a node that sends nothing (a leaf's
    # accumulator): when every sink reached is a target, every other node leads to
    # one and is needed, which the counting pass finds out on the way
    while stack:
        n = pop()
        sink = True
        for e in n.next_edges:
            if e is not None:
                sink = False
                m = e[0]
                if m in deps:
                    deps[m] += 1
                else:
                    deps[m] = 1
                    if m not in roots:
                        push(m)
        if sink and target_nodes is not None and n not in target_nodes:
            return _discover_pruned(root_nodes, target_nodes)
    return deps, (None if target_nodes is None else _NON_SINKS), False


class _NonSinks:
    """The needed nodes of a graph whose every sink is a target: all but the
    sinks (asked only of nodes the pass reached)."""
    def __contains__(self, n):
        for e in n.next_edges:
            if e is not None:
                return True
        return False


_NON_SINKS = _NonSinks()


def _discover_pruned(root_nodes, target_nodes):
    """``_discover`` for a graph with sinks that are not targets: one depth-first
    pass, where a node finishes after everything below it, so whether it leads
    to a target is known by then."""
    needed, deps, seen = set(), {}, set()
    for r in root_nodes:
        if r in seen:
            continue
        seen.add(r)
        stack = [(r, iter(r.next_edges))]
        while stack:
            n, it = stack[-1]
            for e in it:
                if e is not None and e[0] not in seen:
                    m = e[0]
                    seen.add(m)
                    stack.append((m, iter(m.next_edges)))
                    break
            else:
                stack.pop()
                edges = n.next_edges
                for e in edges:
                    if e is not None and (e[0] in needed or e[0] in target_nodes):
                        needed.add(n)
                        for e in edges:
                            if e is not None and (e[0] in needed or e[0] in target_nodes):
                                m = e[0]
                                deps[m] = deps.get(m, 0) + 1
                        break
    return deps, needed, True


_LAST = float("inf")


class _Everything:
    def __contains__(self, item):
        return True


_ALL = _Everything()


def _run_post_hooks(node, grads, buf):
    """The node's post hooks see (and may replace) its gradients for the inputs
    of ``next_functions``: none for a hidden one (a Scalar, an index), which
    stays None."""
    grads = tuple(grads)
    hidden = node._hidden_args
    if hidden:
        n = len(grads)
        grads = tuple(g for i, g in enumerate(grads) if i not in hidden)
    for h in tuple((node._post_hooks or {}).values()):
        r = h(grads, tuple(buf))
        if r is not None:
            grads = checked_hook_result(h, grads, r)
    if hidden:
        shown = iter(grads)
        grads = tuple(None if i in hidden else next(shown) for i in range(n))
    return grads


def _run_pre_hooks(node, buf, runs=True):
    """Tensor hooks, then the node's pre-hooks (only if the node runs: a target
    that ends the pass sees its tensor hooks, as in PyTorch, not its node's)."""
    hooks = node._pre_hooks
    if hooks:
        for nr, hs in hooks.items():
            # user hooks in registration order, then retain_grad's (keyed inf) last; an
            # output that got no gradient is None to the user's hooks (PyTorch's rule)
            for k, h in sorted(hs.items(), key=lambda kv: kv[0] == _LAST):
                if buf[nr] is None and k == _LAST:
                    break
                r = h(buf[nr])
                if r is not None:
                    buf[nr] = r
    hooks = node._node_pre_hooks
    if hooks and runs:
        for h in tuple(hooks.values()):
            r = h(tuple(buf))
            if r is not None:
                buf[:] = checked_hook_result(h, buf, r)


class _Callbacks(threading.local):
    def __init__(self):
        # (pass id, [callbacks], whether it runs to targets) per backward pass
        # running in this thread
        self.stack = []


_pass_ids = itertools.count()


_callbacks = _Callbacks()


def queue_callback(fn):
    """Run ``fn()`` when the backward pass running now (in this thread) finishes."""
    if not _callbacks.stack:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    _callbacks.stack[-1][1].append(fn)


def current_pass():
    """A number naming the backward pass running in this thread (None outside one)."""
    return _callbacks.stack[-1][0] if _callbacks.stack else None


def runs_everything():
    """False while the backward pass running in this thread computes only what
    leads to some targets (``grad``, ``backward(inputs=)``): a node that runs a
    backward of its own inside (the reentrant checkpoint) cannot honour them."""
    return not _callbacks.stack or not _callbacks.stack[-1][2]


def run_backward(roots, root_grads, keep_graph, create_graph, targets=None, run_targets=False):
    """Backpropagate ``root_grads`` from the edges ``roots``.

    Without ``targets`` every reachable node runs (leaves accumulate into
    ``.grad``).  With ``targets`` (a list of edges) only what leads to them runs;
    the gradient arriving at each target is returned instead of being applied
    (``autograd.grad``).  ``run_targets`` (``backward(inputs=)``): the targets'
    own nodes run too, as in PyTorch (a leaf's accumulator accumulates, hooks
    fire), but send nothing on that no other target needs.
    """
    target_nodes = None if targets is None else {e[0] for e in targets}
    root_nodes = [roots[0][0]] if len(roots) == 1 else list(dict.fromkeys(e[0] for e in roots))
    deps, needed, pruned = _discover(root_nodes, target_nodes)
    buffers = {}
    for (node, nr), g in zip(roots, root_grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node.n_out
        buf[nr] = g if buf[nr] is None else buf[nr] + g
    captured = {} if targets is not None else None
    # one of several roots that neither runs nor is a target starts nothing (its tensor
    # hooks do not fire and a retained grad stays None), while a single root edge is
    # always visited (its tensor hooks fire even if the node does not run): PyTorch's
    # two cases (several roots go through its GraphRoot node, which skips such a root)
    one = len(roots) == 1
    ready = [(n, buffers.pop(n, None) or [None] * n.n_out) for n in root_nodes
             if n not in deps and (needed is None or one or n in needed or n in target_nodes)]
    prev_mode = state.enabled
    state.enabled = create_graph
    callbacks = _callbacks.stack
    callbacks.append((next(_pass_ids), [], targets is not None))
    try:
        if anomaly.enabled or _PROFILER[0] is not None:
            outer = running.node    # set when this pass runs inside a node of another
            try:
                _run_to_targets(ready, deps, buffers, keep_graph, target_nodes, needed, captured,
                                anomaly.enabled, _PROFILER[0], run_targets)
            finally:
                running.node = outer
        elif target_nodes is None:
            _run_all(ready, deps, buffers, keep_graph)
        elif not pruned and not run_targets and _sink_targets(target_nodes, root_nodes):
            # every node that runs leads to a target, and the targets are sinks that
            # neither run nor have hooks: the plain loop computes the same, with one
            # more gradient awaited by each target so that it never runs; what it
            # received is then in ``buffers``
            for n in target_nodes:
                if n in deps:
                    deps[n] += 1
            _run_all(ready, deps, buffers, keep_graph)
            captured = buffers
        else:
            _run_to_targets(ready, deps, buffers, keep_graph, target_nodes, needed, captured,
                            run_targets=run_targets)
        for fn in callbacks[-1][1]:     # queued during this pass: run once it is done
            fn()
    finally:
        callbacks.pop()
        state.enabled = prev_mode
    if targets is None:
        return None
    out = []
    for node, nr in targets:
        buf = captured.get(node)
        g = None if buf is None else buf[nr]
        if type(g) is DeferredError:
            raise g.error
        out.append(g)
    return out


class DeferredError:
    """A gradient that could not be computed (a derivative that is not
    implemented), sent along its edge like any value: it raises its error
    where it is used (a node's derivative reads it, it meets another gradient,
    a leaf accumulates it, ``grad`` returns it), and is dropped unseen where
    the pass needs no gradient (``grad`` of other inputs): PyTorch computes
    only the gradients asked for, so asking for ``x``'s need not fail on
    ``a``'s.  The engine never looks at it, except to raise at the end."""
    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error

    def __getattr__(self, name):
        raise self.error

    def _raise(self, *args):
        raise self.error

    __add__ = __radd__ = __mul__ = __rmul__ = __sub__ = __rsub__ = __neg__ = _raise
    __truediv__ = __rtruediv__ = __matmul__ = __rmatmul__ = _raise


def _sink_targets(target_nodes, root_nodes):
    """Whether each target is a sink (a node that sends nothing: a leaf's
    accumulator), is not a root and has no hooks (the common ``autograd.grad``)."""
    for n in target_nodes:
        if n._hooked or n in root_nodes or n in _NON_SINKS:
            return False
    return True


def _send(g, e, deps, buffers, ready):
    """Deliver gradient ``g`` (or None) along edge ``e``; queue the node when complete."""
    m = e[0]
    d = deps[m]
    if d == 1:                   # the last gradient m waits for: m is ready
        b = buffers.pop(m, None)
        if b is None:
            b = [None] * m.n_out
            b[e[1]] = g
        elif g is not None:
            nr = e[1]
            b[nr] = g if b[nr] is None else b[nr] + g
        ready.append((m, b))
    else:
        deps[m] = d - 1
        if g is not None:
            b = buffers.get(m)
            if b is None:
                b = buffers[m] = [None] * m.n_out
            nr = e[1]
            b[nr] = g if b[nr] is None else b[nr] + g


def _run_all(ready, deps, buffers, keep_graph):
    """The plain backward pass: every node runs (the hot loop)."""
    pop, push = ready.pop, ready.append
    g = grads = None
    while ready:
        g = grads = None            # hold no gradient a node may want to keep (see AccumulateGrad)
        node, buf = pop()
        hooked = node._hooked
        if hooked:
            _run_pre_hooks(node, buf)
        grads = node.apply(buf)
        if hooked:
            grads = _run_post_hooks(node, grads, buf)
        if not keep_graph:
            node.release()
        checked = node.input_meta is not None
        i = -1
        for e in node.next_edges:
            i += 1
            if e is None:
                continue
            g = grads[i]
            if g is not None and checked:
                g = node.validate(g, i)
            m = e[0]
            d = deps[m]
            if d == 1:               # inlined _send for the common single-consumer case
                b = buffers.pop(m, None) if buffers else None
                if b is None:
                    if m.n_out == 1:
                        push((m, [g]))
                        continue
                    b = [None] * m.n_out
                    b[e[1]] = g
                elif g is not None:
                    nr = e[1]
                    b[nr] = g if b[nr] is None else b[nr] + g
                push((m, b))
            else:
                _send(g, e, deps, buffers, ready)


def _run_target(node, buf, keep_graph):
    """A target's own node under ``run_targets``: a sink (a leaf's accumulator)
    applies the gradient; any other node's outputs are needed by no one, so it
    computes none (its post hooks see None, as in PyTorch)."""
    edges = node.next_edges
    grads = node.apply(buf) if not edges else (None,) * len(edges)
    if node._hooked:
        _run_post_hooks(node, grads, buf)
    if not keep_graph:
        node.release()


def _run_to_targets(ready, deps, buffers, keep_graph, target_nodes, needed, captured, check=False,
                    profiler=None, run_targets=False):
    """Run only what leads to the targets (all of it when ``target_nodes`` is
    None) and capture the gradients arriving there.  Also the loop used under
    anomaly detection (``check``), which checks every node and keeps
    ``anomaly_mode.running.node`` up to date, and under the profiler, which
    records each node's backward as an event.  A gradient is sent only to a node
    in ``deps``: one that runs or is a target."""
    if target_nodes is None:
        target_nodes, needed = (), _ALL
    plain = not check and profiler is None
    pop, push = ready.pop, ready.append
    g = grads = None
    while ready:
        g = grads = None            # hold no gradient a node may want to keep (see AccumulateGrad)
        node, buf = pop()
        if plain and not node._hooked and node in needed and node not in target_nodes:
            grads = node.apply(buf)                 # (the common case)
        else:
            grads = _visit(node, buf, keep_graph, target_nodes, needed, captured, check,
                           profiler, run_targets)
            if grads is _SENDS_NOTHING:     # a target that ends the pass, or a node not run
                continue
        if not keep_graph:
            node.release()
        checked = node.input_meta is not None
        i = -1
        for e in node.next_edges:
            i += 1
            if e is None:
                continue
            m = e[0]
            if m not in deps:
                continue
            g = grads[i]
            if g is not None and checked:
                g = node.validate(g, i)
            if deps[m] == 1 and m not in buffers:     # the only gradient m waits for
                if m.n_out == 1:
                    push((m, [g]))
                    continue
                b = [None] * m.n_out
                b[e[1]] = g
                push((m, b))
            else:
                _send(g, e, deps, buffers, ready)


_SENDS_NOTHING = object()


def _visit(node, buf, keep_graph, target_nodes, needed, captured, check, profiler, run_targets):
    """A node of ``_run_to_targets`` that is not the common case: a target, a node
    with hooks, one that does not run, or any node under anomaly detection or the
    profiler.  Its gradients (after its post hooks), or ``_SENDS_NOTHING``."""
    if check:                   # nodes made from here on (hooks, backward) know their parent
        running.node = node
    # PyTorch's order: a target whose node runs anyway (it leads to another
    # target) is captured before its tensor hooks, which then run with the node;
    # a target that ends the pass is captured after them
    runs = node in needed
    target = node in target_nodes
    if target and runs:
        captured[node] = list(buf)
    if node._hooked:
        _run_pre_hooks(node, buf, runs or (target and run_targets))
    if not runs:
        if target:
            captured[node] = buf
            if run_targets:
                _run_target(node, buf, keep_graph)
        return _SENDS_NOTHING
    if profiler is not None:
        profiler.push_node(node)
    try:
        if check:
            try:
                grads = node.apply(buf)
                check_node(node, grads)
            except Exception as exc:
                report(node, exc)
                raise
        else:
            grads = node.apply(buf)
    finally:
        if profiler is not None:
            profiler.pop_node()
    if node._hooked:
        grads = _run_post_hooks(node, grads, buf)
    return grads
