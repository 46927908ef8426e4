"""Which module call is running: a stack read by errors and by graph views.

# Note [Module scope]
# `nn.Module.__call__` pushes its module on entry and pops it on exit (`enter`/`exit`): a
# list append and pop, about 0.1 us a call, cheap enough to stay on always. An error raised
# inside a call names the innermost module (`annotate`). Graph views also want to know which
# nodes a call created. Node sequence numbers only grow, so a call created exactly the nodes
# whose `_seq` lies strictly between two numbers drawn at its entry and exit: while spans are
# recorded (`record_modules`, or an explicit `module_scope`), each call logs (start, end,
# path), and `spans_of` maps nodes to calls afterwards. No op pays anything for this."""

from __future__ import annotations

from collections import deque

from ..graph.node import _sequence

__all__ = [
    "enter",
    "exit",
    "annotate",
    "current",
    "label",
    "module_scope",
    "record_modules",
    "spans_of",
    "recorded_spans",
    "Span",
]

_next_seq = _sequence.__next__
_ANNOTATED = (RuntimeError, ValueError, IndexError, TypeError)


# One stack per process, not per thread: a thread-local one costs more than the push and pop
# themselves. Modules called from several threads at once may see each other's calls.
_stack: list = []  # modules (or names) of the calls now running, outermost first
_starts: list = []  # (depth, start seq) of the running calls whose span is recorded
# spans of finished calls; bounded so a long run under recording cannot grow without end
_spans: deque = deque(maxlen=1 << 16)
_recording = 0


def enter(module, record: bool = False) -> None:
    """Push a module call (an nn.Module, or a name) on the stack."""
    _stack.append(module)
    if _recording or record:
        _starts.append((len(_stack), _next_seq()))


def exit() -> None:  # noqa: A001 - pairs with `enter`
    """Pop the innermost module call."""
    if _starts and _starts[-1][0] == len(_stack):
        _spans.append(Span(_starts.pop()[1], _next_seq(), tuple(_stack)))
    _stack.pop()


class Span:
    """One module call: the node sequence numbers it covers and its path of modules."""

    __slots__ = ("start", "end", "path", "_label")

    def __init__(self, start: int, end: int, path: tuple):
        self.start, self.end, self.path = start, end, path
        self._label = None

    @property
    def depth(self) -> int:
        return len(self.path) - 1

    @property
    def label(self) -> str:
        if self._label is None:
            self._label = label(self.path)
        return self._label

    def __repr__(self) -> str:
        return f"Span({self.label!r}, {self.start}..{self.end})"


def current() -> str | None:
    """The innermost running call as `model.fc2 (Linear)`, or None outside any module."""
    return label(tuple(_stack)) if _stack else None


def label(path: tuple) -> str:
    """`model.encoder.fc2 (Linear)` for a path of modules from the outermost call inward."""
    names = []
    for i, entry in enumerate(path):
        if isinstance(entry, str):
            names.append(entry)
        elif i == 0 or isinstance(path[i - 1], str):
            names.append("model")
        else:
            names.append(_child_name(path[i - 1], entry) or type(entry).__name__)
    last = path[-1]
    kind = "" if isinstance(last, str) else f" ({type(last).__name__})"
    return ".".join(names) + kind


def _child_name(parent, child) -> str | None:
    # the child may sit inside containers the parent never called (a ModuleList): search down
    todo = [("", parent)]
    while todo:
        prefix, module = todo.pop()
        for name, sub in (getattr(module, "_modules", None) or {}).items():
            if sub is child:
                return prefix + name
            if sub is not None:
                todo.append((prefix + name + ".", sub))
    return None


def annotate(exc: BaseException, inputs=()) -> None:
    """Append the innermost module call, its input shapes and parameters to an error's text.

    Called by `nn.Module.__call__` while the error passes through; only the innermost call
    annotates (outer ones see the mark), and only errors with a plain message are touched.
    """
    if (
        getattr(exc, "_dyngrad_module", None) is not None
        or not isinstance(exc, _ANNOTATED)
        or isinstance(exc, NotImplementedError)  # a missing forward is no error of its input
        or len(exc.args) != 1
        or not isinstance(exc.args[0], str)
        or not _stack
    ):
        return
    where = current()
    exc._dyngrad_module = where
    shapes = [tuple(a.shape) for a in inputs if hasattr(a, "_data")]
    parts = [f"\n[dyngrad] raised inside {where}"]
    if shapes:
        parts.append(
            ", called with input shape"
            + ("s " if len(shapes) > 1 else " ")
            + ", ".join(map(str, shapes))
        )
    params = getattr(_stack[-1], "_parameters", None)
    if params:
        parts.append(
            "; its parameters: "
            # (size(), not shape: a lazy module's uninitialized parameter refuses its shape)
            + ", ".join(f"{name} {tuple(p.size())}" for name, p in params.items() if p is not None)
        )
    exc.args = (exc.args[0] + "".join(parts) + ".",)


class module_scope:
    """A named scope for the ops inside it, as an nn.Module call makes one (*dyngrad only*).

    Nodes created inside belong to `name` in graph views (`make_dot(collapse=True)`,
    `saved_bytes(by="module")`), and errors raised inside name it.
    """

    def __init__(self, name: str):
        self.name = name

    def __enter__(self):
        enter(self.name, record=True)
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc is not None:
            annotate(exc)
        exit()


class record_modules:
    """Record which nodes each module call creates, for graph views (*dyngrad only*).

    >>> with dyngrad.viz.record_modules():
    ...     loss = model(x).sum()
    >>> dyngrad.viz.make_dot(loss, collapse=True)
    """

    def __enter__(self):
        global _recording
        if not _recording:
            _spans.clear()  # a new recording starts a new log
        _recording += 1
        return self

    def __exit__(self, *exc):
        global _recording
        _recording -= 1


def recorded_spans() -> list:
    """The module calls recorded since the outermost `record_modules` began, in the order
    they ended (a call's span is logged when it returns)."""
    return list(_spans)


def spans_of(nodes) -> dict:
    """Each node's module calls, outermost first: `{node: (Span, ...)}` (nodes in none omitted).

    One sweep over nodes and spans sorted by sequence number; calls nest, so the calls open
    at a node's number are exactly those that contain it.
    """
    spans = sorted(_spans, key=lambda s: (s.start, -s.end))
    ordered = sorted((n for n in nodes if n._seq != float("inf")), key=lambda n: n._seq)
    result: dict = {}
    open_spans: list = []
    j = 0
    for node in ordered:
        seq = node._seq
        while j < len(spans) and spans[j].start < seq:
            open_spans.append(spans[j])
            j += 1
        open_spans = [s for s in open_spans if s.end > seq]
        if open_spans:
            result[node] = tuple(open_spans)
    return result
