"""The torch oracle on one thread, and a time limit on every data test (workers can hang)."""

from __future__ import annotations

import signal
import threading

import pytest

HANG_LIMIT = 60  # seconds; the slowest data test takes a few


@pytest.fixture
def torch(torch):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield torch
    torch.set_num_threads(threads)


@pytest.fixture(autouse=True)
def hang_guard():
    """Fail a test that waits forever (on a dead worker, say) instead of hanging the run.

    SIGALRM's handler raises in the main thread, interrupting even a blocking read; forked
    workers do not inherit the timer.
    """
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return

    def fail(signum, frame):
        raise TimeoutError(f"data test still running after {HANG_LIMIT} s: a hang")

    previous = signal.signal(signal.SIGALRM, fail)
    signal.setitimer(signal.ITIMER_REAL, HANG_LIMIT)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
