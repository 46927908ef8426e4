"""`torch.autograd.functional`: vjp, jvp, jacobian, hessian, hvp and vhp of a Python function.

# Note [Functional API inputs]
# Every entry point differentiates `func` at fresh tensors made from the inputs, so that a
# tensor `func` captures from outside is never mistaken for an input. With `create_graph` an
# input that requires grad is passed as a differentiable alias (`view_as`) so the results stay
# connected to it; otherwise it is detached and made a leaf that requires grad. Results are
# detached on the way out unless `create_graph` asked for their graph.
"""

from __future__ import annotations

from .._tensor import Tensor
from ..graph.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from ..ops.creation.factories import zeros, zeros_like
from ..ops.shape.joining import stack
from . import forward_ad
from .engine import grad as autograd_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

OUTPUTS = "outputs of the user-provided function"


def _as_tuple(value, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """(whether `value` was a tuple, `value` as a tuple of Tensors), or PyTorch's TypeError."""
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, el in enumerate(values):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but the {where} has type {type(el)}."
            )
    return is_tuple, values


def _unpack(result, was_tuple):
    """Undo `_as_tuple`: `was_tuple` is one flag, or (outer, inner) for nested results."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            result = tuple(el[0] for el in result)
        return result if outer else result[0]
    return result if was_tuple else result[0]


def _fresh(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    # See Note [Functional API inputs]
    return tuple(
        t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph)
        for t in inputs
    )


def _finish(results, create_graph: bool):
    """Detach (nested tuples of) results unless the caller asked for their graph."""
    if create_graph:
        return results
    return tuple(r.detach() if isinstance(r, Tensor) else _finish(r, False) for r in results)


def _validate_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
    if len(v) != len(other):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prefix = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prefix}v has invalid size: should be {el_other.size()} but got {el_v.size()}."
            )


def _prepare_v(v, reference: tuple, is_ref_tuple: bool, fn_name: str, create_graph: bool):
    """v as a tuple shaped like `reference`; None only for a single one-element reference."""
    if v is None:
        if len(reference) != 1 or reference[0].nelement() != 1:
            what = "user-provided function returns a single Tensor with a single element."
            if fn_name != "vjp":
                what = (
                    "input to the user-provided function is a single Tensor with a single element."
                )
            raise RuntimeError(f"The vector v can only be None if the {what}")
        return None
    v = _as_tuple(v, "v", fn_name)[1]
    v = _fresh(v, create_graph, need_graph=False)
    _validate_v(v, reference, is_ref_tuple)
    return v


_STRICT_MESSAGES = {
    "outputs": (
        "Output {i} of the user-provided function does not require gradients. The outputs "
        "must be computed in a differentiable manner from the input when running in strict "
        "mode."
    ),
    "grad_inputs": (
        "The gradient with respect to input {i} is independent of the inputs of the "
        "user-provided function. This is not allowed in strict mode."
    ),
    "jacobian": (
        "While computing the hessian, found that the jacobian of the user-provided function "
        "with respect to input {i} is independent of the input. This is not allowed in strict "
        "mode. You should ensure that your function is twice differentiable and that the "
        "jacobian depends on the inputs (this would be violated by a linear function for "
        "example)."
    ),
    "hessian": (
        "The hessian of the user-provided function with respect to input {i} is independent "
        "of the input. This is not allowed in strict mode. You should ensure that your "
        "function is thrice differentiable and that the hessian depends on the inputs."
    ),
}


def _check_requires_grad(tensors: tuple, kind: str, strict: bool) -> None:
    """In strict mode, every tensor must depend on the inputs (PyTorch's messages per kind)."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. "
                "This is not allowed in strict mode."
            )
        if not t.requires_grad:
            raise RuntimeError(_STRICT_MESSAGES[kind].format(i=i))


