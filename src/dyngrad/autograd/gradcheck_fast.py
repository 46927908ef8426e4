"""gradcheck's fast mode: v^T J u for random unit vectors u (per input) and v (per output),
numerically (one central difference along u) and analytically (one backward with v), instead
of every Jacobian entry, as PyTorch's `fast_mode=True`.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .engine import grad as autograd_grad

__all__ = ["fast_mismatch"]


def _unit(rng, shape, dtype) -> np.ndarray:
    v = rng.standard_normal(shape).astype(dtype)
    norm = np.linalg.norm(v)
    return v / norm if norm else v


def _numerical(call, targets, us, picks, vs, eps) -> np.ndarray:
    # n[i, j] = v_j . (f_j(x + eps u_i) - f_j(x - eps u_i)) / (2 eps), one input moved at a time
    n = np.zeros((len(targets), len(picks)))
    for i, (t, u) in enumerate(zip(targets, us)):
        data = t._data
        original = data.copy()
        data -= eps * u
        lo = [o._data.copy() for o in call()]
        data[...] = original + eps * u
        hi = [o._data.copy() for o in call()]
        data[...] = original
        for j, (k, v) in enumerate(zip(picks, vs)):
            n[i, j] = np.sum(v * (hi[k] - lo[k])) / (2 * eps)
    return n


def _analytical(outputs, targets, us, vs) -> np.ndarray:
    # a[i, j] = (v_j^T J_j) . u_i, one backward per output
    a = np.zeros((len(targets), len(outputs)))
    for j, (out, v) in enumerate(zip(outputs, vs)):
        grads = autograd_grad(
            out, targets, Tensor._wrap(v.copy()), retain_graph=True, allow_unused=True
        )
        for i, (g, u) in enumerate(zip(grads, us)):
            a[i, j] = 0.0 if g is None else float(np.sum(g._data * u))
    return a


def fast_mismatch(call, targets, everything, picks, eps, atol, rtol):
    """(input index, output index, numerical, analytical) of the first v^T J u that differs,
    or None; `everything` are call()'s tensor outputs, `picks` those that require grad."""
    rng = np.random.default_rng(0)
    us = [_unit(rng, t._data.shape, t._data.dtype) for t in targets]
    vs = [_unit(rng, everything[k]._data.shape, everything[k]._data.dtype) for k in picks]
    numerical = _numerical(call, targets, us, picks, vs, eps)
    analytical = _analytical([everything[k] for k in picks], targets, us, vs)
    for i in range(len(targets)):
        for j in range(len(picks)):
            a, n = analytical[i, j], numerical[i, j]
            if not np.isclose(a, n, rtol=rtol, atol=atol, equal_nan=True):
                return i, j, n, a
    return None
