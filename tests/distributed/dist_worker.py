"""Checks that run on every rank of an MPI job; tests/test_distributed_mpi.py
starts them with ``mpiexec -n 2`` and ``-n 4``:

    mpiexec -n 4 python tests/distributed/dist_worker.py collectives ddp
    mpiexec -n 2 python tests/distributed/dist_worker.py raise     # rank 1 raises
    mpiexec -n 2 python tests/distributed/dist_worker.py exit      # rank 1: sys.exit(3)
    mpiexec -n 2 python tests/distributed/dist_worker.py stall     # rank 1 stops calling

A suite that passes prints ``OK <suite> rank <r> of <n>: <k> checks``; a failed
check raises, which aborts the job (non-zero exit, the rank named on stderr).
Every rank computes what each collective should give with NumPy from the data
all ranks made (each from a seed and its rank), and DDP's results from a
single-process run on the whole batch.
"""
import datetime
import sys
import time

import numpy as np


class Checks:
    def __init__(self):
        self.n = 0

    def equal(self, got, want, what):
        got = np.asarray(got)
        want = np.asarray(want)
        if got.shape != want.shape or not np.array_equal(got, want):
            raise AssertionError(f"{what}: got {got!r}, want {want!r}")
        self.n += 1

    def close(self, got, want, what, rtol=1e-5, atol=1e-6):
        got = np.asarray(got, np.float64)
        want = np.asarray(want, np.float64)
        if got.shape != want.shape or not np.allclose(got, want, rtol=rtol, atol=atol):
            err = np.max(np.abs(got - want)) if got.shape == want.shape else "shape"
            raise AssertionError(f"{what}: max error {err}; got {got!r}, want {want!r}")
        self.n += 1

    def raises(self, exc, text, fn, what):
        try:
            fn()
        except exc as e:
            if text not in str(e):
                raise AssertionError(f"{what}: message {str(e)!r} lacks {text!r}")
            self.n += 1
            return
        raise AssertionError(f"{what}: no {exc.__name__} raised")

    def true(self, cond, what):
        if not cond:
            raise AssertionError(what)
        self.n += 1


# ------------------------------------------------------------------ collectives
def _np(t):
    """A tensor's values as NumPy, bfloat16 included."""
    return t._data.copy()


def _wide(a):
    """``a`` in float64 (complex128 if complex), to compare exactly across dtypes."""
    a = np.asarray(a)
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def _values(dtype, shape, rank, seed, tp):
    """Small integers (exact in every dtype, sums and products of four ranks
    included), distinct per rank and per seed."""
    r = np.random.default_rng([seed, rank])
    if dtype == tp.bool:
        a = r.integers(0, 2, shape).astype(bool)
    elif dtype in (tp.uint8,):
        a = r.integers(0, 4, shape)
    else:
        a = r.integers(-3, 4, shape)
        a[a == 0] = 1 if dtype.is_floating_point or dtype.is_complex else 0
    return a


def _make(dtype, shape, rank, seed, tp, layout):
    """A tensor of ``_values`` in a contiguous, transposed, or strided-slice layout
    (the last two share memory with a larger base, whose other elements must not
    change)."""
    a = _values(dtype, shape, rank, seed, tp)
    if dtype.is_complex:
        a = a + 1j * _values(dtype, shape, rank, seed + 1000, tp)
    t = tp.tensor(a).to(dtype) if dtype != tp.bool else tp.tensor(a)
    if layout == "contiguous" or len(shape) < 2:
        return t, None
    if layout == "transposed":
        base = t.transpose(-2, -1).contiguous()
        return base.transpose(-2, -1), None    # the same values, column-major memory
    wide = tp.zeros(shape[:-1] + (2 * shape[-1],), dtype=dtype)
    wide[..., ::2] = t
    return wide[..., ::2], wide                # every other column of a wider base


SHAPES = [(), (0,), (5,), (3, 4), (2, 3, 4)]
LAYOUTS = ["contiguous", "transposed", "strided"]


def _cases(dtype, tp):
    """(shape, layout) pairs: every one for float32, a spread for the other dtypes."""
    every = [(s, lay) for s in SHAPES for lay in LAYOUTS if len(s) >= 2 or lay == "contiguous"]
    if dtype == tp.float32:
        return every
    return [((), "contiguous"), ((0,), "contiguous"), ((3, 4), "transposed"),
            ((2, 3, 4), "strided")]


