"""Autograd's error texts: PyTorch's first sentence, then what dyngrad knows of the cause."""

from __future__ import annotations

__all__ = ["modified_inplace_error", "type_string"]

ANOMALY_HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its "
    "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")


def type_string(tensor) -> str:
    """PyTorch's legacy type name, `torch.FloatTensor`, and shape: `[torch.FloatTensor [3]]`."""
    prefix = "torch.cuda." if tensor.device.type == "cuda" else "torch."
    shape = ", ".join(str(d) for d in tensor._data.shape)
    return f"[{prefix}{tensor.dtype._legacy}Tensor [{shape}]]"


def modified_inplace_error(node, name, tensor, version, fn, out_nr) -> RuntimeError:
    from ..ops.registry import op_name_of

    where = f", which is output {out_nr} of {op_name_of(fn)}," if fn is not None else ""
    msg = (f"one of the variables needed for gradient computation has been modified by an "
           f"inplace operation: {type_string(tensor)}{where} is at version "
           f"{tensor._vc.value}; expected version {version} instead. {ANOMALY_HINT}")
    vc = tensor._vc
    detail = [f"\n[dyngrad] {node.name()} saved this tensor (as '{name}') at version {version}."]
    if vc.last_op is not None:
        site = f" at {vc.last_site[0]}:{vc.last_site[1]}" if vc.last_site else ""
        detail.append(f" It was last modified by {vc.last_op}{site}.")
    detail.append(" Fix: use the out-of-place op (x = x.op(...) instead of x.op_(...)), or "
                  "clone() the tensor before modifying it.")
    return RuntimeError(msg + "".join(detail))


def explain_no_grad(t) -> str:
    """Why a tensor has no history: dyngrad's line after PyTorch's "does not require grad"."""
    return ("\n[dyngrad] The tensor is a leaf with requires_grad=False: it was created without "
            "requires_grad=True, computed under torch.no_grad()/inference_mode(), or cut from "
            "the graph by .detach(), .data or a NumPy round trip. Fix: compute it from tensors "
            "that require grad, with grad mode on.")
