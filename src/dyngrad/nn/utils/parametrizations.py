"""`torch.nn.utils.parametrizations`: `orthogonal`, `spectral_norm` and `weight_norm` as
parametrizations (see Note [Parametrized modules] in parametrize.py)."""

from __future__ import annotations

from enum import Enum, auto

from ..._tensor import Tensor
from ...graph.grad_mode import no_grad
from ...ops.creation.factories import zeros_like
from ...ops.creation.random import randn
from ...ops.creation.ranges import eye
from ...ops.elementwise.compare import allclose
from ...ops.linalg.householder import householder_product
from ...ops.linalg.lapack_qr import geqrf
from ...ops.linalg.matrix_functions import matrix_exp
from ...ops.linalg.solvers import solve
from ...ops.nn.weight_norm import _weight_norm, norm_except_dim
from ...ops.shape.joining import cat
from ...runtime.type_info import finfo
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .spectral_norm import _default_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---- orthogonal --------------------------------------------------------------------------------


def _is_orthogonal(Q) -> bool:  # noqa: N803 - the math's name
    n, k = Q.size(-2), Q.size(-1)
    eps = 10.0 * n * finfo(Q.dtype).eps
    return allclose(Q.mH @ Q, eye(k, dtype=Q.dtype), atol=eps)


def _make_orthogonal(A):  # noqa: N803
    # Q of A's QR decomposition, its columns' signs chosen so that diag(R) > 0
    X, tau = geqrf(A)
    Q = householder_product(X, tau)
    Q *= X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """The map from unconstrained matrices onto orthogonal ones (times `base`, the point the
    trivialization is centred at, when `use_trivialization`)."""

    base: Tensor

    def __init__(self, weight, orthogonal_map: _OrthMaps, *, use_trivialization=True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):  # noqa: N803
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X, n, k = X.mT, k, n
        if self.orthogonal_map == _OrthMaps.householder:
            Q = self._householder(X)
        else:
            Q = self._skew_map(X, n, k)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def _skew_map(self, X, n: int, k: int):  # noqa: N803
        # a tall n x k X gives the n*k - k(k-1)/2 free entries of a skew-symmetric n x n A
        X = X.tril()
        if n != k:
            X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
        A = X - X.mH
        if self.orthogonal_map == _OrthMaps.matrix_exp:
            Q = matrix_exp(A)
        else:  # the Cayley map (I + A/2)(I - A/2)^{-1}
            Id = eye(n, dtype=A.dtype)
            Q = solve(Id.add(A, alpha=-0.5), Id.add(A, alpha=0.5))
        return Q[..., :k] if n != k else Q

    def _householder(self, X):  # noqa: N803
        A = X.tril(diagonal=-1)
        tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
        Q = householder_product(A, tau)
        # X's diagonal holds the reflections' signs (+-1): not differentiated, not updated.
        # (detached: an integer tensor takes no gradient, but dyngrad's `.int()` of a tensor
        # that requires grad still records a ToCopyBackward0 that would reach X's diagonal)
        return Q * X.diagonal(dim1=-2, dim2=-1).detach().int().unsqueeze(-2)

    @no_grad()
    def right_inverse(self, Q):  # noqa: N803
        if Q.shape != self.shape:
            raise ValueError(
                f"Expected a matrix or batch of matrices of shape {self.shape}. "
                f"Got a tensor of shape {Q.shape}."
            )
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q, n, k = Q.mT, k, n
        if not hasattr(self, "base"):
            return self._householder_inverse(Q, transpose)
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:  # complete Q to an orthogonal n x n matrix with random columns
            N = randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        # -Id: householder(zeros) is then eye, and the other maps give the identity too
        neg_id = zeros_like(Q_init)
        neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_id

    def _householder_inverse(self, Q, transpose: bool):  # noqa: N803
        if self.orthogonal_map != _OrthMaps.householder:
            raise NotImplementedError(
                "It is not possible to assign to the matrix exponential "
                "or the Cayley parametrizations when use_trivialization=False."
            )
        A, tau = geqrf(Q)
        # diag(R) > 0 picks one of the QR decompositions; LAPACK marks a skipped reflection
        # with tau == 0 exactly
        A.diagonal(dim1=-2, dim2=-1).sign_()
        A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
        return A.mT if transpose else A


def orthogonal(
    module: Module,
    name: str = "weight",
    orthogonal_map: str | None = None,
    *,
    use_trivialization: bool = True,
) -> Module:
    """Matches `torch.nn.utils.parametrizations.orthogonal`: `module.<name>` kept orthogonal
    through the "matrix_exp" (square default), "cayley" or "householder" (tall default) map."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions."
        )
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# ---- weight_norm -------------------------------------------------------------------------------


class _WeightNorm(Module):
    """weight = g * v / ||v||: original0 is g, original1 is v."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """Matches `torch.nn.utils.parametrizations.weight_norm`: `module.<name>` as
    `original0 * original1 / ||original1||`; checkpoints of the old `weight_norm` (`<name>_g`,
    `<name>_v`) still load."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(
        state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


# ---- spectral_norm -----------------------------------------------------------------------------


def _normalize_into(target, vector, eps: float):
    # PyTorch's F.normalize(vector, dim=0, eps=eps, out=target): u and v are updated in place
    return target.copy_(F.normalize(vector, dim=0, eps=eps))


class _SpectralNorm(Module):
    """weight / sigma, sigma the largest singular value of the weight seen as a matrix (`dim`
    first), estimated by power iteration on the buffers `_u` and `_v` (in training mode)."""

    def __init__(self, weight, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but "
                f"got n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:  # a vector is normalised exactly, with no u and v
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    @no_grad()
    def _power_method(self, weight_mat, n_power_iterations: int) -> None:
        # u and v change in place (a replica sharing them sees the update) and are cloned
        # before use in forward (a graph from an earlier forward saved the old values)
        for _ in range(n_power_iterations):
            _normalize_into(self._u, weight_mat.mv(self._v), self.eps)
            _normalize_into(self._v, weight_mat.H.mv(self._u), self.eps)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = u.vdot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Matches `torch.nn.utils.parametrizations.spectral_norm`: `module.<name>` divided by its
    spectral norm; u and v drawn from the global generator as PyTorch draws them."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = _default_dim(module)
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module
