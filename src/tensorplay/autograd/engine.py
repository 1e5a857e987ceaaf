"""The reverse-mode engine.

It moves gradient values along edges, adds the ones that meet with ``+`` and
hands them to nodes; it never looks inside a value.  Traversal is iterative
(dependency counting over an explicit stack), so graph depth is limited only
by memory.
"""
from .grad_mode import state

FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


def _discover(root_nodes, target_nodes):
    """Count, for every node reachable from the roots, the edges into it from
    nodes that will run.  With targets, a node runs only if some target lies
    below it; nodes that only lead nowhere are left out."""
    seen = set(root_nodes)
    order = list(root_nodes)           # every reachable node, parents before children
    stack = list(root_nodes)
    while stack:
        n = stack.pop()
        for e in n.next_edges:
            if e is not None:
                m = e[0]
                if m not in seen:
                    seen.add(m)
                    order.append(m)
                    stack.append(m)
    needed = None
    if target_nodes is not None:
        # reverse topological sweep: needed(n) = some child is a target or needed
        needed = set()
        topo = _topological(root_nodes)
        for n in reversed(topo):
            for e in n.next_edges:
                if e is not None and (e[0] in target_nodes or e[0] in needed):
                    needed.add(n)
                    break
    deps = {}
    for n in order:
        if needed is not None and n not in needed:
            continue
        for e in n.next_edges:
            if e is not None:
                m = e[0]
                deps[m] = deps.get(m, 0) + 1
    return deps, needed


def _topological(root_nodes):
    """Nodes in an order where each comes before everything it leads to (iterative DFS)."""
    visited, post = set(), []
    for r in root_nodes:
        if r in visited:
            continue
        visited.add(r)
        stack = [(r, iter(r.next_edges))]
        while stack:
            n, it = stack[-1]
            for e in it:
                if e is not None and e[0] not in visited:
                    visited.add(e[0])
                    stack.append((e[0], iter(e[0].next_edges)))
                    break
            else:
                stack.pop()
                post.append(n)
    post.reverse()
    return post


def _run_pre_hooks(node, buf):
    hooks = node._pre_hooks
    if hooks:
        for nr, hs in hooks.items():
            for h in tuple(hs.values()):
                if buf[nr] is None:
                    break
                r = h(buf[nr])
                if r is not None:
                    buf[nr] = r
    hooks = node._node_pre_hooks
    if hooks:
        for h in tuple(hooks.values()):
            r = h(tuple(buf))
            if r is not None:
                buf[:] = r


def run_backward(roots, root_grads, keep_graph, create_graph, targets=None):
    """Backpropagate ``root_grads`` from the edges ``roots``.

    Without ``targets`` every reachable node runs (leaves accumulate into
    ``.grad``).  With ``targets`` (a list of edges) only what leads to them runs;
    the gradient arriving at each target is returned instead of being applied.
    """
    target_nodes = None if targets is None else {e[0] for e in targets}
    root_nodes = list(dict.fromkeys(e[0] for e in roots))
    deps, needed = _discover(root_nodes, target_nodes)
    buffers = {}
    for (node, nr), g in zip(roots, root_grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node.n_out
        buf[nr] = g if buf[nr] is None else buf[nr] + g
    captured = {} if targets is not None else None
    ready = [n for n in root_nodes if n not in deps]
    prev_mode = state.enabled
    state.enabled = create_graph
    try:
        while ready:
            node = ready.pop()
            buf = buffers.pop(node, None) or [None] * node.n_out
            if node._pre_hooks or node._node_pre_hooks:
                _run_pre_hooks(node, buf)
            if target_nodes is not None:
                if node in target_nodes:
                    captured[node] = buf
                if node not in needed:
                    continue
            grads = node.apply(buf)
            if node._post_hooks:
                for h in tuple(node._post_hooks.values()):
                    r = h(grads, tuple(buf))
                    if r is not None:
                        grads = r
            if not keep_graph:
                node.release()
            edges, metas = node.next_edges, node.input_meta
            for i in range(len(edges)):
                e = edges[i]
                if e is None:
                    continue
                m = e[0]
                if target_nodes is not None and m not in needed and m not in target_nodes:
                    continue
                g = grads[i]
                if g is not None:
                    g = metas[i].validate(g, node, i)
                    b = buffers.get(m)
                    if b is None:
                        b = buffers[m] = [None] * m.n_out
                    nr = e[1]
                    b[nr] = g if b[nr] is None else b[nr] + g
                d = deps[m] - 1
                deps[m] = d
                if d == 0:
                    ready.append(m)
    finally:
        state.enabled = prev_mode
    if targets is None:
        return None
    out = []
    for node, nr in targets:
        buf = captured.get(node)
        out.append(None if buf is None else buf[nr])
    return out
