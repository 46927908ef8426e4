"""One rank of a `dyngrad.distributed.run` job: torchrun's per-rank variables, then the script.

`python -m dyngrad.distributed.run_rank [--module | --no-python] TARGET ARGS...`, started by
mpiexec. The rank is read from the MPI launcher's environment (MPICH/Intel MPI hydra, Open
MPI, Slurm), so that MPI itself starts only when the script initializes a process group.
"""

from __future__ import annotations

import os
import runpy
import sys
import traceback

from . import mpi

__all__ = ["launcher_place", "main"]

# (rank, size, local rank, local size) as each MPI launcher names them
_LAUNCHERS = (
    ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
    (
        "OMPI_COMM_WORLD_RANK",
        "OMPI_COMM_WORLD_SIZE",
        "OMPI_COMM_WORLD_LOCAL_RANK",
        "OMPI_COMM_WORLD_LOCAL_SIZE",
    ),
    ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"),
)


def launcher_place() -> tuple[int, int, int, int] | None:
    """(rank, world size, local rank, local world size) from the launcher, if it says."""
    env = os.environ
    for rank, size, local_rank, local_size in _LAUNCHERS:
        if rank in env and size in env:
            r, n = int(env[rank]), int(env[size])
            return r, n, int(env.get(local_rank, r)), int(env.get(local_size, n))
    return None


def _place_from_mpi() -> tuple[int, int, int, int]:
    job = mpi.job()
    return job.rank, job.size, job.local_rank, job.local_size


def _set_environment(place) -> None:
    rank, size, local_rank, local_size = place
    errors = os.environ.get("DYNGRAD_ERROR_DIR")
    os.environ.update(
        RANK=str(rank),
        LOCAL_RANK=str(local_rank),
        WORLD_SIZE=str(size),
        LOCAL_WORLD_SIZE=str(local_size),
        ROLE_RANK=str(rank),
        ROLE_WORLD_SIZE=str(size),
    )
    if errors:
        os.environ["TORCHELASTIC_ERROR_FILE"] = os.path.join(errors, f"rank{rank}.json")


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    module = no_python = False
    while argv and argv[0] in ("--module", "--no-python"):
        module, no_python = module or argv[0] == "--module", no_python or argv[0] != "--module"
        argv.pop(0)
    if not argv:
        raise SystemExit("usage: python -m dyngrad.distributed.run_rank [--module] TARGET ...")
    place = launcher_place()
    if place is None and no_python:
        raise SystemExit(
            "dyngrad.distributed.run_rank: this MPI launcher does not say the rank in the "
            "environment, which --no-python needs"
        )
    _set_environment(place or _place_from_mpi())
    target, args = argv[0], argv[1:]
    if no_python:
        os.execvp(target, [target, *args])
    sys.argv = [target, *args]
    try:
        if module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
            runpy.run_path(target, run_name="__main__")
    except Exception:  # also before any process group exists
        _fail(*sys.exc_info())


def _fail(kind, value, tb) -> None:
    """Print the traceback as Python would for the script alone, record it, end the job."""
    while tb is not None and _is_runner_frame(tb.tb_frame):
        tb = tb.tb_next
    traceback.print_exception(kind, value, tb)
    mpi.write_error_file(int(os.environ["RANK"]), kind, value, tb)
    current = mpi.current_job()
    if current is not None and current.active and current.size > 1:
        current.abort(1)  # See Note [Ending a failed job]
    sys.exit(1)


def _is_runner_frame(frame) -> bool:
    name = frame.f_code.co_filename
    return name == __file__ or name.startswith("<frozen runpy") or name == runpy.__file__


if __name__ == "__main__":
    main()
