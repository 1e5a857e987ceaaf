"""tensorplay.distributed under real MPI jobs: ``mpiexec -n 2`` and ``-n 4`` run
tests/distributed/dist_worker.py (every collective against NumPy, DDP against
one process on the whole batch), and jobs where a rank fails must end at once,
non-zero, with that rank named.

Skipped when mpi4py or an ``mpiexec`` is missing (``pip install -e ".[test]"``
installs both).  Each job has a hard time limit: a job that hangs fails its
test instead of the suite.
"""
import importlib.util
import os
import signal
import subprocess
import sys

import pytest

from tensorplay.distributed.run import build_command, find_mpiexec

MPIEXEC = find_mpiexec()
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mpi4py") is None or MPIEXEC is None,
    reason="needs mpi4py and mpiexec: pip install 'tensorplay[mpi]'")

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "distributed", "dist_worker.py")
LIMIT = 240          # seconds a job may take before it counts as hung (a loaded CI machine)


def _env(extra):
    env = {**os.environ, **extra}
    src = os.path.join(os.path.dirname(HERE), "src")
    # the checkout's tensorplay in the ranks too (also when it is not installed)
    env["PYTHONPATH"] = os.pathsep.join([src] + [p for p in [env.get("PYTHONPATH")] if p])
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def _run(cmd, env):
    """(exit code, stdout, stderr) of a job, killed whole if it outlives LIMIT."""
    p = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        pytest.fail(f"the MPI job {cmd} hung for {LIMIT} s\nstdout:\n{out}\nstderr:\n{err}")
    return p.returncode, out, err


def _job(n, *args):
    cmd, extra = build_command(n, WORKER, list(args), mpiexec=MPIEXEC)
    return _run(cmd, _env(extra))


@pytest.fixture(scope="module", params=[2, 4], ids=["2 ranks", "4 ranks"])
def checks_job(request):
    """One job per world size runs both suites (each MPI job costs seconds to start)."""
    n = request.param
    rc, out, err = _job(n, "collectives", "ddp")
    return n, rc, out, err


def _suite_ok(job, suite):
    n, rc, out, err = job
    assert rc == 0, f"exit {rc}\nstdout:\n{out}\nstderr:\n{err[-6000:]}"
    done = sorted(line.split()[3] for line in out.splitlines()
                  if line.startswith(f"OK {suite} rank "))
    assert done == sorted(str(r) for r in range(n)), out
    counts = {int(line.split(": ")[1].split()[0]) for line in out.splitlines()
              if line.startswith(f"OK {suite} rank ")}
    assert min(counts) > (1000 if suite == "collectives" else 100), counts


def test_collectives_match_numpy(checks_job):
    _suite_ok(checks_job, "collectives")


def test_ddp_matches_one_process(checks_job):
    _suite_ok(checks_job, "ddp")


def test_a_rank_that_raises_ends_the_job():
    # plain mpiexec, no launcher: the hook init_process_group installs aborts the job
    rc, out, err = _run([MPIEXEC, "-n", "2"] + _openmpi_flags() + [sys.executable, WORKER,
                                                                   "raise"],
                        _env(_root_env()))
    assert rc != 0
    assert "[rank1]: ValueError: rank 1 fails on purpose" in err, err
    assert "rank 1 raised ValueError; aborting the job" in err
    assert "the job went on" not in out


def test_the_launcher_forwards_a_failing_ranks_exit_code():
    cmd = [sys.executable, "-m", "tensorplay.distributed.run", "-n", "2", "--mpiexec", MPIEXEC,
           WORKER, "exit"]
    rc, out, err = _run(cmd, _env({}))
    assert rc == 3, f"exit {rc}\n{out}\n{err}"
    assert "rank 1 exited with status 3" in err
    assert "the job went on" not in out


def test_a_rank_that_stops_calling_collectives_trips_the_timeout():
    rc, out, err = _job(2, "stall")      # timeout=2 s; rank 1 sleeps for 600 s
    assert rc != 0
    assert "DistBackendError: [rank 0] all_reduce timed out after 2 s" in err, err
    assert "the job went on" not in out


def _openmpi_flags():
    cmd, _ = build_command(2, WORKER, [], mpiexec=MPIEXEC)
    return ["--oversubscribe"] if "--oversubscribe" in cmd else []


def _root_env():
    return build_command(2, WORKER, [], mpiexec=MPIEXEC)[1]
