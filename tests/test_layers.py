"""The layers of the package (docs/architecture.md) hold: each module imports only
from its own layer or the ones below, and no modules import each other in a
circle, counting imports made inside functions as well as at the top.

Imports are read from the source with ``ast`` (nothing is executed), relative
imports are resolved, and ``from package import name`` counts as an import of
the submodule ``package.name`` when there is one, else of ``package``.
"""
import ast
import os
import sys

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
PKG = "tensorplay"

# Lowest first.  A module belongs to the first layer naming it or a package
# holding it ("tensorplay" names only the package's own __init__).
LAYERS = [
    ("autograd core", ["tensorplay._autograd"]),
    ("Tensor", ["tensorplay._compat", "tensorplay._dtype", "tensorplay._tensor",
                "tensorplay._print", "tensorplay._random", "tensorplay._creation",
                "tensorplay._out", "tensorplay._threads", "tensorplay._warn", "tensorplay._settings"]),
    ("op registry", ["tensorplay.ops"]),
    ("autograd API", ["tensorplay.autograd"]),
    ("public API", ["tensorplay.nn", "tensorplay.func", "tensorplay.optim", "tensorplay.text",
                    "tensorplay.utils", "tensorplay.serialization", "tensorplay.random",
                    "tensorplay.cuda", "tensorplay.backends", "tensorplay.accelerator",
                    "tensorplay.datasets", "tensorplay.distributed", "tensorplay.linalg", "tensorplay.fft",
                    "tensorplay.special", "tensorplay.distributions", "tensorplay.signal", "tensorplay.testing",
                    "tensorplay.amp", "tensorplay._toplevel", "tensorplay._stft", "tensorplay"]),
]

# Packages outside tensorplay that each layer may use (the standard library is
# allowed everywhere).  The core knows no array library: it must run on any value.
THIRD_PARTY = {
    "autograd core": set(),
    "Tensor": {"numpy", "ml_dtypes"},
    # scipy: optional (special functions); mpmath: only _special._regen, a maintenance
    # tool that recomputes erfinv's coefficients, never called at run time
    "op registry": {"numpy", "ml_dtypes", "scipy", "mpmath"},
    "autograd API": {"numpy", "ml_dtypes", "graphviz"},      # graphviz: optional (render)
    # mpi4py: optional (tensorplay.distributed, imported when a process group is made)
    "public API": {"numpy", "ml_dtypes", "mpi4py"},
}

# Imports that may break the rules, each with why: (importer, imported).  All
# are made inside the function that needs them, when it runs.
ALLOWED = {
    # mean()'s dtype error names the dtype with inplace._title, while inplace.py
    # is built on core's view, copy_from and fill
    ("tensorplay.ops.core", "tensorplay.ops.inplace"),
    # apply_inplace hands an in-place op on a view to views.py, which is built on
    # inplace.py's primitives (_standin, write_into, adopt)
    ("tensorplay.ops.inplace", "tensorplay.ops.views"),
    # check_batched_grad=True needs vmap, from tensorplay.func above
    ("tensorplay.autograd.gradcheck", "tensorplay.func"),
    # autograd.grad inside vmap (batched outputs/inputs) and is_grads_batched=True run
    # through vmap; functional.jacobian/hessian(vectorize=True) through jacrev/jacfwd
    # (imports inside functions; to be replaced by hooks func installs from above)
    ("tensorplay.autograd._backward", "tensorplay.func._vmap"),
    ("tensorplay.autograd.functional", "tensorplay.func._jac"),
}


def _modules():
    """{module name: path} for every module of the package."""
    out = {}
    root = os.path.join(SRC, PKG)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for f in sorted(filenames):
            if not f.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), SRC)[:-3].split(os.sep)
            if rel[-1] == "__init__":
                rel = rel[:-1]
            out[".".join(rel)] = os.path.join(dirpath, f)
    return out


MODULES = _modules()


def _is_package(name):
    return MODULES[name].endswith("__init__.py")


