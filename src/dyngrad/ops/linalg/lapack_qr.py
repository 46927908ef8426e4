"""LAPACK's QR routines as PyTorch publishes them: `geqrf` (A in compact Householder form),
`orgqr` (Q from it: `linalg.householder_product`) and `ormqr` (Q times a matrix)."""

from __future__ import annotations

from ..._tensor import Tensor
from ...return_types import _result_type
from ...runtime import dtypes
from ..shape.joining import cat
from ..table.errors import expect_tensor
from ..table.out import write_into
from ..table.record import apply
from ..table.registry import defop, refused
from ..table.surface import public
from .householder import (
    HOUSEHOLDER_PRODUCT,
    _householder_fwd,
    _householder_grads,
    householder_product,
)
from .solvers import column_major

geqrf_result = _result_type("geqrf", ("a", "tau"))

_FLOATING = ("Float", "Double", "ComplexFloat", "ComplexDouble")


def _geqrf_fwd(xp, a):
    m, n = a.shape[-2:]
    if a.size == 0:
        return column_major(a.copy()), xp.zeros(a.shape[:-2] + (min(m, n),), a.dtype)
    # NumPy's raw QR is LAPACK's geqrf on the transpose of its (C-ordered) input: its `h`
    # is geqrf's `a` transposed, its tau geqrf's. It computes float32 in float64.
    h, tau = xp.linalg.qr(a, mode="raw")
    return column_major(h.swapaxes(-1, -2).astype(a.dtype)), tau.astype(a.dtype)


# PyTorch records a GeqrfBackward0 node whose backward refuses
GEQRF = defop(
    "geqrf",
    _geqrf_fwd,
    {"a": refused("the derivative for 'geqrf' is not implemented.", NotImplementedError)},
    outputs=2,
)


@public
def geqrf(input, *, out=None):
    """Matches `torch.geqrf`: `(a, tau)`, LAPACK's geqrf: R on and above a's diagonal, the
    Householder vectors below it, their coefficients in tau. Not differentiable (as in torch)."""
    expect_tensor("geqrf", "input", 1, input)
    if input.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    kind = input.dtype._legacy
    if kind not in _FLOATING:
        raise NotImplementedError(f"\"geqrf_cpu\" not implemented for '{kind}'")
    if out is None:
        return geqrf_result(*apply(GEQRF, (input,)))
    if not isinstance(out, (tuple, list)):
        raise TypeError(
            f"geqrf(): argument 'out' must be tuple of Tensors, not {type(out).__name__}"
        )
    for name, target in zip(("a", "tau"), out):
        if isinstance(target, Tensor) and not dtypes.can_cast(input.dtype, target.dtype):
            raise RuntimeError(
                f"torch.geqrf: Expected {name} to be safely castable from {input.dtype._legacy} "
                f"dtype, but got {name} with dtype {target.dtype._legacy}"
            )
    return write_into("geqrf", out, lambda: geqrf_result(*apply(GEQRF, (input,))), (input,))


@public
def orgqr(input, tau):
    """Matches `torch.orgqr`: `linalg.householder_product(input, tau)`."""
    expect_tensor("orgqr", "input", 1, input)
    expect_tensor("orgqr", "input2", 2, tau)
    return householder_product(input, tau)


# ---- ormqr -------------------------------------------------------------------------------------


def _reflectors(a, k: int):
    """A's first k columns padded with zero columns to m x m: the reflectors whose product
    is ormqr's full Q (householder_product gives its first m columns)."""
    m = a.shape[-2]
    head = a[..., :, :k]
    return head if m == k else cat([head, head.new_zeros((*head.shape[:-1], m - k))], -1)


def _ormqr_fwd(xp, a, tau, other, *, left, transpose):
    k, m = tau.shape[-1], a.shape[-2]
    reflectors = xp.zeros(a.shape[:-1] + (m,), a.dtype)
    reflectors[..., :k] = a[..., :, :k]
    q = _householder_fwd(xp, reflectors, tau)
    if transpose:
        q = q.swapaxes(-1, -2).conj()
    return column_major(q @ other if left else other @ q)


def _ormqr_q(a, tau):
    return apply(HOUSEHOLDER_PRODUCT, (_reflectors(a, tau.shape[-1]), tau))


