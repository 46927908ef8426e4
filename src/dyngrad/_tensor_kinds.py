"""Tensor's device-kind and layout predicates (`is_mps`, `is_sparse`, ...), as PyTorch's.

dyngrad tensors are dense and strided, so the layout predicates are always False; the
device predicates read the tensor's device, as PyTorch's do.
"""

from __future__ import annotations

__all__ = ["install"]

# PyTorch's Tensor.is_<kind> for a device type of the same name
_DEVICE_KINDS = ("xpu", "mps", "meta", "ipu", "xla", "mtia", "maia", "vulkan")
_LAYOUT_KINDS = ("sparse", "sparse_csr", "quantized", "mkldnn", "nested")


def _device_predicate(kind: str) -> property:
    def predicate(self) -> bool:
        return self.device.type == kind

    predicate.__name__ = f"is_{kind}"
    predicate.__doc__ = f"Matches `torch.Tensor.is_{kind}`: whether the tensor is on '{kind}'."
    return property(predicate)


def _layout_predicate(kind: str) -> property:
    def predicate(self) -> bool:
        return False

    predicate.__name__ = f"is_{kind}"
    predicate.__doc__ = f"Matches `torch.Tensor.is_{kind}`: always False (dense tensors only)."
    return property(predicate)


def install(cls) -> None:
    """Give `cls` (Tensor) the predicates it does not define itself."""
    for kind in _DEVICE_KINDS:
        if f"is_{kind}" not in vars(cls):
            setattr(cls, f"is_{kind}", _device_predicate(kind))
    for kind in _LAYOUT_KINDS:
        if f"is_{kind}" not in vars(cls):
            setattr(cls, f"is_{kind}", _layout_predicate(kind))
