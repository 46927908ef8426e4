"""Specs for the rows behind torch's wider surface: number functions (copysign, ldexp,
logcumsumexp), ATen's norm nodes (dist, pairwise_distance), linear algebra (det, slogdet,
matrix_exp, vdot, lstsq), statistics and scatters."""

from __future__ import annotations

from .spec import OpSpec, T


def _foreach_inplace(t, x, name, *args):
    # the foreach in-place ops with a Scalar record ATen's (Tensor, Scalar) nodes; those
    # PyTorch has no derivative for record a NotImplemented row
    y = x * 1
    getattr(t, name)([y], *args)
    return y


SPECS = [
    OpSpec("nextafter", lambda t, x, y: t.nextafter(x, y), [(T((3, 4)), T((3, 4)))]),
    # recorded with a node whose backward refuses, as PyTorch's (no gradient to check)
    OpSpec("heaviside", lambda t, x, y: t.heaviside(x, y), [(T((3, 4)), T((3, 4)))], grad=False),
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
        covers=("add_scalar",),
    ),
    OpSpec(
        "dist",
        lambda t, x, y: t.dist(x, y) + t.dist(x, y, 1) + t.dist(x, y, 3),
        [(T((3, 4)), T((3, 4))), (T((2, 3)), T((3,)))],
    ),
    OpSpec(
        "linalg_det",
        lambda t, a: t.det(a + 3 * t.eye(a.shape[-1], dtype=a.dtype)),
        [(T((3, 3)),), (T((2, 4, 4)),), (T((3, 3), nc=True),)],
    ),
    OpSpec(
        "linalg_slogdet",
        lambda t, a: t.slogdet(a + 3 * t.eye(a.shape[-1], dtype=a.dtype))[1],
        [(T((3, 3)),), (T((2, 4, 4)),)],
        torch_names=False,  # `[1]` of a tuple: torch names the node the same
    ),
    OpSpec(
        "linalg_matrix_exp",
        lambda t, a: t.matrix_exp(a),
        [(T((3, 3)),), (T((2, 2, 2)),), (T((3, 3), nc=True),)],
        domain=(-1.0, 1.0),
    ),
    OpSpec(
        "linalg_pinv",
        lambda t, a: t.pinverse(a),
        [(T((3, 4)),), (T((4, 2)),), (T((2, 3, 3)),)],
    ),
    OpSpec(
        "linalg_lstsq",  # the solution and the residuals carry gradients
        lambda t, a, b: t.linalg.lstsq(a, b, driver="gelsd")[:2],
        [(T((5, 3)), T((5, 2))), (T((2, 4, 3)), T((2, 4, 2))), (T((3, 4)), T((3,)))]
        + [(T((4, 3), nc=True), T((4,))), (T((2, 5, 3)), T((1, 5, 2), grad=False))],
    ),
    OpSpec("vdot", lambda t, x, y: t.vdot(x, y), [(T((4,)), T((4,)))]),
    OpSpec(
        "hardshrink",
        lambda t, x: t.hardshrink(x) + x.hardshrink(0.3),
        [(T((3, 4)),), (T((2, 3), nc=True),)],
    ),
    OpSpec("softshrink", lambda t, x: t.nn.functional.softshrink(x, 0.4), [(T((3, 4)),)]),
    OpSpec(
        "prelu",
        lambda t, x, w: t.prelu(x, w),
        [
            (T((2, 3, 4)), T((3,))),
            (T((2, 3)), T((1,))),
            (T((4,)), T((1,))),
            (T((2, 3, 2, 2)), T((3,))),
        ],
    ),
    OpSpec(
        "view_as_complex",
        lambda t, p: t.view_as_real(t.view_as_complex(p) * 2),
        [(T((3, 2)),), (T((2, 3, 2)),)],
        covers=("view_as_real",),
    ),
    OpSpec(
        "complex",
        lambda t, x, y: t.view_as_real(t.complex(x, y)),
        [(T((3,)), T((3,))), (T((2, 3)), T((3,)))],
    ),
    OpSpec(
        "polar",
        lambda t, r, theta: t.view_as_real(t.polar(r, theta)),
        [(T((3,), low=0.5, high=2.0), T((3,))), (T((2, 3), low=0.5, high=2.0), T((3,)))],
    ),
    OpSpec("angle", lambda t, x: t.angle(x) + x, [(T((3, 4)),)]),
    OpSpec(
        "conj_physical",
        lambda t, x, y: t.view_as_real(t.conj_physical(t.complex(x, y))),
        [(T((3,)), T((3,)))],
    ),
    OpSpec(
        "mode",
        lambda t, x: t.mode(x, 1)[0] + t.mode(x, 0, True)[0].sum(),
        [(T((3, 4)),), (T((2, 3), nc=True),)],
    ),
    OpSpec(
        "select_scatter",
        lambda t, x, src: t.select_scatter(x, src, 1, 2),
        [(T((3, 4)), T((3,))), (T((2, 3, 4), nc=True), T((2, 4)))],
    ),
    OpSpec(
        "slice_scatter",
        lambda t, x, src: t.slice_scatter(x, src, 1, 0, None, 2),
        [(T((3, 4)), T((3, 2))), (T((2, 5)), T((2, 3)))],
    ),
    OpSpec(
        "diagonal_scatter",
        lambda t, x, src: t.diagonal_scatter(x, src, 1),
        [(T((3, 4)), T((3,))), (T((4, 3)), T((2,)))],
    ),
    OpSpec(
        "block_diag",
        lambda t, a, b, c: t.block_diag(a, b, c),
        [(T((2, 3)), T((3,)), T(()))],
    ),
    OpSpec("i0", lambda t, x: t.i0(x), [(T((3, 4)),), (T((2, 3), nc=True),)], domain=(-3.0, 3.0)),
    OpSpec("special_i1", lambda t, x: t.special.i1(x), [(T((3, 4)),)], domain=(-3.0, 3.0)),
    OpSpec(
        "renorm",
        lambda t, x: t.renorm(x, 2, 0, 1.0) + t.renorm(x, 3, 1, 0.8),
        [(T((3, 4)),), (T((2, 3), nc=True),)],
    ),
    OpSpec(
        "put",
        lambda t, x, s: t.put(x, t.tensor([0, 5, -1]), s) + x.put(t.tensor([1, 1, 2]), s, True),
        [(T((3, 4)), T((3,)))],
    ),
    OpSpec(
        "mul_scalar",
        lambda t, y: t.trapezoid(y, dx=0.5) + t.cumulative_trapezoid(y).sum(-1),
        [(T((3, 4)),)],
    ),
    OpSpec(
        "div_scalar",
        lambda t, y, x: t.trapezoid(y, x),
        [(T((3, 4)), T((4,)))],
    ),
    OpSpec("add_scalar", lambda t, x: _foreach_inplace(t, x, "_foreach_add_", 0.5), [(T((3, 4)),)]),
    OpSpec("sub_scalar", lambda t, x: _foreach_inplace(t, x, "_foreach_sub_", 0.5), [(T((3, 4)),)]),
    OpSpec(
        "foreach_copy_refused",
        lambda t, x, y: _foreach_inplace(t, x, "_foreach_copy_", [y]),
        [(T((3, 4)), T((4,)))],
        grad=False,
    ),
    OpSpec(
        "foreach_maximum_refused",
        lambda t, x: _foreach_inplace(t, x, "_foreach_maximum_", 0.1),
        [(T((3, 4)),)],
        grad=False,
    ),
    OpSpec(
        "foreach_minimum_refused",
        lambda t, x: _foreach_inplace(t, x, "_foreach_minimum_", [0.1]),
        [(T((3, 4)),)],
        grad=False,
    ),
    OpSpec(
        "foreach_addcmul_refused",
        lambda t, x, a, b: _foreach_inplace(t, x, "_foreach_addcmul_", [a], [b], t.tensor([0.5])),
        [(T((3, 4)), T((3, 4)), T((4,)))],
        grad=False,
    ),
    OpSpec(
        "foreach_addcdiv_refused",
        lambda t, x, a, b: _foreach_inplace(t, x, "_foreach_addcdiv_", [a], [b], t.tensor([0.5])),
        [(T((3, 4)), T((3, 4)), T((4,)))],
        grad=False,
    ),
    OpSpec(
        "linalg_qr",
        lambda t, a: t.linalg.qr(a),
        [(T((3, 3)),), (T((4, 2)),), (T((2, 4)),), (T((2, 3, 3)),)],
    ),
    OpSpec("channel_shuffle", lambda t, x: t.channel_shuffle(x, 2), [(T((2, 4, 3)),)]),
    OpSpec(
        "pdist",
        lambda t, x: t.pdist(x) + t.pdist(x, 1) + t.pdist(x, 3),
        [(T((4, 3)),), (T((3, 2), nc=True),)],
    ),
    OpSpec("rrelu_with_noise", lambda t, x: t.rrelu(x, 0.1, 0.3), [(T((3, 4)),)]),
    OpSpec("rrelu_with_noise_", lambda t, x: t.rrelu_(x.clone(), 0.1, 0.3), [(T((3, 4)),)]),
]
