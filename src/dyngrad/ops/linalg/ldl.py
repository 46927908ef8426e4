"""The LDL factorization of symmetric (Hermitian) indefinite matrices: `linalg.ldl_factor(_ex)`
with Bunch-Kaufman pivoting as LAPACK's sytrf/hetrf computes it, and `linalg.ldl_solve`.

# Note [Bunch-Kaufman in NumPy]
# NumPy has no sytrf, so the factorization is written here from the algorithm's description
# (Bunch and Kaufman, 1977; LAPACK's documentation of sytrf's output): the lower triangle,
# one column at a time, a 1x1 pivot when the diagonal is large enough against its column
# (alpha = (1 + sqrt(17)) / 8), else a 1x1 or 2x2 pivot with the row/column holding the
# column's largest entry. Pivots are LAPACK's: 1-based, k for a 1x1 block after swapping rows
# and columns k and pivots[k]; a negative pair -p, -p for a 2x2 block at k, k+1 after
# swapping k+1 and p. Complex entries are sized by |re| + |im|, as LAPACK does. PyTorch's
# LAPACK blocks large matrices (panels of 64 or more): from there its pivot choices may part
# from these where rounding decides a comparison; the factors always satisfy A = L D L^T.
# Neither PyTorch function has a derivative: a NotImplemented node, whose backward raises.
"""

from __future__ import annotations

import math

import numpy as np

from ...return_types import _result_type
from ..table.errors import broadcast_error, c_type_name, expect_tensor
from ..table.record import apply
from ..table.registry import NOT_IMPLEMENTED, defop, refused
from .lapack_checks import check_square

linalg_ldl_factor = _result_type("linalg_ldl_factor", ("LD", "pivots"))
linalg_ldl_factor_ex = _result_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))

_ALPHA = (1 + math.sqrt(17)) / 8


def _size(x):
    # LAPACK's cabs1 for complex entries
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def _greater(a, b):
    # Fortran's MAX as compiled (b unless a > b): a NaN diagonal does not stop the search
    return a if a > b else b


def _choose_pivot(a, k: int, hermitian: bool):
    """(kp, kstep) for column k, or None for a zero column (LAPACK's info)."""
    n = a.shape[0]
    diagonal = abs(a[k, k].real) if hermitian else _size(a[k, k])
    imax, colmax = k, 0.0
    if k + 1 < n:
        imax = k + 1 + int(np.argmax(_size(a[k + 1 :, k])))
        colmax = _size(a[imax, k])
    if _greater(diagonal, colmax) == 0:
        return None
    if diagonal >= _ALPHA * colmax:
        return k, 1
    # the largest off-diagonal entry of row/column imax (its row before the diagonal, its
    # column after)
    rowmax = float(np.max(_size(a[imax, k:imax])))
    if imax + 1 < n:
        rowmax = max(rowmax, float(np.max(_size(a[imax + 1 :, imax]))))
    if diagonal >= _ALPHA * colmax * (colmax / rowmax):
        return k, 1
    other = abs(a[imax, imax].real) if hermitian else _size(a[imax, imax])
    return (imax, 1) if other >= _ALPHA * rowmax else (imax, 2)


def _interchange(a, k: int, kk: int, kp: int, kstep: int, hermitian: bool) -> None:
    """Swap rows and columns kk and kp of the trailing lower triangle A[k:, k:]."""
    conj = np.conj if hermitian else (lambda x: x)
    tail = a[kp + 1 :, kk].copy()
    a[kp + 1 :, kk] = a[kp + 1 :, kp]
    a[kp + 1 :, kp] = tail
    # between kk and kp the column below kk meets the row left of kp
    middle = conj(a[kk + 1 : kp, kk].copy())
    a[kk + 1 : kp, kk] = conj(a[kp, kk + 1 : kp])
    a[kp, kk + 1 : kp] = middle
    a[kp, kk] = conj(a[kp, kk])
    a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
    if kstep == 2:
        a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]


