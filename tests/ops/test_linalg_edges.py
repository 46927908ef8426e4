"""Matrix products, einsum and tensordot against torch: every shape case of matmul, the add*
forms, and PyTorch's error messages."""

from __future__ import annotations

import numpy as np
import pytest

from .oracle import same, same_grads

RNG = np.random.default_rng(0)
SHAPES = {
    "a": (3, 4),
    "b": (4, 2),
    "v": (4,),
    "w": (3,),
    "p": (2, 3, 4),
    "q": (2, 4, 5),
    "r": (1, 4, 5),
    "m": (4, 5),
    "u": (2, 1, 3, 4),
    "k": (3, 4, 5),
    "c": (3, 2),
    "d": (3, 3),
    "s": (),
}
ENV = {name: RNG.standard_normal(shape) for name, shape in SHAPES.items()}
ENV["f"] = RNG.standard_normal((3, 4)).astype(np.float32)
ENV["i"] = np.arange(4)

VALUES = """a @ b | a @ v | v @ b | v @ v | p @ v | v @ q | p @ q | p @ r | p @ m | a @ q | u @ k
p @ w | a @ w | v @ w | v @ c | p @ p | p @ k | a @ a | a.mm(v) | a.mm(a) | i @ i | f @ b | f.double() @ b
t.matmul(a, b) | a.matmul(v) | t.mm(a, b) | t.bmm(p, q) | t.bmm(p, p) | t.bmm(a, b) | t.mv(a, v) | t.mv(a, w)
t.dot(v, v) | t.dot(v, w) | t.dot(a, v) | t.dot(f[0], v) | s @ v | v @ s | t.outer(w, v) | t.ger(w, v)
t.outer(w, a) | t.outer(i, i) | t.addmm(c, a, b) | t.addmm(c[0], a, b) | t.addmm(c, a, b, beta=0.5, alpha=2)
t.addmm(c, a, b, beta=0) | t.addmm(d, a, b) | t.addmm(c, a, a) | t.addmm(c, a, v) | t.addmv(w, a, v)
t.addmv(w, a, v, beta=2, alpha=0.5) | t.addr(a, w, v) | t.addr(a, w, v, alpha=2) | t.baddbmm(p[:, :, :3], p, p.mT)
t.baddbmm(d, p, p.mT, alpha=2, beta=0.5) | t.baddbmm(p, p, q) | t.addbmm(d, p, p.mT) | t.addbmm(c, p, q[:, :, :2])
t.tensordot(a, b, dims=1) | t.tensordot(a, b, dims=([1], [0])) | t.tensordot(p, k, dims=2)
t.tensordot(p, p, dims=([1, 2], [1, 2])) | t.tensordot(c, v, dims=0) | t.tensordot(a, a, dims=([1], [0]))
t.tensordot(a, v, dims=([1], [0])) | t.tensordot(v, v, dims=1) | t.tensordot(v, v, dims=-1)
t.einsum('ij,jk->ik', a, b) | t.einsum('ij,jk', a, b) | t.einsum('ij,kj->ik', a, a) | t.einsum('ij->ji', a)
t.einsum('ij->', a) | t.einsum('ij->i', a) | t.einsum('ii', d) | t.einsum('ii->i', d) | t.einsum('i,i->', v, v)
t.einsum('i,j->ij', w, v) | t.einsum('bij,bjk->bik', p, q) | t.einsum('...ij,...jk->...ik', p, q)
t.einsum('...ij,jk', p, m) | t.einsum('ij,ij->ij', a, a) | t.einsum('ij,ij->i', a, a) | t.einsum('i->i', v)
t.einsum('ij', a) | t.einsum('ji', a) | t.einsum('ij,jk->ik', [a, b]) | t.einsum('ij,jk->ik', a, a)
t.einsum('ij,jk->ik', a) | t.einsum('ij->k', a) | t.einsum('ijk->ij', a) | t.einsum('i j , j k -> i k', a, b)
t.einsum('bij,bjk->bik', r, q.mT.mT) | t.einsum('iij->j', d[:, :, None]) | t.einsum('ij,jj->i', c.mT, d)
t.einsum('bn,anm,bm->ba', c.mT, k, c.mT[:, :2] @ a[:2, :]) | t.einsum('ij,ij', a, a) | t.einsum('...', a)
t.einsum('i...->...', p) | t.einsum('a,a,a->a', v, v, v) | t.einsum('ij,j', a, t.ones(1, dtype=t.float64))
t.einsum(a, [0, 1], b, [1, 2], [0, 2]) | t.einsum(a, [30, 1], b, [1, 2]) | t.einsum(d, [0, 0], [])
t.einsum(p, [Ellipsis, 0, 1], q, [Ellipsis, 1, 2], [Ellipsis, 0, 2]) | t.einsum(a, [0, 52])"""

EXPRS = [e.strip() for line in VALUES.splitlines() for e in line.split("|")]


@pytest.mark.parametrize("expr", EXPRS)
def test_products_match_torch(torch, expr):
    same(torch, expr, requires_grad=True, **ENV)


@pytest.mark.parametrize("expr", EXPRS)
def test_product_gradients_match_torch(torch, expr):
    env = {k: torch.tensor(v, requires_grad=v.dtype.kind == "f") for k, v in ENV.items()}
    env["t"] = torch
    try:
        out = eval(expr, {}, env)
    except (RuntimeError, ValueError):  # the error itself is compared above
        return
    if isinstance(out, torch.Tensor) and out.requires_grad:
        same_grads(torch, expr, **ENV)
