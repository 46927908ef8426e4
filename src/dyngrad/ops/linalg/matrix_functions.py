"""Determinants (`det`, `slogdet`, `logdet`), the matrix exponential and power, the
pseudo-inverse, `torch.svd`'s older form (V rather than Vh), `inner` and `vdot`."""

from __future__ import annotations

import math

from ...return_types import slogdet as _slogdet_result
from ...return_types import svd as _svd_result
from ..creation.factories import zeros_like
from ..creation.ranges import eye
from ..elementwise.compare import where
from ..elementwise.complex_numbers import conjugate
from ..shape.joining import cat
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .decomposition import _check, inv
from .decomposition import svd as linalg_svd
from .einsum import tensordot
from .lapack_checks import check_square
from .products import matmul


def _square(A, name: str) -> None:  # noqa: N803
    _check(A, name)
    check_square(name, A.shape)


def _per_entry(g):  # a gradient per matrix, broadcast over its entries
    return g.unsqueeze(-1).unsqueeze(-2)


# d det(A) = det(A) tr(A^-1 dA), so dA = g det(A) A^-T
DET = defop(
    "linalg_det",
    lambda xp, a: xp.asarray(xp.linalg.det(a)),
    {"a": lambda g, a, out: _per_entry(g * out) * inv(a).mT},
    node="LinalgDetBackward0",
)


def _slogdet_fwd(xp, a):
    sign, logabsdet = xp.linalg.slogdet(a)
    return xp.asarray(sign), xp.asarray(logabsdet)


# d log|det A| = tr(A^-1 dA); the sign is piecewise constant, but carries the node too
# (as PyTorch's does), so its gradient is ignored
SLOGDET = defop(
    "linalg_slogdet",
    _slogdet_fwd,
    {"a": lambda g, a: _per_entry(g[1]) * inv(a).mT},
    outputs=2,
    node="LinalgSlogdetBackward0",
)


@public
def det(input):
    """Matches `torch.det` (and `torch.linalg.det`)."""
    _square(input, "linalg.det")
    return apply(DET, (input,))


@public
def slogdet(input):
    """Matches `torch.slogdet`: (sign, log|det|)."""
    _square(input, "linalg.slogdet")
    return _slogdet_result(*apply(SLOGDET, (input,)))


@public
def logdet(input):
    """Matches `torch.logdet`: log det, nan where the determinant is negative."""
    _square(input, "linalg.slogdet")
    sign, logabsdet = apply(SLOGDET, (input,))
    return where(sign == -1, math.nan, logabsdet)


# ---- the matrix exponential -----------------------------------------------------------------


def _expm(xp, a):
    # scaling and squaring: exp(A) = exp(A / 2^s)^(2^s), with |A / 2^s| < 1/2 so that the
    # Taylor series to degree 18 is exact to float64's precision
    norm = float(xp.abs(a).sum(-2).max()) if a.size else 0.0
    s = max(0, math.ceil(math.log2(norm)) + 1) if norm > 0.5 else 0
    scaled = a / (2.0**s)
    term = xp.broadcast_to(xp.eye(a.shape[-1], dtype=a.dtype), a.shape).copy()
    out = term.copy()
    for k in range(1, 19):
        term = xp.matmul(term, scaled) / k
        out = out + term
    for _ in range(s):
        out = xp.matmul(out, out)
    return out.astype(a.dtype, copy=False)


def _matrix_exp_grad(g, a):
    # the Fréchet derivative's adjoint: the upper-right block of exp([[A^T, G], [0, A^T]])
    n = a.shape[-1]
    top = cat([a.mT, g], -1)
    bottom = cat([zeros_like(a), a.mT], -1)
    return apply(MATRIX_EXP, (cat([top, bottom], -2),))[..., :n, n:]


MATRIX_EXP = defop(
    "linalg_matrix_exp",
    _expm,
    {"a": _matrix_exp_grad},
    node="LinalgMatrixExpBackward0",
)


@public
def matrix_exp(input):
    """Matches `torch.matrix_exp` (and `torch.linalg.matrix_exp`)."""
    _square(input, "linalg.matrix_exp")
    return apply(MATRIX_EXP, (input,))


