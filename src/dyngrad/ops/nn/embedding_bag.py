"""`embedding_bag` (EmbeddingBagBackward0): sums, means or maxima of bags of embedding rows.

The bags are worked out once on the indices (which bag each index falls in, how many count,
and in max mode which row wins each column); the row then gathers forward and scatters back.
As in PyTorch, its backward rows have no derivative: a second backward raises.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._tensor import Tensor
from ..shape.indexing import add_rows
from ..table.argument_errors import legacy_type
from ..table.record import apply
from ..table.registry import NOT_IMPLEMENTED, defop, refused
from .embedding import _check_indices, _renorm_rows

MODES = {"sum": 0, "mean": 1, "max": 2}


def _gather(
    xp,
    weight,
    indices,
    bags,
    sizes,
    maxima,
    per_sample_weights,
    *,
    mode,
    padding_idx,
    scale_grad_by_freq,
):
    out = xp.zeros((sizes.shape[0], weight.shape[1]), dtype=weight.dtype)
    if mode == "max":
        found = maxima >= 0
        return xp.where(found, weight[xp.where(found, maxima, 0), xp.arange(weight.shape[1])], 0)
    keep = indices != padding_idx if padding_idx is not None else slice(None)
    rows = weight[indices[keep]]
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[keep][:, None]
    add_rows(xp, out, bags[keep], rows)
    if mode == "mean":
        out /= xp.maximum(sizes, 1)[:, None].astype(out.dtype)
    return out


def _scatter(
    xp,
    grad,
    indices,
    bags,
    sizes,
    maxima,
    per_sample_weights,
    *,
    num_weights,
    mode,
    padding_idx,
    scale_grad_by_freq,
):
    out = xp.zeros((num_weights, grad.shape[1]), dtype=grad.dtype)
    if mode == "max":
        found = maxima >= 0
        cols = xp.broadcast_to(xp.arange(grad.shape[1]), maxima.shape)
        xp.add.at(out, (maxima[found], cols[found]), grad[found])
        return out
    keep = indices != padding_idx if padding_idx is not None else slice(None)
    rows = grad[bags[keep]]
    if mode == "mean":
        rows = rows / xp.maximum(sizes, 1)[bags[keep]][:, None].astype(grad.dtype)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[keep][:, None]
    if scale_grad_by_freq:
        rows = rows / _frequencies(xp, indices, num_weights)[keep][:, None].astype(grad.dtype)
    add_rows(xp, out, indices[keep], rows)
    return out


# Note [embedding_bag's gradient frequencies]
# With scale_grad_by_freq, PyTorch's CPU kernel walks the sorted indices in groups of equal
# value and divides the g-th group's gradients by the count of the value at sorted position g,
# not by the count of the group's own value. So an index's gradient is scaled by another
# index's frequency (for [1, 2, 4, 5, 4, 3, 2, 9], index 3's by 2 and index 4's by 1).
# dyngrad divides as PyTorch does, so that gradients agree with it.
def _frequencies(xp, indices, num_weights):
    """Per index, the divisor PyTorch's kernel uses (See Note [embedding_bag's gradient
    frequencies])."""
    ordered = xp.sort(indices)
    counts = xp.bincount(ordered, minlength=num_weights)
    group = xp.searchsorted(xp.unique(ordered), indices)
    return counts[ordered[group]]


def _per_sample_weights_backward(xp, grad, weight, indices, bags, *, padding_idx):
    # d out[bag_i] / d psw_i = weight[index_i]: the gradient is their dot product
    out = (grad[bags] * weight[indices]).sum(1)
    if padding_idx is not None:
        out = xp.where(indices == padding_idx, 0, out)
    return out.astype(grad.dtype, copy=False)


EMBEDDING_BAG_BACKWARD = defop(
    "embedding_bag_backward",
    _scatter,
    dict.fromkeys(
        ("grad", "per_sample_weights"),
        refused(
            "the derivative for '_embedding_bag_backward' is not implemented.", NotImplementedError
        ),
    ),
    node="EmbeddingBagBackwardBackward0",
)
PER_SAMPLE_WEIGHTS_BACKWARD = defop(
    "embedding_bag_per_sample_weights_backward",
    _per_sample_weights_backward,
    dict.fromkeys(
        ("grad", "weight"),
        refused(
            "derivative for aten::_embedding_bag_per_sample_weights_backward is not implemented"
        ),
    ),
    node=NOT_IMPLEMENTED,
)


def _weight_grad(
    g,
    indices,
    bags,
    sizes,
    maxima,
    per_sample_weights,
    weight_shape,
    mode,
    padding_idx,
    scale_grad_by_freq,
):
    attrs = {
        "num_weights": weight_shape[0],
        "mode": mode,
        "padding_idx": padding_idx,
        "scale_grad_by_freq": scale_grad_by_freq,
    }
    args = (g, indices, bags, sizes, maxima, per_sample_weights)
    return apply(EMBEDDING_BAG_BACKWARD, args, attrs)


EMBEDDING_BAG = defop(
    "embedding_bag",
    _gather,
    {
        "weight": _weight_grad,
        "per_sample_weights": lambda g, weight, indices, bags, padding_idx: apply(
            PER_SAMPLE_WEIGHTS_BACKWARD, (g, weight, indices, bags), {"padding_idx": padding_idx}
        ),
    },
    node="EmbeddingBagBackward0",
)


# ---- the bags --------------------------------------------------------------------------------


def _bags(indices: np.ndarray, offsets: np.ndarray, include_last_offset: bool):
    """Which bag each index falls in (-1: in none, when there are no bags) and how many bags.

    With include_last_offset the last bag runs to the end of the input whatever the last
    offset says, as PyTorch's generic kernel does (its float32 fast path stops the sums at the
    last offset; the two agree when, as documented, the last offset is the input's length)."""
    n = indices.size
    if offsets.size and offsets[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {int(offsets[0])}"
        )
    if offsets.size and offsets[-1] > n:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of "
            f"{int(offsets[-1])}"
        )
    if include_last_offset:  # the last offset is dropped: the last bag runs to the end
        offsets = offsets[:-1]
    bags = np.searchsorted(offsets, np.arange(n), side="right") - 1
    return bags.astype(np.int64), offsets.size


