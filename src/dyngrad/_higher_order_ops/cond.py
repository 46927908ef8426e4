"""`torch.cond(pred, true_fn, false_fn, operands)`: run the branch `pred` picks on `operands`.
See Note [Control flow in eager mode]."""

from __future__ import annotations

from .._tensor import Tensor
from .tree import leaves, mark, node_function

__all__ = ["cond"]

CondAutogradOp = node_function("CondAutogradOp")


def _validate(pred, true_fn, false_fn, operands) -> None:
    if not isinstance(pred, (bool, Tensor)):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if isinstance(pred, Tensor) and pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or any(
        not isinstance(t, Tensor) for t in leaves(operands)
    ):
        raise RuntimeError(
            "Expect operands to be a tuple of possibly nested dict/list/tuple that only "
            f"consists of tensor leaves, but got {operands}."
        )


def cond(pred, true_fn, false_fn, operands=()):
    """Matches `torch.cond` in eager mode: `true_fn(*operands)` if `pred` else
    `false_fn(*operands)`; with a tensor `pred`, results that need gradients carry
    CondAutogradOpBackward."""
    if isinstance(pred, (bool, int, float)):  # a Python constant: just the branch, as PyTorch
        return true_fn(*operands) if pred else false_fn(*operands)
    _validate(pred, true_fn, false_fn, operands)
    result = true_fn(*operands) if bool(pred) else false_fn(*operands)
    return mark(result, CondAutogradOp)
