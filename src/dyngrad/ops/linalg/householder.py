"""`linalg.householder_product`: the first columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T,
the reflectors stored below A's diagonal as LAPACK's geqrf leaves them (orgqr)."""

from __future__ import annotations

from ..creation.ranges import eye
from ..shape.joining import cat, stack
from ..table.errors import expect_tensor
from ..table.record import apply
from ..table.registry import defop
from .solvers import column_major


def _householder_fwd(xp, a, tau):
    m, n = a.shape[-2:]
    q = xp.broadcast_to(xp.eye(m, dtype=a.dtype), a.shape[:-2] + (m, m)).copy()
    for i in range(tau.shape[-1]):
        v = a[..., :, i].copy()
        v[..., :i] = 0
        v[..., i] = 1
        # Q H_i = Q - tau_i (Q v) v^H (v^T for real A)
        q -= tau[..., i, None, None] * (q @ v[..., :, None]) * v[..., None, :].conj()
    return column_major(q[..., :n])


def _reflector(a, i: int):
    # v_i: zeros above i, one at i, A's column i below
    m = a.shape[-2]
    column = a[..., i + 1 :, i]
    head = column.new_zeros((*column.shape[:-1], i + 1))
    head[..., i] = 1
    return cat([head, column], -1) if i + 1 < m else head


def _adjoint(x):
    return x.mT.conj() if x.is_complex() else x.mT


def _conj(x):
    return x.conj() if x.is_complex() else x


def _householder_grads(g, a, tau):
    """(gA, gtau): Q = P_i H_i S_i with P_i, S_i the products before and after H_i, so
    gH_i = P_i^H gQ S_i^H; then H_i = I - tau_i v v^H gives gtau_i = -v^H gH_i v and
    gv = -(conj(tau_i) gH_i + tau_i gH_i^H) v, whose part below the diagonal is A's column i
    (for real A: gv = -tau_i (gH_i + gH_i^T) v)."""
    m, n, k = a.shape[-2], a.shape[-1], tau.shape[-1]
    if k == 0:  # Q is I's first columns whatever A is: no gradients, as PyTorch gives none
        return None, None
    identity = eye(m, dtype=a.dtype)
    vs = [_reflector(a, i) for i in range(k)]
    hs = [
        identity - tau[..., i, None, None] * vs[i].unsqueeze(-1) * _conj(vs[i]).unsqueeze(-2)
        for i in range(k)
    ]
    suffix = [None] * k
    after = identity[:, :n]
    for i in range(k - 1, -1, -1):
        suffix[i] = after
        after = hs[i] @ after
    before, columns, grad_tau = identity, [], []
    for i in range(k):
        grad_h = _adjoint(before) @ g @ _adjoint(suffix[i])
        v, t = vs[i], tau[..., i, None]
        grad_tau.append(-(_conj(v).unsqueeze(-2) @ grad_h @ v.unsqueeze(-1))[..., 0, 0])
        if a.is_complex():
            grad_v = -(_conj(t) * (grad_h @ v.unsqueeze(-1))[..., 0])
            grad_v = grad_v - t * (_adjoint(grad_h) @ v.unsqueeze(-1))[..., 0]
        else:
            grad_v = -t * ((grad_h + grad_h.mT) @ v.unsqueeze(-1))[..., 0]
        columns.append(
            cat([grad_v.new_zeros((*grad_v.shape[:-1], i + 1)), grad_v[..., i + 1 :]], -1)
        )
        before = before @ hs[i]
    zero = a.new_zeros((*a.shape[:-2], m))
    columns += [zero] * (n - k)
    return stack(columns, -1), stack(grad_tau, -1)


HOUSEHOLDER_PRODUCT = defop(
    "linalg_householder_product",
    _householder_fwd,
    {
        "a": lambda g, a, tau: _householder_grads(g, a, tau)[0],
        "tau": lambda g, a, tau: _householder_grads(g, a, tau)[1],
    },
    node="LinalgHouseholderProductBackward0",
)


def householder_product(A, tau, *, out=None):  # noqa: N803
    """Matches `torch.linalg.householder_product`: the first n columns of the product of
    the Householder reflectors stored in A (below the diagonal) with coefficients tau."""
    expect_tensor("linalg_householder_product", "input", 1, A)
    expect_tensor("linalg_householder_product", "tau", 2, tau)
    name = "torch.linalg.householder_product"
    shape = tuple(A.shape)
    if len(shape) < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if shape[-2] < shape[-1]:
        raise RuntimeError(
            f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]"
        )
    if tau.dim() == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if shape[-1] < tau.shape[-1]:
        raise RuntimeError(
            f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]"
        )
    if tau.dim() != len(shape) - 1:
        raise RuntimeError(
            f"{name}: Expected tau to have one dimension less than input, but got tau.ndim "
            f"equal to {tau.dim()} and input.ndim is equal to {len(shape)}"
        )
    if tuple(tau.shape[:-1]) != shape[:-2]:
        raise RuntimeError(
            f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but "
            f"got {list(tau.shape[:-1])}"
        )
    if tau.dtype != A.dtype:
        raise RuntimeError(
            f"{name}: tau dtype {tau.dtype._legacy} does not match input dtype {A.dtype._legacy}"
        )
    if A._data.dtype.kind not in "fc" or A.dtype._legacy in ("Half", "BFloat16"):
        raise NotImplementedError(f"\"orgqr_cpu\" not implemented for '{A.dtype._legacy}'")
    return apply(HOUSEHOLDER_PRODUCT, (A, tau))
