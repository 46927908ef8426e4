"""The op table: its machinery (`table/`), array helpers (`arrays/`) and one package per op
family; importing it registers every row and attaches the Tensor methods."""

from __future__ import annotations

from .._tensor import Tensor

# importing a family's module registers its rows and methods (the packages import nothing
# themselves, so that a module can import another family's without loading all of it)
from .creation import (  # noqa: F401
    buffers,
    conversion,
    dlpack_methods,
    factories,
    fill,
    random,
    random_fill,
    random_sampling,
    ranges,
    tensor_types,
    windows,
)
from .elementwise import (  # noqa: F401
    activation,
    arithmetic,
    binary_math,
    bitwise,
    compare,
    complex_numbers,
    fused,
    gamma,
    gelu,
    number_theory,
    python_callables,
    rounding,
    special,
    special_bessel,
    unary,
)
from .fft import frequencies, istft, n_dim, one_dim, stft, transforms  # noqa: F401
from .linalg import (  # noqa: F401
    cholesky,
    composites,
    decomposition,
    distance,
    einsum,
    fused_inplace,
    fused_products,
    householder,
    lapack_qr,
    ldl,
    least_squares,
    lu,
    matrix_functions,
    multi_dot,
    pdist,
    products,
    qr,
    removed,
    solvers,
    spectral,
)
from .nn import (  # noqa: F401
    attention,
    channel_shuffle,
    conv,
    embedding,
    fold,
    grid_sample,
    linear,
    loss,
    native_ops,
    norm,
    pad,
    pixel,
    pool,
    pool_adaptive,
    pool_functional,
    shrink,
    unpool,
    upsample,
    weight_norm,
)
from .reduction import (  # noqa: F401
    aten_norms,
    cumulative,
    finite_differences,
    histograms,
    integration,
    norms,
    quantiles,
    reduce_ops,
    searching,
    softmax,
    sorting,
    statistics,
)
from .shape import (  # noqa: F401
    diagonal,
    grids,
    index_dim,
    index_put,
    indexing,
    inplace_views,
    joining,
    masked,
    put,
    rearrange,
    reshaping,
    scatter,
    scatter_reduce,
    storage,
    strided_scatter,
    structure,
    view_copies,
)
from .sparse import construction, kernels  # noqa: F401
from .sparse import products as sparse_products  # noqa: F401
from .table.promotion import result_type
from .table.registry import OPS
from .table.surface import FUNCTIONS, METHODS, install

__all__ = ["OPS", "FUNCTIONS", "METHODS", "result_type"]

install(Tensor)
