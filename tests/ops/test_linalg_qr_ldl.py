"""LAPACK's QR and LDL routines against torch: geqrf, orgqr, ormqr (values, gradients, the
refused geqrf backward) and linalg.ldl_factor(_ex) / ldl_solve (LD and pivots equal torch's,
singular matrices, the checks' messages, out=)."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from .oracle import exprs, same, same_grads

RNG = np.random.default_rng(5)


def _symmetric(shape, small_diagonal=False, kind="real"):
    a = RNG.standard_normal(shape)
    if kind != "real":
        a = a + 1j * RNG.standard_normal(shape)
    if small_diagonal:  # 2x2 pivots
        n = shape[-1]
        a[..., np.arange(n), np.arange(n)] *= 0.05
    other = a.swapaxes(-1, -2)
    return a + (other.conj() if kind == "hermitian" else other)


ENV = {
    "a": RNG.standard_normal((5, 3)),
    "sq": RNG.standard_normal((4, 4)),
    "w": RNG.standard_normal((3, 5)),
    "ab": RNG.standard_normal((2, 4, 3)),
    "ac": RNG.standard_normal((4, 3)) + 1j * RNG.standard_normal((4, 3)),
    "c": RNG.standard_normal((5, 2)),
    "cr": RNG.standard_normal((2, 5)),
    "c4": RNG.standard_normal((4, 3)),
    "cw": RNG.standard_normal((3, 2)),
    "cb": RNG.standard_normal((2, 4, 2)),
    "cc": RNG.standard_normal((4, 2)) + 1j * RNG.standard_normal((4, 2)),
    "v": RNG.standard_normal(3),
    "i": np.eye(3, dtype=np.int64),
    "s": _symmetric((4, 4)),
    "s2": _symmetric((6, 6), small_diagonal=True),
    "sb": _symmetric((3, 5, 5), small_diagonal=True),
    "h": _symmetric((5, 5), small_diagonal=True, kind="hermitian"),
    "cs": _symmetric((5, 5), small_diagonal=True, kind="complex"),
    "b": RNG.standard_normal((6, 2)),
    "b4": RNG.standard_normal((4, 3)),
    "bb": RNG.standard_normal((3, 5, 2)),
    "bc": RNG.standard_normal((5, 2)) + 1j * RNG.standard_normal((5, 2)),
    "z": np.zeros((2, 3, 3)),
    "singular": np.array([[1.0, 2.0], [2.0, 4.0]]),
    "rect": RNG.standard_normal((3, 4)),
}


# ---- geqrf / orgqr / ormqr -------------------------------------------------------------------

QR_VALUES = """
t.geqrf(a) | t.geqrf(sq) | t.geqrf(w) | t.geqrf(ab) | t.geqrf(ac) | a.geqrf()
type(t.geqrf(a)).__name__ | t.geqrf(t.empty(0, 3)) | t.geqrf(t.empty(2, 0, 3))
t.orgqr(*t.geqrf(a)) | t.orgqr(*t.geqrf(ab)) | t.orgqr(*t.geqrf(ac)) | t.geqrf(sq).a.orgqr(t.geqrf(sq).tau)
t.ormqr(*t.geqrf(a), c) | t.ormqr(*t.geqrf(a), c, transpose=True) | t.ormqr(*t.geqrf(a), cr, False)
t.ormqr(*t.geqrf(a), cr, left=False, transpose=True) | t.ormqr(*t.geqrf(ab), cb)
t.ormqr(*t.geqrf(w), cw) | t.ormqr(*t.geqrf(ac), cc, transpose=True) | t.ormqr(*t.geqrf(ac), cc)
t.geqrf(w).a.ormqr(t.geqrf(w).tau, cw, True)
t.ormqr(t.empty(4, 0), t.empty(0), c4) | t.view_as_real(t.geqrf(ac).a) | t.view_as_real(t.geqrf(ac).tau)
t.view_as_real(t.ormqr(*t.geqrf(ac), cc, transpose=True)) | t.view_as_real(t.orgqr(*t.geqrf(ac)))
"""

QR_CHECKS = """
t.geqrf(v) | t.geqrf(i) | t.geqrf(a.half()) | t.geqrf([1.0])
t.orgqr(v, v) | t.orgqr(w, v) | t.orgqr(a, t.geqrf(a).tau.float())
t.ormqr(v, v, c) | t.ormqr(a, v, v) | t.ormqr(a, v, cr) | t.ormqr(a, v, c, left=False)
t.ormqr(a, t.ones(4, dtype=t.float64), c) | t.ormqr(a, t.ones(2, 3, dtype=t.float64), c)
t.ormqr(a, v.float(), c) | t.ormqr(a, v, c.float()) | t.ormqr(ab, v, c) | t.ormqr(ab, t.ones(3, 3), cb)
t.ormqr(ab, t.ones(2, 3, dtype=t.float64), t.ones(3, 4, 2, dtype=t.float64))
t.ormqr(ab, t.ones(2, 3, dtype=t.float64), c) | t.ormqr(i, i[0], i) | t.ormqr(a.half(), v.half(), c.half())
t.orgqr([1.0], v) | t.orgqr(a, 1) | t.geqrf(a, out=t.empty(0)) | t.ormqr(a, v, c, left=1) | t.ormqr(a, v, c, transpose=2) | t.ormqr(a, v, [1.0])
"""

QR_GRADS = """
t.ormqr(*t.geqrf(a.detach()), c) | t.ormqr(*t.geqrf(a.detach()), c, transpose=True)
t.ormqr(*t.geqrf(a.detach()), cr, left=False) | t.ormqr(*t.geqrf(a.detach()), cr, False, True)
t.ormqr(ab, t.geqrf(ab.detach()).tau, cb) | t.ormqr(w, t.geqrf(w.detach()).tau, cw)
t.ormqr(sq, t.geqrf(sq.detach()).tau, c4, transpose=True)
t.orgqr(a, t.geqrf(a.detach()).tau) | a.orgqr(t.geqrf(a.detach()).tau)
"""


@pytest.mark.parametrize("expr", exprs(QR_VALUES))
def test_qr_routines_match_torch(torch, expr):
    same(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(QR_CHECKS))
def test_qr_routines_checks_match_torch(torch, expr):
    same(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(QR_GRADS))
def test_qr_routines_gradients_match_torch(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_geqrf_and_ormqr_in_single_precision(torch, dtype):
    x = ENV["ac"] if dtype == "complex64" else ENV["a"][:4]
    c = ENV["cc"] if dtype == "complex64" else ENV["c"][:4]
    results = []
    for lib in (dyngrad, torch):
        a, tau = lib.geqrf(lib.from_numpy(x).to(getattr(lib, dtype)))
        other = lib.from_numpy(c).to(getattr(lib, dtype))
        results.append([r.numpy() for r in (a, tau, lib.ormqr(a, tau, other, True, True))])
    for ours, theirs in zip(*results):
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


def test_geqrf_backward_is_refused_as_in_torch(lib):
    a = lib.tensor(ENV["a"], requires_grad=True)
    factor, tau = lib.geqrf(a)
    assert factor.grad_fn.name() == "GeqrfBackward0" and tau.grad_fn is factor.grad_fn
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented"):
        tau.sum().backward()


def test_ormqr_is_q_times_other(lib):
    a = lib.tensor(ENV["a"])
    q = lib.linalg.qr(a, mode="complete").Q
    other = lib.tensor(ENV["c"])
    got = lib.ormqr(*lib.geqrf(a), other)
    np.testing.assert_allclose(got.numpy(), (q @ other).numpy(), atol=1e-12)


def test_ormqr_gradcheck_and_gradgradcheck():
    a, tau = dyngrad.geqrf(dyngrad.tensor(ENV["a"]))
    for left, transpose, other in ((True, False, "c"), (False, True, "cr")):
        inputs = [dyngrad.tensor(x.numpy(), requires_grad=True) for x in (a, tau)]
        inputs.append(dyngrad.tensor(ENV[other], requires_grad=True))

        def fn(*x, left=left, transpose=transpose):
            return dyngrad.ormqr(*x, left, transpose)

        assert dyngrad.autograd.gradcheck(fn, inputs)
        assert dyngrad.autograd.gradgradcheck(fn, inputs)


OUT = """
t.geqrf(a, out=(t.empty(0, dtype=t.float64), t.empty(0, dtype=t.float64)))
t.geqrf(a, out=(t.empty(0), t.empty(0, dtype=t.float64)))
t.geqrf(a, out=(t.empty(0, dtype=t.int64), t.empty(0, dtype=t.float64)))
t.geqrf(a, out=(t.empty(0, dtype=t.complex128), t.empty(0, dtype=t.int32)))
t.orgqr(*t.geqrf(a), out=t.empty(0, dtype=t.float64))
t.ormqr(*t.geqrf(a), c, out=t.empty(0, dtype=t.float64))
t.ormqr(*t.geqrf(a), c, out=t.empty(0))
"""
# inputs that require grad: refused, naming the op that does the work
OUT_GRAD = """
t.geqrf(a, out=(t.empty(0, dtype=t.float64), t.empty(0, dtype=t.float64)))
t.orgqr(a, t.geqrf(a.detach()).tau, out=t.empty(0, dtype=t.float64))
t.ormqr(a, t.geqrf(a.detach()).tau, c, out=t.empty(0, dtype=t.float64))
"""


@pytest.mark.parametrize("expr", exprs(OUT))
def test_qr_routines_out_match_torch(torch, expr):
    same(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(OUT_GRAD))
def test_qr_routines_out_refuse_inputs_that_require_grad(torch, expr):
    same(torch, expr, requires_grad=True, **ENV)


# ---- ldl_factor / ldl_solve ------------------------------------------------------------------

LDL_VALUES = """
t.linalg.ldl_factor(s) | t.linalg.ldl_factor(s2) | t.linalg.ldl_factor(sb) | t.linalg.ldl_factor_ex(s2)
t.linalg.ldl_factor(h, hermitian=True) | t.linalg.ldl_factor(cs) | t.linalg.ldl_factor(s2, hermitian=True)
t.linalg.ldl_factor(rect[:, :3]) | t.linalg.ldl_factor(t.empty(0, 0)) | t.linalg.ldl_factor(t.empty(2, 0, 0))
t.linalg.ldl_factor_ex(z) | t.linalg.ldl_factor_ex(singular) | type(t.linalg.ldl_factor(s)).__name__
type(t.linalg.ldl_factor_ex(s)).__name__ | t.view_as_real(t.linalg.ldl_factor(h, hermitian=True).LD)
 t.linalg.ldl_factor_ex(t.tensor([[float('nan'), 1.0], [1.0, 1.0]]))
