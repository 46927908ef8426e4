"""The padding layers (`ConstantPad2d`, `ReflectionPad1d`, ...): thin modules over `F.pad`."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = [
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]


def _padding(padding, n: int) -> tuple:
    # PyTorch's _pair/_quadruple/_ntuple(6): an int repeated, any iterable taken as it is (a
    # wrong length is F.pad's error at the first forward, as in PyTorch)
    if hasattr(padding, "__iter__"):
        return tuple(padding)
    return (padding,) * n


class _PadNd(Module):
    __constants__ = ["padding"]
    mode = "constant"

    def __init__(self, padding, n: int) -> None:
        super().__init__()
        self.padding = _padding(padding, n)

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ReflectionPadNd(_PadNd):
    mode = "reflect"


class _ReplicationPadNd(_PadNd):
    mode = "replicate"


class _CircularPadNd(_PadNd):
    mode = "circular"
    dims = 1

    def forward(self, input):
        # PyTorch's circular layers check the input's rank themselves (a ValueError)
        low = self.dims + 1
        if input.dim() not in (low, low + 1):
            raise ValueError(f"expected {low}D or {low + 1}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]

    def __init__(self, padding, value: float, n: int) -> None:
        super().__init__()
        self.padding = _padding(padding, n)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ReflectionPad1d(_ReflectionPadNd):
    """Matches `torch.nn.ReflectionPad1d`: `padding` is an int or (left, right)."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 2)


class ReflectionPad2d(_ReflectionPadNd):
    """Matches `torch.nn.ReflectionPad2d`: (left, right, top, bottom)."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 4)


class ReflectionPad3d(_ReflectionPadNd):
    """Matches `torch.nn.ReflectionPad3d`: (left, right, top, bottom, front, back)."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 6)


class ReplicationPad1d(_ReplicationPadNd):
    """Matches `torch.nn.ReplicationPad1d`: `padding` is an int or (left, right)."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 2)


class ReplicationPad2d(_ReplicationPadNd):
    """Matches `torch.nn.ReplicationPad2d`: (left, right, top, bottom)."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 4)


class ReplicationPad3d(_ReplicationPadNd):
    """Matches `torch.nn.ReplicationPad3d`: (left, right, top, bottom, front, back)."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 6)


class CircularPad1d(_CircularPadNd):
    """Matches `torch.nn.CircularPad1d`: `padding` is an int or (left, right)."""

    dims = 1

    def __init__(self, padding) -> None:
        super().__init__(padding, 2)


class CircularPad2d(_CircularPadNd):
    """Matches `torch.nn.CircularPad2d`: (left, right, top, bottom)."""

    dims = 2

    def __init__(self, padding) -> None:
        super().__init__(padding, 4)


class CircularPad3d(_CircularPadNd):
    """Matches `torch.nn.CircularPad3d`: (left, right, top, bottom, front, back)."""

    dims = 3

    def __init__(self, padding) -> None:
        super().__init__(padding, 6)


class ConstantPad1d(_ConstantPadNd):
    """Matches `torch.nn.ConstantPad1d`: pads the last dim with `value`."""

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding, value, 2)


class ConstantPad2d(_ConstantPadNd):
    """Matches `torch.nn.ConstantPad2d`: pads the last two dims with `value`."""

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding, value, 4)


class ConstantPad3d(_ConstantPadNd):
    """Matches `torch.nn.ConstantPad3d`: pads the last three dims with `value`."""

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding, value, 6)


class ZeroPad1d(ConstantPad1d):
    """Matches `torch.nn.ZeroPad1d`: pads the last dim with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Matches `torch.nn.ZeroPad2d`: pads the last two dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Matches `torch.nn.ZeroPad3d`: pads the last three dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"
