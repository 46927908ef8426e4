"""What gradcheck checks besides the Jacobians themselves: outputs keep their shape and dtype
when inputs are perturbed, backward is deterministic (reentrant), multiplies by the output
gradient, and copes with undefined output gradients. Messages are PyTorch's."""

from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor
from ..ops.creation.factories import zeros_like
from .engine import grad as autograd_grad
from .special_nodes import UndefinedGrad

__all__ = [
    "GradcheckError",
    "check_same_dtype_and_shape",
    "check_reentrant",
    "check_backward_multiplies_by_grad_output",
    "check_undefined_grad",
]


class GradcheckError(RuntimeError):
    """Matches `torch.autograd.gradcheck.GradcheckError`."""


def check_same_dtype_and_shape(lo: Tensor, hi: Tensor, eps: float, idx=None) -> None:
    """A function whose output shape or dtype depends on the input values has no Jacobian.
    `idx` is the perturbed element (slow mode); fast mode moves a whole input, and passes None."""
    where = "" if idx is None else f"on index {idx} "
    for what, a, b in (("shape", lo.shape, hi.shape), ("dtype", lo.dtype, hi.dtype)):
        if a != b:
            raise AssertionError(
                f"Expected `func` to return outputs with the same {what} when inputs are "
                f"perturbed {where}by {eps}, but got: {what}s {a} and {b}."
            )


_NONDET_NOTE = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


def jacobians_equal(first: list, second: list, tolerance: float) -> bool:
    """Whether two computations of the same Jacobians agree within `tolerance`."""
    return all(a.size == 0 or np.max(np.abs(a - b)) <= tolerance for a, b in zip(first, second))


def check_reentrant(first: list, second: list, nondet_tol: float) -> None:
    """Backward run twice on the same graph and gradient must give the same Jacobians."""
    if not jacobians_equal(first, second, nondet_tol):
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}." + _NONDET_NOTE
        )


def check_backward_multiplies_by_grad_output(outputs: list, targets: list) -> None:
    """A zero output gradient must give zero input gradients of the inputs' dtype and size."""
    grads = autograd_grad(outputs, targets, [zeros_like(o) for o in outputs], allow_unused=True)
    for g, t in zip(grads, targets):
        if g is None:
            continue
        if not (g._data == 0).all():
            raise GradcheckError("backward not multiplied by grad_output")
        if g.dtype is not t.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.device != t.device:
            raise GradcheckError("grad is incorrect device")
        if g.shape != t.shape:
            raise GradcheckError("grad is incorrect size")


def _warn_new_check() -> None:
    warnings.warn(
        "Backwards compatibility: New undefined gradient support checking feature is enabled "
        "by default, but it may break existing callers of this function. If this is true for "
        'you, you can call this function with "check_undefined_grad=False" to disable the '
        "feature",
        UserWarning,
        stacklevel=4,
    )


def check_undefined_grad(func, inputs: tuple, targets: list, differentiable) -> None:
    """Every backward must cope with undefined (None) output gradients: all at once, and,
    for several outputs, one at a time."""
    undefined = UndefinedGrad()
    cases = [[undefined(o) for o in differentiable(func(*inputs))]]
    if len(cases[0]) > 1:
        for k in range(len(cases[0])):
            outs = differentiable(func(*inputs))
            cases.append([undefined(o) if i == k else o for i, o in enumerate(outs)])
    for outs in cases:
        try:
            grads = autograd_grad(outs, targets, [zeros_like(o) for o in outs], allow_unused=True)
        except RuntimeError as exc:
            _warn_new_check()
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look at "
                '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
            ) from exc
        if any(g is not None and not (g._data == 0).all() for g in grads):
            _warn_new_check()
            raise GradcheckError(
                "Expected all input grads to be undefined or zero when all output grads are "
                'undefined or zero. Please look at "Notes about undefined output gradients" in '
                '"tools/autograd/derivatives.yaml"'
            )
