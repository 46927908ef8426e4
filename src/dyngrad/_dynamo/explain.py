"""`torch._dynamo.explain`: the graphs and breaks one call of a function makes, as a report."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

from ..nn.modules.module import Module
from . import frames, logs
from . import guards as guarding
from .capture import Capture, active
from .eval_frame import arg_names

__all__ = ["explain", "ExplainOutput"]


@dataclass
class ExplainOutput:
    """Matches `torch._dynamo.backends.debugging.ExplainOutput`. `ops_per_graph` lists the
    dyngrad ops each graph recorded (PyTorch lists the FX call_function targets, so
    `op_count` differs from PyTorch's; the graph and break counts and lines match)."""

    graphs: list
    graph_count: int
    graph_break_count: int
    break_reasons: list
    op_count: int
    ops_per_graph: list = field(default_factory=list)
    out_guards: list = field(default_factory=list)
    compile_times: str = ""

    def __str__(self) -> str:
        lines = [
            f"Graph Count: {self.graph_count}",
            f"Graph Break Count: {self.graph_break_count}",
            f"Op Count: {self.op_count}",
            "Break Reasons:",
        ]
        for i, brk in enumerate(self.break_reasons, 1):
            lines += [f"  Break Reason {i}:", f"    Reason: {brk.reason}", "    User Stack:"]
            lines += [f"      {entry!r}" for entry in brk.user_stack]
        lines.append("Ops per Graph:")
        for i, ops in enumerate(self.ops_per_graph, 1):
            lines.append(f"  Ops {i}:")
            lines += [f"    <dyngrad op {op}>" for op in ops]
        lines.append("Out Guards:")
        for i, guard in enumerate(self.out_guards, 1):
            lines += [f"  Guard {i}:", f"    {guard}"]
        if self.compile_times:
            lines.append(f"Compile Times: {self.compile_times}")
        return "\n".join(lines) + "\n"


@dataclass
class GraphBreak:
    """One entry of `break_reasons`: the reason text and the user stack (FrameSummary-like)."""

    reason: str
    user_stack: list
    graph_break: bool = True


def explain(f, *extra_args, **extra_kwargs):
    """Matches `torch._dynamo.explain(f)(*args, **kwargs)`: run `f` once (it runs for real,
    eagerly) and report the graphs and breaks Dynamo would make of that call."""
    if extra_args or extra_kwargs:
        return explain(f)(*extra_args, **extra_kwargs)

    def inner(*args, **kwargs) -> ExplainOutput:
        module = f if isinstance(f, Module) else None
        names = arg_names(type(f).forward)[1:] if module is not None else arg_names(f)
        now = guarding.observe(names, args, kwargs, module, None)
        start = time.perf_counter()
        capture = Capture(sys._getframe(), detailed=True, fullgraph=False)
        with active(capture):
            f(*args, **kwargs)
        graphs, breaks = frames.split(capture.events) if capture.events else ([], [])
        took = time.perf_counter() - start
        ops = [[name for name, _ in g.ops] for g in graphs]
        return ExplainOutput(
            graphs=graphs,
            graph_count=len(graphs),
            graph_break_count=len(graphs) - 1,
            break_reasons=[
                GraphBreak(b.reason.text(for_explain=True), b.user_stack) for b in breaks
            ],
            op_count=sum(len(o) for o in ops),
            ops_per_graph=ops,
            out_guards=logs.guard_lines(now)[2:],
            compile_times=f"dyngrad capture (the call ran eagerly, watched): {took:.4f} s",
        )

    return inner
