"""The op table, one file per op family; importing it attaches the Tensor methods."""

from __future__ import annotations

from .._tensor import Tensor
from . import conversion, creation, elementwise, indexing, linalg, reduction, shape  # noqa: F401
from .promotion import result_type
from .registry import OPS
from .surface import FUNCTIONS, METHODS, install

__all__ = ["OPS", "FUNCTIONS", "METHODS", "result_type"]

install(Tensor)
