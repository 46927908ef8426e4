"""`ctc_loss` (CtcLossBackward0): the connectionist temporal classification loss, the forward
(alpha) recursion over time, vectorised over the batch and the extended target.

Note [CTC's gradient is through a log_softmax]
PyTorch's CTC backward (Graves et al. 2006, eq. 16) returns exp(log_probs) - posterior, the
gradient with respect to the *logits* under a log_softmax, not with respect to the
log-probabilities it was given: the exp(log_probs) term vanishes through log_softmax's
backward (each row sums to one), leaving the true gradient. dyngrad returns the same, so
gradients agree with PyTorch; a gradient check therefore runs the loss on
`x.log_softmax(2)`, as PyTorch's own tests do. The backward has no derivative (PyTorch raises
"derivative for aten::_ctc_loss_backward is not implemented").
"""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ..elementwise.compare import where
from ..table.record import apply
from ..table.registry import NOT_IMPLEMENTED, defop, refused

_NEG_INF = -np.inf


def _extended(targets, target_lengths, blank: int, batch: int):
    """The targets with a blank before, between and after the labels: (B, 2 L_max + 1)."""
    lengths = np.asarray(target_lengths, dtype=np.int64)
    width = 2 * int(lengths.max(initial=0)) + 1
    ext = np.full((batch, width), blank, dtype=np.int64)
    if targets.ndim == 1:  # concatenated
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        for b in range(batch):
            ext[b, 1 : 2 * lengths[b] : 2] = targets[starts[b] : starts[b] + lengths[b]]
    else:
        for b in range(batch):
            ext[b, 1 : 2 * lengths[b] : 2] = targets[b, : lengths[b]]
    valid = np.arange(width) < (2 * lengths + 1)[:, None]
    same = np.zeros_like(valid)  # l'(s) == l'(s - 2): the skip over a blank is not allowed
    same[:, 2:] = ext[:, 2:] == ext[:, :-2]
    return ext, valid, ~same & (np.arange(width) >= 2)


def _logsumexp3(a, b, c):
    top = np.maximum(np.maximum(a, b), c)
    top = np.where(top == _NEG_INF, 0.0, top)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(a - top) + np.exp(b - top) + np.exp(c - top)) + top


def _behind(a, by: int):
    """a[:, s - by], -inf where s < by."""
    out = np.full_like(a, _NEG_INF)
    out[:, by:] = a[:, : a.shape[1] - by]
    return out


def _ahead(a, by: int):
    """a[:, s + by], -inf past the end."""
    out = np.full_like(a, _NEG_INF)
    out[:, : a.shape[1] - by] = a[:, by:]
    return out


def _alpha(emit, valid, skip):
    """log alpha (T, B, S'): the log-probability of each prefix of the extended target."""
    alpha = np.full(emit.shape, _NEG_INF)
    if emit.shape[0]:
        alpha[0, :, :2] = emit[0, :, :2]
        alpha[0] = np.where(valid, alpha[0], _NEG_INF)
    for t in range(1, emit.shape[0]):
        prev = alpha[t - 1]
        two = np.where(skip, _behind(prev, 2), _NEG_INF)
        alpha[t] = np.where(valid, _logsumexp3(prev, _behind(prev, 1), two) + emit[t], _NEG_INF)
    return alpha


def _beta(emit, valid, skip, last, lengths):
    """log beta (T, B, S'): the log-probability of each suffix, from each input's own end
    (`last`, its final step)."""
    steps, batch, width = emit.shape
    beta = np.full(emit.shape, _NEG_INF)
    rows = np.arange(batch)
    ends = last >= 0
    start = np.full((batch, width), _NEG_INF)
    start[rows[ends], 2 * lengths[ends]] = emit[last[ends], rows[ends], 2 * lengths[ends]]
    has = ends & (lengths > 0)
    start[rows[has], 2 * lengths[has] - 1] = emit[last[has], rows[has], 2 * lengths[has] - 1]
    skip_ahead = np.zeros_like(skip)  # the move from s to s + 2 is allowed
    skip_ahead[:, :-2] = skip[:, 2:]
    for t in range(steps - 1, -1, -1):
        step = beta[t]
        if t < steps - 1:
            nxt = beta[t + 1]
            two = np.where(skip_ahead, _ahead(nxt, 2), _NEG_INF)
            step = np.where(valid, _logsumexp3(nxt, _ahead(nxt, 1), two) + emit[t], _NEG_INF)
        beta[t] = np.where(
            (t == last)[:, None], start, np.where((t < last)[:, None], step, _NEG_INF)
        )
    return beta


