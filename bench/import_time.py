"""How long `import dyngrad` takes, beside `import torch` (and `import numpy`, its floor).

    python bench/import_time.py [--rounds 10] [numpy dyngrad torch]

Each round starts a fresh `python -c "import <lib>"` per library, in turn, so machine drift
hits all of them; prints the median and range of the wall time and of the CPU time (user +
system, steadier than wall time on a shared host). Interpreter start-up is included, as a
user's script pays it. `python bench/run.py --groups import` prints the same rows.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

# as on a user's machine, the warm-up import writes the bytecode cache of what is new or
# changed (PYTHONDONTWRITEBYTECODE would make every import compile those modules again)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def import_seconds(lib: str) -> tuple[float, float]:
    """(wall, CPU) seconds of a fresh interpreter that imports `lib`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", f"import {lib}"], check=True, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(libs: list[str], rounds: int) -> dict:
    """{lib: ([wall seconds], [CPU seconds])}, after one warm-up import of each."""
    for lib in libs:  # fills the OS file cache and writes the bytecode cache
        import_seconds(lib)
    samples: dict = {lib: ([], []) for lib in libs}
    for _ in range(rounds):
        for lib in libs:
            wall, cpu = import_seconds(lib)
            samples[lib][0].append(wall)
            samples[lib][1].append(cpu)
    return samples


def rows(samples: dict) -> list[str]:
    """Lines for bench/run.py's table: wall, then CPU; ratio is dyngrad over torch."""
    out = []
    for kind, index in (("wall", 0), ("cpu", 1)):
        cells, medians = "", {}
        for lib, values in samples.items():
            values = values[index]
            medians[lib] = statistics.median(values)
            cell = f"{medians[lib] * 1e3:.1f} ms ({min(values) * 1e3:.0f}-{max(values) * 1e3:.0f})"
            cells += cell.rjust(28)
        ratio = ""
        if "torch" in medians and "dyngrad" in medians:
            ratio = f"{medians['dyngrad'] / medians['torch']:7.2f}x"
        out.append(f"{'import_time_' + kind:26s}{cells}  {ratio}")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("libs", nargs="*", default=["numpy", "dyngrad", "torch"])
    args = parser.parse_args(argv)
    print(f"{'':26s}" + "".join(f"{lib:>28s}" for lib in args.libs))
    for line in rows(measure(args.libs, args.rounds)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
