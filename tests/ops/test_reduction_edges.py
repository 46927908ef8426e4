"""Reductions at their edges, against torch: dims, keepdim, dtypes, empty and 0-d inputs,
ties and zeros, NaN, and PyTorch's error messages."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad

from .oracle import same, same_grads

ENV = {
    "x": np.arange(12.0, dtype=np.float32).reshape(3, 4) - 5,
    "i": np.arange(12).reshape(3, 4),
    "b": np.array([[True, False], [True, True]]),
    "u": np.ones(3, dtype=np.uint8),
    "e": np.zeros((0, 3), dtype=np.float32),
    "s": np.array(2.5, dtype=np.float32),
    "n": np.array([1.0, np.nan, 3.0], dtype=np.float32),
    "h": np.ones(3, dtype=np.float16),
}

VALUES = """x.sum() | x.sum(1) | x.sum(-1, keepdim=True) | x.sum((0, 1)) | x.sum(()) | x.sum((), keepdim=True)
x.sum(dim=None, keepdim=True) | x.sum(dtype=t.float64) | x.sum(1, dtype=t.float64) | i.sum() | i.sum(1)
b.sum() | u.sum() | h.sum() | e.sum() | e.sum(0) | e.sum(1) | s.sum() | s.sum(0) | s.sum(-1, keepdim=True)
x.sum(2) | x.sum((0, 0)) | x.sum(dtype=t.int32)
x.mean() | x.mean(0) | x.mean((0, 1), keepdim=True) | x.mean(()) | x.mean(dim=None, keepdim=True)
i.mean() | i.mean(dtype=t.float32) | x.mean(1, dtype=t.float64) | e.mean(0) | e.mean(1) | s.mean(0)
x.prod() | x.prod(1) | x.prod(0, keepdim=True) | i.prod() | b.prod() | x.prod(dtype=t.float64)
i.prod(1, dtype=t.float32) | e.prod() | e.prod(0) | e.prod(1) | s.prod() | s.prod(0) | x.prod(2)
x.amax() | x.amax(()) | x.amax((0, 1)) | x.amax(-1, keepdim=True) | x.amin(0) | i.amax(0) | b.amax(0)
e.amax() | e.amax(1) | e.amax(0) | s.amax(0) | s.amax(1) | n.amax() | x.amin((1, 0), keepdim=True)
x.max() | x.max(1) | x.max(1, keepdim=True) | x.min(0) | i.max() | b.max() | s.max(0) | e.max()
e.max(0) | e.max(1) | n.max() | n.max(0) | n.min(0) | x.max(x.flip(0))
x.argmax() | x.argmax(1) | x.argmax(1, keepdim=True) | x.argmax(keepdim=True) | x.argmin(0)
e.argmax() | e.argmax(1) | e.argmax(0) | s.argmax(0) | s.argmax() | n.argmax() | n.argmin()
x.argmax((0, 1)) | i.argmin(dim=-1)
x.all() | x.all(1) | x.any((0, 1)) | i.all() | e.all() | e.any() | e.any(1) | s.all() | u.all() | u.any(0)
b.all(dim=(0, 1)) | b.any(-1, keepdim=True) | x.count_nonzero() | x.count_nonzero(1)
x.logsumexp(1) | x.logsumexp((0, 1)) | x.logsumexp(-1, keepdim=True) | i.logsumexp(1) | e.logsumexp(0)
e.logsumexp(1) | s.logsumexp(0) | (x * 100).logsumexp(0) | t.logsumexp(x, 0)
x.cumsum(1) | i.cumsum(0) | b.cumsum(0) | x.cumsum(0, dtype=t.float64) | s.cumsum(0) | e.cumsum(0)
x.cumsum(2) | x.cumprod(1) | i.cumprod(0) | s.cumprod(-1) | u.cumprod(0)
x.var() | x.var(1) | x.var(True) | x.var(1, False) | x.var(1, True, True) | x.var(correction=0)
x.var(correction=2) | x.var(unbiased=False) | i.var() | x.std(1) | x.std((0, 1)) | x.std(0, keepdim=True)
t.var_mean(x, 1) | t.std_mean(x, 1, keepdim=True) | t.std_mean(x, correction=0) | t.var_mean(x, (0, 1))
x.median() | x.median(1) | x.median(0, keepdim=True) | n.median() | n.median(0) | s.median()
s.median(0) | e.median(1) | e.median(0) | i.median() | i.median(0)
x.sort() | x.sort(0, descending=True) | n.sort() | n.sort(descending=True) | x.sort(dim=1, stable=True)
x.argsort(1) | x.argsort(0, descending=True) | s.sort() | s.argsort() | i.sort(1) | e.sort(0)
x.topk(2) | x.topk(2, dim=0, largest=False) | n.topk(2) | x.topk(5) | x.topk(0) | s.topk(1)
x.kthvalue(2) | x.kthvalue(1, 0, keepdim=True) | x.kthvalue(5) | x.msort()
x.softmax(1) | x.softmax(0) | t.softmax(x, -1, dtype=t.float64) | x.log_softmax(1) | s.softmax(0)
e.softmax(0) | e.log_softmax(1) | i.softmax(1) | i.softmax(1, dtype=t.float32) | (x * 300).softmax(1)
(x * 300).log_softmax(0) | x.softmax(2)
x.norm() | x.norm(1) | x.norm(float('inf')) | x.norm(-float('inf')) | x.norm(0) | x.norm(0.5)
x.norm(3, dim=(0, 1)) | x.norm(dim=1, keepdim=True) | x.norm('fro', dim=0) | x.norm(dtype=t.float64)
x.norm(p='abc') | i.norm() | t.norm(x, 2, 1)
t.linalg.vector_norm(x, 2, 1) | t.linalg.vector_norm(i) | t.linalg.vector_norm(x, dtype=t.int64)
t.linalg.vector_norm(x, ord='fro') | t.linalg.vector_norm(e) | t.linalg.vector_norm(e, float('inf'))
t.linalg.vector_norm(e, float('inf'), 1) | t.linalg.vector_norm(e, -1, 0)
t.linalg.matrix_norm(x) | t.linalg.matrix_norm(x, 1, keepdim=True) | t.linalg.matrix_norm(x, float('inf'))
t.linalg.matrix_norm(x, -float('inf')) | t.linalg.matrix_norm(x, -1) | t.linalg.matrix_norm(x, 3)
t.linalg.matrix_norm(x[0]) | t.linalg.matrix_norm(x, dim=(0, 0)) | t.linalg.matrix_norm(x, 'fro', (1, 0))
t.linalg.norm(x) | t.linalg.norm(x, dim=1) | t.linalg.norm(x, 1) | t.linalg.norm(x, 1, dim=1)
t.linalg.norm(x[None]) | t.linalg.norm(x[None], 1) | t.linalg.norm(x, 'fro', dim=1)
t.linalg.norm(x, dim=(0, 1)) | t.linalg.norm(x[0], 'fro') | t.linalg.norm(x[0], float('inf'))"""

EXPRS = [e.strip() for line in VALUES.splitlines() for e in line.split("|")]


@pytest.mark.parametrize("expr", EXPRS)
def test_reduction_matches_torch(torch, expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(torch, expr, requires_grad=True, **ENV)


GRADS = """x.prod() | x.prod(1) | (x - 3).prod() | (x - 3).prod(0) | x.cumprod(1) | (x - 3).cumprod(1)
(x * 0).prod() | (x * 0).cumprod(0) | x.amax() | x.amax(0) | x.amin(1, keepdim=True) | x.max()
x.min() | x.max(0)[0] | x.median() | x.median(1)[0] | x.std(0) | t.var_mean(x, 0)[0]
t.std_mean(x, 1)[1] | x.norm() | x.norm(1) | x.norm(float('inf')) | x.norm(3) | x.norm(0.5)
(x * 0).norm() | (x * 0).norm(3) | (x * 0).norm(0.5) | x.logsumexp(0) | x.sort(0).values
x.topk(2, 0).values | t.linalg.matrix_norm(x, 1) | t.linalg.matrix_norm(x, float('inf'))
(x * 1).cumsum_(1) | (x - 3).cumprod_(0) | (x * 0).cumprod_(1) | (x * 1).tril_(1)"""

TIES = {
    "x": np.array([[3.0, -3.0, 1.0, 3.0], [0.0, 2.0, 2.0, -1.0], [5.0, 0.0, 5.0, 5.0]]),
}


@pytest.mark.parametrize(
    "expr", [e.strip() for line in GRADS.splitlines() for e in line.split("|")]
)
def test_ties_and_zeros_gradients_match_torch(torch, expr):
    """Ties split the gradient as PyTorch does; zeros take PyTorch's exact formula."""
    same_grads(torch, expr, **TIES)


