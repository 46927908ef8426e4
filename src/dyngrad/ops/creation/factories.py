"""Creation ops: tensor, zeros/ones/full/empty, ranges, and the *_like forms.

Created tensors are leaves; none records history, in any grad mode.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..._tensor import Tensor
from ...runtime import device as Device
from ...runtime import dtypes
from ...runtime.dtypes import defaults, from_numpy_dtype
from ...runtime.memory_format import check_format, check_rank, in_format
from ...runtime.memory_format import like as laid_out_like
from ...runtime.transfer import to_device
from ..table.argument_errors import method_offset, type_name
from ..table.arguments import allocation_error, fill_value, int_list, new_shape, size_arg
from ..table.record import replayable
from ..table.surface import public

REQUIRES_GRAD_DTYPE = "Only Tensors of floating point and complex dtype can require gradients"


def _leaf(array, requires_grad: bool = False, device=None) -> Tensor:
    if device is not None:
        to_device(Tensor._wrap(array), Device(device))
    if requires_grad and array.dtype.kind not in "fcV":  # V: See Note [bfloat16 on demand]
        raise RuntimeError(REQUIRES_GRAD_DTYPE)
    return Tensor._wrap(array, bool(requires_grad))


def _np_dtype(dtype, fallback=None):
    if dtype is None:
        return (fallback or defaults.float).np
    if isinstance(dtype, dtypes.dtype):
        return dtype.np
    if dtype in (float, "float"):
        return defaults.float.np
    if dtype is int:
        return np.int64
    if dtype is bool:
        return np.bool_
    return from_numpy_dtype(dtype).np


def _infer(data, dtype=None) -> np.ndarray:
    """A NumPy array for Python data, with PyTorch's dtype inference unless `dtype` is given.

    Python numbers go to the requested dtype directly: `tensor([0.1], dtype=float64)` must not
    pass through float32 on the way.
    """
    if isinstance(data, np.ndarray):
        from_numpy_dtype(data.dtype)  # validate
        return data
    if isinstance(data, np.generic):
        return np.asarray(data)
    if isinstance(data, Tensor):
        return data._data
    element_types: set = set()
    flat = _unwrap(data, element_types)
    try:
        array = np.array(flat)
    except ValueError as exc:
        raise ValueError(_ragged_message(flat) or str(exc)) from None
    if array.dtype.kind in "US":
        raise TypeError(f"new(): invalid data type '{array.dtype.kind == 'U' and 'str'}'")
    if array.dtype == object:
        ragged = _ragged_message(flat)
        if ragged:
            raise ValueError(ragged)
    big = _BIG_INT in element_types
    element_types.discard(_BIG_INT)
    target = _np_dtype(dtype) if dtype is not None else _promoted(element_types).np
    if big and np.dtype(target).kind in "iu":  # PyTorch reads each int element as int64
        raise ValueError("Overflow when unpacking long long")
    if array.dtype == object:
        array = _from_objects(flat, np.dtype(target))
    _check_elements(array, from_numpy_dtype(target))
    return array.astype(target, copy=False)


def _from_objects(flat, target: np.dtype) -> np.ndarray:
    # NumPy keeps ints past 64 bits (and None) as objects; PyTorch reads each element alone
    def walk(d):
        if isinstance(d, list):
            return [walk(x) for x in d]
        if d is None:
            raise RuntimeError("Could not infer dtype of NoneType")
        return bool(d) if target.kind == "b" else d

    return np.array(walk(flat), dtype=np.float64 if target.kind in "fb" else target)


def _check_elements(array: np.ndarray, d) -> None:
    """PyTorch's checks of each Python number stored into a new tensor of dtype `d`."""
    kind = array.dtype.kind
    if kind == "c" and d._category in (1, 2):
        raise TypeError(
            "'complex' object cannot be interpreted as an integer"
            if d._category == 1
            else "must be real number, not complex"
        )
    if d._category != 1 or kind not in "iuf" or not array.size:
        return
    info = np.iinfo(d.np)
    # a negative int wraps into uint8 (down to -255), a negative float does not
    lo = -int(info.max) if d is dtypes.uint8 and kind != "f" else int(info.min)
    with np.errstate(invalid="ignore"):
        bad = (array < lo) | (array > info.max)
        if kind == "f":
            bad |= np.isnan(array)
    if bad.any():
        raise RuntimeError(f"value cannot be converted to type {d.name} without overflow")


