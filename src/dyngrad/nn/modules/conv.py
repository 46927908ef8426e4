"""Convolution layers: `Conv1d/2d/3d` and `ConvTranspose1d/2d`, with PyTorch's defaults."""

from __future__ import annotations

import math

from ...ops.creation.factories import empty
from ...ops.nn.conv import _tuple
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d"]

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _check_arguments(in_channels, out_channels, stride, padding, groups, padding_mode, nd):
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    if in_channels % groups != 0:
        raise ValueError("in_channels must be divisible by groups")
    if out_channels % groups != 0:
        raise ValueError("out_channels must be divisible by groups")
    stride = _tuple(stride, nd)
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(
                f"Invalid padding string {padding!r}, should be one of { {'same', 'valid'} }"
            )
        if padding == "same" and any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
    if padding_mode not in _PADDING_MODES:
        raise ValueError(
            f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'"
        )


class _ConvNd(Module):
    """What every convolution layer holds: geometry, weight, bias and their initialisation.

    Its signature is Conv1d/2d/3d's; a transposed layer's weight is (in, out / groups, *k).
    """

    _nd = 2
    _transposed = False

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        super().__init__()
        nd = self._nd
        _check_arguments(in_channels, out_channels, stride, padding, groups, padding_mode, nd)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _tuple(kernel_size, nd)
        self.stride = _tuple(stride, nd)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, nd)
        self.dilation = _tuple(dilation, nd)
        self.transposed = self._transposed
        self.output_padding = _tuple(0, nd)
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = self._reversed_padding()
        channels = (in_channels, out_channels) if self.transposed else (out_channels, in_channels)
        shape = (channels[0], channels[1] // groups) + self.kernel_size
        self.weight = Parameter(empty(*shape, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _reversed_padding(self) -> list:
        # F.pad's order (last dim first), for the non-zero padding modes
        pads = []
        for d, k, i in zip(self.dilation, self.kernel_size, range(self._nd)):
            if self.padding == "same":
                total = d * (k - 1)
                pads = [total // 2, total - total // 2] + pads
            elif self.padding == "valid":
                pads = [0, 0] + pads
            else:
                pads = [self.padding[i]] * 2 + pads
        return pads

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _conv_forward(self, input, weight, bias):
        fn = (F.conv1d, F.conv2d, F.conv3d)[self._nd - 1]
        if self.padding_mode != "zeros":
            input = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return fn(input, weight, bias, self.stride, 0, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvNd):
    """Matches `torch.nn.Conv1d`."""

    _nd = 1


class Conv2d(_ConvNd):
    """Matches `torch.nn.Conv2d`: padding int, tuple, 'same' or 'valid'; any padding_mode."""

    _nd = 2


class Conv3d(_ConvNd):
    _nd = 3


class _ConvTransposeNd(_ConvNd):
    """ConvTranspose1d/2d/3d: PyTorch's public signature, and `output_size` in forward."""

    _transposed = True

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )
        self.output_padding = _tuple(output_padding, self._nd)

    def _output_padding(self, input, output_size) -> tuple:
        """The output_padding that makes the output `output_size` (PyTorch's check)."""
        if output_size is None:
            return self.output_padding
        nd = self._nd
        output_size = list(output_size)[-nd:]
        result = []
        for d in range(nd):
            dim_size = input.shape[input.dim() - nd + d]
            smallest = (
                (dim_size - 1) * self.stride[d]
                - 2 * self.padding[d]
                + self.dilation[d] * (self.kernel_size[d] - 1)
                + 1
            )
            largest = smallest + self.stride[d] - 1
            if not smallest <= output_size[d] <= largest:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes "
                    f"range from {smallest} to {largest} (for an input of "
                    f"{list(input.shape[input.dim() - nd :])})"
                )
            result.append(output_size[d] - smallest)
        return tuple(result)

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[self._nd - 1]
        geometry = (self.stride, self.padding, output_padding, self.groups, self.dilation)
        return fn(input, self.weight, self.bias, *geometry)


class ConvTranspose1d(_ConvTransposeNd):
    _nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Matches `torch.nn.ConvTranspose2d` (the gradient of Conv2d with respect to its input)."""

    _nd = 2


class ConvTranspose3d(_ConvTransposeNd):
    """Matches `torch.nn.ConvTranspose3d` (the gradient of Conv3d with respect to its input)."""

    _nd = 3
