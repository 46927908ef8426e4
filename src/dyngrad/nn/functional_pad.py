"""`torch.nn.functional.pad`: constant, reflect and replicate padding are ops (PyTorch's nodes);
circular padding copies slices as PyTorch does, with its checks of the pad lengths."""

from __future__ import annotations

from ..ops.nn.conv import constant_pad
from ..ops.nn.pad import index_pad
from ..ops.table.arguments import int_list

# (pad length, input dims) that the non-constant modes take: 1-d padding of a 2-d or 3-d input,
# 2-d padding of 3-d or 4-d, 3-d padding of 4-d or 5-d
_SUPPORTED = {(2, 2), (2, 3), (4, 3), (4, 4), (6, 4), (6, 5)}
_MODES = ("constant", "reflect", "replicate", "circular")


def pad(input, pad, mode="constant", value=None):
    """Matches `torch.nn.functional.pad`."""
    pad = int_list("pad", (pad,), "pad", 2, varargs=False)
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    ndim = input.dim()
    if len(pad) // 2 > ndim:
        raise RuntimeError(
            f"Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {ndim}"
        )
    if mode == "constant":
        _check_crops(input.shape, pad)
        return constant_pad(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if (len(pad), ndim) not in _SUPPORTED:
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {ndim}D input tensor."
        )
    _check_sizes(input.shape, pad, mode)
    if mode == "circular":
        return _circular_pad(input, pad)
    return index_pad(input, pad, mode)


def _check_crops(shape, pad) -> None:
    # a negative pad narrows the input first, the low side then the high side, as PyTorch does
    for i in range(len(pad) // 2):
        size = shape[len(shape) - 1 - i]
        for p in pad[2 * i : 2 * i + 2]:
            if p < 0:
                size += p
                if size < 0:
                    raise RuntimeError("narrow(): length must be non-negative.")


def _check_sizes(shape, pad, mode) -> None:
    n = len(pad) // 2
    for i in range(n):
        dim = len(shape) - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if mode == "reflect" and (lo >= shape[dim] or hi >= shape[dim]):
            raise RuntimeError(
                f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding "
                f"input dimension, but got: padding ({lo}, {hi}) at dimension {dim} of input "
                f"{list(shape)}"
            )
        if mode == "circular" and (lo > shape[dim] or hi > shape[dim]):
            raise RuntimeError("Padding value causes wrapping around more than once.")
    if mode != "circular":
        spatial = shape[len(shape) - n :]
        out = [s + pad[2 * (n - 1 - k)] + pad[2 * (n - 1 - k) + 1] for k, s in enumerate(spatial)]
        if min(out) < 1:
            names = "DHW"[3 - n :]
            have = ", ".join(f"{c}: {s}" for c, s in zip(names, spatial))
            got = " ".join(f"{c}: {s}" for c, s in zip(names, out))
            raise RuntimeError(f"input ({have}) is too small. Calculated output {got}")


def _narrow(tensor, dim: int, start: int, stop: int):
    return tensor[(slice(None),) * dim + (slice(start, stop),)]


def _circular_pad(input, pad):
    """PyTorch's circular padding, step for step, so the graph is its chain of `CopySlices`:
    the (cropped) input is copied into the middle of an empty output, then each padded dim's
    low and high pads are copied from the far end of what is already there (corners too)."""
    ndim = input.dim()
    dims = [(ndim - 1 - i, pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]
    shape = list(input.shape)
    for dim, lo, hi in dims:
        shape[dim] += lo + hi
    out = input.new_empty(shape)
    middle, source = out, input
    for dim, lo, hi in dims:
        middle = _narrow(middle, dim, max(lo, 0), shape[dim] - max(hi, 0))
        source = _narrow(source, dim, max(-lo, 0), input.shape[dim] - max(-hi, 0))
    middle.copy_(source)
    for dim, lo, hi in dims:
        end = shape[dim] - max(hi, 0)
        if lo > 0:
            _narrow(out, dim, 0, lo).copy_(_narrow(out, dim, end - lo, end))
        if hi > 0:
            start = max(lo, 0)
            _narrow(out, dim, shape[dim] - hi, shape[dim]).copy_(
                _narrow(out, dim, start, start + hi)
            )
    return out