def collectives(dist, tp, check):
    rank, n = dist.get_rank(), dist.get_world_size()
    R = dist.ReduceOp
    dtypes = [tp.float32, tp.float64, tp.float16, tp.bfloat16, tp.int64, tp.int32, tp.uint8,
              tp.bool, tp.complex64]
    seed = 0
    np_ops = {R.SUM: np.add, R.PRODUCT: np.multiply, R.MIN: np.minimum, R.MAX: np.maximum,
              R.BAND: np.bitwise_and, R.BOR: np.bitwise_or, R.BXOR: np.bitwise_xor}
    for dt in dtypes:
        ops = [R.SUM, R.PRODUCT]
        if not dt.is_complex:
            ops += [R.MIN, R.MAX]
        if dt.is_floating_point or dt.is_complex:
            ops.append(R.AVG)
        if not (dt.is_floating_point or dt.is_complex):
            ops += [R.BAND, R.BOR, R.BXOR]
        for shape, layout in _cases(dt, tp):
            for op in ops:
                seed += 1
                t, base = _make(dt, shape, rank, seed, tp, layout)
                before = None if base is None else _np(base)
                alls = [_np(_make(dt, shape, r, seed, tp, "contiguous")[0]) for r in range(n)]
                if op is R.AVG:
                    want = sum(_wide(a) for a in alls) / n
                elif dt == tp.bool:
                    f = {R.SUM: np.logical_or, R.MAX: np.logical_or, R.BOR: np.logical_or,
                         R.PRODUCT: np.logical_and, R.MIN: np.logical_and,
                         R.BAND: np.logical_and, R.BXOR: np.logical_xor}[op]
                    want = alls[0]
                    for a in alls[1:]:
                        want = f(want, a)
                else:
                    want = alls[0]
                    for a in alls[1:]:
                        want = np_ops[op](want, a)
                v0 = t._version
                if seed % 2:
                    dist.all_reduce(t, op=op)
                else:
                    w = dist.all_reduce(t, op=op, async_op=True)
                    check.true(w.wait() is True and w.is_completed() and w.is_success()
                               and w.result()[0] is t, "async all_reduce's Work")
                what = f"all_reduce {op.name} {dt} {shape} {layout}"
                check.equal(_wide(_np(t)), _wide(want), what)
                check.true(t._version > v0, f"{what}: version bumped")
                if base is not None:
                    after = _np(base)
                    check.equal(after[..., 1::2], before[..., 1::2], f"{what}: base untouched")

        for shape, layout in _cases(dt, tp):
            seed += 1
            alls = [_np(_make(dt, shape, r, seed, tp, "contiguous")[0]) for r in range(n)]
            tag = f"{dt} {shape} {layout}"
            # broadcast, from every rank in turn
            for src in range(n):
                t, _ = _make(dt, shape, rank, seed, tp, layout)
                dist.broadcast(t, src=src)
                check.equal(_np(t), alls[src], f"broadcast from {src} {tag}")
            # all_gather into a list (of non-contiguous tensors for that layout)
            outs = [_make(dt, shape, rank, seed + 7, tp, layout)[0] for _ in range(n)]
            t, _ = _make(dt, shape, rank, seed, tp, layout)
            w = dist.all_gather(outs, t, async_op=True)
            w.wait()
            for r in range(n):
                check.equal(_np(outs[r]), alls[r], f"all_gather[{r}] {tag}")
            # all_gather_into_tensor: concatenated along dim 0, and stacked
            if len(shape) >= 1:
                out = tp.zeros((n * shape[0],) + shape[1:], dtype=dt)
                dist.all_gather_into_tensor(out, t)
                check.equal(_np(out), np.concatenate(alls), f"all_gather_into_tensor {tag}")
            stacked = tp.zeros((n,) + shape, dtype=dt)
            if layout == "transposed" and len(shape) == 2:
                stacked = tp.zeros((shape[1], shape[0], n), dtype=dt).permute(2, 1, 0)
            dist.all_gather_into_tensor(stacked, t)
            check.equal(_np(stacked), np.stack(alls), f"all_gather_into_tensor stacked {tag}")
            # gather / scatter to and from the last rank
            root = n - 1
            lst = [tp.zeros(shape, dtype=dt) for _ in range(n)] if rank == root else None
            dist.gather(t, lst, dst=root)
            if rank == root:
                for r in range(n):
                    check.equal(_np(lst[r]), alls[r], f"gather[{r}] {tag}")
            recv, _ = _make(dt, shape, rank, seed + 9, tp, layout)
            lst = ([_make(dt, shape, r, seed, tp, "contiguous")[0] for r in range(n)]
                   if rank == root else None)
            dist.scatter(recv, lst, src=root)
            check.equal(_np(recv), alls[rank], f"scatter {tag}")
            # send/recv around a ring, blocking and not
            if n > 1:
                got, _ = _make(dt, shape, rank, seed + 11, tp, layout)
                if rank % 2 == 0:
                    dist.send(t, (rank + 1) % n)
                    src = dist.recv(got, (rank - 1) % n)
                else:
                    got_src = dist.recv(got)          # from any rank
                    dist.send(t, (rank + 1) % n)
                    src = got_src
                check.equal(src, (rank - 1) % n, f"recv's source {tag}")
                check.equal(_np(got), alls[(rank - 1) % n], f"send/recv {tag}")
                got2 = tp.zeros(shape, dtype=dt)
                ws = [dist.isend(t, (rank + 1) % n, tag=5), dist.irecv(got2, tag=5)]
                for w in ws:
                    w.wait()
                check.equal(ws[1].source_rank(), (rank - 1) % n, f"irecv's source {tag}")
                check.equal(_np(got2), alls[(rank - 1) % n], f"isend/irecv {tag}")

        # reduce_scatter_tensor / reduce_scatter / reduce, on a (n*3, 2) input
        seed += 1
        ops = [R.SUM] + ([R.AVG, R.MAX] if dt.is_floating_point else [])
        for op in ops:
            alls = [_np(_make(dt, (3 * n, 2), r, seed, tp, "contiguous")[0]) for r in range(n)]
            total = _wide(alls[0]) if dt != tp.bool else alls[0]
            for a in alls[1:]:
                if dt == tp.bool:
                    total = total | a
                elif op is R.MAX:
                    total = np.maximum(total, a)
                else:
                    total = total + _wide(a)
            if op is R.AVG:
                total = total / n
            inp, _ = _make(dt, (3 * n, 2), rank, seed, tp, "transposed")
            out = tp.zeros(3, 2, dtype=dt)
            dist.reduce_scatter_tensor(out, inp, op=op)
            tag = f"{op.name} {dt}"
            check.equal(_wide(_np(out)), _wide(total[3 * rank:3 * rank + 3]),
                        f"reduce_scatter_tensor {tag}")
            out = tp.zeros(3, 2, dtype=dt).t().contiguous().t()
            dist.reduce_scatter(out, list(inp.split(3)), op=op)
            check.equal(_wide(_np(out)), _wide(total[3 * rank:3 * rank + 3]),
                        f"reduce_scatter {tag}")
            t, _ = _make(dt, (3 * n, 2), rank, seed, tp, "contiguous")
            dist.reduce(t, dst=0, op=op)
            if rank == 0:
                check.equal(_wide(_np(t)), _wide(total), f"reduce {tag}")
            else:
                check.equal(_np(t), alls[rank], f"reduce leaves rank {rank} {tag}")

    # float data that is not integer-valued: equal up to the summation order
    x = tp.tensor(np.random.default_rng([99, rank]).standard_normal(1000))
    want = sum(np.random.default_rng([99, r]).standard_normal(1000) for r in range(n))
    dist.all_reduce(x)
    check.close(_np(x), want, "all_reduce of float64 noise", rtol=1e-12, atol=1e-12)
    for dt, tol in ((tp.float16, 2e-3), (tp.bfloat16, 2e-2)):
        data = [np.random.default_rng([98, r]).uniform(0.5, 1.5, 257) for r in range(n)]
        x = tp.tensor(data[rank]).to(dt)
        dist.all_reduce(x)
        check.close(_np(x).astype(np.float64), sum(data), f"all_reduce {dt}", rtol=tol)

    # a large tensor (several MB: MPI's pipelined/ring algorithms), in place
    big = tp.full((1 << 20,), float(rank + 1))
    ptr = big.data_ptr()
    dist.all_reduce(big, op=R.AVG)
    check.equal(float(big[0]), (n + 1) / 2, "large all_reduce")
    check.true(big.data_ptr() == ptr and bool((big == (n + 1) / 2).all()), "large, in place")

    # errors: PyTorch's types and words
    t = tp.ones(3)
    check.raises(ValueError, "complex", lambda: dist.all_reduce(tp.ones(2, dtype=tp.complex64),
                                                                op=R.MAX), "complex MAX")
    check.raises(RuntimeError, "non-integral", lambda: dist.all_reduce(t, op=R.BAND),
                 "float BAND")
    check.raises(RuntimeError, "can't be cast", lambda: dist.all_reduce(tp.ones(2, dtype=tp.int64),
                                                                       op=R.AVG), "int AVG")
    check.raises(TypeError, "Expected parameter `tensor`", lambda: dist.all_reduce([1.0]),
                 "not a tensor")
    check.raises(RuntimeError, "invalid src rank", lambda: dist.broadcast(t, src=n), "bad src")
    check.raises(RuntimeError, "one per rank", lambda: dist.all_gather([t], t) if n > 1
                 else dist.all_gather([t, t], t), "all_gather list length")
    check.raises(RuntimeError, "same type", lambda: dist.all_gather_into_tensor(
        tp.zeros(3 * n, dtype=tp.float64), t), "all_gather_into_tensor dtype")
    check.raises(RuntimeError, "world_size", lambda: dist.all_gather_into_tensor(
        tp.zeros(3 * n + 1), t), "all_gather_into_tensor size")
    check.raises(RuntimeError, "single memory location", lambda: dist.all_reduce(
        tp.ones(1).expand(3)), "expanded tensor")
    check.raises(ValueError, "should not be the same", lambda: dist.send(t, rank), "send to self")
    check.raises(ValueError, "twice", lambda: dist.init_process_group(), "init twice")
    if n > 1:
        check.raises(ValueError, "non-destination", lambda: dist.gather(
            t, [t] * n, dst=(rank + 1) % n), "gather_list on a non-destination rank")
    # collectives are not autograd-aware: a leaf that requires grad is written in
    # place (as PyTorch), and a backward that saved the old value raises
    leaf = tp.ones(3, requires_grad=True)
    dist.all_reduce(leaf)
    check.equal(_np(leaf), np.full(3, n, np.float32), "all_reduce on a leaf")
    y = leaf * 1.0
    z = y.exp()
    dist.all_reduce(z)
    check.raises(RuntimeError, "modified by an inplace operation", lambda: z.sum().backward(),
                 "a saved tensor overwritten by a collective")
    dist.barrier()
    w = dist.barrier(async_op=True)
    w.wait()
    check.true(w.is_completed(), "async barrier")


