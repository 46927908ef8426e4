"""float16 and bfloat16 products and sums against torch, bit for bit: the dtype kept, computed
in float32 and rounded once (Note [Low-precision products])."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

PRODUCTS = {
    "mm": lambda t, a, b, v, c, r: a @ b,
    "mm_fn": lambda t, a, b, v, c, r: t.mm(a, b),
    "bmm": lambda t, a, b, v, c, r: t.bmm(a[None], b[None]),
    "matmul_batched": lambda t, a, b, v, c, r: t.matmul(a[None].expand(2, 7, 300), b),
    "matmul_vector_matrix": lambda t, a, b, v, c, r: v @ b,
    "matmul_matrix_vector": lambda t, a, b, v, c, r: a @ v,
    "mv": lambda t, a, b, v, c, r: t.mv(a, v),
    "dot": lambda t, a, b, v, c, r: t.dot(v, v),
    "outer": lambda t, a, b, v, c, r: t.outer(r, c),
    "addmm": lambda t, a, b, v, c, r: t.addmm(c, a, b),
    "addmm_scaled": lambda t, a, b, v, c, r: t.addmm(c, a, b, beta=0.5, alpha=2),
    "addmv": lambda t, a, b, v, c, r: t.addmv(r, a, v),
    "addr": lambda t, a, b, v, c, r: t.addr(r[:, None] * 1, r, c, alpha=3),
    "addr_beta": lambda t, a, b, v, c, r: t.addr(r[:, None] * 1, r, c, beta=0.5),
    "baddbmm": lambda t, a, b, v, c, r: t.baddbmm(c, a[None], b[None]),
    "addbmm": lambda t, a, b, v, c, r: t.addbmm(
        c, a[None].expand(2, 7, 300), b[None].expand(2, 300, 9)
    ),
    "linear": lambda t, a, b, v, c, r: t.nn.functional.linear(a, b.t(), c),
    "linear_one_row": lambda t, a, b, v, c, r: t.nn.functional.linear(a[:1], b.t(), c),
    "linear_3d": lambda t, a, b, v, c, r: t.nn.functional.linear(a[None], b.t(), c),
    "linear_no_bias": lambda t, a, b, v, c, r: t.nn.functional.linear(a, b.t()),
    "einsum": lambda t, a, b, v, c, r: t.einsum("ij,jk->ik", a, b),
    "einsum_batched": lambda t, a, b, v, c, r: t.einsum(
        "bij,jk->bik", a[None].expand(2, 7, 300), b
    ),
    "tensordot": lambda t, a, b, v, c, r: t.tensordot(a, b, 1),
    "sum": lambda t, a, b, v, c, r: a.sum(),
    "sum_dim": lambda t, a, b, v, c, r: a.sum(0),
    "mean": lambda t, a, b, v, c, r: a.mean(),
    "mean_dim": lambda t, a, b, v, c, r: a.mean(1, keepdim=True),
}


def _operands(lib, dtype):
    rng = np.random.default_rng(0)
    shapes = [(7, 300), (300, 9), (300,), (9,), (7,)]
    return [
        lib.tensor(rng.standard_normal(s), dtype=lib.float32).to(getattr(lib, dtype))
        for s in shapes
    ]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_low_precision_result_is_torchs_bit_for_bit(torch, name, dtype):
    fn = PRODUCTS[name]
    ours = fn(dyngrad, *_operands(dyngrad, dtype))
    theirs = fn(torch, *_operands(torch, dtype))
    assert ours.dtype is getattr(dyngrad, dtype)
    _assert_rounded_as_torch(ours.float().numpy(), theirs.float().numpy(), dtype)


# the bits after the point in each dtype's significand
_FRACTION_BITS = {"float16": 10, "bfloat16": 7}


def _assert_rounded_as_torch(ours, theirs, dtype):
    """Bit for bit, except where the float32 sums themselves differ: a BLAS adds a 300-long
    dot product in an order of its own on each CPU, and a float32 ulp apart can round to
    neighbouring float16 values. So a few elements may be one low-precision ulp apart; a
    second rounding (of the product, then of the sum) would put a third of them apart."""
    equal = ours == theirs
    if equal.all():
        return
    _, exponent = np.frexp(theirs)
    ulp = np.ldexp(1.0, exponent - 1 - _FRACTION_BITS[dtype])
    assert (np.abs(ours - theirs) <= ulp).all(), (ours, theirs)
    assert equal.mean() >= 0.95, f"{(~equal).sum()} of {equal.size} elements differ"


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_linear_gradients_keep_the_dtype_and_match_torch(torch, dtype):
    grads = []
    for lib in (dyngrad, torch):
        a, b, _, c, _ = (t.requires_grad_() for t in _operands(lib, dtype))
        g = lib.tensor(np.random.default_rng(1).standard_normal((7, 9)), dtype=lib.float32)
        lib.nn.functional.linear(a, b.t(), c).backward(g.to(getattr(lib, dtype)))
        grads.append([t.grad for t in (a, b, c)])
    for ours, theirs in zip(*grads):
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_array_equal(ours.float().numpy(), theirs.float().numpy())


def test_a_bfloat16_linear_layer_trains_in_bfloat16(lib):
    model = lib.nn.Linear(4, 3).to(lib.bfloat16)
    out = model(lib.ones(2, 4, dtype=lib.bfloat16))
    out.sum().backward()
    assert out.dtype is lib.bfloat16 and model.weight.grad.dtype is lib.bfloat16


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_matrix_vector_products_sum_in_torchs_order(torch, dtype):
    """Many random shapes: float16 matrix-vector products and dots are torch's bit for bit."""
    rng = np.random.default_rng(1)
    for _ in range(40):
        k = int(rng.integers(1, 700))
        a, v = rng.standard_normal((5, k)), rng.standard_normal(k)
        results = []
        for lib in (dyngrad, torch):
            d = getattr(lib, dtype)
            ta, tv = lib.tensor(a, dtype=lib.float32).to(d), lib.tensor(v, dtype=lib.float32).to(d)
            results.append(
                [r.float().numpy() for r in (lib.mv(ta, tv), lib.dot(tv, tv), ta[None] @ tv)]
            )
        for ours, theirs in zip(*results):
            np.testing.assert_array_equal(ours, theirs)
