"""Parameters as one flat vector and back."""

from __future__ import annotations

from ..._tensor import Tensor
from ..._typename import typename
from ...ops.shape.joining import cat

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters) -> Tensor:
    """Matches `torch.nn.utils.parameters_to_vector`: one differentiable flat tensor."""

    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Matches `torch.nn.utils.vector_to_parameters`: slices of `vec` become the parameters'
    data."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer : pointer + n].view_as(param).data
        pointer += n
