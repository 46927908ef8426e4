"""Watching a compiled call run: the ops it records and the places it needs a tensor's value.

# Note [Capture by running]
# dyngrad's compile never rewrites the user's bytecode. A compiled call runs the user's Python
# as it is (or replays what it did, where that is shown to be the same: Note [Replay] in
# replay.py), so control flow, globals, closures and module state are honoured and values
# and gradients are eager's, bit for bit. While it runs, a Capture (thread-local)
# is told of two things:
#   - every op (the op observer of ops/table/record.py, See Note [Op observer]);
#   - every place the user's code needs a Python value from a tensor (`bool`/`if`, `item`,
#     `int`/`float`/`index`, `tolist`, printing or str() of a tensor) or
#     calls what Dynamo cannot trace (`print`, `torch._dynamo.graph_break()`): a graph break.
# A break counts only when the user's own code asked (the calling frame lies outside
# dyngrad): dyngrad's ops use `.item()` internally where PyTorch's run in C++, and those are
# no breaks. The watchers (on Tensor's value methods and `builtins.print`) are installed on
# the first compiled call and stay, reading a thread-local flag when no capture runs. When a
# call is being compiled (a new guard set, or explain) every event also carries the stack
# that made it, from which frames.py rebuilds Dynamo's graphs and breaks.
"""

from __future__ import annotations

import builtins
import os
import sys
import threading
import traceback

from .. import _logging, _tensor
from ..ops.table import record as recording
from . import config, reasons
from .exc import Unsupported

__all__ = ["Capture", "current", "active", "graph_break", "user_stack"]

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_local = threading.local()
_lock = threading.Lock()
_observers = 0
_saved: dict = {}
_watchers: dict = {}  # method name -> its watcher (See _hold)


class Capture:
    """What one compiled call did: its op and break events (with stacks while `detailed`)."""

    __slots__ = ("detailed", "fullgraph", "events", "stop", "quiet", "label", "trace")

    def __init__(self, stop, *, detailed: bool, fullgraph: bool, label: str = "0/0") -> None:
        self.stop = stop  # the frame that called the user's function: stacks end there
        self.detailed = detailed
        self.fullgraph = fullgraph
        self.events: list = []  # ("op", stack, name) or ("break", stack, Reason)
        self.quiet = False
        self.label = label  # "frame/compile", as PyTorch's log lines name the compile
        self.trace = None  # the op trace of a call that may be replayed (Note [Replay])

    def op(self, name: str) -> None:
        if self.detailed:
            self.events.append(("op", user_stack(self.stop, 3), name))

    def brk(self, reason: reasons.Reason, caller) -> None:
        if self.fullgraph:
            code = caller.f_code
            raise Unsupported(
                f'{reason.text()}\n\nfrom user code:\n  File "{code.co_filename}", line '
                f"{caller.f_lineno}, in {code.co_name}\n(dyngrad: fullgraph=True refuses every "
                "graph break; remove the break or compile with fullgraph=False)"
            )
        if self.detailed:
            stack = user_stack(self.stop, 3)
            self.events.append(("break", stack, reason))
            if reason.code == reasons.ITEM and not _warned:
                _warn_item(self.label, stack)


_warned: list = []  # PyTorch warns of the first `.item()` break only, once per process


def _warn_item(label: str, stack: tuple) -> None:
    # PyTorch's default-on warning at an `.item()` break: the setting that would capture it,
    # and where the user's code asked (the frames still run, so the exact expression is known)
    _warned.append(True)
    summaries = []
    for frame, line in stack:
        if in_package(frame):
            continue
        code = frame.f_code
        _, end, start_col, end_col = _position(code, frame.f_lasti)
        summaries.append(
            traceback.FrameSummary(
                code.co_filename,
                line,
                code.co_name,
                end_lineno=end,
                colno=start_col,
                end_colno=end_col,
            )
        )
    _logging.warning(
        label,
        ITEM_WARNING % "".join(traceback.format_list(summaries)),
        "dyngrad/_dynamo/capture.py",
    )


def _position(code, lasti: int) -> tuple:
    for i, position in enumerate(code.co_positions()):
        if i == lasti // 2:
            return position
    return (None, None, None, None)


ITEM_WARNING = """Graph break from `Tensor.item()`, consider setting:
    torch._dynamo.config.capture_scalar_outputs = True
or:
    env TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1
to include these operations in the captured graph.

Graph break: from user code at:
%s
"""


def current() -> Capture | None:
    return getattr(_local, "capture", None)


def in_package(frame) -> bool:
    """Whether `frame` runs dyngrad's own code (PyTorch's would be C++ or torch/ files)."""
    return frame.f_code.co_filename.startswith(PACKAGE)


