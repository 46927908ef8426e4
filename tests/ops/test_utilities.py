"""broadcast_shapes/tensors, meshgrid, ravel, diff, tril/triu_indices, bincount, isin, unique,
searchsorted/bucketize and the cross product against torch: values, dtypes, nodes, grads."""

from __future__ import annotations

import numpy as np
import pytest

from .oracle import same, same_grads

X = np.array([1.0, 2.0, 3.0])
Y = np.array([4.0, 5.0])
I = np.array([3, 1, 2, 3, 1, 0])
M = np.random.default_rng(0).standard_normal((4, 3))
N = np.random.default_rng(1).standard_normal((4, 3))


@pytest.mark.filterwarnings("ignore::UserWarning")  # meshgrid's and cross's own warnings
@pytest.mark.parametrize(
    "expr",
    [
        "t.broadcast_shapes((2, 1), (3,))",
        "t.broadcast_shapes((2,), (3,))",
        "t.broadcast_shapes(5, (1, 1))",
        "t.broadcast_tensors(x[:, None], y)",
        "t.meshgrid(x, y)",
        "t.meshgrid(x, y, indexing='ij')",
        "t.meshgrid(x, y, indexing='xy')",
        "t.meshgrid([x, y, x], indexing='xy')",
        "t.meshgrid(x, y, indexing='yx')",
        "t.ravel(m)",
        "t.ravel(m.t())",
        "m.ravel()",
        "t.diff(x)",
        "t.diff(m, dim=0)",
        "t.diff(m, n=2)",
        "t.diff(x, prepend=y, append=y)",
        "t.tril_indices(3, 3)",
        "t.triu_indices(3, 4, 1)",
        "t.tril_indices(4, 3, -1)",
        "t.bincount(i)",
        "t.bincount(i, minlength=7)",
        "t.bincount(i, weights=x.detach().repeat(2))",
        "t.bincount(i, weights=t.arange(6))",
        "t.bincount(-i)",
        "t.bincount(x)",
        "t.isin(i, t.tensor([1, 5]))",
        "t.isin(i, t.tensor([1, 5]), invert=True)",
        "t.unique(i)",
        "t.unique(i, return_inverse=True, return_counts=True)",
        "t.unique(t.tensor([[1, 2], [1, 2], [0, 1]]), dim=0, return_inverse=True)",
        "i.unique(return_counts=True)",
        "t.searchsorted(t.tensor([1, 3, 5]), t.tensor([0, 3, 6]))",
        "t.searchsorted(t.tensor([1, 3, 5]), t.tensor([0, 3, 6]), right=True)",
        "t.searchsorted(t.tensor([[1, 3], [2, 4]]), t.tensor([[2], [5]]), side='right')",
        "t.bucketize(t.tensor([0, 3, 6]), t.tensor([1, 3, 5]))",
        "t.linalg.cross(m, n)",
        "t.cross(m, n)",
        "t.cross(m, n, dim=1)",
        "t.linalg.cross(m[:, :2], n[:, :2])",
    ],
)
def test_utilities_match_torch(torch, expr):
    same(torch, expr, requires_grad=True, x=X, y=Y, i=I, m=M, n=N)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(
    "expr",
    [
        "t.meshgrid(x, y, indexing='xy')",
        "t.broadcast_tensors(x[:, None], y)",
        "t.diff(m, n=2)",
        "t.diff(x, prepend=y)",
        "t.linalg.cross(m, n)",
        "t.linalg.cross(m, n[:1])",
        "t.ravel(m.t())",
    ],
)
def test_utility_gradients_match_torch(torch, expr):
    same_grads(torch, expr, x=X, y=Y, m=M, n=N)


def test_cross_passes_gradcheck_and_gradgradcheck():
    import dyngrad

    a = dyngrad.tensor(M, requires_grad=True)
    b = dyngrad.tensor(N, requires_grad=True)
    assert dyngrad.autograd.gradcheck(lambda u, v: dyngrad.linalg.cross(u, v), (a, b))
    assert dyngrad.autograd.gradgradcheck(lambda u, v: dyngrad.linalg.cross(u, v), (a, b))


def test_meshgrid_without_indexing_warns_as_torch():
    import dyngrad

    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        dyngrad.meshgrid(dyngrad.ones(2), dyngrad.ones(3))


NAN_X = np.array([[1.0, np.nan, 2.0], [np.nan, np.nan, 3.0]])


