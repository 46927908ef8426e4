"""`torch.linalg`: the norms and matmul (vector_norm, matrix_norm, norm, matmul)."""

from __future__ import annotations

from .ops.linalg import matmul
from .ops.norms import matrix_norm, norm, vector_norm

__all__ = ["matmul", "matrix_norm", "norm", "vector_norm"]
