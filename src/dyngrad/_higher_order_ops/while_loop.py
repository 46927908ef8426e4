"""`torch.while_loop(cond_fn, body_fn, carried_inputs)`: `body_fn` while `cond_fn` holds.
See Note [Control flow in eager mode]."""

from __future__ import annotations

from .._tensor import Tensor
from ..runtime import dtypes
from .tree import leaves, mark, node_function

__all__ = ["while_loop"]

WhileLoopAutogradOp = node_function("WhileLoopAutogradOp")


def _check_pred(pred) -> None:
    if isinstance(pred, bool):
        return
    if isinstance(pred, Tensor) and pred.dim() == 0 and pred.dtype == dtypes.bool_:
        return
    raise RuntimeError(f"cond_fn must return a boolean scalar tensor or a boolean but got {pred}")


def while_loop(cond_fn, body_fn, carried_inputs):
    """Matches `torch.while_loop` in eager mode: a tuple of the values carried out of the
    loop (tensors cloned when the loop never runs, as PyTorch returns them)."""
    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    flat = leaves(carried_inputs)
    if any(not isinstance(t, (Tensor, int)) for t in flat):
        raise AssertionError(
            f"{flat} can only be of ({Tensor}, {int}) but got {tuple(type(t) for t in flat)}"
        )
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(f"carried_inputs must be a tuple or list but got {type(carried_inputs)}")
    carried = tuple(carried_inputs)
    go = cond_fn(*carried)
    _check_pred(go)
    if not go:
        carried = tuple(v.clone() if isinstance(v, Tensor) else v for v in carried)
    while go:
        out = body_fn(*carried)
        if not isinstance(out, (tuple, list)):  # (a list is carried on as PyTorch's does)
            raise AssertionError(f"body_fn should return a tuple but got {type(out)}")
        if len(out) != len(carried):
            raise AssertionError(
                "body_fn should return the same number of elements as carried_inputs, got "
                f"{len(out)} vs {len(carried)}"
            )
        carried = out
        go = cond_fn(*carried)
        _check_pred(go)
    return mark(carried, WhileLoopAutogradOp)
