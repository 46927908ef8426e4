"""Turn NumPy's errors inside an op's forward into PyTorch's messages."""

from __future__ import annotations

import re

import numpy as np

from .._tensor import Tensor

__all__ = ["translate", "broadcast_error"]


def broadcast_error(shapes) -> RuntimeError | None:
    """PyTorch's text for shapes that do not broadcast, naming the first clashing dim."""
    shapes = [tuple(s) for s in shapes]
    if len(shapes) < 2:
        return None
    a, b = shapes[0], shapes[1]
    ndim = max(len(a), len(b))
    pa, pb = (1,) * (ndim - len(a)) + a, (1,) * (ndim - len(b)) + b
    for i in range(ndim - 1, -1, -1):
        if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
            return RuntimeError(f"The size of tensor a ({pa[i]}) must match the size of tensor "
                                f"b ({pb[i]}) at non-singleton dimension {i}")
    return None


def translate(op, args, attrs, exc: Exception) -> Exception:
    """An exception with PyTorch's first sentence for a NumPy failure in `op`'s forward."""
    if isinstance(exc, RuntimeError):
        return exc
    text = str(exc)
    shapes = [a._data.shape for a in args if isinstance(a, Tensor)]
    if "broadcast" in text:
        err = broadcast_error(shapes)
        if err is not None:
            return err
    if isinstance(exc, IndexError):
        m = re.search(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", text)
        if m:
            return IndexError(f"index {m.group(1)} is out of bounds for dimension "
                              f"{m.group(2)} with size {m.group(3)}")
        m = re.search(r"boolean index did not match indexed array along (?:axis|dimension) "
                      r"(\d+); size of (?:axis|dimension) is (\d+) but size of corresponding "
                      r"boolean (?:axis|dimension) is (\d+)", text)
        if m:
            return IndexError(f"The shape of the mask [{m.group(3)}] at index {m.group(1)} does "
                              f"not match the shape of the indexed tensor [{m.group(2)}] at "
                              f"index {m.group(1)}")
        return IndexError(text)
    if isinstance(exc, np.exceptions.AxisError if hasattr(np, "exceptions") else ValueError):
        return IndexError(f"Dimension out of range ({text})")
    return RuntimeError(f"{op.name}: {text}")
