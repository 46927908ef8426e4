"""`torch.linalg`'s functions made of other ops, as PyTorch makes them (so their nodes are the
same): `vecdot`, `diagonal`, `vander`, `cond`, `tensorinv`, `tensorsolve`."""

from __future__ import annotations

import math

from ..reduction.norms import matrix_norm
from ..shape.joining import cat
from ..shape.rearrange import movedim
from ..table.errors import expect_tensor
from ..table.record import autocast_entry
from .decomposition import _check as _check_svd
from .decomposition import svdvals
from .lapack_checks import check_square
from .matrix_functions import vdot
from .solvers import inv_ex, raise_not_invertible, solve

_INTEGER = ("Byte", "Char", "Short", "Int", "Long")


@autocast_entry("linalg_vecdot")  # See Note [Autocast policy]
def vecdot(x, y, *, dim=-1, out=None):
    """Matches `torch.linalg.vecdot`: sum(conj(x) * y) over `dim`, broadcasting."""
    expect_tensor("linalg_vecdot", "x", 1, x)
    expect_tensor("linalg_vecdot", "y", 2, y)
    if not (x.is_floating_point() or x.is_complex()):
        raise RuntimeError(
            f"linalg.vecdot: Expected a floating point or complex tensor as input. "
            f"Got {x.dtype._legacy}"
        )
    if x.dtype != y.dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{x.dtype._legacy} and y of type {y.dtype._legacy} instead"
        )
    if x.dim() == 1 and y.dim() == 1:  # PyTorch's shortcut: one VdotBackward0 node
        return vdot(x, y)
    return (x.conj() * y).sum(dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):  # noqa: N803
    """Matches `torch.linalg.diagonal`: `A.diagonal` with the matrix dims last by default."""
    expect_tensor("linalg_diagonal", "A", 1, A)
    return A.diagonal(offset, dim1, dim2)


def vander(x, *, N=None):  # noqa: N803
    """Matches `torch.linalg.vander`: the powers x^0 .. x^(N-1) along a new last dim."""
    expect_tensor("linalg_vander", "x", 1, x)
    kind = x.dtype._legacy
    if kind not in ("Float", "Double", "ComplexFloat", "ComplexDouble") + _INTEGER:
        raise RuntimeError(
            f"linalg.vander supports floating point, complex, and integer tensors, but got {kind}"
        )
    x = x.unsqueeze(-1) if x.dim() == 0 else x
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = x.unsqueeze(-1).expand(*x.shape, n - 1).cumprod(-1)
    return cat([powers.new_ones((*x.shape, 1)), powers], -1)


def cond(A, p=None, *, out=None):  # noqa: N803
    """Matches `torch.linalg.cond`: the condition number of A in the norm `p` (2 by default);
    0 for empty matrices, inf for singular ones (p not 2)."""
    expect_tensor("linalg_cond", "A", 1, A)
    if isinstance(p, str):
        return _cond_named(A, p)
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    p = 2 if p is None else p
    if p not in (2, -2, 1, -1, math.inf, -math.inf):
        text = str(int(p)) if float(p).is_integer() else str(p)
        raise RuntimeError(f"linalg.cond got an invalid norm type: {text}")
    if A.numel() == 0:
        return _cond_empty(A)
    if abs(p) == 2:
        _check_svd(A, "linalg.svd")
        values = svdvals(A)
        largest, smallest = values.narrow(-1, 0, 1), values.narrow(-1, -1, 1)
        return (smallest / largest if p == -2 else largest / smallest).squeeze(-1)
    _check_square(A, f"linalg.cond(ord={_ord_text(p)})")
    return _cond_by_inverse(A, p)


def _cond_named(A, p: str):  # noqa: N803
    if p not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A.dim() < 2:
        raise RuntimeError(
            f"linalg.cond(ord={p}): The input tensor A must have at least 2 dimensions."
        )
    _check_square(A, f"linalg.cond(ord={p})")
    if A.numel() == 0:
        return _cond_empty(A)
    if p == "nuc":  # PyTorch's: a singular A's inverse as it comes, its norm nan
        inverse, info = inv_ex(A)
        singular = info > 0
        if not singular.any():
            return matrix_norm(A, p) * matrix_norm(inverse, p)
        inverse = inverse.masked_fill(singular.unsqueeze(-1).unsqueeze(-1), 0.0)
        return (matrix_norm(A, p) * matrix_norm(inverse, p)).masked_fill(singular, math.nan)
    return _cond_by_inverse(A, p)


def _cond_by_inverse(A, p):  # noqa: N803
    # ||A|| ||A^-1||, a singular A's inverse read as inf; 0 * inf is inf as NumPy's. The fill
    # is in place as PyTorch's is, so a backward raises as PyTorch's does (the inverse is saved)
    inverse, info = inv_ex(A)
    inverse.masked_fill_((info > 0).unsqueeze(-1).unsqueeze(-1), math.inf)
    result = matrix_norm(A, p) * matrix_norm(inverse, p)
    return result.nan_to_num_(math.inf, math.inf, -math.inf)


def _cond_empty(A):  # noqa: N803
    return A.new_zeros(A.shape[:-2], dtype=A.real.dtype if A.is_complex() else A.dtype)


def _check_square(A, name: str) -> None:  # noqa: N803
    check_square(name, A.shape)


def _ord_text(p) -> str:
    return ("-inf" if p < 0 else "inf") if math.isinf(p) else str(int(p))


def tensorinv(A, ind=2, *, out=None):  # noqa: N803
    """Matches `torch.linalg.tensorinv`: the inverse of A read as a matrix of its first `ind`
    dims by the rest, shaped A.shape[ind:] + A.shape[:ind]."""
    expect_tensor("linalg_tensorinv", "A", 1, A)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    if ind > A.dim():
        raise RuntimeError(f"ArrayRef: invalid slice, N = {ind}; size = {A.dim()}")
    rows, cols = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    size = math.prod(cols)
    if size != math.prod(rows):
        raise RuntimeError(
            f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {size} != {math.prod(rows)}"
        )
    inverse, info = inv_ex(A.reshape(size, size))
    raise_not_invertible("inv", info._data, 2)
    return inverse.reshape(cols + rows)


def tensorsolve(A, B, dims=None, *, out=None):  # noqa: N803
    """Matches `torch.linalg.tensorsolve`: X with tensordot(A, X, X.ndim) = B; `dims` are
    moved to A's end first."""
    expect_tensor("linalg_tensorsolve", "A", 1, A)
    expect_tensor("linalg_tensorsolve", "B", 2, B)
    if dims is not None:
        dims = list(dims)
        A = movedim(A, dims, list(range(A.dim() - len(dims), A.dim())))  # noqa: N806
    shape = tuple(A.shape[B.dim() :])
    size, other = math.prod(shape), B.numel()
    if size != other:
        raise RuntimeError(
            f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {size} != {other}"
        )
    return solve(A.reshape(size, size), B.flatten()).reshape(shape)