# ------------------------------------------------------------------ DDP
def _mlp(tp, nn, seed):
    tp.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.ReLU(),
                         nn.Linear(16, 3))


def _cnn(tp, nn, seed):
    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.w1 = nn.Parameter(tp.randn(4, 2, 3, 3) * 0.3)
            self.b1 = nn.Parameter(tp.zeros(4))
            self.w2 = nn.Parameter(tp.randn(6, 4, 3, 3) * 0.2)
            self.head = nn.Linear(6 * 4 * 4, 3)

        def forward(self, x):
            h = tp.conv2d(x, self.w1, self.b1, 1, 1).relu()
            h = tp.conv2d(h, self.w2, None, 2, 1).relu()
            return self.head(h.flatten(1))

    tp.manual_seed(seed)
    return CNN()


def _batch(tp, n, per_rank, shape, seed):
    g = np.random.default_rng(seed)
    x = tp.tensor(g.standard_normal((n * per_rank,) + shape).astype(np.float32))
    y = tp.tensor(g.integers(0, 3, n * per_rank))
    return x, y


def _grads(model):
    return [None if p.grad is None else _np(p.grad) for p in model.parameters()]


def _all_equal_across_ranks(dist, tp, model, check, what):
    flat = np.concatenate([_np(p).reshape(-1).astype(np.float64) for p in model.parameters()])
    mine = tp.tensor(flat)
    every = [tp.zeros(flat.shape, dtype=tp.float64) for _ in range(dist.get_world_size())]
    dist.all_gather(every, mine)
    for r, e in enumerate(every):
        check.equal(_np(e), flat, f"{what}: rank {r}'s parameters equal this rank's")


