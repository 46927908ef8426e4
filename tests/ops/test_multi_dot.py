"""linalg.multi_dot and the deprecated chain_matmul against torch: values, the order of the
products (their nodes), gradients, errors and the deprecation warning."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad

from .oracle import exprs, same, same_grads

RNG = np.random.default_rng(1)
ENV = {
    "a": RNG.standard_normal((3, 4)),
    "b": RNG.standard_normal((4, 2)),
    "c": RNG.standard_normal((2, 5)),
    "d": RNG.standard_normal((5, 3)),
    "e": RNG.standard_normal((3, 6)),
    "v": RNG.standard_normal(3),
    "w": RNG.standard_normal(4),
    "s": RNG.standard_normal((3, 3)),
    "batch": RNG.standard_normal((2, 3, 3)),
}

GRADS = """t.linalg.multi_dot([a, b]) | t.linalg.multi_dot([a, b, c]) | t.linalg.multi_dot([a, b, c, d])
t.linalg.multi_dot([a, b, c, d, e]) | t.linalg.multi_dot([v, a, b]) | t.linalg.multi_dot([a, w])
t.linalg.multi_dot([v, s, v]) | t.linalg.multi_dot((s, s, s, s)) | t.linalg.multi_dot([b.mT, a.mT])
t.linalg.multi_dot([v, a, b, c, d]) | t.linalg.multi_dot([a, b, c, d, v])"""

CHECKS = """t.linalg.multi_dot([]) | t.linalg.multi_dot([a]) | t.linalg.multi_dot([a, a])
t.linalg.multi_dot([batch, s]) | t.linalg.multi_dot([s, batch]) | t.linalg.multi_dot([s, v, s])
t.linalg.multi_dot([s, s.float()]) | t.linalg.multi_dot([s, s, v[None]])
t.linalg.multi_dot([a.long(), b.long()]) | t.linalg.multi_dot([v, v])
t.chain_matmul() | t.chain_matmul(v) | t.chain_matmul(s, v) | t.chain_matmul(s, b.float())
t.chain_matmul(a, a)"""


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_multi_dot_matches_torch(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(CHECKS))
def test_multi_dot_checks_match_torch(torch, expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(torch, expr, **ENV)


@pytest.mark.parametrize("expr", ["t.chain_matmul(a, b, c, d)", "t.chain_matmul(s)"])
def test_chain_matmul_matches_torch(torch, expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_grads(torch, expr, **ENV)


def test_chain_matmul_warns_once(lib):
    s = lib.tensor(ENV["s"])
    lib.set_warn_always(True)
    try:
        with pytest.warns(UserWarning, match="^torch.chain_matmul is deprecated"):
            lib.chain_matmul(s, s)
    finally:
        lib.set_warn_always(False)


def _chain(node) -> list:
    names = []
    while node is not None:
        names.append(node.name())
        inner = [
            f for f, _ in node.next_functions if f is not None and "Accumulate" not in f.name()
        ]
        node = inner[0] if inner else None
    return names


def test_multi_dot_records_mms_under_one_view(lib):
    a, b, c = (lib.tensor(ENV[k], requires_grad=True) for k in "abc")
    out = lib.linalg.multi_dot([a, b, c])
    assert _chain(out.grad_fn) == ["ViewBackward0", "MmBackward0", "MmBackward0"]


def test_multi_dot_gradgradcheck():
    args = [dyngrad.tensor(ENV[k], requires_grad=True) for k in ("v", "a", "b", "c")]
    assert dyngrad.autograd.gradgradcheck(lambda *m: dyngrad.linalg.multi_dot(m), args)
