"""tensorplay.distributed without an MPI job: what works before (or without)
``init_process_group``, the launcher's command line, DDP's bucket assignment
(against PyTorch's when installed), the half-precision reduction, and
DistributedSampler (against PyTorch's).  The collectives and DDP themselves run
under mpiexec in test_distributed_mpi.py."""
import builtins
import datetime
import math
import sys

import numpy as np
import pytest

import tensorplay as tp
import tensorplay.distributed as dist
from tensorplay import nn
from tensorplay.distributed import run
from tensorplay.distributed._group import _half_reduction
from tensorplay.nn.parallel import DistributedDataParallel
from tensorplay.nn.parallel.distributed import _bucket_assignment
from tensorplay.utils.data import DataLoader, DistributedSampler

NOT_INIT = "Default process group has not been initialized"


def test_without_a_group_everything_says_so():
    assert not dist.is_initialized()
    for f in (dist.get_rank, dist.get_world_size, dist.barrier,
              lambda: dist.all_reduce(tp.ones(2)), lambda: dist.broadcast(tp.ones(2), 0),
              lambda: DistributedDataParallel(nn.Linear(2, 2)),
              lambda: DistributedSampler(range(4)), dist.destroy_process_group):
        with pytest.raises(ValueError, match=NOT_INIT):
            f()


def test_without_mpi4py_init_says_how_to_install_it(monkeypatch):
    real_import = builtins.__import__

    def no_mpi4py(name, *args, **kwargs):
        if name == "mpi4py" or name.startswith("mpi4py."):
            raise ImportError("No module named 'mpi4py'")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_mpi4py)
    with pytest.raises(ImportError, match=r"pip install 'tensorplay\[mpi\]'"):
        dist.init_process_group("mpi")
    assert not dist.is_initialized()


def test_init_checks_its_arguments_before_starting_mpi():
    with pytest.raises(ValueError, match="backend 'nccl' is not available"):
        dist.init_process_group("nccl")
    with pytest.raises(ValueError, match="init_method 'tcp://1.2.3.4:5' is not supported"):
        dist.init_process_group("mpi", init_method="tcp://1.2.3.4:5")
    with pytest.raises(TypeError, match="datetime.timedelta"):
        dist.init_process_group("mpi", timeout=30)
    with pytest.raises(ValueError, match="timeout must be positive"):
        dist.init_process_group("mpi", timeout=datetime.timedelta(0))
    assert not dist.is_initialized()


def test_reduce_ops_are_torchs():
    names = {op.name: op.value for op in dist.ReduceOp}
    assert names == {"SUM": 0, "AVG": 1, "PRODUCT": 2, "MIN": 3, "MAX": 4, "BAND": 5, "BOR": 6,
                     "BXOR": 7}
    pytest.importorskip("torch")
    import torch.distributed as tdist
    for name, value in names.items():
        assert int(getattr(tdist.ReduceOp, name)) == value


def test_names_are_torch_distributeds():
    pytest.importorskip("torch")
    import torch.distributed as tdist
    missing = [n for n in dist.__all__ if not hasattr(tdist, n)]
    assert missing == [], missing
    assert dist.default_pg_timeout < tdist.default_pg_timeout     # ours: minutes, not half an hour


@pytest.mark.parametrize("npdt", [np.float16, "bfloat16"])
@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.minimum, np.maximum])
def test_half_reduction_works_on_raw_bits(npdt, ufunc):
    npdt = tp.bfloat16.np if npdt == "bfloat16" else np.dtype(npdt)
    rng = np.random.default_rng(0)
    a = rng.uniform(-2, 2, 33).astype(npdt)
    b = rng.uniform(-2, 2, 33).astype(npdt)
    inout = bytearray(b.view(np.uint16).tobytes())
    _half_reduction(ufunc, npdt)(memoryview(a.view(np.uint16)), memoryview(inout), None)
    got = np.frombuffer(inout, npdt)
    want = ufunc(a.astype(np.float32), b.astype(np.float32)).astype(npdt)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))


# ------------------------------------------------------------------ the launcher
def test_launcher_command_for_open_mpi_as_root():
    cmd, env = run.build_command(4, "train.py", ["--epochs", "3"], mpiexec="/x/mpiexec",
                                 flavour="openmpi", is_root=True, python="/py")
    assert cmd[:4] == ["/x/mpiexec", "-n", "4", "--oversubscribe"]
    assert cmd[-6:] == ["/py", "-m", "tensorplay.distributed._rank", "train.py", "--epochs", "3"]
    assert env["OMPI_ALLOW_RUN_AS_ROOT"] == env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] == "1"


