"""torch.histogramdd against torch: bin counts, edges given or spaced, ranges, weights,
density, empty and batched input, and errors."""

from __future__ import annotations

import numpy as np
import pytest

from .oracle import same

RNG = np.random.default_rng(4)
ENV = {
    "x": np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]], np.float32),
    "w": np.array([1.0, 2.0, 4.0, 8.0], np.float32),
    "r": RNG.standard_normal((50, 3)),
    "rw": RNG.random(50),
    "e0": np.array([0.0, 1.0, 2.0], np.float32),
    "e1": np.array([0.0, 0.5, 3.0], np.float32),
}

CHECKS = """t.histogramdd(x, bins=[3, 3], weight=w) | t.histogramdd(x, bins=2, range=[0.0, 1.0, 0.0, 1.0], density=True)
t.histogramdd(x, bins=[e0, e1]) | t.histogramdd(t.ones(3, 2), bins=2) | t.histogramdd(x, bins=(2, 3))
t.histogramdd(x, 2) | t.histogramdd(t.zeros(0, 2), bins=2) | t.histogramdd(x.reshape(2, 2, 2), bins=2)
t.histogramdd(r, bins=[4, 3, 5]) | t.histogramdd(r, bins=4, weight=rw, density=True)
t.histogramdd(r, bins=3, range=[-1.0, 1.0, -0.5, 0.5, 0.0, 2.0]) | t.histogramdd(x, bins=[e0.flip(0), e1])
t.histogramdd(x, bins=[e0, e1], density=True) | t.histogramdd(x, bins=[2]) | t.histogramdd(x, bins=2, range=[0.0, 1.0])
t.histogramdd(x, bins=2, range=[1.0, 0.0, 0.0, 1.0]) | t.histogramdd(x.long(), bins=2) | t.histogramdd(x[0], bins=2)
t.histogramdd(x, bins=0) | t.histogramdd(x, bins=[e0, e1.double()]) | t.histogramdd(x, bins=2, weight=w[:3])
t.histogramdd(x.fill_(float('inf')), bins=2) | t.histogramdd(x, bins=[e0[None], e1]) | t.histogramdd(x, bins=[e0[:0], e1])"""


@pytest.mark.parametrize(
    "expr", [e.strip() for line in CHECKS.splitlines() for e in line.split("|")]
)
def test_histogramdd_matches_torch(torch, expr):
    same(torch, expr, **ENV)


def test_histogramdd_returns_its_named_tuple(lib):
    hist, edges = lib.histogramdd(lib.tensor(ENV["x"]), bins=2)
    result = lib.histogramdd(lib.tensor(ENV["x"]), bins=2)
    assert type(result).__name__ == "histogramdd" and result.hist.shape == (2, 2)
    assert isinstance(result.bin_edges, tuple) and len(edges) == 2
