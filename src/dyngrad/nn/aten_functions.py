"""The ATen-level `torch.*` functions that programs and libraries call directly:
`torch.convolution`, `conv_tbc`, `constant_pad_nd`, `ctc_loss`, `feature_dropout` and the
in-place dropouts, `embedding_renorm_`, and `native_layer_norm` / `native_batch_norm` /
`native_group_norm` with their saved statistics, as PyTorch returns them."""

from __future__ import annotations

from .._tensor import Tensor
from ..graph.grad_mode import no_grad
from ..ops.creation.factories import empty
from ..ops.nn.conv import constant_pad
from ..ops.nn.conv import convolution as _convolution
from ..ops.nn.conv import convolution_transpose as _convolution_transpose
from ..ops.nn.embedding import _renorm_rows
from ..ops.nn.norm import batch_norm, group_norm, layer_norm
from .functional_dropout import _feature_dropout, dropout
from .functional_loss_multiclass import ctc_loss as _ctc_loss

__all__ = [
    "constant_pad_nd",
    "conv_tbc",
    "convolution",
    "ctc_loss",
    "dropout_",
    "embedding_renorm_",
    "feature_dropout",
    "feature_dropout_",
    "native_batch_norm",
    "native_group_norm",
    "native_layer_norm",
]


def convolution(
    input, weight, bias, stride, padding, dilation, transposed, output_padding, groups
) -> Tensor:
    """Matches `torch.convolution`: the generic entry behind conv{1,2,3}d and their
    transposes (ConvolutionBackward0); the weight's dimensions say which."""
    nd = weight.dim() - 2
    if transposed:
        return _convolution_transpose(
            input, weight, bias, stride, padding, output_padding, groups, dilation, nd
        )
    return _convolution(input, weight, bias, stride, padding, dilation, groups, nd)


def conv_tbc(input, weight, bias, pad: int = 0) -> Tensor:
    """Matches `torch.conv_tbc`: a 1-d convolution over (time, batch, channels) with a
    (kernel_width, in, out) weight. dyngrad records it as conv1d between permutes, where
    PyTorch records one ConvTbcBackward0."""
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError(
            "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels."
        )
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    out = _convolution(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, pad, 1, 1, 1)
    return out.permute(2, 0, 1)


def constant_pad_nd(input, pad, value=0) -> Tensor:
    """Matches `torch.constant_pad_nd` (ConstantPadNdBackward0)."""
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    return constant_pad(input, pad, value)


_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}  # ATen's at::Reduction


def ctc_loss(
    log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False
) -> Tensor:
    """Matches `torch.ctc_loss`: `F.ctc_loss` with ATen's integer reduction (0 none, 1 mean,
    2 sum); called without one it returns each sample's loss (CtcLossBackward0), as PyTorch's."""
    if type(reduction) is not int or reduction not in _REDUCTIONS:
        raise TypeError(
            "ctc_loss() received an invalid combination of arguments - got reduction="
            f"{type(reduction).__name__}, but expected an int (0 none, 1 mean, 2 sum)"
        )
    return _ctc_loss(
        log_probs, targets, input_lengths, target_lengths, blank, _REDUCTIONS[reduction],
        zero_infinity,
    )  # fmt: skip


def _check_feature_input(input) -> None:
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")


def feature_dropout(input, p: float, train: bool) -> Tensor:
    """Matches `torch.feature_dropout`: zero whole (N, C) channels, the draws PyTorch's."""
    _check_feature_input(input)
    return _feature_dropout(input, p, train, False, input.dim())


def feature_dropout_(input, p: float, train: bool) -> Tensor:
    """Matches `torch.feature_dropout_`."""
    _check_feature_input(input)
    return _feature_dropout(input, p, train, True, input.dim())


def dropout_(input, p: float, train: bool) -> Tensor:
    """Matches `torch.dropout_`."""
    return dropout(input, p, train, inplace=True)


def embedding_renorm_(weight, indices, max_norm: float, norm_type: float) -> Tensor:
    """Matches `torch.embedding_renorm_`: the rows `indices` reads rescaled in place to
    norm at most `max_norm` (what `F.embedding(max_norm=...)` does first)."""
    _renorm_rows(weight, indices, max_norm, norm_type)
    return weight


def _statistics(x: Tensor, dims: tuple, eps: float) -> tuple:
    """(mean, 1 / sqrt(biased variance + eps)) over `dims`, kept, without history."""
    with no_grad():
        x = x.detach()
        mean = x.mean(dims, keepdim=True)
        var = x.var(dims, unbiased=False, keepdim=True)
        return mean, (var + eps).rsqrt()


def native_layer_norm(input, normalized_shape, weight, bias, eps: float) -> tuple:
    """Matches `torch.native_layer_norm`: (output, mean, rstd), the statistics shaped
    (*leading dims, 1, ...) and without history."""
    out = layer_norm(input, normalized_shape, weight, bias, eps)
    k = len(normalized_shape) if not isinstance(normalized_shape, int) else 1
    mean, rstd = _statistics(input, tuple(range(input.dim() - k, input.dim())), eps)
    return out, mean, rstd


def native_batch_norm(
    input, weight, bias, running_mean, running_var, training: bool, momentum: float, eps: float
) -> tuple:
    """Matches `torch.native_batch_norm`: (output, save_mean, save_invstd); in evaluation
    the saved statistics are empty, as PyTorch's CPU kernel returns them."""
    out = batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        return out, empty(0, dtype=input.dtype), empty(0, dtype=input.dtype)
    dims = (0, *range(2, input.dim()))
    mean, invstd = _statistics(input, dims, eps)
    return out, mean.reshape(-1), invstd.reshape(-1)


def native_group_norm(input, weight, bias, N: int, C: int, HxW: int, group: int, eps: float):
    """Matches `torch.native_group_norm`: (output, mean, rstd), the statistics (N, group).
    PyTorch's statistics carry the NativeGroupNormBackward0 node; dyngrad's have no history."""
    out = group_norm(input, group, weight, bias, eps)
    mean, rstd = _statistics(input.reshape(N, group, -1), (2,), eps)
    return out, mean.reshape(N, group), rstd.reshape(N, group)
