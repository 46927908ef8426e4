"""The op table: its machinery (`table/`), array helpers (`arrays/`) and one package per op
family; importing it registers every row and attaches the Tensor methods."""

from __future__ import annotations

from .._tensor import Tensor
from . import creation, elementwise, linalg, nn, reduction, shape  # noqa: F401 - registers rows
from .table.promotion import result_type
from .table.registry import OPS
from .table.surface import FUNCTIONS, METHODS, install

__all__ = ["OPS", "FUNCTIONS", "METHODS", "result_type"]

install(Tensor)
