"""Run the benchmarks side by side with torch and print medians, spreads and ratios.

    python bench/run.py [--quick] [--only NAME ...] [--groups ops train infer memory import]

Each library runs in its own process (bench/worker.py), so their thread pools never compete;
rounds alternate (torch, dyngrad, torch, dyngrad, ...) so machine drift hits both, after a
warm-up of each. The ratio is dyngrad's median over torch's, then the same for the fastest
rounds of each: below 1 is faster. The import group times `import dyngrad` and `import torch`
in fresh interpreters (bench/import_time.py).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import import_time  # noqa: E402
import training  # noqa: E402
import workloads  # noqa: E402

GROUPS = {"ops": workloads.OP_OVERHEAD, "train": training.TRAINING, "infer": training.INFERENCE}
HERE = os.path.dirname(os.path.abspath(__file__))
SETTLE = 0.1  # seconds between the end of one library's round and the start of the next


class Worker:
    """A library's benchmark process (bench/worker.py), asked for one timing at a time."""

    def __init__(self, lib: str):
        self.lib = lib
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "worker.py"), lib],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, **request):
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.lib} benchmark process died")
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def measure(workers: dict, name: str, rounds: int, min_seconds: float) -> dict:
    """Alternate the libraries round by round (A B A B ...), after a warm-up of each."""
    for worker in workers.values():
        worker.ask(cmd="time", name=name, min_seconds=min_seconds / 2)
    samples: dict = {lib: [] for lib in workers}
    for _ in range(rounds):
        for lib, worker in workers.items():
            # BLAS and OpenMP threads spin a while after their last job: let the other
            # library's go to sleep before this one is timed
            time.sleep(SETTLE)
            samples[lib].append(worker.ask(cmd="time", name=name, min_seconds=min_seconds))
    return samples


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.2f} us"
    return f"{seconds * 1e3:8.2f} ms"


def peak_rss_mb(lib: str, workload: str, steps: int = 20) -> float:
    """Peak resident memory of a fresh process that trains `workload` for `steps` steps."""
    code = (
        f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
        f"import {lib} as t, training; s = training.TRAINING[{workload!r}](t)\n"
        f"for _ in range({steps}): s()\n"
        # VmHWM, not ru_maxrss: the latter survives fork+exec from this (large) parent
        "print(next(l.split()[1] for l in open('/proc/self/status') "
        "if l.startswith('VmHWM')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1]) / 1024


def _row(name: str, samples: dict) -> str:
    medians = {lib: statistics.median(v) for lib, v in samples.items()}
    cells = "".join(
        f"{_fmt(medians[lib])} ({_fmt(min(v)).strip()}-{_fmt(max(v)).strip()})".rjust(28)
        for lib, v in samples.items()
    )
    ratio = ""
    if "torch" in medians:
        # the ratio of medians, then of minima: on a shared host a round that was slowed
        # down says little, and the fastest rounds of each library are the steadiest figure
        best = min(samples["dyngrad"]) / min(samples["torch"])
        ratio = f"{medians['dyngrad'] / medians['torch']:7.2f}x {best:6.2f}x"
    return f"{name:26s}{cells}  {ratio}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (about a minute)")
    parser.add_argument("--only", nargs="*", help="workload names to run")
    parser.add_argument(
        "--groups",
        nargs="*",
        default=["ops", "train", "infer", "memory", "import"],
        help="ops, train, infer, memory, import",
    )
    args = parser.parse_args(argv)
    libs = ["dyngrad"]
    if importlib.util.find_spec("torch") is not None:
        libs.insert(0, "torch")
    else:
        print("torch is not installed: printing dyngrad's times only")
    rounds, min_seconds = (5, 0.05) if args.quick else (11, 0.2)
    workers = {lib: Worker(lib) for lib in libs}
    try:
        print(f"{'workload':26s}" + "".join(f"{m:>28s}" for m in libs) + "   ratio (median, min)")
        for group in args.groups:
            for name in GROUPS.get(group, {}):
                if args.only and name not in args.only:
                    continue
                print(_row(name, measure(workers, name, rounds, min_seconds)), flush=True)
                if group == "train":
                    for lib, worker in workers.items():
                        times = worker.ask(
                            cmd="phases", name=name, iterations=10 if args.quick else 30
                        )
                        print(
                            f"    {lib:8s} phases: "
                            + "  ".join(f"{p} {_fmt(v).strip()}" for p, v in times.items()),
                            flush=True,
                        )
    finally:
        for worker in workers.values():
            worker.close()
    if "memory" in args.groups and (not args.only or "peak_rss_mlp" in args.only):
        rss = {lib: peak_rss_mb(lib, "mlp_784_sgd_b128") for lib in libs}
        cells = "".join(f"{rss[lib]:9.1f} MB".rjust(28) for lib in libs)
        ratio = f"{rss['dyngrad'] / rss['torch']:7.2f}x" if "torch" in rss else ""
        print(f"{'peak_rss_mlp':26s}{cells}  {ratio}")
    if "import" in args.groups and (not args.only or "import_time" in args.only):
        for line in import_time.rows(import_time.measure(libs, 3 if args.quick else 10)):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
