"""linalg.lstsq and linalg.matrix_rank against torch: values, what each driver fills in,
gradients (solution and residuals), nodes and errors."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from .oracle import exprs, same, same_grads

RNG = np.random.default_rng(0)
ENV = {
    "tall": RNG.standard_normal((5, 3)),
    "wide": RNG.standard_normal((3, 5)),
    "sq": RNG.standard_normal((3, 3)) + 3 * np.eye(3),
    "batch": RNG.standard_normal((2, 5, 3)),
    "b5": RNG.standard_normal((5, 2)),
    "b3": RNG.standard_normal((3, 2)),
    "bb": RNG.standard_normal((2, 5, 2)),
    "v5": RNG.standard_normal(5),
    "v3": RNG.standard_normal(3),
    "deficient": np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]),
    "b32": RNG.standard_normal((3, 2)),
    "one": RNG.standard_normal((1, 5, 2)),
}

GRADS = """t.linalg.lstsq(tall, b5) | t.linalg.lstsq(tall, b5, driver='gelsd')
t.linalg.lstsq(tall, b5, driver='gels') | t.linalg.lstsq(tall, b5, driver='gelss')
t.linalg.lstsq(wide, b3) | t.linalg.lstsq(wide, b3, driver='gelsd') | t.linalg.lstsq(sq, b3)
t.linalg.lstsq(batch, bb, driver='gelsd') | t.linalg.lstsq(batch, one) | t.linalg.lstsq(tall, v5)
t.linalg.lstsq(tall, v5, driver='gels') | t.linalg.lstsq(wide, v3, driver='gelsd')
t.linalg.lstsq(tall, b5, driver='gelsd').residuals"""

CHECKS = """t.linalg.lstsq(deficient, b32, driver='gelsd') | t.linalg.lstsq(deficient, b32, driver='gelss')
t.linalg.lstsq(deficient, b32).rank | t.linalg.lstsq(tall, b5, 0.5, driver='gelsd').rank
t.linalg.lstsq(tall, b5, driver='x') | t.linalg.lstsq(tall, b3) | t.linalg.lstsq(tall, v3)
t.linalg.lstsq(tall, b5.float()) | t.linalg.lstsq(v5, v5) | t.linalg.lstsq(tall, bb[0, 0, 0])
t.linalg.lstsq(tall.long(), b5.long()) | t.linalg.lstsq(batch, b5[None].expand(3, 5, 2))
t.linalg.lstsq(t.zeros(0, 3), t.zeros(0, 2)) | t.linalg.lstsq(tall, b5[:, :1]).solution.shape
t.linalg.matrix_rank(deficient) | t.linalg.matrix_rank(batch) | t.linalg.matrix_rank(tall, 1.5)
t.linalg.matrix_rank(tall, tol=1.5) | t.linalg.matrix_rank(tall, atol=1.5, rtol=0.1)
t.linalg.matrix_rank(tall, rtol=0.5) | t.linalg.matrix_rank(sq, hermitian=True)
t.linalg.matrix_rank(sq @ sq.mT, hermitian=True, atol=10.0) | t.linalg.matrix_rank(tall, hermitian=True)
t.linalg.matrix_rank(v5) | t.linalg.matrix_rank(tall.long()) | t.linalg.matrix_rank(t.zeros(0, 3))
t.linalg.matrix_rank(batch, atol=t.tensor([0.5, 2.0, 3.0], dtype=t.float64)[:, None, None])
t.linalg.matrix_rank(batch, atol=t.tensor([0.0, 2.0], dtype=t.float64))
t.linalg.matrix_rank(tall, atol=-1.0) | t.linalg.matrix_rank(tall.float()) | t.linalg.matrix_rank(t.zeros(3, 3))"""


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_lstsq_values_and_gradients_match_torch(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(CHECKS))
def test_lstsq_and_matrix_rank_match_torch(torch, expr):
    same(torch, expr, **ENV)


@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_fields_per_driver(lib, driver):
    a = lib.tensor(ENV["tall"])
    solution, residuals, rank, values = lib.linalg.lstsq(a, lib.tensor(ENV["b5"]), driver=driver)
    assert tuple(solution.shape) == (3, 2)
    assert tuple(residuals.shape) == ((0,) if driver == "gelsy" else (2,))
    assert tuple(rank.shape) == ((0,) if driver == "gels" else ())
    assert tuple(values.shape) == ((3,) if driver in ("gelsd", "gelss") else (0,))
    assert rank.dtype == lib.int64


def test_lstsq_is_a_named_tuple(lib):
    result = lib.linalg.lstsq(lib.tensor(ENV["tall"]), lib.tensor(ENV["b5"]))
    assert type(result).__name__ == "linalg_lstsq"
    fields = (result.solution, result.residuals, result.rank, result.singular_values)
    assert all(a is b for a, b in zip(fields, result))


def test_lstsq_float32_keeps_its_dtype(lib):
    a = lib.tensor(ENV["tall"], dtype=lib.float32)
    x = lib.linalg.lstsq(a, lib.tensor(ENV["b5"], dtype=lib.float32)).solution
    expected = np.linalg.lstsq(ENV["tall"], ENV["b5"], rcond=None)[0]
    assert x.dtype == lib.float32
    np.testing.assert_allclose(x.numpy(), expected, rtol=1e-4, atol=1e-5)


def test_lstsq_gradgradcheck_with_residuals():
    a = dyngrad.tensor(ENV["batch"], requires_grad=True)
    b = dyngrad.tensor(ENV["bb"], requires_grad=True)

    def fn(a, b):
        return dyngrad.linalg.lstsq(a, b, driver="gelsd")[:2]

    assert dyngrad.autograd.gradcheck(fn, (a, b))
    assert dyngrad.autograd.gradgradcheck(fn, (a, b))


def test_lstsq_vector_gradgradcheck():
    a = dyngrad.tensor(ENV["wide"], requires_grad=True)
    b = dyngrad.tensor(ENV["v3"], requires_grad=True)
    assert dyngrad.autograd.gradgradcheck(lambda a, b: dyngrad.linalg.lstsq(a, b)[0], (a, b))
