"""`gradcheck` and `gradgradcheck`: analytical Jacobians against central differences."""

from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor
from .engine import grad as autograd_grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Matches `torch.autograd.gradcheck.GradcheckError`."""


def _as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _differentiable_outputs(out) -> list:
    return [o for o in _as_tuple(out) if isinstance(o, Tensor) and o._requires_grad]


def _numerical_jacobians(func, inputs, targets, eps: float, outputs, picks) -> list:
    """J[i][j]: d(output j)/d(input i) by central differences, as (numel_in, numel_out).

    Each difference is taken in the output's dtype, as PyTorch does, so a float32 output
    shows float32 round-off.
    """
    jac = []
    for t in targets:
        data = t._data  # perturbed in place, element by element, in C order
        cols = [np.zeros((data.size, o._data.size), o._data.dtype) for o in outputs]
        for k, idx in enumerate(np.ndindex(data.shape)):
            orig = data[idx].item()
            data[idx] = orig - eps
            lo = [o._data.copy() for o in _pick(func(*inputs), picks)]
            data[idx] = orig + eps
            hi = [o._data.copy() for o in _pick(func(*inputs), picks)]
            data[idx] = orig
            for j, (a, b) in enumerate(zip(lo, hi)):
                cols[j][k] = ((b - a) / (2 * eps)).reshape(-1)
        jac.append(cols)
    return jac


def _pick(out, picks) -> list:
    tensors = _tensors(out)
    return [tensors[i] for i in picks]


def _tensors(out) -> list:
    return [o for o in _as_tuple(out) if isinstance(o, Tensor)]


def _analytical_jacobians(outputs, targets) -> list:
    jac = [[np.zeros((t._data.size, o._data.size)) for o in outputs] for t in targets]
    for j, out in enumerate(outputs):
        for k in range(out._data.size):
            seed = np.zeros(out._data.size, dtype=out._data.dtype)
            seed[k] = 1
            grads = autograd_grad(
                out,
                targets,
                Tensor._wrap(seed.reshape(out._data.shape)),
                retain_graph=True,
                allow_unused=True,
            )
            for i, g in enumerate(grads):
                if g is not None:
                    jac[i][j][:, k] = g._data.reshape(-1)
    return jac


def gradcheck(
    func,
    inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked=None,
) -> bool:
    """Matches `torch.autograd.gradcheck`: compare every Jacobian entry in float64."""
    inputs = _as_tuple(inputs)
    targets = [t for t in inputs if isinstance(t, Tensor) and t._requires_grad]
    if not targets:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of them have requires_grad=True."
        )
    _warn_single_precision(inputs)
    everything = _tensors(func(*inputs))
    picks = [k for k, o in enumerate(everything) if o._requires_grad]
    if not picks:
        return _check_constant_outputs(func, inputs, targets, eps, raise_exception)
    outputs = [everything[k] for k in picks]
    analytical = _analytical_jacobians(outputs, targets)
    numerical = _numerical_jacobians(func, inputs, targets, eps, outputs, picks)
    for i, t in enumerate(targets):
        for j in range(len(outputs)):
            a, n = analytical[i][j], numerical[i][j]
            if not np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=True):
                return _fail(_mismatch(i, j, n, a.astype(t._data.dtype)), raise_exception)
    return True


def _warn_single_precision(inputs) -> None:
    for i, t in enumerate(inputs):
        if (
            isinstance(t, Tensor)
            and t._requires_grad
            and t._data.dtype not in (np.float64, np.complex128)
        ):
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                UserWarning,
                stacklevel=3,
            )


def _mismatch(i: int, j: int, numerical: np.ndarray, analytical: np.ndarray) -> str:
    # PyTorch prints each Jacobian as a tensor of shape (input numel, output numel)
    return (
        f"Jacobian mismatch for output {j} with respect to input {i},\n"
        f"numerical:{_show(numerical)}\nanalytical:{_show(analytical)}\n"
    )


def _check_constant_outputs(func, inputs, targets, eps, raise_exception) -> bool:
    # no output carries a gradient: PyTorch then only asks that none depend on the inputs
    everything = _tensors(func(*inputs))
    picks = [k for k, o in enumerate(everything) if o.is_floating_point()]
    outputs = [everything[k] for k in picks]
    for per_input in _numerical_jacobians(func, inputs, targets, eps, outputs, picks):
        if any(np.any(n != 0) for n in per_input):
            return _fail("Numerical gradient for function expected to be zero", raise_exception)
    return True


def _show(m: np.ndarray) -> str:
    return repr(Tensor._wrap(m))


def _fail(message: str, raise_exception: bool) -> bool:
    if raise_exception:
        raise GradcheckError(message)
    return False


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Matches `torch.autograd.gradgradcheck`: gradcheck of the backward pass itself."""
    inputs = _as_tuple(inputs)
    targets_mask = [isinstance(t, Tensor) and t._requires_grad for t in inputs]
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        outs = _differentiable_outputs(func(*inputs))
        grad_outputs = tuple(
            Tensor._wrap(rng.standard_normal(o._data.shape).astype(o._data.dtype), True)
            for o in outs
        )
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)

    def first_order(*args):
        ins, gos = args[:n], args[n:]
        outs = _differentiable_outputs(func(*ins))
        diff_ins = [t for t, m in zip(ins, targets_mask) if m]
        grads = autograd_grad(outs, diff_ins, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_order,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )
