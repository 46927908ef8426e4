"""`Upsample` and its fixed-mode forms (`F.interpolate` as a module), `PixelShuffle`,
`PixelUnshuffle`, `ChannelShuffle`, `Unfold` and `Fold`."""

from __future__ import annotations

from ...ops.nn.channel_shuffle import channel_shuffle
from ...ops.nn.fold import fold, unfold
from ...ops.nn.pixel import pixel_shuffle, pixel_unshuffle
from ...ops.nn.upsample import interpolate
from .module import Module

__all__ = [
    "Fold",
    "PixelShuffle",
    "PixelUnshuffle",
    "Unfold",
    "Upsample",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
]


def _floats(value):
    if value is None:
        return None
    return tuple(float(v) for v in value) if isinstance(value, (tuple, list)) else float(value)


class Upsample(Module):
    """Matches `torch.nn.Upsample`."""

    __constants__ = ["size", "scale_factor", "mode", "align_corners", "name"]

    def __init__(
        self,
        size=None,
        scale_factor=None,
        mode="nearest",
        align_corners=None,
        recompute_scale_factor=None,
    ):
        super().__init__()
        self.name = type(self).__name__
        self.size = tuple(size) if isinstance(size, list) else size
        self.scale_factor = _floats(scale_factor)
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            recompute_scale_factor=self.recompute_scale_factor,
        )

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Matches `torch.nn.UpsamplingNearest2d`."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Matches `torch.nn.UpsamplingBilinear2d` (corners aligned, as PyTorch's)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    """Matches `torch.nn.PixelShuffle`."""

    __constants__ = ["upscale_factor"]

    def __init__(self, upscale_factor: int):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """Matches `torch.nn.PixelUnshuffle`."""

    __constants__ = ["downscale_factor"]

    def __init__(self, downscale_factor: int):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class Unfold(Module):
    """Matches `torch.nn.Unfold`: sliding blocks to columns."""

    __constants__ = ["kernel_size", "dilation", "padding", "stride"]

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input):
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )


class Fold(Module):
    """Matches `torch.nn.Fold`: columns back to an image, overlaps summed."""

    __constants__ = ["output_size", "kernel_size", "dilation", "padding", "stride"]

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )


class ChannelShuffle(Module):
    """Matches `torch.nn.ChannelShuffle`: the channels split into `groups` and interleaved."""

    __constants__ = ["groups"]

    def __init__(self, groups: int):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
