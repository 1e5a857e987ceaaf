"""The public surface is PyTorch's: every public name of tensorplay, of
``tensorplay.Tensor`` and of each public module is a name PyTorch has there,
or an EXTRA below with its reason; each module's ``__all__`` is exactly its
public names; no registry machinery leaks into ``tensorplay``.

PyTorch's names come from ``tests/data/torch_names.json``, so this runs
without torch.  The file was made with torch 2.13 by

    PYTHONPATH=src python tests/test_public_surface.py --regenerate

and ``test_torch_names_file_is_current`` checks it when torch is installed.
"""
import importlib
import json
import os
import subprocess
import sys
import types

import pytest

import tensorplay

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "torch_names.json")

# tensorplay module -> the torch module whose names it may use
MODULES = {
    "tensorplay": "torch",
    "tensorplay.autograd": "torch.autograd",
    "tensorplay.nn": "torch.nn",
    "tensorplay.nn.functional": "torch.nn.functional",
    "tensorplay.func": "torch.func",
    "tensorplay.optim": "torch.optim",
    "tensorplay.optim.lr_scheduler": "torch.optim.lr_scheduler",
    "tensorplay.utils.data": "torch.utils.data",
    "tensorplay.utils.checkpoint": "torch.utils.checkpoint",
    "tensorplay.random": "torch.random",
    "tensorplay.linalg": "torch.linalg",
    "tensorplay.fft": "torch.fft",
    "tensorplay.special": "torch.special",
    "tensorplay.distributions": "torch.distributions",
    "tensorplay.distributions.constraints": "torch.distributions.constraints",
    "tensorplay.distributions.transforms": "torch.distributions.transforms",
    "tensorplay.distributions.constraint_registry": "torch.distributions.constraint_registry",
    "tensorplay.testing": "torch.testing",
    "tensorplay.signal.windows": "torch.signal.windows",
    "tensorplay.nn.init": "torch.nn.init",
    "tensorplay.nn.utils": "torch.nn.utils",
    "tensorplay.nn.utils.rnn": "torch.nn.utils.rnn",
    "tensorplay.nn.utils.parametrize": "torch.nn.utils.parametrize",
    "tensorplay.nn.utils.parametrizations": "torch.nn.utils.parametrizations",
    "tensorplay.nn.utils.prune": "torch.nn.utils.prune",
    "tensorplay.nn.attention": "torch.nn.attention",
    "tensorplay.optim.swa_utils": "torch.optim.swa_utils",
}

# Names that are not PyTorch's in that place, each with why it is there.
EXTRAS = {
    "tensorplay.autograd": {
        "GradcheckError": "torch.autograd.gradcheck.GradcheckError, also here for the tests' "
                          "pytest.raises",
        "InplaceFunction": "torch.autograd.function.InplaceFunction, beside Function",
        "once_differentiable": "torch.autograd.function.once_differentiable, beside Function",
        "is_grad_enabled": "torch.is_grad_enabled, also beside the grad-mode managers",
        "is_inference_mode_enabled": "torch.is_inference_mode_enabled, beside inference_mode",
        "is_anomaly_enabled": "torch.is_anomaly_enabled, beside set_detect_anomaly",
        "is_anomaly_check_nan_enabled": "torch.is_anomaly_check_nan_enabled, beside "
                                        "set_detect_anomaly",
        "graphviz": "module: draws a backward graph (PyTorch leaves that to torchviz)",
        "saved": "module: saved-tensor hooks' own machinery (torch.autograd.graph's hooks use it)",
    },
    "Tensor": {},
    "tensorplay.nn.utils": {
        "prune": "module: imported with nn.utils here (PyTorch imports it on demand)",
    },
    "tensorplay": {
        "text": "module: automatic differentiation over text (afnio's API) on the same engine",
        "datasets": "module: small datasets shipped in the package (the demo's digits), so "
                    "examples run without a download",
    },
}

# attributes every Python class has, which are not API
# what Python puts on a class it makes (the set grows with the interpreter: 3.13 adds
# __firstlineno__ and __static_attributes__), not names tensorplay chose
class _Plain:
    __slots__ = ()


_PLUMBING = {"__slots__", "__dict__", "__weakref__", "__module__", "__doc__"} | set(vars(_Plain))

# registry machinery and internal ops, once tensorplay.<name>: they live in their modules now
INTERNALS = {
    "tensorplay.ops._registry": ["defop", "record", "record_pointwise", "dispatch", "intercept",
                                 "Op", "OpNode", "public", "spell", "Spelling"],
    "tensorplay.ops.pointwise": ["binary", "unary", "broadcast_error", "tanh_backward",
                                 "sigmoid_backward", "relu_backward"],
    "tensorplay.ops._util": ["dims_arg", "size_arg"],
    "tensorplay.ops.core": ["copy_from", "expand", "view", "to", "contiguous", "sum_to_size"],
    "tensorplay.ops._families": ["batch_dims"],
}


