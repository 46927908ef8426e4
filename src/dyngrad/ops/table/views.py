"""In-place writes and views: what PyTorch refuses, and rewriting a base's history
(`CopySlices`) after a write through one of its views (Note [In-place through a view])."""

from __future__ import annotations

from ...graph.node import Node
from .record import gradient_edge, multi_output_error, of_multi_output, regenerate, replay_view

__all__ = ["CopySlices", "rebase_history", "check_inplace_allowed"]

LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)


def check_inplace_allowed(t) -> None:
    """PyTorch refuses to write in place into a leaf that requires grad (under grad mode)."""
    if t._requires_grad and t._grad_fn is None and t._base is None:
        raise RuntimeError(LEAF_INPLACE + _leaf_hint(t))
    base = t._base
    if base is not None and base._requires_grad and base._grad_fn is None:
        raise RuntimeError(VIEW_OF_LEAF_INPLACE + _leaf_hint(base))
    if base is not None and t._requires_grad and of_multi_output(t):
        raise RuntimeError(multi_output_error(t, "is being modified inplace"))


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
        self._grad_fn = node
        self._out_nr = 0
        self._requires_grad = True
        return
    base_edge = gradient_edge(base) if base._requires_grad else (None, 0)
    copy = CopySlices()
    copy.next_functions = (base_edge,) + node.next_functions[1:]
    copy._inplace_node = node
    copy._chain = self._view_chain
    base._grad_fn = copy
    base._out_nr = 0
    base._requires_grad = True
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
