"""`torch.linalg`: the norms, matmul, the SVD, the inverse and the cross product."""

from __future__ import annotations

from .ops.decomposition import _LinAlgError as LinAlgError
from .ops.decomposition import inv, svd, svdvals
from .ops.linalg import matmul
from .ops.norms import matrix_norm, norm, vector_norm
from .ops.utilities import linalg_cross as cross

__all__ = ["LinAlgError", "cross", "inv", "matmul", "matrix_norm", "norm", "svd", "svdvals",
           "vector_norm"]
