"""In-place writes and views: what PyTorch refuses, and rewriting a base's history
(`CopySlices`) after a write through one of its views (Note [In-place through a view])."""

from __future__ import annotations

from ...graph.node import Node, move_retains_grad
from .record import gradient_edge, regenerate, replay_view
from .view_errors import view_rebase_error

__all__ = ["CopySlices", "rebase_history", "check_inplace_allowed"]

LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)


def check_inplace_allowed(t) -> None:
    """What PyTorch refuses to write in place under grad mode when a gradient is involved:
    a view it can't rebuild the history of (Note [Views made without grad]), a leaf that
    requires grad or a view of one."""
    base = t._base
    if base is None:
        if t._requires_grad and t._grad_fn is None:
            raise RuntimeError(LEAF_INPLACE + _leaf_hint(t))
        return
    if t._creation is not None:
        raise RuntimeError(view_rebase_error(t, indirect=False))
    if base._requires_grad and base._grad_fn is None:
        raise RuntimeError(VIEW_OF_LEAF_INPLACE + _leaf_hint(base))


def _leaf_hint(t) -> str:
    shape = list(t._data.shape)
    return (
        f"\n[dyngrad] The leaf is a {t.dtype} tensor of shape {shape}. To change a "
        "parameter's values, do it under `with torch.no_grad():`; to compute with it, use "
        "the out-of-place op (y = x.op(...))."
    )


def rebase_history(self, node) -> None:
    """Make `node` the history of `self` after an in-place op wrote into it."""
    base = self._base
    if base is None:
        old_fn, old_nr = self._grad_fn, self._out_nr
        self._grad_fn = node
        self._out_nr = 0
        self._requires_grad = True
        move_retains_grad(self, old_fn, old_nr)
        return
    base_edge = gradient_edge(base) if base._requires_grad else (None, 0)
    copy = CopySlices()
    copy.next_functions = (base_edge,) + node.next_functions[1:]
    copy._inplace_node = node
    copy._chain = self._view_chain
    old_fn, old_nr = base._grad_fn, base._out_nr
    base._grad_fn = copy
    base._out_nr = 0
    base._requires_grad = True
    move_retains_grad(base, old_fn, old_nr)
    regenerate(self)


class CopySlices(Node):
    """The history of a base written through one of its views (PyTorch's `CopySlices`)."""

    __slots__ = ("_inplace_node", "_chain")

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grads):
        g = grads[0]
        result = g.clone()
        grad_slice = replay_view(result, self._chain)
        res = self._inplace_node.apply((grad_slice.clone(),))
        if res[0] is not None:
            grad_slice.copy_(res[0])
        else:
            grad_slice.zero_()
        return (result,) + tuple(res[1:])

    def release(self) -> None:
        self._inplace_node.release()
