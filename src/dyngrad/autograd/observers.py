"""Declared hooks on the engine: where anomaly mode and the doctor watch backward passes.

# Note [Engine observers]
# Tools that watch backward (anomaly mode, the doctor) subclass `EngineObserver`, override
# the events they need and `observers.add(...)` it; the engine calls each event at one place.
# The per-node events cost a list check per node while nobody listens; nothing patches the
# engine's functions, so the engine can change without silently breaking its watchers.
"""

from __future__ import annotations

__all__ = ["EngineObserver", "observers"]


class EngineObserver:
    """Base of engine watchers; each event is a no-op unless overridden."""

    def pass_started(self, task, roots) -> None:
        """A backward pass is about to run from `roots` (edges); `task` is its GraphTask."""

    def pass_finished(self, task) -> None:
        """The pass ran to its end."""

    def pass_failed(self, task, exc: BaseException) -> None:
        """The pass raised `exc` (re-raised after every observer has seen it)."""

    def node_started(self, node, grads) -> None:
        """`node` is about to run on `grads` (its hooks have run)."""

    def node_finished(self, node, outputs) -> None:
        """`node` returned `outputs`; raising here fails the pass at this node."""

    def node_failed(self, node, exc: BaseException) -> None:
        """`node` raised `exc`."""

    def leaf_accumulating(self, variable, grad) -> None:
        """`grad` is about to be added into the leaf `variable`'s `.grad`."""

    def leaf_accumulated(self, variable) -> None:
        """The gradient was added into `variable`'s `.grad` (the profiler's end of
        AccumulateGrad)."""


_EVENTS = {
    "passes": ("pass_started", "pass_finished", "pass_failed"),
    "nodes": ("node_started", "node_finished", "node_failed"),
    "leaves": ("leaf_accumulating", "leaf_accumulated"),
}


class Observers:
    """The engine's observers, in lists per kind of event so that a quiet kind costs nothing."""

    def __init__(self) -> None:
        self.passes: list = []
        self.nodes: list = []
        self.leaves: list = []

    def add(self, observer: EngineObserver) -> None:
        for kind, events in _EVENTS.items():
            overridden = any(
                getattr(type(observer), e) is not getattr(EngineObserver, e) for e in events
            )
            if overridden and observer not in getattr(self, kind):
                getattr(self, kind).append(observer)

    def remove(self, observer: EngineObserver) -> None:
        for kind in _EVENTS:
            members = getattr(self, kind)
            if observer in members:
                members.remove(observer)


observers = Observers()
