"""Elementwise ops: arithmetic, math functions, comparisons, rounding, bits, activations.

Importing the package registers every row of its modules.
"""

from . import (  # noqa: F401 - importing a module registers its rows and methods
    activation,
    arithmetic,
    binary_math,
    bitwise,
    compare,
    fused,
    gamma,
    gelu,
    rounding,
    special,
    unary,
)
