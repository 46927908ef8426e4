"""Run the benchmarks side by side with torch and print medians, spreads and ratios.

    python bench/run.py [--quick] [--only NAME ...] [--groups ops train infer memory]

Runs alternate (torch, dyngrad, torch, dyngrad, ...) so machine drift hits both; each
library gets a warm-up first. The ratio is dyngrad's median over torch's: below 1 is faster.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import training  # noqa: E402
import workloads  # noqa: E402

GROUPS = {"ops": workloads.OP_OVERHEAD, "train": training.TRAINING, "infer": training.INFERENCE}
PHASES = ("zero_grad", "forward", "backward", "step")


def _time(fn, min_seconds: float) -> float:
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


def measure(setups: dict, rounds: int, min_seconds: float) -> dict:
    libs = {name: setup for name, setup in setups.items()}
    for fn in libs.values():  # warm-up
        _time(fn, min_seconds / 2)
    samples: dict = {name: [] for name in libs}
    for _ in range(rounds):
        for name, fn in libs.items():
            samples[name].append(_time(fn, min_seconds))
    return samples


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.2f} us"
    return f"{seconds * 1e3:8.2f} ms"


def phase_times(step, iterations: int) -> dict:
    """Seconds per iteration spent in each phase of a training Step (medians of runs)."""
    per_phase: dict = {p: [] for p in PHASES}
    for _ in range(iterations):
        for phase in PHASES:
            start = time.perf_counter()
            getattr(step, phase)()
            per_phase[phase].append(time.perf_counter() - start)
    return {p: statistics.median(v) for p, v in per_phase.items()}


def peak_rss_mb(lib: str, workload: str, steps: int = 20) -> float:
    """Peak resident memory of a fresh process that trains `workload` for `steps` steps."""
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
            f"import {lib} as t, training; s = training.TRAINING[{workload!r}](t)\n"
            f"for _ in range({steps}): s()\n"
            # VmHWM, not ru_maxrss: the latter survives fork+exec from this (large) parent
            "print(next(l.split()[1] for l in open('/proc/self/status') "
            "if l.startswith('VmHWM')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return int(out.stdout.split()[-1]) / 1024


def _row(name: str, samples: dict) -> str:
    medians = {lib: statistics.median(v) for lib, v in samples.items()}
    cells = "".join(f"{_fmt(medians[lib])} ({_fmt(min(v)).strip()}-{_fmt(max(v)).strip()})"
                    .rjust(28) for lib, v in samples.items())
    ratio = f"{medians['dyngrad'] / medians['torch']:7.2f}x" if "torch" in medians else ""
    return f"{name:26s}{cells}  {ratio}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (about a minute)")
    parser.add_argument("--only", nargs="*", help="workload names to run")
    parser.add_argument("--groups", nargs="*", default=["ops", "train", "infer", "memory"],
                        help="ops, train, infer, memory")
    args = parser.parse_args(argv)
    modules = {"dyngrad": importlib.import_module("dyngrad")}
    try:
        modules = {"torch": importlib.import_module("torch"), **modules}
    except ImportError:
        print("torch is not installed: printing dyngrad's times only")
    rounds, min_seconds = (5, 0.05) if args.quick else (11, 0.2)
    print(f"{'workload':26s}" + "".join(f"{m:>28s}" for m in modules) + "   ratio")
    for group in args.groups:
        for name, setup in GROUPS.get(group, {}).items():
            if args.only and name not in args.only:
                continue
            fns = {lib: setup(mod) for lib, mod in modules.items()}
            print(_row(name, measure(fns, rounds, min_seconds)), flush=True)
            if group == "train":
                iterations = 10 if args.quick else 30
                for lib, step in fns.items():
                    times = phase_times(step, iterations)
                    print(f"    {lib:8s} phases: " + "  ".join(
                        f"{p} {_fmt(v).strip()}" for p, v in times.items()), flush=True)
    if "memory" in args.groups and (not args.only or "peak_rss_mlp" in args.only):
        rss = {lib: peak_rss_mb(lib, "mlp_784_sgd_b128") for lib in modules}
        cells = "".join(f"{rss[lib]:9.1f} MB".rjust(28) for lib in modules)
        ratio = f"{rss['dyngrad'] / rss['torch']:7.2f}x" if "torch" in rss else ""
        print(f"{'peak_rss_mlp':26s}{cells}  {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
