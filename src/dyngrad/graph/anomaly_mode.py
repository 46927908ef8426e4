"""Anomaly mode's state and the forward stacks it records on nodes (the API is in autograd)."""

from __future__ import annotations

import os
import traceback

from .._tensor import above

__all__ = ["state", "record"]


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


def record(node) -> None:
    """Keep the forward stack of a node (only in anomaly mode: capturing it is costly)."""
    frames = [f for f in traceback.extract_stack() if not f.filename.startswith(_PACKAGE_DIR)]
    node._trace = traceback.format_list(frames)
