"""What ``vmap`` costs: ``vmap(f)`` over a batch of 64 against ``f`` written by
hand for the batched array (same arithmetic, no vmap), forward only, float32.

Functions (per sample -> hand-batched):

- ``mlp``: ``relu(x @ W1 + b1) @ W2 + b2`` for x of 128 features (256 hidden,
  10 out) -> the same with x of shape (64, 128);
- ``pointwise``: a chain of 8 elementwise ops on 256 elements;
- ``reduce_matmul``: a (32, 16) sample centred by its column means, times a
  (16, 16) matrix, row norms summed -> the same over (64, 32, 16).

Each line is the best-of-batches time per call in microseconds and the ratio
vmap / hand-batched (the issue's target: at most 1.5x).  The outputs of the
two are checked equal before timing.  torch.func.vmap's ratio is shown too
when torch is installed (the same functions with ``T = torch``).

    python benchmarks/vmap_cost.py                # tensorplay, and torch if installed
    python benchmarks/vmap_cost.py tensorplay --cpu   # process CPU time instead of wall time
"""
import sys
import time

import numpy as np

B = 64


def workloads(T):
    rng = np.random.default_rng(0)

    def t(*shape, scale=1.0):
        return T.tensor((rng.standard_normal(shape) * scale).astype(np.float32))
    W1, b1, W2, b2 = t(128, 256, scale=0.1), t(256), t(256, 10, scale=0.1), t(10)
    M = t(16, 16, scale=0.25)

    def mlp(x):
        return (x @ W1 + b1).relu() @ W2 + b2

    def pointwise(x):
        y = (x * 1.5 + 0.25).sin()
        y = (y * x).tanh() + x.cos()
        return (y * 0.5).exp() - x.sigmoid()

    def reduce_matmul(x):
        c = x - x.mean(0, keepdim=True)
        return (c @ M).norm(dim=-1).sum()

    def reduce_matmul_batched(x):
        c = x - x.mean(1, keepdim=True)
        return (c @ M).norm(dim=-1).sum(-1)
    return {
        "mlp": (mlp, mlp, t(B, 128)),
        "pointwise": (pointwise, pointwise, t(B, 256)),
        "reduce_matmul": (reduce_matmul, reduce_matmul_batched, t(B, 32, 16)),
    }


CLOCK = time.perf_counter


def _calls_per_batch(step, seconds):
    n = 1
    while True:
        t0 = CLOCK()
        for _ in range(n):
            step()
        if CLOCK() - t0 > seconds:
            return n
        n *= 2


def best_us(steps, seconds=0.04, batches=9):
    """Best time per call of each of ``steps``, in microseconds; their batches
    alternate, so that load from elsewhere falls on all of them alike."""
    ns = [_calls_per_batch(s, seconds) for s in steps]
    best = [float("inf")] * len(steps)
    for _ in range(batches):
        for k, (s, n) in enumerate(zip(steps, ns)):
            t0 = CLOCK()
            for _ in range(n):
                s()
            best[k] = min(best[k], (CLOCK() - t0) / n)
    return [b * 1e6 for b in best]


def run(name):
    T = __import__(name)
    vmap = T.func.vmap
    out = {}
    with T.no_grad():
        for wname, (f, hand, X) in workloads(T).items():
            vf = vmap(f)
            np.testing.assert_allclose(vf(X).numpy(), hand(X).numpy(), rtol=1e-5, atol=1e-5)
            out[wname] = best_us([lambda: vf(X), lambda: hand(X)])
    return out


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--cpu" in args:         # CPU time of this process: steadier on a loaded machine
        args.remove("--cpu")
        CLOCK = time.process_time
    for name in args or ["tensorplay", "torch"]:
        try:
            res = run(name)
        except ImportError:
            print(f"{name}: not installed")
            continue
        for wname, (v, h) in res.items():
            print(f"{name:>10} {wname:>14}: vmap {v:8.1f} us   by hand {h:8.1f} us   "
                  f"ratio {v / h:.2f}x")