def _setup(log_probs, targets, input_lengths, target_lengths, blank):
    lp = log_probs.astype(np.float64)
    batch = lp.shape[1]
    ext, valid, skip = _extended(targets, target_lengths, blank, batch)
    emit = lp[:, np.arange(batch)[:, None], ext]  # (T, B, S')
    return lp, ext, valid, skip, emit


def _nll(alpha, input_lengths, target_lengths):
    lengths, last = np.asarray(target_lengths), np.asarray(input_lengths) - 1
    rows = np.arange(lengths.size)
    final = alpha[np.maximum(last, 0), rows]  # (B, S')
    l1 = final[rows, 2 * lengths]
    l2 = np.where(lengths > 0, final[rows, np.maximum(2 * lengths - 1, 0)], _NEG_INF)
    nll = -np.logaddexp(l1, l2)
    # an empty input: the empty target has probability one, any other zero
    return np.where(last < 0, np.where(lengths == 0, -0.0, np.inf), nll)


def _ctc_fwd(xp, log_probs, targets, *, input_lengths, target_lengths, blank, zero_infinity):
    _, _, valid, skip, emit = _setup(log_probs, targets, input_lengths, target_lengths, blank)
    nll = _nll(_alpha(emit, valid, skip), input_lengths, target_lengths)
    return nll.astype(log_probs.dtype)


def _ctc_backward_fwd(
    xp, grad, log_probs, targets, *, input_lengths, target_lengths, blank, zero_infinity
):
    lp, ext, valid, skip, emit = _setup(log_probs, targets, input_lengths, target_lengths, blank)
    alpha = _alpha(emit, valid, skip)
    nll = _nll(alpha, input_lengths, target_lengths)
    last, lengths = np.asarray(input_lengths) - 1, np.asarray(target_lengths)
    beta = _beta(emit, valid, skip, last, lengths)
    # the posterior of each extended-target position, alpha beta / (y p), summed per class
    with np.errstate(invalid="ignore", over="ignore"):
        posterior = np.exp(alpha + beta + nll[:, None] - emit)
    steps, batch = lp.shape[:2]
    # PyTorch's kernel sets (not adds) the last step's two terms: a target that is the blank
    # itself (labels PyTorch leaves undefined) keeps only the label's term, as there
    rows = np.flatnonzero((lengths > 0) & (last >= 0))
    rows = rows[ext[rows, 2 * lengths[rows] - 1] == blank]
    posterior[last[rows], rows, 2 * lengths[rows]] = 0.0
    per_class = np.zeros(lp.shape)
    t_index = np.broadcast_to(np.arange(steps)[:, None, None], posterior.shape)
    b_index = np.broadcast_to(np.arange(batch)[None, :, None], posterior.shape)
    np.add.at(per_class, (t_index, b_index, np.broadcast_to(ext, posterior.shape)), posterior)
    with np.errstate(invalid="ignore"):
        out = (np.exp(lp) - per_class) * np.asarray(grad, dtype=np.float64)[None, :, None]
    if not zero_infinity:  # an impossible alignment: PyTorch's nan
        out[:, np.isinf(nll)] = np.nan
    out[:, zero_infinity & np.isinf(nll)] = 0.0
    out[np.arange(steps)[:, None] > last[None, :]] = 0.0  # past each input's end
    return out.astype(log_probs.dtype)


_REFUSED = refused("derivative for aten::_ctc_loss_backward is not implemented")
CTC_LOSS_BACKWARD = defop(
    "ctc_loss_backward",
    _ctc_backward_fwd,
    {"grad": _REFUSED, "log_probs": _REFUSED},
    node=NOT_IMPLEMENTED,
)


