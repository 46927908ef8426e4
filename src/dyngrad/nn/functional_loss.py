"""The loss functions of `torch.nn.functional`, with PyTorch's reductions, weights and checks."""

from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor
from ..ops.elementwise.arithmetic import where
from ..ops.nn.loss import (
    BCE,
    BCE_WITH_LOGITS,
    DIV_BY_COUNT,
    HUBER_LOSS,
    MSE_LOSS,
    SMOOTH_L1_LOSS,
    nll,
)
from ..ops.reduction.softmax import log_softmax
from ..ops.table.promotion import result_type
from ..ops.table.record import apply, autocast_entry

__all__ = [
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "nll_loss",
    "cross_entropy",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "kl_div",
]


def legacy_reduction(size_average, reduce, reduction: str) -> str:
    """The `reduction` string for PyTorch's deprecated size_average / reduce flags."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    result = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use "
        f"reduction='{result}' instead.",
        UserWarning,
        stacklevel=3,
    )
    return result


def _check_reduction(reduction: str) -> None:
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _warn_size(input, target) -> None:
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input "
            f"size ({input.shape}). This will likely lead to incorrect results due "
            "to broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )


def _weighted(loss, weight, reduction, mean_by_weight: bool):
    if weight.shape != loss.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / weight.sum() if mean_by_weight else loss.mean()


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Matches `torch.nn.functional.mse_loss` (MseLossBackward0)."""
    _warn_size(input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    input, target = _float_kernel("mse_cpu", input, target)
    if weight is not None:
        loss = apply(MSE_LOSS, (input, target), {"reduction": "none"})
        return _weighted(loss, weight, reduction, True)
    return apply(MSE_LOSS, (input, target), {"reduction": reduction})


def _float_kernel(kernel: str, input, target):
    """PyTorch's missing-kernel error when input and target promote to a non-float dtype;
    else both in their promoted dtype."""

    dtype = result_type(input, target)
    if not dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype._legacy}'")
    return input.to(dtype), target.to(dtype)


def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()