def _second_derivative(module, expr, x):
    x = module.tensor(x, requires_grad=True)
    y = eval(expr, {"t": module, "x": x})
    (g,) = module.autograd.grad(y.sum(), x, create_graph=True)
    (h,) = module.autograd.grad((g * g).sum(), x)
    return g.detach().numpy(), h.numpy()


@pytest.mark.parametrize("expr", ["x.prod()", "x.prod(0)", "x.cumprod(0)", "x.cumprod(1)"])
@pytest.mark.parametrize("zeros", [[(0, 1)], [(0, 1), (1, 2)], [(0, 0), (0, 1)]])
def test_prod_double_backward_with_zeros_matches_torch(torch, expr, zeros):
    x = np.arange(1.0, 7.0).reshape(2, 3)
    for z in zeros:
        x[z] = 0
    ours = _second_derivative(dyngrad, expr, x)
    theirs = _second_derivative(torch, expr, x)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_var_warns_when_degrees_of_freedom_run_out(torch):
    for name in ("var", "std", "var_mean", "std_mean"):
        with pytest.warns(UserWarning, match=rf"^{name}\(\): degrees of freedom is <= 0"):
            getattr(dyngrad, name)(dyngrad.tensor([1.0]))


def test_std_gradient_is_zero_where_std_is_zero():
    x = dyngrad.ones(3, 2, requires_grad=True)
    x.std(0).sum().backward()
    assert np.array_equal(x.grad.numpy(), np.zeros((3, 2)))


