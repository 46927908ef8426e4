"""The recorder: what a running profile installs on dyngrad's declared hooks, and the events
it makes of what they tell it.

# Note [What a profile records]
# Three sources, each attached where dyngrad already tells tools what happens, so nothing runs
# while no profile records (See Note [Profiler ranges]):
#   ops             the op observer (Note [Op observer]) at each op's end, and the op start
#                   hook (Note [Op start hook]) at its start: one event `aten::<name>`;
#   backward nodes  the engine's node events (Note [Engine observers]): PyTorch's two nested
#                   events, `autograd::engine::evaluate_function: MulBackward0` around
#                   `MulBackward0`, with the formula's ops inside; a leaf's accumulation
#                   as `torch::autograd::AccumulateGrad`, PyTorch's name for its node;
#   ranges          `record_function` and the library's named ranges (Note [Profiler ranges]).
# Times are wall clock (`time.perf_counter_ns`); an event's parent is the innermost range or
# node open on its thread when it starts, and its self time is its time less its children's.
# Table ops run their forward on arrays, so an op has no children (PyTorch's composite
# `aten::linear` around `aten::addmm` shows here as the ops it records).
"""

from __future__ import annotations

import os
import sys
import threading
import time

from .._tensor import Tensor
from ..autograd import profiler as ranges
from ..autograd.observers import EngineObserver, observers
from ..ops.table import record
from .events import FunctionEvent
from .names import aten_name

__all__ = ["Recorder", "user_stack"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

_now = time.perf_counter_ns
_EVALUATE = "autograd::engine::evaluate_function: "
_ACCUMULATE = "torch::autograd::AccumulateGrad"  # PyTorch's C++ name for the node


class Recorder(EngineObserver):
    """Collects the events of one recording window (between `start()` and `stop()`)."""

    def __init__(self, record_shapes=False, profile_memory=False, with_stack=False) -> None:
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.events: list = []
        self._open: dict = {}  # thread id -> the ranges and nodes open on it, innermost last
        self._last_end: dict = {}  # thread id -> when its latest event ended
        self._pending = None  # (op name, start) from the op start hook
        self._next_id = 0
        self._nodes: dict = {}  # id(node) -> its two open events
        self._leaves: list = []  # the AccumulateGrad events open
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
        if self.with_stack and kind == "user_annotation":
            event.stack = user_stack()
        return event

    def close(self, event: FunctionEvent) -> None:
        event.end_ns = end = _now()
        stack = self._open.get(event.thread, [])
        while event in stack:  # ranges closed out of order end with the outer one
            closed = stack.pop()
            closed.end_ns = end
            if self.profile_memory:  # what it allocated: its children did
                closed.cpu_memory_usage = sum(c.cpu_memory_usage for c in closed.cpu_children)
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
        in_place = bool(args) and result is args[0]
        if in_place and name[-1] != "_":  # PyTorch's `add_`
            name += "_"
        event = self._event(name, start, end, shapes, "cpu_op")
        first = result[0] if type(result) is tuple else result
        node = getattr(first, "_grad_fn", None)
        if node is not None and getattr(node, "_seq", None) is not None:
            event.sequence_nr = node._seq  # the node this op recorded: its backward's number
        if self.profile_memory and not in_place:
            event.cpu_memory_usage = _new_bytes(result)
        if self.with_stack:
            event.stack = user_stack()
        self._last_end[event.thread] = end
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
        inner = self.open(name, "cpu_op")
        inner.sequence_nr = node._seq  # as the forward op that recorded it
        self._nodes[id(node)] = (outer, inner)

    def node_finished(self, node, outputs) -> None:
        opened = self._nodes.pop(id(node), None)
        if opened is not None:
            self.close(opened[0])

    node_failed = node_finished

    def leaf_accumulating(self, variable, grad) -> None:
        outer = self.open(_EVALUATE + _ACCUMULATE, "cpu_op")
        self.open(_ACCUMULATE, "cpu_op")
        self._leaves.append(outer)

    def leaf_accumulated(self, variable) -> None:
        if self._leaves:
            self.close(self._leaves.pop())


def _new_bytes(result) -> int:
    """Bytes an op's outputs own (a view's, sharing its base's memory, count nothing)."""
    total = 0
    for out in result if type(result) is tuple else (result,):
        if isinstance(out, Tensor) and out._base is None:
            total += getattr(out._data, "nbytes", 0)
    return total


def user_stack() -> list:
    """The calling program's frames, innermost first, as PyTorch's `file(line): function`
    (dyngrad's own frames left out: the user's line is what a profile should point at)."""
    frames = []
    frame = sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(_PACKAGE):
            frames.append(f"{path}({frame.f_lineno}): {frame.f_code.co_name}")
        frame = frame.f_back
    return frames
