"""Specs for torch.special's differentiable rows beyond the gamma family: the scaled Bessel
functions i0e and i1e, erfcx, log_ndtr, ndtri and the Hurwitz zeta."""

from __future__ import annotations

from .spec import OpSpec, T

UNARY = [(T((3, 4)),), (T(()),), (T((2, 3), nc=True),), (T((0, 3)),)]

SPECS = [
    OpSpec("special_i0e", lambda t, x: t.special.i0e(x), UNARY, domain=(-4.0, 4.0)),
    OpSpec("special_i1e", lambda t, x: t.special.i1e(x), UNARY, domain=(-4.0, 4.0)),
    OpSpec("special_erfcx", lambda t, x: t.special.erfcx(x), UNARY, domain=(-2.0, 3.0)),
    OpSpec("special_log_ndtr", lambda t, x: t.special.log_ndtr(x), UNARY, domain=(-4.0, 3.0)),
    OpSpec("special_ndtri", lambda t, x: t.special.ndtri(x), UNARY, domain=(0.05, 0.95)),
    # the derivative w.r.t. the exponent is not implemented in PyTorch either
    OpSpec(
        "special_zeta",
        lambda t, x, q: t.special.zeta(x, q),
        [(T((3, 4), 1.5, 4.0, grad=False), T((3, 4))), (T((3, 1), 1.5, 4.0, grad=False), T((4,)))],
        domain=(0.5, 3.0),
    ),
    OpSpec(
        "special_zeta_scalar_self",
        lambda t, q: t.special.zeta(2.5, q),
        [(T((3, 4)),), (T(()),)],
        domain=(0.5, 3.0),
    ),
    OpSpec(
        "special_zeta_scalar_other",
        lambda t, x: t.special.zeta(x, 1.5),
        [(T((3, 4), grad=False),)],
        domain=(1.5, 4.0),
        grad=False,
    ),
]
