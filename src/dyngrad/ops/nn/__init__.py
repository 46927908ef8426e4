"""The ops under torch.nn.functional: convolution, linear, losses, norms, pooling, embedding.

Importing the package registers every row of its modules.
"""

from . import (  # noqa: F401 - importing a module registers its rows and methods
    conv,
    embedding,
    fold,
    linear,
    loss,
    norm,
    pixel,
    pool,
    pool_adaptive,
    pool_functional,
    upsample,
)
