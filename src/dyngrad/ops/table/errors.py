"""Turn NumPy's errors inside an op's forward into PyTorch's messages."""

from __future__ import annotations

import functools
import re

import numpy as np

from ..._tensor import Tensor
from ..._tensor_errors import CPP_TYPE_NAMES
from ...runtime import dtypes
from ...runtime.sparse_coo import SparseCOO
from .arguments import allocation_error

__all__ = [
    "translate",
    "broadcast_error",
    "expect_tensor",
    "floating_only",
    "c_type_name",
    "not_on_sparse",
]


def broadcast_error(shapes) -> RuntimeError | None:
    """PyTorch's text for shapes that do not broadcast, naming the first clashing dim.

    Like PyTorch, the shapes are broadcast left to right: `a` is the shape so far.
    """
    shapes = [tuple(s) for s in shapes]
    if len(shapes) < 2:
        return None
    a = shapes[0]
    for b in shapes[1:]:
        ndim = max(len(a), len(b))
        pa, pb = (1,) * (ndim - len(a)) + a, (1,) * (ndim - len(b)) + b
        for i in range(ndim - 1, -1, -1):
            if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
                return RuntimeError(
                    f"The size of tensor a ({pa[i]}) must match the size of "
                    f"tensor b ({pb[i]}) at non-singleton dimension {i}"
                )
        a = tuple(y if x == 1 else x for x, y in zip(pa, pb))
    return None


def _inplace_broadcast_error(shapes) -> RuntimeError:
    # an in-place op (`copy_`) whose other operands broadcast beyond its own shape
    own = list(shapes[0])
    try:
        full = list(np.broadcast_shapes(*shapes))
    except ValueError:
        return broadcast_error(shapes) or RuntimeError(f"shapes {shapes} do not broadcast")
    return RuntimeError(f"output with shape {own} doesn't match the broadcast shape {full}")


def expect_tensor(fn: str, arg: str, position: int, value) -> None:
    """PyTorch's TypeError for a Python number where only a Tensor is accepted."""
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{fn}(): argument '{arg}' (position {position}) must be Tensor, not "
            f"{type(value).__name__}"
        )


def floating_only(kernel: str):
    """Wrap a forward so integer and bool inputs raise PyTorch's missing-kernel error."""

    def wrap(fwd):
        @functools.wraps(fwd)  # the table reads the attributes from the wrapped signature
        def forward(xp, x, **attrs):
            d = dtypes.from_numpy_dtype(x.dtype)
            if not d.is_floating_point:
                raise NotImplementedError(f"\"{kernel}\" not implemented for '{d._legacy}'")
            return fwd(xp, x, **attrs)

        return forward

    return wrap


# Some PyTorch messages name the C++ element type (`long int`, `c10::Half`), not `Long`


def c_type_name(dtype) -> str:
    """The C++ name PyTorch prints for a dtype in some messages: `torch.int64` is `long int`."""
    return CPP_TYPE_NAMES[dtype.name]


def not_on_sparse(op) -> NotImplementedError:
    """PyTorch's error for an op that has no kernel for sparse COO tensors."""
    return NotImplementedError(
        f"Could not run 'aten::{op.name}' with arguments from the 'SparseCPU' backend. This "
        "could be because the operator doesn't exist for this backend, or was omitted during "
        "the selective/custom build process (if using custom build).\n[dyngrad] sparse COO "
        "tensors support to_dense(), coalesce(), indices()/values(), sparse @ dense products "
        "(torch.sparse.mm, torch.mm), torch.sparse.sum, sums and products with numbers; call "
        ".to_dense() first for anything else."
    )


def translate(op, args, attrs, exc: Exception) -> Exception:
    """An exception with PyTorch's first sentence for a NumPy failure in `op`'s forward."""
    if isinstance(exc, RuntimeError):
        return exc
    if any(isinstance(a, Tensor) and type(a._data) is SparseCOO for a in args):
        return not_on_sparse(op)  # a sparse tensor that reached a dense forward
    if isinstance(exc, MemoryError):  # NumPy's names the shape and dtype it could not get
        shape, dtype = getattr(exc, "shape", ()), getattr(exc, "dtype", np.dtype(np.uint8))
        return allocation_error(int(np.prod(shape, dtype=object)) * dtype.itemsize)
    text = str(exc)
    shapes = [a._data.shape for a in args if isinstance(a, Tensor)]
    if "broadcast" in text:
        err = broadcast_error(shapes)
        if err is not None:
            return err
    if "axis remapping" in text or "non-broadcastable output" in text:
        return _inplace_broadcast_error(shapes)
    if isinstance(exc, IndexError):
        m = re.search(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", text)
        if m:
            return IndexError(
                f"index {m.group(1)} is out of bounds for dimension "
                f"{m.group(2)} with size {m.group(3)}"
            )
        m = re.search(
            r"boolean index did not match indexed array along (?:axis|dimension) "
            r"(\d+); size of (?:axis|dimension) is (\d+) but size of corresponding "
            r"boolean (?:axis|dimension) is (\d+)",
            text,
        )
        if m:
            return IndexError(
                f"The shape of the mask [{m.group(3)}] at index {m.group(1)} does "
                f"not match the shape of the indexed tensor [{m.group(2)}] at "
                f"index {m.group(1)}"
            )
        return IndexError(text)
    if isinstance(exc, np.exceptions.AxisError if hasattr(np, "exceptions") else ValueError):
        return IndexError(f"Dimension out of range ({text})")
    return RuntimeError(f"{op.name}: {text}")
