"""Chrome trace files (chrome://tracing, Perfetto, TensorBoard's trace viewer) in the shape
`torch.profiler` writes: a JSON object whose `traceEvents` are complete ("X") events."""

from __future__ import annotations

import gzip
import json
import os
import socket
import time

__all__ = ["write_trace"]


def write_trace(events, path: str, origin_epoch_us: float, metadata: dict) -> None:
    """Write `events` (FunctionEvents) to `path` (gzip-compressed when it ends in .gz)."""
    pid = os.getpid()
    rows = [
        {"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python"}},
        {"ph": "M", "name": "process_labels", "pid": pid, "tid": 0, "args": {"labels": "CPU"}},
    ]
    threads = sorted({e.thread for e in events})
    for thread in threads:
        rows.append(
            {
                "ph": "M",
                "name": "thread_name",
                "pid": pid,
                "tid": thread,
                "args": {"name": f"thread {thread} (python)"},
            }
        )
    for index, event in enumerate(events):
        span = event.time_range
        args = {"External id": event.id, "Ev Idx": index}
        if event.input_shapes:
            args["Input Dims"] = event.input_shapes
        if event.sequence_nr >= 0:
            args["Sequence number"] = event.sequence_nr
        rows.append(
            {
                "ph": "X",
                "cat": event.kind,
                "name": event.trace_name,
                "pid": pid,
                "tid": event.thread,
                "ts": origin_epoch_us + span.start,
                "dur": span.elapsed_us(),
                "args": args,
            }
        )
    rows += _forward_backward_flows(events, pid, origin_epoch_us)
    trace = {
        "schemaVersion": 1,
        "deviceProperties": [],
        "host_name": socket.gethostname(),
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": int(origin_epoch_us * 1e3),
        "traceEvents": rows,
        "traceName": path,
        **metadata,
    }
    text = json.dumps(trace)
    if path.endswith(".gz"):
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        with open(path, "w") as f:
            f.write(text)


def _forward_backward_flows(events, pid: int, origin_epoch_us: float) -> list:
    """Arrows from each op that recorded a node to that node's backward event ("fwdbwd",
    as PyTorch draws them), linked by the node's sequence number."""
    forward, backward = {}, {}
    for event in events:
        if event.sequence_nr < 0:
            continue
        side = forward if event.name.startswith("aten::") else backward
        side.setdefault(event.sequence_nr, event)
    flows = []
    for seq in sorted(forward.keys() & backward.keys()):
        for phase, event in (("s", forward[seq]), ("f", backward[seq])):
            flow = {
                "ph": phase,
                "id": seq,
                "pid": pid,
                "tid": event.thread,
                "ts": origin_epoch_us + event.time_range.start,
                "cat": "fwdbwd",
                "name": "fwdbwd",
            }
            if phase == "f":
                flow["bp"] = "e"
            flows.append(flow)
    return flows


def now_epoch_us() -> float:
    return time.time_ns() / 1e3
