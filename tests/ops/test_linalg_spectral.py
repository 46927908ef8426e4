"""linalg.eigh and eigvalsh against torch: values, the triangle read, gradients (of the
matrix read as a general one, as torch's), nodes and errors; and householder_product."""

from __future__ import annotations

import numpy as np
import pytest

from .oracle import exprs, same, same_grads

RNG = np.random.default_rng(5)
_A = RNG.standard_normal((4, 4))
_B = RNG.standard_normal((2, 3, 3))
ENV = {
    "s": _A + _A.T,
    "sb": _B + _B.swapaxes(-1, -2),
    "a": RNG.standard_normal((3, 3)),
    "r": RNG.standard_normal((2, 3)),
    "v": RNG.standard_normal(3),
    "i": np.eye(3, dtype=np.int64),
    "f": (_A + _A.T).astype(np.float32),
}


# the eigenvectors' signs are LAPACK's on both sides; squares and products are sign-free
GRADS = """t.linalg.eigvalsh(s) | t.linalg.eigvalsh(sb) | t.linalg.eigvalsh(a) | t.linalg.eigvalsh(a, "U")
t.linalg.eigh(s).eigenvalues | t.linalg.eigh(s).eigenvectors ** 2 | t.linalg.eigh(sb, UPLO="U")[1] ** 2
t.linalg.eigh(a)[1] ** 2 | t.linalg.eigh(a, "U")[1] ** 2 | t.linalg.eigvalsh(s).sum()
(lambda r: (r.eigenvectors * r.eigenvalues) @ r.eigenvectors.mT)(t.linalg.eigh(a))
(lambda r: r.eigenvectors[..., :1] @ r.eigenvectors[..., :1].mT)(t.linalg.eigh(sb))"""

CHECKS = """t.linalg.eigh(r) | t.linalg.eigh(v) | t.linalg.eigh(i) | t.linalg.eigh(s, "X")
t.linalg.eigh(r, "X") | t.linalg.eigh(i, "X") | t.linalg.eigvalsh(i) | t.linalg.eigvalsh(r)
t.linalg.eigvalsh(s, UPLO="u") | t.linalg.eigh(f.half()) | t.linalg.eigh(1) | t.linalg.eigvalsh(f).dtype == t.float32
t.linalg.eigh(t.empty(2, 0, 0)) | t.linalg.eigvalsh(s, "LU") | t.linalg.eigh(f)[1].dtype == t.float32
type(t.linalg.eigh(s)).__name__ | t.linalg.eigh(s.tril())[0]"""


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_eigh_gradients_match_torch(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(CHECKS))
def test_eigh_checks_match_torch(torch, expr):
    same(torch, expr, **ENV)


def test_eigh_reconstructs_the_matrix(lib):
    a = lib.tensor([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]], dtype=lib.float64)
    values, vectors = lib.linalg.eigh(a)
    assert lib.allclose(vectors @ lib.diag(values) @ vectors.mT, a)
    assert values.tolist() == sorted(values.tolist())


def test_eigh_out_names_the_op_torch_names(lib):
    a = lib.eye(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^_linalg_eigh\(\): functions with out="):
        lib.linalg.eigvalsh(a, out=lib.empty(0))
    values, vectors = lib.empty(0), lib.empty(0)
    returned = lib.linalg.eigh(a.detach() * 2, out=(values, vectors))
    assert returned.eigenvalues is values and values.tolist() == [2.0, 2.0]


HOUSEHOLDER = """t.linalg.householder_product(h, tau) | t.linalg.householder_product(h, tau[:1])
t.linalg.householder_product(hb, taub) | t.linalg.householder_product(s, tau3)"""

HOUSEHOLDER_CHECKS = """t.linalg.householder_product(h, tau3[:0]) | t.linalg.householder_product(h, tau4)
t.linalg.householder_product(h.mT, tau) | t.linalg.householder_product(v, tau)
t.linalg.householder_product(h, tau[0]) | t.linalg.householder_product(h, tau.float())
t.linalg.householder_product(i, tau3.long()) | t.linalg.householder_product(hb, tau)
t.linalg.householder_product(hb, taub[:1].expand(3, 3)) | t.linalg.householder_product(1, tau)"""

HENV = {
    "h": RNG.standard_normal((4, 3)),
    "hb": RNG.standard_normal((2, 5, 3)),
    "tau": RNG.random(2),
    "tau3": RNG.random(3),
    "tau4": RNG.random(4),
    "taub": RNG.random((2, 3)),
}


@pytest.mark.parametrize("expr", exprs(HOUSEHOLDER))
def test_householder_product_gradients_match_torch(torch, expr):
    same_grads(torch, expr, **ENV, **HENV)


@pytest.mark.parametrize("expr", exprs(HOUSEHOLDER_CHECKS))
def test_householder_product_checks_match_torch(torch, expr):
    same(torch, expr, **ENV, **HENV)
