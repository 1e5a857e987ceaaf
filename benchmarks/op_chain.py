"""Per-op overhead of a 200-op chain (x*1.0001, x+0.001, tanh on 16 floats):
forward with grad, backward, and forward under no_grad, in microseconds per op
(best of 15 repeats, so background load inflates it less).

    python benchmarks/op_chain.py            # tensorplay, and torch if installed
"""
import sys
import time

import numpy as np


def run(mod_name, repeats=15, n=20, length=200):
    T = __import__(mod_name)
    x = T.tensor(np.random.default_rng(0).standard_normal(16).astype(np.float32), requires_grad=True)

    def chain(h):
        for i in range(length):
            k = i % 3
            h = h * 1.0001 if k == 0 else h + 0.001 if k == 1 else h.tanh()
        return h

    for _ in range(20):
        chain(x).sum().backward()
    fwd, bwd, nograd = [], [], []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(n):
            chain(x)
        fwd.append((time.perf_counter() - t) / n / length * 1e6)
        ys = [chain(x).sum() for _ in range(n)]
        t = time.perf_counter()
        for y in ys:
            y.backward()
        bwd.append((time.perf_counter() - t) / n / length * 1e6)
        t = time.perf_counter()
        with T.no_grad():
            for _ in range(n):
                chain(x)
        nograd.append((time.perf_counter() - t) / n / length * 1e6)
    f, b, g = min(fwd), min(bwd), min(nograd)
    print(f"{mod_name:>10}: forward {f:.2f}  backward {b:.2f}  fwd+bwd {f + b:.2f}  no_grad {g:.2f}  us/op")
    return f + b, g


if __name__ == "__main__":
    res = {}
    for m in sys.argv[1:] or ["tensorplay", "torch"]:
        try:
            res[m] = run(m)
        except ImportError:
            print(f"{m:>10}: not installed")
    if "tensorplay" in res and "torch" in res:
        (a, b), (c, d) = res["tensorplay"], res["torch"]
        print(f"ratio to torch: fwd+bwd {a / c:.2f}x, no_grad {b / d:.2f}x")
