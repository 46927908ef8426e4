"""One library's benchmark process: bench/run.py drives one per library over a pipe.

Each library runs in its own process so their thread pools (torch's OpenMP, NumPy's
OpenBLAS) never compete for the cores while the other one is being timed.
"""

from __future__ import annotations

import importlib
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import training  # noqa: E402
import workloads  # noqa: E402

WORKLOADS = {**workloads.OP_OVERHEAD, **training.TRAINING, **training.INFERENCE}
PHASES = ("zero_grad", "forward", "backward", "step")


def seconds_per_call(fn, min_seconds: float) -> float:
    """Seconds per call of `fn`, from a loop long enough to read the clock well."""
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return elapsed / n
        n *= 2 if elapsed < min_seconds / 4 else 1 + int(min_seconds / max(elapsed, 1e-9))


def phase_times(step, iterations: int) -> dict:
    """Median seconds per iteration spent in each phase of a training Step."""
    per_phase: dict = {p: [] for p in PHASES}
    for _ in range(iterations):
        for phase in PHASES:
            start = time.perf_counter()
            getattr(step, phase)()
            per_phase[phase].append(time.perf_counter() - start)
    return {p: statistics.median(v) for p, v in per_phase.items()}


def main() -> None:
    module = importlib.import_module(sys.argv[1])
    made: dict = {}
    for line in sys.stdin:
        request = json.loads(line)
        name = request.get("name")
        if name is not None and name not in made:
            made[name] = WORKLOADS[name](module)
        if request["cmd"] == "time":
            reply = seconds_per_call(made[name], request["min_seconds"])
        elif request["cmd"] == "phases":
            reply = phase_times(made[name], request["iterations"])
        else:
            break
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
