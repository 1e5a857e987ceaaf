"""DistributedDataParallel: one model replica per rank, gradients averaged over
the ranks during backward (PyTorch's ``torch.nn.parallel.DistributedDataParallel``
on tensorplay.distributed's MPI process group).

How the averaging overlaps the backward pass:

- At construction the parameters that require grad are grouped into buckets,
  in reverse order of ``module.parameters()`` (roughly the order in which the
  backward pass produces their gradients), per dtype, each up to
  ``bucket_cap_mb`` (the first one up to 1 MiB, so that communication starts
  early).  A bucket is one flat NumPy buffer.
- A forward pass with grad enabled (and outside ``no_sync()``) arms the
  reducer.  Each parameter's post-accumulate-grad hook copies its fresh
  gradient into its bucket's slice; when a bucket's last gradient has arrived,
  its non-blocking ``MPI_Iallreduce`` starts (buckets start in index order on
  every rank, so the ranks' collectives always match) while the backward pass
  goes on with the layers below.  MPI moves a non-blocking collective on only
  inside MPI calls, and the backward's NumPy kernels make none, so a progress
  thread tests the buckets in flight (every 50 us after a bucket starts,
  backing off to every 1 ms; the kernels release the GIL meanwhile); without
  it an all-reduce would mostly wait for the end of the backward pass.
- At the end of the backward pass (a callback queued on the engine, as
  PyTorch's reducer does) the reducer waits for the buckets still in flight,
  divides by the world size and copies the averages back into ``.grad``: when
  ``backward()`` returns, every rank holds the same averaged gradients and the
  optimizer step waits for nothing.
"""
import contextlib
import hashlib
import threading
import time
import weakref

import numpy as np

from ..._autograd.engine import queue_callback
from ..._autograd.grad_mode import state as _grad_state
from ..._tensor import Tensor, _wrap
from ...distributed._group import ReduceOp, _resolve
from ..modules.module import Module

_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024


def _bucket_assignment(params, limits):
    """Lists of parameter indices, one per bucket: parameters taken in reverse
    order, a separate run of buckets per dtype, a bucket closed once it holds
    ``limits[k]`` bytes or more (``limits[-1]`` from then on), the buckets in
    the order their first parameter was taken."""
    out, open_ = [], {}
    for i in reversed(range(len(params))):
        p = params[i]
        key = p._data.dtype
        b = open_.get(key)
        if b is None:
            b = open_[key] = {"idx": [], "bytes": 0, "k": 0}
        b["idx"].append(i)
        b["bytes"] += p._data.nbytes
        if b["bytes"] >= limits[min(b["k"], len(limits) - 1)]:
            out.append(b["idx"])
            open_[key] = {"idx": [], "bytes": 0, "k": b["k"] + 1}
    out += [b["idx"] for b in open_.values() if b["idx"]]
    order = {i: n for n, i in enumerate(reversed(range(len(params))))}
    out.sort(key=lambda idx: order[idx[0]])
    return out


class _Bucket:
    __slots__ = ("index", "params", "slices", "buffer", "pending", "work")

    def __init__(self, index, params, indices):
        self.index = index
        self.params = indices
        dt = params[indices[0]]._data.dtype
        sizes = [params[i]._data.size for i in indices]
        self.buffer = np.zeros(sum(sizes), dt)
        self.slices = {}
        off = 0
        for i, n in zip(indices, sizes):
            self.slices[i] = self.buffer[off:off + n]
            off += n
        self.pending = 0
        self.work = None


