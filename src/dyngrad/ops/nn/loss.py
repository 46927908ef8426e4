"""Loss ops with their reduction inside the row, as PyTorch's (MseLossBackward0 on the scalar).

nll_loss reads only the target and weight in its formula, so with log_softmax under it
cross_entropy saves the log-probabilities once and never the logits twice.
"""

from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor
from ..elementwise.arithmetic import where
from ..table import promotion
from ..table.array_backward import ArrayBackward
from ..table.record import apply
from ..table.registry import defop


def _reduce(xp, loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if loss.dtype.itemsize >= 4 and loss.size:  # NumPy's mean, without its Python wrapper
        return loss.sum() / loss.size
    return loss.mean()  # (a half-precision mean accumulates in float32; nothing: nan)


def _spread(g, reduction, shape):
    """The output gradient as one value per element of the unreduced loss."""
    if reduction == "none":
        return g
    g = g.expand(shape)
    return g if reduction == "sum" else g / max(math.prod(shape), 1)


def _shape(x, y):
    a, b = x._data.shape, y._data.shape
    return a if a == b else np.broadcast_shapes(a, b)


# ---- pointwise regression losses -------------------------------------------------------------


def _huber(xp, d, *, delta):
    a = xp.abs(d)
    return xp.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))


def _smooth_l1(xp, d, *, beta):
    a = xp.abs(d)
    return xp.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta)


def _mse_fwd(xp, x, y, *, reduction):
    d = x - y
    return _reduce(xp, d * d, reduction)


def _mse_grad(g, x, y, reduction):
    return _spread(g, reduction, _shape(x, y)) * (2 * (x - y))


def _huber_fwd(xp, x, y, *, reduction, delta):
    return _reduce(xp, _huber(xp, x - y, delta=delta).astype(x.dtype, copy=False), reduction)


def _huber_grad(g, x, y, reduction, delta):

    d = x - y
    return _spread(g, reduction, _shape(x, y)) * where(d.abs() < delta, d, delta * d.sign())


def _smooth_l1_fwd(xp, x, y, *, reduction, beta):
    return _reduce(xp, _smooth_l1(xp, x - y, beta=beta).astype(x.dtype, copy=False), reduction)


def _smooth_l1_grad(g, x, y, reduction, beta):

    d = x - y
    return _spread(g, reduction, _shape(x, y)) * where(d.abs() < beta, d / beta, d.sign())


def _mse_kernel(xp, needs, g, x, y, reduction):
    # the formulas' products on arrays: 2 (x - y) times the spread gradient
    d = x - y
    d *= 2
    d *= g if reduction != "mean" else g / max(d.size, 1)
    return d if needs[0] else None, -d if needs[1] else None


MSE_LOSS = defop(
    "mse_loss",
    _mse_fwd,
    {"x": _mse_grad, "y": lambda g, x, y, reduction: -_mse_grad(g, x, y, reduction)},
    promote=promotion.binary,
    array_backward=ArrayBackward(_mse_kernel),
)
HUBER_LOSS = defop(
    "huber_loss",
    _huber_fwd,
    {
        "x": _huber_grad,
        "y": lambda g, x, y, reduction, delta: -_huber_grad(g, x, y, reduction, delta),
    },
    promote=promotion.binary,
)
SMOOTH_L1_LOSS = defop(
    "smooth_l1_loss",
    _smooth_l1_fwd,
    {
        "x": _smooth_l1_grad,
        "y": lambda g, x, y, reduction, beta: -_smooth_l1_grad(g, x, y, reduction, beta),
    },
    node="SmoothL1LossBackward0",
    promote=promotion.binary,
)


# ---- negative log likelihood -------------------------------------------------------------------


def _nll_parts(xp, target, weight, ignore_index):
    mask = target != ignore_index
    safe = xp.where(mask, target, 0)
    w = (weight[safe] if weight is not None else xp.ones(safe.shape)) * mask
    return safe, w


def _check_targets(xp, safe, n_classes):
    if safe.size and (safe.min() < 0 or safe.max() >= n_classes):
        bad = safe[(safe < 0) | (safe >= n_classes)].ravel()[0]
        raise IndexError(f"Target {int(bad)} is out of bounds.")


