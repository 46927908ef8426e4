"""Tensor's device-kind and layout predicates (`is_mps`, `is_sparse`, ...) and its `layout`,
as PyTorch's.

dyngrad tensors are strided or sparse COO (Note [Sparse COO arrays]), so `is_sparse` reads
the tensor's storage and the other layout predicates are always False; the device
predicates read the tensor's device, as PyTorch's do.
"""

from __future__ import annotations

from .runtime.layouts import sparse_coo, strided
from .runtime.sparse_coo import SparseCOO

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


def _is_sparse(self) -> bool:
    """Matches `torch.Tensor.is_sparse`: whether the tensor is sparse COO."""
    return type(self._data) is SparseCOO


def _layout(self):
    """Matches `torch.Tensor.layout`: `torch.sparse_coo` or `torch.strided`."""
    return sparse_coo if type(self._data) is SparseCOO else strided


def install(cls) -> None:
    """Give `cls` (Tensor) the predicates it does not define itself."""
    cls.is_sparse = property(_is_sparse)
    cls.layout = property(_layout)
    for kind in _DEVICE_KINDS:
        if f"is_{kind}" not in vars(cls):
            setattr(cls, f"is_{kind}", _device_predicate(kind))
    for kind in _LAYOUT_KINDS:
        if f"is_{kind}" not in vars(cls):
            setattr(cls, f"is_{kind}", _layout_predicate(kind))
