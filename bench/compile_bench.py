"""torch.compile on the seed SimpleMLP training step: dyngrad eager, dyngrad compiled, torch
eager and torch compiled (inductor when a C compiler is present, else aot_eager), one run.

    PYTHONPATH=src python bench/compile_bench.py [--steps 300] [--repeats 7]

Each figure is the median over `repeats` runs of `steps` full steps (zero_grad, forward,
backward, Adam step), in microseconds per step; ratios are against torch eager. The first
compiled call (capture, and for torch the backend compile) is timed apart.
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


def build(t, compile_kwargs):
    """The SimpleMLP step of bench/training.py, its model wrapped by torch.compile if asked."""
    step = training.simple_mlp(t)
    if compile_kwargs is None:
        return step, 0.0
    compiled = t.compile(step.model, **compile_kwargs)
    loss_fn = t.nn.MSELoss()
    x, y = training._data(t, 1, ((16, 20), "float"), ((16, 1), "float"))
    step._forward = lambda: loss_fn(compiled(x), y)
    start = time.perf_counter()
    step()
    return step, time.perf_counter() - start


def measure(step, steps: int, repeats: int) -> float:
    for _ in range(20):
        step()
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            step()
        runs.append((time.perf_counter() - start) / steps * 1e6)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    rows = [("dyngrad eager", dyngrad, None), ("dyngrad compiled", dyngrad, {})]
    try:
        import torch

        torch.set_num_threads(1)
        backend = "inductor" if shutil.which("cc") or shutil.which("gcc") else "aot_eager"
        rows = [("torch eager", torch, None), *rows]
        rows.append((f"torch compiled ({backend})", torch, {"backend": backend}))
    except ImportError:
        torch = None
    dyngrad.set_num_threads(1)
    results = {}
    for name, t, kwargs in rows:
        step, first = build(t, kwargs)
        results[name] = (measure(step, args.steps, args.repeats), first)
    base = results.get("torch eager", (None,))[0]
    print(f"SimpleMLP step (20-32-8-1, Adam, batch 16), median of {args.repeats} x {args.steps}")
    print(f"{'variant':32} {'us/step':>9} {'vs torch eager':>15} {'first call s':>13}")
    for name, (us, first) in results.items():
        ratio = f"{us / base:.2f}x" if base else "-"
        print(f"{name:32} {us:9.1f} {ratio:>15} {first:13.3f}")


if __name__ == "__main__":
    main()