t.linalg.ldl_solve(*t.linalg.ldl_factor(s2), b) | t.linalg.ldl_solve(*t.linalg.ldl_factor(sb), bb)
t.linalg.ldl_solve(*t.linalg.ldl_factor(sb[0]), bb)
t.linalg.ldl_solve(*t.linalg.ldl_factor(h, hermitian=True), bc, hermitian=True)
t.linalg.ldl_solve(*t.linalg.ldl_factor(cs), bc) | t.linalg.ldl_solve(t.empty(0, 0), t.empty(0, dtype=t.int32), t.empty(0, 2))
t.linalg.ldl_solve(t.linalg.ldl_factor(s).LD, t.linalg.ldl_factor(s).pivots.long(), b4)
"""

LDL_CHECKS = """
t.linalg.ldl_factor(v) | t.linalg.ldl_factor(rect) | t.linalg.ldl_factor(i) | t.linalg.ldl_factor(s.half())
t.linalg.ldl_factor(z) | t.linalg.ldl_factor(singular) | t.linalg.ldl_factor_ex(z, check_errors=True)
t.linalg.ldl_factor([1.0]) | t.linalg.ldl_factor(s, hermitian=1) | t.linalg.ldl_factor_ex(singular, check_errors=True)
t.linalg.ldl_solve(s[0], t.ones(4, dtype=t.int32), b4) | t.linalg.ldl_solve(rect, t.ones(3, dtype=t.int32), b4)
t.linalg.ldl_solve(*t.linalg.ldl_factor(s), b4[0]) | t.linalg.ldl_solve(*t.linalg.ldl_factor(s), b4[:3])
t.linalg.ldl_solve(t.linalg.ldl_factor(s).LD, t.ones(3, dtype=t.int32), b4)
t.linalg.ldl_solve(t.linalg.ldl_factor(s).LD, t.ones(4), b4)
t.linalg.ldl_solve(*t.linalg.ldl_factor(s), b4.float()) | t.linalg.ldl_solve(s.float(), t.ones(4, dtype=t.int32), b4)
t.linalg.ldl_solve(i, t.ones(3, dtype=t.int32), i) | t.linalg.ldl_solve(s.half(), t.ones(4, dtype=t.int32), b4.half())
t.linalg.ldl_solve(s, t.zeros(4, dtype=t.int32), b4) | t.linalg.ldl_solve(s, t.ones(4, dtype=t.int32), b4, hermitian=1)
t.linalg.ldl_solve(sb, t.ones(2, 5, dtype=t.int32), bb) | t.linalg.ldl_solve(s, t.ones(4, dtype=t.int32), b4.mT)
t.linalg.ldl_solve(sb[0], t.ones(5, dtype=t.int32), t.ones(2, 4, 5, 2, dtype=t.float64)[0, :1])
"""


@pytest.mark.parametrize("expr", exprs(LDL_VALUES))
def test_ldl_matches_torch(torch, expr):
    same(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(LDL_CHECKS))
def test_ldl_checks_match_torch(torch, expr):
    same(torch, expr, **ENV)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("hermitian", [False, True])
def test_ldl_factors_and_pivots_equal_torchs_on_many_matrices(torch, dtype, hermitian):
    """Bunch-Kaufman's choices (1x1 and 2x2 blocks, swaps) as LAPACK's, on matrices of 1 to 9
    rows with small diagonals (many 2x2 blocks) and without."""
    rng = np.random.default_rng(17)
    kind = "hermitian" if hermitian else "complex"
    tol = 1e-4 if dtype in ("float32", "complex64") else 1e-10
    for n in range(1, 10):
        for small in (False, True):
            a = rng.standard_normal((n, n))
            if "complex" in dtype:
                a = a + 1j * rng.standard_normal((n, n))
            if small:
                a[np.arange(n), np.arange(n)] *= 0.05
            a = a + (a.T.conj() if kind == "hermitian" else a.T)
            ours = dyngrad.linalg.ldl_factor(
                dyngrad.from_numpy(a).to(getattr(dyngrad, dtype)), hermitian=hermitian
            )
            theirs = torch.linalg.ldl_factor(
                torch.from_numpy(a).to(getattr(torch, dtype)), hermitian=hermitian
            )
            np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
            np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), rtol=tol, atol=tol)


def test_ldl_solve_solves_the_system(lib):
    for name, rhs, hermitian in (("s2", "b", False), ("h", "bc", True), ("cs", "bc", False)):
        a, b = lib.tensor(ENV[name]), lib.tensor(ENV[rhs])
        factors = lib.linalg.ldl_factor(a, hermitian=hermitian)
        x = lib.linalg.ldl_solve(*factors, b, hermitian=hermitian)
        np.testing.assert_allclose((a @ x).numpy(), b.numpy(), atol=1e-10)


def test_ldl_has_no_derivative_as_in_torch(lib):
    a = lib.tensor(ENV["s"], requires_grad=True)
    ld, pivots = lib.linalg.ldl_factor(a)
    assert ld.grad_fn.name() == "torch::autograd::NotImplemented" and not pivots.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not"):
        ld.sum().backward()
    b = lib.tensor(ENV["b4"], requires_grad=True)
    x = lib.linalg.ldl_solve(ld.detach(), pivots, b)
    assert x.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_solve is not"):
        x.sum().backward()


LDL_OUT = """
t.linalg.ldl_factor(s, out=(t.empty(0, dtype=t.float64), t.empty(0, dtype=t.int32)))
t.linalg.ldl_factor(s, out=(t.empty(0), t.empty(0, dtype=t.int32)))
t.linalg.ldl_factor(s, out=(t.empty(0, dtype=t.float64), t.empty(0, dtype=t.int64)))
t.linalg.ldl_factor_ex(s, out=(t.empty(0, dtype=t.float64), t.empty(0, dtype=t.int32), t.empty(0, dtype=t.int32)))
t.linalg.ldl_factor_ex(s, out=(t.empty(0, dtype=t.float64), t.empty(0, dtype=t.int32), t.empty(0, dtype=t.int64)))
t.linalg.ldl_solve(*t.linalg.ldl_factor(s), b4, out=t.empty(0, dtype=t.float64))
t.linalg.ldl_solve(*t.linalg.ldl_factor(s), b4, out=t.empty(0))
"""


@pytest.mark.parametrize("expr", exprs(LDL_OUT))
def test_ldl_out_matches_torch(torch, expr):
    same(torch, expr, names=False, **ENV)


def test_ldl_solve_refuses_pivots_beyond_the_matrix():
    # (PyTorch reads out of bounds here)
    ld, pivots = dyngrad.linalg.ldl_factor(dyngrad.tensor(ENV["s"]))
    with pytest.raises(RuntimeError, match=r"\|pivot\| <= 4"):
        dyngrad.linalg.ldl_solve(ld, pivots * 10, dyngrad.tensor(ENV["b4"]))


@pytest.mark.parametrize("left,transpose", [(True, False), (True, True), (False, True)])
def test_complex_gradients_match_torch(torch, left, transpose):
    """Q = H_1 ... H_k with H_i = I - tau_i v v^H: orgqr's and ormqr's complex gradients."""
    a, tau = torch.geqrf(torch.from_numpy(ENV["ac"]))
    other = torch.from_numpy(ENV["cc"] if left else ENV["cc"].T.copy())
    weight = RNG.standard_normal((4, 2)) + 1j * RNG.standard_normal((4, 2))
    weight = weight if left else weight.T.copy()
    grads = []
    for lib in (dyngrad, torch):
        inputs = [lib.from_numpy(x.numpy()).requires_grad_() for x in (a, tau, other)]
        product = lib.ormqr(*inputs, left, transpose)
        q = lib.orgqr(*inputs[:2])
        loss = (product * lib.from_numpy(weight)).sum().real + (q * q).sum().imag
        loss.backward()
        grads.append([x.grad.numpy() for x in inputs])
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, atol=1e-12)
    inputs = [dyngrad.from_numpy(x.numpy()).requires_grad_() for x in (a, tau, other)]
    assert dyngrad.autograd.gradcheck(lambda *x: dyngrad.ormqr(*x, left, transpose), inputs)