def _grad(outputs: tuple, inputs: tuple, grad_outputs=None, create_graph=False, retain=None):
    """`autograd.grad` that skips outputs which need no grad, and gives None for unused inputs."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    outs, grads = zip(*pairs)
    return autograd_grad(
        outs, inputs, grads, retain_graph=retain, create_graph=create_graph, allow_unused=True
    )


_ZERO_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}.",
    "back_trick": (
        "The gradient with respect to the input is independent of entry {i} in the "
        "grad_outputs when using the double backward trick to compute forward mode gradients."
    ),
    "double_back": "The jacobian of the user-provided function is independent of input {i}.",
    "double_back_trick": (
        "The hessian of the user-provided function is independent of entry {i} in the "
        "grad_jacobian."
    ),
}


def _fill_in_zeros(grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str):
    """Unused inputs get zeros; in strict mode they raise PyTorch's message for `stage`."""
    filled = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                tail = " This is not allowed in strict mode."
                if stage == "double_back_trick":
                    tail = (
                        " This is not allowed in strict mode as it prevents from using the "
                        "double backward trick to replace forward mode AD."
                    )
                raise RuntimeError(_ZERO_MESSAGES[stage].format(i=i) + tail)
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. "
                "This is not allowed in strict mode when create_graph=True."
            )
        filled.append(g)
    return tuple(filled)


def _call(func, inputs: tuple, fn_name: str, strict: bool) -> tuple[bool, tuple]:
    is_tuple, outputs = _as_tuple(func(*inputs), OUTPUTS, fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    return is_tuple, outputs


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Matches `torch.autograd.functional.vjp`: (func(inputs), v^T J)."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _call(func, inputs, "vjp", strict)
        v = _prepare_v(v, outputs, is_outputs_tuple, "vjp", create_graph)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "back")
    return (
        _unpack(_finish(outputs, create_graph), is_outputs_tuple),
        _unpack(_finish(result, create_graph), is_inputs_tuple),
    )


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Matches `torch.autograd.functional.jvp`: (func(inputs), J v) by the double-backward trick.

    The trick: g(u) = J^T u is linear in u, so d(g(u) . v)/du = J v, from two backward passes.
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, "jvp", create_graph)
        is_outputs_tuple, outputs = _call(func, inputs, "jvp", strict)
        dummies = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, dummies, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with enable_grad() if create_graph else set_grad_enabled(is_grad_enabled()):
        grads = _grad(grad_inputs, dummies, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, outputs, strict, create_graph, "back_trick")
    return (
        _unpack(_finish(outputs, create_graph), is_outputs_tuple),
        _unpack(_finish(result, create_graph), is_outputs_tuple),
    )


def _check_strategy(strategy: str, create_graph: bool, strict: bool, vectorize: bool) -> None:
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "reverse-mode":
        return
    if create_graph:
        raise NotImplementedError(
            'torch.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-'
            'mode"` are not supported together (yet). Please either set `create_graph=False` '
            'or `strategy="reverse-mode"`.'
        )
    if strict:
        raise RuntimeError(
            'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
            "are not supported together (yet). Please either set `strict=False` or "
            '`strategy="reverse-mode"`.'
        )
    if not vectorize:
        raise NotImplementedError(  # PyTorch's words, its missing space included
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
            "only implemented for `vectorize=True`."
        )


def _jacobian_rows(out: Tensor, inputs: tuple, i: int, create_graph: bool, strict: bool):
    """d out / d inputs, one backward pass per element of `out`: one tensor per input."""
    rows = tuple([] for _ in inputs)
    flat = out.reshape(-1)
    for j in range(out.nelement()):
        grads = _grad((flat[j],), inputs, create_graph=create_graph, retain=True)
        for k, (g, inp) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(
                        f"Output {i} of the user-provided function is independent of input "
                        f"{k}. This is not allowed in strict mode."
                    )
                g = zeros_like(inp)
            elif strict and create_graph and not g.requires_grad:
                raise RuntimeError(  # PyTorch names the output's index here
                    f"The jacobian of the user-provided function is independent of input {i}."
                    " This is not allowed in strict mode when create_graph=True."
                )
            rows[k].append(g)
    return tuple(stack(row, dim=0).view(out.size() + inp.size()) for row, inp in zip(rows, inputs))