@public
def matrix_power(input, n: int):
    """Matches `torch.matrix_power`: PyTorch's chain of matmuls (binary powers of A)."""
    _square(input, "linalg.matrix_power")
    if n == 0:
        eye_n = eye(input.shape[-1], dtype=input.dtype).expand_as(input)
        return input.clone().copy_(eye_n)
    a = inv(input) if n < 0 else input
    n = abs(n)
    if n == 1:
        return a.clone()
    if n in (2, 3):
        out = matmul(a, a)
        return matmul(out, a) if n == 3 else out
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


# ---- the pseudo-inverse ---------------------------------------------------------------------


def _pinv_fwd(xp, a, *, atol, rtol, hermitian):
    # singular values (|eigenvalues| of a Hermitian A, its lower triangle read) at or below
    # max(atol, rtol * the largest) count as zero; atol and rtol are numbers or batch arrays
    if hermitian:
        s, u = xp.linalg.eigh(a)
        size, vh = xp.abs(s), u.swapaxes(-1, -2).conj()
    else:
        u, s, vh = xp.linalg.svd(a, full_matrices=False)
        size = s
    largest = size.max(axis=-1, keepdims=True, initial=0.0)
    cutoff = xp.maximum(xp.asarray(atol)[..., None], xp.asarray(rtol)[..., None] * largest)
    keep = size > cutoff
    inverse = xp.where(keep, 1 / xp.where(keep, s, 1), 0).astype(u.dtype)
    # A^+ = V diag(1/s) U^H
    return (vh.swapaxes(-1, -2).conj() * inverse[..., None, :]) @ u.swapaxes(-1, -2).conj()


def _pinv_grad(g, a, out):
    # the derivative of the Moore-Penrose inverse P of a full-rank A (Golub & Pereyra, 1973)
    m, n = a.shape[-2], a.shape[-1]
    ph = out.mT
    if m <= n:
        k = g.mT @ out
        kph = k @ ph
        return -(out @ k).mT + kph - (a @ out) @ kph + (ph @ out) @ (g.mT - k @ a)
    k = out @ g.mT
    phk = ph @ k
    return -(k @ out).mT + (g.mT - a @ k) @ out @ ph + phk - phk @ out @ a


PINV = defop("linalg_pinv", _pinv_fwd, {"a": _pinv_grad}, node="LinalgPinvBackward0")


@public
def pinverse(input, rcond: float = 1e-15):
    """Matches `torch.pinverse`: the Moore-Penrose pseudo-inverse."""
    _check(input, "linalg.pinv")
    return apply(PINV, (input,), {"atol": 0.0, "rtol": rcond, "hermitian": False})


# ---- torch.svd, inner, vdot -----------------------------------------------------------------


@public
def svd(input, some: bool = True, compute_uv: bool = True):
    """Matches `torch.svd`: (U, S, V) with input = U diag(S) V^T (V, not linalg.svd's Vh);
    `some=False` gives square U and V; `compute_uv=False` gives zero U and V."""
    _check(input, "linalg.svd")
    U, S, Vh = linalg_svd(input, full_matrices=not some)  # noqa: N806
    if not compute_uv:
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        U = input.new_zeros(batch + (m, m))  # noqa: N806
        return _svd_result(U, S, input.new_zeros(batch + (n, n)))
    return _svd_result(U, S, Vh.mT)


@public
def inner(input, other):
    """Matches `torch.inner`: sums over the last dimension of both."""
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}"
        )
    return tensordot(input, other, ([-1], [-1]))


VDOT = defop(
    "vdot",
    lambda xp, x, y: xp.asarray(xp.sum(xp.conj(x) * y)),
    # antiholomorphic in x: its gradient is conj(g) y (Note [Complex gradients])
    {"x": lambda g, y: conjugate(g) * y, "y": lambda g, x: g * x},
)


@public
def vdot(input, other):
    """Matches `torch.vdot`: the dot product, the first vector conjugated."""
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors"
        )
    if input.dtype != other.dtype:
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{input.dtype._legacy} and {other.dtype._legacy}"
        )
    if input.shape != other.shape:
        n, m = input.shape[0], other.shape[0]
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
            f"number of elements, but got {n} and {m} elements respectively"
        )
    return apply(VDOT, (input, other))
