"""`torch.linalg`: norms, products, decompositions, solvers and their composites."""

from __future__ import annotations

import functools

from .ops.linalg.cholesky import cholesky_ex, solve_triangular
from .ops.linalg.cholesky import linalg_cholesky as cholesky
from .ops.linalg.composites import cond, diagonal, tensorinv, tensorsolve, vander
from .ops.linalg.composites import vecdot as _vecdot
from .ops.linalg.decomposition import _LinAlgError as LinAlgError
from .ops.linalg.decomposition import inv, svd, svdvals
from .ops.linalg.householder import householder_product
from .ops.linalg.ldl import ldl_factor, ldl_factor_ex, ldl_solve
from .ops.linalg.least_squares import lstsq, matrix_rank
from .ops.linalg.lu import lu, lu_factor, lu_factor_ex, lu_solve
from .ops.linalg.matrix_functions import det, matrix_exp, slogdet
from .ops.linalg.matrix_functions import matrix_power as _matrix_power
from .ops.linalg.multi_dot import multi_dot
from .ops.linalg.products import linalg_cross as cross
from .ops.linalg.products import matmul
from .ops.linalg.qr import linalg_qr as qr
from .ops.linalg.solvers import inv_ex, solve, solve_ex
from .ops.linalg.solvers import pinv as _pinv
from .ops.linalg.spectral import eig, eigh, eigvals, eigvalsh
from .ops.reduction.norms import matrix_norm, norm, vector_norm
from .ops.table.out import with_out, write_into

__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]

# torch.linalg's functions take out= (matrix_exp, diagonal and vander excepted), written as
# the top-level ones are (Note [out= arguments]). PyTorch's refusal of inputs that require grad
# names the op that does the work; its composites write into `out` recorded instead (None).
_OUT_OPS = {
    "cholesky": "linalg_cholesky_ex",
    "det": "_linalg_det",
    "eig": "linalg_eig",
    "eigvals": "linalg_eig",
    "eigh": "_linalg_eigh",
    "eigvalsh": "_linalg_eigh",
    "slogdet": "_linalg_slogdet",
    "inv": "linalg_inv_ex",
    "lu_factor": "linalg_lu_factor_ex",
    "multi_dot": "mm",
    "matmul": "matmul",
    "matrix_norm": None,
    "matrix_rank": None,
    "cond": None,
    "tensorinv": None,
    "tensorsolve": None,
    "norm": None,
    "solve": "_linalg_solve_ex",
    "solve_ex": "_linalg_solve_ex",
    "svd": "_linalg_svd",
    "svdvals": "_linalg_svd",
}
# out= forms written below, and ldl's own (Note [Bunch-Kaufman in NumPy]: they check dtypes
# strictly and take inputs that require grad)
_OWN_FORMS = {"matrix_power", "pinv", "vecdot", "ldl_factor", "ldl_factor_ex", "ldl_solve"}
for _name in sorted(
    set(__all__) - {"LinAlgError", "matrix_exp", "diagonal", "vander"} - _OWN_FORMS
):
    globals()[_name] = with_out(
        globals()[_name], "linalg_" + _name, _OUT_OPS.get(_name, "linalg_" + _name)
    )
del _name


def matrix_power(A, n, *, out=None):  # noqa: N803
    """Matches `torch.linalg.matrix_power`: A^n (n < 0: the inverse's power)."""
    if out is None:
        return _matrix_power(A, n)
    # PyTorch's refusal names the op the power is made of; n = 1 is a recorded copy, and n = 0
    # an identity written with no history
    op = "linalg_inv_ex" if n < 0 else "matmul" if n > 1 else None
    return write_into(op, out, lambda: _matrix_power(A.detach() if n == 0 else A, n), (A,))


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):  # noqa: N803
    """Matches `torch.linalg.pinv`: the Moore-Penrose pseudo-inverse."""
    call = functools.partial(_pinv, A, rcond, hermitian, atol=atol, rtol=rtol)
    if out is None:
        return call()
    # PyTorch's refusal names linalg_pinv; given tolerances, it writes through a recorded copy
    op = "linalg_pinv" if atol is None and rtol is None and rcond is None else None
    return write_into(op, out, call, (A,))


def vecdot(x, y, *, dim=-1, out=None):
    """Matches `torch.linalg.vecdot`: sum(conj(x) * y) over `dim`."""
    if out is None:
        return _vecdot(x, y, dim=dim)
    op = "vdot" if x.dim() == 1 and y.dim() == 1 else "sum"  # what PyTorch's is made of
    return write_into(op, out, lambda: _vecdot(x, y, dim=dim), (x, y))
