"""Ties in sort, argsort, msort, topk and kthvalue: the indices PyTorch's CPU kernels choose
among equal values, and where the gradient goes (see Note [Tie order of sort and topk])."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad.ops.reduction import select_order

DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8")
SIZES = (1, 2, 3, 4, 7, 16, 17, 18, 31, 64, 65, 100, 130, 257, 640)


def test_topk_and_kthvalue_ties_pick_pytorchs_indices():
    x = dyngrad.tensor([1.0, 3.0, 3.0, 2.0, 3.0, 1.0, 1.0, 2.0])
    assert dyngrad.topk(x, 3).indices.tolist() == [1, 4, 2]
    assert dyngrad.topk(x, 3, largest=False).indices.tolist() == [6, 0, 5]
    x2 = dyngrad.tensor([float(i % 5) for i in range(40)])
    assert dyngrad.topk(x2, 7).indices.tolist() == [29, 14, 34, 9, 19, 24, 39]
    assert dyngrad.topk(x2, 7, largest=False).indices.tolist() == [0, 15, 20, 10, 25, 30, 5]
    assert dyngrad.kthvalue(x2, 9).indices.item() == 31


def test_sort_of_ties_is_introsort_and_stable_sort_is_stable():
    x = dyngrad.tensor([float(i % 2) for i in range(17)])
    introsorted = [8, 16, 14, 12, 10, 0, 6, 4, 2, 7, 5, 9, 11, 3, 13, 15, 1]
    assert dyngrad.sort(x).indices.tolist() == introsorted
    assert dyngrad.argsort(x).tolist() == introsorted
    assert dyngrad.argsort(x, stable=True).tolist() == list(range(0, 17, 2)) + list(range(1, 17, 2))
    # 16 or fewer are left to the insertion sort, which is stable
    short = dyngrad.tensor([float(i % 2) for i in range(16)])
    assert dyngrad.sort(short, descending=True).indices.tolist()[:4] == [1, 3, 5, 7]


def _random_case(rng):
    ndim = int(rng.integers(1, 4))
    n = int(rng.choice(SIZES))
    shape = [int(rng.integers(1, 4)) for _ in range(ndim)]
    dim = int(rng.integers(0, ndim))
    shape[dim] = n
    dtype = str(rng.choice(DTYPES))
    values = rng.integers(0, int(rng.choice([1, 2, 3, 5, 20, 1000])), shape).astype(np.float64)
    if dtype.startswith(("float", "bfloat")):
        if rng.random() < 0.3:
            values[rng.random(shape) < 0.15] = np.nan
        if rng.random() < 0.2:
            values = rng.choice([-np.inf, -0.0, 0.0, np.inf, np.nan, -1.5], shape)
    transpose = ndim > 1 and rng.random() < 0.3
    return values, dtype, dim, transpose


def _both(torch, values, dtype, transpose):
    t = torch.tensor(values).to(getattr(torch, dtype))
    d = dyngrad.tensor(values).to(getattr(dyngrad, dtype))
    return (t.transpose(0, -1), d.transpose(0, -1)) if transpose else (t, d)


def _compare(torch, rng, values, dtype, dim, transpose):
    """Yields (what, same) for each call compared; values and indices must both agree."""
    t, d = _both(torch, values, dtype, transpose)
    if transpose:
        dim = {0: t.dim() - 1, t.dim() - 1: 0}.get(dim, dim)
    n = t.shape[dim]

    def same(a, b):
        return repr(a.tolist()) == repr(b.tolist())

    descending = bool(rng.random() < 0.5)
    a, b = torch.sort(t, dim, descending), dyngrad.sort(d, dim, descending)
    yield "sort", same(a.indices, b.indices) and same(a.values, b.values)
    yield "argsort", same(torch.argsort(t, dim, descending), dyngrad.argsort(d, dim, descending))
    a = torch.sort(t, dim=dim, descending=descending, stable=True)
    b = dyngrad.sort(d, dim=dim, descending=descending, stable=True)
    yield "sort stable", same(a.indices, b.indices)
    yield "msort", same(torch.msort(t), dyngrad.msort(d))
    k = min(n, int(rng.choice([0, 1, 2, 3, 5, max(n // 64, 1), n // 2, n])))
    largest, ordered = bool(rng.random() < 0.6), bool(rng.random() < 0.7)
    a, b = torch.topk(t, k, dim, largest, ordered), dyngrad.topk(d, k, dim, largest, ordered)
    yield (
        f"topk k={k} largest={largest} sorted={ordered}",
        same(a.indices, b.indices) and same(a.values, b.values),
    )
    k = int(rng.integers(1, n + 1))
    keepdim = bool(rng.random() < 0.5)
    a, b = torch.kthvalue(t, k, dim, keepdim), dyngrad.kthvalue(d, k, dim, keepdim)
    yield f"kthvalue k={k}", same(a.indices, b.indices) and same(a.values, b.values)


@pytest.mark.parametrize("seed", range(8))
def test_random_ties_match_torch(torch, seed):
    rng = np.random.default_rng(seed)
    for _ in range(50):  # 8 x 50 tensors, six calls each
        values, dtype, dim, transpose = _random_case(rng)
        for what, same in _compare(torch, rng, values, dtype, dim, transpose):
            assert same, f"{what} differs on {dtype} {values.tolist()} along {dim}"


def test_long_rows_of_ties_match_torch(torch):
    rng = np.random.default_rng(0)
    values = rng.integers(0, 7, (3, 5000)).astype(np.float32)
    t, d = torch.tensor(values), dyngrad.tensor(values)
    assert (
        dyngrad.sort(d, descending=True).indices.tolist()
        == torch.sort(t, descending=True)[1].tolist()
    )
    for k, largest, ordered in [(5, True, True), (70, False, True), (2500, True, False)]:
        a, b = torch.topk(t, k, 1, largest, ordered), dyngrad.topk(d, k, 1, largest, ordered)
        assert b.indices.tolist() == a.indices.tolist()
    assert dyngrad.kthvalue(d, 2500).indices.tolist() == torch.kthvalue(t, 2500).indices.tolist()


def test_sort_paths_that_are_stable_in_pytorch(torch):
    # a dim of stride 0 keeps 0..n-1, a long 1-d integer tensor is radix-sorted (stably)
    t, d = torch.tensor(2.0).expand(40), dyngrad.tensor(2.0).expand(40)
    assert dyngrad.sort(d).indices.tolist() == torch.sort(t).indices.tolist() == list(range(40))
    values = np.random.default_rng(0).integers(0, 5, 40000)
    for dtype in ("int64", "uint8"):
        t = torch.tensor(values).to(getattr(torch, dtype))
        d = dyngrad.tensor(values).to(getattr(dyngrad, dtype))
        for descending in (False, True):
            want = torch.sort(t, descending=descending).indices
            assert dyngrad.sort(d, descending=descending).indices.tolist() == want.tolist()


# built with McIlroy's adversary against libstdc++: the pivots go wrong until introsort
# (for sort) and introselect (for nth_element) run out of depth and fall back to heaps
SORT_KILLER = [46, 1, 53, 3, 61, 5, 51, 7, 57, 9, 49, 11, 64, 13, 47, 15, 55, 17, 45, 19, 59, 21]
SORT_KILLER += [24, 23, 62, 60, 58, 56, 54, 52, 50, 48] + list(range(0, 23, 2))
SORT_KILLER += [44, 41, 42, 39, 40, 37, 38, 35, 36, 33, 34, 31, 32, 29, 30, 27, 28, 25, 26, 43]
SELECT_KILLER = [25] + [v for i in range(1, 24, 2) for v in (i, 64)][:-1] + [31, 30, 32, 28]
SELECT_KILLER += [29, 26, 27, 24] + list(range(0, 23, 2)) + [64] * 20


def test_depth_limit_fallbacks_match_torch(torch, monkeypatch):
    calls = []
    for name in ("_heap_sort", "_heap_select"):
        real = getattr(select_order, name)
        monkeypatch.setattr(select_order, name, lambda *a, f=real, n=name: calls.append(n) or f(*a))
    for killer in (SORT_KILLER, SELECT_KILLER):
        values = [float(v // 2) for v in killer]
        t, d = torch.tensor(values), dyngrad.tensor(values)
        assert dyngrad.sort(d).indices.tolist() == torch.sort(t).indices.tolist()
        for ordered in (True, False):
            a = torch.topk(t, 33, largest=False, sorted=ordered).indices
            assert dyngrad.topk(d, 33, largest=False, sorted=ordered).indices.tolist() == a.tolist()
    assert {"_heap_sort", "_heap_select"} <= set(calls)


@pytest.mark.parametrize(
    "call",
    [
        "t.topk(x, 3).values",
        "t.topk(x, 4, largest=False, sorted=False).values",
        "t.topk(x, 2, dim=0).values",
        "t.kthvalue(x, 5).values",
        "t.kthvalue(x, 2, dim=0, keepdim=True).values",
        "t.sort(x, descending=True).values",
        "t.msort(x.T)",
        "t.quantile(x, 0.3, dim=1)",
    ],
)
def test_gradient_of_tied_values_goes_to_the_chosen_index(torch, call):
    values = np.random.default_rng(1).integers(0, 3, (4, 40)).astype(np.float64)
    grads = []
    for t in (torch, dyngrad):
        x = t.tensor(values, requires_grad=True)
        out = eval(call)
        weights = t.arange(1, out.numel() + 1, dtype=out.dtype).reshape(out.shape)
        (out * weights).sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]


@pytest.mark.parametrize("seed", range(4))
def test_mode_median_and_nanmedian_ties_match_torch(torch, seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(60):
        n = int(rng.integers(1, 50))
        a = rng.integers(0, int(rng.integers(1, 6)), (3, n)).astype(np.float64)
        nan = a.copy()
        nan[rng.random((3, n)) < 0.3] = np.nan
        nan[2] = np.nan  # a slice of NaN alone
        for name, data in (("mode", a), ("median", nan), ("nanmedian", nan)):
            ours = getattr(dyngrad, name)(dyngrad.from_numpy(data), 1)
            theirs = getattr(torch, name)(torch.from_numpy(data), 1)
            np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
            np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())
