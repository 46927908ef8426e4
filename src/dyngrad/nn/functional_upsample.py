"""PyTorch's deprecated names for `interpolate`: `upsample`, `upsample_nearest` and
`upsample_bilinear` (corners aligned), each warning as PyTorch's does."""

from __future__ import annotations

import warnings

from ..ops.nn.upsample import interpolate


def _deprecated(name: str) -> None:
    warnings.warn(
        f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=3,
    )


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Matches `torch.nn.functional.upsample`: `interpolate`, with a deprecation warning."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Matches `torch.nn.functional.upsample_nearest`."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Matches `torch.nn.functional.upsample_bilinear`: bilinear with aligned corners."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


__all__ = ["upsample", "upsample_bilinear", "upsample_nearest"]
