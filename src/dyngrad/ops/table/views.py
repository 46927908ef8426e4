"""In-place ops on views: rewriting a base's history (`CopySlices`) and refreshing views.

# Note [In-place through a view]
# Writing into a view `v = b[0]` changes `b`, so `b`'s history must change too. PyTorch's
# answer, kept here: `b.grad_fn` becomes `CopySlices`, which passes `b`'s old gradient through
# everywhere except the written region, where it applies the in-place op's backward. Every
# view of `b` made before the write is stale afterwards (its version no longer matches its
# base's); the next time its history is needed it is rebuilt as a view of the new `b`
# (`AsStridedBackward0`, PyTorch's name).
"""

from __future__ import annotations

from ..._tensor import above
from ...graph.node import Node

__all__ = ["CopySlices", "AsStridedBackward0", "rebase_history", "refresh_view",
           "check_inplace_allowed", "replay_view"]

LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE = ("a view of a leaf Variable that requires grad is being used in an "
                        "in-place operation.")


def check_inplace_allowed(t) -> None:
    """PyTorch refuses to write in place into a leaf that requires grad (under grad mode)."""
    if t._rg and t._fn is None and t._base is None:
        raise RuntimeError(LEAF_INPLACE + _leaf_hint(t))
    base = t._base
    if base is not None and base._rg and base._fn is None:
        raise RuntimeError(VIEW_OF_LEAF_INPLACE + _leaf_hint(base))
    if base is not None and t._rg and _of_multi_output(t):
        raise RuntimeError(_multi_output_error(t, "is being modified inplace"))


MULTI_OUTPUT_VIEW = (
    "This view is the output of a function that returns multiple views. Such functions do not "
    "allow the output views to be modified inplace. You should replace the inplace operation "
    "by an out-of-place one.")


def _of_multi_output(view) -> bool:
    # views made by unbind/split/chunk cannot be replayed one at a time, so PyTorch forbids
    # writing into them (or using them after their base was written) while they need grad
    return any(op.n_outputs != 1 for op, _ in view._view_chain)


def _multi_output_error(view, what: str) -> str:
    from ...graph.node import op_name_of

    return f"Output {view._out_nr} of {op_name_of(view._fn)} is a view and {what}. " + (
        MULTI_OUTPUT_VIEW)


def _leaf_hint(t) -> str:
    shape = list(t._data.shape)
    return (f"\n[dyngrad] The leaf is a {t.dtype} tensor of shape {shape}. To change a "
            "parameter's values, do it under `with torch.no_grad():`; to compute with it, use "
            "the out-of-place op (y = x.op(...)).")


def replay_view(tensor, chain):
    """Apply a view chain recorded at view creation to `tensor` (a base or a gradient)."""
    from .registry import apply

    for op, attrs in chain:
        tensor = apply(op, (tensor,), attrs)
    return tensor


def rebase_history(self, node) -> None:
    """Make `node` the history of `self` after an in-place op wrote into it."""
    from .registry import edge

    base = self._base
    if base is None:
        self._fn = node
        self._out_nr = 0
        self._rg = True
        return
    base_edge = edge(base) if base._rg else (None, 0)
    copy = CopySlices()
    copy.next_functions = (base_edge,) + node.next_functions[1:]
    copy._fn = node
    copy._chain = self._view_chain
    base._fn = copy
    base._out_nr = 0
    base._rg = True
    _regenerate(self)


def refresh_view(view) -> None:
    """Rebuild a stale view's history from its base's current one (see Note above)."""
    if view._view_ver == view._vc.value:
        return
    if view._base._rg and view._rg and _of_multi_output(view):
        raise RuntimeError(_multi_output_error(
            view, "its base or another view of its base has been modified inplace"))
    view._view_ver = view._vc.value
    if view._base._rg:
        _regenerate(view)


def _regenerate(view) -> None:
    from .registry import edge

    base = view._base
    node = AsStridedBackward0()
    node.next_functions = (edge(base),)
    node._chain = view._view_chain
    node._base_shape = base._data.shape
    node._base_dtype = base.dtype
    view._fn = node
    view._out_nr = 0
    view._rg = True
    view._view_ver = view._vc.value


class CopySlices(Node):
    """The history of a base written through one of its views (PyTorch's `CopySlices`)."""

    __slots__ = ("_fn", "_chain")

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grads):
        g = grads[0]
        result = g.clone()
        grad_slice = replay_view(result, self._chain)
        res = self._fn.apply((grad_slice.clone(),))
        if res[0] is not None:
            grad_slice.copy_(res[0])
        else:
            grad_slice.zero_()
        return (result,) + tuple(res[1:])

    def release(self) -> None:
        self._fn.release()


class AsStridedBackward0(Node):
    """A view's history rebuilt over its base: scatter the view's gradient into the base."""

    __slots__ = ("_chain", "_base_shape", "_base_dtype")

    def apply(self, grads):
        from ..creation.factories import zeros

        base_grad = zeros(self._base_shape, dtype=self._base_dtype)
        replay_view(base_grad, self._chain).copy_(grads[0])
        return (base_grad,)


above.refresh_view = refresh_view  # Tensor.grad_fn: See Note [Calls up the layers]
