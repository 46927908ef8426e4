"""Specs for the gamma family, torch.special's own rows, the Cholesky factorization and triangular
solves, and the samplers behind torch.distributions."""

from __future__ import annotations

import math

from .spec import OpSpec, T

POS = (0.2, 5.0)
BETWEEN_POLES = T((3, 4), -2.9, -2.1)  # lgamma and digamma between -3 and -2
UNARY = [(T((3, 4)),), (T(()),), (T((2, 3), nc=True),), (T((0, 3)),)]


def _unary(name, call, domain=POS, extra=(), **kw):
    return OpSpec(name, call, UNARY + list(extra), domain=domain, **kw)


def _spd(t, a):
    # a symmetric positive-definite function of a: gradients flow through both triangles
    n = a.shape[-1]
    return a @ a.mT + n * t.eye(n, dtype=a.dtype)


def _tril(t, a):
    # lower triangular with a diagonal kept away from zero
    n = a.shape[-1]
    return a.tril() + 3 * t.eye(n, dtype=a.dtype)


def _lgamma_ref(np, x):
    return np.vectorize(math.lgamma, otypes=[float])(x)


SQUARES = [(T((3, 3)),), (T((2, 4, 4)),), (T((3, 3), nc=True),)]
SOLVES = [
    (T((3, 3)), T((3, 2))),
    (T((2, 3, 3)), T((1, 3, 4))),
    (T((1, 4, 4)), T((2, 4, 1), nc=True)),
]