def user_stack(stop, skip: int) -> tuple:
    """((frame, line), ...) of the frames below `stop`, outermost first (dyngrad's own among
    them: Dynamo treats torch's frames apart, See Note [Dynamo's frame model])."""
    frames = []
    f = sys._getframe(skip)
    while f is not None and f is not stop:
        frames.append((f, f.f_lineno))
        f = f.f_back
    frames.reverse()
    return tuple(frames)


class active:
    """Context manager: `capture` watches this thread until exit (nests: the outer resumes)."""

    def __init__(self, capture: Capture) -> None:
        self.capture = capture

    def __enter__(self) -> Capture:
        self.outer = current()
        _local.capture = self.capture
        # the op observer serves the events of a compiling call and the trace of a replay
        self.observed = self.capture.detailed or self.capture.trace is not None
        _hold(self.observed)
        return self.capture

    def __exit__(self, *exc) -> None:
        _local.capture = self.outer
        _release(self.observed)


# ---- the watchers, installed while any compiled call runs -----------------------------------


def _observe(op, args, attrs, result) -> None:
    capture = current()
    if capture is not None:
        if not capture.quiet:
            capture.op(op.name)
        if capture.trace is not None:
            capture.trace.op(op, args, attrs, result)
    outer = _saved["observer"]
    if outer is not None:
        outer(op, args, attrs, result)


def _reason_for(name: str, tensor, capture: Capture) -> reasons.Reason | None:
    if name == "__bool__":
        return reasons.branching()
    if name == "tolist":
        return reasons.tolist() if tensor.dtype.is_floating_point else reasons.data_dependent()
    if name in ("__repr__", "__format__"):
        return reasons.builtin("str", ["Tensor"])
    # fullgraph=True captures scalars as PyTorch 2.13 does (a Python branch on one then raises
    # UserError there; dyngrad cannot see a Python float's comparisons: docs/compile.md)
    return None if config.capture_scalar_outputs or capture.fullgraph else reasons.item()


def _watch(name: str, original):
    def watched(self, *args, **kwargs):
        capture = current()
        if capture is not None and capture.trace is not None:
            capture.trace.value_read(name)  # by anyone: the replay could not read it again
        if capture is not None and not capture.quiet and name in _BREAKS:
            caller = sys._getframe(1)
            if not in_package(caller):
                reason = _reason_for(name, self, capture)
                if reason is not None:
                    capture.brk(reason, caller)
        return original(self, *args, **kwargs)

    watched.__name__ = name
    watched.__qualname__ = f"Tensor.{name}"
    watched.__doc__ = original.__doc__
    watched.__wrapped__ = original
    return watched


def _print(*args, **kwargs):
    capture = current()
    if capture is None or capture.quiet or in_package(sys._getframe(1)):
        return _saved["print"](*args, **kwargs)
    capture.brk(reasons.builtin("print", [type(a).__name__ for a in args]), sys._getframe(1))
    capture.quiet = True  # str() of the tensors print shows is part of this one break
    try:
        return _saved["print"](*args, **kwargs)
    finally:
        capture.quiet = False


_print.__name__ = _print.__qualname__ = "print"

_BREAKS = frozenset(
    ("__bool__", "item", "tolist", "__int__", "__float__", "__index__", "__repr__", "__format__")
)
# (`numpy()` and `__array__` are no graph break in PyTorch, but their values are read in Python)
_WATCHED = (*sorted(_BREAKS), "numpy", "__array__")


def _hold(detailed: bool) -> None:
    """Watch this call. The Tensor watchers and `print` are installed on first use and stay:
    writing a class attribute or a builtin on every call would reset CPython's attribute and
    global caches for all code (measured: ~70 us per call on the SimpleMLP); installed, they
    cost one thread-local read when called outside a capture. The op observer is set for the
    call only, and only while compiling (a cached call needs just the breaks, for fullgraph).
    A cached call checks only that `print` is still watched; a compiling call also puts back
    any watcher someone replaced since (a Tensor method patched by hand)."""
    global _observers
    if not detailed and _watchers and builtins.print is _print:
        return
    with _lock:
        for name in _WATCHED:
            present = _tensor.Tensor.__dict__[name]
            if present is not _watchers.get(name):  # first use, or someone swapped it since
                _watchers[name] = _watch(name, present)
                setattr(_tensor.Tensor, name, _watchers[name])
        if builtins.print is not _print:
            _saved["print"] = builtins.print
            _print.__doc__ = builtins.print.__doc__
            builtins.print = _print
        if detailed:
            _observers += 1
            if _observers == 1:
                _saved["observer"] = recording.observer
                recording.observer = _observe


def _release(detailed: bool) -> None:
    global _observers
    if detailed:
        with _lock:
            _observers -= 1
            if not _observers:
                recording.observer = _saved["observer"]


def graph_break(msg: str | None = None) -> None:
    """Matches `torch._dynamo.graph_break`: end the captured graph here."""
    capture = current()
    if capture is not None and not capture.quiet:
        capture.brk(reasons.user_break(msg), sys._getframe(1))
