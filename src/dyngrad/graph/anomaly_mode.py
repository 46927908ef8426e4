"""Anomaly mode's state and the forward stacks it records on nodes (the API is in autograd)."""

from __future__ import annotations

import os
import threading

from .._tensor import above

__all__ = ["state", "record", "evaluating"]


class _State:
    # Process-wide, unlike grad mode: PyTorch's anomaly flag is global to all threads.
    # Ops read `enabled` as a plain attribute (hot path); it changes only through
    # `autograd.anomaly`, which also attaches its engine observer while anomaly mode is on.
    def __init__(self):
        self.enabled = False
        self.check_nan = True


state = _State()
above.anomaly_mode = state  # See Note [Calls up the layers]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# The node whose backward is running on this thread (set by anomaly mode's engine observer):
# a node recorded meanwhile (create_graph) was induced by it.
evaluating = threading.local()


def record(node) -> None:
    """Keep the forward stack of a node (only in anomaly mode: capturing it is costly), and,
    for a node made by a backward, the chain of (name, stack) of the nodes that induced it."""
    import traceback  # anomaly mode only: loading it at import would slow `import dyngrad`

    frames = [f for f in traceback.extract_stack() if not f.filename.startswith(_PACKAGE_DIR)]
    node._trace = traceback.format_list(frames)
    parent = getattr(evaluating, "node", None)
    if parent is not None:  # names and stacks only: no reference from a graph to another
        node._induced_by = ((parent.name(), parent._trace),) + parent._induced_by
