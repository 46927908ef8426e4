"""A worker's result pipe: framed messages that neither end can wait on forever."""

from __future__ import annotations

import os
import struct
from collections.abc import Callable

__all__ = ["STATUS_CHECK_INTERVAL", "ResultReader", "ResultWriter"]

# How often a waiting worker checks that its parent lives, and a waiting parent that its
# workers do: the bound on how long a dead process can go unnoticed.
STATUS_CHECK_INTERVAL = 0.2

# Note [Worker result pipes]
# Each worker sends its results down a pipe of its own (`ctx.Pipe(duplex=False)`): the worker
# holds the only write end (the main process closes its copy once the worker has started, so
# later workers cannot inherit it) and the main process reads. Both ends are non-blocking and
# the messages framed here (an 8-byte length, then the pickle), because a blocking end waits
# for good once the other side is gone, and `multiprocessing.Queue` has three such waits:
# - a worker SIGKILLed (the OOM killer) halfway through a large batch leaves the reader
#   blocked on the rest of a message nobody will send;
# - the dead worker may hold the queue's shared write lock, which then blocks every sibling;
# - a worker whose main process died keeps writing into a full pipe (a sibling forked after
#   it holds the read end, so no EPIPE comes), and at exit joins its feeder thread, which
#   waits on that pipe: the orphan lives forever.
# So the reader keeps partial messages and reads only what is there; the writer writes what
# fits and, while the pipe is full, asks every STATUS_CHECK_INTERVAL whether to go on.

_HEADER = struct.Struct("<Q")


class ResultReader:
    """The main process's end: takes what has arrived and never waits for the rest."""

    def __init__(self, conn) -> None:
        self._conn = conn  # owns the descriptor
        self._fd = conn.fileno()
        os.set_blocking(self._fd, False)
        self._header = bytearray(_HEADER.size)
        self._body: bytearray | None = None
        self._filled = 0
        self.closed = False  # the write end is gone: the worker exited or died

    def fileno(self) -> int:
        return self._fd

    def read_messages(self) -> list[bytearray]:
        """Read what the pipe holds; return the messages it completed (maybe none)."""
        messages = []
        while not self.closed:
            target = self._header if self._body is None else self._body
            try:
                n = os.readv(self._fd, [memoryview(target)[self._filled :]])
            except BlockingIOError:
                break
            if n == 0:
                self.closed = True
                break
            self._filled += n
            if self._filled < len(target):
                continue
            self._filled = 0
            if self._body is None:
                self._body = bytearray(_HEADER.unpack(self._header)[0])
            else:
                messages.append(self._body)
                self._body = None
        return messages

    def close(self) -> None:
        self.closed = True
        self._conn.close()


class ResultWriter:
    """A worker's end: `send` returns False once nobody will read what it writes.

    `keep_waiting` is asked while the pipe is full; False gives up the message.
    """

    def __init__(self, conn, keep_waiting: Callable[[], bool]) -> None:
        self._conn = conn
        self._fd = conn.fileno()
        os.set_blocking(self._fd, False)
        self._keep_waiting = keep_waiting
        import select  # in a worker process only

        self._poller = select.poll()
        self._poller.register(self._fd, select.POLLOUT)

    def send(self, payload: bytes) -> bool:
        return self._write(_HEADER.pack(len(payload))) and self._write(payload)

    def _write(self, data: bytes) -> bool:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._fd, view) :]
            except BlockingIOError:
                pass
            except BrokenPipeError:  # the reader closed its end
                return False
            if view and not self._wait_writable():
                return False
        return True

    def _wait_writable(self) -> bool:
        while not self._poller.poll(STATUS_CHECK_INTERVAL * 1000):
            if not self._keep_waiting():
                return False
        return True

    def close(self) -> None:
        self._conn.close()
