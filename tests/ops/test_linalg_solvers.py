"""linalg.solve, solve_ex and inv_ex against torch: B's vector rule, broadcasting, gradients,
singular matrices (info, inf and nan, the errors), the checks' messages in torch's order."""

from __future__ import annotations

import numpy as np
import pytest

from .oracle import exprs, same, same_grads

RNG = np.random.default_rng(3)
ENV = {
    "a": RNG.standard_normal((3, 3)) + 3 * np.eye(3),
    "ab": RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3),
    "b": RNG.standard_normal((3, 2)),
    "v": RNG.standard_normal(3),
    "vb": RNG.standard_normal((2, 3)),
    "bb": RNG.standard_normal((4, 1, 3, 2)),
    "r": RNG.standard_normal((2, 3)),
    "z": np.zeros((2, 3, 3)),
    "s": np.array([[1.0, 2.0], [2.0, 4.0]]),
    "w": np.array([1.0, -2.0]),
    "f": RNG.standard_normal((3, 3)).astype(np.float32),
    "i": np.ones((3, 3), np.int64),
}


GRADS = """t.linalg.solve(a, b) | t.linalg.solve(a, v) | t.linalg.solve(ab, v) | t.linalg.solve(ab, vb)
t.linalg.solve(ab, bb) | t.linalg.solve(ab, b) | t.linalg.solve(a, r, left=False)
t.linalg.solve(ab, r.unsqueeze(0).expand(2, 2, 3), left=False) | t.linalg.solve_ex(ab, vb)
t.linalg.solve_ex(a, r, left=False)
t.linalg.inv_ex(a) | t.linalg.inv_ex(ab) | t.linalg.inv_ex(ab).inverse"""

CHECKS = """t.linalg.solve_ex(z, v) | t.linalg.solve_ex(s, w) | t.linalg.inv_ex(s) | t.linalg.inv_ex(z)
t.linalg.solve(z, v) | t.linalg.solve(s, w) | t.linalg.solve(z[0], v) | t.linalg.inv_ex(z[0])
t.linalg.solve_ex(z, v, check_errors=True) | t.linalg.inv_ex(z, check_errors=True)
t.linalg.inv_ex(s, check_errors=True) | t.linalg.inv(z) | t.linalg.solve(a, v.float()) | t.linalg.solve(i, v)
t.linalg.solve(a, i) | t.linalg.solve(a[0], v) | t.linalg.solve(r, v) | t.linalg.solve(a, v[0])
t.linalg.solve(a, t.ones(4, dtype=t.float64)) | t.linalg.solve(ab, bb[0, 0, :2])
t.linalg.solve(a, b, left=False) | t.linalg.solve(a, v, left=False) | t.linalg.solve(a, 1)
t.linalg.solve(a[:1, :1], v[:1], left=False) | t.linalg.solve(ab, t.ones(4, 3, 1, dtype=ab.dtype))
t.linalg.solve(f.half(), f.half()) | t.linalg.inv_ex(f.half()) | t.linalg.inv_ex(i)
t.linalg.inv_ex(r) | t.linalg.inv_ex(v) | t.linalg.inv_ex(1) | t.linalg.solve(f, f).dtype == t.float32
t.linalg.solve(t.empty(0, 0), t.empty(0)) | t.linalg.solve(t.empty(2, 0, 0), t.empty(0, 3))
t.linalg.solve_ex(a, b).info | t.linalg.solve_ex(ab, b).info | t.linalg.inv_ex(ab).info"""


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_solver_gradients_match_torch(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(CHECKS))
def test_solver_checks_match_torch(torch, expr):
    same(torch, expr, **ENV)


def test_solve_raises_linalg_error_on_a_singular_batch(lib):
    a = lib.stack([lib.eye(2), lib.zeros(2, 2)])
    with pytest.raises(lib.linalg.LinAlgError, match=r"^torch.linalg.solve: \(Batch element 1\)"):
        lib.linalg.solve(a, lib.ones(2))


def test_solve_out_names_the_op_torch_names(lib):
    a = lib.eye(2, requires_grad=True)
    outs = (lib.empty(0), (lib.empty(0), lib.empty(0, dtype=lib.int32)))
    for fn, out in zip((lib.linalg.solve, lib.linalg.solve_ex), outs):
        with pytest.raises(RuntimeError, match=r"^_linalg_solve_ex\(\): functions with out="):
            fn(a, lib.ones(2), out=out)


def test_solve_writes_into_out(lib):
    a = lib.tensor([[2.0, 0.0], [0.0, 4.0]])
    out = lib.empty(0)
    assert lib.linalg.solve(a, lib.ones(2), out=out) is out
    assert out.tolist() == [0.5, 0.25]
    result, info = lib.empty(2), lib.empty(0, dtype=lib.int32)
    returned = lib.linalg.solve_ex(a, lib.ones(2), out=(result, info))
    assert returned.result is result and returned.info is info and info.item() == 0


PINV = """t.linalg.pinv(r) | t.linalg.pinv(b) | t.linalg.pinv(ab) | t.linalg.pinv(a, hermitian=True)
t.linalg.pinv(ab, atol=0.5) | t.linalg.pinv(ab, rtol=0.3) | t.linalg.pinv(r, 0.1)
t.linalg.pinv(ab, atol=t.tensor([0.5, 100.0], dtype=t.float64)) | t.linalg.pinv(a, rcond=0.1)
t.linalg.pinv(ab, rtol=t.tensor([0.1, 0.9], dtype=t.float64), atol=t.tensor(0.2, dtype=t.float64))"""

PINV_CHECKS = """t.linalg.pinv(v) | t.linalg.pinv(i) | t.linalg.pinv(r, hermitian=True) | t.linalg.pinv(f.half())
t.linalg.pinv(v, hermitian=True) | t.linalg.pinv(ab, atol=t.ones(3)) | t.linalg.pinv(t.empty(0, 3))
t.linalg.pinv(t.diag(t.tensor([3.0, 2.0, 1e-8])), atol=0.0) | t.linalg.pinv(s, atol=2.0)
t.linalg.pinv(t.tensor([[1.0, 5.0], [0.0, -2.0]]), hermitian=True)
t.linalg.pinv(t.diag(t.tensor([3.0, 2.0, 1e-8])), atol=-1.0) | t.linalg.pinv(z)"""


@pytest.mark.parametrize("expr", exprs(PINV))
def test_pinv_gradients_match_torch(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(PINV_CHECKS))
def test_pinv_checks_match_torch(torch, expr):
    same(torch, expr, **ENV)


def test_pinv_out_refuses_grad_only_without_tolerances(lib):
    a = lib.tensor([[2.0, 0.0], [0.0, 4.0]], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^linalg_pinv\(\): functions with out="):
        lib.linalg.pinv(a, out=lib.empty(0))
    out = lib.empty(0)
    assert lib.linalg.pinv(a, atol=0.1, out=out) is out
    assert out.grad_fn.name().endswith("CopyBackwards") and out.tolist() == [
        [0.5, 0.0],
        [0.0, 0.25],
    ]
