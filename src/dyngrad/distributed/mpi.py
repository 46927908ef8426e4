"""MPI through mpi4py, the engine under dyngrad's torch.distributed: the only module naming it.

# Note [Ending a failed job]
# MPI knows nothing of a rank that failed: its peers wait in their next collective forever, and
# the failed rank itself hangs in MPI_Finalize waiting for them. So, as torchrun stops a job
# when one worker fails: (1) an exception nobody catches prints its traceback and aborts the
# whole job (MPI_Abort); (2) a rank that exits any other way (sys.exit(1), the doctor's runner
# returning an error status) first tells every peer that it left, on a channel of its own, and
# a peer waiting for it in a collective raises DistBackendError instead of hanging; (3) every
# wait polls against the group's timeout (init_process_group's `timeout`), as torch's
# collectives time out. A leaving rank lingers (up to LINGER seconds) until every peer has left
# too: a launcher such as hydra kills the whole job the moment one rank exits with an error
# status, which would cut off the peer's report (its traceback half written) before it ends
# the job itself. A peer that ends the job (MPI_Abort) ends the lingering rank with it.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import sys
import time
import traceback

import numpy as np

from .names import DistBackendError

__all__ = ["available", "job", "current_job", "wait", "launched_by_mpi", "write_error_file"]

LEFT = 7  # the tag of "this rank left the job" messages, on the control communicator
GRACE = 1.0  # seconds a wait goes on after a member left, for what it sent before leaving
LINGER = 15.0  # seconds a leaving rank waits for its peers to leave or end the job
SETTLE = 0.5  # seconds an aborting rank gives the launcher to pass on what was written
SPIN = 1e-3  # seconds a wait polls without sleeping
PAUSE = 1e-4  # seconds between polls after that
_LAUNCHER_VARIABLES = ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK")

_job: Job | None = None


def available() -> bool:
    """Whether mpi4py is installed (found without loading MPI, which would start it)."""
    return importlib.util.find_spec("mpi4py") is not None


def launched_by_mpi() -> bool:
    """Whether an MPI launcher (mpiexec, mpirun, srun) started this process."""
    return any(name in os.environ for name in _LAUNCHER_VARIABLES)


def current_job() -> Job | None:
    """The MPI job if MPI was started in this process, else None."""
    return _job


def job() -> Job:
    """This process's place in the MPI job; the first call starts MPI."""
    global _job
    if _job is None:
        try:
            from mpi4py import MPI
        except ImportError as exc:
            raise RuntimeError(
                "torch.distributed in dyngrad runs on MPI through mpi4py, which could not be "
                f"loaded ({exc}); install it with `pip install 'dyngrad[distributed]'`"
            ) from exc
        _job = Job(MPI)
    return _job


class Job:
    """The MPI job: this rank, the world, and the channels every process group shares."""

    def __init__(self, MPI) -> None:
        self.MPI = MPI
        world = MPI.COMM_WORLD
        self.world = world
        self.rank, self.size = world.Get_rank(), world.Get_size()
        self.control = world.Dup()  # "I left" messages: See Note [Ending a failed job]
        self.tools = world.Dup()  # tools watching the job (the doctor), apart from user traffic
        self.left: set[int] = set()
        self.active = False  # a default process group exists
        node = world.Split_type(MPI.COMM_TYPE_SHARED)  # the ranks sharing this machine
        self.local_rank, self.local_size = node.Get_rank(), node.Get_size()
        node.Free()
        # a thread of ours may call MPI if MPI was started for threads (mpi4py's default; a
        # script that started MPI itself may have asked for less), and it only pays where
        # each rank has a core to spare for it
        self.threads = MPI.Query_thread() == MPI.THREAD_MULTIPLE and (
            (os.cpu_count() or 1) >= 2 * self.local_size
        )
        self.aborting = False
        self._token = np.zeros(1, np.int64)
        self._listen = self.control.Irecv(self._token, source=MPI.ANY_SOURCE, tag=LEFT)
        atexit.register(self.leave)
        if self.size > 1:
            _abort_on_uncaught(self)

    def poll_left(self) -> set[int]:
        """The world ranks that have left the job (exited, or are exiting)."""
        status = self.MPI.Status()
        while self._listen is not None and self._listen.Test(status):
            self.left.add(status.Get_source())
            self._listen = self.control.Irecv(self._token, source=self.MPI.ANY_SOURCE, tag=LEFT)
        return self.left

    def leave(self) -> None:
        """At exit: tell every peer this rank is gone (See Note [Ending a failed job])."""
        MPI = self.MPI
        if self.aborting or MPI.Is_finalized():
            return
        mine = np.full(1, self.rank, np.int64)
        sends = [
            self.control.Isend(mine, dest=rank, tag=LEFT)
            for rank in range(self.size)
            if rank != self.rank
        ]
        deadline = time.monotonic() + 1.0
        while sends and not MPI.Request.Testall(sends) and time.monotonic() < deadline:
            time.sleep(1e-3)
        # a peer waiting for this rank reports it and ends the job; one that finishes leaves
        peers = self.size - 1
        deadline = time.monotonic() + LINGER
        while len(self.poll_left()) < peers and time.monotonic() < deadline:
            time.sleep(1e-3)
        if self._listen is not None:
            self._listen.Cancel()
            self._listen.Wait()
            self._listen = None

    def abort(self, code: int, error=None) -> None:
        """End the whole job now (all ranks), after recording `error` for the launcher."""
        self.aborting = True
        if error is not None:
            write_error_file(self.rank, *error)
        sys.stdout.flush()
        sys.stderr.flush()
        # the launcher forwards each rank's output through its own pipes, and MPI_Abort makes
        # it kill the job at once: lines already written (this rank's traceback, a peer's
        # last words) could be dropped on the way. A moment lets them through.
        time.sleep(SETTLE)
        self.world.Abort(code)


