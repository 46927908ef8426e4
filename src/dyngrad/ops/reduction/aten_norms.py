"""The ATen norm nodes that the composite functions record: `norm(x, p, dim)` under
`pairwise_distance` (NormBackward1) and `torch.dist` (DistBackward0). Same values and
formulas as `linalg.vector_norm`; only the node differs, as in PyTorch."""

from __future__ import annotations

from ..table import promotion
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .norms import _vector_norm_fwd, _vector_norm_grad

NORM_DIM = defop(
    "norm_dim",
    _vector_norm_fwd,
    {"x": _vector_norm_grad},
    node="NormBackward1",
)


def norm_dim(input, p, dim: int, keepdim: bool = False):
    """ATen's `norm(input, p, dim, keepdim)`: the node `pairwise_distance` records."""
    return apply(NORM_DIM, (input,), {"ord": p, "dim": (dim % input.dim(),), "keepdim": keepdim})


def _dist_fwd(xp, x, y, *, p):
    return _vector_norm_fwd(xp, x - y, ord=p, dim=None, keepdim=False)


def _dist_grad(g, x, y, p, out):
    return _vector_norm_grad(g, x - y, out, p, None, False)


def _negated(grad):
    return None if grad is None else -grad  # None: p = 0 has no gradient at all


DIST = defop(
    "dist",
    _dist_fwd,
    {"x": _dist_grad, "y": lambda g, x, y, p, out: _negated(_dist_grad(g, x, y, p, out))},
    promote=promotion.binary,
)


@public
def dist(input, other, p=2):
    """Matches `torch.dist`: the p-norm of input - other (broadcast)."""
    return apply(DIST, (input, other), {"p": float(p)})


# ---- renorm ---------------------------------------------------------------------------------


def _renorm_factor_parts(x, p, dim, maxnorm):
    dims = tuple(d for d in range(x.dim()) if d != dim)
    norm = apply(NORM_DIM, (x,), {"ord": p, "dim": dims, "keepdim": True}) if dims else x.abs()
    over = norm > maxnorm
    factor = (maxnorm / (norm + 1e-7)).masked_fill(~over, 1.0)
    return dims, norm, over, factor


def _renorm_fwd(xp, x, *, p, dim, maxnorm):
    dims = tuple(d for d in range(x.ndim) if d != dim)
    norm = _vector_norm_fwd(xp, x, ord=p, dim=dims, keepdim=True)
    factor = xp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(x.dtype)
    return x * factor


def _renorm_grad(g, x, p, dim, maxnorm):
    # out = x f(|x|_p), f = maxnorm / (|x|_p + 1e-7) where |x|_p > maxnorm, else 1
    dims, norm, over, factor = _renorm_factor_parts(x, p, dim, maxnorm)
    slope = (-maxnorm / (norm + 1e-7) ** 2).masked_fill(~over, 0.0)
    through_norm = (g * x).sum(dims, keepdim=True) * slope if dims else g * x * slope
    return g * factor + _vector_norm_grad(through_norm, x, norm, p, dims, True)


RENORM = defop("renorm", _renorm_fwd, {"x": _renorm_grad})


def _check_renorm(input, p, dim, maxnorm):
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.dim() <= 1:
        raise RuntimeError(
            f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions"
        )
    return dim % input.dim()


@public
def renorm(input, p, dim: int, maxnorm):
    """Matches `torch.renorm`: each slice along `dim` whose p-norm exceeds maxnorm is scaled
    down to it."""
    dim = _check_renorm(input, p, dim, maxnorm)
    return apply(RENORM, (input,), {"p": float(p), "dim": dim, "maxnorm": float(maxnorm)})


@public(function=False)
def renorm_(self, p, dim: int, maxnorm):
    dim = _check_renorm(self, p, dim, maxnorm)
    attrs = {"p": float(p), "dim": dim, "maxnorm": float(maxnorm)}
    return apply_inplace(RENORM, (self,), attrs, name="renorm_")
