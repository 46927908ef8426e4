"""`torch.fill`: a new tensor shaped and typed as the input, every element `value`
(FillBackward0 with a number, FillBackward1 with a 0-d tensor, whose gradient is g summed)."""

from __future__ import annotations

from ..._tensor import Tensor
from ..table.arguments import fill_value
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .factories import zeros_like

__all__ = ["fill"]

FILL_SCALAR = defop(
    "fill_scalar",
    lambda xp, x, *, value: xp.full_like(x, value),
    {"x": lambda g: zeros_like(g)},
    node="FillBackward0",
)
FILL_VALUE = defop(
    "fill_value_tensor",
    lambda xp, x, value: xp.broadcast_to(value, x.shape).astype(x.dtype),
    {"x": lambda g: zeros_like(g), "value": lambda g: g},
    node="FillBackward1",
)


@public(method=False)
def fill(input: Tensor, value) -> Tensor:
    """Matches `torch.fill`: `input.clone().fill_(value)`, as one out-of-place node."""
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value._data.ndim} dimensions."
            )
        return apply(FILL_VALUE, (input, value))
    return apply(FILL_SCALAR, (input,), {"value": fill_value(value, input.dtype)})