def _abort_on_uncaught(job: Job) -> None:
    previous = sys.excepthook

    def excepthook(kind, value, tb):
        previous(kind, value, tb)
        if job.active and not job.MPI.Is_finalized():
            job.abort(1, (kind, value, tb))

    sys.excepthook = excepthook


def write_error_file(rank: int, kind, value, tb) -> None:
    """Record an exception where torchelastic's workers do (TORCHELASTIC_ERROR_FILE), for
    the summary of `dyngrad.distributed.run`."""
    path = os.environ.get("TORCHELASTIC_ERROR_FILE")
    if not path:
        return
    message = "".join(traceback.format_exception_only(kind, value)).strip()
    record = {
        "message": {
            "message": message,
            "extraInfo": {
                "py_callstack": "".join(traceback.format_exception(kind, value, tb)),
                "timestamp": str(int(time.time())),
            },
        },
        "rank": rank,
    }
    try:
        with open(path, "w") as f:
            json.dump(record, f)
    except OSError:
        pass


def wait(requests: list, members, timeout: float, what: str, statuses=None) -> None:
    """Wait for MPI `requests` of an operation among `members` (world ranks), polling.

    Raises DistBackendError past `timeout` seconds, or when a member left the job before
    the operation could complete (See Note [Ending a failed job]).
    """
    j = _job
    Testall = j.MPI.Request.Testall
    if Testall(requests, statuses):
        return
    start = time.monotonic()
    noticed = None
    members = set(members)
    while not Testall(requests, statuses):
        now = time.monotonic()
        if now - start > timeout:
            raise DistBackendError(_timed_out(j, what, timeout))
        gone = j.poll_left() & members
        if gone:
            noticed = noticed or now
            if now - noticed > GRACE:
                raise DistBackendError(_peer_left(j, what, sorted(gone)))
        # MPI moves a message along only inside its calls, so the first moments poll
        # without pause (yielding the core to a rank that shares it); a long wait is for a
        # peer still computing, and sleeps between polls
        if now - start < SPIN:
            os.sched_yield()
        else:
            time.sleep(PAUSE)


def _timed_out(j: Job, what: str, timeout: float) -> str:
    return (
        f"Timed out waiting {int(timeout * 1000)}ms for {what} to complete\n"
        f"[dyngrad] rank {j.rank} of {j.size} waited for ranks that never joined {what}: "
        "one of them is stuck or runs different collectives; see their output"
    )


def _peer_left(j: Job, what: str, gone: list[int]) -> str:
    ranks = ", ".join(str(rank) for rank in gone)
    return (
        f"{what} cannot complete: rank {ranks} left the job without joining it "
        f"(seen by rank {j.rank} of {j.size})\n"
        "[dyngrad] a rank that exits (or fails) ends the job: see that rank's output for why"
    )
