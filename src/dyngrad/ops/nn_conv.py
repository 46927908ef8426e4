"""Convolution (any number of spatial dims, groups, dilation) and constant padding.

# Note [Convolution as three bilinear ops]
# conv(x, w) is bilinear, and so are its two backward maps:
#   conv_input(grad, w)   = d<conv(x, w), grad>/dx   (col2im; also the transposed conv)
#   conv_weight(x, grad)  = d<conv(x, w), grad>/dw
# Each one's derivatives are again one of the three, so every formula below is written with
# them and double backward (gradgradcheck) comes free. Windows are a strided view of the
# padded input (no copy); one GEMM per group does the channel sums.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .registry import apply, defop


def _windows(xp, x, kernel, stride, padding, dilation, out_size=None):
    """(N, C, *out, *kernel) view of the padded input under each kernel position."""
    nd = len(kernel)
    if any(lo or hi for lo, hi in padding):
        x = xp.pad(x, ((0, 0), (0, 0)) + tuple(padding))
    span = tuple(d * (k - 1) + 1 for d, k in zip(dilation, kernel))
    win = np.lib.stride_tricks.sliding_window_view(x, span, axis=tuple(range(2, 2 + nd)))
    out_len = out_size or (None,) * nd
    return win[
        (slice(None), slice(None))
        + tuple(slice(0, None if o is None else o * s, s) for s, o in zip(stride, out_len))
        + tuple(slice(None, None, d) for d in dilation)
    ]


def _columns(win, groups):
    """im2col: (G, N*prod(out), Cg*prod(kernel)) from the window view (one copy)."""
    n, c = win.shape[:2]
    nd = (win.ndim - 2) // 2
    out, kernel = win.shape[2 : 2 + nd], win.shape[2 + nd :]
    cols = win.reshape((n, groups, c // groups) + out + kernel)
    order = (1, 0) + tuple(range(3, 3 + nd)) + (2,) + tuple(range(3 + nd, 3 + 2 * nd))
    return cols.transpose(order).reshape(groups, n * int(np.prod(out)), -1), out


class Geometry(NamedTuple):
    """A convolution's stride, (lo, hi) padding per dim, dilation and groups: one attr."""

    stride: tuple
    padding: tuple
    dilation: tuple
    groups: int


