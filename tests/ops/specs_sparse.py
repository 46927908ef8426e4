"""Specs for the sparse COO family: each is a function of dense tensors that goes through a
sparse tensor and back, so gradcheck and gradgradcheck (in the values and the dense side) and
the torch parity test run on it as on any op. The gradients' own rows (sparse_mask,
sparse_values_at, sparse_sum_backward) are exercised by the gradgradchecks, hence `covers`.
"""

from __future__ import annotations

import numpy as np

from .spec import OpSpec, T

# a 3x4 pattern with a repeated entry (0, 1), so that nothing assumes coalesced input
INDICES = np.array([[0, 2, 1, 0, 2], [1, 3, 0, 1, 0]])
SHAPE = (3, 4)
NNZ = INDICES.shape[1]


def _coo(t, values, indices=INDICES, shape=None):
    shape = SHAPE + tuple(values.shape[1:]) if shape is None else shape
    return t.sparse_coo_tensor(t.tensor(indices), values, shape)


SPECS = [
    OpSpec(
        "sparse_addmm",
        lambda t, v, d: t.sparse.mm(_coo(t, v), d),
        [(T((NNZ,)), T((4, 2))), (T((NNZ,), grad=False), T((4, 3), nc=True))],
        covers=("sparse_coo_tensor", "sparse_mask", "sparse_values_at"),
    ),
    OpSpec(
        "sparse_mm_dense_gradient",
        lambda t, v, d: t.mm(_coo(t, v), d),
        [(T((NNZ,)), T((4, 2)))],
        covers=("sparse_coo_tensor",),
    ),
    OpSpec(
        "to_dense",
        lambda t, v: _coo(t, v).to_dense(),
        [(T((NNZ,)),), (T((NNZ, 2)),)],
        covers=("sparse_coo_tensor", "sparse_mask", "sparse_values_at"),
    ),
    OpSpec(
        "to_sparse",
        lambda t, x: x.to_sparse().to_dense() * 2,
        [(T((3, 4)),)],
        covers=("to_dense",),
        domain=(0.5, 2.0),  # no zeros: the pattern does not move while gradcheck probes
    ),
    OpSpec(
        "to_sparse_dim",
        lambda t, x: x.to_sparse(1).to_dense(),
        [(T((3, 4)),)],
        domain=(0.5, 2.0),
    ),
    OpSpec(
        "coalesce",
        lambda t, v: _coo(t, v).coalesce().to_dense(),
        [(T((NNZ,)),)],
    ),
    OpSpec(
        "values",
        lambda t, v: _coo(t, v).coalesce().values() * 3,
        [(T((NNZ,)),)],
    ),
    OpSpec(
        "sparse_sum",
        lambda t, v: t.sparse.sum(_coo(t, v, shape=(3, 4)), 1).to_dense(),
        [(T((NNZ,)),)],
        covers=("sparse_sum_backward",),
    ),
    OpSpec(
        "sparse_sum_dense_dims",
        lambda t, v: t.sparse.sum(_coo(t, v, INDICES[:1], (3, 2)), (0,)),
        [(T((NNZ, 2)),)],
        covers=("sparse_sum", "sparse_sum_backward"),
    ),
    OpSpec(
        "sparse_mask",
        lambda t, x: x.sparse_mask(_coo(t, t.ones(NNZ, dtype=x.dtype))).to_dense(),
        [(T((3, 4)),)],
    ),
]
