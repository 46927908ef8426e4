"""The `torch.*` names of functions that live in `torch.nn.functional` (`torch.conv2d`,
`torch.layer_norm`, `torch.kl_div`, ...), with the ATen signatures PyTorch gives them there.

Some differ from their `F.*` twin: `torch.embedding(weight, indices)` swaps the arguments,
`torch.batch_norm` takes the affine tensors first, the losses take `reduction` as ATen's
integer (0 none, 1 mean, 2 sum), and `torch.dropout(input, p, train)` has no defaults.
"""

from __future__ import annotations

from ._tensor import Tensor
from ._typename import typename
from .nn import functional as F

__all__ = [
    "alpha_dropout",
    "alpha_dropout_",
    "feature_alpha_dropout",
    "feature_alpha_dropout_",
    "adaptive_avg_pool1d",
    "adaptive_max_pool1d",
    "avg_pool1d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy_with_logits",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "cosine_embedding_loss",
    "cosine_similarity",
    "detach",
    "dropout",
    "embedding",
    "group_norm",
    "hinge_embedding_loss",
    "instance_norm",
    "kl_div",
    "layer_norm",
    "margin_ranking_loss",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "max_pool1d_with_indices",
    "pairwise_distance",
    "pixel_shuffle",
    "pixel_unshuffle",
    "poisson_nll_loss",
    "rms_norm",
    "triplet_margin_loss",
    "typename",
]

# ATen's Reduction enum
_REDUCTIONS = {1: "mean", 2: "sum"}

conv1d = F.conv1d
conv2d = F.conv2d
conv3d = F.conv3d
conv_transpose1d = F.conv_transpose1d
conv_transpose2d = F.conv_transpose2d
conv_transpose3d = F.conv_transpose3d
avg_pool1d = F.avg_pool1d
adaptive_avg_pool1d = F.adaptive_avg_pool1d
cosine_similarity = F.cosine_similarity
pairwise_distance = F.pairwise_distance
pixel_shuffle = F.pixel_shuffle
pixel_unshuffle = F.pixel_unshuffle
bilinear = F.bilinear
rms_norm = F.rms_norm


def _reduction(reduction) -> str:
    # the Python binding's default is no reduction, and any other integer is none too
    return _REDUCTIONS.get(reduction, "none")


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Matches `torch.dropout` (all three arguments required)."""
    return F.dropout(input, p, train)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Matches `torch.alpha_dropout`."""
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """Matches `torch.alpha_dropout_`."""
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Matches `torch.feature_alpha_dropout`."""
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """Matches `torch.feature_alpha_dropout_`."""
    return F.feature_alpha_dropout(input, p, train, inplace=True)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """Matches `torch.layer_norm`; `cudnn_enable` is accepted and ignored."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """Matches `torch.group_norm`."""
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(
    input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled
):
    """Matches `torch.batch_norm`: ATen's argument order (weight and bias first)."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(
    input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled
):
    """Matches `torch.instance_norm`: ATen's argument order (weight and bias first)."""
    return F.instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Matches `torch.embedding`: the weight comes first, and padding_idx=-1 means none."""
    padding_idx = None if padding_idx == -1 else padding_idx
    return F.embedding(
        indices, weight, padding_idx, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse
    )


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """Matches `torch.max_pool1d` (no indices; an empty stride means the kernel size)."""
    return F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """Matches `torch.max_pool2d` (no indices; an empty stride means the kernel size)."""
    return F.max_pool2d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """Matches `torch.max_pool3d` (no indices; an empty stride means the kernel size)."""
    return F.max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """Matches `torch.max_pool1d_with_indices`: (values, indices)."""
    return F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d(input, output_size):
    """Matches `torch.adaptive_max_pool1d`: (values, indices), always both."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def kl_div(input, target, reduction=0, *, log_target=False):
    """Matches `torch.kl_div`: reduction 1 is the mean over every element, with no warning
    (F.kl_div's "mean" warns that it is not "batchmean"); by default no reduction."""
    name = _reduction(reduction)
    loss = F.kl_div(input, target, reduction="none", log_target=log_target)
    return loss.mean() if name == "mean" else loss.sum() if name == "sum" else loss


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """Matches `torch.binary_cross_entropy_with_logits`."""
    return F.binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction(reduction), pos_weight=pos_weight
    )


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """Matches `torch.hinge_embedding_loss`."""
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """Matches `torch.margin_ranking_loss`."""
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """Matches `torch.cosine_embedding_loss`."""
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def triplet_margin_loss(
    anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=0
):
    """Matches `torch.triplet_margin_loss`."""
    return F.triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction)
    )


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """Matches `torch.poisson_nll_loss` (every argument required)."""
    return F.poisson_nll_loss(
        input, target, log_input, full, eps=eps, reduction=_reduction(reduction)
    )


def detach(input: Tensor) -> Tensor:
    """Matches `torch.detach`."""
    return input.detach()
