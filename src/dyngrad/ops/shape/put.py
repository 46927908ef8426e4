"""`put`/`put_`: write values at flat indices of a tensor (PutBackward0)."""

from __future__ import annotations

import numpy as np

from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public


def _put_fwd(xp, x, index, source, *, accumulate):
    out = x.copy()
    flat = out.reshape(-1)  # a view: `out` is a fresh contiguous copy
    if accumulate:
        xp.add.at(flat, index.reshape(-1), source.reshape(-1))
    else:
        flat[index.reshape(-1)] = source.reshape(-1)
    return out


def _put_x_grad(g, index, accumulate):
    if accumulate:
        return g
    return g.put(index, g.new_zeros(index.shape), False)


PUT = defop(
    "put",
    _put_fwd,
    {
        "x": _put_x_grad,
        "source": lambda g, index: g.take(index),
    },
)


def _check(input, index, source) -> None:
    if index._data.dtype != np.int64:
        raise RuntimeError(
            f"put_(): Expected a long tensor for index, but got {index.dtype._legacy}"
        )
    if input.dtype != source.dtype:
        raise RuntimeError(
            f"put_(): self and source expected to have the same dtype, but got "
            f"self.dtype = {input.dtype._legacy} and source.dtype = {source.dtype._legacy}"
        )
    if index.numel() != source.numel():
        raise IndexError(
            f"put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    n = input.numel()
    bad = index._data[(index._data >= n) | (index._data < -n)]
    if bad.size:
        raise IndexError(
            f"out of range: tried to access index {int(bad[0])} on a tensor of {n} elements."
        )


@public
def put(input, index, source, accumulate: bool = False):
    """Matches `torch.put`: a copy of input with `source` written at flat `index`."""
    _check(input, index, source)
    return apply(PUT, (input, index, source), {"accumulate": bool(accumulate)})


@public(function=False)
def put_(self, index, source, accumulate: bool = False):
    _check(self, index, source)
    return apply_inplace(PUT, (self, index, source), {"accumulate": bool(accumulate)}, name="put_")
