"""gradcheck's fast mode: v^T J u for random unit vectors u (per input) and v (per output),
numerically (one central difference along u) and analytically (one backward with v, run twice
to check reentrancy), instead of every Jacobian entry, as PyTorch's `fast_mode=True`.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .gradcheck_analytical import checked_vjp_columns
from .gradcheck_checks import GradcheckError, check_same_dtype_and_shape

__all__ = ["fast_mismatch", "check_constant_outputs_fast"]


def _unit(rng, shape, dtype) -> np.ndarray:
    # non-negative entries, as PyTorch draws them: the tolerance scaling below relies on it
    v = rng.random(shape).astype(dtype)
    norm = np.linalg.norm(v)
    return v / norm if norm else v


def _around(call, t: Tensor, step: np.ndarray, eps: float) -> tuple[list, list]:
    """call()'s tensor outputs with `t` moved by -step and by +step, checked to keep their
    shapes and dtypes; `t` is restored."""
    data = t._data
    original = data.copy()
    data -= step
    lo = [Tensor._wrap(o._data.copy()) for o in call()]
    data[...] = original + step
    hi = [Tensor._wrap(o._data.copy()) for o in call()]
    data[...] = original
    for a, b in zip(lo, hi):
        check_same_dtype_and_shape(a, b, eps)
    return lo, hi


def _numerical(call, targets, us, picks, vs, eps) -> np.ndarray:
    # n[i, j] = v_j . (f_j(x + eps u_i) - f_j(x - eps u_i)) / (2 eps), one input moved at a time
    n = np.zeros((len(targets), len(picks)))
    for i, (t, u) in enumerate(zip(targets, us)):
        lo, hi = _around(call, t, eps * u, eps)
        for j, (k, v) in enumerate(zip(picks, vs)):
            n[i, j] = np.sum(v * (hi[k]._data - lo[k]._data)) / (2 * eps)
    return n


def _analytical(outputs, targets, us, vs, nondet_tol, check_grad_dtypes) -> np.ndarray:
    # a[i, j] = (v_j^T J_j) . u_i, one backward per output (twice: see checked_vjp_columns)
    a = np.zeros((len(targets), len(outputs)))
    for j, (out, v) in enumerate(zip(outputs, vs)):
        vj = checked_vjp_columns(out, targets, lambda v=v: [v], 1, nondet_tol, check_grad_dtypes)
        for i, u in enumerate(us):
            a[i, j] = float(np.sum(vj[i][:, 0] * u.reshape(-1)))
    return a


def fast_mismatch(
    call, targets, everything, picks, eps, atol, rtol, nondet_tol=0.0, check_grad_dtypes=False
):
    """(input index, output index, numerical, analytical) of the first v^T J u that differs,
    or None; `everything` are call()'s tensor outputs, `picks` those that require grad."""
    rng = np.random.default_rng(0)
    us = [_unit(rng, t._data.shape, t._data.dtype) for t in targets]
    vs = [_unit(rng, everything[k]._data.shape, everything[k]._data.dtype) for k in picks]
    numerical = _numerical(call, targets, us, picks, vs, eps)
    outputs = [everything[k] for k in picks]
    analytical = _analytical(outputs, targets, us, vs, nondet_tol, check_grad_dtypes)
    for i in range(len(targets)):
        for j in range(len(picks)):
            a, n = analytical[i, j], numerical[i, j]
            # atol bounds each Jacobian entry; v^T (atol everywhere) u = atol sum(u) sum(v)
            tol = atol * float(us[i].sum()) * float(vs[j].sum())
            if not np.isclose(a, n, rtol=rtol, atol=tol, equal_nan=True):
                return i, j, n, a
    return None


def check_constant_outputs_fast(call, targets, eps, nondet_tol) -> None:
    """Fast mode when no output requires grad: every output's derivative along a random u must
    be zero, within `nondet_tol`, as PyTorch (which here looks at integer outputs too)."""
    rng = np.random.default_rng(0)
    for t in targets:
        u = _unit(rng, t._data.shape, t._data.dtype)
        lo, hi = _around(call, t, eps * u, eps)
        for a, b in zip(lo, hi):
            wide = np.result_type(a._data.dtype, np.float64)  # booleans do not subtract
            d = (b._data.astype(wide) - a._data.astype(wide)) / (2 * eps)
            if d.size and np.max(np.abs(d)) > nondet_tol:
                raise GradcheckError("Numerical gradient for function expected to be zero")