def _torch_names():
    """{place: sorted names} from the installed torch (what the data file holds)."""
    import torch
    out = {"torch.Tensor": sorted(n for n in dir(torch.Tensor)
                                  if not n.startswith("_") or (n.startswith("__") and n.endswith("__")))}
    for tp_name, torch_name in MODULES.items():
        mod = importlib.import_module(torch_name)
        out[torch_name] = sorted(n for n in dir(mod) if not n.startswith("_"))
    out["torch.__version__"] = torch.__version__.split("+")[0]
    return out


def _load():
    with open(DATA) as f:
        return json.load(f)


def _public(mod):
    """A module's public names, split into (names, submodules)."""
    names, subs = set(), set()
    for n in dir(mod):
        if n.startswith("_"):
            continue
        (subs if isinstance(getattr(mod, n), types.ModuleType) else names).add(n)
    return names, subs


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_names_are_torchs(name):
    torch_names = set(_load()[MODULES[name]])
    extras = EXTRAS.get(name, {})
    names, subs = _public(importlib.import_module(name))
    unknown = sorted((names | subs) - torch_names - set(extras))
    assert not unknown, f"{name} has names PyTorch lacks there (add to EXTRAS with a reason, or " \
                        f"make them private): {unknown}"
    stale = sorted(set(extras) - names - subs)
    assert not stale, f"EXTRAS lists names {name} does not have: {stale}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_all_is_the_public_names(name):
    """``__all__`` is the public names, and may list submodules too (PyTorch's
    ``nn.utils.__all__`` names ``rnn``, ``parametrize``...)."""
    mod = importlib.import_module(name)
    names, subs = _public(mod)
    assert len(mod.__all__) == len(set(mod.__all__)), f"{name}.__all__ repeats a name"
    listed = set(mod.__all__) - subs
    assert listed == names, (f"{name}: public but not in __all__: "
                             f"{sorted(names - listed)}; in __all__ but not "
                             f"public: {sorted(listed - names)}")


def test_tensor_names_are_torchs():
    torch_names = set(_load()["torch.Tensor"])
    names = {n for n in dir(tensorplay.Tensor)
             if not n.startswith("_") or (n.startswith("__") and n.endswith("__"))} - _PLUMBING
    unknown = sorted(names - torch_names - set(EXTRAS["Tensor"]))
    assert not unknown, f"Tensor has names torch.Tensor lacks: {unknown}"
    assert not set(EXTRAS["Tensor"]) - names


def test_op_modules_export_what_tensorplay_exports():
    """Each op module's __all__ holds PyTorch top-level names it defines, and
    tensorplay exports each as that same object; no name is exported twice."""
    from tensorplay import ops
    torch_names = set(_load()["torch"])
    seen = {}
    for m in ops.MODULES:
        for k in m.__all__:
            assert k not in seen, f"{k} is in both {seen[k]}.__all__ and {m.__name__}.__all__"
            seen[k] = m.__name__
            assert k in torch_names, f"{m.__name__}.__all__ has {k}, which torch lacks"
            assert getattr(tensorplay, k) is getattr(m, k) or k in ("bool", "float", "int"), k
            assert k in tensorplay.__all__ or k in ("bool", "float", "int"), k


@pytest.mark.parametrize("module,names", sorted(INTERNALS.items()))
def test_no_machinery_leaks(module, names):
    mod = importlib.import_module(module)
    for n in names:
        assert hasattr(mod, n), f"{module}.{n} should stay importable"
        with pytest.raises(AttributeError):
            getattr(tensorplay, n)
        assert not hasattr(tensorplay.Tensor, n) or n in ("expand", "view", "to", "contiguous",
                                                           "sum_to_size"), n


def test_spellings_come_from_the_entries():
    """A few spot checks that the Tensor spellings are the entry's facts."""
    from tensorplay.ops import pointwise, core
    T = tensorplay.Tensor
    assert T.__mul__ is pointwise.mul.fast and T.__rmul__ is pointwise.mul.rfast
    assert T.__truediv__ is pointwise.div.fast
    assert T.mul is pointwise.mul and T.matmul is core.matmul
    assert pointwise.mul.spelling.inplace and hasattr(T, "mul_")
    assert not pointwise.tanh_backward.spelling.method and not hasattr(T, "tanh_backward")
    assert not hasattr(T, "maximum_")          # PyTorch has no in-place maximum
    assert not hasattr(T, "__imatmul__")       # x @= y rebinds x, as in PyTorch


def test_torch_names_file_is_current():
    pytest.importorskip("torch")
    # in a fresh interpreter: torch's namespace grows as its submodules get imported
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--print"], check=True,
                         capture_output=True, text=True).stdout
    saved, now = _load(), json.loads(out)
    for place in sorted(set(saved) | set(now)):
        a, b = set(saved.get(place, ())), set(now.get(place, ()))
        assert a == b, (f"tests/data/torch_names.json is stale for {place} (regenerate it: see "
                        f"this module's docstring): only in the file {sorted(a - b)[:20]}, only in "
                        f"torch {sorted(b - a)[:20]}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--regenerate"]:
        with open(DATA, "w") as f:
            json.dump(_torch_names(), f, indent=0, sort_keys=True)
            f.write("\n")
        print(f"wrote {DATA}")
    elif sys.argv[1:] == ["--print"]:
        print(json.dumps(_torch_names()))
    else:
        print(__doc__)