def jacobian(
    func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"
):
    """Matches `torch.autograd.functional.jacobian`: shapes out.shape + in.shape.

    `vectorize=True` is accepted and computes the same Jacobian row by row (dyngrad has no
    batched gradients); `strategy="forward-mode"` computes it column by column, one dual
    input direction per input element (autograd/forward_ad.py).
    """
    _check_strategy(strategy, create_graph, strict, vectorize)
    if strategy == "forward-mode":
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        return _forward_jacobian(func, inputs, is_inputs_tuple)
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _call(func, inputs, "jacobian", strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                "not supported together. Please either set `strict=False` or "
                "`vectorize=False`."
            )
        jac = tuple(
            _jacobian_rows(out, inputs, i, create_graph, strict) for i, out in enumerate(outputs)
        )
        return _unpack(_finish(jac, create_graph), (is_outputs_tuple, is_inputs_tuple))


def _forward_jacobian(func, inputs: tuple, is_inputs_tuple: bool):
    """The Jacobian by forward-mode AD: column e of input i is the outputs' tangent when
    input i moves along its e-th element."""
    inputs = tuple(t.detach() for t in inputs)
    is_outputs_tuple, outputs = _as_tuple(func(*inputs), OUTPUTS, "jacobian")
    jac = [[[] for _ in inputs] for _ in outputs]

    def call(*args):
        return _as_tuple(func(*args), OUTPUTS, "jacobian")[1]

    for i in range(len(inputs)):
        for tangents in forward_ad.jvp_columns(call, inputs, i):
            for j, (out, g) in enumerate(zip(outputs, tangents)):
                jac[j][i].append(
                    zeros(out.nelement(), dtype=out.dtype) if g is None else Tensor._wrap(g)
                )
    result = tuple(
        tuple(
            stack(columns, -1).view(*outputs[j].shape, *inp.shape)
            if columns
            else zeros(*outputs[j].shape, *inp.shape, dtype=outputs[j].dtype)
            for columns, inp in zip(jac[j], inputs)
        )
        for j in range(len(outputs))
    )
    return _unpack(result, (is_outputs_tuple, is_inputs_tuple))


def hessian(
    func,
    inputs,
    create_graph=False,
    strict=False,
    vectorize=False,
    outer_jacobian_strategy="reverse-mode",
):
    """Matches `torch.autograd.functional.hessian`: the Jacobian of the gradient."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*inp):
        out = func(*inp)
        is_tuple, outs = _as_tuple(out, OUTPUTS, "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if is_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return out.squeeze()

    def jac_func(*inp):
        jac = jacobian(scalar_func, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph, strict, vectorize, outer_jacobian_strategy)
    return _unpack(res, (is_inputs_tuple, is_inputs_tuple))


def _scalar_output(func, inputs: tuple, fn_name: str, strict: bool) -> tuple[bool, tuple]:
    is_outputs_tuple, outputs = _call(func, inputs, fn_name, strict)
    if is_outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element"
        )
    return is_outputs_tuple, outputs


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Matches `torch.autograd.functional.vhp`: (func(inputs), v^T H)."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, "vhp", create_graph)
        is_outputs_tuple, outputs = _scalar_output(func, inputs, "vhp", strict)
        jac = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back")
    return (
        _unpack(_finish(outputs, create_graph), is_outputs_tuple),
        _unpack(_finish(result, create_graph), is_inputs_tuple),
    )


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Matches `torch.autograd.functional.hvp`: (func(inputs), H v), by double backward."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, "hvp", create_graph)
        is_outputs_tuple, outputs = _scalar_output(func, inputs, "hvp", strict)
        jac = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        dummies = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _grad(jac, inputs, dummies, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)  # as PyTorch: jac, not double_back
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(double_back, dummies, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back_trick")
    return (
        _unpack(_finish(outputs, create_graph), is_outputs_tuple),
        _unpack(_finish(result, create_graph), is_inputs_tuple),
    )
