"""Benchmark workloads, written once against a torch-like module `t` (dyngrad or torch).

Each workload is `setup(t) -> callable`; the callable runs one iteration. Data is made with
NumPy from a fixed seed, so both libraries see the same numbers.
"""

from __future__ import annotations

import numpy as np


def _arrays(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def op(name: str, requires_grad: bool):
    """One op on 16x32 float32 tensors (32x32 for matmul's right side)."""

    def setup(t):
        a, b, w = _arrays((16, 32), (16, 32), (32, 32))
        x, y, W = (t.from_numpy(v.copy()).requires_grad_(requires_grad) for v in (a, b, w))
        return {
            "add": lambda: x + y,
            "mul": lambda: x * y,
            "matmul": lambda: x @ W,
            "relu": lambda: x.relu(),
            "sum": lambda: x.sum(),
        }[name]

    return setup


def matmul_relu_step(t):
    """One step of `(x @ W).relu().sum().backward()` with W 32x32."""
    a, w = _arrays((16, 32), (32, 32))
    x = t.from_numpy(a)
    W = t.from_numpy(w).requires_grad_(True)

    def step():
        W.grad = None
        (x @ W).relu().sum().backward()

    return step


OP_OVERHEAD = {
    f"{name}{'_rg' if rg else ''}": op(name, rg)
    for name in ("add", "mul", "matmul", "relu", "sum")
    for rg in (False, True)
}
OP_OVERHEAD["matmul_relu_step"] = matmul_relu_step
