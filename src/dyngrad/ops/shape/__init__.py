"""Shapes and indices: views, rearranging, joining, diagonals, indexing, scatter, masks.

Importing the package registers every row of its modules.
"""

from . import (  # noqa: F401 - importing a module registers its rows and methods
    diagonal,
    grids,
    index_dim,
    index_put,
    indexing,
    joining,
    masked,
    rearrange,
    reshaping,
    scatter,
)
