"""`torch.linalg`: the norms, matmul, the SVD, the inverse and the cross product."""

from __future__ import annotations

from .ops.linalg.cholesky import cholesky_ex, solve_triangular
from .ops.linalg.cholesky import linalg_cholesky as cholesky
from .ops.linalg.decomposition import _LinAlgError as LinAlgError
from .ops.linalg.decomposition import inv, svd, svdvals
from .ops.linalg.least_squares import lstsq, matrix_rank
from .ops.linalg.matrix_functions import det, matrix_exp, matrix_power, slogdet
from .ops.linalg.multi_dot import multi_dot
from .ops.linalg.products import linalg_cross as cross
from .ops.linalg.products import matmul
from .ops.linalg.qr import linalg_qr as qr
from .ops.reduction.norms import matrix_norm, norm, vector_norm
from .ops.table.out import with_out

__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cross",
    "det",
    "matrix_exp",
    "matrix_power",
    "slogdet",
    "inv",
    "lstsq",
    "matmul",
    "matrix_norm",
    "matrix_rank",
    "multi_dot",
    "norm",
    "qr",
    "solve_triangular",
    "svd",
    "svdvals",
    "vector_norm",
]

# torch.linalg's functions take out= (matrix_exp excepted), written as the top-level ones are
# (Note [out= arguments]); PyTorch's messages name them `linalg_<name>`
for _name in sorted(set(__all__) - {"LinAlgError", "matrix_exp"}):
    globals()[_name] = with_out(globals()[_name], "linalg_" + _name)
del _name
