"""`gradcheck` and `gradgradcheck`: analytical Jacobians against central differences; and
PyTorch's deprecated `get_numerical_jacobian` / `get_analytical_jacobian`."""

from __future__ import annotations

import functools
import warnings
from typing import NamedTuple

import numpy as np

from .._tensor import Tensor
from . import forward_ad
from .engine import grad as autograd_grad
from .gradcheck_analytical import checked_vjp_columns, unit_seeds, vjp_columns
from .gradcheck_checks import (
    GradcheckError,
    check_backward_multiplies_by_grad_output,
    check_same_dtype_and_shape,
    check_undefined_grad,
    jacobians_equal,
)
from .gradcheck_complex import real_embedding
from .gradcheck_fast import check_constant_outputs_fast, fast_mismatch

__all__ = [
    "gradcheck",
    "gradgradcheck",
    "GradcheckError",
    "get_numerical_jacobian",
    "get_analytical_jacobian",
]


def _as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _differentiable_outputs(out) -> list:
    return [o for o in _as_tuple(out) if isinstance(o, Tensor) and o._requires_grad]


def _tensors(out) -> list:
    return [o for o in _as_tuple(out) if isinstance(o, Tensor)]


def _numerical_jacobians(call, targets, eps: float) -> list:
    """J[i][j]: d(output j)/d(target i) by central differences, as (numel_in, numel_out),
    for every tensor output of `call()`; each target is perturbed in place, element by
    element in C order.

    Each difference is taken in the output's dtype, as PyTorch does, so a float32 output
    shows float32 round-off.
    """
    jac = []
    for t in targets:
        data = t._data
        cols = None
        for k, idx in enumerate(np.ndindex(data.shape)):
            orig = data[idx].item()
            data[idx] = orig - eps
            lo = _snapshots(call())
            data[idx] = orig + eps
            hi = _snapshots(call())
            data[idx] = orig
            for a, b in zip(lo, hi):
                check_same_dtype_and_shape(a, b, eps, idx)
            if cols is None:
                cols = [np.zeros((data.size, o._data.size), o._data.dtype) for o in lo]
            for j, (a, b) in enumerate(zip(lo, hi)):
                cols[j][k] = ((b._data - a._data) / (2 * eps)).reshape(-1)
        if cols is None:  # an empty input: nothing to perturb
            cols = [np.zeros((0, o._data.size), o._data.dtype) for o in call()]
        jac.append(cols)
    return jac


def _snapshots(outputs) -> list:
    # copies: an output may be the very array being perturbed (a gradient handed on as is)
    return [Tensor._wrap(o._data.copy()) for o in outputs]


def _analytical_jacobian(output: Tensor, targets, nondet_tol, check_grad_dtypes) -> list:
    """J[i]: d(output)/d(target i) by one backward per output element, (numel_in, numel_out)."""
    return checked_vjp_columns(
        output,
        targets,
        lambda: unit_seeds(output),
        output._data.size,
        nondet_tol,
        check_grad_dtypes,
    )


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
    """Matches `torch.autograd.gradcheck`: compare every Jacobian entry in float64.

    Also checks, as PyTorch, that outputs keep their shape and dtype under perturbation, that
    backward is reentrant (the same twice, within `nondet_tol`), gives gradients of the inputs'
    sizes (and dtypes, with `check_grad_dtypes`), multiplies by the output gradient and
    (`check_undefined_grad`) copes with undefined output gradients. `fast_mode` compares
    v^T J u for random u and v (gradcheck_fast.py), and on a mismatch shows the full Jacobians
    as PyTorch does; `check_batched_grad` adds nothing, as dyngrad's vmap is a loop
    (Note [vmap as a loop]) and batched gradients are per-sample gradients by construction.
    `check_forward_ad` compares the Jacobians forward-mode AD gives (one dual input direction
    at a time, Note [Forward AD from the backward formulas]) with the numerical ones too.
    """
    _check_modes(
        check_forward_ad, check_backward_ad, check_batched_grad, check_batched_forward_grad
    )
    options = _Options(
        eps,
        atol,
        rtol,
        nondet_tol,
        check_undefined_grad,
        check_grad_dtypes,
        fast_mode,
        check_forward_ad,
        check_backward_ad,
    )
    func, inputs = real_embedding(func, _as_tuple(inputs))  # Note [gradcheck of complex functions]
    try:
        return _gradcheck(func, inputs, options)
    except GradcheckError:
        if raise_exception:
            raise
        return False


class _Options(NamedTuple):
    eps: float
    atol: float
    rtol: float
    nondet_tol: float
    check_undefined_grad: bool
    check_grad_dtypes: bool
    fast_mode: bool
    forward_ad: bool = False
    backward_ad: bool = True


def _check_modes(forward_ad, backward_ad, batched_grad, batched_forward_grad) -> None:
    # PyTorch asserts these before anything runs, whatever raise_exception says
    if not (forward_ad or backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True"
        )
    if batched_grad and not backward_ad:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_backward_ad to be True"
        )
    if batched_forward_grad and not forward_ad:
        raise AssertionError(
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True"
        )


