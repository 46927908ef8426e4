"""PyTorch's errors for writing into a view whose history it can't rebuild.

# Note [Views made without grad]
# A view made while grad mode is off (no_grad or inference mode) records no history, yet it
# shares memory with a base that may have one. Writing into it, or into its base, with grad
# mode on would give it a history made up after the fact, so PyTorch forbids both. The same
# holds for one of several views made by one op (`unbind`, `split`: they can't be replayed
# one at a time) and for a view a custom Function returned (its backward is the Function's,
# which the write would override). The view remembers how it was made (`Tensor._creation`:
# "no_grad", "inference_mode", "multi_output" or "custom_function"; a view of it inherits it,
# an inference-mode one winning), and the write (views.py: `check_inplace_allowed`) or the
# next use of its stale history (record.py: `refresh_view`) raises. A view made without grad
# requires grad when its source does, as PyTorch's (a view's requires_grad follows its base).
"""

from __future__ import annotations

from ...graph.node import op_name_of

__all__ = ["view_rebase_error", "creation_of"]

_WITHOUT_GRAD = {
    "no_grad": ("no_grad mode", "with grad mode enabled", "no_grad block"),
    "inference_mode": ("inference mode", "in normal mode", "inference_mode block"),
}
_WHY = {
    "multi_output": (
        "This view is the output of a function that returns multiple views. Such functions do "
        "not allow the output views to be modified inplace. You should replace the inplace "
        "operation by an out-of-place one."
    ),
    "custom_function": (
        "This view was created inside a custom Function (or because an input was returned "
        "as-is) and the autograd logic to handle view+inplace would override the custom "
        "backward associated with the custom Function, leading to incorrect gradients. This "
        "behavior is forbidden. You can fix this by cloning the output of the custom Function."
    ),
}


def creation_of(previous: str | None, new: str | None) -> str | None:
    """How a view of a view was made: its own way unless plain, an inference-mode source's
    way winning (PyTorch's `propagate_creation_meta`)."""
    if new is None or previous == "inference_mode":
        return previous
    return new


def view_rebase_error(view, indirect: bool) -> str:
    """The message for writing into `view` (indirect: into its base or another view of it).
    See Note [Views made without grad]."""
    creation = view._creation
    modified = "its base or another view of its base has been" if indirect else "is being"
    fn = view._grad_fn
    if creation in _WITHOUT_GRAD:
        made_in, mode_now, block = _WITHOUT_GRAD[creation]
        head = (
            f"Output {view._out_nr} of {op_name_of(fn)} is a view of a view which was created in"
            if fn is not None
            else "A view was created in"
        )
        return (
            f"{head} {made_in} and {modified} modified inplace {mode_now}. Given that this use "
            "case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
            f"moving both the view and the inplace either both inside the {block} (if you "
            "don't want the inplace to be tracked) or both outside (if you want the inplace to "
            "be tracked)."
        )
    if fn is not None:
        head = (
            f"Output {view._out_nr} of {op_name_of(fn)} is a view and {modified} modified inplace."
        )
    else:
        head = (
            f"A view was created in no_grad mode and {modified} modified inplace with grad mode "
            "enabled."
        )
    return f"{head} {_WHY[creation]}"
