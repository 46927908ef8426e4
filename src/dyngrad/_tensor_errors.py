"""Errors about a tensor itself: its legacy type name, a `.grad` assignment that does not fit."""

from __future__ import annotations

__all__ = ["type_string", "check_assigned_grad", "check_grad_dtype"]


def type_string(tensor) -> str:
    """PyTorch's legacy type name, `torch.FloatTensor`, and shape: `[torch.FloatTensor [3]]`."""
    prefix = "torch.cuda." if tensor.device.type == "cuda" else "torch."
    shape = ", ".join(str(d) for d in tensor._data.shape)
    return f"[{prefix}{tensor.dtype._legacy}Tensor [{shape}]]"


# The C++ element type names (c10's TypeMeta) PyTorch prints in messages: a `.grad` of the wrong
# dtype assigned, a masked or product dtype mismatch, ...
CPP_TYPE_NAMES = {
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


def check_assigned_grad(tensor, grad, grad_dtype) -> None:
    """PyTorch's checks of `t.grad = g` (`g` a Tensor): not `t` itself, of `t`'s grad_dtype
    (any if None), device type and size."""
    if grad is tensor:
        raise RuntimeError("can't assign Variable as its own grad")
    if grad_dtype is not None and grad.dtype is not grad_dtype:
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{CPP_TYPE_NAMES[grad.dtype.name]}' "
            f"to a tensor with grad_dtype '{grad_dtype._legacy}'. The gradient must match the "
            "tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
            "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set "
            "grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may "
            "break downstream systems that assume they match."
        )
    if grad.device != tensor.device:
        raise RuntimeError(
            f"attempting to assign a gradient with device type '{grad.device.type}' to a "
            f"tensor with device type '{tensor.device.type}'. Please ensure that the gradient "
            "and the tensor are on the same device"
        )
    if grad._data.shape != tensor._data.shape:
        raise RuntimeError(
            f"attempting to assign a gradient of size '{list(grad._data.shape)}' to a tensor of "
            f"size '{list(tensor._data.shape)}'. Please ensure that the gradient and the tensor "
            "are the same size"
        )


def check_grad_dtype(tensor, dtype, setting: bool) -> None:
    """PyTorch's checks of reading or setting `t.grad_dtype`."""
    if tensor._grad_fn is not None:
        what = "set" if setting else "accessed"
        raise RuntimeError(f"grad_dtype can only be {what} on leaf tensors.")
    if not setting:
        return
    if dtype is not None and type(dtype) is not type(tensor.dtype):
        raise RuntimeError(
            f"grad_dtype must be a torch.dtype or None, but got {type(dtype).__name__}"
        )
    grad = tensor._grad
    if dtype is not None and grad is not None and grad.dtype is not dtype:
        raise RuntimeError(
            f"Cannot set grad_dtype to '{dtype._legacy}' because there is already a gradient "
            f"with dtype '{CPP_TYPE_NAMES[grad.dtype.name]}'. Please clear the gradient (.grad "
            "= None) before changing grad_dtype, or ensure the new grad_dtype matches the "
            "existing gradient's dtype."
        )
