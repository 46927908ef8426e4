"""Arguments real programs pass: `size=` to the factories, `range` objects as indices."""

from __future__ import annotations

import numpy as np
import pytest

from .oracle import same, same_grads

FACTORIES = """t.zeros(size=(2, 3)) | t.ones(size=t.Size([2])) | t.empty(size=[2]).shape
t.full(size=(2,), fill_value=1.5) | t.rand(size=(2,)).shape | t.randn(size=[2, 3], generator=None).shape
t.rand(size=(2,), dtype=t.float64).dtype | t.randint(0, 5, size=(3,)).shape | t.randint(high=5, size=(3,)).shape
t.randint(size=(2,), high=3).shape | t.randint(low=1, high=5, size=(3,)).shape | t.zeros(size=[])
t.zeros(size=2) | t.zeros([2, 3], size=(2,)) | t.zeros(2, 3, size=(2,)) | t.zeros(size=(2.0,))
t.ones(size=2) | t.empty(2, size=(2,))"""


@pytest.mark.parametrize(
    "expr", [e.strip() for line in FACTORIES.splitlines() for e in line.split("|")]
)
def test_factories_take_size_as_a_keyword(torch, expr):
    same(torch, expr.replace(".dtype", ".dtype.is_floating_point"))


INDEX = """x[range(2)] | x[range(3), 5] | x[range(2), range(2)] | x[range(1, 3), :] | x[:, range(2)]
x[range(0)] | x[(range(2),)] | x[range(2), None] | v[range(3)] | x[range(1, 3), 2] | x[range(0, 3, 2), -1]"""


@pytest.mark.parametrize(
    "expr", [e.strip() for line in INDEX.splitlines() for e in line.split("|")]
)
def test_range_indices_read_as_torchs(torch, expr):
    same_grads(torch, expr, x=np.arange(18.0).reshape(3, 6), v=np.arange(4.0))


WRITES = ["[range(3), 5]", "[range(2)]", "[range(1, 3), 2:]", "[:, range(2)]", "[0, range(2)]"]


@pytest.mark.parametrize("key", WRITES)
def test_range_index_assignment_records_torchs_history(torch, key):
    """`x[range(n), 5] = v` writes through a view (CopySlices) as PyTorch does; gradients too."""
    results = []
    for lib in (__import__("dyngrad"), torch):
        x = lib.zeros(3, 6, requires_grad=True)
        y = x * 1
        exec(f"y{key} = 7.0", {}, {"y": y})
        y.backward(lib.arange(18.0).view(3, 6))
        results.append((y.tolist(), y.grad_fn.name(), x.grad.tolist()))
    assert results[0] == results[1]
