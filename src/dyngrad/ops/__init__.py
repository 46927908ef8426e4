"""The op table, one file per op family; importing it attaches the Tensor methods."""

from __future__ import annotations

from .._tensor import Tensor
from . import (  # noqa: F401 - importing a family registers its rows and methods
    activation,
    binary_math,
    bitwise,
    compare,
    conversion,
    creation,
    cumulative,
    decomposition,
    diagonal,
    distance,
    einsum,
    elementwise,
    fused,
    gelu,
    index_dim,
    index_put,
    indexing,
    joining,
    linalg,
    linalg_cholesky,
    masked,
    nn_conv,
    nn_fold,
    nn_linear,
    nn_loss,
    nn_norm,
    nn_pixel,
    nn_pool,
    nn_pool_adaptive,
    nn_sparse,
    nn_upsample,
    norms,
    random_creation,
    random_fill,
    random_sampling,
    ranges,
    rearrange,
    reduction,
    rounding,
    scatter,
    shape,
    softmax,
    sorting,
    special_functions,
    special_gamma,
    statistics,
    unary,
    utilities,
)
from .promotion import result_type
from .registry import OPS
from .surface import FUNCTIONS, METHODS, install

__all__ = ["OPS", "FUNCTIONS", "METHODS", "result_type"]

install(Tensor)
