"""The affine map `x @ weight.T + bias` as one row, so a frozen layer saves no activation."""

from __future__ import annotations

import math

from ..._tensor import Tensor
from ..arrays import gemm
from ..linalg.products import (
    _dtype_check,
    _mm,  # mm's fast form: the formulas' shapes are right by construction
)
from ..table.array_backward import ArrayBackward
from ..table.record import apply
from ..table.registry import defop


# PyTorch computes a biased 2-d linear as addmm(bias, x, weight.t()): hence the node name.
# Each formula reads only what its input needs: with weight and bias frozen, x's formula
# reads weight alone, so the node saves no activation (seed 000).
@gemm.rounds_once  # float16/bfloat16: the bias added before the one rounding
def _linear_fwd(xp, x, weight, bias):
    if x.shape[0] == 1:  # one sample: BLAS's matrix-vector product, which matmul does not call
        out = xp.dot(weight, x[0]).reshape(1, -1)
    else:
        out = gemm.mm(xp, x, weight.T)  # See Note [GEMM orientation]
    if out.dtype == bias.dtype and bias.ndim <= out.ndim:  # a fresh product: add in place
        out += bias
        return out
    return out + bias


def _linear_kernel(xp, needs, g, x, weight):
    # the formulas on arrays (Note [Array backwards]); the bias's gradient is summed by the node
    return (g @ weight if needs[0] else None, g.T @ x if needs[1] else None, g)


LINEAR = defop(
    "linear",
    _linear_fwd,
    {
        "x": lambda g, weight: _mm(g, weight),
        "weight": lambda g, x: _mm(g.t(), x),
        "bias": lambda g: g,
    },
    node="AddmmBackward0",
    array_backward=ArrayBackward(_linear_kernel),
)


def _raise_mismatch(input: Tensor, weight: Tensor, bias) -> None:
    """PyTorch's error for operands linear cannot multiply (only called when one is wrong)."""
    x, w = input._data, weight._data
    if x.ndim == 0 or w.ndim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {x.ndim}D and {w.ndim}D"
        )
    k = x.shape[-1]
    if w.ndim != 2 or w.shape[1] != k:
        rows = x.size // max(k, 1) if x.ndim > 1 else 1
        cols = f"{w.shape[1]}x{w.shape[0]}" if w.ndim == 2 else "x".join(map(str, w.shape))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and {cols})")
    if bias is not None:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got "
            f"{input.dtype._legacy} and {weight.dtype._legacy}"
        )

    _dtype_check(input, weight)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Matches `torch.nn.functional.linear`: `input @ weight.T + bias`, with torch's nodes."""
    x, w = input._data, weight._data
    if w.ndim == 1 and x.ndim:  # a vector of weights: one output per row, as matmul gives
        out = input.matmul(weight)
        return out if bias is None else out + bias
    if x.ndim == 0 or w.ndim != 2 or x.shape[-1] != w.shape[1] or x.dtype != w.dtype:
        _raise_mismatch(input, weight, bias)
    if bias is None:
        return input.matmul(weight.t())
    b = bias._data
    if x.ndim == 2:
        _check_addmm_bias(bias, input, x.shape[0], w.shape[0])
        return apply(LINEAR, (input, weight, bias))
    # other ranks: PyTorch runs a contiguous input with a bias of one row through addmm on a
    # flattened view (ViewBackward0 over AddmmBackward0), anything else as matmul, then add
    if x.flags.c_contiguous and (b.ndim == 1 or b.ndim == 2 and b.shape[0] == 1):
        rows = math.prod(x.shape[:-1])
        _check_addmm_bias(bias, input, rows, w.shape[0])
        out = apply(LINEAR, (input.reshape(rows, x.shape[-1]), weight, bias))
        return out.view(*x.shape[:-1], w.shape[0])
    return input.matmul(weight.t()).add_(bias)


def _check_addmm_bias(bias: Tensor, input: Tensor, rows: int, columns: int) -> None:
    # addmm expands the bias to the product's (rows, columns): PyTorch's errors if it cannot
    b = bias._data
    if b.dtype != input._data.dtype:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got "
            f"{bias.dtype._legacy} and {input.dtype._legacy}"
        )
    if b.shape != (columns,):
        bias.expand(rows, columns)  # raises expand's own message when it does not fit