def _nll_fwd(xp, x, target, weight, *, reduction, ignore_index):
    if _plain_rows(x.shape, target, weight, ignore_index):
        return _nll_rows(xp, x, target, reduction)
    safe, w = _nll_parts(xp, target, weight, ignore_index)
    xc = x if x.ndim == 1 else xp.moveaxis(x, 1, -1)
    _check_targets(xp, xp.where(target != ignore_index, target, 0), xc.shape[-1])
    picked = xp.take_along_axis(xc, safe[..., None], axis=-1)[..., 0]
    loss = (-picked * w).astype(x.dtype, copy=False)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    with np.errstate(invalid="ignore", divide="ignore"):  # all targets ignored: nan, as torch
        return (loss.sum() / w.sum()).astype(x.dtype)


def _plain_rows(x_shape, target, weight, ignore_index) -> bool:
    """The classification case: (N, C) scores, no class weights, every target a class.

    One reduction checks both bounds (a negative index is huge as unsigned); a target out of
    them, ignored or wrong, leaves the call to the general path, which tells them apart.
    """
    if weight is not None or len(x_shape) != 2 or target.ndim != 1:
        return False
    n_classes = x_shape[1]
    if target.size and target.view(_UNSIGNED[target.dtype.itemsize]).max() >= n_classes:
        return False
    return not 0 <= ignore_index < n_classes or not (target == ignore_index).any()


def _nll_rows(xp, x, target, reduction):
    # the plain case (see `_plain_rows`) as one fancy index instead of the general masks
    n = target.shape[0]
    loss = -x[_arange(n), target]
    if reduction == "none":
        return loss
    total = np.add.reduce(loss)
    if reduction == "sum":
        return total
    return xp.asarray(total / n if n else xp.nan, dtype=x.dtype)


_ARANGES: dict = {}


def _arange(n: int):
    # the row numbers of a batch, made once per batch size (read-only: shared)
    rows = _ARANGES.get(n)
    if rows is None:
        if len(_ARANGES) > 64:
            _ARANGES.clear()
        rows = _ARANGES[n] = np.arange(n)
        rows.flags.writeable = False
    return rows


_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _nll_coef(x_shape, t, weight, reduction, ignore_index, dtype):
    """d loss / d x: -w[t] at the target class (divided by Σw for 'mean'), zero elsewhere."""
    coef = np.zeros(x_shape, dtype=dtype)
    if _plain_rows(x_shape, t, weight, ignore_index):
        value = -1.0 / max(t.shape[0], 1) if reduction == "mean" else -1.0
        coef[_arange(t.shape[0]), t] = value
        return coef
    safe, w = _nll_parts(np, t, weight, ignore_index)
    if reduction == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            w = w / w.sum()
    view = coef if len(x_shape) == 1 else np.moveaxis(coef, 1, -1)
    np.put_along_axis(view, safe[..., None], -w[..., None].astype(coef.dtype), axis=-1)
    return coef


def _nll_grad(g, x_shape, target, weight, reduction, ignore_index):
    coef = _nll_coef(
        x_shape,
        target._data,
        None if weight is None else weight._data,
        reduction,
        ignore_index,
        g._data.dtype,
    )
    if reduction == "none" and len(x_shape) > 1:
        g = g.unsqueeze(1)
    return g * Tensor._wrap(coef)


def _nll_kernel(xp, needs, g, x_shape, target, weight, reduction, ignore_index):
    coef = _nll_coef(x_shape, target, weight, reduction, ignore_index, g.dtype)
    if reduction == "none" and len(x_shape) > 1:
        g = g[:, None]
    coef *= g
    return coef, None, None


NLL_LOSS = defop(
    "nll_loss",
    _nll_fwd,
    {"x": _nll_grad},
    node="NllLossBackward0",
    non_differentiable=("weight",),
    aten="nll_loss_forward",
    array_backward=ArrayBackward(_nll_kernel, mixed_dtypes=True),
)
# PyTorch runs inputs with spatial dims through nll_loss2d: same math, another node name
NLL_LOSS_2D = defop(
    "nll_loss2d",
    _nll_fwd,
    {"x": _nll_grad},
    node="NllLoss2DBackward0",
    non_differentiable=("weight",),
    aten="nll_loss2d_forward",
    array_backward=ArrayBackward(_nll_kernel, mixed_dtypes=True),
)
# loss / count inside PyTorch's C++ composites is div(Tensor, Scalar): DivBackward1
DIV_BY_COUNT = defop(
    "loss_div_count",
    lambda xp, x, *, count: x / count,
    {"x": lambda g, count: g / count},
    node="DivBackward1",
)


