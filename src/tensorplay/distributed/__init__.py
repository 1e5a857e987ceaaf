"""tensorplay.distributed: data-parallel training across processes and
machines, on MPI (through mpi4py), with ``torch.distributed``'s names.

Start the processes with MPI's launcher, then join the job::

    mpiexec -n 4 python train.py                       # or:
    python -m tensorplay.distributed.run -n 4 train.py

    import tensorplay.distributed as dist
    dist.init_process_group("mpi")
    dist.all_reduce(t)                                 # in place, on every rank

``pip install 'tensorplay[mpi]'`` installs mpi4py and an Open MPI runtime.
Without them this package still imports; ``init_process_group`` raises an
``ImportError`` that says so.  See ``tensorplay.nn.parallel.DistributedDataParallel``
and ``tensorplay.utils.data.DistributedSampler``.
"""
import importlib.util

from ._group import (Backend, DistBackendError, DistError, GroupMember, ProcessGroup,  # noqa: F401
                     ReduceOp, Work, default_pg_timeout, destroy_process_group, get_backend,
                     get_rank, get_world_size, group, init_process_group, is_initialized)
from ._collectives import (all_gather, all_gather_into_tensor, all_reduce, barrier,  # noqa: F401
                           broadcast, gather, irecv, isend, recv, reduce, reduce_scatter,
                           reduce_scatter_tensor, scatter, send)


def is_available():
    """Whether the package can run: mpi4py is importable (MPI itself is only
    started by ``init_process_group``)."""
    return importlib.util.find_spec("mpi4py") is not None


def is_mpi_available():
    return is_available()


__all__ = [
    "Backend", "DistBackendError", "DistError", "GroupMember", "ProcessGroup", "ReduceOp", "Work",
    "all_gather", "all_gather_into_tensor", "all_reduce", "barrier", "broadcast",
    "default_pg_timeout", "destroy_process_group", "gather", "get_backend", "get_rank",
    "get_world_size", "group", "init_process_group", "irecv", "is_available",
    "is_initialized", "is_mpi_available", "isend", "recv", "reduce", "reduce_scatter",
    "reduce_scatter_tensor", "scatter", "send",
]
