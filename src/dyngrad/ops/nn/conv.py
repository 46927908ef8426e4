"""Convolution (any number of spatial dims, groups, dilation) and constant padding.

# Note [Convolution as three bilinear ops]
# conv(x, w) is bilinear, and so are its two backward maps:
#   conv_input(grad, w)   = d<conv(x, w), grad>/dx   (col2im; also the transposed conv)
#   conv_weight(x, grad)  = d<conv(x, w), grad>/dw
# Each one's derivatives are again one of the three, so every formula below is written with
# them and double backward (gradgradcheck) comes free. Windows are a strided view of the
# padded input; see Note [Convolution layout] in im2col.py for the columns' layout.
"""

from __future__ import annotations

from typing import NamedTuple

from ..._tensor_errors import CPP_TYPE_NAMES
from ..arrays.gemm import rounds_once
from ..arrays.im2col import col2im_slots, col2im_strided, columns, windows
from ..table import record as recording
from ..table.record import apply
from ..table.registry import defop


class Geometry(NamedTuple):
    """A convolution's stride, (lo, hi) padding per dim, dilation and groups: one attr."""

    stride: tuple
    padding: tuple
    dilation: tuple
    groups: int


def _conv_fwd(xp, x, weight, bias, *, geometry, out_size=None):
    stride, padding, dilation, groups = geometry
    win = windows(xp, x, weight.shape[2:], stride, padding, dilation, out_size)
    cols, out = columns(xp, win, groups)
    oc = weight.shape[0]
    y = xp.matmul(weight.reshape(groups, oc // groups, -1), cols)  # (N, G, Og, P)
    y = y.reshape((x.shape[0], oc) + out)
    if bias is not None:
        if bias.dtype == y.dtype:
            y += bias.reshape((oc,) + (1,) * len(out))
        else:
            y = y + bias.reshape((oc,) + (1,) * len(out))
    return y


def _conv_input_fwd(xp, grad, weight, *, x_shape, geometry):
    """col2im: add each kernel tap's contribution back onto the padded input."""
    stride, padding, dilation, groups = geometry
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(x_shape[2:], padding))
    if all(s == 1 for s in stride) and xp.isfinite(weight).all():
        result = col2im_slots(xp, grad, weight, padded, dilation, groups)
    else:
        result = col2im_strided(xp, grad, weight, padded, stride, dilation, groups)
    crop = tuple(slice(lo, lo + s) for s, (lo, _) in zip(x_shape[2:], padding))
    return xp.ascontiguousarray(result[(slice(None), slice(None)) + crop])


def _conv_weight_fwd(xp, x, grad, *, weight_shape, geometry):
    stride, padding, dilation, groups = geometry
    win = windows(xp, x, weight_shape[2:], stride, padding, dilation, grad.shape[2:])
    cols, _ = columns(xp, win, groups)
    n, oc = grad.shape[:2]
    g = grad.reshape(n, groups, oc // groups, cols.shape[-1])
    # one (Cg*K, P) @ (P, Og) product per sample and group (BLAS is faster this way round
    # than with the transposed columns on the right), summed over the samples
    grad_weight = xp.matmul(cols, g.transpose(0, 1, 3, 2)).sum(axis=0)
    return grad_weight.transpose(0, 2, 1).reshape(weight_shape)


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
    rounds_once(_conv_fwd),  # bfloat16/float16: See Note [Low-precision products]
    {
        "x": lambda g, weight, x_shape, geometry: conv_input(g, weight, x_shape, geometry),
        "weight": lambda g, x, weight_shape, geometry: conv_weight(x, g, weight_shape, geometry),
        "bias": lambda g: _bias_grad(g),
    },
    node="ConvolutionBackward0",
)
CONV_INPUT = defop(
    "convolution_input",
    rounds_once(_conv_input_fwd),
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
    rounds_once(_conv_weight_fwd),
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
    rounds_once(_conv_transpose_fwd),
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


def _check_input(input, weight, nd: int, transposed: bool, groups: int) -> None:
    if input._data.ndim not in (nd + 1, nd + 2):
        name = f"conv_transpose{nd}d" if transposed else f"conv{nd}d"
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
        head = "transposed=1, weight" if transposed else "weight"
        raise RuntimeError(
            f"Given {head} of size {list(weight._data.shape)}, expected bias to "
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


def _check_params(input, weight, stride, padding, dilation, groups, nd: int) -> None:
    """PyTorch's checks of a convolution's arguments against its weight, in its order."""
    k = weight._data.ndim - 2
    for name, value in (("stride", stride), ("padding", padding), ("dilation", dilation)):
        if isinstance(value, str):
            continue
        values = _tuple(value, nd)
        if len(values) not in (1, k):
            raise RuntimeError(
                f"expected {name} to be a single integer value or a list of {k} "
                f"values to match the convolution dimensions, but got "
                f"{name}={list(values)}"
            )
    x, w = input._data, weight._data
    if x.ndim != w.ndim:
        raise RuntimeError(
            f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional weight "
            f"{list(w.shape)}, but got {x.ndim}-dimensional input of size "
            f"{list(x.shape)} instead"
        )
    if any(s <= 0 for s in _tuple(stride, nd)):
        raise RuntimeError("non-positive stride is not supported")
    if not isinstance(padding, str) and any(p < 0 for p in _tuple(padding, nd)):
        raise RuntimeError("negative padding is not supported")
    dilation = _tuple(dilation, nd)
    if any(d <= 0 for d in dilation):  # a 1-d convolution is a 2-d one inside PyTorch
        shown = [1, *dilation] if nd == 1 else list(dilation)
        raise RuntimeError(f"dilation should be greater than zero, but got {shown}")
    if w.shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} "
            f"at dimension 0, but got weight of size [{list(w.shape)}] instead"
        )


def _dtype_mismatch(input, other, name: str) -> RuntimeError:
    """PyTorch's error for a weight or bias of another dtype than the input: oneDNN's words
    for a bfloat16 input (it names the legacy tensor types), the kernel's otherwise."""
    hint = (
        f"The input is {input.dtype} and the {name} {other.dtype}: cast one to the other (a "
        "module's parameters with `module.to(dtype)`)."
    )
    if input.dtype.name == "bfloat16":
        return RuntimeError(
            f"Input type (CPU{input.dtype._legacy}Type) and {name} type (torch."
            f"{other.dtype._legacy}Tensor) should be the same or input should be a MKLDNN "
            f"tensor and {name} is a dense tensor\n{hint}"
        )
    return RuntimeError(
        f"expected scalar type {input.dtype._legacy} but found {other.dtype._legacy}\n{hint}"
    )


def _check_weight_dtype(input, weight) -> None:
    if input.dtype != weight.dtype:
        raise _dtype_mismatch(input, weight, "weight")


def convolution(input, weight, bias, stride, padding, dilation, groups, nd: int):
    """conv1d/conv2d/conv3d: batched or unbatched input, int/tuple/'same'/'valid' padding."""
    if recording.autocast is not None:  # cast before the dtype checks: Note [Autocast hook]
        input, weight, bias = recording.autocast("convolution", (input, weight, bias))
    if input._data.ndim not in (nd + 1, nd + 2):
        _check_input(input, weight, nd, False, groups)
    if input._data.ndim == nd + 1 and weight._data.ndim == nd + 2:
        args = (weight, bias, stride, padding, dilation, groups, nd)
        return convolution(input.unsqueeze(0), *args).squeeze(0)
    _check_params(input, weight, stride, padding, dilation, groups, nd)
    if bias is not None and bias.dtype != input.dtype:  # PyTorch checks it before the shapes
        raise RuntimeError(
            f"Input type ({CPP_TYPE_NAMES[input.dtype.name]}) and bias type "
            f"({CPP_TYPE_NAMES[bias.dtype.name]}) should be the same\n"
            f"Cast the bias with `.to({input.dtype})` or the input with `.to({bias.dtype})`."
        )
    _check_input(input, weight, nd, False, groups)
    _check_bias(weight, bias, False, groups)
    stride, dilation = _tuple(stride, nd), _tuple(dilation, nd)
    input, padding = _padding(input, weight, padding, stride, dilation, nd)
    _check_kernel(input, weight, padding, dilation, nd)
    _check_weight_dtype(input, weight)
    geometry = Geometry(stride, tuple((p, p) for p in padding), dilation, groups)
    return conv(input, weight, bias, geometry)


def convolution_transpose(
    input, weight, bias, stride, padding, output_padding, groups, dilation, nd: int
):
    """conv_transpose1d/2d/3d: the gradient of a convolution with respect to its input."""
    if recording.autocast is not None:  # cast before the dtype checks: Note [Autocast hook]
        input, weight, bias = recording.autocast("conv_transpose", (input, weight, bias))
    if input._data.ndim == nd + 1:
        args = (weight, bias, stride, padding, output_padding, groups, dilation, nd)
        return convolution_transpose(input.unsqueeze(0), *args).squeeze(0)
    _check_input(input, weight, nd, True, groups)
    _check_bias(weight, bias, True, groups)
    _check_weight_dtype(input, weight)
    if bias is not None and bias.dtype != input.dtype:
        # oneDNN (bfloat16) and the 3-d kernel (slow_conv_transpose3d) check the bias too;
        # the 1-d and 2-d kernels add a bias of any float type
        if input.dtype.name == "bfloat16" or nd == 3:
            raise _dtype_mismatch(input, bias, "bias")
        bias = bias.to(input.dtype)
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