def _unwrap(data, element_types: set):
    # Python numbers, NumPy scalars and one-element tensors as plain numbers, noting each
    # one's own dtype: PyTorch promotes them (`[1.5, np.float64(2)]` is float64).
    if isinstance(data, (list, tuple)):
        return [_unwrap(d, element_types) for d in data]
    if isinstance(data, Tensor):
        if data._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        element_types.add(data.dtype)
        return data._data.reshape(()).item()
    if isinstance(data, (np.ndarray, np.generic)):
        element_types.add(from_numpy_dtype(data.dtype))
        return data.tolist()
    if type(data) is int and not -(2**63) <= data < 2**63:
        element_types.add(_BIG_INT)
    element_types.add(dtypes.scalar_dtype(data, defaults.float))
    return data


_BIG_INT = "int past int64"  # noted by _unwrap: an error only where the target is an integer


def _promoted(element_types: set) -> dtypes.dtype:
    if not element_types:
        return defaults.float  # torch.tensor([]) is float32
    result = element_types.pop()
    for d in element_types:
        result = dtypes.promote_types(result, d)
    return result


def _ragged_message(data) -> str | None:
    def walk(d, dim):
        if not isinstance(d, list) or not d:
            return None
        lengths = [len(x) if isinstance(x, list) else None for x in d]
        first = lengths[0]
        for n in lengths[1:]:
            if n != first:
                return f"expected sequence of length {first} at dim {dim} (got {n})"
        for x in d:
            msg = walk(x, dim + 1)
            if msg:
                return msg
        return None

    return walk(data, 1)


@public
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """Matches `torch.tensor`: always copies `data`."""
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
            "requires_grad_(True), rather than torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
    return _tensor_data(data, dtype, requires_grad, device)


# A compiled call's replay makes it again (See Note [Replayable sources]); its trace refuses
# data it can't: an array of unknown origin, a list from before the call (which could change
# in place between calls unseen by a replay's guards)
@replayable
def _tensor_data(data, dtype, requires_grad, device) -> Tensor:
    array = _infer(data, dtype)
    array = np.array(array, dtype=_np_dtype(dtype, from_numpy_dtype(array.dtype)), copy=True)
    return _leaf(array, requires_grad, device)


@public
def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Matches `torch.as_tensor`: shares memory with a NumPy array or tensor when it can."""
    if isinstance(data, Tensor):
        return data if dtype is None or dtype.np == data._data.dtype else data.to(dtype)
    array = _infer(data, dtype)
    if dtype is not None:
        array = array.astype(_np_dtype(dtype), copy=False)
    return _leaf(array, False, device)


asarray = public(as_tensor, name="asarray")


@public
def from_numpy(ndarray) -> Tensor:
    """Matches `torch.from_numpy`: the tensor and the array share memory."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    from_numpy_dtype(ndarray.dtype)
    return Tensor._wrap(ndarray)


def allocate(shape: tuple, np_dtype, make, negative: str | None = None) -> np.ndarray:
    """`make(shape, np_dtype)` after PyTorch's checks of a new shape, with its allocator's
    error when the memory is not there. See Note [Argument checks]."""
    itemsize = (np_dtype if isinstance(np_dtype, np.dtype) else np.dtype(np_dtype)).itemsize
    new_shape(shape, itemsize, negative)
    try:
        return make(shape, np_dtype)
    except MemoryError:
        raise allocation_error(math.prod(shape) * itemsize) from None


def _fill_array(shape, np_dtype, fill):
    if fill is None or fill == 0:
        return np.zeros(shape, np_dtype)
    return np.full(shape, fill, np_dtype)


