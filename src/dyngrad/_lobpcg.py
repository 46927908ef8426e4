"""`torch.lobpcg`: the k largest (or smallest) eigenpairs of a symmetric positive definite
matrix, optionally of the generalized problem A x = lambda B x.

# Note [lobpcg by a dense eigensolver]
# PyTorch's LOBPCG iterates from a start X until the residuals fall below `tol`; what it
# returns is the exact eigenpairs to within `tol`. dyngrad's matrices are NumPy arrays, where
# LAPACK's dense symmetric eigensolver (`linalg.eigh`) is both exact and faster than any
# Python-level iteration for the sizes this runs on, so the eigenpairs come from it (through
# a Cholesky factor of B for the generalized problem) and the iteration's parameters (`niter`,
# `tol`, `method`, `tracker`, the ortho parameters) are accepted and change nothing. What a
# program can observe is kept: PyTorch's argument checks and errors, its draws from the
# generator (a random start X per matrix when none is given, so the streams stay PyTorch's),
# the order of the values (descending when `largest`), and its gradient: A is symmetrized as
# (A + A^T) / 2 first, so that A's gradient is symmetric, and the eigenpairs are
# differentiated exactly, twice if asked (through eigh's own backward); with B given,
# PyTorch's backward refuses, and so does this one. Eigenvectors' signs are LAPACK's, where
# PyTorch's depend on its start: compare them up to sign, as PyTorch's own tests do.
"""

from __future__ import annotations

from . import linalg
from ._tensor import Tensor
from .autograd.engine import grad as autograd_grad
from .autograd.function import Function
from .graph.grad_mode import enable_grad, is_grad_enabled, no_grad
from .ops.creation.random import randn
from .runtime import dtypes

__all__ = ["lobpcg"]


def lobpcg(
    A: Tensor,
    k: int | None = None,
    B: Tensor | None = None,
    X: Tensor | None = None,
    n: int | None = None,
    iK: Tensor | None = None,  # noqa: N803 - PyTorch's name
    niter: int | None = None,
    tol: float | None = None,
    largest: bool | None = None,
    method: str | None = None,
    tracker=None,
    ortho_iparams: dict | None = None,
    ortho_fparams: dict | None = None,
    ortho_bparams: dict | None = None,
) -> tuple:
    """Matches `torch.lobpcg`: (E, X), the k eigenvalues (descending when `largest`, the
    default) and their eigenvectors. See Note [lobpcg by a dense eigensolver]."""
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller "
            f"than 3 x the number of requested eigenpairs (={n})"
        )
    largest = True if largest is None else largest
    dtype = A.dtype if A.is_floating_point() else dtypes.float32
    _starts(A, X, m, n, dtype)
    if A.requires_grad or (B is not None and B.requires_grad):
        # PyTorch symmetrizes first, so that A's gradient is symmetric
        A = (A + A.mT) / 2
        B = (B + B.mT) / 2 if B is not None else None
        return LOBPCGAutogradFunction.apply(A, B, k, largest)
    return _eigenpairs(A, B, k, largest)


def _starts(A: Tensor, X, m: int, n: int, dtype) -> None:
    # PyTorch starts each matrix's iteration from X, drawing a random one when none is
    # given: the same draws keep the generator's stream PyTorch's
    count = 1
    for size in A.shape[:-2]:
        count *= size
    if X is not None:
        want = tuple(A.shape[:-2]) + (m, n) if A.dim() > 2 else (m, n)
        if tuple(X.shape) != want:
            raise AssertionError(f"X shape mismatch: got {X.shape}, expected {(m, n)}")
        return
    for _ in range(count):
        randn(m, n, dtype=dtype)


def _eigenpairs(A: Tensor, B, k: int, largest: bool) -> tuple:
    if B is None:
        values, vectors = linalg.eigh(A)
    else:  # B = L L^T: A x = lambda B x is (L^-1 A L^-T) y = lambda y with x = L^-T y
        low = linalg.cholesky(B)
        C = linalg.solve_triangular(low, A, upper=False)
        C = linalg.solve_triangular(low, C.mT, upper=False)
        values, vectors = linalg.eigh(C)
        vectors = linalg.solve_triangular(low.mT, vectors, upper=True)
    m = values.shape[-1]
    if largest:
        order = list(range(m - 1, m - 1 - k, -1))
    else:
        order = list(range(k))
    return values[..., order], vectors[..., order]


class LOBPCGAutogradFunction(Function):
    """PyTorch's node for lobpcg (`LOBPCGAutogradFunctionBackward`). Its backward
    differentiates the eigenpairs again, from the saved A, so that it is itself
    differentiable (gradgradcheck holds)."""

    @staticmethod
    def forward(ctx, A, B, k, largest):
        ctx.k, ctx.largest, ctx.has_B = k, largest, B is not None
        ctx.save_for_backward(A)
        with no_grad():
            return _eigenpairs(A, B, k, largest)

    @staticmethod
    def backward(ctx, grad_values, grad_vectors):
        if ctx.has_B:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        (A,) = ctx.saved_tensors
        higher = is_grad_enabled()  # create_graph: the gradient keeps its history to A
        with enable_grad():
            source = A if higher and A.requires_grad else A.detach().requires_grad_(True)
            values, vectors = _eigenpairs(source, None, ctx.k, ctx.largest)
            outputs, grads = [], []
            for out, g in ((values, grad_values), (vectors, grad_vectors)):
                if g is not None:
                    outputs.append(out)
                    grads.append(g)
            (grad_A,) = autograd_grad(outputs, (source,), grads, create_graph=higher)
        return grad_A, None, None, None
