"""`Tensor.apply_`, `map_` and `map2_`: a Python callable over each element, in place.

As PyTorch's: CPU tensors outside autograd only, the elements visited in logical (row-major)
order as Python numbers (bool, int, float or complex by dtype), each result converted back
with PyTorch's checks, and no version bump (PyTorch counts none, so a saved tensor changed
this way is not caught: the same silent trap as PyTorch's).
"""

from __future__ import annotations

import operator

import numpy as np

from ..._tensor import Tensor
from ..table.argument_errors import legacy_type, type_name
from ..table.surface import public

_INT64 = (-(2**63), 2**63 - 1)


def _check_grad(name: str, tensors) -> None:
    if any(t._requires_grad for t in tensors):
        raise RuntimeError(
            f"Can't call {name}() on Variable that requires grad. Use "
            f"var.detach().{name}() instead."
        )


def _same_type(name: str, self: Tensor, other, argument: str, position: int, label: str):
    if not isinstance(other, Tensor):
        raise TypeError(
            f"{name}(): argument '{argument}' (position {position}) must be Tensor, not "
            f"{type_name(other)}"
        )
    if other.dtype is not self.dtype:
        raise TypeError(
            f"{name}: expected {legacy_type(self)} for {label} (got {legacy_type(other)})"
        )
    return other.expand(self.shape)._data


def _to_int(value, dtype: np.dtype) -> int:
    # PyTorch unpacks a long long (a float truncates, anything else goes through __index__),
    # then checks the element type's range as c10::checked_convert does: an unsigned type
    # takes -max..max and wraps the negatives
    value = int(value) if isinstance(value, float) else operator.index(value)
    if not _INT64[0] <= value <= _INT64[1]:
        raise ValueError("Overflow when unpacking long long")
    info = np.iinfo(dtype)
    low = -int(info.max) if info.min == 0 else int(info.min)
    if not low <= value <= int(info.max):
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")
    return value % (int(info.max) + 1) if value < 0 and info.min == 0 else value


def _to_real(value) -> float:
    if isinstance(value, (str, bytes, complex)) or not (
        hasattr(value, "__float__") or hasattr(value, "__index__")
    ):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    return float(value)


def _converter(dtype: np.dtype):
    if dtype.kind == "b":
        return bool
    if dtype.kind in "iu":
        return lambda value: _to_int(value, dtype)
    if dtype.kind == "c":
        return complex
    return _to_real


def _python_values(data: np.ndarray) -> list:
    # the elements as the callable sees them: Python numbers, float16/bfloat16 as floats
    if data.dtype.kind == "V" or data.dtype == np.float16:
        data = data.astype(np.float64)
    return data.reshape(-1).tolist()


def _write(self: Tensor, fn, *columns) -> Tensor:
    data = self._data
    convert = _converter(data.dtype)
    results = [convert(fn(*values)) for values in zip(*columns)]
    if results:
        # NumPy rounds a double to float32/float16 as C's cast does; ints were range-checked
        data[...] = np.array(results).reshape(data.shape)
    return self


@public(function=False)
def apply_(self, callable):
    """Matches `torch.Tensor.apply_`: `self[i] = callable(self[i])` for each element."""
    _check_grad("apply_", (self,))
    return _write(self, callable, _python_values(self._data))


@public(function=False)
def map_(self, tensor, callable):
    """Matches `torch.Tensor.map_`: `self[i] = callable(self[i], tensor[i])`, `tensor`
    broadcast to self's shape."""
    other = _same_type("map_", self, tensor, "other", 1, "'other'")
    _check_grad("map_", (self, tensor))
    return _write(self, callable, _python_values(self._data), _python_values(other))


@public(function=False)
def map2_(self, x, y, callable):
    """Matches `torch.Tensor.map2_`: `self[i] = callable(self[i], x[i], y[i])`."""
    first = _same_type("map2_", self, x, "x", 1, "argument 'x'")
    second = _same_type("map2_", self, y, "y", 2, "argument 'y'")
    _check_grad("map2_", (self, x, y))
    columns = (_python_values(self._data), _python_values(first), _python_values(second))
    return _write(self, callable, *columns)
