"""The mini-GPT training step in float32 and under bfloat16 autocast, and the bytes each saves.

    python bench/amp_bench.py [--rounds N] [--libs dyngrad torch]

For each library (torch when installed) it times one training iteration (zero_grad, forward,
backward, AdamW step) of bench/training.py's mini-GPT, in float32 and with the forward under
`autocast("cpu", dtype=bfloat16)`, and counts the bytes the graph saves for backward after
the forward (every saved tensor once, through the saved-tensor hooks, so both libraries are
measured the same way; for dyngrad also `autograd.graph.saved_bytes`). Medians of N rounds.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import training  # noqa: E402


def _autocast_step(t, use_amp: bool):
    step = training.mini_gpt(t)
    forward = step._forward

    def run_forward():
        with t.autocast("cpu", dtype=t.bfloat16, enabled=use_amp):
            return forward()

    step._forward = run_forward
    return step


def saved_bytes(t, step) -> int:
    """Bytes the forward saves for backward: each saved tensor's storage counted once."""
    seen = {}

    def pack(tensor):
        key = (tensor.data_ptr(), tensor.dtype)
        seen[key] = max(seen.get(key, 0), tensor.numel() * tensor.element_size())
        return tensor

    step.zero_grad()
    with t.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
        step.forward()
    step.loss = None
    return sum(seen.values())


def time_step(step, rounds: int) -> float:
    step()  # warm-up: optimizer state, caches
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(name: str, rounds: int) -> dict:
    t = importlib.import_module(name)
    t.manual_seed(0)
    out = {}
    for label, use_amp in (("float32", False), ("bf16 autocast", True)):
        step = _autocast_step(t, use_amp)
        out[label] = {"ms": 1e3 * time_step(step, rounds), "saved": saved_bytes(t, step)}
        if name == "dyngrad":
            step.zero_grad()
            step.forward()
            out[label]["saved_bytes()"] = t.autograd.graph.saved_bytes(step.loss)
            step.loss = None
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--libs", nargs="+", default=["dyngrad", "torch"])
    args = parser.parse_args()
    print("mini-GPT (2 blocks, d 128, seq 64, batch 8) training step, median of", args.rounds)
    for name in args.libs:
        if importlib.util.find_spec(name) is None:
            print(f"{name}: not installed")
            continue
        result = measure(name, args.rounds)
        full, low = result["float32"], result["bf16 autocast"]
        for label, r in result.items():
            extra = (
                f"  saved_bytes() {r['saved_bytes()'] / 2**20:6.2f} MiB"
                if name == "dyngrad"
                else ""
            )
            print(
                f"{name:8} {label:14} step {r['ms']:8.1f} ms  saved {r['saved'] / 2**20:6.2f} MiB"
                + extra
            )
        print(
            f"{name:8} autocast/float32: time x{low['ms'] / full['ms']:.2f}, "
            f"saved bytes x{low['saved'] / full['saved']:.2f}"
        )


if __name__ == "__main__":
    main()
