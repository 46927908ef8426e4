"""`torch.autograd.Variable`: since PyTorch 0.4 only a name for Tensor, kept for old code."""

from __future__ import annotations

from .._tensor import Tensor
from ..ops.creation.factories import tensor
from .execution_engine import execution_engine

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)  # every tensor is a Variable, as in PyTorch


class Variable(metaclass=_VariableMeta):
    """Matches `torch.autograd.Variable(data, requires_grad=False)`: a new leaf on `data`'s
    array, sharing its version counter (so in-place writes are seen by both)."""

    _execution_engine = execution_engine

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if data is None:
            return tensor([])
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        out.requires_grad = requires_grad
        return out
