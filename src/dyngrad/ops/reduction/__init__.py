"""Reductions: sums and extrema, statistics, cumulative ops, norms, sorting, softmax.

Importing the package registers every row of its modules.
"""

from . import (  # noqa: F401 - importing a module registers its rows and methods
    cumulative,
    norms,
    reduce_ops,
    softmax,
    sorting,
    statistics,
)