def _eliminate(a, k: int, kstep: int, hermitian: bool) -> None:
    """The trailing update and L's columns for the block at k (1x1 or 2x2)."""
    conj = np.conj if hermitian else (lambda x: x)
    if kstep == 1:
        inverse = 1 / (a[k, k].real if hermitian else a[k, k])
        x = a[k + 1 :, k].copy()
        a[k + 1 :, k + 1 :] -= x[:, None] * (inverse * conj(x))[None, :]
        a[k + 1 :, k] = x * inverse
        return
    if k + 2 >= a.shape[0]:
        return
    # W = [x y] D^-1 with D = [[d11, conj(c)], [c, d22]], written as LAPACK scales it by c
    c = a[k + 1, k]
    if hermitian:
        size = abs(c)
        d11, d22, unit = a[k + 1, k + 1].real / size, a[k, k].real / size, c / size
        scale = 1 / (d11 * d22 - 1) / size
        x, y = a[k + 2 :, k].copy(), a[k + 2 :, k + 1].copy()
        wk = scale * (d11 * x - unit * y)
        wk1 = scale * (d22 * y - np.conj(unit) * x)
    else:
        d11, d22 = a[k + 1, k + 1] / c, a[k, k] / c
        scale = 1 / (d11 * d22 - 1) / c
        x, y = a[k + 2 :, k].copy(), a[k + 2 :, k + 1].copy()
        wk = scale * (d11 * x - y)
        wk1 = scale * (d22 * y - x)
    a[k + 2 :, k + 2 :] -= x[:, None] * conj(wk)[None, :] + y[:, None] * conj(wk1)[None, :]
    a[k + 2 :, k] = wk
    a[k + 2 :, k + 1] = wk1


def _bunch_kaufman(a, hermitian: bool):
    """(LD, pivots, info) of one matrix: See Note [Bunch-Kaufman in NumPy]."""
    n = a.shape[0]
    a = np.tril(a)  # sytrf reads the lower triangle only
    pivots = np.arange(1, n + 1, dtype=np.int32)
    info, k = 0, 0
    while k < n:
        if hermitian:
            a[k, k] = a[k, k].real
        choice = _choose_pivot(a, k, hermitian)
        if choice is None:
            info = info or k + 1
            k += 1
            continue
        kp, kstep = choice
        kk = k + kstep - 1
        if kp != kk:
            _interchange(a, k, kk, kp, kstep, hermitian)
        if hermitian and kstep == 2:
            a[k + 1, k + 1] = a[k + 1, k + 1].real
        _eliminate(a, k, kstep, hermitian)
        if kstep == 1:
            pivots[k] = kp + 1
        else:
            pivots[k] = pivots[k + 1] = -(kp + 1)
        k += kstep
    return np.tril(a), pivots, info


def _ldl_factor_fwd(xp, a, *, hermitian):
    n = a.shape[-1]
    batch = a.shape[:-2]
    flat = a.reshape((int(np.prod(batch, dtype=np.int64)), n, n))
    ld = np.zeros_like(flat)
    pivots = np.zeros((flat.shape[0], n), np.int32)
    info = np.zeros(flat.shape[0], np.int32)
    for b in range(flat.shape[0]):
        ld[b], pivots[b], info[b] = _bunch_kaufman(
            flat[b].copy(), hermitian and a.dtype.kind == "c"
        )
    return ld.reshape(a.shape), pivots.reshape(batch + (n,)), info.reshape(batch)


def _solve_one(ld, pivots, b, hermitian: bool):
    """X with A X = B for A = L D L^T (L D L^H) from one factorization: forward through the
    swaps and L's columns, the blocks of D, back through L^T and the swaps."""
    conj = np.conj if hermitian else (lambda x: x)
    n = ld.shape[0]
    k = 0
    while k < n:
        step = 1 if pivots[k] > 0 else 2
        row, kp = k + step - 1, abs(int(pivots[k])) - 1
        b[[row, kp]] = b[[kp, row]]
        for j in range(k, k + step):
            b[k + step :] -= ld[k + step :, j, None] * b[j]
        if step == 1:
            b[k] /= ld[k, k].real if hermitian else ld[k, k]
        else:  # the 2x2 block [[d11, conj(c)], [c, d22]], each row scaled by its c
            c = ld[k + 1, k]
            d11, d22 = ld[k, k] / conj(c), ld[k + 1, k + 1] / c
            first, second = b[k] / conj(c), b[k + 1] / c
            denominator = d11 * d22 - 1
            b[k] = (d22 * first - second) / denominator
            b[k + 1] = (d11 * second - first) / denominator
        k += step
    k = n - 1
    while k >= 0:
        step = 1 if pivots[k] > 0 else 2
        for j in range(k - step + 1, k + 1):
            b[j] -= conj(ld[k + 1 :, j]) @ b[k + 1 :]
        kp = abs(int(pivots[k])) - 1
        b[[k, kp]] = b[[kp, k]]
        k -= step
    return b