def _conv_fwd(xp, x, weight, bias, *, geometry, out_size=None):
    stride, padding, dilation, groups = geometry
    kernel = weight.shape[2:]
    win = _windows(xp, x, kernel, stride, padding, dilation, out_size)
    cols, out = _columns(win, groups)
    oc = weight.shape[0]
    w = weight.reshape(groups, oc // groups, -1).transpose(0, 2, 1)
    y = xp.matmul(cols, w)  # (G, N*prod(out), Og)
    n, nd = x.shape[0], len(kernel)
    y = y.reshape((groups, n) + out + (oc // groups,))
    y = y.transpose((1, 0, 2 + nd) + tuple(range(2, 2 + nd))).reshape((n, oc) + out)
    if bias is not None:
        y = y + bias.reshape((oc,) + (1,) * nd)
    return y


def _conv_input_fwd(xp, grad, weight, *, x_shape, geometry):
    """col2im: scatter each kernel tap's contribution back onto the padded input."""
    stride, padding, dilation, groups = geometry
    n, oc = grad.shape[:2]
    out = grad.shape[2:]
    nd, kernel = len(out), weight.shape[2:]
    cg = weight.shape[1]
    g = grad.reshape((n, groups, oc // groups, -1)).transpose(1, 0, 3, 2)
    g = g.reshape(groups, -1, oc // groups)
    w = weight.reshape(groups, oc // groups, -1)
    cols = xp.matmul(g, w).reshape((groups, n) + out + (cg,) + kernel)
    order = (1, 0, 2 + nd) + tuple(range(3 + nd, 3 + 2 * nd)) + tuple(range(2, 2 + nd))
    cols = cols.transpose(order).reshape((n, groups * cg) + kernel + out)
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(x_shape[2:], padding))
    result = xp.zeros((n, groups * cg) + padded, dtype=grad.dtype)
    every = (slice(None), slice(None))
    for tap in np.ndindex(*kernel):
        region = tuple(
            slice(k * d, k * d + s * (o - 1) + 1, s)
            for k, d, s, o in zip(tap, dilation, stride, out)
        )
        result[every + region] += cols[every + tap]
    return result[every + tuple(slice(lo, lo + s) for s, (lo, _) in zip(x_shape[2:], padding))]


def _conv_weight_fwd(xp, x, grad, *, weight_shape, geometry):
    stride, padding, dilation, groups = geometry
    win = _windows(xp, x, weight_shape[2:], stride, padding, dilation, grad.shape[2:])
    cols, _ = _columns(win, groups)
    n, oc = grad.shape[:2]
    g = grad.reshape((n, groups, oc // groups, -1)).transpose(1, 2, 0, 3)
    g = g.reshape(groups, oc // groups, -1)
    return xp.matmul(g, cols).reshape(weight_shape)


def conv(x, weight, bias, geometry, out_size=None):
    attrs = {"geometry": geometry}
    if out_size is not None:
        attrs["out_size"] = tuple(out_size)
    return apply(CONVOLUTION, (x, weight, bias), attrs)


def conv_input(grad, weight, x_shape, geometry):
    return apply(CONV_INPUT, (grad, weight), {"x_shape": tuple(x_shape), "geometry": geometry})


def conv_weight(x, grad, weight_shape, geometry):
    attrs = {"weight_shape": tuple(weight_shape), "geometry": geometry}
    return apply(CONV_WEIGHT, (x, grad), attrs)


def _bias_grad(g):
    return g.sum([0] + list(range(2, g.ndim)))


# See Note [Convolution as three bilinear ops] for why each formula is one of the three.
CONVOLUTION = defop(
    "convolution",
    _conv_fwd,
    {
        "x": lambda g, weight, x_shape, geometry: conv_input(g, weight, x_shape, geometry),
        "weight": lambda g, x, weight_shape, geometry: conv_weight(x, g, weight_shape, geometry),
        "bias": lambda g: _bias_grad(g),
    },
    node="ConvolutionBackward0",
)
CONV_INPUT = defop(
    "convolution_input",
    _conv_input_fwd,
    {
        "grad": lambda g, weight, grad_shape, geometry: conv(
            g, weight, None, geometry, grad_shape[2:]
        ),
        "weight": lambda g, grad, weight_shape, geometry: conv_weight(
            g, grad, weight_shape, geometry
        ),
    },
    node="ConvolutionBackwardBackward0",
)
CONV_WEIGHT = defop(
    "convolution_weight",
    _conv_weight_fwd,
    {
        "x": lambda g, grad, x_shape, geometry: conv_input(grad, g, x_shape, geometry),
        "grad": lambda g, x, grad_shape, geometry: conv(x, g, None, geometry, grad_shape[2:]),
    },
    node="ConvolutionBackwardBackward0",
)


def _conv_transpose_fwd(xp, x, weight, bias, *, out_shape, geometry):
    y = _conv_input_fwd(xp, x, weight, x_shape=out_shape, geometry=geometry)
    if bias is not None:
        y = y + bias.reshape((-1,) + (1,) * (y.ndim - 2))
    return y


# The transposed convolution is conv_input with a bias; PyTorch names its node the same.
CONV_TRANSPOSE = defop(
    "conv_transpose",
    _conv_transpose_fwd,
    {
        "x": lambda g, weight, x_shape, geometry: conv(g, weight, None, geometry, x_shape[2:]),
        "weight": lambda g, x, weight_shape, geometry: conv_weight(g, x, weight_shape, geometry),
        "bias": lambda g: _bias_grad(g),
    },
    node="ConvolutionBackward0",
)


def _pad_fwd(xp, x, *, pad, value):
    # `pad` is PyTorch's flat list, last dim first; negative entries crop
    pairs = [(0, 0)] * (x.ndim - len(pad) // 2) + [
        (pad[2 * i], pad[2 * i + 1]) for i in reversed(range(len(pad) // 2))
    ]
    crop = tuple(
        slice(-lo if lo < 0 else 0, s + hi if hi < 0 else s) for (lo, hi), s in zip(pairs, x.shape)
    )
    x = x[crop]
    grow = [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]
    if any(lo or hi for lo, hi in grow):
        x = xp.pad(x, grow, constant_values=value)
    return x


CONSTANT_PAD = defop(
    "constant_pad_nd",
    _pad_fwd,
    {"x": lambda g, pad: apply(CONSTANT_PAD, (g,), {"pad": tuple(-p for p in pad), "value": 0})},
    node="ConstantPadNdBackward0",
)


def constant_pad(x, pad, value=0):
    return apply(CONSTANT_PAD, (x,), {"pad": tuple(pad), "value": value})


def conv_transpose(x, weight, bias, out_shape, geometry):
    attrs = {"out_shape": tuple(out_shape), "geometry": geometry}
    return apply(CONV_TRANSPOSE, (x, weight, bias), attrs)


# ---- the functional forms ----------------------------------------------------------------------


def _tuple(value, nd: int, name: str = "") -> tuple:
    if isinstance(value, int):
        return (value,) * nd
    value = tuple(value)
    return value * nd if len(value) == 1 else value


def _check_input(input, weight, nd: int, name: str, transposed: bool, groups: int) -> None:
    if input._data.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
            f"{name}, but got input of size: {list(input._data.shape)}"
        )
    w = weight._data.shape
    channels = input._data.shape[1]
    expected = w[0] if transposed else w[1] * groups
    if channels != expected:
        head = "transposed=1" if transposed else f"groups={groups}"
        raise RuntimeError(
            f"Given {head}, weight of size {list(w)}, expected input"
            f"{list(input._data.shape)} to have {expected} channels, but got "
            f"{channels} channels instead"
        )


def _check_bias(weight, bias, transposed: bool, groups: int) -> None:
    if bias is None:
        return
    out = weight._data.shape[1] * groups if transposed else weight._data.shape[0]
    if bias._data.shape != (out,):
        raise RuntimeError(
            f"Given weight of size {list(weight._data.shape)}, expected bias to "
            f"be 1-dimensional with {out} elements, but got bias of size "
            f"{list(bias._data.shape)} instead"
        )


def _same_padding(input, weight, dilation, nd: int):
    """PyTorch's 'same': half the padding each side, the odd one extra on the right."""
    pad, extra = [], []
    for d, k in zip(dilation, weight._data.shape[2:]):
        total = d * (k - 1)
        pad.append(total // 2)
        extra = [0, total % 2] + extra  # F.pad order: last dim first
    if any(extra):
        input = constant_pad(input, extra)
    return input, tuple(pad)


def _padding(input, weight, padding, stride, dilation, nd: int):
    if isinstance(padding, str):
        if padding == "valid":
            return input, (0,) * nd
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        return _same_padding(input, weight, dilation, nd)
    padding = _tuple(padding, nd)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    return input, padding


def _check_kernel(input, weight, padding, dilation, nd: int) -> None:
    padded = [s + 2 * p for s, p in zip(input._data.shape[2:], padding)]
    span = [d * (k - 1) + 1 for d, k in zip(dilation, weight._data.shape[2:])]
    if any(p < k for p, k in zip(padded, span)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, span))}). Kernel size can't be greater than "
            "actual input size"
        )


def convolution(input, weight, bias, stride, padding, dilation, groups, nd: int, name: str):
    """conv1d/conv2d/conv3d: batched or unbatched input, int/tuple/'same'/'valid' padding."""
    if input._data.ndim == nd + 1:
        return convolution(
            input.unsqueeze(0), weight, bias, stride, padding, dilation, groups, nd, name
        ).squeeze(0)
    _check_input(input, weight, nd, name, False, groups)
    _check_bias(weight, bias, False, groups)
    stride, dilation = _tuple(stride, nd), _tuple(dilation, nd)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    input, padding = _padding(input, weight, padding, stride, dilation, nd)
    _check_kernel(input, weight, padding, dilation, nd)
    geometry = Geometry(stride, tuple((p, p) for p in padding), dilation, groups)
    return conv(input, weight, bias, geometry)


def convolution_transpose(
    input, weight, bias, stride, padding, output_padding, groups, dilation, nd: int, name: str
):
    """conv_transpose1d/2d/3d: the gradient of a convolution with respect to its input."""
    if input._data.ndim == nd + 1:
        return convolution_transpose(
            input.unsqueeze(0),
            weight,
            bias,
            stride,
            padding,
            output_padding,
            groups,
            dilation,
            nd,
            name,
        ).squeeze(0)
    _check_input(input, weight, nd, name, True, groups)
    _check_bias(weight, bias, True, groups)
    stride, padding = _tuple(stride, nd), _tuple(padding, nd)
    dilation, output_padding = _tuple(dilation, nd), _tuple(output_padding, nd)
    for op, s, d in zip(output_padding, stride, dilation):
        if op >= s and op >= d:
            raise RuntimeError(_output_padding_message(output_padding, stride, dilation))
    out_spatial = tuple(
        (i - 1) * s - 2 * p + d * (k - 1) + op + 1
        for i, s, p, d, k, op in zip(
            input._data.shape[2:], stride, padding, dilation, weight._data.shape[2:], output_padding
        )
    )
    out_shape = (input._data.shape[0], weight._data.shape[1] * groups) + out_spatial
    geometry = Geometry(stride, tuple((p, p) for p in padding), dilation, groups)
    return conv_transpose(input, weight, bias, out_shape, geometry)


def _output_padding_message(output_padding, stride, dilation) -> str:
    names = (
        ("height", "width")
        if len(stride) == 2
        else ("depth", "height", "width")[-len(stride) :]
        if len(stride) == 3
        else ("",)
    )
    if len(stride) == 1:
        return (
            "output padding must be smaller than either stride or dilation, but got "
            f"output_padding: {output_padding[0]} stride: {stride[0]} dilation: "
            f"{dilation[0]}"
        )
    parts = [f"output_padding_{n}: {v}" for n, v in zip(names, output_padding)]
    parts += [f"stride_{n}: {v}" for n, v in zip(names, stride)]
    parts += [f"dilation_{n}: {v}" for n, v in zip(names, dilation)]
    return "output padding must be smaller than either stride or dilation, but got " + " ".join(
        parts
    )
