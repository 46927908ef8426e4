"""`torch.nn.functional`'s dropouts: elementwise and per channel, with PyTorch's checks."""

from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor
from ..ops.creation.write_order import dense_axes, place
from ..ops.table.record import replayable
from ..runtime import sampling
from ..runtime.random import default_generator

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d"]


def _check_p(p) -> None:
    _check_p_range(p)
    if p != p:  # NaN passes the Python check above; PyTorch's kernel refuses it
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _check_p_range(p) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _masked(input, mask_shape, p, inplace):
    """input * noise, the noise PyTorch's: `bernoulli_(1 - p)` on an empty tensor (like the
    input, or of the feature shape) divided by 1 - p. Same draws as PyTorch."""
    mask = Tensor._wrap(_noise(input._data, mask_shape, p))
    return input.mul_(mask) if inplace else input * mask


@replayable  # a replayed compiled call draws its noise again: Note [Replayable sources]
def _noise(data, mask_shape, p):
    dtype = data.dtype
    if p == 1.0:
        return np.zeros(mask_shape, dtype=dtype)
    like = data if mask_shape == data.shape else np.empty(mask_shape, dtype)
    axes = dense_axes(like)  # empty_like keeps a transposed input's layout
    keep = sampling.bernoulli(default_generator, like.size, 1 - p)
    keep = place(keep, like, axes) if axes is not None else keep.reshape(mask_shape)
    # PyTorch divides in the input's compute type (float32 below float64), then rounds
    compute = np.float64 if dtype == np.float64 else np.float32
    return np.multiply(keep, compute(1) / compute(1.0 - p), dtype=dtype)


def dropout(input, p=0.5, training=True, inplace=False):
    """Matches `torch.nn.functional.dropout`: zero each element with probability p, scale the rest.

    The mask is PyTorch's: after the same `manual_seed`, the same elements are zeroed.
    """
    _check_p(p)
    if not training or p == 0.0:
        return input
    return _masked(input, input._data.shape, p, inplace)


def _feature_dropout(input, p, training, inplace, batched_ndim: int):
    _check_p(p)
    if not training or p == 0.0:
        return input
    shape = input._data.shape
    lead = 2 if input._data.ndim == batched_ndim else 1
    if lead == 2 and len(shape) < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _masked(input, shape[:lead] + (1,) * (len(shape) - lead), p, inplace)


def _warn_deprecated_dims(name: str, ndim: int, spatial: int) -> None:
    warnings.warn(
        f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in "
        "an error in a future release. To retain the behavior and silence this warning, please "
        f"use dropout instead. Note that {name} exists to provide channel-wise dropout on inputs "
        f"with {spatial} spatial dimensions, a channel dimension, and an optional batch "
        f"dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
        UserWarning,
        stacklevel=3,
    )


def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_p_range(p)  # the range first, NaN after the dims (the kernel's check)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs)."
        )
    return _feature_dropout(input, p, training, inplace, 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Matches `torch.nn.functional.dropout2d`: zero whole channels. Any input is read as
    (N, C, *): a 2-D input is dropped element by element, a 5-D one per (N, C) pair."""
    if input.dim() not in (3, 4):
        _warn_deprecated_dims("dropout2d", input.dim(), 2)
    if input.dim() == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning,
            stacklevel=2,
        )
    return _feature_dropout(input, p, training, inplace, input.dim())


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Matches `torch.nn.functional.dropout3d`: a 5-D input is (N, C, D, H, W); any other is
    read as unbatched, its first dim the channels."""
    if input.dim() not in (4, 5):
        _warn_deprecated_dims("dropout3d", input.dim(), 3)
    return _feature_dropout(input, p, training, inplace, 5)
