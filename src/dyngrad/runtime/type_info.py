"""`torch.finfo` and `torch.iinfo`: the limits of a floating point or integer dtype."""

from __future__ import annotations

import numpy as np

from . import dtypes

__all__ = ["finfo", "iinfo"]

# bfloat16's limits, written out so that reading them does not load ml_dtypes
# (See Note [bfloat16 on demand])
_BFLOAT16 = {
    "bits": 16,
    "eps": 0.0078125,
    "max": 3.3895313892515355e38,
    "smallest_normal": 1.1754943508222875e-38,
    "resolution": 0.01,
}


class finfo:
    """Matches `torch.finfo`: bits, eps, max, min, tiny (= smallest_normal), resolution and
    dtype (a string) of a floating point (or complex: its parts') dtype."""

    def __init__(self, type=None):  # noqa: A002 - PyTorch's name
        type = type or dtypes.get_default_dtype()
        if not (type.is_floating_point or type.is_complex):
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to "
                "handle 'torch.finfo'"
            )
        type = type.to_real()
        if type is dtypes.bfloat16:
            info = _BFLOAT16
        else:
            f = np.finfo(type.np)
            info = {
                "bits": int(f.bits),
                "eps": float(f.eps),
                "max": float(f.max),
                "smallest_normal": float(f.smallest_normal),
                "resolution": float(10.0**-f.precision),
            }
        self.bits = info["bits"]
        self.eps = info["eps"]
        self.max = info["max"]
        self.min = -info["max"]
        self.smallest_normal = self.tiny = info["smallest_normal"]
        self.resolution = info["resolution"]
        self.dtype = type.name

    def __eq__(self, other) -> bool:
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:
    """Matches `torch.iinfo`: bits, min, max and dtype (a string) of an integer dtype."""

    def __init__(self, type):  # noqa: A002 - PyTorch's name
        if type.is_floating_point or type.is_complex:
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                "'torch.iinfo'"
            )
        i = np.iinfo(np.uint8 if type is dtypes.bool_ else type.np)
        self.bits, self.min, self.max = int(i.bits), int(i.min), int(i.max)
        if type is dtypes.bool_:
            self.bits, self.max = 8, 1
        self.dtype = type.name

    def __eq__(self, other) -> bool:
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
