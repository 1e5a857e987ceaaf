"""What each rank runs under ``python -m tensorplay.distributed.run``:

    python -m tensorplay.distributed._rank script.py args...
    python -m tensorplay.distributed._rank -m module args...

It runs the script as ``__main__`` (as ``python script.py`` would) and, if it
ends with an uncaught exception or a non-zero ``sys.exit``, prints that with
this rank's number and calls ``MPI_Abort`` with the exit code, so mpiexec ends
the other ranks at once and exits with that code.
"""
import os
import runpy
import sys
import traceback


def _mpi():
    try:
        from mpi4py import MPI
    except ImportError:
        return None
    return MPI


def _ours(filename):
    return filename in (__file__, runpy.__file__) or filename == "<frozen runpy>"


def main(argv):
    if not argv:
        print("usage: python -m tensorplay.distributed._rank (script.py | -m module) [args...]",
              file=sys.stderr)
        return 2
    from ._group import _abort_job
    try:
        if argv[0] == "-m":
            sys.argv = argv[1:]
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(argv)
            sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
            runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as e:
        code = e.code
        if code is None or code == 0:
            return 0
        if not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
        _abort_job(_mpi(), [], f"exited with status {code}", code)
        return code
    except BaseException as e:     # noqa: B902  (KeyboardInterrupt too: the job must end)
        tb = e.__traceback__
        while tb is not None and tb.tb_next is not None and _ours(tb.tb_frame.f_code.co_filename):
            tb = tb.tb_next        # from the script's frame on, as python script.py shows it
        lines = "".join(traceback.format_exception(type(e), e, tb)).splitlines()
        _abort_job(_mpi(), lines, f"raised {type(e).__name__}", 1)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
