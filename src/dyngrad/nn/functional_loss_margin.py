"""The margin, embedding and likelihood losses PyTorch composes from other ops: margin
ranking, hinge embedding, cosine embedding, triplet margin, multilabel soft margin, Poisson
and Gaussian NLL, composed the same way (their nodes are those of the last op, as in torch);
soft margin is its own row (SoftMarginLossBackward0)."""

from __future__ import annotations

import math

from .._tensor import Tensor
from ..graph.grad_mode import no_grad
from ..ops.creation.factories import zeros_like
from ..ops.elementwise.activation import logsigmoid
from ..ops.elementwise.arithmetic import _check_not_bool
from ..ops.elementwise.compare import minimum, where
from ..ops.elementwise.scalar_ops import add_scalar
from ..ops.reduction.aten_norms import norm_dim
from ..ops.table.record import apply, autocast_entry
from ..ops.table.registry import defop
from .functional_loss import _check_reduction, _reduce, legacy_reduction

__all__ = [
    "cosine_embedding_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "multilabel_soft_margin_loss",
    "poisson_nll_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]


@autocast_entry("margin_ranking_loss")  # See Note [Autocast policy]
def margin_ranking_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    """Matches `torch.nn.functional.margin_ranking_loss`: max(0, -y (x1 - x2) + margin)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    if not input1.dim() == input2.dim() == target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got "
            f"sizes: input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} "
        )
    _check_reduction(reduction)
    return _reduce((-target * (input1 - input2) + margin).clamp_min_(0), reduction)


@autocast_entry("hinge_embedding_loss")  # See Note [Autocast policy]
def hinge_embedding_loss(
    input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"
):
    """Matches `torch.nn.functional.hinge_embedding_loss`."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    zeros = zeros_like(input)
    margin_clamp = (margin - input).clamp_min_(0)
    output = where(target != 1, margin_clamp, zeros) + where(target != -1, input, zeros)
    return _reduce(output, reduction)


@autocast_entry("cosine_embedding_loss")  # See Note [Autocast policy]
def cosine_embedding_loss(
    input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"
):
    """Matches `torch.nn.functional.cosine_embedding_loss`: 1 - cos for y = 1, max(0, cos -
    margin) for y = -1."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    sizes = f"{list(input1.shape)} and {list(input2.shape)}"
    if target.dim() == 1:
        if input1.dim() != 2 or input2.dim() != 2:
            raise RuntimeError(
                f"1D target tensor expects 2D input tensors, but found inputs with sizes {sizes}."
            )
    elif target.dim() == 0:
        if input1.dim() != 1 or input2.dim() != 1:
            raise RuntimeError(
                f"0D target tensor expects 1D input tensors, but found inputs with sizes {sizes}."
            )
    else:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    dim = input1.dim() - 1
    prod_sum = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + 1e-12
    mag2 = (input2 * input2).sum(dim) + 1e-12
    cos = prod_sum / (mag1 * mag2).sqrt_()
    zeros = zeros_like(cos)
    output = where(target == 1, 1 - cos, zeros) + where(
        target == -1, (cos - margin).clamp_min_(0), zeros
    )
    return _reduce(output, reduction)


def _check_triplet_dims(anchor, positive, negative) -> None:
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if not dims[0] == dims[1] == dims[2]:
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative "
            f"{dims[2]}D inputs"
        )


@autocast_entry("triplet_margin_loss")  # See Note [Autocast policy]
def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin=1.0,
    p=2,
    eps=1e-6,
    swap=False,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """Matches `torch.nn.functional.triplet_margin_loss`."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_triplet_dims(anchor, positive, negative)
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction)


def triplet_margin_with_distance_loss(
    anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False, reduction="mean"
):
    """Matches `torch.nn.functional.triplet_margin_with_distance_loss`: the triplet loss with
    any distance (pairwise_distance by default)."""
    distance = pairwise_distance if distance_function is None else distance_function
    _check_reduction(reduction)
    _check_triplet_dims(anchor, positive, negative)
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = minimum(dist_neg, distance(positive, negative))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction)


def multilabel_soft_margin_loss(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """Matches `torch.nn.functional.multilabel_soft_margin_loss`: the per-class logistic loss
    averaged over classes."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    return _reduce(loss, reduction)


@autocast_entry("poisson_nll_loss")  # See Note [Autocast policy]
def poisson_nll_loss(
    input,
    target,
    log_input=True,
    full=False,
    size_average=None,
    eps=1e-8,
    reduce=None,
    reduction="mean",
):
    """Matches `torch.nn.functional.poisson_nll_loss`."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:  # Stirling's approximation of log(target!), where target > 1
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Matches `torch.nn.functional.gaussian_nll_loss`: (log var + (x - y)² / var) / 2."""
    if not isinstance(var, Tensor):
        var = input.new_full((), float(var))
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif not (input.shape[:-1] == var.shape[:-1] and var.shape[-1] == 1) and var.dim():
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


# ---- soft margin: a row of its own -------------------------------------------------------------


def _soft_margin_fwd(xp, x, y, *, reduction):
    loss = xp.log1p(xp.exp(-y * x))
    if reduction == "mean":
        return xp.asarray(loss.mean(), dtype=loss.dtype)
    if reduction == "sum":
        return xp.asarray(loss.sum(), dtype=loss.dtype)
    return loss


def _soft_margin_grad(g, x, y, reduction):
    # d/dx log(1 + e^(-y x)) = -y e^(-y x) / (1 + e^(-y x)) = -y sigmoid(-y x)
    grad = -y * (-y * x).sigmoid()
    if reduction == "mean":
        grad = grad / x.numel()
    return grad * g


SOFT_MARGIN_LOSS = defop("soft_margin_loss", _soft_margin_fwd, {"x": _soft_margin_grad})


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Matches `torch.nn.functional.soft_margin_loss`: log(1 + exp(-y x))."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if target.requires_grad:
        raise RuntimeError(
            "The function 'soft_margin_loss' is not differentiable with respect "
            "to argument 'target'. This input cannot have requires_grad True."
        )
    _check_not_bool(target)  # PyTorch negates the target first
    if not input.dtype.is_floating_point:  # the loss is written in the input's dtype
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {input.dtype._legacy}"
        )
    target = target.to(input.dtype)
    return apply(SOFT_MARGIN_LOSS, (input, target), {"reduction": reduction})


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """Matches `torch.nn.functional.pairwise_distance`: the p-norm of x1 - x2 + eps."""
    return norm_dim(add_scalar(x1 - x2, eps), p, -1, keepdim)  # AddBackward1, as PyTorch
