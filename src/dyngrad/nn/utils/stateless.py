"""`functional_call`: run a module with some of its parameters and buffers swapped for others."""

from __future__ import annotations

import contextlib
import warnings

from ..._tensor import Tensor

__all__ = ["functional_call"]

_MISSING = object()


def _tied_names(module) -> dict[str, set[str]]:
    """Each name of a tensor the module holds under several names, to all of those names."""
    names_of: dict[int, set[str]] = {}
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    for name, tensor in named.items():
        names_of.setdefault(id(tensor), set()).add(name)
    return {name: names for names in names_of.values() if len(names) > 1 for name in names}


def _untie(module, parameters_and_buffers: dict) -> dict:
    """A value given for one name of a tied tensor, given for all its names."""
    tied = _tied_names(module)
    given = [name for name in parameters_and_buffers if name in tied]
    for name in given:
        names = tied[name]
        values = {id(parameters_and_buffers[n]) for n in names if n in parameters_and_buffers}
        if len(values) > 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(names)}, which are "
                "tied. Consider using tie_weights=False"
            )
    untied = dict(parameters_and_buffers)
    for name in given:
        for other in tied[name]:
            untied[other] = parameters_and_buffers[name]
    return untied


def _owner(module, path: str):
    for part in path.split(".") if path else ():
        if part not in module._modules:
            raise AttributeError(f"{module._get_name()} has no attribute `{part}`")
        module = module._modules[part]
    return module


def _swap(module, name: str, tensor):
    """Put `tensor` at dotted `name` (_MISSING removes it); return what was there."""
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    path, _, attr = name.rpartition(".")
    owner = _owner(module, path)
    for store in (owner._parameters, owner._buffers):
        if attr in store:
            original = store[attr]
            if tensor is _MISSING:
                del store[attr]
            else:
                store[attr] = tensor  # a plain Tensor may stand in for a Parameter here
            return original
    original = getattr(owner, attr, _MISSING)
    if original is not _MISSING and original is not None and not isinstance(original, Tensor):
        raise TypeError(f"attribute `{attr}`: {original} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(owner, attr, tensor)
    elif hasattr(owner, attr):
        delattr(owner, attr)
    return original


def _check_keys(module, names) -> None:
    valid = {n for n, _ in module.named_parameters(remove_duplicate=False)}
    valid |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
    missing, unexpected = sorted(valid - set(names)), sorted(set(names) - valid)
    errors = []
    if unexpected:
        errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if errors:
        raise RuntimeError(
            f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(errors)
        )


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers: dict, tie_weights=False, strict=False):
    """Swap the tensors in, run the body, swap the originals back even if it raises."""
    given = parameters_and_buffers
    if tie_weights:
        parameters_and_buffers = _untie(module, parameters_and_buffers)
    if strict:
        _check_keys(module, parameters_and_buffers)
    originals: dict = {}
    try:
        for name, tensor in parameters_and_buffers.items():
            originals[name] = _swap(module, name, tensor)
        yield
    finally:
        swapped_out = {name: _swap(module, name, t) for name, t in originals.items()}
        # As PyTorch: what the module put in place of a given tensor goes back to the caller.
        given.update({k: v for k, v in swapped_out.items() if k in given and v is not _MISSING})


def _functional_call(
    module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights, strict):
        return module(*args, **kwargs)


def functional_call(
    module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    """Matches `torch.nn.utils.stateless.functional_call` (deprecated: use torch.func's)."""
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be "
        "removed in a future version of PyTorch. Please use `torch.func.functional_call` "
        "instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return _functional_call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )
