"""Normalization: batch norm (train and eval), layer norm and group norm, one row each.

# Note [Normalization backward]
# With x̂ = (x - mean) * rstd over the reduced dims R and gw = g * weight,
#   dx = rstd * (gw - mean_R(gw) - x̂ * mean_R(gw * x̂)),  dweight = Σ g x̂,  dbias = Σ g.
# The formulas recompute mean and rstd from x with Tensor ops (not from saved arrays), so
# they are differentiable in x and double backward is right. A plain backward (grad mode off:
# no graph of the backward is recorded) takes the same formulas fused on arrays instead, x̂
# computed once for all three (layer norm's kernel, see Note [Array backwards]).

# Note [Normalization in float32]
# As PyTorch's CPU kernels do, a float16 or bfloat16 input is normalized in float32 (its
# "opmath" type) and rounded once, at the end: the statistics, the affine map and the
# gradients. Such an input may also take float32 parameters (PyTorch's "mixed dtype"), the
# usual case under autocast or with `model.bfloat16()` applied to the activations only; the
# output keeps the input's dtype and the running statistics their own.
"""

from __future__ import annotations

import math

from ...runtime import dtypes
from ...runtime.dtypes import LOW_PRECISION
from ...size import Size
from ..arrays.axis_sums import by_blas, last_sum, lead_sum
from ..table.argument_errors import type_name
from ..table.arguments import int_list, is_int
from ..table.array_backward import ArrayBackward
from ..table.record import apply
from ..table.registry import defop


def _up(xp, a):
    """An array in its compute type: float32 for float16/bfloat16 (Note [Normalization in
    float32]), else itself. (Not the op table's opmath wrapper: batch norm writes its running
    statistics in place, which a widened copy would lose.)"""
    return a if a is None or a.dtype not in LOW_PRECISION else a.astype(xp.float32)


def _up_tensor(t):
    """`_up` for the formulas' Tensors: float32 for float16/bfloat16."""
    return t.float() if t is not None and t._data.dtype in LOW_PRECISION else t


def _stats(xp, x, dims, eps):
    """(centered x, variance, 1/std, mean) over `dims`, each kept as a broadcastable array."""
    mean = _mean(xp, x, dims)
    centered = x - mean
    var = _mean(xp, centered * centered, dims)
    return centered, var, 1 / xp.sqrt(var + eps), mean


def _mean(xp, a, dims):
    """`a.mean(axis=dims, keepdims=True)`, by GEMV (Note [Sums by GEMV]) over the trailing dims
    (layer norm) or over all but the channel dim (batch norm)."""
    if not by_blas(a):
        return a.mean(axis=dims, keepdims=True)  # (float16 means accumulate in float32)
    if a.ndim >= 2 and dims == _batch_dims(a.ndim):
        total = _channel_sum(xp, a)
        total /= a.size // a.shape[1]
        return total.reshape(_channel_shape(a.ndim, a.shape[1]))
    k = len(dims)
    if dims != tuple(range(a.ndim - k, a.ndim)):
        return a.mean(axis=dims, keepdims=True)
    lead = a.shape[: a.ndim - k]
    count = a.size // math.prod(lead)
    total = last_sum(xp, a.reshape(lead + (count,)))
    total /= count
    return total.reshape(lead + (1,) * k)


def _channel_sum(xp, a):
    """`a` summed over every dim but the channel dim 1: shape (C,)."""
    if a.ndim == 2 or not by_blas(a):
        return lead_sum(xp, a, 1) if a.ndim == 2 else a.sum(axis=_batch_dims(a.ndim))
    n, c = a.shape[:2]
    return last_sum(xp, a.reshape(n * c, -1)).reshape(n, c).sum(axis=0)


def _affine(y, weight, bias, shape):
    # `y` is always a fresh array: scale and shift it in place when the dtypes allow
    if weight is not None:
        if weight.dtype == y.dtype:
            y *= weight.reshape(shape)
        else:
            y = y * weight.reshape(shape)
    if bias is not None:
        if bias.dtype == y.dtype:
            y += bias.reshape(shape)
        else:
            y = y + bias.reshape(shape)
    return y


def _channel_shape(ndim: int, c: int) -> tuple:
    return (1, c) + (1,) * (ndim - 2)


def _batch_dims(ndim: int) -> tuple:
    return (0,) + tuple(range(2, ndim))


def _batch_norm_fwd(xp, x, weight, bias, running_mean, running_var, *, momentum, eps):
    out_dtype, x, weight, bias = x.dtype, _up(xp, x), _up(xp, weight), _up(xp, bias)
    centered, var, rstd, mean = _stats(xp, x, _batch_dims(x.ndim), eps)
    if running_mean is not None:
        running_mean *= 1 - momentum
        running_mean += momentum * mean.reshape(-1).astype(running_mean.dtype)
    if running_var is not None:
        n = x.size // x.shape[1]
        unbiased = var.reshape(-1) * (n / (n - 1))
        running_var *= 1 - momentum
        running_var += momentum * unbiased.astype(running_var.dtype)
    y = (centered * rstd).astype(x.dtype, copy=False)
    y = _affine(y, weight, bias, _channel_shape(x.ndim, x.shape[1]))
    return y.astype(out_dtype, copy=False)


def _batch_norm_eval_fwd(xp, x, weight, bias, running_mean, running_var, *, eps):
    out_dtype, x, weight, bias = x.dtype, _up(xp, x), _up(xp, weight), _up(xp, bias)
    shape = _channel_shape(x.ndim, x.shape[1])
    mean, var = _up(xp, running_mean), _up(xp, running_var)
    rstd = 1 / xp.sqrt(var.reshape(shape) + eps)
    y = ((x - mean.reshape(shape)) * rstd).astype(x.dtype, copy=False)
    return _affine(y, weight, bias, shape).astype(out_dtype, copy=False)


# ---- formulas (Tensor ops; see Note [Normalization backward]) -----------------------------------


def normalized(x, dims, eps):
    """x̂ = (x - mean) / sqrt(var + eps) over `dims`, as differentiable Tensor ops."""
    centered = x - x.mean(dims, keepdim=True)
    var = (centered * centered).mean(dims, keepdim=True)
    return centered * (var + eps) ** -0.5, var


def _input_grad(g, x, weight, dims, eps, shape):
    g, x, weight = _up_tensor(g), _up_tensor(x), _up_tensor(weight)
    xhat, var = normalized(x, dims, eps)
    gw = g if weight is None else g * weight.reshape(shape)
    rstd = (var + eps) ** -0.5
    return rstd * (gw - gw.mean(dims, keepdim=True) - xhat * (gw * xhat).mean(dims, keepdim=True))


def _bn_input_grad(g, x, weight, eps):
    dims = _batch_dims(x.ndim)
    return _input_grad(g, x, weight, dims, eps, _channel_shape(x.ndim, x.shape[1]))


def _bn_weight_grad(g, x, eps):
    dims = _batch_dims(x.ndim)
    return (_up_tensor(g) * normalized(_up_tensor(x), dims, eps)[0]).sum(dims)


def _bn_eval_input_grad(g, weight, running_var, eps):
    g, weight, running_var = _up_tensor(g), _up_tensor(weight), _up_tensor(running_var)
    shape = _channel_shape(g.ndim, g.shape[1])
    scale = (running_var.reshape(shape) + eps) ** -0.5
    return g * scale if weight is None else g * (scale * weight.reshape(shape))


def _bn_eval_weight_grad(g, x, running_mean, running_var, eps):
    g, x = _up_tensor(g), _up_tensor(x)
    running_mean, running_var = _up_tensor(running_mean), _up_tensor(running_var)
    shape = _channel_shape(g.ndim, g.shape[1])
    xhat = (x - running_mean.reshape(shape)) * (running_var.reshape(shape) + eps) ** -0.5
    return (g * xhat).sum(_batch_dims(g.ndim))


