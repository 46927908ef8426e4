"""What a foreach call was given: its lists checked as PyTorch checks them, and each argument
sorted into the overload it selects (a Scalar, a list of Scalars, a TensorList, a Tensor)."""

from __future__ import annotations

import numbers

from ..._tensor import Tensor

__all__ = [
    "Column",
    "tensor_list",
    "same_length",
    "scalar_list",
    "scalar_tensor",
    "packed_scalars",
    "kind_of",
]

EMPTY = "Tensor list must have at least one tensor."
SCALARS = "Tensor list must have same number of elements as scalar list."


class Column:
    """One argument of a foreach call as it runs per element: a list (element i takes item
    i) or one value every element takes; `tensors` says whether it holds inputs."""

    __slots__ = ("values", "per_element", "tensors")

    def __init__(self, values, per_element: bool, tensors: bool) -> None:
        self.values = values
        self.per_element = per_element
        self.tensors = tensors

    def at(self, i: int):
        return self.values[i] if self.per_element else self.values


def tensor_list(name: str, value, position: int = 1, argument: str = "self") -> list:
    """`value` as a list of tensors, or PyTorch's error (PyTorch's own checks first)."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(
            f"{name}(): argument '{argument}' (position {position}) must be tuple of Tensors, "
            f"not {type(value).__name__}"
        )
    for i, t in enumerate(value):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument {position - 1}, but got "
                f"{type(t).__name__}"
            )
    if position == 1 and not value:
        raise RuntimeError(EMPTY + f"\n[dyngrad] {name} was given an empty list.")
    return value  # in-place ops hand back the very list they were given, as PyTorch's


def same_length(name: str, first: list, other: list, argument: str) -> None:
    """PyTorch's error for two tensor lists of different lengths."""
    if len(first) != len(other):
        raise RuntimeError(
            f"Tensor lists must have the same number of tensors, got {len(first)} and "
            f"{len(other)}\n[dyngrad] {name}: `{argument}` must hold one tensor per tensor "
            "of `self`."
        )


def scalar_list(name: str, tensors: list, scalars) -> list:
    """A list of numbers, one per tensor, or PyTorch's error."""
    scalars = list(scalars)
    if len(scalars) != len(tensors):
        raise RuntimeError(
            SCALARS + f"\n[dyngrad] {name} got {len(tensors)} tensors and {len(scalars)} scalars."
        )
    return scalars


def scalar_tensor(name: str, other: Tensor) -> Tensor:
    """The one Tensor every element takes (`_foreach_mul(xs, t)`): it must be 0-dim."""
    if other.dim() != 0:
        raise RuntimeError(
            f"scalar tensor expected to be 0 dim but it has {other.dim()} dimensions and "
            f"{other.numel()} elements."
        )
    return other


def packed_scalars(tensors: list, scalars: Tensor) -> list:
    """A 1-dim tensor of one scalar per tensor (`_foreach_addcmul(..., scalars=t)`), as
    numbers, or PyTorch's error."""
    if scalars.dim() != 1:
        raise RuntimeError(
            f"Expected packed scalar Tensor to be of dimension 1. Got {scalars.dim()} instead."
        )
    if scalars.numel() != len(tensors):
        raise RuntimeError(
            f"Expected length of scalars to match input of length {len(tensors)} but got "
            f"{scalars.numel()} instead."
        )
    return scalars.tolist()


def kind_of(value) -> str:
    """Which overload an argument selects: "List" (of tensors), "ScalarList", "Tensor",
    "Scalar", or "" for anything else."""
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, Tensor) for v in value):
            return "List"
        if all(_is_scalar(v) for v in value):
            return "ScalarList"
        return ""
    return "Scalar" if _is_scalar(value) else ""


def _is_scalar(value) -> bool:
    return isinstance(value, (numbers.Number, bool)) and not isinstance(value, Tensor)