# ---- binary cross entropy ----------------------------------------------------------------------


def _bce_fwd(xp, x, y, weight, *, reduction):
    # PyTorch clamps each log at -100 so that x = 0 or 1 gives a finite loss
    with np.errstate(divide="ignore"):
        log_x = xp.maximum(xp.log(x), -100)
        log_1mx = xp.maximum(xp.log1p(-x), -100)
    loss = -(y * log_x + (1 - y) * log_1mx)
    if weight is not None:
        loss = loss * weight
    return _reduce(xp, loss.astype(x.dtype, copy=False), reduction)


def _bce_x_grad(g, x, y, weight, reduction):
    grad = _spread(g, reduction, tuple(x.shape)) * (x - y) / (x * (1 - x)).clamp(min=1e-12)
    return grad if weight is None else grad * weight


def _bce_y_grad(g, x, weight, reduction):
    grad = _spread(g, reduction, tuple(x.shape)) * ((-x).log1p() - x.log())
    return grad if weight is None else grad * weight


BCE = defop(
    "binary_cross_entropy",
    _bce_fwd,
    {"x": _bce_x_grad, "y": _bce_y_grad},
    node="BinaryCrossEntropyBackward0",
    non_differentiable=("weight",),
)


def _bce_logits_fwd(xp, x, y, weight, pos_weight, *, reduction):
    # log(1 + e^-x) written as log1p(e^-|x|) + max(-x, 0): no overflow for any x
    softplus_neg = xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(-x, 0)
    if pos_weight is not None:
        loss = (1 - y) * x + (1 + (pos_weight - 1) * y) * softplus_neg
    else:
        loss = (1 - y) * x + softplus_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(xp, loss.astype(x.dtype, copy=False), reduction)


def _bce_logits_x_grad(g, x, y, weight, pos_weight, reduction):
    # d/dx = (1 + (pw - 1) y) sigmoid(x) - pw y
    if pos_weight is None:
        grad = x.sigmoid() - y
    else:
        grad = (1 + (pos_weight - 1) * y) * x.sigmoid() - pos_weight * y
    grad = _spread(g, reduction, _shape(x, y)) * grad
    return grad if weight is None else grad * weight


def _bce_logits_y_grad(g, x, weight, pos_weight, reduction):
    # d/dy = -x + (pw - 1) log(1 + e^-x), i.e. -x for pw = 1
    grad = -x
    if pos_weight is not None:
        softplus_neg = (-x.abs()).exp().log1p() + (-x).clamp(min=0)
        grad = grad + (pos_weight - 1) * softplus_neg
    grad = _spread(g, reduction, tuple(x.shape)) * grad
    return grad if weight is None else grad * weight


BCE_WITH_LOGITS = defop(
    "binary_cross_entropy_with_logits",
    _bce_logits_fwd,
    {"x": _bce_logits_x_grad, "y": _bce_logits_y_grad},
    node="BinaryCrossEntropyWithLogitsBackward0",
    non_differentiable=("weight", "pos_weight"),
)


def nll(input, target, weight, reduction, ignore_index):
    attrs = {"reduction": reduction, "ignore_index": ignore_index}
    if input._data.ndim < 3:
        return apply(NLL_LOSS, (input, target, weight), attrs)
    if input._data.ndim == 4:
        return apply(NLL_LOSS_2D, (input, target, weight), attrs)
    # other ranks go through a (N, C, 1, rest) view, as in PyTorch
    n, c = input._data.shape[:2]
    out = apply(NLL_LOSS_2D, (input.reshape(n, c, 1, -1), target.reshape(n, 1, -1), weight), attrs)
    return out.view(*target.shape) if reduction == "none" else out
