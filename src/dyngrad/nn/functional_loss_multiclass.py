"""The multi-class losses of `torch.nn.functional`: the hinges `multi_margin_loss` and
`multilabel_margin_loss`, and the sequence loss `ctc_loss`, with PyTorch's argument checks."""

from __future__ import annotations

from ..ops.nn.ctc import ctc
from ..ops.nn.loss_multi_margin import multi_margin, multilabel_margin
from .functional_loss import _check_reduction, legacy_reduction

__all__ = ["ctc_loss", "multi_margin_loss", "multilabel_margin_loss"]


def multi_margin_loss(
    input,
    target,
    p=1,
    margin=1.0,
    weight=None,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """Matches `torch.nn.functional.multi_margin_loss`: Σ_{i≠y} max(0, margin - x[y] + x[i])^p
    (times weight[y]) over the number of classes."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return multi_margin(input, target, p, margin, weight, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Matches `torch.nn.functional.multilabel_margin_loss`: hinges between each target class
    (the targets before the first -1) and each other class, over the number of classes."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    return multilabel_margin(input, target, reduction)


def ctc_loss(
    log_probs,
    targets,
    input_lengths,
    target_lengths,
    blank=0,
    reduction="mean",
    zero_infinity=False,
):
    """Matches `torch.nn.functional.ctc_loss` (CtcLossBackward0): log_probs (T, N, C) or
    (T, C), targets padded (N, S) or concatenated; the gradient is PyTorch's (See Note
    [CTC's gradient is through a log_softmax])."""
    _check_reduction(reduction)
    return ctc(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)