def test_launcher_command_with_a_hostfile_or_mpich(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    cmd, env = run.build_command(8, "pkg.train", [], module=True, hostfile="hosts",
                                 mpiexec="mpiexec", flavour="openmpi", is_root=False, python="py")
    assert cmd == ["mpiexec", "-n", "8", "--hostfile", "hosts", "py", "-m",
                   "tensorplay.distributed._rank", "-m", "pkg.train"]
    assert env == {}                       # the user's OMP_NUM_THREADS stands; not root
    monkeypatch.delenv("OMP_NUM_THREADS")
    cmd, env = run.build_command(2, "t.py", [], mpiexec="mpiexec", flavour="mpich",
                                 is_root=True, python="py")
    assert cmd == ["mpiexec", "-n", "2", "py", "-m", "tensorplay.distributed._rank", "t.py"]
    assert env == {"OMP_NUM_THREADS": "1"}


def test_launcher_dry_run_and_missing_mpiexec(capsys, monkeypatch):
    assert run.main(["-n", "3", "--dry-run", "--mpiexec", sys.executable, "t.py", "a"]) == 0
    line = capsys.readouterr().out
    assert f"{sys.executable} -n 3" in line and line.rstrip().endswith("t.py a")
    monkeypatch.setattr(run, "find_mpiexec", lambda: None)
    assert run.main(["-n", "2", "t.py"]) == 127
    assert "pip install 'tensorplay[mpi]'" in capsys.readouterr().err


def test_rank_bootstrap_runs_the_script_as_main(tmp_path, capsys):
    from tensorplay.distributed import _rank
    script = tmp_path / "s.py"
    script.write_text("import sys\nprint('main' if __name__ == '__main__' else 'no', "
                      "sys.argv[1:])\n")
    argv, path0 = sys.argv, sys.path[0]
    try:
        assert _rank.main([str(script), "x", "y"]) == 0
    finally:
        sys.argv, sys.path[0] = argv, path0
    assert capsys.readouterr().out == "main ['x', 'y']\n"


# ------------------------------------------------------------------ DDP's buckets
def _params(*shapes, dtype=tp.float32):
    return [tp.zeros(s, dtype=dtype) for s in shapes]


def test_buckets_take_parameters_in_reverse_order_up_to_the_cap():
    ps = _params((100,), (50,), (300,), (10,))               # 400, 200, 1200, 40 bytes
    assert _bucket_assignment(ps, [1000]) == [[3, 2], [1, 0]]
    assert _bucket_assignment(ps, [100, 1000]) == [[3, 2], [1, 0]]
    assert _bucket_assignment(ps, [30, 250]) == [[3], [2], [1, 0]]
    assert _bucket_assignment(ps, [10 ** 9]) == [[3, 2, 1, 0]]


def test_buckets_keep_dtypes_apart():
    ps = _params((4,), (4,)) + _params((4,), dtype=tp.float64) + _params((4,))
    assert _bucket_assignment(ps, [10 ** 9]) == [[3, 1, 0], [2]]


@pytest.mark.parametrize("limits", [[1000], [100, 1000], [30, 250], [64, 64], [10 ** 9]])
def test_buckets_as_torchs(limits):
    torch = pytest.importorskip("torch")
    from torch.distributed import _compute_bucket_assignment_by_size
    rng = np.random.default_rng(1)
    shapes = [tuple(int(k) for k in rng.integers(1, 40, rng.integers(1, 3))) for _ in range(12)]
    dts = [tp.float32 if rng.random() < 0.7 else tp.float64 for _ in shapes]
    mine = _bucket_assignment([tp.zeros(s, dtype=d) for s, d in zip(shapes, dts)], limits)
    tdt = {tp.float32: torch.float32, tp.float64: torch.float64}
    rev = list(reversed(range(len(shapes))))
    theirs, _ = _compute_bucket_assignment_by_size(
        [torch.zeros(shapes[i], dtype=tdt[dts[i]]) for i in rev], limits, [False] * len(rev))
    assert mine == [[rev[j] for j in b] for b in theirs]


def test_ddp_is_in_nn_parallel_and_knows_its_arguments():
    assert nn.parallel.DistributedDataParallel is DistributedDataParallel
    torch = pytest.importorskip("torch")
    import inspect
    ours = inspect.signature(DistributedDataParallel).parameters
    theirs = inspect.signature(torch.nn.parallel.DistributedDataParallel).parameters
    assert list(ours) == list(theirs)[:len(ours)]
    # torch 2.13's broadcast_buffers=None means True unless its forward_sync_buffers says not
    assert [p for p in ours if ours[p].default != theirs[p].default] == ["broadcast_buffers"]
    assert ours["broadcast_buffers"].default is True


# ------------------------------------------------------------------ DistributedSampler
CASES = [(10, 3, False), (10, 3, True), (2, 5, False), (7, 7, True), (9, 3, True), (0, 2, False),
         (5, 1, False)]


@pytest.mark.parametrize("n,replicas,drop_last", CASES)
def test_sampler_shares_cover_the_dataset(n, replicas, drop_last):
    shares = []
    for r in range(replicas):
        s = DistributedSampler(range(n), num_replicas=replicas, rank=r, shuffle=True, seed=3,
                               drop_last=drop_last)
        s.set_epoch(1)
        shares.append(list(s))
        assert len(shares[-1]) == len(s)
    lengths = {len(x) for x in shares}
    assert len(lengths) == 1                       # equal shares: the ranks stay in step
    k = lengths.pop()
    assert k == (n // replicas if drop_last else math.ceil(n / replicas))
    every = [i for x in shares for i in x]
    assert set(every) <= set(range(n))
    if drop_last:
        assert len(set(every)) == len(every) == k * replicas      # disjoint
    else:
        assert set(every) == set(range(n))                        # all covered (padded)


def test_sampler_order_depends_on_seed_and_epoch_only():
    def share(seed, epoch, rank=0):
        s = DistributedSampler(range(50), num_replicas=2, rank=rank, seed=seed)
        s.set_epoch(epoch)
        return list(s)
    tp.manual_seed(123)
    a = share(0, 0)
    tp.manual_seed(456)                            # the global RNG plays no part
    assert share(0, 0) == a
    assert share(0, 1) != a and share(1, 0) != a
    assert sorted(share(0, 2) + share(0, 2, 1)) == list(range(50))
    unshuffled = DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False)
    assert list(unshuffled) == [1, 3, 0]


@pytest.mark.parametrize("n,replicas,drop_last", CASES)
def test_sampler_without_shuffle_as_torchs(n, replicas, drop_last):
    pytest.importorskip("torch")
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    for r in range(replicas):
        ours = DistributedSampler(range(n), replicas, r, shuffle=False, drop_last=drop_last)
        theirs = TorchSampler(range(n), replicas, r, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
        assert (ours.num_samples, ours.total_size) == (theirs.num_samples, theirs.total_size)


def test_sampler_errors_and_dataloader_use():
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="Invalid rank -1"):
        DistributedSampler(range(4), num_replicas=2, rank=-1)
    data = tp.utils.data.TensorDataset(tp.arange(10.))
    loader = DataLoader(data, batch_size=2,
                        sampler=DistributedSampler(data, num_replicas=2, rank=1, shuffle=False))
    assert [b[0].tolist() for b in loader] == [[1.0, 3.0], [5.0, 7.0], [9.0]]



# ------------------------------------------------------------------ timeouts, without MPI
class _NeverDone:
    """Stands in for mpi4py's MPI module: requests that never complete."""
    class Request:
        @staticmethod
        def Testall(reqs, statuses=None):
            return False


def _stub_group(seconds):
    from tensorplay.distributed._group import ProcessGroup
    pg = ProcessGroup.__new__(ProcessGroup)
    pg._mpi, pg._comm, pg._rank, pg._size = _NeverDone, object(), 1, 4
    pg._timeout_s, pg._broken = seconds, None
    return pg


def test_an_operation_that_cannot_complete_times_out_naming_itself():
    pg = _stub_group(0.05)
    work = dist.Work(pg, ["request"], "all_gather_into_tensor")
    assert not work.is_completed()
    with pytest.raises(dist.DistBackendError,
                       match=r"\[rank 1\] all_gather_into_tensor timed out after 0.05 s: not "
                             r"every rank of the 4 reached it"):
        work.wait()
    assert isinstance(work.exception(), dist.DistBackendError) and not work.is_success()
    with pytest.raises(dist.DistBackendError, match="unusable after an earlier failure "
                                                    r"\(all_gather_into_tensor timed out\)"):
        dist.Work(pg, ["request"], "barrier").wait()


def test_a_shorter_wait_gives_up_without_breaking_the_group():
    pg = _stub_group(600)
    work = dist.Work(pg, ["request"], "broadcast")
    with pytest.raises(dist.DistBackendError, match=r"broadcast did not complete within "
                                                    r"wait\(timeout=0.01 s\)"):
        work.wait(timeout=datetime.timedelta(milliseconds=10))
    assert pg._broken is None
    with pytest.raises(TypeError, match="datetime.timedelta"):
        work.wait(timeout=1)
