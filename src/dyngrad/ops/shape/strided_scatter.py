"""`torch.as_strided_scatter`: a copy of the input with `src` written where
`input.as_strided(size, stride, storage_offset)` would read."""

from __future__ import annotations

from ..._tensor import Tensor
from ...graph.grad_mode import no_grad
from ..creation.factories import zeros
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .joining import _promote_all
from .storage import _positions, _strided_attrs
from .structure import _check_src

__all__ = ["as_strided_scatter"]

# PyTorch writes into a clone of the input, so `stride` and `storage_offset` count elements of
# that clone's memory from its first element; dyngrad's clone is in C order (a permuted input
# is read in its logical order, where PyTorch's clone keeps the permuted layout)


def _scatter_fwd(xp, x, src, *, size, stride, offset):
    out = xp.ascontiguousarray(x).copy()
    flat = out.reshape(-1)
    flat[_positions(size, stride, offset).reshape(-1)] = src.reshape(-1)
    return out


def _x_grad(g, src, size, stride, offset):
    return as_strided_scatter(g, zeros(size, dtype=g.dtype), size, stride, offset)


def _src_grad(g, size, stride, offset):
    return g.contiguous().as_strided(size, stride, offset)


AS_STRIDED_SCATTER = defop(
    "as_strided_scatter",
    _scatter_fwd,
    {"x": _x_grad, "src": _src_grad},
    promote=_promote_all,
)


@public
def as_strided_scatter(input: Tensor, src: Tensor, size, stride, storage_offset=None) -> Tensor:
    """Matches `torch.as_strided_scatter` and `Tensor.as_strided_scatter`."""
    with no_grad():  # the geometry's checks, on memory laid out as the result's
        attrs = _strided_attrs(
            input.detach().clone().contiguous(),
            size,
            stride,
            storage_offset or 0,
            "as_strided_scatter",
        )
    size, stride, offset = attrs["size"], attrs["stride"], attrs["offset"]
    _check_src(src, size)
    return apply(
        AS_STRIDED_SCATTER, (input, src), {"size": size, "stride": stride, "offset": offset}
    )
