"""`torch.nn.utils.memory_format`: give every 2-d (3-d) convolution's weight a memory format."""

from __future__ import annotations

from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, kinds: tuple, memory_format):
    if isinstance(module, kinds):
        weight_data = module.weight.detach().clone(memory_format=memory_format)
        module.weight.data = weight_data.resize_(weight_data.size(), memory_format=memory_format)
    for child in module.children():
        _convert(child, kinds, memory_format)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Matches `torch.nn.utils.convert_conv2d_weight_memory_format`: each Conv2d's and
    ConvTranspose2d's weight in `module` laid out in `memory_format` (e.g. channels_last)."""
    return _convert(module, (Conv2d, ConvTranspose2d), memory_format)


def convert_conv3d_weight_memory_format(module, memory_format):
    """Matches `torch.nn.utils.convert_conv3d_weight_memory_format`, for Conv3d and
    ConvTranspose3d (channels_last_3d)."""
    return _convert(module, (Conv3d, ConvTranspose3d), memory_format)
