"""Strides as PyTorch reports them: `expand` keeps a size-1 dim's stride where the size does
not change, rot90's odd turns are transposed copies, and `dim_order` (with its ambiguity checks) over random layouts."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

EXPANDS = [
    "t.tensor(5.0).expand(1)",
    "t.tensor(5.0).expand(3, 1)",
    "t.ones(3).expand(1, 3)",
    "t.ones(3).expand(1, 1, 3)",
    "t.ones(3, 1).expand(1, 3, 1)",
    "t.ones(3, 1).expand(3, 1)",
    "t.ones(3, 1).t().expand(2, 1, 3)",
    "t.ones(4, 3)[:, ::2].expand(2, 4, 2)",
    "t.ones(2, 1, 4).expand(2, 3, 4)",
    # rot90: an odd turn is a flipped copy seen transposed
    "t.rot90(t.ones(3, 4), 1)",
    "t.rot90(t.ones(3, 4), 2)",
    "t.rot90(t.ones(3, 4), -1)",
    "t.rot90(t.ones(2, 3, 4), 1, [0, 2])",
    "t.rot90(t.ones(2, 3, 4), 3, [2, 0])",
    "t.rot90(t.ones(2, 3, 4), 5, [1, 2])",
    # empty tensors: PyTorch's contiguous strides (a size 0 counted as 1)
    "t.empty(0, 3)",
    "t.zeros(2, 0, 3)",
    "t.ones(3, 0)",
    "t.empty(0)",
]


@pytest.mark.parametrize("expression", EXPANDS)
def test_expand_strides_match_torch(expression, torch):
    def run(t):
        out = eval(expression, {"t": t})
        return tuple(out.shape), out.stride()

    assert run(dyngrad) == run(torch)


def _layout(t, shape, channels_last, perm, expand, step):
    x = t.empty(shape)
    if channels_last:
        x = x.contiguous(memory_format=t.channels_last)
    if perm is not None:
        x = x.permute(*perm)
    if expand is not None:
        x = x.expand(*expand)
    return x[..., ::2] if step else x


def test_dim_order_matches_torch_on_random_layouts(torch):
    rng = np.random.default_rng(0)
    for _ in range(400):
        nd = int(rng.integers(0, 6))
        shape = tuple(int(s) for s in rng.integers(1, 4, nd))
        channels_last = nd == 4 and rng.random() < 0.3
        perm = [int(v) for v in rng.permutation(nd)] if nd else None
        sizes = _layout(torch, shape, channels_last, perm, None, False).shape
        expand = None
        if nd and rng.random() < 0.3:
            expand = [s if s != 1 or rng.random() < 0.7 else 3 for s in sizes]
            expand = [2, *expand] if rng.random() < 0.5 else expand
        step = bool(nd and rng.random() < 0.3)
        results = []
        for t in (dyngrad, torch):
            x = _layout(t, shape, channels_last, perm, expand, step)
            row = [tuple(x.stride())]
            for check in (False, True, [t.contiguous_format, t.channels_last]):
                try:
                    row.append(x.dim_order(ambiguity_check=check))
                except RuntimeError as exc:
                    row.append(str(exc))
            results.append(row)
        assert results[0] == results[1], (shape, channels_last, perm, expand, step)


def test_dim_order_examples():
    assert dyngrad.empty(2, 3, 5, 7).transpose(1, 2).dim_order() == (0, 2, 1, 3)
    nhwc = dyngrad.empty(2, 3, 5, 7).contiguous(memory_format=dyngrad.channels_last)
    assert nhwc.dim_order() == (0, 2, 3, 1)
    with pytest.raises(RuntimeError, match="^The tensor does not have unique dim order"):
        dyngrad.empty(1, 2, 3, 4).dim_order(ambiguity_check=True)
    with pytest.raises(TypeError, match="must be a bool or a list of memory formats"):
        dyngrad.empty(2).dim_order(ambiguity_check="yes")
