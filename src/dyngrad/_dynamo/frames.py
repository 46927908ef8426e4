"""Dynamo's graphs, rebuilt from a call's events: which ops share a graph, which breaks count.

# Note [Dynamo's frame model]
# Dynamo compiles one Python frame at a time and inlines the functions it calls. At a break:
#   - in the frame itself: the graph so far ends; the rest of the frame is compiled later as
#     a resume function (`torch_dynamo_resume_in_f_at_LINE`), which starts a new graph;
#   - inside an inlined callee: the caller's graph ends at the call site, the callee runs as
#     a frame of its own (compiled on its own, so its own graphs and breaks), and the caller
#     resumes after the call in a new graph;
#   - inside a `for` loop body (the loop's iterator on the stack): Dynamo cannot resume there
#     and skips the whole frame: it runs eagerly, makes no graph, and the frames it calls are
#     compiled on their own (a `while` loop has no iterator: it resumes as anywhere else);
#   - torch's own frames (nn.Module.__call__, Sequential.forward, Linear.forward) are inlined
#     into a user frame being compiled, but never compiled as a frame of their own: met as
#     a root (after a break) they run eagerly and only the user frames they call compile.
#     dyngrad's frames play torch's here, so stacks keep them and break reasons hide them.
# A graph with no op is not made; a break is listed (explain's break_reasons) only when it
# ended a graph that had ops. explain's graph_break_count is graph_count - 1, as PyTorch 2.13
# reports it. Events carry the user's stack at the time (frames.py never sees dyngrad's own
# frames), so nested user functions and module forwards are frames here as they are there.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from dataclasses import dataclass, field

from .capture import PACKAGE

__all__ = ["Graph", "Break", "StackEntry", "split", "entry"]


@dataclass(frozen=True)
class StackEntry:
    """One frame of a break's user stack (the fields of traceback.FrameSummary)."""

    filename: str
    lineno: int
    name: str
    line: str = ""

    def __repr__(self) -> str:
        return f"<FrameSummary file {self.filename}, line {self.lineno} in {self.name}>"


@dataclass
class Break:
    """Matches Dynamo's GraphCompileReason: the reason and the user stack of one break."""

    reason: object  # reasons.Reason
    user_stack: list


@dataclass
class Graph:
    """The ops of one captured graph, with the user line each came from."""

    ops: list = field(default_factory=list)  # (op name, StackEntry of the innermost frame)


def split(events: list) -> tuple[list, list]:
    """(graphs, breaks) as Dynamo makes them for the call that produced `events`."""
    graphs: list = []
    breaks: list = []
    _frame(events, 0, graphs, breaks)
    return graphs, breaks


def _internal(frame) -> bool:
    return frame.f_code.co_filename.startswith(PACKAGE)


def _frame(events: list, depth: int, graphs: list, breaks: list) -> None:
    """Compile the frame at `depth` (every event's stack goes through it) as Dynamo would."""
    root = events[0][1][depth][0]
    code = root.f_code
    # the compiled frame itself is compiled even when it is torch's (torch.compile(Linear))
    skipped = (depth > 0 and _internal(root)) or any(
        kind == "break" and _in_loop(code, stack[depth][1]) for kind, stack, _ in events
    )
    name = code.co_name
    current: list = []
    for chunk in _chunks(events, depth):
        kind, stack, what = chunk[0]
        if len(stack) == depth + 1 and kind == "op":
            if not skipped:
                current.append((what, _op_site(stack)))
            continue
        inner = len(stack) > depth + 1
        first = next((e for e in chunk if e[0] == "break"), None)
        if first is not None and not skipped:
            if current:
                graphs.append(Graph(current))
                # Dynamo names the resumed frame only in a branch's stack (an item()'s or a
                # call's stack is taken from the running frame: its own name)
                shown = name if first[2].explain_title else code.co_name
                breaks.append(Break(first[2], _user_stack(first[1], depth, shown)))
            current = []
            name = f"torch_dynamo_resume_in_{code.co_name}_at_{stack[depth][1]}"
        if inner and (first is not None or skipped):
            _frame(chunk, depth + 1, graphs, breaks)
        elif inner:
            current += [(w, _op_site(s)) for k, s, w in chunk if k == "op"]
    if current:
        graphs.append(Graph(current))


def _chunks(events: list, depth: int):
    """Runs of events: each direct event alone, each callee activation's events together."""
    i = 0
    while i < len(events):
        stack = events[i][1]
        if len(stack) == depth + 1:
            yield [events[i]]
            i += 1
            continue
        callee = stack[depth + 1][0]
        j = i
        while (
            j < len(events)
            and len(events[j][1]) > depth + 1
            and events[j][1][depth + 1][0] is callee
        ):
            j += 1
        yield events[i:j]
        i = j


def entry(frame_line, name: str) -> StackEntry:
    frame, line = frame_line
    return StackEntry(frame.f_code.co_filename, line, name, _source_line(frame.f_code, line))


def _user_stack(stack: tuple, depth: int, root_name: str) -> list:
    entries = [entry(stack[depth], root_name)] if not _internal(stack[depth][0]) else []
    entries += [entry(s, s[0].f_code.co_name) for s in stack[depth + 1 :] if not _internal(s[0])]
    return entries


def _op_site(stack: tuple) -> StackEntry:
    """Where an op was called from: the innermost user frame (the op's own frames are torch's)."""
    for frame_line in reversed(stack):
        if not _internal(frame_line[0]):
            return entry(frame_line, frame_line[0].f_code.co_name)
    return entry(stack[-1], stack[-1][0].f_code.co_name)


def _source_line(code, line: int) -> str:
    lines = _source(code)
    if lines is None:
        return ""
    text, first = lines
    index = line - first
    return text[index].strip() if 0 <= index < len(text) else ""


@functools.lru_cache(maxsize=512)
def _source(code):
    try:
        text, first = inspect.getsourcelines(code)
    except (OSError, TypeError):
        return None
    return text, first


@functools.lru_cache(maxsize=512)
def _loop_lines(code) -> frozenset:
    """The lines of `code` Dynamo cannot resume at: `for` loop bodies."""
    lines = _source(code)
    if lines is None:
        return frozenset()
    text, first = lines
    try:
        tree = ast.parse(textwrap.dedent("".join(text)))
    except SyntaxError:
        return frozenset()
    found = set()
    root = tree.body[0] if tree.body else tree
    for node in ast.walk(root):  # a nested def's lines belong to its own code: harmless
        if isinstance(node, (ast.For, ast.AsyncFor)):
            found.update(range(node.body[0].lineno + first - 1, node.end_lineno + first))
    return frozenset(found)


def _in_loop(code, line: int) -> bool:
    return line in _loop_lines(code)
