"""The deprecated torch.frobenius_norm and torch.nuclear_norm against torch: their forms,
nodes, gradients, errors and warnings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad

from .oracle import exprs, same, same_grads

RNG = np.random.default_rng(2)
ENV = {"a": RNG.standard_normal((4, 3)), "b": RNG.standard_normal((2, 4, 3))}

GRADS = """t.frobenius_norm(a, (0, 1)) | t.frobenius_norm(a, [1]) | t.frobenius_norm(a, 0)
t.frobenius_norm(b, (1, 2), True) | t.frobenius_norm(b, ()) | t.frobenius_norm(b, dim=(-1, 0))
t.nuclear_norm(a) | t.nuclear_norm(a, keepdim=True) | t.nuclear_norm(a, True) | t.nuclear_norm(b, (1, 2))
t.nuclear_norm(b, [0, 2], True) | t.nuclear_norm(a, dim=(1, 0))"""

CHECKS = """t.frobenius_norm(b, (0, 1, 2)) | t.frobenius_norm(a, (0, 0)) | t.frobenius_norm(a, (0, 5))
t.frobenius_norm(a.long(), 0) | t.nuclear_norm(b) | t.nuclear_norm(a[0]) | t.nuclear_norm(b, (1,))
t.nuclear_norm(a, (0, 0)) | t.frobenius_norm(a.float(), 1)"""


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_deprecated_norms_match_torch(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(CHECKS))
def test_deprecated_norm_checks_match_torch(torch, expr):
    same(torch, expr, **ENV)


@pytest.mark.parametrize(
    "call,text",
    [
        (lambda t, a: t.frobenius_norm(a, (0, 1)), "at::frobenius_norm is deprecated"),
        (lambda t, a: t.nuclear_norm(a), "at::nuclear_norm is deprecated"),
    ],
)
def test_deprecated_norms_warn(lib, call, text):
    lib.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call(lib, lib.tensor(ENV["a"]))
    finally:
        lib.set_warn_always(False)
    assert any(str(w.message).startswith(text) for w in caught)


def test_deprecated_norms_gradgradcheck():
    a = dyngrad.tensor(ENV["b"], requires_grad=True)
    assert dyngrad.autograd.gradgradcheck(lambda x: dyngrad.frobenius_norm(x, (1, 2)), (a,))
    assert dyngrad.autograd.gradgradcheck(lambda x: dyngrad.nuclear_norm(x, (1, 2)), (a,))
