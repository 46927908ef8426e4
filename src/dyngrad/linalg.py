"""`torch.linalg`: the norms, matmul and the SVD."""

from __future__ import annotations

from .ops.decomposition import svd, svdvals
from .ops.linalg import matmul
from .ops.norms import matrix_norm, norm, vector_norm

__all__ = ["matmul", "matrix_norm", "norm", "svd", "svdvals", "vector_norm"]
