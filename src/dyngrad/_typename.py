"""`torch.typename`: the name PyTorch prints for an object's type in its messages."""

from __future__ import annotations

from ._tensor import Tensor

__all__ = ["typename"]


def typename(obj) -> str:
    """Matches `torch.typename`, naming dyngrad's classes as PyTorch's."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    if module.startswith("dyngrad"):
        module = "torch" + module[len("dyngrad") :]
    return f"{module}.{qualname}" if module and module != "builtins" else qualname
