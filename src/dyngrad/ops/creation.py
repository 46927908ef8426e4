"""Creation ops: tensor, zeros/ones/full/empty, ranges, and the *_like forms.

Created tensors are leaves; none records history, in any grad mode.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor
from ..backend import dtypes
from ..backend.dtypes import defaults, from_numpy_dtype
from .shape import shape_arg
from .surface import public

REQUIRES_GRAD_DTYPE = "Only Tensors of floating point and complex dtype can require gradients"


def _leaf(array, requires_grad: bool = False, device=None) -> Tensor:
    if device is not None:
        from ..backend import device as Device
        from ..backend.transfer import to_device

        to_device(Tensor._wrap(array), Device(device))
    if requires_grad and array.dtype.kind not in "fc" and array.dtype != dtypes.bfloat16.np:
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
    if array.dtype == object:
        raise ValueError(_ragged_message(flat) or f"Could not infer dtype of {type(flat).__name__}")
    if array.dtype.kind in "US":
        raise TypeError(f"new(): invalid data type '{array.dtype.kind == 'U' and 'str'}'")
    target = _np_dtype(dtype) if dtype is not None else _promoted(element_types).np
    return array.astype(target, copy=False)


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
    element_types.add(dtypes.scalar_dtype(data, defaults.float))
    return data


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


def _check_shape(shape) -> None:
    for s in shape:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}"
            )


def _filled(fill, size, dtype, requires_grad, device, fallback=None) -> Tensor:
    shape = shape_arg(size)
    _check_shape(shape)
    np_dtype = _np_dtype(dtype, fallback)
    if fill is None:
        array = np.empty(shape, np_dtype)
    elif fill == 0:
        array = np.zeros(shape, np_dtype)
    else:
        array = np.full(shape, fill, np_dtype)
    return _leaf(array, requires_grad, device)


@public
def zeros(
    *size, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False
) -> Tensor:
    """Matches `torch.zeros`."""
    if any(s < 0 for s in shape_arg(size)):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return _filled(0, size, dtype, requires_grad, device)


@public
def ones(
    *size, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False
) -> Tensor:
    """Matches `torch.ones`."""
    return _filled(1, size, dtype, requires_grad, device)


@public
def empty(
    *size,
    dtype=None,
    device=None,
    requires_grad=False,
    out=None,
    layout=None,
    pin_memory=False,
    memory_format=None,
) -> Tensor:
    """Matches `torch.empty` (dyngrad fills with zeros: uninitialised memory helps no one)."""
    return _filled(0, size, dtype, requires_grad, device)


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
    fallback = dtypes.scalar_dtype(fill_value, defaults.float)
    return _filled(
        fill_value,
        (tuple(size),) if not isinstance(size, int) else (size,),
        dtype,
        requires_grad,
        device,
        fallback,
    )


def _like(fill):
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
        return _filled(fill, input._data.shape, dtype or input.dtype, requires_grad, device)

    return like


zeros_like = public(_like(0), name="zeros_like")
ones_like = public(_like(1), name="ones_like")
empty_like = public(_like(0), name="empty_like")


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
    return _filled(fill_value, input._data.shape, dtype or input.dtype, requires_grad, device)


@public
def arange(
    start,
    end=None,
    step=1,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
    out=None,
    layout=None,
    pin_memory=False,
) -> Tensor:
    """Matches `torch.arange`: integer arguments give int64, any float the default dtype."""
    if end is None:
        start, end = 0, start
    start, end, step = (_number(v) for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    is_float = any(isinstance(v, float) for v in (start, end, step))
    fallback = defaults.float if is_float else dtypes.int64
    np_dtype = _np_dtype(dtype, fallback)
    n = int(np.ceil((end - start) / step))
    array = (
        (start + step * np.arange(n, dtype=np.float64)).astype(np_dtype)
        if is_float
        else np.arange(start, end, step, dtype=np.int64).astype(np_dtype)
    )
    return _leaf(array, requires_grad, device)


def _number(v):
    return v.item() if isinstance(v, Tensor) else v


@public
def linspace(
    start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None, layout=None
) -> Tensor:
    """Matches `torch.linspace`."""
    array = np.linspace(_number(start), _number(end), int(steps)).astype(_np_dtype(dtype))
    return _leaf(array, requires_grad, device)


@public
def logspace(
    start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False
) -> Tensor:
    """Matches `torch.logspace`."""
    array = np.logspace(start, end, int(steps), base=base).astype(_np_dtype(dtype))
    return _leaf(array, requires_grad, device)


@public
def eye(
    n, m=None, *, dtype=None, device=None, requires_grad=False, out=None, layout=None
) -> Tensor:
    """Matches `torch.eye`."""
    return _leaf(
        np.eye(n, m if m is not None else n, dtype=_np_dtype(dtype)), requires_grad, device
    )


# ---- Tensor.new_* ----------------------------------------------------------------------------


def _new(fill):
    def new(
        self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False
    ):
        return _filled(fill, size, dtype or self.dtype, requires_grad, device)

    return new


public(_new(0), name="new_zeros", function=False)
public(_new(1), name="new_ones", function=False)
public(_new(0), name="new_empty", function=False)


@public(function=False)
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)


@public(function=False)
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


def legacy_tensor(*args, **kwargs):
    """`torch.Tensor(2, 3)` (uninitialised sizes) or `torch.Tensor([1, 2])` (float data)."""
    if len(args) == 1 and not isinstance(args[0], int):
        return np.array(_infer(args[0]), dtype=defaults.float.np)
    return np.zeros(shape_arg(args), defaults.float.np)
