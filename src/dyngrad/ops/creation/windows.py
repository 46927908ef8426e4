"""Window functions (hann, hamming, blackman, bartlett, kaiser), the deprecated
`torch.range` and `torch.vander`."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..._tensor import Tensor
from ...runtime import dtypes
from ..elementwise.special_bessel import i0_array
from ..table.surface import public
from .factories import empty


def _window(name, window_length, periodic, dtype, requires_grad, values):
    dtype = dtype or dtypes.get_default_dtype()
    if window_length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window length, got window_length={window_length}"
        )
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length == 0:
        return Tensor._wrap(np.zeros(0, dtype.np)).requires_grad_(requires_grad)
    if window_length == 1:
        return Tensor._wrap(np.ones(1, dtype.np)).requires_grad_(requires_grad)
    n = window_length + 1 if periodic else window_length
    k = np.arange(n, dtype=dtype.np)
    out = values(k, dtype.np.type(n - 1)).astype(dtype.np, copy=False)
    return Tensor._wrap(out[:window_length].copy()).requires_grad_(requires_grad)


# each window is computed in its dtype, in PyTorch's order of operations, so that float32
# windows round as PyTorch's do


@public(method=False)
def hann_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
):
    """Matches `torch.hann_window`."""
    return _window("hann_window", window_length, periodic, dtype, requires_grad, _hamming(0.5, 0.5))


def _hamming(alpha, beta):
    def values(k, d):
        return np.cos(k * k.dtype.type(2 * math.pi / d)) * k.dtype.type(-beta) + k.dtype.type(alpha)

    return values


@public(method=False)
def hamming_window(
    window_length: int,
    periodic: bool = True,
    alpha: float = 0.54,
    beta: float = 0.46,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
):
    """Matches `torch.hamming_window`: alpha - beta cos(2 pi n / (N - 1))."""
    return _window(
        "hamming_window", window_length, periodic, dtype, requires_grad, _hamming(alpha, beta)
    )


def _blackman(k, d):
    t = k.dtype.type
    w = k * t(math.pi / d)
    return np.cos(w * t(4)) * t(0.08) - np.cos(w * t(2)) * t(0.5) + t(0.42)


@public(method=False)
def blackman_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
):
    """Matches `torch.blackman_window`."""
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, _blackman)


def _triangle(k, d):
    w = k * k.dtype.type(2 / d)
    half = (int(d) >> 1) + 1
    w[half:] = k.dtype.type(2) - w[half:]
    return w


@public(method=False)
def bartlett_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
):
    """Matches `torch.bartlett_window`: a triangle."""
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, _triangle)


@public(method=False)
def kaiser_window(
    window_length: int,
    periodic: bool = True,
    beta: float = 12.0,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
):
    """Matches `torch.kaiser_window`: I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta)."""

    def kaiser(k, d):
        alpha = d / 2
        arg = beta * np.sqrt(np.maximum(1 - ((k - alpha) / alpha) ** 2, 0))
        return i0_array(arg.astype(np.float64)) / i0_array(np.float64(beta))

    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, kaiser)


_RANGE_DEPRECATED = (
    "torch.range is deprecated and will be removed in a future release because its behavior "
    "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
    "values in [start, end)."
)


@public(method=False)
def range(
    start=0,
    end=None,
    step=1,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
):  # noqa: A001
    """Matches `torch.range` (deprecated): values from start to end, end included."""
    warnings.warn(_RANGE_DEPRECATED, UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    dtype = dtype or dtypes.get_default_dtype()
    count = int(math.floor((end - start) / step)) + 1
    values = start + np.arange(count, dtype=np.float64) * step
    return Tensor._wrap(values.astype(dtype.np)).requires_grad_(requires_grad)


@public(method=False)
def vander(x, N=None, increasing: bool = False):  # noqa: N803 - PyTorch's name
    """Matches `torch.vander`: columns x^0 .. x^(N-1), highest power first unless increasing."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = dtypes.promote_types(x.dtype, dtypes.int64)
    result = empty((x.shape[0], n), dtype=dtype)
    if n > 0:
        result.fill_(1)
        if n > 1:
            result[:, 1:].copy_(x.unsqueeze(1))
            result[:, 1:].copy_(result[:, 1:].cumprod(1))
    return result if increasing else result.flip(1)