def test_softmax_is_stable_for_huge_inputs():
    x = dyngrad.tensor([1000.0, 0.0, -1000.0])
    assert np.array_equal(x.softmax(0).numpy(), np.array([1.0, 0.0, 0.0], dtype=np.float32))
    np.testing.assert_array_equal(x.log_softmax(0).numpy(), [0.0, -1000.0, -2000.0])
    assert np.isnan(dyngrad.tensor([-float("inf")] * 2).softmax(0).numpy()).all()


def test_return_types_are_named():
    x = dyngrad.tensor([[1.0, 5.0], [4.0, 2.0]])
    for result, name in (
        (x.max(1), "max"),
        (x.sort(), "sort"),
        (x.topk(1), "topk"),
        (x.median(0), "median"),
        (x.kthvalue(1), "kthvalue"),
    ):
        assert type(result).__name__ == name
        assert result.values is result[0] and result.indices is result[1]
        assert repr(result).startswith(f"torch.return_types.{name}(")


@pytest.mark.parametrize("fn", ["min", "max", "median", "nanmedian"])
def test_all_reduce_extremes_share_the_gradient_among_ties_and_nans(lib, fn):
    for values in ([1.0, 0.0, 1.0, 0.0, 1.0, 0.0], [float("nan")] * 3):
        x = lib.tensor(values, requires_grad=True)
        getattr(lib, fn)(x).backward()
        assert x.grad.sum().item() == pytest.approx(1.0)
        assert (x.grad == 1 / 3).sum().item() == 3
