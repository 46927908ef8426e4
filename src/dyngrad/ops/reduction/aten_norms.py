"""The ATen norm nodes that the composite functions record: `norm(x, p, dim)` under
`pairwise_distance` (NormBackward1) and `torch.dist` (DistBackward0). Same values and
formulas as `linalg.vector_norm`; only the node differs, as in PyTorch. And the deprecated
`torch.frobenius_norm` and `torch.nuclear_norm`."""

from __future__ import annotations

import warnings

from ...runtime.warn_always import warn_once
from ..table import promotion
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .norms import _vector_norm_fwd, _vector_norm_grad, matrix_norm
from .reduce_ops import reduce_dims

NORM_DIM = defop(
    "norm_dim",
    _vector_norm_fwd,
    {"x": _vector_norm_grad},
    node="NormBackward1",
)


# ATen's `norm(input, p)` over every element (NormBackward0), which C++ composites call
# (`norm_except_dim(v, p, -1)`); Python's `torch.norm` goes to linalg.vector_norm instead.
NORM = defop("norm", _vector_norm_fwd, {"x": _vector_norm_grad}, node="NormBackward0")


def norm_all(input, p):
    """ATen's `norm(input, p)`: the p-norm of every element (NormBackward0)."""
    return apply(NORM, (input,), {"ord": p, "dim": None, "keepdim": False})


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


# ---- the deprecated aliases -----------------------------------------------------------------


def _warn_deprecated(name: str, instead: str) -> None:
    if warn_once(name):
        warnings.warn(
            f"at::{name} is deprecated and it is just left for JIT compatibility. It will be "
            f"removed in a future PyTorch release. Please use `{instead}` instead",
            UserWarning,
            stacklevel=3,
        )


@public(method=False)
def frobenius_norm(input, dim, keepdim: bool = False, *, out=None):
    """Matches `torch.frobenius_norm` (deprecated): the 2-norm over `dim` (at most two dims;
    none means all), recorded as ATen's `norm` (NormBackward1)."""
    _warn_deprecated("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(
            f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead."
        )
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. "
            f"Got {input.dtype._legacy} instead."
        )
    attrs = {"ord": 2.0, "dim": reduce_dims(input, dims), "keepdim": bool(keepdim)}
    return apply(NORM_DIM, (input,), attrs)


@public(method=False)
def nuclear_norm(input, dim=None, keepdim: bool = False, *, out=None):
    """Matches `torch.nuclear_norm` (deprecated): `nuclear_norm(A, keepdim=False)` over the
    last two dims, or `nuclear_norm(A, dim, keepdim=False)`; the sum of singular values."""
    _warn_deprecated("nuclear_norm", "linalg.matrix_norm(A, 'nuc', dim, keepdim)")
    if isinstance(dim, bool):  # the (input, keepdim) overload
        dim, keepdim = None, dim
    return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)
