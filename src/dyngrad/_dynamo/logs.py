"""What compile logs (TORCH_LOGS / torch._logging.set_logs): breaks, recompiles, guards, graphs."""

from __future__ import annotations

from .. import _logging
from . import frames
from .capture import PACKAGE

__all__ = ["recompile", "compiled", "reset", "guard_lines"]

_seen_breaks: set = set()
_graph_numbers = iter(range(1, 1 << 62))


def reset() -> None:
    _seen_breaks.clear()


def recompile(cache, code, failed: list) -> None:
    """PyTorch's "Recompiling function f in file:line triggered by ..." (newest entry first)."""
    if not _logging.enabled("recompiles"):
        return
    lines = [
        f"Recompiling function {code.co_name} in {code.co_filename}:{code.co_firstlineno}",
        "    triggered by the following guard failure(s):",
    ]
    for i in reversed(range(len(failed))):
        lines.append(f"    - {cache.frame_id}/{i}: {failed[i][0]}")
    _logging.emit("recompiles", f"{cache.frame_id}/{len(failed)}", "\n".join(lines))


def compiled(cache, entry, events: list) -> None:
    """Log a new entry: each break met while compiling, its graphs' code, its guards."""
    frame = f"{cache.frame_id}/{entry.compile_id}"
    if _logging.enabled("graph_breaks"):
        for kind, stack, reason in events:
            if kind == "break" and stack:
                _log_break(frame, stack, reason)
    if _logging.enabled("graph_code"):
        for graph in entry.graphs:
            _logging.emit("graph_code", frame, graph_code(graph))
    if _logging.enabled("guards"):
        _logging.emit("guards", frame, "\n".join(["GUARDS:", *guard_lines(entry.guards)]))


def _log_break(frame: str, stack: tuple, reason) -> None:
    where, line = next(
        s for s in reversed(stack) if not s[0].f_code.co_filename.startswith(PACKAGE)
    )
    site = f"{where.f_code.co_filename}:{line}"
    key = (site, reason.title)
    if key in _seen_breaks:
        head = (
            "Graph break (user stack suppressed due to duplicate graph break) "
            f"in user code at {site}"
        )
        _logging.emit("graph_breaks", frame, f"{head}\nGraph Break Reason: {reason.text()}")
        return
    _seen_breaks.add(key)
    lines = [
        f"Graph break in user code at {site}",
        f"Graph Break Reason: {reason.text()}",
        "User code traceback:",
    ]
    for f, n in stack:
        if f.f_code.co_filename.startswith(PACKAGE):
            continue
        entry = frames.entry((f, n), f.f_code.co_name)
        lines += [f'  File "{entry.filename}", line {n}, in {entry.name}', f"    {entry.line}"]
    _logging.emit("graph_breaks", frame, "\n".join(lines))


def graph_code(graph) -> str:
    """A captured graph as PyTorch's TRACED GRAPH listing: each op under its user line."""
    lines = [
        "TRACED GRAPH",
        f" ===== __compiled_fn_{next(_graph_numbers)} =====",
        " class GraphModule(torch.nn.Module):",
        "    def forward(self, ...):",
    ]
    last = None
    for i, (name, entry) in enumerate(graph.ops):
        if (entry.filename, entry.lineno) != last:
            last = (entry.filename, entry.lineno)
            lines += [
                "",
                f"        # File: {entry.filename}:{entry.lineno} in {entry.name}, "
                f"code: {entry.line}",
            ]
        lines.append(f"        {name}_{i} = {name}(...)")
    return "\n".join(lines + [""])


def guard_lines(guards) -> list:
    """The guards of an entry, one per line, in the shape of PyTorch's guard tree."""
    lines = [
        "TREE_GUARD_MANAGER:",
        "+- RootGuardManager",
        "| +- GLOBAL_STATE: ___check_global_state()",
    ]
    lines.append(f"| +- GRAD_MODE: torch.is_grad_enabled() == {guards.grad_mode}")
    for name, (dtype, sizes, requires_grad) in guards.tensors.items():
        shown = [s if s is not None else "None" for s in sizes]
        lines.append(
            f"| +- TENSOR_MATCH: check_tensor(L['{name}'], Tensor, {dtype}, "
            f"requires_grad={requires_grad}, size={shown})"
        )
    for name, (kind, value, *_) in guards.values.items():
        if kind == "value":
            lines.append(f"| +- EQUALS_MATCH: L['{name}'] == {value!r}")
        else:
            lines.append(f"| +- TYPE_MATCH: type(L['{name}']) is {value.__name__}")
    if guards.module is not None:
        lines.append(f"| +- ID_MATCH: ___check_obj_id(L['self'], {guards.module[0]})")
        lines.append(f"| +- TRAINING: L['self'].training == {guards.module[1][0]}")
    return lines