def _walk_tensors(obj, out):
    if isinstance(obj, Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _walk_tensors(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _walk_tensors(o, out)
    return out


def _reachable_leaves(outputs):
    """ids of the leaves whose gradients a backward from ``outputs`` reaches."""
    seen, leaves, stack = set(), set(), []
    for t in _walk_tensors(outputs, []):
        if t.grad_fn is not None:
            stack.append(t.grad_fn)
        elif t.requires_grad:
            leaves.add(id(t))
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        v = getattr(node, "variable", None)
        if v is not None:
            leaves.add(id(v))
        for e in node.next_edges:
            if e is not None and e[0] not in seen:
                stack.append(e[0])
    return leaves


class _Reducer:
    """The buckets, the per-iteration state, and the hooks' work."""

    def __init__(self, pg, params, names, bucket_bytes_cap, find_unused, as_view):
        self.pg = pg
        self.params = params
        self.names = names
        self.find_unused = find_unused
        self.as_view = as_view
        limits = [min(_DEFAULT_FIRST_BUCKET_BYTES, bucket_bytes_cap), bucket_bytes_cap]
        self.buckets = [_Bucket(k, params, idx)
                        for k, idx in enumerate(_bucket_assignment(params, limits))]
        self.where = {}
        for b in self.buckets:
            for i in b.params:
                self.where[i] = b
        self.armed = False             # a forward pass asked for this iteration's sync
        self.hooked = False            # a hook has run in this iteration
        self.ready = [False] * len(params)
        self.next_bucket = 0
        self.used = None               # find_unused_parameters: used on this rank (uint8)
        self.used_work = None
        self.incomplete = None         # names of the parameters the last iteration missed
        # what the benchmark reads (time.perf_counter()): in the last iteration, when
        # the first bucket started, when the backward pass ended on this rank, and
        # when the averaged gradients had all arrived
        self.first_start = 0.0
        self.timeline = (0.0, 0.0, 0.0)
        self.lock = threading.Lock()   # one thread at a time tests the buckets' requests
        self.wake = threading.Event()
        self.progress = None
        if pg._size > 1:
            self.progress = threading.Thread(target=_drive, args=(weakref.ref(self), self.wake),
                                             name="tensorplay-ddp-progress", daemon=True)
            self.progress.start()
            weakref.finalize(self, _stop, self.wake)

    # ---------------------------------------------------------------- iteration
    def check_prior(self):
        if self.incomplete:
            names = ", ".join(self.incomplete)
            self.incomplete = None
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a "
                "new one. This error indicates that your module has parameters that were not "
                "used in producing loss. You can enable unused parameter detection by passing "
                "the keyword argument `find_unused_parameters=True` to "
                "`tensorplay.nn.parallel.DistributedDataParallel`, and by making sure all "
                "`forward` function outputs participate in calculating loss. Parameters which "
                f"did not receive grad for rank {self.pg._rank}: {names}")
        if self.armed:
            # a forward with no backward after it (or a backward that reached no
            # parameter): drop the iteration, after the buckets already started
            self._wait_started()
            self.armed = False

    def prepare(self, outputs):
        """Arm the hooks for the backward pass of the forward that just ran."""
        self.armed = True
        self.hooked = False
        self.ready = [False] * len(self.params)
        self.next_bucket = 0
        self.used_work = None
        for b in self.buckets:
            b.pending = len(b.params)
            b.work = None
        if self.find_unused:
            self.used = np.zeros(len(self.params), np.uint8)
            reached = _reachable_leaves(outputs)
            for i, p in enumerate(self.params):
                if id(p) not in reached:
                    self._mark_ready(i, p)          # its gradient, if any, is final already

    def hook(self, i, p):
        if not self.armed:
            return
        if self.ready[i]:
            raise RuntimeError(
                f"Expected to mark a variable ready only once. Parameter {self.names[i]} has "
                f"been marked as ready twice in one DistributedDataParallel iteration (a "
                f"parameter used in a reentrant backward, or a second backward pass).")
        if not self.hooked:
            self.hooked = True
            queue_callback(self.finalize)
        if self.used is not None:
            self.used[i] = 1
        self._mark_ready(i, p)
        self._progress()

    def _mark_ready(self, i, p):
        self.ready[i] = True
        b = self.where[i]
        dst = b.slices[i]
        g = p.grad
        if g is None:
            dst.fill(0)
        elif not (self.as_view and _is_memory_of(g._data, dst)):
            np.copyto(dst, g._data.reshape(-1))
        b.pending -= 1
        if b.pending == 0:
            self._launch_ready()

    def _launch_ready(self):
        """Start every bucket that is ready and whose predecessors have all started:
        the same order on every rank, whatever order the gradients arrived in."""
        pg, buckets = self.pg, self.buckets
        while self.next_bucket < len(buckets) and buckets[self.next_bucket].pending == 0:
            if self.next_bucket == 0:
                self.first_start = time.perf_counter()
            b = buckets[self.next_bucket]
            what = (f"all_reduce (DistributedDataParallel gradient bucket {b.index} of "
                    f"{len(buckets)})")
            op = pg._op(ReduceOp.SUM, self.params[b.params[0]].dtype, what)
            b.work = pg._start(what, lambda b=b, op=op: [
                pg._comm.Iallreduce(pg._mpi.IN_PLACE, pg._spec(b.buffer), op)],
                async_op=True, lock=self.lock)
            self.next_bucket += 1
            self.wake.set()

    def _progress(self):
        """Test the buckets in flight (moving MPI on); True if some still are."""
        busy = False
        for b in self.buckets[:self.next_bucket]:
            if b.work is not None and not b.work._done:
                busy = not b.work._test() or busy
        return busy

    def _wait_started(self):
        for b in self.buckets[:self.next_bucket]:
            if b.work is not None:
                b.work.wait()

    def finalize(self):
        """At the end of the backward pass: wait for the buckets, average, write the
        averages into ``.grad``."""
        self.armed = False
        t0 = time.perf_counter()
        missing = [self.names[i] for i, r in enumerate(self.ready) if not r]
        if missing:
            self._wait_started()
            self.incomplete = missing
            return
        pg = self.pg
        if self.used is not None:
            used = self.used
            what = "all_reduce (DistributedDataParallel unused-parameter map)"
            self.used_work = pg._start(what, lambda: [
                pg._comm.Iallreduce(pg._mpi.IN_PLACE, pg._spec(used), pg._mpi.MAX)],
                async_op=True)
        self._wait_started()
        if self.used_work is not None:
            self.used_work.wait()
        self.timeline = (self.first_start, t0, time.perf_counter())
        n = pg._size
        for b in self.buckets:
            if n > 1:
                np.divide(b.buffer, n, out=b.buffer)
            for i in b.params:
                if self.used is not None and not self.used[i]:
                    continue            # unused on every rank: .grad stays as it was
                self._write_grad(self.params[i], b.slices[i])
        self.used = None

    def _write_grad(self, p, flat):
        g = p.grad
        view = flat.reshape(p._data.shape)
        if self.as_view:
            if g is not None and _is_memory_of(g._data, flat):
                g._bump()               # the average is already in it
            else:
                p.grad = _wrap(view)
            return
        if g is None:
            p.grad = _wrap(view.copy())
        elif g._data.flags.writeable and g._data.shape == view.shape:
            np.copyto(g._data, view)
            g._bump()
        else:
            p.grad = _wrap(view.copy())


def _is_memory_of(a, flat):
    """Whether array ``a`` is exactly the memory of the bucket slice ``flat``
    (a ``.grad`` made a view of its bucket, which backward added into in place)."""
    return (a.size == flat.size and a.flags.c_contiguous
            and a.__array_interface__["data"][0] == flat.__array_interface__["data"][0])


_POLL = [5e-5, 1e-3]


def _drive(reducer_ref, wake):
    """The progress thread: while buckets are in flight, test them, every 50 us
    after a bucket starts, then less often (up to every 1 ms)."""
    while True:
        wake.wait()
        wake.clear()            # a bucket started after this sets it again
        pause = _POLL[0]
        while True:
            r = reducer_ref()
            if r is None:
                return
            busy = r._progress()
            del r
            if not busy:
                break
            if wake.is_set():
                wake.clear()
                pause = _POLL[0]
            time.sleep(pause)
            pause = min(pause * 1.5, _POLL[1])


def _stop(wake):
    wake.set()                  # the thread finds its reducer gone and ends


def _hook_for(reducer_ref, i):
    def hook(p):
        r = reducer_ref()
        if r is not None:
            r.hook(i, p)
    return hook


def _sync_from_rank0(pg, tensors, what):
    """Broadcast ``tensors`` from rank 0, coalesced into one buffer per dtype."""
    if pg._size == 1:
        return
    groups = {}
    for t in tensors:
        groups.setdefault(t._data.dtype, []).append(t)
    for ts in groups.values():
        flat = np.concatenate([t._data.reshape(-1) for t in ts])
        pg._start(what, lambda flat=flat: [pg._comm.Ibcast(pg._spec(flat), root=0)])
        off = 0
        for t in ts:
            n = t._data.size
            if pg._rank != 0:
                np.copyto(t._data, flat[off:off + n].reshape(t._data.shape))
                t._bump()
            off += n


def _verify_same_model(pg, named):
    """Every rank must hold parameters of the same count, shapes and dtypes, in
    the same order: else buckets would not line up."""
    spec = ";".join(f"{tuple(p.shape)}:{p.dtype}" for _, p in named)
    digest = hashlib.sha256(spec.encode()).digest()
    mine = np.array([len(named), int.from_bytes(digest[:7], "little"),
                     int.from_bytes(digest[7:14], "little")], np.int64)
    every = np.empty((pg._size, 3), np.int64)
    pg._start("all_gather (DistributedDataParallel model check)",
              lambda: [pg._comm.Iallgather(pg._spec(mine), pg._spec(every))])
    for r in range(pg._size):
        if not np.array_equal(every[r], every[0]):
            raise RuntimeError(
                f"DDP expects same model across all ranks, but Rank {r} has {every[r][0]} "
                f"params, while rank 0 has {every[0][0]} params"
                + (" (of other shapes or dtypes)" if every[r][0] == every[0][0] else ""))


class DistributedDataParallel(Module):
    """Data parallelism over the ranks of the default process group: each rank
    runs ``module`` on its share of the batch; ``backward()`` leaves the
    gradients averaged over the ranks in every replica's ``.grad``.

    ``module`` is the wrapped model (``ddp.module``; ``state_dict`` keys carry a
    ``module.`` prefix, as PyTorch's).  At construction, rank 0's parameters and
    buffers are copied to every rank.  ``bucket_cap_mb`` (default 25) bounds a
    gradient bucket.  ``find_unused_parameters=True`` lets the forward pass
    leave some parameters out of the loss (they are found by walking the
    output's graph after each forward); without it such a parameter makes the
    next forward raise.  ``broadcast_buffers`` copies rank 0's buffers (e.g.
    BatchNorm's running statistics) to every rank before each forward.
    ``gradient_as_bucket_view=True`` makes each ``.grad`` a view of its bucket
    (no copy back).  ``no_sync()`` accumulates gradients locally.

    ``device_ids``/``output_device`` must be None (CPU).  ``static_graph`` and
    ``check_reduction`` are accepted and change nothing.
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, init_sync=True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        pg = _resolve(process_group)
        if device_ids is not None or output_device is not None:
            raise ValueError(
                f"DistributedDataParallel device_ids and output_device arguments only work with "
                f"single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                f"{device_ids}, output_device {output_device}, and module parameters "
                f"{{device(type='cpu')}}.")
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        cap = 25 if bucket_cap_mb is None else bucket_cap_mb
        if not cap > 0:
            raise ValueError(f"bucket_cap_mb must be positive, got {bucket_cap_mb}")
        self.module = module
        self.process_group = pg
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.bucket_bytes_cap = int(cap * 1024 * 1024)
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        _verify_same_model(pg, named)
        if init_sync:
            _sync_from_rank0(pg, [p for _, p in module.named_parameters()]
                             + list(module.buffers()),
                             "broadcast (DistributedDataParallel initial parameters and buffers)")
        params = [p for _, p in named]
        self._reducer = _Reducer(pg, params, [n for n, _ in named], self.bucket_bytes_cap,
                                 find_unused_parameters, gradient_as_bucket_view)
        ref = weakref.ref(self._reducer)
        handles = [p.register_post_accumulate_grad_hook(_hook_for(ref, i))
                   for i, p in enumerate(params)]
        weakref.finalize(self, _remove_all, handles)

    def forward(self, *inputs, **kwargs):
        sync = _grad_state.enabled and self.require_backward_grad_sync
        if sync:
            self._reducer.check_prior()
        if self.require_forward_param_sync and self.broadcast_buffers:
            bufs = list(self.module.buffers())
            if bufs:
                _sync_from_rank0(self.process_group, bufs,
                                 "broadcast (DistributedDataParallel buffers)")
        out = self.module(*inputs, **kwargs)
        if sync:
            self.require_forward_param_sync = True
            self._reducer.prepare(out)
        else:
            self.require_forward_param_sync = False
        return out

    @contextlib.contextmanager
    def no_sync(self):
        """Within it, forward/backward passes accumulate gradients on each rank
        without averaging them; the first pass after it averages the sum."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old


def _remove_all(handles):
    for h in handles:
        h.remove()
