"""det, slogdet, logdet, matrix_exp, matrix_power, pinverse, torch.svd, inner, vdot against
torch: values, gradients, nodes and errors."""

from __future__ import annotations

import numpy as np
import pytest

from .oracle import exprs, same, same_grads

RNG = np.random.default_rng(0)
ENV = {
    "a": RNG.standard_normal((3, 3)),
    "b": RNG.standard_normal((2, 4, 4)),
    "r": RNG.standard_normal((3, 5)),
    "tall": RNG.standard_normal((5, 3)),
    "v": RNG.standard_normal(4),
    "w": RNG.standard_normal(4),
    "m": RNG.standard_normal((2, 4)),
}

GRADS = """t.det(a) | t.det(b) | t.linalg.det(a) | a.det() | t.slogdet(a) | t.slogdet(b)[1]
t.linalg.slogdet(b) | t.logdet(a @ a.mT) | t.logdet(b) | t.matrix_exp(a) | t.matrix_exp(b * 3)
t.linalg.matrix_exp(a) | t.matrix_power(a, 0) | t.matrix_power(a, 1) | t.matrix_power(a, 2)
t.matrix_power(a, 3) | t.matrix_power(b, 5) | t.matrix_power(a, -2) | t.linalg.matrix_power(b, 6)
t.pinverse(r) | t.pinverse(tall) | t.pinverse(b) | t.svd(r)[0].abs() | t.svd(tall)[1]
t.linalg.qr(a) | t.linalg.qr(tall) | t.linalg.qr(r) | t.linalg.qr(b) | t.qr(tall) | t.linalg.qr(a, "complete")
t.linalg.qr(r, "complete") | t.linalg.qr(tall)[0] | t.linalg.qr(r)[1] | t.linalg.qr(tall)[1]
t.inner(v, w) | t.inner(m, v) | t.inner(m, m) | t.vdot(v, w) | v.inner(w) | a.matrix_power(2)"""

CHECKS = """t.det(r) | t.det(v) | t.svd(tall, some=False)[2].shape | t.svd(r, compute_uv=False)
t.inner(m, a) | t.vdot(v, m) | t.vdot(v, w.float()) | t.matrix_power(r, 2) | t.det(t.zeros(3, 3))
t.linalg.qr(tall, "r") | t.linalg.qr(tall, "complete") | t.linalg.qr(a, "full") | t.qr(tall, False)
t.slogdet(-t.eye(3)) | t.logdet(-t.eye(3)) | t.svd(a)[2] @ t.svd(a)[2].mT"""


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_matrix_function_gradients_match_torch(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(CHECKS))
def test_matrix_function_checks_match_torch(torch, expr):
    same(torch, expr, **ENV)


def test_svd_v_reconstructs_the_matrix(lib):
    a = lib.tensor([[3.0, 1.0], [1.0, 2.0], [0.0, 1.0]])
    u, s, v = lib.svd(a)
    assert lib.allclose(u @ lib.diag(s) @ v.T, a, atol=1e-6)
