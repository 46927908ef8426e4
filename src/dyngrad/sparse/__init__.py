"""`torch.sparse`: products and sums of sparse COO tensors, and the legacy sparse constructors
(`torch.sparse.FloatTensor(indices, values, size)`) that graph-network code still calls.

The tensors themselves are dyngrad Tensors whose storage is COO (Note [Sparse COO arrays]);
`torch.sparse_coo_tensor`, `Tensor.to_sparse` and the rest live with the other ops.
"""

from __future__ import annotations

import warnings

from .._tensor import Tensor
from ..ops.creation.factories import zeros
from ..ops.sparse.construction import sparse_coo_tensor
from ..ops.sparse.products import sparse_mm as mm
from ..ops.sparse.products import sparse_sum as sum  # noqa: A004 - torch.sparse.sum
from ..runtime import dtypes
from ..runtime.sparse_coo import SparseCOO

__all__ = [
    "mm",
    "sum",
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "BFloat16Tensor",
    "LongTensor",
    "IntTensor",
    "ShortTensor",
    "CharTensor",
    "ByteTensor",
    "BoolTensor",
]

_DEPRECATED = (
    "torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated.  Please use "
    "torch.sparse_coo_tensor(indices, values, shape, dtype=, device=)."
)


class _SparseTensorType(type):
    """`torch.sparse.FloatTensor` and kin: a legacy constructor, and an isinstance test for a
    sparse tensor of its dtype."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and type(obj._data) is SparseCOO and obj.dtype is cls.dtype

    def __call__(cls, *args, size=None, device=None):
        if args and isinstance(args[0], Tensor):  # (indices, values[, size])
            indices, values, *rest = args
            warnings.warn(_DEPRECATED, UserWarning, stacklevel=2)
            return sparse_coo_tensor(indices, values, rest[0] if rest else size)
        shape = tuple(args[0] if len(args) == 1 and not isinstance(args[0], int) else args)
        indices = zeros((len(shape), 0), dtype=dtypes.int64)
        return sparse_coo_tensor(indices, zeros((0,), dtype=cls.dtype), shape)


def _legacy(name: str, dtype) -> type:
    return _SparseTensorType(name, (), {"dtype": dtype, "__module__": "torch.sparse"})


FloatTensor = _legacy("FloatTensor", dtypes.float32)
DoubleTensor = _legacy("DoubleTensor", dtypes.float64)
HalfTensor = _legacy("HalfTensor", dtypes.float16)
BFloat16Tensor = _legacy("BFloat16Tensor", dtypes.bfloat16)
LongTensor = _legacy("LongTensor", dtypes.int64)
IntTensor = _legacy("IntTensor", dtypes.int32)
ShortTensor = _legacy("ShortTensor", dtypes.int16)
CharTensor = _legacy("CharTensor", dtypes.int8)
ByteTensor = _legacy("ByteTensor", dtypes.uint8)
BoolTensor = _legacy("BoolTensor", dtypes.bool_)
