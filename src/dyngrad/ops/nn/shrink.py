"""Rows with PyTorch's own nodes for activations that F.* spelled with `where`: hardshrink,
softshrink (HardshrinkBackward0, SoftshrinkBackward0) and prelu (PreluKernelBackward0)."""

from __future__ import annotations

from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public

HARDSHRINK = defop(
    "hardshrink",
    lambda xp, x, *, lambd: xp.where(xp.abs(x) > lambd, x, 0).astype(x.dtype, copy=False),
    {"x": lambda g, x, lambd: g * (x.abs() > lambd)},
)


def _softshrink_fwd(xp, x, *, lambd):
    out = xp.where(x > lambd, x - lambd, xp.where(x < -lambd, x + lambd, 0))
    return out.astype(x.dtype, copy=False)


SOFTSHRINK = defop(
    "softshrink",
    _softshrink_fwd,
    {"x": lambda g, x, lambd: g * (x.abs() > lambd)},
)


def _channel_shape(x_ndim: int, w_numel: int) -> tuple:
    # one weight for all, or one per channel: dim 1, or dim 0 of a vector
    if w_numel == 1:
        return ()
    return (-1,) + (1,) * max(x_ndim - 2, 0)


def _prelu_fwd(xp, x, w):
    w = w.reshape(_channel_shape(x.ndim, w.size))
    return xp.where(x > 0, x, w * x).astype(x.dtype, copy=False)


def _prelu_w_grad(g, x, w):
    part = g * x * (x <= 0)
    if w.numel() == 1:
        return part.sum().reshape(w.shape)
    dims = [d for d in range(x.dim()) if d != min(1, x.dim() - 1)]
    return (part.sum(dims) if dims else part).reshape(w.shape)


PRELU = defop(
    "prelu",
    _prelu_fwd,
    {
        "x": lambda g, x, w: (
            g * (x > 0) + g * (x <= 0) * w.reshape(_channel_shape(x.dim(), w.numel()))
        ),
        "w": _prelu_w_grad,
    },
    node="PreluKernelBackward0",
)


@public
def hardshrink(input, lambd=0.5):
    """Matches `torch.hardshrink`: x where |x| > lambd, else 0."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"hardshrink_cpu\" not implemented for '{input.dtype._legacy}'")
    return apply(HARDSHRINK, (input,), {"lambd": lambd})


@public
def prelu(input, weight):
    """Matches `torch.prelu`: x where x > 0, else weight * x (one weight, or one per channel)."""
    channels = input.shape[1] if input.dim() >= 2 else 1
    if weight.numel() not in (1, channels):
        raise RuntimeError(
            "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{weight.numel()} and channel size = {channels}."
        )
    if input.dim() >= 2:  # as PyTorch: the kernel takes weight viewed as (1, C, 1, ...)
        shape = [1] * input.dim()
        shape[1] = weight.numel()
        weight = weight.reshape(shape)
    return apply(PRELU, (input, weight))
