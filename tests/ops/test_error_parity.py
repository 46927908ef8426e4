"""Errors that once fell through to NumPy's wording or named the wrong operand, now PyTorch's.

Found by sweeping common ops with mismatched shapes against torch (first line compared).
"""

from __future__ import annotations

import numpy as np
import pytest

from .oracle import same

ENV = {
    "a": np.ones((2, 3), np.float32),
    "b": np.ones((3, 4), np.float32),
    "x": np.ones((2, 3, 4), np.float32),
}


@pytest.mark.parametrize(
    "expr",
    [
        # advanced indexing numbers an index by its place among the index tensors
        "x[:, t.tensor([5])]",
        "x[:, :, t.tensor([9])]",
        "x[t.tensor([0]), t.tensor([7])]",
        "x[:, t.tensor([0]), t.tensor([7])]",
        "x[None, :, t.tensor([4])]",
        "x[..., t.tensor([4])]",
        "x[t.tensor([-3])]",
        "x[[0, 5]]",
        # expand checks from the last dim
        "a.expand_as(b)",
        "a.expand(3, 4)",
        "a[:, :1].expand(3, 4)",
        # masked_fill names the mask first out of place, the tensor first in place
        "a.masked_fill(b > 0, 1.0)",
        "a.masked_fill_(b[:1] > 0, 1.0)",
        "t.take_along_dim(a, t.zeros(3, 3, dtype=t.long), 1)",
        "t.outer(a, b[0])",
        "t.outer(a[0], b)",
        "t.addr(a, a, b[0])",
        "a.add_(b)",
        "a.copy_(b)",
        "t.where(a > 0, a, b)",
        "t.mm(a, b.t())",
    ],
)
def test_shape_errors_match_torch(torch, expr):
    same(torch, expr, **ENV)
