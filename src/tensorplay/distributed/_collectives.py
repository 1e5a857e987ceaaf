"""The collectives and point-to-point operations, with torch.distributed's
signatures.

Each one works in place on the tensors' NumPy memory: a C-contiguous tensor is
handed to MPI as it is; a non-contiguous one goes through a contiguous copy that
is written back when the operation completes.  With ``async_op=True`` the call
returns a ``Work`` at once; otherwise it returns when the operation is done on
this rank.  None of them is differentiable (as in PyTorch, where the
collectives are not autograd-aware either): they write the tensor's memory
directly and bump its version, so a backward that saved the old values raises
instead of using the new ones.
"""
import numpy as np

from .._tensor import Tensor
from ._group import ReduceOp, _resolve


def _check_tensor(t, name="tensor"):
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"tensorplay.Tensor but got {type(t)} instead.")


def _check_list(ts, name):
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"List[tensorplay.Tensor] but got {type(ts)} instead.")


def _writable(t, what):
    """``t``'s array if MPI may write it (possibly through a contiguous copy)."""
    a = t._data
    if a.size > 1 and 0 in a.strides:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    if not a.flags.writeable:
        raise RuntimeError(f"{what}: the tensor's memory is read-only")
    return a


def _inout(t, what):
    """(contiguous array MPI reads and writes, the tensor's array to copy it back
    into afterwards or None)."""
    a = _writable(t, what)
    if a.flags.c_contiguous:
        return a, None
    return np.ascontiguousarray(a), a


def _contiguous(t):
    return np.ascontiguousarray(t._data)


def _reduce_op(op):
    if not isinstance(op, ReduceOp):
        raise ValueError(f"op must be a tensorplay.distributed.ReduceOp, got {op!r}")
    return op


def _rank_arg(pg, rank, group_rank, what, role):
    """The peer rank from ``src``/``dst`` or ``group_src``/``group_dst`` (the
    same here: the only group is the world)."""
    if rank is not None and group_rank is not None and rank != group_rank:
        raise ValueError(f"{what}: pass either {role} or group_{role}, not both")
    r = rank if rank is not None else group_rank
    if r is None:
        r = 0
    if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or not 0 <= r < pg._size:
        raise RuntimeError(f"{what}: invalid {role} rank {r!r} (the group has ranks 0 to "
                           f"{pg._size - 1})")
    return int(r)


def _same_kind(t, ref, what, name):
    if t.dtype != ref.dtype or tuple(t.shape) != tuple(ref.shape):
        raise RuntimeError(f"{what}: {name} is {t.dtype} of shape {tuple(t.shape)}; expected "
                           f"{ref.dtype} of shape {tuple(ref.shape)}, as the input tensor")


def _per_rank(pg, tensors, ref, what, name, error=RuntimeError, written=False):
    """Check ``tensors``: one per rank, each of ``ref``'s dtype and shape (and
    writable, if MPI writes them)."""
    _check_list(tensors, name)
    if len(tensors) != pg._size:
        raise error(f"{what}: {name} has {len(tensors)} tensors; it needs one per rank "
                    f"({pg._size})")
    for i, t in enumerate(tensors):
        _same_kind(t, ref, what, f"{name}[{i}]")
        if written:
            _writable(t, what)
    return list(tensors)


def _finish(arr, back, divide=None, parts=None):
    """What to do once the MPI operation has completed: divide by the world size
    (AVG), copy a contiguous stand-in back into a non-contiguous tensor, or split
    a gathered buffer into the caller's list of tensors."""
    if back is None and divide is None and parts is None:
        return None

    def finish(work):
        if divide is not None:
            np.divide(arr, divide, out=arr)
        if back is not None:
            np.copyto(back, arr)
        if parts is not None:
            for i, t in enumerate(parts):
                np.copyto(t._data, arr[i])
    return finish


