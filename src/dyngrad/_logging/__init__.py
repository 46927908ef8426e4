"""`torch._logging`: which compile events are logged (`set_logs`, or the TORCH_LOGS variable).

Matches `torch._logging.set_logs` for the artifacts dyngrad's compile produces: graph_breaks,
recompiles, guards, graph_code (and graph, an alias here). `TORCH_LOGS="graph_breaks,
recompiles"` in the environment turns them on at import, as PyTorch reads it.
"""

from __future__ import annotations

import datetime
import os
import sys

__all__ = ["set_logs", "enabled", "emit", "warning"]

ARTIFACTS = ("graph_breaks", "recompiles", "guards", "graph_code", "graph", "dynamo")
_on: set = set()


def set_logs(**kwargs) -> None:
    """Matches `torch._logging.set_logs(graph_breaks=True, recompiles=True, ...)`: each call
    replaces the previous settings, as PyTorch's does."""
    _on.clear()
    for name, value in kwargs.items():
        if name in ARTIFACTS and value:
            _on.add(name)
        elif name not in ARTIFACTS and not _accepted(name):
            raise ValueError(f"Unrecognized log or artifact name passed to set_logs: {name}")


def _accepted(name: str) -> bool:
    # component levels (dynamo=logging.DEBUG, ...) and artifacts dyngrad has nothing to log for
    return name in ("aot", "inductor", "dynamic", "output_code", "recompiles_verbose", "bytecode")


def _read_env() -> None:
    for name in os.environ.get("TORCH_LOGS", "").split(","):
        name = name.strip().lstrip("+")
        if name in ARTIFACTS:
            _on.add(name)


def enabled(artifact: str) -> bool:
    return artifact in _on or (artifact == "graph_code" and "graph" in _on)


def emit(artifact: str, frame: str, text: str, site: str = "dyngrad/_dynamo") -> None:
    """Write `text` as PyTorch's log lines: a header per line, `[frame/compile] [__artifact]`."""
    _write("V", f"{site}] [{frame}] [__{artifact}]", text)


def warning(frame: str, text: str, site: str) -> None:
    """Write `text` as PyTorch's default-on warnings (logged whatever TORCH_LOGS says)."""
    _write("W", f"{site}] [{frame}]", text)


def _write(level: str, where: str, text: str) -> None:
    # glog's layout, as torch._logging's: level, date and time, pid, then where it comes from
    now = datetime.datetime.now()
    head = f"{level}{now:%m%d %H:%M:%S.%f} {os.getpid()} {where}"
    stream = sys.stderr
    for line in text.split("\n"):
        stream.write(f"{head} {line}\n")
    stream.flush()


_read_env()
