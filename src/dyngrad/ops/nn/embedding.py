"""Embedding lookup: rows of a weight table by integer index, and its scatter-add backward."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ...graph.grad_mode import no_grad
from ..shape.indexing import add_rows
from ..table.argument_errors import legacy_type
from ..table.array_backward import ArrayBackward
from ..table.record import apply
from ..table.registry import defop


def _embedding_backward_fwd(xp, grad, indices, *, num_weights, padding_idx, scale_grad_by_freq):
    rows = indices.reshape(-1)
    g = grad.reshape(rows.size, -1)
    if scale_grad_by_freq:
        counts = xp.bincount(rows, minlength=num_weights)
        g = g / counts[rows][:, None]
    out = xp.zeros((num_weights, g.shape[1]), dtype=grad.dtype)
    add_rows(xp, out, rows, g)
    if padding_idx is not None:
        out[padding_idx] = 0
    return out


def _lookup_masked(g, indices, padding_idx, scale_grad_by_freq, num_weights):
    # the adjoint of the scatter-add: gather rows back, zero where the index is padding
    out = apply(EMBEDDING, (g, indices), {"padding_idx": padding_idx})
    scale = np.ones(indices._data.shape, dtype=g._data.dtype)
    if padding_idx is not None:
        scale = scale * (indices._data != padding_idx)
    if scale_grad_by_freq:
        counts = np.bincount(indices._data.reshape(-1), minlength=num_weights)
        scale = scale / counts[indices._data]
    return out * Tensor._wrap(scale[..., None].astype(g._data.dtype))


EMBEDDING_BACKWARD = defop(
    "embedding_backward",
    _embedding_backward_fwd,
    {
        "grad": lambda g, indices, padding_idx, scale_grad_by_freq, num_weights: _lookup_masked(
            g, indices, padding_idx, scale_grad_by_freq, num_weights
        )
    },
    node="EmbeddingBackwardBackward0",
)


def _embedding_fwd(xp, weight, indices, *, padding_idx, scale_grad_by_freq=False):
    if indices.size and (indices.min() < 0 or indices.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")
    return weight[indices]


def _embedding_kernel(xp, needs, g, indices, weight_shape, padding_idx, scale_grad_by_freq):
    grad = _embedding_backward_fwd(
        xp,
        g,
        indices,
        num_weights=weight_shape[0],
        padding_idx=padding_idx,
        scale_grad_by_freq=scale_grad_by_freq,
    )
    return grad, None


EMBEDDING = defop(
    "embedding",
    _embedding_fwd,
    {
        "weight": lambda g, indices, weight_shape, padding_idx, scale_grad_by_freq: apply(
            EMBEDDING_BACKWARD,
            (g, indices),
            {
                "num_weights": weight_shape[0],
                "padding_idx": padding_idx,
                "scale_grad_by_freq": scale_grad_by_freq,
            },
        )
    },
    array_backward=ArrayBackward(_embedding_kernel, mixed_dtypes=True),
)


def _check_indices(indices, fn: str, position: int = 1) -> None:
    if indices._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(
            f"Expected tensor for argument #{position} 'indices' to have one of the following "
            f"scalar types: Long, Int; but got {legacy_type(indices)} instead (while checking "
            f"arguments for {fn})"
        )


def _renorm_rows(weight, indices, max_norm, norm_type) -> None:
    """max_norm: rescale, in place and without grad, the rows that the lookup will read."""
    rows = np.unique(indices._data)
    n = weight._data.shape[0]
    if rows.size and (rows[0] < -n or rows[-1] >= n):  # PyTorch selects each row in turn
        bad = int(rows[-1] if rows[-1] >= n else rows[0])
        raise IndexError(
            f"select(): index {bad} out of range for tensor of size "
            f"{list(weight._data.shape)} at dimension 0"
        )
    w = weight._data[rows]
    norms = np.linalg.norm(w.astype(np.float64), ord=norm_type, axis=1)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    with no_grad():
        weight._data[rows] = (w * scale[:, None]).astype(weight._data.dtype)
        weight._version_counter.bump("embedding_renorm_")


def embedding(
    input,
    weight,
    padding_idx=None,
    max_norm=None,
    norm_type=2.0,
    scale_grad_by_freq=False,
    sparse=False,
):
    """Matches `torch.nn.functional.embedding`: `weight[input]`, EmbeddingBackward0."""
    if sparse:
        raise NotImplementedError(
            "dyngrad does not implement torch.nn.functional.embedding("
            "sparse=True); its gradient is always dense"
        )
    if padding_idx is not None:
        n = weight._data.shape[0]
        if not -n <= padding_idx < n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= n
    if max_norm is not None:
        _check_indices(input, "embedding_renorm_", 2)
        _renorm_rows(weight, input, max_norm, norm_type)
    if weight._data.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(input, "embedding")
    return apply(
        EMBEDDING,
        (weight, input),
        {"padding_idx": padding_idx, "scale_grad_by_freq": bool(scale_grad_by_freq)},
    )