@autocast_entry("l1_loss")  # See Note [Autocast policy]
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Matches `torch.nn.functional.l1_loss`: |input - target| reduced (a composite in torch)."""
    _warn_size(input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    loss = (input - target).abs()
    if weight is not None:
        return _weighted(loss, weight, reduction, True)
    return _reduce(loss, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Matches `torch.nn.functional.smooth_l1_loss`; beta = 0 is the L1 loss."""
    _warn_size(input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    input, target = _float_kernel("smooth_l1_cpu", input, target)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    return apply(SMOOTH_L1_LOSS, (input, target), {"reduction": reduction, "beta": beta})


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Matches `torch.nn.functional.huber_loss` (HuberLossBackward0)."""
    _warn_size(input, target)
    _check_reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    own = input.dtype
    input, target = _float_kernel("huber_cpu", input, target)
    if own.is_floating_point:  # the loss is written in the input's dtype, as PyTorch's
        input, target = input.to(own), target.to(own)
    if weight is not None:
        loss = apply(HUBER_LOSS, (input, target), {"reduction": "none", "delta": delta})
        return _weighted(loss, weight, reduction, False)
    return apply(HUBER_LOSS, (input, target), {"reduction": reduction, "delta": delta})


# ---- classification ----------------------------------------------------------------------------


def _check_nll(input, target, weight) -> None:
    # array shapes, not Tensor.shape: this runs on every loss call (Note [Hot path]); PyTorch's
    # checks in its order: nll_loss_nd's dims and batch, then nll_loss's own
    x_shape, t_shape = input._data.shape, target._data.shape
    if not x_shape:
        raise ValueError(f"Expected 1 or more dimensions (got {len(x_shape)})")
    if len(x_shape) != 1 and x_shape[0] != (t_shape[0] if t_shape else 0):
        raise ValueError(
            f"Expected input batch_size ({x_shape[0]}) to match target "
            f"batch_size ({t_shape[0] if t_shape else 0})."
        )
    if len(x_shape) == 2 and len(t_shape) > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if len(x_shape) == 1 and len(t_shape) == 1 and t_shape[0] != 1:
        raise ValueError(
            f"For 1D input, 1D target must have size 1, but got target size: {t_shape[0]}"
        )
    if target._data.dtype not in (np.int64, np.uint8):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {target.dtype._legacy}"
        )
    if weight is not None:
        n_classes = x_shape[1] if len(x_shape) > 1 else x_shape[0]
        if weight.numel() != n_classes or weight._data.ndim != 1:
            raise RuntimeError(
                f"weight tensor should be defined either for all {n_classes} classes "
                f"or no classes but got weight tensor of shape: "
                f"{list(weight.shape)}"
            )
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"nll_loss_out_frame\" not implemented for '{input.dtype._legacy}'"
        )


def nll_loss(
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"
):
    """Matches `torch.nn.functional.nll_loss`: 'mean' divides by the summed target weights."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_nll(input, target, weight)
    return nll(input, target, weight, reduction, ignore_index)


@autocast_entry("cross_entropy")  # See Note [Autocast policy]
def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
    label_smoothing=0.0,
):
    """Matches `torch.nn.functional.cross_entropy`: class indices or class probabilities.

    Computed as nll_loss(log_softmax(input)): stable for any logits, NllLossBackward0 on top.
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    class_dim = 0 if input._data.ndim == 1 else 1
    if target._data.shape == input._data.shape and target.is_floating_point():
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(
            input, target, weight, reduction, label_smoothing, class_dim
        )
    logp = log_softmax(input, class_dim)  # its errors first (the dim, an integer dtype)
    _check_nll(input, target, weight)
    loss = nll(logp, target, weight, reduction, ignore_index)
    if label_smoothing == 0.0:
        return loss
    return _smoothed(
        logp, loss, target, weight, reduction, ignore_index, label_smoothing, class_dim
    )


def _class_weight(weight, ndim: int, class_dim: int):
    return weight.reshape(*[-1 if d == class_dim else 1 for d in range(ndim)])


def _smoothed(logp, loss, target, weight, reduction, ignore_index, eps, class_dim):
    n_classes = logp.shape[class_dim]
    per_class = logp if weight is None else logp * _class_weight(weight, logp.dim(), class_dim)
    smooth = -per_class.sum(class_dim)
    ignored = Tensor._wrap(target._data == ignore_index)
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "mean":
        kept = target._data[target._data != ignore_index]
        if weight is not None:
            smooth = smooth.sum() / weight[Tensor._wrap(kept)].sum()
        else:
            smooth = smooth.sum() / float(kept.size)
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - eps) * loss + smooth * (eps / n_classes)


def _cross_entropy_probabilities(input, target, weight, reduction, eps, class_dim):
    n_classes = input.shape[class_dim]
    logp = log_softmax(input, class_dim)
    if eps > 0:
        target = target * (1 - eps) + eps / n_classes
    terms = logp * target
    if weight is not None:
        terms = terms * _class_weight(weight, input.dim(), class_dim)
    if reduction == "none":
        return -terms.sum(class_dim)
    if reduction == "sum":
        return -terms.sum()
    count = input.numel() // n_classes if input.dim() > 1 else 1
    return apply(DIV_BY_COUNT, (-terms.sum(),), {"count": count})


def binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """Matches `torch.nn.functional.binary_cross_entropy`; each log is clamped at -100."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input "
            f"size ({input.shape}) is deprecated. Please ensure they have the same "
            "size."
        )
    if target.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {target.dtype._legacy} but expected {input.dtype._legacy}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"binary_cross_entropy\" not implemented for '{input.dtype._legacy}'"
        )
    for name, data in (("input", input._data), ("target", target._data)):
        if data.size and (np.any(data < 0) or np.any(data > 1)):
            raise RuntimeError(f"all elements of {name} should be between 0 and 1")
    if weight is not None:
        weight = weight.expand(*input.shape)
    return apply(BCE, (input, target, weight), {"reduction": reduction})


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    """Matches `torch.nn.functional.binary_cross_entropy_with_logits`: stable for any logit."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )

    dtype = result_type(input, target)
    if not dtype.is_floating_point:
        raise NotImplementedError(f"\"log_sigmoid_cpu\" not implemented for '{dtype._legacy}'")
    for t in (input, target):
        if not t.dtype.is_floating_point:  # each is multiplied into the float result
            raise RuntimeError(
                f"result type {dtype._legacy} can't be cast to the desired "
                f"output type {t.dtype._legacy}"
            )
    input, target = input.to(dtype), target.to(dtype)
    return apply(BCE_WITH_LOGITS, (input, target, weight, pos_weight), {"reduction": reduction})


@autocast_entry("kl_div")  # See Note [Autocast policy]
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Matches `torch.nn.functional.kl_div`: input is log-probabilities; 'batchmean' is the KL."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            UserWarning,
            stacklevel=2,
        )
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _xlogx(target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() != 0 else loss.sum()
    return _reduce(loss, reduction)


def _xlogx(t):
    # x log x with 0 log 0 = 0, as torch.xlogy(t, t): NaN for a negative t

    zero = t == 0
    return where(zero, 0.0, t * where(zero, 1.0, t).log())
