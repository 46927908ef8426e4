"""The pooling functions: PyTorch's checks of the sizes, in its order, then nn_pool's rows.

Pooling runs over 2 spatial dims; 1-d pooling runs the 2-d op on an unsqueezed input.
"""

from __future__ import annotations

from ..table.arguments import int_list
from ..table.record import apply
from .pool import ADAPTIVE_AVG_POOL, MAX_POOL, AvgOptions, Window, avg_pool, pool_out_size


def _pair(fn: str, name: str, value, position: int, message: str | None = None) -> tuple:
    """An int-list pooling argument as two ints: one int is used for both."""
    sizes = (
        int_list(fn, (value,), name, position, varargs=False)
        if not isinstance(value, int)
        else (value,)
    )
    if len(sizes) not in (1, 2):
        raise RuntimeError(
            message or f"{fn}: {name} must either be a single int, or a tuple of two ints"
        )
    return sizes * 2 if len(sizes) == 1 else sizes


def _pool_geometry(fn, input, kernel_size, stride, padding, dilation, ceil_mode) -> Window:
    kernel = _pair(fn, "kernel_size", kernel_size, 2)
    empty_stride = stride is None or stride == [] or stride == ()
    stride = (
        kernel
        if empty_stride
        else _pair(
            fn,
            "stride",
            stride,
            3,
            f"{fn}: stride must either be omitted, a single int, or a tuple of two ints",
        )
    )
    padding = _pair(fn, "padding", padding, 4)
    dilation = _pair(fn, "dilation", dilation, 5)
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    _check_window(input, kernel, stride, padding, dilation)
    spatial = input._data.shape[-2:]
    out = tuple(
        pool_out_size(size, k, s, p, d, ceil_mode)
        for size, k, s, p, d in zip(spatial, kernel, stride, padding, dilation)
    )
    if any(o <= 0 for o in out):
        c = input._data.shape[-3]
        raise RuntimeError(
            f"Given input size: ({c}x{'x'.join(map(str, spatial))}). Calculated output size: "
            f"({c}x{'x'.join(map(str, out))}). Output size is too small"
        )
    return Window(kernel, stride, padding, dilation, out)


def _check_window(input, kernel, stride, padding, dilation) -> None:
    # PyTorch's pool2d_shape_check, in its order
    if min(kernel) <= 0:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}"
        )
    if min(stride) <= 0:
        raise RuntimeError(
            f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}"
        )
    if min(dilation) <= 0:
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationH: "
            f"{dilation[0]} dilationW: {dilation[1]}"
        )
    shape = input._data.shape
    if len(shape) not in (3, 4) or 0 in shape[-3:]:
        raise RuntimeError(
            f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
            f"size for input, but got:{list(shape)}"
        )
    for p, k, d in zip(padding, kernel, dilation):
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got "
                f"pad={p}, kernel_size={k} and dilation={d}"
            )