SPECS = [
    # ---- the gamma family -------------------------------------------------------------------
    _unary("lgamma", lambda t, x: t.lgamma(x), extra=[(BETWEEN_POLES,)], ref=_lgamma_ref),
    _unary("digamma", lambda t, x: t.digamma(x), extra=[(BETWEEN_POLES,)]),
    _unary(
        "polygamma", lambda t, x: t.polygamma(1, x), domain=(0.3, 4.0), extra=[(BETWEEN_POLES,)]
    ),
    OpSpec(
        "polygamma_higher",
        lambda t, x: t.polygamma(2, x) + x.polygamma(3),
        [(T((3, 4)),), (BETWEEN_POLES,)],
        domain=(0.3, 4.0),
        covers=("polygamma",),
    ),
    OpSpec(
        "mvlgamma",
        lambda t, x: t.mvlgamma(x, 3) + t.mvlgamma(x, p=1),
        [(T((3, 4)),), (T(()),)],
        domain=(1.2, 4.0),
        ref=lambda np, x: (
            2 * _lgamma_ref(np, x)
            + _lgamma_ref(np, x - 0.5)
            + _lgamma_ref(np, x - 1)
            + 1.5 * math.log(math.pi)
        ),
    ),
    # the derivative w.r.t. the shape `a` is not implemented in PyTorch either
    OpSpec(
        "igamma",
        lambda t, a, x: t.igamma(a, x),
        [(T((3, 4), grad=False), T((3, 4), 0.1, 4.0)), (T((3, 1), grad=False), T((4,)))],
        domain=(0.5, 3.0),
    ),
    OpSpec(
        "igammac",
        lambda t, a, x: t.special.gammaincc(a, x),
        [(T((3, 4), grad=False), T((3, 4), 0.1, 4.0)), (T(()), T((2, 3)))],
        domain=(0.5, 3.0),
        grad=False,
    ),
    OpSpec(
        "igammac_x",
        lambda t, a, x: t.igammac(a, x),
        [(T((3, 4), grad=False), T((3, 4), 0.1, 4.0))],
        domain=(0.5, 3.0),
        covers=("igammac",),
    ),
    # ---- torch.special's own rows ------------------------------------------------------------
    _unary(
        "special_entr",
        lambda t, x: t.special.entr(x),
        domain=(0.1, 2.0),
        ref=lambda np, x: -x * np.log(x),
    ),
    OpSpec(
        "special_xlog1py",
        lambda t, x, y: t.special.xlog1py(x, y),
        [(T((3, 4)), T((4,), -0.5, 2.0)), (T(()), T((2, 3), -0.5, 2.0))],
        ref=lambda np, x, y: x * np.log1p(y),
    ),
    OpSpec(
        "special_xlog1py_scalar_self",
        lambda t, y: t.special.xlog1py(1.5, y),
        [(T((3, 4), -0.5, 2.0),)],
        ref=lambda np, y: 1.5 * np.log1p(y),
    ),
    OpSpec(
        "special_xlog1py_scalar_other",
        lambda t, x: t.special.xlog1py(x, 0.7),
        [(T((3, 4)),)],
        ref=lambda np, x: x * np.log1p(0.7),
    ),
    _unary(
        "special_ndtr",
        lambda t, x: t.special.ndtr(x),
        domain=(-3.0, 3.0),
        covers=("add_scalar", "mul_scalar"),
    ),
    # ---- Cholesky and triangular solves -------------------------------------------------------
    OpSpec(
        "linalg_cholesky_ex",
        lambda t, a: t.linalg.cholesky(_spd(t, a)),
        SQUARES,
        ref=lambda np, a: np.linalg.cholesky(
            a @ a.swapaxes(-1, -2) + a.shape[-1] * np.eye(a.shape[-1])
        ),
    ),
    OpSpec(
        "linalg_cholesky_upper",
        lambda t, a: t.linalg.cholesky_ex(_spd(t, a), upper=True).L,
        SQUARES[:2],
        covers=("linalg_cholesky_ex",),
    ),
    OpSpec(
        "cholesky",
        lambda t, a: t.cholesky(_spd(t, a)) + t.cholesky(_spd(t, a), upper=True),
        SQUARES[:2],
    ),
    OpSpec(
        "linalg_solve_triangular",
        lambda t, a, b: t.linalg.solve_triangular(
            a + 3 * t.eye(a.shape[-1], dtype=a.dtype), b, upper=False
        ),
        SOLVES,
    ),
    OpSpec(
        "linalg_solve_triangular_right",
        lambda t, a, b: t.linalg.solve_triangular(
            a + 3 * t.eye(a.shape[-1], dtype=a.dtype), b.mT, upper=True, left=False
        ),
        SOLVES[:2],
        covers=("linalg_solve_triangular",),
    ),
    OpSpec(
        "linalg_solve_triangular_unit",
        lambda t, a, b: t.linalg.solve_triangular(a, b, upper=True, unitriangular=True),
        SOLVES[:1],
        covers=("linalg_solve_triangular",),
    ),
    OpSpec(
        "triangular_solve",
        lambda t, a, b: t.triangular_solve(b, a + 3 * t.eye(a.shape[-1], dtype=a.dtype)),
        SOLVES[:2],
    ),
    OpSpec(
        "triangular_solve_transposed",
        lambda t, a, b: t.triangular_solve(
            b,
            a + 3 * t.eye(a.shape[-1], dtype=a.dtype),
            upper=False,
            transpose=True,
            unitriangular=True,
        ),
        SOLVES[:1],
        covers=("triangular_solve",),
    ),
    OpSpec("cholesky_solve", lambda t, a, b: t.cholesky_solve(b, _tril(t, a)), SOLVES),
    OpSpec(
        "cholesky_solve_upper",
        lambda t, a, b: t.cholesky_solve(b, _tril(t, a).mT, upper=True),
        SOLVES[:1],
        covers=("cholesky_solve",),
    ),
    OpSpec(
        "cholesky_inverse",
        lambda t, a: t.cholesky_inverse(_tril(t, a)) + t.cholesky_inverse(_tril(t, a).mT, True),
        SQUARES[:2],
    ),
    # ---- samplers: the draws times 0 leave a deterministic result equal on both libraries ----
    OpSpec("poisson", lambda t, x: t.poisson(x) * 0 + x, [(T((3, 4)),)], domain=(0.5, 3.0)),
    # the second derivative (of _standard_gamma_grad) is not implemented, as in PyTorch
    OpSpec(
        "_standard_gamma",
        lambda t, x: t._standard_gamma(x) * 0 + x,
        [(T((3, 4)),)],
        domain=(0.5, 3.0),
        gradgrad=False,
    ),
    OpSpec(
        "_standard_gamma_grad",
        lambda t, a, x: t._standard_gamma_grad(a, x) * 0 + x,
        [(T((3, 4)), T((3, 4)))],
        domain=(0.5, 3.0),
        grad=False,
    ),
    OpSpec(  # draws differ from torch's: only the recording is compared
        "binomial",
        lambda t, n, p: t.binomial(n, p) * 0 + p,
        [(T((3, 4), 1.0, 10.0, grad=False), T((3, 4), 0.1, 0.9)), (T((2, 3)), T((3,), 0.1, 0.9))],
        grad=False,
    ),
    OpSpec(
        "_sample_dirichlet",
        lambda t, x: t._sample_dirichlet(x) * 0 + x,
        [(T((3, 4)),)],
        domain=(0.5, 3.0),
        grad=False,
    ),
    OpSpec(
        "_dirichlet_grad",
        lambda t, x, a, b: t._dirichlet_grad(x, a, a + b) * 0 + x,
        [(T((3, 4), 0.1, 0.9), T((3, 4)), T((3, 4)))],
        domain=(0.5, 3.0),
        grad=False,
    ),
]