def _maxima(weight: np.ndarray, indices, bags, count, keep) -> np.ndarray:
    """Per bag and column, the row that holds the maximum (the first on ties; -1: empty)."""
    n, dim = indices.size, weight.shape[1]
    if not n:
        return np.full((count, dim), -1, dtype=np.int64)
    rows, positions = weight[indices[keep]], np.arange(n)[keep]
    best = np.full((count, dim), -np.inf)
    np.maximum.at(best, bags[keep], rows)
    first = np.full((count, dim), n)
    at_max = np.where(rows == best[bags[keep]], positions[:, None], n)
    np.minimum.at(first, bags[keep], at_max)
    return np.where(first < n, indices[np.minimum(first, n - 1)], -1).astype(np.int64)


def embedding_bag_rows(
    weight,
    indices,
    offsets,
    mode,
    per_sample_weights,
    include_last_offset,
    padding_idx,
    scale_grad_by_freq,
):
    """The bags of 1-D `indices` cut at `offsets`, reduced by `mode`, as one node."""
    _check_indices(indices, "embedding_bag")
    _check_indices(offsets, "embedding_bag")
    if not weight.is_floating_point():
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have one of the following scalar "
            f"types: Half, BFloat16, Float, Double; but got {legacy_type(weight)} instead "
            "(while checking arguments for embedding_bag)"
        )
    n_rows = weight.shape[0]
    if padding_idx is not None:
        if not -n_rows <= padding_idx < n_rows:
            raise RuntimeError(
                "padding_idx must be within the number of embeddings, "
                f"-{n_rows} through {n_rows - 1}, but got {padding_idx}"
            )
        padding_idx %= n_rows
    index = indices._data.astype(np.int64).reshape(-1)
    bad = np.flatnonzero((index < 0) | (index >= n_rows))
    if bad.size:
        # (the message of PyTorch's generic kernel; its float32 fast path words it otherwise)
        raise RuntimeError(
            "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
            f"{index[bad[0]]}"
        )
    bags, count = _bags(index, offsets._data.astype(np.int64), include_last_offset)
    if bags.size and bags[-1] < 0:  # no bags at all
        index, bags = index[:0], bags[:0]
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights[:0]
    keep = index != padding_idx if padding_idx is not None else np.ones(index.size, bool)
    sizes = np.bincount(bags[keep], minlength=count)[:count].astype(np.int64)
    maxima = _maxima(weight._data, index, bags, count, keep) if mode == "max" else None
    return apply(
        EMBEDDING_BAG,
        (
            weight,
            Tensor._wrap(index),
            Tensor._wrap(bags),
            Tensor._wrap(sizes),
            None if maxima is None else Tensor._wrap(maxima),
            per_sample_weights,
        ),
        {"mode": mode, "padding_idx": padding_idx, "scale_grad_by_freq": scale_grad_by_freq},
    )


def embedding_bag(
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """Matches `torch.nn.functional.embedding_bag`: each bag's rows summed, averaged or maxed
    (EmbeddingBagBackward0); a 2-D input is a batch of bags of equal length."""
    if weight.dtype.name == "int64" and input.is_floating_point():
        warnings.warn(
            "Argument order of nn.functional.embedding_bag was changed. Usage "
            "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
            "`embedding_bag(input, weight, ...)`.",
            stacklevel=2,
        )
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
            f"then it must have the same shape as the input ({input.shape})"
        )
    if weight.dim() != 2:
        raise ValueError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
        )
    input, offsets, per_sample_weights, include_last_offset = _flat_bags(
        input, offsets, per_sample_weights, include_last_offset
    )
    if mode not in MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        _check_indices(input, "embedding_renorm_", 2)
        _renorm_rows(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub."
        )
    if sparse:
        raise NotImplementedError(
            "dyngrad does not implement torch.nn.functional.embedding_bag(sparse=True); its "
            "gradient is always dense"
        )
    return embedding_bag_rows(
        weight,
        input,
        offsets,
        mode,
        per_sample_weights,
        include_last_offset,
        padding_idx,
        bool(scale_grad_by_freq),
    )


def _flat_bags(input, offsets, per_sample_weights, include_last_offset):
    """A 2-D input as 1-D indices with one offset per row, as PyTorch's functional does."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                + ("<class 'torch.Tensor'>" if isinstance(offsets, Tensor) else str(type(offsets)))
            )
        step = max(input.shape[1], 1)
        offsets = Tensor._wrap(np.arange(0, input.numel(), step, dtype=input._data.dtype))
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
        return input.reshape(-1), offsets, per_sample_weights, False
    if input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        return input, offsets, per_sample_weights, include_last_offset
    raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
