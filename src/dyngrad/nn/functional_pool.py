"""Pooling built from other ops, as PyTorch builds it: power-average pooling (`lp_pool1d/2d/3d`)
and local response normalization (an average of squares across channels)."""

from __future__ import annotations

import math

from ..ops.nn.conv import _tuple
from ..ops.nn.pool_functional import (
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    max_pool1d,
    max_pool2d,
    max_pool3d,
)
from .functional_pad import pad

_AVG = {1: avg_pool1d, 2: avg_pool2d, 3: avg_pool3d}
_MAX = {1: max_pool1d, 2: max_pool2d, 3: max_pool3d}


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, nd: int):
    # (sum over the window of x^p)^(1/p): the window's average times its size; p = ±inf is
    # the largest (smallest) |x|
    if norm_type == math.inf:
        return _MAX[nd](input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -math.inf:
        return -_MAX[nd](-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    size = math.prod(_tuple(kernel_size, nd))
    powered = input.pow(norm_type)
    if stride is None:
        out = _AVG[nd](powered, kernel_size, padding=0, ceil_mode=ceil_mode)
    else:
        out = _AVG[nd](powered, kernel_size, stride, 0, ceil_mode)
    # PyTorch's sign(out) * relu(|out|) keeps the gradient of a zero average at zero
    return (out.sign() * out.abs().relu()).mul(size).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Matches `torch.nn.functional.lp_pool1d`."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Matches `torch.nn.functional.lp_pool2d`."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Matches `torch.nn.functional.lp_pool3d`."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Matches `torch.nn.functional.local_response_norm`: each element divided by
    (k + alpha * mean of the squares over `size` neighbouring channels) ** beta."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dim} "
            "dimensions)"
        )
    if input.numel() == 0:
        return input
    # the channels become a pooled spatial dim, zero-padded so the window centres on each
    square = input.mul(input)
    before, after = size // 2, (size - 1) // 2
    if dim == 3:
        square = pad(square.unsqueeze(1), (0, 0, before, after))
        div = avg_pool2d(square, (size, 1), stride=1).squeeze(1)
    else:
        shape = input.shape
        square = pad(square.view(shape[0], 1, shape[1], shape[2], -1), (0, 0, 0, 0, before, after))
        div = avg_pool3d(square, (size, 1, 1), stride=1).squeeze(1).view(shape)
    return input / div.mul(alpha).add(k).pow(beta)


__all__ = ["local_response_norm", "lp_pool1d", "lp_pool2d", "lp_pool3d"]