# ------------------------------------------------------------------------ collectives
def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` over all ranks with ``op``; every rank gets the result,
    in place.

    float16 and bfloat16 are reduced by a NumPy ufunc inside a user-defined MPI
    operation on their raw 16 bits (MPI has no half type): each step computes in
    float32 and rounds back.  ``ReduceOp.AVG`` sums and divides by the world size.
    """
    pg = _resolve(group)
    _check_tensor(tensor)
    op = _reduce_op(op)
    mop = pg._op(op, tensor.dtype, "all_reduce")
    arr, back = _inout(tensor, "all_reduce")
    in_place = pg._mpi.IN_PLACE
    return pg._start("all_reduce",
                     lambda: [pg._comm.Iallreduce(in_place, pg._spec(arr), mop)],
                     _finish(arr, back, pg._size if op is ReduceOp.AVG else None),
                     [tensor], async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copy rank ``src``'s ``tensor`` into ``tensor`` on every rank."""
    pg = _resolve(group)
    _check_tensor(tensor)
    if src is None and group_src is None:
        raise ValueError("broadcast: src (the rank that sends) is required")
    src = _rank_arg(pg, src, group_src, "broadcast", "src")
    arr, back = _inout(tensor, "broadcast")
    return pg._start("broadcast", lambda: [pg._comm.Ibcast(pg._spec(arr), root=src)],
                     _finish(arr, back), [tensor], async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduce ``tensor`` over all ranks with ``op`` into ``tensor`` on rank
    ``dst`` (default 0); the other ranks' tensors are left as they are."""
    pg = _resolve(group)
    _check_tensor(tensor)
    op = _reduce_op(op)
    dst = _rank_arg(pg, dst, group_dst, "reduce", "dst")
    mop = pg._op(op, tensor.dtype, "reduce")
    if pg._rank == dst:
        arr, back = _inout(tensor, "reduce")
        start = lambda: [pg._comm.Ireduce(pg._mpi.IN_PLACE, pg._spec(arr), mop, root=dst)]  # noqa: E731
        return pg._start("reduce", start,
                         _finish(arr, back, pg._size if op is ReduceOp.AVG else None),
                         [tensor], async_op)
    send = _contiguous(tensor)
    return pg._start("reduce", lambda: [pg._comm.Ireduce(pg._spec(send), None, mop, root=dst)],
                     None, (), async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every rank's ``tensor``, in rank order, into ``tensor_list`` (one tensor
    per rank, each of ``tensor``'s shape and dtype) on every rank."""
    pg = _resolve(group)
    _check_tensor(tensor)
    outs = _per_rank(pg, tensor_list, tensor, "all_gather", "tensor_list", written=True)
    send = _contiguous(tensor)
    recv = np.empty((pg._size,) + send.shape, send.dtype)
    return pg._start("all_gather",
                     lambda: [pg._comm.Iallgather(pg._spec(send), pg._spec(recv))],
                     _finish(recv, None, parts=outs), outs, async_op)


def _sizes_match(big, small, n, what, big_name):
    if big.dtype != small.dtype:
        raise RuntimeError(f"{what}: output tensor must have the same type as input tensor "
                           f"({big.dtype} and {small.dtype})")
    if big.numel() != n * small.numel():
        raise RuntimeError(f"{what}: {big_name} tensor size must be equal to world_size "
                           f"({n}) times {'input' if big_name == 'output' else 'output'} tensor "
                           f"size ({big.numel()} elements, expected {n * small.numel()})")


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every rank's ``input_tensor``, in rank order, into ``output_tensor``
    (world size times as many elements: concatenated along dimension 0, or
    stacked along a new first dimension)."""
    pg = _resolve(group)
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    _sizes_match(output_tensor, input_tensor, pg._size, "all_gather_into_tensor", "output")
    arr, back = _inout(output_tensor, "all_gather_into_tensor")
    send = _contiguous(input_tensor)
    return pg._start("all_gather_into_tensor",
                     lambda: [pg._comm.Iallgather(pg._spec(send), pg._spec(arr))],
                     _finish(arr, back), [output_tensor], async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input`` (world size times ``output``'s elements) over all ranks
    with ``op``; rank ``r`` gets the ``r``-th chunk of the result in ``output``."""
    pg = _resolve(group)
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    _sizes_match(input, output, pg._size, "reduce_scatter_tensor", "input")
    op = _reduce_op(op)
    mop = pg._op(op, output.dtype, "reduce_scatter_tensor")
    arr, back = _inout(output, "reduce_scatter_tensor")
    send = _contiguous(input)
    return pg._start("reduce_scatter_tensor",
                     lambda: [pg._comm.Ireduce_scatter_block(pg._spec(send), pg._spec(arr), mop)],
                     _finish(arr, back, pg._size if op is ReduceOp.AVG else None),
                     [output], async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """``reduce_scatter_tensor`` with the input given as one tensor per rank."""
    pg = _resolve(group)
    _check_tensor(output, "output")
    _per_rank(pg, input_list, output, "reduce_scatter", "input_list")
    op = _reduce_op(op)
    mop = pg._op(op, output.dtype, "reduce_scatter")
    arr, back = _inout(output, "reduce_scatter")
    send = np.ascontiguousarray(np.stack([t._data for t in input_list]))
    return pg._start("reduce_scatter",
                     lambda: [pg._comm.Ireduce_scatter_block(pg._spec(send), pg._spec(arr), mop)],
                     _finish(arr, back, pg._size if op is ReduceOp.AVG else None),
                     [output], async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Every rank's ``tensor``, in rank order, into ``gather_list`` on rank
    ``dst`` (default 0); the other ranks pass no list."""
    pg = _resolve(group)
    _check_tensor(tensor)
    dst = _rank_arg(pg, dst, group_dst, "gather", "dst")
    send = _contiguous(tensor)
    if pg._rank != dst:
        if gather_list:
            raise ValueError("Argument ``gather_list`` must NOT be specified on "
                             "non-destination ranks.")
        return pg._start("gather",
                         lambda: [pg._comm.Igather(pg._spec(send), None, root=dst)],
                         None, (), async_op)
    outs = _per_rank(pg, [] if gather_list is None else gather_list, tensor, "gather",
                     "gather_list", ValueError, written=True)
    recv = np.empty((pg._size,) + send.shape, send.dtype)
    return pg._start("gather",
                     lambda: [pg._comm.Igather(pg._spec(send), pg._spec(recv), root=dst)],
                     _finish(recv, None, parts=outs), outs, async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """``scatter_list[r]`` of rank ``src`` (default 0) into ``tensor`` on each
    rank ``r``; the other ranks pass no list."""
    pg = _resolve(group)
    _check_tensor(tensor)
    src = _rank_arg(pg, src, group_src, "scatter", "src")
    arr, back = _inout(tensor, "scatter")
    if pg._rank != src:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source "
                             "ranks.")
        return pg._start("scatter",
                         lambda: [pg._comm.Iscatter(None, pg._spec(arr), root=src)],
                         _finish(arr, back), [tensor], async_op)
    _per_rank(pg, [] if scatter_list is None else scatter_list, tensor, "scatter",
              "scatter_list", ValueError)
    send = np.ascontiguousarray(np.stack([t._data for t in scatter_list]))
    return pg._start("scatter",
                     lambda: [pg._comm.Iscatter(pg._spec(send), pg._spec(arr), root=src)],
                     _finish(arr, back), [tensor], async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Return when every rank has called ``barrier``."""
    pg = _resolve(group)
    return pg._start("barrier", lambda: [pg._comm.Ibarrier()], None, (), async_op)


# ------------------------------------------------------------------------ point to point
def _peer(pg, rank, group_rank, what, role):
    if rank is None and group_rank is None:
        raise ValueError(f"{what}: {role} (the other rank) is required")
    r = _rank_arg(pg, rank, group_rank, what, role)
    if r == pg._rank:
        word = "destination" if role == "dst" else "source"
        raise ValueError(f"Invalid {word} rank: {word} rank should not be the same as the rank "
                         f"of the current process.")
    return r


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Start sending ``tensor`` to rank ``dst``; a ``Work`` to wait on."""
    pg = _resolve(group)
    _check_tensor(tensor)
    dst = _peer(pg, dst, group_dst, "send", "dst")
    send = _contiguous(tensor)
    return pg._start("send", lambda: [pg._comm.Isend(pg._spec(send), dst, tag)],
                     None, (), True)


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to rank ``dst`` (which calls ``recv``)."""
    isend(tensor, dst, group, tag, group_dst).wait()


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Start receiving into ``tensor`` from rank ``src`` (None: any rank); a
    ``Work`` to wait on, whose ``source_rank()`` names the sender."""
    pg = _resolve(group)
    _check_tensor(tensor)
    MPI = pg._mpi
    src = MPI.ANY_SOURCE if src is None and group_src is None else \
        _peer(pg, src, group_src, "recv", "src")
    arr, back = _inout(tensor, "recv")
    status = [MPI.Status()]
    copy_back = _finish(arr, back)

    def finish(work):
        work._source = status[0].Get_source()
        if copy_back is not None:
            copy_back(work)
    return pg._start("recv", lambda: [pg._comm.Irecv(pg._spec(arr), src, tag)],
                     finish, [tensor], True, statuses=status)


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from rank ``src`` (None: any rank); the sender's rank."""
    work = irecv(tensor, src, group, tag, group_src)
    work.wait()
    return work.source_rank()
