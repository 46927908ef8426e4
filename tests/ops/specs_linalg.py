"""Specs for linear algebra: matmul in every shape case, the add* forms, outer, einsum,
tensordot."""

from __future__ import annotations

from .spec import OpSpec, T

SPECS = [
    OpSpec(
        "cdist",
        lambda t, a, b: t.cdist(a, b),
        [(T((5, 3)), T((4, 3))), (T((2, 3, 2)), T((1, 4, 2)))],
    ),
    OpSpec(
        "cdist_p",
        lambda t, a, b: t.cdist(a, b, p=3) + t.cdist(a, b, p=1),
        [(T((4, 3)), T((2, 3)))],
        covers=("cdist",),
    ),
    OpSpec(
        "cdist_inf",
        lambda t, a, b: t.cdist(a, b, p=float("inf")),
        [(T((4, 3)), T((3, 3)))],
        covers=("cdist",),
    ),
    OpSpec(
        "euclidean_dist",
        lambda t, a, b: t.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
        [(T((5, 3)), T((4, 3))), (T((2, 3, 2)), T((4, 2)))],
    ),
    OpSpec(
        "linalg_inv",
        lambda t, a: t.linalg.inv(a + 3 * t.eye(a.shape[-1], dtype=a.dtype)),  # well conditioned
        [(T((3, 3)),), (T((2, 4, 4)),), (T((3, 3), nc=True),)],
        ref=lambda np, a: np.linalg.inv(a + 3 * np.eye(a.shape[-1])),
    ),
    OpSpec(
        "linalg_cross",
        lambda t, x, y: t.linalg.cross(x, y),
        [
            (T((4, 3)), T((4, 3))),
            (T((2, 1, 3)), T((1, 5, 3))),
            (T((3,)), T((3,))),
            (T((3, 3), nc=True), T((3, 3))),
        ],
        ref=lambda np, x, y: np.cross(x, y),
    ),
    OpSpec(
        "matmul_batched",
        lambda t, x, y: x @ y,
        [
            (T((2, 3, 4)), T((2, 4, 2))),
            (T((2, 3, 4)), T((1, 4, 2))),
            (T((2, 3, 4), nc=True), T((4, 2))),
        ],
        ref=lambda np, x, y: x @ y,
    ),
    OpSpec(
        "matmul_batch_vector",
        lambda t, x, y: t.matmul(x, y),
        [(T((2, 3, 4)), T((4,))), (T((4,)), T((2, 4, 3)))],
        ref=lambda np, x, y: x @ y,
    ),
    OpSpec(
        "matmul_folded",
        lambda t, x, y: x @ y,
        [(T((3, 4)), T((2, 4, 5)))],
        ref=lambda np, x, y: x @ y,
    ),
    OpSpec(
        "matmul_nc",
        lambda t, x, y: x @ y,
        [(T((3, 4), nc=True), T((4, 2), nc=True))],
        covers=("mm",),
    ),
    OpSpec("mm_fn", lambda t, x, y: t.mm(x, y), [(T((1, 4)), T((4, 1)))], covers=("mm",)),
    OpSpec("mv_fn", lambda t, x, y: x.mv(y), [(T((3, 4)), T((4,)))], covers=("mv",)),
    OpSpec("dot_fn", lambda t, x, y: t.dot(x, y), [(T((5,)), T((5,)))], covers=("dot",)),
    OpSpec(
        "outer",
        lambda t, x, y: t.outer(x, y),
        [(T((3,)), T((4,)))],
        covers=("mul",),
        ref=lambda np, x, y: np.outer(x, y),
    ),
    OpSpec(
        "addmm",
        lambda t, c, a, b: t.addmm(c, a, b),
        [(T((3, 2)), T((3, 4)), T((4, 2))), (T((2,)), T((3, 4)), T((4, 2)))],
        ref=lambda np, c, a, b: c + a @ b,
    ),
    OpSpec(
        "addmm_scaled",
        lambda t, c, a, b: t.addmm(c, a, b, beta=0.5, alpha=-2),
        [(T((3, 2)), T((3, 4)), T((4, 2), nc=True))],
        covers=("addmm",),
    ),
    OpSpec(
        "addmm_beta0",
        lambda t, c, a, b: t.addmm(c, a, b, beta=0),
        [(T((3, 2)), T((3, 4)), T((4, 2)))],
        covers=("addmm",),
    ),
    OpSpec(
        "addmv",
        lambda t, c, a, b: t.addmv(c, a, b, alpha=2),
        [(T((3,)), T((3, 4)), T((4,)))],
        ref=lambda np, c, a, b: c + 2 * (a @ b),
    ),
    OpSpec(
        "addr",
        lambda t, c, a, b: t.addr(c, a, b, beta=3),
        [(T((3, 4)), T((3,)), T((4,)))],
        ref=lambda np, c, a, b: 3 * c + np.outer(a, b),
    ),
    OpSpec(
        "baddbmm",
        lambda t, c, a, b: t.baddbmm(c, a, b, alpha=0.5),
        [(T((2, 3, 2)), T((2, 3, 4)), T((2, 4, 2))), (T((3, 1)), T((2, 3, 4)), T((2, 4, 2)))],
        ref=lambda np, c, a, b: c + 0.5 * (a @ b),
    ),
    OpSpec(
        "addbmm",
        lambda t, c, a, b: t.addbmm(c, a, b),
        [(T((3, 2)), T((2, 3, 4)), T((2, 4, 2)))],
        ref=lambda np, c, a, b: c + (a @ b).sum(0),
    ),
    OpSpec(
        "einsum_mm",
        lambda t, x, y: t.einsum("ij,kj->ik", x, y),
        [(T((3, 4)), T((2, 4)))],
        covers=("bmm", "view"),
        ref=lambda np, x, y: np.einsum("ij,kj->ik", x, y),
    ),
    OpSpec(
        "einsum_batch",
        lambda t, x, y: t.einsum("...ij,...jk", x, y),
        [(T((2, 3, 4)), T((2, 4, 2))), (T((1, 3, 4)), T((2, 4, 2)))],
        covers=("bmm",),
        ref=lambda np, x, y: np.einsum("...ij,...jk", x, y),
    ),
    OpSpec(
        "einsum_three",
        lambda t, x, y, z: t.einsum("bn,anm,bm->ba", x, y, z),
        [(T((2, 3)), T((4, 3, 2)), T((2, 2)))],
        covers=("bmm",),
        ref=lambda np, x, y, z: np.einsum("bn,anm,bm->ba", x, y, z),
    ),
    OpSpec(
        "einsum_outer",
        lambda t, x, y: t.einsum("i,j->ij", x, y),
        [(T((3,)), T((4,)))],
        covers=("mul",),
    ),
    OpSpec(
        "einsum_trace",
        lambda t, x: t.einsum("ii", x),
        [(T((3, 3)),)],
        covers=("diagonal", "sum_dim"),
        ref=lambda np, x: np.trace(x),
    ),
    OpSpec(
        "einsum_diag",
        lambda t, x: t.einsum("ii->i", x),
        [(T((3, 3)),)],
        covers=("diagonal", "permute"),
    ),
    OpSpec(
        "einsum_reduce",
        lambda t, x: t.einsum("ijk->kj", x),
        [(T((2, 3, 4)),)],
        covers=("sum_dim",),
        ref=lambda np, x: np.einsum("ijk->kj", x),
    ),
    OpSpec(
        "einsum_rowdot",
        lambda t, x, y: t.einsum("ij,ij->i", x, y),
        [(T((3, 4)), T((3, 4)))],
        covers=("bmm",),
    ),
    OpSpec(
        "tensordot",
        lambda t, x, y: t.tensordot(x, y, dims=([1, 2], [1, 0])),
        [(T((2, 3, 4)), T((4, 3, 2)))],
        covers=("mm", "view"),
        ref=lambda np, x, y: np.tensordot(x, y, ([1, 2], [1, 0])),
    ),
    OpSpec(
        "tensordot_int",
        lambda t, x, y: t.tensordot(x, y, 1),
        [(T((2, 3)), T((3, 2)))],
        covers=("mm",),
    ),
    OpSpec(
        "tensordot_zero", lambda t, x, y: t.tensordot(x, y, 0), [(T((2,)), T((3,)))], covers=("mm",)
    ),
    # The SVD: singular vectors are defined up to sign, so specs test gauge-invariant
    # functions of them (U @ Vh, the norms); gradcheck needs distinct singular values,
    # which random matrices have.
    OpSpec(
        "linalg_svd",
        lambda t, x: t.linalg.svdvals(x),
        [(T((3, 4)),), (T((4, 3)),), (T((2, 3, 3)),)],
        ref=lambda np, x: np.linalg.svd(x, compute_uv=False),
    ),
    OpSpec(
        "linalg_svd_vectors",
        lambda t, x: (lambda r: r.U @ r.Vh)(t.linalg.svd(x, full_matrices=False)),
        [(T((3, 4)),), (T((4, 3)),)],
        covers=("linalg_svd",),
        torch_names=False,
    ),
    OpSpec(
        "matrix_norm_spectral",
        lambda t, x: t.linalg.matrix_norm(x, 2) + t.linalg.matrix_norm(x, "nuc", keepdim=True),
        [(T((3, 4)),), (T((2, 4, 3)),)],
        covers=("linalg_svd",),
        ref=lambda np, x: (
            np.linalg.norm(x, 2, axis=(-2, -1))
            + np.linalg.norm(x, "nuc", axis=(-2, -1))[..., None, None]
        ),
    ),
    # Solvers: A is made well conditioned (+3I), B a matrix, a vector, a batch of vectors
    OpSpec(
        "linalg_solve_ex",
        lambda t, a, b: t.linalg.solve(a + 3 * t.eye(a.shape[-1], dtype=a.dtype), b),
        [(T((3, 3)), T((3, 2))), (T((2, 3, 3)), T((3,))), (T((2, 3, 3)), T((2, 3)))]
        + [(T((3, 3), nc=True), T((4, 1, 3, 2))), (T((2, 3, 3)), T((3, 3), grad=False))],
    ),
    OpSpec(
        "linalg_solve_right",
        lambda t, a, b: t.linalg.solve_ex(a + 3 * t.eye(a.shape[-1], dtype=a.dtype), b, left=False)[
            0
        ],
        [(T((3, 3)), T((2, 3))), (T((2, 3, 3)), T((1, 4, 3)))],
        covers=("linalg_solve_ex",),
    ),
    OpSpec(
        "linalg_inv_ex",
        lambda t, a: t.linalg.inv_ex(a + 3 * t.eye(a.shape[-1], dtype=a.dtype))[0],
        [(T((3, 3)),), (T((2, 4, 4)),)],
    ),
    # eigh: random symmetric matrices have distinct eigenvalues; the vectors are defined up
    # to sign, so specs test gauge-invariant functions of them. A is read as a general
    # matrix (PyTorch does not symmetrize the gradient), so inputs are symmetrized first.
    OpSpec(
        "linalg_eigh",
        lambda t, a: t.linalg.eigvalsh(a + a.mT),
        [(T((3, 3)),), (T((2, 4, 4)),), (T((3, 3), nc=True),)],
        ref=lambda np, a: np.linalg.eigvalsh(a + a.swapaxes(-1, -2)),
    ),
    OpSpec(
        "linalg_eigh_vectors",
        lambda t, a: (lambda r: r.eigenvectors * r.eigenvectors * r.eigenvalues.unsqueeze(-1))(
            t.linalg.eigh(a + a.mT, "U")
        ),
        [(T((3, 3)),), (T((2, 4, 4)),)],
        covers=("linalg_eigh",),
    ),
    # eig: the vectors are defined up to a phase per column and the order is LAPACK's, so
    # the spec reads what neither changes: the sum of |eigenvalue|^2 times each row's
    # sum of |entry|^2
    OpSpec(
        "linalg_eig",
        lambda t, a: (
            lambda r: (
                (r.eigenvalues.abs() ** 2).sum(-1, keepdim=True)
                * (r.eigenvectors.abs() ** 2).sum(-1)
            )
        )(t.linalg.eig(a)),
        [(T((3, 3)),), (T((2, 4, 4)),)],
        ref=lambda np, a: (
            lambda w, v: (np.abs(w) ** 2).sum(-1, keepdims=True) * (np.abs(v) ** 2).sum(-1)
        )(*np.linalg.eig(a)),
    ),
    OpSpec(
        "linalg_pinv_tolerances",
        lambda t, a: t.linalg.pinv(a) + t.linalg.pinv(a, atol=1e-3) + t.linalg.pinv(a, rtol=1e-2),
        [(T((3, 4)),), (T((4, 2)),), (T((2, 3, 3)),)],
        covers=("linalg_pinv",),
        ref=lambda np, a: 3 * np.linalg.pinv(a),
    ),
    OpSpec(
        "linalg_pinv_hermitian",
        lambda t, a: t.linalg.pinv(a + a.mT, hermitian=True),
        [(T((3, 3)),), (T((2, 4, 4)),)],
        covers=("linalg_pinv",),
        ref=lambda np, a: np.linalg.pinv(a + a.swapaxes(-1, -2), hermitian=True),
    ),
    # LU: random matrices pivot away from ties; the factors are unique given the pivots
    OpSpec(
        "linalg_lu_factor_ex",
        lambda t, a: t.linalg.lu_factor(a).LU,
        [(T((3, 3)),), (T((2, 4, 4)),), (T((3, 5)),), (T((5, 3)),), (T((3, 3), nc=True),)],
    ),
    OpSpec(
        "linalg_lu",
        lambda t, a: (lambda r: (r.L, r.U))(t.linalg.lu(a)),
        [(T((3, 3)),), (T((2, 4, 4)),), (T((3, 5)),), (T((5, 3)),)],
    ),
    OpSpec(
        "linalg_lu_upper_only",
        lambda t, a: t.linalg.lu(a).U,
        [(T((4, 4)),), (T((3, 5)),), (T((5, 3)),)],
        covers=("linalg_lu",),
    ),
    OpSpec(
        "linalg_lu_solve",
        lambda t, a, b: (lambda f: t.linalg.lu_solve(f.LU, f.pivots, b))(
            t.linalg.lu_factor(a + 3 * t.eye(a.shape[-1], dtype=a.dtype))
        ),
        [(T((3, 3)), T((3, 2))), (T((2, 3, 3)), T((4, 1, 3, 2))), (T((3, 3), nc=True), T((3, 3)))],
    ),
    OpSpec(
        "linalg_lu_solve_forms",
        lambda t, a, b: (
            lambda f: (
                t.linalg.lu_solve(f.LU, f.pivots, b, adjoint=True)
                + t.linalg.lu_solve(f.LU, f.pivots, b.mT, left=False).mT
                + t.linalg.lu_solve(f.LU, f.pivots, b.mT, left=False, adjoint=True).mT
            )
        )(t.linalg.lu_factor(a + 3 * t.eye(a.shape[-1], dtype=a.dtype))),
        [(T((3, 3)), T((3, 2))), (T((2, 3, 3)), T((2, 3, 3)))],
        covers=("linalg_lu_solve",),
    ),
    OpSpec(
        "lu_unpack",
        lambda t, a: (lambda f: t.lu_unpack(f.LU, f.pivots)[1:])(t.linalg.lu_factor(a)),
        [(T((3, 3)),), (T((2, 4, 4)),), (T((3, 5)),), (T((5, 3)),)],
        covers=("linalg_lu_factor_ex",),
    ),
    OpSpec(
        "linalg_householder_product",
        lambda t, a, tau: t.linalg.householder_product(a, tau),
        [(T((4, 3)), T((2,), low=0.0, high=1.5)), (T((3, 3)), T((3,), low=0.0, high=1.5))]
        + [(T((2, 5, 3)), T((2, 3), low=0.0, high=1.5)), (T((4, 2), nc=True), T((2,), grad=False))],
    ),
    # LAPACK's routines as torch publishes them: geqrf and the LDL pair have no derivative
    OpSpec(
        "geqrf",
        lambda t, a: t.geqrf(a),
        [(T((4, 3)),), (T((3, 5)),), (T((2, 3, 3)),)],
        grad=False,
    ),
    OpSpec(
        "ormqr",
        lambda t, a, tau, c: t.ormqr(a, tau, c) + t.ormqr(a, tau, c, transpose=True),
        [(T((4, 3)), T((3,)), T((4, 2))), (T((2, 3, 3)), T((2, 3)), T((2, 3, 2)))]
        + [(T((3, 5)), T((3,)), T((3, 4))), (T((4, 3), nc=True), T((3,)), T((4, 4)))],
    ),
    OpSpec(
        "ormqr_right",
        lambda t, a, tau, c: (
            t.ormqr(a, tau, c, left=False) + t.ormqr(a, tau, c, left=False, transpose=True)
        ),
        [(T((4, 3)), T((3,)), T((2, 4))), (T((2, 3, 3)), T((2, 3)), T((2, 2, 3)))],
        covers=("ormqr",),
    ),
    OpSpec(
        "linalg_ldl_factor_ex",
        lambda t, a: t.linalg.ldl_factor(a + a.mT),
        [(T((4, 4)),), (T((2, 5, 5)),), (T((3, 3), nc=True),)],
        grad=False,
    ),
    OpSpec(
        "linalg_ldl_solve",
        lambda t, a, b: (lambda f: t.linalg.ldl_solve(f.LD, f.pivots, b))(
            t.linalg.ldl_factor(a + a.mT)
        ),
        [(T((4, 4)), T((4, 2))), (T((2, 3, 3)), T((2, 3, 1)))],
        grad=False,
    ),
]
