"""Specs for the rows behind torch's wider surface: number functions (copysign, ldexp,
logcumsumexp), ATen's norm nodes (dist, pairwise_distance), linear algebra (det, slogdet,
matrix_exp, vdot), statistics and scatters."""

from __future__ import annotations

from .spec import OpSpec, T

SPECS = [
    OpSpec(
        "copysign",
        lambda t, x, y: t.copysign(x, y),
        [(T((3, 4)), T((3, 4))), (T((2, 3)), T((3,))), (T((3,)), T((3,), grad=False))],
    ),
    OpSpec("copysign_scalar", lambda t, x: t.copysign(x, -1.0), [(T((3, 4)),)]),
    OpSpec(
        "ldexp",
        lambda t, x, y: t.ldexp(x, y),
        [(T((3, 4)), T((3, 4))), (T((2, 3)), T((3,), kind="int", low=0, high=4))],
    ),
    OpSpec(
        "logcumsumexp",
        lambda t, x: t.logcumsumexp(x, 1) + t.logcumsumexp(x, 0),
        [(T((3, 4)),), (T((2, 5), nc=True),)],
    ),
    OpSpec(
        "norm_dim",
        lambda t, x, y: t.pairwise_distance(x, y) + t.pairwise_distance(x, y, 3, 1e-6),
        [(T((3, 4)), T((3, 4)))],
    ),
    OpSpec(
        "dist",
        lambda t, x, y: t.dist(x, y) + t.dist(x, y, 1) + t.dist(x, y, 3),
        [(T((3, 4)), T((3, 4))), (T((2, 3)), T((3,)))],
    ),
]