def _batch_norm_kernel(xp, needs, g, x, weight, eps):
    """See Note [Normalization backward]: the batch statistics' gradients on arrays."""
    dtype, g, x, weight = x.dtype, _up(xp, g), _up(xp, x), _up(xp, weight)
    dims = _batch_dims(x.ndim)
    xhat, rstd = _normalized_fwd(xp, x, dims, eps)
    dweight = _channel_sum(xp, xhat * g) if needs[1] else None
    dx = None
    if needs[0]:
        gw = g if weight is None else g * weight.reshape(_channel_shape(x.ndim, x.shape[1]))
        dx = gw - _mean(xp, gw, dims)
        gw = gw * xhat
        xhat *= _mean(xp, gw, dims)
        dx -= xhat
        dx *= rstd
        dx = dx.astype(dtype, copy=False)
    return dx, dweight, _channel_sum(xp, g) if needs[2] else None, None, None


def _batch_norm_eval_kernel(xp, needs, g, x, weight, running_mean, running_var, eps):
    # eval mode is an affine map per channel: g scaled, and the sums for weight and bias
    dtype, g, x, weight = x.dtype, _up(xp, g), _up(xp, x), _up(xp, weight)
    running_mean, running_var = _up(xp, running_mean), _up(xp, running_var)
    shape = _channel_shape(g.ndim, g.shape[1])
    rstd = 1 / xp.sqrt(running_var.reshape(shape) + eps)
    dx = None
    if needs[0]:
        dx = g * rstd if weight is None else g * (rstd * weight.reshape(shape))
        dx = dx.astype(dtype, copy=False)
    dweight = None
    if needs[1]:
        dweight = _channel_sum(xp, g * ((x - running_mean.reshape(shape)) * rstd))
    return dx, dweight, _channel_sum(xp, g) if needs[2] else None, None, None


BATCH_NORM = defop(
    "native_batch_norm",
    _batch_norm_fwd,
    {
        "x": lambda g, x, weight, eps: _bn_input_grad(g, x, weight, eps),
        "weight": lambda g, x, eps: _bn_weight_grad(g, x, eps),
        "bias": lambda g: g.sum(_batch_dims(g.ndim)),
    },
    node="NativeBatchNormBackward0",
    array_backward=ArrayBackward(_batch_norm_kernel),
    non_differentiable=("running_mean", "running_var"),
    mutates=("running_mean", "running_var"),
)
BATCH_NORM_EVAL = defop(
    "native_batch_norm_eval",
    _batch_norm_eval_fwd,
    {
        "x": lambda g, weight, running_var, eps: _bn_eval_input_grad(g, weight, running_var, eps),
        "weight": lambda g, x, running_mean, running_var, eps: _bn_eval_weight_grad(
            g, x, running_mean, running_var, eps
        ),
        "bias": lambda g: g.sum(_batch_dims(g.ndim)),
    },
    node="NativeBatchNormBackward0",
    array_backward=ArrayBackward(_batch_norm_eval_kernel),
    non_differentiable=("running_mean", "running_var"),
    aten="native_batch_norm",
)


def _trailing(ndim: int, k: int) -> tuple:
    return tuple(range(ndim - k, ndim))


def _layer_norm_fwd(xp, x, weight, bias, *, normalized_ndim, eps):
    out_dtype, x, weight, bias = x.dtype, _up(xp, x), _up(xp, weight), _up(xp, bias)
    y, _ = _normalized_fwd(xp, x, _trailing(x.ndim, normalized_ndim), eps)
    y = _affine(y, weight, bias, x.shape[x.ndim - normalized_ndim :])
    return y.astype(out_dtype, copy=False)


def _ln_input_grad(g, x, weight, normalized_ndim, eps):
    dims = _trailing(x.ndim, normalized_ndim)
    return _input_grad(g, x, weight, dims, eps, tuple(x.shape[x.ndim - normalized_ndim :]))


def _ln_weight_grad(g, x, normalized_ndim, eps):
    return _up_tensor(g) * normalized(_up_tensor(x), _trailing(x.ndim, normalized_ndim), eps)[0]


def _normalized_fwd(xp, x, dims, eps):
    centered, _, rstd, _ = _stats(xp, x, dims, eps)
    centered *= rstd
    return centered.astype(x.dtype, copy=False), rstd


