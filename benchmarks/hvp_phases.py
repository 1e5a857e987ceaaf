"""Where a Hessian-vector product's time goes, phase by phase, tensorplay beside
torch (when installed), in one process each: the shared harness's ``hvp``
workload (MLP 64-128(tanh)-1, batch 32, MSE, flat float32 parameters), split into

    forward            loss(theta)
    grad, create_graph (g,) = grad(loss, theta, create_graph=True)
    g . v              (g * v).sum()
    second grad        (hv,) = grad((g * v).sum(), theta)

in microseconds, best of 7 repeats of 2000 steps.  The ratio of the total is the
harness's hvp ratio (up to noise and torch's own two speeds on this machine).

    python benchmarks/hvp_phases.py
"""
import subprocess
import sys
import time

import numpy as np

PHASES = ("forward", "grad, create_graph", "g . v", "second grad")
SPLITS = (64 * 128, 64 * 128 + 128, 64 * 128 + 128 + 128, 64 * 128 + 128 + 128 + 1)


def inputs():
    r = np.random.default_rng(3)
    f = np.float32
    return {"theta": (r.standard_normal(SPLITS[-1]) * 0.1).astype(f),
            "v": r.standard_normal(SPLITS[-1]).astype(f),
            "x": r.standard_normal((32, 64)).astype(f), "y": r.standard_normal((32, 1)).astype(f)}


def run(mod_name, steps=2000, repeats=7):
    T = __import__(mod_name)
    d = inputs()
    th = T.tensor(d["theta"], requires_grad=True)
    v, x, y = T.tensor(d["v"]), T.tensor(d["x"]), T.tensor(d["y"])

    def loss(th):
        s = SPLITS
        W1, b1 = th[:s[0]].reshape(64, 128), th[s[0]:s[1]]
        W2, b2 = th[s[1]:s[2]].reshape(128, 1), th[s[2]:s[3]]
        return (((x @ W1 + b1).tanh() @ W2 + b2 - y) ** 2).mean()

    clock = time.perf_counter
    best = [float("inf")] * 4
    for _ in range(repeats):
        acc = [0.0] * 4
        for _ in range(steps):
            t0 = clock()
            L = loss(th)
            t1 = clock()
            (g,) = T.autograd.grad(L, th, create_graph=True)
            t2 = clock()
            s = (g * v).sum()
            t3 = clock()
            T.autograd.grad(s, th)
            t4 = clock()
            del L, g, s             # (the graph is freed outside the timed phases)
            acc[0] += t1 - t0
            acc[1] += t2 - t1
            acc[2] += t3 - t2
            acc[3] += t4 - t3
        best = [min(b, a / steps * 1e6) for b, a in zip(best, acc)]
    return best


def main():
    if len(sys.argv) > 1:           # a child: one framework, its numbers on stdout
        print(" ".join(f"{t:.2f}" for t in run(sys.argv[1])))
        return
    results = {}
    for name in ("torch", "tensorplay"):
        p = subprocess.run([sys.executable, __file__, name], capture_output=True, text=True)
        if p.returncode:
            if name == "torch":
                continue            # torch not installed: tensorplay alone
            sys.exit(p.stderr)
        results[name] = [float(t) for t in p.stdout.split()]
    names = list(results)
    print("| phase | " + " | ".join(names) + (" | ratio |" if len(names) == 2 else " |"))
    print("|---" * (len(names) + 1 + (len(names) == 2)) + "|")
    rows = list(PHASES) + ["total"]
    for i, row in enumerate(rows):
        vals = [results[n][i] if i < 4 else sum(results[n]) for n in names]
        cells = " | ".join(f"{t:.1f} us" for t in vals)
        ratio = f" | {vals[1] / vals[0]:.2f}x" if len(vals) == 2 else ""
        print(f"| {row} | {cells}{ratio} |")


if __name__ == "__main__":
    main()
