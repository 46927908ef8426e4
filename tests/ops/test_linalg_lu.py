"""linalg.lu, lu_factor and lu_factor_ex against torch: factors, pivots, info, gradients of
square, wide and tall matrices, zero pivots and the checks' messages."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad
from dyngrad.ops.linalg import cholesky as warn_once_registry

from .oracle import exprs, same, same_grads

RNG = np.random.default_rng(11)
ENV = {
    "a": RNG.standard_normal((4, 4)),
    "ab": RNG.standard_normal((2, 3, 3)),
    "w": RNG.standard_normal((3, 5)),
    "h": RNG.standard_normal((5, 3)),
    "z": np.zeros((2, 2, 2)),
    "s": np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]),
    "v": RNG.standard_normal(3),
    "i": np.eye(3, dtype=np.int64),
    "f": RNG.standard_normal((3, 3)).astype(np.float32),
    "b": RNG.standard_normal((4, 2)),
    "p": np.array([2, 2, 4, 4], np.int32),
}


GRADS = """t.linalg.lu(a) | t.linalg.lu(ab) | t.linalg.lu(w) | t.linalg.lu(h) | t.linalg.lu(a).L
t.linalg.lu_factor(a) | t.linalg.lu_factor(ab) | t.linalg.lu_factor(w) | t.linalg.lu_factor(h)
t.linalg.lu_factor_ex(a) | t.linalg.lu_factor_ex(h).LU | t.linalg.lu(w).U"""

CHECKS = """t.linalg.lu_factor_ex(z) | t.linalg.lu_factor_ex(s) | t.linalg.lu(z) | t.linalg.lu(s)
t.linalg.lu_factor(z) | t.linalg.lu_factor(s) | t.linalg.lu_factor(z[0])
t.linalg.lu_factor_ex(z, check_errors=True) | t.linalg.lu_factor_ex(s, check_errors=True)
t.linalg.lu_factor(v) | t.linalg.lu(v) | t.linalg.lu_factor(i) | t.linalg.lu(i) | t.linalg.lu(f.half())
t.linalg.lu_factor(a, pivot=False) | t.linalg.lu(a, pivot=False) | t.linalg.lu_factor(1)
t.linalg.lu(t.empty(0, 2)) | t.linalg.lu_factor(t.empty(2, 0, 3)) | t.linalg.lu_factor_ex(t.empty(0, 0))
t.linalg.lu(f)[0] | type(t.linalg.lu(a)).__name__ | type(t.linalg.lu_factor(a)).__name__"""


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_lu_gradients_match_torch(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(CHECKS))
def test_lu_checks_match_torch(torch, expr):
    same(torch, expr, **ENV)


def test_lu_reconstructs_the_matrix(lib):
    a = lib.tensor([[0.0, 2.0, 1.0], [3.0, 1.0, 0.0], [1.0, 1.0, 5.0]], dtype=lib.float64)
    P, L, U = lib.linalg.lu(a)  # noqa: N806
    assert lib.allclose(P @ L @ U, a)
    assert L.diagonal().tolist() == [1.0, 1.0, 1.0] and P.dtype == lib.float64


def test_lu_out_names_the_op_torch_names(lib):
    a = lib.eye(2, requires_grad=True)
    e = lib.empty
    with pytest.raises(RuntimeError, match=r"^linalg_lu\(\): functions with out="):
        lib.linalg.lu(a, out=(e(0), e(0), e(0)))
    with pytest.raises(RuntimeError, match=r"^linalg_lu_factor_ex\(\): functions with out="):
        lib.linalg.lu_factor(a, out=(e(0), e(0, dtype=lib.int32)))
    LU, pivots = e(0), e(0, dtype=lib.int32)  # noqa: N806
    returned = lib.linalg.lu_factor(a.detach() * 2, out=(LU, pivots))
    assert returned.LU is LU and LU.tolist() == [[2.0, 0.0], [0.0, 2.0]]
    assert pivots.tolist() == [1, 2]


# LU and pivots made by the expression itself (p: pivots of a, read from lu_factor(a))
SOLVE = """t.linalg.lu_solve(*t.linalg.lu_factor(a), b) | t.linalg.lu_solve(*t.linalg.lu_factor(a), b, adjoint=True)
t.linalg.lu_solve(*t.linalg.lu_factor(a), b.mT, left=False)
t.linalg.lu_solve(*t.linalg.lu_factor(a), b.mT, left=False, adjoint=True)
t.linalg.lu_solve(*t.linalg.lu_factor(ab), t.ones(2, 1, 3, 2, dtype=ab.dtype))"""

SOLVE_CHECKS = """t.linalg.lu_solve(a, p, b[:, 0]) | t.linalg.lu_solve(a, p, b.float()) | t.linalg.lu_solve(a, p.long(), b)
t.linalg.lu_solve(a, p[:3], b) | t.linalg.lu_solve(a[:3], p, b) | t.linalg.lu_solve(a, p, b[:3])
t.linalg.lu_solve(a, p, b, left=False) | t.linalg.lu_solve(i, p[:3], i) | t.linalg.lu_solve(v, p, b)
t.linalg.lu_solve(a.expand(2, 4, 4), p, b) | t.linalg.lu_solve(a.expand(2, 4, 4), p.expand(3, 4), b)
t.linalg.lu_solve(f.half(), p[:3], f.half()) | t.linalg.lu_solve(a, p, t.ones(3, 4, 2, dtype=a.dtype))
t.linalg.lu_solve(t.zeros(2, 2), t.tensor([1, 2], dtype=t.int32), t.ones(2, 1)) | t.linalg.lu_solve(a, 1, b)
t.linalg.lu_solve(a, p - 2, b)
t.linalg.lu_solve(a.expand(2, 4, 4), p.expand(2, 4), t.ones(3, 4, 2, dtype=a.dtype))"""


@pytest.mark.parametrize("expr", exprs(SOLVE))
def test_lu_solve_gradients_match_torch(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(SOLVE_CHECKS))
def test_lu_solve_checks_match_torch(torch, expr):
    same(torch, expr, **ENV)


def test_lu_solve_out_names_the_op_torch_names(lib):
    a = lib.eye(2, requires_grad=True)
    pivots = lib.tensor([1, 2], dtype=lib.int32)
    with pytest.raises(RuntimeError, match=r"^linalg_lu_solve\(\): functions with out="):
        lib.linalg.lu_solve(a, pivots, lib.ones(2, 1), out=lib.empty(0))


OLDER = """t.lu(a) | t.lu(h, get_infos=True) | t.lu_unpack(*t.linalg.lu_factor(w)) | a.lu()[0]
t.lu_unpack(*t.linalg.lu_factor(h))
t.lu_unpack(*t.linalg.lu_factor(a), unpack_pivots=False) | t.lu_solve(b, *t.linalg.lu_factor(a))
b.lu_solve(*t.linalg.lu_factor(a))"""

OLDER_CHECKS = """t.lu(z) | t.lu(z, get_infos=True) | t.lu(v) | t.lu_unpack(a, p.long()) | t.lu_unpack(v, p)
t.lu_unpack(i, p[:3] - 1) | type(t.lu(a, get_infos=True)).__name__ | type(t.lu(a)).__name__
type(t.lu_unpack(a, p)).__name__ | hasattr(a, "lu_unpack") | t.lu(a, pivot=False)
t.lu_unpack(*t.linalg.lu_factor(ab), unpack_data=False)"""


@pytest.mark.parametrize("expr", exprs(OLDER))
def test_older_lu_forms_match_torch(torch, expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(OLDER_CHECKS))
def test_older_lu_checks_match_torch(torch, expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(torch, expr, **ENV)


def test_lu_unpack_without_data_has_torchs_backward_error(lib):
    a = lib.eye(3, dtype=lib.float64).requires_grad_()
    result = lib.lu_unpack(*lib.linalg.lu_factor(a), unpack_data=False)
    assert result.L.shape == (0,) and result.U.grad_fn.name() == "LuUnpackBackward0"
    with pytest.raises(RuntimeError, match="^triu: input tensor must have at least 2 dimensions"):
        (result.L.sum() + result.U.sum()).backward()


def test_older_lu_forms_warn_once_as_torch():
    warn_once_registry._warned.difference_update({"lu", "lu_solve"})
    a = dyngrad.eye(3, dtype=dyngrad.float64) * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        factors, pivots = dyngrad.lu(a)
        dyngrad.lu(a)
        dyngrad.lu_solve(dyngrad.ones(3, 1, dtype=dyngrad.float64), factors, pivots)
    assert [str(w.message).split("\n")[0] for w in caught] == [
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.",
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
        "future PyTorch release.",
    ]


def test_older_lu_forms_out_as_torch(lib):
    a = (lib.eye(3) * 2).requires_grad_()
    pivots = lib.tensor([1, 2, 3], dtype=lib.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        factors, piv = lib.empty(0), lib.empty(0, dtype=lib.int32)
        assert lib.lu(a, out=(factors, piv))[0] is factors and factors.requires_grad
        with pytest.raises(RuntimeError, match=r"^linalg_lu_solve\(\): functions with out="):
            lib.lu_solve(lib.ones(3, 1), a, pivots, out=lib.empty(0))
    with pytest.raises(RuntimeError, match=r"^lu_unpack\(\): functions with out="):
        lib.lu_unpack(a, pivots, out=(lib.empty(0), lib.empty(0), lib.empty(0)))