def _imports(name, where=False):
    """[(imported module, line)] for module ``name``, at any depth of its code
    (with ``where``: [(imported module, line, made at import time?)]).  A
    tensorplay module is named in full (even one that does not exist yet); an
    outside one by its top-level package."""
    path = MODULES[name]
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    package = name if _is_package(name) else name.rpartition(".")[0]
    late = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            for n in ast.walk(f)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(_outside(a.name), node.lineno, id(node) not in late) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module
            for a in node.names:
                sub = f"{mod}.{a.name}"
                found.append((sub if sub in MODULES else _outside(mod), node.lineno,
                              id(node) not in late))
    return found if where else [(t, line) for t, line, _ in found]


def _outside(mod):
    return mod if mod.split(".")[0] == PKG else mod.split(".")[0]


def _layer(mod):
    for i, (layer, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if mod == p or (p != PKG and mod.startswith(p + ".")):
                return i
    return None


def _graph(existing=True):
    """{module: {imported tensorplay module: first line}} over every import in the
    package (with ``existing=False``, also of tensorplay modules not written yet)."""
    g = {}
    for m in MODULES:
        g[m] = {}
        for target, line in _imports(m):
            if target.split(".")[0] == PKG and target != m and (target in MODULES or not existing):
                g[m].setdefault(target, line)
    return g


def test_every_module_has_a_layer():
    missing = [m for m in MODULES if _layer(m) is None]
    assert not missing, f"put these modules in a layer of LAYERS: {missing}"


_STDLIB = getattr(sys, "stdlib_module_names", None)      # Python >= 3.10


def test_imports_go_down_the_layers():
    bad = []
    for m in MODULES:
        lm = _layer(m)
        for target, line in _imports(m):
            if target.split(".")[0] == PKG:
                lt = _layer(target)
                if lt > lm and (m, target) not in ALLOWED:
                    bad.append(f"{m}:{line} ({LAYERS[lm][0]}) imports {target} ({LAYERS[lt][0]})")
            elif (_STDLIB is not None and target not in _STDLIB
                  and target not in THIRD_PARTY[LAYERS[lm][0]]):
                bad.append(f"{m}:{line} ({LAYERS[lm][0]}) imports the outside package {target}")
    assert not bad, "imports that go up the layers:\n" + "\n".join(bad)


def _cycles(g):
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for root in g:
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        comps.append(sorted(comp))
    return comps


def test_no_import_cycles():
    g = _graph()
    for a, b in ALLOWED:
        g[a].pop(b, None)
    comps = _cycles(g)
    lines = []
    for comp in comps:
        lines.append(" <-> ".join(comp))
        for m in comp:
            for t, line in sorted(g[m].items()):
                if t in comp:
                    lines.append(f"    {m}:{line} imports {t}")
    assert not comps, "modules that import each other in a circle:\n" + "\n".join(lines)


def test_allow_list_is_still_needed():
    """An allowed import that is gone leaves the list too."""
    g = _graph(existing=False)
    stale = [pair for pair in ALLOWED if pair[1] not in g[pair[0]]]
    assert not stale, f"no longer imported, remove from ALLOWED: {stale}"


def test_allowed_imports_are_made_late():
    """An allowed import runs when its function does, not at import time (where
    it would fail on the half-imported module or drag a higher layer in)."""
    early = [f"{m}:{line} imports {t}" for m, t in ALLOWED
             for t2, line, top in _imports(m, where=True) if t2 == t and top]
    assert not early, "move inside the function that needs it:\n" + "\n".join(early)


def test_the_checks_see_function_local_and_relative_imports():
    found = dict(_imports("tensorplay.ops._registry"))
    assert "tensorplay._autograd.graph" in found           # from .._autograd.graph import Node
    assert "numpy" in found
    assert "tensorplay.ops.inplace" in dict(_imports("tensorplay.ops.core"))   # inside mean()
    assert _layer("tensorplay._new_module") is None and _layer("tensorplay") == len(LAYERS) - 1
    g = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert _cycles(g) == [["a", "b", "c"]]