def _ldl_solve_fwd(xp, ld, pivots, b, *, hermitian):
    batch = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    n, rhs = ld.shape[-1], b.shape[-1]
    count = int(np.prod(batch, dtype=np.int64))
    lds = np.broadcast_to(ld, batch + (n, n)).reshape((count, n, n))
    pivs = np.broadcast_to(pivots, batch + (n,)).reshape((count, n))
    x = np.array(np.broadcast_to(b, batch + (n, rhs)), dtype=b.dtype).reshape((count, n, rhs))
    hermitian = hermitian and ld.dtype.kind == "c"
    for i in range(x.shape[0]):
        _solve_one(lds[i], pivs[i], x[i], hermitian)
    return x.reshape(batch + (n, rhs))


LDL_FACTOR_EX = defop(
    "linalg_ldl_factor_ex",
    _ldl_factor_fwd,
    {"a": refused("derivative for aten::linalg_ldl_factor_ex is not implemented")},
    outputs=3,
    differentiable=(0,),
    node=NOT_IMPLEMENTED,
)
LDL_SOLVE = defop(
    "linalg_ldl_solve",
    _ldl_solve_fwd,
    dict.fromkeys(("ld", "b"), refused("derivative for aten::linalg_ldl_solve is not implemented")),
    node=NOT_IMPLEMENTED,
)

# ---- the public surface ----------------------------------------------------------------------

# PyTorch 2.13 reports a singular factor through an internal assertion (its error-code table
# lacks sytrf's); its text is kept so that code matching it behaves alike
_UNKNOWN_CODE = (
    'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/'
    'BatchLinearAlgebra.cpp":1642, please report a bug to PyTorch. torch.{}: Unknown error '
    "code: {}.\n[dyngrad] D has a zero block (A is singular), at the 1-based column given by "
    "the code; use linalg.ldl_factor_ex to get `info` instead of an error."
)


def _expect_bool(fn: str, name: str, value) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{fn}(): argument '{name}' must be bool, not {type(value).__name__}")


def _check_factor(fn: str, A, hermitian) -> None:  # noqa: N803
    expect_tensor(fn, "input", 1, A)
    _expect_bool(fn, "hermitian", hermitian)
    name = "torch.linalg.ldl_factor_ex"
    check_square(name, A._data.shape, at_least_2d=True)
    kind = A.dtype._legacy
    if not (A.is_floating_point() or A.is_complex()):
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got {kind}"
        )
    if kind in ("Half", "BFloat16"):
        raise NotImplementedError(f"\"ldl_factor_kernel_cpu\" not implemented for '{kind}'")


def _write_out(results, out, names):
    """PyTorch's ldl out= forms: each `out` tensor must have its result's dtype; they are
    resized and written. (They take inputs that require grad, as PyTorch's do.)"""
    if len(out) != len(results):
        raise TypeError(f"argument 'out' must be tuple of {len(results)} Tensors")
    for result, target in zip(results, out):
        if target.dtype != result.dtype:
            raise RuntimeError(
                f"Expected out tensor to have dtype {c_type_name(result.dtype)}, but got "
                f"{c_type_name(target.dtype)} instead"
            )
    for result, target in zip(results, out):
        if tuple(target.shape) != tuple(result.shape):
            target.resize_(tuple(result.shape))
        target._data[...] = result._data
        target._version_counter.bump("out=")
    return names(*out)


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):  # noqa: N803
    """Matches `torch.linalg.ldl_factor_ex`: `(LD, pivots, info)`, LAPACK's sytrf (hetrf when
    hermitian) form of A = L D L^T; info > 0 names a zero block of D. See Note
    [Bunch-Kaufman in NumPy]."""
    _check_factor("linalg_ldl_factor_ex", A, hermitian)
    _expect_bool("linalg_ldl_factor_ex", "check_errors", check_errors)
    LD, pivots, info = apply(LDL_FACTOR_EX, (A,), {"hermitian": hermitian})  # noqa: N806
    if check_errors and info.numel() and int(info._data.max()) > 0:
        code = int(info._data[info._data > 0].flat[0])
        raise RuntimeError(_UNKNOWN_CODE.format("linalg.ldl_factor_ex", code))
    result = linalg_ldl_factor_ex(LD, pivots, info)
    return result if out is None else _write_out(result, out, linalg_ldl_factor_ex)


