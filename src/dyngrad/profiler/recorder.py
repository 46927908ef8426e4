"""The recorder: what a running profile installs on dyngrad's declared hooks, and the events
it makes of what they tell it.

# Note [What a profile records]
# Three sources, each attached where dyngrad already tells tools what happens, so nothing runs
# while no profile records (See Note [Profiler ranges]):
#   ops             the op observer (Note [Op observer]) at each op's end, and the op start
#                   hook (Note [Op start hook]) at its start: one event `aten::<name>`;
#   backward nodes  the engine's node events (Note [Engine observers]): PyTorch's two nested
#                   events, `autograd::engine::evaluate_function: MulBackward0` around
#                   `MulBackward0`, with the formula's ops inside;
#   ranges          `record_function` and the library's named ranges (Note [Profiler ranges]).
# Times are wall clock (`time.perf_counter_ns`); an event's parent is the innermost range or
# node open on its thread when it starts, and its self time is its time less its children's.
# Table ops run their forward on arrays, so an op has no children (PyTorch's composite
# `aten::linear` around `aten::addmm` shows here as the ops it records).
"""

from __future__ import annotations

import threading
import time

from .._tensor import Tensor
from ..autograd import profiler as ranges
from ..autograd.observers import EngineObserver, observers
from ..ops.table import record
from .events import FunctionEvent
from .names import aten_name

__all__ = ["Recorder"]

_now = time.perf_counter_ns
_EVALUATE = "autograd::engine::evaluate_function: "


class Recorder(EngineObserver):
    """Collects the events of one recording window (between `start()` and `stop()`)."""

    def __init__(self, record_shapes: bool = False) -> None:
        self.record_shapes = record_shapes
        self.events: list = []
        self._open: dict = {}  # thread id -> the ranges and nodes open on it, innermost last
        self._last_end: dict = {}  # thread id -> when its latest event ended
        self._pending = None  # (op name, start) from the op start hook
        self._next_id = 0
        self._nodes: dict = {}  # id(node) -> its two open events
        self._outer_observer = None
        self.origin = 0

    # ---- installing -------------------------------------------------------------------------
    def start(self) -> None:
        self.origin = _now()
        self._outer_observer = record.observer  # the doctor's, say: still told of every op
        record.observer = self._op_finished
        record.set_op_started(self._op_started)
        observers.add(self)
        ranges.collector = self

    def stop(self) -> None:
        ranges.collector = None
        observers.remove(self)
        record.set_op_started(None)
        if record.observer == self._op_finished:  # else a tool started since put its own
            record.observer = self._outer_observer
        end = _now()
        for stack in self._open.values():  # a range still open ends with the window
            for event in stack:
                event.end_ns = end
        self._open.clear()
        self.events.sort(key=lambda e: (e.start_ns, e.id))

    # ---- events -------------------------------------------------------------------------------
    def _event(self, name, start, end, shapes, kind, trace_name=None) -> FunctionEvent:
        thread = threading.get_ident()
        event = FunctionEvent(self._next_id, name, thread, start, end, shapes, kind, trace_name)
        event.origin_ns = self.origin
        self._next_id += 1
        stack = self._open.get(thread)
        if stack:
            event.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(event)
        self.events.append(event)
        return event

    def open(self, name: str, kind: str = "user_annotation") -> FunctionEvent:
        """Start a range (record_function's): See Note [Profiler ranges]."""
        trace_name = name
        if name.startswith("ProfilerStep#"):  # PyTorch's table shows every step as one row
            name = "ProfilerStep*"
        event = self._event(name, _now(), None, [], kind, trace_name)
        self._open.setdefault(event.thread, []).append(event)
        return event

    def close(self, event: FunctionEvent) -> None:
        event.end_ns = end = _now()
        stack = self._open.get(event.thread, [])
        while event in stack:  # ranges closed out of order end with the outer one
            stack.pop().end_ns = end
        self._last_end[event.thread] = end

    def _op_started(self, name: str) -> None:
        self._pending = (name, _now())

    def _op_finished(self, op, args, attrs, result) -> None:
        end = _now()
        pending, self._pending = self._pending, None
        if pending is not None and pending[0] == op.name:
            start = pending[1]
        else:  # an op whose start went unseen: from the thread's last boundary
            start = self._boundary(end)
        shapes = []
        if self.record_shapes:
            shapes = [list(a.shape) if isinstance(a, Tensor) else [] for a in args]
        name = aten_name(op.name)
        if args and result is args[0] and name[-1] != "_":  # in-place: PyTorch's `add_`
            name += "_"
        self._event(name, start, end, shapes, "cpu_op")
        self._last_end[threading.get_ident()] = end
        if self._outer_observer is not None:
            self._outer_observer(op, args, attrs, result)

    def _boundary(self, end: int) -> int:
        thread = threading.get_ident()
        stack = self._open.get(thread)
        start = max(self._last_end.get(thread, self.origin), stack[-1].start_ns if stack else 0)
        return min(start, end)

    # ---- backward nodes: See Note [Engine observers] ------------------------------------------
    def node_started(self, node, grads) -> None:
        name = node.name()
        outer = self.open(_EVALUATE + name, "cpu_op")
        self._nodes[id(node)] = (outer, self.open(name, "cpu_op"))

    def node_finished(self, node, outputs) -> None:
        opened = self._nodes.pop(id(node), None)
        if opened is not None:
            self.close(opened[0])

    node_failed = node_finished
