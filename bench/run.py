"""Run the benchmarks side by side with torch and print medians, spreads and ratios.

    python bench/run.py [--quick] [--only NAME ...]

Runs alternate (torch, dyngrad, torch, dyngrad, ...) so machine drift hits both; each
library gets a warm-up first. The ratio is dyngrad's median over torch's: below 1 is faster.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import workloads  # noqa: E402


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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (about a minute)")
    parser.add_argument("--only", nargs="*", help="workload names to run")
    args = parser.parse_args(argv)
    modules = {"dyngrad": importlib.import_module("dyngrad")}
    try:
        modules = {"torch": importlib.import_module("torch"), **modules}
        modules["torch"].set_num_threads(os.cpu_count() or 1)
    except ImportError:
        print("torch is not installed: printing dyngrad's times only")
    rounds, min_seconds = (5, 0.05) if args.quick else (11, 0.2)
    selected = {k: v for k, v in workloads.OP_OVERHEAD.items()
                if not args.only or k in args.only}
    print(f"{'workload':22s}" + "".join(f"{m:>26s}" for m in modules) + "   ratio")
    for name, setup in selected.items():
        fns = {lib: setup(mod) for lib, mod in modules.items()}
        samples = measure(fns, rounds, min_seconds)
        medians = {lib: statistics.median(v) for lib, v in samples.items()}
        cells = "".join(f"{_fmt(medians[lib])} ({_fmt(min(v)).strip()}-{_fmt(max(v)).strip()})"
                        .rjust(26) for lib, v in samples.items())
        ratio = (f"{medians['dyngrad'] / medians['torch']:7.2f}x" if "torch" in medians
                 else "")
        print(f"{name:22s}{cells}  {ratio}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
