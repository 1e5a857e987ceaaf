"""Writing through n kept views of one base, then one backward: the cost per
write must not grow with n (views' histories are remade when next needed, not
at every write).  Prints microseconds per write for several n, for tensorplay
and for torch when it is installed; a linear program shows a flat column.

    python benchmarks/view_writes.py             # tensorplay, and torch if installed

Best of several repeats (the minimum is the least disturbed by other load).
"""
import sys
import time

import numpy as np


def run(mod_name, sizes=(100, 300, 1000), repeats=5):
    T = __import__(mod_name)
    w = T.tensor(np.random.default_rng(0).standard_normal(4).astype(np.float32),
                 requires_grad=True)

    def program(n):
        base = T.zeros(n, 4) + w            # a non-leaf base
        views = [base[i] for i in range(n)]
        for v in views:                     # each write moves every view's version on
            v.mul_(1.5)
        base.sum().backward()

    out = {}
    for n in sizes:
        program(n)                          # warm-up
        best = float("inf")
        for _ in range(repeats):
            w.grad = None
            t = time.perf_counter()
            program(n)
            best = min(best, time.perf_counter() - t)
        out[n] = best / n * 1e6
    cells = "  ".join(f"n={n}: {us:7.1f} us/write" for n, us in out.items())
    print(f"{mod_name:>10}: {cells}")
    return out


if __name__ == "__main__":
    for m in sys.argv[1:] or ["tensorplay", "torch"]:
        try:
            run(m)
        except ImportError:
            print(f"{m:>10}: not installed")