def ldl_factor(A, *, hermitian=False, out=None):  # noqa: N803
    """Matches `torch.linalg.ldl_factor`: `(LD, pivots)`; raises where D is singular."""
    _check_factor("linalg_ldl_factor", A, hermitian)
    LD, pivots, info = apply(LDL_FACTOR_EX, (A,), {"hermitian": hermitian})  # noqa: N806
    if info.numel() and int(info._data.max()) > 0:
        code = int(info._data[info._data > 0].flat[0])
        raise RuntimeError(_UNKNOWN_CODE.format("linalg.ldl_factor", code))
    result = linalg_ldl_factor(LD, pivots)
    return result if out is None else _write_out(result, out, linalg_ldl_factor)


def _check_solve(LD, pivots, B) -> None:  # noqa: N803
    name = "torch.linalg.ldl_solve"
    check_square(name, LD._data.shape, at_least_2d=True)
    n = LD.shape[-1]
    if B.dim() < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(B.dim(), 1)}, "
            f"{max(B.dim(), 1) - 1}], but got -2)"
        )
    if B.shape[-2] != n:
        raise RuntimeError(
            f"Incompatible matrix sizes for {name}: each A matrix is {n} by {n} but each b "
            f"matrix is {B.shape[-2]} by {B.shape[-1]}"
        )
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(
            f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots "
            f"with shape {list(pivots.shape)} instead"
        )
    if pivots.is_floating_point() or pivots.is_complex() or pivots.dtype._legacy == "Bool":
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {pivots.dtype._legacy}")
    if B.dtype != LD.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {B.dtype._legacy} "
            f"and A of type {LD.dtype._legacy} instead."
        )
    kind = LD.dtype._legacy
    if not (LD.is_floating_point() or LD.is_complex()):
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got {kind}"
        )
    if kind in ("Half", "BFloat16"):
        raise NotImplementedError(f"\"ldl_solve_kernel_cpu\" not implemented for '{kind}'")
    error = broadcast_error([B._data.shape[:-2], LD._data.shape[:-2]])
    if error is not None:
        raise error
    sizes = np.abs(pivots._data)
    if sizes.size and int(sizes.min()) < 1:
        raise RuntimeError(
            "Pivots given to ldl_solve must all satisfy |pivot| >= 1. Did you properly pass the "
            "result of ldl_factor?"
        )
    if sizes.size and int(sizes.max()) > n:  # (PyTorch reads out of bounds here)
        raise RuntimeError(
            f"Pivots given to ldl_solve must all satisfy |pivot| <= {n}, the size of LD. "
            "[dyngrad] Did you properly pass the result of ldl_factor?"
        )


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):  # noqa: N803
    """Matches `torch.linalg.ldl_solve`: X with A X = B for A's factors from `ldl_factor`."""
    for position, (arg, value) in enumerate((("LD", LD), ("pivots", pivots), ("B", B)), 1):
        expect_tensor("linalg_ldl_solve", arg, position, value)
    _expect_bool("linalg_ldl_solve", "hermitian", hermitian)
    _check_solve(LD, pivots, B)
    pivots = pivots if pivots.dtype._legacy == "Int" else pivots.int()
    X = apply(LDL_SOLVE, (LD, pivots, B), {"hermitian": hermitian})  # noqa: N806
    return X if out is None else _write_out((X,), (out,), lambda x: x)