def _gradcheck(func, inputs, options: _Options) -> bool:
    targets = [t for t in inputs if isinstance(t, Tensor) and t._requires_grad]
    if not targets:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of them have requires_grad=True."
        )
    _check_inputs(inputs)
    everything = _tensors(func(*inputs))
    picks = [k for k, o in enumerate(everything) if o._requires_grad]
    outputs = [everything[k] for k in picks]
    _check_outputs(outputs)

    def call():
        return _tensors(func(*inputs))

    if not picks and options.fast_mode:
        check_constant_outputs_fast(call, targets, options.eps, options.nondet_tol)
        return True
    if not picks:
        return _check_constant_outputs(everything, _numerical_jacobians(call, targets, options.eps))
    if options.forward_ad:
        _compare_forward_jacobians(func, inputs, targets, everything, picks, options)
    if not options.backward_ad:
        return True
    if options.fast_mode:
        _fast_check(func, inputs, targets, everything, picks, options)
    else:
        _compare_jacobians(func, inputs, targets, everything, picks, options)
    check_backward_multiplies_by_grad_output(outputs, targets)
    if options.check_undefined_grad:
        check_undefined_grad(func, inputs, targets, _differentiable_outputs)
    return True


def _compare_forward_jacobians(func, inputs, targets, everything, picks, options) -> None:
    """Every Jacobian column by forward-mode AD (one input element's direction at a time),
    against the numerical Jacobians."""
    numerical = _numerical_jacobians(lambda: _tensors(func(*inputs)), targets, options.eps)
    for i, t in enumerate(targets):
        position = next(p for p, a in enumerate(inputs) if a is t)
        columns = {k: np.zeros((t._data.size, everything[k]._data.size)) for k in picks}
        found = forward_ad.jvp_columns(lambda *a: _tensors(func(*a)), inputs, position)
        for e, tangents in enumerate(found):
            for k in picks:
                if tangents[k] is not None:
                    columns[k][e] = tangents[k]
        for j, k in enumerate(picks):
            a, n = columns[k], numerical[i][k]
            if not np.allclose(a, n, rtol=options.rtol, atol=options.atol, equal_nan=True):
                raise GradcheckError(
                    "Jacobian computed with forward mode mismatch for output "
                    + _mismatch(i, j, n, a.astype(t._data.dtype)).partition("for output ")[2]
                )


def _compare_jacobians(func, inputs, targets, everything, picks, options: _Options) -> None:
    """Slow mode: every entry of every Jacobian, numerical against analytical."""
    numerical = _numerical_jacobians(lambda: _tensors(func(*inputs)), targets, options.eps)
    for j, k in enumerate(picks):
        analytical = _analytical_jacobian(
            everything[k], targets, options.nondet_tol, options.check_grad_dtypes
        )
        for i, t in enumerate(targets):
            a, n = analytical[i], numerical[i][k]
            if not np.allclose(a, n, rtol=options.rtol, atol=options.atol, equal_nan=True):
                raise GradcheckError(_mismatch(i, j, n, a.astype(t._data.dtype)))


def _fast_check(func, inputs, targets, everything, picks, options: _Options) -> None:
    found = fast_mismatch(
        lambda: _tensors(func(*inputs)),
        targets,
        everything,
        picks,
        options.eps,
        options.atol,
        options.rtol,
        options.nondet_tol,
        options.check_grad_dtypes,
    )
    if found is None:
        return
    i, j, n, a = found
    slow_options = options._replace(nondet_tol=float("inf"), check_grad_dtypes=False)
    try:  # the full Jacobians, for the message
        _compare_jacobians(func, inputs, targets, everything, picks, slow_options)
        slow = "Slow mode (every Jacobian entry) passes: the fast check may be too strict here."
    except GradcheckError as exc:
        slow = str(exc).partition("\n")[2] or str(exc)
    raise GradcheckError(
        f"Jacobian mismatch for output {j} with respect to input {i},\nnumerical:{n}\n"
        f"analytical:{a}\n\n[dyngrad] fast mode compares v^T J u for random unit vectors u "
        f"and v; the full Jacobians follow:\n{slow}"
    )


def _check_inputs(inputs) -> None:
    for i, t in enumerate(inputs):
        if not (isinstance(t, Tensor) and t._requires_grad):
            continue
        if t._data.dtype not in (np.float64, np.complex128):
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or "
                "complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                UserWarning,
                stacklevel=4,
            )
        # perturbing one element would move every element sharing its memory; NumPy may
        # give an empty array zero strides, and an empty input has nothing to perturb
        if (
            not t.is_sparse
            and t._data.size
            and any(st == 0 and n > 1 for st, n in zip(t._data.strides, t._data.shape))
        ):
            raise RuntimeError(
                f"The {i}th input has a dimension with stride 0. gradcheck only supports inputs "
                "that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck."
            )


def _check_outputs(outputs) -> None:
    if any(o.is_sparse for o in outputs):
        raise ValueError(
            "Sparse output is not supported at gradcheck yet. Please call "
            "to_dense(masked_grad=...) on the output of fn for gradcheck."
        )


