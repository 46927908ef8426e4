"""Making tensors: factories, ranges, random numbers, and dtype/device conversion.

Importing the package registers every row of its modules.
"""

from . import (  # noqa: F401 - importing a module registers its rows and methods
    conversion,
    factories,
    random,
    random_fill,
    random_sampling,
    ranges,
)
