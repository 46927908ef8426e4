"""ATen's `native_*` entry points that have their own nodes: `torch.native_dropout`
(NativeDropoutBackward0, returning the boolean mask) and `torch.native_channel_shuffle` (which
PyTorch gives no derivative)."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...runtime import sampling
from ...runtime.random import default_generator
from ..creation.write_order import dense_axes, place
from ..table.record import apply
from ..table.registry import NOT_IMPLEMENTED, defop
from ..table.surface import public
from .channel_shuffle import CHANNEL_SHUFFLE, channel_shuffle

__all__ = ["native_dropout", "native_channel_shuffle"]


def _dropout_fwd(xp, x, mask, *, scale):
    # PyTorch's order: input * mask, then * scale in the input's type
    return (x * mask) * x.dtype.type(scale)


NATIVE_DROPOUT = defop(
    "native_dropout",
    _dropout_fwd,
    {"x": lambda g, mask, scale: g * mask * scale},
    node="NativeDropoutBackward0",
)


def _refuse_channel_shuffle(g):
    raise RuntimeError("derivative for aten::native_channel_shuffle is not implemented")


NATIVE_CHANNEL_SHUFFLE = defop(
    "native_channel_shuffle",
    CHANNEL_SHUFFLE.fwd,
    {"x": _refuse_channel_shuffle},
    node=NOT_IMPLEMENTED,
)


def _keep_mask(input: Tensor, p: float) -> np.ndarray:
    """PyTorch's draws: `empty_like(input).bernoulli_(1 - p)`, as a boolean mask."""
    like = input._data
    keep = sampling.bernoulli(default_generator, like.size, 1 - p)
    axes = dense_axes(like)  # empty_like keeps a transposed input's layout
    keep = place(keep, like, axes) if axes is not None else keep.reshape(like.shape)
    return keep.astype(bool)


@public(method=False)
def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple:
    """Matches `torch.native_dropout`: (output, mask), mask True where an element was kept.
    Draws the same mask as PyTorch after the same seed; `train` False (or None) keeps all."""
    if train is None or train:
        if not 0.0 <= 1 - p <= 1.0:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={1 - p}")
        mask = _keep_mask(input, p)
        scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    else:
        mask, scale = np.ones(input._data.shape, dtype=bool), 1.0
    mask = Tensor._wrap(mask)
    return apply(NATIVE_DROPOUT, (input, mask), {"scale": scale}), mask


@public(method=False)
def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Matches `torch.native_channel_shuffle`: channel_shuffle's values and checks, with
    PyTorch's node that refuses backward."""
    channel_shuffle(input.detach(), groups)  # its argument checks
    return apply(NATIVE_CHANNEL_SHUFFLE, (input,), {"groups": groups})