def _mismatch(i: int, j: int, numerical: np.ndarray, analytical: np.ndarray) -> str:
    # PyTorch prints each Jacobian as a tensor of shape (input numel, output numel)
    return (
        f"Jacobian mismatch for output {j} with respect to input {i},\n"
        f"numerical:{_show(numerical)}\nanalytical:{_show(analytical)}\n"
    )


def _check_constant_outputs(everything, numerical) -> bool:
    # no output carries a gradient: PyTorch then only asks that none depend on the inputs
    floating = {k for k, o in enumerate(everything) if o.is_floating_point()}
    for per_input in numerical:
        if any(np.any(n != 0) for k, n in enumerate(per_input) if k in floating):
            raise GradcheckError("Numerical gradient for function expected to be zero")
    return True


def _show(m: np.ndarray) -> str:
    return repr(Tensor._wrap(m))


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
    """Matches `torch.autograd.gradgradcheck`: gradcheck of the backward pass itself, with
    random output gradients in [-1, 1) unless `grad_outputs` are given."""
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
        )
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True"
        )
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_rev_over_rev to be True"
        )
    inputs = _as_tuple(inputs)
    targets_mask = [isinstance(t, Tensor) and t._requires_grad for t in inputs]
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        outs = _differentiable_outputs(func(*inputs))
        grad_outputs = tuple(_random_grad(rng, o, gen_non_contig_grad_outputs) for o in outs)
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
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad,
        check_forward_ad=check_fwd_over_rev,
        check_backward_ad=check_rev_over_rev,
        fast_mode=fast_mode,
    )


def _random_grad(rng, output: Tensor, non_contiguous: bool) -> Tensor:
    dtype = output._data.dtype if output.is_floating_point() or output.is_complex() else np.float64
    values = rng.uniform(-1, 1, output._data.shape).astype(dtype)
    if output.is_complex():
        values = values + 1j * rng.uniform(-1, 1, output._data.shape).astype(dtype)
    if non_contiguous and values.size > 1:
        # every other element of a buffer twice as wide: same values, no unit stride
        shape = values.shape[:-1] + (2 * values.shape[-1],)
        spread = np.empty(shape, dtype)[..., ::2]
        spread[...] = values
        values = spread
    return Tensor._wrap(values, True)


# ---- PyTorch's deprecated Jacobian helpers ---------------------------------------------------


def _deprecated(name: str):
    message = (
        f"`{name}` was part of PyTorch's private API and not meant to be exposed. We are "
        "deprecating it and it will be removed in a future version of PyTorch. If you have a "
        "specific use for this or feature request for this to be a stable API, please file us "
        "an issue at https://github.com/pytorch/pytorch/issues/new"
    )

    def decorate(fn):
        @functools.wraps(fn)
        def warned(*args, **kwargs):
            warnings.warn(message, FutureWarning, stacklevel=2)
            return fn(*args, **kwargs)

        return warned

    return decorate


def _only_unit_grad_out(grad_out, name: str) -> None:
    if grad_out != 1.0:  # kept in the signature for old callers only
        raise ValueError(
            f"Expected grad_out to be 1.0. {name} no longer supports values of grad_out != 1.0."
        )


@_deprecated("get_numerical_jacobian")
def get_numerical_jacobian(fn, inputs, target=None, eps: float = 1e-3, grad_out: float = 1.0):
    """Matches `torch.autograd.gradcheck.get_numerical_jacobian` (deprecated): the Jacobians
    of `fn(inputs)`'s first output with respect to each tensor of `target` (default: the
    inputs) that requires grad; `fn` takes the inputs as one tuple."""
    _only_unit_grad_out(grad_out, "get_numerical_jacobian")
    targets = [t for t in _as_tuple(inputs if target is None else target) if _needs_grad(t)]
    jacobians = _numerical_jacobians(lambda: _tensors(fn(inputs))[:1], targets, eps)
    return tuple(Tensor._wrap(per_output[0]) for per_output in jacobians)


@_deprecated("get_analytical_jacobian")
def get_analytical_jacobian(inputs, output, nondet_tol: float = 0.0, grad_out: float = 1.0):
    """Matches `torch.autograd.gradcheck.get_analytical_jacobian` (deprecated): (Jacobians of
    `output` with respect to each input that requires grad, whether two backward runs agree
    within `nondet_tol`, whether the gradients had the right sizes, and dtypes)."""
    _only_unit_grad_out(grad_out, "get_analytical_jacobian")
    if output.is_complex():
        raise ValueError(
            "Expected output to be non-complex. get_analytical_jacobian no longer supports "
            "functions that return complex outputs."
        )
    targets = [t for t in _as_tuple(inputs) if _needs_grad(t)]
    size = output._data.size
    first, sizes_ok, types_ok = vjp_columns(output, targets, unit_seeds(output), size)
    second, _, _ = vjp_columns(output, targets, unit_seeds(output), size)
    reentrant = jacobians_equal(first, second, nondet_tol)
    jacobians = tuple(Tensor._wrap(j.astype(t._data.dtype)) for j, t in zip(first, targets))
    return jacobians, reentrant, sizes_ok, types_ok


def _needs_grad(t) -> bool:
    return isinstance(t, Tensor) and t._requires_grad