def _layer_norm_kernel(xp, needs, g, x, weight, normalized_ndim, eps):
    """See Note [Normalization backward]: dx, dweight and dbias on arrays, x̂ computed once."""
    dtype, g, x, weight = x.dtype, _up(xp, g), _up(xp, x), _up(xp, weight)
    dims = _trailing(x.ndim, normalized_ndim)
    xhat, rstd = _normalized_fwd(xp, x, dims, eps)
    dweight = lead_sum(xp, xhat * g, x.ndim - len(dims)) if needs[1] else None
    dx = None
    if needs[0]:
        gw = g if weight is None else g * weight
        dx = gw - _mean(xp, gw, dims)
        gw = gw * xhat
        xhat *= _mean(xp, gw, dims)
        dx -= xhat
        dx *= rstd
        dx = dx.astype(dtype, copy=False)
    return dx, dweight, g


LAYER_NORM = defop(
    "native_layer_norm",
    _layer_norm_fwd,
    {
        "x": lambda g, x, weight, normalized_ndim, eps: _ln_input_grad(
            g, x, weight, normalized_ndim, eps
        ),
        "weight": lambda g, x, normalized_ndim, eps: _ln_weight_grad(g, x, normalized_ndim, eps),
        "bias": lambda g: g,
    },
    node="NativeLayerNormBackward0",
    array_backward=ArrayBackward(_layer_norm_kernel),
)


def _group_norm_fwd(xp, x, weight, bias, *, num_groups, eps):
    out_dtype, x, weight, bias = x.dtype, _up(xp, x), _up(xp, weight), _up(xp, bias)
    grouped = x.reshape(x.shape[0], num_groups, -1)
    centered, _, rstd, _ = _stats(xp, grouped, (2,), eps)
    y = (centered * rstd).reshape(x.shape).astype(x.dtype, copy=False)
    y = _affine(y, weight, bias, _channel_shape(x.ndim, x.shape[1]))
    return y.astype(out_dtype, copy=False)


def _gn_xhat(x, num_groups, eps):
    x = _up_tensor(x)
    grouped = x.reshape(x.shape[0], num_groups, -1)
    return normalized(grouped, (2,), eps)[0].reshape(*x.shape)


def _gn_weight_grad(g, x, num_groups, eps):
    return (_up_tensor(g) * _gn_xhat(x, num_groups, eps)).sum(_batch_dims(x.ndim))


def _gn_input_grad(g, x, weight, num_groups, eps):
    g, x, weight = _up_tensor(g), _up_tensor(x), _up_tensor(weight)
    shape = _channel_shape(x.ndim, x.shape[1])
    gw = g if weight is None else g * weight.reshape(shape)
    grouped = (x.shape[0], num_groups, -1)
    dx = _input_grad(gw.reshape(*grouped), x.reshape(*grouped), None, (2,), eps, None)
    return dx.reshape(*x.shape)


GROUP_NORM = defop(
    "native_group_norm",
    _group_norm_fwd,
    {
        "x": lambda g, x, weight, num_groups, eps: _gn_input_grad(g, x, weight, num_groups, eps),
        "weight": lambda g, x, num_groups, eps: _gn_weight_grad(g, x, num_groups, eps),
        "bias": lambda g: g.sum(_batch_dims(g.ndim)),
    },
    node="NativeGroupNormBackward0",
)


# ---- the functional forms ----------------------------------------------------------------------


def _verify_batch_size(size) -> None:
    # F.batch_norm's Python check (its IndexError on a 0-d input included)
    n = size[0]
    for extent in size[2:]:
        n *= extent
    if n == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size "
            f"{Size(size) if isinstance(size, tuple) else size}"
        )


def _check_batch_norm_args(input, running_mean, running_var, weight, bias, training) -> None:
    c = input._data.shape[1] if input._data.ndim > 1 else 0
    for name, t in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if t is not None and t._data.size != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t._data.size}")
    if training and (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(
            f"running_{'mean' if running_mean is None else 'var'} must be "
            "defined in evaluation mode"
        )
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"batch_norm\" not implemented for '{input.dtype._legacy}'")
    check_param_dtypes(input, (weight, bias, running_mean, running_var))


