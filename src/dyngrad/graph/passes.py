"""Backward passes, numbered: which pass freed a node's buffers, for the second-backward error.

# Note [Backward passes]
# Each backward (or grad) call is numbered. A node that frees its buffers keeps the pass that
# freed them, so a later backward through it can say which pass used the graph, and (when the
# tensor it starts from was made after that pass) that the graph mixes in an earlier iteration.
"""

from __future__ import annotations

from .node import _sequence

__all__ = ["current", "start", "finish", "running"]

_INF = float("inf")
_numbers = iter(range(1, 1 << 62))
# (number, sequence number at its start, its newest root's number) of the running pass, or
# of the last one once none runs
current = (0, 0, 0)
_running = 0  # passes running now, on any thread


def start(roots) -> tuple:
    """Number a pass that starts from `roots` (edges); returns what `finish` restores."""
    global current, _running
    outer = current
    newest = -1
    for node, _ in roots:
        if node is not None and newest < node._seq != _INF:
            newest = node._seq
    current = (next(_numbers), next(_sequence), newest)
    _running += 1
    return outer


def finish(outer: tuple) -> None:
    global current, _running
    _running -= 1
    if _running:  # back in an enclosing pass; else the last pass stays for messages
        current = outer


def running() -> int | None:
    """The number of the innermost pass running now, or None outside any backward."""
    return current[0] if _running else None
