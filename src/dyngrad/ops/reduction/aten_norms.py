"""The ATen norm nodes that the composite functions record: `norm(x, p, dim)` under
`pairwise_distance` (NormBackward1) and `torch.dist` (DistBackward0). Same values and
formulas as `linalg.vector_norm`; only the node differs, as in PyTorch."""

from __future__ import annotations

from ..table import promotion
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


DIST = defop(
    "dist",
    _dist_fwd,
    {"x": _dist_grad, "y": lambda g, x, y, p, out: -_dist_grad(g, x, y, p, out)},
    promote=promotion.binary,
)


@public
def dist(input, other, p=2):
    """Matches `torch.dist`: the p-norm of input - other (broadcast)."""
    return apply(DIST, (input, other), {"p": float(p)})
