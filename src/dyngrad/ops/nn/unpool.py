"""Max unpooling (1-d, 2-d, 3-d): each value put back at the position its max pool took it
from, zeros elsewhere (MaxUnpool2DBackward0). The gradient gathers from those positions."""

from __future__ import annotations

import numpy as np

from ..table.record import apply
from ..table.registry import defop
from .conv import _tuple
from .pool import MAX_POOL_OPS, scatter_to_input


def _unpool_op(nd: int):
    gather = MAX_POOL_OPS[nd].gather

    def fwd(xp, x, indices, *, output_size):
        # each index names one output element: a later duplicate overwrites, as PyTorch's
        return scatter_to_input(xp, x, indices, x.shape[:-nd] + output_size, nd, distinct=True)

    return defop(
        f"max_unpool{nd}d",
        fwd,
        {"x": lambda g, indices: apply(gather, (g, indices))},
        node=f"MaxUnpool{nd}DBackward0",
    )


MAX_UNPOOL = {nd: _unpool_op(nd) for nd in (2, 3)}


def _unpool_output_size(input, kernel, stride, padding, output_size) -> tuple:
    """PyTorch's default output size, or the given one checked against it."""
    nd = len(kernel)
    spatial = input._data.shape[-nd:]
    default = [(i - 1) * s + k - 2 * p for i, s, k, p in zip(spatial, stride, kernel, padding)]
    if output_size is None:
        sizes = default
    else:
        sizes = list(output_size)
        if len(sizes) == nd + 2:
            sizes = sizes[2:]
        if len(sizes) != nd:
            raise ValueError(
                f"output_size should be a sequence containing {nd} or {nd + 2} elements, "
                f"but it has a length of '{len(sizes)}'"
            )
        for d in range(nd):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < sizes[d] < high:
                raise ValueError(
                    f'invalid output_size "{output_size}" (dim {d} must be between {low} '
                    f"and {high})"
                )
    for d, size in enumerate(sizes):
        if size < 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial dimensions, "
                f"but got output_size[{d}]={size}"
            )
    return tuple(int(s) for s in sizes)


def _check_unpool(input, indices, output_size: tuple, nd: int) -> None:
    # PyTorch's max_unpooling checks, in its order
    shape, index_shape = input._data.shape, indices._data.shape
    if indices._data.dtype != np.int64:
        raise RuntimeError(
            f"elements in indices should be type int64 but got: {indices.dtype._legacy}"
        )
    if len(shape) not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Input to max_unpooling{nd}d should be a {nd + 1}d or {nd + 2}d Tensor, but got "
            f"a tensor with {len(shape)} dimensions."
        )
    if shape != index_shape:
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor "
            f"({list(shape)}) but got indices tensor with shape: {list(index_shape)}"
        )
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"max_unpool{nd}d\" not implemented for '{input.dtype._legacy}'"
        )
    data = indices._data
    bad = (data < 0) | (data >= int(np.prod(output_size)))
    if bad.any():
        # which one PyTorch names: its 2-d kernel the last it met; its 3-d kernel the last of
        # the first plane that has one (several threads may race on a large input)
        if nd == 3:
            planes = bad.reshape(-1, int(np.prod(bad.shape[-3:])))
            bad = planes[int(planes.any(1).argmax())]
            data = data.reshape(planes.shape)[int(planes.any(1).argmax())]
        flat = bad.ravel()
        at = flat.size - 1 - int(flat[::-1].argmax())
        raise RuntimeError(
            f"Found an invalid max index: {int(data.ravel()[at])} (output volumes are of size "
            f"{'x'.join(map(str, output_size))})"
        )


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, nd: int):
    kernel = _tuple(kernel_size, nd)
    stride = kernel if stride is None else _tuple(stride, nd)
    padding = _tuple(padding, nd)
    size = _unpool_output_size(input, kernel, stride, padding, output_size)
    if nd == 3 and min(stride) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(stride)}")
    return max_unpool(input, indices, size)


def max_unpool(input, indices, size: tuple):
    """The unpooling op itself; 1-d unpools as 2-d with a trailing dim of one, as PyTorch."""
    nd = 2 if len(size) == 1 else len(size)
    if len(size) == 1:
        out = max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), size + (1,))
        return out.squeeze(-1)
    _check_unpool(input, indices, size, nd)
    return apply(MAX_UNPOOL[nd], (input, indices), {"output_size": size})


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Matches `torch.nn.functional.max_unpool1d`."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Matches `torch.nn.functional.max_unpool2d` (MaxUnpool2DBackward0)."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Matches `torch.nn.functional.max_unpool3d` (MaxUnpool3DBackward0)."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)


__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]
