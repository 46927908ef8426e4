"""The multi-class hinge losses: `multi_margin_loss` (MultiMarginLossBackward0) and
`multilabel_margin_loss` (MultilabelMarginLossBackward0).

Each is one row whose formula is a backward row with no derivative of its own, as in PyTorch:
a second backward raises "derivative for aten::multi_margin_loss_backward is not implemented".
"""

from __future__ import annotations

import numpy as np

from ..table.record import apply
from ..table.registry import NOT_IMPLEMENTED, defop, refused


def _scale(g, reduction: str, frames: int):
    """The output gradient as one factor per sample, (N, 1)."""
    g = np.asarray(g, dtype=np.float64)
    if reduction == "none":
        return g.reshape(-1, 1)
    return np.full((frames, 1), g / frames if reduction == "mean" else g)


def _reduce(loss, reduction: str, shape: tuple):
    if reduction == "none":
        return loss.reshape(shape)
    return loss.sum() if reduction == "sum" else loss.sum() / max(loss.size, 1)


# ---- multi_margin_loss -------------------------------------------------------------------


def _margin_terms(x, target, weight, p, margin):
    """Per sample and class: the hinge's derivative factor and value, the target's class
    excluded; x as (N, C)."""
    c = x.shape[-1] if x.ndim else 1
    x = x.reshape(-1, c).astype(np.float64)
    t = target.reshape(-1)
    if t.size and (t.min() < 0 or t.max() >= c):
        raise RuntimeError("target out of range")
    rows = np.arange(x.shape[0])
    z = margin - x[rows, t][:, None] + x
    z[rows, t] = 0.0
    active = z > 0
    value = np.where(active, z if p == 1 else z * z, 0.0)
    slope = np.where(active, 1.0 if p == 1 else 2.0 * z, 0.0)
    scale = (weight[t].astype(np.float64) if weight is not None else np.ones(t.size)) / c
    return value * scale[:, None], slope * scale[:, None], rows, t


def _multi_margin_fwd(xp, x, target, weight, *, p, margin, reduction, out_shape):
    value, _, _, _ = _margin_terms(x, target, weight, p, margin)
    return np.asarray(_reduce(value.sum(1), reduction, out_shape), dtype=x.dtype)


def _multi_margin_backward_fwd(xp, grad, x, target, weight, *, p, margin, reduction):
    _, slope, rows, t = _margin_terms(x, target, weight, p, margin)
    out = slope * _scale(grad, reduction, slope.shape[0])
    out[rows, t] = -out.sum(1)  # the target's score enters every hinge with a minus
    return out.reshape(x.shape).astype(x.dtype)


MULTI_MARGIN_LOSS_BACKWARD = defop(
    "multi_margin_loss_backward",
    _multi_margin_backward_fwd,
    dict.fromkeys(
        ("grad", "x"), refused("derivative for aten::multi_margin_loss_backward is not implemented")
    ),
    node=NOT_IMPLEMENTED,
)
MULTI_MARGIN_LOSS = defop(
    "multi_margin_loss",
    _multi_margin_fwd,
    {
        "x": lambda g, x, target, weight, p, margin, reduction: apply(
            MULTI_MARGIN_LOSS_BACKWARD,
            (g, x, target, weight),
            {"p": p, "margin": margin, "reduction": reduction},
        )
    },
    node="MultiMarginLossBackward0",
    non_differentiable=("weight",),
)


# ---- multilabel_margin_loss --------------------------------------------------------------


def _label_terms(x, target):
    """The hinges 1 - (x[j] - x[i]) for each target class j (with its multiplicity: the
    targets before the first -1) and each class i that is not a target; x as (N, C)."""
    c = x.shape[-1] if x.ndim else 1
    x = x.reshape(-1, c).astype(np.float64)
    t = target.reshape(x.shape[0], c)
    if t.size and (t.min() < -1 or t.max() >= c):
        raise RuntimeError("argument #2 'target' is out of range")
    valid = np.cumprod(t != -1, axis=1).astype(bool)  # up to the first -1
    counts = np.zeros(x.shape)
    rows = np.repeat(np.arange(x.shape[0]), c)
    np.add.at(counts, (rows[valid.reshape(-1)], t[valid]), 1.0)
    others = counts == 0
    z = 1.0 - x[:, :, None] + x[:, None, :]  # z[n, j, i]
    weight = counts[:, :, None] * others[:, None, :] * (z > 0) / c
    return z, weight


def _multilabel_fwd(xp, x, target, *, reduction, out_shape):
    z, weight = _label_terms(x, target)
    return np.asarray(_reduce((weight * z).sum((1, 2)), reduction, out_shape), dtype=x.dtype)


def _multilabel_backward_fwd(xp, grad, x, target, *, reduction):
    _, weight = _label_terms(x, target)
    weight = weight * _scale(grad, reduction, weight.shape[0])[:, :, None]
    return (weight.sum(1) - weight.sum(2)).reshape(x.shape).astype(x.dtype)


MULTILABEL_MARGIN_LOSS_BACKWARD = defop(
    "multilabel_margin_loss_backward",
    _multilabel_backward_fwd,
    dict.fromkeys(
        ("grad", "x"),
        refused("derivative for aten::multilabel_margin_loss_backward is not implemented"),
    ),
    node=NOT_IMPLEMENTED,
)
MULTILABEL_MARGIN_LOSS = defop(
    "multilabel_margin_loss",
    _multilabel_fwd,
    {
        "x": lambda g, x, target, reduction: apply(
            MULTILABEL_MARGIN_LOSS_BACKWARD, (g, x, target), {"reduction": reduction}
        )
    },
    node="MultilabelMarginLossBackward0",
)


# ---- the checks PyTorch's kernels make ---------------------------------------------------


def _check_input(input) -> tuple[int, int]:
    shape = tuple(input.shape)
    if not ((len(shape) in (1, 2) and shape[-1] != 0) or len(shape) == 0):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(shape)}"
        )
    return (1 if len(shape) <= 1 else shape[0]), (shape[-1] if shape else 1)


def _check_long(target) -> None:
    if target._data.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype._legacy}")


def _check_float(input, kernel: str) -> None:
    if not input.is_floating_point():
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype._legacy}'")


def multi_margin(input, target, p, margin, weight, reduction: str):
    frames, dim = _check_input(input)
    if target.dim() > 1 or target.numel() != frames:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{frames}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}."
        )
    if weight is not None and (weight.dim() > 1 or weight.numel() != dim):
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {list(weight.shape)}")
    _check_long(target)
    _check_float(input, "multi_margin_loss_cpu_kernel")
    out_shape = tuple(target.shape) if input.dim() <= 1 else (frames,)
    attrs = {"p": p, "margin": margin, "reduction": reduction, "out_shape": out_shape}
    return apply(MULTI_MARGIN_LOSS, (input, target, weight), attrs)


def multilabel_margin(input, target, reduction: str):
    frames, dim = _check_input(input)
    shape = tuple(target.shape)
    fits = shape == (frames, dim) if input.dim() == 2 else len(shape) <= 1 and target.numel() == dim
    if not fits:
        raise RuntimeError(
            f"inconsistent target size: {list(shape)} for input of size: {list(input.shape)}"
        )
    _check_long(target)
    _check_float(input, "multilabel_margin_loss_forward_out_frame")
    out_shape = () if input.dim() <= 1 else (frames,)
    attrs = {"reduction": reduction, "out_shape": out_shape}
    return apply(MULTILABEL_MARGIN_LOSS, (input, target), attrs)
