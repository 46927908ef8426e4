"""`torch.linalg`: the norms, matmul, the SVD and the cross product."""

from __future__ import annotations

from .ops.decomposition import svd, svdvals
from .ops.linalg import matmul
from .ops.norms import matrix_norm, norm, vector_norm
from .ops.utilities import linalg_cross as cross

__all__ = ["cross", "matmul", "matrix_norm", "norm", "svd", "svdvals", "vector_norm"]