def max_pool2d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """Matches `torch.nn.functional.max_pool2d` (MaxPool2DWithIndicesBackward0)."""
    if input._data.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    window = _pool_geometry("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode)
    values, indices = apply(MAX_POOL, (input,), {"window": window})
    return (values, indices) if return_indices else values


def _one(fn: str, name: str, value, position: int) -> int:
    sizes = (
        int_list(fn, (value,), name, position, varargs=False)
        if not isinstance(value, int)
        else (value,)
    )
    if len(sizes) != 1:
        raise RuntimeError(
            f"{fn}() {name} must be an int, list of ints or tuple of ints of "
            f"size 1 but got size {len(sizes)}"
        )
    return sizes[0]


def max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """Matches `torch.nn.functional.max_pool1d`: the 2-d op on an unsqueezed input."""
    shape = input._data.shape
    if len(shape) not in (2, 3) or 0 in shape[-2:]:
        raise RuntimeError(
            f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
            f"dim batch size for input, but got:{list(shape)}"
        )
    k = _one("max_pool1d", "kernel_size", kernel_size, 2)
    empty_stride = stride is None or stride == [] or stride == ()
    s = k if empty_stride else _one("max_pool1d", "stride", stride, 3)
    p = _one("max_pool1d", "padding", padding, 4)
    d = _one("max_pool1d", "dilation", dilation, 5)
    for name, value, low in (
        ("kernel_size", k, 1),
        ("stride", s, 1),
        ("padding", p, 0),
        ("dilation", d, 1),
    ):
        if value < low:
            need = "must be non-negative" if low == 0 else "must be greater than zero"
            raise RuntimeError(f"max_pool1d() {name} {need}, but got {value}")
    if p > k // 2:
        raise RuntimeError(
            f"max_pool1d() padding should be at most half of kernel size, but "
            f"got padding={p} and kernel_size={k}"
        )
    out = pool_out_size(shape[-1], k, s, p, d, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    if not (input.dtype.is_floating_point or return_indices):
        raise NotImplementedError(
            f"\"max_pool1d_impl\" not implemented for '{input.dtype._legacy}'"
        )
    values, indices = max_pool2d(
        input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode, True
    )
    values = values.squeeze(-2)
    return (values, indices.squeeze(-2)) if return_indices else values


def avg_pool2d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """Matches `torch.nn.functional.avg_pool2d`."""
    window = _pool_geometry("avg_pool2d", input, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return avg_pool(input, window, AvgOptions(bool(count_include_pad), divisor_override))


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Matches `torch.nn.functional.avg_pool1d`."""
    if input._data.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input._data.ndim}-dimensional "
            f"tensor for argument #1 'self' (while checking arguments for "
            f"avg_pool1d)"
        )
    args = [kernel_size, stride, padding]
    for i, (name, value) in enumerate(zip(("kernel_size", "stride", "padding"), args)):
        if name == "stride" and (value is None or value == [] or value == ()):
            continue
        sizes = (
            int_list("avg_pool1d", (value,), name, i + 2, varargs=False)
            if not isinstance(value, int)
            else (value,)
        )
        if len(sizes) != 1:
            raise RuntimeError(
                f"avg_pool1d() argument '{name}' should contain one int (got {len(sizes)})"
            )
        args[i] = sizes[0]
    k, s, p = args
    s = k if s is None or s == [] or s == () else s
    return avg_pool2d(
        input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad
    ).squeeze(-2)


def adaptive_output_size(fn: str, input, output_size, nd: int) -> tuple:
    """`output_size` as PyTorch's Python layer reads it (`_list_with_default`): an int, or a
    sequence whose Nones keep the input's sizes."""
    if isinstance(output_size, int):
        output_size = (output_size,) * nd
    elif input._data.ndim <= len(output_size):  # len() is Python's TypeError for None, float
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    shape = input._data.shape
    sizes = tuple(
        shape[-len(output_size) + i] if o is None else o for i, o in enumerate(output_size)
    )
    if len(sizes) != nd:
        raise RuntimeError(
            f"{fn}(): internal error: output_size.size() must be {nd}"
            if "max" in fn
            else f"{fn}: output_size must be {nd}"
        )
    return sizes


def adaptive_avg_pool2d(input, output_size):
    """Matches `torch.nn.functional.adaptive_avg_pool2d`; a 1x1 output is a mean, as in torch."""
    size = adaptive_output_size("adaptive_avg_pool2d", input, output_size, 2)
    shape = input._data.shape
    if len(shape) not in (3, 4):
        raise RuntimeError(
            f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(shape)}"
        )
    if min(size) < 0:
        raise RuntimeError(
            f"adaptive_avg_pool2d: elements of output_size must be greater than "
            f"or equal to 0 but received {{{size[0]}, {size[1]}}}"
        )
    check_nonempty("adaptive_avg_pool2d", shape)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"adaptive_avg_pool2d\" not implemented for '{input.dtype._legacy}'"
        )
    if size == (1, 1):
        return input.mean((-1, -2), keepdim=True)
    return apply(ADAPTIVE_AVG_POOL, (input,), {"output_size": size})


def check_nonempty(fn: str, shape: tuple) -> None:
    for d in range(len(shape) - 2, len(shape)):
        if shape[d] == 0:
            raise RuntimeError(
                f"{fn}(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {list(shape)} with dimension "
                f"{d} being empty"
            )


def adaptive_avg_pool1d(input, output_size):
    """Matches `torch.nn.functional.adaptive_avg_pool1d`."""
    size = adaptive_output_size("adaptive_avg_pool1d", input, output_size, 1)[0]
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)
