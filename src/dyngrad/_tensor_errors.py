"""Errors about a tensor itself: its legacy type name, a `.grad` assignment that does not fit."""

from __future__ import annotations

__all__ = ["type_string", "assigned_grad_error"]


def type_string(tensor) -> str:
    """PyTorch's legacy type name, `torch.FloatTensor`, and shape: `[torch.FloatTensor [3]]`."""
    prefix = "torch.cuda." if tensor.device.type == "cuda" else "torch."
    shape = ", ".join(str(d) for d in tensor._data.shape)
    return f"[{prefix}{tensor.dtype._legacy}Tensor [{shape}]]"


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
