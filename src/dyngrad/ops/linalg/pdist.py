"""`pdist`: the p-norm distances between every pair of rows, i < j (PdistBackward0)."""

from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor
from ...runtime.dtypes import LOW_PRECISION
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .distance import _cdist_fwd, _cdist_pair_grad


def _pairs(n: int):
    return np.triu_indices(n, 1)


def _pdist_fwd(xp, x, *, p):
    i, j = _pairs(x.shape[0])
    return _cdist_fwd(xp, x[i][:, None, :], x[j][:, None, :], p=p)[:, 0, 0]


def _pdist_grad(g, x, p, out):
    i, j = (Tensor._wrap(k.astype(np.int64)) for k in _pairs(x.shape[0]))
    a, b = x.index_select(0, i), x.index_select(0, j)
    # each pair's gradient, as cdist's for one row against one row
    slope = _cdist_pair_grad(
        g.reshape(-1, 1, 1), a.unsqueeze(1), b.unsqueeze(1), p, out.reshape(-1, 1, 1)
    )
    slope = slope.reshape(a.shape)
    return x.new_zeros(x.shape).index_add(0, i, slope).index_add(0, j, -slope)


PDIST = defop("pdist", _pdist_fwd, {"x": _pdist_grad})


@public(method=False)
def pdist(input, p: float = 2):
    """Matches `torch.pdist`: the distances between rows i < j, in row-major order."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if input._data.dtype in LOW_PRECISION:  # PyTorch's kernel has no half types
        raise NotImplementedError(f"\"pdist\" not implemented for '{input.dtype._legacy}'")
    p = float(p) if p != math.inf else math.inf
    return apply(PDIST, (input.contiguous(),), {"p": p})  # PyTorch's kernel takes C order