@replayable  # See Note [Replayable sources]
def _filled(fn, fill, shape, dtype, requires_grad, device, fallback=None, negative=None):
    np_dtype = _np_dtype(dtype, fallback)
    if fill is not None and fill != 0:
        d = (
            dtype
            if isinstance(dtype, dtypes.dtype)
            else (fallback or defaults.float if dtype is None else from_numpy_dtype(np_dtype))
        )
        fill = fill_value(fill, d)
    array = allocate(shape, np_dtype, lambda s, d: _fill_array(s, d, fill), negative)
    return _leaf(array, requires_grad, device)


@public
def zeros(
    *sizes,
    size=None,
    dtype=None,
    device=None,
    requires_grad=False,
    out=None,
    layout=None,
    pin_memory=False,
) -> Tensor:
    """Matches `torch.zeros`: `zeros(2, 3)`, `zeros((2, 3))` or `zeros(size=(2, 3))`."""
    shape = size_arg("zeros", sizes, size)
    return _filled(
        "zeros",
        0,
        shape,
        dtype,
        requires_grad,
        device,
        negative="zeros: Dimension size must be non-negative.",
    )


@public
def ones(
    *sizes,
    size=None,
    dtype=None,
    device=None,
    requires_grad=False,
    out=None,
    layout=None,
    pin_memory=False,
) -> Tensor:
    """Matches `torch.ones`."""
    return _filled("ones", 1, size_arg("ones", sizes, size), dtype, requires_grad, device)


@public
def empty(
    *sizes,
    size=None,
    dtype=None,
    device=None,
    requires_grad=False,
    out=None,
    layout=None,
    pin_memory=False,
    memory_format=None,
) -> Tensor:
    """Matches `torch.empty` (dyngrad fills with zeros: uninitialised memory helps no one)."""
    shape = size_arg("empty", sizes, size)
    fmt = check_format("empty", memory_format)
    check_rank(len(shape), fmt)
    t = _filled("empty", None, shape, dtype, requires_grad, device)
    if fmt is not None and fmt._order is not None:
        t._data = in_format(t._data, fmt)
    return t


def _fill_value(fn: str, value, position: int):
    if not isinstance(value, (int, float, complex, np.number, Tensor)):
        position -= method_offset()
        raise TypeError(
            f"{fn}(): argument 'fill_value' (position {position}) must be Number, "
            f"not {type_name(value)}"
        )
    return value.item() if isinstance(value, Tensor) else value


@public
def full(
    size,
    fill_value,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
    out=None,
    layout=None,
    pin_memory=False,
) -> Tensor:
    """Matches `torch.full`: the dtype follows `fill_value` when not given."""
    shape = int_list("full", (size,), varargs=False)
    fill_value = _fill_value("full", fill_value, 2)
    fallback = dtypes.scalar_dtype(fill_value, defaults.float)
    return _filled("full", fill_value, shape, dtype, requires_grad, device, fallback)


@public(method=False)
def scalar_tensor(
    s, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=None
) -> Tensor:
    """Matches `torch.scalar_tensor`: a 0-d tensor, of the default dtype unless told."""
    return _filled(
        "scalar_tensor", _fill_value("scalar_tensor", s, 1), (), dtype, requires_grad, device
    )


def _like(fill, name):
    def like(
        input,
        *,
        dtype=None,
        device=None,
        requires_grad=False,
        layout=None,
        memory_format=None,
        pin_memory=False,
    ):
        t = _filled(name, fill, input._data.shape, dtype or input.dtype, requires_grad, device)
        t._data = laid_out_like(t._data, input._data, memory_format, name)
        return t

    like.__name__ = name
    like.__doc__ = f"Matches `torch.{name}`, the input's channels-last layout kept."
    return public(like, name=name)


zeros_like = _like(0, "zeros_like")
ones_like = _like(1, "ones_like")
empty_like = _like(0, "empty_like")


@public
def full_like(
    input,
    fill_value,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
    layout=None,
    memory_format=None,
    pin_memory=False,
) -> Tensor:
    fill_value = _fill_value("full_like", fill_value, 2)
    t = _filled(
        "full_like", fill_value, input._data.shape, dtype or input.dtype, requires_grad, device
    )
    t._data = laid_out_like(t._data, input._data, memory_format, "full_like")
    return t
