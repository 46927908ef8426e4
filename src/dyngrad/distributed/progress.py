"""A thread that moves started MPI operations along while backward computes.

MPI advances a non-blocking operation only inside MPI calls, and backward spends its time in
NumPy kernels that make none. This thread tests the requests it holds every `PAUSE` seconds
(NumPy releases the GIL in its kernels, so it runs alongside them) until they complete, or
until the owner takes them back to wait for them itself: MPI forbids two threads testing
one request at once, so they never both hold it.
"""

from __future__ import annotations

import threading
import time

__all__ = ["Progress"]

PAUSE = 1e-4


class Progress:
    """Background testing of MPI requests, handed over with `add` and back with `take`."""

    def __init__(self, MPI) -> None:
        self._MPI = MPI
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._requests: list = []
        self._thread: threading.Thread | None = None

    def add(self, request) -> None:
        with self._lock:
            self._requests.append(request)
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="dyngrad-mpi", daemon=True)
            self._thread.start()
        self._wake.set()

    def take(self) -> None:
        """Stop testing the requests held: the caller waits for them from now on."""
        with self._lock:
            self._requests = []
            self._wake.clear()

    def _run(self) -> None:
        while True:
            self._wake.wait()
            with self._lock:  # one by one: a completed request becomes null, visibly done
                self._requests = [r for r in self._requests if not r.Test()]
                if not self._requests:
                    self._wake.clear()
                    continue
            time.sleep(PAUSE)
