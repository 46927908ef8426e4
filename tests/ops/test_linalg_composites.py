"""linalg.vecdot, diagonal, vander, cond, tensorinv and tensorsolve against torch: values,
gradients, the nodes they are made of, errors, and gradcheck/gradgradcheck in float64."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import dyngrad

from .oracle import exprs, same, same_grads

RNG = np.random.default_rng(7)
ENV = {
    "x": RNG.standard_normal(3),
    "y": RNG.standard_normal(3),
    "m": RNG.standard_normal((2, 3)),
    "a": RNG.standard_normal((3, 3)) + 2 * np.eye(3),
    "ab": RNG.standard_normal((2, 3, 3)) + 2 * np.eye(3),
    "r": RNG.standard_normal((2, 3)),
    "t4": RNG.standard_normal((4, 6, 8, 3)),
    "t3": RNG.standard_normal((2, 3, 6)),
    "p3": RNG.standard_normal((6, 2, 3)),
    "b2": RNG.standard_normal((2, 3)),
    "z": np.zeros((2, 2)),
    "i": np.arange(1, 4),
    "f": RNG.standard_normal((3, 3)).astype(np.float32),
}


GRADS = """t.linalg.vecdot(x, y) | t.linalg.vecdot(m, x) | t.linalg.vecdot(m, m, dim=0)
t.linalg.diagonal(a) | t.linalg.diagonal(ab, offset=1) | t.linalg.diagonal(t4, dim1=0, dim2=2)
t.linalg.vander(x) | t.linalg.vander(m, N=5) | t.linalg.vander(x, N=2)
t.linalg.cond(a) | t.linalg.cond(ab, 2) | t.linalg.cond(a, -2) | t.linalg.cond(r)
t.linalg.cond(ab, "nuc") | t.linalg.tensorinv(t4, ind=2)
t.linalg.tensorinv(a, ind=1) | t.linalg.tensorsolve(t3, b2) | t.linalg.tensorsolve(p3, b2, dims=(0,))"""

CHECKS = """t.linalg.vecdot(x, y.float()) | t.linalg.vecdot(i, i) | t.linalg.vecdot(m, t.ones(4, dtype=m.dtype))
t.linalg.vecdot(x, t.ones(4, dtype=x.dtype)) | t.linalg.vecdot(m, m, dim=2) | t.linalg.vecdot(x, 1)
t.linalg.vecdot(x[0], y[0]) | t.linalg.diagonal(x) | t.linalg.vander(i) | t.linalg.vander(i.int())
t.linalg.vander(x > 0) | t.linalg.vander(x, N=1) | t.linalg.vander(x[0]) | t.linalg.vander(f.half())
t.linalg.cond(x) | t.linalg.cond(r, 1) | t.linalg.cond(x, "fro") | t.linalg.cond(r, "fro")
t.linalg.cond(a, 3) | t.linalg.cond(a, 3.5) | t.linalg.cond(a, "xyz") | t.linalg.cond(i.reshape(1, 3))
t.linalg.cond(z) | t.linalg.cond(z, 1) | t.linalg.cond(t.stack([t.eye(2), t.zeros(2, 2)]), "nuc") | t.linalg.cond(z, "fro") | t.linalg.cond(z, "nuc")
t.linalg.cond(t.empty(0, 0)) | t.linalg.cond(t.empty(2, 0, 0), 1) | t.linalg.cond(t.empty(0, 0), "nuc")
t.linalg.cond(t.eye(2, dtype=t.int64)) | t.linalg.cond(t.eye(2, dtype=t.int64), 1)
t.linalg.tensorinv(t4, ind=1) | t.linalg.tensorinv(t4, ind=0) | t.linalg.tensorinv(a, ind=3)
t.linalg.tensorinv(z, ind=1) | t.linalg.tensorinv(t.zeros(2, 2, 2, 2), ind=2)
t.linalg.tensorsolve(t3, b2.mT) | t.linalg.tensorsolve(t3[..., :5], b2) | t.linalg.tensorsolve(t3, b2.float())
t.linalg.tensorsolve(t.zeros(2, 3, 6), t.ones(2, 3)) | t.linalg.tensorsolve(p3, b2, dims=(3,))"""


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_composite_gradients_match_torch(torch, expr):
    same_grads(torch, expr, **{**ENV, "math": math})


@pytest.mark.parametrize("expr", exprs(CHECKS))
def test_composite_checks_match_torch(torch, expr):
    same(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_composites_pass_gradcheck_and_gradgradcheck(expr):
    words = set(re.findall(r"\b\w+\b", expr.split("(", 1)[1]))
    names = sorted(k for k in ENV if k in words and ENV[k].dtype.kind == "f")
    assert names, expr
    inputs = [dyngrad.tensor(ENV[k], requires_grad=True) for k in names]

    def fn(*tensors):
        env = dict(zip(names, tensors), t=dyngrad, math=math)
        return eval(expr, {}, env)  # noqa: S307 - the table's expressions

    assert dyngrad.autograd.gradcheck(fn, inputs)
    assert dyngrad.autograd.gradgradcheck(fn, inputs)


@pytest.mark.parametrize("p", [1, -1, math.inf, -math.inf, "fro"])
def test_cond_through_the_inverse_has_torchs_backward_error(lib, p):
    # PyTorch fills the saved inverse in place: the backward finds it modified
    a = (lib.eye(3, dtype=lib.float64) * 2).requires_grad_()
    value = lib.linalg.cond(a, p)
    assert value.grad_fn.name() == "NanToNumBackward0"
    assert abs(value.item() - (3.0 if p == "fro" else 1.0)) < 1e-12
    with pytest.raises(RuntimeError, match="^one of the variables needed for gradient"):
        value.backward()


def test_out_forms_name_what_torch_names(lib):
    x = lib.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^vdot\(\): functions with out="):
        lib.linalg.vecdot(x, x, out=lib.empty(0))
    with pytest.raises(RuntimeError, match=r"^sum\(\): functions with out="):
        lib.linalg.vecdot(x.expand(2, 3), x, out=lib.empty(0))
    a = (lib.eye(3) * 2).requires_grad_()
    for fn in (lib.linalg.cond, lambda a, out: lib.linalg.tensorinv(a, ind=1, out=out)):
        out = lib.empty(0)
        assert fn(a, out=out) is out and out.requires_grad
    for fn in (lib.linalg.diagonal, lib.linalg.vander):
        with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
            fn(a, out=lib.empty(0))
