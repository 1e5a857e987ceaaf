"""Runs the tutorial programs beside this file and hands back what they computed as plain
data (numbers, strings, NumPy arrays, and lists/tuples/dicts of them; a tensor becomes its
array, a module its state dict of arrays), so that results from tensorplay and from torch,
from this process or another, compare alike.

As a script, ``python _runner.py OUT.pkl NAME...`` runs the named programs with tensorplay
and pickles ``{name: ("ok", results) or ("error", traceback text)}`` to OUT.pkl."""
import contextlib
import io
import pickle
import sys
import traceback
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
_SKIP = object()


def plain(value):
    """``value`` as plain data, or ``_SKIP`` (functions, classes, optimizers, devices...)."""
    if value is None or isinstance(value, (bool, int, float, str, np.ndarray)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, type):                                         # a class
        return _SKIP
    if hasattr(value, "detach") and hasattr(value, "numpy"):           # a tensor
        try:
            return value.detach().cpu().numpy()
        except Exception:                                              # e.g. no storage
            return _SKIP
    if hasattr(value, "named_parameters") and hasattr(value, "state_dict"):   # a module
        return plain(dict(value.state_dict()))
    if isinstance(value, (list, tuple)):
        items = [plain(v) for v in value]
        return _SKIP if any(v is _SKIP for v in items) else (
            list(items) if isinstance(value, list) else tuple(items))
    if isinstance(value, dict):
        items = {k: plain(v) for k, v in value.items()}
        return _SKIP if any(v is _SKIP for v in items.values()) else items
    return _SKIP


def run(name, lib="tensorplay"):
    """Run ``<name>.py`` as ``__main__``, with ``lib`` in place of every ``tensorplay``
    (the programs name it in their imports only); return its global names as plain data,
    what it printed as ``"stdout"`` and the warnings it raised as ``"warnings"``."""
    path = HERE / f"{name}.py"
    source = path.read_text()
    if lib != "tensorplay":
        source = source.replace("tensorplay", lib)
    namespace = {"__name__": "__main__", "__file__": str(path)}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(source, str(path), "exec"), namespace)
    results = {}
    for key, value in namespace.items():
        if not key.startswith("__"):
            value = plain(value)
            if value is not _SKIP:
                results[key] = value
    results["stdout"] = printed.getvalue()
    results["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught]
    return results


def main(out, names):
    runs = {}
    for name in names:
        try:
            runs[name] = ("ok", run(name))
        except Exception:
            runs[name] = ("error", traceback.format_exc())
    with open(out, "wb") as f:
        pickle.dump(runs, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