def _ctc_grad(g, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    attrs = {
        "input_lengths": input_lengths,
        "target_lengths": target_lengths,
        "blank": blank,
        "zero_infinity": zero_infinity,
    }
    return apply(CTC_LOSS_BACKWARD, (g, log_probs, targets), attrs)


CTC_LOSS = defop("ctc_loss", _ctc_fwd, {"log_probs": _ctc_grad}, node="CtcLossBackward0")


# ---- the checks PyTorch's kernel makes, and the reductions around it ----------------------

_WHERE = " (while checking arguments for ctc_loss_allocate_outputs)"


def _lengths(lengths, name: str) -> tuple:
    if isinstance(lengths, Tensor):
        if lengths.is_floating_point() or lengths.is_complex() or lengths.dtype.name == "bool":
            raise RuntimeError(f"{name} must be integral")
        return tuple(int(v) for v in lengths._data.reshape(-1))
    return tuple(int(v) for v in lengths)


def _check(log_probs, targets, input_lengths, target_lengths, blank) -> None:
    steps, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if len(input_lengths) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    for length in target_lengths:
        if length < 0:
            raise RuntimeError(
                f"Expected target_lengths to have value at least 0, but got value {length}{_WHERE}"
            )
    wanted = (sum(target_lengths),) if targets.dim() == 1 else (batch,)
    if targets.shape[0] != wanted[0]:
        raise RuntimeError(
            f"Expected tensor to have size {wanted[0]} at dimension 0, but got size "
            f"{targets.shape[0]} for argument #2 'targets'{_WHERE}"
        )
    longest = max(target_lengths, default=0)
    if targets.dim() == 2 and targets.shape[1] < longest:
        raise RuntimeError(
            f"Expected tensor to have size at least {longest} at dimension 1, but got size "
            f"{targets.shape[1]} for argument #2 'targets'{_WHERE}"
        )
    for length in input_lengths:
        if length < 0:
            raise RuntimeError(
                f"Expected input_lengths to have value at least 0, but got value {length}{_WHERE}"
            )
        if length > steps:
            raise RuntimeError(
                f"Expected input_lengths to have value at most {steps}, but got value "
                f"{length}{_WHERE}"
            )


def ctc(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    """PyTorch's ctc_loss composite: the per-sample row, then zero_infinity's where and the
    reduction ('mean' divides each loss by its target length first)."""
    input_lengths = _lengths(input_lengths, "input_lengths")
    target_lengths = _lengths(target_lengths, "target_lengths")
    if not log_probs.is_floating_point():
        raise NotImplementedError(
            f"\"ctc_loss_cpu\" not implemented for '{log_probs.dtype._legacy}'"
        )
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    if lp.dim() != 3:
        raise RuntimeError(
            f"Expected 3-dimensional tensor, but got {lp.dim()}-dimensional tensor for "
            f"argument #1 'log_probs'{_WHERE}"
        )
    if not 1 <= targets.dim() <= 2:
        raise RuntimeError(
            f"Expected 1 to 2 dimensions, but got {targets.dim()}-dimensional tensor for "
            f"argument #2 'targets'{_WHERE}"
        )
    _check(lp, targets, input_lengths, target_lengths, blank)
    attrs = {
        "input_lengths": input_lengths,
        "target_lengths": target_lengths,
        "blank": blank,
        "zero_infinity": bool(zero_infinity),
    }
    index = Tensor._wrap(targets._data.astype(np.int64))
    loss = apply(CTC_LOSS, (lp, index), attrs)
    if zero_infinity:
        loss = where(loss == float("inf"), Tensor._wrap(np.zeros((), loss._data.dtype)), loss)
    if reduction == "mean":
        divisor = np.maximum(np.asarray(target_lengths, dtype=loss._data.dtype), 1)
        return (loss / Tensor._wrap(divisor)).mean()
    if reduction == "sum":
        return loss.sum()
    return loss if batched else loss.squeeze(0)
