"""Pooling layers: max, average, adaptive, power-average (`LPPool`) pooling over 1, 2 or 3
spatial dims, and `MaxUnpool1d/2d/3d`."""

from __future__ import annotations

from ...ops.nn.conv import _tuple
from .. import functional as F
from ..functional_pool import lp_pool1d, lp_pool2d, lp_pool3d
from .module import Module

__all__ = [
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
]


class _MaxPoolNd(Module):
    _functional = None

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        dilation=1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return type(self)._functional(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """Matches `torch.nn.MaxPool1d`."""

    _functional = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """Matches `torch.nn.MaxPool2d` (MaxPool2DWithIndicesBackward0)."""

    _functional = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """Matches `torch.nn.MaxPool3d` (MaxPool3DWithIndicesBackward0)."""

    _functional = staticmethod(F.max_pool3d)


class _AvgPoolNd(Module):
    def __init__(self, kernel_size, stride, padding, ceil_mode: bool, count_include_pad: bool):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ):
        super().__init__(
            _tuple(kernel_size, 1),
            _tuple(stride if stride is not None else kernel_size, 1),
            _tuple(padding, 1),
            ceil_mode,
            count_include_pad,
        )

    def forward(self, input):
        return F.avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )


class _AvgPoolDivisorNd(_AvgPoolNd):
    # the 2-d and 3-d average pools: a divisor_override besides the 1-d one's arguments
    _functional = None

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override=None,
    ):
        stride = stride if stride is not None else kernel_size
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)
        self.divisor_override = divisor_override

    def forward(self, input):
        return type(self)._functional(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )


class AvgPool2d(_AvgPoolDivisorNd):
    """Matches `torch.nn.AvgPool2d`."""

    _functional = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolDivisorNd):
    """Matches `torch.nn.AvgPool3d` (AvgPool3DBackward0)."""

    _functional = staticmethod(F.avg_pool3d)


class _AdaptiveAvgPoolNd(Module):
    _functional = None

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return type(self)._functional(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    _functional = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Matches `torch.nn.AdaptiveAvgPool2d`; (1, 1) is a mean over H and W, as in PyTorch."""

    _functional = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Matches `torch.nn.AdaptiveAvgPool3d`; (1, 1, 1) is a mean, as in PyTorch."""

    _functional = staticmethod(F.adaptive_avg_pool3d)


class _AdaptiveMaxPoolNd(_AdaptiveAvgPoolNd):
    # the average pools' module, with return_indices (the repr shows output_size only)
    def __init__(self, output_size, return_indices: bool = False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):
        return type(self)._functional(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Matches `torch.nn.AdaptiveMaxPool1d`."""

    _functional = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Matches `torch.nn.AdaptiveMaxPool2d`."""

    _functional = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Matches `torch.nn.AdaptiveMaxPool3d` (AdaptiveMaxPool3DBackward0)."""

    _functional = staticmethod(F.adaptive_max_pool3d)


class _MaxUnpoolNd(Module):
    _functional = None
    _dims = 1

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        nd = self._dims
        self.kernel_size = _tuple(kernel_size, nd)
        self.stride = _tuple(stride if stride is not None else kernel_size, nd)
        self.padding = _tuple(padding, nd)

    def forward(self, input, indices, output_size=None):
        return type(self)._functional(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Matches `torch.nn.MaxUnpool1d`: the inverse of `MaxPool1d` where it kept a value."""

    _functional = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """Matches `torch.nn.MaxUnpool2d` (MaxUnpool2DBackward0)."""

    _functional = staticmethod(F.max_unpool2d)
    _dims = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """Matches `torch.nn.MaxUnpool3d` (MaxUnpool3DBackward0)."""

    _functional = staticmethod(F.max_unpool3d)
    _dims = 3


class _LPPoolNd(Module):
    _functional = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode: bool = False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return type(self)._functional(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """Matches `torch.nn.LPPool1d`: (sum over each window of x^p)^(1/p)."""

    _functional = staticmethod(lp_pool1d)


class LPPool2d(_LPPoolNd):
    """Matches `torch.nn.LPPool2d`."""

    _functional = staticmethod(lp_pool2d)


class LPPool3d(_LPPoolNd):
    """Matches `torch.nn.LPPool3d`."""

    _functional = staticmethod(lp_pool3d)
