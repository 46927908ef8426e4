"""Autograd's error texts: PyTorch's first sentence, then what dyngrad knows of the cause."""

from __future__ import annotations

__all__ = ["modified_inplace_error", "type_string", "assigned_grad_error", "explain_no_grad"]

ANOMALY_HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its "
    "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


def type_string(tensor) -> str:
    """PyTorch's legacy type name, `torch.FloatTensor`, and shape: `[torch.FloatTensor [3]]`."""
    prefix = "torch.cuda." if tensor.device.type == "cuda" else "torch."
    shape = ", ".join(str(d) for d in tensor._data.shape)
    return f"[{prefix}{tensor.dtype._legacy}Tensor [{shape}]]"


def modified_inplace_error(node, name, tensor, version, fn, out_nr) -> RuntimeError:
    from ..ops.registry import op_name_of

    where = f", which is output {out_nr} of {op_name_of(fn)}," if fn is not None else ""
    msg = (
        f"one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: {type_string(tensor)}{where} is at version "
        f"{tensor._vc.value}; expected version {version} instead. {ANOMALY_HINT}"
    )
    from .inspect_graph import TORCH_SAVED_NAMES

    vc = tensor._vc
    name = TORCH_SAVED_NAMES.get(name, name)  # `_saved_result`'s name, as PyTorch users know it
    detail = [f"\n[dyngrad] {node.name()} saved this tensor (as '{name}') at version {version}."]
    if vc.last_op is not None:
        site = (f" at {vc.last_site[0]}:{vc.last_site[1]}" if vc.last_site else
                " under no_grad (run with torch.autograd.set_detect_anomaly(True) to record "
                "the line)")
        detail.append(f" It was last modified by {vc.last_op}{site}.")
    detail.append(
        " Fix: use the out-of-place op (x = x.op(...) instead of x.op_(...)), or "
        "clone() the tensor before modifying it."
    )
    return RuntimeError(msg + "".join(detail))


# The latest (file, line) where an op ran with grad mode off on a tensor that requires grad;
# set by the op table, read by `explain_no_grad` for a tensor that carries no mark itself.
last_no_grad_site = None


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
        "with requires_grad_(False), or created without requires_grad=True." + hint
        + " Fix: compute it from tensors that require grad, with grad mode on."
    )


# The C++ element type names PyTorch prints when a `.grad` of the wrong dtype is assigned
_CPP_TYPE_NAMES = {
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "float32": "float",
    "float64": "double",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def assigned_grad_error(tensor, grad) -> RuntimeError:
    """PyTorch's error for `t.grad = g` with `g` of another size or dtype."""
    if grad._data.dtype == tensor._data.dtype:
        return RuntimeError(
            f"attempting to assign a gradient of size '{list(grad._data.shape)}' to a tensor of "
            f"size '{list(tensor._data.shape)}'. Please ensure that the gradient and the tensor "
            "are the same size"
        )
    return RuntimeError(
        f"attempting to assign a gradient with dtype '{_CPP_TYPE_NAMES[grad.dtype.name]}' to a "
        f"tensor with grad_dtype '{tensor.dtype._legacy}'. The gradient must match the tensor's "
        "grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype "
        "attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with "
        "caution. Diverging the dtypes of a tensor and its gradient may break downstream "
        "systems that assume they match."
    )
