"""Convolution and pooling speed against torch, side by side in one run.

Workloads (float32, forward + backward, gradients for input and weights):

- ``conv_relu_pool``: conv2d(16 -> 32, 3x3, padding 1) + relu + max_pool2d(2)
  on a (32, 16, 28, 28) batch;
- ``lenet_convs``: the convolution part of LeNet-5 (the shared bench's
  cnn_step): conv(1 -> 6, 5x5, pad 2) + relu + pool, conv(6 -> 16, 5x5) +
  relu + pool on (64, 1, 28, 28);
- ``conv_fwd``: conv2d forward only (no grad) on the first workload's shapes.

Each framework runs in its own subprocess (so neither's thread pool spins
while the other works) and rounds alternate between them; a cell is the
median over rounds of each round's best time, in milliseconds.

    python benchmarks/conv_bench.py                 # tensorplay, and torch if installed
    python benchmarks/conv_bench.py --rounds 7 --threads 1
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

WORKLOADS = ("conv_relu_pool", "lenet_convs", "conv_fwd")


def _functional(T):
    if T.__name__ == "torch":
        return T.nn.functional
    F = getattr(getattr(T, "nn", None), "functional", None)
    if F is not None and hasattr(F, "max_pool2d"):
        return F
    from tensorplay.ops import pooling
    return pooling


def setup(T, name):
    """A function running one step of workload ``name`` with module ``T``."""
    F = _functional(T)
    rng = np.random.default_rng(0)

    def t(*shape, scale=1.0, rg=True):
        return T.tensor((rng.standard_normal(shape) * scale).astype(np.float32), requires_grad=rg)
    if name in ("conv_relu_pool", "conv_fwd"):
        x, w, b = t(32, 16, 28, 28), t(32, 16, 3, 3, scale=0.1), t(32)
        if name == "conv_fwd":
            def step():
                with T.no_grad():
                    return T.conv2d(x, w, b, padding=1)
            return step

        def step():
            y = F.max_pool2d(T.conv2d(x, w, b, padding=1).relu(), 2)
            y.backward(T.ones_like(y))
        return step
    x = t(64, 1, 28, 28, rg=False)
    w1, b1, w2, b2 = t(6, 1, 5, 5, scale=0.2), t(6), t(16, 6, 5, 5, scale=0.1), t(16)

    def step():
        h = F.max_pool2d(T.conv2d(x, w1, b1, padding=2).relu(), 2)
        y = F.max_pool2d(T.conv2d(h, w2, b2).relu(), 2)
        y.backward(T.ones_like(y))
    return step


def measure(module, names, repeats, threads):
    """Run in a child process: best time (ms) per workload over ``repeats``."""
    T = __import__(module)
    if module == "torch":
        T.set_num_threads(threads)
    out = {}
    for name in names:
        step = setup(T, name)
        for _ in range(3):
            step()
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            step()
            best = min(best, time.perf_counter() - t0)
        out[name] = best * 1e3
    return out


def _child(module, names, repeats, threads):
    env = dict(os.environ)
    if module != "torch":
        env.setdefault("OPENBLAS_NUM_THREADS", str(threads))
    code = (f"import sys, json; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); "
            f"import conv_bench as b; print(json.dumps(b.measure({module!r}, {list(names)!r}, {repeats}, "
            f"{threads})))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    args = ap.parse_args()
    names = args.workloads.split(",")
    frameworks = ["tensorplay"]
    import importlib.util
    if importlib.util.find_spec("torch") is not None:
        frameworks.append("torch")
    else:
        print("torch not installed: tensorplay only")
    rounds = {f: [] for f in frameworks}
    for _ in range(args.rounds):
        for f in frameworks:
            rounds[f].append(_child(f, names, args.repeats, args.threads))
    print(f"{'workload':<16}" + "".join(f"{f:>14}" for f in frameworks) + ("   ratio" if len(frameworks) > 1 else ""))
    for n in names:
        cells = [float(np.median([r[n] for r in rounds[f]])) for f in frameworks]
        line = f"{n:<16}" + "".join(f"{c:>11.2f} ms" for c in cells)
        if len(cells) > 1:
            line += f"   {cells[0] / cells[1]:.2f}x"
        print(line)


if __name__ == "__main__":
    main()
