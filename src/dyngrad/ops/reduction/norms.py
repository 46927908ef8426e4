"""Norms: `linalg.vector_norm` (one row), `linalg.matrix_norm`, `linalg.norm`, `torch.norm`."""

from __future__ import annotations

import math

import numpy as np

from ...runtime import dtypes
from ..linalg.decomposition import _LinAlgError, svdvals
from ..shape.reshaping import wrap_dim
from ..table.argument_errors import type_name
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .reduce_ops import expand_reduced, reduce_dims

_INF = math.inf


def _vector_norm_fwd(xp, x, *, ord, dim, keepdim):
    a = xp.abs(x)
    if ord == 2:
        out = xp.sqrt(xp.sum(a * a, axis=dim, keepdims=keepdim))
    elif ord == 1:
        out = xp.sum(a, axis=dim, keepdims=keepdim)
    elif ord == _INF:
        out = xp.amax(a, axis=dim, keepdims=keepdim)
    elif ord == -_INF:
        out = xp.amin(a, axis=dim, keepdims=keepdim)
    elif ord == 0:
        out = xp.sum(a != 0, axis=dim, keepdims=keepdim)
    else:
        with np.errstate(divide="ignore"):
            out = xp.sum(a**ord, axis=dim, keepdims=keepdim) ** (1.0 / ord)
    return xp.asarray(out).astype(x.dtype, copy=False)


def _vector_norm_grad(g, x, out, ord, dim, keepdim):
    g = expand_reduced(g, x.shape, dim, keepdim)
    norm = expand_reduced(out, x.shape, dim, keepdim)
    if ord == 0:
        return None  # piecewise constant: PyTorch gives no gradient at all
    if ord == 1:
        return g * x.sign()
    if ord == 2:  # x / ||x||, and 0 where the norm is 0 (PyTorch's choice at the kink)
        return x * (g / norm).masked_fill(norm == 0, 0)
    if abs(ord) == _INF:  # like amax/amin of |x|: ties share the gradient evenly
        mask = x.abs() == norm
        return g * x.sign() * mask / mask.sum(dim, keepdim=True)
    # d ||x||_p / dx = sign(x) |x|^(p-1) / ||x||^(p-1)
    scaled = (x.sign() * x.abs().pow(ord - 1)).masked_fill(x == 0, 0)
    return scaled * (g / norm.pow(ord - 1)).masked_fill(norm == 0, 0)


LINALG_VECTOR_NORM = defop("linalg_vector_norm", _vector_norm_fwd, {"x": _vector_norm_grad})


def _check_float(input, dtype, name="linalg.vector_norm"):
    if dtype is not None:
        if not (dtype.is_floating_point or dtype.is_complex):
            raise RuntimeError(
                f"{name}: dtype should be floating point or complex, but got {dtype._legacy}"
            )
        input = input.to(dtype)
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got "
            f"{input.dtype._legacy}"
        )
    return input


def _ord_text(ord) -> str:
    return "inf" if ord == _INF else "-inf" if ord == -_INF else f"{ord:g}"


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """Matches `torch.linalg.vector_norm`: `x` flattened (or reduced over `dim`) as a vector."""
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' must be Number, not str")
    x = _check_float(x, dtype)
    dims = reduce_dims(x, dim)
    if ord < 0 or abs(ord) == _INF:  # no identity: reducing over nothing is an error
        shape = x._data.shape
        whole = dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0)
        if whole and x._data.size == 0:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {_ord_text(ord)} norm on "
                "an empty tensor because the operation does not have an identity"
            )
        for d in dims:
            if shape[d] == 0 and not whole:
                raise RuntimeError(
                    f"linalg.vector_norm cannot compute the {_ord_text(ord)} norm on the "
                    f"dimension {d}because this dimension is empty and the operation does not "
                    "have an identity"
                )
    attrs = {"ord": float(ord), "dim": dims, "keepdim": bool(keepdim)}
    return apply(LINALG_VECTOR_NORM, (x,), attrs)


def _matrix_dims(A, dim):  # noqa: N803 - PyTorch names the matrix A
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        count = len(dim) if isinstance(dim, (tuple, list)) else 1
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {count}")
    if A._data.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    d0, d1 = (wrap_dim(d, A._data.ndim) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    return d0, d1


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):  # noqa: N803
    """Matches `torch.linalg.matrix_norm`: 'fro', 'nuc', 1, -1, 2, -2, inf and -inf."""
    d0, d1 = _matrix_dims(A, dim)
    A = _check_float(A, dtype, "linalg.matrix_norm")
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in (2, -2, "nuc"):
        return _spectral_norm(A, ord, d0, d1, keepdim)
    if isinstance(ord, str) or ord not in (1, -1, _INF, -_INF):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if abs(ord) == _INF:  # the largest (smallest) row sum: the 1-norm of the transpose
        d0, d1 = d1, d0
    # max (min) over columns of the column sums of |A| (1-norms: LinalgVectorNormBackward0)
    sums = vector_norm(A, 1, d0, keepdim)
    if not keepdim and d0 < d1:
        d1 -= 1
    reduce = sums.amax if ord > 0 else sums.amin
    return reduce(d1, keepdim=keepdim)


def _spectral_norm(A, ord, d0: int, d1: int, keepdim: bool):  # noqa: A002
    """The largest (2) or smallest (-2) singular value, or their sum ('nuc')."""

    if A.dtype in (dtypes.float16, dtypes.bfloat16):
        raise RuntimeError(
            f"linalg.matrix_norm: Low precision dtypes not supported. Got {A.dtype._legacy}"
        )
    if not np.isfinite(A._data).all():  # LAPACK's SVD fails on these: PyTorch's words for it
        raise _LinAlgError(
            "linalg.svd: The algorithm failed to converge because the input "
            "matrix contained non-finite values."
        )
    values = svdvals(A.movedim((d0, d1), (-2, -1)))
    if ord == "nuc":
        result = values.sum(-1, keepdim=keepdim)
    else:
        result = values.amax(-1, keepdim) if ord == 2 else values.amin(-1, keepdim)
    if keepdim:  # as PyTorch: the reduced dims back in place by a permute
        result = result.unsqueeze(-1).movedim((-2, -1), (d0, d1))
    return result


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: N803
    """Matches `torch.linalg.norm`: a vector norm, or a matrix norm for 2-D `dim`/input."""
    if dim is not None and not isinstance(dim, (tuple, list)):
        dim = (dim,)
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype)
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if A._data.ndim not in (1, 2):
            raise RuntimeError(
                "linalg.norm: If dim is not specified but ord is, the input must "
                f"be 1D or 2D. Got {A._data.ndim}D."
            )
        if isinstance(ord, str) or A._data.ndim == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    if isinstance(ord, str) or len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


@public(name="norm")
def torch_norm(input, p="fro", dim=None, keepdim=False, dtype=None, out=None):
    """Matches `torch.norm`: numbers and 'fro' are vector norms over `dim` (or everything)."""
    if not isinstance(p, (int, float, str, np.number)) and p is not None:
        raise TypeError(
            f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not {type_name(p)}"
        )
    if isinstance(dim, int):
        dim = (dim,)
    if p == "fro" or p is None:
        return vector_norm(input, 2, dim, keepdim, dtype=dtype)
    if isinstance(p, str):
        if p == "nuc":
            return matrix_norm(input, p, dim if dim is not None else (-2, -1), keepdim, dtype=dtype)
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    return vector_norm(input, p, dim, keepdim, dtype=dtype)
