"""F.unfold (im2col) and F.fold (col2im): sliding blocks to columns and back, each the
other's backward (Im2ColBackward0, Col2ImBackward0)."""

from __future__ import annotations

from ..arrays.im2col import windows
from ..table.record import apply
from ..table.registry import defop


def _pair(v) -> tuple:
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def _blocks(size, kernel, dilation, padding, stride) -> tuple:
    return tuple(
        (s + 2 * p - d * (k - 1) - 1) // st + 1
        for s, k, d, p, st in zip(size, kernel, dilation, padding, stride)
    )


def _unfold_fwd(xp, x, *, kernel, dilation, padding, stride):
    n, c = x.shape[:2]
    win = windows(xp, x, kernel, stride, tuple((p, p) for p in padding), dilation)
    # (N, C, oh, ow, kh, kw) -> (N, C, kh, kw, oh, ow) -> (N, C kh kw, L)
    cols = win.transpose(0, 1, 4, 5, 2, 3)
    return xp.ascontiguousarray(cols).reshape(n, c * kernel[0] * kernel[1], -1)


def _fold_fwd(xp, cols, *, output_size, kernel, dilation, padding, stride):
    n = cols.shape[0]
    kh, kw = kernel
    c = cols.shape[1] // (kh * kw)
    oh, ow = _blocks(output_size, kernel, dilation, padding, stride)
    blocks = cols.reshape(n, c, kh, kw, oh, ow)
    h, w = output_size[0] + 2 * padding[0], output_size[1] + 2 * padding[1]
    out = xp.zeros((n, c, h, w), dtype=cols.dtype)
    for i in range(kh):  # each kernel tap adds its block of positions at once
        top = i * dilation[0]
        for j in range(kw):
            left = j * dilation[1]
            out[
                :,
                :,
                top : top + stride[0] * (oh - 1) + 1 : stride[0],
                left : left + stride[1] * (ow - 1) + 1 : stride[1],
            ] += blocks[:, :, i, j]
    return out[
        :, :, padding[0] : padding[0] + output_size[0], padding[1] : padding[1] + output_size[1]
    ].copy()


def _geometry(g_shape, kernel, dilation, padding, stride):
    return {
        "output_size": tuple(g_shape[2:]),
        "kernel": kernel,
        "dilation": dilation,
        "padding": padding,
        "stride": stride,
    }


UNFOLD = defop(
    "im2col",
    _unfold_fwd,
    {
        "x": lambda g, x_shape, kernel, dilation, padding, stride: apply(
            FOLD, (g,), _geometry(x_shape, kernel, dilation, padding, stride)
        )
    },
    node="Im2ColBackward0",
)
FOLD = defop(
    "col2im",
    _fold_fwd,
    {
        "cols": lambda g, kernel, dilation, padding, stride: apply(
            UNFOLD,
            (g,),
            {"kernel": kernel, "dilation": dilation, "padding": padding, "stride": stride},
        )
    },
    node="Col2ImBackward0",
)


def _check_window(kernel, dilation, padding, stride) -> None:
    # PyTorch's im2col checks, in its order
    for name, pair, low, what in (
        ("kernel size", kernel, 1, "kernel"),
        ("dilation", dilation, 1, "dilation"),
        ("padding", padding, 0, "pad"),
        ("stride", stride, 1, "stride"),
    ):
        if min(pair) < low:
            need = "be non-negative" if low == 0 else "be greater than zero"
            raise RuntimeError(
                f"{name} should {need}, but got {what}_height: {pair[0]} {what}_width: {pair[1]}"
            )


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Matches `torch.nn.functional.unfold`: (N, C, H, W) -> (N, C kh kw, L)."""
    shape = input._data.shape
    if len(shape) not in (3, 4) or any(s == 0 for s in shape[-3:]):
        raise RuntimeError(
            f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
            f"and other non-zero dimensions for input, but got: {list(shape)}"
        )
    kernel, dilation, padding, stride = map(_pair, (kernel_size, dilation, padding, stride))
    _check_window(kernel, dilation, padding, stride)
    spatial = shape[-2:]
    blocks = _blocks(spatial, kernel, dilation, padding, stride)
    if min(blocks) < 1:
        raise RuntimeError(
            f"Given input with spatial size {tuple(spatial)}, kernel_size={kernel}, dilation="
            f"{dilation}, padding={padding}, calculated shape of the array of sliding blocks as "
            f"{blocks}, but its components must be at least one."
        )
    batched = len(shape) == 4
    x = input if batched else input.unsqueeze(0)
    out = apply(
        UNFOLD, (x,), {"kernel": kernel, "dilation": dilation, "padding": padding, "stride": stride}
    )
    return out if batched else out.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Matches `torch.nn.functional.fold`: (N, C kh kw, L) -> (N, C, H, W), overlaps summed."""
    shape = input._data.shape
    if len(shape) not in (2, 3) or any(s == 0 for s in shape[-2:]):
        raise RuntimeError(
            f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
            f"batch size and non-zero dimensions for input, but got: "
            f"{list(shape)}"
        )
    output_size, kernel, dilation, padding, stride = map(
        _pair, (output_size, kernel_size, dilation, padding, stride)
    )
    channels, length = shape[-2:]
    if channels % (kernel[0] * kernel[1]):
        raise RuntimeError(
            f"Expected size of input's dimension 1 to be divisible by the product "
            f"of kernel_size, but got input.size(1)={channels} and kernel_size="
            f"{kernel}."
        )
    blocks = _blocks(output_size, kernel, dilation, padding, stride)
    if blocks[0] * blocks[1] != length:
        raise RuntimeError(
            f"Given output_size={output_size}, kernel_size={kernel}, dilation={dilation}, "
            f"padding={padding}, stride={stride}, expected size of input's dimension 2 to match "
            f"the calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
            f"{blocks[0] * blocks[1]}, but got input.size(2)={length}."
        )
    batched = len(shape) == 3
    x = input if batched else input.unsqueeze(0)
    out = apply(
        FOLD,
        (x,),
        {
            "output_size": output_size,
            "kernel": kernel,
            "dilation": dilation,
            "padding": padding,
            "stride": stride,
        },
    )
    return out if batched else out.squeeze(0)