def ddp(dist, tp, check):
    from tensorplay import nn, optim
    from tensorplay.nn.parallel import DistributedDataParallel as DDP
    F = nn.functional
    rank, n = dist.get_rank(), dist.get_world_size()
    per = 4

    # gradients: DDP on each rank's share == one process on the whole batch (MLP and
    # CNN; several buckets; .grad copied back or a view of the bucket)
    for name, make, shape in (("MLP", _mlp, (6,)), ("CNN", _cnn, (2, 8, 8))):
        for as_view in (False, True):
            ref = make(tp, nn, 1)
            local = make(tp, nn, 1 + 17 * rank)           # rank 0's must win
            model = DDP(local, bucket_cap_mb=0.0002, gradient_as_bucket_view=as_view)
            check.true(model.module is local, "module attribute")
            if name == "MLP":
                check.true(len(model._reducer.buckets) > 2, "several buckets")
                # the last parameters come first: the backward produces them first
                check.equal(model._reducer.buckets[0].params[0], len(list(local.parameters()))
                            - 1, "reverse order")
            for it in range(3):
                x, y = _batch(tp, n, per, shape, 100 + it)
                for p in ref.parameters():
                    p.grad = None
                for p in local.parameters():
                    if as_view and it == 2:
                        p.grad.zero_()        # backward then adds into the bucket's memory
                    else:
                        p.grad = None
                F.cross_entropy(ref(x), y).backward()
                F.cross_entropy(model(x[rank * per:(rank + 1) * per]),
                                y[rank * per:(rank + 1) * per]).backward()
                for (pn, p), q in zip(local.named_parameters(), ref.parameters()):
                    check.close(_np(p.grad), _np(q.grad),
                                f"{name} as_view={as_view} step {it}: grad of {pn}")
                if as_view:
                    red = model._reducer
                    check.true(all(np.shares_memory(p.grad._data, red.where[i].buffer)
                                   for i, p in enumerate(local.parameters())),
                               "gradient_as_bucket_view: .grad is a view of its bucket")

    # 50 steps of SGD (momentum) and of Adam: identical on every rank, and as one
    # process on the whole batch
    for opt_name, make_opt in (("SGD", lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9)),
                               ("Adam", lambda ps: optim.Adam(ps, lr=0.01))):
        ref = _mlp(tp, nn, 2)
        model = DDP(_mlp(tp, nn, 2 + rank), bucket_cap_mb=0.002)
        o_ref, o = make_opt(ref.parameters()), make_opt(model.parameters())
        for it in range(50):
            x, y = _batch(tp, n, per, (6,), 1000 + it)
            o_ref.zero_grad()
            F.cross_entropy(ref(x), y).backward()
            o_ref.step()
            o.zero_grad()
            F.cross_entropy(model(x[rank * per:(rank + 1) * per]),
                            y[rank * per:(rank + 1) * per]).backward()
            o.step()
        _all_equal_across_ranks(dist, tp, model.module, check, f"50 steps of {opt_name}")
        for p, q in zip(model.module.parameters(), ref.parameters()):
            check.close(_np(p), _np(q), f"50 steps of {opt_name} vs one process", rtol=1e-4,
                        atol=1e-5)

    # no_sync: two micro-batches accumulate locally, the third syncs the sum once
    ref = _mlp(tp, nn, 3)
    model = DDP(_mlp(tp, nn, 3))
    alone = _mlp(tp, nn, 3)                 # this rank's micro-batches, no communication
    for k in range(3):
        x, y = _batch(tp, n, per, (6,), 2000 + k)
        mine = slice(rank * per, (rank + 1) * per)
        F.cross_entropy(ref(x), y).backward()
        F.cross_entropy(alone(x[mine]), y[mine]).backward()
        if k < 2:
            with model.no_sync():
                F.cross_entropy(model(x[mine]), y[mine]).backward()
            for p, q in zip(model.parameters(), alone.parameters()):
                check.close(_np(p.grad), _np(q.grad), f"no_sync micro-batch {k}: local grads")
        else:
            F.cross_entropy(model(x[mine]), y[mine]).backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        check.close(_np(p.grad), _np(q.grad), "no_sync then one sync: grads of the sum")

    # find_unused_parameters: a branch used by rank 0 only, a head used by none
    class Branchy(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(6, 3)
            self.b = nn.Linear(6, 3)
            self.never = nn.Linear(6, 3)

        def forward(self, x, use_b):
            return self.a(x) + self.b(x) if use_b else self.a(x)

    tp.manual_seed(4)
    ref = Branchy()
    model = DDP(Branchy(), find_unused_parameters=True)
    model.module.load_state_dict(ref.state_dict())
    x, y = _batch(tp, n, per, (6,), 3000)
    for r in range(n):
        F.cross_entropy(ref(x[r * per:(r + 1) * per], r == 0), y[r * per:(r + 1) * per]
                        ).backward()
    mine = slice(rank * per, (rank + 1) * per)
    for it in range(2):
        model.zero_grad()
        F.cross_entropy(model(x[mine], rank == 0), y[mine]).backward()
        for (pn, p), q in zip(model.module.named_parameters(), ref.parameters()):
            if pn.startswith("never"):
                check.true(p.grad is None, f"find_unused: {pn} used by no rank keeps grad None")
            else:
                check.close(_np(p.grad), _np(q.grad) / n, f"find_unused step {it}: grad of {pn}")

    # without it, a parameter that gets no gradient makes the next forward raise
    model = DDP(Branchy())
    F.cross_entropy(model(x[mine], False), y[mine]).backward()
    check.raises(RuntimeError, "Expected to have finished reduction",
                 lambda: model(x[mine], False), "unused parameter without find_unused_parameters")

    # state_dict keys carry module.; buffers follow rank 0 at every forward
    class WithBuffer(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.register_buffer("scale", tp.full((2,), float(dist.get_rank() + 1)))

        def forward(self, x):
            return self.lin(x) * self.scale

    model = DDP(WithBuffer())
    check.equal(sorted(model.state_dict()), ["module.lin.bias", "module.lin.weight",
                                             "module.scale"], "state_dict keys")
    check.equal(_np(model.module.scale), np.ones(2, np.float32), "buffer broadcast at init")
    model.module.scale.fill_(rank + 5.0)
    model(tp.ones(1, 2)).sum().backward()
    check.equal(_np(model.module.scale), np.full(2, 5.0, np.float32), "buffer broadcast at forward")
    model2 = DDP(WithBuffer(), broadcast_buffers=False, init_sync=False)
    check.equal(_np(model2.module.scale), np.full(2, rank + 1.0, np.float32),
                "broadcast_buffers=False, init_sync=False keep the rank's buffer")

    # a model of another shape on some rank: every rank raises
    if n > 1:
        check.raises(RuntimeError, "DDP expects same model across all ranks",
                     lambda: DDP(nn.Linear(3, 2 + (rank == n - 1))), "model mismatch")
    check.raises(ValueError, "device_ids", lambda: DDP(nn.Linear(2, 2), device_ids=[0]),
                 "device_ids")
    check.raises(RuntimeError, "is not needed", lambda: DDP(nn.ReLU()), "no parameters")


# ------------------------------------------------------------------ failures
def main(argv):
    import tensorplay as tp
    import tensorplay.distributed as dist
    suites = argv or ["collectives", "ddp"]
    if suites == ["stall"]:
        dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=2))
    else:
        dist.init_process_group("mpi")
    rank, n = dist.get_rank(), dist.get_world_size()
    for suite in suites:
        if suite in ("raise", "exit", "stall"):
            dist.barrier()
            if rank == 1:
                if suite == "raise":
                    raise ValueError("rank 1 fails on purpose")
                if suite == "exit":
                    sys.exit(3)
                time.sleep(600)          # stops calling collectives
            dist.all_reduce(tp.ones(3))  # rank 0 waits here for rank 1
            print(f"rank {rank}: the job went on without rank 1", flush=True)
            continue
        check = Checks()
        tp.manual_seed(0)
        t0 = time.perf_counter()
        {"collectives": collectives, "ddp": ddp}[suite](dist, tp, check)
        print(f"OK {suite} rank {rank} of {n}: {check.n} checks "
              f"({time.perf_counter() - t0:.1f} s)", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1:])
