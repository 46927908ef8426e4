"""The pooling functions: PyTorch's checks of the sizes, in its order, then nn_pool's rows.

Pooling runs over 2 or 3 spatial dims; 1-d pooling runs the 2-d op on an unsqueezed input.
"""

from __future__ import annotations

from ..table.arguments import int_list
from ..table.record import apply
from .pool import MAX_POOL, AvgOptions, Window, avg_pool, pool_out_size

_COUNT = {2: "two", 3: "three"}
_AXES = {2: "HW", 3: "THW"}


def _ints(fn: str, name: str, value, position: int, nd: int, message: str) -> tuple:
    """An int-list pooling argument as nd ints: one int is used for all."""
    sizes = (
        int_list(fn, (value,), name, position, varargs=False)
        if not isinstance(value, int)
        else (value,)
    )
    if len(sizes) not in (1, nd):
        raise RuntimeError(f"{fn}: {name} must {message}, or a tuple of {_COUNT[nd]} ints")
    return sizes * nd if len(sizes) == 1 else sizes


def _argument_messages(fn: str, nd: int) -> dict:
    # PyTorch words its 3-d checks differently for max and average pooling
    either = "either be" if nd == 2 or fn.startswith("max") else "be"
    return {
        "kernel_size": f"{either} a single int",
        "stride": f"{either} omitted, a single int",
        "padding": f"{either} a single int",
        "dilation": "either be a single int" if nd == 2 else "be either a single int",
    }


def _pool_geometry(fn, input, kernel_size, stride, padding, dilation, ceil_mode, nd=2) -> Window:
    messages = _argument_messages(fn, nd)
    kernel = _ints(fn, "kernel_size", kernel_size, 2, nd, messages["kernel_size"])
    empty_stride = stride is None or stride == [] or stride == ()
    stride = kernel if empty_stride else _ints(fn, "stride", stride, 3, nd, messages["stride"])
    padding = _ints(fn, "padding", padding, 4, nd, messages["padding"])
    dilation = _ints(fn, "dilation", dilation, 5, nd, messages["dilation"])
    if nd == 3 and input._data.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    _check_window(fn, input, kernel, stride, padding, dilation)
    spatial = input._data.shape[-nd:]
    if fn == "avg_pool3d" and any(size < k for size, k in zip(spatial, kernel)):
        raise RuntimeError(
            f"input image ({_named('', spatial)}) smaller than kernel size ({_named('k', kernel)})"
        )
    out = tuple(
        pool_out_size(size, k, s, p, d, ceil_mode)
        for size, k, s, p, d in zip(spatial, kernel, stride, padding, dilation)
    )
    if any(o <= 0 for o in out):
        c = input._data.shape[-nd - 1]
        raise RuntimeError(
            f"Given input size: ({c}x{'x'.join(map(str, spatial))}). Calculated output size: "
            f"({c}x{'x'.join(map(str, out))}). Output size is too small"
        )
    return Window(kernel, stride, padding, dilation, out)


def _named(prefix: str, values) -> str:
    """PyTorch's `kT: 2 kH: 2 kW: 2` listing of a per-axis argument."""
    axes = _AXES[len(values)]
    return " ".join(f"{prefix}{a}: {v}" for a, v in zip(axes, values))


def _check_window(fn, input, kernel, stride, padding, dilation) -> None:
    # PyTorch's pool2d_shape_check / pool3d_shape_check, in its order
    nd = len(kernel)
    if min(kernel) <= 0:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got {_named('k', kernel)}"
        )
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got {_named('d', stride)}")
    if min(dilation) <= 0:
        raise RuntimeError(
            f"dilation should be greater than zero, but got {_named('dilation', dilation)}"
        )
    shape = input._data.shape
    if nd == 2 and (len(shape) not in (3, 4) or 0 in shape[-3:]):
        raise RuntimeError(
            f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
            f"size for input, but got:{list(shape)}"
        )
    if nd == 3 and 0 in shape[-4:]:
        kernel_name = "max_pool3d_with_indices_out_cpu_template" if fn[:3] == "max" else fn
        raise RuntimeError(
            f"{kernel_name}(): Expected input's non-batch dimensions to have positive length, "
            f"but input has a shape of {list(shape)} and non-batch dimension 0 has length zero!"
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
    values, indices = apply(MAX_POOL[2], (input,), {"window": window})
    return (values, indices) if return_indices else values


def max_pool3d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """Matches `torch.nn.functional.max_pool3d` (MaxPool3DWithIndicesBackward0)."""
    args = (kernel_size, stride, padding, dilation, ceil_mode)
    window = _pool_geometry("max_pool3d", input, *args, nd=3)
    values, indices = apply(MAX_POOL[3], (input,), {"window": window})
    return (values, indices) if return_indices else values


def max_pool1d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """Matches `torch.nn.functional.max_pool1d_with_indices`: (values, indices)."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """Matches `torch.nn.functional.max_pool2d_with_indices`: (values, indices)."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """Matches `torch.nn.functional.max_pool3d_with_indices`: (values, indices)."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


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


def _avg_pool_nd(
    name, nd, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
):
    window = _pool_geometry(name, input, kernel_size, stride, padding, 1, ceil_mode, nd=nd)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return avg_pool(input, window, AvgOptions(bool(count_include_pad), divisor_override))


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
    args = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    return _avg_pool_nd("avg_pool2d", 2, input, *args)


def avg_pool3d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """Matches `torch.nn.functional.avg_pool3d` (AvgPool3DBackward0)."""
    args = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    return _avg_pool_nd("avg_pool3d", 3, input, *args)


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
