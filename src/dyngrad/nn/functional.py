"""`torch.nn.functional`: layers, activations, dropout, padding and losses as functions.

The ops themselves live in `dyngrad.ops` (ops/nn: conv, pool, norm, loss, embedding;
activation, softmax); this module is the PyTorch-shaped surface over them.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor
from ..graph.grad_mode import no_grad
from ..ops.elementwise.activation import (  # noqa: F401
    GLU,
    celu,
    celu_,
    elu,
    elu_,
    gelu,
    hardsigmoid,
    hardswish,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    logsigmoid,
    mish,
    relu6,
    selu,
    selu_,
    silu,
    softplus,
    softsign,
    tanhshrink,
    threshold,
    threshold_,
)
from ..ops.linalg.pdist import pdist  # noqa: F401
from ..ops.nn.channel_shuffle import channel_shuffle  # noqa: F401
from ..ops.nn.channel_shuffle import rrelu as _rrelu
from ..ops.nn.channel_shuffle import rrelu_ as _rrelu_
from ..ops.nn.conv import convolution, convolution_transpose
from ..ops.nn.embedding import embedding  # noqa: F401
from ..ops.nn.embedding_bag import embedding_bag  # noqa: F401
from ..ops.nn.fold import fold, unfold  # noqa: F401
from ..ops.nn.grid_sample import affine_grid, grid_sample  # noqa: F401
from ..ops.nn.linear import linear  # noqa: F401
from ..ops.nn.norm import batch_norm, group_norm, layer_norm  # noqa: F401
from ..ops.nn.pixel import pixel_shuffle, pixel_unshuffle  # noqa: F401
from ..ops.nn.pool_adaptive import (  # noqa: F401
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
)
from ..ops.nn.pool_functional import (  # noqa: F401
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool2d_with_indices,
    max_pool3d,
    max_pool3d_with_indices,
)
from ..ops.nn.shrink import HARDSHRINK, SOFTSHRINK
from ..ops.nn.shrink import prelu as torch_prelu
from ..ops.nn.unpool import max_unpool1d, max_unpool2d, max_unpool3d  # noqa: F401
from ..ops.nn.upsample import interpolate  # noqa: F401
from ..ops.reduction.norms import vector_norm
from ..ops.reduction.softmax import log_softmax as _log_softmax
from ..ops.reduction.softmax import softmax as _softmax
from ..ops.shape.grids import broadcast_tensors
from ..ops.table.argument_errors import named_type_error
from ..ops.table.arguments import is_int
from ..ops.table.out import write_into
from ..ops.table.promotion import check_broadcast
from ..ops.table.record import apply, autocast_entry
from .functional_alpha_dropout import alpha_dropout, feature_alpha_dropout  # noqa: F401
from .functional_attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: F401
from .functional_dropout import dropout, dropout1d, dropout2d, dropout3d  # noqa: F401
from .functional_loss import (  # noqa: F401
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    huber_loss,
    kl_div,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)
from .functional_loss_margin import (  # noqa: F401
    cosine_embedding_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    margin_ranking_loss,
    multilabel_soft_margin_loss,
    pairwise_distance,
    poisson_nll_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from .functional_loss_multiclass import (  # noqa: F401
    ctc_loss,
    multi_margin_loss,
    multilabel_margin_loss,
)
from .functional_norm import instance_norm, rms_norm  # noqa: F401
from .functional_pad import pad  # noqa: F401
from .functional_pool import local_response_norm, lp_pool1d, lp_pool2d, lp_pool3d  # noqa: F401
from .functional_upsample import upsample, upsample_bilinear, upsample_nearest  # noqa: F401

# ---- convolution -------------------------------------------------------------------------------


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Matches `torch.nn.functional.conv1d`."""
    return convolution(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Matches `torch.nn.functional.conv2d` (ConvolutionBackward0); padding may be 'same'."""
    return convolution(input, weight, bias, stride, padding, dilation, groups, 2)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return convolution(input, weight, bias, stride, padding, dilation, groups, 3)


def conv_transpose1d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    return convolution_transpose(
        input, weight, bias, stride, padding, output_padding, groups, dilation, 1
    )


def conv_transpose2d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """Matches `torch.nn.functional.conv_transpose2d`."""
    return convolution_transpose(
        input, weight, bias, stride, padding, output_padding, groups, dilation, 2
    )


def conv_transpose3d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
):
    """Matches `torch.nn.functional.conv_transpose3d` (ConvolutionBackward0)."""
    return convolution_transpose(
        input, weight, bias, stride, padding, output_padding, groups, dilation, 3
    )


def bilinear(input1, input2, weight, bias=None):
    """Matches `torch.nn.functional.bilinear`: x1ᵀ W x2 + b for each output feature."""
    partial = input1.unsqueeze(-2).unsqueeze(-2).matmul(weight).squeeze(-2)  # (..., out, in2)
    out = (partial * input2.unsqueeze(-2)).sum(-1)
    return out if bias is None else out + bias


# ---- activations -------------------------------------------------------------------------------


def relu(input, inplace=False):
    """Matches `torch.nn.functional.relu`."""
    return input.relu_() if inplace else input.relu()


def relu_(input):
    return input.relu_()


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call "
        "to include dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Matches `torch.nn.functional.softmax` (SoftmaxBackward0), computed without overflow."""
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return _softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return _softmax(-input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Matches `torch.nn.functional.log_softmax`: x - logsumexp(x), stable for any logits."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _log_softmax(input, dim, dtype)


def glu(input, dim=-1):
    """Matches `torch.nn.functional.glu`: a * sigmoid(b) for the two halves along `dim`."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if input.shape[dim] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {dim % input.dim()} "
            f"is size {input.shape[dim]}"
        )
    return apply(GLU, (input,), {"dim": dim % input.dim()})


# ---- shapes, padding, normalization ----------------------------------------------------------


def one_hot(tensor, num_classes=-1):
    """Matches `torch.nn.functional.one_hot`: int64 output with a trailing class dim."""
    if not is_int(num_classes):
        raise named_type_error("one_hot", "num_classes", 2, "int", num_classes)
    if tensor._data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    data = tensor._data
    if not data.size and num_classes <= 0:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    if data.size and data.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(data.max()) + 1 if data.size else 0
    elif data.size and data.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._wrap((data[..., None] == np.arange(num_classes)).astype(np.int64))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """Matches `torch.nn.functional.normalize`: input / max(‖input‖_p, eps) along `dim`,
    PyTorch's graph (Div, Expand, ClampMin, LinalgVectorNorm)."""
    norm = vector_norm(input, p, dim, keepdim=True).clamp_min(eps)
    if out is not None:  # PyTorch's torch.div(input, denominator, out=out)
        return write_into("div", out, lambda: input / norm.expand_as(input), (input,))
    return input / norm.expand_as(input)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Matches `torch.nn.functional.cosine_similarity`."""
    # PyTorch's form: each input divided by its norm first (stabler: the result stays in
    # [-1, 1]), the norms clamped to eps outside the graph, so the gradient ignores the clamp
    check_broadcast([x1._data, x2._data])  # the elementwise message, as PyTorch's
    x1, x2 = broadcast_tensors(x1, x2)
    n1 = vector_norm(x1, 2, dim, keepdim=True).clone()
    n2 = vector_norm(x2, 2, dim, keepdim=True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


@autocast_entry("prelu")  # See Note [Autocast policy]
def prelu(input, weight):
    """Matches `torch.nn.functional.prelu`: x where x > 0, else weight * x (per channel)."""

    return torch_prelu(input, weight)


def _float_only(kernel: str, input) -> None:
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype._legacy}'")


def hardshrink(input, lambd=0.5):

    _float_only("hardshrink_cpu", input)
    return apply(HARDSHRINK, (input,), {"lambd": lambd})


def softshrink(input, lambd=0.5):

    _float_only("softshrink_check", input)
    if lambd < 0:
        top = float(np.finfo(input._data.dtype).max)
        raise RuntimeError(
            f"lambda must be in range [0, {top:g}] for input dtype "
            f"{input.dtype._legacy}, but found {lambd:g}"
        )
    return apply(SOFTSHRINK, (input,), {"lambd": lambd})


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Matches `torch.nn.functional.rrelu`."""
    return (_rrelu_ if inplace else _rrelu)(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """Matches `torch.nn.functional.rrelu_`."""
    return _rrelu_(input, lower, upper, training)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Matches `torch.nn.functional.gumbel_softmax`: softmax((logits + Gumbel noise) / tau);
    `hard` gives the one-hot of the argmax with the soft sample's gradient (straight-through)."""
    gumbels = -logits.detach().new_empty(logits.shape).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = logits.detach().new_zeros(logits.shape).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
