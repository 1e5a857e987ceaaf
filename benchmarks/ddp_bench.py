"""DistributedDataParallel on this machine, and what it would do on N machines.

Workload: the shared bench's ``mlp_step`` (MLP 784-512-512-10, ReLU, softmax
cross-entropy, batch 128 per rank, forward + backward + in-place SGD, float32;
669,706 parameters, 2.68 MB of gradients), wrapped in
``nn.parallel.DistributedDataParallel`` and run on 1, 2 and 4 ranks (weak
scaling: every rank has its own 128 samples).

Each round runs steps without DDP, steps with DDP (each kind back to back,
as training runs them), and the all-reduce of DDP's buckets alone (each
after a barrier, so that it is not one rank's lag behind another); the
slowest rank counts (the job waits for it).  Step times are those of the
fastest round (the one least disturbed by other work on the machine); the
communication figures those of the median round:

- ``local``: a step without DDP: the compute alone;
- ``ddp``: a step with DDP;
- ``comm``: the buckets all-reduced alone (started together, waited for
  together; median over steps): what the communication costs when nothing
  hides it;
- ``exposed``: from the end of the last rank's backward pass to the last
  rank's averaged gradients having arrived (DDP's reducer notes both times;
  one machine, one clock): the communication the backward did not hide;
- ``hidden = 1 - exposed / comm``: the fraction of the all-reduce time that
  the rest of the backward pass covered (measured, not assumed); and
  ``1 - (ddp - local) / comm``, the same seen from the step time (it also
  counts the copies into and out of the buckets against DDP, and noise);
- ``samples/s``: ranks x 128 over the time of a DDP step.

Then the ring all-reduce cost model: each rank sends and receives
2(N-1)/N of the gradient bytes, in 2(N-1) steps per bucket, so
T_comm(N) = 2(N-1)/N * bytes / bandwidth + 2(N-1) * buckets * latency, of
which at most the measured fraction, and no more than the backward time after
the first bucket starts (the window, measured on one rank), hides behind the
backward pass: a step on N machines takes about
T_local + max((1 - hidden) * T_comm(N), T_comm(N) - window); with the global
batch N times one machine's, throughput grows N * T_local / T_step(N) times.

    python benchmarks/ddp_bench.py                       # 1, 2, 4 ranks, then the model
    python benchmarks/ddp_bench.py --ranks 1,2 --bucket-cap-mb 1 --bandwidth 1,10,100

Ranks beyond the cores (4 on a 2-core machine) share them: their compute
slows down, which the table shows as it is.  Needs ``pip install -e ".[mpi]"``.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

SIZES, BATCH, LR = (784, 512, 512, 10), 128, 0.01


# ---------------------------------------------------------------------- one rank
def _model(tp, nn):
    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            r = np.random.default_rng(1)
            for i, (a, b) in enumerate(zip(SIZES[:-1], SIZES[1:]), 1):
                w = (r.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(np.float32)
                setattr(self, f"W{i}", nn.Parameter(tp.tensor(w)))
                setattr(self, f"b{i}", nn.Parameter(tp.zeros(b)))

        def forward(self, x, y1h):
            h = (x @ self.W1 + self.b1).relu()
            h = (h @ self.W2 + self.b2).relu()
            z = h @ self.W3 + self.b3
            return -(y1h * (z - z.logsumexp(dim=1, keepdim=True))).sum() / BATCH
    return MLP()


def _step(tp, model, params, x, y1h):
    model(x, y1h).backward()
    with tp.no_grad():
        for p in params:
            p -= LR * p.grad
            p.grad = None


def worker(args):
    import tensorplay as tp
    import tensorplay.distributed as dist
    from tensorplay import nn
    dist.init_process_group("mpi")
    rank, n = dist.get_rank(), dist.get_world_size()
    pg = dist.group.WORLD
    r = np.random.default_rng([7, rank])
    x = tp.tensor(r.standard_normal((BATCH, SIZES[0])).astype(np.float32))
    y1h = tp.tensor(np.eye(SIZES[-1], dtype=np.float32)[r.integers(0, SIZES[-1], BATCH)])

    local = _model(tp, nn)
    lparams = list(local.parameters())
    ddp = nn.parallel.DistributedDataParallel(_model(tp, nn), bucket_cap_mb=args.bucket_cap_mb)
    dparams = list(ddp.parameters())
    red = ddp._reducer

    def comm_alone():
        works = [pg._start("all_reduce", lambda b=b: [pg._comm.Iallreduce(
            pg._mpi.IN_PLACE, pg._spec(b.buffer), pg._mpi.SUM)], async_op=True)
            for b in red.buckets]
        for w in works:
            w.wait()

    def timed(fn, steps):
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(steps):
            fn()
        dist.barrier()
        return (time.perf_counter() - t0) / steps

    def aligned(fn):
        dist.barrier()
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    def ddp_step():
        _step(tp, ddp, dparams, x, y1h)
        started, ended, arrived = red.timeline
        per_step["window"].append(ended - started)
        per_step["backward_end"].append(ended)
        per_step["arrived"].append(arrived)

    rows = {"local": [], "ddp": [], "comm": [], "exposed": [], "window": []}
    for _ in range(3):                                    # warm up every path
        _step(tp, local, lparams, x, y1h)
        _step(tp, ddp, dparams, x, y1h)
        comm_alone()
    for _ in range(args.rounds):
        per_step = {"comm": [], "window": [], "backward_end": [], "arrived": []}
        mine = [timed(lambda: _step(tp, local, lparams, x, y1h), args.steps),
                timed(ddp_step, args.steps)]
        for _ in range(args.steps):
            per_step["comm"].append(aligned(comm_alone))
        # per step, the latest rank (the job waits for it); the exposed communication
        # of a step runs from the end of the last rank's backward to the last rank's
        # gradients arriving (one clock: one machine)
        latest = {}
        for k, v in list(per_step.items()) + [("steps", mine)]:
            t = tp.tensor(v, dtype=tp.float64)
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
            latest[k] = t.tolist()
        rows["local"].append(latest["steps"][0])
        rows["ddp"].append(latest["steps"][1])
        rows["comm"].append(statistics.median(latest["comm"]))
        rows["window"].append(statistics.median(latest["window"]))
        rows["exposed"].append(statistics.median(
            max(0.0, a - e) for a, e in zip(latest["arrived"], latest["backward_end"])))
    # step times: the round least disturbed by other work on the machine (the
    # fastest); communication and what hides it: the median round
    summary = {k: (min(v) if k in ("local", "ddp") else statistics.median(v))
               for k, v in rows.items()}
    if rank == 0:
        out = dict(summary)
        out.update(ranks=n, buckets=len(red.buckets),
                   grad_bytes=int(sum(b.buffer.nbytes for b in red.buckets)))
        print("RESULT " + json.dumps(out), flush=True)
    dist.destroy_process_group()


# ---------------------------------------------------------------------- the driver
def _ring_comm_s(n, grad_bytes, buckets, gbit_per_s, latency_s):
    if n == 1:
        return 0.0
    return 2 * (n - 1) / n * grad_bytes / (gbit_per_s * 1e9 / 8) + 2 * (n - 1) * buckets * latency_s


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--ranks", default="1,2,4")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--bucket-cap-mb", type=float, default=25.0)
    p.add_argument("--bandwidth", default="1,10,25,100", help="Gbit/s per machine, for the model")
    p.add_argument("--latency-us", type=float, default=20.0, help="per message, for the model")
    p.add_argument("--machines", default="2,4,8,16,64")
    args = p.parse_args()
    if args.worker:
        return worker(args)

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(os.path.dirname(here), "src"))
    from tensorplay.distributed.run import build_command
    results = []
    for n in [int(k) for k in args.ranks.split(",")]:
        cmd, extra = build_command(n, os.path.abspath(__file__),
                                   ["--worker", "--rounds", str(args.rounds),
                                    "--steps", str(args.steps),
                                    "--bucket-cap-mb", str(args.bucket_cap_mb)])
        env = {**os.environ, **extra, "OMP_NUM_THREADS": "1"}
        env["PYTHONPATH"] = os.pathsep.join(
            [os.path.join(os.path.dirname(here), "src")] + [v for v in [env.get("PYTHONPATH")] if v])
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
        if proc.returncode != 0 or not lines:
            sys.exit(f"{n} ranks failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        results.append(json.loads(lines[0][len("RESULT "):]))

    ms = 1e3
    print(f"DDP, the shared bench's MLP {'-'.join(map(str, SIZES))}, batch {BATCH} per rank, "
          f"bucket_cap_mb={args.bucket_cap_mb:g}, OMP_NUM_THREADS=1, {os.cpu_count()} cores; "
          f"{args.rounds} rounds x {args.steps} steps, slowest rank; step times: fastest "
          f"round, communication: median round")
    print(f"{'ranks':>5} {'buckets':>7} {'local ms':>9} {'ddp ms':>8} {'comm ms':>8} "
          f"{'exposed ms':>10} {'hidden':>7} {'hidden(step)':>12} {'samples/s':>10}")
    for r in results:
        hidden = 1 - r["exposed"] / r["comm"] if r["ranks"] > 1 else float("nan")
        hidden_step = 1 - (r["ddp"] - r["local"]) / r["comm"] if r["ranks"] > 1 else float("nan")
        print(f"{r['ranks']:>5} {r['buckets']:>7} {r['local'] * ms:>9.2f} {r['ddp'] * ms:>8.2f} "
              f"{r['comm'] * ms:>8.2f} {r['exposed'] * ms:>10.2f} {hidden:>7.0%} "
              f"{hidden_step:>12.0%} {r['ranks'] * BATCH / r['ddp']:>10.0f}")

    one = results[0]
    base = [r for r in results if r["ranks"] > 1]
    hidden = max(0.0, min(1.0, 1 - base[0]["exposed"] / base[0]["comm"])) if base else 0.0
    t1, gb, nb, window = one["local"], one["grad_bytes"], one["buckets"], one["window"]
    print(f"\nRing all-reduce model, one rank per machine: {gb / 1e6:.2f} MB of gradients in "
          f"{nb} bucket(s), latency {args.latency_us:g} us/message, compute {t1 * ms:.2f} ms/step "
          f"(1 rank here), of which {window * ms:.2f} ms of backward after the first bucket "
          f"starts (the window that can hide communication), hidden fraction {hidden:.0%} "
          f"(measured on {base[0]['ranks'] if base else 1} ranks here)")
    print("T_comm = 2(N-1)/N * bytes / bandwidth + 2(N-1) * buckets * latency;  "
          "exposed = max((1 - hidden) * T_comm, T_comm - window);  T_step = T_local + exposed;  "
          "speedup = N * T_local / T_step")
    machines = [int(k) for k in args.machines.split(",")]
    print(f"{'Gbit/s':>7} " + " ".join(f"{f'N={m}: comm/step/speedup':>28}" for m in machines))
    for bw in [float(b) for b in args.bandwidth.split(",")]:
        cells = []
        for m in machines:
            c = _ring_comm_s(m, gb, nb, bw, args.latency_us * 1e-6)
            step = t1 + max((1 - hidden) * c, c - window)
            cells.append(f"{c * ms:8.2f} ms {step * ms:7.2f} ms {m * t1 / step:5.1f}x")
        print(f"{bw:>7g} " + " ".join(f"{c:>28}" for c in cells))


if __name__ == "__main__":
    main()
