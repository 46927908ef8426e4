"""`F.linear` as PyTorch computes it, with PyTorch's graph: addmm(bias, x, weight.t()) for a
matrix with a bias (other ranks flattened to one first), else matmul(x, weight.t()) plus the
bias; the common case by a fast form that records the same two nodes."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor, new_tensor
from ...graph.grad_mode import state as grad_state
from ...runtime.dtypes import LOW_PRECISION
from ..arrays.gemm import mm
from ..linalg.fused_products import ADDMM, addmm, addmm_forward
from ..shape.reshaping import T
from ..table import record as recording
from ..table.record import new_view, note_no_grad, record

__all__ = ["linear"]

_new = object.__new__
_ndarray = np.ndarray
_EMPTY: dict = {}
_ADDMM_ATTRS = {"beta": 1, "alpha": 1}  # shared by every linear's node, never written
_ADDMM_NODE = ADDMM.node_class()
_ADDMM_PLANS = ADDMM.plans
_ADDMM_FORWARD = addmm_forward.__wrapped__  # the product itself, in the operands' dtype


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Matches `torch.nn.functional.linear`: `input @ weight.T + bias`, with torch's nodes."""
    if recording.autocast is not None:  # cast before the dtype checks: Note [Autocast hook]
        input, weight, bias = recording.autocast("linear", (input, weight, bias))
    x, w = input._data, weight._data
    if bias is not None and x.ndim == 2 and w.ndim == 2:
        b = bias._data
        if (
            x.shape[1] == w.shape[1]
            and b.shape == (w.shape[0],)
            and x.dtype == w.dtype == b.dtype
            and type(x) is _ndarray
        ):
            return _linear_2d(input, weight, bias)
    if x.ndim == 0 or w.ndim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {x.ndim}D and {w.ndim}D"
        )
    wt = weight.t() if recording.observer is not None else _transposed(weight, grad_state.enabled)
    if bias is None:
        return input.matmul(wt)
    if x.ndim == 2:
        return addmm(bias, input, wt)
    # PyTorch flattens a contiguous input into rows for one addmm (ViewBackward0 on both
    # sides of AddmmBackward0) when the bias is one row of values; else matmul, then the bias
    b = bias._data
    row = b.ndim == 1 or sum(size != 1 for size in b.shape) == 1  # squeeze() leaves 1 dim
    if row and x.flags.c_contiguous and b.flags.c_contiguous:
        rows = addmm(bias, input.view(-1, x.shape[-1]), wt)
        return rows.view(*x.shape[:-1], rows._data.shape[-1])
    out = input.matmul(wt)
    # PyTorch adds the bias in place (add_), so it may not grow the output; dyngrad adds it out
    # of place, which records the same AddBackward0 (matmul's output may be a view here)
    try:
        shape = np.broadcast_shapes(out._data.shape, b.shape)
    except ValueError:
        return out + bias  # raises add's own message
    if shape != out._data.shape:
        raise RuntimeError(
            f"output with shape {list(out._data.shape)} doesn't match the broadcast shape "
            f"{list(shape)}"
        )
    return out + bias


def _linear_2d(input: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
    # addmm(bias, input, weight.t()) for operands already checked: the row's forward, and its
    # node recorded over weight.t()'s own (Note [One recording path])
    x = input._data
    if x.dtype in LOW_PRECISION:  # the row's rounding wrapper: Note [Low-precision products]
        out = addmm_forward(np, bias._data, x, weight._data.T, beta=1, alpha=1)
    elif x.shape[0] == 1:  # one row: the row's forward takes BLAS's matrix-vector product
        out = _ADDMM_FORWARD(np, bias._data, x, weight._data.T, beta=1, alpha=1)
    else:
        # the row's forward for beta = alpha = 1 and one dtype (linear checked it), written out:
        # the product, the bias added into it in place
        out = mm(np, x, weight._data.T)
        out += bias._data
    mask = bias._requires_grad | input._requires_grad << 1 | weight._requires_grad << 2
    if recording.observer is not None:  # told of `t` and `addmm`, PyTorch's ops of a linear
        return _observed_linear_2d(input, weight, bias, out, mask)
    if not mask:
        return new_tensor(out)
    if not grad_state.enabled:
        t = new_tensor(out)
        note_no_grad(t, (bias, input, weight))
        return t
    node = _new(_ADDMM_NODE)
    t = new_tensor(out, True, node)
    # (grad mode is on here: `_transposed` need not read the thread-local again)
    record(
        node, (bias, input, _transposed(weight, True)), mask, _ADDMM_ATTRS, _ADDMM_PLANS[mask], t
    )
    return t


def _observed_linear_2d(input: Tensor, weight: Tensor, bias: Tensor, out, mask: int) -> Tensor:
    # `_linear_2d` while an op observer watches (Note [Op observer]): the same nodes, and the
    # observer told of both ops with the arguments their rows take
    wt = _transposed(weight, grad_state.enabled)
    recording.observer(T, (weight,), _EMPTY, wt)
    if not mask or not grad_state.enabled:
        t = new_tensor(out)
        if mask:
            note_no_grad(t, (bias, input, weight))
    else:
        node = _new(_ADDMM_NODE)
        t = new_tensor(out, True, node)
        record(node, (bias, input, wt), mask, _ADDMM_ATTRS, _ADDMM_PLANS[mask], t)
    recording.observer(ADDMM, (bias, input, wt), _ADDMM_ATTRS, t)
    return t


def _transposed(weight: Tensor, enabled: bool) -> Tensor:
    """`weight.t()` as T's row makes it under grad mode `enabled` (as the caller read it),
    recorded with linear's own TBackward0."""
    if weight._requires_grad and enabled:
        node = _new(TBackward0)
        wt = new_view(weight._data.T, weight, T, _EMPTY, True, node)
        record(node, (weight,), 1, _EMPTY, (), None)
        return wt
    return new_view(weight._data.T, weight, T, _EMPTY, enabled)


class TBackward0(T.node_class()):
    """The node of a linear's `weight.t()`: T's own (same name, formula and kernel), except
    that it hands the weight the array addmm's kernel made in its shape, so that
    AccumulateGrad adopts it without a copy. See Note [Linear's weight gradient] in
    fused_products.py."""

    __slots__ = ()

    def apply(self, grads):
        data = grads[0]._data
        base = data.base
        # the gradient is base.T exactly (same memory, reversed shape and strides), and no hook
        # could have handed in an array someone else holds
        if base is not None and self._plain and not grad_state.enabled and type(data) is _ndarray:
            shape, dtype = self._meta[0]
            if base.shape == shape and base.strides == data.strides[::-1] and base.dtype == dtype:
                return (new_tensor(base),)
        return super().apply(grads)

    def apply_on_arrays(self, gd):
        # the same choice for the compiled backward, whose gradients are arrays (See Note
        # [Compiled backward] in _dynamo/compiled_node.py); every node it runs is plain
        base = gd.base
        if base is not None and type(gd) is _ndarray:
            shape, dtype = self._meta[0]
            if base.shape == shape and base.strides == gd.strides[::-1] and base.dtype == dtype:
                return (base,)
        return T.array_backward.on_arrays(self, gd)
