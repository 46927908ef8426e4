"""Linear algebra: products, decompositions, Cholesky, einsum, distances.

Importing the package registers every row of its modules.
"""

from . import (  # noqa: F401 - importing a module registers its rows and methods
    cholesky,
    decomposition,
    distance,
    einsum,
    products,
)
