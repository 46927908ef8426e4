"""The in-place fused products as Tensor methods: addmm_, addmv_, addr_, baddbmm_, addbmm_.

Each writes its row of fused_products.py into `self` (the node is the out-of-place one's,
`AddmmBackward0`, with self's old history as its first edge), after PyTorch's in-place checks:
the product's shape must be self's own ("Bad in-place call"), not merely broadcast to it.
"""

from __future__ import annotations

from ..table.errors import c_type_name
from ..table.inplace import apply_inplace
from ..table.surface import public
from .fused_products import ADDBMM, ADDMM, ADDMV, ADDR, BADDBMM, _batches, _need
from .products import _mm_shapes


def _write(op, name, self, a, b, shape, beta, alpha):
    if tuple(self._data.shape) != shape:
        raise RuntimeError(
            f"Bad in-place call: input tensor size {list(self._data.shape)} and output tensor "
            f"size {list(shape)} should match"
        )
    return apply_inplace(op, (self, a, b), {"beta": beta, "alpha": alpha}, name=name)


def _same_dtype(first, name, other, other_name):
    if first._data.dtype != other._data.dtype:
        raise RuntimeError(
            f"{name} and {other_name} must have the same dtype, but got "
            f"{first.dtype._legacy} and {other.dtype._legacy}"
        )


@public(function=False)
def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
    """Matches `torch.Tensor.addmm_`: self = beta * self + alpha * (mat1 @ mat2)."""
    _need(mat1, 2, "mat1")
    _need(mat2, 2, "mat2")
    a, b = mat1._data.shape, mat2._data.shape
    if a[1] != b[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_mm_shapes(a, b)})")
    _same_dtype(self, "self", mat2, "mat2")
    _same_dtype(mat1, "mat1", mat2, "mat2")
    return _write(ADDMM, "addmm_", self, mat1, mat2, (a[0], b[1]), beta, alpha)


@public(function=False)
def addmv_(self, mat, vec, *, beta=1, alpha=1):
    """Matches `torch.Tensor.addmv_`: self = beta * self + alpha * (mat @ vec)."""
    dims = (self._data.ndim, mat._data.ndim, vec._data.ndim)
    if dims != (1, 2, 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got {', '.join(map(str, dims))}")
    a, n = mat._data.shape, vec._data.shape[0]
    size = self._data.shape[0]
    if a[1] != n or size not in (1, a[0]):
        raise RuntimeError(f"size mismatch, got input ({size}), mat ({a[0]}x{a[1]}), vec ({n})")
    if not self.dtype == mat.dtype == vec.dtype:
        raise RuntimeError(
            "addmv input tensors must have the same dtype, but got "
            f"{self.dtype._legacy}, {mat.dtype._legacy}, and {vec.dtype._legacy}"
        )
    return _write(ADDMV, "addmv_", self, mat, vec, (a[0],), beta, alpha)


@public(function=False)
def addr_(self, vec1, vec2, *, beta=1, alpha=1):
    """Matches `torch.Tensor.addr_`: self = beta * self + alpha * outer(vec1, vec2)."""
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v._data.ndim}-D")
    if self._data.ndim != 2:
        raise RuntimeError(f"2D tensor expected, got {self._data.ndim}D tensor for input")
    shape = (vec1._data.shape[0], vec2._data.shape[0])
    if tuple(self._data.shape) != shape:
        raise RuntimeError(
            f"size mismatch, input: {list(self._data.shape)}, v1: [{shape[0]}], v2: [{shape[1]}]"
        )
    return _write(ADDR, "addr_", self, vec1, vec2, shape, beta, alpha)


@public(function=False)
def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    """Matches `torch.Tensor.baddbmm_`: self = beta * self + alpha * (batch1 @ batch2)."""
    a, b = _batches(batch1, batch2)
    if not self.dtype == batch1.dtype == batch2.dtype:
        raise RuntimeError(
            f"Input dtypes must be the same, got: input {c_type_name(self.dtype)}, batch1: "
            f"{c_type_name(batch1.dtype)}, batch2: {c_type_name(batch2.dtype)}"
        )
    return _write(BADDBMM, "baddbmm_", self, batch1, batch2, (a[0], a[1], b[2]), beta, alpha)


@public(function=False)
def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    """Matches `torch.Tensor.addbmm_`: self = beta * self + alpha * sum_b(batch1[b] @ batch2[b]).

    PyTorch resizes a smaller `self` that broadcasts to the result; this raises instead."""
    _need(batch1, 3, "batch1")
    _need(batch2, 3, "batch2")
    a, b = batch1._data.shape, batch2._data.shape
    if a[0] != b[0]:
        raise RuntimeError(
            f"batch1 and batch2 must have same number of batches, got {a[0]} and {b[0]}"
        )
    if a[2] != b[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({a[1]}x{a[2]} and {b[1]}x{b[2]})")
    _same_dtype(self, "self", batch2, "mat2")
    if self._data.ndim > 2:  # PyTorch expands self to the result first
        self.expand(a[1], b[2])
    return _write(ADDBMM, "addbmm_", self, batch1, batch2, (a[1], b[2]), beta, alpha)
