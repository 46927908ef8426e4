"""`torch.func.functional_call`: a module called with parameters and buffers given as dicts."""

from __future__ import annotations

from collections.abc import Sequence

from ..nn.utils.stateless import _functional_call
from ..ops.shape.joining import stack

__all__ = ["functional_call", "stack_module_state"]


def _merge(dicts) -> dict:
    if isinstance(dicts, dict):
        return dicts
    if not isinstance(dicts, Sequence):
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
            f"{type(dicts)}"
        )
    if not all(isinstance(d, dict) for d in dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    counts: dict[str, int] = {}
    for d in dicts:
        for key in d:
            counts[key] = counts.get(key, 0) + 1
    repeated = [key for key, n in counts.items() if n > 1]
    if repeated:
        raise ValueError(
            f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
            "ambiguous"
        )
    return {k: v for d in dicts for k, v in d.items()}


def functional_call(
    module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    """Matches `torch.func.functional_call`: `module(*args)` with the given tensors swapped in.

    With `grad`: `grad(lambda p: functional_call(model, p, (x,)).sum())(params)` gives one
    gradient per entry of the `params` dict.
    """
    return _functional_call(
        module,
        _merge(parameter_and_buffer_dicts),
        args,
        kwargs,
        tie_weights=tie_weights,
        strict=strict,
    )


def _stacked(tensors, name: str):
    # a new leaf per name: optimizable, and unrelated to the models' own parameters
    grads = {t.requires_grad for t in tensors}
    if len(grads) > 1:
        raise RuntimeError(
            f"Expected {name} from each model to have the same .requires_grad\n"
            "Freeze or unfreeze it in every model alike."
        )
    out = stack(list(tensors))
    return out.detach().requires_grad_() if grads == {True} else out


def stack_module_state(models) -> tuple[dict, dict]:
    """Matches `torch.func.stack_module_state`: M models of one class as (params, buffers)
    dicts of tensors stacked along a new dim 0, for `vmap` over `functional_call`."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) > 1:
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    named = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked([p[k] for p in named], k) for k in named[0]}
    named = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked([b[k] for b in named], k) for k in named[0]}
    return params, buffers
