"""`Parameter` and `Buffer`: the tensors a Module registers when they are assigned to it."""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..runtime.dtypes import defaults

__all__ = ["Parameter", "Buffer", "is_lazy"]


class Parameter(Tensor):
    """Matches `torch.nn.Parameter`: a leaf that requires grad, registered on assignment.

    `Parameter(t)` shares `t`'s array and version counter, as PyTorch's does.
    """

    _plain_repr = True  # printed as "tensor(" (PyTorch's rule: Tensor and Parameter only)

    def __new__(cls, data=None, requires_grad: bool = True):
        if data is None:
            data = Tensor._wrap(np.empty((0,), defaults.float.np))
        self = object.__new__(cls)
        self._init(data._data, False, None)
        self._version_counter = data._version_counter
        if requires_grad:
            if not (self.is_floating_point() or self.is_complex()):
                raise RuntimeError(
                    "Only Tensors of floating point and complex dtype can require gradients"
                )
            self._requires_grad = True
        return self

    def __init__(self, data=None, requires_grad: bool = True):
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        # PyTorch's: a new Parameter over a copy of the values; no grad, hooks or attributes
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(Tensor._wrap(self._data.copy(order="K")), self._requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self._data.copy(), self._requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(Tensor._wrap(data), requires_grad)


class _BufferMeta(type):
    # `isinstance(t, Buffer)` is true for a tensor made by `Buffer(...)`, as in PyTorch
    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, Tensor) and "_buffer_persistent" in getattr(
            instance, "__dict__", {}
        )


class Buffer(metaclass=_BufferMeta):
    """Matches `torch.nn.Buffer`: a tensor that registers as a buffer when assigned."""

    def __new__(cls, data=None, *, persistent: bool = True):
        if data is None:
            data = Tensor._wrap(np.empty((0,), defaults.float.np))
        out = data.detach()
        out.__dict__["_buffer_persistent"] = persistent
        return out


def is_lazy(param) -> bool:
    """Matches `torch.nn.parameter.is_lazy`: False, as dyngrad has no lazy modules."""
    return False
