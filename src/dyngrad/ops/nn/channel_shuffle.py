"""`channel_shuffle` (ChannelShuffleBackward0) and `rrelu` (RreluWithNoiseBackward0; rrelu_'s
node is RreluWithNoiseBackward1)."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...runtime.dtypes import LOW_PRECISION
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public


def _shuffle_fwd(xp, x, *, groups):
    n, c = x.shape[0], x.shape[1]
    grouped = x.reshape((n, groups, c // groups) + x.shape[2:])
    return xp.ascontiguousarray(xp.swapaxes(grouped, 1, 2)).reshape(x.shape)


# the inverse of shuffling g groups of c/g channels is shuffling c/g groups of g
CHANNEL_SHUFFLE = defop(
    "channel_shuffle",
    _shuffle_fwd,
    {"x": lambda g, groups: apply(CHANNEL_SHUFFLE, (g,), {"groups": g.shape[1] // groups})},
)


@public(method=False)
def channel_shuffle(input, groups: int):
    """Matches `torch.channel_shuffle`: split the channels into `groups` and interleave them."""
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    if input.dim() <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes "
            f"{list(input.shape)}"
        )
    if input.shape[1] % groups:
        raise RuntimeError(
            "Number of channels must be divisible by groups. Got "
            f"{input.shape[1]} channels and {groups} groups."
        )
    return apply(CHANNEL_SHUFFLE, (input,), {"groups": groups})


# ---- rrelu ----------------------------------------------------------------------------------


def _rrelu_fwd(xp, x, noise):
    return xp.where(x > 0, x, x * noise).astype(x.dtype, copy=False)


RRELU = defop(
    "rrelu_with_noise",
    _rrelu_fwd,
    {"x": lambda g, x, noise: g * (x > 0) + g * (x <= 0) * noise},
    non_differentiable=("noise",),
)
# rrelu_ is its own row in PyTorch (RreluWithNoiseBackward1); its formula reads the result,
# whose sign is the input's (the slopes are positive)
RRELU_INPLACE = defop(
    "rrelu_with_noise_",
    _rrelu_fwd,
    {"x": lambda g, out, noise: g * (out > 0) + g * (out <= 0) * noise},
    node="RreluWithNoiseBackward1",
    non_differentiable=("noise",),
)


def _noise(input, lower, upper, training, generator):
    # PyTorch's noise: when training, a double uniform slope drawn for each element <= 0 in
    # row-major order (so the same draws after the same seed); else the mean slope
    if not training:  # PyTorch's leaky_relu with that slope: a float32 one for half types
        dtype = input._data.dtype
        dtype = np.float32 if dtype in LOW_PRECISION else dtype
        return Tensor._wrap(np.asarray((lower + upper) / 2, dtype=dtype))
    a = np.ascontiguousarray(input._data)
    below = a <= 0
    draws = Tensor._wrap(np.empty(int(below.sum()))).uniform_(lower, upper, generator=generator)
    noise = np.ones(a.shape, a.dtype)
    noise[below] = draws._data
    return Tensor._wrap(noise)


@public(method=False)
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training: bool = False, generator=None):
    """Matches `torch.rrelu`: x where x >= 0, else x times a random slope in [lower, upper]
    when training (the mean slope when not)."""
    return apply(RRELU, (input, _noise(input, lower, upper, training, generator)))


@public(method=False)
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training: bool = False, generator=None):
    noise = _noise(input, lower, upper, training, generator)
    return apply_inplace(RRELU_INPLACE, (input, noise), name="rrelu_")
