"""PyTorch's shape checks and LAPACK failure messages, shared by the linalg functions."""

from __future__ import annotations

import numpy as np

__all__ = ["check_square", "square_error", "first_failure"]


def square_error(name: str, shape) -> RuntimeError:
    return RuntimeError(
        f"{name}: A must be batches of square matrices, but they are "
        f"{shape[-2]} by {shape[-1]} matrices"
    )


def check_square(name: str, shape, *, at_least_2d: bool = False) -> None:
    """PyTorch's errors for an A that is not a (batch of) square matrix."""
    if at_least_2d and len(shape) < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if shape[-1] != shape[-2]:
        raise square_error(name, shape)


def first_failure(info, ndim: int):
    """The first nonzero entry of LAPACK's `info` over a batch (in C order) and the prefix
    PyTorch's message gives it ("(Batch element k): " for a batch, else ""); None if none."""
    for index in np.ndindex(info.shape):
        if info[index]:
            k = int(np.ravel_multi_index(index, info.shape))
            return info[index], f"(Batch element {k}): " if ndim > 2 else ""
    return None
