"""Random draws, dyngrad beside torch: the price of drawing PyTorch's numbers bit for bit.

    python bench/random_streams.py [--repeats 9]

Median time of each call (both libraries draw the same values; see docs/random.md).
"""

from __future__ import annotations

import argparse
import statistics
import time

CASES = {
    "randn(10**6)": lambda t: t.randn(10**6),
    "randn(10**6, float64)": lambda t: t.randn(10**6, dtype=t.float64),
    "rand(10**6)": lambda t: t.rand(10**6),
    "randn(1000)": lambda t: t.randn(1000),
    "randn(3)": lambda t: t.randn(3),
    "randint(10, (10**6,))": lambda t: t.randint(10, (10**6,)),
    "randperm(60000)": lambda t: t.randperm(60000),
    "dropout(256x1024)": lambda t: t.nn.functional.dropout(t.ones(256, 1024), 0.5),
    "Linear(1024, 1024)": lambda t: t.nn.Linear(1024, 1024),
}


def median_seconds(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    import dyngrad

    try:
        import torch
    except ImportError:
        torch = None
    print(f"{'call':24s} {'dyngrad ms':>11s} {'torch ms':>9s} {'ratio':>6s}")
    for name, case in CASES.items():
        ours = median_seconds(lambda: case(dyngrad), args.repeats)
        theirs = median_seconds(lambda: case(torch), args.repeats) if torch else float("nan")
        print(f"{name:24s} {ours * 1e3:11.2f} {theirs * 1e3:9.2f} {ours / theirs:6.1f}")


if __name__ == "__main__":
    main()