def check_param_dtypes(input, params) -> None:
    """PyTorch's CPU rule for a normalization's parameters: all of the input's dtype, or all
    float32 under a float16/bfloat16 (or float32) input (Note [Normalization in float32]).
    The first parameter given decides which rule applies."""
    given = [t for t in params if t is not None]
    if not given:
        return
    if given[0].dtype == input.dtype:
        for t in given[1:]:
            if t.dtype != input.dtype:
                raise RuntimeError(
                    f"expected scalar type {input.dtype._legacy} but found {t.dtype._legacy}\n"
                    f"The input is {input.dtype}: give every parameter and running statistic "
                    "that dtype."
                )
        return
    if input._data.dtype not in LOW_PRECISION and input.dtype is not dtypes.float32:
        raise RuntimeError(
            "mixed dtype (CPU): all inputs must share same datatype.\n"
            f"The input is {input.dtype} and a parameter {given[0].dtype}: cast the module "
            f"with `.to({input.dtype})`."
        )
    for t in given:
        if t.dtype is not dtypes.float32:
            raise RuntimeError(
                "mixed dtype (CPU): expect parameter to have scalar type of Float\n"
                f"A {input.dtype} input takes float32 parameters or parameters of its own "
                f"dtype; one is {t.dtype}."
            )


def batch_norm(
    input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5
):
    """Matches `torch.nn.functional.batch_norm`; training updates the running stats in place."""
    if training:
        _verify_batch_size(input._data.shape)
    if input._data.size == 0:  # PyTorch returns an empty result before any other check
        return input.clone()
    _check_batch_norm_args(input, running_mean, running_var, weight, bias, training)
    if training:
        for t in (running_mean, running_var):
            if t is not None:
                t._version_counter.bump("batch_norm")
        return apply(
            BATCH_NORM,
            (input, weight, bias, running_mean, running_var),
            {"momentum": momentum if momentum is not None else 0.0, "eps": eps},
        )
    return apply(BATCH_NORM_EVAL, (input, weight, bias, running_mean, running_var), {"eps": eps})


def normalized_shape_arg(fn: str, normalized_shape) -> tuple:
    """`normalized_shape` as PyTorch parses it: a sequence of ints, at least one."""
    shape = int_list(fn, (normalized_shape,), "normalized_shape", 2, varargs=False)
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., "
            "containing at least one element, but got normalized_shape = []"
        )
    return shape


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Matches `torch.nn.functional.layer_norm`."""
    shape = normalized_shape_arg("layer_norm", normalized_shape)
    k = len(shape)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t._data.shape != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but "
                f"got {name} of shape {list(t._data.shape)} and "
                f"normalized_shape = {list(shape)}"
            )
    if input._data.shape[input._data.ndim - k :] != shape or input._data.ndim < k:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size"
            f"{list(input._data.shape)}"
        )
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"LayerNormKernelImpl\" not implemented for '{input.dtype._legacy}'"
        )
    check_param_dtypes(input, (weight, bias))
    return apply(LAYER_NORM, (input, weight, bias), {"normalized_ndim": k, "eps": eps})


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Matches `torch.nn.functional.group_norm`."""
    shape = input._data.shape
    if len(shape) < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {len(shape)}"
        )
    _verify_batch_size([shape[0] * shape[1] // num_groups, num_groups, *shape[2:]])
    if not is_int(num_groups):
        raise TypeError(
            f"group_norm(): argument 'num_groups' (position 2) must be int, not "
            f"{type_name(num_groups)}"
        )
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if input._data.shape[1] % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by "
            f"num_groups, but got input of shape {list(input._data.shape)} and "
            f"num_groups={num_groups}"
        )
    if weight is not None and (weight._data.ndim != 1 or weight._data.size != shape[1]):
        raise RuntimeError(
            f"Expected weight to be a vector of size equal to the number of "
            f"channels in input, but got weight of shape "
            f"{list(weight._data.shape)} and input of shape {list(shape)}"
        )
    check_param_dtypes(input, (weight, bias))
    return apply(GROUP_NORM, (input, weight, bias), {"num_groups": num_groups, "eps": eps})