@pytest.mark.parametrize(
    "expr",
    [
        "t.nansum(x)",
        "t.nansum(x, 1)",
        "t.nansum(x, (0, 1), keepdim=True)",
        "x.nansum(0)",
        "t.nansum(t.tensor([1, 2]))",
        "t.nanmean(x)",
        "t.nanmean(x, 1, keepdim=True)",
        "t.nanmean(x, 0)",
        "t.nanmean(t.tensor([1, 2]))",
        "t.nanmean(t.tensor([1.0, 2.0]), dtype=t.float64)",
        "t.rot90(x)",
        "t.rot90(x, 2)",
        "t.rot90(x, -1)",
        "t.rot90(x, 0)",
        "t.rot90(x, 1, [1, 0])",
        "x.rot90(3)",
        "t.rot90(x, 1, [0, 0])",
        "t.rot90(x[0])",
    ],
)
def test_nan_reductions_and_rot90_match_torch(torch, expr):
    same(torch, expr, requires_grad=True, x=NAN_X)


@pytest.mark.parametrize("expr", ["t.nansum(x, 1)", "t.nanmean(x, 1)", "t.rot90(x, 1, [1, 0])"])
def test_nan_reduction_gradients_match_torch(torch, expr):
    same_grads(torch, expr, x=NAN_X)


@pytest.mark.parametrize(
    "expr",
    [
        "t.linalg.inv(m[:3] + 2 * t.eye(3, dtype=t.float64))",
        "t.inverse(m[:3, :3] + 2)",
        "(m[:3] + 2 * t.eye(3, dtype=t.float64)).inverse()",
        "t.linalg.inv(t.tensor([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]]))",
        "t.linalg.inv(t.tensor([[0.0, 1], [0, 1]]))",
        "t.linalg.inv(m)",
        "t.linalg.inv(t.arange(4).reshape(2, 2))",
    ],
)
def test_inverse_matches_torch(torch, expr):
    same(torch, expr, requires_grad=True, m=M)


TIES = np.array([[1.0, np.nan, 2.0, 0.5], [3.0, 1.0, 3.0, 3.0]])


@pytest.mark.parametrize(
    "expr",
    [
        "t.cummax(x, 1)",
        "t.cummin(x, 1)",
        "t.cummax(x, 0)",
        "x.cummin(-1)",
        "t.cummax(t.tensor([1, 3, 2, 3]), 0)",
        "t.cummin(t.tensor([True, False, True]), 0)",
        "t.cummax(x[0, 0], 0)",
        "t.cummax(x[:, :0], 1)",
        "t.cummax(x, 2)",
    ],
)
def test_cummax_cummin_match_torch(torch, expr):
    same(torch, expr, requires_grad=True, x=TIES)


@pytest.mark.parametrize("expr", ["t.cummax(x, 1)[0]", "t.cummin(x, 0).values"])
def test_cummax_cummin_gradients_match_torch(torch, expr):
    same_grads(torch, expr, x=np.array([[1.0, 5.0, 2.0, 5.0], [3.0, 1.0, 3.0, 0.0]]))


BIG1 = np.random.default_rng(5).standard_normal((30, 3))
BIG2 = np.random.default_rng(6).standard_normal((2, 40, 3))


@pytest.mark.parametrize(
    "expr",
    [
        "t.cdist(m, n)",
        "t.cdist(m, n, p=1)",
        "t.cdist(m, n, p=0)",
        "t.cdist(m, n, p=float('inf'))",
        "t.cdist(m, n, p=0.5)",
        "t.cdist(m, m)",
        "t.cdist(u, v)",
        # (the diagonal is the rounding noise of |u|^2 + |u|^2 - 2 u.u, whose size depends on
        # the BLAS's summation order on this CPU: compared off the diagonal)
        "t.cdist(u, u).tril(-1)",
        "t.cdist(u, v, compute_mode='donot_use_mm_for_euclid_dist')",
        "t.cdist(m, n, compute_mode='use_mm_for_euclid_dist')",
        "t.cdist(m, n[:, :2])",
        "t.cdist(m[0], n)",
        "t.cdist(m, n, p=-1)",
        "t.cdist(m, n, compute_mode='foo')",
    ],
)
def test_cdist_matches_torch(torch, expr):
    same(torch, expr, requires_grad=True, m=M, n=N, u=BIG1, v=BIG2)


@pytest.mark.parametrize("expr", ["t.cdist(m, n)", "t.cdist(u, v)", "t.cdist(m, n, p=3)"])
def test_cdist_gradients_match_torch(torch, expr):
    same_grads(torch, expr, m=M, n=N, u=BIG1, v=BIG2)


@pytest.mark.parametrize(
    "expr",
    [
        "t.kron(m, n)",
        "t.kron(m[0], n)",
        "t.kron(m.t(), n[:2, :2])",
        "m.kron(m[:2, 0])",
        "t.kron(t.tensor([1, 2]), t.tensor([[1, 0], [0, 1]]))",
    ],
)
def test_kron_matches_torch(torch, expr):
    same(torch, expr, requires_grad=True, m=M, n=N)  # (m.t(): both refuse the view)
    if "tensor" not in expr and "m.t()" not in expr:
        same_grads(torch, expr, m=M, n=N)
