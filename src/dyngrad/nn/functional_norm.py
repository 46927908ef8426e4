"""`F.rms_norm` and `F.instance_norm`: compositions, as PyTorch's own (their nodes are the
component ops': MulBackward0 for RMS norm, ViewBackward0 over batch norm for instance norm)."""

from __future__ import annotations

import numpy as np

from ..graph.grad_mode import no_grad
from ..ops.nn.norm import batch_norm, normalized_shape_arg
from ..runtime import dtypes

__all__ = ["instance_norm", "rms_norm"]

_HALF = ("float16", "bfloat16")


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Matches `torch.nn.functional.rms_norm`: x / sqrt(mean(x^2) + eps) * weight over the
    trailing dims; eps defaults to the dtype's machine epsilon, halves compute in float32."""
    shape = normalized_shape_arg("rms_norm", normalized_shape)
    x_shape = input._data.shape
    if len(x_shape) < len(shape) or tuple(x_shape[len(x_shape) - len(shape) :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*{', '.join(map(str, shape))}], but got input of size{list(x_shape)}"
        )
    upcast = input._data.dtype.name in _HALF
    x = input.float() if upcast else input
    if eps is None:
        eps = float(dtypes.finfo(x._data.dtype).eps)
    dims = tuple(range(-len(shape), 0))
    scale = x.pow(2).mean(dims, keepdim=True).add_(eps).rsqrt()
    out = x.mul(scale)
    if upcast:
        out = out.to(input.dtype)
    return out if weight is None else out.mul(weight)


def instance_norm(
    input,
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats=True,
    momentum=0.1,
    eps=1e-5,
):
    """Matches `torch.nn.functional.instance_norm`: batch norm over each (sample, channel)."""
    shape = input._data.shape
    if use_input_stats and int(np.prod(shape[2:])) <= 1:
        raise ValueError(
            f"Expected more than 1 spatial element when training, got input size {input.shape}"
        )
    b, c = shape[0], shape[1]
    folded = input.contiguous().view(1, b * c, *shape[2:])
    repeat = lambda t: None if t is None else t.repeat(b)
    mean, var = repeat(running_mean), repeat(running_var)
    out = batch_norm(
        folded, mean, var, repeat(weight), repeat(bias), use_input_stats, momentum, eps
    )
    with no_grad():  # the per-(sample, channel) statistics, averaged back per channel
        if running_mean is not None:
            running_mean.copy_(mean.view(b, c).mean(0))
        if running_var is not None:
            running_var.copy_(var.view(b, c).mean(0))
    return out.view(*shape)
