"""Chained matrix products in the cheapest order: `torch.linalg.multi_dot` and the deprecated
`torch.chain_matmul`. Composites of `mm`, recording PyTorch's nodes (MmBackward0s under one
ViewBackward0)."""

from __future__ import annotations

import warnings

from ..._tensor_errors import CPP_TYPE_NAMES
from ...runtime.warn_always import warn_once
from ..table.surface import public
from .products import mm


def _as_matrices(tensors) -> tuple[list, list]:
    """The operands as matrices (a 1-D first is a row, a 1-D last a column) and the
    result's shape, after PyTorch's checks in its order."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    matrices = list(tensors)
    shape = []
    if first.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.dim()}D")
    if first.dim() == 1:
        matrices[0] = first.unsqueeze(0)
    else:
        shape.append(first.shape[0])
    if last.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.dim()}D")
    if last.dim() == 1:
        matrices[-1] = last.unsqueeze(-1)
    else:
        shape.append(last.shape[1])
    for i in range(1, n - 1):
        if tensors[i].dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].dim()}D")
    for i in range(1, n):
        if matrices[i].dtype != matrices[0].dtype:
            raise RuntimeError(
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{_type_name(matrices[0])} and tensor {i} {_type_name(matrices[i])}"
            )
        if matrices[i - 1].shape[-1] != matrices[i].shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i - 1} and {i} with shapes {list(tensors[i - 1].shape)} "
                f"and {list(tensors[i].shape)} cannot be multiplied"
            )
    return matrices, shape


def _type_name(t) -> str:
    return CPP_TYPE_NAMES.get(t.dtype.name, t.dtype.name)


def _chain_order(dims: list) -> list:
    """The classic dynamic program: split[i][j] is where the cheapest product of matrices
    i..j splits, matrix k being dims[k] x dims[k + 1]."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _product(matrices, split, i: int, j: int):
    if i == j:
        return matrices[i]
    k = split[i][j]
    return mm(_product(matrices, split, i, k), _product(matrices, split, k + 1, j))


def _multiply(matrices):
    if len(matrices) == 2:
        return mm(*matrices)
    if len(matrices) == 3:  # (AB)C costs a c (b + d), A(BC) costs b d (a + c)
        a, b = matrices[0].shape
        c, d = matrices[2].shape
        if a * c * (b + d) > b * d * (a + c):
            return mm(matrices[0], mm(matrices[1], matrices[2]))
        return mm(mm(matrices[0], matrices[1]), matrices[2])
    dims = [m.shape[0] for m in matrices] + [matrices[-1].shape[1]]
    return _product(matrices, _chain_order(dims), 0, len(matrices) - 1)


def multi_dot(tensors, *, out=None):
    """Matches `torch.linalg.multi_dot`: the product of the matrices, in the order with the
    fewest multiplications; a 1-D first (last) operand is a row (column) vector."""
    matrices, shape = _as_matrices(list(tensors))
    return _multiply(matrices).view(shape)


@public(method=False)
def chain_matmul(*matrices, out=None):
    """Matches `torch.chain_matmul` (deprecated: warns once, as PyTorch)."""
    if warn_once("chain_matmul"):
        warnings.warn(
            "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. "
            "Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors "
            "rather than multiple parameters.",
            UserWarning,
            stacklevel=2,
        )
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(matrices)
