"""`torch.multiprocessing.spawn` and `start_processes`: run `fn(i, *args)` in `nprocs`
processes, and raise in the parent when one of them fails (its traceback, or its signal)."""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import traceback
import warnings

__all__ = [
    "ProcessContext",
    "ProcessException",
    "ProcessExitedException",
    "ProcessRaisedException",
    "spawn",
    "SpawnContext",
    "start_processes",
]

# torch starts forkserver processes from threads when this is "1"; dyngrad starts them one
# after another either way (the result is the same)
ENV_VAR_PARALLEL_START = "TORCH_MP_PARALLEL_START"
log = logging.getLogger(__name__)


class ProcessException(Exception):  # noqa: N818 - PyTorch's name
    """Matches `torch.multiprocessing.ProcessException`."""

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A child process raised: the message carries its traceback."""


class ProcessExitedException(ProcessException):
    """A child process was killed by a signal or exited with a non-zero code."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        args = (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)
        return type(self), args


def _wrap(fn, i, args, error_file):
    # runs in the child: an exception's traceback goes to a file the parent reads
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent interrupted us while stopping the others
    except Exception:
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """Matches `torch.multiprocessing.ProcessContext`: the started processes, joined
    together."""

    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {process.sentinel: i for i, process in enumerate(processes)}

    def pids(self) -> list[int]:
        return [int(process.pid) for process in self.processes]

    def _join_all(self, timeout: float) -> None:
        end = time.monotonic() + timeout
        for process in self.processes:
            process.join(max(0, end - time.monotonic()))

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """Wait for the processes (up to `timeout`); True when all have exited. When one
        failed, stop the others (SIGTERM after `grace_period`, then SIGKILL) and raise."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return not self.sentinels
        self._stop_others(grace_period)
        raise self._failure(error_index)

    def _stop_others(self, grace_period: float | None) -> None:
        if grace_period is not None:
            self._join_all(grace_period)
        for process in self.processes:
            if process.is_alive():
                log.warning("Terminating process %s via signal SIGTERM", process.pid)
                process.terminate()
        self._join_all(30 if grace_period is None else grace_period)
        for process in self.processes:
            if process.is_alive():
                log.warning("Unable to shutdown process %s via SIGTERM", process.pid)
                process.kill()
            process.join()

    def _failure(self, index: int) -> ProcessException:
        process = self.processes[index]
        if not os.access(self.error_files[index], os.R_OK):
            code = process.exitcode
            if code >= 0:
                msg = f"process {index:d} terminated with exit code {code:d}"
                return ProcessExitedException(msg, index, process.pid, code)
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"<Unknown signal {-code}>"
            msg = f"process {index:d} terminated with signal {name}"
            return ProcessExitedException(msg, index, process.pid, code, name)
        with open(self.error_files[index], "rb") as fh:
            trace = pickle.load(fh)
        msg = f"\n\n-- Process {index:d} terminated with the following error:\n{trace}"
        return ProcessRaisedException(msg, index, process.pid)


class SpawnContext(ProcessContext):
    """The old name of ProcessContext (torch warns on use)."""

    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


def _error_file() -> str:
    # a free name only: the child creates the file when it fails
    with tempfile.NamedTemporaryFile(prefix="pytorch-errorfile-", suffix=".pickle") as tf:
        return tf.name


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Matches `torch.multiprocessing.start_processes`: None when joined, else the
    ProcessContext."""
    mp = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        error_files.append(_error_file())
        process = mp.Process(target=_wrap, args=(fn, i, args, error_files[-1]), daemon=daemon)
        process.start()
        processes.append(process)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Matches `torch.multiprocessing.spawn`: `fn(i, *args)` in `nprocs` spawned processes."""
    if start_method != "spawn":
        warnings.warn(
            f"This method only supports start_method=spawn (got: {start_method}).\n"
            "To use a different start_method use:\n\t\t"
            " torch.multiprocessing.start_processes(...)",
            FutureWarning,
            stacklevel=2,
        )
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
