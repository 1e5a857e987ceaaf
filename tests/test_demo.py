"""README's first command: ``examples/demo.py`` (run here in its ``--quick``
mode, in a subprocess, when the demo extra's tqdm and matplotlib are
installed) and the digits it trains on, shipped in ``tensorplay.datasets``."""
import ast
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tensorplay as tp
from tensorplay.datasets import load_digits

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "examples", "demo.py")


def test_digits_are_the_uci_test_set():
    images, labels = load_digits()
    assert images.shape == (1797, 8, 8) and images.dtype == tp.float32
    assert labels.shape == (1797,) and labels.dtype == tp.int64
    x, y = images.numpy(), labels.numpy()
    assert x.min() == 0 and x.max() == 16 and np.array_equal(x, np.round(x))
    # the class counts of optdigits.tes, as the UCI description lists them
    assert np.bincount(y).tolist() == [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]
    # the first image is a 0: a ring of ink around an empty middle
    assert x[0, 3:5, 3:5].sum() == 0 and x[0, 1:7, 1:7].sum() > 150
    assert y[:10].tolist() == list(range(10))


def test_digits_are_fresh_tensors_each_call():
    a, _ = load_digits()
    a[0, 0, 0] = 99.0
    b, _ = load_digits()
    assert b[0, 0, 0].item() == 0.0


def test_digits_ship_with_their_licence():
    import tensorplay.datasets as ds
    here = os.path.dirname(ds.__file__)
    with open(os.path.join(here, "DIGITS_LICENSE.txt")) as f:
        text = f.read()
    assert "Alpaydin" in text and "BSD 3-Clause" in text
    with open(os.path.join(ROOT, "pyproject.toml")) as f:      # and the wheel carries both files
        pyproject = f.read()
    assert re.search(r'"tensorplay\.datasets" = \[.*"digits\.csv\.gz".*"DIGITS_LICENSE\.txt"',
                     pyproject)


def test_demo_imports_only_what_it_may():
    """tensorplay, NumPy, the demo extra and the standard library: never torch."""
    with open(DEMO) as f:
        tree = ast.parse(f.read())
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            roots.add(node.module.split(".")[0])
    assert "torch" not in roots
    third_party = roots - set(getattr(sys, "stdlib_module_names", roots))
    assert third_party <= {"tensorplay", "numpy", "tqdm", "matplotlib"}, third_party
    assert {"tensorplay", "tqdm", "matplotlib"} <= roots


def test_demo_quick_run(tmp_path):
    pytest.importorskip("tqdm")
    pytest.importorskip("matplotlib")
    out = tmp_path / "demo.png"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(                      # this checkout's tensorplay
        [os.path.join(ROOT, "src")] + [p for p in [env.get("PYTHONPATH")] if p])
    env["MPLCONFIGDIR"] = str(tmp_path / "mpl")               # no writes to the home directory
    r = subprocess.run([sys.executable, DEMO, "--quick", "--out", str(out)], env=env,
                       cwd=str(tmp_path), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    # the figure: a PNG that is not empty
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    assert f"figure: {out}" in r.stdout
    # the CNN learned something in its one epoch (10% is guessing)
    acc = re.search(r"CNN test accuracy: ([\d.]+)% \((\d+)/(\d+) ", r.stdout)
    assert acc, r.stdout
    assert 50 < float(acc.group(1)) <= 100
    assert int(acc.group(2)) <= int(acc.group(3)) == 1797 // 5
    # the transformer's loss went down from about log(vocabulary) and is finite
    lm = re.search(r"transformer loss: ([\d.]+) -> ([\d.]+) nats", r.stdout)
    assert lm, r.stdout
    first, last = float(lm.group(1)), float(lm.group(2))
    assert math.isfinite(last) and last < first
    # a sample, after the prompt
    assert "| Beautiful is" in r.stdout
    # the progress bars went to stderr and showed the running loss
    assert "loss=" in r.stderr
