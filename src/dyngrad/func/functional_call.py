"""`torch.func.functional_call`: a module called with parameters and buffers given as dicts."""

from __future__ import annotations

from collections.abc import Sequence

from ..nn.utils.stateless import _functional_call

__all__ = ["functional_call"]


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
