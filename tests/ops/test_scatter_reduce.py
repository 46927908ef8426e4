"""scatter_reduce against torch: each reduction's values and gradients (ties, zeros, positions
nothing reaches, include_self), integer means, low precision, errors; and nanmedian."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from .oracle import same, same_grads

REDUCTIONS = ["sum", "prod", "mean", "amax", "amin"]
ENV = {
    # zeros (prod), ties (amax/amin: 3 appears in self and src), a column nothing reaches
    "x": np.array([[1.0, 0.0, 3.0], [4.0, 5.0, 6.0]]),
    "s": np.array([[10.0, 1.0, 3.0, 0.0], [5.0, 60.0, 5.0, 80.0]]),
    "I": np.array([[0, 0, 2, 2], [1, 1, 1, 0]]),
}


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_values_and_gradients_match_torch(torch, reduce, include_self):
    expr = f"x.scatter_reduce(1, I, s, {reduce!r}, include_self={include_self})"
    same_grads(torch, expr, **ENV)
    same_grads(torch, expr.replace("x.scatter_reduce(", "t.scatter_reduce(x, "), **ENV)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_in_place_form_matches_torch(torch, reduce, include_self):
    same_grads(
        torch, f"(x * 1).scatter_reduce_(1, I, s, {reduce!r}, include_self={include_self})", **ENV
    )


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_integer_reductions_match_torch(torch, reduce, include_self):
    """An integer mean rounds down (floor, for negatives too)."""
    for x, s in (([0, 0, 0], [5, 7, 9]), ([-1, 2, -3], [-4, 0, -6])):
        same(
            torch,
            f"t.tensor(x).scatter_reduce(0, t.tensor([0, 0, 2]), t.tensor(s), {reduce!r}, "
            f"include_self={include_self})",
            x=x,
            s=s,
        )


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_low_precision_accumulates_in_float32_and_rounds_once(torch, reduce, dtype):
    rng = np.random.default_rng(0)
    x, s = rng.standard_normal(5), rng.standard_normal(400) * (0.2 if reduce == "prod" else 1)
    i = rng.integers(0, 5, 400)
    results = []
    for lib in (dyngrad, torch):
        d = getattr(lib, dtype)
        out = lib.tensor(x).to(d).scatter_reduce(0, lib.tensor(i), lib.tensor(s).to(d), reduce)
        results.append(out.float().numpy())
    np.testing.assert_array_equal(*results)


def test_src_larger_than_index_reads_its_leading_corner(lib):
    x = lib.zeros(3, requires_grad=True)
    s = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x.scatter_reduce(0, lib.tensor([0, 0]), s, "sum")
    assert y.tolist() == [3.0, 0.0, 0.0]
    if lib is dyngrad:  # PyTorch's own backward fails on this shape
        y.backward(lib.tensor([1.0, 2.0, 3.0]))
        assert s.grad.tolist() == [1.0, 1.0, 0.0, 0.0]


def test_src_larger_than_index_passes_gradcheck():
    x = dyngrad.randn(3, 4, dtype=dyngrad.float64, requires_grad=True)
    s = dyngrad.randn(3, 5, dtype=dyngrad.float64, requires_grad=True)
    index = dyngrad.tensor([[0, 2, 2, 1], [3, 3, 0, 0], [1, 1, 1, 1]])
    for reduce in REDUCTIONS:
        fn = lambda a, b: a.scatter_reduce(1, index, b, reduce, include_self=False)  # noqa: E731
        assert dyngrad.autograd.gradcheck(fn, (x, s))
        assert dyngrad.autograd.gradgradcheck(fn, (x, s))


def test_prod_double_backward_through_two_zeros_at_one_place_is_refused(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = lib.tensor([0.0, 0.0, 6.0], requires_grad=True)
    y = x.scatter_reduce(0, lib.tensor([0, 0, 2]), s, "prod")
    (g,) = lib.autograd.grad(y.sum(), s, create_graph=True)
    assert g.tolist() == [0.0, 0.0, 3.0] and g.grad_fn.name() == "torch::autograd::Error"
    with pytest.raises(RuntimeError, match="^scatter_reduce\\(\\): Double backward is unsupported"):
        g.sum().backward()


def test_nan_propagates_through_amax(lib):
    nan = float("nan")
    y = lib.tensor([1.0, nan]).scatter_reduce(0, lib.tensor([0, 0]), lib.tensor([nan, 3.0]), "amax")
    assert np.isnan(y.numpy()).all()


ERRORS = """x.scatter_reduce(1, I, s, reduce='foo') | x.scatter_reduce(1, I.float(), s, 'sum')
x.scatter_reduce(1, I, s.double(), 'sum') | x.scatter_reduce(1, I + 5, s, 'sum')
x.scatter_reduce(1, I[None], s, 'sum') | x.scatter_reduce(1, I, 2.0, 'sum')
t.scatter_reduce(x, 1, I, 2.0, 'sum') | x.scatter_reduce(1, I, s[0], 'sum')
x.scatter_reduce(1, I[:, :2], s[:, :2][None], 'sum') | x.scatter_reduce(1, I, s.view(1, 8), 'sum')
t.tensor([True]).scatter_reduce(0, t.tensor([0]), t.tensor([True]), 'mean')"""


@pytest.mark.parametrize(
    "expr", [e.strip() for line in ERRORS.splitlines() for e in line.split("|")]
)
def test_errors_match_torch(torch, expr):
    same(torch, expr, **ENV)


def test_out_receives_the_result(lib):
    out = lib.empty(0)
    x = lib.zeros(3)
    r = lib.scatter_reduce(x, 0, lib.tensor([0, 0]), lib.tensor([1.0, 2.0]), "sum", out=out)
    assert r is out and out.tolist() == [3.0, 0.0, 0.0]


# ---- nanmedian ------------------------------------------------------------------------------

NAN = float("nan")
MEDIAN_ENV = {
    "m": np.array([[1.0, NAN, 3, 2], [4.0, NAN, NAN, 6], [2.0, 1, NAN, 3], [5.0, NAN, NAN, 1]]),
    "n": np.array([NAN, NAN, NAN]),
    "one": np.array([NAN, 1.0, NAN]),
    "ties": np.array([1.0, 1.0, 2.0]),
    "e": np.zeros((2, 0)),
}
MEDIANS = """t.nanmedian(m) | m.nanmedian(1) | m.nanmedian(0, keepdim=True) | t.nanmedian(n)
t.nanmedian(one) | t.nanmedian(ties) | t.median(n) | t.median(one) | m.nanmedian(-1).values
t.tensor([3, 1, 2]).nanmedian() | t.tensor([3, 1, 2]).nanmedian(0) | t.tensor(3.0).nanmedian(0)
t.tensor([True]).nanmedian() | t.tensor([True]).nanmedian(0) | e.nanmedian(1) | e.nanmedian(0)
t.tensor([]).nanmedian() | m.nanmedian(2)"""


@pytest.mark.parametrize(
    "expr", [e.strip() for line in MEDIANS.splitlines() for e in line.split("|")]
)
def test_nanmedian_matches_torch(torch, expr):
    same(torch, expr, **MEDIAN_ENV)
    if expr.startswith(("t.nanmedian", "t.median", "m.")) and "(2)" not in expr:
        same_grads(torch, expr, **MEDIAN_ENV)


def test_nanmedian_result_is_pytorchs_named_tuple(lib):
    r = lib.tensor([[1.0, 2.0, 3.0]]).nanmedian(1)
    assert type(r).__name__ == "nanmedian" and r.values.tolist() == [2.0]
    assert r.indices.tolist() == [1] and r.values.grad_fn is None


# ---- index_reduce -----------------------------------------------------------------------
INDEX_ENV = {
    # zeros (prod), ties (3 in self and source), a row nothing reaches (row 1), repeats
    "x": np.array([[1.0, 0.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]),
    "s": np.array([[10.0, 1.0, 3.0], [0.0, 60.0, 5.0], [2.0, 0.0, 3.0], [5.0, 5.0, 5.0]]),
    "J": np.array([0, 2, 0, 0]),
}


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_values_and_gradients_match_torch(torch, reduce, include_self):
    expr = f"x.index_reduce(0, J, s, {reduce!r}, include_self={include_self})"
    same_grads(torch, expr, **INDEX_ENV)
    same_grads(torch, f"x.index_reduce(1, J[:3], s.t()[:, :3].t(), {reduce!r})", **INDEX_ENV)
    same_grads(torch, expr.replace("x.index_reduce(", "(x * 1).index_reduce_("), **INDEX_ENV)


INDEX_ERRORS = """x.index_reduce(0, J, s, 'sum') | x.index_reduce(0, J[None], s, 'prod')
x.index_reduce(0, J.float(), s, 'prod') | x.index_reduce(0, J, s.double(), 'prod')
x.index_reduce(0, J + 3, s, 'prod') | x.index_reduce(0, J - 1, s, 'prod')
x.index_reduce(2, J, s, 'prod') | x.index_reduce(0, J[:2], s, 'prod')
x.index_reduce(0, J, s[:, :2], 'mean') | x.index_reduce(0, J.int(), s, 'amax')
t.tensor(1.0).index_reduce(0, t.tensor([0]), t.tensor(2.0), 'mean')
x.long().index_reduce(0, J, s.long(), 'mean')"""


@pytest.mark.parametrize(
    "expr", [e.strip() for line in INDEX_ERRORS.splitlines() for e in line.split("|")]
)
def test_index_reduce_errors_match_torch(torch, expr):
    same(torch, expr, **INDEX_ENV)


def test_index_reduce_node_name_and_beta_warning(lib):
    x = lib.ones(2, 2, requires_grad=True)
    lib.set_warn_always(True)  # torch's warning is a warn-once
    try:
        with pytest.warns(UserWarning, match="^index_reduce\\(\\) is in beta"):
            y = x.index_reduce(0, lib.tensor([1, 1]), lib.ones(2, 2) * 3, "amax")
    finally:
        lib.set_warn_always(False)
    assert y.grad_fn.name() == "IndexReduceBackward0"
    assert y.tolist() == [[1.0, 1.0], [3.0, 3.0]]
