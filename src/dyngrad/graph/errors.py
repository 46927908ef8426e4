"""The graph's error texts: PyTorch's first sentence, then what dyngrad knows of the cause."""

from __future__ import annotations

from .._tensor_errors import type_string
from .node import op_name_of
from .saved import TORCH_SAVED_NAMES

__all__ = ["modified_inplace_error", "last_no_grad_site"]

ANOMALY_HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its "
    "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


def modified_inplace_error(node, name, tensor, version, fn, out_nr) -> RuntimeError:
    where = f", which is output {out_nr} of {op_name_of(fn)}," if fn is not None else ""
    msg = (
        f"one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: {type_string(tensor)}{where} is at version "
        f"{tensor._version_counter.value}; expected version {version} instead. {ANOMALY_HINT}"
    )
    counter = tensor._version_counter
    name = TORCH_SAVED_NAMES.get(name, name)  # `_saved_result`'s name, as PyTorch users know it
    saver = node if isinstance(node, str) else node.name()  # a node, or who else saved it
    detail = [f"\n[dyngrad] {saver} saved this tensor (as '{name}') at version {version}."]
    if counter.last_op is not None:
        site = (
            f" at {counter.last_site[0]}:{counter.last_site[1]}"
            if counter.last_site
            else " under no_grad (run with torch.autograd.set_detect_anomaly(True) to record "
            "the line)"
        )
        detail.append(f" It was last modified by {counter.last_op}{site}.")
    detail.append(
        " Fix: use the out-of-place op (x = x.op(...) instead of x.op_(...)), or "
        "clone() the tensor before modifying it."
    )
    return RuntimeError(msg + "".join(detail))


# The latest (file, line) where an op ran with grad mode off on a tensor that requires grad;
# set by the op table, read by `explain_no_grad` for a tensor that carries no mark itself.
last_no_grad_site = None
