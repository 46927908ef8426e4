"""gradcheck's analytical side: vector-Jacobian products by backward, each set run twice to catch
a backward that is not reentrant (gives different values for the same graph and seed), with the
gradients' sizes and dtypes checked, as PyTorch. Slow mode seeds one output element at a time
(the full Jacobian); fast mode one random vector per output."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from .._tensor import Tensor
from .engine import grad as autograd_grad
from .gradcheck_checks import GradcheckError, check_reentrant

__all__ = ["vjp_columns", "checked_vjp_columns", "unit_seeds"]


def unit_seeds(output: Tensor) -> Iterable[np.ndarray]:
    """One-hot output gradients, one per element of `output` in C order."""
    for k in range(output._data.size):
        seed = np.zeros(output._data.size, dtype=output._data.dtype)
        seed[k] = 1
        yield seed.reshape(output._data.shape)


def vjp_columns(output: Tensor, targets: list, seeds: Iterable[np.ndarray], columns: int):
    """(J, sizes_ok, types_ok): J[i] is (numel of target i, columns), column k the gradient of
    target i for seed k; and whether every gradient had its input's size, and its dtype."""
    jac = [
        np.zeros((t._data.size, columns), np.result_type(t._data.dtype, np.float64))
        for t in targets
    ]
    sizes_ok = types_ok = True
    for k, seed in enumerate(seeds):
        grads = autograd_grad(
            output, targets, Tensor._wrap(seed.copy()), retain_graph=True, allow_unused=True
        )
        for i, (g, t) in enumerate(zip(grads, targets)):
            if g is None:  # an unused input: a zero column
                continue
            if g.shape != t.shape:
                sizes_ok = False
                continue
            if g.dtype is not t.dtype:
                types_ok = False
            jac[i][:, k] = g._data.reshape(-1)
    return jac, sizes_ok, types_ok


def checked_vjp_columns(
    output: Tensor,
    targets: list,
    seeds: Callable[[], Iterable[np.ndarray]],
    columns: int,
    nondet_tol: float,
    check_grad_dtypes: bool,
) -> list:
    """`vjp_columns`, run twice; raises PyTorch's GradcheckError when a gradient has the wrong
    dtype (only with `check_grad_dtypes`) or size, or when the two runs differ by more than
    `nondet_tol`. `seeds()` makes a fresh iterable for each run."""
    first, sizes_ok, types_ok = vjp_columns(output, targets, seeds(), columns)
    second, _, _ = vjp_columns(output, targets, seeds(), columns)
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    check_reentrant(first, second, nondet_tol)
    return first