def _ormqr_grad_other(g, a, tau, left, transpose):
    # R = op(Q) C: gC = op(Q)^H g; R = C op(Q): gC = g op(Q)^H
    q = _ormqr_q(a, tau)
    q_h = q if transpose else q.mT.conj()
    return q_h @ g if left else g @ q_h


def _ormqr_grad_factors(g, a, tau, other, left, transpose):
    """(gA, gtau) through Q = H_1 ... H_k, from gQ: g C^H (left) or C^H g (right), then
    conjugate-transposed when R used Q^H."""
    k, n = tau.shape[-1], a.shape[-1]
    c_h = other.mT.conj()
    grad_q = g @ c_h if left else c_h @ g
    if transpose:
        grad_q = grad_q.mT.conj()
    grad_a, grad_tau = _householder_grads(grad_q, _reflectors(a, k), tau)
    if grad_a is None:
        return None, None
    grad_a = grad_a[..., :, :k]
    if n > k:
        grad_a = cat([grad_a, grad_a.new_zeros((*grad_a.shape[:-1], n - k))], -1)
    return grad_a, grad_tau


ORMQR = defop(
    "ormqr",
    _ormqr_fwd,
    {
        "a": lambda g, a, tau, other, left, transpose: _ormqr_grad_factors(
            g, a, tau, other, left, transpose
        )[0],
        "tau": lambda g, a, tau, other, left, transpose: _ormqr_grad_factors(
            g, a, tau, other, left, transpose
        )[1],
        "other": _ormqr_grad_other,
    },
)


def _check_ormqr(input, tau, other, left: bool) -> None:
    name = "torch.ormqr"
    if input.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if other.dim() < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.dim() == 0 or tau.shape[-1] != min(other.shape[side], input.shape[-1]):
        raise RuntimeError(
            f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])"
        )
    if input.dim() - tau.dim() != 1:
        raise RuntimeError(
            f"{name}: Expected tau to have one dimension less than input, but got tau.ndim "
            f"equal to {tau.dim()} and input.ndim is equal to {input.dim()}"
        )
    if input.dim() != other.dim():
        raise RuntimeError(
            f"{name}: Expected other to have the same number of dimensions as input, but got "
            f"other.ndim equal to {other.dim()} and input.ndim is equal to {input.dim()}"
        )
    batch = tuple(input.shape[:-2])
    for arg, shape in (("tau", tuple(tau.shape[:-1])), ("other", tuple(other.shape[:-2]))):
        if shape != batch:
            raise RuntimeError(
                f"{name}: Expected batch dimensions of {arg} to be equal to input.shape[:-2], "
                f"but got {list(shape)}"
            )
    for arg, value in (("tau", tau), ("other", other)):
        if value.dtype != input.dtype:  # (PyTorch's text runs "dtype" into the name)
            raise RuntimeError(
                f"{name}: Expected input and {arg} to have the same dtype, but input has dtype"
                f"{input.dtype._legacy} and {arg} has dtype {value.dtype._legacy}"
            )
    kind = input.dtype._legacy
    if kind not in _FLOATING:
        raise NotImplementedError(f"\"ormqr_cpu\" not implemented for '{kind}'")


def _expect_bool(name: str, value) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"ormqr(): argument '{name}' must be bool, not {type(value).__name__}")


@public
def ormqr(input, input2, input3, left=True, transpose=False, *, out=None):
    """Matches `torch.ormqr`: op(Q) C (C op(Q) when not left), Q = H_1 ... H_k the full m x m
    product of the reflectors (input, tau) from `geqrf`, op(Q) = Q^H when transpose."""
    for position, (arg, value) in enumerate((("input", input), ("input2", input2)), 1):
        expect_tensor("ormqr", arg, position, value)
    expect_tensor("ormqr", "input3", 3, input3)
    _expect_bool("left", left)
    _expect_bool("transpose", transpose)
    tau, other = input2, input3
    _check_ormqr(input, tau, other, left)
    attrs = {"left": left, "transpose": transpose}
    if out is None:
        return apply(ORMQR, (input, tau, other), attrs)
    if out.dtype != input.dtype:
        raise RuntimeError(
            f"torch.ormqr: Expected input and result to have the same dtype, but input has "
            f"dtype{input.dtype._legacy} and result has dtype {out.dtype._legacy}"
        )
    return write_into(
        "ormqr", out, lambda: apply(ORMQR, (input, tau, other), attrs), (input, tau, other)
    )
