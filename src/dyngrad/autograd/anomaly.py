"""Anomaly detection: nodes remember the forward stack; NaN in backward raises at its node."""

from __future__ import annotations

import functools
import sys
import warnings

import numpy as np

from ..graph.anomaly_mode import evaluating, record, state
from .observers import EngineObserver, observers

__all__ = [
    "set_detect_anomaly",
    "detect_anomaly",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "record",
    "state",
]


class _AnomalyObserver(EngineObserver):
    """Anomaly mode in the engine: NaN checks on node outputs, the forward stack on errors,
    and which node is running (nodes it makes remember it)."""

    def node_started(self, node, grads) -> None:
        stack = evaluating.__dict__.setdefault("stack", [])
        stack.append(getattr(evaluating, "node", None))
        evaluating.node = node

    def node_failed(self, node, exc) -> None:
        self._done()
        forward_trace_warning(node)

    def node_finished(self, node, outputs) -> None:
        self._done()
        if state.check_nan and outputs:
            check_nan(node, outputs)

    def _done(self) -> None:
        stack = evaluating.__dict__.get("stack")
        evaluating.node = stack.pop() if stack else None


_observer = _AnomalyObserver()


def _set(enabled: bool, check_nan: bool) -> None:
    state.enabled, state.check_nan = bool(enabled), bool(check_nan)
    if state.enabled:
        observers.add(_observer)
    else:
        observers.remove(_observer)


def is_anomaly_enabled() -> bool:
    """Matches `torch.is_anomaly_enabled`."""
    return state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Matches `torch.is_anomaly_check_nan_enabled`."""
    return state.check_nan


class set_detect_anomaly:
    """Matches `torch.autograd.set_detect_anomaly(mode, check_nan=True)`."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self.prev = (state.enabled, state.check_nan)
        _set(mode, check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set(*self.prev)


class detect_anomaly:
    """Matches `torch.autograd.detect_anomaly`: a context manager and decorator."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan
        self.prev = (False, True)
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self):
        self.prev = (state.enabled, state.check_nan)
        _set(True, self.check_nan)
        return self

    def __exit__(self, *exc):
        _set(*self.prev)

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return wrapper


def forward_trace_warning(node) -> None:
    """PyTorch's warnings that show the forward call of the node whose backward failed, then
    of each backward node that made it (under create_graph)."""
    _warn_trace(node.name(), node._trace, induced=False)
    for name, trace in node._induced_by:
        _warn_trace(name, trace, induced=True)


def _warn_trace(name: str, trace, induced: bool) -> None:
    if trace is None:
        message = (
            f"Error detected in {name}. No forward pass information available. Enable detect "
            "anomaly during forward pass for more information."
        )
    elif induced:
        message = (
            f"\n\nPrevious calculation was induced by {name}. Traceback of forward call that "
            "induced the previous calculation:\n" + "".join(trace)
        )
    else:
        message = (
            f"Error detected in {name}. Traceback of forward call that caused the error:\n"
            + "".join(trace)
        )
    try:
        warnings.warn(message, UserWarning, stacklevel=4)
    except Warning:  # warnings are errors: PyTorch prints it, the error in flight stays
        print(f"UserWarning: {message}", file=sys.stderr)


def check_nan(node, grads) -> None:
    for i, g in enumerate(grads):
        if g is not None and g._data.dtype.kind in "fc" and _has_nan(g._data):
            forward_trace_warning(node)
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def _has_nan(array) -> bool:

    return bool(np.isnan(array).any())
