"""torch.compile on three training steps: dyngrad eager, dyngrad compiled, torch eager and torch
compiled (inductor when a C compiler is present, else aot_eager), side by side in one run.

    PYTHONPATH=src python bench/compile_bench.py [--steps 100] [--repeats 7] [--only NAME]

The workloads are bench/training.py's SimpleMLP (the model compiled), character LSTM (its
forward function compiled: the unrolled sequence and its loss) and mini-GPT (the model
compiled). Each figure is the median over `repeats` rounds of `steps` full steps (zero_grad, forward,
backward, optimizer step), in microseconds per step, the variants taking turns round by
round; ratios are against torch eager.
The first compiled call (dyngrad's capture; torch's Dynamo trace and backend compile) is
timed apart.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import training  # noqa: E402 - bench/ is not a package

import dyngrad  # noqa: E402

WORKLOADS = {
    "simple_mlp": (training.simple_mlp, "SimpleMLP step (20-32-8-1, dropout, Adam, batch 16)"),
    "char_lstm": (training.char_lstm, "char LSTM step (hidden 128, seq 32, batch 16, SGD)"),
    "mini_gpt": (training.mini_gpt, "mini-GPT step (2 blocks, d 128, seq 64, batch 8, AdamW)"),
}


def build(t, workload, compile_kwargs):
    """The workload's step; with `compile_kwargs`, its model (or forward) wrapped by
    `t.compile`, and the first step (which compiles) timed."""
    if compile_kwargs is None:
        return workload(t), 0.0
    step = workload(t, wrap=lambda fn: t.compile(fn, **compile_kwargs))
    start = time.perf_counter()
    step()
    return step, time.perf_counter() - start


def measure(steps_by_variant: dict, steps: int, repeats: int) -> dict:
    """Median microseconds per step of each variant. The variants take turns, one round of
    `steps` steps each per repeat, so that the machine's slow spells (it is shared) fall on
    all of them alike."""
    for step in steps_by_variant.values():
        for _ in range(max(3, steps // 10)):
            step()
    runs: dict = {label: [] for label in steps_by_variant}
    for _ in range(repeats):
        for label, step in steps_by_variant.items():
            start = time.perf_counter()
            for _ in range(steps):
                step()
            runs[label].append((time.perf_counter() - start) / steps * 1e6)
    return {label: statistics.median(r) for label, r in runs.items()}


def variants():
    rows = [("dyngrad eager", dyngrad, None), ("dyngrad compiled", dyngrad, {})]
    try:
        import torch
    except ImportError:
        return rows
    torch.set_num_threads(1)
    backend = "inductor" if shutil.which("cc") or shutil.which("gcc") else "aot_eager"
    return [
        ("torch eager", torch, None),
        *rows,
        (f"torch compiled ({backend})", torch, {"backend": backend}),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--only", choices=sorted(WORKLOADS), action="append")
    args = parser.parse_args()
    dyngrad.set_num_threads(1)
    rows = variants()
    for name in args.only or WORKLOADS:
        workload, title = WORKLOADS[name]
        steps = args.steps if name == "simple_mlp" else max(1, args.steps // 5)
        built = {label: build(t, workload, kwargs) for label, t, kwargs in rows}
        medians = measure({label: b[0] for label, b in built.items()}, steps, args.repeats)
        results = {label: (medians[label], built[label][1]) for label in built}
        base = results.get("torch eager", (None,))[0]
        print(f"{title}, median of {args.repeats} x {steps}")
        print(f"{'variant':32} {'us/step':>10} {'vs torch eager':>15} {'first call s':>13}")
        for label, (us, first) in results.items():
            ratio = f"{us / base:.2f}x" if base else "-"
            print(f"{label:32} {us:10.1f} {ratio:>15} {first:13.3f}")
        print()


if __name__ == "__main__":
    main()
