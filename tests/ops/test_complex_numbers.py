"""real, imag, view_as_real/complex, complex, polar, angle, conj and the number predicates
against torch: values, views, gradients, nodes and errors."""

from __future__ import annotations

import numpy as np
import pytest

from .oracle import exprs, same, same_grads

RNG = np.random.default_rng(0)
ENV = {
    "x": np.array([-1.5, 0.0, 2.0, 3.0]),
    "y": np.array([0.5, 1.0, -2.0, 0.25]),
    "p": RNG.standard_normal((3, 2)),
    "m": RNG.standard_normal((2, 3)),
    "b": RNG.standard_normal((2, 2, 3)),
    "i": np.array([3, -1, 0]),
    "u": np.array([3, 1], dtype=np.uint8),
    "z": np.array([1 + 2j, -3 - 1j, 0.5j]),
}

VALUES = """t.real(x) | x.real | t.imag(z) | z.imag | z.real | t.real(z) | t.view_as_real(z)
t.view_as_complex(p) | t.complex(x, y) | t.polar(x.abs(), y) | t.angle(x) | t.angle(i) | t.angle(z)
t.conj(x) | t.conj(z) | z.conj() | t.conj_physical(z) | x.conj_physical() | t.resolve_conj(z)
t.resolve_neg(x) | t.is_complex(z) | t.is_complex(x) | t.is_conj(x) | x.is_neg() | t.is_nonzero(x[2:3])
t.is_nonzero(x[1:2]) | t.is_same_size(x, y) | t.is_same_size(x, m) | t.is_signed(i) | u.is_signed()
x.is_signed() | t.positive(x) | m.H | m.mH | b.mH | m.adjoint() | t.adjoint(b) | z.H if False else 1
t.imag(x) | x.imag | t.view_as_real(x) | t.view_as_complex(m) | t.view_as_complex(p.float().T)
t.complex(x, y.float()) | t.complex(i, i) | t.is_nonzero(x) | t.is_nonzero(x[:0]) | t.positive(x > 0)
b.H | x.H | t.view_as_complex(p.T.contiguous().T) | t.isreal(z) | x.isreal() | t.isreal(i)
t.conj_physical_(z) | t.conj_physical_(x) | z.conj_physical_()"""

GRADS = """t.real(x) | t.angle(x) | t.positive(x) | t.complex(x, y).real | t.complex(x, y).imag * 2
t.view_as_real(t.view_as_complex(p)) * 3 | t.polar(x.abs() + 1, y).imag | t.polar(x.abs() + 1, y).real
m.mH | m.H | m.adjoint() | t.view_as_complex(p).imag | t.resolve_conj(m) | t.conj(m)"""


@pytest.mark.parametrize("expr", exprs(VALUES))
def test_complex_function_matches_torch(torch, expr):
    same(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_complex_function_gradients_match_torch(torch, expr):
    same_grads(torch, expr, **ENV)


def test_real_and_imag_are_views(lib):
    z = lib.tensor([1 + 2j, 3 - 1j])
    z.imag.mul_(10)
    assert z.tolist() == [1 + 20j, 3 - 10j]
    assert lib.view_as_real(z)._base is z
