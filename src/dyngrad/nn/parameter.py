"""`Parameter` and `Buffer`: the tensors a Module registers when they are assigned to it; their
uninitialized forms, which lazy modules hold until their first call."""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..ops.creation.factories import empty
from ..runtime import device_of
from ..runtime.dtypes import defaults, from_numpy_dtype
from ..size import Size

__all__ = [
    "Parameter",
    "Buffer",
    "UninitializedBuffer",
    "UninitializedParameter",
    "UninitializedTensorMixin",
    "is_lazy",
]


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


# Note [Uninitialized tensors]
# An uninitialized parameter holds an empty array it never shows: every op reads a tensor's
# array through `_data`, which here raises PyTorch's ValueError, so any use before the lazy
# module's first call fails loudly. What PyTorch allows on it (dtype, device, requires_grad,
# size(), repr, pickling) reads the array through the slot itself. `materialize` gives it an
# array of the inferred shape and turns it, in place, into the class it becomes (Parameter or
# Tensor): optimizers and state dicts that hold it see the same object, initialized.
_ARRAY = Tensor._data  # the slot, under the `_data` property below


class UninitializedTensorMixin:
    """What uninitialized parameters and buffers share (Matches PyTorch's mixin)."""

    __slots__ = ()
    cls_to_become: type = Tensor

    @property
    def _data(self):
        raise ValueError(
            "Attempted to use an uninitialized parameter in an operation. This error happens "
            "when you are using a `LazyModule` or explicitly manipulating "
            f"`torch.nn.parameter.{type(self).__name__}` objects. When using LazyModules Call "
            "`forward` with a dummy batch to initialize the parameters before calling torch "
            "functions"
        )

    @_data.setter
    def _data(self, value) -> None:
        _ARRAY.__set__(self, value)

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Matches `UninitializedParameter.materialize`: an (uninitialized) array of `shape`,
        and the object becomes a Parameter (a Tensor for a buffer)."""
        array = _ARRAY.__get__(self)
        dtype = dtype if dtype is not None else from_numpy_dtype(array.dtype)
        device = device if device is not None else device_of(array)
        _ARRAY.__set__(self, empty(shape, device=device, dtype=dtype)._data)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error "
            "usually happens in `load_state_dict` when trying to load an uninitialized "
            "parameter into an initialized one. Call `forward` to initialize the parameters "
            "before accessing their attributes."
        )

    def size(self, dim=None):
        return Size(_ARRAY.__get__(self).shape) if dim is None else 0

    @property
    def dtype(self):
        return from_numpy_dtype(_ARRAY.__get__(self).dtype)

    @property
    def device(self):
        return device_of(_ARRAY.__get__(self))

    def is_floating_point(self) -> bool:
        return _ARRAY.__get__(self).dtype.kind in "fV"

    def is_complex(self) -> bool:
        return _ARRAY.__get__(self).dtype.kind == "c"

    @property
    def data(self):
        return self._converted(lambda t: t)

    @data.setter
    def data(self, value) -> None:  # (a module's `to` sets a converted uninitialized tensor)
        _ARRAY.__set__(self, _ARRAY.__get__(value))

    def _converted(self, convert):
        """A new uninitialized tensor of this type over `convert` of the empty array: what
        the conversions PyTorch allows (to, float, cpu, ...) give, so a module's `to` works."""
        out = object.__new__(type(self))
        out._init(convert(Tensor._wrap(_ARRAY.__get__(self)))._data, self._requires_grad, None)
        out.__dict__.update(self.__dict__)
        return out

    def to(self, *args, **kwargs):
        return self._converted(lambda t: t.to(*args, **kwargs))

    def cpu(self):
        return self._converted(lambda t: t.cpu())

    def cuda(self, device=None, non_blocking=False):
        return self._converted(lambda t: t.cuda(device, non_blocking))

    def half(self):
        return self._converted(lambda t: t.half())

    def float(self):
        return self._converted(lambda t: t.float())

    def double(self):
        return self._converted(lambda t: t.double())

    def bfloat16(self):
        return self._converted(lambda t: t.bfloat16())

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`."
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, protocol):
        return (type(self), (self._requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self._requires_grad, self.device, self.dtype)
        return memo[id(self)]


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """Matches `torch.nn.parameter.UninitializedParameter`: a parameter whose shape a lazy
    module infers on its first call. See Note [Uninitialized tensors]."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        self = object.__new__(cls)
        self._init(empty(0, device=device, dtype=dtype)._data, requires_grad, None)
        return self

    def __init__(self, *args, **kwargs):
        pass  # __new__ made it


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """Matches `torch.nn.parameter.UninitializedBuffer`: a buffer whose shape a lazy module
    infers on its first call. See Note [Uninitialized tensors]."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None, persistent=True):
        self = object.__new__(cls)
        self._init(empty(0, device=device, dtype=dtype)._data, requires_grad, None)
        self.__dict__["_buffer_persistent"] = persistent
        return self


def is_lazy(param) -> bool:
    """Matches `torch.nn.parameter.is_lazy`: whether `param` is still uninitialized."""
    return isinstance(param, UninitializedTensorMixin)
