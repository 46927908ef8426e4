"""Weight normalisation's ops: `norm_except_dim`, `_weight_norm` and its fused row
(`_weight_norm_interface`, PyTorch's `WeightNormInterfaceBackward0`).

# Note [Weight norm's two graphs]
# w = v * (g / ||v||), the norm taken over every dim but `dim`. PyTorch runs a fused kernel
# (one node, WeightNormInterfaceBackward0, edges v and g) when `dim` is the first or the last
# dim, and the composite (MulBackward0 over DivBackward0 over the norm's nodes) otherwise,
# `dim=-1` meaning the norm of the whole tensor; so does this. The fused row's formulas
# recompute the norm from v with Tensor ops (rather than reading the norms it output), so
# that double backward differentiates through it.
"""

from __future__ import annotations

from ..reduction.aten_norms import norm_all, norm_dim
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public


def _other_axes(ndim: int, dim: int) -> tuple:
    return tuple(i for i in range(ndim) if i != dim)


def _weight_norm_fwd(xp, v, gain, *, dim):
    norms = xp.sqrt(xp.sum(v * v, axis=_other_axes(v.ndim, dim), keepdims=True))
    return v * (gain / norms), norms


def _grads(g, v, gain, dim):
    # with n = ||v|| (over the other dims) and s = sum(grad * v) (likewise):
    #   dL/dg = s / n,   dL/dv = (g / n) * (grad - v * s / n^2)
    grad = g[0]
    norms = norm_except_dim(v, 2, dim)
    s = (grad * v).sum(list(_other_axes(v.dim(), dim)), keepdim=True)
    return grad, norms, s


def _v_grad(g, v, gain, dim):
    grad, norms, s = _grads(g, v, gain, dim)
    return (gain / norms) * (grad - v * (s / (norms * norms)))


def _gain_grad(g, v, dim):
    _, norms, s = _grads(g, v, None, dim)
    return s / norms


WEIGHT_NORM_INTERFACE = defop(
    "weight_norm_interface",
    _weight_norm_fwd,
    {"v": _v_grad, "gain": _gain_grad},
    node="WeightNormInterfaceBackward0",
    outputs=2,
    differentiable=(0,),
)


@public(method=False)
def norm_except_dim(v, pow: int = 2, dim: int = 0):  # noqa: A002 - PyTorch's name
    """Matches `torch.norm_except_dim`: the `pow`-norm over every dim but `dim`, kept as size-1
    dims (`dim=-1`: the norm of the whole tensor, a scalar); recorded as PyTorch's steps."""
    if dim == -1:
        return norm_all(v, pow)
    last = v.dim() - 1
    if dim == 0:
        flat = v.contiguous().view(v.shape[0], -1)
        return norm_dim(flat, pow, 1).view([v.shape[0]] + [1] * last)
    if dim == last:
        flat = v.contiguous().view(-1, v.shape[last])
        return norm_dim(flat, pow, 0).view([1] * last + [v.shape[last]])
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


@public(method=False)
def _weight_norm_interface(v, g, dim: int = 0):
    """Matches `torch._weight_norm_interface`: (v * g / ||v||, the norms), one node."""
    return apply(WEIGHT_NORM_INTERFACE, (v, g), {"dim": dim % v.dim()})


@public(method=False)
def _weight_norm(v, g, dim: int = 0):
    """Matches `torch._weight_norm`: v * (g / norm_except_dim(v, 2, dim)); the fused node when
    `dim` is v's first or last dim. See Note [Weight norm's two graphs]."""
    if dim in (0, v.dim() - 1) and v.dim() > 0:  # the kernel takes contiguous inputs
        return _weight_norm_interface(v.contiguous(), g.contiguous(), dim)[0]
    return v * (g / norm_except_dim(v, 2, dim))
