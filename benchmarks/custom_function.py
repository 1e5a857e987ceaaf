"""Overhead of a trivial custom autograd.Function applied 200 times in a chain,
forward and backward, per application (microseconds), side by side with torch.

    python benchmarks/custom_function.py         # tensorplay, and torch if installed

Same method as the shared harness: a fixed (16,) float32 input, warm-up, then
the best of several timed batches (the minimum is the least disturbed by
other load on the machine).
"""
import sys
import time

import numpy as np


def make(T):
    class MulConst(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0001

        @staticmethod
        def backward(ctx, g):
            return g * 1.0001
    return MulConst


def run(mod_name, repeats=15, n=20, length=200):
    T = __import__(mod_name)
    f = make(T).apply
    x = T.tensor(np.random.default_rng(0).standard_normal(16).astype(np.float32), requires_grad=True)

    def step():
        x.grad = None
        h = x
        for _ in range(length):
            h = f(h)
        h.sum().backward()

    for _ in range(10):
        step()
    best = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(n):
            step()
        best.append((time.perf_counter() - t) / n / length * 1e6)
    print(f"{mod_name:>10}: custom Function fwd+bwd {min(best):.2f} us/application")
    return min(best)


if __name__ == "__main__":
    res = {}
    for m in sys.argv[1:] or ["tensorplay", "torch"]:
        try:
            res[m] = run(m)
        except ImportError:
            print(f"{m:>10}: not installed")
    if len(res) == 2:
        print(f"ratio to torch: {res['tensorplay'] / res['torch']:.2f}x")
