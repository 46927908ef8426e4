"""Autograd's error texts: PyTorch's first sentence, then what dyngrad knows of the cause."""

from __future__ import annotations

from ..graph import errors as graph_errors

__all__ = ["explain_no_grad"]


def explain_no_grad(t) -> str:
    """Why a tensor has no history: dyngrad's line after PyTorch's "does not require grad"."""
    if "_nograd_site" in t.__dict__:  # marked by the op that ran with grad mode off
        site = t.__dict__["_nograd_site"]
        where = f" at {site[0]}:{site[1]}" if site else ""
        return (
            f"\n[dyngrad] The tensor was computed under torch.no_grad() (or "
            f"set_grad_enabled(False)){where} from tensors that require grad, so no graph "
            "was recorded. Fix: compute it with grad mode on (outside the no_grad block)."
        )
    if type(t).__name__ == "Parameter":
        return (
            "\n[dyngrad] The tensor is a parameter with requires_grad=False (frozen, e.g. by "
            "requires_grad_(False)): there is nothing to differentiate. Fix: call "
            "requires_grad_(True) on it if it should train, or call backward() on a loss "
            "computed from the trainable parameters."
        )
    hint = ""
    last_no_grad_site = graph_errors.last_no_grad_site
    if last_no_grad_site is not None:
        hint = (
            " The latest op run under torch.no_grad() on tensors that require grad was at "
            f"{last_no_grad_site[0]}:{last_no_grad_site[1]}; if this tensor was computed "
            "from its result, that is where the graph was cut."
        )
    return (
        "\n[dyngrad] The tensor has no grad_fn and requires_grad=False: none of the tensors "
        "it was computed from required grad. Either they were all cut from the graph "
        "(.detach(), .data, .numpy() and back, or made under torch.no_grad()), or frozen "
        "with requires_grad_(False), or created without requires_grad=True."
        + hint
        + " Fix: compute it from tensors that require grad, with grad mode on."
    )
