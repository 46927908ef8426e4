"""`torch.testing.make_tensor`: a random tensor of a shape, dtype and value range, for tests."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

from ..ops.creation.factories import empty
from ..ops.creation.random import randint
from ..runtime.dtypes import (
    bfloat16,
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)

__all__ = ["make_tensor"]

# dtype: (lowest value, highest value, smallest normal), as torch.finfo / torch.iinfo give them
_FLOAT_RANGES = {
    float16: (-65504.0, 65504.0, 6.103515625e-05),
    bfloat16: (-3.3895313892515355e38, 3.3895313892515355e38, 1.1754943508222875e-38),
    float32: (-3.4028234663852886e38, 3.4028234663852886e38, 1.1754943508222875e-38),
    float64: (-1.7976931348623157e308, 1.7976931348623157e308, 2.2250738585072014e-308),
}
_COMPLEX_PARTS = {complex64: float32, complex128: float64}
_INT_RANGES = {
    uint8: (0, 255),
    int8: (-128, 127),
    int16: (-32768, 32767),
    int32: (-2147483648, 2147483647),
    int64: (-9223372036854775808, 9223372036854775807),
}


def _low_high(dtype, low, high, lowest, highest_exclusive, default_low, default_high):
    """The sampling interval [low, high): defaults filled in, checked, clamped to the dtype."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    floating = dtype in _FLOAT_RANGES or dtype in _COMPLEX_PARTS
    if low == high and floating:
        warnings.warn(
            "Passing `low==high` to `torch.testing.make_tensor` for floating or complex types "
            "is deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
            FutureWarning,
            stacklevel=3,
        )
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest_exclusive:
        raise ValueError(
            f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} "
            f"only supports [{lowest}, {highest_exclusive})"
        )
    low = min(max(low, lowest), highest_exclusive)
    high = min(max(high, lowest), highest_exclusive)
    if floating:
        return low, high
    # randint's high is exclusive: ceil both so no value falls below `low`
    return math.ceil(low), math.ceil(high)


def _uniform(shape, dtype, device, low, high):
    lowest, highest, _ = _FLOAT_RANGES[dtype]
    low, high = _low_high(dtype, low, high, lowest, highest, -9, 9)
    result = empty(shape, dtype=dtype, device=device)
    if high - low >= highest:  # uniform_ needs high - low to fit the dtype: sample half, double
        return result.uniform_(low / 2, high / 2).mul_(2)
    return result.uniform_(low, high)


def _random(shape, dtype, device, low, high):
    if dtype is bool_:
        low, high = _low_high(dtype, low, high, 0, 2, 0, 2)
        return randint(low, high, shape, dtype=dtype, device=device)
    if dtype in _INT_RANGES:
        lowest, highest = _INT_RANGES[dtype]
        # randint cannot draw int64's largest value, so its interval stops one short of it
        highest_exclusive = highest + (dtype is not int64)
        low, high = _low_high(dtype, low, high, lowest, highest_exclusive, -9, 10)
        return randint(low, high, shape, dtype=dtype, device=device)
    if dtype in _FLOAT_RANGES:
        return _uniform(shape, dtype, device, low, high)
    if dtype in _COMPLEX_PARTS:
        parts = _uniform((*shape, 2), _COMPLEX_PARTS[dtype], device, low, high)
        return parts[..., 0] + parts[..., 1] * 1j
    raise TypeError(
        f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor(). To "
        "request support, file an issue at: https://github.com/pytorch/pytorch/issues"
    )


def make_tensor(
    *shape,
    dtype,
    device,
    low=None,
    high=None,
    requires_grad: bool = False,
    noncontiguous: bool = False,
    exclude_zero: bool = False,
    memory_format=None,
):
    """Matches `torch.testing.make_tensor` (dyngrad's random stream, not torch's values).

    `memory_format` is accepted and ignored: dyngrad's tensors are always row-major.
    """
    if len(shape) == 1 and isinstance(shape[0], Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(
            "The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
            f"noncontiguous={noncontiguous} and memory_format={memory_format}"
        )
    integral = dtype is bool_ or dtype in _INT_RANGES
    if requires_grad and integral:
        raise ValueError(
            "`requires_grad=True` is not supported for boolean and integral dtypes, but got "
            f"dtype={dtype}"
        )
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:  # twice the last dim, then every other element from the second on
        shape = (*shape[:-1], 2 * shape[-1])
    result = _random(shape, dtype, device, low, high)
    if noncontiguous:
        result = result[..., 1::2]
    if exclude_zero:
        tiny = 1 if integral else _FLOAT_RANGES[_COMPLEX_PARTS.get(dtype, dtype)][2]
        result[result == 0] = tiny
    if not integral:
        result.requires_grad = requires_grad
    return result
